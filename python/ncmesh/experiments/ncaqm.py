"""ncaqm: Seferoglu & Markopoulou, NCAQM (docs/papers.md): TCP+NCAQM and TCP+COPE against
TCP+noNC on Alice-and-Bob, X, cross, grid, wheel and butterfly; Table I, Figs. 4-7, 9 and
Appendix A (NUM primal-dual convergence).

`analyze` joins one part per table or figure (`_table1`, `_buffer_and_capacity`, `_wheel`,
`_butterfly`, `_appendix_a`, `_counters`), then the paper's claims checked on their numbers
(`_claims`), the notes and the highlights."""

from __future__ import annotations

import dataclasses
import math

from .common import (seeds_for, CLAIM_TOLERANCE_PP, Analysis, Check, Claim, ClaimGroup, FigureOut, PaperNumber, TableOut, all_of,
                     at_least, claims_part, falls, fmt_ci, gain, less, more, near, pct, ratio_at_least, rises,
                     sweep_base, within)
from .figures import grid_figure, line_panel
from .measures import improvements, mean_ci, per_run_counters, per_run_total, stats_by

NAME = "ncaqm"
TITLE = ("NCAQM vs COPE vs no coding for TCP over coded 802.11 (Seferoglu & Markopoulou, NCAQM: Table I, "
         "Figs. 4-7, 9, App. A)")
DESCRIPTION = """
Seferoglu & Markopoulou, network-coding-aware queue management (NCAQM; docs/papers.md). TCP-SACK bulk
(FTP) flows over 802.11b with RTS/CTS and 15% frame loss on every link (250 m receive
range, carrier sense and interference at 445 m: GloMoSim's 10 dB sensing margin), through a relay
that codes with COPE (`scheme.name = "cope"`), with NCAQM (`"ncaqm"`: code at enqueue,
re-coding, h-queue dominance drop), or not at all (`"none"`). The metric is the network's
total transport throughput (sum of the flows' goodputs); improvements are paired per
seed against TCP+noNC on the same seed, then averaged over seeds with a 95% confidence
interval. The paper's Table I numbers and the NUM optimum (computed here by `ncmesh.num`)
stand beside ours. Values the paper lost (buffer, capacity, packet size, run length) are
named constants of this module; see the notes. On the butterfly (Fig. 9) the schemes are
TCP+BFLY (`"bfly"`: COPE's FIFO plus two-hop butterfly codes) and TCP+NCAQM over two-hop
coding (`"ncaqm"` with `scheme.xor.two_hop = true`), as in the paper, plus one-hop TCP+COPE
and one-hop TCP+NCAQM as extra series.
"""

# ---- chosen values (the paper's were lost in conversion; docs/assumptions.md) ----
LOSS_RATE = 0.15            # uniform data-frame loss on every link ([[loss]] rate on the range channel)
LOSS_FRAMES = "data"        # RTS/CTS/ACK are not lost; residual after 5 tries (long retry limit 4) 0.15^5 = 0.008%
RTS_THRESHOLD_BYTES = 0     # RTS/CTS before every unicast frame (the paper: 802.11 with RTS/CTS)
TCP_SACK = True             # TCP-SACK (the paper)
PACKET_BYTES = 1000         # TCP segment payload (lost)
BUFFER_PACKETS = 10         # Table I buffer = "BDP" (lost): ~ 2-hop path, 2 Mbit/s, RTT ~ 40 ms -> 10 x 1000 B
CAPACITY_MBPS = 2.0         # channel capacity of Table I, Figs. 5, 6, 9a (lost): 802.11b 2 Mbit/s
BASIC_RATE_MBPS = 1.0       # control frames (RTS/CTS/ACK) at 802.11b's 1 Mbit/s basic rate
BUFFERS = [5, 10, 20, 40, 60]            # Fig. 5 / 9a buffer sizes (packets)
CAPACITIES = [1.0, 2.0, 5.5, 11.0]       # Fig. 7 / 9b: the 802.11b rates
WHEEL_FLOWS = [2, 4, 6, 8]               # Fig. 6
RANGE_M = 250.0             # receive range (the builders' default)
SENSING_MARGIN_DB = 10.0    # GloMoSim's default radio (the paper's simulator): RX-SENSITIVITY -91 dBm (carrier
                            # sense) and RX-THRESHOLD -81 dBm (reception), 10 dB apart; with two-ray path loss (d^-4)
                            # sensing reaches 10^(10/40) = 1.778 times as far as reception
CS_RANGE_M = float(round(RANGE_M * 10 ** (SENSING_MARGIN_DB / 40.0)))   # 445 m: carrier-sense range ...
INTERFERENCE_RANGE_M = CS_RANGE_M                                      # ... = interference range. At 250 m (the
                            # ns-3 anchor's set-up) Alice and Bob, the X's and the cross's opposite rim nodes are
                            # hidden terminals, which GloMoSim's set-up does not have
X_SPACING_M = 150.0         # X radius: with 250 m range the X's neighbours (R*sqrt 2) must hear each other
START_S, START_SPREAD_S = 1.0, 4.0       # flows start uniformly in [1 s, 5 s) ("random within the first seconds")
MEASURE_START_S = 10.0      # goodput measured from 10 s to the end
# The paper's grid (Sec. VI-A; every number lost): ncmesh's "cell-grid" builder, 4 x 4 square cells of 88 m,
# each holding 1 or 2 nodes (2 with probability 0.5) placed at random in it; a flow's relays are drawn cell by
# cell among the nodes of neighbouring cells (sides and corners) closer to its receiver; TCP flows arrive as a
# Poisson process (0.5 flows/s from START_S) with random endpoints and live an exponential time (mean 20 s),
# so about 10 flows are active in steady state and four or more meet at a relay part of the time.
# docs/assumptions.md gives the reason for each value; they are the builder's defaults, written out.
GRID_KIND = "cell-grid"
GRID = {"rows": 4, "cols": 4, "cell": 88.0, "pair_prob": 0.5, "neighbours": 8, "arrival_rate": 0.5,
        "lifetime": 20.0}
BUILDER_SEED = "run"        # the builders' own seed (flow start times; the grid's layout, flows and relays) follows
                            # each run's seed (sweep base.options.seed = "run"), so every replicate draws its own;
                            # the same seed gives the same draws for every scheme (paired comparisons)
SCHEMES = ["none", "cope", "ncaqm"]
LABELS = {"none": "TCP+noNC", "cope": "TCP+COPE", "ncaqm": "TCP+NCAQM"}
COLORS = {"none": "#555555", "cope": "#1f77b4", "ncaqm": "#d62728"}
TOPOLOGIES = ["alice-bob", "x", "cross", "grid"]
# Fig. 9 (butterfly): the paper's TCP+BFLY and TCP+NCAQM (over two-hop coding), plus one-hop COPE
# and one-hop NCAQM as extra series. "ncaqm" here is NCAQM with scheme.xor.two_hop = true (its own
# part of the sweep, "butterfly-<buffer|capacity>-two-hop"); "ncaqm_one_hop" is the plain "ncaqm" runs.
BFLY_SCHEMES = ["none", "cope", "ncaqm_one_hop", "bfly", "ncaqm"]
BFLY_LABELS = {"none": "TCP+noNC", "cope": "TCP+COPE (one-hop)", "ncaqm_one_hop": "TCP+NCAQM (one-hop)",
               "bfly": "TCP+BFLY", "ncaqm": "TCP+NCAQM (two-hop)"}
BFLY_COLORS = {"none": "#555555", "cope": "#1f77b4", "ncaqm_one_hop": "#ff9896", "bfly": "#2ca02c",
               "ncaqm": "#d62728"}
TOPO_LABEL = {"alice-bob": "Alice-and-Bob", "x": "X", "cross": "cross", "grid": "grid"}

QUICK = {"seeds": 3, "duration": 40.0}
FULL = {"seeds": 10, "duration": 120.0}

