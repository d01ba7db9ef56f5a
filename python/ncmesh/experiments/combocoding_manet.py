"""The two-path MANET of Chen et al.'s ComboCoding (Figs. 12-13, "Preliminary results for
multipath MANETs"): the `manet` part of `ncmesh reproduce combocoding`. Adaptive ComboCoding
over one and over two paths of a source and a destination joined by two disjoint strings,
20% loss in 50-80 s, path 1's first relay walking away from 80 s until its link to the source
breaks at 97 s; the routes of the start kept (the paper credits loss adaptation with the
recovery) and, as an ablation, re-computed as the relay moves. The string's set-up (radio,
TCP, reading of the loss) is combocoding.py's."""

from __future__ import annotations

import dataclasses

import math

from . import combocoding as cc
from .common import Analysis, Claim, ClaimGroup, FigureOut, TableOut, all_of, at_least, at_most, fmt_ci, less, sweep_base
from .figures import grid_figure, line_panel
from .measures import stats_by

# Fig. 12 is a drawing without sizes, and the text adds "an additional path" to Table 2's
# set-up. Hops per path: with 2 the leaving relay is a neighbour of both ends, so the
# hop-by-hop estimates of the DATA and the ACK sender both see the break; with 3 only the
# source's does. The paths run WIDTH_M either side of the source-destination line (relays
# of different paths 300 m apart: out of the 260 m range, within carrier sense).
HOPS = [2, 3]
WIDTH_M = 150.0
PHASES = [(20.0, 50.0, 0.0), (50.0, 80.0, 0.2), (80.0, 110.0, 0.0)]
MOVER = 1                        # path 1's first relay, a neighbour of the source
MOVE_S, BREAK_S = 80.0, 97.0     # "after 80 s", "path 1 breaks out completely at about 97 s"
WINDOWS = [(20.0, 50.0), (50.0, 80.0), (80.0, 95.0), (100.0, 110.0)]
WINDOW_NAMES = ["20-50 s (0%)", "50-80 s (20%)", "80-95 s (0%, relay leaving)", "100-110 s (path 1 broken)"]
DROP = (96.0, 100.0)             # "first drops to zero": the lowest 1 s sample around the break
# series -> (routing.paths, routing.follow_mobility)
SERIES = {"one": (1, False), "two": (2, False), "one-rerouted": (1, True), "two-rerouted": (2, True)}
# Not in the paper's text: one path found and repaired by AODV (part `manet-aodv`), the
# routing QualNet runs in a MANET; AODV keeps one route per destination.
AODV_SERIES = "one-aodv"
LABELS = {"one": "one path", "two": "two paths", "one-rerouted": "one path, re-routed",
          "two-rerouted": "two paths, re-routed", AODV_SERIES: "one path, AODV"}
ORDER = list(SERIES) + [AODV_SERIES]

GROUP = ClaimGroup("the two-path MANET", "", "docs/results/combocoding.md, Figs. 12-13")


def mover_waypoints() -> list[dict]:
    """The leaving relay's path: still until MOVE_S, then straight away from both its path
    neighbours at the speed that takes it out of the source's receive range at BREAK_S
    (about 0.95 m/s), on to the end of the run."""
    a = math.sqrt(cc.SPACING_M ** 2 - WIDTH_M ** 2)        # the two-path builder's first hop
    y_break = math.sqrt(cc.RX_RANGE_M ** 2 - a ** 2)
    v = (y_break - WIDTH_M) / (BREAK_S - MOVE_S)
    end = PHASES[-1][1]
    return [{"t_s": MOVE_S, "x": a, "y": WIDTH_M},
            {"t_s": end, "x": a, "y": round(WIDTH_M + v * (end - MOVE_S), 6)}]


def _base(settings: dict | None = None) -> dict:
    loss = [{"frames": cc.READING, "schedule": [{"from_s": a, "to_s": b, "rate": r} for a, b, r in PHASES if r > 0]}]
    return sweep_base("two-path", {"spacing": cc.SPACING_M, "width": WIDTH_M},
                      {**cc.STRING_SETTINGS, "tcp.delayed_ack": cc.DELAYED_ACK, "loss": loss,
                       "scheme.name": "combocoding", "scheme.pipeline.adaptive": True,
                       "routing.spread": "round-robin", f"nodes.{MOVER}.waypoints": mover_waypoints(),
                       **(settings or {})},
                      duration=PHASES[-1][1], start=PHASES[0][0], start_spread=0.0, measure_start=PHASES[0][0],
                      seed="run")


