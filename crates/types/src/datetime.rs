//! Dates, timestamps, intervals and time zones.
//!
//! Representation follows PostgreSQL exactly, so binary I/O is a copy:
//! a date is days since 2000-01-01, a timestamp is microseconds since
//! 2000-01-01 00:00:00 (for `timestamptz`, in UTC), and an [`Interval`] is
//! (months, days, microseconds) kept separately because months and days
//! have no fixed length. `infinity`/`-infinity` are the extreme integer
//! values, which makes them sort correctly. Calendar math uses PostgreSQL's
//! Julian-day routines (`date2j`/`j2date`, proleptic Gregorian, year 0 =
//! 1 BC) and its ranges: dates 4714-11-24 BC .. 5874897 AD, timestamps
//! 4714-11-24 BC .. 294276 AD.
//!
//! Time zones ([`TimeZone`]): UTC, fixed offsets, POSIX rules, and named
//! zones of the system's tz database, which follow their TZif history
//! (`crate::tz_abbrevs` reads it) and past it their current rule; zone
//! abbreviations are PostgreSQL's `Default` set (`crate::tz_abbrevs`). Text output here is DateStyle `ISO` and
//! IntervalStyle `postgres` (the defaults, on every row a driver reads);
//! the other styles are [`crate::datestyle`]'s. Input is PostgreSQL's
//! decoder (`crate::datetime_input`, every form datetime.c reads), turned
//! into values here with date_in's / timestamp_in's / interval_in's range
//! checks; the plain ISO form (`2024-01-02 03:04:05.678+02`) takes a fast
//! path that gives the same value.

use std::cmp::Ordering;
use std::fmt::Write;

use nestor_common::{DbError, SqlState};

use crate::datestyle::{self, DateOrder, DateOutput, DateStyle, Fields};
use crate::interval_typmod::IntervalMod;

pub(crate) const USECS_PER_SEC: i64 = 1_000_000;
pub(crate) const USECS_PER_DAY: i64 = 86_400 * USECS_PER_SEC;
pub(crate) const USECS_PER_HOUR: i64 = 3_600 * USECS_PER_SEC;
pub(crate) const POSTGRES_EPOCH_JDATE: i64 = 2_451_545;
/// Unix epoch in microseconds since 2000-01-01.
pub const UNIX_EPOCH_USECS: i64 = -946_684_800 * USECS_PER_SEC;
pub const DATE_NOBEGIN: i32 = i32::MIN;
pub const DATE_NOEND: i32 = i32::MAX;
pub const TS_NOBEGIN: i64 = i64::MIN;
pub const TS_NOEND: i64 = i64::MAX;
/// First valid Julian day (4714-11-24 BC) and first invalid one.
const DATE_MIN_JD: i64 = 0;
const DATE_END_JD: i64 = 2_147_483_494;
const MIN_TIMESTAMP: i64 = -211_813_488_000_000_000;
const END_TIMESTAMP: i64 = 9_223_371_331_200_000_000;

/// An interval: months, days and microseconds, each signed. Equality,
/// order and hash are by [`Interval::span`], as in PostgreSQL
/// (`'1 mon' = '30 days'`); compare fields directly for identity.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interval {
    pub months: i32,
    pub days: i32,
    pub micros: i64,
}

impl Interval {
    pub fn new(months: i32, days: i32, micros: i64) -> Interval {
        Interval {
            months,
            days,
            micros,
        }
    }

    /// The 128-bit span PostgreSQL compares by (30-day months, 24h days).
    pub fn span(&self) -> i128 {
        (self.months as i128 * 30 + self.days as i128) * USECS_PER_DAY as i128 + self.micros as i128
    }

    pub(crate) fn checked_neg(&self) -> Option<Interval> {
        Some(Interval::new(
            self.months.checked_neg()?,
            self.days.checked_neg()?,
            self.micros.checked_neg()?,
        ))
    }

    pub fn checked_add(&self, o: &Interval) -> Option<Interval> {
        Some(Interval::new(
            self.months.checked_add(o.months)?,
            self.days.checked_add(o.days)?,
            self.micros.checked_add(o.micros)?,
        ))
    }

    /// interval * float (interval_mul).
    pub(crate) fn mul_f64(&self, f: f64) -> Option<Interval> {
        self.scale(f, |x, f| x * f)
    }

    /// interval / float (interval_div; the caller rejects zero).
    pub(crate) fn div_f64(&self, f: f64) -> Option<Interval> {
        self.scale(f, |x, f| x / f)
    }

    /// interval_mul / interval_div: each part scaled by `op`, the whole
    /// months and days kept, their fractions cascaded down as 30-day
    /// months and 24-hour days (rounded to microseconds, TSROUND) into
    /// days and time; None when a part leaves its range.
    fn scale(&self, f: f64, op: impl Fn(f64, f64) -> f64) -> Option<Interval> {
        let fits_i32 = |x: f64| !x.is_nan() && x >= i32::MIN as f64 && x < -(i32::MIN as f64);
        let tsround = |x: f64| (x * 1e6).round_ties_even() / 1e6;
        let months = op(self.months as f64, f);
        let days = op(self.days as f64, f);
        if !fits_i32(months) || !fits_i32(days) {
            return None;
        }
        let (m, mut d) = (months as i32, days as i32);
        let month_rest_days = tsround((months - m as f64) * 30.0);
        let mut sec_rest = tsround(
            (days - d as f64 + month_rest_days - (month_rest_days as i32) as f64) * 86_400.0,
        );
        if sec_rest.abs() >= 86_400.0 {
            let whole = (sec_rest / 86_400.0) as i32;
            d = d.checked_add(whole)?;
            sec_rest -= whole as f64 * 86_400.0;
        }
        d = d.checked_add(month_rest_days as i32)?;
        let time = (op(self.micros as f64, f) + sec_rest * USECS_PER_SEC as f64).round_ties_even();
        // FLOAT8_FITS_IN_INT64 (NaN fails it too).
        if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&time) {
            return None;
        }
        Some(Interval::new(m, d, time as i64))
    }
}

impl Ord for Interval {
    fn cmp(&self, other: &Self) -> Ordering {
        self.span().cmp(&other.span())
    }
}

impl PartialEq for Interval {
    fn eq(&self, other: &Self) -> bool {
        self.span() == other.span()
    }
}

impl Eq for Interval {}

impl std::hash::Hash for Interval {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.span().hash(state);
    }
}

impl PartialOrd for Interval {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A session time zone: UTC, a fixed offset, or a named zone with its
/// current daylight-saving rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TimeZone {
    /// Seconds east of UTC (ISO sign: +02 is 7200); the standard offset of
    /// a zone with daylight-saving time.
    pub offset_secs: i32,
    pub dst: Option<DstRule>,
    /// The zone's abbreviation (of standard time) when it has one (`EST`,
    /// `JST`, `-03`): from the tz database's POSIX rule.
    pub abbrev: Option<Abbrev>,
    /// A named zone's periods from its TZif file, which decide its offset
    /// and abbreviation at any instant (the fields above are its current
    /// rule, which the file's last period continues).
    pub history: Option<crate::tz_abbrevs::HistoryRef>,
}

/// A time zone abbreviation, kept inline (POSIX allows 3 to 6 characters
/// in practice; longer ones are not kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Abbrev {
    len: u8,
    bytes: [u8; 10],
}

