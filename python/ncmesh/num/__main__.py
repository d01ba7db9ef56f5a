"""`python -m ncmesh.num [--figures DIR] [--grid-seeds N]`: the NUM optimum of Seferoglu & Markopoulou (NCAQM).

Prints the analytic coding gains (computed vs expected), Table I's "Optimal" column and a
convergence check of the primal-dual algorithm; with --figures, writes Appendix A style
convergence figures (rates and h-queue multipliers per iteration) as PNG files.
"""

from __future__ import annotations

import argparse
import os
import sys


from . import analytic_gain, compare, model_from_scenario, table1, topology

# Appendix A case (ii) capacities are lost in the text copy: the relay's outgoing links
# run at twice the rate of the others (a recorded choice, see docs/num.md).
CASE_II = {
    "alice-bob": {(1, 0): 2.0, (1, 2): 2.0},
    "x": {(1, 2): 2.0, (1, 4): 2.0},
    "butterfly": {(3, 4): 2.0, (3, 5): 2.0},
}
ITERATIONS = 6000
STEP = 0.1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ncmesh.num", description=__doc__.splitlines()[0])
    ap.add_argument("--figures", metavar="DIR", help="write Appendix A convergence figures here")
    ap.add_argument("--grid-seeds", type=int, default=20,
                    help="cell grids (the paper's grid, builder defaults) averaged for Table I (default 20)")
    a = ap.parse_args(argv)

    print("Analytic coding gains (total rate with coding / without, log-utility optimum)")
    rows = [("alice-bob", {}), ("x", {}), ("cross", {}), ("butterfly", {})]
    rows += [("wheel", {"flows": n}) for n in range(2, 9)]
    for kind, opts in rows:
        g = compare(kind, **opts)
        exp = analytic_gain(kind, opts.get("flows"))
        label = kind + (f" N={opts['flows']}" if opts else "")
        print(f"  {label:14s} {g.coding:5s} computed {g.ratio:.6f}  expected {exp:.6f}  |diff| {abs(g.ratio - exp):.1e}")

    print("\nTable I, Optimal column (improvement of the optimum with COPE over no coding)")
    t = table1(grid_seeds=range(1, a.grid_seeds + 1))
    for k, v in t.items():
        extra = f"  (paper {v['paper_pct']}%)" if v.get("paper_pct") is not None else "  (paper: -)"
        if k == "grid":
            extra += (f"  {v['kind']}: mean of {len(v['per_seed'])} seeds, range {v['min_pct']:.1f}% .. "
                      f"{v['max_pct']:.1f}% (each over its measurement window)")
        print(f"  {k:10s} {v['improvement_pct']:6.2f}%{extra}")

    print(f"\nPrimal-dual with the proximal method ({ITERATIONS} iterations, step {STEP}, prox 1)")
    figs = []
    for kind in ("alice-bob", "x", "butterfly"):
        coding = "bfly" if kind == "butterfly" else "cope"
        for case, cap in (("i", 1.0), ("ii", CASE_II[kind])):
            m = model_from_scenario(topology(kind), coding=coding, capacity=cap)
            exact = m.solve()
            h = m.primal_dual(iterations=ITERATIONS, step=STEP, record_every=10)
            err = h.relative_error(exact)[-1]
            print(
                f"  {kind:10s} case ({case:2s}) exact total {exact.total:.6f}  primal-dual {h.total[-1]:.6f}"
                f"  max rel. error {err:.1e}  below 1e-3 from iteration {h.converged_at(exact)}"
            )
            figs.append((kind, case, h, exact))

    if a.figures:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        os.makedirs(a.figures, exist_ok=True)
        for kind, case, h, exact in figs:
            fig, axes = plt.subplots(1, 2, figsize=(11, 4))
            h.plot(reference=exact, axes=axes)
            fig.suptitle(f"{kind}, case ({case}): primal-dual with the proximal method")
            fig.tight_layout()
            path = os.path.join(a.figures, f"num-convergence-{kind}-{case}.png")
            fig.savefig(path, dpi=110)
            plt.close(fig)
            print(f"  wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
