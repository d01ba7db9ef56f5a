"""Imported once by every worker process before its first run (the process pool's
fork server preloads it): the heavy imports and pyarrow's first-use set-up (it imports
pandas on its first array) happen here instead of inside the first run."""

import pyarrow as pa
import pyarrow.parquet  # noqa: F401

from .. import _core  # noqa: F401
from . import worker  # noqa: F401

pa.array([0], type=pa.int64())
