//! No coding: a drop-tail FIFO interface queue and native frames. The default scheme.

use super::{Body, Frame, OutFrame};
use super::{CodingScheme, SchemeCx, TxOutcome};
use crate::net::{DropReason, NodeId, Packet};
use std::collections::VecDeque;

pub struct PassThrough {
    queue: VecDeque<(Packet, NodeId)>,
}

impl PassThrough {
    pub fn new(capacity: usize) -> PassThrough {
        PassThrough {
            queue: VecDeque::with_capacity(capacity.min(4096)),
        }
    }
}

impl CodingScheme for PassThrough {
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, next_hop: NodeId) {
        if self.queue.len() >= cx.queue_capacity {
            cx.drop_packet(pkt, DropReason::QueueFull);
        } else {
            self.queue.push_back((pkt, next_hop));
        }
    }

    fn has_frame(&self) -> bool {
        !self.queue.is_empty()
    }

    fn next_frame(&mut self, _cx: &mut SchemeCx) -> Option<OutFrame> {
        let (pkt, nh) = self.queue.pop_front()?;
        Some(OutFrame {
            mac_rx: nh,
            body: Body::native(pkt, nh),
        })
    }

    fn on_frame(&mut self, cx: &mut SchemeCx, frame: &Frame, addressed: bool) {
        if addressed {
            if let Some(body) = &frame.data {
                for p in &body.packets {
                    cx.deliver(p.clone());
                }
            }
        }
    }

    fn on_tx_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome) {
        match outcome {
            TxOutcome::Delivered => cx.handed_over(frame.body.packets.len() as u64),
            TxOutcome::Failed => {
                for p in frame.body.packets {
                    cx.drop_packet(p, DropReason::RetryLimit);
                }
            }
        }
    }

    fn queue_len(&self) -> usize {
        self.queue.len()
    }
}
