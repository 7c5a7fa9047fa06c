//! Arrays: PostgreSQL's `anyarray` values, their text and binary I/O and
//! their order.
//!
//! An array is a rectangular block of elements of one base type, with 0 to
//! [`ARRAY_DIMS_MAX`] dimensions, each with a length and a lower bound
//! (1 unless written otherwise). Elements are kept row-major in one vector:
//!
//! ```text
//!   '{{1,2,3},{4,5,6}}'::int[]      dims [(len 2, lower 1), (len 3, lower 1)]
//!                                   items [1, 2, 3, 4, 5, 6]
//!   '[0:1]={7,NULL}'::int[]         dims [(len 2, lower 0)]   items [7, NULL]
//!   '{}'::int[]                     dims []                   items []
//! ```
//!
//! The element type is the base type without its modifier
//! ([`DataType::array_of`]): `varchar(5)[]` is `varchar[]` here, and
//! element values are not cut to a modifier (left out).
//!
//! Order (PostgreSQL's `btarraycmp`): elements pairwise (a NULL element
//! sorts after any value), then the array with fewer elements first, then
//! fewer dimensions, then each dimension's length and lower bound. `=` is
//! that order's equality, so `'{1,2}' = '[0:1]={1,2}'` is false.
//!
//! Text form (`array_out`/`array_in`): braces per dimension, elements
//! separated by commas, an element double-quoted when it is empty, `NULL`
//! (any case), or holds a brace, comma, quote, backslash or white space; a
//! non-default lower bound prefixes the dimensions (`[0:1]=`). Binary form
//! (`array_send`/`array_recv`): ndim, has-nulls flag, element type OID,
//! (length, lower bound) per dimension, then each element as a length
//! (-1 for NULL) and its binary form.

use std::cmp::Ordering;
use std::fmt::Write;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::binary::parse_binary;
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::text::parse_text;
use crate::value::Value;

/// PostgreSQL's MAXDIM.
pub const ARRAY_DIMS_MAX: usize = 6;
/// Elements in one array (PostgreSQL's MaxArraySize, about 1 GB / 8).
pub const ARRAY_ITEMS_MAX: usize = 134_217_727;

/// One dimension: its length and lower bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim {
    pub len: i32,
    pub lower: i32,
}

/// An array value (see the module header).
#[derive(Clone, Debug)]
pub struct Array {
    pub elem: DataType,
    pub dims: Vec<Dim>,
    pub items: Vec<Value>,
    /// An `int2vector`/`oidvector` (the catalog's key and argument lists):
    /// one dimension from 0, printed space-separated (`1 2`).
    pub vector: bool,
}

fn limit_error(what: String) -> DbError {
    DbError::new(SqlState::ProgramLimitExceeded, what)
}

impl Array {
    /// A one-dimensional array with lower bound 1 (empty if no items).
    pub fn from_items(elem: DataType, items: Vec<Value>) -> Array {
        let dims = if items.is_empty() {
            Vec::new()
        } else {
            vec![Dim {
                len: items.len() as i32,
                lower: 1,
            }]
        };
        Array {
            elem,
            dims,
            items,
            vector: false,
        }
    }

    /// An `int2vector` (`elem` Int2) or `oidvector` (`elem` Oid).
    pub fn vector(elem: DataType, items: Vec<Value>) -> Array {
        debug_assert!(matches!(elem, DataType::Int2 | DataType::Oid));
        let dims = if items.is_empty() {
            Vec::new()
        } else {
            vec![Dim {
                len: items.len() as i32,
                lower: 0,
            }]
        };
        Array {
            elem,
            dims,
            items,
            vector: true,
        }
    }

    /// The type of this value: an array type, or int2vector/oidvector.
    pub fn data_type(&self) -> DataType {
        match (self.vector, self.elem) {
            (true, DataType::Int2) => DataType::Int2Vector,
            (true, _) => DataType::OidVector,
            _ => self.elem.array_of().unwrap_or(DataType::Unknown),
        }
    }

