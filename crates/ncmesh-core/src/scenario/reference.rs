//! The field reference of docs/scenario-format.md, generated from the scenario types.
//!
//! One source of truth: the types of `schema.rs`, their `///` comments and their
//! `Default`s. Their JSON Schema (schemars, a dev-dependency: the types derive
//! `JsonSchema` in test builds only) gives each field's description, type, default and
//! enum variants; field order is the order of declaration (read from the sources,
//! because the schema's property maps are sorted). `markdown()` renders it; the test
//! fails when the section of docs/scenario-format.md between the markers differs, and
//! rewrites it when run with NCMESH_UPDATE_DOCS=1:
//!
//!     NCMESH_UPDATE_DOCS=1 cargo test -p ncmesh-core scenario::reference
//!
//! Rendering: the top-level scalars form one table; a field holding a table is a
//! section `[name]` (nested tables: `[parent.name]`, recursively), a list of tables a
//! section `[[name]]`; inside a table, a list of tables (`channel.links`) gets its own
//! table after its parent's. Enum fields list their values, with each variant's
//! comment. The unit column comes from the field's suffix (`_s` seconds, `_m` metres,
//! ...).

use serde_json::{Map, Value};

const DOC: &str = "docs/scenario-format.md";
const BEGIN: &str = "<!-- BEGIN field reference: generated from crates/ncmesh-core/src/scenario/schema.rs \
(NCMESH_UPDATE_DOCS=1 cargo test -p ncmesh-core scenario::reference); edit the doc comments there, not this -->";
const END: &str = "<!-- END field reference -->";

/// Units named by field-name suffixes.
const UNITS: &[(&str, &str)] = &[
    ("_mbps", "Mbit/s"),
    ("_kbps", "kbit/s"),
    ("_mps", "m/s"),
    ("_hz", "Hz"),
    ("_db", "dB"),
    ("_bytes", "bytes"),
    ("_packets", "packets"),
    ("_segments", "segments"),
    ("_s", "s"),
    ("_m", "m"),
    ("_w", "W"),
];

fn unit(field: &str) -> &'static str {
    match field {
        "payload_bytes" => return "", // a flag, not a size
        "x" | "y" => return "m",
        _ => {}
    }
    UNITS
        .iter()
        .find(|(suffix, _)| field.ends_with(suffix))
        .map_or("", |(_, u)| u)
}

