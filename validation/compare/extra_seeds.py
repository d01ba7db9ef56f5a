#!/usr/bin/env python3
"""More ncmesh seeds where ns-3's three runs spread widely (docs/validation.md):
chain-delack-off at 3-8 hops (20 seeds) and the X topology, range and two-ray (10 seeds).
Puts them beside every ns-3 run available: validation/ns3/reference.csv (runs 1-3) plus
ns3_delackoff_extra.csv / ns3_x_extra.csv (runs 4-9, from run_ns3_delackoff_extra.sh and
run_ns3_x_extra.sh) when present.

    .venv/bin/python validation/compare/extra_seeds.py [--jobs 2]

Writes validation/compare/extra_seeds.csv (one row per ncmesh run) and prints a summary
(also saved as extra_seeds.txt by run_ncmesh.sh).
"""
from __future__ import annotations

import argparse
import csv
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ncmesh import _core
from ncmesh.validation import TAGS, load_reference_table

HERE = Path(__file__).resolve().parent
STARVED_KBPS = 60.0   # an X flow below this counts as starved


def ns3_runs() -> dict:
    """(tag, hops) -> {run: {flow: goodput}} over reference.csv and the extra CSVs."""
    table, _ = load_reference_table(HERE.parent / "ns3" / "reference.csv")
    runs = {k: dict(c.runs) for k, c in table.items()}
    for extra in ("ns3_delackoff_extra.csv", "ns3_x_extra.csv"):
        path = HERE / extra
        if path.is_file():
            extra_table, _ = load_reference_table(path)
            for k, c in extra_table.items():
                runs.setdefault(k, {}).update(c.runs)
    return runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    cells = [("chain-delack-off", h, 20) for h in range(3, 9)] + [("x", 2, 10), ("x-tworay", 2, 10)]
    tasks = [(t, h, s) for t, h, n in cells for s in range(1, n + 1)]
    scen = {(t, h): TAGS[t].scenario(h).to_dict() for t, h, _ in cells}
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda k: _core.run(scen[k[:2]], k[2]), tasks))
    rows = []
    for (t, h, s), r in zip(tasks, results):
        fl = r["flows"]
        rows.append({"tag": t, "hops": h, "seed": s,
                     "goodput_kbps": round(sum(f["goodput_kbps"] for f in fl), 2),
                     "flow0_kbps": fl[0]["goodput_kbps"], "flow1_kbps": fl[1]["goodput_kbps"] if len(fl) > 1 else "",
                     "tcp_timeouts": sum(f["timeouts"] for f in fl),
                     "tcp_fast_retransmits": sum(f["fast_retransmits"] for f in fl),
                     "mac_retry_limit_drops": sum(n["drops_retry_limit"] for n in r["nodes"]),
                     "queue_drops": sum(n["drops_queue_full"] for n in r["nodes"])})
    with open(HERE / "extra_seeds.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    ns3 = ns3_runs()
    for t, h, _ in cells:
        mine = [r for r in rows if (r["tag"], r["hops"]) == (t, h)]
        g = [r["goodput_kbps"] for r in mine]
        theirs = ns3.get((t, h), {})
        tot = [sum(v.values()) for _, v in sorted(theirs.items())]
        line = (f"{t:>16} {h}: ncmesh {len(g)} seeds mean {statistics.fmean(g):.1f} [{min(g):.1f}, {max(g):.1f}]"
                f", timeouts/run {statistics.fmean(r['tcp_timeouts'] for r in mine):.1f}"
                f" | ns-3 {len(tot)} runs mean {statistics.fmean(tot):.1f} median {statistics.median(tot):.1f}"
                f" [{min(tot):.1f}, {max(tot):.1f}]"
                f" | diff vs ns-3 mean {(statistics.fmean(g) / statistics.fmean(tot) - 1) * 100:+.1f}%")
        if t.startswith("x"):
            st_m = sum(1 for r in mine if min(r["flow0_kbps"], r["flow1_kbps"]) < STARVED_KBPS)
            st_n = sum(1 for v in theirs.values() if min(v.values()) < STARVED_KBPS)
            line += f" | a flow < {STARVED_KBPS:.0f} kbit/s: ncmesh {st_m}/{len(mine)}, ns-3 {st_n}/{len(tot)}"
        print(line)


if __name__ == "__main__":
    main()
