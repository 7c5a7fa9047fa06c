//! Operators over values: arithmetic, comparison, `||`, LIKE.
//!
//! Every operator is a function of already-evaluated operands; NULL in,
//! NULL out (comparisons return `Ok(None)`). Operands of mixed numeric types
//! are promoted as PostgreSQL's operator resolution would after implicit
//! casts: integers widen to the wider integer, integer with numeric gives
//! numeric, anything with a float gives `double precision` (except
//! `real op real`, which stays `real`). The planner can ask for the result
//! type with [`binary_result_type`] without evaluating anything.
//!
//! Errors are PostgreSQL's: `integer out of range` / `smallint out of
//! range` / `bigint out of range` (22003) on integer overflow, `division by
//! zero` (22012), `value out of range: overflow|underflow` (22003) for
//! floats, `operator does not exist: integer + text` (42883) for operand
//! types without an operator. Text comparison is bytewise (C collation).

use std::cmp::Ordering;
use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::cast::{cast, int_value};
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::datetime::{self, Interval};
use crate::numeric::Numeric;
use crate::value::{cmp_f64, Value};

/// Binary operators handled here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// `^` (exponentiation, float8 or numeric).
    Pow,
    /// `||`
    Concat,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Like,
    NotLike,
    ILike,
    NotILike,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
            Pow => "^",
            Concat => "||",
            Eq => "=",
            Ne => "<>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Like => "~~",
            NotLike => "!~~",
            ILike => "~~*",
            NotILike => "!~~*",
        }
    }

    pub(crate) fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }
}

pub(crate) fn no_operator(op: &str, a: DataType, b: DataType) -> DbError {
    DbError::new(
        SqlState::UndefinedFunction,
        format!("operator does not exist: {} {op} {}", a.name(), b.name()),
    )
    .with_hint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

fn int_range_err(ty: DataType) -> DbError {
    let name = match ty {
        DataType::Int2 => "smallint",
        DataType::Int4 => "integer",
        _ => "bigint",
    };
    DbError::new(
        SqlState::NumericValueOutOfRange,
        format!("{name} out of range"),
    )
}

fn div_zero() -> DbError {
    DbError::new(SqlState::DivisionByZero, "division by zero")
}

pub(crate) fn float_overflow() -> DbError {
    DbError::new(
        SqlState::NumericValueOutOfRange,
        "value out of range: overflow",
    )
}

pub(crate) fn float_underflow() -> DbError {
    DbError::new(
        SqlState::NumericValueOutOfRange,
        "value out of range: underflow",
    )
}

/// Numeric class of an operand pair after promotion.
#[derive(Clone, Copy, PartialEq)]
enum NumClass {
    Int(DataType),
    Numeric,
    Float4,
    Float8,
}

fn num_class(a: DataType, b: DataType) -> Option<NumClass> {
    use DataType::*;
    let rank = |t: DataType| match t {
        Int2 => Some(0),
        Int4 => Some(1),
        Int8 => Some(2),
        Numeric(_) => Some(3),
        Float4 => Some(4),
        Float8 => Some(5),
        _ => None,
    };
    let (ra, rb) = (rank(a)?, rank(b)?);
    Some(match ra.max(rb) {
        0 => NumClass::Int(Int2),
        1 => NumClass::Int(Int4),
        2 => NumClass::Int(Int8),
        3 => NumClass::Numeric,
        4 if ra == rb => NumClass::Float4,
        4 if ra.min(rb) == 3 => NumClass::Float8,
        _ => NumClass::Float8,
    })
}

fn class_type(c: NumClass) -> DataType {
    match c {
        NumClass::Int(t) => t,
        NumClass::Numeric => DataType::Numeric(None),
        NumClass::Float4 => DataType::Float4,
        NumClass::Float8 => DataType::Float8,
    }
}

fn to_numeric(v: &Value) -> Numeric {
    match v {
        Value::Numeric(n) => n.clone(),
        _ => Numeric::from_i64(v.as_i64().unwrap_or(0)),
    }
}

fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Numeric(n) => n.to_f64(),
        Value::Float4(f) => *f as f64,
        Value::Float8(f) => *f,
        _ => v.as_i64().unwrap_or(0) as f64,
    }
}

/// The result type of `a op b`, or None if PostgreSQL has no such operator
/// (for the error message, use the same types with [`binary_op`]).
pub(crate) fn binary_result_type(op: BinaryOp, a: DataType, b: DataType) -> Option<DataType> {
    use BinaryOp::*;
    use DataType as T;
    let (a, b) = (resolve_unknown_pair(a, b), resolve_unknown_pair(b, a));
    if op.is_comparison() {
        return comparable(a, b).then_some(T::Bool);
    }
    match op {
        Like | NotLike | ILike | NotILike => (a.is_string() && b.is_string()).then_some(T::Bool),
        Concat => concat_type(a, b),
        _ => arith_type(op, a, b),
    }
}

fn resolve_unknown_pair(t: DataType, other: DataType) -> DataType {
    if t == DataType::Unknown {
        if other == DataType::Unknown {
            DataType::Text
        } else {
            other
        }
    } else {
        t
    }
}

fn concat_type(a: DataType, b: DataType) -> Option<DataType> {
    match (a, b) {
        (DataType::Bytea, DataType::Bytea) => Some(DataType::Bytea),
        (x, y) if x.is_string() || y.is_string() => Some(DataType::Text),
        _ => None,
    }
}

