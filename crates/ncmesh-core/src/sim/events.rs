//! The events the simulator schedules.

use crate::net::NodeId;

/// A MAC frame sent SIFS after a reception, without contention.
#[derive(Debug, Clone, Copy)]
pub enum Response {
    Ack {
        to: NodeId,
    },
    /// `nav_ns`: the CTS Duration field (at most 32.767 ms, so it fits).
    Cts {
        to: NodeId,
        nav_ns: u32,
    },
    /// Our data frame, after the CTS we asked for.
    DataAfterCts,
}

#[derive(Debug, Clone, Copy)]
pub enum Ev {
    /// Backoff (or AIFS) complete: the node may transmit.
    Access {
        node: u32,
    },
    /// No CTS/ACK started in time.
    Timeout {
        node: u32,
        gen: u32,
    },
    Respond {
        node: u32,
        resp: Response,
    },
    /// End of our own transmission; `response`: it was an ACK/CTS.
    TxEnd {
        node: u32,
        response: bool,
    },
    /// The `idx`-th receiver of the frame in `slot` starts getting its signal.
    Arrival {
        slot: u32,
        idx: u32,
    },
    /// End of the frame `node` is locked on.
    RxEnd {
        node: u32,
        slot: u32,
    },
    FlowStart {
        flow: u32,
    },
    FlowStop {
        flow: u32,
    },
    AppTick {
        flow: u32,
    },
    Rto {
        flow: u32,
    },
    /// A paced TCP sender may send again.
    Pace {
        flow: u32,
    },
    DelAck {
        flow: u32,
    },
    /// A wake-up the coding scheme asked for (`SchemeCx::wake_at`).
    SchemeWake {
        node: u32,
    },
    /// A wake-up the flow coder asked for.
    FlowWake {
        node: u32,
    },
    /// A packet the coding scheme held may be due (`PollAt::At`).
    CodingPoll {
        node: u32,
    },
    Sample,
    MeasureStart,
    MeasureEnd,
    Mobility,
}
