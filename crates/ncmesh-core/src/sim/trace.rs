//! Optional record of every frame transmitted and every reception outcome, for tests,
//! debugging and packet captures. Off unless `Sim::enable_trace` is called.

use crate::coding::Frame;
use crate::engine::Time;
use crate::mac::FrameKind;

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

#[derive(Debug, Clone)]
pub struct TraceRecord {
    pub t: Time,
    pub node: u32,
    pub what: TraceKind,
    pub kind: FrameKind,
    pub tx: u32,
    pub rx: u32,
    pub seq: u16,
    pub retry: bool,
    pub nav: Time,
    pub airtime: Time,
    pub mpdu_bytes: u32,
    /// The whole frame, for data frames (packet captures need the headers).
    pub frame: Option<Frame>,
}

impl TraceRecord {
    pub fn failure(t: Time, node: u32, rx: u32, seq: u16) -> TraceRecord {
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

    pub fn new(t: Time, node: u32, what: TraceKind, f: &Frame) -> TraceRecord {
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
