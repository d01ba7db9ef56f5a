"""The results directory of a sweep: each run written atomically as soon as it finishes,
then packed with other runs into one file per table.

    DIR/store.json                 which sweep definition and which simulator build the
                                   runs belong to (identity.py; written before any run)
    DIR/sweep.toml                 the sweep file (copied when the sweep starts)
    DIR/runs/pack-<id>.parquet     one row per run of a pack; written LAST (the commit)
    DIR/flows/pack-<id>.parquet    RunResult.flows rows + run_key, sweep, seed, params
    DIR/nodes/pack-<id>.parquet    RunResult.nodes rows + the same
    DIR/flow_series/pack-<id>.parquet
    DIR/node_series/pack-<id>.parquet
    DIR/pending/<key>.run          a finished run not packed yet: its five tables' Parquet
                                   files in one file (`bundle`)
    DIR/<table>/<key>.parquet      with packing off (run_sweep(pack=False)): each run's
                                   own files, the runs file last
    DIR/errors/<key>.json          a failed run (removed when a rerun succeeds)
    DIR/seeds.json                 with a seed rule: the seeds each grid point used and
                                   their run keys (written when every point is decided)

Every file is written under a temporary name starting with "." (and not ending in
.parquet), then renamed into place, so readers never see a partial file (with
fsync=True, fsync'ed before the rename as well).

Packs. Reading a store back costs pyarrow about 30-60 µs per column chunk and file (a
nodes file of 122 columns, 4 ms), so a store of one file per run and table takes minutes
to read. A worker writes each finished run at once as one bundle (pending/<key>.run: a
run is done iff a bundle, its own runs file or a committed pack holds it), keeps its
columns, and every few hundred runs and when it exits writes them as one pack per table
(`write_pack`; what no worker packed, run_sweep packs from the bundles: `pack_bundles`):
the four tables' pack files first, then runs/pack-<id>.parquet, which commits the pack,
then those runs' bundles are deleted (`_commit_pack`). A crash at any point loses no finished run: before the commit the bundles hold them (a
pack table file without its runs file is ignored and removed), after it the pack does (a
bundle left beside it is ignored and removed, `tidy`). Readers read the committed packs
and the bundles or own files of the runs no pack holds, and give every table in run-key
order, as one file per run did.

The Parquet files are encoded by the simulator's extension (`_core.run_parquet` for the
four result tables, `_core.encode_pack` for packs, `_core.encode_parquet` for the rest),
with pyarrow only as the fallback for a column type the extension does not write;
reading uses pyarrow.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tables import COLUMNS

TABLES = ("flows", "nodes", "flow_series", "node_series")   # written before runs/
RUNS = "runs"
ERRORS = "errors"
PENDING = "pending"      # DIR/pending/<key>.run
BUNDLE = ".run"
BUNDLE_MAGIC = b"ncmesh-run 1\n"
SEEDS_RECORD = "seeds.json"
ALL_TABLES = (RUNS,) + TABLES
SUFFIX = ".parquet"
PACK = "pack-"           # DIR/<table>/pack-<id>.parquet

# A worker writes a pack when it holds this many runs, or this many values (rows x
# columns over the four tables; about 32 bytes each in memory), whichever comes first.
PACK_RUNS = 512
PACK_CELLS = 2_000_000

# Column types of the core's tables (metrics/result.rs): explicit so that every file of
# a table has the same schema, empty tables and all-NaN columns included.
I64, F64, STR, INTS = "int64", "float64", "string", "list<int64>"
COLUMN_TYPES: dict[str, dict[str, str]] = {
    "flows": {"flow": I64, "src": I64, "dst": I64, "transport": STR, "goodput_kbps": F64,
              "rx_bytes": I64, "tx_packets": I64, "rtt_mean_ms": F64, "rtt_samples": I64,
              "retransmissions": I64, "fast_retransmits": I64, "timeouts": I64,
              "payload_errors": I64, "acks_sent": I64, "out_of_order_segments": I64, "delay_mean_ms": F64,
              "path": INTS},
    "nodes": {"node": I64, "x": F64, "y": F64, "airtime_busy": F64},   # the rest: int64
    "flow_series": {"t_s": F64, "flow": I64, "goodput_kbps": F64, "cwnd_bytes": I64},
    "node_series": {"t_s": F64, "node": I64, "queue_len": I64},
}
RUN_TYPES = {"run_key": STR, "sweep": STR, "seed": I64, "status": STR, "events": I64,
             "sim_time_s": F64, "wall_time_s": F64, "ncmesh_version": STR,
             "core_build": STR, "sweep_id": STR, "scenario_toml": STR, "params_json": STR}
RUN_COLUMNS_BEFORE = ("run_key", "sweep", "seed")
RUN_COLUMNS_AFTER = ("status", "events", "sim_time_s", "wall_time_s", "ncmesh_version",
                     "core_build", "sweep_id", "scenario_toml", "params_json")


@dataclass
class Context:
    """What a worker needs besides the runs: picklable, sent with every batch."""

    out_dir: str
    sweep: str
    params: list[str]
    param_types: dict[str, str]
    version: str
    fsync: bool = True
    core_build: str = ""          # the simulator build (ncmesh._core.build_id())
    sweep_id: str = ""            # the sweep definition (identity.definition_id)
    # Whether workers pack their finished runs (worker.py: when one holds PACK_RUNS runs,
    # and when it exits); else each run keeps its own files.
    pack: bool = False
    session: str = ""             # one run_sweep call (a worker that outlives it drops
                                  # what it held for it: run_sweep packed those runs)


# ---------------------------------------------------------------- columns and encoding

# Written into every Parquet file's footer ("created_by").
CREATED_BY = "ncmesh sweep"


def _arrow_type(name: str):
    import pyarrow as pa

    simple = {"int64": pa.int64(), "float64": pa.float64(), "string": pa.string(), "bool": pa.bool_(),
              "json": pa.string()}
    if name in simple:
        return simple[name]
    if name.startswith("list<") and name.endswith(">"):
        return pa.list_(_arrow_type(name[5:-1]))
    raise ValueError(f"unknown column type {name}")


def _infer(values: list) -> str:
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, int):
            return I64
        if isinstance(v, float):
            return F64
        if isinstance(v, str):
            return STR
        if isinstance(v, list):
            inner = _infer([x for x in v])
            return f"list<{inner}>" if inner != "json" else "json"
        return "json"
    return F64


def _column(name: str, values: list, type_name: str) -> tuple[str, str, list]:
    """(name, type, values) of one column; 'json' values become JSON text (strings)."""
    if type_name == "json":
        return name, STR, [None if v is None else json.dumps(v, sort_keys=True) for v in values]
    return name, type_name, values


def _key_columns(ctx: Context, key: str, seed: int, params: dict, n: int) -> list:
    """run_key, sweep, seed and one column per param, each repeated n times."""
    cols = [("run_key", STR, [key] * n), ("sweep", STR, [ctx.sweep] * n), ("seed", I64, [seed] * n)]
    for p in ctx.params:
        cols.append(_column(p, [params.get(p)] * n, ctx.param_types.get(p, "json")))
    return cols


# For `_core.run_parquet`: per table, the columns that come first and the known types
# (the others are inferred from their values, as in `table_columns`).
TABLE_SPECS = {name: (list(COLUMNS[name]),
                      {**({c: I64 for c in COLUMNS[name]} if name == "nodes" else {}),
                       **COLUMN_TYPES.get(name, {})})
               for name in TABLES}


def key_prefix(ctx: Context, key: str, seed: int, params: dict) -> list:
    """The columns every table of a run starts with, as (name, type, value): run_key,
    sweep, seed and the params ('json' params as JSON text)."""
    out = [("run_key", STR, key), ("sweep", STR, ctx.sweep), ("seed", I64, seed)]
    for p in ctx.params:
        name, ty, values = _column(p, [params.get(p)], ctx.param_types.get(p, "json"))
        out.append((name, ty, values[0]))
    return out


def table_columns(name: str, data: dict | list, key: str, seed: int, params: dict, ctx: Context) -> list:
    """One result table of one run as columns [(name, type, values)]: run_key, sweep,
    seed, params, then the table's columns (those of COLUMNS first, in that order).
    `data` is the table as `_core.run_columns` gives it ({column: [values]}) or as
    `_core.run` does (a list of row dicts)."""
    if isinstance(data, list):
        rows = data
        data = {}
        for r in rows[:1]:
            data = {c: [row.get(c) for row in rows] for c in r}
    n = len(next(iter(data.values()))) if data else 0
    cols = _key_columns(ctx, key, seed, params, n)
    taken = {c[0] for c in cols}
    types = COLUMN_TYPES.get(name, {})
    defaults = COLUMNS["nodes"] if name == "nodes" else ()
    for c in list(COLUMNS[name]) + [c for c in data if c not in COLUMNS[name]]:
        if c in taken:
            continue
        values = data.get(c)
        if values is None:
            values = [None] * n
        cols.append(_column(c, values, types.get(c) or (I64 if c in defaults else _infer(values))))
    return cols


def run_columns(raw: dict, key: str, seed: int, params: dict, scenario_toml: str, ctx: Context) -> list:
    """The runs table's one row as columns."""
    cols = _key_columns(ctx, key, seed, params, 1)
    values = {"status": "ok", "events": raw["events"], "sim_time_s": raw["sim_time_s"],
              "wall_time_s": raw["wall_time_s"], "ncmesh_version": ctx.version,
              "core_build": ctx.core_build, "sweep_id": ctx.sweep_id,
              "scenario_toml": scenario_toml,
              "params_json": json.dumps(params, separators=(",", ":"))}
    cols += [(c, RUN_TYPES[c], [values[c]]) for c in RUN_COLUMNS_AFTER]
    return cols


