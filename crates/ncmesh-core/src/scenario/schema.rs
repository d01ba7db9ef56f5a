//! The scenario file format (TOML), as plain data with documented defaults.
//!
//! Every table is optional; a missing field takes the default written next to it.
//! Defaults reproduce the classic ns-2 / ns-3 802.11b ad hoc setup of
//! `shared/anchors/ns3/chain_tcp.py`. docs/scenario-format.md documents each field.

use serde::{Deserialize, Serialize};

/// A complete simulation scenario.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// Free-text name, carried into results.
    pub name: String,
    pub simulation: SimulationCfg,
    pub channel: ChannelCfg,
    /// Extra frame loss on top of the channel model.
    pub loss: Vec<LossCfg>,
    pub mac: MacCfg,
    pub routing: RoutingCfg,
    pub tcp: TcpCfg,
    pub scheme: SchemeCfg,
    pub nodes: Vec<NodeCfg>,
    pub flows: Vec<FlowCfg>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationCfg {
    /// Simulated time, seconds.
    pub duration_s: f64,
    /// Master seed; every random stream is derived from it, the node and the purpose.
    pub seed: u64,
    /// Goodput is measured over [measure_start_s, measure_end_s].
    pub measure_start_s: f64,
    /// End of the measurement window; defaults to duration_s.
    pub measure_end_s: Option<f64>,
    /// Sampling interval of the time series (goodput, cwnd, queue lengths), seconds.
    pub series_interval_s: f64,
    /// Carry real payload bytes in packets (for decodability checks and traces).
    pub payload_bytes: bool,
    /// How often the positions of moving nodes (and their neighbour sets) are refreshed.
    pub mobility_update_s: f64,
}

