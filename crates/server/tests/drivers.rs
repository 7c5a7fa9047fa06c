//! The client-driver matrix: each PostgreSQL driver's own check program
//! from tests/clients, unmodified, against a fresh server. One test per
//! driver:
//!
//! | test | program | driver |
//! |------|---------|--------|
//! | `psycopg2` | tests/clients/python/psycopg2_check.py | psycopg2 (psycopg2-binary) |
//! | `psycopg3` | tests/clients/python/psycopg3_check.py | psycopg 3 |
//! | `asyncpg` | tests/clients/python/asyncpg_check.py | asyncpg |
//! | `listen_notify` | tests/clients/python/listen_notify_check.py | psycopg 3: LISTEN/NOTIFY |
//! | `node_postgres` | tests/clients/node/pg_check.js | node-postgres (pg, pg-cursor, pg-copy-streams) |
//! | `knex_migrations` | tests/clients/node/knex_check.js | Knex migrations on pg |
//! | `pgx` | tests/clients/go (built with `go build`) | github.com/jackc/pgx/v5 |
//! | `pgjdbc` | tests/clients/java (built with `mvn -o package`) | pgjdbc 42.7 + HikariCP |
//!
//! Every program takes libpq's PGHOST/PGPORT/PGUSER/PGDATABASE, runs all of
//! its checks (each stops at its first wrong value), prints `ok NAME` or
//! `FAIL NAME: why` per check and exits non-zero when any failed; the test
//! requires exactly the checks listed in [`KNOWN_GAPS`] (features Nestor
//! lacks, each named) to fail, and fails with the program's whole output. Every check passes against
//! PostgreSQL 15 (run a program by hand with PGPORT pointing at one). The
//! drivers, node_modules, Go modules and Maven artifacts come from
//! scripts/install-deps.sh.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::Server;

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients")
}

fn scratch_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("drivers");
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Run a build step; panics with its output when it fails.
fn build(what: &str, mut cmd: Command) {
    let t0 = Instant::now();
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what} ({e}); scripts/install-deps.sh installs it"));
    assert!(
        out.status.success(),
        "{what} failed (scripts/install-deps.sh fetches the dependencies):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{what}: {:.1}s", t0.elapsed().as_secs_f64());
}

/// Run a driver's check program against a fresh server; panics with the
/// program's output when any check failed.
fn run_checks(driver: &str, mut cmd: Command) {
    let server = Server::start();
    let t0 = Instant::now();
    let out = cmd
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", server.port.to_string())
        .env("PGUSER", "postgres")
        .env("PGDATABASE", "postgres")
        .env("PGCONNECT_TIMEOUT", "10")
        .env_remove("PGPASSWORD")
        .env_remove("PGSERVICE")
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run the {driver} checks ({e}); scripts/install-deps.sh installs them")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let failed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL "))
        .map(|l| l.split(':').next().unwrap_or(l).trim())
        .collect();
    let passed = text.lines().filter(|l| l.starts_with("ok ")).count();
    let gaps: Vec<&str> = KNOWN_GAPS
        .iter()
        .filter(|(d, _, _)| *d == driver)
        .map(|(_, c, _)| *c)
        .collect();
    assert!(
        passed > 0 && failed == gaps,
        "{driver}: checks that failed {failed:?}, known gaps {gaps:?} (exit {}); \
         a fixed gap leaves KNOWN_GAPS:\n{text}",
        out.status
    );
    assert_eq!(
        out.status.success(),
        gaps.is_empty(),
        "{driver}: exit status {} disagrees with the checks:\n{text}",
        out.status
    );
    eprintln!(
        "{driver}: {passed} checks passed, known gaps {gaps:?}, in {:.1}s",
        t0.elapsed().as_secs_f64()
    );
}

/// Checks that fail on Nestor today, each for a feature it lacks (they
/// pass on PostgreSQL 15). The test requires exactly these to fail: one
/// that starts passing must leave this list, and a new failure fails.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[];

fn python(script: &str) -> Command {
    let mut cmd = Command::new("python3");
    cmd.arg(clients_dir().join("python").join(script));
    cmd
}

fn node(script: &str) -> Command {
    let dir = clients_dir().join("node");
    let mut cmd = Command::new("node");
    cmd.arg(dir.join(script)).current_dir(&dir);
    cmd
}

#[test]
fn psycopg2() {
    run_checks("psycopg2", python("psycopg2_check.py"));
}

#[test]
fn psycopg3() {
    run_checks("psycopg 3", python("psycopg3_check.py"));
}

/// LISTEN/NOTIFY (psycopg 3's notifies() waits on an idle connection).
#[test]
fn listen_notify() {
    run_checks("listen/notify", python("listen_notify_check.py"));
}

#[test]
fn asyncpg() {
    run_checks("asyncpg", python("asyncpg_check.py"));
}

#[test]
fn node_postgres() {
    run_checks("node-postgres", node("pg_check.js"));
}

#[test]
fn knex_migrations() {
    run_checks("knex", node("knex_check.js"));
}

#[test]
fn pgx() {
    let bin = scratch_dir().join(format!("pgxcheck-{}", std::process::id()));
    let mut go = Command::new("go");
    go.arg("build")
        .arg("-o")
        .arg(&bin)
        .arg(".")
        .current_dir(clients_dir().join("go"))
        // the modules come from the module cache (go mod download)
        .env("GOFLAGS", "-mod=readonly");
    build("go build (tests/clients/go)", go);
    run_checks("pgx", Command::new(&bin));
    let _ = std::fs::remove_file(&bin);
}

#[test]
fn pgjdbc() {
    let dir = clients_dir().join("java");
    let mut mvn = Command::new("mvn");
    mvn.args(["-q", "-o", "-B", "-Dstyle.color=never", "package"])
        .current_dir(&dir);
    build("mvn -o package (tests/clients/java)", mvn);
    let classpath = format!(
        "{}:{}/*",
        dir.join("target/classes").display(),
        dir.join("target/lib").display()
    );
    let mut java = Command::new("java");
    java.args(["-cp", &classpath, "nestor.JdbcCheck"]);
    run_checks("pgjdbc", java);
}
