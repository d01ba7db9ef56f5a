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

- `chain-N`: a static chain of N hops (TCP);
- `break-4`: the 4-hop chain whose middle node (2) moves 400 m off the line at 20 s and
  comes back at 30 s: the flow's only path breaks and returns (TCP); `break-4-udp`: the
  same with a 64 kbit/s UDP CBR flow of 512-byte datagrams;
- `mobile-tcp`, `mobile-udp`: a random mobile network: 12 nodes in 600 m x 600 m, random
  waypoint (uniform destinations, speeds uniform in [1, 5] m/s, 5 s pauses), a flow from
  node 0 to node 11; the trace is drawn from the seed (Python's `random`), so both
  simulators move the same nodes along the same waypoints (ns-3's WaypointMobilityModel;
  ncmesh's `nodes.<i>.waypoints`, positions refreshed every `mobility_update_s` = 0.1 s).

Per case and seed, the same measures on both sides, from the counters and from each node's
own capture read with tshark (ncmesh: `ncmesh.run(..., pcap_dir=)`; ns-3: EnablePcapAll):
goodput (kbit/s; TCP), delivery ratio (UDP: datagrams received / sent), AODV messages sent
(RREQ + RREP + RERR + HELLO, all nodes: ncmesh's counters; ns-3: the UDP/654 frames each
node's capture shows it sending) and RREQs among them, route discovery time (the source's
first data frame on the air after its first RREQ), first-packet delay (the flow's first
packet at the destination after the application starts at 1 s) and, for `break-*`, time to
repair (the first data frame at the destination after the node is back at 30.5 s) and, for
UDP, datagrams lost. ns-3 runs one process per run, as the anchor does. `--hello` turns
HELLOs on on both sides (ns-3's default).

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
held). Two more change these cases' counts, and each has a flag that makes ncmesh do as
ns-3 does: ns-3 sends RreqRetries = 2 RREQs at NET_DIAMETER in all where RFC 3561 §6.3
sends the first and RREQ_RETRIES = 2 more (`--rreq-retries 1`), and it keeps a broken
route's destination sequence number where §6.11 increments it (`--keep-seqno`;
aodv-rtable.cc RoutingTableEntry::Invalidate), so its neighbours' older routes still
answer the rediscovery.
A third: its RecvRequest updates an invalid reverse route without making it valid, so data
back to the originator is dropped at that relay (`--rreq-keeps-invalid`). And without HELLOs
a UDP source never detects the break of its own first link (its neighbour list is filled
only by forwarded or received data and RREQs); no flag, ncmesh detects it as §6.11 asks. One more difference is the set-up's, not the protocol's:
ns-3 without a traffic-control layer queues AODV's messages behind the data in its one
WifiMacQueue, where ncmesh serves them first as ns-2's PriQueue does (`--control-fifo`
queues them as ns-3 does).

