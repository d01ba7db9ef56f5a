//! Pipeline coding as a node's end-to-end coder: source, relay and destination of every
//! flow direction that passes through the node (a direction is a flow and the node that
//! originates its packets: the TCP sender's DATA, or the receiver's ACKs when they are
//! coded too).

use super::config::PipelineParams;
use super::generations::{Generation, Generations, Slot};
use super::sink::{Received, Sink};
use super::source::{coded_packet, Source};
use super::PipelineCounters;
use crate::coding::rlnc::Added;
use crate::coding::timers::Timers;
use crate::coding::{Coeffs, FlowCoder, FlowCx, Span};
use crate::net::{DropReason, NodeId, Packet, L4};

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
    counters: PipelineCounters,
    /// Scratch: a recoded combination's coefficients from its first packet, from
    /// position 0, and its payload.
    part: Vec<u8>,
    coeffs: Vec<u8>,
    buf: Vec<u8>,
}

fn entry<T: Default>(v: &mut Vec<(Dir, T)>, d: Dir) -> &mut T {
    let i = match v.iter().position(|e| e.0 == d) {
        Some(i) => i,
        None => {
            v.push((d, T::default()));
            v.len() - 1
        }
    };
    &mut v[i].1
}

/// Does coded packet `p` carry pure TCP acknowledgements?
fn pure_acks(p: &Packet) -> bool {
    matches!(&p.l4, L4::Coded(s) if s.natives.first().and_then(|n| n.tcp()).is_some_and(|h| h.len == 0))
}

impl PipelineCoder {
    /// A node's coder.
    pub fn new(params: PipelineParams) -> PipelineCoder {
        PipelineCoder {
            params,
            sources: Vec::new(),
            relays: Vec::new(),
            sinks: Vec::new(),
            timers: Timers::default(),
            counters: PipelineCounters::default(),
            part: Vec::new(),
            coeffs: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// Is `p` a packet this coder codes at its source? Transport data (TCP segments with
    /// payload, UDP), and pure ACKs when `code_acks`.
    fn codes(&self, p: &Packet) -> bool {
        match &p.l4 {
            L4::Tcp(h) => h.len > 0 || self.params.code_acks,
            L4::Udp(_) => true,
            L4::Coded(_) | L4::Control(_) => false,
        }
    }

    /// Is `p` one of this family's combinations?
    fn ours(p: &Packet) -> bool {
        matches!(&p.l4, L4::Coded(s) if matches!(s.span, Span::Generation { .. }) && matches!(s.coeffs, Coeffs::Gf256(_)))
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
        let mut out = Vec::new();
        let sent = src.push(cx.now, node, copy, &self.params, cx.rng, &mut |c| {
            out.push(c)
        });
        for c in out {
            cx.send(c);
        }
        self.counters.source_coded += sent;
    }

    fn handle_forward(&mut self, cx: &mut FlowCx, p: Packet) {
        if !Self::ours(&p) {
            return cx.pass(p);
        }
        let d = (p.flow, p.src);
        let (k, kept) = (self.params.generation_size, self.params.generations_kept);
        let L4::Coded(sym) = &p.l4 else {
            unreachable!()
        };
        let Span::Generation { id, .. } = sym.span else {
            unreachable!()
        };
        let Coeffs::Gf256(c) = &sym.coeffs else {
            unreachable!()
        };
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
        if self.params.forward_received {
            relay.credit += self.params.forward_redundancy - 1.0;
            cx.pass(p);
        } else {
            relay.credit += self.params.forward_redundancy;
            cx.consume(p);
        }
        let g = relay.gens.get(i);
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
            cx.send(coded_packet(
                src,
                g.id,
                &g.natives,
                &self.coeffs,
                payload,
                &g.header,
            ));
            self.counters.recoded += 1;
        }
    }

    fn handle_deliver(&mut self, cx: &mut FlowCx, p: Packet) {
        if !Self::ours(&p) {
            return cx.pass(p);
        }
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

    fn held(&self) -> usize {
        0
    }

    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.extend(
            PipelineCounters::NAMES
                .iter()
                .copied()
                .zip(self.counters.values()),
        );
    }
}
