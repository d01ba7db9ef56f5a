"""`ncmesh reproduce combocoding --quick` (Chen et al., ComboCoding): the parts and their
scenarios, how a loss reading and a redundancy are chosen, the windows of Table 3, summary
keys, the claims beside ours and the figures."""

from __future__ import annotations

import csv
import json
import math

import pandas as pd
import pytest

from ncmesh.experiments import available, combocoding as cc, combocoding_aodv as aodv, combocoding_manet as manet
from ncmesh.sweep import load_sweep
from test_experiments_common import assert_conclusions_under_claims
from test_report_layout import assert_reproduction_layout

FIGURES = ("goodput_time_3hops", "goodput_time_7hops", "goodput_loss", "delay_loss", "overhead_loss", "tuning",
           "goodput_time_manet")


def test_registered_with_parts_and_the_papers_set_up():
    assert available()["combocoding"] is cc
    for quick in (True, False):
        parts = cc.sweeps(quick)
        assert set(parts) == ({f"loss-{s}" for s in cc.LOSS_SERIES} | {f"string-{s}" for s in cc.STRING_SERIES}
                              | {f"readings{w}{c}" for w in ("", "-wide") for c in ("", "-pipeline", "-adaptive")}
                              | {f"altloss-{s}" for s in cc.LOSS_SERIES}
                              | {f"alt-{s}" for s in cc.ALT_SERIES} | {"manet", "manet-aodv"}
                              | {"aodv-readings", "aodv-readings-pipeline", "aodv-readings-adaptive"})
    assert cc.FULL["seeds"] >= 10 and cc.FULL["hops"] == list(range(3, 10))
    full = cc.sweeps(False)
    # Full mode: grid points x the seed rule's first seeds (issue 30).
    loss, readings = load_sweep(full["loss-combocoding"]), load_sweep(full["readings"])
    assert (loss.points(), loss.seed_rule.n_min) == (6 * len(cc.REDUNDANCIES), cc.FULL["seeds"])
    assert (readings.points(), readings.seed_rule.n_min) == (4 * 2 * 3 * 2, cc.FULL["readings_seeds"])
    # The coded columns under each reading, with their variants; the -wide parts interfere over three hops.
    coded = load_sweep(full["readings-wide-adaptive"])
    assert coded.points() == 4 * 3 * 2 * 2
    runs = coded.runs()
    assert {r.scenario["scheme"]["pipeline"]["estimate"] for r in runs} == {"closed", "per-report"}
    assert all(r.scenario["scheme"]["pipeline"]["adaptive"] for r in runs)
    assert {r.scenario["channel"]["interference_range_m"] for r in runs} == {cc.INTERFERENCE["three hops"]}
    pipe_acks = load_sweep(full["readings-pipeline"]).runs()
    assert {r.scenario["scheme"]["pipeline"]["code_acks"] for r in pipe_acks} == {False, True}
    assert {r.scenario["channel"]["cs_range_m"] for r in pipe_acks} == {cc.CS_RANGE_M}
    assert load_sweep(full["loss-pipeline-acks"]).runs()[0].scenario["scheme"]["pipeline"]["code_acks"] is True
    assert max(cc.REDUNDANCIES) >= 8.0

    runs = load_sweep(full["string-adaptive"]).runs()
    scn = runs[0].scenario
    assert scn["scheme"]["name"] == "combocoding" and scn["scheme"]["pipeline"]["adaptive"] is True
    assert scn["mac"]["standard"] == "802.11g" and scn["mac"]["data_rate_mbps"] == 54.0
    assert scn["mac"]["rts_threshold_bytes"] == 65535
    assert scn["channel"]["rx_range_m"] == 260.0 and scn["channel"]["cs_range_m"] == 520.0
    assert scn["tcp"]["variant"] == "newreno" and scn["tcp"]["mss_bytes"] == 1460
    assert scn["tcp"]["delayed_ack"] is cc.DELAYED_ACK
    assert scn["flows"][0]["start_s"] == 20.0 and scn["simulation"]["duration_s"] == 110.0
    (loss,) = scn["loss"]
    assert loss["frames"] == cc.READING
    assert [(p["from_s"], p["to_s"], p["rate"]) for p in loss["schedule"]] == [(50.0, 80.0, 0.4), (80.0, 110.0, 0.2)]
    alt = load_sweep(full["alt-adaptive"]).runs()[0].scenario
    assert alt["loss"][0]["frames"] == cc.ALT_READING and alt["scheme"]["pipeline"]["adaptive"] is True
    pipe = load_sweep(full["string-pipeline"]).runs()[0].scenario["scheme"]
    assert pipe["name"] == "pipeline" and pipe["pipeline"]["redundancy"] == cc.PIPELINE_R_STRING
    assert pipe["pipeline"]["code_acks"] is True      # the column's default reading

    # The readings part sets the reading and delayed ACKs in its grid, not from the constants.
    readings = load_sweep(full["readings"]).runs()
    assert {(r.scenario["loss"][0]["frames"], r.scenario["tcp"]["delayed_ack"]) for r in readings} == {
        (f, a) for f in cc.READINGS for a in (False, True)}
    # One redundancy for source and relays: the forwarding redundancy is left unset.
    tuned = load_sweep(full["loss-pipeline"]).runs()
    assert {r.scenario["scheme"]["pipeline"]["redundancy"] for r in tuned} == set(cc.REDUNDANCIES)
    assert all(r.scenario["scheme"]["pipeline"]["forward_redundancy"] is None for r in tuned)


