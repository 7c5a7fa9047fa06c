//! `to_char`, `to_timestamp(text, text)`, `to_date`, `to_number` and
//! `to_timestamp(double precision)`: PostgreSQL's formatting.c, for the
//! patterns queries use.
//!
//! A date/time format is split into [`Node`]s: template patterns matched
//! case-sensitively at each position, first match in PostgreSQL's keyword
//! order (so `MONTH` wins over `MON`, `DDD` over `DD`), with the `FM`
//! (no padding) and `TM` prefixes and the `TH`/`th` ordinal suffix;
//! double-quoted text and `\"` are literal, anything else is copied.
//! `to_char` renders each node from the broken-down time
//! ([`crate::datetime_fns::Tm`]) with PostgreSQL's widths (`%0*d`, a
//! negative field one wider; names padded to 9 unless FM); an interval may
//! not use the calendar-bound ones (names, AM/PM, BC, TZ: 22007 as in
//! PostgreSQL). `to_timestamp`/`to_date` read the same nodes back: a
//! numeric field takes exactly its width when the next node is another
//! field, else all the digits there are; names match case-insensitively;
//! a separator in the format skips one input character and a space any
//! run of whitespace. Fields left unset default to 1 BC-01-01 00:00:00,
//! as PostgreSQL's do.
//!
//! A number format is the `9 0 . D , G S MI PL SG PR FM` subset plus
//! quoted text, laid out as NUM_processor does: the value rounded to the
//! fraction positions, `#` in every digit position when the integer part
//! does not fit (or there are no integer positions), a floating sign (or
//! `<` of PR) just before the first printed digit, blanks for unused
//! leading positions unless FM, FM also dropping trailing fraction zeros
//! of `9` positions (a zero value keeps its `0`). Floats are printed with
//! printf-style rounding after limiting to DBL_DIG (FLT_DIG) significant
//! digits, numeric rounds half away from zero. `RN` (Roman numerals) and
//! `EEEE` (scientific) replace the layout. Rarely used patterns (`V`, `L`,
//! `B`, `TH` of numbers, `Y,YYY` input...) are 0A000 naming the pattern.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::datetime::{
    date2j, date_from_ymd, days_in_month, j2date, Interval, TimeZone, TS_NOBEGIN, TS_NOEND,
    USECS_PER_DAY, USECS_PER_SEC,
};
use crate::datetime_fns::{iso_week, iso_year_start, to_timestamp_float, Tm};
use crate::functions::{check_result_len, no_function, Imp, Resolved};
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &["to_char", "to_timestamp", "to_date", "to_number"];

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    use DataType as T;
    let is_text = |t: &DataType| t.is_string() || *t == T::Unknown;
    let text = T::Text;
    let (imp, arg_types, ret, volatile): (Imp, Vec<T>, T, bool) = match (name, args) {
        ("to_char", [T::Unknown, _]) => {
            return Some(Err(crate::datetime_fns::not_unique(name, args)))
        }
        ("to_char", [v, f]) if is_text(f) => match v {
            T::Timestamp(_) => (to_char, vec![T::Timestamp(None), text], text, false),
            T::TimestampTz(_) | T::Date => (to_char, vec![T::TimestampTz(None), text], text, true),
            // time has no to_char: it is cast to interval (implicitly).
            T::Interval(_) | T::Time(_) => (to_char, vec![T::Interval(None), text], text, false),
            T::Int2 | T::Int4 => (to_char, vec![T::Int4, text], text, false),
            T::Int8 | T::Float4 | T::Float8 => (to_char, vec![*v, text], text, false),
            T::Numeric(_) => (to_char, vec![T::NUMERIC, text], text, false),
            _ => return Some(Err(no_function(name, args))),
        },
        ("to_timestamp", [a, b]) if is_text(a) && is_text(b) => {
            (to_timestamp, vec![text, text], T::TimestampTz(None), true)
        }
        ("to_timestamp", [a]) if a.is_numeric() || *a == T::Unknown => (
            |a, _| match a[0].as_f64() {
                Some(f) => to_timestamp_float(f),
                None => Ok(Value::Null),
            },
            vec![T::Float8],
            T::TimestampTz(None),
            false,
        ),
        ("to_number", [a, b]) if is_text(a) && is_text(b) => {
            (to_number, vec![text, text], T::NUMERIC, false)
        }
        ("to_date", [a, b]) if is_text(a) && is_text(b) => {
            (to_date, vec![text, text], T::Date, false)
        }
        _ => return Some(Err(no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES, name, imp, arg_types, ret, volatile,
    )))
}

fn text(s: String) -> Value {
    Value::Text(Arc::from(s))
}

fn to_char(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let Some(fmt) = a[1].as_str() else {
        return Ok(Value::Null);
    };
    let out = match &a[0] {
        Value::Null => return Ok(Value::Null),
        Value::Timestamp(t) | Value::TimestampTz(t) if *t == TS_NOBEGIN || *t == TS_NOEND => {
            return Ok(Value::Null)
        }
        Value::Timestamp(t) => dt_to_char(fmt, &Tm::from_local(*t), Zone::None, false)?,
        Value::TimestampTz(t) => {
            let tz = ctx.time_zone;
            let off = tz.offset_at_utc(*t);
            let local = t + off as i64 * USECS_PER_SEC;
            dt_to_char(fmt, &Tm::from_local(local), Zone::At(tz, *t, off), false)?
        }
        Value::Interval(iv) => interval_to_char(fmt, iv)?,
        v => num_to_char(fmt, v)?,
    };
    check_result_len(out.len())?;
    Ok(text(out))
}

// ---------------------------------------------------------------------
// Date/time format nodes

/// Template patterns, in PostgreSQL's matching order.
const KEYWORDS: &[&str] = &[
    "A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
    "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW",
    "IYYY", "IYY", "IY", "I", "J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.",
    "PM", "Q", "RM", "SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ", "US", "WW", "W", "Y,YYY", "YYYY",
    "YYY", "YY", "Y", "a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy",
    "d", "ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw",
    "iyyy", "iyy", "iy", "i", "j", "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm",
    "sssss", "ssss", "ss", "tzh", "tzm", "tz", "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y",
];

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Field {
        key: &'static str,
        fm: bool,
        th: Option<bool>,
    },
    /// Literal text (a separator, quoted text).
    Lit(char),
    /// Quoted or escaped literal: copied, skipped as a whole on input.
    Quoted(char),
}

