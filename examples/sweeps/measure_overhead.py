"""Harness overhead of `ncmesh sweep`: the share of (jobs x wall time) not spent simulating.

    python examples/sweeps/measure_overhead.py examples/sweeps/overhead-200.toml --jobs 2

First the simulation time on its own: the sweep's runs back to back with
ncmesh._core.run in this process (no files, no workers). Then the whole command,
`ncmesh sweep FILE --out <fresh temporary dir> --jobs N`, timed from outside, and

    overhead = 1 - simulation / (jobs x command wall time)

Everything else counts as overhead: starting Python and the workers, expanding the
sweep, moving runs to the workers, building the tables, writing and fsync'ing five
Parquet files per run, and workers idle at the end.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import time

from ncmesh import _core
from ncmesh.sweep import load_sweep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    runs = load_sweep(args.sweep).runs()
    for r in runs[:5]:
        _core.run(r.scenario)   # warm up
    t = time.perf_counter()
    for r in runs:
        _core.run(r.scenario)
    sim = time.perf_counter() - t
    print(f"{len(runs)} runs; simulation alone: {sim:.3f} s ({1000 * sim / len(runs):.2f} ms per run)")
    for _ in range(args.repeat):
        out = tempfile.mkdtemp(prefix="ncmesh-overhead-")
        try:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "ncmesh", "sweep", args.sweep, "--out", out,
                            "--jobs", str(args.jobs), "-q"], check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - t
        finally:
            shutil.rmtree(out, ignore_errors=True)
        busy = args.jobs * wall
        print(f"ncmesh sweep: {wall:.3f} s on {args.jobs} workers; harness overhead {100 * (1 - sim / busy):.0f}% "
              f"({1000 * (busy - sim) / len(runs):.2f} worker-ms per run)")


if __name__ == "__main__":
    main()
