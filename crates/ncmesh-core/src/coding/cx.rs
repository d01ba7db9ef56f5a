//! What a scheme sees of its node during a call, and the effects it asks for.

use super::{OutFrame, TxOutcome};
use crate::engine::{Rng, Time};
use crate::net::{DropReason, NextHops, NodeId, Packet, PathCost, RouteView, Routes};
use crate::phy::loss::LossModel;
use crate::phy::Channel;

/// The high bit of the uids of the packets a scheme makes itself (`SchemeCx::make`), apart
/// from the simulator's sequence.
const MADE_UID: u64 = 1 << 63;

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
    /// Times at which the scheme wants `handle_timeout` called, one call each.
    pub wakes: Vec<Time>,
    /// New packets from this node's coding layer (acknowledgements, feedback).
    pub originate: Vec<Packet>,
    /// Packets the scheme took for good (a native turned into combinations at a
    /// source, a combination used by a decoder): they leave the node's ledger as
    /// delivered to the scheme.
    pub consumed: u64,
    /// Packets the scheme made itself and sends in its own frames (a combination made at
    /// a transmission opportunity): they enter the ledger as originated.
    pub created: u64,
    /// Packets the scheme made for this node's own network layer, as their source sent
    /// them (a decoded native, an acknowledgement for the transport above): they enter
    /// the ledger as originated, keeping their uid and creation time.
    pub up: Vec<Packet>,
}

/// The node's view offered to a scheme callback.
pub struct SchemeCx<'a> {
    /// The current time.
    pub now: Time,
    /// This node.
    pub node: NodeId,
    /// This node's routes (next hops, costs), whichever routing runs: what a scheme asks
    /// of its own node goes through here.
    pub route: RouteView<'a>,
    /// The static tables of the whole network (other nodes' next hops, forwarder sets).
    /// Under AODV they are the start positions' tables, not the routes in use: a scheme
    /// that reads them is refused there (`registry::needs_static_routes`).
    pub routes: &'a Routes,
    /// Who hears whom, and the links' delivery estimates.
    pub channel: &'a Channel,
    /// The scenario's extra loss rules (`[[loss]]`).
    pub loss: &'a LossModel,
    /// This node's random stream for its coding layer.
    pub rng: &'a mut Rng,
    /// Room in the interface queue now (the scenario's capacity less the frame the
    /// MAC holds), packets.
    pub queue_capacity: usize,
    /// Where the effects go.
    pub out: &'a mut SchemeOut,
}

impl SchemeCx<'_> {
    /// Hands a packet this node received from the MAC (decoded) to the network layer.
    pub fn deliver(&mut self, p: Packet) {
        self.out.deliver.push(p);
    }
    /// Discards a packet the scheme held.
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
    /// `n` packet instances reached the next hop (acknowledged): they leave this node.
    pub fn handed_over(&mut self, n: u64) {
        self.out.handed_over += n;
    }
    /// The MAC is done with `frame` and the scheme keeps none of its packets: acknowledged,
    /// they were handed over; failed, they are dropped at the retry limit.
    pub fn settle(&mut self, frame: OutFrame, outcome: TxOutcome) {
        match outcome {
            TxOutcome::Delivered => self.handed_over(frame.body.packets.len() as u64),
            TxOutcome::Failed => {
                for p in frame.body.packets {
                    self.drop_packet(p, DropReason::RetryLimit);
                }
            }
        }
    }
    /// Sends a packet of the scheme's own (e.g. an `L4::Control` message) from this
    /// node; it routes like any packet. Its uid, creation time and TTL are set by the
    /// simulator.
    pub fn originate(&mut self, p: Packet) {
        self.out.originate.push(p);
    }
    /// `n` packets the scheme held (or received and absorbed) are taken for good: a
    /// coding buffer keeps them, or a decoder used them.
    pub fn consume(&mut self, n: u64) {
        self.out.consumed += n;
    }
    /// The scheme made `n` packets itself, to send in its own frames.
    pub fn created(&mut self, n: u64) {
        self.out.created += n;
    }
    /// `p` as a packet this node's scheme made to send in its own frames (a combination
    /// it coded): a uid outside the simulator's sequence (the high bit, the node in bits
    /// 40-62, then `made`, the scheme's own count, which this advances), this time, a TTL
    /// of one hop, and counted as created.
    pub fn make(&mut self, mut p: Packet, made: &mut u64) -> Packet {
        *made += 1;
        p.uid = MADE_UID | (u64::from(self.node) << 40) | *made;
        p.created = self.now;
        p.ttl = 1;
        self.created(1);
        p
    }
    /// Hands a packet the scheme made (a decoded native, a transport acknowledgement) to
    /// this node's network layer, as it is (uid, creation time).
    pub fn up(&mut self, p: Packet) {
        self.out.up.push(p);
    }
    /// Asks for one `handle_timeout` call at `at` (now, if `at` has passed). Typed
    /// timers (`timers::Timers`) call this for the scheme.
    pub fn wake_at(&mut self, at: Time) {
        self.out.wakes.push(at);
    }
    /// Estimated probability that a data frame a -> b gets through now, without
    /// interference: the channel's link estimate and the loss rules in force.
    pub fn delivery_prob(&self, a: NodeId, b: NodeId) -> f64 {
        link_delivery(self.channel, self.loss, a, b, self.now)
    }
    /// Next hop from this node for a packet of `flow` towards `dst`.
    pub fn next_hop(&self, dst: NodeId, flow: u32) -> Option<NodeId> {
        self.route.next_hop(dst, flow)
    }
    /// Every candidate next hop from this node for a packet of `flow` towards `dst`,
    /// cheapest first, with its cost.
    pub fn next_hops(&self, dst: NodeId, flow: u32) -> NextHops {
        self.route.next_hops(dst, flow)
    }
    /// Distance from this node to `dst` in hops and in ETX (None: unreachable).
    pub fn cost(&self, dst: NodeId) -> Option<PathCost> {
        self.route.cost(dst)
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
