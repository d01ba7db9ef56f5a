"""Malformed scenarios are rejected with one line naming the field, through the Python
API (a ScenarioError, never a crash) and through the CLI (`error: ...`, exit status 2).

Each case is a 2-hop chain (nodes 0, 1, 2 at x = 0, 200, 400 m; one flow 0 -> 2) plus
overrides written as `--set` would take them. `names` must appear in the error's field
(or, for unknown keys, anywhere in the message). Cases marked RUN_ONLY are valid on
paper and rejected when the network is built (routing).
"""

import pytest

import ncmesh
from ncmesh import ScenarioError
from ncmesh.overrides import parse_value

from conftest import SHORT

CASES = [
    # id, overrides (key, TOML value text), what the error must name
    ("unknown-top-level-key", [("colour", '"blue"')], "colour"),
    ("unknown-nested-key", [("mac.queue_pakets", "20")], "queue_pakets"),
    ("unknown-flow-key", [("flows.0.sauce", "1")], "sauce"),
    ("negative-queue-size", [("mac.queue_packets", "-5")], "queue_packets"),
    ("negative-packet-size", [("flows.0.packet_bytes", "-1000")], "packet_bytes"),
    ("zero-mss", [("tcp.mss_bytes", "0")], "mss_bytes"),
    ("zero-queue", [("mac.queue_packets", "0")], "queue_packets"),
    ("flow-to-missing-node", [("flows.0.dst", "99")], "dst"),
    ("flow-from-missing-node", [("flows.0.src", "7")], "src"),
    ("flow-to-itself", [("flows.0.dst", "0")], "flows"),
    ("no-route-nodes-far-apart", [("nodes.1.x", "1000"), ("nodes.2.x", "2000")], "flows"),
    ("zero-duration", [("simulation.duration_s", "0")], "duration_s"),
    ("negative-duration", [("simulation.duration_s", "-10")], "duration_s"),
    ("nan-position", [("nodes.1.x", "nan")], "nodes[1].x"),
    ("infinite-position", [("nodes.2.y", "inf")], "nodes[2].y"),
    ("loss-rate-above-one", [("loss", "[{ rate = 1.5 }]")], "rate"),
    ("negative-loss-rate", [("loss", "[{ rate = -0.1 }]")], "rate"),
    ("loss-on-missing-node", [("loss", "[{ links = [[0, 9]], rate = 0.1 }]")], "links"),
    ("wrong-type", [("mac.data_rate_mbps", '"fast"')], "data_rate_mbps"),
    ("unknown-enum-value", [("channel.model", '"magic"')], "model"),
    ("unknown-standard", [("mac.standard", '"802.11z"')], "standard"),
    ("rate-not-in-standard", [("mac.data_rate_mbps", "3.0")], "data_rate_mbps"),
    ("negative-range", [("channel.rx_range_m", "-250")], "rx_range_m"),
    ("measure-after-end", [("simulation.measure_start_s", "100")], "measure"),
    ("negative-start", [("flows.0.start_s", "-1")], "start_s"),
    ("cbr-without-rate", [("flows.0.transport", '"udp"'), ("flows.0.app", '"cbr"')], "rate_kbps"),
    ("route-through-missing-node", [("flows.0.route", "[0, 5, 2]")], "route"),
    ("route-wrong-endpoints", [("flows.0.route", "[1, 2]")], "route"),
    ("linktable-without-links", [("channel.model", '"linktable"')], "links"),
    ("nodes-not-a-list", [("nodes", "3")], "nodes"),
]


RUN_ONLY = {"no-route-nodes-far-apart"}
VALIDATE_CASES = [c for c in CASES if c[0] not in RUN_ONLY]


def _scenario(overrides):
    sc = ncmesh.Scenario.build("chain", hops=2).update(SHORT)
    for key, text in overrides:
        sc.set(key, parse_value(text))
    return sc


def _names(err_field: str, err_text: str, names: str) -> bool:
    return names in err_field or names in err_text


def test_there_are_at_least_15_cases():
    assert len(CASES) >= 15


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=_ids(VALIDATE_CASES))
def test_validate_rejects_with_scenario_error(case):
    _, overrides, names = case
    with pytest.raises(ScenarioError) as e:
        _scenario(overrides).validate()
    err = e.value
    assert isinstance(err, ValueError)
    assert "\n" not in str(err)
    assert _names(err.field, str(err), names), f"error does not name {names!r}: {err}"


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_run_rejects_with_scenario_error(case):
    _, overrides, names = case
    with pytest.raises(ScenarioError) as e:
        ncmesh.run(_scenario(overrides))
    assert _names(e.value.field, str(e.value), names), f"error does not name {names!r}: {e.value}"


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_cli_rejects_with_one_line(cli, chain_file, case):
    case_id, overrides, names = case
    sets = [a for key, text in overrides for a in ("--set", f"{key}={text}")]
    commands = ("run",) if case_id in RUN_ONLY else ("validate", "run")
    for command in commands:
        p = cli(command, str(chain_file), *sets)
        assert p.returncode == 2, p.stderr
        assert p.stdout == ""
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1, p.stderr
        assert lines[0].startswith("error: ")
        assert names in lines[0]
        assert "Traceback" not in p.stderr


def test_cli_bad_toml_file(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[simulation]\nduration_s = = 3\n")
    p = cli("run", str(bad))
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and len(p.stderr.strip().splitlines()) == 1


def test_cli_missing_file(cli, tmp_path):
    p = cli("validate", str(tmp_path / "missing.toml"))
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and "missing.toml" in p.stderr


def test_cli_malformed_set(cli, chain_file):
    p = cli("run", str(chain_file), "--set", "mac.queue_packets")
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and "Traceback" not in p.stderr


def test_cli_unknown_kind(cli):
    p = cli("scenario", "no-such-kind")
    assert p.returncode == 2
    assert p.stderr.startswith("error: ") and len(p.stderr.strip().splitlines()) == 1


def test_dict_with_non_string_key_is_a_scenario_error():
    with pytest.raises(ScenarioError):
        ncmesh.Scenario({1: 2}).validate()
