"""`ncmesh table` / `ncmesh plot` and ncmesh.analysis: confidence intervals checked by hand."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from ncmesh.analysis import (format_table, mean_ci, param_columns, per_run, plot_cdf, plot_line,
                             plot_series, save_figure, series_frame, summarize, t_quantile)
from ncmesh.analysis.table import with_ci_text
from test_analysis_data import tiny_sweep, write_synthetic

# hops=1: three seeds; hops=2: two seeds and a failed run.
GOODPUT = {1: [100.0, 110.0, 120.0], 2: [50.0, 60.0, None]}


@pytest.fixture
def synthetic(tmp_path):
    return write_synthetic(tmp_path / "syn", GOODPUT)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A real (tiny) sweep run with ncmesh.sweep: chain, hops 1-2, seeds 1-2, 10 s."""
    from ncmesh.sweep import load_sweep, run_sweep

    out = tmp_path_factory.mktemp("sweep") / "tiny"
    report = run_sweep(load_sweep(tiny_sweep()), out, jobs=1, progress=False)
    assert report.failed == 0 and report.done == 4
    return out


# ---------------------------------------------------------------- statistics

@pytest.mark.parametrize("p, df, expected", [
    (0.975, 1, 12.706204736), (0.975, 2, 4.302652730), (0.975, 4, 2.776445105),
    (0.975, 9, 2.262157163), (0.975, 29, 2.045229642), (0.995, 4, 4.604094871),
    (0.95, 10, 1.812461123), (0.025, 9, -2.262157163), (0.5, 3, 0.0),
])
def test_t_quantile_matches_tables(p, df, expected):
    assert t_quantile(p, df) == pytest.approx(expected, abs=1e-7)


def test_mean_ci_by_hand():
    # mean 110, sample sd 10, n 3: half-width = t(0.975, 2) * 10 / sqrt(3)
    mean, half, n = mean_ci([100, 110, 120])
    assert (mean, n) == (110.0, 3)
    assert half == pytest.approx(4.302652730 * 10 / math.sqrt(3), rel=1e-9)
    assert half == pytest.approx(24.84138, abs=1e-4)
    mean, half, n = mean_ci([7.0])
    assert mean == 7.0 and n == 1 and math.isnan(half)
    mean, half, n = mean_ci([1.0, float("nan"), 3.0])
    assert (mean, n) == (2.0, 2) and half == pytest.approx(12.706204736 * math.sqrt(2) / math.sqrt(2))
    assert mean_ci([])[2] == 0


# ---------------------------------------------------------------- tables

def test_summarize_by_hand(synthetic):
    df = summarize(synthetic, "goodput_kbps")
    assert list(df.columns) == ["hops", "goodput_kbps_mean", "goodput_kbps_ci95", "n"]
    one, two = df.iloc[0], df.iloc[1]
    assert (one.hops, one.goodput_kbps_mean, one.n) == (1, 110.0, 3)
    assert one.goodput_kbps_ci95 == pytest.approx(24.841377, abs=1e-5)
    # the failed run is left out: [50, 60] -> mean 55, sd 7.0711, half = 12.7062 * 5
    assert (two.hops, two.goodput_kbps_mean, two.n) == (2, 55.0, 2)
    assert two.goodput_kbps_ci95 == pytest.approx(12.706204736 * 5.0, abs=1e-6)


def test_params_come_from_the_runs(synthetic):
    assert param_columns(synthetic) == ["hops"]


def test_summarize_pooled_and_several_metrics(synthetic):
    df = summarize(synthetic, ["goodput_kbps", "rtt_mean_ms"], by=[])
    assert list(df.columns) == ["goodput_kbps_mean", "goodput_kbps_ci95", "rtt_mean_ms_mean", "rtt_mean_ms_ci95", "n"]
    values = [100, 110, 120, 50, 60]
    mean, half, n = mean_ci(values)
    assert df.goodput_kbps_mean[0] == pytest.approx(mean) and df.goodput_kbps_ci95[0] == pytest.approx(half)
    assert df.n[0] == 5
    # rtt_mean_ms = 10 * seed: seeds 1,2,3,1,2
    assert df.rtt_mean_ms_mean[0] == pytest.approx(18.0)


def test_per_run_sum_over_nodes_and_runs_metrics(synthetic):
    # mac_frames_sent per node = 100 * (node + 1) * seed; two nodes -> 300 * seed per run
    pr = per_run(synthetic, "mac_frames_sent", per_run="sum")
    assert sorted(pr[pr.hops == 1]["mac_frames_sent"]) == [300, 600, 900]
    df = summarize(synthetic, "mac_frames_sent", per_run_agg="sum")
    assert df.mac_frames_sent_mean[0] == 600.0
    assert df.mac_frames_sent_ci95[0] == pytest.approx(4.302652730 * 300 / math.sqrt(3))
    assert summarize(synthetic, "mac_frames_sent").mac_frames_sent_mean[0] == 300.0   # default: mean
    events = summarize(synthetic, "events")          # a runs-table metric
    assert list(events.events_mean) == [2000.0, 1500.0]


def test_unknown_metric_and_key(synthetic):
    with pytest.raises(KeyError, match="goodput_kbps"):
        summarize(synthetic, "nope")
    with pytest.raises(KeyError, match="nope"):
        summarize(synthetic, "goodput_kbps", by="nope")


