//! Optional record of every frame transmitted and every reception outcome, for tests,
//! debugging and packet captures. Off unless `Sim::enable_trace` is called.

use crate::coding::Frame;
use crate::engine::Time;
use crate::mac::FrameKind;

/// What a trace record reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceKind {
    /// `node` starts transmitting the frame.
    TxStart,
    /// `node` received the frame intact.
    RxOk,
    /// `node` lost the frame to overlapping signals.
    RxCollided,
    /// `node` lost the frame to the loss model (frame error rate, link table).
    RxLost,
    /// `node`'s attempt failed: no CTS/ACK in time (the record's time is the timeout).
    TxFailed,
}

/// One transmission or reception outcome.
#[derive(Debug, Clone)]
pub struct TraceRecord {
    /// When it happened.
    pub t: Time,
    /// The node it happened at.
    pub node: u32,
    /// What happened.
    pub what: TraceKind,
    /// The frame's type (data, ACK, RTS, CTS).
    pub kind: FrameKind,
    /// The frame's transmitter.
    pub tx: u32,
    /// The frame's receiver address ([`crate::net::BROADCAST`] for broadcast).
    pub rx: u32,
    /// The frame's MAC sequence number.
    pub seq: u16,
    /// The frame's Retry bit.
    pub retry: bool,
    /// The frame's Duration field (NAV it sets).
    pub nav: Time,
    /// The frame's airtime, preamble included.
    pub airtime: Time,
    /// MAC frame length (header, body, FCS), bytes.
    pub mpdu_bytes: u32,
    /// The whole frame, for data frames (packet captures need the headers).
    pub frame: Option<Frame>,
}

impl TraceRecord {
    /// `node`'s attempt to send frame `seq` to `rx` failed at `t`.
    pub(crate) fn failure(t: Time, node: u32, rx: u32, seq: u16) -> TraceRecord {
        TraceRecord {
            t,
            node,
            what: TraceKind::TxFailed,
            kind: FrameKind::Data,
            tx: node,
            rx,
            seq,
            retry: false,
            nav: 0,
            airtime: 0,
            mpdu_bytes: 0,
            frame: None,
        }
    }

    /// `what` happened to frame `f` at `node` at `t`.
    pub(crate) fn new(t: Time, node: u32, what: TraceKind, f: &Frame) -> TraceRecord {
        TraceRecord {
            t,
            node,
            what,
            kind: f.kind,
            tx: f.tx,
            rx: f.rx,
            seq: f.seq,
            retry: f.retry,
            nav: f.nav,
            airtime: f.airtime,
            mpdu_bytes: f.mpdu_bytes,
            frame: (f.kind == FrameKind::Data).then(|| f.clone()),
        }
    }
}
