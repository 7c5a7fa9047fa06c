//! DateStyle and IntervalStyle: how dates, timestamps and intervals print.
//!
//! PostgreSQL's DateStyle has two halves: the output style (ISO, SQL,
//! Postgres, German) and the field order (MDY, DMY, YMD) that both the SQL
//! and Postgres output styles and the input parser of ambiguous dates
//! (`01/02/03`) follow. [`DateStyle::parse_setting`] is check_datestyle: a
//! comma-separated list of key words applied on top of the current value,
//! so `SET datestyle = 'dmy'` keeps the output style. Its canonical text
//! (`Postgres, MDY`) is what SHOW prints and what ParameterStatus reports.
//!
//! The writers here are datetime.c's EncodeDateOnly / EncodeDateTime for
//! the three non-ISO styles and EncodeInterval for the three non-postgres
//! interval styles; the ISO and postgres paths stay in [`crate::datetime`],
//! untouched, because they run for every value a default session prints.
//!
//! Example: 2024-01-02 03:04:05.5 in zone PST8PDT prints as
//! * ISO:      `2024-01-02 03:04:05.5-08`
//! * SQL:      `01/02/2024 03:04:05.5 PST` (DMY: `02/01/2024 ...`)
//! * Postgres: `Tue Jan 02 03:04:05.5 2024 PST` (DMY: `Tue 02 Jan ...`)
//! * German:   `02.01.2024 03:04:05.5 PST`
//!
//! and interval '1 year 2 days -03:00:04' as postgres `1 year 2 days
//! -03:00:04`, postgres_verbose `@ 1 year 2 days -3 hours -4 secs`,
//! sql_standard `+1-0 +2 -3:00:04`, iso_8601 `P1Y2DT-3H-4S`.
//!
//! Left out: XSD style (not settable in PostgreSQL either), and the
//! "time zone could not be determined" case (tm_isdst < 0), which needs a
//! tz database's history that Nestor's zones do not model.

use std::fmt::{self, Write};

use crate::datetime::{Interval, USECS_PER_SEC};

/// The output half of DateStyle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DateOutput {
    #[default]
    Iso,
    Sql,
    Postgres,
    German,
}

/// The field-order half of DateStyle (input of `01/02/03`, and output of
/// the SQL and Postgres styles).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DateOrder {
    #[default]
    Mdy,
    Dmy,
    Ymd,
}

/// DateStyle: output style and field order. The default is `ISO, MDY`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DateStyle {
    pub output: DateOutput,
    pub order: DateOrder,
}

/// IntervalStyle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IntervalStyle {
    #[default]
    Postgres,
    PostgresVerbose,
    SqlStandard,
    Iso8601,
}

impl IntervalStyle {
    /// From the setting's canonical (lower-case) value.
    pub fn from_setting(v: &str) -> Option<IntervalStyle> {
        Some(match v {
            "postgres" => IntervalStyle::Postgres,
            "postgres_verbose" => IntervalStyle::PostgresVerbose,
            "sql_standard" => IntervalStyle::SqlStandard,
            "iso_8601" => IntervalStyle::Iso8601,
            _ => return None,
        })
    }
}

impl DateStyle {
    pub const ISO_MDY: DateStyle = DateStyle {
        output: DateOutput::Iso,
        order: DateOrder::Mdy,
    };