    /// An array of the given shape; checks the shape against the items and
    /// the limits.
    pub fn new(elem: DataType, dims: Vec<Dim>, items: Vec<Value>) -> Result<Array, DbError> {
        if dims.len() > ARRAY_DIMS_MAX {
            return Err(limit_error(format!(
                "number of array dimensions ({}) exceeds the maximum allowed ({ARRAY_DIMS_MAX})",
                dims.len()
            )));
        }
        let count = dims
            .iter()
            .try_fold(if dims.is_empty() { 0usize } else { 1 }, |n, d| {
                n.checked_mul(usize::try_from(d.len).ok()?)
            })
            .filter(|&n| n <= ARRAY_ITEMS_MAX)
            .ok_or_else(|| {
                limit_error(format!(
                    "array size exceeds the maximum allowed ({ARRAY_ITEMS_MAX})"
                ))
            })?;
        if dims
            .iter()
            .any(|d| d.lower.checked_add(d.len).is_none() || d.len == 0)
        {
            return Err(limit_error("array upper bound is too large".into()));
        }
        assert_eq!(count, items.len(), "array shape and items disagree");
        Ok(Array {
            elem,
            dims,
            items,
            vector: false,
        })
    }

    pub fn value(self) -> Value {
        Value::Array(Arc::new(self))
    }

    /// The arrays `items` stacked into one of a dimension more, as
    /// PostgreSQL's accumArrayResultArr does for `array_agg(anyarray)` and
    /// `ARRAY(subquery)` over arrays: every input non-NULL and non-empty,
    /// all of the same dimensions and lower bounds. No inputs: `{}`.
    pub fn stack(elem: DataType, inputs: Vec<Value>) -> Result<Array, DbError> {
        let subscript_error = |m: &str| DbError::new(SqlState::ArraySubscriptError, m);
        let n = inputs.len();
        let mut inner: Option<Vec<Dim>> = None;
        let mut items = Vec::new();
        for v in inputs {
            let a = match v {
                Value::Array(a) => a,
                _ => {
                    return Err(DbError::new(
                        SqlState::NullValueNotAllowed,
                        "cannot accumulate null arrays",
                    ))
                }
            };
            if a.dims.is_empty() {
                return Err(subscript_error("cannot accumulate empty arrays"));
            }
            match &inner {
                None => {
                    if a.dims.len() + 1 > ARRAY_DIMS_MAX {
                        return Err(limit_error(format!(
                            "number of array dimensions ({}) exceeds the maximum allowed ({ARRAY_DIMS_MAX})",
                            a.dims.len() + 1
                        )));
                    }
                    inner = Some(a.dims.clone());
                }
                Some(d) if *d == a.dims => {}
                Some(_) => {
                    return Err(subscript_error(
                        "cannot accumulate arrays of different dimensionality",
                    ))
                }
            }
            items.extend(a.items.iter().cloned());
        }
        let Some(inner) = inner else {
            return Ok(Array::from_items(elem, Vec::new()));
        };
        let mut dims = vec![Dim {
            len: n as i32,
            lower: 1,
        }];
        dims.extend(inner);
        Array::new(elem, dims, items)
    }

    pub fn ndims(&self) -> usize {
        self.dims.len()
    }

    /// The lower bound of dimension `d` (1-based), None if it has none.
    pub fn lower(&self, d: i64) -> Option<i32> {
        self.dim(d).map(|x| x.lower)
    }

    /// The upper bound of dimension `d` (1-based).
    pub fn upper(&self, d: i64) -> Option<i32> {
        self.dim(d).map(|x| x.lower + x.len - 1)
    }

    pub fn dim(&self, d: i64) -> Option<Dim> {
        let i = usize::try_from(d).ok()?.checked_sub(1)?;
        self.dims.get(i).copied()
    }

    /// The element at `subscripts` (one per dimension), None outside the
    /// array or with the wrong number of subscripts (SQL gives NULL).
    pub fn get(&self, subscripts: &[i64]) -> Option<&Value> {
        if subscripts.len() != self.dims.len() || self.dims.is_empty() {
            return None;
        }
        let mut at = 0usize;
        for (s, d) in subscripts.iter().zip(&self.dims) {
            let off = s.checked_sub(i64::from(d.lower))?;
            if off < 0 || off >= i64::from(d.len) {
                return None;
            }
            at = at * d.len as usize + off as usize;
        }
        self.items.get(at)
    }

