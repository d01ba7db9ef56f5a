"""`ncmesh reproduce cope-tcp --quick` (Xu et al., TCP over COPE): summary keys, the paper's claims beside
ours, figures, the X-II scenario, and the report rendered in headless Chromium."""

from __future__ import annotations

import csv
import json

import pytest

from ncmesh import _core
from ncmesh.experiments import available, cope_tcp
from ncmesh.sweep import load_sweep
from test_analysis_data import chromium
from test_experiments_common import assert_conclusions_under_claims
from test_report_layout import assert_reproduction_layout, assert_screenshot

FIGURES = ("fig3_chain", "fig5_fig7_x", "fig8_fig9_x1")


def test_registered_with_parts():
    assert available()["cope-tcp"] is cope_tcp
    for quick in (True, False):
        parts = cope_tcp.sweeps(quick)
        assert set(parts) == {"chain", "x1", "x1_200", "x2"}
        for spec in parts.values():
            assert load_sweep(spec).runs()
    assert cope_tcp.FULL["seeds"] >= 10


def test_x2_scenario():
    runs = load_sweep(cope_tcp.sweeps(True)["x2"]).runs()
    run = runs[0]
    scn = run.scenario
    assert len(scn["nodes"]) == 9
    assert [f["route"] for f in scn["flows"]] == [[0, 1, 2, 3, 4], [5, 6, 2, 7, 8]]
    assert all(2.0 <= f["start_s"] < 3.0 for f in scn["flows"])
    # The start times follow the run seed (builder seed "run"), the same for every TCP and scheme.
    starts = {}
    for r in runs:
        starts.setdefault(r.seed, set()).add(tuple(f["start_s"] for f in r.scenario["flows"]))
    assert all(len(v) == 1 for v in starts.values())
    assert len({next(iter(v)) for v in starts.values()}) == len(starts) == cope_tcp.QUICK["seeds"]
    res = _core.run(_core.resolve({**scn, "simulation": {**scn["simulation"], "duration_s": 12.0}}))
    # Both flows deliver (one may starve for seconds at a time in X-II, so not necessarily in [10 s, 12 s]).
    assert all(f["rx_bytes"] > 0 for f in res["flows"])


def test_x1_200_is_x1_at_the_chains_spacing():
    """X-I's arm length is the paper's silence: the x1_200 part runs it at 200 m beside 150 m."""
    def rim(part):
        scn = load_sweep(cope_tcp.sweeps(True)[part]).runs()[0].scenario
        return max(abs(n["x"]) + abs(n["y"]) for n in scn["nodes"])

    assert rim("x1") == pytest.approx(cope_tcp.X1_SPACING_M)
    assert rim("x1_200") == pytest.approx(cope_tcp.SPACING_M) == pytest.approx(200.0)


@pytest.fixture(scope="module")
def quick_run(quick_reproduction):
    return quick_reproduction("cope-tcp")


def test_quick_summary_and_tables(quick_run):
    out, p = quick_run
    s = json.loads((out / "summary.json").read_text())
    assert s["experiment"] == "cope-tcp" and s["quick"] is True and s["runs"]["failed"] == 0
    assert s["seeds"] == cope_tcp.QUICK["seeds"]
    assert set(s["fig3_chain"]) == {"newreno", "few", "ap"}
    assert set(s["fig3_chain"]["ap"]["cope"]) == {str(h) for h in cope_tcp.CHAIN_HOPS}
    for key in ("x1.newreno", "x1.few", "x1.ap", "x1_200.newreno", "x1_200.few", "x1_200.ap", "x2.newreno", "x2.few",
                "x2.ap"):
        assert set(s["x_cope_gain_pct"][key]) == {"cope_gain_pct", "ci95", "n"}
    assert {v: e["paper_pct"] for v, e in s["fig8_encode_once_gain_pct"].items()} == {"newreno": 5, "few": 4, "ap": 2}
    assert s["fig9_nc_aware_gain_pct"]["paper_pct"] == 12
    assert len(s["claims"]) == 10 and all(isinstance(c["holds"], bool) for c in s["claims"])
    assert_conclusions_under_claims(s["claims"], p.stdout)
    rows = list(csv.DictReader(open(out / "tables" / "x1_enhancements.csv")))
    assert [r["paper"] for r in rows][:3] == ["+5%", "+4%", "+2%"]
    assert "about +12%" in p.stdout and "The paper's claims beside ours" in p.stdout
    for name in FIGURES:
        assert (out / "figures" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    page = (out / "report.html").read_text()
    assert page.count('<img class="figure"') == len(FIGURES)


@pytest.mark.skipif(chromium() is None,
                    reason="headless Chromium not installed (Debian package `chromium`; scripts/setup.sh installs it)")
def test_report_screenshot(quick_run, tmp_path):
    out, _ = quick_run
    r = assert_screenshot(out / "report.html", tmp_path, "cope-tcp-report")
    assert r["figures"] == len(FIGURES)


def test_report_layout(quick_run):
    assert_reproduction_layout(quick_run[0], "x_cope_gain")


def test_fig3_makes_copes_change_visible():
    # Beside the six goodput lines, a panel of COPE's change per TCP (paired per seed), the
    # series the paper's claim is about.
    import pandas as pd

    gain = {"newreno": 20.0, "few": 10.0, "ap": -5.0}
    rows = [{"tcp.variant": v, "scheme.name": s, "hops": h, "seed": seed,
             "throughput_kbps": (600.0 / h) * (1 + (gain[v] / 100 if s == "cope" else 0))}
            for v in cope_tcp.VARIANTS for s in ("none", "cope") for h in cope_tcp.CHAIN_HOPS for seed in (1, 2)]
    analysis = cope_tcp._chain(pd.DataFrame(rows))
    [fig] = [f.figure for f in analysis.figures if f.name == "fig3_chain"]
    goodput, change = fig.axes[:2]
    assert change.get_ylabel() == "COPE's change of goodput (%)"
    labels = [t.get_text() for t in change.get_legend().get_texts()]
    assert labels == [cope_tcp.VLABEL[v] for v in cope_tcp.VARIANTS]
    ys = {c.get_label(): list(c.lines[0].get_ydata()) for c in change.containers}   # errorbar series
    for v in cope_tcp.VARIANTS:
        assert ys[cope_tcp.VLABEL[v]] == pytest.approx([gain[v]] * len(cope_tcp.CHAIN_HOPS))
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_conclusions_are_written_from_the_run_numbers(quick_run):
    """Each class's conclusion comes from the run's numbers: change them and every line changes."""
    import copy

    out, _ = quick_run
    s = json.loads((out / "summary.json").read_text())
    before = {k: g.conclusion for k, g in cope_tcp._conclusions(s).items()}
    other = copy.deepcopy(s)
    for v in cope_tcp.VARIANTS:
        other["fig3_cope_gain_pct"][v]["2"] += 4.0
        other["fig8_encode_once_gain_pct"][v]["gain_pct"] += 4.0
    for e in other["x_cope_gain_pct"].values():
        e["cope_gain_pct"] += 4.0
    other["fig9_nc_aware_gain_pct"]["vs_ap_cope"] += 4.0
    after = {k: g.conclusion for k, g in cope_tcp._conclusions(other).items()}
    assert set(before) == set(after) and len(before) == 5
    for name in before:
        assert before[name] != after[name], name
