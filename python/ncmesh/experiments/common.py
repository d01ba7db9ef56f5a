"""The vocabulary every reproduction shares.

- `PaperNumber`: a number a paper prints, and where it prints it.
- `Check`: whether a claim holds and the rule that decided it; built by the checks below
  (`near`, `gain`, `loss`, `no_change`, `not_loss`, `rises`, `falls`, `more`, `less`,
  `at_least`, `at_most`, `within`, `ratio_at_least`, `all_of`), so that every reproduction
  judges "within the CI or N points", a trend or an ordering the same way.
- `Claim`: what the paper says, our numbers, the check; `ClaimGroup`: a class of claims with
  what ncmesh concludes when one of them does not hold and where the explanation is.
- `TableOut`, `FigureOut`: the tables and figures an experiment produces, each rendered one
  way (CSV, Markdown for the files and the terminal, HTML for the report); `Analysis`: what
  `analyze` returns, joined from one part per table, figure or group of claims.
- `Experiment`: the protocol an experiment module follows (checked by `ncmesh reproduce
  --list`).
- `fmt_ci`, `pct`, `sweep_base`, `seeds_for`: formatting, the sweep base and the seeds (the
  seed rule in full mode) the reproductions share.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

# A paper's percentage holds when it is within our 95% CI or within this many points of our mean.
CLAIM_TOLERANCE_PP = 5.0


# ---------------------------------------------------------------- paper numbers and claims

@dataclass(frozen=True)
class PaperNumber:
    """A number a paper prints (None where it prints "-") and where: "Table I", "Fig. 9"."""

    value: float | None
    source: str

    def __str__(self) -> str:
        return "-" if self.value is None else f"{self.value:g}"


@dataclass(frozen=True)
class Check:
    """Whether a claim holds, and the rule that decided it (one line)."""

    holds: bool
    rule: str

    def __and__(self, other: Check) -> Check:
        return Check(self.holds and other.holds, f"{self.rule}; {other.rule}")


def _finite(*xs) -> bool:
    return all(x is not None and math.isfinite(x) for x in xs)


def near(ours: float, ci: float, paper: float, tolerance: float = CLAIM_TOLERANCE_PP) -> Check:
    """The paper's value lies within our 95% CI or within `tolerance` points of our mean
    (a CI we do not have counts as 0). A CI wider than the mean says too little to decide
    on: then only the tolerance decides, and the rule says so."""
    ci = ci if _finite(ci) else 0.0
    rule = f"the paper's value within our 95% CI or {tolerance:g} points of our mean"
    if _finite(ours) and ci > abs(ours):
        return Check(abs(ours - paper) <= tolerance,
                     f"the paper's value within {tolerance:g} points of our mean (our 95% CI, ±{ci:.1f}, is "
                     "wider than the mean: not used)")
    return Check(_finite(ours) and abs(ours - paper) <= max(ci, tolerance), rule)


def gain(mean: float, ci: float) -> Check:
    """A paired change is a gain: its 95% CI lies above 0."""
    return Check(mean - ci > 0, "the 95% CI lies above 0")


def loss(mean: float, ci: float) -> Check:
    """A paired change is a loss: its 95% CI lies below 0."""
    return Check(-mean - ci > 0, "the 95% CI lies below 0")


def no_change(mean: float, ci: float) -> Check:
    """A paired change is no change: its 95% CI includes 0."""
    return Check(_finite(mean, ci) and not gain(mean, ci).holds and not loss(mean, ci).holds,
                 "the 95% CI includes 0")


def not_loss(mean: float, ci: float) -> Check:
    """A paired change is not a loss: its 95% CI does not lie below 0."""
    return Check(_finite(mean, ci) and not loss(mean, ci).holds, "the 95% CI does not lie below 0")


def more(a: float, b: float) -> Check:
    return Check(a > b, "ordering of the means")


def less(a: float, b: float) -> Check:
    return Check(a < b, "ordering of the means")


def at_least(a: float, b: float) -> Check:
    return Check(a >= b, "ordering of the means")


def at_most(a: float, b: float) -> Check:
    return Check(a <= b, "ordering of the means")


def rises(first: float, last: float) -> Check:
    """A trend: the last point's mean above the first's."""
    return Check(last > first, "trend of the means, first against last point")


def falls(first: float, last: float) -> Check:
    """A trend: the last point's mean below the first's."""
    return Check(last < first, "trend of the means, first against last point")


def within(x: float, limit: float) -> Check:
    """|x| <= limit (e.g. "flat": a change of at most 10%)."""
    return Check(abs(x) <= limit, f"within ±{limit:g}")


def ratio_at_least(a: float, b: float, factor: float) -> Check:
    """a >= factor × b and b > 0 (e.g. "about doubles": factor 1.5)."""
    return Check(a >= factor * b > 0, f"at least {factor:g} times, both positive")


def all_of(checks: Iterable[Check], rule: str | None = None) -> Check:
    """Every check holds; the rule is `rule`, or the distinct rules of the checks."""
    checks = list(checks)
    rules = rule or "; ".join(dict.fromkeys(c.rule for c in checks))
    return Check(all(c.holds for c in checks), rules)


@dataclass(frozen=True)
class ClaimGroup:
    """A class of a paper's claims, what ncmesh concludes when one of them does not hold, and
    where the explanation is (the results page and its section)."""

    name: str
    conclusion: str
    doc: str

    def line(self, failed: int, total: int) -> str:
        """The conclusion as one line: '- NAME (F of T claims do not hold): CONCLUSION (see DOC)'."""
        return (f"- {self.name} ({failed} of {total} claim{'s' if total != 1 else ''} "
                f"{'does' if failed == 1 else 'do'} not hold): {self.conclusion} (see {self.doc})")


@dataclass(frozen=True)
class Claim:
    """A paper's claim beside ours: what the paper says, our numbers as shown, the check
    that decides whether it holds, its class, and the paper's number where it is one."""

    text: str
    ours: str
    check: Check
    group: ClaimGroup | None = None
    paper: PaperNumber | None = None

    @property
    def holds(self) -> bool:
        return bool(self.check.holds)

    def summary(self) -> dict:
        """The claim in summary.json."""
        out = {"claim": self.text, "ours": self.ours, "holds": self.holds, "check": self.check.rule}
        if self.group:
            out["class"] = self.group.name
        if self.paper:
            out["paper"] = self.paper.value
            out["paper_source"] = self.paper.source
        return out


