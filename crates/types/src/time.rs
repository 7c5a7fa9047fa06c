//! `time` (without time zone): a time of day.
//!
//! A value is microseconds since midnight, 0 ..= 24:00:00 (PostgreSQL
//! accepts `24:00:00` as the end of a day), as PostgreSQL's `TimeADT`, so
//! binary I/O is the integer. Input is PostgreSQL's `time_in` (decoded by
//! `crate::datetime_input` as DecodeTimeOnly): `HH:MM[:SS[.frac]]`,
//! `HHMMSS`, `T040506`, with an optional `AM`/`PM`, an optional date
//! before it (ignored), an optional zone after it (checked and ignored; a
//! zone name with daylight-saving time only with a date, as PostgreSQL
//! needs the date to know the offset), and `now` / `allballs`. Fractions round at the 7th digit, so
//! `23:59:59.9999999` is `24:00:00`. Arithmetic wraps around midnight
//! (`time + interval` uses the interval's time part only), as date.c does.

use nestor_common::{DbError, SqlState};

use crate::datestyle::DateOrder;
use crate::datetime::{self, Interval, TimeZone, USECS_PER_DAY, USECS_PER_SEC};
use crate::value::Value;

/// Output: `HH:MM:SS[.ffffff]` (trailing zeros of the fraction dropped).
pub(crate) fn format_time(t: i64) -> String {
    let mut s = String::with_capacity(15);
    datetime::write_time(&mut s, t);
    s
}

/// `time_in`: the text form to microseconds since midnight, decoded as
/// PostgreSQL's DecodeTimeOnly does (`crate::datetime_input`); `now` is
/// the transaction time in UTC microseconds, `tz` the session zone and
/// `order` DateStyle's field order (for a date before the time).
pub fn parse_time(input: &str, tz: TimeZone, now: i64, order: DateOrder) -> Result<i64, DbError> {
    if let Some(t) = parse_clock_fast(input) {
        return Ok(t);
    }
    let ctx = crate::datetime_input::Ctx { order, tz, now };
    crate::datetime_input::decode_time_text(input, &ctx)
        .map_err(|e| datetime::decode_error(e, "time", input))
}

/// The plain form `HH:MM[:SS[.ffffff]]` (hour below 24, second below 60),
/// read without the general decoder; None for anything else, which the
/// decoder reads to the same value.
fn parse_clock_fast(input: &str) -> Option<i64> {
    let b = input.as_bytes();
    let d2 = |i: usize| -> Option<i64> {
        let (x, y) = (*b.get(i)?, *b.get(i + 1)?);
        (x.is_ascii_digit() && y.is_ascii_digit()).then(|| ((x - b'0') * 10 + (y - b'0')) as i64)
    };
    if b.get(2) != Some(&b':') {
        return None;
    }
    let (h, m) = (d2(0)?, d2(3)?);
    let mut s = 0;
    let mut frac = 0;
    let mut i = 5;
    if b.get(i) == Some(&b':') {
        s = d2(i + 1)?;
        i += 3;
        if b.get(i) == Some(&b'.') {
            let digits = &b[i + 1..];
            if digits.is_empty() || digits.len() > 6 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            for &c in digits {
                frac = frac * 10 + (c - b'0') as i64;
            }
            frac *= 10i64.pow(6 - digits.len() as u32);
            i = b.len();
        }
    }
    if i != b.len() || h > 23 || m > 59 || s > 59 {
        return None;
    }
    Some(((h * 60 + m) * 60 + s) * USECS_PER_SEC + frac)
}

/// `time(p)`: round to `p` fractional digits (AdjustTimeForTypmod).
pub(crate) fn round_time(t: i64, precision: u32) -> i64 {
    if precision >= 6 {
        return t;
    }
    let scale = 10i64.pow(6 - precision);
    (t + scale / 2) / scale * scale
}

/// time + interval (its time part; months and days are ignored), wrapping
/// around midnight.
pub(crate) fn add_interval(t: i64, iv: &Interval, negate: bool) -> i64 {
    let us = if negate {
        iv.micros.wrapping_neg()
    } else {
        iv.micros
    };
    (t as i128 + us as i128).rem_euclid(USECS_PER_DAY as i128) as i64
}

/// interval → time: the time part modulo a day.
pub(crate) fn from_interval(iv: &Interval) -> i64 {
    iv.micros.rem_euclid(USECS_PER_DAY)
}

/// The time of day of a local timestamp (None for infinity).
pub(crate) fn from_local_timestamp(ts: i64) -> Option<i64> {
    (ts != datetime::TS_NOBEGIN && ts != datetime::TS_NOEND).then(|| ts.rem_euclid(USECS_PER_DAY))
}

