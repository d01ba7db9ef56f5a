"""`run_sweep()`: runs the missing runs of a sweep on a process pool or on Ray.

The parent expands the sweep as the workers need runs (so they start on the first
runs while the rest is being expanded), skips the runs already done
(DIR/runs/<key>.parquet exists), hands batches of runs to the workers, counts what
comes back and prints a progress line. The workers write every file themselves.

Workers: forked from this process by `forkpool.ForkPool` when it has a single thread
(the `ncmesh sweep` command, a script), else a ProcessPoolExecutor fed by a fork server
(a notebook, a program with threads), or Ray tasks.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _core
from ..scenario import uncoded_udp_note
from . import identity
from .progress import PartProgress, SweepProgress
from .spec import RunSpec, Sweep, load_sweep
from .store import (SEEDS_RECORD, Context, Donors, done_keys, pack_bundles, prepare, read_metrics,
                    remove_stale_temporaries, tidy, write_error, write_text)
from .worker import Outcome, Packed, finish_worker, init_worker, run_batch

# A batch should keep a worker busy for about this long: long enough that the cost of a
# task (pickling, a round trip) is small, short enough for smooth progress and load balance.
BATCH_TARGET_S = 0.5
MAX_BATCH = 64


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


@dataclass
class SweepReport:
    """What `run_sweep` did. done: runs computed now; skipped: already done before;
    failed: runs that failed (see DIR/errors/); wall_s: elapsed seconds."""

    done: int
    skipped: int
    failed: int
    wall_s: float
    total: int = 0
    sim_s: float = 0.0                 # summed time inside the simulator (all workers)
    recomputed: int = 0                # runs of another simulator build, deleted and run again
    jobs: int = 1
    errors: dict[str, str] = field(default_factory=dict)   # run key -> one-line error
    out_dir: Path | None = None
    # One line per thing a user should know about the runs (a scheme that codes only TCP
    # with a UDP flow: `ncmesh.scenario.uncoded_udp_note`, with how many runs it concerns)
    notes: list[str] = field(default_factory=list)
    # With a seed rule: per grid point, (params, seeds used, whether the target was met).
    seeds_used: list[tuple[dict, int, bool]] | None = None
    shared: int = 0                    # runs whose rows were copied from a `share` directory

    @property
    def ok(self) -> bool:
        return self.failed == 0


class _Source:
    """The runs to compute, expanded from the sweep as they are needed, so that the
    workers start on the first runs while the rest are still being expanded. Runs done
    before (DIR/runs/<key>.parquet exists) and repeated keys are skipped. `prefetch`
    expands ahead while the parent would otherwise wait, so that a batch is ready when
    a worker asks for one."""

    def __init__(self, runs, expected: int, done_before: set[str], borrow=None):
        # Not kept: each run is let go once its batch is done.
        self._runs = iter(runs)
        self.expected = expected            # runs to expand, before de-duplication
        self.expanded = 0
        self.ready: deque[RunSpec] = deque()   # expanded, to compute, not handed out yet
        self.keys: set[str] = set()
        self.done_before = done_before
        self.skipped = 0
        self.borrow = borrow                 # spec -> True if its rows were copied from another part
        self.shared = 0                      # runs whose rows were copied (`borrow`)
        self.exhausted = False
        self.udp_note: str | None = None     # the first run's, if any run has one
        self.udp_noted = 0                   # runs that have one

    def notes(self) -> list[str]:
        if not self.udp_note:
            return []
        return [f"{self.udp_note} ({self.udp_noted} of {len(self.keys)} runs)"]

    def _expand_one(self) -> RunSpec | None:
        """The next run to compute from the sweep, or None when there is none left."""
        while not self.exhausted:
            spec = next(self._runs, None)
            if spec is None:
                self.exhausted = True
                break
            self.expanded += 1
            if spec.key in self.keys:
                continue
            self.keys.add(spec.key)
            if spec.error is None:
                note = uncoded_udp_note(spec.scenario)
                if note:
                    self.udp_note, self.udp_noted = self.udp_note or note, self.udp_noted + 1
            if spec.key in self.done_before:
                self.skipped += 1
                continue
            if self.borrow is not None and spec.error is None and self.borrow(spec):
                self.shared += 1
                continue
            return spec
        return None

    def next(self) -> RunSpec | None:
        """The next run to compute, or None when there is none left."""
        if self.ready:
            return self.ready.popleft()
        return self._expand_one()

    def prefetch(self, want: int, at_most: int = 8) -> bool:
        """Expands up to `at_most` runs ahead, until `want` are ready; False when there
        is nothing (more) to do."""
        for _ in range(at_most):
            if len(self.ready) >= want:
                return False
            spec = self._expand_one()
            if spec is None:
                return False
            self.ready.append(spec)
        return len(self.ready) < want and not self.exhausted

    @property
    def left(self) -> int:
        """Runs not handed out yet (an upper bound of those still to compute)."""
        return len(self.ready) + (0 if self.exhausted else self.expected - self.expanded)

    @property
    def total(self) -> int:
        """Distinct runs of the sweep (exact once exhausted; an estimate before)."""
        return len(self.keys) + (0 if self.exhausted else self.expected - self.expanded)


class _Batcher:
    """Cuts the runs into batches sized from the measured time per run."""

    def __init__(self, source: _Source, workers: int):
        self.source = source
        self.retries: deque[RunSpec] = deque()    # runs whose worker died: one at a time
        self.workers = max(1, workers)
        self.measured_s = 0.0
        self.measured_n = 0

    def record(self, outcomes: list[Outcome]) -> None:
        for o in outcomes:
            self.measured_s += o.total_s
            self.measured_n += 1

    def next(self) -> tuple[list[RunSpec], bool]:
        """The next batch (empty when there is no run left) and whether it is a retry
        (retries go one run at a time)."""
        if self.retries:
            return [self.retries.popleft()], True
        size = self.size()
        batch: list[RunSpec] = []
        while len(batch) < size:
            spec = self.source.next()
            if spec is None:
                break
            batch.append(spec)
        return batch, False

    def size(self) -> int:
        """The size of the next batch."""
        if not self.measured_n:
            return 1
        per_run = max(self.measured_s / self.measured_n, 1e-6)
        size = int(BATCH_TARGET_S / per_run)
        # Leave enough batches for every worker to the end (load balance: a worker has up
        # to two batches queued, so the last ones must be small).
        size = min(size, math.ceil(self.source.left / (3 * self.workers)))
        return max(1, min(MAX_BATCH, size))

    def retry_first(self, specs: list[RunSpec]) -> None:
        for spec in reversed(specs):
            self.retries.appendleft(spec)


class _Tally:
    def __init__(self, out: Path, ctx: Context, progress: PartProgress, source: _Source):
        self.out, self.ctx, self.progress, self.source = out, ctx, progress, source
        self.done = self.failed = 0
        self.sim_s = 0.0
        self.errors: dict[str, str] = {}

    def sync(self) -> None:
        """Brings the progress line's total and skipped count up to date."""
        self.progress.total = self.source.total
        self.progress.skipped = self.source.skipped + self.source.shared

    def add(self, outcomes: list[Outcome]) -> None:
        for o in outcomes:
            self.sim_s += o.sim_s
            if o.ok:
                self.done += 1
            else:
                self.failed += 1
                self.errors[o.key] = o.error or "failed"
        self.tick()

    def tick(self, force: bool = False) -> None:
        self.sync()
        self.progress.update(self.done, self.failed, force)

    def lost(self, specs: list[RunSpec], why: str) -> None:
        """Runs whose worker died: failed unless their files made it to disk."""
        done = done_keys(self.out)
        outcomes = []
        for spec in specs:
            if spec.key in done:
                outcomes.append(Outcome(spec.key, True, None, 0.0, 0.0))
                continue
            try:
                write_error(self.ctx, spec.key, spec.seed, spec.params, why, "WorkerDied", spec.scenario)
            except OSError:
                pass
            outcomes.append(Outcome(spec.key, False, why, 0.0, 0.0))
        self.add(outcomes)


