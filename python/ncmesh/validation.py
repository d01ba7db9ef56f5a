"""Side-by-side check of ncmesh against ns-3 (`ncmesh compare-ns3`).

The ns-3 figures come from validation/ns3/reference.csv (made by
validation/ns3/run_ns3.sh, which runs the shared anchor `chain_tcp.py`) when it
exists, else from its `chain` rows embedded below (an installed package without the
repository). `load_reference_table` is the one loader; `chain_reference` gives the chain
summary the chain-vs-ns3 reproduction sets beside ncmesh.

Every tag of reference.csv is a setting of the anchor; `TAGS` maps it to an ncmesh
builder (chain or x) plus scenario overrides. For each (tag, hop count) ncmesh runs
seeds 1..N and is compared with the mean of ns-3's runs; the X topology is compared on
the total goodput of its two flows (the per-flow split is reported too).
"""

from __future__ import annotations

import copy
import csv
import statistics
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import _core
from .scenario import Scenario

# ns-3 3.44 TCP NewReno goodput over an n-hop 802.11b chain, kbit/s, runs 1-3 (seed 1): the `chain`
# rows of validation/ns3/reference.csv, used when the CSV is not found (a test checks they match it).
NS3_CHAIN_RUNS_KBPS = {
    1: (1400.18, 1398.42, 1400.5),
    2: (605.05, 604.57, 606.97),
    3: (412.32, 420.32, 411.04),
    4: (334.08, 335.36, 336.16),
    5: (296.96, 298.4, 302.08),
    6: (283.84, 283.84, 284.64),
    7: (280.0, 282.4, 280.96),
    8: (270.08, 275.84, 274.72),
}

REFERENCE_CSV = Path("validation") / "ns3" / "reference.csv"

# "within 10 %" of the ns-3 mean
TOLERANCE_PCT = 10.0

# The anchor's --prop tworay: ns-2 TwoRayGround at 914 MHz with the ns-2 WaveLAN power and
# thresholds (the ncmesh defaults for the physical models), ns-3's preamble detection model
# disabled. The anchor sets RxSensitivity to ns-2's RXThresh (250 m) and CcaSensitivity /
# CcaEdThreshold to CSThresh (550 m), but ns-3's YansWifiChannel::Receive discards every signal
# below RxSensitivity + 10 log10(22 MHz / 20 MHz) before the PHY sees it: such a signal neither
# interferes nor makes the medium busy, so in ns-3 the carrier-sense range is the receive range
# (docs/validation.md, "Two-ray ground"). TWORAY reproduces what ns-3 computes; TWORAY_NS2 is the
# ns-2 model the anchor describes (sensing up to 550 m), which ns-3 does not simulate.
NS2_RX_THRESHOLD_W = 3.652e-10
YANS_GATE_W = NS2_RX_THRESHOLD_W * 22.0 / 20.0
TWORAY_NS2 = {"channel.model": "tworay", "channel.preamble_detection_db": -1000.0}
TWORAY = {**TWORAY_NS2, "channel.rx_threshold_w": YANS_GATE_W, "channel.cs_threshold_w": YANS_GATE_W}


# ns-3 3.44 keeps the doubled contention window when a frame is dropped at its retry limit
# (checked on the installed build, validation/ns3/README.md fact a); 802.11 and ns-2 reset
# it, which is ncmesh's default. Every comparison with ns-3 uses ns-3's behaviour.
NS3_MAC = {"mac.cw_reset_after_drop": False}


@dataclass(frozen=True)
class Tag:
    """One setting of the ns-3 anchor and the ncmesh scenario that reproduces it."""
    name: str
    kind: str                      # ncmesh builder: "chain" or "x"
    overrides: dict = field(default_factory=dict)
    anchor_args: str = ""          # chain_tcp.py arguments (documentation)
    default_hops: tuple = tuple(range(1, 9))

    def scenario(self, hops: int) -> Scenario:
        if self.kind == "chain":
            sc = Scenario.build("chain", hops=hops)
        else:
            if hops != 2:
                raise ValueError(f"{self.name}: the X topology has 2-hop flows, not {hops}")
            sc = Scenario.build(self.kind)
        return sc.update(copy.deepcopy({**NS3_MAC, **self.overrides}))


