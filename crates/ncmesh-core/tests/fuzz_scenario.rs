//! Property tests ("fuzzing") of everything that reads user input: the scenario parser
//! (TOML and JSON), semantic validation, building the simulator from a scenario, and
//! the scenario builders' options. Arbitrary documents and mutations of valid scenarios
//! go in; nothing may panic: every outcome is a scenario or a ScenarioError with a
//! one-line message.
//!
//! Deterministic and bounded: a fixed-seed ChaCha generator and a fixed number of cases
//! (a few seconds in release mode). NCMESH_FUZZ_CASES=N runs N cases per property instead.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ncmesh_core::scenario::{self, BuildOptions, Scenario};
use ncmesh_core::sim::Sim;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value as Json;
use toml::Value;

fn cases(default: u32) -> u32 {
    std::env::var("NCMESH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(n: u32) -> TestRunner {
    let config = Config {
        cases: cases(n),
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

/// What a reader must do with any input: return, with a one-line error if it fails.
fn no_panic<T>(
    what: &str,
    input: &str,
    f: impl FnOnce() -> Result<T, scenario::ScenarioError>,
) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Some(v),
        Ok(Err(e)) => {
            let line = e.to_string();
            assert!(
                !line.contains('\n'),
                "{what}: a multi-line error for {input:?}: {line}"
            );
            assert!(
                !line.trim().is_empty(),
                "{what}: an empty error for {input:?}"
            );
            None
        }
        Err(_) => panic!("{what} panicked on input:\n{input}"),
    }
}

/// Validated scenarios are built into a simulator (routes, flows: the checks `run` makes
/// before simulating), which must not panic either. Scenarios too large to build
/// quickly are left out (their size is legal; time is not what is tested here).
fn build_sim(s: &Scenario, input: &str) {
    if s.nodes.len() > 400 || s.flows.len() > 400 {
        return;
    }
    no_panic("Sim::new", input, || Sim::new(s).map(|_| ()));
}

// ---------------------------------------------------------------- values

/// Scalars chosen to hit edges: signs, zero, huge, non-finite, wrong types.
fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            -1i64,
            0,
            1,
            2,
            3,
            7,
            31,
            255,
            1000,
            65535,
            i64::from(u32::MAX),
            i64::MAX,
            i64::MIN
        ])
        .prop_map(Value::Integer),
        any::<i64>().prop_map(Value::Integer),
        prop::sample::select(vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            -1.0,
            1e-12,
            2.5,
            60.0,
            1e300,
            -1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY
        ])
        .prop_map(Value::Float),
        any::<bool>().prop_map(Value::Boolean),
        prop::sample::select(vec![
            "",
            "range",
            "tworay",
            "linktable",
            "cope",
            "ncaqm",
            "bfly",
            "none",
            "tcp",
            "udp",
            "cbr",
            "bulk",
            "802.11g",
            "newreno",
            "nc-aware",
            "etx",
            "all",
            "x\ny"
        ])
        .prop_map(|s| Value::String(s.into())),
        "[a-z_]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..4)
                .prop_map(|m| Value::Table(m.into_iter().collect())),
        ]
    })
}

/// Keys of the format (so that mutations reach deep fields) and some that are not.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "name", "simulation", "channel", "loss", "mac", "routing", "tcp", "scheme", "nodes",
            "flows", "duration_s", "seed", "measure_start_s", "measure_end_s", "series_interval_s",
            "model", "reception", "links", "rate", "schedule", "from_s", "to_s", "frames", "a", "b",
            "p_ab", "p_ba", "x", "y", "waypoints", "t_s", "src", "dst", "route", "start_s",
            "stop_s", "app", "rate_kbps", "transport", "queue_packets", "cw_min", "cw_max",
            "rts_threshold_bytes", "data_rate_mbps", "standard", "variant", "sack", "mss_bytes",
            "rcv_buffer_bytes", "two_hop", "max_code", "threshold", "metric", "disjoint_paths",
            "min_delivery", "ttl", "fading", "noise_w", "cs_range_m", "rx_range_m", "spread",
            "follow_mobility", "paths", "report_lag", "adaptive"
        ])
        .prop_map(String::from),
        1 => "[a-z_]{1,10}",
    ]
}

// ---------------------------------------------------------------- documents

fn valid_base() -> Vec<Value> {
    let mut out = Vec::new();
    for (kind, opts) in [
        ("chain", BuildOptions::new().with("hops", 3)),
        ("cross", BuildOptions::new()),
        ("butterfly", BuildOptions::new()),
        (
            "grid",
            BuildOptions::new()
                .with("rows", 3)
                .with("cols", 3)
                .with("flows", 2),
        ),
    ] {
        let mut s = scenario::build(kind, &opts).expect("a valid scenario");
        s.loss.push(Default::default());
        let text = scenario::to_toml(&s);
        out.push(Value::Table(
            text.parse::<toml::Table>().expect("to_toml parses"),
        ));
    }
    out
}

