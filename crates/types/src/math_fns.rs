//! Mathematical functions beyond the core set of [`crate::functions`]:
//! trigonometry in radians (`sin` ... `atan2`, `cot`) and in degrees
//! (`sind` ... `atan2d`, `cotd`), hyperbolic functions, `pi`, `degrees`,
//! `radians`, `gcd`, `lcm`, `factorial`, `scale`, `min_scale`,
//! `trim_scale` and `width_bucket` (equal-width buckets over float8 or
//! numeric, and buckets given by a sorted array of thresholds).
//!
//! Everything follows PostgreSQL 15's float.c, int.c and numeric.c. The
//! degree functions in particular are PostgreSQL's: the argument is
//! reduced to the first quadrant and the C library's sin/cos/asin/acos
//! results are scaled by their own values at 30, 45 and 60 degrees, so
//! `sind(30)` is exactly 0.5 and `tand(45)` exactly 1. The float results
//! come from the platform's libm (glibc on Linux, as PostgreSQL's), and
//! errors are PostgreSQL's: 22003 "input is out of range" outside a
//! function's domain, 22003 "integer out of range" / "bigint out of range"
//! for gcd and lcm results that do not fit, 2201G for width_bucket's
//! bounds and count.

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{no_function, Imp, Resolved};
use crate::numeric::Numeric;
use crate::ops::{float_overflow, float_underflow};
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "pi",
    "degrees",
    "radians",
    "sin",
    "cos",
    "tan",
    "cot",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sind",
    "cosd",
    "tand",
    "cotd",
    "asind",
    "acosd",
    "atand",
    "atan2d",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "gcd",
    "lcm",
    "factorial",
    "scale",
    "min_scale",
    "trim_scale",
    "width_bucket",
];

/// float.c's RADIANS_PER_DEGREE.
const RADIANS_PER_DEGREE: f64 = 0.017_453_292_519_943_295;

fn numberish(t: DataType) -> bool {
    t.is_numeric() || t == DataType::Unknown
}

fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float4 | DataType::Float8)
}

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    use DataType as T;
    let f8 = T::Float8;
    let num = T::NUMERIC;
    let (imp, arg_types, ret): (Imp, Vec<T>, T) = match (name, args) {
        ("pi", []) => (|_, _| Ok(Value::Float8(std::f64::consts::PI)), vec![], f8),
        ("atan2" | "atan2d", [a, b]) if numberish(*a) && numberish(*b) => {
            (float2(name)?, vec![f8, f8], f8)
        }
        (_, [t]) if numberish(*t) && float1(name).is_some() => (float1(name)?, vec![f8], f8),
        ("gcd" | "lcm", [a, b]) if numberish(*a) && numberish(*b) => {
            if is_float(a) || is_float(b) {
                return Some(Err(no_function(name, args)));
            }
            // int2 arguments fit int4, int8 and numeric alike.
            if args.iter().all(|t| matches!(t, T::Int2 | T::Unknown)) {
                return Some(Err(crate::datetime_fns::not_unique(name, args)));
            }
            let ty = if args.iter().any(|t| matches!(t, T::Numeric(_))) {
                num
            } else if args.contains(&T::Int8) {
                T::Int8
            } else {
                T::Int4
            };
            let imp: Imp = if name == "gcd" { gcd } else { lcm };
            (imp, vec![ty, ty], ty)
        }
        ("factorial", [t]) if t.is_integer() || *t == T::Unknown => (factorial, vec![T::Int8], num),
        ("scale" | "min_scale" | "trim_scale", [t]) if numberish(*t) && !is_float(t) => {
            let (imp, ret): (Imp, T) = match name {
                "scale" => (scale, T::Int4),
                "min_scale" => (min_scale, T::Int4),
                _ => (trim_scale, num),
            };
            (imp, vec![num], ret)
        }
        ("width_bucket", [o, lo, hi, c])
            if [o, lo, hi].iter().all(|t| numberish(**t))
                && (c.is_integer() || *c == T::Unknown) =>
        {
            let numeric = [o, lo, hi].iter().any(|t| matches!(t, T::Numeric(_)))
                && ![o, lo, hi].iter().any(|t| is_float(t));
            let ty = if numeric { num } else { f8 };
            (width_bucket, vec![ty, ty, ty, T::Int4], T::Int4)
        }
        ("width_bucket", [o, arr]) if arr.is_array() => {
            let elem = arr.element().expect("an array type");
            if *o != T::Unknown && o.base() != elem.base() {
                return Some(Err(no_function(name, args)));
            }
            (width_bucket_array, vec![elem, *arr], T::Int4)
        }
        // width_bucket(anycompatible, anycompatiblearray) with an unknown
        // array literal: the array of the operand's type.
        ("width_bucket", [o, T::Unknown]) if *o != T::Unknown => match o.array_of() {
            Some(arr) => (width_bucket_array, vec![*o, arr], T::Int4),
            None => return Some(Err(no_function(name, args))),
        },
        _ => return Some(Err(no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, false,
    )))
}

