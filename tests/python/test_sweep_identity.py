"""A results directory belongs to one sweep definition and one build of the simulator:
an edited or another sweep is refused, runs of another build are recomputed (never
reused silently), a resumed sweep reuses its own runs, and reproductions (several
sweeps under one --out) resume."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ncmesh import _core
from ncmesh.sweep import StoreMismatch, load_sweep, open_results, run_sweep
from ncmesh.sweep.identity import MANIFEST, definition_id
from ncmesh.sweep.store import done_keys

from conftest import run_cli

SWEEP = """\
name = "ident"
# a comment
[base]
builder = "chain"
options = { duration = 3 }
set = { "simulation.measure_start_s" = 1.5 }
[grid]
hops = [1, 2]
[seeds]
count = 2
"""


def write(tmp_path: Path, text: str, name: str = "sweep.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def done(tmp_path):
    """The 4-run sweep, run once into tmp/out."""
    path = write(tmp_path, SWEEP)
    report = run_sweep(path, tmp_path / "out", jobs=1, progress=False)
    assert (report.done, report.skipped, report.recomputed) == (4, 0, 0)
    return path, tmp_path / "out"


def manifest(out: Path) -> dict:
    return json.loads((out / MANIFEST).read_text())


def test_store_records_definition_and_build(done):
    path, out = done
    sweep = load_sweep(path)
    m = manifest(out)
    assert m["core_build"] == _core.build_id() and re.fullmatch(r"[0-9a-f]{16}", m["core_build"])
    assert m["sweep_id"] == definition_id(sweep.definition()) and m["sweep"] == "ident"
    runs = open_results(out).runs
    assert set(runs.core_build) == {_core.build_id()} and set(runs.sweep_id) == {m["sweep_id"]}


def test_same_sweep_resumes_and_layout_does_not_count(done, tmp_path):
    path, out = done
    report = run_sweep(path, out, jobs=1, progress=False)
    assert (report.done, report.skipped, report.recomputed) == (0, 4, 0)
    # comments, the description and key order are not the definition
    edited = write(tmp_path, SWEEP.replace("# a comment\n", 'description = "x"\n'), "edited.toml")
    report = run_sweep(edited, out, jobs=1, progress=False)
    assert (report.done, report.skipped) == (0, 4)


@pytest.mark.parametrize("change, named", [
    (("count = 2", "count = 3"), "seeds: [1, 2] there, [1, 2, 3] here"),
    (("hops = [1, 2]", "hops = [1, 2, 3]"), "grid.hops: [1, 2] there, [1, 2, 3] here"),
    (("duration = 3", "duration = 4"), "base.options.duration: 3 there, 4 here"),
    (('name = "ident"', 'name = "other"'), 'name: "ident" there, "other" here'),
    (("= 1.5 }", "= 1.5, \"tcp.sack\" = true }"), "set.tcp.sack: true here, not set there"),
])
def test_edited_or_other_sweep_is_refused(done, tmp_path, change, named):
    path, out = done
    before = sorted(p.name for p in (out / "runs").iterdir())
    edited = write(tmp_path, SWEEP.replace(*change), "edited.toml")
    with pytest.raises(StoreMismatch) as e:
        run_sweep(edited, out, jobs=1, progress=False)
    assert str(e.value).startswith(f"{out}: holds 4 runs of another sweep definition")
    assert named in str(e.value) and "give another --out" in str(e.value)
    assert sorted(p.name for p in (out / "runs").iterdir()) == before      # nothing touched
    assert (out / "sweep.toml").read_text() == SWEEP
    # the command: one line, status 2, for the sweep and for --dry-run
    for extra in ((), ("--dry-run",)):
        p = run_cli("sweep", str(edited), "--out", str(out), "-q", *extra)
        assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
        assert p.stderr.startswith("error: ") and named in p.stderr and "Traceback" not in p.stderr


def test_a_base_file_that_changed_is_another_definition(tmp_path):
    import ncmesh

    ncmesh.Scenario.build("chain", hops=1, duration=3).set("simulation.measure_start_s", 1.5) \
        .save(tmp_path / "base.toml")
    path = write(tmp_path, 'name = "f"\n[base]\nfile = "base.toml"\n')
    run_sweep(path, tmp_path / "out", jobs=1, progress=False)
    ncmesh.Scenario.load(tmp_path / "base.toml").set("tcp.sack", True).save(tmp_path / "base.toml")
    with pytest.raises(StoreMismatch, match="base.file: another scenario"):
        run_sweep(path, tmp_path / "out", jobs=1, progress=False)


def test_runs_of_another_build_are_recomputed_not_reused(done, capfd):
    path, out = done
    m = manifest(out)
    m["core_build"] = "0123456789abcdef"
    (out / MANIFEST).write_text(json.dumps(m))
    old = open_results(out).runs.set_index("run_key").wall_time_s
    p = run_cli("sweep", str(path), "--out", str(out), "--dry-run")
    assert p.returncode == 0 and "0 reusable" in p.stdout and "4 runs there will be computed again" in p.stdout
    report = run_sweep(path, out, jobs=1, progress=False)
    assert (report.done, report.skipped, report.recomputed) == (4, 0, 4)
    err = capfd.readouterr().err
    assert "4 runs not reused: they were made by another build of the simulator core " \
           f"(0123456789abcdef; this one is {_core.build_id()}); computing them again" in err
    assert manifest(out)["core_build"] == _core.build_id()
    new = open_results(out).runs.set_index("run_key")
    assert set(new.index) == set(old.index) and set(new.core_build) == {_core.build_id()}
    assert run_sweep(path, out, jobs=1, progress=False).skipped == 4


def test_directory_from_an_ncmesh_that_recorded_nothing(done, tmp_path):
    """No store.json (written before this version): the same sweep.toml text is
    recomputed (the build is unknown); anything else is refused."""
    path, out = done
    (out / MANIFEST).unlink()
    other = write(tmp_path, SWEEP.replace("count = 2", "count = 1"), "other.toml")
    with pytest.raises(StoreMismatch, match="no store.json .* its sweep.toml is not this sweep"):
        run_sweep(other, out, jobs=1, progress=False)
    report = run_sweep(path, out, jobs=1, progress=False)
    assert (report.done, report.recomputed) == (4, 4)
    assert manifest(out)["core_build"] == _core.build_id()


def test_empty_or_new_directory_is_claimed(tmp_path):
    (tmp_path / "out").mkdir()
    path = write(tmp_path, SWEEP.replace("count = 2", "count = 1").replace("[1, 2]", "[1]"))
    report = run_sweep(path, tmp_path / "out", jobs=1, progress=False)
    assert report.done == 1 and manifest(tmp_path / "out")["sweep"] == "ident"


def test_reproduction_of_several_sweeps_resumes(tmp_path):
    """`ncmesh reproduce` writes one sweep per part under one --out: a second run reuses
    every run; a part whose runs came from another build is recomputed alone."""
    out = tmp_path / "cope"
    p = run_cli("reproduce", "cope-tcp", "--quick", "--seeds", "1", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    parts = sorted(d for d in (out / "results").iterdir() if d.is_dir())
    assert len(parts) >= 2 and all((d / MANIFEST).is_file() for d in parts)
    first = json.loads((out / "summary.json").read_text())
    p = run_cli("reproduce", "cope-tcp", "--quick", "--seeds", "1", "--out", str(out), "--quiet")
    again = json.loads((out / "summary.json").read_text())
    assert p.returncode == 0 and again["runs"]["done"] == 0 and again["runs"]["reused"] == first["runs"]["done"]
    m = manifest(parts[0])
    m["core_build"] = "stale"
    (parts[0] / MANIFEST).write_text(json.dumps(m))
    n = len(done_keys(parts[0]))
    p = run_cli("reproduce", "cope-tcp", "--quick", "--seeds", "1", "--out", str(out), "--quiet")
    third = json.loads((out / "summary.json").read_text())
    assert p.returncode == 0 and f"{n} runs not reused" in p.stderr
    assert third["runs"]["done"] == n and third["runs"]["reused"] == first["runs"]["done"] - n
    drop = ("date", "command", "runs")
    assert {k: v for k, v in third.items() if k not in drop} == {k: v for k, v in first.items() if k not in drop}
