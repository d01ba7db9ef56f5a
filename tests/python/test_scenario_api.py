"""The `Scenario` class: building, editing, resolving, TOML round trips."""

import tomllib

import pytest

import ncmesh
from ncmesh import Scenario, ScenarioError


def test_package_exports():
    assert ncmesh.__version__
    assert issubclass(ScenarioError, ValueError)
    for name in ("Scenario", "run", "RunResult", "ScenarioError"):
        assert hasattr(ncmesh, name)


def test_kinds_include_chain():
    kinds = Scenario.kinds()
    assert "chain" in kinds
    assert all(isinstance(k, str) for k in kinds)


def test_build_chain_is_resolved_and_valid():
    sc = Scenario.build("chain", hops=3)
    d = sc.to_dict()
    assert len(d["nodes"]) == 4
    assert d["flows"][0]["src"] == 0 and d["flows"][0]["dst"] == 3
    assert sc.resolved() == Scenario(sc.resolved()).resolved()


def test_resolved_fills_defaults():
    sc = Scenario({"nodes": [{"x": 0, "y": 0}, {"x": 200, "y": 0}], "flows": [{"src": 0, "dst": 1}]})
    r = sc.resolved()
    assert r["simulation"]["duration_s"] == 60.0
    assert r["mac"]["queue_packets"] == 50
    assert r["tcp"]["mss_bytes"] == 1000
    assert r["flows"][0]["transport"] == "tcp"
    assert r["nodes"][1]["x"] == 200.0


def test_set_is_chainable_and_does_not_touch_the_source_dict():
    src = {"nodes": [{"x": 0, "y": 0}, {"x": 200, "y": 0}], "flows": [{"src": 0, "dst": 1}]}
    sc = Scenario.from_dict(src).set("mac.queue_packets", 7).set("flows[0].start_s", 2.0)
    assert "mac" not in src
    assert sc.resolved()["mac"]["queue_packets"] == 7
    assert sc.resolved()["flows"][0]["start_s"] == 2.0


def test_toml_round_trip(tmp_path):
    sc = Scenario.build("chain", hops=2).set("tcp.sack", True)
    path = tmp_path / "s.toml"
    sc.save(path)
    again = Scenario.load(path)
    assert again.resolved() == sc.resolved()
    assert tomllib.loads(sc.to_toml())["tcp"]["sack"] is True


def test_load_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError) as e:
        Scenario.load(tmp_path / "nope.toml")
    assert "nope.toml" in e.value.field


def test_invalid_toml_is_a_scenario_error(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[simulation\nduration_s = 3\n")
    with pytest.raises(ScenarioError) as e:
        Scenario.load(path)
    assert "invalid TOML" in str(e.value)


def test_unknown_kind_is_a_scenario_error():
    with pytest.raises(ScenarioError):
        Scenario.build("no-such-kind")


def test_scenario_error_has_field_and_one_line_message():
    with pytest.raises(ScenarioError) as e:
        Scenario.build("chain", hops=2).set("mac.queue_packets", -5).validate()
    err = e.value
    assert err.field.endswith("queue_packets")
    assert str(err).startswith(err.field + ": ")
    assert "\n" not in str(err)


def test_a_preset_gives_the_fields_still_at_ncmeshs_defaults():
    s = Scenario.build("chain", hops=2).set("tcp.min_rto_s", 0.5).set("preset", "ns2")
    r = s.resolved()
    assert r["preset"] == "ns2"
    assert (r["channel"]["model"], r["channel"]["reception"]) == ("tworay", "capture")
    assert r["tcp"]["initial_cwnd_segments"] == 2 and r["tcp"]["initial_rto_s"] == 3.0
    assert r["tcp"]["min_rto_s"] == 0.5, "a value the user set stays"
    assert len(r["nodes"]) == 3, "the builder's topology stays"
    with pytest.raises(ScenarioError, match='preset: "ns3" is not allowed'):
        Scenario.build("chain", hops=2).set("preset", "ns3")
