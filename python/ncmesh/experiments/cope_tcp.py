"""cope-tcp: Xu, Bai, Wu, Ding, TCP over COPE (docs/papers.md): TCP-NewReno / FeW / AP with and
without COPE on the chain, X-I and X-II; Encode Once; network-coding-aware TCP-AP (Figs. 3, 5,
7, 8, 9).

`analyze` joins one part per figure with its table and the paper's claims on it (`_chain`,
`_x`, `_x1_enhancements`), the coding counters, the claims table and notes; the X topologies'
table is the report's main table."""

from __future__ import annotations

import dataclasses
import math

from .common import (seeds_for, CLAIM_TOLERANCE_PP, Analysis, Claim, ClaimGroup, FigureOut, PaperNumber, TableOut, all_of,
                     at_most, claims_part, fmt_ci, gain, less, loss, more, near, no_change, not_loss, sweep_base)
from .figures import grid_figure
from .measures import improvements, mean_ci, paired_change, per_run_counters, per_run_total, stats_by

NAME = "cope-tcp"
TITLE = "TCP NewReno / FeW / AP over COPE, Encode Once, NC-aware TCP (Xu et al., TCP over COPE: Figs. 3, 5, 7, 8, 9)"
DESCRIPTION = """
Xu, Bai, Wu, Ding, TCP with network coding (docs/papers.md; ns-2): FTP bulk flows on ns-2's defaults (`preset = "ns2"`:
its TCP agent, 802.11 with RTS/CTS, the two-ray PHY with 250 m reception, 550 m carrier sense and 10 dB capture) at the
paper's 2 Mbit/s, flows starting at random in [2 s, 3 s]. Three TCPs (`tcp.variant` newreno,
few, ap) with and without COPE (`scheme.name = "cope"`) on a chain of 200 m hops
(Fig. 3), the 5-node X-I (Fig. 5) and the 9-node X-II with two 4-hop flows crossing at a
shared centre node (Fig. 7, built here as an explicit scenario with routes); COPE with
Encode Once (`scheme.xor.encode_once`, Fig. 8) and network-coding-aware TCP-AP
(`tcp.variant = "nc-aware"`, Fig. 9). The metric is network goodput (sum of the flows'
goodputs), mean over seeds with a 95% confidence interval. The paper printed no numbers
for its figures; its claims stand beside ours as the reference column.
"""

# ---- chosen values (lost or unstated in the paper; docs/assumptions.md) ----
# The set-up is ns-2's (the paper's simulator, `preset = "ns2"`) where the paper says nothing: its TCP agent
# (window 20 packets, initial window 2, minimum RTO 0.2 s, no delayed ACKs), RTS/CTS before every frame, a
# 50-packet queue, and two-ray ground with RXThresh_ at 250 m (the paper's range) and CSThresh_ at 550 m.
DATA_RATE_MBPS = 2.0        # the paper: 2 Mbit/s
SPACING_M = 200.0           # chain and X-II spacing (the paper)
X1_SPACING_M = 150.0        # X-I arm length (lost): n2 must overhear n3 and n4 must overhear n0 for any
                            # coding gain; at 200 m they are 283 m apart (> 250 m), at 150 m 212 m
START_S, START_SPREAD_S = 2.0, 1.0       # flows start uniformly in [2 s, 3 s) (the paper)
BUILDER_SEED = "run"        # the builders draw the start times from their seed, which follows each run's seed
                            # (sweep base.options.seed = "run"): every replicate has its own, the same for every
                            # TCP and scheme of that seed (paired comparisons)
MEASURE_START_S = 10.0      # goodput measured from 10 s (lost)
CHAIN_HOPS = [1, 2, 3, 4, 5, 6, 7, 8]    # Fig. 3 hop counts (lost)
PACKET_BYTES = 1000         # TCP segment payload (lost): ns-2's packetSize_
VARIANTS = ["newreno", "few", "ap"]
VLABEL = {"newreno": "TCP-NewReno", "few": "TCP-FeW", "ap": "TCP-AP", "nc-aware": "NC-aware TCP-AP"}

