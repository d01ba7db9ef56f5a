"""Means with 95 % confidence intervals across seeds (`ncmesh table`).

Each metric is first reduced to one number per run (`per_run`: the mean or the sum over
the run's flows or nodes; a runs-table metric already is one), then, for each group of
the `by` keys, averaged over the runs (seeds) with a Student t 95 % confidence interval
(n - 1 degrees of freedom): columns `keys..., <metric>_mean, <metric>_ci95, n`, where
`_ci95` is the half-width (mean +- ci95) and n the number of runs in the group.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from .results import load_results, metric_table, ok_runs, param_columns, table
from .stats import mean_ci

PER_RUN = ("mean", "sum", "min", "max")

# A text cell that reads as a number, a 'mean ± ci' pair, a percentage or a range: such a
# column is right-aligned like a numeric one.
NUMBER_CELL = re.compile(r"^\s*(-|[-+]?[\d.,]+(e[-+]?\d+)?\s*%?(\s*(±|–|-)\s*[\d.,]+\s*%?)?)\s*$")


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


def per_run(results, metric: str, table_name: str | None = None, per_run: str = "mean",
            keys: Sequence[str] | None = None):
    """One row per (successful) run: run_key, seed, the parameter columns (or `keys`) and
    `metric` reduced over the run's rows (flows or nodes) with `per_run`."""
    if per_run not in PER_RUN:
        raise ValueError(f"per_run must be one of {', '.join(PER_RUN)}, not {per_run!r}")
    results = load_results(results)
    name = metric_table(results, metric, table_name)
    runs = ok_runs(results)
    keys = list(keys) if keys is not None else param_columns(results)
    missing = [k for k in keys if k not in runs.columns]
    if missing:
        raise KeyError(f"no parameter {', '.join(map(repr, missing))} in the results; "
                       f"parameters: {', '.join(param_columns(results)) or 'none'}")
    ident = ["run_key"] + [c for c in ["seed", *keys] if c in runs.columns and c != "run_key"]
    ident = list(dict.fromkeys(ident))
    if name == "runs":
        return runs[ident + ([metric] if metric not in ident else [])].reset_index(drop=True)
    df = table(results, name)
    values = df.groupby("run_key", sort=False)[metric].agg(per_run)
    values = values.rename(metric).reset_index()
    if per_run == "sum":
        # A run whose rows are all NaN sums to 0 in pandas: keep it NaN instead.
        counts = df.groupby("run_key", sort=False)[metric].count().rename("_count").reset_index()
        values = values.merge(counts, on="run_key")
        values.loc[values["_count"] == 0, metric] = math.nan
        values = values.drop(columns="_count")
    return runs[ident].merge(values, on="run_key", how="inner").reset_index(drop=True)


def summarize(results, metric: str | Sequence[str] = "goodput_kbps", by: str | Sequence[str] | None = None,
              table_name: str | None = None, per_run_agg: str = "mean", confidence: float = 0.95):
    """Mean and confidence-interval half-width of each metric across runs, per group of `by`.

    `by` defaults to every sweep parameter; `[]` gives one row over all runs. Returns a
    DataFrame with columns by..., <metric>_mean, <metric>_ci95, n (and <metric>_n when a
    metric is missing in some runs of a group), sorted by the keys.
    """
    import pandas as pd

    results = load_results(results)
    metrics = _as_list(metric) or ["goodput_kbps"]
    keys = param_columns(results) if by is None else _as_list(by)
    rows: dict[tuple, dict] = {}
    order: list[tuple] = []
    for m in metrics:
        pr = per_run(results, m, table_name, per_run_agg, keys)
        if keys:
            groups = pr.groupby(keys, sort=True, dropna=False)
        else:
            groups = [((), pr)]
        for key, g in groups:
            key = key if isinstance(key, tuple) else (key,)
            if key not in rows:
                rows[key] = dict(zip(keys, key))
                rows[key]["n"] = len(g)
                order.append(key)
            mean, half, n = mean_ci(g[m], confidence)
            rows[key][f"{m}_mean"] = mean
            rows[key][f"{m}_ci95"] = half
            if n != rows[key]["n"]:
                rows[key][f"{m}_n"] = n
    columns = keys + [c for m in metrics for c in (f"{m}_mean", f"{m}_ci95")]
    extra = [f"{m}_n" for m in metrics if any(f"{m}_n" in r for r in rows.values())]
    out = pd.DataFrame.from_records([rows[k] for k in order], columns=columns + extra + ["n"])
    if len(metrics) == 1 and extra:
        # One metric: n counts the runs that have it.
        out["n"] = out[extra[0]].fillna(out["n"]).astype(int)
        out = out.drop(columns=extra)
    return out.reset_index(drop=True)


