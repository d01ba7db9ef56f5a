"""ncmesh.analysis.pipeline_model: the Monte Carlo model of Pipeline coding's generation tail
against an exact Markov-chain computation for one hop, and its limits."""

from __future__ import annotations

from math import comb

import pytest

from ncmesh.analysis.pipeline_model import pipeline_tail


def exact_one_hop(loss: float, r: float, k: int = 16) -> tuple[float, float]:
    """One hop, exactly: the destination's rank after each packet, and the last packet m
    after which its rank was m (packets 1..m decoded)."""
    dist = {(0, 0): 1.0}          # (rank, decoded_to) -> probability
    credit = 0.0
    for m in range(1, k + 1):
        credit += r
        n = int(credit)
        credit -= n
        new: dict = {}
        for (rank, dec), p in dist.items():
            for got in range(n + 1):
                q = p * comb(n, got) * (1 - loss) ** got * loss ** (n - got)
                r2 = min(m, rank + got)
                key = (r2, m if r2 == m else dec)
                new[key] = new.get(key, 0.0) + q
        dist = new
    failed = sum(p for (_, dec), p in dist.items() if dec < k)
    lost = sum(p * (k - dec) for (_, dec), p in dist.items()) / k
    return failed, lost


@pytest.mark.parametrize("loss,r", [(0.4, 1.4), (0.4, 2.0), (0.4, 3.0), (0.2, 1.4), (0.5, 2.5)])
def test_one_hop_matches_the_exact_chain(loss, r):
    gens, packets = pipeline_tail(loss, r, 1, trials=20000, seed=7)
    exact_gens, exact_packets = exact_one_hop(loss, r)
    # Monte Carlo with 20,000 generations: a few standard errors.
    assert gens == pytest.approx(exact_gens, abs=4 * (exact_gens * (1 - exact_gens) / 20000) ** 0.5 + 1e-3)
    assert packets == pytest.approx(exact_packets, abs=0.01)


def test_limits_and_monotonicity():
    assert pipeline_tail(0.0, 1.0, 5) == (0.0, 0.0)
    # More hops lose more; more redundancy loses less; deterministic for a seed.
    one, three = pipeline_tail(0.3, 2.0, 1)[1], pipeline_tail(0.3, 2.0, 3)[1]
    assert one < three
    assert pipeline_tail(0.3, 3.0, 3)[1] < three
    assert pipeline_tail(0.3, 2.0, 3, seed=5) == pipeline_tail(0.3, 2.0, 3, seed=5)
    with pytest.raises(ValueError):
        pipeline_tail(1.0, 2.0, 3)
