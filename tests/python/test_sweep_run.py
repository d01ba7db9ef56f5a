"""Running sweeps on the process pool: the results directory, reruns, failures, and a
sweep killed with SIGKILL half-way then resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ncmesh
from ncmesh.sweep import load_sweep, open_results, run_key, run_sweep
from ncmesh.sweep.store import TABLES, done_keys, drop_runs, pack_index, read_bundle

CHAIN_SWEEP = """\
name = "chain-small"
[base]
builder = "chain"
options = { duration = 4 }
set = { "simulation.measure_start_s" = 1.5 }
[grid]
hops = [1, 2, 3, 4]
[seeds]
count = 2
"""


@pytest.fixture(scope="module")
def chain_sweep(tmp_path_factory):
    """The 1..4-hop chain x 2 seeds sweep, run once on the pool (shared by the tests)."""
    d = tmp_path_factory.mktemp("chain")
    path = d / "chain.toml"
    path.write_text(CHAIN_SWEEP)
    sweep = load_sweep(path)
    report = run_sweep(sweep, d / "out", jobs=2, progress=False)
    return sweep, report, d / "out", path


def test_pool_sweep_runs_everything(chain_sweep):
    sweep, report, out, path = chain_sweep
    assert (report.done, report.skipped, report.failed, report.total) == (8, 0, 0, 8)
    assert report.wall_s > 0 and report.sim_s > 0
    assert (out / "sweep.toml").read_text() == path.read_text()
    keys = {r.key for r in sweep.runs()}
    # Packed (store.py): each worker wrote its runs as one file per table when it
    # exited, and deleted their own files; every run is in exactly one pack.
    packs = pack_index(out)
    assert 1 <= len(packs) <= 2
    assert sorted(k for held in packs.values() for k in held) == sorted(keys)
    for table in ("runs",) + TABLES:
        assert sorted(os.listdir(out / table)) == sorted(packs), table
    assert done_keys(out) == keys
    assert os.listdir(out / "errors") == []


def test_results_tables(chain_sweep):
    sweep, _, out, _ = chain_sweep
    res = open_results(out)
    runs = res.runs
    assert len(runs) == 8 and set(runs.run_key) == {r.key for r in sweep.runs()}
    assert list(runs.columns) == ["run_key", "sweep", "seed", "hops", "status", "events", "sim_time_s",
                                  "wall_time_s", "ncmesh_version", "core_build", "sweep_id", "scenario_toml",
                                  "params_json"]
    assert (runs.status == "ok").all() and (runs.sweep == "chain-small").all()
    assert (runs.ncmesh_version == ncmesh.__version__).all()
    assert runs.hops.dtype == "int64"
    by_key = {r.key: r for r in sweep.runs()}
    for row in runs.itertuples():
        spec = by_key[row.run_key]
        assert json.loads(row.params_json) == spec.params == {"hops": row.hops}
        scenario = tomllib.loads(row.scenario_toml)     # the fully resolved scenario that ran
        assert ncmesh._core.resolve(scenario) == spec.scenario
        assert run_key(ncmesh._core.resolve(scenario)) == row.run_key
        assert scenario["simulation"]["seed"] == row.seed
    flows = res.flows
    assert len(flows) == 8
    assert list(flows.columns[:4]) == ["run_key", "sweep", "seed", "hops"]
    assert (flows.dst == flows.hops).all() and (flows.goodput_kbps > 0).all()
    assert len(res.nodes) == sum(h + 1 for h in (1, 2, 3, 4)) * 2
    assert len(res.flow_series) > 0 and len(res.node_series) > 0
    assert len(res.errors) == 0 and "hops" in res.errors.columns
    # The same numbers as a single ncmesh.run of the same scenario.
    row = runs.iloc[0]
    single = ncmesh.run(by_key[row.run_key].scenario)
    mine = flows[flows.run_key == row.run_key]
    assert mine.goodput_kbps.tolist() == single.flows.goodput_kbps.tolist()


def test_readable_by_pandas_duckdb_and_polars(chain_sweep):
    _, _, out, _ = chain_sweep
    flows = pd.read_parquet(out / "flows")
    assert len(flows) == 8 and flows.hops.dtype == "int64"
    runs = pd.read_parquet(out / "runs")
    assert {"scenario_toml", "ncmesh_version"} <= set(runs.columns)
    duckdb = pytest.importorskip("duckdb")
    rows = duckdb.sql(f"SELECT hops, count(*), avg(goodput_kbps) FROM read_parquet('{out}/flows/*.parquet') "
                      "GROUP BY hops ORDER BY hops").fetchall()
    assert [(h, n) for h, n, _ in rows] == [(1, 2), (2, 2), (3, 2), (4, 2)]
    assert rows[0][2] > rows[3][2]   # one hop is faster than four
    n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/node_series/*.parquet')").fetchall()[0][0]
    assert n == len(pd.read_parquet(out / "node_series"))
    pl = pytest.importorskip("polars")
    lf = pl.read_parquet(f"{out}/flows/*.parquet")
    assert lf.height == 8 and sorted(set(lf["hops"].to_list())) == [1, 2, 3, 4]


def test_rerun_computes_nothing(chain_sweep):
    sweep, _, out, _ = chain_sweep
    before = {n: os.stat(out / "runs" / n).st_mtime_ns for n in os.listdir(out / "runs")}
    report = run_sweep(sweep, out, jobs=2, progress=False)
    assert (report.done, report.skipped, report.failed) == (0, 8, 0)
    assert {n: os.stat(out / "runs" / n).st_mtime_ns for n in os.listdir(out / "runs")} == before


def test_empty_results_have_columns(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(CHAIN_SWEEP)
    from ncmesh.sweep.store import prepare
    prepare(tmp_path / "out", path.read_text())
    res = open_results(tmp_path / "out")
    assert len(res.runs) == 0 and list(res.runs.columns)[:4] == ["run_key", "sweep", "seed", "hops"]
    assert "goodput_kbps" in res.flows.columns and "queue_len" in res.node_series.columns


FAILING_SWEEP = """\
name = "with-failures"
[base]
builder = "chain"
options = { hops = 1, duration = 3 }
[grid]
# 150 m < 200 m spacing: no route (found when the network is built, i.e. at run time)
"channel.rx_range_m" = [250.0, 150.0]
# (2.0, 2.5): the measurement starts after the end, invalid when the scenario is resolved;
# no value is invalid for every run (that would be refused before any run starts)
"simulation.duration_s" = [3.0, 2.0]
"simulation.measure_start_s" = [2.5, 0.5]
[seeds]
list = [4]
"""


def test_failed_runs_are_recorded_and_exit_1(tmp_path, cli):
    path = tmp_path / "fail.toml"
    path.write_text(FAILING_SWEEP)
    out = tmp_path / "out"
    p = cli("sweep", str(path), "--out", str(out), "--jobs", "2")
    assert p.returncode == 1, p.stderr
    assert "3 done now" in p.stdout and "5 failed" in p.stdout
    res = open_results(out)
    keys = ["channel.rx_range_m", "simulation.duration_s", "simulation.measure_start_s"]
    assert sorted(map(tuple, res.runs[keys].values.tolist())) == [(250.0, 2.0, 0.5), (250.0, 3.0, 0.5),
                                                                   (250.0, 3.0, 2.5)]
    errors = res.errors.sort_values(keys)
    assert len(errors) == 5
    by_point = {tuple(r[k] for k in keys): r["error"] for _, r in errors.iterrows()}
    for rx in (250.0, 150.0):                        # invalid scenario
        assert "measure_start_s" in by_point[(rx, 2.0, 2.5)]
    for point in [(150.0, 2.0, 0.5), (150.0, 3.0, 0.5), (150.0, 3.0, 2.5)]:
        assert "no route" in by_point[point]         # fails at run time
    files = sorted(os.listdir(out / "errors"))
    assert len(files) == 5
    record = json.loads((out / "errors" / files[0]).read_text())
    assert {"run_key", "seed", "params", "error", "ncmesh_version"} <= set(record)
    assert record["seed"] == 4 and "\n" not in record["error"]
    # The rerun tries the failed runs again (and they fail again): still exit 1.
    p = cli("sweep", str(path), "--out", str(out), "-q")
    assert p.returncode == 1 and "3 done before" in p.stdout


def test_success_replaces_error_file(chain_sweep, tmp_path):
    sweep, _, _, path = chain_sweep
    out = tmp_path / "out"
    small = load_sweep({"name": "one", "base": {"builder": "chain", "options": {"hops": 1, "duration": 3}}})
    run_sweep(small, out, jobs=1, progress=False)
    key = small.runs()[0].key
    # Pretend the run failed before: not done, an error file.
    assert drop_runs(out, [key]) == 1 and done_keys(out) == set()
    (out / "errors" / f"{key}.json").write_text(json.dumps({"run_key": key, "error": "boom"}))
    assert len(open_results(out).errors) == 1
    report = run_sweep(small, out, jobs=1, progress=False)
    assert (report.done, report.failed) == (1, 0)
    assert os.listdir(out / "errors") == []
    assert len(open_results(out).errors) == 0


# ---------------------------------------------------------------- kill -9 and resume

KILL_SWEEP = """\
name = "kill-test"
[base]
builder = "chain"
options = { hops = 2, duration = 300 }   # 0.1-0.2 s per run
[seeds]
count = 20
"""


def _readable_run(out: Path, key: str) -> None:
    """A run not packed yet: its bundle holds its five tables, each of its rows only."""
    tables = read_bundle(out / "pending" / f"{key}.run")
    for table in ("runs",) + TABLES:
        t = pq.read_table(pa.BufferReader(tables[table]))
        assert set(t.column("run_key").to_pylist()) <= {key}


def test_kill_9_half_way_then_resume(tmp_path):
    path = tmp_path / "kill.toml"
    path.write_text(KILL_SWEEP)
    sweep = load_sweep(path)
    keys = {r.key for r in sweep.runs()}
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "ncmesh", "sweep", str(path), "--out", str(out),
                             "--jobs", "2", "-q"], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # Bounded by the sweep's work, not by a clock: it either finishes runs or ends.
        while True:
            pending = out / "pending"
            if pending.is_dir() and len([n for n in os.listdir(pending) if n.endswith(".run")]) >= 4:
                break
            if proc.poll() is not None:
                pytest.fail(f"sweep ended before it was killed: {proc.stderr.read().decode()}")
            time.sleep(0.005)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # the parent, the fork server and the workers
        except ProcessLookupError:
            pass
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    # Killed before any worker packed: each finished run is one bundle (pending/<key>.run),
    # complete, with all its tables; nothing else has a result name.
    done = {n[:-4] for n in os.listdir(out / "pending") if n.endswith(".run") and not n.startswith(".")}
    assert 4 <= len(done) < 20 and done <= keys and done_keys(out) == done
    for table in ("runs",) + TABLES:
        assert [n for n in os.listdir(out / table) if not n.startswith(".")] == []
    for key in done:
        _readable_run(out, key)
    assert len(open_results(out).runs) == len(done)

    report = run_sweep(sweep, out, jobs=2, progress=False)
    assert (report.skipped, report.done, report.failed) == (len(done), 20 - len(done), 0)
    # The resumed sweep packed the killed one's bundles before it started, and its own
    # runs when its workers exited: every run is in exactly one pack.
    assert os.listdir(out / "pending") == []
    assert sorted(k for held in pack_index(out).values() for k in held) == sorted(keys)

    fresh = tmp_path / "fresh"
    assert run_sweep(sweep, fresh, jobs=2, progress=False).done == 20

    def goodput(d):
        flows = open_results(d).flows
        return dict(zip(flows.run_key, flows.goodput_kbps))

    resumed, uninterrupted = goodput(out), goodput(fresh)
    assert set(resumed) == keys and resumed == uninterrupted
    a = open_results(out).nodes.sort_values(["run_key", "node"]).reset_index(drop=True)
    b = open_results(fresh).nodes.sort_values(["run_key", "node"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
