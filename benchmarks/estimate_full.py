#!/usr/bin/env python3
"""Estimates a full reproduction's wall time from a sample of each part's runs (issue 30).

    .venv/bin/python benchmarks/estimate_full.py [NAME ...] [--sample K] [--cores C] [--out-dir DIR]

For every part of each experiment's full sweeps (default: every registered experiment), K
runs (default 3) drawn with a fixed seed from the seeds every cell runs (the seed rule's
first n_min) are simulated one at a time in this process, and their CPU time is measured
(`time.process_time` around the simulator call the sweep workers make, no Parquet written).
The part's estimate is CPU time per run x runs / cores, for the fewest runs the seed rule
allows (every cell stops at n_min seeds) and the most (every cell runs n_max); where
DIR/NAME/results/<part>/runs holds a finished run's store, its run count gives a third
column. Reading the results back and the analysis are not included (docs/performance.md
measures them). Run it on a quiet machine: the CPU times are per run, the cores are assumed
free.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path


def sample_cpu(spec: dict, k: int) -> tuple[float, int, int, int]:
    """(CPU s per run over a sample of k runs, cells, n_min, n_max) of one part's sweep."""
    from ncmesh import _core
    from ncmesh.sweep import load_sweep

    sweep = load_sweep(spec)
    rule = sweep.seed_rule
    runs = sweep.runs()
    seeds = sorted({r.seed for r in runs})
    n_min = rule.n_min if rule else len(seeds)
    n_max = rule.n_max if rule else len(seeds)
    cells = len(runs) // max(1, len(seeds))
    first = set(seeds[:n_min])
    pool = [r for r in runs if r.seed in first and r.error is None]
    picked = random.Random(0).sample(pool, min(k, len(pool)))
    cpu = 0.0
    for r in picked:
        t0 = time.process_time()
        _core.run_columns(r.scenario)
        cpu += time.process_time() - t0
    return cpu / max(1, len(picked)), cells, n_min, n_max


def stored_runs(out_dir: Path, name: str, part: str) -> int | None:
    from ncmesh.sweep.store import done_keys

    d = out_dir / name / "results" / part
    return len(done_keys(d)) if (d / "runs").is_dir() else None


def main() -> int:
    from ncmesh.experiments import available

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="experiments (default: every registered one)")
    ap.add_argument("--sample", type=int, default=3, help="runs timed per part (default 3)")
    ap.add_argument("--cores", type=int, default=2, help="cores the full run gets (default 2)")
    ap.add_argument("--out-dir", default="out", help="where finished runs' stores are (default out)")
    a = ap.parse_args()
    exps = available()
    bad = [n for n in a.names if n not in exps]
    if bad:
        ap.error(f"{', '.join(bad)}: not an experiment; expected one of {', '.join(exps)}")
    if a.sample < 1 or a.cores < 1:
        ap.error("--sample and --cores: expected integers >= 1")
    out_dir = Path(a.out_dir)
    print("| experiment | part | CPU s per run | cells | seeds | runs (fewest / most / stored) "
          "| wall min, fewest / most / stored |")
    print("|---|---|---:|---:|---|---|---|")
    totals = {}
    for name in a.names or list(exps):
        t = totals.setdefault(name, [0.0, 0.0, 0.0, True])
        for part, spec in exps[name].sweeps(quick=False).items():
            cpu, cells, n_min, n_max = sample_cpu(spec, a.sample)
            runs = (cells * n_min, cells * n_max, stored_runs(out_dir, name, part))
            walls = [None if n is None else cpu * n / a.cores / 60 for n in runs]
            t[0] += walls[0]
            t[1] += walls[1]
            if walls[2] is None:
                t[3] = False
            else:
                t[2] += walls[2]
            fmt = " / ".join("-" if w is None else f"{w:.1f}" for w in walls)
            nruns = " / ".join("-" if n is None else f"{n:,}" for n in runs)
            print(f"| {name} | {part} | {cpu:.3f} | {cells} | {n_min}-{n_max} | {nruns} | {fmt} |", flush=True)
    print()
    for name, (lo, hi, st, complete) in totals.items():
        stored = f", at the stored run counts {st:.0f} min" if complete else ""
        print(f"{name}: {lo:.0f} to {hi:.0f} min of simulation on {a.cores} cores{stored}")
    lo, hi = sum(v[0] for v in totals.values()), sum(v[1] for v in totals.values())
    print(f"all: {lo:.0f} to {hi:.0f} min (issue 30's target: 15 min for the five papers' reproductions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
