//! One node's XOR-coding layer: the `CodingScheme` shared by COPE, Encode Once, NCAQM
//! and BFLY (they differ in the output queue and in flags).

use super::announce::Announcements;
use super::entry::{Knowledge, Native};
use super::groups::Groups;
use super::header::XorHeader;
use super::knowledge::View;
use super::ordering::Ordering;
use super::payload;
use super::pool::{nb_key, ExpiringSet, PacketPool};
use super::queue::{Code, OutputQueue, QueueCx};
use super::timing::{AckTimers, Wait};
use super::{XorCounters, XorParams};
use crate::coding::timers::Timers;
use crate::coding::{Addressed, Body, Occupancy, OutFrame, PollAt, Rx};
use crate::coding::{CodingScheme, SchemeCx, TxOutcome};
use crate::engine::Time;
use crate::net::{DropReason, NextHop, NodeId, Packet, BROADCAST};
use crate::phy::timing::LLC_BYTES;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::Arc;

/// The layer's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Timer {
    /// Fresh acks wait at most `control_delay` for a frame to carry them.
    Acks,
    /// Fresh reception reports wait at most `report_interval`.
    Reports,
    /// The queue's periodic maintenance pass.
    Tick,
    /// The ordering agent's earliest gap deadline.
    Order,
    /// The asynchronous ack of pending native `id` is overdue.
    Retx(u64),
}

/// How long delivered uids are remembered to drop duplicates of retransmissions.
const DUPLICATE_MEMORY: Time = 2_000_000_000;
/// Recent arrivals remembered to learn each packet's previous hop at enqueue.
const PREV_HOP_MEMORY: usize = 64;
/// Acks remembered that came while their frame was still in the MAC.
const EARLY_ACK_MEMORY: usize = 64;

struct Pending {
    id: u64,
    native: Native,
}

/// The XOR family's scheme (COPE and its variants: Encode Once, NCAQM, BFLY): packet
/// pool, neighbour knowledge, reports and acks, retransmission of coded natives,
/// ordering agent, around an [`OutputQueue`].
pub struct XorScheme {
    p: XorParams,
    queue: Box<dyn OutputQueue>,
    /// Period of the queue's maintenance pass (NCAQM Alg. 1), 0 for none.
    tick: Time,
    timers: Timers<Timer>,
    pool: PacketPool,
    /// nb_key(neighbour, uid): the neighbour holds the packet (report or its own send).
    reported: ExpiringSet,
    /// Per neighbour: time up to which its reception reports were complete.
    horizon: Vec<(NodeId, Time)>,
    delivered: ExpiringSet,
    /// uids this node failed to decode (each failure counted once).
    failed: ExpiringSet,
    prev_hops: VecDeque<(u64, NodeId)>,
    news: Announcements,
    control_due: bool,
    /// The natives of the frame in the MAC (without their packets, which the frame holds).
    in_flight: SmallVec<[Native; 4]>,
    pending: Vec<Pending>,
    ack_timers: AckTimers,
    early_acks: VecDeque<(u64, NodeId)>,
    groups: Groups,
    ordering: Option<Ordering>,
    next_id: u64,
    /// This node's XOR counters.
    pub counters: XorCounters,
}

impl XorScheme {
    /// A scheme with parameters `p` over `queue`; `tick` is the period of the queue's
    /// maintenance pass (0: none).
    pub fn new(p: XorParams, queue: Box<dyn OutputQueue>, tick: Time) -> XorScheme {
        let ordering = (p.ordering_timeout > 0).then(|| {
            Ordering::new(Wait::new(
                p.ordering_timing,
                p.ordering_timeout,
                p.timer_floor,
            ))
        });
        let ack_timers = AckTimers::new(p.ack_timing, p.ack_timeout, p.timer_floor);
        XorScheme {
            pool: PacketPool::new(p.pool_time),
            reported: ExpiringSet::new(p.pool_time),
            horizon: Vec::new(),
            delivered: ExpiringSet::new(DUPLICATE_MEMORY),
            failed: ExpiringSet::new(DUPLICATE_MEMORY),
            p,
            queue,
            tick,
            timers: Timers::default(),
            prev_hops: VecDeque::with_capacity(PREV_HOP_MEMORY),
            news: Announcements::default(),
            control_due: false,
            in_flight: SmallVec::new(),
            pending: Vec::new(),
            ack_timers,
            early_acks: VecDeque::with_capacity(EARLY_ACK_MEMORY),
            groups: Groups::default(),
            ordering,
            next_id: 0,
            counters: XorCounters::default(),
        }
    }