# Table I of the paper: improvement (%) over TCP+noNC of the optimum, TCP+NCAQM and TCP+COPE.
PAPER_TABLE1 = {topo: {"optimal": PaperNumber(opt, "Table I"), "ncaqm": PaperNumber(nc, "Table I"),
                       "cope": PaperNumber(cope, "Table I")}
                for topo, (opt, nc, cope) in {"alice-bob": (33, 18, 8), "x": (33, 19, 9), "cross": (60, 39, 21),
                                              "grid": (None, 35, 18)}.items()}
# Sec. VI-B: "the improvement of TCP+NCAQM over TCP+noNC is around 40% in the X topology" at a large buffer.
PAPER_X_LARGE_BUFFER = PaperNumber(40, "Sec. VI-B (Fig. 5)")
# Fig. 7 (X), improvement over TCP+noNC (%) at the lowest and highest capacity (Mbit/s), as the
# claim "NCAQM's improvement grows 40% -> 42% and COPE's falls 27% -> 16%" states them.
PAPER_FIG7_X = {scheme: {c: PaperNumber(v, "Sec. VI-B (Fig. 7)") for c, v in values.items()}
                for scheme, values in (("ncaqm", {1.0: 40, 11.0: 42}), ("cope", {1.0: 27, 11.0: 16}))}
# Sec. VII-D (Fig. 9a, butterfly), improvement over TCP+noNC (%): the text gives a small and a large buffer;
# we set them beside our smallest (5) and largest (60) buffer. The optimum (50%) is the NUM optimum with BFLY.
PAPER_FIG9 = {size: {"buffer": buffer, **{k: PaperNumber(v, "Sec. VII-D (Fig. 9a)") for k, v in values.items()}}
              for size, buffer, values in (("small", 5, {"bfly": 13, "ncaqm": 30, "optimal": 50}),
                                           ("large", 60, {"bfly": 45, "ncaqm": 65, "optimal": None}))}

# The classes of the paper's claims; what ncmesh concludes where they do not hold is written from each
# run's numbers (`_conclusions`), and docs/results/ncaqm.md explains it.
DOC = "docs/results/ncaqm.md"
GAIN = ClaimGroup("coding gain over TCP+noNC", "", f"{DOC}, Table I and Why")
NCAQM_OVER_COPE = ClaimGroup("NCAQM over COPE", "", f"{DOC}, Table I, Figs. 5, 6, 7 and Why")
TRENDS = ClaimGroup("trends with buffer, flows and capacity", "", f"{DOC}, Figs. 5, 6, 7")
BUTTERFLY = ClaimGroup("butterfly, two-hop coding", "", f"{DOC}, Fig. 9")


def _span(values) -> str:
    """'a to b%' over the finite values (rounded), or 'n/a'."""
    v = sorted(x for x in values if math.isfinite(x))
    if not v:
        return "n/a"
    return f"{v[0]:+.0f}%" if round(v[0]) == round(v[-1]) else f"{v[0]:+.0f} to {v[-1]:+.0f}%"


def _peak(store: dict, scheme: str, xs) -> str:
    """The x at which `scheme`'s improvement is highest."""
    def improvement(x) -> float:
        v = _imp(store, scheme, str(x))[0]
        return v if math.isfinite(v) else -math.inf
    return str(max(xs, key=improvement))


def _conclusions(summary: dict) -> dict[str, ClaimGroup]:
    """Each class's conclusion, from this run's numbers."""
    t1, buf, cap, wheel = summary["table1"], summary["fig5_buffer"], summary["fig7_capacity"], summary["fig6_wheel"]
    single = [t for t in TOPOLOGIES if t != "grid"]
    counters = {(r["topology"], r["scheme"]): r for r in summary.get("coding_counters", [])}

    def coded_share(scheme: str) -> str:
        shares = []
        for t in single:
            r = counters.get((TOPO_LABEL[t], scheme), {})
            frames = r.get("native_tx", 0) + r.get("coded_tx", 0) + r.get("control_tx", 0)
            if frames:
                shares.append(r["coded_tx"] / frames)
        return f"{100 * sum(shares) / len(shares):.0f}%" if shares else "n/a"

    failures = {TOPO_LABEL[t]: counters.get((TOPO_LABEL[t], "TCP+COPE"), {}).get("decode_failures", math.nan)
                for t in single}
    grid = t1["grid"]
    gain = (f"over TCP+noNC COPE gains {_span(t1[t]['cope_improvement_pct'] for t in single)} and NCAQM "
            f"{_span(t1[t]['ncaqm_improvement_pct'] for t in single)} on Alice-and-Bob, X and cross (the paper: "
            f"8-21% and 18-39%); on the grid {grid['cope_improvement_pct']:+.0f}% and {grid['ncaqm_improvement_pct']:+.0f}%, "
            f"whose optimum is {grid['optimal_pct']:.0f}%; COPE's relays send {coded_share('TCP+COPE')} of their "
            "XOR-layer frames coded, and codes that fail to decode per run: "
            + ", ".join(f"{t} {v:.0f}" for t, v in failures.items()))
    b10 = summary["chosen"]["buffer_packets"]  # Table I's buffer
    ratio = [t1[t]["ncaqm_improvement_pct"] / t1[t]["cope_improvement_pct"] for t in TOPOLOGIES
             if t1[t]["cope_improvement_pct"] > 0]
    below = sorted({b for t in TOPOLOGIES for b in BUFFERS
                    if _kbps(buf[t], "ncaqm", str(b)) < _kbps(buf[t], "cope", str(b))})
    below_n = sum(_kbps(buf[t], "ncaqm", str(b)) < _kbps(buf[t], "cope", str(b)) for t in TOPOLOGIES for b in BUFFERS)
    over = (f"at buffer {b10} NCAQM's gain is " + (f"{min(ratio):.1f}-{max(ratio):.1f} times COPE's where COPE gains"
                                                   if ratio else "not comparable: COPE gains nowhere")
            + f" (the paper: about 2); NCAQM is below COPE at {below_n} of {len(TOPOLOGIES) * len(BUFFERS)} "
            "topology-buffer points" + (f", at buffers {', '.join(map(str, below))}" if below else ""))
    wf = WHEEL_FLOWS
    c0, c1 = f"{CAPACITIES[0]:g}", f"{CAPACITIES[-1]:g}"
    trends = (f"on X COPE's gain peaks at {_peak(buf['x'], 'cope', BUFFERS)} packets and NCAQM's at "
              f"{_peak(buf['x'], 'ncaqm', BUFFERS)}; on the wheel noNC goes {_kbps(wheel, 'none', str(wf[0])):.0f} -> "
              f"{_kbps(wheel, 'none', str(wf[-1])):.0f} kbit/s ({wf[0]} -> {wf[-1]} flows), COPE's gain peaks at "
              f"{_peak(wheel, 'cope', wf)} flows and NCAQM's at {_peak(wheel, 'ncaqm', wf)}; from {c0} to {c1} Mbit/s "
              f"COPE goes {_imp(cap['x'], 'cope', c0)[0]:+.0f}% -> {_imp(cap['x'], 'cope', c1)[0]:+.0f}% and NCAQM "
              f"{_imp(cap['x'], 'ncaqm', c0)[0]:+.0f}% -> {_imp(cap['x'], 'ncaqm', c1)[0]:+.0f}% (the paper: COPE "
              "27% -> 16%, NCAQM 40% -> 42%)")
    timers = summary.get("fig7_timers", {}).get("fixed", {})
    if timers:
        trends += ("; with fixed recovery timers COPE goes " + " -> ".join(
            f"{timers.get('cope', {}).get(c, {}).get('improvement_pct', math.nan):+.0f}%" for c in (c0, c1)))
    b9 = summary["fig9_butterfly"]["buffer"]
    rest = [b for b in b9 if int(b) >= 10]
    fly = (f"from buffer 10 on TCP+BFLY gains {_span(b9[b]['bfly_improvement_pct'] for b in rest)} and two-hop NCAQM "
           f"{_span(b9[b]['ncaqm_improvement_pct'] for b in rest)} over TCP+noNC, at buffer {min(b9, key=int)} "
           f"{b9[min(b9, key=int)]['bfly_improvement_pct']:+.0f}% and {b9[min(b9, key=int)]['ncaqm_improvement_pct']:+.0f}% "
           f"(the paper: BFLY +13 to +45%, NCAQM +30 to +65%; the optimum with two-hop codes is "
           f"{summary['fig9_butterfly']['optimal_pct']['bfly']:.0f}%)")
    text = {GAIN.name: gain, NCAQM_OVER_COPE.name: over, TRENDS.name: trends, BUTTERFLY.name: fly}
    return {g.name: ClaimGroup(g.name, text[g.name], g.doc) for g in (GAIN, NCAQM_OVER_COPE, TRENDS, BUTTERFLY)}


