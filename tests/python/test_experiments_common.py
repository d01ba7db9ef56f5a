"""The reproductions' shared vocabulary (ncmesh.experiments.common): checks, claims and their
conclusion lines, tables, the experiment protocol checked by `ncmesh reproduce --list`."""

from __future__ import annotations

import argparse
import math

import pytest

import ncmesh.experiments as experiments
from ncmesh.experiments import ExperimentError, available
from ncmesh.experiments.cli import cmd_reproduce
from ncmesh.experiments.common import (CLAIM_TOLERANCE_PP, CONCLUSIONS_HEADER, Analysis, Claim, ClaimGroup,
                                       PaperNumber, TableOut, all_of, at_least, claims_part, conclusions, gain, loss,
                                       more, near, no_change, not_loss, ratio_at_least, rises, within)


def assert_conclusions_under_claims(claims: list[dict], stdout: str) -> None:
    """`ncmesh reproduce` prints, under the claims table, one conclusion line per class of
    claims with a claim that does not hold (summary.json's claims carry the class)."""
    # In the order the classes first appear among all the claims.
    failed = [g for g in dict.fromkeys(c["class"] for c in claims)
              if any(not c["holds"] for c in claims if c["class"] == g)]
    table = stdout.index("The paper's claims beside ours")
    if not failed:
        assert CONCLUSIONS_HEADER not in stdout
        return
    header = stdout.index(CONCLUSIONS_HEADER)
    assert header > table
    lines = stdout[header:].splitlines()[1:1 + len(failed)]
    assert [line.split(" (")[0] for line in lines] == [f"- {name}" for name in failed]
    assert all("(see docs/results/" in line for line in lines)
    for name in {c["class"] for c in claims} - set(failed):
        assert f"- {name} (" not in stdout[header:]


def test_near_holds_within_the_ci_or_the_tolerance_and_fails_beyond():
    assert near(10.0, 1.0, 10.0 + CLAIM_TOLERANCE_PP).holds                  # within 5 points
    assert not near(10.0, 1.0, 10.0 + CLAIM_TOLERANCE_PP + 0.1).holds        # just beyond
    assert near(10.0, 8.0, 17.5).holds                                       # within a wide CI
    # A CI wider than the mean does not decide: +1 ± 12 is not "near" -10, only the tolerance counts.
    assert not near(1.0, 12.0, -10.0).holds and "not used" in near(1.0, 12.0, -10.0).rule
    assert near(1.0, 12.0, 5.0).holds
    assert near(10.0, math.nan, 14.0).holds and not near(10.0, math.nan, 16.0).holds   # no CI: 0
    assert not near(math.nan, 1.0, 10.0).holds                               # no number: does not hold
    assert "5 points" in near(1, 1, 1).rule


def test_paired_change_checks():
    assert gain(3.0, 1.0).holds and not gain(1.0, 1.5).holds
    assert loss(-3.0, 1.0).holds and not loss(-1.0, 1.5).holds
    assert no_change(1.0, 1.5).holds and not no_change(3.0, 1.0).holds and not no_change(-3.0, 1.0).holds
    assert not_loss(1.0, 1.5).holds and not_loss(3.0, 1.0).holds and not not_loss(-3.0, 1.0).holds
    assert not no_change(0.0, math.nan).holds and not not_loss(0.0, math.nan).holds   # no CI: no verdict


def test_trends_orderings_and_combinations():
    assert rises(1, 2).holds and not rises(2, 2).holds
    assert at_least(2, 2).holds and not more(2, 2).holds and not at_least(math.nan, 1).holds
    assert within(-9.9, 10).holds and not within(10.1, 10).holds
    assert ratio_at_least(3.0, 2.0, 1.5).holds and not ratio_at_least(2.9, 2.0, 1.5).holds
    assert not ratio_at_least(-3.0, -2.0, 1.5).holds                        # both must be positive
    both = gain(3, 1) & rises(1, 2)
    assert both.holds and ";" in both.rule
    assert not (gain(3, 1) & rises(2, 1)).holds
    assert all_of([gain(3, 1), gain(2, 1)]).holds and not all_of([gain(3, 1), gain(0, 1)]).holds
    assert all_of([gain(3, 1), gain(2, 1)]).rule == gain(3, 1).rule          # distinct rules once


GROUP_A = ClaimGroup("class A", "what ncmesh concludes of A", "docs/results/x.md, A")
GROUP_B = ClaimGroup("class B", "what ncmesh concludes of B", "docs/results/x.md, B")


def _claims() -> list[Claim]:
    return [Claim("A holds", "+3%", gain(3, 1), GROUP_A),
            Claim("A fails", "+0%", gain(0, 1), GROUP_A, PaperNumber(12, "Fig. 9")),
            Claim("B holds", "+5%", gain(5, 1), GROUP_B)]


def test_conclusions_one_line_per_class_with_a_failed_claim():
    lines = conclusions(_claims())
    assert lines == [CONCLUSIONS_HEADER,
                     "- class A (1 of 2 claims does not hold): what ncmesh concludes of A (see docs/results/x.md, A)"]
    assert conclusions([c for c in _claims() if c.holds]) == []


def test_claims_part_table_summary_and_lines():
    part = claims_part(_claims(), "the rule")
    (table,) = part.tables
    assert table.name == "claims" and table.lines == conclusions(_claims())
    assert list(table.shown.columns) == ["paper's claim", "ours", "holds"]
    assert list(table.df["class"]) == ["class A", "class A", "class B"]
    summary = part.summary["claims"]
    assert [c["holds"] for c in summary] == [True, False, True]
    assert summary[1]["paper"] == 12 and summary[1]["paper_source"] == "Fig. 9" and summary[1]["class"] == "class A"
    md = table.markdown()
    assert md.index("| A fails | +0% | no |") < md.index("the rule") < md.index(CONCLUSIONS_HEADER)
    html = table.report_table([]).lines
    assert html == table.lines


