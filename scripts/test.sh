#!/usr/bin/env bash
# Runs every test on a fresh machine: sets up .venv and the package (scripts/setup.sh),
# then the Rust tests (cargo test, release, same target folder as the package build)
# and the Python tests (pytest). Exits non-zero if anything fails.
#
# usage: bash scripts/test.sh [extra pytest arguments]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

source scripts/setup.sh

echo "== cargo test (release)"
cargo test --workspace --release

echo "== pytest"
"$VENV/bin/python" -m pytest -q tests "$@"
