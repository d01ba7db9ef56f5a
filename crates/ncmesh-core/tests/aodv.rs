//! AODV (`routing.protocol = "aodv"`, RFC 3561) in whole runs: TCP over a chain with
//! control packets on the air and in the ledger, determinism, recovery when the only
//! path breaks and another exists, control overhead counted, the captures, and the
//! combinations AODV refuses.

use ncmesh_core::metrics::RunResult;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, validate, BuildOptions};
use ncmesh_core::sim::{pcap, run, Sim};

fn aodv(mut s: Scenario) -> Scenario {
    s.routing.protocol = RoutingProtocol::Aodv;
    s
}

fn chain(hops: u64) -> Scenario {
    let mut s = build("chain", &BuildOptions::new().with("hops", hops)).unwrap();
    s.simulation.duration_s = 20.0;
    s.simulation.measure_start_s = 2.0;
    s
}

fn strip_wall(mut r: RunResult) -> RunResult {
    r.wall_time_s = 0.0;
    r
}

fn control(r: &RunResult) -> u64 {
    r.nodes
        .iter()
        .map(|n| n.aodv_rreq_tx + n.aodv_rrep_tx + n.aodv_rerr_tx + n.aodv_hello_tx)
        .sum()
}

#[test]
fn a_chain_carries_tcp_over_discovered_routes_with_every_packet_accounted_for() {
    let st = run(&chain(4)).unwrap();
    let r = run(&aodv(chain(4))).unwrap();
    let c = &r.conservation;
    assert!(c.balanced, "{c:?}");
    assert_eq!(
        c.originated + c.received_from_mac,
        c.delivered + c.handed_over + c.dropped + c.held_at_end
    );
    let f = &r.flows[0];
    assert_eq!(f.path, vec![0, 1, 2, 3, 4], "the route AODV found");
    // The route is found by the expanding ring's third RREQ (TTL 5, sent at 640 ms).
    // Every unicast the MAC gives up on (hidden-terminal collisions on the chain: the
    // static run has them too) breaks the route and costs a RERR and a new discovery,
    // as in ns-2's and ns-3's AODV: the goodput is below the oracle's, never above.
    let breaks: u64 = r.nodes.iter().map(|n| n.aodv_route_breaks).sum();
    let retry: u64 = r.nodes.iter().map(|n| n.drops_retry_limit).sum();
    assert!(
        breaks >= 1 && breaks <= retry,
        "{breaks} breaks, {retry} retry drops"
    );
    assert!(
        f.goodput_kbps > 0.5 * st.flows[0].goodput_kbps
            && f.goodput_kbps < 1.05 * st.flows[0].goodput_kbps,
        "AODV {} vs static {} kbit/s",
        f.goodput_kbps,
        st.flows[0].goodput_kbps
    );
    let src = &r.nodes[0];
    assert!(
        src.aodv_discoveries >= 1 && src.aodv_rreq_tx >= 3,
        "{src:?}"
    );
    assert_eq!(r.nodes[4].aodv_rrep_tx.min(1), 1, "the destination replied");
    assert!(r.nodes.iter().all(|n| n.drops_discovery == 0));
    // Under static routing nothing of AODV counts.
    assert_eq!(control(&st), 0);
    assert!(st.nodes.iter().all(|n| n.aodv_discoveries == 0));
}

#[test]
fn control_packets_are_originated_packets_of_the_ledger() {
    // Without a flow coder, the network's originated packets are the TCP segments, the
    // TCP ACKs and AODV's messages: nothing else.
    let r = run(&aodv(chain(3))).unwrap();
    let f = &r.flows[0];
    let ctl = control(&r);
    assert!(ctl > 0);
    assert_eq!(r.conservation.originated, f.tx_packets + f.acks_sent + ctl);
    // Each message is a frame on the air: the MAC sent at least that many data frames
    // beyond the TCP ones.
    let st = run(&chain(3)).unwrap();
    assert!(r.conservation.originated > st.conservation.originated - 1000);
}

#[test]
fn same_seed_same_run() {
    let s = aodv(chain(4));
    let a = strip_wall(run(&s).unwrap());
    let b = strip_wall(run(&s).unwrap());
    assert_eq!(a, b);
    let mut s2 = s.clone();
    s2.simulation.seed = 2;
    assert_ne!(a.events, strip_wall(run(&s2).unwrap()).events);
}

