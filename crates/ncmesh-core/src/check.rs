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

/// A number a configuration value can be checked as: its value and its text in errors.
pub trait Checked: Copy {
    /// The value (exact for every integer a table holds).
    fn value(self) -> f64;
    /// As an error message shows it.
    fn text(self) -> String;
}

impl Checked for f64 {
    fn value(self) -> f64 {
        self
    }
    fn text(self) -> String {
        fnum(self)
    }
}

macro_rules! checked_integers {
    ($($t:ty),*) => {$(
        impl Checked for $t {
            fn value(self) -> f64 {
                self as f64
            }
            fn text(self) -> String {
                self.to_string()
            }
        }
    )*};
}
checked_integers!(u8, u16, u32, u64, usize);

/// `v` in `interval`, written as the docs write it (`"(0, 1]"`, `"[1, 10]"`, `"[0, 1)"`):
/// the error says "expected `what` in `interval`", so the check and its text are one.
/// NaN is never within.
pub fn within<T: Checked>(field: &str, v: T, what: &str, interval: &str) -> R {
    let bound = |s: &str| -> f64 {
        s.trim()
            .parse()
            .unwrap_or_else(|_| panic!("interval {interval:?}: bad bound {s:?}"))
    };
    let inner = &interval[1..interval.len() - 1];
    let (lo, hi) = inner
        .split_once(',')
        .unwrap_or_else(|| panic!("interval {interval:?}: no comma"));
    let (lo, hi, x) = (bound(lo), bound(hi), v.value());
    let above = if interval.starts_with('(') {
        x > lo
    } else {
        x >= lo
    };
    let below = if interval.ends_with(')') {
        x < hi
    } else {
        x <= hi
    };
    if above && below {
        Ok(())
    } else {
        Err(not_allowed(
            field,
            v.text(),
            &format!("{what} in {interval}"),
        ))
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

/// Every field of a configuration table as `key = value` (its canonical TOML text), in
/// declaration order; a field that is `None` is left out. Each `[scheme.<family>]` table
/// emits itself this way, so its text cannot miss a field or spell one differently.
pub fn emit_fields<T: serde::Serialize>(table: &T, kv: &mut dyn FnMut(&str, String)) {
    let fields = match toml::Value::try_from(table) {
        Ok(toml::Value::Table(t)) => t,
        other => unreachable!("a configuration table serialises to a TOML table: {other:?}"),
    };
    for (key, value) in fields {
        kv(&key, toml_value(&value));
    }
}

/// A scalar TOML value in the canonical form (floats shortest round-trip, strings escaped).
fn toml_value(v: &toml::Value) -> String {
    match v {
        toml::Value::Float(x) => toml_float(*x),
        toml::Value::String(s) => toml_string(s),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => unreachable!("configuration tables hold scalars only: {other}"),
    }
}