/// Field names of every struct declared in the scenario sources, in declaration order.
fn field_order() -> Vec<(String, Vec<String>)> {
    // The scenario's own types, and the coding families' tables (beside their code).
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut dirs = vec![
        std::path::PathBuf::from(root).join("scenario"),
        std::path::PathBuf::from(root).join("coding"),
    ];
    while let Some(dir) = dirs.pop() {
        for p in std::fs::read_dir(&dir)
            .expect("sources")
            .flatten()
            .map(|e| e.path())
        {
            if p.is_dir() {
                if dir.ends_with("coding") {
                    dirs.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable source");
        let mut current: Option<(String, Vec<String>)> = None;
        for line in text.lines() {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("pub struct ") {
                if let Some(name) = rest.strip_suffix(" {") {
                    current = Some((name.trim().to_string(), Vec::new()));
                }
            } else if t == "}" {
                if let Some(c) = current.take() {
                    out.push(c);
                }
            } else if let (Some(c), Some(rest)) = (current.as_mut(), t.strip_prefix("pub ")) {
                if let Some((name, _)) = rest.split_once(':') {
                    c.1.push(name.trim().to_string());
                }
            }
        }
    }
    // `SchemeCfg`'s family tables come from the registry's `families!` list, in its order.
    if let Some(scheme) = out.iter_mut().find(|(name, _)| name == "SchemeCfg") {
        let families = crate::coding::registry::FAMILIES.iter();
        scheme.1.extend(families.map(|f| f.name.to_string()));
    }
    out
}

struct Gen {
    defs: Map<String, Value>,
    order: Vec<(String, Vec<String>)>,
    out: String,
}

fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn def_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

impl Gen {
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match def_name(schema) {
            Some(name) => &self.defs[name],
            None => schema,
        }
    }

    /// `schema` without an `Option`'s null: (the inner schema, nullable).
    fn non_null<'a>(&'a self, schema: &'a Value) -> (&'a Value, bool) {
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alts)) = schema.get(key) {
                let rest: Vec<&Value> = alts
                    .iter()
                    .filter(|a| a.get("type") != Some(&Value::from("null")))
                    .collect();
                if rest.len() == 1 && alts.len() == 2 {
                    return (rest[0], true);
                }
            }
        }
        (schema, false)
    }

    /// The struct schema a field holds (a table), if any.
    fn table_of<'a>(&'a self, schema: &'a Value) -> Option<(&'a str, &'a Value)> {
        let (inner, _) = self.non_null(schema);
        let name = def_name(inner)?;
        let def = &self.defs[name];
        (def.get("properties").is_some()).then_some((name, def))
    }

    /// The struct schema of a list's items, if it is a list of tables.
    fn items_table<'a>(&'a self, schema: &'a Value) -> Option<(&'a str, &'a Value)> {
        let (inner, _) = self.non_null(schema);
        self.table_of(inner.get("items")?)
    }

    /// Properties of a struct schema in declaration order.
    fn fields<'a>(&'a self, name: &str, def: &'a Value) -> Vec<(&'a String, &'a Value)> {
        let props = def["properties"]
            .as_object()
            .expect("a struct has properties");
        let order = self
            .order
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.clone())
            .unwrap_or_default();
        let mut fields: Vec<_> = props.iter().collect();
        fields.sort_by_key(|(k, _)| order.iter().position(|o| o == *k).unwrap_or(usize::MAX));
        fields
    }

    /// Enum values (`"a"`, ...) and the variants' comments, if `schema` is an enum.
    fn variants(&self, schema: &Value) -> Option<Vec<(String, String)>> {
        let (inner, _) = self.non_null(schema);
        let def = self.resolve(inner);
        if let Some(Value::Array(values)) = def.get("enum") {
            return Some(
                values
                    .iter()
                    .map(|v| (v.to_string(), String::new()))
                    .collect(),
            );
        }
        let Value::Array(alts) = def.get("oneOf")? else {
            return None;
        };
        alts.iter()
            .map(|a| {
                let value = a.get("const").or_else(|| a.get("enum")?.get(0))?;
                let doc = a.get("description").and_then(Value::as_str).unwrap_or("");
                Some((value.to_string(), lower_first(&one_line(doc))))
            })
            .collect()
    }

    fn type_name(&self, schema: &Value) -> String {
        let (inner, _) = self.non_null(schema);
        if let Some(v) = self.variants(inner) {
            return v
                .iter()
                .map(|(value, _)| format!("`{value}`"))
                .collect::<Vec<_>>()
                .join(", ");
        }
        if self.table_of(inner).is_some() {
            return "table (below)".into();
        }
        if self.items_table(inner).is_some() {
            return "array of tables (below)".into();
        }
        let def = self.resolve(inner);
        let ty = match def.get("type") {
            Some(Value::Array(types)) => types
                .iter()
                .find(|t| *t != "null")
                .and_then(Value::as_str)
                .unwrap_or("value"),
            Some(Value::String(t)) => t.as_str(),
            _ => "value",
        };
        match ty {
            "number" => "float".into(),
            "integer" => "integer".into(),
            "boolean" => "bool".into(),
            "string" => "string".into(),
            "array" => {
                let items = def.get("items").cloned().unwrap_or(Value::Null);
                let item = self.type_name(&items);
                match def.get("maxItems") {
                    Some(n) if def.get("minItems") == Some(n) => {
                        let n = n.as_u64().unwrap_or(0) as usize;
                        format!("[{}]", vec![item; n].join(", "))
                    }
                    _ => format!("array of {}", plural(&item)),
                }
            }
            other => other.into(),
        }
    }

    fn default_text(&self, field: &str, schema: &Value, required: bool) -> String {
        if required {
            return "required".into();
        }
        let (inner, nullable) = self.non_null(schema);
        let is_list = self.resolve(inner).get("type") == Some(&Value::from("array"));
        match schema.get("default") {
            // a list left out of the output when empty (`skip_serializing_if`)
            None if is_list && !nullable => "`[]`".into(),
            None | Some(Value::Null) => "not set".into(),
            Some(Value::String(s)) => format!("`\"{s}\"`"),
            Some(Value::Array(a)) if a.is_empty() => "`[]`".into(),
            Some(v) => {
                let _ = field;
                format!("{v}")
            }
        }
    }

    fn meaning(&self, schema: &Value) -> String {
        let (inner, _) = self.non_null(schema);
        let mut text = one_line(
            schema
                .get("description")
                .or_else(|| self.resolve(inner).get("description"))
                .and_then(Value::as_str)
                .unwrap_or(""),
        );
        if let Some(vs) = self.variants(inner) {
            let docs: Vec<String> = vs
                .iter()
                .filter(|(_, d)| !d.is_empty())
                .map(|(v, d)| format!("`{v}`: {}", d.trim_end_matches('.')))
                .collect();
            if !docs.is_empty() {
                text = format!("{text} {}.", docs.join("; ")).trim().to_string();
            }
        }
        text
    }

    /// The table of one struct's fields (not those holding tables, which get their own
    /// sections), then the tables of its lists of tables and of its nested tables.
    fn table(&mut self, path: &str, name: &str, def: &Value, heading: usize) {
        let required: Vec<String> = def
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let fields: Vec<(String, Value)> = self
            .fields(name, def)
            .into_iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut rows = Vec::new();
        let mut nested = Vec::new();
        for (field, schema) in &fields {
            if let Some((inner, idef)) = self.table_of(schema) {
                nested.push((field.clone(), inner.to_string(), idef.clone(), false));
                continue;
            }
            if let Some((inner, idef)) = self.items_table(schema) {
                nested.push((field.clone(), inner.to_string(), idef.clone(), true));
            }
            rows.push(format!(
                "| `{field}` | {} | {} | {} | {} |",
                self.type_name(schema),
                self.default_text(field, schema, required.contains(field)),
                unit(field),
                self.meaning(schema)
            ));
        }
        if !rows.is_empty() {
            self.out
                .push_str("| field | type | default | unit | meaning |\n|---|---|---|---|---|\n");
            for r in rows {
                self.out.push_str(&r);
                self.out.push('\n');
            }
            self.out.push('\n');
        }
        for (field, inner, idef, list) in nested {
            let sub = if path.is_empty() {
                field.clone()
            } else {
                format!("{path}.{field}")
            };
            self.section(&sub, &inner, &idef, list, heading + 1, &fields);
        }
    }

    fn section(
        &mut self,
        path: &str,
        name: &str,
        def: &Value,
        list: bool,
        heading: usize,
        parent_fields: &[(String, Value)],
    ) {
        let title = if list {
            format!("[[{path}]]")
        } else {
            format!("[{path}]")
        };
        self.out
            .push_str(&format!("{} `{title}`\n\n", "#".repeat(heading)));
        // The type's comment; the field's own comment is in the parent's row (lists) or
        // stands in when the type has none.
        let field = path.rsplit('.').next().unwrap_or(path);
        let intro = def
            .get("description")
            .or_else(|| {
                parent_fields
                    .iter()
                    .find(|(f, _)| f.as_str() == field)
                    .and_then(|(_, s)| s.get("description"))
            })
            .and_then(Value::as_str)
            .map(one_line);
        if let Some(intro) = intro {
            self.out.push_str(&intro);
            self.out.push_str("\n\n");
        }
        self.table(path, name, def, heading);
    }
}

