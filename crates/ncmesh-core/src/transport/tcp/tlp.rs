//! Tail loss probe (RFC 8985 §7): when the ACKs of a flight's tail stop, a probe
//! segment about two round trips after the last transmission draws the ACK (with SACK
//! information) that lets RACK or fast recovery repair the tail, instead of waiting
//! for the RTO. One probe per tail: no other until the probe's episode ends.
//!
//! [`Tlp`] holds the probe timeout (PTO) and the episode; the sender decides when the
//! PTO may be armed (§7.2's conditions), sends the probe (§7.3) and reacts to the loss
//! an episode reveals (§7.4).

use crate::engine::{Time, MILLIS, SECOND};

/// RFC 8985 §7.2 WCDelAckT: the worst-case delayed-ACK timer a probe of a lone segment
/// allows for.
pub const WC_DEL_ACK_T: Time = 200 * MILLIS;

/// The TLP state of a connection (RFC 8985 §7.1 names).
#[derive(Debug, Clone, Default)]
pub struct Tlp {
    /// The probe timer's deadline.
    pto: Option<Time>,
    /// The PTO fired: the next segment the sender sends is the probe.
    probe_due: bool,
    /// TLP.end_seq: SND.NXT after the probe; `None` outside an episode.
    end_seq: Option<u64>,
    /// TLP.is_retrans: the probe was a retransmission.
    is_retrans: bool,
}

/// What an ACK tells the TLP episode (RFC 8985 §7.4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TlpAck {
    /// The cumulative ACK.
    pub ack: u64,
    /// It acknowledged new data.
    pub advanced: bool,
    /// It carried SACK blocks.
    pub has_sack: bool,
    /// It carried a DSACK (RFC 2883) block.
    pub dsack: bool,
}

impl Tlp {
    /// No probe scheduled, no episode.
    pub fn new() -> Self {
        Self::default()
    }

    /// RFC 8985 §7.2: schedules the PTO at now + 2·SRTT (plus WCDelAckT when a single
    /// segment is in flight; 1 s before any RTT sample), but no later than the RTO.
    /// Not while an episode is in progress (one probe per tail).
    pub fn arm(&mut self, now: Time, srtt: Option<Time>, one_segment: bool, rto: Option<Time>) {
        if self.end_seq.is_some() || self.probe_due {
            return;
        }
        let pto = match srtt {
            Some(srtt) if one_segment => 2 * srtt + WC_DEL_ACK_T,
            Some(srtt) => 2 * srtt,
            None => SECOND,
        };
        let at = now + pto;
        self.pto = Some(rto.map_or(at, |r| at.min(r)));
    }

    /// The PTO may not run (§7.2's conditions do not hold).
    pub fn disarm(&mut self) {
        self.pto = None;
    }

    /// When the PTO fires, if armed.
    pub fn deadline(&self) -> Option<Time> {
        self.pto
    }

    /// RFC 8985 §7.3: the PTO fired; the next segment sent is the probe.
    pub fn on_pto(&mut self) {
        self.pto = None;
        self.probe_due = true;
    }

    /// Whether the next segment is to be the probe (and it is taken now).
    pub fn take_probe(&mut self) -> bool {
        std::mem::take(&mut self.probe_due)
    }

    /// RFC 8985 §7.3: the probe left; TLP.end_seq = SND.NXT after it.
    pub fn on_probe_sent(&mut self, snd_nxt: u64, retransmission: bool) {
        self.end_seq = Some(snd_nxt);
        self.is_retrans = retransmission;
    }

