#!/usr/bin/env bash
# The main job: sets up .venv and the package (scripts/setup.sh), then reproduces the
# network-coding-aware queue management of Seferoglu & Markopoulou, NCAQM
# (`ncmesh reproduce ncaqm --quick`): Table I
# (improvement of TCP+NCAQM and TCP+COPE over TCP+noNC on Alice-and-Bob, X, cross and grid,
# mean ± 95% CI, beside the paper's numbers and the NUM optimum), Figs. 4-7, 9 and Appendix A,
# printed as tables and written to out/ncaqm/{summary.json, tables/, figures/, report.html}
# (docs/experiments.md, docs/results/ncaqm.md).
#
# usage: bash scripts/main.sh [reproduce options, e.g. --out out/ncaqm-full  (without --quick: 10 seeds, 120 s)]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

source scripts/setup.sh

echo
if [ $# -eq 0 ]; then
  set -- --quick --out out/ncaqm
fi
"$VENV/bin/ncmesh" reproduce ncaqm "$@"
