"""ncmesh.num: the NUM optimum of Seferoglu & Markopoulou (hypergraph of coding opportunities, conflict
graph, exact log-utility optimum, analytic coding gains, scenario bridge)."""

import math

import pytest

import ncmesh
from ncmesh import num
from ncmesh.num import Hyperarc, NumError, NumModel

pytest.importorskip("cvxpy")

TOL = 1e-3


# ---------------------------------------------------------------- analytic gains


@pytest.mark.parametrize(
    "kind, expected",
    [("alice-bob", 4 / 3), ("x", 4 / 3), ("cross", 8 / 5), ("butterfly", 3 / 2)],
)
def test_analytic_gains(kind, expected):
    assert num.analytic_gain(kind) == pytest.approx(expected)
    assert num.coding_gain(kind) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("n", range(2, 9))
def test_wheel_gain_is_2n_over_n_plus_1(n):
    g = num.compare("wheel", flows=n)
    assert g.ratio == pytest.approx(2 * n / (n + 1), abs=TOL)
    # every flow gets 1/(N+1) with coding and 1/(2N) without
    assert g.coded.rates == pytest.approx([1 / (n + 1)] * n, abs=TOL)
    assert g.uncoded.rates == pytest.approx([1 / (2 * n)] * n, abs=TOL)


def test_appendix_a_alice_bob_totals():
    # Appendix A: unit capacities, total 2/3 with coding, 1/2 without.
    g = num.compare("alice-bob")
    assert g.coded.total == pytest.approx(2 / 3, abs=1e-4)
    assert g.uncoded.total == pytest.approx(1 / 2, abs=1e-4)
    assert g.improvement_pct == pytest.approx(100 / 3, abs=0.1)


def test_butterfly_cope_only_is_weaker_than_bfly():
    scn = num.butterfly()
    cope = num.coding_gain(scn, "cope")
    bfly = num.coding_gain(scn, "bfly")
    assert cope == pytest.approx(6 / 5, abs=TOL)  # R2 codes; R1 -> R2 still carries 2 packets
    assert bfly == pytest.approx(3 / 2, abs=TOL)


def test_gain_scales_with_capacity_unit():
    g1 = num.compare("alice-bob")
    g2 = num.compare("alice-bob", capacity=11.0)
    assert g2.coded.total == pytest.approx(11 * g1.coded.total, rel=1e-4)
    assert g2.ratio == pytest.approx(g1.ratio, abs=TOL)


def test_cliques_region_agrees_on_a_single_clique():
    a = num.compare("cross", region="cliques")
    assert a.ratio == pytest.approx(8 / 5, abs=TOL)


# ---------------------------------------------------------------- coding opportunities


def test_alice_bob_relay_xor_is_a_hyperarc():
    m = num.model_from_scenario(num.alice_bob(), coding="cope")
    coded = m.coded_options()
    assert len(coded) == 1
    (code,) = coded[0].codes
    assert code.hyperarc == Hyperarc(1, (0, 2))
    assert code.members == ((0, 2), (1, 0))  # flow 0 to B (node 2), flow 1 to A (node 0)
    assert Hyperarc(1, (0, 2)) in m.hyperarcs
    assert len(m.hyperarcs) == 5  # A->R, B->R, R->A, R->B, R->{A,B}


def test_no_coding_on_a_single_flow_chain():
    m = num.model_from_scenario(num.chain(hops=3), coding="bfly")
    assert m.coded_options() == []
    assert [str(h) for h in m.hyperarcs] == ["0->1", "1->2", "2->3"]


def test_coding_none_has_only_unicasts():
    m = num.model_from_scenario(num.cross(), coding="none")
    assert all(o.kind == "native" and len(o.codes[0].hyperarc.rx) == 1 for o in m.options)


def test_x_coding_needs_overhearing():
    # radius 150: each sink overhears the other source (212 m) -> one code at the relay
    m = num.model_from_scenario(num.x_topology(spacing=150))
    assert [str(o) for o in m.coded_options()] == ["cope[1: f0->2 xor f1->4]"]
    # radius 200 (ncmesh's x default): sinks are 283 m from the other source -> no code
    m = num.model_from_scenario(num.x_topology(spacing=200))
    assert m.coded_options() == []
    assert num.coding_gain("x", spacing=200) == pytest.approx(1.0, abs=TOL)


