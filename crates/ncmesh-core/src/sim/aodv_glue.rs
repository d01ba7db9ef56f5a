//! AODV glue (`routing.protocol = "aodv"`): runs each node's `net::aodv::Aodv` on the
//! simulator. Data packets take the next hop AODV holds or wait in its buffer; its
//! messages are real packets (UDP/654, one hop each) that go to the MAC from a
//! control queue served before the coding scheme's interface queue (as ns-2's PriQueue
//! serves routing packets first) and never pass through a coding scheme; a unicast the
//! MAC gives up on tells AODV the link is broken (RFC 3561 §6.11 (i)).

use super::events::Ev;
use super::Sim;
use crate::coding::{Body, OutFrame, TxOutcome};
use crate::net::aodv::{AodvMsg, Output};
use crate::net::{DropReason, NextHop, NodeId, Packet, BROADCAST, IP_HEADER_BYTES, L4};
use crate::wire::UDP_HEADER_BYTES;

impl Sim {
    /// `net_route` under AODV: delivered here, or on along the active route, or (no
    /// route) to AODV, which buffers it and discovers one or drops it with a RERR.
    pub(super) fn aodv_route(&mut self, n: u32, mut p: Packet) {
        if p.dst == n {
            return self.net_deliver(n, p);
        }
        if p.src != n {
            p.ttl = p.ttl.saturating_sub(1);
            if p.ttl == 0 {
                return self.drop_packet(n, DropReason::Ttl);
            }
        }
        let now = self.now;
        let a = self.nodes[n as usize].aodv.as_mut().expect("AODV runs");
        match a.next_hop(now, p.src, p.dst) {
            Some((h, hops)) => {
                let hop = [NextHop {
                    node: h,
                    cost: f64::from(hops),
                }];
                self.net_send(n, p, &hop);
            }
            None => {
                a.handle_unrouted(now, p);
                self.aodv_drain(n);
            }
        }
    }

    /// Acts on AODV's outputs at `n`, then keeps its timer.
    fn aodv_drain(&mut self, n: u32) {
        loop {
            let a = self.nodes[n as usize].aodv.as_mut().expect("AODV runs");
            let Some(o) = a.poll_output() else { break };
            match o {
                Output::Send { to, ttl, msg } => self.aodv_send(n, to, ttl, msg),
                Output::Forward {
                    packet,
                    next_hop,
                    hops,
                } => {
                    let hop = [NextHop {
                        node: next_hop,
                        cost: f64::from(hops),
                    }];
                    self.net_send(n, packet, &hop);
                }
                Output::Drop { why, .. } => self.drop_packet(n, why),
            }
        }
        let nd = &mut self.nodes[n as usize];
        if let Some(t) = nd.aodv.as_ref().and_then(|a| a.poll_timeout()) {
            if let Some(at) = nd.aodv_timer.arm(t, self.now) {
                self.queue.schedule(at, Ev::Aodv { node: n });
            }
        }
    }

    /// AODV's deadline at `n`.
    pub(super) fn on_aodv_timer(&mut self, n: u32) {
        let now = self.now;
        let nd = &mut self.nodes[n as usize];
        nd.aodv_timer.fire(now);
        nd.aodv.as_mut().expect("AODV runs").handle_timeout(now);
        self.aodv_drain(n);
    }

    /// An AODV message from `n` to neighbour `to` (or everyone) as a packet originated
    /// at `n`: IP, UDP and the message (RFC 3561 §4-5), into the control queue.
    fn aodv_send(&mut self, n: u32, to: NodeId, ttl: u8, msg: AodvMsg) {
        self.next_uid += 1;
        let p = Packet {
            uid: self.next_uid,
            flow: u32::MAX,
            src: n,
            dst: to,
            ttl: u32::from(ttl),
            ip_bytes: IP_HEADER_BYTES + UDP_HEADER_BYTES + msg.bytes(),
            created: self.now,
            l4: L4::Aodv(Box::new(msg)),
            payload: None,
        };
        let nd = &mut self.nodes[n as usize];
        nd.ledger.originated += 1;
        if nd.ctl.len() >= self.queue_capacity {
            return self.drop_packet(n, DropReason::QueueFull);
        }
        // ns-2's PriQueue serves routing packets first; ns-3 3.44 without a
        // traffic-control layer queues them behind the data in the one WifiMacQueue.
        let ahead = if self.aodv_control_first {
            0
        } else {
            nd.scheme.occupancy().held
        };
        let frame = OutFrame {
            mac_rx: to,
            body: Body::native(p, to),
        };
        nd.ctl.push_back((frame, ahead));
        self.mac_packet_ready(n);
    }

