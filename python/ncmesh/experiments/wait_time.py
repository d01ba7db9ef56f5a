"""wait-time: Takimoto et al., wait-time insertion and configuration for PiggyCode
(docs/papers.md): normal TCP, PiggyCode, wait-time insertion at 10-90 ms and the configured
wait on 2, 3 and 4-hop chains against the offered rate (Figs. 2-16).

`analyze` joins the per-metric tables and figures (throughput, ACKs the relays sent uncoded,
RTT, the receiver's out-of-order segments), the 2-hop airtime bound, the paper's claims and
the notes."""

from __future__ import annotations

import math

from .common import (seeds_for, Analysis, Check, Claim, ClaimGroup, FigureOut, PaperNumber, TableOut, all_of, at_most,
                     claims_part, fmt_ci, less, near, rises, sweep_base)
from .figures import grid_figure, line_panel
from .measures import stats_by

NAME = "wait-time"
TITLE = ("PiggyCode, wait-time insertion and wait-time configuration for TCP on 2-4 hop chains "
         "(Takimoto et al.: Figs. 2-16)")
DESCRIPTION = """
Takimoto, Aketa, Saito, Mouri, network coding with wait-time insertion and configuration for
TCP (docs/papers.md; ns-2.34): one TCP NewReno flow over a chain of 2, 3 or 4 hops 200 m
apart, on ns-2's defaults (`preset = "ns2"`: its TCP agent without delayed ACKs, its two-ray
PHY with 250 m reception, 550 m carrier sense and 10 dB capture, 50-packet queues) with Table
I's values on top (2 Mbit/s data and 1 Mbit/s basic rate, RTS/CTS off, 1024-byte packets),
the application writing into TCP at a constant 200-1000 kbit/s. Series: normal TCP
(`scheme.name = "none"`), PiggyCode (`"piggycode"`), wait-time insertion (`"waittime"`,
`scheme.piggycode.wait_s` = 10, 30, 50, 70, 90 ms) and the configured wait
(`scheme.piggycode.configured = true`), with the coded packet queued by the default reading of
"at the head" (`scheme.piggycode.placement = "ordered"`); PiggyCode and the 30 ms wait also
under the other readings (stack, lower-layer, in place). Metrics: the flow's goodput, the ACKs
the relays sent uncoded (for normal TCP every ACK the receiver generated, once per relay), the
mean RTT, and the segments the receiver got out of order. Mean over seeds with a 95%
confidence interval.
"""

# ---- the paper's set-up (Table I) and chosen values (docs/assumptions.md) ----
HOPS = [2, 3, 4]
RATES_KBPS = [200, 250, 300, 400, 500, 600, 700, 800, 900, 1000]   # 250: §IV-B's 3-hop onset
WAITS_MS = [10, 30, 50, 70, 90]
SPACING_M = 200.0
PACKET_BYTES = 1024
START_S = 1.0               # the application starts at 1 s (not given)
# Readings of "the coded packet goes to the head of the interface queue" (the paper says it two
# ways: docs/assumptions.md, DATA/ACK coding); the first is the default.
PLACEMENTS = ["ordered", "stack", "lower-layer", "in-place"]
HIGH_RATES = [r for r in RATES_KBPS if r >= 700]   # "above 700 kbit/s" (§III-C)

# The chain's settings (all but the scheme, the rate and the timing): ns-2's defaults (the paper's
# simulator, `preset = "ns2"`) and Table I on top; benchmarks/coding_overhead.py times the schemes
# on the same chain. ns-2's window_ is 20 packets: 20 of Table I's 1024-byte packets.
CHAIN_SETTINGS = {"preset": "ns2", "mac.data_rate_mbps": 2.0, "mac.basic_rate_mbps": 1.0,
                  "mac.rts_threshold_bytes": 65535, "tcp.variant": "newreno", "tcp.mss_bytes": PACKET_BYTES,
                  "tcp.rcv_buffer_bytes": 20 * PACKET_BYTES, "flows.0.app": "cbr",
                  "flows.0.packet_bytes": PACKET_BYTES}

