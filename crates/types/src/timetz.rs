//! `time with time zone` (`timetz`): a time of day with a UTC offset.
//!
//! A value is PostgreSQL's `TimeTzADT`: microseconds since midnight
//! (0 ..= 24:00:00, as `time`) and the zone's offset in seconds *west* of
//! UTC (`-05` is 18000), so binary I/O is the int8 then the int4. Input
//! is DecodeTimeOnly (`crate::datetime_input`) with the zone resolved as
//! PostgreSQL does: an offset or fixed abbreviation as written, a zone
//! name or dynamic abbreviation at the date written (a zone name with
//! daylight-saving time needs one), no zone the session TimeZone at that
//! local time today. Output is `HH:MM:SS[.ffffff]` and the offset
//! (`-07`, `+05:30`, `-04:56:02`), the same in every DateStyle.
//!
//! Order (timetz_cmp): by the UTC instant of the time (time + zone), then
//! by the zone, so two values are equal only when both parts are.
//! Arithmetic with an interval moves the time around the clock and keeps
//! the zone; `AT TIME ZONE` keeps the instant and changes the zone (a
//! zone name is taken at the transaction's start, as PostgreSQL does).

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datestyle::DateOrder;
use crate::datetime::{self, Interval, TimeZone, USECS_PER_DAY, USECS_PER_SEC};
use crate::value::Value;

/// The largest zone offset in seconds (TZDISP_LIMIT: 15:59:59).
pub(crate) const ZONE_SECS_MAX: i32 = 15 * 3600 + 59 * 60 + 59;

/// timetz_cmp_internal: by UTC time, then by zone (west offset).
pub(crate) fn cmp(ta: i64, za: i32, tb: i64, zb: i32) -> std::cmp::Ordering {
    let ua = ta as i128 + za as i128 * USECS_PER_SEC as i128;
    let ub = tb as i128 + zb as i128 * USECS_PER_SEC as i128;
    ua.cmp(&ub).then(za.cmp(&zb))
}

/// Output: the time as `time` prints it, then the offset (EncodeTimezone).
pub(crate) fn format(t: i64, zone: i32) -> String {
    let mut s = crate::time::format_time(t);
    write_zone(&mut s, zone);
    s
}

/// EncodeTimezone: `+HH`, `+HH:MM` or `+HH:MM:SS` of a west offset.
fn write_zone(out: &mut String, zone: i32) {
    use std::fmt::Write;
    let secs = zone.unsigned_abs();
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    out.push(if zone <= 0 { '+' } else { '-' });
    let _ = match (m, s) {
        (_, s) if s != 0 => write!(out, "{h:02}:{m:02}:{s:02}"),
        (m, _) if m != 0 => write!(out, "{h:02}:{m:02}"),
        _ => write!(out, "{h:02}"),
    };
}

/// `timetz_in`: the text form to (microseconds since midnight, west
/// offset); `tz`, `now` and `order` are the session's, as for `time`.
pub fn parse(input: &str, tz: TimeZone, now: i64, order: DateOrder) -> Result<(i64, i32), DbError> {
    let ctx = crate::datetime_input::Ctx { order, tz, now };
    let (t, east) = crate::datetime_input::decode_timetz_text(input, &ctx)
        .map_err(|e| datetime::decode_error(e, "time with time zone", input))?;
    Ok((t, -east))
}

/// time → timetz (time_timetz): the session zone's offset at that time
/// today.
pub(crate) fn from_time(t: i64, ctx: &EvalCtx) -> Value {
    let tz = ctx.time_zone;
    let local_now = ctx.now + tz.offset_at_utc(ctx.now) as i64 * USECS_PER_SEC;
    let local = local_now.div_euclid(USECS_PER_DAY) * USECS_PER_DAY + t;
    Value::TimeTz(t, -tz.offset_for_local(local))
}

