//! `real` / `double precision` text I/O.
//!
//! Output is PostgreSQL 12+'s default (`extra_float_digits = 1`): the
//! shortest decimal that reads back to the same float, chosen by the rules
//! of PostgreSQL's Ryu port (`common/d2s.c`, `f2s.c`): the rounding
//! interval's end points are *excluded* (`acceptBounds = false`), and among
//! the shortest candidates the one nearest the exact value wins, ties to
//! even. Rust's own shortest formatting accepts the end points and breaks
//! ties differently, so it only provides the starting digit count; the
//! choice is made in exact integer arithmetic (the private `bigint` module). Layout
//! is C's `%g`: plain notation for decimal exponents in `-4 ..< 15`
//! (float8) or `-4 ..< 6` (float4), otherwise `d.ddde+XX` with at least
//! two exponent digits. Input accepts surrounding whitespace, `NaN`, `Infinity`, `inf`
//! (any case, signed) and decimal/exponent forms; results that overflow to
//! infinity or underflow to zero are 22003, like `strtod`'s ERANGE.

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};

use crate::bigint::{self as big, Mag};

/// Shortest round-trip text of a float8.
pub(crate) fn format_f64(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let bits = v.to_bits();
    let (mant, exp) = (bits & ((1 << 52) - 1), ((bits >> 52) & 0x7ff) as i32);
    let (digits, k) = pg_shortest(mant, exp, 52, 1023, &format!("{v:e}"));
    layout(v.is_sign_negative(), &digits, k, 15)
}