QUICK = {"seeds": 2, "duration": 60.0, "measure_start": 10.0}
FULL = {"seeds": 10, "duration": 400.0, "measure_start": 20.0}

SERIES = ["none", "piggycode"] + [f"wait{w}" for w in WAITS_MS] + ["configured"]
# PiggyCode and the 30 ms wait under the other readings of the queue placement (series "-stack" ...).
READINGS = [f"{s}-{p}" for p in PLACEMENTS[1:] for s in ("piggycode", "wait30")]
LABELS = {"none": "normal TCP", "piggycode": "PiggyCode", "configured": "configured wait",
          **{f"wait{w}": f"wait {w} ms" for w in WAITS_MS},
          **{f"{s}-{p}": f"{'PiggyCode' if s == 'piggycode' else 'wait 30 ms'}, {p}" for p in PLACEMENTS[1:]
             for s in ("piggycode", "wait30")}}
ALL_SERIES = SERIES + READINGS

PAPER = {"piggy_2hop": PaperNumber(5.0, "§III-C(a), Fig. 2"), "wait_2hop": PaperNumber(10.0, "§III-C(a), Fig. 2"),
         "wait_3hop": PaperNumber(5.0, "§III-C(b), Fig. 5"),
         "rtt_low_ms": PaperNumber(4.0, "§III-C(a), Fig. 4"), "rtt_high_ms": PaperNumber(40.0, "§III-C(a), Fig. 4")}

CLAIMS_NOTE = ("Throughput changes are paired per seed at each rate of 700-1000 kbit/s and averaged over those "
               "rates (mean ± 95% CI over seeds); a percentage holds when the paper's value is within our CI or "
               "5 points of our mean; trends and orderings compare means.")


# ---------------------------------------------------------------- sweeps

def _base(size: dict, scheme: str, extra: dict | None = None) -> dict:
    settings = {**CHAIN_SETTINGS, "scheme.name": scheme, **(extra or {})}
    return sweep_base("chain", {"spacing": SPACING_M}, settings, duration=size["duration"], start=START_S,
                      start_spread=0.0, measure_start=size["measure_start"], seed="run")


def sweeps(quick: bool = False) -> dict[str, dict]:
    size = QUICK if quick else FULL
    seeds = seeds_for(size["seeds"], quick)
    grid = {"hops": HOPS, "flows.0.rate_kbps": [float(r) for r in RATES_KBPS]}
    return {
        "none": {"name": f"{NAME}-none", "base": _base(size, "none"), "grid": grid, "seeds": seeds},
        "piggycode": {"name": f"{NAME}-piggycode", "base": _base(size, "piggycode"), "grid": grid,
                      "seeds": seeds},
        "wait": {"name": f"{NAME}-wait", "base": _base(size, "waittime"),
                 "grid": {**grid, "scheme.piggycode.wait_s": [w / 1000.0 for w in WAITS_MS]}, "seeds": seeds},
        "configured": {"name": f"{NAME}-configured",
                       "base": _base(size, "waittime", {"scheme.piggycode.configured": True}),
                       "grid": grid, "seeds": seeds},
        "placement": {"name": f"{NAME}-placement", "base": _base(size, "waittime"),
                      "grid": {**grid, "scheme.piggycode.placement": PLACEMENTS[1:],
                               "scheme.piggycode.wait_s": [0.0, 0.03]}, "seeds": seeds},
    }


# ---------------------------------------------------------------- per-run measures

