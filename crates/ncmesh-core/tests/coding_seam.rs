//! The coding seam, exercised by small schemes installed with `Sim::with_coding`: a
//! scheme that holds packets until a deadline (the MAC contends only when a frame is
//! due), one that originates its own control messages, one that spreads a flow over its
//! reinforced paths, and an end-to-end coder (a GF(2) code over pairs of TCP segments)
//! composed with COPE below it, with payload bytes decoded bit for bit.

use ncmesh_core::coding::passthrough::PassThrough;
use ncmesh_core::coding::registry::make_scheme;
use ncmesh_core::coding::timers::Timers;
use ncmesh_core::coding::{
    Addressed, Body, CodedSymbol, CodingScheme, Coeffs, ControlMsg, FlowCoder, FlowCx, Layer,
    Occupancy, OutFrame, PollAt, Rx, SchemeCx, Span, TxOutcome, WireHeader,
};
use ncmesh_core::engine::{Time, MILLIS};
use ncmesh_core::metrics::RunResult;
use ncmesh_core::net::{DropReason, NextHop, NodeId, Packet, L4};
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, BuildOptions};
use ncmesh_core::sim::trace::TraceKind;
use ncmesh_core::sim::Sim;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

fn chain(hops: u64, secs: f64) -> Scenario {
    let mut s = build("chain", &BuildOptions::new().with("hops", hops)).unwrap();
    s.simulation.duration_s = secs;
    s.simulation.measure_start_s = 1.0;
    s
}

fn udp_cbr(s: &mut Scenario, kbps: f64) {
    s.flows[0].transport = Transport::Udp;
    s.flows[0].app = AppKind::Cbr;
    s.flows[0].rate_kbps = Some(kbps);
}

fn run_with(
    s: &Scenario,
    trace: bool,
    layers: impl FnMut(NodeId) -> (Box<dyn CodingScheme>, Option<Box<dyn FlowCoder>>),
) -> (RunResult, Sim) {
    let mut sim = Sim::with_coding(s, layers).unwrap();
    if trace {
        sim.enable_trace();
    }
    sim.run_to_end();
    (sim.results(), sim)
}

fn counter(r: &RunResult, node: usize, name: &str) -> u64 {
    r.nodes[node].counter(name)
}

// ------------------------------------------------------------------ holding

/// A FIFO that sends each packet no earlier than `hold` after it was queued.
struct Holder {
    hold: Time,
    queue: VecDeque<(Packet, NodeId, Time)>,
    empty_polls: u64,
}

impl CodingScheme for Holder {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        if self.queue.len() >= cx.queue_capacity {
            return cx.drop_packet(pkt, DropReason::QueueFull);
        }
        self.queue
            .push_back((pkt, hops[0].node, cx.now + self.hold));
    }
    fn poll_at(&self) -> PollAt {
        match self.queue.front() {
            None => PollAt::Idle,
            Some(&(_, _, due)) => PollAt::At(due),
        }
    }
    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        if self.queue.front().is_none_or(|e| e.2 > cx.now) {
            self.empty_polls += 1;
            return None;
        }
        let (p, nh, _) = self.queue.pop_front()?;
        Some(OutFrame {
            mac_rx: nh,
            body: Body::native(p, nh),
        })
    }
    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        if rx.addressed == Addressed::ToMe {
            cx.deliver(rx.body.packets[0].clone());
        }
    }
    fn handle_outcome(&mut self, cx: &mut SchemeCx, f: OutFrame, o: TxOutcome) {
        match o {
            TxOutcome::Delivered => cx.handed_over(1),
            TxOutcome::Failed => {
                for p in f.body.packets {
                    cx.drop_packet(p, DropReason::RetryLimit)
                }
            }
        }
    }
    fn occupancy(&self) -> Occupancy {
        Occupancy {
            queued: self.queue.len(),
            held: self.queue.len(),
        }
    }
    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.push(("holder_empty_polls", self.empty_polls));
    }
}

