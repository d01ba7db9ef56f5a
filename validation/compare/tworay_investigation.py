#!/usr/bin/env python3
"""Why ncmesh's two-ray chain was faster than ns-3's (docs/validation.md, "Two-ray ground").

Runs the ncmesh two-ray chain (1-8 hops) and X under several channel settings, 3 seeds each,
beside the ns-3 means of validation/ns3/reference.csv, and puts ncmesh's per-node MAC
counters next to the ns-3 counters of validation/compare/probe/*.json (made by
run_ns3_probes.sh) for the 2-, 4- and 8-hop chains.

    .venv/bin/python validation/compare/tworay_investigation.py [--seeds 3] [--jobs 2]

Writes validation/compare/tworay_variants.csv (one row per variant, tag, hops; mean over
seeds) and validation/compare/tworay_nodes.csv (per node: ncmesh vs ns-3 counters).
"""
from __future__ import annotations

import argparse
import csv
import json
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ncmesh import Scenario, _core
from ncmesh.validation import NS3_MAC, TAGS, load_reference_table

HERE = Path(__file__).resolve().parent
RX_W = 3.652e-10                 # ns-2 RXThresh (250 m), the anchor's RxSensitivity
YANS_GATE_W = RX_W * 22.0 / 20.0  # YansWifiChannel::Receive: RxSensitivity + 10 log10(22 MHz / 20 MHz)

BASE = {"channel.model": "tworay", "channel.preamble_detection_db": -1000.0}
VARIANTS = {
    # the mapping first proposed for the anchor's --prop tworay: CS threshold 1.559e-11 W (550 m)
    "cs550": dict(BASE),
    "cs550+capture": {**BASE, "channel.reception": "capture"},
    "cs550+preamble4dB": {"channel.model": "tworay"},
    "cs550+noise0": {**BASE, "channel.noise_w": 0.0},
    # every transmitter in the network is sensed and interferes (CS threshold 1e-15 W)
    "cs_everything": {**BASE, "channel.cs_threshold_w": 1e-15},
    # signals below the receive threshold are ignored entirely (CS range = receive range)
    "cs=rx": {**BASE, "channel.cs_threshold_w": RX_W},
    # exactly YansWifiChannel's gate: nothing below RxSensitivity x 22/20 reaches the PHY
    "yans_gate": {**BASE, "channel.rx_threshold_w": YANS_GATE_W, "channel.cs_threshold_w": YANS_GATE_W},
    "yans_gate+capture": {**BASE, "channel.rx_threshold_w": YANS_GATE_W, "channel.cs_threshold_w": YANS_GATE_W,
                          "channel.reception": "capture"},
}
NODE_FIELDS = ["mac_frames_sent", "mac_data_frames_sent", "mac_retries", "collisions",
               "drops_queue_full", "drops_retry_limit", "airtime_busy"]


