//! Round-trip time estimation and the retransmission timeout (RFC 6298).
//!
//! Integer nanoseconds throughout, so runs are bit-for-bit reproducible. Which
//! segments get timed (and Karn's rule) is the sender's business; this type only
//! turns samples into an RTO and applies backoff.

use super::config::TcpConfig;
use crate::engine::Time;

/// RTT estimation and the retransmission timeout (RFC 6298).
#[derive(Debug, Clone)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    /// Current RTO, including any backoff.
    rto: Time,
    min_rto: Time,
    max_rto: Time,
    granularity: Time,
    /// Doublings applied since the last sample.
    backoffs: u32,
}

impl RttEstimator {
    /// An estimator without samples (RTO = the configured initial RTO).
    pub fn new(cfg: &TcpConfig) -> Self {
        Self::with_bounds(
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
            cfg.clock_granularity,
        )
    }

    /// An estimator with its own bounds (also used for timers other than TCP's, e.g.
    /// COPE's per-neighbour ack timeout): RTO `initial` until the first sample, then
    /// SRTT + max(`granularity`, 4 RTTVAR) within [`min`, `max`].
    pub fn with_bounds(initial: Time, min: Time, max: Time, granularity: Time) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            // RFC 6298 (2.1): before any measurement the RTO is the configured initial value.
            rto: initial.min(max),
            min_rto: min,
            max_rto: max,
            granularity,
            backoffs: 0,
        }
    }

    /// Feeds one RTT measurement `r` and recomputes the RTO, dropping any backoff
    /// (RFC 6298 section 5, last paragraph: a fresh sample collapses a backed-off RTO).
    pub fn on_sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                // RFC 6298 (2.2): first sample seeds SRTT = R and RTTVAR = R/2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 (2.3) with beta = 1/4 and alpha = 1/8; RTTVAR is updated
                // with the old SRTT before SRTT itself moves.
                let diff = srtt.abs_diff(r);
                self.rttvar = (3 * self.rttvar + diff) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        self.backoffs = 0;
        self.rto = self.computed_rto();
    }

    /// RFC 6298 (2.2)/(2.3): RTO = SRTT + max(G, 4 RTTVAR), then the lower bound of
    /// (2.4) and the upper bound of (2.5).
    fn computed_rto(&self) -> Time {
        let srtt = self.srtt.unwrap_or(0);
        let rto = srtt + self.granularity.max(4 * self.rttvar);
        rto.max(self.min_rto).min(self.max_rto)
    }

    /// RFC 6298 (5.5): the timer expired, double the RTO, capped at the maximum (2.5).
    pub fn back_off(&mut self) {
        self.rto = self.rto.saturating_mul(2).min(self.max_rto);
        self.backoffs += 1;
    }

    /// The retransmission timeout to arm the timer with now.
    pub fn rto(&self) -> Time {
        self.rto
    }

    /// SRTT, once a sample was taken.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// RTTVAR (0 before the first sample).
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    /// Backoff doublings since the last RTT sample.
    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MILLIS, SECOND};

    fn cfg(min_rto: Time, initial: Time, max: Time, g: Time) -> TcpConfig {
        TcpConfig {
            min_rto,
            initial_rto: initial,
            max_rto: max,
            clock_granularity: g,
            rtt_every_ack: false,
            ..TcpConfig::default()
        }
    }

    #[test]
    fn initial_rto_until_first_sample() {
        let e = RttEstimator::new(&cfg(SECOND, 3 * SECOND, 60 * SECOND, MILLIS));
        assert_eq!(e.rto(), 3 * SECOND);
        assert_eq!(e.srtt(), None);
    }

    #[test]
    fn first_and_later_samples_follow_rfc6298() {
        let mut e = RttEstimator::new(&cfg(0, SECOND, 60 * SECOND, MILLIS));
        e.on_sample(100 * MILLIS);
        assert_eq!(e.srtt(), Some(100 * MILLIS));
        assert_eq!(e.rttvar(), 50 * MILLIS);
        assert_eq!(e.rto(), 300 * MILLIS); // 100 + 4 * 50
        e.on_sample(200 * MILLIS);
        // RTTVAR = 3/4 * 50 + 1/4 * |100 - 200| = 62.5 ms; SRTT = 7/8 * 100 + 1/8 * 200 = 112.5 ms
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), Some(112_500_000));
        assert_eq!(e.rto(), 112_500_000 + 4 * 62_500_000);
    }

    #[test]
    fn min_rto_and_granularity_are_honoured() {
        let mut e = RttEstimator::new(&cfg(SECOND, SECOND, 60 * SECOND, MILLIS));
        e.on_sample(10 * MILLIS);
        assert_eq!(e.rto(), SECOND, "min RTO");
        // With no lower bound, a perfectly steady RTT makes RTTVAR tiny and G dominates.
        let mut e = RttEstimator::new(&cfg(0, SECOND, 60 * SECOND, 50 * MILLIS));
        for _ in 0..200 {
            e.on_sample(10 * MILLIS);
        }
        assert!(e.rttvar() < MILLIS);
        assert_eq!(e.rto(), 10 * MILLIS + 50 * MILLIS);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_a_sample_collapses_it() {
        let mut e = RttEstimator::new(&cfg(SECOND, SECOND, 10 * SECOND, MILLIS));
        let mut seen = vec![e.rto()];
        for _ in 0..5 {
            e.back_off();
            seen.push(e.rto());
        }
        let s = SECOND;
        assert_eq!(seen, vec![s, 2 * s, 4 * s, 8 * s, 10 * s, 10 * s]);
        assert_eq!(e.backoffs(), 5);
        e.on_sample(100 * MILLIS);
        assert_eq!(e.backoffs(), 0);
        assert_eq!(e.rto(), SECOND);
    }
}
