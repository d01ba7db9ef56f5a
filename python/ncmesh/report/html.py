"""A self-contained HTML page: inline CSS, figures embedded as base64 PNG, no external
resources. Every report (`ncmesh report`, each `ncmesh reproduce`) has one layout,
`Report.to_html`: the headline (cards: the paper's claims that hold and the key numbers; the
main table), the claims table (the paper's claim, its value, ours, the check, the verdict),
the figures, the other tables, the errors, and the settings folded in a <details>. Every
table sits in a horizontally scrolling box, so a wide one scrolls instead of being cut. A
small inline script records script/resource errors, whether every figure decoded
(attributes data-errors, data-figures, data-figures-loaded on <html>) and how far the page
and its tables overflow horizontally (data-page-overflow, data-wide-tables), so a headless
browser can check the page renders."""

from __future__ import annotations

import base64
import html
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CSS = """
:root { --fg: #1d2433; --muted: #5b6475; --line: #d9dee7; --bg-alt: #f5f7fa; --accent: #1f5fae;
        --good: #1a7f37; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
       font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 28px 32px 60px; }
header { border-bottom: 3px solid var(--accent); margin-bottom: 18px; padding-bottom: 10px; }
h1 { font-size: 26px; margin: 0 0 4px; }
.subtitle { color: var(--muted); margin: 0; }
h2 { font-size: 19px; margin: 30px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 20px 0 8px; }
p { margin: 8px 0; }
code, pre { font: 13px/1.45 "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; }
pre { background: var(--bg-alt); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
      overflow-x: auto; margin: 8px 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
.highlights { display: flex; flex-wrap: wrap; gap: 12px; margin: 14px 0; }
.highlight { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 170px;
             background: var(--bg-alt); }
.highlight .value { font-size: 22px; font-weight: 600; }
.highlight .name { color: var(--muted); font-size: 13px; }
.highlight.long { max-width: 340px; }
.highlight.long .value { font-size: 15px; line-height: 1.35; }
.highlight.good .value { color: var(--good); }
.highlight.bad .value { color: var(--bad); }
.scroll { overflow-x: auto; max-width: 100%; }
table.data { border-collapse: collapse; margin: 8px 0 4px; font-size: 14px; }
table.data th, table.data td { padding: 5px 12px; border-bottom: 1px solid var(--line); }
table.data th { background: var(--bg-alt); text-align: left; font-weight: 600; vertical-align: bottom; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data td.num { white-space: nowrap; }
table.data tr:nth-child(even) td { background: #fafbfc; }
td.good { color: var(--good); font-weight: 600; }
td.bad { color: var(--bad); font-weight: 600; }
table.claims td { vertical-align: top; }
table.claims td.rule { color: var(--muted); font-size: 13px; }
details.settings > summary, details.about > summary { font-weight: 600; }
.note { color: var(--muted); font-size: 13px; }
figure { margin: 14px 0 22px; }
figure img { max-width: min(100%, 820px); height: auto; border: 1px solid var(--line); border-radius: 6px; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 4px; }
details { margin: 8px 0; }
summary { cursor: pointer; color: var(--accent); }
.errors { border-left: 4px solid var(--bad); padding-left: 12px; }
nav.contents { color: var(--muted); font-size: 13px; margin: 10px 0; }
nav.contents a { color: var(--accent); margin-right: 12px; }
ul.lines { color: var(--fg); font-size: 13px; margin: 4px 0 8px; padding-left: 20px; }
p.lines-header { font-size: 13px; margin: 8px 0 0; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"""

