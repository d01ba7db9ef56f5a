"""chain-vs-ns3: TCP goodput over an 802.11b chain of 1-8 hops, ncmesh next to ns-3 3.44."""

from __future__ import annotations

import math

from .common import Analysis, FigureOut, TableOut, fmt_ci, pct, seeds_for, seeds_text

NAME = "chain-vs-ns3"
TITLE = "TCP goodput over an 802.11b chain, 1–8 hops: ncmesh vs ns-3 3.44"
DESCRIPTION = """
One TCP NewReno bulk transfer over a chain of 1 to 8 hops (nodes 200 m apart, 802.11b at
2 Mbit/s, 250 m range, RTS/CTS off, 50-packet queues, delayed ACKs, 1000-byte segments),
the ns-3 validation set-up of the core issue. ncmesh's goodput, mean over seeds with a 95%
confidence interval, is set beside ns-3 3.44's on the same scenario. The check passes when
every hop count is within 10% of ns-3.

The ns-3 numbers are the `chain` rows of validation/ns3/reference.csv (ns-3 3.44, PyPI
wheel; seed 1, runs 1-3; goodput measured over [10 s, 60 s] of 60 simulated seconds),
read by `ncmesh.validation` (which `ncmesh compare-ns3` uses too): mean, min and max per
hop count, as in the "Goodput summary" table of validation/ns3/README.md.
"""

NS3_SOURCE = ("ns-3 3.44 (PyPI wheel), tag chain, seed 1, runs 1-3, goodput over [10 s, 60 s]; "
              "validation/ns3/README.md, Goodput summary (from validation/ns3/reference.csv)")
HOPS = list(range(1, 9))
TOLERANCE_PCT = 10.0

QUICK = {"seeds": 2, "duration": 30}
FULL = {"seeds": 10, "duration": 60}


def sweeps(quick: bool = False) -> dict[str, dict]:
    """One sweep: hops 1-8 x seeds on the chain builder (whose defaults are the ns-3 set-up)."""
    size = QUICK if quick else FULL
    return {"": {
        "name": NAME,
        # ns-3 keeps the doubled CW after a drop at the retry limit (802.11 resets it).
        "base": {"builder": "chain", "options": {"duration": size["duration"]},
                 "set": {"mac.cw_reset_after_drop": False}},
        "grid": {"hops": HOPS},
        "seeds": seeds_for(size["seeds"], quick),
    }}


def analyze(results: dict, quick: bool = False) -> Analysis:
    from ..analysis.results import ok_runs
    from ..validation import chain_reference

    results = results[""]
    ns3 = chain_reference()
    table = _table(results, ns3)
    runs = ok_runs(results)
    duration = float(runs["sim_time_s"].max()) if "sim_time_s" in runs.columns and len(runs) else math.nan
    n_seeds = int(table.df["n"].max()) if len(table.df) else 0
    used = seeds_text(table.df["n"]) if len(table.df) else "0"
    over = (f"seeds 1..{n_seeds}" if used == str(n_seeds) else
            f"each hop count's seeds 1..n (n = {used}: the seed rule, column n)")
    table.note = (f"ncmesh: mean over {over} ± the 95% confidence-interval half-width (Student t); "
                  f"{duration:g} simulated seconds per run. ns-3: {NS3_SOURCE}. "
                  "Difference = (ncmesh − ns-3) / ns-3.")
    rows = table.df.to_dict("records")
    compared = [r for r in rows if math.isfinite(r["diff_pct"])]
    max_abs = max((abs(r["diff_pct"]) for r in compared), default=math.nan)
    all_within = bool(compared) and all(r["within_10pct"] for r in compared) and len(compared) == len(ns3)
    summary = {
        "seeds": n_seeds,
        "duration_s": duration,
        "metric": "goodput_kbps",
        "reference": NS3_SOURCE,
        "tolerance_pct": TOLERANCE_PCT,
        "goodput_kbps": {str(r["hops"]): {"mean": r["ncmesh_kbps"], "ci95": r["ncmesh_ci95_kbps"], "n": r["n"],
                                          "ns3": r["ns3_kbps"], "ns3_min": r["ns3_min_kbps"],
                                          "ns3_max": r["ns3_max_kbps"], "diff_pct": r["diff_pct"]} for r in rows},
        "max_abs_diff_pct": max_abs,
        "all_within_10pct": all_within,
    }
    notes = []
    if quick:
        notes.append("Quick mode: 2 seeds and 30 simulated seconds per run (goodput measured over [5 s, 30 s]), "
                     "against ns-3's 60 s runs measured over [10 s, 60 s]. Run without --quick for at least 10 seeds "
                     "and 60 s, the ns-3 set-up.")
    return Analysis(
        summary=summary, tables=[table], main_table=table.name, figures=[_figure(results, table.df, ns3, n_seeds, max_abs)],
        highlights=[
            ("hop counts within 10% of ns-3", f"{sum(1 for r in compared if r['within_10pct'])} / {len(ns3)}",
             "good" if all_within else "bad"),
            ("largest difference from ns-3", pct(max_abs, 1).lstrip("+") if math.isfinite(max_abs) else "-",
             "good" if math.isfinite(max_abs) and max_abs <= TOLERANCE_PCT else "bad"),
            ("all within 10%", "yes" if all_within else "no", "good" if all_within else "bad"),
        ],
        notes=notes,
        scenario_note="The chain builder's defaults are the ns-3 anchor scenario (validation/ns3/README.md); "
                      "the sweep varies `hops` and the seed.",
    )