impl Abbrev {
    pub fn new(s: &str) -> Option<Abbrev> {
        let mut bytes = [0u8; 10];
        if s.is_empty() || s.len() > bytes.len() || !s.is_ascii() {
            return None;
        }
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        Some(Abbrev {
            len: s.len() as u8,
            bytes,
        })
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

/// A POSIX TZ daylight-saving rule (`EST5EDT,M3.2.0,M11.1.0`), applied to
/// every year (zones' historical rule changes are not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DstRule {
    /// Seconds east of UTC while daylight-saving time is in effect.
    pub offset_secs: i32,
    /// When it starts (in local standard time) and ends (in local
    /// daylight time).
    pub start: Transition,
    pub end: Transition,
    /// Abbreviation while daylight-saving time is in effect (`EDT`).
    pub abbrev: Option<Abbrev>,
}

/// `Mm.w.d/time`: day `d` (0 = Sunday) of week `w` (5 = last) of month
/// `m`, at `time` seconds after local midnight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Transition {
    pub month: u32,
    pub week: u32,
    pub weekday: u32,
    pub secs: i32,
}

impl Transition {
    /// Local time (microseconds since 2000-01-01) of the transition in
    /// `year`.
    fn local_usecs(self, year: i64) -> i64 {
        let first = date2j(year, self.month as i64, 1);
        let first_wd = (first + 1).rem_euclid(7);
        let mut day =
            1 + (self.weekday as i64 - first_wd).rem_euclid(7) + 7 * (self.week as i64 - 1);
        let len = days_in_month(year, self.month);
        while day > len as i64 {
            day -= 7;
        }
        (date2j(year, self.month as i64, day) - POSTGRES_EPOCH_JDATE) * USECS_PER_DAY
            + self.secs as i64 * USECS_PER_SEC
    }
}

impl TimeZone {
    pub const UTC: TimeZone = TimeZone {
        offset_secs: 0,
        dst: None,
        abbrev: None,
        history: None,
    };

    pub fn fixed(offset_secs: i32) -> TimeZone {
        TimeZone {
            offset_secs,
            dst: None,
            abbrev: None,
            history: None,
        }
    }

    /// The abbreviation of the zone at UTC instant `utc` (`EST` or
    /// `EDT`), if the zone has names.
    pub fn abbrev_at_utc(&self, utc: i64) -> Option<&str> {
        if let Some(h) = self.history {
            if let Some(a) = h.abbrev_at_utc(utc) {
                return Some(a);
            }
        }
        match &self.dst {
            Some(d)
                if self.offset_at_utc(utc) == d.offset_secs
                    && d.offset_secs != self.offset_secs =>
            {
                d.abbrev.as_ref().map(Abbrev::as_str)
            }
            _ => self.abbrev.as_ref().map(Abbrev::as_str),
        }
    }

    /// The local time of UTC instant `utc` (both microseconds since
    /// 2000-01-01) in this zone.
    pub fn local_of_utc(&self, utc: i64) -> i64 {
        utc.saturating_add(self.offset_at_utc(utc) as i64 * USECS_PER_SEC)
    }

    /// The offset (seconds east of UTC) in effect at UTC instant `utc`
    /// (microseconds since 2000-01-01).
    pub(crate) fn offset_at_utc(&self, utc: i64) -> i32 {
        if let Some(h) = self.history {
            if let Some(off) = h.offset_at_utc(utc) {
                return off;
            }
        }
        let Some(d) = self.dst else {
            return self.offset_secs;
        };
        if utc == i64::MIN || utc == i64::MAX {
            return self.offset_secs;
        }
        let std_local = utc.saturating_add(self.offset_secs as i64 * USECS_PER_SEC);
        let year = j2date(std_local.div_euclid(USECS_PER_DAY) + POSTGRES_EPOCH_JDATE).0;
        let start = d.start.local_usecs(year) - self.offset_secs as i64 * USECS_PER_SEC;
        let end = d.end.local_usecs(year) - d.offset_secs as i64 * USECS_PER_SEC;
        let in_dst = if start <= end {
            utc >= start && utc < end
        } else {
            utc >= start || utc < end
        };
        if in_dst {
            d.offset_secs
        } else {
            self.offset_secs
        }
    }

    /// The offset for local time `local`. A time that is ambiguous (in a
    /// fall-back overlap) or invalid (in a spring-forward gap) takes the
    /// offset in effect just before the transition, as PostgreSQL does:
    /// daylight time in the overlap, standard time in the gap.
    pub(crate) fn offset_for_local(&self, local: i64) -> i32 {
        if let Some(h) = self.history {
            return h.offset_for_local(local);
        }
        let Some(d) = self.dst else {
            return self.offset_secs;
        };
        if local == i64::MIN || local == i64::MAX {
            return self.offset_secs;
        }
        for off in [d.offset_secs, self.offset_secs] {
            if self.offset_at_utc(local - off as i64 * USECS_PER_SEC) == off {
                return off;
            }
        }
        self.offset_secs
    }

    /// Whether the zone has one offset at all times (a time of day in it
    /// needs no date to know its offset).
    pub(crate) fn is_fixed(&self) -> bool {
        self.dst.is_none() && self.history.is_none_or(|h| h.is_fixed())
    }

    /// A named zone from the system's tz database (`America/New_York`):
    /// the POSIX rule in its TZif footer. Cached per name.
    fn named(name: &str) -> Option<TimeZone> {
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static CACHE: OnceLock<Mutex<HashMap<String, Option<TimeZone>>>> = OnceLock::new();
        let ok = !name.is_empty()
            && !name.starts_with('/')
            && !name
                .split('/')
                .any(|p| p.is_empty() || p == "." || p == "..")
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/_-+".contains(&b));
        if !ok {
            return None;
        }
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        if let Some(hit) = cache.lock().ok()?.get(name) {
            return *hit;
        }
        let tz = ["/usr/share/zoneinfo", "/usr/lib/zoneinfo"]
            .iter()
            .find_map(|dir| std::fs::read(format!("{dir}/{name}")).ok())
            .and_then(|bytes| {
                if !bytes.starts_with(b"TZif") || bytes.get(4).is_none_or(|&v| v < b'2') {
                    return None;
                }
                let body = bytes.strip_suffix(b"\n")?;
                let nl = body.iter().rposition(|&b| b == b'\n')?;
                parse_posix_tz(std::str::from_utf8(&body[nl + 1..]).ok()?)
            });
        // Only zones that exist are kept, so names from input cannot grow
        // the cache.
        if tz.is_some() {
            cache.lock().ok()?.insert(name.to_string(), tz);
        }
        tz
    }

    /// Parses a `TimeZone` setting as PostgreSQL does for the forms we
    /// support: UTC names (`UTC`, `GMT`, `Zulu`, `Etc/UTC`...), a plain
    /// number of hours (`+05`, `-8`, `5.5`: ISO sign, east positive), and
    /// POSIX forms (`UTC+5`, `+05:30`, `Etc/GMT+3`: POSIX sign, *west*
    /// positive), and named zones of the tz database with their history.
    pub fn parse(name: &str) -> Option<TimeZone> {
        TimeZone::parse_fixed(name).or_else(|| {
            let name = name.trim();
            let tz = TimeZone::named(name)?;
            Some(TimeZone {
                history: crate::tz_abbrevs::history_ref(name),
                ..tz
            })
        })
    }

