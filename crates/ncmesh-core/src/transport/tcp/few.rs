//! TCP-FeW, fractional window increment (K. Nahm, A. Helmy, C.-C. J. Kuo, "TCP over
//! multihop 802.11 networks: issues and performance enhancement", ACM MobiHoc 2005),
//! in the form Xu et al. (section II-B.2, equation 1) give it:
//!
//! ```text
//! W_new = W_current + alpha / W_current      (per ACK, in segments, 0 < alpha <= 1)
//! ```
//!
//! so congestion avoidance adds `alpha` segments per round trip instead of one;
//! alpha = 1 is RFC 5681 congestion avoidance. Slow start, ssthresh after a loss and
//! the loss window stay RFC 5681's, and loss recovery is the sender's (NewReno or
//! SACK), as the seed describes ("keeps the original mechanism of TCP").
//!
//! In bytes the per-ACK increment is `alpha * SMSS * SMSS / cwnd`, a fraction of a
//! byte for small alpha. The fraction is carried over to the next ACK rather than
//! rounded away (or up to one byte, as [`super::Reno`] does), so a window's worth of
//! ACKs adds alpha * SMSS bytes to within one byte.

use super::congestion::{CongestionControl, Window};
use crate::engine::Time;

/// TCP-FeW's window growth (see the module docs).
#[derive(Debug, Clone)]
pub struct Few {
    alpha: f64,
    /// Fraction of a byte of window growth not yet applied, in [0, 1).
    carry: f64,
}

impl Few {
    /// `alpha` is clamped to (0, 1]; a non-positive or NaN value means 0.01.
    pub fn new(alpha: f64) -> Self {
        let alpha = if alpha > 0.0 { alpha.min(1.0) } else { 0.01 };
        Few { alpha, carry: 0.0 }
    }

    /// The fractional increment in force.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Few {
    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() {
            // RFC 5681 equation (2), unchanged by FeW.
            w.cwnd = w.cwnd.saturating_add(acked.min(w.smss));
            return;
        }
        // Xu et al. equation (1) in bytes: alpha * SMSS^2 / cwnd per ACK.
        let smss = w.smss as f64;
        let inc = self.alpha * smss * smss / w.cwnd.max(1) as f64 + self.carry;
        let whole = inc.floor();
        self.carry = inc - whole;
        w.cwnd = w.cwnd.saturating_add(whole as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ca(cwnd: u64) -> Window {
        Window {
            cwnd,
            ssthresh: 1000,
            smss: MSS,
        }
    }

    #[test]
    fn one_window_of_acks_adds_alpha_segments() {
        for alpha in [0.01, 0.05, 0.1, 0.5, 1.0] {
            for segs in [2u64, 4, 10, 37] {
                let mut w = ca(segs * MSS);
                let mut cc = Few::new(alpha);
                for _ in 0..segs {
                    cc.on_ack(&mut w, 0, MSS);
                }
                let grown = (w.cwnd - segs * MSS) as f64;
                // alpha * SMSS, less the carried fraction (under one byte) and the
                // per-ACK share shrinking as cwnd grows (a relative alpha / W at most).
                let want = alpha * MSS as f64;
                let low = want * (1.0 - alpha / segs as f64) - 1.0;
                assert!(
                    grown <= want && grown >= low,
                    "alpha {alpha}, W {segs}: grew {grown}, want {want}"
                );
            }
        }
    }

    #[test]
    fn alpha_one_is_rfc5681_congestion_avoidance() {
        // RFC 5681 equation (3), SMSS * SMSS / cwnd per ACK, without the per-ACK
        // truncation of the integer implementation: within one byte of the real
        // recurrence.
        let mut w = ca(10 * MSS);
        let mut few = Few::new(1.0);
        let mut exact = 10.0 * MSS as f64;
        for _ in 0..200 {
            few.on_ack(&mut w, 0, MSS);
            exact += (MSS * MSS) as f64 / exact;
            assert!(
                (w.cwnd as f64 - exact).abs() <= 1.0,
                "{} vs {exact}",
                w.cwnd
            );
        }
    }

    #[test]
    fn tiny_increments_accumulate_instead_of_rounding() {
        // 0.01 * 1000^2 / 100_000 = 0.1 byte per ACK: ten ACKs make one byte.
        let mut w = ca(100 * MSS);
        let mut cc = Few::new(0.01);
        for _ in 0..9 {
            cc.on_ack(&mut w, 0, MSS);
        }
        assert_eq!(w.cwnd, 100 * MSS);
        cc.on_ack(&mut w, 0, MSS);
        cc.on_ack(&mut w, 0, MSS);
        assert_eq!(w.cwnd, 100 * MSS + 1);
    }

    #[test]
    fn slow_start_and_loss_response_are_reno() {
        let mut w = Window::new(MSS, 2);
        let mut cc = Few::new(0.01);
        cc.on_ack(&mut w, 0, MSS);
        cc.on_ack(&mut w, 0, 2 * MSS);
        assert_eq!(w.cwnd, 4 * MSS);
        assert_eq!(cc.ssthresh_after_loss(&w, 10 * MSS), 5 * MSS);
        assert_eq!(cc.loss_window(&w), MSS);
        assert_eq!(cc.pacing_release(), None);
        assert!(cc.rto_backoff());
    }

    #[test]
    fn alpha_is_clamped() {
        assert_eq!(Few::new(3.0).alpha(), 1.0);
        assert_eq!(Few::new(0.0).alpha(), 0.01);
        assert_eq!(Few::new(f64::NAN).alpha(), 0.01);
    }
}
