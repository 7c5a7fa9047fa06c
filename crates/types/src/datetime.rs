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
//! the other styles are [`crate::datestyle`]'s. Input accepts the common forms: ISO 8601
//! (`2024-01-02 03:04:05.678+02`, `T` separator, `Z`), `MM/DD/YYYY` (or
//! DD/MM, YY/MM/DD as DateStyle's field order says),
//! `YYYYMMDD`, month names (`Jan 5 2024`, `5 January 2024`), `BC`, and the
//! special words `epoch`, `infinity`, `-infinity`, `now`, `today`,
//! `tomorrow`, `yesterday`.

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

    /// interval * float, cascading fractions down as PostgreSQL does.
    pub(crate) fn mul_f64(&self, f: f64) -> Option<Interval> {
        if f.is_nan() {
            return None;
        }
        let months = self.months as f64 * f;
        let days = self.days as f64 * f;
        let m = months.trunc();
        let day_total = days + (months - m) * 30.0;
        let d = day_total.trunc();
        let micros = self.micros as f64 * f + (day_total - d) * USECS_PER_DAY as f64;
        let fits = |x: f64, lo: f64, hi: f64| x >= lo && x <= hi;
        if !fits(m, i32::MIN as f64, i32::MAX as f64)
            || !fits(d, i32::MIN as f64, i32::MAX as f64)
            || !fits(micros.round(), -9.2e18, 9.2e18)
        {
            return None;
        }
        Some(Interval::new(m as i32, d as i32, micros.round() as i64))
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
fn parse_posix_tz(s: &str) -> Option<TimeZone> {
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

/// What a date/time string says, before range checks.
#[derive(Debug, Default)]
struct Parsed {
    special: Option<Special>,
    date: Option<(i64, u32, u32)>,
    time: Option<i64>,
    tz: Option<Zone>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Special {
    Epoch,
    Infinity,
    NegInfinity,
    Now,
    Today,
    Tomorrow,
    Yesterday,
}

enum ParseErr {
    Syntax,
    /// A zone name the tz database does not have (lower-cased, as
    /// PostgreSQL reports it).
    UnknownZone(String),
    Range,
    /// A month or day outside any calendar (PostgreSQL's
    /// DTERR_MD_FIELD_OVERFLOW, reported with a DateStyle hint).
    MdRange,
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn month_from_name(word: &str) -> Option<u32> {
    if word.len() < 3 {
        return None;
    }
    const FULL: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    (0..12)
        .find(|&i| word == MONTHS[i] || word == FULL[i] || (i == 8 && word == "sept"))
        .map(|i| i as u32 + 1)
}

/// A tiny cursor over the lower-cased input.
struct Cursor<'a> {
    s: &'a [u8],
    /// The input as written (`s` is it lower-cased, byte for byte).
    orig: &'a [u8],
    i: usize,
    /// The date's year was written with one or two digits.
    year2: bool,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn skip_spaces(&mut self) -> bool {
        let start = self.i;
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
        self.i > start
    }

    fn digits(&mut self) -> Option<&'a [u8]> {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        (self.i > start).then(|| &self.s[start..self.i])
    }

    fn word(&mut self) -> &'a str {
        let start = self.i;
        while matches!(self.peek(), Some(b'a'..=b'z')) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i]).unwrap_or("")
    }

    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }
}

fn num(d: &[u8]) -> Result<i64, ParseErr> {
    if d.len() > 10 {
        return Err(ParseErr::Range);
    }
    Ok(d.iter().fold(0i64, |a, &c| a * 10 + (c - b'0') as i64))
}

/// The offset of a local time written with `zone` (else in the session's
/// zone `tz`).
fn zone_offset(zone: &Option<Zone>, local: i64, tz: &TimeZone) -> i32 {
    match zone {
        Some(Zone::Offset(o)) => *o,
        Some(Zone::Abbrev(name, kind)) => crate::tz_abbrevs::offset_for_local(name, *kind, local),
        Some(Zone::Named(name)) => crate::tz_abbrevs::zone_offset_for_local(name, local),
        None => tz.offset_for_local(local),
    }
}

