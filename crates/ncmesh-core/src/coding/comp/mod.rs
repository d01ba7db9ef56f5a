//! CoMP (Gheorghiu, Lopez Toledo, Rodriguez, "Multipath TCP with network coding for
//! wireless mesh networks", ICC 2010, §II): multipath online network coding below TCP.
//!
//! - Source (§II-A, §II-E, Alg. 3): the coding buffer holds TCP's packets that the
//!   destination has not acknowledged as seen; each packet from TCP is a credit, and
//!   makes a random combination of the whole buffer over GF(2^16) (TCP/NC's online
//!   coding, `tcpnc::Source`); the destination's acknowledgements slide the buffer and
//!   reach TCP as its ACKs.
//! - Relays (§II-E, Alg. 4): a combination received from an upstream neighbour first
//!   makes the coding buffer forget the packets older than its window, then is kept if
//!   innovative (`relay::Relay`); each credit received makes a fresh combination of
//!   the buffer. A downstream neighbour that overhears a combination addressed to
//!   another keeps it too if innovative (the multipath reception of Fig. 1), without
//!   the credit.
//! - Rate and hybrid credits (§II-B, §II-C): each node estimates the loss to each
//!   downstream neighbour with Alg. 1 (`loss_estimate`), from the (s, t) they piggyback
//!   (a neighbour not yet sampled starts from the routing's estimate of the link); its
//!   node loss is the product over them (a packet is lost only if all miss it). The
//!   loss is compensated once (`compensation`): a report that shows packets missed
//!   creates one credit per packet missed (the credits the paper lets relays create on
//!   a detected loss), or every credit makes 1 / (1 − node loss) combinations
//!   (fractions accumulate). A relay whose buffer a passing acknowledgement shows seen
//!   flushes it.
//! - Scheduling (§II-D, Alg. 2): at a transmission opportunity, of the flows whose
//!   output buffer may go, the one with the most packets; to the downstream neighbour
//!   with the smallest advertised queue, provided the own queue is longer (the
//!   back-pressure condition); the frame carries the own queue and the (s, t) of every
//!   upstream neighbour. Other packets (acknowledgements) go first, to the routing's
//!   next hop.
//! - Destination (§II-E, Alg. 5): progressive decoding (`tcpnc::Sink`); decoded packets
//!   go up to TCP in order; every innovative combination is acknowledged with the first
//!   unseen packet (TCP/NC's seen packets: the acknowledgement of a packet decoded and
//!   of one not yet decodable are the same message). TCP's own ACKs stop at the
//!   destination's layer; their window is copied into the acknowledgements.
//!
//! Choices the paper leaves open: docs/assumptions.md ("CoMP").

pub mod config;
mod flow;
pub mod header;
mod hop;
mod relay;
mod schedule;

pub use config::{CompCfg, CompParams, Compensation, LossSource};
pub use header::{CompHeader, Report};

use super::backpressure::Neighbours;
use super::droptail::DropTail;
use super::loss_estimate::{LossEstimate, LossPrior, ReceiveCounts};
use super::rlnc::FieldCoeffs;
use super::rlnc::{Added, Gf65536};
use super::tcpnc::header::{TcpNcAck, TcpNcHeader, WINDOW_LEN_BYTES, WINDOW_START_BYTES};
use super::tcpnc::sink::Sink;
use super::tcpnc::source::Source;
use super::{Addressed, Body, CodedSymbol, CodingScheme, ControlMsg, Layer, Occupancy, OutFrame};
use super::{PollAt, Rx, SchemeCx, Span, TxOutcome, WireHeader};
use crate::net::{DropReason, NextHop, NodeId, Packet, L4};
use flow::{FlowState, Role};
use relay::Relay;
use schedule::Choice;
use std::sync::Arc;

/// Bytes of a combination's end-to-end fields beyond its coefficients: the window's
/// first packet and its length (TCP/NC's header, without an id).
pub(crate) fn e2e_header_bytes() -> u32 {
    WINDOW_START_BYTES + WINDOW_LEN_BYTES
}

