#!/usr/bin/env bash
# Runs every test on a fresh machine: the main job's set-up (scripts/setup.sh), then what
# only the tests use: the Python test extra of pyproject.toml (pytest, hypothesis, duckdb,
# polars, ray) into the same .venv, and, as root with apt-get, tshark (reads the packet
# captures in test_pcap.py) and headless Chromium (renders report.html in the report
# tests) when missing (their tests skip without them). Then the Rust tests (cargo test with
# the `test-release` profile of Cargo.toml: release optimisation without LTO, in
# target/test-release) and the Python tests (pytest, one worker per core).
# Exits non-zero if anything fails.
#
# usage: bash scripts/test.sh [extra pytest arguments]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

source scripts/setup.sh

TEST_LOG="$(mktemp "${TMPDIR:-/tmp}/ncmesh-test-setup.XXXXXX")"
echo "test: installing the test dependencies: $(deps test)"
# shellcheck disable=SC2046
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-warn-script-location \
    $(deps test) >"$TEST_LOG" 2>&1 </dev/null; then
  echo "test: could not install the test dependencies:" >&2
  tail -n 40 "$TEST_LOG" >&2
  exit 1
fi

missing=()
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-dejavu-core fonts-liberation)
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "test: installing ${missing[*]} (apt-get)"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 update -qq &&
           DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -qq \
             --no-install-recommends "${missing[@]}"; } >"$TEST_LOG" 2>&1 </dev/null; then
      echo "test: could not install ${missing[*]}; their tests will be skipped:" >&2
      tail -n 5 "$TEST_LOG" >&2 || true
    fi
  else
    echo "test: ${missing[*]} not installed (needs apt-get as root); their tests will be skipped" >&2
  fi
fi
rm -f "$TEST_LOG"

echo "== cargo test (profile test-release)"
cargo test --workspace --profile test-release

# One pytest worker per core (pytest-xdist), each test file on one worker, so that a
# file's module fixtures run once; the quick reproductions, which several files read, run
# once per session (tests/python/conftest.py, quick_reproduction).
echo "== pytest"
"$VENV/bin/python" -m pytest -q -n auto --dist loadfile tests "$@"
