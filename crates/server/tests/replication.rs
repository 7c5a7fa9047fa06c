//! Hot-standby replicas (docs/replication.md), through the real interface:
//! `nestor --replica-of`, psql and tokio-postgres sessions on both servers.
//!
//! - after a mixed load (savepoints rolled back, whole transactions rolled
//!   back, updates, deletes, DDL, sequences, a transaction large enough to
//!   go through a redo file) the replica's tables equal the primary's;
//! - a replica is read-only with PostgreSQL's errors and reports its
//!   positions; the primary shows it in pg_stat_replication;
//! - kill -9 of the replica and of the primary under load: the replica
//!   resumes, is always a prefix of the primary's commit order, and ends
//!   equal to it;
//! - a REPEATABLE READ reader on the replica keeps one snapshot while
//!   hundreds of commits are applied, and is never cancelled;
//! - promotion: pg_promote() makes the replica a primary on timeline 2
//!   with everything it had applied, and it stays one after a restart;
//! - what is refused: a non-empty primary directory as a new replica, a
//!   replica directory without --replica-of, a wrong password, a primary
//!   of another system, more walsenders than --max-wal-senders.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{err, ok, psql, psql_conninfo, psql_port, Server};

fn replica_of(primary: &Server, extra: &[&str]) -> Server {
    let addr = primary.addr();
    let mut args = vec!["--replica-of", addr.as_str()];
    args.extend_from_slice(extra);
    Server::start_with(&args, &[])
}

/// Wait until the replica has replayed everything the primary has logged.
fn caught_up(primary: &Server, replica: &Server) {
    let target = ok(primary, "select pg_current_wal_lsn()");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let at = psql(replica, "select pg_last_wal_replay_lsn()").unwrap_or_default();
        if lsn(&at) >= lsn(&target) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "replica stuck at {at}, primary at {target}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn lsn(text: &str) -> u64 {
    let Some((hi, lo)) = text.split_once('/') else {
        return 0;
    };
    (u64::from_str_radix(hi, 16).unwrap_or(0) << 32) | u64::from_str_radix(lo, 16).unwrap_or(0)
}

const TABLES: &[&str] = &[
    "select * from acct order by id",
    "select * from log order by n",
    "select * from big order by id",
    "select last_value from pg_sequences order by sequencename",
];

fn same_contents(primary: &Server, replica: &Server) {
    for q in TABLES {
        assert_eq!(ok(primary, q), ok(replica, q), "{q}");
    }
}

const SCHEMA: &str = "create table acct (id int primary key, balance int not null, note text); \
    create table log (n serial primary key, who int, at_balance int); \
    create table big (id int primary key, pad text); \
    insert into acct select g, 100, null from generate_series(1, 20) g;";

/// One client's transactions: transfers with savepoints, some rolled back
/// to, some whole transactions rolled back, deletes and re-inserts.
fn load(port: u16, client: u32, rounds: u32) {
    for i in 0..rounds {
        let a = (client * 7 + i) % 20 + 1;
        let b = (client * 3 + i * 5) % 20 + 1;
        let sql = match i % 4 {
            0 => format!(
                "begin; update acct set balance = balance - 1 where id = {a}; \
                 savepoint s; update acct set balance = balance + 1000 where id = {b}; \
                 rollback to s; update acct set balance = balance + 1 where id = {b}; \
                 insert into log (who, at_balance) select {client}, balance from acct where id = {a}; \
                 commit;"
            ),
            1 => format!(
                "begin; update acct set note = 'never' where id = {a}; \
                 insert into log (who) values (-1); rollback;"
            ),
            2 => format!(
                "begin; delete from acct where id = {a}; \
                 insert into acct values ({a}, 100 + {i}, 'reborn by {client}'); \
                 savepoint x; delete from acct; release x; rollback to savepoint x; commit;"
            ),
            _ => format!("update acct set note = 'c{client} r{i}' where id = {b};"),
        };
        // Savepoint errors in case 2 ('rollback to savepoint x' after
        // release) abort that transaction: it must leave no trace.
        let _ = psql_port(port, &sql, &[]);
    }
}

#[test]
fn replica_equals_primary_after_a_mixed_load() {
    let primary = Server::start_with(&["--txn-redo-memory-max", "64kB"], &[]);
    ok(&primary, SCHEMA);
    ok(&primary, "create sequence s1");
    ok(&primary, "select nextval('s1')");
    let replica = replica_of(&primary, &[]);
    let port = primary.port;
    let clients: Vec<_> = (0..3)
        .map(|c| std::thread::spawn(move || load(port, c, 40)))
        .collect();
    // DDL and a redo-file transaction while the clients run.
    ok(&primary, "alter table acct add column extra int default 7");
    ok(&primary, "create index acct_note on acct (note)");
    ok(
        &primary,
        "insert into big select g, repeat('x', 200) from generate_series(1, 3000) g",
    );
    ok(&primary, "select nextval('s1'), nextval('s1')");
    ok(
        &primary,
        "create table gone (a int); insert into gone values (1); drop table gone",
    );
    for c in clients {
        c.join().unwrap();
    }
    // Row ids of rolled-back inserts are not reused: the next commit names
    // ids far past what the replica has seen.
    ok(
        &primary,
        "begin; insert into log (who) select -2 from generate_series(1, 500); rollback",
    );
    ok(&primary, "insert into log (who) values (5)");
    ok(&primary, "update big set pad = 'y' where id % 3 = 0");
    ok(&primary, "delete from big where id % 5 = 0");
    caught_up(&primary, &replica);
    same_contents(&primary, &replica);
    // The replica's index was built by replay too.
    let plan = ok(&replica, "explain select * from acct where note = 'c1 r3'");
    assert!(plan.contains("acct_note"), "{plan}");
    assert_eq!(ok(&replica, "select count(*) from log where who = -1"), "0");
    assert_eq!(
        ok(
            &replica,
            "select count(*) from pg_tables where tablename = 'gone'"
        ),
        "0"
    );
}

