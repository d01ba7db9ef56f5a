#!/usr/bin/env bash
# ncmesh performance benchmarks (not tests). Usage, from anywhere:
#
#     bash benchmarks/run.sh            # everything: ~6 min on 2 idle cores, longer when busy
#     bash benchmarks/run.sh --quick    # fewer repetitions, no callgrind/perf (~20 s)
#     bash benchmarks/run.sh 1 2        # only these sections (1 chain, 2 process, 3 memory,
#                                       # 4 scaling, 5 profile); appends to raw.txt, and the
#                                       # tables use the last line of each label
#     NO_CALLGRIND=1 ...                # skip the (load-independent) instruction counts
#     QUIET_WAIT=120 ...                # wait up to 120 s for a quiet machine before each timing
#
# Needs: cargo, the project venv (.venv, with the `ncmesh` command built from the same
# tree), python3 >= 3.11; optional: valgrind (instruction counts), perf (profile),
# /usr/bin/time (GNU time, RSS cross-check).
#
# Writes benchmarks/results/:
#   raw.txt        one line per measurement: label, load average, then the tool's key=value output
#   results.csv    the same, one row per label (summarize.py)
#   results.md     tables (summarize.py); docs/performance.md quotes them
#   env.txt        date, machine, load, git revision, toolchain
#   importtime.txt python -X importtime of `ncmesh run` (median over runs, summarize.py);
#                  importtime-pyc.txt the same with byte-code caching; cprofile-run-chain4.txt
#   perf-chain4.txt  perf report --no-children of the 4-hop chain
#   scenarios/     the scenario files used
set -euo pipefail

QUICK=0
SECTIONS=()
for arg in "$@"; do
    case $arg in
        --quick) QUICK=1 ;;
        [1-5]) SECTIONS+=("$arg") ;;
        *) echo "usage: $0 [--quick] [SECTION ...]  (sections 1-5)" >&2; exit 2 ;;
    esac
