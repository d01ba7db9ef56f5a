//! `encode_parquet`: a small table as the bytes of a Parquet file, without pyarrow.
//!
//! The sweep workers write five small Parquet files per run (docs/sweeps.md). Building
//! them with pyarrow costs about a millisecond per run plus a 0.2 s import per command;
//! this writer does the same in a few microseconds, for the column types a sweep uses:
//!
//! | type           | Parquet                                                        |
//! |----------------|----------------------------------------------------------------|
//! | `int64`        | optional INT64                                                 |
//! | `float64`      | optional DOUBLE                                                |
//! | `bool`         | optional BOOLEAN                                               |
//! | `string`       | optional BYTE_ARRAY, logical type STRING (converted UTF8)      |
//! | `list<T>`      | optional group (LIST) { repeated group list { optional T element } }, T one of the above |
//!
//! This is the layout pyarrow writes (`pq.write_table(..., write_statistics=False)`), so
//! the files read back as the same Arrow schema (every column nullable, lists as
//! `list<element: T>`). One row group, one v1 data page per column, RLE levels, no
//! compression, no statistics; PLAIN values, except a column that repeats a value per run
//! (a run's key, sweep, seed and params): a dictionary page of its values and RLE runs of
//! their indices (`encode_repeats`). `None` is null.
//! Anything else (another type, a value that does not fit) raises TypeError or
//! ValueError, and the caller falls back to pyarrow.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::columns::Cell;

const MAGIC: &[u8] = b"PAR1";