def _not_done(specs: list[RunSpec], out: Path) -> list[RunSpec]:
    done = done_keys(out)
    return [s for s in specs if s.key not in done]


def run_sweep(
    sweep: Sweep | str | os.PathLike | dict,
    out_dir: str | os.PathLike | None = None,
    jobs: int | None = None,
    ray: Any = None,
    progress: bool | SweepProgress = True,
    fsync: bool = False,
    share=None,
    pack: bool = True,
) -> SweepReport:
    """Runs every run of `sweep` that is not done yet in `out_dir` (default
    results/<name>) and returns a SweepReport.

    jobs: worker processes (default: all cores; with Ray: the CPUs of a local instance).
    ray: None = local process pool; True or "local" = start a local Ray instance; any
    other string = the address of a running Ray cluster (e.g. "auto", "ray://host:10001";
    DIR must then be on a filesystem shared by all nodes). progress: True shows this
    sweep's progress on stderr (a bar on a terminal, lines otherwise), False nothing, a
    `SweepProgress` adds this sweep to that display (several sweeps, one bar: `ncmesh
    reproduce`). A failed run is recorded in
    DIR/errors/ and counted; the sweep goes on. Ctrl-C stops the workers; finished runs
    stay on disk, and calling run_sweep again computes only the missing ones.

    share: other results directories (the other parts of a reproduction): a run done
    there by this build of the simulator (same run key: same resolved scenario) is not
    run again, its rows are copied in with this sweep's params (`store.Donors`).

    pack: the workers pack the runs they finish into one file per table (store.py);
    False keeps one file per run and table (slower to read back).
    """
    if _in_worker_main_import():
        raise RuntimeError(
            "run_sweep() was called while a worker process was importing the main module: "
            "call it under `if __name__ == \"__main__\":` (worker processes import the main "
            "script, as with any multiprocessing code that does not fork)")
    t0 = time.monotonic()
    if not isinstance(sweep, Sweep):
        sweep = load_sweep(sweep)
    if jobs is not None and jobs < 1:
        raise ValueError("jobs must be at least 1")
    out = Path(out_dir) if out_dir is not None else Path("results") / sweep.name
    # The directory must belong to this sweep definition and this build of the core
    # (identity.py): another definition is refused, runs of another build recomputed.
    definition, build = sweep.definition(), _core.build_id()
    state = identity.inspect(out, definition, build, sweep.to_toml(), len(done_keys(out)))
    recomputed = identity.claim(out, state, definition, build, _core.version(), fsync)
    if recomputed:
        print(f"sweep {sweep.name}: {out}: {recomputed} runs not reused: {state.why}; "
              "computing them again", file=sys.stderr, flush=True)
    out = prepare(out, sweep.to_toml(), fsync).resolve()
    remove_stale_temporaries(out)
    tidy(out)

    ctx = Context(out_dir=str(out), sweep=sweep.name, params=sweep.params,
                  param_types=dict(sweep.param_types), version=_core.version(), fsync=fsync,
                  core_build=build, sweep_id=identity.definition_id(definition),
                  pack=pack, session=os.urandom(8).hex())
    workers = jobs or os.cpu_count() or 1
    donors = Donors([d for d in share or [] if Path(d).resolve() != out], build) if share else None
    borrow = (lambda spec: donors.take(ctx, spec.key, spec.seed, spec.params)) if donors and donors.dirs else None
    if isinstance(progress, SweepProgress):
        overall, owns = progress, False
    else:
        overall = SweepProgress(len(sweep), label=f"sweep {sweep.name}") if progress else None
        owns = True
    if sweep.seed_rule is None:
        # Two grid points may resolve to the same scenario: it runs (and is stored) once.
        source = first = _Source(sweep.iter_runs(keep=False), len(sweep), done_keys(out), borrow)
        rounds = None
    else:
        # The record of the seeds used is written when every cell is decided.
        (out / SEEDS_RECORD).unlink(missing_ok=True)
        rounds = _Rounds(sweep, out, borrow)
        source = rounds.next_round()
    bar = PartProgress(sweep.name, len(sweep), overall, owns)
    tally = _Tally(out, ctx, bar, rounds if rounds is not None else source)
    interrupted = True
    used_workers = 1
    notes: list[str] = []
    # One set of worker processes for every round of the seed rule, as many as the runs
    # the sweep may need (with a rule: every grid point at its most seeds).
    pool = _Workers(min(workers, max(1, len(sweep)))) if source is not None else None
    try:
        while source is not None:
            if ray is None or ray is False:
                used_workers = pool.size
                _run_pool(source, ctx, pool, tally)
            else:
                used_workers = _run_ray(source, ctx, jobs, ray, tally)
            notes += [n for n in source.notes() if n not in notes]
            source = rounds.next_round() if rounds is not None else None
        if pool is not None:
            pool.close()      # (its workers pack the runs they hold as they exit)
        interrupted = False
        if pack:
            # Runs copied from other directories, and any a worker could not pack, wait in
            # bundles: pack them now, so that the folders read as tables.
            pack_bundles(out, fsync)
    except BaseException:
        if pool is not None:
            pool.terminate()
        raise
    finally:
        tally.sync()
        exact = (rounds.total if rounds.finished else None) if rounds is not None else \
            (len(first.keys) if first.exhausted else None)
        bar.close(exact_total=exact, interrupted=interrupted)
    if rounds is not None:
        rounds.write_record()
        total, skipped, shared = rounds.total, rounds.skipped, rounds.shared
    else:
        total, skipped, shared = len(first.keys), first.skipped, first.shared
    return SweepReport(done=tally.done, skipped=skipped, failed=tally.failed,
                       wall_s=time.monotonic() - t0, total=total, sim_s=tally.sim_s,
                       jobs=used_workers, errors=tally.errors, out_dir=out, recomputed=recomputed,
                       notes=notes, seeds_used=rounds.seeds_used() if rounds is not None else None,
                       shared=shared)


