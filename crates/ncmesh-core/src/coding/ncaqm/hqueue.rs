//! Virtual h-queues and network-coded queue sizes (Seferoglu & Markopoulou §V-A2, as reconstructed):
//! a flow's packets count towards a code (h, m) in proportion to the flow's traffic
//! split ĥ; a flow dominates (h, m) when its share is the largest of m's flows; the
//! network-coded queue size of a flow sums its shares over the codes it dominates.

use super::split::{CodeSig, SplitEstimator};
use crate::coding::xor::entry::{Entry, FlowKey, Native};
use crate::net::NodeId;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// Relative tolerance under which two queue sizes count as equal (dominance and drop
/// ties): sizes are sums of ratios, so equal values may differ in the last bits.
pub const TIE_TOLERANCE: f64 = 1e-9;

/// Is `x` equal to the maximum `max` (within [`TIE_TOLERANCE`])?
pub fn ties_max(x: f64, max: f64) -> bool {
    x >= max - TIE_TOLERANCE * max.abs()
}

/// Q_s: packets of one flow held by the node, coded or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowCount {
    /// The flow.
    pub flow: FlowKey,
    /// Its packets held here (natives and members of codes).
    pub packets: u32,
    /// Next hop of the flow's first packet (head to tail, then the arrival): the hop of
    /// the flow's native code when the flow has no transmission history.
    pub next_hop: NodeId,
}

/// Q_s for every flow in `queue` and `arriving`, in order of first appearance (head to
/// tail, then the arrival).
pub fn flow_counts(queue: &VecDeque<Entry>, arriving: Option<&Native>) -> SmallVec<[FlowCount; 8]> {
    let mut out: SmallVec<[FlowCount; 8]> = SmallVec::new();
    let mut add = |n: &Native| {
        let f = n.flow();
        match out.iter_mut().find(|c| c.flow == f) {
            Some(c) => c.packets += 1,
            None => out.push(FlowCount {
                flow: f,
                packets: 1,
                next_hop: n.next_hop,
            }),
        }
    };
    for e in queue {
        for n in &e.items {
            add(n);
        }
    }
    if let Some(n) = arriving {
        add(n);
    }
    out
}

/// Shares Q_s·ĥ(s, h, m) of the flows of `sig` (index into `counts`, or `None` for a
/// flow with no packet here, whose share is 0). Returns the largest share: q_{h,m}.
fn shares(
    sig: &CodeSig,
    counts: &[FlowCount],
    est: &SplitEstimator,
    out: &mut SmallVec<[(Option<usize>, f64); 4]>,
) -> f64 {
    out.clear();
    let mut max = 0.0f64;
    for &f in &sig.flows {
        let i = counts.iter().position(|c| c.flow == f);
        let share = match i {
            Some(i) => counts[i].packets as f64 * est.split(f, sig),
            None => 0.0,
        };
        max = max.max(share);
        out.push((i, share));
    }
    max
}

/// Every code considered: those in the estimator's window, then the native code of each
/// flow here that the window does not hold.
fn each_code<F: FnMut(&CodeSig, &[(Option<usize>, f64)], f64)>(
    counts: &[FlowCount],
    est: &SplitEstimator,
    mut visit: F,
) {
    let mut buf: SmallVec<[(Option<usize>, f64); 4]> = SmallVec::new();
    for (sig, _) in est.codes() {
        let max = shares(sig, counts, est, &mut buf);
        visit(sig, &buf, max);
    }
    for c in counts {
        let sig = CodeSig::native(c.flow, c.next_hop);
        if est.count(&sig) == 0 {
            let max = shares(&sig, counts, est, &mut buf);
            visit(&sig, &buf, max);
        }
    }
}

/// q_{h,m} for every code considered (window codes, then missing native codes).
pub fn hqueue_sizes(
    queue: &VecDeque<Entry>,
    arriving: Option<&Native>,
    est: &SplitEstimator,
) -> Vec<(CodeSig, f64)> {
    let counts = flow_counts(queue, arriving);
    let mut out = Vec::new();
    each_code(&counts, est, |sig, _, max| out.push((sig.clone(), max)));
    out
}

/// Q̃_s for every flow with a packet in `queue` or `arriving` (same order as
/// [`flow_counts`]): the sum, over codes where s is dominant, of Q_s·ĥ(s, h, m).
pub fn coded_queue_sizes(
    queue: &VecDeque<Entry>,
    arriving: Option<&Native>,
    est: &SplitEstimator,
) -> Vec<(FlowKey, f64)> {
    let counts = flow_counts(queue, arriving);
    sizes_of(&counts, est)
}

