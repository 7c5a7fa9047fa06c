//! SQL-visible statistics (docs/observability.md) through the real server
//! and a real client: pg_stat_statements, pg_stat_database,
//! pg_stat_user_tables and log_min_duration_statement. Each test runs a
//! scripted workload over the wire and checks exact counts (deltas where
//! the test's own queries count too).

mod common;

use common::*;
use std::future::Future;
use std::time::Duration;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

const STEP: Duration = Duration::from_secs(20);

async fn t<F: Future>(f: F) -> F::Output {
    match tokio::time::timeout(STEP, f).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {STEP:?} (a hang?)"),
    }
}

async fn connect(srv: &Server, user: &str) -> Client {
    let (c, conn) = t(tokio_postgres::connect(
        &format!(
            "host=127.0.0.1 port={} user={user} dbname=postgres",
            srv.port
        ),
        NoTls,
    ))
    .await
    .expect("connect");
    tokio::spawn(conn);
    c
}

/// The rows of a simple query, every column as text ("NULL" for NULL),
/// joined by '|'.
async fn rows(c: &Client, sql: &str) -> Vec<String> {
    t(c.simple_query(sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e:?}"))
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(
                (0..r.len())
                    .map(|i| r.get(i).unwrap_or("NULL").to_string())
                    .collect::<Vec<_>>()
                    .join("|"),
            ),
            _ => None,
        })
        .collect()
}

