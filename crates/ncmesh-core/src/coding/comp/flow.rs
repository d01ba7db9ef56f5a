//! What a CoMP node keeps for each flow it is on: its role (source, relay or destination),
//! the credits it owes as combinations, its node loss and rate, Alg. 1's two sides and its
//! downstream neighbours.

use super::relay::Relay;
use crate::coding::backpressure::Neighbours;
use crate::coding::loss_estimate::{LossEstimate, ReceiveCounts};
use crate::coding::rlnc::Gf65536;
use crate::coding::tcpnc::sink::Sink;
use crate::coding::tcpnc::source::Source;
use crate::coding::tcpnc::TcpNcAck;
use crate::net::NodeId;

/// What a node is for a flow.
pub(super) enum Role {
    Source(Source<Gf65536>),
    Relay(Relay),
    Sink(Sink<Gf65536>),
}

/// One flow at this node.
pub(super) struct FlowState {
    pub(super) flow: u32,
    /// The flow's source and destination.
    pub(super) src: NodeId,
    pub(super) dst: NodeId,
    pub(super) role: Role,
    /// output_buffer_f, as the combinations owed for the credits held (fractions
    /// accumulate): each is made when it is sent (see `owed`).
    pub(super) num: f64,
    /// The node loss now, and the combinations per credit it gives.
    pub(super) loss: f64,
    pub(super) rate: f64,
    /// The id of the next combination this node sends (Alg. 1's p_i entries).
    pub(super) next_id: u64,
    /// Alg. 1, sender side: per downstream neighbour.
    pub(super) est: LossEstimate,
    /// Alg. 1, receiver side: (s, t) per upstream neighbour.
    pub(super) counts: ReceiveCounts,
    /// Downstream neighbours (the next nodes on the flow's reinforced paths) and the
    /// queues they advertised.
    pub(super) cands: Neighbours,
    /// At a relay: the acknowledgement that last flushed its buffer (`flush_on_ack`),
    /// repeated to a source still sending what it covers.
    pub(super) covering: Option<TcpNcAck>,
}

impl FlowState {
    /// output_buffer_f's length: the whole combinations owed.
    pub(super) fn owed(&self) -> usize {
        self.num.max(0.0) as usize
    }

    /// Does the node hold anything to combine for the flow?
    pub(super) fn holds_any(&self) -> bool {
        match &self.role {
            Role::Source(src) => !src.is_empty(),
            Role::Relay(relay) => relay.rank() > 0,
            Role::Sink(_) => false,
        }
    }
}
