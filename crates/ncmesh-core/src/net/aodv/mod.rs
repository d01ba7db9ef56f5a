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

pub mod buffer;
pub mod params;
pub mod table;
#[cfg(test)]
mod tests;

use crate::engine::{Rng, Time, MILLIS, SECOND};
use crate::net::DropReason;
pub use crate::wire::aodv::{AodvMsg, Rerr, Rrep, Rreq, AODV_PORT};
use crate::wire::{NodeId, Packet, BROADCAST};
use buffer::Buffer;
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

/// A route discovery under way (§6.3-6.4) or a local repair (§6.12).
#[derive(Debug, Clone)]
struct Discovery {
    dest: NodeId,
    /// IP TTL of the last (or next) RREQ.
    ttl: u8,
    /// RREQs sent at TTL = NET_DIAMETER after the first (§6.3, at most RREQ_RETRIES).
    retries: u32,
    /// When the RREP wait ends (or the rate-limited RREQ may go).
    deadline: Time,
    /// A local repair: one RREQ, then a RERR if no reply.
    repair: bool,
    /// The RREQ waits for the rate limit (§6.3 RREQ_RATELIMIT).
    send_pending: bool,
}

/// At most `limit` messages per second (RREQ_RATELIMIT, RERR_RATELIMIT).
#[derive(Debug, Clone)]
struct RateLimit {
    sent: VecDeque<Time>,
    limit: u32,
}

impl RateLimit {
    fn new(limit: u32) -> RateLimit {
        RateLimit {
            sent: VecDeque::new(),
            limit: limit.max(1),
        }
    }

    /// May one go at `now`? Counts it if so.
    fn allow(&mut self, now: Time) -> bool {
        while self.sent.front().is_some_and(|&t| t + SECOND <= now) {
            self.sent.pop_front();
        }
        if self.sent.len() < self.limit as usize {
            self.sent.push_back(now);
            true
        } else {
            false
        }
    }

    /// When the next may go.
    fn free_at(&self) -> Time {
        self.sent.front().map_or(0, |&t| t + SECOND)
    }
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
                if r.seqno_valid {
                    r.seqno = r.seqno.wrapping_add(1);
                }
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
            if r.seqno_valid {
                r.seqno = r.seqno.wrapping_add(1);
            }
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
                self.discoveries.push(Discovery {
                    dest: d,
                    ttl: ttl.min(self.p.net_diameter),
                    retries: 0,
                    deadline: now,
                    repair: true,
                    send_pending: true,
                });
                let i = self.discoveries.len() - 1;
                self.send_rreq(now, i);
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

    // ---- route discovery (§6.3, §6.4) ----

    fn buffer_packet(&mut self, now: Time, p: Packet) {
        self.stats.buffered += 1;
        if let Some(old) = self.buffer.push(now, p) {
            self.drop_undiscovered(old);
        }
    }

    /// A packet that waited for a route in vain (the buffer's time limit, its room, or a
    /// discovery that failed) leaves with its own drop reason.
    fn drop_undiscovered(&mut self, packet: Packet) {
        self.out.push_back(Output::Drop {
            packet,
            why: DropReason::Discovery,
        });
    }

    fn drop_buffered(&mut self, dest: NodeId) {
        let mut v = std::mem::take(&mut self.scratch);
        self.buffer.take(dest, &mut v);
        for packet in v.drain(..) {
            self.drop_undiscovered(packet);
        }
        self.scratch = v;
    }

    fn start_discovery(&mut self, now: Time, dest: NodeId) {
        let dp = self.p.delete_period();
        // §6.4: the first TTL is the last known hop count plus TTL_INCREMENT, else
        // TTL_START.
        let ttl = match self.table.get(now, dest, dp) {
            Some(r) => {
                let t = r.hops.saturating_add(self.p.ttl_increment);
                if t > self.p.ttl_threshold {
                    self.p.net_diameter
                } else {
                    t
                }
            }
            None => self.p.ttl_start,
        };
        self.stats.discoveries += 1;
        self.discoveries.push(Discovery {
            dest,
            ttl: ttl.min(self.p.net_diameter),
            retries: 0,
            deadline: now,
            repair: false,
            send_pending: true,
        });
        let i = self.discoveries.len() - 1;
        self.send_rreq(now, i);
    }

