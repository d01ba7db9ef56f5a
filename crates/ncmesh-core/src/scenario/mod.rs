//! Scenario files: parsing (TOML, JSON, any serde deserializer), semantic validation,
//! canonical TOML output and the scenario builders (chain, X, wheel, grid, imported
//! mesh topologies, ...).
//!
//! The data structures and their defaults live in [`schema`]; docs/scenario-format.md
//! documents the file format field by field.
//!
//! Every error is a [`ScenarioError`]: the dotted path of the offending field
//! (`mac.queue_packets`, `nodes[3].x`, or a builder option such as `hops`) and a
//! one-line message naming the value and what is allowed.

pub mod schema;
pub use crate::check::ScenarioError;
pub use schema::*;

mod builders;
pub(crate) mod emit;
mod errors;
pub mod preset;
mod validate;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use builders::{build, build_kind_help, build_kinds, pair_stats, BuildOptions, PairStats};
pub use emit::to_toml;
pub use preset::Preset;
pub use validate::validate;

use serde::Deserializer;

/// Deserialize a scenario from any serde deserializer and validate it.
///
/// Errors name the dotted path of the field (via serde_path_to_error) and rephrase
/// serde's raw messages ("invalid type: integer `-3`, expected u32") in the
/// `-3 is not allowed: expected a non-negative integer` style.
pub fn from_deserializer<'de, D: Deserializer<'de>>(d: D) -> Result<Scenario, ScenarioError> {
    let s = deserialize_with(d, |e| (e.to_string(), None))?;
    validate(&s)?;
    Ok(s)
}

/// A scenario from a TOML value tree (a parsed file, or a Python dict copied into one):
/// its preset's fields filled in (`preset`), then deserialized and validated.
pub fn from_value(mut v: toml::Value) -> Result<Scenario, ScenarioError> {
    if let toml::Value::Table(doc) = &mut v {
        preset::apply(doc)?;
    }
    from_deserializer(v)
}

/// Deserialize without validating; `describe` turns the deserializer's error into
/// (raw serde message, optional location suffix such as "line 7").
fn deserialize_with<'de, D, F>(d: D, describe: F) -> Result<Scenario, ScenarioError>
where
    D: Deserializer<'de>,
    F: Fn(&D::Error) -> (String, Option<String>),
{
    serde_path_to_error::deserialize(d).map_err(|e| {
        let (raw, location) = describe(e.inner());
        let mut err = errors::humanize(e.path(), &raw);
        if let Some(loc) = location {
            err.message = format!("{} ({loc})", err.message);
        }
        err
    })
}

/// Parse and validate a TOML scenario.
pub fn parse_toml(text: &str) -> Result<Scenario, ScenarioError> {
    let de =
        toml::de::Deserializer::parse(text).map_err(|e| errors::toml_syntax_error(text, &e))?;
    if let Some(doc) = text.parse::<toml::Table>().ok().filter(preset::named) {
        // A preset fills in fields the text does not have: read the filled-in tree (its
        // errors name the field, without a line).
        check_toml_link_pairs(text)?;
        return from_value(toml::Value::Table(doc));
    }
    let s = deserialize_with(de, |e: &toml::de::Error| {
        let loc = e.span().map(|sp| {
            let (line, col) = errors::line_col(text, sp.start);
            format!("line {line}, column {col}")
        });
        (e.message().to_string(), loc)
    })?;
    check_toml_link_pairs(text)?;
    validate(&s)?;
    Ok(s)
}

/// The toml deserializer fills a fixed-size array from a longer one without
/// complaint; `loss[i].links[j]` must have exactly two node ids, so check the raw
/// document.
fn check_toml_link_pairs(text: &str) -> Result<(), ScenarioError> {
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Ok(());
    };
    let Some(losses) = doc.get("loss").and_then(|v| v.as_array()) else {
        return Ok(());
    };
    for (i, l) in losses.iter().enumerate() {
        let Some(links) = l.get("links").and_then(|v| v.as_array()) else {
            continue;
        };
        for (j, pair) in links.iter().enumerate() {
            if let Some(a) = pair.as_array() {
                if a.len() != 2 {
                    return Err(ScenarioError::new(
                        format!("loss[{i}].links[{j}]"),
                        format!("{pair} is not allowed: expected a directed link [tx, rx] of exactly 2 node ids"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Parse and validate a JSON scenario (same structure as the TOML format).
pub fn parse_json(text: &str) -> Result<Scenario, ScenarioError> {
    if let Ok(serde_json::Value::Object(o)) = serde_json::from_str::<serde_json::Value>(text) {
        if o.get("preset").is_some_and(|p| p.as_str() != Some("none")) {
            let v = toml::Value::try_from(&o).map_err(|e| ScenarioError::new("", e.to_string()))?;
            return from_value(v);
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let s = deserialize_with(&mut de, |e: &serde_json::Error| {
        if e.is_syntax() || e.is_eof() {
            // Reported without a field path by humanize (the path is meaningless here).
            return (
                format!("JSON syntax error: {}", strip_json_location(e)),
                json_location(e),
            );
        }
        (strip_json_location(e), json_location(e))
    })?;
    de.end().map_err(|e| {
        ScenarioError::new(
            "",
            format!(
                "JSON syntax error: {} ({})",
                strip_json_location(&e),
                json_location(&e).unwrap_or_default()
            ),
        )
    })?;
    validate(&s)?;
    Ok(s)
}

fn strip_json_location(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) if e.line() != 0 => s[..i].to_string(),
        _ => s,
    }
}

fn json_location(e: &serde_json::Error) -> Option<String> {
    (e.line() != 0).then(|| format!("line {}, column {}", e.line(), e.column()))
}