TAGS: dict[str, Tag] = {t.name: t for t in (
    Tag("chain", "chain", {}, "--topo chain"),
    Tag("chain-delack-off", "chain", {"tcp.delayed_ack": False}, "--topo chain --delack 1"),
    Tag("chain-tworay", "chain", dict(TWORAY), "--topo chain --prop tworay"),
    Tag("chain-per05", "chain", {"loss": [{"rate": 0.05, "frames": "data"}]}, "--topo chain --per 0.05"),
    Tag("chain-per10", "chain", {"loss": [{"rate": 0.10, "frames": "data"}]}, "--topo chain --per 0.10",
        (2, 4, 6)),
    Tag("x", "x", {}, "--topo x", (2,)),
    Tag("x-tworay", "x", dict(TWORAY), "--topo x --prop tworay", (2,)),
)}


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


def parse_tags(text: str | None) -> list[str]:
    """'all' or None -> every tag (chain first); 'chain,x' -> those, in the given order."""
    if text is None or text.strip() in ("", "all"):
        return list(TAGS)
    tags = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in tags if t not in TAGS]
    if unknown or not tags:
        raise ValueError(f"--tags: unknown tag {', '.join(unknown) or text!r}; known: all, {', '.join(TAGS)}")
    return list(dict.fromkeys(tags))


def _default_reference() -> Path | None:
    here = Path(__file__).resolve().parent
    for candidate in (REFERENCE_CSV, here.parent.parent / REFERENCE_CSV):
        if candidate.is_file():
            return candidate
    return None


@dataclass
class Ns3Cell:
    """ns-3 runs of one (tag, hops): total goodput per run and per-flow goodput per run."""
    runs: dict = field(default_factory=dict)       # run -> {flow: goodput kbit/s}

    @property
    def totals(self) -> list[float]:
        return [sum(flows.values()) for _, flows in sorted(self.runs.items())]

    def flow_means(self) -> list[float]:
        n = max((len(f) for f in self.runs.values()), default=0)
        return [statistics.fmean(f.get(k, 0.0) for f in self.runs.values()) for k in range(n)]


def load_reference_table(path: str | Path | None = None) -> tuple[dict[tuple[str, int], Ns3Cell], str]:
    """Every row of reference.csv grouped by (tag, hops), and where it came from.

    Without a CSV: its chain rows, embedded here (NS3_CHAIN_RUNS_KBPS)."""
    path = Path(path) if path else _default_reference()
    table: dict[tuple[str, int], Ns3Cell] = {}
    if path is None:
        for h, runs in NS3_CHAIN_RUNS_KBPS.items():
            table[("chain", h)] = Ns3Cell({run: {0: g} for run, g in enumerate(runs, start=1)})
        return table, "ns-3 3.44 chain rows of validation/ns3/reference.csv embedded in ncmesh.validation (runs 1-3)"
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            tag = row.get("tag") or row.get("topo") or "chain"
            hops = int(row["hops"])
            run = int(row.get("run") or 1)
            flow = int(row.get("flow") or 0)
            cell = table.setdefault((tag, hops), Ns3Cell())
            cell.runs.setdefault(run, {})[flow] = float(row["goodput_kbps"])
    runs = sorted({len(c.runs) for c in table.values()})
    label = f"{path}, mean of {'/'.join(map(str, runs))} runs" if runs else str(path)
    return table, label


def load_reference(path: str | Path | None = None) -> tuple[dict[int, float], str]:
    """ns-3 chain goodput by hop count (mean over its runs; rows tagged "chain" only)
    and where it came from."""
    table, label = load_reference_table(path)
    return {h: statistics.fmean(c.totals) for (t, h), c in sorted(table.items()) if t == "chain"}, label


