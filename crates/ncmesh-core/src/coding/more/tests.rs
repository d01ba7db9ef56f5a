//! Engine-free checks of MORE on the diamond (source 0, relays 1-3, destination 4):
//! batching at the source, sending until acknowledged, the forwarders' credit counter,
//! innovative-only storage, flushes, decoding and the header sizes.

use super::*;
use crate::coding::bench::Bench;
use crate::coding::loss_estimate::Report;
use crate::coding::more::config::MoreCfg;
use crate::coding::more::source::coded_packet;
use crate::coding::Coeffs;
use crate::coding::SchemeOut;
use crate::engine::{Time, MILLIS};
use crate::scenario::BuildOptions;
use crate::wire::tcp::TcpHeader;

const SRC: NodeId = 0;
const DST: NodeId = 4;

fn bench() -> Bench {
    Bench::new("diamond", &BuildOptions::new())
}

fn layer(batch: u32) -> More {
    More::new(
        MoreCfg {
            batch,
            ..MoreCfg::default()
        }
        .params(),
    )
}

/// TCP segment `i` of flow 0, 100 payload bytes that tell it apart.
fn data(i: u64) -> Packet {
    Packet {
        uid: i + 1,
        flow: 0,
        src: SRC,
        dst: DST,
        ttl: 32,
        ip_bytes: 140,
        created: 0,
        l4: L4::Tcp(TcpHeader::data(i * 100, 100)),
        payload: Some((0..100).map(|b| (b as u64 * 7 + i * 13) as u8).collect()),
    }
}

fn counter(s: &More, name: &str) -> u64 {
    let mut v = Vec::new();
    s.counters(&mut v);
    v.iter().find(|e| e.0 == name).expect("a counter").1
}

/// `p` from the network layer of `node` into its scheme.
fn put(b: &mut Bench, s: &mut More, node: NodeId, now: Time, p: Packet) -> SchemeOut {
    let hops = b.routes.next_hops(node, p.dst, p.flow);
    b.call(node, now, |cx| s.enqueue(cx, p, &hops))
}

/// The combinations a callback made (counted created; each waits in `ready`).
fn made(out: &SchemeOut) -> usize {
    out.created as usize
}

fn send(b: &mut Bench, s: &mut More, node: NodeId, now: Time) -> (Option<OutFrame>, SchemeOut) {
    let mut got = None;
    let out = b.call(node, now, |cx| got = s.poll_transmit(cx));
    (got, out)
}

fn hear(b: &mut Bench, s: &mut More, node: NodeId, tx: NodeId, p: &Packet) -> SchemeOut {
    let body = Body::native(p.clone(), BROADCAST);
    b.call(node, 0, |cx| {
        s.handle_rx(
            cx,
            Rx {
                tx,
                mac_rx: BROADCAST,
                addressed: Addressed::Broadcast,
                body: &body,
            },
        )
    })
}

fn batch_of(p: &Packet) -> u32 {
    more_batch(p).expect("a MORE combination").0
}

/// A combination of batch `batch` over `natives` with `coeffs`, listing the destination,
/// relay 1 with `credit`, and the source.
fn combination(batch: u32, natives: &[Packet], coeffs: &[u8], credit: f64) -> Packet {
    let natives: Arc<[Packet]> = natives.into();
    let header: crate::coding::Header = Arc::new(MoreHeader {
        forwarders: vec![(DST, 0.0), (1, credit), (SRC, 0.0)],
    });
    let views: Vec<Packet> = natives.to_vec();
    let mut buf = Vec::new();
    let payload = crate::coding::rlnc::combine_packets::<crate::coding::rlnc::Gf256>(
        coeffs, &views, &mut buf,
    );
    coded_packet(batch, &natives, coeffs, payload, &header)
}