/// The result type of `a op b` for numeric and date/time operands (None:
/// no such operator).
pub fn arith_type(op: BinaryOp, a: DataType, b: DataType) -> Option<DataType> {
    use BinaryOp::*;
    use DataType as T;
    if let Some(c) = num_class(a, b) {
        return match (op, c) {
            (Mod, NumClass::Float4 | NumClass::Float8) => None,
            (Pow, NumClass::Int(_) | NumClass::Float4) => Some(T::Float8),
            _ => Some(class_type(c)),
        };
    }
    match (op, a, b) {
        (Add, T::Date, t) | (Add, t, T::Date) if t.is_integer() => Some(T::Date),
        (Sub, T::Date, t) if t.is_integer() => Some(T::Date),
        (Sub, T::Date, T::Date) => Some(T::Int4),
        (Add, T::Date | T::Timestamp(_), T::Interval(_))
        | (Add, T::Interval(_), T::Date | T::Timestamp(_))
        | (Sub, T::Date | T::Timestamp(_), T::Interval(_)) => Some(T::Timestamp(None)),
        (Add, T::TimestampTz(_), T::Interval(_))
        | (Add, T::Interval(_), T::TimestampTz(_))
        | (Sub, T::TimestampTz(_), T::Interval(_)) => Some(T::TimestampTz(None)),
        (Sub, T::Timestamp(_), T::Timestamp(_)) | (Sub, T::TimestampTz(_), T::TimestampTz(_)) => {
            Some(T::Interval(None))
        }
        (Add | Sub, T::Interval(_), T::Interval(_)) => Some(T::Interval(None)),
        (Add, T::Time(_), T::Interval(_))
        | (Add, T::Interval(_), T::Time(_))
        | (Sub, T::Time(_), T::Interval(_)) => Some(T::Time(None)),
        (Sub, T::Time(_), T::Time(_)) => Some(T::Interval(None)),
        (Add, T::TimeTz(_), T::Interval(_))
        | (Add, T::Interval(_), T::TimeTz(_))
        | (Sub, T::TimeTz(_), T::Interval(_)) => Some(T::TimeTz(None)),
        (Add, T::Date, T::TimeTz(_)) | (Add, T::TimeTz(_), T::Date) => Some(T::TimestampTz(None)),
        (Add | Sub, T::Money, T::Money) => Some(T::Money),
        (Div, T::Money, T::Money) => Some(T::Float8),
        (Mul, T::Money, t) | (Mul, t, T::Money) | (Div, T::Money, t) if t.is_numeric() => {
            Some(T::Money)
        }
        (Add, T::Date, T::Time(_)) | (Add, T::Time(_), T::Date) | (Sub, T::Date, T::Time(_)) => {
            Some(T::Timestamp(None))
        }
        (Mul, T::Interval(_), t) | (Mul, t, T::Interval(_)) if t.is_numeric() => {
            Some(T::Interval(None))
        }
        (Div, T::Interval(_), t) if t.is_numeric() => Some(T::Interval(None)),
        // pg_lsn: the distance between two in bytes; a position moved by
        // a number of bytes (integers convert to numeric implicitly).
        (Sub, T::PgLsn, T::PgLsn) => Some(T::NUMERIC),
        (Add | Sub, T::PgLsn, t) | (Add, t, T::PgLsn) if lsn_bytes_type(t) => Some(T::PgLsn),
        _ => None,
    }
}

/// Whether `t` is a byte count pg_lsn's `+` and `-` take (numeric).
fn lsn_bytes_type(t: DataType) -> bool {
    t.is_integer() || matches!(t, DataType::Numeric(_))
}

