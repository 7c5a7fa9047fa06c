//! The byte form of a spilled row.
//!
//! Storage's row codec (`nestor_storage::codec`) writes arrays in their
//! binary (array_send) form, which keeps only the element type's OID: a
//! `numeric(10,2)[]`, an array of records or an `int2vector` would come
//! back as something else. A spilled row is read back by the same process
//! and statement that wrote it, so this codec keeps every value exactly:
//! each array names its element type by its index in the file's type
//! table ([`RowCodec`], in memory next to the file), and its elements are
//! values of this same form.
//!
//! ```text
//!  row    count:varint, then each value: tag payload
//!  0 NULL  1 false  2 true   3/4/5 int2/int4/int8: zigzag varint
//!  6 float4: 4 bytes LE      7 float8: 8 bytes LE
//!  8 numeric: len:varint Numeric::encode_storage
//!  9 text / 10 bytea / 15 jsonb: len:varint bytes
//!  11 date, 17 time, 20 enum: zigzag varint
//!  12/13 timestamp(tz): zigzag varint    14 uuid: 16 bytes
//!  16 interval: zigzag months, days, µs
//!  18 array: type:varint vector:u8 ndims:varint (len, lower)* as zigzag,
//!     then its items as a row
//!  19 record: its fields as a row
//!  21 geometric, 22 pg_lsn (see the code)
//!  23 timetz: zigzag µs, zigzag zone   24 money: zigzag varint
//! ```
//!
//! Reading trusts nothing: a damaged file is an internal error (XX000),
//! never a panic.

use std::sync::Arc;

use nestor_common::DbError;
use nestor_types::array::{Array, Dim};
use nestor_types::datatype::DataType;
use nestor_types::datetime::Interval;
use nestor_types::numeric::Numeric;
use nestor_types::Value;

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
const T_TIME: u8 = 17;
const T_ARRAY: u8 = 18;
const T_RECORD: u8 = 19;
const T_ENUM: u8 = 20;
const T_GEO: u8 = 21;
const T_PG_LSN: u8 = 22;
const T_TIMETZ: u8 = 23;
const T_MONEY: u8 = 24;
const T_RANGE: u8 = 30;
const T_BITS: u8 = 25;
const T_TSVECTOR: u8 = 26;
const T_TSQUERY: u8 = 27;

/// Encodes and decodes the rows of one temporary file; holds the array
/// element types its rows use.
#[derive(Default)]
pub(crate) struct RowCodec {
    types: Vec<DataType>,
}

fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn damaged(what: &str) -> DbError {
    DbError::internal(format!("temporary file is damaged: {what}"))
}

/// A reader over one encoded row.
struct Input<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    fn byte(&mut self) -> Result<u8, DbError> {
        let b = *self.buf.get(self.pos).ok_or_else(|| damaged("truncated"))?;
        self.pos += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, DbError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(damaged("varint too long"))
    }

    fn int(&mut self) -> Result<i64, DbError> {
        self.varint().map(unzigzag)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DbError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| damaged("truncated"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn bytes(&mut self) -> Result<&'a [u8], DbError> {
        let n = usize::try_from(self.varint()?).map_err(|_| damaged("length"))?;
        self.take(n)
    }

    fn text(&mut self) -> Result<Arc<str>, DbError> {
        std::str::from_utf8(self.bytes()?)
            .map(Arc::from)
            .map_err(|_| damaged("text is not UTF-8"))
    }
}

fn narrow<T: TryFrom<i64>>(v: i64) -> Result<T, DbError> {
    T::try_from(v).map_err(|_| damaged("integer out of range"))
}

impl RowCodec {
    /// Append `row`'s form to `out`.
    pub(crate) fn put_row(&mut self, row: &[Value], out: &mut Vec<u8>) {
        put_varint(row.len() as u64, out);
        for v in row {
            self.put_value(v, out);
        }
    }

    /// The row encoded in `buf` (all of it).
    pub(crate) fn get_row(&self, buf: &[u8]) -> Result<Vec<Value>, DbError> {
        let mut input = Input { buf, pos: 0 };
        let row = self.row(&mut input)?;
        if input.pos != buf.len() {
            return Err(damaged("bytes after the row"));
        }
        Ok(row)
    }

