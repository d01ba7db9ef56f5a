//! MORE at one node: the roles it plays for each flow (source, forwarder, destination),
//! the drop-tail FIFO for everything that is not a MORE combination (TCP ACKs, batch
//! acknowledgements), and CoMP's Alg. 1 at sources.
//!
//! Every packet instance is accounted for (docs/assumptions.md, "MORE"): a TCP segment
//! a source takes is consumed; every combination (a source's or a forwarder's) is a new
//! packet the node makes itself (`SchemeCx::make`: counted as created, as CoMP's), held
//! in `ready` until it goes on the air; a combination
//! taken from the MAC is absorbed and consumed; a decoded native goes up as it was sent.
//! A combination is made one transmission ahead, so one is ready at each opportunity.

use super::config::MoreParams;
use super::header::{MoreAck, MoreHeader, MoreHop};
use super::plan;
use super::relay::{Heard, Relay};
use super::sink::{Got, Sink};
use super::source::Source;
use crate::coding::droptail::DropTail;
use crate::coding::keyed::value_or_default;
use crate::coding::loss_estimate::{LossEstimate, ReceiveCounts};
use crate::coding::timers::Timers;
use crate::coding::{Addressed, Body, CodingScheme, ControlMsg, Layer, Occupancy, OutFrame};
use crate::coding::{PollAt, Rx, SchemeCx, Span, TxOutcome, WireHeader};
use crate::net::{DropReason, NextHop, NodeId, Packet, BROADCAST, L4};
use std::collections::VecDeque;
use std::sync::Arc;

crate::family_counters! {
    /// Per-node counters of MORE (result columns `more_*`).
    pub struct MoreCounters, prefix "more_" {
        /// TCP data segments a source took into batches.
        segments: "packets",
        /// TCP retransmissions of a segment still in an unacknowledged batch, taken and
        /// not added again.
        retx_skipped: "packets",
        /// Packets dropped on arrival, the queue full (segments at a source, FIFO packets).
        queue_drops: "packets",
        /// Batches a source started.
        batches_started: "batches",
        /// Batches a source saw acknowledged.
        batches_acked: "batches",
        /// Batches closed before they were full (`batch_wait_s`).
        batches_short: "batches",
        /// Combinations a source sent.
        source_sent: "combinations",
        /// Recoded combinations forwarders sent.
        forwarder_sent: "combinations",
        /// Combinations taken from the MAC that raised the rank (forwarders, destination).
        innovative: "combinations",
        /// Combinations taken that did not.
        not_innovative: "combinations",
        /// Batches the destination decoded.
        batches_decoded: "batches",
        /// Natives the destination handed up.
        natives_up: "packets",
        /// Batch acknowledgements the destination sent (first ones).
        acks_sent: "acknowledgements",
        /// Acknowledgements sent again: by the destination for a combination of a batch it
        /// decoded, by a forwarder for one of a batch it saw acknowledged.
        acks_repeated: "acknowledgements",
        /// FIFO frames sent again after the MAC failed to deliver them (`fifo_tries`).
        fifo_resent: "frames",
        /// Forwarder states flushed (by an acknowledgement or a newer batch).
        flushes: "flushes",
        /// Combinations made but dropped before they went on the air (their batch ended).
        stale_dropped: "combinations",
        /// Alg. 1 samples taken at a source.
        loss_samples: "samples",
        /// Nodes in the last plan a source made (destination and source included).
        plan_nodes: "nodes",
    }
}

/// The scheme's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Timer {
    /// A source's open batch of `flow` closes if no segment came for `batch_wait`.
    BatchWait(u32),
}

/// The batch of a MORE combination, with its symbol.
fn more_batch(p: &Packet) -> Option<(u32, &crate::coding::CodedSymbol, &MoreHeader)> {
    let L4::Coded(s) = &p.l4 else { return None };
    let Span::Generation { id, .. } = s.span else {
        return None;
    };
    Some((id, s, s.header_as::<MoreHeader>()?))
}

/// A batch acknowledgement.
fn more_ack(p: &Packet) -> Option<&MoreAck> {
    match &p.l4 {
        L4::Control(m) if m.layer == Layer::Hop => m.fields_as::<MoreAck>(),
        _ => None,
    }
}

/// One node's MORE layer.
pub struct More {
    p: MoreParams,
    sources: Vec<Source>,
    relays: Vec<(u32, Relay)>,
    sinks: Vec<(u32, Sink)>,
    /// Everything that is not a combination, to the routing's next hop, drop-tail.
    fifo: DropTail,
    /// Combinations made, waiting for a transmission opportunity (one per flow at most).
    ready: VecDeque<Packet>,
    /// Combinations this node made (their uids).
    made: u64,
    timers: Timers<Timer>,
    /// Alg. 1 at this node as a source: ids of its coded frames per candidate.
    estimate: LossEstimate,
    /// Alg. 1 at this node as a receiver: (s, t) per flow source heard.
    counts: ReceiveCounts,
    next_id: u64,
    counters: MoreCounters,
}

