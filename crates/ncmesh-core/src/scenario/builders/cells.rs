//! `cell-grid`: the grid of Seferoglu & Markopoulou (NCAQM), §VI-A. A terrain of
//! `rows` x `cols` square cells of side `cell`; every cell holds a set of one or two
//! nodes (two with probability `pair_prob`), each placed uniformly at random in its cell.
//! TCP flows arrive as a Poisson process (`arrival_rate` flows per second, from `start`)
//! between a random sender and a random receiver (the receiver redrawn while it is the
//! sender), and live an exponentially distributed time (mean `lifetime`; 0: to the end).
//!
//! Routes are the paper's relay rule, pinned as explicit routes: a sender in the same
//! cell as its receiver or in a neighbouring one sends directly; otherwise a node in a
//! neighbouring cell relays. For receivers more than two cells away (which the paper does
//! not spell out) the rule repeats cell by cell: the next relay's cell is drawn uniformly
//! among the current cell's neighbours one step closer to the receiver's cell, then the
//! relay uniformly among that cell's nodes. Cells are neighbours when they share a side
//! or a corner (`neighbours = 8`, distance between cells: Chebyshev) or only a side
//! (`neighbours = 4`, Manhattan), so a route has exactly as many hops as its cells are
//! apart. For a receiver two cells away the candidates are the cells neighbouring both
//! ends, "one chosen at random" as in the paper.
//!
//! `cell` is at most the largest side at which any two nodes of neighbouring cells are
//! within the receive range (8 neighbours: the diagonal of a 2 x 2 block, 2 sqrt 2 side
//! <= range; 4 neighbours: a 2 x 1 block, sqrt 5 side <= range), so every hop of every
//! route is a link. The default is that largest side in whole metres (88 m, 111 m).
//!
//! Draws: the layout and, per flow in arrival order, its endpoints and relays from
//! `Rng::stream(seed, 0, Builder)`; arrival times from `Rng::stream(seed, 1, Builder)`;
//! lifetimes from `Rng::stream(seed, 2, Builder)`. So the k-th flow (its endpoints, relays,
//! start and stop) does not depend on how many flows arrive after it, nor on the run's
//! duration unless the end cuts its lifetime.

use super::assemble::{base, poisson_arrivals, range_of, round_to, set_nodes, short, tcp_flow};
use super::options::{Common, Opts};
use crate::check::fnum;
use crate::engine::{Rng, StreamPurpose};
use crate::scenario::schema::*;
use crate::scenario::ScenarioError;

/// At most this many flows (arrivals before the end of the run).
const MAX_FLOWS: usize = 10_000;

/// The options of a cell grid, checked.
#[derive(Debug, Clone)]
struct CellOpts {
    rows: usize,
    cols: usize,
    cell: f64,
    pair_prob: f64,
    neighbours: u64,
    arrival_rate: f64,
    lifetime: f64,
}

/// The largest cell side (mm resolution) at which every pair of nodes in neighbouring
/// cells is within `range`: the farthest such pair spans a 2 x 2 block (8 neighbours) or
/// a 2 x 1 block (4 neighbours).
fn max_cell(range: f64, neighbours: u64) -> f64 {
    let span = if neighbours == 8 {
        2.0 * std::f64::consts::SQRT_2
    } else {
        5f64.sqrt()
    };
    (range / span * 1000.0).floor() / 1000.0
}

