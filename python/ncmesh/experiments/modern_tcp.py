"""modern-tcp: the five papers' headline set-ups under the TCP of their paper and under today's
Linux TCP (`preset = "linux"`: CUBIC, SACK, RACK-TLP, PRR, its windows and timers), and under
Linux's TCP with BBR v1 in place of CUBIC; the coding gain of each scheme under each (issue 31).

Each paper's scenarios come from its reproduction's own builders and settings (`ncaqm`,
`cope_tcp`, `wait_time`, `combocoding`, `comp`); `linux_base` turns one into the same scenario
under Linux's TCP. Parts: `<paper>-<set-up>-<series>-<tcp>` (`tcp` = "paper", "linux" or "bbr"), one
sweep each. `analyze` pairs every coded series with its no-coding baseline per seed, under
each TCP (`gains`), and joins the gains table, the figure (gain under the paper's TCP against
under Linux's), the reordering table (Takimoto et al.'s chain with the stacked placement),
the claims (one per paper, checked on Linux's numbers) and the notes."""

from __future__ import annotations

import math

from . import combocoding, comp, cope_tcp, ncaqm, wait_time
from .common import (Analysis, Claim, ClaimGroup, FigureOut, TableOut, all_of, claims_part, fmt_ci, gain, less,
                     more, seeds_for, seeds_text)
from .figures import grid_figure
from .measures import mean_ci

NAME = "modern-tcp"
TITLE = "The five papers' coding gains under their own TCP and under today's Linux TCP (CUBIC, SACK, RACK-TLP, PRR)"
DESCRIPTION = """
Each paper's headline set-up, built as its reproduction builds it, under the paper's TCP and
under `preset = "linux"` (CUBIC, SACK, RACK-TLP, PRR, initial window 10, 200 ms minimum RTO,
delayed ACKs, a 128 KiB receive buffer): NCAQM's Table I topologies (Alice-and-Bob, X, cross,
grid; TCP-SACK; COPE and NCAQM), Xu et al.'s chain and X-I (TCP-NewReno on ns-2's defaults;
COPE), Takimoto et al.'s 2-4 hop chains at a high offered rate (NewReno on ns-2's defaults;
PiggyCode, the 30 ms wait, and PiggyCode with the stacked placement, which reorders DATA),
Chen et al.'s Table 3 strings (NewReno; PiggyCode, Pipeline coding, adaptive ComboCoding; 0%
loss in 20-50 s, 40% then 20% in 50-110 s) and Gheorghiu et al.'s roofnet-like pairs (NewReno;
CoMP and TCP-ARQ; a subset of the 100 pairs, the aggregate over them). Under Linux every TCP
key the paper set is dropped so that the preset's take its place; the MAC, the channel and the
segment size stay the paper's (an ns-2 paper's MAC and PHY written out, since a scenario has
one preset). A third TCP is Linux's with BBR v1 (`tcp.variant = "bbr"` under the preset). The coding gain is each scheme's goodput change over no coding on the same seed
(and rate or pair), mean over seeds with a 95% confidence interval.
"""

TCPS = ["paper", "linux", "bbr"]
TCP_LABEL = {"paper": "the paper's TCP", "linux": "Linux's TCP", "bbr": "Linux's TCP with BBR"}
# The reordering table's names of the TCPs' recoveries.
TCP_RECOVERY = {"paper": "NewReno", "linux": "Linux (RACK)", "bbr": "BBR (RACK)"}
PAPERS = ["ncaqm", "cope-tcp", "wait-time", "combocoding", "comp"]
PAPER_LABEL = {"ncaqm": "Seferoglu & Markopoulou, NCAQM", "cope-tcp": "Xu et al., TCP over COPE",
               "wait-time": "Takimoto et al., wait-time", "combocoding": "Chen et al., ComboCoding",
               "comp": "Gheorghiu et al., CoMP"}
# The TCP each reproduction runs (the TCP a paper names, or the first of those it runs).
PAPER_TCP = {"ncaqm": "TCP-SACK (NewReno with SACK)", "cope-tcp": "TCP-NewReno (ns-2)",
             "wait-time": "TCP-NewReno (ns-2)", "combocoding": "TCP-NewReno", "comp": "TCP-NewReno"}

