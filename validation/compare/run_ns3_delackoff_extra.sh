#!/usr/bin/env bash
# Extra ns-3 runs (runs 4-9) of the anchor's chain with delayed ACK off (--delack 1), hops 3-8,
# to see how often ns-3 lands in its low-goodput regime (docs/validation.md, "Delayed ACK off").
# Writes validation/compare/ns3_delackoff_extra.csv (the anchor's CSV format). 2 runs at a time.
#   ANCHOR=/path/to/chain_tcp.py NS3_PYTHON=/work/ns3-venv/bin/python bash validation/compare/run_ns3_delackoff_extra.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${NS3_PYTHON:-/work/ns3-venv/bin/python}"
# ANCHOR: the ns-3 anchor script chain_tcp.py (not part of this repository; required)
ANCHOR="${ANCHOR:?give ANCHOR=/path/to/chain_tcp.py, the ns-3 anchor script (not part of this repository)}"
OUT="$HERE/ns3_delackoff_extra.csv"
TMP="$HERE/.delackoff_parts"
rm -rf "$TMP"; mkdir -p "$TMP"
jobs_=()
for h in 3 4 5 6 7 8; do
  for r in 4 5 6 7 8 9; do
    "$PY" "$ANCHOR" --topo chain --hops "$h" --delack 1 --seed 1 --run "$r" --tag chain-delack-off \
      --csv "$TMP/h${h}_r${r}.csv" > /dev/null 2> >(grep -v runStaticInitializersOnce >&2) &
    jobs_+=($!)
    if [ ${#jobs_[@]} -ge 2 ]; then wait "${jobs_[@]}"; jobs_=(); fi
  done
done
wait
first=1
for h in 3 4 5 6 7 8; do for r in 4 5 6 7 8 9; do
  f="$TMP/h${h}_r${r}.csv"
  if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
done; done > "$OUT"
rm -rf "$TMP"
echo "wrote $OUT"