async fn run(c: &Client, sql: &str) {
    t(c.batch_execute(sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
}

fn setup_sql() -> &'static str {
    "CREATE TABLE acc (aid int PRIMARY KEY, abalance int NOT NULL);
     INSERT INTO acc SELECT g, g * 10 FROM generate_series(1, 10) g;"
}

/// One statement prepared once and executed five times with other
/// parameters is one entry with calls = 5; simple-protocol texts that
/// differ in constants share one entry with the constants as $n; each
/// statement of a multi-statement query counts; SQL EXECUTE counts under
/// its PREPARE; failed statements do not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_statements_counts_calls_per_normalised_statement() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    run(&c, setup_sql()).await;
    run(&c, "SELECT pg_stat_statements_reset()").await;

    let sel = t(c.prepare("SELECT abalance FROM acc WHERE aid = $1"))
        .await
        .unwrap();
    let mut sum = 0;
    for aid in [1, 3, 5, 7, 9] {
        let r = t(c.query(&sel, &[&aid])).await.unwrap();
        sum += r[0].get::<_, i32>(0);
    }
    assert_eq!(sum, 250);
    for min in [0, 45, 95] {
        run(&c, &format!("SELECT aid FROM acc WHERE abalance > {min}")).await;
    }
    run(&c, "UPDATE acc SET abalance = abalance + 7 WHERE aid = 3").await;
    run(&c, "UPDATE acc SET abalance = abalance + 8 WHERE aid <= 4").await;
    run(
        &c,
        "SELECT 1 FROM acc WHERE aid = 1; SELECT 2 FROM acc WHERE aid = 20",
    )
    .await;
    run(
        &c,
        "PREPARE byid(int) AS SELECT aid FROM acc WHERE aid = $1",
    )
    .await;
    run(&c, "EXECUTE byid(2); EXECUTE byid(3)").await;
    assert!(t(c.batch_execute("SELECT aid / 0 FROM acc WHERE aid = 2"))
        .await
        .is_err());

    let got = rows(
        &c,
        "SELECT query, calls, rows, toplevel, plans, queryid IS NOT NULL,
                shared_blks_hit, wal_bytes, savepoints
           FROM pg_stat_statements WHERE query LIKE '% acc %' ORDER BY query",
    )
    .await;
    assert_eq!(
        got,
        vec![
            // SQL EXECUTE counts under its PREPARE's text, as in PostgreSQL.
            "PREPARE byid(int) AS SELECT aid FROM acc WHERE aid = $1|2|2|t|0|t|0|0|0",
            // 1 + 0 rows
            "SELECT $1 FROM acc WHERE aid = $2|2|1|t|0|t|0|0|0",
            // 10 + 6 + 1 rows
            "SELECT abalance FROM acc WHERE aid = $1|5|5|t|0|t|0|0|0",
            "SELECT aid FROM acc WHERE abalance > $1|3|17|t|0|t|0|0|0",
            // 1 + 4 rows
            "UPDATE acc SET abalance = abalance + $1 WHERE aid <= $2|1|4|t|0|t|0|0|0",
            "UPDATE acc SET abalance = abalance + $1 WHERE aid = $2|1|1|t|0|t|0|0|0",
        ]
    );
    // The times are consistent with each other.
    let times = rows(
        &c,
        "SELECT min_exec_time <= mean_exec_time AND mean_exec_time <= max_exec_time
                AND abs(total_exec_time - mean_exec_time * calls) < 1e-6 * greatest(total_exec_time, 1)
                AND stddev_exec_time >= 0
           FROM pg_stat_statements WHERE query = 'SELECT abalance FROM acc WHERE aid = $1'",
    )
    .await;
    assert_eq!(times, vec!["t"]);
    // The user and database are the session's.
    let who = rows(
        &c,
        "SELECT count(*) FROM pg_stat_statements s
           WHERE s.query = 'SELECT abalance FROM acc WHERE aid = $1'
             AND s.userid = (SELECT oid FROM pg_roles WHERE rolname = current_user)
             AND s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .await;
    assert_eq!(who, vec!["1"]);
}

/// Reset forgets entries (all, or one queryid); the reset call itself is
/// counted after it ran, as in PostgreSQL; pg_stat_statements.track = none
/// stops recording; a role that is not a superuser sees other roles'
/// texts as "<insufficient privilege>" and may not reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_statements_reset_track_and_visibility() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    run(&c, setup_sql()).await;
    run(&c, "SELECT count(*) FROM acc WHERE aid > 2").await;
    run(&c, "SELECT count(*) FROM acc WHERE aid > 5").await;
    let before = rows(
        &c,
        "SELECT calls FROM pg_stat_statements WHERE query = 'SELECT count(*) FROM acc WHERE aid > $1'",
    )
    .await;
    assert_eq!(before, vec!["2"]);
    let qid = rows(
        &c,
        "SELECT queryid FROM pg_stat_statements WHERE query = 'SELECT count(*) FROM acc WHERE aid > $1'",
    )
    .await;
    run(
        &c,
        &format!("SELECT pg_stat_statements_reset(0, 0, {})", qid[0]),
    )
    .await;
    let after = rows(
        &c,
        "SELECT count(*) FROM pg_stat_statements WHERE query = 'SELECT count(*) FROM acc WHERE aid > $1'",
    )
    .await;
    assert_eq!(after, vec!["0"]);

    run(&c, "SELECT pg_stat_statements_reset()").await;
    assert_eq!(
        rows(&c, "SELECT query, calls FROM pg_stat_statements").await,
        vec!["SELECT pg_stat_statements_reset()|1"]
    );
    assert_eq!(
        rows(
            &c,
            "SELECT dealloc, stats_reset IS NOT NULL FROM pg_stat_statements_info"
        )
        .await,
        vec!["0|t"]
    );

    run(&c, "SET pg_stat_statements.track = none").await;
    run(&c, "SELECT abalance FROM acc WHERE aid = 4").await;
    run(&c, "SET pg_stat_statements.track = top").await;
    assert_eq!(
        rows(
            &c,
            "SELECT count(*) FROM pg_stat_statements WHERE query LIKE 'SELECT abalance%'"
        )
        .await,
        vec!["0"]
    );
    assert_eq!(rows(&c, "SHOW pg_stat_statements.max").await, vec!["5000"]);

    run(
        &c,
        "CREATE ROLE watcher LOGIN; GRANT SELECT ON acc TO watcher",
    )
    .await;
    let w = connect(&srv, "watcher").await;
    run(&w, "SELECT abalance FROM acc WHERE aid = 2").await;
    let seen = rows(
        &w,
        "SELECT query, queryid IS NULL FROM pg_stat_statements
           WHERE query IN ('SELECT abalance FROM acc WHERE aid = $1', '<insufficient privilege>')
           ORDER BY 1",
    )
    .await;
    // Its own statement, and postgres's statements hidden (at least the
    // reset and the SET-less queries above).
    assert_eq!(seen[0], "<insufficient privilege>|t");
    assert_eq!(
        seen.last().map(String::as_str),
        Some("SELECT abalance FROM acc WHERE aid = $1|f")
    );
    let e = t(w.simple_query("SELECT pg_stat_statements_reset()"))
        .await
        .unwrap_err();
    assert_eq!(
        e.as_db_error().map(|d| d.code().code()),
        Some("42501"),
        "{e}"
    );
}