fn parse(o: &Opts, c: &Common, range: f64) -> Result<CellOpts, ScenarioError> {
    let rows = o.int("rows", 4, 1, 100)? as usize;
    let cols = o.int("cols", 4, 1, 100)? as usize;
    if rows * cols < 2 {
        return Err(ScenarioError::new(
            "cols",
            "1 is not allowed with rows = 1: a cell grid needs at least 2 cells",
        ));
    }
    let neighbours = o.int("neighbours", 8, 0, 1000)?;
    if neighbours != 4 && neighbours != 8 {
        return Err(ScenarioError::new(
            "neighbours",
            format!("{neighbours} is not allowed: expected 8 (cells sharing a side or a corner) or 4 (cells sharing a side)"),
        ));
    }
    let limit = max_cell(range, neighbours);
    let cell = o.f64_where(
        "cell",
        limit.floor(),
        |x| x > 0.0 && x <= limit,
        &format!(
            "a side in (0, {}] metres (with {neighbours} neighbours every pair of nodes in neighbouring cells must be within the {} m receive range)",
            fnum(limit),
            short(range)
        ),
    )?;
    let pair_prob = o.f64_where(
        "pair_prob",
        0.5,
        |x| (0.0..=1.0).contains(&x),
        "a probability in [0, 1] (that a cell holds two nodes rather than one)",
    )?;
    let arrival_rate = o.positive("arrival_rate", 0.5, "flows per second")?;
    let lifetime = o.non_negative(
        "lifetime",
        20.0,
        "seconds, mean flow lifetime; 0: flows run to the end",
    )?;
    if c.start_spread > 0.0 {
        return Err(ScenarioError::new(
            "start_spread",
            format!(
                "{} is not allowed for builder 'cell-grid': expected 0 (flows arrive as a Poisson process from `start`; set `arrival_rate`)",
                fnum(c.start_spread)
            ),
        ));
    }
    Ok(CellOpts {
        rows,
        cols,
        cell,
        pair_prob,
        neighbours,
        arrival_rate,
        lifetime,
    })
}

/// Node positions and which cell holds which nodes.
#[derive(Debug, Clone)]
struct Layout {
    /// Node positions, metres; nodes numbered cell by cell (row-major), in their cell.
    pos: Vec<(f64, f64)>,
    /// The cell (row, col) of each node.
    cell_of: Vec<(usize, usize)>,
    /// The nodes of each cell, index row * cols + col.
    members: Vec<Vec<usize>>,
}

/// Each cell gets one node, or two with probability `pair_prob`, uniform within the
/// cell (rounded to the millimetre, kept inside the cell).
fn place(p: &CellOpts, rng: &mut Rng) -> Layout {
    let s = p.cell;
    let mut l = Layout {
        pos: Vec::new(),
        cell_of: Vec::new(),
        members: vec![Vec::new(); p.rows * p.cols],
    };
    for r in 0..p.rows {
        for c in 0..p.cols {
            let n = if rng.chance(p.pair_prob) { 2 } else { 1 };
            for _ in 0..n {
                let (x0, y0) = (c as f64 * s, r as f64 * s);
                let x = round_to((c as f64 + rng.uniform()) * s, 3).clamp(x0, x0 + s);
                let y = round_to((r as f64 + rng.uniform()) * s, 3).clamp(y0, y0 + s);
                l.members[r * p.cols + c].push(l.pos.len());
                l.pos.push((x, y));
                l.cell_of.push((r, c));
            }
        }
    }
    l
}

/// Distance between two cells in steps between neighbouring cells.
fn cell_dist(a: (usize, usize), b: (usize, usize), neighbours: u64) -> usize {
    let (dr, dc) = (a.0.abs_diff(b.0), a.1.abs_diff(b.1));
    if neighbours == 8 {
        dr.max(dc)
    } else {
        dr + dc
    }
}

/// The neighbouring cells of `a` (inside the terrain), row-major order.
fn neighbour_cells(p: &CellOpts, a: (usize, usize)) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(8);
    for r in a.0.saturating_sub(1)..=(a.0 + 1).min(p.rows - 1) {
        for c in a.1.saturating_sub(1)..=(a.1 + 1).min(p.cols - 1) {
            if (r, c) != a && cell_dist(a, (r, c), p.neighbours) == 1 {
                out.push((r, c));
            }
        }
    }
    out
}

/// The route [src, relays..., dst] by the relay rule (module doc).
fn route(p: &CellOpts, l: &Layout, rng: &mut Rng, src: usize, dst: usize) -> Vec<usize> {
    let goal = l.cell_of[dst];
    let mut at = l.cell_of[src];
    let mut path = vec![src];
    while cell_dist(at, goal, p.neighbours) > 1 {
        let d = cell_dist(at, goal, p.neighbours);
        let closer: Vec<(usize, usize)> = neighbour_cells(p, at)
            .into_iter()
            .filter(|&n| cell_dist(n, goal, p.neighbours) < d)
            .collect();
        at = closer[rng.below_incl((closer.len() - 1) as u32) as usize];
        let nodes = &l.members[at.0 * p.cols + at.1];
        path.push(nodes[rng.below_incl((nodes.len() - 1) as u32) as usize]);
    }
    path.push(dst);
    path
}

