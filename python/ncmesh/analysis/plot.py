"""Figures of sweep results (`ncmesh plot`): matplotlib, written as PNG and SVG.

- `plot_line`: a metric against a parameter, mean over seeds with 95 % CI error bars,
  one line per value of `hue`; optionally a reference series (e.g. ns-3) drawn apart.
- `plot_cdf`: empirical CDF over runs (seeds) of the per-run metric, one curve per hue.
- `plot_series`: a flow_series / node_series column over time, mean over seeds with a
  95 % CI band, one curve per hue.

Each returns a matplotlib Figure; `save_figure(fig, prefix)` writes PREFIX.png and
PREFIX.svg (the SVG is reproducible: fixed hash salt, no date).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

from .results import load_results, ok_runs, param_columns, table, varying
from .stats import mean_ci
from .table import per_run, summarize

LABELS = {
    "goodput_kbps": "Goodput (kbit/s)",
    "rtt_mean_ms": "Mean RTT (ms)",
    "rtt_samples": "RTT samples",
    "retransmissions": "Retransmissions",
    "fast_retransmits": "Fast retransmits",
    "timeouts": "Retransmission timeouts",
    "rx_bytes": "Bytes received",
    "tx_packets": "Packets sent",
    "payload_errors": "Payload errors",
    "cwnd_bytes": "Congestion window (bytes)",
    "queue_len": "Queue length (packets)",
    "t_s": "Time (s)",
    "hops": "Hops",
    "seed": "Seed",
    "events": "Simulator events",
    "wall_time_s": "Wall time (s)",
    "sim_time_s": "Simulated time (s)",
    "mac_frames_sent": "MAC frames sent",
    "mac_retries": "MAC retries",
    "collisions": "Collisions",
    "airtime_busy": "Busy airtime (fraction)",
    "queue_max": "Max queue length (packets)",
}
UNITS = {"kbps": "kbit/s", "mbps": "Mbit/s", "ms": "ms", "s": "s", "us": "µs", "bytes": "bytes",
         "m": "m", "pct": "%", "db": "dB", "dbm": "dBm", "packets": "packets"}

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
REFERENCE_STYLE = {"color": "#333333", "marker": "s", "linestyle": "--", "markerfacecolor": "white"}


def label(name: str) -> str:
    """A readable axis label with its unit: 'goodput_kbps' -> 'Goodput (kbit/s)'."""
    if name in LABELS:
        return LABELS[name]
    leaf = name.rsplit(".", 1)[-1]
    words = leaf.split("_")
    unit = UNITS.get(words[-1].lower()) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    text = " ".join(words).strip().capitalize() or name
    if "." in name:
        text = f"{text} ({name.rsplit('.', 1)[0]})" if not unit else f"{text} [{name.rsplit('.', 1)[0]}]"
    return f"{text} ({unit})" if unit else text


def _bare(name: str) -> str:
    """The label without its unit: 'goodput_kbps' -> 'Goodput'."""
    return label(name).split(" (")[0]


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "ncmesh"
    return plt


def new_figure(width: float = 7.0, height: float = 4.5, nrows: int = 1, **kwargs):
    """(fig, ax) with ncmesh's look (grid, no top/right spines)."""
    plt = _pyplot()
    fig, ax = plt.subplots(nrows, 1, figsize=(width, height), layout="constrained", **kwargs)
    for a in (ax if nrows > 1 else [ax]):
        a.grid(True, color="#dddddd", linewidth=0.8)
        a.set_axisbelow(True)
        a.spines[["top", "right"]].set_visible(False)
    return fig, ax


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) or hasattr(v, "dtype") and v.dtype.kind in "iuf"


def _integer_ticks(ax, values) -> None:
    vals = sorted({float(v) for v in values if _is_number(v) and math.isfinite(float(v))})
    if vals and all(v == int(v) for v in vals) and len(vals) <= 20:
        ax.set_xticks(vals)
        ax.set_xticklabels([str(int(v)) for v in vals])


def _hue_label(hue: Sequence[str], key) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(f"{h}={_short(v)}" for h, v in zip(hue, key))


def _hue_values(key) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(_short(v) for v in key)


def _short(v) -> str:
    if hasattr(v, "item"):              # numpy scalar
        v = v.item()
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v == int(v):
        return str(int(v)) if abs(v) < 1e15 else f"{v:g}"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _hue_list(hue) -> list[str]:
    if hue is None:
        return []
    if isinstance(hue, str):
        return [h.strip() for h in hue.split(",") if h.strip()]
    return list(hue)


def _pooled_note(results, used: Sequence[str]) -> str:
    runs = ok_runs(results)
    pooled = [k for k in varying(runs, param_columns(results)) if k not in used]
    return f" (pooled over {', '.join(pooled)})" if pooled else ""