ns-3's TCP (TcpSocketBase, NewReno, classic recovery) differs from ncmesh's default TCP in
two ways a flag covers: it takes an RTT sample from every ACK (`--every-ack-rtt`) and uses
Limited Transmit (`--limited-transmit`). Both start a new fast retransmit once the
cumulative ACK reaches `recover` (RFC 2582's Less Careful variant: ns-3's
`m_highRxAckMark >= m_recover`, ncmesh's `tcp.newreno_careful = false`, its default).
Without SACK ns-3's NewReno also departs from RFC 6582 in ways no flag covers (docs/
validation.md); `--sack` runs both TCPs with SACK and RFC 6675 loss recovery, which both
implement (ns-3's default, which the anchor turns off), and `--prr` adds RFC 6937 on both
sides (ns-3's default recovery).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

# validation/compare/ns3_anchor.py: the anchor's TCP, queue and 802.11b settings, shared with
# the chain probe; the ns-3 side imports it from there.
ANCHOR_DIR = Path(__file__).resolve().parents[1] / "validation" / "compare"
CASES = ["chain-1", "chain-2", "chain-4", "chain-6", "break-4", "break-4-udp", "mobile-tcp", "mobile-udp"]
SPACING_M = 200.0
START_S = 1.0
BACK_S = 30.5                    # break-*: the middle node is back on the line
UDP_RATE_KBPS, UDP_BYTES = 64.0, 512
MOBILE_NODES, MOBILE_AREA_M = 12, 600.0
MOBILE_SPEED, MOBILE_PAUSE_S = (1.0, 5.0), 5.0


def random_waypoint(seed: int, duration: float) -> list[list[tuple[float, float, float]]]:
    """Per node, [(t, x, y)]: random waypoint in the square (the first point: the start
    position at t = 0), drawn from `seed`."""
    import random
    rng = random.Random(seed)
    out = []
    for _ in range(MOBILE_NODES):
        x, y, t = rng.uniform(0, MOBILE_AREA_M), rng.uniform(0, MOBILE_AREA_M), 0.0
        pts = [(0.0, x, y)]
        while t < duration:
            t += MOBILE_PAUSE_S
            pts.append((t, x, y))
            nx, ny = rng.uniform(0, MOBILE_AREA_M), rng.uniform(0, MOBILE_AREA_M)
            t += ((nx - x) ** 2 + (ny - y) ** 2) ** 0.5 / rng.uniform(*MOBILE_SPEED)
            x, y = nx, ny
            pts.append((t, x, y))
        out.append([(round(a, 6), round(b, 6), round(c, 6)) for a, b, c in pts])
    return out


def case_spec(case: str, seed: int, duration: float) -> dict:
    """What both simulators run: node positions and waypoints, the flow's ends and transport."""
    udp = case.endswith("-udp")
    if case.startswith("mobile"):
        tracks = random_waypoint(seed, duration)
        pos = [t[0][1:] for t in tracks]
        wps = {i: t[1:] for i, t in enumerate(tracks)}
        src, dst = 0, MOBILE_NODES - 1
    else:
        hops = int(case.split("-")[1])
        pos = [(SPACING_M * i, 0.0) for i in range(hops + 1)]
        wps = {}
        if case.startswith("break"):
            mid = (hops + 1) // 2
            x = SPACING_M * mid
            wps[mid] = [(t, x, y) for t, y in ((20.0, 0.0), (20.5, 400.0), (30.0, 400.0), (BACK_S, 0.0))]
        src, dst = 0, hops
    return {"positions": pos, "waypoints": {str(k): v for k, v in wps.items()}, "src": src, "dst": dst,
            "udp": udp, "duration": duration, "back_s": BACK_S if case.startswith("break") else None}


# ---------------------------------------------------------------- ns-3 side (subprocess)

NS3_SCRIPT = r"""
import sys, json
from ns import ns
sys.path.insert(0, sys.argv[4])
import ns3_anchor
spec = json.load(open(sys.argv[1]))
seed, pcap = int(sys.argv[2]), sys.argv[3]
hello, arp, sack, prr = (spec["ns3"][k] for k in ("hello", "arp", "sack", "prr"))
dur = spec["duration"]
ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(seed)
ns3_anchor.set_defaults(ns)
if sack:   # RFC 2018 SACK and RFC 6675 loss recovery (ns-3's default; the anchor turns it off)
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
if prr:    # RFC 6937 (ns-3's default recovery; the anchor takes the classic one)
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpPrrRecovery"))
n = len(spec["positions"])
src, dst = spec["src"], spec["dst"]
nodes = ns.NodeContainer(); nodes.Create(n)
mob = ns.MobilityHelper()
mob.SetMobilityModel("ns3::WaypointMobilityModel")
mob.Install(nodes)
for i in range(n):
    m = nodes.Get(i).GetObject[ns.WaypointMobilityModel]()
    x, y = spec["positions"][i]
    m.AddWaypoint(ns.Waypoint(ns.Seconds(0.0), ns.Vector(x, y, 0.0)))
    for t, x, y in spec["waypoints"].get(str(i), []):
        m.AddWaypoint(ns.Waypoint(ns.Seconds(t), ns.Vector(x, y, 0.0)))
chan = ns.YansWifiChannelHelper()
chan.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
chan.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", ns.DoubleValue(250.0))
phy = ns.YansWifiPhyHelper(); phy.SetChannel(chan.Create())
phy.SetPcapDataLinkType(ns.YansWifiPhyHelper.DLT_IEEE802_11)
devs, macs = ns3_anchor.install_wifi(ns, phy, nodes, n)
aodv = ns.AodvHelper()
aodv.Set("EnableHello", ns.BooleanValue(hello))
aodv.Set("GratuitousReply", ns.BooleanValue(False))
stack = ns.InternetStackHelper(); stack.SetRoutingHelper(aodv); stack.Install(nodes)
addr = ns.Ipv4AddressHelper(); addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
ifs = addr.Assign(devs)
ips = [str(ifs.GetAddress(j)) for j in range(n)]
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
factory = "ns3::UdpSocketFactory" if spec["udp"] else "ns3::TcpSocketFactory"
sh = ns.PacketSinkHelper(factory, ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9000).ConvertTo())
sapp = sh.Install(nodes.Get(dst)); sapp.Start(ns.Seconds(0.0)); sapp.Stop(ns.Seconds(dur + 1))
sink = ns.DynamicCast[ns.PacketSink](sapp.Get(0))
remote = ns.InetSocketAddress(ifs.GetAddress(dst), 9000).ConvertTo()
if spec["udp"]:
    oh = ns.OnOffHelper(factory, remote)
    oh.SetConstantRate(ns.DataRate(f"{int(spec['rate_kbps'] * 1000)}bps"), spec["packet_bytes"])
    app = oh.Install(nodes.Get(src))
else:
    bh = ns.BulkSendHelper(factory, remote)
    bh.SetAttribute("MaxBytes", ns.UintegerValue(0)); bh.SetAttribute("SendSize", ns.UintegerValue(1000))
    app = bh.Install(nodes.Get(src))
app.Start(ns.Seconds(spec["start_s"])); app.Stop(ns.Seconds(dur))
phy.EnablePcapAll(pcap, False)
ns.Simulator.Stop(ns.Seconds(10.0)); ns.Simulator.Run(); rx0 = sink.GetTotalRx()
ns.Simulator.Stop(ns.Seconds(dur - 10.0)); ns.Simulator.Run(); rx1 = sink.GetTotalRx()
ns.Simulator.Destroy()
print("RESULT " + json.dumps({"goodput_kbps": (rx1 - rx0) * 8 / (dur - 10.0) / 1e3, "rx_bytes": rx1,
                              "macs": [str(m) for m in macs],
                              "ips": ips}))
"""


# ---------------------------------------------------------------- the captures (both sides)

def tshark(path: str, flt: str, fields: list[str]) -> list[list[str]]:
    if not os.path.exists(path):
        return []
    out = subprocess.run(["tshark", "-r", path, "-Y", flt, "-T", "fields", *sum((["-e", f] for f in fields), [])],
                         capture_output=True, text=True, check=True).stdout
    return [ln.split("\t") for ln in out.splitlines() if ln.strip()]


def from_captures(pcap: list[str], macs: list[str], ips: list[str], spec: dict) -> dict:
    """Measures read off each node's own capture (`pcap[i]`): AODV messages and RREQs sent,
    discovery time, first-packet delay, time to repair."""
    msgs = rreqs = 0
    for i, f in enumerate(pcap):
        types = [r[0] for r in tshark(f, f"aodv && wlan.ta == {macs[i]}", ["aodv.type"])]
        msgs += sum(1 for t in types if t in ("1", "2", "3"))
        rreqs += sum(1 for t in types if t == "1")
    src, dst = spec["src"], spec["dst"]
    data = f"ip.src == {ips[src]} && ip.dst == {ips[dst]} && !aodv && (tcp || udp)"
    first = lambda rows: float(rows[0][0]) if rows else math.nan  # noqa: E731
    t_rreq = first(tshark(pcap[src], f"aodv.type == 1 && wlan.ta == {macs[src]}", ["frame.time_epoch"]))
    t_data = first(tshark(pcap[src], f"{data} && wlan.ta == {macs[src]}", ["frame.time_epoch"]))
    arrivals = [float(r[0]) for r in tshark(pcap[dst], f"{data} && wlan.ra == {macs[dst]}", ["frame.time_epoch"])]
    out = {"aodv_msgs": msgs, "rreqs": rreqs, "discovery_s": t_data - t_rreq,
           "first_packet_s": (arrivals[0] - START_S) if arrivals else math.nan}
    if spec["back_s"] is not None:
        after = [t for t in arrivals if t >= spec["back_s"]]
        out["repair_s"] = (after[0] - spec["back_s"]) if after else math.nan
    return out


EXPECT_NS3_PYTHON = "expected the python of a venv with `pip install ns3` (3.44)"


def exit_status(code: int) -> str:
    """A process's exit status in words (a negative code: the signal that killed it)."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def status_and_last_line(code: int, text: str | None) -> str:
    """A process's exit status and the last non-blank line of its output (its error, as a rule)."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return f"{exit_status(code)}: {lines[-1]}" if lines else f"{exit_status(code)}, no output"


def ns3_python_problem(py: str) -> str | None:
    """What is wrong with `py` as `--ns3-python` (one line), or None if it runs as a python
    that can import ns-3's `ns` module (checked without importing it, which takes seconds)."""
    where = f"--ns3-python {py!r}"
    if os.sep not in py:  # a command name: looked up on PATH, as subprocess does
        if not shutil.which(py):
            return f"{where}: no such command on PATH: " + EXPECT_NS3_PYTHON
    elif not os.path.exists(py):
        return f"{where}: no such file: " + EXPECT_NS3_PYTHON
    elif os.path.isdir(py) or not os.access(py, os.X_OK):
        return f"{where}: not an executable file: " + EXPECT_NS3_PYTHON
    probe = "import importlib.util, sys; print('ns', importlib.util.find_spec('ns') is not None)"
    try:
        r = subprocess.run([py, "-c", probe], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{where}: does not run as python ({e}): " + EXPECT_NS3_PYTHON
    if r.returncode != 0 or not r.stdout.startswith("ns "):
        return (f"{where}: does not run as python ({status_and_last_line(r.returncode, r.stderr or r.stdout)}): "
                + EXPECT_NS3_PYTHON)
    if r.stdout.strip() != "ns True":
        return f"{where}: has no `ns` module: " + EXPECT_NS3_PYTHON
    return None


class Ns3Settings(NamedTuple):
    """What changes ns-3's runs besides the case and the seed: the command line's --hello,
    --arp, --sack and --prr (ncmesh's flags do not)."""
    hello: bool = False
    arp: str = "permanent"
    sack: bool = False
    prr: bool = False

    def label(self, duration: float) -> str:
        """These settings and the duration as stored with each row of --out, so that
        --ns3-csv never mixes runs of other settings."""
        return (f"duration={duration:g} hello={int(self.hello)} arp={self.arp} sack={int(self.sack)} "
                f"prr={int(self.prr)}")


def ns3_process(py: str, spec: dict, seed: int, prefix: str, ns3: Ns3Settings = Ns3Settings(),
                tcp_log: bool = False) -> tuple[dict, str]:
    """Runs NS3_SCRIPT on `spec` with `ns3` in its own process, its captures under `prefix`;
    returns its RESULT line and its standard error, which holds ns-3's `TcpSocketBase` log
    at debug level when `tcp_log`."""
    import json
    script = NS3_SCRIPT
    if tcp_log:
        script = script.replace("from ns import ns\n",
                                "from ns import ns\nns.LogComponentEnable('TcpSocketBase', ns.LOG_LEVEL_DEBUG)\n"
                                "ns.LogComponentEnableAll(ns.LOG_PREFIX_TIME)\n", 1)
    spec_file = prefix + "-spec.json"
    with open(spec_file, "w") as f:
        json.dump({**spec, "start_s": START_S, "rate_kbps": UDP_RATE_KBPS, "packet_bytes": UDP_BYTES,
                   "ns3": ns3._asdict()}, f)
    r = subprocess.run([py, "-c", script, spec_file, str(seed), prefix, str(ANCHOR_DIR)],
                       capture_output=True, text=True, check=True)
    line = next(x for x in r.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[7:]), r.stderr


def run_ns3(py: str, case: str, seed: int, duration: float, ns3: Ns3Settings) -> dict:
    spec = case_spec(case, seed, duration)
    with tempfile.TemporaryDirectory() as d:
        prefix = os.path.join(d, "aodv")
        r, _ = ns3_process(py, spec, seed, prefix, ns3)
        n = len(spec["positions"])
        r.update(from_captures([f"{prefix}-{i}-0.pcap" for i in range(n)], r.pop("macs"), r.pop("ips"), spec))
    if spec["udp"]:
        # OnOff at a constant rate: one datagram every 8 * bytes / rate from the start to `duration`.
        sent = int((duration - START_S) * UDP_RATE_KBPS * 1000 / (8 * UDP_BYTES))
        got = r["rx_bytes"] // UDP_BYTES
        r.update(sent=sent, delivery=got / sent, lost=sent - got)
    return r


# ---------------------------------------------------------------- ncmesh side


def ncmesh_readings(a: argparse.Namespace) -> dict:
    """The scenario fields the command line sets on ncmesh's side."""
    return {
        "routing.aodv.hello": a.hello,
        "routing.aodv.rreq_retries": a.rreq_retries,
        "routing.aodv.increment_seqno_on_break": not a.keep_seqno,
        "routing.aodv.rreq_revalidates_route": not a.rreq_keeps_invalid,
        "routing.aodv.control_first": not a.control_fifo,
        "tcp.rtt_sampling": "every-ack" if a.every_ack_rtt else "timed",
        "tcp.limited_transmit": a.limited_transmit,
        "tcp.sack": a.sack,
        "tcp.prr": a.prr,
    }


def run_ncmesh(case: str, seed: int, duration: float, readings: dict) -> dict:
    """One ncmesh run of `case`; `readings`: scenario fields set on top (HELLOs, and the
    readings that follow ns-3: `ncmesh_readings`)."""
    import ncmesh
    spec = case_spec(case, seed, duration)
    n = len(spec["positions"])
    sc = ncmesh.Scenario.build("chain", hops=n - 1, duration=duration)
    sc.update({
        "simulation.seed": seed,
        "simulation.measure_start_s": 10.0,
        "routing.protocol": "aodv",
        # ns-3 keeps the doubled CW after a drop at the retry limit (chain-vs-ns3 does too).
        "mac.cw_reset_after_drop": False,
        "flows.0.src": spec["src"], "flows.0.dst": spec["dst"], "flows.0.start_s": START_S,
        **readings,
    })
    for i, (x, y) in enumerate(spec["positions"]):
        sc.set(f"nodes.{i}.x", x)
        sc.set(f"nodes.{i}.y", y)
    for i, pts in spec["waypoints"].items():
        sc.set(f"nodes.{i}.waypoints", [{"t_s": t, "x": x, "y": y} for t, x, y in pts])
    if spec["udp"]:
        sc.update({"flows.0.transport": "udp", "flows.0.app": "cbr", "flows.0.rate_kbps": UDP_RATE_KBPS,
                   "flows.0.packet_bytes": UDP_BYTES})
    with tempfile.TemporaryDirectory() as d:
        r = ncmesh.run(sc, pcap_dir=d)
        macs = [f"02:00:00:00:{i >> 8 & 0xff:02x}:{i & 0xff:02x}" for i in range(n)]
        ips = [f"10.0.{i >> 8 & 0xff}.{i & 0xff}" for i in range(n)]
        out = from_captures([os.path.join(d, f"node-{i}.pcap") for i in range(n)], macs, ips, spec)
    nodes, flow = r.nodes, r.flows.iloc[0]
    out["aodv_msgs"] = int(nodes[["aodv_rreq_tx", "aodv_rrep_tx", "aodv_rerr_tx", "aodv_hello_tx"]].to_numpy().sum())
    out["rreqs"] = int(nodes["aodv_rreq_tx"].sum())
    out["goodput_kbps"] = float(flow["goodput_kbps"])
    if spec["udp"]:
        sent, got = int(flow["tx_packets"]), int(flow["rx_bytes"]) // UDP_BYTES
        out.update(sent=sent, delivery=got / sent, lost=sent - got)
    return out


MEASURES = [("goodput_kbps", "goodput kbit/s", "{:.1f}"), ("delivery", "delivery ratio", "{:.3f}"),
            ("lost", "datagrams lost", "{:.0f}"), ("aodv_msgs", "AODV msgs", "{:.0f}"), ("rreqs", "RREQs", "{:.0f}"),
            ("discovery_s", "discovery s", "{:.3f}"), ("first_packet_s", "first packet s", "{:.3f}"),
            ("repair_s", "repair s", "{:.2f}")]


def _mean(xs: list) -> float:
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    return statistics.mean(xs) if xs else math.nan


def load_ns3_rows(path: str, settings: str) -> dict:
    """ns-3's measures per (case, seed) from an earlier --out file made with `settings`;
    one line and exit 2 on a missing file, or rows of other settings."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"aodv_vs_ns3: --ns3-csv {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    out = {}
    for r in rows:
        if r.get("ns3_settings") != settings:
            print(f"aodv_vs_ns3: --ns3-csv {path}: rows made with {r.get('ns3_settings') or 'unrecorded settings'}, "
                  f"not {settings}", file=sys.stderr)
            sys.exit(2)
        try:
            out[(r["case"], int(r["seed"]))] = {k[4:]: float(v) if v not in ("", "nan") else math.nan
                                                for k, v in r.items() if k.startswith("ns3_") and k != "ns3_settings"}
        except (KeyError, TypeError, ValueError) as e:
            print(f"aodv_vs_ns3: --ns3-csv {path}: not a row of --out ({type(e).__name__}: {e})", file=sys.stderr)
            sys.exit(2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-python", help="python of a venv with `pip install ns3` (3.44); not needed with --ns3-csv")
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
    ap.add_argument("--rreq-retries", type=int, default=2,
                    help="ncmesh's RREQ_RETRIES (RFC 3561: 2 retries at NET_DIAMETER after the first RREQ "
                         "there; ns-3 sends RreqRetries = 2 RREQs at NET_DIAMETER in all, as ncmesh with 1)")
    ap.add_argument("--keep-seqno", action="store_true",
                    help="ncmesh keeps a broken route's destination sequence number, as ns-3 does "
                         "(RFC 3561 §6.11 increments it), so a neighbour may answer the rediscovery")
    ap.add_argument("--rreq-keeps-invalid", action="store_true",
                    help="a RREQ leaves an invalid reverse route invalid (RREPs still travel it), as "
                         "ns-3 3.44's RecvRequest does (RFC 3561 §6.5 and ncmesh make it valid)")
    ap.add_argument("--control-fifo", action="store_true",
                    help="AODV's messages queue behind the node's data, as in ns-3's one WifiMacQueue "
                         "without a traffic-control layer (ncmesh's default serves them first, as "
                         "ns-2's PriQueue does)")
    ap.add_argument("--every-ack-rtt", action="store_true",
                    help="ncmesh's TCP takes an RTT sample from every ACK, as ns-3's TCP without "
                         "timestamps does (ncmesh's default: one timed segment at a time, RFC 6298)")
    ap.add_argument("--limited-transmit", action="store_true",
                    help="ncmesh's TCP uses Limited Transmit (RFC 3042), as ns-3's does by default "
                         "(ncmesh's default: off); both use RFC 2582's Less Careful NewReno rule")
    ap.add_argument("--sack", action="store_true",
                    help="SACK (RFC 2018) and RFC 6675 loss recovery on both sides (ns-3's default, "
                         "which the anchor turns off; ncmesh's `tcp.sack = true`)")
    ap.add_argument("--prr", action="store_true",
                    help="Proportional Rate Reduction (RFC 6937) on both sides (ns-3's default recovery, "
                         "TcpPrrRecovery, where the anchor takes TcpClassicRecovery; ncmesh's `tcp.prr = true`)")
    ap.add_argument("--out", help="also write the rows (CSV) to this file")
    ap.add_argument("--ns3-csv", metavar="FILE",
                    help="take ns-3's side from the rows of an earlier --out (same cases, seeds and "
                         "ns-3 settings: --hello, --arp, --sack, --prr) instead of running ns-3 again; "
                         "ncmesh's flags do not change ns-3's runs")
    a = ap.parse_args()
    bad = [c for c in a.cases if c not in CASES and not (c.startswith("chain-") and c[6:].isdigit())]
    if bad:
        ap.error(f"--cases: {', '.join(bad)} not allowed: expected chain-N or one of {', '.join(CASES)}")
    if not a.ns3_python and not a.ns3_csv:
        ap.error("one of --ns3-python and --ns3-csv is required")
    problem = None if a.ns3_csv else ns3_python_problem(a.ns3_python)
    if problem:  # one line before any run, as tcp_replay_ns3.py does
        print(f"aodv_vs_ns3: {problem}", file=sys.stderr, flush=True)
        sys.exit(2)
    readings = ncmesh_readings(a)
    ns3 = Ns3Settings(a.hello, a.arp, a.sack, a.prr)
    settings = ns3.label(a.duration)
    stored = load_ns3_rows(a.ns3_csv, settings) if a.ns3_csv else None
    rows = []
    for case in a.cases:
        for seed in range(1, a.seeds + 1):
            ours = run_ncmesh(case, seed, a.duration, readings)
            if stored is None:
                theirs = run_ns3(a.ns3_python, case, seed, a.duration, ns3)
            elif (case, seed) in stored:
                theirs = stored[(case, seed)]
            else:
                print(f"aodv_vs_ns3: --ns3-csv {a.ns3_csv}: no row for {case} seed {seed}", file=sys.stderr)
                sys.exit(2)
            row = {"case": case, "seed": seed, "ns3_settings": settings}
            for k, _, _ in MEASURES:
                row[f"ncmesh_{k}"], row[f"ns3_{k}"] = ours.get(k, math.nan), theirs.get(k, math.nan)
            rows.append(row)
            print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
    print(f"\nmean of seeds 1-{a.seeds}; ncmesh / ns-3, and (ncmesh - ns-3) / ns-3 for goodput and delivery\n")
    print("| case | " + " | ".join(label for _, label, _ in MEASURES) + " |")
    print("|---|" + "---|" * len(MEASURES))
    for case in a.cases:
        rs = [r for r in rows if r["case"] == case]
        cells = []
        for k, _, fmt in MEASURES:
            m, t = _mean([r[f"ncmesh_{k}"] for r in rs]), _mean([r[f"ns3_{k}"] for r in rs])
            if math.isnan(m) and math.isnan(t):
                cells.append("-")
                continue
            cell = f"{fmt.format(m)} / {fmt.format(t)}"
            if k in ("goodput_kbps", "delivery") and t > 0:
                cell += f" ({(m - t) / t * 100:+.1f}%)"
            cells.append(cell)
        print(f"| {case} | " + " | ".join(cells) + " |")
    if a.seeds >= 3:
        from ncmesh.analysis.stats import mean_ci
        print("\ngoodput (TCP) and delivery ratio (UDP) per seed: mean ± 95% CI half-width, and the "
              "range over the seeds, ncmesh / ns-3\n")
        print("| case | ncmesh | ns-3 | ncmesh seeds | ns-3 seeds |")
        print("|---|---|---|---|---|")
        for case in a.cases:
            rs = [r for r in rows if r["case"] == case]
            k, fmt = ("delivery", "{:.3f}") if case.endswith("udp") else ("goodput_kbps", "{:.1f}")
            cells = []
            for side in ("ncmesh", "ns3"):
                m, h, _ = mean_ci([r[f"{side}_{k}"] for r in rs])
                cells.append(f"{fmt.format(m)} ± {fmt.format(h)}")
            for side in ("ncmesh", "ns3"):
                xs = [r[f"{side}_{k}"] for r in rs]
                cells.append(f"{fmt.format(min(xs))}-{fmt.format(max(xs))}")
            print(f"| {case} | " + " | ".join(cells) + " |")
    if a.out:
        with open(a.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    sys.exit(main())