def test_aodv_parts_are_the_string_set_up_with_on_demand_routing():
    full = cc.sweeps(False)
    for part in ("aodv-readings", "aodv-readings-pipeline", "aodv-readings-adaptive", "manet-aodv"):
        runs = load_sweep(full[part]).runs()
        assert {r.scenario["routing"]["protocol"] for r in runs} == {"aodv"}
        assert {r.scenario["routing"]["paths"] for r in runs} == {1}
    uncoded = load_sweep(full["aodv-readings"])
    assert uncoded.points() == len(cc.FULL["readings_hops"]) * len(cc.READINGS) * 2
    assert {r.scenario["scheme"]["name"] for r in uncoded.runs()} == {"none", "piggycode"}
    (adaptive,) = {(r.scenario["scheme"]["name"], r.scenario["scheme"]["pipeline"]["adaptive"])
                   for r in load_sweep(full["aodv-readings-adaptive"]).runs()}
    assert adaptive == ("combocoding", True)
    # The same strings as the string parts but for the routing.
    a = load_sweep(full["aodv-readings-pipeline"]).runs()[0].scenario
    b = load_sweep(full["string-pipeline"]).runs()[0].scenario
    assert {k: v for k, v in a.items() if k not in ("routing", "loss", "topology", "nodes")} == \
        {k: v for k, v in b.items() if k not in ("routing", "loss", "topology", "nodes")}


def test_manet_part_is_the_two_path_set_up_with_a_relay_leaving():
    full = cc.sweeps(False)
    sweep = load_sweep(full["manet"])
    runs = sweep.runs()
    assert (sweep.points(), sweep.seed_rule.n_min) == (len(manet.HOPS) * 2 * 2 * 2, cc.FULL["seeds"])
    assert len(runs) == sweep.points() * sweep.seed_rule.n_max
    keys = {(r.scenario["routing"]["paths"], r.scenario["routing"]["follow_mobility"]) for r in runs}
    assert keys == set(manet.SERIES.values())
    scn = runs[0].scenario
    assert scn["scheme"]["name"] == "combocoding" and scn["scheme"]["pipeline"]["adaptive"] is True
    assert scn["routing"]["spread"] == "round-robin"
    (loss,) = scn["loss"]
    assert [(p["from_s"], p["to_s"], p["rate"]) for p in loss["schedule"]] == [(50.0, 80.0, 0.2)]
    assert {r.scenario["loss"][0]["frames"] for r in runs} == {cc.READING, cc.ALT_READING}
    # The leaving relay: a neighbour of the source (250 m) until 80 s, out of its 260 m range from 97 s on.
    nodes = scn["nodes"]
    mover, src = nodes[manet.MOVER], nodes[0]
    (w0, w1) = mover["waypoints"]
    assert (w0["x"], w0["y"]) == (mover["x"], mover["y"]) and w0["t_s"] == manet.MOVE_S

    def dist(t):
        f = (t - w0["t_s"]) / (w1["t_s"] - w0["t_s"])
        x, y = w0["x"] + f * (w1["x"] - w0["x"]), w0["y"] + f * (w1["y"] - w0["y"])
        return math.hypot(x - src["x"], y - src["y"])

    assert dist(80.0) == pytest.approx(cc.SPACING_M)
    assert dist(96.9) < cc.RX_RANGE_M < dist(97.1)


