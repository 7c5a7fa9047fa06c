//! Multi-session scenarios against the real `nestor` binary with
//! tokio-postgres: lock waits and how they end, row-lock modes with NOWAIT
//! and SKIP LOCKED, deadlocks, READ COMMITTED re-check (EvalPlanQual),
//! REPEATABLE READ serialization failures, unique-key races,
//! pg_stat_activity, cancel/terminate, timeouts, vanished clients, XID
//! consumption with savepoints, and the extended protocol with binary
//! results.
//!
//! Every test starts its own server (or, with NESTOR_TEST_PG_PORT=<port>,
//! uses an existing PostgreSQL in a fresh database named after the test, to
//! check the test itself). Nothing sleeps to "let something happen": a
//! session that must be blocked is polled for in pg_stat_activity, with a
//! bounded number of attempts. Every await has a timeout, so a hang fails.
//!
//! Where Nestor deliberately differs from PostgreSQL (XIDs per savepoint,
//! xmin inside savepoints, SERIALIZABLE), the expectation depends on the
//! target and says so.

mod common;

use bytes::BytesMut;
use common::*;
use std::future::Future;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

/// Upper bound for any single await.
const STEP: Duration = Duration::from_secs(20);

async fn t<F: Future>(f: F) -> F::Output {
    match tokio::time::timeout(STEP, f).await {
        Ok(v) => v,
        Err(_) => panic!("timed out after {STEP:?} (a hang?)"),
    }
}

/// Where sessions connect: a fresh nestor, or an existing PostgreSQL.
struct Target {
    _srv: Option<Server>,
    port: u16,
    db: String,
    is_pg: bool,
}

impl Target {
    async fn new(test: &str) -> Target {
        if let Ok(p) = std::env::var("NESTOR_TEST_PG_PORT") {
            let port: u16 = p.parse().expect("NESTOR_TEST_PG_PORT");
            let db = format!("nestor_sessions_{test}");
            let (admin, conn) = t(tokio_postgres::connect(
                &format!("host=127.0.0.1 port={port} user=postgres dbname=postgres"),
                NoTls,
            ))
            .await
            .expect("connect to PostgreSQL");
            tokio::spawn(conn);
            t(admin.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")))
                .await
                .unwrap();
            t(admin.batch_execute(&format!("CREATE DATABASE {db}")))
                .await
                .unwrap();
            Target {
                _srv: None,
                port,
                db,
                is_pg: true,
            }
        } else {
            let srv = tokio::task::block_in_place(Server::start);
            Target {
                port: srv.port,
                _srv: Some(srv),
                db: "postgres".to_owned(),
                is_pg: false,
            }
        }
    }

    fn conn_str(&self) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname={} application_name=sessions",
            self.port, self.db
        )
    }

    async fn client(&self) -> (Client, JoinHandle<Result<(), tokio_postgres::Error>>) {
        let (client, conn) = t(tokio_postgres::connect(&self.conn_str(), NoTls))
            .await
            .expect("connect");
        (client, tokio::spawn(conn))
    }

    async fn session(&self) -> Session {
        let (c, conn) = self.client().await;
        let c = Arc::new(c);
        let pid = t(c.simple_query("SELECT pg_backend_pid()"))
            .await
            .expect("pg_backend_pid")
            .iter()
            .find_map(|m| match m {
                SimpleQueryMessage::Row(r) => r.get(0).map(|s| s.parse::<i32>().unwrap()),
                _ => None,
            })
            .expect("a pid");
        Session { c, pid, conn }
    }
}

struct Session {
    c: Arc<Client>,
    pid: i32,
    conn: JoinHandle<Result<(), tokio_postgres::Error>>,
}

type Outcome = Result<Vec<SimpleQueryMessage>, tokio_postgres::Error>;

/// Rows affected by the last command of a simple-query result.
fn affected(msgs: &[SimpleQueryMessage]) -> u64 {
    msgs.iter()
        .rev()
        .find_map(|m| match m {
            SimpleQueryMessage::CommandComplete(n) => Some(*n),
            _ => None,
        })
        .expect("a CommandComplete")
}

/// Text values of the first column.
fn col0(msgs: &[SimpleQueryMessage]) -> Vec<Option<String>> {
    msgs.iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(r.get(0).map(str::to_owned)),
            _ => None,
        })
        .collect()
}

fn sqlstate(e: &tokio_postgres::Error) -> String {
    e.code()
        .map(|c| c.code().to_owned())
        .unwrap_or_else(|| format!("(no SQLSTATE: {e})"))
}

fn message(e: &tokio_postgres::Error) -> String {
    e.as_db_error()
        .map(|d| d.message().to_owned())
        .unwrap_or_else(|| e.to_string())
}

/// The error must carry this SQLSTATE and message.
#[track_caller]
fn assert_error(r: &Outcome, code: &str, msg: &str) {
    match r {
        Ok(m) => panic!("expected {code} {msg:?}, got success: {} rows", m.len()),
        Err(e) => {
            assert_eq!(sqlstate(e), code, "error: {e:?}");
            assert_eq!(message(e), msg, "error: {e:?}");
        }
    }
}

impl Session {
    /// Run (simple protocol); panic on error.
    async fn run(&self, sql: &str) -> Vec<SimpleQueryMessage> {
        match t(self.c.simple_query(sql)).await {
            Ok(m) => m,
            Err(e) => panic!("{sql}: {e:?}"),
        }
    }

    async fn try_run(&self, sql: &str) -> Outcome {
        t(self.c.simple_query(sql)).await
    }

    /// First column of the first row, as text.
    async fn one(&self, sql: &str) -> Option<String> {
        col0(&self.run(sql).await)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{sql}: no rows"))
    }

    async fn int(&self, sql: &str) -> i64 {
        self.one(sql)
            .await
            .expect("not null")
            .parse()
            .expect("an integer")
    }

    /// Start a statement that is expected to block; it runs in its own task.
    fn spawn(&self, sql: &str) -> JoinHandle<Outcome> {
        let c = self.c.clone();
        let sql = sql.to_owned();
        tokio::spawn(async move { c.simple_query(&sql).await })
    }
}

async fn join(h: JoinHandle<Outcome>) -> Outcome {
    t(h).await.expect("task panicked")
}