    /// Sends the RREQ of discovery `i` now, or when the rate limit allows.
    fn send_rreq(&mut self, now: Time, i: usize) {
        if !self.rreq_rate.allow(now) {
            let d = &mut self.discoveries[i];
            d.send_pending = true;
            d.deadline = self.rreq_rate.free_at();
            return;
        }
        // §6.1: the originator increments its sequence number before a discovery.
        self.seqno = self.seqno.wrapping_add(1);
        self.rreq_id = self.rreq_id.wrapping_add(1);
        let dp = self.p.delete_period();
        let d = &mut self.discoveries[i];
        d.send_pending = false;
        let (dest, ttl) = (d.dest, d.ttl);
        let (dest_seqno, known) = self
            .table
            .get(now, dest, dp)
            .filter(|r| r.seqno_valid)
            .map_or((0, false), |r| (r.seqno, true));
        // §6.4 (and §6.12 for a repair): RING_TRAVERSAL_TIME for the TTL used.
        let wait = if d.repair || ttl < self.p.net_diameter {
            self.p.ring_traversal_time(ttl)
        } else {
            // §6.3: binary exponential backoff at the maximum TTL.
            self.p.net_traversal_time() << d.retries.min(16)
        };
        d.deadline = now + wait;
        let rreq = Rreq {
            join: false,
            repair: false,
            gratuitous: self.p.gratuitous_rrep,
            dest_only: self.p.dest_only,
            unknown_seqno: !known,
            hop_count: 0,
            rreq_id: self.rreq_id,
            dest,
            dest_seqno,
            orig: self.me,
            orig_seqno: self.seqno,
        };
        // §6.3: the originator buffers its own RREQ ID.
        self.remember(now, self.me, self.rreq_id);
        self.broadcast(now, ttl, AodvMsg::Rreq(rreq));
    }

    fn repair_failed(&mut self, now: Time, dest: NodeId) {
        let dp = self.p.delete_period();
        let mut lost = Vec::new();
        let mut to = Vec::new();
        if let Some(r) = self.table.get(now, dest, dp) {
            r.state = RouteState::Invalid;
            r.lifetime = now + dp;
            lost.push((dest, r.seqno));
            to = r.precursors.to_vec();
            r.precursors.clear();
        }
        self.send_rerr(now, lost, to);
        self.drop_buffered(dest);
    }

    /// A route to `dest` is active: its discovery ends and its packets go.
    fn route_ready(&mut self, now: Time, dest: NodeId) {
        let dp = self.p.delete_period();
        if self.table.valid(now, dest, dp).is_none() {
            return;
        }
        self.discoveries.retain(|d| d.dest != dest);
        if !self.buffer.has(dest) {
            return;
        }
        let mut v = std::mem::take(&mut self.scratch);
        self.buffer.take(dest, &mut v);
        for packet in v.drain(..) {
            match self.next_hop(now, packet.src, dest) {
                Some((next_hop, hops)) => self.out.push_back(Output::Forward {
                    packet,
                    next_hop,
                    hops,
                }),
                None => unreachable!("the route was checked"),
            }
        }
        self.scratch = v;
    }

    // ---- RREQ (§6.5, §6.6) ----

    fn seen(&mut self, now: Time, orig: NodeId, id: u32) -> bool {
        while self.seen.front().is_some_and(|s| s.2 <= now) {
            self.seen.pop_front();
        }
        self.seen.iter().any(|s| s.0 == orig && s.1 == id)
    }

    fn remember(&mut self, now: Time, orig: NodeId, id: u32) {
        self.seen
            .push_back((orig, id, now + self.p.path_discovery_time()));
    }

    /// §6.5 (and §6.2): a route to the neighbour a message came from, without a
    /// sequence number.
    fn neighbour_route(&mut self, now: Time, from: NodeId) {
        let dp = self.p.delete_period();
        let o = Offer {
            dest: from,
            seqno: None,
            hops: 1,
            next_hop: from,
            lifetime: now + self.p.active_route_timeout,
        };
        if !self.table.offer(now, o, dp) {
            self.table.refresh(now, from, o.lifetime, dp);
        }
    }

