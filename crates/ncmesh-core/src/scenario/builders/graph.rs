//! Graph utilities of the builders: unit-disk adjacency, the routing graph of a channel,
//! hop counts (breadth-first), the connectivity test, the largest component and the draw
//! of flow endpoints at least `min_hops` apart.

use crate::engine::Rng;
use crate::net::graph::routing_graph;
use crate::phy::channel::Channel;
use crate::scenario::schema::{ChannelCfg, RoutingCfg};
use crate::scenario::ScenarioError;
use std::collections::VecDeque;

pub(crate) fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// Neighbour lists of the unit-disk graph: i ~ j when dist <= range.
pub(crate) fn range_adjacency(pos: &[(f64, f64)], range: f64) -> Vec<Vec<usize>> {
    let n = pos.len();
    let mut adj = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            if dist(pos[i], pos[j]) <= range {
                adj[i].push(j);
                adj[j].push(i);
            }
        }
    }
    adj
}

/// Neighbour lists of the graph the simulator routes over (links usable both ways:
/// delivery >= `routing.min_delivery`) for channel `ch` over nodes at `pos`.
pub(super) fn routing_adjacency(
    ch: &ChannelCfg,
    routing: &RoutingCfg,
    pos: &[(f64, f64)],
) -> Vec<Vec<usize>> {
    let channel = Channel::new(ch, pos);
    routing_graph(&channel, pos.len(), routing.metric, routing.min_delivery)
        .into_iter()
        .map(|es| es.into_iter().map(|e| e.to as usize).collect())
        .collect()
}

/// Hop count of a node that cannot be reached.
pub(super) const UNREACHABLE: u32 = u32::MAX;

pub(super) fn bfs(adj: &[Vec<usize>], src: usize) -> Vec<u32> {
    let mut d = vec![UNREACHABLE; adj.len()];
    let mut q = VecDeque::new();
    d[src] = 0;
    q.push_back(src);
    while let Some(u) = q.pop_front() {
        for &v in &adj[u] {
            if d[v] == UNREACHABLE {
                d[v] = d[u] + 1;
                q.push_back(v);
            }
        }
    }
    d
}

/// Hop counts between all pairs (UNREACHABLE when disconnected).
pub(crate) fn hop_matrix(adj: &[Vec<usize>]) -> Vec<Vec<u32>> {
    (0..adj.len()).map(|i| bfs(adj, i)).collect()
}

/// The nodes of the largest connected component, in increasing order (ties: the
/// component holding the lowest index).
pub(super) fn largest_component(adj: &[Vec<usize>]) -> Vec<usize> {
    let n = adj.len();
    let mut seen = vec![false; n];
    let mut best: Vec<usize> = Vec::new();
    for i in 0..n {
        if seen[i] {
            continue;
        }
        let d = bfs(adj, i);
        let members: Vec<usize> = (0..n).filter(|&j| d[j] != UNREACHABLE).collect();
        for &m in &members {
            seen[m] = true;
        }
        if members.len() > best.len() {
            best = members;
        }
    }
    best
}

pub(super) fn is_connected(adj: &[Vec<usize>]) -> bool {
    adj.is_empty() || bfs(adj, 0).iter().all(|&d| d != UNREACHABLE)
}

/// `flows` distinct ordered (src, dst) pairs among `cand`, at least `min_hops` hops
/// apart, drawn uniformly without replacement from all such pairs.
pub(super) fn pick_pairs(
    rng: &mut Rng,
    cand: &[usize],
    hops: &[Vec<u32>],
    flows: usize,
    min_hops: u32,
) -> Result<Vec<(usize, usize)>, ScenarioError> {
    let mut eligible = Vec::new();
    for &s in cand {
        for &d in cand {
            let h = hops[s][d];
            if s != d && h != UNREACHABLE && h >= min_hops {
                eligible.push((s, d));
            }
        }
    }
    if eligible.len() < flows {
        return Err(ScenarioError::new(
            "flows",
            format!(
                "{flows} is not possible: only {} ordered node pairs are connected and at least {min_hops} hops apart (lower flows or min_hops, or enlarge the topology)",
                eligible.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(flows);
    for _ in 0..flows {
        let i = rng.below_incl((eligible.len() - 1) as u32) as usize;
        out.push(eligible.swap_remove(i));
    }
    Ok(out)
}