pub(crate) fn sizes_of(counts: &[FlowCount], est: &SplitEstimator) -> Vec<(FlowKey, f64)> {
    let mut sizes: Vec<(FlowKey, f64)> = counts.iter().map(|c| (c.flow, 0.0)).collect();
    each_code(counts, est, |_, shares, max| {
        if max <= 0.0 {
            return;
        }
        for &(i, share) in shares {
            if let Some(i) = i {
                // Seferoglu & Markopoulou §V-A2: dominant iff its share is the h-queue size (ties: all).
                if ties_max(share, max) {
                    sizes[i].1 += share;
                }
            }
        }
    });
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::ncaqm::testutil::{code, nat};

    fn size(v: &[(FlowKey, f64)], f: FlowKey) -> f64 {
        v.iter().find(|(g, _)| *g == f).unwrap().1
    }

    #[test]
    fn counts_include_coded_packets_and_the_arrival() {
        let a = |u| nat(u, 1, 10, 20, 10);
        let b = |u| nat(u, 2, 20, 10, 20);
        let q: VecDeque<Entry> = vec![code(&[a(1), b(2)]), code(&[a(3)]), code(&[b(4)])].into();
        let c = flow_counts(&q, Some(&a(5)));
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].flow, c[0].packets, c[0].next_hop),
            (a(0).flow(), 3, 20)
        );
        assert_eq!(
            (c[1].flow, c[1].packets, c[1].next_hop),
            (b(0).flow(), 2, 10)
        );
    }

    #[test]
    fn without_history_coded_size_is_packet_count() {
        let a = |u| nat(u, 1, 10, 20, 10);
        let b = |u| nat(u, 2, 20, 10, 20);
        let q: VecDeque<Entry> = vec![code(&[a(1), b(2)]), code(&[a(3)])].into();
        let est = SplitEstimator::new(100);
        let s = coded_queue_sizes(&q, None, &est);
        assert_eq!(size(&s, a(0).flow()), 2.0);
        assert_eq!(size(&s, b(0).flow()), 1.0);
    }

    #[test]
    fn dominance_alice_and_bob() {
        // Seferoglu & Markopoulou §V-B Example 2: two flows always coded together, ĥ = 1 each; the
        // flow with more packets dominates the only code and carries its whole size.
        let a = |u| nat(u, 1, 10, 20, 10);
        let b = |u| nat(u, 2, 20, 10, 20);
        let mut est = SplitEstimator::new(100);
        for u in 0..10 {
            est.record(&[a(u), b(u + 100)]);
        }
        let q: VecDeque<Entry> = vec![code(&[a(1), b(2)]), code(&[a(3)]), code(&[a(4)])].into();
        let s = coded_queue_sizes(&q, None, &est);
        assert_eq!(size(&s, a(0).flow()), 3.0);
        assert_eq!(size(&s, b(0).flow()), 0.0);
        let h = hqueue_sizes(&q, None, &est);
        let coded = CodeSig::of(&[a(0), b(0)]);
        assert_eq!(h.iter().find(|(s, _)| *s == coded).unwrap().1, 3.0);
    }

    #[test]
    fn ties_make_both_dominant() {
        let a = |u| nat(u, 1, 10, 20, 10);
        let b = |u| nat(u, 2, 20, 10, 20);
        let mut est = SplitEstimator::new(100);
        for u in 0..10 {
            est.record(&[a(u), b(u + 100)]);
        }
        let q: VecDeque<Entry> = vec![code(&[a(1), b(2)]), code(&[a(3)]), code(&[b(4)])].into();
        let s = coded_queue_sizes(&q, None, &est);
        assert_eq!(size(&s, a(0).flow()), 2.0);
        assert_eq!(size(&s, b(0).flow()), 2.0);
    }

    #[test]
    fn split_weights_shares() {
        // a: half its transmissions coded with b, half alone; b always coded with a.
        let a = |u| nat(u, 1, 10, 20, 10);
        let b = |u| nat(u, 2, 20, 10, 20);
        let mut est = SplitEstimator::new(100);
        for u in 0..4 {
            est.record(&[a(u), b(u + 100)]);
            est.record(&[a(u + 50)]);
        }
        // Q_a = 6, Q_b = 4. Coded code: a 6·0.5 = 3 < b 4·1 = 4, b dominant.
        // a's native code: a 6·0.5 = 3, a dominant.
        let mut q: VecDeque<Entry> = VecDeque::new();
        for u in 0..4 {
            q.push_back(code(&[a(u), b(u + 100)]));
        }
        q.push_back(code(&[a(10)]));
        q.push_back(code(&[a(11)]));
        let s = coded_queue_sizes(&q, None, &est);
        assert!((size(&s, a(0).flow()) - 3.0).abs() < 1e-12);
        assert!((size(&s, b(0).flow()) - 4.0).abs() < 1e-12);
    }
}
