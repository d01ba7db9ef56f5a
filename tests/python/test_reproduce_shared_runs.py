"""Identical runs computed once within a reproduction (issue 30): the parts of an
experiment that need the same run (same resolved scenario, same simulator build) share
its rows instead of running it again."""

from __future__ import annotations

import json

from ncmesh.experiments import _run_parts
from ncmesh.sweep import load_sweep
from ncmesh.sweep.store import bundled_keys, done_keys, pack_index

SHARED_COLUMNS = ["run_key", "seed", "flow", "src", "dst", "goodput_kbps", "rx_bytes", "retransmissions", "path"]


def _part(name: str, hops: list[int], extra: dict | None = None) -> dict:
    return {"name": name, "base": {"builder": "chain", "options": {"duration": 4},
                                   "set": {"simulation.measure_start_s": 1.5, **(extra or {})}},
            "grid": {"hops": hops}, "seeds": {"count": 2}}


def _quiet(*_args, **_kw):
    pass


def test_two_parts_sharing_scenarios_run_them_once(tmp_path):
    # Parts a and b share the 2-hop chain (2 seeds); c differs in a setting, so shares nothing.
    specs = {"a": _part("a", [1, 2]), "b": _part("b", [2, 3]),
             "c": _part("c", [2], {"mac.queue_packets": 7})}
    keys = {p: {r.key for r in load_sweep(s).runs()} for p, s in specs.items()}
    assert len(keys["a"] & keys["b"]) == 2 and not keys["c"] & (keys["a"] | keys["b"])
    results, runs = _run_parts(specs, tmp_path, 1, False, _quiet, notice=_quiet)
    distinct = len(keys["a"] | keys["b"] | keys["c"])
    assert (runs.done, runs.shared, runs.failed) == (distinct, 2, 0)
    # Each part sees every run of its own, with its own sweep name and params ...
    for p in specs:
        res = results[p]
        assert set(res.runs.run_key) == keys[p]
        assert set(res.flows.sweep) == {p} and set(res.runs.sweep) == {p}
        assert {json.loads(j)["hops"] for j in res.runs.params_json} == set(specs[p]["grid"]["hops"])
    # ... and the shared runs' rows are the same rows in both parts.
    shared = sorted(keys["a"] & keys["b"])
    for table, cols in (("flows", SHARED_COLUMNS), ("runs", ["run_key", "seed", "hops", "events", "sim_time_s",
                                                             "core_build", "scenario_toml"])):
        a = getattr(results["a"], table)
        b = getattr(results["b"], table)
        left = a[a.run_key.isin(shared)][cols].sort_values(cols[:3]).reset_index(drop=True)
        right = b[b.run_key.isin(shared)][cols].sort_values(cols[:3]).reset_index(drop=True)
        assert len(left) and left.astype(str).equals(right.astype(str)), table
    # The copied runs were packed with the rest when the part ended: nothing waits.
    for p in specs:
        d = tmp_path / "results" / p
        assert bundled_keys(d) == set() and done_keys(d) == keys[p]
        assert sorted(k for held in pack_index(d).values() for k in held) == sorted(keys[p])
    b_runs = results["b"].runs
    assert set(b_runs.sweep_id) == {json.load(open(tmp_path / "results" / "b" / "store.json"))["sweep_id"]}
    # Run again: everything is done before, nothing computed or copied.
    _, again = _run_parts(specs, tmp_path, 1, False, _quiet, notice=_quiet)
    assert (again.done, again.shared, again.skipped) == (0, 0, sum(len(k) for k in keys.values()))


def test_runs_of_another_build_are_not_shared(tmp_path):
    from ncmesh.sweep import run_sweep

    specs = {"a": _part("a", [1, 2]), "b": _part("b", [2])}
    _run_parts({"a": specs["a"]}, tmp_path, 1, False, _quiet, notice=_quiet)
    a_dir = tmp_path / "results" / "a"
    same = run_sweep(load_sweep(specs["b"]), tmp_path / "b-same", jobs=1, progress=False, share=[a_dir])
    assert (same.shared, same.done) == (2, 0)
    # Part a's runs marked as another build's: b computes its own.
    store = a_dir / "store.json"
    manifest = json.loads(store.read_text())
    manifest["core_build"] = "another-build"
    store.write_text(json.dumps(manifest))
    other = run_sweep(load_sweep(specs["b"]), tmp_path / "b-other", jobs=1, progress=False, share=[a_dir])
    assert (other.shared, other.done) == (0, 2)
