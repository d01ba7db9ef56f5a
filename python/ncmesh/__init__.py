"""ncmesh: a deterministic packet-level simulator of TCP over IEEE 802.11 multihop networks.

    >>> import ncmesh
    >>> sc = ncmesh.Scenario.build("chain", hops=4).set("simulation.duration_s", 30)
    >>> res = ncmesh.run(sc, seed=2)
    >>> res.flows[["src", "dst", "goodput_kbps"]]      # pandas DataFrame

Heavy dependencies (pandas, pyarrow, matplotlib) are imported only when used.
"""

from ._core import ScenarioError
from ._core import version as _core_version
from .result import RunResult
from .run import UncodedUdpWarning, run
from .scenario import Scenario

__version__ = _core_version()

__all__ = ["Scenario", "run", "RunResult", "ScenarioError", "UncodedUdpWarning", "__version__"]