QUICK = {"seeds": 3, "duration": 40.0}
FULL = {"seeds": 10, "duration": 120.0}

# The paper's numbers (none survive in its figures except these).
PAPER_EO_GAIN_PCT = {v: PaperNumber(x, "Fig. 8") for v, x in               # COPE + Encode Once over COPE, X-I
                     {"newreno": 5.0, "few": 4.0, "ap": 2.0}.items()}
PAPER_NCAWARE_GAIN_PCT = PaperNumber(12.0, "Fig. 9")                          # NC-aware + COPE over TCP-AP + COPE

# The classes of the paper's claims; what ncmesh concludes where they do not hold is written from each
# run's numbers (`_conclusions`), and docs/results/cope-tcp.md explains it.
DOC = "docs/results/cope-tcp.md"
CHAIN = ClaimGroup("the chain", "", f"{DOC}, Claims and Why")
X1 = ClaimGroup("X-I", "", f"{DOC}, Why (X-I)")
X2 = ClaimGroup("X-II", "", f"{DOC}, Claims and Why (X-II)")
ENCODE_ONCE = ClaimGroup("Encode Once", "", f"{DOC}, Why (X-I)")
NC_AWARE = ClaimGroup("NC-aware TCP-AP", "", f"{DOC}, Claims and Why (X-I)")


def _conclusions(summary: dict) -> dict[str, ClaimGroup]:
    """Each class's conclusion, from this run's numbers."""
    chain = summary["fig3_cope_gain_pct"]
    x = summary["x_cope_gain_pct"]
    eo = summary["fig8_encode_once_gain_pct"]
    nca = summary["fig9_nc_aware_gain_pct"]

    def three(topo):
        return " / ".join(f"{x[f'{topo}.{v}']['cope_gain_pct']:+.1f}%" for v in VARIANTS)

    beyond = [abs(chain[v][str(h)]) for v in VARIANTS for h in CHAIN_HOPS if h >= 3
              if math.isfinite(chain[v][str(h)])]
    text = {
        CHAIN.name: "with one flow COPE can only XOR a segment with an ACK of the same flow: COPE's change at 2 hops "
                    "is " + " / ".join(f"{chain[v]['2']:+.1f}%" for v in VARIANTS) + " (NewReno / FeW / AP), and "
                    f"from 3 hops on it stays within {max(beyond, default=math.nan):.1f}% of no coding",
        X1.name: f"on X-I with {X1_SPACING_M:g} m arms COPE changes goodput by {three('x1')} (NewReno / FeW / AP): a "
                 f"large gain for every TCP, where the paper reports a marginal one and none for TCP-AP; with "
                 f"{SPACING_M:g} m arms, where the diagonal neighbours cannot overhear each other, {three('x1_200')}",
        X2.name: f"COPE's change on X-II is {three('x2')} (NewReno / FeW / AP): the crossing flows' neighbours are "
                 f"{SPACING_M * math.sqrt(2):.0f} m apart and cannot overhear each other, so the centre codes only a "
                 "flow's data with its own ACKs, as on the chain",
        ENCODE_ONCE.name: "Encode Once changes goodput by " + " / ".join(f"{eo[v]['gain_pct']:+.1f}%" for v in VARIANTS)
                          + " (NewReno / FeW / AP), against the paper's +5 / +4 / +2%",
        NC_AWARE.name: f"NC-aware TCP-AP + COPE is {fmt_ci(nca['vs_ap_cope'], nca['vs_ap_cope_ci95'], 1, '%', sign=True)} over "
                       f"TCP-AP + COPE and {nca['vs_ap_encode_once']:+.1f}% over Encode Once",
    }
    return {g.name: ClaimGroup(g.name, text[g.name], g.doc) for g in (CHAIN, X1, X2, ENCODE_ONCE, NC_AWARE)}


