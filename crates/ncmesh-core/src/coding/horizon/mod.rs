//! Horizon (Radunović, Gkantsidis, Gunawardena, Key; MSR-TR-2008-54, MobiCom 2008; its
//! rules as the patent US 8,045,463 states them, claims 1-5 and 15, in the project's
//! reference notes on Horizon): back-pressure multipath forwarding of unmodified TCP,
//! without coding; CoMP's multipath baseline (Gheorghiu et al., CoMP §III, fed with
//! TCP's real window).
//!
//! - Queues: one per flow direction (flow, destination) at every node; TCP ACKs use the
//!   queue of their direction, on the reverse paths. Their total is the interface queue
//!   (`mac.queue_packets`), drop-tail per node.
//! - Between advertisements, a node counts what it handed to a neighbour (acknowledged
//!   by the MAC) as one more packet in that neighbour's backlog and one more
//!   transmission in its cost, so that it does not pile a burst on one relay.
//! - Advertisement: every data frame a node sends carries, for each flow direction it
//!   has a queue for (but those empty for longer than `advert_timeout_s`), its backlog
//!   and its cost (a small header, counted on the air); neighbours take it from every
//!   frame they hear, overheard ones included, each entry into the slot of the sender
//!   among the candidates of the node's queue for that direction (an entry of a
//!   direction the node has no queue for, or from a node not its candidate, is
//!   ignored: a lookup costs the queue's candidates, not every neighbour heard). An
//!   advertisement lasts `advert_timeout_s`; a neighbour not heard from (or whose
//!   advertisement ran out) counts as backlog 0, cost 0, so a node never holds forever;
//!   a destination has no queue for its own direction and so advertises nothing, i.e. 0.
//! - Cost (patent, "per-flow cost"): the time to clear the own queue through the chosen
//!   next hop plus that hop's advertised cost: cost = B · ETX(i, j*) + C_j*, where j* is
//!   the candidate (next nodes on the flow's reinforced paths, `routing.paths`) with the
//!   lowest ETX(i, j) + C_j.
//! - At each transmission opportunity (patent claims 1-5, "flow selection"): for every queue, the
//!   candidates that satisfy the back-pressure condition (own backlog B > the
//!   candidate's advertised backlog for that direction); of those the one with the
//!   lowest ETX(i, j) + C_j (ties in turn); the queue that takes longest to clear, B · ETX(i, j)
//!   (with equal link rates, the longest) sends its head to it. A queue none of whose
//!   candidates qualifies holds (the MAC does not contend) until one does: a new
//!   advertisement, a new packet, or an advertisement running out.
//! - Destination (patent claim 15, "delayed reordering"): `reorder::Reorder`.
//! - Congestion signal: Gheorghiu et al. fed Horizon TCP's real window. A scheme has no
//!   handle on TCP's state, but a flow's source sees its window on the wire (the highest
//!   data byte it sent less the highest byte acknowledged by the ACKs it receives): a new
//!   segment beyond `window_threshold` segments of window is dropped at the source, so
//!   TCP backs off. Choices: docs/assumptions.md ("Horizon").

pub mod config;
pub mod reorder;

pub use config::{HorizonCfg, HorizonParams};
pub use reorder::Reorder;

use super::backpressure::Neighbours;
use super::keyed::find_or_push;
use super::{Addressed, Body, CodingScheme, Occupancy, OutFrame, PollAt, Rx, SchemeCx};
use super::{TxOutcome, WireHeader};
use crate::engine::Time;
use crate::net::{DropReason, NextHop, NodeId, Packet};
use std::collections::VecDeque;
use std::sync::Arc;

/// Bytes of the header's entry count.
pub const COUNT_BYTES: u32 = 1;
/// Bytes of one advertised entry: flow (2), direction (1), backlog (1), cost (2, fixed
/// point).
pub const ENTRY_BYTES: u32 = 6;

/// One flow direction's advertisement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// The flow.
    pub flow: u32,
    /// Its direction (the packets' destination).
    pub dst: NodeId,
    /// Packets queued.
    pub backlog: u32,
    /// Cost (expected transmissions to clear the queue and beyond).
    pub cost: f64,
}

/// Horizon's header: the sender's advertisement.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HorizonHeader {
    /// One entry per flow direction the sender queues for.
    pub entries: Vec<Entry>,
}