    /// [`TimeZone::parse`] with a named zone's current rule alone (no
    /// history): what a TZif file's footer says.
    pub(crate) fn parse_rule(name: &str) -> Option<TimeZone> {
        TimeZone::parse_fixed(name).or_else(|| TimeZone::named(name.trim()))
    }

    fn parse_fixed(name: &str) -> Option<TimeZone> {
        let s = name.trim().to_ascii_lowercase();
        if matches!(
            s.as_str(),
            "utc"
                | "gmt"
                | "zulu"
                | "uct"
                | "universal"
                | "etc/utc"
                | "etc/gmt"
                | "etc/universal"
                | "etc/zulu"
                | "gmt0"
        ) {
            return Some(TimeZone::UTC);
        }
        if let Ok(h) = s.parse::<f64>() {
            if h.is_finite() && h.abs() < 168.0 {
                return Some(TimeZone::fixed((h * 3600.0).round() as i32));
            }
            return None;
        }
        let rest = s.strip_prefix("etc/").unwrap_or(&s);
        let alpha = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        if alpha > 0 && alpha < 3 {
            return None;
        }
        let offset = parse_hms_offset(&rest[alpha..])?;
        // An unsigned offset is POSIX too when it has minutes ('00:30' is
        // -00:30); a bare number was read as ISO hours above.
        if alpha == 0 && !rest.starts_with(['+', '-']) && !rest.contains(':') {
            return None;
        }
        Some(TimeZone::fixed(-offset))
    }

    /// `+00`, `+05:30`, `-03:00:15` as timestamptz output shows it.
    pub(crate) fn format_offset(offset_secs: i32) -> String {
        let sign = if offset_secs < 0 { '-' } else { '+' };
        let a = offset_secs.unsigned_abs();
        let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
        match (m, s) {
            (0, 0) => format!("{sign}{h:02}"),
            (_, 0) => format!("{sign}{h:02}:{m:02}"),
            _ => format!("{sign}{h:02}:{m:02}:{s:02}"),
        }
    }
}

/// `[+-]h[:mm[:ss]]` or `[+-]hhmm` in seconds (sign as written).
pub(crate) fn parse_hms_offset(s: &str) -> Option<i32> {
    let (neg, body) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        b'0'..=b'9' => (false, s),
        _ => return None,
    };
    let parts: Vec<&str> = body.split(':').collect();
    let num = |p: &str| -> Option<i32> {
        if p.is_empty() || p.len() > 2 || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        p.parse().ok()
    };
    let secs = match parts.as_slice() {
        [h] if h.len() == 4 && h.bytes().all(|c| c.is_ascii_digit()) => {
            num(&h[..2])? * 3600 + num(&h[2..])? * 60
        }
        [h] => num(h)? * 3600,
        [h, m] => num(h)? * 3600 + num(m)? * 60,
        [h, m, sec] => num(h)? * 3600 + num(m)? * 60 + num(sec)?,
        _ => return None,
    };
    if secs > 15 * 3600 + 59 * 60 + 59 {
        return None;
    }
    Some(if neg { -secs } else { secs })
}

/// AdjustTimestampForTypmod: a finite timestamp rounded to `precision`
/// fractional digits (None or 6: unchanged), halves away from zero.
pub fn round_timestamp(ts: i64, precision: Option<u32>) -> i64 {
    let Some(p) = precision.filter(|&p| p < 6) else {
        return ts;
    };
    if ts == TS_NOBEGIN || ts == TS_NOEND {
        return ts;
    }
    let scale = 10i64.pow(6 - p);
    let half = scale / 2;
    if ts >= 0 {
        (ts + half) / scale * scale
    } else {
        -((-ts + half) / scale * scale)
    }
}

/// Julian day number of a (proleptic Gregorian) date; year 0 is 1 BC.
pub(crate) fn date2j(year: i64, month: i64, day: i64) -> i64 {
    let (m, y) = if month > 2 {
        (month + 1, year + 4800)
    } else {
        (month + 13, year + 4799)
    };
    let century = y.div_euclid(100);
    y * 365 - 32167 + y.div_euclid(4) - century + century.div_euclid(4) + 7834 * m / 256 + day
}

/// Inverse of [`date2j`] for Julian days >= 0.
pub(crate) fn j2date(jd: i64) -> (i64, u32, u32) {
    let mut julian = jd + 32044;
    let mut quad = julian.div_euclid(146097);
    let extra = (julian - quad * 146097) * 4 + 3;
    julian += 60 + quad * 3 + extra.div_euclid(146097);
    quad = julian.div_euclid(1461);
    julian -= quad * 1461;
    let mut y = julian * 4 / 1461;
    julian = if y != 0 {
        (julian + 305) % 365
    } else {
        (julian + 306) % 366
    } + 123;
    y += quad * 4;
    let q = julian * 2141 / 65536;
    let day = julian - 7834 * q / 256;
    let month = (q + 10) % 12 + 1;
    (y - 4800, month as u32, day as u32)
}

pub(crate) fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Days since 2000-01-01 for a date, if in range.
pub(crate) fn date_from_ymd(year: i64, month: u32, day: u32) -> Option<i32> {
    let jd = date2j(year, month as i64, day as i64);
    if (DATE_MIN_JD..DATE_END_JD).contains(&jd) {
        Some((jd - POSTGRES_EPOCH_JDATE) as i32)
    } else {
        None
    }
}

/// Year, month, day of a finite date.
pub(crate) fn date_to_ymd(date: i32) -> (i64, u32, u32) {
    j2date(date as i64 + POSTGRES_EPOCH_JDATE)
}

/// Is a finite date within PostgreSQL's range?
pub(crate) fn date_in_range(date: i32) -> bool {
    (DATE_MIN_JD..DATE_END_JD).contains(&(date as i64 + POSTGRES_EPOCH_JDATE))
}

/// Is a timestamp (finite) within PostgreSQL's range?
pub(crate) fn timestamp_in_range(ts: i64) -> bool {
    (MIN_TIMESTAMP..END_TIMESTAMP).contains(&ts)
}

fn write_ymd(out: &mut String, y: i64, m: u32, d: u32) {
    let year = if y > 0 { y } else { 1 - y };
    let _ = write!(out, "{year:04}-{m:02}-{d:02}");
}

pub(crate) fn write_time(out: &mut String, micros_of_day: i64) {
    let secs = micros_of_day / USECS_PER_SEC;
    let frac = micros_of_day % USECS_PER_SEC;
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    write_fraction(out, frac);
}

fn write_fraction(out: &mut String, frac: i64) {
    if frac != 0 {
        let f = format!("{:06}", frac.abs());
        let _ = write!(out, ".{}", f.trim_end_matches('0'));
    }
}

pub(crate) fn format_date(date: i32, style: DateStyle) -> String {
    match date {
        DATE_NOBEGIN => "-infinity".into(),
        DATE_NOEND => "infinity".into(),
        _ => {
            let (y, m, d) = date_to_ymd(date);
            let mut s = String::with_capacity(16);
            if style.output == DateOutput::Iso {
                write_ymd(&mut s, y, m, d);
                if y <= 0 {
                    s.push_str(" BC");
                }
            } else {
                let f = Fields {
                    year: y,
                    month: m,
                    day: d,
                    jd: date as i64 + POSTGRES_EPOCH_JDATE,
                    micros_of_day: 0,
                };
                datestyle::write_date(&mut s, &f, style);
            }
            s
        }
    }
}

