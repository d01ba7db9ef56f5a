//! Congestion window growth and reduction: the seam where TCP variants plug in.
//!
//! The sender owns loss detection and recovery (NewReno fast recovery, SACK recovery,
//! timeouts) and asks a [`CongestionControl`] implementation for the policy parts:
//! how the window grows per ACK, where ssthresh lands after a loss, the loss window
//! after a timeout, and (for rate-based variants) when the next segment may leave.
//! Variants that only change these rules are a new struct plus an arm in
//! [`CcAlgorithm`]; the sender does not change. Implemented: [`Reno`] (RFC 5681, the
//! `newreno` variant), [`Few`] (TCP-FeW's fractional growth), [`Ap`] (TCP-AP's
//! pacing, and the network-coding-aware variant of Xu et al.), [`Vegas`] (TCP Vegas,
//! ns-2's agent), [`Cubic`] (RFC 9438) and [`Bbr`] (BBR v1, which sets the window
//! from delivery-rate samples, [`CongestionControl::on_rate_sample`]).

use super::ap::Ap;
use super::bbr::Bbr;
use super::config::{TcpConfig, DEFAULT_PATH_HOPS};
use super::cubic::Cubic;
use super::few::Few;
use super::rate::{RateSample, RateSampler};
use super::vegas::Vegas;
use crate::engine::Time;
use crate::scenario::schema::TcpVariant;

/// Window state shared between the sender and its congestion controller. Bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Congestion window (RFC 5681 cwnd).
    pub cwnd: u64,
    /// Slow-start threshold (RFC 5681 ssthresh).
    pub ssthresh: u64,
    /// Sender maximum segment size.
    pub smss: u64,
}

impl Window {
    /// RFC 5681 section 3.1: initial window `iw_segments * SMSS` and an arbitrarily
    /// high initial ssthresh.
    pub fn new(smss: u64, iw_segments: u32) -> Self {
        Window {
            cwnd: smss * iw_segments.max(1) as u64,
            ssthresh: u64::MAX,
            smss,
        }
    }

    /// RFC 5681 section 3.1: slow start while cwnd < ssthresh. At equality the RFC
    /// allows either; this uses congestion avoidance.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// Policy hooks of a congestion-control variant. Only `on_ack` is required; the
/// defaults are RFC 5681's.
pub trait CongestionControl {
    /// An ACK acknowledged `acked` new bytes outside loss recovery: grow the window.
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64);

    /// ssthresh after a timeout (and, unless [`Self::ssthresh_after_dupacks`] says
    /// otherwise, a fast retransmit) with `flight` bytes outstanding. RFC 5681 equation (4): half the flight, at least two segments.
    fn ssthresh_after_loss(&self, w: &Window, flight: u64) -> u64 {
        (flight / 2).max(2 * w.smss)
    }

    /// ssthresh on entering fast retransmit / recovery on duplicate ACKs, with `flight`
    /// bytes outstanding. Default: [`Self::ssthresh_after_loss`].
    fn ssthresh_after_dupacks(&self, w: &Window, flight: u64) -> u64 {
        self.ssthresh_after_loss(w, flight)
    }

    /// A loss was detected (recovery begins, or a first timeout): called with the
    /// window before any reduction, just before ssthresh is recomputed.
    fn on_loss(&mut self, _w: &Window, _now: Time) {}

    /// The retransmission timer expired (every expiry, after [`Self::on_loss`] for the
    /// first).
    fn on_timeout(&mut self) {}

    /// Loss recovery (NewReno or SACK) ended; the sender has set the window by its
    /// rule, which the variant may adjust.
    fn on_recovery_exit(&mut self, _w: &mut Window) {}

    /// A new cumulative ACK `ack` arrived, in any recovery state (`in_recovery`), before
    /// any RTT sample it gives, before the sender's recovery handling and before
    /// [`Self::on_ack`] (called only outside recovery); `snd_nxt` is the next byte to
    /// send. For variants that reason per round trip (Vegas); outside recovery they may
    /// change the window here.
    fn on_cumulative_ack(
        &mut self,
        _w: &mut Window,
        _now: Time,
        _ack: u64,
        _snd_nxt: u64,
        _in_recovery: bool,
    ) {
    }

    /// cwnd after a retransmission timeout: RFC 5681 section 3.1 loss window, one SMSS.
    fn loss_window(&self, w: &Window) -> u64 {
        w.smss
    }

