//! The coding layer: where network-coding schemes sit, between the network layer and the
//! MAC of every node (the per-hop, inter-flow coder: COPE, NCAQM, BFLY, …).
//!
//! A scheme owns the interface queue and is a state machine with no I/O, in the manner of
//! quinn-proto's `Connection` and smoltcp's sockets. The simulator calls it:
//!
//! - `enqueue` for every packet the network layer sends on, with every candidate next
//!   hop and its cost (one unless the flow has several reinforced paths);
//! - `poll_at` to learn whether a frame is due (`Now`), due later (`At`: the scheme
//!   holds packets until then; the MAC does not contend meanwhile) or not (`Idle`);
//! - `poll_transmit` at each transmission opportunity the MAC wins;
//! - `handle_rx` for every data frame received intact (addressed, broadcast or
//!   overheard), `handle_outcome` when the MAC is done with a frame it sent;
//! - `handle_timeout` once for each `SchemeCx::wake_at` the scheme asked for, at that
//!   time (typed timers: `timers::Timers`).
//!
//! Effects go through `SchemeCx` (deliver, drop, absorb/release, handed over, wake,
//! originate, and consume/created/up for a scheme that codes end to end itself); the end-to-end (intra-flow) layer above it is `flow::FlowCoder`; every packet instance is accounted for (the node's ledger, checked at
//! the end of each run). Each family owns its header (`WireHeader`), counters and
//! `[scheme.<family>]` table; `registry` is the one table of schemes.

pub mod backpressure;
#[cfg(test)]
pub(crate) mod bench;
pub mod body;
pub mod combocoding;
pub mod comp;
pub mod counters;
pub mod cx;
pub mod droptail;
pub mod flow;
pub mod horizon;
pub mod keyed;
pub mod loss_estimate;
pub mod more;
pub mod ncaqm;
pub mod passthrough;
pub mod piggycode;
pub mod pipeline;
pub mod registry;
pub mod rlnc;
pub mod tcpnc;
pub mod timers;
pub mod xor;

use crate::engine::Time;
/// How a received frame was addressed and how a sent one ended: the MAC's own words.
pub use crate::mac::{Addressed, TxOutcome};
use crate::net::{NextHop, NodeId, Packet};
pub use crate::wire::{CodedSymbol, Coeffs, ControlMsg, Layer, Span};
pub use body::{Body, Frame, Header, OutFrame, WireHeader};
pub use cx::{link_delivery, SchemeCx, SchemeOut};
pub use flow::{FlowCoder, FlowCx, FlowOut};

/// When a scheme has a frame for the MAC (smoltcp's `PollAt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollAt {
    /// A frame is due now: the MAC contends.
    Now,
    /// Due from this time on (a held packet's deadline): the simulator asks the MAC to
    /// contend then.
    At(Time),
    /// Nothing to send until something new arrives.
    Idle,
}

/// A data frame received intact, as a scheme sees it.
#[derive(Debug, Clone, Copy)]
pub struct Rx<'a> {
    /// Transmitter.
    pub tx: NodeId,
    /// MAC receiver (or `net::BROADCAST`).
    pub mac_rx: NodeId,
    /// How it was addressed to this node.
    pub addressed: Addressed,
    /// Its body.
    pub body: &'a Body,
}

/// Packets a scheme holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Occupancy {
    /// In the interface queue (what the queue-length series and `queue_max` report).
    pub queued: usize,
    /// Everything the scheme holds: queued, awaiting acknowledgement, held back.
    pub held: usize,
}

/// One node's per-hop coding layer (the interface queue and what it sends).
pub trait CodingScheme: Send {
    /// The network layer sends `pkt` on; `hops` are its candidate next hops, cheapest
    /// first, or under `routing.spread = "round-robin"` starting with the one whose turn
    /// it is (never empty).
    fn enqueue(&mut self, cx: &mut SchemeCx, pkt: Packet, hops: &[NextHop]);
    /// When is a frame due (the MAC contends only then)? A function of the scheme's
    /// state alone, which changes only inside its callbacks: the simulator asks after
    /// each callback and keeps the answer until the next one (`At(t)` with t in the
    /// past means due now).
    fn poll_at(&self) -> PollAt;
    /// The frame to send at this transmission opportunity (None: nothing after all).
    fn poll_transmit(&mut self, cx: &mut SchemeCx) -> Option<OutFrame>;
    /// A data frame received intact at this node.
    fn handle_rx(&mut self, cx: &mut SchemeCx, rx: Rx<'_>);
    /// The MAC is done with a frame; the scheme owns its packets again and must account
    /// for each (handed over, dropped, or kept to resend).
    fn handle_outcome(&mut self, cx: &mut SchemeCx, frame: OutFrame, outcome: TxOutcome);
    /// Called once, at its time, for each `SchemeCx::wake_at`.
    fn handle_timeout(&mut self, _cx: &mut SchemeCx) {}
    /// A control message of this layer from node `from`, addressed to this node
    /// (already delivered: the scheme only reads it).
    fn handle_control(&mut self, _cx: &mut SchemeCx, _from: NodeId, _msg: &ControlMsg) {}
    /// Packets held.
    fn occupancy(&self) -> Occupancy;
    /// Appends the scheme's counters (name, value); the names are its family's list in
    /// the registry (`registry::counter_names`).
    fn counters(&self, _out: &mut Vec<(&'static str, u64)>) {}
}
