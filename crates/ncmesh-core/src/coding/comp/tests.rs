//! Engine-free checks of CoMP's rules on the diamond (source 0, relays 1-3, destination
//! 4, three reinforced paths): Alg. 2's flow and forwarder choice under back-pressure,
//! Alg. 1's reports turned into rate and credits, the relay's credits and buffer, the
//! destination's acknowledgements, the source's window.

use super::*;
use crate::coding::bench::Bench;
use crate::coding::loss_estimate::Counts;
use crate::coding::tcpnc::source::tests::segment;
use crate::coding::SchemeOut;
use crate::engine::{Time, MILLIS};
use crate::scenario::BuildOptions;
use crate::wire::tcp::TcpHeader;

const SRC: NodeId = 0;
const DST: NodeId = 4;

fn bench() -> Bench {
    Bench::new("diamond", &BuildOptions::new())
}

fn layer(cfg: CompCfg) -> Comp {
    Comp::new(cfg.params(64_000))
}

/// TCP segment `i` of flow 0 (TCP/NC's test segment, to the diamond's destination).
fn data(i: u64) -> Packet {
    Packet {
        dst: DST,
        ..segment(i)
    }
}

fn put(b: &mut Bench, s: &mut Comp, node: NodeId, p: Packet) -> SchemeOut {
    let hops = b.routes.next_hops(node, p.dst, p.flow);
    b.call(node, 0, |cx| s.enqueue(cx, p, &hops))
}

fn send(b: &mut Bench, s: &mut Comp, node: NodeId, now: Time) -> (Option<OutFrame>, SchemeOut) {
    let mut got = None;
    let out = b.call(node, now, |cx| got = s.poll_transmit(cx));
    (got, out)
}

/// `node` receives `frame` from `tx`, addressed to it or overheard.
fn hear(b: &mut Bench, s: &mut Comp, node: NodeId, tx: NodeId, frame: &OutFrame) -> SchemeOut {
    let addressed = if frame.mac_rx == node {
        Addressed::ToMe
    } else {
        Addressed::Overheard
    };
    b.call(node, 0, |cx| {
        s.handle_rx(
            cx,
            Rx {
                tx,
                mac_rx: frame.mac_rx,
                addressed,
                body: &frame.body,
            },
        )
    })
}

fn comp_header(f: &OutFrame) -> &CompHeader {
    f.body.header_as::<CompHeader>().expect("a CoMP header")
}

/// A relay's flow state owing `owed` combinations, with downstream neighbours and what
/// they advertise (queue, until).
fn state(flow: u32, owed: f64, cands: &[(NodeId, Option<(u32, Time)>)]) -> FlowState {
    FlowState {
        flow,
        src: SRC,
        dst: DST,
        role: Role::Relay(Relay::new()),
        num: owed,
        loss: 0.0,
        rate: 1.0,
        next_id: 0,
        est: LossEstimate::new(1.0),
        counts: ReceiveCounts::default(),
        cands: neighbours(cands),
        covering: None,
    }
}

/// Downstream neighbours `cands` and what they advertise (queue, until).
fn neighbours(cands: &[(NodeId, Option<(u32, Time)>)]) -> Neighbours {
    let mut n = Neighbours::default();
    n.refresh(cands.iter().map(|&(node, _)| (node, 0.0)));
    for &(node, heard) in cands {
        if let Some((queue, until)) = heard {
            n.hear(node, queue, 0.0, until);
        }
    }
    n
}

#[test]
fn alg2_picks_the_longest_buffer_and_the_smallest_advertised_queue() {
    let mut s = layer(CompCfg::default());
    let t = 100 * MILLIS;
    s.flows
        .push(state(0, 3.0, &[(1, Some((2, t))), (2, Some((0, t)))]));
    s.flows
        .push(state(1, 5.0, &[(3, Some((1, t))), (4, Some((4, t)))]));
    // Flow 1 has the longer buffer; its neighbour 3 the shorter queue.
    assert_eq!(s.choose(Some(0)), Choice::Send { f: 1, c: 0 });
    // Flow 1's neighbours now both advertise at least its own queue: back-pressure
    // blocks it and flow 0 goes, to its emptier neighbour.
    s.flows[1].cands.hear(3, 5, 0.0, t);
    s.flows[1].cands.hear(4, 6, 0.0, t);
    assert_eq!(s.choose(Some(0)), Choice::Send { f: 0, c: 1 });
    // Everyone blocked: hold until the first advertisement runs out, then send to
    // the neighbour whose advertisement ran out (queue 0).
    s.flows[0].cands.hear(2, 3, 0.0, t / 2);
    s.flows[0].cands.hear(1, 4, 0.0, t);
    assert_eq!(s.choose(Some(0)), Choice::Hold(t / 2));
    assert_eq!(s.poll_at(), PollAt::At(t / 2));
    assert_eq!(s.choose(Some(t / 2)), Choice::Send { f: 0, c: 1 });
    // Less than one combination owed: nothing to send.
    let mut idle = layer(CompCfg::default());
    idle.flows.push(state(0, 0.9, &[(1, None)]));
    assert_eq!(idle.choose(Some(0)), Choice::Idle);
    assert_eq!(idle.poll_at(), PollAt::Idle);
}