    /// Would resending `n` be futile? For a native of a forwarded two-hop code the
    /// resend is the same XOR (this node cannot decode it); if `n`'s decoder is known
    /// to miss another member, it could not decode it again.
    fn futile(&self, cx: &SchemeCx, n: &Native) -> bool {
        if n.bound == 0 {
            return false;
        }
        let view = View::of(&self.p, &self.reported, &self.horizon, cx);
        self.groups
            .others(n)
            .any(|o| view.knows_missing(n.next_hop, o))
    }

    /// Runs `f` with the queue and a queue context built from the node's view.
    fn with_queue<R>(
        &mut self,
        cx: &mut SchemeCx,
        f: impl FnOnce(&mut dyn OutputQueue, &mut QueueCx) -> R,
    ) -> R {
        let view = View::of(&self.p, &self.reported, &self.horizon, cx);
        let mut qcx = QueueCx {
            now: cx.now,
            rng: cx.rng,
            capacity: cx.queue_capacity,
            threshold: self.p.threshold,
            max_code: self.p.max_code,
            encode_once: self.p.encode_once,
            two_hop: self.p.two_hop,
            knowledge: &view,
        };
        f(&mut *self.queue, &mut qcx)
    }

    /// Acks wait at most control_delay, reports alone report_interval, for a frame.
    fn arm_control(&mut self, cx: &mut SchemeCx) {
        if !self.timers.is_set(Timer::Acks) && self.news.fresh_acks() {
            let at = cx.now + self.p.control_delay;
            self.timers.set(cx, at, Timer::Acks);
        }
        if !self.timers.is_set(Timer::Reports) && self.news.fresh_reports() {
            let at = cx.now + self.p.report_interval;
            self.timers.set(cx, at, Timer::Reports);
        }
    }

    fn arm_tick(&mut self, cx: &mut SchemeCx) {
        if self.tick > 0 && !self.timers.is_set(Timer::Tick) && self.queue.slots() > 1 {
            let at = cx.now + self.tick;
            self.timers.set(cx, at, Timer::Tick);
        }
    }

    fn fill_header(&mut self, now: Time, h: &mut XorHeader) {
        self.news
            .fill(now, h, self.p.max_header_items, self.p.header_repeats);
        self.control_due = false;
    }

    fn build_frame(&mut self, cx: &mut SchemeCx, code: Code) -> OutFrame {
        let now = cx.now;
        let padding = self.groups.padding(&code);
        let coded = code.len() + padding.len() > 1;
        let two_hop = {
            let members: SmallVec<[&Native; 4]> = code.iter().collect();
            super::entry::is_two_hop(&members)
        };
        let mut h = XorHeader::default();
        let mut packets: SmallVec<[Packet; 1]> = SmallVec::new();
        let mut intended: SmallVec<[NodeId; 4]> = SmallVec::new();
        // Pseudo-broadcast (COPE §4): unicast to one next hop, the others listed in the
        // XOR header overhear. A TCP data segment gets the MAC's protection (ACK and
        // retries) over a TCP ACK beside it, as PiggyCode does (Takimoto et al. §II);
        // padding, already acknowledged, never does.
        let data_hop = code
            .iter()
            .find(|n| n.pkt.tcp().is_some_and(|t| t.len > 0))
            .map(|n| n.next_hop);
        self.in_flight.clear();
        let mut longest = 0;
        for mut n in code {
            n.sends = n.sends.saturating_add(1);
            if n.sends > 1 {
                self.counters.coding_retransmissions += 1;
            }
            n.was_coded |= coded;
            if coded {
                h.next_hops.push(n.next_hop);
            }
            if two_hop {
                h.decoders
                    .push(n.then.expect("two-hop codes have a hop after"));
            }
            if !intended.contains(&n.next_hop) {
                intended.push(n.next_hop);
            }
            longest = longest.max(n.pkt.ip_bytes);
            // COPE keeps what it sends: a neighbour's code may XOR it back out.
            self.pool.insert(now, &n.pkt);
            // The frame carries the packet; in_flight keeps the rest (no payload copy).
            let payload = n.pkt.payload.take();
            self.in_flight.push(n.clone());
            n.pkt.payload = payload;
            packets.push(n.pkt);
        }
        for c in padding {
            h.next_hops.push(c.next_hop);
            h.padding.push(c.pkt.uid);
            intended.push(c.next_hop);
            longest = longest.max(c.pkt.ip_bytes);
            packets.push(c.pkt);
        }
        if coded {
            self.counters.coded_tx += 1;
            self.counters.coded_packets += packets.len() as u64;
        } else {
            self.counters.native_tx += 1;
        }
        self.fill_header(now, &mut h);
        let header_bytes = h.bytes();
        let coded_payload = (coded && packets.iter().any(|p| p.payload.is_some()))
            .then(|| payload::xor_all(packets.iter().map(|p| p.payload.as_deref())));
        let padding = h.padding.len() as u8;
        OutFrame {
            mac_rx: data_hop.unwrap_or(intended[0]),
            body: Body {
                intended,
                packets,
                padding,
                msdu_bytes: LLC_BYTES + header_bytes + longest,
                header_bytes,
                coded_payload,
                header: Some(Arc::new(h)),
            },
        }
    }