/// Poll pg_stat_activity until `pid` waits on a lock (wait_event_type
/// 'Lock'); bounded. `h` is the blocked statement's task: if it finishes,
/// the statement did not block.
///
/// Fallback, so that one monitoring bug does not hide every scenario: if
/// after 2 s the session is active with no wait event while its statement
/// is still unfinished, carry on with a warning (the strict check is
/// `pg_stat_activity_shows_the_waiting_session`).
async fn wait_until_blocked(obs: &Session, pid: i32, h: &JoinHandle<Outcome>) {
    let sql = format!("SELECT wait_event_type, state FROM pg_stat_activity WHERE pid = {pid}");
    let mut last = (None, None);
    for attempt in 0..400 {
        let msgs = obs.run(&sql).await;
        if let Some(SimpleQueryMessage::Row(r)) = msgs
            .iter()
            .find(|m| matches!(m, SimpleQueryMessage::Row(_)))
        {
            last = (r.get(0).map(str::to_owned), r.get(1).map(str::to_owned));
        }
        if last.0.as_deref() == Some("Lock") {
            return;
        }
        assert!(
            !h.is_finished(),
            "session {pid}'s statement finished instead of waiting for the lock"
        );
        if attempt >= 80 && last.0.is_none() && last.1.as_deref() == Some("active") {
            eprintln!(
                "WARNING: session {pid} is blocked but pg_stat_activity shows no wait event \
                 (expected wait_event_type 'Lock'); continuing"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("session {pid} never showed wait_event_type 'Lock' (last: {last:?})");
}

/// Poll until `pid` is running a statement containing `needle`; bounded.
async fn wait_until_running(obs: &Session, pid: i32, needle: &str) {
    let sql = format!("SELECT state, query FROM pg_stat_activity WHERE pid = {pid}");
    for _ in 0..400 {
        for m in obs.run(&sql).await {
            if let SimpleQueryMessage::Row(r) = m {
                if r.get(0) == Some("active") && r.get(1).unwrap_or("").contains(needle) {
                    return;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("session {pid} never showed as running {needle:?}");
}

/// Poll until `pid` is gone from pg_stat_activity; bounded.
async fn wait_until_gone(obs: &Session, pid: i32) {
    let sql = format!("SELECT count(*) FROM pg_stat_activity WHERE pid = {pid}");
    for _ in 0..400 {
        if obs.int(&sql).await == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("session {pid} is still in pg_stat_activity");
}

/// Table t(id primary key, v) with rows (1, 0) .. (n, 0).
async fn table_t(s: &Session, n: i32) {
    s.run(&format!(
        "CREATE TABLE t (id integer PRIMARY KEY, v integer NOT NULL);
         INSERT INTO t SELECT g, 0 FROM generate_series(1, {n}) AS g"
    ))
    .await;
}

/// t's rows as "id:v,id:v" in id order.
async fn rows_of_t(s: &Session) -> String {
    col0(&s.run("SELECT id || ':' || v FROM t ORDER BY id").await)
        .into_iter()
        .map(|v| v.unwrap_or_default())
        .collect::<Vec<_>>()
        .join(",")
}

const NOWAIT_MSG: &str = "could not obtain lock on row in relation \"t\"";

// ---------------------------------------------------------------------------
// Lock waits and how they end

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_wait_ends_on_holders_commit() {
    let tg = Target::new("lock_wait_commit").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = v + 1 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = v + 10 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 11);
}

/// ALTER COLUMN TYPE that rewrites the table waits for the transactions
/// that wrote to it (PostgreSQL's ACCESS EXCLUSIVE lock waits for their
/// locks), so a row inserted and committed meanwhile is converted, not
/// left behind in the old storage.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn column_type_rewrite_waits_for_writers() {
    let tg = Target::new("rewrite_waits").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    a.run("CREATE TABLE r (x text); INSERT INTO r VALUES ('1')")
        .await;
    b.run("BEGIN; INSERT INTO r VALUES ('2')").await;
    let ha = a.spawn("ALTER TABLE r ALTER COLUMN x TYPE integer USING x::integer");
    wait_until_blocked(&obs, a.pid, &ha).await;
    b.run("COMMIT").await;
    join(ha).await.unwrap();
    assert_eq!(
        col0(
            &obs.run("SELECT x || ':' || pg_typeof(x) FROM r ORDER BY x")
                .await
        ),
        vec![Some("1:integer".to_string()), Some("2:integer".to_string())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_wait_ends_on_holders_rollback() {
    let tg = Target::new("lock_wait_rollback").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = v + 1 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = v + 10 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_wait_ends_on_rollback_to_savepoint() {
    let tg = Target::new("lock_wait_rollback_to").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 2).await;
    // A lock taken inside the savepoint is released by ROLLBACK TO, while
    // the holder's transaction goes on.
    a.run("BEGIN; UPDATE t SET v = 100 WHERE id = 2; SAVEPOINT s; UPDATE t SET v = v + 1 WHERE id = 1")
        .await;
    let hb = b.spawn("UPDATE t SET v = v + 10 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK TO SAVEPOINT s").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 10);
    // The lock taken before the savepoint is still held.
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 2 FOR UPDATE NOWAIT")
            .await,
        "55P03",
        NOWAIT_MSG,
    );
    // A row locked before the savepoint and updated again inside it stays
    // locked after ROLLBACK TO.
    a.run("UPDATE t SET v = 200 WHERE id = 2; SAVEPOINT s2; UPDATE t SET v = 300 WHERE id = 2; ROLLBACK TO s2")
        .await;
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 2 FOR UPDATE NOWAIT")
            .await,
        "55P03",
        NOWAIT_MSG,
    );
    a.run("COMMIT").await;
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 2").await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_update_wait_returns_the_committed_version() {
    let tg = Target::new("for_update_wait").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = 5 WHERE id = 1").await;
    b.run("BEGIN").await;
    let hb = b.spawn("SELECT v FROM t WHERE id = 1 FOR UPDATE");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(col0(&join(hb).await.unwrap()), vec![Some("5".to_owned())]);
    // b holds the lock now.
    assert_error(
        &a.try_run("SELECT * FROM t WHERE id = 1 FOR KEY SHARE NOWAIT")
            .await,
        "55P03",
        NOWAIT_MSG,
    );
    b.run("COMMIT").await;
}

// ---------------------------------------------------------------------------
// Row-lock modes

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_share_conflicts_with_for_update_nowait() {
    let tg = Target::new("for_share_nowait").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR SHARE").await;
    b.run("BEGIN").await;
    // Shared locks coexist.
    assert_eq!(
        col0(
            &b.run("SELECT id FROM t WHERE id = 1 FOR SHARE NOWAIT")
                .await
        ),
        vec![Some("1".to_owned())]
    );
    assert_eq!(
        col0(
            &b.run("SELECT id FROM t WHERE id = 1 FOR KEY SHARE NOWAIT")
                .await
        ),
        vec![Some("1".to_owned())]
    );
    b.run("ROLLBACK; BEGIN").await;
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT")
            .await,
        "55P03",
        NOWAIT_MSG,
    );
    b.run("ROLLBACK; BEGIN").await;
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 1 FOR NO KEY UPDATE NOWAIT")
            .await,
        "55P03",
        NOWAIT_MSG,
    );
    b.run("ROLLBACK").await;
    // An UPDATE cannot take the row either: NOWAIT via lock_timeout.
    a.run("COMMIT").await;
    // After the holder ends, NOWAIT succeeds.
    b.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT; COMMIT")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_key_share_allows_non_key_updates() {
    let tg = Target::new("for_key_share").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR KEY SHARE")
        .await;
    // FOR NO KEY UPDATE is compatible with FOR KEY SHARE...
    b.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR NO KEY UPDATE NOWAIT; ROLLBACK")
        .await;
    // ... and so is an UPDATE that does not change the key: no wait.
    assert_eq!(affected(&b.run("UPDATE t SET v = 7 WHERE id = 1").await), 1);
    // FOR UPDATE is not.
    b.run("BEGIN").await;
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT")
            .await,
        "55P03",
        NOWAIT_MSG,
    );
    b.run("ROLLBACK").await;
    // An UPDATE of the key waits for the KEY SHARE holder.
    let hb = b.spawn("UPDATE t SET id = 2 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    assert_eq!(
        col0(&obs.run("SELECT id || ':' || v FROM t").await),
        vec![Some("2:7".to_owned())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_key_share_next_to_a_running_non_key_update() {
    let tg = Target::new("key_share_vs_update").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 2).await;
    // A non-key UPDATE takes FOR NO KEY UPDATE: FOR KEY SHARE (with or
    // without NOWAIT / SKIP LOCKED) gets the row at once, as it was.
    a.run("BEGIN; UPDATE t SET v = 11 WHERE id = 1").await;
    for policy in ["", " NOWAIT", " SKIP LOCKED"] {
        b.run("BEGIN").await;
        let got = b
            .run(&format!(
                "SELECT id || ':' || v FROM t WHERE id = 1 FOR KEY SHARE{policy}"
            ))
            .await;
        assert_eq!(col0(&got), vec![Some("1:0".to_owned())], "{policy}");
        b.run("COMMIT").await;
    }
    // B keeps its key-share lock while A commits; A's new version is the
    // row B sees next, and the lock still keeps a key change away.
    b.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR KEY SHARE")
        .await;
    a.run("COMMIT").await;
    assert_eq!(b.int("SELECT v FROM t WHERE id = 1").await, 11);
    assert_error(
        &obs.try_run("SET lock_timeout = '50ms'; UPDATE t SET id = 3 WHERE id = 1")
            .await,
        "55P03",
        "canceling statement due to lock timeout",
    );
    b.run("COMMIT").await;
    obs.run("RESET lock_timeout").await;
    // FOR SHARE conflicts with the running update: it waits, then returns
    // the committed new version.
    a.run("BEGIN; UPDATE t SET v = 12 WHERE id = 1").await;
    b.run("BEGIN").await;
    let hb = b.spawn("SELECT v FROM t WHERE id = 1 FOR SHARE");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(col0(&join(hb).await.unwrap()), vec![Some("12".to_owned())]);
    b.run("COMMIT").await;
    // An UPDATE that changes the key conflicts with FOR KEY SHARE: NOWAIT
    // fails, a plain request waits and then finds the row gone.
    a.run("BEGIN; UPDATE t SET id = 5 WHERE id = 2").await;
    b.run("BEGIN").await;
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 2 FOR KEY SHARE NOWAIT")
            .await,
        "55P03",
        NOWAIT_MSG,
    );
    b.run("ROLLBACK; BEGIN").await;
    let hb = b.spawn("SELECT v FROM t WHERE id = 2 FOR KEY SHARE");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(col0(&join(hb).await.unwrap()), Vec::<Option<String>>::new());
    b.run("COMMIT").await;
    // A committed non-key update after a REPEATABLE READ snapshot does not
    // fail FOR KEY SHARE (PostgreSQL's lock-committed-update); FOR SHARE
    // gets 40001.
    b.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1")
        .await;
    a.run("UPDATE t SET v = 13 WHERE id = 1").await;
    assert_eq!(
        col0(&b.run("SELECT v FROM t WHERE id = 1 FOR KEY SHARE").await),
        vec![Some("12".to_owned())]
    );
    assert_error(
        &b.try_run("SELECT v FROM t WHERE id = 1 FOR SHARE").await,
        "40001",
        "could not serialize access due to concurrent update",
    );
    b.run("ROLLBACK").await;
    assert_eq!(rows_of_t(&obs).await, "1:13,5:0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_to_savepoint_ends_the_waits_on_what_it_undid() {
    let tg = Target::new("rollback_to_wakes").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 2).await;
    // A unique-key conflict with a row inserted after a savepoint.
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1; SAVEPOINT s; INSERT INTO t VALUES (6, 0)")
        .await;
    let hb = b.spawn("INSERT INTO t VALUES (6, 60)");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK TO SAVEPOINT s").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    // A conflict that survives the rollback keeps the waiter waiting.
    a.run("INSERT INTO t VALUES (7, 0); SAVEPOINT s2; INSERT INTO t VALUES (8, 0)")
        .await;
    let hb = b.spawn("INSERT INTO t VALUES (7, 70)");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK TO SAVEPOINT s2").await;
    wait_until_blocked(&obs, b.pid, &hb).await;
    // An error inside the savepoint undoes its level at once, too.
    a.run("SAVEPOINT s3; UPDATE t SET id = 9 WHERE id = 2")
        .await;
    let hc = obs.spawn("INSERT INTO t VALUES (9, 90)");
    let c_blocked = tg.session().await;
    wait_until_blocked(&c_blocked, obs.pid, &hc).await;
    assert!(a.try_run("SELECT 1/0").await.is_err());
    assert_eq!(affected(&join(hc).await.unwrap()), 1);
    a.run("ROLLBACK TO s3; COMMIT").await;
    assert_error(
        &join(hb).await,
        "23505",
        "duplicate key value violates unique constraint \"t_pkey\"",
    );
    assert_eq!(rows_of_t(&obs).await, "1:1,2:0,6:60,7:0,9:90");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temp_tables_are_private_and_end_with_their_session() {
    let tg = Target::new("temp_private").await;
    let (a, b) = (tg.session().await, tg.session().await);
    a.run("CREATE TEMP TABLE scratch (id serial PRIMARY KEY, v text); INSERT INTO scratch (v) VALUES ('a1'), ('a2')")
        .await;
    // Another session does not see it, and may use the name itself.
    assert_error(
        &b.try_run("SELECT * FROM scratch").await,
        "42P01",
        "relation \"scratch\" does not exist",
    );
    b.run("CREATE TABLE scratch (x int); INSERT INTO scratch VALUES (7)")
        .await;
    b.run("CREATE TEMP TABLE scratch (y int)").await;
    assert_eq!(b.int("SELECT count(*) FROM scratch").await, 0);
    // Each session's TEMP table shadows the permanent one for it alone.
    assert_eq!(a.int("SELECT count(*) FROM scratch").await, 2);
    a.run("INSERT INTO scratch (v) VALUES ('a3')").await;
    assert_eq!(a.int("SELECT max(id) FROM scratch").await, 3);
    // When A ends, its TEMP table is gone: the name is the permanent
    // table's again for a new session.
    let a_pid = a.pid;
    drop(a);
    wait_until_gone(&b, a_pid).await;
    let c = tg.session().await;
    assert_eq!(c.int("SELECT x FROM scratch").await, 7);
    c.run("CREATE TEMP TABLE scratch (z int) ON COMMIT DELETE ROWS; BEGIN; INSERT INTO scratch VALUES (1)")
        .await;
    assert_eq!(c.int("SELECT count(*) FROM scratch").await, 1);
    c.run("COMMIT").await;
    assert_eq!(c.int("SELECT count(*) FROM scratch").await, 0);
    assert_eq!(b.int("SELECT count(*) FROM scratch").await, 0);
    b.run("DROP TABLE scratch; DROP TABLE scratch").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn isolation_tester_sees_who_blocks_whom() {
    let tg = Target::new("is_blocked").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = 2 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    let blocked = |who: i32, by: String| {
        format!("SELECT pg_isolation_test_session_is_blocked({who}, '{{{by}}}')")
    };
    let yes = Some("t".to_owned());
    let no = Some("f".to_owned());
    assert_eq!(
        obs.one(&blocked(b.pid, format!("{},{}", obs.pid, a.pid)))
            .await,
        yes
    );
    assert_eq!(obs.one(&blocked(b.pid, obs.pid.to_string())).await, no);
    assert_eq!(obs.one(&blocked(a.pid, b.pid.to_string())).await, no);
    a.run("COMMIT").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    assert_eq!(obs.one(&blocked(b.pid, a.pid.to_string())).await, no);
}

// ---------------------------------------------------------------------------
// Relation locks

/// DDL waits for the transactions that used the table, and statements that
/// come after a waiting DDL queue behind it (PostgreSQL's lock queue);
/// when the DDL commits they see the new definition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ddl_waits_for_readers_and_later_readers_wait_for_ddl() {
    let tg = Target::new("rel_ddl_waits").await;
    let (a, b, c, obs) = (
        tg.session().await,
        tg.session().await,
        tg.session().await,
        tg.session().await,
    );
    table_t(&a, 2).await;
    a.run("BEGIN; SELECT count(*) FROM t").await;
    let hb = b.spawn("ALTER TABLE t ADD COLUMN w integer DEFAULT 7");
    wait_until_blocked(&obs, b.pid, &hb).await;
    assert_eq!(
        obs.one(&format!(
            "SELECT wait_event FROM pg_stat_activity WHERE pid = {}",
            b.pid
        ))
        .await,
        Some("relation".to_owned())
    );
    let hc = c.spawn("SELECT * FROM t ORDER BY id");
    wait_until_blocked(&obs, c.pid, &hc).await;
    // The reader that got in first is not held back by the queue.
    assert_eq!(a.int("SELECT count(*) FROM t").await, 2);
    a.run("COMMIT").await;
    join(hb).await.unwrap();
    // Planned before the ALTER ran, run after it committed: the new column.
    let rows = join(hc).await.unwrap();
    let last: Vec<Option<String>> = rows
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(r.get(2).map(str::to_owned)),
            _ => None,
        })
        .collect();
    assert_eq!(last, vec![Some("7".to_owned()), Some("7".to_owned())]);
}

/// ROLLBACK TO SAVEPOINT gives back the relation locks taken since the
/// savepoint, and so does an error inside one (PostgreSQL's subtransaction
/// abort); the locks from before the savepoint stay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_to_savepoint_releases_the_relation_locks_taken_since() {
    let tg = Target::new("rel_savepoint").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    async fn free(b: &Session) -> bool {
        let r = b
            .try_run("BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE NOWAIT")
            .await;
        b.run("ROLLBACK").await;
        r.is_ok()
    }
    a.run("BEGIN; SAVEPOINT s; LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
        .await;
    assert!(!free(&b).await, "held inside the savepoint");
    a.run("ROLLBACK TO s").await;
    assert!(free(&b).await, "given back by ROLLBACK TO");
    // An ALTER that fails after taking its lock, inside a savepoint.
    assert_error(
        &a.try_run("ALTER TABLE t ADD COLUMN v integer").await,
        "42701",
        "column \"v\" of relation \"t\" already exists",
    );
    a.run("ROLLBACK TO s").await;
    assert!(free(&b).await, "given back by the error's rollback");
    // A lock from before the savepoint stays.
    a.run("ROLLBACK; BEGIN; SELECT count(*) FROM t; SAVEPOINT s2; LOCK TABLE t; ROLLBACK TO s2")
        .await;
    assert_error(
        &b.try_run("BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE NOWAIT")
            .await,
        "55P03",
        "could not obtain lock on relation \"t\"",
    );
    b.run("ROLLBACK").await;
    assert_eq!(
        b.int("SELECT count(*) FROM t").await,
        1,
        "ACCESS SHARE does not block reads"
    );
    a.run("COMMIT").await;
    assert!(free(&b).await);
}

/// pg_locks lists relation locks (fast path and table), row and
/// transaction locks, granted and awaited; pg_blocking_pids names the
/// holder a waiter waits for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_locks_and_pg_blocking_pids_show_who_waits_for_what() {
    let tg = Target::new("rel_pg_locks").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    let oid = obs.int("SELECT 't'::regclass::oid").await;
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await;
    let mine = format!(
        "SELECT locktype || ':' || mode || ':' || granted || ':' || fastpath \
         FROM pg_locks WHERE pid = {} ORDER BY 1",
        a.pid
    );
    assert_eq!(
        col0(&obs.run(&mine).await),
        vec![
            Some("relation:RowExclusiveLock:true:true".to_owned()),
            Some("transactionid:ExclusiveLock:true:false".to_owned()),
            Some("tuple:ExclusiveLock:true:false".to_owned()),
        ]
    );
    let hb = b.spawn("TRUNCATE t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    // The strong request moved a's fast-path lock into the table.
    assert_eq!(
        col0(&obs.run(&mine).await)[0],
        Some("relation:RowExclusiveLock:true:false".to_owned())
    );
    assert_eq!(
        obs.one(&format!(
            "SELECT mode || ':' || granted FROM pg_locks \
             WHERE pid = {} AND locktype = 'relation' AND relation = {oid}",
            b.pid
        ))
        .await,
        Some("AccessExclusiveLock:false".to_owned())
    );
    assert_eq!(
        obs.one(&format!("SELECT pg_blocking_pids({})::text", b.pid))
            .await,
        Some(format!("{{{}}}", a.pid))
    );
    a.run("COMMIT").await;
    join(hb).await.unwrap();
    assert_eq!(
        obs.int(&format!(
            "SELECT count(*) FROM pg_locks WHERE pid IN ({}, {})",
            a.pid, b.pid
        ))
        .await,
        0
    );
}

/// The built-in wait sampler sees a session blocked on a row lock (and the
/// holder idle in its transaction) in nestor_wait_sampling_profile and
/// _history; resetting the profile forgets the wait that has ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_sampling_profiles_lock_waits() {
    let tg = Target::new("wait_sampling").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = 2 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    let count = |pid: i32, t: &str, e: &str| {
        format!(
            "SELECT coalesce(sum(count), 0) FROM nestor_wait_sampling_profile \
             WHERE pid = {pid} AND event_type = '{t}' AND event = '{e}'"
        )
    };
    let mut seen = (0, 0);
    for _ in 0..400 {
        seen = (
            obs.int(&count(b.pid, "Lock", "tuple")).await,
            obs.int(&count(a.pid, "Client", "ClientRead")).await,
        );
        if seen.0 > 0 && seen.1 > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(seen.0 > 0 && seen.1 > 0, "sampled: {seen:?}");
    assert!(
        obs.int(&format!(
            "SELECT count(*) FROM nestor_wait_sampling_history \
             WHERE pid = {} AND event = 'tuple' AND ts <= now()",
            b.pid
        ))
        .await
            > 0
    );
    a.run("COMMIT").await;
    join(hb).await.unwrap();
    obs.run("SELECT nestor_wait_sampling_reset_profile()").await;
    assert_eq!(obs.int(&count(b.pid, "Lock", "tuple")).await, 0);
}

/// log_lock_waits: a wait that outlasts deadlock_timeout is logged with
/// PostgreSQL's lines, and so is the moment it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_lock_waits_logs_long_waits_and_their_end() {
    let tg = Target::new("log_lock_waits").await;
    let Some(srv) = tg._srv.as_ref() else {
        return; // PostgreSQL's log is not ours to read
    };
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    b.run("SET log_lock_waits = on; SET deadlock_timeout = '50ms'")
        .await;
    a.run("BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE").await;
    let hb = b.spawn("SELECT count(*) FROM t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    let still = format!(
        "LOG:  process {} still waiting for AccessShareLock on relation",
        b.pid
    );
    let mut logged = false;
    for _ in 0..400 {
        logged = srv.log_lines().iter().any(|l| l.starts_with(&still));
        if logged {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(logged, "no '{still}' line");
    assert!(srv.log_lines().iter().any(|l| l
        == &format!(
            "DETAIL:  Process holding the lock: {}. Wait queue: {}.",
            a.pid, b.pid
        )));
    a.run("COMMIT").await;
    join(hb).await.unwrap();
    let acquired = format!(
        "LOG:  process {} acquired AccessShareLock on relation",
        b.pid
    );
    let mut done = false;
    for _ in 0..400 {
        done = srv.log_lines().iter().any(|l| l.starts_with(&acquired));
        if done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(done, "no '{acquired}' line");
}

/// Another session's uncommitted schema change is never used: a statement
/// waits for it and then runs on what was committed, here the definition
/// from before a rolled-back ALTER TABLE (the result's columns included).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncommitted_ddl_is_waited_for_and_rollback_restores_the_columns() {
    let tg = Target::new("rel_ddl_rollback").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; ALTER TABLE t ADD COLUMN w integer DEFAULT 7")
        .await;
    let hb = b.spawn("SELECT * FROM t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK").await;
    let rows = join(hb).await.unwrap();
    let widths: Vec<usize> = rows
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(r.len()),
            _ => None,
        })
        .collect();
    assert_eq!(widths, vec![2], "id and v only: {rows:?}");
    // TRUNCATE and a new row committed while a reader waited: READ
    // COMMITTED reads after the lock, so it sees the new row.
    a.run("BEGIN; TRUNCATE t; INSERT INTO t VALUES (9, 9)")
        .await;
    let hb = b.spawn("SELECT id || ':' || v FROM t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(col0(&join(hb).await.unwrap()), vec![Some("9:9".to_owned())]);
}

/// LOCK TABLE in each of PostgreSQL's eight modes against each other,
/// with NOWAIT: granted exactly when PostgreSQL's conflict table says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_table_modes_conflict_as_in_postgresql() {
    const MODES: [&str; 8] = [
        "ACCESS SHARE",
        "ROW SHARE",
        "ROW EXCLUSIVE",
        "SHARE UPDATE EXCLUSIVE",
        "SHARE",
        "SHARE ROW EXCLUSIVE",
        "EXCLUSIVE",
        "ACCESS EXCLUSIVE",
    ];
    // PostgreSQL's documentation, table 13.2 (X: conflicts).
    const CONFLICTS: [&str; 8] = [
        ".......X", "......XX", "....XXXX", "...XXXXX", "..XX.XXX", "..XXXXXX", ".XXXXXXX",
        "XXXXXXXX",
    ];
    let tg = Target::new("rel_lock_modes").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    for (i, held) in MODES.iter().enumerate() {
        a.run(&format!("BEGIN; LOCK TABLE t IN {held} MODE")).await;
        for (j, asked) in MODES.iter().enumerate() {
            b.run("BEGIN").await;
            let r = b
                .try_run(&format!("LOCK TABLE t IN {asked} MODE NOWAIT"))
                .await;
            if CONFLICTS[i].as_bytes()[j] == b'X' {
                assert_error(&r, "55P03", "could not obtain lock on relation \"t\"");
            } else {
                assert!(r.is_ok(), "{asked} next to {held}: {r:?}");
            }
            b.run("ROLLBACK").await;
        }
        a.run("COMMIT").await;
    }
    // One session never conflicts with itself.
    a.run("BEGIN; LOCK TABLE t IN SHARE MODE; LOCK TABLE t IN ROW EXCLUSIVE MODE; COMMIT")
        .await;
    assert_error(
        &a.try_run("LOCK TABLE t").await,
        "25P01",
        "LOCK TABLE can only be used in transaction blocks",
    );
}

/// Two sessions that share a table and both ask for ACCESS EXCLUSIVE:
/// the one that closes the cycle fails at once with 40P01 (PostgreSQL's
/// early check), and its failed transaction releases its locks, so the
/// other proceeds before the ROLLBACK.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_upgrade_deadlock_fails_the_upgrader_and_releases_its_locks() {
    let tg = Target::new("rel_upgrade_deadlock").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("SET deadlock_timeout = '60s'").await;
    b.run("SET deadlock_timeout = '60s'").await;
    a.run("BEGIN; SELECT count(*) FROM t").await;
    b.run("BEGIN; SELECT count(*) FROM t").await;
    let ha = a.spawn("LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
    wait_until_blocked(&obs, a.pid, &ha).await;
    assert_error(
        &b.try_run("DROP TABLE t").await,
        "40P01",
        "deadlock detected",
    );
    join(ha).await.unwrap();
    b.run("ROLLBACK").await;
    a.run("DROP TABLE t; COMMIT").await;
}

// ---------------------------------------------------------------------------
// Uncommitted DDL: what other sessions see (catalog claims)

/// A DROP TABLE that has not committed hides nothing: another session's
/// query resolves the table, waits for the dropper's lock, and runs once
/// the drop rolls back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncommitted_drop_is_not_seen_and_its_rollback_lets_readers_run() {
    let tg = Target::new("ddl_drop_rollback").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 3).await;
    a.run("BEGIN; DROP TABLE t").await;
    assert_eq!(
        obs.int("SELECT count(*) FROM pg_class WHERE relname = 't'")
            .await,
        1,
        "pg_class shows the committed table"
    );
    let hb = b.spawn("SELECT count(*) FROM t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK").await;
    assert_eq!(col0(&join(hb).await.unwrap()), vec![Some("3".to_string())]);
}

