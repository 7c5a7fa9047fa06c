//! Casts, typmod coercion and type resolution.
//!
//! [`cast_from`] converts a value from one SQL type to another with
//! PostgreSQL's semantics: integer narrowing checks range (`smallint out of
//! range`), float to integer rounds to nearest-even (`rint`), numeric to
//! integer rounds half away from zero, text to anything goes through the
//! input function and anything to text through the output function (bool
//! prints `true`/`false` there), `char(n)` loses its trailing blanks when it
//! becomes text, and typmods are applied last ([`apply_typmod`]: numeric
//! rounding with `numeric field overflow`; `varchar(n)`/`char(n)` truncate
//! on explicit casts and fail with 22001 otherwise unless the excess is
//! blanks). [`cast`] is the same with the value's natural type as source.
//!
//! The planner side: [`coercion`] tells whether a cast exists and in which
//! context PostgreSQL applies it automatically (implicit / assignment /
//! explicit only), and [`common_supertype`] resolves the type of UNION,
//! CASE, COALESCE, IN lists and mixed comparisons: unknown literals take the
//! other side's type; numbers widen along int2 < int4 < int8 < numeric <
//! real < double precision; strings resolve to text; date < timestamp <
//! timestamptz.
//!
//! PostgreSQL reports an impossible cast as 42846 (cannot_coerce), which
//! `SqlState` lacks; we use 42804 (datatype_mismatch) with PG's message.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::array::Array;
use crate::bits;
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::datetime::{self, USECS_PER_SEC};
use crate::numeric::Numeric;
use crate::text::parse_text;
use crate::value::Value;

/// When a cast is applied without being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Coercion {
    /// Anywhere, e.g. `int4 + int8` (int4 → int8).
    Implicit,
    /// On INSERT/UPDATE into a column, e.g. `numeric` → `int4`.
    Assignment,
    /// Only with `CAST`/`::`.
    Explicit,
}

fn out_of_range(ty: DataType) -> DbError {
    let name = match ty {
        DataType::Int2 => "smallint",
        DataType::Int4 => "integer",
        DataType::Oid => "OID",
        _ => "bigint",
    };
    DbError::new(
        SqlState::NumericValueOutOfRange,
        format!("{name} out of range"),
    )
}

pub(crate) fn cannot_cast(from: DataType, to: DataType) -> DbError {
    DbError::new(
        SqlState::CannotCoerce,
        format!("cannot cast type {} to {}", from.name(), to.name()),
    )
}

/// Integer in the range of `ty` (Int2/Int4/Int8/Oid) as a Value.
pub(crate) fn int_value(v: i128, ty: DataType) -> Result<Value, DbError> {
    let err = || out_of_range(ty);
    Ok(match ty {
        DataType::Int2 => Value::Int2(i16::try_from(v).map_err(|_| err())?),
        DataType::Int4 => Value::Int4(i32::try_from(v).map_err(|_| err())?),
        DataType::Oid => {
            if !(0..=u32::MAX as i128).contains(&v) {
                return Err(err());
            }
            Value::Int8(v as i64)
        }
        _ => Value::Int8(i64::try_from(v).map_err(|_| err())?),
    })
}

/// Cast using the value's natural type as the source type.
pub fn cast(v: &Value, to: DataType, explicit: bool, ctx: &EvalCtx) -> Result<Value, DbError> {
    cast_from(v, v.data_type(), to, explicit, ctx)
}

/// Cast `v`, whose static type is `from`, to `to`.
pub(crate) fn cast_from(
    v: &Value,
    from: DataType,
    to: DataType,
    explicit: bool,
    ctx: &EvalCtx,
) -> Result<Value, DbError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    if from == to {
        // Same type and modifier: the value already conforms (COPY and
        // INSERT cast every value to its column's type).
        return Ok(v.clone());
    }
    // Text search configurations and dictionaries are named without the
    // catalog (regconfig and regdictionary input).
    if let (
        Value::Text(s),
        DataType::Reg(crate::datatype::RegKind::Config | crate::datatype::RegKind::Dictionary),
    ) = (v, to)
    {
        if from.is_string() || from == DataType::Unknown {
            return crate::text::parse_text(to, s, ctx);
        }
    }
    // A reg* type is an oid to the value layer (names are the executor's).
    let (from, to) = match (from, to) {
        (DataType::Reg(_), t) => (DataType::Oid, t),
        (f, DataType::Reg(_)) => (f, DataType::Oid),
        p => p,
    };
    let converted = convert(v, from, to, ctx)?;
    apply_typmod(converted, to, explicit)
}

