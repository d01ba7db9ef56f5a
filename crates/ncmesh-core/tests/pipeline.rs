//! Whole-run checks of Pipeline coding (Chen et al., "Intra-flow coding") and ComboCoding
//! (Chen et al., "Protocol design") under TCP on a string of nodes: real payload bytes
//! decoded through lossy hops, conservation, the roles' counters, DATA/ACK XOR of
//! combinations, and determinism.

use ncmesh_core::coding::combocoding::XorBuffer;
use ncmesh_core::metrics::RunResult;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, BuildOptions};
use ncmesh_core::sim::run;

use crate::common::{at, total};

/// A string of `hops` hops carrying one saturated TCP NewReno flow with payload bytes,
/// `loss` of every frame lost on every link, scheme `scheme` (`"none"`, `"pipeline"`,
/// `"combocoding"`).
fn string(hops: u64, scheme: &str, loss: f64, secs: f64) -> Scenario {
    let mut s = crate::common::string(hops, scheme, loss, LossFrames::All, secs);
    s.tcp.delayed_ack = false;
    s
}

/// The run balances, every segment has its original bytes, and the flow moves.
fn delivered_intact(r: &RunResult, what: &str) {
    assert!(r.conservation.balanced, "{what}: {:?}", r.conservation);
    let f = &r.flows[0];
    assert_eq!(f.payload_errors, 0, "{what}: decoded bytes differ");
    assert!(f.goodput_kbps > 50.0, "{what}: goodput {}", f.goodput_kbps);
}

#[test]
fn pipeline_delivers_the_original_bytes_through_lossy_hops() {
    for (hops, loss) in [(2, 0.0), (3, 0.1), (4, 0.2)] {
        let r = run(&string(hops, "pipeline", loss, 30.0)).unwrap();
        let what = format!("{hops} hops, loss {loss}");
        delivered_intact(&r, &what);
        let dst = hops as usize;
        // The source codes, the relays re-encode, the destination decodes.
        assert!(at(&r, 0, "pl_source_coded") > 0, "{what}");
        for relay in 1..dst {
            assert!(at(&r, relay, "pl_recoded") > 0, "{what}: relay {relay}");
        }
        assert!(at(&r, dst, "pl_decoded") > 0, "{what}");
        // k·r combinations per k packets at the source (r = 1.4), within a generation.
        let sent = at(&r, 0, "pl_source_coded") as f64;
        let packets = sent / 1.4;
        assert!(at(&r, dst, "pl_decoded") as f64 <= packets + 16.0, "{what}");
    }
}

#[test]
fn without_loss_pipeline_carries_less_than_plain_tcp_but_the_same_order() {
    // Chen et al. Table 3 at 0% loss: Pipeline below NewReno (its redundancy costs
    // airtime), not collapsed. On ncmesh's default string (hidden terminals at two hops:
    // collisions and queue overflows still lose combinations) few packets are given up.
    let coded = run(&string(3, "pipeline", 0.0, 30.0)).unwrap();
    let plain = run(&string(3, "none", 0.0, 30.0)).unwrap();
    let (c, p) = (coded.flows[0].goodput_kbps, plain.flows[0].goodput_kbps);
    assert!(
        c < p && c > 0.5 * p,
        "pipeline {c:.0} vs plain {p:.0} kbit/s"
    );
    let given_up = total(&coded, "pl_given_up");
    assert!(
        given_up * 20 < at(&coded, 3, "pl_decoded"),
        "{given_up} given up"
    );
    assert!(
        total(&coded, "pl_not_innovative") > 0,
        "the redundancy shows as non-innovative packets"
    );
}

#[test]
fn pipeline_runs_are_deterministic_and_coefficient_only_equals_payload_mode() {
    let s = string(3, "pipeline", 0.1, 20.0);
    let (a, b) = (run(&s).unwrap(), run(&s).unwrap());
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.events, b.events);
    // Carrying payload bytes changes no decision: same counters, same goodput.
    let mut lean = s.clone();
    lean.simulation.payload_bytes = false;
    let c = run(&lean).unwrap();
    assert_eq!(c.flows[0].goodput_kbps, a.flows[0].goodput_kbps);
    for name in ["pl_source_coded", "pl_recoded", "pl_decoded", "pl_given_up"] {
        assert_eq!(total(&c, name), total(&a, name), "{name}");
    }
}

