//! Date/time functions: `date_trunc`, `extract` / `date_part`, `age`,
//! `make_date` / `make_timestamp` / `make_timestamptz` / `make_interval`,
//! `justify_days` / `justify_hours` / `justify_interval`, `isfinite`,
//! `timezone` (AT TIME ZONE), `timestamptz(date, time[tz])` and `to_timestamp(double precision)`; `to_char`, `to_timestamp(text, text)`
//! and `to_date` live in [`crate::formatting`].
//!
//! Everything works on PostgreSQL's broken-down time ([`Tm`]): a local
//! timestamp (a `timestamp`, or a `timestamptz` shifted into the session
//! zone or the zone argument) is split into year (astronomical: 0 is 1 BC),
//! month, day, hour, minute, second and microseconds with the calendar
//! routines of [`crate::datetime`], and an interval into years, months,
//! days and a time split by truncating division, as `timestamp2tm` and
//! `interval2tm` do. The code follows PostgreSQL 15's `timestamp.c` /
//! `date.c` case by case, including its oddities: `extract` returns
//! numeric computed exactly (`extract(second ...)` has scale 6) while
//! `date_part` computes in double precision with PostgreSQL's formulas;
//! `date_part(text, date)` is `date_part(text, timestamp)` (a SQL function
//! in PostgreSQL, so its errors name `timestamp without time zone`);
//! fields of an infinite value are NULL except the unbounded ones (epoch,
//! julian, year, ...), which are ±Infinity.
//!
//! Unit names are matched as PostgreSQL's `DecodeUnits` does: lower-cased,
//! truncated to 10 characters, then looked up among the unit words and
//! their abbreviations (`yr`, `mons`, `msec`, `microseconds`...). A name
//! that is no unit is 22023 `unit "x" not recognized for type t`; a unit
//! the type lacks (`hour` of a date) is 0A000 `unit "x" not supported for
//! type t`.
//!
//! Functions that read the session (a `timestamptz` argument, `age` of one
//! value, which reads the transaction's date) are marked volatile so the
//! planner never folds them with a plan-time context.

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::datetime::{
    date2j, date_from_ymd, date_in_range, j2date, timestamp_in_range, Interval, TimeZone,
    DATE_NOBEGIN, DATE_NOEND, POSTGRES_EPOCH_JDATE, TS_NOBEGIN, TS_NOEND, UNIX_EPOCH_USECS,
    USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_SEC,
};
use crate::functions::{
    is_int_like as is_int, is_text_arg as is_text, no_function, Imp, Resolved, ScalarFn, Volatility,
};
use crate::numeric::Numeric;
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "date_trunc",
    "date_part",
    "extract",
    "age",
    "make_date",
    "make_timestamp",
    "make_timestamptz",
    "make_interval",
    "justify_days",
    "justify_hours",
    "justify_interval",
    "isfinite",
    "timezone",
    "date_bin",
    "make_time",
    "timestamptz",
];

const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
const UNIX_EPOCH_JDATE: i64 = 2_440_588;

// ---------------------------------------------------------------------
// Resolution

/// 42725 for a call whose unknown-typed arguments fit several overloads
/// (`date_trunc('day', '2024-01-01')`), as PostgreSQL reports it.
pub(crate) fn not_unique(name: &str, args: &[DataType]) -> DbError {
    let list: Vec<&str> = args.iter().map(|t| t.name()).collect();
    DbError::new(
        SqlState::AmbiguousFunction,
        format!("function {name}({}) is not unique", list.join(", ")),
    )
    .with_hint(
        "Could not choose a best candidate function. You might need to add explicit type casts.",
    )
}

fn is_num(t: DataType) -> bool {
    t.is_numeric() || t == DataType::Unknown
}

