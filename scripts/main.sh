#!/usr/bin/env bash
# The main job: sets up .venv and the package (scripts/setup.sh), then compares ncmesh
# with ns-3 on the 802.11b chain, hops 1..8 (`ncmesh compare-ns3`): TCP goodput next to
# ns-3's (validation/ns3/reference.csv if present, else the anchor's published figures).
#
# usage: bash scripts/main.sh [compare-ns3 options, e.g. --seeds 5 --hops 1-8 --csv out.csv]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

source scripts/setup.sh

echo
if [ $# -eq 0 ]; then
  set -- --seeds 3 --hops 1-8
fi
"$VENV/bin/ncmesh" compare-ns3 "$@"