def test_one_path_is_path_1_and_two_paths_share_the_load():
    """A short run of the part's scenarios (no loss before 50 s): with routing.paths = 1 the
    routes of the start use path 1 only (ties go to lower node ids); with 2 both paths carry
    the flow evenly, and no relay reads its own queue drops as link loss (Eq. 3's M is
    counted on the air)."""
    import ncmesh

    frames = {}
    for r in load_sweep(cc.sweeps(True)["manet"]).runs():
        sc = r.scenario
        if len(sc["nodes"]) == 4 and not sc["routing"]["follow_mobility"] and sc["simulation"]["seed"] == 1:
            s = ncmesh.Scenario.from_dict(sc).set("simulation.duration_s", 30.0)
            nodes = ncmesh.run(s).nodes.set_index("node")
            frames[sc["routing"]["paths"]] = nodes["mac_frames_sent"]
            assert (nodes["pl_loss_permille"] <= 50).all(), nodes["pl_loss_permille"].tolist()
    assert set(frames) == {1, 2}
    assert frames[1][1] > 1000 and frames[1][2] == 0, "path 2's relay (node 2) idle over one path"
    assert frames[2][1] > 1000 and 0.9 < frames[2][1] / frames[2][2] < 1.1


def test_closest_reading_is_the_one_nearest_table_3_as_a_whole():
    """The reading is chosen on all four columns: here `network` fits NewReno and PiggyCode
    best but misses the coded columns by far, so `all` (three hops) is the closest; on the
    uncoded columns alone (the criterion before) `network` would be."""
    rows = []
    for frames, shift, coded in (("data", 1.0, 1.0), ("all", 0.5, 0.1), ("network", 0.1, 2.0)):
        for delack in (False, True):
            for rng in ("two hops", "three hops"):
                for s in cc.TABLE3_SERIES:
                    for h in (3, 4):
                        paper = cc.PAPER_TABLE3[h][s]
                        extra = (shift if s in ("none", "piggycode") else coded) + (0.2 if delack else 0.0) \
                            + (0.0 if rng == "three hops" else 0.05)
                        rows.append({"frames": frames, "delayed_ack": delack, "interference": rng, "series": s,
                                     "variant": "", "hops": h, "seed": 1, **{f"w{i}": paper[i] + extra for i in range(3)}})
                        # A variant never counts towards the distance.
                        rows.append({**rows[-1], "variant": "per-report", **{f"w{i}": 0.0 for i in range(3)}})
    df = pd.DataFrame(rows)
    frames, delack, rng, dist = cc.closest_reading(df)
    assert (frames, delack, rng) == ("all", False, "three hops")
    assert dist[("all", False, "three hops")] == pytest.approx(0.3)
    assert dist[("data", True, "two hops")] == pytest.approx(1.25)
    assert cc.closest_reading(df, ("none", "piggycode"))[:3] == ("network", False, "three hops")


def test_window_goodput_and_tuning():
    # 1 s samples: 1 Mbit/s up to 50 s, 3 Mbit/s after.
    series = pd.DataFrame({"flow": 0, "hops": 3, "seed": 1, "t_s": [float(t) for t in range(1, 111)],
                           "goodput_kbps": [1000.0 if t <= 50 else 3000.0 for t in range(1, 111)]})
    w = cc._window_goodput(series, ["hops"]).iloc[0]
    assert w["w0"] == pytest.approx(1.0) and w["w1"] == pytest.approx(3.0) and w["w3"] == pytest.approx(3.0)

    df = pd.DataFrame({"series": ["pipeline"] * 4 + ["none"], "loss": [40] * 5,
                       "redundancy": [2.0, 2.0, 3.0, 3.0, math.nan], "seed": [1, 2, 1, 2, 1],
                       "goodput": [0.5, 0.7, 0.9, 0.2, 0.1]})
    assert cc.tuned(df) == {("pipeline", 40): 2.0}
    kept = cc.at_tuned(df)
    assert set(kept["series"]) == {"pipeline", "none"} and set(kept["redundancy"].dropna()) == {2.0}


@pytest.fixture(scope="module")
def quick_run(quick_reproduction):
    return quick_reproduction("combocoding")