fn parse_format(fmt: &str) -> Vec<Node> {
    let b: Vec<char> = fmt.chars().collect();
    let starts = |i: usize, p: &str| (i..).zip(p.chars()).all(|(k, c)| b.get(k) == Some(&c));
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // Prefixes.
        let mut fm = false;
        let mut j = i;
        loop {
            if starts(j, "FM") || starts(j, "fm") {
                fm = true;
                j += 2;
            } else if starts(j, "TM") || starts(j, "tm") {
                j += 2;
            } else {
                break;
            }
        }
        if let Some(key) = KEYWORDS.iter().find(|k| starts(j, k)) {
            j += key.chars().count();
            let th = if starts(j, "TH") {
                j += 2;
                Some(true)
            } else if starts(j, "th") {
                j += 2;
                Some(false)
            } else {
                None
            };
            out.push(Node::Field { key, fm, th });
            i = j;
            continue;
        }
        match b[i] {
            '"' => {
                i += 1;
                while i < b.len() && b[i] != '"' {
                    if b[i] == '\\' && i + 1 < b.len() {
                        i += 1;
                    }
                    out.push(Node::Quoted(b[i]));
                    i += 1;
                }
                i += 1;
            }
            '\\' if b.get(i + 1) == Some(&'"') => {
                out.push(Node::Quoted('"'));
                i += 2;
            }
            c => {
                out.push(Node::Lit(c));
                i += 1;
            }
        }
    }
    out
}

const MONTHS_FULL: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS_FULL: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const ROMAN: [&str; 12] = [
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
];

/// The ordinal suffix of `n` (PostgreSQL's get_th).
fn ordinal(n: i64, upper: bool) -> &'static str {
    let n = n.abs();
    let s = if (11..=13).contains(&(n % 100)) {
        "th"
    } else {
        match n % 10 {
            1 => "st",
            2 => "nd",
            3 => "rd",
            _ => "th",
        }
    };
    if upper {
        match s {
            "st" => "ST",
            "nd" => "ND",
            "rd" => "RD",
            _ => "TH",
        }
    } else {
        s
    }
}

/// `%0*d`: zero-padded to `width` (sign included, as C does).
fn zpad(v: i64, width: usize, fm: bool) -> String {
    if fm {
        v.to_string()
    } else {
        format!("{v:0width$}")
    }
}

/// Width of a field that is one wider when negative.
fn sw(v: i64, w: usize) -> usize {
    if v >= 0 {
        w
    } else {
        w + 1
    }
}

/// Name in the case of the pattern (`MONTH`, `Month`, `month`).
fn cased(name: &str, key: &str) -> String {
    let mut k = key.chars();
    let first_upper = k.next().is_some_and(|c| c.is_ascii_uppercase());
    let second_upper = k.next().is_some_and(|c| c.is_ascii_uppercase());
    if first_upper && second_upper {
        name.to_uppercase()
    } else if first_upper {
        name.to_string()
    } else {
        name.to_lowercase()
    }
}

#[derive(Clone, Copy)]
enum Zone {
    None,
    /// The zone, the UTC instant and its offset there.
    At(TimeZone, i64, i32),
}

fn interval_invalid() -> DbError {
    DbError::new(
        SqlState::InvalidDatetimeFormat,
        "invalid format specification for an interval value",
    )
    .with_hint("Intervals are not tied to specific calendar dates.")
}

fn unsupported_pattern(p: &str) -> DbError {
    DbError::unsupported(format!("format pattern \"{p}\""))
}

/// Day of the year; of an interval, its span in 30-day months and days.
fn yday(tm: &Tm, interval: bool) -> i64 {
    if interval {
        (tm.year * 12 + tm.mon) * 30 + tm.mday
    } else {
        tm.doy()
    }
}

/// Year as shown: BC years count from 1 (ADJUST_YEAR), intervals as is.
fn adj_year(y: i64, interval: bool) -> i64 {
    if interval || y > 0 {
        y
    } else {
        -(y - 1)
    }
}

