//! Helpers shared by the whole-run tests of the coding schemes (each test file is its own
//! crate and uses a part of them).
#![allow(dead_code)]

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
