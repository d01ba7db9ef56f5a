//! The PiggyCode header a coded frame carries (Takimoto et al. §II-A, §III-B): which
//! DATA and which ACK are XORed, so that each receiver finds the partner it holds in its
//! decoding buffer. Its length on the air is a chosen value (docs/assumptions.md).

use crate::coding::WireHeader;
use crate::net::NodeId;

/// Bytes on the air: for each of the two packets its source (4) and IP id (2), and the
/// next hop of each (4 + 4): 20 bytes (the papers give no layout).
pub const HEADER_BYTES: u32 = 20;

/// The header of a DATA/ACK-coded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiggyHeader {
    /// uid of the TCP DATA packet (carried first in the frame).
    pub data_uid: u64,
    /// uid of the TCP ACK packet (carried second).
    pub ack_uid: u64,
    /// Next hop of the DATA packet: the frame's MAC receiver.
    pub data_next: NodeId,
    /// Next hop of the ACK packet: it overhears the frame.
    pub ack_next: NodeId,
}

impl WireHeader for PiggyHeader {
    fn bytes(&self) -> u32 {
        HEADER_BYTES
    }

    /// 1: a DATA/ACK-coded frame (native frames carry no header).
    fn pcap_tag(&self) -> u64 {
        1
    }

    fn pcap_len(&self) -> usize {
        24
    }

    /// data uid (u64), ack uid (u64), DATA next hop (u32), ACK next hop (u32).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.data_uid.to_be_bytes());
        out.extend_from_slice(&self.ack_uid.to_be_bytes());
        out.extend_from_slice(&self.data_next.to_be_bytes());
        out.extend_from_slice(&self.ack_next.to_be_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_block_has_its_declared_length() {
        let h = PiggyHeader {
            data_uid: 7,
            ack_uid: 9,
            data_next: 2,
            ack_next: 0,
        };
        let mut out = Vec::new();
        h.write_pcap(&mut out);
        assert_eq!(out.len(), h.pcap_len());
        assert_eq!(&out[..8], &7u64.to_be_bytes());
    }
}
