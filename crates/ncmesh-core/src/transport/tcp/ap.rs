//! TCP with Adaptive Pacing (TCP-AP) and the network-coding-aware variant built on it.
//!
//! TCP-AP (S. ElRakabawy, A. Klemm, C. Lindemann, "TCP with Adaptive Pacing for
//! Multihop Wireless Networks", ACM MobiHoc 2005) keeps NewReno's window and loss
//! recovery and spaces transmissions within the window. A segment goes out only once
//! the rate interval has passed since the previous one:
//!
//! ```text
//! rate interval = (1 + k * covRTT) * avg(nHPD)        k = 2, n = 4
//! ```
//!
//! where nHPD ("4-hop propagation delay" for n = 4) is the time a data packet needs to
//! travel n hops, the spatial-reuse distance of an 802.11 chain with 250 m range and
//! 550 m interference / carrier-sense range, and covRTT is the relative variation of
//! recent RTT samples (how it is measured: below). Xu et al.
//! (section II-B.3) summarise the same rule: "the source node adapts its
//! transmission rate according to the estimation of the current 4-hop propagation
//! delay and coefficient of variation of recently measured RTTs".
//!
//! The estimator follows the authors' ns-2 agent `Agent/TCP/Newreno/AP` (tcp-ap.cc,
//! University of Dortmund, September 2005; a public copy is in the GitHub repository
//! musicinthedark/semitcp, file tcp/tcp-ap.cc), which computes, for every ACK, with
//! the path's hop count h, the data and ACK sizes on the air S_d = MSS + 112 bytes and
//! S_a = 112 bytes, and the link rate B:
//!
//! ```text
//! q      = (RTT / h - (S_d + S_a) / B) / 2     per-hop queuing (and access) delay;
//!                                              if q > delay_bound: q = avg(q)
//! avg(q) = 0.5 * avg(q) + 0.5 * q
//! d      = q + S_d / B                         one-hop delay of a data packet
//! nHPD   = n * d   if h >= n,   d otherwise    (the agent's rule, kept as is)
//! avg    = a * avg + (1 - a) * nHPD            a = 0.7, first sample taken as is;
//!                                              only samples in (0, delay_bound)
//! ```
//!
//! with delay_bound = 0.5 s, a 50-sample history for the variation, and a rate
//! interval of 0.05 s until the first sample.
//!
//! covRTT is also the agent's (calc_variation, set_pace_timer): the mean absolute
//! deviation of the last `history` accepted nHPD samples over their mean, recomputed
//! with every accepted sample and left as it was while they are all equal
//! (`ap_variation = "adev"`). The paper words it "coefficient of variation of
//! recently measured RTTs", and the agent's comment calls its nHPD samples equivalent
//! ("simply a fraction of RTT"); but nHPD = RTT / 2h + (S_d - S_a) / 2B carries a
//! constant, so its relative spread is smaller than the RTTs', and a mean absolute
//! deviation is at most the standard deviation. The other readings are options:
//! `"cov"`, standard deviation over mean of the nHPD samples (the agent's
//! commented-out line), and `"cov-rtt"`, of the RTT samples (ncmesh's rule until
//! issue 12: on a 2-hop chain its larger term paced TCP-AP about a quarter below NewReno; see
//! docs/assumptions.md).
//!
//! Differences from that agent, recorded in docs/assumptions.md:
//! - RTT samples come from this sender's own transmission log, not from timestamps:
//!   a new cumulative ACK gives now minus the send time of the most recently sent
//!   segment it newly covers, unless that transmission was a retransmission (Karn).
//!   Duplicate ACKs give no sample.
//! - Pacing is "at most one segment per rate interval since the previous one",
//!   computed when a segment leaves; the agent runs a periodic timer instead.
//!
//! Like the agent, the fast retransmission and the first retransmission after a
//! timeout are not held back by pacing (the sender exempts them), and a timeout does
//! not back the RTO off ([`CongestionControl::rto_backoff`] is false).
//!
//! Network-coding-aware TCP (Xu et al. section IV-B) is TCP-AP with the rate interval
//! scaled: r_new = lambda * r_old (equation 4, lambda = 0.2 the paper's empirical
//! best), so segments arrive faster and the relays' output queues hold more coding
//! opportunities. The paper describes the rate as "adaptive to the length of the
//! output queue"; an end-to-end sender does not see relay queues, and equation (4)
//! is the only rule the paper gives, so the factor is static and chosen per scenario
//! (see docs/assumptions.md).

