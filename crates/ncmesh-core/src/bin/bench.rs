//! Engine benchmark (not a test: speed and memory targets live here).
//!
//!     ncmesh-bench [--file S.toml | --build KIND [key=value ...] | --hops N]
//!                  [--repeat R] [--seed S] [--duration T]
//!
//! Prints events, frames sent, goodput, engine time per run (min/median/max), time
//! per event and per transmitted frame, and the peak resident memory of the process.

use ncmesh_core::scenario::{build, parse_toml, BuildOptions};
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(str::to_owned)
        })
        .and_then(|l| {
            l.split_whitespace()
                .nth(1)
                .and_then(|v| v.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let repeat: usize =
        get("--repeat").map_or(5, |v| v.parse().unwrap_or_else(|_| fail("--repeat N")));
    let mut s = if let Some(f) = get("--file") {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| fail(format!("{f}: {e}")));
        parse_toml(&text).unwrap_or_else(|e| fail(e))
    } else if let Some(kind) = get("--build") {
        let i = args.iter().position(|a| a == "--build").unwrap() + 2;
        let mut o = BuildOptions::new();
        for kv in args[i..].iter().take_while(|a| !a.starts_with("--")) {
            let (k, v) = kv
                .split_once('=')
                .unwrap_or_else(|| fail(format!("expected key=value, got {kv}")));
            let val = v
                .parse::<f64>()
                .map_or(serde_json::Value::from(v), serde_json::Value::from);
            o.set(k, val);
        }
        build(&kind, &o).unwrap_or_else(|e| fail(e))
    } else {
        let hops: u64 = get("--hops").map_or(4, |v| v.parse().unwrap_or_else(|_| fail("--hops N")));
        build("chain", &BuildOptions::new().with("hops", hops)).unwrap_or_else(|e| fail(e))
    };
    if let Some(seed) = get("--seed") {
        s.simulation.seed = seed.parse().unwrap_or_else(|_| fail("--seed N"));
    }
    if let Some(d) = get("--duration") {
        s.simulation.duration_s = d.parse().unwrap_or_else(|_| fail("--duration T"));
        s.simulation.measure_start_s = s
            .simulation
            .measure_start_s
            .min(s.simulation.duration_s / 2.0);
    }
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let t0 = Instant::now();
        let r = ncmesh_core::sim::run(&s).unwrap_or_else(|e| fail(e));
        times.push(t0.elapsed().as_secs_f64());
        last = Some(r);
    }
    let r = last.expect("at least one run");
    times.sort_by(f64::total_cmp);
    let med = times[times.len() / 2];
    let frames: u64 = r.nodes.iter().map(|n| n.mac_frames_sent).sum();
    let total_gp: f64 = r.flows.iter().map(|f| f.goodput_kbps).sum();
    let gp: Vec<String> = r
        .flows
        .iter()
        .take(8)
        .map(|f| format!("{:.1}", f.goodput_kbps))
        .collect();
    println!(
        "nodes={} flows={} sim_s={} events={} frames={} goodput_kbps=[{}{}] total_kbps={:.1} \
         engine_ms min={:.2} median={:.2} max={:.2} ({} runs) ns/event={:.0} us/frame={:.2} peak_rss_mb={:.1}",
        r.nodes.len(),
        r.flows.len(),
        r.sim_time_s,
        r.events,
        frames,
        gp.join(", "),
        if r.flows.len() > 8 { ", ..." } else { "" },
        total_gp,
        times[0] * 1e3,
        med * 1e3,
        times[times.len() - 1] * 1e3,
        times.len(),
        med * 1e9 / r.events as f64,
        med * 1e6 / frames.max(1) as f64,
        peak_rss_mb()
    );
}
