//! Engine-free checks of Horizon's forwarding decisions on the diamond (source 0, relays
//! 1-3, destination 4, three reinforced paths): flow selection, next-hop choice under
//! the back-pressure condition, holding, advertisements on the air.

use super::*;
use crate::coding::bench::Bench;
use crate::coding::SchemeOut;
use crate::engine::MILLIS;
use crate::net::L4;
use crate::scenario::{build, BuildOptions};
use crate::wire::tcp::TcpHeader;

const SRC: NodeId = 0;
const DST: NodeId = 4;

fn bench() -> Bench {
    Bench::new("diamond", &BuildOptions::new())
}

fn layer() -> Horizon {
    Horizon::new(HorizonCfg::default().params())
}

fn data(i: u64) -> Packet {
    Packet {
        uid: i,
        flow: 0,
        src: SRC,
        dst: DST,
        ttl: 32,
        ip_bytes: 1040,
        created: 0,
        l4: L4::Tcp(TcpHeader::data(i * 1000, 1000)),
        payload: None,
    }
}

fn ack(i: u64) -> Packet {
    let mut h = TcpHeader::data(0, 0);
    h.ack = i * 1000;
    Packet {
        uid: 1000 + i,
        flow: 0,
        src: DST,
        dst: SRC,
        ttl: 32,
        ip_bytes: 40,
        created: 0,
        l4: L4::Tcp(h),
        payload: None,
    }
}

fn put(b: &mut Bench, s: &mut Horizon, node: NodeId, now: Time, p: Packet) -> SchemeOut {
    let hops = b.routes.next_hops(node, p.dst, p.flow);
    b.call(node, now, |cx| s.enqueue(cx, p, &hops))
}

fn send(b: &mut Bench, s: &mut Horizon, node: NodeId, now: Time) -> Option<OutFrame> {
    let mut got = None;
    b.call(node, now, |cx| got = s.poll_transmit(cx));
    got
}

/// `node` hears `from` advertise (backlog, cost) for the data direction at `now`.
fn hear(b: &mut Bench, s: &mut Horizon, node: NodeId, from: NodeId, now: Time, bl: u32, c: f64) {
    let mut body = Body::native(data(999), DST);
    body.header = Some(Arc::new(HorizonHeader {
        entries: vec![Entry {
            flow: 0,
            dst: DST,
            backlog: bl,
            cost: c,
        }],
    }));
    b.call(node, now, |cx| {
        s.handle_rx(
            cx,
            Rx {
                tx: from,
                mac_rx: DST,
                addressed: Addressed::Overheard,
                body: &body,
            },
        )
    });
}

#[test]
fn the_source_sees_every_relay_as_a_candidate() {
    let mut b = bench();
    let mut s = layer();
    put(&mut b, &mut s, SRC, 0, data(0));
    let cands: Vec<NodeId> = s.queues[0].cands.iter().map(|c| c.node).collect();
    assert_eq!(cands, vec![1, 2, 3]);
    assert_eq!(s.poll_at(), PollAt::Now, "nothing heard: it sends");
}

#[test]
fn the_longest_queue_goes_first() {
    // A relay with data towards the destination and ACKs towards the source (equal
    // link rates): the longer queue is the slower to clear.
    let mut b = bench();
    let mut s = layer();
    for i in 0..3 {
        put(&mut b, &mut s, 1, 0, data(i));
    }
    put(&mut b, &mut s, 1, 0, ack(1));
    let f = send(&mut b, &mut s, 1, 0).unwrap();
    assert_eq!((f.mac_rx, f.body.packets[0].uid), (DST, 0));
    put(&mut b, &mut s, 1, 0, ack(2));
    put(&mut b, &mut s, 1, 0, ack(3));
    // 2 data, 3 ACKs.
    let f = send(&mut b, &mut s, 1, 0).unwrap();
    assert_eq!((f.mac_rx, f.body.packets[0].uid), (SRC, 1001));
    // 2 and 2: the tie goes to the queue made first (data).
    let f = send(&mut b, &mut s, 1, 0).unwrap();
    assert_eq!(f.body.packets[0].uid, 1);
}

