"""`ncmesh reproduce`: the experiment registry and the chain-vs-ns3 reproduction."""

from __future__ import annotations

import csv
import json
import re
import statistics
from pathlib import Path

import pytest

from ncmesh.experiments import available, chain_vs_ns3, get, reproduce
from ncmesh.sweep import load_sweep
from ncmesh.sweep.store import done_keys
from test_analysis_data import artifact_dir, chromium, pixel_stats, render, tiny_sweep

REPO = Path(__file__).resolve().parents[2]
SUMMARY_KEYS = {"experiment", "title", "quick", "ncmesh_version", "date", "command", "runs", "seeds",
                "duration_s", "metric", "reference", "tolerance_pct", "goodput_kbps", "max_abs_diff_pct",
                "all_within_10pct", "highlights", "outputs"}
HOP_KEYS = {"mean", "ci95", "n", "ns3", "ns3_min", "ns3_max", "diff_pct"}


def test_registry():
    exps = available()
    assert {"chain-vs-ns3", "cope-tcp", "ncaqm"} <= set(exps)
    for name, module in exps.items():
        assert module.NAME == name and module.TITLE and module.DESCRIPTION
        for quick in (True, False):
            parts = module.sweeps(quick)
            assert parts and all(isinstance(part, str) for part in parts)
            for part, spec in parts.items():
                sweep = load_sweep(spec)              # a valid sweep definition
                # Every grid point builds and resolves (its first seed: expanding every
                # seed of the full sweeps took three minutes).
                runs = list(sweep.first_runs())
                assert len(runs) == sweep.points() > 0
                failed = [(r.params, r.error) for r in runs if r.error is not None]
                assert not failed, (name, part, quick, failed[:3])
    assert list(chain_vs_ns3.sweeps(True)) == [""]    # one sweep: the part ""
    with pytest.raises(KeyError, match="chain-vs-ns3"):
        get("no-such-experiment")


def test_chain_sweep_sizes():
    quick, full = chain_vs_ns3.sweeps(True)[""], chain_vs_ns3.sweeps(False)[""]
    assert quick["grid"]["hops"] == full["grid"]["hops"] == list(range(1, 9))
    assert (quick["seeds"]["count"], quick["base"]["options"]["duration"]) == (2, 30)
    # Full: the seed rule from 10 seeds (issue 30), the first 10 being the fixed count's.
    assert (full["seeds"]["min"], full["seeds"]["start"], full["base"]["options"]["duration"]) == (10, 1, 60)


def test_ns3_numbers_are_the_reference_csv_summary():
    """chain-vs-ns3 sets ns-3's chain mean, min and max (to 0.1 kbit/s) beside ncmesh, from
    validation/ns3/reference.csv through ncmesh.validation, the loader compare-ns3 uses."""
    from ncmesh.validation import chain_reference

    path = REPO / "validation" / "ns3" / "reference.csv"
    if not path.is_file():
        pytest.skip("validation/ns3/reference.csv not in this checkout")
    by_hops: dict[int, list[float]] = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["tag"] == "chain":
                by_hops.setdefault(int(row["hops"]), []).append(float(row["goodput_kbps"]))
    ref = chain_reference(path)
    assert sorted(ref) == sorted(by_hops) == list(range(1, 9))
    for hops, (mean, lo, hi) in ref.items():
        values = by_hops[hops]
        assert statistics.fmean(values) == pytest.approx(mean, abs=0.051)
        assert min(values) == pytest.approx(lo, abs=0.051) and max(values) == pytest.approx(hi, abs=0.051)
    assert ref[8] == (273.5, 270.1, 275.8)          # the README's "Goodput summary" row