use super::congestion::{CongestionControl, Reno, Window};
use crate::engine::{secs, Time};
use crate::scenario::schema::{ApVariation, TcpCfg};
use std::collections::VecDeque;

/// Header bytes (TCP, IP, MAC, ...) the ns-2 agent adds to a segment's payload to
/// get its size on the air; an ACK is this overhead alone.
pub const AP_OVERHEAD_BYTES: u64 = 112;

/// Weight of the old average in the EWMA of per-hop queuing delays (agent: gamma_).
const QUEUING_SMOOTHING: f64 = 0.5;

/// TCP-AP parameters in simulator units. Defaults are the ns-2 agent's.
#[derive(Debug, Clone, PartialEq)]
pub struct ApParams {
    /// Spatial-reuse hop count n.
    pub reuse_hops: u32,
    /// Weight a of the old average in the EWMA of nHPD samples.
    pub smoothing: f64,
    /// Accepted samples kept for covRTT.
    pub history: u32,
    /// k in (1 + k * covRTT).
    pub cov_factor: f64,
    /// What covRTT is computed as.
    pub variation: ApVariation,
    /// Queuing-delay and nHPD samples above this are not trusted.
    pub delay_bound: Time,
    /// Rate interval before the first accepted sample.
    pub initial_interval: Time,
    /// Link rate B, bits per second.
    pub link_rate_bps: f64,
}

fn pos_or(v: f64, default: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        default
    }
}

impl ApParams {
    /// From the scenario's `ap_*` fields; values validation rejects are replaced by
    /// the defaults.
    pub fn from_cfg(c: &TcpCfg) -> Self {
        ApParams {
            reuse_hops: c.ap_reuse_hops.max(1),
            smoothing: if (0.0..1.0).contains(&c.ap_smoothing) {
                c.ap_smoothing
            } else {
                0.7
            },
            history: c.ap_history.max(1),
            cov_factor: if c.ap_cov_factor.is_finite() && c.ap_cov_factor >= 0.0 {
                c.ap_cov_factor
            } else {
                2.0
            },
            variation: c.ap_variation,
            delay_bound: secs(pos_or(c.ap_delay_bound_s, 0.5)),
            initial_interval: secs(pos_or(c.ap_initial_interval_s, 0.05)).max(1),
            link_rate_bps: pos_or(c.ap_link_rate_mbps.unwrap_or(2.0), 2.0) * 1e6,
        }
    }
}

impl Default for ApParams {
    fn default() -> Self {
        ApParams::from_cfg(&TcpCfg::default())
    }
}

/// TCP-AP's pacing state; with `lambda != 1` the network-coding-aware variant.
#[derive(Debug, Clone)]
pub struct Ap {
    p: ApParams,
    /// Factor on the rate interval: 1 for TCP-AP, nc_lambda for NC-aware TCP.
    lambda: f64,
    smss: u64,
    hops: u32,
    /// EWMA of the accepted nHPD samples, seconds.
    avg_nhpd: Option<f64>,
    /// EWMA of the per-hop queuing delay, seconds (may be negative, as the agent's).
    avg_queuing: f64,
    /// The last `history` accepted samples: the RTT (integer nanoseconds, so that
    /// identical samples give a `"cov-rtt"` variation of exactly zero) and the nHPD
    /// sample it gave (seconds).
    samples: VecDeque<(Time, f64)>,
    /// `"adev"`, `"cov"`: the variation of the nHPD samples as last computed.
    nhpd_variation: f64,
    /// Earliest time the next segment may leave.
    next_release: Option<Time>,
}

impl Ap {
    /// Pacing for a flow of `hops` hops with segments of `smss` bytes; `lambda` is the
    /// factor on the rate interval (1: TCP-AP).
    pub fn new(p: ApParams, lambda: f64, smss: u64, hops: u32) -> Self {
        let cap = p.history as usize;
        Ap {
            p,
            lambda: pos_or(lambda, 1.0),
            smss: smss.max(1),
            hops: hops.max(1),
            avg_nhpd: None,
            avg_queuing: 0.0,
            samples: VecDeque::with_capacity(cap.min(1024)),
            nhpd_variation: 0.0,
            next_release: None,
        }
    }

    /// The flow's path length in hops (at least 1).
    pub fn hops(&self) -> u32 {
        self.hops
    }