/// pg_stat_statements.track_utility (on by default, as in PostgreSQL):
/// utility statements count under their exact text (PostgreSQL 15's
/// identity for them, constants kept), over both protocols; PREPARE,
/// EXECUTE and DEALLOCATE do not (EXECUTE counts under its PREPARE); a
/// COPY counts its rows when it ends; with the setting off none counts,
/// nor do DDL and DO, which PostgreSQL counts as utility too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_statements_tracks_utility_statements() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    assert_eq!(
        rows(&c, "SHOW pg_stat_statements.track_utility").await,
        vec!["on"]
    );
    run(&c, "SELECT pg_stat_statements_reset()").await;
    run(
        &c,
        "BEGIN; SET extra_float_digits = 2; SET extra_float_digits = 3; \
         SHOW extra_float_digits; SAVEPOINT s1; RELEASE s1; COMMIT",
    )
    .await;
    run(&c, "BEGIN; COMMIT").await;
    run(&c, "CREATE TABLE ut (a int)").await;
    run(&c, "DO $$ BEGIN PERFORM 1; END $$").await;
    run(&c, "PREPARE p AS SELECT a FROM ut; EXECUTE p; DEALLOCATE p").await;
    // The extended protocol's path for utility statements.
    t(c.execute("SET extra_float_digits = 1", &[]))
        .await
        .unwrap();
    tokio::task::block_in_place(|| {
        use std::io::Write as _;
        let mut psql = std::process::Command::new("psql")
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1"])
            .args([
                "-p",
                &srv.port.to_string(),
                "-U",
                "postgres",
                "-d",
                "postgres",
            ])
            .args(["-c", "COPY ut FROM STDIN"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("psql");
        psql.stdin
            .take()
            .unwrap()
            .write_all(b"1\n2\n3\n\\.\n")
            .unwrap();
        assert!(psql.wait().unwrap().success());
    });
    assert!(t(c.batch_execute("SAVEPOINT outside")).await.is_err());
    let tracked = "SELECT query, calls, rows FROM pg_stat_statements
                    WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY query COLLATE \"C\"";
    let want = vec![
        "BEGIN|2|0",
        "COMMIT|2|0",
        "COPY ut FROM STDIN|1|3",
        "CREATE TABLE ut (a int)|1|0",
        "DO $$ BEGIN PERFORM 1; END $$|1|0",
        "PREPARE p AS SELECT a FROM ut|1|0",
        "RELEASE s1|1|0",
        "SAVEPOINT s1|1|0",
        "SET extra_float_digits = 1|1|0",
        "SET extra_float_digits = 2|1|0",
        "SET extra_float_digits = 3|1|0",
        "SHOW extra_float_digits|1|0",
    ];
    assert_eq!(rows(&c, tracked).await, want);
    run(&c, "SET pg_stat_statements.track_utility = off").await;
    run(
        &c,
        "BEGIN; COMMIT; CREATE TABLE ut2 (a int); SHOW extra_float_digits",
    )
    .await;
    run(&c, "DO $$ BEGIN PERFORM 1; END $$").await;
    // As in PostgreSQL, whether a utility statement counts is decided
    // before it runs: the SET that turned tracking off counts, the RESET
    // that turns it on again does not.
    run(&c, "RESET pg_stat_statements.track_utility").await;
    assert_eq!(rows(&c, tracked).await, want);
    assert_eq!(
        rows(
            &c,
            "SELECT query FROM pg_stat_statements
              WHERE query LIKE '%track_utility%' AND query NOT LIKE 'SELECT%' ORDER BY 1"
        )
        .await,
        vec!["SET pg_stat_statements.track_utility = off"]
    );
    run(&c, "BEGIN; COMMIT").await;
    assert_eq!(
        rows(
            &c,
            "SELECT calls FROM pg_stat_statements WHERE query = 'BEGIN'"
        )
        .await,
        vec!["3"]
    );
}

/// pg_stat_statements.track = all: the statements PL/pgSQL and SQL
/// functions run count under entries with toplevel false, next to the
/// top-level calls that ran them (PostgreSQL 15 shows the same rows but
/// for `SELECT $2 + x` and `(SELECT count(*) FROM nt)`); with `top` they
/// do not count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_statements_track_all_counts_nested_statements() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    run(
        &c,
        "CREATE TABLE nt (a int); INSERT INTO nt VALUES (1), (2);
         CREATE FUNCTION pf(x int) RETURNS int LANGUAGE plpgsql AS $$
           BEGIN PERFORM 1 + x; INSERT INTO nt VALUES (x);
                 RETURN (SELECT count(*) FROM nt); END $$;
         CREATE FUNCTION sf() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM nt $$;
         SET pg_stat_statements.track = 'all'",
    )
    .await;
    run(&c, "SELECT pg_stat_statements_reset()").await;
    run(&c, "SELECT pf(5)").await;
    run(&c, "SELECT pf(6)").await;
    run(&c, "SELECT sf()").await;
    run(&c, "DO $$ BEGIN PERFORM pf(7); END $$").await;
    let q = "SELECT toplevel, calls, rows, query FROM pg_stat_statements
              WHERE query NOT LIKE '%pg_stat_statements%'
              ORDER BY query COLLATE \"C\", toplevel";
    let want = vec![
        "t|1|0|DO $$ BEGIN PERFORM pf(7); END $$",
        "f|3|3|INSERT INTO nt VALUES (x)",
        "f|3|3|SELECT $1 + x",
        "f|3|3|SELECT (SELECT count(*) FROM nt)",
        "f|1|1|SELECT count(*) FROM nt",
        "f|1|1|SELECT pf($1)",
        "t|2|2|SELECT pf($1)",
        "t|1|1|SELECT sf()",
    ];
    assert_eq!(rows(&c, q).await, want);
    // With `top` nested statements do not count; the top-level call does.
    run(&c, "SET pg_stat_statements.track = 'top'").await;
    run(&c, "SELECT pf(8)").await;
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want[6] = "t|3|3|SELECT pf($1)".into();
    let got = rows(&c, q).await;
    assert_eq!(
        got.iter()
            .filter(|r| !r.contains("track"))
            .collect::<Vec<_>>(),
        want.iter().collect::<Vec<_>>()
    );
}