def test_quick_summary_claims_and_figures(quick_run):
    out, p = quick_run
    s = json.loads((out / "summary.json").read_text())
    assert s["experiment"] == "combocoding" and s["quick"] is True and s["runs"]["failed"] == 0
    assert s["seeds"] == cc.QUICK["seeds"]
    assert set(s["table3_mbps"]) == set(cc.STRING_SERIES)
    assert set(s["table3_mbps"]["adaptive"]) == {"3", "7"}
    # Without loss every series carries traffic; NewReno on 3 hops at 54 Mbit/s: several Mbit/s.
    assert all(s["table3_mbps"][k]["3"]["20-50 s"] > 1.0 for k in cc.STRING_SERIES)
    assert 3.0 < s["table3_mbps"]["none"]["3"]["20-50 s"] < 9.0
    assert set(s["tuned_redundancy"]) == set(cc.TUNED)
    assert set(s["readings"]) == {f"{f}_delack_{a}_{r.replace(' ', '_')}" for f in cc.READINGS
                                  for a in ("on", "off") for r in cc.INTERFERENCE}
    for key in ("closest_reading", "closest_reading_uncoded"):
        assert s[key]["frames"] in cc.READINGS and s[key]["interference"] in cc.INTERFERENCE
    # The variants of the coded columns under the closest reading, each at the quick hop count.
    variants = list(csv.DictReader((out / "tables" / "readings_variants.csv").open()))
    assert {v["variant"] for v in variants} == {"code_acks = false", "code_acks = true (the column's default)",
                                                "estimate = closed (the column's default)", "estimate = per-report"}
    assert set(s["table3_alt_mbps"]) == set(cc.STRING_SERIES) and set(s["loss_3hops_alt"]) == set(cc.LOSS_SERIES)
    assert set(s["pipeline_tail_3hops"]) == {"20_1.4", "20_2.5", "40_1.4", "40_2.5"}
    # Eq. 6 without loss: a few MAC frames per node per delivered DATA.
    assert 1.0 < s["loss_3hops"]["overhead"]["none"]["0"] < 8.0
    assert 0 < s["loss_3hops"]["delay"]["none"]["0"] < 1.0
    assert len(s["claims"]) == 12 and all(isinstance(c["holds"], bool) for c in s["claims"])
    got = s["manet"]
    assert {k.rsplit("_", 1)[0] for k in got} == {f"{cc.READING}_{h}hops_{m}" for h in manet.HOPS
                                                 for m in manet.ORDER}
    # Over one path the flow stops once path 1 breaks; re-routed, it moves to path 2; AODV finds
    # path 2 after the break on 2 hops per path (no other node leaves).
    assert all(got[f"{cc.READING}_{h}hops_one_w3"] < 0.1 for h in manet.HOPS)
    assert all(got[f"{cc.READING}_{h}hops_one-rerouted_w3"] > 1.0 for h in manet.HOPS)
    assert got[f"{cc.READING}_2hops_{manet.AODV_SERIES}_w3"] > 1.0
    # The route-break reading: every loss reading with AODV, its distance from Table 3 and the pattern at 40%.
    assert set(s["aodv_readings"]) == set(cc.READINGS)
    assert all(v["distance_aodv"] > 0 and isinstance(v["pattern"], bool) for v in s["aodv_readings"].values())
    rows = list(csv.DictReader((out / "tables" / "table3_aodv.csv").open()))
    assert len(rows) == len(cc.READINGS) * len(cc.TABLE3_SERIES) * len(cc.QUICK["readings_hops"])
    assert all(float(r["route breaks per run"].split(" ")[0]) >= 1 for r in rows), "AODV breaks routes"
    assert_conclusions_under_claims(s["claims"], p.stdout)
    assert "Table 3: goodput (Mbit/s) per interval" in p.stdout and "(4.43)" in p.stdout
    for name in FIGURES:
        assert (out / "figures" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def test_report_layout(quick_run):
    assert_reproduction_layout(quick_run[0], "table3")


def test_conclusions_are_written_from_the_run_numbers(quick_run):
    """Each class's conclusion comes from the run's numbers: change them and the lines change."""
    import copy

    out = quick_run[0]
    s = json.loads((out / "summary.json").read_text())
    before = {k: g.conclusion for k, g in cc._conclusions(s).items()}
    assert all(before.values()), before
    other = copy.deepcopy(s)
    for hops in other["table3_mbps"]["adaptive"].values():
        for w in hops:
            hops[w] += 0.5
    other["loss_3hops"]["overhead"]["none"]["0"] += 1.0
    after = {k: g.conclusion for k, g in cc._conclusions(other).items()}
    for name in before:
        assert before[name] != after[name], name
