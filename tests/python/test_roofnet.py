"""The `roofnet-like` kind from Python: one layout per experiment, the pair list's statistics
(`Scenario.pair_stats`, `ncmesh scenario --pair-stats`), a sweep over its pairs, and a short
run under CoMP's set-up."""

from pathlib import Path

import pytest

import ncmesh
from ncmesh import Scenario, ScenarioError
from ncmesh.sweep.spec import load_sweep

from conftest import SHORT

FREIFUNK = Path(__file__).resolve().parents[2] / "python" / "ncmesh" / "experiments" / "data"


def _positions(sc):
    return [(n["x"], n["y"]) for n in sc.to_dict()["nodes"]]


def test_pair_stats_describe_the_pair_list_the_runs_take():
    st = Scenario.pair_stats("roofnet-like", layout_seed=2)
    assert st["nodes"] == 38 and len(st["pairs"]) == len(st["hops"]) == 100
    assert st["mean_hops"] == pytest.approx(sum(st["hops"]) / 100)
    assert st["one_hop_share"] == pytest.approx(sum(h == 1 for h in st["hops"]) / 100)
    assert 2.0 <= st["mean_hops"] <= 3.0 and 0.1 <= st["one_hop_share"] <= 0.3
    for pair in (0, 41, 99):
        flows = Scenario.build("roofnet-like", layout_seed=2, pair=pair).to_dict()["flows"]
        assert [(f["src"], f["dst"]) for f in flows] == [tuple(st["pairs"][pair])]


def test_other_kinds_describe_their_flows():
    st = Scenario.pair_stats("chain", hops=4)
    assert (st["hops"], st["fewest_hops"], st["one_hop_share"]) == ([4], [4], 0.0)


def test_a_sweep_over_pairs_keeps_one_layout():
    runs = load_sweep({
        "name": "pairs",
        "base": {"builder": "roofnet-like", "options": {"duration": 5}},
        "grid": {"pair": [0, 1, 2]},
        "seeds": {"count": 2},
    }).runs()
    assert len(runs) == 6 and all(r.error is None for r in runs)
    layouts = {tuple((n["x"], n["y"]) for n in r.scenario["nodes"]) for r in runs}
    assert len(layouts) == 1
    assert len({(r.scenario["flows"][0]["src"], r.scenario["flows"][0]["dst"]) for r in runs}) == 3


def test_bad_options_are_one_line_scenario_errors(cli):
    with pytest.raises(ScenarioError, match=r"^pair: 100 is not allowed: expected an integer in \[0, 99\]$"):
        Scenario.build("roofnet-like", pair=100)
    with pytest.raises(ScenarioError, match="^flows: "):
        Scenario.pair_stats("roofnet-like", flows=3)
    p = cli("scenario", "roofnet-like", "--pair-stats", "--opt", "pairs=0")
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "pairs" in p.stderr


def test_cli_pair_stats(cli):
    p = cli("scenario", "roofnet-like", "--pair-stats", "--opt", "layout_seed=3")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("38 nodes, mean degree ") and "100 pairs: mean hops 2." in p.stdout


def test_a_short_run_under_comps_set_up():
    sc = Scenario.build("roofnet-like", flows=2, pair=5).update(SHORT)
    r = sc.resolved()
    assert (r["mac"]["retransmissions"], r["channel"]["model"], r["routing"]["paths"]) == (False, "shadowing", 2)
    res = ncmesh.run(sc)
    assert len(res.flows) == 2


@pytest.mark.parametrize("name", ["bielefeld", "leipzig", "ulm"])
def test_freifunk_positions(name):
    path = str(FREIFUNK / f"freifunk-{name}.json")
    sc = Scenario.build("roofnet-like", file=path, pair=7)
    st = Scenario.pair_stats("roofnet-like", file=path)
    assert st["nodes"] == len(sc.to_dict()["nodes"]) and len(st["pairs"]) == 100
    assert _positions(sc) == _positions(Scenario.build("roofnet-like", file=path, pair=8))