def chain_reference(path: str | Path | None = None) -> dict[int, tuple[float, float, float]]:
    """ns-3's chain goodput by hop count: (mean, min, max) over its runs, kbit/s to 0.1 as the
    README's "Goodput summary" prints them (rows tagged "chain")."""
    table, _ = load_reference_table(path)
    return {h: (round(statistics.fmean(c.totals), 1), round(min(c.totals), 1), round(max(c.totals), 1))
            for (t, h), c in sorted(table.items()) if t == "chain"}


def _hops_for(tag: Tag, hops: list[int] | None, table: dict) -> list[int]:
    if tag.kind == "x":
        return [2] if hops is None or 2 in hops else []
    if hops is not None:
        return list(hops)
    have = sorted(h for (t, h) in table if t == tag.name)
    return have or list(tag.default_hops)


def _run(scenario: dict, seed: int) -> dict:
    return _core.run(scenario, seed)


def run_comparison(tags: list[str] | None = None, hops: list[int] | None = None, seeds: int = 3,
                   reference: str | Path | None = None, jobs: int = 1) -> tuple[list[dict], list[dict], str]:
    """Runs ncmesh for every (tag, hop count, seed 1..seeds).

    Returns (per-seed rows, summary rows, reference label). `hops` None: the hop counts
    the reference has for each tag; X tags run only at 2 hops."""
    table, source = load_reference_table(reference)
    tag_objs = [TAGS[t] for t in (tags or list(TAGS))]
    cells = [(t, h) for t in tag_objs for h in _hops_for(t, hops, table)]
    scenarios = {(t.name, h): t.scenario(h).to_dict() for t, h in cells}
    tasks = [(t.name, h, s) for t, h in cells for s in range(1, seeds + 1)]
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(tasks) or 1))) as pool:
        results = list(pool.map(lambda k: _run(scenarios[k[:2]], k[2]), tasks))

    per_seed: list[dict] = []
    for (tag, h, seed), r in zip(tasks, results):
        cell = table.get((tag, h))
        flows = [f["goodput_kbps"] for f in r["flows"]]
        total = sum(flows)
        ns3 = cell.totals if cell else []
        ns3_flows = cell.flow_means() if cell else []
        ns3_mean = statistics.fmean(ns3) if ns3 else None
        per_seed.append({
            "tag": tag,
            "kind": TAGS[tag].kind,
            "hops": h,
            "seed": seed,
            "ncmesh_kbps": round(total, 3),
            "ncmesh_flow0_kbps": round(flows[0], 3) if len(flows) > 1 else "",
            "ncmesh_flow1_kbps": round(flows[1], 3) if len(flows) > 1 else "",
            "ns3_mean_kbps": round(ns3_mean, 3) if ns3 else "",
            "ns3_min_kbps": min(ns3) if ns3 else "",
            "ns3_max_kbps": max(ns3) if ns3 else "",
            "ns3_runs": len(ns3),
            "ns3_flow0_mean_kbps": round(ns3_flows[0], 3) if len(ns3_flows) > 1 else "",
            "ns3_flow1_mean_kbps": round(ns3_flows[1], 3) if len(ns3_flows) > 1 else "",
            "diff_pct": round((total - ns3_mean) / ns3_mean * 100.0, 3) if ns3 else "",
            "events": r["events"],
            "wall_s": round(r["wall_time_s"], 4),
        })
    summary = summarize(per_seed, source)
    return per_seed, summary, source


PER_SEED_COLUMNS = ["tag", "kind", "hops", "seed", "ncmesh_kbps", "ncmesh_flow0_kbps", "ncmesh_flow1_kbps",
                    "ns3_mean_kbps", "ns3_min_kbps", "ns3_max_kbps", "ns3_runs", "ns3_flow0_mean_kbps",
                    "ns3_flow1_mean_kbps", "diff_pct", "events", "wall_s"]
SUMMARY_COLUMNS = ["tag", "kind", "hops", "seeds", "ncmesh_mean_kbps", "ncmesh_min_kbps", "ncmesh_max_kbps",
                   "ncmesh_halfwidth_kbps", "ncmesh_flow0_mean_kbps", "ncmesh_flow1_mean_kbps",
                   "ns3_mean_kbps", "ns3_min_kbps", "ns3_max_kbps", "ns3_runs", "ns3_flow0_mean_kbps",
                   "ns3_flow1_mean_kbps", "diff_pct", "within_10pct", "wall_s"]