/// "Fixed ranges" -> "fixed ranges" (it follows a colon); "COPE ..." stays.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && b.is_lowercase() => a
            .to_lowercase()
            .chain(text[a.len_utf8()..].chars())
            .collect(),
        _ => text.to_string(),
    }
}

fn plural(item: &str) -> String {
    match item {
        "integer" => "integers".into(),
        "float" => "floats".into(),
        "string" => "strings".into(),
        "bool" => "bools".into(),
        other => other.into(),
    }
}

/// The generated field reference (markdown, without the markers).
pub(super) fn markdown() -> String {
    let schema = serde_json::to_value(schemars::schema_for!(super::Scenario)).expect("a schema");
    let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
    let mut g = Gen {
        defs,
        order: field_order(),
        out: String::new(),
    };
    g.out.push_str("## Top level\n\n");
    g.table("", "Scenario", &schema, 1);
    presets(&mut g.out);
    g.out.trim_end().to_string() + "\n"
}

/// The presets, field by field with the value and its source (`preset::PRESETS`).
fn presets(out: &mut String) {
    use super::preset::{PresetValue, PRESETS};
    use std::fmt::Write;
    out.push_str("## Presets\n\n");
    out.push_str(
        "`preset` fills in every field below that the scenario does not give; a field the \
         scenario gives wins.\n\n",
    );
    for (preset, source, fields) in PRESETS {
        let name = crate::check::name(preset);
        let _ = writeln!(out, "### `preset = {name}` ({source})\n");
        out.push_str("| field | value | source |\n|---|---|---|\n");
        for f in *fields {
            let value = match f.value {
                PresetValue::Float(x) => crate::check::toml_float(x),
                PresetValue::Int(i) => i.to_string(),
                PresetValue::Bool(b) => b.to_string(),
                PresetValue::Str(s) => format!("\"{s}\""),
                PresetValue::Segments(n) => format!("{n} × `tcp.mss_bytes`"),
            };
            let _ = writeln!(
                out,
                "| `{}` | {value} | {} |",
                f.path,
                f.source.replace('|', "\\|")
            );
        }
        out.push('\n');
    }
}

