//! Prometheus metrics over HTTP (`--metrics-listen ADDR:PORT`): `GET
//! /metrics` answers the text exposition format, version 0.0.4; any other
//! path gets 404.
//!
//! What is served. Every value is read when scraped from counters the
//! server keeps anyway: the session registry (connections by state, the
//! oldest open transaction and the oldest held snapshot), the transaction
//! manager's horizons and the tables' dead-version counts (what the
//! pruner weighs), pg_stat_database's per-thread blocks
//! (`nestor_exec::stats`: transactions, rows, deadlocks, savepoints and
//! the two histograms), the WAL's relaxed counters (pg_stat_wal's source),
//! the lock table's wait counters (`nestor_txn::locks`) and the memory
//! budget's categories (nestor_memory's source). A scrape takes the same
//! locks a `SELECT` of those views takes, each for a few loads; nothing
//! on the SQL path waits for a scrape or does work for one beyond the
//! counters it kept before (the lock-wait counters are touched only by
//! requests that queue, the histograms live in the per-thread blocks).
//! The list of metrics, with their meaning and source, is in
//! docs/observability.md ("Prometheus metrics").
//!
//! Why a hand-written responder. The endpoint answers one GET with one
//! body and closes the connection. An HTTP library (hyper, axum, tiny_http)
//! would bring a server framework and tens of crates for that; the
//! `prometheus` / `metrics-exporter-prometheus` crates would bring their
//! own registries and atomics beside the counters the server already
//! keeps, which would then have to be copied into them at every scrape.
//! So the text format is written here (it is a few lines per metric) and
//! the HTTP/1.1 side is a bounded read of the request head on the tokio
//! runtime the server already runs. Being hand-written, it is bounded
//! explicitly (`nestor_common::limits`): a request head past
//! METRICS_REQUEST_BYTES_MAX gets 431, one not complete within
//! METRICS_REQUEST_MILLIS_MAX gets 408, a connection past
//! METRICS_CONNECTIONS_MAX at once is closed; a method other than GET gets
//! 405, a head that is not HTTP/1.x gets 400. Every response closes the
//! connection (no keep-alive: a scrape every few seconds does not need
//! it).

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use nestor_common::limits::{
    METRICS_CONNECTIONS_MAX, METRICS_REQUEST_BYTES_MAX, METRICS_REQUEST_MILLIS_MAX,
};
use nestor_durable::Engine;
use nestor_exec::stats::{Histogram, COMMIT_MICROS_BOUNDS, SAVEPOINTS_PER_XACT_BOUNDS};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The Content-Type of the text exposition format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Serve scrapes on `listener` until the runtime stops.
pub async fn serve(listener: TcpListener, engine: Arc<Engine>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(METRICS_CONNECTIONS_MAX));
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                // Out of descriptors and the like: try again shortly rather
                // than spin.
                tracing::warn!("metrics endpoint: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let engine = engine.clone();
        tokio::spawn(async move {
            // The head has METRICS_REQUEST_MILLIS_MAX (then 408), the
            // response as long again.
            let limit = Duration::from_millis(2 * METRICS_REQUEST_MILLIS_MAX);
            let _ = tokio::time::timeout(limit, answer(stream, &engine)).await;
            drop(permit);
        });
    }
}

/// What a request head asks for.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Metrics,
    NotFound,
    MethodNotAllowed,
    BadRequest,
    TooLarge,
    Timeout,
}

