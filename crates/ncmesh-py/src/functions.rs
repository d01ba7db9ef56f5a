//! The functions of `ncmesh._core`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ncmesh_core::{scenario, sim};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use std::collections::HashMap;

use crate::columns::{Cell, Columns};
use crate::convert::{scenario_from_py, to_py};
use crate::errors::{internal_error, panic_message, scenario_error};
use crate::pack::TablePart;
use crate::parquet::{cell_from_py, encode, infer, ColType, ColTypeName, Column, Src};

/// The scenario with every default filled in, validated, as a dict.
#[pyfunction]
pub fn resolve<'py>(scenario: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let s = scenario_from_py(scenario)?;
    to_py(scenario.py(), &s)
}

/// The scenario with simulator preset `name` ("ns2", "linux", "none"): each field the preset gives
/// that the scenario still has at ncmesh's default takes the preset's value (a builder's
/// and the user's own values stay). Resolved, as a dict.
#[pyfunction]
pub fn apply_preset<'py>(scenario: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = scenario.py();
    let s = scenario_from_py(scenario)?;
    let preset = scenario::preset::parse(&toml::Value::String(name.to_string()))
        .map_err(|e| scenario_error(py, &e))?;
    let s = scenario::preset::overlay(&s, preset).map_err(|e| scenario_error(py, &e))?;
    to_py(py, &s)
}

/// The complete, resolved scenario as TOML text.
#[pyfunction]
pub fn to_toml(scenario: &Bound<'_, PyAny>) -> PyResult<String> {
    let s = scenario_from_py(scenario)?;
    Ok(scenario::to_toml(&s))
}

/// Builder options from a Python dict, each checked on its own so that an error names it
/// (`hops: ... fits in 64 bits`).
fn build_options(
    py: Python<'_>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<scenario::BuildOptions> {
    let mut map = serde_json::Map::new();
    for (k, v) in options.map(|d| d.iter()).into_iter().flatten() {
        let name: String = k.extract().map_err(|_| {
            let e = scenario::ScenarioError::new(
                "options",
                format!("option names are strings, not {k}"),
            );
            scenario_error(py, &e)
        })?;
        let bad = |what: &str| {
            let e =
                scenario::ScenarioError::new(&name, format!("{v} is not allowed: expected {what}"));
            scenario_error(py, &e)
        };
        let value: serde_json::Value = pythonize::depythonize(&v)
            .map_err(|_| bad("a number that fits in 64 bits, a string or a boolean"))?;
        if value.is_null() && v.extract::<f64>().is_ok_and(|x| !x.is_finite()) {
            return Err(bad("a finite number"));
        }
        map.insert(name, value);
    }
    Ok(scenario::BuildOptions::from(map))
}

/// A generated scenario (chain, grid, random, ...) as a resolved dict.
#[pyfunction]
#[pyo3(signature = (kind, options = None))]
pub fn build_scenario<'py>(
    py: Python<'py>,
    kind: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = build_options(py, options)?;
    let s = scenario::build(kind, &opts).map_err(|e| scenario_error(py, &e))?;
    to_py(py, &s)
}

/// Hop counts of an experiment's source-destination pairs under its routing
/// (`scenario::pair_stats`), as a dict.
#[pyfunction]
#[pyo3(signature = (kind, options = None))]
pub fn pair_stats<'py>(
    py: Python<'py>,
    kind: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = build_options(py, options)?;
    let st = scenario::pair_stats(kind, &opts).map_err(|e| scenario_error(py, &e))?;
    to_py(py, &st)
}

/// The scenario kinds `build_scenario` knows.
#[pyfunction]
pub fn build_kinds(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    PyList::new(py, scenario::build_kinds().iter().copied())
}

/// Every coding family's per-node counters, in result-column order (the node table's
/// last columns).
#[pyfunction]
pub fn coding_counters(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    PyList::new(py, ncmesh_core::coding::registry::counter_names())
}

/// The version of the simulator core.
#[pyfunction]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The build identity of the simulator core (`ncmesh_core::BUILD_ID`: a hash of its
/// sources and locked dependencies). The sweep store records it with every run.
#[pyfunction]
pub fn build_id() -> &'static str {
    ncmesh_core::BUILD_ID
}

/// Every check `run` makes before simulating, without simulating: the scenario is read
/// and validated, the seed applied, and the simulator built (channel, routes, flows:
/// "no route between src and dst" is found here). Returns None or raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (scenario, seed = None))]
pub fn check(scenario: &Bound<'_, PyAny>, seed: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let py = scenario.py();
    let s = read_scenario(scenario, seed)?;
    let built = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| sim::Sim::new(&s).map(|_| ())))
            .map_err(|p| panic_message(p.as_ref()))
    });
    match built {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(scenario_error(py, &e)),
        Err(message) => Err(internal_error(message)),
    }
}

