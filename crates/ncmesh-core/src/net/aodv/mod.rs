//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561), as a state machine per
//! node without I/O (in the manner of quinn-proto's `Connection` and the MAC's
//! `Station`): the simulator hands it inputs (`handle_*`, with the time), asks for its
//! outputs (`poll_output`: messages to send, buffered packets whose route was found,
//! packets dropped) and for its next deadline (`poll_timeout`), and calls
//! `handle_timeout` then.
//!
//! What it does, by RFC 3561 section: sequence numbers (§6.1), the route table with
//! precursors and lifetimes (§6.2, `table`), route discovery by RREQ with expanding ring
//! search and binary exponential backoff (§6.3-6.4), RREQ processing with duplicate
//! suppression for PATH_DISCOVERY_TIME (§6.5), RREPs from the destination and from
//! intermediate nodes, gratuitous RREPs on the G flag (§6.6), RREP forwarding (§6.7),
//! HELLO messages as an option (§6.9), RERR on a link break, on a packet without a route
//! and on a received RERR, sent to the precursors (§6.11), and local repair as an option
//! (§6.12). Packets wait for a route in a bounded buffer (`buffer`). Not implemented: the
//! RREP-ACK exchange and blacklists for unidirectional links (§6.8; the simulator's
//! links are symmetric), the RERR with the N flag after a longer local repair (§6.12),
//! multicast (J, R flags), and the restart rules (§6.13; nodes never reboot).
//!
//! Files: this one (the node's state, its inputs and outputs, timers), `discovery` (§6.3-6.4,
//! §6.12), `request` (RREQs, §6.5-6.6), `reply` (RREPs and HELLOs, §6.6-6.7, §6.9), `error`
//! (RERRs, §6.11), `table` (§6.2), `buffer`, `params` (§10).

pub mod buffer;
mod discovery;
mod error;
pub mod params;
mod reply;
mod request;
pub mod table;
#[cfg(test)]
mod tests;

use crate::engine::{Rng, Time, MILLIS, SECOND};
use crate::net::DropReason;
pub use crate::wire::aodv::{AodvMsg, Rerr, Rrep, Rreq, AODV_PORT};
use crate::wire::{NodeId, Packet, BROADCAST};
use buffer::Buffer;
use discovery::{Discovery, RateLimit};
pub use params::AodvParams;
use std::collections::VecDeque;
use table::{seq_newer, Offer, Route, RouteState, Table};

/// What the state machine asks the node to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Send `msg` to neighbour `to` (or `BROADCAST`) in a UDP datagram to port 654 with
    /// IP TTL `ttl`.
    Send {
        /// Neighbour or `BROADCAST`.
        to: NodeId,
        /// IP TTL of the datagram.
        ttl: u8,
        /// The message.
        msg: AodvMsg,
    },
    /// A buffered packet whose route was found: send it to `next_hop`, `hops` away from
    /// its destination.
    Forward {
        /// The packet.
        packet: Packet,
        /// Its next hop.
        next_hop: NodeId,
        /// Hops from here to its destination.
        hops: u8,
    },
    /// A packet leaves the network here.
    Drop {
        /// The packet.
        packet: Packet,
        /// Why.
        why: DropReason,
    },
}

/// Counters of one node's AODV.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AodvStats {
    /// RREQs sent (originated and forwarded).
    pub rreq_tx: u64,
    /// RREPs sent (generated and forwarded; HELLOs not included).
    pub rrep_tx: u64,
    /// RERRs sent.
    pub rerr_tx: u64,
    /// HELLOs sent.
    pub hello_tx: u64,
    /// Route discoveries this node started.
    pub discoveries: u64,
    /// Of those, the ones that ended without a route (RREQ_RETRIES exhausted).
    pub discoveries_failed: u64,
    /// Link breaks that invalidated at least one route (§6.11 (i)).
    pub route_breaks: u64,
    /// Local repairs started (§6.12).
    pub local_repairs: u64,
    /// Packets that waited in the buffer.
    pub buffered: u64,
}