/// `today EST`, `tomorrow zulu`: a day word followed by a zone.
fn special_with_zone(s: &str, orig: &[u8]) -> Result<Option<Parsed>, ParseErr> {
    let Some((word, rest)) = s.split_once(' ') else {
        return Ok(None);
    };
    let special = match special_word(word) {
        Some(sp @ (Special::Today | Special::Tomorrow | Special::Yesterday)) => sp,
        _ => return Ok(None),
    };
    let rest = rest.trim_start();
    let from = s.len() - rest.len();
    let mut c = Cursor {
        s: rest.as_bytes(),
        orig: orig.get(from..).unwrap_or_default(),
        i: 0,
        year2: false,
    };
    let tz = parse_zone(&mut c)?;
    c.skip_spaces();
    if tz.is_none() || !c.at_end() {
        return Ok(None);
    }
    Ok(Some(Parsed {
        special: Some(special),
        tz,
        ..Parsed::default()
    }))
}

fn special_word(s: &str) -> Option<Special> {
    Some(match s {
        "epoch" => Special::Epoch,
        "infinity" | "+infinity" => Special::Infinity,
        "-infinity" => Special::NegInfinity,
        "now" => Special::Now,
        "today" => Special::Today,
        "tomorrow" => Special::Tomorrow,
        "yesterday" => Special::Yesterday,
        _ => return None,
    })
}

/// A month or day field as u32 (anything large is out of range anyway).
fn small(v: i64) -> Result<u32, ParseErr> {
    u32::try_from(v)
        .ok()
        .filter(|&x| x < 100_000)
        .ok_or(ParseErr::Range)
}

/// A year field's value as written; `year2` notes a year of one or two
/// digits, which [`parse_datetime`] reads as 1970..2069 unless it is BC,
/// as PostgreSQL does.
fn year_field(d: &[u8], year2: &mut bool) -> Result<i64, ParseErr> {
    *year2 = d.len() <= 2;
    num(d)
}

/// `a/b/c` with a first field of one or two digits, read in the
/// DateStyle field order (`mid` is already a month when it was a name).
fn ordered_date(
    order: DateOrder,
    first: &[u8],
    mid: i64,
    mid_is_month: bool,
    third: &[u8],
    year2: &mut bool,
) -> Result<(i64, u32, u32), ParseErr> {
    if mid_is_month {
        return text_month_date(order, small(mid)?, first, third, year2);
    }
    let (a, c) = (num(first)?, num(third)?);
    Ok(match order {
        DateOrder::Ymd => (year_field(first, year2)?, small(mid)?, small(c)?),
        DateOrder::Dmy => (year_field(third, year2)?, small(mid)?, small(a)?),
        DateOrder::Mdy => (year_field(third, year2)?, small(a)?, small(mid)?),
    })
}

/// Does a month name follow the spaces at the cursor?
fn month_follows(c: &Cursor) -> bool {
    let rest = &c.s[c.i..];
    let start = rest.iter().take_while(|b| **b == b' ').count();
    let word = rest[start..]
        .iter()
        .take_while(|b| b.is_ascii_lowercase())
        .count();
    std::str::from_utf8(&rest[start..start + word])
        .ok()
        .and_then(month_from_name)
        .is_some()
}

/// A date with a month name and two numbers `a`, `b` (in the order
/// written), as DecodeNumber reads them: a number of three digits or more
/// is the year; otherwise the first is the year when DateStyle is YMD,
/// else the day.
fn text_month_date(
    order: DateOrder,
    month: u32,
    a: &[u8],
    b: &[u8],
    year2: &mut bool,
) -> Result<(i64, u32, u32), ParseErr> {
    if b.len() < 3 && (a.len() >= 3 || order == DateOrder::Ymd) {
        Ok((year_field(a, year2)?, month, small(num(b)?)?))
    } else {
        Ok((year_field(b, year2)?, month, small(num(a)?)?))
    }
}