    fn type_index(&mut self, t: DataType) -> u64 {
        let i = match self.types.iter().position(|x| *x == t) {
            Some(i) => i,
            None => {
                self.types.push(t);
                self.types.len() - 1
            }
        };
        i as u64
    }

    fn put_value(&mut self, v: &Value, out: &mut Vec<u8>) {
        let with_len = |tag: u8, b: &[u8], out: &mut Vec<u8>| {
            out.push(tag);
            put_varint(b.len() as u64, out);
            out.extend_from_slice(b);
        };
        let int = |tag: u8, i: i64, out: &mut Vec<u8>| {
            out.push(tag);
            put_varint(zigzag(i), out);
        };
        match v {
            Value::Null => out.push(T_NULL),
            Value::Bool(false) => out.push(T_FALSE),
            Value::Bool(true) => out.push(T_TRUE),
            Value::Int2(i) => int(T_INT2, i64::from(*i), out),
            Value::Int4(i) => int(T_INT4, i64::from(*i), out),
            Value::Int8(i) => int(T_INT8, *i, out),
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
            Value::Jsonb(s) => with_len(T_JSONB, s.as_bytes(), out),
            Value::Date(d) => int(T_DATE, i64::from(*d), out),
            Value::Time(t) => int(T_TIME, *t, out),
            Value::TimeTz(t, z) => {
                int(T_TIMETZ, *t, out);
                put_varint(zigzag(i64::from(*z)), out);
            }
            Value::Money(c) => int(T_MONEY, *c, out),
            Value::Bits(b) => with_len(T_BITS, &nestor_types::bits::to_binary(b), out),
            Value::TsVector(v) => with_len(T_TSVECTOR, &v.to_binary(), out),
            Value::TsQuery(q) => with_len(T_TSQUERY, &q.to_binary(), out),
            Value::Enum(l) => int(T_ENUM, i64::from(*l), out),
            Value::Timestamp(t) => int(T_TIMESTAMP, *t, out),
            Value::TimestampTz(t) => int(T_TIMESTAMPTZ, *t, out),
            Value::Uuid(u) => {
                out.push(T_UUID);
                out.extend_from_slice(u);
            }
            Value::PgLsn(l) => {
                out.push(T_PG_LSN);
                out.extend_from_slice(&l.to_le_bytes());
            }
            Value::Interval(i) => {
                int(T_INTERVAL, i64::from(i.months), out);
                put_varint(zigzag(i64::from(i.days)), out);
                put_varint(zigzag(i.micros), out);
            }
            Value::Array(a) => {
                out.push(T_ARRAY);
                let t = self.type_index(a.elem);
                put_varint(t, out);
                out.push(u8::from(a.vector));
                put_varint(a.dims.len() as u64, out);
                for d in &a.dims {
                    put_varint(zigzag(i64::from(d.len)), out);
                    put_varint(zigzag(i64::from(d.lower)), out);
                }
                self.put_row(&a.items, out);
            }
            Value::Record(f) => {
                out.push(T_RECORD);
                self.put_row(f, out);
            }
            Value::Geo(g) => {
                out.push(T_GEO);
                out.extend_from_slice(&(g.kind().oid() as u16).to_le_bytes());
                put_varint(g.to_binary().len() as u64, out);
                out.extend_from_slice(&g.to_binary());
            }
            Value::Range(r) => {
                out.push(T_RANGE);
                out.extend_from_slice(&(r.kind.oid() as u16).to_le_bytes());
                let b = r.to_binary();
                put_varint(b.len() as u64, out);
                out.extend_from_slice(&b);
            }
        }
    }

    fn row(&self, input: &mut Input) -> Result<Vec<Value>, DbError> {
        let n = usize::try_from(input.varint()?).map_err(|_| damaged("count"))?;
        // Every value takes at least a byte: the rest of the buffer bounds n.
        if n > input.buf.len() - input.pos {
            return Err(damaged("count"));
        }
        let mut row = Vec::with_capacity(n);
        for _ in 0..n {
            row.push(self.value(input)?);
        }
        Ok(row)
    }

