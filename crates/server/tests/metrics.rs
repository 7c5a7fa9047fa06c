//! The Prometheus endpoint (`--metrics-listen`, docs/observability.md
//! "Prometheus metrics") through the real server: a scripted workload over
//! the wire, then `GET /metrics` over a plain TCP connection, the text
//! format parsed here (HELP/TYPE consistency, histogram buckets cumulative
//! and ending in +Inf, with _sum and _count) and exact deltas asserted.
//! Also: bad requests get an HTTP error or a closed connection and leave
//! the server serving.

mod common;

use common::*;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tokio_postgres::{Client, NoTls};

const STEP: Duration = Duration::from_secs(20);

async fn t<F: Future>(f: F) -> F::Output {
    match tokio::time::timeout(STEP, f).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {STEP:?} (a hang?)"),
    }
}

async fn connect(srv: &Server) -> Client {
    let (c, conn) = t(tokio_postgres::connect(
        &format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres",
            srv.port
        ),
        NoTls,
    ))
    .await
    .expect("connect");
    tokio::spawn(conn);
    c
}

async fn run(c: &Client, sql: &str) {
    t(c.batch_execute(sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
}

/// Start a server with the endpoint on a free port; (server, its address).
fn start() -> (Server, String) {
    let srv = Server::start_with(&["--metrics-listen", "127.0.0.1:0"], &[]);
    let addr = srv
        .log_lines()
        .iter()
        .find_map(|l| {
            l.split("serving metrics on http://")
                .nth(1)
                .map(|rest| rest.trim().trim_end_matches("/metrics").to_string())
        })
        .expect("the metrics log line comes before the listening line");
    (srv, addr)
}

/// Send `request` as is, read until the server closes; the whole response.
fn http(addr: &str, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).expect("connect to the metrics endpoint");
    s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    // The server may answer and close before reading a huge request whole.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    match s.read_to_end(&mut out) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("reading the response: {e} (a hang?)"),
    }
    String::from_utf8(out).expect("UTF-8 response")
}

/// The status code and body of a response.
fn status_and_body(response: &str) -> (u16, &str) {
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {response:?}"));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, body)
}

/// One scrape, parsed.
struct Scrape {
    /// `name{labels}` as written (labels sorted) -> value.
    samples: BTreeMap<String, f64>,
    /// Metric family -> its TYPE.
    families: BTreeMap<String, String>,
}

impl Scrape {
    fn get(&self, series: &str) -> f64 {
        *self
            .samples
            .get(series)
            .unwrap_or_else(|| panic!("no series {series}"))
    }
}

/// `name{a="x",b="y"}` -> (name, labels).
fn split_series(series: &str) -> (String, Vec<(String, String)>) {
    let Some((name, rest)) = series.split_once('{') else {
        return (series.to_string(), Vec::new());
    };
    let inner = rest.strip_suffix('}').expect("labels end with }");
    let mut labels = Vec::new();
    let mut chars = inner.chars().peekable();
    while chars.peek().is_some() {
        let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
        assert_eq!(chars.next(), Some('"'), "label {key} value quoted");
        let mut value = String::new();
        loop {
            match chars.next().expect("label value ends") {
                '\\' => match chars.next().expect("escape") {
                    'n' => value.push('\n'),
                    c => value.push(c),
                },
                '"' => break,
                c => value.push(c),
            }
        }
        labels.push((key, value));
        match chars.next() {
            Some(',') | None => {}
            Some(c) => panic!("unexpected {c:?} after a label in {series}"),
        }
    }
    (name.to_string(), labels)
}

fn parse_value(v: &str) -> f64 {
    match v {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        _ => v.parse().unwrap_or_else(|_| panic!("bad value {v:?}")),
    }
}

