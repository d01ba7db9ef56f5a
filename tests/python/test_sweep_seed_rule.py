"""The seed rule of a sweep (issue 30, sequential statistics): [seeds] min, max, target.
A grid point (cell) runs its first `min` seeds, then more, in order, until the 95% CI
half-width of its goodput is within `target` x mean, at most `max` seeds."""

from __future__ import annotations

import json
import os

import pytest

from ncmesh.analysis.stats import mean_ci
from ncmesh.sweep import SweepError, load_sweep, open_results, run_sweep
from ncmesh.sweep.spec import SeedRule
from ncmesh.sweep.store import drop_runs

N_MIN, N_MAX, TARGET = 3, 6, 0.05


def _spec(seeds: dict, name: str = "rule") -> dict:
    # A one-hop chain without loss (goodput within a few % from seed to seed) and with
    # 30% loss (one seed in six far below the others).
    return {"name": name, "base": {"builder": "chain", "options": {"hops": 1, "duration": 4},
                                   "set": {"simulation.measure_start_s": 1.5}},
            "grid": {"loss.0.rate": [0.0, 0.3]}, "seeds": seeds}


def _totals(res) -> dict:
    """{(loss rate, seed): the run's goodput summed over its flows}."""
    g = res.flows.groupby(["loss.0.rate", "seed"]).goodput_kbps.sum()
    return {k: float(v) for k, v in g.items()}