fn convert(v: &Value, from: DataType, to: DataType, ctx: &EvalCtx) -> Result<Value, DbError> {
    if to.is_string() {
        if let Value::Text(s) = v {
            if !matches!(from, DataType::Char(_)) {
                return Ok(Value::Text(s.clone())); // apply_typmod fits it
            }
        }
        return Ok(Value::Text(Arc::from(
            to_string_value(v, from, ctx).as_str(),
        )));
    }
    if let Value::Text(s) = v {
        let s: &str = if matches!(from, DataType::Char(_)) {
            s.trim_end_matches(' ')
        } else {
            s
        };
        // An interval's field restriction changes how its text reads
        // (`'2'::interval hour`); other typmods apply afterwards.
        let target = match to {
            DataType::Interval(_) => to,
            t => t.base(),
        };
        return parse_text(target, s, ctx);
    }
    let bad = || cannot_cast(from, to);
    match (v, to) {
        (Value::Int4(i), DataType::Bit(n)) => {
            Ok(bits::from_int(i64::from(*i), 32, bit_len(n)).value())
        }
        (Value::Int8(i), DataType::Bit(n)) => Ok(bits::from_int(*i, 64, bit_len(n)).value()),
        (Value::Bits(b), DataType::Int4 | DataType::Int8) => bits::to_int(b, to),
        (Value::Bits(_), DataType::Bit(_) | DataType::VarBit(_)) => Ok(v.clone()),
        (Value::Int2(_) | Value::Int4(_) | Value::Int8(_), _) => {
            let i = v.as_i64().unwrap_or(0);
            from_int(i, from, to).ok_or_else(bad)?
        }
        (Value::Float4(f), _) => from_float(*f as f64, true, to).ok_or_else(bad)?,
        (Value::Float8(f), _) => from_float(*f, false, to).ok_or_else(bad)?,
        (Value::Numeric(n), _) => from_numeric(n, to).ok_or_else(bad)?,
        (Value::Bool(b), DataType::Int4) => Ok(Value::Int4(*b as i32)),
        (Value::Bool(b), DataType::Bool) => Ok(Value::Bool(*b)),
        (Value::Date(_) | Value::Timestamp(_) | Value::TimestampTz(_), _) => {
            from_datetime(v, to, ctx).ok_or_else(bad)?
        }
        (Value::Bytea(_), DataType::Bytea)
        | (Value::Uuid(_), DataType::Uuid)
        | (Value::PgLsn(_), DataType::PgLsn)
        | (Value::Jsonb(_), DataType::Jsonb)
        | (Value::Interval(_), DataType::Interval(_))
        | (Value::Time(_), DataType::Time(_)) => Ok(v.clone()),
        (Value::Time(t), DataType::Interval(_)) => {
            Ok(Value::Interval(crate::datetime::Interval::new(0, 0, *t)))
        }
        (Value::Interval(iv), DataType::Time(_)) => Ok(Value::Time(crate::time::from_interval(iv))),
        (Value::TimeTz(..), DataType::TimeTz(_)) | (Value::Money(_), DataType::Money) => {
            Ok(v.clone())
        }
        (Value::TimeTz(t, _), DataType::Time(_)) => Ok(Value::Time(*t)),
        (Value::Time(t), DataType::TimeTz(_)) => Ok(crate::timetz::from_time(*t, ctx)),
        (Value::Money(c), DataType::Numeric(_)) => Ok(Value::Numeric(crate::money::to_numeric(*c))),
        (Value::Jsonb(s), DataType::Json) => Ok(Value::Text(s.clone())),
        (Value::Jsonb(s), _) if jsonb_scalar_target(to) => jsonb_scalar(s, to),
        (Value::Geo(g), DataType::Geo(k)) if g.kind() == k => Ok(v.clone()),
        (Value::Range(r), DataType::Range(k)) if r.kind == k => Ok(v.clone()),
        (Value::Geo(g), DataType::Geo(k))
            if crate::geometry::catalog::cast_function(g.kind(), k).is_some() =>
        {
            crate::geometry::catalog::cast(v, g.kind(), k)
        }
        (Value::Record(_), DataType::Record(rt)) if rt.oid == 0 => Ok(v.clone()),
        (Value::Record(f), DataType::Record(rt)) => record_to_record(f, from, to, rt, ctx),
        // Element by element to the element type without its modifier;
        // apply_typmod then fits each element (explicitly or not).
        (Value::Array(a), DataType::Array(e)) => {
            let e = e.without_typmod();
            let mut items = Vec::with_capacity(a.items.len());
            for item in &a.items {
                items.push(cast_from(item, a.elem, e, true, ctx)?);
            }
            Ok(Array::new(e, a.dims.clone(), items)?.value())
        }
        _ => Err(bad()),
    }
}