def per_run(results: dict):
    """One row per run: series, hops, rate, seed, goodput_kbps, rtt_ms, acks_uncoded (ACKs the
    relays sent uncoded), acks_coded, out_of_order, fast_retransmits."""
    import pandas as pd

    frames = []
    for part, res in results.items():
        flows = res.flows.copy()
        nodes = res.nodes
        if part == "wait":
            flows["series"] = flows["scheme.piggycode.wait_s"].map(lambda w: f"wait{round(w * 1000)}")
        elif part == "placement":
            # waittime with wait 0 is PiggyCode (bit for bit; tests/piggycode.rs).
            flows["series"] = [f"{'wait30' if w > 0 else 'piggycode'}-{p}" for w, p in
                               zip(flows["scheme.piggycode.wait_s"], flows["scheme.piggycode.placement"])]
        else:
            flows["series"] = part
        relays = nodes[(nodes["node"] > 0) & (nodes["node"] < nodes["hops"])]
        per = relays.groupby("run_key")[["piggy_ack_uncoded", "piggy_ack_coded"]].sum()
        flows = flows.merge(per, left_on="run_key", right_index=True, how="left")
        if part == "none":
            # Without coding every ACK the receiver generates is sent, uncoded, by every relay
            # (an upper bound: ACKs lost on the way are not subtracted).
            flows["piggy_ack_uncoded"] = flows["acks_sent"] * (flows["hops"] - 1)
        frames.append(pd.DataFrame({
            "series": flows["series"], "hops": flows["hops"].astype(int),
            "rate": flows["flows.0.rate_kbps"].round().astype(int), "seed": flows["seed"],
            "goodput_kbps": flows["goodput_kbps"], "rtt_ms": flows["rtt_mean_ms"],
            "acks_uncoded": flows["piggy_ack_uncoded"].fillna(0), "acks_coded": flows["piggy_ack_coded"].fillna(0),
            "out_of_order": flows["out_of_order_segments"], "fast_retransmits": flows["fast_retransmits"]}))
    return pd.concat(frames, ignore_index=True)


def _mean(df, value: str, series: str, hops: int, rates: list[int]) -> float:
    d = df[(df["series"] == series) & (df["hops"] == hops) & (df["rate"].isin(rates))]
    return float(d[value].mean()) if len(d) else math.nan


def _change(df, series: str, hops: int, rates: list[int], base: str = "none", value: str = "goodput_kbps"):
    """Per seed: the change (%) of `series` over `base`, averaged over `rates`; mean ± CI over seeds."""
    from ..analysis.stats import mean_ci

    d = df[(df["hops"] == hops) & (df["rate"].isin(rates))]
    a = d[d["series"] == base].set_index(["seed", "rate"])[value]
    b = d[d["series"] == series].set_index(["seed", "rate"])[value]
    pct = ((b - a) / a * 100.0).dropna()
    return mean_ci(pct.groupby(level="seed").mean())


# ---------------------------------------------------------------- the 2-hop airtime bound

def airtime_bound_kbps(coded: bool, backoff_slots: float) -> float:
    """Goodput bound of the 2-hop chain (Table I's 802.11b set-up: long preamble 192 us, 2 Mbit/s
    data, 1 Mbit/s basic rate, slot 20 us, SIFS 10 us, DIFS 50 us, RTS/CTS off): per 1024-byte
    segment the source sends the DATA, the relay the DATA and the ACK (coded: one frame, the
    DATA's length plus the 20-byte PiggyCode header), the receiver the ACK; each frame costs
    DIFS + `backoff_slots` slots + its airtime + SIFS + the MAC ACK. Nothing collides."""
    plcp, slot, sifs, difs = 192.0, 20.0, 10.0, 50.0
    mac_ack = plcp + 14 * 8 / 1.0
    overhead = 28 + 8 + 20 + 20          # MAC header + FCS, LLC/SNAP, IP, TCP

    def frame(payload_bytes: int) -> float:
        return difs + backoff_slots * slot + plcp + (overhead + payload_bytes) * 8 / 2.0 + sifs + mac_ack

    data, ack = frame(PACKET_BYTES), frame(0)
    relay = frame(PACKET_BYTES + 20) if coded else data + ack
    return PACKET_BYTES * 8 / (data + relay + ack) * 1000.0


# ---------------------------------------------------------------- analysis