/// timestamptz → timetz: the time of day and offset in the session zone
/// (NULL for infinity).
pub(crate) fn from_timestamptz(ts: i64, tz: &TimeZone) -> Value {
    if ts == datetime::TS_NOBEGIN || ts == datetime::TS_NOEND {
        return Value::Null;
    }
    let off = tz.offset_at_utc(ts);
    let local = ts + off as i64 * USECS_PER_SEC;
    Value::TimeTz(local.rem_euclid(USECS_PER_DAY), -off)
}

/// date + timetz (datetimetz_timestamptz).
pub(crate) fn date_plus(date: i32, t: i64, zone: i32) -> Result<Value, DbError> {
    if date == datetime::DATE_NOBEGIN {
        return Ok(Value::TimestampTz(datetime::TS_NOBEGIN));
    }
    if date == datetime::DATE_NOEND {
        return Ok(Value::TimestampTz(datetime::TS_NOEND));
    }
    let r = (date as i64)
        .checked_mul(USECS_PER_DAY)
        .map(|d| d + t + zone as i64 * USECS_PER_SEC)
        .filter(|r| datetime::timestamp_in_range(*r));
    r.map(Value::TimestampTz).ok_or_else(|| {
        DbError::new(
            SqlState::DatetimeFieldOverflow,
            "date out of range for timestamp",
        )
    })
}

/// timetz ± interval: the interval's time part around the clock.
pub(crate) fn add_interval(t: i64, zone: i32, iv: &Interval, negate: bool) -> Value {
    Value::TimeTz(crate::time::add_interval(t, iv, negate), zone)
}

/// The same instant in another zone (west offset `to`), wrapped into a day.
fn shift(t: i64, zone: i32, to: i32) -> Value {
    let r = (t + (zone as i64 - to as i64) * USECS_PER_SEC).rem_euclid(USECS_PER_DAY);
    Value::TimeTz(r, to)
}

/// timezone(text, timetz) and timezone(interval, timetz): `AT TIME ZONE`.
pub(crate) fn at_zone(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let Value::TimeTz(t, zone) = &a[1] else {
        return Ok(Value::Null);
    };
    let to = match &a[0] {
        Value::Interval(iv) => -crate::datetime_fns::interval_zone_secs(iv)?,
        Value::Text(name) => {
            let at = crate::datetime_fns::ZoneAt::Utc(ctx.now);
            let tz = crate::datetime_fns::zone_arg(name, true, at)?;
            -tz.offset_at_utc(ctx.now)
        }
        _ => return Ok(Value::Null),
    };
    Ok(shift(*t, *zone, to))
}

/// extract / date_part of a timetz (`numeric`: extract's numeric, else
/// date_part's float8): the time's fields, the zone's, and the epoch
/// (seconds since midnight UTC).
pub(crate) fn part(unit: &str, t: i64, zone: i32, numeric: bool) -> Result<Value, DbError> {
    use crate::datetime_fns::Unit;
    const NAME: &str = "time with time zone";
    let lower = unit.to_ascii_lowercase();
    let int = |v: i64| {
        if numeric {
            Value::Numeric(crate::numeric::Numeric::from_i64(v))
        } else {
            Value::Float8(v as f64)
        }
    };
    match crate::datetime_fns::unit(&lower) {
        Some(Unit::Timezone) => Ok(int(-zone as i64)),
        Some(Unit::TimezoneHour) => Ok(int((-zone / 3600) as i64)),
        Some(Unit::TimezoneMinute) => Ok(int((-zone / 60 % 60) as i64)),
        Some(Unit::Epoch) => {
            let us = t + zone as i64 * USECS_PER_SEC;
            Ok(if numeric {
                Value::Numeric(crate::datetime_fns::fixed(us as i128, 6))
            } else {
                Value::Float8(t as f64 / 1e6 + zone as f64)
            })
        }
        Some(
            Unit::Microseconds | Unit::Milliseconds | Unit::Second | Unit::Minute | Unit::Hour,
        ) => crate::time::part(&lower, t, numeric),
        Some(_) => Err(crate::datetime_fns::not_supported(&lower, NAME)),
        None => Err(crate::datetime_fns::not_recognized(&lower, NAME)),
    }
}

