//! The fixed shapes: chain, X, Alice-and-Bob, cross, wheel and butterfly. The paper
//! topologies (Alice-and-Bob, X, cross, wheel, butterfly) follow Seferoglu & Markopoulou
//! (NCAQM), Section VI-A and Fig. 8; the chain and the X are also the ns-3 anchor's.

use super::assemble::{add_flows, base, check_spacing, range_of, round_to, set_nodes, short};
use super::options::{Common, Opts};
use crate::scenario::schema::*;
use crate::scenario::ScenarioError;

/// `chain`: nodes 0..=hops on the x axis, `spacing` apart; one TCP bulk flow 0 -> hops.
pub(super) fn chain(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
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
pub(super) fn x_topology(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let r = o.positive("spacing", 200.0, "metres")?;
    let mut s = base(c, format!("x-{}m", short(r)));
    check_spacing(r, range_of(&s), "every node must reach the centre")?;
    set_nodes(&mut s, &five_star(r));
    add_flows(&mut s, c, &[(0, 2), (3, 4)], 0.0)?;
    through_centre(o, &mut s)?;
    Ok(s)
}

/// `alice-bob`: A (west), relay, B (east); flows A -> B and B -> A.
pub(super) fn alice_bob(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
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
pub(super) fn cross(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let r = o.positive("spacing", 150.0, "metres")?;
    let mut s = base(c, format!("cross-{}m", short(r)));
    check_spacing(r, range_of(&s), "every node must reach the centre")?;
    set_nodes(&mut s, &five_star(r));
    add_flows(&mut s, c, &[(0, 2), (3, 4), (2, 0), (4, 3)], 0.0)?;
    through_centre(o, &mut s)?;
    Ok(s)
}

/// With `routes = "explicit"` (default) every flow of a five-node star goes through the
/// centre (node 1), where Seferoglu & Markopoulou code; at radii where the rim nodes hear
/// each other shortest paths would tie with detours over the rim.
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
pub(super) fn wheel(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
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

/// Butterfly positions: 0 S1, 1 S2, 2 R1, 3 R2, 4 D1 (sink of S1), 5 D2 (sink of S2).
pub(crate) const BUTTERFLY: [(f64, f64); 6] = [
    (-150.0, 115.0),
    (150.0, 115.0),
    (0.0, 115.0),
    (0.0, -115.0),
    (150.0, -115.0),
    (-150.0, -115.0),
];

/// `butterfly` (Seferoglu & Markopoulou, Fig. 8 / Section VII): S1 -> D1 and S2 -> D2 over the
/// bottleneck R1 -> R2; D2 overhears S1 and D1 overhears S2 (the side links), so R1
/// can code and R2 broadcast one packet that both sinks decode.
pub(super) fn butterfly(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
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