# --- formatting

def _decimals(values) -> int | None:
    """Decimals for a float column: by its largest magnitude (None: use %.4g)."""
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    if not finite:
        return 1
    top = max(finite)
    if top >= 1e7 or 0 < top < 1e-3:
        return None
    return 1 if top >= 100 else 2 if top >= 1 else 3


def _fmt(value, decimals: int | None = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, str)):
        return str(value)          # a text cell is shown as written ("33.3", not "33.30")
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}" if decimals is None else f"{x:.{decimals}f}"


def _cells(df) -> tuple[list[str], list[list[str]], list[bool]]:
    """Header, body cells and which columns are numeric. Float columns get one number of
    decimals each (a _ci95 column that of its _mean column)."""
    import pandas as pd

    header = [str(c) for c in df.columns]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    decimals = {}
    for c in df.columns:
        if pd.api.types.is_float_dtype(df[c]):
            decimals[c] = _decimals(df[c])
    for c in df.columns:
        base = str(c)[:-5] + "_mean" if str(c).endswith("_ci95") else None
        if base in decimals:
            decimals[c] = decimals[base]
    body = []
    for row in df.itertuples(index=False):
        cells = []
        for c, v in zip(df.columns, row):
            v = v.item() if hasattr(v, "item") else v
            cells.append(_fmt(v, decimals.get(c, 2)))
        body.append(cells)
    numeric = [num or (len(body) > 0 and all(NUMBER_CELL.match(r[i]) for r in body))
               for i, num in enumerate(numeric)]
    return header, body, numeric


def format_text(df) -> str:
    """An aligned plain-text table (numbers right-aligned, NaN as '-')."""
    header, body, numeric = _cells(df)
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in body]) + "\n"


def format_markdown(df) -> str:
    """A GitHub-flavoured Markdown table."""
    header, body, numeric = _cells(df)
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in body]
    return "\n".join(lines) + "\n"


def format_csv(df) -> str:
    return df.to_csv(index=False, float_format="%.10g", lineterminator="\n")


FORMATS = {"text": format_text, "csv": format_csv, "markdown": format_markdown}


def format_table(df, fmt: str = "text") -> str:
    try:
        return FORMATS[fmt](df)
    except KeyError:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}") from None


def with_ci_text(df, metrics: Sequence[str] | None = None, labels: dict | None = None):
    """A display copy of a `summarize` table: each <m>_mean / <m>_ci95 pair becomes one
    text column 'mean ± ci95' headed by the metric's label (e.g. 'Goodput (kbit/s)');
    a NaN half-width (one run) shows the mean alone."""
    import pandas as pd

    from .plot import label

    metrics = list(metrics) if metrics is not None else [
        c[:-5] for c in df.columns if c.endswith("_mean") and f"{c[:-5]}_ci95" in df.columns]
    labels = labels or {}
    out = pd.DataFrame(index=df.index)
    skip = {f"{m}_{s}" for m in metrics for s in ("mean", "ci95")}
    for c in df.columns:
        if c in skip:
            m = c[:-5]
            if c.endswith("_mean"):
                dec = _decimals(df[c])
                cells = []
                for mean, half in zip(df[f"{m}_mean"], df[f"{m}_ci95"]):
                    text = _fmt(mean, dec)
                    if half is not None and math.isfinite(float(half)):
                        text += f" ± {_fmt(half, dec)}"
                    cells.append(text)
                out[labels.get(m, label(m))] = cells
        else:
            out[c] = df[c]
    return out.reset_index(drop=True)