# ---- the set-ups: each paper's series (its baseline "none" first) and what varies within a part
NCAQM_TOPOLOGIES = ncaqm.TOPOLOGIES                   # Table I: alice-bob, x, cross, grid
NCAQM_SERIES = {s: {"scheme.name": s} for s in ncaqm.SCHEMES}
COPE_CHAIN_HOPS = [2, 4]                              # Fig. 3: COPE can pair a flow's DATA and ACKs
COPE_SERIES = {"none": {"scheme.name": "none"}, "cope": {"scheme.name": "cope"}}
WAIT_SERIES = {"none": ("none", {}), "piggycode": ("piggycode", {}),
               "wait30": ("waittime", {"scheme.piggycode.wait_s": 0.03}),
               # waittime with no wait is PiggyCode; stacked, a coded DATA can overtake older DATA of its flow
               "piggycode-stack": ("waittime", {"scheme.piggycode.wait_s": 0.0, "scheme.piggycode.placement": "stack"})}
COMBO_SERIES = ["none", "piggycode", "pipeline", "adaptive"]          # Table 3's columns
COMBO_WINDOWS = {"no loss (20-50 s)": (20.0, 50.0), "loss (50-110 s)": (50.0, 110.0)}
COMP_SERIES = ["none", "comp", "tcp-arq"]
# A baseline that carries less than this (comp's "a throughput close to 0") gives no percentage gain.
NEAR_ZERO_KBPS = comp.NEAR_ZERO_KBPS
LABELS = {"none": "no coding", "cope": "COPE", "ncaqm": "NCAQM", "piggycode": "PiggyCode", "wait30": "wait 30 ms",
          "piggycode-stack": "PiggyCode, stack", "pipeline": "Pipeline coding", "adaptive": "ComboCoding (adaptive)",
          "comp": "CoMP", "tcp-arq": "TCP-ARQ"}

# Quick: a first look (minutes). Full: the reproductions' own run lengths (Takimoto et al.'s 400 s
# halved), Table 3's 3, 5 and 7-hop strings and 20 of the 100 roofnet-like pairs.
QUICK = {"seeds": 3, "ncaqm_duration": ncaqm.QUICK["duration"], "cope_duration": cope_tcp.QUICK["duration"],
         "wait_duration": wait_time.QUICK["duration"], "wait_measure": wait_time.QUICK["measure_start"],
         "wait_rates": [1000.0], "combo_hops": [3], "comp_pairs": 10, "comp_duration": comp.QUICK["duration"],
         "comp_measure": comp.QUICK["measure_start"]}
FULL = {"seeds": 10, "ncaqm_duration": ncaqm.FULL["duration"], "cope_duration": cope_tcp.FULL["duration"],
        "wait_duration": 200.0, "wait_measure": wait_time.FULL["measure_start"], "wait_rates": [700.0, 1000.0],
        "combo_hops": [3, 5, 7], "comp_pairs": 20, "comp_duration": comp.FULL["duration"],
        "comp_measure": comp.FULL["measure_start"]}

DOC = "docs/results/modern-tcp.md"
GROUPS = {p: ClaimGroup(PAPER_LABEL[p], "", f"{DOC}, {PAPER_LABEL[p]}") for p in PAPERS}
CLAIMS_NOTE = ("Checked on Linux's numbers (`preset = \"linux\"`), with the paper's TCP beside them. Gains are "
               "paired per seed, mean ± 95% CI; 'gains' holds when the CI lies above 0, an ordering on the means.")


# ---------------------------------------------------------------- the scenarios under Linux's TCP

def linux_base(base: dict) -> dict:
    """`base` (a sweep base of a paper's reproduction) under today's TCP: `preset = "linux"`,
    every `tcp.*` key the paper set dropped except the segment size (so the preset's values
    take their place), and, for a paper on another preset (ns-2's), that preset's MAC and
    channel values written out, since a scenario names one preset."""
    from .. import _core

    out = {**base, "set": {}}
    settings = base["set"]
    if settings.get("preset"):
        options = {k: v for k, v in base.get("options", {}).items() if k != "seed"}
        built = _core.build_scenario(base["builder"], options)
        other = _core.apply_preset(built, settings["preset"])
        out["set"].update({f"{t}.{k}": v for t in ("mac", "channel") for k, v in other[t].items()
                           if built[t].get(k) != v})
        if built["tcp"]["mss_bytes"] != other["tcp"]["mss_bytes"]:
            out["set"]["tcp.mss_bytes"] = other["tcp"]["mss_bytes"]
    out["set"].update({k: v for k, v in settings.items()
                       if k != "preset" and not (k.startswith("tcp.") and k != "tcp.mss_bytes")})
    out["set"]["preset"] = "linux"
    return out