/// Parse the text format, checking it as we go: every sample's family has
/// HELP and TYPE before it (once each, TYPE one of the known), histograms
/// have cumulative buckets ending in +Inf equal to _count, and a _sum.
fn parse(text: &str) -> Scrape {
    let mut help: HashMap<String, String> = HashMap::new();
    let mut kind: HashMap<String, String> = HashMap::new();
    let mut samples = BTreeMap::new();
    // histogram family -> [(le, cumulative count)] in order
    let mut buckets: HashMap<String, Vec<(f64, f64)>> = HashMap::new();
    assert!(text.ends_with('\n'), "the text ends with a newline");
    for line in text.lines() {
        assert!(!line.is_empty(), "no empty lines");
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, h) = rest.split_once(' ').expect("HELP name text");
            assert!(!h.is_empty(), "{name}: empty HELP");
            assert!(!kind.contains_key(name), "{name}: HELP after TYPE");
            assert!(
                help.insert(name.to_string(), h.to_string()).is_none(),
                "{name}: two HELP lines"
            );
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, k) = rest.split_once(' ').expect("TYPE name kind");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&k),
                "{name}: unknown TYPE {k}"
            );
            assert!(help.contains_key(name), "{name}: TYPE without HELP");
            assert!(
                kind.insert(name.to_string(), k.to_string()).is_none(),
                "{name}: two TYPE lines"
            );
            continue;
        }
        assert!(!line.starts_with('#'), "unexpected comment {line}");
        let (series, value) = line.rsplit_once(' ').expect("series value");
        let value = parse_value(value);
        let (name, mut labels) = split_series(series);
        assert!(
            name.starts_with("nestor_")
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "bad metric name {name}"
        );
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| {
                name.strip_suffix(s)
                    .filter(|f| kind.get(*f).is_some_and(|k| k == "histogram"))
            })
            .unwrap_or(&name)
            .to_string();
        let k = kind
            .get(&family)
            .unwrap_or_else(|| panic!("{name}: sample without TYPE"));
        match k.as_str() {
            "counter" => {
                assert!(name.ends_with("_total"), "counter {name} ends in _total");
                assert!(value >= 0.0, "{name}: negative counter");
            }
            "gauge" => assert!(value.is_finite(), "{name}: gauge {value}"),
            "histogram" => {
                assert!(value >= 0.0, "{name}: negative");
                if name.ends_with("_bucket") {
                    let le = labels
                        .iter()
                        .find(|(k, _)| k == "le")
                        .map(|(_, v)| parse_value(v))
                        .unwrap_or_else(|| panic!("{name}: bucket without le"));
                    buckets.entry(family.clone()).or_default().push((le, value));
                } else {
                    assert_eq!(labels, vec![], "{name}: no labels expected");
                }
            }
            other => panic!("{name}: unexpected type {other}"),
        }
        labels.sort();
        let key = if labels.is_empty() {
            name.clone()
        } else {
            let l: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{name}{{{}}}", l.join(","))
        };
        assert!(samples.insert(key, value).is_none(), "{line}: repeated");
    }
    for (family, k) in &kind {
        if k != "histogram" {
            continue;
        }
        let b = buckets
            .get(family)
            .unwrap_or_else(|| panic!("{family}: no buckets"));
        assert!(
            b.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1),
            "{family}: buckets not increasing / cumulative: {b:?}"
        );
        let (last_le, last) = *b.last().unwrap();
        assert_eq!(last_le, f64::INFINITY, "{family}: last bucket is +Inf");
        let count = samples
            .get(&format!("{family}_count"))
            .unwrap_or_else(|| panic!("{family}: no _count"));
        assert_eq!(last, *count, "{family}: +Inf bucket equals _count");
        assert!(
            samples.contains_key(&format!("{family}_sum")),
            "{family}: no _sum"
        );
    }
    Scrape {
        samples,
        families: kind.into_iter().collect(),
    }
}

fn scrape(addr: &str) -> Scrape {
    let response = http(
        addr,
        b"GET /metrics HTTP/1.1\r\nHost: nestor\r\nAccept: text/plain\r\n\r\n",
    );
    assert!(
        response.contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
        "{response}"
    );
    let (status, body) = status_and_body(&response);
    assert_eq!(status, 200, "{response}");
    parse(body)
}