/// pg_lsn arithmetic (None: not a pg_lsn operation).
fn lsn_arith(op: BinaryOp, a: &Value, b: &Value) -> Result<Option<Value>, DbError> {
    use crate::pg_lsn;
    let bytes = |v: &Value| lsn_bytes_type(v.data_type()).then(|| to_numeric(v));
    Ok(Some(match (op, a, b) {
        (BinaryOp::Sub, Value::PgLsn(x), Value::PgLsn(y)) => Value::Numeric(pg_lsn::minus(*x, *y)),
        (BinaryOp::Add | BinaryOp::Sub, Value::PgLsn(l), n) => match bytes(n) {
            Some(n) => Value::PgLsn(pg_lsn::add(*l, &n, op == BinaryOp::Sub)?),
            None => return Ok(None),
        },
        (BinaryOp::Add, n, Value::PgLsn(l)) => match bytes(n) {
            Some(n) => Value::PgLsn(pg_lsn::add(*l, &n, false)?),
            None => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

fn comparable(a: DataType, b: DataType) -> bool {
    use DataType as T;
    if a.base() == b.base()
        || (a.is_numeric() && b.is_numeric())
        || (a.is_string() && b.is_string())
        || (crate::bits::is_bits(a) && crate::bits::is_bits(b))
    {
        return true;
    }
    matches!(
        (a, b),
        (T::Date, T::Timestamp(_) | T::TimestampTz(_))
            | (T::Timestamp(_) | T::TimestampTz(_), T::Date)
            | (T::Timestamp(_), T::TimestampTz(_))
            | (T::TimestampTz(_), T::Timestamp(_))
            | (T::Oid, T::Int2 | T::Int4 | T::Int8)
            | (T::Int2 | T::Int4 | T::Int8, T::Oid)
    )
}

/// Evaluates `a op b`. `ctx` matters only for timestamptz calendar math,
/// mixed timestamp/timestamptz comparison and non-text `||` operands.
pub fn binary_op(op: BinaryOp, a: &Value, b: &Value, ctx: &EvalCtx) -> Result<Value, DbError> {
    use BinaryOp::*;
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    Ok(match op {
        Eq | Ne | Lt | Le | Gt | Ge => {
            let ord = compare_in(a, b, ctx, op.symbol())?.unwrap_or(Ordering::Equal);
            Value::Bool(match op {
                Eq => ord.is_eq(),
                Ne => ord.is_ne(),
                Lt => ord.is_lt(),
                Le => ord.is_le(),
                Gt => ord.is_gt(),
                _ => ord.is_ge(),
            })
        }
        Like | NotLike | ILike | NotILike => {
            let (Value::Text(s), Value::Text(p)) = (a, b) else {
                return Err(no_operator(op.symbol(), a.data_type(), b.data_type()));
            };
            let m = like(s, p, Some('\\'), matches!(op, ILike | NotILike))?;
            Value::Bool(m != matches!(op, NotLike | NotILike))
        }
        Concat => concat_op(a, b, ctx)?,
        _ => arith(op, a, b, ctx)?,
    })
}

fn concat_op(a: &Value, b: &Value, ctx: &EvalCtx) -> Result<Value, DbError> {
    if let (Value::Bytea(x), Value::Bytea(y)) = (a, b) {
        let mut v = x.to_vec();
        v.extend_from_slice(y);
        return Ok(Value::Bytea(Arc::from(v)));
    }
    if !matches!(a, Value::Text(_)) && !matches!(b, Value::Text(_)) {
        return Err(no_operator("||", a.data_type(), b.data_type()));
    }
    let text = |v: &Value| -> Result<String, DbError> {
        match cast(v, DataType::Text, true, ctx)? {
            Value::Text(s) => Ok(s.to_string()),
            _ => Ok(String::new()),
        }
    };
    Ok(Value::Text(Arc::from(text(a)? + &text(b)?)))
}

fn arith(op: BinaryOp, a: &Value, b: &Value, ctx: &EvalCtx) -> Result<Value, DbError> {
    if let Some(r) = same_int_arith(op, a, b) {
        return r;
    }
    let (ta, tb) = (a.data_type(), b.data_type());
    if let Some(c) = num_class(ta, tb) {
        return match c {
            NumClass::Int(t) => int_arith(op, a.as_i64().unwrap_or(0), b.as_i64().unwrap_or(0), t),
            NumClass::Numeric => numeric_arith(op, &to_numeric(a), &to_numeric(b)),
            NumClass::Float4 | NumClass::Float8 if op == BinaryOp::Mod => {
                Err(no_operator("%", ta, tb))
            }
            NumClass::Float4 if op != BinaryOp::Pow => {
                let r = float_arith(op, to_f64(a), to_f64(b))?;
                crate::cast::f64_to_f32(r).map(Value::Float4)
            }
            _ => float_arith(op, to_f64(a), to_f64(b)).map(Value::Float8),
        };
    }
    if let Some(v) = lsn_arith(op, a, b)? {
        return Ok(v);
    }
    if let Some(v) = money_arith(op, a, b)? {
        return Ok(v);
    }
    datetime_arith(op, a, b, ctx)?.ok_or_else(|| no_operator(op.symbol(), ta, tb))
}

/// Arithmetic on two int4s or two int8s (the common case: a column and a
/// constant of its type), decided before the general path's type
/// dispatch; the same results and errors as that path. None: other types.
pub fn same_int_arith(op: BinaryOp, a: &Value, b: &Value) -> Option<Result<Value, DbError>> {
    match (a, b) {
        (Value::Int4(x), Value::Int4(y)) => {
            Some(int_arith(op, *x as i64, *y as i64, DataType::Int4))
        }
        (Value::Int8(x), Value::Int8(y)) => Some(int_arith(op, *x, *y, DataType::Int8)),
        _ => None,
    }
}

fn int_arith(op: BinaryOp, x: i64, y: i64, ty: DataType) -> Result<Value, DbError> {
    use BinaryOp::*;
    let (x, y) = (x as i128, y as i128);
    let r = match op {
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Div | Mod if y == 0 => return Err(div_zero()),
        Div => x / y,
        Mod => x % y,
        Pow => return float_arith(Pow, x as f64, y as f64).map(Value::Float8),
        _ => return Err(no_operator(op.symbol(), ty, ty)),
    };
    int_value(r, ty).map_err(|_| int_range_err(ty))
}

fn numeric_arith(op: BinaryOp, x: &Numeric, y: &Numeric) -> Result<Value, DbError> {
    use BinaryOp::*;
    let r = match op {
        Add => x.add(y),
        Sub => x.sub(y),
        Mul => x.mul(y),
        Div => x.div(y),
        Mod => x.rem(y),
        Pow => x.power(y),
        _ => {
            return Err(no_operator(
                op.symbol(),
                DataType::NUMERIC,
                DataType::NUMERIC,
            ))
        }
    };
    r.map(Value::Numeric)
}

/// float8 arithmetic with PostgreSQL's overflow/underflow checks.
pub(crate) fn float_arith(op: BinaryOp, x: f64, y: f64) -> Result<f64, DbError> {
    use BinaryOp::*;
    let r = match op {
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Div if y == 0.0 => return Err(div_zero()),
        Div => x / y,
        Pow => return float_pow(x, y),
        _ => return Err(no_operator(op.symbol(), DataType::Float8, DataType::Float8)),
    };
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(float_overflow());
    }
    let zero_ok = match op {
        Mul => x == 0.0 || y == 0.0,
        Div => x == 0.0 || y.is_infinite(),
        _ => true,
    };
    if r == 0.0 && !zero_ok {
        return Err(float_underflow());
    }
    Ok(r)
}

fn float_pow(x: f64, y: f64) -> Result<f64, DbError> {
    if x == 0.0 && y < 0.0 {
        return Err(DbError::new(
            SqlState::InvalidArgumentForPowerFunction,
            "zero raised to a negative power is undefined",
        ));
    }
    if x < 0.0 && y.fract() != 0.0 && y.is_finite() {
        return Err(DbError::new(
            SqlState::InvalidArgumentForPowerFunction,
            "a negative number raised to a non-integer power yields a complex result",
        ));
    }
    let r = x.powf(y);
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(float_overflow());
    }
    // dpow: an infinite operand is no underflow (inf ^ -2 is 0).
    if r == 0.0 && x != 0.0 && x.is_finite() && y.is_finite() {
        return Err(float_underflow());
    }
    Ok(r)
}

/// money arithmetic (None: not a money operation). A numeric operand is
/// a float8, as PostgreSQL's implicit cast makes it.
fn money_arith(op: BinaryOp, a: &Value, b: &Value) -> Result<Option<Value>, DbError> {
    use crate::money;
    use BinaryOp::*;
    let float = |v: &Value| match v {
        Value::Numeric(n) => Some(n.to_f64()),
        v => v.as_f64(),
    };
    Ok(Some(match (op, a, b) {
        (Add | Sub, Value::Money(x), Value::Money(y)) => money::add(*x, *y, op == Sub)?,
        (Div, Value::Money(x), Value::Money(y)) => money::div_money(*x, *y)?,
        (Mul, Value::Money(c), n) | (Mul, n, Value::Money(c)) => match (n.as_i64(), float(n)) {
            (Some(i), _) => money::mul_int(*c, i)?,
            (None, Some(f)) => money::float_op(*c, f, false)?,
            _ => return Ok(None),
        },
        (Div, Value::Money(c), n) => match (n.as_i64(), float(n)) {
            (Some(i), _) => money::div_int(*c, i)?,
            (None, Some(f)) => money::float_op(*c, f, true)?,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

fn interval_err() -> DbError {
    DbError::new(SqlState::DatetimeFieldOverflow, "interval out of range")
}

fn datetime_arith(
    op: BinaryOp,
    a: &Value,
    b: &Value,
    ctx: &EvalCtx,
) -> Result<Option<Value>, DbError> {
    use BinaryOp::*;
    use Value as V;
    let tz = ctx.time_zone;
    let neg = |i: &Interval| i.checked_neg().ok_or_else(interval_err);
    Ok(Some(match (op, a, b) {
        (Add, V::Date(d), n) | (Add, n, V::Date(d)) if n.as_i64().is_some() => {
            V::Date(datetime::date_add_days(*d, n.as_i64().unwrap_or(0))?)
        }
        (Sub, V::Date(d), n) if n.as_i64().is_some() => {
            let k = n.as_i64().unwrap_or(0);
            V::Date(datetime::date_add_days(
                *d,
                k.checked_neg().unwrap_or(i64::MAX),
            )?)
        }
        (Sub, V::Date(x), V::Date(y)) => {
            if [*x, *y].iter().any(|d| *d == i32::MIN || *d == i32::MAX) {
                return Err(DbError::new(
                    SqlState::DatetimeFieldOverflow,
                    "cannot subtract infinite dates",
                ));
            }
            V::Int4(x.wrapping_sub(*y))
        }
        (Add, V::Date(d), V::Interval(i)) | (Add, V::Interval(i), V::Date(d)) => V::Timestamp(
            datetime::timestamp_add_interval(datetime::date_to_timestamp(*d)?, i)?,
        ),
        (Sub, V::Date(d), V::Interval(i)) => V::Timestamp(datetime::timestamp_add_interval(
            datetime::date_to_timestamp(*d)?,
            &neg(i)?,
        )?),
        (Add, V::Timestamp(t), V::Interval(i)) | (Add, V::Interval(i), V::Timestamp(t)) => {
            V::Timestamp(datetime::timestamp_add_interval(*t, i)?)
        }
        (Sub, V::Timestamp(t), V::Interval(i)) => {
            V::Timestamp(datetime::timestamp_add_interval(*t, &neg(i)?)?)
        }
        (Add, V::TimestampTz(t), V::Interval(i)) | (Add, V::Interval(i), V::TimestampTz(t)) => {
            V::TimestampTz(datetime::timestamptz_add_interval(*t, i, tz)?)
        }
        (Sub, V::TimestampTz(t), V::Interval(i)) => {
            V::TimestampTz(datetime::timestamptz_add_interval(*t, &neg(i)?, tz)?)
        }
        (Sub, V::Timestamp(x), V::Timestamp(y)) | (Sub, V::TimestampTz(x), V::TimestampTz(y)) => {
            V::Interval(datetime::timestamp_diff(*x, *y)?)
        }
        (Add, V::Time(t), V::Interval(i)) | (Add, V::Interval(i), V::Time(t)) => {
            V::Time(crate::time::add_interval(*t, i, false))
        }
        (Sub, V::Time(t), V::Interval(i)) => V::Time(crate::time::add_interval(*t, i, true)),
        (Sub, V::Time(x), V::Time(y)) => V::Interval(Interval::new(0, 0, x - y)),
        (Add, V::Date(d), V::Time(t)) | (Add, V::Time(t), V::Date(d)) => {
            crate::time::date_plus_time(*d, *t)?
        }
        (Sub, V::Date(d), V::Time(t)) => crate::time::date_plus_time(*d, -*t)?,
        (Add, V::TimeTz(t, z), V::Interval(i)) | (Add, V::Interval(i), V::TimeTz(t, z)) => {
            crate::timetz::add_interval(*t, *z, i, false)
        }
        (Sub, V::TimeTz(t, z), V::Interval(i)) => crate::timetz::add_interval(*t, *z, i, true),
        (Add, V::Date(d), V::TimeTz(t, z)) | (Add, V::TimeTz(t, z), V::Date(d)) => {
            crate::timetz::date_plus(*d, *t, *z)?
        }
        (Add, V::Interval(x), V::Interval(y)) => {
            V::Interval(x.checked_add(y).ok_or_else(interval_err)?)
        }
        (Sub, V::Interval(x), V::Interval(y)) => {
            V::Interval(x.checked_add(&neg(y)?).ok_or_else(interval_err)?)
        }
        (Mul, V::Interval(i), n) | (Mul, n, V::Interval(i)) if n.data_type().is_numeric() => {
            V::Interval(i.mul_f64(to_f64(n)).ok_or_else(interval_err)?)
        }
        (Div, V::Interval(i), n) if n.data_type().is_numeric() => {
            let f = to_f64(n);
            if f == 0.0 {
                return Err(div_zero());
            }
            V::Interval(i.div_f64(f).ok_or_else(interval_err)?)
        }
        _ => return Ok(None),
    }))
}

/// Unary minus.
pub fn negate(v: &Value) -> Result<Value, DbError> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int2(x) => Value::Int2(
            x.checked_neg()
                .ok_or_else(|| int_range_err(DataType::Int2))?,
        ),
        Value::Int4(x) => Value::Int4(
            x.checked_neg()
                .ok_or_else(|| int_range_err(DataType::Int4))?,
        ),
        Value::Int8(x) => Value::Int8(
            x.checked_neg()
                .ok_or_else(|| int_range_err(DataType::Int8))?,
        ),
        Value::Float4(x) => Value::Float4(-x),
        Value::Float8(x) => Value::Float8(-x),
        Value::Numeric(n) => Value::Numeric(n.neg()),
        Value::Interval(i) => Value::Interval(i.checked_neg().ok_or_else(interval_err)?),
        _ => {
            return Err(DbError::new(
                SqlState::UndefinedFunction,
                format!("operator does not exist: - {}", v.data_type().name()),
            ))
        }
    })
}

/// abs(x) / `@ x`.
pub fn abs(v: &Value) -> Result<Value, DbError> {
    let negative = match v {
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => v.as_i64().unwrap_or(0) < 0,
        Value::Float4(x) => x.is_sign_negative(),
        Value::Float8(x) => x.is_sign_negative(),
        Value::Numeric(n) => return Ok(Value::Numeric(n.abs())),
        Value::Null => return Ok(Value::Null),
        _ => {
            return Err(DbError::new(
                SqlState::UndefinedFunction,
                format!("function abs({}) does not exist", v.data_type().name()),
            ))
        }
    };
    if negative {
        negate(v)
    } else {
        Ok(v.clone())
    }
}

/// SQL comparison: None if either side is NULL; numbers compare by value
/// across types (a float on either side compares as float8, as PostgreSQL
/// resolves it); date compares with timestamp. Mixed timestamp and
/// timestamptz needs the session zone: use [`compare_in`].
pub fn compare(a: &Value, b: &Value) -> Result<Option<Ordering>, DbError> {
    compare_in(a, b, &EvalCtx::new(datetime::TimeZone::UTC, 0), "=")
}

/// [`compare`] with a session (for timestamp vs timestamptz) and the
/// operator symbol used in the 42883 error.
pub fn compare_in(
    a: &Value,
    b: &Value,
    ctx: &EvalCtx,
    op: &str,
) -> Result<Option<Ordering>, DbError> {
    use Value as V;
    if a.is_null() || b.is_null() {
        return Ok(None);
    }
    if let Some(c) = num_class(a.data_type(), b.data_type()) {
        return Ok(Some(match c {
            NumClass::Int(_) => a.as_i64().cmp(&b.as_i64()),
            NumClass::Numeric => to_numeric(a).cmp(&to_numeric(b)),
            NumClass::Float4 | NumClass::Float8 => cmp_f64(to_f64(a), to_f64(b)),
        }));
    }
    let tz = ctx.time_zone;
    let as_ts = |v: &Value| -> Option<i64> {
        match v {
            V::Date(d) => datetime::date_to_timestamp(*d).ok(),
            V::Timestamp(t) => Some(*t),
            _ => None,
        }
    };
    let as_tstz = |v: &Value| -> Option<i64> {
        match v {
            V::TimestampTz(t) => Some(*t),
            other => as_ts(other).map(|t| {
                if t == i64::MIN || t == i64::MAX {
                    t
                } else {
                    t - tz.offset_for_local(t) as i64 * datetime::USECS_PER_SEC
                }
            }),
        }
    };
    match (a, b) {
        (V::Date(_) | V::Timestamp(_), V::Date(_) | V::Timestamp(_)) => {
            Ok(Some(as_ts(a).cmp(&as_ts(b))))
        }
        (V::TimestampTz(_), V::Date(_) | V::Timestamp(_))
        | (V::Date(_) | V::Timestamp(_), V::TimestampTz(_)) => {
            Ok(Some(as_tstz(a).cmp(&as_tstz(b))))
        }
        _ if std::mem::discriminant(a) == std::mem::discriminant(b) => Ok(Some(a.cmp(b))),
        _ => Err(no_operator(op, a.data_type(), b.data_type())),
    }
}

/// LIKE matching: `%` any run, `_` one character, `escape` (default `\`)
/// quotes the next character. Case-insensitive compares lower-cased text.
/// A pattern ending in the escape character is 22025 when matching reaches
/// that character with subject left, as PostgreSQL's MatchText raises it
/// (`'ab' LIKE 'a\'` fails, `'a' LIKE 'a\'` and `'b' LIKE 'a\'` are false).
pub fn like(
    s: &str,
    pattern: &str,
    escape: Option<char>,
    case_insensitive: bool,
) -> Result<bool, DbError> {
    if !case_insensitive {
        return like_match_str(s, pattern, escape);
    }
    let (s, p): (Vec<char>, Vec<char>) = (
        s.to_lowercase().chars().collect(),
        pattern.to_lowercase().chars().collect(),
    );
    like_match(&s, &like_tokens(&p, escape))
}

fn escape_at_end() -> DbError {
    DbError::new(
        SqlState::InvalidEscapeSequence,
        "LIKE pattern must not end with escape character",
    )
}

/// The pattern's token at byte `pi` and the byte after it; None at the
/// end (or at an escape character that ends the pattern).
fn like_tok(p: &str, escape: Option<char>, pi: usize) -> Option<(Tok, usize)> {
    let mut it = p[pi..].chars();
    let c = it.next()?;
    let at = pi + c.len_utf8();
    if Some(c) == escape {
        let n = it.next()?;
        return Some((Tok::Lit(n), at + n.len_utf8()));
    }
    Some((
        match c {
            '%' => Tok::Any,
            '_' => Tok::One,
            c => Tok::Lit(c),
        },
        at,
    ))
}

/// [`like_match`] reading the subject and the pattern in place, by byte
/// offsets (no `Vec<char>` of either, no token list): the same steps, so
/// the same answers.
fn like_match_str(s: &str, p: &str, escape: Option<char>) -> Result<bool, DbError> {
    let char_len = |si: usize| s[si..].chars().next().map_or(1, char::len_utf8);
    let (mut si, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let sc = s[si..].chars().next().expect("si is inside s");
        match like_tok(p, escape, pi) {
            Some((Tok::Any, next)) => {
                star = Some((pi, si));
                pi = next;
            }
            Some((Tok::One, next)) => {
                si += sc.len_utf8();
                pi = next;
            }
            Some((Tok::Lit(c), next)) if c == sc => {
                si += sc.len_utf8();
                pi = next;
            }
            // A lone escape character ends the pattern: reached with
            // subject left.
            None if pi < p.len() => return Err(escape_at_end()),
            _ => match star {
                Some((sp, ss)) => {
                    pi = like_tok(p, escape, sp).map_or(p.len(), |(_, next)| next);
                    si = ss + char_len(ss);
                    star = Some((sp, si));
                }
                None => return Ok(false),
            },
        }
    }
    while let Some((t, next)) = like_tok(p, escape, pi) {
        if t != Tok::Any {
            return Ok(false);
        }
        pi = next;
    }
    Ok(pi == p.len())
}

#[derive(Clone, Copy, PartialEq)]
enum Tok {
    Lit(char),
    One,
    Any,
    /// An escape character that ends the pattern.
    LoneEscape,
}

fn like_tokens(p: &[char], escape: Option<char>) -> Vec<Tok> {
    let mut out = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        if Some(c) == escape {
            let Some(next) = p.get(i + 1) else {
                out.push(Tok::LoneEscape);
                break;
            };
            out.push(Tok::Lit(*next));
            i += 2;
            continue;
        }
        out.push(match c {
            '%' => Tok::Any,
            '_' => Tok::One,
            c => Tok::Lit(c),
        });
        i += 1;
    }
    out
}

/// Greedy matcher with single backtrack point (linear-ish, no recursion).
fn like_match(s: &[char], p: &[Tok]) -> Result<bool, DbError> {
    let (mut si, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(Tok::Any) => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(Tok::One) => {
                si += 1;
                pi += 1;
            }
            Some(Tok::Lit(c)) if *c == s[si] => {
                si += 1;
                pi += 1;
            }
            Some(Tok::LoneEscape) => return Err(escape_at_end()),
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return Ok(false),
            },
        }
    }
    Ok(p[pi..].iter().all(|t| *t == Tok::Any))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datetime::TimeZone;
    use crate::text::parse_text;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn op(o: BinaryOp, a: Value, b: Value) -> Result<Value, DbError> {
        binary_op(o, &a, &b, &ctx())
    }

    fn t(v: Result<Value, DbError>) -> String {
        v.unwrap().to_text(&ctx())
    }

    fn e(v: Result<Value, DbError>) -> (SqlState, String) {
        let e = v.unwrap_err();
        (e.code, e.message.clone())
    }

    fn p(ty: DataType, s: &str) -> Value {
        parse_text(ty, s, &ctx()).unwrap()
    }

    #[test]
    fn integer_arithmetic_like_postgres() {
        use BinaryOp::*;
        use SqlState::*;
        assert_eq!(t(op(Div, Value::Int4(-7), Value::Int4(2))), "-3");
        assert_eq!(t(op(Mod, Value::Int4(-7), Value::Int4(3))), "-1");
        assert_eq!(t(op(Mod, Value::Int4(7), Value::Int4(-3))), "1");
        assert_eq!(t(op(Mod, Value::Int4(i32::MIN), Value::Int4(-1))), "0");
        assert_eq!(
            e(op(Div, Value::Int4(i32::MIN), Value::Int4(-1))),
            (NumericValueOutOfRange, "integer out of range".into())
        );
        assert_eq!(
            e(op(Div, Value::Int2(i16::MIN), Value::Int2(-1))),
            (NumericValueOutOfRange, "smallint out of range".into())
        );
        assert_eq!(
            e(op(Mul, Value::Int8(i64::MAX), Value::Int4(2))),
            (NumericValueOutOfRange, "bigint out of range".into())
        );
        assert_eq!(
            e(op(Mod, Value::Int4(5), Value::Int4(0))),
            (DivisionByZero, "division by zero".into())
        );
        assert_eq!(
            op(Add, Value::Int2(1), Value::Int8(1)).unwrap(),
            Value::Int8(2)
        );
        assert!(matches!(
            op(Add, Value::Int2(1), Value::Int2(1)).unwrap(),
            Value::Int2(2)
        ));
        assert_eq!(op(Add, Value::Null, Value::Int4(1)).unwrap(), Value::Null);
        assert_eq!(
            e(negate(&Value::Int4(i32::MIN))),
            (NumericValueOutOfRange, "integer out of range".into())
        );
        assert_eq!(e(abs(&Value::Int4(i32::MIN))).1, "integer out of range");
        assert_eq!(t(abs(&Value::Int2(-5))), "5");
    }

    #[test]
    fn float_and_numeric_arithmetic() {
        use BinaryOp::*;
        assert_eq!(
            e(op(Mul, Value::Float8(1e300), Value::Float8(1e300))).1,
            "value out of range: overflow"
        );
        assert_eq!(
            e(op(Mul, Value::Float8(1e-300), Value::Float8(1e-300))).1,
            "value out of range: underflow"
        );
        assert_eq!(
            e(op(Div, Value::Float8(1.0), Value::Int4(0))).1,
            "division by zero"
        );
        let (code, msg) = e(op(Mod, Value::Float8(5.5), Value::Int4(2)));
        assert_eq!(
            (code, msg.as_str()),
            (
                SqlState::UndefinedFunction,
                "operator does not exist: double precision % integer"
            )
        );
        let n = |s| p(DataType::NUMERIC, s);
        assert_eq!(t(op(Div, Value::Int4(5), n("2.0"))), "2.5000000000000000");
        assert_eq!(t(op(Add, n("1.5"), Value::Int4(1))), "2.5");
        assert_eq!(t(op(Pow, Value::Int4(2), Value::Int4(10))), "1024");
        assert_eq!(t(op(Pow, n("2.0"), n("0.5"))), "1.4142135623730950");
        assert_eq!(
            binary_result_type(Add, DataType::Float4, DataType::Int4),
            Some(DataType::Float8)
        );
        assert_eq!(
            binary_result_type(Add, DataType::Float4, DataType::NUMERIC),
            Some(DataType::Float8)
        );
        assert_eq!(
            binary_result_type(Add, DataType::Int2, DataType::NUMERIC),
            Some(DataType::NUMERIC)
        );
        assert_eq!(
            binary_result_type(Add, DataType::Int2, DataType::Int2),
            Some(DataType::Int2)
        );
        assert_eq!(
            binary_result_type(Add, DataType::Int4, DataType::Text),
            None
        );
        assert_eq!(
            binary_result_type(Mod, DataType::Float8, DataType::Int4),
            None
        );
    }

    #[test]
    fn comparisons_across_types() {
        let n = |s| p(DataType::NUMERIC, s);
        assert_eq!(
            compare(&Value::Int4(1), &n("1.0")).unwrap(),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::Int4(1), &Value::Float8(1.0)).unwrap(),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&n("0.1"), &Value::Float8(0.1)).unwrap(),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::Float8(f64::NAN), &Value::Float8(f64::NAN)).unwrap(),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(&Value::Null, &Value::Int4(1)).unwrap(), None);
        assert_eq!(
            compare(&Value::text("a"), &Value::text("b")).unwrap(),
            Some(Ordering::Less)
        );
        let d = p(DataType::Date, "2024-01-01");
        let ts = p(DataType::Timestamp(None), "2024-01-01 00:00:01");
        assert_eq!(compare(&d, &ts).unwrap(), Some(Ordering::Less));
        let err = compare(&Value::Int4(1), &Value::text("1")).unwrap_err();
        assert_eq!(err.message, "operator does not exist: integer = text");
        assert_eq!(t(op(BinaryOp::Ne, Value::Int2(1), Value::Int8(2))), "t");
    }

    /// The in-place matcher against the token matcher it replaced on the
    /// case-sensitive path, over random subjects and patterns (multi-byte
    /// characters, escapes, wildcards).
    #[test]
    fn like_in_place_agrees_with_tokens() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let alphabet = ['a', 'b', 'é', '€', '%', '_', '\\', '#'];
        let word = |rng: &mut rand::rngs::StdRng, n: usize| -> String {
            (0..rng.gen_range(0..=n))
                .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
                .collect()
        };
        for _ in 0..20_000 {
            let s = word(&mut rng, 8);
            let p = word(&mut rng, 6);
            for esc in [Some('\\'), Some('#'), None] {
                let pc: Vec<char> = p.chars().collect();
                let sc: Vec<char> = s.chars().collect();
                let old = like_match(&sc, &like_tokens(&pc, esc));
                let new = like(&s, &p, esc, false);
                assert_eq!(old.ok(), new.ok(), "{s:?} LIKE {p:?} ESCAPE {esc:?}");
            }
        }
    }

    #[test]
    fn like_and_concat() {
        assert!(like("abc", "a_c", Some('\\'), false).unwrap());
        assert!(like("ab\\", "ab\\", None, false).unwrap());
        assert!(like("xé€y", "x__y", Some('\\'), false).unwrap());
        // The lone escape is an error only when matching reaches it with
        // subject left (PostgreSQL 15: 'a' LIKE 'a\' is false).
        assert!(!like("a", "a\\", Some('\\'), false).unwrap());
        assert!(!like("zzz", "a\\", Some('\\'), false).unwrap());
        assert!(!like("", "\\", Some('\\'), false).unwrap());
        assert!(like("ab", "%\\", Some('\\'), false).is_err());
        assert!(like("ab", "A\\", Some('\\'), true).is_err());
        assert!(!like("a", "A\\", Some('\\'), true).unwrap());
        assert!(like("ABC", "a%", Some('\\'), true).unwrap());
        assert!(like("abc", "%", Some('\\'), false).unwrap());
        assert!(like("", "%", Some('\\'), false).unwrap());
        assert!(!like("abc", "ab", Some('\\'), false).unwrap());
        assert!(like("a%c", "a\\%c", Some('\\'), false).unwrap());
        assert!(!like("abc", "a\\%c", Some('\\'), false).unwrap());
        assert!(like("a\\", "a\\\\", Some('\\'), false).unwrap());
        assert!(like("mississippi", "%iss%ppi", Some('\\'), false).unwrap());
        assert!(like("ab", "%%%b", Some('\\'), false).unwrap());
        assert!(!like("aaa", "%a%b%", Some('\\'), false).unwrap());
        let err = like("abc", "a\\", Some('\\'), false).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (
                SqlState::InvalidEscapeSequence,
                "LIKE pattern must not end with escape character"
            )
        );
        assert!(like("a\\", "a\\", None, false).unwrap());
        use BinaryOp::*;
        assert_eq!(t(op(Concat, Value::text("a"), Value::Bool(true))), "atrue");
        assert_eq!(t(op(Concat, Value::Int4(1), Value::text("a"))), "1a");
        assert_eq!(
            op(Concat, Value::text("a"), Value::Null).unwrap(),
            Value::Null
        );
        assert_eq!(
            t(op(Concat, Value::bytea(&[1]), Value::bytea(&[2]))),
            "\\x0102"
        );
        assert_eq!(t(op(NotLike, Value::text("abc"), Value::text("a%"))), "f");
    }

    #[test]
    fn datetime_arithmetic_like_postgres() {
        use BinaryOp::*;
        let d = |s| p(DataType::Date, s);
        let iv = |s| p(DataType::Interval(None), s);
        assert_eq!(t(op(Sub, d("2024-03-01"), d("2024-02-01"))), "29");
        assert_eq!(t(op(Add, d("2024-01-01"), Value::Int4(30))), "2024-01-31");
        assert!(op(Sub, d("2024-01-01"), Value::Int8(i64::MIN)).is_err());
        assert_eq!(
            t(op(Add, d("2024-01-01"), iv("1 hour"))),
            "2024-01-01 01:00:00"
        );
        assert_eq!(
            t(op(Sub, d("2024-01-01"), iv("1 day"))),
            "2023-12-31 00:00:00"
        );
        let tz = |s| p(DataType::TimestampTz(None), s);
        assert_eq!(t(op(Sub, tz("2024-01-01"), tz("2023-12-01"))), "31 days");
        assert_eq!(t(negate(&iv("1 day 02:00"))), "-1 days -02:00:00");
        assert_eq!(
            t(op(Mul, iv("1 day"), Value::Float8(1.5))),
            "1 day 12:00:00"
        );
        assert_eq!(t(op(Div, iv("1 mon"), Value::Int4(3))), "10 days");
        assert_eq!(
            e(op(Div, iv("1 hour"), Value::Int4(0))).1,
            "division by zero"
        );
        let ts = p(DataType::Timestamp(None), "2024-01-31 10:00");
        assert_eq!(t(op(Add, ts, iv("1 mon"))), "2024-02-29 10:00:00");
    }
}
