//! Byte forms of rows and index keys: what the in-memory tables hold.
//!
//! A table keeps every row version as one byte buffer, and every index
//! keeps its entries as byte strings whose byte order is the key order.
//! Both replace structures of `Value`s (24 bytes each, plus a shared
//! allocation per string): a `pgbench_accounts` row went from ~410 bytes
//! to ~190 (docs/performance.md has the accounting).
//!
//! # Rows
//!
//! A row is its values one after another, each a tag byte and a payload;
//! the number of values is wherever the buffer ends. No schema is needed
//! to read it back, so ALTER TABLE never rewrites stored rows.
//!
//! ```text
//!  tag payload                         tag payload
//!  0   NULL                            9   text:  len:varint bytes
//!  1   false   2 true                  10  bytea: len:varint bytes
//!  3/4/5 int2/int4/int8: zigzag varint 11  date: zigzag varint
//!  6   float4: 4 bytes LE              12/13 timestamp(tz): 8 bytes LE
//!  7   float8: 8 bytes LE              14  uuid: 16 bytes
//!  8   numeric: len:varint bytes       15  jsonb: len:varint text
//!      (Numeric::encode_storage)       16  interval: zigzag months, days, µs
//!  17  array: len:varint, then its binary (array_send) form
//!  18  record: len:varint, then its fields as a row
//!  19  time: zigzag varint (µs since midnight)
//!  20  enum: varint label OID (pg_enum.oid)
//!  21  enum array: len:varint, then the enum type's OID (u32 LE) and the
//!      binary form of the same array with each label as its OID (int8):
//!      labels can be renamed, their OIDs stay
//!  22  geometric: len:varint, then the type's OID (u16 LE) and its
//!      binary (send) form
//!  23  record array: len:varint, then the element type's OID (u32 LE, 0
//!      for an anonymous record), the number of dimensions and each
//!      (length, lower bound) as zigzag varints, then the elements as a
//!      row: a record's binary form names its fields' types by OID, which
//!      a reader may not know yet (a checkpoint's rows are checked before
//!      its composite types are installed), so its stored form keeps each
//!      field's own tag instead
//!  24  pg_lsn: 8 bytes LE
//!  30  range: len:varint, then the type's OID (u16 LE) and its binary
//!      (range_send) form
//!  25  timetz: zigzag varints (µs since midnight, zone in seconds west)
//!  26  money: zigzag varint (cents)
//!  27  bit / varbit: len:varint, then its binary (send) form: the length
//!      in bits (i32 BE) and the bytes
//!  28  tsvector: len:varint, then its binary (tsvectorsend) form
//!  29  tsquery: len:varint, then its binary (tsquerysend) form
//!
//!  (1, 'abc', NULL)  =>  04 02 | 09 03 61 62 63 | 00        (7 bytes)
//! ```
//!
//! Varints are LEB128 (7 bits a byte, low first); zigzag maps 0, -1, 1, -2
//! to 0, 1, 2, 3 so small negative numbers stay short.
//!
//! Readers decode a row three ways: whole (`decode_row`), into a new
//! `Vec` with only the columns a query reads (`decode_row_only`), or in
//! place into a scan's reused row buffer (`decode_in_place`: only the read
//! columns' slots are written, the others keep what the scan set once).
//! Columns not read are stepped over by their length without building a
//! value; integers and one-byte varints are read without the checked
//! framing that bytes from outside go through (`check_row`).
//!
//! # Index keys
//!
//! A key is the key columns' values in a *sortable* form, then the row id:
//! comparing two keys byte by byte (memcmp) gives `Value`'s storage order
//! (NULLs last, integers of any width by value, floats with NaN above
//! everything and -0 = 0, numerics by value, intervals by their span), and
//! values that are equal in that order get equal bytes. Each value's form
//! is prefix-free, so "all keys whose first k columns are these values"
//! is a byte-prefix range.
//!
//! ```text
//!  value   class byte  then
//!  bool    01          00 | 01
//!  ints    02          ordered varint: header 0x81+n, n bytes big-endian
//!                      (n = 0..8); negatives 0x80-n, complemented bytes
//!  floats  03          8 bytes: f64 bits, sign flipped / complemented
//!  numeric 04          Numeric::encode_sort_key
//!  text    05          bytes with 00 escaped as 00 FF, ended by 00 01
//!  bytea   06          (as text)
//!  date    07, timestamp 08, timestamptz 09: ordered varint
//!  uuid    0A          16 bytes
//!  jsonb   0B          nestor_types::jsonb_order::sort_key, as text
//!                      (jsonb's btree order: '1.0' = '1')
//!  interval 0C         span in µs (i128), sign flipped, big-endian
//!  time    0F          ordered varint
//!  enum    10          the label's rank (nestor_types::enums), as text
//!  geometric 11       type OID (u16 BE), a path's closed flag, then per
//!                      coordinate 01 + its float key, then 00
//!  pg_lsn  12          8 bytes big-endian
//!  timetz  13          ordered varints: the UTC time (µs), the zone
//!  money   14          ordered varint
//!  range   1E          type OID (u16 BE); 00 if empty, else 01, the
//!                      lower bound (00 infinite, or 01, its key, 00 if
//!                      inclusive / 01 if not), the upper bound (01, its
//!                      key, 00 if exclusive / 01 if inclusive, or 02
//!                      infinite): range_cmp's order
//!  bit strings 15      the bytes (as text), then the length in bits as
//!                      an ordered varint (bit_cmp's order)
//!  tsvector 16         tsvector_cmp's fields in its order: PostgreSQL's
//!                      size and the lexeme count (u64 BE), then per
//!                      lexeme 00 if it has positions (01 if not), the
//!                      lexeme (as text), the complemented position count
//!                      and each position and weight complemented (u16 BE)
//!  tsquery 17          tsquery_cmp's: item count, operand bytes (u64 BE),
//!                      then the nodes in its comparison order: an
//!                      operator 00, its complemented code, its operands
//!                      (right first), a phrase's complemented distance;
//!                      an operand 01, its complemented signed CRC (sign
//!                      flipped, u32 BE), its
//!                      word (as text)
//!  array   0D          per element 01 + its key; then 00, the number of
//!                      dimensions and each (length, lower bound) as
//!                      ordered varints (btarraycmp's order)
//!  NULL    FE
//!
//!  A column declared DESC or NULLS FIRST changes its form
//!  ([`put_key_ordered`]): DESC complements every byte of the value's
//!  form (NULLS FIRST then comes free: FE becomes 01); NULLS FIRST
//!  ascending writes NULL as 00, NULLS LAST descending as FF.
//!  row id  n:u8, n bytes big-endian, n:u8  (n = 0..8; the trailing copy
//!          lets a reader find the row id from the end)
//!
//!  (42, row 7)  =>  02 81 2A | 01 07 01
//! ```
//!
//! Keys of up to [`KEY_INLINE_BYTES_MAX`] bytes are held inline in the
//! B-tree node (16 bytes an entry); longer ones in their own allocation.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::sync::Arc;

use nestor_common::memory::{self, Category};
use nestor_common::RowId;
use nestor_types::array::Array;
use nestor_types::datetime::Interval;
use nestor_types::geometry::{GeoKind, Geometry};
use nestor_types::range::{Range, RangeKind};
use nestor_types::{DataType, Numeric, Row, Value};

// ----- rows -------------------------------------------------------------

const T_NULL: u8 = 0;
const T_FALSE: u8 = 1;
const T_TRUE: u8 = 2;
const T_INT2: u8 = 3;
const T_INT4: u8 = 4;
const T_INT8: u8 = 5;
const T_FLOAT4: u8 = 6;
const T_FLOAT8: u8 = 7;
const T_NUMERIC: u8 = 8;
const T_TEXT: u8 = 9;
const T_BYTEA: u8 = 10;
const T_DATE: u8 = 11;
const T_TIMESTAMP: u8 = 12;
const T_TIMESTAMPTZ: u8 = 13;
const T_UUID: u8 = 14;
const T_JSONB: u8 = 15;
const T_INTERVAL: u8 = 16;
const T_ARRAY: u8 = 17;
/// A record: its fields as a nested row (length-prefixed).
const T_RECORD: u8 = 18;
const T_TIME: u8 = 19;
const T_ENUM: u8 = 20;
const T_ENUM_ARRAY: u8 = 21;
const T_GEO: u8 = 22;
const T_RECORD_ARRAY: u8 = 23;
const T_PG_LSN: u8 = 24;
const T_TIMETZ: u8 = 25;
const T_MONEY: u8 = 26;
const T_RANGE: u8 = 30;
const T_BITS: u8 = 27;
const T_TSVECTOR: u8 = 28;
const T_TSQUERY: u8 = 29;

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

