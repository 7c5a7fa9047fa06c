//! `money`: a currency amount, a signed count of cents (PostgreSQL's
//! `Cash`, an int8), formatted as PostgreSQL does with `lc_monetary = C`
//! (two fraction digits, `$`, `,` between thousands, a leading `-`).
//!
//! Input is cash_in's: white space, an optional `$`, a sign (`-`, `+` or
//! an opening parenthesis for negative), another optional `$`, then
//! digits with `,` separators ignored and at most one `.`; a third
//! fraction digit rounds (5 and up away from zero), further digits are
//! skipped; after the number only white space, `)`, a sign or `$` may
//! follow (a trailing `-` makes it negative). Out of range is 22003
//! `value "…" is out of range for type money`.
//!
//! Arithmetic (cash.c, with the overflow checks PostgreSQL 15.8 added):
//! money ± money; money × and ÷ an integer (the quotient truncates) or a
//! float (the result rounds to the nearest cent, `rint`); money ÷ money is
//! a float8. Overflow is 22003 `money out of range`. money has no hash
//! operator class in PostgreSQL, so it is sorted, never hashed, by
//! set operations there.

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{no_function, Imp, Resolved};
use crate::numeric::Numeric;
use crate::value::Value;

/// The money functions: `cash_words`, `cashlarger`, `cashsmaller`.
pub(crate) const NAMES: &[&str] = &["cash_words", "cashlarger", "cashsmaller"];

fn is_money(t: DataType) -> bool {
    matches!(t, DataType::Money | DataType::Unknown)
}

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let m = DataType::Money;
    let (imp, arg_types, ret): (Imp, Vec<DataType>, DataType) = match (name, args) {
        ("cash_words", [a]) if is_money(*a) => (cash_words, vec![m], DataType::Text),
        ("cashlarger", [a, b]) if is_money(*a) && is_money(*b) => (larger, vec![m, m], m),
        ("cashsmaller", [a, b]) if is_money(*a) && is_money(*b) => (smaller, vec![m, m], m),
        _ => return Some(Err(no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, false,
    )))
}

fn cash_words(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match &a[0] {
        Value::Money(c) => Value::text(&words(*c)),
        _ => Value::Null,
    })
}

fn larger(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match (&a[0], &a[1]) {
        (Value::Money(x), Value::Money(y)) => Value::Money(*x.max(y)),
        _ => Value::Null,
    })
}

fn smaller(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match (&a[0], &a[1]) {
        (Value::Money(x), Value::Money(y)) => Value::Money(*x.min(y)),
        _ => Value::Null,
    })
}

/// 22003 `money out of range`.
pub(crate) fn out_of_range() -> DbError {
    DbError::new(SqlState::NumericValueOutOfRange, "money out of range")
}

fn div_zero() -> DbError {
    DbError::new(SqlState::DivisionByZero, "division by zero")
}

/// cash_in (lc_monetary = C).
pub fn parse(input: &str) -> Result<i64, DbError> {
    let range = || {
        DbError::new(
            SqlState::NumericValueOutOfRange,
            format!("value \"{input}\" is out of range for type money"),
        )
    };
    let b = input.as_bytes();
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while b.get(*i).is_some_and(|c| c.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    let skip_symbol = |i: &mut usize| {
        skip_space(i);
        if b.get(*i) == Some(&b'$') {
            *i += 1;
        }
        skip_space(i);
    };
    skip_symbol(&mut i);
    let mut negative = false;
    match b.get(i) {
        Some(b'-') | Some(b'(') => {
            negative = true;
            i += 1;
        }
        Some(b'+') => i += 1,
        _ => {}
    }
    skip_symbol(&mut i);
    // Built in the negative, as cash_in does, so the minimum fits.
    let mut value: i64 = 0;
    let (mut seen_dot, mut dec) = (false, 0);
    while let Some(&c) = b.get(i) {
        if c.is_ascii_digit() && (!seen_dot || dec < 2) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_sub((c - b'0') as i64))
                .ok_or_else(range)?;
            if seen_dot {
                dec += 1;
            }
        } else if c == b'.' && !seen_dot {
            seen_dot = true;
        } else if c != b',' {
            break;
        }
        i += 1;
    }
    if b.get(i).is_some_and(|c| (b'5'..=b'9').contains(c)) {
        value = value.checked_sub(1).ok_or_else(range)?;
    }
    for _ in dec..2 {
        value = value.checked_mul(10).ok_or_else(range)?;
    }
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    while let Some(&c) = b.get(i) {
        match c {
            b'-' => negative = true,
            b')' | b'+' | b'$' => {}
            c if c.is_ascii_whitespace() => {}
            _ => {
                return Err(DbError::new(
                    SqlState::InvalidTextRepresentation,
                    format!("invalid input syntax for type money: \"{input}\""),
                ))
            }
        }
        i += 1;
    }
    if negative {
        Ok(value)
    } else {
        value.checked_neg().ok_or_else(range)
    }
}