/// date + time.
pub(crate) fn date_plus_time(date: i32, t: i64) -> Result<Value, DbError> {
    let ts = datetime::date_to_timestamp(date)?;
    if ts == datetime::TS_NOBEGIN || ts == datetime::TS_NOEND {
        return Ok(Value::Timestamp(ts));
    }
    let r = ts + t;
    if !datetime::timestamp_in_range(r) {
        return Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "timestamp out of range",
        ));
    }
    Ok(Value::Timestamp(r))
}

/// extract / date_part of a time (`numeric`: extract's numeric result,
/// else date_part's float8).
pub(crate) fn part(unit: &str, t: i64, numeric: bool) -> Result<Value, DbError> {
    let lower = unit.to_ascii_lowercase();
    let secs_us = t % (60 * USECS_PER_SEC);
    let scaled = |v: i64, scale: u32| -> Value {
        if numeric {
            Value::Numeric(crate::datetime_fns::fixed(v as i128, scale))
        } else {
            Value::Float8(v as f64 / 10f64.powi(scale as i32))
        }
    };
    let int = |v: i64| {
        if numeric {
            Value::Numeric(crate::numeric::Numeric::from_i64(v))
        } else {
            Value::Float8(v as f64)
        }
    };
    Ok(match crate::datetime_fns::unit(&lower) {
        Some(u) => match u {
            crate::datetime_fns::Unit::Microseconds => int(secs_us),
            crate::datetime_fns::Unit::Milliseconds => scaled(secs_us, 3),
            crate::datetime_fns::Unit::Second => scaled(secs_us, 6),
            crate::datetime_fns::Unit::Minute => int(t / (60 * USECS_PER_SEC) % 60),
            crate::datetime_fns::Unit::Hour => int(t / (3600 * USECS_PER_SEC)),
            crate::datetime_fns::Unit::Epoch => scaled(t, 6),
            _ => {
                return Err(crate::datetime_fns::not_supported(
                    &lower,
                    "time without time zone",
                ))
            }
        },
        None => {
            return Err(crate::datetime_fns::not_recognized(
                &lower,
                "time without time zone",
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<i64, DbError> {
        parse_time(s, TimeZone::UTC, 0, DateOrder::Mdy)
    }

    #[test]
    fn input_and_output() {
        assert_eq!(format_time(p("00:00").unwrap()), "00:00:00");
        assert_eq!(format_time(p("11:59:59.99 PM").unwrap()), "23:59:59.99");
        assert_eq!(format_time(p("12:00 am").unwrap()), "00:00:00");
        assert_eq!(format_time(p("02:03 PST").unwrap()), "02:03:00");
        assert_eq!(
            format_time(p("2003-07-07 15:36:39 America/New_York").unwrap()),
            "15:36:39"
        );
        assert_eq!(format_time(p("23:59:59.9999999").unwrap()), "24:00:00");
        assert_eq!(format_time(p("23:59:60").unwrap()), "24:00:00");
        assert_eq!(format_time(p("24:00:00").unwrap()), "24:00:00");
        assert_eq!(format_time(p("allballs").unwrap()), "00:00:00");
        for bad in ["24:00:00.01", "23:59:60.01", "24:01:00", "25:00:00"] {
            assert_eq!(
                p(bad).unwrap_err().code,
                SqlState::DatetimeFieldOverflow,
                "{bad}"
            );
        }
        assert_eq!(format_time(p("T12:00").unwrap()), "12:00:00");
        assert_eq!(format_time(p("1230").unwrap()), "12:30:00");
        assert_eq!(format_time(p("123045.5").unwrap()), "12:30:45.5");
        for bad in [
            "15:36:39 America/New_York",
            "12",
            "12:00 foo",
            "x",
            "2003-07-07T15:36:39",
            "Jan 5 2020 10:00",
        ] {
            assert_eq!(
                p(bad).unwrap_err().code,
                SqlState::InvalidDatetimeFormat,
                "{bad}"
            );
        }
    }

    #[test]
    fn rounding_and_arithmetic() {
        let t = p("11:59:59.995").unwrap();
        assert_eq!(format_time(round_time(t, 2)), "12:00:00");
        assert_eq!(format_time(round_time(t, 0)), "12:00:00");
        let iv = Interval::new(0, 3, 2 * 3600 * USECS_PER_SEC);
        assert_eq!(
            format_time(add_interval(p("23:00").unwrap(), &iv, false)),
            "01:00:00"
        );
        assert_eq!(
            format_time(add_interval(p("01:00").unwrap(), &iv, true)),
            "23:00:00"
        );
        assert_eq!(
            format_time(add_interval(USECS_PER_DAY, &Interval::default(), false)),
            "00:00:00"
        );
        assert_eq!(
            format_time(from_interval(&Interval::new(0, 0, -3600 * USECS_PER_SEC))),
            "23:00:00"
        );
    }
}
