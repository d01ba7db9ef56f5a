"""Figure helpers of the reproductions: line panels of mean ± 95% CI and figures in the
house style."""

from __future__ import annotations

import math

from .measures import stats_by


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
