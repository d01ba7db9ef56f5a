"""The ns-3 anchor's settings, shared by the ns-3 scripts that rebuild its set-up
(`ns3_chain_probe.py`, `benchmarks/aodv_vs_ns3.py`): TCP NewReno with classic recovery,
1000-byte segments, 128 KiB buffers, no SACK, timestamps or window scaling; 50-packet
Wi-Fi queues and 7 retries; 802.11b at 2 Mbit/s with control frames and broadcasts at
1 Mbit/s, RTS/CTS off, and every station's rates known from the start. Imported with the
ns-3 venv's Python (`from ns import ns` by the caller, passed in)."""


def set_defaults(ns, delack: int = 2) -> None:
    """The anchor's TCP and Wi-Fi queue defaults (delayed ACK every `delack` segments)."""
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpClassicRecovery"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1000))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(delack))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(131072))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(131072))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.QueueSizeValue(ns.QueueSize("50p")))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(1000.0)))
    ns.Config.SetDefault("ns3::WifiMac::FrameRetryLimit", ns.UintegerValue(7))


def install_wifi(ns, phy, nodes, n: int):
    """The anchor's ad hoc 802.11b devices on `phy` for the first `n` nodes: data at 2 Mbit/s,
    MAC ACKs and broadcasts at 1 Mbit/s (--ackrate 1), RTS/CTS off. Returns (devices, MAC
    addresses)."""
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211b)
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", ns.StringValue("DsssRate2Mbps"),
                                 "ControlMode", ns.StringValue("DsssRate1Mbps"),
                                 "NonUnicastMode", ns.StringValue("DsssRate1Mbps"),
                                 "RtsCtsThreshold", ns.UintegerValue(65535))
    mac = ns.WifiMacHelper()
    mac.SetType("ns3::AdhocWifiMac")
    devs = wifi.Install(phy, mac, nodes)
    macs = [ns.Mac48Address.ConvertFrom(devs.Get(j).GetAddress()) for j in range(n)]
    for i in range(n):
        rsm = devs.Get(i).GetObject[ns.WifiNetDevice]().GetRemoteStationManager()
        rsm.Reset()
        rsm.AddBasicMode(ns.WifiMode("DsssRate1Mbps"))
        for j in range(n):
            if j == i:
                continue
            for m in ("DsssRate1Mbps", "DsssRate2Mbps"):
                rsm.AddSupportedMode(macs[j], ns.WifiMode(m))
            rsm.RecordDisassociated(macs[j])
    return devs, macs