/// The one-argument float8 functions.
fn float1(name: &str) -> Option<Imp> {
    macro_rules! f {
        ($f:expr) => {
            (|a: &[Value], _: &EvalCtx| match a[0].is_null() {
                true => Ok(Value::Null),
                false => $f(float(&a[0])).map(Value::Float8),
            }) as Imp
        };
    }
    Some(match name {
        "degrees" => f!(degrees),
        "radians" => f!(radians),
        "sin" => f!(|x| periodic(x, f64::sin)),
        "cos" => f!(|x| periodic(x, f64::cos)),
        "tan" => f!(|x| periodic(x, f64::tan)),
        "cot" => f!(|x| periodic(x, f64::tan).map(|t| 1.0 / t)),
        "asin" => f!(|x| unit_domain(x, f64::asin)),
        "acos" => f!(|x| unit_domain(x, f64::acos)),
        "atan" => f!(|x: f64| Ok(x.atan())),
        "sind" => f!(sind),
        "cosd" => f!(cosd),
        "tand" => f!(tand),
        "cotd" => f!(cotd),
        "asind" => f!(asind),
        "acosd" => f!(acosd),
        "atand" => f!(atand),
        "sinh" => f!(sinh),
        "cosh" => f!(cosh),
        "tanh" => f!(tanh),
        "asinh" => f!(|x: f64| Ok(x.asinh())),
        "acosh" => f!(acosh),
        "atanh" => f!(atanh),
        _ => return None,
    })
}

/// atan2 and atan2d.
fn float2(name: &str) -> Option<Imp> {
    Some(match name {
        "atan2" => (|a: &[Value], _: &EvalCtx| float_pair(a, f64::atan2)) as Imp,
        _ => |a, _| float_pair(a, atan2d),
    })
}

fn float_pair(a: &[Value], f: fn(f64, f64) -> f64) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(Value::Float8(f(float(&a[0]), float(&a[1]))))
}

/// A float8 argument (the binder cast it; other numbers are read too).
fn float(v: &Value) -> f64 {
    match v {
        Value::Float8(f) => *f,
        Value::Float4(f) => *f as f64,
        Value::Numeric(n) => n.to_f64(),
        v => v.as_i64().unwrap_or(0) as f64,
    }
}

fn out_of_range() -> DbError {
    DbError::new(SqlState::NumericValueOutOfRange, "input is out of range")
}

fn degrees(x: f64) -> Result<f64, DbError> {
    let r = x / RADIANS_PER_DEGREE;
    if r.is_infinite() && !x.is_infinite() {
        return Err(float_overflow());
    }
    Ok(r)
}

fn radians(x: f64) -> Result<f64, DbError> {
    let r = x * RADIANS_PER_DEGREE;
    if r == 0.0 && x != 0.0 {
        return Err(float_underflow());
    }
    Ok(r)
}

/// sin, cos, tan: NaN for NaN, an error for an infinite argument.
fn periodic(x: f64, f: fn(f64) -> f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    if x.is_infinite() {
        return Err(out_of_range());
    }
    Ok(f(x))
}

/// asin, acos: NaN for NaN, an error outside [-1, 1].
fn unit_domain(x: f64, f: fn(f64) -> f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    if !(-1.0..=1.0).contains(&x) {
        return Err(out_of_range());
    }
    Ok(f(x))
}

// ----- degrees (float.c's sind_q1 and friends)

/// sin(30°), 1 - cos(60°), asin(0.5), acos(0.5), atan(1) as the C
/// library computes them: the scale factors that make the results exact
/// at 30, 45, 60 and 90 degrees.
struct DegreeConsts {
    sin_30: f64,
    one_minus_cos_60: f64,
    asin_0_5: f64,
    acos_0_5: f64,
    atan_1_0: f64,
}

fn consts() -> DegreeConsts {
    DegreeConsts {
        sin_30: (30.0 * RADIANS_PER_DEGREE).sin(),
        one_minus_cos_60: 1.0 - (60.0 * RADIANS_PER_DEGREE).cos(),
        asin_0_5: 0.5f64.asin(),
        acos_0_5: 0.5f64.acos(),
        atan_1_0: 1.0f64.atan(),
    }
}