    fn value(&self, input: &mut Input) -> Result<Value, DbError> {
        Ok(match input.byte()? {
            T_NULL => Value::Null,
            T_FALSE => Value::Bool(false),
            T_TRUE => Value::Bool(true),
            T_INT2 => Value::Int2(narrow(input.int()?)?),
            T_INT4 => Value::Int4(narrow(input.int()?)?),
            T_INT8 => Value::Int8(input.int()?),
            T_FLOAT4 => Value::Float4(f32::from_le_bytes(
                input.take(4)?.try_into().map_err(|_| damaged("float4"))?,
            )),
            T_FLOAT8 => Value::Float8(f64::from_le_bytes(
                input.take(8)?.try_into().map_err(|_| damaged("float8"))?,
            )),
            T_NUMERIC => Value::Numeric(
                Numeric::decode_storage(input.bytes()?).ok_or_else(|| damaged("numeric"))?,
            ),
            T_TEXT => Value::Text(input.text()?),
            T_BYTEA => Value::Bytea(Arc::from(input.bytes()?)),
            T_JSONB => Value::Jsonb(input.text()?),
            T_DATE => Value::Date(narrow(input.int()?)?),
            T_TIME => Value::Time(input.int()?),
            T_TIMETZ => Value::TimeTz(input.int()?, narrow(input.int()?)?),
            T_MONEY => Value::Money(input.int()?),
            T_BITS => nestor_types::bits::parse_binary(DataType::VarBit(None), input.bytes()?)?,
            T_TSVECTOR => Value::TsVector(Arc::new(nestor_types::tsearch::TsVector::from_binary(
                input.bytes()?,
            )?)),
            T_TSQUERY => Value::TsQuery(Arc::new(nestor_types::tsearch::TsQuery::from_binary(
                input.bytes()?,
            )?)),
            T_ENUM => Value::Enum(narrow(input.int()?)?),
            T_TIMESTAMP => Value::Timestamp(input.int()?),
            T_TIMESTAMPTZ => Value::TimestampTz(input.int()?),
            T_UUID => Value::Uuid(input.take(16)?.try_into().map_err(|_| damaged("uuid"))?),
            T_PG_LSN => Value::PgLsn(u64::from_le_bytes(
                input.take(8)?.try_into().map_err(|_| damaged("pg_lsn"))?,
            )),
            T_GEO => {
                let b = input.take(2)?;
                let oid = u32::from(u16::from_le_bytes([b[0], b[1]]));
                let kind = nestor_types::geometry::GeoKind::from_oid(oid)
                    .ok_or_else(|| damaged("geometric type"))?;
                nestor_types::geometry::decode_stored(kind, input.bytes()?)?.value()
            }
            T_RANGE => {
                let b = input.take(2)?;
                let oid = u32::from(u16::from_le_bytes([b[0], b[1]]));
                let kind = nestor_types::range::RangeKind::from_oid(oid)
                    .ok_or_else(|| damaged("range type"))?;
                nestor_types::range::parse_binary(kind, input.bytes()?)?.value()
            }
            T_INTERVAL => {
                let months = narrow(input.int()?)?;
                let days = narrow(input.int()?)?;
                let micros = input.int()?;
                Value::Interval(Interval::new(months, days, micros))
            }
            T_ARRAY => {
                let t = usize::try_from(input.varint()?).map_err(|_| damaged("array type"))?;
                let elem = *self.types.get(t).ok_or_else(|| damaged("array type"))?;
                let vector = input.byte()? != 0;
                let ndims = usize::try_from(input.varint()?).map_err(|_| damaged("array"))?;
                if ndims > input.buf.len() - input.pos {
                    return Err(damaged("array dimensions"));
                }
                let mut dims = Vec::with_capacity(ndims);
                for _ in 0..ndims {
                    let len = narrow(input.int()?)?;
                    let lower = narrow(input.int()?)?;
                    dims.push(Dim { len, lower });
                }
                let items = self.row(input)?;
                Value::Array(Arc::new(Array {
                    elem,
                    dims,
                    items,
                    vector,
                }))
            }
            T_RECORD => Value::Record(Arc::from(self.row(input)?)),
            t => return Err(damaged(&format!("unknown tag {t}"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: a reproducible stream for the randomized test.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn random_text(r: &mut Rng) -> String {
        let n = r.below(12);
        (0..n)
            .map(|_| ['a', 'Z', ' ', 'é', '€', '\0', '😀'][r.below(7) as usize])
            .collect()
    }

    fn random_value(r: &mut Rng, depth: u32) -> Value {
        let int = |r: &mut Rng| r.next() as i64 >> r.below(64);
        match r.below(if depth > 2 { 18 } else { 20 }) {
            0 => Value::Null,
            1 => Value::Bool(r.below(2) == 1),
            2 => Value::Int2(int(r) as i16),
            3 => Value::Int4(int(r) as i32),
            4 => Value::Int8(int(r)),
            5 => Value::Float4(f32::from_bits(r.next() as u32)),
            6 => Value::Float8(f64::from_bits(r.next())),
            7 => Value::Numeric(
                Numeric::parse(&format!("{}.{}", int(r), r.below(100_000))).expect("numeric"),
            ),
            8 => Value::text(&random_text(r)),
            9 => Value::bytea(random_text(r).as_bytes()),
            10 => Value::Date(int(r) as i32),
            11 => Value::Timestamp(int(r)),
            12 => Value::TimestampTz(int(r)),
            13 => Value::Uuid((r.next() as u128 | (r.next() as u128) << 64).to_be_bytes()),
            14 => Value::Jsonb(Arc::from(format!("{{\"a\": {}}}", int(r)))),
            15 => Value::Interval(Interval::new(int(r) as i32, int(r) as i32, int(r))),
            16 if r.below(3) == 0 => Value::TimeTz(r.below(86_400_000_001) as i64, int(r) as i32),
            16 if r.below(2) == 0 => Value::Money(int(r)),
            16 => Value::Time(r.below(86_400_000_001) as i64),
            17 if r.below(3) == 0 => {
                use nestor_types::range::{make_range, Bound, Range, RangeKind};
                let (a, b) = (int(r), int(r));
                let (lo, hi) = (a.min(b), a.max(b));
                let bound = |v: i64, r: &mut Rng| (r.below(4) != 0).then_some(Value::Int8(v));
                let (lower, upper) = (bound(lo, r), bound(hi, r));
                let (li, ui) = (r.below(2) == 0, r.below(2) == 0);
                make_range(
                    RangeKind::Int8,
                    Bound::lower(lower, li),
                    Bound::upper(upper, ui),
                    r.below(8) == 0,
                )
                .unwrap_or_else(|_| Range::empty(RangeKind::Int8))
                .value()
            }
            17 if r.below(2) == 0 => Value::Enum(r.next() as u32),
            17 => Value::PgLsn(r.next()),
            18 => {
                let n = r.below(4) as i32;
                let elem = [
                    DataType::Int4,
                    DataType::Text,
                    DataType::Numeric(None),
                    DataType::Varchar(Some(7)),
                ][r.below(4) as usize];
                let items = (0..n).map(|_| random_value(r, depth + 1)).collect();
                Value::Array(Arc::new(Array {
                    elem,
                    dims: vec![Dim {
                        len: n,
                        lower: int(r) as i32,
                    }],
                    items,
                    vector: r.below(2) == 1,
                }))
            }
            _ => {
                let n = r.below(4);
                Value::Record((0..n).map(|_| random_value(r, depth + 1)).collect())
            }
        }
    }

    /// Equal including what `Value`'s `==` forgets (a numeric's scale, a
    /// float's NaN payload, an array's element type): the debug form.
    fn same(a: &[Value], b: &[Value]) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn random_rows_round_trip_exactly() {
        let mut r = Rng(0x9E37_79B9_7F4A_7C15);
        let mut codec = RowCodec::default();
        let mut buf = Vec::new();
        for _ in 0..20_000 {
            let n = r.below(6);
            let row: Vec<Value> = (0..n).map(|_| random_value(&mut r, 0)).collect();
            buf.clear();
            codec.put_row(&row, &mut buf);
            let back = codec.get_row(&buf).expect("decodes");
            assert!(same(&row, &back), "{row:?} came back as {back:?}");
        }
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let mut r = Rng(7);
        let mut codec = RowCodec::default();
        for _ in 0..2_000 {
            let row: Vec<Value> = (0..3).map(|_| random_value(&mut r, 0)).collect();
            let mut buf = Vec::new();
            codec.put_row(&row, &mut buf);
            let cut = r.below(buf.len() as u64) as usize;
            let _ = codec.get_row(&buf[..cut]);
            let i = r.below(buf.len() as u64) as usize;
            buf[i] = r.next() as u8;
            let _ = codec.get_row(&buf);
        }
    }
}
