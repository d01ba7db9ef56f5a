"""Side-by-side check of ncmesh against ns-3 on the 802.11b chain (`ncmesh compare-ns3`).

The ns-3 figures come from validation/ns3/reference.csv (made by
validation/ns3/run_ns3.sh) when it exists, else from the table of
shared/anchors/ns3/README.md embedded below (seed 1, run 1).
"""

from __future__ import annotations

import csv
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import _core
from .scenario import Scenario

# ns-3 3.44 TCP NewReno goodput over an n-hop 802.11b chain, kbit/s (anchor README).
NS3_CHAIN_GOODPUT_KBPS = {1: 1400.0, 2: 605.0, 3: 412.0, 4: 334.0, 5: 297.0, 6: 284.0, 7: 280.0, 8: 270.0}

REFERENCE_CSV = Path("validation") / "ns3" / "reference.csv"


def parse_hops(text: str) -> list[int]:
    """'1-8' -> [1..8]; '1,2,4' -> [1, 2, 4]; '3' -> [3]."""
    hops: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            hops += list(range(int(lo), int(hi) + 1)) if sep else [int(lo)]
        except ValueError:
            raise ValueError(f"--hops: cannot read {text!r} (expected e.g. 1-8 or 1,2,4)") from None
    if not hops or min(hops) < 1:
        raise ValueError(f"--hops: {text!r} names no positive hop count")
    return sorted(set(hops))


def _default_reference() -> Path | None:
    here = Path(__file__).resolve().parent
    for candidate in (REFERENCE_CSV, here.parent.parent / REFERENCE_CSV):
        if candidate.is_file():
            return candidate
    return None


def load_reference(path: str | Path | None = None) -> tuple[dict[int, float], str]:
    """ns-3 chain goodput by hop count (mean over its runs; rows tagged "chain" only)
    and where it came from."""
    path = Path(path) if path else _default_reference()
    if path is None:
        return dict(NS3_CHAIN_GOODPUT_KBPS), "ns-3 anchor README (seed 1, run 1)"
    by_hops: dict[int, list[float]] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row.get("tag", "chain") != "chain" or row.get("topo", "chain") != "chain":
                continue
            if row.get("flow", "0") not in ("", "0"):
                continue
            by_hops.setdefault(int(row["hops"]), []).append(float(row["goodput_kbps"]))
    runs = sorted({len(v) for v in by_hops.values()})
    label = f"{path}, mean of {'/'.join(map(str, runs))} runs" if runs else str(path)
    return {h: statistics.fmean(v) for h, v in sorted(by_hops.items())}, label


def _run_chain(scenario: dict, seed: int) -> dict:
    return _core.run(scenario, seed)


def compare_ns3(hops: list[int], seeds: int = 1, reference: str | None = None, jobs: int = 1) -> list[dict]:
    """Runs the ncmesh chain for each hop count and seed 1..seeds; one row per hop count."""
    ref, source = load_reference(reference)
    scenarios = {h: Scenario.build("chain", hops=h).to_dict() for h in hops}
    tasks = [(h, s) for h in hops for s in range(1, seeds + 1)]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(lambda t: _run_chain(scenarios[t[0]], t[1]), tasks))
    rows = []
    for h in hops:
        runs = [r for (hh, _), r in zip(tasks, results) if hh == h]
        goodputs = [r["flows"][0]["goodput_kbps"] for r in runs]
        mean = statistics.fmean(goodputs)
        ns3 = ref.get(h)
        rows.append({
            "hops": h,
            "ns3_kbps": ns3,
            "ncmesh_kbps": mean,
            "ncmesh_sd_kbps": statistics.stdev(goodputs) if len(goodputs) > 1 else 0.0,
            "diff_pct": (mean - ns3) / ns3 * 100.0 if ns3 else None,
            "seeds": len(goodputs),
            "wall_s": statistics.fmean(r["wall_time_s"] for r in runs),
            "source": source,
        })
    return rows


def format_comparison(rows: list[dict]) -> str:
    lines = [f"TCP goodput over an 802.11b chain, kbit/s (ns-3: {rows[0]['source'] if rows else '-'})",
             f"{'hops':>4}  {'ns-3':>8}  {'ncmesh':>8}  {'sd':>6}  {'diff':>7}  {'seeds':>5}  {'wall s':>7}"]
    for r in rows:
        ns3 = f"{r['ns3_kbps']:.0f}" if r["ns3_kbps"] is not None else "-"
        diff = f"{r['diff_pct']:+.1f}%" if r["diff_pct"] is not None else "-"
        lines.append(f"{r['hops']:>4}  {ns3:>8}  {r['ncmesh_kbps']:>8.0f}  {r['ncmesh_sd_kbps']:>6.1f}  "
                     f"{diff:>7}  {r['seeds']:>5}  {r['wall_s']:>7.3f}")
    return "\n".join(lines)


def write_comparison_csv(rows: list[dict], path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["hops"])
        w.writeheader()
        w.writerows(rows)
