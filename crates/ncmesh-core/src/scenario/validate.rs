//! Semantic checks of a deserialized scenario. The first error wins; checks run in
//! file order (simulation, channel, loss, mac, routing, tcp, nodes, flows), except
//! that an empty node list is reported first (every node reference depends on it).
//!
//! Checks that need the channel (is there a route between two nodes?) are not here:
//! the simulator reports them when it builds the network.

use super::schema::*;
use crate::check::*;

/// Largest integer TOML can hold (seeds above it could not be written back).
const TOML_INT_MAX: u64 = i64::MAX as u64;

/// Valid data / basic rates of each standard, Mbit/s.
pub(crate) fn rates_for(std: Standard) -> &'static [f64] {
    match std {
        Standard::B => &[1.0, 2.0, 5.5, 11.0],
        Standard::G => &[6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0],
    }
}

pub(crate) fn std_name(std: Standard) -> &'static str {
    match std {
        Standard::B => "802.11b",
        Standard::G => "802.11g",
    }
}

/// Contention window defaults when cw_min / cw_max are not set.
pub(crate) fn default_cw(std: Standard) -> (u32, u32) {
    match std {
        Standard::B => (31, 1023),
        Standard::G => (15, 1023),
    }
}

pub(crate) fn nodes_desc(n: usize) -> String {
    match n {
        0 => "scenario has no nodes".to_string(),
        1 => "scenario has 1 node: 0".to_string(),
        n => format!("scenario has {n} nodes: 0-{}", n - 1),
    }
}

fn node(field: &str, id: u32, n: usize) -> R {
    if (id as usize) < n {
        Ok(())
    } else {
        Err(e(
            field,
            format!("node {id} does not exist ({})", nodes_desc(n)),
        ))
    }
}

/// Check a scenario's values; the first problem found is returned.
pub fn validate(s: &Scenario) -> R {
    let n = s.nodes.len();
    if n == 0 {
        return Err(e(
            "nodes",
            "the scenario has no nodes: at least one [[nodes]] entry (x, y in metres) is required",
        ));
    }
    simulation(&s.simulation)?;
    channel(&s.channel, n)?;
    for (i, l) in s.loss.iter().enumerate() {
        loss(&format!("loss[{i}]"), l, n)?;
    }
    mac(&s.mac)?;
    routing(&s.routing)?;
    tcp(&s.tcp)?;
    crate::coding::registry::validate(&s.scheme)?;
    for (i, nd) in s.nodes.iter().enumerate() {
        node_cfg(&format!("nodes[{i}]"), nd)?;
    }
    for (i, f) in s.flows.iter().enumerate() {
        flow(&format!("flows[{i}]"), f, s)?;
    }
    aodv_combination(s)
}

fn simulation(c: &SimulationCfg) -> R {
    positive("simulation.duration_s", c.duration_s, "seconds")?;
    if c.seed > TOML_INT_MAX {
        return Err(not_allowed(
            "simulation.seed",
            c.seed,
            &format!("an integer in [0, {TOML_INT_MAX}] (the largest TOML integer)"),
        ));
    }
    let d = c.duration_s;
    if !(c.measure_start_s.is_finite() && c.measure_start_s >= 0.0 && c.measure_start_s < d) {
        // Said for the common case: a duration shortened below the (default) start.
        let hint = if c.measure_start_s.is_finite() && c.measure_start_s >= d {
            " (a shorter simulation.duration_s needs a smaller simulation.measure_start_s too)"
        } else {
            ""
        };
        return Err(not_allowed(
            "simulation.measure_start_s",
            fnum(c.measure_start_s),
            &format!("a time in [0, duration_s = {}) seconds{hint}", fnum(d)),
        ));
    }
    if let Some(end) = c.measure_end_s {
        if !(end.is_finite() && end > c.measure_start_s && end <= d) {
            return Err(not_allowed(
                "simulation.measure_end_s",
                fnum(end),
                &format!(
                    "a time in (measure_start_s = {}, duration_s = {}] seconds (the window must not be empty)",
                    fnum(c.measure_start_s),
                    fnum(d)
                ),
            ));
        }
    }
    positive(
        "simulation.series_interval_s",
        c.series_interval_s,
        "seconds",
    )?;
    positive(
        "simulation.mobility_update_s",
        c.mobility_update_s,
        "seconds",
    )?;
    Ok(())
}