fn dt_to_char(fmt: &str, tm: &Tm, zone: Zone, interval: bool) -> Result<String, DbError> {
    let mut out = String::new();
    for node in parse_format(fmt) {
        let (key, fm, th) = match node {
            Node::Lit(c) | Node::Quoted(c) => {
                out.push(c);
                continue;
            }
            Node::Field { key, fm, th } => (key, fm, th),
        };
        let upper_key = key.to_ascii_uppercase();
        let mut num: Option<i64> = None;
        let s: String = match upper_key.as_str() {
            "A.D." | "B.C." | "AD" | "BC" => {
                if interval {
                    return Err(interval_invalid());
                }
                let bc = tm.year <= 0;
                let v = match (upper_key.len() > 2, bc) {
                    (true, true) => "B.C.",
                    (true, false) => "A.D.",
                    (false, true) => "BC",
                    (false, false) => "AD",
                };
                if key.starts_with(|c: char| c.is_ascii_lowercase()) {
                    v.to_lowercase()
                } else {
                    v.to_string()
                }
            }
            "A.M." | "P.M." | "AM" | "PM" => {
                if interval {
                    return Err(interval_invalid());
                }
                let pm = tm.hour % 24 >= 12;
                let v = match (upper_key.len() > 2, pm) {
                    (true, true) => "P.M.",
                    (true, false) => "A.M.",
                    (false, true) => "PM",
                    (false, false) => "AM",
                };
                if key.starts_with(|c: char| c.is_ascii_lowercase()) {
                    v.to_lowercase()
                } else {
                    v.to_string()
                }
            }
            "HH24" => {
                num = Some(tm.hour);
                zpad(tm.hour, sw(tm.hour, 2), fm)
            }
            "HH" | "HH12" => {
                let h = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
                num = Some(h);
                zpad(h, sw(h, 2), fm)
            }
            "MI" => {
                num = Some(tm.min);
                zpad(tm.min, sw(tm.min, 2), fm)
            }
            "SS" => {
                num = Some(tm.sec);
                zpad(tm.sec, sw(tm.sec, 2), fm)
            }
            "MS" => {
                num = Some(tm.fsec / 1000);
                format!("{:03}", tm.fsec / 1000)
            }
            "US" => {
                num = Some(tm.fsec);
                format!("{:06}", tm.fsec)
            }
            "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6" => {
                let n = (upper_key.as_bytes()[2] - b'0') as u32;
                let v = tm.fsec / 10i64.pow(6 - n);
                num = Some(v);
                format!("{v:0width$}", width = n as usize)
            }
            "SSSS" | "SSSSS" => {
                let v = tm.hour * 3600 + tm.min * 60 + tm.sec;
                num = Some(v);
                v.to_string()
            }
            "TZ" => {
                if interval {
                    return Err(interval_invalid());
                }
                let v = match zone {
                    Zone::None => String::new(),
                    Zone::At(tz, utc, off) => zone_abbrev(&tz, utc, off),
                };
                if key == "tz" {
                    v.to_lowercase()
                } else {
                    v
                }
            }
            "TZH" | "TZM" | "OF" => {
                if interval {
                    return Err(interval_invalid());
                }
                let off = match zone {
                    Zone::None => 0,
                    Zone::At(_, _, o) => o,
                };
                let sign = if off >= 0 { '+' } else { '-' };
                let a = off.unsigned_abs();
                match upper_key.as_str() {
                    "TZH" => format!("{sign}{:02}", a / 3600),
                    "TZM" => format!("{:02}", a / 60 % 60),
                    _ => {
                        let mut s = format!("{sign}{}", zpad((a / 3600) as i64, 2, fm));
                        if a / 60 % 60 != 0 {
                            s.push_str(&format!(":{:02}", a / 60 % 60));
                        }
                        s
                    }
                }
            }
            "Y,YYY" => {
                let y = adj_year(tm.year, interval);
                num = Some(y);
                format!("{},{:03}", y / 1000, y % 1000)
            }
            "YYYY" | "YYY" | "YY" | "Y" | "IYYY" | "IYY" | "IY" | "I" => {
                let iso = upper_key.starts_with('I');
                let y = if iso {
                    let jd = date2j(tm.year, tm.mon, tm.mday);
                    adj_year(iso_week(jd).0, interval)
                } else {
                    adj_year(tm.year, interval)
                };
                let digits = upper_key.len();
                // A negative field is one wider; the ISO forms look at
                // the calendar year for that, as PostgreSQL does.
                let sign_year = if iso { adj_year(tm.year, interval) } else { y };
                let w = |n: usize| sw(sign_year, n);
                let (v, w) = match digits {
                    4 => (y, w(4)),
                    3 => (y % 1000, w(3)),
                    2 => (y % 100, w(2)),
                    _ => (y % 10, 1),
                };
                num = Some(v);
                if digits == 1 {
                    v.to_string()
                } else {
                    zpad(v, w, fm)
                }
            }
            "MONTH" | "MON" => {
                if interval {
                    return Err(interval_invalid());
                }
                let name = MONTHS_FULL[(tm.mon - 1).clamp(0, 11) as usize];
                if upper_key == "MON" {
                    cased(&name[..3], key)
                } else if fm {
                    cased(name, key)
                } else {
                    format!("{:<9}", cased(name, key))
                }
            }
            "MM" => {
                num = Some(tm.mon);
                zpad(tm.mon, sw(tm.mon, 2), fm)
            }
            "DAY" | "DY" => {
                if interval {
                    return Err(interval_invalid());
                }
                let name = DAYS_FULL[tm.dow() as usize];
                if upper_key == "DY" {
                    cased(&name[..3], key)
                } else if fm {
                    cased(name, key)
                } else {
                    format!("{:<9}", cased(name, key))
                }
            }
            "DDD" => {
                let v = yday(tm, interval);
                num = Some(v);
                zpad(v, 3, fm)
            }
            "IDDD" => {
                let jd = date2j(tm.year, tm.mon, tm.mday);
                let v = jd - iso_year_start(iso_week(jd).0) + 1;
                num = Some(v);
                zpad(v, 3, fm)
            }
            "DD" => {
                num = Some(tm.mday);
                zpad(tm.mday, 2, fm)
            }
            "D" => {
                if interval {
                    return Err(interval_invalid());
                }
                let v = tm.dow() + 1;
                num = Some(v);
                v.to_string()
            }
            "ID" => {
                if interval {
                    return Err(interval_invalid());
                }
                let v = match tm.dow() {
                    0 => 7,
                    d => d,
                };
                num = Some(v);
                v.to_string()
            }
            "WW" => {
                let v = (yday(tm, interval) - 1) / 7 + 1;
                num = Some(v);
                zpad(v, 2, fm)
            }
            "IW" => {
                let v = iso_week(date2j(tm.year, tm.mon, tm.mday)).1;
                num = Some(v);
                zpad(v, 2, fm)
            }
            "W" => {
                let v = (tm.mday - 1) / 7 + 1;
                num = Some(v);
                v.to_string()
            }
            "Q" => {
                if interval && tm.mon == 0 {
                    String::new()
                } else {
                    let v = (tm.mon - 1) / 3 + 1;
                    num = Some(v);
                    v.to_string()
                }
            }
            "CC" => {
                let y = tm.year;
                let v = if interval {
                    y / 100
                } else if y > 0 {
                    (y + 99) / 100
                } else {
                    -((99 - (y - 1)) / 100)
                };
                num = Some(v);
                zpad(v, sw(v, 2), fm)
            }
            "J" => {
                let v = date2j(tm.year, tm.mon, tm.mday);
                num = Some(v);
                v.to_string()
            }
            "RM" => {
                // ROMAN is January first; an interval's negative months
                // count back from December, whole years show XII (or I
                // when negative), as PostgreSQL.
                let idx = match tm.mon {
                    0 if !interval || tm.year == 0 => None,
                    0 if tm.year > 0 => Some(11),
                    0 => Some(0),
                    m if m < 0 => Some((12 + m) as usize),
                    m => Some((m - 1).clamp(0, 11) as usize),
                };
                match idx {
                    None => String::new(),
                    Some(i) => {
                        let r = ROMAN[i];
                        let r = if key == "rm" {
                            r.to_lowercase()
                        } else {
                            r.to_string()
                        };
                        if fm {
                            r
                        } else {
                            format!("{r:<4}")
                        }
                    }
                }
            }
            "FX" => String::new(),
            other => return Err(unsupported_pattern(other)),
        };
        out.push_str(&s);
        if let (Some(upper), Some(n)) = (th, num) {
            out.push_str(ordinal(n, upper));
        }
    }
    Ok(out)
}

/// The zone abbreviation `TZ` prints: the tz database's name for the
/// zone at that instant (`EST`, `EDT`, `JST`), else UTC for a zero offset
/// and a whole-hour offset as PostgreSQL names it (`+05`); other offsets
/// print nothing, as in PostgreSQL.
fn zone_abbrev(tz: &TimeZone, utc: i64, off: i32) -> String {
    if let Some(a) = tz.abbrev_at_utc(utc) {
        return a.to_string();
    }
    if off == 0 {
        "UTC".into()
    } else if off % 3600 == 0 && tz.dst.is_none() {
        TimeZone::format_offset(off)
    } else {
        String::new()
    }
}

fn interval_to_char(fmt: &str, iv: &Interval) -> Result<String, DbError> {
    let tm = Tm::from_interval(iv);
    dt_to_char(fmt, &tm, Zone::None, true)
}

// ---------------------------------------------------------------------
// to_timestamp(text, text) / to_date

#[derive(Default)]
struct Parsed {
    year: Option<i64>,
    /// Digits given for a partial year (YY: 2), to place it near 2020.
    year_digits: usize,
    bc: bool,
    mon: Option<i64>,
    mday: Option<i64>,
    doy: Option<i64>,
    julian: Option<i64>,
    hour: Option<i64>,
    h12: bool,
    pm: Option<bool>,
    min: i64,
    sec: i64,
    sssss: Option<i64>,
    fsec: i64,
    tzh: Option<i64>,
    tzm: i64,
    iso_year: Option<i64>,
    iso_week: Option<i64>,
    iso_dow: Option<i64>,
    iso_doy: Option<i64>,
}

fn invalid_value(v: &str, key: &str, detail: &str) -> DbError {
    DbError::new(
        SqlState::InvalidDatetimeFormat,
        format!("invalid value \"{v}\" for \"{key}\""),
    )
    .with_detail(detail.to_string())
}