fn format_ts_local(local: i64, zone: Option<i32>) -> String {
    let days = local.div_euclid(USECS_PER_DAY);
    let tod = local.rem_euclid(USECS_PER_DAY);
    let (y, m, d) = j2date(days + POSTGRES_EPOCH_JDATE);
    let mut s = String::with_capacity(32);
    write_ymd(&mut s, y, m, d);
    s.push(' ');
    write_time(&mut s, tod);
    if let Some(off) = zone {
        s.push_str(&TimeZone::format_offset(off));
    }
    if y <= 0 {
        s.push_str(" BC");
    }
    s
}

/// A local timestamp in a non-ISO DateStyle; `zone` names the zone
/// (timestamptz).
fn format_ts_styled(local: i64, zone: Option<&str>, style: DateStyle) -> String {
    let days = local.div_euclid(USECS_PER_DAY);
    let jd = days + POSTGRES_EPOCH_JDATE;
    let (year, month, day) = j2date(jd);
    let f = Fields {
        year,
        month,
        day,
        jd,
        micros_of_day: local.rem_euclid(USECS_PER_DAY),
    };
    let mut s = String::with_capacity(40);
    datestyle::write_timestamp(&mut s, &f, zone, style);
    s
}

pub(crate) fn format_timestamp(ts: i64, style: DateStyle) -> String {
    match ts {
        TS_NOBEGIN => "-infinity".into(),
        TS_NOEND => "infinity".into(),
        _ if style.output == DateOutput::Iso => format_ts_local(ts, None),
        _ => format_ts_styled(ts, None, style),
    }
}

pub(crate) fn format_timestamptz(ts: i64, tz: TimeZone, style: DateStyle) -> String {
    match ts {
        TS_NOBEGIN => "-infinity".into(),
        TS_NOEND => "infinity".into(),
        _ => {
            let off = tz.offset_at_utc(ts);
            let local = ts.saturating_add(off as i64 * USECS_PER_SEC);
            if style.output == DateOutput::Iso {
                format_ts_local(local, Some(off))
            } else {
                let name = datestyle::zone_name(tz.abbrev_at_utc(ts), off);
                format_ts_styled(local, Some(&name), style)
            }
        }
    }
}

/// A POSIX TZ string: `STDoffset[DST[offset][,rule,rule]]`, names plain
/// or in angle brackets, offsets west-positive `[+-]h[:mm[:ss]]`, rules in
/// the `Mm.w.d[/time]` form only.
pub(crate) fn parse_posix_tz(s: &str) -> Option<TimeZone> {
    /// The zone name and what follows it.
    fn name(s: &str) -> Option<(&str, &str)> {
        if let Some(rest) = s.strip_prefix('<') {
            let end = rest.find('>')?;
            return Some((&rest[..end], &rest[end + 1..]));
        }
        let n = s.bytes().take_while(u8::is_ascii_alphabetic).count();
        (n >= 3).then(|| (&s[..n], &s[n..]))
    }
    fn hms(s: &str) -> Option<(i32, &str)> {
        let (sign, body) = match s.as_bytes().first()? {
            b'-' => (-1, &s[1..]),
            b'+' => (1, &s[1..]),
            _ => (1, s),
        };
        let n = body
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b':')
            .count();
        if n == 0 {
            return None;
        }
        let mut secs = 0i32;
        for (i, part) in body[..n].split(':').enumerate() {
            let v: i32 = part.parse().ok()?;
            secs += v * [3600, 60, 1].get(i)?;
        }
        Some((sign * secs, &body[n..]))
    }
    fn rule(s: &str) -> Option<Transition> {
        let s = s.strip_prefix('M')?;
        let (date, time) = match s.split_once('/') {
            Some((d, t)) => (d, hms(t)?.0),
            None => (s, 7200),
        };
        let mut it = date.split('.').map(|p| p.parse::<u32>().ok());
        let (month, week, weekday) = (it.next()??, it.next()??, it.next()??);
        if !(1..=12).contains(&month) || !(1..=5).contains(&week) || weekday > 6 {
            return None;
        }
        Some(Transition {
            month,
            week,
            weekday,
            secs: time,
        })
    }
    let (std_name, rest) = name(s)?;
    let (std_west, rest) = hms(rest)?;
    if rest.is_empty() {
        return Some(TimeZone {
            abbrev: Abbrev::new(std_name),
            ..TimeZone::fixed(-std_west)
        });
    }
    let (dst_name, rest) = name(rest)?;
    let (dst_west, rest) = match hms(rest) {
        Some((o, r)) => (o, r),
        None => (std_west - 3600, rest),
    };
    let mut rules = rest.strip_prefix(',')?.split(',');
    let start = rule(rules.next()?)?;
    let end = rule(rules.next()?)?;
    Some(TimeZone {
        offset_secs: -std_west,
        dst: Some(DstRule {
            offset_secs: -dst_west,
            start,
            end,
            abbrev: Abbrev::new(dst_name),
        }),
        abbrev: Abbrev::new(std_name),
        history: None,
    })
}