    /// A segment of `bytes` payload (new or retransmitted) was handed to the network.
    fn on_send(&mut self, _now: Time, _bytes: u32) {}

    /// A valid RTT measurement was taken (for delay- or rate-based variants).
    fn on_rtt_sample(&mut self, _now: Time, _rtt: Time) {}

    /// The RFC 6298 smoothed RTT after a new measurement.
    fn on_smoothed_rtt(&mut self, _srtt: Time) {}

    /// Earliest time the next segment may be sent, for paced variants; `None` means
    /// the window alone governs transmission.
    fn pacing_release(&self) -> Option<Time> {
        None
    }

    /// The spacing a paced variant would apply to the next segment sent now (for
    /// reporting); `None` without pacing.
    fn pacing_interval(&self) -> Option<Time> {
        None
    }

    /// Whether the variant wants an RTT sample with every new cumulative ACK
    /// ([`Self::on_ack_rtt`]), as timestamps would give, besides the one timed
    /// segment per round trip of [`Self::on_rtt_sample`].
    fn wants_ack_rtt(&self) -> bool {
        false
    }

    /// Per-ACK RTT sample (only if [`Self::wants_ack_rtt`]): the time since the most
    /// recently sent segment the ACK newly covers was sent, Karn's rule applied.
    fn on_ack_rtt(&mut self, _now: Time, _rtt: Time) {}

    /// The number of hops of the connection's path became known (or changed).
    fn set_path_hops(&mut self, _hops: u32) {}

    /// Whether a retransmission timeout doubles the RTO (RFC 6298 (5.5)).
    fn rto_backoff(&self) -> bool {
        true
    }

    /// Whether the variant sets the window (and pacing) itself from a delivery-rate
    /// sample on every ACK, in any loss state (Linux's `cong_control`, BBR): the
    /// sender then keeps a [`RateSampler`] and calls [`Self::on_rate_sample`] last.
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// The ACK's delivery-rate sample (only if [`Self::wants_rate_samples`]), after
    /// the sender handled the ACK; the variant may set `w.cwnd` and mark the sampler
    /// application-limited.
    fn on_rate_sample(
        &mut self,
        _w: &mut Window,
        _now: Time,
        _rs: &RateSample,
        _sampler: &mut RateSampler,
    ) {
    }
}

/// RFC 5681 slow start and congestion avoidance: the window-growth rule of Reno and
/// NewReno (NewReno differs only in loss recovery, which the sender implements).
#[derive(Debug, Clone, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64) {
        if acked == 0 {
            return;
        }
        let inc = if w.in_slow_start() {
            // RFC 5681 equation (2): at most one SMSS per ACK that covers new data.
            acked.min(w.smss)
        } else {
            // RFC 5681 equation (3): about one SMSS per RTT; never less than one byte.
            (w.smss * w.smss / w.cwnd.max(1)).max(1)
        };
        w.cwnd = w.cwnd.saturating_add(inc);
    }
}

/// The configured congestion-control variant. Static dispatch keeps the sender
/// `Clone` and deterministic. BBR's state makes the enum large; there is one per
/// flow, built once and never moved on the hot path, so it is not boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum CcAlgorithm {
    /// RFC 5681 slow start and congestion avoidance (NewReno and SACK senders).
    Reno(Reno),
    /// TCP-FeW ([`Few`]).
    Few(Few),
    /// TCP-AP, and with a rate-interval factor other than 1 the network-coding-aware
    /// variant ([`Ap`]).
    Ap(Ap),
    /// TCP Vegas ([`Vegas`]).
    Vegas(Vegas),
    /// CUBIC ([`Cubic`], RFC 9438).
    Cubic(Cubic),
    /// BBR v1 ([`Bbr`]).
    Bbr(Bbr),
}

impl CcAlgorithm {
    /// The variant with default parameters (see [`TcpConfig::default`]).
    pub fn new(variant: TcpVariant) -> Self {
        CcAlgorithm::from_config(&TcpConfig {
            variant,
            ..TcpConfig::default()
        })
    }

