//! No coding: a drop-tail FIFO interface queue and native frames. The default scheme.

use super::{Addressed, CodingScheme, Occupancy, PollAt, Rx, SchemeCx, TxOutcome};
use super::{Body, OutFrame};
use crate::net::{DropReason, NextHop, NodeId, Packet};
use std::collections::VecDeque;

/// A drop-tail FIFO of native packets, each sent to its cheapest next hop.
pub struct PassThrough {
    queue: VecDeque<(Packet, NodeId)>,
}

impl PassThrough {
    /// An empty queue (its capacity is the context's `queue_capacity`).
    pub fn new(capacity: usize) -> PassThrough {
        PassThrough {
            queue: VecDeque::with_capacity(capacity.min(4096)),
        }
    }
}

impl CodingScheme for PassThrough {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        if self.queue.len() >= cx.queue_capacity {
            cx.drop_packet(pkt, DropReason::QueueFull);
        } else {
            self.queue.push_back((pkt, hops[0].node));
        }
    }

    fn poll_at(&self) -> PollAt {
        if self.queue.is_empty() {
            PollAt::Idle
        } else {
            PollAt::Now
        }
    }

    fn poll_transmit(&mut self, _cx: &mut SchemeCx) -> Option<OutFrame> {
        let (pkt, nh) = self.queue.pop_front()?;
        Some(OutFrame {
            mac_rx: nh,
            body: Body::native(pkt, nh),
        })
    }

    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>) {
        if rx.addressed != Addressed::Overheard {
            for p in &rx.body.packets {
                cx.deliver(p.clone());
            }
        }
    }

    fn handle_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        cx.settle(frame, outcome);
    }

    fn occupancy(&self) -> Occupancy {
        Occupancy {
            queued: self.queue.len(),
            held: self.queue.len(),
        }
    }
}