/// A timestamp-ish argument: date reads as timestamptz (PostgreSQL's
/// preferred type of the category), as its implicit casts do.
fn ts_arg(t: DataType) -> Option<DataType> {
    match t {
        DataType::Timestamp(_) => Some(DataType::Timestamp(None)),
        DataType::TimestampTz(_) | DataType::Date => Some(DataType::TimestampTz(None)),
        _ => None,
    }
}

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    use DataType as T;
    // EXTRACT is syntax: PostgreSQL names the function it calls.
    let shown = if name == "extract" {
        "pg_catalog.extract"
    } else {
        name
    };
    let nf = || no_function(shown, args);
    let ambiguous = match name {
        "date_trunc" | "date_part" | "extract" => args.get(1) == Some(&T::Unknown),
        "age" => args.contains(&T::Unknown),
        _ => false,
    };
    if ambiguous || (name == "isfinite" && args == [T::Unknown]) {
        return Some(Err(not_unique(shown, args)));
    }
    let text = T::Text;
    let (imp, arg_types, ret, volatile): (Imp, Vec<T>, T, bool) = match (name, args) {
        ("date_trunc", [u, t]) if is_text(*u) => match (*t, ts_arg(*t)) {
            // time: cast to interval, as PostgreSQL's implicit cast does.
            (T::Interval(_) | T::Time(_), _) => (
                trunc_interval,
                vec![text, T::Interval(None)],
                T::Interval(None),
                false,
            ),
            (_, Some(T::Timestamp(_))) => (
                trunc_ts,
                vec![text, T::Timestamp(None)],
                T::Timestamp(None),
                false,
            ),
            (_, Some(tz)) => (trunc_tstz, vec![text, tz], tz, true),
            _ => return Some(Err(nf())),
        },
        ("date_trunc", [u, t, z]) if is_text(*u) && is_text(*z) && ts_arg(*t).is_some() => (
            trunc_tstz_in,
            vec![text, T::TimestampTz(None), text],
            T::TimestampTz(None),
            false,
        ),
        ("extract" | "date_part", [u, t]) if is_text(*u) => {
            let numeric = name == "extract";
            let ret = if numeric { T::NUMERIC } else { T::Float8 };
            let (imp, at, volatile): (Imp, T, bool) = match (t, numeric) {
                (T::Date, true) => (|a, c| part(a, c, true), T::Date, false),
                // A SQL function over timestamp in PostgreSQL: its errors
                // say so.
                (T::Date, false) => (
                    |a, c| {
                        part(a, c, false)
                            .map_err(|e| e.with_context("SQL function \"date_part\" statement 1"))
                    },
                    T::Timestamp(None),
                    false,
                ),
                (T::Timestamp(_), false) => (|a, c| part(a, c, false), T::Timestamp(None), false),
                (T::Timestamp(_), true) => (|a, c| part(a, c, true), T::Timestamp(None), false),
                (T::TimestampTz(_), true) => (|a, c| part(a, c, true), T::TimestampTz(None), true),
                (T::TimestampTz(_), false) => {
                    (|a, c| part(a, c, false), T::TimestampTz(None), true)
                }
                (T::Interval(_), true) => (|a, c| part(a, c, true), T::Interval(None), false),
                (T::Interval(_), false) => (|a, c| part(a, c, false), T::Interval(None), false),
                (T::Time(_), true) => (|a, c| part(a, c, true), T::Time(None), false),
                (T::Time(_), false) => (|a, c| part(a, c, false), T::Time(None), false),
                (T::TimeTz(_), true) => (|a, c| part(a, c, true), T::TimeTz(None), false),
                (T::TimeTz(_), false) => (|a, c| part(a, c, false), T::TimeTz(None), false),
                _ => return Some(Err(nf())),
            };
            (imp, vec![text, at], ret, volatile)
        }
        ("age", [a, b]) => match (ts_arg(*a), ts_arg(*b)) {
            (Some(T::Timestamp(_)), Some(T::Timestamp(_))) => (
                age2,
                vec![T::Timestamp(None), T::Timestamp(None)],
                T::Interval(None),
                false,
            ),
            (Some(_), Some(_)) => (
                age2,
                vec![T::TimestampTz(None), T::TimestampTz(None)],
                T::Interval(None),
                true,
            ),
            _ => return Some(Err(nf())),
        },
        ("age", [a]) => match ts_arg(*a) {
            Some(t) => (age1, vec![t], T::Interval(None), true),
            None => return Some(Err(nf())),
        },
        ("make_date", [a, b, c]) if [a, b, c].iter().all(|t| is_int(**t)) => {
            (make_date, vec![T::Int4; 3], T::Date, false)
        }
        ("make_timestamp", [rest @ .., s]) if rest.len() == 5 && is_num(*s) => {
            if !rest.iter().all(|t| is_int(*t)) {
                return Some(Err(nf()));
            }
            let mut at = vec![T::Int4; 5];
            at.push(T::Float8);
            (make_timestamp, at, T::Timestamp(None), false)
        }
        ("make_timestamptz", rest) if (6..=7).contains(&rest.len()) => {
            if !rest[..5].iter().all(|t| is_int(*t))
                || !is_num(rest[5])
                || rest.get(6).is_some_and(|t| !is_text(*t))
            {
                return Some(Err(nf()));
            }
            let mut at = vec![T::Int4; 5];
            at.push(T::Float8);
            if rest.len() == 7 {
                at.push(text);
            }
            (make_timestamptz, at, T::TimestampTz(None), true)
        }
        ("make_interval", _) if args.len() <= 7 => {
            let ok = args
                .iter()
                .enumerate()
                .all(|(i, t)| if i == 6 { is_num(*t) } else { is_int(*t) });
            if !ok {
                return Some(Err(nf()));
            }
            let at = (0..args.len())
                .map(|i| if i == 6 { T::Float8 } else { T::Int4 })
                .collect();
            (make_interval, at, T::Interval(None), false)
        }
        ("justify_days" | "justify_hours" | "justify_interval", [T::Interval(_) | T::Unknown]) => {
            let imp: Imp = match name {
                "justify_days" => |a, _| strict1(a, |iv| justify_days(&iv)),
                "justify_hours" => |a, _| strict1(a, |iv| justify_hours(&iv)),
                _ => |a, _| strict1(a, |iv| justify_interval(&iv)),
            };
            (imp, vec![T::Interval(None)], T::Interval(None), false)
        }
        ("timezone", [z, t]) if is_text(*z) || matches!(*z, T::Interval(_)) => {
            let zt = if matches!(*z, T::Interval(_)) {
                T::Interval(None)
            } else {
                text
            };
            match t {
                T::Timestamp(_) => (
                    at_zone,
                    vec![zt, T::Timestamp(None)],
                    T::TimestampTz(None),
                    false,
                ),
                T::TimestampTz(_) | T::Date | T::Unknown => (
                    at_zone,
                    vec![zt, T::TimestampTz(None)],
                    T::Timestamp(None),
                    false,
                ),
                // A zone name is resolved at the transaction's start.
                T::TimeTz(_) | T::Time(_) => (
                    crate::timetz::at_zone,
                    vec![zt, T::TimeTz(None)],
                    T::TimeTz(None),
                    true,
                ),
                _ => return Some(Err(nf())),
            }
        }
        ("date_bin", [s, t, o])
            if matches!(s, T::Interval(_) | T::Unknown)
                && ts_arg(*t).is_some()
                && (ts_arg(*o).is_some() || *o == T::Unknown) =>
        {
            let ty = match (ts_arg(*t), ts_arg(*o)) {
                (Some(T::Timestamp(_)), Some(T::Timestamp(_)) | None) => T::Timestamp(None),
                _ => T::TimestampTz(None),
            };
            (
                date_bin,
                vec![T::Interval(None), ty, ty],
                ty,
                matches!(ty, T::TimestampTz(_)),
            )
        }
        ("make_time", [h, m, s]) if is_int(*h) && is_int(*m) && is_num(*s) => (
            make_time,
            vec![T::Int4, T::Int4, T::Float8],
            T::Time(None),
            false,
        ),
        // timestamptz(date, timetz) is date + timetz; timestamptz(date,
        // time) the local date + time in the session zone. Other
        // argument lists fall back to a function-style cast (42883 here).
        ("timestamptz", [T::Date | T::Unknown, t @ (T::TimeTz(_) | T::Time(_))]) => (
            date_time_tstz,
            vec![T::Date, t.base()],
            T::TimestampTz(None),
            matches!(t, T::Time(_)),
        ),
        ("timestamptz", _) => return Some(Err(nf())),
        ("isfinite", [t])
            if matches!(
                t,
                T::Date | T::Timestamp(_) | T::TimestampTz(_) | T::Interval(_)
            ) =>
        {
            (isfinite, vec![*t], T::Bool, false)
        }
        _ => return Some(Err(nf())),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, volatile,
    )))
}

// ---------------------------------------------------------------------
// Broken-down time

/// PostgreSQL's `struct pg_tm` plus fractional seconds: a local timestamp
/// or an interval split into fields (year 0 is 1 BC).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Tm {
    pub year: i64,
    pub mon: i64,
    pub mday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    pub fsec: i64,
}

impl Tm {
    /// `timestamp2tm` of a finite local timestamp.
    pub(crate) fn from_local(local: i64) -> Tm {
        let days = local.div_euclid(USECS_PER_DAY);
        let tod = local.rem_euclid(USECS_PER_DAY);
        let (year, mon, mday) = j2date(days + POSTGRES_EPOCH_JDATE);
        Tm {
            year,
            mon: mon as i64,
            mday: mday as i64,
            hour: tod / USECS_PER_HOUR,
            min: tod / USECS_PER_MINUTE % 60,
            sec: tod / USECS_PER_SEC % 60,
            fsec: tod % USECS_PER_SEC,
        }
    }

    /// `interval2tm`: months split into years, time by truncating division.
    pub(crate) fn from_interval(iv: &Interval) -> Tm {
        let t = iv.micros;
        Tm {
            year: iv.months as i64 / 12,
            mon: iv.months as i64 % 12,
            mday: iv.days as i64,
            hour: t / USECS_PER_HOUR,
            min: t / USECS_PER_MINUTE % 60,
            sec: t / USECS_PER_SEC % 60,
            fsec: t % USECS_PER_SEC,
        }
    }

    /// `tm2timestamp`: the local timestamp, None if out of range.
    pub(crate) fn to_local(self) -> Option<i64> {
        let jd = date2j(self.year, self.mon, self.mday);
        let time = ((self.hour * 60 + self.min) * 60 + self.sec)
            .checked_mul(USECS_PER_SEC)?
            .checked_add(self.fsec)?;
        let ts = (jd - POSTGRES_EPOCH_JDATE)
            .checked_mul(USECS_PER_DAY)?
            .checked_add(time)?;
        timestamp_in_range(ts).then_some(ts)
    }

    /// `tm2interval`: None on overflow.
    fn to_interval(self) -> Option<Interval> {
        let months = self.year.checked_mul(12)?.checked_add(self.mon)?;
        let time = ((self.hour * 60 + self.min) * 60 + self.sec)
            .checked_mul(USECS_PER_SEC)?
            .checked_add(self.fsec)?;
        Some(Interval::new(
            i32::try_from(months).ok()?,
            i32::try_from(self.mday).ok()?,
            time,
        ))
    }

    pub(crate) fn julian(&self) -> i64 {
        date2j(self.year, self.mon, self.mday)
    }

    /// Day of week, 0 = Sunday.
    pub(crate) fn dow(&self) -> i64 {
        (self.julian() + 1).rem_euclid(7)
    }

    pub(crate) fn doy(&self) -> i64 {
        self.julian() - date2j(self.year, 1, 1) + 1
    }
}

/// ISO 8601 (year, week) of a Julian day: the week belongs to the year of
/// its Thursday.
pub(crate) fn iso_week(jd: i64) -> (i64, i64) {
    let isodow = match (jd + 1).rem_euclid(7) {
        0 => 7,
        d => d,
    };
    let thursday = jd - isodow + 4;
    let year = j2date(thursday).0;
    (year, (thursday - date2j(year, 1, 1)) / 7 + 1)
}