/// The length `int::bit(n)` makes: `n`, or 1 without one (bitfromint4
/// with typmod -1).
fn bit_len(n: Option<u32>) -> usize {
    n.map_or(1, |n| n as usize)
}

/// The types a jsonb scalar casts to (PostgreSQL 11's jsonb_bool,
/// jsonb_numeric, jsonb_int2/4/8, jsonb_float4/8).
fn jsonb_scalar_target(to: DataType) -> bool {
    matches!(
        to,
        DataType::Bool
            | DataType::Numeric(_)
            | DataType::Int2
            | DataType::Int4
            | DataType::Int8
            | DataType::Float4
            | DataType::Float8
    )
}

/// A jsonb boolean or number as `to` (a number through numeric, as
/// PostgreSQL does); another kind of value is 22023 naming it.
fn jsonb_scalar(doc: &str, to: DataType) -> Result<Value, DbError> {
    use crate::json::Json;
    let v = crate::json::parse(doc)?;
    match (&v, to) {
        (Json::Bool(b), DataType::Bool) => return Ok(Value::Bool(*b)),
        (Json::Num(n), t) if t != DataType::Bool => {
            if let Some(r) = from_numeric(n, to) {
                return r;
            }
        }
        _ => {}
    }
    let kind = match v {
        Json::Null => "null",
        Json::Str(_) => "string",
        Json::Num(_) => "numeric",
        Json::Bool(_) => "boolean",
        Json::Arr(_) => "array",
        Json::Obj(_) => "object",
    };
    Err(DbError::new(
        SqlState::InvalidParameterValue,
        format!("cannot cast jsonb {kind} to type {}", to.name()),
    ))
}

/// A record's fields cast to those of composite type `rt`
/// (coerce_record_to_complex): the counts must match (42846 with
/// PostgreSQL's DETAIL otherwise).
fn record_to_record(
    fields: &[Value],
    from: DataType,
    to: DataType,
    rt: &crate::datatype::RecordType,
    ctx: &EvalCtx,
) -> Result<Value, DbError> {
    let live = rt.fields.len();
    if fields.len() != live {
        let detail = if fields.len() > live {
            "Input has too many columns."
        } else {
            "Input has too few columns."
        };
        return Err(cannot_cast(from, to).with_detail(detail));
    }
    let src: Option<&crate::datatype::RecordType> = match from {
        DataType::Record(s) if s.fields.len() == live => Some(s),
        _ => None,
    };
    let mut out = Vec::with_capacity(live);
    for (i, (v, (_, ty))) in fields.iter().zip(&rt.fields).enumerate() {
        let f = src.map_or_else(|| v.data_type(), |s| s.fields[i].1);
        out.push(cast_from(v, f, *ty, true, ctx)?);
    }
    Ok(Value::Record(Arc::from(out)))
}

/// Text form of a value for a cast to a string type.
fn to_string_value(v: &Value, from: DataType, ctx: &EvalCtx) -> String {
    match v {
        Value::Bool(b) => if *b { "true" } else { "false" }.into(),
        Value::Text(s) if matches!(from, DataType::Char(_)) => s.trim_end_matches(' ').into(),
        _ => v.to_text(ctx),
    }
}

fn from_int(i: i64, from: DataType, to: DataType) -> Option<Result<Value, DbError>> {
    Some(match to {
        DataType::Int2 | DataType::Int4 | DataType::Int8 => int_value(i as i128, to),
        DataType::Oid if from == DataType::Int4 || from == DataType::Int2 => {
            Ok(Value::Int8(if i < 0 { i + (1i64 << 32) } else { i }))
        }
        DataType::Oid => int_value(i as i128, to),
        DataType::Float4 => Ok(Value::Float4(i as f32)),
        DataType::Float8 => Ok(Value::Float8(i as f64)),
        DataType::Numeric(_) => Ok(Value::Numeric(Numeric::from_i64(i))),
        DataType::Bool if from == DataType::Int4 => Ok(Value::Bool(i != 0)),
        DataType::Money if matches!(from, DataType::Int4 | DataType::Int8) => {
            crate::money::from_int(i)
        }
        _ => return None,
    })
}

