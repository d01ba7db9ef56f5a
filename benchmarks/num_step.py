#!/usr/bin/env python3
"""Time of the NUM side of `ncmesh reproduce ncaqm` (ncaqm._num_results: Table I's optimum
over 20 cell grids, the butterfly's, primal-dual convergence on three topologies).

    python benchmarks/num_step.py [--quick] [--repeat N]

Prints per repetition the wall and CPU seconds, how many exact solves ran and the CPU
seconds inside them, and a SHA-256 of every number the step returns (equal before and
after a change that keeps its results bit for bit). Needs the project venv (ncmesh).
"""

import argparse
import hashlib
import json
import sys
import time

import numpy as np


def _canonical(o):
    if isinstance(o, dict):
        return {str(k): _canonical(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_canonical(v) for v in o]
    if isinstance(o, (float, np.floating)):
        return float(o).hex()
    if isinstance(o, np.ndarray):
        return [float(v).hex() for v in o.ravel()]
    if hasattr(o, "__dict__"):
        return _canonical(vars(o))
    return o


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the --quick reproduction's grids")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    from ncmesh.experiments import ncaqm
    from ncmesh.num import model

    solves, inside = [0], [0.0]
    solve = model.NumModel.solve

    def counted(self, *args, **kw):
        t = time.process_time()
        try:
            return solve(self, *args, **kw)
        finally:
            solves[0] += 1
            inside[0] += time.process_time() - t

    model.NumModel.solve = counted
    for i in range(a.repeat):
        solves[0], inside[0] = 0, 0.0
        w, c = time.perf_counter(), time.process_time()
        out = ncaqm._num_results(a.quick)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        digest = hashlib.sha256(json.dumps(_canonical(out), sort_keys=True).encode()).hexdigest()[:16]
        print(f"num_step quick={a.quick} rep={i} wall_s={wall:.2f} cpu_s={cpu:.2f} solves={solves[0]} "
              f"solve_cpu_s={inside[0]:.2f} sha256={digest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
