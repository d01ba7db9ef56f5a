//! COPE's output queue (Katti et al. §3.3): natives in FIFO order; at each transmission
//! opportunity the head is coded with, for every other next hop, the first waiting
//! packet of a similar size (then of the other size class) as long as every next hop
//! can still decode. Drop-tail when full.

use super::entry::Native;
use super::queue::{Code, OutputQueue, QueueCx};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// COPE's output queue (Katti et al. §3.3): natives in arrival order, coded at each transmission
/// opportunity around the head.
#[derive(Default)]
pub struct FifoQueue {
    q: VecDeque<Native>,
}

impl FifoQueue {
    /// An empty queue.
    pub fn new() -> FifoQueue {
        FifoQueue::default()
    }
}

impl OutputQueue for FifoQueue {
    fn push(&mut self, cx: &mut QueueCx, n: Native) -> SmallVec<[Native; 1]> {
        let mut dropped = SmallVec::new();
        if self.q.len() >= cx.capacity {
            dropped.push(n);
        } else {
            self.q.push_back(n);
        }
        dropped
    }

    fn push_bound(&mut self, cx: &mut QueueCx, code: Code) -> Code {
        if self.q.len() + code.len() > cx.capacity {
            return code;
        }
        self.q.extend(code);
        SmallVec::new()
    }

    fn push_front(&mut self, _cx: &mut QueueCx, n: Native) {
        self.q.push_front(n);
    }

    fn pop(&mut self, cx: &mut QueueCx) -> Option<Code> {
        let head = self.q.pop_front()?;
        if head.bound != 0 {
            // A two-hop code being forwarded leaves whole, with nothing else.
            let g = head.bound;
            let mut code: Code = SmallVec::new();
            code.push(head);
            let mut i = 0;
            while i < self.q.len() {
                if self.q[i].bound == g {
                    code.push(self.q.remove(i).expect("index"));
                } else {
                    i += 1;
                }
            }
            return Some(code);
        }
        let mut picked: SmallVec<[usize; 4]> = SmallVec::new();
        if cx.may_code(&head) {
            let small = head.is_small();
            // Same size class first, then the other (COPE §3.3, virtual queues).
            for same_class in [true, false] {
                for (i, n) in self.q.iter().enumerate() {
                    if !cx.room_in_code(picked.len() + 1) {
                        break;
                    }
                    // (Each pass sees one size class, so no index is picked twice.)
                    if (n.is_small() == small) != same_class || !cx.may_code(n) {
                        continue;
                    }
                    let mut members: SmallVec<[&Native; 8]> = SmallVec::new();
                    members.push(&head);
                    members.extend(picked.iter().map(|&j| &self.q[j]));
                    // Only the first packet per (next hop, size class) is a candidate: the
                    // heads of COPE's per-neighbour virtual queues (with two-hop coding,
                    // per next hop and hop after it).
                    if self.q.iter().take(i).any(|o| {
                        o.next_hop == n.next_hop
                            && o.is_small() == n.is_small()
                            && (!cx.two_hop || o.then == n.then)
                    }) {
                        continue;
                    }
                    if cx.can_join(&members, n) {
                        picked.push(i);
                    }
                }
            }
        }
        let mut code: Code = SmallVec::new();
        code.push(head);
        picked.sort_unstable();
        for &i in picked.iter().rev() {
            code.push(self.q.remove(i).expect("picked index"));
        }
        code[1..].reverse();
        Some(code)
    }

    fn take_native(&mut self, f: &mut dyn FnMut(&Native) -> bool) -> Option<Native> {
        let i = self.q.iter().position(|n| n.bound == 0 && f(n))?;
        self.q.remove(i)
    }

    fn any_native(&self, f: &mut dyn FnMut(&Native) -> bool) -> bool {
        self.q.iter().any(f)
    }

    fn packets(&self) -> usize {
        self.q.len()
    }