/// Field width for exact reads, and whether the field is numeric.
fn numeric_width(upper: &str) -> Option<usize> {
    Some(match upper {
        "YYYY" => 4,
        "YYY" | "DDD" | "MS" => 3,
        "YY" | "MM" | "DD" | "HH" | "HH12" | "HH24" | "MI" | "SS" => 2,
        "Y" => 1,
        "US" => 6,
        "FF1" | "FF2" | "FF3" | "FF4" | "FF5" | "FF6" => (upper.as_bytes()[2] - b'0') as usize,
        "SSSS" | "SSSSS" => 5,
        "J" => 7,
        "TZH" | "TZM" => 2,
        "IYYY" => 4,
        "IDDD" => 3,
        "IW" => 2,
        "ID" => 1,
        _ => return None,
    })
}

fn parse_input(input: &str, fmt: &str) -> Result<Parsed, DbError> {
    let nodes = parse_format(fmt);
    let s: Vec<char> = input.chars().collect();
    let mut i = 0usize;
    let mut p = Parsed::default();
    for (n, node) in nodes.iter().enumerate() {
        let (key, _fm) = match node {
            Node::Lit(c) if c.is_whitespace() => {
                while i < s.len() && s[i].is_whitespace() {
                    i += 1;
                }
                continue;
            }
            Node::Lit(_) | Node::Quoted(_) => {
                if i < s.len() {
                    i += 1;
                }
                continue;
            }
            Node::Field { key, fm, .. } => (*key, *fm),
        };
        while i < s.len() && s[i].is_whitespace() {
            i += 1;
        }
        let upper = key.to_ascii_uppercase();
        let rest: String = s[i.min(s.len())..].iter().collect();
        if let Some(width) = numeric_width(&upper) {
            let exact = matches!(
                nodes.get(n + 1),
                Some(Node::Field { key, .. }) if numeric_width(&key.to_ascii_uppercase()).is_some()
            );
            let mut j = i;
            let mut neg = false;
            if upper == "TZH" && j < s.len() && (s[j] == '+' || s[j] == '-') {
                neg = s[j] == '-';
                j += 1;
            }
            let start = j;
            while j < s.len() && s[j].is_ascii_digit() && (!exact || j - start < width) {
                j += 1;
            }
            if j == start {
                let shown: String = rest.chars().take(width.max(1)).collect();
                return Err(invalid_value(&shown, key, "Value must be an integer."));
            }
            let digits: String = s[start..j].iter().collect();
            let out_of_range = || {
                DbError::new(
                    SqlState::DatetimeFieldOverflow,
                    format!("value for \"{key}\" in source string is out of range"),
                )
                .with_detail("Value must be in the range -2147483648 to 2147483647.")
            };
            let v: i64 = digits
                .parse()
                .ok()
                .filter(|v| *v <= i32::MAX as i64)
                .ok_or_else(out_of_range)?;
            let v = if neg { -v } else { v };
            let nd = j - start;
            i = j;
            let scale = |v: i64, to: usize| {
                if nd >= to {
                    v
                } else {
                    v.saturating_mul(10i64.pow((to - nd) as u32))
                }
            };
            match upper.as_str() {
                "YYYY" => {
                    p.year = Some(v);
                    p.year_digits = 4;
                }
                "YYY" | "YY" | "Y" => {
                    p.year = Some(v);
                    p.year_digits = nd.min(upper.len());
                }
                "MM" => p.mon = Some(v),
                "IYYY" => p.iso_year = Some(v),
                "IW" => p.iso_week = Some(v),
                "ID" => p.iso_dow = Some(v),
                "IDDD" => p.iso_doy = Some(v),
                "DD" => p.mday = Some(v),
                "DDD" => p.doy = Some(v),
                "J" => p.julian = Some(v),
                "HH" | "HH12" => {
                    p.hour = Some(v);
                    p.h12 = true;
                }
                "HH24" => p.hour = Some(v),
                "MI" => p.min = v,
                "SS" => p.sec = v,
                "SSSS" | "SSSSS" => p.sssss = Some(v),
                "MS" => p.fsec = scale(v, 3).saturating_mul(1000),
                "US" => p.fsec = scale(v, 6),
                "TZH" => p.tzh = Some(v),
                "TZM" => p.tzm = v,
                _ => p.fsec = scale(v, width).saturating_mul(10i64.pow(6 - width as u32)),
            }
            continue;
        }
        let lower_rest = rest.to_lowercase();
        match upper.as_str() {
            "AM" | "PM" | "A.M." | "P.M." => {
                let dotted = upper.len() > 2;
                let opts: [(&str, bool); 2] = if dotted {
                    [("a.m.", false), ("p.m.", true)]
                } else {
                    [("am", false), ("pm", true)]
                };
                let hit = opts.iter().find(|(o, _)| lower_rest.starts_with(o));
                match hit {
                    Some((o, pm)) => {
                        p.pm = Some(*pm);
                        i += o.len();
                    }
                    None => return Err(no_match(&rest, key)),
                }
            }
            "AD" | "BC" | "A.D." | "B.C." => {
                let dotted = upper.len() > 2;
                let opts: [(&str, bool); 2] = if dotted {
                    [("a.d.", false), ("b.c.", true)]
                } else {
                    [("ad", false), ("bc", true)]
                };
                match opts.iter().find(|(o, _)| lower_rest.starts_with(o)) {
                    Some((o, bc)) => {
                        p.bc = *bc;
                        i += o.len();
                    }
                    None => return Err(no_match(&rest, key)),
                }
            }
            "MONTH" | "MON" => {
                let hit = MONTHS_FULL.iter().enumerate().find_map(|(m, name)| {
                    let name = name.to_lowercase();
                    let word = if upper == "MON" {
                        &name[..3]
                    } else {
                        &name[..]
                    };
                    lower_rest.starts_with(word).then_some((m, word.len()))
                });
                match hit {
                    Some((m, len)) => {
                        p.mon = Some(m as i64 + 1);
                        i += len;
                    }
                    None => return Err(no_match(&rest, key)),
                }
            }
            "DAY" | "DY" => {
                let hit = DAYS_FULL.iter().find_map(|name| {
                    let name = name.to_lowercase();
                    let word = if upper == "DY" { &name[..3] } else { &name[..] };
                    lower_rest.starts_with(word).then_some(word.len())
                });
                match hit {
                    Some(len) => i += len,
                    None => return Err(no_match(&rest, key)),
                }
            }
            "Q" | "FX" => {
                if upper == "Q" {
                    while i < s.len() && s[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            _ => return Err(unsupported_pattern(key)),
        }
    }
    Ok(p)
}

fn no_match(rest: &str, key: &str) -> DbError {
    invalid_value(
        rest,
        key,
        "The given value did not match any of the allowed values for this field.",
    )
}

/// The local timestamp (and an explicit offset, seconds east) of the
/// parsed fields.
fn assemble(p: &Parsed, input: &str) -> Result<(i64, Option<i32>), DbError> {
    let range = || {
        DbError::new(
            SqlState::DatetimeFieldOverflow,
            format!("date/time field value out of range: \"{input}\""),
        )
    };
    // Beyond any valid date: refused before the calendar arithmetic.
    let wild = |v: Option<i64>, lim: i64| v.is_some_and(|v| !(-lim..=lim).contains(&v));
    if wild(p.year, 10_000_000)
        || wild(p.doy, 100_000)
        || wild(p.julian, 1_000_000_000)
        || wild(p.tzh, 10_000)
        || !(0..USECS_PER_SEC).contains(&p.fsec)
        || !(0..=59).contains(&p.tzm)
    {
        return Err(range());
    }
    // A partial year moves toward 2020 (adjust_partial_year_to_2020).
    let mut year = match p.year {
        Some(y) if p.year_digits < 4 && !p.bc => match y {
            0..=69 => y + 2000,
            70..=99 => y + 1900,
            100..=519 => y + 2000,
            520..=999 => y + 1000,
            _ => y,
        },
        Some(y) => y,
        None => 0,
    };
    if p.bc && p.year.is_some() {
        year = -(year - 1);
    }
    let (mut y, mut m, mut d) = (year, p.mon.unwrap_or(1), p.mday.unwrap_or(1));
    if let Some(iy) = p
        .iso_year
        .filter(|y| (-10_000_000..=10_000_000).contains(y))
    {
        // ISO year with week and weekday, or day of the ISO year.
        let start = iso_year_start(iy);
        let day = match p.iso_doy {
            Some(d) => d.clamp(-1_000_000, 1_000_000) - 1,
            None => {
                (p.iso_week.unwrap_or(1).clamp(-1_000_000, 1_000_000) - 1) * 7
                    + p.iso_dow.unwrap_or(1).clamp(-1_000_000, 1_000_000)
                    - 1
            }
        };
        let (jy, jm, jd) = j2date(start + day);
        (y, m, d) = (jy, jm as i64, jd as i64);
    } else if let Some(j) = p.julian {
        let (jy, jm, jd) = j2date(j);
        (y, m, d) = (jy, jm as i64, jd as i64);
    } else if let Some(doy) = p.doy {
        if p.mon.is_none() && p.mday.is_none() {
            let (jy, jm, jd) = j2date(date2j(y, 1, 1) + doy - 1);
            (y, m, d) = (jy, jm as i64, jd as i64);
        }
    }
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m as u32) as i64 {
        return Err(range());
    }
    let mut hour = p.hour.unwrap_or(0);
    if p.h12 || p.pm.is_some() {
        if p.h12 && !(1..=12).contains(&hour) && p.hour.is_some() {
            return Err(DbError::new(
                SqlState::InvalidDatetimeFormat,
                format!("hour \"{hour}\" is invalid for the 12-hour clock"),
            )
            .with_hint("Use the 24-hour clock, or give an hour between 1 and 12."));
        }
        match p.pm {
            Some(true) if hour < 12 => hour += 12,
            Some(false) if hour == 12 => hour = 0,
            _ => {}
        }
    }
    let (mut min, mut sec) = (p.min, p.sec);
    if let Some(ss) = p.sssss {
        hour = ss / 3600;
        min = ss / 60 % 60;
        sec = ss % 60;
    }
    if !(0..=24).contains(&hour) || !(0..=59).contains(&min) || !(0..=60).contains(&sec) {
        return Err(range());
    }
    let date = date_from_ymd(y, m as u32, d as u32).ok_or_else(range)?;
    let local =
        date as i64 * USECS_PER_DAY + ((hour * 60 + min) * 60 + sec) * USECS_PER_SEC + p.fsec;
    let tz = p.tzh.map(|h| {
        let m = if h < 0 { -p.tzm } else { p.tzm };
        (h * 3600 + m * 60) as i32
    });
    Ok((local, tz))
}

fn to_timestamp(a: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let (Some(input), Some(fmt)) = (a[0].as_str(), a[1].as_str()) else {
        return Ok(Value::Null);
    };
    let p = parse_input(input, fmt)?;
    let (local, tz) = assemble(&p, input)?;
    let off = tz.unwrap_or_else(|| ctx.time_zone.offset_for_local(local));
    Ok(Value::TimestampTz(local - off as i64 * USECS_PER_SEC))
}

fn to_date(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(input), Some(fmt)) = (a[0].as_str(), a[1].as_str()) else {
        return Ok(Value::Null);
    };
    let p = parse_input(input, fmt)?;
    let (local, _) = assemble(&p, input)?;
    Ok(Value::Date(local.div_euclid(USECS_PER_DAY) as i32))
}

// ---------------------------------------------------------------------
// Numbers

#[derive(Debug, Clone, Copy, PartialEq)]
enum NumTok {
    Nine,
    Zero,
    Point,
    Comma,
    S,
    Mi,
    Pl,
    Sg,
    Pr,
    /// Roman numerals (`rn`: lower case).
    Rn(bool),
    /// Scientific notation.
    Eeee,
    /// Ordinal suffix of the integer (`th`: lower case).
    Th(bool),
    /// The locale's currency symbol (the C locale's, a space).
    L,
    Lit(char),
}

fn parse_num_format(fmt: &str) -> Result<(Vec<NumTok>, bool), DbError> {
    let b: Vec<char> = fmt.chars().collect();
    let mut out = Vec::new();
    let mut fm = false;
    let mut i = 0;
    while i < b.len() {
        let two: String = b[i..(i + 2).min(b.len())]
            .iter()
            .collect::<String>()
            .to_ascii_uppercase();
        let tok = match two.as_str() {
            "FM" => {
                fm = true;
                i += 2;
                continue;
            }
            "MI" => Some(NumTok::Mi),
            "PL" => Some(NumTok::Pl),
            "SG" => Some(NumTok::Sg),
            "PR" => Some(NumTok::Pr),
            "RN" => Some(NumTok::Rn(b[i] == 'r')),
            "EE" if b[i..]
                .iter()
                .take(4)
                .collect::<String>()
                .eq_ignore_ascii_case("EEEE") =>
            {
                out.push(NumTok::Eeee);
                i += 4;
                continue;
            }
            "TH" => Some(NumTok::Th(b[i] == 't')),
            "EE" => return Err(unsupported_pattern(&two)),
            _ => None,
        };
        if let Some(t) = tok {
            out.push(t);
            i += 2;
            continue;
        }
        if b[i] == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' && i + 1 < b.len() {
                    i += 1;
                }
                out.push(NumTok::Lit(b[i]));
                i += 1;
            }
            i += 1;
            continue;
        }
        // Outside quotes a backslash only escapes a double quote.
        if b[i] == '\\' && b.get(i + 1) == Some(&'"') {
            out.push(NumTok::Lit('"'));
            i += 2;
            continue;
        }
        out.push(match b[i] {
            '9' => NumTok::Nine,
            '0' => NumTok::Zero,
            '.' | 'D' | 'd' => NumTok::Point,
            ',' | 'G' | 'g' => NumTok::Comma,
            'S' | 's' => NumTok::S,
            'L' | 'l' => NumTok::L,
            'V' | 'v' | 'B' | 'b' => return Err(unsupported_pattern(&b[i].to_string())),
            c => NumTok::Lit(c),
        });
        i += 1;
    }
    Ok((out, fm))
}