def test_cross_codes_every_subset_of_two_or_more():
    m = num.model_from_scenario(num.cross())
    sizes = sorted(len(o.codes[0].members) for o in m.coded_options())
    assert sizes == [2] * 6 + [3] * 4 + [4]


def test_butterfly_two_hop_code():
    m = num.model_from_scenario(num.butterfly(), coding="bfly")
    (b,) = [o for o in m.options if o.kind == "bfly"]
    enc, fwd = b.codes
    assert enc.hyperarc == Hyperarc(2, (3,)) and enc.members == ((0, 3), (1, 3))
    assert fwd.hyperarc == Hyperarc(3, (4, 5)) and fwd.forward
    assert b.hops == ((0, 1), (0, 2), (1, 1), (1, 2))
    # the one-hop code at R2 needs D1 to have overheard S2 two hops back
    assert [o.kind for o in m.coded_options()] == ["cope", "bfly"]
    m = num.model_from_scenario(num.butterfly(), coding="bfly", overhear="previous")
    assert [o.kind for o in m.coded_options()] == ["bfly"]  # S -> R1 is R1's previous hop
    assert num.model_from_scenario(num.butterfly(), coding="cope", overhear="previous").coded_options() == []


def test_explicit_hyperarcs():
    flows = [[0, 1, 2], [2, 1, 0]]
    links = [(0, 1), (1, 2)]
    m = NumModel(flows, links=links, hyperarcs=[(1, [(0, 2), (1, 0)])])
    assert m.coding == "explicit"
    assert len(m.coded_options()) == 1
    assert m.solve().total == pytest.approx(2 / 3, abs=TOL)
    assert NumModel(flows, links=links, hyperarcs=[]).solve().total == pytest.approx(1 / 2, abs=TOL)
    with pytest.raises(NumError, match="no hop"):
        NumModel(flows, links=links, hyperarcs=[(1, [(0, 0), (1, 2)])])


# ---------------------------------------------------------------- conflict graph


def test_chain_of_three_links_conflicts():
    # spacing 200, range 250: 0->1 and 2->3 conflict (transmitter 2 is 200 m from receiver 1)
    m = num.model_from_scenario(num.chain(hops=3, spacing=200))
    assert len(m.conflict_edges()) == 3
    assert sorted(tuple(map(str, s)) for s in m.independent_hyperarc_sets()) == [("0->1",), ("1->2",), ("2->3",)]
    assert m.solve().rates == pytest.approx([1 / 3], abs=TOL)


def test_chain_of_four_links_reuses_space():
    m = num.model_from_scenario(num.chain(hops=4, spacing=200))
    sets = sorted(tuple(map(str, s)) for s in m.independent_hyperarc_sets())
    assert sets == [("0->1", "3->4"), ("1->2",), ("2->3",)]
    assert m.solve().rates == pytest.approx([1 / 3], abs=TOL)


def test_protocol_model_definition():
    # two links far apart do not conflict; a shared node always does
    pos = [(0, 0), (200, 0), (1000, 0), (1200, 0)]
    m = NumModel([[0, 1], [2, 3]], positions=pos)
    assert not m.conflict(Hyperarc(0, (1,)), Hyperarc(2, (3,)))
    assert m.conflict(Hyperarc(0, (1,)), Hyperarc(1, (0,)))
    assert m.solve().rates == pytest.approx([1.0, 1.0], abs=TOL)
    # a transmitter within range of the other's receiver only: protocol conflicts one way
    pos = [(0, 0), (200, 0), (440, 0), (640, 0)]  # 2 is 240 m from receiver 1
    m = NumModel([[0, 1], [2, 3]], positions=pos)
    assert m.conflict(Hyperarc(0, (1,)), Hyperarc(2, (3,)))


def test_maximal_independent_sets_small_graph():
    # path 0-1-2-3: maximal independent sets {0,2}, {0,3}, {1,3}
    adj = [{1}, {0, 2}, {1, 3}, {2}]
    assert num.maximal_independent_sets(adj, 100) == [(0, 2), (0, 3), (1, 3)]
    with pytest.raises(NumError, match="more than"):
        num.maximal_independent_sets(adj, 2)


# ---------------------------------------------------------------- builders and scenarios


