"""`ncmesh reproduce wait-time --quick` (Takimoto et al., wait-time insertion): the parts and
their scenarios, the airtime bound, summary keys, the claims beside ours and the figures."""

from __future__ import annotations

import json

import pytest

from ncmesh.experiments import available, wait_time
from ncmesh.sweep import load_sweep
from test_experiments_common import assert_conclusions_under_claims
from test_report_layout import assert_reproduction_layout

FIGURES = ("throughput", "acks", "rtt", "reordering")


def test_registered_with_parts_and_the_papers_set_up():
    assert available()["wait-time"] is wait_time
    for quick in (True, False):
        parts = wait_time.sweeps(quick)
        assert set(parts) == {"none", "piggycode", "wait", "configured", "placement"}
    assert wait_time.FULL["seeds"] >= 10 and wait_time.FULL["duration"] == 400.0
    runs = load_sweep(wait_time.sweeps(True)["wait"]).runs()
    assert len(runs) == 3 * 10 * 5 * wait_time.QUICK["seeds"]
    assert 250 in wait_time.RATES_KBPS, "§IV-B's 3-hop onset"
    scn = runs[0].scenario
    assert scn["scheme"]["name"] == "waittime" and scn["scheme"]["piggycode"]["placement"] == "ordered"
    # ns-2's defaults (the preset) with Table I's values on top.
    assert scn["preset"] == "ns2" and scn["channel"]["model"] == "tworay"
    assert scn["channel"]["reception"] == "capture" and scn["tcp"]["initial_rto_s"] == 3.0
    assert scn["tcp"]["delayed_ack"] is False and scn["tcp"]["variant"] == "newreno"
    assert scn["tcp"]["rcv_buffer_bytes"] == 20 * 1024 and scn["tcp"]["initial_cwnd_segments"] == 2
    assert scn["mac"]["data_rate_mbps"] == 2.0 and scn["mac"]["basic_rate_mbps"] == 1.0
    assert scn["mac"]["rts_threshold_bytes"] == 65535 and scn["flows"][0]["packet_bytes"] == 1024
    placements = {r.scenario["scheme"]["piggycode"]["placement"]
                  for r in load_sweep(wait_time.sweeps(True)["placement"]).runs()}
    assert placements == {"stack", "lower-layer", "in-place"}
    waits = {r.scenario["scheme"]["piggycode"]["wait_s"] for r in runs}
    assert waits == {w / 1000 for w in wait_time.WAITS_MS}


def test_airtime_bound_by_hand():
    # One 1024-byte segment, no backoff: DATA frame 50 + 192 + 4400 + 10 + 304 = 4956 us;
    # TCP ACK frame 50 + 192 + 304 + 10 + 304 = 860 us; coded frame 80 us longer than a DATA.
    plain = 1024 * 8 / (2 * 4956 + 2 * 860) * 1000
    coded = 1024 * 8 / (4956 + 5036 + 860) * 1000
    assert wait_time.airtime_bound_kbps(False, 0.0) == pytest.approx(plain)
    assert wait_time.airtime_bound_kbps(True, 0.0) == pytest.approx(coded)
    assert wait_time.airtime_bound_kbps(True, 15.5) < coded


@pytest.fixture(scope="module")
def quick_run(quick_reproduction):
    return quick_reproduction("wait-time")


def test_quick_summary_claims_and_figures(quick_run):
    out, p = quick_run
    s = json.loads((out / "summary.json").read_text())
    assert s["experiment"] == "wait-time" and s["quick"] is True and s["runs"]["failed"] == 0
    assert s["seeds"] == wait_time.QUICK["seeds"]
    assert set(s["throughput"]) == set(wait_time.ALL_SERIES)
    assert set(s["throughput"]["piggycode"]) == {"2", "3", "4"}
    # Every series carries the offered load at the lowest rate.
    assert all(abs(s["throughput"][k]["2"]["200"] - 200) < 10 for k in wait_time.ALL_SERIES)
    assert len(s["claims"]) == 11 and all(isinstance(c["holds"], bool) for c in s["claims"])
    assert_conclusions_under_claims(s["claims"], p.stdout)
    assert "Airtime bound of the 2-hop chain" in p.stdout
    # Every claim that does not hold has a row in the readings table, and the last row counts
    # the claims each reading holds.
    readings = (out / "tables" / "readings.csv").read_text().splitlines()
    failing = [c for c in s["claims"] if not c["holds"]]
    assert len(readings) == 1 + len(failing) + 1
    assert set(s["readings_claims_held"]) == set(wait_time.PLACEMENTS)
    for name in FIGURES:
        assert (out / "figures" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def test_report_layout(quick_run):
    assert_reproduction_layout(quick_run[0], "throughput")