fn varint_len(mut u: u64) -> usize {
    let mut n = 1;
    while u >= 0x80 {
        u >>= 7;
        n += 1;
    }
    n
}

fn put_varint(mut u: u64, out: &mut Vec<u8>) {
    while u >= 0x80 {
        out.push((u as u8) | 0x80);
        u >>= 7;
    }
    out.push(u as u8);
}

fn malformed(pos: usize, why: &str) -> String {
    format!("stored row: {why} at byte {pos}")
}

/// A LEB128 varint at `buf[*pos..]`; advances `pos`.
fn get_varint(buf: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut u = 0u64;
    for i in 0..10 {
        let b = *buf
            .get(*pos)
            .ok_or_else(|| malformed(*pos, "truncated varint"))?;
        *pos += 1;
        u |= ((b & 0x7F) as u64) << (7 * i);
        if b < 0x80 {
            return Ok(u);
        }
    }
    Err(malformed(*pos, "varint too long"))
}

/// Bytes `value` takes in a stored row.
fn stored_len(v: &Value) -> usize {
    let bytes = |n: usize| varint_len(n as u64) + n;
    1 + match v {
        Value::Null | Value::Bool(_) => 0,
        Value::Int2(i) => varint_len(zigzag(*i as i64)),
        Value::Int4(i) => varint_len(zigzag(*i as i64)),
        Value::Int8(i) => varint_len(zigzag(*i)),
        Value::Float4(_) => 4,
        Value::Float8(_) | Value::Timestamp(_) | Value::TimestampTz(_) => 8,
        Value::Numeric(n) => bytes(n.storage_len()),
        Value::Text(s) | Value::Jsonb(s) => bytes(s.len()),
        Value::Bytea(b) => bytes(b.len()),
        Value::Date(d) => varint_len(zigzag(*d as i64)),
        Value::Time(t) | Value::Money(t) => varint_len(zigzag(*t)),
        Value::TimeTz(t, z) => varint_len(zigzag(*t)) + varint_len(zigzag(*z as i64)),
        Value::Enum(l) => varint_len(u64::from(*l)),
        Value::Uuid(_) => 16,
        Value::PgLsn(_) => 8,
        Value::Interval(i) => {
            varint_len(zigzag(i.months as i64))
                + varint_len(zigzag(i.days as i64))
                + varint_len(zigzag(i.micros))
        }
        Value::Array(a) => bytes(array_form(a).1.len()),
        Value::Record(f) => bytes(f.iter().map(stored_len).sum()),
        Value::Geo(g) => bytes(geo_form(g).len()),
        Value::Range(r) => bytes(range_form(r).len()),
        Value::Bits(b) => bytes(4 + b.bytes().len()),
        Value::TsVector(v) => bytes(v.to_binary().len()),
        Value::TsQuery(q) => bytes(q.to_binary().len()),
    }
}

