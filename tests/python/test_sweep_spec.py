"""Sweep files: expansion (grid product, ranges, seeds), builder options vs scenario keys,
errors naming the field, and run keys."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

import ncmesh
from ncmesh.sweep import SweepError, load_sweep, run_key

REPO_EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "sweeps"


def sweep_dict(**changes):
    d = {
        "name": "t",
        "base": {"builder": "chain", "options": {"spacing": 200, "duration": 4},
                 "set": {"simulation.measure_start_s": 1.5}},
        "grid": {"hops": [1, 2, 3], "tcp.delayed_ack": [True, False]},
        "seeds": {"count": 2, "start": 5},
    }
    d.update(changes)
    return d


def error_of(data, **kw) -> SweepError:
    with pytest.raises(SweepError) as e:
        load_sweep(data, **kw).runs()
    assert "\n" not in str(e.value)
    return e.value


# ---------------------------------------------------------------- expansion


def test_grid_product_size_and_order():
    sweep = load_sweep(sweep_dict())
    runs = sweep.runs()
    assert len(runs) == len(sweep) == 3 * 2 * 2
    # First grid key outermost, seeds innermost.
    got = [(r.params["hops"], r.params["tcp.delayed_ack"], r.seed) for r in runs]
    want = [(h, d, s) for h in (1, 2, 3) for d in (True, False) for s in (5, 6)]
    assert got == want
    assert list(runs[0].params) == ["hops", "tcp.delayed_ack"] == sweep.params
    assert all(r.error is None for r in runs)


def test_builder_options_and_scenario_keys_are_applied():
    sweep = load_sweep(sweep_dict())
    assert sweep.grid_kind == {"hops": "option", "tcp.delayed_ack": "scenario"}
    for r in sweep.runs():
        sc = r.scenario
        assert len(sc["nodes"]) == r.params["hops"] + 1                 # builder option
        assert sc["nodes"][1]["x"] == 200.0                             # base.options
        assert sc["tcp"]["delayed_ack"] is r.params["tcp.delayed_ack"]  # scenario key
        assert sc["simulation"]["duration_s"] == 4.0
        assert sc["simulation"]["measure_start_s"] == 1.5               # base.set
        assert sc["simulation"]["seed"] == r.seed
        assert sc == ncmesh._core.resolve(sc)                           # fully resolved


def test_a_preset_in_the_sweep_gives_its_defaults_and_every_other_override_wins():
    base = {"builder": "chain", "options": {"spacing": 200, "duration": 4},
            "set": {"preset": "ns2", "tcp.min_rto_s": 1.0, "tcp.delayed_ack": True}}
    sweep = load_sweep(sweep_dict(base=base, grid={"hops": [2], "preset": ["none", "ns2"]}))
    by = {r.params["preset"]: r.scenario for r in sweep.runs()}
    ns2, plain = by["ns2"], by["none"]
    assert ns2["preset"] == "ns2" and ns2["channel"]["model"] == "tworay"
    assert ns2["tcp"]["initial_rto_s"] == 3.0 and ns2["mac"]["rts_threshold_bytes"] == 0
    assert ns2["tcp"]["min_rto_s"] == 1.0 and ns2["tcp"]["delayed_ack"] is True   # set wins
    assert "preset" not in plain and plain["channel"]["model"] == "range"         # the grid's "none"
    assert run_key(ns2) != run_key(plain)


def test_range_expansion():
    sweep = load_sweep(sweep_dict(grid={
        "loss.0.rate": {"range": [0.0, 0.3, 0.1]},
        "mac.queue_packets": {"range": [10, 40, 15]},
    }, seeds={"list": [3]}))
    assert sweep.grid["loss.0.rate"] == [0.0, 0.1, 0.2, 0.3]
    assert sweep.grid["mac.queue_packets"] == [10, 25, 40]
    assert sweep.param_types == {"loss.0.rate": "float64", "mac.queue_packets": "int64"}
    rates = sorted({r.scenario["loss"][0]["rate"] for r in sweep.runs()})
    assert rates == [0.0, 0.1, 0.2, 0.3]
    assert len(sweep.runs()) == 12


def test_nested_toml_tables_are_dotted_keys(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('name = "n"\n[base]\nbuilder = "chain"\n[base.set]\nsimulation.duration_s = 3.0\n'
                    'simulation.measure_start_s = 1.0\n[grid]\ntcp.sack = [false, true]\n"loss.0.rate" = { range = [0.0, 0.1, 0.05] }\n')
    sweep = load_sweep(path)
    assert list(sweep.grid) == ["tcp.sack", "loss.0.rate"]
    assert sweep.grid["loss.0.rate"] == [0.0, 0.05, 0.1]
    assert sweep.set == {"simulation.duration_s": 3.0, "simulation.measure_start_s": 1.0}
    assert sweep.seeds == [1]                                 # default: one seed, 1
    assert len(sweep.runs()) == 6


def test_seeds_count_start_and_list():
    assert load_sweep(sweep_dict(seeds={"count": 3})).seeds == [1, 2, 3]
    assert load_sweep(sweep_dict(seeds={"count": 2, "start": 10})).seeds == [10, 11]
    assert load_sweep(sweep_dict(seeds={"list": [1, 7, 9]})).seeds == [1, 7, 9]
    assert error_of(sweep_dict(seeds={"list": [1, 7], "count": 2})).field == "seeds"
    assert error_of(sweep_dict(seeds={"count": 0})).field == "seeds.count"
    assert error_of(sweep_dict(seeds={"list": [1, 1]})).field == "seeds.list"
    assert error_of(sweep_dict(seeds={"list": [-1]})).field == "seeds.list"
    assert error_of(sweep_dict(seeds={"cnt": 2})).field == "seeds.cnt"


def test_file_base_relative_to_the_sweep_file(tmp_path):
    (tmp_path / "sc").mkdir()
    ncmesh.Scenario.build("chain", hops=2, duration=3).save(tmp_path / "sc" / "chain.toml")
    (tmp_path / "s.toml").write_text('name = "f"\n[base]\nfile = "sc/chain.toml"\n'
                                     '[grid]\n"mac.queue_packets" = [10, 20]\n')
    runs = load_sweep(tmp_path / "s.toml").runs()
    assert [r.scenario["mac"]["queue_packets"] for r in runs] == [10, 20]
    assert len(runs[0].scenario["nodes"]) == 3
    # A builder option makes no sense with a file base.
    (tmp_path / "bad.toml").write_text('name = "f"\n[base]\nfile = "sc/chain.toml"\n[grid]\nhops = [1, 2]\n')
    e = error_of(tmp_path / "bad.toml")
    assert e.field == "grid.hops"
    (tmp_path / "missing.toml").write_text('name = "f"\n[base]\nfile = "nope.toml"\n')
    assert error_of(tmp_path / "missing.toml").field == "base.file"


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("changes, field, words", [
    ({"grid": {"tcp.foo": [1, 2]}}, 'grid."tcp.foo"', "unknown field 'foo'"),
    ({"grid": {"hopz": [1, 2]}}, "grid.hopz", "builder 'chain'"),
    ({"grid": {"loss.0.rate": {"range": [0.0, 0.3]}}}, 'grid."loss.0.rate"', "three numbers"),
    ({"grid": {"loss.0.rate": {"range": [0.0, 0.3, 0.0]}}}, 'grid."loss.0.rate"', "step must be > 0"),
    ({"grid": {"loss.0.rate": {"range": [0.3, 0.0, 0.1]}}}, 'grid."loss.0.rate"', "stop must be >= start"),
    ({"grid": {"hops": []}}, "grid.hops", "at least one value"),
    ({"grid": {"hops": 3}}, "grid.hops", "expected a list"),
    ({"grid": {"hops": [1, "x"]}}, "grid.hops", "mix types"),
    ({"grid": {"hops": [1, 1]}}, "grid.hops", "twice"),
    ({"grid": {"seed": [1, 2]}}, "grid.seed", "column"),
    ({"grid": {"simulation.seed": [1, 2]}}, 'grid."simulation.seed"', "[seeds]"),
    ({"base": {"builder": "chian"}}, "base.builder", "unknown builder"),
    ({"base": {"builder": "chain", "options": {"hopz": 2}}}, "base.options.hopz", "unknown option"),
    ({"base": {"builder": "chain", "set": {"mac.nope": 1}}}, 'base.set."mac.nope"', "unknown field"),
    ({"base": {"builder": "chain", "file": "x.toml"}}, "base", "exactly one"),
    ({"bogus": 1}, "bogus", "unknown field"),
])
def test_bad_sweep_names_the_field(changes, field, words):
    e = error_of(sweep_dict(**changes))
    assert e.field == field, str(e)
    assert words in str(e)
    assert str(e).startswith(field + ": ")


def test_missing_name():
    d = sweep_dict()
    del d["name"]
    e = error_of(d)
    assert e.field == "name" and "missing" in str(e)
    assert error_of(sweep_dict(name="a/b")).field == "name"


def test_cli_bad_sweep_file_exits_2_with_one_line(tmp_path, cli):
    path = tmp_path / "s.toml"
    path.write_text('name = "x"\n[base]\nbuilder = "chain"\n[grid]\n"tcp.foo" = [1]\n')
    p = cli("sweep", str(path), "--out", str(tmp_path / "out"))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('error: grid."tcp.foo": ')
    assert not (tmp_path / "out").exists()


def test_value_errors_are_run_failures_not_file_errors():
    # An invalid value for one combination: the sweep loads, that run carries its error.
    # (Duration 2.0 is invalid only with measure_start 2.5, so the sweep is not refused.)
    sweep = load_sweep(sweep_dict(grid={"hops": [1], "simulation.duration_s": [4.0, 2.0],
                                        "simulation.measure_start_s": [2.5, 0.5]}))
    ok, bad = sweep.runs()[0], sweep.runs()[4]
    assert ok.params["simulation.duration_s"] == 4.0 and ok.error is None
    assert bad.params == {"hops": 1, "simulation.duration_s": 2.0, "simulation.measure_start_s": 2.5}
    assert bad.error and "measure_start_s" in bad.error and len(bad.key) == 16


def test_a_grid_value_invalid_for_every_run_is_refused_before_any_run(tmp_path, cli):
    # scheme.name = "copee" is invalid whatever the other keys: refused with the line of
    # `ncmesh validate`, no run started, no results directory made.
    path = tmp_path / "typo.toml"
    path.write_text('name = "typo"\n[base]\nbuilder = "chain"\noptions = { duration = 4 }\n'
                    '[grid]\nhops = [1, 2]\n"scheme.name" = ["cope", "copee"]\n')
    scenario = tmp_path / "chain.toml"
    scenario.write_text(ncmesh.Scenario.build("chain", hops=1, duration=4).to_toml())
    validate = cli("validate", str(scenario), "--set", 'scheme.name="copee"')
    assert validate.returncode == 2 and validate.stderr.startswith('error: scheme.name: "copee"')
    for extra in ([], ["--dry-run"]):
        p = cli("sweep", str(path), "--out", str(tmp_path / "out"), *extra)
        assert p.returncode == 2
        assert p.stderr.splitlines() == validate.stderr.splitlines()
        assert not (tmp_path / "out").exists()
    # the same for a base that makes every run invalid, and for the first value of a key
    e = error_of(sweep_dict(base={"builder": "chain", "set": {"scheme.name": "copee"}}))
    assert str(e).startswith('scheme.name: "copee" is not a coding scheme')
    e = error_of(sweep_dict(grid={"hops": [1, 2], "scheme.name": ["copee", "cope"]}))
    assert str(e).startswith('scheme.name: "copee" is not a coding scheme')


def test_a_value_invalid_only_with_some_other_values_is_left_to_the_runs():
    # duration 2.0 is invalid only with measure_start 2.5: the sweep loads.
    sweep = load_sweep(sweep_dict(base={"builder": "chain", "options": {"duration": 3}},
                                  grid={"simulation.duration_s": [3.0, 2.0],
                                        "simulation.measure_start_s": [2.5, 0.5]}, seeds={"count": 1}))
    errors = {tuple(r.params.values()): r.error for r in sweep.runs()}
    assert [k for k, e in errors.items() if e] == [(2.0, 2.5)]


# ---------------------------------------------------------------- keys


def test_run_key_is_sha256_of_canonical_json():
    r = load_sweep(sweep_dict()).runs()[0]
    text = json.dumps(r.scenario, sort_keys=True, separators=(",", ":"))
    assert r.key == hashlib.sha256(text.encode()).hexdigest()[:16] == run_key(r.scenario)


def test_keys_differ_by_seed_and_params():
    runs = load_sweep(sweep_dict()).runs()
    assert len({r.key for r in runs}) == len(runs)
    a, b = runs[0], runs[1]
    assert a.params == b.params and a.seed != b.seed and a.key != b.key


def test_keys_stable_across_processes():
    path = REPO_EXAMPLES / "chain-loss.toml"
    here = [r.key for r in load_sweep(path).runs()]
    code = ("import sys, json; from ncmesh.sweep import load_sweep; "
            "print(json.dumps([r.key for r in load_sweep(sys.argv[1]).runs()]))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         check=True, env={**__import__("os").environ, "PYTHONHASHSEED": "123"})
    assert json.loads(out.stdout) == here
    assert len(set(here)) == len(here) == 96


def test_examples_load():
    assert len(load_sweep(REPO_EXAMPLES / "chain-hops.toml").runs()) == 40
    assert len(load_sweep(REPO_EXAMPLES / "overhead-200.toml")) == 200
    tcpnc = load_sweep(REPO_EXAMPLES / "tcpnc-loss.toml").runs()
    assert len(tcpnc) == 48 and all(r.error is None for r in tcpnc)
    assert {r.scenario["scheme"]["name"] for r in tcpnc} == {"none", "tcp-nc"}
    assert all(r.scenario["loss"][0]["frames"] == "network" for r in tcpnc)