    /// RFC 8985 §7.4.2 (TLP_process_ack): whether this ACK ends the episode having
    /// revealed a loss the probe repaired, to which congestion control must react.
    pub fn on_ack(&mut self, a: TlpAck) -> bool {
        let Some(end) = self.end_seq else {
            return false;
        };
        if a.ack < end {
            return false;
        }
        if !self.is_retrans || a.dsack {
            // New data probed (RACK handles any loss), or both the original and the
            // probe arrived (DSACK): no loss.
            self.end_seq = None;
            return false;
        }
        if a.ack > end || (!a.advanced && !a.has_sack) {
            // The probe repaired a single loss (the ACK went past it, or a duplicate
            // without SACK: the original arrived, this is for the probe, and no DSACK
            // says so).
            self.end_seq = None;
            return true;
        }
        false
    }

    /// The RTO fired: probes give way to the retransmission timer and the episode ends.
    pub fn on_rto(&mut self) {
        *self = Tlp::new();
    }

    /// A probe episode is in progress.
    pub fn in_episode(&self) -> bool {
        self.end_seq.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRTT: Time = 50 * MILLIS;

    fn ack(ack: u64, advanced: bool) -> TlpAck {
        TlpAck {
            ack,
            advanced,
            has_sack: false,
            dsack: false,
        }
    }

    #[test]
    fn pto_is_two_srtt_plus_the_delayed_ack_for_one_segment_capped_by_the_rto() {
        let mut t = Tlp::new();
        t.arm(0, Some(SRTT), false, Some(SECOND));
        assert_eq!(t.deadline(), Some(2 * SRTT));
        t.arm(0, Some(SRTT), true, Some(SECOND));
        assert_eq!(t.deadline(), Some(2 * SRTT + WC_DEL_ACK_T));
        t.arm(0, None, false, Some(5 * SECOND));
        assert_eq!(t.deadline(), Some(SECOND), "1 s before a sample");
        t.arm(0, Some(SRTT), false, Some(80 * MILLIS));
        assert_eq!(t.deadline(), Some(80 * MILLIS), "never after the RTO");
    }

    #[test]
    fn one_probe_per_tail() {
        let mut t = Tlp::new();
        t.arm(0, Some(SRTT), false, None);
        t.on_pto();
        assert!(t.take_probe());
        assert!(!t.take_probe(), "taken once");
        t.on_probe_sent(10_000, true);
        // While the episode lasts, no new PTO.
        t.arm(SECOND, Some(SRTT), false, None);
        assert_eq!(t.deadline(), None);
        assert!(t.in_episode());
        // Partial progress below TLP.end_seq keeps it open.
        assert!(!t.on_ack(ack(9_000, true)));
        t.arm(SECOND, Some(SRTT), false, None);
        assert_eq!(t.deadline(), None);
        // The ACK reaching end_seq without DSACK: wait (it may yet come).
        assert!(!t.on_ack(ack(10_000, true)));
        assert!(t.in_episode());
        // Beyond it: the probe repaired a loss; the episode ends, a new PTO may run.
        assert!(t.on_ack(ack(11_000, true)));
        assert!(!t.in_episode());
        t.arm(2 * SECOND, Some(SRTT), false, None);
        assert_eq!(t.deadline(), Some(2 * SECOND + 2 * SRTT));
    }

    #[test]
    fn episode_outcomes() {
        // New-data probe: no congestion response.
        let mut t = Tlp::new();
        t.on_probe_sent(10_000, false);
        assert!(!t.on_ack(ack(10_000, true)));
        assert!(!t.in_episode());
        // Retransmission probe, DSACK: original and probe both arrived.
        let mut t = Tlp::new();
        t.on_probe_sent(10_000, true);
        assert!(!t.on_ack(TlpAck {
            dsack: true,
            ..ack(10_000, false)
        }));
        assert!(!t.in_episode());
        // Retransmission probe, pure duplicate without SACK: a loss was repaired.
        let mut t = Tlp::new();
        t.on_probe_sent(10_000, true);
        assert!(t.on_ack(ack(10_000, false)));
        // An RTO ends everything.
        let mut t = Tlp::new();
        t.on_probe_sent(10_000, true);
        t.on_rto();
        assert!(!t.in_episode());
    }
}