fn put_value(v: &Value, out: &mut Vec<u8>) {
    let with_len = |tag: u8, b: &[u8], out: &mut Vec<u8>| {
        out.push(tag);
        put_varint(b.len() as u64, out);
        out.extend_from_slice(b);
    };
    match v {
        Value::Null => out.push(T_NULL),
        Value::Bool(false) => out.push(T_FALSE),
        Value::Bool(true) => out.push(T_TRUE),
        Value::Int2(i) => {
            out.push(T_INT2);
            put_varint(zigzag(*i as i64), out);
        }
        Value::Int4(i) => {
            out.push(T_INT4);
            put_varint(zigzag(*i as i64), out);
        }
        Value::Int8(i) => {
            out.push(T_INT8);
            put_varint(zigzag(*i), out);
        }
        Value::Float4(f) => {
            out.push(T_FLOAT4);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::Float8(f) => {
            out.push(T_FLOAT8);
            out.extend_from_slice(&f.to_le_bytes());
        }
        Value::Numeric(n) => {
            out.push(T_NUMERIC);
            put_varint(n.storage_len() as u64, out);
            n.encode_storage(out);
        }
        Value::Text(s) => with_len(T_TEXT, s.as_bytes(), out),
        Value::Bytea(b) => with_len(T_BYTEA, b, out),
        Value::Bits(b) => with_len(T_BITS, &nestor_types::bits::to_binary(b), out),
        Value::TsVector(v) => with_len(T_TSVECTOR, &v.to_binary(), out),
        Value::TsQuery(q) => with_len(T_TSQUERY, &q.to_binary(), out),
        Value::Date(d) => {
            out.push(T_DATE);
            put_varint(zigzag(*d as i64), out);
        }
        Value::Time(t) => {
            out.push(T_TIME);
            put_varint(zigzag(*t), out);
        }
        Value::TimeTz(t, z) => {
            out.push(T_TIMETZ);
            put_varint(zigzag(*t), out);
            put_varint(zigzag(*z as i64), out);
        }
        Value::Money(c) => {
            out.push(T_MONEY);
            put_varint(zigzag(*c), out);
        }
        Value::Enum(l) => {
            out.push(T_ENUM);
            put_varint(u64::from(*l), out);
        }
        Value::Timestamp(t) => {
            out.push(T_TIMESTAMP);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::TimestampTz(t) => {
            out.push(T_TIMESTAMPTZ);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::Uuid(u) => {
            out.push(T_UUID);
            out.extend_from_slice(u);
        }
        Value::PgLsn(l) => {
            out.push(T_PG_LSN);
            out.extend_from_slice(&l.to_le_bytes());
        }
        Value::Jsonb(s) => with_len(T_JSONB, s.as_bytes(), out),
        Value::Interval(i) => {
            out.push(T_INTERVAL);
            put_varint(zigzag(i.months as i64), out);
            put_varint(zigzag(i.days as i64), out);
            put_varint(zigzag(i.micros), out);
        }
        Value::Array(a) => {
            let (tag, form) = array_form(a);
            with_len(tag, &form, out)
        }
        Value::Record(f) => with_len(T_RECORD, &encode_row(f), out),
        Value::Geo(g) => with_len(T_GEO, &geo_form(g), out),
        Value::Range(r) => with_len(T_RANGE, &range_form(r), out),
    }
}

/// A range's stored payload: its type's OID, then its binary form.
fn range_form(r: &Range) -> Vec<u8> {
    let mut out = (r.kind.oid() as u16).to_le_bytes().to_vec();
    out.extend(r.to_binary());
    out
}

/// A range from its stored form ([`range_form`]).
fn range_of(p: &[u8]) -> Result<Value, String> {
    let oid = p
        .get(..2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or("stored row: truncated range")?;
    let kind = RangeKind::from_oid(u32::from(oid)).ok_or("stored row: unknown range type")?;
    nestor_types::range::parse_binary(kind, &p[2..])
        .map(Range::value)
        .map_err(|e| format!("stored row: {}", e.message))
}

/// A geometric value's stored payload: its type's OID, then its binary
/// form.
fn geo_form(g: &Geometry) -> Vec<u8> {
    let mut out = (g.kind().oid() as u16).to_le_bytes().to_vec();
    out.extend(g.to_binary());
    out
}

/// A geometric value from its stored form ([`geo_form`]).
fn geo_of(p: &[u8]) -> Result<Value, String> {
    let oid = p
        .get(..2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .ok_or("stored row: truncated geometric value")?;
    let kind = GeoKind::from_oid(u32::from(oid)).ok_or("stored row: unknown geometric type")?;
    nestor_types::geometry::decode_stored(kind, &p[2..])
        .map(Geometry::value)
        .map_err(|e| format!("stored row: {}", e.message))
}

/// An array's tag and stored payload: its binary form, for an enum array
/// the type's OID and the array of its label OIDs, for a record array its
/// shape and elements (see the module header).
fn array_form(a: &Array) -> (u8, Vec<u8>) {
    let ty = match a.elem {
        DataType::Enum(ty) => ty,
        DataType::Record(rt) => return (T_RECORD_ARRAY, record_array_form(a, rt.oid)),
        _ => return (T_ARRAY, a.to_binary()),
    };
    let items = a
        .items
        .iter()
        .map(|v| match v {
            Value::Enum(l) => Value::Int8(i64::from(*l)),
            _ => Value::Null,
        })
        .collect();
    let oids = Array {
        elem: DataType::Int8,
        dims: a.dims.clone(),
        items,
        vector: false,
    };
    let mut out = ty.to_le_bytes().to_vec();
    out.extend(oids.to_binary());
    (T_ENUM_ARRAY, out)
}

/// A record array's stored payload (see the module header).
fn record_array_form(a: &Array, oid: u32) -> Vec<u8> {
    let mut out = oid.to_le_bytes().to_vec();
    put_varint(a.dims.len() as u64, &mut out);
    for d in &a.dims {
        put_varint(zigzag(i64::from(d.len)), &mut out);
        put_varint(zigzag(i64::from(d.lower)), &mut out);
    }
    out.extend_from_slice(&encode_row(&a.items));
    out
}

/// A record array from its stored form ([`record_array_form`]), checked
/// as bytes from outside are. Its element type is the composite type of
/// that OID when it is known, else an anonymous record (the values are
/// the same; only the type's name differs).
fn record_array_of(p: &[u8]) -> Result<Value, String> {
    let oid = p
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or("record array: truncated header")?;
    let mut pos = 4;
    let ndim = get_varint(p, &mut pos)?;
    if ndim > nestor_types::array::ARRAY_DIMS_MAX as u64 {
        return Err(malformed(pos, "record array: too many dimensions"));
    }
    let mut dims = Vec::with_capacity(ndim as usize);
    for _ in 0..ndim {
        let len = i32::try_from(unzigzag(get_varint(p, &mut pos)?));
        let lower = i32::try_from(unzigzag(get_varint(p, &mut pos)?));
        let (Ok(len), Ok(lower)) = (len, lower) else {
            return Err(malformed(pos, "record array: dimension out of range"));
        };
        dims.push(nestor_types::array::Dim { len, lower });
    }
    let items = &p[pos..];
    let count = check_row(items)?;
    let expected = dims.iter().try_fold(usize::from(!dims.is_empty()), |n, d| {
        n.checked_mul(usize::try_from(d.len).ok()?)
    });
    if expected != Some(count) {
        return Err(malformed(pos, "record array: shape and elements disagree"));
    }
    let elem = match nestor_types::composites::lookup(oid) {
        Some(c) if oid != 0 => c.data_type(),
        _ => DataType::Record(nestor_types::datatype::record_type(Vec::new())),
    };
    Array::new(elem, dims, decode_row(items).to_vec())
        .map(Array::value)
        .map_err(|e| format!("record array: {}", e.message))
}

/// An enum array from its stored form ([`array_form`]).
fn enum_array_of(p: &[u8]) -> Result<Value, String> {
    let ty = p
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or("enum array: truncated header")?;
    let mut a = Array::from_binary(DataType::Int8, &p[4..])
        .map_err(|e| format!("enum array: {}", e.message))?;
    for v in &mut a.items {
        if let Value::Int8(l) = v {
            let l = u32::try_from(*l).map_err(|_| "enum array: label OID out of range")?;
            *v = Value::Enum(l);
        }
    }
    a.elem = DataType::Enum(ty);
    Ok(a.value())
}

/// A row's stored form, allocated at its exact size.
pub(crate) fn encode_row(values: &[Value]) -> Box<[u8]> {
    let n = values.iter().map(stored_len).sum();
    let mut out = Vec::with_capacity(n);
    for v in values {
        put_value(v, &mut out);
    }
    debug_assert_eq!(out.len(), n, "stored_len agrees with put_value");
    out.into_boxed_slice()
}

/// One stored value: its tag and payload (length prefix removed).
#[derive(Clone, Copy)]
struct Field<'a> {
    tag: u8,
    payload: &'a [u8],
}

/// The stored values of a row, in column order.
struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn fields(buf: &[u8]) -> Fields<'_> {
    Fields { buf, pos: 0 }
}

/// The field at `buf[*pos..]` (its tag and payload), bounds-checked;
/// advances `pos`. The framing of every reader of stored rows.
fn field_at<'a>(buf: &'a [u8], pos: &mut usize) -> Result<Field<'a>, String> {
    let tag = buf[*pos];
    *pos += 1;
    let start = *pos;
    let take = |pos: &mut usize, len: u64| {
        let end = (*pos as u64)
            .checked_add(len)
            .filter(|&e| e <= buf.len() as u64)
            .ok_or_else(|| malformed(*pos, "truncated value"))? as usize;
        let s = &buf[*pos..end];
        *pos = end;
        Ok::<_, String>(s)
    };
    let payload = match tag {
        T_NULL | T_FALSE | T_TRUE => &buf[start..start],
        T_INT2 | T_INT4 | T_INT8 | T_DATE | T_TIME | T_ENUM | T_MONEY => {
            get_varint(buf, pos)?;
            &buf[start..*pos]
        }
        T_INTERVAL => {
            for _ in 0..3 {
                get_varint(buf, pos)?;
            }
            &buf[start..*pos]
        }
        T_TIMETZ => {
            for _ in 0..2 {
                get_varint(buf, pos)?;
            }
            &buf[start..*pos]
        }
        T_FLOAT4 => take(pos, 4)?,
        T_FLOAT8 | T_TIMESTAMP | T_TIMESTAMPTZ | T_PG_LSN => take(pos, 8)?,
        T_UUID => take(pos, 16)?,
        T_NUMERIC | T_TEXT | T_BYTEA | T_JSONB | T_ARRAY | T_RECORD | T_ENUM_ARRAY | T_GEO
        | T_RECORD_ARRAY | T_RANGE | T_BITS | T_TSVECTOR | T_TSQUERY => {
            let len = get_varint(buf, pos)?;
            take(pos, len)?
        }
        t => return Err(malformed(start - 1, &format!("unknown tag {t}"))),
    };
    Ok(Field { tag, payload })
}

impl<'a> Iterator for Fields<'a> {
    type Item = Field<'a>;

    fn next(&mut self) -> Option<Field<'a>> {
        if self.pos >= self.buf.len() {
            return None;
        }
        // In-memory rows were encoded here: damage is a broken invariant.
        Some(field_at(self.buf, &mut self.pos).unwrap_or_else(|e| panic!("{e}")))
    }
}

fn fixed<const N: usize>(b: &[u8]) -> [u8; N] {
    b.try_into().expect("stored row: fixed-size payload")
}

fn varint_of(b: &[u8]) -> i64 {
    unzigzag(get_varint(b, &mut 0).expect("stored row: a framed varint"))
}

fn text_of(b: &[u8]) -> &str {
    std::str::from_utf8(b).expect("stored row: text is UTF-8")
}

