#!/usr/bin/env python3
"""AODV side by side: ncmesh's `routing.protocol = "aodv"` next to ns-3 3.44's AODV.

    python3 benchmarks/aodv_vs_ns3.py --ns3-python /path/to/ns3-venv/bin/python \\
        [--seeds 3] [--duration 60] [--out FILE]

A benchmark script, not a test: it takes minutes. Both simulators run the ns-3 anchor's
chain set-up (validation/ns3/README.md: nodes 200 m apart, 802.11b at 2 Mbit/s, MAC ACKs
and broadcasts at 1 Mbit/s, 250 m range, RTS/CTS off, 7 retries, 50-packet queues, TCP
NewReno with 1000-byte segments and delayed ACKs, bulk transfer from 1 s, goodput over
[10 s, duration]) with AODV at RFC 3561's defaults on both sides: HELLOs off, no
gratuitous RREPs, no local repair, 64-packet / 30 s buffer. Cases:

- `chain-N`: a static chain of N hops;
- `break-4`: the 4-hop chain whose middle node (2) moves 400 m off the line at 20 s and
  comes back at 30 s: the flow's only path breaks and returns.

Per case and seed: goodput (kbit/s) and AODV messages sent (RREQ + RREP + RERR + HELLO,
all nodes: ncmesh's counters; for ns-3, the frames of UDP port 654 each node's own
capture shows it sending, read with tshark). ns-3 runs one process per run, as the
anchor does. `--hello` turns HELLOs on on both sides (ns-3's default).

Where ns-3's AODV (src/aodv, 3.44) deviates from RFC 3561 and from ncmesh, as far as
these cases show: its link-layer feedback (a MAC drop at the retry limit) finds the
neighbour by the MAC address its ARP cache holds, and only in an entry that is alive or
permanent (aodv-neighbor.cc LookupMacAddress): with the anchor's pre-filled caches
(NeighborCacheHelper, auto-generated entries: `--arp auto`) a failed unicast breaks no
route at all, while RFC 3561 §6.11 (and ncmesh) break it. `--arp permanent` (default)
fills the caches with permanent entries, so the feedback works with no ARP traffic, as in
ncmesh; `--arp dynamic` resolves by ARP (its requests and 3-packet pending queue change
the chain's losses). ns-3 also jitters every broadcast (ncmesh: forwarded RREQs only) and
forwards every RREP whatever the route's freshness (ncmesh: unless older than the route
held).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

CASES = ["chain-1", "chain-2", "chain-4", "chain-6", "break-4"]


# ---------------------------------------------------------------- ns-3 side (subprocess)

NS3_SCRIPT = r'''
import sys, json
from ns import ns
hops, seed, dur, brk, pcap = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
hello = sys.argv[6] == "1"
arp = sys.argv[7]
ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(seed)
ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpClassicRecovery"))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1000))
ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(131072))
ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(131072))
ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.QueueSizeValue(ns.QueueSize("50p")))
ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(1000.0)))
ns.Config.SetDefault("ns3::WifiMac::FrameRetryLimit", ns.UintegerValue(7))
n = hops + 1
nodes = ns.NodeContainer(); nodes.Create(n)
mob = ns.MobilityHelper()
mob.SetMobilityModel("ns3::WaypointMobilityModel")
mob.Install(nodes)
mid = n // 2
for i in range(n):
    m = nodes.Get(i).GetObject[ns.WaypointMobilityModel]()
    m.AddWaypoint(ns.Waypoint(ns.Seconds(0.0), ns.Vector(200.0 * i, 0.0, 0.0)))
    if brk and i == mid:
        for t, y in ((20.0, 0.0), (20.5, 400.0), (30.0, 400.0), (30.5, 0.0)):
            m.AddWaypoint(ns.Waypoint(ns.Seconds(t), ns.Vector(200.0 * i, y, 0.0)))
chan = ns.YansWifiChannelHelper()
chan.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
chan.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", ns.DoubleValue(250.0))
phy = ns.YansWifiPhyHelper(); phy.SetChannel(chan.Create())
phy.SetPcapDataLinkType(ns.YansWifiPhyHelper.DLT_IEEE802_11)
wifi = ns.WifiHelper(); wifi.SetStandard(ns.WIFI_STANDARD_80211b)
wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
    "DataMode", ns.StringValue("DsssRate2Mbps"), "ControlMode", ns.StringValue("DsssRate1Mbps"),
    "NonUnicastMode", ns.StringValue("DsssRate1Mbps"), "RtsCtsThreshold", ns.UintegerValue(65535))
mac = ns.WifiMacHelper(); mac.SetType("ns3::AdhocWifiMac")
devs = wifi.Install(phy, mac, nodes)
macs = [ns.Mac48Address.ConvertFrom(devs.Get(j).GetAddress()) for j in range(n)]
for i in range(n):
    rsm = devs.Get(i).GetObject[ns.WifiNetDevice]().GetRemoteStationManager()
    rsm.Reset(); rsm.AddBasicMode(ns.WifiMode("DsssRate1Mbps"))
    for j in range(n):
        if j != i:
            for md in ("DsssRate1Mbps", "DsssRate2Mbps"):
                rsm.AddSupportedMode(macs[j], ns.WifiMode(md))
            rsm.RecordDisassociated(macs[j])
aodv = ns.AodvHelper()
aodv.Set("EnableHello", ns.BooleanValue(hello))
aodv.Set("GratuitousReply", ns.BooleanValue(False))
stack = ns.InternetStackHelper(); stack.SetRoutingHelper(aodv); stack.Install(nodes)
addr = ns.Ipv4AddressHelper(); addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
ifs = addr.Assign(devs)
ns.TrafficControlHelper().Uninstall(devs)
if arp == "auto":
    ns.NeighborCacheHelper().PopulateNeighborCache()
elif arp == "permanent":
    for i in range(n):
        cache = nodes.Get(i).GetObject[ns.Ipv4L3Protocol]().GetInterface(1).GetArpCache()
        for j in range(n):
            if j != i:
                e = cache.Add(ifs.GetAddress(j))
                e.SetMacAddress(devs.Get(j).GetAddress())
                e.MarkPermanent()
sh = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9000).ConvertTo())
sapp = sh.Install(nodes.Get(n - 1)); sapp.Start(ns.Seconds(0.0)); sapp.Stop(ns.Seconds(dur + 1))
sink = ns.DynamicCast[ns.PacketSink](sapp.Get(0))
bh = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ifs.GetAddress(n - 1), 9000).ConvertTo())
bh.SetAttribute("MaxBytes", ns.UintegerValue(0)); bh.SetAttribute("SendSize", ns.UintegerValue(1000))
bapp = bh.Install(nodes.Get(0)); bapp.Start(ns.Seconds(1.0)); bapp.Stop(ns.Seconds(dur + 1))
phy.EnablePcapAll(pcap, False)
ns.Simulator.Stop(ns.Seconds(10.0)); ns.Simulator.Run(); rx0 = sink.GetTotalRx()
ns.Simulator.Stop(ns.Seconds(dur - 10.0)); ns.Simulator.Run(); rx1 = sink.GetTotalRx()
ns.Simulator.Destroy()
print("RESULT " + json.dumps({"goodput_kbps": (rx1 - rx0) * 8 / (dur - 10.0) / 1e3,
                              "macs": [str(m) for m in macs]}))
'''


def aodv_sent(pcap_prefix: str, n: int, macs: list[str]) -> int:
    """AODV frames each node's own capture shows it sending (tshark), summed."""
    total = 0
    for i in range(n):
        f = f"{pcap_prefix}-{i}-0.pcap"
        if not os.path.exists(f):
            continue
        out = subprocess.run(["tshark", "-r", f, "-Y", f"aodv && wlan.ta == {macs[i]}",
                              "-T", "fields", "-e", "aodv.type"],
                             capture_output=True, text=True, check=True).stdout
        total += sum(1 for t in out.split() if t in ("1", "2", "3"))
    return total