CONCLUSIONS_HEADER = "Where the paper's claims do not hold, what ncmesh concludes (one line per class of claims):"


def conclusions(claims: Iterable[Claim]) -> list[str]:
    """One line per class of claims with a claim that does not hold (in the order the classes
    first appear), preceded by a header; [] when every claim holds."""
    groups: dict[ClaimGroup, list[Claim]] = {}
    for c in claims:
        if c.group is not None:
            groups.setdefault(c.group, []).append(c)
    lines = [g.line(sum(not c.holds for c in cs), len(cs)) for g, cs in groups.items()
             if any(not c.holds for c in cs)]
    return [CONCLUSIONS_HEADER] + lines if lines else []


def claims_part(claims: list[Claim], note: str) -> Analysis:
    """The claims table (the paper's claim, ours, holds; in the CSV also the class and the
    check), the conclusion lines of the classes that do not hold under it, and
    summary["claims"]."""
    import pandas as pd

    df = pd.DataFrame([{"paper's claim": c.text, "ours": c.ours, "holds": "yes" if c.holds else "no",
                        "class": c.group.name if c.group else "", "check": c.check.rule} for c in claims])
    table = TableOut("claims", "The paper's claims beside ours", df,
                     display=df[["paper's claim", "ours", "holds"]], note=note, lines=conclusions(claims))
    return Analysis(summary={"claims": [c.summary() for c in claims]}, tables=[table],
                    claims_out=ClaimsOut(list(claims), table))


