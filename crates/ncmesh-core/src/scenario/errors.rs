//! Turning serde's and toml's raw error messages into one-line ScenarioErrors that
//! name the field path, the offending value and what is allowed.

use super::ScenarioError;
use serde_path_to_error::{Path, Segment};

/// Dotted path: `mac.queue_packets`, `nodes[3].x`, "" for the top level.
pub(crate) fn path_string(path: &Path) -> String {
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Enum { variant } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(variant);
            }
            // A segment serde_path_to_error could not name (e.g. after a syntax error).
            Segment::Unknown => {}
        }
    }
    out
}

/// Fields of earlier versions of the format, and what replaced them.
const MOVED: &[(&str, &str)] = &[
    (
        "routing.disjoint_paths",
        "routing.paths (reinforced paths per flow, which multipath schemes use)",
    ),
    ("scheme.encode_once", "scheme.xor.encode_once"),
    ("scheme.pool_time_s", "scheme.xor.pool_time_s"),
    ("scheme.threshold", "scheme.xor.threshold"),
    ("scheme.guess", "scheme.xor.guess"),
    ("scheme.control_delay_s", "scheme.xor.control_delay_s"),
    ("scheme.report_interval_s", "scheme.xor.report_interval_s"),
    ("scheme.ack_timeout_s", "scheme.xor.ack_timeout_s"),
    ("scheme.ordering_timeout_s", "scheme.xor.ordering_timeout_s"),
    (
        "scheme.max_retransmissions",
        "scheme.xor.max_retransmissions",
    ),
    ("scheme.max_code", "scheme.xor.max_code"),
    ("scheme.two_hop", "scheme.xor.two_hop"),
    ("scheme.recode_interval_s", "scheme.ncaqm.recode_interval_s"),
    ("scheme.split_window", "scheme.ncaqm.split_window"),
    (
        "scheme.piggycode.at_head",
        "scheme.piggycode.placement (at_head = true was placement = \"stack\", false \"in-place\")",
    ),
    (
        "scheme.comp.loss_credits",
        "scheme.comp.compensation (loss_credits = true was compensation = \"both\", false \"rate\")",
    ),
];