/// cash_out (lc_monetary = C): `$1,234.56`, `-$0.01`.
pub fn format(cents: i64) -> String {
    let mut digits: Vec<u8> = Vec::with_capacity(32);
    let mut v = cents.unsigned_abs();
    let mut pos: i32 = 2;
    loop {
        if pos == 0 {
            digits.push(b'.');
        } else if pos < 0 && pos % 3 == 0 {
            digits.push(b',');
        }
        digits.push(b'0' + (v % 10) as u8);
        v /= 10;
        pos -= 1;
        if v == 0 && pos < 0 {
            break;
        }
    }
    let mut s = String::with_capacity(digits.len() + 2);
    if cents < 0 {
        s.push('-');
    }
    s.push('$');
    s.extend(digits.iter().rev().map(|&c| c as char));
    s
}

/// money + money, money − money.
pub(crate) fn add(a: i64, b: i64, negate: bool) -> Result<Value, DbError> {
    let r = if negate {
        a.checked_sub(b)
    } else {
        a.checked_add(b)
    };
    r.map(Value::Money).ok_or_else(out_of_range)
}

/// money × integer.
pub(crate) fn mul_int(c: i64, i: i64) -> Result<Value, DbError> {
    c.checked_mul(i).map(Value::Money).ok_or_else(out_of_range)
}

/// money ÷ integer (truncating).
pub(crate) fn div_int(c: i64, i: i64) -> Result<Value, DbError> {
    if i == 0 {
        return Err(div_zero());
    }
    Ok(Value::Money(c.checked_div(i).unwrap_or(i64::MIN)))
}

/// money × float and money ÷ float: float8 arithmetic, rounded to a cent.
pub(crate) fn float_op(c: i64, f: f64, divide: bool) -> Result<Value, DbError> {
    let op = if divide {
        crate::ops::BinaryOp::Div
    } else {
        crate::ops::BinaryOp::Mul
    };
    let r = crate::ops::float_arith(op, c as f64, f)?.round_ties_even();
    // FLOAT8_FITS_IN_INT64: [-2^63, 2^63).
    if r.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        return Err(out_of_range());
    }
    Ok(Value::Money(r as i64))
}

/// money ÷ money: a float8.
pub(crate) fn div_money(a: i64, b: i64) -> Result<Value, DbError> {
    if b == 0 {
        return Err(div_zero());
    }
    Ok(Value::Float8(a as f64 / b as f64))
}

/// money → numeric (scale 2).
pub(crate) fn to_numeric(c: i64) -> Numeric {
    crate::datetime_fns::fixed(c as i128, 2)
}

fn bigint_range() -> DbError {
    DbError::new(SqlState::NumericValueOutOfRange, "bigint out of range")
}

/// integer → money (int8_cash: amount × 100 as int8).
pub(crate) fn from_int(i: i64) -> Result<Value, DbError> {
    i.checked_mul(100)
        .map(Value::Money)
        .ok_or_else(bigint_range)
}

/// numeric → money (numeric_cash: amount × 100 rounded to an int8, with
/// numeric_int8's errors).
pub(crate) fn from_numeric(n: &Numeric) -> Result<Value, DbError> {
    if n.is_nan() || !n.is_finite() {
        let what = if n.is_nan() { "NaN" } else { "infinity" };
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("cannot convert {what} to bigint"),
        )
        .unpositioned());
    }
    let scaled = n.mul(&Numeric::from_i64(100))?;
    scaled
        .to_i64_rounded()
        .map(Value::Money)
        .ok_or_else(bigint_range)
}