def analyze(results: dict, quick: bool = False) -> Analysis:
    df = per_run(results)
    parts = [_figures_and_tables(df), _bound(df), _claims(df)]
    joined = Analysis.join(parts)
    return Analysis.join([joined, claims_part(joined.claims, CLAIMS_NOTE), _notes(quick, df)], main_table="throughput",
                         scenario_note="Parts: none, piggycode, wait (wait_s 10-90 ms), configured, placement "
                                       "(PiggyCode and the 30 ms wait under the stack, lower-layer and "
                                       "in-place readings); each over hops 2-4 × the application's rate "
                                       "200-1000 kbit/s.")


METRICS = [("goodput_kbps", "throughput", "Throughput (kbit/s)", "Figs. 2, 5, 8, 11, 14"),
           ("acks_uncoded", "acks", "ACKs the relays sent uncoded", "Figs. 3, 6, 9, 12, 15"),
           ("rtt_ms", "rtt", "Mean RTT (ms)", "Figs. 4, 7, 10, 13, 16"),
           ("out_of_order", "reordering", "Segments received out of order", "not in the paper")]


def _figures_and_tables(df) -> Analysis:
    import pandas as pd

    tables, figures, summary = [], [], {}
    for value, name, ylabel, figs in METRICS:
        fig, axs = grid_figure(13.0, 4.0, 1, len(HOPS))
        for i, h in enumerate(HOPS):
            line_panel(axs[0, i], df[df["hops"] == h], "rate", "series", value, SERIES, LABELS,
                       f"{h} hops", "Application rate (kbit/s)", ylabel)
        axs[0, -1].legend(fontsize=7)
        figures.append(FigureOut(f"{name}", f"{ylabel} against the application's rate ({figs})", fig,
                                 "Mean over seeds ± 95% CI. The coded packet queued by the default reading "
                                 "(ordered); the other readings are in the table."))
        stats = stats_by(df, ["series", "hops", "rate"], value)
        rows = []
        for h in HOPS:
            for r in RATES_KBPS:
                row = {"hops": h, "rate (kbit/s)": r}
                for s in ALL_SERIES:
                    m, ci, _ = stats.get((s, h, r), (math.nan, math.nan, 0))
                    row[LABELS[s]] = fmt_ci(m, ci, 1 if value == "rtt_ms" else 0)
                rows.append(row)
        tables.append(TableOut(name, f"{ylabel} ({figs}), mean ± 95% CI", pd.DataFrame(rows),
                               note="Series with a reading after the comma queue the coded packet by that "
                                    "reading (scheme.piggycode.placement); the others by the default, ordered."))
        summary[name] = {s: {str(h): {str(r): stats.get((s, h, r), (math.nan,))[0] for r in RATES_KBPS}
                             for h in HOPS} for s in ALL_SERIES}
    return Analysis(summary=summary, tables=tables, figures=figures)


def _bound(df) -> Analysis:
    import pandas as pd

    rows = []
    for label, slots in (("expected backoff (CWmin/2 = 15.5 slots)", 15.5), ("no backoff", 0.0)):
        plain, coded = airtime_bound_kbps(False, slots), airtime_bound_kbps(True, slots)
        rows.append({"frame cost": label, "no coding (kbit/s)": round(plain, 1),
                     "every relay ACK coded (kbit/s)": round(coded, 1),
                     "gain": f"{(coded / plain - 1) * 100:+.1f}%"})
    ours = {s: _mean(df, "goodput_kbps", s, 2, [1000]) for s in ("none", "piggycode", "wait30")}
    note = ("Simulated at 1000 kbit/s (2 hops): " + ", ".join(f"{LABELS[s]} {v:.0f}" for s, v in ours.items())
            + " kbit/s. With several stations contending, backoffs overlap, so the no-backoff row is the bound.")
    return Analysis(summary={"airtime_bound_2hop_kbps": {r["frame cost"]: r for r in rows}},
                    tables=[TableOut("airtime_bound", "Airtime bound of the 2-hop chain", pd.DataFrame(rows),
                                     note=note)])


