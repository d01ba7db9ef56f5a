"""The layout every report shares (ncmesh.report.Report): the headline (cards, main table), the
claims table (the paper's claim, its value, ours, the check, the verdict), the figures, and
the settings folded; every table in a horizontally scrolling box. `assert_report_layout` and
`assert_screenshot` are used by the reproductions' tests on their own reports (their
fixtures: no run of their own here)."""

from __future__ import annotations

import html
import re
import struct

import pandas as pd
import pytest

from ncmesh.report import ClaimRow, Claims, Figure, Report, Table
from test_analysis_data import artifact_dir, chromium, pixel_stats, render

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="headless Chromium not installed (Debian package `chromium`; scripts/test.sh installs it)")

# The four sections every reproduction's report has, in this order (others may sit between).
ORDER = ("headline", "claims", "figures", "settings")
SCREENSHOT_SIZE = (1280, 2000)
# What the settings of a reproduction name: how to run it again, when, with which build.
REPRODUCTION_FACTS = ("Command", "Date", "ncmesh version", "Simulator build")


def section(page: str, name: str) -> str:
    """The HTML of <section id=NAME> ("" when the page has none)."""
    m = re.search(rf'<section id="{name}">(.*?)</section>', page, re.S)
    return m.group(1) if m else ""


def assert_report_layout(page: str, claims: list[dict] | None, main_table: str | None = None,
                         facts: tuple = REPRODUCTION_FACTS) -> None:
    """`page` is in the shared layout. claims: summary.json's claims (None: a page without
    claims); main_table: the title of the table expected in the headline; facts: names the
    folded settings hold."""
    ids = re.findall(r'<section id="([a-z]+)">', page)
    assert [i for i in ids if i in ORDER] == [s for s in ORDER if claims is not None or s != "claims"], ids
    headline = section(page, "headline")
    assert headline.count('<table class="data">') == 1, "the main table is in the headline"
    if main_table is not None:
        assert f"<h3>{html.escape(main_table)}</h3>" in headline
    if claims is not None:
        held = sum(c["holds"] for c in claims)
        # The first card: how many claims hold, as summary.json counts them.
        first = re.search(r'<div class="highlight[^"]*"><div class="value">([^<]*)</div><div class="name">([^<]*)</div>',
                          headline)
        assert first and first.groups() == (f"{held} of {len(claims)}", "the paper&#x27;s claims that hold")
        _assert_claims_table(section(page, "claims"), claims)
    assert "The paper&#x27;s claims beside ours</h3>" not in page       # the claims table once, in its section
    figures = section(page, "figures")
    assert figures.count('<img class="figure"') == page.count('<img class="figure"') > 0
    _assert_settings_folded(section(page, "settings"), facts)
    _assert_tables_scroll(page)


def _assert_claims_table(part: str, claims: list[dict]) -> None:
    """One table: the paper's claim, the paper's value, ours, the check, holds; one row per claim."""
    assert part.count("<table") == 1
    head = re.findall(r"<th>([^<]*)</th>", part)
    assert head == ["the paper&#x27;s claim", "paper", "ours", "check", "holds"], head
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td class=\"rule\">(.*?)</td>"
                      r"<td class=\"(good|bad)\">(yes|no)</td></tr>", part, re.S)
    assert len(rows) == len(claims)
    for (text, paper, ours, check, cls, verdict), c in zip(rows, claims):
        assert html.unescape(text) == c["claim"] and html.unescape(ours) == c["ours"]
        assert html.unescape(check) == c["check"]
        assert (verdict, cls) == (("yes", "good") if c["holds"] else ("no", "bad"))
        if "paper" in c:       # a paper's number: shown with where the paper prints it
            assert html.unescape(paper).endswith(f"({c['paper_source']})")


def _assert_settings_folded(part: str, facts: tuple) -> None:
    """The settings are one closed <details> holding the facts of the runs and their seeds."""
    assert "<details" in part
    body = part[part.index("<details"):]
    assert body.startswith('<details class="settings"><summary>') and body.rstrip().endswith("</details>")
    for fact in facts:
        assert f"<dt>{fact}</dt>" in body, fact
    assert re.search(r"<dt>(Seeds|Part [^<]+)</dt>", body)


def _assert_tables_scroll(page: str) -> None:
    """Every table sits directly in a box that scrolls horizontally; nothing opens folded."""
    assert page.count("<table") == len(re.findall(r'<div class="scroll"><table', page)) > 0
    assert re.search(r"\.scroll \{[^}]*overflow-x: auto", page)
    assert "<details open" not in page


def assert_reproduction_layout(out, main: str) -> None:
    """OUT/report.html of `ncmesh reproduce` is in the shared layout, with summary.json's
    claims and the table MAIN (its title: the first line of OUT/tables/MAIN.md) in the
    headline."""
    import json

    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    title = (out / "tables" / f"{main}.md").read_text(encoding="utf-8").splitlines()[0]
    assert_report_layout((out / "report.html").read_text(encoding="utf-8"), summary["claims"], main_table=title)


