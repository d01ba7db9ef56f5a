//! MORE's forwarder plan (Chachulski, Jennings, Katti & Katabi, SIGCOMM 2007, §4.4 and
//! its appendix): which nodes forward a flow's batches and how many coded packets each
//! sends per packet it hears from upstream.
//!
//! The candidates are ordered by ETX distance to the destination, closest first (the
//! destination is index 0, the source the last). With ε(i, j) the loss from i to j and
//! "closer" meaning a smaller index:
//!
//! ```text
//! z_src = 1 / (1 - Π_{k closer than src} ε(src, k))            (L_src = 1 packet)
//! L_j   = Σ_{i farther than j} z_i (1 - ε(i, j)) Π_{k closer than j} ε(i, k)
//! z_j   = L_j / (1 - Π_{k closer than j} ε(j, k))
//! TX_credit_j = z_j / Σ_{i farther than j} z_i (1 - ε(i, j))
//! ```
//!
//! z_j is j's expected transmissions per source packet: it forwards the packets that it
//! heard from upstream and no node closer to the destination heard, and sends each
//! until some closer node has it. The credit spreads z_j over the packets j hears from
//! upstream. Forwarders expected to make less than a share (10 %) of all the
//! transmissions are pruned and the plan recomputed without them (§4.4).

use crate::net::NodeId;

/// A flow's forwarders and their credits.
#[derive(Debug, Clone, PartialEq)]
pub struct ForwarderPlan {
    /// The kept nodes, closest to the destination first: the destination first, the
    /// source last.
    pub nodes: Vec<NodeId>,
    /// Expected transmissions per source packet, per node (0 for the destination).
    pub z: Vec<f64>,
    /// TX credit per packet heard from upstream, per node (0 for the destination and
    /// the source, which sends until the batch is acknowledged).
    pub credit: Vec<f64>,
}

impl ForwarderPlan {
    /// The credit of `node`, if it is a forwarder.
    pub fn credit_of(&self, node: NodeId) -> Option<f64> {
        let i = self.nodes.iter().position(|&n| n == node)?;
        Some(self.credit[i])
    }

    /// Expected transmissions of every node per source packet.
    pub fn total_transmissions(&self) -> f64 {
        self.z.iter().sum()
    }
}

/// The plan for `order` (destination first, source last, by ETX distance to the
/// destination) with delivery probabilities `p(i, j)`, pruning forwarders below
/// `prune_share` of all transmissions (0: keep every candidate), the weakest first. A
/// relay that reaches no closer kept node is dropped whenever that happens (it could
/// never pass a packet on); a relay whose removal would cut the source off is kept.
/// `p` is asked once per pair of candidates, however often pruning solves again.
pub fn plan(
    order: &[NodeId],
    p: impl Fn(NodeId, NodeId) -> f64,
    prune_share: f64,
) -> ForwarderPlan {
    let mut probs = Probs {
        order,
        p,
        cache: vec![None; order.len() * order.len()],
    };
    let all: Vec<usize> = (0..order.len()).collect();
    let mut nodes = useful(&all, &mut probs);
    loop {
        let (z, credit) = solve(&nodes, &mut probs);
        let total: f64 = z.iter().sum();
        // Relays only (the destination and source always stay), weakest first.
        let mut weak: Vec<usize> = (1..nodes.len().saturating_sub(1))
            .filter(|&i| z[i] < prune_share * total)
            .collect();
        weak.sort_by(|&a, &b| z[a].total_cmp(&z[b]).then(a.cmp(&b)));
        let next = weak.into_iter().find_map(|i| {
            let mut fewer = nodes.clone();
            fewer.remove(i);
            let fewer = useful(&fewer, &mut probs);
            connected(&fewer, &mut probs).then_some(fewer)
        });
        match next {
            Some(fewer) => nodes = fewer,
            None => {
                let nodes = nodes.iter().map(|&i| order[i]).collect();
                return ForwarderPlan { nodes, z, credit };
            }
        }
    }
}

/// The delivery probabilities between candidates (by their index in the order), each
/// asked of `p` the first time it is needed.
struct Probs<'a, P> {
    order: &'a [NodeId],
    p: P,
    cache: Vec<Option<f64>>,
}

impl<P: Fn(NodeId, NodeId) -> f64> Probs<'_, P> {
    fn get(&mut self, a: usize, b: usize) -> f64 {
        let n = self.order.len();
        *self.cache[a * n + b].get_or_insert_with(|| (self.p)(self.order[a], self.order[b]))
    }
}

