//! PostgreSQL's date/time input decoder: `date_in`, `timestamp_in`,
//! `timestamptz_in`, `time_in` and `interval_in` read text through this.
//!
//! It is a port of datetime.c's field-based decoder, kept close to the C
//! so that every odd input PostgreSQL accepts (and every one it refuses,
//! with the same message) behaves the same here. Input is decoded in two
//! passes:
//!
//! 1. [`parse_fields`] (ParseDateTime) cuts the text into typed fields:
//!    a *number* (`1999`, `08`, `1999.008`, `.5`), a *date* (digits with
//!    `-`/`/`/`.` separators, `08-jan-1999`, or text with embedded
//!    punctuation such as `America/New_York`), a *time* (`04:05:06.7`),
//!    a *string* (`jan`, `pst`, `bc`, `today`), a *special* (`-infinity`)
//!    and a signed numeric *zone* (`-08`, `+05:30`). Text is lower-cased;
//!    the original spelling is kept for zone names, which are file names.
//! 2. A decoder reads the fields in context, each claiming bits of a field
//!    mask (year, month, day, hour, ...) so that a field given twice is a
//!    syntax error: [`decode_date_time`] (DecodeDateTime, for date and
//!    timestamps), [`decode_time_only`] (DecodeTimeOnly, for time and
//!    timetz, whose zone it then resolves as PostgreSQL does), and
//!    [`decode_interval`] (DecodeInterval, reading fields right to left so
//!    a unit precedes its number) with [`decode_iso8601_interval`] for the
//!    `P1Y2M` forms when the first fails. A bare number is placed by what
//!    is already known (DecodeNumber): a year once it has three digits or
//!    DateStyle is YMD, else the day (DMY) or month (MDY); a run of six or
//!    more digits is a concatenated date or time (DecodeNumberField);
//!    `y2001m02d04`, `J2451187` and `T040506` are unit-prefixed fields.
//!    ValidateDate then fixes two-digit years (70..99 is 19xx, 00..69
//!    20xx), BC, day-of-year and checks the month and day ("out of range",
//!    with the DateStyle hint when the month or day cannot be one at all).
//!
//! Zones are PostgreSQL's: a numeric offset, an abbreviation of the
//! `Default` set (`crate::tz_abbrevs`; fixed, or *dynamic* and resolved at
//! the decoded local time), or a zone as pg_tzset reads it ([`pg_tzset`]:
//! a tz database file in any case, else a POSIX rule such as `EST5EDT` or
//! `FOO8BAR`), plus the `DST` modifier (`MET DST`). The decoders return the zone unresolved ([`Zone`]); the
//! callers in [`crate::datetime`] resolve it at the local time, as
//! DetermineTimeZoneOffset does. `now`, `today`, `tomorrow`, `yesterday`
//! use the transaction time and session zone given in [`Ctx`].
//!
//! Intervals accumulate as PostgreSQL's `pg_itm_in` (years, months, days,
//! microseconds; checked, overflow is "interval field value out of range")
//! with fractions carried down at once: fractional years become whole
//! (rounded) months, fractional months 30-day days, fractional weeks and
//! days days plus microseconds (AdjustFract*).
//!
//! Every field and intermediate value is bounded: the input is refused
//! past PostgreSQL's work-buffer size (MAXDATELEN) and field count
//! (MAXDATEFIELDS), numbers are parsed with overflow checks, so no input
//! panics. ASCII only, as PostgreSQL under a C locale: any other byte is a
//! syntax error.
//!
//! The plain ISO forms COPY and literals mostly carry skip all this: the
//! input functions read `YYYY-MM-DD[ HH:MM[:SS[.ffffff]]][+HH[:MM]]` and
//! `HH:MM[:SS[.ffffff]]` directly (about ten times faster, same values)
//! and hand anything else here.
//!
//! Checked against PostgreSQL 15 on every date/time/interval literal of
//! its regression tests under each DateStyle order, a few hundred edge
//! cases, and a few thousand random keyword soups: identical values and
//! errors.
//!
//! Left out: `timezone_abbreviations` other than `Default`; POSIX zone
//! rules by day of year (`XXX3YYY,J60,J300`, refused as not recognized);
//! the `hhmmss-zz` run-together time with a zone for
//! `time with time zone` (a type Nestor does not have); strtod's hex and
//! `inf`/`nan` forms in ISO 8601 interval numbers (a syntax error here).

use crate::datestyle::DateOrder;
use crate::datetime::{date2j, j2date, TimeZone, USECS_PER_DAY, USECS_PER_HOUR, USECS_PER_SEC};
use crate::tz_abbrevs::Kind;

/// MAXDATEFIELDS.
const FIELDS_MAX: usize = 25;
/// TOKMAXLEN: keywords match on their first 10 characters.
const TOKEN_LEN_MAX: usize = 10;
/// MAX_TZDISP_HOUR.
const TZ_HOURS_MAX: i64 = 15;
const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
/// Work-buffer sizes of the input functions (bytes of fields plus one
/// terminator each): MAXDATELEN + 1, MAXDATELEN + MAXDATEFIELDS, 256.
pub(crate) const DATE_BUF_LEN: usize = 129;
pub(crate) const TIMESTAMP_BUF_LEN: usize = 153;
pub(crate) const INTERVAL_BUF_LEN: usize = 256;

/// A decoder's failure (PostgreSQL's DTERR_* codes, and the zone-name
/// error it raises directly).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DtErr {
    BadFormat,
    FieldOverflow,
    /// A month or day that cannot be one: reported with a DateStyle hint.
    MdFieldOverflow,
    TzDispOverflow,
    /// `time zone "..." not recognized` (the name lower-cased).
    UnknownZone(String),
}

type Res<T> = Result<T, DtErr>;

// ---------------------------------------------------------------------
// Fields

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FType {
    Number,
    Date,
    Time,
    Str,
    Special,
    Tz,
}

/// One field: lower-cased text and its original spelling.
#[derive(Debug)]
struct Field<'a> {
    text: String,
    orig: &'a str,
    ty: FType,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// ParseDateTime: the input cut into fields, or BadFormat (also when the
/// fields would not fit PostgreSQL's work buffer of `buf_len` bytes).
fn parse_fields(input: &str, buf_len: usize) -> Res<Vec<Field<'_>>> {
    let b = input.as_bytes();
    let mut fields: Vec<Field> = Vec::new();
    let mut used = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if is_space(c) {
            i += 1;
            continue;
        }
        if fields.len() >= FIELDS_MAX {
            return Err(DtErr::BadFormat);
        }
        let start = i;
        let mut text = String::new();
        let ty;
        if c.is_ascii_digit() {
            i = take(b, i, &mut text, |c| c.is_ascii_digit());
            match b.get(i) {
                Some(b':') => {
                    ty = FType::Time;
                    i = take(b, i, &mut text, |c| {
                        c.is_ascii_digit() || c == b':' || c == b'.'
                    });
                }
                Some(&delim @ (b'-' | b'/' | b'.')) => {
                    text.push(delim as char);
                    i += 1;
                    if b.get(i).is_some_and(u8::is_ascii_digit) {
                        let mut t = if delim == b'.' {
                            FType::Number
                        } else {
                            FType::Date
                        };
                        i = take(b, i, &mut text, |c| c.is_ascii_digit());
                        if b.get(i) == Some(&delim) {
                            t = FType::Date;
                            i = take(b, i, &mut text, |c| c.is_ascii_digit() || c == delim);
                        }
                        ty = t;
                    } else {
                        ty = FType::Date;
                        i = take(b, i, &mut text, |c| c.is_ascii_alphanumeric() || c == delim);
                    }
                }
                _ => ty = FType::Number,
            }
        } else if c == b'.' {
            text.push('.');
            i = take(b, i + 1, &mut text, |c| c.is_ascii_digit());
            ty = FType::Number;
        } else if c.is_ascii_alphabetic() {
            i = take(b, i, &mut text, |c| c.is_ascii_alphabetic());
            let next = b.get(i).copied();
            let is_date = match next {
                Some(b'-' | b'/' | b'.') => true,
                Some(n) if n == b'+' || n.is_ascii_digit() => lookup_date_token(&text).is_none(),
                _ => false,
            };
            if is_date {
                text.push(b[i].to_ascii_lowercase() as char);
                i = take(b, i + 1, &mut text, |c| {
                    c.is_ascii_alphanumeric() || b"+-/_.:".contains(&c)
                });
                ty = FType::Date;
            } else {
                ty = FType::Str;
            }
        } else if c == b'+' || c == b'-' {
            text.push(c as char);
            i += 1;
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            match b.get(i) {
                Some(d) if d.is_ascii_digit() => {
                    ty = FType::Tz;
                    i = take(b, i, &mut text, |c| {
                        c.is_ascii_digit() || c == b':' || c == b'.' || c == b'-'
                    });
                }
                Some(a) if a.is_ascii_alphabetic() => {
                    ty = FType::Special;
                    i = take(b, i, &mut text, |c| c.is_ascii_alphabetic());
                }
                _ => return Err(DtErr::BadFormat),
            }
        } else if c.is_ascii_punctuation() {
            i += 1;
            continue;
        } else {
            return Err(DtErr::BadFormat);
        }
        // Each character needs a free byte after it in the work buffer,
        // and each field a terminator.
        used += text.len() + 1;
        if used > buf_len {
            return Err(DtErr::BadFormat);
        }
        fields.push(Field {
            text,
            orig: &input[start..i],
            ty,
        });
    }
    Ok(fields)
}

