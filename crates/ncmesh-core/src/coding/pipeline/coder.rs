//! Pipeline coding as a node's end-to-end coder: source, relay and destination of every
//! flow direction that passes through the node (a direction is a flow and the node that
//! originates its packets: the TCP sender's DATA, or the receiver's ACKs when they are
//! coded too).

use super::adapt::LossEstimator;
use super::config::PipelineParams;
use super::generations::{Generation, Generations, Slot};
use super::header::{Feedback, PipelineHeader};
use super::sink::{Received, Sink};
use super::source::{coded_packet, Source};
use super::{entry, generation_of, PipelineCounters};
use crate::coding::rlnc::Added;
use crate::coding::timers::Timers;
use crate::coding::{FlowCoder, FlowCx};
use crate::net::{DropReason, NodeId, Packet, L4};
use std::sync::Arc;

/// A flow direction: (flow, node that originates its packets).
type Dir = (u32, NodeId);

/// A relay's state for one direction: the generations it decodes and its re-encoding
/// credit (Chen et al.: forwarding redundancy per innovative packet).
#[derive(Debug, Default)]
struct Relay {
    gens: Generations,
    credit: f64,
    evicted: Vec<Generation>,
}

/// Pipeline coding at one node (Chen et al., "Intra-flow coding").
pub struct PipelineCoder {
    params: PipelineParams,
    sources: Vec<(Dir, Source)>,
    relays: Vec<(Dir, Relay)>,
    sinks: Vec<(Dir, Sink)>,
    /// Give-up timers of blocked destinations.
    timers: Timers<Dir>,
    /// Loss adaptation (Chen et al. Eq. 3-5), when on.
    adapt: Option<LossEstimator>,
    counters: PipelineCounters,
    /// Scratch: a recoded combination's coefficients from its first packet, from
    /// position 0, and its payload.
    part: Vec<u8>,
    coeffs: Vec<u8>,
    buf: Vec<u8>,
    /// Scratch: the packets a relay re-encodes from one received combination.
    outbox: Vec<Packet>,
}

/// Does coded packet `p` carry pure TCP acknowledgements?
fn pure_acks(p: &Packet) -> bool {
    matches!(&p.l4, L4::Coded(s) if s.natives.first().and_then(|n| n.tcp()).is_some_and(|h| h.len == 0))
}

impl PipelineCoder {
    /// A node's coder.
    pub fn new(params: PipelineParams) -> PipelineCoder {
        PipelineCoder {
            adapt: params.adaptive.map(|a| {
                LossEstimator::new(a.alpha, a.base_redundancy, a.report_lag, a.per_report)
            }),
            params,
            sources: Vec::new(),
            relays: Vec::new(),
            sinks: Vec::new(),
            timers: Timers::default(),
            counters: PipelineCounters::default(),
            part: Vec::new(),
            coeffs: Vec::new(),
            buf: Vec::new(),
            outbox: Vec::new(),
        }
    }

    /// Loss adaptation: writes into a combination this node (`me`) sends the counts of
    /// the opposite direction received here (N), one per upstream neighbour. (Its M is
    /// counted when it goes on the air: `handle_on_air`.)
    fn stamp(&mut self, p: &mut Packet, me: NodeId) {
        let Some(est) = &mut self.adapt else { return };
        let (reports, addressed) = est.report((p.flow, p.dst));
        let Some((sym, _, _)) = generation_of(p) else {
            return;
        };
        let prev_len = sym.header_as::<PipelineHeader>().map_or(0, |h| h.prev_len);
        if let L4::Coded(sym) = &mut p.l4 {
            let feedback = Some(Feedback {
                from: me,
                reports,
                addressed,
            });
            Arc::make_mut(sym).header = Some(Arc::new(PipelineHeader { prev_len, feedback }));
        }
    }

