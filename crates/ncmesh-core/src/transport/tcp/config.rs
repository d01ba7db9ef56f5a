//! TCP parameters in simulator units (bytes, nanoseconds).

use super::ap::ApParams;
use super::bbr::BbrParams;
use super::cubic::CubicParams;
use super::vegas::VegasParams;
use crate::engine::{secs, Time};
use crate::scenario::schema::{TcpCfg, TcpVariant};

/// Parameters shared by a connection's sender and receiver. Built from the scenario's
/// [`TcpCfg`] with [`TcpConfig::from_cfg`]; all times are nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpConfig {
    /// Window-growth rule (see [`super::congestion`]).
    pub variant: TcpVariant,
    /// SACK option and RFC 6675 loss recovery; otherwise NewReno (RFC 6582).
    pub sack: bool,
    /// Sender maximum segment size (SMSS), payload bytes.
    pub mss: u32,
    /// Initial window, segments (RFC 5681 section 3.1 IW).
    pub initial_cwnd_segments: u32,
    /// Lower bound on the RTO (RFC 6298 section 2.4).
    pub min_rto: Time,
    /// RTO before the first RTT sample (RFC 6298 section 2.1).
    pub initial_rto: Time,
    /// Upper bound on the RTO, also capping exponential backoff (RFC 6298 section 2.5).
    pub max_rto: Time,
    /// Clock granularity G (RFC 6298 section 2).
    pub clock_granularity: Time,
    /// RTT samples from every ACK covering the oldest segment outstanding (ns-3 without
    /// timestamps) rather than one timed segment at a time (RFC 6298 section 3).
    pub rtt_every_ack: bool,
    /// Delay ACKs for in-order data (RFC 1122 section 4.2.3.2).
    pub delayed_ack: bool,
    /// With delayed ACKs, acknowledge once this many full-sized segments' worth of
    /// in-order data is unacknowledged.
    pub delayed_ack_count: u32,
    /// Longest an ACK is held back.
    pub delayed_ack_timeout: Time,
    /// Receive buffer, bytes; the advertised window is this minus buffered
    /// out-of-order data.
    pub rcv_buffer: u32,
    /// Duplicate ACKs that trigger fast retransmit (DupThresh, RFC 5681 section 3.2).
    pub dupack_threshold: u32,
    /// Limited Transmit (RFC 3042) on the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// NewReno's Careful variant (RFC 6582 section 3.2 step 1) rather than RFC 2582's
    /// Less Careful one.
    pub newreno_careful: bool,
    /// PRR (RFC 6937) sets the window during loss recovery.
    pub prr: bool,
    /// RACK-TLP (RFC 8985) loss detection; only with `sack`.
    pub rack: bool,
    /// TCP-FeW window growth per RTT in congestion avoidance, segments.
    pub few_alpha: f64,
    /// TCP-AP pacing parameters (also used by the coding-aware variant).
    pub ap: ApParams,
    /// Network-coding-aware TCP: factor on TCP-AP's rate interval (Xu et al. eq. 4).
    pub nc_lambda: f64,
    /// TCP Vegas's thresholds, segments.
    pub vegas: VegasParams,
    /// CUBIC's constants (RFC 9438).
    pub cubic: CubicParams,
    /// BBR's constants (tcp_bbr.c's; not set by the scenario).
    pub bbr: BbrParams,
    /// Hops of the connection's path, for TCP-AP's 4HPD estimate. The scenario does
    /// not set it; the simulator passes the route length with
    /// [`super::TcpSender::set_path_hops`]. `None` means [`DEFAULT_PATH_HOPS`].
    pub hops: Option<u32>,
}

/// Path length TCP-AP assumes until told the real one.
pub const DEFAULT_PATH_HOPS: u32 = 4;