/// The scenario with `seed` (a Python int, if given) as its simulation.seed, validated
/// like a seed written in the file: -1, 2^63 or 1.5 are ScenarioErrors naming
/// `simulation.seed`, not OverflowErrors.
fn read_scenario(
    scenario: &Bound<'_, PyAny>,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<scenario::Scenario> {
    let py = scenario.py();
    let mut s = scenario_from_py(scenario)?;
    if let Some(seed) = seed.filter(|v| !v.is_none()) {
        let value = if seed.is_instance_of::<pyo3::types::PyBool>() {
            None
        } else {
            seed.extract::<u64>().ok()
        };
        let Some(value) = value else {
            let e = scenario::ScenarioError::new(
                "simulation.seed",
                format!(
                    "{} is not allowed: expected an integer in [0, 9223372036854775807]",
                    seed.repr().map(|r| r.to_string()).unwrap_or_default()
                ),
            );
            return Err(scenario_error(py, &e));
        };
        s.simulation.seed = value;
        scenario::validate(&s).map_err(|e| scenario_error(py, &e))?;
    }
    Ok(s)
}

/// Runs one simulation. Returns the result as a dict plus key "scenario" (the resolved
/// scenario that ran). The GIL is released while the simulation runs.
/// With `pcap_dir`, the run is traced and one packet capture per node is written there
/// (sim::pcap; an OSError if that fails).
#[pyfunction]
#[pyo3(signature = (scenario, seed = None, pcap_dir = None))]
pub fn run<'py>(
    scenario: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    pcap_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = scenario.py();
    let (s, result) = simulate(scenario, seed, pcap_dir)?;
    let out = to_py(py, &result)?;
    let dict = out
        .cast::<PyDict>()
        .map_err(|e| internal_error(e.to_string()))?;
    dict.set_item("scenario", to_py(py, &s)?)?;
    Ok(out)
}

/// `run` for the sweep workers, with the result in the shape they write: the tables
/// `flows`, `nodes`, `flow_series` and `node_series` as `{column: [values]}` (columns in
/// field order; a table that is not flat comes back as row dicts, as from `run`), and
/// `scenario_toml`, the scenario that ran as `to_toml` writes it, instead of
/// `scenario`. The other keys are those of `run`. Making one list per column instead of
/// one dict per row, and no scenario dict, saves most of `run`'s conversion time.
#[pyfunction]
#[pyo3(signature = (scenario, seed = None))]
pub fn run_columns<'py>(
    scenario: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = scenario.py();
    let (s, r) = simulate(scenario, seed, None)?;
    let out = PyDict::new(py);
    out.set_item("name", &r.name)?;
    out.set_item("seed", r.seed)?;
    out.set_item("events", r.events)?;
    out.set_item("sim_time_s", r.sim_time_s)?;
    out.set_item("wall_time_s", r.wall_time_s)?;
    fn table<'py, T: serde::Serialize>(py: Python<'py>, rows: &[T]) -> PyResult<Bound<'py, PyAny>> {
        match Columns::of(rows) {
            Ok(c) => Ok(c.to_py(py)?.into_any()),
            Err(_) => to_py(py, &rows),
        }
    }
    out.set_item("flows", table(py, &r.flows)?)?;
    out.set_item("nodes", table(py, &r.nodes)?)?;
    out.set_item("flow_series", table(py, &r.flow_series)?)?;
    out.set_item("node_series", table(py, &r.node_series)?)?;
    out.set_item("conservation", to_py(py, &r.conservation)?)?;
    out.set_item("scenario_toml", scenario::to_toml(&s))?;
    Ok(out)
}