/// Julian day of the first day (Monday) of ISO year `year`.
pub(crate) fn iso_year_start(year: i64) -> i64 {
    let jan4 = date2j(year, 1, 4);
    let isodow = match (jan4 + 1).rem_euclid(7) {
        0 => 7,
        d => d,
    };
    jan4 - (isodow - 1)
}

fn is_finite_ts(ts: i64) -> bool {
    ts != TS_NOBEGIN && ts != TS_NOEND
}

/// Local time of a timestamptz in `tz`, and the offset used.
fn to_local(utc: i64, tz: &TimeZone) -> (i64, i32) {
    let off = tz.offset_at_utc(utc);
    (utc + off as i64 * USECS_PER_SEC, off)
}

fn from_local(local: i64, tz: &TimeZone) -> i64 {
    local - tz.offset_for_local(local) as i64 * USECS_PER_SEC
}

// ---------------------------------------------------------------------
// Units

/// A date/time unit, as PostgreSQL's `DTK_*` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    Microseconds,
    Milliseconds,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    Decade,
    Century,
    Millennium,
    Timezone,
    TimezoneHour,
    TimezoneMinute,
    Epoch,
    Dow,
    Doy,
    Isodow,
    Isoyear,
    Julian,
}

/// The unit a field name means (PostgreSQL's deltatktbl and datetktbl,
/// with its 10-character token truncation), None if none.
pub(crate) fn unit(lower: &str) -> Option<Unit> {
    use Unit::*;
    let key: String = lower.chars().take(10).collect();
    Some(match key.as_str() {
        "c" | "cent" | "centuries" | "century" => Century,
        "d" | "day" | "days" => Day,
        "dec" | "decade" | "decades" | "decs" => Decade,
        "h" | "hour" | "hours" | "hr" | "hrs" => Hour,
        "m" | "min" | "mins" | "minute" | "minutes" => Minute,
        "microsecon" | "us" | "usec" | "usecond" | "useconds" | "usecs" => Microseconds,
        "mil" | "millennia" | "millennium" | "mils" => Millennium,
        "millisecon" | "ms" | "msec" | "msecond" | "mseconds" | "msecs" => Milliseconds,
        "mon" | "mons" | "month" | "months" => Month,
        "qtr" | "quarter" => Quarter,
        "s" | "sec" | "second" | "seconds" | "secs" => Second,
        "timezone" => Timezone,
        "timezone_h" => TimezoneHour,
        "timezone_m" => TimezoneMinute,
        "w" | "week" | "weeks" => Week,
        "y" | "year" | "years" | "yr" | "yrs" => Year,
        "epoch" => Epoch,
        "dow" => Dow,
        "doy" => Doy,
        "isodow" => Isodow,
        "isoyear" => Isoyear,
        "j" | "jd" | "julian" => Julian,
        _ => return None,
    })
}

pub(crate) fn not_recognized(u: &str, ty: &str) -> DbError {
    DbError::new(
        SqlState::InvalidParameterValue,
        format!("unit \"{u}\" not recognized for type {ty}"),
    )
}

pub(crate) fn not_supported(u: &str, ty: &str) -> DbError {
    DbError::new(
        SqlState::FeatureNotSupported,
        format!("unit \"{u}\" not supported for type {ty}"),
    )
}

fn ts_range() -> DbError {
    DbError::new(SqlState::DatetimeFieldOverflow, "timestamp out of range")
}

fn iv_range() -> DbError {
    DbError::new(SqlState::DatetimeFieldOverflow, "interval out of range")
}

// ---------------------------------------------------------------------
// date_trunc

const TS: &str = "timestamp without time zone";
const TSTZ: &str = "timestamp with time zone";

/// Truncate the fields of a local time to `u` (timestamp_trunc's cascade);
/// None for a unit date_trunc does not take.
fn trunc_tm(tm: &mut Tm, u: Unit) -> Option<()> {
    use Unit::*;
    if u == Week {
        let jd = tm.julian();
        let isodow = match (jd + 1).rem_euclid(7) {
            0 => 7,
            d => d,
        };
        let (y, m, d) = j2date(jd - (isodow - 1));
        *tm = Tm {
            year: y,
            mon: m as i64,
            mday: d as i64,
            ..Tm::default()
        };
        return Some(());
    }
    let rank = |x: Unit| match x {
        Millennium => 12,
        Century => 11,
        Decade => 10,
        Year => 9,
        Quarter => 8,
        Month => 7,
        Day => 6,
        Hour => 5,
        Minute => 4,
        Second => 3,
        Milliseconds => 2,
        Microseconds => 1,
        _ => 0,
    };
    let r = rank(u);
    if r == 0 {
        return None;
    }
    let y = tm.year;
    match u {
        Millennium => {
            tm.year = if y > 0 {
                ((y + 999) / 1000) * 1000 - 999
            } else {
                -((999 - (y - 1)) / 1000) * 1000 + 1
            }
        }
        Century => {
            tm.year = if y > 0 {
                ((y + 99) / 100) * 100 - 99
            } else {
                -((99 - (y - 1)) / 100) * 100 + 1
            }
        }
        Decade => {
            tm.year = if y > 0 {
                (y / 10) * 10
            } else {
                -((8 - (y - 1)) / 10) * 10
            }
        }
        _ => {}
    }
    if r >= 9 {
        tm.mon = 1;
    }
    if r >= 8 {
        tm.mon = 3 * ((tm.mon - 1) / 3) + 1;
    }
    if r >= 7 {
        tm.mday = 1;
    }
    if r >= 6 {
        tm.hour = 0;
    }
    if r >= 5 {
        tm.min = 0;
    }
    if r >= 4 {
        tm.sec = 0;
    }
    if r >= 3 {
        tm.fsec = 0;
    } else if r == 2 {
        tm.fsec = (tm.fsec / 1000) * 1000;
    }
    Some(())
}

fn trunc_ts(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(u), Value::Timestamp(ts)) = (a[0].as_str(), &a[1]) else {
        return Ok(Value::Null);
    };
    let lower = u.to_lowercase();
    let unit = unit(&lower).ok_or_else(|| not_recognized(&lower, TS))?;
    if !is_finite_ts(*ts) {
        return Ok(Value::Timestamp(*ts));
    }
    let mut tm = Tm::from_local(*ts);
    trunc_tm(&mut tm, unit).ok_or_else(|| not_recognized(&lower, TS))?;
    tm.to_local().map(Value::Timestamp).ok_or_else(ts_range)
}

fn trunc_tstz_with(u: &str, ts: i64, tz: &TimeZone) -> Result<Value, DbError> {
    let lower = u.to_lowercase();
    let unit = unit(&lower).ok_or_else(|| not_recognized(&lower, TSTZ))?;
    if !is_finite_ts(ts) {
        return Ok(Value::TimestampTz(ts));
    }
    let (local, off) = to_local(ts, tz);
    let mut tm = Tm::from_local(local);
    trunc_tm(&mut tm, unit).ok_or_else(|| not_recognized(&lower, TSTZ))?;
    let t = tm.to_local().ok_or_else(ts_range)?;
    // Units of a day or more take the offset in effect at the result.
    let redo = !matches!(
        unit,
        Unit::Hour | Unit::Minute | Unit::Second | Unit::Milliseconds | Unit::Microseconds
    );
    Ok(Value::TimestampTz(if redo {
        from_local(t, tz)
    } else {
        t - off as i64 * USECS_PER_SEC
    }))
}

fn trunc_tstz(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    match (a[0].as_str(), &a[1]) {
        (Some(u), Value::TimestampTz(ts)) => trunc_tstz_with(u, *ts, &ctx.time_zone),
        _ => Ok(Value::Null),
    }
}

