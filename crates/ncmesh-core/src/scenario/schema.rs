//! The scenario file format (TOML), as plain data with documented defaults.
//!
//! Every table is optional; a missing field takes the default written next to it.
//! Defaults reproduce the classic ns-2 / ns-3 802.11b ad hoc setup of
//! ns-3's chain scenario (validation/ns3/README.md). docs/scenario-format.md documents each field.

use serde::{Deserialize, Serialize};

pub use super::preset::Preset;

/// A complete simulation scenario.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// Free text, carried into the results.
    pub name: String,
    /// A simulator whose defaults fill in every field the scenario does not give (the
    /// presets' fields and sources: "Presets", below).
    #[serde(skip_serializing_if = "Preset::is_none")]
    pub preset: Preset,
    /// Run length, seed, measurement window.
    pub simulation: SimulationCfg,
    /// Propagation and reception.
    pub channel: ChannelCfg,
    /// Extra frame loss on top of the channel model (zero or more entries).
    pub loss: Vec<LossCfg>,
    /// The 802.11 DCF.
    pub mac: MacCfg,
    /// Route computation.
    pub routing: RoutingCfg,
    /// TCP (every TCP flow).
    pub tcp: TcpCfg,
    /// The network-coding scheme at each interface queue.
    pub scheme: SchemeCfg,
    /// The nodes (at least one), numbered 0, 1, ... in file order.
    pub nodes: Vec<NodeCfg>,
    /// The traffic (zero or more flows).
    pub flows: Vec<FlowCfg>,
}

/// Run length, seed and the measurement window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct SimulationCfg {
    /// Simulated time; > 0.
    pub duration_s: f64,
    /// Master seed; every random stream is derived from (seed, node or flow, purpose).
    /// 0 .. 2^63-1.
    pub seed: u64,
    /// Start of the goodput measurement window; in [0, duration_s).
    pub measure_start_s: f64,
    /// End of the measurement window; in (measure_start_s, duration_s]. Not set:
    /// `duration_s`.
    pub measure_end_s: Option<f64>,
    /// Sampling interval of the time series (goodput, cwnd, queue lengths); > 0.
    pub series_interval_s: f64,
    /// Carry real payload bytes in packets (decodability checks, traces).
    pub payload_bytes: bool,
    /// Refresh interval of moving nodes' positions and neighbour sets; > 0.
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

/// Propagation model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChannelModel {
    /// Fixed receive / carrier-sense / interference ranges.
    Range,
    /// ns-2 TwoRayGround (Friis below the crossover distance).
    Tworay,
    /// Log-distance path loss with log-normal shadowing (ns-2 Shadowing).
    Shadowing,
    /// Per-link delivery probabilities from `links` (measured topologies).
    Linktable,
}

/// Small-scale fading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Fading {
    /// No fading.
    None,
    /// Rayleigh fading.
    Rayleigh,
}

/// How the receiver decides whether a frame that overlapped other signals survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Reception {
    /// Probabilistic: the product over chunks of constant SINR of (1 - BER(SINR))^bits,
    /// with the 802.11 modulations' BER curves (ns-3's interference model).
    Ber,
    /// Deterministic: received iff the SINR >= `capture_threshold_db` throughout
    /// (ns-2).
    Capture,
}