/// Read one request head and answer it.
async fn answer(mut stream: TcpStream, engine: &Engine) {
    let limit = Duration::from_millis(METRICS_REQUEST_MILLIS_MAX);
    let verdict = match tokio::time::timeout(limit, read_head(&mut stream)).await {
        Ok(Some(r)) => r,
        Ok(None) => return,
        Err(_) => Verdict::Timeout,
    };
    let (status, body) = match verdict {
        Verdict::Metrics => ("200 OK", render(engine)),
        Verdict::NotFound => ("404 Not Found", "not found: try /metrics\n".into()),
        Verdict::MethodNotAllowed => ("405 Method Not Allowed", "only GET\n".into()),
        Verdict::BadRequest => ("400 Bad Request", "bad request\n".into()),
        Verdict::TooLarge => (
            "431 Request Header Fields Too Large",
            "request head too large\n".into(),
        ),
        Verdict::Timeout => (
            "408 Request Timeout",
            "request not complete in time\n".into(),
        ),
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        if verdict == Verdict::Metrics {
            CONTENT_TYPE
        } else {
            "text/plain; charset=utf-8"
        },
        body.len()
    );
    if verdict == Verdict::MethodNotAllowed {
        response.push_str("Allow: GET\r\n");
    }
    response.push_str("\r\n");
    response.push_str(&body);
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Read until the blank line that ends the head (or the limit); None when
/// the peer closed before sending anything.
async fn read_head(stream: &mut TcpStream) -> Option<Verdict> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) if head.is_empty() => return None,
            Ok(0) | Err(_) => return Some(Verdict::BadRequest),
            Ok(n) => n,
        };
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = find_end(&head) {
            return Some(parse_head(&head[..end]));
        }
        if head.len() > METRICS_REQUEST_BYTES_MAX {
            return Some(Verdict::TooLarge);
        }
    }
}

/// Where the head ends (the index of its blank line), if it has.
fn find_end(head: &[u8]) -> Option<usize> {
    let crlf = head.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = head.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The request line decides: `GET /metrics[?...] HTTP/1.x`.
fn parse_head(head: &[u8]) -> Verdict {
    if head.len() > METRICS_REQUEST_BYTES_MAX {
        return Verdict::TooLarge;
    }
    let Ok(text) = std::str::from_utf8(head) else {
        return Verdict::BadRequest;
    };
    let line = text.lines().next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Verdict::BadRequest;
    };
    if !version.starts_with("HTTP/1.")
        || method.is_empty()
        || !method.bytes().all(|b| b.is_ascii_uppercase())
        || !target.starts_with('/')
    {
        return Verdict::BadRequest;
    }
    if method != "GET" {
        return Verdict::MethodNotAllowed;
    }
    let path = target.split('?').next().unwrap_or(target);
    if path == "/metrics" {
        Verdict::Metrics
    } else {
        Verdict::NotFound
    }
}

/// The exposition text, built metric by metric.
struct Out(String);

impl Out {
    fn header(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.0, "# HELP {name} {help}");
        let _ = writeln!(self.0, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        self.0.push_str(name);
        if !labels.is_empty() {
            self.0.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.0.push(',');
                }
                let _ = write!(self.0, "{k}=\"{}\"", escape(v));
            }
            self.0.push('}');
        }
        let _ = writeln!(self.0, " {value}");
    }

    /// One metric with one unlabelled sample.
    fn single(&mut self, name: &str, kind: &str, help: &str, value: impl std::fmt::Display) {
        self.header(name, kind, help);
        self.sample(name, &[], value);
    }

    /// A histogram from per-bucket counts; a bound or the sum divided by
    /// `divisor` is in the metric's unit.
    fn histogram<const N: usize>(
        &mut self,
        name: &str,
        help: &str,
        bounds: &[u64],
        h: &Histogram<N>,
        divisor: f64,
    ) {
        self.header(name, "histogram", help);
        let bucket = format!("{name}_bucket");
        let mut cumulative = 0;
        for (bound, n) in bounds.iter().zip(&h.buckets) {
            cumulative += n;
            let le = format_float(*bound as f64 / divisor);
            self.sample(&bucket, &[("le", &le)], cumulative);
        }
        self.sample(&bucket, &[("le", "+Inf")], h.count);
        self.sample(
            &format!("{name}_sum"),
            &[],
            format_float(h.sum as f64 / divisor),
        );
        self.sample(&format!("{name}_count"), &[], h.count);
    }
}

