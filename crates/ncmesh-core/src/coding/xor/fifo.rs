//! COPE's output queue (Katti et al. §3.3): natives in FIFO order; at each transmission
//! opportunity the head is coded with, for every other next hop, the first waiting
//! packet of a similar size (then of the other size class) as long as every next hop
//! can still decode. Drop-tail when full.

use super::entry::{can_join, Native};
use super::queue::{Code, OutputQueue, QueueCx};
use smallvec::SmallVec;
use std::collections::VecDeque;

#[derive(Default)]
pub struct FifoQueue {
    q: VecDeque<Native>,
}

impl FifoQueue {
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

    fn push_front(&mut self, _cx: &mut QueueCx, n: Native) {
        self.q.push_front(n);
    }

    fn pop(&mut self, cx: &mut QueueCx) -> Option<Code> {
        let head = self.q.pop_front()?;
        let mut picked: SmallVec<[usize; 4]> = SmallVec::new();
        if cx.may_code(&head) {
            let small = head.is_small();
            // Same size class first, then the other (COPE §3.3, virtual queues).
            for same_class in [true, false] {
                for (i, n) in self.q.iter().enumerate() {
                    if !cx.room_in_code(picked.len() + 1) {
                        break;
                    }
                    if (n.is_small() == small) != same_class
                        || !cx.may_code(n)
                        || picked.contains(&i)
                    {
                        continue;
                    }
                    let mut members: SmallVec<[&Native; 8]> = SmallVec::new();
                    members.push(&head);
                    members.extend(picked.iter().map(|&j| &self.q[j]));
                    // Only the first packet per (next hop, size class) is a candidate: the
                    // heads of COPE's per-neighbour virtual queues.
                    if self
                        .q
                        .iter()
                        .take(i)
                        .any(|o| o.next_hop == n.next_hop && o.is_small() == n.is_small())
                    {
                        continue;
                    }
                    if can_join(&members, n, cx.knowledge, cx.threshold) {
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
