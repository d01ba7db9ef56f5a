"""The sweep's fast paths: the extension's Parquet writer (`_core.encode_parquet`,
`_core.run_parquet`), `_core.run_columns`, and the fork-based worker pool (including a
worker that dies)."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import textwrap

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ncmesh import _core
from ncmesh.sweep.spec import load_sweep
from ncmesh.sweep.store import (TABLE_SPECS, TABLES, Context, _encode_pyarrow, encode_columns, key_prefix,
                                run_columns, table_columns)

from conftest import short_chain

ALL_TYPES = [
    ("i", "int64", [1, None, -3, 2**62, 0]),
    ("f", "float64", [1.5, float("nan"), None, 2, -0.0]),
    ("s", "string", ["x", None, "héllo ☃", "", "a" * 300]),
    ("b", "bool", [True, False, None, True, False]),
    ("li", "list<int64>", [[0, 1, 2], [], None, [5, None], list(range(100))]),
    ("ls", "list<string>", [["a"], None, [], ["b", "c"], [None]]),
    ("lb", "list<bool>", [[True] * 9, [False, None], None, [], [True]]),
    ("lf", "list<float64>", [[1.0], [2.5, None], None, [], [float("inf")]]),
]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b and type(a) is type(b)


def _read(data: bytes) -> pa.Table:
    return pq.read_table(io.BytesIO(data))


@pytest.mark.parametrize("rows", [5, 0])
def test_encode_parquet_reads_back_as_pyarrow_writes_it(rows, tmp_path):
    cols = [(n, t, v[:rows]) for n, t, v in ALL_TYPES]
    ours, theirs = _read(_core.encode_parquet(cols, "test")), _read(_encode_pyarrow(cols))
    assert ours.schema.remove_metadata() == theirs.schema.remove_metadata()
    assert _same(ours.to_pylist(), theirs.to_pylist())
    expected = [{n: (float(v[i]) if t == "float64" and isinstance(v[i], int) else v[i]) for n, t, v in cols}
                for i in range(rows)]                  # integers in a float column become floats
    assert _same(ours.to_pylist(), expected)
    path = tmp_path / "t.parquet"
    path.write_bytes(_core.encode_parquet(cols))
    polars = pytest.importorskip("polars")
    assert polars.read_parquet(path).height == rows
    duckdb = pytest.importorskip("duckdb")
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall() == [(rows,)]


def test_encode_parquet_long_runs_and_many_bools():
    n = 1000
    cols = [("x", "int64", [None] * 300 + list(range(n - 300))), ("b", "bool", [i % 3 == 0 for i in range(n)])]
    assert _read(_core.encode_parquet(cols)).to_pylist() == [{"x": x, "b": b} for _, _, vals in [cols[0]]
                                                              for x, b in zip(vals, cols[1][2])]


@pytest.mark.parametrize("column", [
    ("x", "int64", [True]),              # a bool is not an integer
    ("x", "int64", [1.5]),
    ("x", "string", [1]),
    ("x", "list<int64>", [[[1]]]),       # nested lists
    ("x", "json", ["{}"]),               # not a type of the writer
    ("x", "int64", [{"a": 1}]),
])
def test_encode_parquet_refuses_what_it_does_not_handle(column):
    with pytest.raises(TypeError):
        _core.encode_parquet([column])


def test_encode_columns_falls_back_to_pyarrow():
    cols = [("x", "list<list<int64>>", [[[1, 2], [3]], None])]
    assert _read(encode_columns(cols)).column("x").to_pylist() == [[[1, 2], [3]], None]


def _ctx(params=None, types=None) -> Context:
    return Context(out_dir="/nonexistent", sweep="s", params=list(params or {}),
                   param_types=dict(types or {}), version=_core.version(), fsync=False)


def test_run_columns_is_run_by_columns():
    sc = short_chain(3).resolved()
    rows, cols = _core.run(sc), _core.run_columns(sc)
    for name in TABLES:
        if rows[name]:
            assert list(cols[name]) == list(rows[name][0])
        for c, values in cols[name].items():
            assert _same(values, [r.get(c) for r in rows[name]])
    assert cols["scenario_toml"] == _core.to_toml(rows["scenario"])
    for k in ("name", "seed", "events", "sim_time_s", "conservation"):
        assert rows[k] == cols[k]


def test_run_parquet_gives_the_tables_of_the_python_path():
    params = {"hops": 3, "loss": 0.1, "sack": True, "tag": "a", "route": [0, 1, 2], "opts": {"x": 1}}
    types = {"hops": "int64", "loss": "float64", "sack": "bool", "tag": "string",
             "route": "list<int64>", "opts": "json"}
    ctx = _ctx(params, types)
    sc = short_chain(3).resolved()
    fast = _core.run_parquet(sc, key_prefix(ctx, "k1", 7, params), TABLE_SPECS, "test")
    slow = _core.run(sc)
    assert fast["scenario_toml"] == _core.to_toml(slow["scenario"])
    for name in TABLES:
        assert isinstance(fast[name], bytes)
        ours = _read(fast[name])
        theirs = _read(_encode_pyarrow(table_columns(name, slow[name], "k1", 7, params, ctx)))
        assert ours.schema.remove_metadata() == theirs.schema.remove_metadata(), name
        assert _same(ours.to_pylist(), theirs.to_pylist()), name
        assert ours.column_names[:9] == ["run_key", "sweep", "seed", *params]
        if ours.num_rows:
            assert ours.column("opts").to_pylist()[0] == json.dumps(params["opts"], sort_keys=True)
    runs = _read(encode_columns(run_columns(fast, "k1", 7, params, fast["scenario_toml"], ctx)))
    assert runs.column("events").to_pylist() == [slow["events"]]


def _python(code: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter (a process with one thread: fork is safe)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)


def test_fork_pool_results_errors_and_a_dead_worker():
    proc = _python("""
        import os
        from ncmesh.sweep.forkpool import ForkPool, WorkerDied

        def square(x):
            return x * x

        def fail(x):
            raise ValueError(f"bad {x}")

        def die(x):
            os._exit(3)

        pool = ForkPool(2)
        tasks = {pool.submit(square, i): ("square", i) for i in range(10)}
        tasks[pool.submit(fail, 1)] = ("fail", 1)
        tasks[pool.submit(die, 0)] = ("die", 0)
        tasks.update({pool.submit(square, i): ("square", i) for i in range(10, 20)})
        got = {}
        while len(got) < len(tasks):
            for task, ok, value in pool.wait():
                got[task] = (ok, value)
        squares = sorted(v for t, (ok, v) in got.items() if ok)
        died = [t for t, (ok, v) in got.items() if not ok and isinstance(v, WorkerDied)]
        failed = [str(v) for t, (ok, v) in got.items() if not ok and isinstance(v, ValueError)]
        assert failed == ["bad 1"], failed
        assert 1 <= len(died) <= 2, got        # the dying task, and one queued behind it
        assert all(tasks[t][0] in ("die", "square") for t in died)
        lost = {tasks[t][1] for t in died if tasks[t][0] == "square"}
        assert squares == sorted(i * i for i in range(20) if i not in lost)
        assert "killed" in str(got[next(t for t in died if tasks[t][0] == "die")][1]) or "status 3" in \\
            str(got[next(t for t in died if tasks[t][0] == "die")][1])
        t = pool.submit(square, 7)               # the pool goes on with a new worker
        assert pool.wait() == [(t, True, 49)]
        pids = [w.pid for w in pool.workers.values()]
        pool.shutdown()
        for pid in pids:
            try:
                os.kill(pid, 0)
                raise AssertionError(f"worker {pid} still there")
            except ProcessLookupError:
                pass
        print("ok")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_fork_pool_large_tasks_and_results():
    # Tasks and results far larger than a pipe's buffer, two queued per worker: the
    # parent must never wait on a worker that waits on it.
    proc = _python("""
        from ncmesh.sweep.forkpool import ForkPool

        def echo(data):
            return data * 2

        pool = ForkPool(2, depth=2)
        tasks = {pool.submit(echo, bytes([i]) * 3_000_000): i for i in range(8)}
        got = {}
        while len(got) < len(tasks):
            for task, ok, value in pool.wait():
                assert ok and value == bytes([tasks[task]]) * 6_000_000
                got[task] = True
        pool.shutdown()
        print("ok")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_sweep_records_a_run_that_kills_its_worker(tmp_path):
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('name = "killer"\n[base]\nbuilder = "chain"\noptions = { hops = 1, duration = 3 }\n'
                          '[seeds]\ncount = 6\n')
    bad = load_sweep(sweep_file).runs()[2].key
    proc = _python(f"""
        import os
        from ncmesh.sweep import run_sweep, runner, worker

        assert runner._single_threaded()           # so the fork pool is used
        stage = worker._stage

        def deadly(spec, ctx):
            if spec.key == {bad!r}:
                os._exit(9)
            return stage(spec, ctx)

        worker._stage = deadly                     # the forked workers inherit it
        report = run_sweep({str(sweep_file)!r}, {str(tmp_path / "out")!r}, jobs=2, progress=False)
        print(report.done, report.failed, sorted(report.errors))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["5", "1", f"['{bad}']"]
    record = json.loads((tmp_path / "out" / "errors" / f"{bad}.json").read_text())
    assert record["error_type"] == "WorkerDied"
    # The rerun (no deadly stage now) computes only that run.
    from ncmesh.sweep import run_sweep

    report = run_sweep(sweep_file, tmp_path / "out", jobs=2, progress=False)
    assert (report.done, report.skipped, report.failed) == (1, 5, 0)
    assert not (tmp_path / "out" / "errors" / f"{bad}.json").exists()