class _Rounds:
    """A sweep with a seed rule (`SeedRule`), run in rounds: the first round is every
    cell's first n_min seeds; after each round, every cell still open is judged on its
    first n runs (n a checkpoint of the rule), and one that has not met the target gets
    the seeds up to the next checkpoint in the next round. Runs done before (a resumed
    sweep) are read back, not run again, so an interrupted sweep resumes exactly: the
    decisions depend only on the runs' results."""

    def __init__(self, sweep: Sweep, out: Path, borrow=None):
        self.sweep, self.out, self.rule, self.borrow = sweep, out, sweep.seed_rule, borrow
        self.cells = sweep.cells()          # each cell's runs expanded as the rounds need them
        self.n = [self.rule.n_min] * len(self.cells)      # seeds each cell uses so far
        self.open = list(range(len(self.cells)))           # cells not judged finished
        self.met: dict[int, bool] = {}
        self.sources: list[_Source] = []
        self.finished = False
        self._values: dict[str, float | None] = {}
        self._keys: set[str] = set()      # the distinct runs of the rounds so far...
        self._unseen = 0                  # ...and those not expanded yet

    def _specs(self, cells, start):
        """The runs of `cells` from their seed `start` to their count so far, expanded as the
        workers take them; and how many there are."""
        count = sum(self.n[c] - n0 for c, n0 in zip(cells, start))
        self._unseen += count

        def runs():
            for c, n0 in zip(cells, start):
                for spec in self.cells[c][1][n0:self.n[c]]:
                    self._keys.add(spec.key)
                    self._unseen -= 1
                    yield spec
        return runs(), count

    def next_round(self) -> _Source | None:
        """The next round's runs, or None when every cell is decided."""
        if not self.sources:
            specs, count = self._specs(self.open, [0] * len(self.open))
        else:
            grown, start = [], []
            self._read([spec.key for c in self.open for spec in self.cells[c][1][:self.n[c]]])
            for c in self.open:
                values = [self.value(spec) for spec in self.cells[c][1][:self.n[c]]]
                if self.rule.met(values) or self.n[c] >= self.rule.n_max:
                    self.met[c] = self.rule.met(values)
                    continue
                start.append(self.n[c])
                self.n[c] = next(k for k in self.rule.checkpoints() if k > self.n[c])
                grown.append(c)
            self.open = grown
            specs, count = self._specs(grown, start)
        if not self.open:
            self.finished = True
            return None
        source = _Source(specs, count, done_keys(self.out), self.borrow)
        self.sources.append(source)
        return source

    def _read(self, keys: list[str]) -> None:
        """Reads the rule's metric of the runs not read yet (each file once)."""
        missing = [k for k in dict.fromkeys(keys) if k not in self._values]
        if missing:
            self._values.update(read_metrics(self.out, missing, self.rule.metric))

    def value(self, spec: RunSpec) -> float | None:
        """The rule's metric of a done run (the total over its flows), None if it failed."""
        self._read([spec.key])
        return self._values[spec.key]

    @property
    def total(self) -> int:
        """Distinct runs the cells use so far (the progress total; exact once every run
        handed out has been expanded, an estimate before)."""
        return len(self._keys) + self._unseen

    @property
    def skipped(self) -> int:
        return sum(s.skipped for s in self.sources)

    @property
    def shared(self) -> int:
        return sum(s.shared for s in self.sources)

    def notes(self) -> list[str]:
        return []

    def seeds_used(self) -> list[tuple[dict, int, bool]]:
        return [(params, self.n[c], self.met.get(c, False)) for c, (params, _) in enumerate(self.cells)]

    def write_record(self) -> None:
        """DIR/seeds.json: the rule and, per cell, its params, the seeds it used and their run
        keys (readers keep those runs only), once every cell is decided."""
        if not self.finished:
            return
        cells = [{"params": params, "seeds": self.n[c], "met": self.met.get(c, False),
                  "run_keys": [s.key for s in specs[:self.n[c]]]} for c, (params, specs) in enumerate(self.cells)]
        write_text(self.out / SEEDS_RECORD, json.dumps({"rule": self.rule.as_dict(), "cells": cells},
                                                        indent=1, default=str) + "\n", False)


