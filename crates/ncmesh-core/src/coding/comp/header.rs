//! CoMP's per-hop header (Gheorghiu et al. Alg. 2, line 6): on every frame a node sends,
//! the packet's flow, the id the node gave the packet (a combination: Alg. 1's p_h
//! entry), the node's queue for the flow (q_fk, for back-pressure) and, for each of its
//! upstream neighbours of the flow, the (s, t) of Alg. 1. Sizes: docs/assumptions.md
//! ("CoMP").

pub use crate::coding::loss_estimate::Report;
use crate::coding::WireHeader;
use smallvec::SmallVec;

/// Bytes of the fixed part: flow (2), id (4), queue (2), report count (1). The queue
/// takes two bytes: an output buffer may hold more than 255 combinations (a source's
/// credits follow TCP's window times the rate), and one byte saturating at 255 would
/// make a longer queue look no longer than 255 to back-pressure.
pub const FIXED_BYTES: u32 = 9;
/// Bytes of a node's id in the header.
pub const NODE_BYTES: u32 = 2;
/// Bytes of one report: the upstream node, s (4), t (4).
pub const REPORT_BYTES: u32 = Report::bytes(NODE_BYTES);

/// The header of a CoMP frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompHeader {
    /// The flow of the frame's packet.
    pub flow: u32,
    /// The id this node gave the combination (None: the frame carries no combination,
    /// e.g. an acknowledgement).
    pub id: Option<u64>,
    /// The sender's output buffer for the flow, packets (after this one left it).
    pub queue: u32,
    /// Alg. 1's counts for each upstream neighbour of the flow.
    pub reports: SmallVec<[Report; 3]>,
}

impl WireHeader for CompHeader {
    fn bytes(&self) -> u32 {
        FIXED_BYTES + REPORT_BYTES * self.reports.len() as u32
    }

    /// 1 for a combination, 0 otherwise.
    fn pcap_tag(&self) -> u64 {
        u64::from(self.id.is_some())
    }

    fn pcap_len(&self) -> usize {
        20 + Report::PCAP_BYTES * self.reports.len()
    }

    /// flow, queue, report count (u32 each), id (u64; u64::MAX: none), then per report
    /// the node (u32), s (u64), t (u64).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.flow.to_be_bytes());
        out.extend_from_slice(&self.queue.to_be_bytes());
        out.extend_from_slice(&(self.reports.len() as u32).to_be_bytes());
        out.extend_from_slice(&self.id.unwrap_or(u64::MAX).to_be_bytes());
        for r in &self.reports {
            r.write_pcap(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::loss_estimate::Counts;

    #[test]
    fn sizes_on_the_air_and_in_captures() {
        let mut h = CompHeader {
            flow: 1,
            id: Some(7),
            queue: 3,
            reports: SmallVec::new(),
        };
        assert_eq!(h.bytes(), 9);
        for to in [4, 5] {
            h.reports.push(Report {
                to,
                counts: Counts {
                    last_id: 9,
                    received: 8,
                },
            });
        }
        assert_eq!(h.bytes(), 29);
        let mut out = Vec::new();
        h.write_pcap(&mut out);
        assert_eq!(out.len(), h.pcap_len());
        assert_eq!(h.pcap_tag(), 1);
    }
}
