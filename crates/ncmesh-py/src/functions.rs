//! The functions of `ncmesh._core`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ncmesh_core::{scenario, sim};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::convert::{scenario_from_py, to_py};
use crate::errors::{internal_error, panic_message, scenario_error};

/// The scenario with every default filled in, validated, as a dict.
#[pyfunction]
pub fn resolve<'py>(scenario: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let s = scenario_from_py(scenario)?;
    to_py(scenario.py(), &s)
}

/// The complete, resolved scenario as TOML text.
#[pyfunction]
pub fn to_toml(scenario: &Bound<'_, PyAny>) -> PyResult<String> {
    let s = scenario_from_py(scenario)?;
    Ok(scenario::to_toml(&s))
}

/// A generated scenario (chain, grid, random, ...) as a resolved dict.
#[pyfunction]
#[pyo3(signature = (kind, options = None))]
pub fn build_scenario<'py>(
    py: Python<'py>,
    kind: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let map: serde_json::Map<String, serde_json::Value> = match options {
        Some(d) => pythonize::depythonize(d.as_any()).map_err(|e| {
            scenario_error(py, &scenario::ScenarioError::new("options", e.to_string()))
        })?,
        None => serde_json::Map::new(),
    };
    let opts = scenario::BuildOptions::from(map);
    let s = scenario::build(kind, &opts).map_err(|e| scenario_error(py, &e))?;
    to_py(py, &s)
}

/// The scenario kinds `build_scenario` knows.
#[pyfunction]
pub fn build_kinds(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    PyList::new(py, scenario::build_kinds().iter().copied())
}

/// The version of the simulator core.
#[pyfunction]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Runs one simulation. Returns the result as a dict plus key "scenario" (the resolved
/// scenario that ran). The GIL is released while the simulation runs.
/// With `pcap_dir`, the run is traced and one packet capture per node is written there
/// (sim::pcap; an OSError if that fails).
#[pyfunction]
#[pyo3(signature = (scenario, seed = None, pcap_dir = None))]
pub fn run<'py>(
    scenario: &Bound<'py, PyAny>,
    seed: Option<u64>,
    pcap_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = scenario.py();
    let mut s = scenario_from_py(scenario)?;
    if let Some(seed) = seed {
        s.simulation.seed = seed;
    }
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
    let out = to_py(py, &result)?;
    let dict = out
        .cast::<PyDict>()
        .map_err(|e| internal_error(e.to_string()))?;
    dict.set_item("scenario", to_py(py, &s)?)?;
    Ok(out)
}