def test_reproduce_small_variant(tmp_path):
    out = tmp_path / "exp"
    summary = reproduce("chain-vs-ns3", quick=True, out_dir=out, sweeps={"": tiny_sweep("chain-vs-ns3")},
                        jobs=1, progress=False, log=lambda m: None)
    written = json.loads((out / "summary.json").read_text())
    assert written == json.loads(json.dumps(summary))
    assert SUMMARY_KEYS <= set(written)
    assert written["experiment"] == "chain-vs-ns3" and written["quick"] is True
    assert written["runs"] == {"done": 4, "reused": 0, "shared": 0, "failed": 0, "wall_s": written["runs"]["wall_s"]}
    assert set(written["goodput_kbps"]) == {"1", "2"}
    for hop in written["goodput_kbps"].values():
        assert set(hop) == HOP_KEYS and hop["n"] == 2
        assert hop["diff_pct"] == pytest.approx((hop["mean"] - hop["ns3"]) / hop["ns3"] * 100)
    assert written["goodput_kbps"]["1"]["ns3"] == 1399.7
    assert written["max_abs_diff_pct"] == pytest.approx(
        max(abs(h["diff_pct"]) for h in written["goodput_kbps"].values()))
    assert written["all_within_10pct"] is False          # only 2 of the 8 hop counts were run
    for rel in written["outputs"]["tables"] + written["outputs"]["figures"] + ["report.html", "sweep.toml"]:
        assert (out / rel).is_file(), rel
    rows = list(csv.DictReader(open(out / "tables" / "goodput_vs_hops.csv")))
    assert [r["hops"] for r in rows] == ["1", "2"]
    assert {"ncmesh_kbps", "ncmesh_ci95_kbps", "n", "ns3_kbps", "diff_pct"} <= set(rows[0])
    assert (out / "figures" / "goodput_vs_hops.png").read_bytes()[:4] == b"\x89PNG"
    page = (out / "report.html").read_text()
    assert "ns-3 3.44, kbit/s (mean)" in page and page.count('<img class="figure"') == 1

    # again: every run is reused; another sweep replaces the old results
    again = reproduce("chain-vs-ns3", quick=True, out_dir=out, sweeps={"": tiny_sweep("chain-vs-ns3")},
                      jobs=1, progress=False, log=lambda m: None)
    assert (again["runs"]["done"], again["runs"]["reused"]) == (0, 4)
    # another sweep: the old results are moved aside (kept, with their sweep), said through
    # `notice` even when `log` is silent, never pooled with the new ones
    notices = []
    other = reproduce("chain-vs-ns3", quick=True, out_dir=out, sweeps={"": tiny_sweep("chain-vs-ns3", hops=(1,), seeds=1)},
                      jobs=1, progress=False, log=lambda m: None, notice=notices.append)
    assert (other["runs"]["done"], other["runs"]["reused"]) == (1, 0)
    assert set(other["goodput_kbps"]) == {"1"}
    [kept] = out.glob("previous-*/results")
    assert len(notices) == 1 and notices[0].startswith(f"{out / 'results'}: results of a different sweep (")
    assert f"moved them to {kept}" in notices[0] and "--force" in notices[0]
    assert len(done_keys(kept)) == 4 and (kept / "store.json").is_file()
    # --force: deleted instead, and said so
    forced = reproduce("chain-vs-ns3", quick=True, out_dir=out, sweeps={"": tiny_sweep("chain-vs-ns3")},
                       jobs=1, progress=False, log=lambda m: None, notice=notices.append, force=True)
    assert (forced["runs"]["done"], forced["runs"]["reused"]) == (4, 0)
    assert len(notices) == 2 and notices[1].endswith("; deleted them (--force)")
    assert list(out.glob("previous-*/results")) == [kept]