/// The Nestor column `savepoints`: savepoints a statement defined (here a
/// PL/pgSQL exception block entered once per call), summed over calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_statements_counts_savepoints_of_a_statement() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    run(
        &c,
        "CREATE FUNCTION guarded(n int) RETURNS int LANGUAGE plpgsql AS $$
         BEGIN
           FOR i IN 1..n LOOP
             BEGIN
               PERFORM 1 / (i - 2);
             EXCEPTION WHEN division_by_zero THEN NULL;
             END;
           END LOOP;
           RETURN n;
         END $$",
    )
    .await;
    run(&c, "SELECT pg_stat_statements_reset()").await;
    run(&c, "SELECT guarded(3)").await;
    run(&c, "SELECT guarded(4)").await;
    run(&c, "BEGIN; SAVEPOINT a; SELECT guarded(1); COMMIT").await;
    assert_eq!(
        rows(
            &c,
            "SELECT query, calls, savepoints FROM pg_stat_statements WHERE query LIKE '%guarded%'"
        )
        .await,
        vec!["SELECT guarded($1)|3|8"]
    );
}

/// log_min_duration_statement: statements taking at least that long are
/// logged with PostgreSQL's line; -1 logs nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_min_duration_statement_logs_slow_statements() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    assert_eq!(rows(&c, "SHOW log_destination").await, vec!["stderr"]);
    run(&c, "SELECT 'not logged', pg_sleep(0.01)").await;
    run(&c, "SET log_min_duration_statement = 0").await;
    run(&c, "SELECT 'logged' AS marker").await;
    let r = t(c.query("SELECT 'extended' AS marker", &[]))
        .await
        .unwrap();
    assert_eq!(r.len(), 1);
    run(&c, "SET log_min_duration_statement = '1h'").await;
    run(&c, "SELECT 'too fast' AS marker").await;
    assert_eq!(
        rows(&c, "SHOW log_min_duration_statement").await,
        vec!["1h"]
    );
    run(&c, "RESET log_min_duration_statement").await;
    assert_eq!(
        rows(&c, "SHOW log_min_duration_statement").await,
        vec!["-1"]
    );
    // (digits after the decimal point, statement) of each duration line.
    let durations = |l: &[String]| l.iter().filter(|l| l.contains("duration: ")).count();
    let logged: Vec<(usize, String)> = srv
        .log_lines_when(|l| durations(l) >= 3)
        .into_iter()
        .filter(|l| l.contains("duration: "))
        .map(|line| {
            let rest = line.strip_prefix("LOG:  duration: ").expect(&line);
            let (ms, stmt) = rest.split_once(" ms  statement: ").expect(&line);
            assert!(ms.parse::<f64>().is_ok(), "{line}");
            (ms.split('.').nth(1).map_or(0, str::len), stmt.to_string())
        })
        .collect();
    // The SET that turned logging on is logged too: PostgreSQL compares
    // with the value in force when the statement ends.
    assert_eq!(
        logged,
        vec![
            (3, "SET log_min_duration_statement = 0".to_string()),
            (3, "SELECT 'logged' AS marker".to_string()),
            (3, "SELECT 'extended' AS marker".to_string()),
        ]
    );
}

