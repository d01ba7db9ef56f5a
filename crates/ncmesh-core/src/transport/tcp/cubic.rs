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
//! Slow start is RFC 5681's (§4.10), or with `hystart` HyStart++ (RFC 9406, which §4.10
//! recommends) in the initial slow start. Loss recovery is the sender's, as for every variant.

use super::congestion::{CongestionControl, Reno, Window};
use super::hystart::{HyStart, HyStartParams, RoundEnd};
use super::rate::{RateSample, RateSampler};
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
    /// HyStart++ (RFC 9406) in the initial slow start (§4.10; off: RFC 5681's).
    pub hystart: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            hystart: false,
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
    /// HyStart++ while the initial slow start lasts (`params.hystart`).
    hystart: Option<HyStart>,
    /// Bytes of Conservative Slow Start growth not yet applied (below one divisor's worth).
    css_carry: u64,
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
            hystart: params
                .hystart
                .then(|| HyStart::new(HyStartParams::default())),
            css_carry: 0,
        }
    }

    /// HyStart++'s state, if it runs.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
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
            // RFC 9438 §4.10: RFC 5681 slow start; in HyStart++'s CSS the increase is
            // divided by CSS_GROWTH_DIVISOR (RFC 9406 §4.2).
            let div = self.hystart.as_ref().map_or(1, HyStart::growth_divisor);
            if div == 1 {
                Reno.on_ack(w, now, acked);
            } else {
                let mut ss = *w;
                Reno.on_ack(&mut ss, now, acked);
                let grown = ss.cwnd - w.cwnd + self.css_carry;
                self.css_carry = grown % div;
                w.cwnd += grown / div;
            }
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

    fn on_cumulative_ack(
        &mut self,
        w: &mut Window,
        _now: Time,
        ack: u64,
        snd_nxt: u64,
        in_recovery: bool,
    ) {
        let Some(h) = self.hystart.as_mut() else {
            return;
        };
        if in_recovery || !w.in_slow_start() {
            return;
        }
        if h.on_round_check(ack, snd_nxt) == RoundEnd::EnterCongestionAvoidance {
            // RFC 9406 §4.2: after CSS_ROUNDS rounds of CSS, ssthresh = cwnd.
            w.ssthresh = w.cwnd;
        }
    }

    fn wants_rate_samples(&self) -> bool {
        // RFC 9406 §4.2 takes an RTT sample per ACK: the rate sampler's (RFC 6298's
        // timed segment gives one per round trip).
        self.hystart.is_some()
    }

    fn on_rate_sample(
        &mut self,
        w: &mut Window,
        _now: Time,
        rs: &RateSample,
        _sampler: &mut RateSampler,
    ) {
        if let (Some(h), Some(rtt)) = (self.hystart.as_mut(), rs.rtt) {
            if w.in_slow_start() {
                h.on_rtt(rtt);
            }
        }
    }

    fn on_loss(&mut self, w: &Window, _now: Time) {
        if let Some(h) = self.hystart.as_mut() {
            h.on_congestion();
        }
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
        if let Some(h) = self.hystart.as_mut() {
            h.on_congestion();
        }
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
    fn hystart_slows_slow_start_on_an_rtt_rise_and_ends_it_after_css_rounds() {
        use crate::transport::tcp::hystart::Phase;
        // A window of cwnd segments per round, each ACK one segment with an RTT sample:
        // 100 ms for 2 rounds, then 130 ms (a rise beyond RFC 9406's 12.5 ms threshold).
        let mut cc = Cubic::new(CubicParams {
            hystart: true,
            ..CubicParams::default()
        });
        assert!(cc.wants_rate_samples(), "per-ACK RTT samples");
        let mut w = Window::new(MSS, 10);
        let mut sampler = RateSampler::new();
        let (mut acked, mut sent) = (0u64, 10 * MSS);
        let mut growth = Vec::new();
        for round in 0..12 {
            if !w.in_slow_start() {
                break;
            }
            let rtt = if round < 2 { 100 } else { 130 } * MILLIS;
            let before = w.cwnd;
            let segs = w.cwnd / MSS;
            for _ in 0..segs {
                acked += MSS;
                cc.on_cumulative_ack(&mut w, 0, acked, sent, false);
                cc.on_ack(&mut w, 0, MSS);
                let rs = RateSample {
                    rtt: Some(rtt),
                    ..RateSample::default()
                };
                cc.on_rate_sample(&mut w, 0, &rs, &mut sampler);
                sent = acked + w.cwnd; // a window-limited sender: cwnd in flight
            }
            growth.push((w.cwnd - before) as f64 / before as f64);
        }
        // Rounds 0-1 double (slow start), round 2 sees the rise after 8 samples and
        // grows a quarter as fast from then, rounds 3-7 are CSS; after CSS_ROUNDS (5)
        // ssthresh = cwnd: congestion avoidance.
        assert!(growth[0] > 0.99 && growth[1] > 0.99, "{growth:?}");
        for g in &growth[3..7] {
            assert!(
                (g - 0.25).abs() < 0.01,
                "CSS grows by cwnd / 4 per round: {growth:?}"
            );
        }
        assert!(!w.in_slow_start(), "{growth:?}");
        // ssthresh = the cwnd at the fifth CSS round's end; the rest of that round's ACKs
        // grew it a little in congestion avoidance.
        assert!(w.ssthresh <= w.cwnd && w.cwnd - w.ssthresh < MSS, "{w:?}");
        assert_eq!(cc.hystart().map(|h| h.phase()), Some(Phase::Done));
        // Without HyStart++ the same rounds keep doubling.
        let plain = Cubic::new(CubicParams::default());
        assert!(!plain.wants_rate_samples() && plain.hystart().is_none());
    }

    #[test]
    fn slow_start_is_rfc_5681() {
        let mut cc = Cubic::new(CubicParams::default());
        let mut w = Window::new(MSS, 10);
        cc.on_ack(&mut w, 0, 2 * MSS);
        assert_eq!(w.cwnd, 11 * MSS);
    }
}
