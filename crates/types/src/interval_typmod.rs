//! `interval(p)` and interval field restrictions (`interval day to second`).
//!
//! PostgreSQL keeps both in one typmod: the fields as a bit mask in the
//! high 16 bits (`INTERVAL_MASK(DAY) | ...`, 0x7FFF for all fields) and the
//! fractional-second precision in the low 16 (0xFFFF for unconstrained).
//! [`IntervalMod`] is that typmod; [`IntervalMod::from_typmods`] is
//! intervaltypmodin (what the grammar hands over: `interval(2)` is
//! `[0x7FFF, 2]`, `interval minute to second(3)` is `[0x1800, 3]`),
//! `Display` is intervaltypmodout and [`IntervalMod::adjust`] is
//! AdjustIntervalForTypmod: the fields below the restriction are dropped
//! (`interval '1 day 02:03:04' day to hour` is `1 day 02:00:00`), then the
//! seconds rounded to the precision.
//!
//! On input a restriction also names the unit of a bare number:
//! `interval '2' hour` is two hours, `interval '1 2' day to hour` one day
//! two hours, and under MINUTE TO SECOND `'12:34'` is minutes and seconds
//! ([`IntervalMod::field_mask`], read by `crate::datetime_input`).
//!
//! Left out: the WARNING for a precision above 6 (6 is used).

use std::fmt;

use nestor_common::{DbError, SqlState};

use crate::datetime::{Interval, USECS_PER_HOUR, USECS_PER_SEC};

const MONTH: u32 = 1 << 1;
const YEAR: u32 = 1 << 2;
const DAY: u32 = 1 << 3;
const HOUR: u32 = 1 << 10;
const MINUTE: u32 = 1 << 11;
const SECOND: u32 = 1 << 12;
const FULL_RANGE: u32 = 0x7FFF;
const FULL_PRECISION: u32 = 0xFFFF;
/// MAX_INTERVAL_PRECISION.
const PRECISION_MAX: u32 = 6;

/// The field sets PostgreSQL accepts, with their intervaltypmodout text.
const RANGES: [(u32, &str); 14] = [
    (YEAR, " year"),
    (MONTH, " month"),
    (DAY, " day"),
    (HOUR, " hour"),
    (MINUTE, " minute"),
    (SECOND, " second"),
    (YEAR | MONTH, " year to month"),
    (DAY | HOUR, " day to hour"),
    (DAY | HOUR | MINUTE, " day to minute"),
    (DAY | HOUR | MINUTE | SECOND, " day to second"),
    (HOUR | MINUTE, " hour to minute"),
    (HOUR | MINUTE | SECOND, " hour to second"),
    (MINUTE | SECOND, " minute to second"),
    (FULL_RANGE, ""),
];

/// An interval typmod (PostgreSQL's encoding, never -1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntervalMod(u32);

fn invalid_typmod() -> DbError {
    DbError::new(
        SqlState::InvalidParameterValue,
        "invalid INTERVAL type modifier",
    )
}

impl IntervalMod {
    /// intervaltypmodin. Ok(None) is a plain `interval`.
    pub fn from_typmods(typmods: &[i64]) -> Result<Option<IntervalMod>, DbError> {
        let Some(&range) = typmods.first() else {
            return Ok(None);
        };
        if !RANGES.iter().any(|r| r.0 as i64 == range) {
            return Err(invalid_typmod());
        }
        let range = range as u32;
        match typmods {
            [_] if range == FULL_RANGE => Ok(None),
            [_] => Ok(Some(IntervalMod(range << 16 | FULL_PRECISION))),
            [_, p] if *p < 0 => Err(DbError::new(
                SqlState::InvalidParameterValue,
                format!("INTERVAL({p}) precision must not be negative"),
            )),
            [_, p] => Ok(Some(IntervalMod(
                range << 16 | (*p).min(PRECISION_MAX as i64) as u32,
            ))),
            _ => Err(invalid_typmod()),
        }
    }

    /// From a catalog or wire typmod (None for -1 or one PostgreSQL would
    /// not produce).
    pub fn from_typmod(typmod: i32) -> Option<IntervalMod> {
        let t = u32::try_from(typmod).ok()?;
        let range_ok = RANGES.iter().any(|r| r.0 == t >> 16);
        let p = t & 0xFFFF;
        (range_ok && (p <= PRECISION_MAX || p == FULL_PRECISION)).then_some(IntervalMod(t))
    }

    pub fn typmod(self) -> i32 {
        self.0 as i32
    }

    fn range(self) -> u32 {
        self.0 >> 16
    }

    fn precision(self) -> Option<u32> {
        Some(self.0 & 0xFFFF).filter(|&p| p != FULL_PRECISION)
    }

    /// The restriction's field mask (PostgreSQL's INTERVAL_MASK bits),
    /// which interval input reads a bare number and `a:b` by.
    pub(crate) fn field_mask(self) -> u32 {
        self.range()
    }

