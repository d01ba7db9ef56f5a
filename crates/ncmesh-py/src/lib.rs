//! `ncmesh._core`: the Python binding of ncmesh-core.
//!
//! Scenarios cross the boundary as plain Python dicts (the TOML structure);
//! results come back as dicts. The `ncmesh` package builds the friendly API on top.

use pyo3::prelude::*;

mod columns;
mod convert;
mod errors;
mod functions;
mod pack;
mod parquet;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::install_panic_hook();
    m.add("ScenarioError", m.py().get_type::<errors::ScenarioError>())?;
    m.add_function(wrap_pyfunction!(functions::resolve, m)?)?;
    m.add_function(wrap_pyfunction!(functions::to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(functions::apply_preset, m)?)?;
    m.add_function(wrap_pyfunction!(functions::build_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(functions::build_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(functions::pair_stats, m)?)?;
    m.add_function(wrap_pyfunction!(functions::coding_counters, m)?)?;
    m.add_function(wrap_pyfunction!(functions::version, m)?)?;
    m.add_function(wrap_pyfunction!(functions::build_id, m)?)?;
    m.add_function(wrap_pyfunction!(functions::check, m)?)?;
    m.add_function(wrap_pyfunction!(functions::run, m)?)?;
    m.add_function(wrap_pyfunction!(functions::run_columns, m)?)?;
    m.add_function(wrap_pyfunction!(functions::run_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(parquet::encode_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(pack::encode_pack, m)?)?;
    m.add_class::<pack::TablePart>()?;
    Ok(())
}