fn from_float(f: f64, is_f4: bool, to: DataType) -> Option<Result<Value, DbError>> {
    Some(match to {
        DataType::Int2 | DataType::Int4 | DataType::Int8 => {
            let r = f.round_ties_even();
            // i128 `as` saturates; NaN maps to 0, so check it first.
            if f.is_nan() || r.abs() > 1e19 {
                Err(out_of_range(to))
            } else {
                int_value(r as i128, to)
            }
        }
        DataType::Float8 => Ok(Value::Float8(f)),
        DataType::Float4 => f64_to_f32(f).map(Value::Float4),
        DataType::Numeric(_) => Ok(Value::Numeric(Numeric::from_f64(
            f,
            if is_f4 { 6 } else { 15 },
        ))),
        _ => return None,
    })
}

/// float8 → float4 with PostgreSQL's overflow/underflow checks.
pub(crate) fn f64_to_f32(f: f64) -> Result<f32, DbError> {
    let r = f as f32;
    if r.is_infinite() && f.is_finite() {
        return Err(DbError::new(
            SqlState::NumericValueOutOfRange,
            "value out of range: overflow",
        ));
    }
    if r == 0.0 && f != 0.0 {
        return Err(DbError::new(
            SqlState::NumericValueOutOfRange,
            "value out of range: underflow",
        ));
    }
    Ok(r)
}

fn from_numeric(n: &Numeric, to: DataType) -> Option<Result<Value, DbError>> {
    Some(match to {
        DataType::Money => crate::money::from_numeric(n),
        DataType::Int2 | DataType::Int4 | DataType::Int8 | DataType::Oid => {
            // PostgreSQL names the target: numeric_int2/int4/int8.
            let target = match to {
                DataType::Int2 => "smallint",
                DataType::Int8 => "bigint",
                _ => "integer",
            };
            if n.is_nan() {
                Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    format!("cannot convert NaN to {target}"),
                ))
            } else if !n.is_finite() {
                Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    format!("cannot convert infinity to {target}"),
                ))
            } else {
                match n.to_i64_rounded() {
                    Some(i) => int_value(i as i128, to),
                    None => Err(out_of_range(to)),
                }
            }
        }
        DataType::Float8 => {
            let f = n.to_f64();
            if f.is_infinite() && n.is_finite() {
                Err(DbError::new(
                    SqlState::NumericValueOutOfRange,
                    "value out of range: overflow",
                ))
            } else {
                Ok(Value::Float8(f))
            }
        }
        // PostgreSQL's numeric_float4 goes through float4in of the text.
        DataType::Float4 => f64_to_f32(n.to_f64()).map(Value::Float4).map_err(|_| {
            DbError::new(
                SqlState::NumericValueOutOfRange,
                format!("\"{n}\" is out of range for type real"),
            )
        }),
        DataType::Numeric(_) => Ok(Value::Numeric(n.clone())),
        _ => return None,
    })
}

fn from_datetime(v: &Value, to: DataType, ctx: &EvalCtx) -> Option<Result<Value, DbError>> {
    let tz = ctx.time_zone;
    // Local time to UTC, and UTC to local time, in the session zone.
    let to_utc = |t: i64| -> i64 {
        if t == i64::MIN || t == i64::MAX {
            t
        } else {
            t.saturating_sub(tz.offset_for_local(t) as i64 * USECS_PER_SEC)
        }
    };
    let to_local = |t: i64| -> i64 {
        if t == i64::MIN || t == i64::MAX {
            t
        } else {
            t.saturating_add(tz.offset_at_utc(t) as i64 * USECS_PER_SEC)
        }
    };
    Some(match (v, to) {
        (Value::Date(d), DataType::Date) => Ok(Value::Date(*d)),
        (Value::Date(d), DataType::Timestamp(_)) => {
            datetime::date_to_timestamp(*d).map(Value::Timestamp)
        }
        (Value::Date(d), DataType::TimestampTz(_)) => {
            datetime::date_to_timestamp(*d).map(|t| Value::TimestampTz(to_utc(t)))
        }
        (Value::Timestamp(t), DataType::Timestamp(_)) => Ok(Value::Timestamp(*t)),
        (Value::Timestamp(t), DataType::Date) => Ok(Value::Date(datetime::timestamp_to_date(*t))),
        (Value::Timestamp(t), DataType::TimestampTz(_)) => Ok(Value::TimestampTz(to_utc(*t))),
        (Value::TimestampTz(t), DataType::TimestampTz(_)) => Ok(Value::TimestampTz(*t)),
        (Value::TimestampTz(t), DataType::Timestamp(_)) => Ok(Value::Timestamp(to_local(*t))),
        (Value::TimestampTz(t), DataType::Date) => {
            Ok(Value::Date(datetime::timestamp_to_date(to_local(*t))))
        }
        // The time of day; NULL for infinity (timestamp_time).
        (Value::Timestamp(t), DataType::Time(_)) => {
            Ok(crate::time::from_local_timestamp(*t).map_or(Value::Null, Value::Time))
        }
        (Value::TimestampTz(t), DataType::Time(_)) => {
            Ok(crate::time::from_local_timestamp(to_local(*t)).map_or(Value::Null, Value::Time))
        }
        (Value::TimestampTz(t), DataType::TimeTz(_)) => {
            Ok(crate::timetz::from_timestamptz(*t, &ctx.time_zone))
        }
        _ => return None,
    })
}