/// A sender and a different receiver, uniform among the nodes.
fn endpoints(n: usize, rng: &mut Rng) -> (usize, usize) {
    let src = rng.below_incl((n - 1) as u32) as usize;
    loop {
        let dst = rng.below_incl((n - 1) as u32) as usize;
        if dst != src {
            return (src, dst);
        }
    }
}

/// Poisson arrivals from `start` (exponential gaps of mean 1 / rate) before the end of
/// the run, rounded to the microsecond.
fn arrivals(c: &Common, rate: f64) -> Result<Vec<f64>, ScenarioError> {
    let mut out = Vec::new();
    for v in poisson_arrivals(c, rate) {
        if v >= c.duration {
            break;
        }
        if out.len() == MAX_FLOWS {
            return Err(ScenarioError::new(
                "arrival_rate",
                format!(
                    "{} is not allowed with duration {} s: more than {MAX_FLOWS} flows would arrive; lower it",
                    fnum(rate),
                    fnum(c.duration)
                ),
            ));
        }
        out.push(v);
    }
    if out.is_empty() {
        return Err(ScenarioError::new(
            "arrival_rate",
            format!(
                "{} is not allowed here: no flow arrives between start = {} s and the end of the run ({} s) with seed {}; raise it or the duration",
                fnum(rate),
                fnum(c.start),
                fnum(c.duration),
                c.seed
            ),
        ));
    }
    Ok(out)
}

/// Stop times: start + an exponential lifetime of mean `lifetime`, or none (to the end)
/// when `lifetime` is 0 or the lifetime reaches the end of the run.
fn stops(c: &Common, starts: &[f64], lifetime: f64) -> Vec<Option<f64>> {
    let mut rng = Rng::stream(c.seed, 2, StreamPurpose::Builder);
    starts
        .iter()
        .map(|&t| {
            if lifetime == 0.0 {
                return None;
            }
            let stop = round_to(t + rng.exp1() * lifetime, 6).max(t + 1e-6);
            (stop < c.duration).then_some(round_to(stop, 6))
        })
        .collect()
}

/// The layout, the flows' (src, dst, route), starts and stops.
struct Built {
    layout: Layout,
    flows: Vec<(usize, usize, Vec<usize>)>,
    starts: Vec<f64>,
    stops: Vec<Option<f64>>,
}

fn draw(p: &CellOpts, c: &Common) -> Result<Built, ScenarioError> {
    let mut rng = Rng::stream(c.seed, 0, StreamPurpose::Builder);
    let layout = place(p, &mut rng);
    let starts = arrivals(c, p.arrival_rate)?;
    let flows = starts
        .iter()
        .map(|_| {
            let (src, dst) = endpoints(layout.pos.len(), &mut rng);
            let r = route(p, &layout, &mut rng, src, dst);
            (src, dst, r)
        })
        .collect();
    let stops = stops(c, &starts, p.lifetime);
    Ok(Built {
        layout,
        flows,
        starts,
        stops,
    })
}

