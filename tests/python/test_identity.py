"""The bit-identity gate (validation/identity/identity.py): every recorded scenario result,
packet capture and quick-reproduction summary equals the baseline recorded before the
last refactor. A change meant to alter results re-records the baseline and says why."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_results_identical_to_recorded_baseline():
    p = subprocess.run([sys.executable, str(ROOT / "validation" / "identity" / "identity.py"), "check"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "bit for bit identical" in p.stdout
