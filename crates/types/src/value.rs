//! The runtime value of one SQL datum.
//!
//! Variants map to PostgreSQL types; several SQL types share a variant
//! (text/varchar/char/name are all `Text`; oid is `Int8`), and the static
//! [`DataType`] of an expression says which one it is. `Value`'s `Ord`,
//! `Eq` and `Hash` form the *storage* order that index keys and sorting use:
//! NULL sorts last, integers of different widths compare by value, floats
//! order NaN above everything, numerics compare by value ignoring scale,
//! intervals by their 30-day-month span; values of unrelated variants order
//! by a fixed variant rank. SQL comparison semantics (NULL is unknown,
//! int vs numeric vs float by value) are [`crate::ops::compare`].

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::array::Array;
use crate::bits::BitString;
use crate::datatype::DataType;
use crate::datetime::Interval;
use crate::geometry::Geometry;
use crate::numeric::Numeric;
use crate::range::Range;

/// One datum. Variants map 1:1 to PostgreSQL types.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int2(i16),
    Int4(i32),
    Int8(i64),
    Float4(f32),
    Float8(f64),
    /// numeric, arbitrary precision, keeps its display scale.
    Numeric(Numeric),
    Text(Arc<str>),
    Bytea(Arc<[u8]>),
    /// Days since 2000-01-01 (PostgreSQL's epoch).
    Date(i32),
    /// Microseconds since 2000-01-01 00:00:00.
    Timestamp(i64),
    /// Microseconds since 2000-01-01 00:00:00 UTC.
    TimestampTz(i64),
    Uuid([u8; 16]),
    /// pg_lsn: a WAL position, printed `X/Y` (high and low 32 bits in
    /// hex); see [`crate::pg_lsn`].
    PgLsn(u64),
    /// jsonb, kept as normalized text (see [`crate::json`]).
    Jsonb(Arc<str>),
    /// interval: months, days, microseconds.
    Interval(Interval),
    /// time (without time zone): microseconds since midnight,
    /// 0..=86,400,000,000 (24:00:00 is a valid time).
    Time(i64),
    /// time with time zone: microseconds since midnight (as `Time`) and
    /// the zone's offset in seconds *west* of UTC (PostgreSQL's
    /// `TimeTzADT`: `-05` is 18000); see [`crate::timetz`].
    TimeTz(i64, i32),
    /// money: a count of cents (see [`crate::money`]).
    Money(i64),
    /// An array (see [`crate::array`]).
    Array(Arc<Array>),
    /// A record: its fields' values (the fields' names and types are the
    /// expression's `DataType::Record`).
    Record(Arc<[Value]>),
    /// A label of an enum type, by its pg_enum OID (ordered by the
    /// label's sort order, see [`crate::enums`]).
    Enum(u32),
    /// A geometric value (see [`crate::geometry`]).
    Geo(Arc<Geometry>),
    /// A range (see [`crate::range`]).
    Range(Arc<Range>),
    /// bit(n) and bit varying(n) (see [`crate::bits`]).
    Bits(Arc<BitString>),
    /// tsvector (see [`crate::tsearch::vector`]).
    TsVector(Arc<crate::tsearch::TsVector>),
    /// tsquery (see [`crate::tsearch::query`]).
    TsQuery(Arc<crate::tsearch::TsQuery>),
}

