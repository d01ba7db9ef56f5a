//! A windowed maximum over the last `window` rounds, kept in three samples: Kathleen
//! Nichols' algorithm as Linux's `lib/win_minmax.c` (`minmax_running_max`) implements
//! it, and as BBR's bottleneck-bandwidth filter uses it (tcp_bbr.c `bbr->bw`, window
//! `bbr_bw_rtts` round trips). The best, second-best and third-best samples of the
//! window are kept, so the maximum is exact when a sample ages out without a scan.

/// One sample: a value and the round (time) it was taken in.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Sample {
    t: u64,
    v: f64,
}

/// The running maximum of the samples of the last `window` rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct MaxFilter {
    window: u64,
    s: [Sample; 3],
}

impl MaxFilter {
    /// Empty (a maximum of 0) over a window of `window` rounds.
    pub fn new(window: u64) -> Self {
        MaxFilter {
            window,
            s: [Sample::default(); 3],
        }
    }

    /// The maximum of the window.
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forgets every sample and starts over with `v` at round `t` (`minmax_reset`).
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [Sample { t, v }; 3];
    }

    /// Adds sample `v` taken in round `t` (non-decreasing) and returns the maximum
    /// (`minmax_running_max`).
    pub fn update(&mut self, t: u64, v: f64) -> f64 {
        let val = Sample { t, v };
        // A new maximum, or nothing left in the window: start over.
        if val.v >= self.s[0].v || val.t.saturating_sub(self.s[2].t) > self.window {
            self.reset(t, v);
            return v;
        }
        if val.v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(val)
    }

    /// `minmax_subwin_update`: ages the best samples out of the window and keeps the
    /// second and third best spread over it (a quarter and a half of it).
    fn subwin_update(&mut self, val: Sample) -> f64 {
        let dt = val.t.saturating_sub(self.s[0].t);
        let win = self.window;
        if dt > win {
            // The best sample left the window: the second and third move up, the new
            // one becomes the third.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.saturating_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window passed without a second choice: take one.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half of the window passed without a third choice: take one.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_maximum_of_the_last_window_rounds() {
        let mut f = MaxFilter::new(10);
        assert_eq!(f.get(), 0.0);
        assert_eq!(f.update(0, 100.0), 100.0);
        // Lower samples do not displace it while it is in the window (rounds 0-10).
        for t in 1..=10 {
            assert_eq!(f.update(t, 50.0 + t as f64), 100.0, "round {t}");
        }
        // Round 11: the 100 is 11 rounds old and leaves; the best of the later
        // samples the filter kept takes over.
        let m = f.update(11, 40.0);
        assert!((52.0..100.0).contains(&m), "{m}");
        // A higher sample takes over at once.
        assert_eq!(f.update(12, 500.0), 500.0);
    }

    #[test]
    fn the_maximum_is_that_of_the_window_for_a_falling_rate() {
        // Samples falling by one per round: after the window is full the maximum is
        // always the sample of exactly `window` rounds ago or a little younger (the
        // three-sample filter is exact to within its sub-windows).
        let mut f = MaxFilter::new(10);
        for t in 0..100u64 {
            let m = f.update(t, 1000.0 - t as f64);
            let exact = 1000.0 - t.saturating_sub(10) as f64;
            assert!(m <= exact && m >= exact - 5.0, "t={t}: {m} vs {exact}");
        }
    }

    #[test]
    fn a_gap_longer_than_the_window_starts_over() {
        let mut f = MaxFilter::new(10);
        f.update(0, 100.0);
        assert_eq!(f.update(30, 1.0), 1.0);
    }
}
