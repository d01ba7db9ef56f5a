"""What runs in a worker process (process pool or Ray): simulate a batch of runs and
write each one's files as soon as it finishes, so a finished run is on disk even if
the parent dies; then pack them (store.write_pack): the worker keeps the columns of the
runs it finished and writes them as one file per table every PACK_RUNS runs and when it
exits (a Ray worker lives on: run_sweep packs what it still holds when the sweep ends).

The calling thread simulates a run and gets its four result tables back as Parquet
bytes in the same call (`_core.run_parquet`: no Python objects per row, no pyarrow),
adds the one-row runs table and writes the files: under temporary names, then renamed
into place, the runs file last. Without fsync that is a few system calls and happens
right there. With fsync, a few I/O threads write the files while the next run
simulates: several threads waiting on fsync at once let the filesystem commit their
files together, and they hold the GIL for almost nothing.
"""

from __future__ import annotations

import gc
import signal
import time
from typing import TYPE_CHECKING, NamedTuple

from .spec import RunSpec
from .store import (CREATED_BY, PACK_CELLS, PACK_RUNS, TABLE_SPECS, Context, PendingRun, key_prefix, pack_groups,
                    stage_run, write_error, write_pack)

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

IO_THREADS = 4


class Outcome(NamedTuple):
    key: str
    ok: bool
    error: str | None      # one line, when not ok
    sim_s: float           # time inside the simulator call (ncmesh._core.run_parquet)
    total_s: float         # the run's share of the worker's time (simulation + writing)


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__