#[test]
fn the_cheapest_neighbour_under_back_pressure_gets_the_packet() {
    let mut b = bench();
    let mut s = layer();
    for i in 0..3 {
        put(&mut b, &mut s, SRC, 0, data(i));
    }
    // Relay 1 is backlogged beyond the source (3): not a candidate though the cheapest
    // by cost; of 2 and 3 (backlogs 1 and 2, below 3) relay 3 advertises the lower cost.
    hear(&mut b, &mut s, SRC, 1, 0, 5, 0.1);
    hear(&mut b, &mut s, SRC, 2, 0, 1, 4.0);
    hear(&mut b, &mut s, SRC, 3, 0, 2, 2.0);
    let f = send(&mut b, &mut s, SRC, MILLIS).unwrap();
    assert_eq!(f.mac_rx, 3);
    assert_eq!(s.counters.sent_other, 1, "not the routing's first choice");
    // Two left: relay 3 (2) no longer qualifies; relay 2 (1) does.
    let f = send(&mut b, &mut s, SRC, MILLIS).unwrap();
    assert_eq!(f.mac_rx, 2);
    // The frame carries the advertisement, counted on the air: one packet left; cost =
    // its backlog times the link's ETX (1) plus the lowest downstream cost, relay 1's
    // (0.1), whether or not relay 1 qualifies under back-pressure now.
    let h = f.body.header_as::<HorizonHeader>().unwrap();
    assert_eq!(h.entries.len(), 1);
    assert_eq!((h.entries[0].backlog, h.entries[0].cost), (1, 1.1));
    assert_eq!(f.body.header_bytes, COUNT_BYTES + ENTRY_BYTES);
    assert_eq!(f.body.msdu_bytes, 8 + 1040 + f.body.header_bytes);
}

#[test]
fn a_node_holds_while_every_neighbour_is_as_backlogged_then_not_forever() {
    let mut b = bench();
    let mut s = layer();
    put(&mut b, &mut s, SRC, 0, data(0));
    let t = HorizonCfg::default().params().advert_timeout;
    for r in 1..=3 {
        hear(&mut b, &mut s, SRC, r, r as Time * MILLIS, 1, 1.0);
    }
    // Backlog 1, no neighbour below it: hold until the first advertisement runs out.
    assert_eq!(s.poll_at(), PollAt::At(MILLIS + t));
    assert!(send(&mut b, &mut s, SRC, MILLIS + t - 1).is_none());
    // A neighbour drains: its new advertisement frees the packet to it.
    hear(&mut b, &mut s, SRC, 2, 5 * MILLIS, 0, 0.0);
    assert_eq!(s.poll_at(), PollAt::Now);
    assert_eq!(send(&mut b, &mut s, SRC, 5 * MILLIS).unwrap().mac_rx, 2);
    // Again held; now relay 1's advertisement runs out: it counts as not heard from.
    put(&mut b, &mut s, SRC, 6 * MILLIS, data(1));
    hear(&mut b, &mut s, SRC, 2, 6 * MILLIS, 1, 1.0);
    assert_eq!(s.poll_at(), PollAt::At(MILLIS + t));
    let f = send(&mut b, &mut s, SRC, MILLIS + t).unwrap();
    assert_eq!(f.mac_rx, 1);
    assert_eq!(s.counters.sent_unheard, 1);
}