impl WireHeader for HorizonHeader {
    fn bytes(&self) -> u32 {
        COUNT_BYTES + ENTRY_BYTES * self.entries.len() as u32
    }

    fn pcap_len(&self) -> usize {
        4 + 16 * self.entries.len()
    }

    /// The count (u32), then per entry flow, destination, backlog (u32 each) and cost
    /// (f32 bits).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.entries.len() as u32).to_be_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.flow.to_be_bytes());
            out.extend_from_slice(&e.dst.to_be_bytes());
            out.extend_from_slice(&e.backlog.to_be_bytes());
            out.extend_from_slice(&(e.cost as f32).to_bits().to_be_bytes());
        }
    }
}

crate::family_counters! {
    /// Per-node counters of Horizon (result columns `hz_*`).
    pub struct HorizonCounters, prefix "hz_" {
        /// Packets queued.
        enqueued: "packets",
        /// Packets dropped on arrival, the node's queue full.
        queue_drops: "packets",
        /// Data segments dropped at the source as the congestion signal.
        window_drops: "packets",
        /// Frames sent.
        sent: "frames",
        /// Of those, to a candidate other than the flow's cheapest by routing.
        sent_other: "frames",
        /// Of those, to a candidate with no advertisement in force.
        sent_unheard: "frames",
        /// Advertisements taken from frames heard (a candidate's, for the direction it is a
        /// candidate of; the rest are ignored).
        adverts_heard: "advertisements",
        /// Segments the destination held for reordering.
        reorder_held: "packets",
        /// Held segments released when a hold time ran out.
        reorder_expired: "packets",
    }
}

/// One flow direction's queue.
#[derive(Debug)]
struct FlowQueue {
    flow: u32,
    dst: NodeId,
    q: VecDeque<Packet>,
    /// Candidates, cheapest by routing first (refreshed at each arrival), with their
    /// advertisements.
    cands: Neighbours,
    /// When the queue last became empty (meaningful while it is).
    empty_since: Time,
}

/// The window a flow's source sees on the wire.
#[derive(Debug, Clone, Copy)]
struct Window {
    flow: u32,
    /// Highest data byte sent (end of the highest segment), +1.
    sent: u64,
    /// Highest cumulative acknowledgement received.
    acked: u64,
    /// Largest segment seen (the segment size the threshold counts in).
    mss: u64,
}

/// What to do at a transmission opportunity.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Choice {
    /// Queue `q` sends its head to its candidate `c`.
    Send { q: usize, c: usize },
    /// Packets queued, none may go before this time (an advertisement runs out).
    Hold(Time),
    /// Nothing queued.
    Idle,
}

/// One node's Horizon layer.
pub struct Horizon {
    p: HorizonParams,
    queues: Vec<FlowQueue>,
    windows: Vec<Window>,
    reorder: Reorder,
    counters: HorizonCounters,
}

impl Horizon {
    /// A node's layer.
    pub fn new(p: HorizonParams) -> Horizon {
        Horizon {
            p,
            queues: Vec::new(),
            windows: Vec::new(),
            reorder: Reorder::new(p.hold),
            counters: HorizonCounters::default(),
        }
    }

    fn queued(&self) -> usize {
        self.queues.iter().map(|q| q.q.len()).sum()
    }

    /// The queue of (flow, dst), if the node has one.
    fn queue(&self, flow: u32, dst: NodeId) -> Option<usize> {
        self.queues
            .iter()
            .position(|q| q.flow == flow && q.dst == dst)
    }

    /// Queue `q`'s candidate by cost (lowest ETX + advertised cost; on a tie, in turn
    /// from the one after the last chosen) among those `ok` accepts.
    fn best(q: &FlowQueue, now: Option<Time>, ok: impl Fn(u32) -> bool) -> Option<usize> {
        q.cands.best(now, |c, a| {
            let (backlog, cost) = a.map_or((0, 0.0), |a| (a.backlog, a.cost));
            ok(backlog).then_some(c.etx + cost)
        })
    }

