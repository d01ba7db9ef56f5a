//! Packets waiting for a route (RFC 3561 §6.3: "data packets waiting for a route ...
//! SHOULD be buffered"), FIFO, bounded in packets and in waiting time. Full: the oldest
//! packet goes (as ns-2's and ns-3's AODV queues do).

use crate::engine::Time;
use crate::wire::{NodeId, Packet};
use std::collections::VecDeque;

/// The buffer of one node.
#[derive(Debug, Clone)]
pub struct Buffer {
    q: VecDeque<(Time, Packet)>,
    capacity: usize,
    max_wait: Time,
}

impl Buffer {
    /// An empty buffer of `capacity` packets (at least 1) that keeps each at most
    /// `max_wait`.
    pub fn new(capacity: usize, max_wait: Time) -> Buffer {
        Buffer {
            q: VecDeque::new(),
            capacity: capacity.max(1),
            max_wait,
        }
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Is it empty?
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Buffers `p` at `now`; returns the oldest packet if it had to make room.
    pub fn push(&mut self, now: Time, p: Packet) -> Option<Packet> {
        let out = (self.q.len() >= self.capacity)
            .then(|| self.q.pop_front().map(|(_, p)| p))
            .flatten();
        self.q.push_back((now, p));
        out
    }

    /// When the oldest packet's wait runs out.
    pub fn next_expiry(&self) -> Option<Time> {
        self.q.front().map(|&(t, _)| t + self.max_wait)
    }

    /// Takes the packets whose wait has run out at `now` (oldest first).
    pub fn expire(&mut self, now: Time, out: &mut Vec<Packet>) {
        while self
            .q
            .front()
            .is_some_and(|&(t, _)| t + self.max_wait <= now)
        {
            out.push(self.q.pop_front().expect("checked").1);
        }
    }

    /// Takes every packet for `dst`, in order.
    pub fn take(&mut self, dst: NodeId, out: &mut Vec<Packet>) {
        let mut keep = VecDeque::with_capacity(self.q.len());
        for (t, p) in self.q.drain(..) {
            if p.dst == dst {
                out.push(p);
            } else {
                keep.push_back((t, p));
            }
        }
        self.q = keep;
    }

    /// Is a packet for `dst` waiting?
    pub fn has(&self, dst: NodeId) -> bool {
        self.q.iter().any(|(_, p)| p.dst == dst)
    }
}