impl More {
    /// A node's layer.
    pub fn new(p: MoreParams) -> More {
        More {
            p,
            sources: Vec::new(),
            relays: Vec::new(),
            sinks: Vec::new(),
            fifo: DropTail::new(0, p.fifo_tries),
            ready: VecDeque::new(),
            made: 0,
            timers: Timers::default(),
            estimate: LossEstimate::new(p.loss_alpha),
            counts: ReceiveCounts::default(),
            next_id: 0,
            counters: MoreCounters::default(),
        }
    }

    fn source(&mut self, flow: u32) -> Option<&mut Source> {
        self.sources.iter_mut().find(|s| s.flow == flow)
    }

    fn relay(&mut self, flow: u32) -> &mut Relay {
        value_or_default(&mut self.relays, flow)
    }

    fn sink(&mut self, flow: u32) -> &mut Sink {
        value_or_default(&mut self.sinks, flow)
    }

    /// Has `flow` a combination ready or on its way?
    fn has_next(&self, flow: u32) -> bool {
        self.ready.iter().any(|p| p.flow == flow)
    }

    /// Makes `flow`'s next combination if it has none ready and its role may send: the
    /// source while its batch is in flight, a forwarder while its credit lasts.
    fn make_next(&mut self, cx: &mut SchemeCx, flow: u32) {
        if self.has_next(flow) {
            return;
        }
        let p = if let Some(i) = self.sources.iter().position(|s| s.flow == flow) {
            self.sources[i].combination(cx.rng)
        } else if let Some(i) = self.relays.iter().position(|e| e.0 == flow) {
            let r = &mut self.relays[i].1;
            if r.due() {
                r.recode(cx.rng)
            } else {
                None
            }
        } else {
            None
        };
        if let Some(p) = p {
            let p = cx.make(p, &mut self.made);
            self.ready.push_back(p);
        }
    }

    /// Starts the source's next closed batch of `flow` if none is in flight: a fresh
    /// plan (§4.4) with ε from Alg. 1 where the source has estimates, the link model
    /// elsewhere.
    fn start_batch(&mut self, cx: &mut SchemeCx, flow: u32) {
        let me = cx.node;
        let Some(i) = self.sources.iter().position(|s| s.flow == flow) else {
            return;
        };
        if !self.sources[i].can_start() {
            return;
        }
        let mut order = self.sources[i].cands.clone();
        order.push(me);
        let est = &self.estimate;
        let pl = plan(
            &order,
            |a, b| match (a == me).then(|| est.loss_to(b)).flatten() {
                Some(loss) => 1.0 - loss,
                None => cx.delivery_prob(a, b),
            },
            self.p.prune_share,
        );
        let forwarders = pl
            .nodes
            .iter()
            .zip(&pl.credit)
            .map(|(&n, &c)| (n, if c.is_finite() { c } else { 0.0 }))
            .collect();
        self.counters.plan_nodes = pl.nodes.len() as u64;
        self.sources[i].start(MoreHeader { forwarders });
        self.counters.batches_started += 1;
        self.make_next(cx, flow);
    }

    /// `flow`'s batch `batch` is acknowledged (the source got, or this node forwarded or
    /// overheard, the destination's acknowledgement): its state and ready combinations go.
    fn on_ack(&mut self, cx: &mut SchemeCx, flow: u32, batch: u32) {
        let stale =
            |p: &Packet| p.flow == flow && more_batch(p).is_some_and(|(b, _, _)| b <= batch);
        while let Some(i) = self.ready.iter().position(stale) {
            let p = self.ready.remove(i).expect("found");
            self.counters.stale_dropped += 1;
            cx.drop_packet(p, DropReason::Scheme);
        }
        if let Some(s) = self.source(flow) {
            if s.acked(batch) {
                self.counters.batches_acked += 1;
                self.start_batch(cx, flow);
            }
        } else if self.relays.iter().any(|e| e.0 == flow) && self.relay(flow).flush(batch) {
            self.counters.flushes += 1;
        }
    }

