//! The server log: every line the server writes about its work (errors,
//! log_min_duration_statement, log_lock_waits, the long-transaction
//! warning, recovery and checkpoints, and the wire layer's own messages
//! through its `tracing` layer) goes through [`write`], in one of two
//! formats chosen once at start (`nestor --log-destination`):
//!
//! - `stderr` (the default): PostgreSQL's text lines without a prefix,
//!   `LOG:  duration: ...`, then `DETAIL:`, `HINT:`, `STATEMENT:` lines;
//! - `jsonlog`: PostgreSQL 15's jsonlog format, one JSON object per line
//!   with its key names and order (timestamp, user, dbname, pid,
//!   remote_host, remote_port, session_id, line_num, session_start, txid,
//!   error_severity, state_code, message, detail, hint, context,
//!   statement, cursor_position, application_name, backend_type); a key
//!   without a value is left out, as PostgreSQL does.
//!
//! Who a line is about. A session's identity ([`SessionLog`]: pid, user,
//! database, client address, start) is built once per connection; the
//! wire layer makes it the current thread's ([`scoped`]) while the
//! connection owns a thread, which happens once per burst of client
//! activity, not per statement. So a line written by any layer on that
//! thread (the lock table's `still waiting`, an executor's error) carries
//! the session's fields without passing them down; lines from background
//! threads carry none (PostgreSQL's postmaster and background workers)
//! unless the caller names the session. The per-line values that change
//! (the transaction id, application_name) are read from the session's
//! published state through [`LiveFields`] only when a line is written.
//!
//! Cost: nothing on the statement path. Writing a line locks standard
//! error once for the whole line (or object), so lines of concurrent
//! sessions never interleave.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

/// The server log's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PostgreSQL's text lines (`log_destination = 'stderr'`).
    Text,
    /// PostgreSQL 15's JSON lines (`log_destination = 'jsonlog'`).
    Json,
}

static FORMAT: AtomicU8 = AtomicU8::new(0);

/// Choose the format (at start, before any line is written).
pub fn set_format(f: Format) {
    FORMAT.store(f as u8, Ordering::Relaxed);
}

pub fn format() -> Format {
    if FORMAT.load(Ordering::Relaxed) == Format::Json as u8 {
        Format::Json
    } else {
        Format::Text
    }
}

/// What a session publishes that changes while it runs: read when a line
/// is written (implemented by the session registry's entry).
pub trait LiveFields: Send + Sync {
    /// The top-level transaction's id, 0 when it has none.
    fn txid(&self) -> u64;
    /// The session's application_name now.
    fn application_name(&self) -> String;
}

/// A session's identity in the log, built once per connection.
pub struct SessionLog {
    pub pid: u32,
    pub user: String,
    pub dbname: String,
    pub remote_host: Option<String>,
    pub remote_port: Option<u16>,
    /// The session's start, microseconds since the Unix epoch.
    pub start_unix_us: i64,
    /// PostgreSQL's `backend_type` ("client backend", "walsender").
    pub backend_type: &'static str,
    /// Lines written about this session so far (PostgreSQL's `%l`).
    line_num: AtomicU64,
    live: Option<Arc<dyn LiveFields>>,
}

impl SessionLog {
    pub fn new(
        pid: u32,
        user: String,
        dbname: String,
        remote_host: Option<String>,
        remote_port: Option<u16>,
        start_unix_us: i64,
        live: Option<Arc<dyn LiveFields>>,
    ) -> SessionLog {
        SessionLog {
            pid,
            user,
            dbname,
            remote_host,
            remote_port,
            start_unix_us,
            backend_type: "client backend",
            line_num: AtomicU64::new(0),
            live,
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<SessionLog>>> = const { RefCell::new(None) };
}

/// Run `f` with `session` as the current thread's session in the log (the
/// previous one is restored afterwards, also when `f` unwinds).
pub fn scoped<R>(session: &Arc<SessionLog>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<SessionLog>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            let _ = CURRENT.try_with(|c| *c.borrow_mut() = prev);
        }
    }
    let prev = CURRENT.with(|c| c.borrow_mut().replace(session.clone()));
    let _restore = Restore(prev);
    f()
}