/// The two-path topology, with path 1's relay (node 1) walking out of range at 10-12 s.
fn two_path_relay_leaves() -> Scenario {
    let mut s = super::common::two_path_relay_leaves();
    s.simulation.duration_s = 30.0;
    s.simulation.measure_start_s = 2.0;
    s.routing.follow_mobility = false;
    s
}

#[test]
fn a_flow_recovers_when_its_only_path_breaks_and_another_exists() {
    let goodput_after = |r: &RunResult, t: f64| -> f64 {
        r.flow_series
            .iter()
            .filter(|x| x.t_s > t)
            .map(|x| x.goodput_kbps)
            .sum()
    };
    // Static routes kept from the start lead to the relay that left: the flow stops.
    let kept = run(&two_path_relay_leaves()).unwrap();
    assert_eq!(goodput_after(&kept, 15.0), 0.0);
    // AODV: the MAC's retry limit towards node 1 breaks the route, the RERR and a new
    // discovery find the path through node 2.
    let r = run(&aodv(two_path_relay_leaves())).unwrap();
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    let late = goodput_after(&r, 15.0);
    assert!(late > 1000.0, "recovered through node 2: {late}");
    assert_eq!(r.flows[0].path, vec![0, 2, 3]);
    let breaks: u64 = r.nodes.iter().map(|n| n.aodv_route_breaks).sum();
    assert!(breaks >= 1, "a link break was detected");
    let discoveries: u64 = r.nodes.iter().map(|n| n.aodv_discoveries).sum();
    assert!(
        discoveries >= 2,
        "the first route and the new one: {discoveries}"
    );
    assert!(r.nodes[1].x == 200.0 && r.nodes[1].y == 600.0);
}