    /// `array_dims`: `[1:3]`, `[0:1][1:2]`.
    pub fn dims_text(&self) -> String {
        let mut s = String::new();
        for d in &self.dims {
            let _ = write!(s, "[{}:{}]", d.lower, d.lower + d.len - 1);
        }
        s
    }

    /// `array_out` (`int2vectorout`/`oidvectorout` for vectors).
    pub fn to_text(&self, ctx: &EvalCtx) -> String {
        if self.vector {
            let parts: Vec<String> = self.items.iter().map(|v| v.to_text(ctx)).collect();
            return parts.join(" ");
        }
        let mut out = String::new();
        if self.dims.iter().any(|d| d.lower != 1) {
            out.push_str(&self.dims_text());
            out.push('=');
        }
        if self.dims.is_empty() {
            out.push_str("{}");
            return out;
        }
        let mut items = self.items.iter();
        self.write_dim(0, &mut items, &mut out, ctx);
        out
    }

    fn write_dim<'a>(
        &self,
        level: usize,
        items: &mut impl Iterator<Item = &'a Value>,
        out: &mut String,
        ctx: &EvalCtx,
    ) {
        out.push('{');
        let delim = delimiter(self.elem);
        for i in 0..self.dims[level].len {
            if i > 0 {
                out.push(char::from(delim));
            }
            if level + 1 < self.dims.len() {
                self.write_dim(level + 1, items, out, ctx);
                continue;
            }
            match items.next() {
                Some(Value::Null) | None => out.push_str("NULL"),
                Some(v) => push_element(&v.to_text(ctx), delim, out),
            }
        }
        out.push('}');
    }

    /// `array_send`.
    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.dims.len() as i32).to_be_bytes());
        let has_nulls = self.items.iter().any(Value::is_null);
        out.extend_from_slice(&(has_nulls as i32).to_be_bytes());
        out.extend_from_slice(&self.elem.oid().to_be_bytes());
        for d in &self.dims {
            out.extend_from_slice(&d.len.to_be_bytes());
            out.extend_from_slice(&d.lower.to_be_bytes());
        }
        for v in &self.items {
            if v.is_null() {
                out.extend_from_slice(&(-1i32).to_be_bytes());
            } else {
                let b = v.to_binary_as(self.elem);
                out.extend_from_slice(&(b.len() as i32).to_be_bytes());
                out.extend_from_slice(&b);
            }
        }
        out
    }

    /// `array_recv` for an array of `elem`.
    pub fn from_binary(elem: DataType, buf: &[u8]) -> Result<Array, DbError> {
        let bad = || {
            DbError::new(
                SqlState::InvalidBinaryRepresentation,
                "incorrect binary data format",
            )
        };
        let mut pos = 0usize;
        let int = |pos: &mut usize| -> Result<i32, DbError> {
            let b = buf.get(*pos..*pos + 4).ok_or_else(bad)?;
            *pos += 4;
            Ok(i32::from_be_bytes(b.try_into().map_err(|_| bad())?))
        };
        let ndim = int(&mut pos)?;
        let flags = int(&mut pos)?;
        let oid = int(&mut pos)? as u32;
        if !(0..=ARRAY_DIMS_MAX as i32).contains(&ndim) {
            return Err(DbError::new(
                SqlState::InvalidBinaryRepresentation,
                format!("invalid number of dimensions: {ndim}"),
            ));
        }
        if flags != 0 && flags != 1 {
            return Err(DbError::new(
                SqlState::InvalidBinaryRepresentation,
                "invalid array flags",
            ));
        }
        if oid != elem.oid() {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "binary data has array element type {oid} ({}) instead of expected {} ({})",
                    DataType::from_oid(oid).map_or("???", element_type_name),
                    elem.oid(),
                    element_type_name(elem)
                ),
            ));
        }
        let mut dims = Vec::with_capacity(ndim as usize);
        for _ in 0..ndim {
            let len = int(&mut pos)?;
            let lower = int(&mut pos)?;
            if len < 0 {
                return Err(bad());
            }
            dims.push(Dim { len, lower });
        }
        if dims.iter().any(|d| d.len == 0) {
            dims.clear();
        }
        let count = dims
            .iter()
            .try_fold(if dims.is_empty() { 0usize } else { 1 }, |n, d| {
                n.checked_mul(d.len as usize)
            })
            .filter(|&n| n <= ARRAY_ITEMS_MAX && n <= buf.len())
            .ok_or_else(bad)?;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            let len = int(&mut pos)?;
            if len == -1 {
                items.push(Value::Null);
                continue;
            }
            let len = usize::try_from(len).map_err(|_| bad())?;
            let b = buf.get(pos..pos + len).ok_or_else(bad)?;
            pos += len;
            items.push(parse_binary(elem, b)?);
        }
        if pos != buf.len() {
            return Err(bad());
        }
        Array::new(elem, dims, items)
    }

    /// `int2vectorrecv`/`oidvectorrecv`: the array form, one dimension
    /// from 0 without NULLs.
    pub fn vector_from_binary(elem: DataType, buf: &[u8]) -> Result<Array, DbError> {
        let a = Array::from_binary(elem, buf)?;
        if a.ndims() > 1
            || a.dims.first().is_some_and(|d| d.lower != 0)
            || a.items.iter().any(Value::is_null)
        {
            return Err(DbError::new(
                SqlState::InvalidBinaryRepresentation,
                "invalid int2vector data",
            ));
        }
        Ok(Array::vector(elem, a.items))
    }
}

