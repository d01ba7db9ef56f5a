//! The Pipeline-coding header fields beyond the generation and coefficients (which the
//! `CodedSymbol` carries): how long the previous generation was, so that a destination
//! knows at once that a generation its source closed early has ended; and, with loss
//! adaptation, the counts of Chen et al.'s N_i (Eq. 3): for each upstream neighbour, how
//! many combinations of the other direction the sending node received from it in the
//! newest generation it has closed (docs/assumptions.md).

use crate::coding::WireHeader;
use crate::net::NodeId;
use smallvec::SmallVec;

/// Bytes of a report's generation (mod 256) and count.
const REPORT_BYTES: u32 = 3;
/// Bytes of an upstream neighbour's address, carried only when a node reports to several.
const ADDRESS_BYTES: u32 = 4;

/// One count of loss adaptation: combinations of generation `gen` that the reporting node
/// received from its upstream neighbour `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// The upstream neighbour the count is for. On the air only when the reports are
    /// `addressed`; otherwise the sender has heard one upstream neighbour only, which alone
    /// takes the count as its own, and the field stands in for that check.
    pub to: NodeId,
    /// The generation.
    pub gen: u32,
    /// Combinations of it received from `to`.
    pub count: u16,
}

/// Loss adaptation's fields of a combination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feedback {
    /// The node that sent this combination: the MAC transmitter address (no header bytes).
    pub from: NodeId,
    /// Its counts of the opposite direction, one per upstream neighbour heard lately.
    pub reports: SmallVec<[Report; 2]>,
    /// The counts name their neighbour on the air: the sender has heard more than one
    /// upstream neighbour of the direction. Otherwise its one upstream neighbour, the only
    /// node that sends it the direction, knows the count is its own.
    pub addressed: bool,
}

impl Feedback {
    /// The count meant for `me`.
    pub fn report_for(&self, me: NodeId) -> Option<Report> {
        self.reports.iter().find(|r| r.to == me).copied()
    }
}

/// The family header of a Pipeline combination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineHeader {
    /// Packets in the previous generation of this direction (k, or fewer if the source
    /// closed it early; 0 before the first).
    pub prev_len: u16,
    /// Loss adaptation's sender and counts (None: adaptation off).
    pub feedback: Option<Feedback>,
}

impl WireHeader for PipelineHeader {
    /// One byte on the air (the previous generation has at most 64 packets); three more
    /// per report (the generation mod 256 and a 2-byte count), and four for its neighbour's
    /// address when the reports are addressed.
    fn bytes(&self) -> u32 {
        self.feedback.as_ref().map_or(1, |f| {
            let each = REPORT_BYTES + if f.addressed { ADDRESS_BYTES } else { 0 };
            1 + f.reports.len() as u32 * each
        })
    }

    fn pcap_len(&self) -> usize {
        8 + 10 * self.feedback.as_ref().map_or(0, |f| f.reports.len())
    }

    /// prev_len (u16), the sender (u32; 0xFFFFFFFF: no loss adaptation), the number of
    /// reports n (u16), then per report its upstream neighbour (u32), generation (u32)
    /// and count (u16).
    fn write_pcap(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.prev_len.to_be_bytes());
        let (from, reports) = match &self.feedback {
            Some(f) => (f.from, f.reports.as_slice()),
            None => (u32::MAX, &[][..]),
        };
        out.extend_from_slice(&from.to_be_bytes());
        out.extend_from_slice(&(reports.len() as u16).to_be_bytes());
        for r in reports {
            out.extend_from_slice(&r.to.to_be_bytes());
            out.extend_from_slice(&r.gen.to_be_bytes());
            out.extend_from_slice(&r.count.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(reports: &[Report]) -> PipelineHeader {
        PipelineHeader {
            prev_len: 16,
            feedback: Some(Feedback {
                from: 7,
                reports: reports.iter().copied().collect(),
                addressed: reports.len() > 1,
            }),
        }
    }

    #[test]
    fn reports_go_to_their_neighbour_and_name_it_when_there_are_several() {
        let a = Report {
            to: 1,
            gen: 4,
            count: 11,
        };
        let b = Report { to: 3, ..a };
        let one = header(&[a]);
        assert_eq!(one.bytes(), 4);
        assert_eq!(one.feedback.as_ref().unwrap().report_for(1), Some(a));
        assert_eq!(one.feedback.as_ref().unwrap().report_for(9), None);
        let two = header(&[a, b]);
        assert_eq!(two.bytes(), 15);
        let f = two.feedback.as_ref().unwrap();
        assert_eq!(f.report_for(3), Some(b));
        assert_eq!(f.report_for(9), None);
        for h in [one, two, header(&[])] {
            let mut out = Vec::new();
            h.write_pcap(&mut out);
            assert_eq!(out.len(), h.pcap_len());
        }
    }
}
