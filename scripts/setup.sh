#!/usr/bin/env bash
# Set-up shared by main.sh and test.sh: creates .venv (if missing), installs the Python
# dependencies and builds + installs the ncmesh package (Rust extension, release mode)
# into it with `maturin develop`, so edits to python/ncmesh take effect without a rebuild.
#
# usage: bash scripts/setup.sh        (or `source` it: then VENV and PATH are set)
# env:   NCMESH_VENV       venv folder (default: <repo>/.venv)
#        PYTHON            interpreter used to create the venv (default: python3, >= 3.11)
#        CARGO_TARGET_DIR  cargo's target folder (default: <repo>/target), shared with cargo test
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${NCMESH_VENV:-$REPO/.venv}"
PY="${PYTHON:-python3}"

# Rust: rustup installs into ~/.cargo; a non-login shell may not have it on PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
  # shellcheck disable=SC1091
  source "$HOME/.cargo/env"
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found (install Rust with rustup)" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" - <<'PYCHECK' || { echo "setup: Python >= 3.11 is needed (tomllib)" >&2; exit 1; }
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PYCHECK

echo "setup: installing Python dependencies"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
  "maturin>=1.7,<2" numpy pandas pyarrow matplotlib pytest cvxpy ray duckdb polars

# tshark reads the packet captures in tests/python/test_pcap.py (skipped without it):
# installed only when missing, as root, with apt-get; never fails the set-up.
if ! command -v tshark >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "setup: installing tshark (apt-get)"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tshark; } \
    >/tmp/ncmesh-setup-tshark.log 2>&1 \
    || echo "setup: could not install tshark (see /tmp/ncmesh-setup-tshark.log); the pcap tests will be skipped" >&2
fi

# Headless Chromium (Debian's `chromium`) renders report.html in the report tests. Installed
# only when missing and apt-get can run as root; any failure just skips it (the tests then skip).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "setup: installing chromium (apt-get)"
  APT_LOG="$(mktemp)"
  if ! { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 update -qq &&
         DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -qq \
           --no-install-recommends chromium fonts-dejavu-core fonts-liberation; } >"$APT_LOG" 2>&1 </dev/null; then
    echo "setup: could not install chromium (the browser tests will be skipped):" >&2
    tail -n 5 "$APT_LOG" >&2 || true
  fi
  rm -f "$APT_LOG"
fi

echo "setup: building and installing ncmesh (release)"
export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
export PYO3_PYTHON="$VENV/bin/python"
(cd "$REPO" && "$VENV/bin/maturin" develop --release -q)
"$VENV/bin/python" -c "import ncmesh; print('setup: ncmesh', ncmesh.__version__, 'ready in $VENV')"