CLAIMS_NOTE = (f"A number holds when the paper's value is within our 95% CI or within {CLAIM_TOLERANCE_PP:g} "
               "percentage points of our mean; a trend or an ordering holds when our means follow it at every point named.")


def sweeps(quick: bool = False) -> dict[str, dict]:
    """The parts: per topology, scheme x buffer (Table I, Figs. 4, 5) and scheme x
    capacity (Fig. 7); the wheel (Fig. 6); the butterfly (Fig. 9: noNC, one-hop COPE and
    NCAQM, BFLY; NCAQM over two-hop coding in the `-two-hop` parts). The grid is the
    cell grid, whose flows arrive by its own Poisson process (no start spread)."""
    size = QUICK if quick else FULL
    seeds = seeds_for(size["seeds"], quick)
    parts = {}
    for topo in TOPOLOGIES + ["butterfly"]:
        builder, opts = TOPO_OPTIONS[topo]
        parts[f"{topo}-buffer"] = {"name": f"{NAME}-{topo}-buffer", "base": _base(builder, opts, size["duration"]),
                                   "grid": {"mac.queue_packets": BUFFERS, "scheme.name": SCHEMES}, "seeds": seeds}
        parts[f"{topo}-capacity"] = {"name": f"{NAME}-{topo}-capacity", "base": _base(builder, opts, size["duration"]),
                                     "grid": {"mac.data_rate_mbps": CAPACITIES, "scheme.name": SCHEMES},
                                     "seeds": seeds}
    for kind, key, values in (("buffer", "mac.queue_packets", BUFFERS), ("capacity", "mac.data_rate_mbps", CAPACITIES)):
        parts[f"butterfly-{kind}"]["grid"] = {key: values, "scheme.name": ["none", "cope", "ncaqm", "bfly"]}
        base = _base(*TOPO_OPTIONS["butterfly"], size["duration"])
        base["set"]["scheme.xor.two_hop"] = True
        parts[f"butterfly-{kind}-two-hop"] = {"name": f"{NAME}-butterfly-{kind}-two-hop", "base": base,
                                             "grid": {key: values, "scheme.name": ["ncaqm"]}, "seeds": seeds}
    # Fig. 7's cause, measured: X vs capacity with COPE's fixed recovery timers (0.2 s ack timeout, 0.25 s
    # ordering hold) beside the adaptive ones of the x-capacity part (noNC comes from there, same seeds).
    base = _base(*TOPO_OPTIONS["x"], size["duration"])
    base["set"].update({"scheme.xor.ack_timer": "fixed", "scheme.xor.ordering_hold": "fixed"})
    parts["x-capacity-fixed-timers"] = {"name": f"{NAME}-x-capacity-fixed-timers", "base": base,
                                        "grid": {"mac.data_rate_mbps": CAPACITIES, "scheme.name": ["cope", "ncaqm"]},
                                        "seeds": seeds}
    parts["wheel"] = {"name": f"{NAME}-wheel", "base": _base("wheel", {}, size["duration"]),
                      "grid": {"flows": WHEEL_FLOWS, "scheme.name": SCHEMES}, "seeds": seeds}
    return parts


TOPO_OPTIONS = {"alice-bob": ("alice-bob", {}), "x": ("x", {"spacing": X_SPACING_M}),
                "cross": ("cross", {}), "grid": (GRID_KIND, dict(GRID)),
                "butterfly": ("butterfly", {})}


def _base(builder: str, options: dict, duration: float) -> dict:
    # The cell grid's flows arrive as a Poisson process from START_S; the others start uniformly in the spread.
    spread = 0.0 if builder == GRID_KIND else START_SPREAD_S
    return sweep_base(builder, options,
                      {"mac.rts_threshold_bytes": RTS_THRESHOLD_BYTES, "mac.data_rate_mbps": CAPACITY_MBPS,
                       "mac.basic_rate_mbps": BASIC_RATE_MBPS, "mac.queue_packets": BUFFER_PACKETS,
                       "tcp.sack": TCP_SACK, "tcp.mss_bytes": PACKET_BYTES, "channel.rx_range_m": RANGE_M,
                       "channel.cs_range_m": CS_RANGE_M, "channel.interference_range_m": INTERFERENCE_RANGE_M,
                       "loss.0.rate": LOSS_RATE, "loss.0.frames": LOSS_FRAMES},
                      duration=duration, start=START_S, start_spread=spread, measure_start=MEASURE_START_S,
                      seed=BUILDER_SEED)


GRID_NUM_SEEDS = tuple(range(1, 21))     # the grids whose NUM optimum Table I averages (ncmesh.num.table1's default)


def grid_options(quick: bool) -> dict:
    """The cell grid's builder options as simulated in this mode (without the seed)."""
    return {**GRID, "duration": (QUICK if quick else FULL)["duration"], "start": START_S,
            "measure_start": MEASURE_START_S}


# The grid's NUM optimum uses the simulated channel's ranges (protocol model: a transmission interferes at
# receivers within 445 m); the single-relay topologies' optimum is the same at 250 m and 445 m.
GRID_NUM_CHANNEL = {"rx_range_m": RANGE_M, "interference_range_m": INTERFERENCE_RANGE_M}


def analyze(results: dict, quick: bool = False) -> Analysis:
    num = _num_results(quick)
    parts = Analysis.join([_chosen(quick), _table1(results, num), _buffer_and_capacity(results), _wheel(results),
                           _butterfly(results, num), _appendix_a(num), _counters(results),
                           _timers(results)])
    groups = _conclusions(parts.summary)
    claims = [dataclasses.replace(c, group=groups[c.group.name]) for c in _claims(parts.summary)]
    return Analysis.join([parts, claims_part(claims, CLAIMS_NOTE), _notes(quick),
                          _highlights(parts.summary)], main_table="table1",
                         scenario_note="Parts: <topology>-buffer (scheme × buffer: Table I, Figs. 4, 5), "
                                       "<topology>-capacity (scheme × capacity: Fig. 7), wheel (Fig. 6), "
                                       "butterfly-<buffer|capacity> (noNC, COPE, NCAQM one-hop, BFLY) and "
                                       "butterfly-<buffer|capacity>-two-hop (NCAQM over two-hop coding): Fig. 9; "
                                       "x-capacity-fixed-timers (COPE and NCAQM on X with fixed recovery timers × "
                                       "capacity: what Fig. 7's fall with capacity comes from).")


def _num_results(quick: bool = False) -> dict:
    """The NUM side (ncmesh.num): Table I's optimum (the grid's over the measurement window of cell grids
    built as simulated in this mode), primal-dual convergence, the butterfly's optimum."""
    from .. import num

    t1 = num.table1(grid_seeds=GRID_NUM_SEEDS, grid_opts=grid_options(quick), grid_kind=GRID_KIND,
                    grid_channel=GRID_NUM_CHANNEL)
    conv = {}
    for kind in ("alice-bob", "x", "butterfly"):
        coding = num.topologies.DEFAULT_CODING.get(kind, "cope")
        m = num.model_from_scenario(num.topology(kind), coding=coding)
        sol = m.solve()
        hist = m.primal_dual(iterations=20000, record_every=50)
        conv[kind] = {"coding": coding, "optimum_total": float(sol.total), "final_total": float(hist.total[-1]),
                      "history": hist}
    bfly = {c: float(num.compare("butterfly", coding=c).improvement_pct) for c in ("bfly", "cope")}
    # How many flows meet at a relay in each grid (the paper: four or more, part of the time).
    load = {sd: num.relay_load(num.topology(GRID_KIND, seed=sd, **grid_options(quick))) for sd in GRID_NUM_SEEDS}
    return {"table1": t1, "convergence": conv, "butterfly": bfly, "grid_load": load}


