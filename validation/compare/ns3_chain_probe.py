#!/usr/bin/env python3
"""The ns-3 anchor's chain (chain_tcp.py --topo chain; the anchor is not part of this repository) with extra counters.

A trimmed copy of the anchor (same TCP, MAC, PHY and channel settings; chain topology only;
--per and --qdisc default/--arp dynamic left out) that additionally records, per node:

  signal_arrivals       YansWifiPhy "SignalArrival": every PPDU that reaches the PHY's channel
                        endpoint, before YansWifiChannel::Receive compares it with RxSensitivity
  weak_arrivals         of those, the ones below RxSensitivity + 10 log10(22/20) dB (DSSS width),
                        which YansWifiChannel::Receive discards before the PHY sees them
  rx_begin, rx_end      WifiPhy PhyRxBegin / PhyRxEnd (frames the PHY synchronised to / received)
  rx_drop_<REASON>      WifiPhy PhyRxDrop by WifiPhyRxfailureReason
  tx_begin              WifiPhy PhyTxBegin (every frame sent: data, MAC ACK)
  t_<STATE>_s           time in each WifiPhyState (IDLE, CCA_BUSY, TX, RX) from the state trace
  mac_tx_data_failed    WifiRemoteStationManager MacTxDataFailed (a data frame got no ACK)
  mac_tx_final_failed   MacTxFinalDataFailed (dropped at the retry limit)
  dropped_mpdu_<REASON> WifiMac DroppedMpdu by WifiMacDropReason (queue overflow, retry limit...)

for the TCP flow: entries into CA_LOSS (retransmission timeouts) and CA_RECOVERY (fast
retransmits), the largest RTO, and the goodput of every simulated second at the sink;
and, per pair of nodes two hops apart (i, i+2), how many of their transmissions overlap in
time (`overlaps_2hop`: a transmission of one starts while the other is transmitting).

Extra options beyond the anchor's:
  --phy yans|spectrum   spectrum: SpectrumWifiPhy on a MultiModelSpectrumChannel with the same
                        loss model. Unlike YansWifiChannel, SpectrumWifiPhy adds signals below
                        RxSensitivity to the interference and to CCA (energy detection), so
                        the 550 m CcaSensitivity/CcaEdThreshold take effect.
  --rxsens-dbm X        override WifiPhy::RxSensitivity (tworay only)
  --json FILE           write the counters (and the goodput) as JSON

Run with the ns-3 venv, e.g.
  /work/ns3-venv/bin/python validation/compare/ns3_chain_probe.py --hops 2 --prop tworay --json out.json
"""
import argparse
import json
import math
import time

from ns import ns  # noqa: E402

import ns3_anchor  # noqa: E402  (beside this script)
import cppyy  # noqa: E402

