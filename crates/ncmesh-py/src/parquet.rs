//! `encode_parquet`: a small table as the bytes of a Parquet file, without pyarrow.
//!
//! The sweep workers write five small Parquet files per run (docs/sweeps.md). Building
//! them with pyarrow costs about a millisecond per run plus a 0.2 s import per command;
//! this writes them with the Apache Arrow project's `parquet` crate (its low-level
//! column writer: no Arrow arrays, no compression codecs compiled in), for the column
//! types a sweep uses:
//!
//! | type           | Parquet                                                        |
//! |----------------|----------------------------------------------------------------|
//! | `int64`        | optional INT64                                                 |
//! | `float64`      | optional DOUBLE                                                |
//! | `bool`         | optional BOOLEAN                                               |
//! | `string`       | optional BYTE_ARRAY, logical type STRING                       |
//! | `list<T>`      | optional group (LIST) { repeated group list { optional T element } }, T one of the above |
//!
//! This is the layout pyarrow writes (`pq.write_table(..., use_dictionary=False,
//! write_statistics=False)`), so the files read back as the same Arrow schema (every
//! column nullable, lists as `list<element: T>`). One row group, v1 data pages, PLAIN
//! values, RLE levels, no compression, no statistics. `None` is null. Anything else
//! (another type, a value that does not fit) raises TypeError or ValueError, and the
//! caller falls back to pyarrow.

use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::column::writer::ColumnWriter;
use parquet::data_type::ByteArray;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{Type, TypePtr};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::columns::Cell;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Prim {
    Int64,
    Float64,
    Bool,
    String,
}

impl Prim {
    fn parse(name: &str) -> Option<Prim> {
        match name {
            "int64" => Some(Prim::Int64),
            "float64" => Some(Prim::Float64),
            "bool" => Some(Prim::Bool),
            "string" => Some(Prim::String),
            _ => None,
        }
    }

    fn physical(self) -> Physical {
        match self {
            Prim::Int64 => Physical::INT64,
            Prim::Float64 => Physical::DOUBLE,
            Prim::Bool => Physical::BOOLEAN,
            Prim::String => Physical::BYTE_ARRAY,
        }
    }
}

/// A column type: a primitive, or a list of one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ColType {
    pub prim: Prim,
    pub list: bool,
}

impl ColType {
    pub fn parse(name: &str) -> Option<ColType> {
        if let Some(inner) = name.strip_prefix("list<").and_then(|s| s.strip_suffix('>')) {
            return Prim::parse(inner).map(|prim| ColType { prim, list: true });
        }
        Prim::parse(name).map(|prim| ColType { prim, list: false })
    }
}

// ---------------------------------------------------------------- columns

/// Why a table cannot be encoded here (the caller falls back to pyarrow).
#[derive(Debug)]
pub struct Unsupported(pub String);

/// The values of one column: cells, or one cell repeated (the run key, the params).
#[derive(Clone, Copy)]
pub enum Src<'a> {
    Cells(&'a [Cell]),
    Repeat(&'a Cell, usize),
}

impl<'a> Src<'a> {
    fn len(&self) -> usize {
        match self {
            Src::Cells(c) => c.len(),
            Src::Repeat(_, n) => *n,
        }
    }

    fn iter(&self) -> impl Iterator<Item = &'a Cell> + 'a {
        let (cells, one, n): (&'a [Cell], Option<&'a Cell>, usize) = match *self {
            Src::Cells(c) => (c, None, 0),
            Src::Repeat(c, n) => (&[], Some(c), n),
        };
        cells.iter().chain(std::iter::repeat_n(one, n).flatten())
    }
}

/// One column to encode.
pub struct Column<'a> {
    pub name: &'a str,
    pub ty: ColType,
    pub values: Src<'a>,
}

/// The values of one column, nulls left out (the definition levels say where).
enum Values {
    Int64(Vec<i64>),
    Float64(Vec<f64>),
    Bool(Vec<bool>),
    Bytes(Vec<ByteArray>),
}

impl Values {
    fn new(prim: Prim) -> Values {
        match prim {
            Prim::Int64 => Values::Int64(Vec::new()),
            Prim::Float64 => Values::Float64(Vec::new()),
            Prim::Bool => Values::Bool(Vec::new()),
            Prim::String => Values::Bytes(Vec::new()),
        }
    }

    /// Appends `v` (not Null); Err if it is not of the column's type. Integers are
    /// accepted in float columns (as pyarrow does), nothing else is converted.
    fn push(&mut self, v: &Cell) -> Result<(), Unsupported> {
        match (self, v) {
            (Values::Int64(out), Cell::I64(x)) => out.push(*x),
            (Values::Float64(out), Cell::F64(x)) => out.push(*x),
            (Values::Float64(out), Cell::I64(x)) => out.push(*x as f64),
            (Values::Bool(out), Cell::Bool(b)) => out.push(*b),
            (Values::Bytes(out), Cell::Str(s)) => out.push(ByteArray::from(s.as_str())),
            (_, v) => return Err(Unsupported(format!("{v:?} in a column of another type"))),
        }
        Ok(())
    }
}