/// One node's AODV.
#[derive(Debug, Clone)]
pub struct Aodv {
    me: NodeId,
    p: AodvParams,
    /// This node's own sequence number (§6.1).
    seqno: u32,
    /// The last RREQ ID this node used (§6.3).
    rreq_id: u32,
    table: Table,
    /// RREQs seen: (originator, RREQ ID, until), oldest first (§6.5).
    seen: VecDeque<(NodeId, u32, Time)>,
    discoveries: Vec<Discovery>,
    buffer: Buffer,
    /// Forwarded RREQs waiting out their jitter: (due, IP TTL, message).
    delayed: Vec<(Time, u8, AodvMsg)>,
    out: VecDeque<Output>,
    rreq_rate: RateLimit,
    rerr_rate: RateLimit,
    /// The last broadcast this node sent (§6.9).
    last_broadcast: Option<Time>,
    /// The next HELLO check (§6.9), if HELLOs are on.
    next_hello: Option<Time>,
    /// Neighbours heard by HELLO and when the link to each is presumed lost (§6.9).
    heard: Vec<(NodeId, Time)>,
    stats: AodvStats,
    scratch: Vec<Packet>,
}

impl Aodv {
    /// The AODV of node `me` with parameters `p`, at time 0.
    pub fn new(me: NodeId, p: AodvParams) -> Aodv {
        let buffer = Buffer::new(p.buffer_packets, p.buffer_time);
        Aodv {
            me,
            seqno: 0,
            rreq_id: 0,
            table: Table::default(),
            seen: VecDeque::new(),
            discoveries: Vec::new(),
            buffer,
            delayed: Vec::new(),
            out: VecDeque::new(),
            rreq_rate: RateLimit::new(p.rreq_ratelimit),
            rerr_rate: RateLimit::new(p.rerr_ratelimit),
            last_broadcast: None,
            next_hello: p.hello.then_some(p.hello_interval),
            heard: Vec::new(),
            stats: AodvStats::default(),
            scratch: Vec::new(),
            p,
        }
    }

    /// Its counters.
    pub fn stats(&self) -> &AodvStats {
        &self.stats
    }

    /// This node's sequence number.
    pub fn seqno(&self) -> u32 {
        self.seqno
    }

    /// Packets waiting for a route.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    /// The route table entry for `dest` at `now` (whatever its state), if any.
    pub fn entry(&mut self, now: Time, dest: NodeId) -> Option<Route> {
        let dp = self.p.delete_period();
        self.table.get(now, dest, dp).cloned()
    }

    /// The next hop of the active route to `dest` at `now`, if any (read only: no
    /// lifetime changes).
    pub fn active_next_hop(&self, now: Time, dest: NodeId) -> Option<NodeId> {
        self.active_route(now, dest).map(|r| r.0)
    }

    /// The next hop and hop count of the active route to `dest` at `now`, if any (read
    /// only: no lifetime changes).
    pub fn active_route(&self, now: Time, dest: NodeId) -> Option<(NodeId, u8)> {
        self.table
            .peek(dest)
            .filter(|r| r.state == RouteState::Valid && r.lifetime > now)
            .map(|r| (r.next_hop, r.hops))
    }

    /// Is a discovery (or local repair) for `dest` under way?
    pub fn discovering(&self, dest: NodeId) -> bool {
        self.discoveries.iter().any(|d| d.dest == dest)
    }

