"""Harness overhead of `ncmesh sweep`: the share of (jobs x wall time) not spent simulating.

    python examples/sweeps/measure_overhead.py examples/sweeps/overhead-chain4.toml --jobs 2

Each repetition measures, one right after the other:

* S, the simulation alone: the sweep's runs split round robin over `jobs` processes that
  do nothing but call ncmesh._core.run, started together after a warm-up; S is the sum
  of their busy times. That is what the runs cost on this machine with `jobs` of them
  side by side (they share caches and memory bandwidth; on a VM often more), with no
  harness at all;
* W, the command: `python -m ncmesh sweep FILE --out <new folder> --jobs N -q`, timed
  from outside (Python start to exit);

and gives

    harness overhead = 1 - S / (jobs x W)

Everything else counts as overhead: starting Python, importing, expanding the sweep,
starting the workers, moving runs to them, encoding the tables, writing and renaming
five files per run, the parent's own CPU time, and workers idle at the start and the
end. The script prints each repetition, then the median and range of the overheads.

A repetition during which processes outside this session used more than
`--max-others` of the CPUs is shown but not counted (another one is made). Before each
repetition the script calls sync(), so that the kernel does not write the previous
command's files back to disk during this one. The results folders are deleted at the
end only: on ext4 without a journal (this VM), creating files soon after many were
deleted is much slower, because the inode allocator skips inodes deleted in the last
5-35 s.

The script also prints the older definition, which took S from one process running the
runs back to back (ideally `jobs` times slower than W): it also counted the slowdown of
two simulations sharing the machine, which no harness can avoid.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from ncmesh import _core
from ncmesh.sweep import load_sweep


def _cpu_ticks() -> tuple[int, int] | None:
    """(busy, total) CPU ticks of the whole machine since boot (Linux), else None."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def _simulate_share(scenarios, barrier, conn) -> None:
    for sc in scenarios[:3]:
        _core.run(sc)                       # warm up
    barrier.wait()
    t = time.perf_counter()
    for sc in scenarios:
        _core.run(sc)
    conn.send(time.perf_counter() - t)
    conn.close()


def simulation_parallel(scenarios: list, jobs: int) -> float:
    """Summed busy time of `jobs` processes simulating the runs side by side."""
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(jobs)
    procs, pipes = [], []
    for i in range(jobs):
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_simulate_share, args=(scenarios[i::jobs], barrier, send))
        p.start()
        procs.append(p)
        pipes.append(recv)
    busy = [r.recv() for r in pipes]
    for p in procs:
        p.join()
    return sum(busy)


def simulation_serial(scenarios: list) -> float:
    for sc in scenarios[:3]:
        _core.run(sc)
    t = time.perf_counter()
    for sc in scenarios:
        _core.run(sc)
    return time.perf_counter() - t


def run_command(sweep: str, jobs: int, out: str) -> tuple[float, float | None]:
    """Wall time of the command and the simulation time it reports (the workers' time
    inside the simulator; None if not printed)."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "ncmesh", "sweep", sweep, "--out", out,
                           "--jobs", str(jobs), "-q"], check=True, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    m = re.search(r"\(simulation ([0-9.]+) s", proc.stdout)
    return wall, float(m.group(1)) if m else None


class OtherLoad:
    """The share of the machine's CPU time used by processes outside this session (this
    script, the command and all their descendants, including workers that a fork server
    started and nobody here waits for) between start() and stop(); None without /proc."""

    @staticmethod
    def _others() -> float | None:
        """CPU seconds used so far by the processes of other sessions (and their reaped
        children), summed over those alive now."""
        try:
            me = os.getsid(0)
            names = [n for n in os.listdir("/proc") if n.isdigit()]
        except (AttributeError, OSError):
            return None
        ticks = 0
        for n in names:
            try:
                with open(f"/proc/{n}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue                            # ended meanwhile
            if int(fields[3]) != me:                # session
                # utime stime cutime cstime; for init only its own time: it reaps the
                # orphans, among them a fork server and its workers that this script's
                # command left behind.
                ticks += sum(int(x) for x in fields[11:13 if n == "1" else 15])
        return ticks / os.sysconf("SC_CLK_TCK")

    def start(self) -> None:
        self.ticks, self.others = _cpu_ticks(), self._others()

    def stop(self) -> float | None:
        ticks, others = _cpu_ticks(), self._others()
        if None in (ticks, self.ticks, others, self.others):
            return None
        capacity = (ticks[1] - self.ticks[1]) / os.sysconf("SC_CLK_TCK")
        return max(0.0, others - self.others) / capacity if capacity > 0 else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5, help="measurements that count (default 5)")
    ap.add_argument("--max-others", type=float, default=0.03, metavar="SHARE",
                    help="a measurement during which other processes used more than this share of "
                         "the CPUs is shown but not counted, and made again (default 0.03)")
    ap.add_argument("--tmp", metavar="DIR", help="where the results folders go (default: the system's temporary folder)")
    args = ap.parse_args()

    scenarios = [r.scenario for r in load_sweep(args.sweep).runs()]
    n, jobs = len(scenarios), args.jobs
    serial = simulation_serial(scenarios)
    print(f"{n} runs; simulation in one process: {serial:.3f} s ({1000 * serial / n:.2f} ms per run)")
    counted: list[tuple[float, float]] = []
    # Every command writes into a new folder, and all are deleted at the end only: on
    # ext4 without a journal, creating files soon after many were deleted is several
    # times slower (the inode allocator skips inodes deleted in the last 5-35 s).
    scratch = tempfile.mkdtemp(prefix="ncmesh-overhead-", dir=args.tmp)
    load = OtherLoad()
    try:
        attempt = 0
        while len(counted) < args.repeat and attempt < 4 * args.repeat:
            attempt += 1
            os.sync()                  # the previous command's files reach the disk now, not during this one
            load.start()
            sim = simulation_parallel(scenarios, jobs)
            wall, inside = run_command(args.sweep, jobs, os.path.join(scratch, str(attempt)))
            others = load.stop()
            busy = jobs * wall
            disturbed = others is not None and others > args.max_others
            if not disturbed:
                counted.append((sim, wall))
            within = f" (it reports {inside:.2f} s simulating)" if inside is not None else ""
            other = f"; other processes used {100 * others:.0f}% of the CPUs" if others is not None else ""
            print(f"  #{attempt}: simulation on {jobs} processes {sim:.3f} s; ncmesh sweep {wall:.3f} s{within}: "
                  f"overhead {100 * (1 - sim / busy):.1f}%{other}{' (not counted)' if disturbed else ''}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not counted:
        sys.exit("no undisturbed measurement: the machine is busy (see --max-others)")
    overheads = sorted(1 - s / (jobs * w) for s, w in counted)
    s_med = statistics.median(s for s, _ in counted)
    w_med = statistics.median(w for _, w in counted)
    print(f"simulation on {jobs} processes side by side: median {s_med:.3f} s summed (x{s_med / serial:.3f} of one process)")
    print(f"ncmesh sweep --jobs {jobs}: median {w_med:.3f} s")
    print(f"harness overhead: median {100 * statistics.median(overheads):.1f}% of {len(counted)} measurements "
          f"(range {100 * overheads[0]:.1f}-{100 * overheads[-1]:.1f}%; "
          f"{1000 * (jobs * w_med - s_med) / n:.2f} worker-ms per run); "
          f"older definition (one-process simulation): {100 * (1 - serial / (jobs * w_med)):.1f}%")


if __name__ == "__main__":
    main()
