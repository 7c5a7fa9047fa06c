//! `pg_lsn`: a position in the write-ahead log, 64 bits, written as two
//! hexadecimal numbers of up to eight digits (`16/B374D848`: the high and
//! the low 32 bits), as PostgreSQL's pg_lsn.c.
//!
//! ```text
//!   '0/16AE7F8'::pg_lsn - '0/16AE7F7'     1          (numeric: bytes)
//!   '0/16AE7F7'::pg_lsn + 16              0/16AE807  (numeric, rounded)
//!   'FFFFFFFF/FFFFFFFF'::pg_lsn + 1       22023 pg_lsn out of range
//! ```
//!
//! Values are `Value::PgLsn(u64)`: they compare, sort, hash (hashint8's)
//! and index as unsigned integers.

use nestor_common::{DbError, SqlState};

use crate::numeric::Numeric;

/// Hex digits in each half, at most.
const HALF_DIGITS_MAX: usize = 8;

fn syntax(input: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("invalid input syntax for type pg_lsn: \"{input}\""),
    )
}

/// PostgreSQL's 0A000 for a value pg_lsn cannot hold.
fn not_supported(msg: &str) -> DbError {
    DbError::new(SqlState::FeatureNotSupported, msg.to_string())
}

fn out_of_range() -> DbError {
    DbError::new(SqlState::InvalidParameterValue, "pg_lsn out of range")
}

/// pg_lsn_in: `X/Y`, each 1 to 8 hex digits, nothing around them.
pub fn parse(input: &str) -> Result<u64, DbError> {
    let (hi, lo) = input.split_once('/').ok_or_else(|| syntax(input))?;
    let half = |s: &str| {
        let ok =
            (1..=HALF_DIGITS_MAX).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit());
        ok.then(|| u32::from_str_radix(s, 16).ok()).flatten()
    };
    match (half(hi), half(lo)) {
        (Some(h), Some(l)) => Ok(u64::from(h) << 32 | u64::from(l)),
        _ => Err(syntax(input)),
    }
}

/// pg_lsn_out.
pub fn format(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn as u32)
}

/// pg_lsn_mi: the distance in bytes, as numeric (negative when `a` is
/// before `b`).
pub fn minus(a: u64, b: u64) -> Numeric {
    let d = i128::from(a) - i128::from(b);
    Numeric::parse(&d.to_string()).expect("an integer is a numeric")
}

/// numeric_pg_lsn (pg_lsn(numeric)): rounded to an integer, which must
/// fit in 64 bits unsigned.
pub fn from_numeric(n: &Numeric) -> Result<u64, DbError> {
    if n.is_nan() {
        return Err(not_supported("cannot convert NaN to pg_lsn"));
    }
    let text = n.round(0)?.to_string();
    if text.contains("Infinity") {
        return Err(not_supported("cannot convert infinity to pg_lsn"));
    }
    text.parse::<u64>().map_err(|_| out_of_range())
}

/// pg_lsn_pli / pg_lsn_mii: `lsn` plus (or minus) `bytes`.
pub fn add(lsn: u64, bytes: &Numeric, subtract: bool) -> Result<u64, DbError> {
    if bytes.is_nan() {
        let msg = if subtract {
            "cannot subtract NaN from pg_lsn"
        } else {
            "cannot add NaN to pg_lsn"
        };
        return Err(not_supported(msg));
    }
    let base = Numeric::parse(&lsn.to_string()).expect("an integer is a numeric");
    let sum = if subtract {
        base.sub(bytes)?
    } else {
        base.add(bytes)?
    };
    from_numeric(&sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_is_postgres() {
        assert_eq!(parse("16/B374D848").unwrap(), 0x16_B374_D848);
        assert_eq!(format(0x16_B374_D848), "16/B374D848");
        assert_eq!(format(u64::MAX), "FFFFFFFF/FFFFFFFF");
        assert_eq!(format(0), "0/0");
        for bad in [
            "G/0",
            "-1/0",
            " 0/1",
            "ABCD/",
            "/ABCD",
            "123456789/0",
            "0/0 ",
            "+1/0",
        ] {
            assert_eq!(
                parse(bad).unwrap_err().code,
                SqlState::InvalidTextRepresentation
            );
        }
    }

    #[test]
    fn arithmetic_rounds_and_checks_range() {
        let n = |s: &str| Numeric::parse(s).unwrap();
        assert_eq!(minus(1, 2).to_string(), "-1");
        assert_eq!(add(10, &n("1.5"), false).unwrap(), 12);
        assert_eq!(add(10, &n("0.5"), true).unwrap(), 10);
        assert!(add(u64::MAX, &n("1"), false).is_err());
        assert!(add(0, &n("1"), true).is_err());
        assert_eq!(from_numeric(&n("18446744073709551615")).unwrap(), u64::MAX);
        assert!(from_numeric(&n("NaN")).is_err());
    }
}