done
APPEND=1
(( ${#SECTIONS[@]} )) || { SECTIONS=(1 2 3 4 5); APPEND=0; }
want() { [[ " ${SECTIONS[*]} " == *" $1 "* ]]; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=benchmarks/results
SC=$OUT/scenarios
RAW=$OUT/raw.txt
PY=$ROOT/.venv/bin/python
NCMESH=$ROOT/.venv/bin/ncmesh
mkdir -p "$OUT" "$SC"
(( APPEND )) || : > "$RAW"

# repetitions (medians are over these; full / quick)
# The 4-hop chain is timed in B_CHAIN batches of R_CHAIN runs, PAUSE_CHAIN s apart, so that
# the result does not hinge on one moment of the (shared) machine's load.
# Each hop count of the 1-8 hop table: B_HOPS batches of R_HOPS runs.
if (( QUICK )); then B_CHAIN=2; R_CHAIN=10; B_HOPS=1; R_HOPS=5; R_PROC=10; R_GRID_S=3; R_GRID_L=1; R_IMPORT=3; PAUSE_CHAIN=0
else                B_CHAIN=10; R_CHAIN=20; B_HOPS=3; R_HOPS=20; R_PROC=30; R_GRID_S=10; R_GRID_L=5; R_IMPORT=7; PAUSE_CHAIN=5; fi

log() { printf '%s\n' "$*" >&2; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/'; }
busy() {  # cores kept busy by other processes over the last second (0 .. nproc), from /proc/stat
    local a b
    a=$(awk '/^cpu / {print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
    sleep 1
    b=$(awk '/^cpu / {print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
    awk -v a="$a" -v b="$b" -v n="$(nproc)" 'BEGIN {split(a, x, " "); split(b, y, " ");
        d = y[2] - x[2]; printf "%.2f", (d > 0 ? n * (y[1] - x[1]) / d : 0)}'
}
# Wait (at most QUIET_WAIT s, default 30) until other processes keep less than half a core
# busy, so that a timing run gets a core to itself as far as possible; BUSY is what was seen last.
QUIET_WAIT=${QUIET_WAIT:-30}
BUSY=?
wait_quiet() {
    local t0=$SECONDS
    while :; do
        BUSY=$(busy)
        awk -v b="$BUSY" 'BEGIN {exit !(b < 0.5)}' && return 0
        (( SECONDS - t0 >= QUIET_WAIT )) && return 0
        sleep 1
    done
}
record() {  # record LABEL LINE...: append one raw line
    local label=$1; shift
    local line="label=$label time=$(date -u +%H:%M:%S) load=$(loadavg) busy=$BUSY $*"
    printf '%s\n' "$line" >> "$RAW"
    log "$line"
}

# ---------------------------------------------------------------- build + environment
# BENCH_BIN=/path/to/ncmesh-bench skips the build and measures that binary (useful while the
# working tree does not compile, or to compare two builds).
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [[ -n "${BENCH_BIN:-}" ]]; then
    SRC_BIN=$BENCH_BIN
    BIN_NOTE="given by BENCH_BIN=$BENCH_BIN (built $(date -u -r "$BENCH_BIN" '+%Y-%m-%d %H:%M:%S'))"
else
    log "== building ncmesh-bench (release)"
    cargo build --release -q -p ncmesh-core --bin ncmesh-bench
    SRC_BIN=target/release/ncmesh-bench
    BIN_NOTE="built by run.sh from the working tree"
fi
# Others may rebuild target/ while we measure: work on a private copy of the binary.
cp "$SRC_BIN" "$WORK/ncmesh-bench"
BENCH=$WORK/ncmesh-bench

{
    echo "date_utc: $(date -u '+%Y-%m-%d %H:%M:%S')"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "mem_total: $(grep MemTotal /proc/meminfo | awk '{print $2/1024 " MiB"}')"
    echo "kernel: $(uname -r)"
    echo "uptime_start: $(uptime)"
    echo "git_head: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "git_dirty_files_in_crates: $(git status --porcelain crates 2>/dev/null | wc -l)"
    echo "bench_binary: $BIN_NOTE"
    echo "python_extension: $(ls "$ROOT"/python/ncmesh/_core*.so 2>/dev/null | head -1) built $(date -u -r "$(ls "$ROOT"/python/ncmesh/_core*.so | head -1)" '+%Y-%m-%d %H:%M:%S')"
    echo "rustc: $(rustc -V)"
    echo "python: $($PY -V 2>&1)"
    echo "ncmesh: $($NCMESH --version)"
    echo "quick: $QUICK"
    echo "sections: ${SECTIONS[*]}"
} > "$WORK/env.txt"
if (( APPEND )) && [[ -f "$OUT/env.txt" ]]; then
    { echo "--- re-run of sections ${SECTIONS[*]}:"; grep -E '^(date_utc|uptime_start|git_head|git_dirty|bench_binary|python_ext|quick)' "$WORK/env.txt"; } >> "$OUT/env.txt"
else
    cp "$WORK/env.txt" "$OUT/env.txt"
fi
cat "$WORK/env.txt" >&2

bench() {  # bench LABEL ARGS...: engine time via ncmesh-bench
    local label=$1 out; shift
    wait_quiet
    out=$("$BENCH" "$@") || { log "FAILED: ncmesh-bench $*"; exit 1; }
    record "$label" "$out"
}

callgrind() {  # callgrind LABEL ARGS...: instructions inside ncmesh_core::sim::run (1 run)
    local label=$1; shift
    (( QUICK )) && return 0
    [[ -n "${NO_CALLGRIND:-}" ]] && return 0
    command -v valgrind >/dev/null || { log "valgrind missing: skipping $label"; return 0; }
    local out
    out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        --toggle-collect='ncmesh_core::sim::run' "$BENCH" "$@" --repeat 1 2>"$WORK/cg.err") \
        || { cat "$WORK/cg.err" >&2; log "FAILED: callgrind ncmesh-bench $*"; exit 1; }
    BUSY=-  # instruction counts do not depend on load
    local ir
    ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$WORK/cg.err")
    record "$label" "instructions=$ir $out"
}

proc() {  # proc LABEL [proctime options] -- CMD...: whole-process wall time and RSS
    local label=$1 out; shift
    wait_quiet
    out=$("$PY" benchmarks/proctime.py --label "$label" "$@") || { log "FAILED: proctime $*"; exit 1; }
    record "$label" "${out#label=* }"
}

# ---------------------------------------------------------------- 1. chain, engine time
if want 1; then
log "== 1. chain engine time"
for b in $(seq 1 "$B_CHAIN"); do
    bench "chain4-b$b" --hops 4 --repeat "$R_CHAIN"
    (( b < B_CHAIN )) && sleep "$PAUSE_CHAIN"
done
callgrind cg-chain4 --hops 4
for h in 1 2 3 4 5 6 7 8; do
    for b in $(seq 1 "$B_HOPS"); do
        bench "chain-h$h-b$b" --hops "$h" --repeat "$R_HOPS"
    done
    callgrind "cg-chain-h$h" --hops "$h"
done
fi

# ---------------------------------------------------------------- 2. whole process
# Scenario files. chain4.toml and grid10x10-f10.toml are written by the `ncmesh` command and
# read by it; the files ncmesh-bench reads are minimal (fixed_traffic.py), so that the bench
# binary and the Python extension need not come from the very same schema version.
"$NCMESH" scenario chain --hops 4 > "$SC/chain4.toml"
"$NCMESH" scenario grid --rows 10 --cols 10 --flows 10 > "$SC/grid10x10-f10.toml"

if want 2; then
log "== 2. whole ncmesh run process"
# (a) as the environment is. (b) "-pyc": with byte-code caching, as an installed package
# runs (pip writes .pyc files); the cache goes to a private directory, not into the tree.
PYC=(env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX="$WORK/pycache")
echo "PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE:-unset}" >> "$OUT/env.txt"
proc proc-python-startup --n "$R_PROC" -- "$PY" -c pass
proc proc-import-cli --n "$R_PROC" -- "$PY" -c "import ncmesh.cli"
proc proc-validate-chain4 --n "$R_PROC" -- "$NCMESH" validate "$SC/chain4.toml"
proc proc-run-chain4 --n "$R_PROC" -- "$NCMESH" run "$SC/chain4.toml"
proc proc-run-json-chain4 --n "$R_PROC" --engine-json -- "$NCMESH" run --json "$SC/chain4.toml"
proc proc-import-cli-pyc --n "$R_PROC" -- "${PYC[@]}" "$PY" -c "import ncmesh.cli"
proc proc-validate-chain4-pyc --n "$R_PROC" -- "${PYC[@]}" "$NCMESH" validate "$SC/chain4.toml"
proc proc-run-chain4-pyc --n "$R_PROC" -- "${PYC[@]}" "$NCMESH" run "$SC/chain4.toml"
proc proc-run-json-chain4-pyc --n "$R_PROC" --engine-json -- "${PYC[@]}" "$NCMESH" run --json "$SC/chain4.toml"
for i in $(seq 1 "$R_IMPORT"); do
    "$PY" -X importtime "$NCMESH" run "$SC/chain4.toml" 2> "$WORK/importtime-$i.txt" > /dev/null
    "${PYC[@]}" "$PY" -X importtime "$NCMESH" run "$SC/chain4.toml" 2> "$WORK/importtime-pyc-$i.txt" > /dev/null
done
"$PY" -m cProfile -s cumtime "$NCMESH" run "$SC/chain4.toml" 2>&1 \
    | awk '/Ordered by/ {on = 1} on && n++ < 45' > "$OUT/cprofile-run-chain4.txt"
"$PY" benchmarks/summarize.py importtime "$WORK"/importtime-pyc-*.txt > "$OUT/importtime-pyc.txt"
"$PY" benchmarks/summarize.py importtime "$WORK"/importtime-[0-9]*.txt > "$OUT/importtime.txt"
fi

# ---------------------------------------------------------------- 3. memory, 100 nodes
if want 3; then
log "== 3. memory (100-node grid)"
bench mem-grid100 --build grid rows=10 cols=10 flows=10 duration=60 --repeat 1
proc proc-run-grid100 --n 5 --warmup 1 --engine-json -- "$NCMESH" run --json "$SC/grid10x10-f10.toml"
if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -v "$NCMESH" run "$SC/grid10x10-f10.toml" > /dev/null 2> "$WORK/time-v.txt"
    record gnutime-run-grid100 "maxrss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$WORK/time-v.txt")" \
        "elapsed=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): *//p' "$WORK/time-v.txt")"
fi
fi

# ---------------------------------------------------------------- 4. scaling
if want 4; then
log "== 4. scaling: grids, flows proportional to nodes (60 s)"
for spec in "10 10 10" "10 20 25" "20 20 50" "28 28 100" "40 40 200"; do
    read -r rows cols flows <<< "$spec"
    n=$((rows * cols))
    rep=$R_GRID_S; (( n >= 400 )) && rep=$R_GRID_L
    bench "scale-n$n" --build grid rows="$rows" cols="$cols" flows="$flows" duration=60 --repeat "$rep"
    # peak RSS from a process that runs once (with --repeat > 1 the previous run's result is
    # still held while the next one runs, which inflates the peak)
    bench "rss-scale-n$n" --build grid rows="$rows" cols="$cols" flows="$flows" duration=60 --repeat 1
    callgrind "cg-scale-n$n" --build grid rows="$rows" cols="$cols" flows="$flows" duration=60
done

log "== 4b. scaling: the same 10 flows (of the 10x10 grid) on growing grids (60 s)"
for side in 10 20 28 40 80; do
    f=$SC/fixed10-grid${side}x${side}.toml
    "$PY" benchmarks/fixed_traffic.py "$SC/grid10x10-f10.toml" 10 10 "$side" "$side" > "$f"
    n=$((side * side))
    rep=$R_GRID_S; (( n >= 1600 )) && rep=$R_GRID_L
    bench "fixed-n$n" --file "$f" --repeat "$rep"
    bench "rss-fixed-n$n" --file "$f" --repeat 1
    callgrind "cg-fixed-n$n" --file "$f"
    # set-up dominated: 1.2 s simulated (flows start at 1.0-1.09 s)
    bench "setup-n$n" --file "$f" --duration 1.2 --repeat "$R_GRID_S"
    bench "rss-setup-n$n" --file "$f" --duration 1.2 --repeat 1
    callgrind "cg-setup-n$n" --file "$f" --duration 1.2
done
fi

# ---------------------------------------------------------------- 5. profile
if want 5 && (( ! QUICK )) && command -v perf >/dev/null; then
    log "== 5. perf profile of the 4-hop chain"
    wait_quiet
    perf record -q -F 5000 -o "$WORK/perf.data" "$BENCH" --hops 4 --repeat 50 > /dev/null 2> "$WORK/perf.err" || true
    {
        echo "# perf record -F 5000 ncmesh-bench --hops 4 --repeat 50; perf report --no-children --stdio"
        echo "# event: $(perf evlist -i "$WORK/perf.data" 2>/dev/null | head -1)"
        perf report -i "$WORK/perf.data" --no-children --stdio --percent-limit 0.3 2>/dev/null | grep -v '^$'
    } > "$OUT/perf-chain4.txt"
fi

echo "uptime_end: $(uptime)" >> "$OUT/env.txt"
"$PY" benchmarks/summarize.py tables "$RAW" "$OUT"
log "== done: $OUT/results.md"