def summarize(per_seed: list[dict], source: str = "") -> list[dict]:
    """One row per (tag, hops): ncmesh mean/min/max over seeds beside the ns-3 mean."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for r in per_seed:
        groups.setdefault((r["tag"], r["hops"]), []).append(r)
    out = []
    for (tag, h), rows in groups.items():
        g = [r["ncmesh_kbps"] for r in rows]
        mean = statistics.fmean(g)
        ns3 = rows[0]["ns3_mean_kbps"]
        diff = (mean - ns3) / ns3 * 100.0 if ns3 != "" else None
        x = rows[0]["ncmesh_flow0_kbps"] != ""
        out.append({
            "tag": tag,
            "kind": rows[0]["kind"],
            "hops": h,
            "seeds": len(g),
            "ncmesh_mean_kbps": round(mean, 3),
            "ncmesh_min_kbps": min(g),
            "ncmesh_max_kbps": max(g),
            "ncmesh_halfwidth_kbps": round((max(g) - min(g)) / 2.0, 3),
            "ncmesh_flow0_mean_kbps": round(statistics.fmean(r["ncmesh_flow0_kbps"] for r in rows), 3) if x else "",
            "ncmesh_flow1_mean_kbps": round(statistics.fmean(r["ncmesh_flow1_kbps"] for r in rows), 3) if x else "",
            "ns3_mean_kbps": ns3,
            "ns3_min_kbps": rows[0]["ns3_min_kbps"],
            "ns3_max_kbps": rows[0]["ns3_max_kbps"],
            "ns3_runs": rows[0]["ns3_runs"],
            "ns3_flow0_mean_kbps": rows[0]["ns3_flow0_mean_kbps"],
            "ns3_flow1_mean_kbps": rows[0]["ns3_flow1_mean_kbps"],
            "diff_pct": round(diff, 3) if diff is not None else "",
            "within_10pct": ("yes" if abs(diff) <= TOLERANCE_PCT else "no") if diff is not None else "",
            "wall_s": round(statistics.fmean(r["wall_s"] for r in rows), 4),
            "source": source,
        })
    return out


def format_tag_table(summary: list[dict], tag: str, source: str = "") -> str:
    """The table of one tag: hops, ns-3 mean (min-max), ncmesh mean ± half-width, diff,
    and the verdict line 'all N hop counts within 10%: yes/no'."""
    rows = [r for r in summary if r["tag"] == tag]
    t = TAGS.get(tag)
    what = {"chain": "TCP goodput over an 802.11b chain, kbit/s"}.get(
        tag, f"{tag} ({t.anchor_args if t else ''}), kbit/s" + (", total of both flows" if t and t.kind == "x" else ""))
    seeds = rows[0]["seeds"] if rows else 0
    lines = [f"{what} (ns-3: {source or (rows[0]['source'] if rows else '-')}; ncmesh: {seeds} seeds, "
             f"mean ± half the range)",
             f"{'hops':>4}  {'ns-3':>7}  {'ns-3 min-max':>13}  {'ncmesh':>7}  {'±':>5}  {'diff':>7}  {'wall s':>6}"]
    x = any(r["ncmesh_flow0_mean_kbps"] != "" for r in rows)
    for r in rows:
        ns3 = f"{r['ns3_mean_kbps']:.1f}" if r["ns3_mean_kbps"] != "" else "-"
        rng = f"{r['ns3_min_kbps']:.0f}-{r['ns3_max_kbps']:.0f}" if r["ns3_mean_kbps"] != "" else "-"
        diff = f"{r['diff_pct']:+.1f}%" if r["diff_pct"] != "" else "-"
        lines.append(f"{r['hops']:>4}  {ns3:>7}  {rng:>13}  {r['ncmesh_mean_kbps']:>7.1f}  "
                     f"{r['ncmesh_halfwidth_kbps']:>5.1f}  {diff:>7}  {r['wall_s']:>6.3f}")
    if x:
        for r in rows:
            ns3f = (f"{r['ns3_flow0_mean_kbps']:.1f} + {r['ns3_flow1_mean_kbps']:.1f}"
                    if r["ns3_flow0_mean_kbps"] != "" else "-")
            lines.append(f"  per flow (0->2 + 3->4, means): ns-3 {ns3f}; ncmesh "
                         f"{r['ncmesh_flow0_mean_kbps']:.1f} + {r['ncmesh_flow1_mean_kbps']:.1f}")
    compared = [r for r in rows if r["within_10pct"] != ""]
    ok = all(r["within_10pct"] == "yes" for r in compared)
    n = len(compared)
    if n:
        verdict = "yes" if ok else f"no ({sum(r['within_10pct'] == 'yes' for r in compared)} of {n})"
        lines.append(f"all {n} hop count{'s' if n != 1 else ''} within {TOLERANCE_PCT:.0f}%: {verdict}")
    else:
        lines.append("no ns-3 reference for these hop counts")
    return "\n".join(lines)


def format_summary(summary: list[dict], source: str = "") -> str:
    """Every tag's table, in the order run (the chain first by default)."""
    tags = list(dict.fromkeys(r["tag"] for r in summary))
    return "\n\n".join(format_tag_table(summary, t, source) for t in tags)


