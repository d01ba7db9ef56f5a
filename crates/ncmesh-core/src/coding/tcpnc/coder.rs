//! TCP/NC as a node's end-to-end coder: the source of the flows this node's TCP sends,
//! the destination of those it receives, and a relay (that only forwards) for the rest.

use super::config::TcpNcParams;
use super::header::{TcpNcAck, TcpNcHeader};
use super::sink::Sink;
use super::source::Source;
use super::TcpNcCounters;
use crate::coding::keyed::value_or_insert_with;
use crate::coding::loss_estimate::{LossEstimate, LossPrior};
use crate::coding::rlnc::Added;
use crate::coding::rlnc::FieldCoeffs;
use crate::coding::{CodedSymbol, ControlMsg, FlowCoder, FlowCx, Layer, Span};
use crate::net::{NodeId, Packet, L4};

/// A TCP/NC combination's parts: the symbol, its window's first packet and its header
/// (None: not one of this family's combinations).
fn combination_of(p: &Packet) -> Option<(&CodedSymbol, u64, &TcpNcHeader)> {
    let L4::Coded(s) = &p.l4 else { return None };
    let Span::Window { first, .. } = s.span else {
        return None;
    };
    Some((s, first, s.header_as::<TcpNcHeader>()?))
}

/// The entry of `flow` in a small keyed list (a node has a handful of flows).
fn find<T>(v: &mut [(u32, T)], flow: u32) -> Option<&mut T> {
    v.iter_mut().find(|e| e.0 == flow).map(|e| &mut e.1)
}

/// TCP/NC at one node, over the field `F`.
pub struct TcpNcCoder<F: FieldCoeffs> {
    params: TcpNcParams,
    sources: Vec<(u32, Source<F>)>,
    sinks: Vec<(u32, Sink<F>)>,
    counters: TcpNcCounters,
}

impl<F: FieldCoeffs> TcpNcCoder<F> {
    /// A node's coder.
    pub fn new(params: TcpNcParams) -> TcpNcCoder<F> {
        TcpNcCoder {
            params,
            sources: Vec::new(),
            sinks: Vec::new(),
            counters: TcpNcCounters::default(),
        }
    }

    fn sink(&mut self, flow: u32) -> &mut Sink<F> {
        let rcv_window = self.params.rcv_window;
        value_or_insert_with(&mut self.sinks, flow, || Sink::new(rcv_window))
    }

    /// A data segment from this node's TCP: into its flow's coding buffer.
    fn source_send(&mut self, cx: &mut FlowCx, p: Packet) {
        let (flow, dst) = (p.flow, p.dst);
        let params = &self.params;
        if find(&mut self.sources, flow).is_none() {
            let mut est = params
                .adaptive
                .then(|| LossEstimate::new(params.loss_alpha));
            let mut r = params.redundancy;
            let prior = (params.prior == LossPrior::Routing)
                .then(|| cx.route.path_delivery(dst, flow))
                .flatten();
            if let (Some(e), Some(d)) = (est.as_mut(), prior) {
                // Before the first report: the routed path's loss as the routing
                // estimates its links (Gheorghiu et al. §III give R no start).
                e.start_from(dst, 1.0 - d);
                r = params.redundancy_for(1.0 - d);
            }
            let src = Source::new(cx.node, dst, r, est);
            self.sources.push((flow, src));
        }
        let src = find(&mut self.sources, flow).expect("added above");
        let room = params.room(cx.room);
        let FlowCx { rng, out, .. } = cx;
        let pushed = src.push(p, room, rng, &mut |c| out.send.push(c));
        // The native is taken for good (FlowCx::consume): the combinations carry it.
        out.consumed += 1;
        self.counters.tcp_packets += 1;
        self.counters.tcp_retransmissions += u64::from(pushed.retransmission);
        self.counters.source_coded += pushed.sent;
        self.counters.held_back += u64::from(src.owed() > 0);
    }