/// pg_type.typdelim: `;` for box (whose text holds commas), `,` else.
pub fn delimiter(elem: DataType) -> u8 {
    if elem == DataType::Geo(crate::geometry::GeoKind::Box) {
        b';'
    } else {
        b','
    }
}

/// One element of `array_out`, quoted when it needs to be.
fn push_element(s: &str, delim: u8, out: &mut String) {
    let quote = s.is_empty()
        || s.eq_ignore_ascii_case("NULL")
        || s.bytes().any(|b| {
            b == delim
                || matches!(
                    b,
                    b'{' | b'}' | b'"' | b'\\' | b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C
                )
        });
    if !quote {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

fn malformed(input: &str, detail: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("malformed array literal: \"{input}\""),
    )
    .with_detail(detail)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

/// A parsed but not yet typed element: its text, or NULL.
enum Raw {
    Null,
    Text(String),
}

/// `int2vectorin`/`oidvectorin`: numbers separated by spaces.
pub fn parse_vector(elem: DataType, input: &str, ctx: &EvalCtx) -> Result<Array, DbError> {
    let mut items = Vec::new();
    for part in input.split_ascii_whitespace() {
        items.push(parse_text(elem, part, ctx)?);
    }
    if items.len() > ARRAY_ITEMS_MAX {
        return Err(limit_error("oidvector has too many elements".into()));
    }
    Ok(Array::vector(elem, items))
}

/// `array_in`: the text form of an array of `elem`.
pub fn parse_array(elem: DataType, input: &str, ctx: &EvalCtx) -> Result<Array, DbError> {
    let b = input.as_bytes();
    let mut pos = 0;
    while pos < b.len() && is_space(b[pos]) {
        pos += 1;
    }
    // Optional explicit dimensions: [lo:hi][lo:hi]=
    let mut given: Vec<Dim> = Vec::new();
    while pos < b.len() && b[pos] == b'[' {
        let close = input[pos..]
            .find(']')
            .map(|i| pos + i)
            .ok_or_else(|| malformed(input, "Missing \"]\" after array dimensions."))?;
        let inner = &input[pos + 1..close];
        let (lo, hi) = match inner.split_once(':') {
            Some((lo, hi)) => (lo.trim(), hi.trim()),
            None => ("1", inner.trim()),
        };
        let (Ok(lo), Ok(hi)) = (lo.parse::<i32>(), hi.parse::<i32>()) else {
            return Err(malformed(
                input,
                "\"[\" must introduce explicitly-specified array dimensions.",
            ));
        };
        if hi < lo {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "upper bound cannot be less than lower bound",
            ));
        }
        given.push(Dim {
            len: hi - lo + 1,
            lower: lo,
        });
        if given.len() > ARRAY_DIMS_MAX {
            return Err(limit_error(format!(
                "number of array dimensions ({}) exceeds the maximum allowed ({ARRAY_DIMS_MAX})",
                given.len()
            )));
        }
        pos = close + 1;
    }
    if !given.is_empty() {
        while pos < b.len() && is_space(b[pos]) {
            pos += 1;
        }
        if b.get(pos) != Some(&b'=') {
            return Err(malformed(input, "Missing \"=\" after array dimensions."));
        }
        pos += 1;
        while pos < b.len() && is_space(b[pos]) {
            pos += 1;
        }
    }
    if b.get(pos) != Some(&b'{') {
        return Err(malformed(
            input,
            "Array value must start with \"{\" or dimension information.",
        ));
    }
    let mut p = Parser {
        input,
        b,
        delim: delimiter(elem),
        pos,
        lens: [None; ARRAY_DIMS_MAX],
        ndim: None,
        items: Vec::new(),
    };
    p.parse_level(0)?;
    while p.pos < b.len() && is_space(b[p.pos]) {
        p.pos += 1;
    }
    if p.pos < b.len() {
        return Err(malformed(input, "Junk after closing right brace."));
    }
    let Parser {
        lens, ndim, items, ..
    } = p;
    let lens: Vec<i32> = lens[..ndim.unwrap_or(0)]
        .iter()
        .map(|l| l.unwrap_or(0))
        .collect();
    let mut values = Vec::with_capacity(items.len());
    for raw in items {
        values.push(match raw {
            Raw::Null => Value::Null,
            Raw::Text(s) => parse_text(elem, &s, ctx)?,
        });
    }
    if values.is_empty() {
        if !given.is_empty() && given.iter().any(|d| d.len != 0) {
            return Err(malformed(
                input,
                "Specified array dimensions do not match array contents.",
            ));
        }
        return Ok(Array::from_items(elem, values));
    }
    let dims: Vec<Dim> = if given.is_empty() {
        lens.iter().map(|&len| Dim { len, lower: 1 }).collect()
    } else {
        if given.len() != lens.len() || given.iter().zip(&lens).any(|(g, &l)| g.len != l) {
            return Err(malformed(
                input,
                "Specified array dimensions do not match array contents.",
            ));
        }
        given
    };
    Array::new(elem, dims, values)
}

