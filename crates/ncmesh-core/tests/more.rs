//! Whole-run checks of MORE (Chachulski et al.; CoMP's batch-coding baseline) under TCP
//! NewReno: on the diamond (3 relays) and on `roofnet-like` pairs, with payload bytes:
//! every byte decoded bit for bit, the node ledger balanced, runs deterministic, two
//! batch sizes, goodput on the lossy diamond.

use ncmesh_core::metrics::RunResult;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::sim::run;

use crate::common::{self, at, string, total, with_more};

fn diamond(loss: f64, batch: u32, secs: f64) -> Scenario {
    with_more(common::diamond("more", loss, secs), batch)
}

fn roofnet(pair: u64, batch: u32, secs: f64) -> Scenario {
    with_more(common::roofnet("more", pair, secs), batch)
}

/// The checks every MORE run passes: bytes, ledger, the roles' counters.
fn check(r: &RunResult, s: &Scenario, what: &str) {
    assert!(r.conservation.balanced, "{what}: {:?}", r.conservation);
    let f = &r.flows[0];
    assert_eq!(f.payload_errors, 0, "{what}: decoded bytes differ");
    let (src, dst) = (s.flows[0].src as usize, s.flows[0].dst as usize);
    assert!(at(r, src, "more_batches_started") > 0, "{what}");
    assert!(at(r, src, "more_batches_acked") > 0, "{what}");
    assert!(at(r, src, "more_source_sent") > 0, "{what}");
    // Alg. 1 runs: the source hears its receivers' (s, t) on their frames.
    assert!(at(r, src, "more_loss_samples") > 0, "{what}");
    // The plan keeps at least the destination and the source.
    assert!(at(r, src, "more_plan_nodes") >= 2, "{what}");
    assert!(at(r, dst, "more_batches_decoded") > 0, "{what}");
    // Every batch acknowledged at the source was decoded; natives go up whole batches.
    assert!(
        at(r, src, "more_batches_acked") <= at(r, dst, "more_batches_decoded"),
        "{what}"
    );
    assert!(
        at(r, dst, "more_natives_up") <= at(r, src, "more_segments"),
        "{what}"
    );
    // Decoding needs as many innovative combinations as natives.
    assert!(
        at(r, dst, "more_innovative") >= at(r, dst, "more_natives_up"),
        "{what}"
    );
    // Every combination the destination took came from the source or a forwarder.
    let sent = total(r, "more_source_sent") + total(r, "more_forwarder_sent");
    let taken = at(r, dst, "more_innovative") + at(r, dst, "more_not_innovative");
    assert!(taken <= sent, "{what}");
}

#[test]
fn more_delivers_the_original_bytes_on_the_diamond() {
    for (loss, batch) in [(0.0, 32), (0.1, 32), (0.1, 8)] {
        let s = diamond(loss, batch, 20.0);
        let r = run(&s).unwrap();
        let what = format!("diamond, loss {loss}, K {batch}");
        check(&r, &s, &what);
        assert!(
            r.flows[0].goodput_kbps > 20.0,
            "{what}: goodput {}",
            r.flows[0].goodput_kbps
        );
        // The relays forward by credit.
        let relays: u64 = (1..=3).map(|i| at(&r, i, "more_forwarder_sent")).sum();
        assert!(relays > 0, "{what}");
    }
}

#[test]
fn more_delivers_on_roofnet_pairs_with_two_batch_sizes() {
    for batch in [8, 32] {
        let s = roofnet(5, batch, 20.0);
        let r = run(&s).unwrap();
        let what = format!("roofnet-like pair 5, K {batch}");
        check(&r, &s, &what);
        assert!(r.flows[0].goodput_kbps > 0.0, "{what}");
    }
}

#[test]
fn more_delivers_along_a_lossy_string() {
    // A string: every relay is a forwarder of its own rank; each sends until the next
    // one closer has the batch.
    for (hops, loss) in [(2, 0.0), (3, 0.1)] {
        let mut s = string(hops, "more", loss, LossFrames::Network, 20.0);
        s.scheme.more.batch = 16;
        let r = run(&s).unwrap();
        let what = format!("string of {hops}, loss {loss}");
        check(&r, &s, &what);
        assert!(
            r.flows[0].goodput_kbps > 20.0,
            "{what}: {}",
            r.flows[0].goodput_kbps
        );
        for relay in 1..hops as usize {
            assert!(
                at(&r, relay, "more_forwarder_sent") > 0,
                "{what}: relay {relay}"
            );
        }
    }
}

#[test]
fn coefficient_only_runs_equal_payload_runs() {
    let s = diamond(0.1, 16, 10.0);
    let mut lean = s.clone();
    lean.simulation.payload_bytes = false;
    let (a, c) = (run(&s).unwrap(), run(&lean).unwrap());
    assert_eq!(a.flows[0].goodput_kbps, c.flows[0].goodput_kbps);
    assert_eq!(a.events, c.events);
    for name in [
        "more_source_sent",
        "more_forwarder_sent",
        "more_batches_decoded",
    ] {
        assert_eq!(total(&a, name), total(&c, name), "{name}");
    }
}

#[test]
fn more_runs_are_deterministic() {
    let s = diamond(0.1, 16, 10.0);
    let (a, b) = (run(&s).unwrap(), run(&s).unwrap());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.events, b.events);
    assert_eq!(a.nodes, b.nodes);
}
