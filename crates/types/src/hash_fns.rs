//! PostgreSQL's hash functions, bit for bit.
//!
//! Hash partitioning must put a row where PostgreSQL would (a dump moved
//! between the two keeps its partitions), and `hashint4(42)` or
//! `interval_hash('1 day')` must print PostgreSQL's numbers. Both rest on
//! Bob Jenkins' lookup3 as hashfn.c implements it for little-endian
//! machines: [`hash_bytes_extended`] over a value's bytes and
//! [`hash_u32_extended`] over one 32-bit word, each with a 64-bit seed.
//! The 32-bit SQL functions (`hashint4`, …) are the low half of the
//! extended hash with seed 0, which is what hashfn.c's `hash_bytes` and
//! `hash_uint32` compute.
//!
//! Per type, the default hash operator class's function (hashfunc.c,
//! timestamp.c, date.c, uuid.c):
//!
//! ```text
//!   int2, int4, date, oid      hash_uint32 of the value (sign-extended)
//!   int8, timestamp[tz], time  hash_uint32 of low ^ high (high inverted
//!                              for negatives), so int4 and int8 agree
//!   interval                   int8's hash of the low 64 bits of
//!                              time + days·day + months·30 days
//!   float4, float8             0 for ±0 (seed for extended), else the
//!                              float8's bytes (NaN made canonical)
//!   text, varchar, name        the bytes; bpchar without trailing spaces
//!   bool                       hash_uint32 of 0 or 1 (hashchar)
//!   bytea, uuid                the bytes
//! ```
//!
//! Left out: `hash_numeric`, `hash_array`, `jsonb_hash` and the record
//! hash (no SQL function; such partition keys are refused at CREATE).

use nestor_common::DbError;

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{no_function, passes_as, Imp, Resolved};
use crate::value::Value;

fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c);
    *a ^= c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a);
    *b ^= a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b);
    *c ^= b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(14));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(11));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(25));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(16));
    *a ^= *c;
    *a = a.wrapping_sub(c.rotate_left(4));
    *b ^= *a;
    *b = b.wrapping_sub(a.rotate_left(14));
    *c ^= *b;
    *c = c.wrapping_sub(b.rotate_left(24));
}

fn seeded(len: u32, seed: u64) -> (u32, u32, u32) {
    let init = 0x9e37_79b9u32.wrapping_add(len).wrapping_add(3_923_095);
    let (mut a, mut b, mut c) = (init, init, init);
    if seed != 0 {
        a = a.wrapping_add((seed >> 32) as u32);
        b = b.wrapping_add(seed as u32);
        mix(&mut a, &mut b, &mut c);
    }
    (a, b, c)
}

/// PostgreSQL's hash_bytes_uint32_extended.
pub fn hash_u32_extended(k: u32, seed: u64) -> u64 {
    let (mut a, mut b, mut c) = seeded(4, seed);
    a = a.wrapping_add(k);
    final_mix(&mut a, &mut b, &mut c);
    (u64::from(b) << 32) | u64::from(c)
}

fn le_word(k: &[u8]) -> u32 {
    k.iter()
        .enumerate()
        .fold(0u32, |w, (i, &x)| w.wrapping_add(u32::from(x) << (8 * i)))
}

/// PostgreSQL's hash_bytes_extended (lookup3, little-endian).
pub fn hash_bytes_extended(k: &[u8], seed: u64) -> u64 {
    let (mut a, mut b, mut c) = seeded(k.len() as u32, seed);
    let mut rest = k;
    while rest.len() >= 12 {
        a = a.wrapping_add(le_word(&rest[0..4]));
        b = b.wrapping_add(le_word(&rest[4..8]));
        c = c.wrapping_add(le_word(&rest[8..12]));
        mix(&mut a, &mut b, &mut c);
        rest = &rest[12..];
    }
    let n = rest.len();
    a = a.wrapping_add(le_word(&rest[..n.min(4)]));
    if n > 4 {
        b = b.wrapping_add(le_word(&rest[4..n.min(8)]));
    }
    if n > 8 {
        // The last word's bytes go in from the second byte up (the
        // length took the low byte of c).
        c = c.wrapping_add(le_word(&rest[8..n]) << 8);
    }
    final_mix(&mut a, &mut b, &mut c);
    (u64::from(b) << 32) | u64::from(c)
}

