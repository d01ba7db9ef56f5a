"""ncmesh.num with flows that arrive and leave (the cell grid, Seferoglu & Markopoulou's grid): the
optimum over the measurement window against a hand-computed value, the flows meeting at relays,
and Table I's grid row."""

import pytest

import ncmesh
from ncmesh import num
from ncmesh.num import NumError

pytest.importorskip("cvxpy")

TOL = 1e-4


def hand_made_cell_grid() -> dict:
    """Three 80 m cells in a row, one node at each centre: A (0), R (1), B (2); the relay rule
    sends A <-> B through R, A -> R directly. Window [10, 50):
      [10, 30)  A -> B and B -> A through R (Alice-and-Bob): 2/3 with coding, 1/2 without;
      [30, 40)  A -> B alone: 1/2 either way (A -> R and R -> B share R);
      [40, 45)  A -> B and A -> R: both leave A towards R, so nothing to code; the three
                transmissions share R: max log x0 + log x2 with 2 x0 + x2 <= 1 gives
                x0 = 1/4, x2 = 1/2, total 3/4 either way;
      [45, 50)  A -> B alone: 1/2.
    Time-weighted: (20 * 2/3 + 10/2 + 5 * 3/4 + 5/2) / (20/2 + 10/2 + 5 * 3/4 + 5/2) = 59/51."""
    return {
        "name": "hand-made cell grid",
        "simulation": {"duration_s": 50.0, "measure_start_s": 10.0},
        "channel": {"model": "range", "rx_range_m": 250.0, "interference_range_m": 250.0},
        "nodes": [{"x": 40.0, "y": 40.0}, {"x": 120.0, "y": 40.0}, {"x": 200.0, "y": 40.0}],
        "flows": [
            {"src": 0, "dst": 2, "route": [0, 1, 2], "start_s": 1.0},
            {"src": 2, "dst": 0, "route": [2, 1, 0], "start_s": 1.0, "stop_s": 30.0},
            {"src": 0, "dst": 1, "route": [0, 1], "start_s": 40.0, "stop_s": 45.0},
        ],
    }


def test_optimum_over_the_window_equals_the_hand_computed_value():
    sc = hand_made_cell_grid()
    assert num.flow_sets(sc) == [(10.0, 30.0, (0, 1)), (30.0, 40.0, (0,)), (40.0, 45.0, (0, 2)),
                                 (45.0, 50.0, (0,))]
    g = num.compare_over_time(sc)
    per = [(a, b, c, u) for a, b, _, c, u in g.intervals]
    want = [(10, 30, 2 / 3, 1 / 2), (30, 40, 1 / 2, 1 / 2), (40, 45, 3 / 4, 3 / 4), (45, 50, 1 / 2, 1 / 2)]
    for (a, b, c, u), (wa, wb, wc, wu) in zip(per, want):
        assert (a, b) == (wa, wb)
        assert c == pytest.approx(wc, abs=TOL) and u == pytest.approx(wu, abs=TOL)
    assert g.coded_total == pytest.approx(20 * 2 / 3 + 5 + 3.75 + 2.5, abs=1e-3)
    assert g.uncoded_total == pytest.approx(21.25, abs=1e-3)
    assert g.ratio == pytest.approx(59 / 51, abs=TOL)
    # All three flows at once (what compare does) is another network: with coding x0 = x1 = 2/9, x2 = 1/3
    # (3 x + x2 <= 1), without x0 = x1 = 1/6, x2 = 1/3 (4 x + x2 <= 1): 7/9 over 2/3.
    assert num.compare(sc).ratio == pytest.approx(7 / 6, abs=TOL)


def test_relay_load_counts_the_flows_a_relay_carries():
    load = num.relay_load(hand_made_cell_grid(), at_least=2)
    assert load["max_flows_at_relay"] == 2                    # A <-> B through R in [10, 30)
    assert load["share_at_least"] == pytest.approx(20 / 40)
    assert load["mean_active_flows"] == pytest.approx((20 * 2 + 10 + 5 * 2 + 5) / 40)
    assert load["max_active_flows"] == 2
    assert num.relay_load(hand_made_cell_grid())["share_at_least"] == 0      # never four


def test_no_flow_in_the_window_is_an_error():
    sc = hand_made_cell_grid()
    sc["flows"] = [dict(sc["flows"][1], stop_s=5.0)]
    with pytest.raises(NumError, match="no flow is active"):
        num.compare_over_time(sc)


def test_builder_cell_grid_routes_and_over_time_optimum():
    sc = num.cell_grid(seed=2, duration=30)
    assert sc == ncmesh.Scenario.build("cell-grid", seed=2, duration=30).resolved()
    assert all(f["route"][0] == f["src"] and f["route"][-1] == f["dst"] for f in sc["flows"])
    m = num.model_from_scenario(sc)                           # the explicit routes, not shortest paths
    assert [list(f.path) for f in m.flows] == [f["route"] for f in sc["flows"]]
    g = num.compare_over_time(sc)
    assert g.ratio >= 1 - 0.01
    assert sum(b - a for a, b, *_ in g.intervals) == pytest.approx(30 - sc["simulation"]["measure_start_s"])


def test_table1_grid_row_is_the_cell_grid_and_the_lattice_stays_available():
    t = num.table1(grid_seeds=(1, 2), grid_opts={"duration": 25})
    assert t["grid"]["kind"] == "cell-grid" and len(t["grid"]["per_seed"]) == 2
    for seed, ratio in zip((1, 2), t["grid"]["per_seed"]):
        assert ratio == pytest.approx(num.compare_over_time(num.cell_grid(seed=seed, duration=25)).ratio)
    # The earlier 4x4 lattice: all its flows run through the window, so the over-time optimum is its plain one.
    lattice = num.table1(grid_seeds=(3,), grid_kind="grid")["grid"]["per_seed"][0]
    assert lattice == pytest.approx(num.compare(num.grid(seed=3)).ratio, abs=1e-9)
    # grid_channel replaces the channel fields of the built grids
    wide = num.table1(grid_seeds=(1,), grid_opts={"duration": 25}, grid_channel={"interference_range_m": 445.0})
    sc = num.cell_grid(seed=1, duration=25)
    sc["channel"]["interference_range_m"] = 445.0
    assert wide["grid"]["per_seed"][0] == pytest.approx(num.compare_over_time(sc).ratio)