/// A row: one value per column, shared between versions and readers.
pub type Row = Arc<[Value]>;

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn text(s: &str) -> Value {
        Value::Text(Arc::from(s))
    }

    pub fn bytea(b: &[u8]) -> Value {
        Value::Bytea(Arc::from(b))
    }

    /// Bytes the value takes in memory: itself plus what it points to (an
    /// `Arc`'s two counters included; shared data is counted by each
    /// holder, so this errs high). For memory accounting.
    pub fn size_bytes(&self) -> usize {
        const ARC: usize = 2 * std::mem::size_of::<usize>();
        std::mem::size_of::<Value>()
            + match self {
                Value::Text(s) | Value::Jsonb(s) => ARC + s.len(),
                Value::Bytea(b) => ARC + b.len(),
                Value::Bits(b) => ARC + std::mem::size_of::<BitString>() + b.bytes().len(),
                Value::TsVector(v) => ARC + v.pg_size() + 16 * v.entries.len(),
                Value::TsQuery(q) => ARC + q.to_binary().len() + 32 * q.size(),
                Value::Numeric(n) => n.heap_bytes(),
                Value::Geo(g) => ARC + std::mem::size_of::<Geometry>() + 8 * g.floats().len(),
                Value::Range(r) => {
                    ARC + std::mem::size_of::<Range>()
                        + r.bound_values().map(Value::size_bytes).sum::<usize>()
                }
                Value::Record(f) => ARC + f.iter().map(Value::size_bytes).sum::<usize>(),
                Value::Array(a) => {
                    ARC + std::mem::size_of::<Array>()
                        + a.dims.len() * std::mem::size_of::<crate::array::Dim>()
                        + a.items.iter().map(Value::size_bytes).sum::<usize>()
                }
                _ => 0,
            }
    }

    /// [`Value::size_bytes`] of a row of values.
    pub fn row_bytes(row: &[Value]) -> usize {
        row.iter().map(Value::size_bytes).sum()
    }

    /// The natural type of a value (Unknown for NULL, Text for text).
    pub fn data_type(&self) -> DataType {
        match self {
            Value::Null => DataType::Unknown,
            Value::Bool(_) => DataType::Bool,
            Value::Int2(_) => DataType::Int2,
            Value::Int4(_) => DataType::Int4,
            Value::Int8(_) => DataType::Int8,
            Value::Float4(_) => DataType::Float4,
            Value::Float8(_) => DataType::Float8,
            Value::Numeric(_) => DataType::Numeric(None),
            Value::Text(_) => DataType::Text,
            Value::Bytea(_) => DataType::Bytea,
            Value::Date(_) => DataType::Date,
            Value::Timestamp(_) => DataType::Timestamp(None),
            Value::TimestampTz(_) => DataType::TimestampTz(None),
            Value::Uuid(_) => DataType::Uuid,
            Value::PgLsn(_) => DataType::PgLsn,
            Value::Jsonb(_) => DataType::Jsonb,
            Value::Interval(_) => DataType::Interval(None),
            Value::Time(_) => DataType::Time(None),
            Value::TimeTz(..) => DataType::TimeTz(None),
            Value::Money(_) => DataType::Money,
            Value::Array(a) => a.data_type(),
            Value::Enum(l) => {
                crate::enums::label_type(*l).map_or(DataType::Unknown, DataType::Enum)
            }
            Value::Geo(g) => DataType::Geo(g.kind()),
            Value::Range(r) => DataType::Range(r.kind),
            Value::Bits(_) => DataType::Bit(None),
            Value::TsVector(_) => DataType::TsVector,
            Value::TsQuery(_) => DataType::TsQuery,
            Value::Record(f) => DataType::Record(crate::datatype::record_type(
                f.iter()
                    .enumerate()
                    .map(|(i, v)| (format!("f{}", i + 1), v.data_type()))
                    .collect(),
            )),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Bool(_) => 0,
            Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => 1,
            Value::Float4(_) | Value::Float8(_) => 2,
            Value::Numeric(_) => 3,
            Value::Text(_) => 4,
            Value::Bytea(_) => 5,
            Value::Date(_) => 6,
            Value::Timestamp(_) => 7,
            Value::TimestampTz(_) => 8,
            Value::Uuid(_) => 9,
            Value::Jsonb(_) => 10,
            Value::Interval(_) => 11,
            Value::Array(_) => 12,
            Value::Record(_) => 13,
            Value::Time(_) => 14,
            Value::Enum(_) => 15,
            Value::PgLsn(_) => 17,
            Value::Geo(_) => 16,
            Value::Range(_) => 30,
            Value::TimeTz(..) => 18,
            Value::Money(_) => 19,
            Value::Bits(_) => 20,
            Value::TsVector(_) => 21,
            Value::TsQuery(_) => 22,
            Value::Null => 255,
        }
    }

    /// The integer value of Int2/Int4/Int8.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int2(v) => Some(*v as i64),
            Value::Int4(v) => Some(*v as i64),
            Value::Int8(v) => Some(*v),
            _ => None,
        }
    }

    /// The value of Float4/Float8.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float4(v) => Some(*v as f64),
            Value::Float8(v) => Some(*v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) | Value::Jsonb(s) => Some(s),
            _ => None,
        }
    }
}