/// One log line (with its DETAIL, HINT, ... lines in text form).
#[derive(Default)]
pub struct Line<'a> {
    /// PostgreSQL's severity name: LOG, WARNING, ERROR, FATAL, PANIC, ...
    pub severity: &'a str,
    pub state_code: Option<&'a str>,
    pub message: &'a str,
    pub detail: Option<&'a str>,
    pub hint: Option<&'a str>,
    pub context: Option<&'a str>,
    /// The statement that raised the error (log_min_error_statement).
    pub statement: Option<&'a str>,
    /// 1-based character position of the error in `statement`.
    pub cursor_position: Option<u32>,
    /// The session the line is about when it is not the current thread's
    /// (a background thread writing about a session).
    pub session: Option<&'a SessionLog>,
}

impl<'a> Line<'a> {
    pub fn new(severity: &'a str, message: &'a str) -> Line<'a> {
        Line {
            severity,
            message,
            ..Line::default()
        }
    }

    pub fn detail(mut self, detail: &'a str) -> Line<'a> {
        self.detail = Some(detail);
        self
    }
}

/// Write a LOG line.
pub fn log(message: &str) {
    write(&Line::new("LOG", message));
}

/// Write a WARNING line.
pub fn warning(message: &str) {
    write(&Line::new("WARNING", message));
}

/// Write one line in the chosen format.
pub fn write(line: &Line<'_>) {
    let text = match format() {
        Format::Text => text(line),
        Format::Json => match line.session {
            Some(s) => json(line, Some(s), unix_now_us()),
            None => {
                let current = CURRENT.try_with(|c| c.borrow().clone()).ok().flatten();
                json(line, current.as_deref(), unix_now_us())
            }
        },
    };
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
}

/// PostgreSQL's text form: `SEVERITY:  message` and one line per field.
fn text(line: &Line<'_>) -> String {
    let mut out = format!("{}:  {}\n", line.severity, line.message);
    for (name, value) in [
        ("DETAIL", line.detail),
        ("HINT", line.hint),
        ("CONTEXT", line.context),
        ("STATEMENT", line.statement),
    ] {
        if let Some(v) = value {
            let _ = writeln!(out, "{name}:  {v}");
        }
    }
    out
}

/// Microseconds since the Unix epoch.
pub fn unix_now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// PostgreSQL's jsonlog object for `line`, written at `now_us` (Unix
/// microseconds), about `session` if any.
fn json(line: &Line<'_>, session: Option<&SessionLog>, now_us: i64) -> String {
    let mut o = Obj(String::with_capacity(256));
    o.0.push('{');
    o.str("timestamp", &timestamp(now_us, true));
    if let Some(s) = session {
        o.str("user", &s.user);
        o.str("dbname", &s.dbname);
    }
    o.num("pid", session.map_or(std::process::id(), |s| s.pid));
    if let Some(s) = session {
        if let Some(h) = &s.remote_host {
            o.str("remote_host", h);
        }
        if let Some(p) = s.remote_port {
            o.num("remote_port", p);
        }
    }
    let (start_us, pid) = match session {
        Some(s) => (s.start_unix_us, s.pid),
        None => (process_start_us(), std::process::id()),
    };
    o.str(
        "session_id",
        &format!("{:x}.{:x}", start_us.div_euclid(1_000_000), pid),
    );
    let line_num = match session {
        Some(s) => s.line_num.fetch_add(1, Ordering::Relaxed) + 1,
        None => PROCESS_LINES.fetch_add(1, Ordering::Relaxed) + 1,
    };
    o.num("line_num", line_num);
    o.str("session_start", &timestamp(start_us, false));
    let live = session.and_then(|s| s.live.as_ref());
    o.num("txid", live.map_or(0, |l| l.txid()));
    o.str("error_severity", line.severity);
    if let Some(c) = line.state_code {
        o.str("state_code", c);
    }
    o.str("message", line.message);
    for (key, value) in [
        ("detail", line.detail),
        ("hint", line.hint),
        ("context", line.context),
        ("statement", line.statement),
    ] {
        if let Some(v) = value {
            o.str(key, v);
        }
    }
    if let Some(p) = line.cursor_position {
        o.num("cursor_position", p);
    }
    if let Some(l) = live {
        let app = l.application_name();
        if !app.is_empty() {
            o.str("application_name", &app);
        }
    }
    o.str(
        "backend_type",
        session.map_or("postmaster", |s| s.backend_type),
    );
    o.0.push_str("}\n");
    o.0
}

