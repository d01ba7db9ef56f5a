//! UDP: a datagram header with a sequence number for loss and reordering statistics.

/// UDP header as carried in simulated packets (8 bytes on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UdpHeader {
    /// Per-flow datagram sequence number, from 0.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
}

/// UDP header, bytes.
pub const UDP_HEADER_BYTES: u32 = 8;