/// A zone argument. A numeric offset (`+05`, `-03:30`) is read with the
/// POSIX sign (west positive) by AT TIME ZONE and date_trunc, with the ISO
/// sign by make_timestamptz, as PostgreSQL's parsers differ; anything
/// else is a zone name as SET TimeZone takes it.
/// An abbreviation of the `Default` set comes first (`EST` is -05 even
/// where the tz database has a zone of that name); a dynamic one (`MSK`)
/// means what it meant at `at`.
///
/// make_timestamptz's zone (`posix` false) is PostgreSQL's
/// parse_sane_timezone: DecodeTimezone's numeric forms, a leading digit
/// refused, an offset past 15:59:59 "out of range", and a name as pg_tzset
/// reads it (`FOO8BAR`, `PST8PDT,M3.2.0,M11.1.0`).
pub(crate) fn zone_arg(name: &str, posix: bool, at: ZoneAt) -> Result<TimeZone, DbError> {
    let t = name.trim();
    if !posix {
        if let Some(tz) = sane_numeric_zone(t)? {
            return Ok(tz);
        }
    }
    let numeric = t.starts_with(['+', '-']) || t.starts_with(|c: char| c.is_ascii_digit());
    let found = match crate::datetime::parse_hms_offset(t) {
        Some(secs) if numeric => Some(TimeZone::fixed(if posix { -secs } else { secs })),
        _ => match crate::tz_abbrevs::lookup(name) {
            Some((abbrev, kind)) => Some(abbrev_zone(abbrev, kind, at)),
            None if posix => TimeZone::parse(name),
            None => crate::datetime_input::pg_tzset(t),
        },
    };
    found.ok_or_else(|| {
        DbError::new(
            SqlState::InvalidParameterValue,
            format!("time zone \"{name}\" not recognized"),
        )
    })
}

/// parse_sane_timezone's numeric part: Some(offset) for `+hh[:mm[:ss]]`
/// and `+hhmm`, None for text that is not numeric.
fn sane_numeric_zone(t: &str) -> Result<Option<TimeZone>, DbError> {
    use crate::datetime_input::{decode_timezone, DtErr};
    let invalid = |msg: String| DbError::new(SqlState::InvalidParameterValue, msg);
    if t.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(invalid(format!(
            "invalid input syntax for type numeric time zone: \"{t}\""
        ))
        .with_hint("Numeric time zones must have \"-\" or \"+\" as first character."));
    }
    match decode_timezone(t.as_bytes()) {
        Ok(east) => Ok(Some(TimeZone::fixed(east))),
        Err(DtErr::TzDispOverflow) => {
            Err(invalid(format!("numeric time zone \"{t}\" out of range")))
        }
        Err(DtErr::BadFormat) => Ok(None),
        Err(_) => Err(invalid(format!("time zone \"{t}\" not recognized"))),
    }
}

/// The instant a zone argument is resolved at, for a dynamic abbreviation:
/// a UTC instant, a local time, or none (the abbreviation's zone itself,
/// as date_trunc takes it).
#[derive(Clone, Copy)]
pub(crate) enum ZoneAt {
    Utc(i64),
    Local(i64),
    Zone,
}

fn abbrev_zone(abbrev: &str, kind: crate::tz_abbrevs::Kind, at: ZoneAt) -> TimeZone {
    use crate::tz_abbrevs::{self as ab, Kind};
    match (kind, at) {
        (Kind::Fixed { offset, .. }, _) => TimeZone::fixed(offset),
        (Kind::Dynamic(zone), ZoneAt::Zone) => TimeZone::parse(zone).unwrap_or(TimeZone::UTC),
        (_, ZoneAt::Utc(t)) => TimeZone::fixed(ab::meaning_at_utc(abbrev, kind, t).0),
        (_, ZoneAt::Local(t)) => TimeZone::fixed(ab::offset_for_local(abbrev, kind, t)),
    }
}

fn trunc_tstz_in(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    match (a[0].as_str(), &a[1], a[2].as_str()) {
        (Some(u), Value::TimestampTz(ts), Some(z)) => {
            let tz = zone_arg(z, true, ZoneAt::Zone)?;
            trunc_tstz_with(u, *ts, &tz)
        }
        _ => Ok(Value::Null),
    }
}

fn trunc_interval(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(u), Value::Interval(iv)) = (a[0].as_str(), &a[1]) else {
        return Ok(Value::Null);
    };
    use Unit::*;
    let lower = u.to_lowercase();
    let unit = unit(&lower).ok_or_else(|| not_recognized(&lower, "interval"))?;
    let mut tm = Tm::from_interval(iv);
    match unit {
        Millennium => tm.year = (tm.year / 1000) * 1000,
        Century => tm.year = (tm.year / 100) * 100,
        Decade => tm.year = (tm.year / 10) * 10,
        Week => {
            return Err(not_supported(&lower, "interval")
                .with_detail("Months usually have fractional weeks."))
        }
        Year | Quarter | Month | Day | Hour | Minute | Second | Milliseconds | Microseconds => {}
        _ => return Err(not_recognized(&lower, "interval")),
    }
    let r = match unit {
        Millennium | Century | Decade | Year => 9,
        Quarter => 8,
        Month => 7,
        Day => 6,
        Hour => 5,
        Minute => 4,
        Second => 3,
        Milliseconds => 2,
        _ => 1,
    };
    if r >= 9 {
        tm.mon = 0;
    }
    if r == 8 {
        tm.mon = 3 * (tm.mon / 3);
    }
    if r >= 7 {
        tm.mday = 0;
    }
    if r >= 6 {
        tm.hour = 0;
    }
    if r >= 5 {
        tm.min = 0;
    }
    if r >= 4 {
        tm.sec = 0;
    }
    if r >= 3 {
        tm.fsec = 0;
    } else if r == 2 {
        tm.fsec = (tm.fsec / 1000) * 1000;
    }
    tm.to_interval().map(Value::Interval).ok_or_else(iv_range)
}

// ---------------------------------------------------------------------
// extract / date_part

/// `val / 10^scale` as a numeric of that scale (int64_div_fast_to_numeric).
pub(crate) fn fixed(val: i128, scale: u32) -> Numeric {
    let p = 10i128.pow(scale);
    let (neg, a) = (val < 0, val.unsigned_abs());
    let s = format!(
        "{}{}.{:0width$}",
        if neg { "-" } else { "" },
        a / p as u128,
        a % p as u128,
        width = scale as usize
    );
    let s = if scale == 0 {
        s.trim_end_matches('.').to_string()
    } else {
        s
    };
    Numeric::parse(&s).unwrap_or_else(|_| Numeric::zero())
}

enum Part {
    Int(i64),
    /// An exact decimal and its double-precision reading.
    Exact(Numeric, f64),
    Null,
    Inf(bool),
}

fn part_value(p: Part, numeric: bool) -> Value {
    match (p, numeric) {
        (Part::Int(i), true) => Value::Numeric(Numeric::from_i64(i)),
        (Part::Int(i), false) => Value::Float8(i as f64),
        (Part::Exact(n, _), true) => Value::Numeric(n),
        (Part::Exact(_, f), false) => Value::Float8(f),
        (Part::Null, _) => Value::Null,
        (Part::Inf(neg), true) => Value::Numeric(Numeric::infinity(neg)),
        (Part::Inf(neg), false) => Value::Float8(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }),
    }
}

fn year_field(tm: &Tm, u: Unit) -> i64 {
    let y = tm.year;
    match u {
        Unit::Year if y > 0 => y,
        Unit::Year => y - 1,
        Unit::Decade if y >= 0 => y / 10,
        Unit::Decade => -((8 - (y - 1)) / 10),
        Unit::Century if y > 0 => (y + 99) / 100,
        Unit::Century => -((99 - (y - 1)) / 100),
        Unit::Millennium if y > 0 => (y + 999) / 1000,
        _ => -((999 - (y - 1)) / 1000),
    }
}

