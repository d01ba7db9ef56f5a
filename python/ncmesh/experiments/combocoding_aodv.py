"""Table 3 of Chen et al.'s ComboCoding under on-demand routing: the `aodv-*` parts of
`ncmesh reproduce combocoding`. Not a reading of the paper's text, which does not name its
routing, but of its simulator: QualNet routes a MANET with AODV, and a route that breaks when
the MAC's retries run out (RFC 3561 §6.11) may be what collapses NewReno and PiggyCode at 40%
loss while the coded schemes, which lose fewer frames per packet delivered, survive. The
parts run Table 3's four columns on the same strings under each loss reading with
`routing.protocol = "aodv"` (RFC 3561's defaults, no HELLOs: link breaks come from the MAC's
feedback, ncmesh's default; the paper gives no AODV setting), and the analysis asks whether
one reading then fits all four columns.

The set-up (radio, TCP, delayed ACKs, interference over two hops, the coded columns' default
variants) is combocoding.py's; only the routing and the loss reading differ."""

from __future__ import annotations

import math

from . import combocoding as cc
from .common import Analysis, TableOut, fmt_ci, seeds_for
from .measures import stats_by

PREFIX = "aodv-readings"
# Table 3's columns, each with its settings in the string parts (coded columns at their
# default variant).
COLUMNS = {"uncoded": {"scheme.name": "none"},
           "pipeline": cc.STRING_SERIES["pipeline"],
           "adaptive": cc.STRING_SERIES["adaptive"]}
AODV = {"routing.protocol": "aodv"}
# Table 3's pattern at 40% loss (50-80 s): NewReno and PiggyCode collapse (the paper: at most
# 0.05 Mbit/s at every hop count), adaptive ComboCoding carries on (the paper: 0.43-1.07).
COLLAPSED_MBPS = 0.1
SURVIVES_MBPS = 0.25


def sweeps(size: dict, quick: bool) -> dict[str, dict]:
    """{part: sweep}: Table 3's four columns under AODV, hops × loss reading."""
    parts = {}
    for col, settings in COLUMNS.items():
        name = PREFIX if col == "uncoded" else f"{PREFIX}-{col}"
        grid = {"hops": list(size["readings_hops"]), "loss.0.frames": list(cc.READINGS)}
        if col == "uncoded":
            grid["scheme.name"] = ["none", "piggycode"]
        parts[name] = {"name": f"{cc.NAME}-{name}", "base": cc._string_base({**settings, **AODV}),
                       "grid": grid, "seeds": seeds_for(size["readings_seeds"], quick)}
    return parts