fn sind_0_to_30(x: f64) -> f64 {
    ((x * RADIANS_PER_DEGREE).sin() / consts().sin_30) / 2.0
}

fn cosd_0_to_60(x: f64) -> f64 {
    let one_minus_cos_x = 1.0 - (x * RADIANS_PER_DEGREE).cos();
    1.0 - (one_minus_cos_x / consts().one_minus_cos_60) / 2.0
}

/// sin of x in [0, 90] degrees: exact at 0, 30 and 90.
fn sind_q1(x: f64) -> f64 {
    if x <= 30.0 {
        sind_0_to_30(x)
    } else {
        cosd_0_to_60(90.0 - x)
    }
}

/// cos of x in [0, 90] degrees: exact at 0, 60 and 90.
fn cosd_q1(x: f64) -> f64 {
    if x <= 60.0 {
        cosd_0_to_60(x)
    } else {
        sind_0_to_30(90.0 - x)
    }
}

fn asind_q1(x: f64) -> f64 {
    let c = consts();
    if x <= 0.5 {
        (x.asin() / c.asin_0_5) * 30.0
    } else {
        90.0 - (x.acos() / c.acos_0_5) * 60.0
    }
}

fn acosd_q1(x: f64) -> f64 {
    let c = consts();
    if x <= 0.5 {
        90.0 - (x.asin() / c.asin_0_5) * 30.0
    } else {
        (x.acos() / c.acos_0_5) * 60.0
    }
}

/// The argument of sind/cosd/tand/cotd reduced into [0, 360) by fmod (NaN
/// passes through; an infinite one is out of range).
fn degree_arg(x: f64) -> Result<f64, DbError> {
    if x.is_infinite() {
        return Err(out_of_range());
    }
    Ok(x % 360.0)
}

/// Reflections into the first quadrant: the reduced argument and whether
/// the result's sign flips, for an odd (`sind`, `tand`, `cotd`) or even
/// (`cosd`) function and one whose sign flips across 90° (`cosd`, `tand`,
/// `cotd`) or not (`sind`).
fn first_quadrant(mut x: f64, odd: bool, flips_at_90: bool) -> (f64, f64) {
    let mut sign = 1.0;
    if x < 0.0 {
        x = -x;
        if odd {
            sign = -sign;
        }
    }
    if x > 180.0 {
        x = 360.0 - x;
        if odd {
            sign = -sign;
        }
    }
    if x > 90.0 {
        x = 180.0 - x;
        if flips_at_90 {
            sign = -sign;
        }
    }
    (x, sign)
}

fn sind(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    let (x, sign) = first_quadrant(degree_arg(x)?, true, false);
    finite(sign * sind_q1(x))
}

fn cosd(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    let (x, sign) = first_quadrant(degree_arg(x)?, false, true);
    finite(sign * cosd_q1(x))
}

fn tand(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    let (x, sign) = first_quadrant(degree_arg(x)?, true, true);
    let tan_45 = sind_q1(45.0) / cosd_q1(45.0);
    // tand(90) is Infinity, not an error; no minus zero.
    Ok(no_minus_zero(sign * ((sind_q1(x) / cosd_q1(x)) / tan_45)))
}

fn cotd(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    let (x, sign) = first_quadrant(degree_arg(x)?, true, true);
    let cot_45 = cosd_q1(45.0) / sind_q1(45.0);
    Ok(no_minus_zero(sign * ((cosd_q1(x) / sind_q1(x)) / cot_45)))
}

fn asind(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    if !(-1.0..=1.0).contains(&x) {
        return Err(out_of_range());
    }
    finite(if x >= 0.0 { asind_q1(x) } else { -asind_q1(-x) })
}

fn acosd(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    if !(-1.0..=1.0).contains(&x) {
        return Err(out_of_range());
    }
    finite(if x >= 0.0 {
        acosd_q1(x)
    } else {
        90.0 + asind_q1(-x)
    })
}

fn atand(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    Ok((x.atan() / consts().atan_1_0) * 45.0)
}

fn atan2d(y: f64, x: f64) -> f64 {
    if y.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    (y.atan2(x) / consts().atan_1_0) * 45.0
}

fn finite(r: f64) -> Result<f64, DbError> {
    if r.is_infinite() {
        return Err(float_overflow());
    }
    Ok(r)
}

