//! Python exceptions raised by the binding.

use ncmesh_core::scenario::ScenarioError as CoreError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    ncmesh,
    ScenarioError,
    PyValueError,
    "A scenario is invalid. `.field` names the offending field (dotted path), `.message` says why; str() is the one line 'field: message'."
);

/// A scenario error as a Python `ScenarioError` with `.field` and `.message` set.
pub fn scenario_error(py: Python<'_>, e: &CoreError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice.
    let _ = value.setattr("field", e.field.as_str());
    let _ = value.setattr("message", e.message.as_str());
    err
}

/// A failure that is not the user's fault (a bug): RuntimeError("internal error: ...").
pub fn internal_error(what: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(format!("internal error: {what}"))
}

thread_local! {
    /// Where the last panic on this thread happened ("file:line:col"), set by the hook.
    static PANIC_LOCATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the default panic hook (of this extension's Rust runtime only): a panic
/// becomes a RuntimeError naming its location instead of a backtrace on stderr.
/// NCMESH_PANIC_BACKTRACE=1 keeps the default report as well.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    let verbose = std::env::var_os("NCMESH_PANIC_BACKTRACE").is_some_and(|v| v != "0");
    std::panic::set_hook(Box::new(move |info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        PANIC_LOCATION.with(|p| *p.borrow_mut() = location);
        if verbose {
            default(info);
        }
    }));
}

/// The message of a caught panic payload, with its location when the hook saw it.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    };
    match PANIC_LOCATION.with(|p| p.borrow_mut().take()) {
        Some(at) => format!("{text} (at {at}; please report this as a bug)"),
        None => format!("{text} (please report this as a bug)"),
    }
}