#[test]
fn the_source_drops_new_data_beyond_the_window_threshold() {
    let mut b = bench();
    let mut s = Horizon::new(
        HorizonCfg {
            window_threshold: 3,
            ..HorizonCfg::default()
        }
        .params(),
    );
    for i in 0..3 {
        assert!(put(&mut b, &mut s, SRC, 0, data(i)).drops.is_empty());
    }
    // The fourth segment would make the window 4 segments.
    let out = put(&mut b, &mut s, SRC, 0, data(3));
    assert_eq!(out.drops.len(), 1);
    assert_eq!(s.counters.window_drops, 1);
    // A retransmission always passes; an ACK of the first two opens the window.
    assert!(put(&mut b, &mut s, SRC, 0, data(1)).drops.is_empty());
    let mut body = Body::native(ack(2), SRC);
    body.header = None;
    let out = b.call(SRC, 0, |cx| {
        s.handle_rx(
            cx,
            Rx {
                tx: 1,
                mac_rx: SRC,
                addressed: Addressed::ToMe,
                body: &body,
            },
        )
    });
    assert_eq!(out.deliver.len(), 1, "the ACK goes up at once");
    assert!(put(&mut b, &mut s, SRC, 0, data(3)).drops.is_empty());
    assert!(put(&mut b, &mut s, SRC, 0, data(4)).drops.is_empty());
    assert_eq!(put(&mut b, &mut s, SRC, 0, data(5)).drops.len(), 1);
}

#[test]
fn the_destination_reorders_through_the_ledger_seam() {
    let mut b = bench();
    let mut s = layer();
    let rx = |b: &mut Bench, s: &mut Horizon, now: Time, p: Packet| {
        let body = Body::native(p, DST);
        b.call(DST, now, |cx| {
            s.handle_rx(
                cx,
                Rx {
                    tx: 2,
                    mac_rx: DST,
                    addressed: Addressed::ToMe,
                    body: &body,
                },
            )
        })
    };
    let out = rx(&mut b, &mut s, 0, data(1));
    assert_eq!((out.absorbed, out.release.len()), (1, 0));
    assert_eq!(out.wakes, vec![HorizonCfg::default().params().hold]);
    assert_eq!(s.occupancy().held, 1);
    let out = rx(&mut b, &mut s, MILLIS, data(0));
    let up: Vec<u64> = out.release.iter().map(|p| p.uid).collect();
    assert_eq!((out.absorbed, up), (1, vec![0, 1]));
    // A lone segment after a gap goes up when its hold time runs out.
    rx(&mut b, &mut s, 2 * MILLIS, data(5));
    let out = b.call(DST, 200 * MILLIS, |cx| s.handle_timeout(cx));
    assert_eq!(out.release.len(), 1);
    assert_eq!(s.counters.reorder_expired, 1);
}

/// The MAC reports `f`'s outcome to `node` at `now`.
fn outcome(
    b: &mut Bench,
    s: &mut Horizon,
    node: NodeId,
    now: Time,
    f: OutFrame,
    o: TxOutcome,
) -> SchemeOut {
    b.call(node, now, |cx| s.handle_outcome(cx, f, o))
}

/// What the source's data queue holds of relay `r`'s advertisement: (backlog, cost).
fn slot(s: &Horizon, r: NodeId) -> Option<(u32, f64)> {
    let c = s.queues[0].cands.iter().find(|c| c.node == r)?;
    c.advert(None).map(|h| (h.backlog, h.cost))
}