crate::family_counters! {
    /// Per-node counters of CoMP (result columns `comp_*`).
    pub struct CompCounters, prefix "comp_" {
        /// Packets from TCP at a source (retransmissions included).
        tcp_packets: "packets",
        /// Of those, TCP retransmissions (bytes already in the coding buffer).
        tcp_retransmissions: "packets",
        /// Combinations a source made.
        source_coded: "combinations",
        /// Combinations a relay made.
        relay_coded: "combinations",
        /// Credits created on a loss Alg. 1 detected.
        loss_credits: "credits",
        /// Relay buffers flushed by a passing acknowledgement that covered them.
        flushes: "flushes",
        /// Covering acknowledgements a flushed relay repeated to a source behind.
        acks_repeated: "acknowledgements",
        /// Credits a source took from an acknowledgement that blocked TCP.
        repairs: "credits",
        /// Combinations received addressed to this node.
        received: "combinations",
        /// Of the combinations received (addressed or overheard), innovative ones kept.
        innovative: "combinations",
        /// Of those, overheard (addressed to another downstream neighbour).
        overheard_innovative: "combinations",
        /// Combinations received addressed to this node that were not innovative (dropped).
        not_innovative: "combinations",
        /// Packets decoded and handed up to TCP at a destination.
        decoded: "packets",
        /// Acknowledgements a destination sent.
        acks_sent: "acknowledgements",
        /// Acknowledgements a source passed up to TCP as ACKs.
        acks_up: "acknowledgements",
        /// Acknowledgements a source absorbed (they did not move the window).
        acks_absorbed: "acknowledgements",
        /// The TCP receiver's own ACKs stopped at the destination's layer.
        tcp_acks_suppressed: "packets",
        /// Packets dropped on arrival, the node's queue full.
        queue_drops: "packets",
        /// The node loss at the end of the run, per mille (the highest of the node's flows).
        loss_permille: "per mille",
        /// Combinations per credit at the end of the run, thousandths (the highest).
        rate_milli: "thousandths",
    }
}

/// A CoMP combination's parts: the symbol and its window's first packet.
fn combination_of(p: &Packet) -> Option<(&CodedSymbol, u64)> {
    let L4::Coded(s) = &p.l4 else { return None };
    let Span::Window { first, .. } = s.span else {
        return None;
    };
    s.header_as::<TcpNcHeader>()?;
    Some((s, first))
}

/// One node's CoMP layer.
pub struct Comp {
    p: CompParams,
    flows: Vec<FlowState>,
    /// Packets other than combinations (acknowledgements), with their next hop.
    plain: DropTail,
    /// Combinations this node made (their uids).
    made: u64,
    counters: CompCounters,
}

impl Comp {
    /// A node's layer.
    pub fn new(p: CompParams) -> Comp {
        Comp {
            p,
            flows: Vec::new(),
            plain: DropTail::new(0, 1),
            made: 0,
            counters: CompCounters::default(),
        }
    }

    /// Packets held: the plain queue (combinations are made when sent).
    fn held(&self) -> usize {
        self.plain.len()
    }

    fn find(&self, flow: u32) -> Option<usize> {
        self.flows.iter().position(|f| f.flow == flow)
    }

    /// The state of `flow` (from `src` to `dst`), made with `role` if new.
    fn state(&mut self, flow: u32, src: NodeId, dst: NodeId, role: impl FnOnce() -> Role) -> usize {
        if let Some(i) = self.find(flow) {
            return i;
        }
        self.flows.push(FlowState {
            flow,
            src,
            dst,
            role: role(),
            num: 0.0,
            loss: 0.0,
            rate: 1.0,
            next_id: 0,
            est: LossEstimate::new(self.p.loss_alpha),
            counts: ReceiveCounts::default(),
            cands: Neighbours::default(),
            covering: None,
        });
        self.flows.len() - 1
    }

    /// The flow's downstream neighbours as routing gives them, keeping what each still
    /// advertises.
    fn refresh_cands(&mut self, cx: &SchemeCx, fi: usize) {
        let f = &mut self.flows[fi];
        let hops = cx.next_hops(f.dst, f.flow);
        if !f.cands.is(hops.iter().map(|h| h.node)) {
            f.cands.refresh(hops.iter().map(|h| (h.node, 0.0)));
            if self.p.prior == LossPrior::Routing {
                // A new downstream neighbour's loss starts from the routing's estimate
                // of the link, which Alg. 1's reports then move (§II-B is silent).
                for h in &hops {
                    let d = cx.route.link_delivery(h.node).unwrap_or(1.0);
                    f.est.start_from(h.node, 1.0 - d);
                }
            }
        }
    }