    /// The factor on the rate interval.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Smoothed nHPD estimate, seconds (`None` before the first accepted sample).
    pub fn nhpd(&self) -> Option<f64> {
        self.avg_nhpd
    }

    /// covRTT, as `ApParams::variation` says: `"adev"` and `"cov"` the value last
    /// computed from the nHPD samples (0 until they first differ), `"cov-rtt"` the
    /// population standard deviation over the mean of the stored RTT samples (0 with
    /// fewer than two).
    pub fn cov_rtt(&self) -> f64 {
        match self.p.variation {
            ApVariation::Adev | ApVariation::Cov => self.nhpd_variation,
            ApVariation::CovRtt => self.rtt_variation(),
        }
    }

    fn rtt_variation(&self) -> f64 {
        let n = self.samples.len();
        if n < 2 {
            return 0.0;
        }
        let sum: u128 = self.samples.iter().map(|&(r, _)| r as u128).sum();
        let mean = sum as f64 / n as f64;
        if mean <= 0.0 {
            return 0.0;
        }
        let var = self
            .samples
            .iter()
            .map(|&(r, _)| (r as f64 - mean) * (r as f64 - mean))
            .sum::<f64>()
            / n as f64;
        var.sqrt() / mean
    }

    /// The agent's calc_variation() over the stored nHPD samples (all in (0,
    /// delay_bound), so the mean is positive), in its order of operations: mean =
    /// sum / N, then the mean absolute deviation (`"adev"`) or the population standard
    /// deviation (`"cov"`) over the mean. When no sample deviates from the mean the
    /// agent returns early and keeps the previous value; so does this.
    fn update_nhpd_variation(&mut self) {
        let n = self.samples.len() as f64;
        let mut sum = 0.0;
        for &(_, d) in &self.samples {
            sum += d;
        }
        let mean = sum / n;
        let (mut abs_dev, mut sq_dev) = (0.0, 0.0);
        for &(_, d) in &self.samples {
            abs_dev += (d - mean).abs();
            sq_dev += (d - mean) * (d - mean);
        }
        if abs_dev > 0.0 {
            self.nhpd_variation = match self.p.variation {
                ApVariation::Cov => (sq_dev / n).sqrt() / mean,
                _ => abs_dev / n / mean,
            };
        }
    }

    /// The current rate interval: lambda * (1 + k * covRTT) * avg(nHPD), or lambda
    /// times the initial interval before any sample. At least one nanosecond.
    pub fn rate_interval(&self) -> Time {
        let base = match self.avg_nhpd {
            Some(d) => (1.0 + self.p.cov_factor * self.cov_rtt()) * d,
            None => self.p.initial_interval as f64 / 1e9,
        };
        let s = self.lambda * base;
        if s.is_finite() && s > 0.0 {
            secs(s).max(1)
        } else {
            1
        }
    }

    /// One nHPD sample from an RTT sample, per the ns-2 agent (see the module
    /// docs); updates the queuing-delay average. Seconds.
    fn nhpd_sample(&mut self, rtt: f64) -> f64 {
        let h = self.hops as f64;
        let bytes_per_s = self.p.link_rate_bps / 8.0;
        let data = (self.smss + AP_OVERHEAD_BYTES) as f64;
        let ack = AP_OVERHEAD_BYTES as f64;
        let bound = self.p.delay_bound as f64 / 1e9;
        let mut q = 0.5 * (rtt / h - (data + ack) / bytes_per_s);
        if q > bound {
            q = self.avg_queuing;
        }
        self.avg_queuing = QUEUING_SMOOTHING * self.avg_queuing + (1.0 - QUEUING_SMOOTHING) * q;
        let one_hop = q + data / bytes_per_s;
        if self.hops >= self.p.reuse_hops {
            self.p.reuse_hops as f64 * one_hop
        } else {
            one_hop
        }
    }
}