def _load_summary(loads: list[dict]) -> dict:
    """Relay load over several grids: the most flows at one relay, and means of the rest."""
    if not loads:
        return {}
    return {"max_flows_at_relay": max(v["max_flows_at_relay"] for v in loads),
            "share_time_4plus_at_a_relay": sum(v["share_at_least"] for v in loads) / len(loads),
            "mean_active_flows": sum(v["mean_active_flows"] for v in loads) / len(loads),
            "max_active_flows": max(v["max_active_flows"] for v in loads), "grids": len(loads)}


def _chosen(quick: bool) -> Analysis:
    return Analysis(summary={
        "schemes": SCHEMES,
        "chosen": {"loss_rate": LOSS_RATE, "loss_frames": LOSS_FRAMES, "buffer_packets": BUFFER_PACKETS,
                   "capacity_mbps": CAPACITY_MBPS, "packet_bytes": PACKET_BYTES,
                   "duration_s": (QUICK if quick else FULL)["duration"],
                   "measure_start_s": MEASURE_START_S, "start_s": START_S, "start_spread_s": START_SPREAD_S,
                   "x_spacing_m": X_SPACING_M, "grid_kind": GRID_KIND, "grid": dict(GRID),
                   "rx_range_m": RANGE_M, "cs_range_m": CS_RANGE_M,
                   "interference_range_m": INTERFERENCE_RANGE_M,
                   "builder_seed": BUILDER_SEED,
                   "buffers": BUFFERS, "capacities_mbps": CAPACITIES, "wheel_flows": WHEEL_FLOWS}})


def _totals(results: dict, part: str, key: str):
    """Per-run total throughput of a part, by `key` and scheme (column "scheme")."""
    return per_run_total(results[part], [key, "scheme.name"]).rename(columns={"scheme.name": "scheme"})


def _table1(results: dict, num: dict) -> Analysis:
    """Table I (buffer BUFFER_PACKETS, CAPACITY_MBPS) and Fig. 4 (its CDFs over seeds)."""
    import pandas as pd

    rows, t1sum, imp_all = [], {}, {}
    n_seeds = 0
    for topo in TOPOLOGIES:
        df = _totals(results, f"{topo}-buffer", "mac.queue_packets")
        df = df[df["mac.queue_packets"] == BUFFER_PACKETS]
        imp = improvements(df, ["mac.queue_packets"], "scheme", "none")
        imp_all[topo] = imp
        base_m, base_ci, n = mean_ci(df[df["scheme"] == "none"]["throughput_kbps"])
        n_seeds = max(n_seeds, n)
        opt = num["table1"][topo]["improvement_pct"]
        paper = PAPER_TABLE1[topo]
        entry = {"nonc_kbps": base_m, "nonc_kbps_ci95": base_ci, "optimal_pct": opt,
                 "paper_optimal_pct": paper["optimal"].value}
        row = {"topology": TOPO_LABEL[topo], "noNC kbit/s": fmt_ci(base_m, base_ci, 0)}
        for scheme in ("ncaqm", "cope"):
            g = imp[imp["scheme"] == scheme]
            m, ci, k = mean_ci(g["improvement_pct"])
            tm, tci, _ = mean_ci(df[df["scheme"] == scheme]["throughput_kbps"])
            entry[f"{scheme}_improvement_pct"] = m
            entry[f"{scheme}_improvement_ci95"] = ci
            entry[f"{scheme}_kbps"] = tm
            entry[f"{scheme}_kbps_ci95"] = tci
            entry[f"paper_{scheme}_pct"] = paper[scheme].value
            entry["n"] = k
            row[f"{LABELS[scheme]} ours (%)"] = fmt_ci(m, ci, 1)
            row[f"{LABELS[scheme]} paper (%)"] = paper[scheme].value
        row["Optimal ours (ncmesh.num, %)"] = f"{opt:.1f}"
        if topo == "grid":
            # The simulated grids are ncmesh.num's grid seeds 1..n (the builder seed follows the run seed).
            per_seed = dict(zip(GRID_NUM_SEEDS, num["table1"]["grid"]["per_seed"]))
            seeds = [sd for sd in sorted(set(df["seed"])) if sd in per_seed]
            sim = [per_seed[sd] for sd in seeds]
            entry["optimal_pct_simulated_layouts"] = 100.0 * (sum(sim) / len(sim) - 1.0) if sim else math.nan
            entry["relay_load"] = _load_summary(list(num["grid_load"].values()))
            entry["relay_load_simulated_layouts"] = _load_summary([num["grid_load"][sd] for sd in seeds])
            row["Optimal ours (ncmesh.num, %)"] = (f"{opt:.1f} ({entry['optimal_pct_simulated_layouts']:.1f} on "
                                                   f"the {len(sim)} simulated grids)")
        row["Optimal paper (%)"] = "-" if paper["optimal"].value is None else paper["optimal"].value
        row["seeds"] = entry["n"]
        entry["ncaqm_over_cope_ratio"] = (entry["ncaqm_improvement_pct"] / entry["cope_improvement_pct"]
                                          if entry["cope_improvement_pct"] not in (0, None) and
                                          math.isfinite(entry["cope_improvement_pct"]) else math.nan)
        rows.append(row)
        t1sum[topo] = entry
    table = TableOut(
        "table1", f"Table I: improvement over TCP+noNC in total transport throughput, buffer {BUFFER_PACKETS} "
                  f"packets, {CAPACITY_MBPS:g} Mbit/s (ours: mean ± 95% CI over seeds; the paper's beside)",
        pd.DataFrame(rows), note=("Improvement = (total throughput of the scheme − TCP+noNC's) / TCP+noNC's, paired "
                                  "per seed. Optimal: NUM optimum with COPE vs without coding, computed by ncmesh.num "
                                  f"(grid: mean over {len(GRID_NUM_SEEDS)} cell grids, each over the measurement "
                                  "window with the flows active at each moment, in brackets over the grids simulated "
                                  "here, one per seed; the paper gives '-')."))

    fig, axes = grid_figure(10.0, 7.5, 2, 2)
    for ax, topo in zip(axes.flat, TOPOLOGIES):
        imp = imp_all[topo]
        for scheme in ("cope", "ncaqm"):
            v = sorted(imp[imp["scheme"] == scheme]["improvement_pct"].tolist())
            if v:
                ax.step(v, [(i + 1) / len(v) for i in range(len(v))], where="post", label=LABELS[scheme],
                        color=COLORS[scheme])
        for scheme in ("ncaqm", "cope"):
            ax.axvline(PAPER_TABLE1[topo][scheme].value, color=COLORS[scheme], linestyle=":", linewidth=1)
        ax.set_title(TOPO_LABEL[topo], fontsize=10)
        ax.set_xlabel("Improvement over TCP+noNC (%)")
        ax.set_ylabel("CDF over seeds")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    figure = FigureOut("fig4_cdf", "Fig. 4: CDF over seeds of the improvement over TCP+noNC", fig,
                       f"Buffer {BUFFER_PACKETS}, {CAPACITY_MBPS:g} Mbit/s; dotted: the paper's Table I means.")
    return Analysis(summary={
        "table1": t1sum, "seeds": n_seeds,
        "table1_grid_optimal_note": (
            f"grid Optimal = mean over {len(num['table1']['grid']['per_seed'])} cell grids built as simulated "
            "(ncmesh.num.table1: per grid, the optimum of the flows active at each moment of the measurement window, "
            f"weighted by time; interference range {INTERFERENCE_RANGE_M:g} m); optimal_pct_simulated_layouts: over "
            "the grids simulated here (builder seed = run "
            "seed); the paper prints '-'")}, tables=[table], figures=[figure])


