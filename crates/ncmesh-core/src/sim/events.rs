//! The events the simulator schedules.

use crate::engine::Time;
use crate::net::NodeId;
use crate::phy::channel::Arrival;

/// A MAC frame sent SIFS after a reception, without contention.
#[derive(Debug, Clone, Copy)]
pub enum Response {
    Ack { to: NodeId },
    Cts { to: NodeId, nav: Time },
    /// Our data frame, after the CTS we asked for.
    DataAfterCts,
}

#[derive(Debug, Clone, Copy)]
pub enum Ev {
    /// Backoff (or AIFS) complete: the node may transmit.
    Access { node: u32, gen: u32 },
    /// No CTS/ACK started in time.
    Timeout { node: u32, gen: u32 },
    Respond { node: u32, resp: Response },
    /// End of our own transmission; `response`: it was an ACK/CTS.
    TxEnd { node: u32, response: bool },
    /// A signal starts arriving at `node`.
    Arrival { node: u32, slot: u32, arr: Arrival },
    /// End of the frame `node` is locked on.
    RxEnd { node: u32, slot: u32 },
    FlowStart { flow: u32 },
    FlowStop { flow: u32 },
    AppTick { flow: u32 },
    Rto { flow: u32 },
    DelAck { flow: u32 },
    SchemeTimer { node: u32, token: u64 },
    Sample,
    MeasureStart,
    MeasureEnd,
    Mobility,
}
