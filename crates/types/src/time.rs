//! `time` (without time zone): a time of day.
//!
//! A value is microseconds since midnight, 0 ..= 24:00:00 (PostgreSQL
//! accepts `24:00:00` as the end of a day), as PostgreSQL's `TimeADT`, so
//! binary I/O is the integer. Input is PostgreSQL's `time_in` for the
//! forms queries use: `HH:MM[:SS[.frac]]` with an optional `AM`/`PM`, an
//! optional date before it (ignored), an optional zone after it (a numeric
//! offset or a zone abbreviation is accepted and ignored; a full zone name
//! only with a date, as PostgreSQL needs the date to know the offset), and
//! `now` / `allballs`. Fractions round at the 7th digit, so
//! `23:59:59.9999999` is `24:00:00`. Arithmetic wraps around midnight
//! (`time + interval` uses the interval's time part only), as date.c does.

use nestor_common::{DbError, SqlState};

use crate::datetime::{self, Interval, TimeZone, USECS_PER_DAY, USECS_PER_SEC};
use crate::value::Value;

/// Output: `HH:MM:SS[.ffffff]` (trailing zeros of the fraction dropped).
pub(crate) fn format_time(t: i64) -> String {
    let mut s = String::with_capacity(15);
    datetime::write_time(&mut s, t);
    s
}

fn syntax(input: &str) -> DbError {
    DbError::new(
        SqlState::InvalidDatetimeFormat,
        format!("invalid input syntax for type time: \"{input}\""),
    )
}

fn range(input: &str) -> DbError {
    DbError::new(
        SqlState::DatetimeFieldOverflow,
        format!("date/time field value out of range: \"{input}\""),
    )
}

/// `time_in`: the text form to microseconds since midnight (`now` needs
/// the transaction time `now` in UTC microseconds and the session zone).
pub fn parse_time(input: &str, tz: TimeZone, now: i64) -> Result<i64, DbError> {
    let lower = input.trim().to_ascii_lowercase();
    match lower.as_str() {
        "now" => {
            let local = now + tz.offset_at_utc(now) as i64 * USECS_PER_SEC;
            return Ok(local.rem_euclid(USECS_PER_DAY));
        }
        "allballs" => return Ok(0),
        _ => {}
    }
    let b = lower.as_bytes();
    let mut i = 0;
    // An optional date first: it decides nothing but a zone's offset.
    let mut has_date = false;
    if let Some(end) = date_prefix_end(&lower) {
        has_date = true;
        i = end;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
    } else if b.first() == Some(&b't') && b.get(1).is_some_and(u8::is_ascii_digit) {
        // ISO 8601's time designator.
        i = 1;
    }
    // HHMM[SS[.frac]]: the concatenated form.
    let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if (run == 4 || run == 6) && b.get(i + run) != Some(&b':') {
        let num = |k: usize| (b[i + k] - b'0') as i64 * 10 + (b[i + k + 1] - b'0') as i64;
        let (h, m) = (num(0), num(2));
        let s = if run == 6 { num(4) } else { 0 };
        let mut j = i + run;
        let mut frac = 0;
        if run == 6 && b.get(j) == Some(&b'.') {
            let start = j + 1;
            j = start;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            frac = datetime::parse_fraction(&b[start..j]);
        }
        check_zone(lower[j..].trim(), input.trim()[j..].trim(), has_date)
            .ok_or_else(|| syntax(input))?;
        return of_fields(h, m, s, frac).ok_or_else(|| range(input));
    }
    let digits = |i: &mut usize| -> Option<i64> {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        let d = &lower[start..*i];
        if d.is_empty() || d.len() > 9 {
            return None;
        }
        d.parse().ok()
    };
    let h = digits(&mut i).ok_or_else(|| syntax(input))?;
    if b.get(i) != Some(&b':') {
        return Err(syntax(input));
    }
    i += 1;
    let m = digits(&mut i).ok_or_else(|| syntax(input))?;
    let (mut s, mut frac) = (0, 0);
    if b.get(i) == Some(&b':') {
        i += 1;
        s = digits(&mut i).ok_or_else(|| syntax(input))?;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            frac = datetime::parse_fraction(&b[start..i]);
        }
    }
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    let mut h = h;
    let rest = &lower[i..];
    let word_end = rest.find(' ').unwrap_or(rest.len());
    let (ampm, rest) = match &rest[..word_end] {
        "am" => (Some(false), &rest[word_end..]),
        "pm" => (Some(true), &rest[word_end..]),
        _ => (None, rest),
    };
    if let Some(pm) = ampm {
        if h > 12 {
            return Err(range(input));
        }
        if pm && h < 12 {
            h += 12;
        } else if !pm && h == 12 {
            h = 0;
        }
    }
    // The zone as written (names are case-sensitive file names);
    // to_ascii_lowercase kept every byte offset.
    let written = &input.trim()[lower.len() - rest.len()..];
    check_zone(rest.trim(), written.trim(), has_date).ok_or_else(|| syntax(input))?;
    of_fields(h, m, s, frac).ok_or_else(|| range(input))
}

/// The time of these fields, if it is one (up to 24:00:00; a leap second
/// 60 rounds into the next minute).
fn of_fields(h: i64, m: i64, s: i64, frac: i64) -> Option<i64> {
    if h > 24 || m > 59 || s > 60 {
        return None;
    }
    let t = ((h * 60 + m) * 60 + s) * USECS_PER_SEC + frac;
    (t <= USECS_PER_DAY).then_some(t)
}

/// Where a leading date (`2003-03-07`, `03/07/2003`) ends, if the text
/// starts with one and a space (PostgreSQL's time_in takes no other date
/// forms there).
fn date_prefix_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let first_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if first_digits == 0 || !matches!(b.get(first_digits), Some(b'-' | b'/' | b'.')) {
        return None;
    }
    let end = b.iter().position(|&c| c == b' ')?;
    let d = &s[..end];
    // Only a well-formed date counts.
    datetime::parse_date(d, TimeZone::UTC, 0, Default::default())
        .ok()
        .map(|_| end)
}

/// A zone after the time: empty, a numeric offset, a known abbreviation,
/// or (after a date only) a zone name.
fn check_zone(z: &str, written: &str, has_date: bool) -> Option<()> {
    if z.is_empty() {
        return Some(());
    }
    if z.starts_with(['+', '-']) {
        return datetime::parse_hms_offset(z).map(|_| ());
    }
    if crate::tz_abbrevs::lookup(z).is_some() {
        return Some(());
    }
    (has_date && TimeZone::parse(written).is_some()).then_some(())
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
        parse_time(s, TimeZone::UTC, 0)
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