    /// The flow selection (patent claims 1-3): the slowest queue to clear among those with a
    /// candidate satisfying the back-pressure condition. `now` None: every advertisement
    /// counts (what `poll_at` sees; a blocked queue is due when its first advertisement
    /// runs out).
    fn choose(&self, now: Option<Time>) -> Choice {
        let mut send: Option<(usize, usize, f64)> = None;
        let mut hold = Time::MAX;
        for (qi, q) in self.queues.iter().enumerate() {
            let b = q.q.len() as u32;
            if b == 0 {
                continue;
            }
            match Self::best(q, now, |nb| b > nb) {
                Some(ci) => {
                    let clear = b as f64 * q.cands.get(ci).etx;
                    if send.is_none_or(|s| clear > s.2) {
                        send = Some((qi, ci, clear));
                    }
                }
                None => {
                    if let Some(t) = q.cands.expiry(now) {
                        hold = hold.min(t);
                    }
                }
            }
        }
        match send {
            Some((q, c, _)) => Choice::Send { q, c },
            None if hold < Time::MAX => Choice::Hold(hold),
            None => Choice::Idle,
        }
    }

    /// This node's advertisement at `now`: every queue but those empty for longer than
    /// `advert_timeout` (their last advertisement has run out at every neighbour: left
    /// out, they count there as not heard from, backlog 0).
    fn advertisement(&self, now: Time) -> HorizonHeader {
        let entries = self
            .queues
            .iter()
            .filter(|q| !q.q.is_empty() || now - q.empty_since <= self.p.advert_timeout)
            .map(|q| {
                let b = q.q.len() as u32;
                let cost = match Self::best(q, Some(now), |_| true) {
                    Some(ci) => {
                        let c = q.cands.get(ci);
                        let down = c.advert(Some(now)).map_or(0.0, |a| a.cost);
                        b as f64 * c.etx + down
                    }
                    None => 0.0,
                };
                Entry {
                    flow: q.flow,
                    dst: q.dst,
                    backlog: b,
                    cost,
                }
            })
            .collect();
        HorizonHeader { entries }
    }

    fn window(&mut self, flow: u32) -> &mut Window {
        find_or_push(
            &mut self.windows,
            |w| w.flow == flow,
            || Window {
                flow,
                sent: 0,
                acked: 0,
                mss: 0,
            },
        )
    }

    /// The congestion signal at a flow's source: does this new segment take the
    /// window seen on the wire beyond the threshold? (Retransmissions always pass.)
    fn over_window(&mut self, me: NodeId, pkt: &Packet) -> bool {
        let th = self.p.window_threshold as u64;
        let Some(h) = pkt.tcp() else { return false };
        if pkt.src != me || h.len == 0 {
            return false;
        }
        let end = h.seq + h.len as u64;
        let w = self.window(pkt.flow);
        if end <= w.sent {
            return false;
        }
        // In segments of the flow's size: a short segment (a transfer's tail) counts
        // as one, not as a smaller unit.
        w.mss = w.mss.max(h.len as u64);
        if th > 0 && end.saturating_sub(w.acked) > th * w.mss {
            return true;
        }
        w.sent = end;
        false
    }

    /// A packet of (flow, dst) reached neighbour `nb`: until `nb` advertises again, its
    /// backlog is one more and its cost one transmission more than it last said (none
    /// heard: 1 and 1, for `advert_timeout`). A destination takes everything and
    /// advertises 0: left alone.
    fn handed(&mut self, nb: NodeId, flow: u32, dst: NodeId, now: Time) {
        if nb == dst {
            return;
        }
        if let Some(qi) = self.queue(flow, dst) {
            self.queues[qi].cands.handed(nb, now, self.p.advert_timeout);
        }
    }

    /// A packet for this node.
    fn at_destination(&mut self, cx: &mut SchemeCx, p: Packet) {
        let Some(h) = p.tcp().copied() else {
            cx.deliver(p);
            return;
        };
        if h.len == 0 {
            // An ACK at the flow's source: the window seen on the wire shrinks.
            let w = self.window(p.flow);
            w.acked = w.acked.max(h.ack);
            cx.deliver(p);
            return;
        }
        cx.absorb(1);
        // Straight into the scheme's output (what `cx.release` does, one at a time).
        let deadline = self
            .reorder
            .arrive(p, h.seq, h.len, cx.now, &mut cx.out.release);
        if let Some(d) = deadline {
            cx.wake_at(d);
        }
    }
}