impl Default for SimulationCfg {
    fn default() -> Self {
        SimulationCfg {
            duration_s: 60.0,
            seed: 1,
            measure_start_s: 10.0,
            measure_end_s: None,
            series_interval_s: 1.0,
            payload_bytes: false,
            mobility_update_s: 0.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChannelModel {
    /// Fixed receive / carrier-sense / interference ranges.
    Range,
    /// ns-2 TwoRayGround (Friis below the crossover distance).
    Tworay,
    /// Log-distance path loss with log-normal shadowing (ns-2 Shadowing).
    Shadowing,
    /// Per directed link delivery probability from a table (measured topologies).
    Linktable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fading {
    None,
    Rayleigh,
}

/// How the receiver decides whether a frame that overlapped other signals survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reception {
    /// Probabilistic: prod over chunks of constant SINR of (1 - BER(SINR))^bits, with
    /// the 802.11 modulations' BER curves (ns-3's interference model).
    Ber,
    /// Deterministic: received iff SINR >= capture_threshold_db throughout (ns-2).
    Capture,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChannelCfg {
    pub model: ChannelModel,
    /// Reception (error) model; see `Reception`.
    pub reception: Reception,
    /// "ber" reception: a frame is only locked on if its SINR when it starts is at
    /// least this (ns-3 ThresholdPreambleDetectionModel, 4 dB). Set to a very negative
    /// value (e.g. -1000) to disable.
    pub preamble_detection_db: f64,
    // --- range model
    pub rx_range_m: f64,
    pub cs_range_m: f64,
    pub interference_range_m: f64,
    // --- physical models (tworay, shadowing)
    pub frequency_hz: f64,
    pub antenna_height_m: f64,
    pub tx_power_w: f64,
    /// Minimum received power to decode a frame (ns-2 RXThresh).
    pub rx_threshold_w: f64,
    /// Minimum received power to sense the medium busy (ns-2 CSThresh).
    pub cs_threshold_w: f64,
    /// Noise added to interference in the SINR, W. Default: thermal noise in 22 MHz
    /// at 290 K plus a 7 dB noise figure (-93.6 dBm, ns-3's default). The range and
    /// link-table models use received power 1.0, so noise is negligible there.
    pub noise_w: f64,
    /// A frame survives overlapping signals if SINR >= this (ns-2 CPThresh).
    pub capture_threshold_db: f64,
    /// Shadowing model: path loss exponent beta.
    pub path_loss_exponent: f64,
    /// Shadowing model: standard deviation of the log-normal term, dB.
    pub shadowing_sigma_db: f64,
    /// Shadowing model: reference distance d0, metres.
    pub reference_distance_m: f64,
    /// Small-scale fading drawn per frame and receiver.
    pub fading: Fading,
    /// Speed of light for propagation delay, m/s.
    pub propagation_speed_mps: f64,
    // --- link table
    /// Directed delivery probabilities; required when model = "linktable".
    pub links: Vec<LinkCfg>,
}

impl Default for ChannelCfg {
    fn default() -> Self {
        ChannelCfg {
            model: ChannelModel::Range,
            reception: Reception::Ber,
            preamble_detection_db: 4.0,
            rx_range_m: 250.0,
            cs_range_m: 250.0,
            interference_range_m: 250.0,
            frequency_hz: 914e6,
            antenna_height_m: 1.5,
            tx_power_w: 0.281_838_15,
            rx_threshold_w: 3.652e-10,
            cs_threshold_w: 1.559e-11,
            noise_w: 4.37e-13,
            capture_threshold_db: 10.0,
            path_loss_exponent: 2.0,
            shadowing_sigma_db: 4.0,
            reference_distance_m: 1.0,
            fading: Fading::None,
            propagation_speed_mps: 299_792_458.0,
            links: Vec::new(),
        }
    }
}

/// One radio link of a link-table channel: delivery probability in each direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    pub a: u32,
    pub b: u32,
    /// Probability that a frame sent by a is received by b.
    pub p_ab: f64,
    /// Probability that a frame sent by b is received by a.
    pub p_ba: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossFrames {
    /// MAC data frames only (not ACK/RTS/CTS), as ns-3's post-reception error model in the anchor.
    Data,
    /// Every frame.
    All,
}

/// Extra frame loss on chosen directed links (or all), constant or piecewise in time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LossCfg {
    /// Directed links [tx, rx] this applies to; empty = every link.
    pub links: Vec<[u32; 2]>,
    /// Constant frame error rate (used when `schedule` is empty).
    pub rate: f64,
    /// Time-varying rate: the first phase containing t applies; none = 0.
    pub schedule: Vec<LossPhase>,
    pub frames: LossFrames,
}

impl Default for LossCfg {
    fn default() -> Self {
        LossCfg {
            links: Vec::new(),
            rate: 0.0,
            schedule: Vec::new(),
            frames: LossFrames::Data,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossPhase {
    pub from_s: f64,
    /// Open-ended when absent.
    #[serde(default)]
    pub to_s: Option<f64>,
    pub rate: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standard {
    #[serde(rename = "802.11b")]
    B,
    #[serde(rename = "802.11g")]
    G,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preamble {
    Long,
    Short,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MacCfg {
    pub standard: Standard,
    /// Rate of unicast data frames, Mbit/s (802.11b: 1, 2, 5.5, 11; 802.11g: 6..54).
    pub data_rate_mbps: f64,
    /// Rate of control frames (ACK, RTS, CTS) and broadcasts, Mbit/s.
    pub basic_rate_mbps: f64,
    pub preamble: Preamble,
    /// RTS/CTS precedes unicast frames whose MPDU is longer than this many bytes.
    pub rts_threshold_bytes: u32,
    /// Max transmission attempts of a frame sent without RTS (and of an RTS).
    pub short_retry_limit: u32,
    /// Max transmission attempts of a frame protected by RTS/CTS.
    pub long_retry_limit: u32,
    /// false: every unicast frame is sent once (no MAC retransmissions, Gheorghiu et al.).
    pub retransmissions: bool,
    /// Reset CW to CWmin when a frame is dropped at its retry limit (802.11-2016 10.3.3,
    /// ns-2). ns-3 3.44 keeps the doubled CW: false reproduces it.
    pub cw_reset_after_drop: bool,
    /// Interface queue capacity, packets (drop-tail).
    pub queue_packets: u32,
    /// Contention window bounds; default by standard (b: 31/1023, g: 15/1023).
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
}

impl Default for MacCfg {
    fn default() -> Self {
        MacCfg {
            standard: Standard::B,
            data_rate_mbps: 2.0,
            basic_rate_mbps: 1.0,
            preamble: Preamble::Long,
            rts_threshold_bytes: 65535,
            short_retry_limit: 7,
            long_retry_limit: 4,
            retransmissions: true,
            cw_reset_after_drop: true,
            queue_packets: 50,
            cw_min: None,
            cw_max: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RouteMetric {
    Hops,
    Etx,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingCfg {
    pub metric: RouteMetric,
    /// Reinforced paths per flow (d, directed diffusion): a node on them may forward a
    /// packet of the flow to any of its downstream neighbours (multipath schemes).
    pub paths: u32,
    /// Initial IP TTL.
    pub ttl: u32,
    /// Links whose delivery probability (link table) or range is below this are not routed over.
    pub min_delivery: f64,
}

impl Default for RoutingCfg {
    fn default() -> Self {
        RoutingCfg {
            metric: RouteMetric::Hops,
            paths: 1,
            ttl: 64,
            min_delivery: 0.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TcpVariant {
    /// RFC 5681 window growth with NewReno (or SACK) loss recovery.
    Newreno,
    /// TCP-FeW (Nahm, Helmy, Kuo, MobiHoc 2005): congestion avoidance grows the
    /// window by `few_alpha` segments per RTT.
    Few,
    /// TCP-AP (ElRakabawy, Klemm, Lindemann, MobiHoc 2005): NewReno window plus
    /// rate pacing at one segment per (1 + ap_cov_factor * covRTT) * 4HPD.
    Ap,
    /// Network-coding-aware TCP (Xu et al. section IV-B): TCP-AP with its rate
    /// interval multiplied by `nc_lambda`.
    #[serde(rename = "nc-aware")]
    NcAware,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpCfg {
    pub variant: TcpVariant,
    /// SACK loss recovery (RFC 2018, RFC 6675) instead of NewReno's (RFC 6582).
    pub sack: bool,
    /// Segment payload size, bytes.
    pub mss_bytes: u32,
    pub initial_cwnd_segments: u32,
    pub min_rto_s: f64,
    pub initial_rto_s: f64,
    pub max_rto_s: f64,
    /// RFC 6298 clock granularity G.
    pub clock_granularity_s: f64,
    pub delayed_ack: bool,
    /// ACK every this many full segments.
    pub delayed_ack_count: u32,
    pub delayed_ack_timeout_s: f64,
    /// Receiver buffer = advertised window, bytes.
    pub rcv_buffer_bytes: u32,
    pub dupack_threshold: u32,
    /// TCP-FeW: window growth per RTT in congestion avoidance, segments (0, 1].
    pub few_alpha: f64,
    /// TCP-AP: spatial-reuse hop count n of the nHPD estimate (4 for 250 m range
    /// and 550 m interference range).
    pub ap_reuse_hops: u32,
    /// TCP-AP: weight of the old average in the EWMA of nHPD samples.
    pub ap_smoothing: f64,
    /// TCP-AP: RTT samples over which covRTT is computed.
    pub ap_history: u32,
    /// TCP-AP: k in the rate interval (1 + k * covRTT) * 4HPD.
    pub ap_cov_factor: f64,
    /// TCP-AP: per-hop queuing-delay and nHPD samples above this are discarded, seconds.
    pub ap_delay_bound_s: f64,
    /// TCP-AP: rate interval before the first valid sample, seconds.
    pub ap_initial_interval_s: f64,
    /// TCP-AP: link rate used to split the RTT into per-hop transmission and
    /// queuing delay, Mbit/s; default: the MAC's data rate.
    pub ap_link_rate_mbps: Option<f64>,
    /// Network-coding-aware TCP: factor lambda on TCP-AP's rate interval (Xu et al. eq. 4).
    pub nc_lambda: f64,
}

impl Default for TcpCfg {
    fn default() -> Self {
        TcpCfg {
            variant: TcpVariant::Newreno,
            sack: false,
            mss_bytes: 1000,
            initial_cwnd_segments: 10,
            min_rto_s: 1.0,
            initial_rto_s: 1.0,
            max_rto_s: 60.0,
            clock_granularity_s: 0.001,
            delayed_ack: true,
            delayed_ack_count: 2,
            delayed_ack_timeout_s: 0.2,
            rcv_buffer_bytes: 131_072,
            dupack_threshold: 3,
            few_alpha: 0.01,
            ap_reuse_hops: 4,
            ap_smoothing: 0.7,
            ap_history: 50,
            ap_cov_factor: 2.0,
            ap_delay_bound_s: 0.5,
            ap_initial_interval_s: 0.05,
            ap_link_rate_mbps: None,
            nc_lambda: 0.2,
        }
    }
}

/// The `[scheme]` table: owned by the coding layer's registry.
pub use crate::coding::registry::SchemeCfg;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeCfg {
    /// Position, metres.
    pub x: f64,
    pub y: f64,
    /// Optional motion: the node is at (x, y) at t = 0 and moves in straight lines
    /// through the (t_s, x, y) points (at the given times), then stays at the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waypoints: Vec<Waypoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    pub t_s: f64,
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Tcp,
    Udp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AppKind {
    /// Always has data to send (FTP).
    Bulk,
    /// Constant bit rate: `packet_bytes` every packet_bytes*8/rate_kbps.
    Cbr,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowCfg {
    pub src: u32,
    pub dst: u32,
    #[serde(default = "default_transport")]
    pub transport: Transport,
    #[serde(default = "default_app")]
    pub app: AppKind,
    /// Application rate for app = "cbr", kbit/s.
    #[serde(default)]
    pub rate_kbps: Option<f64>,
    /// Application write size (UDP datagram payload; for TCP the MSS applies).
    #[serde(default = "default_packet_bytes")]
    pub packet_bytes: u32,
    #[serde(default = "default_start")]
    pub start_s: f64,
    /// Application stops sending at this time; default: end of simulation.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Explicit forward path [src, ..., dst]; the reverse path carries ACKs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Vec<u32>>,
}

fn default_transport() -> Transport {
    Transport::Tcp
}
fn default_app() -> AppKind {
    AppKind::Bulk
}
fn default_packet_bytes() -> u32 {
    1000
}
fn default_start() -> f64 {
    1.0
}