/// Appends `b[i..]` while `ok`, lower-cased; returns the end.
fn take(b: &[u8], mut i: usize, out: &mut String, ok: impl Fn(u8) -> bool) -> usize {
    while i < b.len() && ok(b[i]) {
        out.push(b[i].to_ascii_lowercase() as char);
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------
// Keywords

/// Unit keywords (and the `t` of ISO 8601 times) as prefixes and units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Millisec,
    Microsec,
    Week,
    Decade,
    Century,
    Millennium,
    Quarter,
    Julian,
    Dow,
    Doy,
    IsoDow,
    IsoYear,
    Tz,
    TzHour,
    TzMinute,
    /// The `t` designator: an ISO 8601 time follows.
    Time,
    /// What `ago` leaves as the unit of a number right before it (its
    /// table value 0, no unit): such a number is a syntax error.
    Ago,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reserved {
    Early,
    Late,
    Epoch,
    Now,
    Today,
    Tomorrow,
    Yesterday,
    Zulu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Reserv(Reserved),
    Month(i64),
    Ignore,
    /// true for PM.
    AmPm(bool),
    /// true for BC.
    AdBc(bool),
    Dow,
    Units(Unit),
    IsoTime,
    /// `dst`: adds an hour to the zone.
    DtzMod(i64),
    Ago,
}

/// datetktbl, sorted.
const DATE_TOKENS: &[(&str, Tok)] = &[
    ("-infinity", Tok::Reserv(Reserved::Early)),
    ("ad", Tok::AdBc(false)),
    ("allballs", Tok::Reserv(Reserved::Zulu)),
    ("am", Tok::AmPm(false)),
    ("apr", Tok::Month(4)),
    ("april", Tok::Month(4)),
    ("at", Tok::Ignore),
    ("aug", Tok::Month(8)),
    ("august", Tok::Month(8)),
    ("bc", Tok::AdBc(true)),
    ("d", Tok::Units(Unit::Day)),
    ("dec", Tok::Month(12)),
    ("december", Tok::Month(12)),
    ("dow", Tok::Units(Unit::Dow)),
    ("doy", Tok::Units(Unit::Doy)),
    ("dst", Tok::DtzMod(3600)),
    ("epoch", Tok::Reserv(Reserved::Epoch)),
    ("feb", Tok::Month(2)),
    ("february", Tok::Month(2)),
    ("fri", Tok::Dow),
    ("friday", Tok::Dow),
    ("h", Tok::Units(Unit::Hour)),
    ("infinity", Tok::Reserv(Reserved::Late)),
    ("isodow", Tok::Units(Unit::IsoDow)),
    ("isoyear", Tok::Units(Unit::IsoYear)),
    ("j", Tok::Units(Unit::Julian)),
    ("jan", Tok::Month(1)),
    ("january", Tok::Month(1)),
    ("jd", Tok::Units(Unit::Julian)),
    ("jul", Tok::Month(7)),
    ("julian", Tok::Units(Unit::Julian)),
    ("july", Tok::Month(7)),
    ("jun", Tok::Month(6)),
    ("june", Tok::Month(6)),
    ("m", Tok::Units(Unit::Month)),
    ("mar", Tok::Month(3)),
    ("march", Tok::Month(3)),
    ("may", Tok::Month(5)),
    ("mm", Tok::Units(Unit::Minute)),
    ("mon", Tok::Dow),
    ("monday", Tok::Dow),
    ("nov", Tok::Month(11)),
    ("november", Tok::Month(11)),
    ("now", Tok::Reserv(Reserved::Now)),
    ("oct", Tok::Month(10)),
    ("october", Tok::Month(10)),
    ("on", Tok::Ignore),
    ("pm", Tok::AmPm(true)),
    ("s", Tok::Units(Unit::Second)),
    ("sat", Tok::Dow),
    ("saturday", Tok::Dow),
    ("sep", Tok::Month(9)),
    ("sept", Tok::Month(9)),
    ("september", Tok::Month(9)),
    ("sun", Tok::Dow),
    ("sunday", Tok::Dow),
    ("t", Tok::IsoTime),
    ("thu", Tok::Dow),
    ("thur", Tok::Dow),
    ("thurs", Tok::Dow),
    ("thursday", Tok::Dow),
    ("today", Tok::Reserv(Reserved::Today)),
    ("tomorrow", Tok::Reserv(Reserved::Tomorrow)),
    ("tue", Tok::Dow),
    ("tues", Tok::Dow),
    ("tuesday", Tok::Dow),
    ("wed", Tok::Dow),
    ("wednesday", Tok::Dow),
    ("weds", Tok::Dow),
    ("y", Tok::Units(Unit::Year)),
    ("yesterday", Tok::Reserv(Reserved::Yesterday)),
];

/// deltatktbl, sorted.
const DELTA_TOKENS: &[(&str, Tok)] = &[
    ("@", Tok::Ignore),
    ("ago", Tok::Ago),
    ("c", Tok::Units(Unit::Century)),
    ("cent", Tok::Units(Unit::Century)),
    ("centuries", Tok::Units(Unit::Century)),
    ("century", Tok::Units(Unit::Century)),
    ("d", Tok::Units(Unit::Day)),
    ("day", Tok::Units(Unit::Day)),
    ("days", Tok::Units(Unit::Day)),
    ("dec", Tok::Units(Unit::Decade)),
    ("decade", Tok::Units(Unit::Decade)),
    ("decades", Tok::Units(Unit::Decade)),
    ("decs", Tok::Units(Unit::Decade)),
    ("h", Tok::Units(Unit::Hour)),
    ("hour", Tok::Units(Unit::Hour)),
    ("hours", Tok::Units(Unit::Hour)),
    ("hr", Tok::Units(Unit::Hour)),
    ("hrs", Tok::Units(Unit::Hour)),
    ("m", Tok::Units(Unit::Minute)),
    ("microsecon", Tok::Units(Unit::Microsec)),
    ("mil", Tok::Units(Unit::Millennium)),
    ("millennia", Tok::Units(Unit::Millennium)),
    ("millennium", Tok::Units(Unit::Millennium)),
    ("millisecon", Tok::Units(Unit::Millisec)),
    ("mils", Tok::Units(Unit::Millennium)),
    ("min", Tok::Units(Unit::Minute)),
    ("mins", Tok::Units(Unit::Minute)),
    ("minute", Tok::Units(Unit::Minute)),
    ("minutes", Tok::Units(Unit::Minute)),
    ("mon", Tok::Units(Unit::Month)),
    ("mons", Tok::Units(Unit::Month)),
    ("month", Tok::Units(Unit::Month)),
    ("months", Tok::Units(Unit::Month)),
    ("ms", Tok::Units(Unit::Millisec)),
    ("msec", Tok::Units(Unit::Millisec)),
    ("msecond", Tok::Units(Unit::Millisec)),
    ("mseconds", Tok::Units(Unit::Millisec)),
    ("msecs", Tok::Units(Unit::Millisec)),
    ("qtr", Tok::Units(Unit::Quarter)),
    ("quarter", Tok::Units(Unit::Quarter)),
    ("s", Tok::Units(Unit::Second)),
    ("sec", Tok::Units(Unit::Second)),
    ("second", Tok::Units(Unit::Second)),
    ("seconds", Tok::Units(Unit::Second)),
    ("secs", Tok::Units(Unit::Second)),
    ("timezone", Tok::Units(Unit::Tz)),
    ("timezone_h", Tok::Units(Unit::TzHour)),
    ("timezone_m", Tok::Units(Unit::TzMinute)),
    ("us", Tok::Units(Unit::Microsec)),
    ("usec", Tok::Units(Unit::Microsec)),
    ("usecond", Tok::Units(Unit::Microsec)),
    ("useconds", Tok::Units(Unit::Microsec)),
    ("usecs", Tok::Units(Unit::Microsec)),
    ("w", Tok::Units(Unit::Week)),
    ("week", Tok::Units(Unit::Week)),
    ("weeks", Tok::Units(Unit::Week)),
    ("y", Tok::Units(Unit::Year)),
    ("year", Tok::Units(Unit::Year)),
    ("years", Tok::Units(Unit::Year)),
    ("yr", Tok::Units(Unit::Year)),
    ("yrs", Tok::Units(Unit::Year)),
];

/// datebsearch: tokens compare on their first TOKMAXLEN bytes.
fn search(table: &[(&str, Tok)], key: &str) -> Option<Tok> {
    let key = &key.as_bytes()[..key.len().min(TOKEN_LEN_MAX)];
    table
        .binary_search_by(|(t, _)| t.as_bytes().cmp(key))
        .ok()
        .map(|i| table[i].1)
}

fn lookup_date_token(key: &str) -> Option<Tok> {
    search(DATE_TOKENS, key)
}

/// A zone written in the input, resolved by the caller at the local time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Zone {
    /// Seconds east of UTC.
    Offset(i32),
    /// A dynamic abbreviation (`MSK`): its zone's meaning then.
    Abbrev(&'static str, Kind),
    /// A tz database zone.
    Named(TimeZone),
}

impl Zone {
    /// Seconds east of UTC for local time `local` (microseconds since
    /// 2000-01-01) written in this zone.
    pub(crate) fn offset_for_local(&self, local: i64) -> i32 {
        match self {
            Zone::Offset(o) => *o,
            Zone::Abbrev(name, kind) => crate::tz_abbrevs::offset_for_local(name, *kind, local),
            Zone::Named(tz) => tz.offset_for_local(local),
        }
    }
}

/// The zone a field names (pg_tzset).
fn named_zone(f: &Field) -> Option<TimeZone> {
    pg_tzset(f.orig)
}

/// pg_tzset: a tz database file as written, else in any case, else a
/// POSIX rule in PostgreSQL's grammar ([`posix_zone`]).
pub(crate) fn pg_tzset(name: &str) -> Option<TimeZone> {
    let file = |n: &str| crate::tz_abbrevs::history_ref(n).and_then(|_| TimeZone::parse(n));
    file(name)
        .or_else(|| crate::tz_abbrevs::zone_name_any_case(name).and_then(|n| file(&n)))
        .or_else(|| posix_zone(&name.to_ascii_uppercase()))
}

/// tzparse's reading of a POSIX zone rule (`EST5EDT`, `GMT+8`,
/// `<+0530>-5:30`, `CET-1CEST,M3.5.0,M10.5.0/3`): any name (even empty
/// or one letter, up to a digit, `,`, `+` or `-`), a mandatory offset
/// (hours up to 167, west positive), an optional daylight name, offset and
/// rules (the US rules by default). Rules by day of year (`J60`, `59`)
/// are valid there but have no [`TimeZone`] form: None, as for anything
/// else tzparse refuses.
fn posix_zone(s: &str) -> Option<TimeZone> {
    let b = s.as_bytes();
    let mut i = 0;
    let std_name = posix_name(b, &mut i)?;
    if i >= b.len() {
        return None;
    }
    let std_west = posix_offset(b, &mut i)?;
    let canon_std = format!("<{std_name}>{}", hms_text(std_west));
    if i == b.len() {
        return crate::datetime::parse_posix_tz(&canon_std);
    }
    let dst_name = posix_name(b, &mut i)?;
    if dst_name.is_empty() {
        return None;
    }
    let dst_west = if i < b.len() && b[i] != b',' && b[i] != b';' {
        posix_offset(b, &mut i)?
    } else {
        std_west - 3600
    };
    let rules = if i == b.len() {
        ",M3.2.0,M11.1.0".to_string()
    } else {
        let start = i + 1;
        i += 1;
        posix_rule(b, &mut i)?;
        if b.get(i) != Some(&b',') {
            return None;
        }
        i += 1;
        posix_rule(b, &mut i)?;
        if i != b.len() {
            return None;
        }
        format!(",{}", &s[start..])
    };
    let canon_dst = format!("<{dst_name}>{}", hms_text(dst_west));
    crate::datetime::parse_posix_tz(&format!("{canon_std}{canon_dst}{rules}"))
}

/// getzname / getqzname: a name up to a digit, `,`, `+`, `-` (or quoted
/// in `<>`).
fn posix_name<'a>(b: &'a [u8], i: &mut usize) -> Option<&'a str> {
    if b.get(*i) == Some(&b'<') {
        let start = *i + 1;
        let len = b[start..].iter().position(|&c| c == b'>')?;
        *i = start + len + 1;
        return std::str::from_utf8(&b[start..start + len]).ok();
    }
    let start = *i;
    while *i < b.len() && !b[*i].is_ascii_digit() && !b",-+".contains(&b[*i]) {
        *i += 1;
    }
    let name = std::str::from_utf8(&b[start..*i]).ok()?;
    // Kept quoted in the canonical rule: no `>` inside.
    (!name.contains('>')).then_some(name)
}