/// `%.{precision}g`: what PostgreSQL prints for a float when
/// extra_float_digits <= 0 (precision = 15 or 6, plus extra_float_digits).
pub(crate) fn format_digits(v: f64, precision: i32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let p = precision.clamp(1, 17);
    let sci = format!("{:.*e}", (p - 1) as usize, v.abs());
    let (mantissa, exp) = sci.split_once('e').expect("{:e} output has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    let digits = mantissa.replace('.', "");
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let k = exp - (digits.len() as i32 - 1);
    layout(v.is_sign_negative(), digits, k, p)
}

/// Shortest round-trip text of a float4.
pub(crate) fn format_f32(v: f32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let bits = v.to_bits() as u64;
    let (mant, exp) = (bits & ((1 << 23) - 1), ((bits >> 23) & 0xff) as i32);
    let (digits, k) = pg_shortest(mant, exp, 23, 127, &format!("{v:e}"));
    layout(v.is_sign_negative(), &digits, k, 6)
}

fn pow2(mut e: u32) -> Mag {
    let mut m = vec![1];
    while e >= 29 {
        m = big::mul_small(&m, 1 << 29);
        e -= 29;
    }
    big::mul_small(&m, 1 << e)
}

/// Shortest digits `d` and exponent `k` (value `d * 10^k`) of a non-zero
/// finite float given as IEEE mantissa/exponent fields, with Ryu's interval
/// (bounds excluded) and rounding (nearest, ties to even). `hint` is Rust's
/// shortest `{:e}` text, whose last-digit position is an upper bound for k.
fn pg_shortest(mant: u64, ieee_exp: i32, mbits: u32, bias: i32, hint: &str) -> (String, i32) {
    let (m2, e2) = if ieee_exp == 0 {
        (mant, 1 - bias - mbits as i32 - 2)
    } else {
        (mant | (1 << mbits), ieee_exp - bias - mbits as i32 - 2)
    };
    let mm_shift = u64::from(mant != 0 || ieee_exp <= 1);
    let (mv, mp, mm) = (4 * m2, 4 * m2 + 2, 4 * m2 - 1 - mm_shift);
    let (num_scale, den) = if e2 >= 0 {
        (pow2(e2 as u32), vec![1])
    } else {
        (vec![1], pow2((-e2) as u32))
    };
    let scaled = |x: u64| big::mul(&big::from_u128(x as u128), &num_scale);
    let (nv, np, nm) = (scaled(mv), scaled(mp), scaled(mm));
    let mut k = hint_last_digit_exp(hint);
    loop {
        let (v, p, m, d) = if k >= 0 {
            (
                nv.clone(),
                np.clone(),
                nm.clone(),
                big::mul_pow10(&den, k as u32),
            )
        } else {
            let up = |x: &Mag| big::mul_pow10(x, (-k) as u32);
            (up(&nv), up(&np), up(&nm), den.clone())
        };
        let low = big::add(&big::divmod(&m, &d).0, &[1]);
        let (qp, rp) = big::divmod(&p, &d);
        let high = if rp.is_empty() {
            big::sub(&qp, &[1])
        } else {
            qp
        };
        if big::cmp(&low, &high) != Ordering::Greater {
            let (mut q, r) = big::divmod(&v, &d);
            let twice = big::mul_small(&r, 2);
            let round_up = match big::cmp(&twice, &d) {
                Ordering::Greater => true,
                Ordering::Equal => q.first().is_some_and(|x| x % 2 == 1),
                Ordering::Less => false,
            };
            if round_up {
                q = big::add(&q, &[1]);
            }
            if big::cmp(&q, &low) == Ordering::Less {
                q = low;
            } else if big::cmp(&q, &high) == Ordering::Greater {
                q = high;
            }
            let digits = big::to_decimal(&q);
            let trimmed = digits.trim_end_matches('0');
            let k = k + (digits.len() - trimmed.len()) as i32;
            return (trimmed.to_string(), k);
        }
        k -= 1;
    }
}

/// Exponent of the last digit of Rust's `{:e}` output (`1.25e-3` -> -5).
fn hint_last_digit_exp(sci: &str) -> i32 {
    let (mant, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits = mant.chars().filter(char::is_ascii_digit).count() as i32;
    exp - (digits - 1)
}

/// Lays out `digits * 10^k` like `%g`, plain for decimal exponents in
/// `-4 ..< plain_limit`.
fn layout(neg: bool, digits: &str, k: i32, plain_limit: i32) -> String {
    let exp = k + digits.len() as i32 - 1;
    let mut out = String::with_capacity(24);
    if neg {
        out.push('-');
    }
    if exp < -4 || exp >= plain_limit {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        out.push_str(&format!("e{sign}{:02}", exp.abs()));
    } else if exp < 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat((-exp - 1) as usize));
        out.push_str(digits);
    } else {
        let point = exp as usize + 1;
        if digits.len() <= point {
            out.push_str(digits);
            out.push_str(&"0".repeat(point - digits.len()));
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
}

fn float_syntax_ok(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "nan" | "inf" | "infinity") {
        return lower.len() - body.len() <= 1;
    }
    // digits [. digits] [e [+-] digits], at least one mantissa digit
    let b = body.as_bytes();
    let mut i = 0;
    let mut mant_digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        mant_digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            mant_digits += 1;
        }
    }
    if mant_digits == 0 || lower.len() - body.len() > 1 {
        return false;
    }
    if i < b.len() && b[i] == b'e' {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == b.len()
}

fn mantissa_nonzero(s: &str) -> bool {
    s.split(['e', 'E'])
        .next()
        .is_some_and(|m| m.bytes().any(|c| (b'1'..=b'9').contains(&c)))
}

fn float_err(code: SqlState, input: &str, type_name: &str, syntax: bool) -> DbError {
    let msg = if syntax {
        format!("invalid input syntax for type {type_name}: \"{input}\"")
    } else {
        format!("\"{input}\" is out of range for type {type_name}")
    };
    DbError::new(code, msg)
}

/// float8 input.
pub(crate) fn parse_f64(input: &str) -> Result<f64, DbError> {
    let s = input.trim_matches(|c: char| c.is_ascii_whitespace());
    if !float_syntax_ok(s) {
        return Err(float_err(
            SqlState::InvalidTextRepresentation,
            input,
            "double precision",
            true,
        ));
    }
    let v: f64 = s.parse().map_err(|_| {
        float_err(
            SqlState::InvalidTextRepresentation,
            input,
            "double precision",
            true,
        )
    })?;
    let body_inf = s.to_ascii_lowercase().contains("inf");
    if (v.is_infinite() && !body_inf) || (v == 0.0 && mantissa_nonzero(s)) {
        return Err(float_err(
            SqlState::NumericValueOutOfRange,
            s,
            "double precision",
            false,
        ));
    }
    Ok(v)
}