def _buffer_and_capacity(results: dict) -> Analysis:
    """Fig. 5 (throughput vs buffer) and Fig. 7 (vs capacity), per topology."""
    out = Analysis()
    for part_kind, key, xlabel, fname, ftitle in (
            ("buffer", "mac.queue_packets", "Buffer size (packets)", "fig5_buffer",
             "Fig. 5: total throughput vs buffer size"),
            ("capacity", "mac.data_rate_mbps", "Channel capacity (Mbit/s)", "fig7_capacity",
             "Fig. 7: total throughput vs channel capacity (802.11b)")):
        store = {}
        if part_kind == "capacity":
            # a fifth panel: X's improvement over noNC, ours beside the paper's
            fig, axes = grid_figure(14.5, 7.5, 2, 3)
            panels = [axes[0, 0], axes[0, 1], axes[1, 0], axes[1, 1]]
        else:
            fig, axes = grid_figure(10.0, 7.5, 2, 2)
            panels = list(axes.flat)
        for ax, topo in zip(panels, TOPOLOGIES):
            df = _totals(results, f"{topo}-{part_kind}", key)
            line_panel(ax, df, key, "scheme", "throughput_kbps", SCHEMES, LABELS, TOPO_LABEL[topo], xlabel,
                       colors=COLORS, logx=(part_kind == "capacity"))
            if part_kind == "capacity":
                ax.set_xticks(CAPACITIES, [f"{c:g}" for c in CAPACITIES])
            ax.legend(fontsize=8)
            store[topo] = _curve_summary(df, key)
        caption = "Mean over seeds ± 95% CI; every flow's goodput summed."
        if part_kind == "capacity":
            _fig7_paper_panel(axes[0, 2], _totals(results, "x-capacity", key), key, xlabel)
            axes[1, 2].axis("off")
            caption += (" Top right: X's improvement over TCP+noNC (paired per seed, mean ± 95% CI) beside the "
                        "paper's (stars: the numbers its text gives, at 1 and 11 Mbit/s).")
        out.figures.append(FigureOut(fname, ftitle, fig, caption))
        out.summary[fname] = store
    return out


def _fig7_paper_panel(ax, df, key: str, xlabel: str) -> None:
    """X's improvement over noNC vs capacity, ours (lines) and the paper's (stars, dashed)."""
    imp = improvements(df, [key], "scheme", "none")
    schemes = [s for s in SCHEMES if s != "none"]
    line_panel(ax, imp, key, "scheme", "improvement_pct", schemes, {s: f"{LABELS[s]} (ours)" for s in schemes},
               "X: improvement over TCP+noNC, ours and the paper's", xlabel,
               ylabel="Improvement over TCP+noNC (%)", colors=COLORS, logx=True)
    for scheme in schemes:
        pts = PAPER_FIG7_X[scheme]
        ax.plot(list(pts), [p.value for p in pts.values()], marker="*", markersize=12, linestyle="--",
                linewidth=1, color=COLORS[scheme], markeredgecolor="k", label=f"{LABELS[scheme]} (paper)")
    # line_panel starts the axis at 0; improvements may be negative, the paper's reach 42%.
    vals = [v for v in imp["improvement_pct"].tolist() if math.isfinite(v)]
    vals += [p.value for pts in PAPER_FIG7_X.values() for p in pts.values()]
    ax.set_ylim(min([0.0] + vals) - 3.0, max(vals) + 5.0)
    ax.axhline(0, color="k", linewidth=0.8)
    ax.set_xticks(CAPACITIES, [f"{c:g}" for c in CAPACITIES])
    ax.legend(fontsize=8)


def _wheel(results: dict) -> Analysis:
    """Fig. 6: the wheel, total throughput vs the number of flows."""
    df = _totals(results, "wheel", "flows")
    fig, ax = grid_figure(6.5, 4.5)
    ax = ax[0, 0]
    line_panel(ax, df, "flows", "scheme", "throughput_kbps", SCHEMES, LABELS, "Wheel", "Number of flows",
               colors=COLORS)
    ax.set_xticks(WHEEL_FLOWS)
    ax.legend(fontsize=8)
    return Analysis(summary={"fig6_wheel": _curve_summary(df, "flows")}, figures=[FigureOut(
        "fig6_wheel", "Fig. 6: wheel, total throughput vs number of flows", fig,
        f"Buffer {BUFFER_PACKETS}, {CAPACITY_MBPS:g} Mbit/s; mean ± 95% CI.")])


def _butterfly(results: dict, num: dict) -> Analysis:
    """Fig. 9 (butterfly): noNC, one-hop COPE and NCAQM, BFLY, NCAQM over two-hop coding, vs buffer and
    capacity: the figure, the table beside the paper's numbers, summary["fig9_butterfly"]."""
    import pandas as pd

    opt9 = num["butterfly"]
    paper9 = {size: {k: v.value if isinstance(v, PaperNumber) else v for k, v in pb.items()}
              for size, pb in PAPER_FIG9.items()}
    b9 = {"schemes": BFLY_LABELS, "paper": paper9, "optimal_pct": {"bfly": opt9["bfly"], "cope": opt9["cope"]}}
    fig, axs = grid_figure(10.0, 7.8, 2, 2)
    rows9 = []
    for col, (kind, key, xlabel, xs) in enumerate((("buffer", "mac.queue_packets", "Buffer size (packets)", BUFFERS),
                                                   ("capacity", "mac.data_rate_mbps", "Channel capacity (Mbit/s)",
                                                    CAPACITIES))):
        df = _butterfly_totals(results, kind, key)
        logx = kind == "capacity"
        line_panel(axs[0, col], df, key, "scheme", "throughput_kbps", BFLY_SCHEMES, BFLY_LABELS,
                   f"({'ab'[col]}) total throughput vs {kind}", xlabel, colors=BFLY_COLORS, logx=logx)
        imp = improvements(df, [key], "scheme", "none")
        line_panel(axs[1, col], imp, key, "scheme", "improvement_pct", BFLY_SCHEMES[1:], BFLY_LABELS,
                   f"({'ab'[col]}) improvement over TCP+noNC vs {kind}", xlabel,
                   ylabel="Improvement over TCP+noNC (%)", colors=BFLY_COLORS, logx=logx)
        # line_panel starts the axis at 0; improvements may be negative (and the paper's up to 65%).
        vals = [v for v in imp["improvement_pct"].tolist() if math.isfinite(v)]
        top = max([opt9["bfly"]] + [pb[sc] for pb in paper9.values() for sc in ("bfly", "ncaqm")] + vals)
        axs[1, col].set_ylim(min([0.0] + vals) - 3.0, top + 5.0)
        axs[1, col].axhline(0, color="k", linewidth=0.8)
        axs[1, col].axhline(opt9["bfly"], color=BFLY_COLORS["bfly"], linestyle=":", linewidth=1,
                            label=f"optimum with BFLY (ncmesh.num) {opt9['bfly']:.0f}%")
        if kind == "buffer":
            for size in ("small", "large"):
                pb = paper9[size]
                for scheme in ("bfly", "ncaqm"):
                    axs[1, col].plot([pb["buffer"]], [pb[scheme]], marker="*", markersize=11, linestyle="none",
                                     color=BFLY_COLORS[scheme], markeredgecolor="k",
                                     label=f"paper {BFLY_LABELS[scheme]}" if size == "small" else None)
        for a in axs[:, col]:
            if logx:
                a.set_xticks(CAPACITIES, [f"{c:g}" for c in CAPACITIES])
            a.legend(fontsize=7)
        stats = stats_by(df, ["scheme", key], "throughput_kbps")
        istats = stats_by(imp, ["scheme", key], "improvement_pct")
        out: dict = {}
        for x in xs:
            xk = f"{x:g}"
            e: dict = {}
            m, ci, n = stats.get(("none", x), (math.nan, math.nan, 0))
            e["none_kbps"], e["none_kbps_ci95"], e["n"] = m, ci, n
            row = {"panel": f"({'ab'[col]}) {kind}", "x": f"{x:g} packets" if kind == "buffer" else f"{x:g} Mbit/s",
                   "noNC kbit/s": fmt_ci(m, ci, 0)}
            for scheme in BFLY_SCHEMES[1:]:
                m, ci, _ = stats.get((scheme, x), (math.nan, math.nan, 0))
                im, ici, k = istats.get((scheme, x), (math.nan, math.nan, 0))
                e[f"{scheme}_kbps"], e[f"{scheme}_kbps_ci95"] = m, ci
                e[f"{scheme}_improvement_pct"], e[f"{scheme}_improvement_ci95"] = im, ici
                row[f"{BFLY_LABELS[scheme]} ours (%)"] = fmt_ci(im, ici, 1)
            paper = next((pb for pb in paper9.values() if kind == "buffer" and pb["buffer"] == x), None)
            for scheme in ("bfly", "ncaqm"):
                e[f"paper_{scheme}_pct"] = paper[scheme] if paper else None
                row[f"{BFLY_LABELS[scheme]} paper (%)"] = paper[scheme] if paper else "-"
            e["optimal_pct"] = opt9["bfly"]
            e["paper_optimal_pct"] = paper["optimal"] if paper else None
            row["Optimal BFLY ours (ncmesh.num, %)"] = f"{opt9['bfly']:.1f}"
            row["Optimal paper (%)"] = "-" if not paper or paper["optimal"] is None else paper["optimal"]
            row["seeds"] = n
            out[xk] = e
            rows9.append(row)
        b9[kind] = out
    figure = FigureOut(
        "fig9_butterfly", "Fig. 9: butterfly, total throughput and improvement vs buffer size and capacity", fig,
        f"Top: total throughput, mean ± 95% CI over seeds. Bottom: improvement over TCP+noNC, paired per seed. "
        f"TCP+BFLY: COPE's FIFO plus two-hop codes; TCP+NCAQM (two-hop): NCAQM with scheme.xor.two_hop = true (the "
        f"paper's NCAQM on the butterfly); one-hop COPE and NCAQM are extra series. Stars: the paper's numbers "
        f"(small buffer set at {paper9['small']['buffer']}, large at {paper9['large']['buffer']} packets); "
        f"dotted: the NUM optimum with BFLY ({opt9['bfly']:.0f}%). Capacity panels at buffer {BUFFER_PACKETS}, "
        f"buffer panels at {CAPACITY_MBPS:g} Mbit/s.")
    table = TableOut(
        "fig9_butterfly", "Fig. 9: butterfly, improvement over TCP+noNC (ours: mean ± 95% CI over seeds, paired; "
                          "the paper's beside)", pd.DataFrame(rows9),
        note=(f"The paper gives a 'small' and a 'large' buffer without sizes: set here beside our "
              f"{paper9['small']['buffer']} and {paper9['large']['buffer']} packets. Optimal: NUM optimum "
              f"with BFLY over no coding, ncmesh.num ({opt9['bfly']:.1f}%; with one-hop COPE only: "
              f"{opt9['cope']:.1f}%)."))
    return Analysis(summary={"fig9_butterfly": b9}, tables=[table], figures=[figure])


