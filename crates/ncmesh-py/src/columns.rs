//! Tables of a run result as columns: `{column: [values]}` instead of a list of row dicts.
//!
//! `run_columns` (functions.rs) returns the result tables this way. The sweep workers
//! use it: one Python list per column is much cheaper to make (and to hand to
//! `encode_parquet`) than one dict per row. The rows are any `Serialize` structs; a
//! field becomes a column named after it, in field order (a key first seen in a later
//! row is appended, and rows without it get None). Values are numbers, booleans,
//! strings, None (an Option) and lists of those; anything else (a nested struct or map)
//! is an error, and the caller returns that table as row dicts instead.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::ser::{self, Serialize};

/// One value of a column.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String),
    List(Vec<Cell>),
}

impl Cell {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Cell::Null => py.None().into_bound(py),
            Cell::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
            Cell::I64(v) => v.into_pyobject(py)?.into_any(),
            Cell::U64(v) => v.into_pyobject(py)?.into_any(),
            Cell::F64(v) => v.into_pyobject(py)?.into_any(),
            Cell::Str(s) => s.into_pyobject(py)?.into_any(),
            Cell::List(items) => {
                let list = PyList::empty(py);
                for c in items {
                    list.append(c.to_py(py)?)?;
                }
                list.into_any()
            }
        })
    }
}

/// Not a table of flat rows.
#[derive(Debug)]
pub struct NotFlat(String);

impl std::fmt::Display for NotFlat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotFlat {}

impl ser::Error for NotFlat {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        NotFlat(msg.to_string())
    }
}

fn not_flat<T>(what: &str) -> Result<T, NotFlat> {
    Err(NotFlat(format!("{what} is not a column value")))
}

/// Columns being filled row by row.
#[derive(Default)]
pub struct Columns {
    names: Vec<String>,
    cells: Vec<Vec<Cell>>,
    rows: usize,
}

impl Columns {
    /// `rows` as columns; Err if a row is not a flat struct or map.
    pub fn of<T: Serialize>(rows: &[T]) -> Result<Columns, NotFlat> {
        let mut c = Columns::default();
        for row in rows {
            row.serialize(RowSer { cols: &mut c })?;
            c.rows += 1;
            for col in &mut c.cells {
                if col.len() < c.rows {
                    col.push(Cell::Null);
                }
            }
        }
        Ok(c)
    }

    fn put(&mut self, key: &str, value: Cell) {
        let i = match self.names.iter().position(|n| n == key) {
            Some(i) => i,
            None => {
                self.names.push(key.to_string());
                self.cells.push(vec![Cell::Null; self.rows]);
                self.names.len() - 1
            }
        };
        let col = &mut self.cells[i];
        if col.len() == self.rows {
            col.push(value);
        } else {
            // the same key twice in one row: the last one wins
            col[self.rows] = value;
        }
    }

    /// Column names, in field order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The values of column `name`.
    pub fn get(&self, name: &str) -> Option<&[Cell]> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| self.cells[i].as_slice())
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `{column: [values]}` (columns in field order).
    pub fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (name, col) in self.names.iter().zip(&self.cells) {
            let list = PyList::empty(py);
            for c in col {
                list.append(c.to_py(py)?)?;
            }
            out.set_item(name, list)?;
        }
        Ok(out)
    }
}

/// Serializes one row (a struct or a map with string keys) into `cols`.
struct RowSer<'a> {
    cols: &'a mut Columns,
}

struct RowStruct<'a> {
    cols: &'a mut Columns,
    key: Option<String>,
}

impl ser::SerializeStruct for RowStruct<'_> {
    type Ok = ();
    type Error = NotFlat;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        let cell = value.serialize(CellSer)?;
        self.cols.put(key, cell);
        Ok(())
    }

    fn skip_field(&mut self, _key: &'static str) -> Result<(), NotFlat> {
        Ok(())
    }

    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

