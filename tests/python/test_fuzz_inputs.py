"""Property tests ("fuzzing") of the Python readers of user input: the sweep-file reader
and the command line (`sweep --dry-run`, `validate` with `--set`), fed arbitrary TOML
documents and mutations of valid ones. Nothing may raise anything but the documented
one-line errors (SweepError / ScenarioError), and the command never prints a traceback:
status 0 or 2. Deterministic (derandomized) and bounded by the number of examples."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ncmesh import ScenarioError, cli  # noqa: E402
from ncmesh.sweep import SweepError, load_sweep  # noqa: E402
from ncmesh.sweep.spec import _dump_toml  # noqa: E402

SETTINGS = settings(derandomize=True, deadline=None, database=None, max_examples=150,
                    suppress_health_check=list(HealthCheck))

KEYS = ["name", "description", "base", "grid", "seeds", "builder", "file", "options", "set", "count",
        "start", "list", "range", "hops", "spacing", "duration", "seed", "flows", "tcp.sack",
        "simulation.seed", "loss.0.rate", "mac.queue_packets", "flows.0.dst", "simulation.duration_s",
        "nodes", "bogus", "run_key", "goodput_kbps"]
scalars = st.one_of(
    st.sampled_from([-1, 0, 1, 2, 3, 4, 2**63 - 1, 2**63, -(2**63)]),
    st.integers(-10, 10),
    st.sampled_from([0.0, 0.1, 0.5, 1.5, -2.5, 1e300, float("nan"), float("inf")]),
    st.booleans(),
    st.sampled_from(["", "chain", "grid", "random", "x", "run", "auto", "a/b", ".hidden", "tworay", "nope"]),
    st.text(max_size=8),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)), max_leaves=12)

VALID = {"name": "fz", "base": {"builder": "chain", "options": {"duration": 3},
                                "set": {"simulation.measure_start_s": 1.0}},
         "grid": {"hops": [1, 2]}, "seeds": {"count": 2}}


def mutate(doc: dict, path: list[str], value, delete: bool) -> dict:
    doc = json.loads(json.dumps(doc))
    node = doc
    for k in path[:-1]:
        child = node.get(k)
        if not isinstance(child, dict):
            child = {}
            node[k] = child
        node = child
    if delete:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return doc


def check_sweep(data: dict) -> None:
    try:
        sweep = load_sweep(data)
    except SweepError as e:
        assert "\n" not in str(e) and str(e).strip()
        return
    assert len(sweep.runs()) == len(sweep)           # expansion records errors, never raises
    for r in sweep.runs()[:50]:
        assert r.error is None or "\n" not in r.error


@SETTINGS
@given(st.dictionaries(st.sampled_from(KEYS), values, max_size=6))
def test_sweep_reader_takes_any_document(data):
    check_sweep(data)


@SETTINGS
@given(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3), values, st.booleans())
def test_sweep_reader_takes_mutations_of_a_valid_sweep(path, value, delete):
    check_sweep(mutate(VALID, path, value, delete))


def main(*args: str) -> tuple[int, str]:
    """`ncmesh ARGS` in this process: (status, stderr). Any exception fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli.main(list(args))
        except SystemExit as e:                 # argparse
            code = e.code
    return code, err.getvalue()


@SETTINGS
@given(st.one_of(st.text(max_size=200),
                 st.lists(st.sampled_from(KEYS), min_size=1, max_size=3).flatmap(
                     lambda p: st.tuples(st.just(p), values, st.booleans()))))
def test_sweep_command_never_prints_a_traceback(tmp_path_factory, case):
    d = tmp_path_factory.mktemp("fz")
    path = d / "sweep.toml"
    if isinstance(case, str):
        path.write_bytes(case.encode("utf-8", "surrogatepass"))     # not always valid UTF-8
    else:
        try:
            path.write_text(_dump_toml(mutate(VALID, *case)))
        except (TypeError, ValueError):
            return
    code, err = main("sweep", str(path), "--out", str(d / "out"), "--dry-run")
    assert code in (0, 2), err
    assert "Traceback" not in err and (code == 0 or re.match(r"error: .+", err)), err


SCENARIO = None


@SETTINGS
@given(st.sampled_from(["simulation.duration_s", "simulation.seed", "mac.queue_packets", "flows[0].dst",
                        "flows.0.route", "nodes[1].x", "loss.0.rate", "channel.model", "tcp.variant",
                        "scheme.name", "routing.metric", "flows[5].src", "mac", "x.y", "flows[-1].dst",
                        "nodes.len.x", "a..b", "[0]"]),
       st.one_of(st.sampled_from(["-1", "0", "1", "2.5", "nan", "inf", "1e400", "true", '"x"', "[0, 1, 2]",
                                  "{a = 1}", str(2**64), "cope", "[", "'"]), st.text(max_size=10)))
def test_validate_with_any_override_is_ok_or_one_line(tmp_path_factory, key, value):
    global SCENARIO
    if SCENARIO is None:
        SCENARIO = tmp_path_factory.mktemp("sc") / "chain.toml"
        code, err = main("scenario", "chain", "--hops", "2", "-o", str(SCENARIO))
        assert code == 0, err
    code, err = main("validate", str(SCENARIO), "--set", f"{key}={value}")
    assert code in (0, 2), err
    assert "Traceback" not in err
    if code == 2:
        lines = err.strip().splitlines()
        assert lines[-1].startswith(("error: ", "ncmesh: error: ")) and len(lines) <= 2, err


@SETTINGS
@given(st.dictionaries(st.sampled_from(["simulation", "nodes", "flows", "mac", "channel", "name", "loss"]),
                       values, max_size=4))
def test_scenario_api_takes_any_dict(data):
    import ncmesh

    try:
        ncmesh.Scenario(data).validate()
    except ScenarioError as e:
        assert "\n" not in str(e)