/// ... and once the drop commits, the waiting query fails as in
/// PostgreSQL: the relation does not exist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn committed_drop_fails_the_waiting_reader() {
    let tg = Target::new("ddl_drop_commit").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; DROP TABLE t").await;
    let hb = b.spawn("SELECT count(*) FROM t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_error(&join(hb).await, "42P01", "relation \"t\" does not exist");
}

/// Creating a table over a name another transaction dropped but has not
/// committed fails (the name is still taken), and the dropper's rollback
/// then restores its own table: nothing the other session did is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_over_an_uncommitted_drop_is_refused_and_rollback_keeps_the_table() {
    let tg = Target::new("ddl_create_over_drop").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 2).await;
    a.run("BEGIN; DROP TABLE t").await;
    assert_error(
        &b.try_run("CREATE TABLE t (b text)").await,
        "42P07",
        "relation \"t\" already exists",
    );
    a.run("ROLLBACK").await;
    assert_eq!(rows_of_t(&b).await, "1:0,2:0");
    // Once the drop commits, the name is free.
    a.run("BEGIN; DROP TABLE t; COMMIT").await;
    b.run("CREATE TABLE t (b text); INSERT INTO t VALUES ('mine')")
        .await;
    assert_eq!(a.one("SELECT b FROM t").await.as_deref(), Some("mine"));
}

