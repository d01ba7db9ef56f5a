//! Helpers shared by the whole-run tests of the coding schemes (and by the example
//! `scheme_figures`, which includes this file).

use ncmesh_core::metrics::RunResult;
use ncmesh_core::scenario::schema::*;
use ncmesh_core::scenario::{build, BuildOptions};

/// A string of `hops` hops carrying one saturated TCP NewReno flow with payload bytes,
/// `loss` of the `frames` lost on every link, scheme `scheme`, measured from 1 s.
pub fn string(hops: u64, scheme: &str, loss: f64, frames: LossFrames, secs: f64) -> Scenario {
    let mut s = build("chain", &BuildOptions::new().with("hops", hops)).unwrap();
    s.simulation.duration_s = secs;
    s.simulation.measure_start_s = 1.0;
    s.simulation.payload_bytes = true;
    s.scheme.name = scheme.to_string();
    if loss > 0.0 {
        s.loss.push(LossCfg {
            rate: loss,
            frames,
            ..LossCfg::default()
        });
    }
    s
}

/// Coding counter `name` at `node`.
pub fn at(r: &RunResult, node: usize, name: &str) -> u64 {
    r.nodes[node].counter(name)
}

/// Coding counter `name` summed over the nodes.
pub fn total(r: &RunResult, name: &str) -> u64 {
    r.nodes.iter().map(|n| n.counter(name)).sum()
}

/// CoMP's Fig. 1 diamond (3 relays, 3 reinforced paths) with `loss` on every link,
/// scheme `scheme`, measured from 1 s.
pub fn diamond(scheme: &str, loss: f64, secs: f64) -> Scenario {
    let o = BuildOptions::new().with("relays", 3u64).with("loss", loss);
    let mut s = build("diamond", &o).unwrap();
    assert_eq!(s.routing.paths, 3);
    s.simulation.duration_s = secs;
    s.simulation.measure_start_s = 1.0;
    s.scheme.name = scheme.to_string();
    s
}

/// Pair `pair` of the `roofnet-like` experiment, scheme `scheme`, measured from 1 s.
pub fn roofnet(scheme: &str, pair: u64, secs: f64) -> Scenario {
    let mut s = build("roofnet-like", &BuildOptions::new().with("pair", pair)).unwrap();
    s.simulation.duration_s = secs;
    s.simulation.measure_start_s = 1.0;
    s.scheme.name = scheme.to_string();
    s
}

/// `s` with MORE (Chachulski et al.) in batches of `batch` packets, payload bytes on.
pub fn with_more(mut s: Scenario, batch: u32) -> Scenario {
    s.simulation.payload_bytes = true;
    s.scheme.name = "more".to_string();
    s.scheme.more.batch = batch;
    s
}

/// Data frames each node other than the flow's ends sent (relays), largest first.
pub fn relay_frames(r: &RunResult, s: &Scenario) -> Vec<(usize, u64)> {
    let f = &s.flows[0];
    let mut v: Vec<(usize, u64)> = r
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u32 != f.src && *i as u32 != f.dst)
        .map(|(i, n)| (i, n.mac_data_frames_sent))
        .filter(|&(_, n)| n > 0)
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// The two-path topology (2 hops per path) with path 1's relay (node 1) walking out of
/// range at 10-12 s.
pub fn two_path_relay_leaves() -> Scenario {
    let mut s = build("two-path", &BuildOptions::new().with("hops", 2u64)).unwrap();
    s.nodes[1].waypoints = vec![
        Waypoint {
            t_s: 10.0,
            x: 200.0,
            y: 150.0,
        },
        Waypoint {
            t_s: 12.0,
            x: 200.0,
            y: 600.0,
        },
    ];
    s
}