#[test]
fn a_batch_closes_at_k_natives() {
    let mut b = bench();
    let mut s = layer(4);
    for i in 0..3 {
        let out = put(&mut b, &mut s, SRC, 0, data(i));
        assert_eq!(made(&out), 0, "not full yet");
        assert_eq!(out.consumed, 1, "the segment is taken");
        assert_eq!(out.wakes.len(), 1, "the batch wait runs");
    }
    assert_eq!(s.poll_at(), PollAt::Idle);
    let out = put(&mut b, &mut s, SRC, 0, data(3));
    assert_eq!(made(&out), 1, "full: the batch starts");
    let Span::Generation { id, size } = (match &s.ready[0].l4 {
        L4::Coded(c) => c.span,
        _ => panic!("a combination"),
    }) else {
        panic!("a batch")
    };
    assert_eq!((id, size), (0, 4));
    assert_eq!(counter(&s, "more_batches_started"), 1);
    assert_eq!(counter(&s, "more_batches_short"), 0);
    assert!(!s.timers.is_set(Timer::BatchWait(0)), "cancelled");
    // The plan lists the destination first and the source last.
    let h = s.ready[0].l4.clone();
    let L4::Coded(c) = h else { unreachable!() };
    let mh = c.header_as::<MoreHeader>().unwrap();
    assert_eq!(mh.forwarders.first().unwrap().0, DST);
    assert_eq!(mh.forwarders.last().unwrap().0, SRC);
}

#[test]
fn a_partial_batch_closes_after_the_batch_wait() {
    let mut b = bench();
    let mut s = layer(32);
    let wait = MoreCfg::default().params().batch_wait;
    put(&mut b, &mut s, SRC, 0, data(0));
    put(&mut b, &mut s, SRC, 10 * MILLIS, data(1));
    // The first wake-up (set at 0) finds a segment newer than the wait: nothing.
    let out = b.call(SRC, wait, |cx| s.handle_timeout(cx));
    assert_eq!(made(&out), 0);
    assert_eq!(s.sources[0].open_len(), 2);
    let out = b.call(SRC, 10 * MILLIS + wait, |cx| s.handle_timeout(cx));
    assert_eq!(made(&out), 1, "closed and started");
    let L4::Coded(c) = &s.ready[0].l4 else {
        panic!()
    };
    assert_eq!(c.span, Span::Generation { id: 0, size: 2 });
    assert_eq!(counter(&s, "more_batches_short"), 1);
}

#[test]
fn the_source_sends_until_acknowledged_then_moves_on() {
    let mut b = bench();
    let mut s = layer(2);
    let mut combinations = 0;
    for i in 0..4 {
        let out = put(&mut b, &mut s, SRC, 0, data(i));
        combinations += made(&out);
    }
    assert_eq!(combinations, 1, "one batch in flight; the second waits");
    assert_eq!(s.sources[0].closed_len(), 1);
    for _ in 0..5 {
        assert_eq!(s.poll_at(), PollAt::Now);
        let (f, out) = send(&mut b, &mut s, SRC, 0);
        let f = f.unwrap();
        assert_eq!(f.mac_rx, BROADCAST);
        assert_eq!(batch_of(&f.body.packets[0]), 0);
        // The frame carries its id for Alg. 1.
        assert!(f.body.header_as::<MoreHop>().unwrap().id.is_some());
        // The next combination is made at once.
        assert_eq!(made(&out), 1);
    }
    assert_eq!(counter(&s, "more_source_sent"), 5);
    // An acknowledgement of another flow changes nothing.
    let stray = ControlMsg {
        layer: Layer::Hop,
        fields: Arc::new(MoreAck { flow: 3, batch: 0 }),
    };
    let out = b.call(SRC, 0, |cx| s.handle_control(cx, DST, &stray));
    assert!(made(&out) == 0 && out.originate.is_empty() && out.drops.is_empty());
    // Batch 0 acknowledged: its ready combination goes, batch 1 starts.
    let ack = ControlMsg {
        layer: Layer::Hop,
        fields: Arc::new(MoreAck { flow: 0, batch: 0 }),
    };
    let out = b.call(SRC, 0, |cx| s.handle_control(cx, DST, &ack));
    assert_eq!(out.drops.len(), 1, "the ready combination of batch 0");
    assert_eq!(made(&out), 1);
    assert_eq!(batch_of(s.ready.back().unwrap()), 1);
    let (f, _) = send(&mut b, &mut s, SRC, 0);
    assert_eq!(batch_of(&f.unwrap().body.packets[0]), 1);
    assert_eq!(counter(&s, "more_batches_acked"), 1);
    assert_eq!(counter(&s, "more_batches_started"), 2);
}