#[test]
fn a_delivered_packet_counts_at_the_neighbour_until_it_advertises_again() {
    let mut b = bench();
    let mut s = layer();
    for i in 0..2 {
        put(&mut b, &mut s, SRC, 0, data(i));
    }
    hear(&mut b, &mut s, SRC, 1, 0, 1, 0.1);
    hear(&mut b, &mut s, SRC, 2, 0, 1, 2.0);
    hear(&mut b, &mut s, SRC, 3, 0, 1, 3.0);
    let f = send(&mut b, &mut s, SRC, MILLIS).unwrap();
    assert_eq!(f.mac_rx, 1, "the cheapest");
    let out = outcome(&mut b, &mut s, SRC, 2 * MILLIS, f, TxOutcome::Delivered);
    assert_eq!(out.handed_over, 1);
    // Relay 1 now counts one packet and one transmission more than it said.
    assert_eq!(slot(&s, 1), Some((2, 1.1)));
    // Backlog 2 again: relay 1 (2) no longer qualifies, relay 2 does.
    put(&mut b, &mut s, SRC, 3 * MILLIS, data(2));
    assert_eq!(send(&mut b, &mut s, SRC, 3 * MILLIS).unwrap().mac_rx, 2);
    // Relay 1 advertises again: its own word replaces the count.
    hear(&mut b, &mut s, SRC, 1, 4 * MILLIS, 1, 0.1);
    assert_eq!(slot(&s, 1), Some((1, 0.1)));
    put(&mut b, &mut s, SRC, 5 * MILLIS, data(3));
    assert_eq!(send(&mut b, &mut s, SRC, 5 * MILLIS).unwrap().mac_rx, 1);
    // A neighbour not heard from counts 1 and 1 once handed a packet.
    let mut s = layer();
    put(&mut b, &mut s, SRC, 0, data(0));
    let f = send(&mut b, &mut s, SRC, 0).unwrap();
    assert_eq!(f.mac_rx, 1);
    outcome(&mut b, &mut s, SRC, MILLIS, f, TxOutcome::Delivered);
    assert_eq!(slot(&s, 1), Some((1, 1.0)));
    // The destination is never counted (it takes everything).
    let mut relay = layer();
    put(&mut b, &mut relay, 1, 0, data(1));
    let f = send(&mut b, &mut relay, 1, 0).unwrap();
    assert_eq!(f.mac_rx, DST);
    outcome(&mut b, &mut relay, 1, MILLIS, f, TxOutcome::Delivered);
    assert_eq!(slot(&relay, DST), None);
}

#[test]
fn equal_cost_candidates_take_turns() {
    let mut b = bench();
    let mut s = layer();
    for i in 0..3 {
        put(&mut b, &mut s, SRC, 0, data(i));
    }
    let to: Vec<NodeId> = (0..3)
        .map(|_| send(&mut b, &mut s, SRC, 0).unwrap().mac_rx)
        .collect();
    assert_eq!(
        to,
        vec![1, 2, 3],
        "nothing heard: every relay costs the same"
    );
    assert_eq!(s.counters.sent_unheard, 3);
}

#[test]
fn a_failed_frame_is_dropped_and_not_counted_at_the_neighbour() {
    let mut b = bench();
    let mut s = layer();
    for i in 0..2 {
        put(&mut b, &mut s, SRC, 0, data(i));
    }
    hear(&mut b, &mut s, SRC, 1, 0, 1, 0.1);
    hear(&mut b, &mut s, SRC, 2, 0, 1, 2.0);
    hear(&mut b, &mut s, SRC, 3, 0, 1, 3.0);
    let f = send(&mut b, &mut s, SRC, MILLIS).unwrap();
    assert_eq!(f.mac_rx, 1);
    let out = outcome(&mut b, &mut s, SRC, 2 * MILLIS, f, TxOutcome::Failed);
    assert_eq!(out.handed_over, 0);
    assert_eq!(out.drops.len(), 1);
    assert_eq!(out.drops[0].0.uid, 0);
    assert!(matches!(out.drops[0].1, DropReason::RetryLimit));
    // Not re-queued, no +1: relay 1 is still the cheapest that qualifies.
    assert_eq!(slot(&s, 1), Some((1, 0.1)));
    assert_eq!(s.queued(), 1);
    put(&mut b, &mut s, SRC, 3 * MILLIS, data(2));
    assert_eq!(send(&mut b, &mut s, SRC, 3 * MILLIS).unwrap().mac_rx, 1);
}