def _onset(df, series: str, hops: int, share: float = 0.2) -> float:
    """The lowest rate at which the relays code at least `share` of the ACKs they send."""
    for r in RATES_KBPS:
        coded = _mean(df, "acks_coded", series, hops, [r])
        total = coded + _mean(df, "acks_uncoded", series, hops, [r])
        if total > 0 and coded / total >= share:
            return float(r)
    return math.nan


def _rate(r: float) -> str:
    return f"{r:.0f}" if math.isfinite(r) else "never (up to 1000)"


def _fast_retransmits(df, series: str) -> float:
    return _mean(df, "fast_retransmits", series, 2, HIGH_RATES)


def _groups(df, v: dict) -> dict[str, ClaimGroup]:
    """The claim classes, each with a conclusion written from this run's numbers."""
    doc = "docs/results/wait-time.md, Why"
    fr = {s: _fast_retransmits(df, s) for s in ("none", "piggycode", "piggycode-stack")}
    held = v["readings_held"]
    best = max(held, key=held.get)
    throughput = ClaimGroup(
        "throughput gains",
        f"fast retransmits per run at 2 hops, 700-1000 kbit/s: normal TCP {fr['none']:.0f}, PiggyCode "
        f"{fr['piggycode']:.0f} (ordered), {fr['piggycode-stack']:.0f} (stack); of the claims the readings "
        f"table checks, {held['ordered']} hold with the default reading and at most {held[best]} with any "
        f"({best})", doc)
    acks_rtt = ClaimGroup(
        "ACKs and RTT",
        f"at 200 kbit/s the 2-hop RTT is {v['rtt_none_200']:.1f} ms for normal TCP (paper: about 4; one "
        f"1024-byte frame takes {v['frame_ms']:.1f} ms per hop at 2 Mbit/s); PiggyCode codes "
        f"{1 - v['ratio_hi']:.0%} of the relays' ACKs above 700 kbit/s", doc)
    config = ClaimGroup(
        "wait-time configuration",
        f"relays code ≥ 20% of their ACKs from {_rate(v['onset'][('configured', 2)])} kbit/s at 2 hops and "
        f"{_rate(v['onset'][('configured', 3)])} at 3 with the configured wait, against "
        f"{_rate(v['onset'][('piggycode', 2)])} and {_rate(v['onset'][('piggycode', 3)])} for PiggyCode "
        "(the paper: 300 and 250, against 700 and 400)", doc)
    return {"throughput": throughput, "acks_rtt": acks_rtt, "config": config}