/// cash_words: the amount in English words (`One dollar and one cent`).
pub(crate) fn words(cents: i64) -> String {
    let mut out = String::new();
    if cents < 0 {
        out.push_str("minus ");
    }
    let start = out.len();
    let val = cents.unsigned_abs();
    let group = |div: u64| (val / div % 1000) as usize;
    for (div, name) in [
        (100_000_000_000_000_000, " quadrillion "),
        (100_000_000_000_000, " trillion "),
        (100_000_000_000, " billion "),
        (100_000_000, " million "),
        (100_000, " thousand "),
    ] {
        if group(div) != 0 {
            out.push_str(&num_word(group(div)));
            out.push_str(name);
        }
    }
    if group(100) != 0 {
        out.push_str(&num_word(group(100)));
    }
    if out.len() == start {
        out.push_str("zero");
    }
    out.push_str(if val / 100 == 1 {
        " dollar and "
    } else {
        " dollars and "
    });
    let m0 = (val % 100) as usize;
    out.push_str(&num_word(m0));
    out.push_str(if m0 == 1 { " cent" } else { " cents" });
    let mut chars = out.chars();
    match chars.next() {
        Some(c) => c.to_ascii_uppercase().to_string() + chars.as_str(),
        None => out,
    }
}

/// num_word: 0..=999 in words, as cash.c spells them.
fn num_word(value: usize) -> String {
    const SMALL: [&str; 28] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
    ];
    let big = |i: usize| SMALL[18 + i];
    let tu = value % 100;
    if value <= 20 {
        return SMALL[value].to_string();
    }
    if tu == 0 {
        return format!("{} hundred", SMALL[value / 100]);
    }
    // A multiple of ten above ten (`thirty`), a number below twenty
    // (`and ten` after hundreds), or tens and units.
    let (tail, and) = if value.is_multiple_of(10) && tu > 10 {
        (big(tu / 10).to_string(), "")
    } else if tu < 20 {
        (SMALL[tu].to_string(), "and ")
    } else {
        (format!("{} {}", big(tu / 10), SMALL[tu % 10]), "")
    };
    if value > 99 {
        format!("{} hundred {and}{tail}", SMALL[value / 100])
    } else {
        tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input() {
        let ok = |s: &str| parse(s).unwrap();
        assert_eq!(ok("123"), 12300);
        assert_eq!(ok("$123.45"), 12345);
        assert_eq!(ok("$123.454"), 12345);
        assert_eq!(ok("$123.455"), 12346);
        assert_eq!(ok("(1)"), -100);
        assert_eq!(ok("($123,456.78)"), -12345678);
        assert_eq!(ok("$-1"), -100);
        assert_eq!(ok("1-"), -100);
        assert_eq!(ok("- $ 3"), -300);
        assert_eq!(ok("3$"), 300);
        assert_eq!(ok(""), 0);
        assert_eq!(ok("1,2,3"), 12300);
        assert_eq!(ok(".5"), 50);
        assert_eq!(ok("0.005"), 1);
        assert_eq!(ok("-92233720368547758.08"), i64::MIN);
        assert_eq!(ok("92233720368547758.07"), i64::MAX);
        for bad in [
            "92233720368547758.08",
            "-92233720368547758.085",
            "123456789012345678",
        ] {
            assert_eq!(
                parse(bad).unwrap_err().code,
                SqlState::NumericValueOutOfRange
            );
        }
        for bad in ["12.3.4", "abc", "1 2", "1e3"] {
            assert_eq!(
                parse(bad).unwrap_err().code,
                SqlState::InvalidTextRepresentation
            );
        }
    }

    #[test]
    fn output() {
        assert_eq!(format(12300), "$123.00");
        assert_eq!(format(-1), "-$0.01");
        assert_eq!(format(0), "$0.00");
        assert_eq!(format(123456789), "$1,234,567.89");
        assert_eq!(format(i64::MIN), "-$92,233,720,368,547,758.08");
        assert_eq!(format(i64::MAX), "$92,233,720,368,547,758.07");
    }

    #[test]
    fn arithmetic_and_words() {
        assert_eq!(float_op(87808, 11.0, true).unwrap(), Value::Money(7983));
        assert_eq!(div_int(87808, 11).unwrap(), Value::Money(7982));
        assert!(float_op(42, f64::INFINITY, false).is_err());
        assert!(mul_int(i64::MAX, 2).is_err());
        assert_eq!(
            words(-123456789),
            "Minus one million two hundred thirty four thousand five hundred sixty seven dollars and eighty nine cents"
        );
        assert_eq!(words(0), "Zero dollars and zero cents");
        assert_eq!(
            words(100_000_000_000_000),
            "One trillion  dollars and zero cents"
        );
        assert_eq!(words(101), "One dollar and one cent");
        assert_eq!(num_word(110), "one hundred and ten");
        assert_eq!(num_word(120), "one hundred twenty");
        assert_eq!(num_word(105), "one hundred and five");
    }
}
