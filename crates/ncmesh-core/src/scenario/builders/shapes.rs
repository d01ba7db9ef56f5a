//! The fixed shapes: chain, two paths, X, Alice-and-Bob, cross, wheel, butterfly and
//! diamond. The paper topologies (Alice-and-Bob, X, cross, wheel, butterfly) follow
//! Seferoglu & Markopoulou (NCAQM), Section VI-A and Fig. 8; the chain and the X are also
//! the ns-3 anchor's; the diamond is Gheorghiu et al.'s (CoMP) Fig. 1.

use super::assemble::{
    add_flows, base, check_spacing, comp_stack, range_of, round_to, set_nodes, short,
};
use super::options::{Common, Opts};
use crate::check::fnum;
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

/// `two-path`: a source and a destination joined by two disjoint strings of `hops` hops,
/// `spacing` between neighbours, the strings `width` either side of the source-destination
/// line (Chen et al.'s multipath MANET, Fig. 12: the string of Table 2 and a second path
/// of relays). Nodes: 0 the source, 1..hops-1 the relays of path 1 (y > 0), hops..2 hops-2
/// those of path 2 (y < 0), 2 hops-1 the destination; one TCP flow 0 -> 2 hops-1.
pub(super) fn two_path(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let hops = o.int("hops", 3, 2, 500)? as usize;
    let sp = o.positive("spacing", 250.0, "metres")?;
    let w = o.positive("width", 150.0, "metres")?;
    let mut s = base(
        c,
        format!("two-path-{hops}hop-{}m-{}m", short(sp), short(w)),
    );
    let range = range_of(&s);
    check_spacing(sp, range, "neighbours on a path must hear each other")?;
    if w >= sp {
        return Err(ScenarioError::new(
            "width",
            format!(
                "{} is not allowed: expected less than the spacing ({} m)",
                fnum(w),
                fnum(sp)
            ),
        ));
    }
    // The first and last hops rise from the axis to the path's line; the hops between
    // run along it.
    let a = round_to((sp * sp - w * w).sqrt(), 6);
    let relay = |i: usize, side: f64| (a + (i - 1) as f64 * sp, side * w);
    let mut pos = vec![(0.0, 0.0)];
    pos.extend((1..hops).map(|i| relay(i, 1.0)));
    pos.extend((1..hops).map(|i| relay(i, -1.0)));
    pos.push((2.0 * a + (hops - 2) as f64 * sp, 0.0));
    // Only the two strings' links: every other pair must be out of range.
    let path = |side: usize| -> Vec<usize> {
        let first = 1 + side * (hops - 1);
        std::iter::once(0)
            .chain(first..first + hops - 1)
            .chain(std::iter::once(2 * hops - 1))
            .collect()
    };
    let (p1, p2) = (path(0), path(1));
    let linked = |u: usize, v: usize| {
        [&p1, &p2].iter().any(|p| {
            p.windows(2)
                .any(|e| (e[0], e[1]) == (u, v) || (e[1], e[0]) == (u, v))
        })
    };
    for u in 0..pos.len() {
        for v in u + 1..pos.len() {
            let d = (pos[u].0 - pos[v].0).hypot(pos[u].1 - pos[v].1);
            if !linked(u, v) && d <= range {
                return Err(ScenarioError::new(
                    "width",
                    format!(
                        "{} is not allowed with spacing {}: nodes {u} and {v} are {} m apart, within \
                         the {} m receive range; the paths would not be disjoint strings (widen them)",
                        fnum(w),
                        fnum(sp),
                        fnum(round_to(d, 1)),
                        fnum(range)
                    ),
                ));
            }
        }
    }
    set_nodes(&mut s, &pos);
    add_flows(&mut s, c, &[(0, 2 * hops - 1)], 0.0)?;
    Ok(s)
}

/// `diamond`: Gheorghiu et al.'s (CoMP) Fig. 1: a source (node 0) reaches the
/// destination (the last node) only through `relays` relays (nodes 1..=relays), stacked
/// `width` apart on the perpendicular bisector, `spacing` from both ends along the axis.
/// CoMP's MAC and routing (no MAC retransmissions, RTS/CTS off, 802.11b at 1 Mb/s, ETX
/// over as many reinforced paths as relays) and, with `loss` > 0, that frame loss on
/// every link, so the optimal redundancy is known (Fig. 2). `cs_range` (metres, default
/// the receive range) is the carrier-sense and interference range: at 2 `spacing` or more
/// the ends sense each other (ns-2.33's CSThresh_ gives 550 m, the paper's "rest
/// default"), below it they are hidden terminals. One flow 0 -> relays + 1.
pub(super) fn diamond(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let relays = o.int("relays", 3, 1, 16)? as usize;
    let sp = o.positive("spacing", 200.0, "metres")?;
    let w = o.positive("width", 60.0, "metres")?;
    let loss = o.f64_where("loss", 0.0, |v| (0.0..1.0).contains(&v), "a rate in [0, 1)")?;
    let mut s = base(
        c,
        format!("diamond-{relays}relays-{}m-loss{}", short(sp), short(loss)),
    );
    let range = range_of(&s);
    let cs = o.f64_where(
        "cs_range",
        range,
        |v| v >= range && v.is_finite(),
        &format!("metres, at least the {} m receive range", fnum(range)),
    )?;
    s.channel.cs_range_m = cs;
    s.channel.interference_range_m = cs;
    if 2.0 * sp <= range {
        return Err(ScenarioError::new(
            "spacing",
            format!(
                "{} is not allowed: the source and destination ({} m apart) would hear each \
                 other within the {} m receive range; expected more than {}",
                fnum(sp),
                fnum(2.0 * sp),
                fnum(range),
                fnum(range / 2.0)
            ),
        ));
    }
    let half = (relays - 1) as f64 / 2.0;
    let outer = sp.hypot(half * w);
    if outer > range {
        return Err(ScenarioError::new(
            "width",
            format!(
                "{} is not allowed with spacing {} and {relays} relays: the outermost relay is {} \
                 m from the source, beyond the {} m receive range",
                fnum(w),
                fnum(sp),
                fnum(round_to(outer, 1)),
                fnum(range)
            ),
        ));
    }
    let mut pos = vec![(0.0, 0.0)];
    pos.extend((0..relays).map(|i| (sp, round_to((i as f64 - half) * w, 6))));
    pos.push((2.0 * sp, 0.0));
    set_nodes(&mut s, &pos);
    comp_stack(&mut s, relays as u32);
    if loss > 0.0 {
        s.loss.push(LossCfg {
            rate: loss,
            ..LossCfg::default()
        });
    }
    add_flows(&mut s, c, &[(0, relays + 1)], 0.0)?;
    Ok(s)
}
