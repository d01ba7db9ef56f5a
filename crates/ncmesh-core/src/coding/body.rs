//! The body of a data frame as the coding layer builds it: the packets it carries (one
//! native, several natives XORed, or packets whose content is itself coded, see
//! `wire::CodedSymbol`) and the header of the scheme's family, which sizes the frame and
//! writes its own block into packet captures. The MAC sees only the length.

use crate::mac::frame::MacBody;
use crate::net::{NodeId, Packet};
use crate::phy::timing::LLC_BYTES;
use crate::wire::header::same_header;
pub use crate::wire::{Header, WireHeader};
use smallvec::SmallVec;

/// A data frame of this simulator, as the MAC carries it.
pub type Frame = crate::mac::Frame<Body>;
/// A frame handed to the MAC, as the coding layer builds it.
pub type OutFrame = crate::mac::OutFrame<Body>;

/// The payload of a data frame, as a coding scheme builds it.
#[derive(Debug)]
pub struct Body {
    /// Nodes meant to use this frame (pseudo-broadcast names several; the MAC
    /// receiver is one of them).
    pub intended: SmallVec<[NodeId; 4]>,
    /// The packets the frame carries, in the clear or XORed together.
    pub packets: SmallVec<[Packet; 1]>,
    /// How many of `packets` (the last ones) the sender does not hold itself: they are
    /// in the frame only because an XOR it forwards contains them.
    pub padding: u8,
    /// MSDU length on the air: LLC + scheme header + payload, bytes.
    pub msdu_bytes: u32,
    /// Scheme header bytes included in msdu_bytes (0 for native frames).
    pub header_bytes: u32,
    /// The XOR of the packets' payload bytes, when payloads are carried and the frame
    /// codes several packets.
    pub coded_payload: Option<Box<[u8]>>,
    /// The coding family's header, when the scheme adds one.
    pub header: Option<Header>,
}

// Written out: each transmission attempt clones the body onto the air, and the derived
// clone goes through the general (iterator) path of SmallVec for both lists.
impl Clone for Body {
    fn clone(&self) -> Body {
        Body {
            intended: SmallVec::from_slice(&self.intended),
            packets: match &self.packets[..] {
                [one] => SmallVec::from_buf([one.clone()]),
                more => more.iter().cloned().collect(),
            },
            padding: self.padding,
            msdu_bytes: self.msdu_bytes,
            header_bytes: self.header_bytes,
            coded_payload: self.coded_payload.clone(),
            header: self.header.clone(),
        }
    }
}

impl PartialEq for Body {
    fn eq(&self, o: &Body) -> bool {
        self.intended == o.intended
            && self.packets == o.packets
            && self.padding == o.padding
            && self.msdu_bytes == o.msdu_bytes
            && self.header_bytes == o.header_bytes
            && self.coded_payload == o.coded_payload
            && same_header(&self.header, &o.header)
    }
}

impl Body {
    /// Packet instances the sender holds in this frame.
    pub fn held_packets(&self) -> usize {
        self.packets.len() - self.padding as usize
    }

    /// A plain frame carrying one packet to `next_hop`.
    pub fn native(pkt: Packet, next_hop: NodeId) -> Body {
        let msdu_bytes = LLC_BYTES + pkt.ip_bytes;
        let mut intended = SmallVec::new();
        intended.push(next_hop);
        let mut packets = SmallVec::new();
        packets.push(pkt);
        Body {
            intended,
            packets,
            padding: 0,
            msdu_bytes,
            header_bytes: 0,
            coded_payload: None,
            header: None,
        }
    }

    /// The family header, if the frame carries one of type `H`.
    pub fn header_as<H: WireHeader>(&self) -> Option<&H> {
        crate::wire::header::downcast(self.header.as_deref()?)
    }
}

impl MacBody for Body {
    fn msdu_bytes(&self) -> u32 {
        self.msdu_bytes
    }
}