    fn recv_rreq(&mut self, now: Time, from: NodeId, ttl: u8, r: Rreq, rng: &mut Rng) {
        let dp = self.p.delete_period();
        self.neighbour_route(now, from);
        if r.orig == self.me || self.seen(now, r.orig, r.rreq_id) {
            return; // §6.5: a duplicate is discarded silently
        }
        self.remember(now, r.orig, r.rreq_id);
        let hops = r.hop_count.saturating_add(1);
        // The reverse route (§6.5), lifetime at least
        // now + 2 * NET_TRAVERSAL_TIME - 2 * HopCount * NODE_TRAVERSAL_TIME.
        let min_life = (now + 2 * self.p.net_traversal_time())
            .saturating_sub(2 * Time::from(hops) * self.p.node_traversal_time);
        let o = Offer {
            dest: r.orig,
            seqno: Some(r.orig_seqno),
            hops,
            next_hop: from,
            lifetime: min_life,
        };
        if !self.table.offer(now, o, dp) {
            self.table.refresh(now, r.orig, min_life, dp);
        }
        self.route_ready(now, r.orig);
        if r.dest == self.me {
            // §6.1 and §6.6.1: the destination's sequence number becomes at least the
            // one the RREQ asks for.
            if !r.unknown_seqno && seq_newer(r.dest_seqno, self.seqno) {
                self.seqno = r.dest_seqno;
            }
            let rrep = Rrep {
                repair: false,
                ack_required: false,
                prefix_size: 0,
                hop_count: 0,
                dest: self.me,
                dest_seqno: self.seqno,
                orig: r.orig,
                lifetime_ms: (self.p.my_route_timeout() / MILLIS) as u32,
            };
            self.send_rrep(now, rrep);
            return;
        }
        // §6.6.2: an intermediate node with a fresh enough active route replies.
        let fresh = self
            .table
            .valid(now, r.dest, dp)
            .filter(|d| d.seqno_valid && !seq_newer(r.dest_seqno, d.seqno))
            .map(|d| (d.hops, d.seqno, d.next_hop, d.lifetime));
        if let (false, Some((dhops, dseq, dnext, dlife))) = (r.dest_only, fresh) {
            let back = self
                .table
                .valid(now, r.orig, dp)
                .map(|o| (o.next_hop, o.hops, o.lifetime));
            if let Some((onext, ohops, olife)) = back {
                self.table.add_precursor(r.dest, onext);
                self.table.add_precursor(r.orig, dnext);
                let rrep = Rrep {
                    repair: false,
                    ack_required: false,
                    prefix_size: 0,
                    hop_count: dhops,
                    dest: r.dest,
                    dest_seqno: dseq,
                    orig: r.orig,
                    lifetime_ms: (dlife.saturating_sub(now) / MILLIS) as u32,
                };
                self.send_rrep(now, rrep);
                if r.gratuitous {
                    // §6.6.3: the destination learns the route to the originator.
                    let g = Rrep {
                        repair: false,
                        ack_required: false,
                        prefix_size: 0,
                        hop_count: ohops,
                        dest: r.orig,
                        dest_seqno: r.orig_seqno,
                        orig: r.dest,
                        lifetime_ms: (olife.saturating_sub(now) / MILLIS) as u32,
                    };
                    self.stats.rrep_tx += 1;
                    self.out.push_back(Output::Send {
                        to: dnext,
                        ttl: self.p.net_diameter,
                        msg: AodvMsg::Rrep(g),
                    });
                }
                return;
            }
        }
        // §6.5: rebroadcast while the IP TTL allows, with the hop count incremented and
        // the destination sequence number the larger of the RREQ's and ours.
        if ttl > 1 {
            let mut f = r;
            f.hop_count = hops;
            if let Some(d) = self.table.get(now, r.dest, dp) {
                if d.seqno_valid && seq_newer(d.seqno, f.dest_seqno) {
                    f.dest_seqno = d.seqno;
                }
            }
            let jitter = if self.p.jitter > 0 {
                (rng.uniform() * self.p.jitter as f64) as Time
            } else {
                0
            };
            self.delayed.push((now + jitter, ttl - 1, AodvMsg::Rreq(f)));
        }
    }

    // ---- RREP (§6.6, §6.7) and HELLO (§6.9) ----

    /// Unicasts `rrep` towards its originator.
    fn send_rrep(&mut self, now: Time, rrep: Rrep) {
        let dp = self.p.delete_period();
        let Some(back) = self.table.valid(now, rrep.orig, dp) else {
            return;
        };
        let to = back.next_hop;
        self.table.add_precursor(rrep.dest, to);
        self.stats.rrep_tx += 1;
        self.out.push_back(Output::Send {
            to,
            ttl: self.p.net_diameter,
            msg: AodvMsg::Rrep(rrep),
        });
    }