/// The value as (negative, integer digits, fraction digits) rounded to
/// `post` fraction digits.
/// Also the fraction digits actually shown: a float keeps DBL_DIG
/// (FLT_DIG) significant digits in all, as PostgreSQL's float8_to_char.
fn num_digits(v: &Value, post: usize) -> Result<(bool, String, String, usize), DbError> {
    let mut eff_post = post;
    let mut float_neg = None;
    let s = match v {
        Value::Int2(_) | Value::Int4(_) | Value::Int8(_) => v.as_i64().unwrap_or(0).to_string(),
        Value::Float4(_) | Value::Float8(_) => {
            let (f, dig) = match v {
                Value::Float4(f) => (*f as f64, 6usize),
                _ => (v.as_f64().unwrap_or(0.0), 15usize),
            };
            if !f.is_finite() {
                return Ok(special_digits(f.is_nan(), f < 0.0, post, Some(dig)));
            }
            let pre_len = format!("{:.0}", f.abs()).len();
            eff_post = if pre_len >= dig {
                0
            } else {
                post.min(dig - pre_len)
            };
            // printf's sign: a negative value rounding to zero keeps it.
            float_neg = Some(f < 0.0);
            format!("{f:.eff_post$}")
        }
        Value::Numeric(n) => {
            if n.is_nan() || n.to_f64().is_infinite() {
                return Ok(special_digits(n.is_nan(), n.to_f64() < 0.0, post, None));
            }
            n.round(post as i64)?.to_string()
        }
        _ => return Err(DbError::unsupported("to_char of this type")),
    };
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.as_str()),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let int = int.trim_start_matches('0').to_string();
    let mut frac = frac.to_string();
    while frac.len() < eff_post {
        frac.push('0');
    }
    let zero = int.is_empty() && frac.chars().all(|c| c == '0');
    Ok((float_neg.unwrap_or(neg && !zero), int, frac, eff_post))
}