    /// The node loss of flow `f` (§II-B): the product of its downstream neighbours'
    /// losses, estimated (Alg. 1, from `prior`; neighbours with neither a sample nor a
    /// start left out) or configured.
    fn node_loss(&self, cx: &SchemeCx, f: &FlowState) -> f64 {
        match self.p.loss {
            _ if f.cands.is_empty() => 0.0,
            // Neighbours with neither a sample nor a start are left out (none: no loss
            // known).
            LossSource::Estimated => f
                .est
                .node_loss(f.cands.iter().map(|c| c.node))
                .unwrap_or(0.0),
            LossSource::Configured => f
                .cands
                .iter()
                .map(|c| 1.0 - cx.delivery_prob(cx.node, c.node))
                .product(),
        }
    }

    /// Sets flow `fi`'s rate from its node loss.
    fn update_rate(&mut self, cx: &SchemeCx, fi: usize) {
        let loss = self.node_loss(cx, &self.flows[fi]);
        let f = &mut self.flows[fi];
        f.loss = loss;
        f.rate = self.p.rate_for(loss, matches!(f.role, Role::Source(_)));
    }

    /// A data segment from this node's TCP: into the coding buffer, and its credit's
    /// combinations out (Alg. 3).
    fn source_send(&mut self, cx: &mut SchemeCx, p: Packet) {
        let (flow, dst) = (p.flow, p.dst);
        let node = cx.node;
        let fi = self.state(flow, node, dst, || {
            Role::Source(Source::new(node, dst, 1.0, None))
        });
        self.refresh_cands(cx, fi);
        self.update_rate(cx, fi);
        let f = &mut self.flows[fi];
        let Role::Source(src) = &mut f.role else {
            // A node is one thing per flow: its own TCP's segments make it the source.
            debug_assert!(false, "a segment from TCP at a relay of its flow");
            cx.drop_packet(p, DropReason::NoRoute);
            return;
        };
        let retransmission = src.buffer(p);
        cx.consume(1);
        // Alg. 3: the packet is a credit (a retransmission too, as in TCP/NC).
        f.num += f.rate;
        self.counters.tcp_packets += 1;
        self.counters.tcp_retransmissions += u64::from(retransmission);
    }

    /// The combination flow `fi` sends now, made from its coding buffer (None: the
    /// buffer is empty, and the credits held are void).
    fn make(&mut self, cx: &mut SchemeCx, fi: usize) -> Option<Packet> {
        let f = &mut self.flows[fi];
        let made = match &mut f.role {
            Role::Source(src) => src.combination(cx.rng),
            Role::Relay(relay) => relay.recode(cx.rng, f.src, f.dst),
            Role::Sink(_) => None,
        };
        let Some(p) = made else {
            f.num = 0.0;
            return None;
        };
        f.num -= 1.0;
        match f.role {
            Role::Source(_) => self.counters.source_coded += 1,
            _ => self.counters.relay_coded += 1,
        }
        Some(cx.make(p, &mut self.made))
    }

