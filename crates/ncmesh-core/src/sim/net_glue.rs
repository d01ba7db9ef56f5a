//! Network and transport glue: forwarding, the flows' endpoints (transport::endpoint)
//! on the network and the event queue, and sampling.

use super::events::Ev;
use super::Sim;
use crate::engine::Time;
use crate::net::{forward, DropReason, Forward, NextHop, Packet, IP_HEADER_BYTES, L4};
use crate::scenario::schema::Spread;
use crate::transport::endpoint::{Endpoint, EndpointOutput, FlowTimer};

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
        self.stamp(&mut p);
        self.nodes[n as usize].ledger.originated += 1;
        self.net_route(n, p);
    }

    /// A packet originated now: a fresh uid, this time, a full TTL.
    fn stamp(&mut self, p: &mut Packet) {
        self.next_uid += 1;
        p.uid = self.next_uid;
        p.created = self.now;
        p.ttl = self.scenario.routing.ttl;
    }

    /// Delivers `p` at `n`, or passes it to the coding layer towards its next hops, or
    /// drops it (net::forward).
    pub(super) fn net_route(&mut self, n: u32, mut p: Packet) {
        if self.aodv {
            return self.aodv_route(n, p);
        }
        match forward(&mut p, n, &self.routes) {
            Forward::Deliver => self.net_deliver(n, p),
            Forward::Drop(why) => self.drop_packet(n, why),
            Forward::Send(mut hops) => {
                if self.scenario.routing.spread == Spread::RoundRobin {
                    self.nodes[n as usize]
                        .turns
                        .rotate(p.flow, p.dst, &mut hops);
                }
                self.net_send(n, p, &hops);
            }
        }
    }

    /// `p` has arrived at its destination `n`: up to the layer it is for.
    pub(super) fn net_deliver(&mut self, n: u32, p: Packet) {
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

    /// Hands `p` to the coding layer of `n` towards its candidate next hops `hops`.
    pub(super) fn net_send(&mut self, n: u32, p: Packet, hops: &[NextHop]) {
        self.with_scheme(n, |s, cx| s.enqueue(cx, p, hops));
        let q = self.nodes[n as usize].scheme.occupancy().queued as u64;
        let st = &mut self.nodes[n as usize].stats;
        st.queue_max = st.queue_max.max(q);
        self.mac_packet_ready(n);
    }

    /// Gives flow `f`'s endpoint an input, then acts on that input's outputs in order:
    /// its packets go into the network at their node, its timers into the event queue.
    fn with_endpoint(&mut self, f: u32, input: impl FnOnce(&mut Endpoint, Time)) {
        let now = self.now;
        let ep = &mut self.flows[f as usize].ep;
        // Outputs of inputs still being handled (further up the call stack) stay there.
        let outer = ep.pending();
        input(ep, now);
        while self.flows[f as usize].ep.pending() > outer {
            match self.flows[f as usize].ep.poll_output(now) {
                Some(EndpointOutput::Transmit(t)) => {
                    let mut p = Packet {
                        uid: 0,
                        flow: f,
                        src: t.from,
                        dst: t.to,
                        ttl: 0,
                        ip_bytes: IP_HEADER_BYTES + t.l4_bytes,
                        created: 0,
                        l4: t.l4,
                        payload: t.payload,
                    };
                    self.stamp(&mut p);
                    self.net_originate(t.from, p);
                }
                Some(EndpointOutput::Schedule { at, timer }) => {
                    self.queue.schedule(at, Ev::Flow { flow: f, timer })
                }
                None => {}
            }
        }
    }

    fn transport_deliver(&mut self, n: u32, p: Packet) {
        self.with_endpoint(p.flow, |ep, now| {
            ep.handle_packet(now, n, &p.l4, p.payload.as_deref())
        });
    }

    pub(super) fn on_flow_timer(&mut self, f: u32, timer: FlowTimer) {
        if timer == FlowTimer::Start {
            self.tell_path_hops(f);
        }
        self.with_endpoint(f, |ep, now| ep.handle_timeout(now, timer));
    }

    /// Paced TCP variants estimate per-hop delays from the path length.
    pub(super) fn tell_path_hops(&mut self, f: u32) {
        // Under AODV too the estimate comes from the static graph (the route found
        // later is not known at the start; docs/assumptions.md).
        let ep = &self.flows[f as usize].ep;
        if let Some(p) = self.routes.path(ep.src(), ep.dst(), f) {
            let hops = (p.len() - 1) as u32;
            self.flows[f as usize].ep.set_path_hops(hops);
        }
    }

    pub(super) fn on_sample(&mut self) {
        let t = crate::engine::to_secs(self.now);
        let dt = crate::engine::to_secs(self.series_interval);
        for (i, f) in self.flows.iter_mut().enumerate() {
            let d = f.ep.delivered();
            let gp = (d - f.bytes_at_last_sample) as f64 * 8.0 / dt / 1000.0;
            f.bytes_at_last_sample = d;
            let cwnd = f.ep.sender().map_or(0, |x| x.cwnd_bytes());
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
        DropReason::Discovery => st.drops_discovery += 1,
    }
}