    fn slots(&self) -> usize {
        self.q.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::ncaqm::testutil::{cx, nat, FnKnowledge};
    use crate::coding::xor::entry::decodable;
    use crate::engine::{Rng, StreamPurpose};
    use crate::net::NodeId;

    /// Random queues and random neighbour knowledge: every code popped is decodable at
    /// each of its next hops with probability >= G, has one packet per next hop and
    /// per flow, and every packet comes out exactly once.
    #[test]
    fn every_code_is_decodable_by_every_next_hop() {
        for seed in 0..200 {
            let mut rng = Rng::stream(seed, 0, StreamPurpose::Scheme);
            let mut table = [[0.0f64; 64]; 8];
            for row in table.iter_mut() {
                for p in row.iter_mut() {
                    *p = [0.0, 0.5, 0.85, 0.9, 1.0][rng.below_incl(4) as usize];
                }
            }
            let k =
                FnKnowledge(move |nb: NodeId, n: &Native| table[nb as usize][n.pkt.uid as usize]);
            let mut q = FifoQueue::new();
            let mut draws = Rng::stream(seed, 1, StreamPurpose::Scheme);
            let mut qcx = cx(&mut draws, &k, 64);
            let mut n_in = 0;
            for uid in 0..40u64 {
                let hop = 1 + rng.below_incl(6);
                let flow = rng.below_incl(5);
                assert!(q
                    .push(&mut qcx, nat(uid, flow, 10 + flow, hop, 7))
                    .is_empty());
                n_in += 1;
            }
            let mut seen = Vec::new();
            let mut coded = 0;
            while let Some(code) = q.pop(&mut qcx) {
                let members: Vec<&Native> = code.iter().collect();
                if code.len() > 1 {
                    coded += 1;
                    assert!(decodable(&members, &k, 0.8), "seed {seed}: {code:?}");
                }
                for (i, a) in code.iter().enumerate() {
                    for b in &code[i + 1..] {
                        assert_ne!(a.next_hop, b.next_hop);
                        assert_ne!(a.flow(), b.flow());
                    }
                    seen.push(a.pkt.uid);
                }
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..n_in).collect::<Vec<_>>());
            assert!(seed > 0 || coded > 0, "the test must exercise coding");
        }
    }

    #[test]
    fn a_late_ack_takes_its_native_out_but_never_a_bound_one() {
        let k = FnKnowledge(|_: NodeId, _: &Native| 0.0);
        let mut draws = Rng::stream(0, 1, StreamPurpose::Scheme);
        let mut qcx = cx(&mut draws, &k, 8);
        let mut q = FifoQueue::new();
        let mut bound = nat(3, 1, 10, 2, 7);
        bound.bound = 5;
        q.push(&mut qcx, nat(1, 0, 10, 1, 7));
        q.push(&mut qcx, nat(2, 0, 10, 1, 7));
        q.push_bound(&mut qcx, [bound].into_iter().collect());
        let is = |uid: u64| move |n: &Native| n.pkt.uid == uid;
        assert_eq!(q.take_native(&mut is(2)).map(|n| n.pkt.uid), Some(2));
        assert!(
            q.take_native(&mut is(3)).is_none(),
            "bound natives leave together"
        );
        assert_eq!(q.packets(), 2);
        assert_eq!(q.pop(&mut qcx).map(|c| c[0].pkt.uid), Some(1));
    }

    #[test]
    fn the_head_goes_first_and_codes_with_the_first_packet_per_next_hop() {
        let k = FnKnowledge(|nb: NodeId, n: &Native| if n.prev_hop == nb { 1.0 } else { 0.0 });
        let mut r = Rng::stream(1, 0, StreamPurpose::Scheme);
        let mut qcx = cx(&mut r, &k, 10);
        let mut q = FifoQueue::new();
        // Alice-and-Bob at the relay: a packet from A for B, two from B for A.
        q.push(&mut qcx, nat(1, 0, 0, 2, 0));
        q.push(&mut qcx, nat(2, 1, 2, 0, 2));
        q.push(&mut qcx, nat(3, 1, 2, 0, 2));
        let c = q.pop(&mut qcx).unwrap();
        assert_eq!(c.iter().map(|n| n.pkt.uid).collect::<Vec<_>>(), vec![1, 2]);
        let c = q.pop(&mut qcx).unwrap();
        assert_eq!(c.len(), 1, "nothing left for the other next hop");
    }

    #[test]
    fn encode_once_sends_a_coded_native_alone_and_never_codes_it_again() {
        let k = FnKnowledge(|nb: NodeId, n: &Native| if n.prev_hop == nb { 1.0 } else { 0.0 });
        let mut r = Rng::stream(1, 0, StreamPurpose::Scheme);
        let mut qcx = cx(&mut r, &k, 10);
        qcx.encode_once = true;
        let mut q = FifoQueue::new();
        let mut again = nat(1, 0, 0, 2, 0);
        again.was_coded = true;
        q.push(&mut qcx, nat(2, 1, 2, 0, 2));
        q.push_front(&mut qcx, again);
        let c = q.pop(&mut qcx).unwrap();
        assert_eq!((c.len(), c[0].pkt.uid), (1, 1), "retransmitted natively");
        // And a fresh head does not pick it as a partner either.
        let mut again = nat(3, 0, 0, 2, 0);
        again.was_coded = true;
        q.push(&mut qcx, again);
        let c = q.pop(&mut qcx).unwrap();
        assert_eq!((c.len(), c[0].pkt.uid), (1, 2));
        qcx.encode_once = false;
        let mut q = FifoQueue::new();
        let mut again = nat(1, 0, 0, 2, 0);
        again.was_coded = true;
        q.push(&mut qcx, nat(2, 1, 2, 0, 2));
        q.push_front(&mut qcx, again);
        assert_eq!(
            q.pop(&mut qcx).unwrap().len(),
            2,
            "plain COPE codes it again"
        );
    }
}