def _claim_checks(df, placement: str = "ordered") -> dict:
    """The paper's claims under one reading of the queue placement: claim id -> (ours as
    shown, Check), or None where the claim needs series this reading was not run with (the
    other readings run PiggyCode and the 30 ms wait only)."""
    def S(series: str) -> str:
        if placement == "ordered" or series == "none":
            return series
        return f"{series}-{placement}" if series in ("piggycode", "wait30") else ""

    def have(*series) -> bool:
        return all(S(x) for x in series)

    low, high = [r for r in RATES_KBPS if r <= 600], HIGH_RATES
    waits = [f"wait{w}" for w in WAITS_MS]

    def ch(series, h):
        return _change(df, S(series), h, high)

    def chg(series, h):
        m, ci, _ = ch(series, h)
        return fmt_ci(m, ci, 1, "%", sign=True)

    def rtt(series, h, rs):
        return _mean(df, "rtt_ms", S(series), h, rs)

    def acks(series, h, rs):
        return _mean(df, "acks_uncoded", S(series), h, rs)

    out: dict = {}
    m, ci, _ = ch("piggycode", 2)
    out["piggy_2hop"] = (f"{chg('piggycode', 2)} (700-1000 kbit/s)", near(m, ci, 5.0))
    m, ci, _ = ch("wait30", 2)
    out["wait_2hop"] = (f"{chg('wait30', 2)} (700-1000 kbit/s)", near(m, ci, 10.0))
    hi = acks("piggycode", 2, high) / acks("none", 2, high)
    lo = acks("piggycode", 2, low) / acks("none", 2, low)
    out["acks_half"] = (f"PiggyCode / normal TCP: {hi:.2f} at 700-1000, {lo:.2f} at 200-600 kbit/s",
                        all_of([Check(0.35 <= hi <= 0.65, "about half: in [0.35, 0.65]"),
                                Check(lo >= 0.85, "not below 700: at least 0.85")]))
    out["rtt_low"] = (f"200 kbit/s: normal TCP {rtt('none', 2, [200]):.1f} ms, PiggyCode "
                      f"{rtt('piggycode', 2, [200]):.1f} ms",
                      all_of(near(rtt(x, 2, [200]), 0.0, 4.0, 2.0) for x in ("none", "piggycode")))
    if have(*waits):
        out["rtt_wait"] = ("200 kbit/s, 2 hops: " + ", ".join(f"{w} ms: {rtt(f'wait{w}', 2, [200]):.0f}"
                                                              for w in WAITS_MS),
                           rises(rtt("wait10", 2, [200]), rtt("wait90", 2, [200])))
    out["rtt_high"] = (f"normal TCP {rtt('none', 2, [200]):.0f} -> {rtt('none', 2, [1000]):.0f} ms; at 700-1000: "
                       f"PiggyCode {rtt('piggycode', 2, high):.0f}, wait 30 ms {rtt('wait30', 2, high):.0f} ms",
                       all_of([rises(rtt("none", 2, [200]), rtt("none", 2, [1000])),
                               less(rtt("piggycode", 2, high), 40.0), less(rtt("wait30", 2, high), 40.0)]))
    if have(*waits):
        g2 = {w: _mean(df, "goodput_kbps", S(f"wait{w}"), 2, high) for w in WAITS_MS}
        best2 = max(g2, key=g2.get)
        out["best_wait_2hop"] = (f"highest throughput at 700-1000 kbit/s: wait {best2} ms",
                                 Check(best2 == 30, "the best wait is 30 ms"))
        c3 = {w: ch(f"wait{w}", 3)[0] for w in WAITS_MS}
        bw = max(WAITS_MS, key=lambda w: c3[w] if math.isfinite(c3[w]) else -math.inf)
        mp, cp, _ = ch("piggycode", 3)
        mw, cw, _ = ch(f"wait{bw}", 3)
        out["three_hops"] = (f"PiggyCode {chg('piggycode', 3)}, best wait ({bw} ms) {chg(f'wait{bw}', 3)} "
                             "(700-1000 kbit/s)", all_of([near(mp, cp, -7.0), near(mw, cw, 5.0)]))
        r3 = {w: rtt(f"wait{w}", 3, high) for w in WAITS_MS}
        best3 = min(r3, key=r3.get)
        out["rtt_3hop"] = (f"shortest RTT at 700-1000 kbit/s: wait {best3} ms",
                           Check(best3 == 90, "the shortest is 90 ms"))
        four = {x: _mean(df, "goodput_kbps", S(x), 4, high) for x in ["none", "piggycode"] + waits}
        out["four_hops"] = ("700-1000 kbit/s: " + ", ".join(f"{LABELS[x]} {v:.0f}" for x, v in four.items()),
                            all_of(at_most(v, four["piggycode"]) for v in four.values()))
    if have("configured"):
        on = {(x, h): _onset(df, S(x), h) for x in ("piggycode", "configured") for h in (2, 3)}
        out["config_onset"] = (
            "relays code ≥ 20% of their ACKs from (kbit/s): " + "; ".join(
                f"{h} hops PiggyCode {_rate(on[('piggycode', h)])}, configured {_rate(on[('configured', h)])}"
                for h in (2, 3)),
            all_of([Check(on[("configured", 2)] <= 300, "configured 2 hops ≤ 300"),
                    Check(on[("configured", 3)] <= 250, "configured 3 hops ≤ 250"),
                    Check(all(on[("configured", h)] < on[("piggycode", h)]
                              or not math.isfinite(on[("piggycode", h)]) for h in (2, 3)),
                          "earlier than PiggyCode at 2 and 3 hops")]))
    return out


