//! The session state that value conversion depends on.
//!
//! Three things about a session change how values read and print: the
//! `TimeZone` setting (timestamptz output, zone-less timestamptz input,
//! `today`), the transaction timestamp (`now`, `today`) and
//! `extra_float_digits` (float output), DateStyle (date and timestamp
//! output, the field order of ambiguous date input) and IntervalStyle
//! (interval output); see [`crate::datestyle`]; bytea_output (hex or
//! escape).

use std::time::{SystemTime, UNIX_EPOCH};

use crate::datestyle::{DateStyle, IntervalStyle};
use crate::datetime::{TimeZone, UNIX_EPOCH_USECS};

/// Session settings for text I/O, casts and operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalCtx {
    pub time_zone: TimeZone,
    /// Transaction start time, microseconds since 2000-01-01 UTC.
    pub now: i64,
    /// extra_float_digits: > 0 prints floats shortest-exact (PostgreSQL
    /// 12+), <= 0 with 15 (6 for real) plus this many significant digits.
    pub extra_float_digits: i8,
    pub date_style: DateStyle,
    pub interval_style: IntervalStyle,
    /// bytea_output = escape (false: hex, the default).
    pub bytea_escape: bool,
    /// default_text_search_config, as its configuration's OID (the
    /// one-argument to_tsvector and to_tsquery forms use it).
    pub ts_config: u32,
}

impl EvalCtx {
    pub const fn new(time_zone: TimeZone, now: i64) -> EvalCtx {
        EvalCtx {
            time_zone,
            now,
            extra_float_digits: 1,
            date_style: DateStyle::ISO_MDY,
            interval_style: IntervalStyle::Postgres,
            bytea_escape: false,
            ts_config: crate::tsearch::config::ENGLISH_OID,
        }
    }

    pub fn with_bytea_escape(self, bytea_escape: bool) -> EvalCtx {
        EvalCtx {
            bytea_escape,
            ..self
        }
    }

    pub fn with_ts_config(self, ts_config: u32) -> EvalCtx {
        EvalCtx { ts_config, ..self }
    }

    pub fn with_extra_float_digits(self, extra_float_digits: i8) -> EvalCtx {
        EvalCtx {
            extra_float_digits,
            ..self
        }
    }

    pub fn with_styles(self, date_style: DateStyle, interval_style: IntervalStyle) -> EvalCtx {
        EvalCtx {
            date_style,
            interval_style,
            ..self
        }
    }

    /// UTC with the current system time as `now` (tests, tools).
    pub fn utc_now() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, system_now())
    }
}

impl Default for EvalCtx {
    fn default() -> Self {
        EvalCtx::utc_now()
    }
}

/// The current time in microseconds since 2000-01-01 UTC.
pub fn system_now() -> i64 {
    let unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0);
    unix + UNIX_EPOCH_USECS
}
