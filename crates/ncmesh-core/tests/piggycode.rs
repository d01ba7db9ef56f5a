//! Whole-run checks of DATA/ACK coding (PiggyCode, wait-time insertion, configured wait)
//! on Takimoto et al.'s chains: decodability of real payload bytes, conservation under
//! loss, the wait bound, and plain PiggyCode as the zero wait.

use ncmesh_core::coding::piggycode::Placement;
use ncmesh_core::metrics::RunResult;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, BuildOptions};
use ncmesh_core::sim::run;

use crate::common::total;

/// Takimoto et al. Table I: 200 m chain, 250 m range (ns-2's two-ray thresholds: carrier
/// sense and interference at 550 m), 2 / 1 Mbit/s, RTS/CTS off, NewReno without delayed
/// ACKs, 1024-byte packets written at `kbps` into TCP.
fn chain(hops: u64, scheme: &str, kbps: f64, secs: f64) -> Scenario {
    let mut s = build(
        "chain",
        &BuildOptions::new()
            .with("hops", hops)
            .with("spacing", 200.0),
    )
    .unwrap();
    s.mac.data_rate_mbps = 2.0;
    s.mac.basic_rate_mbps = 1.0;
    s.channel.cs_range_m = 550.0;
    s.channel.interference_range_m = 550.0;
    s.tcp.delayed_ack = false;
    s.tcp.sack = false;
    s.tcp.mss_bytes = 1024;
    let f = &mut s.flows[0];
    f.app = AppKind::Cbr;
    f.packet_bytes = 1024;
    f.rate_kbps = Some(kbps);
    s.simulation.duration_s = secs;
    s.simulation.measure_start_s = 1.0;
    s.simulation.payload_bytes = true;
    s.scheme.name = scheme.to_string();
    s
}

/// No DATA waited longer than `limit_us` at any node.
fn waits_within(r: &RunResult, limit_us: u64) -> bool {
    r.nodes
        .iter()
        .all(|n| n.counter("piggy_wait_us_max") <= limit_us)
}

fn check_clean(r: &RunResult, what: &str) {
    assert!(r.conservation.balanced, "{what}: {:?}", r.conservation);
    assert_eq!(r.flows[0].payload_errors, 0, "{what}: payload bytes differ");
    assert_eq!(total(r, "piggy_decode_failures"), 0, "{what}");
}

#[test]
fn coded_runs_deliver_the_original_bytes_and_balance() {
    for hops in [2, 3, 4] {
        for scheme in ["piggycode", "waittime"] {
            let r = run(&chain(hops, scheme, 800.0, 40.0)).unwrap();
            let what = format!("{hops} hops, {scheme}");
            check_clean(&r, &what);
            assert!(r.flows[0].goodput_kbps > 100.0, "{what}: {:?}", r.flows[0]);
            assert!(total(&r, "piggy_data_coded") > 50, "{what}: relays code");
            assert_eq!(
                total(&r, "piggy_data_coded"),
                total(&r, "piggy_ack_coded"),
                "{what}: one DATA with one ACK"
            );
            // End hosts never code.
            let ends = [0, hops as usize];
            for e in ends {
                assert_eq!(r.nodes[e].counter("piggy_data_coded"), 0, "{what}");
            }
        }
    }
}

#[test]
fn waits_stay_within_the_wait_time_and_raise_the_coding_ratio() {
    let plain = run(&chain(2, "piggycode", 400.0, 30.0)).unwrap();
    let mut s = chain(2, "waittime", 400.0, 30.0);
    s.scheme.piggycode.wait_s = 0.03;
    let waited = run(&s).unwrap();
    check_clean(&waited, "wait 30 ms");
    assert!(total(&waited, "piggy_data_waited") > 0);
    assert!(waits_within(&waited, 30_000));
    // At a low rate PiggyCode finds few ACKs in the queue; waiting finds many more
    // (Takimoto et al. §III-C: fewer uncoded ACKs at every rate).
    assert!(
        total(&waited, "piggy_ack_uncoded") * 2 < total(&plain, "piggy_ack_uncoded"),
        "uncoded ACKs: wait {} vs PiggyCode {}",
        total(&waited, "piggy_ack_uncoded"),
        total(&plain, "piggy_ack_uncoded")
    );
}