def png_size(path) -> tuple[int, int]:
    """(width, height) from a PNG's header chunk."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def assert_screenshot(page, tmp_path, name: str) -> dict:
    """Renders `page` in headless Chromium at SCREENSHOT_SIZE: it renders without errors, the
    page does not overflow sideways, and the screenshot has the size asked for and is not
    blank. Returns render()'s dict."""
    shot = artifact_dir(tmp_path) / f"{name}.png"
    r = render(page, tmp_path, screenshot=shot, size=SCREENSHOT_SIZE)
    assert r["rendered"] == "1" and r["errors"] == [] and r["console"] == [], r["dom"][:500]
    assert r["loaded"] == r["figures"]
    assert r["page_overflow"] == 0, f"the page is {r['page_overflow']} px wider than the window"
    assert png_size(shot) == SCREENSHOT_SIZE
    stddev, colours = pixel_stats(shot)
    assert stddev > 10 and colours > 50, (stddev, colours)
    print(f"screenshot: {shot}")
    return r


# ---------------------------------------------------------------- a hand-made page

def _page() -> Report:
    """A report with every piece: cards, a main table, claims, a figure, a wide table, notes,
    settings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot([1, 2, 3], [3, 1, 2])
    wide = pd.DataFrame({f"a rather long column name {i}": [f"value-{i}-" + "x" * 20] for i in range(30)})
    rows = [ClaimRow("Fig. 1: more is better", "40 (Fig. 1)", "41.0 ± 2.0", "within the CI or 5 points", True),
            ClaimRow("Fig. 2: it rises", "", "3 -> 5", "trend of the means", True),
            ClaimRow("Fig. 3: it falls", "", "3 -> 5", "trend of the means", False)]
    rep = Report(title="A page", subtitle="ncmesh reproduce x", description="What is run.",
                 highlights=[("largest difference", "3.1%", "good")],
                 main_table=Table("The main table", pd.DataFrame({"hops": [1, 2], "kbit/s": [100.0, 50.0]})),
                 claims=Claims(rows, note="how the checks decide", lines=["What ncmesh concludes:", "- a: b"]),
                 figures=[Figure("F", fig)], tables=[Table("Wide", wide)], notes=["A note."],
                 facts=[("Command", "ncmesh reproduce x --quick --out " + "/very/long/path" * 20), ("Date", "today"),
                        ("ncmesh version", "0"), ("Simulator build", "abc"), ("Seeds", "1-2 (2)")],
                 sweep_toml="name = 'x'\n" * 40, scenario_toml="a = 1\n", scenario_note="The first run's.")
    return rep


def _summary_claims(claims: Claims) -> list[dict]:
    """The rows as summary.json's claims (what assert_report_layout compares with)."""
    out = []
    for r in claims.rows:
        c = {"claim": r.claim, "ours": r.ours, "check": r.check, "holds": r.holds}
        if r.paper:
            c["paper"], c["paper_source"] = 40.0, "Fig. 1"
        out.append(c)
    return out


def test_the_sections_come_in_order_with_the_claims_table_and_the_settings_folded():
    rep = _page()
    page = rep.to_html()
    assert_report_layout(page, _summary_claims(rep.claims), main_table="The main table")
    ids = re.findall(r'<section id="([a-z]+)">', page)
    assert ids == ["headline", "claims", "figures", "tables", "notes", "errors", "settings"]
    claims = section(page, "claims")
    assert claims.index("how the checks decide") < claims.index('<p class="lines-header">What ncmesh concludes:</p>')
    assert "<td>40 (Fig. 1)</td>" in claims and "<td>-</td>" in claims    # no number: "-"
    # The headline's first card counts the claims; the experiment's cards follow.
    assert re.search(r'"highlight bad"><div class="value">2 of 3</div>.*"highlight good"><div class="value">3.1%',
                     section(page, "headline"), re.S)
    settings = section(page, "settings")
    assert "<pre>" in settings and "The first run&#x27;s." in settings
    # The description is folded under the title, before the headline.
    assert page.index('<details class="about"><summary>') < page.index('<section id="headline">')


def test_the_layout_check_fails_on_a_page_out_of_order_or_unfolded():
    rep = _page()
    page, claims = rep.to_html(), _summary_claims(rep.claims)
    moved = page.replace('<section id="claims">', '<section id="claimsX">')
    moved = moved.replace('<section id="settings">', '<section id="claims">', 1)
    with pytest.raises(AssertionError):
        assert_report_layout(moved, claims)
    with pytest.raises(AssertionError):                              # settings not folded
        assert_report_layout(page.replace('<details class="settings">', "<div>"), claims)
    with pytest.raises(AssertionError):                              # a table that cannot scroll
        assert_report_layout(page.replace('<div class="scroll"><table class="data">', "<div><table>", 1), claims)
    with pytest.raises(AssertionError):                              # the count disagrees with the claims
        assert_report_layout(page, claims[:2])
    rep.main_table = None
    with pytest.raises(AssertionError):                              # no main table in the headline
        assert_report_layout(rep.to_html(), claims)


def test_a_page_without_claims_leaves_out_the_claims_section():
    rep = _page()
    rep.claims = None
    page = rep.to_html()
    assert '<section id="claims">' not in page and "claims that hold" not in page
    assert_report_layout(page, None, main_table="The main table")


@needs_chromium
def test_a_wide_table_scrolls_inside_its_box_and_the_page_does_not(tmp_path):
    path = _page().write(tmp_path / "page" / "report.html")
    r = assert_screenshot(path, tmp_path, "layout-wide-table")
    assert r["wide_tables"] == 1                     # the 30-column table: wider than its box, which scrolls
