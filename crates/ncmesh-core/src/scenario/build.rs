//! Scenario builders: complete scenarios (schema defaults, node positions in metres,
//! flows, a name) from a kind and a few options.
//!
//! Geometry is chosen for the default range channel (receive = carrier-sense =
//! interference range 250 m; a link exists when the distance is <= 250 m). The
//! topologies of seed 000 (Alice-and-Bob, X, cross, wheel, grid, butterfly) follow its
//! Section VI-A and Fig. 8; lost values (radius, terrain) are parameters with the
//! defaults documented in docs/scenario-format.md.
//!
//! Random draws (grid pairs and jitter, random positions, topology pairs) come from
//! `Rng::stream(seed, 0, Builder)`; random flow start times from
//! `Rng::stream(seed, 1, Builder)`, so changing the timing never moves a node.

use super::check::fnum;
use super::schema::*;
use super::validate::validate;
use super::ScenarioError;
use crate::engine::{Rng, StreamPurpose};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};

/// Builder options: option name -> JSON value, as the CLI passes them
/// (`--hops 4 --spacing 200 --file path --seed 2` -> {"hops": 4, "spacing": 200, ...}).
///
/// Names are matched after replacing '-' with '_' (so `start-spread` = `start_spread`);
/// a null value counts as not given. Numbers may also be given as numeric strings,
/// booleans as "true"/"false".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BuildOptions {
    pub values: BTreeMap<String, Value>,
}

impl BuildOptions {
    pub fn new() -> Self {
        Self::default()
    }
    /// Builder style: `BuildOptions::new().with("hops", 6).with("spacing", 180.0)`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.set(key, value);
        self
    }
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.values.insert(key.to_string(), value.into());
    }
    pub fn from_map<K: Into<String>, I: IntoIterator<Item = (K, Value)>>(items: I) -> Self {
        BuildOptions {
            values: items.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        }
    }
}

impl From<BTreeMap<String, Value>> for BuildOptions {
    fn from(values: BTreeMap<String, Value>) -> Self {
        BuildOptions { values }
    }
}

impl From<serde_json::Map<String, Value>> for BuildOptions {
    fn from(m: serde_json::Map<String, Value>) -> Self {
        BuildOptions {
            values: m.into_iter().collect(),
        }
    }
}

impl From<std::collections::HashMap<String, Value>> for BuildOptions {
    fn from(m: std::collections::HashMap<String, Value>) -> Self {
        BuildOptions {
            values: m.into_iter().collect(),
        }
    }
}

impl<K: Into<String>> FromIterator<(K, Value)> for BuildOptions {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        Self::from_map(iter)
    }
}

const KINDS: &[&str] = &[
    "chain",
    "x",
    "alice-bob",
    "cross",
    "wheel",
    "grid",
    "butterfly",
    "random",
    "topology",
];

/// The builder kinds `build` accepts.
pub fn build_kinds() -> &'static [&'static str] {
    KINDS
}

/// Options every builder accepts.
const COMMON: &[&str] = &["seed", "duration", "start", "start_spread", "measure_start"];

/// Options of each kind, besides COMMON.
fn kind_options(kind: &str) -> &'static [&'static str] {
    match kind {
        "chain" => &["hops", "spacing"],
        "alice-bob" => &["spacing"],
        "x" | "cross" => &["spacing", "routes"],
        "wheel" => &["flows", "spacing"],
        "grid" => &[
            "rows",
            "cols",
            "spacing",
            "flows",
            "min_hops",
            "jitter",
            "arrival_rate",
        ],
        "butterfly" => &["routes"],
        "random" => &["nodes", "area", "flows", "min_hops"],
        "topology" => &["file", "tq_map", "flows", "min_hops", "max_nodes"],
        _ => &[],
    }
}

