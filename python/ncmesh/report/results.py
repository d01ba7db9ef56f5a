"""The report of a plain results directory (`ncmesh report RESULTS`)."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

from .html import Figure, Report, Table

# Metrics tabulated when present (flows table, mean over the flows of a run).
DEFAULT_METRICS = ("goodput_kbps", "rtt_mean_ms", "retransmissions", "timeouts")
CI_NOTE = ("Each cell: mean over runs (seeds) of the per-run value (mean over the run's flows) "
           "± the half-width of its 95% confidence interval (Student t, n-1 degrees of freedom; "
           "the mean alone with a single run); n = runs.")


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def errors_list(results) -> list[tuple[str, str]]:
    """(run key, one-line message) for every failed run."""
    from ..analysis.results import FAILED_STATUSES, table

    out: dict[str, str] = {}
    errors = table(results, "errors")
    for row in errors.to_dict("records") if len(errors) else []:
        key = str(row.get("run_key", "?"))
        msg = row.get("error") or row.get("message") or row.get("traceback") or json.dumps(
            {k: str(v) for k, v in row.items() if k != "run_key"})
        out[key] = " ".join(str(msg).split())[:400]
    runs = table(results, "runs")
    if "status" in runs.columns:
        for row in runs[runs["status"].astype(str).str.lower().isin(FAILED_STATUSES)].to_dict("records"):
            out.setdefault(str(row["run_key"]), f"status {row['status']}")
    return sorted(out.items())


def run_facts(results) -> list[tuple[str, str]]:
    """Facts about the runs of a results directory for "How it was run"."""
    from ..analysis.results import ok_runs, param_columns, table

    runs = table(results, "runs")
    facts = []
    if "sweep" in runs.columns and len(runs):
        facts.append(("Sweep", ", ".join(sorted(map(str, runs["sweep"].dropna().unique())))))
    ok = ok_runs(results)
    failed = len(errors_list(results))
    facts.append(("Runs", f"{len(ok) + failed} ({len(ok)} finished, {failed} failed)"))
    if "seed" in runs.columns and len(runs):
        seeds = sorted(int(s) for s in runs["seed"].dropna().unique())
        facts.append(("Seeds", _ranges(seeds)))
    record = getattr(results, "seeds", None)
    if isinstance(record, dict) and isinstance(record.get("rule"), dict):
        rule, cells = record["rule"], record.get("cells") or []
        used = sorted({int(c.get("seeds", 0)) for c in cells})
        missed = sum(1 for c in cells if not c.get("met"))
        facts.append(("Seed rule", f"{rule.get('min')}..{rule.get('max')} seeds per parameter combination, "
                                   f"more until the 95% CI half-width of {rule.get('metric')} is within "
                                   f"{100 * float(rule.get('target', 0)):g}% of the mean; used "
                                   f"{', '.join(map(str, used))} (column n)"
                                   + (f"; {missed} of {len(cells)} combinations did not meet it" if missed else "")))
    params = param_columns(results)
    for p in params:
        vals = runs[p].dropna().unique().tolist() if p in runs.columns else []
        try:
            vals = sorted(vals)
        except TypeError:
            pass
        facts.append((f"Parameter {p}", ", ".join(_short(v) for v in vals)))
    if "sim_time_s" in runs.columns and len(runs):
        facts.append(("Simulated time per run", ", ".join(f"{v:g} s" for v in sorted(runs["sim_time_s"].unique()))))
    if "wall_time_s" in runs.columns and len(runs):
        facts.append(("Simulation wall time", f"{runs['wall_time_s'].sum():.2f} s in total"))
    if "ncmesh_version" in runs.columns and len(runs):
        facts.append(("ncmesh version", ", ".join(sorted(map(str, runs["ncmesh_version"].dropna().unique())))))
    return facts


def _short(v) -> str:
    from ..analysis.plot import _short as short

    return short(v)


def _ranges(values: list[int]) -> str:
    if not values:
        return "-"
    parts, start, prev = [], values[0], values[0]
    for v in values[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return f"{', '.join(parts)} ({len(values)})"


def base_scenario(results) -> tuple[str, str]:
    """(scenario TOML of the first run, a note saying which run it is)."""
    from ..analysis.results import param_columns, table

    runs = table(results, "runs")
    if "scenario_toml" not in runs.columns or not len(runs):
        return "", ""
    order = [c for c in param_columns(results) + ["seed", "run_key"] if c in runs.columns]
    try:
        first = runs.sort_values(order).iloc[0] if order else runs.iloc[0]
    except TypeError:               # unorderable mixed values
        first = runs.iloc[0]
    params = first.get("params_json", "") if hasattr(first, "get") else ""
    note = f"The scenario of run `{first.get('run_key', '?')}`"
    if params:
        note += f" (parameters {params}, seed {first.get('seed', '?')})"
    note += "; the other runs differ only in the swept parameters and the seed."
    return str(first["scenario_toml"]), note


def results_report(results_dir, title: str | None = None, command: str | None = None) -> Report:
    """A Report of any results directory: the runs that finished (a card) and a table of the
    usual metrics with confidence intervals per parameter combination (the headline), a line
    plot (or CDF) of goodput, goodput over time, the errors, the base scenario."""
    from ..analysis import plot
    from ..analysis.results import load_results, ok_runs, param_columns, table, varying
    from ..analysis.table import summarize, with_ci_text

    results = load_results(results_dir)
    params = param_columns(results)
    runs = ok_runs(results)
    vary = varying(runs, params)
    flows = table(results, "flows")
    metrics = [m for m in DEFAULT_METRICS if m in flows.columns]
    name = title or f"Results: {Path(str(results_dir)).name}"
    rep = Report(title=name, subtitle=str(results_dir))
    facts = []
    if command:
        facts.append(("Command", command))
    facts.append(("Report made", now_utc()))
    rep.facts = facts + run_facts(results)
    for candidate in ("sweep.toml", "sweep.json"):
        p = Path(str(results_dir)) / candidate
        if p.is_file():
            rep.sweep_toml = p.read_text(encoding="utf-8")
            break
    rep.scenario_toml, rep.scenario_note = base_scenario(results)
    rep.errors = errors_list(results)
    finished = len(runs)
    rep.highlights = [("runs finished", f"{finished} of {finished + len(rep.errors)}",
                       "bad" if rep.errors else "good")]
    if metrics and len(runs):
        rep.main_table = Table("Per parameter combination: mean and 95% confidence interval across seeds",
                               with_ci_text(summarize(results, metrics, by=params)), note=CI_NOTE)
    if "goodput_kbps" in metrics and len(runs):
        numeric = [p for p in vary if str(runs[p].dtype)[0] in "iuf"]
        x = "hops" if "hops" in numeric else (numeric[0] if numeric else None)
        if x:
            others = [p for p in vary if p != x][:1]
            rep.figures.append(Figure(f"Goodput vs {x}", plot.plot_line(results, x, "goodput_kbps", hue=others or None),
                                      "Mean over seeds; error bars: 95% confidence interval."))
        hue = x if x and runs[x].nunique() <= 8 else (vary[0] if vary and runs[vary[0]].nunique() <= 8 else None)
        rep.figures.append(Figure("Goodput across seeds (CDF)", plot.plot_cdf(results, "goodput_kbps", hue=hue),
                                  "Empirical CDF over runs of each run's goodput."))
        fs = table(results, "flow_series")
        if "goodput_kbps" in fs.columns and len(fs):
            rep.figures.append(Figure("Goodput over time", plot.plot_series(results, "goodput_kbps", hue=hue),
                                      "Goodput per sampling interval; mean over seeds with a 95% CI band."))
    return rep


def write_results_report(results_dir, out: str | os.PathLike | None = None, title: str | None = None,
                         command: str | None = None) -> Path:
    """Writes the report of a results directory (default RESULTS/report.html); returns its path."""
    import matplotlib.pyplot as plt

    rep = results_report(results_dir, title=title, command=command)
    path = rep.write(out or Path(str(results_dir)) / "report.html")
    for f in rep.figures:
        if not isinstance(f.image, (bytes, str, os.PathLike)):
            plt.close(f.image)
    return path