def runs(results: dict):
    """One row per run: series, frames, hops, seed, w0..w3 (Mbit/s, as the string parts),
    breaks (AODV route breaks over the run, all nodes) and rreq (RREQs sent)."""
    import pandas as pd

    frames = []
    for part, res in results.items():
        if part != PREFIX and not part.startswith(PREFIX + "-"):
            continue
        keys = ["run_key", "hops", "loss.0.frames"] + (["scheme.name"] if part == PREFIX else [])
        df = cc._window_goodput(res.flow_series, keys)
        df["series"] = df.pop("scheme.name") if part == PREFIX else part[len(PREFIX) + 1:]
        per = res.nodes.groupby("run_key").agg(breaks=("aodv_route_breaks", "sum"), rreq=("aodv_rreq_tx", "sum"))
        df = df.merge(per, left_on="run_key", right_index=True, how="left").drop(columns=["run_key"])
        frames.append(df.rename(columns={"loss.0.frames": "frames"}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def analyze(df, static) -> Analysis:
    """Tables `table3_aodv` (every column under every reading with AODV, route breaks per run)
    and `aodv_readings` (per reading: the distance from Table 3 under AODV beside static
    routing's, and whether Table 3's pattern at 40% holds). `static`: combocoding's readings
    runs (static routing), for the distances beside."""
    import pandas as pd

    if df.empty:
        return Analysis()
    keys = ["frames", "series", "hops"]
    st = {i: stats_by(df, keys, f"w{i}") for i in range(3)}
    brk = stats_by(df, keys, "breaks")
    hops = sorted(df["hops"].unique())
    rows = []
    for f in cc.READINGS:
        for s in cc.TABLE3_SERIES:
            for h in hops:
                if (f, s, h) not in st[0]:
                    continue
                paper = cc.PAPER_TABLE3.get(int(h), {}).get(s)
                row = {"reading": f, "series": cc.LABELS[s], "hops": int(h)}
                for i, w in enumerate(cc.WINDOW_NAMES):
                    m, ci, _ = st[i][(f, s, h)]
                    row[w] = fmt_ci(m, ci, 2) + (f" ({paper[i]:.2f})" if paper else "")
                m, ci, _ = brk[(f, s, h)]
                row["route breaks per run"] = fmt_ci(m, ci, 1)
                rows.append(row)

    def mean(f, s, h, i):
        return cc._ms(st[i], (f, s, h))[0]

    summary, dist_rows = {}, []
    for f in cc.READINGS:
        if not any((f, s, h) in st[0] for s in cc.TABLE3_SERIES for h in hops):
            continue
        d_aodv = cc._distance(df.assign(delayed_ack=cc.DELAYED_ACK), f, cc.DELAYED_ACK, cc.RANGE)
        d_static = (cc._distance(static, f, cc.DELAYED_ACK, cc.RANGE) if not static.empty else math.nan)
        collapsed = all(mean(f, s, h, 1) <= COLLAPSED_MBPS for s in ("none", "piggycode") for h in hops)
        survives = all(mean(f, "adaptive", h, 1) >= SURVIVES_MBPS for h in hops)
        at40 = "; ".join(f"{h} hops: " + " / ".join(f"{mean(f, s, h, 1):.2f}" for s in cc.TABLE3_SERIES)
                         for h in hops)
        dist_rows.append({"reading": f,
                          "mean |ours − paper|, AODV (Mbit/s)": round(d_aodv, 3) if math.isfinite(d_aodv) else None,
                          "static routing": round(d_static, 3) if math.isfinite(d_static) else None,
                          "50-80 s (40%): " + " / ".join(cc.SERIES_LABEL[s] for s in cc.TABLE3_SERIES): at40,
                          "Table 3's pattern at 40%": "yes" if collapsed and survives else "no"})
        summary[f] = {"distance_aodv": d_aodv, "distance_static": d_static, "pattern": collapsed and survives,
                      "uncoded_collapse": collapsed, "adaptive_survives": survives}
    fits = [r for r, v in summary.items() if v["pattern"]]
    lines = [("Under AODV Table 3's pattern at 40% loss (NewReno and PiggyCode at most "
              f"{COLLAPSED_MBPS:g} Mbit/s, adaptive ComboCoding at least {SURVIVES_MBPS:g}, at every hop count) holds "
              "with the reading" + ("s " if len(fits) > 1 else " ") + ", ".join(f"`{r}`" for r in fits)) if fits else
             ("Under AODV no loss reading gives Table 3's pattern at 40% loss (NewReno and PiggyCode at most "
              f"{COLLAPSED_MBPS:g} Mbit/s and adaptive ComboCoding at least {SURVIVES_MBPS:g} at every hop count).")]
    note = ("Table 3's four columns (Mbit/s, mean ± 95% CI; Table 3 in parentheses) on the same strings with "
            "`routing.protocol = \"aodv\"` (RFC 3561's defaults, no HELLOs), under each reading of the per-link loss; "
            f"delayed ACKs {cc._on(cc.DELAYED_ACK)}, interference over {cc.RANGE}. Route breaks: AODV's count over "
            "the run, all nodes (a unicast the MAC gave up on).")
    return Analysis(summary={"aodv_readings": summary},
                    tables=[TableOut("aodv_readings", "The route-break hypothesis: Table 3 under AODV, per loss reading",
                                     pd.DataFrame(dist_rows), lines=lines,
                                     note="Mean absolute difference from Table 3 over the hop counts run and the three "
                                          "windows, all four columns, under AODV and (the readings parts) under static "
                                          "routing with the same delayed ACKs and interference."),
                            TableOut("table3_aodv", "Table 3's columns under AODV, per loss reading",
                                     pd.DataFrame(rows), note=note)])