/// Fields of a non-finite value: NULL, or ±Infinity for the unbounded
/// ones; None if the unit is not one of the type's.
fn infinite_part(u: Unit, neg: bool, tz: bool, date: bool) -> Option<Part> {
    use Unit::*;
    Some(match u {
        Year | Decade | Century | Millennium | Julian | Isoyear | Epoch => Part::Inf(neg),
        Day | Month | Quarter | Week | Dow | Isodow | Doy => Part::Null,
        Microseconds | Milliseconds | Second | Minute | Hour if !date => Part::Null,
        Timezone | TimezoneHour | TimezoneMinute if tz => Part::Null,
        _ => return None,
    })
}

fn date_fields(tm: &Tm, u: Unit, numeric: bool) -> Option<Part> {
    use Unit::*;
    Some(Part::Int(match u {
        Day => tm.mday,
        Month => tm.mon,
        Quarter => (tm.mon - 1) / 3 + 1,
        Week => iso_week(tm.julian()).1,
        Year | Decade | Century | Millennium => year_field(tm, u),
        Isoyear => {
            let y = iso_week(tm.julian()).0;
            if y <= 0 {
                y - 1
            } else {
                y
            }
        }
        Dow => tm.dow(),
        Isodow => match tm.dow() {
            0 => 7,
            d => d,
        },
        Doy => tm.doy(),
        Julian if numeric => {
            let us = ((tm.hour * 60 + tm.min) * 60 + tm.sec) * USECS_PER_SEC + tm.fsec;
            let n = Numeric::from_i64(tm.julian())
                .add(
                    &Numeric::from_i64(us)
                        .div(&Numeric::from_i64(USECS_PER_DAY))
                        .ok()?,
                )
                .ok()?;
            return Some(Part::Exact(n, 0.0));
        }
        Julian => {
            // PostgreSQL adds the day's fraction as one term.
            let secs = ((tm.hour * 60 + tm.min) * 60 + tm.sec) as f64;
            let f = tm.julian() as f64 + (secs + tm.fsec as f64 / 1_000_000.0) / 86400.0;
            return Some(Part::Exact(Numeric::zero(), f));
        }
        _ => return None,
    }))
}

fn time_fields(tm: &Tm, u: Unit) -> Option<Part> {
    use Unit::*;
    let us = tm.sec * USECS_PER_SEC + tm.fsec;
    Some(match u {
        Microseconds => Part::Int(us),
        Milliseconds => Part::Exact(
            fixed(us as i128, 3),
            tm.sec as f64 * 1000.0 + tm.fsec as f64 / 1000.0,
        ),
        Second => Part::Exact(
            fixed(us as i128, 6),
            tm.sec as f64 + tm.fsec as f64 / 1_000_000.0,
        ),
        Minute => Part::Int(tm.min),
        Hour => Part::Int(tm.hour),
        _ => return None,
    })
}

fn part(a: &[Value], ctx: &EvalCtx, numeric: bool) -> Result<Value, DbError> {
    let Some(u) = a[0].as_str() else {
        return Ok(Value::Null);
    };
    let lower = u.to_lowercase();
    let p = match &a[1] {
        Value::Null => return Ok(Value::Null),
        Value::Date(d) => part_date(&lower, *d, numeric)?,
        Value::Timestamp(ts) => part_ts(&lower, *ts, None, numeric)?,
        Value::TimestampTz(ts) => part_ts(&lower, *ts, Some(&ctx.time_zone), numeric)?,
        Value::Interval(iv) => part_interval(&lower, iv)?,
        Value::Time(t) => return crate::time::part(&lower, *t, numeric),
        Value::TimeTz(t, z) => return crate::timetz::part(&lower, *t, *z, numeric),
        _ => return Ok(Value::Null),
    };
    Ok(part_value(p, numeric))
}

fn part_date(lower: &str, d: i32, numeric: bool) -> Result<Part, DbError> {
    let u = unit(lower).ok_or_else(|| not_recognized(lower, "date"))?;
    if d == DATE_NOBEGIN || d == DATE_NOEND {
        return infinite_part(u, d == DATE_NOBEGIN, false, true)
            .ok_or_else(|| not_supported(lower, "date"));
    }
    if u == Unit::Epoch {
        let days = d as i64 + POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE;
        return Ok(Part::Int(days * 86400));
    }
    let tm = Tm::from_local(d as i64 * USECS_PER_DAY);
    if u == Unit::Julian {
        return Ok(Part::Int(tm.julian()));
    }
    date_fields(&tm, u, numeric).ok_or_else(|| not_supported(lower, "date"))
}

fn part_ts(lower: &str, ts: i64, tz: Option<&TimeZone>, numeric: bool) -> Result<Part, DbError> {
    let ty = if tz.is_some() { TSTZ } else { TS };
    let u = unit(lower).ok_or_else(|| not_recognized(lower, ty))?;
    if !is_finite_ts(ts) {
        return infinite_part(u, ts == TS_NOBEGIN, tz.is_some(), false)
            .ok_or_else(|| not_supported(lower, ty));
    }
    let (local, off) = match tz {
        Some(z) => to_local(ts, z),
        None => (ts, 0),
    };
    let tm = Tm::from_local(local);
    use Unit::*;
    match u {
        Epoch => {
            let us = ts as i128 - UNIX_EPOCH_USECS as i128;
            Ok(Part::Exact(
                fixed(us, 6),
                (ts as f64 - UNIX_EPOCH_USECS as f64) / 1_000_000.0,
            ))
        }
        Timezone | TimezoneHour | TimezoneMinute => match tz {
            None => Err(not_supported(lower, ty)),
            Some(_) => Ok(Part::Int(match u {
                Timezone => off as i64,
                TimezoneHour => off as i64 / 3600,
                _ => off as i64 / 60 % 60,
            })),
        },
        _ => time_fields(&tm, u)
            .or_else(|| date_fields(&tm, u, numeric))
            .ok_or_else(|| not_supported(lower, ty)),
    }
}

fn part_interval(lower: &str, iv: &Interval) -> Result<Part, DbError> {
    use Unit::*;
    let u = unit(lower).ok_or_else(|| not_recognized(lower, "interval"))?;
    let tm = Tm::from_interval(iv);
    Ok(match u {
        Microseconds | Milliseconds | Second | Minute | Hour => {
            time_fields(&tm, u).ok_or_else(|| not_supported(lower, "interval"))?
        }
        Day => Part::Int(tm.mday),
        Month => Part::Int(tm.mon),
        Quarter => Part::Int(tm.mon / 3 + 1),
        Year => Part::Int(tm.year),
        Decade => Part::Int(tm.year / 10),
        Century => Part::Int(tm.year / 100),
        Millennium => Part::Int(tm.year / 1000),
        Epoch => {
            let m = iv.months as i128;
            let secs = (1461 * (m / 12) + 120 * (m % 12) + 4 * iv.days as i128) * (86400 / 4);
            let us = secs * USECS_PER_SEC as i128 + iv.micros as i128;
            let mut f = iv.micros as f64 / 1_000_000.0;
            f += 365.25 * 86400.0 * (iv.months / 12) as f64;
            f += 30.0 * 86400.0 * (iv.months % 12) as f64;
            f += 86400.0 * iv.days as f64;
            Part::Exact(fixed(us, 6), f)
        }
        _ => return Err(not_supported(lower, "interval")),
    })
}

// ---------------------------------------------------------------------
// age