def _under(base: dict, tcp: str, paper_tcp: dict | None = None) -> dict:
    """The base under `tcp`: the paper's (with `paper_tcp` set where the reproduction's grid names
    its TCP) or Linux's."""
    if tcp == "linux":
        return linux_base(base)
    if tcp == "bbr":
        out = linux_base(base)
        out["set"]["tcp.variant"] = "bbr"
        return out
    return {**base, "set": {**base["set"], **(paper_tcp or {})}}


# ---------------------------------------------------------------- sweeps

def _parts(quick: bool) -> dict[str, tuple[str, str, dict, dict]]:
    """{part name: (paper, series, base under the paper's TCP, grid)}."""
    size = QUICK if quick else FULL
    newreno = {"tcp.variant": "newreno"}
    parts = {}
    for topo in NCAQM_TOPOLOGIES:
        builder, opts = ncaqm.TOPO_OPTIONS[topo]
        for s, settings in NCAQM_SERIES.items():
            base = ncaqm._base(builder, opts, size["ncaqm_duration"])
            base["set"].update(settings)
            parts[f"ncaqm-{topo}-{s}"] = ("ncaqm", s, base, {})
    for setup, builder, spacing, grid in (("chain", "chain", cope_tcp.SPACING_M, {"hops": COPE_CHAIN_HOPS}),
                                          ("x1", "x", cope_tcp.X1_SPACING_M, {})):
        for s, settings in COPE_SERIES.items():
            base = cope_tcp._base(builder, {"spacing": spacing}, size["cope_duration"])
            base["set"].update({**settings, **newreno})
            parts[f"cope-tcp-{setup}-{s}"] = ("cope-tcp", s, base, grid)
    timing = {"duration": size["wait_duration"], "measure_start": size["wait_measure"]}
    for s, (scheme, extra) in WAIT_SERIES.items():
        parts[f"wait-time-chain-{s}"] = ("wait-time", s, wait_time._base(timing, scheme, extra),
                                         {"hops": wait_time.HOPS, "flows.0.rate_kbps": list(size["wait_rates"])})
    for s in COMBO_SERIES:
        parts[f"combocoding-string-{s}"] = ("combocoding", s, combocoding._string_base(combocoding.STRING_SERIES[s]),
                                            {"hops": list(size["combo_hops"])})
    timing = {"duration": size["comp_duration"], "measure_start": size["comp_measure"]}
    for s in COMP_SERIES:
        base = comp._roofnet_base(timing, s)
        base["set"].update(newreno)
        parts[f"comp-pairs-{s}"] = ("comp", s, base, {"pair": list(range(size["comp_pairs"]))})
    return parts


def sweeps(quick: bool = False) -> dict[str, dict]:
    size = QUICK if quick else FULL
    seeds = seeds_for(size["seeds"], quick)
    out = {}
    for name, (_, _, base, grid) in _parts(quick).items():
        for tcp in TCPS:
            out[f"{name}-{tcp}"] = {"name": f"{NAME}-{name}-{tcp}", "base": _under(base, tcp), "grid": dict(grid),
                                    "seeds": seeds}
    return out


# ---------------------------------------------------------------- per-run measures

def split_part(part: str) -> tuple[str, str, str]:
    """'wait-time-chain-piggycode-stack-linux' -> ('wait-time', 'piggycode-stack', 'linux') (the
    parts are the same in both modes)."""
    name, _, tcp = part.rpartition("-")
    paper, series, _, _ = _parts(True)[name]
    return paper, series, tcp


