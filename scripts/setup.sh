#!/usr/bin/env bash
# Set-up of the main job (main.sh) and the first step of test.sh: creates .venv (if
# missing), installs the package's own dependencies (pyproject.toml [project]
# dependencies: what `ncmesh` and the main job use) and builds + installs ncmesh (Rust
# extension, release mode) with `maturin develop`, so edits to python/ncmesh take effect
# without a rebuild. Nothing system-wide; what only the tests use (pytest, hypothesis,
# duckdb, polars, ray, tshark, chromium) is installed by scripts/test.sh.
#
# Quiet: one line per step; the installers' output goes to a log that is printed only if
# a step fails.
#
# usage: bash scripts/setup.sh        (or `source` it: then VENV and PATH are set)
# env:   NCMESH_VENV       venv folder (default: <repo>/.venv)
#        PYTHON            interpreter used to create the venv (default: python3, >= 3.11)
#        CARGO_TARGET_DIR  cargo's target folder (default: <repo>/target), shared with cargo test
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${NCMESH_VENV:-$REPO/.venv}"
PY="${PYTHON:-python3}"
SETUP_LOG="$(mktemp "${TMPDIR:-/tmp}/ncmesh-setup.XXXXXX")"

# quietly CMD...: runs CMD with its output in the log; on failure prints the log's end.
quietly() {
  if ! "$@" >>"$SETUP_LOG" 2>&1 </dev/null; then
    echo "setup: failed: $*" >&2
    tail -n 40 "$SETUP_LOG" >&2
    return 1
  fi
}

# Rust: rustup installs into ~/.cargo; a non-login shell may not have it on PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
  # shellcheck disable=SC1091
  source "$HOME/.cargo/env"
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found (install Rust with rustup)" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  quietly "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" - <<'PYCHECK' || { echo "setup: Python >= 3.11 is needed (tomllib)" >&2; exit 1; }
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PYCHECK

# pyproject.toml's lists, so that they are written in one place: `deps` = the package's
# dependencies, `deps test` = its test extra.
deps() {
  "$VENV/bin/python" - "$REPO/pyproject.toml" "${1:-}" <<'PYDEPS'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
print(" ".join(project["optional-dependencies"][sys.argv[2]] if sys.argv[2] else project["dependencies"]))
PYDEPS
}

# shellcheck disable=SC2046
echo "setup: installing the Python dependencies: $(deps)"
# shellcheck disable=SC2046
quietly "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-warn-script-location \
  "maturin>=1.7,<2" $(deps)

echo "setup: building ncmesh (Rust, release) into $VENV"
export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
export PYO3_PYTHON="$VENV/bin/python"
(cd "$REPO" && quietly "$VENV/bin/maturin" develop --release -q)
"$VENV/bin/python" -c "import ncmesh; print('setup: ncmesh', ncmesh.__version__, 'ready')"
rm -f "$SETUP_LOG"
