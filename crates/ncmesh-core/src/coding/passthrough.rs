//! No coding: a drop-tail FIFO interface queue and native frames. The default scheme.

use super::droptail::DropTail;
use super::{Addressed, CodingScheme, Occupancy, PollAt, Rx, SchemeCx, TxOutcome};
use super::{Body, OutFrame};
use crate::net::{NextHop, Packet};

/// A drop-tail FIFO of native packets, each sent to its cheapest next hop.
pub struct PassThrough {
    queue: DropTail,
}

impl PassThrough {
    /// An empty queue (its capacity is the context's `queue_capacity`).
    pub fn new(capacity: usize) -> PassThrough {
        PassThrough {
            queue: DropTail::new(capacity, 1),
        }
    }
}

impl CodingScheme for PassThrough {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]) {
        let held = self.queue.len();
        self.queue.offer(cx, pkt, hops[0].node, held);
    }

    fn poll_at(&self) -> PollAt {
        if self.queue.is_empty() {
            PollAt::Idle
        } else {
            PollAt::Now
        }
    }

    fn poll_transmit(&mut self, _cx: &mut SchemeCx) -> Option<OutFrame> {
        let (pkt, nh) = self.queue.pop()?;
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
