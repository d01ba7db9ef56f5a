//! The recipient's side of an exchange: which received frames are answered and how
//! (CTS 10.3.2.7, ACK 10.3.2.9), and duplicate detection (10.3.2.11).

use super::frame::RxHeader;
use super::io::SifsResponse;
use super::nav::Nav;
use crate::engine::Time;
use crate::net::NodeId;
use crate::phy::timing::CTS_BYTES;
use crate::phy::PhyTiming;

/// The CTS an RTS addressed to us gets: only if our NAV does not reserve the medium
/// (10.3.2.7). Its Duration is the RTS's less SIFS and the CTS itself (9.3.1.3).
pub(super) fn answer_rts(
    rts: &RxHeader,
    nav: &Nav,
    now: Time,
    t: &PhyTiming,
) -> Option<SifsResponse> {
    if nav.is_set(now) {
        return None;
    }
    let cts_air = t.airtime(CTS_BYTES, t.basic_rate_mbps);
    Some(SifsResponse::Cts {
        to: rts.tx,
        duration_ns: rts.duration.saturating_sub(t.sifs + cts_air) as u32,
    })
}

/// Received-frame cache for duplicate detection (10.3.2.11): the last sequence number
/// seen from each transmitter. Small (one entry per neighbour), searched linearly.
#[derive(Debug, Default)]
pub(super) struct DupCache {
    last: Vec<(NodeId, u16)>,
}

impl DupCache {
    /// Records (tx, seq) and tells whether the frame repeats the last one from tx: its
    /// Retry bit is set and the sequence number is the same (a retransmission whose ACK
    /// was lost). A duplicate is acknowledged but not passed up.
    pub(super) fn is_duplicate(&mut self, tx: NodeId, seq: u16, retry: bool) -> bool {
        match self.last.iter_mut().find(|(n, _)| *n == tx) {
            Some(e) => {
                let dup = retry && e.1 == seq;
                e.1 = seq;
                dup
            }
            None => {
                self.last.push((tx, seq));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MICROS;
    use crate::mac::frame::FrameKind;
    use crate::scenario::schema::MacCfg;

    #[test]
    fn duplicates_need_retry_bit_and_same_seq() {
        let mut d = DupCache::default();
        assert!(!d.is_duplicate(3, 5, false));
        assert!(d.is_duplicate(3, 5, true));
        assert!(!d.is_duplicate(3, 6, true));
        assert!(!d.is_duplicate(4, 6, true), "other transmitter");
        assert!(!d.is_duplicate(3, 6, false), "Retry bit clear: a new frame");
    }

    #[test]
    fn rts_answered_only_with_idle_nav() {
        let t = PhyTiming::new(&MacCfg::default());
        let rts = RxHeader {
            kind: FrameKind::Rts,
            tx: 4,
            rx: 1,
            seq: 0,
            retry: false,
            duration: 5000 * MICROS,
        };
        let mut nav = Nav::default();
        let cts_air = t.airtime(CTS_BYTES, t.basic_rate_mbps);
        assert_eq!(
            answer_rts(&rts, &nav, 0, &t),
            Some(SifsResponse::Cts {
                to: 4,
                duration_ns: (5000 * MICROS - t.sifs - cts_air) as u32
            })
        );
        nav.reserve(100);
        assert_eq!(answer_rts(&rts, &nav, 99, &t), None);
        assert!(answer_rts(&rts, &nav, 100, &t).is_some(), "NAV over");
    }
}
