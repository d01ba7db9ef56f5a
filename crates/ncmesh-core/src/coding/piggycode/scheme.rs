//! The DATA/ACK coding layer of one node (PiggyCode as Takimoto et al. §II and Chen et
//! al.'s ComboCoding describe it, with Takimoto et al.'s wait time, §III-IV).
//!
//! - Every node keeps a copy of each TCP packet it sends (the decoding buffer).
//! - A relay codes a TCP DATA packet with a TCP ACK of the same session going the other
//!   way: when one of them is enqueued and the interface queue holds the other (the one
//!   closest to the head), the two leave as one frame, put at the head of the queue.
//! - With a wait time, a DATA packet that finds no ACK waits in the encoding queue for
//!   at most that long; an arriving ACK looks there first, then in the interface queue.
//!   Only DATA waits. An expired DATA, or the head of a full encoding queue, goes on to
//!   the interface queue.
//! - A coded frame is unicast to the DATA's next hop (MAC retries protect that side
//!   only) and overheard by the ACK's next hop, which decode it (`decoding`).
//! - Two packets are coded only if each receiver holds the other's partner: the ACK
//!   came from the DATA's next hop and the DATA from the ACK's next hop (on symmetric
//!   routes, always).

use super::decoding::Decoder;
use super::header::{PiggyHeader, HEADER_BYTES};
use super::recent::Recent;
use super::{PiggyCounters, PiggyParams, Placement, WaitRule};
use crate::coding::timers::Timers;
use crate::coding::xor::payload::xor_all;
use crate::coding::{
    Addressed, Body, CodingScheme, Occupancy, OutFrame, PollAt, Rx, SchemeCx, TxOutcome,
};
use crate::engine::Time;
use crate::net::{DropReason, NextHop, NodeId, Packet, L4};
use crate::phy::timing::LLC_BYTES;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::Arc;

/// What a TCP packet is to this layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A segment with payload.
    Data,
    /// A pure acknowledgement.
    Ack,
    /// Anything else (UDP, coding control messages, coded symbols): never coded.
    Other,
}

/// Only relays code (Takimoto et al. §III-B): a node that is neither the packet's source
/// nor its destination. End hosts only keep copies.
fn at_relay(p: &Packet, node: NodeId) -> bool {
    p.src != node && p.dst != node
}

/// PiggyCode reads the TCP header; ComboCoding looks at the direction only (Chen et al.,
/// "Protocol design": its packets are intra-flow combinations), so with `data_sources`
/// (each flow's DATA sender) a TCP or Pipeline-coded packet is DATA when it comes from
/// its flow's sender and ACK otherwise.
fn role(p: &Packet, data_sources: Option<&[NodeId]>) -> Role {
    match (data_sources, &p.l4) {
        (None, L4::Tcp(h)) if h.len > 0 => Role::Data,
        (None, L4::Tcp(_)) => Role::Ack,
        (Some(srcs), L4::Tcp(_) | L4::Coded(_)) => match srcs.get(p.flow as usize) {
            Some(&s) if s == p.src => Role::Data,
            Some(_) => Role::Ack,
            None => Role::Other,
        },
        _ => Role::Other,
    }
}

/// A packet waiting at this node, with where it goes and where it came from.
#[derive(Debug)]
struct Held {
    pkt: Packet,
    next: NodeId,
    /// The node it came from (None: originated here, or not looked up because the
    /// packet is not coded here).
    prev: Option<NodeId>,
}

/// One slot of the interface queue.
#[derive(Debug)]
enum Slot {
    Native(Held),
    /// A DATA and an ACK XORed (Takimoto et al. §II-A).
    Coded {
        data: Held,
        ack: Held,
    },
}

/// A DATA packet held in the encoding queue until `deadline`.
#[derive(Debug)]
struct Waiting {
    held: Held,
    since: Time,
    deadline: Time,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Timer {
    /// The earliest encoding-queue deadline.
    Wait,
    /// The next check of the decoding queue.
    DecodePoll,
}

/// One node's DATA/ACK coding layer.
pub struct PiggyScheme {
    p: PiggyParams,
    ifq: VecDeque<Slot>,
    encq: VecDeque<Waiting>,
    decoder: Decoder,
    /// Where recently received packets came from.
    came_from: Recent,
    timers: Timers<Timer>,
    /// This node's counters.
    pub counters: PiggyCounters,
}

impl PiggyScheme {
    /// A layer with parameters `p`.
    pub fn new(p: PiggyParams) -> PiggyScheme {
        PiggyScheme {
            decoder: Decoder::new(p.buffer, p.decode_max_wait),
            p,
            ifq: VecDeque::new(),
            encq: VecDeque::new(),
            came_from: Recent::default(),
            timers: Timers::default(),
            counters: PiggyCounters::default(),
        }
    }

