//! The runtime value of one SQL datum.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

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
    /// numeric, kept as its canonical text until the numeric module lands.
    Numeric(Arc<str>),
    Text(Arc<str>),
    Bytea(Arc<[u8]>),
    /// Days since 2000-01-01 (PostgreSQL's epoch).
    Date(i32),
    /// Microseconds since 2000-01-01 00:00:00.
    Timestamp(i64),
    /// Microseconds since 2000-01-01 00:00:00 UTC.
    TimestampTz(i64),
    Uuid([u8; 16]),
    /// jsonb, kept as normalized text.
    Jsonb(Arc<str>),
}

/// A row: one value per column, shared between versions and readers.
pub type Row = Arc<[Value]>;

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
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
            Value::Null => 255,
        }
    }

    fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int2(v) => Some(*v as i64),
            Value::Int4(v) => Some(*v as i64),
            Value::Int8(v) => Some(*v),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float4(v) => Some(*v as f64),
            Value::Float8(v) => Some(*v),
            _ => None,
        }
    }
}

/// PostgreSQL float ordering: NaN equals NaN and sorts above everything.
fn cmp_f64(a: f64, b: f64) -> Ordering {
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
            (Jsonb(a), Jsonb(b)) => a.cmp(b),
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
            Value::Float4(v) => (*v as f64).to_bits().hash(state),
            Value::Float8(v) => v.to_bits().hash(state),
            Value::Bool(b) => b.hash(state),
            Value::Numeric(s) | Value::Text(s) | Value::Jsonb(s) => s.hash(state),
            Value::Bytea(b) => b.hash(state),
            Value::Date(d) => d.hash(state),
            Value::Timestamp(t) | Value::TimestampTz(t) => t.hash(state),
            Value::Uuid(u) => u.hash(state),
            Value::Null | Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => {}
        }
    }
}