#[derive(Debug, Clone)]
enum Edit {
    Set(Vec<String>, Option<usize>, Value),
    Remove(Vec<String>),
}

fn path() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(key(), 1..4)
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (path(), prop::option::of(0usize..6), value()).prop_map(|(p, i, v)| Edit::Set(p, i, v)),
        1 => path().prop_map(Edit::Remove),
    ]
}

/// Applies an edit: walks (and creates) tables along the path; an index picks an
/// element of the first array met on the way.
fn apply(doc: &mut Value, e: &Edit) {
    let (path, index, new) = match e {
        Edit::Set(p, i, v) => (p.as_slice(), *i, Some(v)),
        Edit::Remove(p) => (p.as_slice(), None, None),
    };
    walk(doc, path, index, new);
}

fn walk(node: &mut Value, path: &[String], index: Option<usize>, new: Option<&Value>) {
    if let (Value::Array(items), Some(i)) = (&mut *node, index) {
        if !items.is_empty() {
            let n = items.len();
            walk(&mut items[i % n], path, None, new);
        }
        return;
    }
    let (Value::Table(t), Some((k, rest))) = (node, path.split_first()) else {
        return;
    };
    if rest.is_empty() {
        match new {
            Some(v) => {
                t.insert(k.clone(), v.clone());
            }
            None => {
                t.remove(k);
            }
        }
        return;
    }
    let child = t
        .entry(k.clone())
        .or_insert_with(|| Value::Table(Default::default()));
    walk(child, rest, index, new);
}

fn parse_everything(text: &str) {
    if let Some(s) = no_panic("parse_toml", text, || scenario::parse_toml(text)) {
        // to_toml of a valid scenario parses back to the same scenario
        let again = scenario::to_toml(&s);
        let back = no_panic("parse_toml(to_toml)", &again, || {
            scenario::parse_toml(&again)
        })
        .unwrap_or_else(|| panic!("to_toml output does not parse back:\n{again}"));
        assert_eq!(back, s, "to_toml round trip of\n{text}");
        build_sim(&s, text);
    }
}

#[test]
fn arbitrary_toml_documents() {
    let doc = prop::collection::btree_map(key(), value(), 0..8);
    runner(2000)
        .run(&doc, |m| {
            let table: toml::Table = m.into_iter().collect();
            parse_everything(&toml::to_string(&table).unwrap_or_default());
            Ok(())
        })
        .unwrap();
}

#[test]
fn arbitrary_text() {
    let text = prop_oneof![
        any::<String>(),
        "[\\[\\]a-z_.= \"0-9\n{},-]{0,80}",
        "(\\[\\[?(nodes|flows|loss|mac)\\]\\]?\n([a-z_]{1,8} = [-0-9.a-z\"\\[\\]]{1,6}\n){0,3}){0,4}",
    ];
    runner(3000)
        .run(&text, |t| {
            parse_everything(&t);
            no_panic("parse_json", &t, || scenario::parse_json(&t));
            Ok(())
        })
        .unwrap();
}

#[test]
fn mutations_of_valid_scenarios() {
    let bases = valid_base();
    let strategy = (0..bases.len(), prop::collection::vec(edit(), 1..5));
    runner(3000)
        .run(&strategy, |(b, edits)| {
            let mut doc = bases[b].clone();
            for e in &edits {
                apply(&mut doc, e);
            }
            let Value::Table(t) = &doc else {
                unreachable!()
            };
            let text = toml::to_string(t).unwrap_or_default();
            parse_everything(&text);
            // the same document as JSON (NaN and infinities are not JSON: left out)
            if let Ok(json) = serde_json::to_string(&doc) {
                no_panic("parse_json", &json, || scenario::parse_json(&json));
            }
            Ok(())
        })
        .unwrap();
}

/// Every leaf of a document: (path of keys and indices, value).
fn leaves(v: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                path.push(k.clone());
                leaves(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) if a.iter().any(|x| x.is_table() || x.is_array()) => {
            for (i, x) in a.iter().enumerate() {
                path.push(format!("#{i}"));
                leaves(x, path, out);
                path.pop();
            }
        }
        _ => out.push((path.clone(), v.clone())),
    }
}

fn set_leaf(v: &mut Value, path: &[String], new: Value) {
    let Some((k, rest)) = path.split_first() else {
        *v = new;
        return;
    };
    let child = match (v, k.strip_prefix('#')) {
        (Value::Array(a), Some(i)) => i.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
        (Value::Table(t), None) => t.get_mut(k),
        _ => None,
    };
    if let Some(c) = child {
        set_leaf(c, rest, new);
    }
}

