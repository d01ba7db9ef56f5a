//! CUBIC (RFC 9438): congestion avoidance follows a cubic function of the time since
//! the last congestion event, centred on the window where that event happened.
//!
//! ```text
//! W_cubic(t) = C (t - K)^3 + W_max          (RFC 9438 §4.2, eq. 1)
//! K = cbrt((W_max - cwnd_epoch) / C)         (§4.2, eq. 2)
//! ```
//!
//! Windows in segments, `t` in seconds since the current congestion-avoidance stage
//! began (`t_epoch`). Per ACK in congestion avoidance the window moves a
//! `1/cwnd` share of the way to `target = W_cubic(t + RTT)` (clamped to
//! `[cwnd, 1.5 cwnd]`, §4.2; concave region below W_max §4.4, convex above §4.5),
//! unless the Reno estimate `W_est` (§4.3) is ahead, in which case it takes W_est
//! (the Reno-friendly region). On a loss (§4.6) ssthresh = cwnd·β_cubic (at least two
//! segments) and W_max becomes the window before the loss, lowered by fast convergence
//! (§4.7) when that window is below the previous W_max. After a timeout (§4.8) the
//! sender's loss window applies and the next congestion-avoidance stage starts with
//! K = 0 and W_max = W_est = the window at its start.
//!
//! Slow start is RFC 5681's (§4.10 allows it; HyStart++ is not modelled). Loss
//! recovery is the sender's, as for every variant.

use super::congestion::{CongestionControl, Reno, Window};
use crate::engine::{to_secs, Time};

/// CUBIC's constants, with RFC 9438's names and defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubicParams {
    /// C, segments per second cubed (RFC 9438 §5.1: 0.4).
    pub c: f64,
    /// β_cubic, the multiplicative decrease factor (§4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (§4.7, on by default).
    pub fast_convergence: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
        }
    }
}

/// CUBIC's window growth and loss response (see the module docs).
#[derive(Debug, Clone)]
pub struct Cubic {
    params: CubicParams,
    /// W_max, segments: the window just before the last reduction (§4.2); 0 until the
    /// first loss and after a timeout, meaning "the window at the stage's start" (§4.8).
    w_max: f64,
    /// cwnd_prior, segments: the window when ssthresh was last set (§4.3, §4.6).
    cwnd_prior: f64,
    /// K, seconds, of the current stage.
    k: f64,
    /// t_epoch: when the current congestion-avoidance stage began; `None` outside one.
    t_epoch: Option<Time>,
    /// W_est, segments: the Reno-friendly estimate of the current stage (§4.3).
    w_est: f64,
    /// The smoothed RTT the target looks ahead by (§4.2); 0 before a sample.
    srtt: Time,
    /// Fraction of a byte of growth not yet applied, in [0, 1).
    carry: f64,
}

impl Cubic {
    /// A CUBIC controller with no congestion event yet.
    pub fn new(params: CubicParams) -> Self {
        Cubic {
            params,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            t_epoch: None,
            w_est: 0.0,
            srtt: 0,
            carry: 0.0,
        }
    }

    /// The constants in force.
    pub fn params(&self) -> CubicParams {
        self.params
    }

    /// W_max, segments (0: none yet, or reset by a timeout).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K of the current congestion-avoidance stage, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_est of the current congestion-avoidance stage, segments.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// α_cubic = 3 (1 - β) / (1 + β) (§4.3, eq. 4).
    pub fn alpha(&self) -> f64 {
        let b = self.params.beta;
        3.0 * (1.0 - b) / (1.0 + b)
    }

