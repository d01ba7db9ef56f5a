"""Packs (store.py): a worker writes the runs it finished as one file per table. Reading
a packed store gives the same tables, row for row, as one file per run; no crash window
loses or doubles a run; the extension's `encode_pack` writes the concatenation of the
runs' own files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ncmesh import _core
from ncmesh.sweep import load_sweep, open_results, run_sweep
from ncmesh.sweep.store import (CREATED_BY, PACK, TABLE_SPECS, TABLES, _bundle_bytes, done_keys, drop_runs,
                                pack_index, read_bundle, read_metrics, tidy)

from conftest import short_chain

SWEEP = {"name": "packs", "base": {"builder": "chain", "options": {"hops": 2, "duration": 3}},
         "grid": {"loss.0.rate": [0.0, 0.1]}, "seeds": {"count": 6}}
ALL = ("runs",) + TABLES


def _frames(d) -> dict:
    res = open_results(d)
    # wall_time_s is the machine's; the rest is the run's.
    return {t: getattr(res, t).drop(columns=["wall_time_s"], errors="ignore") for t in ALL}


def _assert_same(a, b) -> None:
    fa, fb = _frames(a), _frames(b)
    for t in ALL:
        pd.testing.assert_frame_equal(fa[t], fb[t], obj=t)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """The same sweep packed (the process pool of this test process) and not."""
    d = tmp_path_factory.mktemp("packs")
    sweep = load_sweep(SWEEP)
    packed = run_sweep(sweep, d / "packed", jobs=2, progress=False)
    own = run_sweep(sweep, d / "own", jobs=2, progress=False, pack=False)
    assert packed.done == own.done == 12
    return sweep, d / "packed", d / "own"


def test_a_packed_store_reads_as_one_file_per_run(stores):
    sweep, packed, own = stores
    keys = {r.key for r in sweep.runs()}
    assert pack_index(own) == {} and done_keys(own) == keys
    packs = pack_index(packed)
    assert packs and sorted(k for held in packs.values() for k in held) == sorted(keys)
    for t in ALL:      # nothing but packs is left
        assert sorted(os.listdir(packed / t)) == sorted(packs)
    _assert_same(packed, own)
    assert read_metrics(packed, sorted(keys) + ["missing"], "goodput_kbps") == \
        read_metrics(own, sorted(keys) + ["missing"], "goodput_kbps")


def test_the_forked_pool_packs_when_its_workers_exit(tmp_path):
    """`ncmesh sweep` (a single-threaded parent: the ForkPool) packs as well."""
    path = tmp_path / "s.toml"
    path.write_text('name = "packs"\n[base]\nbuilder = "chain"\noptions = { hops = 2, duration = 3 }\n'
                    '[grid]\n"loss.0.rate" = [0.0, 0.1]\n[seeds]\ncount = 6\n')
    p = subprocess.run([sys.executable, "-m", "ncmesh", "sweep", str(path), "--out", str(tmp_path / "out"),
                        "--jobs", "2", "-q"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    packs = pack_index(tmp_path / "out")
    assert 1 <= len(packs) <= 2 and sum(map(len, packs.values())) == 12
    assert os.listdir(tmp_path / "out" / "flows") == [n for n in os.listdir(tmp_path / "out" / "flows")
                                                       if n.startswith(PACK)]


def test_a_crash_after_the_commit_doubles_no_run(stores, tmp_path):
    """Killed after a pack's runs file is in place, before the runs' own files are gone:
    each run is read once, and `tidy` removes the leftovers."""
    _, packed, own = stores
    d = tmp_path / "d"
    shutil.copytree(packed, d)
    for t in ALL:
        for n in os.listdir(own / t):
            shutil.copy(own / t / n, d / t)
    assert done_keys(d) == done_keys(own)
    _assert_same(d, own)
    assert tidy(d) == 5 * 12
    for t in ALL:
        assert all(n.startswith(PACK) for n in os.listdir(d / t))
    _assert_same(d, own)


def _bundle_from(own, d, key) -> list[bytes]:
    """Run `key`'s own files in `own` written as its bundle in `d`; returns the files."""
    tables = [(own / t / f"{key}.parquet").read_bytes() for t in TABLES + ("runs",)]
    (d / "pending" / f"{key}.run").write_bytes(_bundle_bytes(tables))
    return tables


def test_bundles_left_beside_their_pack_are_read_once(stores, tmp_path):
    """Killed after a pack's commit, before its runs' bundles were deleted."""
    _, packed, own = stores
    d = tmp_path / "d"
    shutil.copytree(packed, d)
    for key in done_keys(own):
        tables = _bundle_from(own, d, key)
        assert read_bundle(d / "pending" / f"{key}.run")["flows"] == tables[0]
    assert done_keys(d) == done_keys(own)
    _assert_same(d, own)
    assert tidy(d) == 12 and os.listdir(d / "pending") == []
    _assert_same(d, own)


def test_bundles_without_a_pack_are_read_and_packed(stores, tmp_path):
    """An interrupted sweep's last runs, in bundles only: read as they are, then packed
    by the next sweep's `tidy` (pyarrow writes that pack)."""
    _, _, own = stores
    d = tmp_path / "d"
    shutil.copytree(own, d)
    for key in done_keys(own):
        _bundle_from(own, d, key)
        for t in TABLES + ("runs",):
            (d / t / f"{key}.parquet").unlink()
    assert done_keys(d) == done_keys(own) and pack_index(d) == {}
    _assert_same(d, own)
    assert read_metrics(d, sorted(done_keys(d)), "goodput_kbps") == read_metrics(own, sorted(done_keys(d)), "goodput_kbps")
    assert tidy(d) == 12 and os.listdir(d / "pending") == [] and len(pack_index(d)) == 1
    _assert_same(d, own)