CHECK_SCRIPT = """
(function () {
  var root = document.documentElement, errors = [];
  root.setAttribute("data-errors", "[]");
  function note(message) {
    errors.push(String(message));
    root.setAttribute("data-errors", JSON.stringify(errors));
  }
  window.addEventListener("error", function (e) {
    var t = e.target;
    note(t && t !== window && (t.src || t.href) ? "failed to load " + String(t.src || t.href).split("#")[0].slice(0, 200)
                                                 : (e.message || "error"));
  }, true);
  window.addEventListener("unhandledrejection", function (e) { note("unhandled rejection: " + e.reason); });
  var consoleError = console.error;
  console.error = function () {
    note(Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };
  window.addEventListener("load", function () {
    var figures = document.querySelectorAll("img.figure"), loaded = 0;
    for (var i = 0; i < figures.length; i++) {
      var img = figures[i];
      img.setAttribute("data-natural-size", img.naturalWidth + "x" + img.naturalHeight);
      if (img.complete && img.naturalWidth > 0 && img.naturalHeight > 0) loaded++;
    }
    root.setAttribute("data-figures", String(figures.length));
    // Horizontal overflow: of the page (should be 0) and the tables wider than their box (they scroll).
    root.setAttribute("data-page-overflow", String(root.scrollWidth - root.clientWidth));
    var boxes = document.querySelectorAll("div.scroll"), wide = 0;
    for (var j = 0; j < boxes.length; j++) if (boxes[j].scrollWidth > boxes[j].clientWidth) wide++;
    root.setAttribute("data-wide-tables", String(wide));
    root.setAttribute("data-figures-loaded", String(loaded));
    root.setAttribute("data-rendered", "1");
  });
})();
"""


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def paragraphs(text: str) -> str:
    """Plain text (blank-line separated paragraphs; `code` in backticks) as HTML."""
    out = []
    for para in [p.strip() for p in text.strip().split("\n\n") if p.strip()]:
        parts = esc(" ".join(para.split())).split("`")
        body = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
        out.append(f"<p>{body}</p>")
    return "\n".join(out)


@dataclass
class Table:
    """A DataFrame shown as an HTML table (numbers formatted as `ncmesh table` does).

    cell_class: optional function (column name, raw value) -> CSS class ("good", "bad").
    lines: one-line remarks under the note (a line ending in ':' introduces the ones after it)."""

    title: str
    df: Any
    note: str = ""
    cell_class: Any = None
    files: list = field(default_factory=list)
    lines: list = field(default_factory=list)


@dataclass
class Figure:
    """A figure: a matplotlib Figure, PNG bytes or a PNG path; `files` are links shown below it."""

    title: str
    image: Any
    caption: str = ""
    files: list = field(default_factory=list)

    def png_bytes(self) -> bytes:
        img = self.image
        if isinstance(img, bytes):
            return img
        if isinstance(img, (str, os.PathLike)):
            return Path(img).read_bytes()
        buf = io.BytesIO()
        img.savefig(buf, format="png", dpi=110, metadata={"Software": None})
        return buf.getvalue()


@dataclass(frozen=True)
class ClaimRow:
    """One row of the claims table: the paper's claim, the paper's value ("" when the claim
    carries it in its words), ours, the rule that decided it and whether it holds."""

    claim: str
    paper: str
    ours: str
    check: str
    holds: bool


@dataclass
class Claims:
    """The claims table: its rows, a note on how the checks decide, and one-line remarks
    under it (a line ending in ':' introduces the ones after it)."""

    rows: list
    note: str = ""
    lines: list = field(default_factory=list)

    def card(self) -> tuple[str, str, str]:
        """The headline card: how many of the claims hold (green only when all do)."""
        held = sum(r.holds for r in self.rows)
        return ("the paper's claims that hold", f"{held} of {len(self.rows)}",
                "good" if held == len(self.rows) else "bad")


# Characters beyond which a card's value is set small (a sentence rather than a number).
LONG_CARD = 24

# The sections of every page, in order: what a reader looks for first comes first; how the
# runs were made comes last, folded (id, heading).
SECTIONS = (("headline", "Headline"), ("claims", "The paper's claims beside ours"), ("figures", "Figures"),
            ("tables", "More tables"), ("notes", "Notes"), ("errors", "Errors"), ("settings", "Settings"))


