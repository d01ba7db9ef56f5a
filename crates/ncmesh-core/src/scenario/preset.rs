//! Simulator presets: `preset = "ns2"` gives a scenario the defaults of the simulator a
//! paper ran, so a reproduction sets only what the paper says; `preset = "linux"` gives
//! it the TCP that hosts run today. A preset fills in each of its fields that the
//! scenario does not give; a field the scenario gives wins. ncmesh's own defaults
//! (schema.rs) stay for a scenario that names no preset.
//!
//! Each value cites where it comes from; docs/scenario-format.md lists them (generated
//! from `PRESETS`).

use super::ScenarioError;
use serde::{Deserialize, Serialize};
use toml::{Table, Value};

/// A simulator whose defaults a scenario can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// ncmesh's own defaults.
    #[default]
    None,
    /// ns-2.33/2.34 (Takimoto et al., Xu et al., Gheorghiu et al. ran it): its TCP
    /// agent, 802.11 MAC, queue and wireless PHY defaults (below).
    Ns2,
    /// Today's Linux TCP defaults (CUBIC, SACK, RACK-TLP, PRR, its windows and
    /// timers); the MAC, channel and PHY keep ncmesh's (or a scenario's) values. With
    /// `tcp.variant = "bbr"` it is Linux with `net.ipv4.tcp_congestion_control = bbr`
    /// (PRR then has no effect: BBR sets the window itself, as tcp_bbr.c's
    /// cong_control does).
    Linux,
}

impl Preset {
    /// No preset?
    pub fn is_none(&self) -> bool {
        *self == Preset::None
    }
}

/// A value a preset gives a field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PresetValue {
    /// A number with a fraction (seconds, watts, ...).
    Float(f64),
    /// A whole number.
    Int(i64),
    /// A flag.
    Bool(bool),
    /// A named choice (`channel.model = "tworay"`).
    Str(&'static str),
    /// `tcp.rcv_buffer_bytes` as a number of segments: that many times the scenario's
    /// `tcp.mss_bytes` (ns-2's window is counted in packets).
    Segments(i64),
}

/// One field of a preset.
#[derive(Debug, Clone, Copy)]
pub struct PresetField {
    /// Dotted path (`tcp.min_rto_s`).
    pub path: &'static str,
    /// Its value under the preset.
    pub value: PresetValue,
    /// Where the value comes from.
    pub source: &'static str,
}

use PresetValue::*;

const NS_DEFAULT: &str = "ns-2.34 tcl/lib/ns-default.tcl";