/// A label value with `\`, `"` and newlines escaped, as the format asks.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A float as Go's strconv would print it for Prometheus: integers without
/// a fraction (`le="5"`), others in the shortest form.
fn format_float(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The connection states pg_stat_activity shows, always exported (0 when
/// no session is in one), so a dashboard's series never disappear.
const STATES: [&str; 4] = [
    "active",
    "idle",
    "idle in transaction",
    "idle in transaction (aborted)",
];

/// Every metric, read now.
pub fn render(engine: &Engine) -> String {
    let db = &engine.db;
    use nestor_exec::stats::Counter as C;
    use std::sync::atomic::Ordering::Relaxed;
    let mut out = Out(String::with_capacity(8 * 1024));

    // Connections, from the session registry (pg_stat_activity's rows).
    let activity = db.sessions.activity();
    out.header(
        "nestor_connections",
        "gauge",
        "Client sessions connected now, by pg_stat_activity state.",
    );
    let mut by_state: Vec<(&str, usize)> = STATES.iter().map(|s| (*s, 0)).collect();
    for a in &activity {
        match by_state.iter_mut().find(|(s, _)| *s == a.state) {
            Some((_, n)) => *n += 1,
            None => by_state.push((&a.state, 1)),
        }
    }
    for (state, n) in by_state {
        out.sample("nestor_connections", &[("state", state)], n);
    }
    let now = nestor_types::context::system_now();
    // Seconds since the earliest start among the sessions (0 with none).
    let oldest_age = |start: fn(&_) -> Option<i64>| {
        activity
            .iter()
            .filter_map(start)
            .min()
            .map_or(0.0, |start| (now - start).max(0) as f64 / 1e6)
    };
    let oldest = oldest_age(|a| a.xact_start_us);
    out.single(
        "nestor_oldest_transaction_age_seconds",
        "gauge",
        "Age of the oldest open transaction of a client session (0 when none is open); it holds back pruning.",
        format_float(oldest),
    );
    let oldest_snapshot = oldest_age(|a| a.snapshot_start_us);
    out.single(
        "nestor_oldest_snapshot_age_seconds",
        "gauge",
        "Age of the oldest snapshot a client session holds (0 when none does): the GC horizon it pins has not moved since.",
        format_float(oldest_snapshot),
    );

    // What the oldest snapshot keeps: commits it does not see, and the
    // dead row versions not pruned yet (the pruner's own counts).
    let txn = &db.txn;
    out.single(
        "nestor_gc_horizon_lag_commits",
        "gauge",
        "Commits newer than the GC horizon (the oldest snapshot held): the row versions they superseded cannot be pruned yet.",
        txn.horizon().0.saturating_sub(txn.gc_horizon().0),
    );
    let dead: u64 = db.store.tables().iter().map(|t| t.dead_versions()).sum();
    out.single(
        "nestor_dead_row_versions",
        "gauge",
        "Row versions superseded by UPDATE or DELETE and not pruned yet (the sum of pg_stat_all_tables.n_dead_tup).",
        dead,
    );

    // Replication lag. On a primary, per walsender (pg_stat_replication):
    // WAL bytes durable here and not yet replayed there, and the last
    // measured replay lag. On a replica: WAL received and not replayed,
    // and when the last replayed commit committed on the primary
    // (pg_last_xact_replay_timestamp(); `time() - it` is the delay).
    let senders = db.replication.senders();
    if !senders.is_empty() {
        let durable = db.log.wal().map_or(0, |w| w.durable_lsn().0);
        out.header(
            "nestor_replication_lag_bytes",
            "gauge",
            "WAL bytes durable on this primary that the replica has not replayed yet, by application_name.",
        );
        for s in &senders {
            let lag = durable.saturating_sub(s.replay_lsn.0);
            out.sample(
                "nestor_replication_lag_bytes",
                &[("application_name", &s.application_name)],
                lag,
            );
        }
        out.header(
            "nestor_replication_replay_lag_seconds",
            "gauge",
            "Time from a commit being durable here to the replica replaying it, last measured (pg_stat_replication.replay_lag), by application_name.",
        );
        for s in &senders {
            if let Some(us) = s.replay_lag_us {
                out.sample(
                    "nestor_replication_replay_lag_seconds",
                    &[("application_name", &s.application_name)],
                    us as f64 / 1e6,
                );
            }
        }
    }
    if db.replication.in_recovery() {
        if let (Some(received), Some(replayed)) =
            (db.replication.receive_lsn(), db.replication.replay_lsn())
        {
            out.single(
                "nestor_replica_receive_replay_lag_bytes",
                "gauge",
                "WAL bytes this replica received and has not replayed yet.",
                received.0.saturating_sub(replayed.0),
            );
        }
        if let Some(us) = db.replication.replay_time_us() {
            // Microseconds since 2000-01-01 to Unix seconds.
            const PG_EPOCH_UNIX_S: f64 = 946_684_800.0;
            out.single(
                "nestor_replica_last_replay_timestamp_seconds",
                "gauge",
                "Unix time at which this replica last applied a commit (pg_last_xact_replay_timestamp()).",
                us as f64 / 1e6 + PG_EPOCH_UNIX_S,
            );
        }
    }

    // Transactions and rows (pg_stat_database's counters).
    let stats = &db.stats;
    let x = stats.xact_totals();
    let sums = stats.sums();
    out.single(
        "nestor_transactions_committed_total",
        "counter",
        "Transactions of client sessions that committed (pg_stat_database.xact_commit).",
        x.commits,
    );
    out.single(
        "nestor_transactions_rolled_back_total",
        "counter",
        "Transactions of client sessions that rolled back, failed commits included (pg_stat_database.xact_rollback).",
        x.rollbacks,
    );
    out.single(
        "nestor_deadlocks_total",
        "counter",
        "Deadlocks detected (statements that failed with 40P01).",
        stats.deadlocks.load(Relaxed),
    );
    out.single(
        "nestor_serialization_failures_total",
        "counter",
        "Errors with SQLSTATE 40001 (could not serialize access) reported to clients.",
        stats.serialization_failures.load(Relaxed),
    );
    out.single(
        "nestor_sessions_total",
        "counter",
        "Client sessions established (pg_stat_database.sessions).",
        stats.sessions.load(Relaxed),
    );
    let fetched = sums[C::IdxTupFetch as usize];
    for (name, help, value) in [
        (
            "nestor_rows_returned_total",
            "Rows read by sequential scans plus rows fetched by index scans (pg_stat_database.tup_returned).",
            sums[C::SeqTupRead as usize] + fetched,
        ),
        (
            "nestor_rows_fetched_total",
            "Rows fetched by index scans (pg_stat_database.tup_fetched).",
            fetched,
        ),
        (
            "nestor_rows_inserted_total",
            "Rows inserted, rolled-back work included (pg_stat_database.tup_inserted).",
            sums[C::Inserted as usize],
        ),
        (
            "nestor_rows_updated_total",
            "Rows updated, rolled-back work included (pg_stat_database.tup_updated).",
            sums[C::Updated as usize],
        ),
        (
            "nestor_rows_deleted_total",
            "Rows deleted, rolled-back work included (pg_stat_database.tup_deleted).",
            sums[C::Deleted as usize],
        ),
    ] {
        out.single(name, "counter", help, value);
    }

    // WAL (pg_stat_wal's source); zeros without a WAL.
    let wal = db.log.wal().map(|w| w.stats()).unwrap_or_default();
    for (name, help, value) in [
        (
            "nestor_wal_records_total",
            "WAL records appended (pg_stat_wal.wal_records).",
            wal.records,
        ),
        (
            "nestor_wal_bytes_total",
            "WAL bytes written, redo files adopted by commits included (pg_stat_wal.wal_bytes).",
            wal.bytes_written,
        ),
        (
            "nestor_wal_writes_total",
            "Writes of the WAL buffer to a segment (pg_stat_wal.wal_write).",
            wal.writes,
        ),
        (
            "nestor_wal_fsyncs_total",
            "fdatasyncs of WAL segments, redo files and their directory (pg_stat_wal.wal_sync).",
            wal.fsyncs,
        ),
        (
            "nestor_wal_segment_fsyncs_total",
            "Of those, the WAL writer's fdatasyncs of segments (one after each write of the buffer).",
            wal.segment_fsyncs,
        ),
        (
            "nestor_wal_buffer_full_waits_total",
            "Times a large redo waited for the WAL buffer to drain (pg_stat_wal.wal_buffers_full).",
            wal.buffer_full_waits,
        ),
    ] {
        out.single(name, "counter", help, value);
    }

    out.single(
        "nestor_wal_segment_fsync_seconds_total",
        "counter",
        "Time the WAL writer spent in fdatasyncs of segments (nestor_wal_segment_fsyncs_total of them).",
        format_float(wal.segment_fsync_micros as f64 / 1e6),
    );
    let (checkpoints, last_checkpoint) = engine.checkpoint_stats();
    out.single(
        "nestor_checkpoints_total",
        "counter",
        "Checkpoints written since the server started (timed, requested by CHECKPOINT or by WAL volume).",
        checkpoints,
    );
    out.single(
        "nestor_checkpoint_last_duration_seconds",
        "gauge",
        "How long the last checkpoint took (0 before the first).",
        format_float(last_checkpoint.as_secs_f64()),
    );

    // Lock waits (the lock table's counters).
    let kinds = nestor_txn::WaitKind::ALL.map(|k| (k.name(), db.txn.locks.wait_stats(k)));
    out.header(
        "nestor_lock_waits_total",
        "counter",
        "Lock requests that had to wait, by what they waited for (row: a row lock or a row writer's transaction).",
    );
    for (kind, s) in &kinds {
        out.sample("nestor_lock_waits_total", &[("kind", kind)], s.waits);
    }
    out.header(
        "nestor_lock_wait_seconds_total",
        "counter",
        "Time spent in finished lock waits, by what they waited for.",
    );
    for (kind, s) in &kinds {
        out.sample(
            "nestor_lock_wait_seconds_total",
            &[("kind", kind)],
            format_float(s.wait_micros as f64 / 1e6),
        );
    }
    out.header(
        "nestor_lock_waiters",
        "gauge",
        "Lock requests waiting now, by what they wait for.",
    );
    for (kind, s) in &kinds {
        out.sample("nestor_lock_waiters", &[("kind", kind)], s.waiting);
    }

    // Savepoints.
    out.single(
        "nestor_savepoints_defined_total",
        "counter",
        "Savepoints defined by transactions that ended (SAVEPOINT, PL/pgSQL exception blocks, driver autosave).",
        x.savepoints,
    );
    out.single(
        "nestor_savepoint_rollbacks_total",
        "counter",
        "ROLLBACK TO SAVEPOINTs (and exception blocks that caught an error) of transactions that ended.",
        x.savepoint_rollbacks,
    );
    out.histogram(
        "nestor_savepoints_per_transaction",
        "Savepoints each ended transaction defined.",
        &SAVEPOINTS_PER_XACT_BOUNDS,
        &x.savepoints_per_xact,
        1.0,
    );
    out.histogram(
        "nestor_commit_duration_seconds",
        "Time of a commit: the commit record to the WAL and, with synchronous_commit on, its flush.",
        &COMMIT_MICROS_BOUNDS,
        &x.commit_micros,
        1e6,
    );

    // Memory (nestor_memory's source).
    {
        use nestor_common::memory;
        out.single(
            "nestor_memory_used_bytes",
            "gauge",
            "Memory in use as the budget last measured it (nestor_memory.used).",
            memory::used_bytes(),
        );
        let limit = memory::limit_bytes();
        if limit != u64::MAX {
            out.single(
                "nestor_memory_limit_bytes",
                "gauge",
                "The memory budget (--memory-limit): writes past it fail with 53200.",
                limit,
            );
        }
        out.header(
            "nestor_memory_bytes",
            "gauge",
            "Memory held, by what holds it (nestor_memory's categories).",
        );
        for c in memory::Category::ALL {
            out.sample(
                "nestor_memory_bytes",
                &[("category", c.name())],
                memory::held(c),
            );
        }
    }
    out.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_heads() {
        let p = |s: &str| parse_head(s.as_bytes());
        assert_eq!(p("GET /metrics HTTP/1.1\r\nHost: x"), Verdict::Metrics);
        assert_eq!(p("GET /metrics?x=1 HTTP/1.0"), Verdict::Metrics);
        assert_eq!(p("GET / HTTP/1.1"), Verdict::NotFound);
        assert_eq!(p("POST /metrics HTTP/1.1"), Verdict::MethodNotAllowed);
        assert_eq!(p("GET /metrics"), Verdict::BadRequest);
        assert_eq!(p("\u{1}\u{2} garbage here"), Verdict::BadRequest);
        assert_eq!(p("GET /metrics HTTP/2 extra"), Verdict::BadRequest);
        assert_eq!(find_end(b"GET / HTTP/1.1\r\n\r\n"), Some(14));
        assert_eq!(find_end(b"GET / HTTP/1.1\n\n"), Some(14));
        assert_eq!(find_end(b"GET / HTTP/1.1\r\n"), None);
    }

    #[test]
    fn floats_as_prometheus_prints_them() {
        assert_eq!(format_float(5.0), "5");
        assert_eq!(format_float(0.00025), "0.00025");
        assert_eq!(format_float(100_000.0 / 1e6), "0.1");
    }
}