impl TcpConfig {
    /// Converts scenario units (seconds) to simulator units. Degenerate values that
    /// validation should already have rejected are clamped to the smallest sane ones
    /// so the state machines never divide by zero or stall.
    pub fn from_cfg(c: &TcpCfg) -> Self {
        let min_rto = secs(c.min_rto_s);
        TcpConfig {
            variant: c.variant,
            sack: c.sack,
            mss: c.mss_bytes.max(1),
            initial_cwnd_segments: c.initial_cwnd_segments.max(1),
            min_rto,
            initial_rto: secs(c.initial_rto_s).max(1),
            max_rto: secs(c.max_rto_s).max(min_rto).max(1),
            clock_granularity: secs(c.clock_granularity_s),
            rtt_every_ack: c.rtt_sampling == crate::scenario::schema::RttSampling::EveryAck,
            delayed_ack: c.delayed_ack,
            delayed_ack_count: c.delayed_ack_count.max(1),
            delayed_ack_timeout: secs(c.delayed_ack_timeout_s),
            rcv_buffer: c.rcv_buffer_bytes,
            dupack_threshold: c.dupack_threshold.max(1),
            limited_transmit: c.limited_transmit,
            newreno_careful: c.newreno_careful,
            prr: c.prr,
            rack: c.rack && c.sack,
            few_alpha: if c.few_alpha > 0.0 {
                c.few_alpha.min(1.0)
            } else {
                0.01
            },
            ap: ApParams::from_cfg(c),
            nc_lambda: if c.nc_lambda > 0.0 && c.nc_lambda.is_finite() {
                c.nc_lambda
            } else {
                1.0
            },
            vegas: VegasParams {
                alpha: c.vegas_alpha,
                beta: c.vegas_beta.max(c.vegas_alpha),
                gamma: c.vegas_gamma,
            },
            cubic: CubicParams {
                c: c.cubic_c,
                beta: c.cubic_beta,
                fast_convergence: c.cubic_fast_convergence,
                hystart: c.cubic_hystart,
            },
            bbr: BbrParams::default(),
            hops: None,
        }
    }