def _appendix_a(num: dict) -> Analysis:
    """Appendix A: primal-dual convergence of the NUM model (ncmesh.num)."""
    fig, axes = grid_figure(10.0, 8.5, 3, 2)
    conv_sum = {}
    for (ax_x, ax_q), kind in zip(axes, ("alice-bob", "x", "butterfly")):
        c = num["convergence"][kind]
        h = c["history"]
        for s, name in enumerate(h.flows):
            ax_x.plot(h.iterations, h.x[:, s], label=f"x {name}")
        ax_x.plot(h.iterations, h.total, color="k", label="total")
        ax_x.axhline(c["optimum_total"], color="k", linestyle=":", label=f"optimum {c['optimum_total']:.3f}")
        ax_x.set_title(f"{kind} ({c['coding']}): rates", fontsize=10)
        ax_x.set_xlabel("iteration")
        ax_x.legend(fontsize=7)
        for j, ha in enumerate(h.hyperarcs):
            ax_q.plot(h.iterations, h.q[:, j], label=f"q {ha.tx}->{','.join(map(str, ha.rx))}")
        ax_q.set_title(f"{kind}: h-queue multipliers q", fontsize=10)
        ax_q.set_xlabel("iteration")
        ax_q.legend(fontsize=6, ncols=2)
        conv_sum[kind] = {"coding": c["coding"], "optimum_total": c["optimum_total"], "final_total": c["final_total"],
                          "final_rates": [float(v) for v in h.rates],
                          "relative_error": abs(c["final_total"] - c["optimum_total"]) / c["optimum_total"]}
    figure = FigureOut("appA_convergence", "Appendix A: primal-dual convergence (ncmesh.num)", fig,
                       "Unit link capacities; 20000 iterations, step 0.05; dotted: the exact optimum (cvxpy). "
                       "The butterfly uses BFLY (two-hop) coding in the NUM model.")
    return Analysis(summary={"appendix_a": conv_sum}, figures=[figure])


def _counters(results: dict) -> Analysis:
    """Coding counters of the Table I runs and the butterfly (sum over nodes, mean over seeds)."""
    import pandas as pd

    def rows(part: str, topology: str, scheme_labels: dict) -> list[dict]:
        c = per_run_counters(results[part], ["mac.queue_packets", "scheme.name"])
        c = c[c["mac.queue_packets"] == BUFFER_PACKETS]
        out = []
        for scheme, label in scheme_labels.items():
            g = c[c["scheme.name"] == scheme]
            r = {"topology": topology, "scheme": label}
            for col in [k for k in g.columns if k not in ("mac.queue_packets", "scheme.name", "seed", "run_key")]:
                r[col] = round(float(g[col].mean()), 1) if len(g) else math.nan
            out.append(r)
        return out

    crow = []
    for topo in TOPOLOGIES:
        crow += rows(f"{topo}-buffer", TOPO_LABEL[topo], {s: LABELS[s] for s in SCHEMES})
    crow += rows("butterfly-buffer", "butterfly", {"none": BFLY_LABELS["none"], "cope": BFLY_LABELS["cope"],
                                                   "ncaqm": BFLY_LABELS["ncaqm_one_hop"], "bfly": BFLY_LABELS["bfly"]})
    crow += rows("butterfly-buffer-two-hop", "butterfly", {"ncaqm": BFLY_LABELS["ncaqm"]})
    counters = pd.DataFrame(crow)
    return Analysis(summary={"coding_counters": counters.to_dict("records")}, tables=[TableOut(
        "coding_counters", f"Coding counters (sum over nodes, mean over seeds; buffer {BUFFER_PACKETS}, "
                           f"{CAPACITY_MBPS:g} Mbit/s)", counters)])


def _timers(results: dict) -> Analysis:
    """Fig. 7's cause on X: COPE's and NCAQM's improvement over noNC per capacity with adaptive recovery timers
    (the x-capacity part) and with the fixed 0.2 s / 0.25 s ones, beside the counters that cost airtime."""
    import pandas as pd

    key = "mac.data_rate_mbps"
    none = _totals(results, "x-capacity", key)
    none = none[none["scheme"] == "none"]
    rows, store = [], {}
    for timers, part in (("adaptive", "x-capacity"), ("fixed", "x-capacity-fixed-timers")):
        df = _totals(results, part, key)
        imp = improvements(pd.concat([none, df[df["scheme"] != "none"]]), [key], "scheme", "none")
        c = per_run_counters(results[part], [key, "scheme.name"])
        for (cap, scheme), g in imp.groupby([key, "scheme"]):
            m, ci, n = mean_ci(g["improvement_pct"])
            cc = c[(c[key] == cap) & (c["scheme.name"] == scheme)]
            tx = cc["native_tx"] + cc["coded_tx"] + cc["control_tx"]
            r = {"capacity_mbps": cap, "scheme": LABELS[scheme], "timers": timers,
                 "improvement": fmt_ci(m, ci, 1, "%"),
                 "coding_retransmissions": round(float(cc["coding_retransmissions"].mean()), 1),
                 "decode_failures": round(float(cc["decode_failures"].mean()), 1),
                 "control_share_pct": round(float((cc["control_tx"] / tx).mean() * 100.0), 1)}
            rows.append(r)
            store.setdefault(timers, {}).setdefault(scheme, {})[f"{cap:g}"] = {
                "improvement_pct": m, "ci95": ci, "n": n, **{k: r[k] for k in (
                    "coding_retransmissions", "decode_failures", "control_share_pct")}}
    table = pd.DataFrame(rows).sort_values(["scheme", "capacity_mbps", "timers"])
    return Analysis(summary={"fig7_timers": store}, tables=[TableOut(
        "fig7_timers", "Fig. 7's cause on X: improvement over noNC with adaptive and fixed recovery timers "
                       "(control_share_pct = control frames / all XOR-layer frames)", table)])