/// ns-2.34's defaults (the same in 2.33) for what a scenario here sets.
const NS2: &[PresetField] = &[
    PresetField { path: "tcp.mss_bytes", value: Int(1000), source: "Agent/TCP packetSize_ 1000" },
    PresetField { path: "tcp.initial_cwnd_segments", value: Int(2), source: "Agent/TCP windowInit_ 2" },
    PresetField { path: "tcp.rcv_buffer_bytes", value: Segments(20), source: "Agent/TCP window_ 20 (packets)" },
    PresetField { path: "tcp.min_rto_s", value: Float(0.2), source: "Agent/TCP minrto_ 0.2" },
    PresetField { path: "tcp.initial_rto_s", value: Float(3.0), source: "Agent/TCP rtxcur_init_ 3.0" },
    PresetField { path: "tcp.max_rto_s", value: Float(60.0), source: "Agent/TCP maxrto_ 60" },
    PresetField { path: "tcp.clock_granularity_s", value: Float(0.01), source: "Agent/TCP tcpTick_ 0.01" },
    PresetField { path: "tcp.dupack_threshold", value: Int(3), source: "Agent/TCP numdupacks_ 3" },
    PresetField { path: "tcp.limited_transmit", value: Bool(true), source: "Agent/TCP singledup_ 1 (tcp.cc send_one: one new packet on each duplicate ACK below numdupacks_, within cwnd_ + dupacks_; RFC 3042)" },
    PresetField { path: "tcp.newreno_careful", value: Bool(true), source: "Agent/TCP bugFix_ true, lessCareful_ false (tcp-newreno.cc dupack_action: a new fast retransmit only once highest_ack_ > recover_, RFC 6582's Careful variant)" },
    PresetField { path: "tcp.delayed_ack", value: Bool(false), source: "Agent/TCPSink acknowledges every segment (delayed ACKs are the separate Agent/TCPSink/DelAck)" },
    PresetField { path: "tcp.delayed_ack_timeout_s", value: Float(0.1), source: "Agent/TCPSink/DelAck interval_ 100ms" },
    PresetField { path: "mac.standard", value: Str("802.11b"), source: "Mac/802_11: SlotTime_ 20 us, SIFS_ 10 us, PLCP at 1 Mbit/s (802.11b DSSS timing)" },
    PresetField { path: "mac.preamble", value: Str("long"), source: "Mac/802_11 PreambleLength_ 144, PLCPHeaderLength_ 48 bits" },
    PresetField { path: "mac.cw_min", value: Int(31), source: "Mac/802_11 CWMin_ 31" },
    PresetField { path: "mac.cw_max", value: Int(1023), source: "Mac/802_11 CWMax_ 1023" },
    PresetField { path: "mac.rts_threshold_bytes", value: Int(0), source: "Mac/802_11 RTSThreshold_ 0 (RTS/CTS before every unicast frame)" },
    PresetField { path: "mac.short_retry_limit", value: Int(7), source: "Mac/802_11 ShortRetryLimit_ 7" },
    PresetField { path: "mac.long_retry_limit", value: Int(4), source: "Mac/802_11 LongRetryLimit_ 4" },
    PresetField { path: "mac.data_rate_mbps", value: Float(1.0), source: "Mac/802_11 dataRate_ 1Mb (tcl/lan/ns-mac.tcl)" },
    PresetField { path: "mac.basic_rate_mbps", value: Float(1.0), source: "Mac/802_11 basicRate_ 1Mb (tcl/lan/ns-mac.tcl)" },
    PresetField { path: "mac.queue_packets", value: Int(50), source: "Queue limit_ 50" },
    PresetField { path: "channel.model", value: Str("tworay"), source: "Propagation/TwoRayGround, the model of ns-2's wireless examples" },
    PresetField { path: "channel.reception", value: Str("capture"), source: "Mac/802_11 capture: a frame survives another only CPThresh_ stronger" },
    PresetField { path: "channel.capture_threshold_db", value: Float(10.0), source: "Phy/WirelessPhy CPThresh_ 10.0" },
    PresetField { path: "channel.rx_threshold_w", value: Float(3.652e-10), source: "Phy/WirelessPhy RXThresh_ 3.652e-10 (250 m with two-ray)" },
    PresetField { path: "channel.cs_threshold_w", value: Float(1.559e-11), source: "Phy/WirelessPhy CSThresh_ 1.559e-11 (550 m with two-ray)" },
    PresetField { path: "channel.tx_power_w", value: Float(0.281_838_15), source: "Phy/WirelessPhy Pt_ 0.28183815" },
    PresetField { path: "channel.frequency_hz", value: Float(914e6), source: "Phy/WirelessPhy freq_ 914e+6" },
    PresetField { path: "channel.antenna_height_m", value: Float(1.5), source: "Antenna/OmniAntenna Z_ 1.5 (Gt_ = Gr_ = 1)" },
    PresetField { path: "channel.rx_range_m", value: Float(250.0), source: "the range RXThresh_ gives with two-ray (for model = \"range\")" },
    PresetField { path: "channel.cs_range_m", value: Float(550.0), source: "the range CSThresh_ gives with two-ray (for model = \"range\")" },
    PresetField { path: "channel.interference_range_m", value: Float(550.0), source: "a signal above CSThresh_ reaches the receiver and can collide (for model = \"range\")" },
];

const LINUX_SRC: &str =
    "Linux 6.x: include/net/tcp.h, net/ipv4/ and the net.ipv4.tcp_* sysctl defaults";

/// Linux's TCP defaults, as far as ncmesh models them (docs/assumptions.md says what is
/// left out: quick-ack mode, the adaptive delayed-ACK timeout, Linux's RTO formula).
const LINUX: &[PresetField] = &[
    PresetField { path: "tcp.variant", value: Str("cubic"), source: "net.ipv4.tcp_congestion_control = cubic (CONFIG_DEFAULT_TCP_CONG, net/ipv4/tcp_cubic.c; RFC 9438)" },
    PresetField { path: "tcp.cubic_c", value: Float(0.4), source: "tcp_cubic.c bic_scale 41 (C = 41 × 10 / 1024 ≈ 0.4; RFC 9438 §5.1)" },
    PresetField { path: "tcp.cubic_beta", value: Float(0.7), source: "tcp_cubic.c beta 717 (717 / 1024 ≈ 0.7; RFC 9438 §4.6)" },
    PresetField { path: "tcp.cubic_fast_convergence", value: Bool(true), source: "tcp_cubic.c fast_convergence 1 (RFC 9438 §4.7)" },
    PresetField { path: "tcp.sack", value: Bool(true), source: "net.ipv4.tcp_sack = 1 (RFC 2018, RFC 6675)" },
    PresetField { path: "tcp.rack", value: Bool(true), source: "net.ipv4.tcp_recovery = 1 (TCP_RACK_LOSS_DETECTION) and tcp_early_retrans = 3 (TLP) (RFC 8985)" },
    PresetField { path: "tcp.prr", value: Bool(true), source: "tcp_cwnd_reduction: PRR-SSRB in every recovery since Linux 3.2 (RFC 6937)" },
    PresetField { path: "tcp.initial_cwnd_segments", value: Int(10), source: "TCP_INIT_CWND 10 (RFC 6928)" },
    PresetField { path: "tcp.min_rto_s", value: Float(0.2), source: "TCP_RTO_MIN = HZ / 5 (200 ms)" },
    PresetField { path: "tcp.initial_rto_s", value: Float(1.0), source: "TCP_TIMEOUT_INIT = 1 × HZ (RFC 6298 §2.1)" },
    PresetField { path: "tcp.max_rto_s", value: Float(120.0), source: "TCP_RTO_MAX = 120 × HZ" },
    PresetField { path: "tcp.clock_granularity_s", value: Float(0.001), source: "one jiffy at HZ = 1000 (CONFIG_HZ_1000; RFC 6298's G)" },
    PresetField { path: "tcp.dupack_threshold", value: Int(3), source: "net.ipv4.tcp_reordering = 3 (TCP_FASTRETRANS_THRESH)" },
    PresetField { path: "tcp.delayed_ack", value: Bool(true), source: "delayed ACKs on (tcp_send_delayed_ack)" },
    PresetField { path: "tcp.delayed_ack_count", value: Int(2), source: "__tcp_ack_snd_check: ACK at once once more than one full segment (rcv_mss) is unacknowledged" },
    PresetField { path: "tcp.delayed_ack_timeout_s", value: Float(0.04), source: "TCP_DELACK_MIN = TCP_ATO_MIN = HZ / 25 (40 ms), the delayed-ACK timeout a connection starts with (Linux grows it towards TCP_DELACK_MAX 200 ms with the segments' spacing: not modelled)" },
    PresetField { path: "tcp.rcv_buffer_bytes", value: Int(131_072), source: "net.ipv4.tcp_rmem default 131072" },
];