#[test]
fn a_held_packet_leaves_at_its_deadline_and_the_mac_never_contends_for_nothing() {
    let mut s = chain(2, 10.0);
    udp_cbr(&mut s, 200.0);
    let hold = 20 * MILLIS;
    let holder = |_| -> (Box<dyn CodingScheme>, Option<Box<dyn FlowCoder>>) {
        let h = Holder {
            hold,
            queue: VecDeque::new(),
            empty_polls: 0,
        };
        (Box::new(h), None)
    };
    let (r, sim) = run_with(&s, true, holder);
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    assert!(
        r.flows[0].goodput_kbps > 150.0,
        "{}",
        r.flows[0].goodput_kbps
    );
    let mut first_tx = HashMap::new();
    for t in sim.trace() {
        if t.what == TraceKind::TxStart && t.node == 0 {
            if let Some(b) = t.frame.as_ref().and_then(|f| f.data.as_ref()) {
                first_tx
                    .entry(b.packets[0].uid)
                    .or_insert((t.t, b.packets[0].created));
            }
        }
    }
    assert!(first_tx.len() > 100);
    let mut earliest = Time::MAX;
    for &(tx, created) in first_tx.values() {
        assert!(
            tx >= created + hold,
            "sent {} ns after creation",
            tx - created
        );
        earliest = earliest.min(tx - created);
    }
    // On an idle medium a due packet goes out after DIFS (50 us) and its backoff.
    assert!(earliest < hold + MILLIS, "earliest {earliest} ns");
    for n in 0..3 {
        assert_eq!(counter(&r, n, "holder_empty_polls"), 0, "node {n}");
    }
}

// ------------------------------------------------------------------ originating

/// Fields of an end-to-end receipt: how many packets the sink has seen.
#[derive(Debug)]
struct Receipt {
    seen: u64,
}

impl WireHeader for Receipt {
    fn bytes(&self) -> u32 {
        8
    }
    fn pcap_len(&self) -> usize {
        8
    }
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.seen.to_be_bytes());
    }
}

/// A plain FIFO whose sink sends the source a receipt every `every` packets.
struct Acker {
    fifo: PassThrough,
    every: u64,
    seen: u64,
    sent: u64,
    heard: u64,
    last_heard: u64,
}

impl CodingScheme for Acker {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        self.fifo.enqueue(cx, pkt, hops)
    }
    fn poll_at(&self) -> PollAt {
        self.fifo.poll_at()
    }
    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame> {
        self.fifo.poll_transmit(cx)
    }
    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        let p = &rx.body.packets[0];
        if rx.addressed == Addressed::ToMe && p.dst == cx.node && matches!(p.l4, L4::Udp(_)) {
            self.seen += 1;
            if self.seen.is_multiple_of(self.every) {
                self.sent += 1;
                let msg = ControlMsg {
                    layer: Layer::Hop,
                    fields: Arc::new(Receipt { seen: self.seen }),
                };
                cx.originate(Packet {
                    uid: 0,
                    flow: p.flow,
                    src: cx.node,
                    dst: p.src,
                    ttl: 0,
                    ip_bytes: 20 + 8,
                    created: 0,
                    l4: L4::Control(msg),
                    payload: None,
                });
            }
        }
        self.fifo.handle_rx(cx, rx)
    }
    fn handle_outcome(&mut self, cx: &mut SchemeCx, f: OutFrame, o: TxOutcome) {
        self.fifo.handle_outcome(cx, f, o)
    }
    fn handle_control(&mut self, _cx: &mut SchemeCx, _from: NodeId, msg: &ControlMsg) {
        let r = msg.fields_as::<Receipt>().expect("a receipt");
        assert!(
            r.seen > self.last_heard,
            "receipts arrive in order on a chain"
        );
        self.last_heard = r.seen;
        self.heard += 1;
    }
    fn occupancy(&self) -> Occupancy {
        self.fifo.occupancy()
    }
    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.push(("receipts_sent", self.sent));
        out.push(("receipts_heard", self.heard));
    }
}