CLAIMS_NOTE = ("Changes are paired per seed, mean ± 95% CI. A gain or a loss holds when the CI excludes 0 on that "
               "side, 'no change' when it includes 0; Fig. 9's +12% when our CI excludes 0 and is within the CI or "
               f"{CLAIM_TOLERANCE_PP:g} points of 12; orderings on the chain compare means.")


def sweeps(quick: bool = False) -> dict[str, dict]:
    size = QUICK if quick else FULL
    seeds = seeds_for(size["seeds"], quick)
    return {
        "chain": {"name": f"{NAME}-chain", "base": _base("chain", {"spacing": SPACING_M}, size["duration"]),
                  "grid": {"hops": CHAIN_HOPS, "tcp.variant": VARIANTS, "scheme.name": ["none", "cope"]},
                  "seeds": seeds},
        "x1": {"name": f"{NAME}-x1", "base": _base("x", {"spacing": X1_SPACING_M}, size["duration"]),
               "grid": {"tcp.variant": VARIANTS + ["nc-aware"], "scheme.name": ["none", "cope"],
                        "scheme.xor.encode_once": [False, True]},
               "seeds": seeds},
        # X-I's arm length is the paper's silence: 200 m (the chain's and X-II's spacing) beside 150 m.
        "x1_200": {"name": f"{NAME}-x1-200", "base": _base("x", {"spacing": SPACING_M}, size["duration"]),
                   "grid": {"tcp.variant": VARIANTS, "scheme.name": ["none", "cope"]}, "seeds": seeds},
        "x2": {"name": f"{NAME}-x2", "base": _base("x", {"spacing": SPACING_M}, size["duration"], x2_scenario_set()),
               "grid": {"tcp.variant": VARIANTS, "scheme.name": ["none", "cope"]}, "seeds": seeds},
    }


def x2_scenario_set() -> dict:
    """X-II (Xu et al., Fig. 6): n0-n1-n2-n3-n4 horizontal and n5-n6-n2-n7-n8 vertical,
    200 m apart, crossing at n2; flows n0->n4 and n5->n8 along those lines (explicit
    routes). 9 nodes, set on top of the X builder's scenario: its two flows keep the
    start times the builder draws in [START_S, START_S + START_SPREAD_S) from its seed,
    which follows the run seed (as in the other parts); only their endpoints and routes
    change."""
    d = SPACING_M
    nodes = [{"x": -2 * d, "y": 0.0}, {"x": -d, "y": 0.0}, {"x": 0.0, "y": 0.0}, {"x": d, "y": 0.0},
             {"x": 2 * d, "y": 0.0}, {"x": 0.0, "y": 2 * d}, {"x": 0.0, "y": d}, {"x": 0.0, "y": -d},
             {"x": 0.0, "y": -2 * d}]
    out = {"name": "x2-200m", "nodes": nodes}
    for i, (src, dst, route) in enumerate(((0, 4, [0, 1, 2, 3, 4]), (5, 8, [5, 6, 2, 7, 8]))):
        out.update({f"flows.{i}.src": src, f"flows.{i}.dst": dst, f"flows.{i}.route": route,
                    f"flows.{i}.packet_bytes": PACKET_BYTES})
    return out


def _base(builder: str, options: dict, duration: float, extra_set: dict | None = None) -> dict:
    return sweep_base(builder, options,
                      {"preset": "ns2", **(extra_set or {}), "mac.data_rate_mbps": DATA_RATE_MBPS,
                       "tcp.mss_bytes": PACKET_BYTES},
                      duration=duration, start=START_S, start_spread=START_SPREAD_S, measure_start=MEASURE_START_S,
                      seed=BUILDER_SEED)


