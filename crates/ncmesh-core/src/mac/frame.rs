//! 802.11 frames as they go on the air, and the control frames a station builds.

use crate::engine::Time;
use crate::net::NodeId;
use crate::phy::timing::{ACK_BYTES, CTS_BYTES, MAC_DATA_OVERHEAD, RTS_BYTES};
use crate::phy::PhyTiming;

/// The frame types the DCF exchanges (9.2.4.1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// Data frame.
    Data,
    /// Acknowledgement (9.3.1.4).
    Ack,
    /// Request to send (9.3.1.2).
    Rts,
    /// Clear to send (9.3.1.3).
    Cts,
}

/// What the MAC needs of a data frame's body: its length on the air. The body itself
/// (packets, coding headers) belongs to the layer above (`coding::Body`).
pub trait MacBody: Clone {
    /// MSDU length on the air (LLC + whatever the layer above puts in it), bytes.
    fn msdu_bytes(&self) -> u32;
}

/// What the layer above hands the MAC at a transmission opportunity.
#[derive(Debug, Clone, PartialEq)]
pub struct OutFrame<B> {
    /// MAC receiver (acknowledges the frame), or BROADCAST.
    pub mac_rx: NodeId,
    /// The frame body.
    pub body: B,
}

impl<B: MacBody> OutFrame<B> {
    /// MPDU length: MAC header and FCS around the body.
    pub fn mpdu_bytes(&self) -> u32 {
        MAC_DATA_OVERHEAD + self.body.msdu_bytes()
    }
}

/// A frame on the air.
#[derive(Debug, Clone)]
pub struct Frame<B> {
    /// Frame type.
    pub kind: FrameKind,
    /// Transmitter.
    pub tx: NodeId,
    /// Receiver address (BROADCAST for broadcast data).
    pub rx: NodeId,
    /// Sequence number (data and RTS of the frame in service; 0 for ACK/CTS).
    pub seq: u16,
    /// Retry subfield: a retransmission.
    pub retry: bool,
    /// Duration field: how long the medium stays reserved after this frame (NAV).
    pub nav: Time,
    /// MPDU length, bytes.
    pub mpdu_bytes: u32,
    /// Rate the frame is sent at.
    pub rate_mbps: f64,
    /// Transmission time (PLCP preamble and header included).
    pub airtime: Time,
    /// The body of a data frame.
    pub data: Option<B>,
}

/// The MAC header fields of a frame received intact: what the MAC acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxHeader {
    /// Frame type.
    pub kind: FrameKind,
    /// Transmitter.
    pub tx: NodeId,
    /// Receiver address.
    pub rx: NodeId,
    /// Sequence number.
    pub seq: u16,
    /// Retry subfield.
    pub retry: bool,
    /// Duration field.
    pub duration: Time,
}

impl<B> Frame<B> {
    /// The header fields the receiving MAC acts on.
    pub fn header(&self) -> RxHeader {
        RxHeader {
            kind: self.kind,
            tx: self.tx,
            rx: self.rx,
            seq: self.seq,
            retry: self.retry,
            duration: self.nav,
        }
    }

    /// An ACK from `tx` to `to`: basic rate, Duration 0 (no fragments follow, 9.3.1.4).
    pub(crate) fn ack(tx: NodeId, to: NodeId, t: &PhyTiming) -> Frame<B> {
        Frame::control(FrameKind::Ack, tx, to, 0, false, 0, ACK_BYTES, t)
    }

    /// A CTS from `tx` to `to` with the Duration `duration` (9.3.1.3).
    pub(crate) fn cts(tx: NodeId, to: NodeId, duration: Time, t: &PhyTiming) -> Frame<B> {
        Frame::control(FrameKind::Cts, tx, to, 0, false, duration, CTS_BYTES, t)
    }

    /// An RTS from `tx` to `to` for the frame with sequence number `seq` (9.3.1.2).
    pub(crate) fn rts(
        tx: NodeId,
        to: NodeId,
        seq: u16,
        retry: bool,
        duration: Time,
        t: &PhyTiming,
    ) -> Frame<B> {
        Frame::control(FrameKind::Rts, tx, to, seq, retry, duration, RTS_BYTES, t)
    }

    /// Control frames go at the basic rate (10.7).
    #[allow(clippy::too_many_arguments)]
    fn control(
        kind: FrameKind,
        tx: NodeId,
        rx: NodeId,
        seq: u16,
        retry: bool,
        nav: Time,
        mpdu_bytes: u32,
        t: &PhyTiming,
    ) -> Frame<B> {
        let airtime = if kind == FrameKind::Ack {
            t.ack_time
        } else {
            t.airtime(mpdu_bytes, t.basic_rate_mbps)
        };
        Frame {
            kind,
            tx,
            rx,
            seq,
            retry,
            nav,
            mpdu_bytes,
            rate_mbps: t.basic_rate_mbps,
            airtime,
            data: None,
        }
    }
}