impl ser::SerializeMap for RowStruct<'_> {
    type Ok = ();
    type Error = NotFlat;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), NotFlat> {
        match key.serialize(CellSer)? {
            Cell::Str(s) => {
                self.key = Some(s);
                Ok(())
            }
            _ => not_flat("a non-string key"),
        }
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotFlat> {
        let key = self
            .key
            .take()
            .ok_or_else(|| NotFlat("value without a key".into()))?;
        let cell = value.serialize(CellSer)?;
        self.cols.put(&key, cell);
        Ok(())
    }

    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

macro_rules! row_not_flat {
    ($($name:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $name(self, $(_: $arg),*) -> Result<Self::Ok, NotFlat> { not_flat("a row that is not a struct") })*
    };
}

impl<'a> ser::Serializer for RowSer<'a> {
    type Ok = ();
    type Error = NotFlat;
    type SerializeSeq = ser::Impossible<(), NotFlat>;
    type SerializeTuple = ser::Impossible<(), NotFlat>;
    type SerializeTupleStruct = ser::Impossible<(), NotFlat>;
    type SerializeTupleVariant = ser::Impossible<(), NotFlat>;
    type SerializeMap = RowStruct<'a>;
    type SerializeStruct = RowStruct<'a>;
    type SerializeStructVariant = ser::Impossible<(), NotFlat>;

    row_not_flat!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), NotFlat> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotFlat> {
        not_flat("an enum row")
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotFlat> {
        not_flat("a list row")
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotFlat> {
        not_flat("a tuple row")
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotFlat> {
        not_flat("a tuple row")
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotFlat> {
        not_flat("an enum row")
    }

    fn serialize_map(self, _: Option<usize>) -> Result<RowStruct<'a>, NotFlat> {
        Ok(RowStruct {
            cols: self.cols,
            key: None,
        })
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<RowStruct<'a>, NotFlat> {
        Ok(RowStruct {
            cols: self.cols,
            key: None,
        })
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotFlat> {
        not_flat("an enum row")
    }
}

/// Serializes one value into a Cell.
struct CellSer;

struct ListSer(Vec<Cell>);

impl ListSer {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotFlat> {
        self.0.push(value.serialize(CellSer)?);
        Ok(())
    }
}

impl ser::SerializeSeq for ListSer {
    type Ok = Cell;
    type Error = NotFlat;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotFlat> {
        self.push(value)
    }
    fn end(self) -> Result<Cell, NotFlat> {
        Ok(Cell::List(self.0))
    }
}

impl ser::SerializeTuple for ListSer {
    type Ok = Cell;
    type Error = NotFlat;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotFlat> {
        self.push(value)
    }
    fn end(self) -> Result<Cell, NotFlat> {
        Ok(Cell::List(self.0))
    }
}

impl ser::SerializeTupleStruct for ListSer {
    type Ok = Cell;
    type Error = NotFlat;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), NotFlat> {
        self.push(value)
    }
    fn end(self) -> Result<Cell, NotFlat> {
        Ok(Cell::List(self.0))
    }
}

impl ser::Serializer for CellSer {
    type Ok = Cell;
    type Error = NotFlat;
    type SerializeSeq = ListSer;
    type SerializeTuple = ListSer;
    type SerializeTupleStruct = ListSer;
    type SerializeTupleVariant = ser::Impossible<Cell, NotFlat>;
    type SerializeMap = ser::Impossible<Cell, NotFlat>;
    type SerializeStruct = ser::Impossible<Cell, NotFlat>;
    type SerializeStructVariant = ser::Impossible<Cell, NotFlat>;

    fn serialize_bool(self, v: bool) -> Result<Cell, NotFlat> {
        Ok(Cell::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Cell, NotFlat> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Cell, NotFlat> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Cell, NotFlat> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Cell, NotFlat> {
        Ok(Cell::I64(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Cell, NotFlat> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Cell, NotFlat> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Cell, NotFlat> {
        Ok(Cell::I64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Cell, NotFlat> {
        Ok(match i64::try_from(v) {
            Ok(v) => Cell::I64(v),
            Err(_) => Cell::U64(v),
        })
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, NotFlat> {
        Ok(Cell::F64(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Cell, NotFlat> {
        Ok(Cell::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<Cell, NotFlat> {
        Ok(Cell::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, NotFlat> {
        Ok(Cell::Str(v.to_string()))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Cell, NotFlat> {
        not_flat("bytes")
    }
    fn serialize_none(self) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Cell, NotFlat> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, NotFlat> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, NotFlat> {
        Ok(Cell::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Cell, NotFlat> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Cell, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<ListSer, NotFlat> {
        Ok(ListSer(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<ListSer, NotFlat> {
        Ok(ListSer(Vec::with_capacity(len)))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<ListSer, NotFlat> {
        Ok(ListSer(Vec::with_capacity(len)))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotFlat> {
        not_flat("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotFlat> {
        not_flat("a table")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, NotFlat> {
        not_flat("a table")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotFlat> {
        not_flat("an enum with data")
    }
}