// parquet.thrift enums
const T_BOOLEAN: i32 = 0;
const T_INT64: i32 = 2;
const T_DOUBLE: i32 = 5;
const T_BYTE_ARRAY: i32 = 6;
const REP_REQUIRED: i32 = 0;
const REP_OPTIONAL: i32 = 1;
const REP_REPEATED: i32 = 2;
const CONVERTED_UTF8: i32 = 0;
const CONVERTED_LIST: i32 = 3;
const ENC_PLAIN: i32 = 0;
const ENC_RLE: i32 = 3;
const ENC_RLE_DICTIONARY: i32 = 8;
const CODEC_UNCOMPRESSED: i32 = 0;
const PAGE_DATA: i32 = 0;
const PAGE_DICTIONARY: i32 = 2;

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

    fn physical(self) -> i32 {
        match self {
            Prim::Int64 => T_INT64,
            Prim::Float64 => T_DOUBLE,
            Prim::Bool => T_BOOLEAN,
            Prim::String => T_BYTE_ARRAY,
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

// ---------------------------------------------------------------- thrift compact protocol

const CT_TRUE: u8 = 1;
const CT_FALSE: u8 = 2;
const CT_I32: u8 = 5;
const CT_I64: u8 = 6;
const CT_BINARY: u8 = 8;
const CT_LIST: u8 = 9;
const CT_STRUCT: u8 = 12;

/// A Thrift compact-protocol writer (only what Parquet's metadata needs).
struct Thrift {
    buf: Vec<u8>,
    last: Vec<i16>,
}

impl Thrift {
    fn new() -> Thrift {
        Thrift {
            buf: Vec::new(),
            last: vec![0],
        }
    }

    fn varint(&mut self, v: u64) {
        varint(&mut self.buf, v);
    }

    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn field(&mut self, id: i16, ty: u8) {
        let last = self.last.last_mut().expect("inside a struct");
        let delta = id - *last;
        *last = id;
        if delta > 0 && delta <= 15 {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            self.zigzag(id as i64);
        }
    }

    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, CT_I32);
        self.zigzag(v as i64);
    }

    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, CT_I64);
        self.zigzag(v);
    }

    fn binary(&mut self, id: i16, v: &[u8]) {
        self.field(id, CT_BINARY);
        self.varint(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    #[allow(dead_code)]
    fn bool(&mut self, id: i16, v: bool) {
        self.field(id, if v { CT_TRUE } else { CT_FALSE });
    }

    fn list_header(&mut self, id: i16, elem: u8, len: usize) {
        self.field(id, CT_LIST);
        if len < 15 {
            self.buf.push(((len as u8) << 4) | elem);
        } else {
            self.buf.push(0xF0 | elem);
            self.varint(len as u64);
        }
    }

    /// A struct field: call `end` after its fields.
    fn begin(&mut self, id: i16) {
        self.field(id, CT_STRUCT);
        self.last.push(0);
    }

    /// A struct that is a list element (no field header).
    fn begin_elem(&mut self) {
        self.last.push(0);
    }

    fn end(&mut self) {
        self.buf.push(0);
        self.last.pop();
    }
}

// ---------------------------------------------------------------- columns

/// One column, encoded: its data page (levels, and PLAIN values or dictionary indices), and
/// its dictionary page if it has one.
struct Encoded {
    name: String,
    ty: ColType,
    num_values: usize, // level entries (rows, or list elements + empty/null lists)
    page: Vec<u8>,     // levels + values (or dictionary indices), as they go in the page
    /// A dictionary-encoded column: its dictionary page's PLAIN values and their count.
    dict: Option<(Vec<u8>, usize)>,
}

/// A column of repeated values (a run's key, sweep, seed and params, the same on each of
/// its rows; in a pack, one such value per run): dictionary-encoded, so that each value is
/// stored once and its rows as one RLE run of its index, instead of PLAIN on every row
/// (a run's node series has thousands of rows). None for any other column, for lists and
/// for booleans (PLAIN, as pyarrow writes booleans).
fn encode_repeats(c: &Column<'_>) -> Result<Option<Encoded>, Unsupported> {
    let parts: Vec<(&Cell, usize)> = match c.values {
        Src::Repeat(cell, n) => vec![(cell, n)],
        Src::Joined(parts) => {
            let mut out = Vec::with_capacity(parts.len());
            for p in parts {
                match p {
                    Src::Repeat(cell, n) => out.push((*cell, *n)),
                    _ => return Ok(None),
                }
            }
            out
        }
        Src::Cells(_) => return Ok(None),
    };
    if c.ty.list
        || c.ty.prim == Prim::Bool
        || parts.iter().all(|&(cell, n)| n == 0 || *cell == Cell::Null)
    {
        return Ok(None);
    }
    // The distinct values in order of first appearance (consecutive runs often share one:
    // the sweep's name, a grid value).
    let mut dict: Vec<&Cell> = Vec::new();
    let mut indexed: Vec<(Option<usize>, usize)> = Vec::with_capacity(parts.len());
    for &(cell, n) in &parts {
        if n == 0 {
            continue;
        }
        if *cell == Cell::Null {
            indexed.push((None, n));
            continue;
        }
        let i = match dict.iter().rposition(|d| *d == cell) {
            Some(i) => i,
            None => {
                dict.push(cell);
                dict.len() - 1
            }
        };
        indexed.push((Some(i), n));
    }
    let mut values = Values::new(c.ty.prim);
    for d in &dict {
        values.push(d)?;
    }
    let mut dict_bytes = Vec::new();
    values.finish(&mut dict_bytes);
    // Definition levels as in a PLAIN page; then the indices of the values present: their
    // bit width (at least 1), then RLE runs of the RLE/bit-packed hybrid (no length prefix).
    let mut page = Vec::new();
    rle_level_runs(
        indexed.iter().map(|&(idx, n)| (u8::from(idx.is_some()), n)),
        &mut page,
    );
    let width = (usize::BITS - (dict.len() - 1).leading_zeros()).max(1);
    page.push(width as u8);
    let value_bytes = width.div_ceil(8) as usize;
    for &(idx, n) in &indexed {
        if let Some(idx) = idx {
            rle_run(&mut page, n, &(idx as u64).to_le_bytes()[..value_bytes]);
        }
    }
    Ok(Some(Encoded {
        name: c.name.to_string(),
        ty: c.ty,
        num_values: indexed.iter().map(|&(_, n)| n).sum(),
        page,
        dict: Some((dict_bytes, dict.len())),
    }))
}

/// An unsigned LEB128 varint (Thrift's compact integers, RLE run headers).
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// One RLE run of the RLE/bit-packed hybrid: `count` times `value` (its little-endian
/// bytes, as many as the bit width takes).
fn rle_run(out: &mut Vec<u8>, count: usize, value: &[u8]) {
    varint(out, (count as u64) << 1);
    out.extend_from_slice(value);
}

/// RLE/bit-packed hybrid encoding of levels, RLE runs only; 4-byte length prefix (v1 page).
fn rle_levels(levels: &[u8], out: &mut Vec<u8>) {
    rle_level_runs(levels.iter().map(|&l| (l, 1)), out);
}

/// `rle_levels` of levels given as (level, count) runs; adjacent runs of one level are
/// written as one.
fn rle_level_runs(runs: impl IntoIterator<Item = (u8, usize)>, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut current: Option<(u8, usize)> = None;
    for (level, count) in runs {
        match &mut current {
            Some((l, n)) if *l == level => *n += count,
            _ => {
                if let Some((l, n)) = current {
                    rle_run(out, n, &[l]); // bit width <= 8: one byte
                }
                current = Some((level, count));
            }
        }
    }
    if let Some((l, n)) = current {
        rle_run(out, n, &[l]);
    }
    let len = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Why a table cannot be encoded here (the caller falls back to pyarrow).
#[derive(Debug)]
pub struct Unsupported(pub String);

/// The values of one column: cells, or one cell repeated (the run key, the params), or
/// several of those one after the other (a pack: pack.rs).
#[derive(Clone, Copy)]
pub enum Src<'a> {
    Cells(&'a [Cell]),
    Repeat(&'a Cell, usize),
    /// Parts that are `Cells` or `Repeat` (not `Joined` again).
    Joined(&'a [Src<'a>]),
}

impl<'a> Src<'a> {
    fn len(&self) -> usize {
        match self {
            Src::Cells(c) => c.len(),
            Src::Repeat(_, n) => *n,
            Src::Joined(parts) => parts.iter().map(Src::len).sum(),
        }
    }

    fn iter(&self) -> SrcIter<'a> {
        let mut it = SrcIter {
            rest: &[],
            cells: [].iter(),
            one: None,
            n: 0,
        };
        match *self {
            Src::Joined(parts) => it.rest = parts,
            part => it.load(part),
        }
        it
    }
}

/// The cells of a `Src`, in order.
pub struct SrcIter<'a> {
    rest: &'a [Src<'a>],
    cells: std::slice::Iter<'a, Cell>,
    one: Option<&'a Cell>,
    n: usize,
}