    /// The configured variant with the configured parameters; TCP-AP starts from
    /// `cfg.hops` or [`DEFAULT_PATH_HOPS`].
    pub fn from_config(cfg: &TcpConfig) -> Self {
        let hops = cfg.hops.unwrap_or(DEFAULT_PATH_HOPS);
        let smss = cfg.smss().max(1);
        match cfg.variant {
            TcpVariant::Newreno => CcAlgorithm::Reno(Reno),
            TcpVariant::Few => CcAlgorithm::Few(Few::new(cfg.few_alpha)),
            TcpVariant::Ap => CcAlgorithm::Ap(Ap::new(cfg.ap.clone(), 1.0, smss, hops)),
            TcpVariant::NcAware => {
                CcAlgorithm::Ap(Ap::new(cfg.ap.clone(), cfg.nc_lambda, smss, hops))
            }
            TcpVariant::Vegas => CcAlgorithm::Vegas(Vegas::new(cfg.vegas, smss)),
            TcpVariant::Cubic => CcAlgorithm::Cubic(Cubic::new(cfg.cubic)),
            TcpVariant::Bbr => CcAlgorithm::Bbr(Bbr::new(cfg.bbr, smss, cfg.initial_cwnd_segments)),
        }
    }

    fn inner(&self) -> &dyn CongestionControl {
        match self {
            CcAlgorithm::Reno(c) => c,
            CcAlgorithm::Few(c) => c,
            CcAlgorithm::Ap(c) => c,
            CcAlgorithm::Vegas(c) => c,
            CcAlgorithm::Cubic(c) => c,
            CcAlgorithm::Bbr(c) => c,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn CongestionControl {
        match self {
            CcAlgorithm::Reno(c) => c,
            CcAlgorithm::Few(c) => c,
            CcAlgorithm::Ap(c) => c,
            CcAlgorithm::Vegas(c) => c,
            CcAlgorithm::Cubic(c) => c,
            CcAlgorithm::Bbr(c) => c,
        }
    }
}

impl CongestionControl for CcAlgorithm {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64) {
        self.inner_mut().on_ack(w, now, acked)
    }
    fn ssthresh_after_loss(&self, w: &Window, flight: u64) -> u64 {
        self.inner().ssthresh_after_loss(w, flight)
    }
    fn ssthresh_after_dupacks(&self, w: &Window, flight: u64) -> u64 {
        self.inner().ssthresh_after_dupacks(w, flight)
    }
    fn on_loss(&mut self, w: &Window, now: Time) {
        self.inner_mut().on_loss(w, now)
    }
    fn on_timeout(&mut self) {
        self.inner_mut().on_timeout()
    }
    fn on_recovery_exit(&mut self, w: &mut Window) {
        self.inner_mut().on_recovery_exit(w)
    }
    fn on_cumulative_ack(
        &mut self,
        w: &mut Window,
        now: Time,
        ack: u64,
        snd_nxt: u64,
        in_recovery: bool,
    ) {
        self.inner_mut()
            .on_cumulative_ack(w, now, ack, snd_nxt, in_recovery)
    }
    fn loss_window(&self, w: &Window) -> u64 {
        self.inner().loss_window(w)
    }
    fn on_send(&mut self, now: Time, bytes: u32) {
        self.inner_mut().on_send(now, bytes)
    }
    fn on_rtt_sample(&mut self, now: Time, rtt: Time) {
        self.inner_mut().on_rtt_sample(now, rtt)
    }
    fn on_smoothed_rtt(&mut self, srtt: Time) {
        self.inner_mut().on_smoothed_rtt(srtt)
    }
    fn pacing_release(&self) -> Option<Time> {
        self.inner().pacing_release()
    }
    fn pacing_interval(&self) -> Option<Time> {
        self.inner().pacing_interval()
    }
    fn wants_ack_rtt(&self) -> bool {
        self.inner().wants_ack_rtt()
    }
    fn on_ack_rtt(&mut self, now: Time, rtt: Time) {
        self.inner_mut().on_ack_rtt(now, rtt)
    }
    fn set_path_hops(&mut self, hops: u32) {
        self.inner_mut().set_path_hops(hops)
    }
    fn rto_backoff(&self) -> bool {
        self.inner().rto_backoff()
    }
    fn wants_rate_samples(&self) -> bool {
        self.inner().wants_rate_samples()
    }
    fn on_rate_sample(
        &mut self,
        w: &mut Window,
        now: Time,
        rs: &RateSample,
        sampler: &mut RateSampler,
    ) {
        self.inner_mut().on_rate_sample(w, now, rs, sampler)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::{CubicParams, VegasParams};

    const MSS: u64 = 1000;

    #[test]
    fn slow_start_adds_min_of_acked_and_smss() {
        let mut w = Window::new(MSS, 2);
        let mut cc = CcAlgorithm::new(TcpVariant::Newreno);
        assert_eq!(w.cwnd, 2000);
        assert_eq!(w.ssthresh, u64::MAX);
        cc.on_ack(&mut w, 0, 1000);
        assert_eq!(w.cwnd, 3000);
        // A delayed ACK covering two segments still adds only one SMSS.
        cc.on_ack(&mut w, 0, 2000);
        assert_eq!(w.cwnd, 4000);
        // A partial-segment ACK adds what it covers.
        cc.on_ack(&mut w, 0, 300);
        assert_eq!(w.cwnd, 4300);
    }

    #[test]
    fn congestion_avoidance_adds_smss_squared_over_cwnd() {
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: 10_000,
            smss: MSS,
        };
        let mut cc = Reno;
        cc.on_ack(&mut w, 0, 1000);
        assert_eq!(w.cwnd, 10_100);
        // One window's worth of ACKs grows cwnd by about one SMSS.
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: 5_000,
            smss: MSS,
        };
        for _ in 0..10 {
            cc.on_ack(&mut w, 0, 1000);
        }
        assert!((10_900..=11_000).contains(&w.cwnd), "{}", w.cwnd);
        // Huge windows still grow by at least one byte per ACK.
        let mut w = Window {
            cwnd: 10_000_000,
            ssthresh: 1,
            smss: MSS,
        };
        cc.on_ack(&mut w, 0, 1000);
        assert_eq!(w.cwnd, 10_000_001);
    }