/// The radio channel: propagation, reception, interference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ChannelCfg {
    /// Propagation model.
    pub model: ChannelModel,
    /// How a receiver decides whether a frame that overlapped other signals survives.
    pub reception: Reception,
    /// `"ber"` reception: a frame is only locked on if its SINR when it starts is at
    /// least this (ns-3 ThresholdPreambleDetectionModel, 4 dB). A very negative value
    /// (e.g. -1000) disables it.
    pub preamble_detection_db: f64,
    /// Range model: a frame is received up to this distance (distance <= range).
    pub rx_range_m: f64,
    /// Range model: the medium is sensed busy up to this distance; >= `rx_range_m`.
    pub cs_range_m: f64,
    /// Range model: a transmission interferes up to this distance; >= `rx_range_m`.
    pub interference_range_m: f64,
    /// Physical models: carrier frequency.
    pub frequency_hz: f64,
    /// Physical models: antenna height (the same at every node).
    pub antenna_height_m: f64,
    /// Transmit power.
    pub tx_power_w: f64,
    /// Minimum received power to decode (ns-2 RXThresh; 250 m with two-ray).
    pub rx_threshold_w: f64,
    /// Minimum received power to sense the medium busy (ns-2 CSThresh; 550 m with
    /// two-ray); <= `rx_threshold_w`.
    pub cs_threshold_w: f64,
    /// Noise added to interference in the SINR; >= 0. The default is thermal noise in
    /// 22 MHz at 290 K plus a 7 dB noise figure (-93.6 dBm, ns-3's default). The range
    /// and link-table models use received power 1.0, so noise is negligible there.
    pub noise_w: f64,
    /// A frame survives overlapping signals if its SINR >= this (ns-2 CPThresh).
    pub capture_threshold_db: f64,
    /// Shadowing model: path loss exponent beta; > 0.
    pub path_loss_exponent: f64,
    /// Shadowing model: standard deviation of the log-normal term; >= 0.
    pub shadowing_sigma_db: f64,
    /// Shadowing model: reference distance d0; > 0.
    pub reference_distance_m: f64,
    /// Small-scale fading, drawn per frame and receiver.
    pub fading: Fading,
    /// Speed of the propagation delay.
    pub propagation_speed_mps: f64,
    /// Link table: required (non-empty) when `model = "linktable"`, not allowed
    /// otherwise. Each unordered pair of nodes at most once; pairs not listed cannot
    /// hear each other.
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
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    /// Node index.
    pub a: u32,
    /// Node index; not `a`.
    pub b: u32,
    /// Probability that a frame sent by `a` is received by `b`; in [0, 1].
    pub p_ab: f64,
    /// Probability that a frame sent by `b` is received by `a`; in [0, 1].
    pub p_ba: f64,
}

/// Which received frames a loss entry drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum LossFrames {
    /// MAC data frames only (not ACK/RTS/CTS), like the ns-3 anchor's `--loss-frames
    /// data`.
    Data,
    /// Every frame.
    All,
    /// Packets of data frames the MAC received intact and acknowledged, dropped at the
    /// receiving node's network layer (overheard ones too): MAC retries cannot recover
    /// them, only the coding layers above can. One reading of Chen et al.'s "per-link
    /// packet loss" (docs/assumptions.md).
    Network,
}

/// Extra frame loss on chosen directed links (or all), constant or piecewise in time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct LossCfg {
    /// Directed links `[tx, rx]` this entry applies to (empty: every link); node
    /// indices, tx != rx, no duplicates.
    pub links: Vec<[u32; 2]>,
    /// Constant frame error rate in [0, 1]; used when `schedule` is empty (must stay 0
    /// when a schedule is given).
    pub rate: f64,
    /// Time-varying rate: the first phase containing t applies; outside every phase the
    /// rate is 0.
    pub schedule: Vec<LossPhase>,
    /// Which received frames are dropped.
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

/// One phase of a time-varying loss rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LossPhase {
    /// Start of the phase; >= 0.
    pub from_s: f64,
    /// End of the phase; > `from_s`. Not set: open-ended.
    #[serde(default)]
    pub to_s: Option<f64>,
    /// Frame error rate in the phase; in [0, 1].
    pub rate: f64,
}

/// 802.11 PHY.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub enum Standard {
    /// 802.11b (DSSS).
    #[serde(rename = "802.11b")]
    B,
    /// 802.11g (ERP-OFDM).
    #[serde(rename = "802.11g")]
    G,
}

/// PLCP preamble.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Preamble {
    /// Long PLCP preamble.
    Long,
    /// Short PLCP preamble.
    Short,
}