fn parse_date_part(c: &mut Cursor, order: DateOrder) -> Result<(i64, u32, u32), ParseErr> {
    if matches!(c.peek(), Some(b'a'..=b'z')) {
        // Mon D[,] Y, or Mon-D-Y / Mon/D/Y
        let m = month_from_name(c.word()).ok_or(ParseErr::Syntax)?;
        let (a, b) = if let Some(sep @ (b'-' | b'/')) = c.peek() {
            c.i += 1;
            let a = c.digits().ok_or(ParseErr::Syntax)?;
            if !c.eat(sep) {
                return Err(ParseErr::Syntax);
            }
            (a, c.digits().ok_or(ParseErr::Syntax)?)
        } else {
            c.skip_spaces();
            let a = c.digits().ok_or(ParseErr::Syntax)?;
            c.eat(b',');
            c.skip_spaces();
            (a, c.digits().ok_or(ParseErr::Syntax)?)
        };
        return text_month_date(order, m, a, b, &mut c.year2);
    }
    let first = c.digits().ok_or(ParseErr::Syntax)?;
    match c.peek() {
        Some(sep @ (b'-' | b'/' | b'.')) => {
            c.i += 1;
            let second = c.digits();
            let month_word = if second.is_none() {
                Some(c.word())
            } else {
                None
            };
            if !c.eat(sep) {
                return Err(ParseErr::Syntax);
            }
            let third = c.digits().ok_or(ParseErr::Syntax)?;
            let mid = match (second, month_word) {
                (Some(d), _) => num(d)?,
                (None, Some(w)) => month_from_name(w).ok_or(ParseErr::Syntax)? as i64,
                _ => return Err(ParseErr::Syntax),
            };
            if first.len() < 3 {
                Ok(ordered_date(
                    order,
                    first,
                    mid,
                    month_word.is_some(),
                    third,
                    &mut c.year2,
                )?)
            } else {
                Ok((num(first)?, small(mid)?, small(num(third)?)?))
            }
        }
        Some(b' ') if month_follows(c) => {
            // D Mon Y, Y Mon D
            c.skip_spaces();
            let m = month_from_name(c.word()).ok_or(ParseErr::Syntax)?;
            c.skip_spaces();
            let b = c.digits().ok_or(ParseErr::Syntax)?;
            text_month_date(order, m, first, b, &mut c.year2)
        }
        _ if first.len() == 8 => Ok((
            num(&first[..4])?,
            small(num(&first[4..6])?)?,
            small(num(&first[6..])?)?,
        )),
        _ => Err(ParseErr::Syntax),
    }
}

/// A time of day: [`parse_clock`]'s forms or `HHMM[SS]` run together,
/// then an optional `AM`/`PM` (attached or after a space).
fn parse_time_part(c: &mut Cursor) -> Result<i64, ParseErr> {
    let rest = &c.s[c.i..];
    let run = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut t = if (run == 4 || run == 6) && rest.get(run) != Some(&b':') {
        let two = |k: usize| ((rest[k] - b'0') * 10 + (rest[k + 1] - b'0')) as i64;
        let (h, m, sec) = (two(0), two(2), if run == 6 { two(4) } else { 0 });
        c.i += run;
        if h > 24 || m > 59 || sec > 60 || (h == 24 && (m > 0 || sec > 0)) {
            return Err(ParseErr::Range);
        }
        ((h * 60 + m) * 60 + sec) * USECS_PER_SEC
    } else {
        parse_clock(c)?
    };
    let save = c.i;
    c.skip_spaces();
    // DecodeDateTime: an hour above 12 is out of range with AM/PM; 12 AM
    // is midnight, 12 PM noon.
    let half = USECS_PER_DAY / 2;
    let hour_is_12 = (half..half + USECS_PER_HOUR).contains(&t);
    match c.word() {
        "am" | "pm" if t >= half + USECS_PER_HOUR => return Err(ParseErr::Range),
        "am" if hour_is_12 => t -= half,
        "pm" if !hour_is_12 => t += half,
        "am" | "pm" => {}
        _ => c.i = save,
    }
    Ok(t)
}

/// HH:MM[:SS[.ffffff]] in microseconds.
fn parse_clock(c: &mut Cursor) -> Result<i64, ParseErr> {
    let h = num(c.digits().ok_or(ParseErr::Syntax)?)?;
    if !c.eat(b':') {
        return Err(ParseErr::Syntax);
    }
    let m = num(c.digits().ok_or(ParseErr::Syntax)?)?;
    let mut s = 0;
    let mut frac = 0;
    if c.eat(b':') {
        s = num(c.digits().ok_or(ParseErr::Syntax)?)?;
        if c.eat(b'.') {
            frac = parse_fraction_rint(c.digits().unwrap_or(b""));
        }
    }
    if h > 24 || m > 59 || s > 60 || (h == 24 && (m > 0 || s > 0 || frac > 0)) {
        return Err(ParseErr::Range);
    }
    Ok(((h * 60 + m) * 60 + s) * USECS_PER_SEC + frac)
}

/// Fractional-second digits to microseconds, rounding at the 7th digit.
pub(crate) fn parse_fraction(d: &[u8]) -> i64 {
    let mut micros = 0i64;
    for i in 0..6 {
        micros = micros * 10 + d.get(i).map_or(0, |&c| (c - b'0') as i64);
    }
    if d.get(6).is_some_and(|&c| c >= b'5') {
        micros += 1;
    }
    micros
}