def analyze(results: dict, quick: bool = False) -> Analysis:
    chain = per_run_total(results["chain"], ["hops", "tcp.variant", "scheme.name"])
    x1 = per_run_total(results["x1"], ["tcp.variant", "scheme.name", "scheme.xor.encode_once"])
    x2 = per_run_total(results["x2"], ["tcp.variant", "scheme.name"])
    x1_200 = per_run_total(results["x1_200"], ["tcp.variant", "scheme.name"])
    # "none" with encode_once = true is the same protocol (no coding); keep encode_once = false for noNC.
    x1 = x1[~((x1["scheme.name"] == "none") & (x1["scheme.xor.encode_once"]))]
    parts = Analysis.join([_chosen(quick, chain), _chain(chain), _x(x1, x2, x1_200), _x1_enhancements(x1), _counters(results)])
    groups = _conclusions(parts.summary)
    claims = [dataclasses.replace(c, group=groups[c.group.name]) for c in parts.claims]
    parts.claims = claims
    return Analysis.join([parts, claims_part(claims, CLAIMS_NOTE), _notes(quick)], main_table="x_cope_gain",
                         scenario_note="Parts: chain (hops × TCP × scheme), x1 (TCP × scheme × Encode Once), "
                                       "x1_200 (X-I with 200 m arms: TCP × scheme), "
                                       "x2 (TCP × scheme; 9 nodes and the two flows' endpoints and routes set on the X "
                                       "builder's scenario, whose start times it keeps).")


def _chosen(quick: bool, chain) -> Analysis:
    n_seeds = int(chain.groupby(["hops", "tcp.variant", "scheme.name"]).size().max()) if len(chain) else 0
    return Analysis(summary={
        "chosen": {"preset": "ns2", "data_rate_mbps": DATA_RATE_MBPS, "spacing_m": SPACING_M,
                   "x1_spacing_m": X1_SPACING_M,
                   "start_s": [START_S, START_S + START_SPREAD_S], "builder_seed": BUILDER_SEED,
                   "measure_start_s": MEASURE_START_S,
                   "duration_s": (QUICK if quick else FULL)["duration"], "chain_hops": CHAIN_HOPS,
                   "packet_bytes": PACKET_BYTES},
        "seeds": n_seeds})


def _cfg(df, variant, scheme, eo=False):
    m = (df["tcp.variant"] == variant) & (df["scheme.name"] == scheme)
    if "scheme.xor.encode_once" in df.columns:
        m &= df["scheme.xor.encode_once"] == eo
    return df[m]


def _paired(df, a: tuple, b: tuple) -> tuple[float, float, int]:
    """Mean ± CI of the per-seed % change of configuration b over a."""
    return mean_ci(paired_change(_cfg(df, *a), _cfg(df, *b), ["seed"])["improvement_pct"])


