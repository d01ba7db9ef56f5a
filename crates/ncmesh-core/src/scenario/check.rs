//! Checks of single scenario values, shared by the scenario's validation and by the
//! configuration tables of each layer and coding family (validated beside their code).
//! Each failure is one line naming the field, the value and what is allowed.

use super::ScenarioError;

/// The result of a check.
pub(crate) type R = Result<(), ScenarioError>;

/// Shortest round-trip text of a float (`60.0`, `3.652e-10`, `NaN`, `inf`).
pub(crate) fn fnum(v: f64) -> String {
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

pub(crate) fn e(field: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(field, msg)
}

pub(crate) fn not_allowed(
    field: &str,
    value: impl std::fmt::Display,
    expected: &str,
) -> ScenarioError {
    e(
        field,
        format!("{value} is not allowed: expected {expected}"),
    )
}

pub(crate) fn finite(field: &str, v: f64, expected: &str) -> R {
    if v.is_finite() {
        Ok(())
    } else {
        Err(not_allowed(field, fnum(v), expected))
    }
}

/// Finite and > 0.
pub(crate) fn positive(field: &str, v: f64, unit: &str) -> R {
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
pub(crate) fn non_negative(field: &str, v: f64, unit: &str) -> R {
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

pub(crate) fn probability(field: &str, v: f64) -> R {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(not_allowed(field, fnum(v), "a probability in [0, 1]"))
    }
}

pub(crate) fn at_least(field: &str, v: u32, min: u32, what: &str) -> R {
    if v >= min {
        Ok(())
    } else {
        Err(not_allowed(field, v, what))
    }
}
