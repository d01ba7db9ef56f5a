"""Reproductions: a registry of experiments (`ncmesh reproduce`).

An experiment is a module in this package that defines (`common.Experiment`)

    NAME         the name on the command line, e.g. "chain-vs-ns3"
    TITLE        one line
    DESCRIPTION  a paragraph or more (plain text; `code` in backticks)
    sweeps(quick: bool) -> dict[str, dict]
                 {part name: sweep} (a sweep has the structure of a sweep TOML file); an
                 experiment of one sweep returns {"": sweep}
    analyze(results: dict, quick: bool) -> Analysis
                 results: {part name: Results}; headline numbers (summary), tables,
                 figures, and where a paper or reference printed numbers, those numbers and
                 its claims beside ours (the vocabulary of `common`)

Every module of this package whose name does not start with "_" and that defines NAME is an
experiment: `available()` is the one table of them, and rejects a module that lacks one of
the above (so `ncmesh reproduce --list` fails on it, not a run). `reproduce(name, quick,
out_dir)` runs the sweeps into OUT/results (OUT/results/<part> for several), calls
analyze, and writes OUT/summary.json, OUT/tables/*.csv and *.md, OUT/figures/*.png and
*.svg, OUT/sweep.toml and OUT/report.html. See docs/experiments.md.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import pkgutil
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .common import Analysis, Claim, ClaimGroup, FigureOut, PaperNumber, TableOut, experiment_problems

__all__ = ["Analysis", "Claim", "ClaimGroup", "ExperimentError", "FigureOut", "PaperNumber", "TableOut",
           "available", "get", "reproduce"]


class ExperimentError(Exception):
    """An experiment module that does not follow the protocol (common.Experiment)."""


def available() -> dict[str, ModuleType]:
    """{NAME: module} of every experiment, sorted by name; ExperimentError names a module with
    a NAME that lacks the rest of the protocol, or two modules with one NAME."""
    found: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        name = getattr(module, "NAME", None)
        if name is None:
            continue
        problems = experiment_problems(module)
        if problems:
            raise ExperimentError(f"experiment module {module.__name__}: {'; '.join(problems)}")
        if name in found:
            raise ExperimentError(f"experiments {found[name].__name__} and {module.__name__} share the NAME {name!r}")
        found[name] = module
    return dict(sorted(found.items()))


def get(name: str) -> ModuleType:
    exps = available()
    try:
        return exps[name]
    except KeyError:
        raise KeyError(f"no experiment {name!r}; available: {', '.join(exps) or 'none'}") from None


def reproduce(name: str, quick: bool = False, out_dir: str | os.PathLike | None = None,
              sweeps: dict[str, dict] | None = None, seeds: int | None = None, jobs: int | None = None,
              progress: bool = True, command: str | None = None, log=print, force: bool = False,
              notice=None) -> dict:
    """Runs experiment `name` and writes its outputs into out_dir (default out/NAME).

    `sweeps` ({part: sweep}) replaces the experiment's sweeps (tests use smaller ones);
    `seeds` replaces their seed count (seeds 1..N). Returns the summary written to
    summary.json.

    Results of a different sweep in OUT/results (an earlier --quick run, an edited
    experiment) are never pooled with these: they are moved to OUT/previous-<time>/ (kept,
    with their sweep.toml), or deleted when `force`. Either is said on one line through
    `notice` (default: standard error), which `log` being silent does not silence.
    """
    from .. import __version__
    from ..report.html import json_dumps

    module = get(name)
    out = Path(out_dir) if out_dir else Path("out") / name
    specs = _specs(sweeps if sweeps is not None else module.sweeps(quick), seeds)
    out.mkdir(parents=True, exist_ok=True)
    if notice is None:
        def notice(message: str) -> None:
            print(message, file=sys.stderr, flush=True)
    results, runs = _run_parts(specs, out, jobs, progress, log, force, notice)

    analysis: Analysis = module.analyze(results, quick)
    written = _write_tables_and_figures(analysis, out)
    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = command or f"ncmesh reproduce {name}" + (" --quick" if quick else "") + f" --out {out}"
    report_path = _write_report(module, analysis, written, results, runs, out, quick, command, date)

    summary = {
        "experiment": name,
        "title": module.TITLE,
        "quick": bool(quick),
        "ncmesh_version": __version__,
        "date": date,
        "command": command,
        "runs": {"done": runs.done, "reused": runs.skipped, "shared": runs.shared, "failed": runs.failed,
                 "wall_s": round(float(runs.wall_s), 3)},
        **analysis.summary,
        "highlights": [list(h)[:2] for h in _cards(analysis)],
        "outputs": {"summary": "summary.json", "report": str(report_path.relative_to(out)),
                    "sweep": "sweep.toml", "results": "results",
                    "tables": [str(p.relative_to(out)) for t in written.tables for p in t],
                    "figures": [str(p.relative_to(out)) for f in written.figures for p in f]},
    }
    (out / "summary.json").write_text(json_dumps(summary) + "\n", encoding="utf-8")
    return summary


def _cards(analysis: Analysis) -> list:
    """The report's headline cards, which the command also prints: how many claims hold, then
    the experiment's highlights."""
    claims = [analysis.claims_out.report_claims().card()] if analysis.claims_out and analysis.claims_out.claims else []
    return claims + list(analysis.highlights)