impl Field<'_> {
    fn value(self) -> Value {
        let p = self.payload;
        match self.tag {
            T_NULL => Value::Null,
            T_FALSE => Value::Bool(false),
            T_TRUE => Value::Bool(true),
            T_INT2 => Value::Int2(varint_of(p) as i16),
            T_INT4 => Value::Int4(varint_of(p) as i32),
            T_INT8 => Value::Int8(varint_of(p)),
            T_FLOAT4 => Value::Float4(f32::from_le_bytes(fixed(p))),
            T_FLOAT8 => Value::Float8(f64::from_le_bytes(fixed(p))),
            T_NUMERIC => {
                Value::Numeric(Numeric::decode_storage(p).expect("stored row: numeric payload"))
            }
            T_TEXT => Value::Text(Arc::from(text_of(p))),
            T_BYTEA => Value::Bytea(Arc::from(p)),
            T_DATE => Value::Date(varint_of(p) as i32),
            T_TIME => Value::Time(varint_of(p)),
            T_MONEY => Value::Money(varint_of(p)),
            T_TIMETZ => {
                let mut pos = 0;
                let mut next =
                    || unzigzag(get_varint(p, &mut pos).expect("stored row: a framed varint"));
                let (t, z) = (next(), next() as i32);
                Value::TimeTz(t, z)
            }
            T_ENUM => {
                Value::Enum(get_varint(p, &mut 0).expect("stored row: a framed varint") as u32)
            }
            T_TIMESTAMP => Value::Timestamp(i64::from_le_bytes(fixed(p))),
            T_TIMESTAMPTZ => Value::TimestampTz(i64::from_le_bytes(fixed(p))),
            T_UUID => Value::Uuid(fixed(p)),
            T_PG_LSN => Value::PgLsn(u64::from_le_bytes(fixed(p))),
            T_JSONB => Value::Jsonb(Arc::from(text_of(p))),
            T_INTERVAL => {
                let mut pos = 0;
                let mut next =
                    || unzigzag(get_varint(p, &mut pos).expect("stored row: a framed varint"));
                let (months, days, micros) = (next() as i32, next() as i32, next());
                Value::Interval(Interval::new(months, days, micros))
            }
            T_ARRAY => array_of(p).expect("stored row: array payload"),
            T_ENUM_ARRAY => enum_array_of(p).expect("stored row: enum array payload"),
            T_RECORD_ARRAY => record_array_of(p).expect("stored row: record array payload"),
            T_RECORD => Value::Record(decode_row(p)),
            T_GEO => geo_of(p).expect("stored row: geometric payload"),
            T_RANGE => range_of(p).expect("stored row: range payload"),
            T_BITS => bits_of(p).expect("stored row: bit string payload"),
            T_TSVECTOR | T_TSQUERY => ts_of(self.tag, p).expect("stored row: text search payload"),
            t => panic!("stored row: unknown tag {t}"),
        }
    }

    /// The value's sortable key form (see the module header), without
    /// building the value for fixed-size types and strings.
    fn put_key(self, out: &mut Vec<u8>) {
        let p = self.payload;
        match self.tag {
            T_INT2 | T_INT4 | T_INT8 => {
                out.push(K_INT);
                put_ordered_i64(varint_of(p), out);
            }
            T_TEXT => put_key_bytes(K_TEXT, p, out),
            T_BYTEA => put_key_bytes(K_BYTEA, p, out),
            _ => put_key_value(&self.value(), out),
        }
    }
}

/// Check bytes from outside (WAL, checkpoint) before they become a stored
/// row: every field well-formed, texts UTF-8, integers in their type's
/// range. Returns the number of values.
pub(crate) fn check_row(buf: &[u8]) -> Result<usize, String> {
    let mut pos = 0;
    let mut n = 0;
    while pos < buf.len() {
        let f = field_at(buf, &mut pos)?;
        let p = f.payload;
        let ints = |count: usize| {
            let mut at = 0;
            (0..count)
                .map(|_| get_varint(p, &mut at).map(unzigzag))
                .collect::<Result<Vec<i64>, String>>()
        };
        let ok = match f.tag {
            T_INT2 => ints(1)?.iter().all(|&v| i16::try_from(v).is_ok()),
            T_INT4 | T_DATE => ints(1)?.iter().all(|&v| i32::try_from(v).is_ok()),
            T_ENUM => u32::try_from(get_varint(p, &mut 0)?).is_ok(),
            T_INTERVAL => ints(3)?[..2].iter().all(|&v| i32::try_from(v).is_ok()),
            T_NUMERIC => Numeric::decode_storage(p).is_some(),
            T_TEXT | T_JSONB => std::str::from_utf8(p).is_ok(),
            T_ARRAY => array_of(p).is_ok(),
            T_ENUM_ARRAY => enum_array_of(p).is_ok(),
            T_RECORD_ARRAY => record_array_of(p).is_ok(),
            T_RECORD => check_row(p).is_ok(),
            T_GEO => geo_of(p).is_ok(),
            T_RANGE => range_of(p).is_ok(),
            T_BITS => bits_of(p).is_ok(),
            T_TSVECTOR | T_TSQUERY => ts_of(f.tag, p).is_ok(),
            _ => true,
        };
        if !ok {
            return Err(malformed(pos, "value out of range or malformed"));
        }
        n += 1;
    }
    Ok(n)
}

/// A tsvector or tsquery from its stored (binary) form.
fn ts_of(tag: u8, p: &[u8]) -> Result<Value, String> {
    use nestor_types::tsearch::{TsQuery, TsVector};
    if tag == T_TSVECTOR {
        TsVector::from_binary(p).map(|v| Value::TsVector(Arc::new(v)))
    } else {
        TsQuery::from_binary(p).map(|q| Value::TsQuery(Arc::new(q)))
    }
    .map_err(|e| e.into_message())
}

/// A bit string from its stored (binary) form.
fn bits_of(p: &[u8]) -> Result<Value, String> {
    nestor_types::bits::parse_binary(DataType::VarBit(None), p).map_err(|e| e.into_message())
}

/// An array from its stored (binary) form; the element type is the one
/// the form names.
fn array_of(p: &[u8]) -> Result<Value, String> {
    let oid = p
        .get(8..12)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or("array: truncated header")?;
    let elem = DataType::from_oid(oid)
        .filter(|t| t.array_of().is_some())
        .ok_or_else(|| format!("array: unknown element type {oid}"))?;
    Array::from_binary(elem, p)
        .map(Array::value)
        .map_err(|e| format!("array: {}", e.message))
}

/// The whole row as values.
pub(crate) fn decode_row(buf: &[u8]) -> Row {
    fields(buf).map(Field::value).collect()
}

/// The whole row as values, with room for `spare` more.
pub(crate) fn decode_row_spare(buf: &[u8], spare: usize) -> Vec<Value> {
    // A value takes at least one byte: the buffer's length bounds the count.
    let mut out = Vec::with_capacity(buf.len().min(64) + spare);
    decode_into(buf, None, &mut out);
    out
}

/// [`decode_row_spare`] that decodes only the columns `cols` marks: the
/// others come out NULL, so positions do not move, and the row stops after
/// the last marked one (the reader pads it like a row written before later
/// columns were added, and reads none of those). Skipping a field is
/// reading its length.
pub(crate) fn decode_row_only(buf: &[u8], spare: usize, cols: &[bool]) -> Vec<Value> {
    // Room for the whole table row (the mask's length) and the spare
    // values: the reader pads the row to that without reallocating.
    let mut out = Vec::with_capacity(cols.len() + spare);
    decode_into(buf, Some(cols), &mut out);
    out
}

/// Decode a row into `out` (cleared first, its capacity kept): a scan
/// decodes every row into one buffer instead of allocating one per row.
/// `cols` as in [`decode_row_only`] (None: every column): a stored row
/// never has more columns than its table (the mask's length), so nothing
/// past the last marked column is read.
pub(crate) fn decode_into(buf: &[u8], cols: Option<&[bool]>, out: &mut Vec<Value>) {
    out.clear();
    let upto = match cols {
        None => usize::MAX,
        Some(cols) => cols.iter().rposition(|&c| c).map_or(0, |last| last + 1),
    };
    let mut pos = 0;
    let mut i = 0;
    while pos < buf.len() && i < upto {
        let wanted = cols.is_none_or(|c| c.get(i).copied().unwrap_or(true));
        out.push(if wanted {
            value_at(buf, &mut pos)
        } else {
            skip_at(buf, &mut pos);
            Value::Null
        });
        i += 1;
    }
}

/// Decode the columns `cols` marks (None: all) into the slots of `out`
/// that hold them, in place: the other slots are not touched, so a scan
/// that keeps one row buffer sets up the unread columns once and rewrites
/// only what the query reads. Stops at the last marked column or at the
/// end of the stored row. Returns where the stored row ended before the
/// last marked column (positions from there on were written before their
/// columns were added: the caller fills in their `missing` values), else
/// `out.len()`.
/// `upto` is [`mask_end`] of `cols` (computed once per scan; None: any).
pub(crate) fn decode_in_place(
    buf: &[u8],
    cols: Option<&[bool]>,
    upto: usize,
    out: &mut [Value],
) -> usize {
    let upto = upto.min(out.len());
    let mut pos = 0;
    let mut i = 0;
    while pos < buf.len() && i < upto {
        if cols.is_none_or(|c| c[i]) {
            out[i] = value_at(buf, &mut pos);
        } else {
            skip_at(buf, &mut pos);
        }
        i += 1;
    }
    assert!(
        cols.is_some() || pos >= buf.len(),
        "a stored row has more values than its table's {} columns",
        out.len()
    );
    // Every marked column was there: none is missing.
    if i == upto {
        out.len()
    } else {
        i
    }
}