fn channel(c: &ChannelCfg, n: usize) -> R {
    positive("channel.rx_range_m", c.rx_range_m, "metres")?;
    positive("channel.cs_range_m", c.cs_range_m, "metres")?;
    positive(
        "channel.interference_range_m",
        c.interference_range_m,
        "metres",
    )?;
    if c.cs_range_m < c.rx_range_m {
        return Err(not_allowed(
            "channel.cs_range_m",
            fnum(c.cs_range_m),
            &format!(
                "at least rx_range_m = {} (a node senses every frame it can receive)",
                fnum(c.rx_range_m)
            ),
        ));
    }
    if c.interference_range_m < c.rx_range_m {
        return Err(not_allowed(
            "channel.interference_range_m",
            fnum(c.interference_range_m),
            &format!(
                "at least rx_range_m = {} (a frame that can be received also interferes)",
                fnum(c.rx_range_m)
            ),
        ));
    }
    positive("channel.frequency_hz", c.frequency_hz, "Hz")?;
    positive("channel.antenna_height_m", c.antenna_height_m, "metres")?;
    positive("channel.tx_power_w", c.tx_power_w, "watts")?;
    positive("channel.rx_threshold_w", c.rx_threshold_w, "watts")?;
    positive("channel.cs_threshold_w", c.cs_threshold_w, "watts")?;
    if c.cs_threshold_w > c.rx_threshold_w {
        return Err(not_allowed(
            "channel.cs_threshold_w",
            fnum(c.cs_threshold_w),
            &format!(
                "at most rx_threshold_w = {} (a node senses every frame it can receive)",
                fnum(c.rx_threshold_w)
            ),
        ));
    }
    non_negative("channel.noise_w", c.noise_w, "watts")?;
    finite(
        "channel.preamble_detection_db",
        c.preamble_detection_db,
        "a finite number (dB; e.g. -1000 disables preamble detection)",
    )?;
    finite(
        "channel.capture_threshold_db",
        c.capture_threshold_db,
        "a finite number (dB)",
    )?;
    positive("channel.path_loss_exponent", c.path_loss_exponent, "")?;
    non_negative("channel.shadowing_sigma_db", c.shadowing_sigma_db, "dB")?;
    positive(
        "channel.reference_distance_m",
        c.reference_distance_m,
        "metres",
    )?;
    positive(
        "channel.propagation_speed_mps",
        c.propagation_speed_mps,
        "m/s",
    )?;

    if c.model == ChannelModel::Linktable {
        if c.links.is_empty() {
            return Err(e(
                "channel.links",
                "no links given: channel.model = \"linktable\" needs at least one {a, b, p_ab, p_ba} link",
            ));
        }
    } else if !c.links.is_empty() {
        let model = serde_json::to_value(c.model)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        return Err(e(
            "channel.links",
            format!(
                "{} links given but channel.model is \"{model}\": links are only used with model = \"linktable\"",
                c.links.len()
            ),
        ));
    }
    let mut seen = std::collections::BTreeMap::new();
    for (i, l) in c.links.iter().enumerate() {
        let f = format!("channel.links[{i}]");
        node(&format!("{f}.a"), l.a, n)?;
        node(&format!("{f}.b"), l.b, n)?;
        if l.a == l.b {
            return Err(e(
                format!("{f}.b"),
                format!(
                    "{} is not allowed: a link joins two different nodes (a = {})",
                    l.b, l.a
                ),
            ));
        }
        probability(&format!("{f}.p_ab"), l.p_ab)?;
        probability(&format!("{f}.p_ba"), l.p_ba)?;
        let key = (l.a.min(l.b), l.a.max(l.b));
        if let Some(j) = seen.insert(key, i) {
            return Err(e(
                f,
                format!("link {}-{} is listed twice (also channel.links[{j}]); give each pair once with p_ab and p_ba", l.a, l.b),
            ));
        }
    }
    Ok(())
}

