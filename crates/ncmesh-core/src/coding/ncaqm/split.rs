//! Traffic-splitting estimate (Seferoglu & Markopoulou §V-A2): over the node's last `window`
//! transmissions, the share of a flow's transmissions that used one network code over
//! one hyperarc.

use crate::coding::xor::entry::{FlowKey, Native};
use crate::net::NodeId;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// A network code `m` (its flows) sent over a hyperarc `h` (its next hops), both
/// sorted and without duplicates. A native transmission is the code of one flow over
/// one next hop.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CodeSig {
    /// The hyperarc: next hops of the code's natives.
    pub hops: SmallVec<[NodeId; 4]>,
    /// The network code: flows of the code's natives.
    pub flows: SmallVec<[FlowKey; 4]>,
}

impl CodeSig {
    /// The signature of a frame carrying `code`.
    pub fn of(code: &[Native]) -> CodeSig {
        let mut hops: SmallVec<[NodeId; 4]> = code.iter().map(|n| n.next_hop).collect();
        let mut flows: SmallVec<[FlowKey; 4]> = code.iter().map(|n| n.flow()).collect();
        hops.sort_unstable();
        hops.dedup();
        flows.sort_unstable();
        flows.dedup();
        CodeSig { hops, flows }
    }

    /// The native code of `flow` over `next_hop`.
    pub fn native(flow: FlowKey, next_hop: NodeId) -> CodeSig {
        let mut hops = SmallVec::new();
        hops.push(next_hop);
        let mut flows = SmallVec::new();
        flows.push(flow);
        CodeSig { hops, flows }
    }

    /// Does the code carry a packet of flow `f`?
    pub fn has_flow(&self, f: FlowKey) -> bool {
        self.flows.binary_search(&f).is_ok()
    }

    /// A code of one flow over one next hop.
    pub fn is_native(&self) -> bool {
        self.flows.len() == 1 && self.hops.len() == 1
    }
}

/// Sliding window of the node's last transmissions, with running counts per signature
/// and per flow so that a split estimate costs a short scan, not a pass over the window.
#[derive(Debug, Clone)]
pub struct SplitEstimator {
    window: usize,
    recent: VecDeque<CodeSig>,
    /// Distinct signatures in the window and how many transmissions used each.
    codes: Vec<(CodeSig, u32)>,
    /// Flows seen in the window and how many transmissions carried each.
    flows: Vec<(FlowKey, u32)>,
}

impl SplitEstimator {
    /// An estimator over the last `window` transmissions (0: no history is kept and
    /// every flow is treated as sent natively only).
    pub fn new(window: usize) -> SplitEstimator {
        SplitEstimator {
            window,
            recent: VecDeque::with_capacity(window.min(4096)),
            codes: Vec::new(),
            flows: Vec::new(),
        }
    }

    /// Transmissions the window holds at most.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Transmissions currently in the window.
    pub fn len(&self) -> usize {
        self.recent.len()
    }

    /// No transmission in the window yet.
    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// A frame carrying `code` was transmitted.
    pub fn record(&mut self, code: &[Native]) {
        if code.is_empty() {
            return;
        }
        self.record_sig(CodeSig::of(code));
    }