    /// Loss adaptation: a combination received here (N), with its sender's count of the
    /// direction this node sends back to it. The next hops this node spreads that
    /// direction over say whose counts make a generation's N.
    fn note_rx(&mut self, cx: &FlowCx, p: &Packet) {
        let Some(est) = &mut self.adapt else { return };
        let Some((sym, id, _)) = generation_of(p) else {
            return;
        };
        let fb = sym
            .header_as::<PipelineHeader>()
            .and_then(|h| h.feedback.as_ref());
        let from = fb.map_or(p.src, |f| f.from);
        est.received((p.flow, p.src), from, id);
        if let Some(r) = fb.and_then(|f| f.report_for(cx.node)) {
            let (back, flow) = (p.src, p.flow);
            est.reported((p.flow, p.dst), from, r, || {
                let hops = cx.route.next_hops_taken(back, flow);
                hops.iter().map(|h| h.node).collect()
            });
        }
    }

    /// The redundancy for direction `d` here: Eq. 5 with adaptation, else `fixed`.
    fn redundancy(&self, d: Dir, fixed: f64) -> f64 {
        self.adapt.as_ref().map_or(fixed, |e| e.redundancy(d))
    }

    /// Is `p` a packet this coder codes at its source? Transport data (TCP segments with
    /// payload, UDP), and pure ACKs when `code_acks`.
    fn codes(&self, p: &Packet) -> bool {
        match &p.l4 {
            L4::Tcp(h) => h.len > 0 || self.params.code_acks,
            L4::Udp(_) => true,
            L4::Coded(_) | L4::Control(_) | L4::Aodv(_) => false,
        }
    }

    fn sink_up(&mut self, cx: &mut FlowCx, d: Dir, p: Packet) {
        let (k, kept) = (self.params.generation_size, self.params.generations_kept);
        let sink = entry(&mut self.sinks, d);
        if sink.is_new() {
            sink.unordered = pure_acks(&p);
        }
        let mut decoded = 0;
        let (r, given_up) = sink.receive(&p, k, kept, &mut |n| {
            decoded += 1;
            cx.up(n)
        });
        let blocked = sink.blocked();
        cx.consume(p);
        match r {
            Received::Innovative => self.counters.innovative += 1,
            Received::NotInnovative => self.counters.not_innovative += 1,
            Received::Late => self.counters.late += 1,
        }
        self.counters.decoded += decoded;
        self.counters.given_up += given_up;
        self.arm(cx, d, blocked);
    }

    /// Sets the give-up timer of direction `d` if it is blocked (and not already set);
    /// cancels it when it is not.
    fn arm(&mut self, cx: &mut FlowCx, d: Dir, blocked: bool) {
        if !blocked {
            self.timers.cancel(d);
        } else if !self.timers.is_set(d) {
            let at = cx.now + self.params.give_up;
            self.timers.set(cx, at, d);
        }
    }
}

impl FlowCoder for PipelineCoder {
    fn handle_send(&mut self, cx: &mut FlowCx, p: Packet) {
        if !self.codes(&p) {
            return cx.pass(p);
        }
        let d = (p.flow, cx.node);
        let node = cx.node;
        let src = entry(&mut self.sources, d);
        let copy = p.clone();
        cx.consume(p);
        let r = self
            .adapt
            .as_ref()
            .map_or(self.params.redundancy, |e| e.redundancy(d));
        let mut out = Vec::new();
        let (_, sent) = src.push((cx.now, node), copy, r, &self.params, cx.rng, &mut |c| {
            out.push(c)
        });
        for mut c in out {
            self.stamp(&mut c, node);
            cx.send(c);
        }
        self.counters.source_coded += sent;
    }