def run_ns3(py: str, case: str, seed: int, duration: float, hello: bool, arp: str = "permanent") -> dict:
    import json
    hops = int(case.split("-")[1])
    brk = case.startswith("break")
    with tempfile.TemporaryDirectory() as d:
        prefix = os.path.join(d, "aodv")
        out = subprocess.run([py, "-c", NS3_SCRIPT, str(hops), str(seed), str(duration),
                              "1" if brk else "0", prefix, "1" if hello else "0",
                              arp],
                             capture_output=True, text=True, check=True).stdout
        line = next(x for x in out.splitlines() if x.startswith("RESULT "))
        r = json.loads(line[7:])
        r["aodv_msgs"] = aodv_sent(prefix, hops + 1, r.pop("macs"))
    return r


# ---------------------------------------------------------------- ncmesh side


def run_ncmesh(case: str, seed: int, duration: float, hello: bool) -> dict:
    import ncmesh
    hops = int(case.split("-")[1])
    sc = ncmesh.Scenario.build("chain", hops=hops, duration=duration)
    sc.update({
        "simulation.seed": seed,
        "simulation.measure_start_s": 10.0,
        "routing.protocol": "aodv",
        "routing.aodv.hello": hello,
        # ns-3 keeps the doubled CW after a drop at the retry limit (chain-vs-ns3 does too).
        "mac.cw_reset_after_drop": False,
    })
    if case.startswith("break"):
        mid = (hops + 1) // 2
        x = sc.resolved()["nodes"][mid]["x"]
        sc.set(f"nodes.{mid}.waypoints", [
            {"t_s": t, "x": x, "y": y} for t, y in ((20.0, 0.0), (20.5, 400.0), (30.0, 400.0), (30.5, 0.0))])
    r = ncmesh.run(sc)
    nodes = r.nodes
    msgs = int(nodes[["aodv_rreq_tx", "aodv_rrep_tx", "aodv_rerr_tx", "aodv_hello_tx"]].to_numpy().sum())
    return {"goodput_kbps": float(r.flows["goodput_kbps"].iloc[0]), "aodv_msgs": msgs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-python", required=True, help="python of a venv with `pip install ns3` (3.44)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--cases", nargs="*", default=CASES)
    ap.add_argument("--hello", action="store_true",
                    help="HELLOs on both sides (ns-3's default; its link-layer feedback needs them)")
    ap.add_argument("--arp", choices=["permanent", "auto", "dynamic"], default="permanent",
                    help="ns-3's neighbour caches: pre-filled with permanent entries (default: no ARP "
                         "traffic, as ncmesh, and AODV's link-layer feedback works), pre-filled by "
                         "NeighborCacheHelper as the anchor does (its auto-generated entries hide "
                         "the neighbours' MAC addresses from AODV: no link-layer feedback), or ARP")
    ap.add_argument("--out", help="also write the rows (CSV) to this file")
    a = ap.parse_args()
    rows = []
    for case in a.cases:
        for seed in range(1, a.seeds + 1):
            ours = run_ncmesh(case, seed, a.duration, a.hello)
            theirs = run_ns3(a.ns3_python, case, seed, a.duration, a.hello, a.arp)
            rows.append({"case": case, "seed": seed,
                         "ncmesh_kbps": round(ours["goodput_kbps"], 1),
                         "ns3_kbps": round(theirs["goodput_kbps"], 1),
                         "ncmesh_aodv_msgs": ours["aodv_msgs"], "ns3_aodv_msgs": theirs["aodv_msgs"]})
            print(rows[-1], flush=True)
    print("\n| case | ncmesh kbit/s | ns-3 kbit/s | diff | ncmesh AODV msgs | ns-3 AODV msgs |")
    print("|---|---|---|---|---|---|")
    for case in a.cases:
        rs = [r for r in rows if r["case"] == case]
        m = statistics.mean(r["ncmesh_kbps"] for r in rs)
        t = statistics.mean(r["ns3_kbps"] for r in rs)
        diff = f"{(m - t) / t * 100:+.1f}%" if t > 0 else "n/a"
        mm = statistics.mean(r["ncmesh_aodv_msgs"] for r in rs)
        tm = statistics.mean(r["ns3_aodv_msgs"] for r in rs)
        print(f"| {case} | {m:.1f} | {t:.1f} | {diff} | {mm:.0f} | {tm:.0f} |")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
