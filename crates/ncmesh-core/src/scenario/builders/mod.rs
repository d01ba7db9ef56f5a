//! Scenario builders: complete scenarios (schema defaults, node positions in metres,
//! flows, a name) from a kind and a few options.
//!
//! Every kind is one row of [`KINDS`]: its name, its options, the function that builds it
//! and a one-line description. `options.rs` parses the options, `assemble.rs` holds the
//! pieces every builder puts together, `graph.rs` the graph utilities; the builders are in
//! `shapes.rs` (fixed shapes), `random.rs` (random layouts or endpoints), `cells.rs` (the
//! NCAQM paper's cell grid), `import.rs` (a Freifunk mesh snapshot) and `roofnet.rs`
//! (CoMP's set-up on a Roofnet-sized layout or a snapshot's positions); `pairs.rs` gives
//! the hop counts of an experiment's pairs ([`pair_stats`]).
//!
//! Geometry is chosen for the default range channel (receive = carrier-sense =
//! interference range 250 m; a link exists when the distance is <= 250 m). The
//! topologies of Seferoglu & Markopoulou, NCAQM (Alice-and-Bob, X, cross, wheel, its grid
//! as `cell-grid`, butterfly) follow its Section VI-A and Fig. 8; lost values (radius,
//! cells, arrival rate, flow lifetime) are
//! parameters with the defaults documented in docs/scenario-format.md.
//!
//! Random draws (grid pairs and jitter, random positions, topology pairs, the cell grid's
//! layout, endpoints and relays) come from `Rng::stream(seed, 0, Builder)`; random flow
//! start times from `Rng::stream(seed, 1, Builder)`, so changing the timing never moves a
//! node; the cell grid's flow lifetimes from `Rng::stream(seed, 2, Builder)`. `roofnet-like`
//! keeps one layout per experiment: its positions and pair list come from its
//! `layout_seed` (streams 0 and 3), not from `seed`.

mod assemble;
mod cells;
pub(super) mod graph;
mod import;
mod options;
mod pairs;
mod random;
mod roofnet;
pub(super) mod shapes;

pub use options::BuildOptions;
pub use pairs::PairStats;

use super::schema::Scenario;
use super::validate::validate;
use super::ScenarioError;
use options::{common, Common, Opts};

/// One scenario kind: its name, its options (besides the common ones: seed and timing), the
/// function that builds it and a one-line description.
struct Kind {
    name: &'static str,
    options: &'static [&'static str],
    build: fn(&Opts, &Common) -> Result<Scenario, ScenarioError>,
    help: &'static str,
}

/// Every scenario kind, in the order [`build_kinds`] lists them.
const KINDS: [Kind; 13] = [
    Kind {
        name: "chain",
        options: &["hops", "spacing"],
        build: shapes::chain,
        help: "nodes on a line, `spacing` apart; one TCP flow from the first to the last",
    },
    Kind {
        name: "x",
        options: &["spacing", "routes"],
        build: shapes::x_topology,
        help: "five nodes around a relay; flows west -> east and north -> south (the ns-3 anchor's X)",
    },
    Kind {
        name: "alice-bob",
        options: &["spacing"],
        build: shapes::alice_bob,
        help: "Alice, a relay, Bob; flows Alice -> Bob and Bob -> Alice",
    },
    Kind {
        name: "cross",
        options: &["spacing", "routes"],
        build: shapes::cross,
        help: "the X's five nodes; four flows, each to the opposite node through the centre",
    },
    Kind {
        name: "wheel",
        options: &["flows", "spacing"],
        build: shapes::wheel,
        help: "a centre relay and `flows` rim nodes, each sending to the opposite one",
    },
    Kind {
        name: "grid",
        options: &[
            "rows",
            "cols",
            "spacing",
            "flows",
            "min_hops",
            "jitter",
            "arrival_rate",
        ],
        build: random::grid,
        help: "rows x cols nodes (optionally jittered); `flows` random pairs at least `min_hops` apart",
    },
    Kind {
        name: "cell-grid",
        options: &[
            "rows",
            "cols",
            "cell",
            "pair_prob",
            "neighbours",
            "arrival_rate",
            "lifetime",
        ],
        build: cells::cell_grid,
        help: "the grid of Seferoglu & Markopoulou (NCAQM), §VI-A: 1-2 nodes per cell, Poisson TCP arrivals, relays in neighbouring cells",
    },
    Kind {
        name: "butterfly",
        options: &["routes"],
        build: shapes::butterfly,
        help: "two flows over one bottleneck, each sink overhearing the other flow's source",
    },
    Kind {
        name: "two-path",
        options: &["hops", "spacing", "width"],
        build: shapes::two_path,
        help: "a source and a destination joined by two disjoint strings of `hops` hops, `width` either side (Chen et al.'s multipath MANET)",
    },
    Kind {
        name: "diamond",
        options: &["relays", "spacing", "width", "loss", "cs_range"],
        build: shapes::diamond,
        help: "a source reaching the destination only through `relays` relays, CoMP's set-up and `loss` on every link (Gheorghiu et al.'s Fig. 1)",
    },
    Kind {
        name: "random",
        options: &["nodes", "area", "flows", "min_hops"],
        build: random::random,
        help: "`nodes` uniform in an `area` square, redrawn until connected; random flows",
    },
    Kind {
        name: "topology",
        options: &["file", "tq_map", "flows", "min_hops", "max_nodes"],
        build: import::topology,
        help: "a Freifunk mesh snapshot (JSON `file`): link table of its wifi links, ETX routing",
    },
    Kind {
        name: "roofnet-like",
        options: &[
            "nodes",
            "area",
            "file",
            "layout_seed",
            "pairs",
            "pair",
            "flows",
            "paths",
        ],
        build: roofnet::roofnet_like,
        help: "CoMP's set-up (Gheorghiu et al.): shadowing, 1 Mb/s, no RTS/CTS or MAC retries, ETX over d paths; a seeded Roofnet-sized layout (or a `file`'s positioned nodes) and entry `pair` of its pair list",
    },
];

