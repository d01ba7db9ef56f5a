//! Python objects <-> core types.
//!
//! A scenario dict is first copied into a `toml::Value` tree (the same value model as
//! a scenario file: NaN and infinities survive, `None` means "not given") and then
//! deserialized with the core's `from_deserializer`. Going through TOML values rather
//! than reading the Python objects directly keeps types strict (the string "false" or
//! the integer 1 is not a boolean, 20.0 is not a queue size) and gives exactly the
//! error paths and messages of a scenario file.

use ncmesh_core::scenario::{self, Scenario, ScenarioError as CoreError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use pythonize::pythonize;
use serde::Serialize;
use toml::Value;

use crate::errors::{internal_error, scenario_error};

/// Deserializes and validates a scenario from a Python mapping.
pub fn scenario_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Scenario> {
    let py = obj.py();
    let value = py_to_value(obj, "").map_err(|e| scenario_error(py, &e))?;
    if !matches!(value, Value::Table(_)) {
        let e = CoreError::new(
            "",
            format!("a scenario is a table (dict), not {}", type_name(obj)),
        );
        return Err(scenario_error(py, &e));
    }
    scenario::from_value(value).map_err(|e| scenario_error(py, &e))
}

/// Any serializable core value as plain Python objects (dicts, lists, numbers, strings).
pub fn to_py<'py, T: Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize(py, value).map_err(internal_error)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".into())
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A Python value as a TOML value; `path` names it in errors (`flows[0].src`).
fn py_to_value(obj: &Bound<'_, PyAny>, path: &str) -> Result<Value, CoreError> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Boolean(obj.is_truthy().unwrap_or(false)));
    }
    if obj.is_instance_of::<PyInt>()
        || (!obj.is_instance_of::<PyFloat>() && obj.hasattr("__index__").unwrap_or(false))
    {
        return match obj.extract::<i64>() {
            Ok(v) => Ok(Value::Integer(v)),
            Err(_) => Err(CoreError::new(
                path,
                format!("{obj} is not allowed: expected an integer that fits in 64 bits"),
            )),
        };
    }
    if let Ok(v) = obj.extract::<f64>() {
        if !obj.is_instance_of::<PyString>() {
            return Ok(Value::Float(v));
        }
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_cow()
            .map(|s| Value::String(s.into_owned()))
            .map_err(|e| CoreError::new(path, e.to_string()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return dict_to_table(d.items().iter(), path);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, item) in obj
            .try_iter()
            .map_err(|e| CoreError::new(path, e.to_string()))?
            .enumerate()
        {
            let item = item.map_err(|e| CoreError::new(path, e.to_string()))?;
            let p = format!("{path}[{i}]");
            if item.is_none() {
                return Err(CoreError::new(p, "None is not allowed in an array"));
            }
            out.push(py_to_value(&item, &p)?);
        }
        return Ok(Value::Array(out));
    }
    if let Ok(m) = obj.cast::<PyMapping>() {
        let items = m.items().map_err(|e| CoreError::new(path, e.to_string()))?;
        return dict_to_table(items.iter(), path);
    }
    Err(CoreError::new(
        path,
        format!(
            "a value of type {} is not allowed: expected a number, string, boolean, array or table",
            type_name(obj)
        ),
    ))
}

/// Key/value pairs as a TOML table; a `None` value means the key is not given.
fn dict_to_table<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    path: &str,
) -> Result<Value, CoreError> {
    let mut table = toml::Table::new();
    for item in items {
        let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item
            .extract()
            .map_err(|e: PyErr| CoreError::new(path, e.to_string()))?;
        let Ok(key) = k.cast::<PyString>() else {
            return Err(CoreError::new(
                path,
                format!("table keys must be strings, not {} ({k})", type_name(&k)),
            ));
        };
        let key = key
            .to_cow()
            .map_err(|e| CoreError::new(path, e.to_string()))?
            .into_owned();
        if v.is_none() {
            continue;
        }
        let value = py_to_value(&v, &child(path, &key))?;
        table.insert(key, value);
    }
    Ok(Value::Table(table))
}