/// `after - before` for one series.
fn delta(before: &Scrape, after: &Scrape, series: &str) -> f64 {
    after.get(series) - before.get(series)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_a_scripted_workload_exactly() {
    let (srv, addr) = start();
    let c = connect(&srv).await;
    run(&c, "CREATE TABLE m (id int PRIMARY KEY, v int)").await;

    let before = scrape(&addr);
    // One client, idle while scraped; no transaction open.
    assert_eq!(before.get("nestor_connections{state=idle}"), 1.0);
    assert_eq!(before.get("nestor_connections{state=active}"), 0.0);
    assert_eq!(
        before.get("nestor_connections{state=idle in transaction}"),
        0.0
    );
    assert_eq!(before.get("nestor_oldest_transaction_age_seconds"), 0.0);

    // 2 commits and 2 rollbacks of plain transactions, then a committed
    // transaction with 5 savepoints and one ROLLBACK TO.
    run(&c, "BEGIN; INSERT INTO m VALUES (1, 1); COMMIT").await;
    run(&c, "BEGIN; INSERT INTO m VALUES (2, 2); COMMIT").await;
    run(&c, "BEGIN; INSERT INTO m VALUES (3, 3); ROLLBACK").await;
    run(&c, "BEGIN; INSERT INTO m VALUES (4, 4); ROLLBACK").await;
    run(
        &c,
        "BEGIN; SAVEPOINT s1; SAVEPOINT s2; SAVEPOINT s3; SAVEPOINT s4; \
         UPDATE m SET v = 10 WHERE id = 1; SAVEPOINT s5; \
         DELETE FROM m WHERE id = 2; ROLLBACK TO SAVEPOINT s5; COMMIT",
    )
    .await;
    let after = scrape(&addr);

    let d = |s: &str| delta(&before, &after, s);
    assert_eq!(d("nestor_transactions_committed_total"), 3.0);
    assert_eq!(d("nestor_transactions_rolled_back_total"), 2.0);
    assert_eq!(d("nestor_rows_inserted_total"), 4.0);
    assert_eq!(d("nestor_rows_updated_total"), 1.0);
    assert_eq!(d("nestor_rows_deleted_total"), 1.0);
    assert_eq!(d("nestor_deadlocks_total"), 0.0);
    assert_eq!(d("nestor_savepoints_defined_total"), 5.0);
    assert_eq!(d("nestor_savepoint_rollbacks_total"), 1.0);
    // The histogram: 5 transactions ended, 4 with no savepoint, 1 with 5.
    let h = "nestor_savepoints_per_transaction";
    assert_eq!(d(&format!("{h}_count")), 5.0);
    assert_eq!(d(&format!("{h}_sum")), 5.0);
    for (le, n) in [
        ("0", 4.0),
        ("1", 4.0),
        ("2", 4.0),
        ("5", 5.0),
        ("10", 5.0),
        ("+Inf", 5.0),
    ] {
        assert_eq!(d(&format!("{h}_bucket{{le={le}}}")), n, "le={le}");
    }
    // Every commit was timed (failed ones too; none here).
    assert_eq!(d("nestor_commit_duration_seconds_count"), 3.0);
    // The commits went to the WAL and were flushed.
    assert!(d("nestor_wal_records_total") >= 3.0);
    assert!(d("nestor_wal_bytes_total") > 0.0);
    assert!(d("nestor_wal_fsyncs_total") >= 1.0);
    assert!(d("nestor_wal_segment_fsyncs_total") >= 1.0);
    assert!(d("nestor_wal_segment_fsync_seconds_total") > 0.0);
    // Memory: the table holds versions.
    assert!(after.get("nestor_memory_bytes{category=table versions}") > 0.0);

    // docs/observability.md lists every metric served, with its type, and
    // nothing else; the Grafana dashboard uses only served metrics.
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/observability.md"
    ))
    .expect("docs/observability.md");
    let section = docs
        .split("\n## Prometheus metrics\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Prometheus metrics section");
    // The replication series exist only with a replica attached or on a
    // replica (their rows say so; replication.rs checks them there).
    let documented: BTreeMap<String, String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `nestor_"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let replication = cells[2].starts_with("on a primary, per replica")
                || cells[2].starts_with("on a replica");
            let name = cells[0].trim_end_matches('`');
            let name = name.split('{').next().unwrap_or(name);
            (!replication).then(|| (format!("nestor_{name}"), cells[1].to_string()))
        })
        .collect();
    assert_eq!(documented, after.families, "documented vs served");
    let dashboard = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/grafana-dashboard.json"
    ))
    .expect("docs/grafana-dashboard.json");
    for used in dashboard.split("nestor_").skip(1) {
        let name: String = used
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        let name = format!("nestor_{name}");
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .filter(|f| after.families.get(*f).is_some_and(|k| k == "histogram"))
            .unwrap_or(&name);
        if family != "nestor_" {
            assert!(
                after.families.contains_key(family),
                "the dashboard uses {family}, which is not served"
            );
        }
    }

    // A second client inside a transaction shows as idle in transaction,
    // and its transaction as the oldest.
    let c2 = connect(&srv).await;
    run(&c2, "BEGIN; SELECT 1").await;
    let open = scrape(&addr);
    assert_eq!(
        open.get("nestor_connections{state=idle in transaction}"),
        1.0
    );
    assert_eq!(open.get("nestor_connections{state=idle}"), 1.0);
    assert!(open.get("nestor_oldest_transaction_age_seconds") > 0.0);

    // A row-lock wait: c2 updates a row, c waits for it; counted while it
    // waits and when it ends.
    run(&c2, "UPDATE m SET v = 20 WHERE id = 1").await;
    let waiter = tokio::spawn(async move {
        run(&c, "UPDATE m SET v = 30 WHERE id = 1").await;
        c
    });
    let deadline = Instant::now() + STEP;
    loop {
        let s = scrape(&addr);
        if s.get("nestor_lock_waiters{kind=row}") == 1.0 {
            assert_eq!(s.get("nestor_connections{state=active}"), 1.0);
            break;
        }
        assert!(Instant::now() < deadline, "the UPDATE never waited");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    run(&c2, "COMMIT").await;
    let c = t(waiter).await.expect("waiter");
    let done = scrape(&addr);
    assert_eq!(
        done.get("nestor_lock_waits_total{kind=row}")
            - open.get("nestor_lock_waits_total{kind=row}"),
        1.0
    );
    assert_eq!(done.get("nestor_lock_waiters{kind=row}"), 0.0);
    assert!(done.get("nestor_lock_wait_seconds_total{kind=row}") > 0.0);
    assert_eq!(
        done.get("nestor_lock_waits_total{kind=relation}"),
        open.get("nestor_lock_waits_total{kind=relation}")
    );
    // A CHECKPOINT is counted and timed.
    run(&c, "CHECKPOINT").await;
    let checkpointed = scrape(&addr);
    assert!(
        checkpointed.get("nestor_checkpoints_total") - done.get("nestor_checkpoints_total") >= 1.0
    );
    assert!(checkpointed.get("nestor_checkpoint_last_duration_seconds") > 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_errors_and_the_server_goes_on() {
    let (srv, addr) = start();
    let code = |req: &[u8]| {
        let r = http(&addr, req);
        if r.is_empty() {
            None
        } else {
            Some(status_and_body(&r).0)
        }
    };
    assert_eq!(code(b"GET / HTTP/1.1\r\n\r\n"), Some(404));
    assert_eq!(code(b"GET /metricsx HTTP/1.1\r\n\r\n"), Some(404));
    assert_eq!(
        code(b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
        Some(405)
    );
    assert_eq!(code(b"\x00\x01garbage\xff\r\n\r\n"), Some(400));
    assert_eq!(code(b"GET /metrics\r\n\r\n"), Some(400));
    // A head past METRICS_REQUEST_BYTES_MAX (8 kB), never ended: 431, or
    // the connection closed.
    let mut huge = b"GET /metrics HTTP/1.1\r\nX-Filler: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 64 * 1024));
    assert!(matches!(code(&huge), Some(431) | None));
    // A client that connects and sends half a head, then stays: the
    // server does not wait for it before serving others.
    let mut slow = TcpStream::connect(&addr).unwrap();
    slow.write_all(b"GET /metrics HTTP/1.1\r\n").unwrap();
    let mut silent = Vec::new();
    for _ in 0..4 {
        silent.push(TcpStream::connect(&addr).unwrap());
    }
    let s = scrape(&addr);
    assert!(s
        .samples
        .contains_key("nestor_transactions_committed_total"));
    // And SQL goes on.
    let c = connect(&srv).await;
    run(&c, "SELECT 1").await;
    drop(silent);
    // The half head is answered 408 once METRICS_REQUEST_MILLIS_MAX (5 s)
    // has passed (IO_TIMEOUT, 10 s, fails the test if it never is).
    slow.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    let mut response = String::new();
    slow.read_to_string(&mut response)
        .expect("the server answers a request head that never ends");
    assert_eq!(status_and_body(&response).0, 408, "{response}");
}

/// Scrape until `series` has `value` (a session reaching a lock wait takes
/// a moment); panics after STEP.
async fn scrape_until(addr: &str, series: &str, value: f64) -> Scrape {
    let deadline = Instant::now() + STEP;
    loop {
        let s = scrape(addr);
        if s.get(series) == value {
            return s;
        }
        assert!(Instant::now() < deadline, "{series} never became {value}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relation_lock_waits_and_serialization_failures_are_counted() {
    let (srv, addr) = start();
    let a = connect(&srv).await;
    let b = connect(&srv).await;
    run(
        &a,
        "CREATE TABLE r (id int PRIMARY KEY, v int); INSERT INTO r VALUES (1, 0)",
    )
    .await;
    let before = scrape(&addr);

    // b's SELECT waits for a's ACCESS EXCLUSIVE lock on the table.
    run(&a, "BEGIN; LOCK TABLE r IN ACCESS EXCLUSIVE MODE").await;
    let reader = tokio::spawn(async move {
        run(&b, "SELECT * FROM r").await;
        b
    });
    scrape_until(&addr, "nestor_lock_waiters{kind=relation}", 1.0).await;
    run(&a, "COMMIT").await;
    let b = t(reader).await.expect("reader");
    let after = scrape(&addr);
    let d = |s: &str| delta(&before, &after, s);
    assert_eq!(d("nestor_lock_waits_total{kind=relation}"), 1.0);
    assert_eq!(d("nestor_lock_waits_total{kind=row}"), 0.0);
    assert_eq!(after.get("nestor_lock_waiters{kind=relation}"), 0.0);
    assert!(d("nestor_lock_wait_seconds_total{kind=relation}") > 0.0);

    // A REPEATABLE READ transaction updating a row changed since its
    // snapshot fails with 40001.
    run(&a, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT * FROM r").await;
    run(&b, "UPDATE r SET v = 1 WHERE id = 1").await;
    let e = t(a.batch_execute("UPDATE r SET v = 2 WHERE id = 1"))
        .await
        .expect_err("40001");
    assert_eq!(e.code().map(|c| c.code()), Some("40001"), "{e:?}");
    run(&a, "ROLLBACK").await;
    let failed = scrape(&addr);
    assert_eq!(
        delta(&after, &failed, "nestor_serialization_failures_total"),
        1.0
    );
    assert_eq!(delta(&after, &failed, "nestor_deadlocks_total"), 0.0);
}

/// A snapshot held open by a REPEATABLE READ transaction: its age grows,
/// the commits it does not see and the dead versions they leave are
/// exported while it is held; once it ends they are released and VACUUM
/// prunes the versions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_snapshot_shows_its_age_and_what_it_keeps() {
    let (srv, addr) = start();
    let holder = connect(&srv).await;
    let writer = connect(&srv).await;
    run(
        &writer,
        "CREATE TABLE k (id int PRIMARY KEY, v int); \
         INSERT INTO k SELECT g, 0 FROM generate_series(1, 10) g",
    )
    .await;
    // On its own: VACUUM refuses a query string of several statements.
    run(&writer, "VACUUM").await;
    let before = scrape(&addr);
    assert_eq!(before.get("nestor_oldest_snapshot_age_seconds"), 0.0);
    assert_eq!(before.get("nestor_gc_horizon_lag_commits"), 0.0);
    assert_eq!(before.get("nestor_dead_row_versions"), 0.0);

    run(
        &holder,
        "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM k",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // Five commits of ten updated rows each, behind the held snapshot.
    for i in 1..=5 {
        run(&writer, &format!("UPDATE k SET v = {i}")).await;
    }
    // Its snapshot is the transaction's: a later statement keeps it (and
    // its age).
    run(&holder, "SELECT count(*) FROM k").await;
    let held = scrape(&addr);
    let age = held.get("nestor_oldest_snapshot_age_seconds");
    assert!(age >= 1.0, "age {age}");
    assert!(
        held.get("nestor_oldest_transaction_age_seconds") >= age,
        "the transaction is at least as old as its snapshot"
    );
    assert_eq!(held.get("nestor_gc_horizon_lag_commits"), 5.0);
    assert_eq!(held.get("nestor_dead_row_versions"), 50.0);
    // The pruner cannot remove them while the snapshot is held.
    run(&writer, "VACUUM").await;
    assert_eq!(scrape(&addr).get("nestor_dead_row_versions"), 50.0);

    run(&holder, "COMMIT").await;
    let released = scrape(&addr);
    assert_eq!(released.get("nestor_oldest_snapshot_age_seconds"), 0.0);
    assert_eq!(released.get("nestor_gc_horizon_lag_commits"), 0.0);
    run(&writer, "VACUUM").await;
    assert_eq!(scrape(&addr).get("nestor_dead_row_versions"), 0.0);
}
