#!/usr/bin/env bash
# The main job: sets up .venv and the package (scripts/setup.sh), then reproduces the
# ns-3 comparison on the 802.11b chain, hops 1..8 (`ncmesh reproduce chain-vs-ns3 --quick`):
# TCP goodput with 95% confidence intervals next to ns-3 3.44's, printed as a table, and
# out/chain-vs-ns3/{summary.json, tables/, figures/, report.html} (docs/experiments.md).
#
# usage: bash scripts/main.sh [reproduce options, e.g. --out out/full  (without --quick: 10 seeds, 60 s)]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

source scripts/setup.sh

echo
if [ $# -eq 0 ]; then
  set -- --quick --out out/chain-vs-ns3
fi
"$VENV/bin/ncmesh" reproduce chain-vs-ns3 "$@"