/// The 802.11 DCF: standard, rates, RTS/CTS, retries, contention window, queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct MacCfg {
    /// PHY/MAC timing and rate set.
    pub standard: Standard,
    /// Rate of unicast data frames. 802.11b: 1, 2, 5.5, 11; 802.11g: 6, 9, 12, 18, 24,
    /// 36, 48, 54.
    pub data_rate_mbps: f64,
    /// Rate of control frames (ACK, RTS, CTS) and broadcasts; same rate set.
    pub basic_rate_mbps: f64,
    /// PLCP preamble.
    pub preamble: Preamble,
    /// RTS/CTS precedes unicast frames whose MPDU is longer than this (65535: never).
    pub rts_threshold_bytes: u32,
    /// Max transmissions (attempts) of a frame sent without RTS, and of an RTS; >= 1.
    pub short_retry_limit: u32,
    /// Max transmissions (attempts) of a frame protected by RTS/CTS; >= 1.
    pub long_retry_limit: u32,
    /// false: every unicast frame is sent once (no MAC retransmissions, Gheorghiu et al.).
    pub retransmissions: bool,
    /// Reset the contention window to CWmin when a frame is dropped at its retry limit
    /// (802.11-2016 10.3.3, ns-2); false keeps it, as ns-3 3.44 does.
    pub cw_reset_after_drop: bool,
    /// Interface queue capacity (drop-tail); >= 1.
    pub queue_packets: u32,
    /// Minimum contention window, slots; 2^k - 1 (1, 3, 7, ..., 32767). Not set: 31
    /// (802.11b) / 15 (802.11g).
    pub cw_min: Option<u32>,
    /// Maximum contention window, slots; 2^k - 1; cw_min <= cw_max (defaults included).
    /// Not set: 1023.
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

/// Shortest-path metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RouteMetric {
    /// Hop count.
    Hops,
    /// ETX, the expected transmission count from the links' delivery probabilities.
    Etx,
}

/// How a node hands a packet to its candidate next hops when a flow has several paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Spread {
    /// Every packet to the cheapest candidate; schemes that choose among the candidates
    /// themselves (multipath schemes) still see all of them.
    Cheapest,
    /// Each node sends the packets of a flow direction to its candidates in turn (Chen et
    /// al.'s ComboCoding over two paths).
    RoundRobin,
}

/// How directed diffusion reinforces a flow's `routing.paths` = d (Gheorghiu et al.
/// §III-A: "reinforcing up to d paths ... we vary the number of downstream neighbors that
/// a node can pick as next-hops").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Reinforce {
    /// Every reinforced node reinforces up to d of the neighbours it first heard the
    /// source's exploratory data from, and takes up to d downstream neighbours: each node
    /// may pick among up to d next hops; a one-hop pair keeps its direct link alone.
    Hops,
    /// d whole paths: the source's least-cost paths to the sink's d first-heard
    /// neighbours (they share the source's tree, so a flow branches at one node for
    /// d = 2).
    Paths,
}

/// The routing protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RoutingProtocol {
    /// Routes computed from the channel (an oracle): no control packets, no discovery
    /// delay, no route breaks unless `follow_mobility` is off.
    Static,
    /// AODV (RFC 3561): routes discovered on demand by RREQ/RREP on the air, broken by
    /// the MAC's retry limit (and HELLOs if on), repaired by new discoveries
    /// (`[routing.aodv]`; docs/routing.md).
    Aodv,
}

