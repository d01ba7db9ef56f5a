//! Recovery after a failed attempt: the contention window and the retry counters of
//! the frame in service (IEEE 802.11-2016 10.3.3, 10.3.4.4).

use super::params::MacParams;

/// Contention window and the retry counters of the frame in service.
#[derive(Debug)]
pub(super) struct Recovery {
    cw: u32,
    /// Failed attempts of the frame itself or of its RTS (short retry count).
    short: u32,
    /// Failed attempts of the frame after a successful RTS/CTS (long retry count).
    long: u32,
}

/// What happens to the frame in service after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    Retry,
    /// The retry limit is reached: the frame is given up.
    Drop,
}

impl Recovery {
    pub(super) fn new(p: &MacParams) -> Recovery {
        Recovery {
            cw: p.timing.cw_min,
            short: 0,
            long: 0,
        }
    }

    /// The contention window a backoff is drawn from, [0, CW] (10.3.3).
    pub(super) fn cw(&self) -> u32 {
        self.cw
    }

    /// Failed attempts after RTS/CTS so far (the Retry bit of the DATA after a CTS).
    pub(super) fn long_retries(&self) -> u32 {
        self.long
    }

    /// A new frame enters service: its retry counts start at zero (10.3.4.4).
    pub(super) fn new_frame(&mut self) {
        self.short = 0;
        self.long = 0;
    }

    /// The frame was acknowledged (or a group addressed frame sent): CW back to CWmin
    /// (10.3.3).
    pub(super) fn success(&mut self, p: &MacParams) {
        self.cw = p.timing.cw_min;
    }

    /// An attempt failed. `long`: the frame went after RTS/CTS (its length exceeds
    /// dot11RTSThreshold), so the long retry count moves; otherwise (the frame itself,
    /// or its RTS) the short one (10.3.4.4). Until the limit, CW takes the next value
    /// of 2^k - 1 up to CWmax (10.3.3); at the limit the frame is dropped and CW goes
    /// back to CWmin (10.3.3), unless `cw_reset_after_drop` is off (ns-3 keeps it).
    pub(super) fn failure(&mut self, p: &MacParams, long: bool) -> Verdict {
        let (count, limit) = if long {
            self.long += 1;
            (self.long, p.long_attempts)
        } else {
            self.short += 1;
            (self.short, p.short_attempts)
        };
        if count >= limit {
            if p.cw_reset_after_drop {
                self.cw = p.timing.cw_min;
            }
            Verdict::Drop
        } else {
            self.cw = (2 * (self.cw + 1) - 1).min(p.timing.cw_max);
            Verdict::Retry
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::MacCfg;

    #[test]
    fn contention_window_doubles_then_resets_at_the_limit() {
        let p = MacParams::new(&MacCfg::default());
        let mut r = Recovery::new(&p);
        r.new_frame();
        let mut cws = vec![r.cw()];
        for attempt in 1..7 {
            assert_eq!(r.failure(&p, false), Verdict::Retry, "attempt {attempt}");
            cws.push(r.cw());
        }
        assert_eq!(cws, vec![31, 63, 127, 255, 511, 1023, 1023]);
        assert_eq!(r.failure(&p, false), Verdict::Drop, "7th failed attempt");
        assert_eq!(r.cw(), 31);
        // ns-3 3.44's behaviour: the CW stays where it was after the drop
        let keep = MacParams {
            cw_reset_after_drop: false,
            ..p.clone()
        };
        let mut r = Recovery::new(&keep);
        r.new_frame();
        for _ in 0..6 {
            r.failure(&keep, false);
        }
        assert_eq!(r.failure(&keep, false), Verdict::Drop);
        assert_eq!(r.cw(), 1023);
    }

    #[test]
    fn long_and_short_counts_are_separate() {
        let p = MacParams::new(&MacCfg::default()); // limits 7 and 4
        let mut r = Recovery::new(&p);
        r.new_frame();
        for _ in 0..3 {
            assert_eq!(r.failure(&p, true), Verdict::Retry);
            assert_eq!(r.failure(&p, false), Verdict::Retry);
        }
        assert_eq!(r.long_retries(), 3);
        assert_eq!(r.failure(&p, true), Verdict::Drop, "4th long failure");
        r.new_frame();
        assert_eq!(r.long_retries(), 0);
        r.success(&p);
        assert_eq!(r.cw(), 31);
    }
}
