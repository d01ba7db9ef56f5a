"""comp: Gheorghiu et al., CoMP (docs/papers.md): multipath TCP with hop-by-hop online network
coding against TCP-ARQ (TCP/NC with Alg. 1's redundancy), Horizon and MORE on a Roofnet-like
mesh (Figs. 2-4 and the numbers of §III-B).

Parts, each `<kind>-<series>` (one sweep per scheme set-up):

- `fig2-estimated`, `fig2-configured` (Fig. 2): CoMP on Fig. 1's diamond with Alg. 1's loss
  estimate against each node's redundancy from the configured loss, loss 0-50%.
- `one-<series>` (Fig. 3): one flow at a time over the pairs of a `roofnet-like` layout,
  d = 2 reinforced paths.
- `two-<series>` (Fig. 4): two concurrent flows (pairs i and i + 1), MORE left out as the
  paper does.
- `paths-<series>`: CoMP and TCP-ARQ with d = 1 and d = 3 (d = 2 is the `one` part).
- `freifunk-<series>`: the one-flow experiment on the positions of the Freifunk Ulm map.

Every part runs TCP NewReno and Vegas (the paper names no TCP). `analyze` joins Fig. 2, the CDFs of Figs. 3-4, the sensitivity
and Freifunk tables, the paper's claims and the notes. The helpers `per_run`, `per_pair`,
`cdf`, `relative`, `share` and the `claim_*` functions work on plain DataFrames (tests feed
them hand-made ones)."""

from __future__ import annotations

import dataclasses
import math
import statistics
from pathlib import Path

from .common import (seeds_for, seeds_text, Analysis, Check, Claim, ClaimGroup, FigureOut, PaperNumber, TableOut, all_of, at_most,
                     claims_part, falls, fmt_ci, near, sweep_base)
from .figures import grid_figure, line_panel
from .measures import stats_by

NAME = "comp"
TITLE = ("CoMP, multipath TCP with hop-by-hop network coding, against TCP-ARQ, Horizon and MORE on a "
         "Roofnet-like mesh (Gheorghiu et al., CoMP: Figs. 2-4)")
DESCRIPTION = """
Gheorghiu, Lopez Toledo, Rodriguez, CoMP: multipath TCP with network coding for wireless mesh
networks (docs/papers.md; ns-2.33). The set-up of §III-A: 38 nodes placed uniformly over 2 x 2 km
(a Roofnet-sized layout; Roofnet's own positions are not public), ns-2's Shadowing channel
(path-loss exponent 2, 4 dB deviation), 802.11b at 1 Mbit/s, RTS/CTS and MAC retransmissions off,
ncmesh's TCP defaults (not ns-2.33's agent: see the constants),
ETX routing over d = 2 reinforced paths, 100 source-destination pairs drawn from one layout
(builder `roofnet-like`, layout seed 2). Series: CoMP (`scheme.name = "comp"`, loss from Alg. 1), TCP-ARQ
(`"tcp-nc"`: TCP/NC with the source's redundancy set online by Alg. 1, GF(2^16)), Horizon
(`"horizon"`), MORE (`"more"`, batches of K = 8 and 32) and, not in the paper, plain TCP over the
best ETX path (`"none"`). Each under TCP NewReno and Vegas (the paper names no TCP; the coded
schemes run Vegas with Sundararajan et al.'s alpha/beta/gamma 28/30/2, Horizon and plain TCP with
ns-2's 1/3/1). Fig. 2: CoMP on Fig. 1's diamond (two relays, as the text says; three, as drawn,
beside it) with Alg. 1's estimate against the redundancy from the configured loss, loss 0-50%.
Fig. 3: one flow at a time, CDFs over pairs of throughput, efficiency (bytes delivered / MPDU bytes
of data frames all nodes sent) and CoMP's relative improvement (its mean throughput over seeds
divided by the baseline's, per pair). Fig. 4: two concurrent flows (pairs i and i + 1), aggregate
throughput. Also d = 1 and 3 for CoMP and TCP-ARQ, and the one-flow experiment on the Freifunk Ulm
map's positions.
"""

# ---- the paper's set-up and chosen values (docs/assumptions.md, "Reproduction of Gheorghiu et al. (CoMP)")
SCHEMES = ["comp", "tcp-nc", "horizon", "more", "none"]      # the five schemes this experiment runs
VEGAS_CODED = {"tcp.vegas_alpha": 28, "tcp.vegas_beta": 30, "tcp.vegas_gamma": 2}   # Sundararajan et al.
VEGAS_PLAIN = {"tcp.vegas_alpha": 1, "tcp.vegas_beta": 3, "tcp.vegas_gamma": 1}     # ns-2's defaults
MORE_BATCHES = [8, 32]                                        # K: the paper gives none
SERIES = {
    "comp": {"scheme.name": "comp"},
    "tcp-arq": {"scheme.name": "tcp-nc", "scheme.tcpnc.field": "gf65536"},
    "horizon": {"scheme.name": "horizon"},
    # fifo_tries = 1: the paper turns MAC retransmissions off "for all the experiments" (§III-A), so MORE's
    # acknowledgements get no 802.11 retries either.
    **{f"more{k}": {"scheme.name": "more", "scheme.more.batch": k, "scheme.more.fifo_tries": 1} for k in MORE_BATCHES},
    "none": {"scheme.name": "none"},
}
CODED = {"comp", "tcp-arq"} | {f"more{k}" for k in MORE_BATCHES}
LABELS = {"comp": "CoMP", "tcp-arq": "TCP-ARQ", "horizon": "Horizon",
          **{f"more{k}": f"MORE (K={k})" for k in MORE_BATCHES}, "none": "plain TCP*",
          "estimated": "CoMP, Alg. 1's estimate", "configured": "CoMP, configured loss (optimal)"}
BASELINES = ["tcp-arq", "horizon"] + [f"more{k}" for k in MORE_BATCHES]   # the paper's, for CoMP's ratios
ONE_SERIES = list(SERIES)
TWO_SERIES = ["comp", "tcp-arq", "horizon", "none"]          # MORE left out, as the paper does
PATHS_SERIES = ["comp", "tcp-arq"]
PATHS = [1, 3]                                               # d; d = 2 is the one-flow part
D = 2
# TCP: ncmesh's defaults, not the ns2 preset (ns-2.33's TCP agent, which the paper's "rest default" names). Under
# the preset CoMP and TCP-ARQ stall on most multi-hop pairs (quick run: CoMP's multi-hop median 4.6 kbit/s, against
# 210 with ncmesh's TCP; its 20-packet window, modelled as a receive buffer that the destination shrinks by the bytes
# seen but not decoded, closes the window, and with a 128 kB buffer the agent's timers still stall many pairs): a
# liveness problem of the coded schemes under those timers, not isolated (docs/results/comp.md, readings).
# The readings of the paper's ambiguities (issue 28), run for CoMP alone on the one-flow pairs with READINGS_SEEDS
# seeds by the seed rule (the default's row is the one-flow part's runs of the same seeds, and so are the baselines it is compared
# with): how a link's loss is compensated (§II-B names a redundant combination on a detected loss and a rate set to
# the estimated loss, §II-C credits created on a detected loss: `scheme.comp.compensation`), how the d paths are
# reinforced (each node picks among up to d next hops, or the d least-cost whole paths: `routing.reinforce`), and
# ns-2.33's TCP agent (`preset = "ns2"`, RTS/CTS kept off as the paper sets it, ncmesh's 128 kB receive buffer: the
# agent's window_ of 20 packets has no counterpart but the receive buffer, which a coded destination shrinks by the
# packets seen and not decoded, docs/assumptions.md).
NS2 = {"preset": "ns2", "mac.rts_threshold_bytes": 65535, "tcp.rcv_buffer_bytes": 131072}
DEFAULT_READING = "credits-hops"
READINGS = {"rate-hops": {"scheme.comp.compensation": "rate"},
            "both-hops": {"scheme.comp.compensation": "both"},
            "credits-paths": {"routing.reinforce": "paths"},
            "both-paths": {"scheme.comp.compensation": "both", "routing.reinforce": "paths"},
            "credits-hops-ns2": NS2}
