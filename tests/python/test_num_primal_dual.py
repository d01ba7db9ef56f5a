"""ncmesh.num: the primal-dual algorithm with the proximal method (Seferoglu & Markopoulou, Appendix A)
converges to the exact optimum."""

import numpy as np
import pytest

from ncmesh import num

pytest.importorskip("cvxpy")


@pytest.mark.parametrize(
    "kind, coding",
    [
        ("alice-bob", "cope"),
        ("x", "cope"),
        ("butterfly", "bfly"),
        ("butterfly", "none"),
        ("alice-bob", "none"),
        ("cross", "cope"),
    ],
)
def test_primal_dual_matches_exact_rates(kind, coding):
    m = num.model_from_scenario(num.topology(kind), coding=coding)
    exact = m.solve()
    h = m.primal_dual(iterations=6000, step=0.1, record_every=50)
    err = np.max(np.abs(h.rates - exact.rates) / exact.rates)
    assert err < 1e-3
    assert h.converged_at(exact) is not None
    assert h.total[-1] == pytest.approx(exact.total, rel=1e-3)


def test_primal_dual_unequal_capacities():
    # Appendix A case (ii): unequal link capacities (values lost; here the relay's links
    # are twice as fast as the end nodes')
    cap = {(0, 1): 1.0, (2, 1): 1.0, (1, 0): 2.0, (1, 2): 2.0}
    m = num.model_from_scenario(num.alice_bob(), capacity=cap)
    exact = m.solve()
    h = m.primal_dual(iterations=8000, step=0.05, record_every=100)
    assert h.relative_error(exact)[-1] < 1e-3


def test_primal_dual_cliques_region():
    m = num.model_from_scenario(num.x_topology(), region="cliques")
    exact = m.solve()
    h = m.primal_dual(iterations=6000, step=0.1, record_every=100)
    assert h.relative_error(exact)[-1] < 1e-3


def test_history_shapes_and_multipliers():
    m = num.model_from_scenario(num.alice_bob())
    h = m.primal_dual(iterations=3000, step=0.1, record_every=10)
    assert h.iterations[0] == 0 and h.iterations[-1] == 3000
    assert h.x.shape == (len(h.iterations), 2)
    assert h.q.shape == (len(h.iterations), len(m.hyperarcs)) == (301, 5)
    assert h.p.shape == (301, len(m.flow_hops))
    assert (h.q >= 0).all() and (h.p >= 0).all()
    # KKT at the fixed point: x_s = 1 / (sum of the flow's prices along its path)
    price = m.G @ h.final["p"]
    assert h.rates == pytest.approx(1.0 / price, rel=1e-3)
    # the coded hyperarc's h-queue is positive (it is a bottleneck)
    i = m.hindex[num.Hyperarc(1, (0, 2))]
    assert h.final["q"][i] > 0.1
    df = h.to_frame()
    assert list(df.columns[:4]) == ["iteration", "x[f0:0->2]", "x[f1:2->0]", "total"]


def test_history_plot(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    m = num.model_from_scenario(num.alice_bob())
    h = m.primal_dual(iterations=500, step=0.1, record_every=5)
    axes = h.plot(reference=m.solve())
    axes[0].figure.savefig(tmp_path / "fig10.png")
    assert (tmp_path / "fig10.png").stat().st_size > 0


def test_bad_parameters():
    m = num.model_from_scenario(num.alice_bob())
    with pytest.raises(num.NumError):
        m.primal_dual(iterations=0)
    with pytest.raises(num.NumError):
        m.primal_dual(iterations=10, step=-1)


def test_main_prints_gains_table_and_convergence(capsys):
    from ncmesh.num.__main__ import main

    assert main(["--grid-seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "cross          cope  computed 1.600000  expected 1.600000" in out
    assert "alice-bob   33.33%  (paper 33%)" in out
    assert out.count("below 1e-3 from iteration None") == 0