cppyy.cppdef(r"""
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"
#include <map>
#include <vector>
#include <string>
namespace probe {
struct Node {
  uint64_t signal_arrivals = 0, weak_arrivals = 0, rx_begin = 0, rx_end = 0, tx_begin = 0;
  uint64_t tx_data_failed = 0, tx_final_failed = 0;
  std::map<int, uint64_t> rx_drop, dropped_mpdu;
  std::map<int, double> state_s;
  std::vector<double> tx_start, tx_end;
};
std::vector<Node> nodes;
double weak_dbm = -1e9;

int Id(const std::string& ctx) {
  auto a = ctx.find("/NodeList/") + 10;
  return std::stoi(ctx.substr(a, ctx.find('/', a) - a));
}
void SignalArrival(std::string ctx, ns3::Ptr<const ns3::WifiPpdu>, double dbm, ns3::Time) {
  auto& n = nodes[Id(ctx)];
  n.signal_arrivals++;
  if (dbm < weak_dbm) n.weak_arrivals++;
}
void RxBegin(std::string ctx, ns3::Ptr<const ns3::Packet>, ns3::RxPowerWattPerChannelBand) { nodes[Id(ctx)].rx_begin++; }
void RxEnd(std::string ctx, ns3::Ptr<const ns3::Packet>) { nodes[Id(ctx)].rx_end++; }
void RxDrop(std::string ctx, ns3::Ptr<const ns3::Packet>, ns3::WifiPhyRxfailureReason r) { nodes[Id(ctx)].rx_drop[int(r)]++; }
void TxBegin(std::string ctx, ns3::Ptr<const ns3::Packet>, double) { nodes[Id(ctx)].tx_begin++; }
void State(std::string ctx, ns3::Time start, ns3::Time dur, ns3::WifiPhyState s) {
  auto& n = nodes[Id(ctx)];
  n.state_s[int(s)] += dur.GetSeconds();
  if (s == ns3::WifiPhyState::TX) {
    n.tx_start.push_back(start.GetSeconds());
    n.tx_end.push_back((start + dur).GetSeconds());
  }
}
void DataFailed(std::string ctx, ns3::Mac48Address) { nodes[Id(ctx)].tx_data_failed++; }
void FinalFailed(std::string ctx, ns3::Mac48Address) { nodes[Id(ctx)].tx_final_failed++; }
void Dropped(std::string ctx, ns3::WifiMacDropReason r, ns3::Ptr<const ns3::WifiMpdu>) { nodes[Id(ctx)].dropped_mpdu[int(r)]++; }

// TCP sender (node 0) and sink: congestion-state entries, RTO values, bytes per second at the sink
uint64_t loss_entries = 0, recovery_entries = 0;
double max_rto_s = 0;
std::vector<double> rx_bins;
void CongState(ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t now) {
  if (now == ns3::TcpSocketState::CA_LOSS) loss_entries++;
  if (now == ns3::TcpSocketState::CA_RECOVERY) recovery_entries++;
}
void Rto(ns3::Time, ns3::Time now) { if (now.GetSeconds() > max_rto_s) max_rto_s = now.GetSeconds(); }
void SinkRx(ns3::Ptr<const ns3::Packet> p, const ns3::Address&) {
  size_t b = size_t(ns3::Simulator::Now().GetSeconds());
  if (b >= rx_bins.size()) rx_bins.resize(b + 1, 0.0);
  rx_bins[b] += p->GetSize();
}
void ConnectTcp(int sink) {
  using namespace ns3;
  Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/CongState", MakeCallback(&CongState));
  Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/RTO", MakeCallback(&Rto));
  Config::ConnectWithoutContext("/NodeList/" + std::to_string(sink) + "/ApplicationList/0/$ns3::PacketSink/Rx",
                                MakeCallback(&SinkRx));
}
void ScheduleConnectTcp(double t, int sink) { ns3::Simulator::Schedule(ns3::Seconds(t), &ConnectTcp, sink); }

void Connect(int n, bool yans) {
  using namespace ns3;
  nodes.assign(n, Node());
  std::string d = "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/";
  if (yans) Config::Connect(d + "Phy/$ns3::YansWifiPhy/SignalArrival", MakeCallback(&SignalArrival));
  Config::Connect(d + "Phy/PhyRxBegin", MakeCallback(&RxBegin));
  Config::Connect(d + "Phy/PhyRxEnd", MakeCallback(&RxEnd));
  Config::Connect(d + "Phy/PhyRxDrop", MakeCallback(&RxDrop));
  Config::Connect(d + "Phy/PhyTxBegin", MakeCallback(&TxBegin));
  Config::Connect(d + "Phy/State/State", MakeCallback(&State));
  Config::Connect(d + "RemoteStationManager/MacTxDataFailed", MakeCallback(&DataFailed));
  Config::Connect(d + "RemoteStationManager/MacTxFinalDataFailed", MakeCallback(&FinalFailed));
  Config::Connect(d + "Mac/DroppedMpdu", MakeCallback(&Dropped));
}
}
""")

W_TO_DBM = lambda w: 10.0 * math.log10(w) + 30.0  # noqa: E731
NS2_PT_W = 0.28183815
NS2_RXTHRESH_W = 3.652e-10
NS2_CSTHRESH_W = 1.559e-11
STATES = {0: "IDLE", 1: "CCA_BUSY", 2: "TX", 3: "RX", 4: "SWITCHING", 5: "SLEEP", 6: "OFF"}
# WifiPhyRxfailureReason and WifiMacDropReason as declared in the 3.44 headers
# (wifi-phy-common.h, wifi-mac.h)
RX_REASONS = ["UNKNOWN", "UNSUPPORTED_SETTINGS", "CHANNEL_SWITCHING", "RXING", "TXING", "SLEEPING",
              "POWERED_OFF", "TRUNCATED_TX", "BUSY_DECODING_PREAMBLE", "PREAMBLE_DETECT_FAILURE",
              "RECEPTION_ABORTED_BY_TX", "L_SIG_FAILURE", "HT_SIG_FAILURE", "SIG_A_FAILURE",
              "SIG_B_FAILURE", "U_SIG_FAILURE", "EHT_SIG_FAILURE", "PREAMBLE_DETECTION_PACKET_SWITCH",
              "FRAME_CAPTURE_PACKET_SWITCH", "OBSS_PD_CCA_RESET", "PPDU_TOO_LATE", "FILTERED",
              "DMG_HEADER_FAILURE", "DMG_ALLOCATION_ENDED", "SIGNAL_DETECTION_ABORTED_BY_TX"]