/// getnum: digits, at most `max`.
fn posix_num(b: &[u8], i: &mut usize, max: i64) -> Option<i64> {
    if !b.get(*i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut n = 0;
    while let Some(c) = b.get(*i).filter(|c| c.is_ascii_digit()) {
        n = n * 10 + (c - b'0') as i64;
        if n > max {
            return None;
        }
        *i += 1;
    }
    Some(n)
}

/// Seconds as `[-]h:mm:ss`.
fn hms_text(secs: i64) -> String {
    let sign = if secs < 0 { "-" } else { "" };
    let a = secs.abs();
    format!("{sign}{}:{:02}:{:02}", a / 3600, a / 60 % 60, a % 60)
}

/// getoffset: `[+-]hh[:mm[:ss]]` in seconds (west positive).
fn posix_offset(b: &[u8], i: &mut usize) -> Option<i64> {
    let neg = match b.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    };
    let h = posix_num(b, i, 24 * 7 - 1)?;
    let (mut m, mut sec) = (0, 0);
    if b.get(*i) == Some(&b':') {
        *i += 1;
        m = posix_num(b, i, 59)?;
        if b.get(*i) == Some(&b':') {
            *i += 1;
            sec = posix_num(b, i, 60)?;
        }
    }
    let secs = (h * 60 + m) * 60 + sec;
    Some(if neg { -secs } else { secs })
}

/// getrule: `Mm.w.d[/time]` (the only kind a [`TimeZone`] keeps; `Jn`
/// and `n` are None).
fn posix_rule(b: &[u8], i: &mut usize) -> Option<()> {
    if b.get(*i) != Some(&b'M') {
        return None;
    }
    *i += 1;
    posix_num(b, i, 12).filter(|&m| m >= 1)?;
    for max in [5, 6] {
        if b.get(*i) != Some(&b'.') {
            return None;
        }
        *i += 1;
        let n = posix_num(b, i, max)?;
        if max == 5 && n < 1 {
            return None;
        }
    }
    if b.get(*i) == Some(&b'/') {
        *i += 1;
        posix_offset(b, i)?;
    }
    Some(())
}

// ---------------------------------------------------------------------
// Numbers as strtol and strtod read them

/// strtol: optional spaces and sign, digits. (value, bytes used); value
/// None on overflow of `min..=max`; 0 bytes used when there are no digits.
fn strtol(s: &[u8], min: i64, max: i64) -> (Option<i64>, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let start = i;
    let mut v: i128 = 0;
    let mut over = false;
    while i < s.len() && s[i].is_ascii_digit() {
        if !over {
            v = v * 10 + (s[i] - b'0') as i128;
            over = v > i64::MAX as i128 + 1;
        }
        i += 1;
    }
    if i == start {
        return (Some(0), 0);
    }
    let v = if neg { -v } else { v };
    let ok = !over && v >= min as i128 && v <= max as i128;
    (ok.then_some(v as i64), i)
}

fn strtoint(s: &[u8]) -> (Option<i64>, usize) {
    strtol(s, i32::MIN as i64, i32::MAX as i64)
}

/// atoi: strtol's 64-bit result (saturated) cut to 32 bits.
fn atoi(s: &[u8]) -> i64 {
    let (v, n) = strtol(s, i64::MIN, i64::MAX);
    if n == 0 {
        return 0;
    }
    let v = v.unwrap_or(if s.iter().find(|c| !is_space(**c)) == Some(&b'-') {
        i64::MIN
    } else {
        i64::MAX
    });
    v as i32 as i64
}

/// The length of the longest prefix of `s` strtod reads as a decimal
/// number (sign, digits, point, exponent); 0 when there is none.
fn strtod_len(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let mut digits = i - int_start;
    if s.get(i) == Some(&b'.') {
        let f = i + 1;
        let mut j = f;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        digits += j - f;
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return 0;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let e = j;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > e {
            i = j;
        }
    }
    i
}

fn strtod(s: &[u8]) -> Option<(f64, usize)> {
    let n = strtod_len(s);
    if n == 0 {
        return None;
    }
    let v: f64 = std::str::from_utf8(&s[..n]).ok()?.parse().ok()?;
    Some((v, n))
}

/// ParseFraction: `.ddd` to the end of the field.
fn parse_fraction(s: &[u8]) -> Res<f64> {
    if s.len() == 1 {
        return Ok(0.0);
    }
    match strtod(s) {
        Some((v, n)) if n == s.len() && v.is_finite() => Ok(v),
        _ => Err(DtErr::BadFormat),
    }
}

/// ParseFractionalSecond: microseconds, rounded half to even as rint.
fn parse_fractional_second(s: &[u8]) -> Res<i64> {
    Ok((parse_fraction(s)? * 1e6).round_ties_even() as i64)
}

// ---------------------------------------------------------------------
// Date and time fields

/// Field-mask bits (DTK_M of datetime.h's field types).
mod m {
    pub const RESERV: u32 = 1 << 0;
    pub const MONTH: u32 = 1 << 1;
    pub const YEAR: u32 = 1 << 2;
    pub const DAY: u32 = 1 << 3;
    pub const TZ: u32 = 1 << 5;
    pub const DTZ: u32 = 1 << 6;
    pub const AMPM: u32 = 1 << 9;
    pub const HOUR: u32 = 1 << 10;
    pub const MINUTE: u32 = 1 << 11;
    pub const SECOND: u32 = 1 << 12;
    pub const MILLISECOND: u32 = 1 << 13;
    pub const MICROSECOND: u32 = 1 << 14;
    pub const DOY: u32 = 1 << 15;
    pub const DOW: u32 = 1 << 16;
    pub const ADBC: u32 = 1 << 18;
    pub const WEEK: u32 = 1 << 24;
    pub const DECADE: u32 = 1 << 25;
    pub const CENTURY: u32 = 1 << 26;
    pub const MILLENNIUM: u32 = 1 << 27;
    pub const DTZMOD: u32 = 1 << 28;
    pub const ALL_SECS: u32 = SECOND | MILLISECOND | MICROSECOND;
    pub const DATE: u32 = YEAR | MONTH | DAY;
    pub const TIME: u32 = HOUR | MINUTE | ALL_SECS;
}

/// The broken-down time being decoded (`struct pg_tm` and fsec).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tm {
    pub year: i64,
    pub mon: i64,
    pub mday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    pub fsec: i64,
    yday: i64,
}

impl Tm {
    /// Microseconds since midnight (tm2time).
    /// (Wrapping: a labelled field such as `h2147483647` is not range
    /// checked before this, as in PostgreSQL.)
    pub(crate) fn time_of_day(&self) -> i64 {
        let minutes = self.hour.wrapping_mul(60).wrapping_add(self.min);
        let secs = minutes.wrapping_mul(60).wrapping_add(self.sec);
        secs.wrapping_mul(USECS_PER_SEC).wrapping_add(self.fsec)
    }
}

/// What the decoded text is: a date/time, or one of the special values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DType {
    Date,
    Epoch,
    Late,
    Early,
}

/// The session context decoding needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    pub order: DateOrder,
    pub tz: TimeZone,
    /// Transaction time, UTC microseconds since 2000-01-01.
    pub now: i64,
}

impl Ctx {
    fn local_now(&self) -> i64 {
        self.now + self.tz.offset_at_utc(self.now) as i64 * USECS_PER_SEC
    }

    /// GetCurrentDateTime's date: (year, month, day) in the session zone.
    fn today(&self) -> (i64, i64, i64) {
        let (y, m, d) = j2date(
            self.local_now().div_euclid(USECS_PER_DAY) + crate::datetime::POSTGRES_EPOCH_JDATE,
        );
        (y, m as i64, d as i64)
    }

    /// GetCurrentTimeUsec's fields in the session zone, and its offset.
    fn now_tm(&self, tm: &mut Tm) -> i32 {
        let local = self.local_now();
        let (y, m, d) =
            j2date(local.div_euclid(USECS_PER_DAY) + crate::datetime::POSTGRES_EPOCH_JDATE);
        let t = local.rem_euclid(USECS_PER_DAY);
        tm.year = y;
        tm.mon = m as i64;
        tm.mday = d as i64;
        set_time(tm, t);
        self.tz.offset_at_utc(self.now)
    }
}

/// dt2time: microseconds of a day into the time fields.
fn set_time(tm: &mut Tm, t: i64) {
    tm.hour = t / USECS_PER_HOUR;
    let t = t - tm.hour * USECS_PER_HOUR;
    tm.min = t / USECS_PER_MINUTE;
    let t = t - tm.min * USECS_PER_MINUTE;
    tm.sec = t / USECS_PER_SEC;
    tm.fsec = t - tm.sec * USECS_PER_SEC;
}

/// The decoded result of [`decode_date_time`] / [`decode_time_only`].
#[derive(Debug)]
pub(crate) struct Decoded {
    pub dtype: DType,
    pub tm: Tm,
    /// The zone written (None: the session zone).
    pub zone: Option<Zone>,
}

/// Decoder state shared by the date/time fields (DecodeDateTime's and
/// DecodeTimeOnly's locals).
struct St {
    tm: Tm,
    fmask: u32,
    is2digits: bool,
    order: DateOrder,
}

