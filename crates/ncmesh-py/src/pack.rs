//! Packs: one result table of many runs as one Parquet file.
//!
//! A sweep worker writes each finished run's tables as small files at once (so a finished
//! run survives a crash), but reading a store back costs pyarrow about 30-60 µs per column
//! chunk and file, whoever wrote it, and one row group per run costs the same as one file
//! per run. So the worker keeps each run's columns (`TablePart`, returned by
//! `run_parquet(..., keep_parts=True)`) and, every few hundred runs, encodes them
//! concatenated into one row group (`encode_pack`), which replaces the runs' own files
//! (python/ncmesh/sweep/store.py says in which order, so that no run is ever lost or
//! counted twice).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::columns::Cell;
use crate::parquet::{encode, ColType, Column, Src};

/// One table of one run, as the columns its own file holds (the run key, sweep, seed and
/// params repeated on every row, then the table's columns).
#[pyclass(frozen, module = "ncmesh._core")]
pub struct TablePart {
    columns: Vec<(String, ColType, Values)>,
    rows: usize,
}

/// A column's values: its cells, or one value on every row (kept once).
enum Values {
    Cells(Vec<Cell>),
    Repeat(Cell, usize),
}

impl Values {
    fn src(&self) -> Src<'_> {
        match self {
            Values::Cells(c) => Src::Cells(c),
            Values::Repeat(c, n) => Src::Repeat(c, *n),
        }
    }
}

impl TablePart {
    /// The columns as given to the encoder (one run's: no joined sources).
    pub fn of(columns: &[Column<'_>], rows: usize) -> TablePart {
        let columns = columns
            .iter()
            .map(|c| {
                let values = match c.values {
                    Src::Cells(cells) => Values::Cells(cells.to_vec()),
                    Src::Repeat(cell, n) => Values::Repeat(cell.clone(), n),
                    Src::Joined(_) => unreachable!("a run's columns are not joined"),
                };
                (c.name.to_string(), c.ty, values)
            })
            .collect();
        TablePart { columns, rows }
    }

    fn same_schema(&self, other: &TablePart) -> bool {
        self.columns.len() == other.columns.len()
            && self
                .columns
                .iter()
                .zip(&other.columns)
                .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
    }
}

#[pymethods]
impl TablePart {
    /// Rows of the table.
    #[getter]
    fn rows(&self) -> usize {
        self.rows
    }

    /// Values held (rows x columns): what a pack of these costs in memory.
    #[getter]
    fn cells(&self) -> usize {
        self.rows * self.columns.len()
    }

    /// The column names and types, as a hashable value: parts with equal schemas pack
    /// together.
    #[getter]
    fn schema(&self) -> Vec<(String, String)> {
        self.columns
            .iter()
            .map(|(name, ty, _)| (name.clone(), format!("{ty:?}")))
            .collect()
    }
}

/// `encode_pack(parts, created_by)`: the bytes of one Parquet file holding the rows of
/// `parts` (TableParts of one table, all with the same columns and types) one after the
/// other, in one row group: the same file as `run_parquet` writes for one run, with more
/// rows. ValueError if the schemas differ or `parts` is empty.
#[pyfunction]
#[pyo3(signature = (parts, created_by = "ncmesh"))]
pub fn encode_pack<'py>(
    py: Python<'py>,
    parts: Vec<Bound<'py, TablePart>>,
    created_by: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let parts: Vec<&TablePart> = parts.iter().map(|p| p.get()).collect();
    let Some(first) = parts.first() else {
        return Err(PyValueError::new_err("encode_pack: no parts"));
    };
    if let Some(i) = parts.iter().position(|p| !first.same_schema(p)) {
        return Err(PyValueError::new_err(format!(
            "encode_pack: part {i} has other columns than part 0"
        )));
    }
    // Each column: the parts' values one after the other, read in place.
    let joined: Vec<Vec<Src<'_>>> = (0..first.columns.len())
        .map(|j| parts.iter().map(|p| p.columns[j].2.src()).collect())
        .collect();
    let columns: Vec<Column<'_>> = first
        .columns
        .iter()
        .zip(&joined)
        .map(|((name, ty, _), srcs)| Column {
            name,
            ty: *ty,
            values: Src::Joined(srcs),
        })
        .collect();
    let data = py
        .detach(|| encode(&columns, created_by))
        .map_err(|e| PyTypeError::new_err(e.0))?;
    Ok(PyBytes::new(py, &data))
}