/// `cell-grid`: see the module doc.
pub(super) fn cell_grid(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let range = range_of(&Scenario::default());
    let p = parse(o, c, range)?;
    let b = draw(&p, c)?;
    let mut s = base(
        c,
        format!(
            "cell-grid-{}x{}-{}m-{}nodes-{}flows-seed{}",
            p.rows,
            p.cols,
            short(p.cell),
            b.layout.pos.len(),
            b.flows.len(),
            c.seed
        ),
    );
    set_nodes(&mut s, &b.layout.pos);
    s.flows = b
        .flows
        .into_iter()
        .zip(b.starts.iter().zip(&b.stops))
        .map(|((src, dst, r), (&start, &stop))| {
            let mut f = tcp_flow(src, dst, start);
            f.stop_s = stop;
            f.route = Some(r.into_iter().map(|v| v as u32).collect());
            f
        })
        .collect();
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::super::graph::dist;
    use super::super::options::{common, BuildOptions};
    use super::*;
    use serde_json::json;

    fn opts(v: serde_json::Value) -> BuildOptions {
        BuildOptions::from(v.as_object().unwrap().clone())
    }

    /// The checked options and the draws of a cell grid built with `v`.
    fn drawn(v: serde_json::Value) -> (CellOpts, Common, Built) {
        let o = Opts::new(
            "cell-grid",
            super::super::kind_options("cell-grid"),
            &opts(v),
        )
        .unwrap();
        let c = common(&o).unwrap();
        let p = parse(&o, &c, 250.0).unwrap();
        let b = draw(&p, &c).unwrap();
        (p, c, b)
    }

    fn build(v: serde_json::Value) -> Result<Scenario, ScenarioError> {
        crate::scenario::build("cell-grid", &opts(v))
    }

    #[test]
    fn every_cell_holds_one_or_two_nodes_inside_it() {
        for seed in 1..=20 {
            let (p, _, b) = drawn(json!({"seed": seed}));
            let l = &b.layout;
            assert_eq!(l.members.len(), 16);
            let mut sizes = [0usize; 3];
            for (i, m) in l.members.iter().enumerate() {
                assert!((1..=2).contains(&m.len()), "cell {i}: {} nodes", m.len());
                sizes[m.len()] += 1;
                for &v in m {
                    assert_eq!(l.cell_of[v], (i / p.cols, i % p.cols));
                }
            }
            assert_eq!(sizes[1] + 2 * sizes[2], l.pos.len());
            for (v, &(x, y)) in l.pos.iter().enumerate() {
                let (r, c) = l.cell_of[v];
                let (x0, y0) = (c as f64 * p.cell, r as f64 * p.cell);
                assert!(
                    x >= x0 && x <= x0 + p.cell,
                    "node {v} x {x} outside cell {r},{c}"
                );
                assert!(
                    y >= y0 && y <= y0 + p.cell,
                    "node {v} y {y} outside cell {r},{c}"
                );
            }
        }
        // pair_prob at its ends: one node everywhere, two everywhere
        let (_, _, b) = drawn(json!({"pair_prob": 0}));
        assert!(b.layout.members.iter().all(|m| m.len() == 1));
        let (_, _, b) = drawn(json!({"pair_prob": 1, "rows": 3, "cols": 5}));
        assert_eq!(b.layout.members.len(), 15);
        assert!(b.layout.members.iter().all(|m| m.len() == 2));
        // about half the cells hold two nodes at the default 0.5
        let pairs: usize = (1..=50)
            .map(|seed| {
                let (_, _, b) = drawn(json!({"seed": seed}));
                b.layout.members.iter().filter(|m| m.len() == 2).count()
            })
            .sum();
        let share = pairs as f64 / (50.0 * 16.0);
        assert!((0.45..0.55).contains(&share), "{share}");
    }

    #[test]
    fn routes_follow_the_relay_rule_and_every_hop_is_a_link() {
        let mut relayed = 0;
        let mut long = 0;
        for (seed, neighbours) in (1..=15).flat_map(|s| [(s, 8), (s, 4)]) {
            let (p, _, b) =
                drawn(json!({"seed": seed, "neighbours": neighbours, "rows": 5, "cols": 6}));
            let l = &b.layout;
            for (src, dst, r) in &b.flows {
                assert_ne!(src, dst);
                assert_eq!((r[0], r[r.len() - 1]), (*src, *dst));
                let (a, z) = (l.cell_of[*src], l.cell_of[*dst]);
                let d = cell_dist(a, z, p.neighbours);
                // direct when the ends share a cell or are neighbours, else one relay per cell step
                assert_eq!(
                    r.len(),
                    d.max(1) + 1,
                    "route {r:?} for cells {a:?} -> {z:?}"
                );
                for w in r.windows(2) {
                    let (u, v) = (l.cell_of[w[0]], l.cell_of[w[1]]);
                    assert!(
                        cell_dist(u, v, p.neighbours) <= 1,
                        "hop {w:?} between cells {u:?} {v:?}"
                    );
                    let m = dist(l.pos[w[0]], l.pos[w[1]]);
                    assert!(m <= 250.0, "hop {w:?} is {m} m");
                }
                for (k, &v) in r.iter().enumerate().skip(1).take(r.len().saturating_sub(2)) {
                    // each relay sits in a cell neighbouring the previous node's, one step closer
                    let prev = l.cell_of[r[k - 1]];
                    assert_eq!(cell_dist(prev, l.cell_of[v], p.neighbours), 1);
                    assert_eq!(cell_dist(l.cell_of[v], z, p.neighbours), d - k);
                    relayed += 1;
                }
                let mut seen = r.clone();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len(), r.len(), "a node twice in {r:?}");
                long += usize::from(d >= 3);
            }
        }
        assert!(
            relayed > 100 && long > 10,
            "{relayed} relays, {long} long routes"
        );
    }

    #[test]
    fn the_relay_of_a_two_cell_gap_is_drawn_among_the_common_neighbour_cells() {
        // cells (0,0) -> (0,2) on a 2 x 3 terrain: candidates (0,1) and (1,1) for 8
        // neighbours, only (0,1) for 4; (0,0) -> (1,1) with 4 neighbours: (0,1) or (1,0).
        let p = |neighbours| CellOpts {
            rows: 2,
            cols: 3,
            cell: 50.0,
            pair_prob: 1.0,
            neighbours,
            arrival_rate: 1.0,
            lifetime: 0.0,
        };
        let mut rng = Rng::stream(5, 0, StreamPurpose::Builder);
        let p8 = p(8);
        let l = place(&p8, &mut rng);
        let (src, dst) = (l.members[0][0], l.members[2][1]);
        let mut cells = std::collections::BTreeMap::new();
        let mut nodes = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let r = route(&p8, &l, &mut rng, src, dst);
            assert_eq!(r.len(), 3);
            *cells.entry(l.cell_of[r[1]]).or_insert(0) += 1;
            nodes.insert(r[1]);
        }
        assert_eq!(cells.keys().copied().collect::<Vec<_>>(), [(0, 1), (1, 1)]);
        assert!(cells.values().all(|&n| n > 150), "{cells:?}");
        assert_eq!(nodes.len(), 4, "both nodes of each candidate cell relay");
        let p4 = p(4);
        for _ in 0..50 {
            let r = route(&p4, &l, &mut rng, src, dst);
            assert_eq!(l.cell_of[r[1]], (0, 1));
        }
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..100 {
            let r = route(&p4, &l, &mut rng, src, l.members[4][0]);
            seen.insert(l.cell_of[r[1]]);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [(0, 1), (1, 0)]);
    }

    #[test]
    fn flows_arrive_as_a_poisson_process_and_live_exponential_times() {
        // rate 2 / s over 2000 s: ~4000 arrivals; mean gap 0.5 s within 5%, and the
        // gaps' coefficient of variation near 1 (exponential), not 0 (periodic).
        let (_, c, b) =
            drawn(json!({"arrival_rate": 2, "duration": 2000, "lifetime": 10, "seed": 3}));
        let n = b.starts.len();
        assert!((3700..4300).contains(&n), "{n} arrivals");
        assert!(b.starts[0] > c.start);
        let gaps: Vec<f64> = b.starts.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|&g| g > 0.0));
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
        assert!((mean - 0.5).abs() < 0.025, "mean gap {mean}");
        assert!((sd / mean - 1.0).abs() < 0.1, "cv {}", sd / mean);
        // lifetimes: mean 10 s over the flows the end does not cut
        let lives: Vec<f64> = b
            .starts
            .iter()
            .zip(&b.stops)
            .filter(|(&t, _)| t < 1900.0)
            .map(|(&t, s)| s.expect("stops before the end") - t)
            .collect();
        let mean = lives.iter().sum::<f64>() / lives.len() as f64;
        assert!((mean - 10.0).abs() < 0.6, "mean lifetime {mean}");
        // lifetime 0: every flow to the end
        let (_, _, b) = drawn(json!({"lifetime": 0}));
        assert!(b.stops.iter().all(Option::is_none));
    }

    #[test]
    fn the_scenario_carries_the_draws_and_is_deterministic_per_seed() {
        let s = build(json!({"seed": 4})).unwrap();
        let (_, _, b) = drawn(json!({"seed": 4}));
        assert_eq!(s.nodes.len(), b.layout.pos.len());
        assert_eq!(s.flows.len(), b.flows.len());
        assert!(s.name.starts_with("cell-grid-4x4-88m-"), "{}", s.name);
        for (f, (src, dst, r)) in s.flows.iter().zip(&b.flows) {
            assert_eq!((f.src as usize, f.dst as usize), (*src, *dst));
            let route: Vec<usize> = f
                .route
                .as_ref()
                .unwrap()
                .iter()
                .map(|&v| v as usize)
                .collect();
            assert_eq!(&route, r);
            assert!(f
                .stop_s
                .is_none_or(|t| t > f.start_s && t < s.simulation.duration_s));
        }
        assert!(s.flows.iter().any(|f| f.stop_s.is_some()));
        assert_eq!(build(json!({"seed": 4})).unwrap(), s);
        let other = build(json!({"seed": 5})).unwrap();
        assert_ne!(other.nodes, s.nodes);
        assert_ne!(other.flows, s.flows);
        // a longer run keeps the first flows (endpoints, routes, starts) and the layout
        let long = build(json!({"seed": 4, "duration": 120})).unwrap();
        assert_eq!(long.nodes, s.nodes);
        assert!(long.flows.len() > s.flows.len());
        for (a, b) in s.flows.iter().zip(&long.flows) {
            assert_eq!(
                (a.src, a.dst, &a.route, a.start_s),
                (b.src, b.dst, &b.route, b.start_s)
            );
        }
    }

    #[test]
    fn bad_option_values_give_one_line_errors() {
        for (v, field, says) in [
            (
                json!({"cell": 89}),
                "cell",
                "89 is not allowed: expected a side in (0, 88.388] metres",
            ),
            (
                json!({"cell": 112, "neighbours": 4}),
                "cell",
                "(0, 111.803]",
            ),
            (json!({"cell": 0}), "cell", "0 is not allowed"),
            (
                json!({"neighbours": 6}),
                "neighbours",
                "6 is not allowed: expected 8",
            ),
            (
                json!({"neighbours": 9}),
                "neighbours",
                "9 is not allowed: expected 8",
            ),
            (json!({"neighbours": -1}), "neighbours", "-1 is not allowed"),
            (
                json!({"pair_prob": 1.5}),
                "pair_prob",
                "1.5 is not allowed: expected a probability in [0, 1]",
            ),
            (
                json!({"arrival_rate": 0}),
                "arrival_rate",
                "0 is not allowed: expected a number > 0",
            ),
            (json!({"lifetime": -1}), "lifetime", "-1 is not allowed"),
            (json!({"rows": 1, "cols": 1}), "cols", "at least 2 cells"),
            (json!({"rows": 0}), "rows", "0 is not allowed"),
            (
                json!({"start_spread": 4}),
                "start_spread",
                "expected 0 (flows arrive as a Poisson process",
            ),
            (
                json!({"arrival_rate": 1000, "duration": 100}),
                "arrival_rate",
                "more than 10000 flows",
            ),
            (
                json!({"arrival_rate": 0.001, "duration": 2}),
                "arrival_rate",
                "no flow arrives",
            ),
            (
                json!({"spacing": 80}),
                "spacing",
                "unknown option 'spacing' for builder 'cell-grid'",
            ),
        ] {
            let e = build(v.clone()).unwrap_err();
            assert_eq!(e.field, field, "{v}: {e}");
            assert!(e.message.contains(says), "{v}: {e}");
            assert!(!e.to_string().contains('\n'), "{v}: {e}");
        }
        // the limits themselves are allowed
        assert!(build(json!({"cell": 88.388})).is_ok());
        assert!(build(json!({"cell": 111.803, "neighbours": 4})).is_ok());
        assert!(build(json!({"start_spread": 0})).is_ok());
    }
}