/// PostgreSQL's timestamp_age on two local timestamps.
fn age_of(l1: i64, l2: i64) -> Result<Interval, DbError> {
    if !is_finite_ts(l1) || !is_finite_ts(l2) {
        return Err(ts_range());
    }
    let (t1, t2) = (Tm::from_local(l1), Tm::from_local(l2));
    let mut tm = Tm {
        year: t1.year - t2.year,
        mon: t1.mon - t2.mon,
        mday: t1.mday - t2.mday,
        hour: t1.hour - t2.hour,
        min: t1.min - t2.min,
        sec: t1.sec - t2.sec,
        fsec: t1.fsec - t2.fsec,
    };
    let flip = l1 < l2;
    let neg = |tm: &mut Tm| {
        *tm = Tm {
            year: -tm.year,
            mon: -tm.mon,
            mday: -tm.mday,
            hour: -tm.hour,
            min: -tm.min,
            sec: -tm.sec,
            fsec: -tm.fsec,
        }
    };
    if flip {
        neg(&mut tm);
    }
    while tm.fsec < 0 {
        tm.fsec += USECS_PER_SEC;
        tm.sec -= 1;
    }
    while tm.sec < 0 {
        tm.sec += 60;
        tm.min -= 1;
    }
    while tm.min < 0 {
        tm.min += 60;
        tm.hour -= 1;
    }
    while tm.hour < 0 {
        tm.hour += 24;
        tm.mday -= 1;
    }
    let base = if flip { t1 } else { t2 };
    while tm.mday < 0 {
        tm.mday += crate::datetime::days_in_month(base.year, base.mon as u32) as i64;
        tm.mon -= 1;
    }
    while tm.mon < 0 {
        tm.mon += 12;
        tm.year -= 1;
    }
    if flip {
        neg(&mut tm);
    }
    tm.to_interval().ok_or_else(iv_range)
}

fn age2(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let tz = &ctx.time_zone;
    let l = |v: &Value| match v {
        Value::Timestamp(t) => Some(*t),
        Value::TimestampTz(t) if is_finite_ts(*t) => Some(to_local(*t, tz).0),
        Value::TimestampTz(t) => Some(*t),
        _ => None,
    };
    match (l(&a[0]), l(&a[1])) {
        (Some(x), Some(y)) => age_of(x, y).map(Value::Interval),
        _ => Ok(Value::Null),
    }
}

fn age1(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let (today_local, _) = to_local(ctx.now, &ctx.time_zone);
    let midnight = today_local.div_euclid(USECS_PER_DAY) * USECS_PER_DAY;
    match &a[0] {
        Value::Timestamp(t) => age_of(midnight, *t).map(Value::Interval),
        Value::TimestampTz(t) => {
            let start = from_local(midnight, &ctx.time_zone);
            age2(&[Value::TimestampTz(start), Value::TimestampTz(*t)], ctx)
        }
        _ => Ok(Value::Null),
    }
}

// ---------------------------------------------------------------------
// make_*

fn ints(a: &[Value], n: usize) -> Option<Vec<i64>> {
    a.iter().take(n).map(Value::as_i64).collect()
}

/// The date of make_date / make_timestamp: negative years are BC.
fn make_ymd(y: i64, m: i64, d: i64) -> Result<i32, DbError> {
    let field = || {
        DbError::new(
            SqlState::DatetimeFieldOverflow,
            format!("date field value out of range: {y}-{m:02}-{d:02}"),
        )
    };
    if y == 0 || !(1..=12).contains(&m) || d < 1 {
        return Err(field());
    }
    let year = if y < 0 { y + 1 } else { y };
    if d > crate::datetime::days_in_month(year, m as u32) as i64 {
        return Err(field());
    }
    date_from_ymd(year, m as u32, d as u32).ok_or_else(|| {
        DbError::new(
            SqlState::DatetimeFieldOverflow,
            format!("date out of range: {y}-{m:02}-{d:02}"),
        )
    })
}

/// date_bin(stride, source, origin): the start of the stride-long bin
/// (counted from origin) that holds source (timestamp_bin; the same for
/// timestamptz, in UTC).
fn date_bin(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Value::Interval(stride), Some(ts), Some(origin)) = (&a[0], ts_of(&a[1]), ts_of(&a[2]))
    else {
        return Ok(Value::Null);
    };
    let wrap = |t: i64| match a[1] {
        Value::TimestampTz(_) => Value::TimestampTz(t),
        _ => Value::Timestamp(t),
    };
    if ts == TS_NOBEGIN || ts == TS_NOEND {
        return Ok(wrap(ts));
    }
    if origin == TS_NOBEGIN || origin == TS_NOEND {
        return Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "origin out of range",
        ));
    }
    if stride.months != 0 {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "timestamps cannot be binned into intervals containing months or years",
        ));
    }
    let stride_us = (stride.days as i64)
        .checked_mul(USECS_PER_DAY)
        .and_then(|d| d.checked_add(stride.micros))
        .ok_or_else(iv_range)?;
    if stride_us <= 0 {
        return Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "stride must be greater than zero",
        ));
    }
    let diff = ts.checked_sub(origin).ok_or_else(iv_range)?;
    let modulo = diff % stride_us;
    let mut result = origin + (diff - modulo);
    if modulo < 0 {
        result = result
            .checked_sub(stride_us)
            .filter(|r| timestamp_in_range(*r))
            .ok_or_else(ts_range)?;
    }
    Ok(wrap(result))
}

/// make_time(hour, min, sec).
fn make_time(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(h), Some(m)) = (a[0].as_i64(), a[1].as_i64()) else {
        return Ok(Value::Null);
    };
    let Some(sec) = a[2].as_f64() else {
        return Ok(Value::Null);
    };
    let us = (sec * USECS_PER_SEC as f64).round() as i64;
    let t = (h * 60 + m) * USECS_PER_MINUTE + us;
    if !(0..=23).contains(&h)
        || !(0..=59).contains(&m)
        || !(0.0..=60.0).contains(&sec)
        || t > USECS_PER_DAY
    {
        return Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            format!(
                "time field value out of range: {h}:{m:02}:{}",
                fmt_g(sec).trim_start_matches('-')
            ),
        ));
    }
    Ok(Value::Time(t))
}

fn make_date(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(v) = ints(a, 3) else {
        return Ok(Value::Null);
    };
    make_ymd(v[0], v[1], v[2]).map(Value::Date)
}

/// C's `%g` (six significant digits), as PostgreSQL's messages print
/// doubles.
pub(crate) fn fmt_g(v: f64) -> String {
    // PostgreSQL's snprintf spells these out.
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-Infinity" } else { "Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{v:.5e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&x) {
        strip(&format!("{:.*}", (5 - x).max(0) as usize, v))
    } else {
        format!(
            "{}e{}{:02}",
            strip(mant),
            if x < 0 { '-' } else { '+' },
            x.abs()
        )
    }
}

/// make_timestamp's local timestamp.
fn make_local(a: &[Value]) -> Result<Option<i64>, DbError> {
    let (Some(v), Some(sec)) = (ints(a, 5), a.get(5).and_then(Value::as_f64)) else {
        return Ok(None);
    };
    let date = make_ymd(v[0], v[1], v[2])?;
    let (h, mi) = (v[3], v[4]);
    let time_err = || {
        let s = fmt_g(sec);
        let s = if s.len() < 2 { format!("0{s}") } else { s };
        DbError::new(
            SqlState::DatetimeFieldOverflow,
            format!("time field value out of range: {h}:{mi:02}:{s}"),
        )
    };
    if !(0..=24).contains(&h)
        || !(0..=59).contains(&mi)
        || sec.is_nan()
        || !(0.0..=60.0).contains(&sec)
    {
        return Err(time_err());
    }
    let time = (h * 60 + mi) * USECS_PER_MINUTE + (sec * 1_000_000.0).round_ties_even() as i64;
    if time > USECS_PER_DAY {
        return Err(time_err());
    }
    let ts = date as i64 * USECS_PER_DAY + time;
    if !timestamp_in_range(ts) {
        return Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            format!(
                "timestamp out of range: {}-{:02}-{:02} {h}:{mi:02}:{}",
                v[0],
                v[1],
                v[2],
                fmt_g(sec)
            ),
        ));
    }
    Ok(Some(ts))
}

fn make_timestamp(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(make_local(a)?.map_or(Value::Null, Value::Timestamp))
}