impl PresetValue {
    /// The value as TOML, for a scenario whose segments are `mss_bytes` long.
    pub fn to_toml(self, mss_bytes: i64) -> Value {
        match self {
            Float(x) => Value::Float(x),
            Int(i) => Value::Integer(i),
            Bool(b) => Value::Boolean(b),
            Str(s) => Value::String(s.to_string()),
            Segments(n) => Value::Integer(n * mss_bytes),
        }
    }
}

/// The preset `v` names, or the one-line error naming `preset`.
pub fn parse(v: &Value) -> Result<Preset, ScenarioError> {
    Preset::deserialize(v.clone()).map_err(|_| {
        ScenarioError::new(
            "preset",
            format!("{v} is not allowed: expected one of \"none\", \"ns2\", \"linux\""),
        )
    })
}

/// Every preset with its fields (none for `"none"`), for the reference and the tests.
pub const PRESETS: &[(Preset, &str, &[PresetField])] = &[
    (Preset::Ns2, NS_DEFAULT, NS2),
    (Preset::Linux, LINUX_SRC, LINUX),
];

/// The fields `preset` gives.
pub fn fields(preset: Preset) -> &'static [PresetField] {
    PRESETS.iter().find(|p| p.0 == preset).map_or(&[], |p| p.2)
}

/// Does the document name a preset?
pub fn named(doc: &Table) -> bool {
    doc.get("preset")
        .is_some_and(|v| v.as_str() != Some("none"))
}

/// `s` with `preset` named and each of its fields that `s` still has at ncmesh's default
/// set to the preset's value: how a preset applies to a scenario already complete (built by
/// a builder, or read and resolved), where no field is missing. A field a builder or the
/// user changed keeps its value.
pub fn overlay(s: &super::Scenario, preset: Preset) -> Result<super::Scenario, ScenarioError> {
    let internal = |e: toml::ser::Error| ScenarioError::new("preset", e.to_string());
    let Value::Table(mut doc) = Value::try_from(s).map_err(internal)? else {
        unreachable!("a scenario is a table")
    };
    let Value::Table(default) = Value::try_from(super::Scenario::default()).map_err(internal)?
    else {
        unreachable!("a scenario is a table")
    };
    for f in fields(preset) {
        let (table, key) = f.path.split_once('.').expect("a preset field is table.key");
        let at_default =
            doc.get(table).and_then(|t| t.get(key)) == default.get(table).and_then(|t| t.get(key));
        if let (true, Some(Value::Table(t))) = (at_default, doc.get_mut(table)) {
            t.remove(key);
        }
    }
    doc.insert("preset".into(), Value::try_from(preset).map_err(internal)?);
    super::from_value(Value::Table(doc))
}

/// Fills in, in `doc` (a scenario as a TOML table), every field its `preset` gives that
/// the document does not. A document without a preset is left as it is; a preset that
/// does not exist is an error naming `preset`.
pub fn apply(doc: &mut Table) -> Result<(), ScenarioError> {
    let Some(v) = doc.get("preset") else {
        return Ok(());
    };
    let preset = parse(v)?;
    for f in fields(preset) {
        let (table, key) = f.path.split_once('.').expect("a preset field is table.key");
        let mss = doc
            .get("tcp")
            .and_then(|t| t.get("mss_bytes"))
            .and_then(Value::as_integer);
        let entry = doc
            .entry(table)
            .or_insert_with(|| Value::Table(Table::new()));
        let Value::Table(t) = entry else {
            // Not a table: deserializing reports it.
            continue;
        };
        if t.contains_key(key) {
            continue;
        }
        t.insert(key.to_string(), f.value.to_toml(mss.unwrap_or(1000)));
    }
    Ok(())
}