def test_claims_part_gives_the_reports_claims_with_the_papers_value_and_the_check():
    part = claims_part(_claims(), "the rule")
    shown = part.claims_out.report_claims()
    assert part.claims_out.table is part.tables[0]
    assert [(r.claim, r.paper, r.check, r.holds) for r in shown.rows] == [
        (c.text, f"{c.paper} ({c.paper.source})" if c.paper else "", c.check.rule, c.holds) for c in _claims()]
    assert shown.note == "the rule" and shown.lines == conclusions(_claims())
    assert shown.card() == ("the paper's claims that hold", "2 of 3", "bad")


def test_join_keeps_one_claims_table_and_the_main_table():
    tables = Analysis(tables=[TableOut("t", "T", None)], main_table="t")
    joined = Analysis.join([tables, claims_part(_claims(), "")])
    assert joined.main_table == "t" and joined.claims_out is not None
    assert Analysis.join([tables], main_table="u").main_table == "u"          # the join's own wins
    with pytest.raises(ValueError, match="two parts give a claims table"):
        Analysis.join([claims_part(_claims(), ""), claims_part(_claims(), "")])


def test_table_markdown_without_lines_and_csv_at_full_precision():
    import pandas as pd

    t = TableOut("t", "Title", pd.DataFrame({"x": [1.23456789012]}), note="a note")
    assert t.markdown().startswith("Title\n\n| x |") and t.markdown().endswith("a note\n")
    assert "1.23456789" in t.csv()


def test_analysis_join_keeps_order_and_rejects_a_key_twice():
    a = Analysis(summary={"a": 1}, tables=["t1"], claims=["c1"])
    b = Analysis(summary={"b": 2}, tables=["t2"], figures=["f"], notes=["n"], claims=["c2"])
    j = Analysis.join([a, b], scenario_note="s")
    assert (j.summary, j.tables, j.figures, j.notes, j.claims, j.scenario_note) == (
        {"a": 1, "b": 2}, ["t1", "t2"], ["f"], ["n"], ["c1", "c2"], "s")
    with pytest.raises(ValueError, match="a"):
        Analysis.join([a, Analysis(summary={"a": 3})])


def test_paper_number_prints_like_the_paper():
    assert str(PaperNumber(18, "Table I")) == "18" and str(PaperNumber(None, "Table I")) == "-"


# ---- the experiment protocol, checked when the registry is read (ncmesh reproduce --list)

BROKEN = '''
NAME = "broken"
TITLE = "an experiment without sweeps"
DESCRIPTION = "It defines sweep(), the old protocol, instead of sweeps()."

def sweep(quick):
    return {}

def analyze(results, quick):
    return None
'''


@pytest.fixture
def broken_experiment(tmp_path, monkeypatch):
    (tmp_path / "broken_exp.py").write_text(BROKEN)
    (tmp_path / "_private.py").write_text("NAME = 'ignored: underscore modules are not experiments'\n")
    (tmp_path / "helper.py").write_text("X = 1\n")            # no NAME: not an experiment
    monkeypatch.setattr(experiments, "__path__", list(experiments.__path__) + [str(tmp_path)])
    yield
    import sys
    sys.modules.pop("ncmesh.experiments.broken_exp", None)
    sys.modules.pop("ncmesh.experiments.helper", None)


def test_the_registry_is_one_table_of_every_experiment():
    exps = available()
    assert list(exps) == sorted(exps)
    assert all(experiments.common.experiment_problems(m) == [] for m in exps.values())


def test_a_module_without_sweeps_is_rejected_at_list(broken_experiment, capsys):
    with pytest.raises(ExperimentError, match=r"broken_exp: no function sweeps\(quick\)"):
        available()
    status = cmd_reproduce(argparse.Namespace(list=True, name=None))
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("error: experiment module ncmesh.experiments.broken_exp: no function sweeps(quick)")
    assert len(err.strip().splitlines()) == 1


def test_two_experiments_with_one_name_are_rejected(tmp_path, monkeypatch):
    (tmp_path / "again.py").write_text("from ncmesh.experiments.chain_vs_ns3 import *\n"
                                       "from ncmesh.experiments.chain_vs_ns3 import NAME, TITLE, DESCRIPTION\n")
    monkeypatch.setattr(experiments, "__path__", list(experiments.__path__) + [str(tmp_path)])
    try:
        with pytest.raises(ExperimentError, match="share the NAME 'chain-vs-ns3'"):
            available()
    finally:
        import sys
        sys.modules.pop("ncmesh.experiments.again", None)


def test_a_ci_wider_than_the_mean_is_flagged_where_it_is_shown():
    from ncmesh.experiments.common import WIDE_CI, fmt_ci, near

    assert fmt_ci(12.34, 0.4) == "12.3 ± 0.4"
    assert fmt_ci(2.0, 3.5, 1, "%", sign=True) == "+2.0 ± 3.5%" + WIDE_CI
    assert fmt_ci(-2.0, 2.5, 0) == "-2 ± 2" + WIDE_CI
    assert fmt_ci(0.0, 0.0) == "0.0 ± 0.0", "no spread, nothing to flag"
    assert fmt_ci(0.001, 0.002, 2) == "0.00 ± 0.00", "a CI that rounds to 0 is not shown as wide"
    assert fmt_ci(5.0, float("nan")) == "5.0"
    # ... and not used to decide: a paper value inside the wide CI but beyond the tolerance does not hold.
    assert not near(2.0, 30.0, 20.0).holds
    assert near(2.0, 1.0, 6.0).holds