    /// A TCP data segment from this node's transport.
    fn at_source(&mut self, cx: &mut SchemeCx, pkt: Packet) {
        let seq = pkt.tcp().map_or(0, |h| h.seq);
        let (flow, dst) = (pkt.flow, pkt.dst);
        if self.source(flow).is_none() {
            let cands = cx.routes.forwarders(cx.node, dst);
            let cands = cands.into_iter().map(|c| c.0).collect();
            self.sources.push(Source::new(flow, cands));
        }
        let waiting = self.source(flow).expect("added").waiting();
        if self.source(flow).expect("added").holds(seq) {
            // A retransmission of a segment MORE still carries reliably: taken, not
            // added again.
            self.counters.retx_skipped += 1;
            drop(pkt);
            cx.consume(1);
            return;
        }
        if waiting + self.queued() >= cx.queue_capacity {
            self.counters.queue_drops += 1;
            cx.drop_packet(pkt, DropReason::QueueFull);
            return;
        }
        // Taken for good (the ledger's `consume`); kept as the batch's stand-in.
        cx.consume(1);
        self.counters.segments += 1;
        let (k, wait, now) = (self.p.batch, self.p.batch_wait, cx.now);
        let src = self.source(flow).expect("added");
        if src.push(pkt, k, now) {
            self.timers.cancel(Timer::BatchWait(flow));
            self.start_batch(cx, flow);
        } else {
            self.timers.set(cx, now + wait, Timer::BatchWait(flow));
        }
    }

    /// A MORE combination heard from `tx`.
    fn hear_coded(&mut self, cx: &mut SchemeCx, tx: NodeId, p: &Packet, id: Option<u64>) {
        let (batch, sym, h) = more_batch(p).expect("checked");
        if let (Some(id), true) = (id, tx == p.src) {
            self.counts.received(tx, id);
        }
        let me = cx.node;
        if p.dst == me {
            // Received and used up (absorb + consume; the decoder keeps its row).
            cx.absorb(1);
            cx.consume(1);
            match self.sink(p.flow).receive(batch, sym) {
                // Its acknowledgement may have been lost.
                Got::Stale => self.repeat_ack(cx, p, batch),
                Got::NotInnovative => self.counters.not_innovative += 1,
                Got::Innovative => self.counters.innovative += 1,
                Got::Decoded(natives) => {
                    self.counters.innovative += 1;
                    self.counters.batches_decoded += 1;
                    self.counters.natives_up += natives.len() as u64;
                    for n in natives {
                        cx.up(n);
                    }
                    self.counters.acks_sent += 1;
                    self.send_ack(cx, p, batch);
                }
            }
            return;
        }
        // A forwarder takes what comes from upstream in the batch's list (§4.2).
        let (Some(mine), Some(theirs)) = (h.index_of(me), h.index_of(tx)) else {
            return;
        };
        if p.src == me || theirs <= mine {
            return;
        }
        let credit = h.forwarders[mine].1;
        match self.relay(p.flow).hear(batch, sym, credit) {
            Heard::Stale => {}
            // The source still sends a batch this node saw acknowledged: the
            // acknowledgement was lost on its way (no MAC retries), so it goes again.
            Heard::Acked => self.repeat_ack(cx, p, batch),
            Heard::Taken {
                innovative,
                flushed,
            } => {
                cx.absorb(1);
                cx.consume(1);
                if innovative {
                    self.counters.innovative += 1;
                } else {
                    self.counters.not_innovative += 1;
                }
                if flushed {
                    self.counters.flushes += 1;
                    self.drop_ready_before(cx, p.flow, batch);
                }
                self.make_next(cx, p.flow);
            }
        }
    }

    /// Drops `flow`'s ready combinations of batches before `batch`.
    fn drop_ready_before(&mut self, cx: &mut SchemeCx, flow: u32, batch: u32) {
        let old = |p: &Packet| p.flow == flow && more_batch(p).is_some_and(|(b, _, _)| b < batch);
        while let Some(i) = self.ready.iter().position(old) {
            let p = self.ready.remove(i).expect("found");
            self.counters.stale_dropped += 1;
            cx.drop_packet(p, DropReason::Scheme);
        }
    }

    /// `batch` of the flow of `p` is acknowledged again, unless an acknowledgement of the
    /// flow waits in this node's FIFO already.
    fn repeat_ack(&mut self, cx: &mut SchemeCx, p: &Packet, batch: u32) {
        let waiting = self
            .fifo
            .any(|q| more_ack(q).is_some_and(|a| a.flow == p.flow));
        if !waiting {
            self.counters.acks_repeated += 1;
            self.send_ack(cx, p, batch);
        }
    }

    /// Acknowledges `batch` of the flow of `p` to its source, on the routing's path.
    fn send_ack(&mut self, cx: &mut SchemeCx, p: &Packet, batch: u32) {
        let ack = MoreAck {
            flow: p.flow,
            batch,
        };
        let node = cx.node;
        cx.originate(ControlMsg::packet(Layer::Hop, ack, p.flow, node, p.src));
    }

