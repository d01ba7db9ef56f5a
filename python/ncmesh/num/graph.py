"""Geometry and graph helpers for the NUM model: who hears whom, shortest-hop routes,
the protocol-model conflict test, and maximal independent sets / cliques.

Everything here is plain Python (no numpy needed) and deterministic: sets are walked in
sorted order, so results never depend on hash order.
"""

from __future__ import annotations

import heapq
import math
from typing import Iterable, Sequence


class NumError(ValueError):
    """A NUM model cannot be built or solved as asked (bad input, or a size guard hit)."""


def resolved_scenario(scenario) -> dict:
    """A Scenario's resolved dict, or a scenario dict as it is."""
    if hasattr(scenario, "resolved") and callable(scenario.resolved):
        scenario = scenario.resolved()
    if not isinstance(scenario, dict):
        raise NumError(f"expected a Scenario or a scenario dict, not {type(scenario).__name__}")
    return scenario


# ---------------------------------------------------------------- neighbourhoods


class Radio:
    """Who is within range of whom.

    Either from positions and ranges (unit-disk model: in range when the distance is
    <= the range, as ncmesh's range channel), or from an explicit undirected link list
    (then "in range" = joined by a link, for reception, overhearing and interference
    alike). `delivery[(i, j)]` is the probability that a transmission i -> j arrives
    (1 unless given); it scales the hyperarc capacity as in Eq. (1) of Seferoglu & Markopoulou.
    """

    def __init__(
        self,
        n: int,
        positions: Sequence[tuple[float, float]] | None = None,
        range_m: float = 250.0,
        interference_range_m: float | None = None,
        links: Iterable[tuple[int, int]] | None = None,
        delivery: dict[tuple[int, int], float] | None = None,
    ):
        if n < 1:
            raise NumError("a topology needs at least one node")
        self.n = n
        self.positions = [tuple(map(float, p)) for p in positions] if positions is not None else None
        if self.positions is not None and len(self.positions) != n:
            raise NumError(f"{len(self.positions)} positions given for {n} nodes")
        self.range_m = float(range_m)
        self.interference_range_m = float(interference_range_m if interference_range_m is not None else range_m)
        if links is not None:
            nb: list[set[int]] = [set() for _ in range(n)]
            for a, b in links:
                a, b = int(a), int(b)
                if not (0 <= a < n and 0 <= b < n) or a == b:
                    raise NumError(f"link ({a}, {b}) is not a pair of distinct node ids in [0, {n})")
                nb[a].add(b)
                nb[b].add(a)
            self._rx = nb
            self._if = nb
        else:
            if self.positions is None:
                raise NumError("give node positions (with a range) or an explicit link list")
            self._rx = self._disk(self.range_m)
            self._if = self._disk(self.interference_range_m)
        self.delivery = dict(delivery or {})
        self.explicit_links = links is not None

    def _disk(self, r: float) -> list[set[int]]:
        pos = self.positions
        nb: list[set[int]] = [set() for _ in range(self.n)]
        for i in range(self.n):
            for j in range(i + 1, self.n):
                if math.dist(pos[i], pos[j]) <= r + 1e-9:
                    nb[i].add(j)
                    nb[j].add(i)
        return nb

    def hears(self, listener: int, tx: int) -> bool:
        """True when `listener` receives (or overhears) what `tx` sends."""
        return listener in self._rx[tx]

    def interferes(self, tx: int, at: int) -> bool:
        """True when a transmission of `tx` disturbs reception at node `at`."""
        return at in self._if[tx]

    def neighbours(self, i: int) -> list[int]:
        return sorted(self._rx[i])

    def p(self, i: int, j: int) -> float:
        return float(self.delivery.get((i, j), 1.0))


def shortest_path(radio: Radio, src: int, dst: int, cost: dict[tuple[int, int], float] | None = None) -> list[int]:
    """Shortest path src -> dst as ncmesh routes it (crates/ncmesh-core/src/net/routing.rs):
    Dijkstra towards dst (hop count unless `cost` gives per-link costs), each node's next
    hop being the lowest-id neighbour among those on a shortest path."""
    n = radio.n
    if src == dst:
        raise NumError(f"flow from node {src} to itself")
    dist = [math.inf] * n
    nxt = [None] * n
    dist[dst] = 0.0
    heap = [(0.0, dst)]
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for u in radio.neighbours(v):  # u can send to v
            c = 1.0 if cost is None else cost.get((u, v), math.inf)
            nd = d + c
            if nd < dist[u] - 1e-9 or (abs(nd - dist[u]) <= 1e-9 and (nxt[u] is None or v < nxt[u])):
                dist[u] = min(nd, dist[u])
                nxt[u] = v
                heapq.heappush(heap, (dist[u], u))
    if math.isinf(dist[src]):
        raise NumError(f"no route from node {src} to node {dst}")
    path = [src]
    while path[-1] != dst:
        path.append(nxt[path[-1]])
        if len(path) > n:
            raise NumError(f"routing loop from {src} to {dst}")
    return path


# ---------------------------------------------------------------- cliques / independent sets


def maximal_cliques(adj: list[set[int]], limit: int) -> list[tuple[int, ...]]:
    """All maximal cliques of an undirected graph (Bron-Kerbosch with pivoting), each as a
    sorted tuple, in sorted order. Raises NumError when more than `limit` exist."""
    out: list[tuple[int, ...]] = []

    def expand(r: list[int], p: set[int], x: set[int]) -> None:
        if not p and not x:
            out.append(tuple(sorted(r)))
            if len(out) > limit:
                raise NumError(
                    f"more than {limit} maximal sets: the topology is too large for exact "
                    "enumeration (raise max_sets, or use region='cliques')"
                )
            return
        pivot = max(sorted(p | x), key=lambda u: len(adj[u] & p))
        for v in sorted(p - adj[pivot]):
            expand(r + [v], p & adj[v], x & adj[v])
            p = p - {v}
            x = x | {v}

    expand([], set(range(len(adj))), set())
    return sorted(out)


def maximal_independent_sets(adj: list[set[int]], limit: int) -> list[tuple[int, ...]]:
    """Maximal independent sets = maximal cliques of the complement graph."""
    n = len(adj)
    comp = [set(range(n)) - adj[i] - {i} for i in range(n)]
    return maximal_cliques(comp, limit)