/// The kinds' names, from [`KINDS`].
const NAMES: [&str; KINDS.len()] = {
    let mut names = [""; KINDS.len()];
    let mut i = 0;
    while i < KINDS.len() {
        names[i] = KINDS[i].name;
        i += 1;
    }
    names
};

/// The builder kinds `build` accepts.
pub fn build_kinds() -> &'static [&'static str] {
    &NAMES
}

/// (kind, one-line description) of every builder kind, in the order of [`build_kinds`].
pub fn build_kind_help() -> impl Iterator<Item = (&'static str, &'static str)> {
    KINDS.iter().map(|k| (k.name, k.help))
}

/// The options builder kind `name` takes (its row of the table), for tests.
#[cfg(test)]
pub(super) fn kind_options(name: &str) -> &'static [&'static str] {
    KINDS
        .iter()
        .find(|k| k.name == name)
        .map_or(&[], |k| k.options)
}

/// The row of builder kind `kind` (case, `_` for `-` and a few aliases forgiven).
fn find_kind(kind: &str) -> Result<&'static Kind, ScenarioError> {
    let k = kind.trim().to_ascii_lowercase().replace('_', "-");
    let k = match k.as_str() {
        "alicebob" | "alice-and-bob" => "alice-bob".to_string(),
        _ => k,
    };
    KINDS.iter().find(|row| row.name == k).ok_or_else(|| {
        ScenarioError::new(
            "kind",
            format!(
                "\"{kind}\" is not a builder kind: expected one of {}",
                NAMES.join(", ")
            ),
        )
    })
}

/// Build a scenario of the given kind (see [`build_kinds`]); the result is validated.
pub fn build(kind: &str, opts: &BuildOptions) -> Result<Scenario, ScenarioError> {
    let row = find_kind(kind)?;
    let o = Opts::new(row.name, row.options, opts)?;
    let c = common(&o)?;
    let sc = (row.build)(&o, &c)?;
    validate(&sc)?;
    Ok(sc)
}

/// Hop counts of an experiment's pairs under the routing of the scenario `build(kind,
/// opts)` gives: for `roofnet-like`, every entry of its pair list (whichever `pair` the
/// run takes); for the other kinds, the built scenario's flows.
pub fn pair_stats(kind: &str, opts: &BuildOptions) -> Result<PairStats, ScenarioError> {
    let row = find_kind(kind)?;
    let o = Opts::new(row.name, row.options, opts)?;
    let c = common(&o)?;
    if row.name == "roofnet-like" {
        let e = roofnet::experiment(&o, &c)?;
        let flows: Vec<_> = e
            .pairs
            .iter()
            .map(|&(a, b)| assemble::tcp_flow(a, b, c.start))
            .collect();
        pairs::stats(&e.scenario, &flows)
    } else {
        let sc = (row.build)(&o, &c)?;
        validate(&sc)?;
        pairs::stats(&sc, &sc.flows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_one_row_with_its_options_and_help() {
        assert_eq!(build_kinds(), KINDS.map(|k| k.name));
        assert_eq!(
            build_kind_help().map(|(name, _)| name).collect::<Vec<_>>(),
            build_kinds()
        );
        for (i, row) in KINDS.iter().enumerate() {
            assert!(
                !KINDS[..i].iter().any(|k| k.name == row.name),
                "{}",
                row.name
            );
            assert!(
                !row.help.is_empty() && !row.help.contains('\n'),
                "{}",
                row.name
            );
            for opt in row.options.iter().chain(options::COMMON) {
                let given = BuildOptions::new().with(opt, 1);
                assert!(
                    Opts::new(row.name, row.options, &given).is_ok(),
                    "{}: {opt}",
                    row.name
                );
            }
            let e = Opts::new(row.name, row.options, &BuildOptions::new().with("nope", 1))
                .err()
                .unwrap();
            assert_eq!(e.field, "nope");
            assert!(e.message.contains(&format!("builder '{}'", row.name)));
            assert!(row.options.iter().all(|o| e.message.contains(o)));
        }
    }

    #[test]
    fn every_kind_builds_with_its_defaults_but_the_importer_which_needs_a_file() {
        for row in &KINDS {
            let built = build(row.name, &BuildOptions::new());
            if row.name == "topology" {
                assert_eq!(built.unwrap_err().field, "file");
            } else {
                assert!(built.is_ok(), "{}", row.name);
            }
        }
        let e = build("mesh", &BuildOptions::new()).unwrap_err();
        assert!(build_kinds().iter().all(|k| e.message.contains(k)));
    }
}
