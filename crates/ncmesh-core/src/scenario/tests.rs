//! Tests of parsing, validation, canonical output and the builders.

use super::builders::graph::{dist, hop_matrix, range_adjacency};
use super::builders::shapes::{wheel_radius, BUTTERFLY};
use super::*;
use serde_json::json;
use std::collections::BTreeSet;

const RANGE: f64 = 250.0;

fn opts(v: serde_json::Value) -> BuildOptions {
    BuildOptions::from(v.as_object().unwrap().clone())
}

/// Undirected links (i < j) of a scenario under the 250 m range model.
fn links(s: &Scenario) -> BTreeSet<(usize, usize)> {
    let pos: Vec<(f64, f64)> = s.nodes.iter().map(|n| (n.x, n.y)).collect();
    let adj = range_adjacency(&pos, RANGE);
    let mut out = BTreeSet::new();
    for (i, l) in adj.iter().enumerate() {
        for &j in l {
            if i < j {
                out.insert((i, j));
            }
        }
    }
    out
}

fn set(pairs: &[(usize, usize)]) -> BTreeSet<(usize, usize)> {
    pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect()
}

fn hops_between(s: &Scenario, a: usize, b: usize) -> u32 {
    let pos: Vec<(f64, f64)> = s.nodes.iter().map(|n| (n.x, n.y)).collect();
    let adj = range_adjacency(&pos, RANGE);
    hop_matrix(&adj)[a][b]
}

fn round_trip(s: &Scenario) {
    let text = to_toml(s);
    // "Every field written": each field the scenario serialises (with a value) is named
    // in the TOML, so a field emit.rs forgets fails here even when its default hides it.
    fn keys(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    if !x.is_null() {
                        out.push(k.clone());
                    }
                    keys(x, out);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    keys(&serde_json::to_value(s).unwrap(), &mut names);
    for k in names {
        assert!(
            text.contains(k.as_str()),
            "field {k} missing from the TOML:\n{text}"
        );
    }
    let back = parse_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&back, s, "TOML round trip changed the scenario:\n{text}");
    let json = serde_json::to_string(s).unwrap();
    assert_eq!(&parse_json(&json).unwrap(), s, "JSON round trip");
}