/// ISO 8601 field labels (`y2001m02d04`, `j2451187`, `t040506`): the
/// number after a unit prefix.
fn decode_prefixed(
    st: &mut St,
    ptype: Unit,
    f: &Field,
    zone: &mut Option<Zone>,
    isjulian: &mut bool,
) -> Res<u32> {
    let s = f.text.as_bytes();
    let (val, n) = strtoint(s);
    let val = val.ok_or(DtErr::FieldOverflow)?;
    let rest = &s[n..];
    if rest.first() == Some(&b'.') {
        if !matches!(ptype, Unit::Julian | Unit::Time | Unit::Second) {
            return Err(DtErr::BadFormat);
        }
    } else if !rest.is_empty() {
        return Err(DtErr::BadFormat);
    }
    let tm = &mut st.tm;
    Ok(match ptype {
        Unit::Year => {
            tm.year = val;
            m::YEAR
        }
        Unit::Month => {
            if st.fmask & m::MONTH != 0 && st.fmask & m::HOUR != 0 {
                tm.min = val;
                m::MINUTE
            } else {
                tm.mon = val;
                m::MONTH
            }
        }
        Unit::Day => {
            tm.mday = val;
            m::DAY
        }
        Unit::Hour => {
            tm.hour = val;
            m::HOUR
        }
        Unit::Minute => {
            tm.min = val;
            m::MINUTE
        }
        Unit::Second => {
            tm.sec = val;
            if rest.first() == Some(&b'.') {
                tm.fsec = parse_fractional_second(rest)?;
                m::ALL_SECS
            } else {
                m::SECOND
            }
        }
        Unit::Tz => {
            *zone = Some(Zone::Offset(decode_timezone(s)?));
            m::TZ
        }
        Unit::Julian => {
            if val < 0 {
                return Err(DtErr::FieldOverflow);
            }
            let (y, mo, d) = j2date(val);
            (tm.year, tm.mon, tm.mday) = (y, mo as i64, d as i64);
            *isjulian = true;
            let mut tmask = m::DATE;
            if rest.first() == Some(&b'.') {
                let time = parse_fraction(rest)? * USECS_PER_DAY as f64;
                set_time(tm, time as i64);
                tmask |= m::TIME;
            }
            tmask
        }
        Unit::Time => {
            let fmask = st.fmask | m::DATE;
            let tmask = decode_number_field(st, s, fmask)?.0;
            if tmask != m::TIME {
                return Err(DtErr::BadFormat);
            }
            tmask
        }
        _ => return Err(DtErr::BadFormat),
    })
}

/// DecodeNumberField: a run of digits as a concatenated date (`yymmdd`,
/// `yyyymmdd`) or time (`hhmm`, `hhmmss[.f]`). Returns the mask and
/// whether it was a date.
fn decode_number_field(st: &mut St, s: &[u8], fmask: u32) -> Res<(u32, bool)> {
    let mut s = s;
    if let Some(dot) = s.iter().position(|&c| c == b'.') {
        let frac = &s[dot..];
        st.tm.fsec = if frac.len() == 1 {
            0
        } else {
            let v = strtod(frac).map_or(0.0, |x| x.0);
            (v * 1e6).round_ties_even() as i64
        };
        s = &s[..dot];
    } else if fmask & m::DATE != m::DATE && s.len() >= 6 {
        let len = s.len();
        st.tm.mday = atoi(&s[len - 2..]);
        st.tm.mon = atoi(&s[len - 4..len - 2]);
        st.tm.year = atoi(&s[..len - 4]);
        if len - 4 == 2 {
            st.is2digits = true;
        }
        return Ok((m::DATE, true));
    }
    if fmask & m::TIME != m::TIME {
        let len = s.len();
        if len == 6 {
            st.tm.sec = atoi(&s[4..6]);
            st.tm.min = atoi(&s[2..4]);
            st.tm.hour = atoi(&s[..2]);
            return Ok((m::TIME, false));
        } else if len == 4 {
            st.tm.sec = 0;
            st.tm.min = atoi(&s[2..4]);
            st.tm.hour = atoi(&s[..2]);
            return Ok((m::TIME, false));
        }
    }
    Err(DtErr::BadFormat)
}

/// DecodeNumber: a lone number placed by what is already known.
fn decode_number(st: &mut St, s: &[u8], have_text_month: bool, fmask: u32) -> Res<u32> {
    let flen = s.len();
    let (val, n) = strtoint(s);
    let val = val.ok_or(DtErr::FieldOverflow)?;
    if n == 0 {
        return Err(DtErr::BadFormat);
    }
    let rest = &s[n..];
    if rest.first() == Some(&b'.') {
        if n > 2 {
            return Ok(decode_number_field(st, s, fmask | m::DATE)?.0);
        }
        st.tm.fsec = parse_fractional_second(rest)?;
    } else if !rest.is_empty() {
        return Err(DtErr::BadFormat);
    }
    if flen == 3 && fmask & m::DATE == m::YEAR && (1..=366).contains(&val) {
        st.tm.yday = val;
        return Ok(m::DOY | m::MONTH | m::DAY);
    }
    let tm = &mut st.tm;
    let tmask = match fmask & m::DATE {
        0 => {
            if flen >= 3 || st.order == DateOrder::Ymd {
                tm.year = val;
                m::YEAR
            } else if st.order == DateOrder::Dmy {
                tm.mday = val;
                m::DAY
            } else {
                tm.mon = val;
                m::MONTH
            }
        }
        m::YEAR => {
            tm.mon = val;
            m::MONTH
        }
        m::MONTH => {
            if have_text_month && (flen >= 3 || st.order == DateOrder::Ymd) {
                tm.year = val;
                m::YEAR
            } else {
                tm.mday = val;
                m::DAY
            }
        }
        x if x == m::YEAR | m::MONTH => {
            if have_text_month && flen >= 3 && st.is2digits {
                tm.mday = tm.year;
                tm.year = val;
                st.is2digits = false;
            } else {
                tm.mday = val;
            }
            m::DAY
        }
        m::DAY => {
            tm.mon = val;
            m::MONTH
        }
        x if x == m::MONTH | m::DAY => {
            tm.year = val;
            m::YEAR
        }
        m::DATE => return Ok(decode_number_field(st, s, fmask)?.0),
        _ => return Err(DtErr::BadFormat),
    };
    if tmask == m::YEAR {
        st.is2digits = flen <= 2;
    }
    Ok(tmask)
}

/// DecodeDate: a field with separators (`1999-01-08`, `jan-08-1999`).
fn decode_date(st: &mut St, s: &str, fmask: u32) -> Res<u32> {
    let b = s.as_bytes();
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut i = 0;
    while i < b.len() && parts.len() < FIELDS_MAX {
        while i < b.len() && !b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if i >= b.len() {
            return Err(DtErr::BadFormat);
        }
        let start = i;
        if b[i].is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        } else {
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
        }
        parts.push(&b[start..i]);
        if i < b.len() {
            i += 1;
        }
    }
    let mut fmask = fmask;
    let mut tmask = 0;
    let mut have_text_month = false;
    let mut done = vec![false; parts.len()];
    for (k, p) in parts.iter().enumerate() {
        if !p.first().is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let word = std::str::from_utf8(p).map_err(|_| DtErr::BadFormat)?;
        let dmask = match lookup_date_token(word) {
            Some(Tok::Ignore) => continue,
            Some(Tok::Month(v)) => {
                st.tm.mon = v;
                have_text_month = true;
                m::MONTH
            }
            _ => return Err(DtErr::BadFormat),
        };
        if fmask & dmask != 0 {
            return Err(DtErr::BadFormat);
        }
        fmask |= dmask;
        tmask |= dmask;
        done[k] = true;
    }
    for (k, p) in parts.iter().enumerate() {
        if done[k] {
            continue;
        }
        if p.is_empty() {
            return Err(DtErr::BadFormat);
        }
        let dmask = decode_number(st, p, have_text_month, fmask)?;
        if fmask & dmask != 0 {
            return Err(DtErr::BadFormat);
        }
        fmask |= dmask;
        tmask |= dmask;
    }
    if fmask & !(m::DOY | m::TZ) != m::DATE {
        return Err(DtErr::BadFormat);
    }
    Ok(tmask)
}

/// ValidateDate: two-digit years, BC, day of year, month and day ranges.
fn validate_date(fmask: u32, isjulian: bool, is2digits: bool, bc: bool, tm: &mut Tm) -> Res<()> {
    if fmask & m::YEAR != 0 {
        if isjulian {
        } else if bc {
            if tm.year <= 0 {
                return Err(DtErr::FieldOverflow);
            }
            tm.year = -(tm.year - 1);
        } else if is2digits {
            if tm.year < 0 {
                return Err(DtErr::FieldOverflow);
            }
            if tm.year < 70 {
                tm.year += 2000;
            } else if tm.year < 100 {
                tm.year += 1900;
            }
        } else if tm.year <= 0 {
            return Err(DtErr::FieldOverflow);
        }
    }
    if fmask & m::DOY != 0 {
        let (y, mo, d) = j2date(date2j(tm.year, 1, 1) + tm.yday - 1);
        (tm.year, tm.mon, tm.mday) = (y, mo as i64, d as i64);
    }
    if fmask & m::MONTH != 0 && !(1..=12).contains(&tm.mon) {
        return Err(DtErr::MdFieldOverflow);
    }
    if fmask & m::DAY != 0 && !(1..=31).contains(&tm.mday) {
        return Err(DtErr::MdFieldOverflow);
    }
    if fmask & m::DATE == m::DATE
        && tm.mday > crate::datetime::days_in_month(tm.year, tm.mon as u32) as i64
    {
        return Err(DtErr::FieldOverflow);
    }
    Ok(())
}

/// DecodeTimeCommon: `h:m[:s][.f]` (or `m:s.f`; `m:s` under a MINUTE TO
/// SECOND restriction) as (hour, minute, second, microseconds).
fn decode_time_common(s: &[u8], minute_to_second: bool) -> Res<(i64, i64, i64, i64)> {
    let (h, n) = strtol(s, i64::MIN, i64::MAX);
    let mut hour = h.ok_or(DtErr::FieldOverflow)?;
    let mut cp = &s[n..];
    if cp.first() != Some(&b':') {
        return Err(DtErr::BadFormat);
    }
    let (mi, n) = strtoint(&cp[1..]);
    let mut min = mi.ok_or(DtErr::FieldOverflow)?;
    cp = &cp[1 + n..];
    let mut sec = 0;
    let mut fsec = 0;
    let minutes_first = |hour: &mut i64, min: &mut i64, sec: &mut i64| -> Res<()> {
        if *hour > i32::MAX as i64 || *hour < i32::MIN as i64 {
            return Err(DtErr::FieldOverflow);
        }
        *sec = *min;
        *min = *hour;
        *hour = 0;
        Ok(())
    };
    match cp.first() {
        None => {
            if minute_to_second {
                minutes_first(&mut hour, &mut min, &mut sec)?;
            }
        }
        Some(b'.') => {
            fsec = parse_fractional_second(cp)?;
            minutes_first(&mut hour, &mut min, &mut sec)?;
        }
        Some(b':') => {
            let (se, n) = strtoint(&cp[1..]);
            sec = se.ok_or(DtErr::FieldOverflow)?;
            cp = &cp[1 + n..];
            match cp.first() {
                Some(b'.') => fsec = parse_fractional_second(cp)?,
                None => {}
                _ => return Err(DtErr::BadFormat),
            }
        }
        _ => return Err(DtErr::BadFormat),
    }
    if hour < 0
        || !(0..60).contains(&min)
        || !(0..=60).contains(&sec)
        || !(0..=USECS_PER_SEC).contains(&fsec)
    {
        return Err(DtErr::FieldOverflow);
    }
    Ok((hour, min, sec, fsec))
}

