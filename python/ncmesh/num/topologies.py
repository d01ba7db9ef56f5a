"""The paper's topologies as scenario-like dicts, the bridge from ncmesh scenarios to a
`NumModel`, and the coding gains (Table I's "Optimal" column, the analytic gains).

Geometry follows ncmesh's scenario builders (crates/ncmesh-core/src/scenario/build.rs),
receive = interference range 250 m:
- chain: nodes 0..hops on the x axis, `spacing` apart (200 m), one flow 0 -> hops;
- alice-bob: A (-r, 0), relay (0, 0), B (r, 0), flows A -> B and B -> A (r = 200 m);
- x: n0 west, n1 centre, n2 east, n3 north, n4 south at radius r; flows W -> E, N -> S.
  ncmesh's default r is 200 m, where a sink (283 m from the other source) cannot
  overhear, so there is no coding opportunity; here the default is 150 m (as ncmesh's
  cross), where rim neighbours (212 m) hear each other and opposite nodes (300 m) do not;
- cross: same five nodes, r = 150 m, flows W -> E, N -> S, E -> W, S -> N.
  With r = 150 m ncmesh's shortest-path routing (ties to the lower id) sends N -> S and
  S -> N through W (node 0), not the centre; the paper routes every flow through the
  relay, so these builders pin the routes [src, 1, dst] (routes="relay", default);
  routes="auto" leaves them to the shortest-path rule;
- wheel(N): relay 0 at the centre; layout "shared" (ncmesh's wheel, N even): N rim nodes
  1..N counter-clockwise from east, each sending to the opposite one; layout "split"
  (any N >= 2): 2N rim nodes, rim k (k < N) sends to the opposite rim k + N, i.e. the
  rim of ncmesh's wheel with 2N flows, of which only the first N are kept. Radius:
  ncmesh's `wheel_radius(rim nodes, range)` (middle of the interval where opposite rim
  nodes are out of range and all others in range). Default layout: shared for even N,
  split for odd N;
- butterfly: ncmesh's fixed coordinates and explicit routes 0-2-3-4 and 1-2-3-5;
- grid: `ncmesh.Scenario.build("grid", ...)` itself (its random pairs come from the Rust
  builder's random stream);
- cell-grid: `ncmesh.Scenario.build("cell-grid", ...)` itself, Seferoglu & Markopoulou's grid
  (cells of 1-2 nodes, Poisson flow arrivals with exponential lifetimes, relays drawn in
  neighbouring cells, explicit routes). Its flows come and go: `compare` and `coding_gain`
  treat all flows as active at once; `arrivals.compare_over_time` weighs the flow set of
  each moment of the measurement window, as `table1` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .graph import NumError
from .model import NumModel, Solution

RANGE_M = 250.0
BUTTERFLY = [(-150.0, 115.0), (150.0, 115.0), (0.0, 115.0), (0.0, -115.0), (150.0, -115.0), (-150.0, -115.0)]


def _scn(name: str, pos, flows, routes=None, range_m: float = RANGE_M) -> dict:
    fl = []
    for i, (a, b) in enumerate(flows):
        f = {"src": int(a), "dst": int(b)}
        if routes is not None and routes[i] is not None:
            f["route"] = list(routes[i])
        fl.append(f)
    return {
        "name": name,
        "nodes": [{"x": float(x), "y": float(y)} for x, y in pos],
        "flows": fl,
        "channel": {"model": "range", "rx_range_m": range_m, "interference_range_m": range_m},
    }


def _check(spacing: float, range_m: float, what: str) -> None:
    if not spacing > 0:
        raise NumError(f"spacing {spacing}: expected a number > 0")
    if spacing > range_m:
        raise NumError(f"spacing {spacing} m exceeds the {range_m} m range ({what})")


def five_star(r: float):
    return [(-r, 0.0), (0.0, 0.0), (r, 0.0), (0.0, r), (0.0, -r)]


def chain(hops: int = 4, spacing: float = 200.0, range_m: float = RANGE_M) -> dict:
    _check(spacing, range_m, "neighbours must hear each other")
    return _scn(f"chain-{hops}hop", [(i * spacing, 0.0) for i in range(hops + 1)], [(0, hops)], range_m=range_m)


def alice_bob(spacing: float = 200.0, range_m: float = RANGE_M) -> dict:
    _check(spacing, range_m, "A and B must reach the relay")
    return _scn("alice-bob", [(-spacing, 0.0), (0.0, 0.0), (spacing, 0.0)], [(0, 2), (2, 0)], range_m=range_m)


def _relay_routes(pairs, relay: int, routes: str):
    if routes not in ("relay", "auto"):
        raise NumError(f"routes {routes!r}: expected 'relay' or 'auto'")
    return [[a, relay, b] for a, b in pairs] if routes == "relay" else None


def x_topology(spacing: float = 150.0, routes: str = "relay", range_m: float = RANGE_M) -> dict:
    _check(spacing, range_m, "every node must reach the centre")
    pairs = [(0, 2), (3, 4)]
    return _scn("x", five_star(spacing), pairs, _relay_routes(pairs, 1, routes), range_m=range_m)


def cross(spacing: float = 150.0, routes: str = "relay", range_m: float = RANGE_M) -> dict:
    _check(spacing, range_m, "every node must reach the centre")
    pairs = [(0, 2), (3, 4), (2, 0), (4, 3)]
    return _scn("cross", five_star(spacing), pairs, _relay_routes(pairs, 1, routes), range_m=range_m)


def wheel_radius(n: int, range_m: float = RANGE_M) -> float:
    """ncmesh's default wheel radius for n rim nodes (build.rs `wheel_radius`)."""
    lo = range_m / 2.0
    hi = min(range_m / (2.0 * math.cos(math.pi / n)), range_m) if n > 2 else range_m
    return round((lo + hi) / 2.0, 3)


