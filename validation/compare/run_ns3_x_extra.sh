#!/usr/bin/env bash
# Extra ns-3 runs (runs 4-9) of the anchor's X topology (--topo x, range and tworay), to see how
# often one of the two crossing flows starves in ns-3 (docs/validation.md, "X topology").
# Writes validation/compare/ns3_x_extra.csv (the anchor's CSV format). 2 runs at a time.
#   ANCHOR=/path/to/chain_tcp.py NS3_PYTHON=/work/ns3-venv/bin/python bash validation/compare/run_ns3_x_extra.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${NS3_PYTHON:-/work/ns3-venv/bin/python}"
# ANCHOR: the ns-3 anchor script chain_tcp.py (not part of this repository; required)
ANCHOR="${ANCHOR:?give ANCHOR=/path/to/chain_tcp.py, the ns-3 anchor script (not part of this repository)}"
OUT="$HERE/ns3_x_extra.csv"
TMP="$HERE/.x_parts"
rm -rf "$TMP"; mkdir -p "$TMP"
for prop in range tworay; do
  tag=x; [ "$prop" = tworay ] && tag=x-tworay
  for r in 4 6 8; do
    for rr in "$r" "$((r + 1))"; do
      "$PY" "$ANCHOR" --topo x --prop "$prop" --seed 1 --run "$rr" --tag "$tag" \
        --csv "$TMP/${tag}_r${rr}.csv" > /dev/null 2> >(grep -v runStaticInitializersOnce >&2) &
    done
    wait
  done
done
first=1
for tag in x x-tworay; do for r in 4 5 6 7 8 9; do
  f="$TMP/${tag}_r${r}.csv"
  if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
done; done > "$OUT"
rm -rf "$TMP"
echo "wrote $OUT"
