"""`ncmesh reproduce ncaqm --quick` (Seferoglu & Markopoulou, NCAQM): summary keys, Table I with the paper's
column, figures, and the report rendered in headless Chromium."""

from __future__ import annotations

import csv
import json
import re

import pytest

from ncmesh.experiments import available, ncaqm
from ncmesh.sweep import load_sweep
from test_analysis_data import chromium
from test_experiments_common import assert_conclusions_under_claims
from test_report_layout import assert_reproduction_layout, assert_screenshot

TOPOS = ("alice-bob", "x", "cross", "grid")
FIGURES = ("fig4_cdf", "fig5_buffer", "fig6_wheel", "fig7_capacity", "fig9_butterfly", "appA_convergence")


def test_registered_with_parts():
    assert available()["ncaqm"] is ncaqm
    for quick in (True, False):
        parts = ncaqm.sweeps(quick)
        assert {f"{t}-buffer" for t in TOPOS} | {"wheel", "butterfly-buffer", "butterfly-capacity",
                                                 "butterfly-buffer-two-hop", "butterfly-capacity-two-hop"} <= set(parts)
        assert "bfly" in parts["butterfly-buffer"]["grid"]["scheme.name"]
        assert parts["butterfly-buffer-two-hop"]["grid"]["scheme.name"] == ["ncaqm"]
        assert parts["butterfly-buffer-two-hop"]["base"]["set"]["scheme.xor.two_hop"] is True
        for spec in parts.values():
            assert load_sweep(spec).runs()
            assert spec["seeds"]["count" if quick else "min"] == (ncaqm.QUICK if quick else ncaqm.FULL)["seeds"]
    assert ncaqm.FULL["seeds"] >= 10
    for part, spec in ncaqm.sweeps(True).items():
        # Every replicate draws its own start times (and grid layout): the builder seed follows the run seed.
        assert spec["base"]["options"]["seed"] == "run", part
        runs = load_sweep(spec).runs()
        starts = {r.seed: tuple(f["start_s"] for f in r.scenario["flows"]) for r in runs}
        assert len(set(starts.values())) == len(starts), part
    base = ncaqm.sweeps(True)["x-buffer"]["base"]["set"]
    assert base["mac.rts_threshold_bytes"] == 0 and base["tcp.sack"] is True and base["loss.0.rate"] == 0.15


def test_grid_is_the_papers_cell_grid():
    # Table I's and Figs. 4, 5, 7's grid: cells of 1-2 nodes, Poisson arrivals, relays in neighbouring cells.
    for part in ("grid-buffer", "grid-capacity"):
        spec = ncaqm.sweeps(True)[part]
        assert spec["base"]["builder"] == "cell-grid"
        assert spec["base"]["options"]["start_spread"] == 0
        assert {k: spec["base"]["options"][k] for k in ncaqm.GRID} == ncaqm.GRID
        runs = load_sweep(spec).runs()
        for r in runs:
            sc = r.scenario
            assert sc["name"].startswith("cell-grid-4x4-88m-")
            assert all(f["route"][0] == f["src"] and f["route"][-1] == f["dst"] for f in sc["flows"])
            assert any(f.get("stop_s") is not None for f in sc["flows"])
            starts = [f["start_s"] for f in sc["flows"]]
            assert starts == sorted(starts) and starts[0] > ncaqm.START_S
    assert ncaqm.grid_options(True)["duration"] == ncaqm.QUICK["duration"]
    assert ncaqm.grid_options(False)["duration"] == ncaqm.FULL["duration"]


@pytest.fixture(scope="module")
def quick_run(quick_reproduction):
    return quick_reproduction("ncaqm")


