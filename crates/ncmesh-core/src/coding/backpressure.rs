//! A flow's downstream neighbours for back-pressure forwarding: what each last advertised
//! (its backlog for the flow and, for Horizon, its cost to the destination), for how long
//! an advertisement counts, the hand-over count that stands in for a fresh one, and whose
//! turn it is on a tie. One mechanism behind CoMP's Alg. 2 (Gheorghiu et al. §II-D: the
//! neighbour with the smallest advertised queue among those below the node's own) and
//! Horizon's forwarding (Radunović et al.: the lowest link ETX plus advertised cost among
//! those the backlog condition admits).

use crate::engine::Time;
use crate::net::NodeId;
use smallvec::SmallVec;

/// What a neighbour advertised for one flow direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Advert {
    /// Packets it holds for the flow (CoMP: combinations owed).
    pub backlog: u32,
    /// Its cost to the destination (Horizon; 0 where the scheme advertises none).
    pub cost: f64,
    /// When the advertisement runs out.
    pub until: Time,
}

/// One downstream neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbour {
    /// The node.
    pub node: NodeId,
    /// Expected transmissions of the link to it (0 where the scheme does not weigh links).
    pub etx: f64,
    heard: Option<Advert>,
}

impl Neighbour {
    /// What it last advertised; with `now`, one that has run out counts as none (`now`
    /// None: every advertisement counts, as a scheme's `poll_at` sees them).
    pub fn advert(&self, now: Option<Time>) -> Option<Advert> {
        self.heard.filter(|h| now.is_none_or(|t| h.until > t))
    }
}

/// A flow's downstream neighbours, in routing's order (cheapest first).
#[derive(Debug, Clone, Default)]
pub struct Neighbours {
    list: SmallVec<[Neighbour; 4]>,
    /// Where ties start: the one after the last chosen.
    turn: usize,
}

impl Neighbours {
    /// The neighbours are now `next` (node, link ETX), in that order; one that stays a
    /// neighbour keeps what it advertised.
    pub fn refresh(&mut self, next: impl IntoIterator<Item = (NodeId, f64)>) {
        let list = next
            .into_iter()
            .map(|(node, etx)| Neighbour {
                node,
                etx,
                heard: self.find(node).and_then(|n| n.heard),
            })
            .collect();
        self.list = list;
    }

    /// Is the list the same nodes as `nodes`, in order?
    pub fn is(&self, mut nodes: impl ExactSizeIterator<Item = NodeId>) -> bool {
        nodes.len() == self.list.len() && self.list.iter().all(|n| nodes.next() == Some(n.node))
    }

    fn find(&self, node: NodeId) -> Option<&Neighbour> {
        self.list.iter().find(|n| n.node == node)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Are there none?
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Neighbour `i`.
    pub fn get(&self, i: usize) -> &Neighbour {
        &self.list[i]
    }

    /// Every neighbour, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Neighbour> {
        self.list.iter()
    }

    /// Neighbour `node` advertised `backlog` and `cost`, counting until `until`: returns
    /// whether it is one of these.
    pub fn hear(&mut self, node: NodeId, backlog: u32, cost: f64, until: Time) -> bool {
        let Some(n) = self.list.iter_mut().find(|n| n.node == node) else {
            return false;
        };
        n.heard = Some(Advert {
            backlog,
            cost,
            until,
        });
        true
    }

    /// A packet reached neighbour `node`: until it advertises again, its backlog is one
    /// more and its cost one transmission more than it last said (none in force: 1 and
    /// 1, for `lifetime`).
    pub fn handed(&mut self, node: NodeId, now: Time, lifetime: Time) {
        let Some(n) = self.list.iter_mut().find(|n| n.node == node) else {
            return;
        };
        match &mut n.heard {
            Some(h) if h.until > now => {
                h.backlog += 1;
                h.cost += 1.0;
            }
            slot => {
                *slot = Some(Advert {
                    backlog: 1,
                    cost: 1.0,
                    until: now + lifetime,
                })
            }
        }
    }