    /// The next AODV frame of `n` for the MAC, if one waits with no data ahead of it
    /// (or `anyway`: the scheme has nothing to send before it).
    pub(super) fn aodv_next_frame(&mut self, n: u32, anyway: bool) -> Option<OutFrame> {
        let ctl = &mut self.nodes[n as usize].ctl;
        match ctl.front() {
            Some(&(_, ahead)) if ahead == 0 || anyway => ctl.pop_front().map(|(f, _)| f),
            _ => None,
        }
    }

    /// The scheme of `n` handed `sent` packets to the MAC: the AODV messages queued
    /// behind them move up.
    pub(super) fn aodv_data_sent(&mut self, n: u32, sent: usize) {
        for (_, ahead) in self.nodes[n as usize].ctl.iter_mut() {
            *ahead = ahead.saturating_sub(sent);
        }
    }

    /// Is the frame an AODV message?
    pub(super) fn is_aodv(body: &Body) -> bool {
        matches!(body.packets.first().map(|p| &p.l4), Some(L4::Aodv(_)))
    }

    /// The MAC of `n` is done with an AODV frame: handed over (acknowledged, or sent
    /// if broadcast), or dropped at the retry limit, which breaks the link.
    pub(super) fn aodv_tx_outcome(&mut self, n: u32, frame: OutFrame, outcome: TxOutcome) {
        if outcome == TxOutcome::Failed && frame.mac_rx != BROADCAST {
            self.drop_packet(n, DropReason::RetryLimit);
            self.aodv_link_failure(n, frame.mac_rx, None);
        } else {
            self.nodes[n as usize].ledger.handed_over += 1;
        }
    }

    /// The MAC of `n` gave up on a unicast to `next` (RFC 3561 §6.11 (i)); `ends`: the
    /// (source, destination) of the data packet it carried.
    pub(super) fn aodv_link_failure(
        &mut self,
        n: u32,
        next: NodeId,
        ends: Option<(NodeId, NodeId)>,
    ) {
        let now = self.now;
        let a = self.nodes[n as usize].aodv.as_mut().expect("AODV runs");
        a.handle_link_failure(now, next, ends);
        self.aodv_drain(n);
    }

    /// An AODV frame received intact at `n` from `tx` (for it or broadcast): received,
    /// delivered to AODV.
    pub(super) fn aodv_rx(&mut self, n: u32, tx: NodeId, p: &Packet) {
        let L4::Aodv(msg) = &p.l4 else { return };
        let now = self.now;
        let nd = &mut self.nodes[n as usize];
        nd.ledger.received += 1;
        nd.ledger.delivered += 1;
        let ttl = p.ttl.min(255) as u8;
        let a = nd.aodv.as_mut().expect("AODV runs");
        a.handle_message(now, tx, ttl, msg, &mut nd.rng_routing);
        self.aodv_drain(n);
    }

    /// The path from `src` to `dst` along the active AODV routes now (empty if it
    /// does not reach `dst`).
    pub(super) fn aodv_path(&self, src: NodeId, dst: NodeId) -> Vec<NodeId> {
        let mut p = vec![src];
        let mut at = src;
        while at != dst {
            let a = self.nodes[at as usize].aodv.as_ref().expect("AODV runs");
            match a.active_next_hop(self.now, dst) {
                Some(h) if p.len() <= self.nodes.len() => {
                    p.push(h);
                    at = h;
                }
                _ => return Vec::new(),
            }
        }
        p
    }

    /// A data frame from neighbour `tx` heard at `n` (HELLO liveness, §6.9).
    pub(super) fn aodv_heard(&mut self, n: u32, tx: NodeId) {
        let now = self.now;
        if let Some(a) = self.nodes[n as usize].aodv.as_mut() {
            a.handle_heard(now, tx);
        }
    }
}