def _chain(chain) -> Analysis:
    """Fig. 3: goodput on the chain, COPE's change per hop count, and the paper's claims on it."""
    import pandas as pd

    fig, axs = grid_figure(13.0, 4.8, 1, 2)
    ax = axs[0, 0]
    stats = stats_by(chain, ["tcp.variant", "scheme.name", "hops"], "throughput_kbps")
    colors = {"newreno": "#1f77b4", "few": "#2ca02c", "ap": "#d62728"}
    chain_sum: dict = {}
    for v in VARIANTS:
        for scheme, ls in (("none", "--"), ("cope", "-")):
            pts = sorted((k[2], s) for k, s in stats.items() if k[0] == v and k[1] == scheme)
            ax.errorbar([p[0] for p in pts], [p[1][0] for p in pts],
                        yerr=[p[1][1] if math.isfinite(p[1][1]) else 0 for p in pts], linestyle=ls, marker="o",
                        capsize=2, color=colors[v], label=f"{VLABEL[v]}{' + COPE' if scheme == 'cope' else ''}")
            chain_sum.setdefault(v, {})[scheme] = {str(h): {"mean_kbps": s[0], "ci95_kbps": s[1], "n": s[2]}
                                                   for h, s in pts}
    ax.set_xlabel("Hops")
    ax.set_ylabel("Goodput (kbit/s)")
    ax.set_title("Chain, 200 m hops", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncols=2)
    imp = improvements(chain, ["hops", "tcp.variant"], "scheme.name", "none")
    imp_stats = stats_by(imp, ["tcp.variant", "hops"], "improvement_pct")
    # COPE's effect, which the six overlapping lines hide: its change per TCP and hop count.
    ax2 = axs[0, 1]
    for v in VARIANTS:
        pts = sorted((k[1], s) for k, s in imp_stats.items() if k[0] == v)
        ax2.errorbar([p[0] for p in pts], [p[1][0] for p in pts],
                     yerr=[p[1][1] if math.isfinite(p[1][1]) else 0 for p in pts], marker="o", capsize=2,
                     color=colors[v], label=VLABEL[v])
    ax2.axhline(0, color="k", linewidth=0.8)
    ax2.set_xlabel("Hops")
    ax2.set_ylabel("COPE's change of goodput (%)")
    ax2.set_title("COPE's change, paired per seed (the paper: it improves NewReno and FeW)", fontsize=10)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8)
    figure = FigureOut("fig3_chain", "Fig. 3: goodput in the chain topology", fig,
                       "Left: goodput; dashed without COPE, solid with COPE. Right: COPE's change of goodput "
                       "per TCP (with against without, paired per seed). Mean over seeds ± 95% CI.")
    rows = []
    for v in VARIANTS:
        r = {"TCP": VLABEL[v]}
        for h in CHAIN_HOPS:
            m, ci, _ = imp_stats.get((v, h), (math.nan, math.nan, 0))
            r[f"{h} hops"] = fmt_ci(m, ci, 0, "%")
        rows.append(r)
    table = TableOut("chain_cope_gain", "Fig. 3: COPE's change of chain goodput (%, paired per seed, ± 95% CI)",
                     pd.DataFrame(rows))
    mean_gain = {v: mean_ci([imp_stats.get((v, h), (math.nan,))[0] for h in CHAIN_HOPS if h >= 2])[0]
                 for v in VARIANTS}
    cope_at = {v: {h: stats.get((v, "cope", h), (math.nan,))[0] for h in CHAIN_HOPS} for v in VARIANTS}
    longer = [h for h in CHAIN_HOPS if h >= 2]
    nr_low = [h for h in longer if cope_at["newreno"][h] <= min(cope_at["few"][h], cope_at["ap"][h])]
    ap_low = [h for h in longer if cope_at["ap"][h] <= min(cope_at["few"][h], cope_at["newreno"][h])]
    short, long_ = [h for h in CHAIN_HOPS if h <= 2], [h for h in CHAIN_HOPS if h >= 6]
    claims = [
        Claim("Fig. 3: COPE significantly improves TCP-NewReno and TCP-FeW on the chain",
              f"mean COPE change over 2-8 hops: NewReno {mean_gain['newreno']:+.1f}%, FeW {mean_gain['few']:+.1f}% "
              f"(AP {mean_gain['ap']:+.1f}%)",
              all_of((more(mean_gain[v], 5) for v in ("newreno", "few")), "mean change above +5%"), CHAIN),
        Claim("Fig. 3: TCP-NewReno is the worst choice with COPE",
              "NewReno+COPE lowest at " + (", ".join(map(str, nr_low)) or "none") + " of 2-8 hops; AP+COPE "
              "lowest at " + (", ".join(map(str, ap_low)) or "none"),
              all_of(at_most(cope_at["newreno"][h], min(cope_at["few"][h], cope_at["ap"][h])) for h in longer),
              CHAIN),
        Claim("Fig. 3: TCP-AP + COPE beats TCP-FeW + COPE on short chains and loses on long ones",
              "AP+COPE − FeW+COPE (kbit/s): " + ", ".join(
                  f"{h} hops {cope_at['ap'][h] - cope_at['few'][h]:+.0f}" for h in short + long_),
              all_of([more(cope_at["ap"][h], cope_at["few"][h]) for h in short]
                     + [less(cope_at["ap"][h], cope_at["few"][h]) for h in long_]), CHAIN),
    ]
    return Analysis(summary={"fig3_chain": chain_sum,
                             "fig3_cope_gain_pct": {v: {str(h): imp_stats.get((v, h), (math.nan,))[0]
                                                        for h in CHAIN_HOPS} for v in VARIANTS}},
                    tables=[table], figures=[figure], claims=claims)


