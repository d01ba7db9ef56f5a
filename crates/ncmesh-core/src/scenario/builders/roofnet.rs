//! The `roofnet-like` builder: the evaluation set-up of Gheorghiu et al. (CoMP, §III-A) on
//! a seeded layout of MIT Roofnet's published size, or on the positioned nodes of a
//! Freifunk snapshot (`file`).
//!
//! One layout serves a whole experiment, as CoMP runs its 100 pairs on one topology: the
//! layout and its seeded list of `pairs` source-destination pairs depend on `layout_seed`
//! only (positions: `Rng::stream(layout_seed, 0, Builder)`; the pair list:
//! `Rng::stream(layout_seed, 3, Builder)`, so the list's size never moves a node and its
//! first entries stay when it grows). A run takes entry `pair` of the list, and with
//! `flows` = 2 also the next entry; `seed` is the run's own (simulation seed, start times).

use super::assemble::{add_flows, base, comp_stack, round_to, set_nodes, short};
use super::graph::{hop_matrix, is_connected, largest_component, pick_pairs, routing_adjacency};
use super::import::{ferr, label, read_nodes, FileNodes};
use super::options::{Common, Opts};
use crate::check::fnum;
use crate::engine::{Rng, StreamPurpose};
use crate::scenario::schema::*;
use crate::scenario::ScenarioError;

/// Default node count: the middle of Roofnet's published 37 (MobiCom'05) to 41
/// (SIGCOMM'04 data set) nodes, rounded down.
const NODES: u64 = 38;
/// Default side of the square, metres: Roofnet's "about 4 km²".
const AREA: f64 = 2000.0;
/// Default size of the pair list: CoMP's 100 random pairs.
const PAIRS: u64 = 100;
/// Layout draws before giving up on a connected one.
const ATTEMPTS: usize = 1000;

/// A roofnet-like experiment: the scenario without flows (nodes and CoMP's set-up), its
/// seeded list of pairs, and the pairs this run uses.
pub(super) struct Experiment {
    pub(super) scenario: Scenario,
    pub(super) pairs: Vec<(usize, usize)>,
    pub(super) chosen: Vec<(usize, usize)>,
}

/// CoMP's set-up over ns-2.33's defaults (Gheorghiu et al. §III-A; ns-2's values in
/// docs/assumptions.md): Shadowing (beta 2.0, sigma 4 dB, d0 1 m, a new draw per frame),
/// ns-2 capture reception, and the stack of [`comp_stack`]. Frequency, transmit power and
/// thresholds are the schema's defaults, which are ns-2's.
fn setup(s: &mut Scenario, paths: u32) {
    let ch = &mut s.channel;
    ch.model = ChannelModel::Shadowing;
    ch.reception = Reception::Capture;
    ch.path_loss_exponent = 2.0;
    ch.shadowing_sigma_db = 4.0;
    ch.reference_distance_m = 1.0;
    comp_stack(s, paths);
}

/// Node positions, their routing graph's neighbour lists and a label for the name.
struct Layout {
    pos: Vec<(f64, f64)>,
    adj: Vec<Vec<usize>>,
    what: String,
}

/// `nodes` uniform in an `area` square, redrawn until the routing graph is connected.
fn uniform(o: &Opts, s: &Scenario, layout_seed: u64) -> Result<Layout, ScenarioError> {
    let n = o.int("nodes", NODES, 2, 1000)? as usize;
    let area = o.positive("area", AREA, "metres, side of the square")?;
    let mut rng = Rng::stream(layout_seed, 0, StreamPurpose::Builder);
    for _ in 0..ATTEMPTS {
        let pos: Vec<(f64, f64)> = (0..n)
            .map(|_| {
                (
                    round_to(rng.uniform() * area, 3),
                    round_to(rng.uniform() * area, 3),
                )
            })
            .collect();
        let adj = routing_adjacency(&s.channel, &s.routing, &pos);
        if is_connected(&adj) {
            let what = format!("roofnet-like-{n}n-{}m", short(area));
            return Ok(Layout { pos, adj, what });
        }
    }
    Err(ScenarioError::new(
        "area",
        format!(
            "{} is not allowed here: no placement of {n} nodes in a {} m square whose links of delivery >= {} connect them all was found in {ATTEMPTS} draws; use a smaller area or more nodes",
            fnum(area),
            fnum(area),
            fnum(s.routing.min_delivery)
        ),
    ))
}