@pytest.mark.parametrize(
    "kind, opts, mine",
    [
        ("alice-bob", {}, num.alice_bob()),
        ("x", {"spacing": 200}, num.x_topology(spacing=200)),
        ("cross", {}, num.cross()),
        ("chain", {"hops": 3}, num.chain(hops=3)),
        ("butterfly", {}, num.butterfly()),
        ("wheel", {"flows": 6}, num.wheel(flows=6)),
    ],
)
def test_builders_match_ncmesh_geometry(kind, opts, mine):
    ref = ncmesh.Scenario.build(kind, **opts).resolved()
    assert [(n["x"], n["y"]) for n in ref["nodes"]] == [(n["x"], n["y"]) for n in mine["nodes"]]
    assert [(f["src"], f["dst"]) for f in ref["flows"]] == [(f["src"], f["dst"]) for f in mine["flows"]]


def test_model_from_ncmesh_scenario_routes_like_the_simulator():
    # The builder pins every flow through the relay: the paper's cross, gain 8/5.
    sc = ncmesh.Scenario.build("cross")
    m = num.model_from_scenario(sc)
    assert [f.path for f in m.flows] == [(0, 1, 2), (3, 1, 4), (2, 1, 0), (4, 1, 3)]
    assert num.coding_gain(sc) == pytest.approx(8 / 5, abs=TOL)
    # Left to routing: at radius 150 N -> S has three 2-hop paths; ties go to the
    # lower id (node 0, west), so only two flows meet at the relay.
    sc = ncmesh.Scenario.build("cross", routes="auto")
    m = num.model_from_scenario(sc)
    assert [f.path for f in m.flows] == [(0, 1, 2), (3, 0, 4), (2, 1, 0), (4, 0, 3)]
    assert num.coding_gain(sc) == pytest.approx(4 / 3, abs=TOL)
    m = num.model_from_scenario(ncmesh.Scenario.build("butterfly").resolved(), coding="bfly")
    assert [f.path for f in m.flows] == [(0, 2, 3, 4), (1, 2, 3, 5)]


def test_grid_scenario_builds_and_solves():
    scn = num.grid(seed=3)
    m = num.model_from_scenario(scn, coding="cope")
    assert len(m.flows) == 4 and all(len(f.path) >= 3 for f in m.flows)
    g = num.compare(scn)
    assert g.ratio >= 1 - 0.01  # the log-utility optimum may trade a little total for fairness
    assert all(r > 0 for r in g.coded.rates)


def test_wheel_layouts():
    assert len(num.wheel(flows=3)["nodes"]) == 7  # split: 2N rim nodes
    assert len(num.wheel(flows=4)["nodes"]) == 5  # shared: N rim nodes
    assert num.wheel_radius(8) == pytest.approx(130.16, abs=0.01)
    with pytest.raises(NumError):
        num.wheel(flows=3, layout="shared")


def test_bad_input():
    with pytest.raises(NumError, match="coding"):
        num.model_from_scenario(num.alice_bob(), coding="xor")
    with pytest.raises(NumError, match="not a link"):
        NumModel([[0, 2]], positions=[(0, 0), (200, 0), (400, 0)])
    with pytest.raises(NumError, match="topology"):
        num.topology("ring")


def test_solution_views():
    s = num.model_from_scenario(num.alice_bob()).solve()
    assert s.rates_by_flow == pytest.approx({"f0:0->2": 1 / 3, "f1:2->0": 1 / 3}, abs=TOL)
    assert s.activations[Hyperarc(1, (0, 2))] == pytest.approx(1 / 3, abs=TOL)
    assert sum(t for _, t in s.schedule) == pytest.approx(1.0, abs=TOL)
    assert s.coded_share() > 0.3
    assert math.isclose(s.utility, 2 * math.log(1 / 3), abs_tol=1e-3)


def test_model_from_link_table_scenario():
    # Alice-and-Bob as a link table: the relay's links deliver 80 %, A and B do not hear each other
    scn = {
        "nodes": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 2, "y": 0}],
        "flows": [{"src": 0, "dst": 2}, {"src": 2, "dst": 0}],
        "channel": {"model": "linktable", "links": [
            {"a": 0, "b": 1, "p_ab": 0.8, "p_ba": 0.8},
            {"a": 1, "b": 2, "p_ab": 0.8, "p_ba": 0.8},
            {"a": 0, "b": 2, "p_ab": 0.05, "p_ba": 0.05},  # below min_delivery: unusable
        ]},
        "routing": {"metric": "etx", "min_delivery": 0.1},
    }
    g = num.compare(scn)
    assert [f.path for f in num.model_from_scenario(scn).flows] == [(0, 1, 2), (2, 1, 0)]
    assert g.coded.total == pytest.approx(0.8 * 2 / 3, abs=TOL)
    assert g.ratio == pytest.approx(4 / 3, abs=TOL)