#[test]
fn a_retransmission_of_an_unacknowledged_segment_is_not_added_again() {
    let mut b = bench();
    let mut s = layer(4);
    put(&mut b, &mut s, SRC, 0, data(0));
    let out = put(&mut b, &mut s, SRC, 0, data(0));
    assert_eq!(out.consumed, 1);
    assert_eq!(s.sources[0].open_len(), 1);
    assert_eq!(counter(&s, "more_retx_skipped"), 1);
}

#[test]
fn the_forwarder_credit_counter_follows_its_credit() {
    let mut b = bench();
    let mut s = layer(4);
    let natives: Vec<Packet> = (0..4).map(data).collect();
    // Credit 0.5: one recoded packet per two heard from upstream.
    let out = hear(
        &mut b,
        &mut s,
        1,
        SRC,
        &combination(0, &natives, &[1, 2, 3, 4], 0.5),
    );
    assert_eq!((out.absorbed, out.consumed), (1, 1));
    assert_eq!(made(&out), 0, "credit 0.5");
    let out = hear(
        &mut b,
        &mut s,
        1,
        SRC,
        &combination(0, &natives, &[5, 6, 7, 8], 0.5),
    );
    assert_eq!(made(&out), 1, "credit 1");
    assert_eq!(s.relays[0].1.credit, 1.0);
    let (f, out) = send(&mut b, &mut s, 1, 0);
    let f = f.unwrap();
    assert_eq!(f.mac_rx, BROADCAST);
    // A forwarder's frame keeps the flow's source and carries no id.
    assert_eq!(f.body.packets[0].src, SRC);
    assert_eq!(s.relays[0].1.credit, 0.0, "paid");
    assert_eq!(made(&out), 0, "no credit left");
    assert_eq!(s.poll_at(), PollAt::Idle);
    assert_eq!(counter(&s, "more_forwarder_sent"), 1);
    // The recoded packet lies in the span of what was heard, bytes included.
    let L4::Coded(c) = &f.body.packets[0].l4 else {
        panic!()
    };
    let mut d = crate::coding::rlnc::Decoder::<crate::coding::rlnc::Gf256>::new(0, 4);
    for p in [
        combination(0, &natives, &[1, 2, 3, 4], 0.5),
        combination(0, &natives, &[5, 6, 7, 8], 0.5),
    ] {
        let L4::Coded(x) = &p.l4 else { panic!() };
        let Coeffs::Gf256(k) = &x.coeffs else {
            panic!()
        };
        d.add(0, k, x.payload.as_deref());
    }
    let Coeffs::Gf256(k) = &c.coeffs else {
        panic!()
    };
    assert_eq!(k.len(), 4, "over the whole batch");
    assert_eq!(
        d.add(0, k, c.payload.as_deref()),
        crate::coding::rlnc::Added::NotInnovative
    );
}