@dataclass
class ClaimsOut:
    """The claims an experiment checked and their table (claims_part makes both): the files and
    the terminal show the table; the report shows the claims in its own section, with the
    paper's value and the check beside ours."""

    claims: list
    table: TableOut

    def report_claims(self):
        """The report's claims section."""
        from ..report.html import ClaimRow, Claims

        rows = [ClaimRow(c.text, _paper_value(c.paper), c.ours, c.check.rule, c.holds) for c in self.claims]
        return Claims(rows, note=self.table.note, lines=list(self.table.lines))


def _paper_value(paper: PaperNumber | None) -> str:
    """"40 (Fig. 5)"; "" when the claim carries the paper's value in its words."""
    if paper is None:
        return ""
    return f"{paper} ({paper.source})" if paper.source else str(paper)


# ---------------------------------------------------------------- tables, figures, analysis

@dataclass
class TableOut:
    """A table an experiment produces. `df` is written as NAME.csv (full precision);
    `display` (default df) is what NAME.md, the terminal and the report show, followed by
    `note` and the one-line remarks `lines`. `cell_class(column, value)` may return
    "good"/"bad" to colour a cell in the report."""

    name: str
    title: str
    df: Any
    display: Any = None
    note: str = ""
    cell_class: Any = None
    lines: list[str] = field(default_factory=list)

    @property
    def shown(self):
        return self.display if self.display is not None else self.df

    def csv(self) -> str:
        from ..analysis.table import format_table

        return format_table(self.df, "csv")

    def markdown(self) -> str:
        """NAME.md, and what `ncmesh reproduce` prints."""
        from ..analysis.table import format_table

        text = f"{self.title}\n\n" + format_table(self.shown, "markdown")
        if self.note:
            text += f"\n{self.note}\n"
        if self.lines:
            text += "\n" + "\n".join(self.lines) + "\n"
        return text

    def report_table(self, files: list[Path]):
        """The table on the report page."""
        from ..report.html import Table

        return Table(self.title, self.shown, note=self.note, cell_class=self.cell_class, files=files,
                     lines=list(self.lines))


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
    data); `highlights`: (label, value, "good"/"bad"/"") boxes at the top of the report;
    `notes`: paragraphs after the tables; `scenario_note`: a paragraph on the scenarios;
    `claims`: the paper's claims a part checked (`claims_part` makes their table, `claims_out`);
    `main_table`: the name of the table the report shows in its headline."""

    summary: dict = field(default_factory=dict)
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    highlights: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    scenario_note: str = ""
    claims: list = field(default_factory=list)
    claims_out: ClaimsOut | None = None
    main_table: str = ""

    @classmethod
    def join(cls, parts: Iterable[Analysis], scenario_note: str = "", main_table: str = "") -> Analysis:
        """The parts one after the other: their summaries merged (a key given twice is an
        error), their tables, figures, highlights, notes and claims in order; the one claims
        table (two are an error) and `main_table`, else the first part's that names one."""
        out = cls(scenario_note=scenario_note, main_table=main_table)
        for p in parts:
            if out.claims_out is not None and p.claims_out is not None:
                raise ValueError("two parts give a claims table (claims_part): join their claims into one")
            twice = set(out.summary) & set(p.summary)
            if twice:
                raise ValueError(f"summary key(s) given by two parts: {', '.join(sorted(twice))}")
            out.claims_out = out.claims_out or p.claims_out
            out.main_table = out.main_table or p.main_table
            out.summary.update(p.summary)
            out.tables += p.tables
            out.figures += p.figures
            out.highlights += p.highlights
            out.notes += p.notes
            out.claims += p.claims
        return out


class Experiment(Protocol):
    """An experiment module (`ncmesh reproduce NAME`)."""

    NAME: str            # the name on the command line
    TITLE: str           # one line
    DESCRIPTION: str     # paragraphs of plain text, `code` in backticks

    def sweeps(self, quick: bool) -> dict[str, dict]:
        """{part: sweep}; an experiment of one sweep returns {"": sweep}."""

    def analyze(self, results: dict, quick: bool) -> Analysis:
        """results: {part: ncmesh.sweep.Results}."""


