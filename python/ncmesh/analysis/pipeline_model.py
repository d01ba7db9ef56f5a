"""A model of Pipeline coding's generation tail (Chen et al., ComboCoding, Eq. 1-2), for
checking the simulator against the scheme rather than against the paper's numbers.

A source codes each of the k packets of a generation as it arrives into r combinations of the
packets so far on average (credit carried from packet to packet as `coding/pipeline/source.rs`
does, but starting at zero in each generation: 22 combinations per generation at r = 1.4
where the simulator averages 22.4); every relay sends r re-encoded combinations per
innovative combination it receives; each combination is lost on each hop with probability
`loss`, independently (the `"network"` reading of the per-link loss: MAC retries do not
help). Ranks stand in for subspaces, an approximation: a combination counts as innovative at
the next node when that node's rank is below the sender's, whatever packets the two spans
hold. With the lower-triangular structure the destination decodes packets 1..m as soon as
its rank is m after packet m's combinations, so the packets after the last such m stay
undecoded when the generation ends: the tail the paper calls "non-uniform inclusion". No MAC,
no TCP, no timing: packets of one generation only.
"""

from __future__ import annotations

import random


def pipeline_tail(loss: float, redundancy: float, hops: int, k: int = 16, trials: int = 4000,
                  seed: int = 1) -> tuple[float, float]:
    """(share of generations not fully decoded, share of packets not decoded) at the
    destination of a `hops`-hop string, by Monte Carlo over `trials` generations."""
    if not 0.0 <= loss < 1.0 or redundancy < 1.0 or hops < 1 or k < 1 or trials < 1:
        raise ValueError("need 0 <= loss < 1, redundancy >= 1, hops >= 1, k >= 1, trials >= 1")
    rnd = random.Random(seed)
    failed_gens = lost_packets = 0
    for _ in range(trials):
        rank = [0] * (hops + 1)         # node 0 is the source
        credit = [0.0] * (hops + 1)
        decoded_to = 0
        for m in range(1, k + 1):
            rank[0] = m
            credit[0] += redundancy
            n = int(credit[0])
            credit[0] -= n
            pending = [(0, n)]
            while pending:
                node, n = pending.pop()
                for _ in range(n):
                    if rnd.random() < loss:
                        continue
                    nxt = node + 1
                    if rank[nxt] >= rank[node]:
                        continue            # not innovative: dropped
                    rank[nxt] += 1
                    if nxt < hops:
                        credit[nxt] += redundancy
                        c = int(credit[nxt])
                        credit[nxt] -= c
                        pending.append((nxt, c))
            if rank[hops] == m:
                decoded_to = m
        if decoded_to < k:
            failed_gens += 1
            lost_packets += k - decoded_to
    return failed_gens / trials, lost_packets / (trials * k)
