//! Static routing over the routing graph (`graph`): shortest paths by hop count or ETX
//! towards every destination that carries traffic, explicit per-flow routes, up to d
//! reinforced paths per flow (directed diffusion, as CoMP's evaluation uses), path costs
//! in hop count and ETX from any node to any destination, and MORE-style forwarder sets.

use super::graph::{routing_graph, tree_towards, Edge, Tree, NONE};
use crate::phy::Channel;
use crate::scenario::schema::{FlowCfg, Reinforce, RoutingCfg, Spread};
use crate::wire::NodeId;
use smallvec::SmallVec;
use std::cell::OnceCell;

/// One candidate next hop of a packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NextHop {
    /// The neighbour.
    pub node: NodeId,
    /// Cost of the rest of the path through it, in the routing metric (hops or ETX).
    pub cost: f64,
}

/// Every candidate next hop of a packet, cheapest first (one unless the flow has several
/// reinforced paths); under `routing.spread = "round-robin"` the network layer hands a
/// scheme the list rotated to the candidate whose turn it is.
pub type NextHops = SmallVec<[NextHop; 4]>;

/// Distances from a node to a destination in both metrics, whatever the routing uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathCost {
    /// Fewest hops.
    pub hops: u32,
    /// Smallest sum of link ETX values.
    pub etx: f64,
}

/// A flow's fixed path and the routing-metric cost from its first node to each node.
#[derive(Debug, Clone)]
struct Explicit {
    path: Vec<NodeId>,
    cum: Vec<f64>,
}

/// Lazily computed distances towards one destination.
#[derive(Debug, Clone)]
struct Costs {
    hops: Vec<f64>,
    etx: Vec<f64>,
}

/// Routing tables of a network.
pub struct Routes {
    /// Out-edges per node.
    adj: Vec<Vec<Edge>>,
    /// destination node -> row in `trees`, or NONE if no table was built for it.
    dst_row: Vec<u32>,
    /// Routing-metric shortest-path trees towards each traffic destination.
    trees: Vec<Tree>,
    /// Hop-count and ETX distances towards each node, computed when first asked.
    costs: Vec<OnceCell<Costs>>,
    /// Explicit forward paths per flow (reverse traffic follows them backwards).
    explicit: Vec<Option<Explicit>>,
    /// Per flow: its paths (the reinforced ones, or its one route).
    paths: Vec<Vec<Vec<NodeId>>>,
    /// Per flow: its (source, destination).
    ends: Vec<(NodeId, NodeId)>,
    /// How packets use several candidate next hops (`routing.spread`).
    spread: Spread,
    /// Per flow with several paths: (node, downstream neighbour) on any of them.
    fan: Vec<Vec<(NodeId, NodeId)>>,
    /// Per flow with several paths, towards its destination and towards its source: each
    /// node's candidates among `fan`, cheapest first, computed once (the routes do not
    /// change during a run, and a relay asks for every packet it receives).
    fan_hops: Vec<[FanHops; 2]>,
}

/// The candidate next hops of every node for one flow and direction.
#[derive(Debug, Clone, Default)]
struct FanHops {
    /// Per node: where its candidates are in `hops` (empty if it is on no path).
    range: Vec<(u32, u32)>,
    hops: Vec<NextHop>,
}

impl FanHops {
    fn of(&self, at: NodeId) -> &[NextHop] {
        match self.range.get(at as usize) {
            Some(&(start, end)) => &self.hops[start as usize..end as usize],
            None => &[],
        }
    }
}

impl Routes {
    /// Builds next-hop tables towards each node of `destinations`.
    pub fn new(adj: Vec<Vec<Edge>>, destinations: &[NodeId], flows: usize) -> Routes {
        let n = adj.len();
        let mut r = Routes {
            adj,
            dst_row: vec![NONE; n],
            trees: Vec::new(),
            costs: (0..n).map(|_| OnceCell::new()).collect(),
            explicit: vec![None; flows],
            paths: vec![Vec::new(); flows],
            ends: vec![(NONE, NONE); flows],
            spread: Spread::Cheapest,
            fan: vec![Vec::new(); flows],
            fan_hops: vec![Default::default(); flows],
        };
        for &d in destinations {
            if r.dst_row[d as usize] == NONE {
                r.dst_row[d as usize] = r.trees.len() as u32;
                let t = tree_towards(&r.adj, d, |e| e.cost);
                r.trees.push(t);
            }
        }
        r
    }

