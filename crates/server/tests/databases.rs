//! Databases through the real server: CREATE / DROP / ALTER DATABASE,
//! each database's own objects (a session sees only its database's
//! tables, types and catalog rows), FATAL 3D000 for a database that does
//! not exist, DROP DATABASE refused while others are connected (55006,
//! PostgreSQL's DETAIL) or forced, and databases with their contents
//! surviving a crash (from the WAL, then from a checkpoint image).

mod common;

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use common::{ok, psql_conninfo, startup_packet, RawConn, Server};

/// Run SQL through psql connected to database `db`: Ok(stdout) or
/// Err(stderr).
fn psql_db(server: &Server, db: &str, sql: &str) -> Result<String, String> {
    psql_as(server, "postgres", db, sql)
}

/// Run SQL through psql as `user` connected to database `db`.
fn psql_as(server: &Server, user: &str, db: &str, sql: &str) -> Result<String, String> {
    let port = server.port;
    psql_conninfo(
        &format!("host=127.0.0.1 port={port} user={user} dbname={db}"),
        sql,
    )
}

fn ok_db(server: &Server, db: &str, sql: &str) -> String {
    psql_db(server, db, sql).unwrap_or_else(|e| panic!("{db}: {sql}: {e}"))
}

fn err_db(server: &Server, db: &str, sql: &str) -> String {
    match psql_db(server, db, sql) {
        Ok(out) => panic!("{db}: {sql} succeeded with {out:?}"),
        Err(e) => e,
    }
}

/// A raw connection to database `db`, started.
fn connect(server: &Server, db: &str) -> RawConn {
    let mut c = server.raw();
    c.send(&startup_packet(
        3,
        0,
        &[("user", "postgres"), ("database", db)],
    ));
    c.expect_started();
    c
}

/// Connecting to `db` fails with FATAL `sqlstate`; returns the message.
fn connect_fails(server: &Server, db: &str, sqlstate: &str) -> String {
    let mut c = server.raw();
    c.send(&startup_packet(
        3,
        0,
        &[("user", "postgres"), ("database", db)],
    ));
    loop {
        let m = c.read();
        if m.tag == b'E' {
            assert_eq!(m.severity(), "FATAL", "{:?}", m.fields());
            assert_eq!(m.sqlstate(), sqlstate, "{:?}", m.fields());
            c.expect_closed();
            return m.message();
        }
    }
}

/// What each database holds, checked after every restart.
fn check_contents(server: &Server) {
    assert_eq!(ok_db(server, "app1", "select a from t order by a"), "1\n2");
    assert_eq!(ok_db(server, "app2", "select b from t"), "two");
    let next: i64 = ok_db(server, "app2", "select nextval('s')")
        .parse()
        .unwrap();
    assert!(next > 2, "sequence went back to {next}");
    assert_eq!(ok_db(server, "app2", "select x from sc.u"), "7");
    assert_eq!(ok_db(server, "app2", "select m::text from e"), "happy");
    assert!(err_db(server, "app1", "select m from e").contains("relation \"e\" does not exist"));
    assert!(err_db(server, "postgres", "select * from t").contains("relation \"t\" does not exist"));
    assert_eq!(
        ok(
            server,
            "select string_agg(datname, ',' order by oid) from pg_database"
        ),
        "template1,template0,postgres,app1,app2"
    );
}