/// Build a scenario of the given kind (see [`build_kinds`]); the result is validated.
pub fn build(kind: &str, opts: &BuildOptions) -> Result<Scenario, ScenarioError> {
    let k = kind.trim().to_ascii_lowercase().replace('_', "-");
    let k = match k.as_str() {
        "alicebob" | "alice-and-bob" => "alice-bob".to_string(),
        _ => k,
    };
    let Some(&kind) = KINDS.iter().find(|&&x| x == k) else {
        return Err(ScenarioError::new(
            "kind",
            format!(
                "\"{kind}\" is not a builder kind: expected one of {}",
                KINDS.join(", ")
            ),
        ));
    };
    let o = Opts::new(kind, opts)?;
    let c = common(&o)?;
    let sc = match kind {
        "chain" => chain(&o, &c)?,
        "x" => x_topology(&o, &c)?,
        "alice-bob" => alice_bob(&o, &c)?,
        "cross" => cross(&o, &c)?,
        "wheel" => wheel(&o, &c)?,
        "grid" => grid(&o, &c)?,
        "butterfly" => butterfly(&o, &c)?,
        "random" => random(&o, &c)?,
        "topology" => topology(&o, &c)?,
        _ => unreachable!(),
    };
    validate(&sc)?;
    Ok(sc)
}

// ---------------------------------------------------------------- options

struct Opts {
    vals: BTreeMap<String, Value>,
}

fn show(v: &Value) -> String {
    v.to_string()
}

impl Opts {
    fn new(kind: &'static str, opts: &BuildOptions) -> Result<Opts, ScenarioError> {
        let allowed: Vec<&str> = kind_options(kind)
            .iter()
            .chain(COMMON.iter())
            .copied()
            .collect();
        let mut vals = BTreeMap::new();
        for (k, v) in &opts.values {
            if v.is_null() {
                continue;
            }
            let key = k.trim().trim_start_matches('-').replace('-', "_");
            if !allowed.contains(&key.as_str()) {
                return Err(ScenarioError::new(
                    key.clone(),
                    format!(
                        "unknown option '{key}' for builder '{kind}'; allowed: {}",
                        allowed.join(", ")
                    ),
                ));
            }
            vals.insert(key, v.clone());
        }
        Ok(Opts { vals })
    }

    fn has(&self, k: &str) -> bool {
        self.vals.contains_key(k)
    }

    fn number(&self, k: &str) -> Result<Option<f64>, ScenarioError> {
        let Some(v) = self.vals.get(k) else {
            return Ok(None);
        };
        let x = match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(ScenarioError::new(
                k,
                format!("{} is not allowed: expected a finite number", show(v)),
            )),
        }
    }

    /// A number checked by `ok`, `what` describing the allowed values.
    fn f64_where(
        &self,
        k: &str,
        default: f64,
        ok: impl Fn(f64) -> bool,
        what: &str,
    ) -> Result<f64, ScenarioError> {
        match self.number(k)? {
            None => Ok(default),
            Some(x) if ok(x) => Ok(x),
            Some(_) => Err(ScenarioError::new(
                k,
                format!("{} is not allowed: expected {what}", show(&self.vals[k])),
            )),
        }
    }

    fn positive(&self, k: &str, default: f64, unit: &str) -> Result<f64, ScenarioError> {
        self.f64_where(k, default, |x| x > 0.0, &format!("a number > 0 ({unit})"))
    }

    fn non_negative(&self, k: &str, default: f64, unit: &str) -> Result<f64, ScenarioError> {
        self.f64_where(k, default, |x| x >= 0.0, &format!("a number >= 0 ({unit})"))
    }

    fn int(&self, k: &str, default: u64, min: u64, max: u64) -> Result<u64, ScenarioError> {
        let Some(v) = self.vals.get(k) else {
            return Ok(default);
        };
        let bad = || {
            ScenarioError::new(
                k,
                format!(
                    "{} is not allowed: expected an integer in [{min}, {max}]",
                    show(v)
                ),
            )
        };
        let x: Option<i128> = match v {
            Value::Number(n) => n
                .as_u64()
                .map(|u| u as i128)
                .or_else(|| n.as_i64().map(|i| i as i128))
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 1e18)
                        .map(|f| f as i128)
                }),
            Value::String(s) => s.trim().parse::<i128>().ok(),
            _ => None,
        };
        match x {
            Some(x) if x >= min as i128 && x <= max as i128 => Ok(x as u64),
            _ => Err(bad()),
        }
    }

    fn string(&self, k: &str) -> Result<Option<String>, ScenarioError> {
        match self.vals.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(ScenarioError::new(
                k,
                format!("{} is not allowed: expected a string", show(v)),
            )),
        }
    }

    fn choice(
        &self,
        k: &str,
        default: &'static str,
        allowed: &[&'static str],
    ) -> Result<&'static str, ScenarioError> {
        match self.string(k)? {
            None => Ok(default),
            Some(s) => allowed
                .iter()
                .find(|&&a| a == s.trim())
                .copied()
                .ok_or_else(|| {
                    ScenarioError::new(
                        k,
                        format!(
                            "\"{s}\" is not allowed: expected one of {}",
                            allowed.join(", ")
                        ),
                    )
                }),
        }
    }
}