def init_worker() -> None:
    """Pool worker start-up: Ctrl-C goes to the parent only (it stops the workers), and
    the heavy imports happen once, before the first run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the command's SIGTERM handler; the parent stops its
    # workers with SIGTERM, which must simply end them.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from . import _preload  # noqa: F401

    # A ProcessPoolExecutor's worker runs multiprocessing's finalizers when it exits
    # after the pool's shutdown (not when terminated): its last runs are packed then. (A
    # ForkPool worker calls finish_worker itself and leaves by os._exit.)
    from multiprocessing.util import Finalize

    Finalize(None, finish_worker, exitpriority=10)

    # Everything this worker inherited (or just imported) stays alive to the end: keep
    # the garbage collector's full passes off it. In a forked worker those passes would
    # also write to every inherited object and so copy the memory pages it still shares
    # with the parent.
    gc.freeze()


_io: ThreadPoolExecutor | None = None


def _io_pool() -> ThreadPoolExecutor:
    """The I/O threads (with fsync only; made on first use, in the worker)."""
    global _io
    if _io is None:
        from concurrent.futures import ThreadPoolExecutor

        _io = ThreadPoolExecutor(IO_THREADS, thread_name_prefix="ncmesh-sweep-io")
    return _io


def _failed(spec: RunSpec, ctx: Context, e: BaseException, sim_s: float) -> Outcome:
    message = _one_line(e)
    error_type = "ScenarioError" if isinstance(e, _PreparedError) else type(e).__name__
    try:
        write_error(ctx, spec.key, spec.seed, spec.params, message, error_type, spec.scenario)
    except Exception as e2:  # noqa: BLE001
        message += f" (and the error file could not be written: {_one_line(e2)})"
    return Outcome(spec.key, False, message, sim_s, 0.0)


def _commit(spec: RunSpec, ctx: Context, pending: PendingRun, sim_s: float) -> Outcome:
    try:
        pending.commit()
    except Exception as e:  # noqa: BLE001
        return _failed(spec, ctx, e, sim_s)
    return Outcome(spec.key, True, None, sim_s, 0.0)


def _stage(spec: RunSpec, ctx: Context) -> tuple[PendingRun, float]:
    """Simulates one run and encodes its five files (not written yet); also returns the
    time spent in the simulator call."""
    from .. import _core

    if spec.error is not None:
        raise _PreparedError(spec.error)
    prefix = key_prefix(ctx, spec.key, spec.seed, spec.params)
    t = time.perf_counter()
    try:
        # Simulates and encodes the four tables as Parquet in one call (the runs table,
        # one row, is made here).
        raw = _core.run_parquet(spec.scenario, prefix, TABLE_SPECS, CREATED_BY, keep_parts=ctx.pack)
    except TypeError:              # a param value the encoder does not take: tables in Python
        t = time.perf_counter()
        raw = _core.run_columns(spec.scenario)
    sim_s = time.perf_counter() - t
    return stage_run(ctx, spec.key, spec.seed, spec.params, raw), sim_s


def run_one(spec: RunSpec, ctx: Context) -> Outcome:
    """One run, simulated and written on the calling thread."""
    try:
        pending, sim_s = _stage(spec, ctx)
    except Exception as e:  # noqa: BLE001 - every failure is recorded, the sweep goes on
        return _failed(spec, ctx, e, 0.0)
    return _commit(spec, ctx, pending, sim_s)


class Packed:
    """A batch of runs as it travels to a worker: pickled and compressed (zlib level 1).
    The runs of a sweep differ in a few values, so a batch of 25 resolved scenarios
    (about 50 kB pickled) becomes about 3 kB, in 0.05 ms: it fits in a pipe's buffer and
    costs the parent and Ray little to move."""

    __slots__ = ("data",)

    def __init__(self, specs: list[RunSpec]):
        import pickle
        import zlib

        self.data = zlib.compress(pickle.dumps(specs, protocol=pickle.HIGHEST_PROTOCOL), 1)

    def __getstate__(self):
        return self.data

    def __setstate__(self, data):
        self.data = data

    def unpack(self) -> list[RunSpec]:
        import pickle
        import zlib

        return pickle.loads(zlib.decompress(self.data))


def run_batch(specs: list[RunSpec] | Packed, ctx: Context) -> list[Outcome]:
    """Runs the specs one after the other; each run's files are put in place as soon as
    it ends. Returns when every file of the batch is in place."""
    t_start = time.perf_counter()
    if isinstance(specs, Packed):
        specs = specs.unpack()
    io = _io_pool() if ctx.fsync else None
    results: list = []                 # Outcome, or a Future of one (fsync)
    staged: list = []                  # the PendingRun of each result, or None
    for spec in specs:
        try:
            pending, sim_s = _stage(spec, ctx)
        except Exception as e:  # noqa: BLE001
            results.append(_failed(spec, ctx, e, 0.0))
            staged.append(None)
            continue
        if io is None:
            results.append(_commit(spec, ctx, pending, sim_s))
        else:
            results.append(io.submit(_commit, spec, ctx, pending, sim_s))
        staged.append(pending)
    outcomes = [r if isinstance(r, Outcome) else r.result() for r in results]
    if ctx.pack:
        _keep([p for p, o in zip(staged, outcomes) if p is not None and o.ok], ctx)
    # Share the batch's elapsed time among its runs (for the batch size estimate).
    each = (time.perf_counter() - t_start) / max(1, len(outcomes))
    return [o._replace(total_s=each) for o in outcomes]


# ---------------------------------------------------------------- packs

# The committed runs not packed yet, per results directory: (the context, [PendingRun]).
_unpacked: dict[str, tuple[Context, list[PendingRun]]] = {}


def _keep(runs: list[PendingRun], ctx: Context) -> None:
    """Holds committed runs for a pack; writes the pack when it is due."""
    held_ctx, held = _unpacked.setdefault(ctx.out_dir, (ctx, []))
    if held_ctx.session != ctx.session:
        # Held for an earlier sweep (a Ray worker lives on): that sweep packed their
        # bundles when it ended.
        held = []
        _unpacked[ctx.out_dir] = (ctx, held)
    for r in runs:
        if r.parts is not None:
            r.tables = r.runs = None       # on disk already: only the columns are needed
            held.append(r)
    cells = sum(r.parts[t].cells for r in held for t in r.parts)
    if len(held) >= PACK_RUNS or cells >= PACK_CELLS:
        _pack(ctx.out_dir)


def _pack(out_dir: str) -> None:
    """Writes the held runs of `out_dir` as packs. A pack that cannot be written leaves
    its runs in their bundles (they stay done, and run_sweep packs them when it ends):
    said on stderr, the sweep goes on."""
    ctx, held = _unpacked.pop(out_dir, (None, []))
    for group in pack_groups(held):
        try:
            write_pack(ctx, group)
        except Exception as e:  # noqa: BLE001
            import sys

            print(f"sweep {ctx.sweep}: {len(group)} runs stay in their bundles; "
                  f"packing them failed: {_one_line(e)}", file=sys.stderr, flush=True)


def finish_worker() -> None:
    """A worker's last step before it exits: packs what it holds."""
    for out_dir in list(_unpacked):
        _pack(out_dir)


class _PreparedError(Exception):
    """A run whose scenario could not be built or resolved when the sweep was expanded."""