    /// Packets in the interface queue.
    fn queued(&self) -> usize {
        self.fifo.len() + self.ready.len()
    }

    /// This node's per-hop block: `id` for a coded frame of its own flow, and its
    /// reports.
    fn hop(&self, id: Option<u64>) -> Option<MoreHop> {
        let reports: Vec<_> = self.counts.reports().collect();
        (id.is_some() || !reports.is_empty()).then_some(MoreHop { id, reports })
    }
}

impl CodingScheme for More {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        if pkt.src == cx.node && pkt.tcp().is_some_and(|h| h.len > 0) {
            self.at_source(cx, pkt);
            return;
        }
        if let Some(a) = more_ack(&pkt) {
            // Forwarding the acknowledgement: the batch is done here too (§4.3).
            let (flow, batch) = (a.flow, a.batch);
            self.on_ack(cx, flow, batch);
        }
        let held = self.queued();
        if !self.fifo.offer(cx, pkt, hops[0].node, held) {
            self.counters.queue_drops += 1;
        }
    }

    fn poll_at(&self) -> PollAt {
        if self.fifo.is_empty() && self.ready.is_empty() {
            PollAt::Idle
        } else {
            PollAt::Now
        }
    }

    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        // Acknowledgements (TCP's and MORE's) first, then combinations in turn.
        let (mut body, mac_rx, id) = if let Some((pkt, nh)) = self.fifo.pop() {
            (Body::native(pkt, nh), nh, None)
        } else {
            let pkt = self.ready.pop_front()?;
            let flow = pkt.flow;
            let own = pkt.src == cx.node;
            let id = if own {
                self.counters.source_sent += 1;
                self.next_id += 1;
                let id = self.next_id;
                if let Some(s) = self.sources.iter().find(|s| s.flow == flow) {
                    for &c in &s.cands {
                        self.estimate.sent(c, id);
                    }
                }
                Some(id)
            } else {
                self.counters.forwarder_sent += 1;
                let r = self.relay(flow);
                r.credit = (r.credit - 1.0).max(0.0);
                None
            };
            self.make_next(cx, flow);
            (Body::native(pkt, BROADCAST), BROADCAST, id)
        };
        if let Some(h) = self.hop(id) {
            let hb = h.bytes();
            body.msdu_bytes += hb;
            body.header_bytes = hb;
            body.header = Some(Arc::new(h));
        }
        Some(OutFrame { mac_rx, body })
    }

    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        let hop = rx.body.header_as::<MoreHop>();
        if let Some(h) = hop {
            // Alg. 1 at a source: a receiver's (s, t) for this node.
            let mine = h.reports.iter().filter(|r| r.to == cx.node);
            for c in mine
                .take(usize::from(!self.sources.is_empty()))
                .map(|r| r.counts)
            {
                if self.estimate.report(rx.tx, c.last_id, c.received).is_some() {
                    self.counters.loss_samples += 1;
                }
            }
        }
        let id = hop.and_then(|h| h.id);
        for p in &rx.body.packets {
            if more_batch(p).is_some() {
                self.hear_coded(cx, rx.tx, p, id);
                continue;
            }
            if let Some(a) = more_ack(p) {
                let (flow, batch) = (a.flow, a.batch);
                self.on_ack(cx, flow, batch);
            }
            if rx.addressed != Addressed::Overheard {
                cx.deliver(p.clone());
            }
        }
    }

    fn handle_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        // A FIFO frame that failed goes again, first (the packet stays held).
        match self.fifo.take_back(frame, outcome) {
            Some(frame) => cx.settle(frame, outcome),
            None => self.counters.fifo_resent += 1,
        }
    }

    fn handle_timeout(&mut self, cx: &mut SchemeCx) {
        while let Some(Timer::BatchWait(flow)) = self.timers.pop_due(cx.now) {
            let wait = self.p.batch_wait;
            let now = cx.now;
            let Some(s) = self.source(flow) else { continue };
            if now >= s.last_new + wait && s.close() {
                self.counters.batches_short += 1;
                self.start_batch(cx, flow);
            }
        }
    }

    fn handle_control(&mut self, cx: &mut SchemeCx, _from: NodeId, msg: &ControlMsg) {
        if let Some(a) = msg.fields_as::<MoreAck>() {
            let (flow, batch) = (a.flow, a.batch);
            self.on_ack(cx, flow, batch);
        }
    }

    fn occupancy(&self) -> Occupancy {
        let queued = self.queued();
        Occupancy {
            queued,
            held: queued,
        }
    }

    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        self.counters.report(out);
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
