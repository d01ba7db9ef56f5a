//! A drop-tail FIFO of native packets, each with its next hop, that can send a unicast
//! frame the MAC failed to deliver again, up to a number of tries: the queue of the
//! scheme without coding (`PassThrough`, one try) and the queue a coding scheme keeps for
//! what it does not code (CoMP's acknowledgements; MORE's FIFO, whose `fifo_tries` stand
//! in for the MAC retries its set-up switches off).

use super::{OutFrame, SchemeCx, TxOutcome};
use crate::net::{DropReason, NodeId, Packet, BROADCAST};
use std::collections::VecDeque;

/// The queue (see the module documentation).
#[derive(Debug)]
pub struct DropTail {
    queue: VecDeque<Queued>,
    /// How often a packet may be sent (1: never again).
    tries: u32,
    /// The tries of the packet last taken, that one included.
    sending: u32,
}

#[derive(Debug)]
struct Queued {
    packet: Packet,
    next_hop: NodeId,
    /// Sends so far.
    sent: u32,
}

impl DropTail {
    /// An empty queue whose packets are sent up to `tries` times (at least once);
    /// `capacity` only reserves room (the limit is the context's `queue_capacity`).
    pub fn new(capacity: usize, tries: u32) -> DropTail {
        DropTail {
            queue: VecDeque::with_capacity(capacity.min(4096)),
            tries: tries.max(1),
            sending: 0,
        }
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Is it empty?
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Is a packet that satisfies `f` queued?
    pub fn any(&self, mut f: impl FnMut(&Packet) -> bool) -> bool {
        self.queue.iter().any(|q| f(&q.packet))
    }

    /// Queues `packet` for `next_hop` at the tail, or drops it (`QueueFull`) when the
    /// node already holds `held` packets, as many as `cx.queue_capacity`: returns whether
    /// it was queued.
    pub fn offer(
        &mut self,
        cx: &mut SchemeCx,
        packet: Packet,
        next_hop: NodeId,
        held: usize,
    ) -> bool {
        if held >= cx.queue_capacity {
            cx.drop_packet(packet, DropReason::QueueFull);
            return false;
        }
        self.queue.push_back(Queued {
            packet,
            next_hop,
            sent: 0,
        });
        true
    }

    /// The head packet and its next hop, to be sent now.
    pub fn pop(&mut self) -> Option<(Packet, NodeId)> {
        let q = self.queue.pop_front()?;
        self.sending = q.sent + 1;
        Some((q.packet, q.next_hop))
    }

    /// The outcome of a frame: a unicast frame of one packet from this queue that failed
    /// with tries left goes back to the head (`None`: the packet stays held, nothing to
    /// account); any other frame comes back to be settled.
    pub fn take_back(&mut self, frame: OutFrame, outcome: TxOutcome) -> Option<OutFrame> {
        let failed = outcome == TxOutcome::Failed && frame.mac_rx != BROADCAST;
        if !failed || self.sending >= self.tries {
            return Some(frame);
        }
        let mac_rx = frame.mac_rx;
        let mut packets = frame.body.packets;
        let packet = packets.pop().expect("a queued frame carries one packet");
        self.queue.push_front(Queued {
            packet,
            next_hop: mac_rx,
            sent: self.sending,
        });
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::tcpnc::source::tests::segment;
    use crate::coding::Body;

    /// A queue of `tries` holding test segments 0, 1, ... for next hops `hops`.
    fn holding(tries: u32, hops: &[NodeId]) -> DropTail {
        let mut q = DropTail::new(8, tries);
        for (i, &next_hop) in hops.iter().enumerate() {
            q.queue.push_back(Queued {
                packet: segment(i as u64),
                next_hop,
                sent: 0,
            });
        }
        q
    }

    fn frame(p: Packet, nh: NodeId) -> OutFrame {
        OutFrame {
            mac_rx: nh,
            body: Body::native(p, nh),
        }
    }

    #[test]
    fn a_failed_unicast_goes_back_to_the_head_until_its_tries_run_out() {
        let mut q = holding(3, &[1, 2]);
        for attempt in 1..=3 {
            let (p, nh) = q.pop().unwrap();
            assert_eq!((p.uid, nh), (1, 1), "attempt {attempt}: the head again");
            let back = q.take_back(frame(p, nh), TxOutcome::Failed);
            assert_eq!(back.is_none(), attempt < 3, "attempt {attempt}");
        }
        // Delivered or broadcast frames always come back to be settled.
        let (p, nh) = q.pop().unwrap();
        assert_eq!(p.uid, 2);
        assert!(q
            .take_back(frame(p.clone(), nh), TxOutcome::Delivered)
            .is_some());
        assert!(q
            .take_back(frame(p, BROADCAST), TxOutcome::Failed)
            .is_some());
        assert!(q.is_empty());
    }

    #[test]
    fn one_try_never_resends() {
        let mut q = holding(0, &[1]);
        let (p, nh) = q.pop().unwrap();
        assert!(q.take_back(frame(p, nh), TxOutcome::Failed).is_some());
        assert!(q.is_empty());
    }
}
