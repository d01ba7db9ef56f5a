"""Reproductions: a registry of experiments (`ncmesh reproduce`).

An experiment is a module in this package that defines

    NAME         the name on the command line, e.g. "chain-vs-ns3"
    TITLE        one line
    DESCRIPTION  a paragraph or more (plain text; `code` in backticks)
    sweep(quick: bool) -> dict      the sweep (same structure as a sweep TOML file)
    analyze(results, quick: bool) -> Analysis
                 headline numbers (summary), tables, figures, and where a paper or
                 reference printed numbers, those numbers beside ours

An experiment made of several sweeps (different builders or topologies) also defines

    sweeps(quick: bool) -> dict[str, dict]   {part name: sweep}; `sweep(quick)` then
                 returns one of them (so every experiment has one valid sweep), and
                 `analyze` receives {part name: Results}

Every module with a NAME is found automatically. `reproduce(name, quick, out_dir)` runs
the sweep into OUT/results, calls analyze, and writes OUT/summary.json, OUT/tables/*.csv
and *.md, OUT/figures/*.png and *.svg, OUT/sweep.toml and OUT/report.html.
See docs/experiments.md.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import pkgutil
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any


@dataclass
class TableOut:
    """A table an experiment produces: `df` is written as NAME.csv (full precision) and
    NAME.md; `display` (default df) is what the report and the terminal show."""

    name: str
    title: str
    df: Any
    display: Any = None
    note: str = ""
    cell_class: Any = None


@dataclass
class FigureOut:
    """A figure an experiment produces, written as NAME.png and NAME.svg."""

    name: str
    title: str
    figure: Any
    caption: str = ""


@dataclass
class Analysis:
    """What `analyze` returns. `summary`: the headline numbers under stable names (JSON
    data); `highlights`: (label, value, "good"/"bad"/"") boxes at the top of the report."""

    summary: dict
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    highlights: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    scenario_note: str = ""


def available() -> dict[str, ModuleType]:
    """{NAME: module} of every experiment, sorted by name."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in ("spec", "cli"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        name = getattr(module, "NAME", None)
        if name:
            found[name] = module
    return dict(sorted(found.items()))


def get(name: str) -> ModuleType:
    exps = available()
    try:
        return exps[name]
    except KeyError:
        raise KeyError(f"no experiment {name!r}; available: {', '.join(exps) or 'none'}") from None


