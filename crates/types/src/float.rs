//! `real` / `double precision` text I/O.
//!
//! Output is PostgreSQL 12+'s default (`extra_float_digits = 1`): the
//! shortest decimal that reads back to the same float (Rust's `{:e}`
//! formatting computes exactly that digit string), laid out as C's `%g`
//! would: plain notation for decimal exponents in `-4 ..< 15` (float8) or
//! `-4 ..< 6` (float4), otherwise `d.ddde+XX` with at least two exponent
//! digits. Input accepts surrounding whitespace, `NaN`, `Infinity`, `inf`
//! (any case, signed) and decimal/exponent forms; results that overflow to
//! infinity or underflow to zero are 22003, like `strtod`'s ERANGE.

use nestor_common::{DbError, SqlState};

/// Shortest round-trip text of a float8.
pub fn format_f64(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    layout(&format!("{v:e}"), 15)
}

/// Shortest round-trip text of a float4.
pub fn format_f32(v: f32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    layout(&format!("{v:e}"), 6)
}

/// Lays out Rust's `{:e}` output (`-1.2345e-7`) like `%g` with `digits` of
/// precision for the plain/exponent decision.
fn layout(sci: &str, plain_limit: i32) -> String {
    let (mant, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant),
    };
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
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
        out.push_str(&digits);
    } else {
        let point = exp as usize + 1;
        if digits.len() <= point {
            out.push_str(&digits);
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
pub fn parse_f64(input: &str) -> Result<f64, DbError> {
    let s = input.trim_matches(|c: char| c.is_ascii_whitespace());
    if !float_syntax_ok(s) {
        return Err(float_err(SqlState::InvalidTextRepresentation, input, "double precision", true));
    }
    let v: f64 = s.parse().map_err(|_| {
        float_err(SqlState::InvalidTextRepresentation, input, "double precision", true)
    })?;
    let body_inf = s.to_ascii_lowercase().contains("inf");
    if (v.is_infinite() && !body_inf) || (v == 0.0 && mantissa_nonzero(s)) {
        return Err(float_err(SqlState::NumericValueOutOfRange, s, "double precision", false));
    }
    Ok(v)
}

/// float4 input.
pub fn parse_f32(input: &str) -> Result<f32, DbError> {
    let s = input.trim_matches(|c: char| c.is_ascii_whitespace());
    if !float_syntax_ok(s) {
        return Err(float_err(SqlState::InvalidTextRepresentation, input, "real", true));
    }
    let v: f32 = s
        .parse()
        .map_err(|_| float_err(SqlState::InvalidTextRepresentation, input, "real", true))?;
    let body_inf = s.to_ascii_lowercase().contains("inf");
    if (v.is_infinite() && !body_inf) || (v == 0.0 && mantissa_nonzero(s)) {
        return Err(float_err(SqlState::NumericValueOutOfRange, s, "real", false));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn input_like_postgres() {
        assert_eq!(parse_f64(" 1.5 ").unwrap(), 1.5);
        assert_eq!(parse_f64("-inf").unwrap(), f64::NEG_INFINITY);
        assert!(parse_f64("NaN").unwrap().is_nan());
        assert_eq!(parse_f64(".5e1").unwrap(), 5.0);
        let e = parse_f64("abc").unwrap_err();
        assert_eq!(e.message, "invalid input syntax for type double precision: \"abc\"");
        let e = parse_f64("1e400").unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (SqlState::NumericValueOutOfRange, "\"1e400\" is out of range for type double precision"));
        assert!(parse_f64("1e-400").is_err());
        assert_eq!(parse_f32("1e39").unwrap_err().message, "\"1e39\" is out of range for type real");
        for bad in ["", "1e", "e5", "--1", "1.2.3", "0x10", "infinityx"] {
            assert!(parse_f64(bad).is_err(), "{bad}");
        }
    }
}