    fn recv_rrep(&mut self, now: Time, from: NodeId, r: Rrep) {
        let dp = self.p.delete_period();
        self.neighbour_route(now, from);
        let hops = r.hop_count.saturating_add(1);
        // §6.7: the forward route is created or updated by §6.2's rule.
        let o = Offer {
            dest: r.dest,
            seqno: Some(r.dest_seqno),
            hops,
            next_hop: from,
            lifetime: now + Time::from(r.lifetime_ms) * MILLIS,
        };
        let taken = self.table.offer(now, o, dp);
        if r.orig == self.me {
            self.route_ready(now, r.dest);
            return;
        }
        // §6.7 forwards the RREP if the forward route was "created or updated"; a reply
        // as fresh as the route held (same sequence number, not fewer hops) is forwarded
        // too, as ns-3 does: the destination keeps its sequence number between replies
        // (§6.6.1), so a second originator's reply would otherwise stop here. Only a
        // reply older than the route held stops.
        let stale = self
            .table
            .get(now, r.dest, dp)
            .is_some_and(|d| d.seqno_valid && seq_newer(d.seqno, r.dest_seqno));
        if !taken && stale {
            return;
        }
        let until = now + self.p.active_route_timeout;
        let Some(back) = self.table.valid(now, r.orig, dp) else {
            return; // no reverse route: the RREP goes no further
        };
        back.lifetime = back.lifetime.max(until);
        let to = back.next_hop;
        // §6.7: precursors of the destination and of the next hop towards it.
        self.table.add_precursor(from, to);
        self.table.add_precursor(r.orig, from);
        let mut f = r;
        f.hop_count = hops;
        self.send_rrep(now, f);
        self.route_ready(now, r.dest);
    }

    fn recv_hello(&mut self, now: Time, from: NodeId, r: Rrep) {
        let dp = self.p.delete_period();
        let life = now + self.p.hello_lifetime();
        let o = Offer {
            dest: from,
            seqno: Some(r.dest_seqno),
            hops: 1,
            next_hop: from,
            lifetime: life,
        };
        self.table.offer(now, o, dp);
        if let Some(n) = self
            .table
            .valid(now, from, dp)
            .filter(|n| n.next_hop == from)
        {
            n.lifetime = n.lifetime.max(life);
            if !n.seqno_valid || seq_newer(r.dest_seqno, n.seqno) {
                n.seqno = r.dest_seqno;
                n.seqno_valid = true;
            }
        }
        if self.p.hello {
            match self.heard.iter_mut().find(|h| h.0 == from) {
                Some(h) => h.1 = h.1.max(life),
                None => self.heard.push((from, life)),
            }
        }
        self.route_ready(now, from);
    }

    /// §6.9: on an active route and no broadcast for HELLO_INTERVAL, a HELLO.
    fn maybe_hello(&mut self, now: Time) {
        let dp = self.p.delete_period();
        let quiet = self
            .last_broadcast
            .is_none_or(|t| t + self.p.hello_interval <= now);
        if !quiet || !self.table.any_valid(now, dp) {
            return;
        }
        let hello = Rrep {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count: 0,
            dest: self.me,
            dest_seqno: self.seqno,
            orig: self.me,
            lifetime_ms: (self.p.hello_lifetime() / MILLIS) as u32,
        };
        self.stats.hello_tx += 1;
        self.last_broadcast = Some(now);
        self.out.push_back(Output::Send {
            to: BROADCAST,
            ttl: 1,
            msg: AodvMsg::Rrep(hello),
        });
    }

    // ---- RERR (§6.11) ----

    fn precursors_of(&mut self, now: Time, dest: NodeId) -> Vec<NodeId> {
        let dp = self.p.delete_period();
        self.table
            .get(now, dest, dp)
            .map(|r| r.precursors.to_vec())
            .unwrap_or_default()
    }

    fn recv_rerr(&mut self, now: Time, from: NodeId, e: &Rerr) {
        if e.no_delete {
            return; // §6.12: the route is being repaired upstream; keep it
        }
        let dp = self.p.delete_period();
        let mut lost = Vec::new();
        let mut to = Vec::new();
        for &(d, s) in &e.unreachable {
            let Some(r) = self.table.valid(now, d, dp) else {
                continue;
            };
            if r.next_hop != from {
                continue;
            }
            r.state = RouteState::Invalid;
            r.seqno = s;
            r.seqno_valid = true;
            r.lifetime = now + dp;
            if !r.precursors.is_empty() {
                lost.push((d, s));
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

    /// A RERR listing `lost` to the neighbours `to`: unicast to one, broadcast to
    /// several (§6.11), at most RERR_RATELIMIT per second (the rest are not sent).
    fn send_rerr(&mut self, now: Time, lost: Vec<(NodeId, u32)>, to: Vec<NodeId>) {
        if lost.is_empty() || to.is_empty() || !self.rerr_rate.allow(now) {
            return;
        }
        let dest = if to.len() == 1 { to[0] } else { BROADCAST };
        for chunk in lost.chunks(255) {
            self.stats.rerr_tx += 1;
            if dest == BROADCAST {
                self.last_broadcast = Some(now);
            }
            self.out.push_back(Output::Send {
                to: dest,
                ttl: 1,
                msg: AodvMsg::Rerr(Rerr {
                    no_delete: false,
                    unreachable: chunk.to_vec(),
                }),
            });
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