fn loss(f: &str, l: &LossCfg, n: usize) -> R {
    let mut seen = std::collections::BTreeMap::new();
    for (j, [tx, rx]) in l.links.iter().enumerate() {
        let lf = format!("{f}.links[{j}]");
        node(&format!("{lf}[0]"), *tx, n)?;
        node(&format!("{lf}[1]"), *rx, n)?;
        if tx == rx {
            return Err(e(lf, format!("[{tx}, {rx}] is not allowed: a directed link [tx, rx] joins two different nodes")));
        }
        if let Some(k) = seen.insert((*tx, *rx), j) {
            return Err(e(
                lf,
                format!("link [{tx}, {rx}] is listed twice (also {f}.links[{k}])"),
            ));
        }
    }
    probability(&format!("{f}.rate"), l.rate)?;
    if !l.schedule.is_empty() && l.rate != 0.0 {
        return Err(e(
            format!("{f}.rate"),
            format!("{} is not allowed with a schedule (the schedule's phases set the rate): expected 0 or no schedule", fnum(l.rate)),
        ));
    }
    for (k, ph) in l.schedule.iter().enumerate() {
        let pf = format!("{f}.schedule[{k}]");
        non_negative(&format!("{pf}.from_s"), ph.from_s, "seconds")?;
        if let Some(to) = ph.to_s {
            if !(to.is_finite() && to > ph.from_s) {
                return Err(not_allowed(
                    &format!("{pf}.to_s"),
                    fnum(to),
                    &format!(
                        "a time after from_s = {} seconds (or no to_s for an open-ended phase)",
                        fnum(ph.from_s)
                    ),
                ));
            }
        }
        probability(&format!("{pf}.rate"), ph.rate)?;
    }
    Ok(())
}

fn is_cw(v: u32) -> bool {
    (1..=32767).contains(&v) && (v + 1).is_power_of_two()
}

fn mac(c: &MacCfg) -> R {
    let rates = rates_for(c.standard);
    let list = rates
        .iter()
        .map(|r| fnum(*r).trim_end_matches(".0").to_string())
        .collect::<Vec<_>>()
        .join(", ");
    for (field, v) in [
        ("mac.data_rate_mbps", c.data_rate_mbps),
        ("mac.basic_rate_mbps", c.basic_rate_mbps),
    ] {
        if !rates.contains(&v) {
            return Err(not_allowed(
                field,
                fnum(v),
                &format!("a {} rate in Mbit/s: one of {list}", std_name(c.standard)),
            ));
        }
    }
    at_least(
        "mac.short_retry_limit",
        c.short_retry_limit,
        1,
        "at least 1 transmission attempt",
    )?;
    at_least(
        "mac.long_retry_limit",
        c.long_retry_limit,
        1,
        "at least 1 transmission attempt",
    )?;
    at_least(
        "mac.queue_packets",
        c.queue_packets,
        1,
        "a queue of at least 1 packet",
    )?;
    let (dmin, dmax) = default_cw(c.standard);
    for (field, v) in [("mac.cw_min", c.cw_min), ("mac.cw_max", c.cw_max)] {
        if let Some(v) = v {
            if !is_cw(v) {
                return Err(not_allowed(
                    field,
                    v,
                    "a contention window of the form 2^k - 1: 1, 3, 7, 15, 31, ..., 32767",
                ));
            }
        }
    }
    let cmin = c.cw_min.unwrap_or(dmin);
    let cmax = c.cw_max.unwrap_or(dmax);
    if cmin > cmax {
        let (field, v) = if c.cw_min.is_some() {
            ("mac.cw_min", cmin)
        } else {
            ("mac.cw_max", cmax)
        };
        return Err(not_allowed(
            field,
            v,
            &format!("cw_min <= cw_max (here cw_min = {cmin}, cw_max = {cmax})"),
        ));
    }
    Ok(())
}

fn routing(c: &RoutingCfg) -> R {
    if !(1..=16).contains(&c.paths) {
        return Err(not_allowed(
            "routing.paths",
            c.paths,
            "an integer in [1, 16]",
        ));
    }
    if !(1..=255).contains(&c.ttl) {
        return Err(not_allowed("routing.ttl", c.ttl, "an IP TTL in [1, 255]"));
    }
    probability("routing.min_delivery", c.min_delivery)?;
    aodv(&c.aodv)
}