def _expected_seeds(values: list[float]) -> int:
    """What the rule must choose for a cell whose runs give `values`, seed by seed."""
    for n in range(N_MIN, N_MAX + 1):
        mean, half, _ = mean_ci(values[:n])
        if half <= TARGET * abs(mean):
            return n
    return N_MAX


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The fixed-count sweep of N_MAX seeds and the same sweep with the seed rule."""
    d = tmp_path_factory.mktemp("rule")
    # (One file per run and table, for test_results_keep_the_seeds_the_rule_chose to copy.)
    fixed = run_sweep(load_sweep(_spec({"count": N_MAX}, "fixed")), d / "fixed", jobs=2, progress=False, pack=False)
    rule = load_sweep(_spec({"min": N_MIN, "max": N_MAX, "target": TARGET}))
    report = run_sweep(rule, d / "rule", jobs=2, progress=False)
    return d, fixed, rule, report


def test_a_cell_stops_at_min_and_a_noisy_cell_grows_to_max(runs):
    d, fixed, rule, report = runs
    totals = _totals(open_results(d / "fixed"))
    expected = {rate: _expected_seeds([totals[(rate, s)] for s in range(1, N_MAX + 1)]) for rate in (0.0, 0.3)}
    # The scenario exercises both ends: the lossless cell is steady, the lossy one is not.
    assert expected == {0.0: N_MIN, 0.3: N_MAX}
    used = {params["loss.0.rate"]: (n, met) for params, n, met in report.seeds_used}
    assert used == {0.0: (N_MIN, True), 0.3: (N_MAX, False)}
    assert report.done == report.total == N_MIN + N_MAX and report.failed == 0
    res = open_results(d / "rule")
    assert sorted(res.runs.groupby("loss.0.rate").seed.apply(sorted).items()) == \
        [(0.0, list(range(1, N_MIN + 1))), (0.3, list(range(1, N_MAX + 1)))]
    record = json.loads((d / "rule" / "seeds.json").read_text())
    assert record["rule"] == {"min": N_MIN, "max": N_MAX, "target": TARGET, "step": 1, "metric": "goodput_kbps"}
    assert [c["seeds"] for c in record["cells"]] == [N_MIN, N_MAX]


def test_the_first_seeds_are_the_fixed_count_runs(runs):
    d, _, rule, _ = runs
    fixed_runs = load_sweep(_spec({"count": N_MAX}, "fixed")).runs()
    # Same scenarios (the run key hashes the resolved scenario with its seed) ...
    ours = {r.key for r in rule.runs()}
    assert ours == {r.key for r in fixed_runs}
    # ... and the same rows.
    a, b = open_results(d / "rule").flows, open_results(d / "fixed").flows
    keys = sorted(set(a.run_key))
    cols = ["run_key", "seed", "loss.0.rate", "flow", "goodput_kbps", "rx_bytes", "retransmissions"]
    left = a[a.run_key.isin(keys)][cols].sort_values(["run_key", "flow"]).reset_index(drop=True)
    right = b[b.run_key.isin(keys)][cols].sort_values(["run_key", "flow"]).reset_index(drop=True)
    assert left.equals(right) and len(left) == N_MIN + N_MAX


def test_an_interrupted_rule_sweep_resumes_exactly(runs, tmp_path):
    d, _, rule, report = runs
    import shutil

    out = tmp_path / "again"
    shutil.copytree(d / "rule", out)
    # As if killed in the second round: the noisy cell's later runs and the record are gone.
    res = open_results(out)
    late = set(res.runs[(res.runs["loss.0.rate"] == 0.3) & (res.runs.seed > N_MIN + 1)].run_key)
    assert len(late) == N_MAX - N_MIN - 1
    assert drop_runs(out, late) == len(late)
    (out / "seeds.json").unlink()
    again = run_sweep(rule, out, jobs=1, progress=False)
    assert (again.done, again.skipped) == (len(late), N_MIN + N_MAX - len(late))
    assert again.seeds_used == report.seeds_used
    assert json.loads((out / "seeds.json").read_text()) == json.loads((d / "rule" / "seeds.json").read_text())
    # And once more: nothing to do.
    third = run_sweep(rule, out, jobs=1, progress=False)
    assert (third.done, third.skipped, third.seeds_used) == (0, N_MIN + N_MAX, report.seeds_used)


def test_results_keep_the_seeds_the_rule_chose(runs, tmp_path):
    d, _, rule, _ = runs
    import shutil

    out = tmp_path / "extra"
    shutil.copytree(d / "rule", out)
    # A run beyond the lossless cell's seeds (e.g. left by a failed-then-rerun attempt) is not read.
    fixed = d / "fixed"
    extra = next(r for r in load_sweep(_spec({"count": N_MAX}, "fixed")).runs()
                 if r.params["loss.0.rate"] == 0.0 and r.seed == N_MAX)
    for table in ("flows", "nodes", "flow_series", "node_series", "runs"):
        shutil.copy(fixed / table / f"{extra.key}.parquet", out / table)
    res = open_results(out)
    assert extra.key not in res.keys and extra.key not in set(res.runs.run_key)
    assert len(res.runs) == N_MIN + N_MAX


def test_the_rounds_share_one_set_of_workers(runs):
    d, _, _, _ = runs
    # Four rounds (3, 4, 5, 6 seeds of the noisy cell). Workers pack what they hold when
    # they exit: one pack per worker and table for each set of workers. Here two sets: the
    # two forked workers of the first round, then, once reading the rule's metric has
    # started pyarrow's threads in this process, one executor's two for the other rounds
    # (runner._Workers). A set per round made five packs (2 + 1 + 1 + 1).
    packs = sorted(p.name for p in (d / "rule" / "runs").glob("pack-*.parquet"))
    assert 1 <= len(packs) <= 4, packs


def test_a_cell_expands_only_the_seeds_asked_for(monkeypatch):
    import ncmesh.sweep.spec as spec_module

    rule = load_sweep(_spec({"min": N_MIN, "max": N_MAX, "target": TARGET}))
    resolved = []
    real = spec_module._core.resolve
    monkeypatch.setattr(spec_module._core, "resolve", lambda s: resolved.append(1) or real(s))
    cells = rule.cells()
    assert [params for params, _ in cells] == [{"loss.0.rate": 0.0}, {"loss.0.rate": 0.3}]
    assert resolved == []
    first = cells[0][1][0:N_MIN]
    assert len(resolved) == N_MIN and [r.seed for r in first] == list(range(1, N_MIN + 1))
    assert cells[0][1][1:2] == first[1:2] and len(resolved) == N_MIN     # not expanded twice
    # Seed by seed, the same runs as the whole grid expanded at once.
    assert [r.key for _, c in cells for r in c[0:N_MAX]] == [r.key for r in rule.runs()]


def test_step_and_checkpoints():
    assert SeedRule(3, 10, 0.1, step=3).checkpoints() == [3, 6, 9, 10]
    assert SeedRule(2, 2, 0.1).checkpoints() == [2]
    assert SeedRule(2, 5, 0.1).met([100.0, 100.0]) and not SeedRule(2, 5, 0.1).met([100.0, None])
    assert not SeedRule(2, 5, 0.01).met([100.0, 120.0])


def test_definition_records_the_rule():
    fixed = load_sweep(_spec({"count": N_MAX}))
    rule = load_sweep(_spec({"min": N_MIN, "max": N_MAX, "target": TARGET}))
    assert "seed_rule" not in fixed.definition()
    assert rule.definition()["seed_rule"]["target"] == TARGET and rule.seeds == fixed.seeds
    assert len(rule) == 2 * N_MAX


@pytest.mark.parametrize("seeds, field, words", [
    ({"min": 1, "max": 5, "target": 0.1}, "seeds.min", "1 is not allowed: expected an integer >= 2"),
    ({"min": 3, "max": 2, "target": 0.1}, "seeds.max", "2 is not allowed: expected an integer >= seeds.min (3)"),
    ({"min": 3, "max": 5, "target": 0}, "seeds.target", "0 is not allowed: expected a number > 0"),
    ({"min": 3, "max": 5, "target": "5%"}, "seeds.target", "'5%' is not allowed"),
    ({"min": 3, "max": 5, "target": 0.1, "step": 0}, "seeds.step", "0 is not allowed: expected an integer >= 1"),
    ({"min": 3, "max": 5, "target": 0.1, "metric": "rtt"}, "seeds.metric",
     "'rtt' is not allowed: expected one of goodput_kbps, rx_bytes"),
    ({"min": 3, "target": 0.1}, "seeds.max", "missing: a seed rule needs seeds.min, seeds.max and seeds.target"),
    ({"count": 3, "target": 0.1}, "seeds", "not both"),
    ({"min": 3, "max": 5, "target": 0.1, "start": -1}, "seeds.start", "-1 is not allowed"),
])
def test_bad_rules_are_one_line_naming_the_field(seeds, field, words):
    with pytest.raises(SweepError) as e:
        load_sweep(_spec(seeds))
    assert e.value.field == field and words in str(e.value) and "\n" not in str(e.value)


def test_cli_bad_rule_is_one_line(tmp_path, cli):
    path = tmp_path / "bad.toml"
    path.write_text('name = "bad"\n[base]\nbuilder = "chain"\n[seeds]\nmin = 3\nmax = 5\ntarget = -0.1\n')
    r = cli("sweep", str(path))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: seeds.target: -0.1 is not allowed: expected a number > 0 (the 95% CI half-width as a "
        "fraction of the mean, e.g. 0.05)"]


def test_cli_says_the_seeds_used(tmp_path, cli):
    path = tmp_path / "rule.toml"
    path.write_text('name = "rule"\n[base]\nbuilder = "chain"\noptions = { hops = 1, duration = 4 }\n'
                    'set = { "simulation.measure_start_s" = 1.5 }\n[grid]\n"loss.0.rate" = [0.0, 0.3]\n'
                    f'[seeds]\nmin = {N_MIN}\nmax = {N_MAX}\ntarget = {TARGET}\n')
    dry = cli("sweep", str(path), "--out", str(tmp_path / "out"), "--dry-run")
    assert dry.returncode == 0
    assert dry.stdout.strip() == (f"sweep rule: up to {2 * N_MAX} runs ({N_MIN}..{N_MAX} seeds by the seed rule x "
                                  f"2 grid points), 0 done in {tmp_path / 'out'}")
    r = cli("sweep", str(path), "--out", str(tmp_path / "out"), "-q", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    record = json.loads((tmp_path / "out" / "seeds.json").read_text())
    counts = sorted((c["seeds"], c["met"]) for c in record["cells"])
    words = ", ".join(f"1 point {n} seeds" + ("" if met else " (target not met)") for n, met in counts)
    assert (f"sweep rule: seed rule (95% CI half-width of goodput_kbps within 5% of the mean, "
            f"{N_MIN}..{N_MAX} seeds): {words} (per grid point: ") in r.stdout


def test_report_and_table_show_the_seeds_per_cell(runs):
    from ncmesh.analysis.table import summarize
    from ncmesh.report.results import run_facts

    d, _, _, report = runs
    res = open_results(d / "rule")
    table = summarize(res, "goodput_kbps", by=["loss.0.rate"])
    assert dict(zip(table["loss.0.rate"], table["n"])) == {p["loss.0.rate"]: n for p, n, _ in report.seeds_used}
    facts = dict(run_facts(res))
    assert facts["Seed rule"] == (f"{N_MIN}..{N_MAX} seeds per parameter combination, more until the 95% CI "
                                  f"half-width of goodput_kbps is within 5% of the mean; used {N_MIN}, {N_MAX} "
                                  "(column n); 1 of 2 combinations did not meet it")