def sweep(name: str, readings: list[str], seeds: dict) -> dict:
    """The part's sweep: hops per path × one or two paths × routes kept or re-computed ×
    `readings`. One path is routing.paths = 1 with the routes of the start: of the two
    equal-length paths the routing takes the one through the lower node ids, path 1 (the one
    that breaks); `routing.spread` is a no-op there."""
    return {"name": name, "base": _base(),
            "grid": {"hops": list(HOPS), "routing.paths": [1, 2], "routing.follow_mobility": [False, True],
                     "loss.0.frames": list(readings)},
            "seeds": seeds}


def aodv_sweep(name: str, readings: list[str], seeds: dict) -> dict:
    """The `manet-aodv` part: hops per path × `readings` with AODV (RFC 3561's defaults, no
    HELLOs), which finds one of the two paths, loses it when the MAC's retries to the leaving
    relay run out, and discovers the other."""
    return {"name": name, "base": _base({"routing.protocol": "aodv", "routing.paths": 1}),
            "grid": {"hops": list(HOPS), "loss.0.frames": list(readings)}, "seeds": seeds}


def _series_name(paths, follow) -> str:
    key = (int(paths), bool(follow))
    for name, v in SERIES.items():
        if v == key:
            return name
    raise ValueError(f"manet part: routing.paths = {paths}, routing.follow_mobility = {follow} is not one of "
                     f"the series {', '.join(f'{k} {v}' for k, v in SERIES.items())}")