#[test]
fn a_scheme_originates_messages_that_route_like_packets() {
    let mut s = chain(3, 10.0);
    udp_cbr(&mut s, 300.0);
    let acker = |_| -> (Box<dyn CodingScheme>, Option<Box<dyn FlowCoder>>) {
        let a = Acker {
            fifo: PassThrough::new(50),
            every: 10,
            seen: 0,
            sent: 0,
            heard: 0,
            last_heard: 0,
        };
        (Box::new(a), None)
    };
    let (r, sim) = run_with(&s, true, acker);
    assert!(r.conservation.balanced, "{:?}", r.conservation);
    let sent = counter(&r, 3, "receipts_sent");
    assert!(sent > 20, "{sent}");
    // the last receipt may still be on its way at the end
    let heard = counter(&r, 0, "receipts_heard");
    assert!(heard + 1 >= sent && heard <= sent, "{heard} of {sent}");
    // every relay forwarded them: control packets counted in the ledger, on the air
    let ctl_frames = sim
        .trace()
        .iter()
        .filter(|t| t.what == TraceKind::TxStart && t.node == 1)
        .filter_map(|t| t.frame.as_ref()?.data.as_ref())
        .filter(|b| matches!(b.packets[0].l4, L4::Control(_)))
        .count() as u64;
    assert!(ctl_frames >= heard, "{ctl_frames}");
    // and they appear in packet captures as IP protocol 254
    let dir = std::env::temp_dir().join(format!("ncmesh-seam-{}", std::process::id()));
    ncmesh_core::sim::pcap::write_pcaps(sim.trace(), 4, &dir).unwrap();
    let bytes = std::fs::read(dir.join("node-1.pcap")).unwrap();
    let ipv4_proto_254 = |w: &[u8]| w[0] == 0x45 && w[1] == 0 && w[9] == 254;
    assert!(
        bytes.windows(20).any(ipv4_proto_254),
        "an IPv4 header, protocol 254"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ several next hops

/// A FIFO that sends the packets of a flow to its candidate next hops in turn.
struct Spreader {
    queue: VecDeque<(Packet, NodeId)>,
    turn: usize,
    most_candidates: u64,
}

impl CodingScheme for Spreader {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        self.most_candidates = self.most_candidates.max(hops.len() as u64);
        assert!(
            hops.windows(2).all(|w| w[0].cost <= w[1].cost),
            "cheapest first"
        );
        if self.queue.len() >= cx.queue_capacity {
            return cx.drop_packet(pkt, DropReason::QueueFull);
        }
        self.turn += 1;
        let h = hops[self.turn % hops.len()].node;
        self.queue.push_back((pkt, h));
    }
    fn poll_at(&self) -> PollAt {
        if self.queue.is_empty() {
            PollAt::Idle
        } else {
            PollAt::Now
        }
    }
    fn poll_transmit(&mut self, _cx: &mut SchemeCx) -> Option<OutFrame> {
        let (p, h) = self.queue.pop_front()?;
        Some(OutFrame {
            mac_rx: h,
            body: Body::native(p, h),
        })
    }
    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        if rx.addressed == Addressed::ToMe {
            cx.deliver(rx.body.packets[0].clone());
        }
    }
    fn handle_outcome(&mut self, cx: &mut SchemeCx, f: OutFrame, o: TxOutcome) {
        match o {
            TxOutcome::Delivered => cx.handed_over(1),
            TxOutcome::Failed => {
                for p in f.body.packets {
                    cx.drop_packet(p, DropReason::RetryLimit)
                }
            }
        }
    }
    fn occupancy(&self) -> Occupancy {
        Occupancy {
            queued: self.queue.len(),
            held: self.queue.len(),
        }
    }
    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.push(("most_candidates", self.most_candidates));
    }
}

fn diamond() -> Scenario {
    let mut s = chain(1, 10.0);
    s.nodes = [(0.0, 0.0), (180.0, 120.0), (180.0, -120.0), (360.0, 0.0)]
        .iter()
        .map(|&(x, y)| NodeCfg {
            x,
            y,
            waypoints: vec![],
        })
        .collect();
    s.flows[0].src = 0;
    s.flows[0].dst = 3;
    udp_cbr(&mut s, 300.0);
    s
}

#[test]
fn a_scheme_picks_among_the_reinforced_paths() {
    let mut s = diamond();
    s.routing.paths = 2;
    let spread = |_| -> (Box<dyn CodingScheme>, Option<Box<dyn FlowCoder>>) {
        let sp = Spreader {
            queue: VecDeque::new(),
            turn: 0,
            most_candidates: 0,
        };
        (Box::new(sp), None)
    };
    let (r, sim) = run_with(&s, true, spread);
    assert!(r.conservation.balanced);
    assert_eq!(counter(&r, 0, "most_candidates"), 2, "the source has two");
    assert_eq!(counter(&r, 1, "most_candidates"), 1, "a relay has one");
    let to = |h: u32| {
        sim.trace()
            .iter()
            .filter(|t| t.what == TraceKind::TxStart && t.node == 0 && t.rx == h)
            .filter(|t| t.frame.is_some())
            .count()
    };
    let (a, b) = (to(1), to(2));
    assert!(a > 100 && b > 100 && a.abs_diff(b) <= 2, "{a} / {b}");
    assert!(r.flows[0].goodput_kbps > 250.0);
    // with one path, every packet takes the routed next hop
    s.routing.paths = 1;
    let (r1, _) = run_with(&s, false, spread);
    assert_eq!(counter(&r1, 0, "most_candidates"), 1);
}

// ------------------------------------------------------------------ an end-to-end coder

