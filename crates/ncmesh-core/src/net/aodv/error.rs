//! Route errors (RFC 3561 §6.11): the precursors to tell, a received RERR, and the RERRs
//! sent, rate-limited.

use super::*;

impl Aodv {
    pub(super) fn precursors_of(&mut self, now: Time, dest: NodeId) -> Vec<NodeId> {
        let dp = self.p.delete_period();
        self.table
            .get(now, dest, dp)
            .map(|r| r.precursors.to_vec())
            .unwrap_or_default()
    }

    pub(super) fn recv_rerr(&mut self, now: Time, from: NodeId, e: &Rerr) {
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
    pub(super) fn send_rerr(&mut self, now: Time, lost: Vec<(NodeId, u32)>, to: Vec<NodeId>) {
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
}