/// A plausible value of the same type as `old`: most mutated scenarios stay valid, so
/// that odd but legal combinations reach the simulator's build.
fn nudge(old: &Value, pick: u32, scale: f64) -> Value {
    const WORDS: [&str; 17] = [
        "range",
        "tworay",
        "shadowing",
        "linktable",
        "ber",
        "capture",
        "cope",
        "ncaqm",
        "bfly",
        "none",
        "hops",
        "etx",
        "few",
        "ap",
        "nc-aware",
        "vegas",
        "all",
    ];
    match old {
        Value::Integer(i) => Value::Integer(match pick % 4 {
            0 => i64::from(pick % 8),
            1 => i + 1,
            2 => (i - 1).max(0),
            _ => (*i as f64 * scale) as i64,
        }),
        Value::Float(x) => Value::Float(match pick % 3 {
            0 => x * scale,
            1 => x + scale,
            _ => scale,
        }),
        Value::Boolean(b) => Value::Boolean(!b),
        Value::String(_) => Value::String(WORDS[pick as usize % WORDS.len()].into()),
        Value::Array(a) => {
            let mut a = a.clone();
            if pick.is_multiple_of(2) {
                a.pop();
            } else if let Some(first) = a.first().cloned() {
                a.push(first);
            }
            Value::Array(a)
        }
        other => other.clone(),
    }
}

#[test]
fn plausible_mutations_reach_the_simulator() {
    let bases = valid_base();
    let edits = prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            any::<u32>(),
            prop::sample::select(vec![0.0, 0.1, 0.5, 0.9, 1.0, 2.0, 3.0, 10.0, 250.0]),
        ),
        1..6,
    );
    let built = std::cell::Cell::new(0usize);
    runner(3000)
        .run(&(0..bases.len(), edits), |(b, edits)| {
            let mut doc = bases[b].clone();
            for (at, pick, scale) in edits {
                let mut all = Vec::new();
                leaves(&doc, &mut Vec::new(), &mut all);
                let (path, old) = at.get(&all).clone();
                set_leaf(&mut doc, &path, nudge(&old, pick, scale));
            }
            let Value::Table(t) = &doc else {
                unreachable!()
            };
            let text = toml::to_string(t).unwrap_or_default();
            if let Some(s) = no_panic("parse_toml", &text, || scenario::parse_toml(&text)) {
                built.set(built.get() + 1);
                build_sim(&s, &text);
            }
            Ok(())
        })
        .unwrap();
    // most of these stay valid: the property is exercised on scenarios that build
    let built = built.get();
    assert!(
        built * 4 > cases(3000) as usize,
        "only {built} valid scenarios"
    );
}

fn option_value() -> impl Strategy<Value = Json> {
    prop_oneof![
        prop::sample::select(vec![
            -1i64,
            0,
            1,
            2,
            3,
            4,
            5,
            8,
            16,
            64,
            101,
            1000,
            i64::MAX,
            i64::MIN
        ])
        .prop_map(Json::from),
        prop::sample::select(vec![-5.0, 0.0, 0.5, 1.5, 100.0, 150.0, 250.0, 1e9, 1e300])
            .prop_map(Json::from),
        prop::sample::select(vec![
            "", "explicit", "auto", "sqrt", "linear", "run", "3", "x"
        ])
        .prop_map(Json::from),
        any::<bool>().prop_map(Json::from),
        Just(Json::Null),
        Just(serde_json::json!([1, 2])),
    ]
}

#[test]
fn builder_options() {
    let kinds: Vec<&str> = scenario::build_kinds()
        .iter()
        .copied()
        .filter(|k| *k != "topology") // reads a file: tested with its example below
        .collect();
    let names = prop::sample::select(vec![
        "hops",
        "spacing",
        "flows",
        "rows",
        "cols",
        "nodes",
        "area",
        "seed",
        "duration",
        "measure_start",
        "start",
        "start_spread",
        "min_hops",
        "jitter",
        "arrival_rate",
        "routes",
        "tq_map",
        "max_nodes",
        "file",
        "layout_seed",
        "pairs",
        "pair",
        "paths",
        "bogus",
    ]);
    let strategy = (
        prop::sample::select(kinds),
        prop::collection::vec((names, option_value()), 0..5),
    );
    runner(2000)
        .run(&strategy, |(kind, opts)| {
            // keep the builders' work small: sizes are capped (legal larger sizes only
            // cost time, which is not what is tested here)
            let opts: Vec<(String, Json)> = opts
                .into_iter()
                .map(|(k, v)| {
                    let big = v.as_f64().is_some_and(|x| x > 64.0);
                    let capped =
                        matches!(k, "nodes" | "rows" | "cols" | "flows" | "hops" | "pairs") && big;
                    (k.to_string(), if capped { Json::from(9) } else { v })
                })
                .collect();
            let input = format!("{kind} {opts:?}");
            let built = no_panic("build", &input, || {
                scenario::build(kind, &BuildOptions::from_map(opts.clone()))
            });
            if let Some(s) = built {
                no_panic("validate(build)", &input, || scenario::validate(&s));
                build_sim(&s, &input);
            }
            Ok(())
        })
        .unwrap();
}
