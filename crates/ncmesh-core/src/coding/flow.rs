//! The end-to-end (intra-flow) coding layer: between the transport and the network layer
//! at a flow's source and destination, and before forwarding at its relays. Pipeline
//! coding, TCP/NC's layer between TCP and IP, and the end-host parts of MORE and CoMP sit
//! here; the per-hop coder (`CodingScheme`) sits below it, at the interface queue, so an
//! intra-flow coder composes with an inter-flow one at every node (ComboCoding is
//! Pipeline coding over DATA/ACK XOR).
//!
//! A coder sees three streams of packets: `handle_send` (from this node's transport),
//! `handle_forward` (for another node, about to be forwarded) and `handle_deliver` (for
//! this node, before its transport), plus its own control messages, and is told which of
//! its node's packets go on the air (`handle_on_air`). For each packet it
//! passes it on unchanged (`pass`), or takes it for good (`consume`, e.g. a native the
//! source has turned into combinations, a combination a decoder has used), and it may
//! make new packets (`send` into the network, `up` to the transport). Packets it keeps
//! for later count in `held`. The node's packet ledger stays balanced: what a coder
//! consumes is delivered (to it), what it makes is originated (by it).

use super::timers::Wake;
use super::ControlMsg;
use crate::engine::{Rng, Time};
use crate::net::{DropReason, NodeId, Packet, PathCost, RouteView};

/// What a flow coder asks of its node during a call; applied by the simulator after.
#[derive(Debug, Default)]
pub struct FlowOut {
    /// Packets passed on unchanged, in the direction they were going.
    pub pass: Vec<Packet>,
    /// Packets taken for good.
    pub consumed: u64,
    /// New packets into the network from this node.
    pub send: Vec<Packet>,
    /// New packets up to this node's transport.
    pub up: Vec<Packet>,
    /// Packets discarded, with the reason.
    pub drops: Vec<(Packet, DropReason)>,
    /// Times at which the coder wants `handle_timeout` called, one call each.
    pub wakes: Vec<Time>,
}

/// The node's view offered to a flow coder.
pub struct FlowCx<'a> {
    /// The current time.
    pub now: Time,
    /// This node.
    pub node: NodeId,
    /// This node's routes (next hops, costs, the routing's path estimate), whichever
    /// routing runs.
    pub route: RouteView<'a>,
    /// This node's random stream for its flow coder.
    pub rng: &'a mut Rng,
    /// Free slots in the node's interface queue now (its capacity less what it and the
    /// MAC hold): a packet sent beyond them would be dropped on arrival.
    pub room: usize,
    /// Where the effects go.
    pub out: &'a mut FlowOut,
}

impl FlowCx<'_> {
    /// Passes `p` on unchanged.
    pub fn pass(&mut self, p: Packet) {
        self.out.pass.push(p);
    }
    /// Takes a packet for good (it leaves the ledger as delivered to the coder).
    pub fn consume(&mut self, p: Packet) {
        drop(p);
        self.out.consumed += 1;
    }
    /// A new packet into the network from this node (its uid, creation time and TTL
    /// are set by the simulator).
    pub fn send(&mut self, p: Packet) {
        self.out.send.push(p);
    }
    /// A new packet up to this node's transport (a decoded native).
    pub fn up(&mut self, p: Packet) {
        self.out.up.push(p);
    }
    /// Discards a packet the coder held or was given.
    pub fn drop_packet(&mut self, p: Packet, why: DropReason) {
        self.out.drops.push((p, why));
    }
    /// Distance from this node to `dst` in hops and in ETX (None: unreachable).
    pub fn cost(&self, dst: NodeId) -> Option<PathCost> {
        self.route.cost(dst)
    }
}

impl Wake for FlowCx<'_> {
    fn wake_at(&mut self, at: Time) {
        self.out.wakes.push(at);
    }
}

/// One node's end-to-end (intra-flow) coding layer.
pub trait FlowCoder: Send {
    /// A packet from this node's transport, to send.
    fn handle_send(&mut self, cx: &mut FlowCx, p: Packet);
    /// A packet for another node, about to be forwarded from this one.
    fn handle_forward(&mut self, cx: &mut FlowCx, p: Packet);
    /// A packet for this node, before its transport.
    fn handle_deliver(&mut self, cx: &mut FlowCx, p: Packet);
    /// A control message of this layer addressed to this node (already delivered: the
    /// coder only reads it).
    fn handle_control(&mut self, _cx: &mut FlowCx, _from: NodeId, _msg: &ControlMsg) {}
    /// Called once, at its time, for each wake-up asked for.
    fn handle_timeout(&mut self, _cx: &mut FlowCx) {}
    /// A packet this node's MAC puts on the air for the first time (each packet the node
    /// holds in a data frame, not again on the MAC's retries): what the node has really
    /// sent, as opposed to what its queue later dropped. Read-only: no effects.
    fn handle_on_air(&mut self, _p: &Packet) {}
    /// Does the coder owe packets it holds back for want of room in the node's interface
    /// queue? Then `handle_room` is called whenever a frame leaves the queue.
    fn wants_room(&self) -> bool {
        false
    }
    /// A frame left the node's interface queue (the MAC is done with it): `cx.room`
    /// slots are free.
    fn handle_room(&mut self, _cx: &mut FlowCx) {}
    /// Packets the coder holds.
    fn held(&self) -> usize;
    /// Appends the coder's counters (name, value), from its family's registry list.
    fn counters(&self, _out: &mut Vec<(&'static str, u64)>) {}
}