/// One past the last column `cols` marks (0: none).
pub(crate) fn mask_end(cols: &[bool]) -> usize {
    cols.iter().rposition(|&c| c).map_or(0, |last| last + 1)
}

/// The varint at `buf[*pos..]` of a row this process encoded (framed:
/// damage is a broken invariant), advancing `pos`.
#[inline]
fn framed_varint(buf: &[u8], pos: &mut usize) -> u64 {
    let b = buf[*pos];
    if b < 0x80 {
        *pos += 1;
        return b as u64;
    }
    get_varint(buf, pos).expect("stored row: a framed varint")
}

/// The value at `buf[*pos..]`, advancing `pos`: integers and the
/// payload-free tags read in place, the rest through [`field_at`].
fn value_at(buf: &[u8], pos: &mut usize) -> Value {
    let tag = buf[*pos];
    let int = |pos: &mut usize| {
        *pos += 1;
        unzigzag(framed_varint(buf, pos))
    };
    match tag {
        T_NULL => {
            *pos += 1;
            Value::Null
        }
        T_FALSE | T_TRUE => {
            *pos += 1;
            Value::Bool(tag == T_TRUE)
        }
        T_INT2 => Value::Int2(int(pos) as i16),
        T_INT4 => Value::Int4(int(pos) as i32),
        T_INT8 => Value::Int8(int(pos)),
        _ => field_at(buf, pos).unwrap_or_else(|e| panic!("{e}")).value(),
    }
}

/// Step over the value at `buf[*pos..]`: by its varint, fixed size or
/// length prefix, the rest through [`field_at`].
fn skip_at(buf: &[u8], pos: &mut usize) {
    let tag = buf[*pos];
    // Step over `n` payload bytes from `pos`.
    let take = |pos: &mut usize, n: usize| {
        *pos = pos
            .checked_add(n)
            .filter(|&end| end <= buf.len())
            .expect("stored row: truncated value");
    };
    match tag {
        T_NULL | T_FALSE | T_TRUE => *pos += 1,
        T_INT2 | T_INT4 | T_INT8 | T_DATE | T_TIME | T_ENUM => {
            // Past the varint's last byte (high bit clear), unread.
            let end = buf[*pos + 1..]
                .iter()
                .position(|&b| b < 0x80)
                .expect("stored row: a framed varint");
            *pos += end + 2;
        }
        T_FLOAT4 => take(pos, 5),
        T_FLOAT8 | T_TIMESTAMP | T_TIMESTAMPTZ => take(pos, 9),
        T_TEXT | T_BYTEA | T_NUMERIC | T_JSONB => {
            *pos += 1;
            let len = framed_varint(buf, pos) as usize;
            take(pos, len);
        }
        // In-memory rows were encoded here: damage is a broken invariant.
        _ => {
            field_at(buf, pos).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

// ----- keys ---------------------------------------------------------------

const K_BOOL: u8 = 1;
const K_INT: u8 = 2;
const K_FLOAT: u8 = 3;
const K_NUMERIC: u8 = 4;
const K_TEXT: u8 = 5;
const K_BYTEA: u8 = 6;
const K_DATE: u8 = 7;
const K_TIMESTAMP: u8 = 8;
const K_TIMESTAMPTZ: u8 = 9;
const K_UUID: u8 = 10;
const K_JSONB: u8 = 11;
const K_INTERVAL: u8 = 12;
const K_ARRAY: u8 = 13;
const K_RECORD: u8 = 14;
const K_TIME: u8 = 15;
const K_ENUM: u8 = 16;
const K_GEO: u8 = 17;
const K_PG_LSN: u8 = 18;
const K_TIMETZ: u8 = 19;
const K_MONEY: u8 = 20;
const K_RANGE: u8 = 30;
const K_BITS: u8 = 21;
const K_TSVECTOR: u8 = 22;
const K_TSQUERY: u8 = 23;
const K_NULL: u8 = 0xFE;

/// Order-preserving variable-length integer (module header).
fn put_ordered_i64(v: i64, out: &mut Vec<u8>) {
    let nbytes = |u: u64| (64 - u.leading_zeros() as usize).div_ceil(8);
    if v >= 0 {
        let u = v as u64;
        let n = nbytes(u);
        out.push(0x81 + n as u8);
        out.extend_from_slice(&u.to_be_bytes()[8 - n..]);
    } else {
        let m = !(v as u64);
        let n = nbytes(m);
        out.push(0x80 - n as u8);
        out.extend_from_slice(&(!m).to_be_bytes()[8 - n..]);
    }
}

fn put_key_bytes(class: u8, b: &[u8], out: &mut Vec<u8>) {
    out.push(class);
    for &c in b {
        out.push(c);
        if c == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 1]);
}

/// tsvector_cmp's order as bytes (see the module header).
fn put_key_tsvector(v: &nestor_types::tsearch::TsVector, out: &mut Vec<u8>) {
    use nestor_types::tsearch::vector::{pos_of, weight_of};
    out.push(K_TSVECTOR);
    out.extend_from_slice(&(v.pg_size() as u64).to_be_bytes());
    out.extend_from_slice(&(v.entries.len() as u64).to_be_bytes());
    for e in &v.entries {
        out.push(u8::from(e.pos.is_empty()));
        put_key_bytes(0, e.word.as_bytes(), out);
        out.extend_from_slice(&(!(e.pos.len() as u16)).to_be_bytes());
        for p in &e.pos {
            out.extend_from_slice(&(!pos_of(*p)).to_be_bytes());
            out.push(!weight_of(*p));
        }
    }
}

/// QTNodeCompare's order as bytes (see the module header).
fn put_key_tsquery_node(n: &nestor_types::tsearch::query::Node, out: &mut Vec<u8>) {
    use nestor_types::tsearch::query::Node;
    match n {
        Node::Val(o) => {
            out.push(1);
            // Larger signed valcrc first: the sign bit flipped, then
            // complemented.
            out.extend_from_slice(&(!(o.crc ^ 0x8000_0000)).to_be_bytes());
            put_key_bytes(0, o.word.as_bytes(), out);
        }
        Node::Stop => out.push(2),
        Node::Not(a) => {
            out.extend_from_slice(&[0, !1u8]);
            put_key_tsquery_node(a, out);
        }
        Node::And(a, b) | Node::Or(a, b) | Node::Phrase(a, b, _) => {
            let code: u8 = match n {
                Node::And(..) => 2,
                Node::Or(..) => 3,
                _ => 4,
            };
            out.extend_from_slice(&[0, !code]);
            put_key_tsquery_node(b, out);
            put_key_tsquery_node(a, out);
            if let Node::Phrase(_, _, d) = n {
                out.extend_from_slice(&(!*d).to_be_bytes());
            }
        }
    }
}

fn put_key_f64(v: f64, out: &mut Vec<u8>) {
    let v = if v.is_nan() {
        f64::NAN
    } else if v == 0.0 {
        0.0
    } else {
        v
    };
    let bits = v.to_bits();
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    out.push(K_FLOAT);
    out.extend_from_slice(&ordered.to_be_bytes());
}

/// Append `v`'s sortable key form.
pub(crate) fn put_key_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(K_NULL),
        Value::Bool(b) => out.extend_from_slice(&[K_BOOL, *b as u8]),
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => {
            out.push(K_INT);
            put_ordered_i64(v.as_i64().expect("an integer"), out);
        }
        Value::Float4(f) => put_key_f64(*f as f64, out),
        Value::Float8(f) => put_key_f64(*f, out),
        Value::Numeric(n) => {
            out.push(K_NUMERIC);
            n.encode_sort_key(out);
        }
        Value::Text(s) => put_key_bytes(K_TEXT, s.as_bytes(), out),
        Value::Bytea(b) => put_key_bytes(K_BYTEA, b, out),
        Value::Jsonb(s) => put_key_bytes(K_JSONB, &nestor_types::jsonb_order::sort_key(s), out),
        Value::Date(d) => {
            out.push(K_DATE);
            put_ordered_i64(*d as i64, out);
        }
        Value::Time(t) => {
            out.push(K_TIME);
            put_ordered_i64(*t, out);
        }
        // timetz_cmp's order: the UTC time, then the zone.
        Value::TimeTz(t, z) => {
            out.push(K_TIMETZ);
            put_ordered_i64(*t + *z as i64 * 1_000_000, out);
            put_ordered_i64(*z as i64, out);
        }
        Value::Money(c) => {
            out.push(K_MONEY);
            put_ordered_i64(*c, out);
        }
        Value::Bits(b) => {
            put_key_bytes(K_BITS, b.bytes(), out);
            put_ordered_i64(b.len() as i64, out);
        }
        Value::Enum(l) => put_key_bytes(K_ENUM, &nestor_types::enums::rank(*l), out),
        Value::TsVector(v) => put_key_tsvector(v, out),
        Value::TsQuery(q) => {
            out.push(K_TSQUERY);
            let sumlen: usize = q.operands().iter().map(|o| o.word.len() + 1).sum();
            out.extend_from_slice(&(q.size() as u64).to_be_bytes());
            out.extend_from_slice(&(sumlen as u64).to_be_bytes());
            if let Some(r) = &q.root {
                put_key_tsquery_node(r, out);
            }
        }
        Value::Timestamp(t) => {
            out.push(K_TIMESTAMP);
            put_ordered_i64(*t, out);
        }
        Value::TimestampTz(t) => {
            out.push(K_TIMESTAMPTZ);
            put_ordered_i64(*t, out);
        }
        Value::Uuid(u) => {
            out.push(K_UUID);
            out.extend_from_slice(u);
        }
        Value::PgLsn(l) => {
            out.push(K_PG_LSN);
            out.extend_from_slice(&l.to_be_bytes());
        }
        Value::Interval(i) => {
            out.push(K_INTERVAL);
            let span = (i.span() as u128) ^ (1 << 127);
            out.extend_from_slice(&span.to_be_bytes());
        }
        Value::Array(a) => {
            out.push(K_ARRAY);
            for item in &a.items {
                out.push(1);
                put_key_value(item, out);
            }
            out.push(0);
            put_ordered_i64(a.dims.len() as i64, out);
            for d in &a.dims {
                put_ordered_i64(i64::from(d.len), out);
                put_ordered_i64(i64::from(d.lower), out);
            }
        }
        Value::Record(f) => {
            out.push(K_RECORD);
            for item in f.iter() {
                out.push(1);
                put_key_value(item, out);
            }
            out.push(0);
        }
        Value::Geo(g) => {
            out.push(K_GEO);
            out.extend_from_slice(&(g.kind().oid() as u16).to_be_bytes());
            out.push(g.closed() as u8);
            for f in g.floats() {
                out.push(1);
                put_key_f64(f, out);
            }
            out.push(0);
        }
        Value::Range(r) => put_key_range(r, out),
    }
}