#[test]
fn databases_have_their_own_objects_and_survive_a_crash() {
    let mut server = Server::start();
    assert_eq!(ok(&server, "select current_database()"), "postgres");
    ok(&server, "create database app1");
    ok(&server, "create database app2 with owner postgres template template1 encoding 'UTF8' connection limit 10");
    assert!(err_db(&server, "postgres", "create database app1")
        .contains("ERROR:  database \"app1\" already exists"));
    assert_eq!(ok_db(&server, "app1", "select current_database()"), "app1");
    ok_db(&server, "app1", "create table t (a int primary key)");
    ok_db(&server, "app1", "insert into t values (1), (2)");
    ok_db(&server, "app2", "create table t (b text)");
    ok_db(&server, "app2", "insert into t values ('two')");
    ok_db(&server, "app2", "create sequence s");
    ok_db(&server, "app2", "select nextval('s'), nextval('s')");
    ok_db(&server, "app2", "create schema sc");
    ok_db(&server, "app2", "create table sc.u (x int)");
    ok_db(&server, "app2", "insert into sc.u values (7)");
    // A type belongs to its database: app1 does not know it by name.
    ok_db(&server, "app2", "create type mood as enum ('sad', 'happy')");
    ok_db(&server, "app2", "create table e (m mood)");
    ok_db(&server, "app2", "insert into e values ('happy')");
    assert!(err_db(&server, "app1", "create table e2 (m mood)")
        .contains("type \"mood\" does not exist"));
    ok_db(&server, "app1", "create type mood as enum ('other')");
    // The catalog views show each database's own objects only.
    assert_eq!(
        ok_db(
            &server,
            "app1",
            "select count(*) from pg_class where relname = 't'"
        ),
        "1"
    );
    assert_eq!(
        ok_db(
            &server,
            "app1",
            "select count(*) from pg_namespace where nspname = 'sc'"
        ),
        "0"
    );
    assert_eq!(
        ok_db(
            &server,
            "app2",
            "select table_catalog from information_schema.tables where table_name = 'e'"
        ),
        "app2"
    );
    check_contents(&server);

    // Crash: everything comes back from the WAL.
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());
    let mut again = Server::start_on(&dir);
    check_contents(&again);
    // app1's own mood, not app2's.
    ok_db(&again, "app1", "create table e2 (m mood)");
    ok_db(&again, "app1", "insert into e2 values ('other')");
    assert!(err_db(&again, "app1", "insert into e2 values ('happy')")
        .contains("invalid input value for enum mood: \"happy\""));

    // Then from a checkpoint image, with a dropped database and more WAL.
    ok(&again, "create database gone");
    ok_db(&again, "gone", "create table g (a int)");
    ok(&again, "checkpoint");
    ok(&again, "drop database gone");
    ok_db(&again, "app1", "insert into t values (3)");
    ok_db(&again, "app1", "delete from t where a = 3");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_contents(&third);
    connect_fails(&third, "gone", "3D000");
}

#[test]
fn connecting_to_a_missing_database_is_fatal_3d000() {
    let server = Server::start();
    let msg = connect_fails(&server, "nosuch", "3D000");
    assert_eq!(msg, "database \"nosuch\" does not exist");
    let msg = connect_fails(&server, "template0", "55000");
    assert_eq!(
        msg,
        "database \"template0\" is not currently accepting connections"
    );
    // template1 takes connections, as in PostgreSQL.
    let mut c = connect(&server, "template1");
    let rows = c.query("select current_database()");
    assert!(rows.iter().any(|m| m.tag == b'D'));
}

/// CONNECTION LIMIT of a database: a non-superuser past it gets FATAL
/// 53300 "too many connections for database"; superusers are not counted
/// against it, and -1 lifts it (as in PostgreSQL).
#[test]
fn database_connection_limit_is_enforced() {
    let server = Server::start();
    ok(&server, "CREATE ROLE app LOGIN");
    ok(&server, "CREATE DATABASE lim CONNECTION LIMIT 1");
    let login = |c: &mut RawConn| {
        c.send(&startup_packet(
            3,
            0,
            &[("user", "app"), ("database", "lim")],
        ))
    };
    let mut first = server.raw();
    login(&mut first);
    first.expect_started();
    let mut second = server.raw();
    login(&mut second);
    let refused = loop {
        let m = second.read();
        if m.tag == b'E' {
            break m;
        }
    };
    assert_eq!(refused.severity(), "FATAL");
    assert_eq!(refused.sqlstate(), "53300");
    assert_eq!(
        refused.message(),
        "too many connections for database \"lim\""
    );
    // A superuser still gets in.
    let _su = connect(&server, "lim");
    ok(&server, "ALTER DATABASE lim CONNECTION LIMIT -1");
    let mut third = server.raw();
    login(&mut third);
    third.expect_started();
}

/// The first column of the first DataRow of `msgs`, as text.
fn first_value(msgs: &[common::Msg]) -> String {
    let row = msgs.iter().find(|m| m.tag == b'D').expect("a row");
    let len = i32::from_be_bytes(row.body[2..6].try_into().unwrap()) as usize;
    String::from_utf8_lossy(&row.body[6..6 + len]).into_owned()
}