struct Common {
    seed: u64,
    duration: f64,
    start: f64,
    start_spread: f64,
    measure_start: f64,
}

fn common(o: &Opts) -> Result<Common, ScenarioError> {
    let seed = o.int("seed", 1, 0, i64::MAX as u64)?;
    let duration = o.positive("duration", 60.0, "seconds")?;
    let measure_start = if o.has("measure_start") {
        o.f64_where(
            "measure_start",
            0.0,
            |x| x >= 0.0 && x < duration,
            &format!("a time in [0, duration = {}) seconds", fnum(duration)),
        )?
    } else {
        // 10 s as in the anchor; shorter runs keep the first sixth as warm-up.
        (10.0f64).min(duration / 6.0)
    };
    let start = o.f64_where(
        "start",
        1.0,
        |x| x >= 0.0 && x < duration,
        &format!("a time in [0, duration = {}) seconds", fnum(duration)),
    )?;
    let start_spread = o.non_negative("start_spread", 0.0, "seconds")?;
    Ok(Common {
        seed,
        duration,
        start,
        start_spread,
        measure_start,
    })
}

fn base(c: &Common, name: String) -> Scenario {
    let mut s = Scenario {
        name,
        ..Scenario::default()
    };
    s.simulation.seed = c.seed;
    s.simulation.duration_s = c.duration;
    s.simulation.measure_start_s = c.measure_start;
    s
}

