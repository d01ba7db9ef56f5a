//! Reception reports and asynchronous acknowledgements waiting to be announced
//! (COPE §3.4, §3.5): piggybacked on the next frame the node sends, each item in a few
//! headers (COPE's report and ack maps cover the last few ids, so one lost header does
//! not lose the news), or sent in a control frame of their own when no data frame came.

use super::header::XorHeader;
use crate::engine::Time;
use crate::net::NodeId;

/// Reception reports and acks waiting to ride in outgoing XOR headers (COPE §3.4,
/// §3.5); each item rides in a bounded number of headers.
#[derive(Default)]
pub struct Announcements {
    /// (item, headers that carried it so far).
    reports: Vec<((NodeId, u64), u8)>,
    acks: Vec<((NodeId, u64), u8)>,
}

impl Announcements {
    /// `(src, uid)`: this node overheard the packet.
    pub fn report(&mut self, src: NodeId, uid: u64) {
        self.reports.push(((src, uid), 0));
    }

    /// `(neighbour, uid)`: this node decoded the neighbour's coded native.
    pub fn ack(&mut self, nb: NodeId, uid: u64) {
        self.acks.push(((nb, uid), 0));
    }

    /// Reports no header carried yet.
    pub fn fresh_reports(&self) -> bool {
        self.reports.iter().any(|x| x.1 == 0)
    }

    /// Acks no header carried yet.
    pub fn fresh_acks(&self) -> bool {
        self.acks.iter().any(|x| x.1 == 0)
    }

    /// Copies waiting items into `h` (at most `max` of each; every item rides in
    /// `repeats` headers). Marks the reports complete if none is left unannounced.
    pub fn fill(&mut self, now: Time, h: &mut XorHeader, max: usize, repeats: u8) {
        for (list, out) in [
            (&mut self.reports, &mut h.reports),
            (&mut self.acks, &mut h.acks),
        ] {
            for item in list.iter_mut().take(max) {
                out.push(item.0);
                item.1 += 1;
            }
            list.retain(|x| x.1 < repeats);
        }
        if self.reports.iter().all(|x| x.1 > 0) {
            h.reports_complete_at = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_item_rides_in_repeats_headers() {
        let mut a = Announcements::default();
        a.ack(3, 10);
        a.report(1, 11);
        for round in 0..3 {
            let mut h = XorHeader::default();
            a.fill(round, &mut h, 64, 3);
            assert_eq!(h.acks, vec![(3, 10)]);
            assert_eq!(h.reports, vec![(1, 11)]);
            assert_eq!(h.reports_complete_at, Some(round));
            assert!(!a.fresh_acks() && !a.fresh_reports());
        }
        let mut h = XorHeader::default();
        a.fill(3, &mut h, 64, 3);
        assert!(h.acks.is_empty() && h.reports.is_empty());
    }

    #[test]
    fn a_full_header_leaves_reports_incomplete() {
        let mut a = Announcements::default();
        for u in 0..5 {
            a.report(1, u);
        }
        let mut h = XorHeader::default();
        a.fill(0, &mut h, 3, 1);
        assert_eq!(h.reports.len(), 3);
        assert_eq!(h.reports_complete_at, None);
        assert!(a.fresh_reports());
    }
}
