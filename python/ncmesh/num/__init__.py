"""ncmesh.num: the network-utility-maximisation optimum of Seferoglu & Markopoulou,
"Network coding-aware queue management for TCP flows over coded wireless networks"
(NCAQM; docs/papers.md): TCP flows with log utility over COPE (one-hop) or BFLY (two-hop) coded
802.11 multihop networks under the protocol interference model.

    >>> from ncmesh import num
    >>> m = num.model_from_scenario(num.topology("alice-bob"), coding="cope")
    >>> sol = m.solve()                      # exact (Clarabel)
    >>> round(sol.total, 4)
    0.6667
    >>> hist = m.primal_dual(iterations=20000)   # distributed algorithm (Appendix A)
    >>> num.coding_gain("cross")             # 8/5
    1.6...

See docs/num.md.
"""

from .graph import NumError, Radio, maximal_cliques, maximal_independent_sets, shortest_path
from .model import Code, Flow, Hyperarc, NumModel, Option, Solution
from .arrivals import TimeGain, compare_over_time, flow_sets, relay_load, with_flows
from .primal_dual import History
from .topologies import (
    BUILDERS,
    Gain,
    alice_bob,
    analytic_gain,
    butterfly,
    cell_grid,
    chain,
    coding_gain,
    compare,
    cross,
    grid,
    model_from_scenario,
    table1,
    topology,
    wheel,
    wheel_radius,
    x_topology,
)

__all__ = [
    "NumError", "Radio", "maximal_cliques", "maximal_independent_sets", "shortest_path",
    "Code", "Flow", "Hyperarc", "NumModel", "Option", "Solution", "History",
    "BUILDERS", "Gain", "alice_bob", "analytic_gain", "butterfly", "cell_grid", "chain", "coding_gain",
    "compare", "cross", "grid", "model_from_scenario", "table1", "topology", "wheel",
    "wheel_radius", "x_topology", "TimeGain", "compare_over_time", "flow_sets", "relay_load", "with_flows",
]