def _claims(summary: dict) -> list[Claim]:
    """The paper's claims, each checked on our numbers: Table I, Figs. 5, 6, 7, 9."""
    t1, buf, cap = summary["table1"], summary["fig5_buffer"], summary["fig7_capacity"]
    return (_table1_claims(t1) + _buffer_claims(buf) + _wheel_claims(summary["fig6_wheel"]) + _capacity_claims(cap)
            + _butterfly_claims(summary["fig9_butterfly"]))


def _imp(store: dict, scheme: str, x: str) -> tuple[float, float]:
    e = store.get(scheme, {}).get(x, {})
    return e.get("improvement_pct", math.nan), e.get("improvement_ci95", math.nan)


def _kbps(store: dict, scheme: str, x: str) -> float:
    return store.get(scheme, {}).get(x, {}).get("mean_kbps", math.nan)


def _table1_claims(t1: dict) -> list[Claim]:
    load = t1["grid"].get("relay_load_simulated_layouts") or {}
    most, share = load.get("max_flows_at_relay", 0), load.get("share_time_4plus_at_a_relay", 0.0)
    both = "; ".join(f"{TOPO_LABEL[t]}: NCAQM {pct(t1[t]['ncaqm_improvement_pct'])} ± "
                     f"{t1[t]['ncaqm_improvement_ci95']:.1f}, COPE {pct(t1[t]['cope_improvement_pct'])} ± "
                     f"{t1[t]['cope_improvement_ci95']:.1f}" for t in TOPOLOGIES)
    return [
        Claim("Table I: TCP+NCAQM and TCP+COPE improve on TCP+noNC in all four topologies (NCAQM 18-39%, COPE 8-21%)",
              both, all_of(gain(t1[t][f"{s}_improvement_pct"], t1[t][f"{s}_improvement_ci95"])
                           for t in TOPOLOGIES for s in ("ncaqm", "cope")), GAIN),
        Claim("Table I: TCP+NCAQM about doubles TCP+COPE's improvement over TCP+noNC in all four topologies.",
              "; ".join(f"{TOPO_LABEL[t]}: {t1[t]['ncaqm_improvement_pct']:+.1f}% vs "
                        f"{t1[t]['cope_improvement_pct']:+.1f}%" for t in TOPOLOGIES),
              all_of(ratio_at_least(t1[t]["ncaqm_improvement_pct"], t1[t]["cope_improvement_pct"], 1.5)
                     for t in TOPOLOGIES), NCAQM_OVER_COPE),
        Claim("Table I: the improvements are near the paper's (within the CI or 5 points)",
              "; ".join(f"{TOPO_LABEL[t]}: {t1[t]['ncaqm_improvement_pct']:+.0f} / "
                        f"{t1[t]['cope_improvement_pct']:+.0f} vs {PAPER_TABLE1[t]['ncaqm']} / "
                        f"{PAPER_TABLE1[t]['cope']}" for t in TOPOLOGIES),
              all_of(near(t1[t][f"{s}_improvement_pct"], t1[t][f"{s}_improvement_ci95"], PAPER_TABLE1[t][s].value)
                     for t in TOPOLOGIES for s in ("ncaqm", "cope")), GAIN),
        Claim("Sec. VI-B (grid): during part of the run four or more flows meet at a relay",
              f"at most {most} active flows at one relay; some relay carries four or more during "
              f"{100 * share:.0f}% of the measurement window (mean over the {load.get('grids', 0)} simulated grids; "
              f"{load.get('mean_active_flows', math.nan):.1f} flows active on average)",
              Check(most >= 4 and share > 0, "the most flows at one relay >= 4, for a share of the window > 0"),
              GAIN),
    ]


def _buffer_claims(buf: dict) -> list[Claim]:
    lo, hi = str(BUFFERS[0]), str(BUFFERS[-1])
    flat = {t: (_kbps(buf[t], "none", hi) - _kbps(buf[t], "none", lo)) / _kbps(buf[t], "none", lo) * 100
            for t in TOPOLOGIES}
    grow = {(t, s): (_imp(buf[t], s, lo)[0], _imp(buf[t], s, hi)[0]) for t in TOPOLOGIES for s in ("cope", "ncaqm")}
    below = [(t, b) for t in TOPOLOGIES for b in map(str, BUFFERS)
             if _kbps(buf[t], "ncaqm", b) < _kbps(buf[t], "cope", b)]
    xn, xnci = _imp(buf["x"], "ncaqm", hi)
    xc = _kbps(buf["x"], "ncaqm", hi) / _kbps(buf["x"], "cope", hi) * 100 - 100
    return [
        Claim("Fig. 5: TCP+noNC is flat in the buffer size",
              f"noNC change from {lo} to {hi} packets: " + ", ".join(f"{TOPO_LABEL[t]} {flat[t]:+.1f}%"
                                                                    for t in TOPOLOGIES),
              all_of((within(v, 10) for v in flat.values()), "every change within ±10%"), TRENDS),
        Claim("Fig. 5: COPE's and NCAQM's gains grow with the buffer size",
              f"improvement at {hi} minus at {lo} packets (points): " + ", ".join(
                  f"{TOPO_LABEL[t]} COPE {grow[(t, 'cope')][1] - grow[(t, 'cope')][0]:+.1f}, "
                  f"NCAQM {grow[(t, 'ncaqm')][1] - grow[(t, 'ncaqm')][0]:+.1f}" for t in TOPOLOGIES),
              all_of(rises(first, last) for first, last in grow.values()), TRENDS),
        Claim("Fig. 5: NCAQM stays above COPE at every buffer size",
              "NCAQM below COPE at " + (", ".join(f"{TOPO_LABEL[t]} {b}" for t, b in below) if below else "no point")
              + f" (of {len(TOPOLOGIES) * len(BUFFERS)})",
              all_of(at_least(_kbps(buf[t], "ncaqm", b), _kbps(buf[t], "cope", b))
                     for t in TOPOLOGIES for b in map(str, BUFFERS)), NCAQM_OVER_COPE),
        Claim("Fig. 5 (X, large buffer): NCAQM ≈ +40% over noNC (above the 33% optimum) and +7% over COPE",
              f"at {hi} packets: NCAQM {fmt_ci(xn, xnci, 1, '%', sign=True)} over noNC, {xc:+.1f}% over COPE",
              near(xn, xnci, PAPER_X_LARGE_BUFFER.value) & more(xc, 0), GAIN, PAPER_X_LARGE_BUFFER),
    ]


def _wheel_claims(wheel: dict) -> list[Claim]:
    wf = [str(f) for f in WHEEL_FLOWS]
    first, last = wf[0], wf[-1]
    return [
        Claim("Fig. 6 (wheel): TCP+noNC falls as flows are added",
              f"noNC {_kbps(wheel, 'none', first):.0f} -> {_kbps(wheel, 'none', last):.0f} kbit/s ({first} -> "
              f"{last} flows)", falls(_kbps(wheel, "none", first), _kbps(wheel, "none", last)), TRENDS),
        Claim("Fig. 6 (wheel): COPE and NCAQM rise with the number of flows, NCAQM above COPE",
              f"COPE {_kbps(wheel, 'cope', first):.0f} -> {_kbps(wheel, 'cope', last):.0f}, NCAQM "
              f"{_kbps(wheel, 'ncaqm', first):.0f} -> {_kbps(wheel, 'ncaqm', last):.0f} kbit/s; NCAQM above COPE at "
              f"{sum(_kbps(wheel, 'ncaqm', f) >= _kbps(wheel, 'cope', f) for f in wf)} of {len(wf)} flow counts",
              all_of(rises(_kbps(wheel, s, first), _kbps(wheel, s, last)) for s in ("cope", "ncaqm"))
              & all_of(at_least(_kbps(wheel, "ncaqm", f), _kbps(wheel, "cope", f)) for f in wf), TRENDS),
    ]


