//! Whole-run checks of TCP/NC (Sundararajan et al.; CoMP's TCP-ARQ) under TCP NewReno on
//! a string of nodes with i.i.d. packet loss on every link: payload bytes decoded bit for
//! bit, conservation, determinism, the roles' counters, and goodput where plain TCP
//! collapses.

use ncmesh_core::coding::tcpnc::NcField;
use ncmesh_core::scenario::schema::*;

use ncmesh_core::sim::run;

use crate::common::{at, string, total};

#[test]
fn tcp_nc_delivers_the_original_bytes_through_lossy_hops() {
    for (hops, loss, field) in [
        (1, 0.0, NcField::Gf256),
        (2, 0.2, NcField::Gf256),
        (4, 0.1, NcField::Gf256),
        (3, 0.1, NcField::Gf65536),
    ] {
        let mut s = string(hops, "tcp-nc", loss, LossFrames::Network, 20.0);
        s.scheme.tcpnc.field = field;
        let r = run(&s).unwrap();
        let what = format!("{hops} hops, loss {loss}, {field:?}");
        assert!(r.conservation.balanced, "{what}: {:?}", r.conservation);
        let f = &r.flows[0];
        assert_eq!(f.payload_errors, 0, "{what}: decoded bytes differ");
        assert!(f.goodput_kbps > 50.0, "{what}: goodput {}", f.goodput_kbps);
        let dst = hops as usize;
        // The source codes, relays forward, the destination decodes and acknowledges.
        assert!(at(&r, 0, "tcpnc_source_coded") > 0, "{what}");
        for relay in 1..dst {
            assert!(
                at(&r, relay, "tcpnc_forwarded") > 0,
                "{what}: relay {relay}"
            );
            assert_eq!(at(&r, relay, "tcpnc_source_coded"), 0, "{what}");
        }
        let decoded = at(&r, dst, "tcpnc_decoded");
        assert!(decoded > 0, "{what}");
        // One acknowledgement per arrival (so one per degree of freedom); the TCP
        // receiver's own ACKs stop at its coding layer, and the sender's TCP hears only
        // ACKs that move the window.
        assert_eq!(
            at(&r, dst, "tcpnc_acks_sent"),
            at(&r, dst, "tcpnc_innovative")
                + at(&r, dst, "tcpnc_not_innovative")
                + at(&r, dst, "tcpnc_stale"),
            "{what}"
        );
        assert!(at(&r, dst, "tcpnc_tcp_acks_suppressed") > 0, "{what}");
        assert!(at(&r, 0, "tcpnc_acks_up") > 0, "{what}");
        assert!(
            at(&r, 0, "tcpnc_acks_up") + at(&r, 0, "tcpnc_acks_absorbed")
                <= at(&r, dst, "tcpnc_acks_sent"),
            "{what}"
        );
        // Decoded packets cannot outnumber the degrees of freedom received.
        assert!(decoded <= at(&r, dst, "tcpnc_innovative"), "{what}");
        if loss > 0.0 {
            assert!(at(&r, 0, "tcpnc_loss_updates") > 0, "{what}: Alg. 1 ran");
        }
    }
}

#[test]
fn tcp_nc_runs_are_deterministic_and_coefficient_only_equals_payload_mode() {
    let s = string(3, "tcp-nc", 0.1, LossFrames::Network, 10.0);
    let (a, b) = (run(&s).unwrap(), run(&s).unwrap());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.events, b.events);
    let mut lean = s.clone();
    lean.simulation.payload_bytes = false;
    let c = run(&lean).unwrap();
    assert_eq!(c.flows[0].goodput_kbps, a.flows[0].goodput_kbps);
    for name in ["tcpnc_source_coded", "tcpnc_decoded", "tcpnc_acks_sent"] {
        assert_eq!(total(&c, name), total(&a, name), "{name}");
    }
}

#[test]
fn tcp_arq_with_a_small_source_queue_keeps_carrying_on_a_lossy_hop() {
    // CoMP's set-up (no MAC retries) on one lossy hop, a source queue of 5 packets:
    // NewReno never sees a loss below TCP/NC, its window outgrows the queue, and
    // combinations offered to the full queue would be dropped unseen by Alg. 1 and by
    // TCP, which then waits for a timeout. The source owes them instead and makes them
    // as the queue frees room (the send-time path CoMP's output buffer has).
    let mut s = string(1, "tcp-nc", 0.2, LossFrames::Network, 30.0);
    s.scheme.tcpnc.field = NcField::Gf65536;
    s.mac.retransmissions = false;
    s.mac.queue_packets = 5;
    s.simulation.measure_start_s = 20.0;
    let r = run(&s).unwrap();
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    assert_eq!(
        r.nodes[0].drops_queue_full, 0,
        "the source's own queue dropped"
    );
    let f = &r.flows[0];
    assert_eq!(f.payload_errors, 0);
    assert!(f.goodput_kbps > 0.0, "nothing carried over the last 10 s");
    assert!(at(&r, 0, "tcpnc_held_back") > 0, "the queue never filled");
}

#[test]
fn tcp_nc_keeps_goodput_where_plain_newreno_collapses() {
    // i.i.d. loss on every link: NewReno halves its window at every loss and times out;
    // TCP/NC's adaptive redundancy repairs the losses below TCP (Sundararajan et al.:
    // TCP/NC's throughput stays nearly flat as the loss grows, TCP's falls).
    for (hops, loss) in [(1, 0.2), (3, 0.1)] {
        let plain = run(&string(hops, "none", loss, LossFrames::Network, 30.0)).unwrap();
        let coded = run(&string(hops, "tcp-nc", loss, LossFrames::Network, 30.0)).unwrap();
        let what = format!("{hops} hops, loss {loss}");
        let (p, c) = (plain.flows[0].goodput_kbps, coded.flows[0].goodput_kbps);
        assert!(
            c > 5.0 * p && c > 100.0,
            "{what}: tcp-nc {c:.0} vs newreno {p:.0} kbit/s"
        );
        assert!(coded.conservation.balanced, "{what}");
        assert_eq!(coded.flows[0].payload_errors, 0, "{what}");
        // Alg. 1 finds at least the configured loss (the path's, 1 − (1 − loss)^hops, plus
        // the queues' overflow, which TCP/NC hides from NewReno too), and R follows.
        let path = 1.0 - (1.0 - loss).powi(hops as i32);
        let est = at(&coded, 0, "tcpnc_loss_permille") as f64 / 1000.0;
        assert!(
            est > 0.6 * path && est < 0.9,
            "{what}: estimated loss {est}, path {path:.2}"
        );
        let r = at(&coded, 0, "tcpnc_redundancy_milli") as f64 / 1000.0;
        assert!(r >= (1.1 / (1.0 - est)).min(5.0) - 0.01, "{what}: R {r}");
    }
}