impl<'a> SrcIter<'a> {
    fn load(&mut self, part: Src<'a>) {
        match part {
            Src::Cells(c) => self.cells = c.iter(),
            Src::Repeat(c, n) => (self.one, self.n) = (Some(c), n),
            Src::Joined(_) => unreachable!("a joined source's parts are cells or repeats"),
        }
    }
}

impl<'a> Iterator for SrcIter<'a> {
    type Item = &'a Cell;

    fn next(&mut self) -> Option<&'a Cell> {
        loop {
            if let Some(c) = self.cells.next() {
                return Some(c);
            }
            if self.n > 0 {
                self.n -= 1;
                return self.one;
            }
            let (first, rest) = self.rest.split_first()?;
            self.rest = rest;
            self.load(*first);
        }
    }
}

/// One column to encode.
pub struct Column<'a> {
    pub name: &'a str,
    pub ty: ColType,
    pub values: Src<'a>,
}

/// PLAIN values of one primitive type (nulls are not stored).
struct Values {
    prim: Prim,
    bytes: Vec<u8>,
    bools: Vec<bool>,
}

impl Values {
    fn new(prim: Prim) -> Values {
        Values {
            prim,
            bytes: Vec::new(),
            bools: Vec::new(),
        }
    }

    /// Appends `v` (not Null); Err if it is not of the column's type. Integers are
    /// accepted in float columns (as pyarrow does), nothing else is converted.
    fn push(&mut self, v: &Cell) -> Result<(), Unsupported> {
        match (self.prim, v) {
            (Prim::Int64, Cell::I64(x)) => self.bytes.extend_from_slice(&x.to_le_bytes()),
            (Prim::Float64, Cell::F64(x)) => self.bytes.extend_from_slice(&x.to_le_bytes()),
            (Prim::Float64, Cell::I64(x)) => {
                self.bytes.extend_from_slice(&(*x as f64).to_le_bytes())
            }
            (Prim::Bool, Cell::Bool(b)) => self.bools.push(*b),
            (Prim::String, Cell::Str(s)) => {
                let len =
                    u32::try_from(s.len()).map_err(|_| Unsupported("string too long".into()))?;
                self.bytes.extend_from_slice(&len.to_le_bytes());
                self.bytes.extend_from_slice(s.as_bytes());
            }
            (prim, v) => return Err(Unsupported(format!("{v:?} in a {prim:?} column"))),
        }
        Ok(())
    }