def _specs(parts: dict[str, dict], seeds: int | None) -> dict[str, dict]:
    """The parts' sweeps as plain JSON data, with `seeds` 1..N when given."""
    specs: dict[str, dict] = {}
    for part, spec in parts.items():
        spec = json.loads(json.dumps(spec))
        if seeds is not None:
            if seeds < 1:
                raise ValueError("seeds must be at least 1")
            spec["seeds"] = {"count": int(seeds), "start": 1}
        specs[part] = spec
    return specs


def _one_part(parts: dict) -> bool:
    """An experiment of one sweep: its only part is \"\"."""
    return list(parts) == [""]


@dataclass
class _Runs:
    done: int = 0
    skipped: int = 0
    failed: int = 0
    wall_s: float = 0.0
    shared: int = 0      # runs another part of this experiment had: rows copied, not run again


def _run_parts(specs: dict[str, dict], out: Path, jobs, progress: bool, log, force: bool = False,
               notice=print) -> tuple[dict, _Runs]:
    """Runs every part into OUT/results (one part) or OUT/results/<part>, each part's sweep in
    OUT/sweep.toml or OUT/sweeps/<part>.toml (OUT/sweep.toml then holds them all). Results of
    a sweep that changed, and of parts that no longer exist, are first moved aside
    (`_Aside`), or deleted when `force`, each said through `notice`. A run that another
    part has (the same resolved scenario, by the same simulator build) is run once: the
    other parts copy its rows (`run_sweep(share=...)`). Returns ({part: Results}, the run
    counts)."""
    from ..sweep import load_sweep, open_results, run_sweep
    from .spec import to_toml

    one = _one_part(specs)
    texts = {part: to_toml(spec) for part, spec in specs.items()}
    aside = _Aside(out, force, notice)
    runs = _Runs()
    results = {}
    for part, spec in specs.items():
        results_dir = out / "results" if one else out / "results" / part
        spec_file = out / "sweep.toml" if one else out / "sweeps" / f"{part}.toml"
        if results_dir.exists() and (not spec_file.is_file() or spec_file.read_text(encoding="utf-8") != texts[part]):
            aside.remove(results_dir, f"results of a different sweep ({_what_differs(results_dir, spec)})")
        spec_file.parent.mkdir(parents=True, exist_ok=True)
        spec_file.write_text(texts[part], encoding="utf-8")
        if not one and progress:
            log(f"part {part}: {len(load_sweep(spec))} runs")
        others = [out / "results" / p for p in specs if p != part and (out / "results" / p).is_dir()]
        rep = run_sweep(load_sweep(spec), results_dir, jobs=jobs, progress=progress,
                        share=None if one else others)
        for note in rep.notes:
            notice(note if one else f"part {part}: {note}")
        runs.done, runs.skipped, runs.failed = runs.done + rep.done, runs.skipped + rep.skipped, runs.failed + rep.failed
        runs.shared += rep.shared
        runs.wall_s += float(rep.wall_s)
        results[part] = open_results(results_dir)
    if not one:
        stale = out / "results"
        for d in (sorted(stale.iterdir()) if stale.is_dir() else []):
            if d.is_dir() and d.name not in specs:
                aside.remove(d, f"results of part {d.name!r}, which this experiment no longer has")
        (out / "sweep.toml").write_text(_sweep_text(texts), encoding="utf-8")
    return results, runs


class _Aside:
    """Where results of another sweep go instead of being pooled with this one's:
    OUT/previous-<UTC time>/<their path under OUT> (one folder per invocation), or nowhere
    (deleted) when `force`. Each move or deletion is one line through `notice`."""

    def __init__(self, out: Path, force: bool, notice):
        self.out, self.force, self.notice = out, force, notice
        self.root: Path | None = None

    def remove(self, folder: Path, what: str) -> None:
        if self.force:
            shutil.rmtree(folder)
            self.notice(f"{folder}: {what}; deleted them (--force)")
            return
        if self.root is None:
            stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
            root, n = self.out / f"previous-{stamp}", 1
            while root.exists():
                n += 1
                root = self.out / f"previous-{stamp}-{n}"
            self.root = root
        target = self.root / folder.relative_to(self.out)
        target.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(target)
        self.notice(f"{folder}: {what}; moved them to {target} (delete it when no longer needed; "
                    "--force deletes such results instead)")


