//! RREP forwarding and the forward route (RFC 3561 §6.6, §6.7), and HELLO messages (§6.9).

use super::*;

impl Aodv {
    /// Unicasts `rrep` towards its originator.
    pub(super) fn send_rrep(&mut self, now: Time, rrep: Rrep) {
        let Some(back) = self.reverse_route(now, rrep.orig) else {
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

    /// The route a RREP to `orig` travels: the valid one (§6.6, §6.7), or with
    /// `rreq_revalidates_route` off, whatever entry is left, as ns-3 3.44's `SendReply`
    /// and `RecvReply` take it (`LookupRoute`, which does not ask for a valid route).
    fn reverse_route(&mut self, now: Time, orig: NodeId) -> Option<&mut Route> {
        let dp = self.p.delete_period();
        if self.p.rreq_revalidates_route {
            self.table.valid(now, orig, dp)
        } else {
            self.table.get(now, orig, dp)
        }
    }

    pub(super) fn recv_rrep(&mut self, now: Time, from: NodeId, r: Rrep) {
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
        let Some(back) = self.reverse_route(now, r.orig) else {
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

    pub(super) fn recv_hello(&mut self, now: Time, from: NodeId, r: Rrep) {
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
    pub(super) fn maybe_hello(&mut self, now: Time) {
        let dp = self.p.delete_period();
        let quiet = self
            .last_broadcast
            .is_none_or(|t| t + self.p.hello_interval <= now);
        if !quiet || !self.table.any_valid(now, dp) {
            return;
        }
        let hello = Rrep::new(self.me, self.seqno, self.me, 0, self.p.hello_lifetime());
        self.stats.hello_tx += 1;
        self.last_broadcast = Some(now);
        self.out.push_back(Output::Send {
            to: BROADCAST,
            ttl: 1,
            msg: AodvMsg::Rrep(hello),
        });
    }
}