    fn finish(self, out: &mut Vec<u8>) {
        if self.prim == Prim::Bool {
            let mut byte = 0u8;
            for (i, b) in self.bools.iter().enumerate() {
                if *b {
                    byte |= 1 << (i % 8);
                }
                if i % 8 == 7 {
                    out.push(byte);
                    byte = 0;
                }
            }
            if !self.bools.len().is_multiple_of(8) {
                out.push(byte);
            }
        } else {
            out.extend_from_slice(&self.bytes);
        }
    }
}

fn encode_column(c: &Column<'_>) -> Result<Encoded, Unsupported> {
    if let Some(e) = encode_repeats(c)? {
        return Ok(e);
    }
    let ty = c.ty;
    let mut vals = Values::new(ty.prim);
    let mut page = Vec::new();
    let n = c.values.len();
    if !ty.list {
        // optional T: definition level 1 = present, 0 = null
        let mut defs = Vec::with_capacity(n);
        for v in c.values.iter() {
            if *v == Cell::Null {
                defs.push(0);
            } else {
                vals.push(v)?;
                defs.push(1);
            }
        }
        rle_levels(&defs, &mut page);
        vals.finish(&mut page);
        return Ok(Encoded {
            name: c.name.to_string(),
            ty,
            num_values: defs.len(),
            page,
            dict: None,
        });
    }
    // optional group (LIST) { repeated group list { optional T element } }
    // definition: 0 null list, 1 empty list, 2 null element, 3 element; repetition: 1
    // continues the row's list.
    let mut reps = Vec::with_capacity(n);
    let mut defs = Vec::with_capacity(n);
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
                vals.push(item)?;
                defs.push(3);
            }
        }
    }
    rle_levels(&reps, &mut page);
    rle_levels(&defs, &mut page);
    vals.finish(&mut page);
    Ok(Encoded {
        name: c.name.to_string(),
        ty,
        num_values: defs.len(),
        page,
        dict: None,
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

fn schema_leaf(t: &mut Thrift, prim: Prim, name: &str) {
    t.begin_elem();
    t.i32(1, prim.physical());
    t.i32(3, REP_OPTIONAL);
    t.binary(4, name.as_bytes());
    if prim == Prim::String {
        t.i32(6, CONVERTED_UTF8);
        t.begin(10); // LogicalType
        t.begin(1); // STRING
        t.end();
        t.end();
    }
    t.end();
}

/// The Parquet file of `columns` (all of the same length).
pub fn encode(columns: &[Column<'_>], created_by: &str) -> Result<Vec<u8>, Unsupported> {
    let rows = columns.first().map(|c| c.values.len()).unwrap_or(0);
    let mut encoded = Vec::with_capacity(columns.len());
    for c in columns {
        if c.values.len() != rows {
            return Err(Unsupported(format!(
                "column {}: {} values, expected {rows}",
                c.name,
                c.values.len()
            )));
        }
        encoded.push(encode_column(c)?);
    }

    let mut out = Vec::with_capacity(64 + encoded.iter().map(|e| e.page.len() + 32).sum::<usize>());
    out.extend_from_slice(MAGIC);
    // (dictionary page offset, data page offset, total size with headers) per column
    let mut chunks = Vec::with_capacity(encoded.len());
    for e in &encoded {
        let start = out.len();
        let dict_offset = e.dict.as_ref().map(|(values, count)| {
            let mut h = Thrift::new();
            h.i32(1, PAGE_DICTIONARY);
            h.i32(2, values.len() as i32);
            h.i32(3, values.len() as i32);
            h.begin(7); // DictionaryPageHeader
            h.i32(1, *count as i32);
            h.i32(2, ENC_PLAIN);
            h.end();
            h.buf.push(0); // end of PageHeader
            out.extend_from_slice(&h.buf);
            out.extend_from_slice(values);
            start
        });
        let mut h = Thrift::new();
        h.i32(1, PAGE_DATA);
        h.i32(2, e.page.len() as i32);
        h.i32(3, e.page.len() as i32);
        h.begin(5); // DataPageHeader
        h.i32(1, e.num_values as i32);
        h.i32(
            2,
            if e.dict.is_some() {
                ENC_RLE_DICTIONARY
            } else {
                ENC_PLAIN
            },
        );
        h.i32(3, ENC_RLE);
        h.i32(4, ENC_RLE);
        h.end();
        h.buf.push(0); // end of PageHeader
        let offset = out.len();
        out.extend_from_slice(&h.buf);
        out.extend_from_slice(&e.page);
        chunks.push((dict_offset, offset, out.len() - start));
    }
    let total: usize = chunks.iter().map(|c| c.2).sum();

    // FileMetaData
    let mut t = Thrift::new();
    t.i32(1, 2); // version
    let leaves_and_groups: usize = encoded.iter().map(|e| if e.ty.list { 3 } else { 1 }).sum();
    t.list_header(2, CT_STRUCT, 1 + leaves_and_groups);
    t.begin_elem(); // root
    t.i32(3, REP_REQUIRED);
    t.binary(4, b"schema");
    t.i32(5, encoded.len() as i32);
    t.end();
    for e in &encoded {
        if e.ty.list {
            t.begin_elem();
            t.i32(3, REP_OPTIONAL);
            t.binary(4, e.name.as_bytes());
            t.i32(5, 1);
            t.i32(6, CONVERTED_LIST);
            t.begin(10); // LogicalType
            t.begin(3); // LIST
            t.end();
            t.end();
            t.end();
            t.begin_elem();
            t.i32(3, REP_REPEATED);
            t.binary(4, b"list");
            t.i32(5, 1);
            t.end();
            schema_leaf(&mut t, e.ty.prim, "element");
        } else {
            schema_leaf(&mut t, e.ty.prim, &e.name);
        }
    }
    t.i64(3, rows as i64);
    t.list_header(4, CT_STRUCT, 1);
    t.begin_elem(); // RowGroup
    t.list_header(1, CT_STRUCT, encoded.len());
    for (e, (dict_offset, offset, size)) in encoded.iter().zip(&chunks) {
        t.begin_elem(); // ColumnChunk
        t.i64(2, 0); // file_offset (deprecated)
        t.begin(3); // ColumnMetaData
        t.i32(1, e.ty.prim.physical());
        let encodings: &[i32] = if e.dict.is_some() {
            &[ENC_PLAIN, ENC_RLE, ENC_RLE_DICTIONARY]
        } else {
            &[ENC_PLAIN, ENC_RLE]
        };
        t.list_header(2, CT_I32, encodings.len());
        for enc in encodings {
            t.zigzag(*enc as i64);
        }
        let path: Vec<&[u8]> = if e.ty.list {
            vec![e.name.as_bytes(), b"list", b"element"]
        } else {
            vec![e.name.as_bytes()]
        };
        t.list_header(3, CT_BINARY, path.len());
        for p in path {
            t.varint(p.len() as u64);
            t.buf.extend_from_slice(p);
        }
        t.i32(4, CODEC_UNCOMPRESSED);
        t.i64(5, e.num_values as i64);
        t.i64(6, *size as i64);
        t.i64(7, *size as i64);
        t.i64(9, *offset as i64);
        if let Some(d) = dict_offset {
            t.i64(11, *d as i64); // dictionary_page_offset
        }
        t.end();
        t.end();
    }
    t.i64(2, total as i64);
    t.i64(3, rows as i64);
    t.i64(5, MAGIC.len() as i64); // file_offset of the row group
    t.i64(6, total as i64);
    t.field(7, 4); // ordinal: i16
    t.zigzag(0);
    t.end();
    t.binary(6, created_by.as_bytes());
    t.buf.push(0); // end of FileMetaData

    out.extend_from_slice(&t.buf);
    out.extend_from_slice(&(t.buf.len() as u32).to_le_bytes());
    out.extend_from_slice(MAGIC);
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
