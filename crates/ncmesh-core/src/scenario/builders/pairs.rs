//! Path statistics of an experiment's source-destination pairs under the routing its
//! scenario uses (to compare a layout with a paper's, e.g. CoMP's mean path of 2.5 hops
//! with about 20 % one-hop flows).

use crate::net::routing::Routes;
use crate::phy::channel::Channel;
use crate::scenario::schema::{FlowCfg, Scenario};
use crate::scenario::ScenarioError;
use serde::Serialize;

/// Hop counts of an experiment's pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairStats {
    /// Nodes of the scenario.
    pub nodes: usize,
    /// Mean number of usable links per node (the routing graph's out-degree).
    pub mean_degree: f64,
    /// The pairs, [source, destination].
    pub pairs: Vec<[u32; 2]>,
    /// Hops of each pair's routed path (the routing metric's shortest path: ETX or hops;
    /// with several reinforced paths, the first).
    pub hops: Vec<u32>,
    /// Fewest hops between each pair over the usable links.
    pub fewest_hops: Vec<u32>,
    /// Mean of `hops`.
    pub mean_hops: f64,
    /// Share of the pairs whose routed path is one hop.
    pub one_hop_share: f64,
    /// Mean of `fewest_hops`.
    pub mean_fewest_hops: f64,
}

/// The statistics of `flows`' (source, destination) pairs in scenario `s` (its channel,
/// positions and routing, explicit routes included). Every pair must have a route.
pub(super) fn stats(s: &Scenario, flows: &[FlowCfg]) -> Result<PairStats, ScenarioError> {
    if flows.is_empty() {
        return Err(ScenarioError::new("flows", "no pairs to describe"));
    }
    let pos: Vec<(f64, f64)> = s.nodes.iter().map(|n| (n.x, n.y)).collect();
    let ch = Channel::new(&s.channel, &pos);
    let routes = Routes::build(&s.routing, flows, &ch, pos.len());
    let (mut hops, mut fewest) = (Vec::new(), Vec::new());
    for (i, f) in flows.iter().enumerate() {
        let no_route = || {
            ScenarioError::new(
                "flows",
                format!("pair {i} ({} -> {}) has no route", f.src, f.dst),
            )
        };
        let path = routes.path(f.src, f.dst, i as u32).ok_or_else(no_route)?;
        hops.push(path.len() as u32 - 1);
        fewest.push(routes.cost(f.src, f.dst).ok_or_else(no_route)?.hops);
    }
    let n = flows.len() as f64;
    let mean = |v: &[u32]| v.iter().map(|&h| f64::from(h)).sum::<f64>() / n;
    let links: usize = (0..pos.len() as u32).map(|v| routes.edges(v).len()).sum();
    Ok(PairStats {
        nodes: pos.len(),
        mean_degree: links as f64 / pos.len() as f64,
        pairs: flows.iter().map(|f| [f.src, f.dst]).collect(),
        mean_hops: mean(&hops),
        one_hop_share: hops.iter().filter(|&&h| h == 1).count() as f64 / n,
        mean_fewest_hops: mean(&fewest),
        hops,
        fewest_hops: fewest,
    })
}
