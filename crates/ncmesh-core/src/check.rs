//! Checks of single configuration values and their canonical TOML text, shared by the
//! scenario's validation and by the configuration table of each layer and coding family
//! (validated beside their code). Each failure is a [`ScenarioError`]: one line naming
//! the field, the value and what is allowed. A leaf: it imports nothing of the crate, so
//! every layer can use it without a cycle through `scenario`.

use std::fmt::Write;

/// A scenario that cannot be read, built or run: which field, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// Dotted path of the field (`flows[0].dst`), a builder option name, or "" when
    /// the error is not tied to one field (e.g. a TOML syntax error before any key).
    pub field: String,
    /// One line: the offending value and what is allowed.
    pub message: String,
}

impl ScenarioError {
    /// An error about `field`; `message` is folded onto one line.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            field: field.into(),
            message: one_line(&message.into()),
        }
    }
}

impl std::fmt::Display for ScenarioError {
    /// `field: message` (just `message` when the field is empty); never a newline.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Collapse a possibly multi-line message into one line.
pub fn one_line(s: &str) -> String {
    let parts: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    parts.join("; ")
}

/// The result of a check.
pub type R = Result<(), ScenarioError>;

/// Shortest round-trip text of a float (`60.0`, `3.652e-10`, `NaN`, `inf`).
pub fn fnum(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{v:?}")
    }
}

/// An error at `field` saying `msg`.
pub fn e(field: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(field, msg)
}

/// "`value` is not allowed: expected `expected`", at `field`.
pub fn not_allowed(field: &str, value: impl std::fmt::Display, expected: &str) -> ScenarioError {
    e(
        field,
        format!("{value} is not allowed: expected {expected}"),
    )
}

/// A finite number (`expected` says what else it must be).
pub fn finite(field: &str, v: f64, expected: &str) -> R {
    if v.is_finite() {
        Ok(())
    } else {
        Err(not_allowed(field, fnum(v), expected))
    }
}

/// Finite and > 0.
pub fn positive(field: &str, v: f64, unit: &str) -> R {
    let what = if unit.is_empty() {
        "a finite number > 0".to_string()
    } else {
        format!("a finite number > 0 ({unit})")
    };
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(not_allowed(field, fnum(v), &what))
    }
}

/// Finite and >= 0.
pub fn non_negative(field: &str, v: f64, unit: &str) -> R {
    let what = if unit.is_empty() {
        "a finite number >= 0".to_string()
    } else {
        format!("a finite number >= 0 ({unit})")
    };
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(not_allowed(field, fnum(v), &what))
    }
}

/// A probability in [0, 1].
pub fn probability(field: &str, v: f64) -> R {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(not_allowed(field, fnum(v), "a probability in [0, 1]"))
    }
}

/// At least `min` (`what` says what is allowed).
pub fn at_least(field: &str, v: u32, min: u32, what: &str) -> R {
    if v >= min {
        Ok(())
    } else {
        Err(not_allowed(field, v, what))
    }
}

/// TOML float: shortest round-trip form; nan / inf spelled the TOML way.
pub fn toml_float(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else {
        fnum(v)
    }
}

/// TOML basic string.
pub fn toml_string(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The serde name of a unit enum value ("802.11b", "range", ...).
/// An enum value as its TOML string (its serde name, quoted).
pub fn name<T: serde::Serialize>(v: &T) -> String {
    toml_string(
        serde_json::to_value(v)
            .ok()
            .and_then(|x| x.as_str().map(String::from))
            .unwrap_or_default()
            .as_str(),
    )
}