    /// A transmission with signature `sig`.
    pub fn record_sig(&mut self, sig: CodeSig) {
        if self.window == 0 {
            return;
        }
        if self.recent.len() == self.window {
            let old = self.recent.pop_front().expect("full window");
            self.forget(&old);
        }
        for &f in &sig.flows {
            match self.flows.iter_mut().find(|(g, _)| *g == f) {
                Some((_, c)) => *c += 1,
                None => self.flows.push((f, 1)),
            }
        }
        match self.codes.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, c)) => *c += 1,
            None => self.codes.push((sig.clone(), 1)),
        }
        self.recent.push_back(sig);
    }

    fn forget(&mut self, sig: &CodeSig) {
        for &f in &sig.flows {
            if let Some(i) = self.flows.iter().position(|(g, _)| *g == f) {
                self.flows[i].1 -= 1;
                if self.flows[i].1 == 0 {
                    self.flows.swap_remove(i);
                }
            }
        }
        if let Some(i) = self.codes.iter().position(|(s, _)| s == sig) {
            self.codes[i].1 -= 1;
            if self.codes[i].1 == 0 {
                self.codes.swap_remove(i);
            }
        }
    }

    /// Windowed transmissions that carried `flow`.
    pub fn carried(&self, flow: FlowKey) -> u32 {
        self.flows
            .iter()
            .find(|(g, _)| *g == flow)
            .map_or(0, |&(_, c)| c)
    }

    /// Windowed transmissions with signature `sig`.
    pub fn count(&self, sig: &CodeSig) -> u32 {
        self.codes
            .iter()
            .find(|(s, _)| s == sig)
            .map_or(0, |&(_, c)| c)
    }

    /// The distinct signatures in the window, with their counts (order unspecified
    /// but deterministic).
    pub fn codes(&self) -> impl Iterator<Item = (&CodeSig, u32)> {
        self.codes.iter().map(|(s, c)| (s, *c))
    }

    /// ĥ(flow, h, m): the share of `flow`'s windowed transmissions that used `sig`
    /// (Seferoglu & Markopoulou §V-A2). A flow without history counts as always sent natively: 1 for
    /// any native code of that flow, 0 otherwise.
    pub fn split(&self, flow: FlowKey, sig: &CodeSig) -> f64 {
        if !sig.has_flow(flow) {
            return 0.0;
        }
        let carried = self.carried(flow);
        if carried == 0 {
            return if sig.is_native() { 1.0 } else { 0.0 };
        }
        self.count(sig) as f64 / carried as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::ncaqm::testutil::nat;

    #[test]
    fn signature_is_sets_of_hops_and_flows() {
        let a = nat(1, 1, 10, 20, 10);
        let b = nat(2, 2, 20, 10, 20);
        let s1 = CodeSig::of(&[a.clone(), b.clone()]);
        let s2 = CodeSig::of(&[b.clone(), a.clone()]);
        assert_eq!(s1, s2);
        assert_eq!(s1.hops.as_slice(), &[10, 20]);
        assert!(s1.has_flow(a.flow()) && s1.has_flow(b.flow()));
        assert!(!s1.is_native());
        assert_eq!(
            CodeSig::of(std::slice::from_ref(&a)),
            CodeSig::native(a.flow(), 20)
        );
    }

    #[test]
    fn split_is_share_of_the_flows_transmissions() {
        let a = nat(1, 1, 10, 20, 10);
        let b = nat(2, 2, 20, 10, 20);
        let mut est = SplitEstimator::new(100);
        // a: 3 times coded with b, once alone; b: 3 times coded, never alone.
        for _ in 0..3 {
            est.record(&[a.clone(), b.clone()]);
        }
        est.record(std::slice::from_ref(&a));
        let coded = CodeSig::of(&[a.clone(), b.clone()]);
        let a_alone = CodeSig::native(a.flow(), 20);
        assert_eq!(est.carried(a.flow()), 4);
        assert_eq!(est.carried(b.flow()), 3);
        assert!((est.split(a.flow(), &coded) - 0.75).abs() < 1e-12);
        assert!((est.split(a.flow(), &a_alone) - 0.25).abs() < 1e-12);
        assert!((est.split(b.flow(), &coded) - 1.0).abs() < 1e-12);
        assert_eq!(est.split(b.flow(), &a_alone), 0.0);
        assert_eq!(est.split(b.flow(), &CodeSig::native(b.flow(), 10)), 0.0);
    }

    #[test]
    fn no_history_means_native() {
        let est = SplitEstimator::new(100);
        let a = nat(1, 1, 10, 20, 10);
        let b = nat(2, 2, 20, 10, 20);
        assert_eq!(est.split(a.flow(), &CodeSig::native(a.flow(), 20)), 1.0);
        assert_eq!(est.split(a.flow(), &CodeSig::of(&[a, b])), 0.0);
    }

    #[test]
    fn window_slides() {
        let a = nat(1, 1, 10, 20, 10);
        let b = nat(2, 2, 20, 10, 20);
        let mut est = SplitEstimator::new(3);
        est.record(&[a.clone(), b.clone()]);
        est.record(std::slice::from_ref(&a));
        est.record(std::slice::from_ref(&a));
        assert_eq!(est.carried(b.flow()), 1);
        est.record(std::slice::from_ref(&a));
        assert_eq!(est.len(), 3);
        assert_eq!(est.carried(b.flow()), 0);
        assert_eq!(est.carried(a.flow()), 3);
        assert_eq!(est.codes().count(), 1);
        assert_eq!(est.split(a.flow(), &CodeSig::native(a.flow(), 20)), 1.0);
        // b's history is gone: back to the native default.
        assert_eq!(est.split(b.flow(), &CodeSig::native(b.flow(), 10)), 1.0);
    }

    #[test]
    fn zero_window_keeps_nothing() {
        let a = nat(1, 1, 10, 20, 10);
        let mut est = SplitEstimator::new(0);
        est.record(std::slice::from_ref(&a));
        assert!(est.is_empty());
        assert_eq!(est.carried(a.flow()), 0);
    }
}