MAC_DROP = {0: "FAILED_ENQUEUE", 1: "EXPIRED_LIFETIME", 2: "REACHED_RETRY_LIMIT", 3: "QOS_OLD_PACKET"}


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hops", type=int, default=2)
    ap.add_argument("--dist", type=float, default=200.0)
    ap.add_argument("--prop", choices=["range", "tworay"], default="tworay")
    ap.add_argument("--phy", choices=["yans", "spectrum"], default="yans")
    ap.add_argument("--rxsens-dbm", type=float, default=None)
    ap.add_argument("--spectrum-channel", default="", help="WifiPhy::ChannelSettings for --phy spectrum")
    ap.add_argument("--delack", type=int, default=2)
    ap.add_argument("--simtime", type=float, default=60.0)
    ap.add_argument("--tmeas", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--run", type=int, default=1)
    ap.add_argument("--json", default="")
    return ap.parse_args()


def main():
    a = parse()
    ns.RngSeedManager.SetSeed(a.seed)
    ns.RngSeedManager.SetRun(a.run)
    ns3_anchor.set_defaults(ns, a.delack)

    n = a.hops + 1
    nodes = ns.NodeContainer()
    nodes.Create(n)
    alloc = ns.CreateObject[ns.ListPositionAllocator]()
    for i in range(n):
        alloc.Add(ns.Vector(i * a.dist, 0.0, 0.0))
    mob = ns.MobilityHelper()
    mob.SetPositionAllocator(alloc)
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mob.Install(nodes)

    if a.prop == "range":
        loss = ns.CreateObject[ns.RangePropagationLossModel]()
        loss.SetAttribute("MaxRange", ns.DoubleValue(250.0))
    else:
        loss = ns.CreateObject[ns.TwoRayGroundPropagationLossModel]()
        loss.SetAttribute("Frequency", ns.DoubleValue(914e6))
        loss.SetAttribute("HeightAboveZ", ns.DoubleValue(1.5))
        loss.SetAttribute("SystemLoss", ns.DoubleValue(1.0))
    delay = ns.CreateObject[ns.ConstantSpeedPropagationDelayModel]()
    if a.phy == "yans":
        phy = ns.YansWifiPhyHelper()
        chan = ns.CreateObject[ns.YansWifiChannel]()
        chan.SetPropagationLossModel(loss)
        chan.SetPropagationDelayModel(delay)
        phy.SetChannel(chan)
    else:
        phy = ns.SpectrumWifiPhyHelper()
        chan = ns.CreateObject[ns.MultiModelSpectrumChannel]()
        chan.AddPropagationLossModel(loss)
        chan.SetPropagationDelayModel(delay)
        phy.SetChannel(chan)
        if a.spectrum_channel:
            phy.Set("ChannelSettings", ns.StringValue(a.spectrum_channel))
    rxsens = None
    if a.prop == "tworay":
        pt = W_TO_DBM(NS2_PT_W)
        rxsens = a.rxsens_dbm if a.rxsens_dbm is not None else W_TO_DBM(NS2_RXTHRESH_W)
        phy.Set("TxPowerStart", ns.DoubleValue(pt))
        phy.Set("TxPowerEnd", ns.DoubleValue(pt))
        phy.Set("RxSensitivity", ns.DoubleValue(rxsens))
        phy.Set("CcaEdThreshold", ns.DoubleValue(W_TO_DBM(NS2_CSTHRESH_W)))
        phy.Set("CcaSensitivity", ns.DoubleValue(W_TO_DBM(NS2_CSTHRESH_W)))
        phy.DisablePreambleDetectionModel()

    devs, macs = ns3_anchor.install_wifi(ns, phy, nodes, n)

    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    ifs = addr.Assign(devs)
    ns.TrafficControlHelper().Uninstall(devs)
    ip = [ifs.GetAddress(i) for i in range(n)]
    ns.NeighborCacheHelper().PopulateNeighborCache()
    srh = ns.Ipv4StaticRoutingHelper()
    for i in range(n):
        r = srh.GetStaticRouting(nodes.Get(i).GetObject[ns.Ipv4]())
        for j in range(n):
            if abs(j - i) > 1:
                r.AddHostRouteTo(ip[j], ip[i + 1 if j > i else i - 1], 1)

    sh = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9000).ConvertTo())
    sapp = sh.Install(nodes.Get(n - 1))
    sapp.Start(ns.Seconds(0.0))
    sapp.Stop(ns.Seconds(a.simtime + 1))
    sink = ns.DynamicCast[ns.PacketSink](sapp.Get(0))
    bh = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ip[n - 1], 9000).ConvertTo())
    bh.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bh.SetAttribute("SendSize", ns.UintegerValue(1000))
    bapp = bh.Install(nodes.Get(0))
    bapp.Start(ns.Seconds(1.0))
    bapp.Stop(ns.Seconds(a.simtime + 1))

    P = cppyy.gbl.probe
    if rxsens is not None:
        P.weak_dbm = rxsens + 10.0 * math.log10(22.0 / 20.0)
    P.Connect(n, a.phy == "yans")
    P.ScheduleConnectTcp(1.0 + 1e-6, n - 1)  # the BulkSend socket exists once the app has started

    w0 = time.perf_counter()
    ns.Simulator.Stop(ns.Seconds(a.tmeas))
    ns.Simulator.Run()
    rx0 = sink.GetTotalRx()
    ns.Simulator.Stop(ns.Seconds(a.simtime - a.tmeas))
    ns.Simulator.Run()
    rx1 = sink.GetTotalRx()
    wall = time.perf_counter() - w0
    goodput = (rx1 - rx0) * 8 / (a.simtime - a.tmeas) / 1e3

    per_node = []
    for i in range(n):
        c = P.nodes[i]
        d = {"node": i, "signal_arrivals": int(c.signal_arrivals), "weak_arrivals": int(c.weak_arrivals),
             "rx_begin": int(c.rx_begin), "rx_end": int(c.rx_end), "tx_begin": int(c.tx_begin),
             "mac_tx_data_failed": int(c.tx_data_failed), "mac_tx_final_failed": int(c.tx_final_failed)}
        for k, v in c.rx_drop:
            d[f"rx_drop_{RX_REASONS[k] if k < len(RX_REASONS) else k}"] = int(v)
        for k, v in c.dropped_mpdu:
            d[f"dropped_mpdu_{MAC_DROP.get(k, k)}"] = int(v)
        for k, v in c.state_s:
            d[f"t_{STATES.get(k, k)}_s"] = round(float(v), 4)
        per_node.append(d)
    overlaps = {}
    for i in range(n - 2):
        A = sorted(zip(P.nodes[i].tx_start, P.nodes[i].tx_end))
        B = sorted(zip(P.nodes[i + 2].tx_start, P.nodes[i + 2].tx_end))
        cnt, j = 0, 0
        # transmissions of i+2 that start while i transmits, and vice versa
        for (s, e) in B:
            while j < len(A) and A[j][1] <= s:
                j += 1
            if j < len(A) and A[j][0] <= s < A[j][1]:
                cnt += 1
        j = 0
        for (s, e) in A:
            while j < len(B) and B[j][1] <= s:
                j += 1
            if j < len(B) and B[j][0] <= s < B[j][1]:
                cnt += 1
        overlaps[f"{i}-{i + 2}"] = cnt
    out = {"hops": a.hops, "prop": a.prop, "phy": a.phy, "rxsens_dbm": rxsens, "seed": a.seed, "run": a.run,
           "delack": a.delack, "goodput_kbps": round(goodput, 2), "wall_s": round(wall, 2),
           "overlaps_2hop": overlaps,
           "tcp": {"ca_loss_entries": int(P.loss_entries), "ca_recovery_entries": int(P.recovery_entries),
                   "max_rto_s": round(float(P.max_rto_s), 3),
                   "goodput_per_s_kbps": [round(float(b) * 8 / 1e3, 1) for b in P.rx_bins]},
           "nodes": per_node}
    ns.Simulator.Destroy()
    print(json.dumps(out))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
