//! The routing graph: the radio links usable in both directions, each with its ETX, and
//! shortest-path trees over it.

use crate::phy::Channel;
use crate::scenario::schema::RouteMetric;
use crate::wire::NodeId;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// No node (no next hop, unreachable).
pub(crate) const NONE: NodeId = u32::MAX;

/// A usable directed link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    /// The node the link reaches.
    pub to: NodeId,
    /// Its cost in the routing metric: 1 for hop count, its ETX otherwise.
    pub cost: f64,
    /// Expected transmission count 1 / (d_f · d_r) (De Couto et al., MobiCom 2003 §3:
    /// forward delivery of the data frame, reverse delivery of its MAC ACK).
    pub etx: f64,
    /// The channel's delivery probability of a data frame over the link (d_f): the
    /// routing's estimate of the link, which a coding scheme may start its own from.
    pub delivery: f64,
}

/// Usable links for routing: both directions must get frames through (the data frame
/// and its MAC ACK) with a delivery probability of at least `min_delivery`.
pub fn routing_graph(
    ch: &Channel,
    n: usize,
    metric: RouteMetric,
    min_delivery: f64,
) -> Vec<Vec<Edge>> {
    let mut adj = vec![Vec::new(); n];
    for (a, out) in adj.iter_mut().enumerate() {
        for l in ch.links_from(a as u32) {
            let (pf, pr) = (
                ch.delivery_prob(a as u32, l.to),
                ch.delivery_prob(l.to, a as u32),
            );
            if pf < min_delivery || pr < min_delivery {
                continue;
            }
            let etx = 1.0 / (pf * pr);
            let cost = match metric {
                RouteMetric::Hops => 1.0,
                RouteMetric::Etx => etx,
            };
            out.push(Edge {
                to: l.to,
                cost,
                etx,
                delivery: pf,
            });
        }
    }
    adj
}

/// Shortest paths from every node towards one node.
#[derive(Debug, Clone)]
pub(crate) struct Tree {
    /// next[v]: the neighbour of v on its shortest path towards the root (NONE: none).
    pub next: Vec<NodeId>,
    /// dist[v]: the length of that path (infinite: unreachable).
    pub dist: Vec<f64>,
}

#[derive(PartialEq)]
struct Item(f64, NodeId);
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then_with(|| o.1.cmp(&self.1))
    }
}

/// Dijkstra from `root` over reversed links, with link lengths `weight`; ties go to the
/// lower node id so results do not depend on iteration order.
pub(crate) fn tree_towards(adj: &[Vec<Edge>], root: NodeId, weight: impl Fn(&Edge) -> f64) -> Tree {
    let n = adj.len();
    // reverse adjacency: who can send to v
    let mut radj: Vec<Vec<(NodeId, f64)>> = vec![Vec::new(); n];
    for (u, es) in adj.iter().enumerate() {
        for e in es {
            radj[e.to as usize].push((u as NodeId, weight(e)));
        }
    }
    let mut dist = vec![f64::INFINITY; n];
    let mut next = vec![NONE; n];
    let mut heap = BinaryHeap::new();
    dist[root as usize] = 0.0;
    heap.push(Item(0.0, root));
    while let Some(Item(d, v)) = heap.pop() {
        if d > dist[v as usize] {
            continue;
        }
        for &(u, c) in &radj[v as usize] {
            let nd = d + c;
            let du = &mut dist[u as usize];
            let better = nd < *du - 1e-9 || ((nd - *du).abs() <= 1e-9 && v < next[u as usize]);
            if better {
                *du = nd.min(*du);
                next[u as usize] = v;
                heap.push(Item(*du, u));
            }
        }
    }
    Tree { next, dist }
}