    /// Can `data` and `ack` be coded: one TCP session, opposite directions, and each
    /// receiver holds the other's partner (it sent it to this node)?
    fn pair(data: &Held, ack: &Held) -> bool {
        data.pkt.flow == ack.pkt.flow
            && data.pkt.src == ack.pkt.dst
            && data.pkt.dst == ack.pkt.src
            && ack.prev == Some(data.next)
            && data.prev == Some(ack.next)
    }

    /// Index of the native in the interface queue closest to the head that pairs with
    /// `h` (which has role `want`'s opposite).
    fn find_in_ifq(&self, h: &Held, want: Role) -> Option<usize> {
        self.ifq.iter().position(|s| match s {
            Slot::Native(o) if role(&o.pkt, self.p.data_sources.as_deref()) == want => match want {
                Role::Ack => Self::pair(h, o),
                _ => Self::pair(o, h),
            },
            _ => false,
        })
    }

    /// Where a coded pair whose DATA is `data` goes (`placement`); `at` is where its DATA
    /// sat in the interface queue (None: the DATA is new or comes from the encoding
    /// queue).
    fn coded_place(&self, data: &Packet, at: Option<usize>) -> usize {
        match self.p.placement {
            Placement::Stack => 0,
            Placement::LowerLayer => self.ifq.len(),
            Placement::InPlace => at.unwrap_or(self.ifq.len()),
            Placement::Ordered => {
                let seq = data.tcp().map_or(0, |h| h.seq);
                let older = |p: &Packet| {
                    p.flow == data.flow
                        && p.src == data.src
                        && p.tcp().is_some_and(|h| h.len > 0 && h.seq < seq)
                };
                self.ifq
                    .iter()
                    .rposition(|s| match s {
                        Slot::Native(h) => older(&h.pkt),
                        Slot::Coded { data, .. } => older(&data.pkt),
                    })
                    .map_or(0, |i| i + 1)
            }
        }
    }

    /// Queues a coded pair; `at` is where its DATA sat in the interface queue.
    fn push_coded(&mut self, cx: &mut SchemeCx, data: Held, ack: Held, at: Option<usize>) {
        // Takimoto et al. §II-A: towards the head of the queue (`placement`). Over
        // capacity, the tail is dropped (ns-2's drop-tail queue on a head insertion).
        let place = self.coded_place(&data.pkt, at);
        self.ifq.insert(place, Slot::Coded { data, ack });
        self.counters.data_coded += 1;
        self.counters.ack_coded += 1;
        if self.ifq.len() > cx.queue_capacity {
            match self.ifq.pop_back().expect("over capacity") {
                Slot::Native(h) => cx.drop_packet(h.pkt, DropReason::QueueFull),
                Slot::Coded { data, ack } => {
                    cx.drop_packet(data.pkt, DropReason::QueueFull);
                    cx.drop_packet(ack.pkt, DropReason::QueueFull);
                }
            }
        }
    }

    /// Removes the native at `i` (found by `find_in_ifq`).
    fn take_native(&mut self, i: usize) -> Held {
        match self.ifq.remove(i) {
            Some(Slot::Native(h)) => h,
            _ => unreachable!("find_in_ifq returns natives"),
        }
    }

    fn push_native(&mut self, cx: &mut SchemeCx, h: Held) {
        if self.ifq.len() >= cx.queue_capacity {
            cx.drop_packet(h.pkt, DropReason::QueueFull);
        } else {
            self.ifq.push_back(Slot::Native(h));
        }
    }

    /// Moves a DATA packet out of the encoding queue to the interface queue.
    fn release_waiting(&mut self, cx: &mut SchemeCx, w: Waiting) {
        self.note_wait(cx.now - w.since);
        self.push_native(cx, w.held);
    }