/// A received combination: its coefficient mask over the pair, and its bytes.
type Row = (u8, Option<Box<[u8]>>);

/// GF(2) code over pairs of TCP data segments: the source sends p1, p2 and p1 + p2 (any
/// two decode both); a lone segment waits at most `wait` for a partner, then goes alone.
/// The sink decodes and hands the segments up with the bytes it decoded.
struct Gf2Pairs {
    wait: Time,
    /// Source: a segment waiting for its partner.
    lone: Option<Packet>,
    timers: Timers<()>,
    next_gen: u32,
    /// Sink: per generation, the combinations received (coefficients, bytes), and done.
    rows: HashMap<u32, (Vec<Row>, bool)>,
    decoded: u64,
}

impl Gf2Pairs {
    fn new(wait: Time) -> Gf2Pairs {
        Gf2Pairs {
            wait,
            lone: None,
            timers: Timers::default(),
            next_gen: 0,
            rows: HashMap::new(),
            decoded: 0,
        }
    }

    fn symbol(natives: &Arc<[Packet]>, id: u32, mask: u8) -> Packet {
        let c: Vec<u8> = (0..natives.len()).map(|i| (mask >> i) & 1).collect();
        let parts: Vec<&Packet> = natives
            .iter()
            .enumerate()
            .filter(|(i, _)| (mask >> i) & 1 == 1)
            .map(|(_, p)| p)
            .collect();
        let payload = parts[0].payload.as_ref().map(|_| {
            let len = parts
                .iter()
                .map(|p| p.payload.as_ref().unwrap().len())
                .max()
                .unwrap();
            let mut out = vec![0u8; len];
            for p in &parts {
                for (o, b) in out.iter_mut().zip(p.payload.as_ref().unwrap().iter()) {
                    *o ^= b;
                }
            }
            out.into_boxed_slice()
        });
        let first = &natives[0];
        Packet {
            uid: 0,
            flow: first.flow,
            src: first.src,
            dst: first.dst,
            ttl: 0,
            ip_bytes: natives.iter().map(|p| p.ip_bytes).max().unwrap() + 16 + c.len() as u32,
            created: 0,
            l4: L4::Coded(Arc::new(CodedSymbol {
                span: Span::Generation {
                    id,
                    size: natives.len() as u16,
                },
                coeffs: Coeffs::Gf256(c.into_boxed_slice()),
                payload,
                natives: natives.clone(),
                header: None,
            })),
            payload: None,
        }
    }

    fn send_generation(&mut self, cx: &mut FlowCx, natives: Vec<Packet>) {
        let id = self.next_gen;
        self.next_gen += 1;
        let natives: Arc<[Packet]> = natives.into();
        let masks: &[u8] = if natives.len() == 2 { &[1, 2, 3] } else { &[1] };
        for &m in masks {
            cx.send(Self::symbol(&natives, id, m));
        }
    }
}

