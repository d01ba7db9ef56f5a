//! The Pipeline-coding header field beyond the generation and coefficients (which the
//! `CodedSymbol` carries): how long the previous generation was, so that a destination
//! knows at once that a generation its source closed early has ended (docs/assumptions.md).

use crate::coding::WireHeader;

/// The family header of a Pipeline combination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineHeader {
    /// Packets in the previous generation of this direction (k, or fewer if the source
    /// closed it early; 0 before the first).
    pub prev_len: u16,
}

impl WireHeader for PipelineHeader {
    /// One byte on the air (the previous generation has at most 64 packets).
    fn bytes(&self) -> u32 {
        1
    }

    fn pcap_len(&self) -> usize {
        2
    }

    /// prev_len (u16).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.prev_len.to_be_bytes());
    }
}
