"""`ncmesh reproduce modern-tcp --quick` (issue 31: the papers under today's TCP): the parts, the
Linux scenarios (the paper's but for TCP), the summary's gains per paper, set-up, scheme and TCP,
the tables, the figure, and conclusions written from the run's numbers."""

from __future__ import annotations

import copy
import csv
import json

from ncmesh.experiments import available, modern_tcp
from ncmesh.sweep import load_sweep
from test_experiments_common import assert_conclusions_under_claims
from test_report_layout import assert_reproduction_layout

import pytest


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def test_registered_with_a_paper_and_a_linux_part_per_series():
    assert available()["modern-tcp"] is modern_tcp
    quick, full = modern_tcp.sweeps(True), modern_tcp.sweeps(False)
    assert set(quick) == set(full)           # analyze reads either mode's parts by name
    papers = {}
    for part in quick:
        paper, series, tcp = modern_tcp.split_part(part)
        papers.setdefault(paper, set()).add((series, tcp))
    assert set(papers) == set(modern_tcp.PAPERS)
    for paper, got in papers.items():
        assert ("none", "paper") in got and ("none", "linux") in got, paper
        assert {s for s, t in got if t == "paper"} == {s for s, t in got if t == "linux"}, paper
    assert ("piggycode-stack", "linux") in papers["wait-time"]
    for spec in quick.values():
        assert load_sweep(spec).runs()


def test_linux_runs_are_the_papers_runs_but_for_tcp():
    """Under Linux only TCP changes: the MAC, channel, flows, scheme and segment size stay the
    paper's (an ns-2 paper's MAC and PHY written out), and the TCP is the preset's."""
    parts = modern_tcp.sweeps(True)
    for part in [p for p in parts if p.endswith("-paper")]:
        paper_runs = load_sweep(parts[part]).runs()
        linux_runs = load_sweep(parts[part[:-len("paper")] + "linux"]).runs()
        assert len(paper_runs) == len(linux_runs)
        for a, b in zip(paper_runs, linux_runs):
            assert not a.error and not b.error, (a.error, b.error)
            fa, fb = _flat(a.scenario), _flat(b.scenario)
            differ = {k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k)}
            assert all(k.startswith("tcp.") or k == "preset" for k in differ), (part, differ)
            assert fa["tcp.mss_bytes"] == fb["tcp.mss_bytes"]
            tcp = b.scenario["tcp"]
            assert (tcp["variant"], tcp["sack"], tcp["rack"], tcp["prr"]) == ("cubic", True, True, True), part
            assert b.scenario["preset"] == "linux"
        # The BBR part is the Linux part but for the congestion control.
        for b, c in zip(linux_runs, load_sweep(parts[part[:-len("paper")] + "bbr"]).runs()):
            fb, fc = _flat(b.scenario), _flat(c.scenario)
            assert {k for k in set(fb) | set(fc) if fb.get(k) != fc.get(k)} == {"tcp.variant"}, part
            assert c.scenario["tcp"]["variant"] == "bbr"


def test_split_part():
    assert modern_tcp.split_part("wait-time-chain-piggycode-stack-linux") == ("wait-time", "piggycode-stack", "linux")
    assert modern_tcp.split_part("ncaqm-alice-bob-none-paper") == ("ncaqm", "none", "paper")


def test_gains_are_paired_per_seed_and_near_zero_baselines_give_no_percentage():
    import pandas as pd

    rows = [{"paper": "comp", "setup": "s", "series": s, "tcp": "paper", "seed": seed, "goodput_kbps": v}
            for s, vals in (("none", (100.0, 200.0)), ("comp", (110.0, 240.0))) for seed, v in zip((1, 2), vals)]
    rows += [{"paper": "comp", "setup": "z", "series": s, "tcp": "paper", "seed": 1, "goodput_kbps": v}
             for s, v in (("none", 1.0), ("comp", 50.0))]
    g = modern_tcp.gains(pd.DataFrame(rows)).set_index("setup")
    assert g.loc["s", "mean"] == pytest.approx(15.0)       # +10% and +20%
    assert not g.loc["s", "near_zero"] and g.loc["z", "near_zero"]