def write_csv(rows: list[dict], path: str | Path, columns: list[str]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


# --- the older chain-only API (kept for callers of compare_ns3 / format_comparison)

def compare_ns3(hops: list[int], seeds: int = 1, reference: str | None = None, jobs: int = 1) -> list[dict]:
    """Runs the ncmesh chain for each hop count and seed 1..seeds; one row per hop count."""
    _, summary, source = run_comparison(["chain"], hops, seeds, reference, jobs)
    return [{
        "hops": r["hops"],
        "ns3_kbps": r["ns3_mean_kbps"] if r["ns3_mean_kbps"] != "" else None,
        "ncmesh_kbps": r["ncmesh_mean_kbps"],
        "ncmesh_halfwidth_kbps": r["ncmesh_halfwidth_kbps"],
        "diff_pct": r["diff_pct"] if r["diff_pct"] != "" else None,
        "seeds": r["seeds"],
        "wall_s": r["wall_s"],
        "source": source,
    } for r in summary]


def format_comparison(rows: list[dict]) -> str:
    lines = [f"TCP goodput over an 802.11b chain, kbit/s (ns-3: {rows[0]['source'] if rows else '-'})",
             f"{'hops':>4}  {'ns-3':>8}  {'ncmesh':>8}  {'±':>6}  {'diff':>7}  {'seeds':>5}  {'wall s':>7}"]
    for r in rows:
        ns3 = f"{r['ns3_kbps']:.0f}" if r["ns3_kbps"] is not None else "-"
        diff = f"{r['diff_pct']:+.1f}%" if r["diff_pct"] is not None else "-"
        half = r.get("ncmesh_halfwidth_kbps", 0.0)
        lines.append(f"{r['hops']:>4}  {ns3:>8}  {r['ncmesh_kbps']:>8.0f}  {half:>6.1f}  "
                     f"{diff:>7}  {r['seeds']:>5}  {r['wall_s']:>7.3f}")
    return "\n".join(lines)


def write_comparison_csv(rows: list[dict], path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["hops"])
        w.writeheader()
        w.writerows(rows)


def cli_compare_ns3(args) -> int:
    """`ncmesh compare-ns3`: raises ValueError for a bad command line."""
    hops = parse_hops(args.hops) if getattr(args, "hops", None) else None
    tags = parse_tags(getattr(args, "tags", None))
    if args.seeds < 1:
        raise ValueError("--seeds must be at least 1")
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs} is not allowed: expected at least 1")
    per_seed, summary, source = run_comparison(tags, hops, seeds=args.seeds, reference=args.reference,
                                               jobs=args.jobs)
    print(format_summary(summary, source))
    if args.csv:
        write_csv(per_seed, args.csv, PER_SEED_COLUMNS)
    if getattr(args, "summary_csv", None):
        write_csv(summary, args.summary_csv, SUMMARY_COLUMNS)
    return 0
