//! One node's XOR-coding layer: the `CodingScheme` shared by COPE, Encode Once and
//! NCAQM (they differ in the output queue and in flags).

use super::entry::Native;
use super::header::XorHeader;
use super::knowledge::View;
use super::payload;
use super::pool::{nb_key, ExpiringSet, PacketPool};
use super::queue::{Code, OutputQueue, QueueCx};
use super::{XorCounters, XorParams};
use crate::coding::{CodingScheme, SchemeCx, TxOutcome};
use crate::engine::Time;
use crate::mac::frame::{DataBody, Frame, OutFrame};
use crate::net::{DropReason, NodeId, Packet, BROADCAST};
use crate::phy::timing::LLC_BYTES;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// Timer tokens: kind in the top byte, an id below.
const T_CONTROL: u64 = 1 << 56;
const T_ACK: u64 = 2 << 56;
const T_TICK: u64 = 3 << 56;
const T_KIND: u64 = 0xff << 56;

/// How long delivered uids are remembered to drop duplicates of retransmissions.
const DUPLICATE_MEMORY: Time = 2_000_000_000;
/// Recent arrivals remembered to learn each packet's previous hop at enqueue.
const PREV_HOP_MEMORY: usize = 64;

/// Per-native facts of the frame in the MAC, to rebuild the natives on its outcome.
struct Sent {
    next_hop: NodeId,
    prev_hop: NodeId,
    sends: u8,
    was_coded: bool,
    enqueued: Time,
}

struct Pending {
    id: u64,
    native: Native,
}

pub struct XorScheme {
    p: XorParams,
    queue: Box<dyn OutputQueue>,
    /// Period of the queue's maintenance pass (NCAQM Alg. 1), 0 for none.
    tick: Time,
    tick_armed: bool,
    pool: PacketPool,
    /// nb_key(neighbour, uid): the neighbour holds the packet (report or its own send).
    reported: ExpiringSet,
    delivered: ExpiringSet,
    prev_hops: VecDeque<(u64, NodeId)>,
    /// Reports and acks to announce, with the number of headers that carried each.
    reports_out: Vec<((NodeId, u64), u8)>,
    acks_out: Vec<((NodeId, u64), u8)>,
    control_armed: bool,
    control_due: bool,
    /// Per neighbour: time up to which its reception reports were complete.
    horizon: Vec<(NodeId, Time)>,
    in_flight: SmallVec<[Sent; 4]>,
    pending: Vec<Pending>,
    next_id: u64,
    pub counters: XorCounters,
}

impl XorScheme {
    pub fn new(p: XorParams, queue: Box<dyn OutputQueue>, tick: Time) -> XorScheme {
        XorScheme {
            pool: PacketPool::new(p.pool_time),
            reported: ExpiringSet::new(p.pool_time),
            delivered: ExpiringSet::new(DUPLICATE_MEMORY),
            p,
            queue,
            tick,
            tick_armed: false,
            prev_hops: VecDeque::with_capacity(PREV_HOP_MEMORY),
            reports_out: Vec::new(),
            acks_out: Vec::new(),
            control_armed: false,
            control_due: false,
            horizon: Vec::new(),
            in_flight: SmallVec::new(),
            pending: Vec::new(),
            next_id: 0,
            counters: XorCounters::default(),
        }
    }

    /// Runs `f` with the queue and a queue context built from the node's view.
    fn with_queue<R>(
        &mut self,
        cx: &mut SchemeCx,
        f: impl FnOnce(&mut dyn OutputQueue, &mut QueueCx) -> R,
    ) -> R {
        let view = View {
            now: cx.now,
            me: cx.node,
            reported: &self.reported,
            channel: cx.channel,
            guess: self.p.guess,
            pool_time: self.p.pool_time,
            horizon: &self.horizon,
        };
        let mut qcx = QueueCx {
            now: cx.now,
            rng: cx.rng,
            capacity: cx.queue_capacity,
            threshold: self.p.threshold,
            max_code: self.p.max_code,
            encode_once: self.p.encode_once,
            knowledge: &view,
        };
        f(&mut *self.queue, &mut qcx)
    }

    fn arm_control(&mut self, cx: &mut SchemeCx) {
        if !self.control_armed && self.has_fresh_items() {
            self.control_armed = true;
            cx.set_timer(cx.now + self.p.control_delay, T_CONTROL);
        }
    }

    fn arm_tick(&mut self, cx: &mut SchemeCx) {
        if self.tick > 0 && !self.tick_armed && self.queue.slots() > 1 {
            self.tick_armed = true;
            cx.set_timer(cx.now + self.tick, T_TICK);
        }
    }

