//! The future event list: a min-heap ordered by (time, insertion sequence), so events at
//! the same instant run in the order they were scheduled (determinism).
//!
//! The order is one integer, `time << 64 | seq`: the same total order as comparing
//! (time, sequence), in one comparison. It is stored complemented because `BinaryHeap`
//! is a max-heap.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    /// `!(time << 64 | seq)`: the greatest key is the earliest event.
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        (!self.key >> 64) as Time
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.key.cmp(&o.key)
    }
}

/// Pending events. Cancellation is lazy: owners keep generation counters and ignore
/// stale events when they fire, which keeps scheduling O(log n) and allocation-free.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            popped: 0,
        }
    }

    /// Schedules `event` at `time`, after every event already scheduled at that time.
    pub fn schedule(&mut self, time: Time, event: E) {
        self.seq += 1;
        self.heap.push(Entry {
            key: !((time as u128) << 64 | self.seq as u128),
            event,
        });
    }

    /// Removes and returns the earliest event if it is due at or before `until`.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.time() > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time(), e.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(Entry::time)
    }

    /// Number of pending events (stale ones included).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// No pending event.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events executed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Rng, StreamPurpose};

    #[test]
    fn orders_by_time_then_fifo() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop_until(10).map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    #[test]
    fn respects_horizon() {
        let mut q = EventQueue::new();
        q.schedule(20, 1);
        assert!(q.pop_until(19).is_none());
        assert_eq!(q.pop_until(20), Some((20, 1)));
        assert_eq!(q.popped(), 1);
    }

    /// Interleaved schedules and pops (as a simulation does) come out exactly in
    /// (time, scheduling order), checked against a sorted reference.
    #[test]
    fn matches_a_sorted_reference_under_interleaving() {
        let mut rng = Rng::stream(7, 0, StreamPurpose::Backoff);
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u32)> = Vec::new();
        let (mut now, mut id) = (0, 0u32);
        for _ in 0..20_000 {
            if rng.below_incl(2) > 0 || q.is_empty() {
                // Many ties: times on a coarse grid ahead of now.
                let t = now + rng.below_incl(40) as Time * 10;
                q.schedule(t, id);
                reference.push((t, id));
                id += 1;
            } else {
                // The reference's earliest: smallest time, then first scheduled.
                let k = (0..reference.len())
                    .min_by_key(|&k| (reference[k].0, reference[k].1))
                    .unwrap();
                let want = reference.remove(k);
                assert_eq!(q.pop_until(Time::MAX), Some(want));
                now = want.0;
            }
        }
        assert_eq!(q.len(), reference.len());
    }
}