/// `[routing.aodv]`: each parameter in its range (checked whatever the protocol, so a
/// file's values are sound before it switches to AODV).
fn aodv(c: &AodvCfg) -> R {
    let f = |k: &str| format!("routing.aodv.{k}");
    within(
        &f("active_route_timeout_ms"),
        c.active_route_timeout_ms,
        "a time in ms",
        "[1, 3600000]",
    )?;
    within(
        &f("allowed_hello_loss"),
        c.allowed_hello_loss,
        "a count",
        "[1, 255]",
    )?;
    within(
        &f("hello_interval_ms"),
        c.hello_interval_ms,
        "a time in ms",
        "[1, 3600000]",
    )?;
    within(
        &f("delete_period_k"),
        c.delete_period_k,
        "a factor",
        "[1, 255]",
    )?;
    within(&f("local_add_ttl"), c.local_add_ttl, "a TTL", "[0, 255]")?;
    within(
        &f("net_diameter"),
        c.net_diameter,
        "a hop count",
        "[1, 255]",
    )?;
    within(
        &f("node_traversal_time_ms"),
        c.node_traversal_time_ms,
        "a time in ms",
        "[1, 60000]",
    )?;
    within(
        &f("rerr_ratelimit"),
        c.rerr_ratelimit,
        "messages per second",
        "[1, 1000000]",
    )?;
    within(&f("rreq_retries"), c.rreq_retries, "a count", "[0, 16]")?;
    within(
        &f("rreq_ratelimit"),
        c.rreq_ratelimit,
        "messages per second",
        "[1, 1000000]",
    )?;
    within(
        &f("timeout_buffer"),
        c.timeout_buffer,
        "a count",
        "[0, 255]",
    )?;
    within(&f("ttl_start"), c.ttl_start, "a TTL", "[1, 255]")?;
    within(
        &f("ttl_increment"),
        c.ttl_increment,
        "a TTL step",
        "[1, 255]",
    )?;
    within(&f("ttl_threshold"), c.ttl_threshold, "a TTL", "[1, 255]")?;
    within(
        &f("buffer_packets"),
        c.buffer_packets,
        "a packet count",
        "[1, 1000000]",
    )?;
    within(
        &f("buffer_time_ms"),
        c.buffer_time_ms,
        "a time in ms",
        "[1, 3600000]",
    )?;
    within(&f("jitter_ms"), c.jitter_ms, "a time in ms", "[0, 1000]")?;
    Ok(())
}

/// What AODV cannot give: a route table other schemes or fields rely on.
fn aodv_combination(s: &Scenario) -> R {
    if s.routing.protocol != RoutingProtocol::Aodv {
        return Ok(());
    }
    if s.routing.paths > 1 {
        return Err(not_allowed(
            "routing.paths",
            s.routing.paths,
            "1 under routing.protocol = \"aodv\" (AODV keeps one route per destination; \
             reinforced paths need protocol = \"static\")",
        ));
    }
    if let Some(why) = crate::coding::registry::needs_static_routes(&s.scheme) {
        return Err(e(
            "routing.protocol",
            format!("\"aodv\" cannot serve {why}: use routing.protocol = \"static\""),
        ));
    }
    if let Some(i) = s.flows.iter().position(|f| f.route.is_some()) {
        return Err(e(
            format!("flows[{i}].route"),
            "an explicit route needs routing.protocol = \"static\" (AODV discovers its own)",
        ));
    }
    Ok(())
}