    /// Items no header has carried yet (they may need a control frame of their own).
    fn has_fresh_items(&self) -> bool {
        self.reports_out.iter().any(|x| x.1 == 0) || self.acks_out.iter().any(|x| x.1 == 0)
    }

    /// Copies waiting reports and acks into a header, at most max_header_items each.
    /// Each item rides in `header_repeats` headers: COPE's report and ack maps cover
    /// the last few ids, so one lost header does not lose the news (COPE §4).
    fn take_header_items(&mut self, now: Time, h: &mut XorHeader) {
        let (max, repeats) = (self.p.max_header_items, self.p.header_repeats);
        for (list, out) in [
            (&mut self.reports_out, &mut h.reports),
            (&mut self.acks_out, &mut h.acks),
        ] {
            for item in list.iter_mut().take(max) {
                out.push(item.0);
                item.1 += 1;
            }
            list.retain(|x| x.1 < repeats);
        }
        if self.reports_out.iter().all(|x| x.1 > 0) {
            h.reports_complete_at = Some(now);
        }
        if !self.has_fresh_items() {
            self.control_due = false;
        }
    }

    fn build_frame(&mut self, cx: &mut SchemeCx, code: Code) -> OutFrame {
        let now = cx.now;
        let coded = code.len() > 1;
        let mut h = XorHeader::default();
        let mut packets: SmallVec<[Packet; 1]> = SmallVec::new();
        let mut intended: SmallVec<[NodeId; 4]> = SmallVec::new();
        self.in_flight.clear();
        let mut longest = 0;
        for mut n in code {
            n.sends = n.sends.saturating_add(1);
            n.was_coded |= coded;
            if coded {
                h.next_hops.push(n.next_hop);
            }
            intended.push(n.next_hop);
            longest = longest.max(n.pkt.ip_bytes);
            // COPE keeps what it sends: a neighbour's code may XOR it back out.
            self.pool.insert(cx.now, &n.pkt);
            self.in_flight.push(Sent {
                next_hop: n.next_hop,
                prev_hop: n.prev_hop,
                sends: n.sends,
                was_coded: n.was_coded,
                enqueued: n.enqueued,
            });
            packets.push(n.pkt);
        }
        if coded {
            self.counters.coded_tx += 1;
            self.counters.coded_packets += packets.len() as u64;
        } else {
            self.counters.native_tx += 1;
        }
        self.take_header_items(now, &mut h);
        let header_bytes = h.bytes();
        let coded_payload = (coded && packets.iter().any(|p| p.payload.is_some()))
            .then(|| payload::xor_all(packets.iter().map(|p| p.payload.as_deref())));
        OutFrame {
            // Pseudo-broadcast (COPE §4): unicast to the head's next hop, the others
            // listed in the XOR header overhear.
            mac_rx: intended[0],
            body: DataBody {
                intended,
                packets,
                msdu_bytes: LLC_BYTES + header_bytes + longest,
                header_bytes,
                tag: coded as u64,
                coded_payload,
                xor: Some(Box::new(h)),
            },
        }
    }

    fn control_frame(&mut self, now: Time) -> OutFrame {
        let mut h = XorHeader::default();
        self.take_header_items(now, &mut h);
        self.counters.control_tx += 1;
        self.in_flight.clear();
        let header_bytes = h.bytes();
        OutFrame {
            mac_rx: BROADCAST,
            body: DataBody {
                intended: SmallVec::new(),
                packets: SmallVec::new(),
                msdu_bytes: LLC_BYTES + header_bytes,
                header_bytes,
                tag: 0,
                coded_payload: None,
                xor: Some(Box::new(h)),
            },
        }
    }

    /// Hands `pkt` (for this node) to the network layer unless it came before.
    fn accept(&mut self, cx: &mut SchemeCx, pkt: Packet, from: NodeId) {
        if !self.delivered.insert(cx.now, pkt.uid) {
            return;
        }
        if self.prev_hops.len() == PREV_HOP_MEMORY {
            self.prev_hops.pop_front();
        }
        self.prev_hops.push_back((pkt.uid, from));
        cx.deliver(pkt);
    }

    fn on_ack(&mut self, cx: &mut SchemeCx, from: NodeId, uid: u64) {
        if let Some(i) = self
            .pending
            .iter()
            .position(|q| q.native.pkt.uid == uid && q.native.next_hop == from)
        {
            self.pending.swap_remove(i);
            cx.handed_over(1);
        }
    }

    fn decode(&mut self, cx: &mut SchemeCx, frame: &Frame, body: &DataBody, h: &XorHeader) {
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
                self.counters.decode_failures += 1;
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
            self.acks_out.push(((frame.tx, pkt.uid), 0));
            self.pool.insert(cx.now, &pkt);
            self.accept(cx, pkt, frame.tx);
        }
    }
}