/// `order` (candidate indices) without the relays that reach no closer node kept
/// before them.
fn useful<P: Fn(NodeId, NodeId) -> f64>(order: &[usize], p: &mut Probs<P>) -> Vec<usize> {
    let mut kept: Vec<usize> = Vec::with_capacity(order.len());
    for (i, &v) in order.iter().enumerate() {
        let last = i + 1 == order.len();
        if i == 0 || last || kept.iter().any(|&k| p.get(v, k) > 0.0) {
            kept.push(v);
        }
    }
    kept
}

/// Whether the source (last) reaches some closer node: after [`useful`], every relay
/// leads on towards the destination, so the source then reaches it.
fn connected<P: Fn(NodeId, NodeId) -> f64>(nodes: &[usize], p: &mut Probs<P>) -> bool {
    match nodes.split_last() {
        Some((&src, closer)) => closer.iter().any(|&k| p.get(src, k) > 0.0),
        None => false,
    }
}

/// z and credits for the candidates `order` (closest first), in O(n^2): each loss
/// ε(i, k) once, and the products of the losses to the nodes closer than j as running
/// prefixes (multiplied in the same order as a product over k = 0, 1, ..., j - 1, so the
/// same doubles).
fn solve<P: Fn(NodeId, NodeId) -> f64>(order: &[usize], p: &mut Probs<P>) -> (Vec<f64>, Vec<f64>) {
    let n = order.len();
    let mut z = vec![0.0; n];
    let mut credit = vec![0.0; n];
    if n < 2 {
        return (z, credit);
    }
    // eps[i * n + k]: the loss from i to a closer k (k < i).
    let mut eps = vec![1.0; n * n];
    // none[i * (n + 1) + j]: the probability that none of the nodes closer than j (j <= i)
    // heard a transmission of i.
    let mut none = vec![1.0; n * (n + 1)];
    for i in 0..n {
        for k in 0..i {
            let e = 1.0 - p.get(order[i], order[k]).clamp(0.0, 1.0);
            eps[i * n + k] = e;
            none[i * (n + 1) + k + 1] = none[i * (n + 1) + k] * e;
        }
    }
    let eps = |i: usize, j: usize| eps[i * n + j];
    let none_closer = |i: usize, j: usize| none[i * (n + 1) + j];
    // From the source (last) towards the destination (index 0, which sends nothing).
    for j in (1..n).rev() {
        let load = if j == n - 1 {
            1.0
        } else {
            (j + 1..n)
                .filter(|&i| eps(i, j) < 1.0)
                .map(|i| z[i] * (1.0 - eps(i, j)) * none_closer(i, j))
                .sum()
        };
        // Positive for every kept relay; a source that reaches nothing sends forever.
        let reach = 1.0 - none_closer(j, j);
        z[j] = if load == 0.0 {
            0.0
        } else if reach > 0.0 {
            load / reach
        } else {
            f64::INFINITY
        };
        if j < n - 1 {
            let heard: f64 = (j + 1..n)
                .filter(|&i| eps(i, j) < 1.0)
                .map(|i| z[i] * (1.0 - eps(i, j)))
                .sum();
            credit[j] = if heard > 0.0 { z[j] / heard } else { 0.0 };
        }
    }
    (z, credit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Delivery probabilities from a table of (from, to, p); symmetric links are listed
    /// both ways; anything else is 0.
    fn table(links: &'static [(NodeId, NodeId, f64)]) -> impl Fn(NodeId, NodeId) -> f64 {
        move |a, b| {
            links
                .iter()
                .find(|&&(x, y, _)| x == a && y == b)
                .map_or(0.0, |l| l.2)
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn a_chain_relay_sends_each_packet_until_it_arrives() {
        // S(2) -> R(1) -> D(0), no direct link: z_S = 1/p_SR, L_R = 1, z_R = 1/p_RD,
        // credit_R = z_R / (z_S p_SR) = 1/p_RD.
        let p = table(&[(2, 1, 0.8), (1, 0, 0.5)]);
        let plan = plan(&[0, 1, 2], p, 0.0);
        assert!(close(plan.z[2], 1.0 / 0.8));
        assert!(close(plan.z[1], 2.0));
        assert!(close(plan.credit[1], 2.0));
        assert!(close(plan.total_transmissions(), 1.25 + 2.0));
    }

    #[test]
    fn a_relay_forwards_only_what_the_destination_missed() {
        // S -> D at 0.5 and S -> R -> D perfect: the source sends once per packet
        // (R always hears it); R forwards the half D missed: L_R = z_R = 0.5 and its
        // credit is 0.5 per packet it hears.
        let p = table(&[(2, 0, 0.5), (2, 1, 1.0), (1, 0, 1.0)]);
        let plan = plan(&[0, 1, 2], p, 0.0);
        assert!(close(plan.z[2], 1.0));
        assert!(close(plan.z[1], 0.5));
        assert!(close(plan.credit[1], 0.5));
    }

    #[test]
    fn credits_on_a_diamond_follow_the_formula() {
        // A diamond with two relays: S(3) reaches relays B(2) and A(1) (A closer to D),
        // both reach D(0), and B also reaches A; no S -> D link.
        let p = table(&[
            (3, 2, 0.6),
            (3, 1, 0.5),
            (2, 1, 0.4),
            (2, 0, 0.7),
            (1, 0, 0.9),
        ]);
        let plan = plan(&[0, 1, 2, 3], p, 0.0);
        // z_S: until A or B hears: 1 / (1 - 0.5 * 0.4) = 1.25.
        let z_s = 1.0 / (1.0 - 0.5 * 0.4);
        // B forwards what it heard and A did not: z_S * 0.6 * 0.5; it sends until A or
        // D hears: 1 - 0.6 * 0.3.
        let l_b = z_s * 0.6 * 0.5;
        let z_b = l_b / (1.0 - 0.6 * 0.3);
        // A forwards what it heard from S or B and D did not (S never reaches D).
        let l_a = z_s * 0.5 * 1.0 + z_b * 0.4 * 0.3;
        let z_a = l_a / 0.9;
        assert!(close(plan.z[3], z_s));
        assert!(close(plan.z[2], z_b));
        assert!(close(plan.z[1], z_a));
        assert!(close(plan.credit[2], z_b / (z_s * 0.6)));
        assert!(close(plan.credit[1], z_a / (z_s * 0.5 + z_b * 0.4)));
    }

    /// R2 (2) hears the source (3) rarely and A (1) nearly always: R2's share is tiny.
    const PRUNED: &[(NodeId, NodeId, f64)] = &[
        (3, 2, 0.05),
        (3, 1, 0.95),
        (2, 0, 0.9),
        (1, 0, 0.9),
        (2, 1, 0.3),
    ];

    #[test]
    fn forwarders_below_the_share_are_pruned_and_the_plan_recomputed() {
        let p = table(PRUNED);
        let all = plan(&[0, 1, 2, 3], &p, 0.0);
        assert_eq!(all.nodes, vec![0, 1, 2, 3]);
        assert!(all.z[2] < 0.1 * all.total_transmissions());
        let pruned = plan(&[0, 1, 2, 3], &p, 0.1);
        assert_eq!(pruned.nodes, vec![0, 1, 3]);
        assert_eq!(pruned.credit_of(2), None);
        // Without R2, A carries everything: the two-hop chain's numbers.
        assert!(close(pruned.z[2], 1.0 / 0.95));
        assert!(close(pruned.credit[1], 1.0 / 0.9));
    }

    #[test]
    fn pruning_never_cuts_the_source_off() {
        // B(1) is the only way on from C(2), and the source S(3) reaches B rarely: B's
        // share is under 10 %, but without it C would reach nothing closer and S
        // nothing at all, so B stays.
        let p = table(&[(3, 2, 0.9), (3, 1, 0.1), (2, 1, 0.05), (1, 0, 1.0)]);
        let plan = plan(&[0, 1, 2, 3], p, 0.1);
        assert_eq!(plan.nodes, vec![0, 1, 2, 3]);
        assert!(plan.z.iter().chain(&plan.credit).all(|v| v.is_finite()));
    }

    #[test]
    fn a_source_that_reaches_nothing_gives_no_nan() {
        let p = table(&[(1, 0, 1.0)]);
        let plan = plan(&[0, 1, 2], p, 0.1);
        assert!(!plan.z.iter().chain(&plan.credit).any(|v| v.is_nan()));
    }

    #[test]
    fn each_link_is_asked_once_however_often_pruning_solves_again() {
        // The pruning case above solves twice; every (from, to) is asked of p once.
        let asked = std::cell::RefCell::new(Vec::new());
        let links = table(PRUNED);
        let p = |a, b| {
            asked.borrow_mut().push((a, b));
            links(a, b)
        };
        let pruned = plan(&[0, 1, 2, 3], p, 0.1);
        assert_eq!(pruned.nodes, vec![0, 1, 3]);
        let mut pairs = asked.into_inner();
        let n = pairs.len();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pairs.len(), n, "a pair asked twice");
        assert!(pairs.iter().all(|&(a, b)| a > b), "only farther to closer");
    }

    #[test]
    fn a_relay_that_reaches_nothing_closer_is_dropped() {
        // R(2) hears the source but reaches nothing closer.
        let p = table(&[(3, 2, 0.9), (3, 1, 0.9), (1, 0, 0.9)]);
        let plan = plan(&[0, 1, 2, 3], p, 0.0);
        assert_eq!(plan.nodes, vec![0, 1, 3]);
        assert!(plan.z.iter().all(|z| z.is_finite()));
    }
}