    /// The routes of a scenario's network: tables towards every flow endpoint, explicit
    /// routes, and `cfg.paths` reinforced paths per flow.
    pub fn build(cfg: &RoutingCfg, flows: &[FlowCfg], ch: &Channel, nodes: usize) -> Routes {
        let mut dests: Vec<u32> = flows.iter().flat_map(|f| [f.src, f.dst]).collect();
        dests.sort_unstable();
        dests.dedup();
        let adj = routing_graph(ch, nodes, cfg.metric, cfg.min_delivery);
        let mut r = Routes::new(adj, &dests, flows.len());
        r.spread = cfg.spread;
        for (i, f) in flows.iter().enumerate() {
            if let Some(p) = &f.route {
                r.set_explicit(i as u32, p.clone());
            }
            r.set_paths(i as u32, f.src, f.dst, cfg.paths as usize, cfg.reinforce);
        }
        r
    }

    /// The usable links out of `n`.
    pub fn edges(&self, n: NodeId) -> &[Edge] {
        &self.adj[n as usize]
    }

    /// The routing's estimate of the delivery probability of a data frame a -> b (None:
    /// not a usable link).
    pub fn link_delivery(&self, a: NodeId, b: NodeId) -> Option<f64> {
        self.adj[a as usize]
            .iter()
            .find(|e| e.to == b)
            .map(|e| e.delivery)
    }

    /// The routing's estimate of the probability that a packet of `flow` from `src` gets
    /// through every hop of its routed path to `dst` (None: no path).
    pub fn path_delivery(&self, src: NodeId, dst: NodeId, flow: u32) -> Option<f64> {
        let p = self.path(src, dst, flow)?;
        p.windows(2)
            .map(|w| self.link_delivery(w[0], w[1]))
            .product()
    }

    fn link_cost(&self, a: NodeId, b: NodeId) -> Option<f64> {
        self.adj[a as usize]
            .iter()
            .find(|e| e.to == b)
            .map(|e| e.cost)
    }

    /// Fixes the route of `flow` to `path` = [src, ..., dst] (consecutive nodes must be
    /// linked).
    pub fn set_explicit(&mut self, flow: u32, path: Vec<NodeId>) {
        let mut cum = Vec::with_capacity(path.len());
        let mut c = 0.0;
        for (i, &v) in path.iter().enumerate() {
            if i > 0 {
                c += self.link_cost(path[i - 1], v).unwrap_or(f64::INFINITY);
            }
            cum.push(c);
        }
        self.explicit[flow as usize] = Some(Explicit { path, cum });
    }

    /// Sets the paths of `flow` (src -> dst): its explicit route if it has one, else up
    /// to `d` reinforced paths (see [`reinforced_paths`](Self::reinforced_paths)); with
    /// d = 1, its one routed path.
    pub fn set_paths(&mut self, flow: u32, src: NodeId, dst: NodeId, d: usize, how: Reinforce) {
        let explicit = self.explicit[flow as usize].is_some();
        let paths = if let Some(e) = &self.explicit[flow as usize] {
            vec![e.path.clone()]
        } else if d > 1 {
            self.reinforced_paths(src, dst, d)
        } else {
            self.path(src, dst, flow).into_iter().collect()
        };
        let mut fan = Vec::new();
        if !explicit && d > 1 && how == Reinforce::Hops {
            // A pair the routing joins in one hop keeps that link alone (the paper's
            // one-hop flows "cannot" use several paths, §III-B1).
            fan = match self.path(src, dst, flow) {
                Some(p) if p.len() == 2 => vec![(src, dst)],
                _ => self.reinforced_hops(src, dst, d),
            };
        } else if paths.len() > 1 {
            for p in &paths {
                for w in p.windows(2) {
                    if !fan.contains(&(w[0], w[1])) {
                        fan.push((w[0], w[1]));
                    }
                }
            }
        }
        self.fan[flow as usize] = fan;
        self.paths[flow as usize] = paths;
        self.ends[flow as usize] = (src, dst);
        self.fan_hops[flow as usize] =
            [true, false].map(|to_dst| self.fan_candidates(flow, to_dst));
    }