/// Binary input (timetz_recv): the time, then the west offset, checked.
pub(crate) fn from_parts(t: i64, zone: i32) -> Result<Value, DbError> {
    if !(0..=USECS_PER_DAY).contains(&t) {
        return Err(DbError::new(
            SqlState::NumericValueOutOfRange,
            "time out of range",
        ));
    }
    if !(-ZONE_SECS_MAX..=ZONE_SECS_MAX).contains(&zone) {
        return Err(DbError::new(
            SqlState::InvalidTimeZoneDisplacementValue,
            "time zone displacement out of range",
        ));
    }
    Ok(Value::TimeTz(t, zone))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<String, DbError> {
        // 2024-01-15 12:00 UTC: a winter date for the session zone.
        let now = 24 * 365 * 86_400_000_000 + 14 * 86_400_000_000;
        let tz = TimeZone::parse("America/Los_Angeles").unwrap_or(TimeZone::UTC);
        parse(s, tz, now, DateOrder::Mdy).map(|(t, z)| format(t, z))
    }

    #[test]
    fn input_and_output() {
        assert_eq!(p("00:01 PDT").unwrap(), "00:01:00-07");
        assert_eq!(p("07:07 PST").unwrap(), "07:07:00-08");
        assert_eq!(p("11:59:59.99 PM PDT").unwrap(), "23:59:59.99-07");
        assert_eq!(
            p("2003-07-07 15:36:39 America/New_York").unwrap(),
            "15:36:39-04"
        );
        assert_eq!(
            p("2003-03-07 15:36:39 America/New_York").unwrap(),
            "15:36:39-05"
        );
        assert_eq!(p("13:30:25.575401-04:30").unwrap(), "13:30:25.575401-04:30");
        assert_eq!(p("12:00+05:30:15").unwrap(), "12:00:00+05:30:15");
        assert_eq!(p("23:59:59.9999999 PDT").unwrap(), "24:00:00-07");
        assert_eq!(p("allballs").unwrap(), "00:00:00+00");
        // No zone: the session zone today (winter).
        assert_eq!(p("10:00").unwrap(), "10:00:00-08");
        for bad in [
            "15:36:39 America/New_York",
            "15:36:39 m2",
            "15:36:39 MSK m2",
        ] {
            let e = p(bad).unwrap_err();
            assert_eq!(e.code, SqlState::InvalidDatetimeFormat, "{bad}");
        }
        for bad in ["24:00:00.01 PDT", "24:01:00 PDT", "25:00:00 PDT"] {
            assert_eq!(p(bad).unwrap_err().code, SqlState::DatetimeFieldOverflow);
        }
    }

    #[test]
    fn order_is_utc_then_zone() {
        use std::cmp::Ordering::*;
        let h = 3_600_000_000;
        // 12:00+01 and 11:00+00 are the same instant; +01 (west -3600)
        // sorts first.
        assert_eq!(cmp(12 * h, -3600, 11 * h, 0), Less);
        assert_eq!(cmp(12 * h, -3600, 12 * h, -3600), Equal);
        assert_eq!(cmp(10 * h, 0, 12 * h, -3600), Less);
    }

    #[test]
    fn shift_and_parts() {
        let h = 3_600_000_000;
        assert_eq!(format_value(shift(h, 7 * 3600, 0)), "08:00:00+00");
        assert_eq!(format_value(shift(23 * h, 0, -3 * 3600)), "02:00:00+03");
        let t = 13 * h;
        let z = 4 * 3600 + 1800;
        assert_eq!(
            part("timezone", t, z, false).unwrap(),
            Value::Float8(-16200.0)
        );
        assert_eq!(
            part("timezone_hour", t, z, false).unwrap(),
            Value::Float8(-4.0)
        );
        assert_eq!(
            part("timezone_minute", t, z, false).unwrap(),
            Value::Float8(-30.0)
        );
        assert!(part("day", t, z, false).is_err());
    }

    fn format_value(v: Value) -> String {
        match v {
            Value::TimeTz(t, z) => format(t, z),
            _ => String::new(),
        }
    }
}