/// IntervalStyle `postgres` output.
pub(crate) fn format_interval(iv: &Interval) -> String {
    let mut out = String::new();
    let mut is_zero = true;
    let mut is_before = false;
    let years = iv.months / 12;
    let mons = iv.months % 12;
    for (v, unit) in [(years, "year"), (mons, "mon"), (iv.days, "day")] {
        if v == 0 {
            continue;
        }
        let _ = write!(
            out,
            "{}{}{} {}{}",
            if is_zero { "" } else { " " },
            if is_before && v > 0 { "+" } else { "" },
            v,
            unit,
            if v != 1 { "s" } else { "" }
        );
        is_before = v < 0;
        is_zero = false;
    }
    if is_zero || iv.micros != 0 {
        let a = iv.micros.unsigned_abs();
        let secs = a / USECS_PER_SEC as u64;
        let _ = write!(
            out,
            "{}{}{:02}:{:02}:{:02}",
            if is_zero { "" } else { " " },
            if iv.micros < 0 {
                "-"
            } else if is_before {
                "+"
            } else {
                ""
            },
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
        write_fraction(&mut out, (a % USECS_PER_SEC as u64) as i64);
    }
    out
}

// ---------------------------------------------------------------------
// Input
//
// The input functions decode with `crate::datetime_input` (PostgreSQL's
// ParseDateTime / DecodeDateTime / DecodeTimeOnly / DecodeInterval) and
// turn its result into a value here, with PostgreSQL's range checks and
// messages. The ISO form `YYYY-MM-DD[ HH:MM[:SS[.ffffff]]][+HH[:MM]]` that
// COPY and literals mostly carry is read by [`parse_iso_fast`] first, which
// gives the same value as the decoder for every input it accepts and
// leaves everything else (and anything unusual in it) to the decoder.

use crate::datetime_input::{self as dtin, DType, DtErr, Zone};

fn syntax_err(type_name: &str, input: &str) -> DbError {
    DbError::new(
        SqlState::InvalidDatetimeFormat,
        format!("invalid input syntax for type {type_name}: \"{input}\""),
    )
}

fn field_range_err(input: &str) -> DbError {
    DbError::new(
        SqlState::DatetimeFieldOverflow,
        format!("date/time field value out of range: \"{input}\""),
    )
}

fn out_of_range(what: &str, input: &str) -> DbError {
    DbError::new(
        SqlState::DatetimeFieldOverflow,
        format!("{what} out of range: \"{input}\""),
    )
}

/// DateTimeParseError: a decoder failure as PostgreSQL reports it.
pub(crate) fn decode_error(e: DtErr, type_name: &str, input: &str) -> DbError {
    match e {
        DtErr::BadFormat => syntax_err(type_name, input),
        DtErr::FieldOverflow => field_range_err(input),
        DtErr::MdFieldOverflow => {
            field_range_err(input).with_hint("Perhaps you need a different \"datestyle\" setting.")
        }
        DtErr::TzDispOverflow => DbError::new(
            SqlState::InvalidTimeZoneDisplacementValue,
            format!("time zone displacement out of range: \"{input}\""),
        ),
        DtErr::UnknownZone(name) => DbError::new(
            SqlState::InvalidParameterValue,
            format!("time zone \"{name}\" not recognized"),
        ),
    }
}

/// IS_VALID_JULIAN: from 4714-11-01 BC up to (not including) 5874898-06-01.
fn valid_julian(y: i64, m: i64) -> bool {
    (y > -4713 || (y == -4713 && m >= 11)) && (y < 5_874_898 || (y == 5_874_898 && m < 6))
}

/// The fast path's reading of `input`: (year, month, day, microseconds of
/// the day, zone offset east), None when the input is not exactly the
/// plain ISO form (or has a value the decoder must judge: year 0, hour
/// 24, second 60, more than six fraction digits, an invalid day).
fn parse_iso_fast(input: &str) -> Option<(i64, i64, i64, i64, Option<i32>)> {
    let b = input.as_bytes();
    let d2 = |i: usize| -> Option<i64> {
        let (x, y) = (*b.get(i)?, *b.get(i + 1)?);
        (x.is_ascii_digit() && y.is_ascii_digit()).then(|| ((x - b'0') * 10 + (y - b'0')) as i64)
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = d2(0)? * 100 + d2(2)?;
    let (mon, day) = (d2(5)?, d2(8)?);
    if year == 0
        || !(1..=12).contains(&mon)
        || day < 1
        || day > days_in_month(year, mon as u32) as i64
    {
        return None;
    }
    let mut i = 10;
    let mut time = 0;
    if i < b.len() && (b[i] == b' ' || b[i] == b'T') {
        let (h, mi) = (d2(i + 1)?, d2(i + 4)?);
        if b.get(i + 3) != Some(&b':') || h > 23 || mi > 59 {
            return None;
        }
        i += 6;
        let mut sec = 0;
        let mut frac = 0;
        if b.get(i) == Some(&b':') {
            sec = d2(i + 1)?;
            if sec > 59 {
                return None;
            }
            i += 3;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let start = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    frac = frac * 10 + (b[i] - b'0') as i64;
                    i += 1;
                }
                let n = i - start;
                if n == 0 || n > 6 {
                    return None;
                }
                frac *= 10i64.pow(6 - n as u32);
            }
        }
        time = ((h * 60 + mi) * 60 + sec) * USECS_PER_SEC + frac;
    }
    let mut zone = None;
    // A zone only after a time: `-01` right after a date is part of the
    // date field for PostgreSQL (and an error).
    if i > 10 && matches!(b.get(i), Some(b'+' | b'-')) {
        let neg = b[i] == b'-';
        let h = d2(i + 1)?;
        i += 3;
        let mut mi = 0;
        if b.get(i) == Some(&b':') {
            mi = d2(i + 1)?;
            i += 3;
        }
        if h > 15 || mi > 59 {
            return None;
        }
        let east = ((h * 60 + mi) * 60) as i32;
        zone = Some(if neg { -east } else { east });
    }
    if i != b.len() {
        return None;
    }
    Some((year, mon, day, time, zone))
}

/// Date input. `now` is the transaction timestamp (UTC micros).
pub(crate) fn parse_date(
    input: &str,
    tz: TimeZone,
    now: i64,
    order: DateOrder,
) -> Result<i32, DbError> {
    if let Some((y, m, d, _, _)) = parse_iso_fast(input) {
        return date_from_ymd(y, m as u32, d as u32).ok_or_else(|| out_of_range("date", input));
    }
    let ctx = dtin::Ctx { order, tz, now };
    let p = dtin::decode_datetime_text(input, &ctx, dtin::DATE_BUF_LEN)
        .map_err(|e| decode_error(e, "date", input))?;
    match p.dtype {
        DType::Late => return Ok(DATE_NOEND),
        DType::Early => return Ok(DATE_NOBEGIN),
        DType::Epoch => return Ok(-10957),
        DType::Date => {}
    }
    let tm = p.tm;
    if !valid_julian(tm.year, tm.mon) {
        return Err(out_of_range("date", input));
    }
    date_from_ymd(tm.year, tm.mon as u32, tm.mday as u32).ok_or_else(|| out_of_range("date", input))
}

/// Timestamp (without time zone) input; a zone in the text is ignored.
pub(crate) fn parse_timestamp(
    input: &str,
    tz: TimeZone,
    now: i64,
    order: DateOrder,
) -> Result<i64, DbError> {
    parse_ts(input, "timestamp", (tz, now, order), false)
}

/// Timestamptz input; text without a zone is in the session zone `tz`.
pub(crate) fn parse_timestamptz(
    input: &str,
    tz: TimeZone,
    now: i64,
    order: DateOrder,
) -> Result<i64, DbError> {
    parse_ts(input, "timestamp with time zone", (tz, now, order), true)
}

/// tm2timestamp: a local timestamp from its fields, None when out of range.
fn local_timestamp(y: i64, m: i64, d: i64, time: i64) -> Option<i64> {
    if !valid_julian(y, m) {
        return None;
    }
    let date = date2j(y, m, d) - POSTGRES_EPOCH_JDATE;
    let ts = date.checked_mul(USECS_PER_DAY)?.checked_add(time)?;
    // Allow 1999-12-31 24:00:00 but not a wrapped time of day.
    if (ts < 0 && date > 0) || (ts > 0 && date < -1) {
        return None;
    }
    Some(ts)
}

fn parse_ts(
    input: &str,
    name: &str,
    (tz, now, order): (TimeZone, i64, DateOrder),
    with_tz: bool,
) -> Result<i64, DbError> {
    let range = || out_of_range("timestamp", input);
    let (local, zone) = match parse_iso_fast(input) {
        Some((y, m, d, time, off)) => (
            local_timestamp(y, m, d, time).ok_or_else(range)?,
            off.map(Zone::Offset),
        ),
        None => {
            let ctx = dtin::Ctx { order, tz, now };
            let p = dtin::decode_datetime_text(input, &ctx, dtin::TIMESTAMP_BUF_LEN)
                .map_err(|e| decode_error(e, name, input))?;
            match p.dtype {
                DType::Late => return Ok(TS_NOEND),
                DType::Early => return Ok(TS_NOBEGIN),
                // 1970-01-01 00:00:00 UTC for timestamptz, that local time
                // for timestamp: the same number either way.
                DType::Epoch => return Ok(UNIX_EPOCH_USECS),
                DType::Date => {}
            }
            let t = p.tm;
            let local =
                local_timestamp(t.year, t.mon, t.mday, t.time_of_day()).ok_or_else(range)?;
            (local, p.zone)
        }
    };
    let ts = if with_tz {
        let off = match &zone {
            Some(z) => z.offset_for_local(local),
            None => tz.offset_for_local(local),
        };
        local
            .checked_sub(off as i64 * USECS_PER_SEC)
            .ok_or_else(range)?
    } else {
        local
    };
    if !timestamp_in_range(ts) {
        return Err(range());
    }
    Ok(ts)
}