/// How one key column of an index sorts: CREATE INDEX's ASC/DESC and
/// NULLS FIRST/LAST (PostgreSQL's indoption bits). The default, ASC NULLS
/// LAST, is [`put_key_value`]'s form unchanged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyOrder {
    pub desc: bool,
    pub nulls_first: bool,
}

impl KeyOrder {
    /// ASC NULLS LAST: the plain key form.
    pub fn is_default(self) -> bool {
        !self.desc && !self.nulls_first
    }

    /// Whether NULL lies above every value in the column's ascending
    /// value order as the index stores it (NULLS LAST ascending, or
    /// NULLS FIRST descending, which is its reverse).
    pub fn null_high(self) -> bool {
        self.desc == self.nulls_first
    }
}

/// NULL of an ASC NULLS FIRST column: below every class byte (01..).
const K_NULL_FIRST: u8 = 0x00;
/// NULL of a DESC NULLS LAST column: above every complemented class
/// byte (E1..FE).
const K_NULL_LAST_DESC: u8 = 0xFF;

/// Append `v`'s sortable key form for a column sorting as `o`. A DESC
/// column's form is the plain form with every byte complemented: the
/// plain forms are prefix-free, so the first byte where two differ
/// decides, and complementing it reverses the order (the NULL byte FE
/// becomes 01, first: DESC's default NULLS FIRST). The other NULL
/// placements take a byte outside the column's class bytes, so the forms
/// stay prefix-free.
pub(crate) fn put_key_ordered(v: &Value, o: KeyOrder, out: &mut Vec<u8>) {
    match (o.desc, o.nulls_first, v.is_null()) {
        (false, true, true) => out.push(K_NULL_FIRST),
        (true, false, true) => out.push(K_NULL_LAST_DESC),
        (false, _, _) => put_key_value(v, out),
        (true, _, _) => {
            let start = out.len();
            put_key_value(v, out);
            for b in &mut out[start..] {
                *b = !*b;
            }
        }
    }
}

/// A range's key form (module header): bytes in `range_cmp`'s order.
fn put_key_range(r: &Range, out: &mut Vec<u8>) {
    out.push(K_RANGE);
    out.extend_from_slice(&(r.kind.oid() as u16).to_be_bytes());
    if r.empty {
        out.push(0);
        return;
    }
    out.push(1);
    match &r.lower {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            put_key_value(v, out);
            out.push(!r.lower_inc as u8);
        }
    }
    match &r.upper {
        None => out.push(2),
        Some(v) => {
            out.push(1);
            put_key_value(v, out);
            out.push(r.upper_inc as u8);
        }
    }
}

/// Append the key form of the stored row's columns `cols`, in that order;
/// returns whether any of them is NULL.
pub(crate) fn put_stored_key(row: &[u8], cols: &[usize], out: &mut Vec<u8>) -> bool {
    let mut null = false;
    let mut put = |f: Field<'_>, out: &mut Vec<u8>| {
        null |= f.tag == T_NULL;
        f.put_key(out);
    };
    // Key columns are few: look each one up (a row is a handful of fields).
    let mut seen: [Option<Field<'_>>; 8] = [None; 8];
    let max = cols.iter().copied().max().unwrap_or(0);
    if max < seen.len() {
        for (i, f) in fields(row).take(max + 1).enumerate() {
            seen[i] = Some(f);
        }
        for &c in cols {
            put(seen[c].expect("row has the key column"), out);
        }
    } else {
        let all: Vec<Field<'_>> = fields(row).take(max + 1).collect();
        for &c in cols {
            put(all[c], out);
        }
    }
    null
}

/// Append the row-id suffix of an index key.
pub(crate) fn put_row_id(row: RowId, out: &mut Vec<u8>) {
    let n = (64 - row.0.leading_zeros() as usize).div_ceil(8);
    out.push(n as u8);
    out.extend_from_slice(&row.0.to_be_bytes()[8 - n..]);
    out.push(n as u8);
}

/// Split a full index key into its values part and its row id.
pub(crate) fn split_row_id(key: &[u8]) -> (&[u8], RowId) {
    let n = *key.last().expect("an index key has a row id") as usize;
    assert!(n <= 8 && key.len() >= n + 2, "index key: bad row id suffix");
    let end = key.len() - 1;
    let mut id = [0u8; 8];
    id[8 - n..].copy_from_slice(&key[end - n..end]);
    (&key[..end - n - 1], RowId(u64::from_be_bytes(id)))
}

/// The smallest byte string greater than every string starting with
/// `prefix`; None when there is none (all 0xFF).
pub(crate) fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let keep = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut s = prefix[..=keep].to_vec();
    s[keep] += 1;
    Some(s)
}

/// Bytes a row version costs besides its stored row, for memory
/// accounting: the allocation's rounding. Its header lives in its row's
/// slot (counted with the table's slot chunks) or, for an older version,
/// in the chain's vector (not counted: pruned soon).
const VERSION_OVERHEAD_BYTES: usize = 16;

