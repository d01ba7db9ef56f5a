//! MORE's fields on the air (Chachulski et al. §5.1 lists a type, the batch, the code
//! vector and the forwarder list with TX credits), the per-hop block that carries CoMP's
//! Alg. 1 in place of MORE's probes, and the destination's batch acknowledgement. Sizes:
//! docs/assumptions.md ("MORE").

use crate::coding::loss_estimate::Report;
use crate::coding::WireHeader;
use crate::net::NodeId;

/// Bytes of the packet type.
pub const TYPE_BYTES: u32 = 1;
/// Bytes of the flow id.
pub const FLOW_BYTES: u32 = 2;
/// Bytes of the batch number.
pub const BATCH_BYTES: u32 = 4;
/// Bytes of the batch's size (packets in it).
pub const SIZE_BYTES: u32 = 1;
/// Bytes of the forwarder count.
pub const COUNT_BYTES: u32 = 1;
/// Bytes of one forwarder: its IPv4 address (4) and its TX credit (2, fixed point).
pub const FORWARDER_BYTES: u32 = 6;
/// Bytes of the per-hop block's count of reports (its high bit: an id follows).
pub const HOP_COUNT_BYTES: u32 = 1;
/// Bytes of the id of a coded frame (Alg. 1's p_i entries).
pub const ID_BYTES: u32 = 4;
/// Bytes of a node's IPv4 address, as the forwarder list names nodes.
pub const ADDRESS_BYTES: u32 = 4;
/// Bytes of one report: the source's address, s (4) and t (4).
pub const REPORT_BYTES: u32 = Report::bytes(ADDRESS_BYTES);

/// The end-to-end MORE header of a coded packet, beyond its span (batch number and
/// size) and code vector (`Coeffs::bytes`): the forwarder list with TX credits, closest
/// to the destination first, as the source planned it for the batch (§4.4).
#[derive(Debug, Clone, PartialEq)]
pub struct MoreHeader {
    /// (node, TX credit), the destination first and the source last.
    pub forwarders: Vec<(NodeId, f64)>,
}

impl MoreHeader {
    /// Where `node` is in the list (0: the destination), if listed.
    pub fn index_of(&self, node: NodeId) -> Option<usize> {
        self.forwarders.iter().position(|f| f.0 == node)
    }
}

impl WireHeader for MoreHeader {
    /// Type, flow, batch number and size, the count and the forwarders (the code vector
    /// is counted apart).
    fn bytes(&self) -> u32 {
        TYPE_BYTES
            + FLOW_BYTES
            + BATCH_BYTES
            + SIZE_BYTES
            + COUNT_BYTES
            + FORWARDER_BYTES * self.forwarders.len() as u32
    }

    fn pcap_len(&self) -> usize {
        4 + 8 * self.forwarders.len()
    }

    /// The count (u32), then per forwarder its node (u32) and credit (f32 bits).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.forwarders.len() as u32).to_be_bytes());
        for &(n, c) in &self.forwarders {
            out.extend_from_slice(&n.to_be_bytes());
            out.extend_from_slice(&(c as f32).to_bits().to_be_bytes());
        }
    }
}

/// The per-hop block on every frame a MORE node sends: the frame's id when it carries a
/// coded packet (Alg. 1 at a source counts ids), and the sender's (s, t) for each flow
/// source it received coded frames from (Alg. 1 at a receiver), which the source
/// overhears.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MoreHop {
    /// The id of a coded frame (None on other frames).
    pub id: Option<u64>,
    /// The sender's counts for each source.
    pub reports: Vec<Report>,
}

impl WireHeader for MoreHop {
    fn bytes(&self) -> u32 {
        HOP_COUNT_BYTES
            + if self.id.is_some() { ID_BYTES } else { 0 }
            + REPORT_BYTES * self.reports.len() as u32
    }

    fn pcap_tag(&self) -> u64 {
        u64::from(self.id.is_some())
    }

    fn pcap_len(&self) -> usize {
        12 + Report::PCAP_BYTES * self.reports.len()
    }

    /// The id (u64; u64::MAX when none), the count (u32), then per report the source
    /// (u32), s and t (u64 each).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.id.unwrap_or(u64::MAX).to_be_bytes());
        out.extend_from_slice(&(self.reports.len() as u32).to_be_bytes());
        for r in &self.reports {
            r.write_pcap(out);
        }
    }
}

/// The destination's acknowledgement of a decoded batch (§4.3): a control message of the
/// per-hop layer, routed to the source on the shortest path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoreAck {
    /// The flow.
    pub flow: u32,
    /// The batch decoded.
    pub batch: u32,
}

impl WireHeader for MoreAck {
    /// Type, flow and batch number.
    fn bytes(&self) -> u32 {
        TYPE_BYTES + FLOW_BYTES + BATCH_BYTES
    }

    fn pcap_len(&self) -> usize {
        8
    }

    /// flow (u32), batch (u32).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.flow.to_be_bytes());
        out.extend_from_slice(&self.batch.to_be_bytes());
    }
}