def per_run(results: dict):
    """One row per run and set-up: paper, setup, series, tcp, seed, goodput_kbps (the network's:
    the sum over the flows; for the strings, flow 0's mean in the set-up's window; summed over the
    rates or pairs of a part, which are its set-up's share of one seed), fast_retransmits,
    timeouts, out_of_order (flows' sums, likewise)."""
    import pandas as pd

    frames = []
    for part, res in results.items():
        paper, series, tcp = split_part(part)
        flows = res.flows
        if flows.empty:
            continue
        if paper == "combocoding":
            fs = res.flow_series[res.flow_series["flow"] == 0]
            for label, (a, b) in COMBO_WINDOWS.items():
                w = fs[(fs["t_s"] > a) & (fs["t_s"] <= b + 1e-9)]
                g = w.groupby(["hops", "seed"])["goodput_kbps"].mean().reset_index()
                frames.append(pd.DataFrame({"paper": paper, "setup": [f"{h}-hop string, {label}" for h in g["hops"]],
                                            "series": series, "tcp": tcp, "seed": g["seed"],
                                            "goodput_kbps": g["goodput_kbps"], "fast_retransmits": math.nan,
                                            "timeouts": math.nan, "out_of_order": math.nan}))
            continue
        f = flows.copy()
        f["setup"] = _setup_labels(paper, part, f)
        g = f.groupby(["setup", "seed"]).agg(goodput_kbps=("goodput_kbps", "sum"),
                                             fast_retransmits=("fast_retransmits", "sum"),
                                             timeouts=("timeouts", "sum"),
                                             out_of_order=("out_of_order_segments", "sum")).reset_index()
        frames.append(g.assign(paper=paper, series=series, tcp=tcp))
    cols = ["paper", "setup", "series", "tcp", "seed", "goodput_kbps", "fast_retransmits", "timeouts", "out_of_order"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def _setup_labels(paper: str, part: str, flows) -> list[str]:
    if paper == "ncaqm":
        topo = next(t for t in NCAQM_TOPOLOGIES if part.startswith(f"ncaqm-{t}-"))
        return [ncaqm.TOPO_LABEL[topo]] * len(flows)
    if paper == "cope-tcp":
        if "-x1-" in part:
            return [f"X-I ({cope_tcp.X1_SPACING_M:g} m arms)"] * len(flows)
        return [f"{h}-hop chain" for h in flows["hops"]]
    if paper == "wait-time":
        return [f"{h}-hop chain" for h in flows["hops"]]
    return [f"{flows['pair'].nunique()} pairs"] * len(flows)


def gains(df):
    """Per paper, set-up, coded series and TCP: the paired change (%) of goodput over no coding
    on the same seed: rows paper, setup, series, tcp, mean, ci95, n, base_kbps and coded_kbps (the
    means of no coding and of the series over those seeds), near_zero (base_kbps under NEAR_ZERO_KBPS:
    the percentage says nothing)."""
    import pandas as pd

    rows = []
    for (paper, setup, tcp), d in df.groupby(["paper", "setup", "tcp"], sort=False):
        base = d[d["series"] == "none"].set_index("seed")["goodput_kbps"]
        for series in [s for s in d["series"].unique() if s != "none"]:
            other = d[d["series"] == series].set_index("seed")["goodput_kbps"]
            a, b = base.align(other, join="inner")
            change = ((b - a) / a * 100.0)[a > 0]
            m, ci, n = mean_ci(change)
            base_kbps = float(a.mean()) if len(a) else math.nan
            rows.append({"paper": paper, "setup": setup, "series": series, "tcp": tcp, "mean": m, "ci95": ci, "n": n,
                         "base_kbps": base_kbps, "coded_kbps": float(b.mean()) if len(b) else math.nan,
                         "near_zero": not base_kbps >= NEAR_ZERO_KBPS})
    return pd.DataFrame(rows, columns=["paper", "setup", "series", "tcp", "mean", "ci95", "n", "base_kbps",
                                       "coded_kbps", "near_zero"])


# ---------------------------------------------------------------- analysis

def analyze(results: dict, quick: bool = False) -> Analysis:
    df = per_run(results)
    g = gains(df)
    parts = Analysis.join([_table(g), _figure(g), _reordering(df)])
    claims = _claims(parts.summary)
    return Analysis.join([parts, claims_part(claims, CLAIMS_NOTE), _notes(quick, df)], main_table="gains",
                         scenario_note="Parts: <paper>-<set-up>-<series>-<tcp>, one sweep each; tcp 'paper' is the "
                                       "reproduction's own settings, 'linux' the same scenario with `preset = \"linux\"` "
                                       "and the paper's TCP keys dropped (the MAC, channel and segment size kept), "
                                       "'bbr' that with `tcp.variant = \"bbr\"`.")


def _entry(g, paper: str, setup: str, series: str, tcp: str) -> dict:
    """The gains row of (paper, setup, series, tcp) as a dict ({} when the run has none)."""
    d = g[(g["paper"] == paper) & (g["setup"] == setup) & (g["series"] == series) & (g["tcp"] == tcp)]
    return d.iloc[0].to_dict() if len(d) else {}


def _cases(g) -> list[tuple[str, str, str]]:
    """(paper, setup, series) in the order of the table."""
    return list(dict.fromkeys(zip(g["paper"], g["setup"], g["series"])))


def _shown_gain(e: dict) -> str:
    if not e:
        return "-"
    if e["near_zero"]:
        return f"n/a: no coding under {NEAR_ZERO_KBPS:g} kbit/s"
    return fmt_ci(e["mean"], e["ci95"], 1, "%", sign=True)


def _table(g) -> Analysis:
    import pandas as pd

    rows, summary = [], {}
    for paper, setup, series in _cases(g):
        row = {"paper": PAPER_LABEL[paper], "set-up": setup, "scheme": LABELS[series]}
        for tcp in TCPS:
            e = _entry(g, paper, setup, series, tcp)
            row[f"{TCP_LABEL[tcp]}: no coding → coded (kbit/s)"] = (
                f"{e['base_kbps']:.0f} → {e['coded_kbps']:.0f}" if e else "-")
            row[f"coding gain, {TCP_LABEL[tcp]}"] = _shown_gain(e)
            summary.setdefault(paper, {}).setdefault(setup, {}).setdefault(series, {})[tcp] = {
                "gain_pct": e.get("mean", math.nan), "ci95": e.get("ci95", math.nan), "n": int(e.get("n", 0)),
                "no_coding_kbps": e.get("base_kbps", math.nan), "coded_kbps": e.get("coded_kbps", math.nan),
                "near_zero": bool(e.get("near_zero", True))}
        rows.append(row)
    table = TableOut("gains", "Coding gain over no coding under the paper's TCP and under Linux's (paired per seed, "
                     "± 95% CI)", pd.DataFrame(rows),
                     note="The paper's TCP: " + "; ".join(f"{PAPER_LABEL[p]} {PAPER_TCP[p]}" for p in PAPERS) + ". "
                          "Linux's: `preset = \"linux\"` (CUBIC, SACK, RACK-TLP, PRR); with BBR: the same and "
                          "`tcp.variant = \"bbr\"` (BBR v1). Goodput: the network's "
                          "(summed over the part's rates or pairs; the strings: flow 0's mean in the window), mean "
                          f"over seeds. Where no coding carries under {NEAR_ZERO_KBPS:g} kbit/s a percentage says "
                          "nothing: the goodputs stand instead.")
    return Analysis(summary={"gains": summary}, tables=[table])


MARKERS = "osD^v<>P"


def _figure(g) -> Analysis:
    from matplotlib.lines import Line2D

    fig, axs = grid_figure(16.0, 3.9, 1, len(PAPERS))
    for ax, paper in zip(axs[0], PAPERS):
        d = [c for c in _cases(g) if c[0] == paper]
        series = list(dict.fromkeys(s for _, _, s in d))
        setups = list(dict.fromkeys(st for _, st, _ in d))
        colors = {st: f"C{i}" for i, st in enumerate(setups)}
        lo, hi = 0.0, 0.0
        shown_series, shown_setups = [], []
        shown_tcps = []
        for (_, setup, s), tcp in ((c, t) for c in d for t in ("linux", "bbr")):
            ex, ey = _entry(g, paper, setup, s, "paper"), _entry(g, paper, setup, s, tcp)
            if not ex or not ey or ex["near_zero"] or ey["near_zero"]:
                continue
            x, xci, y, yci = ex["mean"], ex["ci95"], ey["mean"], ey["ci95"]
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            xci, yci = (c if math.isfinite(c) else 0.0 for c in (xci, yci))
            # Filled: Linux's TCP (CUBIC); hollow: Linux's TCP with BBR.
            ax.errorbar([x], [y], xerr=[xci], yerr=[yci], marker=MARKERS[series.index(s) % len(MARKERS)],
                        color=colors[setup], capsize=2, linestyle="none", markersize=6,
                        markerfacecolor=colors[setup] if tcp == "linux" else "none")
            lo, hi = min(lo, x - xci, y - yci), max(hi, x + xci, y + yci)
            shown_series += [s] if s not in shown_series else []
            shown_setups += [setup] if setup not in shown_setups else []
            shown_tcps += [tcp] if tcp not in shown_tcps else []
        pad = 0.05 * (hi - lo or 1.0)
        lim = (lo - pad, hi + pad)
        ax.plot(lim, lim, color="0.5", linewidth=0.8, linestyle="--")
        ax.axhline(0, color="0.8", linewidth=0.6)
        ax.axvline(0, color="0.8", linewidth=0.6)
        ax.set_xlim(lim)
        ax.set_ylim(lim)
        ax.set_aspect("equal", adjustable="box")
        ax.set_title(PAPER_LABEL[paper], fontsize=9)
        ax.set_xlabel("gain under the paper's TCP (%)", fontsize=8)
        ax.grid(alpha=0.3)
        if not shown_setups:
            ax.text(0.5, 0.5, f"no coding carries under\n{NEAR_ZERO_KBPS:g} kbit/s: no percentage", ha="center",
                    va="center", transform=ax.transAxes, fontsize=8)
            continue
        handles = ([Line2D([], [], marker=MARKERS[series.index(s) % len(MARKERS)], color="0.3", linestyle="none",
                           label=LABELS[s]) for s in shown_series]
                   + [Line2D([], [], marker="s", color=colors[st], linestyle="none", label=st) for st in shown_setups]
                   + [Line2D([], [], marker="o", color="0.3", linestyle="none", label=TCP_LABEL[t],
                             markerfacecolor="0.3" if t == "linux" else "none") for t in shown_tcps])
        ax.legend(handles=handles, fontsize=6, loc="best")
    axs[0, 0].set_ylabel("gain under Linux's TCP (%)")
    return Analysis(figures=[FigureOut(
        "gain_paper_vs_linux", "Coding gain under the paper's TCP (x) against under Linux's (y), CUBIC and BBR", fig,
        "One point per scheme (marker), set-up (colour) and Linux TCP (filled: CUBIC; hollow: BBR), mean ± 95% CI "
        "over seeds. On the dashed diagonal the "
        "gain is the same under both TCPs; below it today's TCP takes some of it away, above it adds to it. Set-ups "
        f"whose no-coding baseline carries under {NEAR_ZERO_KBPS:g} kbit/s have no percentage and no point.")])


def _reordering(df) -> Analysis:
    """Takimoto et al.'s chain: fast retransmits, timeouts and out-of-order segments per run for
    normal TCP, PiggyCode (ordered) and PiggyCode stacked, under NewReno and under Linux (RACK)."""
    import pandas as pd

    d = df[df["paper"] == "wait-time"]
    rows, summary = [], {}
    for setup in dict.fromkeys(d["setup"]):
        for s in ("none", "piggycode", "piggycode-stack"):
            row = {"set-up": setup, "series": LABELS[s] if s != "none" else "normal TCP"}
            for tcp in TCPS:
                x = d[(d["setup"] == setup) & (d["series"] == s) & (d["tcp"] == tcp)]
                name = TCP_RECOVERY[tcp]
                vals = {k: mean_ci(x[k]) for k in ("fast_retransmits", "timeouts", "out_of_order", "goodput_kbps")}
                row[f"fast retransmits, {name}"] = fmt_ci(*vals["fast_retransmits"][:2], 0)
                row[f"timeouts, {name}"] = fmt_ci(*vals["timeouts"][:2], 1)
                row[f"out of order, {name}"] = fmt_ci(*vals["out_of_order"][:2], 0)
                summary.setdefault(setup, {}).setdefault(s, {})[tcp] = {k: v[0] for k, v in vals.items()}
            rows.append(row)
    table = TableOut("reordering", "Takimoto et al.'s chain: recoveries under NewReno's fast retransmit and under "
                     "Linux's RACK-TLP (per run, summed over the rates; mean ± 95% CI)", pd.DataFrame(rows),
                     note="PiggyCode, stack: `scheme.piggycode.placement = \"stack\"`, a coded DATA queued at the "
                          "very head, before older DATA of its flow (it reorders DATA). Out of order: segments the "
                          "receiver got out of order.")
    return Analysis(summary={"reordering": summary}, tables=[table])


def _claims(summary: dict) -> list[Claim]:
    """One claim per paper, its conclusion checked on Linux's numbers (the paper's TCP's verdict
    in `ours`), and the reordering question on Takimoto et al.'s chain."""
    gs = summary["gains"]

    def e(paper, setup, series, tcp) -> dict:
        return gs.get(paper, {}).get(setup, {}).get(series, {}).get(tcp, {})

    def val(paper, setup, series, tcp):
        x = e(paper, setup, series, tcp)
        return x.get("gain_pct", math.nan), x.get("ci95", math.nan)

    def kbps(paper, setup, series, tcp):
        if series == "none":        # no coding's goodput stands beside each coded series
            return next((per[tcp]["no_coding_kbps"] for per in gs.get(paper, {}).get(setup, {}).values()
                         if tcp in per), math.nan)
        return e(paper, setup, series, tcp).get("coded_kbps", math.nan)

    def one(paper, setup, series, tcp) -> str:
        x = e(paper, setup, series, tcp)
        if x.get("near_zero", True):
            return f"{x.get('no_coding_kbps', math.nan):.0f} → {x.get('coded_kbps', math.nan):.0f} kbit/s"
        return fmt_ci(x["gain_pct"], x["ci95"], 1, "%", sign=True)

    def shown(paper, pairs) -> str:
        return "; ".join(f"{setup} {LABELS[s]}: " + " / ".join(one(paper, setup, s, t) for t in TCPS)
                         for setup, s in pairs)

    def setups(paper):
        return list(gs.get(paper, {}))

    out = []

    # NCAQM, Table I: both schemes gain on every topology, NCAQM more than COPE.
    def ncaqm_check(tcp):
        return all_of([gain(*val("ncaqm", st, s, tcp)) for st in setups("ncaqm") for s in ("cope", "ncaqm")]
                      + [more(val("ncaqm", st, "ncaqm", tcp)[0], val("ncaqm", st, "cope", tcp)[0])
                         for st in setups("ncaqm")])
    out.append(("ncaqm", "Table I: COPE and NCAQM gain over no coding on every topology, NCAQM more than COPE",
                [(st, s) for st in setups("ncaqm") for s in ("cope", "ncaqm")], ncaqm_check))
    # Xu et al., Fig. 5: COPE's (marginal) gain for TCP-NewReno on X-I.
    x1 = [st for st in setups("cope-tcp") if st.startswith("X-I")]
    out.append(("cope-tcp", "Fig. 5: COPE improves TCP's goodput on X-I", [(st, "cope") for st in setups("cope-tcp")],
                lambda tcp: all_of(gain(*val("cope-tcp", st, "cope", tcp)) for st in x1)))
    # Takimoto et al., §III-C: the 30 ms wait improves throughput at 2 and 3 hops.
    short = [st for st in setups("wait-time") if st.split("-")[0] in ("2", "3")]
    out.append(("wait-time", "§III-C: wait-time insertion (30 ms) improves throughput over normal TCP at 2 and 3 hops",
                [(st, s) for st in setups("wait-time") for s in ("piggycode", "wait30")],
                lambda tcp: all_of(gain(*val("wait-time", st, "wait30", tcp)) for st in short)))
    # Chen et al., Table 3: under loss ComboCoding carries the most; without loss PiggyCode > NewReno >
    # ComboCoding > Pipeline. Compared on the goodputs: under loss no coding carries next to nothing.
    lossy = [st for st in setups("combocoding") if "no loss" not in st]
    clean = [st for st in setups("combocoding") if "no loss" in st]

    def combo_check(tcp):
        def k(st, s):
            return kbps("combocoding", st, s, tcp)
        return all_of([more(k(st, "adaptive"), max(k(st, s) for s in ("none", "piggycode", "pipeline")))
                       for st in lossy]
                      + [more(k(st, "piggycode"), k(st, "none")) & more(k(st, "none"), k(st, "adaptive"))
                         & more(k(st, "adaptive"), k(st, "pipeline")) for st in clean], "ordering of the mean goodputs")
    out.append(("combocoding", "Table 3: under loss ComboCoding carries the most; without loss PiggyCode > no coding "
                               "> ComboCoding > Pipeline coding",
                [(st, s) for st in setups("combocoding") for s in COMBO_SERIES[1:]], combo_check))
    # Gheorghiu et al., Fig. 3: CoMP above TCP-ARQ, and the coded schemes above plain TCP.
    out.append(("comp", "Fig. 3: CoMP carries more than TCP-ARQ, and both more than plain TCP",
                [(st, s) for st in setups("comp") for s in ("comp", "tcp-arq")],
                lambda tcp: all_of([more(kbps("comp", st, "comp", tcp), kbps("comp", st, "tcp-arq", tcp))
                                    & more(kbps("comp", st, "tcp-arq", tcp), kbps("comp", st, "none", tcp))
                                    for st in setups("comp")], "ordering of the mean goodputs")))
    verdicts = {p: {tcp: check(tcp) for tcp in TCPS} for p, _, _, check in out}
    recoveries = _extra_recoveries(summary["reordering"])
    groups = _conclusions(summary, verdicts, recoveries)
    claims = [Claim(f"{text}, under {TCP_LABEL[tcp]}", f"{shown(p, pairs)} (the paper's TCP / Linux's / Linux's with BBR); "
                    f"under the paper's TCP it {'holds' if verdicts[p]['paper'].holds else 'does not hold'}",
                    verdicts[p][tcp], groups[p]) for p, text, pairs, _ in out for tcp in ("linux", "bbr")]
    claims.append(Claim(
        "Issue 31: on Takimoto et al.'s chain the stacked placement's reordering costs RACK-TLP far fewer recoveries "
        "than NewReno's fast retransmit", "fast retransmits per run the stacked placement adds over normal TCP "
        "(NewReno / Linux): " + "; ".join(f"{st} {r['paper']:.0f} / {r['linux']:.0f}" for st, r in recoveries.items()),
        all_of((less(r["linux"], 0.5 * r["paper"]) for r in recoveries.values()),
               "Linux's under half of NewReno's at every hop count"), groups["wait-time"]))
    return claims


def _extra_recoveries(reordering: dict) -> dict:
    """Per chain and TCP: the fast retransmits per run of PiggyCode stacked over normal TCP's (the
    recoveries the reordering adds; Linux's larger window also overflows queues without coding)."""
    return {st: {tcp: r["piggycode-stack"][tcp]["fast_retransmits"] - r["none"][tcp]["fast_retransmits"]
                 for tcp in TCPS}
            for st, r in reordering.items() if "piggycode-stack" in r and "none" in r}


def _conclusions(summary: dict, verdicts: dict, recoveries: dict) -> dict[str, ClaimGroup]:
    """Each paper's conclusion line, from this run's numbers: its verdict under each TCP, how its
    gains move from the paper's TCP to Linux's, and where the sign of a gain changes."""
    out = {}
    for paper in PAPERS:
        pts = [(st, s, e["paper"], e["linux"]) for st, per in summary["gains"].get(paper, {}).items()
               for s, e in per.items()
               if not (e["paper"]["near_zero"] or e["linux"]["near_zero"])
               and math.isfinite(e["paper"]["gain_pct"]) and math.isfinite(e["linux"]["gain_pct"])]
        shift = mean_ci([b["gain_pct"] - a["gain_pct"] for _, _, a, b in pts])[0] if pts else math.nan
        flips = [f"{LABELS[s]} on the {st}" for st, s, a, b in pts if (a["gain_pct"] > 0) != (b["gain_pct"] > 0)]
        v = verdicts[paper]
        text = (f"under the paper's TCP the conclusion {'holds' if v['paper'].holds else 'does not hold'} here, under "
                f"Linux's it {'holds' if v['linux'].holds else 'does not'}"
                + (f"; Linux's gains differ from the paper's TCP's by {shift:+.1f} points on average over {len(pts)} "
                   "scheme-set-up points" + (f", the sign changes for {', '.join(flips)}" if flips
                                             else ", no gain changes sign") if pts else
                   f"; no set-up has a no-coding baseline above {NEAR_ZERO_KBPS:g} kbit/s under both TCPs"))
        if paper == "wait-time" and recoveries:
            text += ("; the stacked placement adds " + ", ".join(
                f"{r['paper']:.0f} (NewReno) and {r['linux']:.0f} (Linux) fast retransmits per run on the {st}"
                for st, r in recoveries.items()))
        out[paper] = ClaimGroup(GROUPS[paper].name, text, GROUPS[paper].doc)
    return out


def _notes(quick: bool, df) -> Analysis:
    size = QUICK if quick else FULL
    n = seeds_text(df.groupby(["paper", "setup", "series", "tcp"]).size()) if len(df) else "0"
    notes = [f"{n} seeds per point. Runs: NCAQM {size['ncaqm_duration']:g} s, Xu et al. {size['cope_duration']:g} s, "
             f"Takimoto et al. {size['wait_duration']:g} s measured from {size['wait_measure']:g} s at "
             + ", ".join(f"{r:g}" for r in size["wait_rates"]) + " kbit/s, Chen et al. the paper's 110 s on "
             + ", ".join(str(h) for h in size["combo_hops"]) + " hops, Gheorghiu et al. "
             f"{size['comp_duration']:g} s on pairs 0-{size['comp_pairs'] - 1} of the roofnet-like layout (seed "
             f"{comp.LAYOUT_SEED}), each measured as its reproduction measures."]
    if quick:
        notes.append(f"Quick mode: {QUICK['seeds']} seeds and short runs, a first look; run without --quick for "
                     f"{FULL['seeds']} to {2 * FULL['seeds']} seeds (the seed rule) and longer runs.")
    return Analysis(summary={"seeds": n, "quick_sizes": dict(size)}, notes=notes)