#[test]
fn a_full_node_drops_new_packets_whatever_their_direction() {
    let mut b = bench();
    b.capacity = 3;
    let mut s = layer();
    for i in 0..2 {
        assert!(put(&mut b, &mut s, 1, 0, data(i)).drops.is_empty());
    }
    assert!(put(&mut b, &mut s, 1, 0, ack(1)).drops.is_empty());
    // Three queued over two queues: the node is full.
    for p in [data(2), ack(2)] {
        let out = put(&mut b, &mut s, 1, 0, p);
        assert_eq!(out.drops.len(), 1);
        assert!(matches!(out.drops[0].1, DropReason::QueueFull));
    }
    assert_eq!((s.counters.enqueued, s.counters.queue_drops), (3, 2));
    assert_eq!(s.counters.window_drops, 0);
    // A packet sent makes room.
    send(&mut b, &mut s, 1, 0).unwrap();
    assert!(put(&mut b, &mut s, 1, 0, data(3)).drops.is_empty());
}

#[test]
fn one_path_means_one_candidate() {
    let mut s = build("diamond", &BuildOptions::new()).unwrap();
    s.routing.paths = 1;
    let mut b = bench();
    b.routes = crate::net::Routes::build(&s.routing, &s.flows, &b.channel, s.nodes.len());
    let mut h = layer();
    for i in 0..2 {
        put(&mut b, &mut h, SRC, 0, data(i));
    }
    assert_eq!(h.queues[0].cands.len(), 1);
    let only = h.queues[0].cands.get(0).node;
    // Another relay's advertisement is no candidate's: ignored.
    let other = (1..=3).find(|&r| r != only).unwrap();
    hear(&mut b, &mut h, SRC, other, 0, 0, 0.0);
    assert_eq!(h.counters.adverts_heard, 0);
    // The one candidate is as backlogged: hold until its advertisement runs out.
    hear(&mut b, &mut h, SRC, only, 0, 2, 1.0);
    assert_eq!(h.counters.adverts_heard, 1);
    let t = HorizonCfg::default().params().advert_timeout;
    assert_eq!(h.poll_at(), PollAt::At(t));
    assert!(send(&mut b, &mut h, SRC, MILLIS).is_none());
    for now in [t, t] {
        let f = send(&mut b, &mut h, SRC, now).unwrap();
        assert_eq!(f.mac_rx, only);
    }
    assert_eq!(h.counters.sent_other, 0);
}

#[test]
fn only_candidates_adverts_count_and_long_empty_queues_are_not_advertised() {
    let mut b = bench();
    let mut s = layer();
    // No queue for the data direction yet: the relay's advertisement is ignored.
    hear(&mut b, &mut s, SRC, 1, 0, 1, 1.0);
    assert_eq!(s.counters.adverts_heard, 0);
    put(&mut b, &mut s, SRC, 0, data(0));
    assert_eq!(slot(&s, 1), None);
    // The destination is no candidate of the source's data queue.
    hear(&mut b, &mut s, SRC, DST, 0, 1, 1.0);
    assert_eq!(s.counters.adverts_heard, 0);
    hear(&mut b, &mut s, SRC, 1, 0, 0, 0.5);
    assert_eq!(s.counters.adverts_heard, 1);
    // The queue empties with this frame; it is still advertised (backlog 0) until it
    // has been empty for longer than the advertisement lifetime.
    let t = HorizonCfg::default().params().advert_timeout;
    let f = send(&mut b, &mut s, SRC, MILLIS).unwrap();
    let h = f.body.header_as::<HorizonHeader>().unwrap();
    assert_eq!(h.entries.len(), 1);
    assert_eq!(h.entries[0].backlog, 0);
    // An ACK queue (at a relay, say) keeps sending; the empty data queue drops out.
    let ads = |s: &Horizon, now| s.advertisement(now).entries.len();
    assert_eq!(ads(&s, MILLIS + t), 1);
    assert_eq!(ads(&s, MILLIS + t + 1), 0);
    put(&mut b, &mut s, SRC, 2 * t, data(1));
    assert_eq!(ads(&s, 2 * t), 1, "a packet brings it back");
    assert_eq!(
        slot(&s, 1),
        Some((0, 0.5)),
        "its candidates keep their slots"
    );
}