def test_reproduce_quiet_still_says_it_moves_another_sweeps_results(tmp_path, cli):
    # `--quiet` hides progress, never the move of another sweep's results.
    out = tmp_path / "exp"
    reproduce("chain-vs-ns3", quick=True, out_dir=out, sweeps={"": tiny_sweep("chain-vs-ns3", hops=(1,), seeds=1)},
              jobs=1, progress=False, log=lambda m: None)
    p = cli("reproduce", "chain-vs-ns3", "--quick", "--seeds", "1", "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stderr
    [line] = p.stderr.splitlines()
    [kept] = out.glob("previous-*/results")
    assert line.startswith(f"{out / 'results'}: results of a different sweep (") and f"moved them to {kept}" in line


def test_reproduce_cli_list_and_errors(cli):
    p = cli("reproduce", "--list")
    assert p.returncode == 0 and re.search(r"^chain-vs-ns3\s+TCP goodput", p.stdout, re.M)
    p = cli("reproduce", "nope")
    assert p.returncode == 2 and "no experiment 'nope'" in p.stderr
    p = cli("reproduce")
    assert p.returncode == 2


@pytest.fixture(scope="module")
def quick_run(quick_reproduction):
    """`ncmesh reproduce chain-vs-ns3 --quick` (16 runs of 30 s: a few seconds)."""
    return quick_reproduction("chain-vs-ns3")


def test_reproduce_quick_cli(quick_run):
    out, p = quick_run
    summary = json.loads((out / "summary.json").read_text())
    assert SUMMARY_KEYS <= set(summary)
    assert set(summary["goodput_kbps"]) == {str(h) for h in range(1, 9)}
    assert (summary["seeds"], summary["duration_s"], summary["runs"]["done"]) == (2, 30.0, 16)
    assert summary["command"] == f"ncmesh reproduce chain-vs-ns3 --quick --out {out}"
    # ncmesh agrees with ns-3 on the chain (the core issue's check)
    assert summary["all_within_10pct"] is True and summary["max_abs_diff_pct"] < 10
    # the table is printed, with ns-3 beside ncmesh, and the files are named
    assert "| hops | ncmesh, kbit/s (mean ± 95% CI) | seeds | ns-3 3.44, kbit/s (mean) |" in p.stdout
    assert re.search(r"^\| 8 \| \d+\.\d ± \d+\.\d \| 2 \| 273\.5 \| 270\.1 – 275\.8 \| [+-]\d+\.\d% \|$", p.stdout, re.M)
    for name in ("summary.json", "figures/goodput_vs_hops.png", "figures/goodput_vs_hops.svg", "report.html"):
        assert f"wrote {out / name}" in p.stdout
    assert "all within 10%: yes" in p.stdout


@pytest.mark.skipif(chromium() is None,
                    reason="headless Chromium not installed (Debian package `chromium`; scripts/setup.sh installs it)")
def test_reproduce_report_screenshot(quick_run, tmp_path):
    out, _ = quick_run
    shot = artifact_dir(tmp_path) / "chain-vs-ns3-report.png"
    r = render(out / "report.html", tmp_path, screenshot=shot, size=(1200, 3000))
    assert r["rendered"] == "1"
    assert r["errors"] == [] and r["console"] == []
    assert r["figures"] == 1 and r["loaded"] == 1
    size = re.search(r'data-natural-size="(\d+)x(\d+)"', r["dom"])
    assert size and int(size.group(1)) > 500 and int(size.group(2)) > 400
    stddev, colours = pixel_stats(shot)
    assert stddev > 10 and colours > 50, (stddev, colours)
    print(f"screenshot: {shot}")


def test_full_reproductions_use_the_seed_rule_and_quick_ones_fixed_seeds():
    # Issue 30: in full mode every part's seeds follow the seed rule, with a target stricter
    # than the claims' tolerances and at least 5 seeds; quick mode keeps a fixed count.
    from ncmesh.experiments import available
    from ncmesh.experiments.chain_vs_ns3 import TOLERANCE_PCT
    from ncmesh.experiments.common import CLAIM_TOLERANCE_PP
    from ncmesh.sweep import load_sweep

    for name, module in available().items():
        full = {part: load_sweep(spec) for part, spec in module.sweeps(False).items()}
        quick = {part: load_sweep(spec) for part, spec in module.sweeps(True).items()}
        assert set(full) == set(quick), name
        for part, sweep in full.items():
            rule = sweep.seed_rule
            assert rule is not None, (name, part)
            assert rule.n_min >= 5 and rule.n_max > rule.n_min and rule.metric == "goodput_kbps"
            assert 100 * rule.target < min(CLAIM_TOLERANCE_PP, TOLERANCE_PCT)
            assert quick[part].seed_rule is None
            # The first seeds are the fixed-count run's: the rule starts where the count starts.
            assert sweep.seeds[: len(quick[part].seeds)] == quick[part].seeds