/// A table created by a transaction that has not committed does not
/// exist for anyone else: not to queries, not in pg_class or
/// information_schema; a CREATE of the same name waits for the creator
/// and fails if it commits, succeeds if it rolls back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncommitted_create_is_invisible_and_a_second_create_waits() {
    let tg = Target::new("ddl_create_invisible").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    a.run("BEGIN; CREATE TABLE n (x int); INSERT INTO n VALUES (1)")
        .await;
    assert_error(
        &b.try_run("SELECT * FROM n").await,
        "42P01",
        "relation \"n\" does not exist",
    );
    assert_eq!(
        obs.int(
            "SELECT (SELECT count(*) FROM pg_class WHERE relname = 'n') \
             + (SELECT count(*) FROM information_schema.tables WHERE table_name = 'n')"
        )
        .await,
        0
    );
    // The creator rolls back: the second CREATE goes ahead.
    let hb = b.spawn("CREATE TABLE n (y text)");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK").await;
    join(hb).await.unwrap();
    assert_eq!(
        obs.one("SELECT string_agg(attname, ',') FROM pg_attribute WHERE attrelid = 'n'::regclass AND attnum > 0")
            .await
            .as_deref(),
        Some("y")
    );
    // The creator commits: the second CREATE fails once it has waited
    // (PostgreSQL reports its catalog's unique index, 23505; Nestor 42P07).
    a.run("BEGIN; CREATE TABLE m (x int)").await;
    let hb = b.spawn("CREATE TABLE m (y text)");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    let r = join(hb).await;
    match tg.is_pg {
        true => assert_eq!(sqlstate(r.as_ref().unwrap_err()), "23505"),
        false => assert_error(&r, "42P07", "relation \"m\" already exists"),
    }
}

/// A RENAME that has not committed: the old name still resolves (and
/// waits for the renamer), the new one does not exist yet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncommitted_rename_keeps_the_old_name_for_others() {
    let tg = Target::new("ddl_rename").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; ALTER TABLE t RENAME TO u").await;
    assert_eq!(a.int("SELECT count(*) FROM u").await, 1);
    assert_error(
        &b.try_run("SELECT * FROM u").await,
        "42P01",
        "relation \"u\" does not exist",
    );
    assert_eq!(
        obs.one("SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relname IN ('t', 'u', 't_pkey')")
            .await
            .as_deref(),
        Some("t,t_pkey")
    );
    let hb = b.spawn("SELECT count(*) FROM t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK").await;
    assert_eq!(col0(&join(hb).await.unwrap()), vec![Some("1".to_string())]);
    // Committed, the waiting reader of the old name fails.
    a.run("BEGIN; ALTER TABLE t RENAME TO u").await;
    let hb = b.spawn("SELECT count(*) FROM t");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_error(&join(hb).await, "42P01", "relation \"t\" does not exist");
    assert_eq!(b.int("SELECT count(*) FROM u").await, 1);
}

/// An index being created is not used by, or listed for, other sessions
/// until it commits; their queries do not wait (CREATE INDEX takes SHARE).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncommitted_index_is_not_seen_by_others() {
    let tg = Target::new("ddl_index").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 3).await;
    a.run("BEGIN; CREATE INDEX t_v ON t (v)").await;
    assert_eq!(
        b.int("SELECT count(*) FROM pg_indexes WHERE tablename = 't'")
            .await,
        1,
        "only t_pkey"
    );
    assert_eq!(b.int("SELECT count(*) FROM t WHERE v = 0").await, 3);
    a.run("COMMIT").await;
    assert_eq!(
        b.int("SELECT count(*) FROM pg_indexes WHERE tablename = 't'")
            .await,
        2
    );
}

/// CREATE OR REPLACE FUNCTION that has not committed changes no other
/// session's calls, and a new function does not exist for them yet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncommitted_function_changes_are_not_seen_by_others() {
    let tg = Target::new("ddl_function").await;
    let (a, b) = (tg.session().await, tg.session().await);
    a.run("CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'")
        .await;
    a.run(
        "BEGIN; CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 2'; \
         CREATE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT 3'",
    )
    .await;
    assert_eq!(a.int("SELECT f() + g()").await, 5);
    assert_eq!(b.int("SELECT f()").await, 1);
    assert_error(
        &b.try_run("SELECT g()").await,
        "42883",
        "function g() does not exist",
    );
    assert_eq!(
        b.int("SELECT count(*) FROM pg_proc WHERE proname IN ('f', 'g')")
            .await,
        1
    );
    a.run("COMMIT").await;
    assert_eq!(b.int("SELECT f() + g()").await, 5);
}

