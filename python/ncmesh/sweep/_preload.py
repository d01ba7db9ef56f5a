"""Imported once by every worker process before its first run (the process pool's
fork server preloads it): the heavy imports happen here instead of inside the first run.

Workers only write Parquet; they never need pandas. pyarrow imports pandas on its first
array if it can (0.2-0.4 s per worker, the largest part of a sweep's start-up), so a
worker marks pandas as absent before importing pyarrow."""

import sys
from importlib.abc import MetaPathFinder


class _NoPandas(MetaPathFinder):
    """Makes `import pandas` fail in this worker, so pyarrow skips its pandas set-up."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not loaded in sweep workers")
        return None


if "pandas" not in sys.modules:
    sys.meta_path.insert(0, _NoPandas())

import pyarrow as pa
import pyarrow.parquet  # noqa: F401

from .. import _core  # noqa: F401
from . import worker  # noqa: F401

pa.array([0], type=pa.int64())