READING_LABELS = {"credits-hops": "credits, per node (default)", "rate-hops": "rate, per node",
                  "both-hops": "both, per node", "credits-paths": "credits, whole paths",
                  "both-paths": "both, whole paths (before issue 28)",
                  "credits-hops-ns2": "credits, per node, ns-2.33's TCP agent"}
READINGS_SEEDS = 5          # the seed rule: 5 to 10 seeds per pair
FIG2_SERIES = {"estimated": {"scheme.name": "comp", "scheme.comp.loss": "estimated"},
               "configured": {"scheme.name": "comp", "scheme.comp.loss": "configured"}}
FIG2_RELAYS = [2, 3]                                         # the text's two relays; Fig. 1's three
FIG2_CS_RANGE_M = 550.0      # ns-2.33's CSThresh_ distance (the paper's "rest default"): the ends sense each other
FIG2_LOSS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
TCP_VARIANTS = ["newreno", "vegas"]
# The roofnet-like layout: seed 2 is the first (of 1-12) whose 100 pairs give both of the paper's
# path statistics (mean 2.50 hops, 23% one-hop; seed 1: 2.50 and 29%). The Freifunk map's pairs: seed 1.
LAYOUT_SEED = 2
FREIFUNK_LAYOUT_SEED = 1
PAIRS = 100
FREIFUNK = Path(__file__).resolve().parent / "data" / "freifunk-ulm.json"
FREIFUNK_NAME = "Freifunk Ulm (28 positioned nodes in the largest component)"
START_S, START_SPREAD_S = 1.0, 1.0
NEAR_ZERO_KBPS = 10.0       # "a throughput close to 0": under one 1000-byte segment every 0.8 s
EQUAL_BAND = 0.05           # efficiencies within ±5% count as equal
# Fig. 4(a)/(c), "above" / "under 1": the paper splits the pairs three ways there as for efficiency (60% above, 20%
# below, the 20% one-hop pairs alike: §III-B2), so throughputs within ±5% count as equal too; 0.0 is the strict
# reading (any ratio above 1 is above). docs/results/comp.md shows both.
BEATS_BAND = EQUAL_BAND
# Two series that deliver the same bytes over a pair's seeds have the same mean, but their float
# sums can differ in the last bit (Freifunk pair 23, NewReno: 0.528 against 0.5279999999999999
# kbit/s), which decided a strict "above" by the order of the additions. Ratios within this of 1
# are 1: a tie, not above (far below any difference one packet makes).
TIE_RTOL = 1e-9
ABOUT_FACTOR = 2.0          # "up to about 10x": the ratio reaches at least 10 / 2 on some pair
RATIO_CUT = 10.0            # Fig. 3(c)'s axis: ratios above it (and pairs where the baseline carried nothing) at the cut

# Quick: every pair once (the pair statistics hold only over all 100), shorter runs.
QUICK = {"seeds": 1, "pairs": PAIRS, "duration": 30.0, "measure_start": 5.0, "sens_seeds": 1, "freifunk_pairs": 20,
         "fig2_seeds": 2, "readings_pairs": 20, "readings_seeds": 1}
FULL = {"seeds": 10, "pairs": PAIRS, "duration": 60.0, "measure_start": 10.0, "sens_seeds": 5,
        "freifunk_pairs": PAIRS, "fig2_seeds": 10, "readings_pairs": PAIRS, "readings_seeds": READINGS_SEEDS}

PAPER = {"ratio_max": PaperNumber(10.0, "§III-B1, Fig. 3(c)"),
         "one_hop_pct": PaperNumber(20.0, "§III-B1"),
         "mean_hops": PaperNumber(2.5, "§III-A"),
         "eff_2hop_max": PaperNumber(0.5, "§III-B1"),
         "two_above_pct": PaperNumber(60.0, "§III-B2, Fig. 4(a)"),
         "two_below_pct": PaperNumber(20.0, "§III-B2, Fig. 4(c)"),
         "horizon_zero_pct": PaperNumber(80.0, "§III-B2"),
         "eff_more_pct": PaperNumber(55.0, "§III-B2"),
         "eff_less_pct": PaperNumber(25.0, "§III-B2")}

DOC = "docs/results/comp.md"
# The classes of the paper's claims; what ncmesh concludes where they do not hold is written from each
# run's numbers (`_conclusions`), and docs/results/comp.md explains it.
SETUP = ClaimGroup("set-up", "", f"{DOC}, Set-up")
ONE_FLOW = ClaimGroup("one flow (Fig. 3)", "", f"{DOC}, One flow")
TWO_FLOWS = ClaimGroup("two flows (Fig. 4)", "", f"{DOC}, Two flows")
ESTIMATE = ClaimGroup("loss estimate (Fig. 2)", "", f"{DOC}, Fig. 2")


def _conclusions(df, pp, tcps: list[str], pf=None) -> dict[str, ClaimGroup]:
    """Each class's conclusion, from this run's numbers."""
    from ..analysis.stats import mean_ci

    text = {}
    d = pp[(pp["kind"] == "one") & (pp["paths"] == D)].drop_duplicates("pair") if len(pp) else pp
    hops = d["hops"].dropna() if len(d) else d
    if len(hops):
        text[SETUP.name] = (f"the {len(hops)} pairs, drawn at random on a synthetic layout (layout seed "
                            f"{LAYOUT_SEED}), average {mean_ci(hops)[0]:.2f} hops and {share(hops == 1)[0]:.0f}% "
                            "of them are one hop apart; another layout seed or a subset of the pairs (--quick) "
                            "moves both")
    one, two = [], []
    for t in tcps:
        r = relative(pp, "comp", "tcp-arq", "one", t)
        if len(r):
            finite = r[r.apply(math.isfinite)]
            zeros = len(r) - len(finite)
            h = _series_of(pp, "one", t, "comp")["hops"].reindex(r.index)
            multi = r[h > 1]
            above = {b: share(relative(pp, "comp", b, "one", t) > 1)[0] for b in BASELINES
                     if not _series_of(pp, "one", t, b).empty}
            one.append(f"{t}: CoMP above " + ", ".join(f"{LABELS[b]} on {v:.0f}%" for b, v in above.items())
                       + f" of the pairs; over TCP-ARQ the largest finite ratio is "
                       f"{float(finite.max()) if len(finite) else math.nan:.1f}x, TCP-ARQ carried nothing on "
                       f"{zeros} of {len(r)} pairs where CoMP did, and the multi-hop median (those counted as "
                       f"above every ratio) is {float(multi.median()) if len(multi) else math.nan:.2f}")
        r2 = relative(pp, "comp", "tcp-arq", "two", t)
        e2 = relative(pp, "comp", "tcp-arq", "two", t, "efficiency")
        hz = _horizon_flows(pf, t)
        if len(r2):
            two.append(f"{t}: CoMP's aggregate above TCP-ARQ's on {share(r2 > 1 + BEATS_BAND)[0]:.0f}% of the pairs "
                       f"and below on {share(r2 < 1 - BEATS_BAND)[0]:.0f}%"
                       + (f", more efficient on {share(e2 > 1 + EQUAL_BAND)[0]:.0f}% and less on "
                          f"{share(e2 < 1 - EQUAL_BAND)[0]:.0f}%" if len(e2) else "")
                       + (f"; Horizon under {NEAR_ZERO_KBPS:g} kbit/s on "
                          f"{share(hz['goodput_kbps'] < NEAR_ZERO_KBPS)[0]:.0f}% of the flows" if not hz.empty else ""))
    if one:
        text[ONE_FLOW.name] = "; ".join(one) + " (a ratio over a near-zero throughput is not a speed-up)"
    if two:
        text[TWO_FLOWS.name] = ("; ".join(two) + " (two CoMP flows on d = 2 paths re-encode at every relay that "
                                "holds a credit, so where they share relays they put more frames on the air)")
    fig2 = df[(df["kind"] == "fig2") & (df["relays"] == FIG2_RELAYS[0])] if len(df) else df
    if len(fig2):
        rel = []
        for t in TCP_VARIANTS:
            dt = fig2[fig2["tcp"] == t]
            est = dt[dt["series"] == "estimated"].groupby("loss")["throughput_kbps"].mean()
            conf = dt[dt["series"] == "configured"].groupby("loss")["throughput_kbps"].mean()
            est, conf = est.align(conf, join="inner")
            pts = [(l, (e / c - 1) * 100) for l, e, c in zip(est.index, est, conf) if c > 0]
            if pts:
                rel.append(f"{t} " + " / ".join(f"{v:+.0f}" for _, v in pts) + "% at "
                           + "/".join(f"{l * 100:.0f}" for l, _ in pts) + "% loss")
        text[ESTIMATE.name] = ("CoMP with Alg. 1's estimate against the configured (optimal) loss: " + "; ".join(rel)
                               + " (the (s, t) reports ride on the downstream nodes' own frames, lost as often)")
    return {g.name: ClaimGroup(g.name, text.get(g.name, ""), g.doc) for g in (SETUP, ONE_FLOW, TWO_FLOWS, ESTIMATE)}