fn tcp(c: &TcpCfg) -> R {
    if !(1..=65535).contains(&c.mss_bytes) {
        return Err(not_allowed(
            "tcp.mss_bytes",
            c.mss_bytes,
            "a segment size in [1, 65535] bytes",
        ));
    }
    at_least(
        "tcp.initial_cwnd_segments",
        c.initial_cwnd_segments,
        1,
        "at least 1 segment",
    )?;
    positive("tcp.min_rto_s", c.min_rto_s, "seconds")?;
    positive("tcp.max_rto_s", c.max_rto_s, "seconds")?;
    if c.max_rto_s < c.min_rto_s {
        return Err(not_allowed(
            "tcp.max_rto_s",
            fnum(c.max_rto_s),
            &format!("at least min_rto_s = {} seconds", fnum(c.min_rto_s)),
        ));
    }
    if !(c.initial_rto_s.is_finite()
        && c.initial_rto_s >= c.min_rto_s
        && c.initial_rto_s <= c.max_rto_s)
    {
        return Err(not_allowed(
            "tcp.initial_rto_s",
            fnum(c.initial_rto_s),
            &format!(
                "a time in [min_rto_s = {}, max_rto_s = {}] seconds",
                fnum(c.min_rto_s),
                fnum(c.max_rto_s)
            ),
        ));
    }
    non_negative("tcp.clock_granularity_s", c.clock_granularity_s, "seconds")?;
    at_least(
        "tcp.delayed_ack_count",
        c.delayed_ack_count,
        1,
        "at least 1 segment per ACK",
    )?;
    positive(
        "tcp.delayed_ack_timeout_s",
        c.delayed_ack_timeout_s,
        "seconds",
    )?;
    if c.rcv_buffer_bytes < c.mss_bytes {
        return Err(not_allowed(
            "tcp.rcv_buffer_bytes",
            c.rcv_buffer_bytes,
            &format!("at least one segment (mss_bytes = {})", c.mss_bytes),
        ));
    }
    at_least(
        "tcp.dupack_threshold",
        c.dupack_threshold,
        1,
        "at least 1 duplicate ACK",
    )?;
    if !(c.few_alpha.is_finite() && c.few_alpha > 0.0 && c.few_alpha <= 1.0) {
        return Err(not_allowed(
            "tcp.few_alpha",
            fnum(c.few_alpha),
            "a fraction in (0, 1] (segments per RTT)",
        ));
    }
    at_least("tcp.ap_reuse_hops", c.ap_reuse_hops, 1, "at least 1 hop")?;
    if !(c.ap_smoothing.is_finite() && (0.0..1.0).contains(&c.ap_smoothing)) {
        return Err(not_allowed(
            "tcp.ap_smoothing",
            fnum(c.ap_smoothing),
            "an EWMA weight in [0, 1)",
        ));
    }
    if !(1..=10_000).contains(&c.ap_history) {
        return Err(not_allowed(
            "tcp.ap_history",
            c.ap_history,
            "an integer in [1, 10000] (RTT samples)",
        ));
    }
    non_negative("tcp.ap_cov_factor", c.ap_cov_factor, "")?;
    positive("tcp.ap_delay_bound_s", c.ap_delay_bound_s, "seconds")?;
    positive(
        "tcp.ap_initial_interval_s",
        c.ap_initial_interval_s,
        "seconds",
    )?;
    if let Some(r) = c.ap_link_rate_mbps {
        positive("tcp.ap_link_rate_mbps", r, "Mbit/s")?;
    }
    positive("tcp.nc_lambda", c.nc_lambda, "")?;
    if c.rack && !c.sack {
        return Err(not_allowed(
            "tcp.rack",
            c.rack,
            "false unless tcp.sack = true (RACK-TLP reads SACK information, RFC 8985 §4)",
        ));
    }
    positive("tcp.cubic_c", c.cubic_c, "segments per second cubed")?;
    within(
        "tcp.cubic_beta",
        c.cubic_beta,
        "a decrease factor",
        "(0, 1)",
    )?;
    if c.vegas_beta < c.vegas_alpha {
        return Err(not_allowed(
            "tcp.vegas_beta",
            c.vegas_beta,
            &format!("at least vegas_alpha ({}) segments", c.vegas_alpha),
        ));
    }
    Ok(())
}

