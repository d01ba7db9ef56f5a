//! The hook where network-coding schemes sit: between the network layer and the MAC of
//! every node. A scheme owns the interface queue: it sees every packet enqueued (and
//! may reorder, merge or drop), builds the frame for each transmission opportunity,
//! sees every frame decoded (addressed or overheard), owns outcomes, and sets timers.

pub mod body;
pub mod ncaqm;
pub mod passthrough;
pub mod registry;
pub mod xor;

use crate::engine::{Rng, Time};
use crate::net::{DropReason, NodeId, Packet, Routes};
use crate::phy::loss::LossModel;
use crate::phy::Channel;
pub use body::{Body, Frame, Header, OutFrame, WireHeader};

/// Final outcome of a frame the MAC sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOutcome {
    /// Acknowledged by the MAC receiver (or sent, for broadcast).
    Delivered,
    /// Retry limit reached without an acknowledgement.
    Failed,
}

/// What a scheme asks of its node during a callback; applied by the simulator after.
#[derive(Default)]
pub struct SchemeOut {
    /// Packets decoded at this node, handed to the network layer.
    pub deliver: Vec<Packet>,
    /// Packets the scheme discards, with the reason.
    pub drops: Vec<(Packet, DropReason)>,
    /// Packets taken from the MAC that the scheme keeps for now: they count as
    /// received by the node, and reach the network layer later through `release`.
    pub absorbed: u64,
    /// Packets absorbed earlier, now handed to the network layer.
    pub release: Vec<Packet>,
    /// Packet instances whose transfer to the next hop completed.
    pub handed_over: u64,
    /// Timers: (time, token) -> `on_timer(token)`.
    pub timers: Vec<(Time, u64)>,
}

/// The node's view offered to a scheme callback.
pub struct SchemeCx<'a> {
    pub now: Time,
    pub node: NodeId,
    pub routes: &'a Routes,
    pub channel: &'a Channel,
    /// The scenario's extra loss rules (`[[loss]]`).
    pub loss: &'a LossModel,
    pub rng: &'a mut Rng,
    /// Interface queue capacity from the scenario, packets.
    pub queue_capacity: usize,
    pub out: &'a mut SchemeOut,
}

impl SchemeCx<'_> {
    pub fn deliver(&mut self, p: Packet) {
        self.out.deliver.push(p);
    }
    pub fn drop_packet(&mut self, p: Packet, why: DropReason) {
        self.out.drops.push((p, why));
    }
    /// This node received `n` packets from the MAC that the scheme holds back.
    pub fn absorb(&mut self, n: u64) {
        self.out.absorbed += n;
    }
    /// Hands a packet held back since [`absorb`](Self::absorb) to the network layer.
    pub fn release(&mut self, p: Packet) {
        self.out.release.push(p);
    }
    pub fn handed_over(&mut self, n: u64) {
        self.out.handed_over += n;
    }
    pub fn set_timer(&mut self, at: Time, token: u64) {
        self.out.timers.push((at, token));
    }
    /// Estimated probability that a data frame a -> b gets through now, without
    /// interference: the channel's link estimate and the loss rules in force.
    pub fn delivery_prob(&self, a: NodeId, b: NodeId) -> f64 {
        link_delivery(self.channel, self.loss, a, b, self.now)
    }
    /// Next hop from this node for a packet of `flow` towards `dst`.
    pub fn next_hop(&self, dst: NodeId, flow: u32) -> Option<NodeId> {
        self.routes.next_hop(self.node, dst, flow)
    }
}

/// Probability that a data frame a -> b sent at `now` gets through without
/// interference: the channel's link estimate times the loss rules' pass rate.
pub fn link_delivery(channel: &Channel, loss: &LossModel, a: NodeId, b: NodeId, now: Time) -> f64 {
    let p = channel.delivery_prob(a, b);
    if p == 0.0 || loss.is_empty() {
        return p;
    }
    p * (1.0 - loss.rate(a, b, now, true))
}

/// One node's coding layer.
pub trait CodingScheme: Send {
    /// The network layer queues `pkt` for `next_hop`.
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, next_hop: NodeId);
    /// Is there anything to send (the MAC contends only then)?
    fn has_frame(&self) -> bool;
    /// The frame to send at this transmission opportunity.
    fn next_frame(&mut self, cx: &mut SchemeCx) -> Option<OutFrame>;
    /// A data frame was decoded at this node; `addressed`: we are its MAC receiver.
    fn on_frame(&mut self, cx: &mut SchemeCx, frame: &Frame, addressed: bool);
    /// The MAC is done with a frame; the scheme owns its packets again and must account
    /// for each (handed_over, drop, or keep to resend).
    fn on_tx_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome);
    fn on_timer(&mut self, _cx: &mut SchemeCx, _token: u64) {}
    /// Packets in the scheme's output queue.
    fn queue_len(&self) -> usize;
    /// Packets the scheme holds (queued, or waiting for an acknowledgement).
    fn held(&self) -> usize {
        self.queue_len()
    }
    /// Appends the scheme's counters (name, value); names come from its family's
    /// list in the registry (`registry::counter_names`).
    fn counters(&self, _out: &mut Vec<(&'static str, u64)>) {}
}