@dataclass
class Report:
    """One page in the layout every report shares (`to_html`): the headline (cards: the claims
    that hold, then `highlights`; then `main_table`), the claims table, the figures, the other
    tables, the `notes`, the errors, and the settings (facts, sweep and base scenario) folded.
    A section with nothing to show is left out, except the errors ("none" is worth saying)."""

    title: str
    subtitle: str = ""
    description: str = ""
    highlights: list = field(default_factory=list)   # (name, value, "good"|"bad"|"") cards
    main_table: Table | None = None                   # shown in the headline
    claims: Claims | None = None
    facts: list = field(default_factory=list)        # (name, value) in the settings
    sweep_toml: str = ""
    scenario_toml: str = ""
    scenario_note: str = ""
    tables: list = field(default_factory=list)       # the other tables
    figures: list = field(default_factory=list)
    errors: list = field(default_factory=list)       # (run, message)
    notes: list = field(default_factory=list)        # paragraphs after the other tables

    def to_html(self, base_dir: str | os.PathLike | None = None) -> str:
        """The page. File links of tables and figures are made relative to base_dir."""
        sections = {"headline": self._headline(base_dir), "claims": self._claims(),
                    "figures": self._figures(base_dir),
                    "tables": "\n".join(self._table_html(t, base_dir) for t in self.tables),
                    "notes": "\n".join(paragraphs(note) for note in self.notes),
                    "errors": self._errors(), "settings": self._settings()}
        present = [(key, label) for key, label in SECTIONS if sections[key]]
        parts = [self._header(),
                 '<nav class="contents">' + "".join(f'<a href="#{k}">{esc(label)}</a>' for k, label in present)
                 + "</nav>"]
        parts += [f'<section id="{key}"><h2>{esc(label)}</h2>\n{sections[key]}\n</section>' for key, label in present]
        from .. import __version__
        parts.append(f"<footer>Made by ncmesh {esc(__version__)}. This page is self-contained: "
                     "figures are embedded; the linked files sit beside it.</footer>")
        body = "\n".join(parts)
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<title>{esc(self.title)}</title>\n<script>{CHECK_SCRIPT}</script>\n"
                f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n")

    def write(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_html(base_dir=path.parent), encoding="utf-8")
        return path

    # --- sections ("" leaves a section out)
    def _header(self) -> str:
        # The description is folded: the headline, not the set-up, is what a reader sees first.
        parts = [f"<header><h1>{esc(self.title)}</h1>"]
        if self.subtitle:
            parts.append(f'<p class="subtitle">{esc(self.subtitle)}</p>')
        if self.description:
            parts.append(f'<details class="about"><summary>What this is</summary>{paragraphs(self.description)}'
                         "</details>")
        parts.append("</header>")
        return "\n".join(parts)

    def _headline(self, base_dir) -> str:
        cards = ([self.claims.card()] if self.claims and self.claims.rows else []) + list(self.highlights)
        parts = []
        if cards:
            parts.append('<div class="highlights">')
            for item in cards:
                name, value, cls = (tuple(item) + ("",))[:3]
                # A value that is a sentence, not a number, in smaller type: cards stay side by side.
                cls = f"{cls} long".strip() if len(str(value)) > LONG_CARD else cls
                parts.append(f'<div class="highlight {esc(cls)}"><div class="value">{esc(value)}</div>'
                             f'<div class="name">{esc(name)}</div></div>')
            parts.append("</div>")
        if self.main_table is not None:
            parts.append(self._table_html(self.main_table, base_dir))
        return "\n".join(parts)

    def _claims(self) -> str:
        if not self.claims or not self.claims.rows:
            return ""
        head = ("the paper's claim", "paper", "ours", "check", "holds")
        rows = ['<div class="scroll"><table class="data claims"><thead><tr>'
                + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead><tbody>"]
        for r in self.claims.rows:
            verdict = f'<td class="{"good" if r.holds else "bad"}">{"yes" if r.holds else "no"}</td>'
            rows.append(f"<tr><td>{esc(r.claim)}</td><td>{esc(r.paper or '-')}</td><td>{esc(r.ours)}</td>"
                        f'<td class="rule">{esc(r.check)}</td>{verdict}</tr>')
        rows.append("</tbody></table></div>")
        if self.claims.note:
            rows.append(f'<p class="note">{esc(self.claims.note)}</p>')
        rows.append(self._lines_html(self.claims.lines))
        return "\n".join(rows)

    def _figures(self, base_dir) -> str:
        parts = []
        for i, f in enumerate(self.figures, start=1):
            data = base64.b64encode(f.png_bytes()).decode("ascii")
            parts.append(f"<figure><h3>Figure {i}. {esc(f.title)}</h3>"
                         f'<img class="figure" alt="{esc(f.title)}" src="data:image/png;base64,{data}">')
            cap = esc(f.caption) if f.caption else ""
            links = self._links(f.files, base_dir)
            if cap or links:
                parts.append(f"<figcaption>{cap}{' ' if cap and links else ''}{links}</figcaption>")
            parts.append("</figure>")
        return "\n".join(parts)

    def _errors(self) -> str:
        # Always present: "none" is worth saying.
        if not self.errors:
            return "<p>None: every run finished.</p>"
        items = "".join(f"<li><code>{esc(k)}</code>: {esc(m)}</li>" for k, m in self.errors)
        return f'<div class="errors"><p>{len(self.errors)} run(s) failed:</p><ul>{items}</ul></div>'

    def _settings(self) -> str:
        # Folded: the facts, the sweep and the base scenario matter to who re-runs, not to who reads.
        parts = ['<details class="settings"><summary>How it was run: command, runs, seeds, parameters, '
                 "version, date, the sweep and the base scenario</summary>", '<dl class="facts">']
        for name, value in self.facts:
            val = f"<code>{esc(value)}</code>" if name.lower() in ("command",) else esc(value)
            parts.append(f"<dt>{esc(name)}</dt><dd>{val}</dd>")
        parts.append("</dl>")
        if self.sweep_toml:
            parts.append(f"<details><summary>Sweep specification (TOML, {self.sweep_toml.count(chr(10))} lines)"
                         f"</summary><pre>{esc(self.sweep_toml)}</pre></details>")
        if self.scenario_toml:
            if self.scenario_note:
                parts.append(paragraphs(self.scenario_note))
            parts.append("<details><summary>Base scenario, every field (TOML)</summary>"
                         f"<pre>{esc(self.scenario_toml)}</pre></details>")
        parts.append("</details>")
        return "\n".join(parts)

    # --- pieces
    @staticmethod
    def _links(files, base_dir) -> str:
        links = []
        for f in files or []:
            p = Path(f)
            href = os.path.relpath(p.resolve(), Path(base_dir).resolve()) if base_dir is not None else str(p)
            links.append(f'<a href="{esc(href)}">{esc(p.name)}</a>')
        return ("Files: " + ", ".join(links)) if links else ""

    def _table_html(self, t: Table, base_dir) -> str:
        from ..analysis.table import _cells

        header, body, numeric = _cells(t.df)
        raw = list(t.df.itertuples(index=False))
        rows = [f"<h3>{esc(t.title)}</h3>", '<div class="scroll"><table class="data"><thead><tr>']
        rows += [f'<th class="{"num" if num else ""}">{esc(h)}</th>' for h, num in zip(header, numeric)]
        rows.append("</tr></thead><tbody>")
        for cells, values in zip(body, raw):
            rows.append("<tr>")
            for col, cell, num, value in zip(t.df.columns, cells, numeric, values):
                classes = ["num"] if num else []
                if t.cell_class:
                    extra = t.cell_class(col, value)
                    if extra:
                        classes.append(extra)
                rows.append(f'<td class="{" ".join(classes)}">{esc(cell)}</td>')
            rows.append("</tr>")
        rows.append("</tbody></table></div>")
        note = esc(t.note) if t.note else ""
        links = self._links(t.files, base_dir)
        if note or links:
            rows.append(f'<p class="note">{note}{" " if note and links else ""}{links}</p>')
        rows.append(self._lines_html(t.lines))
        return "\n".join(r for r in rows if r)

    @staticmethod
    def _lines_html(lines: list) -> str:
        """One-line remarks as a list; a first line ending in ':' is their header."""
        if not lines:
            return ""
        header = lines[0] if lines[0].endswith(":") else ""
        items = [line.removeprefix("- ") for line in lines[1 if header else 0:]]
        out = f'<p class="lines-header">{esc(header)}</p>' if header else ""
        return out + '<ul class="lines">' + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>"


def json_dumps(data: Any) -> str:
    from ..jsonsafe import finite_or_none

    def plain(v):
        if hasattr(v, "item"):          # numpy scalars
            return plain(v.item())
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, os.PathLike):
            return str(v)
        return v

    return json.dumps(finite_or_none(plain(data)), indent=2, allow_nan=False)