# The claims: id, the paper's words, its class, the paper's number.
CLAIMS = [
    ("piggy_2hop", "§III-C(a): at 2 hops PiggyCode improves throughput by 5% over normal TCP", "throughput",
     "piggy_2hop"),
    ("wait_2hop", "§III-C(a): at 2 hops wait-time insertion improves throughput by 10% over normal TCP "
                  "(wait 30 ms)", "throughput", "wait_2hop"),
    ("acks_half", "§III-C(a): PiggyCode's uncoded ACKs fall by about half above 700 kbit/s, and not below",
     "acks_rtt", None),
    ("rtt_low", "§III-C(a): the RTT of normal TCP and PiggyCode is about 4 ms at a low rate (2 hops)", "acks_rtt",
     "rtt_low_ms"),
    ("rtt_wait", "§III-C(a): at a low rate the RTT grows with the wait time", "acks_rtt", None),
    ("rtt_high", "§III-C(a): above 700 kbit/s normal TCP's RTT rises while PiggyCode and wait-time stay under "
                 "40 ms", "acks_rtt", "rtt_high_ms"),
    ("best_wait_2hop", "§III-C(a): the best wait at 2 hops is 30 ms", "throughput", None),
    ("three_hops", "§III-C(b): at 3 hops PiggyCode loses 7% and wait-time insertion gains 5% over normal TCP",
     "throughput", "wait_3hop"),
    ("rtt_3hop", "§III-C(b): at 3 hops the shortest RTT at a high rate is with a 90 ms wait", "acks_rtt", None),
    ("four_hops", "§III-C(c): at 4 hops PiggyCode gives the highest throughput", "throughput", None),
    ("config_onset", "§IV-B: with the configured wait coding starts at 300 instead of 700 kbit/s (2 hops) and "
                     "at 250 instead of 400 (3 hops)", "config", None),
]


def _known_class(cid: str, frame_ms: float) -> str | None:
    """The class of a claim that no reading makes hold, where this run's numbers show it."""
    if cid == "rtt_low":
        return (f"the paper's own inconsistency: Table I's 1024-byte packets at 2 Mbit/s take {frame_ms:.1f} ms "
                "per hop, so a 2-hop RTT (DATA over 2 hops, ACK back) cannot be 4 ms")
    return None


def _readings(df, checks: dict, frame_ms: float) -> tuple[TableOut, dict]:
    """The readings table: each claim that does not hold with the default reading, what
    every reading of the queue placement gives, and its class; and the claims each reading
    holds, of those every reading can check."""
    import pandas as pd

    per = {"ordered": checks, **{p: _claim_checks(df, p) for p in PLACEMENTS[1:]}}
    common = [cid for cid, *_ in CLAIMS if all(per[p].get(cid) for p in PLACEMENTS)]
    held = {p: sum(bool(per[p][cid][1].holds) for cid in common) for p in PLACEMENTS}
    rows = []
    for cid, text, _, _ in CLAIMS:
        if checks[cid][1].holds:
            continue
        row = {"claim": text}
        fits = []
        for p in PLACEMENTS:
            got = per[p].get(cid)
            row[p + (" (default)" if p == "ordered" else "")] = (
                "not run" if got is None else f"{got[0]} ({'holds' if got[1].holds else 'no'})")
            if got is not None and got[1].holds:
                fits.append(p)
        row["class"] = (f"our choice: holds with {', '.join(fits)}" if fits else
                        _known_class(cid, frame_ms) or "unknown: no reading tried makes it hold (results page)")
        rows.append(row)
    rows.append({"claim": f"claims held of the {len(common)} every reading checks",
                 **{p + (" (default)" if p == "ordered" else ""): str(held[p]) for p in PLACEMENTS}, "class": ""})
    table = TableOut("readings", "Claims that do not hold, under each reading of where a coded packet is "
                     "queued (scheme.piggycode.placement)", pd.DataFrame(rows),
                     note="The other readings run PiggyCode and the 30 ms wait only: claims that need the other "
                          "waits or the configured wait are 'not run' there. The default reading is chosen on the "
                          "paper as a whole (docs/assumptions.md).")
    return table, held


