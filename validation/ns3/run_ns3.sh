#!/usr/bin/env bash
# Re-generate the ns-3 3.44 reference data ncmesh is validated against.
#
# usage: bash validation/ns3/run_ns3.sh [--quick] [-j N] [OUTPUT_CSV]
#
#   OUTPUT_CSV  default: validation/ns3/reference.csv (relative to the repo root);
#               with --quick the default is validation/ns3/reference-quick.csv so the
#               checked-in reference is not overwritten by a smoke test.
#   --quick     only tag "chain", hops 1..8, run 1 (8 processes, ~2 min)
#   -j N        run N ns-3 processes at once (default 1; NS3_JOBS env also works).
#               Rows are always written in matrix order. Sequential runs give the
#               cleanest wall_run_s figures.
#
# Environment:
#   NS3_PYTHON     python interpreter that can `from ns import ns` (ns-3 3.44 PyPI wheel).
#                  Default: $REPO/.venv-ns3/bin/python, created with `pip install ns3==3.44.*`
#                  if missing or if ns3 is not importable from it.
#   NS3_CHAIN_TCP  the ns-3 anchor scenario script chain_tcp.py (required: it is not part of
#                  this repository; validation/ns3/README.md lists its settings)
#
# One process per simulation (the scenario script's RNG stream assignment relies on it).
# The output is written to OUTPUT_CSV.partial and renamed to OUTPUT_CSV only when every
# run has succeeded, so a failed or interrupted run never leaves a half-written reference.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/../.." && pwd)"

QUICK=0
JOBS="${NS3_JOBS:-1}"
OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    -j) shift; JOBS="${1:?-j needs a number}" ;;
    -j*) JOBS="${1#-j}" ;;
    -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_ns3.sh: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$OUT" ] || { echo "run_ns3.sh: only one output path" >&2; exit 2; }; OUT="$1" ;;
  esac
  shift
done
case "$JOBS" in ''|*[!0-9]*|0) echo "run_ns3.sh: -j needs a positive integer" >&2; exit 2 ;; esac
if [ -z "$OUT" ]; then
  if [ "$QUICK" = 1 ]; then OUT="$REPO/validation/ns3/reference-quick.csv"
  else OUT="$REPO/validation/ns3/reference.csv"; fi
fi
mkdir -p "$(dirname "$OUT")"
OUT="$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")"

CHAIN_TCP="${NS3_CHAIN_TCP:-}"
[ -n "$CHAIN_TCP" ] || { echo "run_ns3.sh: NS3_CHAIN_TCP: not set; give the path of the ns-3 anchor script chain_tcp.py (not part of this repository)" >&2; exit 2; }
[ -f "$CHAIN_TCP" ] || { echo "run_ns3.sh: NS3_CHAIN_TCP: $CHAIN_TCP: no such file" >&2; exit 1; }

# ---- interpreter
has_ns3() { "$1" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("ns") is None)' 2>/dev/null; }
if [ -n "${NS3_PYTHON:-}" ]; then
  PY="$NS3_PYTHON"
  has_ns3 "$PY" || { echo "run_ns3.sh: NS3_PYTHON=$PY cannot import ns (pip install ns3)" >&2; exit 1; }
else
  VENV="$REPO/.venv-ns3"
  PY="$VENV/bin/python"
  if ! { [ -x "$PY" ] && has_ns3 "$PY"; }; then
    echo "run_ns3.sh: setting up $VENV (pip install ns3==3.44.*, ~90 s)" >&2
    [ -x "$PY" ] || python3 -m venv "$VENV"
    "$PY" -m pip install --quiet "ns3==3.44.*"
  fi
fi
NS3_VERSION="$("$PY" -c 'import importlib.metadata as m; print(m.version("ns3"))' 2>/dev/null || echo unknown)"
echo "run_ns3.sh: python=$PY ns3=$NS3_VERSION scenario=$CHAIN_TCP jobs=$JOBS out=$OUT" >&2
case "$NS3_VERSION" in 3.44*) ;; *) echo "run_ns3.sh: WARNING: reference data is for ns-3 3.44" >&2 ;; esac

# ---- the matrix: one line per process: "TAG|ARGS"
MATRIX=()
add() { MATRIX+=("$1|$2"); }
if [ "$QUICK" = 1 ]; then
  for h in 1 2 3 4 5 6 7 8; do add chain "--topo chain --hops $h --seed 1 --run 1"; done
else
  for run in 1 2 3; do
    for h in 1 2 3 4 5 6 7 8; do add chain             "--topo chain --hops $h --seed 1 --run $run"; done
    for h in 1 2 3 4 5 6 7 8; do add chain-delack-off  "--topo chain --hops $h --delack 1 --seed 1 --run $run"; done
    for h in 1 2 3 4 5 6 7 8; do add chain-tworay      "--topo chain --hops $h --prop tworay --seed 1 --run $run"; done
    for h in 1 2 3 4 5 6 7 8; do add chain-per05       "--topo chain --hops $h --per 0.05 --seed 1 --run $run"; done
    for h in 2 4 6;           do add chain-per10       "--topo chain --hops $h --per 0.10 --seed 1 --run $run"; done
    add x        "--topo x --seed 1 --run $run"
    add x-tworay "--topo x --prop tworay --seed 1 --run $run"
  done
fi
N=${#MATRIX[@]}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ns3ref.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PARTIAL="$OUT.partial"
rm -f "$PARTIAL"

# run_one INDEX -> writes $WORK/INDEX.csv (header + rows) and $WORK/INDEX.log
run_one() {
  local i="$1" tag="${MATRIX[$1]%%|*}" args="${MATRIX[$1]#*|}"
  # shellcheck disable=SC2086  # args is a word list on purpose
  if "$PY" "$CHAIN_TCP" $args --tag "$tag" --csv "$WORK/$i.csv" >"$WORK/$i.log" 2>&1; then
    printf '[%3d/%d] %s\n' "$((i + 1))" "$N" "$(grep 'goodput_kbps=' "$WORK/$i.log" | tail -n 1)" >&2
  else
    printf '[%3d/%d] FAILED: %s %s\n' "$((i + 1))" "$N" "$tag" "$args" >&2
    cat "$WORK/$i.log" >&2
    return 1
  fi
}

# append_one INDEX: append the run's rows to the partial output (header only once)
append_one() {
  local f="$WORK/$1.csv"
  [ -s "$f" ] || { echo "run_ns3.sh: run $1 wrote no CSV" >&2; return 1; }
  if [ -s "$PARTIAL" ]; then tail -n +2 "$f" >>"$PARTIAL"; else cat "$f" >"$PARTIAL"; fi
}

T0=$SECONDS
if [ "$JOBS" = 1 ]; then
  for ((i = 0; i < N; i++)); do run_one "$i"; append_one "$i"; done
else
  pids=()
  for ((i = 0; i < N; i++)); do
    run_one "$i" & pids[i]=$!
    # keep at most $JOBS in flight
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  done
  fail=0
  for ((i = 0; i < N; i++)); do wait "${pids[i]}" || fail=1; done
  [ "$fail" = 0 ] || { echo "run_ns3.sh: some runs failed" >&2; exit 1; }
  for ((i = 0; i < N; i++)); do append_one "$i"; done
fi
mv -f "$PARTIAL" "$OUT"
echo "run_ns3.sh: $N runs, $(($(wc -l <"$OUT") - 1)) rows -> $OUT ($((SECONDS - T0)) s)" >&2
