"""Reading a sweep results directory and finding its parameter and metric columns.

A results directory (written by `ncmesh sweep` / `ncmesh.sweep.run_sweep`) holds one
Parquet file per run in each of runs/, flows/, nodes/, flow_series/, node_series/ and a
JSON file per failed run in errors/. `load_results()` accepts such a directory or an
object that already has the tables (`ncmesh.sweep.open_results()`'s `Results`).
"""

from __future__ import annotations

import json
from pathlib import Path

# Columns of the runs table that are not sweep parameters.
RUN_COLUMNS = frozenset({
    "run_key", "sweep", "seed", "status", "events", "sim_time_s", "wall_time_s",
    "ncmesh_version", "core_build", "sweep_id", "scenario_toml", "params_json", "error",
})
# Columns of the per-run tables that identify a row rather than measure something.
ID_COLUMNS = frozenset({
    "run_key", "sweep", "seed", "flow", "node", "src", "dst", "transport", "path", "t_s", "x", "y",
})
FAILED_STATUSES = frozenset({"failed", "error", "errored", "timeout", "crashed"})
# Where a metric is looked up when no table is named.
METRIC_TABLES = ("flows", "nodes", "runs")


def load_results(source):
    """The results of a sweep: `source` is a results directory (opened with
    `ncmesh.sweep.open_results`) or an object with DataFrame attributes runs, flows,
    nodes, flow_series, node_series (and errors), such as what that returns."""
    if hasattr(source, "runs") and hasattr(source, "flows"):
        return source
    path = Path(source)
    if not path.is_dir():
        raise FileNotFoundError(2, "no such results directory", str(path))
    if not (path / "runs").is_dir():
        raise FileNotFoundError(2, "not a results directory (no runs/ folder)", str(path))
    from ..sweep import open_results

    return open_results(path)


def table(results, name: str):
    """One table of the results as a DataFrame (empty if the results lack it)."""
    import pandas as pd

    df = getattr(results, name, None)
    return df if df is not None else pd.DataFrame()


def ok_runs(results):
    """The runs table without failed runs."""
    runs = table(results, "runs")
    if "status" in runs.columns and len(runs):
        runs = runs[~runs["status"].astype(str).str.lower().isin(FAILED_STATUSES)]
    return runs


def param_columns(results) -> list[str]:
    """The sweep parameters (grid keys) in the order the sweep gave them.

    The grid keys the results declare (`Results.params`, from DIR/sweep.toml), else the
    keys of params_json that are columns, else every runs column that is not a known run
    column.
    """
    results = load_results(results)
    runs = table(results, "runs")
    declared = [k for k in (getattr(results, "params", None) or []) if k != "seed"]
    if declared:
        return declared
    keys: list[str] = []
    if "params_json" in runs.columns:
        for text in runs["params_json"].dropna().unique():
            try:
                params = json.loads(text)
            except (TypeError, ValueError):
                continue
            if isinstance(params, dict):
                keys += [k for k in params if k not in keys]
        keys = [k for k in keys if k in runs.columns and k != "seed"]
        if keys:
            return keys
    return [c for c in runs.columns if c not in RUN_COLUMNS]


def varying(df, columns: list[str]) -> list[str]:
    """The columns of `columns` that take more than one value in df."""
    return [c for c in columns if c in df.columns and df[c].nunique(dropna=False) > 1]


def numeric_columns(df) -> list[str]:
    import pandas as pd

    return [c for c in df.columns
            if c not in ID_COLUMNS and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]


def metric_table(results, metric: str, table_name: str | None = None) -> str:
    """The table that holds `metric`: `table_name` if given (checked), else the first of
    flows, nodes, runs that has a numeric column of that name."""
    names = (table_name,) if table_name else METRIC_TABLES
    params = set(param_columns(results))
    for name in names:
        df = table(results, name)
        if metric in df.columns and metric not in params and metric in numeric_columns(df):
            return name
    where = table_name or "/".join(METRIC_TABLES)
    choices = []
    for name in names:
        df = table(results, name)
        choices += [c for c in numeric_columns(df) if c not in params and c not in choices]
    raise KeyError(f"no numeric metric {metric!r} in the {where} table(s); "
                   f"available: {', '.join(choices) or 'none'}")
