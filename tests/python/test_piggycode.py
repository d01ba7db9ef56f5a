"""DATA/ACK coding through the command and the API: `ncmesh run` of a chain with
PiggyCode and with a wait time, the family's counters in the results and the summary,
and one-line errors for bad `[scheme.piggycode]` values."""

import json

import pytest

import ncmesh
from ncmesh import Scenario


def _chain(scheme: str, **piggy) -> Scenario:
    s = Scenario.build("chain", hops=2, spacing=200.0)
    s.update({"mac.data_rate_mbps": 2.0, "mac.basic_rate_mbps": 1.0, "tcp.delayed_ack": False,
              "channel.cs_range_m": 550.0, "channel.interference_range_m": 550.0, "flows.0.app": "cbr", "flows.0.packet_bytes": 1024, "flows.0.rate_kbps": 400.0,
              "simulation.duration_s": 10.0, "simulation.measure_start_s": 1.0,
              "simulation.payload_bytes": True,
              "scheme.name": scheme})
    for k, v in piggy.items():
        s.set(f"scheme.piggycode.{k}", v)
    return s


def test_run_with_a_wait_time_codes_and_counts(cli, tmp_path):
    path = tmp_path / "piggy.toml"
    _chain("waittime", wait_s=0.03).save(path)
    p = cli("run", str(path), "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    relay = d["nodes"][1]
    assert relay["piggy_data_coded"] > 0 and relay["piggy_data_waited"] > 0
    assert relay["piggy_wait_us_max"] <= 30_000
    assert d["flows"][0]["payload_errors"] == 0
    assert d["conservation"]["balanced"]
    # The text summary shows the family's non-zero counters.
    p = cli("run", str(path))
    assert p.returncode == 0 and "piggy_data_coded" in p.stdout


def test_piggycode_codes_fewer_acks_than_it_sends_uncoded_at_a_low_rate():
    # Takimoto et al. §III-C: at a low rate PiggyCode rarely finds an ACK in the queue,
    # and waiting 30 ms pairs most of them.
    plain = ncmesh.run(_chain("piggycode"), seed=1).nodes
    waited = ncmesh.run(_chain("waittime", wait_s=0.03), seed=1).nodes
    assert waited["piggy_ack_uncoded"].sum() * 2 < plain["piggy_ack_uncoded"].sum()


@pytest.mark.parametrize("key,value,allowed", [
    ("wait_s", -0.01, ">= 0"),
    ("encoding_queue", 0, "[1, 10000]"),
    ("configured_max_hops", 0, "[1, 64]"),
    ("decode_poll_s", 0.0, "> 0"),
])
def test_bad_values_are_one_line(cli, tmp_path, key, value, allowed):
    path = tmp_path / "bad.toml"
    _chain("waittime").save(path)
    p = cli("run", str(path), "--set", f"scheme.piggycode.{key}={value}")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert f"scheme.piggycode.{key}" in lines[0] and allowed in lines[0]
    assert "Traceback" not in p.stderr