/// Lines written by the process itself (no session).
static PROCESS_LINES: AtomicU64 = AtomicU64::new(0);
/// When the process started (Unix microseconds), set by the first line.
static PROCESS_START_US: AtomicU64 = AtomicU64::new(0);

/// The process's start for its `session_id` and `session_start`: the
/// first call's time (the server calls [`mark_process_start`] at once).
fn process_start_us() -> i64 {
    mark_process_start();
    PROCESS_START_US.load(Ordering::Relaxed) as i64
}

/// Remember now as the process's start, unless already done.
pub fn mark_process_start() {
    let _ = PROCESS_START_US.compare_exchange(
        0,
        unix_now_us().max(1) as u64,
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
}

/// A JSON object under construction (the `{` written, keys appended).
struct Obj(String);

impl Obj {
    fn key(&mut self, key: &str) {
        if !self.0.ends_with('{') {
            self.0.push(',');
        }
        self.0.push('"');
        self.0.push_str(key);
        self.0.push_str("\":");
    }

    fn str(&mut self, key: &str, value: &str) {
        self.key(key);
        escape_into(&mut self.0, value);
    }

    fn num(&mut self, key: &str, value: impl std::fmt::Display) {
        self.key(key);
        let _ = write!(self.0, "{value}");
    }
}

/// `value` as a JSON string.
fn escape_into(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// PostgreSQL's log timestamp in UTC: `2026-11-26 06:56:12.776 UTC`
/// (`%m`), or without the milliseconds (`%s`, session_start).
fn timestamp(unix_us: i64, millis: bool) -> String {
    let secs = unix_us.div_euclid(1_000_000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    if millis {
        let ms = unix_us.rem_euclid(1_000_000) / 1000;
        format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02}.{ms:03} UTC")
    } else {
        format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02} UTC")
    }
}

/// The proleptic Gregorian date of a day number (days since 1970-01-01),
/// Howard Hinnant's `civil_from_days`.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Live;
    impl LiveFields for Live {
        fn txid(&self) -> u64 {
            724
        }
        fn application_name(&self) -> String {
            "psql".into()
        }
    }

    #[test]
    fn timestamps_as_postgresql_writes_them() {
        assert_eq!(timestamp(0, true), "1970-01-01 00:00:00.000 UTC");
        // 2026-11-26 06:56:12.776 UTC
        let t = 1_795_676_172_776_000;
        assert_eq!(timestamp(t, true), "2026-11-26 06:56:12.776 UTC");
        assert_eq!(timestamp(t, false), "2026-11-26 06:56:12 UTC");
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn text_lines() {
        let mut l = Line::new("ERROR", "division by zero");
        l.statement = Some("select 1/0");
        l.state_code = Some("22012");
        assert_eq!(
            text(&l),
            "ERROR:  division by zero\nSTATEMENT:  select 1/0\n"
        );
    }

    #[test]
    fn json_objects_have_postgresql_keys_in_order() {
        let s = SessionLog::new(
            342,
            "postgres".into(),
            "rt".into(),
            Some("127.0.0.1".into()),
            Some(40066),
            1_795_676_172_000_000,
            Some(Arc::new(Live)),
        );
        let mut l = Line::new("ERROR", "column \"x\" does not exist");
        l.state_code = Some("42703");
        l.statement = Some("select x\n");
        l.cursor_position = Some(8);
        let j = json(&l, Some(&s), 1_795_676_172_776_000);
        assert_eq!(
            j,
            "{\"timestamp\":\"2026-11-26 06:56:12.776 UTC\",\"user\":\"postgres\",\"dbname\":\"rt\",\
             \"pid\":342,\"remote_host\":\"127.0.0.1\",\"remote_port\":40066,\
             \"session_id\":\"6b07d80c.156\",\"line_num\":1,\
             \"session_start\":\"2026-11-26 06:56:12 UTC\",\"txid\":724,\
             \"error_severity\":\"ERROR\",\"state_code\":\"42703\",\
             \"message\":\"column \\\"x\\\" does not exist\",\"statement\":\"select x\\n\",\
             \"cursor_position\":8,\"application_name\":\"psql\",\
             \"backend_type\":\"client backend\"}\n"
        );
        // The session's line numbers count on.
        assert!(json(&l, Some(&s), 0).contains("\"line_num\":2,"));
    }
}