def wheel(flows: int = 8, spacing: float | None = None, layout: str | None = None, range_m: float = RANGE_M) -> dict:
    n = int(flows)
    if n < 2:
        raise NumError(f"wheel flows {n}: expected >= 2")
    if layout is None:
        layout = "shared" if n % 2 == 0 else "split"
    if layout not in ("shared", "split"):
        raise NumError(f"wheel layout {layout!r}: expected 'shared' or 'split'")
    if layout == "shared" and n % 2:
        raise NumError(f"wheel layout 'shared' needs an even number of flows, got {n}")
    rim = n if layout == "shared" else 2 * n
    r = wheel_radius(rim, range_m) if spacing is None else float(spacing)
    _check(r, range_m, "every rim node must reach the centre")
    pos = [(0.0, 0.0)]
    for k in range(rim):
        a = 2.0 * math.pi * k / rim
        pos.append((round(r * math.cos(a), 6), round(r * math.sin(a), 6)))
    pairs = [(1 + k, 1 + (k + rim // 2) % rim) for k in range(n)]
    return _scn(f"wheel-{n}flows-{layout}", pos, pairs, range_m=range_m)


def butterfly(range_m: float = RANGE_M) -> dict:
    return _scn("butterfly", BUTTERFLY, [(0, 4), (1, 5)], routes=[[0, 2, 3, 4], [1, 2, 3, 5]], range_m=range_m)


def grid(**opts: Any) -> dict:
    """ncmesh's grid scenario (rows, cols, spacing, flows, min_hops, jitter, seed), resolved."""
    from ..scenario import Scenario

    return Scenario.build("grid", **opts).resolved()


def cell_grid(**opts: Any) -> dict:
    """ncmesh's cell grid (rows, cols, cell, pair_prob, neighbours, arrival_rate, lifetime,
    seed, duration, start, measure_start), resolved."""
    from ..scenario import Scenario

    return Scenario.build("cell-grid", **opts).resolved()


BUILDERS = {
    "chain": chain,
    "alice-bob": alice_bob,
    "x": x_topology,
    "cross": cross,
    "wheel": wheel,
    "butterfly": butterfly,
    "grid": grid,
    "cell-grid": cell_grid,
}

# The coding scheme whose gain the paper quotes for each topology.
DEFAULT_CODING = {"butterfly": "bfly"}


def topology(kind: str, **opts: Any) -> dict:
    """A scenario-like dict for one of `BUILDERS` (options as the builder's arguments)."""
    k = kind.strip().lower().replace("_", "-")
    k = {"alicebob": "alice-bob", "alice-and-bob": "alice-bob"}.get(k, k)
    if k not in BUILDERS:
        raise NumError(f"topology {kind!r}: expected one of {', '.join(BUILDERS)}")
    return BUILDERS[k](**opts)


# ---------------------------------------------------------------- scenarios -> model


def model_from_scenario(scenario: Any, coding: str = "cope", **model_opts: Any) -> NumModel:
    """A `NumModel` from an ncmesh scenario: a `Scenario` (resolved here), a resolved
    scenario dict (`Scenario.build(kind, **opts).resolved()`), or a builder dict of this
    module.

    Range channel: positions with `channel.rx_range_m` (receive and overhearing) and
    `channel.interference_range_m`. Link-table channel: the links usable both ways
    (p >= routing.min_delivery) are the neighbourhoods, their delivery probabilities
    scale the hyperarc capacities. Paths: each flow's explicit `route` if present, else
    the shortest path as ncmesh routes it (hop count, or ETX with routing.metric = "etx"
    on a link table; ties to the lower node id). `model_opts` go to `NumModel`.
    """
    from .graph import Radio, resolved_scenario, shortest_path

    scenario = resolved_scenario(scenario)
    nodes = scenario.get("nodes") or []
    flows = scenario.get("flows") or []
    if not nodes or not flows:
        raise NumError("the scenario has no nodes or no flows")
    pos = [(float(n["x"]), float(n["y"])) for n in nodes]
    ch = scenario.get("channel") or {}
    routing = scenario.get("routing") or {}
    kw: dict[str, Any] = {}
    cost = None
    if ch.get("model", "range") == "linktable":
        pmin = float(routing.get("min_delivery", 0.1))
        links, delivery = [], {}
        for l in ch.get("links") or []:
            a, b, pab, pba = int(l["a"]), int(l["b"]), float(l["p_ab"]), float(l["p_ba"])
            if pab >= pmin and pba >= pmin:
                links.append((a, b))
                delivery[(a, b)] = pab
                delivery[(b, a)] = pba
        kw.update(links=links, delivery=delivery)
        if routing.get("metric", "hops") == "etx":
            cost = {(a, b): 1.0 / (delivery[(a, b)] * delivery[(b, a)]) for a, b in delivery}
        radio = Radio(len(pos), pos, links=links)
    else:
        rx = float(ch.get("rx_range_m", RANGE_M))
        kw.update(range_m=rx, interference_range_m=float(ch.get("interference_range_m", rx)))
        radio = Radio(len(pos), pos, rx)
    paths = []
    for i, f in enumerate(flows):
        src, dst = int(f["src"]), int(f["dst"])
        route = f.get("route")
        if route:
            path = [int(v) for v in route]
            if path[0] != src or path[-1] != dst:
                raise NumError(f"flow {i}: route {path} does not go from {src} to {dst}")
        else:
            path = shortest_path(radio, src, dst, cost)
        paths.append({"path": path, "name": f"f{i}:{src}->{dst}"})
    kw.update(model_opts)
    return NumModel(paths, n_nodes=len(pos), positions=pos, coding=coding, name=scenario.get("name", ""), **kw)


# ---------------------------------------------------------------- gains


@dataclass
class Gain:
    """Coding gain of the NUM optimum: `ratio` = total rate with coding / without coding
    (the paper's "Optimal" improvement is (ratio - 1) x 100 %)."""

    name: str
    coding: str
    coded: Solution
    uncoded: Solution

    @property
    def ratio(self) -> float:
        return self.coded.total / self.uncoded.total

    @property
    def improvement_pct(self) -> float:
        return 100.0 * (self.ratio - 1.0)


def _split_opts(opts: dict) -> tuple[dict, dict]:
    model_keys = {
        "capacity", "default_capacity", "region", "overprovision", "interference", "overhear",
        "max_code_size", "max_codes", "max_sets", "hyperarcs", "delivery",
    }
    return {k: v for k, v in opts.items() if k not in model_keys}, {k: v for k, v in opts.items() if k in model_keys}


def compare(kind_or_scenario: Any, coding: str | None = None, **opts: Any) -> Gain:
    """Solves the NUM problem with and without coding. `kind_or_scenario` is a builder
    kind (options: the builder's, plus NumModel options such as capacity or region) or a
    scenario (then `opts` are NumModel options). Default coding: "bfly" for the
    butterfly, else "cope"."""
    if isinstance(kind_or_scenario, str):
        bopts, mopts = _split_opts(opts)
        kind = kind_or_scenario.strip().lower().replace("_", "-")
        scn = topology(kind, **bopts)
        if coding is None:
            coding = DEFAULT_CODING.get(kind, "cope")
    else:
        scn, mopts = kind_or_scenario, opts
        coding = coding or "cope"
    m = model_from_scenario(scn, coding=coding, **mopts)
    return Gain(m.name, coding, m.solve(), m.without_coding().solve())


def coding_gain(kind_or_scenario: Any, coding: str | None = None, **opts: Any) -> float:
    """Ratio of the total throughput at the log-utility optimum with coding to the one
    without coding (e.g. 4/3 for Alice-and-Bob). See `compare`."""
    return compare(kind_or_scenario, coding, **opts).ratio


def analytic_gain(kind: str, flows: int | None = None) -> float:
    """The closed-form gains the paper quotes: Alice-and-Bob and X 4/3, cross 8/5,
    wheel of N flows 2N/(N+1), butterfly 3/2."""
    k = kind.strip().lower().replace("_", "-")
    if k in ("alice-bob", "x"):
        return 4.0 / 3.0
    if k == "cross":
        return 8.0 / 5.0
    if k == "butterfly":
        return 1.5
    if k == "wheel":
        n = 8 if flows is None else int(flows)
        return 2.0 * n / (n + 1.0)
    raise NumError(f"no analytic gain for {kind!r}")


GRID_SEEDS = tuple(range(1, 21))


def table1(grid_seeds=GRID_SEEDS, grid_opts: dict | None = None, grid_kind: str = "cell-grid",
           grid_channel: dict | None = None) -> dict[str, dict[str, Any]]:
    """Table I's "Optimal" column: improvement (%) of the NUM optimum with COPE over no
    coding, for Alice-and-Bob, X, cross and grid (the paper gives "-" for the grid).

    Grid: the mean over `grid_seeds` of ncmesh's `grid_kind` scenario built with
    `grid_opts` (default: the cell grid, Seferoglu & Markopoulou's, with the builder's
    defaults), its channel fields replaced by `grid_channel` (e.g. the simulated
    interference range), each seed's optimum taken over the measurement window
    (`arrivals.compare_over_time`: the flow set active at each moment, weighted by how long
    it is active). `grid_kind="grid"`: the 4x4 lattice of earlier versions (a sensitivity
    check; its flows all run through the window, so this is its plain optimum)."""
    from .arrivals import compare_over_time

    out: dict[str, dict[str, Any]] = {}
    for kind in ("alice-bob", "x", "cross"):
        g = compare(kind, "cope")
        out[kind] = {"ratio": g.ratio, "improvement_pct": g.improvement_pct, "paper_pct": {"alice-bob": 33, "x": 33, "cross": 60}[kind]}
    ratios = []
    for seed in grid_seeds:
        opts = dict(grid_opts or {})
        opts["seed"] = seed
        scn = topology(grid_kind, **opts)
        if grid_channel:
            scn["channel"] = {**(scn.get("channel") or {}), **grid_channel}
        ratios.append(compare_over_time(scn, "cope").ratio)
    mean = sum(ratios) / len(ratios)
    out["grid"] = {
        "kind": grid_kind,
        "ratio": mean,
        "improvement_pct": 100.0 * (mean - 1.0),
        "per_seed": ratios,
        "min_pct": 100.0 * (min(ratios) - 1.0),
        "max_pct": 100.0 * (max(ratios) - 1.0),
        "paper_pct": None,
    }
    return out