/// DecodeTime: a time field of a date/time.
fn decode_time(tm: &mut Tm, s: &[u8]) -> Res<u32> {
    let (h, mi, se, f) = decode_time_common(s, false)?;
    if h > i32::MAX as i64 {
        return Err(DtErr::FieldOverflow);
    }
    (tm.hour, tm.min, tm.sec, tm.fsec) = (h, mi, se, f);
    Ok(m::TIME)
}

fn time_overflows(tm: &Tm) -> bool {
    if tm.hour < 0
        || tm.hour > 24
        || !(0..60).contains(&tm.min)
        || !(0..=60).contains(&tm.sec)
        || !(0..=USECS_PER_SEC).contains(&tm.fsec)
    {
        return true;
    }
    tm.time_of_day() > USECS_PER_DAY
}

/// DecodeTimezone: `+hh[:mm[:ss]]` or `+hhmm`, seconds east.
pub(crate) fn decode_timezone(s: &[u8]) -> Res<i32> {
    let neg = match s.first() {
        Some(b'-') => true,
        Some(b'+') => false,
        _ => return Err(DtErr::BadFormat),
    };
    let (h, n) = strtoint(&s[1..]);
    let mut hr = h.ok_or(DtErr::TzDispOverflow)?;
    let mut cp = &s[1 + n..];
    let mut min = 0;
    let mut sec = 0;
    if cp.first() == Some(&b':') {
        let (mi, n) = strtoint(&cp[1..]);
        min = mi.ok_or(DtErr::TzDispOverflow)?;
        cp = &cp[1 + n..];
        if cp.first() == Some(&b':') {
            let (se, n) = strtoint(&cp[1..]);
            sec = se.ok_or(DtErr::TzDispOverflow)?;
            cp = &cp[1 + n..];
        }
    } else if cp.is_empty() && s.len() > 3 {
        min = hr % 100;
        hr /= 100;
    }
    if !(0..=TZ_HOURS_MAX).contains(&hr) || !(0..60).contains(&min) || !(0..60).contains(&sec) {
        return Err(DtErr::TzDispOverflow);
    }
    let tz = ((hr * 60 + min) * 60 + sec) as i32;
    if !cp.is_empty() {
        return Err(DtErr::BadFormat);
    }
    Ok(if neg { -tz } else { tz })
}