@pytest.fixture(scope="module")
def quick_run(quick_reproduction):
    return quick_reproduction("modern-tcp")


def test_quick_summary_tables_and_figure(quick_run):
    out, p = quick_run
    s = json.loads((out / "summary.json").read_text())
    assert s["experiment"] == "modern-tcp" and s["quick"] is True and s["runs"]["failed"] == 0
    assert set(s["gains"]) == set(modern_tcp.PAPERS)
    for paper, setups in s["gains"].items():
        for setup, per in setups.items():
            assert "none" not in per
            for series, e in per.items():
                assert set(e) == set(modern_tcp.TCPS), (paper, setup, series)
                for tcp in modern_tcp.TCPS:
                    assert set(e[tcp]) == {"gain_pct", "ci95", "n", "no_coding_kbps", "coded_kbps", "near_zero"}
                    assert e[tcp]["n"] == modern_tcp.QUICK["seeds"]
    assert {"piggycode", "wait30", "piggycode-stack"} <= set(s["gains"]["wait-time"]["2-hop chain"])
    for per in s["reordering"].values():
        assert set(per) == {"none", "piggycode", "piggycode-stack"}
    # Each paper's headline claim under Linux's TCP and under Linux's with BBR, and the reordering claim.
    assert len(s["claims"]) == 2 * len(modern_tcp.PAPERS) + 1
    assert sum("with BBR" in c["claim"] for c in s["claims"]) == len(modern_tcp.PAPERS)
    assert all(isinstance(c["holds"], bool) for c in s["claims"])
    assert_conclusions_under_claims(s["claims"], p.stdout)
    rows = list(csv.DictReader(open(out / "tables" / "gains.csv")))
    assert {r["paper"] for r in rows} == set(modern_tcp.PAPER_LABEL.values())
    assert all(r["coding gain, the paper's TCP"] and r["coding gain, Linux's TCP"] for r in rows)
    assert (out / "figures" / "gain_paper_vs_linux.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "report.html").read_text().count('<img class="figure"') == 1
    assert_reproduction_layout(out, "gains")


def test_figure_has_a_panel_per_paper_with_its_diagonal():
    import pandas as pd

    rows = [{"paper": p, "setup": "a", "series": "cope", "tcp": t, "mean": m, "ci95": 1.0, "n": 3, "base_kbps": 100.0,
             "coded_kbps": 110.0, "near_zero": False}
            for p in modern_tcp.PAPERS for t, m in (("paper", 10.0), ("linux", 4.0))]
    [f] = modern_tcp._figure(pd.DataFrame(rows)).figures
    axes = f.figure.axes
    assert len(axes) == len(modern_tcp.PAPERS)
    for ax in axes:
        [diagonal] = [line for line in ax.lines if line.get_linestyle() == "--"]
        assert list(diagonal.get_xdata()) == list(diagonal.get_ydata())
        assert [(c.lines[0].get_xdata()[0], c.lines[0].get_ydata()[0]) for c in ax.containers] == [(10.0, 4.0)]
    import matplotlib.pyplot as plt

    plt.close(f.figure)


def test_conclusions_are_written_from_the_run_numbers(quick_run):
    """Each paper's conclusion comes from the run's numbers: change them and every line changes."""
    out, _ = quick_run
    s = json.loads((out / "summary.json").read_text())
    before = {c.group.name: c.group.conclusion for c in modern_tcp._claims(s)}
    other = copy.deepcopy(s)
    for setups in other["gains"].values():
        for per in setups.values():
            for e in per.values():
                e["linux"]["gain_pct"] = (e["linux"]["gain_pct"] or 0.0) + 7.0
                e["linux"]["near_zero"] = e["paper"]["near_zero"] = False
                e["paper"]["gain_pct"] = e["paper"]["gain_pct"] or 0.0
    for per in other["reordering"].values():
        per["piggycode-stack"]["paper"]["fast_retransmits"] += 5.0
    after = {c.group.name: c.group.conclusion for c in modern_tcp._claims(other)}
    assert set(before) == set(after) and len(before) == len(modern_tcp.PAPERS)
    for name in before:
        assert before[name] != after[name], name