    /// AdjustIntervalForTypmod.
    pub fn adjust(self, iv: Interval) -> Interval {
        const MINUTE_US: i64 = 60 * USECS_PER_SEC;
        let mut iv = iv;
        match self.range() {
            YEAR => {
                iv.months = iv.months / 12 * 12;
                iv.days = 0;
                iv.micros = 0;
            }
            MONTH | 0x6 => {
                iv.days = 0;
                iv.micros = 0;
            }
            DAY => iv.micros = 0,
            HOUR | 0x408 => iv.micros = iv.micros / USECS_PER_HOUR * USECS_PER_HOUR,
            MINUTE | 0xC00 | 0xC08 => iv.micros = iv.micros / MINUTE_US * MINUTE_US,
            _ => {}
        }
        if let Some(p) = self.precision() {
            let scale = 10i64.pow(PRECISION_MAX - p);
            let half = scale / 2;
            iv.micros = if iv.micros >= 0 {
                (iv.micros + half) / scale * scale
            } else {
                -((-iv.micros + half) / scale * scale)
            };
        }
        iv
    }
}

/// intervaltypmodout after `interval`: ` day to second(2)`, `(3)`.
impl fmt::Display for IntervalMod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields = RANGES
            .iter()
            .find(|r| r.0 == self.range())
            .map_or("", |r| r.1);
        f.write_str(fields)?;
        if let Some(p) = self.precision() {
            write!(f, "({p})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &[i64]) -> IntervalMod {
        IntervalMod::from_typmods(t).unwrap().unwrap()
    }

    #[test]
    fn typmods_like_postgres() {
        assert_eq!(IntervalMod::from_typmods(&[]).unwrap(), None);
        assert_eq!(IntervalMod::from_typmods(&[0x7FFF]).unwrap(), None);
        assert_eq!(m(&[0x7FFF, 2]).to_string(), "(2)");
        assert_eq!(m(&[0x1C08, 2]).to_string(), " day to second(2)");
        assert_eq!(m(&[0x6]).to_string(), " year to month");
        assert_eq!(m(&[0x7FFF, 9]).to_string(), "(6)");
        assert_eq!(
            IntervalMod::from_typmod(m(&[0x1800, 3]).typmod()),
            Some(m(&[0x1800, 3]))
        );
        assert_eq!(IntervalMod::from_typmod(-1), None);
        let e = IntervalMod::from_typmods(&[0x7FFF, -1]).unwrap_err();
        assert_eq!(e.message, "INTERVAL(-1) precision must not be negative");
        assert!(IntervalMod::from_typmods(&[1000]).is_err());
    }

    #[test]
    fn adjust_like_postgres() {
        let iv = Interval::new(
            14,
            3,
            4 * USECS_PER_HOUR + 5 * 60 * USECS_PER_SEC + 6_789_000,
        );
        let a = |t: &[i64]| m(t).adjust(iv);
        assert_eq!(a(&[YEAR as i64]), Interval::new(12, 0, 0));
        assert_eq!(a(&[(YEAR | MONTH) as i64]), Interval::new(14, 0, 0));
        assert_eq!(
            a(&[(DAY | HOUR) as i64]),
            Interval::new(14, 3, 4 * USECS_PER_HOUR)
        );
        assert_eq!(
            a(&[0x7FFF, 0]).micros,
            4 * USECS_PER_HOUR + 307 * USECS_PER_SEC
        );
        assert_eq!(a(&[0x7FFF, 2]).micros % USECS_PER_SEC, 790_000);
        let neg = Interval::new(0, 0, -1_500_000);
        assert_eq!(m(&[0x7FFF, 0]).adjust(neg).micros, -2_000_000);
    }

    #[test]
    fn input_under_a_restriction() {
        let p = |s, m| crate::datetime::parse_interval_typmod(s, m, false);
        let day_hour = Some(m(&[(DAY | HOUR) as i64]));
        assert_eq!(
            p("2", day_hour).unwrap(),
            Interval::new(0, 0, 2 * USECS_PER_HOUR)
        );
        assert_eq!(
            p("1 2:03", day_hour).unwrap(),
            Interval::new(0, 1, 2 * USECS_PER_HOUR)
        );
        assert_eq!(
            p("1 2", day_hour).unwrap(),
            Interval::new(0, 1, 2 * USECS_PER_HOUR)
        );
        let min_sec = Some(m(&[(MINUTE | SECOND) as i64, 2]));
        assert_eq!(p("-1:30.555", min_sec).unwrap().micros, -90_560_000);
        assert_eq!(p("2", None).unwrap().micros, 2 * USECS_PER_SEC);
        let sql = |s| crate::datetime::parse_interval_typmod(s, None, true).unwrap();
        assert_eq!(
            sql("-1 2:03"),
            Interval::new(0, -1, -(2 * 60 + 3) * 60 * USECS_PER_SEC)
        );
        assert_eq!(
            sql("-1 +2:03"),
            Interval::new(0, -1, (2 * 60 + 3) * 60 * USECS_PER_SEC)
        );
    }
}