def _capacity_claims(cap: dict) -> list[Claim]:
    c0, c1 = f"{CAPACITIES[0]:g}", f"{CAPACITIES[-1]:g}"
    n0, n1 = _imp(cap["x"], "ncaqm", c0)[0], _imp(cap["x"], "ncaqm", c1)[0]
    k0, k1 = _imp(cap["x"], "cope", c0)[0], _imp(cap["x"], "cope", c1)[0]
    return [
        Claim("Fig. 7 (X): NCAQM's improvement grows 40% -> 42% and COPE's falls 27% -> 16% as capacity grows",
              f"{c0} -> {c1} Mbit/s: NCAQM {n0:+.1f}% -> {n1:+.1f}%, COPE {k0:+.1f}% -> {k1:+.1f}%",
              all_of([at_least(n1, n0), more(n0, 0), more(k1, 0), less(k1, k0)],
                     "trend of the means, first against last point; both positive"), TRENDS),
    ]


def _butterfly_claims(b9: dict) -> list[Claim]:
    lo, hi = str(BUFFERS[0]), str(BUFFERS[-1])
    claims = []
    for size in ("small", "large"):
        pb = PAPER_FIG9[size]
        e = b9["buffer"][str(pb["buffer"])]
        claims.append(Claim(
            f"Fig. 9 (butterfly, {size} buffer): BFLY +{pb['bfly']}%, NCAQM +{pb['ncaqm']}%",
            f"buffer {pb['buffer']}: BFLY {fmt_ci(e['bfly_improvement_pct'], e['bfly_improvement_ci95'], 1, '%', sign=True)}, "
            f"NCAQM (two-hop) {fmt_ci(e['ncaqm_improvement_pct'], e['ncaqm_improvement_ci95'], 1, '%', sign=True)}",
            all_of(near(e[f"{s}_improvement_pct"], e[f"{s}_improvement_ci95"], pb[s].value) for s in ("bfly", "ncaqm")),
            BUTTERFLY))
    buffers = b9["buffer"]
    not_above = [b for b in map(str, BUFFERS) if buffers[b]["ncaqm_kbps"] <= buffers[b]["bfly_kbps"]]
    claims.append(Claim(
        "Fig. 9 (butterfly): NCAQM above BFLY, both gains growing with the buffer",
        "NCAQM (two-hop) at or below BFLY at " + (", ".join(not_above) if not_above else "no") + " buffer sizes; "
        f"gain {lo} -> {hi}: BFLY {buffers[lo]['bfly_improvement_pct']:+.1f}% -> "
        f"{buffers[hi]['bfly_improvement_pct']:+.1f}%, NCAQM {buffers[lo]['ncaqm_improvement_pct']:+.1f}% "
        f"-> {buffers[hi]['ncaqm_improvement_pct']:+.1f}%",
        all_of(more(buffers[b]["ncaqm_kbps"], buffers[b]["bfly_kbps"]) for b in map(str, BUFFERS))
        & all_of(rises(buffers[lo][f"{s}_improvement_pct"], buffers[hi][f"{s}_improvement_pct"])
                 for s in ("bfly", "ncaqm")), BUTTERFLY))
    return claims


def _notes(quick: bool) -> Analysis:
    notes = ["Chosen values (the paper's were lost): " + "; ".join([
        f"receive range {RANGE_M:g} m, carrier-sense and interference range {CS_RANGE_M:g} m (GloMoSim's default "
        "radio senses 10 dB below its reception threshold, -91 vs -81 dBm; two-ray path loss: 10^(10/40) = 1.78x)",
        f"loss {LOSS_RATE:g} on every link, {LOSS_FRAMES} frames (uniform [[loss]] rule on the range channel, "
        "so every link has exactly the paper's 15% average; residual after 5 tries 0.008%)",
        f"buffer {BUFFER_PACKETS} packets (Table I, 'BDP')", f"capacity {CAPACITY_MBPS:g} Mbit/s",
        f"packets {PACKET_BYTES} B", f"runs {(QUICK if quick else FULL)['duration']:g} s measured from "
        f"{MEASURE_START_S:g} s", f"flows start uniformly in [{START_S:g}, {START_S + START_SPREAD_S:g}) s "
        "(drawn by the builder seed, which follows the run seed: every replicate has its own start times, the "
        "same for every scheme)", f"X radius {X_SPACING_M:g} m",
        f"grid: the paper's cell grid ({GRID_KIND} {GRID}: rows x cols cells of `cell` m, 1-2 nodes each, relays "
        "drawn in neighbouring cells, Poisson flow arrivals at arrival_rate flows/s living exponential times of mean "
        "lifetime s), one random layout and flow sequence per seed"]) + ".",
        "Fig. 9: TCP+NCAQM is NCAQM over two-hop coding (scheme.xor.two_hop = true, its own sweep parts "
        "butterfly-*-two-hop, same seeds); TCP+BFLY is scheme \"bfly\"; one-hop COPE and NCAQM are extras."]
    if quick:
        notes.append(f"Quick mode: {QUICK['seeds']} seeds, {QUICK['duration']:g} s runs; the full mode has "
                     f"{FULL['seeds']} seeds and {FULL['duration']:g} s.")
    return Analysis(notes=notes)


def _highlights(summary: dict) -> Analysis:
    """Table I's and the butterfly's headline numbers beside the paper's."""
    t1, b9 = summary["table1"], summary["fig9_butterfly"]
    highlights = []
    for topo in TOPOLOGIES:
        e, paper = t1[topo], PAPER_TABLE1[topo]
        highlights.append((f"{TOPO_LABEL[topo]}: NCAQM / COPE (paper {paper['ncaqm']}% / {paper['cope']}%)",
                           f"{pct(e['ncaqm_improvement_pct'])} / {pct(e['cope_improvement_pct'])}",
                           "good" if e["ncaqm_improvement_pct"] > e["cope_improvement_pct"] else "bad"))
    for size in ("small", "large"):
        pb = PAPER_FIG9[size]
        e = b9["buffer"][str(pb["buffer"])]
        highlights.append((f"butterfly, buffer {pb['buffer']}: NCAQM / BFLY (paper {pb['ncaqm']}% / {pb['bfly']}%)",
                           f"{pct(e['ncaqm_improvement_pct'])} / {pct(e['bfly_improvement_pct'])}",
                           "good" if e["ncaqm_improvement_pct"] > e["bfly_improvement_pct"] > 0 else "bad"))
    return Analysis(highlights=highlights)


def _butterfly_totals(results: dict, kind: str, key: str):
    """Per-run totals of the butterfly's `kind` part ("buffer"/"capacity") with the
    two-hop NCAQM runs merged in: scheme "ncaqm" = NCAQM over two-hop coding, the one-hop
    NCAQM runs renamed "ncaqm_one_hop"."""
    import pandas as pd

    one = per_run_total(results[f"butterfly-{kind}"], [key, "scheme.name"]).rename(columns={"scheme.name": "scheme"})
    one["scheme"] = one["scheme"].replace({"ncaqm": "ncaqm_one_hop"})
    two = per_run_total(results[f"butterfly-{kind}-two-hop"], [key, "scheme.name"]).rename(
        columns={"scheme.name": "scheme"})
    return pd.concat([one, two], ignore_index=True)


def _curve_summary(df, key: str) -> dict:
    """{scheme: {x: {mean, ci95, n, improvement_pct}}} of total throughput."""
    out: dict = {}
    stats = stats_by(df, ["scheme", key], "throughput_kbps")
    imp = improvements(df, [key], "scheme", "none")
    istats = stats_by(imp, ["scheme", key], "improvement_pct") if len(imp) else {}
    for (scheme, x), (m, ci, n) in stats.items():
        im = istats.get((scheme, x), (math.nan, math.nan, 0))
        out.setdefault(str(scheme), {})[f"{x:g}" if isinstance(x, float) else str(x)] = {
            "mean_kbps": m, "ci95_kbps": ci, "n": n, "improvement_pct": im[0], "improvement_ci95": im[1]}
    return out