// ---------------------------------------------------------------------
// Interval input

/// Interval input: `1 year 2 mons`, `3 days 04:05:06`, `-1:30`, `10`
/// (seconds), `@ 1 day ago`, `1.5 days`, `1-2` (SQL year-month), and
/// ISO 8601 `P1Y2M3DT4H5M6S` / `P0001-02-03T04:05:06`.
pub fn parse_interval(input: &str) -> Result<Interval, DbError> {
    parse_interval_typmod(input, None, false)
}

/// interval_in for `interval(p)` / `interval <fields>`: a bare number is
/// in the restriction's last field, and the value is adjusted to the
/// typmod ([`IntervalMod`]).
///
/// Under IntervalStyle sql_standard (`sql_standard`), a leading minus with
/// no other explicit sign applies to every field, as DecodeInterval does:
/// `-1 2:03` is -1 days -02:03:00 there (and -1 days +02:03:00 otherwise).
pub fn parse_interval_typmod(
    input: &str,
    m: Option<IntervalMod>,
    sql_standard: bool,
) -> Result<Interval, DbError> {
    let range = m.map_or(dtin::range::FULL, IntervalMod::field_mask);
    let itm = dtin::decode_interval_text(input, range, sql_standard).map_err(|e| match e {
        DtErr::FieldOverflow => DbError::new(
            SqlState::IntervalFieldOverflow,
            format!("interval field value out of range: \"{input}\""),
        ),
        e => decode_error(e, "interval", input),
    })?;
    let iv = itm
        .to_interval()
        .ok_or_else(|| DbError::new(SqlState::DatetimeFieldOverflow, "interval out of range"))?;
    Ok(m.map_or(iv, |m| m.adjust(iv)))
}

// ---------------------------------------------------------------------
// Arithmetic

fn ts_out_of_range() -> DbError {
    DbError::new(SqlState::DatetimeFieldOverflow, "timestamp out of range")
}

/// Adds an interval to a local timestamp (months by calendar, clamping the
/// day to the month's end, then days, then microseconds).
pub(crate) fn timestamp_add_interval(ts: i64, iv: &Interval) -> Result<i64, DbError> {
    if ts == TS_NOBEGIN || ts == TS_NOEND {
        return Ok(ts);
    }
    let mut ts = ts;
    if iv.months != 0 || iv.days != 0 {
        let days = ts.div_euclid(USECS_PER_DAY);
        let tod = ts.rem_euclid(USECS_PER_DAY);
        let (mut y, mut m, mut d) = j2date(days + POSTGRES_EPOCH_JDATE);
        if iv.months != 0 {
            let total = y * 12 + (m as i64 - 1) + iv.months as i64;
            y = total.div_euclid(12);
            m = (total.rem_euclid(12) + 1) as u32;
            d = d.min(days_in_month(y, m));
        }
        if !(-4714..=294277).contains(&y) {
            return Err(ts_out_of_range());
        }
        let jd = date2j(y, m as i64, d as i64) + iv.days as i64;
        ts = (jd - POSTGRES_EPOCH_JDATE)
            .checked_mul(USECS_PER_DAY)
            .and_then(|x| x.checked_add(tod))
            .ok_or_else(ts_out_of_range)?;
    }
    let ts = ts.checked_add(iv.micros).ok_or_else(ts_out_of_range)?;
    if !timestamp_in_range(ts) {
        return Err(ts_out_of_range());
    }
    Ok(ts)
}

/// timestamptz + interval: calendar parts apply in the session zone.
pub(crate) fn timestamptz_add_interval(
    ts: i64,
    iv: &Interval,
    tz: TimeZone,
) -> Result<i64, DbError> {
    if ts == TS_NOBEGIN || ts == TS_NOEND {
        return Ok(ts);
    }
    let off = tz.offset_at_utc(ts) as i64 * USECS_PER_SEC;
    let local = timestamp_add_interval(ts + off, iv)?;
    Ok(local - tz.offset_for_local(local) as i64 * USECS_PER_SEC)
}

/// timestamp - timestamp, with days split off the microseconds
/// (PostgreSQL's timestamp_mi + justify_hours).
pub(crate) fn timestamp_diff(a: i64, b: i64) -> Result<Interval, DbError> {
    if [a, b].iter().any(|&x| x == TS_NOBEGIN || x == TS_NOEND) {
        return Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "cannot subtract infinite timestamps",
        ));
    }
    let diff = a
        .checked_sub(b)
        .ok_or_else(|| DbError::new(SqlState::DatetimeFieldOverflow, "interval out of range"))?;
    Ok(Interval::new(
        0,
        (diff / USECS_PER_DAY) as i32,
        diff % USECS_PER_DAY,
    ))
}

/// Local timestamp at midnight of a date (infinities map to infinities).
pub(crate) fn date_to_timestamp(date: i32) -> Result<i64, DbError> {
    match date {
        DATE_NOBEGIN => Ok(TS_NOBEGIN),
        DATE_NOEND => Ok(TS_NOEND),
        d => match (d as i64).checked_mul(USECS_PER_DAY) {
            Some(ts) if timestamp_in_range(ts) => Ok(ts),
            _ => Err(DbError::new(
                SqlState::DatetimeFieldOverflow,
                "date out of range for timestamp",
            )),
        },
    }
}

/// Date of a local timestamp.
pub(crate) fn timestamp_to_date(ts: i64) -> i32 {
    match ts {
        TS_NOBEGIN => DATE_NOBEGIN,
        TS_NOEND => DATE_NOEND,
        t => t.div_euclid(USECS_PER_DAY) as i32,
    }
}

/// date + integer days.
pub(crate) fn date_add_days(date: i32, days: i64) -> Result<i32, DbError> {
    if date == DATE_NOBEGIN || date == DATE_NOEND {
        return Ok(date);
    }
    let r = (date as i64).saturating_add(days);
    let jd = r.saturating_add(POSTGRES_EPOCH_JDATE);
    if (DATE_MIN_JD..DATE_END_JD).contains(&jd) {
        Ok(r as i32)
    } else {
        Err(DbError::new(
            SqlState::DatetimeFieldOverflow,
            "date out of range",
        ))
    }
}

#[cfg(test)]
mod postgres_form_tests {
    use super::*;