/// One column's values and levels: definition levels always (every column is
/// optional), repetition levels for lists.
struct Levels {
    values: Values,
    defs: Vec<i16>,
    reps: Option<Vec<i16>>,
}

fn levels(c: &Column<'_>) -> Result<Levels, Unsupported> {
    let mut values = Values::new(c.ty.prim);
    let n = c.values.len();
    let mut defs = Vec::with_capacity(n);
    if !c.ty.list {
        // optional T: definition level 1 = present, 0 = null
        for v in c.values.iter() {
            if *v == Cell::Null {
                defs.push(0);
            } else {
                values.push(v)?;
                defs.push(1);
            }
        }
        return Ok(Levels {
            values,
            defs,
            reps: None,
        });
    }
    // optional group (LIST) { repeated group list { optional T element } }
    // definition: 0 null list, 1 empty list, 2 null element, 3 element; repetition: 1
    // continues the row's list.
    let mut reps = Vec::with_capacity(n);
    for v in c.values.iter() {
        let items = match v {
            Cell::Null => {
                reps.push(0);
                defs.push(0);
                continue;
            }
            Cell::List(items) => items,
            other => return Err(Unsupported(format!("{other:?} in a list column"))),
        };
        if items.is_empty() {
            reps.push(0);
            defs.push(1);
            continue;
        }
        for (i, item) in items.iter().enumerate() {
            reps.push(if i == 0 { 0 } else { 1 });
            if *item == Cell::Null {
                defs.push(2);
            } else {
                values.push(item)?;
                defs.push(3);
            }
        }
    }
    Ok(Levels {
        values,
        defs,
        reps: Some(reps),
    })
}

/// The type pyarrow would give a column of these values (as the sweep's Python side
/// infers it): that of the first value that is not null; a list takes the type of its
/// first element that is not null; float64 when there is none. None if that type is
/// not one this writer handles (a list of lists).
pub fn infer(values: Src<'_>) -> Option<ColType> {
    fn prim(c: &Cell) -> Option<Prim> {
        match c {
            Cell::Bool(_) => Some(Prim::Bool),
            Cell::I64(_) | Cell::U64(_) => Some(Prim::Int64),
            Cell::F64(_) => Some(Prim::Float64),
            Cell::Str(_) => Some(Prim::String),
            Cell::Null | Cell::List(_) => None,
        }
    }
    match values.iter().find(|c| **c != Cell::Null) {
        None => Some(ColType {
            prim: Prim::Float64,
            list: false,
        }),
        Some(Cell::List(items)) => match items.iter().find(|c| **c != Cell::Null) {
            None => Some(ColType {
                prim: Prim::Float64,
                list: true,
            }),
            Some(first) => prim(first).map(|prim| ColType { prim, list: true }),
        },
        Some(c) => prim(c).map(|prim| ColType { prim, list: false }),
    }
}

/// A Python value as a Cell: None, bool, int, float, str, and lists or tuples of those.
pub fn cell_from_py(v: &Bound<'_, PyAny>) -> PyResult<Cell> {
    if v.is_none() {
        return Ok(Cell::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Cell::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        return match v.extract::<i64>() {
            Ok(x) => Ok(Cell::I64(x)),
            Err(_) => Ok(Cell::U64(v.extract::<u64>()?)),
        };
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(Cell::F64(f.value()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Cell::Str(s.to_cow()?.into_owned()));
    }
    if let Ok(l) = v.cast::<PyList>() {
        return l
            .iter()
            .map(|x| cell_from_py(&x))
            .collect::<PyResult<_>>()
            .map(Cell::List);
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| cell_from_py(&x))
            .collect::<PyResult<_>>()
            .map(Cell::List);
    }
    Err(PyTypeError::new_err(format!(
        "a value of type {} is not supported",
        v.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    )))
}

impl From<parquet::errors::ParquetError> for Unsupported {
    fn from(e: parquet::errors::ParquetError) -> Self {
        Unsupported(e.to_string())
    }
}

fn leaf(prim: Prim, name: &str) -> Result<TypePtr, Unsupported> {
    let logical = (prim == Prim::String).then_some(LogicalType::String);
    Ok(Arc::new(
        Type::primitive_type_builder(name, prim.physical())
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()?,
    ))
}

/// The schema field of a column: a leaf, or pyarrow's three-level list.
fn field(c: &Column<'_>) -> Result<TypePtr, Unsupported> {
    if !c.ty.list {
        return leaf(c.ty.prim, c.name);
    }
    let list = Type::group_type_builder("list")
        .with_repetition(Repetition::REPEATED)
        .with_fields(vec![leaf(c.ty.prim, "element")?])
        .build()?;
    Ok(Arc::new(
        Type::group_type_builder(c.name)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(Some(LogicalType::List))
            .with_fields(vec![Arc::new(list)])
            .build()?,
    ))
}

/// The writer settings (made once per `created_by`: every file of a sweep shares them).
fn properties(created_by: &str) -> Arc<WriterProperties> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<(String, Arc<WriterProperties>)>> =
            const { std::cell::RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some((who, props)) if who == created_by => props.clone(),
            _ => {
                let props = Arc::new(
                    WriterProperties::builder()
                        .set_writer_version(WriterVersion::PARQUET_1_0)
                        .set_compression(Compression::UNCOMPRESSED)
                        .set_dictionary_enabled(false)
                        .set_statistics_enabled(EnabledStatistics::None)
                        .set_offset_index_disabled(true)
                        .set_created_by(created_by.to_string())
                        .build(),
                );
                *last = Some((created_by.to_string(), props.clone()));
                props
            }
        }
    })
}

