//! The column reference of docs/results-format.md, generated from the result types.
//!
//! One source of truth: the `///` comments of the structs in `metrics/result.rs` (read
//! from the source, in declaration order) and each coding family's counter list
//! (`family_counters!`: column, unit, meaning), with the schemes that set them from the
//! registry. The test fails when the section of docs/results-format.md between the
//! markers differs, and rewrites it when run with NCMESH_UPDATE_DOCS=1:
//!
//!     NCMESH_UPDATE_DOCS=1 cargo test -p ncmesh-core metrics::reference

use crate::coding::registry::{FAMILIES, INTRA, SCHEMES};

const DOC: &str = "docs/results-format.md";
const BEGIN: &str = "<!-- BEGIN column reference: generated from crates/ncmesh-core/src/metrics/result.rs \
and the coding families' counter lists (NCMESH_UPDATE_DOCS=1 cargo test -p ncmesh-core metrics::reference); \
edit the doc comments there, not this -->";
const END: &str = "<!-- END column reference -->";

/// The tables, the struct each row is, and what a row is.
const TABLES: &[(&str, &str, &str)] = &[
    ("flows", "FlowResult", "One row per flow"),
    (
        "nodes",
        "NodeResult",
        "One row per node; the coding counters below follow as more columns",
    ),
    (
        "flow_series",
        "FlowSample",
        "One row per flow and sample (`simulation.series_interval_s`)",
    ),
    ("node_series", "NodeSample", "One row per node and sample"),
    (
        "conservation",
        "Conservation",
        "One account per run (`result.conservation`), not a table",
    ),
];

/// Units named by field-name suffixes (the rest say theirs in the meaning).
const UNITS: &[(&str, &str)] = &[
    ("_kbps", "kbit/s"),
    ("_ms", "ms"),
    ("_bytes", "bytes"),
    ("_s", "s"),
];

fn unit(field: &str, ty: &str) -> &'static str {
    match field {
        "x" | "y" => return "m",
        "airtime_busy" => return "fraction",
        _ => {}
    }
    if let Some((_, u)) = UNITS.iter().find(|(s, _)| field.ends_with(s)) {
        return u;
    }
    match ty {
        "u64" => "count",
        _ => "",
    }
}

/// (field, type, doc) of struct `name` in `src`, in declaration order.
fn fields(src: &str, name: &str) -> Vec<(String, String, String)> {
    let start = src
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("struct {name} in metrics/result.rs"));
    let body = &src[start..start + src[start..].find("\n}\n").expect("struct end")];
    let mut out = Vec::new();
    let mut doc: Vec<&str> = Vec::new();
    for line in body.lines().skip(1) {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("///") {
            doc.push(d.trim());
        } else if let Some(rest) = t.strip_prefix("pub ") {
            let (field, ty) = rest.split_once(':').expect("field: type");
            let ty = ty.trim().trim_end_matches(',');
            out.push((field.to_string(), ty.to_string(), doc.join(" ")));
            doc.clear();
        } else if !t.starts_with("#[") {
            doc.clear();
        }
    }
    out
}

fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The schemes (`scheme.name` values, and `scheme.intra` values as `intra = …`) that
/// count family `family`'s counters.
fn schemes_of(family: &str) -> String {
    let mut names: Vec<String> = SCHEMES
        .iter()
        .filter(|s| s.families.contains(&family))
        .map(|s| format!("`{}`", s.name))
        .collect();
    names.extend(
        INTRA
            .iter()
            .filter(|s| s.families.contains(&family))
            .map(|s| format!("`intra = {}`", s.name)),
    );
    names.join(", ")
}

/// The generated section.
fn markdown() -> String {
    let src = include_str!("result.rs");
    let mut out = String::new();
    for (table, ty, what) in TABLES {
        out.push_str(&format!("\n### `{table}`\n\n{what}.\n\n"));
        out.push_str("| column | unit | meaning |\n|---|---|---|\n");
        for (field, ty, doc) in fields(src, ty) {
            if field == "coding" {
                continue; // the counters, below
            }
            out.push_str(&format!(
                "| `{field}` | {} | {} |\n",
                unit(&field, &ty),
                cell(&doc)
            ));
        }
    }
    out.push_str(
        "\n### Coding counters (`nodes`)\n\nEvery node has every family's counters, 0 where \
         its schemes do not count them, so result tables of different schemes share their \
         columns. Set by: the `scheme.name` (or `scheme.intra`) values whose layers count \
         them.\n",
    );
    for f in FAMILIES.iter().filter(|f| !f.counters.is_empty()) {
        out.push_str(&format!(
            "\n#### `[scheme.{}]` — set by {}\n\n| column | unit | meaning |\n|---|---|---|\n",
            f.name,
            schemes_of(f.name)
        ));
        for c in f.counters {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                c.name,
                c.unit,
                cell(&c.meaning_line())
            ));
        }
    }
    out
}

#[test]
fn column_reference_in_the_docs_is_generated_from_the_result_types() {
    crate::generated_doc::check_section(
        DOC,
        BEGIN,
        END,
        &markdown(),
        "NCMESH_UPDATE_DOCS=1 cargo test -p ncmesh-core metrics::reference",
    );
}

#[test]
fn every_column_a_run_reports_is_in_the_reference() {
    // The rows as serialized (the Python tables' columns): each key has a row.
    let mut s = crate::scenario::build("chain", &crate::scenario::BuildOptions::new()).unwrap();
    s.simulation.duration_s = 2.0;
    s.simulation.measure_start_s = 0.5;
    let r = crate::sim::run(&s).unwrap();
    let md = markdown();
    let value = serde_json::to_value(&r).unwrap();
    for table in ["flows", "nodes", "flow_series", "node_series"] {
        for row in value[table].as_array().unwrap().iter().take(1) {
            for key in row.as_object().unwrap().keys() {
                assert!(md.contains(&format!("| `{key}` |")), "{table}.{key}");
            }
        }
    }
    for key in value["conservation"].as_object().unwrap().keys() {
        assert!(md.contains(&format!("| `{key}` |")), "conservation.{key}");
    }
    // And no column the rows do not have.
    assert!(!md.contains("| `coding` |"));
}

#[test]
fn every_counter_has_a_unit_and_a_meaning() {
    for f in FAMILIES {
        for c in f.counters {
            assert!(
                !c.unit.is_empty() && !c.meaning_line().is_empty(),
                "{}",
                c.name
            );
        }
    }
    let mut names = crate::coding::registry::counter_names();
    let n = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n, "counter columns are unique");
}