fn make_timestamptz(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    if a.get(6).is_some_and(Value::is_null) {
        return Ok(Value::Null);
    }
    let Some(local) = make_local(a)? else {
        return Ok(Value::Null);
    };
    let tz = match a.get(6).and_then(Value::as_str) {
        Some(z) => zone_arg(z, false, ZoneAt::Local(local))?,
        None => ctx.time_zone,
    };
    let utc = from_local(local, &tz);
    if !timestamp_in_range(utc) {
        return Err(ts_range());
    }
    Ok(Value::TimestampTz(utc))
}

fn make_interval(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let mut v = [0i64; 6];
    for (i, x) in a.iter().take(6).enumerate() {
        v[i] = x.as_i64().unwrap_or(0);
    }
    let secs = a.get(6).and_then(Value::as_f64).unwrap_or(0.0);
    if secs.is_nan() || secs.is_infinite() {
        return Err(iv_range());
    }
    let months = v[0].checked_mul(12).and_then(|m| m.checked_add(v[1]));
    let days = v[2].checked_mul(7).and_then(|d| d.checked_add(v[3]));
    let time = (secs * 1_000_000.0).round_ties_even();
    if !(-9.2e18..=9.2e18).contains(&time) {
        return Err(iv_range());
    }
    let micros = v[4]
        .checked_mul(USECS_PER_HOUR)
        .and_then(|h| h.checked_add(v[5].checked_mul(USECS_PER_MINUTE)?))
        .and_then(|t| t.checked_add(time as i64));
    match (
        months.and_then(|m| i32::try_from(m).ok()),
        days.and_then(|d| i32::try_from(d).ok()),
        micros,
    ) {
        (Some(m), Some(d), Some(t)) => Ok(Value::Interval(Interval::new(m, d, t))),
        _ => Err(iv_range()),
    }
}

// ---------------------------------------------------------------------
// justify_*, isfinite, to_timestamp(double precision)

fn strict1(a: &[Value], f: fn(Interval) -> Option<Interval>) -> Result<Value, DbError> {
    match &a[0] {
        Value::Interval(iv) => f(*iv).map(Value::Interval).ok_or_else(iv_range),
        _ => Ok(Value::Null),
    }
}

pub(crate) fn justify_days(iv: &Interval) -> Option<Interval> {
    let whole = iv.days / 30;
    let mut day = iv.days - whole * 30;
    let mut month = iv.months.checked_add(whole)?;
    if month > 0 && day < 0 {
        day += 30;
        month -= 1;
    } else if month < 0 && day > 0 {
        day -= 30;
        month += 1;
    }
    Some(Interval::new(month, day, iv.micros))
}

pub(crate) fn justify_hours(iv: &Interval) -> Option<Interval> {
    let whole = iv.micros / USECS_PER_DAY;
    let mut time = iv.micros - whole * USECS_PER_DAY;
    let mut day = iv.days.checked_add(i32::try_from(whole).ok()?)?;
    if day > 0 && time < 0 {
        time += USECS_PER_DAY;
        day -= 1;
    } else if day < 0 && time > 0 {
        time -= USECS_PER_DAY;
        day += 1;
    }
    Some(Interval::new(iv.months, day, time))
}

pub(crate) fn justify_interval(iv: &Interval) -> Option<Interval> {
    let (mut month, mut day, mut time) = (iv.months, iv.days, iv.micros);
    if (day > 0 && time > 0) || (day < 0 && time < 0) {
        let whole = day / 30;
        day -= whole * 30;
        month = month.checked_add(whole)?;
    }
    let whole = time / USECS_PER_DAY;
    time -= whole * USECS_PER_DAY;
    day = day.checked_add(i32::try_from(whole).ok()?)?;
    let whole = day / 30;
    day -= whole * 30;
    month = month.checked_add(whole)?;
    if month > 0 && (day < 0 || (day == 0 && time < 0)) {
        day += 30;
        month -= 1;
    } else if month < 0 && (day > 0 || (day == 0 && time > 0)) {
        day -= 30;
        month += 1;
    }
    if day > 0 && time < 0 {
        time += USECS_PER_DAY;
        day -= 1;
    } else if day < 0 && time > 0 {
        time -= USECS_PER_DAY;
        day += 1;
    }
    Some(Interval::new(month, day, time))
}

fn isfinite(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(match &a[0] {
        Value::Date(d) => Value::Bool(*d != DATE_NOBEGIN && *d != DATE_NOEND && date_in_range(*d)),
        Value::Timestamp(t) | Value::TimestampTz(t) => Value::Bool(is_finite_ts(*t)),
        Value::Interval(_) => Value::Bool(true),
        _ => Value::Null,
    })
}

/// to_timestamp(double precision): Unix seconds to timestamptz.
pub(crate) fn to_timestamp_float(secs: f64) -> Result<Value, DbError> {
    if secs.is_nan() {
        return Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "timestamp cannot be NaN",
        ));
    }
    if secs.is_infinite() {
        return Ok(Value::TimestampTz(if secs < 0.0 {
            TS_NOBEGIN
        } else {
            TS_NOEND
        }));
    }
    let err = || {
        DbError::new(
            SqlState::DatetimeFieldOverflow,
            format!("timestamp out of range: \"{}\"", fmt_g(secs)),
        )
    };
    let lo = 86400.0 * (0 - UNIX_EPOCH_JDATE) as f64;
    let hi = 86400.0 * (109_203_528 - UNIX_EPOCH_JDATE) as f64;
    if secs < lo || secs >= hi {
        return Err(err());
    }
    let shifted = secs - ((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * 86400) as f64;
    let us = (shifted * 1_000_000.0).round_ties_even() as i64;
    if !timestamp_in_range(us) {
        return Err(err());
    }
    Ok(Value::TimestampTz(us))
}

// ---------------------------------------------------------------------
// AT TIME ZONE

/// timezone(zone, timestamptz) is the local time there (a timestamp);
/// timezone(zone, timestamp) reads the timestamp as local time there (a
/// timestamptz). The zone is a name or offset (POSIX sign) or an interval
/// of hours/minutes/seconds only (east positive).
/// timestamptz(date, timetz) and timestamptz(date, time).
fn date_time_tstz(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    match (&a[0], &a[1]) {
        (Value::Date(d), Value::TimeTz(t, z)) => crate::timetz::date_plus(*d, *t, *z),
        (Value::Date(d), Value::Time(t)) => {
            let local = crate::time::date_plus_time(*d, *t)?;
            crate::cast::cast(&local, DataType::TimestampTz(None), true, ctx)
        }
        _ => Ok(Value::Null),
    }
}

/// `AT TIME ZONE interval`: the interval's offset in seconds east of
/// UTC; 22023 for one with months or days, as PostgreSQL.
pub(crate) fn interval_zone_secs(iv: &crate::datetime::Interval) -> Result<i32, DbError> {
    if iv.months != 0 || iv.days != 0 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!(
                "interval time zone \"{}\" must not include months or days",
                crate::datetime::format_interval(iv)
            ),
        ));
    }
    Ok((iv.micros / USECS_PER_SEC) as i32)
}

fn at_zone(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let tz = match &a[0] {
        Value::Interval(iv) => TimeZone::fixed(interval_zone_secs(iv)?),
        v => {
            let at = match &a[1] {
                Value::TimestampTz(t) => ZoneAt::Utc(*t),
                Value::Timestamp(t) => ZoneAt::Local(*t),
                _ => ZoneAt::Zone,
            };
            zone_arg(v.as_str().unwrap_or_default(), true, at)?
        }
    };
    Ok(match &a[1] {
        Value::TimestampTz(t) if !is_finite_ts(*t) => Value::Timestamp(*t),
        Value::Timestamp(t) if !is_finite_ts(*t) => Value::TimestampTz(*t),
        Value::TimestampTz(t) => {
            let local = to_local(*t, &tz).0;
            if !timestamp_in_range(local) {
                return Err(ts_range());
            }
            Value::Timestamp(local)
        }
        Value::Timestamp(t) => {
            let utc = from_local(*t, &tz);
            if !timestamp_in_range(utc) {
                return Err(ts_range());
            }
            Value::TimestampTz(utc)
        }
        _ => Value::Null,
    })
}