/// What a text field of a date/time is: a zone abbreviation first, then
/// a keyword.
enum Word {
    Tok(Tok),
    FixedZone { east: i32, dst: bool },
    DynZone(&'static str, Kind),
    Unknown,
}

fn decode_word(text: &str) -> Word {
    if let Some((name, kind)) = crate::tz_abbrevs::lookup(text) {
        return match kind {
            Kind::Fixed { offset, dst } => Word::FixedZone { east: offset, dst },
            Kind::Dynamic(_) => Word::DynZone(name, kind),
        };
    }
    match lookup_date_token(text) {
        Some(t) => Word::Tok(t),
        None => Word::Unknown,
    }
}

/// The zone of a `hhmmss-zz` field: the offset after its first `-`, and
/// the digits before it.
fn split_run_together_zone(s: &str) -> Res<(&str, i32)> {
    let dash = s.find('-').ok_or(DtErr::BadFormat)?;
    let tz = decode_timezone(&s.as_bytes()[dash..])?;
    Ok((&s[..dash], tz))
}

/// DecodeDateTime: the fields of a date or timestamp.
fn decode_date_time(fields: &[Field], ctx: &Ctx) -> Res<Decoded> {
    let mut st = St {
        tm: Tm::default(),
        fmask: 0,
        is2digits: false,
        order: ctx.order,
    };
    let mut dtype = DType::Date;
    let mut zone: Option<Zone> = None;
    let mut ptype: Option<Unit> = None;
    let mut mer: Option<bool> = None;
    let mut have_text_month = false;
    let mut isjulian = false;
    let mut bc = false;
    let mut dtz_mod = 0i32;
    let nf = fields.len();
    for (i, f) in fields.iter().enumerate() {
        let fmask = st.fmask;
        let tmask: u32 = match f.ty {
            FType::Date => {
                if ptype == Some(Unit::Julian) {
                    let s = f.text.as_bytes();
                    let (v, n) = strtoint(s);
                    let v = v.ok_or(DtErr::FieldOverflow)?;
                    if v < 0 {
                        return Err(DtErr::FieldOverflow);
                    }
                    let (y, mo, d) = j2date(v);
                    (st.tm.year, st.tm.mon, st.tm.mday) = (y, mo as i64, d as i64);
                    isjulian = true;
                    zone = Some(Zone::Offset(decode_timezone(&s[n..])?));
                    ptype = None;
                    m::DATE | m::TIME | m::TZ
                } else if ptype.is_some() || fmask & (m::MONTH | m::DAY) == m::MONTH | m::DAY {
                    if f.text.as_bytes()[0].is_ascii_digit() || ptype.is_some() {
                        if ptype.is_some() {
                            if ptype != Some(Unit::Time) {
                                return Err(DtErr::BadFormat);
                            }
                            ptype = None;
                        }
                        if fmask & m::TIME == m::TIME {
                            return Err(DtErr::BadFormat);
                        }
                        let (digits, tz) = split_run_together_zone(&f.text)?;
                        zone = Some(Zone::Offset(tz));
                        decode_number_field(&mut st, digits.as_bytes(), fmask)?.0 | m::TZ
                    } else {
                        let tz = named_zone(f).ok_or_else(|| DtErr::UnknownZone(f.text.clone()))?;
                        zone = Some(Zone::Named(tz));
                        m::TZ
                    }
                } else {
                    decode_date(&mut st, &f.text, fmask)?
                }
            }
            FType::Time => {
                if ptype.is_some() {
                    if ptype != Some(Unit::Time) {
                        return Err(DtErr::BadFormat);
                    }
                    ptype = None;
                }
                let tmask = decode_time(&mut st.tm, f.text.as_bytes())?;
                if time_overflows(&st.tm) {
                    return Err(DtErr::FieldOverflow);
                }
                tmask
            }
            FType::Tz => {
                zone = Some(Zone::Offset(decode_timezone(f.text.as_bytes())?));
                m::TZ
            }
            FType::Number => {
                if let Some(p) = ptype {
                    let tmask = decode_prefixed(&mut st, p, f, &mut zone, &mut isjulian)?;
                    ptype = None;
                    dtype = DType::Date;
                    tmask
                } else {
                    let s = f.text.as_bytes();
                    let flen = s.len();
                    let dot = s.iter().position(|&c| c == b'.');
                    if dot.is_some() && fmask & m::DATE == 0 {
                        decode_date(&mut st, &f.text, fmask)?
                    } else if dot.is_some_and(|d| d > 2)
                        || (flen >= 6 && (fmask & m::DATE == 0 || fmask & m::TIME == 0))
                    {
                        // A concatenated date or time (20011223, 040506.789).
                        decode_number_field(&mut st, s, fmask)?.0
                    } else {
                        decode_number(&mut st, s, have_text_month, fmask)?
                    }
                }
            }
            FType::Str | FType::Special => match decode_word(&f.text) {
                Word::Tok(Tok::Ignore) => continue,
                Word::FixedZone { east, dst } => {
                    zone = Some(Zone::Offset(east));
                    if dst {
                        m::DTZ | m::TZ
                    } else {
                        m::TZ
                    }
                }
                Word::DynZone(name, kind) => {
                    zone = Some(Zone::Abbrev(name, kind));
                    // DYNTZ's own bit, then TZ.
                    (1 << 7) | m::TZ
                }
                Word::Tok(Tok::Reserv(r)) => match r {
                    Reserved::Now => {
                        let off = ctx.now_tm(&mut st.tm);
                        zone = Some(Zone::Offset(off));
                        dtype = DType::Date;
                        m::DATE | m::TIME | m::TZ
                    }
                    Reserved::Yesterday | Reserved::Today | Reserved::Tomorrow => {
                        let (y, mo, d) = ctx.today();
                        let shift = match r {
                            Reserved::Yesterday => -1,
                            Reserved::Tomorrow => 1,
                            _ => 0,
                        };
                        let (y, mo, d) = j2date(date2j(y, mo, d) + shift);
                        (st.tm.year, st.tm.mon, st.tm.mday) = (y, mo as i64, d as i64);
                        dtype = DType::Date;
                        m::DATE
                    }
                    Reserved::Zulu => {
                        (st.tm.hour, st.tm.min, st.tm.sec) = (0, 0, 0);
                        zone = Some(Zone::Offset(0));
                        dtype = DType::Date;
                        m::TIME | m::TZ
                    }
                    Reserved::Epoch => {
                        dtype = DType::Epoch;
                        m::RESERV
                    }
                    Reserved::Late => {
                        dtype = DType::Late;
                        m::RESERV
                    }
                    Reserved::Early => {
                        dtype = DType::Early;
                        m::RESERV
                    }
                },
                Word::Tok(Tok::Month(v)) => {
                    let mut tmask = m::MONTH;
                    if fmask & m::MONTH != 0
                        && !have_text_month
                        && fmask & m::DAY == 0
                        && (1..=31).contains(&st.tm.mon)
                    {
                        st.tm.mday = st.tm.mon;
                        tmask = m::DAY;
                    }
                    have_text_month = true;
                    st.tm.mon = v;
                    tmask
                }
                Word::Tok(Tok::DtzMod(v)) => {
                    match &mut zone {
                        Some(Zone::Offset(o)) => *o += v as i32,
                        _ => dtz_mod += v as i32,
                    }
                    m::DTZMOD | m::DTZ
                }
                Word::Tok(Tok::AmPm(pm)) => {
                    mer = Some(pm);
                    m::AMPM
                }
                Word::Tok(Tok::AdBc(is_bc)) => {
                    bc = is_bc;
                    m::ADBC
                }
                Word::Tok(Tok::Dow) => m::DOW,
                Word::Tok(Tok::Units(u)) => {
                    ptype = Some(u);
                    0
                }
                Word::Tok(Tok::IsoTime) => {
                    if fmask & m::DATE != m::DATE {
                        return Err(DtErr::BadFormat);
                    }
                    let next = fields.get(i + 1).map(|f| f.ty);
                    if i + 1 >= nf
                        || !matches!(next, Some(FType::Number | FType::Time | FType::Date))
                    {
                        return Err(DtErr::BadFormat);
                    }
                    ptype = Some(Unit::Time);
                    0
                }
                Word::Tok(Tok::Ago) => return Err(DtErr::BadFormat),
                Word::Unknown => {
                    let tz = named_zone(f).ok_or(DtErr::BadFormat)?;
                    zone = Some(Zone::Named(tz));
                    m::TZ
                }
            },
        };
        if tmask & st.fmask != 0 {
            return Err(DtErr::BadFormat);
        }
        st.fmask |= tmask;
    }
    let fmask = st.fmask;
    validate_date(fmask, isjulian, st.is2digits, bc, &mut st.tm)?;
    apply_meridian(&mut st.tm, mer)?;
    if dtype == DType::Date {
        if fmask & m::DATE != m::DATE {
            return Err(DtErr::BadFormat);
        }
        if fmask & m::DTZMOD != 0 {
            // Only a fixed zone takes the DST modifier.
            match zone {
                Some(Zone::Offset(_)) if fmask & m::TZ != 0 => {}
                _ => return Err(DtErr::BadFormat),
            }
            if dtz_mod != 0 {
                if let Some(Zone::Offset(o)) = &mut zone {
                    *o += dtz_mod;
                }
            }
        }
    }
    Ok(Decoded {
        dtype,
        tm: st.tm,
        zone,
    })
}

/// AM/PM: 12 AM is midnight, 12 PM noon, an hour above 12 out of range.
fn apply_meridian(tm: &mut Tm, mer: Option<bool>) -> Res<()> {
    let Some(pm) = mer else {
        return Ok(());
    };
    if tm.hour > 12 {
        return Err(DtErr::FieldOverflow);
    }
    if !pm && tm.hour == 12 {
        tm.hour = 0;
    } else if pm && tm.hour != 12 {
        tm.hour += 12;
    }
    Ok(())
}

/// What [`decode_time_only`] read: the time fields, the zone written
/// (None: the session zone) and whether a full date came with them.
struct TimeOnly {
    tm: Tm,
    zone: Option<Zone>,
    has_date: bool,
}

/// DecodeTimeOnly: the fields of a time of day (an optional date and zone
/// are read and checked; `time` then ignores both, `timetz` resolves the
/// zone with [`resolve_time_zone`]).
fn decode_time_only(fields: &[Field], ctx: &Ctx) -> Res<TimeOnly> {
    let mut st = St {
        tm: Tm::default(),
        fmask: 0,
        is2digits: false,
        order: ctx.order,
    };
    let mut ptype: Option<Unit> = None;
    let mut mer: Option<bool> = None;
    let mut isjulian = false;
    let mut bc = false;
    let mut zone: Option<Zone> = None;
    let nf = fields.len();
    for (i, f) in fields.iter().enumerate() {
        let fmask = st.fmask;
        let tmask: u32 = match f.ty {
            FType::Date => {
                let date_ok = i == 0
                    && nf >= 2
                    && (fields[nf - 1].ty == FType::Date || fields[1].ty == FType::Time);
                if date_ok {
                    decode_date(&mut st, &f.text, fmask)?
                } else if f.text.as_bytes()[0].is_ascii_digit() {
                    if fmask & m::TIME == m::TIME {
                        return Err(DtErr::BadFormat);
                    }
                    let (digits, tz) = split_run_together_zone(&f.text)?;
                    zone = Some(Zone::Offset(tz));
                    decode_number_field(&mut st, digits.as_bytes(), fmask | m::DATE)?.0 | m::TZ
                } else {
                    let tz = named_zone(f).ok_or_else(|| DtErr::UnknownZone(f.text.clone()))?;
                    zone = Some(Zone::Named(tz));
                    m::TZ
                }
            }
            FType::Time => decode_time(&mut st.tm, f.text.as_bytes())?,
            FType::Tz => {
                zone = Some(Zone::Offset(decode_timezone(f.text.as_bytes())?));
                m::TZ
            }
            FType::Number => {
                if let Some(p) = ptype {
                    let tmask = decode_prefixed(&mut st, p, f, &mut zone, &mut isjulian)?;
                    ptype = None;
                    tmask
                } else {
                    let s = f.text.as_bytes();
                    let flen = s.len();
                    match s.iter().position(|&c| c == b'.') {
                        Some(_) if i == 0 && nf >= 2 && fields[nf - 1].ty == FType::Date => {
                            decode_date(&mut st, &f.text, fmask)?
                        }
                        Some(d) if d > 2 => decode_number_field(&mut st, s, fmask | m::DATE)?.0,
                        Some(_) => return Err(DtErr::BadFormat),
                        None if flen > 4 => decode_number_field(&mut st, s, fmask | m::DATE)?.0,
                        None => decode_number(&mut st, s, false, fmask | m::DATE)?,
                    }
                }
            }
            FType::Str | FType::Special => match decode_word(&f.text) {
                Word::Tok(Tok::Ignore) => continue,
                Word::FixedZone { east, dst } => {
                    zone = Some(Zone::Offset(east));
                    if dst {
                        m::DTZ | m::TZ
                    } else {
                        m::TZ
                    }
                }
                Word::DynZone(name, kind) => {
                    zone = Some(Zone::Abbrev(name, kind));
                    (1 << 7) | m::TZ
                }
                Word::Tok(Tok::Reserv(Reserved::Now)) => {
                    ctx.now_tm(&mut st.tm);
                    m::TIME
                }
                Word::Tok(Tok::Reserv(Reserved::Zulu)) => {
                    (st.tm.hour, st.tm.min, st.tm.sec) = (0, 0, 0);
                    zone = Some(Zone::Offset(0));
                    m::TIME | m::TZ
                }
                Word::Tok(Tok::Reserv(_)) => return Err(DtErr::BadFormat),
                Word::Tok(Tok::DtzMod(v)) => {
                    if let Some(Zone::Offset(o)) = &mut zone {
                        *o += v as i32;
                    }
                    m::DTZMOD | m::DTZ
                }
                Word::Tok(Tok::AmPm(pm)) => {
                    mer = Some(pm);
                    m::AMPM
                }
                Word::Tok(Tok::AdBc(is_bc)) => {
                    bc = is_bc;
                    m::ADBC
                }
                Word::Tok(Tok::Units(u)) => {
                    ptype = Some(u);
                    0
                }
                Word::Tok(Tok::IsoTime) => {
                    let next = fields.get(i + 1).map(|f| f.ty);
                    if !matches!(next, Some(FType::Number | FType::Time | FType::Date)) {
                        return Err(DtErr::BadFormat);
                    }
                    ptype = Some(Unit::Time);
                    0
                }
                // DecodeTimeOnly has no case for these: a bad format.
                Word::Tok(Tok::Month(_) | Tok::Dow | Tok::Ago) => return Err(DtErr::BadFormat),
                Word::Unknown => {
                    let tz = named_zone(f).ok_or(DtErr::BadFormat)?;
                    zone = Some(Zone::Named(tz));
                    m::TZ
                }
            },
        };
        if tmask & st.fmask != 0 {
            return Err(DtErr::BadFormat);
        }
        st.fmask |= tmask;
    }
    let fmask = st.fmask;
    validate_date(fmask, isjulian, st.is2digits, bc, &mut st.tm)?;
    apply_meridian(&mut st.tm, mer)?;
    if time_overflows(&st.tm) {
        return Err(DtErr::FieldOverflow);
    }
    if fmask & m::TIME != m::TIME {
        return Err(DtErr::BadFormat);
    }
    let has_date = fmask & m::DATE == m::DATE;
    let partial_date = fmask & m::DATE != 0 && !has_date;
    match &zone {
        Some(Zone::Named(tz)) if fmask & m::DTZMOD != 0 || (!tz.is_fixed() && !has_date) => {
            return Err(DtErr::BadFormat);
        }
        Some(Zone::Abbrev(..)) if fmask & m::DTZMOD != 0 || partial_date => {
            return Err(DtErr::BadFormat);
        }
        None if fmask & m::DTZMOD != 0 || partial_date => return Err(DtErr::BadFormat),
        _ => {}
    }
    Ok(TimeOnly {
        tm: st.tm,
        zone,
        has_date,
    })
}

/// The end of DecodeTimeOnly for `timetz`: the zone's offset (seconds
/// east) at the local time decoded, on the date written or else today in
/// the session zone (a fixed offset needs neither; a zone name with
/// daylight-saving time was refused above unless a date came with it).
fn resolve_time_zone(t: &TimeOnly, ctx: &Ctx) -> i32 {
    let (y, m, d) = if t.has_date {
        (t.tm.year, t.tm.mon, t.tm.mday)
    } else {
        ctx.today()
    };
    let day = crate::datetime::date2j(y, m, d) - crate::datetime::POSTGRES_EPOCH_JDATE;
    let secs = t.tm.hour * 3600 + t.tm.min * 60 + t.tm.sec;
    let local = day * USECS_PER_DAY + secs * USECS_PER_SEC;
    match &t.zone {
        Some(z) => z.offset_for_local(local),
        None => ctx.tz.offset_for_local(local),
    }
}

// ---------------------------------------------------------------------
// Entry points

/// Decodes a date or timestamp (`buf_len`: the input function's work
/// buffer, [`DATE_BUF_LEN`] or [`TIMESTAMP_BUF_LEN`]).
pub(crate) fn decode_datetime_text(input: &str, ctx: &Ctx, buf_len: usize) -> Res<Decoded> {
    let fields = parse_fields(input, buf_len)?;
    decode_date_time(&fields, ctx)
}

/// Decodes a time of day: microseconds since midnight.
pub(crate) fn decode_time_text(input: &str, ctx: &Ctx) -> Res<i64> {
    let fields = parse_fields(input, DATE_BUF_LEN)?;
    Ok(decode_time_only(&fields, ctx)?.tm.time_of_day())
}

/// Decodes a time of day with its zone: microseconds since midnight and
/// the zone's offset in seconds east of UTC.
pub(crate) fn decode_timetz_text(input: &str, ctx: &Ctx) -> Res<(i64, i32)> {
    let fields = parse_fields(input, DATE_BUF_LEN)?;
    let t = decode_time_only(&fields, ctx)?;
    Ok((t.tm.time_of_day(), resolve_time_zone(&t, ctx)))
}

// ---------------------------------------------------------------------
// Intervals

/// `struct pg_itm_in`: an interval being read, each part checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ItmIn {
    pub usec: i64,
    pub mday: i32,
    pub mon: i32,
    pub year: i32,
}

impl ItmIn {
    fn fract_micros(&mut self, frac: f64, scale: i64) -> Option<()> {
        if frac == 0.0 {
            return Some(());
        }
        let f = frac * scale as f64;
        let mut usec = f as i64;
        let rest = f - usec as f64;
        if rest > 0.5 {
            usec += 1;
        } else if rest < -0.5 {
            usec -= 1;
        }
        self.usec = self.usec.checked_add(usec)?;
        Some(())
    }

    fn fract_days(&mut self, frac: f64, scale: i32) -> Option<()> {
        if frac == 0.0 {
            return Some(());
        }
        let f = frac * scale as f64;
        let extra = f as i32;
        self.mday = self.mday.checked_add(extra)?;
        self.fract_micros(f - extra as f64, USECS_PER_DAY)
    }

    fn fract_years(&mut self, frac: f64, scale: i32) -> Option<()> {
        let extra = (frac * scale as f64 * 12.0).round_ties_even() as i32;
        self.mon = self.mon.checked_add(extra)?;
        Some(())
    }