/// Fractional-second digits of a time of day to microseconds as
/// ParseFractionalSecond does: `rint(strtod("0.ddd") * 1e6)`, so
/// `.1234565` (a double just below the half) is 123456.
fn parse_fraction_rint(d: &[u8]) -> i64 {
    let digits = std::str::from_utf8(d).unwrap_or("");
    let frac: f64 = format!("0.{digits}0").parse().unwrap_or(0.0);
    (frac * 1e6).round_ties_even() as i64
}

/// A zone written in a timestamp: an offset (seconds east), or an
/// abbreviation of the `Default` set (`crate::tz_abbrevs`), resolved once
/// the local time is known.
#[derive(Clone, Debug, PartialEq)]
enum Zone {
    Offset(i32),
    Abbrev(&'static str, crate::tz_abbrevs::Kind),
    /// A tz database zone (`America/New_York`), with its history.
    Named(String),
}

fn parse_zone(c: &mut Cursor) -> Result<Option<Zone>, ParseErr> {
    match c.peek() {
        Some(b'+' | b'-') => {
            let start = c.i;
            c.i += 1;
            while matches!(c.peek(), Some(b'0'..=b'9' | b':')) {
                c.i += 1;
            }
            let text = std::str::from_utf8(&c.s[start..c.i]).map_err(|_| ParseErr::Syntax)?;
            parse_hms_offset(text)
                .map(|o| Some(Zone::Offset(o)))
                .ok_or(ParseErr::Range)
        }
        Some(b'a'..=b'z') => {
            let save = c.i;
            match crate::tz_abbrevs::lookup(c.word()) {
                // `GMT+8`, `PST+8`, `MST+7:00`: a POSIX offset (west
                // positive), the abbreviation only decoration.
                Some(_) if matches!(c.peek(), Some(b'+' | b'-')) => Ok(match parse_zone(c)? {
                    Some(Zone::Offset(west)) => Some(Zone::Offset(-west)),
                    z => z,
                }),
                Some((name, kind)) => Ok(Some(Zone::Abbrev(name, kind))),
                None => {
                    c.i = save;
                    zone_name(c)
                }
            }
        }
        _ => Ok(None),
    }
}

/// A tz database zone name (`America/New_York`), read with its case; a
/// word that is no zone is left unread, unless it has a `/`, which only
/// a zone name has.
fn zone_name(c: &mut Cursor) -> Result<Option<Zone>, ParseErr> {
    let start = c.i;
    let mut end = start;
    while c
        .orig
        .get(end)
        .is_some_and(|b| b.is_ascii_alphanumeric() || b"/_+-".contains(b))
    {
        end += 1;
    }
    let name = std::str::from_utf8(&c.orig[start..end]).map_err(|_| ParseErr::Syntax)?;
    if crate::tz_abbrevs::zone_exists(name) {
        c.i = end;
        return Ok(Some(Zone::Named(name.to_string())));
    }
    if name.contains('/') {
        return Err(ParseErr::UnknownZone(name.to_ascii_lowercase()));
    }
    Ok(None)
}

/// A leading day of the week (`Mon`, `Monday,`), which PostgreSQL reads
/// and ignores.
fn skip_weekday(c: &mut Cursor) {
    const DAYS: [&str; 17] = [
        "sun",
        "sunday",
        "mon",
        "monday",
        "tue",
        "tues",
        "tuesday",
        "wed",
        "wednesday",
        "thu",
        "thur",
        "thurs",
        "thursday",
        "fri",
        "friday",
        "sat",
        "saturday",
    ];
    let save = c.i;
    if DAYS.contains(&c.word()) {
        c.eat(b',');
        if c.skip_spaces() {
            return;
        }
    }
    c.i = save;
}

/// (year, month, day), time of day, zone offset.
type PgForm = ((i64, u32, u32), i64, Option<Zone>);

/// The Postgres output style's own form, `Mon DD HH:MM[:SS[.f]]
/// YYYY [zone]` (after [`skip_weekday`]), as date, time, zone; None (and
/// the cursor unmoved) for anything else.
fn parse_postgres_form(c: &mut Cursor) -> Result<Option<PgForm>, ParseErr> {
    let save = c.i;
    let month = month_from_name(c.word());
    let day = month.and_then(|_| c.skip_spaces().then(|| c.digits()).flatten());
    let time_follows = c.skip_spaces() && {
        let rest = &c.s[c.i..];
        let run = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        (1..=2).contains(&run) && rest.get(run) == Some(&b':')
    };
    let (Some(m), Some(d), true) = (month, day, time_follows) else {
        c.i = save;
        return Ok(None);
    };
    let time = parse_time_part(c)?;
    if !c.skip_spaces() {
        return Err(ParseErr::Syntax);
    }
    // The zone may come before the year (`10:51:14 GMT-4 2001`).
    let mut tz = None;
    if !matches!(c.peek(), Some(b'0'..=b'9')) {
        tz = parse_zone(c)?;
        if tz.is_none() || !c.skip_spaces() {
            return Err(ParseErr::Syntax);
        }
    }
    let y = num(c.digits().ok_or(ParseErr::Syntax)?)?;
    c.skip_spaces();
    if tz.is_none() {
        tz = parse_zone(c)?;
    }
    Ok(Some(((y, m, small(num(d)?)?), time, tz)))
}

fn parse_datetime(input: &str, order: DateOrder) -> Result<Parsed, ParseErr> {
    let lower = input.trim().to_ascii_lowercase();
    if let Some(sp) = special_word(&lower) {
        return Ok(Parsed {
            special: Some(sp),
            ..Parsed::default()
        });
    }
    let orig = input.trim().as_bytes();
    if let Some(p) = special_with_zone(&lower, orig)? {
        return Ok(p);
    }
    let mut c = Cursor {
        s: lower.as_bytes(),
        orig,
        i: 0,
        year2: false,
    };
    let mut p = Parsed::default();
    skip_weekday(&mut c);
    let (mut y, m, d) = if let Some(pg) = parse_postgres_form(&mut c)? {
        p.time = Some(pg.1);
        p.tz = pg.2;
        pg.0
    } else {
        let (y, m, d) = parse_date_part(&mut c, order)?;
        // "2001-01-01-01" is no date (PostgreSQL reads the dashes as one
        // date field); a zone right after a date is "+01", or "-01" after
        // a space.
        if c.peek() == Some(b'-') {
            return Err(ParseErr::Syntax);
        }
        let had_sep = c.eat(b't') | c.skip_spaces();
        if had_sep && matches!(c.peek(), Some(b'0'..=b'9')) {
            p.time = Some(parse_time_part(&mut c)?);
            c.skip_spaces();
        }
        p.tz = parse_zone(&mut c)?;
        (y, m, d)
    };
    c.skip_spaces();
    let bc = match c.word() {
        "bc" => true,
        "ad" | "" => false,
        _ => return Err(ParseErr::Syntax),
    };
    if c.year2 && !bc {
        y += if y < 70 { 2000 } else { 1900 };
    }
    // Year 0 does not exist; 1 BC is year 0 inside.
    if y == 0 {
        return Err(ParseErr::Range);
    }
    if bc {
        y = 1 - y;
    }
    c.skip_spaces();
    if !c.at_end() {
        return Err(ParseErr::Syntax);
    }
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(ParseErr::MdRange);
    }
    if d > days_in_month(y, m) {
        return Err(ParseErr::Range);
    }
    p.date = Some((y, m, d));
    Ok(p)
}

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

