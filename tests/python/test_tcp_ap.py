"""TCP-AP on the 2-hop chain of the cope-tcp experiment (issue 12, item 8): with the ns-2 agent's
variation term (mean absolute deviation of the nHPD samples, `tcp.ap_variation = "adev"`, the
default) TCP-AP carries about what NewReno carries; with the coefficient of variation of the raw RTT
samples (`"cov-rtt"`, ncmesh's rule before) its larger term paces it well below."""

from __future__ import annotations

import pytest

from ncmesh import _core
from ncmesh.experiments import cope_tcp
from ncmesh.sweep import load_sweep

SEEDS = (1, 2, 3)
DURATION_S = 30.0


def _goodput(scenario: dict, **tcp) -> float:
    scn = {**scenario, "simulation": {**scenario["simulation"], "duration_s": DURATION_S},
           "tcp": {**scenario.get("tcp", {}), **tcp}}
    return _core.run(_core.resolve(scn))["flows"][0]["goodput_kbps"]


@pytest.fixture(scope="module")
def chain2():
    """{(variant, seed): scenario} for the experiment's 2-hop chain without coding."""
    runs = load_sweep(cope_tcp.sweeps(True)["chain"]).runs()
    return {(r.params["tcp.variant"], r.seed): r.scenario for r in runs
            if r.params["hops"] == 2 and r.params["scheme.name"] == "none" and r.seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
def test_ap_matches_newreno_on_two_hops(chain2, seed):
    newreno = _goodput(chain2[("newreno", seed)])
    ap = _goodput(chain2[("ap", seed)])
    assert chain2[("ap", seed)]["tcp"]["variant"] == "ap"
    assert ap >= 0.95 * newreno, (ap, newreno)
    # The same run with ap_variation spelled out is the default.
    assert _goodput(chain2[("ap", seed)], ap_variation="adev") == ap
    # The RTTs' coefficient of variation (the previous rule) paces it below the agent's rule.
    assert _goodput(chain2[("ap", seed)], ap_variation="cov-rtt") < ap


def test_the_rtts_variation_paces_well_below_newreno_over_the_seeds(chain2):
    # On ns-2's set-up (the experiment's preset) one seed of three comes within 6% of NewReno,
    # the others 25% below: the mean over the seeds is well below.
    newreno = sum(_goodput(chain2[("newreno", s)]) for s in SEEDS)
    cov = sum(_goodput(chain2[("ap", s)], ap_variation="cov-rtt") for s in SEEDS)
    assert cov < 0.9 * newreno, (cov, newreno)