def plot_line(results, x: str, y: str = "goodput_kbps", hue=None, table_name: str | None = None,
              per_run_agg: str = "mean", reference=None, reference_label: str = "reference",
              title: str | None = None, ax=None, ylim_zero: bool = True, dodge: float = 0.0):
    """`y` against parameter `x`: mean over seeds with 95 % CI error bars, a line per hue.

    `reference` (optional): a DataFrame with columns x, y (and optional `low`/`high` for a
    range) or a {x: y} dict, drawn as a separate dashed series named `reference_label`.
    Parameters that vary but are neither x nor hue are pooled (said in the title).
    `dodge` shifts the lines apart along x (by multiples of it) so that error bars at the
    same x do not hide each other.
    """
    results = load_results(results)
    hues = _hue_list(hue)
    df = summarize(results, y, by=hues + [x], table_name=table_name, per_run_agg=per_run_agg)
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    groups = list(df.groupby(hues, sort=True, dropna=False)) if hues else [((), df)]
    lines = len(groups) + (reference is not None)
    ci_text = f"mean ± 95% CI, {_n_text(df['n'])}" if (df["n"] > 1).any() else ""
    for i, (key, g) in enumerate(groups):
        g = g.sort_values(x)
        yerr = g[f"{y}_ci95"].fillna(0.0)
        if hues:
            name = _hue_values(key)
        else:
            name = "ncmesh" + (f" ({ci_text})" if ci_text else "")
        xs = g[x] + dodge * (i - (lines - 1) / 2) if dodge else g[x]
        ax.errorbar(xs, g[f"{y}_mean"], yerr=yerr, color=PALETTE[i % len(PALETTE)], marker="o",
                    markersize=5, linewidth=1.8, capsize=4, elinewidth=1.2, label=name)
    if reference is not None:
        _draw_reference(ax, reference, x, y, reference_label, dodge * (lines - 1) / 2)
    ax.set_xlabel(label(x))
    ax.set_ylabel(label(y))
    _integer_ticks(ax, df[x])
    if ylim_zero and df[f"{y}_mean"].min() >= 0:
        ax.set_ylim(bottom=0)
    ax.set_title(title or f"{_bare(y)} vs {_bare(x).lower()}{_pooled_note(results, hues + [x])}",
                 fontsize=11)
    if hues or reference is not None or ci_text:
        handles, names = ax.get_legend_handles_labels()
        if reference is not None and reference_label in names:     # ours first, the reference last
            k = names.index(reference_label)
            handles.append(handles.pop(k))
            names.append(names.pop(k))
        title = (", ".join(hues) + (f" ({ci_text})" if ci_text else "")) if hues else None
        ax.legend(handles, names, frameon=False, fontsize=9, title=title, title_fontsize=9,
                  alignment="left")
    return fig


def _n_text(n) -> str:
    values = sorted(set(int(v) for v in n))
    return f"{values[0]} runs each" if len(values) == 1 else f"{values[0]}–{values[-1]} runs each"


def _draw_reference(ax, reference, x, y, name, shift: float = 0.0) -> None:
    import pandas as pd

    if isinstance(reference, dict):
        reference = pd.DataFrame({x: list(reference), y: list(reference.values())})
    ref = reference.sort_values(x).copy()
    if shift:
        ref[x] = ref[x] + shift
    if "low" in ref.columns and "high" in ref.columns:
        yerr = [ref[y] - ref["low"], ref["high"] - ref[y]]
        ax.errorbar(ref[x], ref[y], yerr=yerr, capsize=3, elinewidth=1.0, markersize=5, linewidth=1.4,
                    label=name, zorder=3, **REFERENCE_STYLE)
    else:
        ax.plot(ref[x], ref[y], markersize=5, linewidth=1.4, label=name, zorder=3, **REFERENCE_STYLE)


def plot_cdf(results, y: str = "goodput_kbps", hue=None, table_name: str | None = None,
             per_run_agg: str = "mean", title: str | None = None, ax=None):
    """Empirical CDF over runs (seeds) of the per-run `y`, one step curve per hue value."""
    results = load_results(results)
    hues = _hue_list(hue)
    pr = per_run(results, y, table_name, per_run_agg, keys=hues)
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    groups = pr.groupby(hues, sort=True, dropna=False) if hues else [((), pr)]
    for i, (key, g) in enumerate(groups):
        vals = sorted(v for v in g[y] if v is not None and math.isfinite(v))
        if not vals:
            continue
        n = len(vals)
        xs = [vals[0]] + vals
        ps = [0.0] + [(k + 1) / n for k in range(n)]
        name = (_hue_label(hues, key) if hues else "all runs") + f" (n={n})"
        ax.step(xs, ps, where="post", color=PALETTE[i % len(PALETTE)], linewidth=1.8, label=name)
        ax.plot(vals, [(k + 1) / n for k in range(n)], "o", color=PALETTE[i % len(PALETTE)], markersize=3)
    ax.set_xlabel(label(y))
    ax.set_ylabel("Fraction of runs ≤ x")
    ax.set_ylim(0, 1.02)
    ax.set_title(title or f"CDF over seeds of {_bare(y).lower()}{_pooled_note(results, hues)}",
                 fontsize=11)
    ax.legend(frameon=False, fontsize=9, loc="lower right")
    return fig