    /// SMSS as a 64-bit byte count.
    pub fn smss(&self) -> u64 {
        self.mss as u64
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig::from_cfg(&TcpCfg::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MILLIS, SECOND};
    use crate::scenario::schema::ApVariation;
    use crate::transport::tcp::{ApParams, CubicParams, VegasParams};

    #[test]
    fn converts_seconds_to_nanoseconds() {
        let c = TcpCfg {
            min_rto_s: 0.2,
            initial_rto_s: 3.0,
            max_rto_s: 64.0,
            clock_granularity_s: 0.01,
            delayed_ack_timeout_s: 0.1,
            ..TcpCfg::default()
        };
        let t = TcpConfig::from_cfg(&c);
        assert_eq!(t.min_rto, 200 * MILLIS);
        assert_eq!(t.initial_rto, 3 * SECOND);
        assert_eq!(t.max_rto, 64 * SECOND);
        assert_eq!(t.clock_granularity, 10 * MILLIS);
        assert_eq!(t.delayed_ack_timeout, 100 * MILLIS);
        assert_eq!(t.mss, c.mss_bytes);
        assert_eq!(t.rcv_buffer, c.rcv_buffer_bytes);
        assert_eq!(t.dupack_threshold, c.dupack_threshold);
        assert_eq!(t.sack, c.sack);
    }

    fn scenario(tcp: &str) -> String {
        format!(
            "[tcp]\n{tcp}\n[[nodes]]\nx = 0.0\ny = 0.0\n[[nodes]]\nx = 200.0\ny = 0.0\n\
             [[flows]]\nsrc = 0\ndst = 1\n"
        )
    }

    #[test]
    fn variant_names_and_parameters_parse_convert_and_round_trip() {
        use crate::scenario::{parse_toml, to_toml};
        for (name, v) in [
            ("newreno", TcpVariant::Newreno),
            ("few", TcpVariant::Few),
            ("ap", TcpVariant::Ap),
            ("nc-aware", TcpVariant::NcAware),
            ("vegas", TcpVariant::Vegas),
            ("cubic", TcpVariant::Cubic),
            ("bbr", TcpVariant::Bbr),
        ] {
            let s = parse_toml(&scenario(&format!("variant = \"{name}\""))).unwrap();
            assert_eq!(s.tcp.variant, v);
            assert_eq!(parse_toml(&to_toml(&s)).unwrap(), s);
        }
        let s = parse_toml(&scenario(
            "variant = \"nc-aware\"\nfew_alpha = 0.5\nap_reuse_hops = 3\nap_smoothing = 0.5\n\
             ap_history = 20\nap_cov_factor = 1.5\nap_variation = \"cov-rtt\"\n\
             ap_delay_bound_s = 0.25\n\
             ap_initial_interval_s = 0.02\nap_link_rate_mbps = 11\nnc_lambda = 0.4\n\
             vegas_alpha = 28\nvegas_beta = 30\nvegas_gamma = 2\ncubic_c = 0.5\n\
             cubic_beta = 0.8\ncubic_fast_convergence = false\nsack = true\nprr = true\n\
             rack = true",
        ))
        .unwrap();
        assert_eq!(parse_toml(&to_toml(&s)).unwrap(), s);
        let t = TcpConfig::from_cfg(&s.tcp);
        assert_eq!(t.few_alpha, 0.5);
        assert_eq!(t.nc_lambda, 0.4);
        assert_eq!(t.hops, None);
        assert!(t.prr && t.rack && t.sack);
        assert_eq!(
            t.cubic,
            CubicParams {
                c: 0.5,
                beta: 0.8,
                fast_convergence: false,
                hystart: false
            }
        );
        // The thresholds Sundararajan et al.'s TCP/NC runs are recalled to use.
        assert_eq!(
            t.vegas,
            VegasParams {
                alpha: 28,
                beta: 30,
                gamma: 2
            }
        );
        assert_eq!(
            t.ap,
            ApParams {
                reuse_hops: 3,
                smoothing: 0.5,
                history: 20,
                cov_factor: 1.5,
                variation: ApVariation::CovRtt,
                delay_bound: 250 * MILLIS,
                initial_interval: 20 * MILLIS,
                link_rate_bps: 11e6,
            }
        );
        // Defaults: the ns-2 TCP-AP agent's and Xu et al.'s.
        let d = TcpConfig::default();
        assert_eq!((d.few_alpha, d.nc_lambda), (0.01, 0.2));
        assert_eq!(d.vegas, VegasParams::default(), "ns-2's 1, 3, 1");
        assert_eq!(d.cubic, CubicParams::default(), "RFC 9438's 0.4, 0.7, on");
        assert!(!d.prr && !d.rack, "off: results as before");
        assert_eq!(
            d.ap,
            ApParams {
                reuse_hops: 4,
                smoothing: 0.7,
                history: 50,
                cov_factor: 2.0,
                variation: ApVariation::Adev,
                delay_bound: 500 * MILLIS,
                initial_interval: 50 * MILLIS,
                link_rate_bps: 2e6,
            }
        );
    }

    #[test]
    fn invalid_variant_parameters_are_rejected() {
        use crate::scenario::parse_toml;
        for (text, field) in [
            ("few_alpha = 0", "tcp.few_alpha"),
            ("few_alpha = 1.5", "tcp.few_alpha"),
            ("ap_reuse_hops = 0", "tcp.ap_reuse_hops"),
            ("ap_smoothing = 1", "tcp.ap_smoothing"),
            ("ap_smoothing = -0.1", "tcp.ap_smoothing"),
            ("ap_history = 0", "tcp.ap_history"),
            ("ap_cov_factor = -1", "tcp.ap_cov_factor"),
            ("ap_variation = \"std\"", "tcp.ap_variation"),
            ("ap_delay_bound_s = 0", "tcp.ap_delay_bound_s"),
            ("ap_initial_interval_s = 0", "tcp.ap_initial_interval_s"),
            ("ap_link_rate_mbps = 0", "tcp.ap_link_rate_mbps"),
            ("nc_lambda = 0", "tcp.nc_lambda"),
            ("nc_lambda = nan", "tcp.nc_lambda"),
            ("vegas_alpha = 4\nvegas_beta = 3", "tcp.vegas_beta"),
            ("vegas_gamma = -1", "tcp.vegas_gamma"),
            ("cubic_c = 0", "tcp.cubic_c"),
            ("cubic_c = inf", "tcp.cubic_c"),
            ("cubic_beta = 1", "tcp.cubic_beta"),
            ("cubic_beta = 0", "tcp.cubic_beta"),
            ("rack = true", "tcp.rack"),
            ("variant = \"ncaware\"", "tcp.variant"),
        ] {
            let e = parse_toml(&scenario(text)).unwrap_err();
            assert_eq!(e.field, field, "{text}: {e}");
            assert!(e.message.contains("is not allowed"), "{text}: {e}");
        }
    }
}