impl CodingScheme for XorScheme {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, next_hop: NodeId) {
        let prev_hop = self
            .prev_hops
            .iter()
            .rev()
            .find(|(u, _)| *u == pkt.uid)
            .map_or(cx.node, |&(_, h)| h);
        let n = Native {
            pkt,
            next_hop,
            prev_hop,
            sends: 0,
            was_coded: false,
            enqueued: cx.now,
        };
        let dropped = self.with_queue(cx, |q, qcx| q.push(qcx, n));
        for d in dropped {
            cx.drop_packet(d.pkt, DropReason::QueueFull);
        }
        self.arm_tick(cx);
    }

    fn has_frame(&self) -> bool {
        self.queue.packets() > 0 || self.control_due
    }

    fn next_frame(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        let others = self.queue.packets();
        match self.with_queue(cx, |q, qcx| q.pop(qcx)) {
            Some(code) => {
                if code.len() == 1 && others > 1 {
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

    fn on_frame(&mut self, cx: &mut SchemeCx, frame: &Frame, addressed: bool) {
        let Some(body) = &frame.data else { return };
        let me = cx.node;
        let now = cx.now;
        if let Some(h) = &body.xor {
            for &(_, uid) in &h.reports {
                self.reported.insert(now, nb_key(frame.tx, uid));
            }
            if let Some(t) = h.reports_complete_at {
                match self.horizon.iter_mut().find(|(n, _)| *n == frame.tx) {
                    Some(e) => e.1 = e.1.max(t),
                    None => self.horizon.push((frame.tx, t)),
                }
            }
            for &(nb, uid) in &h.acks {
                if nb == me {
                    self.on_ack(cx, frame.tx, uid);
                }
            }
        }
        // The transmitter holds whatever it sent.
        for p in &body.packets {
            self.reported.insert(now, nb_key(frame.tx, p.uid));
        }
        match body.xor.as_deref() {
            Some(h) if h.is_coded() => self.decode(cx, frame, body, h),
            _ => {
                if let Some(p) = body.packets.first() {
                    if addressed && frame.rx == me {
                        self.accept(cx, p.clone(), frame.tx);
                    } else if self.pool.insert(now, p) {
                        // Opportunistic listening: keep it and tell the neighbours.
                        self.reports_out.push(((p.src, p.uid), 0));
                    }
                }
            }
        }
        self.arm_control(cx);
    }

    fn on_tx_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        let coded = frame.body.packets.len() > 1;
        let sent = std::mem::take(&mut self.in_flight);
        for (pkt, s) in frame.body.packets.into_iter().zip(sent) {
            if !coded {
                // A native frame is acknowledged by the MAC (COPE §4: plain 802.11).
                match outcome {
                    TxOutcome::Delivered => cx.handed_over(1),
                    TxOutcome::Failed => cx.drop_packet(pkt, DropReason::RetryLimit),
                }
                continue;
            }
            // Every next hop of a coded frame acknowledges asynchronously (COPE §3.5);
            // the MAC ACK of the pseudo-broadcast says nothing about decoding.
            self.next_id += 1;
            let id = self.next_id;
            cx.set_timer(cx.now + self.p.ack_timeout, T_ACK | id);
            self.pending.push(Pending {
                id,
                native: Native {
                    pkt,
                    next_hop: s.next_hop,
                    prev_hop: s.prev_hop,
                    sends: s.sends,
                    was_coded: s.was_coded,
                    enqueued: s.enqueued,
                },
            });
        }
    }

    fn on_timer(&mut self, cx: &mut SchemeCx, token: u64) {
        match token & T_KIND {
            T_CONTROL => {
                self.control_armed = false;
                if self.has_fresh_items() {
                    self.control_due = true;
                }
            }
            T_ACK => {
                let id = token & !T_KIND;
                let Some(i) = self.pending.iter().position(|q| q.id == id) else {
                    return;
                };
                let q = self.pending.swap_remove(i);
                if q.native.sends > self.p.max_retransmissions {
                    cx.drop_packet(q.native.pkt, DropReason::Scheme);
                } else {
                    self.counters.retransmissions += 1;
                    self.with_queue(cx, |queue, qcx| queue.push_front(qcx, q.native));
                }
            }
            T_TICK => {
                self.tick_armed = false;
                self.with_queue(cx, |q, qcx| q.tick(qcx));
                self.arm_tick(cx);
            }
            _ => {}
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.packets()
    }

    fn held(&self) -> usize {
        self.queue.packets() + self.pending.len()
    }

    fn xor_counters(&self) -> Option<XorCounters> {
        Some(self.counters)
    }
}