/// NaN and ±Infinity as to_char lays them out: their names stand in the
/// integer digit positions (numeric_out's text, PostgreSQL's numstr), with
/// no fraction; too long for the positions, they overflow to `#`s (a
/// float's fraction positions cut to its significant digits left over,
/// `dig`, as for its other values).
fn special_digits(
    nan: bool,
    neg: bool,
    post: usize,
    dig: Option<usize>,
) -> (bool, String, String, usize) {
    let name = if nan { "NaN" } else { "Infinity" };
    let post = match dig {
        Some(d) if name.len() >= d => 0,
        Some(d) => post.min(d - name.len()),
        None => post,
    };
    (neg && !nan, name.to_string(), String::new(), post)
}

/// Whether `v` is NaN or infinite (see [`special_digits`]).
fn is_special(v: &Value) -> bool {
    match v {
        Value::Float4(f) => !f.is_finite(),
        Value::Float8(f) => !f.is_finite(),
        Value::Numeric(n) => n.dec().is_none(),
        _ => false,
    }
}

/// Roman numerals of 1..=3999, else None.
fn roman(mut n: i64) -> Option<String> {
    if !(1..=3999).contains(&n) {
        return None;
    }
    const TABLE: [(i64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (v, s) in TABLE {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    Some(out)
}

/// `RN` (right-aligned in 15 unless FM; `#` outside 1..3999) and `EEEE`
/// (sign, mantissa with the format's fraction digits, two-digit
/// exponent): they replace the digit layout.
fn special_num(toks: &[NumTok], fm: bool, v: &Value) -> Result<Option<String>, DbError> {
    if let Some(lower) = toks.iter().find_map(|t| match t {
        NumTok::Rn(l) => Some(*l),
        _ => None,
    }) {
        let (_, int, _, _) = num_digits(v, 0)?;
        let n = if int.len() > 6 {
            0
        } else {
            int.parse().unwrap_or(0)
        };
        let neg = matches!(num_digits(v, 0)?, (true, ..));
        let r = roman(if neg { 0 } else { n }).unwrap_or_else(|| "#".repeat(15));
        let r = if lower { r.to_lowercase() } else { r };
        let r = if fm { r } else { format!("{r:>15}") };
        let mut out = String::new();
        for t in toks {
            match t {
                NumTok::Rn(_) => out.push_str(&r),
                NumTok::Lit(c) => out.push(*c),
                _ => {}
            }
        }
        return Ok(Some(out));
    }
    if !toks.contains(&NumTok::Eeee) {
        return Ok(None);
    }
    let plain = toks.iter().all(|t| {
        matches!(
            t,
            NumTok::Nine | NumTok::Zero | NumTok::Point | NumTok::Eeee
        )
    });
    if fm || !plain {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "\"EEEE\" is incompatible with other formats",
        )
        .with_detail("\"EEEE\" may only be used together with digit and decimal point patterns."));
    }
    let point = toks.iter().position(|t| *t == NumTok::Point);
    let post = match point {
        Some(p) => toks[p + 1..]
            .iter()
            .filter(|t| matches!(t, NumTok::Nine | NumTok::Zero))
            .count(),
        None => 0,
    };
    let f = match v {
        Value::Numeric(n) => n.to_f64(),
        v => v.as_f64().unwrap_or(0.0),
    };
    if is_special(v) || !f.is_finite() && !matches!(v, Value::Numeric(_)) {
        // NUM_processor: '#' in every position, the exponent's four too.
        let pre = toks[..point.unwrap_or(toks.len())]
            .iter()
            .filter(|t| matches!(t, NumTok::Nine | NumTok::Zero))
            .count();
        return Ok(Some(format!(
            " {}.{}",
            "#".repeat(pre),
            "#".repeat(post + 4)
        )));
    }
    let (mant, x) = match v {
        // Exactly, in decimal (a numeric's exponent can pass any float's).
        Value::Numeric(n) => numeric_sci(&n.to_string(), post),
        _ => {
            let e = format!("{:.post$e}", f.abs());
            let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
            (mant.to_string(), exp.parse().unwrap_or(0))
        }
    };
    let sign = if f < 0.0 {
        "-"
    } else if fm {
        ""
    } else {
        " "
    };
    Ok(Some(format!(
        "{sign}{mant}e{}{:02}",
        if x < 0 { '-' } else { '+' },
        x.abs()
    )))
}

/// A finite numeric's text as `d.ddd` (`post` fraction digits, rounded
/// half away from zero) and its decimal exponent, as numeric_out_sci.
fn numeric_sci(text: &str, post: usize) -> (String, i64) {
    let text = text.trim_start_matches('-');
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
    let Some(first) = digits.iter().position(|&d| d != 0) else {
        let zeros = "0".repeat(post);
        return (
            if post > 0 {
                format!("0.{zeros}")
            } else {
                "0".into()
            },
            0,
        );
    };
    let exp = int.len() as i64 - 1 - first as i64;
    let sig = &digits[first..];
    let mut kept: Vec<u8> = (0..=post)
        .map(|i| sig.get(i).copied().unwrap_or(0))
        .collect();
    if sig.get(post + 1).is_some_and(|&d| d >= 5) {
        // Carry up; 9.999 rounds to 10.00 with the same exponent, as
        // PostgreSQL prints it (`10.000e+00`).
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, 1);
                break;
            }
            i -= 1;
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let int_len = kept.len() - post;
    let mut mant: String = kept[..int_len]
        .iter()
        .map(|&d| char::from(b'0' + d))
        .collect();
    if post > 0 {
        mant.push('.');
        mant.extend(kept[int_len..].iter().map(|&d| char::from(b'0' + d)));
    }
    (mant, exp)
}