    fn note_wait(&mut self, waited: Time) {
        let us = waited / 1_000;
        self.counters.wait_us_total += us;
        self.counters.wait_us_max = self.counters.wait_us_max.max(us);
    }

    fn arm_wait_timer(&mut self, cx: &mut SchemeCx) {
        match self.encq.iter().map(|w| w.deadline).min() {
            Some(d) if self.timers.deadline(Timer::Wait) != Some(d) => {
                self.timers.set(cx, d, Timer::Wait)
            }
            Some(_) => {}
            None => {
                self.timers.cancel(Timer::Wait);
            }
        }
    }

    /// Does a DATA that may wait skip the interface queue, and an ACK search only the
    /// encoding queue (§III-B's module)?
    fn encoding_queue_only(&self) -> bool {
        self.p.placement == Placement::LowerLayer && self.p.wait != WaitRule::Fixed(0)
    }

    /// A DATA packet at a relay (Takimoto et al. §III-A).
    fn enqueue_data(&mut self, cx: &mut SchemeCx, data: Held) {
        let hops = match (cx.cost(data.pkt.src), cx.cost(data.pkt.dst)) {
            (Some(a), Some(b)) => a.hops + b.hops,
            _ => u32::MAX,
        };
        let wait = self.p.wait.wait(hops, self.ifq.len());
        if wait == 0 || !self.encoding_queue_only() {
            if let Some(i) = self.find_in_ifq(&data, Role::Ack) {
                let ack = self.take_native(i);
                return self.push_coded(cx, data, ack, None);
            }
        }
        if wait == 0 {
            return self.push_native(cx, data);
        }
        if self.encq.len() >= self.p.encoding_queue {
            // §III-B: a full encoding queue pushes its head out.
            let head = self.encq.pop_front().expect("full queue");
            self.release_waiting(cx, head);
        }
        self.counters.data_waited += 1;
        // The encoding queue releases a flow's DATA in the order they came: a DATA given
        // a shorter wait (the configured wait is chosen per packet, §IV-A) leaves no
        // earlier than an older one of its flow.
        let (flow, src) = (data.pkt.flow, data.pkt.src);
        let after = self
            .encq
            .iter()
            .filter(|w| w.held.pkt.flow == flow && w.held.pkt.src == src)
            .map(|w| w.deadline)
            .max();
        self.encq.push_back(Waiting {
            held: data,
            since: cx.now,
            deadline: (cx.now + wait).max(after.unwrap_or(0)),
        });
        self.arm_wait_timer(cx);
    }

    /// An ACK at a relay: the encoding queue first, then the interface queue (§III-A).
    fn enqueue_ack(&mut self, cx: &mut SchemeCx, ack: Held) {
        if let Some(i) = self.encq.iter().position(|w| Self::pair(&w.held, &ack)) {
            let w = self.encq.remove(i).expect("found");
            self.note_wait(cx.now - w.since);
            self.push_coded(cx, w.held, ack, None);
            return self.arm_wait_timer(cx);
        }
        if !self.encoding_queue_only() {
            if let Some(i) = self.find_in_ifq(&ack, Role::Data) {
                let data = self.take_native(i);
                return self.push_coded(cx, data, ack, Some(i));
            }
        }
        self.push_native(cx, ack);
    }

    fn coded_body(&mut self, now: Time, data: Held, ack: Held) -> (NodeId, Body) {
        let header = PiggyHeader {
            data_uid: data.pkt.uid,
            ack_uid: ack.pkt.uid,
            data_next: data.next,
            ack_next: ack.next,
        };
        self.decoder.store(now, &data.pkt);
        self.decoder.store(now, &ack.pkt);
        // The shorter packet is padded to the longer (Chen et al., ComboCoding).
        let coded_payload = (data.pkt.carried().is_some() || ack.pkt.carried().is_some())
            .then(|| xor_all([data.pkt.carried(), ack.pkt.carried()].into_iter()));
        let len = data.pkt.ip_bytes.max(ack.pkt.ip_bytes);
        let mut intended = SmallVec::new();
        intended.push(data.next);
        intended.push(ack.next);
        let mut packets = SmallVec::new();
        packets.push(data.pkt);
        packets.push(ack.pkt);
        let body = Body {
            intended,
            packets,
            padding: 0,
            msdu_bytes: LLC_BYTES + HEADER_BYTES + len,
            header_bytes: HEADER_BYTES,
            coded_payload,
            header: Some(Arc::new(header)),
        };
        (data.next, body)
    }
}

impl CodingScheme for PiggyScheme {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        let next = hops[0].node;
        let r = role(&pkt, self.p.data_sources.as_deref());
        if r == Role::Other || !at_relay(&pkt, cx.node) {
            return self.push_native(
                cx,
                Held {
                    pkt,
                    next,
                    prev: None,
                },
            );
        }
        // The previous hop matters only to the pairing rule, so only here is it looked up.
        let held = Held {
            prev: self.came_from.from(pkt.uid),
            next,
            pkt,
        };
        match r {
            Role::Data => self.enqueue_data(cx, held),
            _ => self.enqueue_ack(cx, held),
        }
    }