/// AODV's parameters (RFC 3561 §10's names and defaults; `routing.protocol = "aodv"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct AodvCfg {
    /// ACTIVE_ROUTE_TIMEOUT, ms: a route unused this long expires; >= 1.
    pub active_route_timeout_ms: u32,
    /// ALLOWED_HELLO_LOSS: HELLOs missed before a neighbour is lost; 1-255.
    pub allowed_hello_loss: u32,
    /// HELLO_INTERVAL, ms; >= 1.
    pub hello_interval_ms: u32,
    /// Send HELLO messages (§6.9); off: link breaks only from the MAC's retry limit.
    pub hello: bool,
    /// K of DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL); 1-255.
    pub delete_period_k: u32,
    /// LOCAL_ADD_TTL (§6.12); 0-255.
    pub local_add_ttl: u32,
    /// Repair a broken link locally (§6.12) for destinations within MAX_REPAIR_TTL
    /// (0.3 NET_DIAMETER) hops.
    pub local_repair: bool,
    /// NET_DIAMETER, hops; 1-255.
    pub net_diameter: u32,
    /// NODE_TRAVERSAL_TIME, ms; >= 1.
    pub node_traversal_time_ms: u32,
    /// RERR_RATELIMIT, RERRs per second at most; >= 1.
    pub rerr_ratelimit: u32,
    /// RREQ_RETRIES at TTL = NET_DIAMETER after the first; 0-16.
    pub rreq_retries: u32,
    /// RREQ_RATELIMIT, RREQs originated per second at most; >= 1.
    pub rreq_ratelimit: u32,
    /// TIMEOUT_BUFFER (in RING_TRAVERSAL_TIME); 0-255.
    pub timeout_buffer: u32,
    /// TTL_START of the expanding ring search; 1-255.
    pub ttl_start: u32,
    /// TTL_INCREMENT; 1-255.
    pub ttl_increment: u32,
    /// TTL_THRESHOLD, beyond which RREQs use NET_DIAMETER; 1-255.
    pub ttl_threshold: u32,
    /// Packets waiting for a route at one node, at most (the oldest goes); >= 1.
    pub buffer_packets: u32,
    /// How long a packet waits for a route at most, ms; >= 1.
    pub buffer_time_ms: u32,
    /// Forwarded RREQs wait uniform [0, jitter_ms] (RFC 5148); 0-1000.
    pub jitter_ms: u32,
    /// Set the D (destination only) flag on RREQs: only the destination replies.
    pub destination_only: bool,
    /// Set the G flag on RREQs: an intermediate node that replies also tells the
    /// destination (§6.6.3).
    pub gratuitous_rrep: bool,
    /// Increment the destination sequence number of a route that breaks or has no entry
    /// for a forwarded packet (RFC 3561 §6.11, the default); off: keep it, as ns-3 3.44's
    /// AODV does, so that neighbours holding the old number may answer the rediscovery.
    pub increment_seqno_on_break: bool,
    /// A RREQ makes an invalid route to its originator valid again (RFC 3561 §6.5 with
    /// §6.2, the default); off: it updates such an entry but leaves it invalid, as ns-3
    /// 3.44's AODV does (`RecvRequest`), RREPs still travel it, and data for the
    /// originator is dropped with a RERR until a RREP or DELETE_PERIOD renews the entry.
    pub rreq_revalidates_route: bool,
    /// AODV's messages go to the MAC before the data queued at their node, as ns-2's
    /// PriQueue serves routing packets (the default); off: behind the data already
    /// queued, in arrival order, as ns-3 3.44's one WifiMacQueue does without a
    /// traffic-control layer (a RERR then waits while data keeps arriving for the
    /// broken route).
    pub control_first: bool,
}

impl Default for AodvCfg {
    fn default() -> Self {
        AodvCfg {
            active_route_timeout_ms: 3000,
            allowed_hello_loss: 2,
            hello_interval_ms: 1000,
            hello: false,
            delete_period_k: 5,
            local_add_ttl: 2,
            local_repair: false,
            net_diameter: 35,
            node_traversal_time_ms: 40,
            rerr_ratelimit: 10,
            rreq_retries: 2,
            rreq_ratelimit: 10,
            timeout_buffer: 2,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            buffer_packets: 64,
            buffer_time_ms: 30_000,
            jitter_ms: 10,
            destination_only: false,
            gratuitous_rrep: false,
            increment_seqno_on_break: true,
            rreq_revalidates_route: true,
            control_first: true,
        }
    }
}

/// Routing: static (paths computed once from the channel, and again whenever nodes
/// move unless `follow_mobility` is off; a flow's explicit `route`, see `[[flows]]`,
/// overrides it) or on demand (AODV).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct RoutingCfg {
    /// The routing protocol.
    pub protocol: RoutingProtocol,
    /// Shortest-path metric.
    pub metric: RouteMetric,
    /// Reinforced paths per flow, d (directed diffusion): a node on them may forward a
    /// packet of the flow to any of its downstream neighbours, and a packet back to the
    /// flow's source to any of its upstream neighbours (multipath schemes); 1-16.
    pub paths: u32,
    /// With d > 1, how the paths are reinforced: `"hops"` (each node up to d next hops)
    /// or `"paths"` (d whole paths from the source's tree).
    pub reinforce: Reinforce,
    /// Initial IP TTL; 1-255.
    pub ttl: u32,
    /// Links whose delivery probability is below this are not routed over; in [0, 1].
    pub min_delivery: f64,
    /// With several paths (`paths` > 1): which candidate next hop each packet goes to.
    /// The paths carry both directions of a flow: packets towards its source (TCP ACKs)
    /// go to the upstream neighbours on the paths.
    pub spread: Spread,
    /// Routes are recomputed from the new positions at every mobility update (an oracle
    /// routing protocol); false keeps the routes computed at the start, so a path breaks
    /// when a node on it moves out of range (Chen et al.'s two-path MANET). No effect
    /// under `protocol = "aodv"`.
    pub follow_mobility: bool,
    /// AODV's parameters (`protocol = "aodv"`).
    pub aodv: AodvCfg,
}

