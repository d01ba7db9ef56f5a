"""`ncmesh sweep --ray` (a local Ray instance) writes the same results as the process pool."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ncmesh.sweep import load_sweep, open_results, run_sweep
from ncmesh.sweep.store import bundled_keys, pack_index

pytest.importorskip("ray")

SWEEP = """\
name = "ray-vs-pool"
[base]
builder = "chain"
options = { duration = 4 }
set = { "simulation.measure_start_s" = 1.5 }
[grid]
hops = [1, 2]
"tcp.sack" = [false, true]
[seeds]
count = 2
"""


CHAIN_HOPS = Path(__file__).resolve().parents[2] / "examples" / "sweeps" / "chain-hops.toml"


@pytest.mark.parametrize("which", ["grid", "chain-hops"])
def test_ray_gives_the_same_tables_as_the_pool(tmp_path, cli, which):
    # "chain-hops": the chain over 1-8 hops x 5 seeds, 60 s each (40 runs).
    if which == "grid":
        path = tmp_path / "s.toml"
        path.write_text(SWEEP)
    else:
        path = CHAIN_HOPS
    sweep = load_sweep(path)
    n = len(sweep.runs())
    pool = run_sweep(sweep, tmp_path / "pool", jobs=2, progress=False)
    assert (pool.done, pool.failed) == (n, 0)

    p = cli("sweep", str(path), "--out", str(tmp_path / "ray"), "--ray", "--jobs", "2")
    assert p.returncode == 0, p.stderr
    assert f"{n} done now" in p.stdout

    for table in ("flows", "nodes", "runs"):
        sort = {"flows": ["run_key", "flow"], "nodes": ["run_key", "node"], "runs": ["run_key"]}[table]
        a = getattr(open_results(tmp_path / "pool"), table).sort_values(sort).reset_index(drop=True)
        b = getattr(open_results(tmp_path / "ray"), table).sort_values(sort).reset_index(drop=True)
        if table == "runs":   # the engine's own timing differs from run to run
            a, b = a.drop(columns="wall_time_s"), b.drop(columns="wall_time_s")
        pd.testing.assert_frame_equal(a, b)
    # Ray's workers live on after the sweep: what they held at its end was packed by the
    # sweep, so every run is in exactly one pack and nothing waits in a bundle.
    keys = {r.key for r in sweep.runs()}
    assert bundled_keys(tmp_path / "ray") == set()
    assert sorted(k for held in pack_index(tmp_path / "ray").values() for k in held) == sorted(keys)
