//! Virtual carrier sense (the NAV) and the EIFS after a failed reception.

use crate::engine::Time;

/// What frames heard from others say about the medium beyond carrier sense.
#[derive(Debug, Default)]
pub(super) struct Nav {
    /// The medium is reserved until then (NAV, 10.3.2.4).
    until: Time,
    /// End of the last reception that failed, until a frame is received intact: EIFS
    /// instead of DIFS counts from it (10.3.2.3.7).
    rx_error_end: Option<Time>,
}

impl Nav {
    /// Does the NAV reserve the medium at `now`?
    pub(super) fn is_set(&self, now: Time) -> bool {
        self.until > now
    }

    /// End of the reservation (0: never set).
    pub(super) fn until(&self) -> Time {
        self.until
    }

    /// A valid frame addressed to another station reserves the medium until `end`
    /// (its end plus its Duration); the NAV only ever grows this way (10.3.2.4).
    /// True if it grew.
    pub(super) fn reserve(&mut self, end: Time) -> bool {
        let grew = end > self.until;
        if grew {
            self.until = end;
        }
        grew
    }

    /// A reception ended at `now` with an error (FCS or PHY): EIFS applies
    /// (10.3.2.3.7).
    pub(super) fn rx_failed(&mut self, now: Time) {
        self.rx_error_end = Some(now);
    }

    /// A frame was received intact: EIFS no longer applies (10.3.2.3.7).
    pub(super) fn rx_ok(&mut self) {
        self.rx_error_end = None;
    }

    /// Earliest time the medium counts as idle after EIFS, if one applies.
    pub(super) fn eifs_end(&self, eifs: Time) -> Option<Time> {
        self.rx_error_end.map(|e| e + eifs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nav_only_grows_and_eifs_ends_with_a_good_frame() {
        let mut n = Nav::default();
        assert!(!n.is_set(0));
        assert!(n.reserve(100));
        assert!(!n.reserve(80), "a shorter reservation does not cut the NAV");
        assert_eq!(n.until(), 100);
        assert!(n.is_set(99) && !n.is_set(100));
        assert_eq!(n.eifs_end(364), None);
        n.rx_failed(1000);
        assert_eq!(n.eifs_end(364), Some(1364));
        n.rx_ok();
        assert_eq!(n.eifs_end(364), None);
    }
}