CLAIMS_NOTE = ("Per pair: the mean over seeds. Shares of pairs carry a 95% binomial CI over the pairs; a share "
               "holds when the paper's value is within our CI or 5 points of our share. Ratios are CoMP's mean "
               "throughput over the baseline's, per pair. A claim that needs a series the run does not have "
               "does not hold and says so.")


# ---------------------------------------------------------------- sweeps

def _vegas(series: str) -> dict:
    return VEGAS_CODED if series in CODED else VEGAS_PLAIN


def _roofnet_base(size: dict, series: str, extra: dict | None = None, settings: dict | None = None) -> dict:
    options = {"layout_seed": LAYOUT_SEED, "pairs": PAIRS, "paths": D, **(extra or {})}
    return sweep_base("roofnet-like", options, {**SERIES[series], **_vegas(series), **(settings or {})},
                      duration=size["duration"], start=START_S, start_spread=START_SPREAD_S,
                      measure_start=size["measure_start"], seed="run")


def part_names(quick: bool = False) -> list[str]:
    """Every part the experiment has."""
    return list(_all_parts(quick))


def _all_parts(quick: bool) -> dict[str, dict]:
    size = QUICK if quick else FULL
    seeds = seeds_for(size["seeds"], quick)
    sens = seeds_for(size["sens_seeds"], quick)
    pairs = list(range(size["pairs"]))
    tcp = {"tcp.variant": list(TCP_VARIANTS)}
    parts = {}
    for s, settings in FIG2_SERIES.items():
        base = sweep_base("diamond", {"cs_range": FIG2_CS_RANGE_M},
                          {**settings, **VEGAS_CODED},
                          duration=size["duration"], start=START_S,
                          start_spread=0.0, measure_start=size["measure_start"], seed="run")
        parts[f"fig2-{s}"] = {"name": f"{NAME}-fig2-{s}", "base": base,
                              "grid": {"relays": list(FIG2_RELAYS), "loss": list(FIG2_LOSS), **tcp},
                              "seeds": seeds_for(size["fig2_seeds"], quick)}
    for s in ONE_SERIES:
        parts[f"one-{s}"] = {"name": f"{NAME}-one-{s}", "base": _roofnet_base(size, s),
                             "grid": {"pair": pairs, **tcp}, "seeds": seeds}
    for s in TWO_SERIES:
        parts[f"two-{s}"] = {"name": f"{NAME}-two-{s}", "base": _roofnet_base(size, s, {"flows": 2}),
                             "grid": {"pair": pairs, **tcp}, "seeds": seeds}
    for s in PATHS_SERIES:
        parts[f"paths-{s}"] = {"name": f"{NAME}-paths-{s}", "base": _roofnet_base(size, s),
                               "grid": {"paths": list(PATHS), "pair": pairs, **tcp}, "seeds": sens}
    for r, settings in READINGS.items():
        parts[f"readings-{r}"] = {"name": f"{NAME}-readings-{r}", "base": _roofnet_base(size, "comp", settings=settings),
                                  "grid": {"pair": list(range(size["readings_pairs"])), **tcp},
                                  "seeds": seeds_for(size["readings_seeds"], quick)}
    for s in ONE_SERIES:
        ff = {"file": str(FREIFUNK), "layout_seed": FREIFUNK_LAYOUT_SEED, "pairs": PAIRS, "paths": D}
        base = sweep_base("roofnet-like", ff, {**SERIES[s], **_vegas(s)}, duration=size["duration"], start=START_S,
                          start_spread=START_SPREAD_S, measure_start=size["measure_start"], seed="run")
        parts[f"freifunk-{s}"] = {"name": f"{NAME}-freifunk-{s}", "base": base,
                                  "grid": {"pair": list(range(size["freifunk_pairs"])), **tcp}, "seeds": sens}
    return parts


def sweeps(quick: bool = False) -> dict[str, dict]:
    """{part: sweep} of every part."""
    return _all_parts(quick)


# ---------------------------------------------------------------- per-run and per-pair measures

def split_part(part: str) -> tuple[str, str]:
    """'one-tcp-arq' -> ('one', 'tcp-arq')."""
    kind, _, series = part.partition("-")
    return kind, series


def per_run(results: dict):
    """One row per run: kind, series, tcp, pair, paths, relays, loss, seed, throughput_kbps
    (sum of the flows' goodput), rx_bytes (application bytes delivered over the run, all flows),
    air_bytes (MPDU bytes of the data frames all nodes sent over the run), efficiency
    (rx_bytes / air_bytes), hops (flow 0's routed path)."""
    import pandas as pd

    frames = []
    for part, res in results.items():
        kind, series = split_part(part)
        flows, nodes = res.flows, res.nodes
        if flows.empty:
            continue
        g = flows.groupby("run_key")
        run = pd.DataFrame({"throughput_kbps": g["goodput_kbps"].sum(), "rx_bytes": g["rx_bytes"].sum()})
        first = flows.sort_values("flow").groupby("run_key").first()
        run["hops"] = first["path"].map(lambda p: len(p) - 1 if p is not None and len(p) else math.nan)
        run["air_bytes"] = nodes.groupby("run_key")["mac_data_bytes_sent"].sum()
        for col, default in (("seed", None), ("tcp.variant", "newreno"), ("pair", 0), ("paths", D),
                             ("relays", math.nan), ("loss", math.nan)):
            run[col] = first[col] if col in first.columns else default
        run = run.reset_index()
        frames.append(pd.DataFrame({
            "kind": kind, "series": series, "tcp": run["tcp.variant"], "pair": run["pair"].astype(int),
            "paths": run["paths"].astype(int), "relays": run["relays"], "loss": run["loss"], "seed": run["seed"],
            "throughput_kbps": run["throughput_kbps"], "rx_bytes": run["rx_bytes"], "air_bytes": run["air_bytes"],
            "efficiency": efficiency(run["rx_bytes"], run["air_bytes"]), "hops": run["hops"]}))
    cols = ["kind", "series", "tcp", "pair", "paths", "relays", "loss", "seed", "throughput_kbps", "rx_bytes",
            "air_bytes", "efficiency", "hops"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)