fn ff_file(name: &str) -> Option<String> {
    let p = format!(
        "{}/../../python/ncmesh/experiments/data/freifunk-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::path::Path::new(&p).exists().then_some(p)
}

/// A small synthetic Freifunk file: two wifi islands (0-1-2-3-4 chain plus a weak
/// link 4-5, and 6-7), one vpn link joining them, node 8 without links or position.
fn synthetic_ff(tag: &str) -> String {
    let p = std::env::temp_dir().join(format!("ncmesh-scn-test-{}-{tag}.json", std::process::id()));
    let doc = json!({
        "name": "synthetic",
        "nodes": [
            {"id": 10, "x_m": 0.0, "y_m": 0.0}, {"id": 11, "x_m": 50.0, "y_m": 0.0},
            {"id": 12, "x_m": 100.0, "y_m": 0.0}, {"id": 13}, {"id": 14, "x_m": 200.0, "y_m": 5.0},
            {"id": 15, "x_m": 250.0, "y_m": 0.0}, {"id": 16, "x_m": 900.0, "y_m": 0.0},
            {"id": 17, "x_m": 950.0, "y_m": 0.0}, {"id": 18}
        ],
        "links": [
            {"a": 10, "b": 11, "tq_ab": 0.81, "tq_ba": 0.64, "type": "wifi"},
            {"a": 11, "b": 12, "tq_ab": 1.0, "tq_ba": 0.9, "type": "wifi"},
            {"a": 12, "b": 13, "tq_ab": 0.5, "tq_ba": 0.5, "type": "wifi"},
            {"a": 13, "b": 14, "tq_ab": 0.7, "tq_ba": 0.6, "type": "wifi"},
            {"a": 14, "b": 15, "tq_ab": 0.05, "tq_ba": 0.9, "type": "wifi"},
            {"a": 16, "b": 17, "tq_ab": 0.9, "tq_ba": 0.9, "type": "wifi"},
            {"a": 14, "b": 16, "tq_ab": null, "tq_ba": null, "type": "vpn"}
        ]
    });
    std::fs::write(&p, doc.to_string()).unwrap();
    p.to_string_lossy().into_owned()
}

// ------------------------------------------------------------------ builders

#[test]
fn every_builder_round_trips() {
    let ff = synthetic_ff("roundtrip");
    let mut cases: Vec<(&str, BuildOptions)> = vec![
        ("chain", BuildOptions::new()),
        (
            "chain",
            opts(json!({"hops": 7, "spacing": 180.5, "seed": 9})),
        ),
        ("x", BuildOptions::new()),
        ("alice-bob", BuildOptions::new()),
        ("cross", BuildOptions::new()),
        ("wheel", BuildOptions::new()),
        ("wheel", opts(json!({"flows": 6, "start_spread": 2.5}))),
        ("grid", BuildOptions::new()),
        (
            "grid",
            opts(
                json!({"rows": 3, "cols": 5, "jitter": 30, "arrival_rate": 0.5, "flows": 3, "seed": 4}),
            ),
        ),
        ("cell-grid", BuildOptions::new()),
        (
            "cell-grid",
            opts(
                json!({"rows": 3, "cols": 5, "neighbours": 4, "pair_prob": 0.2, "lifetime": 0, "seed": 6}),
            ),
        ),
        ("butterfly", BuildOptions::new()),
        ("two-path", BuildOptions::new()),
        (
            "two-path",
            opts(json!({"hops": 2, "spacing": 240, "width": 140})),
        ),
        ("diamond", BuildOptions::new()),
        (
            "diamond",
            opts(json!({"relays": 2, "spacing": 150, "width": 100, "loss": 0.3})),
        ),
        ("random", BuildOptions::new()),
        ("topology", opts(json!({"file": ff, "tq_map": "sqrt"}))),
        ("roofnet-like", BuildOptions::new()),
        (
            "roofnet-like",
            opts(
                json!({"nodes": 41, "area": 1800, "layout_seed": 3, "pair": 17, "flows": 2, "paths": 1}),
            ),
        ),
        (
            "roofnet-like",
            opts(json!({"file": ff, "pairs": 4, "pair": 3})),
        ),
    ];
    for f in ["leipzig", "bielefeld", "ulm"] {
        if let Some(p) = ff_file(f) {
            cases.push(("topology", opts(json!({"file": p, "flows": 3, "seed": 5}))));
        }
    }
    for (kind, o) in &cases {
        let s = build(kind, o).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(!s.name.is_empty());
        validate(&s).unwrap();
        round_trip(&s);
    }
    // every kind is covered
    for k in build_kinds() {
        assert!(cases.iter().any(|(c, _)| c == k), "{k} untested");
    }
    let _ = std::fs::remove_file(&ff);
}

#[test]
fn the_diamond_joins_source_and_destination_only_through_its_relays() {
    use crate::net::Routes;
    use crate::phy::Channel;
    for relays in [1usize, 3, 5] {
        let s = build("diamond", &opts(json!({ "relays": relays, "loss": 0.2 }))).unwrap();
        let n = s.nodes.len();
        assert_eq!(n, relays + 2);
        assert_eq!((s.flows[0].src, s.flows[0].dst), (0, n as u32 - 1));
        // CoMP's set-up and the configured loss on every link.
        assert!(!s.mac.retransmissions);
        assert_eq!(s.routing.paths, relays as u32);
        assert_eq!(s.loss.len(), 1);
        assert!(s.loss[0].links.is_empty() && s.loss[0].rate == 0.2);
        let pos: Vec<(f64, f64)> = s.nodes.iter().map(|v| (v.x, v.y)).collect();
        let routes = Routes::build(&s.routing, &s.flows, &Channel::new(&s.channel, &pos), n);
        // One reinforced path through each relay, and no direct one.
        let mut middles: Vec<u32> = routes
            .paths(0)
            .iter()
            .map(|p| {
                assert_eq!(p.len(), 3, "{relays} relays: {p:?}");
                p[1]
            })
            .collect();
        middles.sort_unstable();
        assert_eq!(middles, (1..=relays as u32).collect::<Vec<_>>());
    }
    let e = build("diamond", &opts(json!({"spacing": 120}))).unwrap_err();
    assert_eq!(e.field, "spacing");
    assert!(e.message.contains("240.0 m apart"), "{e}");
    let e = build("diamond", &opts(json!({"relays": 9, "width": 60}))).unwrap_err();
    assert_eq!(e.field, "width");
    let e = build("diamond", &opts(json!({"loss": 1.0}))).unwrap_err();
    assert_eq!(e.field, "loss");
    assert!(e.message.contains("[0, 1)"), "{e}");
    let e = build("diamond", &opts(json!({"cs_range": 200}))).unwrap_err();
    assert_eq!(e.field, "cs_range");
    assert!(
        e.message.contains("at least the 250.0 m receive range"),
        "{e}"
    );
}

#[test]
fn the_diamonds_ends_sense_each_other_within_its_carrier_sense_range() {
    use crate::phy::Channel;
    for (cs, sensed) in [(None, false), (Some(550.0), true), (Some(399.0), false)] {
        let o = match cs {
            Some(v) => opts(json!({ "relays": 2, "cs_range": v })),
            None => opts(json!({ "relays": 2 })),
        };
        let s = build("diamond", &o).unwrap();
        let pos: Vec<(f64, f64)> = s.nodes.iter().map(|n| (n.x, n.y)).collect();
        let ch = Channel::new(&s.channel, &pos);
        // The destination (node 3) reaches the source's radio, and back: sensed.
        assert_eq!(ch.link(0, 3).is_some(), sensed, "cs_range {cs:?}");
        assert_eq!(ch.link(3, 0).is_some(), sensed, "cs_range {cs:?}");
        // Still no data link between them: the relays carry the flow.
        assert!(ch.delivery_prob(0, 3) < 1e-9, "cs_range {cs:?}");
    }
}

#[test]
fn two_path_is_two_disjoint_strings() {
    for hops in [2usize, 3, 5] {
        let s = build("two-path", &opts(json!({ "hops": hops }))).unwrap();
        let n = s.nodes.len();
        assert_eq!(n, 2 * hops);
        assert_eq!((s.flows[0].src, s.flows[0].dst), (0, n as u32 - 1));
        let d = |u: usize, v: usize| {
            let (a, b) = (&s.nodes[u], &s.nodes[v]);
            (a.x - b.x).hypot(a.y - b.y)
        };
        let p1: Vec<usize> = [0].into_iter().chain(1..hops).chain([n - 1]).collect();
        let p2: Vec<usize> = [0].into_iter().chain(hops..n - 1).chain([n - 1]).collect();
        let mut links = 0;
        for u in 0..n {
            for v in u + 1..n {
                if d(u, v) <= s.channel.rx_range_m {
                    links += 1;
                    assert!((d(u, v) - 250.0).abs() < 1e-6, "{hops} hops: {u}-{v}");
                    assert!(
                        [&p1, &p2].iter().any(|p| p
                            .windows(2)
                            .any(|e| (e[0], e[1]) == (u, v) || (e[1], e[0]) == (u, v))),
                        "{hops} hops: {u}-{v} is not a path link"
                    );
                }
            }
        }
        assert_eq!(links, 2 * hops, "{hops} hops: each path's links, no other");
    }
    // Paths too close, or a width the spacing cannot climb.
    let e = build("two-path", &opts(json!({"width": 100}))).unwrap_err();
    assert_eq!(e.field, "width");
    assert!(
        e.message.contains("nodes 1 and 3") && e.message.contains("200.0 m apart"),
        "{e}"
    );
    let e = build("two-path", &opts(json!({"width": 250}))).unwrap_err();
    assert_eq!(e.field, "width");
    let e = build("two-path", &opts(json!({"hops": 1}))).unwrap_err();
    assert_eq!(e.field, "hops");
}

#[test]
fn chain_matches_the_ns3_anchor_setup() {
    let s = build("chain", &BuildOptions::new()).unwrap();
    let d = Scenario::default();
    assert_eq!(s.nodes.len(), 5);
    for (i, n) in s.nodes.iter().enumerate() {
        assert_eq!((n.x, n.y), (200.0 * i as f64, 0.0));
    }
    assert_eq!(links(&s), set(&[(0, 1), (1, 2), (2, 3), (3, 4)]));
    assert_eq!(
        (
            s.channel.clone(),
            s.mac.clone(),
            s.tcp.clone(),
            s.routing.clone()
        ),
        (d.channel, d.mac, d.tcp, d.routing)
    );
    assert_eq!(s.mac.standard, Standard::B);
    assert_eq!(
        (
            s.mac.data_rate_mbps,
            s.mac.basic_rate_mbps,
            s.mac.rts_threshold_bytes
        ),
        (2.0, 1.0, 65535)
    );
    assert_eq!((s.mac.short_retry_limit, s.mac.queue_packets), (7, 50));
    assert_eq!(
        (s.channel.model, s.channel.rx_range_m, s.channel.cs_range_m),
        (ChannelModel::Range, 250.0, 250.0)
    );
    assert_eq!(
        (
            s.tcp.mss_bytes,
            s.tcp.sack,
            s.tcp.delayed_ack_count,
            s.tcp.initial_cwnd_segments
        ),
        (1000, false, 2, 10)
    );
    assert_eq!(
        (
            s.tcp.min_rto_s,
            s.simulation.duration_s,
            s.simulation.measure_start_s
        ),
        (1.0, 60.0, 10.0)
    );
    assert_eq!(s.simulation.measure_end_s, None);
    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    assert_eq!(
        (f.src, f.dst, f.transport, f.app, f.start_s, f.stop_s),
        (0, 4, Transport::Tcp, AppKind::Bulk, 1.0, None)
    );

    let s = build("chain", &opts(json!({"hops": 8, "spacing": 150}))).unwrap();
    assert_eq!(s.nodes.len(), 9);
    assert_eq!(s.flows[0].dst, 8);
    // 150 m: i and i+2 are 300 m apart, still only neighbours linked
    assert_eq!(links(&s), (0..8).map(|i| (i, i + 1)).collect());
}

#[test]
fn x_has_only_centre_links_like_the_anchor() {
    let s = build("x", &BuildOptions::new()).unwrap();
    // n0 west, n1 centre, n2 east, n3 north, n4 south
    let p: Vec<(f64, f64)> = s.nodes.iter().map(|n| (n.x, n.y)).collect();
    assert_eq!(
        p,
        vec![
            (-200.0, 0.0),
            (0.0, 0.0),
            (200.0, 0.0),
            (0.0, 200.0),
            (0.0, -200.0)
        ]
    );
    assert_eq!(links(&s), set(&[(0, 1), (1, 2), (1, 3), (1, 4)]));
    let fl: Vec<(u32, u32, f64)> = s.flows.iter().map(|f| (f.src, f.dst, f.start_s)).collect();
    assert_eq!(fl, vec![(0, 2, 1.0), (3, 4, 1.01)]);
}

#[test]
fn alice_bob_and_cross_links() {
    let s = build("alice-bob", &BuildOptions::new()).unwrap();
    assert_eq!(links(&s), set(&[(0, 1), (1, 2)]));
    let fl: Vec<(u32, u32)> = s.flows.iter().map(|f| (f.src, f.dst)).collect();
    assert_eq!(fl, vec![(0, 2), (2, 0)]);
    assert_eq!(build("alice_bob", &BuildOptions::new()).unwrap(), s);

    let s = build("cross", &BuildOptions::new()).unwrap();
    // centre to all; rim neighbours (212 m) overhear; opposite ones (300 m) do not
    assert_eq!(
        links(&s),
        set(&[
            (0, 1),
            (1, 2),
            (1, 3),
            (1, 4),
            (0, 3),
            (0, 4),
            (2, 3),
            (2, 4)
        ])
    );
    let fl: Vec<(u32, u32)> = s.flows.iter().map(|f| (f.src, f.dst)).collect();
    assert_eq!(fl, vec![(0, 2), (3, 4), (2, 0), (4, 3)]);
    for f in &s.flows {
        assert_eq!(hops_between(&s, f.src as usize, f.dst as usize), 2);
    }
}

#[test]
fn wheel_rim_nodes_hear_all_but_their_opposite() {
    for n in [2usize, 4, 6, 8, 10, 16, 32, 64] {
        let s = build("wheel", &opts(json!({"flows": n}))).unwrap();
        assert_eq!(s.nodes.len(), n + 1);
        assert_eq!(s.flows.len(), n);
        let l = links(&s);
        for i in 1..=n {
            assert!(l.contains(&(0, i)), "n={n}: rim {i} must reach the centre");
            for j in i + 1..=n {
                let opposite = j - i == n / 2;
                assert_eq!(l.contains(&(i, j)), !opposite, "n={n}: rim {i}-{j}");
            }
        }
        for (k, f) in s.flows.iter().enumerate() {
            assert_eq!(f.src as usize, 1 + k);
            assert_eq!(f.dst as usize, 1 + (k + n / 2) % n);
            assert!(
                dist(
                    (s.nodes[f.src as usize].x, s.nodes[f.src as usize].y),
                    (0.0, 0.0)
                ) <= RANGE
            );
        }
    }
    assert!((wheel_radius(8, 250.0) - 130.15).abs() < 1e-9);
    assert_eq!(build("wheel", &BuildOptions::new()).unwrap().flows.len(), 8);
    let e = build("wheel", &opts(json!({"flows": 5}))).unwrap_err();
    assert_eq!(e.field, "flows");
    assert!(
        e.message.contains("5 is not allowed") && e.message.contains("even"),
        "{e}"
    );
}

#[test]
fn grid_links_are_the_four_neighbours_and_flows_are_far_apart() {
    let s = build("grid", &BuildOptions::new()).unwrap();
    assert_eq!(s.nodes.len(), 16);
    let mut want = BTreeSet::new();
    for r in 0..4 {
        for c in 0..4 {
            let i = r * 4 + c;
            if c + 1 < 4 {
                want.insert((i, i + 1));
            }
            if r + 1 < 4 {
                want.insert((i, i + 4));
            }
        }
    }
    assert_eq!(links(&s), want);
    assert_eq!(s.flows.len(), 4);
    let mut pairs = BTreeSet::new();
    for f in &s.flows {
        assert!(hops_between(&s, f.src as usize, f.dst as usize) >= 2);
        assert!(pairs.insert((f.src, f.dst)), "pairs are distinct");
    }
    // deterministic per seed, different across seeds
    assert_eq!(build("grid", &BuildOptions::new()).unwrap(), s);
    let s2 = build("grid", &opts(json!({"seed": 2}))).unwrap();
    assert_ne!(s2.flows, s.flows);
    assert_eq!(s2.simulation.seed, 2);
    // more flows than eligible pairs
    let e = build("grid", &opts(json!({"rows": 1, "cols": 3, "flows": 3}))).unwrap_err();
    assert_eq!(e.field, "flows");
    // Poisson arrivals: increasing start times
    let s3 = build("grid", &opts(json!({"flows": 6, "arrival_rate": 1.0}))).unwrap();
    assert!(s3.flows.windows(2).all(|w| w[0].start_s < w[1].start_s));
    assert!(s3.flows[0].start_s > 1.0);
}

#[test]
fn butterfly_has_exactly_the_butterfly_links() {
    let s = build("butterfly", &BuildOptions::new()).unwrap();
    let p: Vec<(f64, f64)> = s.nodes.iter().map(|n| (n.x, n.y)).collect();
    assert_eq!(p, BUTTERFLY.to_vec());
    // 0 S1, 1 S2, 2 R1, 3 R2, 4 D1, 5 D2
    let want = set(&[(0, 2), (1, 2), (2, 3), (3, 4), (3, 5), (0, 5), (1, 4)]);
    assert_eq!(links(&s), want);
    let fl: Vec<(u32, u32, Option<Vec<u32>>)> = s
        .flows
        .iter()
        .map(|f| (f.src, f.dst, f.route.clone()))
        .collect();
    assert_eq!(
        fl,
        vec![
            (0, 4, Some(vec![0, 2, 3, 4])),
            (1, 5, Some(vec![1, 2, 3, 5]))
        ]
    );
    let auto = build("butterfly", &opts(json!({"routes": "auto"}))).unwrap();
    assert!(auto.flows.iter().all(|f| f.route.is_none()));
}

#[test]
fn random_is_connected_and_deterministic() {
    let s = build("random", &BuildOptions::new()).unwrap();
    assert_eq!(s.nodes.len(), 20);
    for n in &s.nodes {
        assert!((0.0..=1000.0).contains(&n.x) && (0.0..=1000.0).contains(&n.y));
    }
    for j in 1..20 {
        assert_ne!(hops_between(&s, 0, j), u32::MAX, "node {j} unreachable");
    }
    for f in &s.flows {
        assert!(hops_between(&s, f.src as usize, f.dst as usize) >= 2);
    }
    assert_eq!(build("random", &BuildOptions::new()).unwrap(), s);
    assert_ne!(
        build("random", &opts(json!({"seed": 3}))).unwrap().nodes,
        s.nodes
    );
    let e = build("random", &opts(json!({"nodes": 3, "area": 100000}))).unwrap_err();
    assert_eq!(e.field, "area");
}

#[test]
fn topology_import() {
    let ff = synthetic_ff("import");
    let s = build("topology", &opts(json!({"file": ff, "flows": 2}))).unwrap();
    // largest usable component: 10..14 (15 hangs on a 0.05 link, 16-17 is a separate island)
    assert_eq!(s.nodes.len(), 5);
    assert_eq!(s.channel.model, ChannelModel::Linktable);
    assert_eq!(s.routing.metric, RouteMetric::Etx);
    assert_eq!(s.channel.links.len(), 4);
    assert_eq!(
        (
            s.channel.links[0].a,
            s.channel.links[0].b,
            s.channel.links[0].p_ab
        ),
        (0, 1, 0.81)
    );
    assert_eq!(
        (s.nodes[3].x, s.nodes[3].y),
        (0.0, 0.0),
        "node without position at the origin"
    );
    assert_eq!((s.nodes[4].x, s.nodes[4].y), (200.0, 5.0));
    for f in &s.flows {
        assert!(
            (f.src as i64 - f.dst as i64).abs() >= 2,
            "chain 0-4: >= 2 hops apart"
        );
    }
    let q = build("topology", &opts(json!({"file": ff, "tq_map": "sqrt"}))).unwrap();
    assert_eq!(q.channel.links[0].p_ab, 0.9);
    assert!(q.name.contains("tq_map=sqrt"));
    let m = build("topology", &opts(json!({"file": ff, "max_nodes": 3}))).unwrap();
    assert_eq!(m.nodes.len(), 3);
    assert_eq!(m.channel.links.len(), 2);

    let e = build("topology", &BuildOptions::new()).unwrap_err();
    assert_eq!(e.field, "file");
    let e = build("topology", &opts(json!({"file": "/nonexistent/x.json"}))).unwrap_err();
    assert_eq!(e.field, "file");
    let e = build("topology", &opts(json!({"file": ff, "tq_map": "cubic"}))).unwrap_err();
    assert_eq!(e.field, "tq_map");
    assert!(
        e.message.contains("\"cubic\"") && e.message.contains("linear, sqrt"),
        "{e}"
    );

    let _ = std::fs::remove_file(&ff);

    if let Some(p) = ff_file("leipzig") {
        let s = build("topology", &opts(json!({"file": p, "flows": 4}))).unwrap();
        assert!(
            s.nodes.len() > 50 && s.nodes.len() < 210,
            "{}",
            s.nodes.len()
        );
        let n = s.nodes.len() as u32;
        assert!(s
            .channel
            .links
            .iter()
            .all(|l| l.a < n && l.b < n && l.a != l.b));
        assert_eq!(s.flows.len(), 4);
    }
}

#[test]
fn builder_option_errors() {
    let e = build("chain", &opts(json!({"hops": 4, "flows": 3}))).unwrap_err();
    assert_eq!(e.field, "flows");
    assert!(
        e.message
            .contains("unknown option 'flows' for builder 'chain'")
            && e.message.contains("allowed: hops, spacing, seed"),
        "{e}"
    );
    let e = build("chain", &opts(json!({"hops": -3}))).unwrap_err();
    assert_eq!(e.field, "hops");
    assert!(e.message.starts_with("-3 is not allowed"), "{e}");
    let e = build("chain", &opts(json!({"spacing": 300}))).unwrap_err();
    assert_eq!(e.field, "spacing");
    assert!(e.message.contains("300"), "{e}");
    let e = build("chain", &opts(json!({"spacing": "abc"}))).unwrap_err();
    assert_eq!(e.field, "spacing");
    let e = build("mesh", &BuildOptions::new()).unwrap_err();
    assert_eq!(e.field, "kind");
    assert!(
        e.message.contains("\"mesh\"") && e.message.contains("chain, x, alice-bob"),
        "{e}"
    );
    let e = build("chain", &opts(json!({"duration": 0.5}))).unwrap_err();
    assert_eq!(e.field, "start");
    // CLI style: strings, dashes, nulls for unset flags
    let s = build(
        "chain",
        &opts(json!({"--hops": "6", "spacing": "150", "start-spread": null, "seed": "7"})),
    )
    .unwrap();
    assert_eq!(
        (s.nodes.len(), s.nodes[1].x, s.simulation.seed),
        (7, 150.0, 7)
    );
    let s = build("x", &opts(json!({"duration": 30}))).unwrap();
    assert_eq!(
        (s.simulation.duration_s, s.simulation.measure_start_s),
        (30.0, 5.0)
    );
}

// ------------------------------------------------------------------ parsing

const NODES: &str =
    "[[nodes]]\nx = 0.0\ny = 0.0\n[[nodes]]\nx = 200.0\ny = 0.0\n[[nodes]]\nx = 400.0\ny = 0.0\n";
const FLOW: &str = "[[flows]]\nsrc = 0\ndst = 2\n";

fn with(tables_before_nodes: &str) -> String {
    format!("{tables_before_nodes}\n{NODES}{FLOW}")
}

#[test]
fn minimal_file_takes_the_defaults() {
    let s = parse_toml(&with("")).unwrap();
    assert_eq!(s.mac, MacCfg::default());
    assert_eq!(s.flows[0].start_s, 1.0);
    assert_eq!(s.flows[0].packet_bytes, 1000);
    round_trip(&s);
}

#[test]
fn full_featured_scenario_round_trips() {
    let text = r#"
name = "all \"the\" things\tand a tab"
[simulation]
duration_s = 30
seed = 42
measure_start_s = 2.5
measure_end_s = 25.0
payload_bytes = true
[channel]
model = "linktable"
fading = "rayleigh"
links = [ { a = 0, b = 1, p_ab = 0.9, p_ba = 0.8 }, { a = 1, b = 2, p_ab = 1.0, p_ba = 0.333 } ]
[[loss]]
links = [[0, 1], [1, 0]]
rate = 0.15
frames = "all"
[[loss]]
schedule = [ { from_s = 0.0, to_s = 10.0, rate = 0.1 }, { from_s = 10.0, rate = 0.5 } ]
[mac]
standard = "802.11g"
data_rate_mbps = 54
basic_rate_mbps = 6
preamble = "short"
cw_min = 15
cw_max = 255
retransmissions = false
[routing]
metric = "etx"
paths = 2
[tcp]
sack = true
[[nodes]]
x = 0.0
y = 0.0
waypoints = [ { t_s = 5.0, x = 10.0, y = 0.0 }, { t_s = 6.0, x = 1e-7, y = -3.0 } ]
[[nodes]]
x = 200.0
y = 0.0
[[nodes]]
x = 400.0
y = 0.0
[[flows]]
src = 0
dst = 2
transport = "udp"
app = "cbr"
rate_kbps = 250.5
packet_bytes = 512
start_s = 2.0
stop_s = 20.0
route = [0, 1, 2]
[[flows]]
src = 2
dst = 0
"#;
    let s = parse_toml(text).unwrap();
    assert_eq!(s.channel.links.len(), 2);
    assert_eq!(s.loss[1].schedule[1].to_s, None);
    assert_eq!(s.mac.cw_min, Some(15));
    round_trip(&s);
    let out = to_toml(&s);
    // readable order
    let order = [
        "name =",
        "[simulation]",
        "[channel]",
        "[[loss]]",
        "[mac]",
        "[routing]",
        "[tcp]",
        "[scheme]",
        "[[nodes]]",
        "[[flows]]",
    ];
    let idx: Vec<usize> = order
        .iter()
        .map(|k| out.find(k).unwrap_or_else(|| panic!("{k} missing")))
        .collect();
    assert!(idx.windows(2).all(|w| w[0] < w[1]), "{out}");
}

/// (file text, expected field, substrings the message must contain)
fn bad_cases() -> Vec<(String, &'static str, Vec<&'static str>)> {
    vec![
        (with("foo = 1"), "foo", vec!["unknown field 'foo'", "the top level", "allowed: name, preset, simulation"]),
        (with("[mac]\nfoo = 1"), "mac.foo", vec!["unknown field 'foo' in [mac]", "allowed: standard, data_rate_mbps"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 1\nspeed = 3\n"), "flows[0].speed", vec!["unknown field 'speed' in flows[0]"]),
        (with("[mac]\nqueue_packets = -3"), "mac.queue_packets", vec!["-3 is not allowed", "non-negative integer"]),
        (with("[mac]\nqueue_packets = 0"), "mac.queue_packets", vec!["0 is not allowed", "at least 1"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 9\n"), "flows[0].dst", vec!["node 9 does not exist", "3 nodes: 0-2"]),
        (format!("{NODES}[[flows]]\nsrc = 1\ndst = 1\n"), "flows[0].dst", vec!["1 is not allowed", "differ from its source"]),
        (format!("{NODES}[[flows]]\nsrc = 1\n"), "flows[0].dst", vec!["'dst' is missing"]),
        (with("[simulation]\nduration_s = 0"), "simulation.duration_s", vec!["0.0 is not allowed", "> 0"]),
        (with("[simulation]\nduration_s = -5"), "simulation.duration_s", vec!["-5.0 is not allowed"]),
        (with("[simulation]\nduration_s = inf"), "simulation.duration_s", vec!["inf is not allowed"]),
        (with("[simulation]\nmeasure_start_s = 60"), "simulation.measure_start_s", vec!["60.0 is not allowed", "[0, duration_s = 60.0)"]),
        (with("[simulation]\nmeasure_end_s = 70"), "simulation.measure_end_s", vec!["70.0 is not allowed"]),
        (with("[simulation]\nmeasure_start_s = 20\nmeasure_end_s = 20"), "simulation.measure_end_s", vec!["20.0 is not allowed", "must not be empty"]),
        (with("[simulation]\nseries_interval_s = 0"), "simulation.series_interval_s", vec!["0.0 is not allowed"]),
        ("[[nodes]]\nx = nan\ny = 0\n".to_string(), "nodes[0].x", vec!["NaN is not allowed", "finite"]),
        (format!("{NODES}[[nodes]]\nx = 1.0\ny = inf\n"), "nodes[3].y", vec!["inf is not allowed"]),
        (
            "[[nodes]]\nx = 0\ny = 0\nwaypoints = [{t_s = 5, x = 1, y = 1}, {t_s = 5, x = 2, y = 2}]\n".to_string(),
            "nodes[0].waypoints[1].t_s",
            vec!["5.0 is not allowed", "increase"],
        ),
        ("[[nodes]]\nx = 0\ny = 0\nwaypoints = [{t_s = -1, x = 1, y = 1}]\n".to_string(), "nodes[0].waypoints[0].t_s", vec!["-1.0 is not allowed"]),
        ("name = \"empty\"\n".to_string(), "nodes", vec!["no nodes"]),
        (with("[[loss]]\nrate = 1.5"), "loss[0].rate", vec!["1.5 is not allowed", "probability in [0, 1]"]),
        (with("[[loss]]\nlinks = [[0, 7]]\nrate = 0.1"), "loss[0].links[0][1]", vec!["node 7 does not exist"]),
        (with("[[loss]]\nlinks = [[0, 1], [0, 1]]"), "loss[0].links[1]", vec!["listed twice"]),
        (with("[[loss]]\nlinks = [[0, 1, 2]]"), "loss[0].links[0]", vec!["[0, 1, 2] is not allowed", "exactly 2"]),
        (with("[[loss]]\nschedule = [{from_s = 5, to_s = 5, rate = 0.1}]"), "loss[0].schedule[0].to_s", vec!["5.0 is not allowed", "after from_s"]),
        (with("[[loss]]\nschedule = [{from_s = 0, rate = -0.1}]"), "loss[0].schedule[0].rate", vec!["-0.1 is not allowed"]),
        (with("[mac]\ndata_rate_mbps = 54"), "mac.data_rate_mbps", vec!["54.0 is not allowed", "802.11b", "1, 2, 5.5, 11"]),
        (with("[mac]\nstandard = \"802.11g\"\nbasic_rate_mbps = 1"), "mac.data_rate_mbps", vec!["2.0 is not allowed", "802.11g"]),
        (with("[mac]\nstandard = \"802.11n\""), "mac.standard", vec!["\"802.11n\" is not allowed", "\"802.11b\", \"802.11g\""]),
        (with("[mac]\ncw_min = 20"), "mac.cw_min", vec!["20 is not allowed", "2^k - 1"]),
        (with("[mac]\ncw_min = 63\ncw_max = 31"), "mac.cw_min", vec!["63 is not allowed", "cw_min <= cw_max"]),
        (with("[mac]\ncw_min = 2047"), "mac.cw_min", vec!["2047 is not allowed", "cw_max = 1023"]),
        (with("[mac]\nshort_retry_limit = 0"), "mac.short_retry_limit", vec!["0 is not allowed"]),
        (with("[mac]\nqueue_packets = 2.5"), "mac.queue_packets", vec!["2.5 is not allowed"]),
        (with("[mac]\nretransmissions = \"yes\""), "mac.retransmissions", vec!["\"yes\" is not allowed", "a boolean"]),
        (with("[channel]\nrx_range_m = 0"), "channel.rx_range_m", vec!["0.0 is not allowed"]),
        (with("[channel]\ncs_range_m = 200"), "channel.cs_range_m", vec!["200.0 is not allowed", "at least rx_range_m = 250.0"]),
        (with("[channel]\ninterference_range_m = 100"), "channel.interference_range_m", vec!["100.0 is not allowed", "rx_range_m"]),
        (with("[channel]\nrx_threshold_w = 0"), "channel.rx_threshold_w", vec!["0.0 is not allowed"]),
        (with("[channel]\nmodel = \"linktable\""), "channel.links", vec!["no links", "linktable"]),
        (with("[channel]\nmodel = \"linktable\"\nlinks = [{a = 0, b = 5, p_ab = 1, p_ba = 1}]"), "channel.links[0].b", vec!["node 5 does not exist"]),
        (with("[channel]\nmodel = \"linktable\"\nlinks = [{a = 1, b = 1, p_ab = 1, p_ba = 1}]"), "channel.links[0].b", vec!["1 is not allowed", "two different nodes"]),
        (with("[channel]\nmodel = \"linktable\"\nlinks = [{a = 0, b = 1, p_ab = 1.2, p_ba = 1}]"), "channel.links[0].p_ab", vec!["1.2 is not allowed"]),
        (
            with("[channel]\nmodel = \"linktable\"\nlinks = [{a = 0, b = 1, p_ab = 1, p_ba = 1}, {a = 1, b = 0, p_ab = 1, p_ba = 1}]"),
            "channel.links[1]",
            vec!["listed twice"],
        ),
        (with("[channel]\nlinks = [{a = 0, b = 1, p_ab = 1, p_ba = 1}]"), "channel.links", vec!["\"range\"", "only used with model = \"linktable\""]),
        (with("[channel]\nlinks = [{a = 0, b = 1, p_ab = 1, p_ba = 1, q = 2}]"), "channel.links[0].q", vec!["unknown field 'q' in channel.links[0]"]),
        (with("[routing]\npaths = 0"), "routing.paths", vec!["0 is not allowed"]),
        (
            with("[routing]\ndisjoint_paths = 2"),
            "routing.disjoint_paths",
            vec!["this field is now routing.paths"],
        ),
        (
            with("[scheme]\ntwo_hop = true"),
            "scheme.two_hop",
            vec!["this field is now scheme.xor.two_hop"],
        ),
        (
            with("[scheme.piggycode]\nat_head = true"),
            "scheme.piggycode.at_head",
            vec!["this field is now scheme.piggycode.placement", "placement = \"stack\""],
        ),
        (
            with("[scheme.comp]\nloss_credits = true"),
            "scheme.comp.loss_credits",
            vec!["this field is now scheme.comp.compensation", "compensation = \"both\""],
        ),
        (
            with("[scheme]\nname = \"xor\""),
            "scheme.name",
            vec!["\"xor\" is not a coding scheme", "none, cope, ncaqm, bfly"],
        ),
        (
            with("[scheme.xor]\nthreshold = 1.5"),
            "scheme.xor.threshold",
            vec!["1.5 is not allowed", "probability"],
        ),
        (with("[routing]\nttl = 0"), "routing.ttl", vec!["0 is not allowed", "[1, 255]"]),
        (with("[routing]\nttl = 300"), "routing.ttl", vec!["300 is not allowed"]),
        (with("[tcp]\nmss_bytes = 0"), "tcp.mss_bytes", vec!["0 is not allowed"]),
        (with("[tcp]\nmss_bytes = 70000"), "tcp.mss_bytes", vec!["70000 is not allowed", "65535"]),
        (with("[tcp]\ninitial_cwnd_segments = 0"), "tcp.initial_cwnd_segments", vec!["0 is not allowed"]),
        (with("[tcp]\nmin_rto_s = 0"), "tcp.min_rto_s", vec!["0.0 is not allowed"]),
        (with("[tcp]\nmax_rto_s = 0.5"), "tcp.max_rto_s", vec!["0.5 is not allowed", "min_rto_s = 1.0"]),
        (with("[tcp]\ndelayed_ack_count = 0"), "tcp.delayed_ack_count", vec!["0 is not allowed"]),
        (with("[tcp]\nrcv_buffer_bytes = 500"), "tcp.rcv_buffer_bytes", vec!["500 is not allowed", "mss_bytes = 1000"]),
        (with("[tcp]\nvariant = \"bbr2\""), "tcp.variant", vec!["\"bbr2\" is not allowed", "\"newreno\""]),
        (with("[tcp]\nrack = true"), "tcp.rack", vec!["true is not allowed", "tcp.sack = true"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\napp = \"cbr\"\n"), "flows[0].rate_kbps", vec!["cbr", "rate_kbps"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\napp = \"cbr\"\nrate_kbps = 0\n"), "flows[0].rate_kbps", vec!["0.0 is not allowed"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\nstart_s = 60\n"), "flows[0].start_s", vec!["60.0 is not allowed"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\nstart_s = 5\nstop_s = 5\n"), "flows[0].stop_s", vec!["5.0 is not allowed", "after start_s"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\nroute = [1, 2]\n"), "flows[0].route[0]", vec!["1 is not allowed", "start at the flow's source 0"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\nroute = [0, 1]\n"), "flows[0].route[1]", vec!["1 is not allowed", "end at the flow's destination 2"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\nroute = [0, 1, 0, 2]\n"), "flows[0].route[2]", vec!["node 0 is repeated"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\nroute = [0, 8, 2]\n"), "flows[0].route[1]", vec!["node 8 does not exist"]),
        (format!("{NODES}[[flows]]\nsrc = 0\ndst = 2\ntransport = \"sctp\"\n"), "flows[0].transport", vec!["\"sctp\" is not allowed"]),
        (with("[mac]\nqueue_packets = 3\nqueue_packets = 4"), "mac.queue_packets", vec!["TOML syntax error at line", "duplicate"]),
        (with("[simulation]\nduration_s = \"long\""), "simulation.duration_s", vec!["\"long\" is not allowed", "a number"]),
        (with("mac = 3"), "mac", vec!["3 is not allowed", "a table"]),
    ]
}

#[test]
fn malformed_scenarios_are_rejected_with_the_field_path() {
    let cases = bad_cases();
    assert!(cases.len() >= 20);
    for (text, field, needles) in cases {
        let e = parse_toml(&text).expect_err(&format!("accepted:\n{text}"));
        assert_eq!(e.field, field, "wrong field for:\n{text}\n-> {e}");
        for n in needles {
            assert!(
                e.message.contains(n),
                "message {:?} lacks {n:?} for:\n{text}",
                e.message
            );
        }
        let shown = e.to_string();
        assert!(!shown.contains('\n'), "{shown}");
        assert!(shown.starts_with(&format!("{field}: ")), "{shown}");
    }
}

#[test]
fn json_errors_name_the_path_too() {
    let e =
        parse_json(r#"{"nodes": [{"x": 0, "y": 0}], "mac": {"queue_packets": -3}}"#).unwrap_err();
    assert_eq!(e.field, "mac.queue_packets");
    assert!(
        e.message
            .starts_with("-3 is not allowed: expected a non-negative integer"),
        "{e}"
    );
    let e = parse_json(r#"{"nodes": [{"x": 0, "y": 0}], "mac": {"foo": 1}}"#).unwrap_err();
    assert_eq!(e.field, "mac.foo");
    assert!(
        e.message
            .contains("unknown field 'foo' in [mac]; allowed: standard"),
        "{e}"
    );
    let e = parse_json(r#"{"nodes": [{"x": 0, "y": 0}]} trailing"#).unwrap_err();
    assert_eq!(e.field, "");
    assert!(e.message.contains("JSON syntax error"), "{e}");
    let e = parse_json(r#"{"nodes": [{"x": 0, "y": 0}], "flows": [{"src": 0, "dst": 3}]}"#)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "flows[0].dst: node 3 does not exist (scenario has 1 node: 0)"
    );
    // any serde deserializer
    let v = json!({"nodes": [{"x": 0, "y": 0}, {"x": 1, "y": 0}], "simulation": {"duration_s": 0}});
    let e = from_deserializer(v).unwrap_err();
    assert_eq!(e.field, "simulation.duration_s");
}

#[test]
fn toml_syntax_errors_are_one_line() {
    let e = parse_toml("[[nodes]]\nx = 0\ny = \n").unwrap_err();
    assert_eq!(e.field, "nodes.y");
    assert!(e.message.starts_with("TOML syntax error at line 3"), "{e}");
    assert!(!e.to_string().contains('\n'));
    let e = parse_toml("[mac\n").unwrap_err();
    assert_eq!(e.field, "");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn display_and_new() {
    let e = ScenarioError::new("mac.queue_packets", "bad\nthing");
    assert_eq!(e.to_string(), "mac.queue_packets: bad; thing");
    let e: Box<dyn std::error::Error> = Box::new(ScenarioError::new("", "x"));
    assert_eq!(e.to_string(), "x");
}

#[test]
fn documented_example_parses() {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario-format.md");
    let Ok(doc) = std::fs::read_to_string(p) else {
        return;
    };
    let i = doc.find("```toml\n").expect("example block") + 8;
    let j = i + doc[i..].find("```").unwrap();
    let s = parse_toml(&doc[i..j]).unwrap_or_else(|e| panic!("docs example: {e}"));
    assert_eq!((s.nodes.len(), s.flows.len(), s.loss.len()), (5, 1, 1));
    round_trip(&s);
}

mod presets {
    use super::super::preset::{fields, Preset, PRESETS};
    use super::super::{parse_json, parse_toml, to_toml};
    use toml::Value;

    const MINIMAL: &str = "[[nodes]]\nx = 0.0\ny = 0.0\n[[nodes]]\nx = 200.0\ny = 0.0\n";

    /// The scenario's field at a dotted path, as TOML.
    fn field(s: &super::super::Scenario, path: &str) -> Value {
        let v = Value::try_from(s).unwrap();
        let (t, k) = path.split_once('.').unwrap();
        v[t][k].clone()
    }

    #[test]
    fn each_preset_sets_exactly_its_documented_values() {
        for (preset, _, list) in PRESETS {
            let name = crate::check::name(preset);
            let s = parse_toml(&format!("preset = {name}\n{MINIMAL}")).unwrap();
            assert_eq!(s.preset, *preset);
            for f in *list {
                assert_eq!(
                    field(&s, f.path),
                    f.value.to_toml(1000),
                    "{name}: {}",
                    f.path
                );
            }
            // Nothing else moves: the fields it does not list keep ncmesh's defaults.
            let plain = parse_toml(MINIMAL).unwrap();
            let (a, b) = (
                Value::try_from(&s).unwrap(),
                Value::try_from(&plain).unwrap(),
            );
            for (table, v) in a.as_table().unwrap() {
                let Some(t) = v.as_table() else { continue };
                for (k, x) in t {
                    let listed = list.iter().any(|f| f.path == format!("{table}.{k}"));
                    if !listed {
                        assert_eq!(
                            Some(x),
                            b[table.as_str()].get(k),
                            "{name}: {table}.{k} changed"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_field_the_scenario_gives_wins_and_the_window_follows_its_segment_size() {
        let s = parse_toml(&format!(
            "preset = \"ns2\"\n[tcp]\nmin_rto_s = 1.0\nmss_bytes = 1024\n[mac]\nrts_threshold_bytes = 3000\n{MINIMAL}"
        ))
        .unwrap();
        assert_eq!(s.tcp.min_rto_s, 1.0);
        assert_eq!(s.mac.rts_threshold_bytes, 3000);
        assert_eq!(
            s.tcp.rcv_buffer_bytes,
            20 * 1024,
            "ns-2's window_ is 20 packets"
        );
        assert_eq!(s.tcp.initial_rto_s, 3.0);
    }

    #[test]
    fn the_canonical_text_names_the_preset_and_reads_back_the_same() {
        let s = parse_toml(&format!("preset = \"ns2\"\n{MINIMAL}")).unwrap();
        let text = to_toml(&s);
        assert!(text.contains("\nname = \"\"\npreset = \"ns2\"\n"), "{text}");
        assert_eq!(parse_toml(&text).unwrap(), s);
        // Without a preset the text has no preset line (stored runs keep their keys).
        assert!(!to_toml(&parse_toml(MINIMAL).unwrap()).contains("preset"));
        assert_eq!(fields(Preset::None).len(), 0);
    }

    #[test]
    fn json_and_toml_name_presets_alike_and_a_wrong_one_is_one_line() {
        let json = r#"{"preset": "ns2", "nodes": [{"x": 0.0, "y": 0.0}, {"x": 200.0, "y": 0.0}]}"#;
        let t = parse_toml(&format!("preset = \"ns2\"\n{MINIMAL}")).unwrap();
        assert_eq!(parse_json(json).unwrap(), t);
        let e = parse_toml(&format!("preset = \"ns3\"\n{MINIMAL}")).unwrap_err();
        assert_eq!(e.field, "preset");
        assert_eq!(
            e.message,
            "\"ns3\" is not allowed: expected one of \"none\", \"ns2\", \"linux\""
        );
    }

    #[test]
    fn linux_is_todays_tcp_and_keeps_rack_tied_to_sack() {
        let s = parse_toml(&format!("preset = \"linux\"\n{MINIMAL}")).unwrap();
        let t = &s.tcp;
        assert_eq!(t.variant, super::super::schema::TcpVariant::Cubic);
        assert!(t.sack && t.rack && t.prr && t.delayed_ack);
        assert_eq!(
            (t.initial_cwnd_segments, t.min_rto_s, t.initial_rto_s),
            (10, 0.2, 1.0)
        );
        assert_eq!(t.rcv_buffer_bytes, 131_072);
        // Turning SACK off under the preset leaves RACK on: one line naming tcp.rack.
        let e = parse_toml(&format!(
            "preset = \"linux\"\n[tcp]\nsack = false\n{MINIMAL}"
        ))
        .unwrap_err();
        assert_eq!(e.field, "tcp.rack");
    }

    #[test]
    fn on_a_complete_scenario_a_preset_gives_only_the_fields_still_at_ncmeshs_defaults() {
        use super::super::preset::overlay;
        let mut built = super::super::build(
            "chain",
            &super::super::BuildOptions::new().with("hops", 2u64),
        )
        .unwrap();
        built.tcp.min_rto_s = 0.5; // the user's own value
        let s = overlay(&built, Preset::Ns2).unwrap();
        assert_eq!(s.preset, Preset::Ns2);
        assert_eq!(s.tcp.min_rto_s, 0.5, "a changed field keeps its value");
        assert_eq!(s.tcp.initial_rto_s, 3.0);
        assert_eq!(s.channel.model, super::super::ChannelModel::Tworay);
        assert_eq!(s.nodes, built.nodes, "the builder's topology stays");
        assert_eq!(
            overlay(&s, Preset::Ns2).unwrap(),
            s,
            "applying it twice changes nothing"
        );
    }
}