impl Default for RoutingCfg {
    fn default() -> Self {
        RoutingCfg {
            protocol: RoutingProtocol::Static,
            metric: RouteMetric::Hops,
            paths: 1,
            reinforce: Reinforce::Hops,
            ttl: 64,
            min_delivery: 0.1,
            spread: Spread::Cheapest,
            follow_mobility: true,
            aodv: AodvCfg::default(),
        }
    }
}

/// How a TCP sender without timestamps takes RTT samples (`tcp.rtt_sampling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RttSampling {
    /// One segment timed at a time; a retransmission abandons the timing (RFC 6298 §3).
    Timed,
    /// Every ACK covering the oldest segment outstanding (ns-3 without timestamps).
    EveryAck,
}

/// TCP congestion control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum TcpVariant {
    /// RFC 5681 window growth.
    Newreno,
    /// TCP-FeW (Nahm, Helmy & Kuo, MobiHoc 2005): congestion avoidance grows the window
    /// by `few_alpha` segments per RTT.
    Few,
    /// TCP-AP (ElRakabawy, Klemm & Lindemann, MobiHoc 2005): NewReno window plus rate
    /// pacing at one segment per (1 + ap_cov_factor covRTT) nHPD.
    Ap,
    /// Network-coding-aware TCP (Xu et al. §IV-B): TCP-AP with its rate interval times
    /// `nc_lambda`.
    #[serde(rename = "nc-aware")]
    NcAware,
    /// TCP Vegas (Brakmo & Peterson 1994, as ns-2's agent): once per RTT, the segments
    /// queued in the network, (expected - actual rate) x baseRTT, keep the window
    /// between `vegas_alpha` and `vegas_beta`; slow start doubles every other RTT and
    /// ends above `vegas_gamma`.
    Vegas,
    /// CUBIC (RFC 9438): congestion avoidance along W_cubic(t) = C (t - K)^3 + W_max
    /// with the Reno-friendly region and fast convergence; ssthresh = cwnd · β_cubic on
    /// a loss (`cubic_c`, `cubic_beta`, `cubic_fast_convergence`).
    Cubic,
    /// BBR v1 (Linux 4.9+ tcp_bbr.c, ns-3's TcpBbr): paced at gain × the bottleneck
    /// bandwidth (max delivery rate over 10 round trips), window gain × BDP (with the
    /// min RTT over 10 s); STARTUP, DRAIN, PROBE_BW and PROBE_RTT. Its constants are
    /// tcp_bbr.c's (not settable); best with `sack = true`.
    Bbr,
}

/// TCP-AP's variation term: which spread of the recent samples stands for covRTT in
/// the rate interval (1 + k covRTT) nHPD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ApVariation {
    /// Mean absolute deviation over the mean of the nHPD samples, left unchanged while
    /// all of them are equal (the authors' ns-2 agent, tcp-ap.cc).
    Adev,
    /// Standard deviation over the mean of the nHPD samples (the agent's alternative,
    /// commented out there).
    Cov,
    /// Standard deviation over the mean of the RTT samples themselves (the paper's
    /// wording "coefficient of variation of recently measured round-trip times";
    /// ncmesh's rule before issue 12).
    #[serde(rename = "cov-rtt")]
    CovRtt,
}