/// Blank padding for char(n), copied in slices.
const SPACES: &str = "                                                                ";

/// Applies the typmod of `ty` to a value already of `ty`'s base type.
pub fn apply_typmod(v: Value, ty: DataType, explicit: bool) -> Result<Value, DbError> {
    match (&v, ty) {
        (Value::Numeric(n), DataType::Numeric(Some(m))) => {
            Ok(Value::Numeric(n.apply_typmod(m.precision, m.scale)?))
        }
        (Value::Array(a), DataType::Array(e)) if e.typmod() >= 0 => {
            let mut items = Vec::with_capacity(a.items.len());
            for item in a.items.iter() {
                items.push(match item {
                    Value::Null => Value::Null,
                    v => apply_typmod(v.clone(), *e, explicit)?,
                });
            }
            Ok(Array::new(a.elem, a.dims.clone(), items)?.value())
        }
        (Value::Text(s), DataType::Varchar(Some(n))) => {
            Ok(fit_length(s, n, explicit, ty)?.map_or(v.clone(), |t| Value::Text(Arc::from(t))))
        }
        (Value::Text(s), DataType::Char(Some(n))) => {
            let fitted = fit_length(s, n, explicit, ty)?;
            let base: &str = fitted.as_deref().unwrap_or(s);
            let len = base.chars().count();
            if len < n as usize {
                let mut padded = String::with_capacity(base.len() + n as usize - len);
                padded.push_str(base);
                let mut pad = n as usize - len;
                while pad > 0 {
                    let k = pad.min(SPACES.len());
                    padded.push_str(&SPACES[..k]);
                    pad -= k;
                }
                Ok(Value::Text(Arc::from(padded)))
            } else {
                Ok(Value::Text(Arc::from(base)))
            }
        }
        (Value::Time(t), DataType::Time(Some(p))) => {
            Ok(Value::Time(crate::time::round_time(*t, p)))
        }
        (Value::TimeTz(t, z), DataType::TimeTz(Some(p))) => {
            Ok(Value::TimeTz(crate::time::round_time(*t, p), *z))
        }
        (Value::Interval(iv), DataType::Interval(Some(m))) => Ok(Value::Interval(m.adjust(*iv))),
        (Value::Timestamp(t), DataType::Timestamp(p @ Some(_))) => {
            Ok(Value::Timestamp(crate::datetime::round_timestamp(*t, p)))
        }
        (Value::TimestampTz(t), DataType::TimestampTz(p @ Some(_))) => {
            Ok(Value::TimestampTz(crate::datetime::round_timestamp(*t, p)))
        }
        (Value::Bits(b), DataType::Bit(Some(_)) | DataType::VarBit(Some(_))) => {
            Ok(bits::fit((**b).clone(), ty, explicit)?.value())
        }
        (Value::Text(s), DataType::Name) if s.len() > 63 => {
            let mut end = 63;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            Ok(Value::Text(Arc::from(&s[..end])))
        }
        _ => Ok(v),
    }
}

/// The string cut to `n` characters if it is longer (None: fits as is).
fn fit_length(s: &str, n: u32, explicit: bool, ty: DataType) -> Result<Option<String>, DbError> {
    let Some((cut, _)) = s.char_indices().nth(n as usize) else {
        return Ok(None);
    };
    if !explicit && !s[cut..].bytes().all(|c| c == b' ') {
        return Err(DbError::new(
            SqlState::StringDataRightTruncation,
            format!("value too long for type {ty}"),
        ));
    }
    Ok(Some(s[..cut].to_string()))
}

fn numeric_rank(t: DataType) -> Option<u8> {
    Some(match t {
        DataType::Int2 => 0,
        DataType::Int4 => 1,
        DataType::Int8 => 2,
        DataType::Numeric(_) => 3,
        DataType::Float4 => 4,
        DataType::Float8 => 5,
        _ => return None,
    })
}