def test_formats(synthetic):
    df = summarize(synthetic)
    text = format_table(df, "text")
    assert text.splitlines()[0].split() == ["hops", "goodput_kbps_mean", "goodput_kbps_ci95", "n"]
    assert text.splitlines()[2].split() == ["1", "110.0", "24.8", "3"]
    csv = pd.read_csv(io.StringIO(format_table(df, "csv")))
    assert csv.goodput_kbps_ci95[0] == pytest.approx(24.841377, abs=1e-5)
    md = format_table(df, "markdown").splitlines()
    assert md[0] == "| hops | goodput_kbps_mean | goodput_kbps_ci95 | n |" and md[1] == "|---:|---:|---:|---:|"
    shown = with_ci_text(df)
    assert list(shown.columns) == ["hops", "Goodput (kbit/s)", "n"]
    assert shown.iloc[0, 1] == "110.0 ± 24.8"


def test_table_on_a_real_sweep(swept):
    df = summarize(swept, ["goodput_kbps", "retransmissions"])
    assert list(df.hops) == [1, 2] and list(df.n) == [2, 2]
    assert 1200 < df.goodput_kbps_mean[0] < 1500 and 450 < df.goodput_kbps_mean[1] < 750
    runs = per_run(swept, "goodput_kbps")
    for hops, g in runs.groupby("hops"):
        mean, half, n = mean_ci(g.goodput_kbps)
        row = df[df.hops == hops].iloc[0]
        assert row.goodput_kbps_mean == pytest.approx(mean) and row.goodput_kbps_ci95 == pytest.approx(half)


def test_table_cli(cli, synthetic, tmp_path):
    p = cli("table", str(synthetic))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[2].split() == ["1", "110.0", "24.8", "3"]
    p = cli("table", str(synthetic), "--metric", "goodput_kbps,rtt_mean_ms", "--by", "", "--format", "csv")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "goodput_kbps_mean,goodput_kbps_ci95,rtt_mean_ms_mean,rtt_mean_ms_ci95,n"
    out = tmp_path / "t.md"
    p = cli("table", str(synthetic), "-m", "mac_frames_sent", "--per-run", "sum", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert out.read_text().startswith("| hops | mac_frames_sent_mean |")
    p = cli("table", str(synthetic), "--metric", "nope")
    assert p.returncode == 2 and "error: no numeric metric 'nope'" in p.stderr
    p = cli("table", str(tmp_path / "missing"))
    assert p.returncode == 2 and "error:" in p.stderr


# ---------------------------------------------------------------- plots

def _check_png(path):
    from PIL import Image

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as img:
        img.verify()
    with Image.open(path) as img:
        w, h = img.size
    assert w > 300 and h > 200


def _check_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "<path" in path.read_text()


def test_plots_write_valid_png_and_svg(synthetic, tmp_path):
    figs = {
        "line": plot_line(synthetic, "hops", "goodput_kbps"),
        "cdf": plot_cdf(synthetic, "goodput_kbps", hue="hops"),
        "series": plot_series(synthetic, "goodput_kbps", hue="hops"),
    }
    for name, fig in figs.items():
        assert fig.axes[0].get_ylabel()
        png, svg = save_figure(fig, tmp_path / name)
        assert (png.name, svg.name) == (f"{name}.png", f"{name}.svg")
        _check_png(png)
        _check_svg(svg)
    line = figs["line"].axes[0]
    assert line.get_xlabel() == "Hops" and line.get_ylabel() == "Goodput (kbit/s)"


def test_svg_is_reproducible(synthetic, tmp_path):
    a = save_figure(plot_line(synthetic, "hops"), tmp_path / "a")[1].read_text()
    b = save_figure(plot_line(synthetic, "hops"), tmp_path / "b")[1].read_text()
    assert a == b


def test_line_plot_with_reference_and_error_bars(synthetic):
    ref = pd.DataFrame({"hops": [1, 2], "goodput_kbps": [105.0, 58.0], "low": [100.0, 55.0], "high": [110.0, 60.0]})
    fig = plot_line(synthetic, "hops", reference=ref, reference_label="paper")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[-1] == "paper" and labels[0].startswith("ncmesh (mean ± 95% CI")


def test_series_frame(synthetic):
    df = series_frame(synthetic, "goodput_kbps", hue="hops")
    row = df[(df.hops == 1) & (df.t_s == 3.0)].iloc[0]
    # goodput series = gp * t / 3 -> at t = 3 the run's goodput: mean 110 over 3 seeds
    assert row.goodput_kbps_mean == pytest.approx(110.0) and row.n == 3
    with pytest.raises(KeyError, match="cwnd_bytes"):
        series_frame(synthetic, "nope")


def test_plot_cli(cli, swept, tmp_path):
    p = cli("plot", str(swept), "--x", "hops", "--y", "goodput_kbps", "-o", str(tmp_path / "gp"))
    assert p.returncode == 0, p.stderr
    _check_png(tmp_path / "gp.png")
    _check_svg(tmp_path / "gp.svg")
    p = cli("plot", str(swept), "--kind", "series", "--y", "cwnd_bytes", "--hue", "hops", "-o", str(tmp_path / "cw"))
    assert p.returncode == 0, p.stderr
    _check_png(tmp_path / "cw.png")
    p = cli("plot", str(swept), "--y", "goodput_kbps", "--hue", "hops")       # cdf, default prefix
    assert p.returncode == 0, p.stderr
    _check_png(swept / "figures" / "cdf-goodput_kbps-by-hops.png")
    p = cli("plot", str(swept), "--kind", "line")
    assert p.returncode == 2 and "--x" in p.stderr