    /// The next output, if any.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// When `handle_timeout` is next due, if ever.
    pub fn poll_timeout(&self) -> Option<Time> {
        let discovery = self.discoveries.iter().map(|d| d.deadline).min();
        let delayed = self.delayed.iter().map(|d| d.0).min();
        let heard = self.heard.iter().map(|h| h.1).min();
        [
            discovery,
            delayed,
            heard,
            self.buffer.next_expiry(),
            self.next_hello,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The next hop of a data packet from `src` to `dst` at this node (not its
    /// destination), if an active route exists, with the hops left. Using the route
    /// extends the lifetimes of the routes to the destination, the next hop and the
    /// source to now + ACTIVE_ROUTE_TIMEOUT (§6.2).
    pub fn next_hop(&mut self, now: Time, src: NodeId, dst: NodeId) -> Option<(NodeId, u8)> {
        let dp = self.p.delete_period();
        let until = now + self.p.active_route_timeout;
        let r = self.table.valid(now, dst, dp)?;
        r.lifetime = r.lifetime.max(until);
        let (nh, hops) = (r.next_hop, r.hops);
        self.table.refresh(now, nh, until, dp);
        if src != self.me {
            self.table.refresh(now, src, until, dp);
        }
        Some((nh, hops))
    }

    /// A data packet with no active route at this node. One it originated (or one for a
    /// destination being repaired locally) waits in the buffer while a route is
    /// discovered (§6.3); one it forwards is dropped and a RERR names its destination
    /// (§6.11 case (ii)).
    pub fn handle_unrouted(&mut self, now: Time, p: Packet) {
        let dst = p.dst;
        if p.src == self.me || self.discoveries.iter().any(|d| d.dest == dst && d.repair) {
            self.buffer_packet(now, p);
            if !self.discovering(dst) {
                self.start_discovery(now, dst);
            }
            return;
        }
        let dp = self.p.delete_period();
        let lost = match self.table.get(now, dst, dp) {
            Some(r) => {
                r.on_break(self.p.increment_seqno_on_break);
                (dst, r.seqno)
            }
            None => (dst, 0),
        };
        // To the precursors for the destination; with none, towards the packet's source.
        let mut to: Vec<NodeId> = self.precursors_of(now, dst);
        if to.is_empty() {
            if let Some(r) = self.table.valid(now, p.src, dp) {
                to.push(r.next_hop);
            }
        }
        self.send_rerr(now, vec![lost], to);
        self.out.push_back(Output::Drop {
            packet: p,
            why: DropReason::NoRoute,
        });
    }

    /// The MAC gave up on a unicast to neighbour `next` (the link-layer feedback of
    /// §6.11 case (i)); `packet`: the (source, destination) of the data packet it
    /// carried, if any. Every active route through `next` breaks: its destination
    /// sequence number is incremented and a RERR goes to its precursors, unless the
    /// packet's destination is repaired locally (§6.12).
    pub fn handle_link_failure(
        &mut self,
        now: Time,
        next: NodeId,
        packet: Option<(NodeId, NodeId)>,
    ) {
        let dp = self.p.delete_period();
        let broken = self.table.valid_via(now, next, dp);
        if broken.is_empty() {
            return;
        }
        self.stats.route_breaks += 1;
        self.heard.retain(|h| h.0 != next);
        let mut lost = Vec::new();
        let mut to = Vec::new();
        for d in broken {
            let src_hops = packet
                .filter(|&(s, pd)| pd == d && s != self.me && self.p.local_repair)
                .and_then(|(s, _)| self.table.valid(now, s, dp).map(|r| r.hops));
            let r = self.table.get(now, d, dp).expect("a valid route");
            r.on_break(self.p.increment_seqno_on_break);
            let repair = src_hops.filter(|_| d != next && r.hops <= self.p.max_repair_ttl());
            if let Some(src_hops) = repair {
                // §6.12: TTL = max(MIN_REPAIR_TTL, 0.5 * #hops) + LOCAL_ADD_TTL, with
                // MIN_REPAIR_TTL the last known hop count to the destination.
                r.state = RouteState::Repairing;
                let ttl = r
                    .hops
                    .max(src_hops / 2)
                    .saturating_add(self.p.local_add_ttl);
                self.stats.local_repairs += 1;
                self.open_discovery(now, d, ttl, true);
                continue;
            }
            r.state = RouteState::Invalid;
            r.lifetime = now + dp;
            if !r.precursors.is_empty() {
                lost.push((d, r.seqno));
                for &p in &r.precursors {
                    if !to.contains(&p) {
                        to.push(p);
                    }
                }
                r.precursors.clear();
            }
        }
        self.send_rerr(now, lost, to);
    }

    /// Any frame heard from neighbour `from` (§6.9: a neighbour that sent a HELLO stays
    /// alive while any packet comes from it).
    pub fn handle_heard(&mut self, now: Time, from: NodeId) {
        let life = now + self.p.hello_lifetime();
        if let Some(h) = self.heard.iter_mut().find(|h| h.0 == from) {
            h.1 = h.1.max(life);
        }
    }

    /// An AODV message from neighbour `from`, in a datagram that arrived with IP TTL
    /// `ttl`; `rng`: this node's routing stream (the RREQ jitter).
    pub fn handle_message(
        &mut self,
        now: Time,
        from: NodeId,
        ttl: u8,
        msg: &AodvMsg,
        rng: &mut Rng,
    ) {
        self.handle_heard(now, from);
        match msg {
            AodvMsg::Rreq(r) => self.recv_rreq(now, from, ttl, *r, rng),
            AodvMsg::Rrep(r) if r.dest == r.orig => self.recv_hello(now, from, *r),
            AodvMsg::Rrep(r) => self.recv_rrep(now, from, *r),
            AodvMsg::Rerr(e) => self.recv_rerr(now, from, e),
            AodvMsg::RrepAck => {}
        }
    }

    /// The deadline `poll_timeout` gave (or a later time).
    pub fn handle_timeout(&mut self, now: Time) {
        // Forwarded RREQs whose jitter is over, in due order.
        while let Some(i) = (0..self.delayed.len())
            .filter(|&i| self.delayed[i].0 <= now)
            .min_by_key(|&i| (self.delayed[i].0, i))
        {
            let (_, ttl, msg) = self.delayed.remove(i);
            self.broadcast(now, ttl, msg);
        }
        let mut i = 0;
        while i < self.discoveries.len() {
            if self.discoveries[i].deadline > now {
                i += 1;
                continue;
            }
            let d = &mut self.discoveries[i];
            let nd = self.p.net_diameter;
            if d.send_pending {
            } else if d.repair {
                let dest = d.dest;
                self.discoveries.remove(i);
                self.repair_failed(now, dest);
                continue;
            } else if d.ttl < nd {
                // §6.4: TTL grows by TTL_INCREMENT; past TTL_THRESHOLD it is NET_DIAMETER.
                let t = d.ttl.saturating_add(self.p.ttl_increment);
                d.ttl = if t > self.p.ttl_threshold { nd } else { t };
            } else if d.retries < self.p.rreq_retries {
                d.retries += 1;
            } else {
                // §6.3: RREQ_RETRIES at the maximum TTL without a RREP: the packets for
                // the destination are dropped.
                let dest = d.dest;
                self.discoveries.remove(i);
                self.stats.discoveries_failed += 1;
                self.drop_buffered(dest);
                continue;
            }
            self.send_rreq(now, i);
            i += 1;
        }
        let mut expired = std::mem::take(&mut self.scratch);
        self.buffer.expire(now, &mut expired);
        for packet in expired.drain(..) {
            self.drop_undiscovered(packet);
        }
        self.scratch = expired;
        if let Some(t) = self.next_hello.filter(|&t| t <= now) {
            self.next_hello = Some(t + self.p.hello_interval);
            self.maybe_hello(now);
        }
        while let Some(k) = self.heard.iter().position(|h| h.1 <= now) {
            let (n, _) = self.heard.remove(k);
            self.handle_link_failure(now, n, None);
        }
    }

    fn broadcast(&mut self, now: Time, ttl: u8, msg: AodvMsg) {
        self.stats.rreq_tx += u64::from(matches!(msg, AodvMsg::Rreq(_)));
        self.last_broadcast = Some(now);
        self.out.push_back(Output::Send {
            to: BROADCAST,
            ttl,
            msg,
        });
    }
}