// ---------------------------------------------------------------------------
// Advisory locks

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advisory_locks_session_and_transaction_level() {
    let tg = Target::new("advisory").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    let yes = Some("t".to_owned());
    let no = Some("f".to_owned());
    // Session level: survives the transaction, counted, waited for.
    a.run("BEGIN; SELECT pg_advisory_lock(7); SELECT pg_advisory_lock(7); ROLLBACK")
        .await;
    assert_eq!(b.one("SELECT pg_try_advisory_lock(7)").await, no);
    // The one-key and two-key forms are different locks.
    assert_eq!(b.one("SELECT pg_try_advisory_lock(0, 7)").await, yes);
    assert_eq!(b.one("SELECT pg_advisory_unlock(0, 7)").await, yes);
    let hb = b.spawn("SELECT pg_advisory_lock(7)");
    wait_until_blocked(&obs, b.pid, &hb).await;
    assert_eq!(a.one("SELECT pg_advisory_unlock(7)").await, yes);
    // Taken twice: still held after one unlock.
    assert!(!hb.is_finished());
    assert_eq!(a.one("SELECT pg_advisory_unlock(7)").await, yes);
    // void is not NULL: psql prints an empty string.
    assert_eq!(col0(&join(hb).await.unwrap()), vec![Some(String::new())]);
    // Unlocking what one does not hold: false (and a WARNING).
    assert_eq!(a.one("SELECT pg_advisory_unlock(7)").await, no);
    // Shared locks share; an exclusive request waits for them.
    b.run("SELECT pg_advisory_unlock(7)").await;
    a.run("SELECT pg_advisory_lock_shared(8)").await;
    assert_eq!(b.one("SELECT pg_try_advisory_lock_shared(8)").await, yes);
    assert_eq!(obs.one("SELECT pg_try_advisory_lock(8)").await, no);
    b.run("SELECT pg_advisory_unlock_all()").await;
    assert_eq!(obs.one("SELECT pg_try_advisory_lock(8)").await, no);
    // A session's end releases its session-level locks.
    drop(a);
    let mut got = None;
    for _ in 0..400 {
        got = obs.one("SELECT pg_try_advisory_lock(8)").await;
        if got == yes {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(got, yes);
    obs.run("SELECT pg_advisory_unlock(8)").await;
    // Transaction level: released by COMMIT, and by ROLLBACK TO a
    // savepoint taken before it.
    b.run("BEGIN; SAVEPOINT s; SELECT pg_advisory_xact_lock(9)")
        .await;
    assert_eq!(obs.one("SELECT pg_try_advisory_xact_lock(9)").await, no);
    b.run("ROLLBACK TO s").await;
    assert_eq!(obs.one("SELECT pg_try_advisory_xact_lock(9)").await, yes);
    b.run("SELECT pg_advisory_xact_lock(10)").await;
    let ho = obs.spawn("SELECT pg_advisory_xact_lock(10)");
    wait_until_blocked(&tg.session().await, obs.pid, &ho).await;
    b.run("COMMIT").await;
    join(ho).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advisory_lock_deadlock_is_detected() {
    let tg = Target::new("advisory_deadlock").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    // b's timer fires first, so b is the victim.
    a.run("SET deadlock_timeout = '60s'").await;
    b.run("SET deadlock_timeout = '100ms'").await;
    a.run("SELECT pg_advisory_lock(1)").await;
    b.run("SELECT pg_advisory_lock(2)").await;
    let ha = a.spawn("SELECT pg_advisory_lock(2)");
    wait_until_blocked(&obs, a.pid, &ha).await;
    let err = b
        .try_run("SELECT pg_advisory_lock(1)")
        .await
        .expect_err("b must be the deadlock victim");
    assert_eq!(sqlstate(&err), "40P01", "{err:?}");
    // Session-level locks outlive the error: a waits until b lets go.
    assert!(!ha.is_finished());
    b.run("SELECT pg_advisory_unlock_all()").await;
    join(ha).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn for_update_blocks_every_other_lock_mode() {
    let tg = Target::new("for_update_blocks").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR UPDATE")
        .await;
    for mode in ["UPDATE", "NO KEY UPDATE", "SHARE", "KEY SHARE"] {
        b.run("BEGIN").await;
        assert_error(
            &b.try_run(&format!("SELECT * FROM t WHERE id = 1 FOR {mode} NOWAIT"))
                .await,
            "55P03",
            NOWAIT_MSG,
        );
        b.run("ROLLBACK").await;
    }
    // Plain reads never block.
    assert_eq!(b.int("SELECT v FROM t WHERE id = 1").await, 0);
    a.run("COMMIT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skip_locked_skips_locked_rows() {
    let tg = Target::new("skip_locked").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 3).await;
    a.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR UPDATE")
        .await;
    b.run("BEGIN").await;
    let s = |v: &[&str]| v.iter().map(|x| Some(x.to_string())).collect::<Vec<_>>();
    assert_eq!(
        col0(
            &b.run("SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED")
                .await
        ),
        s(&["2", "3"])
    );
    b.run("ROLLBACK; BEGIN").await;
    assert_eq!(
        col0(
            &b.run("SELECT id FROM t ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
                .await
        ),
        s(&["2"])
    );
    // A second queue consumer skips both.
    let c = tg.session().await;
    c.run("BEGIN").await;
    assert_eq!(
        col0(
            &c.run("SELECT id FROM t ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
                .await
        ),
        s(&["3"])
    );
    c.run("ROLLBACK").await;
    b.run("ROLLBACK").await;
    a.run("ROLLBACK").await;
    // Shared locks do not make FOR SHARE skip anything.
    a.run("BEGIN; SELECT * FROM t WHERE id = 1 FOR SHARE").await;
    b.run("BEGIN").await;
    assert_eq!(
        col0(
            &b.run("SELECT id FROM t ORDER BY id FOR SHARE SKIP LOCKED")
                .await
        ),
        s(&["1", "2", "3"])
    );
    assert_eq!(
        col0(
            &b.run("SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED")
                .await
        ),
        s(&["2", "3"])
    );
    b.run("ROLLBACK").await;
    a.run("ROLLBACK").await;
}

// ---------------------------------------------------------------------------
// Deadlocks

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadlock_aborts_exactly_one_session() {
    let tg = Target::new("deadlock").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 2).await;
    for s in [&a, &b] {
        s.run("SET deadlock_timeout = '100ms'").await;
    }
    a.run("BEGIN; UPDATE t SET v = v + 1 WHERE id = 1").await;
    b.run("BEGIN; UPDATE t SET v = v + 10 WHERE id = 2").await;
    let ha = a.spawn("UPDATE t SET v = v + 1 WHERE id = 2");
    wait_until_blocked(&obs, a.pid, &ha).await;
    let hb = b.spawn("UPDATE t SET v = v + 10 WHERE id = 1");
    // The victim's error aborts its transaction and releases its locks, so
    // the survivor finishes without waiting for the victim's ROLLBACK.
    let (ra, rb) = tokio::join!(join(ha), join(hb));
    let (winner, loser, err) = match (ra, rb) {
        (Ok(_), Err(e)) => (&a, &b, e),
        (Err(e), Ok(_)) => (&b, &a, e),
        (ra, rb) => panic!("expected exactly one deadlock victim, got {ra:?} / {rb:?}"),
    };
    assert_eq!(sqlstate(&err), "40P01", "{err:?}");
    assert_eq!(message(&err), "deadlock detected");
    // The victim's block is aborted.
    assert_error(
        &loser.try_run("SELECT 1").await,
        "25P02",
        "current transaction is aborted, commands ignored until end of transaction block",
    );
    loser.run("ROLLBACK").await;
    winner.run("COMMIT").await;
    let expect = if std::ptr::eq(winner, &a) {
        "1:1,2:1"
    } else {
        "1:10,2:10"
    };
    assert_eq!(rows_of_t(&obs).await, expect);
}

// ---------------------------------------------------------------------------
// READ COMMITTED re-check (EvalPlanQual)

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_committed_concurrent_increments_both_apply() {
    let tg = Target::new("epq_increments").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = v + 1 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = v + 1 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_committed_recheck_where_no_longer_matches() {
    let tg = Target::new("epq_no_match").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 2).await;
    a.run("BEGIN; UPDATE t SET v = 5 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = v + 100 WHERE v = 0 RETURNING id");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    // Row 1 was re-checked against its newest version (v = 5) and skipped;
    // row 2 was never locked by a.
    let r = join(hb).await.unwrap();
    assert_eq!(col0(&r), vec![Some("2".to_owned())]);
    assert_eq!(affected(&r), 1);
    assert_eq!(rows_of_t(&obs).await, "1:5,2:100");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_committed_update_of_a_concurrently_deleted_row_updates_nothing() {
    let tg = Target::new("epq_deleted").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; DELETE FROM t WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = v + 1 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 0);
    // DELETE racing an UPDATE: the delete re-checks too.
    a.run("INSERT INTO t VALUES (2, 0)").await;
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 2").await;
    let hb = b.spawn("DELETE FROM t WHERE id = 2 AND v = 0");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 0);
    assert_eq!(obs.int("SELECT count(*) FROM t").await, 1);
}

// ---------------------------------------------------------------------------
// REPEATABLE READ

const SERIALIZE_MSG: &str = "could not serialize access due to concurrent update";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeatable_read_update_after_concurrent_commit_is_40001() {
    let tg = Target::new("rr_40001").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 2).await;
    b.run("BEGIN ISOLATION LEVEL REPEATABLE READ").await;
    assert_eq!(b.int("SELECT v FROM t WHERE id = 1").await, 0);
    a.run("UPDATE t SET v = 1 WHERE id = 1").await;
    // b's snapshot does not move...
    assert_eq!(b.int("SELECT v FROM t WHERE id = 1").await, 0);
    // ... rows nobody changed can still be updated ...
    assert_eq!(
        affected(&b.run("UPDATE t SET v = 50 WHERE id = 2").await),
        1
    );
    // ... but the changed one cannot.
    assert_error(
        &b.try_run("UPDATE t SET v = v + 1 WHERE id = 1").await,
        "40001",
        SERIALIZE_MSG,
    );
    b.run("ROLLBACK").await;
    // Locking reads fail the same way.
    b.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1")
        .await;
    a.run("UPDATE t SET v = 2 WHERE id = 1").await;
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 1 FOR UPDATE").await,
        "40001",
        SERIALIZE_MSG,
    );
    b.run("ROLLBACK").await;
    assert_eq!(a.int("SELECT v FROM t WHERE id = 1").await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeatable_read_wait_ends_in_40001_on_commit_and_success_on_rollback() {
    let tg = Target::new("rr_wait").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    // The holder commits: 40001.
    a.run("BEGIN; UPDATE t SET v = v + 1 WHERE id = 1").await;
    b.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1")
        .await;
    let hb = b.spawn("UPDATE t SET v = v + 10 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_error(&join(hb).await, "40001", SERIALIZE_MSG);
    b.run("ROLLBACK").await;
    // The holder rolls back: the update goes through.
    a.run("BEGIN; UPDATE t SET v = v + 1 WHERE id = 1").await;
    b.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1")
        .await;
    let hb = b.spawn("UPDATE t SET v = v + 10 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    b.run("COMMIT").await;
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 11);
}

// ---------------------------------------------------------------------------
// SERIALIZABLE

const SSI_MSG: &str =
    "could not serialize access due to read/write dependencies among transactions";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_write_skew_fails_the_second_commit() {
    let tg = Target::new("ssi_write_skew").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    obs.run(
        "CREATE TABLE doctors (id int PRIMARY KEY, on_call bool NOT NULL);
         INSERT INTO doctors VALUES (1, true), (2, true)",
    )
    .await;
    for s in [&a, &b] {
        s.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
        assert_eq!(s.int("SELECT count(*) FROM doctors WHERE on_call").await, 2);
    }
    a.run("UPDATE doctors SET on_call = false WHERE id = 1")
        .await;
    b.run("UPDATE doctors SET on_call = false WHERE id = 2")
        .await;
    a.run("COMMIT").await;
    let r = b.try_run("COMMIT").await;
    assert_error(&r, "40001", SSI_MSG);
    let e = r.unwrap_err();
    let db = e.as_db_error().expect("a server error");
    assert_eq!(
        db.detail(),
        Some("Reason code: Canceled on identification as a pivot, during commit attempt.")
    );
    assert_eq!(db.hint(), Some("The transaction might succeed if retried."));
    // The failed COMMIT ended the transaction.
    assert_eq!(b.int("SELECT count(*) FROM doctors WHERE on_call").await, 1);
    // A retry, now serial, succeeds (and sees a's change).
    b.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    assert_eq!(b.int("SELECT count(*) FROM doctors WHERE on_call").await, 1);
    b.run("COMMIT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_pivot_fails_at_its_write() {
    // T1 reads x, T2 writes x (T1 -rw-> T2) after reading y, and T2
    // commits; T1 then writes y: T2 -rw-> T1 with T2 committed and T1 the
    // reader of T2's write, a pivot between two conflicts, is cancelled at
    // once, during the write (PostgreSQL's "during write").
    let tg = Target::new("ssi_pivot").await;
    let (t1, t2, obs) = (tg.session().await, tg.session().await, tg.session().await);
    obs.run(
        "CREATE TABLE kv (k int PRIMARY KEY, v int NOT NULL);
         INSERT INTO kv VALUES (1, 0), (2, 0)",
    )
    .await;
    t1.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    t2.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    assert_eq!(t1.int("SELECT v FROM kv WHERE k = 1").await, 0);
    assert_eq!(t2.int("SELECT v FROM kv WHERE k = 2").await, 0);
    t2.run("UPDATE kv SET v = 1 WHERE k = 1").await;
    t2.run("COMMIT").await;
    let r = t1.try_run("UPDATE kv SET v = 1 WHERE k = 2").await;
    assert_error(&r, "40001", SSI_MSG);
    assert_eq!(
        r.unwrap_err().as_db_error().and_then(|d| d.detail()),
        Some("Reason code: Canceled on identification as a pivot, during write.")
    );
    t1.run("ROLLBACK").await;
    assert_eq!(
        col0(&obs.run("SELECT v FROM kv ORDER BY k").await),
        vec![Some("1".to_owned()), Some("0".to_owned())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_phantom_insert_into_a_range_read_conflicts() {
    // Two transactions each check a range is empty, then insert into the
    // other's range: predicate locks on the index range catch the phantom.
    let tg = Target::new("ssi_phantom").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    obs.run("CREATE TABLE booking (room int, slot int, PRIMARY KEY (room, slot))")
        .await;
    for s in [&a, &b] {
        s.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    }
    assert_eq!(
        a.int("SELECT count(*) FROM booking WHERE room = 1 AND slot BETWEEN 1 AND 5")
            .await,
        0
    );
    assert_eq!(
        b.int("SELECT count(*) FROM booking WHERE room = 1 AND slot BETWEEN 3 AND 8")
            .await,
        0
    );
    a.run("INSERT INTO booking VALUES (1, 4)").await;
    let r = b.try_run("INSERT INTO booking VALUES (1, 5)").await;
    // b inserts into a's range after a inserted into b's: b is the pivot
    // only once a commits; both orders end with exactly one survivor.
    match r {
        Ok(_) => {
            a.run("COMMIT").await;
            assert_error(&b.try_run("COMMIT").await, "40001", SSI_MSG);
        }
        Err(e) => {
            assert_eq!(sqlstate(&e), "40001", "{e:?}");
            b.run("ROLLBACK").await;
            a.run("COMMIT").await;
        }
    }
    assert_eq!(obs.int("SELECT count(*) FROM booking").await, 1);
    // Rows outside each other's ranges do not conflict. (PostgreSQL locks
    // index pages, and this tiny index is one page: it reports a
    // conflict there; Nestor locks key ranges.)
    if tg.is_pg {
        return;
    }
    for s in [&a, &b] {
        s.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    }
    assert_eq!(
        a.int("SELECT count(*) FROM booking WHERE room = 2").await,
        0
    );
    assert_eq!(
        b.int("SELECT count(*) FROM booking WHERE room = 3").await,
        0
    );
    a.run("INSERT INTO booking VALUES (4, 1)").await;
    b.run("INSERT INTO booking VALUES (5, 1)").await;
    a.run("COMMIT").await;
    b.run("COMMIT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_read_only_deferrable_waits_for_a_safe_snapshot() {
    let tg = Target::new("ssi_deferrable").await;
    let (w, r, obs) = (tg.session().await, tg.session().await, tg.session().await);
    obs.run("CREATE TABLE acct (id int PRIMARY KEY, bal int); INSERT INTO acct VALUES (1, 0)")
        .await;
    w.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    w.run("UPDATE acct SET bal = 5 WHERE id = 1").await;
    r.run("BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE")
        .await;
    let hr = r.spawn("SELECT bal FROM acct WHERE id = 1");
    // The wait shows as IPC/SafeSnapshot, blocked by the writer.
    let sql = format!(
        "SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE pid = {}",
        r.pid
    );
    let mut seen = None;
    for _ in 0..400 {
        let m = obs.run(&sql).await;
        if let Some(SimpleQueryMessage::Row(row)) =
            m.iter().find(|m| matches!(m, SimpleQueryMessage::Row(_)))
        {
            if row.get(1) == Some("SafeSnapshot") {
                seen = Some((row.get(0).map(str::to_owned), row.get(1).map(str::to_owned)));
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(
        seen,
        Some((Some("IPC".to_owned()), Some("SafeSnapshot".to_owned())))
    );
    assert_eq!(
        obs.one(&format!(
            "SELECT pg_isolation_test_session_is_blocked({}, '{{{}}}')",
            r.pid, w.pid
        ))
        .await,
        Some("t".to_owned())
    );
    assert!(!hr.is_finished());
    w.run("COMMIT").await;
    // Safe once the only concurrent writer committed without a conflict
    // out; the snapshot taken before that commit is kept.
    assert_eq!(col0(&join(hr).await.unwrap()), vec![Some("0".to_owned())]);
    r.run("COMMIT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_autocommit_statements_and_savepoints() {
    let tg = Target::new("ssi_autocommit").await;
    let (a, b) = (tg.session().await, tg.session().await);
    a.run("CREATE TABLE s (k int PRIMARY KEY, v int); INSERT INTO s VALUES (1, 0), (2, 0)")
        .await;
    // default_transaction_isolation applies to implicit transactions.
    for s in [&a, &b] {
        s.run("SET default_transaction_isolation = serializable")
            .await;
        assert_eq!(
            s.one("SHOW transaction_isolation").await,
            Some("serializable".to_owned())
        );
    }
    a.run("UPDATE s SET v = v + 1 WHERE k = 1").await;
    assert_eq!(b.int("SELECT sum(v) FROM s").await, 1);
    // A savepoint rolled back keeps what was read: the conflict stands.
    a.run("BEGIN; SELECT v FROM s WHERE k = 1; SAVEPOINT p; SELECT v FROM s WHERE k = 2; ROLLBACK TO p")
        .await;
    b.run("BEGIN; SELECT v FROM s WHERE k = 1; UPDATE s SET v = 10 WHERE k = 2; COMMIT")
        .await;
    let r = a.try_run("UPDATE s SET v = 20 WHERE k = 1").await;
    assert_error(&r, "40001", SSI_MSG);
    a.run("ROLLBACK").await;
}

// ---------------------------------------------------------------------------
// Unique keys

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unique_key_race_second_inserter_waits_then_23505_on_commit() {
    let tg = Target::new("unique_commit").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; INSERT INTO t VALUES (10, 1)").await;
    let hb = b.spawn("INSERT INTO t VALUES (10, 2)");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    match join(hb).await {
        Ok(m) => panic!("expected 23505, got {} messages", m.len()),
        Err(e) => {
            assert_eq!(sqlstate(&e), "23505", "{e:?}");
            assert_eq!(
                message(&e),
                "duplicate key value violates unique constraint \"t_pkey\""
            );
            assert_eq!(
                e.as_db_error().and_then(|d| d.detail()),
                Some("Key (id)=(10) already exists.")
            );
        }
    }
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 10").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unique_key_race_second_inserter_succeeds_after_rollback() {
    let tg = Target::new("unique_rollback").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; INSERT INTO t VALUES (10, 1)").await;
    let hb = b.spawn("INSERT INTO t VALUES (10, 2)");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("ROLLBACK").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 10").await, 2);
    // Same with ON CONFLICT DO NOTHING: waits, then inserts nothing.
    a.run("BEGIN; INSERT INTO t VALUES (11, 1)").await;
    let hb = b.spawn("INSERT INTO t VALUES (11, 2) ON CONFLICT DO NOTHING");
    wait_until_blocked(&obs, b.pid, &hb).await;
    a.run("COMMIT").await;
    assert_eq!(affected(&join(hb).await.unwrap()), 0);
}

// ---------------------------------------------------------------------------
// Monitoring, cancel, terminate, timeouts

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_stat_activity_shows_the_waiting_session() {
    let tg = Target::new("stat_activity").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await;
    let stmt = "UPDATE t SET v = 2 WHERE id = 1";
    let hb = b.spawn(stmt);
    wait_until_blocked(&obs, b.pid, &hb).await;
    let row = obs
        .run(&format!(
            "SELECT state, wait_event_type, wait_event IS NOT NULL, query, application_name, \
                    backend_xid IS NOT NULL, xact_start IS NOT NULL, query_start IS NOT NULL \
             FROM pg_stat_activity WHERE pid = {}",
            b.pid
        ))
        .await;
    let r = match &row[..] {
        [.., SimpleQueryMessage::Row(r), SimpleQueryMessage::CommandComplete(1)] => r,
        other => panic!("expected one row, got {} messages", other.len()),
    };
    assert_eq!(r.get(0), Some("active"));
    assert_eq!(r.get(1), Some("Lock"));
    assert_eq!(r.get(2), Some("t"));
    assert_eq!(r.get(3), Some(stmt));
    assert_eq!(r.get(4), Some("sessions"));
    assert_eq!(r.get(6), Some("t"));
    assert_eq!(r.get(7), Some("t"));
    // The holder is idle in transaction, with an xid.
    assert_eq!(
        obs.one(&format!(
            "SELECT state || '/' || (backend_xid IS NOT NULL)::text FROM pg_stat_activity WHERE pid = {}",
            a.pid
        ))
        .await
        .unwrap(),
        "idle in transaction/true"
    );
    a.run("COMMIT").await;
    join(hb).await.unwrap();
    assert_eq!(
        obs.one(&format!(
            "SELECT state FROM pg_stat_activity WHERE pid = {}",
            b.pid
        ))
        .await
        .unwrap(),
        "idle"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_cancel_backend_stops_pg_sleep() {
    let tg = Target::new("cancel_backend").await;
    let (a, b) = (tg.session().await, tg.session().await);
    let hb = b.spawn("SELECT pg_sleep(60)");
    wait_until_running(&a, b.pid, "pg_sleep(60)").await;
    assert_eq!(
        a.one(&format!("SELECT pg_cancel_backend({})", b.pid))
            .await
            .unwrap(),
        "t"
    );
    assert_error(
        &join(hb).await,
        "57014",
        "canceling statement due to user request",
    );
    // The session is fine afterwards.
    assert_eq!(b.int("SELECT 1").await, 1);
    // Inside a block, the cancel aborts the block.
    b.run("BEGIN").await;
    let hb = b.spawn("SELECT pg_sleep(60)");
    wait_until_running(&a, b.pid, "pg_sleep(60)").await;
    assert_eq!(
        a.one(&format!("SELECT pg_cancel_backend({})", b.pid))
            .await
            .unwrap(),
        "t"
    );
    assert_error(
        &join(hb).await,
        "57014",
        "canceling statement due to user request",
    );
    assert_error(
        &b.try_run("SELECT 1").await,
        "25P02",
        "current transaction is aborted, commands ignored until end of transaction block",
    );
    b.run("ROLLBACK").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_request_stops_a_lock_wait() {
    let tg = Target::new("cancel_request").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = 2 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    // The protocol's CancelRequest, on its own connection.
    t(b.c.cancel_token().cancel_query(NoTls))
        .await
        .expect("cancel");
    assert_error(
        &join(hb).await,
        "57014",
        "canceling statement due to user request",
    );
    a.run("COMMIT").await;
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statement_timeout_cancels_sleep_and_lock_wait() {
    let tg = Target::new("statement_timeout").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    b.run("SET statement_timeout = '200ms'").await;
    assert_error(
        &b.try_run("SELECT pg_sleep(30)").await,
        "57014",
        "canceling statement due to statement timeout",
    );
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await;
    assert_error(
        &b.try_run("UPDATE t SET v = 2 WHERE id = 1").await,
        "57014",
        "canceling statement due to statement timeout",
    );
    // Statements shorter than the timeout are unaffected.
    assert_eq!(b.int("SELECT v FROM t WHERE id = 1").await, 0);
    a.run("COMMIT").await;
    b.run("RESET statement_timeout").await;
    assert_eq!(affected(&b.run("UPDATE t SET v = 2 WHERE id = 1").await), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lock_timeout_ends_a_lock_wait_with_55p03() {
    let tg = Target::new("lock_timeout").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = 1 WHERE id = 1").await;
    b.run("SET lock_timeout = '200ms'").await;
    assert_error(
        &b.try_run("UPDATE t SET v = 2 WHERE id = 1").await,
        "55P03",
        "canceling statement due to lock timeout",
    );
    b.run("BEGIN").await;
    assert_error(
        &b.try_run("SELECT * FROM t WHERE id = 1 FOR SHARE").await,
        "55P03",
        "canceling statement due to lock timeout",
    );
    b.run("ROLLBACK").await;
    // lock_timeout does not limit statements that do not wait.
    b.run("SELECT pg_sleep(0.3)").await;
    a.run("ROLLBACK").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_vanishing_mid_transaction_releases_its_locks() {
    let tg = Target::new("vanish").await;
    let (a, b, obs) = (tg.session().await, tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("BEGIN; UPDATE t SET v = 100 WHERE id = 1").await;
    let hb = b.spawn("UPDATE t SET v = v + 1 WHERE id = 1");
    wait_until_blocked(&obs, b.pid, &hb).await;
    // Drop the socket without a Terminate message.
    let Session { c, pid, conn } = a;
    conn.abort();
    drop(c);
    assert_eq!(affected(&join(hb).await.unwrap()), 1);
    // a's update was rolled back.
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 1);
    wait_until_gone(&obs, pid).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pg_terminate_backend_closes_the_connection_with_57p01() {
    let tg = Target::new("terminate").await;
    let (a, b, c, obs) = (
        tg.session().await,
        tg.session().await,
        tg.session().await,
        tg.session().await,
    );
    table_t(&a, 1).await;
    // A busy session gets 57P01 and its connection is closed.
    let hb = b.spawn("SELECT pg_sleep(60)");
    wait_until_running(&obs, b.pid, "pg_sleep(60)").await;
    assert_eq!(
        obs.one(&format!("SELECT pg_terminate_backend({})", b.pid))
            .await
            .unwrap(),
        "t"
    );
    assert_error(
        &join(hb).await,
        "57P01",
        "terminating connection due to administrator command",
    );
    let _ = t(b.conn).await;
    assert!(b.c.is_closed());
    // An idle-in-transaction session that holds a lock: terminating it
    // releases the lock.
    a.run("BEGIN; UPDATE t SET v = 100 WHERE id = 1").await;
    let hc = c.spawn("UPDATE t SET v = v + 1 WHERE id = 1");
    wait_until_blocked(&obs, c.pid, &hc).await;
    assert_eq!(
        obs.one(&format!("SELECT pg_terminate_backend({})", a.pid))
            .await
            .unwrap(),
        "t"
    );
    assert_eq!(affected(&join(hc).await.unwrap()), 1);
    assert_eq!(obs.int("SELECT v FROM t WHERE id = 1").await, 1);
    match t(a.conn).await.expect("connection task") {
        Err(e) => assert_eq!(sqlstate(&e), "57P01", "{e:?}"),
        Ok(()) => panic!("expected the connection to end with 57P01"),
    }
    assert!(is_closed_client(&a.c).await);
    wait_until_gone(&obs, a.pid).await;
}

/// A closed client fails any query at once.
async fn is_closed_client(c: &Client) -> bool {
    t(c.simple_query("SELECT 1")).await.is_err() && c.is_closed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_in_transaction_timeout_ends_the_session_and_releases_locks() {
    let tg = Target::new("idle_in_txn").await;
    let (a, b) = (tg.session().await, tg.session().await);
    table_t(&a, 1).await;
    a.run("SET idle_in_transaction_session_timeout = '300ms'; BEGIN; UPDATE t SET v = 100 WHERE id = 1")
        .await;
    // b waits for the lock; a's timeout ends a's session.
    assert_eq!(
        affected(&b.run("UPDATE t SET v = v + 1 WHERE id = 1").await),
        1
    );
    assert_eq!(b.int("SELECT v FROM t WHERE id = 1").await, 1);
    match t(a.conn).await.expect("connection task") {
        Err(e) => {
            assert_eq!(sqlstate(&e), "25P03", "{e:?}");
            assert_eq!(
                message(&e),
                "terminating connection due to idle-in-transaction timeout"
            );
        }
        Ok(()) => panic!("expected the connection to end with 25P03"),
    }
}

// ---------------------------------------------------------------------------
// XIDs and savepoints (workload xid-growth, seed 001)

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn savepoints_do_not_consume_xids() {
    let tg = Target::new("xid_growth").await;
    let (a, b) = (tg.session().await, tg.session().await);
    a.run("CREATE TABLE x (id integer PRIMARY KEY, sp text)")
        .await;
    let before = b.int("SELECT pg_current_xact_id()::text::bigint").await;
    a.run("BEGIN").await;
    for (i, sp) in ["s1", "s2", "s3"].iter().enumerate() {
        a.run(&format!(
            "SAVEPOINT {sp}; INSERT INTO x VALUES ({i}, '{sp}')"
        ))
        .await;
    }
    let top = a.int("SELECT pg_current_xact_id()::text::bigint").await;
    a.run("COMMIT").await;
    let after = b.int("SELECT pg_current_xact_id()::text::bigint").await;
    // b's own two calls take one xid each; a's transaction takes one on
    // nestor, and one per savepoint that wrote on PostgreSQL.
    let a_xids = after - before - 1;
    let distinct_xmin = b.int("SELECT count(DISTINCT xmin::text) FROM x").await;
    if tg.is_pg {
        // (At least: other tests share the PostgreSQL cluster.)
        assert!(a_xids >= 4, "PostgreSQL: top-level + 3 subtransaction xids");
        assert_eq!(distinct_xmin, 3);
    } else {
        assert_eq!(a_xids, 1, "before {before}, a's xid {top}, after {after}");
        assert_eq!(top, before + 1);
        assert_eq!(distinct_xmin, 1, "all rows share the top-level xid as xmin");
        assert_eq!(
            b.one("SELECT min(xmin::text) FROM x").await.unwrap(),
            top.to_string(),
            "xmin of rows written inside savepoints is the top-level xid"
        );
    }
    // ROLLBACK TO and RELEASE do not assign xids either.
    let before = b.int("SELECT pg_current_xact_id()::text::bigint").await;
    a.run(
        "BEGIN; INSERT INTO x VALUES (10, 'top'); SAVEPOINT a; INSERT INTO x VALUES (11, 'a'); \
         ROLLBACK TO a; SAVEPOINT b; INSERT INTO x VALUES (12, 'b'); RELEASE b; COMMIT",
    )
    .await;
    let after = b.int("SELECT pg_current_xact_id()::text::bigint").await;
    let a_xids = after - before - 1;
    if tg.is_pg {
        assert!(a_xids >= 3, "PostgreSQL: top-level + 2 subtransaction xids");
    } else {
        assert_eq!(a_xids, 1, "ROLLBACK TO / RELEASE must not assign xids");
    }
    assert_eq!(b.int("SELECT count(*) FROM x WHERE id >= 10").await, 2);
}

// ---------------------------------------------------------------------------
// ReadyForQuery status from the session's block state

/// Status byte of the final ReadyForQuery and the SQLSTATE of any error.
fn rfq(msgs: &[Msg]) -> (u8, Option<String>) {
    let z = msgs.last().expect("messages");
    assert_eq!(z.tag, b'Z');
    let err = msgs.iter().find(|m| m.tag == b'E').map(|m| m.sqlstate());
    (z.body[0], err)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_for_query_status_follows_the_block() {
    let tg = Target::new("rfq").await;
    let port = tg.port;
    tokio::task::spawn_blocking(move || {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        let mut c = RawConn { s };
        assert_eq!(c.startup("postgres").status, b'I');
        let steps: &[(&str, u8, Option<&str>)] = &[
            ("SELECT 1", b'I', None),
            ("BEGIN", b'T', None),
            ("SELECT 1", b'T', None),
            ("SELECT 1/0", b'E', Some("22012")),
            ("SELECT 1", b'E', Some("25P02")),
            ("ROLLBACK", b'I', None),
            ("BEGIN; SAVEPOINT s", b'T', None),
            ("SELECT 1/0", b'E', Some("22012")),
            ("ROLLBACK TO SAVEPOINT s", b'T', None),
            ("RELEASE s", b'T', None),
            ("SELECT 1/0", b'E', Some("22012")),
            ("COMMIT", b'I', None),
            ("SELECT 1/0", b'I', Some("22012")),
            ("BEGIN; SELECT 1/0", b'E', Some("22012")),
            ("ROLLBACK", b'I', None),
            // A multi-statement query that ends inside a block.
            ("SELECT 1; BEGIN; SELECT 2", b'T', None),
            ("COMMIT; SELECT 3", b'I', None),
            ("COMMIT", b'I', None),
        ];
        for (sql, status, err) in steps {
            let (got, got_err) = rfq(&c.query(sql));
            assert_eq!(
                (got as char, got_err.as_deref()),
                (*status as char, *err),
                "after {sql:?}"
            );
        }
    })
    .await
    .expect("raw protocol steps");
}

// ---------------------------------------------------------------------------
// Extended protocol through tokio-postgres (binary results)

/// Any value, as its raw binary bytes.
#[derive(Debug, PartialEq)]
struct Raw(Vec<u8>);

impl<'a> FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

/// A parameter sent as given binary bytes.
#[derive(Debug)]
struct RawParam(Vec<u8>);

impl ToSql for RawParam {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }
    fn accepts(_: &Type) -> bool {
        true
    }
    to_sql_checked!();
}

/// Binary numeric: ndigits, weight, sign, dscale, base-10000 digits.
fn numeric_bin(weight: i16, sign: u16, dscale: u16, digits: &[u16]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&(digits.len() as u16).to_be_bytes());
    v.extend_from_slice(&weight.to_be_bytes());
    v.extend_from_slice(&sign.to_be_bytes());
    v.extend_from_slice(&dscale.to_be_bytes());
    for d in digits {
        v.extend_from_slice(&d.to_be_bytes());
    }
    v
}

const UUID_TEXT: &str = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
const UUID_BIN: [u8; 16] = [
    0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extended_protocol_typed_params_and_binary_results() {
    let tg = Target::new("extended").await;
    let (c, _conn) = tg.client().await;
    // Typed parameters, binary results for the basic types.
    let st = t(c.prepare_typed(
        "SELECT $1::int4 + 1, $2::int8 * 2, $3::text || '!', NOT $4::bool, $5::bytea",
        &[Type::INT4, Type::INT8, Type::TEXT, Type::BOOL, Type::BYTEA],
    ))
    .await
    .unwrap();
    let row = t(c.query_one(
        &st,
        &[&41i32, &(1i64 << 40), &"hi", &false, &vec![0u8, 255, 7]],
    ))
    .await
    .unwrap();
    assert_eq!(row.get::<_, i32>(0), 42);
    assert_eq!(row.get::<_, i64>(1), 1i64 << 41);
    assert_eq!(row.get::<_, String>(2), "hi!");
    assert!(row.get::<_, bool>(3));
    assert_eq!(row.get::<_, Vec<u8>>(4), vec![0u8, 255, 7]);
    // NULL parameters.
    let row = t(c.query_one(
        "SELECT $1::int4 IS NULL, $2::text",
        &[&None::<i32>, &None::<&str>],
    ))
    .await
    .unwrap();
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, Option<String>>(1), None);

    // numeric, timestamptz and uuid results in binary.
    let row = t(c.query_one(
        &format!(
            "SELECT 12345.678::numeric, (-0.5)::numeric, 0::numeric, \
                    '2000-01-01 00:00:01+00'::timestamptz, '1999-12-31 23:59:59+00'::timestamptz, \
                    '{UUID_TEXT}'::uuid"
        ),
        &[],
    ))
    .await
    .unwrap();
    assert_eq!(row.columns()[0].type_(), &Type::NUMERIC);
    assert_eq!(
        row.get::<_, Raw>(0),
        Raw(numeric_bin(1, 0, 3, &[1, 2345, 6780]))
    );
    assert_eq!(
        row.get::<_, Raw>(1),
        Raw(numeric_bin(-1, 0x4000, 1, &[5000]))
    );
    assert_eq!(row.get::<_, Raw>(2), Raw(numeric_bin(0, 0, 0, &[])));
    assert_eq!(row.columns()[3].type_(), &Type::TIMESTAMPTZ);
    assert_eq!(
        row.get::<_, Raw>(3),
        Raw(1_000_000i64.to_be_bytes().to_vec())
    );
    assert_eq!(
        row.get::<_, Raw>(4),
        Raw((-1_000_000i64).to_be_bytes().to_vec())
    );
    assert_eq!(row.columns()[5].type_(), &Type::UUID);
    assert_eq!(row.get::<_, Raw>(5), Raw(UUID_BIN.to_vec()));

    // numeric, timestamptz and uuid parameters in binary.
    let st = t(c.prepare_typed(
        "SELECT ($1 * 2)::text, $2 = '2000-01-01 00:00:01+00'::timestamptz, $3::text",
        &[Type::NUMERIC, Type::TIMESTAMPTZ, Type::UUID],
    ))
    .await
    .unwrap();
    let row = t(c.query_one(
        &st,
        &[
            &RawParam(numeric_bin(1, 0, 3, &[1, 2345, 6780])),
            &RawParam(1_000_000i64.to_be_bytes().to_vec()),
            &RawParam(UUID_BIN.to_vec()),
        ],
    ))
    .await
    .unwrap();
    assert_eq!(row.get::<_, String>(0), "24691.356");
    assert!(row.get::<_, bool>(1));
    assert_eq!(row.get::<_, String>(2), UUID_TEXT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extended_protocol_inference_portals_and_errors() {
    let tg = Target::new("extended_more").await;
    let (mut c, _conn) = tg.client().await;
    t(c.batch_execute(
        "CREATE TABLE e (id integer PRIMARY KEY, name text, amount numeric, big bigint);
         INSERT INTO e SELECT g, 'n' || g, g * 1.5, g * 10000000000 FROM generate_series(1, 5) g",
    ))
    .await
    .unwrap();
    // Parameter types inferred from context; result column types.
    let st = t(c.prepare("SELECT name, amount, big FROM e WHERE id = $1"))
        .await
        .unwrap();
    assert_eq!(st.params(), &[Type::INT4]);
    let types: Vec<&Type> = st.columns().iter().map(|c| c.type_()).collect();
    assert_eq!(types, vec![&Type::TEXT, &Type::NUMERIC, &Type::INT8]);
    let row = t(c.query_one(&st, &[&3i32])).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "n3");
    assert_eq!(row.get::<_, i64>(2), 30_000_000_000);
    let ins = t(c.prepare("INSERT INTO e (id, name) VALUES ($1, $2)"))
        .await
        .unwrap();
    assert_eq!(ins.params(), &[Type::INT4, Type::TEXT]);
    assert_eq!(t(c.execute(&ins, &[&6i32, &"six"])).await.unwrap(), 1);
    let upd = t(c.prepare("UPDATE e SET big = $1 WHERE name = $2"))
        .await
        .unwrap();
    assert_eq!(upd.params(), &[Type::INT8, Type::TEXT]);
    assert_eq!(t(c.execute(&upd, &[&7i64, &"six"])).await.unwrap(), 1);
    // The same statement many times.
    for id in 1..=5i32 {
        let row = t(c.query_one(&st, &[&id])).await.unwrap();
        assert_eq!(row.get::<_, String>(0), format!("n{id}"));
    }
    // Row limits on a portal.
    {
        let tx = t(c.transaction()).await.unwrap();
        let all = t(tx.prepare("SELECT id FROM e ORDER BY id")).await.unwrap();
        let portal = t(tx.bind(&all, &[])).await.unwrap();
        let mut got = Vec::new();
        loop {
            let rows = t(tx.query_portal(&portal, 4)).await.unwrap();
            got.push(rows.len());
            if rows.len() < 4 {
                break;
            }
        }
        assert_eq!(got, vec![4, 2]);
        t(tx.commit()).await.unwrap();
    }
    // An error in an extended-protocol statement; the session goes on.
    let div = t(c.prepare("SELECT 10 / $1::int4")).await.unwrap();
    let e = t(c.query_one(&div, &[&0i32])).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::DIVISION_BY_ZERO), "{e:?}");
    assert_eq!(
        t(c.query_one(&div, &[&5i32]))
            .await
            .unwrap()
            .get::<_, i32>(0),
        2
    );
    // A parse error reports 42601.
    let e = t(c.prepare("SELEC 1")).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::SYNTAX_ERROR), "{e:?}");
    // Inside a transaction block: an error aborts it, ROLLBACK recovers.
    let tx = t(c.transaction()).await.unwrap();
    let e = t(tx.query_one(&div, &[&0i32])).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::DIVISION_BY_ZERO));
    let e = t(tx.query_one(&div, &[&1i32])).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::IN_FAILED_SQL_TRANSACTION));
    t(tx.rollback()).await.unwrap();
    // Pipelined statements (tokio-postgres sends them before reading).
    let (r1, r2, r3) = tokio::join!(
        c.query_one(&st, &[&1i32]),
        c.query_one(&div, &[&2i32]),
        c.query_one(&st, &[&2i32]),
    );
    assert_eq!(r1.unwrap().get::<_, String>(0), "n1");
    assert_eq!(r2.unwrap().get::<_, i32>(0), 5);
    assert_eq!(r3.unwrap().get::<_, String>(0), "n2");
    // A unique violation through the extended protocol carries its fields.
    let e = t(c.execute(&ins, &[&1i32, &"dup"])).await.unwrap_err();
    let db = e.as_db_error().expect("db error");
    assert_eq!(db.code(), &SqlState::UNIQUE_VIOLATION);
    assert_eq!(db.constraint(), Some("e_pkey"));
    assert_eq!(db.table(), Some("e"));
}

// ---------------------------------------------------------------------------
// SERIALIZABLE: the anomalies of Adya's taxonomy, one script each, as
// Hermitage runs them against PostgreSQL (its outcomes are asserted; the
// scripts pass on PostgreSQL 15 too).

/// Table test(id, value) with (1, 10), (2, 20), and two (or three)
/// serializable sessions.
async fn hermitage(tg: &Target) -> (Session, Session, Session) {
    let (t1, t2, t3) = (tg.session().await, tg.session().await, tg.session().await);
    t3.run(
        "CREATE TABLE test (id int PRIMARY KEY, value int);
         INSERT INTO test (id, value) VALUES (1, 10), (2, 20)",
    )
    .await;
    for s in [&t1, &t2, &t3] {
        s.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    }
    (t1, t2, t3)
}

/// The rows of `sql` as "id=value" strings.
async fn pairs(s: &Session, sql: &str) -> Vec<String> {
    s.run(sql)
        .await
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(format!(
                "{}={}",
                r.get(0).unwrap_or(""),
                r.get(1).unwrap_or("")
            )),
            _ => None,
        })
        .collect()
}

const CONCURRENT_UPDATE: &str = "could not serialize access due to concurrent update";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_g0_write_cycles() {
    let tg = Target::new("ssi_g0").await;
    let (t1, t2, obs) = hermitage(&tg).await;
    obs.run("COMMIT").await;
    t1.run("UPDATE test SET value = 11 WHERE id = 1").await;
    let h = t2.spawn("UPDATE test SET value = 12 WHERE id = 1");
    wait_until_blocked(&obs, t2.pid, &h).await;
    t1.run("UPDATE test SET value = 21 WHERE id = 2").await;
    t1.run("COMMIT").await;
    assert_error(&join(h).await, "40001", CONCURRENT_UPDATE);
    t2.run("ROLLBACK").await;
    assert_eq!(
        pairs(&obs, "SELECT * FROM test ORDER BY id").await,
        ["1=11", "2=21"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_g1a_g1b_aborted_and_intermediate_reads() {
    let tg = Target::new("ssi_g1ab").await;
    let (t1, t2, _t3) = hermitage(&tg).await;
    t1.run("UPDATE test SET value = 101 WHERE id = 1").await;
    assert_eq!(
        pairs(&t2, "SELECT * FROM test ORDER BY id").await,
        ["1=10", "2=20"]
    );
    t1.run("ROLLBACK").await;
    assert_eq!(
        pairs(&t2, "SELECT * FROM test ORDER BY id").await,
        ["1=10", "2=20"]
    );
    t2.run("COMMIT").await;
    // G1b: an intermediate version is never read.
    t1.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    t2.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    t1.run("UPDATE test SET value = 101 WHERE id = 1").await;
    assert_eq!(
        pairs(&t2, "SELECT * FROM test ORDER BY id").await,
        ["1=10", "2=20"]
    );
    t1.run("UPDATE test SET value = 11 WHERE id = 1").await;
    t1.run("COMMIT").await;
    assert_eq!(
        pairs(&t2, "SELECT * FROM test ORDER BY id").await,
        ["1=10", "2=20"]
    );
    t2.run("COMMIT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_g1c_circular_information_flow() {
    let tg = Target::new("ssi_g1c").await;
    let (t1, t2, _t3) = hermitage(&tg).await;
    t1.run("UPDATE test SET value = 11 WHERE id = 1").await;
    t2.run("UPDATE test SET value = 22 WHERE id = 2").await;
    assert_eq!(
        pairs(&t1, "SELECT * FROM test WHERE id = 2").await,
        ["2=20"]
    );
    assert_eq!(
        pairs(&t2, "SELECT * FROM test WHERE id = 1").await,
        ["1=10"]
    );
    t1.run("COMMIT").await;
    // Each read the other's row before its write: T2 is a pivot whose
    // out-conflict (T1) committed first.
    assert_error(&t2.try_run("COMMIT").await, "40001", SSI_MSG);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_otv_observed_transaction_vanishes() {
    let tg = Target::new("ssi_otv").await;
    let (t1, t2, t3) = hermitage(&tg).await;
    t1.run("UPDATE test SET value = 11 WHERE id = 1").await;
    t1.run("UPDATE test SET value = 19 WHERE id = 2").await;
    let h = t2.spawn("UPDATE test SET value = 12 WHERE id = 1");
    wait_until_blocked(&t3, t2.pid, &h).await;
    t1.run("COMMIT").await;
    assert_error(&join(h).await, "40001", CONCURRENT_UPDATE);
    t3.run("ROLLBACK; BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    assert_eq!(
        pairs(&t3, "SELECT * FROM test ORDER BY id").await,
        ["1=11", "2=19"]
    );
    t2.run("ROLLBACK").await;
    assert_eq!(
        pairs(&t3, "SELECT * FROM test ORDER BY id").await,
        ["1=11", "2=19"]
    );
    t3.run("COMMIT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_pmp_predicate_many_preceders() {
    let tg = Target::new("ssi_pmp").await;
    let (t1, t2, obs) = hermitage(&tg).await;
    assert!(pairs(&t1, "SELECT * FROM test WHERE value = 30")
        .await
        .is_empty());
    t2.run("INSERT INTO test (id, value) VALUES (3, 30)").await;
    t2.run("COMMIT").await;
    assert!(pairs(&t1, "SELECT * FROM test WHERE value % 3 = 0")
        .await
        .is_empty());
    t1.run("COMMIT").await;
    // ... for write predicates.
    obs.run("COMMIT; DELETE FROM test WHERE id = 3").await;
    t1.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    t2.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    t1.run("UPDATE test SET value = value + 10").await;
    assert_eq!(
        pairs(&t2, "SELECT * FROM test WHERE value = 20").await,
        ["2=20"]
    );
    let h = t2.spawn("DELETE FROM test WHERE value = 20");
    wait_until_blocked(&obs, t2.pid, &h).await;
    t1.run("COMMIT").await;
    assert_error(&join(h).await, "40001", CONCURRENT_UPDATE);
    t2.run("ROLLBACK").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_p4_lost_update() {
    let tg = Target::new("ssi_p4").await;
    let (t1, t2, obs) = hermitage(&tg).await;
    assert_eq!(
        pairs(&t1, "SELECT * FROM test WHERE id = 1").await,
        ["1=10"]
    );
    assert_eq!(
        pairs(&t2, "SELECT * FROM test WHERE id = 1").await,
        ["1=10"]
    );
    t1.run("UPDATE test SET value = 11 WHERE id = 1").await;
    let h = t2.spawn("UPDATE test SET value = 11 WHERE id = 1");
    wait_until_blocked(&obs, t2.pid, &h).await;
    t1.run("COMMIT").await;
    assert_error(&join(h).await, "40001", CONCURRENT_UPDATE);
    t2.run("ROLLBACK").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_g_single_read_skew() {
    let tg = Target::new("ssi_gsingle").await;
    let (t1, t2, _t3) = hermitage(&tg).await;
    assert_eq!(
        pairs(&t1, "SELECT * FROM test WHERE id = 1").await,
        ["1=10"]
    );
    assert_eq!(
        pairs(&t2, "SELECT * FROM test WHERE id = 1").await,
        ["1=10"]
    );
    assert_eq!(
        pairs(&t2, "SELECT * FROM test WHERE id = 2").await,
        ["2=20"]
    );
    t2.run("UPDATE test SET value = 12 WHERE id = 1").await;
    t2.run("UPDATE test SET value = 18 WHERE id = 2").await;
    t2.run("COMMIT").await;
    assert_eq!(
        pairs(&t1, "SELECT * FROM test WHERE id = 2").await,
        ["2=20"]
    );
    t1.run("COMMIT").await;
    // ... with a write predicate: the delete meets T2's committed update.
    t1.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    t2.run("BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    assert_eq!(
        pairs(&t1, "SELECT * FROM test WHERE id = 1").await,
        ["1=12"]
    );
    assert_eq!(
        pairs(&t2, "SELECT * FROM test ORDER BY id").await,
        ["1=12", "2=18"]
    );
    t2.run("UPDATE test SET value = 13 WHERE id = 1").await;
    t2.run("UPDATE test SET value = 17 WHERE id = 2").await;
    t2.run("COMMIT").await;
    assert_error(
        &t1.try_run("DELETE FROM test WHERE value = 18").await,
        "40001",
        CONCURRENT_UPDATE,
    );
    t1.run("ROLLBACK").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_g2_item_write_skew() {
    let tg = Target::new("ssi_g2item").await;
    let (t1, t2, _t3) = hermitage(&tg).await;
    assert_eq!(
        pairs(&t1, "SELECT * FROM test WHERE id IN (1, 2) ORDER BY id").await,
        ["1=10", "2=20"]
    );
    assert_eq!(
        pairs(&t2, "SELECT * FROM test WHERE id IN (1, 2) ORDER BY id").await,
        ["1=10", "2=20"]
    );
    t1.run("UPDATE test SET value = 11 WHERE id = 1").await;
    t2.run("UPDATE test SET value = 21 WHERE id = 2").await;
    t1.run("COMMIT").await;
    assert_error(&t2.try_run("COMMIT").await, "40001", SSI_MSG);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_g2_anti_dependency_cycles() {
    let tg = Target::new("ssi_g2").await;
    let (t1, t2, _t3) = hermitage(&tg).await;
    assert!(pairs(&t1, "SELECT * FROM test WHERE value % 3 = 0")
        .await
        .is_empty());
    assert!(pairs(&t2, "SELECT * FROM test WHERE value % 3 = 0")
        .await
        .is_empty());
    t1.run("INSERT INTO test (id, value) VALUES (3, 30)").await;
    t2.run("INSERT INTO test (id, value) VALUES (4, 42)").await;
    t1.run("COMMIT").await;
    assert_error(&t2.try_run("COMMIT").await, "40001", SSI_MSG);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serializable_fekete_read_only_anomaly() {
    // G2 with two edges: T3 (read-only) sees T2's deposit but not T1's
    // withdrawal, which must come before T2 (T1 read the old balance).
    let tg = Target::new("ssi_fekete").await;
    let (t1, t2, t3) = hermitage(&tg).await;
    assert_eq!(
        pairs(&t1, "SELECT * FROM test ORDER BY id").await,
        ["1=10", "2=20"]
    );
    t2.run("UPDATE test SET value = value + 5 WHERE id = 2")
        .await;
    t2.run("COMMIT").await;
    t3.run("ROLLBACK; BEGIN ISOLATION LEVEL SERIALIZABLE").await;
    assert_eq!(
        pairs(&t3, "SELECT * FROM test ORDER BY id").await,
        ["1=10", "2=25"]
    );
    t3.run("COMMIT").await;
    assert_error(
        &t1.try_run("UPDATE test SET value = 0 WHERE id = 1").await,
        "40001",
        SSI_MSG,
    );
    t1.run("ROLLBACK").await;
}

/// Data-modifying WITH items through the extended protocol: parameters
/// (types inferred from the items' tables) inside the items and the main
/// statement, the statement prepared once and executed several times,
/// each item running to completion whatever the main query reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extended_protocol_data_modifying_with() {
    let tg = Target::new("with_modify").await;
    let (c, _conn) = tg.client().await;
    t(c.batch_execute(
        "CREATE TABLE src (id int PRIMARY KEY, v text);
         CREATE TABLE dst (id int, v text);
         INSERT INTO src SELECT g, 'v' || g FROM generate_series(1, 10) g;",
    ))
    .await
    .unwrap();
    let mv = t(c.prepare(
        "WITH moved AS (DELETE FROM src WHERE id <= $1 RETURNING id, v) \
         INSERT INTO dst SELECT id, v || $2 FROM moved RETURNING id",
    ))
    .await
    .unwrap();
    assert_eq!(mv.params(), &[Type::INT4, Type::TEXT]);
    let rows = t(c.query(&mv, &[&3i32, &"!"])).await.unwrap();
    let mut ids: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3]);
    // Again: rows 1..3 are gone, 4..5 move.
    let rows = t(c.query(&mv, &[&5i32, &"?"])).await.unwrap();
    assert_eq!(rows.len(), 2);
    let moved = t(c.query_one(
        "SELECT count(*), string_agg(v, ',' ORDER BY id) FROM dst",
        &[],
    ))
    .await
    .unwrap();
    assert_eq!(moved.get::<_, i64>(0), 5);
    assert_eq!(moved.get::<_, String>(1), "v1!,v2!,v3!,v4?,v5?");

    // The main query reads one row, the item still updates all it matches;
    // the main query's own read of the table sees the rows as they were.
    let bump = t(c.prepare(
        "WITH u AS (UPDATE src SET v = v || $1 WHERE id > $2 RETURNING id) \
         SELECT (SELECT count(*) FROM u), (SELECT max(v) FROM src), id FROM u ORDER BY id LIMIT 1",
    ))
    .await
    .unwrap();
    let row = t(c.query_one(&bump, &[&"+", &5i32])).await.unwrap();
    assert_eq!(row.get::<_, i64>(0), 5);
    assert_eq!(row.get::<_, String>(1), "v9");
    assert_eq!(row.get::<_, i32>(2), 6);
    let plus = t(c.query_one("SELECT count(*) FROM src WHERE v LIKE '%+'", &[]))
        .await
        .unwrap();
    assert_eq!(plus.get::<_, i64>(0), 5);

    // An error in an item undoes the statement's writes.
    let rows = t(c.query(&mv, &[&100i32, &"x"])).await.unwrap();
    assert_eq!(rows.len(), 5);
    let fail = t(c.prepare(
        "WITH d AS (DELETE FROM dst RETURNING id) INSERT INTO src SELECT id / $1, 'z' FROM d",
    ))
    .await
    .unwrap();
    let e = t(c.execute(&fail, &[&0i32])).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::DIVISION_BY_ZERO));
    let left = t(c.query_one("SELECT count(*) FROM dst", &[]))
        .await
        .unwrap();
    assert_eq!(left.get::<_, i64>(0), 10);
}