#[test]
fn zero_wait_is_plain_piggycode_bit_for_bit() {
    let plain = run(&chain(3, "piggycode", 600.0, 15.0)).unwrap();
    let mut s = chain(3, "waittime", 600.0, 15.0);
    s.scheme.piggycode.wait_s = 0.0;
    let zero = run(&s).unwrap();
    let strip = |mut r: RunResult| {
        r.wall_time_s = 0.0;
        r
    };
    assert_eq!(strip(plain), strip(zero));
}

#[test]
fn configured_wait_is_zero_beyond_the_cut_off() {
    // 4 hops > configured_max_hops = 3: the configured method is plain PiggyCode.
    let plain = run(&chain(4, "piggycode", 600.0, 10.0)).unwrap();
    let mut s = chain(4, "waittime", 600.0, 10.0);
    s.scheme.piggycode.configured = true;
    let conf = run(&s).unwrap();
    assert_eq!(total(&conf, "piggy_data_waited"), 0);
    assert_eq!(plain.flows[0].rx_bytes, conf.flows[0].rx_bytes);
    // 2 hops: it waits, never longer than its longest configured wait.
    let mut s = chain(2, "waittime", 600.0, 10.0);
    s.scheme.piggycode.configured = true;
    let conf = run(&s).unwrap();
    check_clean(&conf, "configured, 2 hops");
    assert!(total(&conf, "piggy_data_waited") > 0);
    assert!(waits_within(&conf, 30_000));
}

#[test]
fn conservation_and_bytes_hold_under_loss() {
    for scheme in ["piggycode", "waittime"] {
        let mut s = chain(3, scheme, 800.0, 20.0);
        s.loss = vec![LossCfg {
            rate: 0.1,
            ..LossCfg::default()
        }];
        let r = run(&s).unwrap();
        assert!(r.conservation.balanced, "{scheme}: {:?}", r.conservation);
        assert_eq!(r.flows[0].payload_errors, 0, "{scheme}");
        assert!(r.flows[0].goodput_kbps > 50.0, "{scheme}");
        assert!(total(&r, "piggy_data_coded") > 0, "{scheme}");
    }
}

#[test]
fn same_seed_same_result() {
    let s = chain(3, "waittime", 700.0, 10.0);
    let mut a = run(&s).unwrap();
    let mut b = run(&s).unwrap();
    a.wall_time_s = 0.0;
    b.wall_time_s = 0.0;
    assert_eq!(a, b);
}

/// A coded DATA put at the very head of the interface queue (`placement = "stack"`, one
/// reading of Takimoto et al. §II-A) goes ahead of older DATA still queued: the receiver sees
/// more segments out of order than without coding. The default reading (`ordered`) keeps a
/// flow's DATA in order, and sees no more than without coding.
#[test]
fn head_insertion_reorders_data_and_the_receiver_counts_it() {
    let none = run(&chain(2, "none", 700.0, 40.0)).unwrap();
    let mut s = chain(2, "piggycode", 700.0, 40.0);
    s.scheme.piggycode.placement = Placement::Stack;
    let stack = run(&s).unwrap();
    s.scheme.piggycode.placement = Placement::Ordered;
    let ordered = run(&s).unwrap();
    let (n, st, o) = (&none.flows[0], &stack.flows[0], &ordered.flows[0]);
    assert!(n.acks_sent > 0 && st.acks_sent > 0 && o.acks_sent > 0);
    assert!(
        st.out_of_order_segments > 2 * n.out_of_order_segments,
        "out of order: stack {} vs none {}",
        st.out_of_order_segments,
        n.out_of_order_segments
    );
    assert!(
        o.out_of_order_segments <= n.out_of_order_segments,
        "out of order: ordered {} vs none {}",
        o.out_of_order_segments,
        n.out_of_order_segments
    );
    assert!(
        o.fast_retransmits <= n.fast_retransmits + 1,
        "ordered: {} fast retransmits",
        o.fast_retransmits
    );
}