def runs(results: dict):
    """One row per run: series, hops, reading, seed, w0..w3 (Mbit/s in WINDOWS) and drop
    (the lowest 1 s sample in DROP)."""
    import pandas as pd

    frames = []
    for part in ("manet", "manet-aodv"):
        res = results.get(part)
        if res is None:
            continue
        keys = ["hops", "loss.0.frames"] + (["routing.paths", "routing.follow_mobility"] if part == "manet" else [])
        df = cc._window_goodput(res.flow_series, keys, WINDOWS)
        fs = res.flow_series
        fs = fs[(fs["flow"] == 0) & (fs["t_s"] > DROP[0]) & (fs["t_s"] <= DROP[1] + 1e-9)]
        low = (fs.groupby(keys + ["seed"], dropna=False)["goodput_kbps"].min() / 1000.0).rename("drop")
        df = df.merge(low.reset_index(), on=keys + ["seed"], how="left")
        if part == "manet":
            df["series"] = [_series_name(p, f) for p, f in zip(df.pop("routing.paths"),
                                                                df.pop("routing.follow_mobility"))]
        else:
            df["series"] = AODV_SERIES
        frames.append(df.rename(columns={"loss.0.frames": "reading"}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def series(results: dict):
    """Goodput over time: series, hops, reading, t_s, seed, goodput (Mbit/s)."""
    import pandas as pd

    frames = []
    for part in ("manet", "manet-aodv"):
        res = results.get(part)
        if res is None:
            continue
        fs = res.flow_series
        fs = fs[fs["flow"] == 0]
        names = ([_series_name(p, f) for p, f in zip(fs["routing.paths"], fs["routing.follow_mobility"])]
                 if part == "manet" else AODV_SERIES)
        frames.append(pd.DataFrame({"series": names, "hops": fs["hops"].astype(int), "reading": fs["loss.0.frames"],
                                    "t_s": fs["t_s"], "seed": fs["seed"], "goodput": fs["goodput_kbps"] / 1000.0}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def analyze(df, ts) -> Analysis:
    """Table `manet` (goodput per window) and figure `goodput_time_manet` (Fig. 13)."""
    import pandas as pd

    if df.empty:
        return Analysis()
    st = {i: stats_by(df, ["reading", "hops", "series"], f"w{i}") for i in range(len(WINDOWS))}
    rows, summary = [], {}
    order = ORDER
    keys = sorted({(r, int(h), s) for r, h, s in zip(df["reading"], df["hops"], df["series"])},
                  key=lambda k: (k[0] != cc.READING, k[0], k[1], order.index(k[2])))
    for r, h, sname in keys:
        row = {"reading": r, "hops per path": h, "series": LABELS[sname]}
        for i, w in enumerate(WINDOW_NAMES):
            m, ci, _ = cc._ms(st[i], (r, h, sname))
            row[w] = fmt_ci(m, ci, 2)
            summary[f"{r}_{h}hops_{sname}_w{i}"] = m
        rows.append(row)
    note = ("Adaptive ComboCoding, goodput (Mbit/s, mean ± 95% CI) per window. Routes kept: the routes of the start, "
            "as the paper's recovery \"thanks to loss adaptation\" implies; re-routed: re-computed from the positions "
            "every 0.1 s (an oracle routing protocol, not in the paper); AODV: one path found, lost and found "
            "again by AODV (RFC 3561's defaults, no HELLOs; not in the paper's text, the routing of its simulator "
            "in a MANET). The paper gives Fig. 13 as a plot only.")
    readings = sorted(ts["reading"].unique(), key=lambda x: (x != cc.READING, x))
    hops = sorted(ts["hops"].unique())
    fig, axs = grid_figure(4.2 * len(hops), 3.2 * len(readings), len(readings), len(hops))
    for i, r in enumerate(readings):
        for j, h in enumerate(hops):
            ax = axs[i, j]
            line_panel(ax, ts[(ts["reading"] == r) & (ts["hops"] == h)], "t_s", "series", "goodput", order, LABELS,
                       f"{h} hops per path, reading `{r}`", "Time (s)", "Goodput (Mbit/s)")
            ax.axvspan(*PHASES[1][:2], alpha=0.12, color="grey", lw=0)
            ax.axvline(BREAK_S, color="k", lw=0.8, ls="--")
            ax.legend(fontsize=6)
    return Analysis(summary={"manet": summary},
                    tables=[TableOut("manet", "Figs. 12-13: ComboCoding over one and two paths of a MANET",
                                     pd.DataFrame(rows), note=note)],
                    figures=[FigureOut("goodput_time_manet", "Goodput over time on the two-path MANET (Fig. 13)", fig,
                                       "Mean over seeds ± 95% CI per 1 s sample; shading: 20% loss; dashed: path 1 "
                                       "breaks.")])


def claims(df) -> Analysis:
    """Fig. 13's claims under the set-up of the other parts (cc.READING) with the routes
    kept, at every hop count run."""
    d = df[df["reading"] == cc.READING] if not df.empty else df
    if d.empty:
        return Analysis()
    st = {i: stats_by(d, ["hops", "series"], f"w{i}") for i in range(len(WINDOWS))}
    drop = stats_by(d, ["hops", "series"], "drop")
    hops = sorted(d["hops"].unique())

    def m(i, h, s):
        return cc._ms(st[i], (h, s))[0]

    def per_hops(fmt):
        return "; ".join(f"{int(h)} hops per path: {fmt(h)}" for h in hops)

    out = []
    for i, text in ((0, "Fig. 13, 20-50 s: ComboCoding over two paths delivers less than over one (more nodes "
                        "contend)"),
                    (1, "Fig. 13, 50-80 s (20% loss): two paths below one path (the extra contention's overhead)")):
        out.append(Claim(text, per_hops(lambda h, i=i: f"one {m(i, h, 'one'):.2f}, two {m(i, h, 'two'):.2f} Mbit/s"),
                         all_of([less(m(i, h, "two"), m(i, h, "one")) for h in hops],
                                "ordering of the means at every hop count"), GROUP))
    out.append(Claim(
        "Fig. 13: once path 1 breaks (97 s) ComboCoding over one path is terminated (with the routes kept this "
        "follows from the set-up: no route is left)",
        per_hops(lambda h: f"{m(3, h, 'one'):.2f} Mbit/s in 100-110 s"),
        all_of([at_most(m(3, h, "one"), 0.1) for h in hops], "at most 0.1 Mbit/s at every hop count"), GROUP))
    out.append(Claim(
        "Fig. 13: over two paths ComboCoding first drops to zero at the break, then quickly recovers thanks to loss "
        "adaptation",
        per_hops(lambda h: f"lowest 1 s sample in 96-100 s {cc._ms(drop, (h, 'two'))[0]:.2f}, 100-110 s "
                           f"{m(3, h, 'two'):.2f} against {m(0, h, 'two'):.2f} Mbit/s in 20-50 s"),
        all_of([at_most(cc._ms(drop, (h, "two"))[0], 0.1) for h in hops]
               + [at_least(m(3, h, "two"), 0.5 * m(0, h, "two")) for h in hops],
               "lowest sample at most 0.1 Mbit/s, and 100-110 s at least half of 20-50 s, at every hop count"),
        GROUP))
    last = hops[-1]
    group = dataclasses.replace(GROUP, conclusion=(
        f"under the `{cc.READING}` loss reading with the routes kept, at {int(last)} hops per path: one path "
        f"{m(0, last, 'one'):.2f} and two paths {m(0, last, 'two'):.2f} Mbit/s in 20-50 s, {m(1, last, 'one'):.2f} "
        f"and {m(1, last, 'two'):.2f} in 50-80 s (20% loss), and after the break (100-110 s) two paths "
        f"{m(3, last, 'two'):.2f} Mbit/s; loss adaptation is hop by hop (Eq. 3), so the packets spread onto the "
        "broken path each burn the MAC's retries while too few generations complete for the estimate to rise"))
    return Analysis(claims=[dataclasses.replace(c, group=group) for c in out])