def _table(results, ns3: dict) -> TableOut:
    """Goodput per hop count, ncmesh (mean ± CI) beside ns-3 (mean, min–max), and the difference."""
    import pandas as pd

    from ..analysis.table import summarize

    rows = []
    for r in summarize(results, "goodput_kbps", by="hops").itertuples(index=False):
        hops = int(r.hops)
        mean, ci, n = float(r.goodput_kbps_mean), float(r.goodput_kbps_ci95), int(r.n)
        ref, lo, hi = ns3.get(hops, (math.nan, math.nan, math.nan))
        diff = (mean - ref) / ref * 100.0 if math.isfinite(ref) else math.nan
        within = bool(abs(diff) <= TOLERANCE_PCT) if math.isfinite(diff) else None
        rows.append({"hops": hops, "ncmesh_kbps": mean, "ncmesh_ci95_kbps": ci, "n": n,
                     "ns3_kbps": ref, "ns3_min_kbps": lo, "ns3_max_kbps": hi,
                     "diff_pct": diff, "within_10pct": within})
    table = pd.DataFrame(rows)
    display = pd.DataFrame({
        "hops": table["hops"],
        "ncmesh, kbit/s (mean ± 95% CI)": [
            fmt_ci(m, c) for m, c in zip(table["ncmesh_kbps"], table["ncmesh_ci95_kbps"])],
        "seeds": table["n"],
        "ns-3 3.44, kbit/s (mean)": table["ns3_kbps"],
        "ns-3 min–max": [f"{lo:.1f} – {hi:.1f}" if math.isfinite(lo) else "-"
                         for lo, hi in zip(table["ns3_min_kbps"], table["ns3_max_kbps"])],
        "ncmesh vs ns-3": [pct(d, 1) for d in table["diff_pct"]],
    })

    def cell_class(column, value):
        if column == "ncmesh vs ns-3" and value not in ("-", None):
            return "good" if abs(float(str(value).rstrip("%"))) <= TOLERANCE_PCT else "bad"
        return None

    return TableOut("goodput_vs_hops", "TCP goodput vs hops: ncmesh beside ns-3 3.44", table,
                    display=display, cell_class=cell_class)


def _figure(results, table, ns3: dict, n_seeds: int, max_abs: float) -> FigureOut:
    """Goodput vs hops (ours with CI, ns-3 with its min-max) and the difference in percent."""
    import pandas as pd

    from ..analysis.plot import label, new_figure, plot_line

    fig, (ax, ax2) = new_figure(7.2, 7.0, nrows=2, sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    ref = pd.DataFrame({"hops": list(ns3), "goodput_kbps": [v[0] for v in ns3.values()],
                        "low": [v[1] for v in ns3.values()], "high": [v[2] for v in ns3.values()]})
    ref = ref[ref["hops"].isin(table["hops"])]
    plot_line(results, "hops", "goodput_kbps", reference=ref,
              reference_label="ns-3 3.44 (mean of 3 runs, bars: min–max)",
              title="TCP goodput over an 802.11b chain: ncmesh vs ns-3 3.44", ax=ax, dodge=0.12)
    ax.set_xlabel("")
    ax.tick_params(labelbottom=True)
    colors = ["#2e7d32" if w else "#c62828" for w in table["within_10pct"]]
    yerr = [c / r * 100.0 if math.isfinite(c) and math.isfinite(r) else 0.0
            for c, r in zip(table["ncmesh_ci95_kbps"], table["ns3_kbps"])]
    ax2.axhspan(-TOLERANCE_PCT, TOLERANCE_PCT, color="#e8f5e9", zorder=0, label=f"±{TOLERANCE_PCT:g}% of ns-3")
    ax2.axhline(0, color="#555555", linewidth=0.9)
    ax2.bar(table["hops"], table["diff_pct"].fillna(0.0), width=0.55, color=colors, yerr=yerr, capsize=3,
            ecolor="#333333", zorder=2, label="ncmesh − ns-3 (error bar: 95% CI of ncmesh)")
    lim = max(TOLERANCE_PCT * 1.5, (max_abs if math.isfinite(max_abs) else 0) + max(yerr or [0]) + 2)
    ax2.set_ylim(-lim, lim)
    ax2.set_ylabel("Difference (%)")
    ax2.set_xlabel(label("hops"))
    ax2.legend(frameon=False, fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, -0.32), ncols=2)
    return FigureOut(
        "goodput_vs_hops", "Goodput vs hops, ncmesh beside ns-3 3.44", fig,
        f"Top: ncmesh mean over {n_seeds} seed(s) with 95% confidence intervals; ns-3 3.44 mean of its 3 runs "
        f"with their min–max. Bottom: ncmesh's difference from ns-3 in percent; the green band is ±{TOLERANCE_PCT:g}%.")