def test_a_crash_before_the_commit_loses_no_run(stores, tmp_path):
    """Killed after some pack table files, before the pack's runs file: the runs are read
    from their own files, the uncommitted pack is ignored, and `tidy` removes it."""
    _, packed, own = stores
    d = tmp_path / "d"
    shutil.copytree(own, d)
    for t in TABLES:
        for n in os.listdir(packed / t):
            shutil.copy(packed / t / n, d / t)
    assert pack_index(d) == {} and done_keys(d) == done_keys(own)
    _assert_same(d, own)
    assert tidy(d) == len(TABLES) * len(pack_index(packed))
    _assert_same(d, own)


def test_dropped_runs_are_computed_again_and_the_same(stores, tmp_path):
    sweep, packed, own = stores
    d = tmp_path / "d"
    shutil.copytree(packed, d)
    gone = sorted(done_keys(d))[::3]
    assert drop_runs(d, gone) == len(gone)
    assert done_keys(d) == done_keys(own) - set(gone)
    assert not set(gone) & set(open_results(d).flows.run_key)
    again = run_sweep(sweep, d, jobs=2, progress=False)
    assert (again.done, again.skipped) == (len(gone), 12 - len(gone))
    _assert_same(d, own)


def test_repeated_columns_are_dictionary_encoded_and_read_back_as_given():
    # A run's key, sweep, seed and params are the same on each of its rows: the writer
    # keeps each value once (a dictionary page) and its rows as one run of its index.
    # 300 runs: more than 256 values, so the indices take two bytes; nulls among them.
    s = short_chain(hops=1).to_dict()
    n = 300

    def prefix(i):
        return [("run_key", "string", f"key-{i:04d}"), ("sweep", "string", "dict"),
                ("seed", "int64", i), ("rate", "float64", None if i % 7 == 0 else i / 3),
                ("note", "string", None if i % 5 == 0 else "same"), ("flag", "bool", i % 2 == 0)]

    parts, rows = [], []
    for i in range(n):
        s["simulation"]["seed"] = i + 1
        raw = _core.run_parquet(s, prefix(i), TABLE_SPECS, CREATED_BY, keep_parts=True)
        parts.append(raw["parts"]["node_series"])
        rows.append(pq.read_table(pa.BufferReader(raw["node_series"])).num_rows)
        if i == 1:      # (a run whose values are all present; a column of nulls stays PLAIN)
            one = pq.ParquetFile(pa.BufferReader(raw["node_series"]))
    packed = pq.ParquetFile(pa.BufferReader(_core.encode_pack(parts, CREATED_BY)))
    table = packed.read()
    for name, _, _ in prefix(0):
        expected = [value for i in range(n) for value in [dict((c, v) for c, _, v in prefix(i))[name]] * rows[i]]
        assert table.column(name).to_pylist() == expected, name
    names = [c for c, _, _ in prefix(0)]
    for f in (one, packed):
        chunks = {f.metadata.row_group(0).column(k).path_in_schema: f.metadata.row_group(0).column(k)
                  for k in range(f.metadata.num_columns)}
        for name in names:
            dictionary = "RLE_DICTIONARY" in chunks[name].encodings
            assert dictionary == (name != "flag"), (name, chunks[name].encodings)
    # Each key once (12 bytes and more in PLAIN on each row): under a byte a row.
    key = {packed.metadata.row_group(0).column(k).path_in_schema: packed.metadata.row_group(0).column(k)
           for k in range(packed.metadata.num_columns)}["run_key"]
    assert sum(rows) >= 10 * n and key.total_compressed_size < sum(rows)
    assert table.schema.field("run_key").type == pa.string()


def test_encode_pack_is_the_runs_files_one_after_the_other():
    s = short_chain(hops=1).to_dict()
    prefixes = [[("run_key", "string", f"k{i}"), ("sweep", "string", "x"), ("seed", "int64", i)]
                for i in (1, 2)]
    raws = []
    for i, prefix in zip((1, 2), prefixes):
        s["simulation"]["seed"] = i
        raws.append(_core.run_parquet(s, prefix, TABLE_SPECS, CREATED_BY, keep_parts=True))
    for t in TABLES:
        parts = [r["parts"][t] for r in raws]
        assert [p.rows for p in parts] == [pq.read_table(pa.BufferReader(r[t])).num_rows for r in raws]
        packed = pq.read_table(pa.BufferReader(_core.encode_pack(parts, CREATED_BY)))
        one_by_one = pa.concat_tables([pq.read_table(pa.BufferReader(r[t])) for r in raws])
        assert packed.equals(one_by_one) and packed.num_rows == sum(p.rows for p in parts), t
        assert pq.ParquetFile(pa.BufferReader(_core.encode_pack(parts))).num_row_groups == 1
    # Another schema (one more prefix column) does not pack with them.
    s["simulation"]["seed"] = 3
    other = _core.run_parquet(s, prefixes[0] + [("extra", "int64", 1)], TABLE_SPECS, CREATED_BY, keep_parts=True)
    with pytest.raises(ValueError, match="other columns"):
        _core.encode_pack([raws[0]["parts"]["flows"], other["parts"]["flows"]])
    with pytest.raises(ValueError, match="no parts"):
        _core.encode_pack([])
    assert "parts" not in _core.run_parquet(s, prefixes[0], TABLE_SPECS, CREATED_BY)
