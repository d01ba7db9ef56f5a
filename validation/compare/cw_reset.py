#!/usr/bin/env python3
"""What `mac.cw_reset_after_drop` changes (docs/validation.md, "Contention window after a drop").

802.11 and ns-2 reset the contention window to CWmin after a frame is dropped at its retry
limit (ncmesh's default, true); ns-3 3.44 keeps the doubled window (false), and every ns-3
comparison uses false (NS3_MAC in python/ncmesh/validation.py). This runs the compare-ns3
scenarios with both values: the chain 1-8 hops (3 seeds), delayed ACK off 3-8 hops (20 seeds)
and the X topology, range and two-ray (10 seeds), beside the ns-3 runs (reference.csv runs 1-3
plus ns3_delackoff_extra.csv / ns3_x_extra.csv runs 4-9).

    .venv/bin/python validation/compare/cw_reset.py [--jobs 2]

Writes validation/compare/cw_reset.csv (one row per ncmesh run) and prints a summary
(saved as cw_reset.txt by run_ncmesh.sh).
"""
from __future__ import annotations

import argparse
import csv
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ncmesh import _core
from ncmesh.validation import TAGS

from extra_seeds import STARVED_KBPS, ns3_runs

HERE = Path(__file__).resolve().parent
CELLS = ([("chain", h, 3) for h in range(1, 9)] + [("chain-delack-off", h, 20) for h in range(3, 9)]
         + [("x", 2, 10), ("x-tworay", 2, 10)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    # TAGS[...].scenario() already sets mac.cw_reset_after_drop = false; override it both ways
    scen = {(t, h, v): TAGS[t].scenario(h).update({"mac.cw_reset_after_drop": v}).to_dict()
            for t, h, _ in CELLS for v in (True, False)}
    tasks = [(t, h, v, s) for t, h, n in CELLS for v in (True, False) for s in range(1, n + 1)]
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda k: _core.run(scen[k[:3]], k[3]), tasks))
    rows = []
    for (t, h, v, s), r in zip(tasks, results):
        fl = r["flows"]
        rows.append({"tag": t, "hops": h, "cw_reset_after_drop": str(v).lower(), "seed": s,
                     "goodput_kbps": round(sum(f["goodput_kbps"] for f in fl), 2),
                     "flow0_kbps": fl[0]["goodput_kbps"], "flow1_kbps": fl[1]["goodput_kbps"] if len(fl) > 1 else "",
                     "tcp_timeouts": sum(f["timeouts"] for f in fl),
                     "tcp_fast_retransmits": sum(f["fast_retransmits"] for f in fl),
                     "mac_retry_limit_drops": sum(n["drops_retry_limit"] for n in r["nodes"])})
    with open(HERE / "cw_reset.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    ns3 = ns3_runs()
    for t, h, n in CELLS:
        tot = [sum(v.values()) for _, v in sorted(ns3.get((t, h), {}).items())]
        ns3_mean = statistics.fmean(tot) if tot else float("nan")
        line = f"{t:>16} {h}: ns-3 {len(tot)} runs mean {ns3_mean:.1f}"
        if t.startswith("x"):
            st = sum(1 for v in ns3.get((t, h), {}).values() if min(v.values()) < STARVED_KBPS)
            line += f" (a flow < {STARVED_KBPS:.0f}: {st}/{len(tot)})"
        for v in ("true", "false"):
            mine = [r for r in rows if (r["tag"], r["hops"], r["cw_reset_after_drop"]) == (t, h, v)]
            g = [r["goodput_kbps"] for r in mine]
            m = statistics.fmean(g)
            line += (f" | reset={v}: {n} seeds mean {m:.1f} [{min(g):.1f}, {max(g):.1f}] ({(m / ns3_mean - 1) * 100:+.1f}%)"
                     f", timeouts/run {statistics.fmean(r['tcp_timeouts'] for r in mine):.1f}"
                     f", retry drops/run {statistics.fmean(r['mac_retry_limit_drops'] for r in mine):.0f}")
            if t.startswith("x"):
                st = sum(1 for r in mine if min(r["flow0_kbps"], r["flow1_kbps"]) < STARVED_KBPS)
                line += f", a flow < {STARVED_KBPS:.0f}: {st}/{len(mine)}"
        print(line)


if __name__ == "__main__":
    main()