/// TCP, for every TCP flow. The pacing variants need the flow's path length: the
/// simulator passes the route's hop count to the sender (4 hops are assumed until
/// then).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct TcpCfg {
    /// Congestion control. Every variant keeps the loss recovery `sack` selects.
    pub variant: TcpVariant,
    /// SACK loss recovery (RFC 2018 / RFC 6675) instead of NewReno's (RFC 6582).
    pub sack: bool,
    /// Segment payload size; 1-65535.
    pub mss_bytes: u32,
    /// Initial window; >= 1.
    pub initial_cwnd_segments: u32,
    /// Minimum retransmission timeout; > 0.
    pub min_rto_s: f64,
    /// RTO before the first RTT sample; in [min_rto_s, max_rto_s].
    pub initial_rto_s: f64,
    /// Maximum RTO; >= min_rto_s.
    pub max_rto_s: f64,
    /// RFC 6298 clock granularity G; >= 0.
    pub clock_granularity_s: f64,
    /// How RTT samples are taken (no timestamps): `timed`, one segment at a time with
    /// Karn's rule (RFC 6298 §3; ns-2's agents, BSD); `every-ack`, every ACK that covers
    /// the oldest segment outstanding, timed from that segment's sending unless it was
    /// retransmitted (ns-3's TcpSocketBase without timestamps).
    pub rtt_sampling: RttSampling,
    /// Delay ACKs.
    pub delayed_ack: bool,
    /// ACK every this many full segments; >= 1.
    pub delayed_ack_count: u32,
    /// Delayed-ACK timer; > 0.
    pub delayed_ack_timeout_s: f64,
    /// Receive buffer = advertised window; >= mss_bytes.
    pub rcv_buffer_bytes: u32,
    /// Duplicate ACKs that trigger fast retransmit; >= 1.
    pub dupack_threshold: u32,
    /// Limited Transmit (RFC 3042; RFC 5681 §3.2 step 1, a SHOULD): each of the first
    /// two duplicate ACKs sends one segment of new data, cwnd unchanged, if the
    /// receiver's window allows. ns-2 (`singledup_ 1`) and ns-3 (`LimitedTransmit`) do
    /// it by default; off keeps ncmesh's results from before it (docs/assumptions.md).
    pub limited_transmit: bool,
    /// NewReno (no SACK) after a fast retransmit or a timeout: `true`, the Careful
    /// variant of RFC 6582 §3.2 step 1 (ns-2's default): a new fast retransmit only once
    /// the cumulative ACK covers more than `recover`, the highest byte sent at that
    /// event; `false`, RFC 2582's Less Careful variant (ns-3 3.44): already when it
    /// covers `recover`, i.e. everything sent then. `false` keeps ncmesh's results from
    /// before the choice (docs/assumptions.md).
    pub newreno_careful: bool,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) sets the window during loss
    /// recovery, NewReno's and SACK's, for every variant.
    pub prr: bool,
    /// RACK-TLP loss detection (RFC 8985): segments are lost by time (the reordering
    /// window) rather than by duplicate-ACK count, and a tail loss probe precedes the
    /// RTO; needs `sack = true`.
    pub rack: bool,
    /// `"few"`: congestion-avoidance growth in segments per RTT (cwnd += alpha/cwnd per
    /// ACK); in (0, 1] (1 = RFC 5681).
    pub few_alpha: f64,
    /// `"ap"`, `"nc-aware"`: spatial-reuse distance n (hops) of the nHPD estimate (4
    /// for a 250 m range and 550 m interference range); >= 1. Paths shorter than n are
    /// paced at the one-hop delay.
    pub ap_reuse_hops: u32,
    /// `"ap"`, `"nc-aware"`: weight of the old average in the EWMA of nHPD samples; in
    /// [0, 1).
    pub ap_smoothing: f64,
    /// `"ap"`, `"nc-aware"`: accepted samples over which covRTT is computed; 1-10000.
    pub ap_history: u32,
    /// `"ap"`, `"nc-aware"`: k in rate interval = (1 + k covRTT) nHPD; >= 0.
    pub ap_cov_factor: f64,
    /// `"ap"`, `"nc-aware"`: what covRTT is computed as.
    pub ap_variation: ApVariation,
    /// `"ap"`, `"nc-aware"`: per-hop queuing-delay and nHPD samples above this are
    /// discarded; > 0.
    pub ap_delay_bound_s: f64,
    /// `"ap"`, `"nc-aware"`: rate interval before the first RTT sample; > 0.
    pub ap_initial_interval_s: f64,
    /// `"ap"`, `"nc-aware"`: link rate used to split the RTT into per-hop transmission
    /// and queuing delay; > 0. Not set: `mac.data_rate_mbps`.
    pub ap_link_rate_mbps: Option<f64>,
    /// `"nc-aware"`: factor lambda on TCP-AP's rate interval, r_new = lambda r_old (Xu
    /// et al. eq. 4); > 0 (< 1 sends faster).
    pub nc_lambda: f64,
    /// `"vegas"`: below this many segments queued in the network, congestion avoidance
    /// grows the window by one segment per RTT.
    pub vegas_alpha: u32,
    /// `"vegas"`: above this many it shrinks the window by one segment per RTT;
    /// >= vegas_alpha.
    pub vegas_beta: u32,
    /// `"vegas"`: above this many slow start ends.
    pub vegas_gamma: u32,
    /// `"cubic"`: C of W_cubic(t) = C (t - K)^3 + W_max, segments per second cubed
    /// (RFC 9438 §4.2, §5.1); > 0.
    pub cubic_c: f64,
    /// `"cubic"`: β_cubic, the window after a loss as a share of the window before
    /// (RFC 9438 §4.6); in (0, 1).
    pub cubic_beta: f64,
    /// `"cubic"`: fast convergence (RFC 9438 §4.7): a loss below the last W_max
    /// remembers W_max = cwnd (1 + β_cubic) / 2.
    pub cubic_fast_convergence: bool,
    /// `"cubic"`: HyStart++ (RFC 9406) in the initial slow start: when a round's minimum
    /// RTT rises by clamp(last round's / 8, 4 ms, 16 ms), slow start grows a quarter as
    /// fast (Conservative Slow Start) and, unless the RTT falls back, ends after 5 rounds.
    /// Off: RFC 5681 slow start. Linux's CUBIC runs HyStart, not HyStart++.
    pub cubic_hystart: bool,
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
            rtt_sampling: RttSampling::Timed,
            delayed_ack: true,
            delayed_ack_count: 2,
            delayed_ack_timeout_s: 0.2,
            rcv_buffer_bytes: 131_072,
            dupack_threshold: 3,
            limited_transmit: false,
            newreno_careful: false,
            prr: false,
            rack: false,
            few_alpha: 0.01,
            ap_reuse_hops: 4,
            ap_smoothing: 0.7,
            ap_history: 50,
            ap_cov_factor: 2.0,
            ap_variation: ApVariation::Adev,
            ap_delay_bound_s: 0.5,
            ap_initial_interval_s: 0.05,
            ap_link_rate_mbps: None,
            nc_lambda: 0.2,
            vegas_alpha: 1,
            vegas_beta: 3,
            vegas_gamma: 1,
            cubic_c: 0.4,
            cubic_beta: 0.7,
            cubic_fast_convergence: true,
            cubic_hystart: false,
        }
    }
}