/// The Parquet file of `columns` (all of the same length).
pub fn encode(columns: &[Column<'_>], created_by: &str) -> Result<Vec<u8>, Unsupported> {
    let rows = columns.first().map(|c| c.values.len()).unwrap_or(0);
    let mut fields = Vec::with_capacity(columns.len());
    let mut data = Vec::with_capacity(columns.len());
    for c in columns {
        if c.values.len() != rows {
            return Err(Unsupported(format!(
                "column {}: {} values, expected {rows}",
                c.name,
                c.values.len()
            )));
        }
        fields.push(field(c)?);
        data.push(levels(c)?);
    }
    let schema = Arc::new(
        Type::group_type_builder("schema")
            .with_fields(fields)
            .build()?,
    );
    let mut out = Vec::with_capacity(256 + 16 * rows * columns.len());
    let mut writer = SerializedFileWriter::new(&mut out, schema, properties(created_by))?;
    let mut group = writer.next_row_group()?;
    for d in &data {
        let mut col = group
            .next_column()?
            .ok_or_else(|| Unsupported("more columns than the schema".into()))?;
        let (defs, reps) = (Some(d.defs.as_slice()), d.reps.as_deref());
        match (col.untyped(), &d.values) {
            (ColumnWriter::Int64ColumnWriter(w), Values::Int64(v)) => {
                w.write_batch(v, defs, reps)?
            }
            (ColumnWriter::DoubleColumnWriter(w), Values::Float64(v)) => {
                w.write_batch(v, defs, reps)?
            }
            (ColumnWriter::BoolColumnWriter(w), Values::Bool(v)) => w.write_batch(v, defs, reps)?,
            (ColumnWriter::ByteArrayColumnWriter(w), Values::Bytes(v)) => {
                w.write_batch(v, defs, reps)?
            }
            _ => return Err(Unsupported("column writer of another type".into())),
        };
        col.close()?;
    }
    group.close()?;
    writer.close()?;
    Ok(out)
}

/// A column type name as given from Python (`int64`, `list<string>`, ...).
pub struct ColTypeName(pub ColType);

impl<'py> FromPyObject<'_, 'py> for ColTypeName {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let s: String = obj.extract()?;
        ColType::parse(&s)
            .map(ColTypeName)
            .ok_or_else(|| PyTypeError::new_err(format!("column type {s} is not supported")))
    }
}

/// `encode_parquet(columns, created_by)`: the bytes of a Parquet file holding `columns`,
/// a sequence of (name, type, list of values); types `int64`, `float64`, `bool`,
/// `string` and `list<...>` of those; None is null. TypeError/ValueError for anything
/// else (the caller may fall back to pyarrow).
#[pyfunction]
#[pyo3(signature = (columns, created_by = "ncmesh"))]
pub fn encode_parquet<'py>(
    py: Python<'py>,
    columns: Vec<(String, ColTypeName, Bound<'py, PyList>)>,
    created_by: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let cells: Vec<Vec<Cell>> = columns
        .iter()
        .map(|(_, _, values)| values.iter().map(|v| cell_from_py(&v)).collect())
        .collect::<PyResult<_>>()?;
    let cols: Vec<Column<'_>> = columns
        .iter()
        .zip(&cells)
        .map(|((name, ty, _), cells)| Column {
            name,
            ty: ty.0,
            values: Src::Cells(cells),
        })
        .collect();
    let data = encode(&cols, created_by).map_err(|e| PyTypeError::new_err(e.0))?;
    Ok(PyBytes::new(py, &data))
}