struct Parser<'a> {
    input: &'a str,
    b: &'a [u8],
    /// pg_type.typdelim of the element type.
    delim: u8,
    pos: usize,
    /// The length of each level, fixed by the first sub-array met.
    lens: [Option<i32>; ARRAY_DIMS_MAX],
    /// The number of dimensions, fixed by the first level of elements.
    ndim: Option<usize>,
    items: Vec<Raw>,
}

impl Parser<'_> {
    fn err(&self, detail: &str) -> DbError {
        malformed(self.input, detail)
    }

    fn skip_space(&mut self) {
        while self.pos < self.b.len() && is_space(self.b[self.pos]) {
            self.pos += 1;
        }
    }

    /// Parses `{...}` at `level` (the opening brace is at `pos`).
    fn parse_level(&mut self, level: usize) -> Result<(), DbError> {
        if level >= ARRAY_DIMS_MAX {
            return Err(limit_error(format!(
                "number of array dimensions ({}) exceeds the maximum allowed ({ARRAY_DIMS_MAX})",
                level + 1
            )));
        }
        self.pos += 1; // '{'
        self.skip_space();
        let mut count: i32 = 0;
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            if level == 0 {
                return Ok(());
            }
            // An empty sub-array (PostgreSQL's ArrayCount).
            return Err(self.err("Unexpected \"}\" character."));
        }
        // Whether this level holds sub-arrays is decided by its first entry.
        let nested = self.b.get(self.pos) == Some(&b'{');
        loop {
            self.skip_space();
            match self.b.get(self.pos) {
                None => return Err(self.err("Unexpected end of input.")),
                Some(b'{') if nested => self.parse_level(level + 1)?,
                Some(b'{') => return Err(self.err("Unexpected \"{\" character.")),
                Some(&c) if nested => return Err(self.unexpected(c)),
                Some(_) => {
                    let raw = self.element()?;
                    if self.items.len() >= ARRAY_ITEMS_MAX {
                        return Err(limit_error(format!(
                            "array size exceeds the maximum allowed ({ARRAY_ITEMS_MAX})"
                        )));
                    }
                    self.items.push(raw);
                }
            }
            count += 1;
            self.skip_space();
            match self.b.get(self.pos) {
                Some(&c) if c == self.delim => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.err("Unexpected end of input.")),
                Some(&c) => return Err(self.unexpected(c)),
            }
        }
        let mismatch = "Multidimensional arrays must have sub-arrays with matching dimensions.";
        if !nested {
            match self.ndim {
                None => self.ndim = Some(level + 1),
                Some(n) if n != level + 1 => return Err(self.err(mismatch)),
                Some(_) => {}
            }
        } else if self.ndim.is_some_and(|n| n <= level + 1) {
            return Err(self.err(mismatch));
        }
        match self.lens[level] {
            None => self.lens[level] = Some(count),
            Some(l) if l == count => {}
            Some(_) => return Err(self.err(mismatch)),
        }
        Ok(())
    }

    /// A character where neither an element nor a delimiter may be:
    /// PostgreSQL names a syntax character, else "Unexpected array
    /// element.".
    fn unexpected(&self, c: u8) -> DbError {
        match c {
            b'{' | b'}' | b'"' | b'\\' => {
                self.err(&format!("Unexpected \"{}\" character.", c as char))
            }
            _ => self.err("Unexpected array element."),
        }
    }

    /// One element: quoted or not, backslash escapes; unquoted `NULL` is
    /// a null. An element is either quoted or not: text before or after
    /// the quotes (but white space) is PostgreSQL's "Unexpected array
    /// element." (`{a"b"}`, `{"1 2" x}`).
    fn element(&mut self) -> Result<Raw, DbError> {
        let mut s = String::new();
        let mut quoted_any = false;
        let mut unquoted_any = false;
        let mut trailing_space = 0usize;
        loop {
            let Some(&c) = self.b.get(self.pos) else {
                return Err(self.err("Unexpected end of input."));
            };
            if quoted_any && !is_space(c) && c != self.delim && c != b'}' {
                return Err(self.unexpected(c));
            }
            match c {
                b'"' if unquoted_any => return Err(self.err("Unexpected array element.")),
                b'"' => {
                    quoted_any = true;
                    self.pos += 1;
                    loop {
                        match self.b.get(self.pos) {
                            None => return Err(self.err("Unexpected end of input.")),
                            Some(b'"') => {
                                self.pos += 1;
                                break;
                            }
                            Some(b'\\') => {
                                self.pos += 1;
                                self.push_char(&mut s)?;
                            }
                            Some(_) => self.push_char(&mut s)?,
                        }
                    }
                    trailing_space = 0;
                }
                b'\\' => {
                    self.pos += 1;
                    self.push_char(&mut s)?;
                    trailing_space = 0;
                    unquoted_any = true;
                }
                c if c == self.delim || c == b'}' => break,
                b'{' => return Err(self.err("Unexpected \"{\" character.")),
                c if is_space(c) => {
                    s.push(c as char);
                    trailing_space += 1;
                    self.pos += 1;
                }
                _ => {
                    self.push_char(&mut s)?;
                    trailing_space = 0;
                    unquoted_any = true;
                }
            }
        }
        s.truncate(s.len() - trailing_space);
        if !quoted_any && s.eq_ignore_ascii_case("NULL") {
            return Ok(Raw::Null);
        }
        Ok(Raw::Text(s))
    }

    /// Copies the (UTF-8) character at `pos`.
    fn push_char(&mut self, s: &mut String) -> Result<(), DbError> {
        let rest = &self.input[self.pos..];
        let c = rest
            .chars()
            .next()
            .ok_or_else(|| self.err("Unexpected end of input."))?;
        s.push(c);
        self.pos += c.len_utf8();
        Ok(())
    }
}