#[test]
fn a_queue_beyond_one_byte_is_advertised_as_it_is() {
    let mut s = layer(CompCfg::default());
    s.flows.push(state(0, 300.0, &[(1, None)]));
    assert_eq!(s.header(0, Some(0)).queue, 300);
    s.flows[0].num = 1e9;
    assert_eq!(s.header(0, Some(0)).queue, u32::from(u16::MAX), "two bytes");
}

#[test]
fn equal_queues_take_turns() {
    let mut b = bench();
    let mut s = layer(CompCfg::default());
    for i in 0..3 {
        let out = put(&mut b, &mut s, SRC, data(i));
        assert_eq!(out.consumed, 1, "the segment goes into the coding buffer");
    }
    // Three credits at the source's initial rate 1.1 (headroom, no loss known): 3.3.
    assert_eq!(s.flows[0].owed(), 3);
    let mut to = Vec::new();
    for k in 0..3 {
        let (f, out) = send(&mut b, &mut s, SRC, 0);
        let f = f.unwrap();
        assert_eq!(out.created, 1, "a combination made at the opportunity");
        let h = comp_header(&f);
        assert_eq!(h.id, Some(k), "Alg. 2 line 5: the next id");
        assert_eq!(h.queue, 2 - k as u32, "the buffer after this one left");
        let Span::Window { first, len } = combination_of(&f.body.packets[0]).unwrap().0.span else {
            panic!("a window")
        };
        assert_eq!((first, len), (0, 3), "the whole coding buffer");
        to.push(f.mac_rx);
    }
    assert_eq!(
        to,
        vec![1, 2, 3],
        "no advertisement heard: every relay in turn"
    );
    assert_eq!(s.poll_at(), PollAt::Idle, "0.3 of a combination left");
}

#[test]
fn alg1_reports_set_the_rate_and_create_credits_for_the_packets_missed() {
    let mut b = bench();
    // Unsampled neighbours left out, so that the node loss is relay 1's alone.
    let mut s = layer(CompCfg {
        prior: LossPrior::None,
        compensation: Compensation::Both,
        ..CompCfg::default()
    });
    for i in 0..4 {
        put(&mut b, &mut s, SRC, data(i));
    }
    // Four combinations to relay 1 (the other relays advertise long queues).
    for c in [2, 3] {
        assert!(s.flows[0].cands.hear(c, 9, 0.0, 10_000 * MILLIS));
    }
    for _ in 0..4 {
        assert_eq!(send(&mut b, &mut s, SRC, 0).0.unwrap().mac_rx, 1);
    }
    assert_eq!(s.flows[0].owed(), 0);
    // Relay 1 reports, on a frame of its own, that it got 2 of ids 0..=3.
    let mut report = Body::native(data(99), DST);
    let h = CompHeader {
        flow: 0,
        id: Some(0),
        queue: 0,
        reports: [Report {
            to: SRC,
            counts: Counts {
                last_id: 3,
                received: 2,
            },
        }]
        .into_iter()
        .collect(),
    };
    report.header = Some(Arc::new(h));
    let frame = OutFrame {
        mac_rx: DST,
        body: report,
    };
    let before = s.flows[0].num;
    hear(&mut b, &mut s, SRC, 1, &frame);
    assert_eq!(
        s.counters.loss_credits, 2,
        "§II-C: one credit per packet missed"
    );
    assert!((s.flows[0].num - before - 2.0).abs() < 1e-12);
    // The node loss is the product over the neighbours with a sample: relay 1's 0.5;
    // the source's rate is 1.1 / (1 - 0.5).
    assert_eq!(s.flows[0].loss, 0.5);
    assert!((s.flows[0].rate - 2.2).abs() < 1e-12);
    // The overheard frame also gave relay 1's queue (0) for back-pressure.
    let c1 = s.flows[0].cands.iter().find(|c| c.node == 1).unwrap();
    assert_eq!(c1.advert(None).map(|h| h.backlog), Some(0));
}