# ---------------------------------------------------------------- the solve path (issue 30)


def _solve_models():
    """Models of every region, coding and shape kind the reproductions solve: the paper's
    topologies and the flow sets of a cell grid (coded and uncoded)."""
    from ncmesh.num.arrivals import flow_sets, with_flows

    models = [num.model_from_scenario(num.topology(kind), coding=coding, region=region)
              for kind in ("alice-bob", "cross", "butterfly", "wheel")
              for coding in ("none", "cope", "bfly") for region in ("independent-sets", "cliques")]
    sc = num.topology("cell-grid", seed=2)
    for _, _, active in flow_sets(sc)[::3]:
        if active:
            m = num.model_from_scenario(with_flows(sc, active), coding="cope")
            models += [m, m.without_coding()]
    return models


def _through_cvxpy(m: NumModel):
    """cvxpy's problem for `m` (as solve built it before issue 30), compiled for Clarabel,
    and the Solution that solving it through cvxpy gives."""
    cp = pytest.importorskip("cvxpy")
    attempt = m._cvxpy_attempt("CLARABEL")
    m._clarabel_attempt = attempt            # this model only: solve() goes through cvxpy
    try:
        solution = m.solve()
    finally:
        del m._clarabel_attempt
    x = cp.Variable(len(m.flows))
    y = cp.Variable(len(m.options), nonneg=True)
    if m.region == "independent-sets":
        lam = cp.Variable(m.S.shape[1], nonneg=True)
        tau, region = m.S @ lam, [cp.sum(lam) <= m.overprovision]
    else:
        tau = cp.Variable(len(m.hyperarcs), nonneg=True)
        region = [m.K @ tau <= m.overprovision]
    prob = cp.Problem(cp.Maximize(m.weights @ cp.log(x)),
                      [m.A @ y >= m.G.T @ x, m.B @ y <= cp.multiply(m.capacities, tau), *region])
    data, _, _ = prob.get_problem_data(cp.CLARABEL)
    return data, solution


def test_conic_program_is_cvxpys_and_solves_to_the_same_bits():
    # The conic program handed to Clarabel is the one cvxpy compiles, entry for entry, so
    # the optimum is the same to the last bit (the identity gate's NUM numbers rely on it).
    for m in _solve_models():
        data, reference = _through_cvxpy(m)
        prog = m.conic_program()
        assert prog.A.shape == data["A"].shape, m.describe()
        assert (prog.A.indptr == data["A"].indptr).all() and (prog.A.indices == data["A"].indices).all()
        assert (prog.A.data == data["A"].data).all()
        assert (prog.b == data["b"]).all() and (prog.q == data["c"]).all()
        assert (prog.nonneg, prog.n_exp) == (data["dims"].nonneg, data["dims"].exp)
        mine = m.solve()
        for field in ("total", "utility", "activations", "loads", "option_rates", "schedule", "q", "p", "status"):
            assert repr(getattr(mine, field)) == repr(getattr(reference, field)), (field, m.describe())
        assert mine.rates.tobytes() == reference.rates.tobytes()


def test_conic_program_is_built_once_per_model():
    m = num.model_from_scenario(num.topology("cross"), coding="cope")
    first = m.solve()
    for _ in range(4):
        again = m.solve()
        assert again.rates.tobytes() == first.rates.tobytes()
    assert m.conic_builds == 1
    # Another model is another program: its own numbers, not the cached ones.
    wider = num.model_from_scenario(num.topology("cross"), coding="cope", capacity=2.0)
    assert wider.solve().total == pytest.approx(2 * first.total, rel=1e-6)
    assert wider.conic_builds == 1


def test_other_solvers_go_through_cvxpy():
    m = num.model_from_scenario(num.topology("alice-bob"), coding="cope")
    s = m.solve(solver="SCS", eps=1e-9) if "SCS" in __import__("cvxpy").installed_solvers() else None
    if s is None:
        pytest.skip("SCS not installed")
    assert s.solver == "SCS" and s.total == pytest.approx(2 / 3, abs=1e-4)
    assert m.conic_builds == 0
    with pytest.raises(TypeError, match="unrecognized solver setting 'bogus'"):
        m.solve(bogus=1)
