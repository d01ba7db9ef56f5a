"""Flows that arrive and leave (ncmesh's `cell-grid`, Seferoglu & Markopoulou's grid): the
NUM optimum over the measurement window, and how many flows meet at a relay.

A scenario whose flows start and stop at different times has a different flow set in
each interval between two starts or stops. The optimum over the window is the optimum
of the flow set active in each interval, weighted by the interval's length, as ncmesh
measures goodput (bytes delivered over the window, summed over the flows):

    ratio = sum_i len_i * total_coded(set_i) / sum_i len_i * total_uncoded(set_i)

over the intervals of [simulation.measure_start_s, measure_end_s (or duration_s)];
intervals without flows add nothing. A flow is active in [start_s, stop_s) (stop_s unset:
to the end of the run) and follows its explicit `route` (the cell grid pins every route)
or ncmesh's shortest path (`model_from_scenario`). Identical flow sets are solved once, and
a flow set without any coding opportunity once (its optimum is the same without coding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .graph import NumError, resolved_scenario as _resolved


def _window(sc: dict) -> tuple[float, float, float]:
    sim = sc.get("simulation") or {}
    end = float(sim.get("duration_s", 60.0))
    start = float(sim.get("measure_start_s", 10.0))
    stop = sim.get("measure_end_s")
    return start, end if stop is None else float(stop), end


def _span(f: dict, end: float) -> tuple[float, float]:
    stop = f.get("stop_s")
    return float(f.get("start_s", 1.0)), end if stop is None else min(float(stop), end)


def flow_sets(scenario: Any) -> list[tuple[float, float, tuple[int, ...]]]:
    """The measurement window cut at every flow start and stop: (from, to, indices of the
    flows active in [from, to)), in time order."""
    sc = _resolved(scenario)
    m0, m1, end = _window(sc)
    spans = [_span(f, end) for f in sc.get("flows") or []]
    cuts = sorted({m0, m1} | {t for s in spans for t in s if m0 < t < m1})
    return [(a, b, tuple(i for i, (s, e) in enumerate(spans) if s <= a < e)) for a, b in zip(cuts, cuts[1:])]


def with_flows(scenario: Any, indices) -> dict:
    """The scenario with only the flows `indices` (a resolved dict)."""
    sc = dict(_resolved(scenario))
    flows = sc.get("flows") or []
    sc["flows"] = [flows[i] for i in indices]
    return sc


@dataclass
class TimeGain:
    """The optimum over the measurement window (module doc): time-weighted totals with and
    without coding, and one row per interval (from, to, active flows, coded, uncoded)."""

    name: str
    coding: str
    coded_total: float
    uncoded_total: float
    intervals: list[tuple[float, float, tuple[int, ...], float, float]]

    @property
    def ratio(self) -> float:
        return self.coded_total / self.uncoded_total

    @property
    def improvement_pct(self) -> float:
        return 100.0 * (self.ratio - 1.0)


def compare_over_time(scenario: Any, coding: str = "cope", **model_opts: Any) -> TimeGain:
    """The NUM optimum with `coding` and without, over the measurement window (module doc).
    `model_opts` go to `NumModel` (e.g. interference="two-way")."""
    from .topologies import model_from_scenario

    sc = _resolved(scenario)
    cache: dict[tuple[int, ...], tuple[float, float]] = {}
    coded = uncoded = 0.0
    rows = []
    for a, b, active in flow_sets(sc):
        if not active:
            rows.append((a, b, active, 0.0, 0.0))
            continue
        if active not in cache:
            m = model_from_scenario(with_flows(sc, active), coding=coding, **model_opts)
            c = m.solve().total
            # Without a coding opportunity the model is the uncoded one: the same optimum.
            cache[active] = (c, m.without_coding().solve().total if m.coded_options() else c)
        c, u = cache[active]
        coded += (b - a) * c
        uncoded += (b - a) * u
        rows.append((a, b, active, c, u))
    if uncoded <= 0:
        raise NumError(f"{sc.get('name', '')}: no flow is active in the measurement window")
    return TimeGain(sc.get("name", ""), coding, coded, uncoded, rows)


def relay_load(scenario: Any, at_least: int = 4) -> dict[str, float]:
    """How many active flows meet at a relay (a node inside a flow's route, not an end)
    over the measurement window: `max_flows_at_relay` (the most at any relay at any time),
    `share_at_least` (share of the window during which some relay carries `at_least` or
    more), `mean_active_flows` and `max_active_flows`. Flows without a `route` count no
    relay."""
    sc = _resolved(scenario)
    flows = sc.get("flows") or []
    m0, m1, _ = _window(sc)
    busiest, long_enough, active_time, most_active = 0, 0.0, 0.0, 0
    for a, b, active in flow_sets(sc):
        count: dict[int, int] = {}
        for i in active:
            for v in (flows[i].get("route") or [])[1:-1]:
                count[int(v)] = count.get(int(v), 0) + 1
        top = max(count.values(), default=0)
        busiest = max(busiest, top)
        long_enough += (b - a) if top >= at_least else 0.0
        active_time += (b - a) * len(active)
        most_active = max(most_active, len(active))
    span = m1 - m0
    return {"max_flows_at_relay": busiest, "share_at_least": long_enough / span if span > 0 else 0.0,
            "at_least": at_least, "mean_active_flows": active_time / span if span > 0 else 0.0,
            "max_active_flows": most_active}