    /// A combination for this node: decode, hand up, acknowledge the arrival.
    fn sink_receive(&mut self, cx: &mut FlowCx, p: Packet) {
        let (sym, first, h) = combination_of(&p).expect("checked");
        let (flow, src, id, adaptive) = (p.flow, p.src, h.id, h.with_id);
        let sink = self.sink(flow);
        sink.counts.received(src, id);
        let mut decoded = 0;
        let added = match F::view(&sym.coeffs) {
            Some(coeffs) => sink.receive(sym, first, coeffs, &mut |n| {
                decoded += 1;
                cx.up(n)
            }),
            // Another field's combination: a scenario has one field, so none arrives;
            // unusable, it is acknowledged like a stale one.
            None => Added::Stale,
        };
        let ack = TcpNcAck {
            flow,
            first_unseen: sink.first_unseen(),
            wnd: sink.window(),
            report: if adaptive { sink.report(src) } else { None },
        };
        cx.consume(p);
        self.counters.decoded += decoded;
        match added {
            Added::Innovative { .. } => self.counters.innovative += 1,
            Added::NotInnovative => self.counters.not_innovative += 1,
            Added::Stale => self.counters.stale += 1,
        }
        // Sundararajan et al. §V-B: every arrival is acknowledged with the first unseen
        // packet, so each degree of freedom is; a non-innovative arrival repeats the last
        // acknowledgement (the source absorbs it), which is what tells a source whose
        // acknowledgement of the last packets was lost that they arrived.
        self.counters.acks_sent += 1;
        let node = cx.node;
        cx.send(ControlMsg::packet(Layer::Flow, ack, flow, node, src));
    }
}

impl<F: FieldCoeffs> FlowCoder for TcpNcCoder<F> {
    fn handle_send(&mut self, cx: &mut FlowCx, p: Packet) {
        match &p.l4 {
            L4::Tcp(h) if h.len > 0 => self.source_send(cx, p),
            L4::Tcp(h) => {
                // The TCP receiver's own acknowledgement: the coding layer acknowledges
                // instead (one stream of ACKs for the sender); its window is kept.
                let wnd = h.wnd;
                self.sink(p.flow).wnd = wnd;
                self.counters.tcp_acks_suppressed += 1;
                cx.consume(p);
            }
            _ => cx.pass(p),
        }
    }

    fn handle_forward(&mut self, cx: &mut FlowCx, p: Packet) {
        if combination_of(&p).is_some() {
            self.counters.forwarded += 1;
        }
        cx.pass(p);
    }

    fn handle_deliver(&mut self, cx: &mut FlowCx, p: Packet) {
        if combination_of(&p).is_some() {
            self.sink_receive(cx, p);
        } else {
            cx.pass(p);
        }
    }

    fn handle_control(&mut self, cx: &mut FlowCx, from: NodeId, msg: &ControlMsg) {
        let Some(ack) = msg.fields_as::<TcpNcAck>() else {
            return;
        };
        let params = &self.params;
        let Some(src) = find(&mut self.sources, ack.flow) else {
            return;
        };
        if let (Some(est), Some(r)) = (src.estimate.as_mut(), ack.report) {
            if est.report(from, r.last_id, r.received).is_some() {
                let loss = est.loss_to(from).expect("a sample was taken");
                src.redundancy = params.redundancy_for(loss);
            }
        }
        let moved = src.ack(ack.first_unseen);
        // Only on an acknowledgement that moves the window: the repeats that the
        // repair combinations themselves cause must not trigger more repairs.
        let repair = params.blocked_repair && moved.is_some() && src.repair_if_blocked(ack.wnd);
        // Combinations owed for want of room in the queue go now, as far as it has room
        // (the queue drains between acknowledgements), with a repair's.
        let room = params.room(cx.room);
        let FlowCx { rng, out, .. } = &mut *cx;
        let n = src.emit(room, rng, &mut |c| out.send.push(c));
        if repair {
            self.counters.repairs += n;
        }
        self.counters.source_coded += n;
        match moved {
            Some(seq) => {
                self.counters.acks_up += 1;
                // A plain TCP ACK for the sender above (Sundararajan et al. §V-A).
                cx.up(ack.tcp_ack(seq, from, cx.node, cx.now));
            }
            None => self.counters.acks_absorbed += 1,
        }
    }