    /// The neighbour with the smallest `key` (None: not admitted), the first in turn
    /// from the one after the last chosen on a tie.
    pub fn best<K: PartialOrd>(
        &self,
        now: Option<Time>,
        key: impl Fn(&Neighbour, Option<Advert>) -> Option<K>,
    ) -> Option<usize> {
        let n = self.list.len();
        let mut best: Option<(usize, K)> = None;
        for k in 0..n {
            let i = (self.turn + k) % n;
            let c = &self.list[i];
            let Some(v) = key(c, c.advert(now)) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| v < b.1) {
                best = Some((i, v));
            }
        }
        best.map(|b| b.0)
    }

    /// Neighbour `i` was chosen: ties start after it next time.
    pub fn chose(&mut self, i: usize) {
        self.turn = i + 1;
    }

    /// The first time an advertisement in force runs out (when a node that none of its
    /// neighbours admits may try again), if any is.
    pub fn expiry(&self, now: Option<Time>) -> Option<Time> {
        self.list
            .iter()
            .filter_map(|n| n.advert(now))
            .map(|a| a.until)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> Neighbours {
        let mut n = Neighbours::default();
        n.refresh([(1, 1.0), (2, 1.5), (3, 2.0)]);
        n
    }

    #[test]
    fn advertisements_run_out_and_survive_a_refresh() {
        let mut n = three();
        assert!(n.hear(2, 4, 3.0, 100));
        assert!(!n.hear(9, 4, 3.0, 100), "not a neighbour");
        assert_eq!(n.get(1).advert(Some(99)).map(|a| a.backlog), Some(4));
        assert_eq!(n.get(1).advert(Some(100)), None, "ran out");
        assert_eq!(n.get(1).advert(None).map(|a| a.backlog), Some(4));
        n.refresh([(2, 1.2), (4, 1.0)]);
        assert!(n.is([2, 4].into_iter()));
        assert_eq!(n.get(0).advert(Some(50)).map(|a| a.cost), Some(3.0));
        assert_eq!(n.get(0).etx, 1.2);
        assert_eq!(n.get(1).advert(None), None);
        assert_eq!(n.expiry(Some(50)), Some(100));
        assert_eq!(n.expiry(Some(100)), None);
    }

    #[test]
    fn a_hand_over_raises_the_advertisement_in_force_or_starts_one() {
        let mut n = three();
        n.handed(1, 10, 50);
        assert_eq!(
            n.get(0).advert(Some(10)),
            Some(Advert {
                backlog: 1,
                cost: 1.0,
                until: 60
            })
        );
        n.hear(1, 5, 2.0, 80);
        n.handed(1, 20, 50);
        let a = n.get(0).advert(Some(20)).unwrap();
        assert_eq!(
            (a.backlog, a.cost, a.until),
            (6, 3.0, 80),
            "the advertised lifetime kept"
        );
        n.handed(1, 90, 50);
        assert_eq!(
            n.get(0).advert(Some(90)).unwrap().until,
            140,
            "a fresh one after it ran out"
        );
    }

    #[test]
    fn the_smallest_key_wins_and_ties_go_in_turn() {
        let mut n = three();
        let backlog = |_: &Neighbour, a: Option<Advert>| Some(a.map_or(0, |a| a.backlog));
        assert_eq!(n.best(None, backlog), Some(0));
        n.chose(0);
        assert_eq!(
            n.best(None, backlog),
            Some(1),
            "a tie starts after the last chosen"
        );
        n.chose(2);
        assert_eq!(n.best(None, backlog), Some(0), "wraps around");
        n.hear(1, 0, 0.0, 10);
        n.hear(2, 7, 0.0, 10);
        n.hear(3, 3, 0.0, 10);
        let below = |own: u32| {
            move |_: &Neighbour, a: Option<Advert>| {
                let q = a.map_or(0, |a| a.backlog);
                (q < own).then_some(q)
            }
        };
        assert_eq!(n.best(Some(5), below(5)), Some(0));
        assert_eq!(n.best(Some(20), below(1)), Some(0), "ran out: counts as 0");
        n.hear(1, 9, 0.0, 100);
        assert_eq!(n.best(Some(5), below(5)), Some(2), "only 3 is below 5");
        assert_eq!(n.best(Some(5), below(3)), None);
    }
}
