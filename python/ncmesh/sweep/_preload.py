"""Imported once by every worker process before its first run (by `init_worker`; the
fork server of the ProcessPoolExecutor preloads it): the imports happen here instead of
inside the first run.

Workers write Parquet with the simulator's own encoder (`_core.encode_parquet`) and
need neither pyarrow nor pandas. pyarrow is imported only if a column type needs the
fallback encoder; it would then import pandas on its first array if it could (0.2-0.4 s
per worker), so a worker marks pandas as absent."""

import sys


class _NoPandas:
    """Makes `import pandas` fail in this worker, so pyarrow skips its pandas set-up. (A
    meta path finder; not derived from importlib.abc.MetaPathFinder, whose module takes
    5 ms to import.)"""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not loaded in sweep workers")
        return None


if "pandas" not in sys.modules:
    sys.meta_path.insert(0, _NoPandas())

from .. import _core  # noqa: F401
from . import worker  # noqa: F401
