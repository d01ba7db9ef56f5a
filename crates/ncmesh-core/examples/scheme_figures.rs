//! Figures of the multipath and intra-flow coding schemes that the integration tests do
//! not assert, printed for a reader comparing them with the papers: Horizon against no
//! scheme, MORE's batch sizes, CoMP against its baselines (Gheorghiu et al.), TCP/NC
//! against NewReno. The scenarios are the integration tests' (tests/common).
//!
//!     cargo run --release -p ncmesh-core --example scheme_figures -- [horizon] [more] [comp] [tcpnc]
//!
//! With no argument, all four.

#[allow(dead_code)]
#[path = "../tests/common/mod.rs"]
mod common;

use common::{at, diamond, relay_frames, roofnet, string, total, with_more};
use ncmesh_core::scenario::schema::{LossFrames, Scenario};
use ncmesh_core::sim::run;

const FIGURES: [(&str, fn()); 4] = [
    ("horizon", horizon),
    ("more", more),
    ("comp", comp),
    ("tcpnc", tcpnc),
];

fn main() {
    let asked: Vec<String> = std::env::args().skip(1).collect();
    for a in &asked {
        if !FIGURES.iter().any(|(n, _)| n == a) {
            let names: Vec<&str> = FIGURES.iter().map(|(n, _)| *n).collect();
            eprintln!(
                "scheme_figures: {a} is not a figure: expected one of {}",
                names.join(", ")
            );
            std::process::exit(2);
        }
    }
    for (name, f) in FIGURES {
        if asked.is_empty() || asked.iter().any(|a| a == name) {
            println!("== {name}");
            f();
        }
    }
}

/// Horizon (Radunović et al.) against no scheme on the diamond and roofnet-like pairs.
fn horizon() {
    let show = |what: &str, s: &Scenario| {
        let r = run(s).unwrap();
        println!(
            "{what:<28} {:<8} goodput {:7.1} kbit/s, retx {:4}, relays' data frames {:?}, window drops {}, reorder held/expired {}/{}",
            s.scheme.name,
            r.flows[0].goodput_kbps,
            r.flows[0].retransmissions,
            relay_frames(&r, s),
            total(&r, "hz_window_drops"),
            total(&r, "hz_reorder_held"),
            total(&r, "hz_reorder_expired"),
        );
    };
    for loss in [0.0, 0.1, 0.2] {
        for scheme in ["none", "horizon"] {
            show(
                &format!("diamond loss {loss}"),
                &diamond(scheme, loss, 30.0),
            );
        }
    }
    // With MAC retries (not CoMP's set-up) TCP's window grows and the threshold acts.
    for th in [0, 24, 12] {
        for scheme in ["none", "horizon"] {
            let mut s = diamond(scheme, 0.0, 30.0);
            s.mac.retransmissions = true;
            s.scheme.horizon.window_threshold = th;
            show(&format!("diamond MAC retries, th {th}"), &s);
        }
    }
    for pair in 0..6 {
        for scheme in ["none", "horizon"] {
            show(
                &format!("roofnet-like pair {pair}"),
                &roofnet(scheme, pair, 30.0),
            );
        }
    }
}

/// MORE (Chachulski et al.) with two batch sizes.
fn more() {
    for loss in [0.0, 0.1] {
        for batch in [8, 32] {
            let s = with_more(diamond("more", loss, 30.0), batch);
            let r = run(&s).unwrap();
            println!(
                "diamond loss {loss:.1} K {batch:3}: {:7.1} kbit/s, batches {} decoded {}, src sent {}, fwd sent {}, balanced {}",
                r.flows[0].goodput_kbps,
                at(&r, 0, "more_batches_started"),
                at(&r, 4, "more_batches_decoded"),
                at(&r, 0, "more_source_sent"),
                total(&r, "more_forwarder_sent"),
                r.conservation.balanced
            );
        }
    }
    for pair in [0, 5] {
        for batch in [8, 32] {
            let s = with_more(roofnet("more", pair, 30.0), batch);
            let r = run(&s).unwrap();
            let f = &s.flows[0];
            println!(
                "roofnet-like pair {pair} ({} -> {}) K {batch:3}: {:7.1} kbit/s, batches decoded {}, plan nodes {}, src sent {}, fwd sent {}, balanced {}",
                f.src,
                f.dst,
                r.flows[0].goodput_kbps,
                at(&r, f.dst as usize, "more_batches_decoded"),
                at(&r, f.src as usize, "more_plan_nodes"),
                at(&r, f.src as usize, "more_source_sent"),
                total(&r, "more_forwarder_sent"),
                r.conservation.balanced
            );
        }
    }
}

/// CoMP against TCP/NC, Horizon and no scheme.
fn comp() {
    let show = |what: &str, s: &Scenario| {
        let r = run(s).unwrap();
        let bytes: u64 = r.nodes.iter().map(|n| n.mac_data_bytes_sent).sum();
        println!(
            "{what:<24} {:<8} goodput {:7.1} kbit/s, efficiency {:.3}, retx {:3}, to {:2}, relays' frames {:?}, loss credits {}",
            s.scheme.name,
            r.flows[0].goodput_kbps,
            r.flows[0].rx_bytes as f64 / bytes.max(1) as f64,
            r.flows[0].retransmissions,
            r.flows[0].timeouts,
            relay_frames(&r, s),
            total(&r, "comp_loss_credits"),
        );
    };
    for loss in [0.0, 0.1, 0.2, 0.3, 0.4] {
        for scheme in ["none", "tcp-nc", "horizon", "comp"] {
            show(
                &format!("diamond loss {loss}"),
                &diamond(scheme, loss, 60.0),
            );
        }
    }
    for pair in 0..8 {
        for scheme in ["none", "tcp-nc", "horizon", "comp"] {
            show(
                &format!("roofnet-like pair {pair}"),
                &roofnet(scheme, pair, 60.0),
            );
        }
    }
}

/// TCP/NC (Sundararajan et al.) against NewReno on lossy strings.
fn tcpnc() {
    for hops in [1, 3] {
        for loss in [0.0, 0.05, 0.1, 0.2, 0.3] {
            let p = run(&string(hops, "none", loss, LossFrames::Network, 30.0)).unwrap();
            let mut fixed = string(hops, "tcp-nc", loss, LossFrames::Network, 30.0);
            fixed.scheme.tcpnc.adaptive = false;
            let f = run(&fixed).unwrap();
            let c = run(&string(hops, "tcp-nc", loss, LossFrames::Network, 30.0)).unwrap();
            let mut repair = string(hops, "tcp-nc", loss, LossFrames::Network, 30.0);
            repair.scheme.tcpnc.blocked_repair = true;
            let n = run(&repair).unwrap();
            println!(
                "hops {hops} loss {loss:.2}: newreno {:7.1} kbit/s, tcp-nc R=1.25 {:7.1}, tcp-nc adaptive {:7.1}, with blocked_repair {:7.1} (loss est {:.3}, R {:.2}, retx {})",
                p.flows[0].goodput_kbps,
                f.flows[0].goodput_kbps,
                c.flows[0].goodput_kbps,
                n.flows[0].goodput_kbps,
                at(&c, 0, "tcpnc_loss_permille") as f64 / 1000.0,
                at(&c, 0, "tcpnc_redundancy_milli") as f64 / 1000.0,
                at(&c, 0, "tcpnc_tcp_retransmissions"),
            );
        }
    }
}