def scenario(tag: str, hops: int, overrides: dict) -> dict:
    """The chain / X builder with only the variant's overrides (not the tag's own mapping),
    plus ns-3's MAC behaviour (NS3_MAC: the CW is kept after a retry-limit drop), as every
    ns-3 comparison."""
    sc = Scenario.build("chain", hops=hops) if TAGS[tag].kind == "chain" else Scenario.build("x")
    return sc.update({**NS3_MAC, **overrides}).to_dict()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    ref, _ = load_reference_table(HERE.parent / "ns3" / "reference.csv")

    cells = [("chain-tworay", h) for h in range(1, 9)] + [("x-tworay", 2)]
    tasks = [(v, t, h, s) for v in VARIANTS for t, h in cells for s in range(1, a.seeds + 1)]
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda k: _core.run(scenario(k[1], k[2], VARIANTS[k[0]]), k[3]), tasks))

    rows = []
    for v in VARIANTS:
        for t, h in cells:
            rs = [r for k, r in zip(tasks, results) if k[:3] == (v, t, h)]
            g = [sum(f["goodput_kbps"] for f in r["flows"]) for r in rs]
            ns3 = statistics.fmean(ref[(t, h)].totals)
            m = statistics.fmean(g)
            row = {"variant": v, "tag": t, "hops": h, "seeds": len(g), "ncmesh_mean_kbps": round(m, 1),
                   "ncmesh_min_kbps": min(g), "ncmesh_max_kbps": max(g), "ns3_mean_kbps": round(ns3, 1),
                   "diff_pct": round((m - ns3) / ns3 * 100, 1),
                   "within_10pct": "yes" if abs(m - ns3) / ns3 <= 0.10 else "no"}
            if t.startswith("x"):
                row["ncmesh_flows_kbps"] = " + ".join(
                    f"{statistics.fmean(r['flows'][k]['goodput_kbps'] for r in rs):.1f}" for k in range(2))
                row["ns3_flows_kbps"] = " + ".join(f"{x:.1f}" for x in ref[(t, h)].flow_means())
            rows.append(row)
    cols = ["variant", "tag", "hops", "seeds", "ncmesh_mean_kbps", "ncmesh_min_kbps", "ncmesh_max_kbps",
            "ns3_mean_kbps", "diff_pct", "within_10pct", "ncmesh_flows_kbps", "ns3_flows_kbps"]
    with open(HERE / "tworay_variants.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)

    # per-node counters, seed/run 1: ncmesh (cs550 and yans_gate) beside the ns-3 probe
    node_rows = []
    for h in (2, 4, 8):
        probe = HERE / "probe" / f"ns3_tworay_h{h}_yans.json"
        p = json.loads(probe.read_text()) if probe.is_file() else None
        runs = {v: _core.run(scenario("chain-tworay", h, VARIANTS[v]), 1) for v in ("cs550", "yans_gate")}
        for i in range(h + 1):
            row = {"hops": h, "node": i}
            for v, r in runs.items():
                row[f"{v}_goodput_kbps"] = r["flows"][0]["goodput_kbps"]
                for k in NODE_FIELDS:
                    row[f"{v}_{k}"] = r["nodes"][i][k]
            if p:
                n = p["nodes"][i]
                row["ns3_goodput_kbps"] = p["goodput_kbps"]
                row["ns3_tx_begin"] = n["tx_begin"]
                row["ns3_mac_tx_data_failed"] = n["mac_tx_data_failed"]
                row["ns3_retry_limit_drops"] = n.get("dropped_mpdu_REACHED_RETRY_LIMIT", 0)
                row["ns3_signal_arrivals"] = n["signal_arrivals"]
                row["ns3_weak_arrivals"] = n["weak_arrivals"]
                row["ns3_rx_begin"] = n["rx_begin"]
                far_tx = sum(p["nodes"][j]["tx_begin"] for j in range(h + 1) if abs(j - i) >= 2)
                row["ns3_tx_of_nodes_2plus_hops_away"] = far_tx
                row["ns3_t_cca_busy_s"] = n.get("t_CCA_BUSY_s", 0.0)
                row["ns3_overlaps_with_node_i+2"] = p["overlaps_2hop"].get(f"{i}-{i + 2}", "")
            node_rows.append(row)
    with open(HERE / "tworay_nodes.csv", "w", newline="") as f:
        cols = list(dict.fromkeys(k for r in node_rows for k in r))
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(node_rows)

    for v in VARIANTS:
        print(f"{v:>18}: " + "  ".join(
            f"{r['hops'] if r['tag'] == 'chain-tworay' else 'X'}:{r['ncmesh_mean_kbps']:.0f}({r['diff_pct']:+.0f}%)"
            for r in rows if r["variant"] == v))
    print(f"{'ns-3':>18}: " + "  ".join(
        f"{r['hops'] if r['tag'] == 'chain-tworay' else 'X'}:{r['ns3_mean_kbps']:.0f}" for r in rows
        if r["variant"] == "cs550"))


if __name__ == "__main__":
    main()