    fn poll_at(&self) -> PollAt {
        if self.ifq.is_empty() {
            PollAt::Idle
        } else {
            PollAt::Now
        }
    }

    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        let (mac_rx, body) = match self.ifq.pop_front()? {
            Slot::Native(h) => {
                let r = role(&h.pkt, self.p.data_sources.as_deref());
                if r != Role::Other {
                    self.decoder.store(cx.now, &h.pkt);
                }
                if r == Role::Ack && at_relay(&h.pkt, cx.node) {
                    self.counters.ack_uncoded += 1;
                }
                (h.next, Body::native(h.pkt, h.next))
            }
            Slot::Coded { data, ack } => {
                self.counters.coded_tx += 1;
                self.coded_body(cx.now, data, ack)
            }
        };
        Some(OutFrame { mac_rx, body })
    }

    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        if let Some(h) = rx.body.header_as::<PiggyHeader>() {
            let queued = self
                .decoder
                .receive(cx, &rx, h, &mut self.came_from, &mut self.counters);
            if queued && !self.timers.is_set(Timer::DecodePoll) {
                self.timers
                    .set(cx, cx.now + self.p.decode_poll, Timer::DecodePoll);
            }
            return;
        }
        if rx.addressed != Addressed::Overheard {
            for p in &rx.body.packets {
                self.came_from.note(p.uid, rx.tx);
                cx.deliver(p.clone());
            }
        }
    }

    fn handle_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        // A coded frame's ACK side leaves with it: the overhearing node gets no
        // retransmission if it missed it (§III-C).
        cx.settle(frame, outcome);
    }

    fn handle_timeout(&mut self, cx: &mut SchemeCx) {
        while let Some(t) = self.timers.pop_due(cx.now) {
            match t {
                Timer::Wait => {
                    // Expired DATA packets go on to the interface queue (§III-A).
                    while let Some(i) = self.encq.iter().position(|w| w.deadline <= cx.now) {
                        let w = self.encq.remove(i).expect("found");
                        self.release_waiting(cx, w);
                    }
                    self.arm_wait_timer(cx);
                }
                Timer::DecodePoll => {
                    if self
                        .decoder
                        .poll(cx, &mut self.came_from, &mut self.counters)
                    {
                        self.timers
                            .set(cx, cx.now + self.p.decode_poll, Timer::DecodePoll);
                    }
                }
            }
        }
    }

    fn occupancy(&self) -> Occupancy {
        let in_ifq: usize = self
            .ifq
            .iter()
            .map(|s| match s {
                Slot::Native(_) => 1,
                Slot::Coded { .. } => 2,
            })
            .sum();
        Occupancy {
            queued: self.ifq.len(),
            held: in_ifq + self.encq.len() + self.decoder.waiting(),
        }
    }

    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        self.counters.report(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::bench::{hop, Bench};
    use crate::coding::SchemeOut;
    use crate::engine::MILLIS;
    use crate::net::L4;
    use crate::transport::tcp::TcpHeader;

    fn tcp(uid: u64, src: NodeId, dst: NodeId, len: u32) -> Packet {
        let h = TcpHeader {
            seq: uid * 1000,
            len,
            ..TcpHeader::default()
        };
        Packet {
            uid,
            flow: 0,
            src,
            dst,
            ttl: 32,
            ip_bytes: 40 + len,
            created: 0,
            l4: L4::Tcp(h),
            payload: (len > 0).then(|| (0..len).map(|i| (uid as u32 * 7 + i) as u8).collect()),
        }
    }

    fn data(uid: u64) -> Packet {
        tcp(uid, 0, 2, 1024)
    }

    fn ack(uid: u64) -> Packet {
        tcp(uid, 2, 0, 0)
    }

    /// Relay 1 of a 2-hop chain receives `p` from `from` (as the MAC would hand it up).
    fn receive(
        b: &mut Bench,
        s: &mut PiggyScheme,
        node: NodeId,
        now: Time,
        from: NodeId,
        p: Packet,
    ) {
        let body = Body::native(p, node);
        b.call(node, now, |cx| {
            s.handle_rx(
                cx,
                Rx {
                    tx: from,
                    mac_rx: node,
                    addressed: Addressed::ToMe,
                    body: &body,
                },
            )
        });
    }

    fn waittime(ms: u64) -> PiggyScheme {
        let mut p = super::super::PiggyCfg::default().params(true);
        p.wait = super::super::WaitRule::Fixed(ms * MILLIS);
        PiggyScheme::new(p)
    }

    /// The relay of a 2-hop chain gets `pkt` from `from` and enqueues it towards `to`.
    fn relay(
        b: &mut Bench,
        s: &mut PiggyScheme,
        now: Time,
        from: NodeId,
        to: NodeId,
        pkt: Packet,
    ) -> SchemeOut {
        receive(b, s, 1, now, from, pkt.clone());
        b.call(1, now, |cx| s.enqueue(cx, pkt, &hop(to)))
    }

    /// The frame `node` sends at this opportunity.
    fn transmit(b: &mut Bench, s: &mut PiggyScheme, node: NodeId, now: Time) -> OutFrame {
        let mut got = None;
        b.call(node, now, |cx| got = s.poll_transmit(cx));
        got.expect("a frame is due")
    }

    #[test]
    fn a_data_packet_waits_then_codes_with_the_ack_that_arrives() {
        let mut b = Bench::chain(2);
        let mut s = waittime(30);
        relay(&mut b, &mut s, 0, 0, 2, data(1));
        // Held in the encoding queue: nothing due, the MAC does not contend.
        assert_eq!(s.poll_at(), PollAt::Idle);
        relay(&mut b, &mut s, 5 * MILLIS, 2, 0, ack(2));
        assert_eq!(s.poll_at(), PollAt::Now);
        let f = transmit(&mut b, &mut s, 1, 5 * MILLIS);
        assert!(f.body.header_as::<PiggyHeader>().is_some());
        assert_eq!(s.counters.data_coded, 1);
        assert_eq!(s.counters.wait_us_max, 5_000);
    }

    #[test]
    fn a_data_packet_never_waits_longer_than_its_wait_time() {
        let mut b = Bench::chain(2);
        let mut s = waittime(30);
        let out = relay(&mut b, &mut s, 0, 0, 2, data(1));
        assert_eq!(out.wakes, vec![30 * MILLIS]);
        let out = b.call(1, 30 * MILLIS, |cx| s.handle_timeout(cx));
        assert!(out.drops.is_empty());
        assert_eq!(s.poll_at(), PollAt::Now);
        let f = transmit(&mut b, &mut s, 1, 30 * MILLIS);
        assert_eq!(f.body.packets[0].uid, 1);
        assert!(f.body.header.is_none(), "sent uncoded after its wait");
        assert_eq!(s.counters.wait_us_max, 30_000);
    }

    #[test]
    fn an_ack_never_waits() {
        let mut b = Bench::chain(2);
        let mut s = waittime(90);
        let out = relay(&mut b, &mut s, 0, 2, 0, ack(1));
        assert!(out.wakes.is_empty());
        assert_eq!(
            s.poll_at(),
            PollAt::Now,
            "an ACK with no DATA to code goes at once"
        );
        assert_eq!(transmit(&mut b, &mut s, 1, 0).body.packets[0].uid, 1);
        assert_eq!(s.counters.ack_uncoded, 1);
        assert_eq!(s.counters.data_waited, 0);
    }

    #[test]
    fn an_ack_codes_with_the_data_closest_to_the_head() {
        let mut b = Bench::chain(2);
        let mut s = PiggyScheme::new(super::super::PiggyCfg::default().params(false));
        relay(&mut b, &mut s, 0, 0, 2, data(1));
        relay(&mut b, &mut s, 1, 0, 2, data(2));
        relay(&mut b, &mut s, 2, 2, 0, ack(3));
        let f = transmit(&mut b, &mut s, 1, 3);
        let h = f.body.header_as::<PiggyHeader>().unwrap();
        assert_eq!((h.data_uid, h.ack_uid), (1, 3));
        assert_eq!(f.mac_rx, 2, "unicast to the DATA's next hop");
        assert_eq!(&f.body.intended[..], &[2, 0]);
        // The shorter packet is padded: the frame is as long as the DATA.
        assert_eq!(f.body.msdu_bytes, LLC_BYTES + HEADER_BYTES + 1064);
    }

    /// The data uids of the relay's frames, in sending order.
    fn drain(b: &mut Bench, s: &mut PiggyScheme) -> Vec<u64> {
        let mut out = Vec::new();
        while s.poll_at() == PollAt::Now {
            out.push(transmit(b, s, 1, 10).body.packets[0].uid);
        }
        out
    }

    /// Each placement keeps or breaks the order of a flow's DATA as it says: a coded DATA
    /// 3 at the very head goes before DATA 1 still queued inside a coded slot (stack);
    /// ordered and in place keep 1, 3, 4; passed to the lower layer, the pair of DATA 3
    /// (pulled from the queue by ACK 5) goes to the tail behind DATA 4.
    #[test]
    fn each_placement_keeps_or_breaks_data_order_as_it_says() {
        for (placement, order) in [
            (Placement::Stack, vec![3, 1, 4]),
            (Placement::Ordered, vec![1, 3, 4]),
            (Placement::InPlace, vec![1, 3, 4]),
            (Placement::LowerLayer, vec![1, 4, 3]),
        ] {
            let mut b = Bench::chain(2);
            let mut p = super::super::PiggyCfg::default().params(false);
            p.placement = placement;
            let mut s = PiggyScheme::new(p);
            relay(&mut b, &mut s, 0, 0, 2, data(1));
            relay(&mut b, &mut s, 1, 2, 0, ack(2)); // [C(1,2)]
            relay(&mut b, &mut s, 2, 0, 2, data(3));
            relay(&mut b, &mut s, 3, 0, 2, data(4)); // [C(1,2), 3, 4]
            relay(&mut b, &mut s, 4, 2, 0, ack(5)); // pairs with DATA 3
            assert_eq!(drain(&mut b, &mut s), order, "{placement:?}");
        }
    }

    /// Ordered: a coded DATA goes to the head when no older DATA of its flow is queued,
    /// ahead of other flows' packets and of its own flow's newer DATA.
    #[test]
    fn ordered_goes_to_the_head_past_newer_data_only() {
        let mut b = Bench::chain(2);
        let mut s = PiggyScheme::new(super::super::PiggyCfg::default().params(false));
        relay(&mut b, &mut s, 0, 0, 2, data(4));
        relay(&mut b, &mut s, 1, 0, 2, data(3)); // a retransmission after 4
        relay(&mut b, &mut s, 2, 2, 0, ack(5)); // pairs with DATA 4 (closest to the head)
                                                // DATA 3 is older than 4: the pair of 4 stays behind it.
        assert_eq!(drain(&mut b, &mut s), vec![3, 4]);
    }

    /// §III-B's module with a wait: the DATA waits without looking at the interface
    /// queue, and an ACK codes only with a waiting DATA.
    #[test]
    fn lower_layer_searches_only_the_encoding_queue() {
        let mut b = Bench::chain(2);
        let mut p = super::super::PiggyCfg::default().params(true);
        p.wait = WaitRule::Fixed(30 * MILLIS);
        p.placement = Placement::LowerLayer;
        let mut s = PiggyScheme::new(p);
        relay(&mut b, &mut s, 0, 2, 0, ack(1)); // no DATA waits: queued as it is
        relay(&mut b, &mut s, 1, 0, 2, data(2)); // does not take ACK 1: waits
        assert_eq!((s.counters.data_waited, s.counters.data_coded), (1, 0));
        relay(&mut b, &mut s, 2, 2, 0, ack(3)); // codes with the waiting DATA 2
        assert_eq!(s.counters.data_coded, 1);
        // Queued in order of arrival: ACK 1, then the pair at the tail.
        assert_eq!(drain(&mut b, &mut s), vec![1, 2]);
    }

    /// ComboCoding's network-layer buffer (Chen et al., "Improved inter-flow coding", the
    /// lower-layer placement with the timer T): a DATA waits up to T, an ACK pairs with
    /// the oldest waiting DATA, and every packet joins the interface queue at its tail, so
    /// DATA leave in the order they came whatever the ACKs do. PiggyCode's stack, for
    /// contrast, sends a pair ahead of older DATA already queued.
    #[test]
    fn the_network_buffer_never_lets_a_data_overtake_another() {
        for (placement, in_order) in [(Placement::LowerLayer, true), (Placement::Stack, false)] {
            let mut b = Bench::chain(2);
            let mut p = super::super::PiggyCfg::default().params(true);
            p.wait = WaitRule::Fixed(4 * MILLIS);
            p.placement = placement;
            p.data_sources = Some(std::sync::Arc::from([0]));
            let mut s = PiggyScheme::new(p);
            let mut sent = Vec::new();
            let mut send = |b: &mut Bench, s: &mut PiggyScheme, now: Time| {
                b.call(1, now, |cx| s.handle_timeout(cx));
                while s.poll_at() == PollAt::Now {
                    sent.extend(transmit(b, s, 1, now).body.packets.iter().map(|p| p.uid));
                }
            };
            for uid in 1..=24u64 {
                let now = uid * MILLIS;
                relay(&mut b, &mut s, now, 0, 2, data(uid));
                if uid % 5 == 0 {
                    relay(&mut b, &mut s, now, 2, 0, ack(100 + uid));
                }
                if uid % 8 == 0 {
                    send(&mut b, &mut s, now);
                }
            }
            send(&mut b, &mut s, 40 * MILLIS);
            let data: Vec<u64> = sent.into_iter().filter(|&u| u < 100).collect();
            assert_eq!(data.len(), 24, "{placement:?}: every DATA leaves once");
            assert_eq!(
                data.windows(2).all(|w| w[0] < w[1]),
                in_order,
                "{placement:?}: {data:?}"
            );
        }
    }

    /// The configured wait is chosen per packet: a DATA given 10 ms after an older one
    /// given 90 ms still leaves after it (the encoding queue releases in arrival order).
    #[test]
    fn the_encoding_queue_releases_a_flows_data_in_arrival_order() {
        let mut b = Bench::chain(2);
        let mut p = super::super::PiggyCfg::default().params(true);
        p.wait = WaitRule::Configured {
            max_hops: 3,
            queue_threshold: 0,
            short: 10 * MILLIS,
            long_2hop: 90 * MILLIS,
            long_3hop: 90 * MILLIS,
        };
        let mut s = PiggyScheme::new(p);
        // A UDP datagram in the interface queue: the queue is "filling", DATA 1 waits 90 ms.
        let mut udp = data(9);
        udp.l4 = L4::Udp(crate::wire::UdpHeader { seq: 0, len: 100 });
        b.call(1, 0, |cx| s.enqueue(cx, udp, &hop(2)));
        relay(&mut b, &mut s, 0, 0, 2, data(1));
        assert_eq!(drain(&mut b, &mut s), vec![9]);
        // An empty queue: DATA 2 is given 10 ms, but DATA 1 is older.
        relay(&mut b, &mut s, 1, 0, 2, data(2));
        b.call(1, 20 * MILLIS, |cx| s.handle_timeout(cx));
        assert_eq!(
            s.poll_at(),
            PollAt::Idle,
            "DATA 2 may not leave before DATA 1"
        );
        b.call(1, 90 * MILLIS, |cx| s.handle_timeout(cx));
        assert_eq!(drain(&mut b, &mut s), vec![1, 2]);
    }

    #[test]
    fn non_tcp_packets_and_end_hosts_never_code() {
        let mut b = Bench::chain(2);
        let mut s = waittime(30);
        // At the source, a DATA is sent as it is (end hosts only keep copies).
        let out = b.call(0, 0, |cx| s.enqueue(cx, data(1), &hop(1)));
        assert!(out.wakes.is_empty());
        assert_eq!(s.poll_at(), PollAt::Now);
        // A UDP datagram at a relay neither waits nor codes.
        let mut b2 = Bench::chain(2);
        let mut r = waittime(30);
        let mut udp = data(5);
        udp.l4 = L4::Udp(Default::default());
        relay(&mut b2, &mut r, 0, 0, 2, udp);
        relay(&mut b2, &mut r, 1, 2, 0, ack(6));
        assert_eq!(r.counters.data_waited + r.counters.data_coded, 0);
    }

    /// Both receivers of a coded frame recover their packet's exact bytes from the copy
    /// they sent; a receiver without the copy waits for it in the decoding queue.
    #[test]
    fn coded_frames_decode_at_both_receivers_and_wait_for_a_missing_partner() {
        let mut b = Bench::chain(2);
        let plain = || PiggyScheme::new(super::super::PiggyCfg::default().params(false));
        let (mut src, mut rel, mut dst) = (plain(), plain(), plain());
        // The source sends DATA 1 to the relay; the destination sends ACK 2.
        b.call(0, 0, |cx| src.enqueue(cx, data(1), &hop(1)));
        b.call(0, 0, |cx| {
            src.poll_transmit(cx);
        });
        b.call(2, 0, |cx| dst.enqueue(cx, ack(2), &hop(1)));
        b.call(2, 0, |cx| {
            dst.poll_transmit(cx);
        });
        relay(&mut b, &mut rel, 1, 0, 2, data(1));
        relay(&mut b, &mut rel, 2, 2, 0, ack(2));
        let f = transmit(&mut b, &mut rel, 1, 3);
        assert!(f.body.coded_payload.is_some());
        let frame = |addressed| Rx {
            tx: 1,
            mac_rx: 2,
            addressed,
            body: &f.body,
        };
        let out = b.call(2, 4, |cx| dst.handle_rx(cx, frame(Addressed::ToMe)));
        assert_eq!(out.deliver.len(), 1);
        assert_eq!(out.deliver[0], data(1), "the DATA's bytes, recovered");
        let out = b.call(0, 4, |cx| src.handle_rx(cx, frame(Addressed::Overheard)));
        assert_eq!(out.deliver, vec![ack(2)]);
        // A MAC retry of the same frame overheard again is not delivered twice.
        let out = b.call(0, 5, |cx| src.handle_rx(cx, frame(Addressed::Overheard)));
        assert!(out.deliver.is_empty());
        // A node without the partner waits: node 2 of a fresh layer has no copy of ACK 2.
        let mut late = plain();
        let out = b.call(2, 6, |cx| late.handle_rx(cx, frame(Addressed::ToMe)));
        assert_eq!((out.deliver.len(), out.absorbed), (0, 1));
        assert_eq!(late.counters.decode_queued, 1);
        // Its partner is sent (copied into the buffer); the next check releases it.
        b.call(2, 7, |cx| late.enqueue(cx, ack(2), &hop(1)));
        b.call(2, 7, |cx| {
            late.poll_transmit(cx);
        });
        let out = b.call(2, 6 + 10 * MILLIS, |cx| late.handle_timeout(cx));
        assert_eq!(out.release, vec![data(1)]);
        assert_eq!(late.counters.decode_failures, 0);
    }

    #[test]
    fn a_partner_that_never_comes_is_a_decode_failure() {
        let mut b = Bench::chain(2);
        let plain = || PiggyScheme::new(super::super::PiggyCfg::default().params(false));
        let mut rel = plain();
        relay(&mut b, &mut rel, 0, 0, 2, data(1));
        relay(&mut b, &mut rel, 1, 2, 0, ack(2));
        let f = transmit(&mut b, &mut rel, 1, 2);
        let mut late = plain();
        let rx = Rx {
            tx: 1,
            mac_rx: 2,
            addressed: Addressed::ToMe,
            body: &f.body,
        };
        b.call(2, 3, |cx| late.handle_rx(cx, rx));
        let mut t = 3;
        let mut dropped = Vec::new();
        while t < 3 + 600 * MILLIS {
            t += 10 * MILLIS;
            let out = b.call(2, t, |cx| late.handle_timeout(cx));
            dropped.extend(out.drops);
        }
        assert_eq!(dropped.len(), 1);
        assert_eq!(late.counters.decode_failures, 1);
        assert_eq!(late.occupancy().held, 0);
    }
}