    #[test]
    fn postgres_style_output_reads_back() {
        let pst = TimeZone::parse("PST8PDT").unwrap();
        let style = DateStyle {
            output: DateOutput::Postgres,
            order: DateOrder::Mdy,
        };
        for text in [
            "Mon Feb 10 17:32:01 1997 PST",
            "Mon Jul 01 20:04:05.5 2024 PDT",
            "Tue Jan 15 04:00:00 0044 PST BC",
        ] {
            let ts = parse_timestamptz(text, pst, 0, DateOrder::Mdy).unwrap();
            assert_eq!(format_timestamptz(ts, pst, style), text);
        }
        let ts = parse_timestamp("Feb 10 17:32:01 1997", TimeZone::UTC, 0, DateOrder::Mdy);
        assert_eq!(
            format_timestamp(ts.unwrap(), DateStyle::ISO_MDY),
            "1997-02-10 17:32:01"
        );
        let ts = parse_timestamptz("1997-02-10 17:32:01 EST", TimeZone::UTC, 0, DateOrder::Mdy);
        assert_eq!(
            format_timestamptz(ts.unwrap(), TimeZone::UTC, DateStyle::ISO_MDY),
            "1997-02-10 22:32:01+00"
        );
        assert!(parse_timestamp("Mon Feb 10 17:32:01", TimeZone::UTC, 0, DateOrder::Mdy).is_err());
        // What PostgreSQL 15 gives for these (timestamptz shown in UTC).
        let tz = |s| {
            let v = parse_timestamptz(s, TimeZone::UTC, 0, DateOrder::Mdy).unwrap();
            format_timestamptz(v, TimeZone::UTC, DateStyle::ISO_MDY)
        };
        let ts = |s| {
            let v = parse_timestamp(s, TimeZone::fixed(3600), 0, DateOrder::Mdy).unwrap();
            format_timestamp(v, DateStyle::ISO_MDY)
        };
        assert_eq!(ts("epoch"), "1970-01-01 00:00:00");
        assert_eq!(tz("2000-03-15 08:14:01 GMT+8"), "2000-03-15 16:14:01+00");
        assert_eq!(tz("2000-03-15 02:14:05 MST+7:00"), "2000-03-15 09:14:05+00");
        assert_eq!(tz("2000-03-15 13:14:02 GMT-1"), "2000-03-15 12:14:02+00");
        assert_eq!(ts("19970210 173201"), "1997-02-10 17:32:01");
        assert_eq!(tz("19970210 173201 -0800"), "1997-02-11 01:32:01+00");
        assert_eq!(ts("19970210 1732"), "1997-02-10 17:32:00");
        assert_eq!(ts("Feb 10 5:32PM 1997"), "1997-02-10 17:32:00");
        assert_eq!(tz("Feb-10-1997 17:32:01 PST"), "1997-02-11 01:32:01+00");
        assert_eq!(ts("1997-02-10 12:00 am"), "1997-02-10 00:00:00");
        assert_eq!(ts("1997-02-10 12:30:01 pm"), "1997-02-10 12:30:01");
        assert!(parse_timestamp("1997-02-10 13:00 pm", TimeZone::UTC, 0, DateOrder::Mdy).is_err());
        assert_eq!(parse_interval("1-2").unwrap(), Interval::new(14, 0, 0));
        // A month name with two numbers follows the field order.
        let d =
            |s, o| parse_date(s, TimeZone::UTC, 0, o).map(|d| format_date(d, DateStyle::ISO_MDY));
        assert_eq!(d("Jan 08 99", DateOrder::Mdy).unwrap(), "1999-01-08");
        assert_eq!(d("08 Jan 99", DateOrder::Dmy).unwrap(), "1999-01-08");
        assert_eq!(d("99 Jan 08", DateOrder::Ymd).unwrap(), "1999-01-08");
        assert_eq!(d("1999 Jan 08", DateOrder::Mdy).unwrap(), "1999-01-08");
        assert!(d("Jan-08-99", DateOrder::Ymd).is_err());
        assert_eq!(d("January 8, 1999", DateOrder::Ymd).unwrap(), "1999-01-08");
        assert_eq!(d("08-Jan-1999", DateOrder::Ymd).unwrap(), "1999-01-08");
        assert!(d("January 8, 99 BC", DateOrder::Ymd).is_err());
        assert_eq!(parse_interval("-1-2").unwrap(), Interval::new(-14, 0, 0));
        let e = parse_interval("1-12").unwrap_err();
        assert_eq!(e.message, "interval field value out of range: \"1-12\"");
        assert!(parse_date("Mon", TimeZone::UTC, 0, DateOrder::Mdy).is_err());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn julian_days_round_trip() {
        assert_eq!(date2j(2000, 1, 1), POSTGRES_EPOCH_JDATE);
        assert_eq!(j2date(0), (-4713, 11, 24));
        for jd in (0..DATE_END_JD).step_by(9_999_991).chain([DATE_END_JD - 1]) {
            let (y, m, d) = j2date(jd);
            assert_eq!(date2j(y, m as i64, d as i64), jd);
        }
        assert_eq!(
            format_date(
                DATE_END_JD as i32 - POSTGRES_EPOCH_JDATE as i32 - 1,
                DateStyle::ISO_MDY
            ),
            "5874897-12-31"
        );
    }

    #[test]
    fn output_matches_postgres() {
        let ts =
            parse_timestamptz("2024-01-01 00:00:00+00", TimeZone::UTC, 0, DateOrder::Mdy).unwrap();
        assert_eq!(
            format_timestamptz(ts, TimeZone::fixed(5 * 3600), DateStyle::ISO_MDY),
            "2024-01-01 05:00:00+05"
        );
        assert_eq!(
            format_timestamptz(ts, TimeZone::fixed(-(5 * 3600 + 1800)), DateStyle::ISO_MDY),
            "2023-12-31 18:30:00-05:30"
        );
        let t = parse_timestamptz(
            "2024-01-01 00:00:00+05:30:15",
            TimeZone::UTC,
            0,
            DateOrder::Mdy,
        )
        .unwrap();
        assert_eq!(
            format_timestamptz(t, TimeZone::UTC, DateStyle::ISO_MDY),
            "2023-12-31 18:29:45+00"
        );
        let t =
            parse_timestamptz("0001-01-01 00:00:00+00", TimeZone::UTC, 0, DateOrder::Mdy).unwrap();
        let t = timestamp_add_interval(t, &Interval::new(0, 0, -USECS_PER_HOUR)).unwrap();
        assert_eq!(
            format_timestamptz(t, TimeZone::UTC, DateStyle::ISO_MDY),
            "0001-12-31 23:00:00+00 BC"
        );
        let t =
            parse_timestamptz("2024-01-01T10:11:12.5Z", TimeZone::UTC, 0, DateOrder::Mdy).unwrap();
        assert_eq!(
            format_timestamptz(t, TimeZone::UTC, DateStyle::ISO_MDY),
            "2024-01-01 10:11:12.5+00"
        );
        let ts = |s| {
            format_timestamp(
                parse_timestamp(s, TimeZone::UTC, 0, DateOrder::Mdy).unwrap(),
                DateStyle::ISO_MDY,
            )
        };
        assert_eq!(
            ts("2024-01-01 10:11:12.123456789"),
            "2024-01-01 10:11:12.123457"
        );
        assert_eq!(ts("2024-01-01 12:00 BC"), "2024-01-01 12:00:00 BC");
        assert_eq!(ts("2024-01-01 10:00 +02"), "2024-01-01 10:00:00");
        let d = |s| {
            format_date(
                parse_date(s, TimeZone::UTC, 0, DateOrder::Mdy).unwrap(),
                DateStyle::ISO_MDY,
            )
        };
        assert_eq!(d("20240102"), "2024-01-02");
        assert_eq!(d("1/2/2024"), "2024-01-02");
        assert_eq!(d("Jan 5 2024"), "2024-01-05");
        assert_eq!(d("5 january 2024"), "2024-01-05");
        assert_eq!(d("epoch"), "1970-01-01");
        assert_eq!(d("-infinity"), "-infinity");
    }

    #[test]
    fn input_errors_match_postgres() {
        let e = parse_date("2024-13-01", TimeZone::UTC, 0, DateOrder::Mdy).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                SqlState::DatetimeFieldOverflow,
                "date/time field value out of range: \"2024-13-01\""
            )
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("Perhaps you need a different \"datestyle\" setting.")
        );
        let e = parse_date("foo", TimeZone::UTC, 0, DateOrder::Mdy).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                SqlState::InvalidDatetimeFormat,
                "invalid input syntax for type date: \"foo\""
            )
        );
        let e = parse_timestamp("2024-02-30", TimeZone::UTC, 0, DateOrder::Mdy).unwrap_err();
        assert_eq!(
            e.message,
            "date/time field value out of range: \"2024-02-30\""
        );
        let e = parse_timestamp("300000-01-01", TimeZone::UTC, 0, DateOrder::Mdy).unwrap_err();
        assert_eq!(e.message, "timestamp out of range: \"300000-01-01\"");
        let e = parse_date("6000000-01-01", TimeZone::UTC, 0, DateOrder::Mdy).unwrap_err();
        assert_eq!(e.message, "date out of range: \"6000000-01-01\"");
        let e = parse_timestamp("2024-01-01 25:00", TimeZone::UTC, 0, DateOrder::Mdy).unwrap_err();
        assert_eq!(
            e.message,
            "date/time field value out of range: \"2024-01-01 25:00\""
        );
        for bad in [
            "",
            "2024-01-01 xx",
            "2024--01",
            "99999999999999999999-01-01",
        ] {
            assert!(
                parse_timestamp(bad, TimeZone::UTC, 0, DateOrder::Mdy).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn intervals_match_postgres() {
        let iv = |s| format_interval(&parse_interval(s).unwrap());
        assert_eq!(
            iv("1 year 2 months 3 days 4 hours 5 minutes 6.789 seconds"),
            "1 year 2 mons 3 days 04:05:06.789"
        );
        assert_eq!(iv("-1 days 2 hours"), "-1 days +02:00:00");
        assert_eq!(iv("1.5 years"), "1 year 6 mons");
        assert_eq!(iv("1.5 days"), "1 day 12:00:00");
        assert_eq!(iv("1.5 months"), "1 mon 15 days");
        assert_eq!(iv("@ 1 day ago"), "-1 days");
        assert_eq!(iv("P1Y2M3DT4H5M6S"), "1 year 2 mons 3 days 04:05:06");
        assert_eq!(iv("10"), "00:00:10");
        assert_eq!(iv("1:30"), "01:30:00");
        assert_eq!(iv("-1:30"), "-01:30:00");
        assert_eq!(iv("1 week"), "7 days");
        assert_eq!(iv("100 hours"), "100:00:00");
        assert_eq!(iv("0"), "00:00:00");
        assert_eq!(iv("-1 mon +1 day"), "-1 mons +1 day");
        assert_eq!(iv("1 day -00:00:01"), "1 day -00:00:01");
        assert_eq!(iv("-1 year -2 mons"), "-1 years -2 mons");
        assert_eq!(iv("0.000001 sec"), "00:00:00.000001");
        assert_eq!(iv("3 millennia 2 centuries 1 decade"), "3210 years");
        let e = parse_interval("foo").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                SqlState::InvalidDatetimeFormat,
                "invalid input syntax for type interval: \"foo\""
            )
        );
        assert!(parse_interval("2147483648 days").is_err());
        assert_eq!(
            parse_interval("1 mon").unwrap(),
            parse_interval("30 days").unwrap()
        );
    }

    #[test]
    fn time_zone_settings() {
        let off = |s| TimeZone::parse(s).map(|t| t.offset_secs);
        assert_eq!(off("+05"), Some(18000));
        assert_eq!(off("-8"), Some(-28800));
        assert_eq!(off("+05:30"), Some(-19800));
        assert_eq!(off("-05:30"), Some(19800));
        assert_eq!(off("UTC+5"), Some(-18000));
        assert_eq!(off("UTC-5:30"), Some(19800));
        assert_eq!(off("Etc/GMT+3"), Some(-10800));
        assert_eq!(off("zulu"), Some(0));
        assert_eq!(off("Z"), None);
        assert_eq!(off("No/Such_Zone"), None);
        assert_eq!(off("../etc/passwd"), None);
    }

    #[test]
    fn daylight_saving_rules() {
        let ny = parse_posix_tz("EST5EDT,M3.2.0,M11.1.0").unwrap();
        let utc = |s| parse_timestamp(s, TimeZone::UTC, 0, DateOrder::Mdy).unwrap();
        let local = utc;
        assert_eq!(ny.offset_at_utc(utc("2024-01-02 03:04:05")), -5 * 3600);
        assert_eq!(ny.offset_at_utc(utc("2024-07-02 03:04:05")), -4 * 3600);
        // 2024-03-10 02:00 EST = 07:00 UTC; 2024-11-03 02:00 EDT = 06:00 UTC.
        assert_eq!(ny.offset_at_utc(utc("2024-03-10 06:59:59")), -5 * 3600);
        assert_eq!(ny.offset_at_utc(utc("2024-03-10 07:00:00")), -4 * 3600);
        assert_eq!(ny.offset_at_utc(utc("2024-11-03 05:59:59")), -4 * 3600);
        assert_eq!(ny.offset_at_utc(utc("2024-11-03 06:00:00")), -5 * 3600);
        // The gap takes standard time, the overlap daylight time.
        assert_eq!(ny.offset_for_local(local("2024-03-10 02:30:00")), -5 * 3600);
        assert_eq!(ny.offset_for_local(local("2024-11-03 01:30:00")), -4 * 3600);
        assert_eq!(ny.offset_for_local(local("2024-12-03 01:30:00")), -5 * 3600);
        // Southern hemisphere (start after end in the year).
        let syd = parse_posix_tz("AEST-10AEDT,M10.1.0,M4.1.0/3").unwrap();
        assert_eq!(syd.offset_at_utc(utc("2024-01-15 00:00:00")), 11 * 3600);
        assert_eq!(syd.offset_at_utc(utc("2024-07-15 00:00:00")), 10 * 3600);
        let ist = parse_posix_tz("IST-5:30").unwrap();
        assert_eq!((ist.offset_secs, ist.dst), (19800, None));
        let teh = parse_posix_tz("<+0330>-3:30").unwrap();
        assert_eq!((teh.offset_secs, teh.dst), (12600, None));
        assert_eq!(teh.abbrev_at_utc(0), Some("+0330"));
        assert_eq!(ny.abbrev_at_utc(utc("2024-03-10 06:59:59")), Some("EST"));
        assert_eq!(ny.abbrev_at_utc(utc("2024-03-10 07:00:00")), Some("EDT"));
        assert_eq!(TimeZone::UTC.abbrev_at_utc(0), None);
    }

    #[test]
    fn arithmetic() {
        let ts = |s| parse_timestamp(s, TimeZone::UTC, 0, DateOrder::Mdy).unwrap();
        let r = timestamp_add_interval(ts("2024-01-31"), &Interval::new(1, 0, 0)).unwrap();
        assert_eq!(
            format_timestamp(r, DateStyle::ISO_MDY),
            "2024-02-29 00:00:00"
        );
        let d = timestamp_diff(ts("2024-01-03 01:00"), ts("2024-01-01")).unwrap();
        assert_eq!(format_interval(&d), "2 days 01:00:00");
        let d = timestamp_diff(ts("2024-01-01"), ts("2024-01-03 01:00")).unwrap();
        assert_eq!(format_interval(&d), "-2 days -01:00:00");
        assert!(date_add_days(0, i64::MAX / 2).is_err());
        assert!(date_add_days(5, i64::MIN).is_err());
        assert!(date_add_days(5, i64::MAX).is_err());
    }
}
