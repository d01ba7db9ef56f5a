"""Shared helpers of the coding reproductions (ncaqm, cope-tcp): per-run network
throughput, paired improvements over a baseline with 95% CIs, coding counters, figures."""

from __future__ import annotations

import math

COUNTERS = ("native_tx", "coded_tx", "coded_packets", "decode_failures", "coding_missed",
            "coding_retransmissions", "control_tx")


def mean_ci(values) -> tuple[float, float, int]:
    from ..analysis.stats import mean_ci as _mean_ci

    vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not vals:
        return math.nan, math.nan, 0
    return _mean_ci(vals)


def fmt_ci(mean: float, ci: float, digits: int = 1, unit: str = "") -> str:
    if mean is None or not math.isfinite(mean):
        return "-"
    s = f"{mean:.{digits}f}"
    if ci is not None and math.isfinite(ci):
        s += f" ± {ci:.{digits}f}"
    return s + unit


def pct(x) -> str:
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:+.0f}%"


def per_run_total(results, keys: list[str]):
    """One row per run: keys..., seed, run_key, throughput_kbps (sum of the flows'
    goodput = the network's total transport throughput)."""
    flows = results.flows
    cols = [k for k in keys if k in flows.columns]
    g = flows.groupby(cols + ["seed", "run_key"], dropna=False)["goodput_kbps"].sum().reset_index()
    return g.rename(columns={"goodput_kbps": "throughput_kbps"})


def per_run_counters(results, keys: list[str]):
    """One row per run: keys..., seed, the coding counters summed over nodes, and MAC
    data transmissions where the core reports them."""
    nodes = results.nodes
    cols = [k for k in keys if k in nodes.columns]
    have = [c for c in COUNTERS if c in nodes.columns]
    extra = [c for c in ("drops_queue", "queue_drops", "mac_drops", "drops_retry") if c in nodes.columns]
    return nodes.groupby(cols + ["seed", "run_key"], dropna=False)[have + extra].sum().reset_index()


def improvements(df, keys: list[str], scheme_key: str, baseline: str, value: str = "throughput_kbps"):
    """Paired per-seed improvement (%) of every scheme over `baseline` within each group
    of `keys` (same seed, same other parameters). Returns rows keys..., scheme, seed,
    improvement_pct."""
    import pandas as pd

    base = df[df[scheme_key] == baseline][keys + ["seed", value]].rename(columns={value: "_base"})
    other = df[df[scheme_key] != baseline]
    m = other.merge(base, on=keys + ["seed"], how="inner")
    m["improvement_pct"] = (m[value] - m["_base"]) / m["_base"] * 100.0
    return pd.DataFrame(m[keys + [scheme_key, "seed", "improvement_pct", value, "_base"]])


def stats_by(df, keys: list[str], value: str):
    """Mean, 95% CI half-width and n of `value` per group of `keys` ({key tuple: (m, ci, n)})."""
    out = {}
    for k, g in df.groupby(keys, dropna=False, sort=True):
        k = k if isinstance(k, tuple) else (k,)
        out[k] = mean_ci(g[value])
    return out


def line_panel(ax, df, x: str, hue: str, value: str, order: list, labels: dict, title: str,
               xlabel: str, ylabel: str = "Total throughput (kbit/s)", colors: dict | None = None,
               logx: bool = False):
    """Mean ± 95% CI of `value` vs `x`, one line per value of `hue`."""
    stats = stats_by(df, [hue, x], value)
    for i, h in enumerate(order):
        pts = sorted((k[1], v) for k, v in stats.items() if k[0] == h)
        if not pts:
            continue
        xs = [p[0] for p in pts]
        ms = [p[1][0] for p in pts]
        cis = [0.0 if not math.isfinite(p[1][1]) else p[1][1] for p in pts]
        ax.errorbar(xs, ms, yerr=cis, marker="os^dvx"[i % 6], capsize=3, label=labels.get(h, str(h)),
                    color=(colors or {}).get(h))
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log")
    ax.grid(alpha=0.3)
    ax.set_ylim(bottom=0)


def grid_figure(width: float, height: float, nrows: int = 1, ncols: int = 1):
    """(figure, axes array) in the house style (constrained layout)."""
    import numpy as np

    from ..analysis.plot import _pyplot

    plt = _pyplot()
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", squeeze=False)
    return fig, np.asarray(axes)