#[test]
fn a_forwarder_stores_only_innovative_packets_and_ignores_downstream() {
    let mut b = bench();
    let mut s = layer(4);
    let natives: Vec<Packet> = (0..4).map(data).collect();
    let p = combination(0, &natives, &[1, 2, 3, 4], 0.4);
    hear(&mut b, &mut s, 1, SRC, &p);
    hear(&mut b, &mut s, 1, SRC, &p);
    assert_eq!(s.relays[0].1.rank(), 1);
    assert_eq!(counter(&s, "more_innovative"), 1);
    assert_eq!(counter(&s, "more_not_innovative"), 1);
    // Every packet from upstream counts towards the credit, innovative or not.
    assert!((s.relays[0].1.credit - 0.8).abs() < 1e-12);
    // From the destination (downstream), or from a node not in the list: ignored.
    for tx in [DST, 2] {
        let out = hear(
            &mut b,
            &mut s,
            1,
            tx,
            &combination(0, &natives, &[9, 9, 9, 9], 0.4),
        );
        assert_eq!(out.absorbed, 0, "from {tx}");
    }
    assert_eq!(s.relays[0].1.rank(), 1);
}

#[test]
fn an_acknowledgement_or_a_newer_batch_flushes_a_forwarder() {
    let mut b = bench();
    let mut s = layer(2);
    let natives: Vec<Packet> = (0..2).map(data).collect();
    let out = hear(
        &mut b,
        &mut s,
        1,
        SRC,
        &combination(0, &natives, &[1, 2], 1.0),
    );
    assert_eq!(made(&out), 1);
    assert_eq!(s.ready.len(), 1, "a recoded packet is ready");
    // A newer batch: the old state and its ready packet go.
    let newer: Vec<Packet> = (2..4).map(data).collect();
    let out = hear(
        &mut b,
        &mut s,
        1,
        SRC,
        &combination(1, &newer, &[3, 4], 1.0),
    );
    assert_eq!(out.drops.len(), 1, "the ready packet of batch 0");
    assert_eq!(s.relays[0].1.batch(), Some(1));
    assert_eq!(s.relays[0].1.rank(), 1);
    assert_eq!(counter(&s, "more_flushes"), 1);
    assert_eq!(made(&out), 1, "a recoded packet of batch 1");
    // Batch 0 again (older): ignored.
    let out = hear(
        &mut b,
        &mut s,
        1,
        SRC,
        &combination(0, &natives, &[5, 6], 1.0),
    );
    assert_eq!(out.absorbed, 0);
    // The acknowledgement of batch 1, forwarded here: flushed, ready packet dropped.
    let ack = Packet {
        uid: 99,
        flow: 0,
        src: DST,
        dst: SRC,
        ttl: 32,
        ip_bytes: 27,
        created: 0,
        l4: L4::Control(ControlMsg {
            layer: Layer::Hop,
            fields: Arc::new(MoreAck { flow: 0, batch: 1 }),
        }),
        payload: None,
    };
    let out = put(&mut b, &mut s, 1, 0, ack);
    assert_eq!(out.drops.len(), 1);
    assert_eq!(s.relays[0].1.batch(), None);
    assert_eq!(counter(&s, "more_flushes"), 2);
    assert_eq!(s.fifo.len(), 1, "the acknowledgement goes on");
    // The source still sends batch 1 (it missed the acknowledgement): the forwarder
    // acknowledges again, once while one waits in its FIFO.
    let out = hear(
        &mut b,
        &mut s,
        1,
        SRC,
        &combination(1, &newer, &[7, 8], 1.0),
    );
    assert_eq!(out.absorbed, 0);
    assert!(out.originate.is_empty(), "one waits already");
    let (f, _) = send(&mut b, &mut s, 1, 0);
    assert!(more_ack(&f.unwrap().body.packets[0]).is_some());
    let out = hear(
        &mut b,
        &mut s,
        1,
        SRC,
        &combination(1, &newer, &[7, 8], 1.0),
    );
    assert_eq!(out.originate.len(), 1);
    assert_eq!(counter(&s, "more_acks_repeated"), 1);
}

