"""What the documentation promises and a new user tries first: JSON scenarios, seeds and
other numbers out of range on every numeric flag (one line, status 2, no traceback),
`validate` making every check `run` makes, `--series` needing `--json`, and
`--set simulation.duration_s` on a generated scenario."""

from __future__ import annotations

import json

import pytest

import ncmesh
from ncmesh import ScenarioError

from conftest import SHORT, run_cli

BIG = str(2**64)


def chain_dict(hops: int = 2) -> dict:
    return ncmesh.Scenario.build("chain", hops=hops).update(SHORT).resolved()


def one_line_error(p, *fragments: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and p.stderr.strip().count("\n") <= 1, p.stderr
    for f in fragments:
        assert f in p.stderr, p.stderr


# ---------------------------------------------------------------- JSON scenarios


def test_json_scenario_through_cli_and_api(tmp_path):
    data = chain_dict()
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(data))
    toml_path = tmp_path / "chain.toml"
    toml_path.write_text(ncmesh._core.to_toml(data))
    assert ncmesh.Scenario.load(path).resolved() == ncmesh.Scenario.load(toml_path).resolved()
    by_json = ncmesh.run(str(path), seed=3)
    by_toml = ncmesh.run(str(toml_path), seed=3)
    assert by_json.raw["flows"] == by_toml.raw["flows"]
    p = run_cli("validate", str(path))
    assert p.returncode == 0 and p.stdout == "ok\n"
    p = run_cli("run", str(path), "--json", "--seed", "3")
    assert p.returncode == 0 and json.loads(p.stdout)["flows"] == json.loads(by_toml.to_json())["flows"]
    # standard input: JSON is told from TOML by its first character
    p = run_cli("run", "-", "--json", "--seed", "3", input=json.dumps(data))
    assert p.returncode == 0 and json.loads(p.stdout)["flows"][0]["goodput_kbps"] == by_toml.flows.goodput_kbps[0]


def test_bad_json_is_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"nodes": [}')
    p = run_cli("run", str(path))
    one_line_error(p, f"error: {path}: invalid JSON:", "line 1, column")
    path.write_text("[1, 2]")
    one_line_error(run_cli("validate", str(path)), "a scenario is a JSON object, not list")
    path.write_text(json.dumps({"nodes": [{"x": 0, "y": 0}], "mac": {"queue_packets": -3}}))
    one_line_error(run_cli("validate", str(path)), "error: mac.queue_packets: -3 is not allowed")
    with pytest.raises(ScenarioError) as e:
        ncmesh.Scenario.load(path).validate()
    assert e.value.field == "mac.queue_packets"


# ---------------------------------------------------------------- numbers out of range


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, 1.5, True])
def test_api_seed_out_of_range_is_a_scenario_error(seed):
    sc = ncmesh.Scenario.build("chain", hops=1).update(SHORT)
    for call in (lambda: ncmesh.run(sc, seed=seed), lambda: sc.validate(seed=seed)):
        with pytest.raises(ScenarioError) as e:
            call()
        assert e.value.field == "simulation.seed"
        assert "expected an integer in [0, 9223372036854775807]" in str(e.value)


@pytest.mark.parametrize("args, fragments", [
    (("run", "{chain}", "--seed", "-1"), ("error: simulation.seed: -1 is not allowed",)),
    (("run", "{chain}", "--seed", BIG), ("error: simulation.seed: 18446744073709551616 is not allowed",)),
    (("validate", "{chain}", "--seed", "-1"), ("error: simulation.seed: -1 is not allowed",)),
    (("validate", "{chain}", "--seed", str(2**63)), ("simulation.seed: 9223372036854775808 is not allowed",)),
    (("scenario", "chain", "--hops", "-1"), ("error: hops: -1 is not allowed",)),
    (("scenario", "chain", "--hops", BIG), ("error: hops: 18446744073709551616 is not allowed",)),
    (("scenario", "chain", "--spacing", "-5"), ("error: spacing: -5.0 is not allowed",)),
    (("scenario", "chain", "--spacing", "nan"), ("error: spacing: nan is not allowed: expected a finite number",)),
    (("scenario", "chain", "--spacing", "inf"), ("error: spacing: inf is not allowed",)),
    (("scenario", "grid", "--rows", "-1"), ("error: rows: -1 is not allowed",)),
    (("scenario", "grid", "--cols", BIG), ("error: cols: 18446744073709551616 is not allowed",)),
    (("scenario", "grid", "--flows", "-1"), ("error: flows: -1 is not allowed",)),
    (("scenario", "random", "--nodes", "-3"), ("error: nodes: -3 is not allowed",)),
    (("scenario", "random", "--area", "-1"), ("error: area: -1.0 is not allowed",)),
    (("scenario", "chain", "--seed", "-1"), ("error: seed: -1 is not allowed",)),
    (("scenario", "chain", "--seed", BIG), ("error: seed: 18446744073709551616 is not allowed",)),
    (("scenario", "chain", "--opt", "duration=-5"), ("error: duration: -5 is not allowed",)),
    (("sweep", "{sweep}", "--jobs", "-1"), ("error: --jobs: -1 is not allowed",)),
    (("sweep", "{sweep}", "--jobs", "0"), ("error: --jobs: 0 is not allowed",)),
    (("reproduce", "chain-vs-ns3", "--seeds", "-1"), ("error: --seeds must be at least 1",)),
    (("reproduce", "chain-vs-ns3", "--jobs", "-1"), ("error: --jobs must be at least 1",)),
    (("compare-ns3", "--seeds", "-1"), ("--seeds must be at least 1",)),
    (("compare-ns3", "--jobs", "-1"), ("--jobs -1 is not allowed",)),
    (("run", "{chain}", "--seed", "x"), ("argument --seed: invalid int value: 'x'",)),
])
def test_every_numeric_flag_rejects_out_of_range(tmp_path, args, fragments):
    chain = tmp_path / "chain.toml"
    chain.write_text(ncmesh._core.to_toml(chain_dict()))
    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "s"\n[base]\nbuilder = "chain"\n')
    args = [a.format(chain=chain, sweep=sweep) for a in args]
    p = run_cli(*args)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    for f in fragments:
        assert f in p.stderr, p.stderr