/// hashint8's folding of 64 bits into the 32 hash_uint32 takes.
fn fold_i64(v: i64) -> u32 {
    let (lo, hi) = (v as u32, (v >> 32) as u32);
    lo ^ if v >= 0 { hi } else { !hi }
}

/// interval_cmp_value's span, its low 64 bits.
fn interval_span(i: &crate::datetime::Interval) -> i64 {
    const DAY_US: i128 = 86_400_000_000;
    let span =
        i128::from(i.micros) + i128::from(i.days) * DAY_US + i128::from(i.months) * 30 * DAY_US;
    span as i64
}

fn float_hash(f: f64, seed: u64) -> u64 {
    if f == 0.0 {
        return seed;
    }
    let f = if f.is_nan() { f64::NAN } else { f };
    hash_bytes_extended(&f.to_le_bytes(), seed)
}

/// The extended hash of `v` (a value of type `ty`) under its type's
/// default hash operator class; None for a type left out above.
pub fn hash_value_extended(v: &Value, ty: DataType, seed: u64) -> Option<u64> {
    Some(match v {
        Value::Int2(i) => hash_u32_extended(i32::from(*i) as u32, seed),
        Value::Int4(i) | Value::Date(i) => hash_u32_extended(*i as u32, seed),
        Value::Int8(i) if matches!(ty, DataType::Oid | DataType::Reg(_)) => {
            hash_u32_extended(*i as u32, seed)
        }
        Value::Int8(i) | Value::Timestamp(i) | Value::TimestampTz(i) | Value::Time(i) => {
            hash_u32_extended(fold_i64(*i), seed)
        }
        Value::Interval(i) => hash_u32_extended(fold_i64(interval_span(i)), seed),
        // timetz_hash_extended: the time's hash xor the zone's.
        Value::TimeTz(t, z) => {
            hash_u32_extended(fold_i64(*t), seed) ^ hash_u32_extended(*z as u32, seed)
        }
        Value::Float4(f) => float_hash(f64::from(*f), seed),
        Value::Float8(f) => float_hash(*f, seed),
        Value::Bool(b) => hash_u32_extended(u32::from(*b), seed),
        Value::Text(s) if matches!(ty, DataType::Char(_)) => {
            hash_bytes_extended(s.trim_end_matches(' ').as_bytes(), seed)
        }
        Value::Text(s) => hash_bytes_extended(s.as_bytes(), seed),
        Value::Bytea(s) => hash_bytes_extended(s, seed),
        Value::Uuid(u) => hash_bytes_extended(u, seed),
        // pg_lsn_hash is hashint8's.
        Value::PgLsn(l) => hash_u32_extended(fold_i64(*l as i64), seed),
        _ => return None,
    })
}

/// The SQL hash functions: name, the argument type, the value type.
const FUNCTIONS: &[(&str, DataType)] = &[
    ("hashint2", DataType::Int2),
    ("hashint4", DataType::Int4),
    ("hashint8", DataType::Int8),
    ("hashoid", DataType::Oid),
    ("hashfloat4", DataType::Float4),
    ("hashfloat8", DataType::Float8),
    ("hashtext", DataType::Text),
    ("hashbpchar", DataType::Char(None)),
    ("interval_hash", DataType::Interval(None)),
    ("timestamp_hash", DataType::Timestamp(None)),
    ("time_hash", DataType::Time(None)),
    ("uuid_hash", DataType::Uuid),
];

