//! The network-layer packet as it travels hop by hop.

use super::aodv::AodvMsg;
use super::symbol::{CodedSymbol, ControlMsg};
use super::tcp::TcpHeader;
use super::udp::UdpHeader;
use crate::engine::Time;
use std::sync::Arc;

/// A node's index in the scenario (0, 1, ... in file order).
pub type NodeId = u32;

/// MAC receiver address meaning "every node".
pub const BROADCAST: NodeId = u32::MAX;

/// IPv4 header without options, bytes.
pub const IP_HEADER_BYTES: u32 = 20;

/// What a packet carries above IP.
#[derive(Debug, Clone, PartialEq)]
pub enum L4 {
    /// A TCP segment (data or acknowledgement).
    Tcp(TcpHeader),
    /// A UDP datagram.
    Udp(UdpHeader),
    /// A linear combination of a flow's packets (an intra-flow coder's packet). Shared
    /// between the copies of a packet (the air's, a queue's, a decoding buffer's): a
    /// copy is a count, and a change (`Arc::make_mut`) copies it first.
    Coded(Arc<CodedSymbol>),
    /// A coding layer's own message (acknowledgement, feedback).
    Control(ControlMsg),
    /// An AODV message (RFC 3561) in a UDP datagram to port 654: one hop, from the
    /// packet's `src` to its `dst` (a neighbour or `BROADCAST`).
    Aodv(Box<AodvMsg>),
}

/// An IP packet. Copies made at each hop keep the same `uid`.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    /// Unique per originated packet.
    pub uid: u64,
    /// The flow it belongs to (scenario flow index).
    pub flow: u32,
    /// Originating node.
    pub src: NodeId,
    /// Final destination.
    pub dst: NodeId,
    /// Hops left; the packet is dropped when it reaches 0.
    pub ttl: u32,
    /// IP datagram length, headers included.
    pub ip_bytes: u32,
    /// When it was originated.
    pub created: Time,
    /// What it carries above IP.
    pub l4: L4,
    /// Application payload, when the scenario asks for real bytes.
    pub payload: Option<Box<[u8]>>,
}

impl Packet {
    /// The bytes it carries above IP, when the scenario carries payload bytes: the
    /// application payload, or a coded symbol's combination (what an XOR of packets
    /// combines).
    pub fn carried(&self) -> Option<&[u8]> {
        match &self.l4 {
            L4::Coded(c) => c.payload.as_deref(),
            _ => self.payload.as_deref(),
        }
    }

    /// Replaces the bytes `carried` returns (a decoder's recovered bytes).
    pub fn set_carried(&mut self, bytes: Box<[u8]>) {
        match &mut self.l4 {
            L4::Coded(c) => Arc::make_mut(c).payload = Some(bytes),
            _ => self.payload = Some(bytes),
        }
    }

    /// Drops the bytes `carried` returns (a decoder that has none for it).
    pub fn clear_carried(&mut self) {
        match &mut self.l4 {
            L4::Coded(c) => Arc::make_mut(c).payload = None,
            _ => self.payload = None,
        }
    }

    /// Its TCP header, if it is a TCP segment.
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.l4 {
            L4::Tcp(h) => Some(h),
            _ => None,
        }
    }
}