#[test]
fn combocoding_xors_combinations_and_both_directions_decode_the_exact_bytes() {
    for (hops, loss) in [(2, 0.0), (3, 0.1), (4, 0.2)] {
        let what = format!("{hops} hops, loss {loss}");
        delivered_intact(
            &run(&string(hops, "combocoding", loss, 30.0)).unwrap(),
            &what,
        );
        // A neighbour keeps the copy it sent `scheme.piggycode.buffer_s` (1 s). Under loss
        // a pair can wait longer than that in a relay's 50-packet queue (the 4-hop string
        // at 20%: 3 of 38 coded frames then find no partner), so the decoding is checked
        // with copies kept 5 s, longer than any wait here: then every coded frame decodes.
        let mut s = string(hops, "combocoding", loss, 30.0);
        s.scheme.piggycode.buffer_s = 5.0;
        let r = run(&s).unwrap();
        delivered_intact(&r, &what);
        let dst = hops as usize;
        // Both directions are Pipeline-coded: the sender decodes the receiver's ACKs.
        assert!(at(&r, dst, "pl_source_coded") > 0, "{what}: ACKs coded");
        assert!(
            at(&r, 0, "pl_decoded") > 0,
            "{what}: ACKs decoded at the sender"
        );
        // Relays XOR a DATA-direction combination with an ACK-direction one, and each
        // neighbour decodes with the partner it sent.
        assert!(total(&r, "piggy_coded_tx") > 0, "{what}");
        assert_eq!(total(&r, "piggy_decode_failures"), 0, "{what}");
        assert_eq!(
            at(&r, 0, "piggy_coded_tx") + at(&r, dst, "piggy_coded_tx"),
            0,
            "{what}: end hosts never XOR"
        );
        // No DATA waits longer than the timer T = 4 ms.
        assert!(
            r.nodes
                .iter()
                .all(|n| n.counter("piggy_wait_us_max") <= 4_000),
            "{what}"
        );
    }
}

#[test]
fn scheme_pipeline_is_the_intra_coder_over_a_fifo() {
    let by_scheme = run(&string(3, "pipeline", 0.1, 10.0)).unwrap();
    let mut s = string(3, "none", 0.1, 10.0);
    s.scheme.intra = "pipeline".into();
    let by_intra = run(&s).unwrap();
    assert_eq!(by_scheme.flows, by_intra.flows);
    assert_eq!(by_scheme.events, by_intra.events);
}

#[test]
fn loss_adaptation_estimates_the_link_loss_and_raises_the_redundancy() {
    // One hop, the DATA link losing 10% of its packets after the MAC (retries cannot
    // help); the ACK flow is coded too and carries the receiver's counts back.
    let mut s = string(1, "pipeline", 0.0, 60.0);
    s.scheme.pipeline.adaptive = true;
    s.scheme.pipeline.code_acks = true;
    s.loss.push(LossCfg {
        links: vec![[0, 1]],
        rate: 0.1,
        frames: LossFrames::Network,
        ..LossCfg::default()
    });
    let r = run(&s).unwrap();
    assert!(r.conservation.balanced);
    assert_eq!(r.flows[0].payload_errors, 0);
    let (est, updates) = (at(&r, 0, "pl_loss_permille"), at(&r, 0, "pl_loss_updates"));
    assert!(updates >= 100, "{updates} updates");
    assert!(
        (50..=200).contains(&est),
        "estimated {est} per mille for 100"
    );
    // Without adaptation nothing is estimated.
    s.scheme.pipeline.adaptive = false;
    let r = run(&s).unwrap();
    assert_eq!(total(&r, "pl_loss_updates"), 0);
}