def encode_columns(columns: list) -> bytes:
    """Columns [(name, type, values)] as the bytes of a Parquet file.

    The simulator's extension writes it (`_core.encode_parquet`: microseconds, no
    pyarrow); a type it does not handle (lists of lists, ...) falls back to
    pyarrow. Both give the same Arrow schema when read."""
    try:
        return _core_encoder()(columns, CREATED_BY)
    except (TypeError, ValueError, OverflowError):
        return _encode_pyarrow(columns)


def _core_encoder():
    from .. import _core

    encoder = getattr(_core, "encode_parquet", None)
    if encoder is None:                       # an older build of the extension
        raise TypeError("no encode_parquet")
    return encoder


def _encode_pyarrow(columns: list) -> bytes:
    """The same file written by pyarrow. Files hold one run each: dictionaries and
    statistics would cost more than they save."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({name: pa.array(values, type=_arrow_type(ty)) for name, ty, values in columns})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, use_dictionary=False, write_statistics=False)
    return sink.getvalue().to_pybytes()


# ---------------------------------------------------------------- atomic files


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_temporary(final: Path | str, data, fsync: bool = False) -> str:
    """`data` (bytes-like) in a new file '.<name>.<random>.tmp' next to `final`
    (fsync'ed if asked); returns its path. Removed again if anything fails."""
    final = os.fspath(final)
    folder, name = os.path.split(final)
    while True:
        tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        break
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


def atomic_write(path: Path, data, fsync: bool = True) -> None:
    """Writes `data` (bytes) to `path` via a temporary '.<name>.<random>.tmp' in the same
    folder: write, fsync (if asked), os.replace. A reader (or a crash) never sees a
    partial `path`."""
    tmp = _write_temporary(path, data, fsync)
    try:
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_parquet(path: Path, columns: list, fsync: bool = True) -> None:
    """Columns [(name, type, values)] as a Parquet file, atomically."""
    atomic_write(path, encode_columns(columns), fsync)


def write_text(path: Path, text: str, fsync: bool = True) -> None:
    atomic_write(path, text.encode("utf-8"), fsync)


# ---------------------------------------------------------------- the directory


def prepare(out_dir: str | os.PathLike, sweep_toml: str, fsync: bool = True) -> Path:
    """Creates DIR and its table folders, writes DIR/sweep.toml; returns DIR."""
    out = Path(out_dir)
    for sub in ALL_TABLES + (ERRORS, PENDING):
        (out / sub).mkdir(parents=True, exist_ok=True)
    write_text(out / "sweep.toml", sweep_toml, fsync)
    return out


def done_keys(out_dir: str | os.PathLike) -> set[str]:
    """The keys of the runs that are done (their runs/<key>.parquet, or a committed pack,
    holds them)."""
    return _Layout(Path(out_dir)).keys


def bundled_keys(out_dir: str | os.PathLike) -> set[str]:
    """The done runs that wait in bundles (no pack holds them yet)."""
    if not _run_file_keys(Path(out_dir) / PENDING, BUNDLE):
        return set()         # (without reading the packs' keys: no pyarrow import)
    return _Layout(Path(out_dir)).bundled


def read_metrics(out_dir: str | os.PathLike, keys, metric: str) -> dict[str, float | None]:
    """Each run's total of `metric` over its flows; None for a run that is not done
    (failed). The runs are taken pack by pack, so that each pack is read once."""
    import pyarrow.compute as pc

    out = Path(out_dir)
    layout = _Layout(out)
    cache = _PackCache()
    values: dict[str, float | None] = {}
    for key in sorted(keys, key=lambda k: layout.in_pack.get(k, "")):
        if key not in layout.keys:
            values[key] = None
            continue
        total = pc.sum(_run_table(out, "flows", key, layout, cache, [metric]).column(metric)).as_py()
        values[key] = float(total) if total is not None else 0.0
    return values


def seeds_record(out_dir: str | os.PathLike) -> dict | None:
    """DIR/seeds.json (a sweep with a seed rule, every grid point decided), or None."""
    try:
        return json.loads((Path(out_dir) / SEEDS_RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def remove_stale_temporaries(out_dir: str | os.PathLike, older_than_s: float = 3600.0) -> int:
    """Deletes temporary files left by killed writers (older than `older_than_s`)."""
    now = time.time()
    removed = 0
    for sub in ALL_TABLES + (ERRORS, PENDING):
        folder = Path(out_dir) / sub
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        for e in entries:
            if e.name.startswith(".") and e.name.endswith(".tmp"):
                try:
                    if now - e.stat().st_mtime > older_than_s:
                        os.unlink(e.path)
                        removed += 1
                except OSError:
                    pass
    return removed


class PendingRun:
    """A finished run whose five tables are encoded (Parquet bytes in memory) but not yet
    on disk. `stage_run` makes it (the CPU work); `commit` writes the files (system calls
    only, which release the GIL: with fsync, it runs on another thread while the next run
    simulates)."""

    def __init__(self, ctx: Context, key: str, tables: list[tuple[str, bytes]], runs: tuple[str, bytes],
                 parts: dict | None = None, run_row: list | None = None):
        self.ctx, self.key = ctx, key
        self.tables = tables            # (final path, Parquet bytes) of the four tables
        self.runs = runs                # the same for runs/<key>.parquet, written last
        # For a pack (`write_pack`): the four tables' columns (`_core.TablePart`), when the
        # extension encoded all four, and the runs row as columns [(name, type, [value])].
        self.parts = parts if parts is not None and all(t in parts for t in TABLES) else None
        self.run_row = run_row

    def commit(self) -> None:
        """Puts the run on disk: as one bundle (pending/<key>.run) when runs are packed
        (the worker packs it from its columns, or run_sweep from the bundle), else as its
        own five files, the runs file last; then removes an error file left by an
        earlier attempt."""
        if self.ctx.pack:
            bundle = [data for _, data in self.tables] + [self.runs[1]]
            path = os.path.join(self.ctx.out_dir, PENDING, self.key + BUNDLE)
            atomic_write(path, _bundle_bytes(bundle), self.ctx.fsync)
        else:
            self._commit_files()
        try:
            os.unlink(os.path.join(self.ctx.out_dir, ERRORS, f"{self.key}.json"))
        except FileNotFoundError:
            pass

    def _commit_files(self) -> None:
        """Data files: written to temporaries (fsync'ed if ctx.fsync), renamed, their
        folders fsync'ed; then the runs file the same way: a run is done only when all
        its files are."""
        out = self.ctx.out_dir
        fsync = self.ctx.fsync
        temporaries = []
        try:
            for final, data in self.tables:
                temporaries.append((_write_temporary(final, data, fsync), final))
            for tmp, final in temporaries:
                os.replace(tmp, final)
            temporaries = []
            if fsync:
                for name in TABLES:
                    _fsync_dir(Path(out) / name)
            final, data = self.runs
            temporaries = [(_write_temporary(final, data, fsync), final)]
            os.replace(temporaries[0][0], final)
            temporaries = []
        finally:
            for tmp, _ in temporaries:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        # (runs/ itself is not fsync'ed: if its rename is lost in a power cut, the run is
        # simply computed again.)


def _bundle_bytes(tables: list[bytes]) -> bytes:
    """A bundle: BUNDLE_MAGIC, then the Parquet files of TABLES and of the runs table,
    in that order, each after its length (8 bytes, little-endian)."""
    out = [BUNDLE_MAGIC]
    for data in tables:
        out += [len(data).to_bytes(8, "little"), data]
    return b"".join(out)


def read_bundle(path: Path | str) -> dict[str, bytes]:
    """A bundle's Parquet files: {table: bytes} for the five tables."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(BUNDLE_MAGIC):
        raise ValueError(f"{path}: not a run bundle")
    out, at = {}, len(BUNDLE_MAGIC)
    for t in TABLES + (RUNS,):
        n = int.from_bytes(data[at:at + 8], "little")
        out[t] = data[at + 8:at + 8 + n]
        if len(out[t]) != n:
            raise ValueError(f"{path}: truncated")
        at += 8 + n
    return out


# ---------------------------------------------------------------- packs


def write_pack(ctx: Context, runs: list[PendingRun]) -> None:
    """Writes committed runs (all with `parts`, and of one schema: `pack_groups`) as one
    pack, their columns encoded by the extension (`_commit_pack`)."""
    from .. import _core

    def encode(t: str) -> bytes:
        if t != RUNS:
            return _core.encode_pack([r.parts[t] for r in runs], CREATED_BY)
        # One row per run: each run_row column holds its one value.
        return encode_columns([(c, ty, [v for r in runs for v in r.run_row[i][2]])
                               for i, (c, ty, _) in enumerate(runs[0].run_row)])

    _commit_pack(Path(ctx.out_dir), encode, [r.key for r in runs], ctx.fsync)


def _commit_pack(out: Path, encode, keys: list[str], fsync: bool) -> None:
    """A pack of runs `keys`, each table's file as `encode(table)` gives it: the four
    tables' files first, then runs/pack-<id>.parquet (the commit), then the runs' bundles
    are deleted. An exception before the commit leaves the bundles as they were (a pack
    table file written so far is ignored, `tidy` removes it)."""
    name = f"{PACK}{os.getpid():x}-{os.urandom(6).hex()}{SUFFIX}"
    for t in TABLES:
        atomic_write(out / t / name, encode(t), fsync)
    if fsync:
        for t in TABLES:
            _fsync_dir(out / t)
    atomic_write(out / RUNS / name, encode(RUNS), fsync)
    if fsync:
        _fsync_dir(out / RUNS)
    for k in keys:
        (out / PENDING / (k + BUNDLE)).unlink(missing_ok=True)


def pack_groups(runs: list[PendingRun]) -> list[list[PendingRun]]:
    """The runs that can be packed (all four tables' columns kept), grouped by schema (a
    pack holds one), each group in the order given."""
    groups: dict = {}
    for r in runs:
        if r.parts is None or r.run_row is None:
            continue
        schema = (tuple(tuple(map(tuple, r.parts[t].schema)) for t in TABLES),
                  tuple((c, ty) for c, ty, _ in r.run_row))
        groups.setdefault(schema, []).append(r)
    return list(groups.values())


def _remove_run_files(out: Path, key: str) -> None:
    """A run's bundle and own files, runs/ first (its 'done' mark), then the tables'."""
    (out / PENDING / (key + BUNDLE)).unlink(missing_ok=True)
    for t in ALL_TABLES:
        (out / t / (key + SUFFIX)).unlink(missing_ok=True)


def _run_file_keys(folder: Path, suffix: str = SUFFIX) -> set[str]:
    """The keys of the runs' own files (or bundles) in `folder`."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return set()
    return {n[: -len(suffix)] for n in names
            if n.endswith(suffix) and not n.startswith(".") and not n.startswith(PACK)}


def _pack_names(folder: Path) -> list[str]:
    """The pack files in `folder`, sorted."""
    try:
        return sorted(n for n in os.listdir(folder) if n.startswith(PACK) and n.endswith(SUFFIX))
    except FileNotFoundError:
        return []


def pack_index(out_dir: str | os.PathLike) -> dict[str, list[str]]:
    """The committed packs (runs/pack-<id>.parquet exists): file name -> the run keys it
    holds, in its row order; sorted by name."""
    folder = Path(out_dir) / RUNS
    names = _pack_names(folder)
    if not names:
        return {}
    import pyarrow.parquet as pq

    return {n: pq.read_table(folder / n, columns=["run_key"]).column(0).to_pylist() for n in names}


class _Layout:
    """Where each done run's rows are: a pack (the first one, by name, that holds it: a run
    written twice is read once), else its bundle, else its own files."""

    def __init__(self, out: Path):
        # Bundles and own files first, packs second: a pack's commit comes before it
        # deletes the runs' bundles, so a run is seen in one or the other at every moment.
        self.bundled = _run_file_keys(out / PENDING, BUNDLE)
        self.own = _run_file_keys(out / RUNS)
        self.packs = pack_index(out)
        self.in_pack: dict[str, str] = {}
        for name, keys in self.packs.items():
            for k in keys:
                self.in_pack.setdefault(k, name)
        self.bundled -= self.in_pack.keys()
        self.own -= self.in_pack.keys() | self.bundled

    @property
    def keys(self) -> set[str]:
        return self.own | self.bundled | self.in_pack.keys()

    def pack_rows(self, name: str, keep: set[str] | None) -> set[str] | None:
        """The keys to read from pack `name` (None: all its rows)."""
        mine = {k for k in self.packs[name] if self.in_pack[k] == name}
        if keep is not None:
            mine &= keep
        return None if len(mine) == len(self.packs[name]) else mine


def tidy(out_dir: str | os.PathLike) -> int:
    """What a sweep does to its directory before it starts (no worker writes then):
    removes what a crash can leave beside the packs (the bundles and own files of runs
    that a committed pack holds, the table files of packs never committed), and packs the
    bundles of an interrupted sweep's last runs (`pack_bundles`). Returns the number of
    files removed."""
    out = Path(out_dir)
    layout = _Layout(out)
    packed = layout.in_pack.keys()
    leftovers = [out / PENDING / (k + BUNDLE) for k in _run_file_keys(out / PENDING, BUNDLE) & packed]
    for t in ALL_TABLES:
        leftovers += [out / t / (k + SUFFIX) for k in _run_file_keys(out / t) & packed]
        leftovers += [out / t / n for n in _pack_names(out / t) if n not in layout.packs]
    for path in leftovers:
        path.unlink(missing_ok=True)
    return len(leftovers) + pack_bundles(out)


def _read_parquet_bytes(data: bytes, columns: list[str] | None = None):
    """One Parquet file held in memory (a table of a bundle), read on this thread.
    `pq.read_table` reads through Arrow's dataset scanner, whose futures finish on Arrow's
    threads: the last reference to the Python bytes can be dropped there after the caller
    has moved on, and if the interpreter is exiting by then, that thread aborts the process
    taking the GIL (a Ray sweep's command crashed so after packing its bundles)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.ParquetFile(pa.BufferReader(data), pre_buffer=False).read(columns=columns, use_threads=False)


def pack_bundles(out_dir: str | os.PathLike, fsync: bool = False) -> int:
    """Packs the runs that wait in bundles (an interrupted sweep's last runs, runs copied
    from another directory, those a Ray worker still held), read and written by pyarrow,
    in the commit order of `_commit_pack`. Returns the number of bundles packed."""
    out = Path(out_dir)
    keys = sorted(bundled_keys(out))
    if not keys:
        return 0
    import pyarrow as pa
    import pyarrow.parquet as pq

    bundles = [read_bundle(out / PENDING / (k + BUNDLE)) for k in keys]

    def encode(t: str) -> bytes:
        return _pyarrow_bytes(pa.concat_tables([_read_parquet_bytes(b[t]) for b in bundles],
                                               promote_options="permissive"))

    _commit_pack(out, encode, keys, fsync)
    return len(keys)


def drop_runs(out_dir: str | os.PathLike, keys) -> int:
    """Makes runs `keys` not done, as if they had never run: deletes their bundles and own
    files and rewrites the packs that hold them without their rows (runs/ first). Returns how many
    of them were done."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    out = Path(out_dir)
    keys = set(keys)
    layout = _Layout(out)
    dropped = len(keys & layout.keys)
    for k in keys & (layout.own | layout.bundled):
        _remove_run_files(out, k)
    for name, held in layout.packs.items():
        if not keys & set(held):
            continue
        for t in (RUNS,) + TABLES:
            table = pq.read_table(out / t / name)
            table = table.filter(pc.invert(pc.is_in(table["run_key"], value_set=pa.array(sorted(keys), pa.string()))))
            if table.num_rows == 0:
                (out / t / name).unlink(missing_ok=True)
                continue
            atomic_write(out / t / name, _pyarrow_bytes(table), False)
    return dropped


def _pyarrow_bytes(table) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, use_dictionary=False, write_statistics=False)
    return sink.getvalue().to_pybytes()


class _PackCache:
    """The last few pack tables read (Donors copy runs one at a time, five tables each)."""

    def __init__(self, size: int = 15):
        self.size, self.tables = size, {}

    def rows(self, path: Path, key: str):
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        table = self.tables.pop(path, None)
        if table is None:
            table = pq.read_table(path)
            if len(self.tables) >= self.size:
                self.tables.pop(next(iter(self.tables)))
        self.tables[path] = table
        return table.filter(pc.equal(table["run_key"], key))


def _run_table(src: Path, table: str, key: str, layout: "_Layout", cache: _PackCache,
               columns: list[str] | None = None):
    """One table of done run `key` of directory `src` (only `columns` if given), as a
    pyarrow Table."""
    import pyarrow.parquet as pq

    pack = layout.in_pack.get(key)
    if pack is not None:
        rows = cache.rows(src / table / pack, key)
        return rows if columns is None else rows.select(columns)
    if key in layout.bundled:
        return _read_parquet_bytes(read_bundle(src / PENDING / (key + BUNDLE))[table], columns)
    return pq.read_table(src / table / (key + SUFFIX), columns=columns)



class Donors:
    """Other results directories whose runs this sweep may take instead of running them
    (the parts of one reproduction): a run is keyed by its resolved scenario (the run
    key) and the simulator build, so a done run of another directory made by the same
    build (its store.json's core_build) is the same run. `take(ctx, spec)` copies its
    rows into ctx's directory under this sweep's name and params (`copy_run`)."""

    def __init__(self, dirs, build: str):
        from .identity import read_manifest

        self.dirs: list[tuple[Path, set[str], list[str]]] = []
        for d in dirs or []:
            d = Path(d)
            try:
                manifest = read_manifest(d)
            except Exception:  # noqa: BLE001 - an unreadable store is simply not used
                continue
            if manifest and manifest.get("core_build") == build:
                self.dirs.append((d, _Layout(d), _grid_keys(d)))
        self.cache = _PackCache()

    def take(self, ctx: Context, key: str, seed: int, params: dict) -> bool:
        """Copies run `key` from the first directory that has it; False if none has."""
        for d, layout, donor_params in self.dirs:
            if key in layout.keys:
                copy_run(d, donor_params, ctx, key, seed, params, layout, self.cache)
                return True
        return False


def copy_run(src: Path, src_params: list[str], ctx: Context, key: str, seed: int, params: dict,
             layout: "_Layout | None" = None, cache: "_PackCache | None" = None) -> None:
    """Run `key` of results directory `src` (grid keys `src_params`) written into ctx's
    directory: the same rows, with this sweep's key columns (sweep, seed, params) and, in
    the runs table, its sweep_id and params_json; the runs file last, as for a run."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = key + SUFFIX
    drop = set(RUN_COLUMNS_BEFORE) | set(src_params)
    prefix = key_prefix(ctx, key, seed, params)
    layout = layout if layout is not None else _Layout(src)
    cache = cache if cache is not None else _PackCache()
    tables = []
    for t in TABLES + (RUNS,):
        data = _run_table(src, t, key, layout, cache)
        n = data.num_rows
        columns = {c: pa.array([v] * n, type=_arrow_type(ty)) for c, ty, v in prefix}
        for c in data.column_names:
            if c in drop:
                continue
            if t == RUNS and c == "sweep_id":
                columns[c] = pa.array([ctx.sweep_id] * n, type=pa.string())
            elif t == RUNS and c == "params_json":
                columns[c] = pa.array([json.dumps(params, separators=(",", ":"))] * n, type=pa.string())
            else:
                columns[c] = data.column(c)
        sink = pa.BufferOutputStream()
        pq.write_table(pa.table(columns), sink, use_dictionary=False, write_statistics=False)
        tables.append((os.path.join(ctx.out_dir, t, name), sink.getvalue().to_pybytes()))
    # With packing, a bundle, which the sweep packs when it ends (`pack_bundles`).
    PendingRun(ctx, key, tables[:-1], tables[-1]).commit()


def stage_run(ctx: Context, key: str, seed: int, params: dict, raw: dict, scenario_toml: str | None = None) -> PendingRun:
    """Builds a finished run's five tables and encodes them as Parquet. `raw` is what
    `_core.run_parquet` (tables already encoded: bytes), `_core.run_columns` or
    `_core.run` returned; `scenario_toml` defaults to its `scenario_toml`."""
    if scenario_toml is None:
        scenario_toml = raw["scenario_toml"]
    out = ctx.out_dir
    name = key + SUFFIX
    tables = []
    for t in TABLES:
        data = raw[t]
        if not isinstance(data, bytes):
            data = encode_columns(table_columns(t, data, key, seed, params, ctx))
        tables.append((os.path.join(out, t, name), data))
    row = run_columns(raw, key, seed, params, scenario_toml, ctx)
    runs = (os.path.join(out, RUNS, name), encode_columns(row))
    return PendingRun(ctx, key, tables, runs, raw.get("parts"), row)


def write_run(ctx: Context, key: str, seed: int, params: dict, raw: dict, scenario_toml: str | None = None) -> None:
    """Writes one finished run: the four tables, then runs/<key>.parquet (the 'done' mark),
    then removes an error file left by an earlier failed attempt."""
    stage_run(ctx, key, seed, params, raw, scenario_toml).commit()


def write_error(ctx: Context, key: str, seed: int, params: dict, message: str, error_type: str,
                scenario: Any = None) -> None:
    record = {"run_key": key, "sweep": ctx.sweep, "seed": seed, "params": params,
              "error": message, "error_type": error_type, "ncmesh_version": ctx.version,
              "core_build": ctx.core_build, "sweep_id": ctx.sweep_id,
              "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if scenario is not None:
        record["scenario"] = scenario
    text = json.dumps(record, indent=2, default=str) + "\n"
    write_text(Path(ctx.out_dir) / ERRORS / f"{key}.json", text, ctx.fsync)


# ---------------------------------------------------------------- reading


def _grid_keys(out: Path) -> list[str]:
    """The param names, from DIR/sweep.toml (for empty tables)."""
    import tomllib

    from .spec import _flatten, _is_range

    try:
        data = tomllib.loads((out / "sweep.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    grid = data.get("grid", {})
    return [k for k, _ in _flatten(grid, keep=_is_range)] if isinstance(grid, dict) else []


def _files(folder: Path, keys: set[str] | None, elsewhere) -> list[str]:
    """The own files of the runs in `keys` (all if None) that are not `elsewhere` (in a
    pack or a bundle), in key order."""
    own = _run_file_keys(folder) - elsewhere
    if keys is not None:
        own &= keys
    return [str(folder / (k + SUFFIX)) for k in sorted(own)]


def read_table(out_dir: str | os.PathLike, name: str, keys: set[str] | None = None, params: list[str] | None = None,
               layout: "_Layout | None" = None):
    """One table of the results directory as a DataFrame, its rows in run-key order (a
    run's own rows in their order); only the runs in `keys` if given. Empty: a frame with
    the table's columns."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    out = Path(out_dir)
    layout = layout if layout is not None else _Layout(out)
    files = _files(out / name, keys, layout.in_pack.keys() | layout.bundled)
    packs = []                                # (path, the keys to keep or None for all)
    for pack in layout.packs:
        rows = layout.pack_rows(pack, keys)
        if rows is None or rows:
            packs.append((str(out / name / pack), rows))
    bundles = sorted(layout.bundled if keys is None else layout.bundled & keys)
    if not files and not packs and not bundles:
        params = params if params is not None else _grid_keys(out)
        if name == RUNS:
            cols = list(RUN_COLUMNS_BEFORE) + params + list(RUN_COLUMNS_AFTER)
        else:
            cols = list(RUN_COLUMNS_BEFORE) + params + list(COLUMNS[name])
        return pd.DataFrame(columns=cols)
    import pyarrow.dataset as ds

    # Files written by other ncmesh versions may have more or fewer columns: read with
    # the union of the schemas (missing values are null).
    tables = []
    if files:
        schema = pa.unify_schemas([pq.read_schema(f) for f in files], promote_options="permissive")
        tables.append(ds.dataset(files, format="parquet", schema=schema).to_table())
    for path, rows in packs:
        t = pq.read_table(path)
        if rows is not None:
            t = t.filter(pc.is_in(t["run_key"], value_set=pa.array(sorted(rows), type=pa.string())))
        tables.append(t)
    for key in bundles:
        tables.append(_read_parquet_bytes(read_bundle(out / PENDING / (key + BUNDLE))[name]))
    table = pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0]
    if packs or bundles:
        # Run-key order, as one file per run gives it (a stable sort keeps each run's rows
        # in their order), so that analyses add their values up in the same order.
        table = table.take(pc.sort_indices(table, sort_keys=[("run_key", "ascending")]))
    return table.to_pandas()


@dataclass
class Results:
    """A sweep's results directory. Tables are pandas DataFrames, read on first access:
    `.runs` (one row per done run), `.flows`, `.nodes`, `.flow_series`, `.node_series`
    (rows of the done runs only), `.errors` (failed runs that have not succeeded since)."""

    path: Path
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def keys(self) -> set[str]:
        """The done runs (with a seed rule, once decided: those of the seeds each grid
        point used, DIR/seeds.json)."""
        done = self._layout.keys
        record = self.seeds
        if record is not None:
            done &= {k for cell in record.get("cells", []) for k in cell.get("run_keys", [])}
        return done

    @property
    def _layout(self) -> "_Layout":
        if "_layout" not in self._cache:
            self._cache["_layout"] = _Layout(self.path)
        return self._cache["_layout"]

    @property
    def seeds(self) -> dict | None:
        """DIR/seeds.json: the seed rule and the seeds each grid point used, or None."""
        if "_seeds" not in self._cache:
            self._cache["_seeds"] = seeds_record(self.path)
        return self._cache["_seeds"]

    def _table(self, name: str):
        if name not in self._cache:
            self._cache[name] = read_table(self.path, name, keys=self.keys, params=self.params,
                                           layout=self._layout)
        return self._cache[name]

    @property
    def params(self) -> list[str]:
        if "_params" not in self._cache:
            self._cache["_params"] = _grid_keys(self.path)
        return self._cache["_params"]

    @property
    def runs(self):
        return self._table(RUNS)

    @property
    def flows(self):
        return self._table("flows")

    @property
    def nodes(self):
        return self._table("nodes")

    @property
    def flow_series(self):
        return self._table("flow_series")

    @property
    def node_series(self):
        return self._table("node_series")

    @property
    def errors(self):
        """One row per failed run: run_key, sweep, seed, the params, error, error_type,
        ncmesh_version, time."""
        if "errors" not in self._cache:
            import pandas as pd

            done = self.keys
            rows = []
            folder = self.path / ERRORS
            try:
                names = sorted(os.listdir(folder))
            except FileNotFoundError:
                names = []
            for n in names:
                if n.startswith(".") or not n.endswith(".json") or n[:-5] in done:
                    continue
                try:
                    rec = json.loads((folder / n).read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                row = {"run_key": rec.get("run_key"), "sweep": rec.get("sweep"), "seed": rec.get("seed")}
                row.update(rec.get("params") or {})
                for k in ("error", "error_type", "ncmesh_version", "time"):
                    row[k] = rec.get(k)
                rows.append(row)
            cols = ["run_key", "sweep", "seed"] + self.params + ["error", "error_type", "ncmesh_version", "time"]
            frame = pd.DataFrame(rows) if rows else pd.DataFrame(columns=cols)
            self._cache["errors"] = frame
        return self._cache["errors"]

    def reload(self) -> "Results":
        self._cache.clear()
        return self

    def __repr__(self) -> str:
        return f"<Results {self.path}: {len(self.keys)} runs done>"


def open_results(out_dir: str | os.PathLike) -> Results:
    """The results directory of a sweep (see `Results`)."""
    path = Path(out_dir)
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: no such results directory")
    return Results(path)
