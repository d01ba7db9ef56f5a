"""The primal-dual algorithm with the proximal method (Seferoglu & Markopoulou, Section IV-B and
Appendix A), on the model of `model.py`.

Lagrangian of (P) with multipliers p_sk >= 0 (flow s's price at hop k: its queue at the
node) and q_h >= 0 (the h-queue of hyperarc h):

    L = sum_s [w_s log x_s - x_s sum_k p_sk]                   (rate control)
      + sum_o y_o [sum_{(s,k) in o} p_sk - sum_{h in o} q_h]   (traffic splitting / coding)
      + sum_h q_h c_h tau_h                                     (scheduling)

It is linear in y and tau, so plain dual (sub)gradient iterations oscillate; the proximal
method [Bertsekas & Tsitsiklis] adds -1/(2c) ||z - z_bar||^2 for every primal variable z
and sets the artificial variable z_bar to the current z every `period` iterations. Each
iteration then is

    x_s   = argmax w_s log x - x P_s - (x - xbar_s)^2/(2c)      P_s = sum_k p_sk
          = (b + sqrt(b^2 + 4 c w_s)) / 2,   b = xbar_s - c P_s (the rate is set by the
            sum of the prices along the path: x_s = w_s / P_s at the fixed point)
    y_o   = [ybar_o + c (sum_{(s,k) in o} p_sk - sum_{h in o} q_h)]^+
    lambda = projection onto {lambda >= 0, sum lambda <= eps} of lambda_bar + c (S^T c q)
            (region "independent-sets": lambda_m is the time share of independent set m,
            tau = S lambda; a max-weight schedule smoothed by the proximal term)
    tau_h = clip(taubar_h + c (c_h q_h - sum_{K ni h} mu_K), 0, eps)      (region "cliques")
    p_sk <- [p_sk + gamma (x_s - sum_{o covers (s,k)} y_o)]^+
    q_h  <- [q_h + gamma (sum_{o uses h} y_o - c_h tau_h)]^+   (Eq. (7): in minus out)
    mu_K <- [mu_K + gamma (sum_{h in K} tau_h - eps)]^+        (region "cliques")

At a fixed point the proximal terms vanish and the KKT conditions of (P) hold, so the
rates converge to the unique optimum of the log-utility problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .graph import NumError


@dataclass
class History:
    """Iteration history of the primal-dual algorithm (rows every `record_every`
    iterations, the first row being iteration 0, i.e. the initial point).

    `x[t, s]` flow rates, `q[t, h]` hyperarc multipliers (h-queues, in the order of
    `hyperarcs`), `p[t, i]` flow-hop multipliers (order `flow_hops`), `y` option rates,
    `tau` hyperarc activations. `final` holds the last iterate of every variable."""

    iterations: np.ndarray
    x: np.ndarray
    q: np.ndarray
    p: np.ndarray
    y: np.ndarray
    tau: np.ndarray
    flows: list[str]
    hyperarcs: list[Any]
    flow_hops: list[tuple[int, int]]
    params: dict[str, Any]
    final: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def rates(self) -> np.ndarray:
        """The final rates."""
        return self.final["x"]

    @property
    def total(self) -> np.ndarray:
        """Total rate per recorded iteration."""
        return self.x.sum(axis=1)

    def relative_error(self, reference) -> np.ndarray:
        """max_s |x_s(t) - x*_s| / x*_s per recorded iteration, against reference rates
        (an array or a `Solution`)."""
        ref = np.asarray(getattr(reference, "rates", reference), dtype=float)
        return np.max(np.abs(self.x - ref) / ref, axis=1)

    def converged_at(self, reference, tol: float = 1e-3) -> int | None:
        """First recorded iteration from which the relative error stays below `tol`."""
        err = self.relative_error(reference)
        bad = np.nonzero(err >= tol)[0]
        if len(bad) == 0:
            return int(self.iterations[0])
        if bad[-1] + 1 >= len(err):
            return None
        return int(self.iterations[bad[-1] + 1])

    def to_frame(self):
        """A pandas DataFrame: one row per recorded iteration, columns x[flow],
        q[hyperarc] and total."""
        import pandas as pd

        cols = {"iteration": self.iterations}
        for i, n in enumerate(self.flows):
            cols[f"x[{n}]"] = self.x[:, i]
        cols["total"] = self.total
        for i, h in enumerate(self.hyperarcs):
            cols[f"q[{h}]"] = self.q[:, i]
        return pd.DataFrame(cols)

    def plot(self, reference=None, axes=None):
        """Appendix A style figures: (a) rates and total rate, (b) multipliers q_h."""
        import matplotlib.pyplot as plt

        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(11, 4))
        a, b = axes
        for i, n in enumerate(self.flows):
            a.plot(self.iterations, self.x[:, i], label=f"$x$ {n}")
        a.plot(self.iterations, self.total, "k", label="total")
        if reference is not None:
            ref = np.asarray(getattr(reference, "rates", reference), dtype=float)
            a.axhline(ref.sum(), color="k", ls=":", lw=1, label="optimum (total)")
        a.set_xlabel("iteration")
        a.set_ylabel("rate")
        a.legend(fontsize=8)
        for i, h in enumerate(self.hyperarcs):
            b.plot(self.iterations, self.q[:, i], label=f"$q$ {h}")
        b.set_xlabel("iteration")
        b.set_ylabel("Lagrange multiplier $q_h$")
        b.legend(fontsize=8)
        return axes


def _project_capped_simplex(v: np.ndarray, cap: float) -> np.ndarray:
    """Euclidean projection onto {z >= 0, sum z <= cap}."""
    w = np.maximum(v, 0.0)
    if w.sum() <= cap:
        return w
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - cap
    idx = np.arange(1, len(u) + 1)
    rho = np.nonzero(u - css / idx > 0)[0][-1]
    theta = css[rho] / (rho + 1)
    return np.maximum(v - theta, 0.0)


def run(
    model,
    iterations: int = 20000,
    step: float = 0.05,
    prox: float = 1.0,
    period: int = 1,
    record_every: int = 1,
    x0: float | np.ndarray | None = None,
) -> History:
    """Runs the primal-dual algorithm with the proximal method.

    Parameters
    ----------
    iterations: number of iterations.
    step: gamma, the multiplier (queue) update step of Eq. (7).
    prox: c, the proximal constant (the proximal term is -(1/2c)||z - z_bar||^2).
    period: z_bar is set to the current iterate every `period` iterations.
    record_every: history sampling period (iteration 0 and the last one are always kept).
    x0: initial rates (default 0.01 x the smallest hyperarc capacity); y, tau and the
        multipliers start at 0.
    """
    if iterations < 1 or step <= 0 or prox <= 0 or period < 1 or record_every < 1:
        raise NumError("iterations, step, prox, period and record_every must be positive")
    A, B, G, S, K = model.A, model.B, model.G, model.S, model.K
    cap = model.capacities
    w = model.weights
    eps = model.overprovision
    F, O, H, P = len(model.flows), len(model.options), len(model.hyperarcs), len(model.flow_hops)
    cliques = model.region == "cliques"
    c = float(prox)
    g = float(step)

    x = np.full(F, 0.01 * float(cap.min())) if x0 is None else np.broadcast_to(np.asarray(x0, float), (F,)).copy()
    y = np.zeros(O)
    lam = np.zeros(S.shape[1])
    tau = np.zeros(H)
    p = np.zeros(P)
    q = np.zeros(H)
    mu = np.zeros(K.shape[0])
    xb, yb, lb, tb = x.copy(), y.copy(), lam.copy(), tau.copy()

    rec_it, rec_x, rec_q, rec_p, rec_y, rec_t = [], [], [], [], [], []

    def record(t: int) -> None:
        rec_it.append(t)
        rec_x.append(x.copy())
        rec_q.append(q.copy())
        rec_p.append(p.copy())
        rec_y.append(y.copy())
        rec_t.append(tau.copy())

    record(0)
    GT, AT, BT, ST, KT = G.T, A.T, B.T, S.T, K.T
    for t in range(1, iterations + 1):
        # primal: rate control, traffic splitting / coding, scheduling
        b = xb - c * (G @ p)
        x = 0.5 * (b + np.sqrt(b * b + 4.0 * c * w))
        y = np.maximum(yb + c * (AT @ p - BT @ q), 0.0)
        if cliques:
            tau = np.clip(tb + c * (cap * q - KT @ mu), 0.0, eps)
        else:
            lam = _project_capped_simplex(lb + c * (ST @ (cap * q)), eps)
            tau = S @ lam
        # dual: queue updates
        p = np.maximum(p + g * (GT @ x - A @ y), 0.0)
        q = np.maximum(q + g * (B @ y - cap * tau), 0.0)
        if cliques:
            mu = np.maximum(mu + g * (K @ tau - eps), 0.0)
        if t % period == 0:
            xb, yb, lb, tb = x.copy(), y.copy(), lam.copy(), tau.copy()
        if t % record_every == 0 or t == iterations:
            record(t)

    return History(
        iterations=np.array(rec_it),
        x=np.array(rec_x),
        q=np.array(rec_q),
        p=np.array(rec_p),
        y=np.array(rec_y),
        tau=np.array(rec_t),
        flows=[f.name for f in model.flows],
        hyperarcs=list(model.hyperarcs),
        flow_hops=list(model.flow_hops),
        params=dict(iterations=iterations, step=step, prox=prox, period=period, record_every=record_every),
        final=dict(x=x, y=y, tau=tau, lam=lam, p=p, q=q, mu=mu),
    )