#[test]
fn adaptation_without_a_coded_ack_flow_is_refused_with_one_line() {
    let mut s = string(2, "pipeline", 0.0, 5.0);
    s.scheme.pipeline.adaptive = true;
    let e = run(&s).unwrap_err().to_string();
    assert!(e.contains("scheme.pipeline.adaptive"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn adaptation_over_a_scheme_that_resends_is_refused_with_one_line() {
    let mut s = string(2, "cope", 0.0, 5.0);
    s.scheme.intra = "pipeline".into();
    s.scheme.pipeline.adaptive = true;
    s.scheme.pipeline.code_acks = true;
    let e = run(&s).unwrap_err().to_string();
    assert!(
        e.contains("scheme.pipeline.adaptive") && e.contains("cope"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    s.scheme.name = "piggycode".into();
    assert!(run(&s).is_ok());
}

/// ComboCoding with loss adaptation over both paths of the `two-path` shape (2 hops each:
/// source 0, relays 1 and 2, destination 3), packets spread round-robin, `loss` of the
/// packets dropped after the MAC on every link.
fn two_paths(loss: f64) -> Scenario {
    let mut s = build("two-path", &BuildOptions::new().with("hops", 2u64)).unwrap();
    s.tcp.delayed_ack = false;
    s.simulation.duration_s = 40.0;
    s.simulation.measure_start_s = 10.0;
    s.simulation.payload_bytes = true;
    s.scheme.name = "combocoding".into();
    s.scheme.pipeline.adaptive = true;
    s.routing.paths = 2;
    s.routing.spread = Spread::RoundRobin;
    s.loss.push(LossCfg {
        rate: loss,
        frames: LossFrames::Network,
        ..LossCfg::default()
    });
    s
}

#[test]
fn over_two_paths_each_end_sums_the_counts_of_both_next_hops() {
    let r = run(&two_paths(0.1)).unwrap();
    delivered_intact(&r, "two paths, 10%");
    // Both relays carry the flow, about half each.
    let (a, b) = (at(&r, 1, "pl_recoded"), at(&r, 2, "pl_recoded"));
    assert!(
        a > 100 && b > 100 && (a as f64 / b as f64 - 1.0).abs() < 0.3,
        "{a} / {b}"
    );
    // The source and the destination each hear a count from both next hops: about 10%
    // lost per link, not the 55% one next hop's count alone would say. (A path that stops
    // reporting counts as lost: adapt.rs's unit tests.)
    for end in [0, 3] {
        let est = at(&r, end, "pl_loss_permille");
        let updates = at(&r, end, "pl_loss_updates");
        assert!(updates > 30, "node {end}: {updates} updates");
        assert!(
            (50..=200).contains(&est),
            "node {end}: {est} per mille for 100"
        );
    }
}

/// `two_paths` on Chen et al.'s string radio (Table 2: 802.11g at 54 Mbit/s, 250 m
/// hops, decoding out to 260 m, sensing two hops), delayed ACKs, `queue` packets per
/// interface queue, no loss.
fn two_paths_54(queue: u32) -> Scenario {
    let mut s = two_paths(0.0);
    s.loss.clear();
    s.mac.standard = Standard::G;
    s.mac.data_rate_mbps = 54.0;
    s.mac.basic_rate_mbps = 6.0;
    s.mac.queue_packets = queue;
    s.channel.rx_range_m = 260.0;
    s.channel.cs_range_m = 520.0;
    s.channel.interference_range_m = 520.0;
    s.tcp.delayed_ack = true;
    s.tcp.mss_bytes = 1460;
    s
}

#[test]
fn a_nodes_own_queue_drops_are_not_read_as_link_loss() {
    // No loss on any link, a 20-packet queue: the source's queue overflows. Eq. 3's M
    // counts what a node puts on the air, so its own drops are not read as loss (counted
    // when queued, they were: the estimate rose, the redundancy with it, and the queue
    // overflowed further).
    let r = run(&two_paths_54(20)).unwrap();
    delivered_intact(&r, "two paths, no loss, short queues");
    assert!(
        r.nodes[0].drops_queue_full > 100,
        "{} drops at the source: the case is not exercised",
        r.nodes[0].drops_queue_full
    );
    for (i, n) in r.nodes.iter().enumerate() {
        let est = n.counter("pl_loss_permille");
        assert!(est <= 30, "node {i}: {est} per mille without any loss");
    }
}

#[test]
fn without_loss_two_paths_share_the_load_and_estimate_little() {
    // Chen et al.'s set-up with two paths and no loss (seed 1, 40 s). With M counted when
    // queued, the relays dropped 5,774 and 1,049 packets at full queues and ended reading
    // 3% and 77% loss.
    let r = run(&two_paths_54(100)).unwrap();
    delivered_intact(&r, "two paths, no loss");
    let g = r.flows[0].goodput_kbps;
    assert!(g > 6000.0, "{g}");
    for (i, n) in r.nodes.iter().enumerate() {
        let est = n.counter("pl_loss_permille");
        assert!(est <= 30, "node {i}: {est} per mille without any loss");
        if i > 0 {
            assert_eq!(n.drops_queue_full, 0, "node {i}: queue drops");
        }
    }
    let (a, b) = (at(&r, 1, "pl_recoded"), at(&r, 2, "pl_recoded"));
    assert!((a as f64 / b as f64 - 1.0).abs() < 0.15, "{a} / {b}");
    // The network-layer XOR buffer lets nothing overtake, so counts closed at the next
    // generation's first combination (report_lag = 1) read no loss above. Under
    // PiggyCode's interface-queue machinery coded pairs go towards the head of the queue,
    // generations overtake each other, and the same counts read loss where there is none.
    let mut s = two_paths_54(100);
    s.scheme.combocoding.xor_buffer = XorBuffer::InterfaceQueue;
    let jumped = run(&s).unwrap();
    let relays = |r: &RunResult| at(r, 1, "pl_loss_permille") + at(r, 2, "pl_loss_permille");
    assert!(
        relays(&jumped) > relays(&r) + 60,
        "relays' estimates summed: {} with the interface-queue buffer, {} with the network one",
        relays(&jumped),
        relays(&r)
    );
}

#[test]
fn a_destination_without_decoded_bytes_is_caught_by_the_payload_check() {
    // Pipeline's coder with the payload stripped from every combination that reaches
    // the destination: its decoder then recovers the packets but no bytes, and what goes
    // up must fail the payload check instead of passing the stand-in's own bytes.
    use ncmesh_core::coding::passthrough::PassThrough;
    use ncmesh_core::coding::pipeline::PipelineCoder;
    use ncmesh_core::coding::{CodingScheme, FlowCoder, FlowCx};
    use ncmesh_core::net::{Packet, L4};
    use ncmesh_core::sim::Sim;

    struct Stripped(PipelineCoder);
    impl FlowCoder for Stripped {
        fn handle_send(&mut self, cx: &mut FlowCx, p: Packet) {
            self.0.handle_send(cx, p)
        }
        fn handle_forward(&mut self, cx: &mut FlowCx, p: Packet) {
            self.0.handle_forward(cx, p)
        }
        fn handle_deliver(&mut self, cx: &mut FlowCx, mut p: Packet) {
            if let L4::Coded(c) = &mut p.l4 {
                std::sync::Arc::make_mut(c).payload = None;
            }
            self.0.handle_deliver(cx, p)
        }
        fn handle_timeout(&mut self, cx: &mut FlowCx) {
            self.0.handle_timeout(cx)
        }
        fn handle_on_air(&mut self, p: &Packet) {
            self.0.handle_on_air(p)
        }
        fn held(&self) -> usize {
            self.0.held()
        }
        fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
            self.0.counters(out)
        }
    }
    let s = string(2, "pipeline", 0.0, 10.0);
    let intact = run(&s).unwrap();
    delivered_intact(&intact, "unbroken");
    let mut sim = Sim::with_coding(&s, |_| {
        let coder = PipelineCoder::new(s.scheme.pipeline.params(false));
        (
            Box::new(PassThrough::new(s.mac.queue_packets as usize)) as Box<dyn CodingScheme>,
            Some(Box::new(Stripped(coder)) as Box<dyn FlowCoder>),
        )
    })
    .unwrap();
    sim.run_to_end();
    let r = sim.results();
    assert!(at(&r, 2, "pl_decoded") > 0, "the destination still decodes");
    assert!(
        r.flows[0].payload_errors > 0,
        "stand-in bytes passed as decoded"
    );
}
