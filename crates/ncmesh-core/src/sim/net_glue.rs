//! Network and transport glue: forwarding, TCP/UDP endpoints, applications, timers and
//! sampling.

use super::events::Ev;
use super::Sim;
use crate::app::{payload, payload_byte, Source};
use crate::net::{forward, DropReason, Forward, NodeId, Packet, IP_HEADER_BYTES, L4};
use crate::scenario::schema::Spread;
use crate::transport::tcp::TcpHeader;
use crate::transport::udp::{UdpHeader, UDP_HEADER_BYTES};

impl Sim {
    pub(super) fn drop_packet(&mut self, n: u32, why: DropReason) {
        let nd = &mut self.nodes[n as usize];
        count_drop(&mut nd.stats, &mut nd.ledger, why);
    }

    /// A packet the scheme of `n` hands to the network layer (counted as received):
    /// through the flow coder, if the node has one, unless it is a control message.
    pub(super) fn net_arrive(&mut self, n: u32, p: Packet) {
        if self.nodes[n as usize].flow.is_none() || matches!(p.l4, L4::Control(_)) {
            return self.net_route(n, p);
        }
        if p.dst == n {
            self.with_flow(n, |c, cx| c.handle_deliver(cx, p));
        } else {
            self.with_flow(n, |c, cx| c.handle_forward(cx, p));
        }
    }

    /// A packet created at `n` by its transport: through the flow coder, if any.
    fn net_originate(&mut self, n: u32, p: Packet) {
        self.nodes[n as usize].ledger.originated += 1;
        if self.nodes[n as usize].flow.is_some() {
            self.with_flow(n, |c, cx| c.handle_send(cx, p));
        } else {
            self.net_route(n, p);
        }
    }

    /// A packet a coding layer of `n` made: a fresh uid, this time, a full TTL.
    pub(super) fn coding_originate(&mut self, n: u32, mut p: Packet) {
        self.next_uid += 1;
        p.uid = self.next_uid;
        p.created = self.now;
        p.ttl = self.scenario.routing.ttl;
        self.nodes[n as usize].ledger.originated += 1;
        self.net_route(n, p);
    }

    /// Delivers `p` at `n`, or passes it to the coding layer towards its next hops, or
    /// drops it (net::forward).
    pub(super) fn net_route(&mut self, n: u32, mut p: Packet) {
        match forward(&mut p, n, &self.routes) {
            Forward::Deliver => {
                self.nodes[n as usize].ledger.delivered += 1;
                match &p.l4 {
                    L4::Control(msg) => self.coding_control(n, p.src, msg),
                    L4::Coded(_) => {
                        // Only a flow coder reads these; the registry keeps coded
                        // packets from nodes without one.
                        debug_assert!(false, "a coded packet reached the transport of {n}");
                    }
                    _ => self.transport_deliver(n, p),
                }
            }
            Forward::Drop(why) => self.drop_packet(n, why),
            Forward::Send(mut hops) => {
                if self.scenario.routing.spread == Spread::RoundRobin {
                    self.nodes[n as usize]
                        .turns
                        .rotate(p.flow, p.dst, &mut hops);
                }
                self.with_scheme(n, |s, cx| s.enqueue(cx, p, &hops));
                let q = self.nodes[n as usize].scheme.occupancy().queued as u64;
                let st = &mut self.nodes[n as usize].stats;
                st.queue_max = st.queue_max.max(q);
                self.mac_packet_ready(n);
            }
        }
    }

    fn new_packet(
        &mut self,
        flow: u32,
        src: NodeId,
        dst: NodeId,
        l4: L4,
        l4_bytes: u32,
        payload: Option<Box<[u8]>>,
    ) -> Packet {
        self.next_uid += 1;
        Packet {
            uid: self.next_uid,
            flow,
            src,
            dst,
            ttl: self.scenario.routing.ttl,
            ip_bytes: IP_HEADER_BYTES + l4_bytes,
            created: self.now,
            l4,
            payload,
        }
    }

