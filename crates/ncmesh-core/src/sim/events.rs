//! The events the simulator schedules.

use crate::mac::MacTimer;
use crate::transport::endpoint::FlowTimer;

#[derive(Debug, Clone, Copy)]
pub(super) enum Ev {
    /// A timer of node `node`'s MAC station (channel access, response timeout, SIFS
    /// response).
    Mac {
        node: u32,
        timer: MacTimer,
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
    /// A timer of flow `flow`'s endpoint (application, TCP).
    Flow {
        flow: u32,
        timer: FlowTimer,
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
    /// AODV's deadline at a node (`Aodv::poll_timeout`).
    Aodv {
        node: u32,
    },
    Sample,
    MeasureStart,
    MeasureEnd,
    Mobility,
}