    /// A combination of flow `p.flow` heard from `tx`; `credit`: addressed to this node
    /// (it carries a credit and counts in Alg. 1's (s, t)), with the sender's id.
    fn receive_combination(
        &mut self,
        cx: &mut SchemeCx,
        p: &Packet,
        tx: NodeId,
        credit: Option<u64>,
    ) {
        let (sym, first) = combination_of(p).expect("checked");
        let (flow, src, dst, node) = (p.flow, p.src, p.dst, cx.node);
        let rcv_window = self.p.rcv_window;
        let fi = self.state(flow, src, dst, || {
            if dst == node {
                Role::Sink(Sink::new(rcv_window))
            } else {
                Role::Relay(Relay::new())
            }
        });
        if dst != node {
            self.refresh_cands(cx, fi);
        }
        if let Some(id) = credit {
            // Alg. 4 line 3, Alg. 5 line 2: counted innovative or not.
            self.flows[fi].counts.received(tx, id);
            self.counters.received += 1;
        }
        let added = match &mut self.flows[fi].role {
            Role::Relay(relay) => relay.receive(sym, first),
            Role::Sink(sink) => {
                let Some(coeffs) = Gf65536::view(&sym.coeffs) else {
                    return;
                };
                let mut decoded = 0;
                let added = sink.receive(sym, first, coeffs, &mut |n| {
                    decoded += 1;
                    cx.up(n)
                });
                self.counters.decoded += decoded;
                added
            }
            Role::Source(_) => return,
        };
        match added {
            Added::Innovative { .. } => {
                self.counters.innovative += 1;
                if credit.is_none() {
                    self.counters.overheard_innovative += 1;
                }
            }
            _ if credit.is_some() => self.counters.not_innovative += 1,
            _ => {}
        }
        if dst == node {
            // Alg. 5: an innovative combination is acknowledged; so is one whose whole
            // window was seen already (the source is behind: its acknowledgements
            // were lost), or the source could wait for ever.
            let window_end = first + sym.natives.len() as u64;
            let Role::Sink(sink) = &self.flows[fi].role else {
                unreachable!("a destination's role")
            };
            let innovative = matches!(added, Added::Innovative { .. });
            let behind = credit.is_some() && window_end <= sink.first_unseen();
            if innovative || behind {
                let ack = TcpNcAck {
                    flow,
                    first_unseen: sink.first_unseen(),
                    wnd: sink.window(),
                    report: None,
                };
                self.counters.acks_sent += 1;
                cx.originate(ControlMsg::packet(Layer::Hop, ack, flow, node, src));
            }
            return;
        }
        let innovative = matches!(added, Added::Innovative { .. });
        if credit.is_some() && added == Added::Stale {
            self.repeat_covering(cx, fi, first + sym.natives.len() as u64);
        }
        if credit.is_some() && (innovative || (self.p.keep_credit && added != Added::Stale)) {
            // Alg. 4 lines 6-8: the credit makes combinations at the node's rate.
            self.update_rate(cx, fi);
            let f = &mut self.flows[fi];
            f.num += f.rate;
        }
    }

    /// The destination's acknowledgement `ack` passes this node on its way to the
    /// source: a relay whose whole buffer it shows seen flushes it and drops its credits
    /// (`flush_on_ack`; Alg. 4 slides the buffer only with newer windows). The source
    /// drops seen packets from its window on the same acknowledgement (Alg. 3): the
    /// destination decodes them with the later packets and needs nothing more of them.
    fn ack_passes(&mut self, ack: &TcpNcAck) {
        if !self.p.flush_on_ack {
            return;
        }
        let Some(fi) = self.find(ack.flow) else {
            return;
        };
        let f = &mut self.flows[fi];
        if let Role::Relay(relay) = &mut f.role {
            if relay.flush(ack.first_unseen) {
                f.num = 0.0;
                f.covering = Some(ack.clone());
                self.counters.flushes += 1;
            }
        }
    }

    /// A credited combination reached a flushed relay from a source that has not yet
    /// heard the acknowledgement that covers it (that one was lost on its way): the
    /// relay repeats it, as the destination repeats its acknowledgement to a source
    /// that is behind (Alg. 5 and the rule above); else the source would wait for a
    /// timeout, its combinations dying as stale here.
    fn repeat_covering(&mut self, cx: &mut SchemeCx, fi: usize, window_end: u64) {
        let f = &self.flows[fi];
        let Some(ack) = f.covering.as_ref().filter(|a| window_end <= a.first_unseen) else {
            return;
        };
        // From the destination: the source takes it as the destination's own.
        let msg = ControlMsg::packet(Layer::Hop, ack.clone(), f.flow, f.dst, f.src);
        self.counters.acks_repeated += 1;
        cx.originate(msg);
    }

    /// A frame with `header` carrying `pkt` to `nh`.
    fn frame(pkt: Packet, nh: NodeId, header: CompHeader) -> OutFrame {
        let mut body = Body::native(pkt, nh);
        let hb = header.bytes();
        body.msdu_bytes += hb;
        body.header_bytes = hb;
        body.header = Some(Arc::new(header));
        OutFrame { mac_rx: nh, body }
    }
}