# ---------------------------------------------------------------- validate = run's checks

NO_ROUTE = {"nodes.2.x": 5000.0}


@pytest.mark.parametrize("overrides", [
    {},
    NO_ROUTE,                                                    # found when the network is built
    {"flows.0.route": [0, 2]},                                   # an explicit route over no link
    {"simulation.duration_s": 0},
    {"flows.0.dst": 9},
    {"channel.model": "linktable"},
    {"mac.cw_min": 30},
    {"scheme.name": "cope", "scheme.max_code": 1},
])
def test_validate_makes_every_check_of_run(tmp_path, overrides):
    sc = ncmesh.Scenario(chain_dict()).update(overrides)
    path = tmp_path / "s.toml"
    path.write_text(json.dumps(sc.to_dict()))
    path = path.rename(tmp_path / "s.json")
    v, r = run_cli("validate", str(path)), run_cli("run", str(path))
    assert v.returncode == r.returncode, (v.stderr, r.stderr)
    if r.returncode == 0:
        assert v.stdout == "ok\n"
    else:
        assert v.stderr == r.stderr and v.stderr.startswith("error: ")
    api = []
    for call in (sc.validate, lambda: ncmesh.run(sc)):
        try:
            call()
            api.append(None)
        except ScenarioError as e:
            api.append(str(e))
    assert api[0] == api[1]


def test_no_route_is_found_by_validate(tmp_path):
    sc = ncmesh.Scenario(chain_dict()).update(NO_ROUTE)
    path = tmp_path / "s.toml"
    path.write_text(ncmesh._core.to_toml(sc.to_dict()))
    one_line_error(run_cli("validate", str(path)), "error: flows[0]: no route from node 0 to node 2")


# ---------------------------------------------------------------- other flags


def test_series_needs_json(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(ncmesh._core.to_toml(chain_dict()))
    one_line_error(run_cli("run", str(path), "--series"), "--series needs --json")
    p = run_cli("run", str(path), "--series", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["flow_series"]


def test_set_duration_on_a_generated_scenario_is_the_builder_option():
    """`--set simulation.duration_s=5` and `--opt duration=5` give the same scenario (the
    builder derives the measurement start from the duration); with the measurement start
    given too, that is kept."""
    by_set = run_cli("scenario", "chain", "--set", "simulation.duration_s=5")
    by_opt = run_cli("scenario", "chain", "--opt", "duration=5")
    assert by_set.returncode == 0 and by_set.stdout == by_opt.stdout
    assert "measure_start_s = 0.8333" in by_set.stdout
    both = run_cli("scenario", "chain", "--set", "simulation.duration_s=5", "--set", "simulation.measure_start_s=2")
    assert both.returncode == 0 and "measure_start_s = 2.0" in both.stdout and "duration_s = 5.0" in both.stdout


def test_shortened_duration_of_a_file_says_what_to_change(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(run_cli("scenario", "chain").stdout)
    one_line_error(run_cli("run", str(path), "--set", "simulation.duration_s=5"),
                   "simulation.measure_start_s: 10.0 is not allowed: expected a time in [0, duration_s = 5.0)",
                   "a shorter simulation.duration_s needs a smaller simulation.measure_start_s too")


def test_summary_states_the_measurement_window(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(run_cli("scenario", "chain", "--hops", "1", "--opt", "duration=5").stdout)
    p = run_cli("run", str(path))
    assert p.returncode == 0 and "goodput measured over 0.833-5 s" in p.stdout.splitlines()[0]