fn num_to_char(fmt: &str, v: &Value) -> Result<String, DbError> {
    let (toks, fm) = parse_num_format(fmt)?;
    if let Some(s) = special_num(&toks, fm, v)? {
        return Ok(s);
    }
    let point = toks.iter().position(|t| *t == NumTok::Point);
    let is_digit = |t: &NumTok| matches!(t, NumTok::Nine | NumTok::Zero);
    let pre_toks: Vec<NumTok> = toks[..point.unwrap_or(toks.len())]
        .iter()
        .copied()
        .filter(is_digit)
        .collect();
    let post_toks: Vec<NumTok> = match point {
        Some(p) => toks[p + 1..].iter().copied().filter(is_digit).collect(),
        None => Vec::new(),
    };
    let (pre, post) = (pre_toks.len(), post_toks.len());
    let (neg, mut int, mut frac, eff_post) = num_digits(v, post)?;
    // FM drops trailing fraction zeros in 9 positions.
    let trimmed = |frac: &str| {
        let f: Vec<char> = frac.chars().collect();
        let mut len = eff_post;
        while len > 0 && post_toks[len - 1] == NumTok::Nine && f[len - 1] == '0' {
            len -= 1;
        }
        len
    };
    // A zero integer part shows as 0 when no fraction digit is printed:
    // without fraction positions, or under FM when it drops them all
    // (`FM9.99` of 0 is `0.`, `FM9.09` is `.0`).
    if int.is_empty() && pre > 0 && (post == 0 || (fm && trimmed(&frac) == 0)) {
        int = "0".into();
    }
    // No integer positions at all is an overflow, as in PostgreSQL.
    let overflow = int.len() > pre || pre == 0;
    if overflow {
        int = "#".repeat(pre);
        frac = "#".repeat(eff_post);
    }
    // First printed integer position.
    let first_sig = pre - int.len();
    let zero_start = pre_toks
        .iter()
        .position(|t| *t == NumTok::Zero)
        .unwrap_or(pre);
    let start = first_sig.min(zero_start);
    let int_digits: Vec<char> = std::iter::repeat_n('0', pre - int.len())
        .chain(int.chars())
        .collect();
    // NaN and Infinity print no fraction, nor its point.
    let special = is_special(v) && !overflow;
    let frac_len = if special {
        0
    } else if fm && !overflow {
        trimmed(&frac)
    } else {
        eff_post
    };
    let frac: Vec<char> = frac.chars().collect();
    // The sign: floating (before the first digit) unless anchored by a
    // trailing S, MI or SG.
    let first_digit_tok = toks.iter().position(is_digit).unwrap_or(toks.len());
    let has = |t: NumTok| toks.contains(&t);
    let s_lead = toks
        .iter()
        .position(|t| *t == NumTok::S)
        .is_some_and(|p| p < first_digit_tok);
    let anchored = has(NumTok::Mi) || has(NumTok::Sg) || (has(NumTok::S) && !s_lead);
    let floating: Option<String> = if anchored {
        None
    } else if has(NumTok::Pr) {
        Some(if neg {
            "<".into()
        } else if fm {
            String::new()
        } else {
            " ".into()
        })
    } else if s_lead {
        Some(if neg { "-" } else { "+" }.into())
    } else {
        Some(if neg {
            "-".into()
        } else if fm {
            String::new()
        } else {
            " ".into()
        })
    };
    let mut sign_done = floating.is_none();
    let mut out = String::new();
    let mut di = 0usize; // integer digit index
    let mut fi = 0usize; // fraction digit index
    let mut after_point = false;
    let write_sign = |out: &mut String, done: &mut bool| {
        if !*done {
            if let Some(s) = &floating {
                out.push_str(s);
            }
            *done = true;
        }
    };
    for t in &toks {
        match t {
            NumTok::Nine | NumTok::Zero if !after_point => {
                if di < start {
                    if !fm {
                        out.push(' ');
                    }
                } else {
                    write_sign(&mut out, &mut sign_done);
                    out.push(int_digits[di]);
                }
                di += 1;
            }
            NumTok::Nine | NumTok::Zero => {
                if fi < frac_len {
                    out.push(frac[fi]);
                }
                fi += 1;
            }
            NumTok::Point => {
                after_point = true;
                write_sign(&mut out, &mut sign_done);
                // A float with no significant digits left for the
                // fraction shows no point.
                let cut = matches!(v, Value::Float4(_) | Value::Float8(_)) && eff_post == 0;
                if ((post > 0 && !cut) || overflow) && !special {
                    out.push('.');
                }
            }
            NumTok::Comma => {
                if after_point || di > start {
                    out.push(',');
                } else if !fm {
                    out.push(' ');
                }
            }
            NumTok::S => {
                if !s_lead {
                    out.push(if neg { '-' } else { '+' });
                }
            }
            NumTok::Mi => {
                if neg {
                    out.push('-');
                } else if !fm {
                    out.push(' ');
                }
            }
            NumTok::Pl => {
                if !neg {
                    out.push('+');
                } else if !fm {
                    out.push(' ');
                }
            }
            NumTok::Sg => out.push(if neg { '-' } else { '+' }),
            NumTok::Pr => {
                if neg {
                    out.push('>');
                } else if !fm {
                    out.push(' ');
                }
            }
            NumTok::Lit(c) => out.push(*c),
            // Not after a decimal point, an overflow or a negative value.
            NumTok::Th(lower) => {
                if !(neg || overflow || point.is_some()) {
                    let suffix = ordinal_suffix(&int);
                    out.push_str(&if *lower {
                        suffix.to_lowercase()
                    } else {
                        suffix.into()
                    });
                }
            }
            NumTok::L => out.push_str(CURRENCY_SYMBOL),
            NumTok::Rn(_) | NumTok::Eeee => {}
        }
    }
    // A format without digit positions or point shows no sign.
    Ok(out)
}

/// What `L` prints: lc_monetary is C, whose currency symbol is empty, for
/// which PostgreSQL prints a space.
const CURRENCY_SYMBOL: &str = " ";

/// get_th: `ST`, `ND`, `RD` or `TH` for the integer digits (11–13: `TH`).
fn ordinal_suffix(digits: &str) -> &'static str {
    let d = digits.as_bytes();
    let last = d.last().copied().unwrap_or(b'0');
    let teen = d.len() >= 2 && d[d.len() - 2] == b'1';
    match last {
        b'1' if !teen => "ST",
        b'2' if !teen => "ND",
        b'3' if !teen => "RD",
        _ => "TH",
    }
}