    fn handle_forward(&mut self, cx: &mut FlowCx, mut p: Packet) {
        if generation_of(&p).is_none() {
            return cx.pass(p);
        }
        self.note_rx(cx, &p);
        let fwd = self.redundancy((p.flow, p.src), self.params.forward_redundancy);
        let d = (p.flow, p.src);
        let (k, kept) = (self.params.generation_size, self.params.generations_kept);
        let (sym, id, c) = generation_of(&p).expect("checked above");
        let relay = entry(&mut self.relays, d);
        let i = match relay.gens.slot(sym, id, k, kept, &mut relay.evicted) {
            Slot::At(i) => i,
            Slot::TooOld => {
                self.counters.late += 1;
                return cx.drop_packet(p, DropReason::Scheme);
            }
        };
        relay.evicted.clear();
        if !matches!(
            relay.gens.add(i, c, sym.payload.as_deref(), &sym.natives),
            Added::Innovative { .. }
        ) {
            self.counters.not_innovative += 1;
            return cx.drop_packet(p, DropReason::Scheme);
        }
        self.counters.innovative += 1;
        let (src, carry) = (p.src, sym.payload.is_some());
        // Re-encode what the generation holds (Ho et al.), forwarding redundancy per
        // innovative packet; ComboCoding sends the received packet itself as the first
        // (Chen et al., Fig. 5: it is XORed as received, and re-encoded only if no
        // partner comes within T; ours goes on as received then too).
        relay.credit += if self.params.forward_received {
            fwd - 1.0
        } else {
            fwd
        };
        let g = relay.gens.get(i);
        let mut out = std::mem::take(&mut self.outbox);
        while relay.credit >= 1.0 {
            relay.credit -= 1.0;
            let lo = g
                .dec
                .recode(cx.rng, &mut self.part, carry.then_some(&mut self.buf))
                .expect("holds an innovative packet") as usize;
            // Coefficients from position 0 (the span of a generation's combination).
            self.coeffs.clear();
            self.coeffs.resize(lo, 0);
            self.coeffs.extend_from_slice(&self.part);
            let payload = carry.then(|| self.buf.as_slice().into());
            out.push(coded_packet(
                src,
                g.id,
                &g.natives,
                &self.coeffs,
                payload,
                &g.header,
            ));
        }
        if self.params.forward_received {
            self.stamp(&mut p, cx.node);
            cx.pass(p);
        } else {
            cx.consume(p);
        }
        for mut c in out.drain(..) {
            self.stamp(&mut c, cx.node);
            cx.send(c);
            self.counters.recoded += 1;
        }
        self.outbox = out;
    }

    fn handle_deliver(&mut self, cx: &mut FlowCx, p: Packet) {
        if generation_of(&p).is_none() {
            return cx.pass(p);
        }
        self.note_rx(cx, &p);
        let d = (p.flow, p.src);
        self.sink_up(cx, d, p);
    }

    fn handle_timeout(&mut self, cx: &mut FlowCx) {
        while let Some(d) = self.timers.pop_due(cx.now) {
            let k = self.params.generation_size;
            let sink = entry(&mut self.sinks, d);
            let mut decoded = 0;
            let given_up = sink.give_up(k, &mut |n| {
                decoded += 1;
                cx.up(n)
            });
            let blocked = sink.blocked();
            self.counters.decoded += decoded;
            self.counters.given_up += given_up;
            self.arm(cx, d, blocked);
        }
    }

    /// Loss adaptation: Eq. 3's M counts the combinations this node sends on a link, so
    /// it counts them on the air; counted when queued, the node's own queue drops read
    /// as link loss, raise its redundancy and overflow its queue further.
    fn handle_on_air(&mut self, p: &Packet) {
        let Some(est) = &mut self.adapt else { return };
        if let Some((_, id, _)) = generation_of(p) {
            est.sent((p.flow, p.src), id);
        }
    }

    fn held(&self) -> usize {
        0
    }

    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        let mut c = self.counters;
        if let Some(e) = &self.adapt {
            c.loss_updates = e.updates;
            c.loss_permille = (e.max_loss() * 1000.0).round() as u64;
        }
        c.report(out);
    }
}
