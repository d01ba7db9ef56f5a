//! RREQ processing (RFC 3561 §6.5, §6.6): duplicate suppression for PATH_DISCOVERY_TIME,
//! the reverse route, and the reply of the destination or of an intermediate node with a
//! fresh enough route.

use super::*;

impl Aodv {
    pub(super) fn seen(&mut self, now: Time, orig: NodeId, id: u32) -> bool {
        while self.seen.front().is_some_and(|s| s.2 <= now) {
            self.seen.pop_front();
        }
        self.seen.iter().any(|s| s.0 == orig && s.1 == id)
    }

    pub(super) fn remember(&mut self, now: Time, orig: NodeId, id: u32) {
        self.seen
            .push_back((orig, id, now + self.p.path_discovery_time()));
    }

    /// §6.5 (and §6.2): a route to the neighbour a message came from, without a
    /// sequence number.
    pub(super) fn neighbour_route(&mut self, now: Time, from: NodeId) {
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

    pub(super) fn recv_rreq(&mut self, now: Time, from: NodeId, ttl: u8, r: Rreq, rng: &mut Rng) {
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
        // ns-3 3.44 (`routing.aodv.rreq_revalidates_route = false`): an invalid entry
        // takes the RREQ's fields and a later deletion time but stays invalid.
        let kept_invalid = if self.p.rreq_revalidates_route {
            None
        } else {
            self.table
                .get(now, r.orig, dp)
                .filter(|x| x.state == RouteState::Invalid)
                .map(|x| x.lifetime)
        };
        if !self.table.offer(now, o, dp) {
            self.table.refresh(now, r.orig, min_life, dp);
        }
        if let (Some(deletion), Some(x)) = (kept_invalid, self.table.get(now, r.orig, dp)) {
            x.state = RouteState::Invalid;
            x.lifetime = deletion.max(min_life);
        }
        self.route_ready(now, r.orig);
        if r.dest == self.me {
            // §6.1 and §6.6.1: the destination's sequence number becomes at least the
            // one the RREQ asks for.
            if !r.unknown_seqno && seq_newer(r.dest_seqno, self.seqno) {
                self.seqno = r.dest_seqno;
            }
            let rrep = Rrep::new(self.me, self.seqno, r.orig, 0, self.p.my_route_timeout());
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
                let rrep = Rrep::new(r.dest, dseq, r.orig, dhops, dlife.saturating_sub(now));
                self.send_rrep(now, rrep);
                if r.gratuitous {
                    // §6.6.3: the destination learns the route to the originator.
                    let g = Rrep::new(
                        r.orig,
                        r.orig_seqno,
                        r.dest,
                        ohops,
                        olife.saturating_sub(now),
                    );
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
}
