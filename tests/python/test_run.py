"""`ncmesh.run` and `RunResult`: tables, determinism, seeds, writing results."""

import json
import threading

import pandas as pd
import pytest

import ncmesh
from ncmesh import RunResult

from conftest import SHORT, short_chain


def _without_wall(result: RunResult) -> dict:
    d = json.loads(result.to_json(series=True))
    d.pop("wall_time_s")
    return d


@pytest.fixture(scope="module")
def result() -> RunResult:
    return ncmesh.run(short_chain(2), seed=3)


def test_result_scalars(result):
    assert result.seed == 3
    assert result.sim_time_s == pytest.approx(SHORT["simulation.duration_s"])
    assert result.events > 0
    assert result.wall_time_s >= 0
    assert result.conservation["balanced"] is True
    assert result.scenario["simulation"]["seed"] == 3


def test_flows_table(result):
    flows = result.flows
    assert isinstance(flows, pd.DataFrame)
    assert len(flows) == 1
    row = flows.iloc[0]
    assert (row["src"], row["dst"]) == (0, 2)
    assert row["goodput_kbps"] > 0
    assert list(row["path"]) == [0, 1, 2]


def test_nodes_table(result):
    nodes = result.nodes
    assert list(nodes["node"]) == [0, 1, 2]
    assert (nodes["mac_frames_sent"] > 0).all()


def test_series_tables(result):
    fs, ns = result.flow_series, result.node_series
    assert {"t_s", "flow", "goodput_kbps", "cwnd_bytes"} <= set(fs.columns)
    assert {"t_s", "node", "queue_len"} <= set(ns.columns)
    assert len(fs) > 0 and len(ns) > 0
    assert fs["t_s"].max() <= SHORT["simulation.duration_s"] + 1e-9


def test_summary_mentions_flows_and_events(result):
    text = result.summary()
    assert "goodput" in text and "events" in text
    assert repr(result).startswith("<RunResult")


def test_same_seed_same_result():
    a = ncmesh.run(short_chain(3), seed=5)
    b = ncmesh.run(short_chain(3), seed=5)
    assert _without_wall(a) == _without_wall(b)


def test_other_seed_other_result():
    a = ncmesh.run(short_chain(3), seed=5)
    b = ncmesh.run(short_chain(3), seed=6)
    assert _without_wall(a) != _without_wall(b)


def test_seed_argument_overrides_scenario_seed():
    a = ncmesh.run(short_chain(2).set("simulation.seed", 9))
    b = ncmesh.run(short_chain(2), seed=9)
    assert _without_wall(a) == _without_wall(b)


def test_overrides_argument(tmp_path):
    path = tmp_path / "c.toml"
    short_chain(2).save(path)
    r = ncmesh.run(path, overrides={"mac.queue_packets": 5, "simulation.duration_s": 6.0})
    assert r.scenario["mac"]["queue_packets"] == 5
    assert r.sim_time_s == pytest.approx(6.0)


def test_runs_in_threads_give_the_same_results():
    sc = short_chain(2)
    serial = [_without_wall(ncmesh.run(sc, seed=s)) for s in (1, 2)]
    out = {}
    threads = [threading.Thread(target=lambda s=s: out.__setitem__(s, ncmesh.run(sc, seed=s))) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [_without_wall(out[s]) for s in (1, 2)] == serial


def test_write_tables_and_rerun(tmp_path):
    r = ncmesh.run(short_chain(2), seed=4)
    out = r.write(tmp_path / "out")
    for name in ("flows", "nodes", "flow_series", "node_series"):
        table = pd.read_parquet(out / f"{name}.parquet")
        assert len(table) == len(getattr(r, name))
    scalars = json.loads((out / "result.json").read_text())
    assert scalars["seed"] == 4 and scalars["conservation"]["balanced"] is True
    again = ncmesh.run(out / "scenario.toml")
    assert _without_wall(again) == _without_wall(r)


def test_table_columns_match_the_core(result):
    from ncmesh.tables import COLUMNS

    for name in COLUMNS:
        assert list(result.raw[name][0]) == COLUMNS[name], f"ncmesh.tables.COLUMNS[{name!r}] is out of date"


def test_scenario_without_flows_gives_empty_tables_with_columns():
    sc = ncmesh.Scenario({"nodes": [{"x": 0, "y": 0}, {"x": 100, "y": 0}]}).set("simulation.duration_s", 2.0) \
        .set("simulation.measure_start_s", 0.0)
    r = ncmesh.run(sc)
    assert len(r.flows) == 0 and "goodput_kbps" in r.flows.columns
    assert len(r.nodes) == 2