/// The nodes of a topology file that have both coordinates, in file order; of them, the
/// largest component of the routing graph the set-up gives them.
fn positioned(path: &str, s: &Scenario) -> Result<Layout, ScenarioError> {
    let FileNodes { doc, xy, .. } = read_nodes(path)?;
    let all: Vec<(f64, f64)> = xy.iter().filter_map(|&(x, y)| Some((x?, y?))).collect();
    let adj = routing_adjacency(&s.channel, &s.routing, &all);
    let keep = largest_component(&adj);
    if keep.len() < 2 {
        return Err(ferr(
            path,
            format!(
                "no two of its {} positioned nodes are joined by a link of delivery >= {} under the shadowing channel",
                all.len(),
                fnum(s.routing.min_delivery)
            ),
        ));
    }
    let mut new_id = vec![usize::MAX; all.len()];
    for (k, &v) in keep.iter().enumerate() {
        new_id[v] = k;
    }
    let adj = keep
        .iter()
        .map(|&v| adj[v].iter().map(|&w| new_id[w]).collect())
        .collect();
    let pos = keep.iter().map(|&v| all[v]).collect();
    let what = format!(
        "{} positions ({} of {} positioned, {} nodes in the file)",
        label(&doc, path),
        keep.len(),
        all.len(),
        xy.len()
    );
    Ok(Layout { pos, adj, what })
}

/// The experiment the options describe (every option checked).
pub(super) fn experiment(o: &Opts, c: &Common) -> Result<Experiment, ScenarioError> {
    let paths = o.int("paths", 2, 1, 16)? as u32;
    let layout_seed = o.int("layout_seed", 1, 0, i64::MAX as u64)?;
    let npairs = o.int("pairs", PAIRS, 1, 100_000)? as usize;
    let pair = o.int("pair", 0, 0, npairs as u64 - 1)? as usize;
    let flows = o.int("flows", 1, 1, npairs.min(2) as u64)? as usize;
    let mut s = base(c, String::new());
    setup(&mut s, paths);
    let Layout { pos, adj, what } = match o.string("file")? {
        Some(path) => {
            if let Some(k) = ["nodes", "area"].into_iter().find(|k| o.has(k)) {
                return Err(ScenarioError::new(
                    k,
                    "not allowed with file: the file gives the positions (drop one of them)",
                ));
            }
            positioned(&path, &s)?
        }
        None => uniform(o, &s, layout_seed)?,
    };
    let n = pos.len();
    if npairs > n * (n - 1) {
        return Err(ScenarioError::new(
            "pairs",
            format!(
                "{npairs} is not allowed: {n} nodes have only {} ordered pairs",
                n * (n - 1)
            ),
        ));
    }
    let hops = hop_matrix(&adj);
    let cand: Vec<usize> = (0..n).collect();
    let mut rng = Rng::stream(layout_seed, 3, StreamPurpose::Builder);
    let pairs = pick_pairs(&mut rng, &cand, &hops, npairs, 1)?;
    let chosen = (0..flows).map(|k| pairs[(pair + k) % npairs]).collect();
    s.name = format!(
        "{what}, layout {layout_seed}, pair {pair} of {npairs}, {flows} flows, d = {paths}, seed {}",
        c.seed
    );
    set_nodes(&mut s, &pos);
    Ok(Experiment {
        scenario: s,
        pairs,
        chosen,
    })
}