def series_frame(results, y: str = "goodput_kbps", hue=None, table_name: str | None = None,
                 per_run_agg: str = "mean"):
    """Mean over runs and 95 % CI of a time-series column at each time: columns
    hue..., t_s, <y>_mean, <y>_ci95, n. Per run, rows at the same time (several flows
    or nodes) are first reduced with `per_run_agg`."""
    import pandas as pd

    results = load_results(results)
    hues = _hue_list(hue)
    if table_name is None:
        table_name = next((t for t in ("flow_series", "node_series") if y in table(results, t).columns), None)
        if table_name is None:
            cols = sorted(set(table(results, "flow_series").columns) | set(table(results, "node_series").columns))
            cols = [c for c in cols if c not in ("t_s", "flow", "node", "run_key", "sweep", "seed",
                                                 *param_columns(results))]
            raise KeyError(f"no time-series column {y!r}; available: {', '.join(cols) or 'none'}")
    df = table(results, table_name)
    if y not in df.columns:
        raise KeyError(f"no column {y!r} in the {table_name} table")
    runs = ok_runs(results)
    missing = [h for h in hues if h not in runs.columns]
    if missing:
        raise KeyError(f"no parameter {', '.join(map(repr, missing))} in the results")
    per = df.groupby(["run_key", "t_s"], sort=False)[y].agg(per_run_agg).rename(y).reset_index()
    per = runs[["run_key", *hues]].merge(per, on="run_key", how="inner")
    rows = []
    for key, g in per.groupby(hues + ["t_s"], sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        mean, half, n = mean_ci(g[y])
        rows.append({**dict(zip(hues + ["t_s"], key)), f"{y}_mean": mean, f"{y}_ci95": half, "n": n})
    return pd.DataFrame.from_records(rows, columns=hues + ["t_s", f"{y}_mean", f"{y}_ci95", "n"])


def plot_series(results, y: str = "goodput_kbps", hue=None, table_name: str | None = None,
                per_run_agg: str = "mean", title: str | None = None, ax=None):
    """A time series (flow_series or node_series column) over time: mean over seeds with
    a shaded 95 % CI band, one curve per hue value."""
    results = load_results(results)
    hues = _hue_list(hue)
    df = series_frame(results, y, hues, table_name, per_run_agg)
    if ax is None:
        fig, ax = new_figure()
    else:
        fig = ax.figure
    groups = df.groupby(hues, sort=True, dropna=False) if hues else [((), df)]
    for i, (key, g) in enumerate(groups):
        g = g.sort_values("t_s")
        color = PALETTE[i % len(PALETTE)]
        name = _hue_label(hues, key) if hues else "mean over runs"
        ax.plot(g["t_s"], g[f"{y}_mean"], color=color, linewidth=1.6, label=name)
        half = g[f"{y}_ci95"]
        if half.notna().any():
            ax.fill_between(g["t_s"], g[f"{y}_mean"] - half.fillna(0), g[f"{y}_mean"] + half.fillna(0),
                            color=color, alpha=0.18, linewidth=0)
    ax.set_xlabel(label("t_s"))
    ax.set_ylabel(label(y))
    if len(df) and df[f"{y}_mean"].min() >= 0:
        ax.set_ylim(bottom=0)
    band = " (band: 95% CI over seeds)" if df["n"].max() > 1 else ""
    ax.set_title(title or f"{_bare(y)} over time{band}{_pooled_note(results, hues)}", fontsize=11)
    if hues or len(df):
        ax.legend(frameon=False, fontsize=9)
    return fig


KINDS = {"line": plot_line, "cdf": plot_cdf, "series": plot_series}


def save_figure(fig, prefix: str | os.PathLike, close: bool = True) -> tuple[Path, Path]:
    """Writes PREFIX.png (150 dpi) and PREFIX.svg; returns both paths."""
    prefix = Path(prefix)
    if prefix.suffix.lower() in (".png", ".svg"):
        prefix = prefix.with_suffix("")
    prefix.parent.mkdir(parents=True, exist_ok=True)
    png, svg = prefix.with_name(prefix.name + ".png"), prefix.with_name(prefix.name + ".svg")
    fig.savefig(png, dpi=150, metadata={"Software": None})
    fig.savefig(svg, metadata={"Date": None, "Creator": None})
    if close:
        _pyplot().close(fig)
    return png, svg


def safe_name(text: str) -> str:
    """A file-name-safe version of text ('tcp.delayed_ack' -> 'tcp.delayed_ack', 'a b/c' -> 'a_b_c')."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "figure"