/// The source's combination `k` of the segments 0..n (made through the layer).
fn source_frames(b: &mut Bench, n: u64) -> Vec<OutFrame> {
    let mut src = layer(CompCfg {
        headroom: 1.0,
        ..CompCfg::default()
    });
    for i in 0..n {
        put(b, &mut src, SRC, data(i));
    }
    (0..n)
        .map(|_| send(b, &mut src, SRC, 0).0.unwrap())
        .collect()
}

#[test]
fn a_relay_keeps_what_is_innovative_and_spends_its_credits_on_fresh_combinations() {
    let mut b = bench();
    let frames = source_frames(&mut b, 2);
    let mut relay = layer(CompCfg::default());
    // Addressed to relay 1: counted, kept, one credit.
    let mut f0 = frames[0].clone();
    f0.mac_rx = 1;
    let out = hear(&mut b, &mut relay, 1, SRC, &f0);
    assert_eq!((out.absorbed, out.consumed), (1, 1));
    assert_eq!(relay.counters.received, 1);
    assert_eq!(relay.flows[0].owed(), 1);
    let Role::Relay(r) = &relay.flows[0].role else {
        panic!("a relay")
    };
    assert_eq!(r.rank(), 1);
    // The same combination again: not innovative; the credit still stands (keep_credit).
    hear(&mut b, &mut relay, 1, SRC, &f0);
    assert_eq!(relay.counters.not_innovative, 1);
    assert_eq!(relay.flows[0].owed(), 2);
    // Alg. 1's counts for the source count both receptions.
    let c = relay.flows[0].counts.counts(SRC).unwrap();
    assert_eq!((c.last_id, c.received), (0, 2));
    // Its frames go to the destination, with the counts for the source.
    let (f, _) = send(&mut b, &mut relay, 1, 0);
    let f = f.unwrap();
    assert_eq!(f.mac_rx, DST);
    assert_eq!(comp_header(&f).reports[0].to, SRC);
    assert_eq!(comp_header(&f).reports[0].counts.received, 2);
    // As printed (keep_credit = false) the credit goes with the dropped combination.
    let mut strict = layer(CompCfg {
        keep_credit: false,
        ..CompCfg::default()
    });
    hear(&mut b, &mut strict, 1, SRC, &f0);
    hear(&mut b, &mut strict, 1, SRC, &f0);
    assert_eq!(strict.flows[0].owed(), 1);
    // Overheard by relay 2 (a downstream neighbour of the source): kept, no credit, not
    // counted in Alg. 1.
    let mut other = layer(CompCfg::default());
    let out = hear(&mut b, &mut other, 2, SRC, &f0);
    assert_eq!((out.absorbed, out.consumed), (0, 0));
    assert_eq!(other.counters.overheard_innovative, 1);
    assert_eq!(other.flows[0].owed(), 0);
    assert!(other.flows[0].counts.counts(SRC).is_none());
    let mut deaf = layer(CompCfg {
        overhear: false,
        ..CompCfg::default()
    });
    hear(&mut b, &mut deaf, 2, SRC, &f0);
    assert!(deaf.flows.is_empty(), "overhear = false ignores it");
}

/// The destination's acknowledgement of everything before `first_unseen`, as a packet
/// on its way to the source.
fn ack_packet(first_unseen: u64) -> Packet {
    let ack = TcpNcAck {
        flow: 0,
        first_unseen,
        wnd: 64_000,
        report: None,
    };
    ControlMsg::packet(Layer::Hop, ack, 0, DST, SRC)
}