def per_flow(results: dict, kind: str = "two"):
    """One row per (series, tcp, pair, flow) of the `kind` parts: the flow's goodput, mean over seeds
    (goodput_kbps). §III-B2's Horizon share counts flows, not pairs of flows."""
    import pandas as pd

    frames = []
    for part, res in results.items():
        k, series = split_part(part)
        if k != kind or res.flows.empty:
            continue
        f = res.flows
        frames.append(pd.DataFrame({
            "series": series, "tcp": f["tcp.variant"] if "tcp.variant" in f.columns else "newreno",
            "pair": f["pair"].astype(int) if "pair" in f.columns else 0, "flow": f["flow"].astype(int),
            "goodput_kbps": f["goodput_kbps"]}))
    cols = ["series", "tcp", "pair", "flow", "goodput_kbps"]
    if not frames:
        return pd.DataFrame(columns=cols)
    return pd.concat(frames, ignore_index=True).groupby(cols[:-1], as_index=False)["goodput_kbps"].mean()


def efficiency(rx_bytes, air_bytes):
    """Delivered bytes over the bytes put on the air (NaN where nothing was sent)."""
    import numpy as np

    rx = np.asarray(rx_bytes, dtype=float)
    air = np.asarray(air_bytes, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(air > 0, rx / np.where(air > 0, air, 1.0), np.nan)


def per_pair(df):
    """Mean over seeds per (kind, series, tcp, paths, pair): throughput_kbps, efficiency, hops, n."""
    if df.empty:
        return df.assign(n=[])
    # Seeds in order before the means, so that a pair's mean does not depend on the order
    # the results store returns its rows in (run-key order: a hash, not the seeds').
    df = df.sort_values(["kind", "series", "tcp", "paths", "pair", "seed"], kind="stable")
    g = df.groupby(["kind", "series", "tcp", "paths", "pair"], dropna=False)
    out = g.agg(throughput_kbps=("throughput_kbps", "mean"), efficiency=("efficiency", "mean"),
                hops=("hops", "first"), n=("seed", "size")).reset_index()
    return out


def cdf(values) -> tuple[list[float], list[float]]:
    """The empirical CDF of the finite values (+inf kept at the end): (sorted x, F(x) = i/n)."""
    xs = sorted(float(v) for v in values if v is not None and not math.isnan(float(v)))
    n = len(xs)
    return xs, [(i + 1) / n for i in range(n)]


def relative(pp, a: str, b: str, kind: str, tcp: str, value: str = "throughput_kbps"):
    """Per pair: a's mean over seeds divided by b's (inf where b is 0 and a is not; pairs
    where both are 0 or either is missing left out; 1 where the two means differ by no
    more than float rounding, TIE_RTOL). A Series indexed by pair."""
    d = pp[(pp["kind"] == kind) & (pp["tcp"] == tcp) & (pp["paths"] == D)]
    x = d[d["series"] == a].set_index("pair")[value]
    y = d[d["series"] == b].set_index("pair")[value]
    x, y = x.align(y, join="inner")
    keep = ~((x == 0) & (y == 0)) & x.notna() & y.notna()
    x, y = x[keep], y[keep]
    r = (x / y.where(y != 0, 0.0)).where(y != 0, math.inf).astype(float)
    return r.where((r - 1.0).abs() > TIE_RTOL, 1.0)


def ratio_cut(r, cut: float = RATIO_CUT) -> dict:
    """Per-pair ratios `r` (inf: the baseline carried nothing) on a CDF cut at `cut`: pairs, those at or
    above the cut, of them the infinite ones, the largest ratio below the cut, the largest finite one, the
    median (inf counted as above every ratio) and how far the cut CDF reaches (min(largest, cut))."""
    vals = [float(v) for v in r]
    finite = [v for v in vals if math.isfinite(v)]
    below = [v for v in vals if v < cut]
    return {"pairs": len(vals), "at_cut": sum(v >= cut for v in vals), "zeros": len(vals) - len(finite),
            "largest_below": max(below) if below else math.nan,
            "largest_finite": max(finite) if finite else math.nan,
            "median": statistics.median(vals) if vals else math.nan,
            "reach": min(max(vals), cut) if vals else math.nan}


def share(mask) -> tuple[float, float, int]:
    """(percentage of True, 95% CI half-width in points (normal approximation of the
    binomial), n)."""
    vals = [bool(v) for v in mask]
    n = len(vals)
    if n == 0:
        return math.nan, math.nan, 0
    p = sum(vals) / n
    return p * 100.0, 1.96 * math.sqrt(p * (1 - p) / n) * 100.0 if n > 1 else math.nan, n


def _series_of(pp, kind: str, tcp: str, series: str):
    d = pp[(pp["kind"] == kind) & (pp["tcp"] == tcp) & (pp["series"] == series) & (pp["paths"] == D)]
    return d.set_index("pair")


def _pct(m, ci, n) -> str:
    if not math.isfinite(m):
        return "-"
    return fmt_ci(m, ci, 0, "%") + f" of {n} pairs"


def _missing(*series) -> str:
    return "needs runs of " + ", ".join(LABELS.get(s, s) for s in series)


# ---------------------------------------------------------------- claims (each a function of per-pair data)

def claim_setup(pp, kind: str = "one") -> list[Claim]:
    """The pairs' path statistics (scheme-independent: the routed path of flow 0)."""
    d = pp[(pp["kind"] == kind) & (pp["paths"] == D)].drop_duplicates("pair")
    hops = d["hops"].dropna()
    if hops.empty:
        return [Claim("§III-A: about 20% of the pairs are one hop apart; paths average 2.5 hops", "no runs",
                      Check(False, "needs the one-flow runs"), SETUP, PAPER["one_hop_pct"])]
    m, ci, n = share(hops == 1)
    from ..analysis.stats import mean_ci

    hm, hci, _ = mean_ci(hops)
    return [Claim("§III-B1: about 20% of the pairs are one hop apart", _pct(m, ci, n),
                  near(m, ci, PAPER["one_hop_pct"].value), SETUP, PAPER["one_hop_pct"]),
            Claim("§III-A: the paths average 2.5 hops", f"{fmt_ci(hm, hci, 2)} hops over {n} pairs",
                  near(hm, hci, PAPER["mean_hops"].value, 0.3), SETUP, PAPER["mean_hops"])]


def claim_one_flow(pp, tcp: str) -> list[Claim]:
    """Fig. 3's claims for one TCP variant."""
    tag = f" ({tcp})"
    claims = []
    comp = _series_of(pp, "one", tcp, "comp")
    present = [b for b in BASELINES if not _series_of(pp, "one", tcp, b).empty]
    # CoMP above every baseline for most pairs.
    if comp.empty or not present:
        claims.append(Claim("Fig. 3(a): CoMP's throughput above every baseline's for most pairs" + tag,
                            "no runs of CoMP" if comp.empty else "no baseline runs",
                            Check(False, _missing("comp", *BASELINES)), ONE_FLOW))
    else:
        shares = {b: share(relative(pp, "comp", b, "one", tcp) > 1) for b in present}
        claims.append(Claim("Fig. 3(a): CoMP's throughput above every baseline's for most pairs" + tag,
                            "; ".join(f"above {LABELS[b]}: {_pct(*shares[b])}" for b in present),
                            all_of([Check(shares[b][0] > 50.0, "more than half of the pairs") for b in present]),
                            ONE_FLOW))
    # Up to about 10x over TCP-ARQ, read on Fig. 3(c)'s CDF, whose axis stops at 10: a ratio above the cut,
    # or a pair where TCP-ARQ carried nothing (an infinite ratio), sits at the cut, counted and shown.
    r = relative(pp, "comp", "tcp-arq", "one", tcp)
    if comp.empty or not len(r):
        claims.append(Claim("Fig. 3(c): CoMP up to about 10x TCP-ARQ (a CDF cut at 10)" + tag, "no ratio",
                            Check(False, _missing("comp", "tcp-arq")), ONE_FLOW, PAPER["ratio_max"]))
    else:
        c = ratio_cut(r)
        p = PAPER["ratio_max"].value
        finite = f"{c['largest_finite']:.1f}x" if math.isfinite(c["largest_finite"]) else "none"
        claims.append(Claim("Fig. 3(c): CoMP up to about 10x TCP-ARQ (a CDF cut at 10)" + tag,
                            f"at or above the cut: {c['at_cut']} of {c['pairs']} pairs ({c['zeros']} where TCP-ARQ "
                            f"carried nothing); below it the CDF reaches {c['largest_below']:.1f}x; median "
                            f"{c['median']:.2f}; largest finite ratio {finite}",
                            Check(c["reach"] >= p / ABOUT_FACTOR,
                                  f"the CDF reaches {p / ABOUT_FACTOR:g}x or more (the cut counts)"),
                            ONE_FLOW, PAPER["ratio_max"]))
    # TCP-ARQ close to CoMP on one-hop pairs.
    if comp.empty or not len(r):
        claims.append(Claim("§III-B1: on one-hop pairs TCP-ARQ performs like CoMP" + tag, "no ratio",
                            Check(False, _missing("comp", "tcp-arq")), ONE_FLOW))
    else:
        hops = comp["hops"].reindex(r.index)
        one, multi = r[hops == 1], r[hops > 1]
        med1 = float(one.median()) if len(one) else math.nan
        medm = float(multi.median()) if len(multi) else math.nan
        claims.append(Claim("§III-B1: on one-hop pairs TCP-ARQ performs like CoMP, on longer ones worse" + tag,
                            f"median CoMP / TCP-ARQ over the pairs (those where TCP-ARQ carried nothing "
                            f"counted as above every ratio): one-hop {med1:.2f} ({len(one)} pairs), "
                            f"multi-hop {medm:.2f} ({len(multi)} pairs)",
                            all_of([Check(0.8 <= med1 <= 1.25, "one-hop median ratio in [0.8, 1.25]"),
                                    Check(medm > med1, "multi-hop median above the one-hop one")]), ONE_FLOW))
    # MORE falls as K grows.
    ks = [k for k in MORE_BATCHES if not _series_of(pp, "one", tcp, f"more{k}").empty]
    if len(ks) < 2:
        claims.append(Claim(f"§III-B1: MORE's throughput falls as the generation grows{tag}", "no runs of MORE",
                            Check(False, _missing(*[f"more{k}" for k in MORE_BATCHES])), ONE_FLOW))
    else:
        means = {k: float(_series_of(pp, "one", tcp, f"more{k}")["throughput_kbps"].mean()) for k in ks}
        claims.append(Claim(f"§III-B1: MORE's throughput falls as the generation grows{tag}",
                            ", ".join(f"K={k}: {v:.0f} kbit/s" for k, v in means.items()) + " (mean over pairs)",
                            falls(means[ks[0]], means[ks[-1]]), ONE_FLOW))
    # The efficiency of a 2-hop flow is at most 0.5.
    eff2 = pp[(pp["kind"] == "one") & (pp["tcp"] == tcp) & (pp["paths"] == D) & (pp["hops"] == 2)]["efficiency"]
    eff2 = eff2.dropna()
    claims.append(Claim("§III-B1: a 2-hop flow's efficiency is at most 0.5" + tag,
                        f"largest over 2-hop pairs and series: {float(eff2.max()):.3f}" if len(eff2) else "no 2-hop pairs",
                        at_most(float(eff2.max()) if len(eff2) else math.nan, 0.5) if len(eff2)
                        else Check(False, "needs 2-hop pairs"), ONE_FLOW, PAPER["eff_2hop_max"]))
    return claims


def claim_two_flows(pp, tcp: str, pf=None) -> list[Claim]:
    """Fig. 4's claims for one TCP variant; `pf`: `per_flow`'s rows (Horizon's share counts flows)."""
    tag = f" ({tcp})"
    claims = []
    r = relative(pp, "comp", "tcp-arq", "two", tcp)
    if not len(r):
        for text, key in (("Fig. 4(a): with two flows CoMP's aggregate beats TCP-ARQ's for about 60% of the pairs",
                           "two_above_pct"),
                          ("Fig. 4(c): CoMP's relative improvement over TCP-ARQ is under 1 for about 20% of the pairs",
                           "two_below_pct")):
            claims.append(Claim(text + tag, "no ratio", Check(False, _missing("comp", "tcp-arq")), TWO_FLOWS,
                                PAPER[key]))
    else:
        above, below = share(r > 1 + BEATS_BAND), share(r < 1 - BEATS_BAND)
        claims.append(Claim("Fig. 4(a): with two flows CoMP's aggregate beats TCP-ARQ's for about 60% of the pairs"
                            + tag, _pct(*above) + f" (ratio above {1 + BEATS_BAND:g})",
                            near(above[0], above[1], PAPER["two_above_pct"].value), TWO_FLOWS,
                            PAPER["two_above_pct"]))
        claims.append(Claim("Fig. 4(c): CoMP's relative improvement over TCP-ARQ is under 1 for about 20% of the pairs"
                            + tag, _pct(*below) + f" (ratio below {1 - BEATS_BAND:g})",
                            near(below[0], below[1], PAPER["two_below_pct"].value), TWO_FLOWS,
                            PAPER["two_below_pct"]))
    hz = _series_of(pp, "two", tcp, "horizon")
    hf = _horizon_flows(pf, tcp)
    text = "§III-B2: Horizon's throughput is close to 0 for about 80% of the flows" + tag
    if hz.empty or hf.empty:
        claims.append(Claim(text, "no runs of Horizon", Check(False, _missing("horizon")), TWO_FLOWS,
                            PAPER["horizon_zero_pct"]))
    else:
        # "for almost 80% of the flows" (§III-B2): each flow of the two counts, not their pair's aggregate.
        z = share(hf["goodput_kbps"] < NEAR_ZERO_KBPS)
        zp = share(hz["throughput_kbps"] < NEAR_ZERO_KBPS)
        claims.append(Claim(text, f"{fmt_ci(z[0], z[1], 0, '%')} of {z[2]} flows under {NEAR_ZERO_KBPS:g} kbit/s "
                            f"(pairs whose aggregate is: {_pct(*zp)})",
                            near(z[0], z[1], PAPER["horizon_zero_pct"].value), TWO_FLOWS, PAPER["horizon_zero_pct"]))
    e = relative(pp, "comp", "tcp-arq", "two", tcp, "efficiency")
    if not len(e):
        for text, key in (("§III-B2: CoMP is more efficient than TCP-ARQ for about 55% of the pairs", "eff_more_pct"),
                          ("§III-B2: CoMP is slightly less efficient than TCP-ARQ for about 25% of the pairs",
                           "eff_less_pct")):
            claims.append(Claim(text + tag, "no ratio", Check(False, _missing("comp", "tcp-arq")), TWO_FLOWS,
                                PAPER[key]))
    else:
        more = share(e > 1 + EQUAL_BAND)
        less = share(e < 1 - EQUAL_BAND)
        claims.append(Claim("§III-B2: CoMP is more efficient than TCP-ARQ for about 55% of the pairs" + tag,
                            _pct(*more) + f" (ratio above {1 + EQUAL_BAND:g})",
                            near(more[0], more[1], PAPER["eff_more_pct"].value), TWO_FLOWS, PAPER["eff_more_pct"]))
        claims.append(Claim("§III-B2: CoMP is slightly less efficient than TCP-ARQ for about 25% of the pairs" + tag,
                            _pct(*less) + f" (ratio below {1 - EQUAL_BAND:g})",
                            near(less[0], less[1], PAPER["eff_less_pct"].value), TWO_FLOWS, PAPER["eff_less_pct"]))
    return claims


def _horizon_flows(pf, tcp: str):
    """Horizon's flows of the two-flow part under `tcp` (per_flow's rows)."""
    import pandas as pd

    if pf is None or not len(pf):
        return pd.DataFrame(columns=["goodput_kbps"])
    return pf[(pf["series"] == "horizon") & (pf["tcp"] == tcp)]


def claim_fig2(df) -> list[Claim]:
    """Fig. 2: Alg. 1's estimate close to the configured loss at every loss rate (relays 2)."""
    d = df[(df["kind"] == "fig2") & (df["relays"] == FIG2_RELAYS[0])]
    claims = []
    for tcp in TCP_VARIANTS:
        dt = d[d["tcp"] == tcp]
        est = dt[dt["series"] == "estimated"].groupby("loss")["throughput_kbps"].mean()
        conf = dt[dt["series"] == "configured"].groupby("loss")["throughput_kbps"].mean()
        est, conf = est.align(conf, join="inner")
        text = f"Fig. 2: with Alg. 1's estimate CoMP's throughput is very close to the optimal ({tcp})"
        if not len(est):
            claims.append(Claim(text, "no runs", Check(False, _missing("estimated", "configured")), ESTIMATE))
            continue
        rel = {float(l): (e / c - 1) * 100 if c > 0 else math.nan for l, e, c in zip(est.index, est, conf)}
        claims.append(Claim(text, "estimate against configured: " + ", ".join(
            f"{l * 100:.0f}% loss {v:+.0f}%" for l, v in rel.items()),
            all_of([Check(math.isfinite(v) and abs(v) <= 10.0, "within 10% at every loss rate") for v in rel.values()],
                   "within 10% at every loss rate"), ESTIMATE))
    return claims


# ---------------------------------------------------------------- analysis

def analyze(results: dict, quick: bool = False) -> Analysis:
    df = per_run(results)
    pp = per_pair(df)
    tcps = [t for t in TCP_VARIANTS if t in set(df["tcp"])] if len(df) else []
    parts = [_fig2(df), _one_flow(pp, tcps), _two_flows(pp, tcps), _readings(df, tcps), _sensitivity(pp, tcps),
             _freifunk(pp, tcps)]
    claims = claim_fig2(df) + claim_setup(pp)
    pf = per_flow(results)
    for t in tcps:
        claims += claim_one_flow(pp, t) + claim_two_flows(pp, t, pf)
    joined = Analysis.join(parts)
    groups = _conclusions(df, pp, tcps, pf)
    claims = [dataclasses.replace(c, group=groups[c.group.name]) for c in claims]
    return Analysis.join([joined, Analysis(claims=claims), _highlights(pp, tcps, pf), claims_part(claims, CLAIMS_NOTE),
                          _notes(quick, df, results)], main_table="one_flow",
                         scenario_note="Parts: fig2-* (diamond), one-*, two-*, readings-*, paths-*, freifunk-* (roofnet-like); "
                                       "the scenario shown is the first part's.")


def _highlights(pp, tcps: list[str], pf=None) -> Analysis:
    """The headline boxes: the pairs' statistics, then per TCP the mean one-flow throughput of
    each series, CoMP's largest ratio over TCP-ARQ and Horizon's share near 0 with two flows."""
    out = []
    d = pp[(pp["kind"] == "one") & (pp["paths"] == D)].drop_duplicates("pair")["hops"].dropna() if len(pp) else []
    if len(d):
        m, ci, n = share(d == 1)
        out += [("One-hop pairs", f"{_pct(m, ci, n)} (paper: about 20%)", ""),
                ("Mean path", f"{d.mean():.2f} hops (paper: 2.5)", "")]
    for t in tcps:
        means = {s: float(_series_of(pp, "one", t, s)["throughput_kbps"].mean()) for s in ONE_SERIES
                 if not _series_of(pp, "one", t, s).empty}
        if means:
            out.append((f"One flow, mean over pairs ({t})", ", ".join(f"{LABELS[s]} {v:.0f}" for s, v in means.items())
                        + " kbit/s", ""))
        r = relative(pp, "comp", "tcp-arq", "one", t)
        r = r[r.apply(math.isfinite)] if len(r) else r
        if len(r):
            out.append((f"CoMP / TCP-ARQ, one flow ({t})", f"largest {r.max():.1f}x, median {r.median():.2f}, "
                        f"over the {len(r)} pairs where TCP-ARQ carried something (paper: up to about 10x)", ""))
        hz = _horizon_flows(pf, t)
        if not hz.empty:
            z = share(hz["goodput_kbps"] < NEAR_ZERO_KBPS)
            out.append((f"Horizon near 0, two flows ({t})",
                        f"{fmt_ci(z[0], z[1], 0, '%')} of {z[2]} flows (paper: about 80%)", ""))
    return Analysis(highlights=out)


def _series_present(pp, kind: str, order: list[str]) -> list[str]:
    have = set(pp[pp["kind"] == kind]["series"]) if len(pp) else set()
    return [s for s in order if s in have]


def _cdf_panel(ax, groups: dict, labels: dict, title: str, xlabel: str, logx: bool = False):
    for i, (s, vals) in enumerate(groups.items()):
        xs, ys = cdf(vals)
        if not xs:
            continue
        if logx:
            xs = [min(x, 1e3) for x in xs]
        ax.step(xs, ys, where="post", label=labels.get(s, s), linestyle="-" if i < 6 else "--")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Fraction of pairs")
    ax.set_ylim(0, 1.02)
    if logx:
        ax.set_xscale("log")
    ax.grid(alpha=0.3)


def _cdf_figure(pp, kind: str, tcps: list[str], order: list[str], name: str, title: str, figs: str):
    series = _series_present(pp, kind, order)
    fig, axs = grid_figure(13.0, 3.8 * max(1, len(tcps)), max(1, len(tcps)), 3)
    for i, t in enumerate(tcps):
        d = pp[(pp["kind"] == kind) & (pp["tcp"] == t) & (pp["paths"] == D)]
        thr = {s: d[d["series"] == s]["throughput_kbps"] for s in series}
        eff = {s: d[d["series"] == s]["efficiency"] for s in series}
        rel = {b: relative(pp, "comp", b, kind, t) for b in series if b != "comp"}
        agg = "Aggregate throughput" if kind == "two" else "Throughput"
        _cdf_panel(axs[i, 0], thr, LABELS, f"{agg}, {t}", f"{agg} (kbit/s)")
        _cdf_panel(axs[i, 1], eff, LABELS, f"Efficiency, {t}", "Delivered / transmitted bytes")
        cut = {b: [min(float(x), RATIO_CUT) for x in v] for b, v in rel.items() if len(v)}
        _cdf_panel(axs[i, 2], cut,
                   {b: f"CoMP / {LABELS[b]} ({ratio_cut(rel[b])['at_cut']} at ≥ {RATIO_CUT:g}, "
                       f"{ratio_cut(rel[b])['zeros']} of them {LABELS[b]} at 0)" for b in cut},
                   f"Relative improvement of CoMP, {t}",
                   f"CoMP / baseline (cut at {RATIO_CUT:g}: higher and infinite drawn there)")
        axs[i, 2].set_xlim(0, RATIO_CUT * 1.02)
        axs[i, 0].legend(fontsize=7)
        if any(len(v) for v in rel.values()):
            # Right of the curves that rise early (CoMP / TCP-ARQ stays visible), above those that stay low.
            axs[i, 2].legend(fontsize=6, loc="center right")
    return FigureOut(name, f"{title} ({figs})", fig,
                     "CDFs over pairs of the mean over seeds. *: not in the paper. The ratio panel is empty "
                     "without runs of CoMP.")


def _pair_table(pp, kind: str, tcps: list[str], order: list[str], paths: int = D):
    """Rows per TCP and series: throughput over pairs (mean ± CI, median), efficiency,
    share of pairs where CoMP is above, one-hop / multi-hop means."""
    import pandas as pd

    from ..analysis.stats import mean_ci

    rows, summary = [], {}
    for t in tcps:
        for s in _series_present(pp, kind, order):
            d = pp[(pp["kind"] == kind) & (pp["tcp"] == t) & (pp["series"] == s) & (pp["paths"] == paths)]
            if d.empty:
                continue
            m, ci, n = mean_ci(d["throughput_kbps"])
            em, eci, _ = mean_ci(d["efficiency"])
            one = d[d["hops"] == 1]["throughput_kbps"].mean()
            multi = d[d["hops"] > 1]["throughput_kbps"].mean()
            row = {"TCP": t, "series": LABELS.get(s, s), "pairs": n,
                   "throughput (kbit/s)": fmt_ci(m, ci, 0), "median": round(float(d["throughput_kbps"].median()), 1),
                   "one-hop pairs": round(float(one), 1) if math.isfinite(one) else "-",
                   "multi-hop pairs": round(float(multi), 1) if math.isfinite(multi) else "-",
                   "efficiency": fmt_ci(em, eci, 3)}
            entry = {"mean_kbps": m, "ci95": ci, "median_kbps": float(d["throughput_kbps"].median()),
                     "one_hop_kbps": float(one), "multi_hop_kbps": float(multi), "efficiency": em, "pairs": n}
            if s != "comp" and kind != "paths":
                r = relative(pp, "comp", s, kind, t)
                sm = share(r > 1)
                row["CoMP above (pairs)"] = _pct(*sm) if len(r) else "-"
                entry["comp_above_pct"] = sm[0]
                entry["ratio_median"] = float(r.median()) if len(r) else math.nan
            rows.append(row)
            summary.setdefault(t, {})[s] = entry
    return pd.DataFrame(rows), summary


def _one_flow(pp, tcps) -> Analysis:
    if pp.empty or "one" not in set(pp["kind"]):
        return Analysis()
    df, summary = _pair_table(pp, "one", tcps, ONE_SERIES)
    fig = _cdf_figure(pp, "one", tcps, ONE_SERIES, "one_flow", "One flow at a time, d = 2", "Fig. 3")
    return Analysis(summary={"one_flow": summary},
                    tables=[TableOut("one_flow", "One flow at a time, d = 2 (Fig. 3): over pairs", df,
                                     note="Per pair the mean over seeds; throughput mean ± 95% CI over pairs; "
                                          "median: the median over pairs of that throughput; "
                                          "one-hop / multi-hop: mean over those pairs; CoMP above: the share of "
                                          "pairs where CoMP's throughput is higher. *: not in the paper.")],
                    figures=[fig])


def _two_flows(pp, tcps) -> Analysis:
    if pp.empty or "two" not in set(pp["kind"]):
        return Analysis()
    df, summary = _pair_table(pp, "two", tcps, TWO_SERIES)
    fig = _cdf_figure(pp, "two", tcps, TWO_SERIES, "two_flows", "Two concurrent flows, d = 2", "Fig. 4")
    return Analysis(summary={"two_flows": summary},
                    tables=[TableOut("two_flows", "Two concurrent flows, d = 2 (Fig. 4): aggregate throughput over "
                                                  "pairs", df,
                                     note="Pair i runs with pair i + 1 of the list; throughput is the sum of the "
                                          "two flows (mean ± 95% CI over pairs; median: the median over pairs); "
                                          "one-hop / multi-hop by the first flow's path.")],
                    figures=[fig])


def readings_rows(df, tcps: list[str]):
    """The readings table's rows and summary: per reading and TCP, over the pairs and seeds the readings parts ran,
    CoMP's throughput, its stalled pairs, and its ratio over TCP-ARQ and Horizon (their one-flow runs of the same
    pairs and seeds). The default reading's row is the one-flow part's CoMP runs of those pairs and seeds."""
    import pandas as pd

    from ..analysis.stats import mean_ci

    rd = df[df["kind"] == "readings"] if len(df) else df
    if rd.empty:
        return pd.DataFrame(), {}
    pairs, seeds = set(rd["pair"]), set(rd["seed"])
    one = df[(df["kind"] == "one") & (df["paths"] == D) & df["pair"].isin(pairs) & df["seed"].isin(seeds)]
    runs = {DEFAULT_READING: one[one["series"] == "comp"]}
    runs.update({r: rd[rd["series"] == r] for r in READINGS})
    # Under the seed rule each reading's pairs may end at different seeds: a reading is compared
    # with the baselines' runs of its own (pair, seed) runs.
    ran = lambda x: set(zip(x["pair"], x["seed"]))  # noqa: E731
    rows, summary = [], {}
    for t in tcps:
        for r, d in runs.items():
            d = d[d["tcp"] == t]
            if d.empty:
                continue
            mine = d.assign(kind="r", series="comp")
            base = one[(one["tcp"] == t) & one["series"].isin(["tcp-arq", "horizon"])]
            keys = ran(d)
            base = base[[k in keys for k in zip(base["pair"], base["seed"])]].assign(kind="r")
            pp = per_pair(pd.concat([mine, base], ignore_index=True))
            c = pp[pp["series"] == "comp"]
            m, ci, n = mean_ci(c["throughput_kbps"])
            multi = c[c["hops"] > 1]["throughput_kbps"].mean()
            stalled = int((c["throughput_kbps"] < NEAR_ZERO_KBPS).sum())
            arq = relative(pp, "comp", "tcp-arq", "r", t)
            hz = relative(pp, "comp", "horizon", "r", t)
            hops = c.set_index("pair")["hops"]
            one_hop = arq[hops.reindex(arq.index) == 1]
            multi_hop = arq[hops.reindex(arq.index) > 1]
            above = share(arq > 1)
            above_hz = share(hz > 1)
            med = lambda x: float(x.median()) if len(x) else math.nan  # noqa: E731
            rows.append({"reading": READING_LABELS[r], "TCP": t, "pairs": n, "seeds": seeds_text(d.groupby("pair").size()),
                         "CoMP (kbit/s)": fmt_ci(m, ci, 0),
                         "multi-hop pairs": round(float(multi), 1) if math.isfinite(multi) else "-",
                         f"stalled (< {NEAR_ZERO_KBPS:g})": stalled,
                         "above TCP-ARQ": _pct(*above) if len(arq) else "-",
                         "above Horizon": _pct(*above_hz) if len(hz) else "-",
                         "CoMP / TCP-ARQ, one-hop median": round(med(one_hop), 2),
                         "multi-hop median": round(med(multi_hop), 2)})
            summary.setdefault(t, {})[r] = {"mean_kbps": m, "ci95": ci, "multi_hop_kbps": float(multi),
                                            "stalled": stalled, "above_arq_pct": above[0],
                                            "above_horizon_pct": above_hz[0], "ratio_one_hop": med(one_hop),
                                            "ratio_multi_hop": med(multi_hop), "pairs": n}
    return pd.DataFrame(rows), summary


def _readings(df, tcps) -> Analysis:
    table, summary = readings_rows(df, tcps)
    if table.empty:
        return Analysis()
    return Analysis(summary={"readings": summary},
                    tables=[TableOut("readings", "Readings of the paper's ambiguities: one flow, CoMP, d = 2", table,
                                     note="Compensation of a link's loss (scheme.comp.compensation: credits on a "
                                          "detected loss, a rate of 1 / (1 - loss), or both, §II-B/C), reinforced "
                                          "paths (routing.reinforce: each node picks among up to d next hops, or "
                                          "the d least-cost whole paths), and ns-2.33's TCP agent (preset = \"ns2\"). "
                                          "Per pair the mean over the seeds shown; CoMP mean ± 95% CI over pairs; "
                                          "the baselines are the one-flow part's runs of the same pairs and seeds "
                                          "(the paper's own set-up for them), so a reading moves CoMP only. Medians "
                                          "of CoMP / TCP-ARQ count pairs where TCP-ARQ carried nothing as above every "
                                          "ratio.")])


def _sensitivity(pp, tcps) -> Analysis:
    import pandas as pd

    from ..analysis.stats import mean_ci

    if pp.empty or "paths" not in set(pp["kind"]):
        return Analysis()
    rows, summary = [], {}
    pairs = set(pp[pp["kind"] == "paths"]["pair"])
    for t in tcps:
        for s in PATHS_SERIES:
            for d in sorted(set(PATHS) | {D}):
                kind = "one" if d == D else "paths"
                x = pp[(pp["kind"] == kind) & (pp["tcp"] == t) & (pp["series"] == s) & (pp["paths"] == d)
                       & (pp["pair"].isin(pairs))]
                if x.empty:
                    continue
                m, ci, n = mean_ci(x["throughput_kbps"])
                em, eci, _ = mean_ci(x["efficiency"])
                rows.append({"TCP": t, "series": LABELS[s], "d": d, "pairs": n, "throughput (kbit/s)": fmt_ci(m, ci, 0),
                             "median": round(float(x["throughput_kbps"].median()), 1),
                             "efficiency": fmt_ci(em, eci, 3)})
                summary.setdefault(t, {}).setdefault(s, {})[str(d)] = {"mean_kbps": m, "ci95": ci, "efficiency": em}
    return Analysis(summary={"sensitivity_paths": summary},
                    tables=[TableOut("sensitivity_paths", "Reinforced paths d = 1, 2, 3: one flow, CoMP and TCP-ARQ",
                                     pd.DataFrame(rows),
                                     note="d = 2 rows are the one-flow part's runs on the same pairs (it may have more "
                                          "seeds). TCP-ARQ codes end to end over the routed (first) path, so d "
                                          "leaves its runs unchanged (the same numbers at every d are expected); "
                                          "d sets how many next hops CoMP may forward to.")])


def _freifunk(pp, tcps) -> Analysis:
    if pp.empty or "freifunk" not in set(pp["kind"]):
        return Analysis()
    df, summary = _pair_table(pp, "freifunk", tcps, ONE_SERIES)
    d = pp[pp["kind"] == "freifunk"].drop_duplicates("pair")["hops"].dropna()
    oh = share(d == 1)
    note = (f"{FREIFUNK_NAME}; its {len(d)} pairs: mean path {d.mean():.2f} hops, one-hop share "
            f"{_pct(*oh)}. Positions from the map, losses from the same Shadowing channel.")
    fig = _cdf_figure(pp, "freifunk", tcps, ONE_SERIES, "freifunk", "One flow at a time on the Freifunk Ulm map",
                      "not in the paper")
    return Analysis(summary={"freifunk": {**summary, "mean_hops": float(d.mean()), "one_hop_pct": oh[0]}},
                    tables=[TableOut("freifunk", "One flow at a time on the Freifunk Ulm map's positions (not in the "
                                                 "paper)", df, note=note)], figures=[fig])


def _fig2(df) -> Analysis:
    import pandas as pd

    d = df[df["kind"] == "fig2"] if len(df) else df
    if d.empty:
        return Analysis()
    d = d.assign(loss_pct=(d["loss"] * 100).round().astype(int))
    stats = stats_by(d, ["relays", "tcp", "loss_pct", "series"], "throughput_kbps")
    rows, summary = [], {}
    relays = sorted(int(r) for r in d["relays"].dropna().unique())
    tcps = [t for t in TCP_VARIANTS if t in set(d["tcp"])]
    for r in relays:
        for t in tcps:
            for loss in sorted(d["loss_pct"].unique()):
                row = {"relays": r, "TCP": t, "loss (%)": int(loss)}
                for s in FIG2_SERIES:
                    m, ci, _ = stats.get((r, t, loss, s), (math.nan, math.nan, 0))
                    row[LABELS[s]] = fmt_ci(m, ci, 0)
                    summary.setdefault(str(r), {}).setdefault(t, {}).setdefault(str(int(loss)), {})[s] = m
                rows.append(row)
    fig, axs = grid_figure(6.0 * max(1, len(tcps)), 3.6 * len(relays), len(relays), max(1, len(tcps)))
    cut = False
    for i, r in enumerate(relays):
        for j, t in enumerate(tcps):
            sub = d[(d["relays"] == r) & (d["tcp"] == t)]
            line_panel(axs[i, j], sub, "loss_pct", "series", "throughput_kbps",
                       list(FIG2_SERIES), LABELS, f"{r} relays, {t}", "Loss rate on every link (%)",
                       "Throughput (kbit/s)")
            cut |= _axis_over_means(axs[i, j], sub)
            axs[i, j].legend(fontsize=7)
    return Analysis(summary={"fig2_kbps": summary},
                    tables=[TableOut("fig2", "Fig. 2: CoMP on the diamond, Alg. 1's estimate against the configured "
                                             "loss (kbit/s, mean ± 95% CI over seeds)", pd.DataFrame(rows))],
                    figures=[FigureOut("fig2", "Fig. 2: throughput against the loss rate on the diamond", fig,
                                       "Mean over seeds ± 95% CI; the configured loss gives each node the "
                                       "redundancy its links need (the paper's optimal curve)."
                                       + (f" With {FEW_SEEDS} seeds or fewer a CI is too wide to scale the axis by: "
                                          "the axis follows the means, and such whiskers run off its top."
                                          if cut else ""))])


FEW_SEEDS = 3


def _axis_over_means(ax, sub) -> bool:
    """Scales the y axis to the means, and to the CIs of points with more than FEW_SEEDS
    seeds only: a CI from 2-3 seeds (t = 4.3-12.7) would stretch it far beyond the data.
    True if a whisker now runs off the top."""
    st = [v for v in stats_by(sub, ["series", "loss_pct"], "throughput_kbps").values() if math.isfinite(v[0])]
    if not st:
        return False
    top = max(m + (ci if n > FEW_SEEDS and math.isfinite(ci) else 0.0) for m, ci, n in st)
    top = top * 1.1 if top > 0 else 1.0
    ax.set_ylim(0, top)
    return any(math.isfinite(ci) and m + ci > top for m, ci, _ in st)


def _notes(quick: bool, df, results: dict) -> Analysis:
    size = QUICK if quick else FULL
    ran = sorted(results)
    left = [p for p in _all_parts(quick) if p not in results]
    n = int(df.groupby(["kind", "series", "tcp", "paths", "pair"]).size().max()) if len(df) else 0
    notes = [f"Runs of {size['duration']:g} s, throughput measured from {size['measure_start']:g} s; efficiency "
             "over the whole run (application bytes delivered / MPDU bytes of the data frames all nodes sent, "
             f"TCP ACKs included). Up to {n} seeds per pair."]
    if quick:
        notes.append(f"Quick mode: {QUICK['pairs']} pairs, {QUICK['seeds']} seeds, {QUICK['duration']:g} s; run "
                     f"without --quick for {FULL['pairs']} pairs and at least {FULL['seeds']} seeds.")
    if left:
        notes.append("Parts not run (the sweeps were replaced): "
                     + ", ".join(left) + ". Claims that need them do not hold and say so.")
    return Analysis(summary={"seeds": n, "duration_s": size["duration"], "parts_run": ran, "parts_not_run": left},
                    notes=notes)