#[test]
fn the_destination_decodes_a_batch_hands_it_up_in_order_and_acknowledges() {
    let mut b = bench();
    let mut s = layer(3);
    let natives: Vec<Packet> = (0..3).map(data).collect();
    let rows: [[u8; 3]; 4] = [[1, 2, 3], [2, 4, 6], [0, 1, 7], [0, 0, 5]];
    let mut ups = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let out = hear(&mut b, &mut s, DST, 1, &combination(0, &natives, r, 0.0));
        assert_eq!((out.absorbed, out.consumed), (1, 1), "row {i}");
        ups.extend(out.up);
        if i == 3 {
            assert_eq!(out.originate.len(), 1, "acknowledged");
            let a = more_ack(&out.originate[0]).unwrap();
            assert_eq!((a.flow, a.batch), (0, 0));
            assert_eq!(out.originate[0].dst, SRC);
        }
    }
    assert_eq!(counter(&s, "more_not_innovative"), 1, "row 1 = 2 × row 0");
    assert_eq!(ups, natives, "in order, bytes decoded bit for bit");
    assert_eq!(counter(&s, "more_batches_decoded"), 1);
    // A late combination of the decoded batch: acknowledged again.
    let out = hear(
        &mut b,
        &mut s,
        DST,
        1,
        &combination(0, &natives, &[1, 1, 1], 0.0),
    );
    assert_eq!(out.originate.len(), 1);
    assert!(out.up.is_empty());
}

#[test]
fn header_sizes() {
    let h = MoreHeader {
        forwarders: vec![(4, 0.0), (1, 0.7), (0, 0.0)],
    };
    // Type 1, flow 2, batch 4, size 1, count 1, 3 × (address 4 + credit 2).
    assert_eq!(h.bytes(), 27);
    let natives: Vec<Packet> = (0..4).map(data).collect();
    let p = combination(0, &natives, &[1, 2, 3, 4], 0.5);
    // The longest native, the header (3 nodes) and one coefficient per native.
    assert_eq!(p.ip_bytes, 140 + 27 + 4);
    assert_eq!(MoreAck { flow: 0, batch: 0 }.bytes(), 7);
    let hop = MoreHop {
        id: Some(3),
        reports: vec![Report {
            to: 0,
            counts: Default::default(),
        }],
    };
    assert_eq!(hop.bytes(), 1 + 4 + 12);
    assert_eq!(MoreHop::default().bytes(), 1);
    // Each block writes what it says into a capture.
    let ack = MoreAck { flow: 0, batch: 0 };
    for b in [&hop as &dyn WireHeader, &h, &ack] {
        let mut v = Vec::new();
        b.write_pcap(&mut v);
        assert_eq!(v.len(), b.pcap_len());
    }
}

#[test]
fn a_failed_fifo_frame_is_sent_again_up_to_its_tries() {
    let mut b = bench();
    let mut s = layer(2);
    let mut h = TcpHeader::data(0, 0);
    h.ack = 100;
    let tcp_ack = Packet {
        uid: 5,
        flow: 0,
        src: DST,
        dst: SRC,
        ttl: 32,
        ip_bytes: 40,
        created: 0,
        l4: L4::Tcp(h),
        payload: None,
    };
    put(&mut b, &mut s, DST, 0, tcp_ack);
    let tries = MoreCfg::default().fifo_tries;
    for k in 1..=tries {
        let (f, _) = send(&mut b, &mut s, DST, 0);
        let f = f.unwrap();
        assert_ne!(f.mac_rx, BROADCAST);
        let out = b.call(DST, 0, |cx| s.handle_outcome(cx, f, TxOutcome::Failed));
        if k < tries {
            assert!(out.drops.is_empty(), "attempt {k}");
            assert_eq!(s.occupancy().held, 1);
        } else {
            assert_eq!(out.drops.len(), 1, "given up");
            assert_eq!(s.occupancy().held, 0);
        }
    }
    assert_eq!(counter(&s, "more_fifo_resent"), u64::from(tries) - 1);
}
