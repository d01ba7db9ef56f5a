"""The results directory of a sweep: one Parquet file per run and table, written atomically.

    DIR/sweep.toml                 the sweep file (copied when the sweep starts)
    DIR/runs/<key>.parquet         one row per run; written LAST: a run is done iff it exists
    DIR/flows/<key>.parquet        RunResult.flows rows + run_key, sweep, seed, params
    DIR/nodes/<key>.parquet        RunResult.nodes rows + the same
    DIR/flow_series/<key>.parquet
    DIR/node_series/<key>.parquet
    DIR/errors/<key>.json          a failed run (removed when a rerun succeeds)

Every file is written under a temporary name starting with "." (and not ending in
.parquet), fsync'ed, then renamed into place, so readers never see a partial file.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..tables import COLUMNS

TABLES = ("flows", "nodes", "flow_series", "node_series")   # written before runs/
RUNS = "runs"
ERRORS = "errors"
ALL_TABLES = (RUNS,) + TABLES
SUFFIX = ".parquet"

# Column types of the core's tables (metrics/result.rs): explicit so that every file of
# a table has the same schema, empty tables and all-NaN columns included.
I64, F64, STR, INTS = "int64", "float64", "string", "list<int64>"
COLUMN_TYPES: dict[str, dict[str, str]] = {
    "flows": {"flow": I64, "src": I64, "dst": I64, "transport": STR, "goodput_kbps": F64,
              "rx_bytes": I64, "tx_packets": I64, "rtt_mean_ms": F64, "rtt_samples": I64,
              "retransmissions": I64, "fast_retransmits": I64, "timeouts": I64,
              "payload_errors": I64, "path": INTS},
    "nodes": {"node": I64, "x": F64, "y": F64, "airtime_busy": F64},   # the rest: int64
    "flow_series": {"t_s": F64, "flow": I64, "goodput_kbps": F64, "cwnd_bytes": I64},
    "node_series": {"t_s": F64, "node": I64, "queue_len": I64},
}
RUN_TYPES = {"run_key": STR, "sweep": STR, "seed": I64, "status": STR, "events": I64,
             "sim_time_s": F64, "wall_time_s": F64, "ncmesh_version": STR,
             "scenario_toml": STR, "params_json": STR}
RUN_COLUMNS_BEFORE = ("run_key", "sweep", "seed")
RUN_COLUMNS_AFTER = ("status", "events", "sim_time_s", "wall_time_s", "ncmesh_version",
                     "scenario_toml", "params_json")


@dataclass
class Context:
    """What a worker needs besides the runs: picklable, sent with every batch."""

    out_dir: str
    sweep: str
    params: list[str]
    param_types: dict[str, str]
    version: str
    fsync: bool = True


# ---------------------------------------------------------------- arrow helpers


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


def _column(values: list, type_name: str):
    import pyarrow as pa

    if type_name == "json":
        values = [None if v is None else json.dumps(v, sort_keys=True) for v in values]
    return pa.array(values, type=_arrow_type(type_name))


def _param_columns(ctx: Context, params: dict, n: int) -> dict:
    return {p: _column([params.get(p)] * n, ctx.param_types.get(p, "json")) for p in ctx.params}


def table_for(name: str, rows: list[dict], key: str, seed: int, params: dict, ctx: Context):
    """One result table of one run as a pyarrow Table: run_key, sweep, seed, params, columns."""
    import pyarrow as pa

    n = len(rows)
    cols = {"run_key": _column([key] * n, STR), "sweep": _column([ctx.sweep] * n, STR),
            "seed": _column([seed] * n, I64)}
    cols.update(_param_columns(ctx, params, n))
    names = list(COLUMNS[name])
    if rows:
        names += [c for c in rows[0] if c not in names]
    types = COLUMN_TYPES.get(name, {})
    for c in names:
        if c in cols:
            continue
        values = [r.get(c) for r in rows]
        cols[c] = _column(values, types.get(c) or (I64 if name == "nodes" and c in COLUMNS["nodes"] else _infer(values)))
    return pa.table(cols)


def runs_table(raw: dict, key: str, seed: int, params: dict, scenario_toml: str, ctx: Context):
    import pyarrow as pa

    cols = {"run_key": _column([key], STR), "sweep": _column([ctx.sweep], STR), "seed": _column([seed], I64)}
    cols.update(_param_columns(ctx, params, 1))
    values = {"status": "ok", "events": raw["events"], "sim_time_s": raw["sim_time_s"],
              "wall_time_s": raw["wall_time_s"], "ncmesh_version": ctx.version,
              "scenario_toml": scenario_toml,
              "params_json": json.dumps(params, separators=(",", ":"))}
    for c in RUN_COLUMNS_AFTER:
        cols[c] = _column([values[c]], RUN_TYPES[c])
    return pa.table(cols)


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


def atomic_write(path: Path, write: Callable[[Any], None], fsync: bool = True) -> None:
    """Writes `path` via a temporary '.<name>.<random>.tmp' in the same folder: write(f),
    flush, fsync, os.replace. A reader (or a crash) never sees a partial `path`."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_parquet(path: Path, table, fsync: bool = True) -> None:
    data = _encode(table)
    atomic_write(path, lambda f: f.write(data), fsync)


def write_text(path: Path, text: str, fsync: bool = True) -> None:
    atomic_write(path, lambda f: f.write(text.encode("utf-8")), fsync)


# ---------------------------------------------------------------- the directory


def prepare(out_dir: str | os.PathLike, sweep_toml: str) -> Path:
    """Creates DIR and its table folders, writes DIR/sweep.toml; returns DIR."""
    out = Path(out_dir)
    for sub in ALL_TABLES + (ERRORS,):
        (out / sub).mkdir(parents=True, exist_ok=True)
    write_text(out / "sweep.toml", sweep_toml)
    return out