def _claims(df) -> Analysis:
    checks = _claim_checks(df)
    frame_ms = (192 + (28 + 8 + 40 + PACKET_BYTES) * 8 / 2.0) / 1000.0   # PLCP + MAC, LLC, IP, TCP at 2 Mbit/s
    table, held = _readings(df, checks, frame_ms)
    low_ratio = _mean(df, "acks_uncoded", "piggycode", 2, HIGH_RATES) / _mean(df, "acks_uncoded", "none", 2,
                                                                               HIGH_RATES)
    onset = {(s, h): _onset(df, s, h) for s in ("piggycode", "configured") for h in (2, 3)}
    groups = _groups(df, {"readings_held": held, "rtt_none_200": _mean(df, "rtt_ms", "none", 2, [200]),
                          "frame_ms": frame_ms, "ratio_hi": low_ratio, "onset": onset})
    claims = [Claim(text, checks[cid][0], checks[cid][1], groups[g], PAPER[paper] if paper else None)
              for cid, text, g, paper in CLAIMS]
    ch = {(s, h): _change(df, s, h, HIGH_RATES) for s in ["piggycode"] + [f"wait{w}" for w in WAITS_MS] + READINGS
          for h in HOPS}
    return Analysis(summary={"changes_pct_700_1000": {f"{s}_{h}hops": {"mean": m, "ci95": ci, "n": n}
                                                      for (s, h), (m, ci, n) in ch.items()},
                             "coding_onset_kbps": {f"{s}_{h}hops": v for (s, h), v in onset.items()},
                             "readings_claims_held": held},
                    claims=claims, tables=[table])


def _notes(quick: bool, df) -> Analysis:
    n = int(df.groupby(["series", "hops", "rate"]).size().max()) if len(df) else 0
    size = QUICK if quick else FULL
    notes = [f"{n} seeds, {size['duration']:g} simulated seconds per run, goodput measured from "
             f"{size['measure_start']:g} s (the paper: 400 s)."]
    if quick:
        notes.append("Quick mode: 2 seeds and 60 s; run without --quick for 10 seeds and the paper's 400 s.")
    fr = {s: _fast_retransmits(df, s) for s in ["none", "piggycode", "wait30"] + READINGS}
    notes.append("Fast retransmits at 2 hops, 700-1000 kbit/s (mean per run): "
                 + ", ".join(f"{LABELS[s]} {v:.0f}" for s, v in fr.items())
                 + ". A coded DATA queued ahead of older DATA of its flow (stack) reorders the flow (see the "
                   "reordering figure).")
    chg = {(s, h): _change(df, s, h, HIGH_RATES) for s in ["piggycode", "wait30"] + READINGS for h in HOPS}
    notes.append("Throughput change over normal TCP at 700-1000 kbit/s by reading (ordered / stack / lower-layer / "
                 "in place): " + "; ".join(
                     f"{h} hops: PiggyCode " + " / ".join(f"{chg[(s, h)][0]:+.1f}%" for s in
                                                         ["piggycode"] + [f"piggycode-{p}" for p in PLACEMENTS[1:]])
                     + ", wait 30 ms " + " / ".join(f"{chg[(s, h)][0]:+.1f}%" for s in
                                                   ["wait30"] + [f"wait30-{p}" for p in PLACEMENTS[1:]])
                     for h in HOPS) + ".")
    return Analysis(summary={"seeds": n, "duration_s": size["duration"]}, notes=notes)