def _what_differs(results_dir: Path, spec: dict) -> str:
    """What differs between the sweep that made `results_dir` and `spec`, briefly."""
    from ..sweep import identity, load_sweep

    try:
        manifest = identity.read_manifest(results_dir)
        return identity.describe((manifest or {}).get("definition"), load_sweep(spec).definition())
    except Exception:  # noqa: BLE001 - only a description; the move does not depend on it
        return "another sweep definition"


def _sweep_text(texts: dict[str, str]) -> str:
    """Every part's sweep (TOML), one after the other."""
    return "".join(f"# ---- part {part} (results/{part})\n{text}\n" for part, text in texts.items())


@dataclass
class _Written:
    tables: list        # [csv, md] path per table
    figures: list       # [png, svg] path per figure


def _write_tables_and_figures(analysis: Analysis, out: Path) -> _Written:
    """OUT/tables/NAME.csv and .md per table, OUT/figures/NAME.png and .svg per figure."""
    from ..analysis.plot import save_figure

    written = _Written([], [])
    tables_dir, figures_dir = out / "tables", out / "figures"
    for t in analysis.tables:
        tables_dir.mkdir(parents=True, exist_ok=True)
        csv_path, md_path = tables_dir / f"{t.name}.csv", tables_dir / f"{t.name}.md"
        csv_path.write_text(t.csv(), encoding="utf-8")
        md_path.write_text(t.markdown(), encoding="utf-8")
        written.tables.append([csv_path, md_path])
    for f in analysis.figures:
        written.figures.append(list(save_figure(f.figure, figures_dir / f.name, close=False)))
    return written


def _write_report(module, analysis: Analysis, written: _Written, results: dict, runs: _Runs, out: Path,
                  quick: bool, command: str, date: str) -> Path:
    """OUT/report.html in the layout every report shares (ncmesh.report.Report): the
    experiment's pieces (highlights, main table, claims, figures, the other tables, notes),
    the errors and the settings of the runs."""
    from ..report.html import Figure, Report

    rep = Report(title=module.TITLE, subtitle=f"ncmesh reproduce {module.NAME}" + (" (quick)" if quick else ""),
                 description=module.DESCRIPTION, highlights=list(analysis.highlights),
                 sweep_toml=(out / "sweep.toml").read_text(encoding="utf-8"), notes=list(analysis.notes))
    claims_table = analysis.claims_out.table if analysis.claims_out else None
    if analysis.claims_out:
        rep.claims = analysis.claims_out.report_claims()
    for t, files in zip(analysis.tables, written.tables):
        if t is claims_table:
            continue                        # the claims section shows it
        if t.name == analysis.main_table and rep.main_table is None:
            rep.main_table = t.report_table(files)
        else:
            rep.tables.append(t.report_table(files))
    for f, (png, svg) in zip(analysis.figures, written.figures):
        rep.figures.append(Figure(f.title, png.read_bytes(), caption=f.caption, files=[png, svg]))
        _close(f.figure)
    rep.facts, rep.errors, rep.scenario_toml, note = _settings(results, runs, quick, command, date)
    rep.scenario_note = analysis.scenario_note + ("\n\n" + note if note else "")
    return rep.write(out / "report.html")


def _settings(results: dict, runs: _Runs, quick: bool, command: str, date: str) -> tuple[list, list, str, str]:
    """(facts, errors, base scenario TOML, a note on it) of the runs: the report's settings."""
    from .. import __version__, _core
    from ..report.results import base_scenario, errors_list, run_facts

    facts = [("Command", command), ("Date", date), ("ncmesh version", __version__),
             ("Simulator build", _core.build_id()),
             ("Mode", "quick (fewer seeds, shorter runs)" if quick else "full"),
             ("This invocation", f"{runs.done} run(s) computed, {runs.skipped} reused from an earlier "
                                 f"invocation, {runs.shared} taken from another part (the same scenario), "
                                 f"{runs.failed} failed; {runs.wall_s:.1f} s wall time")]
    if _one_part(results):
        res = results[""]
        facts += [f for f in run_facts(res) if f[0] not in ("ncmesh version",)]
        scenario, note = base_scenario(res)
        return facts, errors_list(res), scenario, note
    for part, res in results.items():
        part_facts = dict(run_facts(res))
        facts.append((f"Part {part}", "; ".join(
            f"{k.lower()} {v}" for k, v in part_facts.items() if k in ("Runs", "Seeds", "Simulated time per run")
            or k.startswith("Parameter "))))
    first = next(iter(results))
    scenario, note = base_scenario(results[first])
    errors = sorted(e for res in results.values() for e in errors_list(res))
    return facts, errors, scenario, (f"Part {first}: " + note) if note else note


def _close(fig) -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close(fig)