/// How to name the table a path points at, for "unknown field ... in X" messages.
pub(crate) fn table_name(path: &str) -> String {
    if path.is_empty() {
        "the top level".to_string()
    } else if path.contains('[') {
        path.to_string()
    } else {
        format!("[{path}]")
    }
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// Backtick-quoted names in a serde message, in order.
fn backticked(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('`') {
        let after = &rest[i + 1..];
        match after.find('`') {
            Some(j) => {
                out.push(after[..j].to_string());
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

/// Rephrase serde's "expected ..." part.
fn friendly_expected(e: &str) -> String {
    let e = e.trim();
    match e {
        "u8" | "u16" | "u32" => "a non-negative integer (at most 4294967295)".to_string(),
        "u64" | "usize" => "a non-negative integer".to_string(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "an integer".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a sequence" => "an array".to_string(),
        "a map" => "a table".to_string(),
        "a string" | "a boolean" => e.to_string(),
        "a borrowed string" => "a string".to_string(),
        _ if e.starts_with("struct ") => "a table".to_string(),
        _ if e.starts_with("an array of length ") => {
            format!("an array of {} elements", &e["an array of length ".len()..])
        }
        _ if e.starts_with("enum ") => "one of the named values".to_string(),
        _ if e.starts_with("option") || e.starts_with("Option") => "a value".to_string(),
        _ => e.to_string(),
    }
}

/// Rephrase serde's "unexpected" part: `integer `-3`` -> `-3`.
fn friendly_value(u: &str) -> String {
    let u = u.trim();
    for prefix in ["integer ", "floating point ", "boolean ", "character "] {
        if let Some(rest) = u.strip_prefix(prefix) {
            return rest.trim_matches('`').to_string();
        }
    }
    if let Some(rest) = u.strip_prefix("string ") {
        return rest.to_string();
    }
    match u {
        "map" => "a table".to_string(),
        "sequence" => "an array".to_string(),
        "unit value" => "an empty value".to_string(),
        "Option value" => "an optional value".to_string(),
        _ => u.to_string(),
    }
}

/// Turn a raw serde error at `path` into a ScenarioError.
pub(crate) fn humanize(path: &Path, raw: &str) -> ScenarioError {
    let p = path_string(path);
    let raw = raw.trim();
    let first = raw.lines().next().unwrap_or("").trim();

    if let Some(rest) = first.strip_prefix("unknown field `") {
        let names = backticked(first);
        let field = names.first().cloned().unwrap_or_else(|| rest.to_string());
        let allowed: Vec<&String> = names.iter().skip(1).collect();
        // serde_path_to_error may or may not have pushed the unknown key itself.
        let parent = match p.rsplit_once('.') {
            Some((par, last)) if last == field => par.to_string(),
            None if p == field => String::new(),
            _ => p.clone(),
        };
        let allowed_txt = if allowed.is_empty() {
            "no fields are allowed here".to_string()
        } else {
            format!(
                "allowed: {}",
                allowed
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let path = join(&parent, &field);
        if let Some((_, now)) = MOVED.iter().find(|(old, _)| *old == path) {
            return ScenarioError::new(path, format!("this field is now {now}"));
        }
        return ScenarioError::new(
            path,
            format!(
                "unknown field '{field}' in {}; {allowed_txt}",
                table_name(&parent)
            ),
        );
    }
    if first.starts_with("missing field `") {
        let names = backticked(first);
        let field = names.first().cloned().unwrap_or_default();
        return ScenarioError::new(
            join(&p, &field),
            format!("required field '{field}' is missing in {}", table_name(&p)),
        );
    }
    if first.starts_with("duplicate field `") {
        let names = backticked(first);
        let field = names.first().cloned().unwrap_or_default();
        return ScenarioError::new(
            join(&p, &field),
            format!("field '{field}' is given twice in {}", table_name(&p)),
        );
    }
    if first.starts_with("unknown variant `") {
        let names = backticked(first);
        let value = names.first().cloned().unwrap_or_default();
        let allowed: Vec<String> = names.iter().skip(1).map(|s| format!("\"{s}\"")).collect();
        return ScenarioError::new(
            p,
            format!(
                "\"{value}\" is not allowed: expected one of {}",
                allowed.join(", ")
            ),
        );
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = first.strip_prefix(prefix) {
            if let Some((u, e)) = rest.rsplit_once(", expected ") {
                return ScenarioError::new(
                    p,
                    format!(
                        "{} is not allowed: expected {}",
                        friendly_value(u),
                        friendly_expected(e)
                    ),
                );
            }
        }
    }
    if let Some(rest) = first.strip_prefix("invalid length ") {
        if let Some((n, e)) = rest.split_once(", expected ") {
            return ScenarioError::new(
                p,
                format!(
                    "an array of {n} elements is not allowed: expected {}",
                    friendly_expected(e)
                ),
            );
        }
    }
    ScenarioError::new(p, raw)
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

/// A TOML syntax error: field = the dotted key on the offending line if it can be
/// told (table header + key), else "".
pub(crate) fn toml_syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let msg = crate::check::one_line(e.message());
    let Some(span) = e.span() else {
        return ScenarioError::new("", format!("TOML syntax error: {msg}"));
    };
    let (line, col) = line_col(text, span.start);
    // Find the table header in force and the key on the error line.
    let mut table = String::new();
    let mut key = String::new();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if i + 1 == line {
            if let Some((k, _)) = t.split_once('=') {
                let k = k.trim();
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-.\"".contains(c))
                {
                    key = k.replace('"', "");
                }
            }
            break;
        }
        if t.starts_with('[') {
            let inner = t.trim_start_matches('[');
            if let Some(end) = inner.find(']') {
                table = inner[..end].trim().to_string();
            }
        }
    }
    let field = if key.is_empty() {
        String::new()
    } else {
        join(&table, &key)
    };
    ScenarioError::new(
        field,
        format!("TOML syntax error at line {line}, column {col}: {msg}"),
    )
}