/// `--log-destination jsonlog`: every line the server writes is one JSON
/// object with PostgreSQL 15's jsonlog keys; an error carries its
/// SQLSTATE, statement and cursor position, a duration line the session's
/// identity, and a line written inside a transaction that has an XID that
/// XID.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonlog_writes_postgresql_json_lines() {
    let srv =
        tokio::task::block_in_place(|| Server::start_with(&["--log-destination", "jsonlog"], &[]));
    let (c, conn) = t(tokio_postgres::connect(
        &format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres application_name=jsontest",
            srv.port
        ),
        NoTls,
    ))
    .await
    .expect("connect");
    tokio::spawn(conn);
    let pid: u32 = rows(&c, "SELECT pg_backend_pid()").await[0]
        .parse()
        .unwrap();
    assert_eq!(rows(&c, "SHOW log_destination").await, vec!["jsonlog"]);
    assert!(c.simple_query("SELECT 1/0").await.is_err());
    assert!(c.simple_query("SELECT nosuchcolumn").await.is_err());
    run(&c, "SET log_min_duration_statement = 0").await;
    run(&c, "SELECT 'logged' AS marker").await;
    run(&c, "RESET log_min_duration_statement").await;
    run(&c, "CREATE TABLE j (a int)").await;
    run(&c, "BEGIN; INSERT INTO j VALUES (1)").await;
    let xid: u64 = rows(&c, "SELECT txid_current()").await[0].parse().unwrap();
    assert!(c.simple_query("SELECT 2/0").await.is_err());
    run(&c, "ROLLBACK").await;
    // log_min_error_statement above ERROR: the error without its
    // statement; log_min_messages above it: not logged.
    run(&c, "SET log_min_error_statement = panic").await;
    assert!(c.simple_query("SELECT 3/0").await.is_err());
    run(
        &c,
        "SET log_min_messages = fatal; SET log_min_duration_statement = 0",
    )
    .await;
    assert!(c.simple_query("SELECT 4/0").await.is_err());
    run(&c, "SELECT 'not logged either'").await;

    let lines: Vec<serde_json::Value> = srv
        .log_lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let mine: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["pid"] == pid && l["backend_type"] == "client backend")
        .collect();
    let messages: Vec<&str> = mine
        .iter()
        .map(|l| l["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 6, "{messages:?}");
    assert_eq!(messages[0], "division by zero");
    assert_eq!(messages[1], "column \"nosuchcolumn\" does not exist");
    assert!(messages[2].starts_with("duration: "), "{messages:?}");
    assert!(messages[3].starts_with("duration: "), "{messages:?}");
    assert_eq!(messages[4], "division by zero");
    assert_eq!(messages[5], "division by zero");
    assert!(mine[5].get("statement").is_none(), "{}", mine[5]);
    let keys =
        |l: &serde_json::Value| -> Vec<String> { l.as_object().unwrap().keys().cloned().collect() };
    // PostgreSQL's keys (its order; serde_json sorts them, so compare sets).
    let mut want = vec![
        "timestamp",
        "user",
        "dbname",
        "pid",
        "remote_host",
        "remote_port",
        "session_id",
        "line_num",
        "session_start",
        "txid",
        "error_severity",
        "state_code",
        "message",
        "statement",
        "cursor_position",
        "application_name",
        "backend_type",
    ];
    want.sort_unstable();
    assert_eq!(keys(mine[1]), want, "{}", mine[1]);
    let e = mine[0];
    assert_eq!(e["user"], "postgres");
    assert_eq!(e["dbname"], "postgres");
    assert_eq!(e["remote_host"], "127.0.0.1");
    assert!(e["remote_port"].as_u64().is_some_and(|p| p > 0), "{e}");
    assert_eq!(e["error_severity"], "ERROR");
    assert_eq!(e["state_code"], "22012");
    assert_eq!(e["statement"], "SELECT 1/0");
    assert_eq!(e["application_name"], "jsontest");
    assert_eq!(e["txid"], 0);
    assert!(e.get("cursor_position").is_none());
    assert_eq!(mine[1]["state_code"], "42703");
    assert_eq!(mine[1]["cursor_position"], 8);
    // session_id is the session's start (hex seconds) and pid, as
    // PostgreSQL's %c; line_num counts the session's lines.
    let sid = e["session_id"].as_str().unwrap();
    assert!(sid.ends_with(&format!(".{pid:x}")), "{sid}");
    assert_eq!(
        mine.iter()
            .map(|l| l["line_num"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert!(mine.iter().all(|l| l["session_id"] == sid));
    // 2026-11-26 06:56:12.776 UTC, and the session start without millis.
    let ts = e["timestamp"].as_str().unwrap();
    assert_eq!(ts.len(), 27, "{ts}");
    assert!(ts.ends_with(" UTC") && ts.as_bytes()[19] == b'.', "{ts}");
    assert_eq!(e["session_start"].as_str().unwrap().len(), 23);
    let d = mine[3];
    assert_eq!(d["error_severity"], "LOG");
    assert_eq!(
        d["message"].as_str().unwrap().split("statement: ").nth(1),
        Some("SELECT 'logged' AS marker")
    );
    assert!(d.get("state_code").is_none() && d.get("statement").is_none());
    let in_txn = mine[4];
    assert_eq!(in_txn["txid"], xid);
    assert_eq!(in_txn["statement"], "SELECT 2/0");
    // The server's own lines (no session) are JSON too.
    assert!(lines.iter().any(|l| l["backend_type"] == "postmaster"
        && l["message"].as_str().unwrap().starts_with("listening on ")));

    // A line another thread writes about the session (the pruner's
    // long-transaction warning) carries the session's fields, and counts
    // on in its line numbers.
    run(
        &c,
        "RESET log_min_duration_statement; RESET log_min_messages; \
         SET nestor.long_transaction_warning = '100ms'; \
         BEGIN; SELECT 'long one'",
    )
    .await;
    let mut warning = None;
    for _ in 0..100 {
        warning = srv
            .log_lines()
            .iter()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|l| l["error_severity"] == "WARNING");
        if warning.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    run(&c, "COMMIT").await;
    let w = warning.expect("no long-transaction warning");
    assert_eq!(w["pid"], pid, "{w}");
    assert_eq!(w["user"], "postgres");
    assert_eq!(w["session_id"], sid);
    assert_eq!(w["line_num"], 7);
    assert_eq!(w["backend_type"], "client backend");
    assert!(w["detail"]
        .as_str()
        .is_some_and(|d| d.contains("SELECT 'long one'")));
}

/// One row of a query, every column as text.
async fn row(c: &Client, sql: &str) -> Vec<String> {
    let r = rows(c, sql).await;
    assert_eq!(r.len(), 1, "{sql}: {r:?}");
    r[0].split('|').map(str::to_string).collect()
}

fn ints(r: &[String]) -> Vec<i64> {
    r.iter()
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{v} in {r:?}")))
        .collect()
}

const DB_COUNTERS: &str = "SELECT xact_commit, xact_rollback, tup_inserted, tup_updated,
        tup_deleted, deadlocks, sessions, tup_returned, tup_fetched
   FROM pg_stat_database WHERE datname = current_database()";

/// Commit 3, roll back 2 (and one failed statement): the xact_commit and
/// xact_rollback deltas; rows inserted, updated and deleted, rolled back
/// ones too (as PostgreSQL counts them); a deadlock; a new session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_database_counts_transactions_rows_and_deadlocks() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    run(
        &c,
        "CREATE TABLE t (id int PRIMARY KEY, v int);
         INSERT INTO t SELECT g, 0 FROM generate_series(1, 5) g",
    )
    .await;
    let shape = rows(
        &c,
        "SELECT datid = (SELECT oid FROM pg_database WHERE datname = current_database()),
                numbackends, blks_read, conflicts, checksum_failures IS NULL,
                stats_reset IS NOT NULL
           FROM pg_stat_database ORDER BY datid DESC",
    )
    .await;
    // The database's row, then the one for shared objects (datid 0).
    assert_eq!(shape, vec!["t|1|0|0|t|t", "f|0|0|0|t|f"]);
    let before = ints(&row(&c, DB_COUNTERS).await);
    run(&c, "BEGIN; INSERT INTO t VALUES (6, 0), (7, 0); COMMIT").await;
    run(&c, "BEGIN; UPDATE t SET v = v + 1 WHERE id <= 3; COMMIT").await;
    run(&c, "DELETE FROM t WHERE id = 7").await;
    run(&c, "BEGIN; INSERT INTO t VALUES (8, 0); ROLLBACK").await;
    run(&c, "BEGIN; DELETE FROM t WHERE id = 1; ROLLBACK").await;
    assert!(t(c.batch_execute("SELECT 1 / 0")).await.is_err());
    let after = ints(&row(&c, DB_COUNTERS).await);
    let delta: Vec<i64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    // Commits: three, and the query that read `before` (counted at its
    // commit, after it read). Rollbacks: two, and the failed statement.
    assert_eq!(delta[..7], [4, 3, 3, 3, 2, 0, 0]);
    // Rows read: what pg_stat_all_tables says of t.
    let t_reads = ints(
        &row(
            &c,
            "SELECT seq_tup_read + idx_tup_fetch, idx_tup_fetch FROM pg_stat_user_tables
              WHERE relname = 't'",
        )
        .await,
    );
    assert_eq!(after[7..], t_reads[..]);

    // A deadlock between two sessions: one of them gets 40P01.
    let c2 = connect(&srv, "postgres").await;
    assert_eq!(
        row(
            &c,
            "SELECT numbackends FROM pg_stat_database WHERE datid <> 0"
        )
        .await,
        vec!["2"]
    );
    run(&c, "BEGIN; UPDATE t SET v = 10 WHERE id = 2").await;
    run(&c2, "BEGIN; UPDATE t SET v = 20 WHERE id = 3").await;
    let (r1, r2) = tokio::join!(
        t(c.batch_execute("UPDATE t SET v = 11 WHERE id = 3")),
        t(c2.batch_execute("UPDATE t SET v = 21 WHERE id = 2"))
    );
    let codes: Vec<Option<&str>> = [&r1, &r2]
        .iter()
        .map(|r| {
            r.as_ref()
                .err()
                .and_then(|e| e.as_db_error())
                .map(|d| d.code().code())
        })
        .collect();
    assert!(
        codes == [Some("40P01"), None] || codes == [None, Some("40P01")],
        "{codes:?}"
    );
    run(&c, "ROLLBACK").await;
    run(&c2, "ROLLBACK").await;
    let last = ints(&row(&c, DB_COUNTERS).await);
    assert_eq!(last[5] - after[5], 1, "deadlocks");
    assert_eq!(last[6] - after[6], 1, "sessions");
}

const TABLE_ROW: &str = "SELECT seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins,
        n_tup_upd, n_tup_del, n_tup_hot_upd, n_live_tup, n_dead_tup,
        vacuum_count, autovacuum_count, analyze_count
   FROM pg_stat_user_tables WHERE relname = 'u'";

/// Scans, row changes, live rows and versions waiting for pruning of one
/// table, then VACUUM's prune and pg_stat_reset().
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_user_tables_counts_scans_changes_and_dead_versions() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    run(
        &c,
        "CREATE TABLE u (id int PRIMARY KEY, v int);
         INSERT INTO u SELECT g, g FROM generate_series(1, 10) g;
         CREATE TABLE nidx (x int);
         INSERT INTO nidx VALUES (1), (2)",
    )
    .await;
    assert_eq!(
        ints(&row(&c, TABLE_ROW).await),
        [0, 0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 0]
    );
    run(&c, "SELECT v FROM u WHERE id = 4").await;
    run(&c, "SELECT count(*) FROM u").await;
    run(&c, "UPDATE u SET v = 0 WHERE id = 5").await;
    run(&c, "DELETE FROM u WHERE id = 6").await;
    run(&c, "BEGIN; INSERT INTO u VALUES (11, 0); ROLLBACK").await;
    // Index scans: the SELECT, the UPDATE's and the DELETE's lookups.
    assert_eq!(
        ints(&row(&c, TABLE_ROW).await),
        [1, 10, 3, 3, 11, 1, 1, 0, 9, 2, 0, 0, 0]
    );
    assert_eq!(
        row(
            &c,
            "SELECT relid = 'u'::regclass::oid, schemaname, last_vacuum IS NULL,
                    last_analyze IS NULL
               FROM pg_stat_all_tables WHERE relname = 'u'"
        )
        .await,
        ["t", "public", "t", "t"]
    );
    run(&c, "SELECT * FROM nidx").await;
    assert_eq!(
        row(
            &c,
            "SELECT seq_scan, seq_tup_read, idx_scan IS NULL, idx_tup_fetch IS NULL
               FROM pg_stat_user_tables WHERE relname = 'nidx'"
        )
        .await,
        ["1", "2", "t", "t"]
    );
    run(&c, "VACUUM u").await;
    assert_eq!(
        row(
            &c,
            "SELECT n_dead_tup, vacuum_count, last_vacuum IS NOT NULL, n_live_tup
               FROM pg_stat_user_tables WHERE relname = 'u'"
        )
        .await,
        ["0", "1", "t", "9"]
    );
    run(&c, "SELECT pg_stat_reset()").await;
    assert_eq!(
        ints(&row(&c, TABLE_ROW).await),
        [0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 0, 0]
    );
    // The reset's own transaction committed after it, and so did the read
    // of u's row.
    assert_eq!(
        row(
            &c,
            "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datid <> 0"
        )
        .await,
        ["2", "0"]
    );
}

/// nestor.long_transaction_warning: a transaction open that long gets one
/// WARNING line in the server log, naming its process, its state and its
/// last statement (polled for: the check runs about once a second).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_transaction_warning_names_the_session() {
    let srv = tokio::task::block_in_place(Server::start);
    let c = connect(&srv, "postgres").await;
    assert_eq!(
        rows(&c, "SHOW nestor.long_transaction_warning").await,
        vec!["1h"]
    );
    run(&c, "SET nestor.long_transaction_warning = '100ms'").await;
    let pid = rows(&c, "SELECT pg_backend_pid()").await.remove(0);
    run(&c, "BEGIN; SELECT 'long one' AS marker").await;
    let mut found = Vec::new();
    for _ in 0..100 {
        found = srv
            .log_lines()
            .into_iter()
            .skip_while(|l| !l.starts_with("WARNING:  transaction of process"))
            .take(2)
            .collect();
        if found.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    run(&c, "COMMIT").await;
    assert_eq!(found.len(), 2, "no warning in the log");
    assert!(
        found[0].starts_with(&format!(
            "WARNING:  transaction of process {pid} has been open for "
        )),
        "{found:?}"
    );
    assert!(
        found[0].ends_with(" s (idle in transaction): it holds back pruning of dead row versions"),
        "{found:?}"
    );
    assert_eq!(
        found[1],
        "DETAIL:  Its last statement: BEGIN; SELECT 'long one' AS marker"
    );
}