impl FlowCoder for Gf2Pairs {
    fn handle_send(&mut self, cx: &mut FlowCx, p: Packet) {
        if p.tcp().is_none_or(|h| h.len == 0) {
            return cx.pass(p); // acknowledgements go as they are
        }
        match self.lone.take() {
            None => {
                self.lone = Some(p); // held until its partner comes or the wait ends
                let at = cx.now + self.wait;
                self.timers.set(cx, at, ());
            }
            Some(first) => {
                self.timers.cancel(());
                cx.consume(first.clone());
                cx.consume(p.clone());
                self.send_generation(cx, vec![first, p]);
            }
        }
    }
    fn handle_forward(&mut self, cx: &mut FlowCx, p: Packet) {
        cx.pass(p)
    }
    fn handle_deliver(&mut self, cx: &mut FlowCx, p: Packet) {
        let L4::Coded(sym) = &p.l4 else {
            return cx.pass(p);
        };
        let Span::Generation { id, size } = sym.span else {
            unreachable!()
        };
        let Coeffs::Gf256(c) = &sym.coeffs else {
            unreachable!()
        };
        let mask = c.iter().enumerate().fold(0u8, |m, (i, &x)| m | (x << i));
        let natives = sym.natives.clone();
        let bytes = sym.payload.clone();
        cx.consume(p);
        let (rows, done) = self.rows.entry(id).or_default();
        if *done || rows.iter().any(|r| r.0 == mask) {
            return;
        }
        rows.push((mask, bytes));
        let full = if size == 1 { 1 } else { 3 };
        if rows.len() < size as usize {
            return;
        }
        // Solve over GF(2): each native's bytes as a sum of the received rows.
        *done = true;
        self.decoded += 1;
        for (i, n) in natives.iter().enumerate() {
            let want = 1u8 << i;
            let combo: Vec<&Row> = match rows.iter().find(|r| r.0 == want) {
                Some(r) => vec![r],
                None => {
                    // want = full ^ other: the sum row plus the other single row
                    let other = rows.iter().find(|r| r.0 == (full ^ want)).unwrap();
                    let sum = rows.iter().find(|r| r.0 == full).unwrap();
                    vec![other, sum]
                }
            };
            let mut out = n.clone();
            if let Some(own) = &n.payload {
                let mut b = vec![0u8; own.len()];
                for (_, bytes) in &combo {
                    for (o, x) in b.iter_mut().zip(bytes.as_ref().unwrap().iter()) {
                        *o ^= x;
                    }
                }
                out.payload = Some(b.into_boxed_slice());
            }
            cx.up(out);
        }
    }
    fn handle_timeout(&mut self, cx: &mut FlowCx) {
        if self.timers.pop_due(cx.now).is_some() {
            if let Some(p) = self.lone.take() {
                cx.consume(p.clone());
                self.send_generation(cx, vec![p]);
            }
        }
    }
    fn held(&self) -> usize {
        usize::from(self.lone.is_some())
    }
    fn counters(&self, out: &mut Vec<(&'static str, u64)>) {
        out.push(("gf2_generations_decoded", self.decoded));
    }
}

#[test]
fn an_end_to_end_coder_composes_with_cope_and_decodes_real_bytes() {
    let mut s = chain(3, 20.0);
    s.simulation.payload_bytes = true;
    s.tcp.delayed_ack = false;
    s.loss.push(LossCfg {
        rate: 0.1,
        frames: LossFrames::All,
        ..LossCfg::default()
    });
    let mut cope = s.clone();
    cope.scheme.name = "cope".into();
    let layers = |_| -> (Box<dyn CodingScheme>, Option<Box<dyn FlowCoder>>) {
        (
            make_scheme(&cope).unwrap(),
            Some(Box::new(Gf2Pairs::new(20 * MILLIS))),
        )
    };
    let (r, _) = run_with(&s, false, layers);
    let c = &r.conservation;
    assert!(c.balanced, "{c:?}");
    let f = &r.flows[0];
    assert!(f.goodput_kbps > 100.0, "{}", f.goodput_kbps);
    assert_eq!(
        f.payload_errors, 0,
        "every decoded segment has its original bytes"
    );
    let decoded = counter(&r, 3, "gf2_generations_decoded");
    assert!(decoded > 100, "{decoded}");
    let coded: u64 = (1..3).map(|n| counter(&r, n, "coded_tx")).sum();
    assert!(
        coded > 0,
        "COPE codes the coded DATA with the ACKs at the relays"
    );
    // deterministic
    let (r2, _) = run_with(&s, false, layers);
    assert_eq!(r2.flows, r.flows);
    assert_eq!(r2.events, r.events);
}

#[test]
fn a_broken_decoder_is_caught_by_the_payload_check() {
    // The same coder with the sum row's bytes corrupted: TCP's payload check must see it,
    // so the test above cannot pass by accident.
    struct Corrupt(Gf2Pairs);
    impl FlowCoder for Corrupt {
        fn handle_send(&mut self, cx: &mut FlowCx, mut p: Packet) {
            if let Some(b) = p.payload.as_mut() {
                if self.0.lone.is_some() {
                    b[0] ^= 0xff; // the second segment's bytes go in wrong
                }
            }
            self.0.handle_send(cx, p)
        }
        fn handle_forward(&mut self, cx: &mut FlowCx, p: Packet) {
            self.0.handle_forward(cx, p)
        }
        fn handle_deliver(&mut self, cx: &mut FlowCx, p: Packet) {
            self.0.handle_deliver(cx, p)
        }
        fn handle_timeout(&mut self, cx: &mut FlowCx) {
            self.0.handle_timeout(cx)
        }
        fn held(&self) -> usize {
            self.0.held()
        }
    }
    let mut s = chain(2, 5.0);
    s.simulation.payload_bytes = true;
    let (r, _) = run_with(&s, false, |_| {
        (
            Box::new(PassThrough::new(50)) as Box<dyn CodingScheme>,
            Some(Box::new(Corrupt(Gf2Pairs::new(20 * MILLIS))) as Box<dyn FlowCoder>),
        )
    });
    assert!(r.flows[0].payload_errors > 0);
}
