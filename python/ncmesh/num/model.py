"""The NUM model of Seferoglu & Markopoulou (NCAQM), Sections III, IV and VII.

A `NumModel` holds
- the flows with their fixed paths;
- the coding opportunities as *options*: ways to carry one hop (or, for BFLY, two hops)
  of one or more flows. Each option is a chain of *codes*; a code is the paper's
  network code c over a hyperarc h = (transmitter, set of next hops), with the flows it
  combines ("(transmitter, set of (flow, next hop))");
- the conflict graph among hyperarcs under the protocol interference model, and the
  capacity region: the convex hull of the maximal independent sets (time sharing), or the
  paper's clique constraints;
- the log-utility problem, solved exactly (`solve`: Clarabel, on the conic program cvxpy
  compiles for it) or with the paper's primal-dual algorithm with the proximal method
  (`primal_dual`, see primal_dual.py).

Problem (P), with y_o the rate of option o (coded packets per unit time):

    maximise    sum_s w_s log x_s
    subject to  sum_{o covers (s,k)} y_o >= x_s          for every flow s and hop k   [p_sk]
                sum_{o uses h} y_o     <= c_h tau_h      for every hyperarc h          [q_h]
                tau in the capacity region,  x, y >= 0.

"y_o >= every member's part" is the paper's "rate of a code = max of the rates coded
together"; a code may carry fewer packets of a slower member (sending it partly native
over the broadcast hyperarc), so the conservation constraint is an inequality; at the
optimum each flow's rate x_s is unique (strictly concave objective).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from .graph import NumError, Radio, maximal_cliques, maximal_independent_sets

CODINGS = ("none", "cope", "bfly")
REGIONS = ("independent-sets", "cliques")
INTERFERENCE = ("protocol", "two-way")
OVERHEAR = ("any", "previous")


# ---------------------------------------------------------------- structures


@dataclass(frozen=True, order=True)
class Hyperarc:
    """A broadcast transmission from `tx` to the set of next hops `rx` (the paper's h)."""

    tx: int
    rx: tuple[int, ...]  # sorted receivers

    def nodes(self) -> set[int]:
        return {self.tx, *self.rx}

    def __str__(self) -> str:
        return f"{self.tx}->{{{','.join(map(str, self.rx))}}}" if len(self.rx) > 1 else f"{self.tx}->{self.rx[0]}"


@dataclass(frozen=True, order=True)
class Code:
    """A network code over a hyperarc: the flows combined, each with its next hop.

    `forward` marks the second leg of a two-hop (BFLY) code: the transmitter forwards a
    packet it received coded, without decoding it."""

    hyperarc: Hyperarc
    members: tuple[tuple[int, int], ...]  # sorted (flow, next hop)
    forward: bool = False

    @property
    def flows(self) -> tuple[int, ...]:
        return tuple(f for f, _ in self.members)

    def __str__(self) -> str:
        body = " xor ".join(f"f{f}->{n}" for f, n in self.members)
        return f"{self.hyperarc.tx}: {body}" + (" (fwd)" if self.forward else "")


@dataclass(frozen=True, order=True)
class Option:
    """One way to carry flow hops: `kind` "native" (one flow, one hop, unicast), "cope"
    (one-hop code of >= 2 flows) or "bfly" (two-hop code: encode at the relay, forward
    coded, decode at the next hops after the second leg). `hops` lists the covered
    (flow, hop index) pairs; the option's rate counts once on each of its hyperarcs."""

    kind: str
    codes: tuple[Code, ...]
    hops: tuple[tuple[int, int], ...]

    @property
    def hyperarcs(self) -> tuple[Hyperarc, ...]:
        return tuple(c.hyperarc for c in self.codes)

    def __str__(self) -> str:
        return f"{self.kind}[{' | '.join(map(str, self.codes))}]"


@dataclass
class Flow:
    path: tuple[int, ...]
    name: str
    weight: float = 1.0

    @property
    def src(self) -> int:
        return self.path[0]

    @property
    def dst(self) -> int:
        return self.path[-1]


@dataclass
class Solution:
    """The optimum of (P). `rates[s]` is flow s's rate (units of the link capacity),
    `activations[h]` the fraction of time hyperarc h is used (tau_h), `loads[h]` the
    coded-packet rate it carries, `option_rates[o]` = y_o, `schedule` the time shares of
    the independent sets used (region "independent-sets"), `q`/`p` the multipliers of the
    capacity (h-queues) and conservation constraints."""

    rates: np.ndarray
    flows: list[str]
    total: float
    utility: float
    activations: dict[Hyperarc, float]
    loads: dict[Hyperarc, float]
    option_rates: dict[Option, float]
    schedule: list[tuple[tuple[Hyperarc, ...], float]]
    q: dict[Hyperarc, float]
    p: dict[tuple[int, int], float]
    status: str
    solver: str

    @property
    def rates_by_flow(self) -> dict[str, float]:
        return dict(zip(self.flows, map(float, self.rates)))

    def coded_share(self) -> float:
        """Fraction of the carried flow-hops that travel in coded options."""
        tot = coded = 0.0
        for o, y in self.option_rates.items():
            tot += y * len(o.hops)
            if o.kind != "native":
                coded += y * len(o.hops)
        return coded / tot if tot > 0 else 0.0

    def summary(self) -> str:
        lines = [f"status {self.status} ({self.solver}); total {self.total:.6f}; utility {self.utility:.6f}"]
        for n, r in zip(self.flows, self.rates):
            lines.append(f"  {n}: {r:.6f}")
        for h, t in sorted(self.activations.items()):
            if t > 1e-7:
                lines.append(f"  tau[{h}] = {t:.6f}  load {self.loads[h]:.6f}")
        return "\n".join(lines)


# ---------------------------------------------------------------- the conic program


def _cvxpy():
    try:
        import cvxpy as cp
    except ImportError as e:  # pragma: no cover - cvxpy is a dependency
        raise NumError("NumModel.solve needs cvxpy (pip install cvxpy)") from e
    return cp


_INSTALLED: tuple[str, ...] | None = None


def _default_solver() -> str | None:
    """CLARABEL if it is installed, else None (cvxpy's choice); asked once (cvxpy's
    installed_solvers() tries to import every solver it knows, on every call)."""
    global _INSTALLED
    if _INSTALLED is None:
        import importlib.util

        _INSTALLED = ("CLARABEL",) if importlib.util.find_spec("clarabel") is not None else ()
    return _INSTALLED[0] if _INSTALLED else None


class _SolverFailed(Exception):
    """The solver stopped with an error (cvxpy's SolverError)."""


# Clarabel's statuses as cvxpy names them (cvxpy's clarabel_conif.STATUS_MAP).
_CLARABEL_STATUS = {"Solved": "optimal", "AlmostSolved": "optimal_inaccurate",
                    "PrimalInfeasible": "infeasible", "DualInfeasible": "unbounded",
                    "AlmostPrimalInfeasible": "infeasible_inaccurate",
                    "AlmostDualInfeasible": "unbounded_inaccurate",
                    "MaxIterations": "user_limit", "MaxTime": "user_limit"}


class ConicProgram:
    """(P) as the conic program min q'v s.t. b - Av in K that cvxpy's compilation gives
    Clarabel for it, built directly from the model's matrices (cvxpy rebuilt and compiled
    the problem on every solve: most of the NUM step's time; the solver itself is a small
    part). Equal to cvxpy's data entry for entry (tests/python/test_num.py compares them),
    so Clarabel returns the same numbers.

    Variables v = (t, y, r, x): t_s the epigraph of log x_s, the option rates y, the
    region's variables r (lambda, one per independent set, or tau, one per hyperarc), the
    flow rates x. Rows: y >= 0 and r >= 0, cover (G^T x - A y <= 0), capacity (B y -
    diag(c) S lambda <= 0, or B y - diag(c) tau <= 0), region (sum lambda <= epsilon, or
    K tau <= epsilon), then one exponential cone (t_s, 1, x_s) per flow."""

    def __init__(self, m: "NumModel"):
        import scipy.sparse as sp

        F, O, P, H = len(m.flows), len(m.options), len(m.flow_hops), len(m.hyperarcs)
        sets = m.region == "independent-sets"
        R = m.S.shape[1] if sets else H
        n = F + O + R + F
        t0, y0, r0, x0 = 0, F, F + O, F + O + R
        cap_r = m.capacities[:, None] * m.S if sets else np.diag(m.capacities)
        region = np.ones((1, R)) if sets else m.K
        # (row offset, column offset, dense block) of every nonzero block, rows in order
        ri, ci, vals = [], [], []

        def put(row0: int, col0: int, block: np.ndarray) -> None:
            r, c = np.nonzero(block)
            ri.append(r + row0)
            ci.append(c + col0)
            vals.append(block[r, c])

        row = 0
        put(row, y0, -np.eye(O))
        row += O
        put(row, r0, -np.eye(R))
        row += R
        put(row, y0, -m.A)
        put(row, x0, m.G.T)
        row += P
        put(row, y0, m.B)
        put(row, r0, -cap_r)
        row += H
        put(row, r0, region)
        row += region.shape[0]
        self.nonneg = row
        # exponential cones: rows (-t_s, 0, -x_s), b = (0, 1, 0)
        s_ = np.arange(F)
        ri += [row + 3 * s_, row + 3 * s_ + 2]
        ci += [t0 + s_, x0 + s_]
        vals += [-np.ones(F), -np.ones(F)]
        shape = (row + 3 * F, n)
        self.A = sp.csc_array((np.concatenate(vals).astype(float),
                               (np.concatenate(ri), np.concatenate(ci))), shape=shape)
        self.A.sort_indices()
        self.b = np.zeros(self.A.shape[0])
        self.b[self.nonneg - region.shape[0]: self.nonneg] = m.overprovision
        self.b[self.nonneg + 1::3] = 1.0
        self.q = np.zeros(n)
        self.q[t0:t0 + F] = -m.weights
        self.n_exp = F
        self.slices = {"x": slice(x0, x0 + F), "y": slice(y0, y0 + O), "r": slice(r0, r0 + R)}
        self.cover = slice(O + R, O + R + P)
        self.cap = slice(O + R + P, O + R + P + H)
        self.S = m.S if sets else None

    def solve(self, opts: dict):
        """One Clarabel solve with settings `opts` (as cvxpy passes them): (status,
        values) as `NumModel._clarabel_attempt` describes."""
        import clarabel
        import scipy.sparse as sp

        settings = clarabel.DefaultSettings()
        settings.verbose = False
        for k, v in opts.items():
            try:
                setattr(settings, k, v)
            except TypeError as e:
                raise TypeError(f"Clarabel: Incorrect type for setting '{k}'.") from e
            except AttributeError as e:
                raise TypeError(f"Clarabel: unrecognized solver setting '{k}'.") from e
        n = self.q.size
        P = sp.triu(sp.csc_array((n, n))).tocsc()
        cones = [clarabel.NonnegativeConeT(self.nonneg)] + [clarabel.ExponentialConeT() for _ in range(self.n_exp)]
        result = clarabel.DefaultSolver(P, self.q, self.A, self.b, cones, settings).solve()
        status = _CLARABEL_STATUS.get(str(result.status))
        if status is None:
            raise _SolverFailed(f"Solver 'CLARABEL' failed ({result.status})")
        if status not in ("optimal", "optimal_inaccurate", "user_limit"):
            return status, None
        v, z = np.asarray(result.x), np.asarray(result.z)
        # cvxpy projects the values of nonneg variables (y, lambda, tau) onto >= 0.
        r = np.maximum(v[self.slices["r"]], 0.)
        tau = self.S @ r if self.S is not None else r
        return status, (v[self.slices["x"]], np.maximum(v[self.slices["y"]], 0.), tau, r if self.S is not None else None,
                        z[self.cap], z[self.cover])


# ---------------------------------------------------------------- the model


class NumModel:
    """The NUM problem of Seferoglu & Markopoulou for given flows, paths, radio neighbourhoods and coding.

    Parameters
    ----------
    n_nodes, positions, range_m, interference_range_m, links, delivery:
        the radio (see `graph.Radio`): positions in metres with a receive range (and an
        interference range, default = receive range), or an explicit link list.
    flows:
        list of paths (lists of node ids, source first), or dicts {"path": [...],
        "name": ..., "weight": ...}.
    coding:
        "none" (every transmission is a unicast link activation), "cope" (one-hop codes
        found from overhearing), "bfly" (COPE plus two-hop butterfly codes, Section VII).
    hyperarcs:
        explicit one-hop codes `[(tx, [(flow, next_hop), ...]), ...]`; when given they
        replace the geometric coding opportunities (native unicasts are always there).
    capacity:
        link capacity c_ij: a number (default 1, i.e. rates in units of the channel
        capacity) or a dict {(i, j): c_ij} (missing links take `default_capacity`).
        A hyperarc's capacity is min_j c_ij p_ij (Eq. (1)).
    region:
        "independent-sets" (exact: convex hull of the maximal independent sets of the
        conflict graph) or "cliques" (the paper's Eq. (1): sum of tau over every maximal
        clique <= overprovision; exact only for perfect conflict graphs).
    overprovision:
        the paper's over-provisioning factor epsilon (<= 1): total time share available.
    interference:
        "protocol" (Seferoglu & Markopoulou, Section III: a node either sends or receives, and a
        transmission conflicts with every transmission whose transmitter is in range of
        one of its receivers) or "two-way" (any node of one within range of any node of the
        other, closer to 802.11 with RTS/CTS and ACKs).
    overhear:
        "any" (a node has a packet if it held it or heard any earlier hop's transmission of
        it) or "previous" (only the transmission into the coding node counts).
    max_code_size, max_codes, max_sets:
        size guards for code and independent-set enumeration.
    """

    def __init__(
        self,
        flows: Sequence[Any],
        *,
        n_nodes: int | None = None,
        positions: Sequence[tuple[float, float]] | None = None,
        range_m: float = 250.0,
        interference_range_m: float | None = None,
        links: Iterable[tuple[int, int]] | None = None,
        delivery: dict[tuple[int, int], float] | None = None,
        coding: str = "cope",
        hyperarcs: Sequence[tuple[int, Iterable[tuple[int, int]]]] | None = None,
        capacity: float | dict[tuple[int, int], float] = 1.0,
        default_capacity: float = 1.0,
        region: str = "independent-sets",
        overprovision: float = 1.0,
        interference: str = "protocol",
        overhear: str = "any",
        max_code_size: int = 12,
        max_codes: int = 20000,
        max_sets: int = 200000,
        name: str = "",
    ):
        if coding not in CODINGS:
            raise NumError(f"coding {coding!r}: expected one of {', '.join(CODINGS)}")
        if region not in REGIONS:
            raise NumError(f"region {region!r}: expected one of {', '.join(REGIONS)}")
        if interference not in INTERFERENCE:
            raise NumError(f"interference {interference!r}: expected one of {', '.join(INTERFERENCE)}")
        if overhear not in OVERHEAR:
            raise NumError(f"overhear {overhear!r}: expected one of {', '.join(OVERHEAR)}")
        if not (0 < overprovision <= 1):
            raise NumError(f"overprovision {overprovision}: expected a number in (0, 1]")
        if n_nodes is None:
            if positions is not None:
                n_nodes = len(positions)
            else:
                ids = {int(v) for f in flows for v in (f["path"] if isinstance(f, dict) else f)}
                ids |= {int(v) for l in (links or []) for v in l}
                n_nodes = max(ids) + 1 if ids else 0
        self.name = name
        self.coding = "explicit" if hyperarcs is not None else coding
        self.region = region
        self.overprovision = float(overprovision)
        self.interference = interference
        self.overhear = overhear
        self.max_code_size = int(max_code_size)
        self.max_codes = int(max_codes)
        self.max_sets = int(max_sets)
        self.radio = Radio(n_nodes, positions, range_m, interference_range_m, links, delivery)
        self.flows = self._parse_flows(flows)
        self._capacity = capacity
        self._default_capacity = float(default_capacity)

        self.options = self._build_options(coding, hyperarcs)
        self.hyperarcs: list[Hyperarc] = sorted({h for o in self.options for h in o.hyperarcs})
        self.hindex = {h: i for i, h in enumerate(self.hyperarcs)}
        self.capacities = np.array([self._hyperarc_capacity(h) for h in self.hyperarcs])
        self.conflicts = self._conflict_graph()
        if region == "independent-sets":
            self.independent_sets = maximal_independent_sets(self.conflicts, self.max_sets)
            self.cliques: list[tuple[int, ...]] = []
        else:
            self.independent_sets = []
            self.cliques = maximal_cliques(self.conflicts, self.max_sets)
        self._matrices()
        self._conic: ConicProgram | None = None
        self.conic_builds = 0             # times conic_program() was built (once per model)

    # ------------------------------------------------------------ input

    def _parse_flows(self, flows: Sequence[Any]) -> list[Flow]:
        out = []
        if not flows:
            raise NumError("no flows")
        for i, f in enumerate(flows):
            if isinstance(f, Flow):
                path, name, w = f.path, f.name, f.weight
            elif isinstance(f, dict):
                path, name, w = f["path"], f.get("name") or f"flow{i}", float(f.get("weight", 1.0))
            else:
                path, name, w = f, f"flow{i}", 1.0
            path = tuple(int(v) for v in path)
            if len(path) < 2:
                raise NumError(f"flow {i}: a path needs at least two nodes, got {list(path)}")
            if len(set(path)) != len(path):
                raise NumError(f"flow {i}: path {list(path)} visits a node twice")
            for a, b in zip(path, path[1:]):
                if not (0 <= a < self.radio.n and 0 <= b < self.radio.n):
                    raise NumError(f"flow {i}: node id out of range in {list(path)}")
                if not self.radio.hears(b, a):
                    raise NumError(f"flow {i}: hop {a} -> {b} is not a link (out of range)")
            if w <= 0:
                raise NumError(f"flow {i}: weight must be > 0")
            out.append(Flow(path, str(name), w))
        return out

    def _hyperarc_capacity(self, h: Hyperarc) -> float:
        cap = self._capacity
        vals = []
        for j in h.rx:
            if isinstance(cap, dict):
                c = cap.get((h.tx, j), self._default_capacity)
            else:
                c = float(cap)
            vals.append(float(c) * self.radio.p(h.tx, j))
        c = min(vals)
        if not c > 0:
            raise NumError(f"hyperarc {h} has capacity {c}: capacities and delivery must be > 0")
        return c

    # ------------------------------------------------------------ coding opportunities

    def has_packet(self, node: int, flow: int, hop: int) -> bool:
        """Does `node` hold flow `flow`'s packet by the time path[hop] sends it on?
        Holders: the nodes path[0..hop]. Overhearers: nodes in range of the transmitter
        of an earlier hop j < hop ("any") or of hop - 1 only ("previous")."""
        path = self.flows[flow].path
        if node in path[: hop + 1]:
            return True
        first = 0 if self.overhear == "any" else max(hop - 1, 0)
        return any(self.radio.hears(node, path[j]) for j in range(first, hop))

    def _queued(self) -> dict[int, list[tuple[int, int]]]:
        """(flow, hop) pairs queued at each node: path[hop] = node and hop < last."""
        q: dict[int, list[tuple[int, int]]] = {}
        for s, f in enumerate(self.flows):
            for k in range(len(f.path) - 1):
                q.setdefault(f.path[k], []).append((s, k))
        return q

    def _cliques_of(self, items: list[Any], ok) -> list[tuple[int, ...]]:
        """All cliques (size >= 2, <= max_code_size) of the pairwise relation `ok`."""
        n = len(items)
        nb = [{j for j in range(n) if j != i and ok(items[i], items[j])} for i in range(n)]
        out: list[tuple[int, ...]] = []

        def grow(cl: list[int], cand: list[int]) -> None:
            for idx, v in enumerate(cand):
                new = cl + [v]
                if len(new) >= 2:
                    out.append(tuple(new))
                    if len(out) > self.max_codes:
                        raise NumError(
                            f"more than {self.max_codes} codes: too many coding opportunities "
                            "(raise max_codes or lower max_code_size)"
                        )
                if len(new) < self.max_code_size:
                    grow(new, [u for u in cand[idx + 1 :] if u in nb[v]])

        grow([], list(range(n)))
        return out

    def _build_options(self, coding: str, explicit) -> list[Option]:
        opts: list[Option] = []
        for s, f in enumerate(self.flows):
            for k in range(len(f.path) - 1):
                h = Hyperarc(f.path[k], (f.path[k + 1],))
                opts.append(Option("native", (Code(h, ((s, f.path[k + 1]),)),), ((s, k),)))
        if explicit is not None:
            opts += self._explicit_options(explicit)
        else:
            if coding in ("cope", "bfly"):
                opts += self._cope_options()
            if coding == "bfly":
                opts += self._bfly_options()
        # dedupe, keep a stable order
        seen, out = set(), []
        for o in opts:
            if o not in seen:
                seen.add(o)
                out.append(o)
        return out

    def _cope_options(self) -> list[Option]:
        out = []
        for v, items in sorted(self._queued().items()):
            nh = {it: self.flows[it[0]].path[it[1] + 1] for it in items}

            def ok(t, u):
                return t[0] != u[0] and nh[t] != nh[u] and self.has_packet(nh[t], *u) and self.has_packet(nh[u], *t)

            for cl in self._cliques_of(items, ok):
                members = tuple(sorted((items[i][0], nh[items[i]]) for i in cl))
                h = Hyperarc(v, tuple(sorted(nh[items[i]] for i in cl)))
                hops = tuple(sorted(items[i] for i in cl))
                out.append(Option("cope", (Code(h, members),), hops))
        return out

    def _bfly_options(self) -> list[Option]:
        """Two-hop codes (Section VII, BFLY): flows that share the link v -> w and then
        leave w towards distinct next hops d_t, each d_t having every other flow's packet
        (held or overheard before v sent it). v codes, w forwards the code to all d_t."""
        out = []
        for v, items in sorted(self._queued().items()):
            by_w: dict[int, list[tuple[int, int]]] = {}
            for s, k in items:
                p = self.flows[s].path
                if k + 2 < len(p):
                    by_w.setdefault(p[k + 1], []).append((s, k))
            for w, its in sorted(by_w.items()):
                d = {it: self.flows[it[0]].path[it[1] + 2] for it in its}

                def ok(t, u):
                    return t[0] != u[0] and d[t] != d[u] and self.has_packet(d[t], *u) and self.has_packet(d[u], *t)

                for cl in self._cliques_of(its, ok):
                    sel = [its[i] for i in cl]
                    enc = Code(Hyperarc(v, (w,)), tuple(sorted((s, w) for s, _ in sel)))
                    fwd = Code(
                        Hyperarc(w, tuple(sorted(d[t] for t in sel))),
                        tuple(sorted((t[0], d[t]) for t in sel)),
                        forward=True,
                    )
                    hops = tuple(sorted([(s, k) for s, k in sel] + [(s, k + 1) for s, k in sel]))
                    out.append(Option("bfly", (enc, fwd), hops))
        return out

    def _explicit_options(self, explicit) -> list[Option]:
        out = []
        for entry in explicit:
            try:
                tx, members = entry
                members = [(int(f), int(n)) for f, n in members]
            except (TypeError, ValueError):
                raise NumError(f"hyperarc {entry!r}: expected (tx, [(flow, next_hop), ...])") from None
            tx = int(tx)
            hops = []
            for f, n in members:
                if not 0 <= f < len(self.flows):
                    raise NumError(f"hyperarc {entry!r}: no flow {f}")
                p = self.flows[f].path
                ks = [k for k in range(len(p) - 1) if p[k] == tx and p[k + 1] == n]
                if not ks:
                    raise NumError(f"hyperarc {entry!r}: flow {f} has no hop {tx} -> {n}")
                hops.append((f, ks[0]))
            if len({f for f, _ in members}) != len(members) or len({n for _, n in members}) != len(members):
                raise NumError(f"hyperarc {entry!r}: flows and next hops must be distinct")
            h = Hyperarc(tx, tuple(sorted(n for _, n in members)))
            kind = "native" if len(members) == 1 else "cope"
            out.append(Option(kind, (Code(h, tuple(sorted(members))),), tuple(sorted(hops))))
        return out

    # ------------------------------------------------------------ conflict graph

    def conflict(self, a: Hyperarc, b: Hyperarc) -> bool:
        """Protocol model (Seferoglu & Markopoulou, Section III): a node either transmits or receives
        (shared nodes conflict), and a transmission is disturbed by every other
        transmitter within interference range of one of its receivers."""
        if a == b:
            return False
        na, nb = a.nodes(), b.nodes()
        if na & nb:
            return True
        r = self.radio
        if any(r.interferes(b.tx, j) for j in a.rx) or any(r.interferes(a.tx, j) for j in b.rx):
            return True
        if self.interference == "two-way":
            return any(r.interferes(u, v) for u in na for v in nb)
        return False

    def _conflict_graph(self) -> list[set[int]]:
        H = self.hyperarcs
        adj = [set() for _ in H]
        for i in range(len(H)):
            for j in range(i + 1, len(H)):
                if self.conflict(H[i], H[j]):
                    adj[i].add(j)
                    adj[j].add(i)
        return adj

    def conflict_edges(self) -> list[tuple[Hyperarc, Hyperarc]]:
        H = self.hyperarcs
        return [(H[i], H[j]) for i in range(len(H)) for j in sorted(self.conflicts[i]) if j > i]

    def independent_hyperarc_sets(self) -> list[tuple[Hyperarc, ...]]:
        return [tuple(self.hyperarcs[i] for i in m) for m in self.independent_sets]

    # ------------------------------------------------------------ matrices

    def _matrices(self) -> None:
        F, O, H = len(self.flows), len(self.options), len(self.hyperarcs)
        self.flow_hops: list[tuple[int, int]] = [
            (s, k) for s, f in enumerate(self.flows) for k in range(len(f.path) - 1)
        ]
        hop_index = {fh: i for i, fh in enumerate(self.flow_hops)}
        P = len(self.flow_hops)
        self.A = np.zeros((P, O))  # option o covers flow hop
        self.B = np.zeros((H, O))  # option o uses hyperarc
        for j, o in enumerate(self.options):
            for fh in o.hops:
                self.A[hop_index[fh], j] = 1.0
            for h in o.hyperarcs:
                self.B[self.hindex[h], j] += 1.0
        self.G = np.zeros((F, P))  # flow of each flow hop
        for i, (s, _) in enumerate(self.flow_hops):
            self.G[s, i] = 1.0
        self.S = np.zeros((H, len(self.independent_sets)))
        for m, ind in enumerate(self.independent_sets):
            self.S[list(ind), m] = 1.0
        self.K = np.zeros((len(self.cliques), H))
        for m, cl in enumerate(self.cliques):
            self.K[m, list(cl)] = 1.0
        self.weights = np.array([f.weight for f in self.flows])

    # ------------------------------------------------------------ views

    def codes(self) -> list[Code]:
        """Every code of the model (native and coded), i.e. the hyperarcs with their flows."""
        return sorted({c for o in self.options for c in o.codes})

    def coded_options(self) -> list[Option]:
        return [o for o in self.options if o.kind != "native"]

    def describe(self) -> str:
        lines = [
            f"NUM model {self.name or ''} coding={self.coding} region={self.region}: "
            f"{len(self.flows)} flows, {len(self.options)} options "
            f"({len(self.coded_options())} coded), {len(self.hyperarcs)} hyperarcs, "
            f"{len(self.independent_sets) or len(self.cliques)} "
            f"{'independent sets' if self.region == 'independent-sets' else 'cliques'}"
        ]
        for f in self.flows:
            lines.append(f"  {f.name}: {' -> '.join(map(str, f.path))}")
        for o in self.coded_options():
            lines.append(f"  {o}")
        return "\n".join(lines)

    # ------------------------------------------------------------ solving

    def solve(self, solver: str | None = None, **solver_opts: Any) -> Solution:
        """The exact optimum of (P): Clarabel by default, with tight tolerances, given
        the conic program cvxpy would give it (`conic_program`, built once per model,
        without cvxpy's compilation); another solver by name through cvxpy (options
        passed through in both cases)."""
        if solver is None:
            solver = _default_solver()
        # The log utility is flat near the optimum: a duality gap g fixes the rates only
        # to about sqrt(g), so Clarabel is asked for a small gap first (rates to ~1e-6
        # relative); when it cannot certify that, the tolerance is relaxed step by step.
        tight = solver == "CLARABEL" and not any(k.startswith("tol_") for k in solver_opts)
        tols = (1e-11, 1e-10, 1e-9, 1e-8) if tight else (None,)
        attempt = self._clarabel_attempt if solver == "CLARABEL" else self._cvxpy_attempt(solver)
        found = None  # (values..., status) of the first optimal, else first inaccurate, solve
        error = None
        status = None
        for tol in tols:
            opts = dict(solver_opts)
            if tol is not None:
                opts.update(tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
            try:
                status, vals = attempt(opts)
            except _SolverFailed as e:
                error = e
                continue
            if status in ("optimal", "optimal_inaccurate") and vals is not None:
                if status == "optimal":
                    found = (*vals, status)
                    break
                if found is None:
                    found = (*vals, status)
        if found is None:
            raise NumError(f"solver failed: {error}" if error is not None else f"solver status {status}")
        xval, yval, tval, lval, qval, pval, status = found
        xv = np.maximum(np.asarray(xval, dtype=float), 0.0)
        yv = np.maximum(np.asarray(yval, dtype=float), 0.0)
        tv = np.asarray(tval, dtype=float)
        loads = self.B @ yv
        schedule = []
        if lval is not None:
            lv = np.asarray(lval, dtype=float)
            for m in np.argsort(-lv, kind="stable"):
                if lv[m] > 1e-7:
                    schedule.append((tuple(self.hyperarcs[i] for i in self.independent_sets[m]), float(lv[m])))
        qd = np.abs(np.asarray(qval, dtype=float))
        pd = np.abs(np.asarray(pval, dtype=float))
        return Solution(
            rates=xv,
            flows=[f.name for f in self.flows],
            total=float(xv.sum()),
            utility=float(self.weights @ np.log(np.maximum(xv, 1e-300))),
            activations={h: float(tv[i]) for i, h in enumerate(self.hyperarcs)},
            loads={h: float(loads[i]) for i, h in enumerate(self.hyperarcs)},
            option_rates={o: float(yv[j]) for j, o in enumerate(self.options)},
            schedule=schedule,
            q={h: float(qd[i]) for i, h in enumerate(self.hyperarcs)},
            p={fh: float(pd[i]) for i, fh in enumerate(self.flow_hops)},
            status=status,
            solver=str(solver),
        )

    def conic_program(self) -> "ConicProgram":
        """(P) as the conic program cvxpy gives Clarabel (built on first use, then kept)."""
        if self._conic is None:
            self._conic = ConicProgram(self)
            self.conic_builds += 1
        return self._conic

    def _clarabel_attempt(self, opts: dict):
        """One Clarabel solve of `conic_program()` with settings `opts`: (status, values)
        with values (x, y, tau, lambda or None, capacity duals, cover duals) as cvxpy
        would report them, or None without a solution."""
        return self.conic_program().solve(opts)

    def _cvxpy_attempt(self, solver: str | None):
        """The same through cvxpy, for another solver: one problem, re-solved per attempt."""
        cp = _cvxpy()
        F, O, H = len(self.flows), len(self.options), len(self.hyperarcs)
        x = cp.Variable(F, name="x")
        y = cp.Variable(O, nonneg=True, name="y")
        cons_cover = self.A @ y >= self.G.T @ x
        if self.region == "independent-sets":
            lam = cp.Variable(self.S.shape[1], nonneg=True, name="lambda")
            tau = self.S @ lam
            region = [cp.sum(lam) <= self.overprovision]
        else:
            lam = None
            tau = cp.Variable(H, nonneg=True, name="tau")
            region = [self.K @ tau <= self.overprovision]
        cons_cap = self.B @ y <= cp.multiply(self.capacities, tau)
        prob = cp.Problem(cp.Maximize(self.weights @ cp.log(x)), [cons_cover, cons_cap, *region])

        def attempt(opts: dict):
            try:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                    prob.solve(solver=solver, **opts)
            except cp.error.SolverError as e:
                raise _SolverFailed(str(e)) from None
            if x.value is None:
                return prob.status, None
            return prob.status, (x.value, y.value, tau.value, None if lam is None else lam.value,
                                 cons_cap.dual_value, cons_cover.dual_value)

        return attempt

    def primal_dual(self, iterations: int = 20000, step: float = 0.05, **kw: Any):
        """The distributed primal-dual algorithm with the proximal method (Section IV-B,
        Appendix A); see `primal_dual.run` for the parameters. Returns a `History`."""
        from .primal_dual import run

        return run(self, iterations=iterations, step=step, **kw)

    def without_coding(self) -> "NumModel":
        """The same topology and flows with coding "none"."""
        return NumModel(
            [Flow(f.path, f.name, f.weight) for f in self.flows],
            n_nodes=self.radio.n,
            positions=self.radio.positions,
            range_m=self.radio.range_m,
            interference_range_m=self.radio.interference_range_m,
            links=self._links_if_explicit(),
            delivery=self.radio.delivery,
            coding="none",
            capacity=self._capacity,
            default_capacity=self._default_capacity,
            region=self.region,
            overprovision=self.overprovision,
            interference=self.interference,
            overhear=self.overhear,
            max_code_size=self.max_code_size,
            max_codes=self.max_codes,
            max_sets=self.max_sets,
            name=self.name,
        )

    def _links_if_explicit(self):
        if not self.radio.explicit_links:
            return None
        return [(i, j) for i in range(self.radio.n) for j in self.radio.neighbours(i) if i < j]