fn datetime_rank(t: DataType) -> Option<u8> {
    Some(match t {
        DataType::Date => 0,
        DataType::Timestamp(_) => 1,
        DataType::TimestampTz(_) => 2,
        _ => return None,
    })
}

/// Whether (and where) PostgreSQL casts `from` to `to` by itself. None:
/// no cast at all (even explicit casts fail).
pub fn coercion(from: DataType, to: DataType) -> Option<Coercion> {
    use Coercion::*;
    if from == to || from == DataType::Unknown {
        return Some(Implicit);
    }
    if from.base() == to.base() {
        return Some(Implicit);
    }
    if from.is_string() && to.is_string() {
        return Some(Implicit);
    }
    if let (Some(a), Some(b)) = (numeric_rank(from), numeric_rank(to)) {
        return Some(if a < b { Implicit } else { Assignment });
    }
    if let (Some(a), Some(b)) = (datetime_rank(from), datetime_rank(to)) {
        return Some(if a < b { Implicit } else { Assignment });
    }
    if to.is_string() {
        return Some(Assignment);
    }
    if from.is_string() {
        return Some(Explicit);
    }
    match (from, to) {
        (DataType::Array(a), DataType::Array(b)) => coercion(*a, *b),
        // A record becomes a composite type (and back) in any context;
        // two different composite types have no cast.
        (DataType::Record(a), DataType::Record(b))
            if (a.oid == b.oid && a.oid != 0)
                || (a.oid == 0) != (b.oid == 0)
                || a.fields.is_empty()
                || b.fields.is_empty() =>
        {
            Some(Implicit)
        }
        (DataType::Json, DataType::Jsonb) | (DataType::Jsonb, DataType::Json) => Some(Assignment),
        (DataType::Jsonb, t) if jsonb_scalar_target(t) => Some(Explicit),
        (DataType::Int4, DataType::Bool) | (DataType::Bool, DataType::Int4) => Some(Explicit),
        (DataType::Int2 | DataType::Int4 | DataType::Int8, DataType::Oid) => Some(Implicit),
        (DataType::Oid, DataType::Int8) => Some(Implicit),
        (DataType::Bit(_) | DataType::VarBit(_), DataType::Bit(_) | DataType::VarBit(_)) => {
            Some(Implicit)
        }
        (DataType::Int4 | DataType::Int8, DataType::Bit(_))
        | (DataType::Bit(_), DataType::Int4 | DataType::Int8) => Some(Explicit),
        (DataType::Time(_), DataType::Interval(_)) => Some(Implicit),
        (
            DataType::Interval(_) | DataType::Timestamp(_) | DataType::TimestampTz(_),
            DataType::Time(_),
        ) => Some(Assignment),
        (DataType::Oid, DataType::Int4 | DataType::Int2) => Some(Assignment),
        (DataType::Time(_), DataType::TimeTz(_)) => Some(Implicit),
        (
            DataType::TimeTz(_) | DataType::TimestampTz(_),
            DataType::TimeTz(_) | DataType::Time(_),
        ) => Some(Assignment),
        (DataType::Int4 | DataType::Int8 | DataType::Numeric(_), DataType::Money)
        | (DataType::Money, DataType::Numeric(_)) => Some(Assignment),
        (DataType::Geo(a), DataType::Geo(b)) => crate::geometry::catalog::cast_function(a, b)
            .map(|(_, assignment)| if assignment { Assignment } else { Explicit }),
        _ => None,
    }
}

/// The type both sides resolve to in UNION/CASE/COALESCE/comparisons, or
/// None when they cannot be matched (PostgreSQL: `UNION types integer and
/// text cannot be matched`, 42804 — the caller words the message).
pub(crate) fn common_supertype(a: DataType, b: DataType) -> Option<DataType> {
    if a == b {
        return Some(if a == DataType::Unknown {
            DataType::Text
        } else {
            a
        });
    }
    match (a, b) {
        (DataType::Unknown, t) | (t, DataType::Unknown) => return Some(t),
        _ => {}
    }
    if a.base() == b.base() {
        return Some(a.base());
    }
    if let (Some(x), Some(y)) = (numeric_rank(a), numeric_rank(b)) {
        return Some(if x >= y { a.base() } else { b.base() });
    }
    if let (Some(x), Some(y)) = (datetime_rank(a), datetime_rank(b)) {
        return Some(if x >= y { a.base() } else { b.base() });
    }
    if a.is_string() && b.is_string() {
        return Some(DataType::Text);
    }
    match (a, b) {
        (DataType::Oid, t) | (t, DataType::Oid) if t.is_integer() => Some(DataType::Int8),
        // varbit is the preferred type of the bit string category.
        (DataType::Bit(_) | DataType::VarBit(_), DataType::Bit(_) | DataType::VarBit(_)) => {
            Some(DataType::VarBit(None))
        }
        (DataType::Time(_), DataType::TimeTz(_)) | (DataType::TimeTz(_), DataType::Time(_)) => {
            Some(DataType::TimeTz(None))
        }
        _ => None,
    }
}

