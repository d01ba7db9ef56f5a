//! Pieces every builder assembles a scenario from: the base scenario with the common
//! options, node positions, TCP bulk flows and their start times, short numbers for names,
//! the spacing check of the fixed shapes, and CoMP's MAC and routing (`comp_stack`).

use super::options::Common;
use crate::check::fnum;
use crate::engine::{Rng, StreamPurpose};
use crate::scenario::schema::*;
use crate::scenario::ScenarioError;

pub(super) fn base(c: &Common, name: String) -> Scenario {
    let mut s = Scenario {
        name,
        ..Scenario::default()
    };
    s.simulation.seed = c.seed;
    s.simulation.duration_s = c.duration;
    s.simulation.measure_start_s = c.measure_start;
    s
}

pub(super) fn round_to(v: f64, digits: i32) -> f64 {
    let q = 10f64.powi(digits);
    let r = (v * q).round() / q;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// Short number for names: 200.0 -> "200", 130.16 -> "130.16".
pub(super) fn short(v: f64) -> String {
    let s = fnum(v);
    s.strip_suffix(".0").map(String::from).unwrap_or(s)
}

/// A Poisson arrival process from `start` at `rate` per second (exponential gaps), on
/// the builder's stream for start times; each time rounded to the microsecond.
pub(super) fn poisson_arrivals(c: &Common, rate: f64) -> impl Iterator<Item = f64> {
    let mut rng = Rng::stream(c.seed, 1, StreamPurpose::Builder);
    let mut t = c.start;
    std::iter::from_fn(move || {
        t += rng.exp1() / rate;
        Some(round_to(t, 6))
    })
}

/// Start times of `n` flows: `start + 0.01 k` (the anchor's stagger), or with
/// `start_spread` > 0 uniform in [start, start + spread), or with `arrival_rate` > 0
/// a Poisson arrival process from `start`. Rounded to the microsecond.
fn start_times(c: &Common, n: usize, arrival_rate: f64) -> Result<Vec<f64>, ScenarioError> {
    let mut rng = Rng::stream(c.seed, 1, StreamPurpose::Builder);
    let mut poisson = (arrival_rate > 0.0).then(|| poisson_arrivals(c, arrival_rate));
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let v = if let Some(p) = poisson.as_mut() {
            p.next().expect("an endless process")
        } else if c.start_spread > 0.0 {
            c.start + rng.uniform() * c.start_spread
        } else {
            c.start + 0.01 * k as f64
        };
        let v = round_to(v, 6);
        if v >= c.duration {
            let field = if arrival_rate > 0.0 {
                "arrival_rate"
            } else if c.start_spread > 0.0 {
                "start_spread"
            } else {
                "start"
            };
            return Err(ScenarioError::new(
                field,
                format!(
                    "flow {k} would start at {} s, not before the end of the simulation (duration = {} s): use a longer duration or earlier starts",
                    fnum(v),
                    fnum(c.duration)
                ),
            ));
        }
        out.push(v);
    }
    Ok(out)
}

pub(super) fn tcp_flow(src: usize, dst: usize, start_s: f64) -> FlowCfg {
    FlowCfg {
        src: src as u32,
        dst: dst as u32,
        transport: Transport::Tcp,
        app: AppKind::Bulk,
        rate_kbps: None,
        packet_bytes: 1000,
        start_s,
        stop_s: None,
        route: None,
    }
}

pub(super) fn set_nodes(s: &mut Scenario, pos: &[(f64, f64)]) {
    s.nodes = pos
        .iter()
        .map(|&(x, y)| NodeCfg {
            x,
            y,
            waypoints: Vec::new(),
        })
        .collect();
}

pub(super) fn add_flows(
    s: &mut Scenario,
    c: &Common,
    pairs: &[(usize, usize)],
    arrival_rate: f64,
) -> Result<(), ScenarioError> {
    let starts = start_times(c, pairs.len(), arrival_rate)?;
    s.flows = pairs
        .iter()
        .zip(starts)
        .map(|(&(a, b), t)| tcp_flow(a, b, t))
        .collect();
    Ok(())
}

pub(super) fn range_of(s: &Scenario) -> f64 {
    s.channel.rx_range_m
}

/// Every rim/chain distance must be within range for the topology to be connected.
pub(super) fn check_spacing(spacing: f64, range: f64, what: &str) -> Result<(), ScenarioError> {
    if spacing > range {
        return Err(ScenarioError::new(
            "spacing",
            format!(
                "{} is not allowed: expected at most the {} m receive range ({what})",
                fnum(spacing),
                fnum(range)
            ),
        ));
    }
    Ok(())
}

/// CoMP's MAC and routing over ns-2.33's defaults: 802.11b at 1 Mb/s data and basic
/// rate, long preamble, RTS/CTS off, no MAC retransmissions, a 50-packet queue, ETX
/// routing over `paths` reinforced paths.
pub(super) fn comp_stack(s: &mut Scenario, paths: u32) {
    let m = &mut s.mac;
    m.standard = Standard::B;
    m.data_rate_mbps = 1.0;
    m.basic_rate_mbps = 1.0;
    m.preamble = Preamble::Long;
    m.rts_threshold_bytes = 65535;
    m.retransmissions = false;
    m.queue_packets = 50;
    s.routing.metric = RouteMetric::Etx;
    s.routing.paths = paths;
}