    fn control_frame(&mut self, now: Time) -> OutFrame {
        let mut h = XorHeader::default();
        self.fill_header(now, &mut h);
        self.counters.control_tx += 1;
        self.in_flight.clear();
        let header_bytes = h.bytes();
        OutFrame {
            mac_rx: BROADCAST,
            body: Body {
                intended: SmallVec::new(),
                packets: SmallVec::new(),
                padding: 0,
                msdu_bytes: LLC_BYTES + header_bytes,
                header_bytes,
                coded_payload: None,
                header: Some(Arc::new(h)),
            },
        }
    }

    /// Hands `pkt` (for this node) to the network layer unless it came before.
    fn accept(&mut self, cx: &mut SchemeCx, pkt: Packet, from: NodeId) -> bool {
        if !self.delivered.insert(cx.now, pkt.uid) {
            return false;
        }
        if self.prev_hops.len() == PREV_HOP_MEMORY {
            self.prev_hops.pop_front();
        }
        self.prev_hops.push_back((pkt.uid, from));
        match &mut self.ordering {
            Some(o) if pkt.dst == cx.node && Ordering::applies(&pkt) => {
                cx.absorb(1);
                let mut out = Vec::new();
                let gap = o.arrive(cx.now, pkt, &mut out);
                for p in out {
                    cx.release(p);
                }
                if let Some(at) = gap {
                    self.arm_order(cx, at);
                }
            }
            _ => cx.deliver(pkt),
        }
        true
    }

    /// One timer for the ordering agent: the earliest deadline of its gaps.
    fn arm_order(&mut self, cx: &mut SchemeCx, at: Time) {
        if self.timers.deadline(Timer::Order).is_none_or(|t| at < t) {
            self.timers.set(cx, at, Timer::Order);
        }
    }

    fn on_ack(&mut self, cx: &mut SchemeCx, from: NodeId, uid: u64) {
        if let Some(i) = self
            .pending
            .iter()
            .position(|q| q.native.pkt.uid == uid && q.native.next_hop == from)
        {
            let q = self.pending.swap_remove(i);
            self.timers.cancel(Timer::Retx(q.id));
            if q.native.sends == 1 {
                // Karn's rule: only a native sent once tells which send was acked.
                self.ack_timers.sample(from, cx.now - q.native.sent_at);
            }
            self.groups.resolve(q.native.bound);
            cx.handed_over(1);
        } else if self
            .in_flight
            .iter()
            .any(|n| n.pkt.uid == uid && n.next_hop == from)
        {
            // Decoded while the MAC still retries the frame (its ACK was lost).
            if self.early_acks.len() == EARLY_ACK_MEMORY {
                self.early_acks.pop_front();
            }
            self.early_acks.push_back((uid, from));
        } else if let Some(n) = self.with_queue(cx, |queue, _| {
            // The ack came after the timeout had put the native back in the queue: it
            // need not go again (COPE §3.5 retransmits only what was not acknowledged).
            queue.take_native(&mut |n| n.pkt.uid == uid && n.next_hop == from && n.sends > 0)
        }) {
            if n.sends == 1 {
                // A late ack of the only send: the timeout was too short.
                self.ack_timers.sample(from, cx.now - n.sent_at);
            }
            self.groups.resolve(n.bound);
            cx.handed_over(1);
        }
    }

