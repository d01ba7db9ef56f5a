//! NCAQM, network coding-aware queue management (Seferoglu & Markopoulou §V-A): one physical FIFO of
//! slots, each a native or a code; packets are coded when they enter the queue (Alg. 1),
//! a periodic pass codes queued slots together, and a full queue drops from the flow
//! with the largest network-coded queue size (Alg. 2).
//!
//! - [`split`]: traffic-splitting estimate ĥ over a window of transmissions.
//! - [`hqueue`]: per-flow counts Q_s, virtual h-queue sizes, dominance, Q̃_s.
//! - [`drop`]: Alg. 2's choice of the packet to drop.

pub mod config;
pub mod drop;
pub mod hqueue;
pub mod split;
#[cfg(test)]
pub(crate) mod testutil;

pub use config::NcaqmCfg;
pub use drop::{choose_drop, choose_flow, DropChoice};
pub use hqueue::{coded_queue_sizes, flow_counts, hqueue_sizes, FlowCount};
pub use split::{CodeSig, SplitEstimator};

use crate::coding::xor::entry::{decodable, Entry, FlowKey, Native};
use crate::coding::xor::queue::{Code, OutputQueue, QueueCx};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// NCAQM's own settings (values the paper's text copy lost).
#[derive(Debug, Clone, PartialEq)]
pub struct NcaqmParams {
    /// Transmissions of this node in the traffic-splitting window (Seferoglu & Markopoulou §V-A2; the
    /// window length is lost). Default 100 frames: long enough that a split of a few
    /// codes is measured to within a few percent, short enough (well under a second of
    /// 802.11 airtime at a busy relay) to follow TCP's rate changes. 0 keeps no history:
    /// every flow counts as sent natively, and Alg. 2 drops from the longest flow.
    pub split_window: usize,
}

impl Default for NcaqmParams {
    fn default() -> NcaqmParams {
        NcaqmParams { split_window: 100 }
    }
}

/// NCAQM's output queue: capacity counts slots, so a code of k natives takes one slot.
pub struct NcaqmQueue {
    q: VecDeque<Entry>,
    /// Natives held over all slots.
    natives: usize,
    est: SplitEstimator,
}

impl Default for NcaqmQueue {
    fn default() -> NcaqmQueue {
        NcaqmQueue::new(&NcaqmParams::default())
    }
}

impl NcaqmQueue {
    /// An empty queue with the split estimator's window from `params`.
    pub fn new(params: &NcaqmParams) -> NcaqmQueue {
        NcaqmQueue {
            q: VecDeque::new(),
            natives: 0,
            est: SplitEstimator::new(params.split_window),
        }
    }

    /// The slots, head first.
    pub fn entries(&self) -> &VecDeque<Entry> {
        &self.q
    }

    /// The estimator of how flows were split over codes in recent transmissions.
    pub fn estimator(&self) -> &SplitEstimator {
        &self.est
    }

    /// Q̃_s of every flow queued here now.
    pub fn coded_queue_sizes(&self) -> Vec<(FlowKey, f64)> {
        coded_queue_sizes(&self.q, None, &self.est)
    }

    /// Seferoglu & Markopoulou §V-A2, Alg. 1, the periodic pass: each slot, head first, absorbs every
    /// later slot whose union with it is still an eligible code; absorbed slots are freed
    /// and the others keep their order. Returns the slots freed.
    pub fn recode(&mut self, cx: &QueueCx) -> usize {
        let len = self.q.len();
        let mut freed = 0;
        for k in 0..len {
            if self.q[k].items.is_empty() || !self.q[k].items.iter().all(|m| cx.may_code(m)) {
                continue;
            }
            for j in k + 1..len {
                if !self.q[j].items.is_empty()
                    && mergeable(cx, &self.q[k], &self.q[j])
                    && !overtakes(&self.q, k, j)
                {
                    let taken = std::mem::take(&mut self.q[j].items);
                    self.q[k].items.extend(taken);
                    freed += 1;
                }
            }
        }
        if freed > 0 {
            self.q.retain(|e| !e.items.is_empty());
        }
        freed
    }
}