    #[test]
    fn loss_response_defaults() {
        let w = Window::new(MSS, 10);
        let cc = CcAlgorithm::new(TcpVariant::Newreno);
        assert_eq!(cc.ssthresh_after_loss(&w, 10_000), 5_000);
        assert_eq!(cc.ssthresh_after_loss(&w, 3_000), 2_000, "floor of 2 SMSS");
        assert_eq!(cc.loss_window(&w), MSS);
        assert_eq!(cc.pacing_release(), None);
        assert_eq!(cc.pacing_interval(), None);
        assert!(!cc.wants_ack_rtt());
        assert!(cc.rto_backoff());
    }

    #[test]
    fn variants_map_to_controllers_with_their_parameters() {
        let cfg = |variant| TcpConfig {
            variant,
            few_alpha: 0.05,
            nc_lambda: 0.25,
            hops: Some(6),
            ..TcpConfig::default()
        };
        assert!(matches!(
            CcAlgorithm::from_config(&cfg(TcpVariant::Newreno)),
            CcAlgorithm::Reno(_)
        ));
        match CcAlgorithm::from_config(&cfg(TcpVariant::Few)) {
            CcAlgorithm::Few(f) => assert_eq!(f.alpha(), 0.05),
            other => panic!("{other:?}"),
        }
        match CcAlgorithm::from_config(&cfg(TcpVariant::Ap)) {
            CcAlgorithm::Ap(a) => assert_eq!((a.lambda(), a.hops()), (1.0, 6)),
            other => panic!("{other:?}"),
        }
        match CcAlgorithm::from_config(&cfg(TcpVariant::NcAware)) {
            CcAlgorithm::Ap(a) => assert_eq!((a.lambda(), a.hops()), (0.25, 6)),
            other => panic!("{other:?}"),
        }
        match CcAlgorithm::from_config(&TcpConfig {
            vegas: VegasParams {
                alpha: 28,
                beta: 30,
                gamma: 2,
            },
            ..cfg(TcpVariant::Vegas)
        }) {
            CcAlgorithm::Vegas(v) => assert_eq!(
                v.params(),
                VegasParams {
                    alpha: 28,
                    beta: 30,
                    gamma: 2
                }
            ),
            other => panic!("{other:?}"),
        }
        match CcAlgorithm::from_config(&TcpConfig {
            cubic: CubicParams {
                c: 0.5,
                beta: 0.8,
                fast_convergence: false,
                hystart: false,
            },
            ..cfg(TcpVariant::Cubic)
        }) {
            CcAlgorithm::Cubic(c) => assert_eq!(
                c.params(),
                CubicParams {
                    c: 0.5,
                    beta: 0.8,
                    fast_convergence: false,
                    hystart: false
                }
            ),
            other => panic!("{other:?}"),
        }
        match CcAlgorithm::new(TcpVariant::NcAware) {
            CcAlgorithm::Ap(a) => assert_eq!((a.lambda(), a.hops()), (0.2, 4)),
            other => panic!("{other:?}"),
        }
    }
}