/// float4 input.
pub(crate) fn parse_f32(input: &str) -> Result<f32, DbError> {
    let s = input.trim_matches(|c: char| c.is_ascii_whitespace());
    if !float_syntax_ok(s) {
        return Err(float_err(
            SqlState::InvalidTextRepresentation,
            input,
            "real",
            true,
        ));
    }
    let v: f32 = s
        .parse()
        .map_err(|_| float_err(SqlState::InvalidTextRepresentation, input, "real", true))?;
    let body_inf = s.to_ascii_lowercase().contains("inf");
    if (v.is_infinite() && !body_inf) || (v == 0.0 && mantissa_nonzero(s)) {
        return Err(float_err(
            SqlState::NumericValueOutOfRange,
            s,
            "real",
            false,
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_digit_output_like_postgres() {
        // extra_float_digits <= 0 (outputs taken from PostgreSQL 15).
        assert_eq!(format_digits(1.0 / 3.0, 15), "0.333333333333333");
        assert_eq!(format_digits(2.5e-5, 15), "2.5e-05");
        assert_eq!(
            format_digits(123456789012345678.0, 15),
            "1.23456789012346e+17"
        );
        assert_eq!(format_digits(1e20, 15), "1e+20");
        assert_eq!(format_digits(100.0, 15), "100");
        assert_eq!(format_digits(0.1 + 0.2, 15), "0.3");
        assert_eq!(format_digits(1.0 / 3.0, 12), "0.333333333333");
        assert_eq!(format_digits(std::f64::consts::PI, 0), "3");
        assert_eq!(format_digits(-0.0, 15), "-0");
    }

    #[test]
    fn output_like_postgres() {
        assert_eq!(format_f64(1e15), "1e+15");
        assert_eq!(format_f64(123456789012345.0), "123456789012345");
        assert_eq!(format_f64(1e-5), "1e-05");
        assert_eq!(format_f64(0.1), "0.1");
        assert_eq!(format_f64(1e-4), "0.0001");
        assert_eq!(format_f64(-0.0), "-0");
        assert_eq!(format_f64(1e301), "1e+301");
        assert_eq!(format_f64(1e-310), "1e-310");
        assert_eq!(format_f64(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(format_f64(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_f32(1e6), "1e+06");
        assert_eq!(format_f32(123456.0), "123456");
        assert_eq!(format_f32(3.4e38), "3.4e+38");
        assert_eq!(format_f32(1.5), "1.5");
        assert_eq!(format_f32(f32::NAN), "NaN");
        // Ryu as PostgreSQL builds it: bounds excluded, ties to even.
        assert_eq!(format_f32(f32::from_bits(0xce14302e)), "-6.2154637e+08");
        assert_eq!(format_f32(f32::from_bits(0x48ea8494)), "480292.62");
        assert_eq!(format_f32(f32::from_bits(0xc8a4ee84)), "-337780.12");
        assert_eq!(format_f32(16777215.0), "1.6777215e+07");
        assert_eq!(format_f32(f32::MIN_POSITIVE), "1.1754944e-38");
        assert_eq!(format_f32(1e-45), "1e-45");
        assert_eq!(format_f64(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(format_f64(5e-324), "5e-324");
        assert_eq!(format_f64(0.0), "0");
    }

    #[test]
    fn input_like_postgres() {
        assert_eq!(parse_f64(" 1.5 ").unwrap(), 1.5);
        assert_eq!(parse_f64("-inf").unwrap(), f64::NEG_INFINITY);
        assert!(parse_f64("NaN").unwrap().is_nan());
        assert_eq!(parse_f64(".5e1").unwrap(), 5.0);
        let e = parse_f64("abc").unwrap_err();
        assert_eq!(
            e.message,
            "invalid input syntax for type double precision: \"abc\""
        );
        let e = parse_f64("1e400").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                SqlState::NumericValueOutOfRange,
                "\"1e400\" is out of range for type double precision"
            )
        );
        assert!(parse_f64("1e-400").is_err());
        assert_eq!(
            parse_f32("1e39").unwrap_err().message,
            "\"1e39\" is out of range for type real"
        );
        for bad in ["", "1e", "e5", "--1", "1.2.3", "0x10", "infinityx"] {
            assert!(parse_f64(bad).is_err(), "{bad}");
        }
    }
}
