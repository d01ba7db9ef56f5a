//! The Pipeline-coding header fields beyond the generation and coefficients (which the
//! `CodedSymbol` carries): how long the previous generation was, so that a destination
//! knows at once that a generation its source closed early has ended; and, with loss
//! adaptation, the sender's count of the other direction's combinations it received in
//! the last generation of that direction it completed (Chen et al.'s N_i, Eq. 3)
//! (docs/assumptions.md).

use crate::coding::WireHeader;

/// The family header of a Pipeline combination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineHeader {
    /// Packets in the previous generation of this direction (k, or fewer if the source
    /// closed it early; 0 before the first).
    pub prev_len: u16,
    /// Loss adaptation: (generation, combinations received) of the last generation of the
    /// opposite direction that the node sending this packet completed.
    pub report: Option<(u32, u16)>,
}

impl WireHeader for PipelineHeader {
    /// One byte on the air (the previous generation has at most 64 packets), three more
    /// with a report (the generation mod 256 and a 2-byte count).
    fn bytes(&self) -> u32 {
        if self.report.is_some() {
            4
        } else {
            1
        }
    }

    fn pcap_len(&self) -> usize {
        8
    }

    /// prev_len (u16), report generation (u32; 0xFFFFFFFF: none), report count (u16).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        let (g, n) = self.report.unwrap_or((u32::MAX, 0));
        out.extend_from_slice(&self.prev_len.to_be_bytes());
        out.extend_from_slice(&g.to_be_bytes());
        out.extend_from_slice(&n.to_be_bytes());
    }
}