/// to_number(text, format): the digits the format's positions read, the
/// decimal point where the format has one, a sign from `-`, `S`/`MI`/`SG`
/// /`PL` positions or `<...>` of PR; separators and literal characters
/// skip one input character. The result keeps the fraction digits read.
fn to_number(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(input), Some(fmt)) = (a[0].as_str(), a[1].as_str()) else {
        return Ok(Value::Null);
    };
    let (toks, _) = parse_num_format(fmt)?;
    if toks.iter().filter(|t| **t == NumTok::Point).count() > 1 {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "multiple decimal points",
        ));
    }
    if toks.contains(&NumTok::Eeee) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "\"EEEE\" not supported for input",
        ));
    }
    if toks.iter().any(|t| matches!(t, NumTok::Rn(_))) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "\"RN\" not supported for input",
        ));
    }
    let s: Vec<char> = input.chars().collect();
    let mut i = 0;
    let (mut neg, mut int, mut frac, mut after_point) =
        (false, String::new(), String::new(), false);
    while i < s.len() && s[i] == ' ' {
        i += 1;
    }
    if toks.contains(&NumTok::Pr) && s.get(i) == Some(&'<') {
        neg = true;
        i += 1;
    }
    // With an S pattern the sign may stand where a digit is read, after
    // the decimal point too (`to_number('.-01', 'S99.99')` is -0.01, as
    // PostgreSQL's NUM_numpart_from_char reads it); MI, SG and PL take it
    // only where they stand.
    let sign_anywhere = toks.contains(&NumTok::S);
    for t in &toks {
        match t {
            NumTok::Nine | NumTok::Zero => {
                let may_sign = sign_anywhere || (int.is_empty() && !after_point);
                if may_sign && matches!(s.get(i), Some('-' | '+')) {
                    neg = s[i] == '-';
                    i += 1;
                }
                match s.get(i) {
                    Some(c) if c.is_ascii_digit() => {
                        if after_point {
                            frac.push(*c);
                        } else {
                            int.push(*c);
                        }
                        i += 1;
                    }
                    Some(' ') => i += 1,
                    _ => {}
                }
            }
            NumTok::Point => {
                after_point = true;
                if s.get(i) == Some(&'.') {
                    i += 1;
                }
            }
            NumTok::Comma => {
                if s.get(i) == Some(&',') {
                    i += 1;
                }
            }
            NumTok::S | NumTok::Mi | NumTok::Sg | NumTok::Pl => match s.get(i) {
                Some('-') => {
                    neg = true;
                    i += 1;
                }
                Some('+') => i += 1,
                _ => {}
            },
            NumTok::Pr => {
                if s.get(i) == Some(&'>') {
                    i += 1;
                }
            }
            NumTok::Lit(_) => {
                if i < s.len() {
                    i += 1;
                }
            }
            // As many non-data characters as the currency symbol has
            // (NUM_eat_non_data_chars: `$1234` and ` 1234` alike).
            NumTok::L => {
                for _ in 0..CURRENCY_SYMBOL.chars().count() {
                    match s.get(i) {
                        Some(c) if !"0123456789.,+-".contains(*c) => i += 1,
                        _ => break,
                    }
                }
            }
            // A suffix occupies two characters.
            NumTok::Th(_) => {
                if !toks.contains(&NumTok::Point) {
                    i = (i + 2).min(s.len());
                }
            }
            NumTok::Rn(_) | NumTok::Eeee => {}
        }
    }
    if int.is_empty() && frac.is_empty() {
        // PostgreSQL's message shows the number it collected: its sign
        // (a blank for none) and no digits.
        return Err(DbError::new(
            SqlState::InvalidTextRepresentation,
            format!(
                "invalid input syntax for type numeric: \"{}\"",
                if neg { "-" } else { " " }
            ),
        ));
    }
    let text = format!(
        "{}{}{}{}",
        if neg { "-" } else { "" },
        if int.is_empty() { "0" } else { &int },
        if frac.is_empty() { "" } else { "." },
        frac
    );
    crate::numeric::Numeric::parse(&text).map(Value::Numeric)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_text;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn num(v: &str, f: &str) -> String {
        let n = parse_text(DataType::NUMERIC, v, &ctx()).unwrap();
        num_to_char(f, &n).unwrap()
    }

    fn ts(v: &str, f: &str) -> String {
        let t = parse_text(DataType::Timestamp(None), v, &ctx()).unwrap();
        to_char(&[t, Value::text(f)], &ctx())
            .unwrap()
            .to_text(&ctx())
    }

    #[test]
    fn number_patterns() {
        for (v, f, want) in [
            ("-12", "S999", " -12"),
            ("12", "S999", " +12"),
            ("-12", "999S", " 12-"),
            ("-12", "999PR", " <12>"),
            ("12", "999PR", "  12 "),
            ("-12", "FM999PR", "<12>"),
            ("5", "999", "   5"),
            ("-5", "0009", "-0005"),
            ("0.5", "999.99", "    .50"),
            ("0.5", "990.99", "   0.50"),
            ("1", "FM999.99", "1."),
            ("1.5", "FM990.900", "1.500"),
            ("1234567", "9,999,999", " 1,234,567"),
            ("123", "9,999", "   123"),
            ("12345.6", "999.9", " ###.#"),
            ("1234.5", "9G999D99", " 1,234.50"),
            ("0", "999", "   0"),
            ("-0.1", "FM9.99", "-.1"),
            ("-0.001", "9.99", "  .00"),
            ("485", "PL999", "+ 485"),
            ("-485", "999PL", "-485 "),
            ("3", "9.9S", "3.0+"),
            ("12", "999.", "  12"),
        ] {
            assert_eq!(num(v, f), want, "to_char({v}, '{f}')");
        }
        assert_eq!(num_to_char("9.99", &Value::Float8(1.005)).unwrap(), " 1.00");
        assert_eq!(num_to_char("9", &Value::Float8(2.5)).unwrap(), " 2");
        assert_eq!(num("2.5", "9"), " 3");
    }

    #[test]
    fn datetime_patterns() {
        let x = "2024-01-05 13:04:05.123456";
        assert_eq!(
            ts(x, "YYYY-MM-DD HH24:MI:SS.MS.US"),
            "2024-01-05 13:04:05.123.123456"
        );
        assert_eq!(
            ts(x, "HH HH12 AM am PM p.m. A.M."),
            "01 01 PM pm PM p.m. P.M."
        );
        assert_eq!(
            ts(x, "Day DAY day Dy DY dy"),
            "Friday    FRIDAY    friday    Fri FRI fri"
        );
        assert_eq!(ts(x, "FMMonth FMDay FMDD FMHH12"), "January Friday 5 1");
        assert_eq!(
            ts(x, "DDD IDDD D ID W WW IW CC Q J"),
            "005 005 6 5 1 01 01 21 1 2460315"
        );
        assert_eq!(
            ts(x, "Y,YYY YYY YY Y IYYY IYY IY I"),
            "2,024 024 24 4 2024 024 24 4"
        );
        assert_eq!(ts(x, "RM rm FMRM"), "I    i    I");
        assert_eq!(ts(x, "DDth DDTH FMDDth"), "05th 05TH 5th");
        assert_eq!(ts(x, "\"quoted YYYY\" \\\"x"), "quoted YYYY \"x");
        assert_eq!(
            ts("0044-03-15 10:00 BC", "YYYY BC CC Y,YYY"),
            "0044 BC -01 0,044"
        );
    }
}
