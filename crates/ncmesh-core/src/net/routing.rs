//! Static routing: shortest paths by hop count or ETX towards every destination that
//! carries traffic, explicit per-flow routes, and k node-disjoint paths per flow.

use super::packet::NodeId;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;

/// A usable directed link and its cost (1 for hop count, ETX otherwise).
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    pub to: NodeId,
    pub cost: f64,
}

pub struct Routes {
    /// Out-edges per node.
    adj: Vec<Vec<Edge>>,
    /// destination node -> row in `next`, or NONE if no table was built for it.
    dst_row: Vec<u32>,
    /// next[row][node] = next hop from node towards that destination.
    next: Vec<Vec<NodeId>>,
    /// Explicit forward paths per flow (reverse traffic follows them backwards).
    explicit: Vec<Option<Vec<NodeId>>>,
    /// Up to k node-disjoint forward paths per flow, for multipath schemes.
    multipath: Vec<Vec<Vec<NodeId>>>,
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

impl Routes {
    /// Builds next-hop tables towards each node of `destinations`.
    pub fn new(adj: Vec<Vec<Edge>>, destinations: &[NodeId], flows: usize) -> Routes {
        let n = adj.len();
        let mut r = Routes {
            adj,
            dst_row: vec![NONE; n],
            next: Vec::new(),
            explicit: vec![None; flows],
            multipath: vec![Vec::new(); flows],
        };
        for &d in destinations {
            if r.dst_row[d as usize] == NONE {
                r.dst_row[d as usize] = r.next.len() as u32;
                let t = r.tree_towards(d, &[]);
                r.next.push(t);
            }
        }
        r
    }

    pub fn node_count(&self) -> usize {
        self.adj.len()
    }

    pub fn edges(&self, n: NodeId) -> &[Edge] {
        &self.adj[n as usize]
    }