fn parse_checked(type_name: &str, input: &str, order: DateOrder) -> Result<Parsed, DbError> {
    parse_datetime(input, order).map_err(|e| match e {
        ParseErr::Syntax => syntax_err(type_name, input),
        ParseErr::UnknownZone(name) => DbError::new(
            SqlState::InvalidParameterValue,
            format!("time zone \"{name}\" not recognized"),
        ),
        ParseErr::Range => field_range_err(input),
        ParseErr::MdRange => {
            field_range_err(input).with_hint("Perhaps you need a different \"datestyle\" setting.")
        }
    })
}

/// Local (session zone) timestamp of a special word, given `now` (UTC).
fn special_local(sp: Special, now: i64, tz: TimeZone) -> Option<i64> {
    let local_now = now + tz.offset_at_utc(now) as i64 * USECS_PER_SEC;
    let midnight = local_now.div_euclid(USECS_PER_DAY) * USECS_PER_DAY;
    Some(match sp {
        Special::Epoch => {
            UNIX_EPOCH_USECS + tz.offset_at_utc(UNIX_EPOCH_USECS) as i64 * USECS_PER_SEC
        }
        Special::Now => local_now,
        Special::Today => midnight,
        Special::Tomorrow => midnight + USECS_PER_DAY,
        Special::Yesterday => midnight - USECS_PER_DAY,
        Special::Infinity | Special::NegInfinity => return None,
    })
}

