"""The bit-identity gate (validation/identity/identity.py): every recorded scenario result,
packet capture and quick-reproduction summary equals the baseline recorded before the
last refactor. A change meant to alter results re-records the baseline and says why."""

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _identity():
    """validation/identity/identity.py as a module."""
    spec = importlib.util.spec_from_file_location("identity", ROOT / "validation" / "identity" / "identity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_identical_to_recorded_baseline(quick_reproduction):
    # The quick reproductions the gate compares are the ones the experiments' own tests
    # read (conftest.quick_reproduction), not run a second time.
    summaries = []
    for name in _identity().REPRODUCTIONS:
        out, _ = quick_reproduction(name)
        summaries += ["--summary", f"{name}={out / 'summary.json'}"]
    p = subprocess.run([sys.executable, str(ROOT / "validation" / "identity" / "identity.py"), "check",
                        *summaries], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "bit for bit identical" in p.stdout