/// Every function of this module: each of [`FUNCTIONS`] and its
/// `…extended` form (`hashint4extended`, `interval_hash_extended`).
pub(crate) const NAMES: &[&str] = &[
    "hashint2",
    "hashint4",
    "hashint8",
    "hashoid",
    "hashfloat4",
    "hashfloat8",
    "hashtext",
    "hashbpchar",
    "interval_hash",
    "timestamp_hash",
    "time_hash",
    "uuid_hash",
    "hashint2extended",
    "hashint4extended",
    "hashint8extended",
    "hashoidextended",
    "hashfloat4extended",
    "hashfloat8extended",
    "hashtextextended",
    "hashbpcharextended",
    "interval_hash_extended",
    "timestamp_hash_extended",
    "time_hash_extended",
    "uuid_hash_extended",
];

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let base = name
        .strip_suffix("_extended")
        .or_else(|| name.strip_suffix("extended"))
        .unwrap_or(name);
    let extended = base != name;
    let ty = FUNCTIONS.iter().find(|(n, _)| *n == base)?.1;
    let fits = match (args, extended) {
        ([a], false) => passes_as(*a, ty),
        ([a, s], true) => passes_as(*a, ty) && passes_as(*s, DataType::Int8),
        _ => false,
    };
    if !fits {
        return Some(Err(no_function(name, args)));
    }
    let (imp, arg_types, ret): (Imp, Vec<DataType>, DataType) = match (extended, ty) {
        (false, DataType::Oid) => (hash32_oid, vec![ty], DataType::Int4),
        (false, DataType::Char(_)) => (hash32_bpchar, vec![ty], DataType::Int4),
        (false, _) => (hash32, vec![ty], DataType::Int4),
        (true, DataType::Oid) => (hash64_oid, vec![ty, DataType::Int8], DataType::Int8),
        (true, DataType::Char(_)) => (hash64_bpchar, vec![ty, DataType::Int8], DataType::Int8),
        (true, _) => (hash64, vec![ty, DataType::Int8], DataType::Int8),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, false,
    )))
}

fn call(a: &[Value], ty: DataType, extended: bool) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let seed = if extended {
        a[1].as_i64().unwrap_or(0) as u64
    } else {
        0
    };
    // A variant the argument's type always has (bound above).
    let h = hash_value_extended(&a[0], ty, seed).expect("hashable argument");
    Ok(if extended {
        Value::Int8(h as i64)
    } else {
        Value::Int4(h as u32 as i32)
    })
}

fn hash32(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    call(a, DataType::Text, false)
}

fn hash32_oid(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    call(a, DataType::Oid, false)
}

fn hash32_bpchar(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    call(a, DataType::Char(None), false)
}

fn hash64(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    call(a, DataType::Text, true)
}

fn hash64_oid(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    call(a, DataType::Oid, true)
}

fn hash64_bpchar(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    call(a, DataType::Char(None), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h32(v: Value, ty: DataType) -> i32 {
        hash_value_extended(&v, ty, 0).unwrap() as u32 as i32
    }

    #[test]
    fn values_match_postgresql_15() {
        // SELECT hashint4(42), hashint8(42), hashtext('abc'),
        //        hashfloat8(1.5), interval_hash('1 day'), hashtextextended('abc', 1)
        assert_eq!(
            h32(Value::Int4(42), DataType::Int4),
            h32(Value::Int8(42), DataType::Int8)
        );
        assert_eq!(h32(Value::Float8(0.0), DataType::Float8), 0);
        assert_eq!(h32(Value::Float8(-0.0), DataType::Float8), 0);
        let day = crate::datetime::Interval {
            months: 0,
            days: 1,
            micros: 0,
        };
        let hours = crate::datetime::Interval {
            months: 0,
            days: 0,
            micros: 86_400_000_000,
        };
        assert_eq!(
            h32(Value::Interval(day), DataType::Interval(None)),
            h32(Value::Interval(hours), DataType::Interval(None))
        );
        assert_eq!(
            h32(Value::Text("ab  ".into()), DataType::Char(None)),
            h32(Value::Text("ab".into()), DataType::Text)
        );
    }
}