    /// Every node's candidates among the fan of `flow` towards its destination (`to_dst`)
    /// or its source, cheapest first; empty if the flow has one path or no table leads
    /// there.
    fn fan_candidates(&self, flow: u32, to_dst: bool) -> FanHops {
        let fan = &self.fan[flow as usize];
        let (src, dst) = self.ends[flow as usize];
        let row = self.dst_row[if to_dst { dst } else { src } as usize];
        if fan.is_empty() || row == NONE {
            return FanHops::default();
        }
        let tree = &self.trees[row as usize];
        // Towards the source, the paths are walked backwards.
        let step = |&(v, h): &(NodeId, NodeId)| if to_dst { (v, h) } else { (h, v) };
        let mut out = FanHops::default();
        for at in 0..self.adj.len() as NodeId {
            let start = out.hops.len();
            for (_, h) in fan.iter().map(step).filter(|&(v, _)| v == at) {
                let cost = self.link_cost(at, h).unwrap_or(f64::INFINITY) + tree.dist[h as usize];
                out.hops.push(NextHop { node: h, cost });
            }
            out.hops[start..].sort_by(|a, b| a.cost.total_cmp(&b.cost).then(a.node.cmp(&b.node)));
            out.range.push((start as u32, out.hops.len() as u32));
        }
        out
    }

    /// The paths of `flow` from its source to its destination: one for single-path
    /// routing, up to `routing.paths` reinforced ones.
    pub fn paths(&self, flow: u32) -> &[Vec<NodeId>] {
        &self.paths[flow as usize]
    }