fn no_minus_zero(r: f64) -> f64 {
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

// ----- hyperbolic

/// sinh overflows to an infinity of the argument's sign, no error.
fn sinh(x: f64) -> Result<f64, DbError> {
    Ok(x.sinh())
}

fn cosh(x: f64) -> Result<f64, DbError> {
    let r = x.cosh();
    if r == 0.0 {
        return Err(float_underflow());
    }
    Ok(r)
}

fn tanh(x: f64) -> Result<f64, DbError> {
    finite(x.tanh())
}

fn acosh(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    if x < 1.0 {
        return Err(out_of_range());
    }
    Ok(x.acosh())
}

fn atanh(x: f64) -> Result<f64, DbError> {
    if x.is_nan() {
        return Ok(x);
    }
    if !(-1.0..=1.0).contains(&x) {
        return Err(out_of_range());
    }
    Ok(if x == -1.0 {
        f64::NEG_INFINITY
    } else if x == 1.0 {
        f64::INFINITY
    } else {
        x.atanh()
    })
}

// ----- gcd, lcm, factorial, scales

/// The integer arguments as i128 (so no absolute value overflows).
fn ints(a: &[Value]) -> Option<(i128, i128)> {
    Some((a[0].as_i64()? as i128, a[1].as_i64()? as i128))
}

fn gcd_i128(mut a: i128, mut b: i128) -> i128 {
    (a, b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// An integer result in the arguments' type, or 22003 naming it.
fn int_result(like: &Value, r: i128) -> Result<Value, DbError> {
    let range = || {
        let what = if matches!(like, Value::Int8(_)) {
            "bigint"
        } else {
            "integer"
        };
        DbError::new(
            SqlState::NumericValueOutOfRange,
            format!("{what} out of range"),
        )
    };
    match like {
        Value::Int8(_) => i64::try_from(r).map(Value::Int8).map_err(|_| range()),
        _ => i32::try_from(r).map(Value::Int4).map_err(|_| range()),
    }
}

fn numerics(a: &[Value]) -> Option<(Numeric, Numeric)> {
    let n = |v: &Value| match v {
        Value::Numeric(n) => Some(n.clone()),
        v => v.as_i64().map(Numeric::from_i64),
    };
    Some((n(&a[0])?, n(&a[1])?))
}

fn gcd(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    if let Some((x, y)) = ints(a).filter(|_| !matches!(a[0], Value::Numeric(_))) {
        return int_result(&a[0], gcd_i128(x, y));
    }
    let (x, y) = numerics(a).ok_or_else(|| no_function("gcd", &types(a)))?;
    Ok(Value::Numeric(x.gcd(&y)))
}

fn lcm(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    if let Some((x, y)) = ints(a).filter(|_| !matches!(a[0], Value::Numeric(_))) {
        let r = if x == 0 || y == 0 {
            0
        } else {
            (x / gcd_i128(x, y) * y).abs()
        };
        return int_result(&a[0], r);
    }
    let (x, y) = numerics(a).ok_or_else(|| no_function("lcm", &types(a)))?;
    x.lcm(&y).map(Value::Numeric)
}

fn types(a: &[Value]) -> Vec<DataType> {
    a.iter().map(Value::data_type).collect()
}

fn factorial(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    match a[0].as_i64() {
        Some(n) => Numeric::factorial(n).map(Value::Numeric),
        None => Ok(Value::Null),
    }
}

fn numeric_arg(v: &Value) -> Option<Numeric> {
    match v {
        Value::Numeric(n) => Some(n.clone()),
        v => v.as_i64().map(Numeric::from_i64),
    }
}

fn scale(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(numeric_arg(&a[0])
        .and_then(|n| n.display_scale())
        .map_or(Value::Null, Value::Int4))
}

fn min_scale(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(numeric_arg(&a[0])
        .and_then(|n| n.min_scale())
        .map_or(Value::Null, Value::Int4))
}

fn trim_scale(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(numeric_arg(&a[0]).map_or(Value::Null, |n| Value::Numeric(n.trim_scale())))
}

// ----- width_bucket

fn width_bucket(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let count = a[3].as_i64().unwrap_or(0) as i32;
    if let (Value::Numeric(o), Value::Numeric(lo), Value::Numeric(hi)) = (&a[0], &a[1], &a[2]) {
        return Numeric::width_bucket(o, lo, hi, count).map(Value::Int4);
    }
    width_bucket_float(float(&a[0]), float(&a[1]), float(&a[2]), count).map(Value::Int4)
}

fn bucket_error(msg: &str) -> DbError {
    DbError::new(SqlState::InvalidArgumentForWidthBucketFunction, msg)
}

/// width_bucket_float8.
fn width_bucket_float(operand: f64, low: f64, high: f64, count: i32) -> Result<i32, DbError> {
    if count <= 0 {
        return Err(bucket_error("count must be greater than zero"));
    }
    if operand.is_nan() || low.is_nan() || high.is_nan() {
        return Err(bucket_error(
            "operand, lower bound, and upper bound cannot be NaN",
        ));
    }
    if low.is_infinite() || high.is_infinite() {
        return Err(bucket_error("lower and upper bounds must be finite"));
    }
    let above = || {
        count
            .checked_add(1)
            .ok_or_else(|| DbError::new(SqlState::NumericValueOutOfRange, "integer out of range"))
    };
    // PostgreSQL 15's formula, in double precision; a result that is no
    // int4 (a range too wide for a double) converts as C on x86 does.
    let bucket = |num: f64, den: f64| {
        let r = count as f64 * num / den + 1.0;
        if r.is_nan() || !(-2147483648.0..2147483648.0).contains(&r) {
            i32::MIN
        } else {
            r as i32
        }
    };
    match low.partial_cmp(&high) {
        Some(Ordering::Less) if operand < low => Ok(0),
        Some(Ordering::Less) if operand >= high => above(),
        Some(Ordering::Less) => Ok(bucket(operand - low, high - low)),
        Some(Ordering::Greater) if operand > low => Ok(0),
        Some(Ordering::Greater) if operand <= high => above(),
        Some(Ordering::Greater) => Ok(bucket(low - operand, low - high)),
        _ => Err(bucket_error("lower bound cannot equal upper bound")),
    }
}

/// width_bucket(operand, thresholds): how many of the (sorted) thresholds
/// are <= the operand (width_bucket_array's binary search).
fn width_bucket_array(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let (op, Value::Array(arr)) = (&a[0], &a[1]) else {
        return Ok(Value::Null);
    };
    if op.is_null() {
        return Ok(Value::Null);
    }
    if arr.ndims() > 1 {
        return Err(DbError::new(
            SqlState::ArraySubscriptError,
            "thresholds must be one-dimensional array",
        ));
    }
    if arr.items.iter().any(Value::is_null) {
        return Err(DbError::new(
            SqlState::NullValueNotAllowed,
            "thresholds array must not contain NULLs",
        ));
    }
    let (mut left, mut right) = (0, arr.items.len());
    while left < right {
        let mid = (left + right) / 2;
        match crate::ops::compare_in(op, &arr.items[mid], ctx, "<")? {
            Some(Ordering::Less) => right = mid,
            _ => left = mid + 1,
        }
    }
    Ok(Value::Int4(left as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_functions_are_exact_at_special_angles() {
        assert_eq!(sind(30.0).unwrap(), 0.5);
        assert_eq!(sind(-210.0).unwrap(), 0.5);
        assert_eq!(cosd(60.0).unwrap(), 0.5);
        assert_eq!(cosd(180.0).unwrap(), -1.0);
        assert_eq!(tand(45.0).unwrap(), 1.0);
        assert_eq!(tand(90.0).unwrap(), f64::INFINITY);
        assert_eq!(cotd(45.0).unwrap(), 1.0);
        assert_eq!(asind(0.5).unwrap(), 30.0);
        assert_eq!(acosd(-0.5).unwrap(), 120.0);
        assert_eq!(atand(1.0).unwrap(), 45.0);
        assert_eq!(atan2d(1.0, -1.0), 135.0);
        assert!(sind(f64::INFINITY).is_err());
        assert!(asind(1.5).is_err());
    }

    #[test]
    fn integer_gcd_and_lcm_ranges() {
        assert_eq!(gcd_i128(i32::MIN as i128, -1), 1);
        let min = Value::Int4(i32::MIN);
        assert!(int_result(&min, gcd_i128(i32::MIN as i128, 0)).is_err());
        assert_eq!(
            int_result(&Value::Int8(0), gcd_i128(-12, 18)).unwrap(),
            Value::Int8(6)
        );
    }

    #[test]
    fn float_buckets() {
        assert_eq!(width_bucket_float(5.35, 0.024, 10.06, 5).unwrap(), 3);
        assert_eq!(width_bucket_float(10.0, 10.0, 0.0, 5).unwrap(), 1);
        assert_eq!(width_bucket_float(-1.0, 0.0, 10.0, 5).unwrap(), 0);
        assert!(width_bucket_float(1.0, 1.0, 1.0, 5).is_err());
    }
}
