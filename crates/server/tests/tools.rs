//! The tools PostgreSQL users already have, unmodified, against the real
//! server: pg_dump and pg_restore (plain and custom format) round trips, a
//! dump made by PostgreSQL 15 restoring into Nestor, SQLAlchemy 2's ORM
//! and reflection, and Django 5.2's migrations and ORM. psql's `\d` family is tests/regress/sql/psql_describe.sql.
//!
//! A round trip: tests/tools/schema.sql (every kind of object Nestor has)
//! is loaded into one server, dumped, restored into a fresh one and dumped
//! again; the two dumps must be identical apart from pg_dump's per-run
//! `\restrict` key.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{ok, psql, Server};

fn tools_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/tools")
}

/// Run a PostgreSQL client program against `server`; panics with its
/// output when it fails.
fn run(server: &Server, program: &str, args: &[&str]) -> Output {
    let out = Command::new(program)
        .args(args)
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", server.port.to_string())
        .env("PGUSER", "postgres")
        .env("PGDATABASE", "postgres")
        .env("PGCONNECT_TIMEOUT", "10")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Load a SQL file, stopping at the first error.
fn load(server: &Server, file: &Path) {
    let f = file.to_str().expect("utf-8 path");
    run(
        server,
        "psql",
        &["-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", f],
    );
}

/// A plain dump without pg_dump's per-run `\restrict` lines.
fn plain_dump(server: &Server) -> String {
    let out = run(server, "pg_dump", &[]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("\\restrict ") && !l.starts_with("\\unrestrict "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tools");
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir.join(format!("{name}-{}", std::process::id()))
}

#[test]
fn plain_dump_restores_and_dumps_the_same() {
    let src = Server::start();
    load(&src, &tools_dir().join("schema.sql"));
    let first = plain_dump(&src);
    assert!(first.contains("CREATE TABLE public.items ("), "{first}");
    assert!(first.contains("CREATE TRIGGER orders_touch"), "{first}");
    let file = scratch("plain.sql");
    std::fs::write(&file, &first).expect("write dump");
    let dst = Server::start();
    load(&dst, &file);
    let second = plain_dump(&dst);
    assert_eq!(first, second, "the restored database dumps differently");
    // The data and the sequences came along.
    assert_eq!(ok(&dst, "select count(*) from items"), "2");
    assert_eq!(ok(&dst, "select tags[2] from items where id = 1"), "y z");
    assert_eq!(ok(&dst, "select nextval('counter')"), "7");
    assert_eq!(
        ok(
            &dst,
            "insert into orders (item) values (2) returning id, note"
        ),
        "3|n"
    );
}

#[test]
fn custom_format_restores_with_pg_restore() {
    let src = Server::start();
    load(&src, &tools_dir().join("schema.sql"));
    let file = scratch("custom.dump");
    let f = file.to_str().expect("utf-8 path");
    run(&src, "pg_dump", &["-Fc", "-f", f]);
    let dst = Server::start();
    run(
        &dst,
        "pg_restore",
        &["--exit-on-error", "-d", "postgres", f],
    );
    assert_eq!(plain_dump(&src), plain_dump(&dst));
}

#[test]
fn a_postgresql_15_dump_restores() {
    let dst = Server::start();
    load(&dst, &tools_dir().join("pg15_dump.sql"));
    assert_eq!(
        ok(
            &dst,
            "select id, name, price, code, qty, tags, flag from items order by id"
        ),
        "1|a|1.50|c1|3|{x,\"y z\"}|t\n2|tab\there|0.00||||"
    );
    assert_eq!(ok(&dst, "select nextval('counter')"), "7");
    assert_eq!(ok(&dst, "select add(2), add(2, 5)"), "3|7");
    assert_eq!(
        ok(
            &dst,
            "insert into orders (item) values (2) returning id, note"
        ),
        "3|n"
    );
    // The foreign key came along and acts.
    assert!(psql(&dst, "insert into orders (item) values (42)").is_err());
    assert_eq!(ok(&dst, "delete from items where id = 1 returning id"), "1");
    assert_eq!(ok(&dst, "select count(*) from orders where item = 1"), "0");
}

/// Run a Python client check script against a fresh server.
fn python_check(script: &str, what: &str) {
    let server = Server::start();
    let script = tools_dir().join(script);
    let out = Command::new("python3")
        .arg(&script)
        .arg(server.port.to_string())
        .output()
        .expect("run python3 (scripts/install-deps.sh installs the clients)");
    assert!(
        out.status.success(),
        "{what} check failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn django_migrate_and_crud() {
    python_check("django_check.py", "Django");
}

#[test]
fn sqlalchemy_orm_and_reflection() {
    let server = Server::start();
    let script = tools_dir().join("sqlalchemy_check.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(server.port.to_string())
        .output()
        .expect("run python3 (scripts/install-deps.sh installs SQLAlchemy)");
    assert!(
        out.status.success(),
        "SQLAlchemy check failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