def reproduce(name: str, quick: bool = False, out_dir: str | os.PathLike | None = None,
              sweep: dict | None = None, seeds: int | None = None, jobs: int | None = None,
              progress: bool = True, command: str | None = None, log=print) -> dict:
    """Runs experiment `name` and writes its outputs into out_dir (default out/NAME).

    `sweep` replaces the experiment's sweep (tests use a smaller one); `seeds` replaces
    its seed count (seeds 1..N). Returns the summary written to summary.json.
    """
    from .. import __version__
    from ..analysis.plot import save_figure
    from ..analysis.table import format_table
    from ..report.html import Figure, Report, Table, json_dumps
    from ..report.results import base_scenario, errors_list, run_facts
    from .spec import to_toml

    module = get(name)
    out = Path(out_dir) if out_dir else Path("out") / name
    multi = callable(getattr(module, "sweeps", None))
    if multi:
        parts = sweep if sweep is not None else module.sweeps(quick)
    else:
        parts = {"": sweep if sweep is not None else module.sweep(quick)}
    specs: dict[str, dict] = {}
    for part, spec in parts.items():
        spec = json.loads(json.dumps(spec))
        if seeds is not None:
            if seeds < 1:
                raise ValueError("seeds must be at least 1")
            spec["seeds"] = {"count": int(seeds), "start": 1}
        specs[part] = spec
    texts = {part: to_toml(spec) for part, spec in specs.items()}
    spec_text = texts[""] if not multi else "".join(
        f"# ---- part {part} (results/{part})\n{text}\n" for part, text in texts.items())
    out.mkdir(parents=True, exist_ok=True)

    from ..sweep import load_sweep, open_results, run_sweep

    done = skipped = failed = 0
    wall = 0.0
    all_results = {}
    for part, spec in specs.items():
        results_dir = out / "results" / part if multi else out / "results"
        spec_file = out / "sweeps" / f"{part}.toml" if multi else out / "sweep.toml"
        if results_dir.exists() and (not spec_file.is_file() or spec_file.read_text(encoding="utf-8") != texts[part]):
            log(f"{results_dir}: results of a different sweep; removing them")
            shutil.rmtree(results_dir)
        spec_file.parent.mkdir(parents=True, exist_ok=True)
        spec_file.write_text(texts[part], encoding="utf-8")
        if multi and progress:
            log(f"part {part}: {len(load_sweep(spec))} runs")
        rep_part = run_sweep(load_sweep(spec), results_dir, jobs=jobs, progress=progress)
        done, skipped, failed = done + rep_part.done, skipped + rep_part.skipped, failed + rep_part.failed
        wall += float(rep_part.wall_s)
        all_results[part] = open_results(results_dir)
    if multi:
        stale = out / "results"
        for d in (stale.iterdir() if stale.is_dir() else []):
            if d.is_dir() and d.name not in specs:
                shutil.rmtree(d)
        (out / "sweep.toml").write_text(spec_text, encoding="utf-8")
    results = all_results if multi else all_results[""]
    report = _Report(done, skipped, failed, wall)

    analysis: Analysis = module.analyze(results, quick)
    written: dict[str, list[str]] = {"tables": [], "figures": []}
    rep = Report(title=module.TITLE, subtitle=f"ncmesh reproduce {name}" + (" (quick)" if quick else ""),
                 description=module.DESCRIPTION, highlights=list(analysis.highlights),
                 sweep_toml=spec_text, notes=list(analysis.notes))
    tables_dir, figures_dir = out / "tables", out / "figures"
    for t in analysis.tables:
        tables_dir.mkdir(parents=True, exist_ok=True)
        csv_path, md_path = tables_dir / f"{t.name}.csv", tables_dir / f"{t.name}.md"
        csv_path.write_text(format_table(t.df, "csv"), encoding="utf-8")
        shown = t.display if t.display is not None else t.df
        md_path.write_text(f"{t.title}\n\n" + format_table(shown, "markdown")
                           + (f"\n{t.note}\n" if t.note else ""), encoding="utf-8")
        written["tables"] += [str(csv_path.relative_to(out)), str(md_path.relative_to(out))]
        rep.tables.append(Table(t.title, shown, note=t.note, cell_class=t.cell_class, files=[csv_path, md_path]))
    for f in analysis.figures:
        png, svg = save_figure(f.figure, figures_dir / f.name, close=False)
        written["figures"] += [str(png.relative_to(out)), str(svg.relative_to(out))]
        rep.figures.append(Figure(f.title, png.read_bytes(), caption=f.caption, files=[png, svg]))
        _close(f.figure)

    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = command or f"ncmesh reproduce {name}" + (" --quick" if quick else "") + f" --out {out}"
    rep.facts = [("Command", command), ("Date", date), ("ncmesh version", __version__),
                 ("Mode", "quick (fewer seeds, shorter runs)" if quick else "full"),
                 ("This invocation", f"{report.done} run(s) computed, {report.skipped} reused from an earlier "
                                     f"invocation, {report.failed} failed; {report.wall_s:.1f} s wall time")]
    if multi:
        for part, res in all_results.items():
            facts = dict(run_facts(res))
            rep.facts.append((f"Part {part}", "; ".join(
                f"{k.lower()} {v}" for k, v in facts.items() if k in ("Runs", "Seeds", "Simulated time per run")
                or k.startswith("Parameter "))))
        first = next(iter(all_results.values()))
        rep.scenario_toml, note = base_scenario(first)
        note = (f"Part {next(iter(all_results))}: " + note) if note else note
        rep.errors = sorted(e for res in all_results.values() for e in errors_list(res))
    else:
        rep.facts += [f for f in run_facts(results) if f[0] not in ("ncmesh version",)]
        rep.scenario_toml, note = base_scenario(results)
        rep.errors = errors_list(results)
    rep.scenario_note = analysis.scenario_note + ("\n\n" + note if note else "")
    report_path = rep.write(out / "report.html")

    summary = {
        "experiment": name,
        "title": module.TITLE,
        "quick": bool(quick),
        "ncmesh_version": __version__,
        "date": date,
        "command": command,
        "runs": {"done": report.done, "reused": report.skipped, "failed": report.failed,
                 "wall_s": round(float(report.wall_s), 3)},
        **analysis.summary,
        "highlights": [list(h)[:2] for h in analysis.highlights],
        "outputs": {"summary": "summary.json", "report": str(report_path.relative_to(out)),
                    "sweep": "sweep.toml", "results": "results", **written},
    }
    (out / "summary.json").write_text(json_dumps(summary) + "\n", encoding="utf-8")
    return summary


@dataclass
class _Report:
    done: int
    skipped: int
    failed: int
    wall_s: float


def _close(fig) -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close(fig)