/// [`common_supertype`] folded over a list (None if empty or unmatched).
pub(crate) fn common_supertype_all(types: &[DataType]) -> Option<DataType> {
    let (first, rest) = types.split_first()?;
    let t = rest
        .iter()
        .try_fold(*first, |acc, t| common_supertype(acc, *t))?;
    Some(t.resolve_unknown())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::NumericMod;
    use crate::datetime::TimeZone;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn c(v: Value, to: DataType) -> Result<Value, DbError> {
        cast(&v, to, true, &ctx())
    }

    fn txt(v: Result<Value, DbError>) -> String {
        v.unwrap().to_text(&ctx())
    }

    fn msg(v: Result<Value, DbError>) -> (SqlState, String) {
        let e = v.unwrap_err();
        (e.code, e.message.clone())
    }

    fn num(s: &str) -> Value {
        Value::Numeric(Numeric::parse(s).unwrap())
    }

    #[test]
    fn numeric_casts_like_postgres() {
        use SqlState::*;
        assert_eq!(txt(c(Value::Float8(2.5), DataType::Int4)), "2");
        assert_eq!(txt(c(Value::Float8(3.5), DataType::Int4)), "4");
        assert_eq!(txt(c(Value::Float8(-2.5), DataType::Int4)), "-2");
        assert_eq!(txt(c(num("2.5"), DataType::Int4)), "3");
        assert_eq!(txt(c(num("-2.5"), DataType::Int4)), "-3");
        assert_eq!(
            msg(c(Value::Float8(1e10), DataType::Int4)),
            (NumericValueOutOfRange, "integer out of range".into())
        );
        assert_eq!(
            msg(c(Value::Float8(f64::NAN), DataType::Int4)),
            (NumericValueOutOfRange, "integer out of range".into())
        );
        assert_eq!(
            msg(c(num("NaN"), DataType::Int4)),
            (FeatureNotSupported, "cannot convert NaN to integer".into())
        );
        assert_eq!(
            msg(c(num("inf"), DataType::Int4)),
            (
                FeatureNotSupported,
                "cannot convert infinity to integer".into()
            )
        );
        assert_eq!(
            msg(c(num("-inf"), DataType::Int2)),
            (
                FeatureNotSupported,
                "cannot convert infinity to smallint".into()
            )
        );
        assert_eq!(
            msg(c(num("NaN"), DataType::Int8)),
            (FeatureNotSupported, "cannot convert NaN to bigint".into())
        );
        assert_eq!(
            msg(c(Value::Int4(40000), DataType::Int2)),
            (NumericValueOutOfRange, "smallint out of range".into())
        );
        assert_eq!(
            msg(c(num("1e20"), DataType::Int8)),
            (NumericValueOutOfRange, "bigint out of range".into())
        );
        assert_eq!(
            msg(c(Value::Float8(1e300), DataType::Float4)).1,
            "value out of range: overflow"
        );
        assert_eq!(
            msg(c(Value::Float8(1e-300), DataType::Float4)).1,
            "value out of range: underflow"
        );
        assert_eq!(txt(c(Value::Float4(0.1), DataType::NUMERIC)), "0.1");
        assert_eq!(
            txt(c(Value::Float4(0.1), DataType::Float8)),
            "0.10000000149011612"
        );
        assert_eq!(txt(c(Value::Float8(1.1), DataType::NUMERIC)), "1.1");
        assert_eq!(
            txt(c(Value::Float8(123456789.123), DataType::NUMERIC)),
            "123456789.123"
        );
        let n52 = DataType::Numeric(Some(NumericMod {
            precision: 5,
            scale: 2,
        }));
        assert_eq!(txt(c(Value::Int4(1), n52)), "1.00");
        assert_eq!(msg(c(num("12345.678"), n52)).1, "numeric field overflow");
        assert_eq!(txt(c(Value::Int4(-1), DataType::Oid)), "4294967295");
        assert_eq!(
            msg(c(Value::Int8(4294967296), DataType::Oid)),
            (NumericValueOutOfRange, "OID out of range".into())
        );
    }

    #[test]
    fn string_and_other_casts() {
        assert_eq!(txt(c(Value::Bool(true), DataType::Text)), "true");
        assert_eq!(txt(c(Value::Bool(false), DataType::Varchar(None))), "false");
        assert_eq!(txt(c(num("123.0"), DataType::Text)), "123.0");
        assert_eq!(txt(c(Value::bytea(&[0xff]), DataType::Text)), "\\xff");
        let ch = cast(&Value::text("abc"), DataType::Char(Some(5)), true, &ctx()).unwrap();
        assert_eq!(ch.to_text(&ctx()), "abc  ");
        let back = cast_from(&ch, DataType::Char(Some(5)), DataType::Text, true, &ctx()).unwrap();
        assert_eq!(back.to_text(&ctx()), "abc");
        assert_eq!(
            txt(c(Value::text("abcdef"), DataType::Varchar(Some(5)))),
            "abcde"
        );
        let e = cast(
            &Value::text("abcd"),
            DataType::Varchar(Some(3)),
            false,
            &ctx(),
        )
        .unwrap_err();
        assert_eq!(e.message, "value too long for type character varying(3)");
        assert_eq!(
            txt(cast(
                &Value::text("abc   "),
                DataType::Varchar(Some(3)),
                false,
                &ctx()
            )),
            "abc"
        );
        assert_eq!(txt(c(Value::text(" 42 "), DataType::Int4)), "42");
        assert_eq!(txt(c(Value::Int4(5), DataType::Bool)), "t");
        assert_eq!(txt(c(Value::Bool(true), DataType::Int4)), "1");
        let e = c(Value::Int2(5), DataType::Bool).unwrap_err();
        assert_eq!(e.message, "cannot cast type smallint to boolean");
        assert!(c(Value::Uuid([0; 16]), DataType::Int4).is_err());
        assert_eq!(c(Value::Null, DataType::Int4).unwrap(), Value::Null);
    }

    #[test]
    fn datetime_casts_follow_session_zone() {
        let d = parse_text(DataType::Date, "2024-01-01", &ctx()).unwrap();
        assert_eq!(
            txt(c(d.clone(), DataType::TimestampTz(None))),
            "2024-01-01 00:00:00+00"
        );
        let plus5 = EvalCtx::new(TimeZone::fixed(5 * 3600), 0);
        let t = parse_text(DataType::TimestampTz(None), "2024-01-01 00:30+00", &plus5).unwrap();
        assert_eq!(
            cast(&t, DataType::Date, true, &plus5)
                .unwrap()
                .to_text(&plus5),
            "2024-01-01"
        );
        assert_eq!(
            cast(&t, DataType::Timestamp(None), true, &plus5)
                .unwrap()
                .to_text(&plus5),
            "2024-01-01 05:30:00"
        );
        let inf = parse_text(DataType::Date, "infinity", &ctx()).unwrap();
        assert_eq!(txt(c(inf, DataType::Timestamp(None))), "infinity");
    }

    #[test]
    fn type_resolution() {
        use DataType::*;
        assert_eq!(common_supertype(Int4, Numeric(None)), Some(Numeric(None)));
        assert_eq!(common_supertype(Numeric(None), Float4), Some(Float4));
        assert_eq!(common_supertype(Int8, Float8), Some(Float8));
        assert_eq!(common_supertype(Unknown, Int4), Some(Int4));
        assert_eq!(common_supertype(Unknown, Unknown), Some(Text));
        assert_eq!(
            common_supertype(Varchar(Some(3)), Varchar(Some(5))),
            Some(Varchar(None))
        );
        assert_eq!(common_supertype(Varchar(Some(3)), Text), Some(Text));
        assert_eq!(
            common_supertype(Date, TimestampTz(None)),
            Some(TimestampTz(None))
        );
        assert_eq!(common_supertype(Int4, Text), None);
        assert_eq!(
            common_supertype_all(&[Int4, Unknown, Numeric(None)]),
            Some(Numeric(None))
        );
        assert_eq!(common_supertype_all(&[Unknown]), Some(Text));
        assert_eq!(coercion(Int4, Int8), Some(Coercion::Implicit));
        assert_eq!(coercion(Int8, Int4), Some(Coercion::Assignment));
        assert_eq!(coercion(Int4, Text), Some(Coercion::Assignment));
        assert_eq!(coercion(Text, Int4), Some(Coercion::Explicit));
        assert_eq!(coercion(Uuid, Int4), None);
        assert_eq!(
            coercion(Timestamp(None), TimestampTz(Some(2))),
            Some(Coercion::Implicit)
        );
    }
}
