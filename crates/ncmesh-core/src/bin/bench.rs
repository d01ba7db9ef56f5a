//! Engine benchmark: runs a scenario (a TOML file or the chain builder) several times
//! and prints the engine time per run. Not a test: speed targets live here.
//!
//!     ncmesh-bench [--file S.toml | --hops N] [--repeat R] [--seed S]

use ncmesh_core::scenario::{build, parse_toml, BuildOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let repeat: usize = get("--repeat").map_or(5, |v| v.parse().expect("--repeat N"));
    let mut s = match get("--file") {
        Some(f) => {
            parse_toml(&std::fs::read_to_string(&f).expect("read file")).unwrap_or_else(|e| {
                eprintln!("error: {e}");
                std::process::exit(2)
            })
        }
        None => {
            let hops: u64 = get("--hops").map_or(4, |v| v.parse().expect("--hops N"));
            build("chain", &BuildOptions::new().with("hops", hops)).expect("chain builder")
        }
    };
    if let Some(seed) = get("--seed") {
        s.simulation.seed = seed.parse().expect("--seed N");
    }
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeat {
        let t0 = Instant::now();
        let r = ncmesh_core::sim::run(&s).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        });
        times.push(t0.elapsed().as_secs_f64());
        last = Some(r);
    }
    let r = last.expect("at least one run");
    times.sort_by(f64::total_cmp);
    let gp: Vec<String> = r
        .flows
        .iter()
        .map(|f| format!("{:.1}", f.goodput_kbps))
        .collect();
    println!(
        "nodes={} flows={} events={} goodput_kbps=[{}] engine_ms min={:.2} median={:.2} max={:.2} ({} runs) ns/event={:.0}",
        r.nodes.len(),
        r.flows.len(),
        r.events,
        gp.join(", "),
        times[0] * 1e3,
        times[times.len() / 2] * 1e3,
        times[times.len() - 1] * 1e3,
        times.len(),
        times[times.len() / 2] * 1e9 / r.events as f64
    );
}