/// PostgreSQL float ordering: NaN equals NaN and sorts above everything.
pub(crate) fn cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Total order used by indexes and sorting: NULL sorts last; integers of
/// different widths compare by value.
impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        use Value::*;
        if let (Some(a), Some(b)) = (self.as_i64(), other.as_i64()) {
            return a.cmp(&b);
        }
        if let (Some(a), Some(b)) = (self.as_f64(), other.as_f64()) {
            return cmp_f64(a, b);
        }
        match (self, other) {
            (Null, Null) => Ordering::Equal,
            (Bool(a), Bool(b)) => a.cmp(b),
            (Numeric(a), Numeric(b)) => a.cmp(b),
            (Text(a), Text(b)) => a.cmp(b),
            (Bytea(a), Bytea(b)) => a.cmp(b),
            (Date(a), Date(b)) => a.cmp(b),
            (Timestamp(a), Timestamp(b)) => a.cmp(b),
            (TimestampTz(a), TimestampTz(b)) => a.cmp(b),
            (Uuid(a), Uuid(b)) => a.cmp(b),
            (PgLsn(a), PgLsn(b)) => a.cmp(b),
            (Jsonb(a), Jsonb(b)) => crate::jsonb_order::compare(a, b),
            (Interval(a), Interval(b)) => a.cmp(b),
            (Time(a), Time(b)) => a.cmp(b),
            (TimeTz(ta, za), TimeTz(tb, zb)) => crate::timetz::cmp(*ta, *za, *tb, *zb),
            (Money(a), Money(b)) => a.cmp(b),
            (Bits(a), Bits(b)) => a.cmp(b),
            (TsVector(a), TsVector(b)) => crate::tsearch::vector::compare(a, b),
            (TsQuery(a), TsQuery(b)) => crate::tsearch::query::compare(a, b),
            (Array(a), Array(b)) => a.cmp(b),
            (Record(a), Record(b)) => a.cmp(b),
            (Geo(a), Geo(b)) => cmp_geo(a, b),
            (Range(a), Range(b)) => a.cmp(b),
            (Enum(a), Enum(b)) if a == b => Ordering::Equal,
            (Enum(a), Enum(b)) => crate::enums::rank(*a)
                .cmp(&crate::enums::rank(*b))
                .then(a.cmp(b)),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        if let Some(i) = self.as_i64() {
            1u8.hash(state);
            i.hash(state);
            return;
        }
        self.rank().hash(state);
        match self {
            Value::Float4(v) => hash_float(*v as f64, state),
            Value::Float8(v) => hash_float(*v, state),
            Value::Bool(b) => b.hash(state),
            Value::Numeric(n) => n.hash(state),
            Value::Text(s) => s.hash(state),
            Value::Jsonb(s) => crate::jsonb_order::sort_key(s).hash(state),
            Value::Bytea(b) => b.hash(state),
            Value::Bits(b) => b.hash(state),
            Value::TsVector(v) => v.hash(state),
            // Equal queries (CompareTSQ) may differ in weights and prefix
            // flags: hash what the comparison looks at.
            Value::TsQuery(q) => {
                q.size().hash(state);
                for o in q.operands() {
                    o.word.hash(state);
                }
            }
            Value::Date(d) => d.hash(state),
            Value::Timestamp(t) | Value::TimestampTz(t) | Value::Time(t) | Value::Money(t) => {
                t.hash(state)
            }
            Value::TimeTz(t, z) => {
                t.hash(state);
                z.hash(state);
            }
            Value::Uuid(u) => u.hash(state),
            Value::PgLsn(l) => l.hash(state),
            Value::Interval(i) => i.hash(state),
            Value::Array(a) => a.hash(state),
            Value::Record(f) => f.hash(state),
            Value::Enum(l) => l.hash(state),
            Value::Geo(g) => {
                g.kind().hash(state);
                g.closed().hash(state);
                for f in g.floats() {
                    hash_float(f, state);
                }
            }
            Value::Range(r) => r.hash(state),
            Value::Null | Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => {}
        }
    }
}

/// The storage order of geometric values (no SQL meaning: these types
/// have no B-tree ordering): by type, then coordinate by coordinate.
fn cmp_geo(a: &Geometry, b: &Geometry) -> Ordering {
    a.kind()
        .cmp(&b.kind())
        .then(a.closed().cmp(&b.closed()))
        .then_with(|| {
            let (fa, fb) = (a.floats(), b.floats());
            for (x, y) in fa.iter().zip(&fb) {
                match cmp_f64(*x, *y) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            fa.len().cmp(&fb.len())
        })
}

/// Hash consistent with `cmp_f64`: all NaNs alike, -0 like +0.
fn hash_float<H: Hasher>(v: f64, state: &mut H) {
    let canon = if v.is_nan() {
        f64::NAN.to_bits()
    } else if v == 0.0 {
        0
    } else {
        v.to_bits()
    };
    canon.hash(state);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn h(v: &Value) -> u64 {
        let mut s = DefaultHasher::new();
        v.hash(&mut s);
        s.finish()
    }

    #[test]
    fn storage_order_and_hash_agree() {
        let n = |s| Value::Numeric(Numeric::parse(s).unwrap());
        let pairs = [
            (Value::Int2(5), Value::Int8(5)),
            (Value::Float8(0.0), Value::Float8(-0.0)),
            (Value::Float8(f64::NAN), Value::Float4(f32::NAN)),
            (n("1.50"), n("1.5")),
            (
                Value::Interval(Interval::new(1, 0, 0)),
                Value::Interval(Interval::new(0, 30, 0)),
            ),
        ];
        for (a, b) in pairs {
            assert_eq!(a, b);
            assert_eq!(h(&a), h(&b), "{a:?} {b:?}");
        }
        let mut v = vec![Value::Null, Value::Int4(3), Value::Int2(-1), Value::Int8(2)];
        v.sort();
        assert_eq!(
            v,
            vec![Value::Int2(-1), Value::Int8(2), Value::Int4(3), Value::Null]
        );
        assert!(Value::Float8(f64::NAN) > Value::Float8(f64::INFINITY));
        assert_eq!(std::mem::size_of::<Value>(), 24);
        // What every evaluation returns: a value's size, not the error's.
        assert!(std::mem::size_of::<Result<Value, nestor_common::DbError>>() <= 32);
    }
}
