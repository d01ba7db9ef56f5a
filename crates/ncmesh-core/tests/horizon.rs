//! Whole-run checks of Horizon (Radunović et al.; CoMP's multipath baseline) under TCP
//! NewReno: on the diamond (3 relays, 3 reinforced paths) and on `roofnet-like` pairs,
//! the node ledger balances, runs are deterministic, packets spread over more than one
//! relay and TCP gets goodput.

use ncmesh_core::scenario::{build, BuildOptions};
use ncmesh_core::sim::run;

use crate::common::{at, diamond, relay_frames, roofnet, total};

#[test]
fn horizon_spreads_tcp_over_the_diamonds_relays() {
    for loss in [0.0, 0.1] {
        let s = diamond("horizon", loss, 20.0);
        let r = run(&s).unwrap();
        let what = format!("loss {loss}");
        assert!(r.conservation.balanced, "{what}: {:?}", r.conservation);
        // (No MAC retries in CoMP's set-up: every collision and link loss reaches TCP.)
        let floor = if loss == 0.0 { 50.0 } else { 1.0 };
        assert!(
            r.flows[0].goodput_kbps > floor,
            "{what}: goodput {}",
            r.flows[0].goodput_kbps
        );
        // Every relay forwards a real share of the packets.
        let sent: Vec<u64> = (1..=3).map(|i| at(&r, i, "hz_sent")).collect();
        let all: u64 = sent.iter().sum();
        assert!(
            sent.iter().all(|&n| n * 10 > all),
            "{what}: relays sent {sent:?}"
        );
        assert!(at(&r, 0, "hz_sent_other") > 0, "{what}");
        // TCP's ACKs go back over the reverse paths, spread too: the destination sends
        // only ACKs, and not all to one relay.
        let acks = at(&r, 4, "hz_sent");
        assert!(acks > 0 && at(&r, 4, "hz_sent_other") > 0, "{what}");
        assert_eq!(
            at(&r, 4, "hz_sent"),
            r.nodes[4].mac_data_frames_sent,
            "{what}"
        );
        // Advertisements are heard; the destination reorders.
        assert!(total(&r, "hz_adverts_heard") > 0, "{what}");
        assert!(at(&r, 4, "hz_reorder_held") > 0, "{what}");
    }
}

#[test]
fn horizon_runs_are_deterministic() {
    let s = diamond("horizon", 0.1, 10.0);
    let (a, b) = (run(&s).unwrap(), run(&s).unwrap());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.events, b.events);
    for name in ["hz_sent", "hz_reorder_held", "hz_window_drops"] {
        assert_eq!(total(&a, name), total(&b, name), "{name}");
    }
}

#[test]
fn horizon_on_a_roofnet_like_pair() {
    // Pair 0 of the default layout's list (2 hops; d = 2 paths, the kind's default).
    let s = roofnet("horizon", 0, 20.0);
    let r = run(&s).unwrap();
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    assert!(r.flows[0].goodput_kbps > 0.0);
    let relays = relay_frames(&r, &s);
    assert!(relays.len() > 1, "more than one relay forwards: {relays:?}");
    let again = run(&s).unwrap();
    assert_eq!(r.flows, again.flows);
    // Two concurrent flows (CoMP's Fig. 4 set-up) share the nodes' queues.
    let o = BuildOptions::new().with("pair", 0u64).with("flows", 2u64);
    let mut two = build("roofnet-like", &o).unwrap();
    two.simulation.duration_s = 20.0;
    two.simulation.measure_start_s = 1.0;
    two.scheme.name = "horizon".into();
    let r = run(&two).unwrap();
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    assert!(r.flows.iter().any(|f| f.goodput_kbps > 0.0));
}