    /// A coded frame: decode the natives this node is the next hop of.
    fn decode(&mut self, cx: &mut SchemeCx, from: NodeId, body: &Body, h: &XorHeader) {
        let me = cx.node;
        for (i, &nh) in h.next_hops.iter().enumerate() {
            if nh != me {
                continue;
            }
            let mine = &body.packets[i];
            let others_held = body
                .packets
                .iter()
                .enumerate()
                .all(|(j, o)| j == i || self.pool.get(cx.now, o.uid).is_some());
            if !others_held {
                if self.failed.insert(cx.now, mine.uid) {
                    self.counters.decode_failures += 1;
                }
                continue;
            }
            let mut pkt = mine.clone();
            if let Some(coded) = &body.coded_payload {
                // Recover the bytes from the XOR and our own copies of the others.
                let len = mine.payload.as_ref().map_or(0, |b| b.len());
                let pool = &self.pool;
                let others = body
                    .packets
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, o)| pool.get(cx.now, o.uid).and_then(|p| p.payload.as_deref()));
                pkt.payload = mine
                    .payload
                    .as_ref()
                    .map(|_| payload::recover(coded, others, len));
            }
            self.news.ack(from, pkt.uid);
            self.pool.insert(cx.now, &pkt);
            self.accept(cx, pkt, from);
        }
    }

    /// A two-hop code for this node to forward undecoded (BFLY, Seferoglu & Markopoulou §VII).
    fn forward_two_hop(&mut self, cx: &mut SchemeCx, from: NodeId, body: &Body, h: &XorHeader) {
        if body
            .packets
            .iter()
            .any(|p| self.delivered.contains(cx.now, p.uid))
        {
            return;
        }
        let members: SmallVec<[(u64, NodeId); 2]> = body
            .packets
            .iter()
            .zip(&h.decoders)
            .map(|(p, &d)| (p.uid, d))
            .collect();
        self.groups.open(&members);
        for p in &body.packets {
            self.accept(cx, p.clone(), from);
        }
    }

    fn drop_native(&mut self, cx: &mut SchemeCx, n: Native, why: DropReason) {
        self.groups.resolve(n.bound);
        cx.drop_packet(n.pkt, why);
    }
}