/// Would moving slot `j`'s natives forward into slot `k` (k < j) put one ahead of an
/// earlier packet of its own flow (in a slot between)? NCAQM reorders flows against each
/// other, never a flow's own packets (TCP would read that as loss).
fn overtakes(q: &VecDeque<Entry>, k: usize, j: usize) -> bool {
    q[j].items
        .iter()
        .any(|n| q.range(k + 1..j).any(|e| e.has_flow(n.flow())))
}

/// The head's code, re-checked with what the node knows now (Seferoglu & Markopoulou
/// §V-A2: the head is checked for coding again before it leaves). NCAQM coded it at
/// enqueue, on guesses; reports since may show a next hop cannot decode. Keeps a
/// decodable subset, chosen greedily head first; the rest go back to the head as
/// natives, in their order. Codes bound for two hops leave as they are.
fn recheck_head(cx: &QueueCx, code: &mut Code) -> Code {
    let still = {
        let members: SmallVec<[&Native; 8]> = code.iter().collect();
        decodable(&members, cx.knowledge, cx.threshold)
    };
    if code.len() < 2 || code.iter().any(|m| m.bound != 0) || still {
        return Code::new();
    }
    let mut kept = Code::new();
    let mut back = Code::new();
    for n in code.drain(..) {
        let joins = {
            let members: SmallVec<[&Native; 8]> = kept.iter().collect();
            members.is_empty() || cx.can_join(&members, &n)
        };
        if joins {
            kept.push(n);
        } else {
            back.push(n);
        }
    }
    *code = kept;
    back
}

/// May `n` join slot `e` at enqueue (Alg. 1): room in the code, no member barred by
/// Encode Once, and `can_join` (new flow, new next hop, all next hops decode).
fn joinable(cx: &QueueCx, e: &Entry, n: &Native) -> bool {
    if !cx.room_in_code(e.items.len()) || !e.items.iter().all(|m| cx.may_code(m)) {
        return false;
    }
    let members: SmallVec<[&Native; 8]> = e.items.iter().collect();
    cx.can_join(&members, n)
}

/// Is the union of slots `a` and `b` an eligible code (Alg. 1)? `a`'s natives are
/// already known codable; each of `b`'s joins in turn, so the last check covers the
/// whole union's decodability.
fn mergeable(cx: &QueueCx, a: &Entry, b: &Entry) -> bool {
    if cx.max_code != 0 && a.items.len() + b.items.len() > cx.max_code {
        return false;
    }
    if !b.items.iter().all(|m| cx.may_code(m)) {
        return false;
    }
    let mut members: SmallVec<[&Native; 8]> = a.items.iter().collect();
    for n in &b.items {
        if !cx.can_join(&members, n) {
            return false;
        }
        members.push(n);
    }
    true
}

impl OutputQueue for NcaqmQueue {
    fn push(&mut self, cx: &mut QueueCx, n: Native) -> SmallVec<[Native; 1]> {
        let mut dropped = SmallVec::new();
        // Seferoglu & Markopoulou §V-A2, Alg. 1: code at enqueue into the first eligible
        // slot behind the flow's own packets (a flow's packets keep their order).
        if cx.may_code(&n) {
            let behind = self
                .q
                .iter()
                .rposition(|e| e.has_flow(n.flow()))
                .map_or(0, |i| i + 1);
            if let Some(i) = (behind..self.q.len()).find(|&i| joinable(cx, &self.q[i], &n)) {
                self.q[i].items.push(n);
                self.natives += 1;
                return dropped;
            }
        }
        if self.q.len() < cx.capacity {
            self.q.push_back(Entry::native(n));
            self.natives += 1;
            return dropped;
        }
        // Seferoglu & Markopoulou §V-A2, Alg. 2.
        match choose_drop(&self.q, &n, &self.est, cx.rng) {
            DropChoice::Arrival => dropped.push(n),
            DropChoice::Queued(i) => {
                let e = self.q.remove(i).expect("drop index in queue");
                debug_assert!(!e.is_coded());
                dropped.extend(e.items);
                self.q.push_back(Entry::native(n));
            }
        }
        dropped
    }

    fn push_bound(&mut self, cx: &mut QueueCx, code: Code) -> Code {
        // A two-hop code to forward is stored as the code it is: one slot.
        if self.q.len() >= cx.capacity {
            return code;
        }
        self.natives += code.len();
        self.q.push_back(Entry {
            items: code.into_iter().collect(),
        });
        SmallVec::new()
    }