def done_keys(out_dir: str | os.PathLike) -> set[str]:
    """The keys of the runs that are done (DIR/runs/<key>.parquet exists)."""
    folder = Path(out_dir) / RUNS
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return set()
    return {n[: -len(SUFFIX)] for n in names if n.endswith(SUFFIX) and not n.startswith(".")}


def remove_stale_temporaries(out_dir: str | os.PathLike, older_than_s: float = 3600.0) -> int:
    """Deletes temporary files left by killed writers (older than `older_than_s`)."""
    now = time.time()
    removed = 0
    for sub in ALL_TABLES + (ERRORS,):
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
    only, which release the GIL: it can run on another thread while the next run
    simulates)."""

    def __init__(self, ctx: Context, key: str, tables: list[tuple[Path, Any]], runs: tuple[Path, Any]):
        self.ctx, self.key = ctx, key
        self.tables = tables            # (final path, Parquet bytes) of the four tables
        self.runs = runs                # the same for runs/<key>.parquet, written last

    def commit(self) -> None:
        """Data files: written to temporaries, fsync'ed, renamed, their folders fsync'ed;
        then the runs file the same way: a run is done only when all its files are."""
        out = Path(self.ctx.out_dir)
        fsync = self.ctx.fsync
        temporaries = []
        try:
            for final, data in self.tables:
                temporaries.append((_write_temporary(final, data), final))
            for tmp, final in temporaries:
                if fsync:
                    _fsync_path(tmp)
            for tmp, final in temporaries:
                os.replace(tmp, final)
            temporaries = []
            if fsync:
                for name in TABLES:
                    _fsync_dir(out / name)
            final, data = self.runs
            tmp = _write_temporary(final, data)
            temporaries = [(tmp, final)]
            if fsync:
                _fsync_path(tmp)
            os.replace(tmp, final)
            temporaries = []
        finally:
            for tmp, _ in temporaries:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        # (runs/ itself is not fsync'ed: if its rename is lost in a power cut, the run is
        # simply computed again.)
        try:
            os.unlink(out / ERRORS / f"{self.key}.json")
        except FileNotFoundError:
            pass


def _write_temporary(final: Path, data) -> str:
    """`data` in a new temporary file '.<name>.<random>.tmp' next to `final`."""
    fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


def _fsync_path(path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _encode(table):
    """A table as Parquet bytes. Files hold one run each: dictionaries and statistics
    would cost more than they save."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, use_dictionary=False, write_statistics=False)
    return sink.getvalue()


def stage_run(ctx: Context, key: str, seed: int, params: dict, raw: dict, scenario_toml: str) -> PendingRun:
    """Builds a finished run's five tables and encodes them as Parquet."""
    out = Path(ctx.out_dir)
    tables = [(out / name / f"{key}{SUFFIX}", _encode(table_for(name, raw[name], key, seed, params, ctx)))
              for name in TABLES]
    runs = (out / RUNS / f"{key}{SUFFIX}", _encode(runs_table(raw, key, seed, params, scenario_toml, ctx)))
    return PendingRun(ctx, key, tables, runs)


def write_run(ctx: Context, key: str, seed: int, params: dict, raw: dict, scenario_toml: str) -> None:
    """Writes one finished run: the four tables, then runs/<key>.parquet (the 'done' mark),
    then removes an error file left by an earlier failed attempt."""
    stage_run(ctx, key, seed, params, raw, scenario_toml).commit()


def write_error(ctx: Context, key: str, seed: int, params: dict, message: str, error_type: str,
                scenario: Any = None) -> None:
    record = {"run_key": key, "sweep": ctx.sweep, "seed": seed, "params": params,
              "error": message, "error_type": error_type, "ncmesh_version": ctx.version,
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


def _files(folder: Path, keys: set[str] | None) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    out = []
    for n in names:
        if n.startswith(".") or not n.endswith(SUFFIX):
            continue
        if keys is not None and n[: -len(SUFFIX)] not in keys:
            continue
        out.append(str(folder / n))
    return out


def read_table(out_dir: str | os.PathLike, name: str, keys: set[str] | None = None, params: list[str] | None = None):
    """One table of the results directory as a DataFrame (files in run-key order); only
    the runs in `keys` if given. Empty: a frame with the table's columns."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(out_dir)
    files = _files(out / name, keys)
    if not files:
        params = params if params is not None else _grid_keys(out)
        if name == RUNS:
            cols = list(RUN_COLUMNS_BEFORE) + params + list(RUN_COLUMNS_AFTER)
        else:
            cols = list(RUN_COLUMNS_BEFORE) + params + list(COLUMNS[name])
        return pd.DataFrame(columns=cols)
    import pyarrow.dataset as ds

    # Files written by other ncmesh versions may have more or fewer columns: read with
    # the union of the schemas (missing values are null).
    schema = pa.unify_schemas([pq.read_schema(f) for f in files], promote_options="permissive")
    return ds.dataset(files, format="parquet", schema=schema).to_table().to_pandas()


@dataclass
class Results:
    """A sweep's results directory. Tables are pandas DataFrames, read on first access:
    `.runs` (one row per done run), `.flows`, `.nodes`, `.flow_series`, `.node_series`
    (rows of the done runs only), `.errors` (failed runs that have not succeeded since)."""

    path: Path
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def keys(self) -> set[str]:
        return done_keys(self.path)

    def _table(self, name: str):
        if name not in self._cache:
            self._cache[name] = read_table(self.path, name, keys=self.keys, params=self.params)
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
