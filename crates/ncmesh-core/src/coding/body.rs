//! The body of a data frame as the coding layer builds it: the packets it carries and
//! the scheme's header.

use crate::mac::frame::MacBody;
use crate::net::{NodeId, Packet};
use crate::phy::timing::LLC_BYTES;
use smallvec::SmallVec;

/// A data frame of this simulator, as the MAC carries it.
pub type Frame = crate::mac::Frame<DataBody>;
/// A frame handed to the MAC, as the coding layer builds it.
pub type OutFrame = crate::mac::OutFrame<DataBody>;

/// The payload of a data frame, as a coding scheme builds it.
#[derive(Debug, Clone, PartialEq)]
pub struct DataBody {
    /// Nodes meant to use this frame (pseudo-broadcast names several; the MAC
    /// receiver is one of them).
    pub intended: SmallVec<[NodeId; 4]>,
    /// The native packets the frame carries or encodes.
    pub packets: SmallVec<[Packet; 1]>,
    /// MSDU length on the air: LLC + scheme header + payload, bytes.
    pub msdu_bytes: u32,
    /// Scheme-defined header bytes included in msdu_bytes (0 for native frames).
    pub header_bytes: u32,
    /// Scheme-defined tag (e.g. coded or native, coding id).
    pub tag: u64,
    /// Coded payload bytes, when payloads are carried and the scheme codes.
    pub coded_payload: Option<Box<[u8]>>,
    /// The XOR-coding header (COPE family), when the scheme adds one.
    pub xor: Option<Box<crate::coding::xor::header::XorHeader>>,
}

impl DataBody {
    /// Packet instances the sender holds in this frame (a forwarded two-hop code may
    /// carry natives only as part of its XOR).
    pub fn held_packets(&self) -> usize {
        self.packets.len() - self.xor.as_ref().map_or(0, |h| h.padding.len())
    }

    /// A plain frame carrying one packet to `next_hop`.
    pub fn native(pkt: Packet, next_hop: NodeId) -> DataBody {
        let msdu_bytes = LLC_BYTES + pkt.ip_bytes;
        let mut intended = SmallVec::new();
        intended.push(next_hop);
        let mut packets = SmallVec::new();
        packets.push(pkt);
        DataBody {
            intended,
            packets,
            msdu_bytes,
            header_bytes: 0,
            tag: 0,
            coded_payload: None,
            xor: None,
        }
    }
}

impl MacBody for DataBody {
    fn msdu_bytes(&self) -> u32 {
        self.msdu_bytes
    }
}