/// `roofnet-like`: CoMP's set-up on a seeded Roofnet-sized layout (or a file's positioned
/// nodes); TCP flows between the chosen entries of the experiment's pair list.
pub(super) fn roofnet_like(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let Experiment {
        scenario: mut s,
        chosen,
        ..
    } = experiment(o, c)?;
    add_flows(&mut s, c, &chosen, 0.0)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::super::{build, pair_stats, BuildOptions};
    use crate::scenario::schema::*;
    use serde_json::json;

    fn opts(v: serde_json::Value) -> BuildOptions {
        BuildOptions::from(v.as_object().unwrap().clone())
    }

    fn positions(s: &Scenario) -> Vec<(f64, f64)> {
        s.nodes.iter().map(|n| (n.x, n.y)).collect()
    }

    fn ends(s: &Scenario) -> Vec<(u32, u32)> {
        s.flows.iter().map(|f| (f.src, f.dst)).collect()
    }

    fn ff_file(name: &str) -> Option<String> {
        let p = format!(
            "{}/../../python/ncmesh/experiments/data/freifunk-{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        std::path::Path::new(&p).exists().then_some(p)
    }

    #[test]
    fn the_kind_sets_up_comps_evaluation() {
        let s = build("roofnet-like", &BuildOptions::new()).unwrap();
        assert_eq!(s.nodes.len(), 38);
        assert_eq!(s.flows.len(), 1);
        let ch = &s.channel;
        assert_eq!(ch.model, ChannelModel::Shadowing);
        assert_eq!(ch.reception, Reception::Capture);
        assert_eq!(
            (
                ch.path_loss_exponent,
                ch.shadowing_sigma_db,
                ch.reference_distance_m
            ),
            (2.0, 4.0, 1.0)
        );
        let m = &s.mac;
        assert_eq!(
            (m.standard, m.data_rate_mbps, m.basic_rate_mbps),
            (Standard::B, 1.0, 1.0)
        );
        assert_eq!((m.rts_threshold_bytes, m.retransmissions), (65535, false));
        assert_eq!((s.routing.metric, s.routing.paths), (RouteMetric::Etx, 2));
        let s = build("roofnet-like", &opts(json!({"paths": 3}))).unwrap();
        assert_eq!(s.routing.paths, 3);
    }

    #[test]
    fn a_layout_seed_gives_one_layout_whatever_the_pair_flows_or_run_seed() {
        let base = build("roofnet-like", &BuildOptions::new()).unwrap();
        assert_eq!(base, build("roofnet-like", &BuildOptions::new()).unwrap());
        let stats = pair_stats("roofnet-like", &BuildOptions::new()).unwrap();
        let list: Vec<(u32, u32)> = stats.pairs.iter().map(|p| (p[0], p[1])).collect();
        for (pair, flows, seed) in [(1, 1, 1), (7, 2, 1), (99, 2, 4), (0, 1, 9)] {
            let o = opts(json!({"pair": pair, "flows": flows, "seed": seed}));
            let s = build("roofnet-like", &o).unwrap();
            assert_eq!(positions(&s), positions(&base), "pair {pair}");
            assert_eq!(s.simulation.seed, seed);
            let want: Vec<(u32, u32)> = (0..flows).map(|k| list[(pair + k) % 100]).collect();
            assert_eq!(ends(&s), want, "pair {pair}, flows {flows}");
        }
        let other = build("roofnet-like", &opts(json!({"layout_seed": 2}))).unwrap();
        assert_ne!(positions(&other), positions(&base));
        // The list's size moves no node and keeps its first entries.
        let short = pair_stats("roofnet-like", &opts(json!({"pairs": 10}))).unwrap();
        assert_eq!(short.pairs[..], stats.pairs[..10]);
        let s = build("roofnet-like", &opts(json!({"pairs": 10, "pair": 3}))).unwrap();
        assert_eq!(positions(&s), positions(&base));
        assert_eq!(ends(&s), vec![list[3]]);
    }

    #[test]
    fn node_count_and_area_are_respected_and_pairs_distinct_and_connected() {
        for (n, area) in [(37u64, 2000.0), (41, 2000.0), (20, 1000.0), (60, 3000.0)] {
            let o = opts(json!({"nodes": n, "area": area, "layout_seed": 5}));
            let s = build("roofnet-like", &o).unwrap();
            assert_eq!(s.nodes.len() as u64, n);
            assert!(s
                .nodes
                .iter()
                .all(|p| (0.0..=area).contains(&p.x) && (0.0..=area).contains(&p.y)));
            let st = pair_stats("roofnet-like", &o).unwrap();
            assert_eq!(st.nodes as u64, n);
            assert_eq!(st.pairs.len(), 100);
            let mut seen = std::collections::BTreeSet::new();
            for (p, &h) in st.pairs.iter().zip(&st.hops) {
                assert!(p[0] != p[1] && seen.insert(*p), "{p:?} repeated");
                assert!(h >= 1, "{p:?}");
            }
            assert!(st.hops.iter().zip(&st.fewest_hops).all(|(h, f)| f <= h));
        }
    }

    /// CoMP reports a mean path of 2.5 hops with about 20 % one-hop flows on Roofnet.
    /// The defaults (38 nodes, 2 km square, ETX) land near that on every layout seed
    /// (2.50-2.81 hops, 17-29 % one-hop pairs over seeds 1-8).
    #[test]
    fn default_layouts_land_near_comps_path_statistics() {
        let (mut hops, mut one) = (0.0, 0.0);
        let seeds = 1..=8u64;
        for seed in seeds.clone() {
            let st = pair_stats("roofnet-like", &opts(json!({"layout_seed": seed}))).unwrap();
            eprintln!(
                "layout_seed {seed}: mean hops {:.2}, one-hop share {:.2}, fewest hops {:.2}, mean degree {:.1}",
                st.mean_hops, st.one_hop_share, st.mean_fewest_hops, st.mean_degree
            );
            assert!(
                (2.0..=3.0).contains(&st.mean_hops),
                "seed {seed}: {}",
                st.mean_hops
            );
            assert!((0.10..=0.30).contains(&st.one_hop_share), "seed {seed}");
            // Fewest-hop routing would not: at 1 Mb/s the 2 km square is dense.
            assert!(st.mean_fewest_hops < 1.5, "seed {seed}");
            hops += st.mean_hops;
            one += st.one_hop_share;
        }
        let k = seeds.count() as f64;
        let (hops, one) = (hops / k, one / k);
        eprintln!("over layout seeds 1-8: mean hops {hops:.2}, one-hop share {one:.3}");
        assert!((2.0..=3.0).contains(&hops), "{hops}");
        assert!((0.10..=0.30).contains(&one), "{one}");
    }

    #[test]
    fn a_files_positioned_nodes_take_the_set_up() {
        let p = std::env::temp_dir().join(format!("ncmesh-roofnet-{}.json", std::process::id()));
        // 0-1-2 within 300 m of each other, 3 without a position, 4 far away.
        let doc = json!({"name": "tiny", "nodes": [
            {"id": "a", "x_m": 0.0, "y_m": 0.0}, {"id": "b", "x_m": 300.0, "y_m": 0.0},
            {"id": "c", "x_m": 300.0, "y_m": 300.0}, {"id": "d"},
            {"id": "e", "x_m": 9000.0, "y_m": 0.0}], "links": []});
        std::fs::write(&p, doc.to_string()).unwrap();
        let path = p.to_string_lossy().into_owned();
        let s = build("roofnet-like", &opts(json!({"file": path, "pairs": 6}))).unwrap();
        assert_eq!(
            positions(&s),
            vec![(0.0, 0.0), (300.0, 0.0), (300.0, 300.0)]
        );
        assert_eq!(s.channel.model, ChannelModel::Shadowing);
        assert!(s
            .name
            .contains("tiny positions (3 of 4 positioned, 5 nodes in the file)"));
        let st = pair_stats("roofnet-like", &opts(json!({"file": path, "pairs": 6}))).unwrap();
        assert_eq!(st.pairs.len(), 6);
        for (k, bad) in [
            ("pairs", json!({"file": path, "pairs": 7})),
            ("nodes", json!({"file": path, "nodes": 10})),
            ("area", json!({"file": path, "area": 10})),
        ] {
            let e = build("roofnet-like", &opts(bad)).unwrap_err();
            assert_eq!(e.field, k);
        }
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn freifunk_positions_statistics() {
        for f in ["bielefeld", "leipzig", "ulm"] {
            let Some(path) = ff_file(f) else { continue };
            let o = opts(json!({ "file": path }));
            let s = build("roofnet-like", &o).unwrap();
            let st = pair_stats("roofnet-like", &o).unwrap();
            eprintln!(
                "{f}: {}; mean hops {:.2}, one-hop share {:.2}, fewest hops {:.2}, mean degree {:.1}",
                s.name, st.mean_hops, st.one_hop_share, st.mean_fewest_hops, st.mean_degree
            );
            assert_eq!(st.nodes, s.nodes.len());
            assert_eq!(st.pairs.len(), 100);
        }
    }

    #[test]
    fn bad_options_give_one_line_naming_the_option() {
        for (k, o, says) in [
            ("pair", json!({"pair": 100}), "[0, 99]"),
            ("pair", json!({"pairs": 5, "pair": 5}), "[0, 4]"),
            ("flows", json!({"flows": 3}), "[1, 2]"),
            ("paths", json!({"paths": 0}), "[1, 16]"),
            ("nodes", json!({"nodes": 1}), "[2, 1000]"),
            ("area", json!({"area": -5}), "> 0"),
            ("area", json!({"area": 1e6, "nodes": 3}), "smaller area"),
            (
                "pairs",
                json!({"nodes": 3, "pairs": 7}),
                "only 6 ordered pairs",
            ),
            ("layout_seed", json!({"layout_seed": "x"}), "integer"),
            ("file", json!({"file": "/nonexistent.json"}), "cannot read"),
        ] {
            let e = build("roofnet-like", &opts(o.clone())).unwrap_err();
            assert_eq!(e.field, k, "{o}: {e}");
            assert!(e.message.contains(says), "{o}: {e}");
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }
}