impl CodingScheme for Horizon {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        if self.over_window(cx.node, &pkt) {
            self.counters.window_drops += 1;
            cx.drop_packet(pkt, DropReason::QueueFull);
            return;
        }
        if self.queued() >= cx.queue_capacity {
            self.counters.queue_drops += 1;
            cx.drop_packet(pkt, DropReason::QueueFull);
            return;
        }
        // Every reinforced path's next node, whatever `routing.spread` hands over (the
        // same routes that gave `hops`, which the seam guarantees is never empty).
        let all = cx.next_hops(pkt.dst, pkt.flow);
        debug_assert!(!all.is_empty() && !hops.is_empty());
        let (flow, dst) = (pkt.flow, pkt.dst);
        let q = match self.queue(flow, dst) {
            Some(i) => &mut self.queues[i],
            None => {
                self.queues.push(FlowQueue {
                    flow,
                    dst,
                    q: VecDeque::new(),
                    cands: Neighbours::default(),
                    empty_since: 0,
                });
                self.queues.last_mut().expect("pushed")
            }
        };
        // A candidate that stays one keeps what it advertised.
        q.cands.refresh(
            all.iter()
                .map(|h| (h.node, 1.0 / cx.delivery_prob(cx.node, h.node).max(1e-3))),
        );
        q.q.push_back(pkt);
        self.counters.enqueued += 1;
    }

    fn poll_at(&self) -> PollAt {
        match self.choose(None) {
            Choice::Send { .. } => PollAt::Now,
            Choice::Hold(t) => PollAt::At(t),
            Choice::Idle => PollAt::Idle,
        }
    }

    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        let Choice::Send { q, c } = self.choose(Some(cx.now)) else {
            return None;
        };
        let fq = &mut self.queues[q];
        let nh = fq.cands.get(c).node;
        fq.cands.chose(c);
        let unheard = fq.cands.get(c).advert(Some(cx.now)).is_none();
        let pkt = fq.q.pop_front().expect("a queue with packets");
        if fq.q.is_empty() {
            fq.empty_since = cx.now;
        }
        self.counters.sent += 1;
        if c != 0 {
            self.counters.sent_other += 1;
        }
        if unheard {
            self.counters.sent_unheard += 1;
        }
        // The advertisement is taken after the packet leaves the queue.
        let header = self.advertisement(cx.now);
        let mut body = Body::native(pkt, nh);
        let hb = header.bytes();
        body.msdu_bytes += hb;
        body.header_bytes = hb;
        body.header = Some(Arc::new(header));
        Some(OutFrame { mac_rx: nh, body })
    }

    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        if let Some(h) = rx.body.header_as::<HorizonHeader>() {
            // Only what a candidate says about the direction it is a candidate for
            // counts: kept in its slot of that queue; the rest is ignored.
            let until = cx.now + self.p.advert_timeout;
            for e in &h.entries {
                let Some(qi) = self.queue(e.flow, e.dst) else {
                    continue;
                };
                if self.queues[qi].cands.hear(rx.tx, e.backlog, e.cost, until) {
                    self.counters.adverts_heard += 1;
                }
            }
        }
        if rx.addressed == Addressed::Overheard {
            return;
        }
        for p in &rx.body.packets {
            if p.dst == cx.node {
                self.at_destination(cx, p.clone());
            } else {
                cx.deliver(p.clone());
            }
        }
    }

    fn handle_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        if outcome == TxOutcome::Delivered {
            if let Some(p) = frame.body.packets.first() {
                self.handed(frame.mac_rx, p.flow, p.dst, cx.now);
            }
        }
        cx.settle(frame, outcome);
    }

    fn handle_timeout(&mut self, cx: &mut SchemeCx) {
        let before = self.reorder.expired;
        self.reorder.expire(cx.now, &mut cx.out.release);
        self.counters.reorder_expired += self.reorder.expired - before;
    }

    fn occupancy(&self) -> Occupancy {
        let queued = self.queued();
        Occupancy {
            queued,
            held: queued + self.reorder.held(),
        }
    }

    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        let mut c = self.counters;
        c.reorder_held = self.reorder.held_total;
        c.report(out);
    }
}

#[cfg(test)]
mod tests;
