//! Builders with random layouts or endpoints: `grid` (a lattice, optionally jittered, with
//! random flow endpoints) and `random` (uniform positions, redrawn until connected). Their
//! draws come from `Rng::stream(seed, 0, Builder)`.

use super::assemble::{add_flows, base, check_spacing, range_of, round_to, set_nodes, short};
use super::graph::{hop_matrix, is_connected, pick_pairs, range_adjacency};
use super::options::{Common, Opts};
use crate::check::fnum;
use crate::engine::{Rng, StreamPurpose};
use crate::scenario::schema::*;
use crate::scenario::ScenarioError;

/// `grid`: rows x cols nodes, node r*cols + c at (c*spacing, r*spacing) (+ uniform
/// jitter in [-jitter, jitter] per axis); `flows` random pairs >= min_hops apart.
pub(super) fn grid(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
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

/// `random`: `nodes` uniform in an `area` x `area` square (redrawn until connected
/// under the range model, at most 1000 draws); `flows` pairs >= min_hops apart.
pub(super) fn random(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
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