    fn transport_deliver(&mut self, n: u32, p: Packet) {
        let fi = p.flow as usize;
        let now = self.now;
        let is_data = n == self.flows[fi].dst;
        match p.l4 {
            L4::Tcp(h) if is_data => {
                let flow = &mut self.flows[fi];
                // With payload bytes on, a data segment must bring all of its bytes, each
                // the one the source wrote (a decoder that loses or shortens them counts).
                let wrong = match &p.payload {
                    Some(b) => {
                        b.len() != h.len as usize
                            || b.iter()
                                .enumerate()
                                .any(|(i, &x)| x != payload_byte(p.flow, h.seq + i as u64))
                    }
                    None => self.scenario.simulation.payload_bytes && h.len > 0,
                };
                if wrong {
                    flow.payload_errors += 1;
                }
                let rx = flow.rx.as_mut().expect("tcp receiver");
                let ack = rx.on_segment(now, &h);
                let (m0, m1) = self.measure;
                flow.delay
                    .delivered(rx.delivered_bytes(), now, (m0..=m1).contains(&now));
                if let Some(a) = ack {
                    self.send_ack(p.flow, a);
                }
                self.arm_delack(p.flow);
            }
            L4::Tcp(h) => {
                self.flows[fi]
                    .tx
                    .as_mut()
                    .expect("tcp sender")
                    .on_ack(now, &h);
                self.tcp_pump(p.flow);
            }
            L4::Coded(_) | L4::Control(_) => unreachable!("not a transport packet"),
            L4::Udp(h) => {
                let flow = &mut self.flows[fi];
                if let Some(b) = &p.payload {
                    let off = h.seq * h.len as u64;
                    if b.iter()
                        .enumerate()
                        .any(|(i, &x)| x != payload_byte(p.flow, off + i as u64))
                    {
                        flow.payload_errors += 1;
                    }
                }
                flow.udp_rx_bytes += h.len as u64;
            }
        }
    }

    fn send_ack(&mut self, f: u32, h: TcpHeader) {
        let (src, dst) = (self.flows[f as usize].dst, self.flows[f as usize].src);
        let p = self.new_packet(f, src, dst, L4::Tcp(h), h.wire_bytes(), None);
        self.net_originate(src, p);
    }

