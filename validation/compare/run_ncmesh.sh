#!/usr/bin/env bash
# The ncmesh side of docs/validation.md: every ncmesh number there comes from these commands
# (2 simulations at a time; ~20 s in all). Every ns-3 comparison uses ns-3's
# contention-window rule (mac.cw_reset_after_drop = false); cw_reset.py runs both values. The ns-3 side: validation/ns3/run_ns3.sh (reference
# runs 1-3), run_ns3_probes.sh, run_ns3_delackoff_extra.sh, run_ns3_x_extra.sh (this directory).
#   bash validation/compare/run_ncmesh.sh
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
PY="${PYTHON:-$REPO/.venv/bin/python}"
OUT=validation/compare

"$PY" -m ncmesh compare-ns3 --seeds 3 --jobs 2 \
  --csv "$OUT/compare_ns3_seeds.csv" --summary-csv "$OUT/compare_ns3_summary.csv" | tee "$OUT/compare_ns3.txt"
"$PY" "$OUT/tworay_investigation.py" --seeds 3 --jobs 2 | tee "$OUT/tworay_investigation.txt"
"$PY" "$OUT/extra_seeds.py" --jobs 2 | tee "$OUT/extra_seeds.txt"
"$PY" "$OUT/cw_reset.py" --jobs 2 | tee "$OUT/cw_reset.txt"
"$PY" "$OUT/airtime_1hop.py" | tee "$OUT/airtime_1hop.txt"