    fn push_front(&mut self, _cx: &mut QueueCx, n: Native) {
        self.q.push_front(Entry::native(n));
        self.natives += 1;
    }

    fn pop(&mut self, cx: &mut QueueCx) -> Option<Code> {
        let head = self.q.pop_front()?;
        let mut code: Code = head.items.into_iter().collect();
        // Seferoglu & Markopoulou §V-A2: the head is checked for coding once more before
        // it leaves: what no longer decodes stays at the head; later native slots join
        // it first-fit, head first, if no earlier packet of their flow waits before them.
        for n in recheck_head(cx, &mut code).into_iter().rev() {
            self.q.push_front(Entry::native(n));
        }
        if code.iter().all(|m| cx.may_code(m)) {
            let mut picked: SmallVec<[usize; 4]> = SmallVec::new();
            for (i, e) in self.q.iter().enumerate() {
                if !cx.room_in_code(code.len() + picked.len()) {
                    break;
                }
                if e.items.len() != 1
                    || !cx.may_code(&e.items[0])
                    || self.q.range(..i).any(|o| o.has_flow(e.items[0].flow()))
                {
                    continue;
                }
                let mut members: SmallVec<[&Native; 8]> = code.iter().collect();
                members.extend(picked.iter().map(|&j| &self.q[j].items[0]));
                if cx.can_join(&members, &e.items[0]) {
                    picked.push(i);
                }
            }
            let base = code.len();
            for &i in picked.iter().rev() {
                code.extend(self.q.remove(i).expect("picked index").items);
            }
            code[base..].reverse();
        }
        self.natives -= code.len();
        Some(code)
    }

    fn tick(&mut self, cx: &mut QueueCx) {
        self.recode(cx);
    }

    fn on_sent(&mut self, code: &[Native]) {
        self.est.record(code);
    }

    fn take_native(&mut self, f: &mut dyn FnMut(&Native) -> bool) -> Option<Native> {
        let (i, j) = self.q.iter().enumerate().find_map(|(i, e)| {
            let j = e.items.iter().position(|n| n.bound == 0 && f(n))?;
            Some((i, j))
        })?;
        let n = self.q[i].items.remove(j);
        if self.q[i].items.is_empty() {
            self.q.remove(i);
        }
        self.natives -= 1;
        Some(n)
    }

    fn any_native(&self, f: &mut dyn FnMut(&Native) -> bool) -> bool {
        self.q.iter().any(|e| e.items.iter().any(&mut *f))
    }

    fn packets(&self) -> usize {
        self.natives
    }

    fn slots(&self) -> usize {
        self.q.len()
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::{a, b, c, code, cx, d, nat, prev_hop_knows, rng, FnKnowledge};
    use super::*;
    use crate::net::NodeId;

    // testutil's flows a, b, c, d at one relay: with `prev_hop_knows`, a codes with b
    // and c with d (Alice and Bob twice), never a with c or d.

    fn everyone_knows() -> FnKnowledge<impl Fn(NodeId, &Native) -> f64> {
        FnKnowledge(|_: NodeId, _: &Native| 1.0)
    }
    fn nobody_knows() -> FnKnowledge<impl Fn(NodeId, &Native) -> f64> {
        FnKnowledge(|_: NodeId, _: &Native| 0.0)
    }

    fn uids(q: &NcaqmQueue) -> Vec<Vec<u64>> {
        q.q.iter()
            .map(|e| e.items.iter().map(|n| n.pkt.uid).collect())
            .collect()
    }

    fn from_entries(entries: Vec<Entry>) -> NcaqmQueue {
        NcaqmQueue {
            natives: entries.iter().map(|e| e.items.len()).sum(),
            q: entries.into(),
            ..NcaqmQueue::default()
        }
    }

    /// Every slot holds natives of distinct flows and distinct next hops; the native
    /// count matches.
    fn check(q: &NcaqmQueue) {
        for e in &q.q {
            assert!(!e.items.is_empty());
            for (i, x) in e.items.iter().enumerate() {
                for y in &e.items[i + 1..] {
                    assert_ne!(x.flow(), y.flow(), "{:?}", uids(q));
                    assert_ne!(x.next_hop, y.next_hop, "{:?}", uids(q));
                }
            }
        }
        assert_eq!(
            q.packets(),
            q.q.iter().map(|e| e.items.len()).sum::<usize>()
        );
        assert_eq!(q.slots(), q.q.len());
    }

    #[test]
    fn push_codes_into_the_first_eligible_slot() {
        let k = prev_hop_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 10);
        let mut q = NcaqmQueue::default();
        for n in [a(1), a(2), c(3)] {
            assert!(q.push(&mut x, n).is_empty());
        }
        assert_eq!(uids(&q), vec![vec![1], vec![2], vec![3]]);
        // b codes with the first a, d with c; the next b with the second a.
        q.push(&mut x, b(4));
        q.push(&mut x, d(5));
        q.push(&mut x, b(6));
        assert_eq!(uids(&q), vec![vec![1, 4], vec![2, 6], vec![3, 5]]);
        // A third a finds only slots already holding a flow-a packet.
        q.push(&mut x, a(7));
        assert_eq!(uids(&q), vec![vec![1, 4], vec![2, 6], vec![3, 5], vec![7]]);
        assert_eq!((q.packets(), q.slots()), (7, 4));
        check(&q);
    }

