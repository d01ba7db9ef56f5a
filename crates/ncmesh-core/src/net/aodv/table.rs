//! AODV's route table (RFC 3561 §6.1-6.2): per destination its sequence number and
//! whether it is valid, the hop count, the next hop, the precursors and the lifetime.
//! Rows are indexed by node number (no hashing); a route whose lifetime has passed is
//! invalidated when next looked at.

use crate::engine::Time;
use crate::wire::NodeId;
use smallvec::SmallVec;

/// Is sequence number `a` fresher than `b` (RFC 3561 §6.1: signed 32-bit arithmetic)?
pub fn seq_newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// The state of a route table entry (§6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteState {
    /// Usable to forward data (an active route while its lifetime runs).
    Valid,
    /// Broken or expired: kept until its lifetime (now DELETE_PERIOD) for its
    /// sequence number and hop count.
    Invalid,
    /// Being repaired locally (§6.12): not usable, packets for it wait.
    Repairing,
}

/// One route table entry (§2 "route table entry").
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Destination sequence number.
    pub seqno: u32,
    /// Is `seqno` known ("valid destination sequence number flag")?
    pub seqno_valid: bool,
    /// Valid, invalid or being repaired.
    pub state: RouteState,
    /// Hops to the destination.
    pub hops: u8,
    /// Next hop towards it.
    pub next_hop: NodeId,
    /// Expiry (valid) or deletion time (invalid).
    pub lifetime: Time,
    /// Neighbours that route through this node to the destination (§6.2).
    pub precursors: SmallVec<[NodeId; 4]>,
}

impl Route {
    /// The route broke or a packet for it found none (§6.11 cases (i) and (ii)): its
    /// known sequence number is incremented, unless `increment` is off (ns-3 3.44
    /// keeps it: `routing.aodv.increment_seqno_on_break`).
    pub fn on_break(&mut self, increment: bool) {
        if self.seqno_valid && increment {
            self.seqno = self.seqno.wrapping_add(1);
        }
    }
}

/// A route learnt from a message, offered to the table (§6.2).
#[derive(Debug, Clone, Copy)]
pub struct Offer {
    /// Destination.
    pub dest: NodeId,
    /// Its sequence number, if the message carries a valid one.
    pub seqno: Option<u32>,
    /// Hop count.
    pub hops: u8,
    /// Next hop (the neighbour the message came from).
    pub next_hop: NodeId,
    /// Lifetime to set (the later of this and the existing one for a kept route).
    pub lifetime: Time,
}

/// The route table of one node.
#[derive(Debug, Clone, Default)]
pub struct Table {
    rows: Vec<Option<Route>>,
}

impl Table {
    /// The entry for `dest`, whatever its state, unless deleted (DELETE_PERIOD over).
    pub fn get(&mut self, now: Time, dest: NodeId, delete_period: Time) -> Option<&mut Route> {
        let row = self.rows.get_mut(dest as usize)?;
        if let Some(r) = row {
            if r.lifetime <= now {
                match r.state {
                    // §6.11: an expired active route becomes invalid for DELETE_PERIOD.
                    RouteState::Valid => {
                        r.state = RouteState::Invalid;
                        r.lifetime += delete_period;
                        if r.lifetime <= now {
                            *row = None;
                        }
                    }
                    RouteState::Invalid => *row = None,
                    RouteState::Repairing => {}
                }
            }
        }
        row.as_mut()
    }

    /// The entry for `dest` as stored (expiry not applied).
    pub fn peek(&self, dest: NodeId) -> Option<&Route> {
        self.rows.get(dest as usize)?.as_ref()
    }

    /// The valid (active) route to `dest`, if any.
    pub fn valid(&mut self, now: Time, dest: NodeId, delete_period: Time) -> Option<&mut Route> {
        self.get(now, dest, delete_period)
            .filter(|r| r.state == RouteState::Valid)
    }

    fn slot(&mut self, dest: NodeId) -> &mut Option<Route> {
        let i = dest as usize;
        if self.rows.len() <= i {
            self.rows.resize(i + 1, None);
        }
        &mut self.rows[i]
    }