/// Date input. `now` is the transaction timestamp (UTC micros).
pub(crate) fn parse_date(
    input: &str,
    tz: TimeZone,
    now: i64,
    order: DateOrder,
) -> Result<i32, DbError> {
    let p = parse_checked("date", input, order)?;
    match p.special {
        Some(Special::Infinity) => return Ok(DATE_NOEND),
        Some(Special::NegInfinity) => return Ok(DATE_NOBEGIN),
        Some(Special::Epoch) => return Ok(-10957),
        Some(sp) => {
            let local = special_local(sp, now, tz).unwrap_or(0);
            return Ok(local.div_euclid(USECS_PER_DAY) as i32);
        }
        None => {}
    }
    let (y, m, d) = p.date.ok_or_else(|| syntax_err("date", input))?;
    date_from_ymd(y, m, d).ok_or_else(|| out_of_range("date", input))
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

fn parse_ts(
    input: &str,
    name: &str,
    (tz, now, order): (TimeZone, i64, DateOrder),
    with_tz: bool,
) -> Result<i64, DbError> {
    let p = parse_checked(name, input, order)?;
    // Saturating: a local time at the edge of the range must fail the
    // range check below, not overflow.
    let zone_shift = |local: i64, off: i32| local.saturating_sub(off as i64 * USECS_PER_SEC);
    match p.special {
        Some(Special::Infinity) => return Ok(TS_NOEND),
        Some(Special::NegInfinity) => return Ok(TS_NOBEGIN),
        Some(Special::Now) if with_tz => return Ok(now),
        // 1970-01-01 00:00:00 UTC for timestamptz, that local time for
        // timestamp: the same number either way.
        Some(Special::Epoch) => return Ok(UNIX_EPOCH_USECS),
        Some(sp) => {
            let local = special_local(sp, now, tz).unwrap_or(0);
            return Ok(if with_tz {
                zone_shift(local, zone_offset(&p.tz, local, &tz))
            } else {
                local
            });
        }
        None => {}
    }
    let (y, m, d) = p.date.ok_or_else(|| syntax_err(name, input))?;
    if !(-4713..=294277).contains(&y) {
        return Err(out_of_range("timestamp", input));
    }
    let days = date2j(y, m as i64, d as i64) - POSTGRES_EPOCH_JDATE;
    // Years up to 294277 pass the check above, but past 294247 the
    // microseconds do not fit an i64 (PostgreSQL: "timestamp out of range").
    let local = days
        .checked_mul(USECS_PER_DAY)
        .and_then(|us| us.checked_add(p.time.unwrap_or(0)))
        .ok_or_else(|| out_of_range("timestamp", input))?;
    let ts = if with_tz {
        zone_shift(local, zone_offset(&p.tz, local, &tz))
    } else {
        local
    };
    if !timestamp_in_range(ts) {
        return Err(out_of_range("timestamp", input));
    }
    Ok(ts)
}

// ---------------------------------------------------------------------
// Interval input

fn interval_syntax(input: &str) -> DbError {
    syntax_err("interval", input)
}

fn interval_range(input: &str) -> DbError {
    DbError::new(
        SqlState::DatetimeFieldOverflow,
        format!("interval field value out of range: \"{input}\""),
    )
}

/// Accumulates fields exactly, carrying each field's fraction down at once
/// as PostgreSQL's DecodeInterval does: fractional years/decades/...
/// become whole months (rounded), fractional months 30-day days, fractional
/// weeks and days become days plus microseconds. `mask` rejects a unit
/// given twice (`1 day 2 days` is a syntax error in PostgreSQL too).
#[derive(Default)]
struct IvAcc {
    months: i128,
    days: i128,
    micros: i128,
    mask: u32,
}

/// A parsed number: exact integer part and fraction, both with its sign.
struct Num {
    int: i128,
    frac: f64,
}

fn parse_num(text: &str) -> Option<Num> {
    let (neg, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits_ok = |d: &str| d.bytes().all(|c| c.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits_ok(int) || !digits_ok(frac) || int.len() > 30
    {
        return None;
    }
    let i: i128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let f: f64 = if frac.is_empty() {
        0.0
    } else {
        format!("0.{frac}").parse().ok()?
    };
    Some(if neg {
        Num { int: -i, frac: -f }
    } else {
        Num { int: i, frac: f }
    })
}

const M_YEAR: u32 = 1;
const M_MONTH: u32 = 2;
const M_DAY: u32 = 4;
const M_WEEK: u32 = 8;
const M_HOUR: u32 = 16;
const M_MINUTE: u32 = 32;
const M_SECOND: u32 = 64;
const M_MILLI: u32 = 128;
const M_MICRO: u32 = 256;
const M_DECADE: u32 = 512;
const M_CENTURY: u32 = 1024;
const M_MILLENNIUM: u32 = 2048;
const M_ALL_SECS: u32 = M_SECOND | M_MILLI | M_MICRO;

impl IvAcc {
    fn claim(&mut self, bits: u32) -> bool {
        if self.mask & bits != 0 {
            return false;
        }
        self.mask |= bits;
        true
    }

    fn add_micros(&mut self, n: &Num, factor: i128) {
        self.micros += n.int * factor + (n.frac * factor as f64).round_ties_even() as i128;
    }

    /// Adds `frac` days (already scaled): whole days, the rest as time.
    fn add_frac_days(&mut self, frac: f64) {
        let whole = frac.trunc();
        self.days += whole as i128;
        self.micros += ((frac - whole) * USECS_PER_DAY as f64).round_ties_even() as i128;
    }

    fn add_unit(&mut self, n: &Num, unit: &str) -> bool {
        let sec = USECS_PER_SEC as i128;
        let years = |acc: &mut IvAcc, bit: u32, scale: i128| {
            acc.months +=
                n.int * scale * 12 + (n.frac * (scale * 12) as f64).round_ties_even() as i128;
            acc.claim(bit)
        };
        match unit {
            "microsecond" | "microseconds" | "us" | "usec" | "usecs" | "useconds" => {
                self.add_micros(n, 1);
                self.claim(M_MICRO)
            }
            "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" | "mseconds" => {
                self.add_micros(n, 1000);
                self.claim(M_MILLI)
            }
            "second" | "seconds" | "s" | "sec" | "secs" => {
                self.add_micros(n, sec);
                self.claim(if n.frac == 0.0 { M_SECOND } else { M_ALL_SECS })
            }
            "minute" | "minutes" | "m" | "min" | "mins" => {
                self.add_micros(n, 60 * sec);
                self.claim(M_MINUTE)
            }
            "hour" | "hours" | "h" | "hr" | "hrs" => {
                self.add_micros(n, 3600 * sec);
                self.claim(M_HOUR)
            }
            "day" | "days" | "d" => {
                self.days += n.int;
                self.add_frac_days(n.frac);
                self.claim(M_DAY)
            }
            "week" | "weeks" | "w" => {
                self.days += n.int * 7;
                self.add_frac_days(n.frac * 7.0);
                self.claim(M_WEEK)
            }
            "month" | "months" | "mon" | "mons" => {
                self.months += n.int;
                self.add_frac_days(n.frac * 30.0);
                self.claim(M_MONTH)
            }
            "year" | "years" | "y" | "yr" | "yrs" => years(self, M_YEAR, 1),
            "decade" | "decades" => years(self, M_DECADE, 10),
            "century" | "centuries" | "c" => years(self, M_CENTURY, 100),
            "millennium" | "millennia" | "millenniums" => years(self, M_MILLENNIUM, 1000),
            _ => false,
        }
    }

    fn finish(self, negate: bool) -> Option<Interval> {
        let sign = if negate { -1 } else { 1 };
        Some(Interval::new(
            i32::try_from(self.months * sign).ok()?,
            i32::try_from(self.days * sign).ok()?,
            i64::try_from(self.micros * sign).ok()?,
        ))
    }
}

/// Interval input: `1 year 2 mons`, `3 days 04:05:06`, `-1:30`, `10`
/// (seconds), `@ 1 day ago`, `1.5 days`, and ISO 8601 `P1Y2M3DT4H5M6S`.
pub fn parse_interval(input: &str) -> Result<Interval, DbError> {
    parse_interval_in(input, None)
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
    let mut iv = parse_interval_in(input, m)?;
    if sql_standard && force_negative(input) {
        iv = Interval::new(-iv.months.abs(), -iv.days.abs(), -iv.micros.abs());
    }
    Ok(m.map_or(iv, |m| m.adjust(iv)))
}

/// A leading `-` and no other field with an explicit sign.
fn force_negative(input: &str) -> bool {
    let mut fields = input.split_whitespace();
    fields.next().is_some_and(|f| f.starts_with('-')) && !fields.any(|f| f.starts_with(['+', '-']))
}

fn parse_interval_in(input: &str, m: Option<IntervalMod>) -> Result<Interval, DbError> {
    let bare_unit = IntervalMod::bare_unit(m);
    let lower = input.trim().to_ascii_lowercase();
    if let Some(iso) = lower.strip_prefix('p') {
        return parse_iso_interval(iso)
            .ok_or_else(|| interval_syntax(input))?
            .finish(false)
            .ok_or_else(|| interval_range(input));
    }
    let mut acc = IvAcc::default();
    let mut negate = false;
    let mut any = false;
    let mut bare = 0;
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].trim_start_matches('@');
        i += 1;
        if t.is_empty() {
            continue;
        }
        if t == "ago" {
            negate = true;
            continue;
        }
        if t.contains(':') {
            let us = if IntervalMod::minutes_first(m) && t.matches(':').count() == 1 {
                let (sign, body) = t.split_at(usize::from(t.starts_with(['+', '-'])));
                parse_interval_time(&format!("{sign}0:{body}"))
            } else {
                parse_interval_time(t)
            };
            let us = us.ok_or_else(|| interval_syntax(input))?;
            if !acc.claim(M_HOUR | M_MINUTE | M_ALL_SECS) {
                return Err(interval_syntax(input));
            }
            acc.micros += us;
            any = true;
            continue;
        }
        // SQL's year-month literal: `1-2` is 1 year 2 months.
        if let Some(ym) = year_month(t) {
            let (years, months) = ym.ok_or_else(|| interval_range(input))?;
            let ok = acc.add_unit(&years, "year") && acc.add_unit(&months, "month");
            if !ok {
                return Err(interval_syntax(input));
            }
            any = true;
            continue;
        }
        // number, with the unit attached or in the next token
        let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
        let (n, attached) = t.split_at(split);
        let num = parse_num(n).ok_or_else(|| interval_syntax(input))?;
        let unit = if !attached.is_empty() {
            attached
        } else if i < tokens.len()
            && tokens[i].starts_with(|c: char| c.is_ascii_alphabetic())
            && tokens[i] != "ago"
        {
            i += 1;
            tokens[i - 1]
        } else if i < tokens.len() && tokens[i].contains(':') {
            // A number just before a time of day is days ('1 2:03').
            "day"
        } else {
            bare += 1;
            if bare > 1 && bare_unit != "second" {
                return Err(DbError::unsupported(format!(
                    "interval input \"{input}\" with several fields without units under a field restriction"
                )));
            }
            bare_unit
        };
        if !acc.add_unit(&num, unit) {
            return Err(interval_syntax(input));
        }
        any = true;
    }
    if !any {
        return Err(interval_syntax(input));
    }
    acc.finish(negate).ok_or_else(|| interval_range(input))
}

/// `[-+]Y-M`: the years and months, both with the sign; Some(None) when
/// M is 12 or more (out of range).
fn year_month(t: &str) -> Option<Option<(Num, Num)>> {
    let (sign, body) = t.split_at(usize::from(t.starts_with(['+', '-'])));
    let (y, m) = body.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(y) || !digits(m) {
        return None;
    }
    if m.parse::<u32>().ok()? >= 12 {
        return Some(None);
    }
    let num = |v: &str| parse_num(&format!("{sign}{v}"));
    Some(num(y).zip(num(m)))
}

/// `[-+]h:mm[:ss[.f]]` in microseconds, exactly.
fn parse_interval_time(t: &str) -> Option<i128> {
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let parts: Vec<&str> = body.split(':').collect();
    let int = |p: &str| -> Option<i128> {
        if p.is_empty() || p.len() > 20 || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        p.parse().ok()
    };
    let sec = |p: &str| -> Option<i128> {
        let (whole, frac) = p.split_once('.').unwrap_or((p, ""));
        if !frac.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        Some(int(whole)? * USECS_PER_SEC as i128 + parse_fraction(frac.as_bytes()) as i128)
    };
    let (h, m, s) = match parts.as_slice() {
        [h, m] => (int(h)?, 0, sec(m)? * 60),
        [h, m, s] => (int(h)?, int(m)?, sec(s)?),
        _ => return None,
    };
    let v = h * USECS_PER_HOUR as i128 + m * 60 * USECS_PER_SEC as i128 + s;
    Some(if neg { -v } else { v })
}

fn parse_iso_interval(s: &str) -> Option<IvAcc> {
    let mut acc = IvAcc::default();
    let mut in_time = false;
    let mut num = String::new();
    let mut any = false;
    for ch in s.chars() {
        match ch {
            't' if !in_time && num.is_empty() => in_time = true,
            '0'..='9' | '.' | '-' | '+' => num.push(ch),
            _ => {
                let v = parse_num(&num)?;
                num.clear();
                let unit = match (ch, in_time) {
                    ('y', false) => "year",
                    ('m', false) => "month",
                    ('w', false) => "week",
                    ('d', false) => "day",
                    ('h', true) => "hour",
                    ('m', true) => "minute",
                    ('s', true) => "second",
                    _ => return None,
                };
                if !acc.add_unit(&v, unit) {
                    return None;
                }
                any = true;
            }
        }
    }
    (num.is_empty() && any).then_some(acc)
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
