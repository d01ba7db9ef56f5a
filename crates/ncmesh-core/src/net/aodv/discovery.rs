//! Route discovery (RFC 3561 §6.3, §6.4): the buffer of packets waiting for a route, RREQs
//! with expanding ring search and binary exponential backoff, the rate limit, a local
//! repair's single RREQ (§6.12), and the route found.

use super::*;

/// A route discovery under way (§6.3-6.4) or a local repair (§6.12).
#[derive(Debug, Clone)]
pub(super) struct Discovery {
    pub(super) dest: NodeId,
    /// IP TTL of the last (or next) RREQ.
    pub(super) ttl: u8,
    /// RREQs sent at TTL = NET_DIAMETER after the first (§6.3, at most RREQ_RETRIES).
    pub(super) retries: u32,
    /// When the RREP wait ends (or the rate-limited RREQ may go).
    pub(super) deadline: Time,
    /// A local repair: one RREQ, then a RERR if no reply.
    pub(super) repair: bool,
    /// The RREQ waits for the rate limit (§6.3 RREQ_RATELIMIT).
    pub(super) send_pending: bool,
}

/// At most `limit` messages per second (RREQ_RATELIMIT, RERR_RATELIMIT).
#[derive(Debug, Clone)]
pub(super) struct RateLimit {
    sent: VecDeque<Time>,
    limit: u32,
}

impl RateLimit {
    pub(super) fn new(limit: u32) -> RateLimit {
        RateLimit {
            sent: VecDeque::new(),
            limit: limit.max(1),
        }
    }

    /// May one go at `now`? Counts it if so.
    pub(super) fn allow(&mut self, now: Time) -> bool {
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
    pub(super) fn free_at(&self) -> Time {
        self.sent.front().map_or(0, |&t| t + SECOND)
    }
}

impl Aodv {
    pub(super) fn buffer_packet(&mut self, now: Time, p: Packet) {
        self.stats.buffered += 1;
        if let Some(old) = self.buffer.push(now, p) {
            self.drop_undiscovered(old);
        }
    }

    /// A packet that waited for a route in vain (the buffer's time limit, its room, or a
    /// discovery that failed) leaves with its own drop reason.
    pub(super) fn drop_undiscovered(&mut self, packet: Packet) {
        self.out.push_back(Output::Drop {
            packet,
            why: DropReason::Discovery,
        });
    }

    pub(super) fn drop_buffered(&mut self, dest: NodeId) {
        let mut v = std::mem::take(&mut self.scratch);
        self.buffer.take(dest, &mut v);
        for packet in v.drain(..) {
            self.drop_undiscovered(packet);
        }
        self.scratch = v;
    }

    pub(super) fn start_discovery(&mut self, now: Time, dest: NodeId) {
        let dp = self.p.delete_period();
        // §6.4: the first TTL is the last known hop count plus TTL_INCREMENT, else
        // TTL_START; "thereafter" it grows by TTL_INCREMENT up to TTL_THRESHOLD and
        // NET_DIAMETER follows (`handle_timeout`). A first TTL above TTL_THRESHOLD is
        // still tried with its RING_TRAVERSAL_TIME before NET_DIAMETER, as the text reads
        // and ns-3's AODV does.
        let ttl = match self.table.get(now, dest, dp) {
            Some(r) => r.hops.saturating_add(self.p.ttl_increment),
            None => self.p.ttl_start,
        };
        self.stats.discoveries += 1;
        self.open_discovery(now, dest, ttl, false);
    }

    /// Opens a discovery of `dest` (`repair`: a local repair, §6.12) and sends its first
    /// RREQ now, with `ttl` (at most NET_DIAMETER).
    pub(super) fn open_discovery(&mut self, now: Time, dest: NodeId, ttl: u8, repair: bool) {
        self.discoveries.push(Discovery {
            dest,
            ttl: ttl.min(self.p.net_diameter),
            retries: 0,
            deadline: now,
            repair,
            send_pending: true,
        });
        let i = self.discoveries.len() - 1;
        self.send_rreq(now, i);
    }

    /// Sends the RREQ of discovery `i` now, or when the rate limit allows.
    pub(super) fn send_rreq(&mut self, now: Time, i: usize) {
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

    pub(super) fn repair_failed(&mut self, now: Time, dest: NodeId) {
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
    pub(super) fn route_ready(&mut self, now: Time, dest: NodeId) {
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
}