#[test]
fn field_reference_in_the_docs_is_generated_from_the_schema() {
    crate::generated_doc::check_section(
        DOC,
        BEGIN,
        END,
        &markdown(),
        "NCMESH_UPDATE_DOCS=1 cargo test -p ncmesh-core scenario::reference",
    );
}

#[test]
fn every_scenario_field_is_in_the_reference() {
    // Every field of the resolved default scenario (with one entry in each list) has a
    // row or a section: nothing is left out by the rendering.
    let md = markdown();
    let mut s = super::Scenario::default();
    s.loss.push(Default::default());
    let toml = super::to_toml(&s);
    for line in toml.lines() {
        let line = line.trim_start_matches("# ").trim();
        if let Some((key, _)) = line.split_once(" = ") {
            let key = key.trim();
            if key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                assert!(
                    md.contains(&format!("| `{key}` |")),
                    "{key} is not in the reference"
                );
            }
        }
    }
    for section in [
        "[simulation]",
        "[channel]",
        "[[loss]]",
        "[mac]",
        "[routing]",
        "[tcp]",
        "[scheme]",
        "[[nodes]]",
        "[[flows]]",
        "[[channel.links]]",
        "[[loss.schedule]]",
        "[[nodes.waypoints]]",
    ] {
        assert!(
            md.contains(&format!("`{section}`")),
            "{section} has no section"
        );
    }
}

#[test]
fn nested_tables_and_enums_render() {
    // What the scheme families will add: a nested table with an enum and an optional
    // nested table. The renderer handles them from any schema, not only today's.
    let schema = serde_json::json!({
        "properties": {
            "family": {"type": "object", "$ref": "#/$defs/Fam", "default": {"kind": "a"}},
        },
        "$defs": {
            "Fam": {"description": "A family.", "properties": {
                "kind": {"$ref": "#/$defs/Kind", "default": "a", "description": "Which."},
                "inner": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}], "default": null},
            }},
            "Kind": {"oneOf": [{"const": "a", "type": "string", "description": "The a."},
                               {"const": "b", "type": "string"}]},
            "Inner": {"properties": {"rate_kbps": {"type": "number", "default": 1.5}}},
        }
    });
    let mut g = Gen {
        defs: schema["$defs"].as_object().cloned().unwrap(),
        order: vec![("Fam".into(), vec!["kind".into(), "inner".into()])],
        out: String::new(),
    };
    g.table("", "Root", &schema, 1);
    let md = g.out;
    assert!(md.contains("## `[family]`\n\nA family."), "{md}");
    assert!(
        md.contains("| `kind` | `\"a\"`, `\"b\"` | `\"a\"` |  | Which. `\"a\"`: the a. |"),
        "{md}"
    );
    assert!(md.contains("### `[family.inner]`"), "{md}");
    assert!(
        md.contains("| `rate_kbps` | float | 1.5 | kbit/s |"),
        "{md}"
    );
}
