#!/usr/bin/env bash
# ns-3 side of the two-ray investigation (docs/validation.md, "Two-ray ground"): runs
# ns3_chain_probe.py (the anchor's chain with extra PHY/MAC counters) and writes one JSON per
# run to validation/compare/probe/. Needs the ns-3 3.44 Python wheel:
#   NS3_PYTHON=/work/ns3-venv/bin/python bash validation/compare/run_ns3_probes.sh
# At most 2 runs at a time (~20 s each, most of it importing ns-3).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${NS3_PYTHON:-/work/ns3-venv/bin/python}"
OUT="$HERE/probe"
mkdir -p "$OUT"

run() {  # name, probe arguments...
  local name="$1"; shift
  "$PY" "$HERE/ns3_chain_probe.py" "$@" --json "$OUT/$name.json" 2> >(grep -v runStaticInitializersOnce >&2) > /dev/null
  echo "done $name"
}

# the anchor's --prop tworay (same settings; goodput must equal reference.csv run 1)
run ns3_tworay_h2_yans --hops 2 --prop tworay &
run ns3_tworay_h4_yans --hops 4 --prop tworay &
wait
run ns3_tworay_h8_yans --hops 8 --prop tworay &
# the anchor's default range model, for comparison
run ns3_range_h2_yans --hops 2 --prop range &
wait
# RxSensitivity lowered to the CCA threshold (-78.07 dBm, 550 m): signals from 400 m now
# reach the PHY (and, at 21 dB SNR, are even decoded), so nodes two hops apart defer to each other
run ns3_tworay_h2_yans_rxsens-78 --hops 2 --prop tworay --rxsens-dbm -78.07 &
run ns3_tworay_h4_yans_rxsens-78 --hops 4 --prop tworay --rxsens-dbm -78.07 &
wait
# one hop, range model: MAC failures (collisions) per segment for the airtime arithmetic
run ns3_range_h1_yans --hops 1 --prop range &
# delayed ACK off: a high-goodput and a low-goodput run of reference.csv at 3, 5 and 6 hops
run ns3_range_delackoff_h3_run1 --hops 3 --prop range --delack 1 --run 1 &
wait
run ns3_range_delackoff_h3_run2 --hops 3 --prop range --delack 1 --run 2 &
run ns3_range_delackoff_h5_run1 --hops 5 --prop range --delack 1 --run 1 &
wait
run ns3_range_delackoff_h5_run3 --hops 5 --prop range --delack 1 --run 3 &
run ns3_range_delackoff_h6_run1 --hops 6 --prop range --delack 1 --run 1 &
wait
run ns3_range_delackoff_h6_run3 --hops 6 --prop range --delack 1 --run 3 &
wait