    /// Next hop at `at` for a packet of `flow` going to `dst` (the cheapest candidate).
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId, flow: u32) -> Option<NodeId> {
        if let Some(Some(e)) = self.explicit.get(flow as usize) {
            return explicit_step(&e.path, at, dst).map(|(_, h)| h);
        }
        let row = self.dst_row[dst as usize];
        if row == NONE {
            return None;
        }
        let h = self.trees[row as usize].next[at as usize];
        (h != NONE).then_some(h)
    }

    /// Every candidate next hop at `at` for a packet of `flow` going to `dst`, cheapest
    /// first: the next nodes after `at` on the flow's reinforced paths (downstream towards
    /// the flow's destination, upstream towards its source), else the one routed next
    /// hop. Empty: no route.
    pub fn next_hops(&self, at: NodeId, dst: NodeId, flow: u32) -> NextHops {
        let mut out = NextHops::new();
        if let Some(Some(e)) = self.explicit.get(flow as usize) {
            if let Some((i, h)) = explicit_step(&e.path, at, dst) {
                let cost = (e.cum[end(&e.path, dst)] - e.cum[i]).abs();
                out.push(NextHop { node: h, cost });
            }
            return out;
        }
        let row = self.dst_row[dst as usize];
        if row == NONE {
            return out;
        }
        let tree = &self.trees[row as usize];
        let (src_end, dst_end) = self.ends[flow as usize];
        let (to_dst, to_src) = (dst == dst_end, dst == src_end);
        if to_dst || to_src {
            // On the flow's reinforced paths (`fan_candidates`), if `at` is on one.
            let fan = self.fan_hops[flow as usize][usize::from(!to_dst)].of(at);
            if !fan.is_empty() {
                return NextHops::from_slice(fan);
            }
        }
        let h = tree.next[at as usize];
        if h != NONE {
            out.push(NextHop {
                node: h,
                cost: tree.dist[at as usize],
            });
        }
        out
    }

    /// The next hops at `at` that packets of `flow` going to `dst` are spread over: every
    /// candidate under `routing.spread = "round-robin"`, else the cheapest (a scheme may
    /// still choose among [`next_hops`](Self::next_hops) itself).
    pub fn next_hops_taken(&self, at: NodeId, dst: NodeId, flow: u32) -> NextHops {
        let mut hops = self.next_hops(at, dst, flow);
        if self.spread == Spread::Cheapest {
            hops.truncate(1);
        }
        hops
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

    fn costs(&self, dst: NodeId) -> &Costs {
        self.costs[dst as usize].get_or_init(|| Costs {
            hops: tree_towards(&self.adj, dst, |_| 1.0).dist,
            etx: tree_towards(&self.adj, dst, |e| e.etx).dist,
        })
    }

    /// Distance from `at` to `dst` in hops and in ETX over usable links (None: no path).
    pub fn cost(&self, at: NodeId, dst: NodeId) -> Option<PathCost> {
        let c = self.costs(dst);
        let (h, e) = (c.hops[at as usize], c.etx[at as usize]);
        h.is_finite().then_some(PathCost {
            hops: h as u32,
            etx: e,
        })
    }

    /// MORE's candidate forwarders for src -> dst (Chachulski et al., SIGCOMM 2007 §3.2):
    /// the nodes closer to `dst` than `src` by ETX distance, `dst` included, each with its
    /// distance, closest first. Pruning is the scheme's.
    pub fn forwarders(&self, src: NodeId, dst: NodeId) -> Vec<(NodeId, f64)> {
        let etx = &self.costs(dst).etx;
        let limit = etx[src as usize];
        let mut v: Vec<(NodeId, f64)> = (0..self.adj.len() as NodeId)
            .filter(|&x| x != src && etx[x as usize] < limit)
            .map(|x| (x, etx[x as usize]))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        v
    }

    /// The links src -> dst that directed diffusion reinforces when every reinforced node
    /// reinforces up to `d` neighbours (Gheorghiu et al. §III-A: a node picks among up to
    /// d next hops; Intanagonwiwat et al. §3.3): the sink reinforces the d neighbours whose
    /// copies of the source's exploratory data came first (least cost from the source,
    /// plus the link), and each reinforced node does the same among its neighbours nearer
    /// the source, back to it; a node takes at most d downstream neighbours (later
    /// reinforcements pass it by). Nodes left without a way back to the source are
    /// dropped. Returns (node, downstream neighbour) pairs.
    pub fn reinforced_hops(&self, src: NodeId, dst: NodeId, d: usize) -> Vec<(NodeId, NodeId)> {
        let from_src = tree_towards(&self.adj, src, |e| e.cost);
        let dist = |u: NodeId| from_src.dist[u as usize];
        let n = self.adj.len();
        let mut down = vec![0usize; n];
        let mut seen = vec![false; n];
        let mut fan = Vec::new();
        let mut queue = std::collections::VecDeque::from([dst]);
        seen[dst as usize] = true;
        while let Some(v) = queue.pop_front() {
            // The neighbours v first heard from: nearer the source, earliest arrival.
            let mut ups: Vec<(f64, NodeId)> = self.adj[v as usize]
                .iter()
                .filter(|e| e.to != dst && dist(e.to) < dist(v))
                .map(|e| (dist(e.to) + e.cost, e.to))
                .collect();
            ups.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut taken = 0;
            for (_, u) in ups {
                if taken == d {
                    break;
                }
                if down[u as usize] == d {
                    continue;
                }
                down[u as usize] += 1;
                taken += 1;
                fan.push((u, v));
                if !seen[u as usize] && u != src {
                    seen[u as usize] = true;
                    queue.push_back(u);
                }
            }
        }
        // Keep what the source reaches (a node whose upstream neighbours were all taken
        // is a dead end).
        let mut reach = vec![false; n];
        reach[src as usize] = true;
        let mut stack = vec![src];
        while let Some(a) = stack.pop() {
            for &(_, b) in fan.iter().filter(|&&(x, _)| x == a) {
                if !reach[b as usize] {
                    reach[b as usize] = true;
                    stack.push(b);
                }
            }
        }
        fan.retain(|&(a, _)| reach[a as usize]);
        fan
    }

    /// Up to `d` paths src -> dst reinforced as directed diffusion does (Intanagonwiwat
    /// et al., MobiCom 2000 §3.3; the variant of CoMP's evaluation, Gheorghiu et al. §IV,
    /// ref. [10]): the source's exploratory data reaches every node first along its
    /// least-cost path from the source; the sink reinforces the neighbours whose copies
    /// arrived first, in that order, and each reinforced node reinforces the neighbour it
    /// first heard from, back to the source. Path k is thus the least-cost path from the
    /// source to the sink's k-th earliest neighbour, then the sink. Nodes may be shared;
    /// a node has at most d downstream neighbours.
    pub fn reinforced_paths(&self, src: NodeId, dst: NodeId, d: usize) -> Vec<Vec<NodeId>> {
        // Links are usable both ways with symmetric costs, so the tree towards the source
        // gives the least-cost paths from it.
        let from_src = tree_towards(&self.adj, src, |e| e.cost);
        let mut firsts: Vec<(f64, NodeId)> = (0..self.adj.len() as NodeId)
            .filter(|&u| u != dst && from_src.dist[u as usize].is_finite())
            .filter_map(|u| {
                self.link_cost(u, dst)
                    .map(|c| (from_src.dist[u as usize] + c, u))
            })
            .collect();
        firsts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut out = Vec::new();
        for (_, u) in firsts {
            if out.len() == d {
                break;
            }
            let mut p = vec![u];
            let mut at = u;
            while at != src {
                at = from_src.next[at as usize];
                if at == NONE || at == dst || p.len() > self.adj.len() {
                    break;
                }
                p.push(at);
            }
            if at != src {
                continue; // the sink itself relays towards u: not a path through u
            }
            p.reverse();
            p.push(dst);
            out.push(p);
        }
        out
    }
}