    #[test]
    fn push_never_codes_one_flow_or_one_next_hop_twice() {
        // Decoding is never in doubt here: only the distinct-flow and distinct-next-hop
        // rules hold packets apart.
        let k = everyone_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 100);
        let mut q = NcaqmQueue::default();
        // e: another flow towards 20 (a's next hop); g: another flow out of 10.
        let e = |u| nat(u, 5, 10, 20, 10);
        let g = |u| nat(u, 6, 50, 10, 50);
        for n in [a(1), a(2), e(3), b(4), g(5), c(6), b(7), g(8)] {
            q.push(&mut x, n);
            check(&q);
        }
        assert_eq!(
            uids(&q),
            vec![vec![1, 4, 6], vec![2, 5], vec![3, 7], vec![8]]
        );
    }

    #[test]
    fn max_code_limits_natives_per_slot() {
        let k = everyone_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 100);
        x.max_code = 2;
        let mut q = NcaqmQueue::default();
        for n in [a(1), b(2), c(3), d(4)] {
            q.push(&mut x, n);
        }
        assert_eq!(uids(&q), vec![vec![1, 2], vec![3, 4]]);
    }

    #[test]
    fn capacity_counts_slots_not_packets() {
        let k = prev_hop_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 2);
        let mut q = NcaqmQueue::default();
        for n in [a(1), b(2), c(3), d(4)] {
            assert!(q.push(&mut x, n).is_empty());
        }
        assert_eq!((q.packets(), q.slots()), (4, 2));
        // Full, and a(5) codes nowhere: a is the longest flow and a(5) its newest
        // uncoded packet.
        let dropped = q.push(&mut x, a(5));
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].pkt.uid, 5);
        // b(6) codes nowhere either (slot 0 holds a b, c and d cannot decode it), and b
        // is now the longest flow.
        assert_eq!(q.push(&mut x, b(6)).len(), 1);
        assert_eq!((q.packets(), q.slots()), (4, 2));
        check(&q);
    }

    #[test]
    fn full_queue_drops_the_dominant_flows_last_uncoded_packet() {
        let k = nobody_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 4);
        let mut q = NcaqmQueue::default();
        for n in [a(1), a(2), c(3), a(4)] {
            q.push(&mut x, n);
        }
        let dropped = q.push(&mut x, c(5));
        assert_eq!(dropped.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [4]);
        assert_eq!(uids(&q), vec![vec![1], vec![2], vec![3], vec![5]]);
        check(&q);
    }

    #[test]
    fn sent_codes_feed_dominance() {
        // Seferoglu & Markopoulou §V-B Example 2 at a relay: a and b always leave coded together; at
        // congestion the flow with more packets here (a) is the one that loses one, even
        // though the arrival is b's.
        let k = nobody_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 4);
        let mut q = from_entries(vec![code(&[a(1), b(2)]), code(&[a(3)]), code(&[a(4)])]);
        for u in 0..20 {
            q.on_sent(&[a(100 + u), b(200 + u)]);
        }
        q.push(&mut x, c(5));
        let dropped = q.push(&mut x, b(6));
        assert_eq!(dropped.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [4]);
        assert_eq!(uids(&q), vec![vec![1, 2], vec![3], vec![5], vec![6]]);
        // Now a and b hold two packets each: both dominate their code.
        let sizes = q.coded_queue_sizes();
        assert_eq!(sizes[0], (a(0).flow(), 2.0));
        assert_eq!(sizes[1], (b(0).flow(), 2.0));
    }

    #[test]
    fn recode_merges_eligible_slots_and_keeps_order() {
        let none = nobody_knows();
        let mut r = rng(0);
        let mut q = NcaqmQueue::default();
        {
            let mut x = cx(&mut r, &none, 10);
            for n in [a(1), c(2), b(3), d(4), a(5), b(6)] {
                q.push(&mut x, n);
            }
        }
        assert_eq!(q.slots(), 6);
        // Reception reports arrive: now a codes with b and c with d.
        let k = prev_hop_knows();
        let mut x = cx(&mut r, &k, 10);
        q.tick(&mut x);
        assert_eq!(uids(&q), vec![vec![1, 3], vec![2, 4], vec![5, 6]]);
        assert_eq!(q.packets(), 6);
        check(&q);
        // Nothing left to merge.
        assert_eq!(q.recode(&x), 0);
    }

    #[test]
    fn recode_merges_codes_with_codes_within_max_code() {
        let k = everyone_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 10);
        let entries = vec![code(&[a(1), b(2)]), code(&[c(3), d(4)]), code(&[a(5)])];
        x.max_code = 2;
        let mut q = from_entries(entries.clone());
        assert_eq!(q.recode(&x), 0);
        // Room for three: the two codes stay apart, a joins c and d.
        x.max_code = 3;
        assert_eq!(q.recode(&x), 1);
        assert_eq!(uids(&q), vec![vec![1, 2], vec![3, 4, 5]]);
        check(&q);
        // No limit: the two codes merge; a cannot join the flow-a slot.
        x.max_code = 0;
        let mut q = from_entries(entries);
        assert_eq!(q.recode(&x), 1);
        assert_eq!(uids(&q), vec![vec![1, 2, 3, 4], vec![5]]);
        check(&q);
    }

    #[test]
    fn pop_codes_the_head_with_later_native_slots_only() {
        let k = everyone_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 10);
        // b is in a code: it stays; d (native) joins; the second a cannot (same flow).
        let mut q = from_entries(vec![
            code(&[a(1)]),
            code(&[b(2), c(3)]),
            code(&[a(4)]),
            code(&[d(5)]),
        ]);
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [1, 5]);
        assert_eq!(uids(&q), vec![vec![2, 3], vec![4]]);
        assert_eq!(q.packets(), 3);
        // A coded head takes a later native too.
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(
            sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(),
            [2, 3, 4]
        );
        assert!(q.pop(&mut x).is_none());
        assert_eq!((q.packets(), q.slots()), (0, 0));
    }

    #[test]
    fn pop_respects_decodability_and_order() {
        let k = prev_hop_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 10);
        let mut q = from_entries(vec![
            code(&[a(1)]),
            code(&[c(2)]),
            code(&[b(3)]),
            code(&[b(4)]),
        ]);
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(uids(&q), vec![vec![2], vec![4]]);
    }

    #[test]
    fn a_head_code_that_no_longer_decodes_is_split_before_it_leaves() {
        // Coded at enqueue on guesses (everyone holds everything); by the time the code
        // reaches the head, reports show that each neighbour holds only what it sent:
        // c's next hop (40) cannot decode a XOR b XOR c.
        let all = everyone_knows();
        let mut r = rng(0);
        let mut q = NcaqmQueue::default();
        {
            let mut x = cx(&mut r, &all, 10);
            for n in [a(1), b(2), c(3)] {
                assert!(q.push(&mut x, n).is_empty());
            }
        }
        assert_eq!(uids(&q), vec![vec![1, 2, 3]], "one code at enqueue");
        let now = prev_hop_knows();
        let mut x = cx(&mut r, &now, 10);
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(uids(&q), vec![vec![3]], "c waits at the head, alone");
        assert_eq!(q.packets(), 1);
        check(&q);
    }

    /// Neighbours hold every packet except uid 2.
    fn all_but_2() -> FnKnowledge<impl Fn(NodeId, &Native) -> f64> {
        FnKnowledge(|_: NodeId, p: &Native| if p.pkt.uid == 2 { 0.0 } else { 1.0 })
    }

    #[test]
    fn coding_never_puts_a_packet_ahead_of_an_earlier_one_of_its_flow() {
        let k = all_but_2();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 10);
        // At enqueue: a(2) cannot join c(1)'s slot (40 lacks it); a(3) could, but would
        // then leave before a(2).
        let mut q = NcaqmQueue::default();
        for n in [c(1), a(2), a(3)] {
            assert!(q.push(&mut x, n).is_empty());
        }
        assert_eq!(uids(&q), vec![vec![1], vec![2], vec![3]]);
        // The periodic pass does not merge a(3) forward either.
        assert_eq!(q.recode(&x), 0);
        assert_eq!(uids(&q), vec![vec![1], vec![2], vec![3]]);
        // Nor does the head's first-fit pick it over a(2).
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [1]);
        // Another flow's packet behind them still codes with the head.
        let mut q = from_entries(vec![code(&[c(1)]), code(&[a(2)]), code(&[b(3)])]);
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [1, 3]);
        check(&q);
    }

    #[test]
    fn a_late_ack_takes_its_native_out_of_a_code_or_a_slot() {
        // a(1) and b(2) coded in one slot, c(3) alone, a two-hop code's member bound.
        let mut bound = d(4);
        bound.bound = 7;
        let mut q = from_entries(vec![code(&[a(1), b(2)]), code(&[c(3)]), code(&[bound])]);
        let is = |uid: u64| move |n: &Native| n.pkt.uid == uid;
        assert_eq!(q.take_native(&mut is(2)).map(|n| n.pkt.uid), Some(2));
        assert_eq!(uids(&q), vec![vec![1], vec![3], vec![4]]);
        assert_eq!(q.take_native(&mut is(3)).map(|n| n.pkt.uid), Some(3));
        assert_eq!(uids(&q), vec![vec![1], vec![4]], "an emptied slot is freed");
        assert!(
            q.take_native(&mut is(4)).is_none(),
            "bound natives leave together"
        );
        assert!(q.take_native(&mut is(9)).is_none());
        check(&q);
    }

    #[test]
    fn push_front_goes_to_the_head_beyond_capacity() {
        let k = nobody_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 1);
        let mut q = NcaqmQueue::default();
        q.push(&mut x, a(1));
        q.push_front(&mut x, c(2));
        assert_eq!(uids(&q), vec![vec![2], vec![1]]);
        assert_eq!((q.packets(), q.slots()), (2, 2));
    }

    #[test]
    fn encode_once_never_codes_a_native_twice() {
        let k = everyone_knows();
        let mut r = rng(0);
        let mut x = cx(&mut r, &k, 10);
        x.encode_once = true;
        fn once(mut n: Native) -> Native {
            n.was_coded = true;
            n
        }
        let mut q = NcaqmQueue::default();
        // A coded-once native back at the head takes no partner, at push or pop.
        q.push_front(&mut x, once(a(1)));
        q.push(&mut x, b(2));
        assert_eq!(uids(&q), vec![vec![1], vec![2]]);
        // A coded-once arrival joins no slot; the re-coding pass leaves both alone.
        q.push(&mut x, once(c(3)));
        assert_eq!(uids(&q), vec![vec![1], vec![2], vec![3]]);
        q.tick(&mut x);
        assert_eq!(uids(&q), vec![vec![1], vec![2], vec![3]]);
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [1]);
        // b's head takes neither the coded-once c nor anything else.
        let sent = q.pop(&mut x).unwrap();
        assert_eq!(sent.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), [2]);
        // Without Encode Once the same natives code freely.
        x.encode_once = false;
        let mut q = NcaqmQueue::default();
        q.push_front(&mut x, once(a(1)));
        q.push(&mut x, b(2));
        q.push(&mut x, once(c(3)));
        assert_eq!(uids(&q), vec![vec![1, 2, 3]]);
    }
}