fn round_to(v: f64, digits: i32) -> f64 {
    let q = 10f64.powi(digits);
    let r = (v * q).round() / q;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// Short number for names: 200.0 -> "200", 130.16 -> "130.16".
fn short(v: f64) -> String {
    let s = fnum(v);
    s.strip_suffix(".0").map(String::from).unwrap_or(s)
}

/// Start times of `n` flows: `start + 0.01 k` (the anchor's stagger), or with
/// `start_spread` > 0 uniform in [start, start + spread), or with `arrival_rate` > 0
/// a Poisson arrival process from `start`. Rounded to the microsecond.
fn start_times(c: &Common, n: usize, arrival_rate: f64) -> Result<Vec<f64>, ScenarioError> {
    let mut rng = Rng::stream(c.seed, 1, StreamPurpose::Builder);
    let mut t = c.start;
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let v = if arrival_rate > 0.0 {
            t += rng.exp1() / arrival_rate;
            t
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

fn tcp_flow(src: usize, dst: usize, start_s: f64) -> FlowCfg {
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

fn set_nodes(s: &mut Scenario, pos: &[(f64, f64)]) {
    s.nodes = pos
        .iter()
        .map(|&(x, y)| NodeCfg {
            x,
            y,
            waypoints: Vec::new(),
        })
        .collect();
}

fn add_flows(
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

// ---------------------------------------------------------------- geometry

pub(crate) fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// Neighbour lists of the unit-disk graph: i ~ j when dist <= range.
pub(crate) fn range_adjacency(pos: &[(f64, f64)], range: f64) -> Vec<Vec<usize>> {
    let n = pos.len();
    let mut adj = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            if dist(pos[i], pos[j]) <= range {
                adj[i].push(j);
                adj[j].push(i);
            }
        }
    }
    adj
}

const UNREACHABLE: u32 = u32::MAX;

fn bfs(adj: &[Vec<usize>], src: usize) -> Vec<u32> {
    let mut d = vec![UNREACHABLE; adj.len()];
    let mut q = VecDeque::new();
    d[src] = 0;
    q.push_back(src);
    while let Some(u) = q.pop_front() {
        for &v in &adj[u] {
            if d[v] == UNREACHABLE {
                d[v] = d[u] + 1;
                q.push_back(v);
            }
        }
    }
    d
}

/// Hop counts between all pairs (UNREACHABLE when disconnected).
pub(crate) fn hop_matrix(adj: &[Vec<usize>]) -> Vec<Vec<u32>> {
    (0..adj.len()).map(|i| bfs(adj, i)).collect()
}

fn is_connected(adj: &[Vec<usize>]) -> bool {
    adj.is_empty() || bfs(adj, 0).iter().all(|&d| d != UNREACHABLE)
}

/// `flows` distinct ordered (src, dst) pairs among `cand`, at least `min_hops` hops
/// apart, drawn uniformly without replacement from all such pairs.
fn pick_pairs(
    rng: &mut Rng,
    cand: &[usize],
    hops: &[Vec<u32>],
    flows: usize,
    min_hops: u32,
) -> Result<Vec<(usize, usize)>, ScenarioError> {
    let mut eligible = Vec::new();
    for &s in cand {
        for &d in cand {
            let h = hops[s][d];
            if s != d && h != UNREACHABLE && h >= min_hops {
                eligible.push((s, d));
            }
        }
    }
    if eligible.len() < flows {
        return Err(ScenarioError::new(
            "flows",
            format!(
                "{flows} is not possible: only {} ordered node pairs are connected and at least {min_hops} hops apart (lower flows or min_hops, or enlarge the topology)",
                eligible.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(flows);
    for _ in 0..flows {
        let i = rng.below_incl((eligible.len() - 1) as u32) as usize;
        out.push(eligible.swap_remove(i));
    }
    Ok(out)
}

fn range_of(s: &Scenario) -> f64 {
    s.channel.rx_range_m
}

/// Every rim/chain distance must be within range for the topology to be connected.
fn check_spacing(spacing: f64, range: f64, what: &str) -> Result<(), ScenarioError> {
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

// ---------------------------------------------------------------- builders

/// `chain`: nodes 0..=hops on the x axis, `spacing` apart; one TCP bulk flow 0 -> hops.
fn chain(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let hops = o.int("hops", 4, 1, 1000)? as usize;
    let sp = o.positive("spacing", 200.0, "metres")?;
    let mut s = base(c, format!("chain-{hops}hop-{}m", short(sp)));
    check_spacing(sp, range_of(&s), "neighbours must hear each other")?;
    let pos: Vec<(f64, f64)> = (0..=hops).map(|i| (i as f64 * sp, 0.0)).collect();
    set_nodes(&mut s, &pos);
    add_flows(&mut s, c, &[(0, hops)], 0.0)?;
    Ok(s)
}

/// The anchor's X / cross positions: n0 west, n1 centre, n2 east, n3 north, n4 south.
fn five_star(r: f64) -> Vec<(f64, f64)> {
    vec![(-r, 0.0), (0.0, 0.0), (r, 0.0), (0.0, r), (0.0, -r)]
}

/// `x`: the anchor's X (chain_tcp.py --topo x): flows west -> east and north -> south.
fn x_topology(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let r = o.positive("spacing", 200.0, "metres")?;
    let mut s = base(c, format!("x-{}m", short(r)));
    check_spacing(r, range_of(&s), "every node must reach the centre")?;
    set_nodes(&mut s, &five_star(r));
    add_flows(&mut s, c, &[(0, 2), (3, 4)], 0.0)?;
    through_centre(o, &mut s)?;
    Ok(s)
}

/// `alice-bob`: A (west), relay, B (east); flows A -> B and B -> A.
fn alice_bob(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let r = o.positive("spacing", 200.0, "metres")?;
    let mut s = base(c, format!("alice-bob-{}m", short(r)));
    check_spacing(r, range_of(&s), "A and B must reach the relay")?;
    set_nodes(&mut s, &[(-r, 0.0), (0.0, 0.0), (r, 0.0)]);
    add_flows(&mut s, c, &[(0, 2), (2, 0)], 0.0)?;
    Ok(s)
}

/// `cross`: the X's five nodes, four flows each to the opposite node through the
/// centre: W->E, N->S, E->W, S->N. Default radius 150 m: rim neighbours (212 m apart)
/// hear each other, opposite nodes (300 m) do not.
fn cross(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let r = o.positive("spacing", 150.0, "metres")?;
    let mut s = base(c, format!("cross-{}m", short(r)));
    check_spacing(r, range_of(&s), "every node must reach the centre")?;
    set_nodes(&mut s, &five_star(r));
    add_flows(&mut s, c, &[(0, 2), (3, 4), (2, 0), (4, 3)], 0.0)?;
    through_centre(o, &mut s)?;
    Ok(s)
}

/// With `routes = "explicit"` (default) every flow of a five-node star goes through the
/// centre (node 1), where seed 000 codes; at radii where the rim nodes hear each other
/// shortest paths would tie with detours over the rim.
fn through_centre(o: &Opts, s: &mut Scenario) -> Result<(), ScenarioError> {
    if o.choice("routes", "explicit", &["explicit", "auto"])? == "explicit" {
        for f in &mut s.flows {
            f.route = Some(vec![f.src, 1, f.dst]);
        }
    }
    Ok(())
}

/// Default wheel radius for `n` rim nodes and receive range `range`: the middle of the
/// interval where opposite rim nodes are out of range (2R > range) and every other
/// rim pair is in range (2R cos(pi/n) <= range), rounded to the millimetre.
pub(crate) fn wheel_radius(n: usize, range: f64) -> f64 {
    let lo = range / 2.0;
    let hi = if n > 2 {
        (range / (2.0 * (std::f64::consts::PI / n as f64).cos())).min(range)
    } else {
        range
    };
    round_to((lo + hi) / 2.0, 3)
}

/// `wheel`: centre relay (node 0) and `flows` rim nodes (1..=flows, counter-clockwise
/// from east); each rim node sends to the diametrically opposite one.
fn wheel(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let n = o.int("flows", 8, 2, 64)? as usize;
    if n % 2 == 1 {
        return Err(ScenarioError::new(
            "flows",
            format!("{n} is not allowed: expected an even number in [2, 64] (each rim node sends to the opposite one)"),
        ));
    }
    let range = ChannelCfg::default().rx_range_m;
    let r = o.positive("spacing", wheel_radius(n, range), "metres")?;
    let mut s = base(c, format!("wheel-{n}flows-{}m", short(r)));
    check_spacing(r, range_of(&s), "every rim node must reach the centre")?;
    let mut pos = vec![(0.0, 0.0)];
    for k in 0..n {
        let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
        pos.push((round_to(r * a.cos(), 6), round_to(r * a.sin(), 6)));
    }
    set_nodes(&mut s, &pos);
    let pairs: Vec<(usize, usize)> = (0..n).map(|k| (1 + k, 1 + (k + n / 2) % n)).collect();
    add_flows(&mut s, c, &pairs, 0.0)?;
    Ok(s)
}

/// `grid`: rows x cols nodes, node r*cols + c at (c*spacing, r*spacing) (+ uniform
/// jitter in [-jitter, jitter] per axis); `flows` random pairs >= min_hops apart.
fn grid(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let rows = o.int("rows", 4, 1, 100)? as usize;
    let cols = o.int("cols", 4, 1, 100)? as usize;
    if rows * cols < 2 {
        return Err(ScenarioError::new(
            "cols",
            "1 is not allowed with rows = 1: a grid needs at least 2 nodes",
        ));
    }
    let sp = o.positive("spacing", 200.0, "metres")?;
    let flows = o.int("flows", 4, 1, 10_000)? as usize;
    let min_hops = o.int("min_hops", 2, 1, 1000)? as u32;
    let jitter = o.f64_where(
        "jitter",
        0.0,
        |x| x >= 0.0 && x < sp / 2.0,
        &format!("a number in [0, spacing/2 = {}) metres", fnum(sp / 2.0)),
    )?;
    let rate = o.non_negative("arrival_rate", 0.0, "flows per second")?;
    let mut s = base(
        c,
        format!(
            "grid-{rows}x{cols}-{}m-{flows}flows-seed{}",
            short(sp),
            c.seed
        ),
    );
    let range = range_of(&s);
    if jitter == 0.0 {
        check_spacing(sp, range, "grid neighbours must hear each other")?;
    }
    let mut rng = Rng::stream(c.seed, 0, StreamPurpose::Builder);
    let mut found = None;
    for _ in 0..1000 {
        let mut pos = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            for cc in 0..cols {
                let (mut x, mut y) = (cc as f64 * sp, r as f64 * sp);
                if jitter > 0.0 {
                    x += (2.0 * rng.uniform() - 1.0) * jitter;
                    y += (2.0 * rng.uniform() - 1.0) * jitter;
                }
                pos.push((round_to(x, 3), round_to(y, 3)));
            }
        }
        let adj = range_adjacency(&pos, range);
        if is_connected(&adj) {
            found = Some((pos, adj));
            break;
        }
        if jitter == 0.0 {
            break;
        }
    }
    let Some((pos, adj)) = found else {
        return Err(ScenarioError::new(
            if jitter > 0.0 { "jitter" } else { "spacing" },
            format!("no connected grid found in 1000 draws (spacing {} m, jitter {} m, range {} m): lower them", fnum(sp), fnum(jitter), fnum(range)),
        ));
    };
    set_nodes(&mut s, &pos);
    let hops = hop_matrix(&adj);
    let cand: Vec<usize> = (0..pos.len()).collect();
    let pairs = pick_pairs(&mut rng, &cand, &hops, flows, min_hops)?;
    add_flows(&mut s, c, &pairs, rate)?;
    Ok(s)
}

/// Butterfly positions: 0 S1, 1 S2, 2 R1, 3 R2, 4 D1 (sink of S1), 5 D2 (sink of S2).
pub(crate) const BUTTERFLY: [(f64, f64); 6] = [
    (-150.0, 115.0),
    (150.0, 115.0),
    (0.0, 115.0),
    (0.0, -115.0),
    (150.0, -115.0),
    (-150.0, -115.0),
];

/// `butterfly` (seed 000, Fig. 8 / Section VII): S1 -> D1 and S2 -> D2 over the
/// bottleneck R1 -> R2; D2 overhears S1 and D1 overhears S2 (the side links), so R1
/// can code and R2 broadcast one packet that both sinks decode.
fn butterfly(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let routes = o.choice("routes", "explicit", &["explicit", "auto"])?;
    let mut s = base(c, "butterfly".to_string());
    set_nodes(&mut s, &BUTTERFLY);
    add_flows(&mut s, c, &[(0, 4), (1, 5)], 0.0)?;
    if routes == "explicit" {
        // S1 -> D1 has a second 3-hop path via D2 (0-5-3-4); pin the butterfly path.
        s.flows[0].route = Some(vec![0, 2, 3, 4]);
        s.flows[1].route = Some(vec![1, 2, 3, 5]);
    }
    Ok(s)
}

/// `random`: `nodes` uniform in an `area` x `area` square (redrawn until connected
/// under the range model, at most 1000 draws); `flows` pairs >= min_hops apart.
fn random(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let n = o.int("nodes", 20, 2, 10_000)? as usize;
    let area = o.positive("area", 1000.0, "metres, side of the square")?;
    let flows = o.int("flows", 2, 1, 10_000)? as usize;
    let min_hops = o.int("min_hops", 2, 1, 1000)? as u32;
    let mut s = base(
        c,
        format!("random-{n}n-{}m-{flows}flows-seed{}", short(area), c.seed),
    );
    let range = range_of(&s);
    let mut rng = Rng::stream(c.seed, 0, StreamPurpose::Builder);
    const ATTEMPTS: usize = 1000;
    let mut found = None;
    for _ in 0..ATTEMPTS {
        let pos: Vec<(f64, f64)> = (0..n)
            .map(|_| {
                (
                    round_to(rng.uniform() * area, 3),
                    round_to(rng.uniform() * area, 3),
                )
            })
            .collect();
        let adj = range_adjacency(&pos, range);
        if is_connected(&adj) {
            found = Some((pos, adj));
            break;
        }
    }
    let Some((pos, adj)) = found else {
        return Err(ScenarioError::new(
            "area",
            format!(
                "{} is not allowed here: no connected placement of {n} nodes in a {} m square found in {ATTEMPTS} draws under the {} m range; use a smaller area or more nodes",
                fnum(area),
                fnum(area),
                fnum(range)
            ),
        ));
    };
    set_nodes(&mut s, &pos);
    let hops = hop_matrix(&adj);
    let cand: Vec<usize> = (0..n).collect();
    let pairs = pick_pairs(&mut rng, &cand, &hops, flows, min_hops)?;
    add_flows(&mut s, c, &pairs, 0.0)?;
    Ok(s)
}

// ---------------------------------------------------------------- topology import

fn ferr(path: &str, msg: impl std::fmt::Display) -> ScenarioError {
    ScenarioError::new("file", format!("{path}: {msg}"))
}

/// Node ids may be integers or strings in the file.
fn id_key(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// `topology`: a Freifunk mesh snapshot (shared/data/freifunk). Link table from the
/// `wifi` links (p = tq, or sqrt(tq) with tq_map = "sqrt"); the largest component of
/// the links usable in both directions (p >= routing.min_delivery); ETX routing.
fn topology(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let Some(path) = o.string("file")? else {
        return Err(ScenarioError::new(
            "file",
            "missing: builder 'topology' needs file = path of a Freifunk topology JSON",
        ));
    };
    let tq_map = o.choice("tq_map", "linear", &["linear", "sqrt"])?;
    let flows = o.int("flows", 1, 1, 10_000)? as usize;
    let min_hops = o.int("min_hops", 2, 1, 1000)? as u32;
    let max_nodes = o.int("max_nodes", 0, 0, 1_000_000)? as usize;
    if max_nodes == 1 {
        return Err(ScenarioError::new(
            "max_nodes",
            "1 is not allowed: expected 0 (no limit) or at least 2 nodes",
        ));
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| ferr(&path, format!("cannot read: {e}")))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| ferr(&path, format!("not valid JSON: {e}")))?;

    let nodes_v = doc
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or_else(|| ferr(&path, "no \"nodes\" array"))?;
    let links_v = doc
        .get("links")
        .and_then(Value::as_array)
        .ok_or_else(|| ferr(&path, "no \"links\" array"))?;
    let total = nodes_v.len();

    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut pos = Vec::with_capacity(total);
    for (i, nv) in nodes_v.iter().enumerate() {
        let id = nv
            .get("id")
            .and_then(id_key)
            .ok_or_else(|| ferr(&path, format!("nodes[{i}] has no id")))?;
        if index.insert(id.clone(), i).is_some() {
            return Err(ferr(&path, format!("nodes[{i}]: id {id} appears twice")));
        }
        let coord = |k: &str| -> Result<f64, ScenarioError> {
            match nv.get(k) {
                None | Some(Value::Null) => Ok(0.0),
                Some(v) => v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                    ferr(
                        &path,
                        format!("nodes[{i}].{k} = {v} is not a finite number"),
                    )
                }),
            }
        };
        pos.push((coord("x_m")?, coord("y_m")?));
    }

    let min_delivery = RoutingCfg::default().min_delivery;
    // (a, b, p_ab, p_ba) over file indices, wifi links only.
    let mut wifi: Vec<(usize, usize, f64, f64)> = Vec::new();
    let mut seen = BTreeMap::new();
    for (i, lv) in links_v.iter().enumerate() {
        if lv.get("type").and_then(Value::as_str) != Some("wifi") {
            continue;
        }
        let end = |k: &str| -> Result<usize, ScenarioError> {
            let id = lv
                .get(k)
                .and_then(id_key)
                .ok_or_else(|| ferr(&path, format!("links[{i}] has no {k}")))?;
            index
                .get(&id)
                .copied()
                .ok_or_else(|| ferr(&path, format!("links[{i}].{k} = {id} is not a node id")))
        };
        let (a, b) = (end("a")?, end("b")?);
        if a == b {
            return Err(ferr(
                &path,
                format!("links[{i}] joins node {} to itself", a),
            ));
        }
        let tq = |k: &str| -> Result<f64, ScenarioError> {
            lv.get(k)
                .and_then(Value::as_f64)
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| {
                    ferr(
                        &path,
                        format!(
                            "links[{i}].{k} = {} is not a quality in [0, 1]",
                            lv.get(k).unwrap_or(&Value::Null)
                        ),
                    )
                })
        };
        let (tab, tba) = (tq("tq_ab")?, tq("tq_ba")?);
        let map = |t: f64| if tq_map == "sqrt" { t.sqrt() } else { t };
        if let Some(j) = seen.insert((a.min(b), a.max(b)), i) {
            return Err(ferr(
                &path,
                format!("links[{i}] repeats the wifi link of links[{j}]"),
            ));
        }
        wifi.push((a, b, map(tab), map(tba)));
    }
    if wifi.is_empty() {
        return Err(ferr(&path, "no wifi links"));
    }

    // Usable graph (both directions at least min_delivery) over file indices.
    let mut usable = vec![Vec::new(); total];
    for &(a, b, pab, pba) in &wifi {
        if pab >= min_delivery && pba >= min_delivery {
            usable[a].push(b);
            usable[b].push(a);
        }
    }
    for l in usable.iter_mut() {
        l.sort_unstable();
    }
    // Largest component (ties: the one holding the lowest index).
    let mut comp_of = vec![usize::MAX; total];
    let mut best: Vec<usize> = Vec::new();
    for i in 0..total {
        if comp_of[i] != usize::MAX {
            continue;
        }
        let d = bfs(&usable, i);
        let members: Vec<usize> = (0..total).filter(|&j| d[j] != UNREACHABLE).collect();
        for &m in &members {
            comp_of[m] = i;
        }
        if members.len() > best.len() {
            best = members;
        }
    }
    if best.len() < 2 {
        return Err(ferr(&path, format!("no two nodes are joined by a wifi link usable both ways (delivery >= {min_delivery})")));
    }
    let comp_size = best.len();
    if max_nodes >= 2 && best.len() > max_nodes {
        // Connected subset: breadth-first from the best-connected node.
        let root = *best
            .iter()
            .max_by_key(|&&v| (usable[v].len(), std::cmp::Reverse(v)))
            .unwrap();
        let mut order = Vec::with_capacity(max_nodes);
        let mut visited = vec![false; total];
        let mut q = VecDeque::from([root]);
        visited[root] = true;
        while let Some(u) = q.pop_front() {
            order.push(u);
            if order.len() == max_nodes {
                break;
            }
            for &v in &usable[u] {
                if !visited[v] {
                    visited[v] = true;
                    q.push_back(v);
                }
            }
        }
        order.sort_unstable();
        best = order;
    }
    let kept = best;
    let mut new_id = vec![usize::MAX; total];
    for (k, &v) in kept.iter().enumerate() {
        new_id[v] = k;
    }
    let links: Vec<LinkCfg> = wifi
        .iter()
        .filter(|&&(a, b, _, _)| new_id[a] != usize::MAX && new_id[b] != usize::MAX)
        .map(|&(a, b, p_ab, p_ba)| LinkCfg {
            a: new_id[a] as u32,
            b: new_id[b] as u32,
            p_ab,
            p_ba,
        })
        .collect();
    let kpos: Vec<(f64, f64)> = kept.iter().map(|&v| pos[v]).collect();

    let mut adj = vec![Vec::new(); kept.len()];
    for l in &links {
        if l.p_ab >= min_delivery && l.p_ba >= min_delivery {
            adj[l.a as usize].push(l.b as usize);
            adj[l.b as usize].push(l.a as usize);
        }
    }
    let hops = hop_matrix(&adj);
    let mut rng = Rng::stream(c.seed, 0, StreamPurpose::Builder);
    let cand: Vec<usize> = (0..kept.len()).collect();
    let pairs = pick_pairs(&mut rng, &cand, &hops, flows, min_hops)?;

    let label = doc
        .get("name")
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_else(|| {
            std::path::Path::new(&path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    let cap = if kept.len() < comp_size {
        format!(", capped from {comp_size}")
    } else {
        String::new()
    };
    let name = format!(
        "{label} ({} of {total} nodes{cap}, {} wifi links, tq_map={tq_map}, {flows} flows, seed {})",
        kept.len(),
        links.len(),
        c.seed
    );
    let mut s = base(c, name);
    s.channel.model = ChannelModel::Linktable;
    s.channel.links = links;
    s.routing.metric = RouteMetric::Etx;
    set_nodes(&mut s, &kpos);
    add_flows(&mut s, c, &pairs, 0.0)?;
    Ok(s)
}
