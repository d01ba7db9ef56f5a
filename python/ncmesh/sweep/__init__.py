"""Parameter sweeps: many runs of a scenario over a grid of overrides and seeds.

    >>> from ncmesh.sweep import load_sweep, run_sweep, open_results
    >>> sweep = load_sweep("examples/sweeps/chain-hops.toml")
    >>> len(sweep.runs())                       # RunSpec(key, seed, params, scenario)
    40
    >>> report = run_sweep(sweep, "results/chain-hops", jobs=2)   # SweepReport
    >>> res = open_results("results/chain-hops")
    >>> res.flows.groupby("hops").goodput_kbps.mean()

The command is `ncmesh sweep FILE [--out DIR] [--jobs N] [--ray [ADDRESS]]`; the file
format and the results directory are described in docs/sweeps.md.
"""

from .identity import StoreMismatch
from .runner import SweepReport, run_sweep
from .spec import RunSpec, Sweep, SweepError, load_sweep, run_key
from .store import Results, open_results

__all__ = ["load_sweep", "run_sweep", "open_results", "Sweep", "RunSpec", "SweepReport",
           "Results", "SweepError", "StoreMismatch", "run_key"]