/// Position of `at` on an explicit path and the next node towards `dst` (one of its ends).
fn explicit_step(p: &[NodeId], at: NodeId, dst: NodeId) -> Option<(usize, NodeId)> {
    let i = p.iter().position(|&x| x == at)?;
    if Some(&dst) == p.last() {
        p.get(i + 1).map(|&h| (i, h))
    } else if Some(&dst) == p.first() {
        i.checked_sub(1).map(|j| (i, p[j]))
    } else {
        None
    }
}

/// Index of the end of `p` that is `dst`.
fn end(p: &[NodeId], dst: NodeId) -> usize {
    if p.first() == Some(&dst) {
        0
    } else {
        p.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn undirected(n: usize, links: &[(u32, u32)]) -> Vec<Vec<Edge>> {
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in links {
            adj[a as usize].push(Edge {
                to: b,
                cost: 1.0,
                etx: 1.0,
                delivery: 1.0,
            });
            adj[b as usize].push(Edge {
                to: a,
                cost: 1.0,
                etx: 1.0,
                delivery: 1.0,
            });
        }
        adj
    }

    #[test]
    fn chain_next_hops() {
        let r = Routes::new(undirected(5, &[(0, 1), (1, 2), (2, 3), (3, 4)]), &[0, 4], 1);
        assert_eq!(r.path(0, 4, 0), Some(vec![0, 1, 2, 3, 4]));
        assert_eq!(r.path(4, 0, 0), Some(vec![4, 3, 2, 1, 0]));
        assert_eq!(r.next_hop(2, 3, 0), None, "no table towards 3");
        assert_eq!(
            r.next_hops(1, 4, 0).as_slice(),
            &[NextHop { node: 2, cost: 3.0 }]
        );
        assert!(r.next_hops(2, 3, 0).is_empty());
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
                    e.etx = 3.0;
                }
            }
        }
        let r = Routes::new(adj, &[3], 1);
        assert_eq!(r.path(0, 3, 0), Some(vec![0, 2, 3]));
        assert_eq!(r.cost(0, 3), Some(PathCost { hops: 2, etx: 2.0 }));
        assert_eq!(r.cost(1, 3), Some(PathCost { hops: 1, etx: 3.0 }));
    }

    #[test]
    fn explicit_route_both_directions_with_costs() {
        let mut r = Routes::new(undirected(4, &[(0, 1), (1, 3), (0, 2), (2, 3)]), &[0, 3], 1);
        r.set_explicit(0, vec![0, 2, 3]);
        r.set_paths(0, 0, 3, 1, Reinforce::Hops);
        assert_eq!(r.path(0, 3, 0), Some(vec![0, 2, 3]));
        assert_eq!(r.path(3, 0, 0), Some(vec![3, 2, 0]));
        assert_eq!(r.paths(0), &[vec![0, 2, 3]]);
        assert_eq!(
            r.next_hops(0, 3, 0).as_slice(),
            &[NextHop { node: 2, cost: 2.0 }]
        );
        assert_eq!(
            r.next_hops(2, 0, 0).as_slice(),
            &[NextHop { node: 0, cost: 1.0 }]
        );
        assert!(r.next_hops(1, 3, 0).is_empty(), "off the explicit path");
    }

    #[test]
    fn costs_in_hops_and_etx_to_any_node() {
        // 0 - 1 - 2 and a direct lossy link 0 - 2 (ETX 4)
        let mut adj = undirected(3, &[(0, 1), (1, 2)]);
        adj[0].push(Edge {
            to: 2,
            cost: 1.0,
            etx: 4.0,
            delivery: 0.5,
        });
        adj[2].push(Edge {
            to: 0,
            cost: 1.0,
            etx: 4.0,
            delivery: 0.5,
        });
        let r = Routes::new(adj, &[], 0);
        assert_eq!(r.cost(0, 2), Some(PathCost { hops: 1, etx: 2.0 }));
        assert_eq!(r.cost(2, 2), Some(PathCost { hops: 0, etx: 0.0 }));
        let isolated = Routes::new(undirected(3, &[(0, 1)]), &[], 0);
        assert_eq!(isolated.cost(0, 2), None);
    }

    #[test]
    fn forwarders_are_the_nodes_closer_by_etx() {
        // chain 0-1-2-3 plus 4 hanging off 0 (farther from 3 than 0)
        let r = Routes::new(undirected(5, &[(0, 1), (1, 2), (2, 3), (0, 4)]), &[3], 1);
        assert_eq!(r.forwarders(0, 3), vec![(3, 0.0), (2, 1.0), (1, 2.0)]);
        assert_eq!(r.forwarders(2, 3), vec![(3, 0.0)]);
    }

    #[test]
    fn reinforced_paths_give_downstream_candidates() {
        // a ladder: 0 -> {1, 3} -> {2, 4} -> 5, with a rung 1 - 4
        let links = [(0, 1), (1, 2), (2, 5), (0, 3), (3, 4), (4, 5), (1, 4)];
        let mut r = Routes::new(undirected(6, &links), &[0, 5], 2);
        r.set_paths(1, 0, 5, 2, Reinforce::Paths);
        let ps = r.paths(1).to_vec();
        assert_eq!(ps, vec![vec![0, 1, 2, 5], vec![0, 1, 4, 5]]);
        // node 1 may forward to 2 or 4; each costs 2 to the sink
        let hops: Vec<u32> = r.next_hops(1, 5, 1).iter().map(|h| h.node).collect();
        assert_eq!(hops, vec![2, 4]);
        assert!(r.next_hops(1, 5, 1).iter().all(|h| h.cost == 2.0));
        // every node has at most d = 2 downstream neighbours, and all paths end at the sink
        for v in 0..6 {
            assert!(r.next_hops(v, 5, 1).len() <= 2);
        }
        // traffic back to the source walks the paths backwards
        let back: Vec<u32> = r.next_hops(5, 0, 1).iter().map(|h| h.node).collect();
        assert_eq!(back, vec![2, 4]);
        let back: Vec<u32> = r.next_hops(4, 0, 1).iter().map(|h| h.node).collect();
        assert_eq!(back, vec![1], "the rung 1 - 4 is on a path, 3 - 4 is not");

        r.set_paths(0, 0, 5, 1, Reinforce::Hops);
        assert_eq!(r.paths(0), &[vec![0, 1, 2, 5]]);
        assert_eq!(
            r.next_hops(1, 5, 0).len(),
            1,
            "single-path flows: the routed hop"
        );
        assert_eq!(r.next_hops(5, 0, 0).len(), 1);
        // d = 3 finds a third path through the sink's third neighbour if there is one
        let r3 = Routes::new(undirected(6, &links), &[5], 1);
        assert_eq!(
            r3.reinforced_paths(0, 5, 3).len(),
            2,
            "the sink has two neighbours"
        );
    }

    #[test]
    fn each_node_picks_among_up_to_d_next_hops() {
        // The ladder above: the sink reinforces 2 and 4; 4 reinforces both 1 and 3 (it
        // heard them at the same time), 2 reinforces 1, and 1 and 3 the source. The flow
        // branches at the source and again at 1 (whole paths branch at 1 only).
        let links = [(0, 1), (1, 2), (2, 5), (0, 3), (3, 4), (4, 5), (1, 4)];
        let mut r = Routes::new(undirected(6, &links), &[0, 5], 1);
        r.set_paths(0, 0, 5, 2, Reinforce::Hops);
        let next = |r: &Routes, v: u32| -> Vec<u32> {
            r.next_hops(v, 5, 0).iter().map(|h| h.node).collect()
        };
        assert_eq!(next(&r, 0), vec![1, 3]);
        assert_eq!(next(&r, 1), vec![2, 4]);
        assert_eq!(next(&r, 3), vec![4]);
        for v in 0..5 {
            assert!(
                !next(&r, v).is_empty() && next(&r, v).len() <= 2,
                "node {v}"
            );
        }
        let mut paths = Routes::new(undirected(6, &links), &[0, 5], 1);
        paths.set_paths(0, 0, 5, 2, Reinforce::Paths);
        assert_eq!(
            next(&paths, 0),
            vec![1],
            "whole paths share the source's tree"
        );
        // d = 1 everywhere: one next hop per node.
        let mut one = Routes::new(undirected(6, &links), &[0, 5], 1);
        one.set_paths(0, 0, 5, 1, Reinforce::Hops);
        for v in 0..5 {
            assert!(next(&one, v).len() <= 1, "node {v}");
        }
    }

    /// The candidates `next_hops` keeps per node equal those worked out from the fan at
    /// each call (a model of the computation before they were kept): every node, both
    /// directions, on a grid whose links cost 1 to 2.9 (ties and distinct costs).
    #[test]
    fn kept_fan_candidates_equal_the_fan_worked_out_per_call() {
        let (w, n) = (4u32, 16usize);
        let mut adj = vec![Vec::new(); n];
        for v in 0..n as u32 {
            let (x, y) = (v % w, v / w);
            for (nx, ny) in [(x + 1, y), (x, y + 1)] {
                if nx < w && ny < w {
                    let u = ny * w + nx;
                    let cost = 1.0 + f64::from((v * 7 + u * 3) % 20) / 10.0;
                    for (a, b) in [(v, u), (u, v)] {
                        adj[a as usize].push(Edge {
                            to: b,
                            cost,
                            etx: cost,
                            delivery: 1.0 / cost,
                        });
                    }
                }
            }
        }
        for how in [Reinforce::Hops, Reinforce::Paths] {
            let mut r = Routes::new(adj.clone(), &[0, 15, 3, 12], 2);
            r.set_paths(0, 0, 15, 3, how);
            r.set_paths(1, 12, 3, 2, how);
            let mut seen = 0;
            for flow in 0..2u32 {
                let (src, dst) = r.ends[flow as usize];
                for (target, to_dst) in [(dst, true), (src, false)] {
                    let tree = &r.trees[r.dst_row[target as usize] as usize];
                    for at in 0..n as u32 {
                        let mut want: Vec<NextHop> = r.fan[flow as usize]
                            .iter()
                            .map(|&(v, h)| if to_dst { (v, h) } else { (h, v) })
                            .filter(|&(v, _)| v == at)
                            .map(|(_, h)| NextHop {
                                node: h,
                                cost: r.link_cost(at, h).unwrap() + tree.dist[h as usize],
                            })
                            .collect();
                        want.sort_by(|a, b| a.cost.total_cmp(&b.cost).then(a.node.cmp(&b.node)));
                        if want.is_empty() && tree.next[at as usize] != NONE {
                            want.push(NextHop {
                                node: tree.next[at as usize],
                                cost: tree.dist[at as usize],
                            });
                        }
                        seen += usize::from(want.len() > 1);
                        assert_eq!(
                            r.next_hops(at, target, flow).as_slice(),
                            want.as_slice(),
                            "{how:?} flow {flow} at {at}"
                        );
                    }
                }
            }
            assert!(seen > 0, "{how:?}: some node has several candidates");
        }
    }

    #[test]
    fn a_one_hop_pair_keeps_its_direct_link() {
        let links = [(0, 1), (1, 2), (0, 2)];
        let mut r = Routes::new(undirected(3, &links), &[0, 2], 1);
        r.set_paths(0, 0, 2, 2, Reinforce::Hops);
        let hops: Vec<u32> = r.next_hops(0, 2, 0).iter().map(|h| h.node).collect();
        assert_eq!(hops, vec![2]);
        let back: Vec<u32> = r.next_hops(2, 0, 0).iter().map(|h| h.node).collect();
        assert_eq!(back, vec![0]);
        // Whole paths add the detour through 1.
        r.set_paths(0, 0, 2, 2, Reinforce::Paths);
        assert_eq!(r.next_hops(0, 2, 0).len(), 2);
    }

    #[test]
    fn reinforced_paths_with_a_direct_link() {
        let r = Routes::new(undirected(3, &[(0, 1), (1, 2), (0, 2)]), &[2], 1);
        assert_eq!(r.reinforced_paths(0, 2, 2), vec![vec![0, 2], vec![0, 1, 2]]);
    }
}