    /// W_cubic(t), segments (§4.2, eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.params.c * (t - self.k).powi(3) + self.w_max
    }

    /// A congestion-avoidance stage begins with `cwnd_epoch` segments (§4.2): K from
    /// eq. 2, W_est = cwnd_epoch (§4.3). Without a W_max above the window (none yet,
    /// or after a timeout, §4.8) the stage starts at the plateau: W_max = cwnd_epoch, K = 0.
    fn start_epoch(&mut self, now: Time, cwnd_epoch: f64) {
        self.t_epoch = Some(now);
        self.w_est = cwnd_epoch;
        if self.w_max <= cwnd_epoch {
            self.w_max = cwnd_epoch;
            self.k = 0.0;
        } else {
            self.k = ((self.w_max - cwnd_epoch) / self.params.c).cbrt();
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64) {
        if acked == 0 {
            return;
        }
        if w.in_slow_start() {
            // RFC 9438 §4.10: RFC 5681 slow start.
            Reno.on_ack(w, now, acked);
            return;
        }
        let smss = w.smss as f64;
        let cwnd = w.cwnd as f64 / smss;
        if self.t_epoch.is_none() {
            self.start_epoch(now, cwnd);
        }
        let t = to_secs(now - self.t_epoch.unwrap_or(now));
        // §4.3: W_est grows by α_cubic per window of ACKed segments; once it reaches
        // the window of the last reduction, α_cubic = 1 (Reno's rate).
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.alpha()
        };
        self.w_est += alpha * (acked as f64 / smss) / cwnd;
        if self.w_cubic(t) < self.w_est {
            // §4.3: Reno-friendly region, cwnd = W_est.
            w.cwnd = w.cwnd.max((self.w_est * smss) as u64);
            self.carry = 0.0;
            return;
        }
        // §4.2: target one RTT ahead, within [cwnd, 1.5 cwnd]; §4.4/§4.5: cwnd grows by
        // (target - cwnd) / cwnd per ACK, in the concave and convex regions alike.
        let rtt = to_secs(self.srtt);
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        let grown = (target - cwnd) / cwnd * smss + self.carry;
        let whole = grown.floor();
        self.carry = grown - whole;
        w.cwnd = w.cwnd.saturating_add(whole as u64);
    }

    /// §4.6: ssthresh = cwnd · β_cubic, at least two segments.
    fn ssthresh_after_loss(&self, w: &Window, _flight: u64) -> u64 {
        ((w.cwnd as f64 * self.params.beta) as u64).max(2 * w.smss)
    }

    fn on_loss(&mut self, w: &Window, _now: Time) {
        let cwnd = w.cwnd as f64 / w.smss as f64;
        // §4.7: fast convergence releases bandwidth to newer flows by remembering a
        // lower W_max when the window did not regain the previous one.
        self.w_max = if self.params.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.params.beta) / 2.0
        } else {
            cwnd
        };
        // §4.6: cwnd_prior for the Reno-friendly switch; the next stage starts anew.
        self.cwnd_prior = cwnd;
        self.t_epoch = None;
        self.carry = 0.0;
    }

    fn on_timeout(&mut self) {
        // §4.8: the first congestion-avoidance stage after a timeout uses K = 0 and
        // W_max = W_est = the window at its start (start_epoch with W_max cleared).
        self.w_max = 0.0;
        self.t_epoch = None;
        self.carry = 0.0;
    }

    fn on_smoothed_rtt(&mut self, srtt: Time) {
        self.srtt = srtt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MILLIS, SECOND};

    const MSS: u64 = 1000;

    fn segs(w: &Window) -> f64 {
        w.cwnd as f64 / MSS as f64
    }

    /// `cc`'s loss response at `cwnd` segments: the window after it, at cwnd·β, in
    /// congestion avoidance.
    fn after_loss(cc: &mut Cubic, cwnd: u64) -> Window {
        let mut w = Window {
            cwnd: cwnd * MSS,
            ssthresh: u64::MAX,
            smss: MSS,
        };
        cc.on_loss(&w, 0);
        w.ssthresh = cc.ssthresh_after_loss(&w, w.cwnd);
        w.cwnd = w.ssthresh;
        w
    }

    #[test]
    fn loss_sets_ssthresh_to_beta_cwnd_and_w_max_to_the_window_before() {
        let mut cc = Cubic::new(CubicParams::default());
        let w = after_loss(&mut cc, 100);
        assert_eq!(w.ssthresh, 70 * MSS, "§4.6: cwnd · 0.7");
        assert_eq!(cc.w_max(), 100.0);
        // Floor of two segments.
        let small = Window {
            cwnd: 2 * MSS,
            ssthresh: 0,
            smss: MSS,
        };
        assert_eq!(cc.ssthresh_after_loss(&small, 0), 2 * MSS);
    }

    #[test]
    fn window_follows_the_cubic_through_w_max_at_k() {
        // Long RTT: the cubic is well ahead of W_est, so the window tracks it.
        let mut cc = Cubic::new(CubicParams::default());
        cc.on_smoothed_rtt(200 * MILLIS);
        let mut w = after_loss(&mut cc, 100);
        cc.on_ack(&mut w, 0, MSS);
        // §4.2 eq. 2: K = cbrt((W_max - cwnd_epoch) / C) = cbrt(30 / 0.4).
        let k = (30.0f64 / 0.4).cbrt();
        assert!((cc.k() - k).abs() < 1e-12, "K = {}", cc.k());
        assert_eq!(cc.w_cubic(0.0), 70.0);
        assert!((cc.w_cubic(k) - 100.0).abs() < 1e-9, "W_cubic(K) = W_max");
        // Feed one window of ACKs per 200 ms RTT and compare with W_cubic(t + RTT).
        let rtt = 200 * MILLIS;
        let mut now = 0;
        let mut at_k = None;
        let mut samples = vec![];
        while now < 8 * SECOND {
            let n = (w.cwnd / MSS).max(1);
            for i in 0..n {
                cc.on_ack(&mut w, now + i * rtt / n, MSS);
            }
            now += rtt;
            let t = to_secs(now);
            samples.push((t, segs(&w)));
            if at_k.is_none() && t >= k {
                at_k = Some(segs(&w));
            }
        }
        // Concave below W_max: the window approaches 100 and stays close at t = K ...
        let wk = at_k.unwrap();
        assert!((97.0..=101.5).contains(&wk), "window at t = K: {wk}");
        // ... never far above the curve one RTT ahead, nor far below it.
        for &(t, cw) in &samples {
            let ahead = cc.w_cubic(t + 0.2);
            assert!(
                cw <= ahead + 1.0,
                "t {t}: {cw} above W_cubic(t + RTT) {ahead}"
            );
            assert!(
                cw >= cc.w_cubic(t - 0.4) - 1.0,
                "t {t}: {cw} lags the cubic"
            );
        }
        // Convex above: growth accelerates after K.
        let at = |t: f64| samples.iter().find(|s| s.0 >= t).unwrap().1;
        let (d1, d2) = (at(k + 2.0) - at(k + 1.0), at(k + 3.0) - at(k + 2.0));
        assert!(d2 > d1 && d1 > 0.0, "convex: {d1} then {d2}");
        // Concave before: growth slows down approaching K.
        let (e1, e2) = (at(1.0) - at(0.5), at(k - 0.5) - at(k - 1.0));
        assert!(e1 > e2, "concave: {e1} then {e2}");
    }

    #[test]
    fn reno_friendly_region_takes_over_at_small_rtts() {
        // At a 1 ms RTT many Reno rounds fit before the cubic moves: W_est leads.
        let params = CubicParams::default();
        let mut cc = Cubic::new(params);
        cc.on_smoothed_rtt(MILLIS);
        let mut w = after_loss(&mut cc, 20);
        let mut now = 0;
        for _ in 0..50 {
            let n = w.cwnd / MSS;
            for _ in 0..n {
                cc.on_ack(&mut w, now, MSS);
            }
            now += MILLIS;
        }
        let t = to_secs(now);
        assert!(cc.w_cubic(t) < cc.w_est(), "W_est leads the cubic");
        assert!((segs(&w) - cc.w_est()).abs() < 0.01, "cwnd = W_est (§4.3)");
        // W_est grew by α per window until it reached cwnd_prior (20), then by 1.
        let alpha = 3.0 * 0.3 / 1.7;
        assert!((cc.alpha() - alpha).abs() < 1e-12);
        let rounds_to_prior = (20.0 - 14.0) / alpha;
        let expected = 20.0 + (50.0 - rounds_to_prior);
        assert!(
            (segs(&w) - expected).abs() < 2.0,
            "{} vs {expected}",
            segs(&w)
        );
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut cc = Cubic::new(CubicParams::default());
        after_loss(&mut cc, 100);
        assert_eq!(cc.w_max(), 100.0);
        // A second loss below the last W_max: W_max = cwnd (1 + β) / 2.
        after_loss(&mut cc, 80);
        assert!((cc.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-12);
        // Without fast convergence W_max is the window at the loss.
        let mut cc = Cubic::new(CubicParams {
            fast_convergence: false,
            ..CubicParams::default()
        });
        after_loss(&mut cc, 100);
        after_loss(&mut cc, 80);
        assert_eq!(cc.w_max(), 80.0);
        // A loss above the last W_max sets it to that window either way.
        let mut cc = Cubic::new(CubicParams::default());
        after_loss(&mut cc, 50);
        after_loss(&mut cc, 60);
        assert_eq!(cc.w_max(), 60.0);
    }

    #[test]
    fn after_a_timeout_the_stage_starts_with_k_zero_at_its_window() {
        let mut cc = Cubic::new(CubicParams::default());
        cc.on_smoothed_rtt(100 * MILLIS);
        let mut w = after_loss(&mut cc, 100);
        cc.on_timeout();
        // Slow start back up to ssthresh (70), then congestion avoidance at 70.
        w.cwnd = MSS;
        while w.in_slow_start() {
            cc.on_ack(&mut w, 0, MSS);
        }
        let start = segs(&w);
        cc.on_ack(&mut w, SECOND, MSS);
        assert_eq!(cc.k(), 0.0, "§4.8: K = 0");
        assert_eq!(cc.w_max(), start, "§4.8: W_max = the window at the start");
        assert!(segs(&w) >= start);
    }

    #[test]
    fn slow_start_is_rfc_5681() {
        let mut cc = Cubic::new(CubicParams::default());
        let mut w = Window::new(MSS, 10);
        cc.on_ack(&mut w, 0, 2 * MSS);
        assert_eq!(w.cwnd, 11 * MSS);
    }
}