/// Advisory locks are per database, as in PostgreSQL: the same key taken
/// in two databases does not conflict, and pg_locks shows each database.
#[test]
fn advisory_locks_are_per_database() {
    let server = Server::start();
    ok(&server, "create database other");
    let mut a = connect(&server, "postgres");
    let mut b = connect(&server, "other");
    let mut c = connect(&server, "postgres");
    assert_eq!(
        first_value(&a.query("select pg_try_advisory_lock(42)")),
        "t"
    );
    assert_eq!(
        first_value(&b.query("select pg_try_advisory_lock(42)")),
        "t"
    );
    assert_eq!(
        first_value(&c.query("select pg_try_advisory_lock(42)")),
        "f"
    );
    assert_eq!(
        first_value(&c.query(
            "select string_agg(d.datname, ',' order by d.datname) from pg_locks l \
             join pg_database d on d.oid = l.database where l.locktype = 'advisory'"
        )),
        "other,postgres"
    );
}

#[test]
fn drop_database_checks() {
    let server = Server::start();
    ok(&server, "create database app");
    ok_db(&server, "app", "create table t (a int)");
    let mut held = connect(&server, "app");
    let e = err_db(&server, "postgres", "drop database app");
    assert!(
        e.contains("ERROR:  database \"app\" is being accessed by other users"),
        "{e}"
    );
    assert!(
        e.contains("DETAIL:  There is 1 other session using the database."),
        "{e}"
    );
    // pg_stat_activity shows the database of each session.
    assert_eq!(
        ok(
            &server,
            "select datname from pg_stat_activity where datname = 'app'"
        ),
        "app"
    );
    let e = err_db(&server, "app", "drop database app");
    assert!(e.contains("cannot drop the currently open database"), "{e}");
    let e = err_db(&server, "postgres", "begin; drop database app; commit;");
    assert!(
        e.contains("DROP DATABASE cannot run inside a transaction block"),
        "{e}"
    );
    let e = err_db(&server, "postgres", "begin; create database x; commit;");
    assert!(
        e.contains("CREATE DATABASE cannot run inside a transaction block"),
        "{e}"
    );
    // A query string of several statements is one implicit block.
    let e = err_db(&server, "postgres", "select 1; create database x");
    assert!(
        e.contains("CREATE DATABASE cannot run inside a transaction block"),
        "{e}"
    );
    let e = err_db(&server, "postgres", "drop database app; select 1");
    assert!(
        e.contains("DROP DATABASE cannot run inside a transaction block"),
        "{e}"
    );
    let e = err_db(&server, "postgres", "drop database template1");
    assert!(e.contains("cannot drop a template database"), "{e}");
    // FORCE terminates the other session.
    ok(&server, "drop database app with (force)");
    held.expect_fatal_and_close("57P01");
    connect_fails(&server, "app", "3D000");
    let e = err_db(&server, "postgres", "drop database app");
    assert!(e.contains("ERROR:  database \"app\" does not exist"), "{e}");
    let out = Command::new("psql")
        .args(["-X", "-h", "127.0.0.1", "-p", &server.port.to_string()])
        .args([
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-c",
            "drop database if exists app",
        ])
        .output()
        .expect("run psql");
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("NOTICE:  database \"app\" does not exist, skipping"));

    // Same name again: a fresh, empty database.
    ok(&server, "create database app");
    let e = err_db(&server, "app", "select * from t");
    assert!(e.contains("relation \"t\" does not exist"), "{e}");
    ok(&server, "alter database app rename to app_renamed");
    assert_eq!(
        ok_db(&server, "app_renamed", "select current_database()"),
        "app_renamed"
    );

    // CREATEDB is needed to create one.
    ok(&server, "create role plain login");
    ok(&server, "create role maker login createdb");
    let e = psql_as(&server, "plain", "postgres", "create database p").unwrap_err();
    assert!(
        e.contains("ERROR:  permission denied to create database"),
        "{e}"
    );
    psql_as(&server, "maker", "postgres", "create database m").unwrap();
    assert_eq!(
        ok(
            &server,
            "select pg_get_userbyid(datdba) from pg_database where datname = 'm'"
        ),
        "maker"
    );
    let e = psql_as(&server, "plain", "postgres", "drop database m").unwrap_err();
    assert!(e.contains("must be owner of database m"), "{e}");
    psql_as(&server, "maker", "postgres", "drop database m").unwrap();
}