/// The `[scheme]` table: owned by the coding layer's registry.
pub use crate::coding::registry::SchemeCfg;

/// A node: its position and optional motion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NodeCfg {
    /// Position, x; finite.
    pub x: f64,
    /// Position, y; finite.
    pub y: f64,
    /// Straight-line motion between the points: before the first point the node stays
    /// at (x, y), after the last at the last point.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waypoints: Vec<Waypoint>,
}

/// A point of a node's path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    /// Time at the point; >= 0, strictly increasing.
    pub t_s: f64,
    /// Position, x; finite.
    pub x: f64,
    /// Position, y; finite.
    pub y: f64,
}

/// Transport protocol of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// TCP (the `[tcp]` settings).
    Tcp,
    /// UDP.
    Udp,
}

/// Application of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum AppKind {
    /// Always has data to send (FTP).
    Bulk,
    /// Constant bit rate: `packet_bytes` every packet_bytes*8/rate_kbps seconds.
    Cbr,
}

/// A flow: endpoints, transport, application, timing, optional fixed route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FlowCfg {
    /// Source node index; must exist.
    pub src: u32,
    /// Destination node index; must exist, not `src`.
    pub dst: u32,
    /// Transport protocol.
    #[serde(default = "default_transport")]
    pub transport: Transport,
    /// Application.
    #[serde(default = "default_app")]
    pub app: AppKind,
    /// Application rate: required (> 0) for `app = "cbr"`, not allowed for bulk.
    #[serde(default)]
    pub rate_kbps: Option<f64>,
    /// Application write size (UDP payload; for TCP the MSS applies); 1-65507.
    #[serde(default = "default_packet_bytes")]
    pub packet_bytes: u32,
    /// Application start; in [0, duration_s).
    #[serde(default = "default_start")]
    pub start_s: f64,
    /// Application stop; > start_s. Not set: the end of the simulation.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Explicit forward path [src, ..., dst] (each node once, all existing; consecutive
    /// nodes must be linked); the reverse path carries the ACKs. Not set: the routing
    /// protocol's path.
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