    fn micros(&mut self, val: i64, fval: f64, scale: i64) -> Option<()> {
        self.usec = self.usec.checked_add(val.checked_mul(scale)?)?;
        self.fract_micros(fval, scale)
    }

    fn days(&mut self, val: i64, scale: i32) -> Option<()> {
        let v = i32::try_from(val).ok()?.checked_mul(scale)?;
        self.mday = self.mday.checked_add(v)?;
        Some(())
    }

    fn months(&mut self, val: i64) -> Option<()> {
        self.mon = self.mon.checked_add(i32::try_from(val).ok()?)?;
        Some(())
    }

    fn years(&mut self, val: i64, scale: i32) -> Option<()> {
        let v = i32::try_from(val).ok()?.checked_mul(scale)?;
        self.year = self.year.checked_add(v)?;
        Some(())
    }

    /// itmin2interval: None when the months do not fit.
    pub(crate) fn to_interval(self) -> Option<crate::datetime::Interval> {
        let months = self.year as i64 * 12 + self.mon as i64;
        Some(crate::datetime::Interval::new(
            i32::try_from(months).ok()?,
            self.mday,
            self.usec,
        ))
    }
}

/// Interval field-restriction bits (INTERVAL_MASK).
pub(crate) mod range {
    pub const MONTH: u32 = 1 << 1;
    pub const YEAR: u32 = 1 << 2;
    pub const DAY: u32 = 1 << 3;
    pub const HOUR: u32 = 1 << 10;
    pub const MINUTE: u32 = 1 << 11;
    pub const SECOND: u32 = 1 << 12;
    pub const FULL: u32 = 0x7FFF;
}

/// The unit of an interval's rightmost bare number under restriction `r`.
fn default_unit(r: u32) -> Unit {
    use range::*;
    match r {
        YEAR => Unit::Year,
        x if x == MONTH || x == YEAR | MONTH => Unit::Month,
        DAY => Unit::Day,
        x if x == HOUR || x == DAY | HOUR => Unit::Hour,
        x if x == MINUTE || x == HOUR | MINUTE || x == DAY | HOUR | MINUTE => Unit::Minute,
        _ => Unit::Second,
    }
}

fn overflow() -> DtErr {
    DtErr::FieldOverflow
}

/// A number field of an interval in unit `unit`: adds it, returns its
/// mask bit and the unit for the next field to the left.
fn interval_number(
    itm: &mut ItmIn,
    text: &str,
    unit: Unit,
    force_negative: bool,
) -> Res<(u32, Unit)> {
    let s = text.as_bytes();
    let (v, n) = strtol(s, i64::MIN, i64::MAX);
    let mut val = v.ok_or_else(overflow)?;
    let rest = &s[n..];
    let mut unit = unit;
    let mut fval = 0.0;
    match rest.first() {
        Some(b'-') => {
            let (v2, n2) = strtoint(&rest[1..]);
            let mut val2 = match v2 {
                Some(x) if (0..12).contains(&x) => x,
                _ => return Err(overflow()),
            };
            if 1 + n2 != rest.len() {
                return Err(DtErr::BadFormat);
            }
            unit = Unit::Month;
            if s[0] == b'-' {
                val2 = -val2;
            }
            val = val
                .checked_mul(12)
                .and_then(|v| v.checked_add(val2))
                .ok_or_else(overflow)?;
        }
        Some(b'.') => {
            fval = parse_fraction(rest)?;
            if s[0] == b'-' {
                fval = -fval;
            }
        }
        None => {}
        _ => return Err(DtErr::BadFormat),
    }
    if force_negative {
        if val > 0 {
            val = -val;
        }
        if fval > 0.0 {
            fval = -fval;
        }
    }
    let sec = USECS_PER_SEC;
    let ok = |r: Option<()>| r.ok_or_else(overflow);
    let mut next = unit;
    let bit = match unit {
        Unit::Microsec => {
            ok(itm.micros(val, fval, 1))?;
            m::MICROSECOND
        }
        Unit::Millisec => {
            ok(itm.micros(val, fval, 1000))?;
            m::MILLISECOND
        }
        Unit::Second => {
            ok(itm.micros(val, fval, sec))?;
            if fval == 0.0 {
                m::SECOND
            } else {
                m::ALL_SECS
            }
        }
        Unit::Minute => {
            ok(itm.micros(val, fval, USECS_PER_MINUTE))?;
            m::MINUTE
        }
        Unit::Hour => {
            ok(itm.micros(val, fval, USECS_PER_HOUR))?;
            next = Unit::Day;
            m::HOUR
        }
        Unit::Day => {
            ok(itm
                .days(val, 1)
                .and_then(|_| itm.fract_micros(fval, USECS_PER_DAY)))?;
            m::DAY
        }
        Unit::Week => {
            ok(itm.days(val, 7).and_then(|_| itm.fract_days(fval, 7)))?;
            m::WEEK
        }
        Unit::Month => {
            ok(itm.months(val).and_then(|_| itm.fract_days(fval, 30)))?;
            m::MONTH
        }
        Unit::Year => {
            ok(itm.years(val, 1).and_then(|_| itm.fract_years(fval, 1)))?;
            m::YEAR
        }
        Unit::Decade => {
            ok(itm.years(val, 10).and_then(|_| itm.fract_years(fval, 10)))?;
            m::DECADE
        }
        Unit::Century => {
            ok(itm.years(val, 100).and_then(|_| itm.fract_years(fval, 100)))?;
            m::CENTURY
        }
        Unit::Millennium => {
            ok(itm
                .years(val, 1000)
                .and_then(|_| itm.fract_years(fval, 1000)))?;
            m::MILLENNIUM
        }
        _ => return Err(DtErr::BadFormat),
    };
    Ok((bit, next))
}

/// DecodeTimeForInterval: a time field as microseconds.
fn interval_time(s: &[u8], r: u32) -> Res<i64> {
    let minute_to_second = r == range::MINUTE | range::SECOND;
    let (h, mi, se, f) = decode_time_common(s, minute_to_second)?;
    h.checked_mul(USECS_PER_HOUR)
        .and_then(|x| x.checked_add(mi * USECS_PER_MINUTE))
        .and_then(|x| x.checked_add(se * USECS_PER_SEC))
        .and_then(|x| x.checked_add(f))
        .ok_or_else(overflow)
}

/// DecodeInterval: the fields of an interval, right to left.
fn decode_interval(fields: &[Field], r: u32, sql_standard: bool) -> Res<ItmIn> {
    let mut itm = ItmIn::default();
    let mut force_negative = false;
    if sql_standard && fields.first().is_some_and(|f| f.text.starts_with('-')) {
        force_negative = !fields[1..].iter().any(|f| f.text.starts_with(['-', '+']));
    }
    let mut fmask = 0u32;
    let mut is_before = false;
    // None: no unit seen yet (the restriction decides).
    let mut unit: Option<Unit> = None;
    for f in fields.iter().rev() {
        let tmask = match f.ty {
            FType::Time => {
                let us = interval_time(f.text.as_bytes(), r)?;
                itm.usec = if force_negative && us > 0 { -us } else { us };
                unit = Some(Unit::Day);
                m::TIME
            }
            FType::Tz if f.text[1..].contains(':') => {
                match interval_time(&f.text.as_bytes()[1..], r) {
                    Ok(us) => {
                        let us = if f.text.starts_with('-') { -us } else { us };
                        itm.usec = if force_negative && us > 0 { -us } else { us };
                        unit = Some(Unit::Day);
                        m::TIME
                    }
                    Err(_) => {
                        let u = unit.unwrap_or_else(|| default_unit(r));
                        let (bit, next) = interval_number(&mut itm, &f.text, u, force_negative)?;
                        unit = Some(next);
                        bit
                    }
                }
            }
            FType::Tz | FType::Date | FType::Number => {
                let u = unit.unwrap_or_else(|| default_unit(r));
                let (bit, next) = interval_number(&mut itm, &f.text, u, force_negative)?;
                unit = Some(next);
                bit
            }
            FType::Str | FType::Special => match search(DELTA_TOKENS, &f.text) {
                Some(Tok::Ignore) => continue,
                Some(Tok::Units(u)) => {
                    unit = Some(u);
                    0
                }
                Some(Tok::Ago) => {
                    is_before = true;
                    unit = Some(Unit::Ago);
                    0
                }
                _ => return Err(DtErr::BadFormat),
            },
        };
        if tmask & fmask != 0 {
            return Err(DtErr::BadFormat);
        }
        fmask |= tmask;
    }
    if fmask == 0 {
        return Err(DtErr::BadFormat);
    }
    if is_before {
        itm = ItmIn {
            usec: itm.usec.checked_neg().ok_or_else(overflow)?,
            mday: itm.mday.checked_neg().ok_or_else(overflow)?,
            mon: itm.mon.checked_neg().ok_or_else(overflow)?,
            year: itm.year.checked_neg().ok_or_else(overflow)?,
        };
    }
    Ok(itm)
}

/// ParseISO8601Number: a decimal (strtod's syntax) split into a whole
/// part and a fraction, both with its sign; (int, frac, bytes used).
fn iso_number(s: &[u8]) -> Res<(i64, f64, usize)> {
    if !s
        .first()
        .is_some_and(|c| c.is_ascii_digit() || *c == b'-' || *c == b'.')
    {
        return Err(DtErr::BadFormat);
    }
    let (v, n) = strtod(s).ok_or(DtErr::BadFormat)?;
    if v.is_nan() || !(-1.0e15..=1.0e15).contains(&v) {
        return Err(DtErr::FieldOverflow);
    }
    let int = v.trunc() as i64;
    Ok((int, v - int as f64, n))
}