    /// check_datestyle: apply a DateStyle value to `base` (the current
    /// setting). `default` stands for `base_default` (the reset value).
    /// Err is the DETAIL of PostgreSQL's "invalid value for parameter".
    pub fn parse_setting(
        base: DateStyle,
        base_default: DateStyle,
        value: &str,
    ) -> Result<DateStyle, String> {
        let words = split_list(value).ok_or_else(|| "List syntax is invalid.".to_string())?;
        let mut new = base;
        let (mut have_style, mut have_order, mut ok) = (false, false, true);
        for w in &words {
            let output = match w.as_str() {
                "iso" => Some(DateOutput::Iso),
                "sql" => Some(DateOutput::Sql),
                "postgres" => Some(DateOutput::Postgres),
                "german" => Some(DateOutput::German),
                _ => None,
            };
            let order = match w.as_str() {
                "ymd" => Some(DateOrder::Ymd),
                "dmy" | "euro" | "european" => Some(DateOrder::Dmy),
                "mdy" | "us" | "noneuro" | "noneuropean" => Some(DateOrder::Mdy),
                _ => None,
            };
            if let Some(o) = output {
                ok &= !(have_style && new.output != o);
                new.output = o;
                have_style = true;
                // German also sets DMY, unless explicitly overridden.
                if o == DateOutput::German && !have_order {
                    new.order = DateOrder::Dmy;
                }
            } else if let Some(o) = order {
                ok &= !(have_order && new.order != o);
                new.order = o;
                have_order = true;
            } else if w == "default" {
                if !have_style {
                    new.output = base_default.output;
                }
                if !have_order {
                    new.order = base_default.order;
                }
            } else {
                return Err(format!("Unrecognized key word: \"{w}\"."));
            }
        }
        if !ok {
            return Err("Conflicting \"datestyle\" specifications.".into());
        }
        Ok(new)
    }
}