impl CongestionControl for Ap {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64) {
        // NewReno's window (RFC 5681 growth); pacing only spaces what it allows.
        Reno.on_ack(w, now, acked)
    }

    fn on_send(&mut self, now: Time, _bytes: u32) {
        self.next_release = Some(now.saturating_add(self.rate_interval()));
    }

    fn wants_ack_rtt(&self) -> bool {
        true
    }

    fn on_ack_rtt(&mut self, _now: Time, rtt: Time) {
        let r = rtt as f64 / 1e9;
        let sample = self.nhpd_sample(r);
        let bound = self.p.delay_bound as f64 / 1e9;
        if !(sample > 0.0 && sample < bound) {
            return;
        }
        self.avg_nhpd = Some(match self.avg_nhpd {
            None => sample,
            Some(a) => self.p.smoothing * a + (1.0 - self.p.smoothing) * sample,
        });
        if self.samples.len() >= self.p.history as usize {
            self.samples.pop_front();
        }
        self.samples.push_back((rtt, sample));
        if self.p.variation != ApVariation::CovRtt {
            self.update_nhpd_variation();
        }
    }

    fn set_path_hops(&mut self, hops: u32) {
        self.hops = hops.max(1);
    }

    fn rto_backoff(&self) -> bool {
        false
    }

    fn pacing_release(&self) -> Option<Time> {
        self.next_release
    }

    fn pacing_interval(&self) -> Option<Time> {
        Some(self.rate_interval())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MICROS, MILLIS};

    const MSS: u64 = 1000;

    fn ap(hops: u32) -> Ap {
        Ap::new(ApParams::default(), 1.0, MSS, hops)
    }

    /// ns-2 agent arithmetic at 2 Mbit/s, 1000-byte segments: data 4.448 ms and ACK
    /// 0.448 ms on the air.
    fn expected_nhpd(rtt_s: f64, h: u32) -> f64 {
        let b = 2e6 / 8.0;
        let q = 0.5 * (rtt_s / h as f64 - (1112.0 + 112.0) / b);
        let d = q + 1112.0 / b;
        if h >= 4 {
            4.0 * d
        } else {
            d
        }
    }

    #[test]
    fn initial_interval_until_first_sample() {
        let mut a = ap(4);
        assert_eq!(a.pacing_release(), None, "nothing sent yet: no pacing");
        assert_eq!(a.rate_interval(), 50 * MILLIS);
        a.on_send(1000, 1000);
        assert_eq!(a.pacing_release(), Some(1000 + 50 * MILLIS));
        assert_eq!(a.pacing_interval(), Some(50 * MILLIS));
    }

    #[test]
    fn steady_rtt_gives_four_hop_delay_interval() {
        // Constant 80 ms RTT on a 4-hop path: covRTT = 0 and the interval is the
        // 4HPD itself, 4 * (0.5 * (20 - 4.896) + 4.448) ms = 48 ms.
        let mut a = ap(4);
        for _ in 0..10 {
            a.on_ack_rtt(0, 80 * MILLIS);
        }
        // (Equal samples may leave a variation in the last bits: the agent's mean, a
        // sum over N, need not equal them exactly.)
        assert!(a.cov_rtt() < 1e-12, "{}", a.cov_rtt());
        let want = expected_nhpd(0.080, 4);
        assert!((want - 0.048).abs() < 1e-9, "{want}");
        assert!((a.nhpd().unwrap() - want).abs() < 1e-12);
        assert_eq!(a.rate_interval(), 48 * MILLIS);
    }

    #[test]
    fn ewma_weights_old_average_by_smoothing() {
        let mut a = ap(4);
        a.on_ack_rtt(0, 80 * MILLIS);
        a.on_ack_rtt(0, 120 * MILLIS);
        let want = 0.7 * expected_nhpd(0.080, 4) + 0.3 * expected_nhpd(0.120, 4);
        assert!((a.nhpd().unwrap() - want).abs() < 1e-12);
    }

    fn ap_with(variation: ApVariation, history: u32, hops: u32) -> Ap {
        let p = ApParams {
            variation,
            history,
            ..ApParams::default()
        };
        Ap::new(p, 1.0, MSS, hops)
    }

    #[test]
    fn rtt_variation_lengthens_the_interval() {
        // Same mean RTT (80 ms), with and without jitter.
        let mut steady = ap(4);
        let mut jittery = ap(4);
        for i in 0..50 {
            steady.on_ack_rtt(0, 80 * MILLIS);
            let r = if i % 2 == 0 { 50 } else { 110 };
            jittery.on_ack_rtt(0, r * MILLIS);
        }
        // nHPD samples 4 * (RTT / 8 + 2 ms): 33 and 63 ms, mean 48 ms, mean absolute
        // deviation 15 ms.
        assert!((jittery.cov_rtt() - 15.0 / 48.0).abs() < 1e-12);
        assert!(jittery.rate_interval() > steady.rate_interval());
        let want = (1.0 + 2.0 * 15.0 / 48.0) * jittery.nhpd().unwrap();
        let got = jittery.rate_interval() as f64 / 1e9;
        assert!((got - want).abs() < 1e-8, "{got} vs {want}");
        // k = 0 switches the variation term off.
        let mut k0 = Ap::new(
            ApParams {
                cov_factor: 0.0,
                ..ApParams::default()
            },
            1.0,
            MSS,
            4,
        );
        for i in 0..50 {
            let r = if i % 2 == 0 { 50 } else { 110 };
            k0.on_ack_rtt(0, r * MILLIS);
        }
        assert_eq!(k0.rate_interval(), secs(k0.nhpd().unwrap()));
    }

    #[test]
    fn history_bounds_the_variation_window() {
        for v in [ApVariation::Adev, ApVariation::Cov, ApVariation::CovRtt] {
            let mut a = ap_with(v, 5, 4);
            for r in [50, 110, 50, 110, 50] {
                a.on_ack_rtt(0, r * MILLIS);
            }
            assert!(a.cov_rtt() > 0.25, "{v:?}");
            for r in [80, 80, 80, 80, 81] {
                a.on_ack_rtt(0, r * MILLIS);
            }
            assert!(a.cov_rtt() < 0.01, "{v:?}: old jitter has left the window");
        }
    }

    #[test]
    fn variation_readings_on_a_two_hop_path() {
        // A 2-hop path with RTTs 20, 20, 20, 60 ms, twice: nHPD = d = RTT / 4 + 2 ms,
        // so the samples are 7, 7, 7, 17 ms (mean 9.5 ms).
        assert!((expected_nhpd(0.020, 2) - 0.007).abs() < 1e-15);
        assert!((expected_nhpd(0.060, 2) - 0.017).abs() < 1e-15);
        let rtts = [20, 20, 20, 60, 20, 20, 20, 60];
        let run = |v: ApVariation| {
            let mut a = ap_with(v, 50, 2);
            for r in rtts {
                a.on_ack_rtt(0, r * MILLIS);
            }
            a
        };
        let n: Vec<f64> = rtts
            .iter()
            .map(|&r| expected_nhpd(r as f64 / 1e3, 2))
            .collect();
        let mean = n.iter().sum::<f64>() / 8.0;
        let adev = n.iter().map(|x| (x - mean).abs()).sum::<f64>() / 8.0 / mean;
        let cov = (n.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 8.0).sqrt() / mean;
        // The agent's default: mean absolute deviation 3.75 ms over 9.5 ms.
        assert!((adev - 3.75 / 9.5).abs() < 1e-12);
        // The RTTs themselves: standard deviation sqrt(300) ms over 30 ms.
        let cov_rtt = 300f64.sqrt() / 30.0;
        for (v, want) in [
            (ApVariation::Adev, adev),
            (ApVariation::Cov, cov),
            (ApVariation::CovRtt, cov_rtt),
        ] {
            let a = run(v);
            assert!((a.cov_rtt() - want).abs() < 1e-12, "{v:?}: {}", a.cov_rtt());
            // The interval is (1 + 2 covRTT) avg(nHPD), the average the same for all.
            let got = a.rate_interval() as f64 / 1e9;
            let rule = (1.0 + 2.0 * want) * a.nhpd().unwrap();
            assert!((got - rule).abs() < 1e-9, "{v:?}: {got} vs {rule}");
        }
        // The agent's reading gives the smallest term, and so the shortest interval.
        assert!(adev < cov && cov < cov_rtt, "{adev} {cov} {cov_rtt}");
        assert!(run(ApVariation::Adev).rate_interval() < run(ApVariation::CovRtt).rate_interval());
        assert_eq!(ap(2).p.variation, ApVariation::Adev, "the default");
    }

    #[test]
    fn agent_keeps_its_variation_while_all_samples_are_equal() {
        // History 2; nHPD samples (2 hops) 7, 17, 12, 12 ms.
        let rtts = [20, 60, 40, 40];
        let mut adev = ap_with(ApVariation::Adev, 2, 2);
        let mut cov = ap_with(ApVariation::Cov, 2, 2);
        let mut cov_rtt = ap_with(ApVariation::CovRtt, 2, 2);
        let mut seen = Vec::new();
        for r in rtts {
            for a in [&mut adev, &mut cov, &mut cov_rtt] {
                a.on_ack_rtt(0, r * MILLIS);
            }
            seen.push((adev.cov_rtt(), cov.cov_rtt(), cov_rtt.cov_rtt()));
        }
        // One sample: nothing deviates yet.
        assert_eq!(seen[0], (0.0, 0.0, 0.0));
        // Two samples a, b: both readings of the nHPD samples are |a - b| / (a + b).
        assert!((seen[1].0 - 10.0 / 24.0).abs() < 1e-12);
        assert!((seen[1].1 - 10.0 / 24.0).abs() < 1e-12);
        assert!((seen[1].2 - 40.0 / 80.0).abs() < 1e-12);
        assert!((seen[2].0 - 5.0 / 29.0).abs() < 1e-12);
        // 12, 12: the agent returns early and keeps 5/29; the RTT reading drops to 0.
        assert_eq!(seen[3].0, seen[2].0);
        assert_eq!(seen[3].1, seen[2].1);
        assert_eq!(seen[3].2, 0.0);
    }

    #[test]
    fn hop_count_sets_the_per_hop_share_and_the_reuse_factor() {
        let rtt = 80 * MILLIS;
        let interval = |h: u32| {
            let mut a = ap(h);
            a.on_ack_rtt(0, rtt);
            a.rate_interval()
        };
        // h >= 4: n * d with d = RTT / (2h) + 2 ms, so longer paths at the same RTT
        // mean shorter per-hop delays.
        assert_eq!(interval(4), secs(expected_nhpd(0.080, 4)));
        assert_eq!(interval(8), secs(expected_nhpd(0.080, 8)));
        assert!(interval(8) < interval(4));
        // h < 4: the agent paces at the one-hop delay.
        assert_eq!(interval(2), secs(expected_nhpd(0.080, 2)));
        assert_eq!(interval(2), 22 * MILLIS);
        // set_path_hops takes effect for later samples.
        let mut a = ap(4);
        a.set_path_hops(8);
        assert_eq!(a.hops(), 8);
        a.on_ack_rtt(0, rtt);
        assert_eq!(a.rate_interval(), interval(8));
        a.set_path_hops(0);
        assert_eq!(a.hops(), 1, "at least one hop");
    }

    #[test]
    fn implausible_samples_are_ignored() {
        let mut a = ap(4);
        // 4HPD of a 2 s RTT would be about 1 s, above the 0.5 s bound.
        a.on_ack_rtt(0, 2_000 * MILLIS);
        assert_eq!(a.nhpd(), None);
        assert_eq!(a.rate_interval(), 50 * MILLIS);
        a.on_ack_rtt(0, 80 * MILLIS);
        assert!(a.nhpd().is_some());
        // An RTT shorter than the assumed link's transmission times still gives a
        // positive sample (d = RTT / 2h + (S_d - S_a) / 2B > 0), as in the agent.
        let mut b = ap(4);
        b.on_ack_rtt(0, 100 * MICROS);
        assert!(b.nhpd().unwrap() > 0.0);
    }

    #[test]
    fn nc_aware_interval_is_lambda_times_ap() {
        let mut plain = ap(4);
        let mut nc = Ap::new(ApParams::default(), 0.2, MSS, 4);
        assert_eq!(nc.lambda(), 0.2);
        assert_eq!(nc.rate_interval(), 10 * MILLIS, "0.2 * initial 50 ms");
        for i in 0..30u64 {
            let r = (60 + (i * 37) % 50) * MILLIS;
            plain.on_ack_rtt(0, r);
            nc.on_ack_rtt(0, r);
            let want = 0.2 * plain.rate_interval() as f64;
            assert!(
                (nc.rate_interval() as f64 - want).abs() <= 1.0,
                "{} vs {want}",
                nc.rate_interval()
            );
        }
        nc.on_send(5, 1000);
        assert_eq!(nc.pacing_release(), Some(5 + nc.rate_interval()));
    }

    #[test]
    fn window_and_loss_response_are_newreno() {
        let mut a = ap(4);
        let mut w = Window::new(MSS, 2);
        a.on_ack(&mut w, 0, MSS);
        assert_eq!(w.cwnd, 3 * MSS);
        assert_eq!(a.ssthresh_after_loss(&w, 10 * MSS), 5 * MSS);
        assert_eq!(a.loss_window(&w), MSS);
        assert!(!a.rto_backoff(), "the agent does not back the RTO off");
    }
}