def _bar_panel(ax, df, configs, title):
    """Bars of mean goodput ± 95% CI per (label, configuration); {label: {mean_kbps, ci95_kbps, n}}."""
    vals = []
    for label, cfg in configs:
        m, ci, n = mean_ci(_cfg(df, *cfg)["throughput_kbps"])
        vals.append((label, m, ci, n))
    xs = range(len(vals))
    ax.bar(list(xs), [v[1] for v in vals], yerr=[v[2] if math.isfinite(v[2]) else 0 for v in vals], capsize=3,
           color=["#9e9e9e" if "COPE" not in v[0] and "NC-aware" not in v[0] else "#1f77b4" if "Encode" not in v[0]
                  else "#ff7f0e" for v in vals])
    ax.set_xticks(list(xs), [v[0] for v in vals], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("Network goodput (kbit/s)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    return {v[0]: {"mean_kbps": v[1], "ci95_kbps": v[2], "n": v[3]} for v in vals}


# What the paper says of COPE's change on X-I and X-II (Figs. 5, 7 and its conclusion).
PAPER_X = {("x1", "newreno"): "marginal gain", ("x1", "few"): "marginal gain", ("x1", "ap"): "no gain",
           ("x2", "newreno"): "worse with COPE", ("x2", "few"): "worse with COPE",
           ("x2", "ap"): "no gain (conclusion: improves)"}


def _x(x1, x2, x1_200) -> Analysis:
    """Figs. 5 and 7: goodput on X-I and X-II with and without COPE, COPE's change, the paper's claims."""
    import pandas as pd

    fig, axs = grid_figure(11.0, 4.5, 1, 2)
    cfg_none_cope = [(f"{VLABEL[v]}{s}", (v, sch)) for v in VARIANTS for s, sch in (("", "none"), (" + COPE", "cope"))]
    summary = {"fig5_x1": _bar_panel(axs[0, 0], x1, cfg_none_cope, "X-I (5 nodes, 150 m arms)"),
               "fig7_x2": _bar_panel(axs[0, 1], x2, cfg_none_cope, "X-II (9 nodes, 200 m)")}
    figure = FigureOut("fig5_fig7_x", "Figs. 5 and 7: goodput in X-I and X-II, with and without COPE", fig,
                       "Mean over seeds ± 95% CI.")
    g, rows = {}, []
    label = {"x1": f"X-I ({X1_SPACING_M:g} m arms)", "x1_200": f"X-I ({SPACING_M:g} m arms)", "x2": "X-II"}
    for topo, df in (("x1", x1), ("x1_200", x1_200), ("x2", x2)):
        for v in VARIANTS:
            m, ci, n = _paired(df, (v, "none"), (v, "cope"))
            g[f"{topo}.{v}"] = {"cope_gain_pct": m, "ci95": ci, "n": n}
            rows.append({"topology": label[topo], "TCP": VLABEL[v], "COPE's change (ours)": fmt_ci(m, ci, 1, "%"),
                         "paper": PAPER_X[(topo.split("_")[0], v)]})
    summary["x_cope_gain_pct"] = g
    table = TableOut("x_cope_gain", "Figs. 5, 7: COPE's change of network goodput on X-I and X-II", pd.DataFrame(rows))

    def pm(key):
        return fmt_ci(g[key]["cope_gain_pct"], g[key]["ci95"], 1, "%", sign=True)

    def change(key):
        return g[key]["cope_gain_pct"], g[key]["ci95"]

    claims = [
        Claim("Fig. 5: on X-I COPE brings a marginal gain to TCP-NewReno and TCP-FeW",
              f"NewReno {pm('x1.newreno')}, FeW {pm('x1.few')}", gain(*change("x1.newreno")) & gain(*change("x1.few")),
              X1),
        Claim("Fig. 5: on X-I COPE brings nothing to TCP-AP (no change)", f"AP {pm('x1.ap')}", no_change(*change("x1.ap")),
              X1),
        Claim("Fig. 7: on X-II COPE hurts TCP-NewReno and TCP-FeW", f"NewReno {pm('x2.newreno')}, FeW {pm('x2.few')}",
              loss(*change("x2.newreno")) & loss(*change("x2.few")), X2),
        Claim("Fig. 7: on X-II COPE does not hurt TCP-AP (the conclusion: COPE only improves TCP-AP)",
              f"AP {pm('x2.ap')}", not_loss(*change("x2.ap")), X2),
    ]
    return Analysis(summary=summary, tables=[table], figures=[figure], claims=claims)


def _x1_enhancements(x1) -> Analysis:
    """Figs. 8 and 9 on X-I: Encode Once and NC-aware TCP-AP beside the paper's gains, and its claims."""
    import pandas as pd

    fig, axs = grid_figure(11.0, 4.5, 1, 2)
    cfg8 = [(f"{VLABEL[v]}{s}", (v, sch, eo)) for v in VARIANTS
            for s, sch, eo in (("", "none", False), (" + COPE", "cope", False), (" + COPE + Encode Once", "cope", True))]
    cfg9 = [("TCP-AP", ("ap", "none", False)), ("TCP-AP + COPE", ("ap", "cope", False)),
            ("TCP-AP + COPE + Encode Once", ("ap", "cope", True)), ("NC-aware TCP-AP + COPE", ("nc-aware", "cope", False))]
    summary = {"fig8_x1_encode_once": _bar_panel(axs[0, 0], x1, cfg8, "Fig. 8: X-I with Encode Once"),
               "fig9_x1_nc_aware": _bar_panel(axs[0, 1], x1, cfg9, "Fig. 9: TCP-AP variants on X-I")}
    figure = FigureOut("fig8_fig9_x1", "Figs. 8 and 9: Encode Once and NC-aware TCP-AP on X-I", fig,
                       "Mean over seeds ± 95% CI.")
    rows, eo = [], {}
    for v in VARIANTS:
        m, ci, n = _paired(x1, (v, "cope", False), (v, "cope", True))
        eo[v] = {"gain_pct": m, "ci95": ci, "n": n, "paper_pct": PAPER_EO_GAIN_PCT[v].value}
        rows.append({"comparison": f"{VLABEL[v]}: COPE + Encode Once vs COPE", "ours": fmt_ci(m, ci, 1, "%"),
                     "paper": f"+{PAPER_EO_GAIN_PCT[v]}%"})
    nca, nca_ci, nn = _paired(x1, ("ap", "cope", False), ("nc-aware", "cope", False))
    vs_eo, vs_eo_ci, _ = _paired(x1, ("ap", "cope", True), ("nc-aware", "cope", False))
    rows.append({"comparison": "NC-aware TCP-AP + COPE vs TCP-AP + COPE", "ours": fmt_ci(nca, nca_ci, 1, "%"),
                 "paper": f"about +{PAPER_NCAWARE_GAIN_PCT}%"})
    rows.append({"comparison": "NC-aware TCP-AP + COPE vs TCP-AP + COPE + Encode Once",
                 "ours": fmt_ci(vs_eo, vs_eo_ci, 1, "%"), "paper": "> 0 (NC-aware better)"})
    table = TableOut("x1_enhancements", "Figs. 8, 9: Encode Once and NC-aware TCP on X-I (paired per seed, "
                                        "± 95% CI), beside the paper's claims", pd.DataFrame(rows))
    summary["fig8_encode_once_gain_pct"] = eo
    summary["fig9_nc_aware_gain_pct"] = {"vs_ap_cope": nca, "vs_ap_cope_ci95": nca_ci,
                                         "paper_pct": PAPER_NCAWARE_GAIN_PCT.value,
                                         "vs_ap_encode_once": vs_eo, "vs_ap_encode_once_ci95": vs_eo_ci, "n": nn}
    claims = [
        Claim("Fig. 8: Encode Once improves on COPE by 5%, 4%, 2% (NewReno, FeW, AP)",
              ", ".join(f"{VLABEL[v]} {fmt_ci(eo[v]['gain_pct'], eo[v]['ci95'], 1, '%', sign=True)}"
                        for v in VARIANTS),
              all_of(gain(eo[v]["gain_pct"], eo[v]["ci95"]) for v in VARIANTS), ENCODE_ONCE),
        Claim("Fig. 9: NC-aware TCP-AP + COPE ≈ +12% over TCP-AP + COPE", fmt_ci(nca, nca_ci, 1, "%", sign=True),
              gain(nca, nca_ci) & near(nca, nca_ci, PAPER_NCAWARE_GAIN_PCT.value), NC_AWARE, PAPER_NCAWARE_GAIN_PCT),
        Claim("Fig. 9: NC-aware TCP-AP beats TCP-AP with Encode Once", fmt_ci(vs_eo, vs_eo_ci, 1, "%", sign=True),
              gain(vs_eo, vs_eo_ci), NC_AWARE),
    ]
    return Analysis(summary=summary, tables=[table], figures=[figure], claims=claims)


def _counters(results: dict) -> Analysis:
    """COPE's counters on X-I, X-II and the 4-hop chain (sum over nodes, mean over seeds)."""
    import pandas as pd

    crow = []
    for label, part, keys, pick in (
            ("X-I", "x1", ["tcp.variant", "scheme.name", "scheme.xor.encode_once"], None),
            (f"X-I {SPACING_M:g} m", "x1_200", ["tcp.variant", "scheme.name"], None),
            ("X-II", "x2", ["tcp.variant", "scheme.name"], None),
            ("chain 4 hops", "chain", ["hops", "tcp.variant", "scheme.name"], ("hops", 4))):
        c = per_run_counters(results[part], keys)
        if pick:
            c = c[c[pick[0]] == pick[1]]
        c = c[c["scheme.name"] == "cope"]
        for k, gdf in c.groupby([k for k in keys if k not in ("scheme.name", "hops")]):
            k = k if isinstance(k, tuple) else (k,)
            r = {"topology": label, "TCP": VLABEL[k[0]], "encode once": bool(k[1]) if len(k) > 1 else False}
            for col in [x for x in gdf.columns if x not in keys + ["seed", "run_key"]]:
                r[col] = round(float(gdf[col].mean()), 1)
            crow.append(r)
    counters = pd.DataFrame(crow)
    return Analysis(summary={"coding_counters": counters.to_dict("records")},
                    tables=[TableOut("coding_counters", "COPE's counters (sum over nodes, mean over seeds)", counters)])


def _notes(quick: bool) -> Analysis:
    notes = ["Chosen values (lost in the paper): " + "; ".join([
        "ns-2's defaults where the paper gives none (preset ns2: its TCP agent, RTS/CTS, a 50-packet queue, two-ray "
        "ground with RXThresh_ at 250 m, the paper's range, and CSThresh_ at 550 m, capture at 10 dB)",
        f"X-I arms {X1_SPACING_M:g} m (the diagonal neighbours must overhear each other: 212 m < 250 m; at 200 m "
        "they are 283 m apart and COPE could not decode)", f"chain hops {CHAIN_HOPS[0]}-{CHAIN_HOPS[-1]}",
        f"packets {PACKET_BYTES} B",
        f"runs {(QUICK if quick else FULL)['duration']:g} s measured from {MEASURE_START_S:g} s",
        "TCP-FeW alpha 0.01, TCP-AP and NC-aware (lambda) at the core's defaults",
        f"flows start uniformly in [{START_S:g}, {START_S + START_SPREAD_S:g}) s, drawn by the builder seed, which "
        "follows the run seed (every replicate has its own start times, the same for every TCP and scheme; X-II "
        "keeps the X builder's two draws)"]) + "."]
    if quick:
        notes.append(f"Quick mode: {QUICK['seeds']} seeds, {QUICK['duration']:g} s runs; full: {FULL['seeds']} seeds, "
                     f"{FULL['duration']:g} s.")
    return Analysis(notes=notes)