impl CodingScheme for XorScheme {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        // COPE codes for the routed next hop (one per packet).
        let next_hop = hops[0].node;
        let prev_hop = self
            .prev_hops
            .iter()
            .rev()
            .find(|(u, _)| *u == pkt.uid)
            .map_or(cx.node, |&(_, h)| h);
        let mut n = Native::new(pkt, next_hop, prev_hop, cx.now);
        if self.p.two_hop && next_hop != n.pkt.dst {
            n.then = cx.routes.next_hop(next_hop, n.pkt.dst, n.pkt.flow);
        }
        let dropped: SmallVec<[Native; 2]> = match self.groups.arrive(n) {
            Err(n) => self
                .with_queue(cx, |q, qcx| q.push(qcx, n))
                .into_iter()
                .collect(),
            Ok(None) => SmallVec::new(),
            Ok(Some(code)) => self
                .with_queue(cx, |q, qcx| q.push_bound(qcx, code))
                .into_iter()
                .collect(),
        };
        for d in dropped {
            self.drop_native(cx, d, DropReason::QueueFull);
        }
        self.arm_tick(cx);
    }

    fn poll_at(&self) -> PollAt {
        if self.queue.packets() > 0 || self.control_due {
            PollAt::Now
        } else {
            PollAt::Idle
        }
    }

    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        let popped = loop {
            let Some(code) = self.with_queue(cx, |q, qcx| q.pop(qcx)) else {
                break None;
            };
            // A forwarded two-hop code none of whose sinks can decode it any more (its
            // wait here counts against their pools' lifetime, Seferoglu & Markopoulou
            // §VII; or they reported missing a member) would be airtime for nothing.
            if code[0].bound != 0 && code.iter().all(|n| self.futile(cx, n)) {
                for n in code {
                    self.counters.futile_drops += 1;
                    self.drop_native(cx, n, DropReason::Scheme);
                }
                continue;
            }
            break Some(code);
        };
        match popped {
            Some(code) => {
                if code.len() == 1 && code[0].bound == 0 {
                    let nh = code[0].next_hop;
                    if self.queue.any_native(&mut |n| n.next_hop != nh) {
                        self.counters.coding_missed += 1;
                    }
                }
                self.queue.on_sent(&code);
                Some(self.build_frame(cx, code))
            }
            None if self.control_due => Some(self.control_frame(cx.now)),
            None => None,
        }
    }

    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        let (body, from) = (rx.body, rx.tx);
        let to_me = rx.addressed == Addressed::ToMe;
        let now = cx.now;
        let header = body.header_as::<XorHeader>();
        if let Some(h) = header {
            for &(_, uid) in &h.reports {
                self.reported.insert(now, nb_key(from, uid));
            }
            if let Some(t) = h.reports_complete_at {
                match self.horizon.iter_mut().find(|(n, _)| *n == from) {
                    Some(e) => e.1 = e.1.max(t),
                    None => self.horizon.push((from, t)),
                }
            }
            for &(nb, uid) in &h.acks {
                if nb == cx.node {
                    self.on_ack(cx, from, uid);
                }
            }
        }
        // The transmitter holds whatever it sent (as a packet or inside its XOR).
        for p in &body.packets {
            self.reported.insert(now, nb_key(from, p.uid));
        }
        match header {
            Some(h) if h.is_two_hop() => {
                if to_me {
                    self.forward_two_hop(cx, from, body, h);
                }
            }
            Some(h) if h.is_coded() => self.decode(cx, from, body, h),
            _ => {
                if let Some(p) = body.packets.first() {
                    if to_me {
                        self.accept(cx, p.clone(), from);
                    } else if self.pool.insert(now, p) {
                        // Opportunistic listening: keep it and tell the neighbours.
                        self.news.report(p.src, p.uid);
                    }
                }
            }
        }
        self.arm_control(cx);
    }

    fn handle_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        let two_hop = frame
            .body
            .header_as::<XorHeader>()
            .is_some_and(|h| h.is_two_hop());
        let coded = frame.body.packets.len() > 1;
        let sent = std::mem::take(&mut self.in_flight);
        // Padding packets come last and have no entry in `sent`: zip skips them.
        for (pkt, mut n) in frame.body.packets.into_iter().zip(sent) {
            n.pkt = pkt;
            if !coded || two_hop {
                // A native frame, or a two-hop code (its next hop cannot decode, so
                // cannot acknowledge natives): the MAC ACK is the hop's acknowledgement.
                match outcome {
                    TxOutcome::Delivered => {
                        self.groups.resolve(n.bound);
                        cx.handed_over(1);
                    }
                    TxOutcome::Failed => self.drop_native(cx, n, DropReason::RetryLimit),
                }
                continue;
            }
            if let Some(i) = self
                .early_acks
                .iter()
                .position(|&(u, f)| u == n.pkt.uid && f == n.next_hop)
            {
                self.early_acks.remove(i);
                self.groups.resolve(n.bound);
                cx.handed_over(1);
                continue;
            }
            // Every next hop of a coded frame acknowledges asynchronously (COPE §3.5);
            // the MAC ACK of the pseudo-broadcast says nothing about decoding.
            self.next_id += 1;
            let id = self.next_id;
            let at = cx.now + self.ack_timers.timeout(n.next_hop);
            self.timers.set(cx, at, Timer::Retx(id));
            n.sent_at = cx.now;
            self.pending.push(Pending { id, native: n });
        }
    }

    fn handle_timeout(&mut self, cx: &mut SchemeCx) {
        let Some(t) = self.timers.pop_due(cx.now) else {
            return;
        };
        match t {
            Timer::Acks => {
                if self.news.fresh_acks() {
                    self.control_due = true;
                }
            }
            Timer::Reports => {
                if self.news.fresh_reports() {
                    self.control_due = true;
                }
            }
            Timer::Retx(id) => {
                let Some(i) = self.pending.iter().position(|q| q.id == id) else {
                    return;
                };
                let q = self.pending.swap_remove(i);
                self.ack_timers
                    .back_off(q.native.next_hop, q.native.sent_at, cx.now);
                if q.native.sends > self.p.max_retransmissions {
                    self.drop_native(cx, q.native, DropReason::Scheme);
                } else if self.futile(cx, &q.native) {
                    self.counters.futile_drops += 1;
                    self.drop_native(cx, q.native, DropReason::Scheme);
                } else {
                    self.with_queue(cx, |queue, qcx| queue.push_front(qcx, q.native));
                }
            }
            Timer::Order => {
                let mut out = Vec::new();
                let next = self
                    .ordering
                    .as_mut()
                    .and_then(|o| o.expire(cx.now, &mut out));
                for p in out {
                    cx.release(p);
                }
                if let Some(at) = next {
                    self.arm_order(cx, at);
                }
            }
            Timer::Tick => {
                self.with_queue(cx, |q, qcx| q.tick(qcx));
                self.arm_tick(cx);
            }
        }
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            queued: self.queue.packets(),
            held: self.queue.packets()
                + self.pending.len()
                + self.groups.waiting()
                + self.ordering.as_ref().map_or(0, |o| o.held()),
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
    use crate::scenario::BuildOptions;
    use crate::transport::tcp::TcpHeader;

    // The butterfly (Seferoglu & Markopoulou Fig. 8): sources 0 and 1, coding node 2,
    // middle node 3, sinks 4 (flow 0, overhears source 1) and 5 (flow 1, overhears 0).
    const MIDDLE: NodeId = 3;

    fn seg(uid: u64, flow: u32, src: NodeId, dst: NodeId) -> Packet {
        Packet {
            uid,
            flow,
            src,
            dst,
            ttl: 32,
            ip_bytes: 1040,
            created: 0,
            l4: L4::Tcp(TcpHeader::data(uid * 1000, 1000)),
            payload: None,
        }
    }

    fn bfly() -> XorScheme {
        let p = XorParams {
            two_hop: true,
            ..XorParams::default()
        };
        XorScheme::new(p, Box::new(super::super::fifo::FifoQueue::new()), 0)
    }

    fn frame(h: XorHeader, packets: &[Packet]) -> Body {
        Body {
            intended: packets.iter().map(|_| MIDDLE).collect(),
            packets: packets.iter().cloned().collect(),
            padding: 0,
            msdu_bytes: 1100,
            header_bytes: h.bytes(),
            coded_payload: None,
            header: Some(Arc::new(h)),
        }
    }

    /// A control frame whose header acknowledges `uid` to `to`.
    fn ack(to: NodeId, uid: u64) -> Body {
        let mut h = XorHeader::default();
        h.acks.push((to, uid));
        frame(h, &[])
    }

    fn rx(
        b: &mut Bench,
        s: &mut XorScheme,
        now: Time,
        from: NodeId,
        body: &Body,
        to_me: bool,
    ) -> SchemeOut {
        rx_at(b, s, MIDDLE, now, from, body, to_me)
    }

    fn rx_at(
        b: &mut Bench,
        s: &mut XorScheme,
        node: NodeId,
        now: Time,
        from: NodeId,
        body: &Body,
        to_me: bool,
    ) -> SchemeOut {
        b.call(node, now, |cx| {
            s.handle_rx(
                cx,
                Rx {
                    tx: from,
                    mac_rx: if to_me { node } else { BROADCAST },
                    addressed: if to_me {
                        Addressed::ToMe
                    } else {
                        Addressed::Broadcast
                    },
                    body,
                },
            )
        })
    }

    /// The middle node gets XOR(p0, p1) from the coding node, forwards it, and the
    /// frame leaves; sink 5 acknowledges p1. Returns the bench, the scheme and p0.
    /// The middle node gets XOR(p0, p1) from the coding node at t = 0 and queues both
    /// natives for their sinks (4 and 5). Returns the bench, the scheme, p0 and p1.
    fn xor_at_middle() -> (Bench, XorScheme, Packet, Packet) {
        let mut b = Bench::new("butterfly", &BuildOptions::new());
        let mut s = bfly();
        let (p0, p1) = (seg(10, 0, 0, 4), seg(11, 1, 1, 5));
        let mut h = XorHeader::default();
        h.next_hops.extend([MIDDLE, MIDDLE]);
        h.decoders.extend([4, 5]);
        let xor = frame(h, &[p0.clone(), p1.clone()]);
        let out = rx(&mut b, &mut s, 0, 2, &xor, true);
        assert_eq!(out.deliver.len(), 2, "both natives go on undecoded");
        for (p, sink) in [(p0.clone(), 4), (p1.clone(), 5)] {
            b.call(MIDDLE, 0, |cx| s.enqueue(cx, p, &hop(sink)));
        }
        (b, s, p0, p1)
    }

    fn forwarded_xor() -> (Bench, XorScheme, Packet) {
        let (mut b, mut s, p0, p1) = xor_at_middle();
        let f = b.call(MIDDLE, MILLIS, |cx| {
            let f = s.poll_transmit(cx).expect("the XOR goes out");
            assert_eq!(f.body.packets.len(), 2);
            s.handle_outcome(cx, f, TxOutcome::Delivered);
        });
        assert_eq!(f.handed_over, 0, "handed over only when the sinks ack");
        rx(&mut b, &mut s, 10 * MILLIS, 5, &ack(MIDDLE, p1.uid), false);
        (b, s, p0)
    }

    #[test]
    fn an_xor_its_sink_cannot_decode_is_not_resent() {
        // Sink 4's complete report after the XOR went by does not list p1: it never
        // overheard p1, so the same XOR again could not decode there.
        let (mut b, mut s, p0) = forwarded_xor();
        let h = XorHeader {
            reports_complete_at: Some(15 * MILLIS),
            ..XorHeader::default()
        };
        rx(&mut b, &mut s, 20 * MILLIS, 4, &frame(h, &[]), false);
        let out = b.call(MIDDLE, 300 * MILLIS, |cx| s.handle_timeout(cx));
        assert_eq!(s.counters.futile_drops, 1);
        assert_eq!(s.counters.coding_retransmissions, 0);
        assert_eq!(out.drops.len(), 1);
        assert_eq!(out.drops[0].0.uid, p0.uid);
        assert_eq!(s.queue.packets(), 0, "nothing goes back to the queue");
    }

    #[test]
    fn an_xor_whose_sink_may_hold_the_side_packet_is_resent_with_its_padding() {
        // Without a report the sink may have overheard p1 and lost the XOR itself.
        let (mut b, mut s, p0) = forwarded_xor();
        b.call(MIDDLE, 300 * MILLIS, |cx| s.handle_timeout(cx));
        assert_eq!(s.counters.futile_drops, 0);
        assert_eq!(
            s.counters.coding_retransmissions, 0,
            "counted when it is sent"
        );
        let f = b.call(MIDDLE, 301 * MILLIS, |cx| {
            let f = s.poll_transmit(cx).expect("the resend");
            let uids: Vec<u64> = f.body.packets.iter().map(|p| p.uid).collect();
            assert_eq!(uids, [p0.uid, 11], "the same XOR: p1 rides as padding");
        });
        assert!(f.drops.is_empty());
        assert_eq!(s.counters.coding_retransmissions, 1);
    }

    #[test]
    fn a_native_that_fails_to_decode_again_counts_once() {
        // Node 3 is the next hop of a one-hop code whose other native it never held.
        let mut b = Bench::new("butterfly", &BuildOptions::new());
        let mut s = bfly();
        let (mine, other) = (seg(20, 0, 0, 4), seg(21, 1, 1, 5));
        let mut h = XorHeader::default();
        h.next_hops.extend([MIDDLE, 9]);
        for t in 0..3 {
            let body = frame(h.clone(), &[mine.clone(), other.clone()]);
            rx(&mut b, &mut s, t * MILLIS, 2, &body, true);
        }
        assert_eq!(s.counters.decode_failures, 1);
    }

    /// Alice-and-Bob's relay (node 1) receives `p` from `from` at `t` and queues it for
    /// `to`.
    fn relay(b: &mut Bench, s: &mut XorScheme, t: Time, from: NodeId, to: NodeId, p: Packet) {
        rx_at(b, s, 1, t, from, &Body::native(p.clone(), 1), true);
        b.call(1, t, |cx| s.enqueue(cx, p, &hop(to)));
    }

    #[test]
    fn a_code_of_data_and_an_ack_is_unicast_to_the_datas_next_hop() {
        // Alice-and-Bob: A = 0, relay 1, B = 2. The relay holds B's TCP ACK (for A)
        // at the head and A's data segment (for B) behind it.
        let mut b = Bench::new("alice-bob", &BuildOptions::new());
        let mut s = XorScheme::new(
            XorParams::default(),
            Box::new(super::super::fifo::FifoQueue::new()),
            0,
        );
        let ack = Packet {
            l4: L4::Tcp(TcpHeader::data(0, 0)),
            ip_bytes: 40,
            ..seg(1, 1, 2, 0)
        };
        let data = seg(2, 0, 0, 2);
        for (p, from, to) in [(ack, 2, 0), (data, 0, 2)] {
            relay(&mut b, &mut s, 0, from, to, p);
        }
        b.call(1, MILLIS, |cx| {
            let f = s.poll_transmit(cx).expect("a frame");
            let uids: Vec<u64> = f.body.packets.iter().map(|p| p.uid).collect();
            assert_eq!(uids, [1, 2], "the ACK is the head");
            assert_eq!(f.mac_rx, 2, "the data segment's next hop gets the MAC ACK");
        });
    }

    #[test]
    fn a_two_hop_code_that_outlived_the_sinks_pools_is_dropped_not_sent() {
        // The middle node holds XOR(p0, p1) from t = 0 and gets to send it at `at`.
        let send_at = |at: Time| {
            let (mut b, mut s, ..) = xor_at_middle();
            let mut sent = false;
            let out = b.call(MIDDLE, at, |cx| sent = s.poll_transmit(cx).is_some());
            (
                sent,
                s.counters.futile_drops,
                out.drops.len(),
                s.queue.packets(),
            )
        };
        // Pools keep packets 0.5 s, and the sinks overheard the partners before the
        // XOR reached the middle node: after 0.49 s here it may still decode, after
        // 0.5 s it cannot.
        assert_eq!(send_at(490 * MILLIS), (true, 0, 0, 0));
        assert_eq!(send_at(500 * MILLIS), (false, 2, 2, 0));
    }

    #[test]
    fn the_ack_timer_learns_each_neighbours_latency_and_a_late_ack_stops_the_resend() {
        // Alice-and-Bob's relay (1) codes A's and B's segments again and again; both
        // ends ack 4 ms after the frame. Then one ack comes late: after the timeout
        // put the native back in the queue, before it went out again.
        let mut b = Bench::new("alice-bob", &BuildOptions::new());
        let mut s = XorScheme::new(
            XorParams::default(),
            Box::new(super::super::fifo::FifoQueue::new()),
            0,
        );
        let round = |b: &mut Bench, s: &mut XorScheme, k: u64, ack_after: Option<Time>| {
            let t = k * 100 * MILLIS;
            let (pa, pb) = (seg(2 * k, 0, 0, 2), seg(2 * k + 1, 1, 2, 0));
            for (p, from, to) in [(pa.clone(), 0, 2), (pb.clone(), 2, 0)] {
                relay(b, s, t, from, to, p);
            }
            b.call(1, t, |cx| {
                let f = s.poll_transmit(cx).expect("a code");
                assert_eq!(f.body.packets.len(), 2);
                s.handle_outcome(cx, f, TxOutcome::Delivered)
            });
            if let Some(d) = ack_after {
                for (nb, p) in [(2, &pa), (0, &pb)] {
                    rx_at(b, s, 1, t + d, nb, &ack(1, p.uid), false);
                }
            }
        };
        for k in 0..30 {
            round(&mut b, &mut s, k, Some(4 * MILLIS));
        }
        let rto = s.ack_timers.timeout(2);
        assert!(rto < 20 * MILLIS && rto >= s.p.timer_floor, "learnt: {rto}");
        // No ack this time: the timeout fires at the learnt value, not at 0.2 s.
        let sent = 30 * 100 * MILLIS;
        round(&mut b, &mut s, 30, None);
        b.call(1, sent + rto, |cx| s.handle_timeout(cx));
        b.call(1, sent + rto, |cx| s.handle_timeout(cx));
        assert_eq!(s.queue.packets(), 2, "both natives wait for a resend");
        // The late acks take them out: nothing is sent twice, both are handed over.
        let mut handed = 0;
        for (nb, uid) in [(2, 60), (0, 61)] {
            let out = rx_at(
                &mut b,
                &mut s,
                1,
                sent + rto + MILLIS,
                nb,
                &ack(1, uid),
                false,
            );
            handed += out.handed_over;
        }
        assert_eq!(handed, 2);
        assert_eq!(s.queue.packets(), 0);
        assert_eq!(s.counters.coding_retransmissions, 0);
        // The late samples (rto + 1 ms) raised the timer.
        assert!(s.ack_timers.timeout(2) > rto);
    }
}
