"""What runs in a worker process (process pool or Ray): simulate a batch of runs and
write each one's files as soon as it finishes, so a finished run is on disk even if
the parent dies.

The calling thread simulates a run (the simulator releases the GIL), builds its tables
and writes them under temporary names; a few I/O threads then fsync and rename them
while the next run simulates. Several threads waiting on fsync at once let the
filesystem commit their files together, and the I/O threads hold the GIL for almost
nothing, so they do not slow the simulation down.
"""

from __future__ import annotations

import signal
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import NamedTuple

from .spec import RunSpec
from .store import Context, PendingRun, stage_run, write_error

IO_THREADS = 4


class Outcome(NamedTuple):
    key: str
    ok: bool
    error: str | None      # one line, when not ok
    sim_s: float           # time inside the simulator (ncmesh._core.run)
    total_s: float         # the run's share of the worker's time (simulation + writing)


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__


def init_worker() -> None:
    """Pool worker start-up: Ctrl-C goes to the parent only (it stops the workers), and
    the heavy imports happen once, before the first run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from . import _preload  # noqa: F401


_io: ThreadPoolExecutor | None = None
_io_lock = threading.Lock()


def _io_pool() -> ThreadPoolExecutor:
    global _io
    with _io_lock:
        if _io is None:
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
    """Simulates one run and writes its files under temporary names."""
    from .. import _core

    if spec.error is not None:
        raise _PreparedError(spec.error)
    t = time.perf_counter()
    raw = _core.run(spec.scenario)
    sim_s = time.perf_counter() - t
    return stage_run(ctx, spec.key, spec.seed, spec.params, raw, _core.to_toml(raw["scenario"])), sim_s


def run_one(spec: RunSpec, ctx: Context) -> Outcome:
    """One run, simulated and written on the calling thread."""
    try:
        pending, sim_s = _stage(spec, ctx)
    except Exception as e:  # noqa: BLE001 - every failure is recorded, the sweep goes on
        return _failed(spec, ctx, e, 0.0)
    return _commit(spec, ctx, pending, sim_s)


def run_batch(specs: list[RunSpec], ctx: Context) -> list[Outcome]:
    """Runs the specs one after the other; each run's files are put in place as soon as
    it ends. Returns when every file of the batch is in place."""
    t_start = time.perf_counter()
    io = _io_pool()
    results: list[Outcome | Future] = []
    for spec in specs:
        try:
            pending, sim_s = _stage(spec, ctx)
        except Exception as e:  # noqa: BLE001
            results.append(_failed(spec, ctx, e, 0.0))
            continue
        results.append(io.submit(_commit, spec, ctx, pending, sim_s))
    outcomes = [r.result() if isinstance(r, Future) else r for r in results]
    # Share the batch's elapsed time among its runs (for the batch size estimate).
    each = (time.perf_counter() - t_start) / max(1, len(outcomes))
    return [o._replace(total_s=each) for o in outcomes]


class _PreparedError(Exception):
    """A run whose scenario could not be built or resolved when the sweep was expanded."""