/// A row version's values in stored form. Counts itself in the memory
/// budget's "table versions" category while it lives (one relaxed atomic
/// add when made, one when dropped), so the count follows inserts,
/// updates, undo, pruning and dropped tables alike.
pub(crate) struct StoredRow(Box<[u8]>);

impl StoredRow {
    pub(crate) fn new(bytes: Box<[u8]>) -> StoredRow {
        memory::add(
            Category::TableVersions,
            (VERSION_OVERHEAD_BYTES + bytes.len()) as i64,
        );
        StoredRow(bytes)
    }
}

impl std::ops::Deref for StoredRow {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl Clone for StoredRow {
    fn clone(&self) -> StoredRow {
        StoredRow::new(self.0.clone())
    }
}

impl Drop for StoredRow {
    fn drop(&mut self) {
        memory::add(
            Category::TableVersions,
            -((VERSION_OVERHEAD_BYTES + self.0.len()) as i64),
        );
    }
}

impl std::fmt::Debug for StoredRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoredRow({:02x?})", &*self.0)
    }
}

/// Index keys up to this many bytes live inside the B-tree node.
pub(crate) const KEY_INLINE_BYTES_MAX: usize = 14;

/// Bytes an index entry costs besides a long key's own allocation (its
/// share of a B-tree node).
const KEY_OVERHEAD_BYTES: usize = 24;

/// An index entry: key values and row id in sortable form (16 bytes; a
/// longer key's bytes in their own allocation). Counts itself in the
/// memory budget's "indexes" category while it lives, like [`StoredRow`].
pub(crate) enum Key {
    Inline {
        len: u8,
        bytes: [u8; KEY_INLINE_BYTES_MAX],
    },
    Heap(Box<Box<[u8]>>),
}

impl Key {
    pub(crate) fn new(b: &[u8]) -> Key {
        memory::add(Category::Indexes, Key::cost(b.len()));
        if b.len() <= KEY_INLINE_BYTES_MAX {
            let mut bytes = [0u8; KEY_INLINE_BYTES_MAX];
            bytes[..b.len()].copy_from_slice(b);
            Key::Inline {
                len: b.len() as u8,
                bytes,
            }
        } else {
            Key::Heap(Box::new(Box::from(b)))
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Key::Inline { len, bytes } => &bytes[..*len as usize],
            Key::Heap(b) => b,
        }
    }

    fn cost(len: usize) -> i64 {
        let heap = if len <= KEY_INLINE_BYTES_MAX {
            0
        } else {
            len + 16
        };
        (KEY_OVERHEAD_BYTES + heap) as i64
    }
}

impl Clone for Key {
    fn clone(&self) -> Key {
        Key::new(self.as_bytes())
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        memory::add(Category::Indexes, -Key::cost(self.as_bytes().len()));
    }
}

impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Key {}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({:02x?})", self.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nestor_types::Numeric;

    fn samples() -> Vec<Value> {
        let n = |s: &str| Value::Numeric(Numeric::parse(s).unwrap());
        vec![
            Value::Null,
            Value::Bool(false),
            Value::Bool(true),
            Value::Int2(-300),
            Value::Int2(7),
            Value::Int4(i32::MIN),
            Value::Int4(-1),
            Value::Int4(0),
            Value::Int4(1),
            Value::Int4(255),
            Value::Int4(256),
            Value::Int8(i64::MAX),
            Value::Int8(i64::MIN),
            Value::Int8(-256),
            Value::Int8(-257),
            Value::Float4(-1.5),
            Value::Float8(f64::NEG_INFINITY),
            Value::Float8(-0.0),
            Value::Float8(0.0),
            Value::Float8(1e-300),
            Value::Float8(f64::INFINITY),
            Value::Float8(f64::NAN),
            Value::Float4(f32::NAN),
            n("-12.5"),
            n("0"),
            n("1.50"),
            n("1.5"),
            n("NaN"),
            Value::text(""),
            Value::text("a"),
            Value::text("ab"),
            Value::text("b"),
            Value::text("é"),
            Value::bytea(b""),
            Value::bytea(b"\x00"),
            Value::bytea(b"\x00\x00"),
            Value::bytea(b"\x00\x01"),
            Value::bytea(b"\xff"),
            Value::Date(-5),
            Value::Date(9000),
            Value::Timestamp(-1),
            Value::Timestamp(1 << 50),
            Value::TimestampTz(0),
            Value::Uuid([7; 16]),
            Value::PgLsn(1),
            Value::PgLsn(u64::MAX),
            Value::PgLsn(1 << 63),
            Value::Jsonb(Arc::from("{\"a\": 1}")),
            Value::Interval(Interval::new(1, 0, 0)),
            Value::Interval(Interval::new(0, 30, 0)),
            Value::Interval(Interval::new(0, -1, 5)),
            Value::Time(0),
            Value::Time(86_400_000_000),
            Value::TimeTz(0, 0),
            Value::TimeTz(3_600_000_000, -3600),
            Value::TimeTz(86_400_000_000, 57599),
            Value::TimeTz(0, -57599),
            Value::Money(i64::MIN),
            Value::Money(-1),
            Value::Money(12345),
            bits(""),
            bits("0"),
            bits("000000000"),
            bits("01"),
            bits("1"),
            bits("10"),
            bits("100"),
            bits("xFF"),
            bits("xFF00"),
            arr(&[], &[]),
            arr(&[Value::Int4(1)], &[]),
            arr(&[Value::Int4(1), Value::Int4(3)], &[]),
            arr(&[Value::Int4(1), Value::Null], &[]),
            arr(&[Value::Int4(2)], &[]),
            arr(&[Value::Int4(1), Value::Int4(2)], &[(2, 1)]),
            arr(&[Value::Int4(1), Value::Int4(2)], &[(2, 0)]),
            arr(&[Value::Int4(1), Value::Int4(2)], &[(1, 1), (2, 1)]),
            geo(GeoKind::Point, "(1,2)"),
            geo(GeoKind::Point, "(1,3)"),
            geo(GeoKind::Point, "(2,-1)"),
            geo(GeoKind::Path, "[(0,0),(1,1)]"),
            geo(GeoKind::Path, "[(0,0),(1,1),(2,2)]"),
            geo(GeoKind::Path, "((0,0),(1,1))"),
            range(RangeKind::Int4, "empty"),
            range(RangeKind::Int4, "(,)"),
            range(RangeKind::Int4, "(,1)"),
            range(RangeKind::Int4, "[0,1)"),
            range(RangeKind::Int4, "[0,)"),
            range(RangeKind::Int4, "[-5,-4)"),
            range(RangeKind::Num, "empty"),
            range(RangeKind::Num, "(,1.5]"),
            range(RangeKind::Num, "[1.5,1.5]"),
            range(RangeKind::Num, "[1.5,2)"),
            range(RangeKind::Num, "[1.5,2]"),
            range(RangeKind::Num, "(1.5,2)"),
            range(RangeKind::Num, "(1.5,)"),
            range(RangeKind::Num, "[1.50,2.0]"),
            range(RangeKind::Date, "[2000-01-01,infinity]"),
        ]
    }

    fn range(kind: RangeKind, text: &str) -> Value {
        nestor_types::range::parse(kind, text, &Default::default())
            .unwrap()
            .value()
    }

    fn bits(text: &str) -> Value {
        nestor_types::bits::parse(text).unwrap().value()
    }

    fn geo(kind: GeoKind, text: &str) -> Value {
        nestor_types::geometry::parse(kind, text).unwrap().value()
    }

    /// An int4 array of `items` with `dims` (length, lower), or one
    /// dimension from 1 when `dims` is empty.
    fn arr(items: &[Value], dims: &[(i32, i32)]) -> Value {
        let a = if dims.is_empty() {
            Array::from_items(DataType::Int4, items.to_vec())
        } else {
            let dims = dims
                .iter()
                .map(|&(len, lower)| nestor_types::array::Dim { len, lower })
                .collect();
            Array::new(DataType::Int4, dims, items.to_vec()).unwrap()
        };
        a.value()
    }

    fn key(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        put_key_value(v, &mut out);
        out
    }

    #[test]
    fn a_masked_decode_reads_only_up_to_the_last_marked_column() {
        let row = [
            Value::Int4(1),
            Value::Text("skipped".into()),
            Value::Int8(-7),
            Value::Text("after the last".into()),
        ];
        let buf = encode_row(&row);
        let t = true;
        let f = false;
        assert_eq!(
            decode_row_only(&buf, 0, &[t, f, t, f]),
            vec![Value::Int4(1), Value::Null, Value::Int8(-7)]
        );
        assert_eq!(decode_row_only(&buf, 0, &[f, f, f, f]), Vec::<Value>::new());
        assert_eq!(decode_row_only(&buf, 0, &[t, t, t, t]), row.to_vec());
    }

    #[test]
    fn rows_round_trip_exactly() {
        let vals = samples();
        let stored = encode_row(&vals);
        let back = decode_row(&stored);
        assert_eq!(back.len(), vals.len());
        for (a, b) in vals.iter().zip(back.iter()) {
            // Same variant and same printed form (numeric keeps its scale).
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
        assert_eq!(
            &*encode_row(&[Value::Int4(1), Value::text("abc"), Value::Null]),
            &[4, 2, 9, 3, b'a', b'b', b'c', 0]
        );
        assert!(decode_row(&encode_row(&[])).is_empty());
    }

    #[test]
    fn enum_values_are_stored_by_oid_and_keyed_by_rank() {
        use nestor_types::enums::{self, EnumDef, Position};
        // OIDs far from other tests' (the registry is per process).
        let mut def = EnumDef::new(
            900_001,
            900_000,
            "codec_mood",
            vec![(900_002, "sad".into()), (900_003, "happy".into())],
        );
        def.add_label(900_004, "ok", Position::Before("happy"))
            .unwrap();
        enums::install(std::sync::Arc::new(def.clone()));
        let (sad, happy, ok) = (
            Value::Enum(900_002),
            Value::Enum(900_003),
            Value::Enum(900_004),
        );
        let a = Array::from_items(
            DataType::Enum(900_001),
            vec![happy.clone(), Value::Null, ok.clone()],
        );
        let row = [sad.clone(), a.value()];
        let stored = encode_row(&row);
        assert_eq!(check_row(&stored), Ok(2));
        let back = decode_row(&stored);
        assert_eq!(format!("{:?}", &row[..]), format!("{:?}", &back[..]));
        // A renamed label does not change what is stored.
        def.rename_label("happy", "glad").unwrap();
        enums::install(std::sync::Arc::new(def));
        assert_eq!(&*encode_row(&row), &*stored);
        assert_eq!(
            decode_row(&stored)[1].to_text(&Default::default()),
            "{glad,NULL,ok}"
        );
        // Keys sort by the labels' order, not their OIDs or text.
        assert!(key(&sad) < key(&ok) && key(&ok) < key(&happy));
        assert!(sad < ok && ok < happy);
    }

    #[test]
    fn record_arrays_read_back_without_their_type_installed() {
        // A checkpoint's rows are checked before its composite types are
        // installed: nothing about the type may be needed to read them.
        let rt = nestor_types::datatype::named_record_type(
            900_100,
            vec![
                ("a".into(), DataType::Int4),
                ("b".into(), DataType::Text.array_of().unwrap()),
            ],
        );
        let rec = Value::Record(Arc::from(vec![
            Value::Int4(1),
            Array::from_items(DataType::Text, vec![Value::text("x")]).value(),
        ]));
        let dims = vec![
            nestor_types::array::Dim { len: 2, lower: 0 },
            nestor_types::array::Dim { len: 1, lower: 2 },
        ];
        let a = Array::new(DataType::Record(rt), dims, vec![rec, Value::Null]).unwrap();
        let row = [a.value()];
        let stored = encode_row(&row);
        assert_eq!(stored[0], T_RECORD_ARRAY);
        assert_eq!(check_row(&stored), Ok(1));
        let back = decode_row(&stored);
        let Value::Array(b) = &back[0] else {
            panic!("not an array: {:?}", back[0]);
        };
        assert_eq!(format!("{:?}", (&b.dims, &b.items)), {
            let Value::Array(a) = &row[0] else {
                unreachable!()
            };
            format!("{:?}", (&a.dims, &a.items))
        });
        // A shape that disagrees with the elements is refused, not a panic.
        let mut bad = stored.to_vec();
        let dims_at = 1 + varint_len(stored.len() as u64 - 2) + 4 + 1;
        bad[dims_at] = 6; // first dimension's length 2 -> 3 (zigzag)
        assert!(check_row(&bad).is_err());
    }

    #[test]
    fn checking_accepts_every_encoded_row_and_refuses_damage() {
        let vals = samples();
        let stored = encode_row(&vals);
        assert_eq!(check_row(&stored), Ok(vals.len()));
        // Every truncation either ends between values or is refused; none
        // panics.
        for cut in 0..stored.len() {
            let _ = check_row(&stored[..cut]);
        }
        assert!(check_row(&[99]).is_err());
        assert!(check_row(&[T_TEXT, 2, 0xFF, 0xFE]).is_err(), "not UTF-8");
        assert!(
            check_row(&[T_INT2, 0xFE, 0xFF, 0x07]).is_err(),
            "beyond int2"
        );
        assert!(check_row(&[T_TEXT, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]).is_err());
        assert!(check_row(&[
            T_INT8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01
        ])
        .is_err());
    }

    #[test]
    fn key_bytes_order_as_values_do() {
        let vals = samples();
        for a in &vals {
            for b in &vals {
                assert_eq!(key(a).cmp(&key(b)), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn stored_fields_give_the_same_keys_as_values() {
        let vals = samples();
        let stored = encode_row(&vals);
        let cols: Vec<usize> = (0..vals.len()).rev().collect();
        let mut from_stored = Vec::new();
        put_stored_key(&stored, &cols, &mut from_stored);
        let mut from_values = Vec::new();
        for &c in &cols {
            put_key_value(&vals[c], &mut from_values);
        }
        assert_eq!(from_stored, from_values);
        let mut few = Vec::new();
        put_stored_key(&stored, &[3, 0], &mut few);
        assert_eq!(few, [key(&vals[3]), key(&vals[0])].concat());
    }

    #[test]
    fn keys_are_prefix_free_so_prefix_ranges_select_by_value() {
        // (a, b) with a = 1: every such key starts with key(1) and sorts
        // below prefix_successor(key(1)); other values of a do not.
        let mut keys = Vec::new();
        for a in [Value::Int4(1), Value::Int4(2), Value::text("1")] {
            for b in [Value::Null, Value::Int4(-1), Value::text("x\u{0}")] {
                let mut k = key(&a);
                put_key_value(&b, &mut k);
                put_row_id(RowId(5), &mut k);
                keys.push((a.clone(), k));
            }
        }
        let p = key(&Value::Int4(1));
        let end = prefix_successor(&p).unwrap();
        for (a, k) in &keys {
            let inside = k.as_slice() >= p.as_slice() && k.as_slice() < end.as_slice();
            assert_eq!(inside, *a == Value::Int4(1), "{a:?}");
        }
        assert_eq!(prefix_successor(&[1, 0xFF, 0xFF]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xFF]), None);
    }

    #[test]
    fn row_ids_order_and_split() {
        let mut prev: Option<Vec<u8>> = None;
        for id in [0u64, 1, 255, 256, 70_000, 1 << 40, u64::MAX] {
            let mut k = key(&Value::Int4(9));
            put_row_id(RowId(id), &mut k);
            let (vals, got) = split_row_id(&k);
            assert_eq!(got, RowId(id));
            assert_eq!(vals, key(&Value::Int4(9)).as_slice());
            if let Some(p) = prev {
                assert!(p < k);
            }
            prev = Some(k);
        }
        let mut k = key(&Value::Int4(1_000_000));
        put_row_id(RowId(1_000_000), &mut k);
        assert!(
            k.len() <= KEY_INLINE_BYTES_MAX,
            "an int key with a large row id is inline"
        );
        assert!(matches!(Key::new(&k), Key::Inline { .. }));
        assert_eq!(std::mem::size_of::<Key>(), 16);
    }
}