#[test]
fn aodv_messages_are_captured_as_udp_654_and_tshark_reads_them_as_aodv() {
    let s = aodv(chain(2));
    let dir = std::env::temp_dir().join(format!("ncmesh-aodv-pcap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut short = s.clone();
    short.simulation.duration_s = 3.0;
    short.simulation.measure_start_s = 0.0;
    pcap::run_with_pcaps(&short, &dir).unwrap();
    let path = pcap::pcap_path(&dir, 0);
    let bytes = std::fs::read(&path).unwrap();
    // UDP source and destination port 654 (0x028e), then an RREQ (type 1).
    let udp = [0x02, 0x8e, 0x02, 0x8e];
    let at = bytes
        .windows(4)
        .position(|w| w == udp)
        .expect("an AODV datagram in node 0's capture");
    assert_eq!(bytes[at + 8], 1, "node 0's first AODV message is its RREQ");
    // tshark, when installed, must decode them as AODV.
    if let Ok(out) = std::process::Command::new("tshark")
        .args([
            "-r",
            path.to_str().unwrap(),
            "-Y",
            "aodv",
            "-T",
            "fields",
            "-e",
            "aodv.type",
        ])
        .output()
    {
        if out.status.success() {
            let text = String::from_utf8_lossy(&out.stdout);
            let types: Vec<&str> = text.lines().collect();
            assert!(types.contains(&"1"), "tshark saw RREQs: {types:?}");
            assert!(types.contains(&"2"), "tshark saw RREPs: {types:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn combinations_aodv_cannot_serve_are_refused_with_one_line() {
    let mut s = aodv(chain(2));
    s.routing.paths = 2;
    let e = validate(&s).unwrap_err().to_string();
    assert!(e.contains("routing.paths") && e.contains("aodv"), "{e}");
    assert!(!e.contains('\n'));
    let mut s = aodv(chain(2));
    s.scheme.name = "more".into();
    let e = validate(&s).unwrap_err().to_string();
    assert!(e.contains("routing.protocol") && e.contains("MORE"), "{e}");
    let mut s = aodv(chain(2));
    s.flows[0].route = Some(vec![0, 1, 2]);
    let e = validate(&s).unwrap_err().to_string();
    assert!(e.contains("flows[0].route"), "{e}");
    let mut s = aodv(chain(2));
    s.routing.aodv.ttl_start = 0;
    let e = validate(&s).unwrap_err().to_string();
    assert!(
        e.contains("routing.aodv.ttl_start") && e.contains("[1, 255]"),
        "{e}"
    );
    let mut s = aodv(chain(2));
    s.scheme.name = "comp".into();
    let e = validate(&s).unwrap_err().to_string();
    assert!(
        e.contains("routing.protocol") && e.contains("overhears"),
        "{e}"
    );
    // A scheme that only queues and codes what it is given runs over AODV.
    let mut s = aodv(chain(2));
    s.scheme.name = "none".into();
    assert!(Sim::new(&s).is_ok());
}

#[test]
fn schemes_that_ask_their_own_nodes_routes_run_over_aodv() {
    // Wait-time insertion (its wait from the hops to both ends of the flow), adaptive
    // ComboCoding (loss reports matched to the next hops back to the source), Horizon
    // (candidate next hops with costs) and TCP-ARQ (R from the routing's path estimate,
    // which AODV does not have) read the routes of their own node: under AODV, its table.
    for (name, set) in [
        ("waittime", ""),
        ("combocoding", "adaptive"),
        ("horizon", ""),
        ("tcp-nc", "prior"),
    ] {
        let mut s = aodv(chain(3));
        s.scheme.name = name.into();
        match set {
            "adaptive" => s.scheme.pipeline.adaptive = true,
            "prior" => {
                s.scheme.tcpnc.prior = ncmesh_core::coding::loss_estimate::LossPrior::Routing
            }
            _ => {}
        }
        validate(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = run(&s).unwrap();
        let c = &r.conservation;
        assert!(c.balanced, "{name}: {c:?}");
        assert_eq!(
            r.flows[0].path,
            vec![0, 1, 2, 3],
            "{name}: the route AODV found"
        );
        assert!(
            r.flows[0].goodput_kbps > 50.0,
            "{name}: {} kbit/s",
            r.flows[0].goodput_kbps
        );
        assert!(r.nodes[0].aodv_discoveries >= 1, "{name}");
    }
}

#[test]
fn hellos_and_local_repair_run_with_every_packet_accounted_for() {
    let mut s = aodv(two_path_relay_leaves());
    s.routing.aodv.hello = true;
    s.routing.aodv.local_repair = true;
    let r = run(&s).unwrap();
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    // §6.9: nodes on an active route that broadcast nothing for a second send HELLOs.
    let hellos: u64 = r.nodes.iter().map(|n| n.aodv_hello_tx).sum();
    assert!(hellos >= 20, "{hellos} HELLOs in 30 s");
    assert!(r.flows[0].goodput_kbps > 0.0);
    assert_eq!(
        r.flows[0].path,
        vec![0, 2, 3],
        "the flow ends on the path that stayed"
    );
    let a = strip_wall(run(&s).unwrap());
    assert_eq!(
        a,
        strip_wall(r),
        "deterministic with HELLOs and repairs too"
    );
}

#[test]
fn a_rerr_queued_behind_data_lets_packets_for_the_broken_route_arrive_and_drop() {
    // `control_first = false` (ns-3 3.44's one WifiMacQueue without traffic control):
    // a relay's RERR waits behind the data it has queued, so its upstream neighbour
    // keeps forwarding packets for the route that broke, and the relay drops them for
    // want of a route (RFC 3561 §6.11 case (ii), each with a RERR of its own). Served
    // first (ns-2's PriQueue, the default), the RERR stops them one hop away.
    let first = run(&aodv(chain(4))).unwrap();
    let mut s = aodv(chain(4));
    s.routing.aodv.control_first = false;
    let fifo = run(&s).unwrap();
    assert!(fifo.conservation.balanced, "{:?}", fifo.conservation);
    let no_route = |r: &RunResult| r.nodes.iter().map(|n| n.drops_no_route).sum::<u64>();
    let rerrs = |r: &RunResult| r.nodes.iter().map(|n| n.aodv_rerr_tx).sum::<u64>();
    assert_eq!(no_route(&first), 0);
    assert!(no_route(&fifo) >= 10, "{} no-route drops", no_route(&fifo));
    assert!(
        rerrs(&fifo) > rerrs(&first),
        "{} against {}",
        rerrs(&fifo),
        rerrs(&first)
    );
}