#[test]
fn a_relay_flushes_on_an_acknowledgement_that_covers_its_buffer() {
    let mut b = bench();
    let frames = source_frames(&mut b, 2);
    let fill = |b: &mut Bench, relay: &mut Comp| {
        for f in &frames {
            let mut f = f.clone();
            f.mac_rx = 1;
            hear(b, relay, 1, SRC, &f);
        }
    };
    let mut relay = layer(CompCfg::default());
    fill(&mut b, &mut relay);
    let rank = |relay: &Comp| match &relay.flows[0].role {
        Role::Relay(r) => r.rank(),
        _ => panic!("a relay"),
    };
    assert_eq!(rank(&relay), 2);
    assert!(relay.flows[0].owed() > 0);
    // Packet 1 not yet seen: the buffer still counts downstream.
    put(&mut b, &mut relay, 1, ack_packet(1));
    assert_eq!(rank(&relay), 2);
    // Both seen: its combinations could only be non-innovative at the destination.
    put(&mut b, &mut relay, 1, ack_packet(2));
    assert_eq!((rank(&relay), relay.flows[0].owed()), (0, 0));
    assert_eq!(relay.counters.flushes, 1);
    // The acknowledgements go on to the source all the same.
    assert_eq!(relay.plain.len(), 2);
    // A source that missed that acknowledgement sends the covered window again: the
    // relay repeats the acknowledgement to it, from the destination.
    let mut late = frames[0].clone();
    late.mac_rx = 1;
    let out = hear(&mut b, &mut relay, 1, SRC, &late);
    assert_eq!(
        relay.flows[0].owed(),
        0,
        "no credit for a stale combination"
    );
    assert_eq!(out.originate.len(), 1);
    let p = &out.originate[0];
    assert_eq!((p.src, p.dst), (DST, SRC));
    let L4::Control(m) = &p.l4 else {
        panic!("an acknowledgement")
    };
    assert_eq!(m.fields_as::<TcpNcAck>().unwrap().first_unseen, 2);
    // flush_on_ack = false: the buffer slides only with newer windows.
    let mut kept = layer(CompCfg {
        flush_on_ack: false,
        ..CompCfg::default()
    });
    fill(&mut b, &mut kept);
    put(&mut b, &mut kept, 1, ack_packet(2));
    assert_eq!(rank(&kept), 2);
}

#[test]
fn a_newer_window_makes_a_relay_forget_the_older_packets() {
    let mut b = bench();
    let mut src = layer(CompCfg {
        headroom: 1.0,
        ..CompCfg::default()
    });
    for i in 0..3 {
        put(&mut b, &mut src, SRC, data(i));
    }
    let early = send(&mut b, &mut src, SRC, 0).0.unwrap();
    // The destination has seen packets 0 and 1: the source's window slides to 2.
    let ack = TcpNcAck {
        flow: 0,
        first_unseen: 2,
        wnd: 64_000,
        report: None,
    };
    let msg = ControlMsg {
        layer: Layer::Hop,
        fields: Arc::new(ack),
    };
    let out = b.call(SRC, 0, |cx| src.handle_control(cx, DST, &msg));
    let up = out.up[0].tcp().copied().unwrap();
    assert_eq!(
        up.ack, 2000,
        "TCP hears of bytes up to the first unseen packet"
    );
    let late = send(&mut b, &mut src, SRC, 0).0.unwrap();
    let span = |f: &OutFrame| combination_of(&f.body.packets[0]).unwrap().0.span;
    assert_eq!(span(&late), Span::Window { first: 2, len: 1 });
    let mut relay = layer(CompCfg::default());
    for mut f in [early, late] {
        f.mac_rx = 1;
        hear(&mut b, &mut relay, 1, SRC, &f);
    }
    let Role::Relay(r) = &relay.flows[0].role else {
        panic!("a relay")
    };
    assert_eq!(
        r.rank(),
        1,
        "the early combination's packets 0-1 are forgotten"
    );
    let (f, _) = send(&mut b, &mut relay, 1, 0);
    assert_eq!(span(&f.unwrap()), Span::Window { first: 2, len: 1 });
}