/// A GIN index is computed and multi-key: the replica binds its key
/// function through the catalog hook and keeps one entry per key as it
/// applies inserts, updates and deletes; its GIN reads find what a plain
/// scan finds.
#[test]
fn a_replica_keeps_gin_indexes() {
    let primary = Server::start();
    ok(
        &primary,
        "create table docs (id int, body jsonb, tags int[])",
    );
    ok(
        &primary,
        "insert into docs select g, jsonb_build_object('m', g % 5), array[g % 4] \
         from generate_series(1, 40) g",
    );
    ok(&primary, "create index docs_body on docs using gin (body)");
    let replica = replica_of(&primary, &[]);
    ok(
        &primary,
        "create index docs_tags on docs using gin (tags); \
         insert into docs select g, jsonb_build_object('m', g % 5, 'new', true), array[g % 4, 9] \
         from generate_series(41, 60) g; \
         update docs set body = '{\"moved\": 1}', tags = '{7}' where id = 3; \
         delete from docs where id = 4",
    );
    caught_up(&primary, &replica);
    for cond in [
        r#"body @> '{"m": 3}'"#,
        "body ? 'new'",
        "body ? 'moved'",
        "tags && '{7, 9}'",
        "tags @> '{0}'",
    ] {
        let q = |from: &str| format!("select count(*) || ':' || sum(id) from {from} where {cond}");
        let indexed = ok(&replica, &q("docs"));
        assert_eq!(indexed, ok(&primary, &q("docs")), "{cond}");
        assert_eq!(
            indexed,
            ok(&replica, &q("(select * from docs offset 0) s")),
            "{cond}"
        );
    }
    let plan = ok(
        &replica,
        "explain (costs off) select id from docs where tags && '{7}'",
    );
    assert!(plan.contains("Bitmap Index Scan on docs_tags"), "{plan}");
}