def test_quick_summary_and_tables(quick_run):
    out, p = quick_run
    s = json.loads((out / "summary.json").read_text())
    assert s["experiment"] == "ncaqm" and s["quick"] is True and s["runs"]["failed"] == 0
    assert s["seeds"] == ncaqm.QUICK["seeds"]
    for topo in TOPOS:
        e = s["table1"][topo]
        for scheme in ("ncaqm", "cope"):
            assert isinstance(e[f"{scheme}_improvement_pct"], float)
            assert f"{scheme}_improvement_ci95" in e
        assert e["paper_ncaqm_pct"] == ncaqm.PAPER_TABLE1[topo]["ncaqm"].value
        assert e["paper_cope_pct"] == ncaqm.PAPER_TABLE1[topo]["cope"].value
    assert s["table1"]["alice-bob"]["optimal_pct"] == pytest.approx(100 / 3, abs=0.1)
    assert s["table1"]["cross"]["optimal_pct"] == pytest.approx(60, abs=0.1)
    grid = s["table1"]["grid"]
    assert grid["optimal_pct_simulated_layouts"] > 0 and grid["optimal_pct"] > 0
    for key in ("relay_load", "relay_load_simulated_layouts"):
        assert grid[key]["max_flows_at_relay"] >= 2 and grid[key]["mean_active_flows"] > 1
    assert grid["relay_load"]["grids"] == len(ncaqm.GRID_NUM_SEEDS)
    assert grid["relay_load_simulated_layouts"]["grids"] == ncaqm.QUICK["seeds"]
    assert s["chosen"]["grid_kind"] == "cell-grid" and s["chosen"]["grid"] == ncaqm.GRID
    assert any(c["claim"].startswith("Sec. VI-B (grid)") for c in s["claims"])
    assert "bfly_available" not in s
    b9 = s["fig9_butterfly"]
    assert b9["optimal_pct"]["bfly"] == pytest.approx(50, abs=0.1)
    for kind, xs in (("buffer", ncaqm.BUFFERS), ("capacity", ncaqm.CAPACITIES)):
        assert set(b9[kind]) == {f"{x:g}" for x in xs}
        for e in b9[kind].values():
            for scheme in ("cope", "ncaqm_one_hop", "bfly", "ncaqm"):
                assert isinstance(e[f"{scheme}_improvement_pct"], float)
                assert f"{scheme}_improvement_ci95" in e and f"{scheme}_kbps" in e
            assert e["optimal_pct"] == pytest.approx(50, abs=0.1)
    assert (b9["buffer"]["5"]["paper_bfly_pct"], b9["buffer"]["5"]["paper_ncaqm_pct"]) == (13, 30)
    assert (b9["buffer"]["60"]["paper_bfly_pct"], b9["buffer"]["60"]["paper_ncaqm_pct"]) == (45, 65)
    assert b9["buffer"]["5"]["paper_optimal_pct"] == 50
    assert all(isinstance(c["holds"], bool) for c in s["claims"]) and len(s["claims"]) >= 10
    assert_conclusions_under_claims(s["claims"], p.stdout)
    assert set(s["fig6_wheel"]["ncaqm"]) == {"2", "4", "6", "8"}
    # Fig. 7's cause: the same X runs with adaptive and with fixed recovery timers, per capacity.
    t7 = s["fig7_timers"]
    assert set(t7) == {"adaptive", "fixed"}
    for timers in t7.values():
        assert set(timers) == {"cope", "ncaqm"}
        for scheme in timers.values():
            assert set(scheme) == {f"{c:g}" for c in ncaqm.CAPACITIES}
            assert all(0 < e["control_share_pct"] < 100 for e in scheme.values())
    for kind in ("alice-bob", "x", "butterfly"):
        assert s["appendix_a"][kind]["relative_error"] < 0.01
    assert s["chosen"]["buffer_packets"] == ncaqm.BUFFER_PACKETS
    rows = list(csv.DictReader(open(out / "tables" / "table1.csv")))
    assert [r["topology"] for r in rows] == ["Alice-and-Bob", "X", "cross", "grid"]
    assert [r["TCP+NCAQM paper (%)"] for r in rows] == ["18", "19", "39", "35"]
    assert [r["Optimal paper (%)"] for r in rows] == ["33", "33", "60", "-"]
    assert "| Alice-and-Bob |" in p.stdout and "TCP+COPE paper (%)" in p.stdout
    for name in FIGURES:
        assert (out / "figures" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
        assert f"wrote {out / 'figures' / name}.png" in p.stdout
    assert (out / "results" / "wheel" / "runs").is_dir()
    page = (out / "report.html").read_text()
    assert page.count('<img class="figure"') == len(FIGURES)
    assert "TCP+BFLY" in page and "not implemented" not in page
    rows = list(csv.DictReader(open(out / "tables" / "fig9_butterfly.csv")))
    assert [r["TCP+BFLY paper (%)"] for r in rows[:5]] == ["13", "-", "-", "-", "45"]


@pytest.mark.skipif(chromium() is None,
                    reason="headless Chromium not installed (Debian package `chromium`; scripts/setup.sh installs it)")
def test_report_screenshot(quick_run, tmp_path):
    out, _ = quick_run
    r = assert_screenshot(out / "report.html", tmp_path, "ncaqm-report")
    assert r["figures"] == len(FIGURES)
    size = re.search(r'data-natural-size="(\d+)x(\d+)"', r["dom"])
    assert size and int(size.group(1)) > 500 and int(size.group(2)) > 300


def test_report_layout(quick_run):
    assert_reproduction_layout(quick_run[0], "table1")


def test_fig7_shows_the_papers_values_beside_ours():
    # The capacity figure's fifth panel: X's improvement over noNC, ours and the paper's
    # (40 -> 42% NCAQM, 27 -> 16% COPE at 1 and 11 Mbit/s), on an axis that holds both.
    import pandas as pd

    from ncmesh.experiments.figures import grid_figure

    key = "mac.data_rate_mbps"
    rows = [{key: c, "scheme": s, "seed": seed, "throughput_kbps": base * (1 + gain / 100) + seed}
            for c in ncaqm.CAPACITIES for seed in (1, 2, 3)
            for s, base, gain in (("none", 500.0, 0), ("cope", 500.0, -8), ("ncaqm", 500.0, 12))]
    fig, axes = grid_figure(5, 4)
    ax = axes[0, 0]
    ncaqm._fig7_paper_panel(ax, pd.DataFrame(rows), key, "capacity")
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["TCP+NCAQM (paper)"].get_xdata()) == [1.0, 11.0]
    assert list(lines["TCP+NCAQM (paper)"].get_ydata()) == [40, 42]
    assert list(lines["TCP+COPE (paper)"].get_ydata()) == [27, 16]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"TCP+COPE (ours)", "TCP+NCAQM (ours)", "TCP+COPE (paper)", "TCP+NCAQM (paper)"} <= set(labels)
    low, high = ax.get_ylim()
    assert low < -8 and high >= 42                     # our negative COPE and the paper's 42% both show
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_conclusions_are_written_from_the_run_numbers(quick_run):
    """The conclusion of each class of claims is written from the run's own numbers: two runs whose
    numbers differ get different lines, and each line shows the numbers it rests on."""
    import copy

    out, _ = quick_run
    s = json.loads((out / "summary.json").read_text())
    before = {k: g.conclusion for k, g in ncaqm._conclusions(s).items()}
    assert all(before.values()) and len(before) == 4
    t1 = s["table1"]
    assert f"{t1['grid']['cope_improvement_pct']:+.0f}%" in before[ncaqm.GAIN.name]
    other = copy.deepcopy(s)
    for topo in TOPOS:
        other["table1"][topo]["cope_improvement_pct"] += 11.0
        for b in map(str, ncaqm.BUFFERS):
            other["fig5_buffer"][topo]["ncaqm"][b]["mean_kbps"] *= 1.5
    for scheme in ("cope", "ncaqm"):
        for c in other["fig7_capacity"]["x"][scheme].values():
            c["improvement_pct"] -= 3.0
    for e in other["fig9_butterfly"]["buffer"].values():
        e["bfly_improvement_pct"] += 20.0
    after = {k: g.conclusion for k, g in ncaqm._conclusions(other).items()}
    for name in before:
        assert before[name] != after[name], name
    assert f"{other['table1']['grid']['cope_improvement_pct']:+.0f}%" in after[ncaqm.GAIN.name]
