"""Progress of sweeps: one display over all runs, however many sweeps they come in.

`ncmesh sweep` runs one sweep; `ncmesh reproduce` runs several (one per part of the
experiment) one after the other. A `SweepProgress` made for the total of all of them is
passed to each `run_sweep(..., progress=p)`, so the user sees one picture:

- on a terminal, one tqdm bar over every run to compute, with rate and ETA; runs reused
  from an earlier invocation are not counted as progress (they would make the ETA far
  too short), they are shown beside it, as are failures;
- otherwise (a log file, CI), plain lines on stderr, one per part every 10 s and when the
  part ends, with the overall count and ETA when there are several parts:

      sweep x-buffer: 23/40 runs done (8 done before), 1 failed, 0:12 elapsed, ETA 0:09; all parts: 123/520, ETA 1:10

`run_sweep(progress=True)` makes its own for the one sweep; `progress=False` shows
nothing. tqdm is imported only for a terminal.
"""

from __future__ import annotations

import sys
import time
from typing import Any


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class SweepProgress:
    """Progress over `total` runs of one or more sweeps (grid points x seeds, summed).

    `stream` (default stderr) decides the form: a tqdm bar if it is a terminal, plain
    lines otherwise (`tty` forces either)."""

    def __init__(self, total: int, label: str = "", stream=None, tty: bool | None = None):
        self.total = max(0, int(total))
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.tty = tty
        self.computed = self.failed = self.reused = 0
        self.start = time.monotonic()
        self.parts = 0
        self._bar: Any = None
        self.closed = False

    # --- figures
    @property
    def accounted(self) -> int:
        return self.computed + self.failed + self.reused

    def eta(self) -> str:
        """Time left for the runs still to compute, at the rate so far."""
        left = self.total - self.accounted
        if left <= 0:
            return "0:00"
        done = self.computed + self.failed
        if not done:
            return "?"
        return clock((time.monotonic() - self.start) / done * left)

    # --- what run_sweep reports
    def add(self, computed: int = 0, failed: int = 0, reused: int = 0) -> None:
        self.computed += computed
        self.failed += failed
        self.reused += reused
        if self._bar is not None:
            if reused:
                self._bar.total = max(self._bar.n, self.total - self.reused)
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            self._bar.update(computed + failed)

    def correct_total(self, delta: int) -> None:
        """A part turned out to have `delta` more runs than counted (negative: fewer;
        grid points that resolve to the same scenario run once)."""
        self.total = max(self.accounted, self.total + delta)
        if self._bar is not None:
            self._bar.total = max(self._bar.n, self.total - self.reused)
            self._bar.refresh()
        if self.accounted >= self.total:
            self.close()

    def _postfix(self) -> str:
        bits = []
        if self.reused:
            bits.append(f"{self.reused} reused")
        if self.failed:
            bits.append(f"{self.failed} failed")
        return ", ".join(bits)

    def open_bar(self) -> None:
        """Shows the bar (terminal only), once the first part starts."""
        if not self.tty or self._bar is not None or self.closed:
            return
        import shutil

        from tqdm import tqdm

        # A terminal that reports no width (some ptys) would get an empty bar.
        sized = shutil.get_terminal_size((0, 0)).columns > 0
        self._bar = tqdm(total=max(0, self.total - self.reused), initial=self.computed + self.failed,
                         desc=self.label or "runs", unit="run", file=self.stream,
                         dynamic_ncols=sized, ncols=None if sized else 100,
                         smoothing=0.1, mininterval=0.2, leave=True)
        self._bar.set_postfix_str(self._postfix(), refresh=True)

    def write(self, line: str) -> None:
        """A line for the log (plain mode): printed as is."""
        self.stream.write(line + "\n")
        self.stream.flush()

    def overall(self, part_total: int) -> str:
        """'; all parts: N/T, ETA ...' when this progress covers more than one part."""
        if self.parts <= 1 and self.total <= part_total:
            return ""
        return f"; all parts: {self.accounted}/{self.total}, ETA {self.eta()}"

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            self._bar.close()
            self._bar = None


class PartProgress:
    """The progress of one `run_sweep` call within a SweepProgress: the part's plain
    line (logs) and the part's share of the overall bar."""

    def __init__(self, name: str, total: int, overall: SweepProgress | None, owns: bool):
        self.name, self.total, self.skipped = name, total, 0
        self.counted = total              # what the overall total counted for this part
        self.overall = overall
        self.owns = owns                  # made by run_sweep for this sweep alone
        self.enabled = overall is not None
        self.start = time.monotonic()
        self.last = 0.0
        self.done = self.failed = 0
        self._reported = (0, 0, 0)        # (done, failed, skipped) passed on to overall
        if overall is not None:
            overall.parts += 1

    def line(self) -> str:
        finished = self.done + self.failed
        remaining = self.total - self.skipped - finished
        elapsed = time.monotonic() - self.start
        eta = "?"
        if finished and remaining:
            eta = clock(elapsed / finished * remaining)
        elif not remaining:
            eta = "0:00"
        before = f" ({self.skipped} done before)" if self.skipped else ""
        return (f"sweep {self.name}: {self.skipped + self.done}/{self.total} runs done{before}, "
                f"{self.failed} failed, {clock(elapsed)} elapsed, ETA {eta}")

    def update(self, done: int, failed: int, force: bool = False) -> None:
        self.done, self.failed = done, failed
        if not self.enabled:
            return
        o = self.overall
        d, f, s = self._reported
        o.add(computed=done - d, failed=failed - f, reused=self.skipped - s)
        self._reported = (done, failed, self.skipped)
        if o.tty:
            o.open_bar()
            return
        now = time.monotonic()
        if not force and now - self.last < 10.0:
            return
        self.last = now
        o.write(self.line() + o.overall(self.total))

    def close(self, exact_total: int | None = None, interrupted: bool = False) -> None:
        """The part ended: its last line (plain mode); `exact_total` corrects the
        overall count (runs that turned out to be the same scenario)."""
        if not self.enabled:
            return
        self.update(self.done, self.failed)
        o = self.overall
        if exact_total is not None and exact_total != self.counted:
            o.correct_total(exact_total - self.counted)
            self.counted = self.total = exact_total
        if not o.tty:
            o.write(self.line() + o.overall(self.total))
        if self.owns or interrupted or o.accounted >= o.total:
            o.close()


def for_experiment(module, quick: bool, seeds: int | None = None) -> SweepProgress:
    """One SweepProgress over every run of an experiment (`ncmesh reproduce`): the sum
    of its parts' runs (grid points x seeds; `seeds` replaces the count as `reproduce`
    does)."""
    import copy

    from .spec import load_sweep

    parts = module.sweeps(quick) if callable(getattr(module, "sweeps", None)) else {"": module.sweep(quick)}
    total = 0
    for spec in parts.values():
        spec = copy.deepcopy(spec)
        if seeds is not None:
            spec["seeds"] = {"count": int(seeds), "start": 1}
        total += len(load_sweep(spec))
    return SweepProgress(total, label=f"reproduce {module.NAME}")