/// SplitIdentifierString(value, ','): words separated by commas, white
/// space around them ignored, unquoted words lower-cased, `"..."` kept as
/// written. None for a malformed list (an empty word, two words with only
/// a space between them, an unclosed quote).
fn split_list(value: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let b = value.as_bytes();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if i == b.len() {
        return Some(out);
    }
    loop {
        let word = if b.get(i) == Some(&b'"') {
            let mut w = String::new();
            i += 1;
            loop {
                match b.get(i)? {
                    b'"' if b.get(i + 1) == Some(&b'"') => {
                        w.push('"');
                        i += 2;
                    }
                    b'"' => {
                        i += 1;
                        break;
                    }
                    _ => {
                        let ch = value[i..].chars().next()?;
                        w.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            w
        } else {
            let start = i;
            while i < b.len() && b[i] != b',' && !b[i].is_ascii_whitespace() && b[i] != b'"' {
                i += 1;
            }
            if i == start {
                return None;
            }
            value[start..i].to_ascii_lowercase()
        };
        if word.is_empty() {
            return None;
        }
        out.push(word);
        skip_ws(&mut i);
        match b.get(i) {
            None => return Some(out),
            Some(b',') => {
                i += 1;
                skip_ws(&mut i);
            }
            Some(_) => return None,
        }
    }
}

/// The canonical text: `ISO, MDY`, `Postgres, DMY`, ...
impl fmt::Display for DateStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let output = match self.output {
            DateOutput::Iso => "ISO",
            DateOutput::Sql => "SQL",
            DateOutput::Postgres => "Postgres",
            DateOutput::German => "German",
        };
        let order = match self.order {
            DateOrder::Mdy => "MDY",
            DateOrder::Dmy => "DMY",
            DateOrder::Ymd => "YMD",
        };
        write!(f, "{output}, {order}")
    }
}

impl std::str::FromStr for DateStyle {
    type Err = String;

    /// A full DateStyle value, on top of `ISO, MDY`.
    fn from_str(s: &str) -> Result<DateStyle, String> {
        DateStyle::parse_setting(DateStyle::ISO_MDY, DateStyle::ISO_MDY, s)
    }
}

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A calendar date and time of day, broken down (year 0 = 1 BC).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fields {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    /// Julian day number (for the day of the week).
    pub jd: i64,
    pub micros_of_day: i64,
}

fn shown_year(y: i64) -> i64 {
    if y > 0 {
        y
    } else {
        1 - y
    }
}

/// EncodeDateOnly for the non-ISO styles.
pub(crate) fn write_date(out: &mut String, f: &Fields, style: DateStyle) {
    let y = shown_year(f.year);
    let (m, d) = (f.month, f.day);
    let dmy = style.order == DateOrder::Dmy;
    let _ = match style.output {
        DateOutput::Iso => write!(out, "{y:04}-{m:02}-{d:02}"),
        DateOutput::Sql if dmy => write!(out, "{d:02}/{m:02}/{y:04}"),
        DateOutput::Sql => write!(out, "{m:02}/{d:02}/{y:04}"),
        DateOutput::German => write!(out, "{d:02}.{m:02}.{y:04}"),
        DateOutput::Postgres if dmy => write!(out, "{d:02}-{m:02}-{y:04}"),
        DateOutput::Postgres => write!(out, "{m:02}-{d:02}-{y:04}"),
    };
    if f.year <= 0 {
        out.push_str(" BC");
    }
}

/// EncodeDateTime for the non-ISO styles. `zone` is the zone's name
/// (abbreviation) for timestamptz, None for timestamp.
pub(crate) fn write_timestamp(out: &mut String, f: &Fields, zone: Option<&str>, style: DateStyle) {
    debug_assert!(
        style.output != DateOutput::Iso,
        "ISO output is datetime.rs's"
    );
    let y = shown_year(f.year);
    let (m, d) = (f.month, f.day);
    let dmy = style.order == DateOrder::Dmy;
    let _ = match style.output {
        DateOutput::Sql if dmy => write!(out, "{d:02}/{m:02}/{y:04} "),
        DateOutput::Sql | DateOutput::Iso => write!(out, "{m:02}/{d:02}/{y:04} "),
        DateOutput::German => write!(out, "{d:02}.{m:02}.{y:04} "),
        DateOutput::Postgres => {
            let wd = DAYS[(f.jd + 1).rem_euclid(7) as usize];
            let mon = MONTHS[f.month as usize - 1];
            if dmy {
                write!(out, "{wd} {d:02} {mon} ")
            } else {
                write!(out, "{wd} {mon} {d:02} ")
            }
        }
    };
    crate::datetime::write_time(out, f.micros_of_day);
    if style.output == DateOutput::Postgres {
        let _ = write!(out, " {y:04}");
    }
    if let Some(z) = zone {
        out.push(' ');
        out.push_str(z);
    }
    if f.year <= 0 {
        out.push_str(" BC");
    }
}

/// The zone name the non-ISO styles print: the abbreviation, or for a
/// zone without one its offset as PostgreSQL names such zones (`+05`,
/// `-0330`).
pub(crate) fn zone_name(abbrev: Option<&str>, offset_secs: i32) -> String {
    if let Some(a) = abbrev {
        return a.to_string();
    }
    if offset_secs == 0 {
        return "UTC".into();
    }
    let sign = if offset_secs < 0 { '-' } else { '+' };
    let a = offset_secs.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    match (m, s) {
        (0, 0) => format!("{sign}{h:02}"),
        (_, 0) => format!("{sign}{h:02}{m:02}"),
        _ => format!("{sign}{h:02}{m:02}{s:02}"),
    }
}

/// An interval broken down as interval2itm does: every field carries the
/// sign of the part it comes from (months, days, microseconds).
struct Itm {
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    usec: i64,
}

impl Itm {
    fn of(iv: &Interval) -> Itm {
        let t = iv.micros;
        Itm {
            year: (iv.months / 12) as i64,
            mon: (iv.months % 12) as i64,
            mday: iv.days as i64,
            hour: t / (3600 * USECS_PER_SEC),
            min: t / (60 * USECS_PER_SEC) % 60,
            sec: t / USECS_PER_SEC % 60,
            usec: t % USECS_PER_SEC,
        }
    }

    fn has_time(&self) -> bool {
        self.hour != 0 || self.min != 0 || self.sec != 0 || self.usec != 0
    }
}

/// AppendSeconds: `|sec|` (two digits when `fill`), then the fraction of
/// `|usec|` without trailing zeros.
fn append_seconds(out: &mut String, sec: i64, usec: i64, fill: bool) {
    let _ = if fill {
        write!(out, "{:02}", sec.abs())
    } else {
        write!(out, "{}", sec.abs())
    };
    if usec != 0 {
        let f = format!("{:06}", usec.abs());
        let _ = write!(out, ".{}", f.trim_end_matches('0'));
    }
}

/// EncodeInterval for the styles other than `postgres`.
pub(crate) fn format_interval_styled(iv: &Interval, style: IntervalStyle) -> String {
    let mut out = String::new();
    match style {
        IntervalStyle::Postgres => out = crate::datetime::format_interval(iv),
        IntervalStyle::SqlStandard => sql_standard(&mut out, Itm::of(iv)),
        IntervalStyle::Iso8601 => iso_8601(&mut out, Itm::of(iv)),
        IntervalStyle::PostgresVerbose => verbose(&mut out, Itm::of(iv)),
    }
    out
}

fn sql_standard(out: &mut String, mut t: Itm) {
    let fields = [t.year, t.mon, t.mday, t.hour, t.min, t.sec, t.usec];
    let has_negative = fields.iter().any(|&v| v < 0);
    let has_positive = fields.iter().any(|&v| v > 0);
    let has_year_month = t.year != 0 || t.mon != 0;
    let has_day_time = t.mday != 0 || t.has_time();
    let mixed = (has_negative && has_positive) || (has_year_month && has_day_time);
    let standard = !mixed;
    if has_negative && standard {
        out.push('-');
        t = Itm {
            year: -t.year,
            mon: -t.mon,
            mday: -t.mday,
            hour: -t.hour,
            min: -t.min,
            sec: -t.sec,
            usec: -t.usec,
        };
    }
    if !has_negative && !has_positive {
        out.push('0');
    } else if !standard {
        let year_sign = if t.year < 0 || t.mon < 0 { '-' } else { '+' };
        let day_sign = if t.mday < 0 { '-' } else { '+' };
        let sec_sign = if t.hour < 0 || t.min < 0 || t.sec < 0 || t.usec < 0 {
            '-'
        } else {
            '+'
        };
        let _ = write!(
            out,
            "{year_sign}{}-{} {day_sign}{} {sec_sign}{}:{:02}:",
            t.year.abs(),
            t.mon.abs(),
            t.mday.abs(),
            t.hour.abs(),
            t.min.abs()
        );
        append_seconds(out, t.sec, t.usec, true);
    } else if has_year_month {
        let _ = write!(out, "{}-{}", t.year, t.mon);
    } else if t.mday != 0 {
        let _ = write!(out, "{} {}:{:02}:", t.mday, t.hour, t.min);
        append_seconds(out, t.sec, t.usec, true);
    } else {
        let _ = write!(out, "{}:{:02}:", t.hour, t.min);
        append_seconds(out, t.sec, t.usec, true);
    }
}

fn iso_8601(out: &mut String, t: Itm) {
    if t.year == 0 && t.mon == 0 && t.mday == 0 && !t.has_time() {
        out.push_str("PT0S");
        return;
    }
    out.push('P');
    let part = |out: &mut String, v: i64, unit: char| {
        if v != 0 {
            let _ = write!(out, "{v}{unit}");
        }
    };
    part(out, t.year, 'Y');
    part(out, t.mon, 'M');
    part(out, t.mday, 'D');
    if t.has_time() {
        out.push('T');
    }
    part(out, t.hour, 'H');
    part(out, t.min, 'M');
    if t.sec != 0 || t.usec != 0 {
        if t.sec < 0 || t.usec < 0 {
            out.push('-');
        }
        append_seconds(out, t.sec, t.usec, false);
        out.push('S');
    }
}

fn verbose(out: &mut String, t: Itm) {
    out.push('@');
    let (mut is_zero, mut is_before) = (true, false);
    let mut part = |out: &mut String, v: i64, unit: &str| {
        if v == 0 {
            return;
        }
        let mut v = v;
        if is_zero {
            is_before = v < 0;
            v = v.abs();
        } else if is_before {
            v = -v;
        }
        let _ = write!(out, " {v} {unit}{}", if v == 1 { "" } else { "s" });
        is_zero = false;
    };
    part(out, t.year, "year");
    part(out, t.mon, "mon");
    part(out, t.mday, "day");
    part(out, t.hour, "hour");
    part(out, t.min, "min");
    if t.sec != 0 || t.usec != 0 {
        out.push(' ');
        if t.sec < 0 || (t.sec == 0 && t.usec < 0) {
            if is_zero {
                is_before = true;
            } else if !is_before {
                out.push('-');
            }
        } else if is_before {
            out.push('-');
        }
        append_seconds(out, t.sec, t.usec, false);
        let plural = t.sec.abs() != 1 || t.usec != 0;
        let _ = write!(out, " sec{}", if plural { "s" } else { "" });
        is_zero = false;
    }
    if is_zero {
        out.push_str(" 0");
    }
    if is_before {
        out.push_str(" ago");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(base: &str, v: &str) -> Result<String, String> {
        let b: DateStyle = base.parse().unwrap();
        DateStyle::parse_setting(b, DateStyle::ISO_MDY, v).map(|s| s.to_string())
    }

    #[test]
    fn datestyle_setting() {
        assert_eq!(set("iso", "postgres, dmy").unwrap(), "Postgres, DMY");
        assert_eq!(set("postgres", "dmy").unwrap(), "Postgres, DMY");
        assert_eq!(set("sql, dmy", "iso").unwrap(), "ISO, DMY");
        assert_eq!(set("iso", "german").unwrap(), "German, DMY");
        assert_eq!(set("iso", "ymd, german").unwrap(), "German, YMD");
        assert_eq!(set("sql, dmy", "default").unwrap(), "ISO, MDY");
        assert_eq!(set("iso", "sql, default").unwrap(), "SQL, MDY");
        assert_eq!(set("iso", " Euro , \"sql\" ").unwrap(), "SQL, DMY");
        assert_eq!(
            set("iso", "postgres dmy").unwrap_err(),
            "List syntax is invalid."
        );
        assert_eq!(
            set("iso", "postgres,iso").unwrap_err(),
            "Conflicting \"datestyle\" specifications."
        );
        assert_eq!(
            set("iso", "foo").unwrap_err(),
            "Unrecognized key word: \"foo\"."
        );
        assert!(set("iso", "iso,").is_err());
    }

    #[test]
    fn interval_styles() {
        let iv = Interval::new(12, 2, -(3 * 3600 + 4) * USECS_PER_SEC);
        let f = |s| format_interval_styled(&iv, s);
        assert_eq!(
            f(IntervalStyle::PostgresVerbose),
            "@ 1 year 2 days -3 hours -4 secs"
        );
        assert_eq!(f(IntervalStyle::SqlStandard), "+1-0 +2 -3:00:04");
        assert_eq!(f(IntervalStyle::Iso8601), "P1Y2DT-3H-4S");
        let neg = Interval::new(-14, 0, 0);
        assert_eq!(
            format_interval_styled(&neg, IntervalStyle::SqlStandard),
            "-1-2"
        );
        assert_eq!(
            format_interval_styled(&neg, IntervalStyle::PostgresVerbose),
            "@ 1 year 2 mons ago"
        );
        let zero = Interval::default();
        assert_eq!(
            format_interval_styled(&zero, IntervalStyle::SqlStandard),
            "0"
        );
        assert_eq!(
            format_interval_styled(&zero, IntervalStyle::Iso8601),
            "PT0S"
        );
        assert_eq!(
            format_interval_styled(&zero, IntervalStyle::PostgresVerbose),
            "@ 0"
        );
        let t = Interval::new(0, 0, -1_500_000);
        assert_eq!(
            format_interval_styled(&t, IntervalStyle::PostgresVerbose),
            "@ 1.5 secs ago"
        );
        assert_eq!(
            format_interval_styled(&t, IntervalStyle::Iso8601),
            "PT-1.5S"
        );
        assert_eq!(
            format_interval_styled(&t, IntervalStyle::SqlStandard),
            "-0:00:01.5"
        );
    }
}