#[test]
fn the_destination_acknowledges_innovative_combinations_and_suppresses_tcps_acks() {
    let mut b = bench();
    let frames = source_frames(&mut b, 3);
    let mut dst = layer(CompCfg::default());
    let mut up = Vec::new();
    for (k, f) in frames.iter().enumerate() {
        let mut f = f.clone();
        f.mac_rx = DST;
        let out = hear(&mut b, &mut dst, DST, 1, &f);
        // One acknowledgement per innovative combination, naming the first unseen.
        assert_eq!(out.originate.len(), 1);
        let L4::Control(m) = &out.originate[0].l4 else {
            panic!("an acknowledgement")
        };
        let a = m.fields_as::<TcpNcAck>().unwrap();
        assert_eq!(a.first_unseen, k as u64 + 1);
        assert_eq!(out.originate[0].dst, SRC);
        up.extend(out.up);
    }
    // Three combinations of three packets: all decoded, handed up in order.
    let seqs: Vec<u64> = up.iter().map(|p| p.tcp().unwrap().seq).collect();
    assert_eq!(seqs, vec![0, 1000, 2000]);
    assert_eq!(dst.counters.decoded, 3);
    // A repeat whose window was all seen: the source is behind, acknowledged again.
    let mut again = frames[0].clone();
    again.mac_rx = DST;
    let out = hear(&mut b, &mut dst, DST, 1, &again);
    assert_eq!(out.originate.len(), 1);
    // Overheard (not addressed to it), it is not.
    again.mac_rx = 2;
    let out = hear(&mut b, &mut dst, DST, 1, &again);
    assert!(out.originate.is_empty());
    // The TCP receiver's own ACK stops here; its window is kept.
    let mut h = TcpHeader::data(0, 0);
    h.ack = 3000;
    h.wnd = 10_000;
    let own = Packet {
        src: DST,
        dst: SRC,
        l4: L4::Tcp(h),
        ..data(0)
    };
    let out = put(&mut b, &mut dst, DST, own);
    assert_eq!((out.consumed, dst.plain.len()), (1, 0));
    let Role::Sink(sink) = &dst.flows[0].role else {
        panic!("a destination")
    };
    assert_eq!(sink.wnd, 10_000);
}

#[test]
fn unsampled_neighbours_start_from_the_routings_link_estimates() {
    // A roofnet-like pair whose source has lossy links to its next hops.
    let opts = BuildOptions::new().with("pair", 3u64);
    let mut b = Bench::new("roofnet-like", &opts);
    let flow = &crate::scenario::build("roofnet-like", &opts).unwrap().flows[0];
    let (src, dst) = (flow.src, flow.dst);
    let hops = b.routes.next_hops(src, dst, 0);
    let mut s = layer(CompCfg::default());
    let p = Packet {
        src,
        dst,
        ..segment(0)
    };
    b.call(src, 0, |cx| s.enqueue(cx, p, &hops));
    // Before any report: the node loss is the product of 1 − the routing's delivery
    // estimate over the downstream neighbours.
    let expect: f64 = hops
        .iter()
        .map(|h| 1.0 - b.routes.link_delivery(src, h.node).unwrap())
        .product();
    assert!(expect > 0.0, "a lossy pair");
    let f = &s.flows[0];
    assert!((f.loss - expect).abs() < 1e-12, "{} vs {expect}", f.loss);
    assert_eq!(f.est.samples(), 0);
    // Without the prior they count as lossless.
    let mut s = layer(CompCfg {
        prior: LossPrior::None,
        ..CompCfg::default()
    });
    let p = Packet {
        src,
        dst,
        ..segment(0)
    };
    b.call(src, 0, |cx| s.enqueue(cx, p, &hops));
    assert_eq!(s.flows[0].loss, 0.0);
}

#[test]
fn the_configured_loss_gives_the_optimal_rate() {
    // Fig. 2's "optimal" curve: the node loss from the configured link losses.
    let mut b = bench();
    b.loss = crate::phy::loss::LossModel::new(&[crate::scenario::schema::LossCfg {
        rate: 0.5,
        ..Default::default()
    }]);
    let mut s = layer(CompCfg {
        loss: LossSource::Configured,
        ..CompCfg::default()
    });
    put(&mut b, &mut s, SRC, data(0));
    // Every relay misses with 0.5 (the diamond's links are clean otherwise): node loss
    // 0.125, rate 1.1 / 0.875.
    let f = &s.flows[0];
    let p = b.channel.delivery_prob(SRC, 1);
    let expect = (1.0 - p * 0.5).powi(3);
    assert!((f.loss - expect).abs() < 1e-9, "{} vs {expect}", f.loss);
    assert!((f.rate - 1.1 / (1.0 - expect)).abs() < 1e-9);
}