#[test]
fn a_replica_is_read_only_and_reports_its_positions() {
    let primary = Server::start();
    ok(&primary, SCHEMA);
    ok(&primary, "create sequence s1");
    let replica = replica_of(&primary, &["--replica-name", "r1"]);
    ok(&primary, "insert into log (who) values (1)");
    caught_up(&primary, &replica);
    assert_eq!(ok(&replica, "select pg_is_in_recovery()"), "t");
    assert_eq!(ok(&primary, "select pg_is_in_recovery()"), "f");
    assert_eq!(ok(&primary, "select pg_last_wal_replay_lsn() is null"), "t");
    assert_eq!(ok(&replica, "show transaction_read_only"), "on");
    for (sql, message) in [
        (
            "insert into log (who) values (2)",
            "ERROR:  cannot execute INSERT in a read-only transaction",
        ),
        (
            "update acct set balance = 0",
            "ERROR:  cannot execute UPDATE in a read-only transaction",
        ),
        (
            "create table x (a int)",
            "ERROR:  cannot execute CREATE TABLE in a read-only transaction",
        ),
        (
            "select nextval('s1')",
            "ERROR:  cannot execute nextval() in a read-only transaction",
        ),
        (
            "select * from acct where id = 1 for update",
            "ERROR:  cannot execute SELECT FOR UPDATE in a read-only transaction",
        ),
        (
            "begin read write",
            "ERROR:  cannot set transaction read-write mode during recovery",
        ),
        (
            "begin isolation level serializable",
            "ERROR:  cannot use serializable mode in a hot standby",
        ),
        (
            "select pg_current_wal_lsn()",
            "ERROR:  recovery is in progress",
        ),
    ] {
        let e = err(&replica, sql);
        assert!(e.starts_with(message), "{sql}: {e}");
    }
    let rows = ok(&replica, "select count(*) from log");
    assert_eq!(rows, "1");
    let status = ok(
        &replica,
        "select status, sender_port, received_tli from pg_stat_wal_receiver",
    );
    assert_eq!(status, format!("streaming|{}|1", primary.port));
    assert_eq!(
        ok(
            &replica,
            "select pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()"
        ),
        "t"
    );
    assert_eq!(
        ok(
            &replica,
            "select pg_last_xact_replay_timestamp() is not null"
        ),
        "t"
    );
    // The primary sees the replica, caught up, under its name.
    let deadline = Instant::now() + Duration::from_secs(20);
    let want = "r1|streaming|t|async";
    loop {
        let row = ok(
            &primary,
            "select application_name, state, replay_lsn = pg_current_wal_lsn(), sync_state \
             from pg_stat_replication",
        );
        if row == want {
            break;
        }
        assert!(Instant::now() < deadline, "pg_stat_replication says {row}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        ok(&replica, "select count(*) from pg_stat_replication"),
        "0"
    );
    assert_eq!(
        ok(&primary, "select count(*) from pg_stat_wal_receiver"),
        "0"
    );
}

#[test]
fn the_replica_resumes_after_kill_9_of_either_side_and_stays_a_prefix() {
    let primary = Server::start();
    let dir = primary.data_dir.clone();
    ok(&primary, SCHEMA);
    let mut replica = replica_of(&primary, &[]);
    let replica_dir = replica.data_dir.clone();
    let addr = primary.addr();
    let mut primary = Some(primary);
    let mut port = primary.as_ref().unwrap().port;
    let mut next = 1;
    // One row per commit, numbered in commit order: the replica must hold
    // exactly rows 1..=k for some k, never a gap.
    let commit = |port: u16, n: &mut i32, count: i32| {
        for _ in 0..count {
            psql_port(
                port,
                &format!("insert into log (n, who) values ({n}, 0)"),
                &[],
            )
            .unwrap_or_else(|e| panic!("commit {n}: {e}"));
            *n += 1;
        }
    };
    let prefix = |replica: &Server| {
        let got = ok(replica, "select count(*), coalesce(max(n), 0) from log");
        let (count, max) = got.split_once('|').unwrap();
        assert_eq!(count, max, "replica's log has a gap: {got}");
    };
    commit(port, &mut next, 30);
    prefix(&replica);
    // Kill the replica while the primary goes on; restart it on its dir.
    let st = replica.signal_and_wait(libc::SIGKILL);
    assert_eq!(st.signal(), Some(libc::SIGKILL));
    std::mem::forget(replica);
    commit(port, &mut next, 30);
    let replica = Server::start_on_with(&replica_dir, &["--replica-of", &addr]);
    prefix(&replica);
    caught_up(primary.as_ref().unwrap(), &replica);
    prefix(&replica);
    // Kill the primary; the replica keeps serving reads meanwhile.
    let mut p = primary.take().unwrap();
    p.signal_and_wait(libc::SIGKILL);
    std::mem::forget(p);
    assert_eq!(
        ok(&replica, "select count(*) from log"),
        (next - 1).to_string()
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while ok(&replica, "select status from pg_stat_wal_receiver") != "waiting" {
        assert!(Instant::now() < deadline, "the replica did not notice");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The primary comes back on the same port; the replica reconnects.
    let port_arg = addr.rsplit(':').next().unwrap().to_string();
    let primary = Server::start_on_with(&dir, &["--port", &port_arg]);
    port = primary.port;
    commit(port, &mut next, 30);
    caught_up(&primary, &replica);
    prefix(&replica);
    same_contents(&primary, &replica);
    assert_eq!(ok(&replica, "select count(*) from log"), "90");
}

#[test]
fn repeatable_read_on_a_replica_keeps_its_snapshot_while_replay_goes_on() {
    let primary = Server::start();
    ok(&primary, SCHEMA);
    let replica = replica_of(&primary, &[]);
    caught_up(&primary, &replica);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (c, conn) =
            tokio_postgres::connect(&replica.conn_str("postgres", None), tokio_postgres::NoTls)
                .await
                .unwrap();
        tokio::spawn(conn);
        c.batch_execute("begin isolation level repeatable read")
            .await
            .unwrap();
        let before = sum(&c).await;
        assert_eq!(before, (2000, 20));
        for i in 0..200 {
            let sql = if i % 2 == 0 {
                "update acct set balance = balance + 1"
            } else {
                "insert into acct select max(id) + 1, 5, null from acct"
            };
            ok(&primary, sql);
        }
        caught_up(&primary, &replica);
        // Hundreds of commits replayed, and the reader is neither
        // cancelled nor moved.
        assert_eq!(sum(&c).await, before);
        c.batch_execute("commit").await.unwrap();
        let after = sum(&c).await;
        let on_primary = ok(&primary, "select sum(balance)::int8, count(*) from acct");
        assert_eq!(format!("{}|{}", after.0, after.1), on_primary);
        assert_eq!(after.1, 120);
    });
}

async fn sum(c: &tokio_postgres::Client) -> (i64, i64) {
    let r = c
        .query_one("select sum(balance)::int8, count(*) from acct", &[])
        .await
        .unwrap();
    (r.get::<_, i64>(0), r.get::<_, i64>(1))
}

#[test]
fn promotion_makes_the_replica_a_primary_with_everything_it_applied() {
    let primary = Server::start();
    ok(&primary, SCHEMA);
    ok(&primary, "create sequence s1; select nextval('s1')");
    let mut replica = replica_of(&primary, &[]);
    ok(
        &primary,
        "insert into log (who) select g from generate_series(1, 50) g",
    );
    caught_up(&primary, &replica);
    // Promoting a primary is refused as PostgreSQL does.
    let e = err(&primary, "select pg_promote()");
    assert!(e.contains("recovery is not in progress"), "{e}");
    assert_eq!(ok(&replica, "select pg_promote()"), "t");
    assert_eq!(ok(&replica, "select pg_is_in_recovery()"), "f");
    assert_eq!(ok(&replica, "select count(*) from log"), "50");
    ok(&replica, "insert into log (who) values (99)");
    // The sequence continues after the primary's value, the log after
    // the replicated records: XIDs and CSNs do not collide.
    assert_eq!(ok(&replica, "select nextval('s1')"), "2");
    assert_eq!(
        ok(&replica, "select count(*) from pg_stat_wal_receiver"),
        "0"
    );
    let dir = replica.data_dir.clone();
    assert!(!dir.join("standby.signal").exists());
    let identity = std::fs::read_to_string(dir.join("identity")).unwrap();
    assert_eq!(identity.split_whitespace().nth(1), Some("2"), "{identity}");
    // Still a primary after kill -9 and restart, with the new commit.
    replica.signal_and_wait(libc::SIGKILL);
    std::mem::forget(replica);
    let promoted = Server::start_on(&dir);
    assert_eq!(ok(&promoted, "select pg_is_in_recovery()"), "f");
    assert_eq!(ok(&promoted, "select count(*) from log"), "51");
    // A new replica of the promoted server starts on timeline 2.
    let second = replica_of(&promoted, &[]);
    ok(&promoted, "insert into log (who) values (100)");
    caught_up(&promoted, &second);
    assert_eq!(ok(&second, "select count(*) from log"), "52");
    assert_eq!(
        ok(&second, "select received_tli from pg_stat_wal_receiver"),
        "2"
    );
    drop(primary);
}

#[test]
fn nestor_promote_flag_promotes_a_running_replica() {
    let primary = Server::start();
    ok(&primary, SCHEMA);
    let replica = replica_of(&primary, &[]);
    caught_up(&primary, &replica);
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .arg("--data-dir")
        .arg(&replica.data_dir)
        .arg("--promote")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while ok(&replica, "select pg_is_in_recovery()") != "f" {
        assert!(Instant::now() < deadline, "not promoted");
        std::thread::sleep(Duration::from_millis(50));
    }
    ok(&replica, "insert into log (who) values (1)");
    // --promote of a primary's directory is refused.
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .arg("--data-dir")
        .arg(&primary.data_dir)
        .arg("--promote")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a replica's"));
}

/// Start nestor expecting it to fail; its stderr.
fn start_fails(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nestor"));
    cmd.args(["--listen", "127.0.0.1", "--port", "0"])
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "nestor {args:?} started");
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn what_a_replica_refuses() {
    let primary = Server::start_with(&["--max-wal-senders", "1"], &[("NESTOR_PASSWORD", "pw")]);
    ok_pw(&primary, SCHEMA);
    let addr = primary.addr();
    // A wrong password fails the first start at once (not retried).
    let empty = std::env::temp_dir().join(format!("nestor-repl-empty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&empty);
    let e = start_fails(
        &["--data-dir", empty.to_str().unwrap(), "--replica-of", &addr],
        &[("NESTOR_REPLICA_PASSWORD", "wrong")],
    );
    assert!(e.contains("password authentication failed"), "{e}");
    // A primary's directory cannot become a replica.
    let e = start_fails(
        &[
            "--data-dir",
            primary.data_dir.to_str().unwrap(),
            "--replica-of",
            &addr,
        ],
        &[],
    );
    assert!(
        e.contains("is in use") || e.contains("not a replica's"),
        "{e}"
    );
    // The right password works.
    let replica = Server::start_with(
        &["--replica-of", &addr],
        &[("NESTOR_REPLICA_PASSWORD", "pw")],
    );
    assert_eq!(ok(&replica, "select count(*) from acct"), "20");
    let deadline = Instant::now() + Duration::from_secs(20);
    while ok_pw(&primary, "select count(*) from pg_stat_replication") != "1" {
        assert!(Instant::now() < deadline, "the replica did not connect");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A second replication connection is one too many for --max-wal-senders 1.
    let e = psql_conninfo(
        &format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres replication=true password=pw",
            primary.port
        ),
        "IDENTIFY_SYSTEM",
    )
    .unwrap_err();
    assert!(
        e.contains("number of requested standby connections exceeds max_wal_senders (currently 1)"),
        "{e}"
    );
    // A replica's directory will not start without --replica-of.
    let dir = replica.data_dir.clone();
    drop_keep_dir(replica);
    let e = start_fails(&["--data-dir", dir.to_str().unwrap()], &[]);
    assert!(e.contains("is a replica's"), "{e}");
    // Nor follow a primary of another system: it keeps what it has and
    // keeps trying (its log says why).
    let other = Server::start();
    ok(
        &other,
        "create table acct (id int); insert into acct values (1)",
    );
    let stray = Server::start_on_with(&dir, &["--replica-of", &other.addr()]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while ok(&stray, "select status from pg_stat_wal_receiver") != "waiting" {
        assert!(
            Instant::now() < deadline,
            "the replica followed another system"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(ok(&stray, "select count(*) from acct"), "20");
    let _ = std::fs::remove_dir_all(&empty);
}

fn ok_pw(server: &Server, sql: &str) -> String {
    psql_port(server.port, sql, &[("PGPASSWORD", "pw")]).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Stop a server cleanly and keep its directory.
fn drop_keep_dir(mut s: Server) {
    s.signal_and_wait(libc::SIGTERM);
    std::mem::forget(s);
}

#[test]
fn synchronous_commits_wait_for_the_named_replica() {
    let primary = Server::start_with(&["--synchronous-standby-names", "FIRST 1 (r1)"], &[]);
    // Without its replica a synchronous commit would wait (as in
    // PostgreSQL): the schema commits locally.
    ok(
        &primary,
        &format!("set synchronous_commit = local; {SCHEMA}"),
    );
    // No replica connected: the commit waits until it is cancelled, then
    // stands (it was durable and visible here first), with PostgreSQL's
    // warning.
    let port = primary.port;
    let waiting = std::thread::spawn(move || {
        Command::new("psql")
            .args(["-X", "-q", "-h", "127.0.0.1", "-p", &port.to_string()])
            .args(["-U", "postgres", "-d", "postgres"])
            .args(["-c", "insert into log (who) values (7)"])
            .output()
            .unwrap()
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while ok(&primary, "select count(*) from log where who = 7") != "1" {
        assert!(
            Instant::now() < deadline,
            "the insert did not commit locally"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!waiting.is_finished(), "the commit did not wait for r1");
    ok(
        &primary,
        "select pg_cancel_backend(pid) from pg_stat_activity \
         where query like 'insert into log (who) values (7)%'",
    );
    let out = waiting.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("WARNING:  canceling wait for synchronous replication due to user request"),
        "{stderr}"
    );
    assert!(
        stderr.contains("might not have been replicated"),
        "{stderr}"
    );
    // A COMMIT inside a procedure waits the same way.
    ok(
        &primary,
        "set synchronous_commit = local; create procedure commit_one() language plpgsql \
         as $$ begin insert into log (who) values (9); commit; end $$",
    );
    let waiting = std::thread::spawn(move || {
        Command::new("psql")
            .args(["-X", "-q", "-h", "127.0.0.1", "-p", &port.to_string()])
            .args([
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-c",
                "call commit_one()",
            ])
            .output()
            .unwrap()
    });
    while ok(&primary, "select count(*) from log where who = 9") != "1" {
        assert!(Instant::now() < deadline, "the procedure did not commit");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !waiting.is_finished(),
        "the procedure's COMMIT did not wait for r1"
    );
    ok(
        &primary,
        "select pg_cancel_backend(pid) from pg_stat_activity where query = 'call commit_one()'",
    );
    let out = waiting.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("WARNING:  canceling wait for synchronous replication due to user request"),
        "{stderr}"
    );
    // synchronous_commit = local does not wait.
    ok(
        &primary,
        "set synchronous_commit = local; insert into log (who) values (8)",
    );
    assert_eq!(ok(&primary, "select count(*) from log"), "3");
    // With r1 connected, remote_apply returns only once the replica shows
    // the row: it is there the moment the commit is acknowledged.
    let replica = replica_of(&primary, &["--replica-name", "r1"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while ok(&primary, "select sync_state from pg_stat_replication") != "sync" {
        assert!(Instant::now() < deadline, "r1 did not become synchronous");
        std::thread::sleep(Duration::from_millis(50));
    }
    for i in 0..20 {
        ok(
            &primary,
            &format!(
                "set synchronous_commit = remote_apply; insert into log (who) values (100 + {i})"
            ),
        );
        assert_eq!(
            ok(
                &replica,
                &format!("select count(*) from log where who = 100 + {i}")
            ),
            "1"
        );
    }
    drop(replica);
}

#[test]
fn every_acknowledged_synchronous_commit_survives_kill_9_and_promotion() {
    let primary = Server::start_with(&["--synchronous-standby-names", "r1"], &[]);
    ok(
        &primary,
        &format!("set synchronous_commit = local; {SCHEMA}"),
    );
    let replica = replica_of(&primary, &["--replica-name", "r1"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while ok(&primary, "select sync_state from pg_stat_replication") != "sync" {
        assert!(Instant::now() < deadline, "r1 did not become synchronous");
        std::thread::sleep(Duration::from_millis(50));
    }
    let port = primary.port;
    let pid = primary.pid();
    // Four clients commit numbered rows and record what was acknowledged;
    // the primary is killed in the middle of it.
    let acked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<i32>::new()));
    let clients: Vec<_> = (0..4)
        .map(|c| {
            let acked = acked.clone();
            std::thread::spawn(move || {
                for i in 0..1000 {
                    let n = c * 1000 + i;
                    match psql_port(
                        port,
                        &format!("insert into log (n, who) values ({n}, {c})"),
                        &[],
                    ) {
                        Ok(_) => acked.lock().unwrap().push(n),
                        Err(_) => return,
                    }
                }
            })
        })
        .collect();
    while acked.lock().unwrap().len() < 40 {
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill() of the server's own pid.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
    for c in clients {
        c.join().unwrap();
    }
    std::mem::forget(primary);
    assert_eq!(ok(&replica, "select pg_promote()"), "t");
    let have: std::collections::HashSet<i32> = ok(&replica, "select n from log")
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let acked = acked.lock().unwrap();
    let lost: Vec<_> = acked.iter().filter(|n| !have.contains(n)).collect();
    assert!(
        lost.is_empty(),
        "acknowledged commits missing on the promoted replica: {lost:?}"
    );
    assert!(acked.len() >= 40);
}

#[test]
fn a_replica_the_primary_kept_no_wal_for_copies_a_new_base_image() {
    // In-memory redo up to 64 MB so the load below goes through WAL
    // segments (16 MiB each), and almost nothing kept for replicas.
    let primary = Server::start_with(
        &[
            "--txn-redo-memory-max",
            "64MB",
            "--replica-wal-keep-max",
            "1kB",
        ],
        &[],
    );
    ok(&primary, SCHEMA);
    ok(
        &primary,
        "create table gone (a int); insert into gone values (1)",
    );
    let replica = replica_of(&primary, &[]);
    caught_up(&primary, &replica);
    let dir = replica.data_dir.clone();
    drop_keep_dir(replica);
    // While it is away: more than a segment of WAL, objects dropped and
    // rows deleted, and a checkpoint that removes the WAL it would need.
    ok(
        &primary,
        "insert into big select g, repeat('x', 300) from generate_series(1, 70000) g",
    );
    ok(&primary, "drop table gone; delete from acct where id > 15");
    ok(&primary, "checkpoint");
    let replica = Server::start_on_with(&dir, &["--replica-of", &primary.addr()]);
    caught_up(&primary, &replica);
    same_contents(&primary, &replica);
    assert_eq!(
        ok(
            &replica,
            "select count(*) from pg_tables where tablename = 'gone'"
        ),
        "0"
    );
    assert_eq!(ok(&replica, "select count(*) from big"), "70000");
    // It streams again afterwards, and survives a restart.
    ok(&primary, "insert into log (who) values (1)");
    caught_up(&primary, &replica);
    same_contents(&primary, &replica);
    drop_keep_dir(replica);
    let replica = Server::start_on_with(&dir, &["--replica-of", &primary.addr()]);
    caught_up(&primary, &replica);
    same_contents(&primary, &replica);
}

/// A TCP proxy for one replica connection at a time: everything from the
/// replica reaches the primary; from the primary only the first `limit`
/// bytes of each connection reach the replica, the rest is held back.
fn stalling_proxy(primary_port: u16, limit: usize) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            let Ok(mut server) = std::net::TcpStream::connect(("127.0.0.1", primary_port)) else {
                return;
            };
            let (mut c2, mut s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                while let Ok(n) = c2.read(&mut buf) {
                    if n == 0 || s2.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            });
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let mut sent = 0;
                while let Ok(n) = server.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let take = n.min(limit.saturating_sub(sent));
                    if take > 0 && client.write_all(&buf[..take]).is_err() {
                        break;
                    }
                    sent += take;
                }
            });
        }
    });
    port
}

#[test]
fn a_replica_killed_between_two_chunks_of_a_transaction_loses_nothing() {
    // 64 MB of in-memory redo: a 3 MB transaction is logged as several
    // 1 MiB chunk records plus its commit.
    let primary = Server::start_with(&["--txn-redo-memory-max", "64MB"], &[]);
    ok(&primary, SCHEMA);
    let replica = replica_of(&primary, &[]);
    caught_up(&primary, &replica);
    let dir = replica.data_dir.clone();
    drop_keep_dir(replica);
    // Through the proxy the replica gets the first 1.25 MB of the stream:
    // the first chunk, flushed, and part of the second.
    let proxy = stalling_proxy(primary.port, 1_250_000);
    ok(
        &primary,
        "insert into big select g, repeat('x', 100) from generate_series(1, 30000) g",
    );
    let mut replica = Server::start_on_with(&dir, &["--replica-of", &format!("127.0.0.1:{proxy}")]);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = ok(
            &replica,
            "select pg_last_wal_receive_lsn() <> pg_last_wal_replay_lsn()",
        );
        if got == "t" {
            break; // a chunk is flushed, its commit not yet received
        }
        assert!(Instant::now() < deadline, "the replica received no chunk");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(ok(&replica, "select count(*) from big"), "0");
    replica.signal_and_wait(libc::SIGKILL);
    std::mem::forget(replica);
    // Restarted against the primary itself: the rest of the transaction
    // completes the chunk already in its log.
    let replica = Server::start_on_with(&dir, &["--replica-of", &primary.addr()]);
    caught_up(&primary, &replica);
    assert_eq!(ok(&replica, "select count(*) from big"), "30000");
    same_contents(&primary, &replica);
    // And after a checkpoint and a clean restart.
    ok(&replica, "checkpoint");
    ok(&primary, "insert into log (who) values (1)");
    drop_keep_dir(replica);
    let replica = Server::start_on_with(&dir, &["--replica-of", &primary.addr()]);
    caught_up(&primary, &replica);
    same_contents(&primary, &replica);
}

#[test]
fn a_base_image_with_a_row_larger_than_a_replication_message_copies() {
    let primary = Server::start();
    ok(&primary, SCHEMA);
    ok(
        &primary,
        "insert into big values (1, repeat('abcdefghij', 300000))",
    );
    let replica = replica_of(&primary, &[]);
    caught_up(&primary, &replica);
    same_contents(&primary, &replica);
    assert_eq!(ok(&replica, "select length(pad) from big"), "3000000");
}

#[test]
fn the_replication_protocol_answers_as_postgresql_frames_it() {
    use common::{frame, startup_packet};
    let primary = Server::start();
    ok(&primary, SCHEMA);
    let mut c = primary.raw();
    c.send(&startup_packet(
        3,
        0,
        &[
            ("user", "postgres"),
            ("database", "postgres"),
            ("replication", "true"),
        ],
    ));
    let started = c.expect_started();
    assert_eq!(started.status, b'I');
    // An empty query: EmptyQueryResponse, ReadyForQuery.
    c.send(&frame(b'Q', b"\0"));
    let tags: Vec<u8> = c.read_until_ready().iter().map(|m| m.tag).collect();
    assert_eq!(tags, b"IZ");
    // Flush sends nothing back; the next command's answer comes first.
    c.send(&frame(b'H', b""));
    c.send(&frame(b'Q', b"IDENTIFY_SYSTEM\0"));
    let msgs = c.read_until_ready();
    let tags: Vec<u8> = msgs.iter().map(|m| m.tag).collect();
    assert_eq!(tags, b"TDCZ");
    let row = &msgs[1].body;
    let text = String::from_utf8_lossy(row);
    assert!(text.contains('/'), "xlogpos in {text:?}");
    // SQL is refused with 0A000, the connection stays.
    c.send(&frame(b'Q', b"SELECT 1\0"));
    let msgs = c.read_until_ready();
    assert_eq!(msgs[0].tag, b'E');
    assert_eq!(msgs[0].sqlstate(), "0A000");
    // START_REPLICATION at the current end, then CopyDone from the client:
    // CopyDone, CommandComplete, ReadyForQuery.
    let pos = ok(&primary, "select pg_current_wal_lsn()");
    c.send(&frame(
        b'Q',
        format!("START_REPLICATION PHYSICAL {pos} TIMELINE 1\0").as_bytes(),
    ));
    assert_eq!(c.read().tag, b'W');
    c.send(&frame(b'c', b""));
    let mut tags = Vec::new();
    loop {
        let m = c.read();
        if m.tag == b'd' {
            continue; // a keepalive may come first
        }
        tags.push(m.tag);
        if m.tag == b'Z' {
            break;
        }
    }
    assert_eq!(tags, b"cCZ");
    // A position the log does not have yet is refused.
    let mut c = primary.raw();
    c.send(&startup_packet(
        3,
        0,
        &[
            ("user", "postgres"),
            ("database", "postgres"),
            ("replication", "database"),
        ],
    ));
    c.expect_started();
    c.send(&frame(b'Q', b"START_REPLICATION 7F/0\0"));
    let msgs = c.read_until_ready();
    assert_eq!(msgs[0].sqlstate(), "55000");
    assert!(msgs[0]
        .message()
        .contains("ahead of the WAL flush position"));
}

#[test]
fn a_replica_that_followed_an_old_primary_past_a_fork_is_refused_after_two_promotions() {
    let p1 = Server::start();
    ok(&p1, SCHEMA);
    let r2 = replica_of(&p1, &[]);
    let r4 = replica_of(&p1, &[]);
    caught_up(&p1, &r2);
    caught_up(&p1, &r4);
    // r2 stops; r4 goes on receiving one more commit of p1 (its log now
    // runs past where r2's ends).
    let r2_dir = r2.data_dir.clone();
    drop_keep_dir(r2);
    ok(&p1, "insert into log (who) values (1)");
    caught_up(&p1, &r4);
    let r4_dir = r4.data_dir.clone();
    drop_keep_dir(r4);
    let p1_addr = p1.addr();
    drop(p1);
    // r2 comes back (its primary gone) and is promoted: timeline 2 forks
    // off timeline 1 before r4's last commit.
    let r2 = Server::start_on_with(&r2_dir, &["--replica-of", &p1_addr]);
    assert_eq!(ok(&r2, "select pg_promote()"), "t");
    ok(
        &r2,
        "insert into log (who) select 2 from generate_series(1, 200)",
    );
    // r5 copies from r2 (taking its history), then is promoted too:
    // timeline 3, whose switch point is well past r4's log end.
    let r5 = replica_of(&r2, &[]);
    caught_up(&r2, &r5);
    assert_eq!(
        ok(&r5, "select received_tli from pg_stat_wal_receiver"),
        "2"
    );
    assert_eq!(ok(&r5, "select pg_promote()"), "t");
    let identity = std::fs::read_to_string(r5.data_dir.join("identity")).unwrap();
    assert_eq!(identity.split_whitespace().count(), 4, "{identity}");
    // r4 (timeline 1, with p1's extra commit) pointed at r5 is refused:
    // its log is not a prefix of r5's history.
    let r4 = Server::start_on_with(&r4_dir, &["--replica-of", &r5.addr()]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while ok(&r4, "select status from pg_stat_wal_receiver") != "waiting" {
        assert!(Instant::now() < deadline, "r4 followed r5");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(ok(&r4, "select count(*) from log"), "1");
    assert_eq!(ok(&r4, "select count(*) from log where who = 2"), "0");
    // The history r5 serves says where each timeline began.
    let h = psql_conninfo(
        &format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres replication=true",
            r5.port
        ),
        "TIMELINE_HISTORY 3",
    )
    .unwrap();
    assert!(h.starts_with("00000003.history|1\t"), "{h}");
    assert!(h.contains("\n2\t"), "{h}");
}

/// Kill -9 at seeded random moments, alternating replica and primary,
/// while clients commit numbered rows (some in transactions large enough
/// to span several WAL records): after each restart the replica holds a
/// prefix of the primary's commit order, and in the end exactly its rows.
#[test]
fn kill_9_at_random_moments_keeps_the_replica_a_prefix() {
    use rand::{Rng, SeedableRng};
    let seed: u64 = std::env::var("NESTOR_REPL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("seed {seed} (NESTOR_REPL_SEED to repeat)");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let primary = Server::start_with(&["--txn-redo-memory-max", "64MB"], &[]);
    ok(&primary, SCHEMA);
    let primary_dir = primary.data_dir.clone();
    let addr = primary.addr();
    let port_arg = addr.rsplit(':').next().unwrap().to_string();
    let replica = replica_of(&primary, &[]);
    let replica_dir = replica.data_dir.clone();
    let (mut primary, mut replica) = (Some(primary), Some(replica));
    let next = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(1));
    for cycle in 0..4 {
        let port = primary.as_ref().unwrap().port;
        // A commit in flight when the primary died may or may not have
        // committed: number on from what the primary has.
        let max: i32 = ok(
            primary.as_ref().unwrap(),
            "select coalesce(max(n), 0) from log",
        )
        .parse()
        .unwrap();
        next.store(max + 1, std::sync::atomic::Ordering::SeqCst);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (stop, next) = (stop.clone(), next.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let n = next.load(std::sync::atomic::Ordering::SeqCst);
                    // Every 7th commit also writes ~2 MB (several records).
                    let sql = if i % 7 == 3 {
                        format!(
                            "begin; insert into log (n, who) values ({n}, 0); \
                             update big set pad = repeat('p', 300) where id <= 6000; commit;"
                        )
                    } else {
                        format!("insert into log (n, who) values ({n}, 0)")
                    };
                    if psql_port(port, &sql, &[]).is_ok() {
                        next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    } else {
                        return; // the primary was killed
                    }
                    i += 1;
                }
            })
        };
        if cycle == 0 {
            ok(
                primary.as_ref().unwrap(),
                "insert into big select g, 'b' from generate_series(1, 6000) g",
            );
        }
        std::thread::sleep(Duration::from_millis(rng.gen_range(200..1200)));
        if cycle % 2 == 0 {
            let mut r = replica.take().unwrap();
            r.signal_and_wait(libc::SIGKILL);
            std::mem::forget(r);
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            writer.join().unwrap();
            replica = Some(Server::start_on_with(
                &replica_dir,
                &["--replica-of", &addr],
            ));
        } else {
            let mut p = primary.take().unwrap();
            p.signal_and_wait(libc::SIGKILL);
            std::mem::forget(p);
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            writer.join().unwrap();
            primary = Some(Server::start_on_with(&primary_dir, &["--port", &port_arg]));
        }
        let (p, r) = (primary.as_ref().unwrap(), replica.as_ref().unwrap());
        caught_up(p, r);
        let got = ok(r, "select count(*), coalesce(max(n), 0) from log");
        let (count, max) = got.split_once('|').unwrap();
        assert_eq!(count, max, "seed {seed} cycle {cycle}: a gap in {got}");
        same_contents(p, r);
    }
}

#[test]
fn a_replica_promoted_with_half_a_transaction_in_its_log_restarts() {
    // The primary dies mid-stream: the replica has a chunk of a transaction
    // and not its commit. Promoted, it must not reuse that transaction's
    // XID (its first commit would be glued to the orphan chunk and the log
    // would not replay).
    let primary = Server::start_with(&["--txn-redo-memory-max", "64MB"], &[]);
    ok(&primary, SCHEMA);
    let proxy = stalling_proxy(primary.port, 1_250_000);
    let replica = Server::start_with(&["--replica-of", &format!("127.0.0.1:{proxy}")], &[]);
    caught_up(&primary, &replica);
    ok(
        &primary,
        "insert into big select g, repeat('x', 100) from generate_series(1, 30000) g",
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while ok(
        &replica,
        "select pg_last_wal_receive_lsn() <> pg_last_wal_replay_lsn()",
    ) != "t"
    {
        assert!(Instant::now() < deadline, "the replica received no chunk");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(primary);
    assert_eq!(ok(&replica, "select pg_promote()"), "t");
    ok(&replica, "insert into log (who) values (7)");
    let dir = replica.data_dir.clone();
    let mut replica = replica;
    replica.signal_and_wait(libc::SIGKILL);
    std::mem::forget(replica);
    let promoted = Server::start_on(&dir);
    assert_eq!(ok(&promoted, "select count(*) from log where who = 7"), "1");
    assert_eq!(ok(&promoted, "select count(*) from big"), "0");
}

/// The metrics endpoint's address from a server's log.
fn metrics_addr(srv: &Server) -> String {
    srv.log_lines()
        .iter()
        .find_map(|l| {
            l.split("serving metrics on http://")
                .nth(1)
                .map(|rest| rest.trim().trim_end_matches("/metrics").to_string())
        })
        .expect("a metrics line in the log")
}

/// The value of the sample line starting with `series` (name and labels
/// as the endpoint prints them), if there is one.
fn metric(addr: &str, series: &str) -> Option<f64> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect to metrics");
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: nestor\r\n\r\n")
        .unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    body.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Replication lag on the metrics endpoint: per replica on the primary
/// (bytes not replayed, by application_name), and on the replica what it
/// received and has not replayed, and when it last applied a commit.
#[test]
fn replication_lag_is_on_the_metrics_endpoint() {
    let primary = Server::start_with(&["--metrics-listen", "127.0.0.1:0"], &[]);
    let replica = replica_of(&primary, &["--metrics-listen", "127.0.0.1:0"]);
    ok(&primary, "create table lagged (id int primary key)");
    ok(
        &primary,
        "insert into lagged select generate_series(1, 1000)",
    );
    caught_up(&primary, &replica);
    let (p, r) = (metrics_addr(&primary), metrics_addr(&replica));
    let name = ok(&primary, "select application_name from pg_stat_replication");
    let series = format!("nestor_replication_lag_bytes{{application_name=\"{name}\"}}");
    // The replica reports its replay position every status interval.
    let deadline = Instant::now() + Duration::from_secs(30);
    while metric(&p, &series) != Some(0.0) {
        assert!(
            Instant::now() < deadline,
            "{series} stays at {:?}",
            metric(&p, &series)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        metric(&r, "nestor_replica_receive_replay_lag_bytes"),
        Some(0.0)
    );
    let applied = metric(&r, "nestor_replica_last_replay_timestamp_seconds").expect("a commit");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        applied > now - 120.0 && applied <= now + 1.0,
        "{applied} vs {now}"
    );
    // A primary has no replica-side series, a replica no per-replica ones.
    assert_eq!(metric(&p, "nestor_replica_receive_replay_lag_bytes"), None);
    assert!(metric(&r, "nestor_replication_lag_bytes").is_none());
}
