#!/usr/bin/env python3
"""CUBIC and BBR beside ns-3 3.44's TcpCubic and TcpBbr (issue 31), on the validated chain.

The ns-3 side is the anchor chain_tcp.py (validation/ns3/README.md; not part of this
repository, its path in NS3_CHAIN_TCP) with `--cc ns3::TcpCubic` or `--cc ns3::TcpBbr`,
`--sack 1 --recovery ns3::TcpPrrRecovery`; ncmesh runs the same tag's scenario
(python/ncmesh/validation.py TAGS: ns-3's contention-window rule, the anchor's MAC, PHY,
queue, delayed ACKs, initial window 10, min RTO 1 s) with `tcp.variant = cubic|bbr`,
`tcp.sack = true`, `tcp.prr = true` (ns-3 has no RACK-TLP: left off). ns-3's TcpCubic runs
with `HyStart = false`, since ncmesh's CUBIC has no HyStart (docs/assumptions.md).

Cells: tag `chain` (1-8 hops) and `chain-per10` (every MAC data frame lost with probability
0.10 at every receiver; 2, 4, 6 hops). ns-3 runs `--seed 1 --run 1..N`, ncmesh seeds 1..N.

    # ns-3 (one process per run, sequential; ~13 s each):
    NS3_PYTHON=.venv-ns3/bin/python NS3_CHAIN_TCP=/path/to/chain_tcp.py \\
        .venv/bin/python validation/compare/modern_tcp_ns3.py ns3 [--runs 3]
    # ncmesh and the table (reads the ns-3 CSV):
    .venv/bin/python validation/compare/modern_tcp_ns3.py table [--runs 3]

Writes validation/compare/modern_tcp_ns3.csv (ns-3 runs), modern_tcp_ncmesh.csv (ncmesh
runs) and prints the table (goodput in kbit/s over [10 s, 60 s], means over the runs,
difference = (ncmesh - ns-3) / ns-3).
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NS3_CSV = HERE / "modern_tcp_ns3.csv"
NCMESH_CSV = HERE / "modern_tcp_ncmesh.csv"

CCS = {"cubic": "ns3::TcpCubic", "bbr": "ns3::TcpBbr"}
CELLS = [("chain", h) for h in range(1, 9)] + [("chain-per10", h) for h in (2, 4, 6)]
ANCHOR_ARGS = {"chain": [], "chain-per10": ["--per", "0.10"]}
TCP = {"tcp.sack": True, "tcp.prr": True}

# Runs the anchor in this process after setting ns-3 defaults it does not expose.
WRAPPER = r"""
import runpy, sys
from ns import ns
ns.Config.SetDefault("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
sys.argv = [sys.argv[1]] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run_ns3(runs: int) -> None:
    py = os.environ.get("NS3_PYTHON", str(HERE.parents[1] / ".venv-ns3" / "bin" / "python"))
    anchor = os.environ.get("NS3_CHAIN_TCP")
    if not anchor:
        sys.exit("NS3_CHAIN_TCP: the path of the anchor chain_tcp.py is needed")
    done = set()
    if NS3_CSV.exists():
        with open(NS3_CSV) as f:
            done = {(r["cc"], r["tag"], int(r["hops"]), int(r["run"])) for r in csv.DictReader(f)}
    with tempfile.TemporaryDirectory() as tmp:
        # Run 1 of every cell first, then run 2, ...
        for run in range(1, runs + 1):
            for cc, ns3cc in CCS.items():
                for tag, hops in CELLS:
                    if (cc, tag, hops, run) in done:
                        continue
                    out = Path(tmp) / f"{cc}-{tag}-{hops}-{run}.csv"
                    cmd = [py, "-c", WRAPPER, anchor, "--topo", "chain", "--hops", str(hops),
                           "--cc", ns3cc, "--sack", "1", "--recovery", "ns3::TcpPrrRecovery",
                           "--seed", "1", "--run", str(run), "--csv", str(out), "--tag", tag,
                           *ANCHOR_ARGS[tag]]
                    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
                    with open(out) as f:
                        row = next(csv.DictReader(f))
                    new = not NS3_CSV.exists()
                    with open(NS3_CSV, "a", newline="") as f:
                        w = csv.writer(f)
                        if new:
                            w.writerow(["cc", "tag", "hops", "run", "goodput_kbps"])
                        w.writerow([cc, tag, hops, run, row["goodput_kbps"]])
                    print(cc, tag, hops, run, row["goodput_kbps"], flush=True)


def run_ncmesh(runs: int) -> list[dict]:
    from ncmesh import _core
    from ncmesh.validation import TAGS

    rows = []
    for cc in CCS:
        for tag, hops in CELLS:
            sc = TAGS[tag].scenario(hops).update({**TCP, "tcp.variant": cc}).to_dict()
            for seed in range(1, runs + 1):
                r = _core.run(sc, seed)
                f = r["flows"][0]
                rows.append({"cc": cc, "tag": tag, "hops": hops, "seed": seed,
                             "goodput_kbps": round(f["goodput_kbps"], 2),
                             "timeouts": f["timeouts"], "fast_retransmits": f["fast_retransmits"]})
    with open(NCMESH_CSV, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return rows


def table(runs: int) -> None:
    ns3: dict = {}
    with open(NS3_CSV) as f:
        for r in csv.DictReader(f):
            if int(r["run"]) <= runs:
                ns3.setdefault((r["cc"], r["tag"], int(r["hops"])), []).append(float(r["goodput_kbps"]))
    ours: dict = {}
    for r in run_ncmesh(runs):
        ours.setdefault((r["cc"], r["tag"], r["hops"]), []).append(r["goodput_kbps"])
    print("| TCP | tag | hops | ns-3 mean | ns-3 range | ncmesh mean | ncmesh range | difference |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for cc in CCS:
        for tag, hops in CELLS:
            a, b = ns3.get((cc, tag, hops)), ours[(cc, tag, hops)]
            if not a:
                continue
            ma, mb = statistics.mean(a), statistics.mean(b)
            d = (mb - ma) / ma * 100 if ma else float("nan")
            flag = "" if abs(d) <= 10 else " **"
            print(f"| {cc} | {tag} | {hops} | {ma:.1f} | {min(a):.1f}–{max(a):.1f} | {mb:.1f} | "
                  f"{min(b):.1f}–{max(b):.1f} | {d:+.1f} %{flag} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["ns3", "table"])
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if a.what == "ns3":
        run_ns3(a.runs)
    else:
        table(a.runs)


if __name__ == "__main__":
    main()
