//! 802.11 frames as they go on the air.

use crate::engine::Time;
use crate::net::NodeId;
use crate::phy::timing::MAC_DATA_OVERHEAD;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Data,
    Ack,
    Rts,
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
    pub kind: FrameKind,
    /// Transmitter.
    pub tx: NodeId,
    /// Receiver address (BROADCAST for broadcast data).
    pub rx: NodeId,
    pub seq: u16,
    pub retry: bool,
    /// Duration field: how long the medium stays reserved after this frame (NAV).
    pub nav: Time,
    pub mpdu_bytes: u32,
    pub rate_mbps: f64,
    pub airtime: Time,
    /// The body of a data frame.
    pub data: Option<B>,
}