impl Ord for Array {
    fn cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.items.iter().zip(&other.items) {
            match a.cmp(b) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        self.items
            .len()
            .cmp(&other.items.len())
            .then(self.dims.len().cmp(&other.dims.len()))
            .then_with(|| {
                for (a, b) in self.dims.iter().zip(&other.dims) {
                    let o = a.len.cmp(&b.len).then(a.lower.cmp(&b.lower));
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                Ordering::Equal
            })
    }
}

impl PartialOrd for Array {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Array {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Array {}

impl Hash for Array {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dims.hash(state);
        self.items.hash(state);
    }
}

/// format_type_be's name of an element type given by OID alone (no
/// typmod: `bpchar` is "character").
fn element_type_name(t: DataType) -> &'static str {
    match t {
        DataType::Char(_) => "character",
        t => t.name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::TimeZone;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn round(elem: DataType, s: &str) -> String {
        parse_array(elem, s, &ctx()).unwrap().to_text(&ctx())
    }

    #[test]
    fn text_round_trips_as_postgresql_prints() {
        assert_eq!(round(DataType::Int4, "{1,2,3}"), "{1,2,3}");
        assert_eq!(round(DataType::Int4, " { 1 , NULL,3 } "), "{1,NULL,3}");
        assert_eq!(round(DataType::Int4, "{{1,2},{3,4}}"), "{{1,2},{3,4}}");
        assert_eq!(round(DataType::Int4, "[0:1]={7,8}"), "[0:1]={7,8}");
        assert_eq!(round(DataType::Int4, "{}"), "{}");
        assert_eq!(
            round(
                DataType::Text,
                r#"{"a b","",null,"NULL","x\"y",c\,d,{}x}"#.replace("{}x", "e").as_str()
            ),
            r#"{"a b","",NULL,"NULL","x\"y","c,d",e}"#
        );
        assert_eq!(round(DataType::Text, "{ab  c  }"), r#"{"ab  c"}"#);
    }

    #[test]
    fn malformed_literals_are_22p02_with_postgresql_details() {
        let e = |s: &str| parse_array(DataType::Int4, s, &ctx()).unwrap_err();
        for (s, detail) in [
            (
                "1,2",
                "Array value must start with \"{\" or dimension information.",
            ),
            ("{1,2", "Unexpected end of input."),
            (
                "{{1,2},{3}}",
                "Multidimensional arrays must have sub-arrays with matching dimensions.",
            ),
            ("{{1,2},3}", "Unexpected array element."),
            ("{{},{}}", "Unexpected \"}\" character."),
            ("{\"1\" 2}", "Unexpected array element."),
            ("{1,2} x", "Junk after closing right brace."),
            (
                "[1:3]={1,2}",
                "Specified array dimensions do not match array contents.",
            ),
        ] {
            let err = e(s);
            assert_eq!(err.code, SqlState::InvalidTextRepresentation, "{s}");
            assert_eq!(err.detail.as_deref(), Some(detail), "{s}");
        }
        assert_eq!(
            e("{a}").message,
            "invalid input syntax for type integer: \"a\""
        );
        assert_eq!(e("{{{{{{{1}}}}}}}").code, SqlState::ProgramLimitExceeded);
    }

    #[test]
    fn binary_round_trips_and_order_is_btarraycmp() {
        let a = parse_array(DataType::Int4, "{{1,NULL},{3,4}}", &ctx()).unwrap();
        let b = Array::from_binary(DataType::Int4, &a.to_binary()).unwrap();
        assert_eq!(a, b);
        assert_eq!(b.dims, a.dims);
        assert!(Array::from_binary(DataType::Int8, &a.to_binary()).is_err());
        let p = |s| parse_array(DataType::Int4, s, &ctx()).unwrap();
        assert!(p("{1,2}") < p("{1,2,0}"));
        assert!(p("{1,3}") > p("{1,2,9}"));
        assert!(p("{1,NULL}") > p("{1,2}"));
        assert!(p("{1,2}") != p("[0:1]={1,2}"));
        assert_eq!(p("{{1,2},{3,4}}").get(&[2, 1]), Some(&Value::Int4(3)));
        assert_eq!(p("{1,2}").get(&[3]), None);
    }
}