#[test]
fn plain_packets_go_first_to_the_routing_next_hop() {
    let mut b = bench();
    let mut s = layer(CompCfg::default());
    put(&mut b, &mut s, SRC, data(0));
    put(&mut b, &mut s, SRC, data(1));
    let mut h = TcpHeader::data(0, 0);
    h.ack = 1;
    // Some other node's packet through this node (e.g. an acknowledgement on its way).
    let other = Packet {
        src: 2,
        dst: DST,
        l4: L4::Tcp(h),
        ..data(0)
    };
    put(&mut b, &mut s, SRC, other);
    let (f, out) = send(&mut b, &mut s, SRC, 0);
    let f = f.unwrap();
    assert_eq!(out.created, 0);
    assert_eq!(f.body.packets[0].src, 2);
    assert!(comp_header(&f).id.is_none());
    assert_eq!(s.occupancy().held, 0);
}

fn ack_msg(first_unseen: u64, wnd: u32) -> ControlMsg {
    ControlMsg {
        layer: Layer::Hop,
        fields: Arc::new(TcpNcAck {
            flow: 0,
            first_unseen,
            wnd,
            report: None,
        }),
    }
}

#[test]
fn an_empty_window_voids_the_credits_and_takes_no_loss_credits() {
    let mut b = bench();
    let mut s = layer(CompCfg::default());
    for i in 0..2 {
        put(&mut b, &mut s, SRC, data(i));
    }
    let first = send(&mut b, &mut s, SRC, 0).0.unwrap();
    assert!(s.flows[0].num > 1.0);
    // Everything seen: the window empties and the credits left go.
    b.call(SRC, 0, |cx| s.handle_control(cx, DST, &ack_msg(2, 64_000)));
    assert!(s.flows[0].num < 1.0);
    assert_eq!(s.poll_at(), PollAt::Idle);
    // A report of a loss now finds nothing to combine: no credit.
    let mut body = Body::native(data(99), DST);
    body.header = Some(Arc::new(CompHeader {
        flow: 0,
        id: None,
        queue: 0,
        reports: [Report {
            to: SRC,
            counts: Counts {
                last_id: 0,
                received: 0,
            },
        }]
        .into_iter()
        .collect(),
    }));
    let rel = first.mac_rx;
    hear(&mut b, &mut s, SRC, rel, &OutFrame { mac_rx: DST, body });
    assert_eq!(s.counters.loss_credits, 0);
    assert_eq!(s.poll_at(), PollAt::Idle);
}

#[test]
fn a_flow_with_nothing_to_combine_lets_the_next_one_send() {
    let mut b = bench();
    let mut s = layer(CompCfg::default());
    // Flow 0: a relay state owing 5 with an empty buffer; flow 1 (made the same way)
    // owes 2 and holds a combination.
    s.flows.push(state(0, 5.0, &[(DST, None)]));
    let frames = source_frames(&mut b, 1);
    let mut f = frames[0].clone();
    f.mac_rx = 1;
    let mut other = layer(CompCfg::default());
    hear(&mut b, &mut other, 1, SRC, &f);
    let mut ready = other.flows.pop().unwrap();
    ready.flow = 1;
    ready.num = 2.0;
    s.flows.push(ready);
    let (got, out) = send(&mut b, &mut s, 1, 0);
    assert_eq!(
        got.unwrap().body.packets[0].flow,
        0,
        "the packet's flow field"
    );
    assert_eq!(out.created, 1);
    assert_eq!(
        s.flows[0].owed(),
        0,
        "flow 0's credits went with its empty buffer"
    );
    assert_eq!(s.flows[1].owed(), 1);
}

#[test]
fn a_blocked_acknowledgement_is_a_credit_at_the_source() {
    let mut b = bench();
    let mut s = layer(CompCfg {
        headroom: 1.0,
        blocked_repair: true,
        ..CompCfg::default()
    });
    for i in 0..3 {
        put(&mut b, &mut s, SRC, data(i));
    }
    for _ in 0..3 {
        send(&mut b, &mut s, SRC, 0);
    }
    assert_eq!(s.flows[0].owed(), 0);
    // Packet 0 seen; the window (1500 bytes) leaves TCP no room beyond packets 1-2.
    b.call(SRC, 0, |cx| s.handle_control(cx, DST, &ack_msg(1, 1500)));
    assert_eq!(s.flows[0].owed(), 1);
    assert_eq!(s.counters.repairs, 1);
    // Room for another segment: no repair.
    b.call(SRC, 0, |cx| s.handle_control(cx, DST, &ack_msg(2, 64_000)));
    assert_eq!(s.counters.repairs, 1);
}