    /// Lets the TCP sender of flow `f` send what its window and the application allow.
    fn tcp_pump(&mut self, f: u32) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[f as usize];
            if !flow.active && flow.app_bytes == 0 {
                break;
            }
            let Some(h) = flow
                .tx
                .as_mut()
                .expect("tcp sender")
                .next_segment(now, flow.app_bytes)
            else {
                break;
            };
            flow.max_sent = flow.max_sent.max(h.seq + h.len as u64);
            if h.len > 0 {
                flow.delay.sent(h.seq + h.len as u64, now);
            }
            flow.tx_packets += 1;
            let (src, dst) = (flow.src, flow.dst);
            let body = self.payloads.then(|| payload(f, h.seq, h.len));
            let p = self.new_packet(f, src, dst, L4::Tcp(h), h.wire_bytes() + h.len, body);
            self.net_originate(src, p);
        }
        self.arm_rto(f);
        self.arm_pacing(f);
    }

    /// A rate-paced sender (TCP-AP and kin) holding a segment back gets a timer.
    fn arm_pacing(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if let Some(t) = flow.tx.as_ref().and_then(|x| x.pacing_deadline()) {
            if t > now && flow.pace_at.is_none_or(|a| t < a || a <= now) {
                flow.pace_at = Some(t);
                self.queue.schedule(t, Ev::Pace { flow: f });
            }
        }
    }

    pub(super) fn on_pace(&mut self, f: u32) {
        if self.flows[f as usize].pace_at == Some(self.now) {
            self.flows[f as usize].pace_at = None;
        }
        self.tcp_pump(f);
    }

    fn arm_rto(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.tx.as_ref().and_then(|t| t.rto_deadline()) {
            if flow.rto_at.is_none_or(|a| d < a) {
                flow.rto_at = Some(d);
                self.queue.schedule(d.max(self.now), Ev::Rto { flow: f });
            }
        }
    }

    pub(super) fn on_rto(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.rto_at == Some(now) {
            flow.rto_at = None;
        }
        let tx = flow.tx.as_mut().expect("tcp sender");
        match tx.rto_deadline() {
            Some(d) if d <= now => {
                tx.on_rto(now);
                self.tcp_pump(f);
            }
            _ => self.arm_rto(f),
        }
    }

    fn arm_delack(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.rx.as_ref().and_then(|r| r.delack_deadline()) {
            if flow.delack_at.is_none_or(|a| d < a) {
                flow.delack_at = Some(d);
                self.queue.schedule(d.max(self.now), Ev::DelAck { flow: f });
            }
        }
    }

    pub(super) fn on_delack(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.delack_at == Some(now) {
            flow.delack_at = None;
        }
        let rx = flow.rx.as_mut().expect("tcp receiver");
        match rx.delack_deadline() {
            Some(d) if d <= now => {
                if let Some(a) = rx.on_delack_timeout(now) {
                    self.send_ack(f, a);
                }
                self.arm_delack(f);
            }
            _ => self.arm_delack(f),
        }
    }

    pub(super) fn on_flow_start(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.active = true;
        match flow.source {
            Source::Bulk => {
                flow.app_bytes = u64::MAX;
                if flow.tcp {
                    self.tell_path_hops(f);
                    self.tcp_pump(f);
                } else {
                    // Bulk over UDP saturates: treated as CBR at the data rate.
                    let bytes = self.scenario.flows[f as usize].packet_bytes;
                    let t = &self.mac.timing;
                    let interval = t.airtime(bytes + 64, t.data_rate_mbps);
                    self.flows[f as usize].source = Source::Cbr { interval, bytes };
                    self.on_app_tick(f);
                }
            }
            Source::Cbr { .. } => {
                if self.flows[f as usize].tcp {
                    self.tell_path_hops(f);
                }
                self.on_app_tick(f)
            }
        }
    }

    /// Paced TCP variants estimate per-hop delays from the path length.
    pub(super) fn tell_path_hops(&mut self, f: u32) {
        let flow = &self.flows[f as usize];
        if let Some(p) = self.routes.path(flow.src, flow.dst, f) {
            let hops = (p.len() - 1) as u32;
            if let Some(tx) = self.flows[f as usize].tx.as_mut() {
                tx.set_path_hops(hops);
            }
        }
    }

    pub(super) fn on_flow_stop(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.active = false;
        if flow.tcp {
            // Stop writing: whatever was sent still gets delivered.
            flow.app_bytes = flow.app_bytes.min(flow.max_sent);
        }
    }

    /// One application write (CBR): a datagram, or bytes appended to the TCP buffer.
    pub(super) fn on_app_tick(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let Source::Cbr { interval, bytes } = flow.source else {
            return;
        };
        if !flow.active {
            return;
        }
        if flow.tcp {
            flow.app_bytes = flow.app_bytes.saturating_add(bytes as u64);
            self.tcp_pump(f);
        } else {
            let h = UdpHeader {
                seq: flow.udp_seq,
                len: bytes,
            };
            flow.udp_seq += 1;
            flow.tx_packets += 1;
            let (src, dst) = (flow.src, flow.dst);
            let body = self
                .payloads
                .then(|| payload(f, h.seq * bytes as u64, bytes));
            let p = self.new_packet(f, src, dst, L4::Udp(h), UDP_HEADER_BYTES + bytes, body);
            self.net_originate(src, p);
        }
        let next = self.now + interval;
        if next < self.flows[f as usize].stop {
            self.queue.schedule(next, Ev::AppTick { flow: f });
        }
    }

    pub(super) fn on_sample(&mut self) {
        let t = crate::engine::to_secs(self.now);
        let dt = crate::engine::to_secs(self.series_interval);
        for (i, f) in self.flows.iter_mut().enumerate() {
            let d = f.delivered();
            let gp = (d - f.bytes_at_last_sample) as f64 * 8.0 / dt / 1000.0;
            f.bytes_at_last_sample = d;
            let cwnd = f.tx.as_ref().map_or(0, |x| x.cwnd_bytes());
            self.flow_series.push(crate::metrics::FlowSample {
                t_s: t,
                flow: i as u32,
                goodput_kbps: gp,
                cwnd_bytes: cwnd,
            });
        }
        for (i, nd) in self.nodes.iter().enumerate() {
            let q = nd.scheme.occupancy().queued as u64;
            self.node_series.push(crate::metrics::NodeSample {
                t_s: t,
                node: i as u32,
                queue_len: q,
            });
        }
        let next = self.now + self.series_interval;
        if next <= self.end {
            self.queue.schedule(next, Ev::Sample);
        }
    }
}

pub(super) fn count_drop(
    st: &mut crate::metrics::NodeResult,
    ledger: &mut super::Ledger,
    why: DropReason,
) {
    ledger.dropped += 1;
    match why {
        DropReason::QueueFull => st.drops_queue_full += 1,
        DropReason::RetryLimit => st.drops_retry_limit += 1,
        DropReason::Ttl => st.drops_ttl += 1,
        DropReason::NoRoute => st.drops_no_route += 1,
        DropReason::Scheme => st.drops_scheme += 1,
    }
}