impl CodingScheme for Comp {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        let own = pkt.src == cx.node;
        match &pkt.l4 {
            L4::Tcp(h) if own && h.len > 0 => return self.source_send(cx, pkt),
            L4::Tcp(h) if own => {
                if let Some(fi) = self.find(pkt.flow) {
                    if let Role::Sink(sink) = &mut self.flows[fi].role {
                        // The TCP receiver's own ACK: the layer acknowledges instead;
                        // its window is kept.
                        sink.wnd = h.wnd;
                        self.counters.tcp_acks_suppressed += 1;
                        cx.consume(1);
                        return;
                    }
                }
            }
            L4::Control(msg) if !own => {
                if let Some(ack) = msg.fields_as::<TcpNcAck>() {
                    self.ack_passes(ack);
                }
            }
            _ => {}
        }
        let held = self.held();
        if !self.plain.offer(cx, pkt, hops[0].node, held) {
            self.counters.queue_drops += 1;
        }
    }

    fn poll_at(&self) -> PollAt {
        if !self.plain.is_empty() {
            return PollAt::Now;
        }
        match self.choose(None) {
            Choice::Send { .. } => PollAt::Now,
            Choice::Hold(t) => PollAt::At(t),
            Choice::Idle => PollAt::Idle,
        }
    }

    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        if let Some((pkt, nh)) = self.plain.pop() {
            let header = self.header(pkt.flow, None);
            return Some(Self::frame(pkt, nh, header));
        }
        // A flow whose coding buffer turned out empty drops its credits: choose again.
        let (f, c, pkt) = loop {
            let Choice::Send { f, c } = self.choose(Some(cx.now)) else {
                return None;
            };
            if let Some(p) = self.make(cx, f) {
                break (f, c, p);
            }
        };
        let fs = &mut self.flows[f];
        let nh = fs.cands.get(c).node;
        fs.cands.chose(c);
        // Alg. 2 lines 4-6.
        let id = fs.next_id;
        fs.next_id += 1;
        fs.est.sent(nh, id);
        let header = self.header(pkt.flow, Some(id));
        Some(Self::frame(pkt, nh, header))
    }

    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        let header = rx.body.header_as::<CompHeader>();
        if let Some(h) = header {
            self.read_header(cx, rx.tx, h);
        }
        for p in &rx.body.packets {
            let to_me = rx.addressed != Addressed::Overheard;
            if combination_of(p).is_some() {
                if to_me {
                    cx.absorb(1);
                    cx.consume(1);
                    let id = header.and_then(|h| h.id).unwrap_or(0);
                    self.receive_combination(cx, p, rx.tx, Some(id));
                } else if self.p.overhear
                    && (p.dst == cx.node
                        || cx
                            .routes
                            .next_hops(rx.tx, p.dst, p.flow)
                            .iter()
                            .any(|h| h.node == cx.node))
                {
                    // A downstream neighbour of the sender overhears it.
                    self.receive_combination(cx, p, rx.tx, None);
                }
            } else if to_me {
                cx.deliver(p.clone());
            }
        }
    }

    fn handle_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        if outcome == TxOutcome::Delivered {
            if let Some(p) = frame.body.packets.first() {
                if combination_of(p).is_some() {
                    self.handed(frame.mac_rx, p.flow, cx.now);
                }
            }
        }
        cx.settle(frame, outcome);
    }

    fn handle_control(&mut self, cx: &mut SchemeCx, from: NodeId, msg: &ControlMsg) {
        let Some(ack) = msg.fields_as::<TcpNcAck>() else {
            return;
        };
        let Some(fi) = self.find(ack.flow) else {
            return;
        };
        let f = &mut self.flows[fi];
        let Role::Source(src) = &mut f.role else {
            return;
        };
        let moved = src.ack(ack.first_unseen);
        if src.is_empty() {
            // Nothing left to combine: the credits held are void.
            f.num = f.num.fract();
        } else if self.p.blocked_repair && moved.is_some() && src.blocked(ack.wnd) {
            // TCP cannot send until the destination decodes: the acknowledgement is a
            // credit (TCP/NC's repair).
            f.num += f.rate;
            self.counters.repairs += 1;
        }
        match moved {
            Some(seq) => {
                self.counters.acks_up += 1;
                // A plain TCP ACK for the sender above (as TCP/NC's source).
                cx.up(ack.tcp_ack(seq, from, cx.node, cx.now));
            }
            None => self.counters.acks_absorbed += 1,
        }
    }

    fn occupancy(&self) -> Occupancy {
        let held = self.held();
        Occupancy {
            queued: held + self.flows.iter().map(FlowState::owed).sum::<usize>(),
            held,
        }
    }

    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        let mut c = self.counters;
        for f in &self.flows {
            if matches!(f.role, Role::Sink(_)) {
                continue;
            }
            c.loss_permille = c.loss_permille.max((f.loss * 1000.0).round() as u64);
            c.rate_milli = c.rate_milli.max((f.rate * 1000.0).round() as u64);
        }
        c.report(out);
    }
}

#[cfg(test)]
mod tests;