EXPERIMENT_FUNCTIONS = {"sweeps": "sweeps(quick) -> {part: sweep} ({\"\": sweep} for one sweep)",
                        "analyze": "analyze(results, quick) -> Analysis"}


def experiment_problems(module) -> list[str]:
    """What keeps `module` from being an experiment ([] when it is one)."""
    problems = [f"{attr} must be a non-empty string" for attr in ("NAME", "TITLE", "DESCRIPTION")
                if not isinstance(getattr(module, attr, None), str) or not getattr(module, attr).strip()]
    for fn, signature in EXPERIMENT_FUNCTIONS.items():
        if not callable(getattr(module, fn, None)):
            problems.append(f"no function {signature}")
    return problems


# ---------------------------------------------------------------- shared formatting and sweeps

# The mark of a value whose 95% CI is wider than the mean itself: the sign is not known, and
# no claim is decided on that CI (near() falls back to the tolerance).
WIDE_CI = " (wide CI)"


def fmt_ci(mean: float, ci: float, digits: int = 1, unit: str = "", sign: bool = False) -> str:
    """"12.3 ± 0.4" ("+12.3 ± 0.4" with `sign`; the mean alone without a CI, "-" without a
    mean); marked WIDE_CI when the CI is wider than the mean and does not round to 0."""
    if mean is None or not math.isfinite(mean):
        return "-"
    s = f"{mean:+.{digits}f}" if sign else f"{mean:.{digits}f}"
    if ci is not None and math.isfinite(ci):
        s += f" ± {ci:.{digits}f}"
        # Flagged where the reader can see it: a CI that rounds to 0 is not shown as wide.
        if ci > abs(mean) and round(ci, digits) > 0:
            return s + unit + WIDE_CI
    return s + unit


def pct(x, digits: int = 0) -> str:
    """A signed percentage ("+12%", "-3.4%" with digits=1), "-" for none."""
    return "-" if x is None or not math.isfinite(x) else f"{x:+.{digits}f}%"


# The seed rule of the full reproductions (issue 30): every grid point runs its fixed count
# of seeds (at least CLOSE_MEANS_MIN_SEEDS: claims compare close means) and more, up to
# SEED_RULE_MAX_FACTOR times as many, until the 95% CI half-width of its goodput is within
# SEED_RULE_TARGET of its mean: stricter than the claims' tolerances (CLAIM_TOLERANCE_PP
# points; chain-vs-ns3's 10%). Quick mode keeps the fixed count (a first look).
SEED_RULE_TARGET = 0.02
SEED_RULE_MAX_FACTOR = 2
CLOSE_MEANS_MIN_SEEDS = 5


def seeds_for(count: int, quick: bool) -> dict:
    """A part's [seeds]: quick, seeds 1..count; full, the seed rule from max(count, 5) seeds
    (the first seeds are the fixed-count run's) to twice that, target 2% of the mean."""
    if quick:
        return {"count": count, "start": 1}
    n_min = max(CLOSE_MEANS_MIN_SEEDS, count)
    return {"min": n_min, "max": SEED_RULE_MAX_FACTOR * n_min, "target": SEED_RULE_TARGET, "start": 1}


def seeds_text(ns) -> str:
    """How many seeds the cells used: "10", or "10-20" when the seed rule varied it."""
    ns = sorted({int(n) for n in ns})
    if not ns:
        return "0"
    return str(ns[0]) if len(ns) == 1 else f"{ns[0]}-{ns[-1]}"


def sweep_base(builder: str, options: Mapping, settings: Mapping, *, duration: float, start: float,
               start_spread: float, measure_start: float, seed) -> dict:
    """A sweep's `base`: the builder with its timing options (runs of `duration` s measured
    from `measure_start`, flows starting uniformly in [start, start + start_spread), the
    builder seed, e.g. "run") and its own options, and the fields `settings` sets."""
    return {"builder": builder,
            "options": {"duration": duration, "start": start, "start_spread": start_spread,
                        "measure_start": measure_start, "seed": seed, **options},
            "set": dict(settings)}