    /// Creates or updates the route to `o.dest` by RFC 3561 §6.2's rule: a new route is
    /// taken if the table has none, or its sequence number is unknown, or the offer's is
    /// newer, or equal with the route invalid or with fewer hops. An offer without a
    /// sequence number (a route to a neighbour) is taken if the existing route is not
    /// valid or has more hops, keeping the known sequence number. Returns whether the
    /// route was updated. A taken route is valid with lifetime max(existing, o.lifetime)
    /// when it keeps the same next hop, o.lifetime otherwise.
    pub fn offer(&mut self, now: Time, o: Offer, delete_period: Time) -> bool {
        let cur = self.get(now, o.dest, delete_period).cloned();
        let take = match (&cur, o.seqno) {
            (None, _) => true,
            (Some(r), Some(s)) => {
                !r.seqno_valid
                    || seq_newer(s, r.seqno)
                    || (s == r.seqno && (r.state != RouteState::Valid || o.hops < r.hops))
            }
            (Some(r), None) => r.state != RouteState::Valid || o.hops <= r.hops,
        };
        if !take {
            return false;
        }
        let (seqno, seqno_valid) = match (o.seqno, &cur) {
            (Some(s), _) => (s, true),
            (None, Some(r)) => (r.seqno, r.seqno_valid),
            (None, None) => (0, false),
        };
        let keep_life = cur
            .as_ref()
            .filter(|r| r.state == RouteState::Valid && r.next_hop == o.next_hop)
            .map_or(0, |r| r.lifetime);
        let precursors = cur.map(|r| r.precursors).unwrap_or_default();
        *self.slot(o.dest) = Some(Route {
            seqno,
            seqno_valid,
            state: RouteState::Valid,
            hops: o.hops,
            next_hop: o.next_hop,
            lifetime: o.lifetime.max(keep_life),
            precursors,
        });
        true
    }

    /// Adds `p` to the precursors of the route to `dest` (§6.2), if it exists.
    pub fn add_precursor(&mut self, dest: NodeId, p: NodeId) {
        if let Some(Some(r)) = self.rows.get_mut(dest as usize) {
            if !r.precursors.contains(&p) {
                r.precursors.push(p);
            }
        }
    }

    /// Extends the lifetime of a valid route to `dest` to at least `until` (§6.2).
    pub fn refresh(&mut self, now: Time, dest: NodeId, until: Time, delete_period: Time) {
        if let Some(r) = self.valid(now, dest, delete_period) {
            r.lifetime = r.lifetime.max(until);
        }
    }

    /// Every destination with a valid route through `next_hop`, in node order.
    pub fn valid_via(&mut self, now: Time, next_hop: NodeId, delete_period: Time) -> Vec<NodeId> {
        (0..self.rows.len() as NodeId)
            .filter(|&d| {
                self.valid(now, d, delete_period)
                    .is_some_and(|r| r.next_hop == next_hop)
            })
            .collect()
    }

    /// Any valid route (the node is on an active route, §6.9)?
    pub fn any_valid(&mut self, now: Time, delete_period: Time) -> bool {
        (0..self.rows.len() as NodeId).any(|d| self.valid(now, d, delete_period).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DP: Time = 1000;

    fn offer(seqno: Option<u32>, hops: u8, next_hop: NodeId) -> Offer {
        Offer {
            dest: 5,
            seqno,
            hops,
            next_hop,
            lifetime: 100,
        }
    }

    #[test]
    fn sequence_numbers_compare_with_wraparound() {
        assert!(seq_newer(2, 1));
        assert!(!seq_newer(1, 1));
        assert!(seq_newer(0, u32::MAX), "0 follows 2^32 - 1");
        assert!(!seq_newer(u32::MAX, 0));
    }

    #[test]
    fn fresher_wins_then_fewer_hops_at_equal_seqno() {
        let mut t = Table::default();
        assert!(t.offer(0, offer(Some(4), 3, 1), DP));
        assert!(!t.offer(0, offer(Some(3), 1, 2), DP), "older seqno loses");
        assert!(
            !t.offer(0, offer(Some(4), 3, 2), DP),
            "equal seqno, equal hops"
        );
        assert!(
            !t.offer(0, offer(Some(4), 4, 2), DP),
            "equal seqno, more hops"
        );
        assert!(
            t.offer(0, offer(Some(4), 2, 2), DP),
            "equal seqno, fewer hops"
        );
        assert_eq!(t.valid(0, 5, DP).unwrap().next_hop, 2);
        assert!(
            t.offer(0, offer(Some(5), 9, 3), DP),
            "newer seqno, more hops"
        );
        let r = t.valid(0, 5, DP).unwrap();
        assert_eq!((r.seqno, r.hops, r.next_hop), (5, 9, 3));
        // An invalid route takes an equal sequence number.
        t.get(0, 5, DP).unwrap().state = RouteState::Invalid;
        assert!(t.offer(0, offer(Some(5), 9, 4), DP));
    }

    #[test]
    fn an_expired_route_is_invalid_then_deleted() {
        let mut t = Table::default();
        t.offer(0, offer(Some(1), 1, 1), DP);
        assert!(t.valid(99, 5, DP).is_some());
        assert!(t.valid(100, 5, DP).is_none());
        assert_eq!(t.get(100, 5, DP).unwrap().state, RouteState::Invalid);
        assert!(
            t.get(100 + DP, 5, DP).is_none(),
            "deleted after DELETE_PERIOD"
        );
    }

    #[test]
    fn an_offer_without_seqno_keeps_the_known_one() {
        let mut t = Table::default();
        t.offer(0, offer(Some(7), 2, 1), DP);
        assert!(t.offer(0, offer(None, 1, 5), DP));
        let r = t.valid(0, 5, DP).unwrap();
        assert_eq!((r.seqno, r.seqno_valid, r.hops), (7, true, 1));
    }
}
