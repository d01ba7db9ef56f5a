"""`ncmesh report` and ncmesh.report: a self-contained page that renders in headless Chromium."""

from __future__ import annotations

import re

import pytest

from ncmesh.report import Figure, Report, Table, write_results_report
from test_analysis_data import artifact_dir, chromium, pixel_stats, render, write_real, write_synthetic
from test_report_layout import assert_report_layout, section

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="headless Chromium not installed (Debian package `chromium`; scripts/setup.sh installs it)")


@pytest.fixture
def synthetic(tmp_path):
    return write_synthetic(tmp_path / "syn", {1: [100.0, 110.0, 120.0], 2: [50.0, 60.0, None]})


def _self_contained(text: str) -> None:
    # no external resource: every src is a data: URI, no http(s) links, no <link>/<script src>
    assert not re.search(r"""src=["'](?!data:)""", text)
    assert "http://" not in text and "https://" not in text
    assert "<link" not in text and "<script src" not in text


def test_results_report_sections(synthetic):
    path = write_results_report(synthetic)
    assert path == synthetic / "report.html"
    text = path.read_text()
    _self_contained(text)
    for heading in ("Headline", "Figures", "Errors", "Settings"):
        assert f"<h2>{heading}</h2>" in text
    assert text.count('<img class="figure"') == 3            # line, CDF, time series
    assert "110.0 ± 24.8" in section(text, "headline")       # the CI table is the main table
    assert '<div class="value">5 of 6</div><div class="name">runs finished</div>' in text
    assert "hops2-s3" in section(text, "errors") and "boom" in text             # the failed run
    assert "Runs</dt><dd>6 (5 finished, 1 failed)" in section(text, "settings")


def test_results_report_has_the_shared_layout_without_claims(synthetic):
    text = write_results_report(synthetic).read_text()
    assert_report_layout(text, None, main_table="Per parameter combination: mean and 95% confidence interval "
                                                "across seeds", facts=("Report made", "Runs", "Parameter hops"))


def test_results_come_before_the_settings_which_are_folded(synthetic):
    text = write_results_report(synthetic).read_text()
    order = [text.index(f"<h2>{h}</h2>") for h in ("Headline", "Figures", "Errors", "Settings")]
    assert order == sorted(order)
    rep = Report(title="t", sweep_toml="name = 'x'\n" * 400, scenario_toml="a = 1\n",
                 tables=[Table("T", __import__("pandas").DataFrame({"k": [1]}))])
    page = rep.to_html()
    assert page.index("<h3>T</h3>") < page.index("name = &#x27;x&#x27;")
    assert "<details><summary>Sweep specification (TOML, 400 lines)</summary>" in page   # folded, not open
    assert page.index('<details class="settings">') < page.index("Sweep specification")
    assert "<details open" not in page
    assert page.index('<nav class="contents">') < page.index("<h2>More tables</h2>")


def test_table_lines_are_a_list_under_the_note():
    import pandas as pd

    rep = Report(title="t", tables=[Table("T", pd.DataFrame({"k": [1]}), note="the rule",
                                          lines=["What ncmesh concludes:", "- class A: because", "- class B: so"])])
    page = rep.to_html()
    assert page.index("the rule") < page.index('<p class="lines-header">What ncmesh concludes:</p>')
    assert '<ul class="lines"><li>class A: because</li><li>class B: so</li></ul>' in page


def test_report_cli(cli, synthetic, tmp_path):
    out = tmp_path / "r" / "page.html"
    p = cli("report", str(synthetic), "-o", str(out), "--title", "My sweep")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"wrote {out}"
    text = out.read_text()
    assert "<title>My sweep</title>" in text and f"ncmesh report {synthetic}" in text


def test_report_object_escapes_and_links(tmp_path):
    import pandas as pd

    (tmp_path / "t.csv").write_text("a\n1\n")
    rep = Report(title="a <b> & c", description="uses `code`", facts=[("Command", "ncmesh x <y>")],
                 tables=[Table("T", pd.DataFrame({"k": ["x"], "v": [1.5]}), files=[tmp_path / "t.csv"])],
                 figures=[Figure("F", b"\x89PNG\r\n\x1a\n")])
    text = rep.to_html(base_dir=tmp_path)
    assert "<title>a &lt;b&gt; &amp; c</title>" in text and "<code>code</code>" in text
    assert '<a href="t.csv">t.csv</a>' in text
    assert "<code>ncmesh x &lt;y&gt;</code>" in text


@needs_chromium
def test_results_report_renders_in_chromium(tmp_path):
    results = write_real(tmp_path / "real", hops=(1, 2), seeds=(1, 2))
    page = write_results_report(results)
    shot = artifact_dir(tmp_path) / "results-report.png"
    r = render(page, tmp_path, screenshot=shot)
    assert r["rendered"] == "1", r["dom"][:500]
    assert r["errors"] == [] and r["console"] == []
    assert r["figures"] == 3 and r["loaded"] == 3
    assert all(w != "0x0" for w in re.findall(r'data-natural-size="([^"]+)"', r["dom"]))
    stddev, colours = pixel_stats(shot)
    assert stddev > 10 and colours > 50, (stddev, colours)
    print(f"screenshot: {shot}")


@needs_chromium
def test_the_check_script_catches_a_broken_page(synthetic, tmp_path):
    page = write_results_report(synthetic)
    text = page.read_text()
    broken = text.replace('src="data:image/png;base64,', 'src="missing.png#', 1)
    broken = broken.replace("</main>", "<script>console.error('oops'); undefinedFunction();</script></main>")
    page.write_text(broken)
    r = render(page, tmp_path)
    assert r["loaded"] == r["figures"] - 1
    assert any("missing.png" in e for e in r["errors"]) and any("oops" in e for e in r["errors"])
    assert any("undefinedFunction" in line for line in r["console"])