# ---------------------------------------------------------------- process pool


# A pool that breaks this many times in a row without finishing any batch is given up.
MAX_BREAKS_WITHOUT_PROGRESS = 3


def _in_worker_main_import() -> bool:
    """True inside a worker's start-up re-import of the parent's main script."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name in ("_fixup_main_from_path", "_fixup_main_from_name") and "multiprocessing" in code.co_filename:
            return True
        frame = frame.f_back
    return False



def _single_threaded() -> bool:
    """True if this process has exactly one OS thread (Linux: /proc/self/task), so that
    fork() is safe: no other thread can hold a lock the child would inherit."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _pool(workers: int):
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    # forkserver: workers are forked from a clean server process that has imported the
    # simulator once, so they never inherit the parent's threads (fork can deadlock).
    try:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["ncmesh.sweep._preload"])
    except ValueError:
        ctx = mp.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=init_worker)


def _stop_pool(pool) -> None:
    """Cancels what has not started and terminates the workers (Ctrl-C)."""
    procs = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs.values():
        try:
            p.terminate()
        except Exception:  # noqa: BLE001
            pass
    for p in procs.values():
        try:
            p.join(timeout=5)
        except Exception:  # noqa: BLE001
            pass


class _Workers:
    """The worker processes of one sweep, started with its first batch and kept from one
    round of its seed rule to the next (starting them again for each round cost a fork
    server's start-up and a pack per worker and table each time). Forked from this
    process (`forkpool.ForkPool`) only while it has a single thread: once it has more (the
    rounds read the rule's metric with pyarrow, which starts threads), forked workers are
    let go before the next round, since a worker lost later would be replaced by fork,
    and a ProcessPoolExecutor fed by a fork server takes over."""

    def __init__(self, size: int):
        self.size = size
        self.pool = None
        self.forked = False

    def forked_now(self) -> bool:
        """Whether this round's batches go to forked workers (else to the executor)."""
        if self.pool is not None and self.forked and not _single_threaded():
            self.close()
        if self.pool is None:
            self.forked = _single_threaded()
        return self.forked

    def start(self):
        """The pool, started if it is not running."""
        if self.pool is None:
            if self.forked:
                from .forkpool import ForkPool

                # (Its workers pack their runs when they exit: `finish_worker`.)
                self.pool = ForkPool(self.size, init_worker, finish_worker)
            else:
                # (Its workers pack their runs when they exit after its shutdown:
                # `init_worker` registers `finish_worker` with multiprocessing.)
                self.pool = _pool(self.size)
        return self.pool

    def replace(self):
        """A new executor in place of a broken one (its workers died)."""
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = _pool(self.size)
        return self.pool

    def close(self) -> None:
        """Lets the workers finish and exit (packing what they hold); waits for them (both
        kinds of pool wait in `shutdown()`)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown()

    def terminate(self) -> None:
        """Stops the workers now (Ctrl-C, an error)."""
        pool, self.pool = self.pool, None
        if pool is None:
            return
        if self.forked:
            pool.terminate()
        else:
            _stop_pool(pool)


def _run_pool(source: _Source, ctx: Context, workers: _Workers, tally: _Tally) -> None:
    """Runs the batches on worker processes: forked directly from this process when it
    has a single thread (the `ncmesh sweep` command, a script), else (a notebook, a
    program with threads, where fork can deadlock) on a ProcessPoolExecutor whose
    workers come from a fork server."""
    if workers.forked_now():
        _run_forked(source, ctx, workers, tally)
    else:
        _run_executor(source, ctx, workers, tally)


def _run_forked(source: _Source, ctx: Context, workers: _Workers, tally: _Tally) -> None:
    from .forkpool import WorkerDied

    batcher = _Batcher(source, workers.size)
    inflight: dict[int, tuple[list[RunSpec], bool]] = {}
    dead: set[int] = set()            # workers that died since a batch last finished
    while True:
        while len(inflight) < 2 * workers.size:
            batch, retry = batcher.next()
            if not batch:
                break
            if workers.pool is None:
                tally.tick(force=True)
            inflight[workers.start().submit(run_batch, Packed(batch), ctx)] = (batch, retry)
        if not inflight:
            break
        # Expand the next batches while the workers are busy (a little at a time,
        # looking for answers in between), then wait.
        more = source.prefetch(2 * batcher.size())
        finished = workers.pool.wait(timeout=0.0 if more else 1.0)
        for task, ok, value in finished:
            batch, retry = inflight.pop(task)
            if ok:
                batcher.record(value)
                tally.add(value)
                dead.clear()
            elif isinstance(value, WorkerDied):
                # Its runs are tried again one by one (a run that kills its worker
                # twice is recorded as failed).
                dead.add(value.pid)
                _lost(batch, retry, batcher, tally, ctx)
            else:
                tally.lost(batch, f"worker task failed: {' '.join(str(value).split()) or type(value).__name__}")
        if not finished and not more:
            tally.tick()
        if len(dead) >= MAX_BREAKS_WITHOUT_PROGRESS:
            raise RuntimeError("the worker processes keep dying before finishing any run (out of memory?)")


def _run_executor(source: _Source, ctx: Context, workers: _Workers, tally: _Tally) -> None:
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    batcher = _Batcher(source, workers.size)
    inflight: dict = {}
    breaks = 0
    while True:
        while len(inflight) < 2 * workers.size:
            batch, retry = batcher.next()
            if not batch:
                break
            if workers.pool is None:
                tally.tick(force=True)
            inflight[workers.start().submit(run_batch, Packed(batch), ctx)] = (batch, retry)
        if not inflight:
            break
        finished, _ = wait(list(inflight), timeout=1.0, return_when=FIRST_COMPLETED)
        broken = False
        for fut in finished:
            batch, retry = inflight.pop(fut)
            try:
                outcomes = fut.result()
            except BrokenProcessPool:
                broken = True
                _lost(batch, retry, batcher, tally, ctx)
                continue
            except Exception as e:  # noqa: BLE001 - e.g. a batch that cannot be pickled
                tally.lost(batch, f"worker task failed: {' '.join(str(e).split()) or type(e).__name__}")
                continue
            batcher.record(outcomes)
            tally.add(outcomes)
            breaks = 0
        if not finished:
            tally.tick()
        if broken:
            breaks += 1
            if breaks >= MAX_BREAKS_WITHOUT_PROGRESS:
                raise RuntimeError(
                    "the worker processes keep dying before finishing any run (out of memory? "
                    "a script that calls run_sweep without `if __name__ == \"__main__\":`?)")
            # Every other batch in flight died with the pool: retry those runs one by one.
            for fut, (batch, retry) in list(inflight.items()):
                _lost(batch, retry, batcher, tally, ctx)
            inflight.clear()
            workers.replace()


def _lost(batch: list[RunSpec], retry: bool, batcher: _Batcher, tally: _Tally, ctx: Context) -> None:
    missing = _not_done(batch, Path(ctx.out_dir))
    keys = {s.key for s in missing}
    tally.add([Outcome(s.key, True, None, 0.0, 0.0) for s in batch if s.key not in keys])
    if retry:
        tally.lost(missing, "worker process died while running this scenario")
    else:
        batcher.retry_first(missing)


# ---------------------------------------------------------------- Ray


def _run_ray(source: _Source, ctx: Context, jobs: int | None, address: Any, tally: _Tally) -> int:
    import logging

    try:
        import ray
    except ImportError:
        raise RayUnavailable("Ray is not installed: pip install 'ncmesh[ray]' (or pip install ray)") from None

    # (Ray's workers outlive the sweep: the runs they still hold at its end wait in
    # bundles, which run_sweep packs.)
    started = False
    if not ray.is_initialized():
        kwargs = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        local = address is True or address in ("local", "")
        try:
            if local:
                ray.init(address="local", num_cpus=jobs or os.cpu_count() or 1, **kwargs)
            else:
                ray.init(address=str(address), **kwargs)
        except Exception as e:  # noqa: BLE001 - connection refused, bad address, ...
            where = "start a local Ray instance" if local else f"connect to the Ray cluster at {address}"
            raise RayUnavailable(f"could not {where}: {' '.join(str(e).split()) or type(e).__name__}") from None
        started = True
    try:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(num_cpus=1, max_retries=3)(run_batch)
        batcher = _Batcher(source, workers)
        inflight: dict = {}
        try:
            while True:
                while len(inflight) < 2 * workers:
                    batch, retry = batcher.next()
                    if not batch:
                        break
                    if tally.done + tally.failed + len(inflight) == 0:
                        tally.tick(force=True)
                    inflight[remote.remote(Packed(batch), ctx)] = (batch, retry)
                if not inflight:
                    break
                ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
                for ref in ready:
                    batch, retry = inflight.pop(ref)
                    try:
                        outcomes = ray.get(ref)
                    except Exception as e:  # noqa: BLE001 - a worker or node lost for good
                        why = f"Ray task failed: {' '.join(str(e).split())[:300] or type(e).__name__}"
                        missing = _not_done(batch, Path(ctx.out_dir))
                        keys = {s.key for s in missing}
                        tally.add([Outcome(s.key, True, None, 0.0, 0.0) for s in batch if s.key not in keys])
                        tally.lost(missing, why)
                        continue
                    batcher.record(outcomes)
                    tally.add(outcomes)
                if not ready:
                    tally.tick()
        except BaseException:
            for ref in inflight:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001
                    pass
            raise
        return workers
    finally:
        if started:
            ray.shutdown()