    /// Dijkstra from `dst` over reversed links; ties go to the lower node id so results
    /// do not depend on iteration order. `banned` nodes are not used as relays.
    fn tree_towards(&self, dst: NodeId, banned: &[bool]) -> Vec<NodeId> {
        let n = self.adj.len();
        // reverse adjacency: who can send to v
        let mut radj: Vec<Vec<(NodeId, f64)>> = vec![Vec::new(); n];
        for (u, es) in self.adj.iter().enumerate() {
            for e in es {
                radj[e.to as usize].push((u as NodeId, e.cost));
            }
        }
        let mut dist = vec![f64::INFINITY; n];
        let mut next = vec![NONE; n];
        let mut heap = BinaryHeap::new();
        dist[dst as usize] = 0.0;
        heap.push(Item(0.0, dst));
        while let Some(Item(d, v)) = heap.pop() {
            if d > dist[v as usize] {
                continue;
            }
            if v != dst && banned.get(v as usize).copied().unwrap_or(false) {
                continue; // may be reached, but nothing is routed through it
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
        next
    }

    /// Computes and keeps up to `k` node-disjoint paths for `flow` (src -> dst).
    pub fn set_multipath(&mut self, flow: u32, src: NodeId, dst: NodeId, k: usize) {
        self.multipath[flow as usize] = self.disjoint_paths(src, dst, k);
    }

    /// The node-disjoint paths kept for `flow` (routing.disjoint_paths of them at most).
    pub fn flow_paths(&self, flow: u32) -> &[Vec<NodeId>] {
        &self.multipath[flow as usize]
    }

    /// Fixes the route of `flow` to `path` = [src, ..., dst].
    pub fn set_explicit(&mut self, flow: u32, path: Vec<NodeId>) {
        self.explicit[flow as usize] = Some(path);
    }

    /// Next hop at `at` for a packet of `flow` going to `dst`.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId, flow: u32) -> Option<NodeId> {
        if let Some(Some(p)) = self.explicit.get(flow as usize) {
            let i = p.iter().position(|&x| x == at)?;
            return if Some(&dst) == p.last() {
                p.get(i + 1).copied()
            } else if Some(&dst) == p.first() {
                i.checked_sub(1).map(|j| p[j])
            } else {
                None
            };
        }
        let row = self.dst_row[dst as usize];
        if row == NONE {
            return None;
        }
        let h = self.next[row as usize][at as usize];
        (h != NONE).then_some(h)
    }

    /// The path a packet of `flow` takes from src to dst, if complete.
    pub fn path(&self, src: NodeId, dst: NodeId, flow: u32) -> Option<Vec<NodeId>> {
        let mut p = vec![src];
        let mut at = src;
        while at != dst {
            at = self.next_hop(at, dst, flow)?;
            if p.len() > self.adj.len() {
                return None; // loop
            }
            p.push(at);
        }
        Some(p)
    }

    /// Up to k node-disjoint paths src -> dst: repeatedly the shortest path avoiding the
    /// relays of the paths already found.
    pub fn disjoint_paths(&self, src: NodeId, dst: NodeId, k: usize) -> Vec<Vec<NodeId>> {
        let n = self.adj.len();
        let mut banned = vec![false; n];
        let mut out = Vec::new();
        while out.len() < k {
            let next = self.tree_towards(dst, &banned);
            let mut p = vec![src];
            let mut at = src;
            let mut ok = true;
            while at != dst {
                let h = next[at as usize];
                if h == NONE || p.len() > n {
                    ok = false;
                    break;
                }
                p.push(h);
                at = h;
            }
            if !ok || out.contains(&p) {
                break;
            }
            for &v in &p[1..p.len() - 1] {
                banned[v as usize] = true;
            }
            let direct = p.len() == 2;
            out.push(p);
            if direct {
                break; // the direct link cannot be used twice
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn undirected(n: usize, links: &[(u32, u32)]) -> Vec<Vec<Edge>> {
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in links {
            adj[a as usize].push(Edge { to: b, cost: 1.0 });
            adj[b as usize].push(Edge { to: a, cost: 1.0 });
        }
        adj
    }

    #[test]
    fn chain_next_hops() {
        let r = Routes::new(undirected(5, &[(0, 1), (1, 2), (2, 3), (3, 4)]), &[0, 4], 1);
        assert_eq!(r.path(0, 4, 0), Some(vec![0, 1, 2, 3, 4]));
        assert_eq!(r.path(4, 0, 0), Some(vec![4, 3, 2, 1, 0]));
        assert_eq!(r.next_hop(2, 3, 0), None, "no table towards 3");
    }

    #[test]
    fn ties_break_to_lower_id_and_etx_prefers_good_links() {
        // 0 -> {1,2} -> 3
        let r = Routes::new(undirected(4, &[(0, 2), (0, 1), (1, 3), (2, 3)]), &[3], 1);
        assert_eq!(r.path(0, 3, 0), Some(vec![0, 1, 3]));
        // make the links through node 1 lossy (ETX 3 each way)
        let mut adj = undirected(4, &[(0, 1), (1, 3), (0, 2), (2, 3)]);
        for (u, es) in adj.iter_mut().enumerate() {
            for e in es.iter_mut() {
                if u == 1 || e.to == 1 {
                    e.cost = 3.0;
                }
            }
        }
        let r = Routes::new(adj, &[3], 1);
        assert_eq!(r.path(0, 3, 0), Some(vec![0, 2, 3]));
    }

    #[test]
    fn explicit_route_both_directions() {
        let mut r = Routes::new(undirected(4, &[(0, 1), (1, 3), (0, 2), (2, 3)]), &[0, 3], 1);
        r.set_explicit(0, vec![0, 2, 3]);
        assert_eq!(r.path(0, 3, 0), Some(vec![0, 2, 3]));
        assert_eq!(r.path(3, 0, 0), Some(vec![3, 2, 0]));
    }

    #[test]
    fn flow_multipath_is_kept_per_flow() {
        let mut r = Routes::new(
            undirected(6, &[(0, 1), (1, 2), (2, 5), (0, 3), (3, 4), (4, 5)]),
            &[0, 5],
            2,
        );
        r.set_multipath(1, 0, 5, 2);
        assert_eq!(r.flow_paths(1), &[vec![0, 1, 2, 5], vec![0, 3, 4, 5]]);
        assert!(r.flow_paths(0).is_empty());
    }

    #[test]
    fn disjoint_paths_in_a_ladder() {
        // two parallel 2-relay paths and a cross link
        let r = Routes::new(
            undirected(6, &[(0, 1), (1, 2), (2, 5), (0, 3), (3, 4), (4, 5), (1, 4)]),
            &[5],
            1,
        );
        let ps = r.disjoint_paths(0, 5, 3);
        assert_eq!(ps.len(), 2);
        let relays: Vec<u32> = ps.iter().flat_map(|p| p[1..p.len() - 1].to_vec()).collect();
        let mut dedup = relays.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(relays.len(), dedup.len(), "paths share a relay: {ps:?}");
    }
}