/// ISO8601IntegerWidth: digits before any fraction, sign skipped.
fn iso_int_width(s: &[u8]) -> usize {
    let s = s.strip_prefix(b"-").unwrap_or(s);
    s.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// DecodeISO8601Interval: `P1Y2M3DT4H5M6S`, `P0001-02-03T04:05:06` and
/// `P00010203T040506`.
fn decode_iso8601_interval(input: &str) -> Res<ItmIn> {
    let s = input.as_bytes();
    if s.len() < 2 || s[0] != b'P' {
        return Err(DtErr::BadFormat);
    }
    let mut itm = ItmIn::default();
    let mut datepart = true;
    let mut havefield = false;
    let mut i = 1;
    let ok = |r: Option<()>| r.ok_or(DtErr::FieldOverflow);
    while i < s.len() {
        if s[i] == b'T' {
            datepart = false;
            havefield = false;
            i += 1;
            continue;
        }
        let fieldstart = i;
        let (val, fval, n) = iso_number(&s[i..])?;
        i += n;
        let unit = s.get(i).copied().unwrap_or(0);
        i += 1;
        if datepart {
            match unit {
                b'Y' => ok(itm.years(val, 1).and_then(|_| itm.fract_years(fval, 1)))?,
                b'M' => ok(itm.months(val).and_then(|_| itm.fract_days(fval, 30)))?,
                b'W' => ok(itm.days(val, 7).and_then(|_| itm.fract_days(fval, 7)))?,
                b'D' => ok(itm
                    .days(val, 1)
                    .and_then(|_| itm.fract_micros(fval, USECS_PER_DAY)))?,
                b'T' | 0 | b'-' => {
                    if unit != b'-' && iso_int_width(&s[fieldstart..]) == 8 && !havefield {
                        ok(itm
                            .years(val / 10000, 1)
                            .and_then(|_| itm.months((val / 100) % 100))
                            .and_then(|_| itm.days(val % 100, 1))
                            .and_then(|_| itm.fract_micros(fval, USECS_PER_DAY)))?;
                        if unit == 0 {
                            return Ok(itm);
                        }
                        datepart = false;
                        havefield = false;
                        continue;
                    }
                    if havefield {
                        return Err(DtErr::BadFormat);
                    }
                    ok(itm.years(val, 1).and_then(|_| itm.fract_years(fval, 1)))?;
                    if unit == 0 {
                        return Ok(itm);
                    }
                    if unit == b'T' {
                        datepart = false;
                        havefield = false;
                        continue;
                    }
                    let (val, fval, n) = iso_number(&s[i..])?;
                    i += n;
                    ok(itm.months(val).and_then(|_| itm.fract_days(fval, 30)))?;
                    match s.get(i) {
                        None => return Ok(itm),
                        Some(b'T') => {
                            datepart = false;
                            havefield = false;
                            i += 1;
                            continue;
                        }
                        Some(b'-') => i += 1,
                        _ => return Err(DtErr::BadFormat),
                    }
                    let (val, fval, n) = iso_number(&s[i..])?;
                    i += n;
                    ok(itm
                        .days(val, 1)
                        .and_then(|_| itm.fract_micros(fval, USECS_PER_DAY)))?;
                    match s.get(i) {
                        None => return Ok(itm),
                        Some(b'T') => {
                            datepart = false;
                            havefield = false;
                            i += 1;
                            continue;
                        }
                        _ => return Err(DtErr::BadFormat),
                    }
                }
                _ => return Err(DtErr::BadFormat),
            }
        } else {
            match unit {
                b'H' => ok(itm.micros(val, fval, USECS_PER_HOUR))?,
                b'M' => ok(itm.micros(val, fval, USECS_PER_MINUTE))?,
                b'S' => ok(itm.micros(val, fval, USECS_PER_SEC))?,
                0 | b':' => {
                    if unit == 0 && iso_int_width(&s[fieldstart..]) == 6 && !havefield {
                        ok(itm
                            .micros(val / 10000, 0.0, USECS_PER_HOUR)
                            .and_then(|_| itm.micros((val / 100) % 100, 0.0, USECS_PER_MINUTE))
                            .and_then(|_| itm.micros(val % 100, 0.0, USECS_PER_SEC))
                            .and_then(|_| itm.fract_micros(fval, 1)))?;
                        return Ok(itm);
                    }
                    if havefield {
                        return Err(DtErr::BadFormat);
                    }
                    ok(itm.micros(val, fval, USECS_PER_HOUR))?;
                    if unit == 0 {
                        return Ok(itm);
                    }
                    let (val, fval, n) = iso_number(&s[i..])?;
                    i += n;
                    ok(itm.micros(val, fval, USECS_PER_MINUTE))?;
                    match s.get(i) {
                        None => return Ok(itm),
                        Some(b':') => i += 1,
                        _ => return Err(DtErr::BadFormat),
                    }
                    let (val, fval, n) = iso_number(&s[i..])?;
                    i += n;
                    ok(itm.micros(val, fval, USECS_PER_SEC))?;
                    if i == s.len() {
                        return Ok(itm);
                    }
                    return Err(DtErr::BadFormat);
                }
                _ => return Err(DtErr::BadFormat),
            }
        }
        havefield = true;
    }
    Ok(itm)
}

/// interval_in's decoding: DecodeInterval, then the ISO 8601 forms when
/// that finds a bad format. `r` is the restriction's field mask.
pub(crate) fn decode_interval_text(input: &str, r: u32, sql_standard: bool) -> Res<ItmIn> {
    let res = parse_fields(input, INTERVAL_BUF_LEN)
        .and_then(|fields| decode_interval(&fields, r, sql_standard));
    match res {
        Err(DtErr::BadFormat) => decode_iso8601_interval(input),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datestyle::DateStyle;
    use crate::datetime::{
        format_date, format_interval, format_timestamp, format_timestamptz, parse_date,
        parse_interval, parse_timestamp, parse_timestamptz,
    };

    /// A small xorshift generator: the fuzz test is deterministic.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Every input function on every input: garbage, keyword soup, huge
    /// numbers and long strings must give a value or an error, never a
    /// panic (debug builds also trap arithmetic overflow).
    #[test]
    fn no_input_panics() {
        const PIECES: &[&str] = &[
            "1",
            "12",
            "1999",
            "99999999999",
            "2147483648",
            "-",
            "+",
            ".",
            ":",
            "/",
            " ",
            "t",
            "T",
            "j",
            "J",
            "y",
            "m",
            "d",
            "h",
            "mm",
            "s",
            "jan",
            "bc",
            "ad",
            "am",
            "pm",
            "pst",
            "dst",
            "msk",
            "z",
            "now",
            "today",
            "epoch",
            "infinity",
            "-infinity",
            "allballs",
            "ago",
            "@",
            "P",
            "W",
            "D",
            "H",
            "M",
            "S",
            "Y",
            "day",
            "hours",
            "years",
            "weeks",
            "America/New_York",
            "Foo/Bar",
            "gmt+8",
            "e",
            "1e308",
            "0.5",
            ".999999999",
            "24",
            "60",
            "366",
            "-00:00:01",
            "+15:59:59",
            "_",
            ",",
            "é",
            "\u{0}",
        ];
        let order = [DateOrder::Mdy, DateOrder::Dmy, DateOrder::Ymd];
        let ctx = |i: usize| Ctx {
            order: order[i % 3],
            tz: TimeZone::UTC,
            now: 0,
        };
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut inputs: Vec<String> = vec![
            "9".repeat(1000),
            "1 day ".repeat(300),
            "jan ".repeat(100),
            "-".repeat(500),
            "P".to_string() + &"1Y".repeat(200),
            "1999-01-08 ".to_string() + &"0".repeat(400),
        ];
        for _ in 0..6_000 {
            let mut s = String::new();
            for _ in 0..rng.below(8) + 1 {
                s.push_str(PIECES[rng.below(PIECES.len())]);
                if rng.below(3) == 0 {
                    s.push(' ');
                }
            }
            inputs.push(s);
        }
        for (i, s) in inputs.iter().enumerate() {
            let c = ctx(i);
            let _ = decode_datetime_text(s, &c, TIMESTAMP_BUF_LEN);
            let _ = decode_time_text(s, &c);
            let _ = parse_date(s, c.tz, c.now, c.order);
            let _ = parse_timestamp(s, c.tz, c.now, c.order);
            let _ = parse_timestamptz(s, c.tz, c.now, c.order);
            let _ = crate::time::parse_time(s, c.tz, c.now, c.order);
            for r in [
                range::FULL,
                range::MINUTE | range::SECOND,
                range::DAY | range::HOUR,
            ] {
                let _ = decode_interval_text(s, r, i % 2 == 0);
            }
            let _ = parse_interval(s);
        }
    }

    /// The plain ISO form through the input function (fast path) and
    /// through the general decoder: ns per call. Run by hand with
    /// `--ignored --nocapture` in a release build; no assertion on time.
    #[test]
    #[ignore]
    fn iso_input_speed() {
        let n = 1_000_000;
        let ctx = Ctx {
            order: DateOrder::Mdy,
            tz: TimeZone::UTC,
            now: 0,
        };
        let time = |f: &dyn Fn()| {
            let t = std::time::Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_nanos() / n
        };
        let ts = std::hint::black_box("2024-01-02 03:04:05");
        let tstz = std::hint::black_box("2024-01-02 03:04:05.123456+02");
        let tod = std::hint::black_box("04:05:06");
        let (z, o) = (ctx.tz, ctx.order);
        let fast = time(&|| {
            std::hint::black_box(parse_timestamp(ts, z, 0, o).ok());
        });
        let general = time(&|| {
            std::hint::black_box(decode_datetime_text(ts, &ctx, TIMESTAMP_BUF_LEN).ok());
        });
        println!("timestamp: fast path {fast} ns, general decoder {general} ns");
        let fast = time(&|| {
            std::hint::black_box(parse_timestamptz(tstz, z, 0, o).ok());
        });
        let general = time(&|| {
            std::hint::black_box(decode_datetime_text(tstz, &ctx, TIMESTAMP_BUF_LEN).ok());
        });
        println!("timestamptz with zone: fast path {fast} ns, general decoder {general} ns");
        let fast = time(&|| {
            std::hint::black_box(crate::time::parse_time(tod, z, 0, o).ok());
        });
        let general = time(&|| {
            std::hint::black_box(decode_time_text(tod, &ctx).ok());
        });
        println!("time: fast path {fast} ns, general decoder {general} ns");
    }

    /// Prints `type|order|input|result` for each line `type|order|input`
    /// of the file `DT_INPUTS` (zone PST8PDT): compared by hand with the
    /// reference server's answers.
    #[test]
    #[ignore]
    fn dump_inputs() {
        let Ok(path) = std::env::var("DT_INPUTS") else {
            return;
        };
        let tz = TimeZone::parse("PST8PDT").unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines() {
            let mut it = line.splitn(3, '|');
            let (ty, ord, input) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            let order = match ord {
                "dmy" => DateOrder::Dmy,
                "ymd" => DateOrder::Ymd,
                _ => DateOrder::Mdy,
            };
            let style = DateStyle {
                order,
                ..DateStyle::default()
            };
            let res = match ty {
                "date" => parse_date(input, tz, 0, order).map(|d| format_date(d, style)),
                "timestamp" => {
                    parse_timestamp(input, tz, 0, order).map(|t| format_timestamp(t, style))
                }
                "timestamptz" => {
                    parse_timestamptz(input, tz, 0, order).map(|t| format_timestamptz(t, tz, style))
                }
                "time" => {
                    crate::time::parse_time(input, tz, 0, order).map(crate::time::format_time)
                }
                _ => parse_interval(input).map(|i| format_interval(&i)),
            };
            let out = match res {
                Ok(v) => v,
                Err(e) => format!("ERROR: {} {}", e.code.code(), e.message),
            };
            println!("{ty}|{ord}|{input}|{out}");
        }
    }
}