fn node_cfg(f: &str, nd: &NodeCfg) -> R {
    finite(&format!("{f}.x"), nd.x, "a finite coordinate (metres)")?;
    finite(&format!("{f}.y"), nd.y, "a finite coordinate (metres)")?;
    let mut prev: Option<f64> = None;
    for (k, w) in nd.waypoints.iter().enumerate() {
        let wf = format!("{f}.waypoints[{k}]");
        non_negative(&format!("{wf}.t_s"), w.t_s, "seconds")?;
        if let Some(p) = prev {
            if w.t_s <= p {
                return Err(not_allowed(
                    &format!("{wf}.t_s"),
                    fnum(w.t_s),
                    &format!(
                        "a time after the previous waypoint's t_s = {} (times must increase)",
                        fnum(p)
                    ),
                ));
            }
        }
        finite(&format!("{wf}.x"), w.x, "a finite coordinate (metres)")?;
        finite(&format!("{wf}.y"), w.y, "a finite coordinate (metres)")?;
        prev = Some(w.t_s);
    }
    Ok(())
}

fn flow(f: &str, fl: &FlowCfg, s: &Scenario) -> R {
    let n = s.nodes.len();
    node(&format!("{f}.src"), fl.src, n)?;
    node(&format!("{f}.dst"), fl.dst, n)?;
    if fl.src == fl.dst {
        return Err(e(
            format!("{f}.dst"),
            format!(
                "{} is not allowed: a flow's destination must differ from its source (src = {})",
                fl.dst, fl.src
            ),
        ));
    }
    match fl.app {
        AppKind::Cbr => match fl.rate_kbps {
            None => {
                return Err(e(
                    format!("{f}.rate_kbps"),
                    "missing: app = \"cbr\" needs rate_kbps (kbit/s, > 0)",
                ))
            }
            Some(r) => positive(&format!("{f}.rate_kbps"), r, "kbit/s")?,
        },
        AppKind::Bulk => {
            if let Some(r) = fl.rate_kbps {
                return Err(e(
                    format!("{f}.rate_kbps"),
                    format!("{} is not allowed with app = \"bulk\" (a bulk source has no rate): remove it or use app = \"cbr\"", fnum(r)),
                ));
            }
        }
    }
    if !(1..=65507).contains(&fl.packet_bytes) {
        return Err(not_allowed(
            &format!("{f}.packet_bytes"),
            fl.packet_bytes,
            "a size in [1, 65507] bytes",
        ));
    }
    let d = s.simulation.duration_s;
    if !(fl.start_s.is_finite() && fl.start_s >= 0.0 && fl.start_s < d) {
        return Err(not_allowed(
            &format!("{f}.start_s"),
            fnum(fl.start_s),
            &format!("a time in [0, duration_s = {}) seconds", fnum(d)),
        ));
    }
    if let Some(stop) = fl.stop_s {
        if !(stop.is_finite() && stop > fl.start_s) {
            return Err(not_allowed(
                &format!("{f}.stop_s"),
                fnum(stop),
                &format!(
                    "a time after start_s = {} seconds (or no stop_s: run to the end)",
                    fnum(fl.start_s)
                ),
            ));
        }
    }
    if let Some(route) = &fl.route {
        let rf = format!("{f}.route");
        if route.len() < 2 {
            return Err(e(
                rf,
                format!(
                    "{route:?} is not allowed: expected a path [src, ..., dst] of at least 2 nodes"
                ),
            ));
        }
        for (k, &v) in route.iter().enumerate() {
            node(&format!("{rf}[{k}]"), v, n)?;
        }
        if route[0] != fl.src {
            return Err(e(
                format!("{rf}[0]"),
                format!(
                    "{} is not allowed: the route must start at the flow's source {}",
                    route[0], fl.src
                ),
            ));
        }
        let last = route.len() - 1;
        if route[last] != fl.dst {
            return Err(e(
                format!("{rf}[{last}]"),
                format!(
                    "{} is not allowed: the route must end at the flow's destination {}",
                    route[last], fl.dst
                ),
            ));
        }
        for k in 1..route.len() {
            if let Some(j) = route[..k].iter().position(|&v| v == route[k]) {
                return Err(e(
                    format!("{rf}[{k}]"),
                    format!(
                        "node {} is repeated (also at position {j}): a route visits each node once",
                        route[k]
                    ),
                ));
            }
        }
    }
    Ok(())
}
