//! Canonical TOML output: every field written (defaults included) in a fixed,
//! readable order. Optional fields that are not set are written as comments saying
//! what applies instead, so the text parses back to an equal Scenario.

use super::schema::*;
use super::validate::{default_cw, std_name};
use crate::check::{name, toml_float, toml_string as s};
use std::fmt::Write;

use toml_float as f;

fn kv(out: &mut String, key: &str, value: impl AsRef<str>) {
    let _ = writeln!(out, "{key} = {}", value.as_ref());
}

/// The scenario as TOML; `parse_toml(&to_toml(s))` gives back `s` (for any valid `s`).
pub fn to_toml(sc: &Scenario) -> String {
    let mut o = String::new();
    o.push_str(
        "# ncmesh scenario: every field written, defaults included (docs/scenario-format.md)\n",
    );
    kv(&mut o, "name", s(&sc.name));
    if !sc.preset.is_none() {
        kv(&mut o, "preset", name(&sc.preset));
    }

    let c = &sc.simulation;
    o.push_str("\n[simulation]\n");
    kv(&mut o, "duration_s", f(c.duration_s));
    kv(&mut o, "seed", c.seed.to_string());
    kv(&mut o, "measure_start_s", f(c.measure_start_s));
    match c.measure_end_s {
        Some(v) => kv(&mut o, "measure_end_s", f(v)),
        None => o.push_str("# measure_end_s: not set, the window ends at duration_s\n"),
    }
    kv(&mut o, "series_interval_s", f(c.series_interval_s));
    kv(&mut o, "payload_bytes", c.payload_bytes.to_string());
    kv(&mut o, "mobility_update_s", f(c.mobility_update_s));

    let c = &sc.channel;
    o.push_str("\n[channel]\n");
    kv(&mut o, "model", name(&c.model));
    o.push_str("# reception: \"ber\" (SINR chunks and BER curves, as ns-3) or \"capture\" (SINR threshold, as ns-2)\n");
    kv(&mut o, "reception", name(&c.reception));
    kv(&mut o, "preamble_detection_db", f(c.preamble_detection_db));
    o.push_str("# range model\n");
    kv(&mut o, "rx_range_m", f(c.rx_range_m));
    kv(&mut o, "cs_range_m", f(c.cs_range_m));
    kv(&mut o, "interference_range_m", f(c.interference_range_m));
    o.push_str("# physical models (tworay, shadowing)\n");
    kv(&mut o, "frequency_hz", f(c.frequency_hz));
    kv(&mut o, "antenna_height_m", f(c.antenna_height_m));
    kv(&mut o, "tx_power_w", f(c.tx_power_w));
    kv(&mut o, "rx_threshold_w", f(c.rx_threshold_w));
    kv(&mut o, "cs_threshold_w", f(c.cs_threshold_w));
    kv(&mut o, "noise_w", f(c.noise_w));
    kv(&mut o, "capture_threshold_db", f(c.capture_threshold_db));
    kv(&mut o, "path_loss_exponent", f(c.path_loss_exponent));
    kv(&mut o, "shadowing_sigma_db", f(c.shadowing_sigma_db));
    kv(&mut o, "reference_distance_m", f(c.reference_distance_m));
    kv(&mut o, "fading", name(&c.fading));
    kv(&mut o, "propagation_speed_mps", f(c.propagation_speed_mps));
    o.push_str("# link table (model = \"linktable\"): delivery probability a->b and b->a\n");
    if c.links.is_empty() {
        kv(&mut o, "links", "[]");
    } else {
        o.push_str("links = [\n");
        for l in &c.links {
            let _ = writeln!(
                o,
                "  {{ a = {}, b = {}, p_ab = {}, p_ba = {} }},",
                l.a,
                l.b,
                f(l.p_ab),
                f(l.p_ba)
            );
        }
        o.push_str("]\n");
    }

    if sc.loss.is_empty() {
        o.push_str("\n# no [[loss]] entries: no extra frame loss\n");
    }
    for (i, l) in sc.loss.iter().enumerate() {
        let _ = writeln!(o, "\n[[loss]]  # loss[{i}]");
        let links: Vec<String> = l.links.iter().map(|[a, b]| format!("[{a}, {b}]")).collect();
        if l.links.is_empty() {
            o.push_str("# links = []: every link\n");
        }
        kv(&mut o, "links", format!("[{}]", links.join(", ")));
        kv(&mut o, "rate", f(l.rate));
        if l.schedule.is_empty() {
            kv(&mut o, "schedule", "[]");
        } else {
            o.push_str("schedule = [\n");
            for p in &l.schedule {
                match p.to_s {
                    Some(to) => {
                        let _ = writeln!(
                            o,
                            "  {{ from_s = {}, to_s = {}, rate = {} }},",
                            f(p.from_s),
                            f(to),
                            f(p.rate)
                        );
                    }
                    None => {
                        let _ = writeln!(
                            o,
                            "  {{ from_s = {}, rate = {} }},  # open-ended",
                            f(p.from_s),
                            f(p.rate)
                        );
                    }
                }
            }
            o.push_str("]\n");
        }
        kv(&mut o, "frames", name(&l.frames));
    }

    let c = &sc.mac;
    o.push_str("\n[mac]\n");
    kv(&mut o, "standard", name(&c.standard));
    kv(&mut o, "data_rate_mbps", f(c.data_rate_mbps));
    kv(&mut o, "basic_rate_mbps", f(c.basic_rate_mbps));
    kv(&mut o, "preamble", name(&c.preamble));
    kv(
        &mut o,
        "rts_threshold_bytes",
        c.rts_threshold_bytes.to_string(),
    );
    kv(&mut o, "short_retry_limit", c.short_retry_limit.to_string());
    kv(&mut o, "long_retry_limit", c.long_retry_limit.to_string());
    kv(&mut o, "retransmissions", c.retransmissions.to_string());
    kv(
        &mut o,
        "cw_reset_after_drop",
        c.cw_reset_after_drop.to_string(),
    );
    kv(&mut o, "queue_packets", c.queue_packets.to_string());
    let (dmin, dmax) = default_cw(c.standard);
    match c.cw_min {
        Some(v) => kv(&mut o, "cw_min", v.to_string()),
        None => {
            let _ = writeln!(o, "# cw_min: not set, {dmin} for {}", std_name(c.standard));
        }
    }
    match c.cw_max {
        Some(v) => kv(&mut o, "cw_max", v.to_string()),
        None => {
            let _ = writeln!(o, "# cw_max: not set, {dmax} for {}", std_name(c.standard));
        }
    }

    let c = &sc.routing;
    o.push_str("\n[routing]\n");
    kv(&mut o, "protocol", name(&c.protocol));
    kv(&mut o, "metric", name(&c.metric));
    kv(&mut o, "paths", c.paths.to_string());
    kv(&mut o, "ttl", c.ttl.to_string());
    kv(&mut o, "min_delivery", f(c.min_delivery));
    kv(&mut o, "spread", name(&c.spread));
    kv(&mut o, "reinforce", name(&c.reinforce));
    kv(&mut o, "follow_mobility", c.follow_mobility.to_string());
    o.push_str("\n[routing.aodv]\n");
    crate::check::emit_fields(&c.aodv, &mut |k, v| kv(&mut o, k, v));

    let c = &sc.tcp;
    o.push_str("\n[tcp]\n");
    kv(&mut o, "variant", name(&c.variant));
    kv(&mut o, "sack", c.sack.to_string());
    kv(&mut o, "mss_bytes", c.mss_bytes.to_string());
    kv(
        &mut o,
        "initial_cwnd_segments",
        c.initial_cwnd_segments.to_string(),
    );
    kv(&mut o, "min_rto_s", f(c.min_rto_s));
    kv(&mut o, "initial_rto_s", f(c.initial_rto_s));
    kv(&mut o, "max_rto_s", f(c.max_rto_s));
    kv(&mut o, "clock_granularity_s", f(c.clock_granularity_s));
    kv(&mut o, "rtt_sampling", name(&c.rtt_sampling));
    kv(&mut o, "delayed_ack", c.delayed_ack.to_string());
    kv(&mut o, "delayed_ack_count", c.delayed_ack_count.to_string());
    kv(&mut o, "delayed_ack_timeout_s", f(c.delayed_ack_timeout_s));
    kv(&mut o, "rcv_buffer_bytes", c.rcv_buffer_bytes.to_string());
    kv(&mut o, "dupack_threshold", c.dupack_threshold.to_string());
    kv(&mut o, "limited_transmit", c.limited_transmit.to_string());
    kv(&mut o, "newreno_careful", c.newreno_careful.to_string());
    kv(&mut o, "prr", c.prr.to_string());
    kv(&mut o, "rack", c.rack.to_string());
    o.push_str("# variant = \"few\"\n");
    kv(&mut o, "few_alpha", f(c.few_alpha));
    o.push_str("# variant = \"ap\" and \"nc-aware\"\n");
    kv(&mut o, "ap_reuse_hops", c.ap_reuse_hops.to_string());
    kv(&mut o, "ap_smoothing", f(c.ap_smoothing));
    kv(&mut o, "ap_history", c.ap_history.to_string());
    kv(&mut o, "ap_cov_factor", f(c.ap_cov_factor));
    kv(&mut o, "ap_variation", name(&c.ap_variation));
    kv(&mut o, "ap_delay_bound_s", f(c.ap_delay_bound_s));
    kv(&mut o, "ap_initial_interval_s", f(c.ap_initial_interval_s));
    match c.ap_link_rate_mbps {
        Some(v) => kv(&mut o, "ap_link_rate_mbps", f(v)),
        None => o.push_str("# ap_link_rate_mbps: not set, the MAC's data rate\n"),
    }
    o.push_str("# variant = \"nc-aware\"\n");
    kv(&mut o, "nc_lambda", f(c.nc_lambda));
    o.push_str("# variant = \"vegas\" (segments)\n");
    kv(&mut o, "vegas_alpha", c.vegas_alpha.to_string());
    kv(&mut o, "vegas_beta", c.vegas_beta.to_string());
    kv(&mut o, "vegas_gamma", c.vegas_gamma.to_string());
    o.push_str("# variant = \"cubic\"\n");
    kv(&mut o, "cubic_c", f(c.cubic_c));
    kv(&mut o, "cubic_beta", f(c.cubic_beta));
    kv(
        &mut o,
        "cubic_fast_convergence",
        c.cubic_fast_convergence.to_string(),
    );
    kv(&mut o, "cubic_hystart", c.cubic_hystart.to_string());

    o.push_str("\n[scheme]\n");
    crate::coding::registry::emit(&sc.scheme, &mut o, s);

    if sc.nodes.is_empty() {
        o.push_str("\n# no [[nodes]]\n");
    }
    for (i, nd) in sc.nodes.iter().enumerate() {
        let _ = writeln!(o, "\n[[nodes]]  # node {i}");
        kv(&mut o, "x", f(nd.x));
        kv(&mut o, "y", f(nd.y));
        if !nd.waypoints.is_empty() {
            o.push_str("waypoints = [\n");
            for w in &nd.waypoints {
                let _ = writeln!(
                    o,
                    "  {{ t_s = {}, x = {}, y = {} }},",
                    f(w.t_s),
                    f(w.x),
                    f(w.y)
                );
            }
            o.push_str("]\n");
        }
    }

    if sc.flows.is_empty() {
        o.push_str("\n# no [[flows]]\n");
    }
    for (i, fl) in sc.flows.iter().enumerate() {
        let _ = writeln!(o, "\n[[flows]]  # flow {i}");
        kv(&mut o, "src", fl.src.to_string());
        kv(&mut o, "dst", fl.dst.to_string());
        kv(&mut o, "transport", name(&fl.transport));
        kv(&mut o, "app", name(&fl.app));
        match fl.rate_kbps {
            Some(v) => kv(&mut o, "rate_kbps", f(v)),
            None => o.push_str("# rate_kbps: not set (only app = \"cbr\" has a rate)\n"),
        }
        kv(&mut o, "packet_bytes", fl.packet_bytes.to_string());
        kv(&mut o, "start_s", f(fl.start_s));
        match fl.stop_s {
            Some(v) => kv(&mut o, "stop_s", f(v)),
            None => o.push_str("# stop_s: not set, sends until the end of the simulation\n"),
        }
        match &fl.route {
            Some(r) => kv(
                &mut o,
                "route",
                format!(
                    "[{}]",
                    r.iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            None => o.push_str("# route: not set, the routing protocol chooses the path\n"),
        }
    }
    o
}