/// `run_columns` with the four tables encoded as Parquet files, as the sweep stores
/// them: `flows`, `nodes`, `flow_series` and `node_series` are the bytes of a Parquet
/// file (parquet.rs) whose columns are
///
/// - `prefix`: (name, type, value) columns holding the same value in every row (the run
///   key, the sweep name, the seed, the params);
/// - then the table's columns: `tables[name] = (order, types)` lists the columns that
///   come first, in that order (missing ones are null), the others follow in field
///   order; `types` gives column types, and a column without one gets the type of its
///   first value (float64 if it has none). A column named like a prefix column is left
///   out.
///
/// A table that cannot be written this way (a type the writer does not handle) comes
/// back as in `run_columns`, for the caller to encode. The other keys are those of
/// `run_columns`. With `keep_parts`, `parts` maps each table written as bytes to its
/// columns (`pack::TablePart`), for `encode_pack` to write many runs as one file.
#[pyfunction]
#[pyo3(signature = (scenario, prefix, tables, created_by = "ncmesh", keep_parts = false))]
pub fn run_parquet<'py>(
    scenario: &Bound<'py, PyAny>,
    prefix: Vec<(String, ColTypeName, Bound<'py, PyAny>)>,
    tables: &Bound<'py, PyDict>,
    created_by: &str,
    keep_parts: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let py = scenario.py();
    let prefix: Vec<(String, ColType, Cell)> = prefix
        .into_iter()
        .map(|(name, ty, v)| Ok((name, ty.0, cell_from_py(&v)?)))
        .collect::<PyResult<_>>()?;
    let (s, r) = simulate(scenario, None, None)?;
    let out = PyDict::new(py);
    out.set_item("name", &r.name)?;
    out.set_item("seed", r.seed)?;
    out.set_item("events", r.events)?;
    out.set_item("sim_time_s", r.sim_time_s)?;
    out.set_item("wall_time_s", r.wall_time_s)?;

    let parts = PyDict::new(py);
    let keep = keep_parts.then_some(&parts);
    #[allow(clippy::too_many_arguments)]
    fn table<'py, T: serde::Serialize>(
        py: Python<'py>,
        name: &str,
        rows: &[T],
        prefix: &[(String, ColType, Cell)],
        tables: &Bound<'py, PyDict>,
        created_by: &str,
        keep: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let cols = match Columns::of(rows) {
            Ok(c) => c,
            Err(_) => return to_py(py, &rows),
        };
        let (order, types): (Vec<String>, HashMap<String, ColTypeName>) =
            match tables.get_item(name)? {
                Some(spec) => spec.extract()?,
                None => (Vec::new(), HashMap::new()),
            };
        let n = cols.rows();
        let null = Cell::Null;
        let mut names: Vec<&str> = order.iter().map(String::as_str).collect();
        names.extend(
            cols.names()
                .iter()
                .map(String::as_str)
                .filter(|c| !order.iter().any(|o| o == c)),
        );
        let mut columns: Vec<Column<'_>> = prefix
            .iter()
            .map(|(name, ty, v)| Column {
                name,
                ty: *ty,
                values: Src::Repeat(v, n),
            })
            .collect();
        for c in names {
            if prefix.iter().any(|p| p.0 == c) {
                continue;
            }
            let values = match cols.get(c) {
                Some(cells) => Src::Cells(cells),
                None => Src::Repeat(&null, n),
            };
            let ty = match types.get(c) {
                Some(t) => Some(t.0),
                None => infer(values),
            };
            let Some(ty) = ty else {
                return Ok(cols.to_py(py)?.into_any());
            };
            columns.push(Column {
                name: c,
                ty,
                values,
            });
        }
        match encode(&columns, created_by) {
            Ok(data) => {
                if let Some(keep) = keep {
                    keep.set_item(name, TablePart::of(&columns, n))?;
                }
                Ok(PyBytes::new(py, &data).into_any())
            }
            Err(_) => Ok(cols.to_py(py)?.into_any()),
        }
    }
    for (name, rows) in [
        (
            "flows",
            table(py, "flows", &r.flows, &prefix, tables, created_by, keep)?,
        ),
        (
            "nodes",
            table(py, "nodes", &r.nodes, &prefix, tables, created_by, keep)?,
        ),
        (
            "flow_series",
            table(
                py,
                "flow_series",
                &r.flow_series,
                &prefix,
                tables,
                created_by,
                keep,
            )?,
        ),
        (
            "node_series",
            table(
                py,
                "node_series",
                &r.node_series,
                &prefix,
                tables,
                created_by,
                keep,
            )?,
        ),
    ] {
        out.set_item(name, rows)?;
    }
    if keep_parts {
        out.set_item("parts", parts)?;
    }
    out.set_item("conservation", to_py(py, &r.conservation)?)?;
    out.set_item("scenario_toml", scenario::to_toml(&s))?;
    Ok(out)
}

/// Reads the scenario, sets the seed and runs it with the GIL released; a panic becomes
/// a RuntimeError. Returns the scenario that ran and its result.
fn simulate(
    scenario: &Bound<'_, PyAny>,
    seed: Option<&Bound<'_, PyAny>>,
    pcap_dir: Option<std::path::PathBuf>,
) -> PyResult<(scenario::Scenario, ncmesh_core::metrics::RunResult)> {
    let py = scenario.py();
    let s = read_scenario(scenario, seed)?;
    // The panic message is read on the thread that panicked (inside `detach`).
    let run = || match &pcap_dir {
        None => sim::run(&s).map_err(sim::pcap::PcapRunError::Scenario),
        Some(dir) => sim::pcap::run_with_pcaps(&s, dir),
    };
    let outcome =
        py.detach(|| catch_unwind(AssertUnwindSafe(run)).map_err(|p| panic_message(p.as_ref())));
    let result = match outcome {
        Ok(Ok(r)) => r,
        Ok(Err(sim::pcap::PcapRunError::Scenario(e))) => return Err(scenario_error(py, &e)),
        Ok(Err(sim::pcap::PcapRunError::Io(e))) => return Err(e.into()),
        Err(message) => return Err(internal_error(message)),
    };
    Ok((s, result))
}