    /// Alg. 1 counts what the source puts on the air (its own queue's drops are not
    /// path loss).
    fn handle_on_air(&mut self, p: &Packet) {
        let Some((_, _, h)) = combination_of(p) else {
            return;
        };
        if let Some(src) = find(&mut self.sources, p.flow) {
            if src.node == p.src {
                if let Some(est) = src.estimate.as_mut() {
                    est.sent(src.dst, h.id);
                }
            }
        }
    }

    fn wants_room(&self) -> bool {
        self.sources.iter().any(|(_, s)| s.owed() > 0)
    }

    /// Combinations owed for want of room go as the queue drains (`full_queue = "owe"`).
    fn handle_room(&mut self, cx: &mut FlowCx) {
        let mut room = self.params.room(cx.room);
        let FlowCx { rng, out, .. } = &mut *cx;
        for (_, src) in &mut self.sources {
            let n = src.emit(room, rng, &mut |c| out.send.push(c));
            room -= n as usize;
            self.counters.source_coded += n;
        }
    }

    fn held(&self) -> usize {
        // The coding buffer and the decoder keep copies; the packets were consumed.
        0
    }

    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        let mut c = self.counters;
        for (_, s) in &self.sources {
            if let Some(e) = &s.estimate {
                c.loss_updates += e.samples();
                let loss = e.loss_to(s.dst).unwrap_or(0.0);
                c.loss_permille = c.loss_permille.max((loss * 1000.0).round() as u64);
            }
            c.redundancy_milli = c
                .redundancy_milli
                .max((s.redundancy * 1000.0).round() as u64);
        }
        c.report(out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::TcpNcCfg;
    use super::super::source::tests::segment;
    use super::*;
    use crate::coding::rlnc::Gf256;
    use crate::coding::FlowOut;
    use crate::engine::{Rng, StreamPurpose};
    use crate::net::{RouteView, Routes};
    use crate::transport::tcp::TcpHeader;

    /// Calls `f` on `coder` at `node` and returns what it asked for.
    fn call(
        coder: &mut TcpNcCoder<Gf256>,
        node: NodeId,
        rng: &mut Rng,
        f: impl FnOnce(&mut TcpNcCoder<Gf256>, &mut FlowCx),
    ) -> FlowOut {
        let routes = Routes::new(vec![Vec::new(); 4], &[], 1);
        let mut out = FlowOut::default();
        let mut cx = FlowCx {
            now: 0,
            node,
            route: RouteView::of(&routes, None, node, 0),
            rng,
            room: usize::MAX,
            out: &mut out,
        };
        f(coder, &mut cx);
        out
    }

    #[test]
    fn the_initial_r_follows_the_routings_estimate_of_the_path() {
        // A roofnet-like pair over lossy links: before any report, R compensates the
        // routed path's loss as the routing estimates its links.
        let opts = crate::scenario::BuildOptions::new().with("pair", 3u64);
        let b = crate::coding::bench::Bench::new("roofnet-like", &opts);
        let flow = &crate::scenario::build("roofnet-like", &opts).unwrap().flows[0];
        let (src, dst) = (flow.src, flow.dst);
        let d = b.routes.path_delivery(src, dst, 0).unwrap();
        assert!(d < 1.0, "a lossy path");
        let mut rng = Rng::stream(3, 0, StreamPurpose::FlowCoding);
        for (prior, expect) in [
            (LossPrior::Routing, (1.1 / d).min(5.0)),
            (LossPrior::None, 1.25),
        ] {
            let params = TcpNcCfg {
                prior,
                ..TcpNcCfg::default()
            }
            .params(64_000);
            let mut coder = TcpNcCoder::<Gf256>::new(params);
            let mut out = FlowOut::default();
            let mut cx = FlowCx {
                now: 0,
                node: src,
                route: RouteView::of(&b.routes, None, src, 0),
                rng: &mut rng,
                room: usize::MAX,
                out: &mut out,
            };
            let p = Packet {
                src,
                dst,
                ..segment(0)
            };
            coder.handle_send(&mut cx, p);
            let r = coder.sources[0].1.redundancy;
            assert!(
                (r - expect).abs() < 1e-12,
                "{prior:?}: R {r}, expected {expect}"
            );
        }
    }

    #[test]
    fn tcp_hears_one_stream_of_acks_that_only_moves_forward() {
        let mut rng = Rng::stream(3, 0, StreamPurpose::FlowCoding);
        let params = TcpNcCfg {
            redundancy: 1.0,
            ..TcpNcCfg::default()
        }
        .params(64_000);
        let (mut src, mut dst) = (
            TcpNcCoder::<Gf256>::new(params.clone()),
            TcpNcCoder::<Gf256>::new(params),
        );
        // Two segments from TCP: consumed, one combination each.
        let mut combos = Vec::new();
        for i in 0..2 {
            let out = call(&mut src, 0, &mut rng, |c, cx| c.handle_send(cx, segment(i)));
            assert_eq!((out.consumed, out.pass.len()), (1, 0));
            combos.extend(out.send);
        }
        assert_eq!(combos.len(), 2);
        for c in &combos {
            src.handle_on_air(c);
        }
        // The first is lost; the second reaches the destination: packet 0 becomes seen
        // (not decoded), and the acknowledgement names packet 1, with Alg. 1's counts.
        let out = call(&mut dst, 3, &mut rng, |c, cx| {
            c.handle_deliver(cx, combos[1].clone())
        });
        assert!(out.up.is_empty(), "nothing decoded yet");
        let ack = out.send[0].clone();
        let L4::Control(msg) = &ack.l4 else {
            panic!("an acknowledgement")
        };
        let fields = msg.fields_as::<TcpNcAck>().unwrap();
        assert_eq!(fields.first_unseen, 1);
        assert_eq!(fields.wnd, 64_000 - 1000, "packet 0 seen, not decoded");
        let report = fields.report.unwrap();
        assert_eq!((report.last_id, report.received), (1, 1));
        assert_eq!(ack.ip_bytes, 20 + 20 + 8);
        // The destination's TCP receiver acknowledges on its own: stopped there.
        let own = Packet {
            l4: L4::Tcp(TcpHeader {
                ack: 1000,
                wnd: 64_000,
                ..TcpHeader::default()
            }),
            src: 3,
            dst: 0,
            ..segment(0)
        };
        let out = call(&mut dst, 3, &mut rng, |c, cx| c.handle_send(cx, own));
        assert_eq!((out.consumed, out.pass.len(), out.send.len()), (1, 0, 0));
        // At the source: a TCP ACK for byte 1000 goes up; Alg. 1 saw 1 of 2 arrive.
        let out = call(&mut src, 0, &mut rng, |c, cx| c.handle_control(cx, 3, msg));
        let up = out.up[0].tcp().copied().unwrap();
        assert_eq!((up.ack, up.wnd), (1000, 63_000));
        assert_eq!(src.sources[0].1.redundancy, 2.2, "1.1 / (1 - 0.5)");
        // The same acknowledgement again does not reach TCP (no duplicate ACK).
        let out = call(&mut src, 0, &mut rng, |c, cx| c.handle_control(cx, 3, msg));
        assert!(out.up.is_empty());
        let mut counters = Vec::new();
        src.counters(&mut counters);
        let get = |n: &str| counters.iter().find(|e| e.0 == n).unwrap().1;
        assert_eq!(get("tcpnc_acks_up"), 1);
        assert_eq!(get("tcpnc_acks_absorbed"), 1);
        assert_eq!(get("tcpnc_loss_permille"), 500);
    }
}
