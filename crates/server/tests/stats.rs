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
    run(&c, "SELECT 'not logged', pg_sleep(0.01)").await;
    run(&c, "SET log_min_duration_statement = 0").await;
    run(&c, "SELECT 'logged' AS marker").await;
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
    let logged: Vec<(usize, String)> = srv
        .log_lines()
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
        ]
    );
}