// ---------------------------------------------------------------------
// generate_series over timestamps

/// Values one timestamp series may have: a select-list series is held as
/// an array at once (the FROM-clause one streams).
pub const TIMESTAMP_SERIES_VALUES_MAX: usize = 10_000_000;

/// 22023 `step size cannot equal zero`, or whether the step goes forward.
pub fn series_step_forward(step: &Interval) -> Result<bool, DbError> {
    match step.span().cmp(&0) {
        std::cmp::Ordering::Equal => Err(DbError::new(
            SqlState::InvalidParameterValue,
            "step size cannot equal zero",
        )),
        o => Ok(o.is_gt()),
    }
}

/// The next value of a timestamp series: `cur + step` (in the session zone
/// for timestamptz), as generate_series_timestamp adds cumulatively.
pub fn series_next(cur: &Value, step: &Interval, ctx: &EvalCtx) -> Result<Value, DbError> {
    Ok(match cur {
        Value::Timestamp(t) => Value::Timestamp(crate::datetime::timestamp_add_interval(*t, step)?),
        Value::TimestampTz(t) => Value::TimestampTz(crate::datetime::timestamptz_add_interval(
            *t,
            step,
            ctx.time_zone,
        )?),
        _ => Value::Null,
    })
}

/// Whether a series at `cur` has not passed `stop`.
pub fn series_within(cur: &Value, stop: &Value, forward: bool) -> bool {
    let (Some(c), Some(s)) = (ts_of(cur), ts_of(stop)) else {
        return false;
    };
    if forward {
        c <= s
    } else {
        c >= s
    }
}

fn ts_of(v: &Value) -> Option<i64> {
    match v {
        Value::Timestamp(t) | Value::TimestampTz(t) => Some(*t),
        _ => None,
    }
}

/// generate_series(start, stop, step) over timestamps as one array (the
/// select-list form unnests it).
fn timestamp_series(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let (start, stop) = (&a[0], &a[1]);
    let Value::Interval(step) = &a[2] else {
        return Ok(Value::Null);
    };
    if start.is_null() || stop.is_null() {
        return Ok(Value::Null);
    }
    let forward = series_step_forward(step)?;
    let elem = start.data_type();
    let mut items = Vec::new();
    let mut cur = start.clone();
    while series_within(&cur, stop, forward) {
        if items.len() >= TIMESTAMP_SERIES_VALUES_MAX {
            return Err(DbError::new(
                SqlState::ProgramLimitExceeded,
                format!("a set-returning function in a select list returns at most {TIMESTAMP_SERIES_VALUES_MAX} rows per input row"),
            ));
        }
        let next = series_next(&cur, step, ctx)?;
        items.push(cur);
        if ts_of(&next).is_none_or(|n| n == TS_NOEND || n == TS_NOBEGIN) {
            break;
        }
        cur = next;
    }
    Ok(crate::array::Array::from_items(elem, items).value())
}

/// The handle of the timestamp series as an array, for the planner's
/// select-list generate_series over `timestamp` or `timestamptz`.
pub fn timestamp_series_fn() -> ScalarFn {
    ScalarFn {
        name: "generate_series",
        volatility: Volatility::Volatile,
        imp: timestamp_series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn call(name: &str, args: &[Value]) -> Result<String, (SqlState, String)> {
        let types: Vec<DataType> = args.iter().map(Value::data_type).collect();
        let r = resolve(name, &types)
            .expect("a function here")
            .map_err(|e| (e.code, e.message.clone()))?;
        r.func
            .call(args, &ctx())
            .map(|v| v.to_text(&ctx()))
            .map_err(|e| (e.code, e.message.clone()))
    }

    fn ts(s: &str) -> Value {
        crate::text::parse_text(DataType::Timestamp(None), s, &ctx()).unwrap()
    }

    fn iv(s: &str) -> Value {
        crate::text::parse_text(DataType::Interval(None), s, &ctx()).unwrap()
    }

    fn t(s: &str) -> Value {
        Value::text(s)
    }

    #[test]
    fn iso_weeks() {
        // 2021-01-03 is a Sunday in ISO week 53 of 2020.
        assert_eq!(iso_week(date2j(2021, 1, 3)), (2020, 53));
        assert_eq!(iso_week(date2j(2021, 1, 4)), (2021, 1));
        // 2024-12-30 (Monday) is week 1 of 2025.
        assert_eq!(iso_week(date2j(2024, 12, 30)), (2025, 1));
        assert_eq!(iso_week(date2j(2008, 12, 28)), (2008, 52));
        assert_eq!(iso_year_start(2025), date2j(2024, 12, 30));
    }

    #[test]
    fn trunc_and_parts() {
        let x = ts("2024-05-17 13:45:12.345678");
        assert_eq!(
            call("date_trunc", &[t("week"), x.clone()]).unwrap(),
            "2024-05-13 00:00:00"
        );
        assert_eq!(
            call("date_trunc", &[t("quarter"), x.clone()]).unwrap(),
            "2024-04-01 00:00:00"
        );
        assert_eq!(
            call("date_trunc", &[t("ms"), x.clone()]).unwrap(),
            "2024-05-17 13:45:12.345"
        );
        assert_eq!(
            call("date_trunc", &[t("century"), x.clone()]).unwrap(),
            "2001-01-01 00:00:00"
        );
        assert_eq!(
            call("date_trunc", &[t("millennium"), x.clone()]).unwrap(),
            "2001-01-01 00:00:00"
        );
        assert_eq!(
            call("date_trunc", &[t("decade"), x.clone()]).unwrap(),
            "2020-01-01 00:00:00"
        );
        assert_eq!(
            call("date_trunc", &[t("foo"), x.clone()]).unwrap_err(),
            (
                SqlState::InvalidParameterValue,
                "unit \"foo\" not recognized for type timestamp without time zone".into()
            )
        );
        assert_eq!(
            call("extract", &[t("second"), x.clone()]).unwrap(),
            "12.345678"
        );
        assert_eq!(call("extract", &[t("doy"), x.clone()]).unwrap(), "138");
        assert_eq!(call("extract", &[t("isodow"), x.clone()]).unwrap(), "5");
        assert_eq!(call("date_part", &[t("dow"), x.clone()]).unwrap(), "5");
        assert_eq!(
            call("extract", &[t("microseconds"), x]).unwrap(),
            "12345678"
        );
        assert_eq!(
            call(
                "extract",
                &[t("epoch"), iv("1 year 2 mons 3 days 04:05:06.789")]
            )
            .unwrap(),
            "37015506.789000"
        );
        assert_eq!(
            call("date_trunc", &[t("hour"), iv("3 days 04:05:06")]).unwrap(),
            "3 days 04:00:00"
        );
    }

    #[test]
    fn age_and_justify() {
        assert_eq!(
            call("age", &[ts("2024-03-01"), ts("2023-01-31")]).unwrap(),
            "1 year 1 mon 1 day"
        );
        assert_eq!(
            call("age", &[ts("2023-01-31"), ts("2024-03-01")]).unwrap(),
            "-1 years -1 mons -1 days"
        );
        assert_eq!(
            call("justify_days", &[iv("65 days")]).unwrap(),
            "2 mons 5 days"
        );
        assert_eq!(
            call("justify_hours", &[iv("50 hours")]).unwrap(),
            "2 days 02:00:00"
        );
        assert_eq!(
            call("justify_interval", &[iv("1 mon -1 hour")]).unwrap(),
            "29 days 23:00:00"
        );
        assert_eq!(fmt_g(1e20), "1e+20");
        assert_eq!(fmt_g(61.0), "61");
        assert_eq!(fmt_g(5.5), "5.5");
    }
}
