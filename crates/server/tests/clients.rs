//! Real, unmodified clients against the real server: pgbench (init through
//! COPY and through server-side generation; the built-in scripts in simple,
//! extended and prepared modes; balances consistent afterwards), the
//! experiments' scripts from bench/workloads run unchanged, xid-growth
//! consuming one XID, and data surviving a restart.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::Server;

fn run(server: &Server, program: &str, args: &[&str]) -> Output {
    let out = Command::new(program)
        .args(args)
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", server.port.to_string())
        .env("PGUSER", "postgres")
        .env("PGDATABASE", "postgres")
        .env("PGCONNECT_TIMEOUT", "10")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{program} {args:?} failed:\n{text}");
    assert!(
        !text.contains("aborted in command") && !text.contains("ERROR:"),
        "{program} {args:?} reported errors:\n{text}"
    );
    out
}

/// Run a script with psql, stopping at the first error.
fn psql_file(server: &Server, path: &str) -> Output {
    run(
        server,
        "psql",
        &["-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", path],
    )
}

fn psql(server: &Server, sql: &str) -> String {
    let out = run(
        server,
        "psql",
        &["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql],
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `bench/workloads` of this repository (crates/server is two levels down).
fn workloads() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/workloads");
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("workloads directory {}: {e}", dir.display()))
}

fn balances_consistent(server: &Server) {
    let sums = psql(
        server,
        "select sum(abalance), (select sum(bbalance) from pgbench_branches), \
         (select sum(tbalance) from pgbench_tellers), (select sum(delta) from pgbench_history) \
         from pgbench_accounts",
    );
    let v: Vec<&str> = sums.split('|').collect();
    assert_eq!(v.len(), 4, "{sums}");
    assert!(v.iter().all(|x| *x == v[0]), "balances differ: {sums}");
}

#[test]
fn pgbench_init_and_builtin_scripts_in_every_mode() {
    let server = Server::start();
    run(&server, "pgbench", &["-i", "-s", "1", "-q"]);
    assert_eq!(
        psql(&server, "select count(*) from pgbench_accounts"),
        "100000"
    );
    run(&server, "pgbench", &["-i", "-s", "1", "-I", "dtGvp"]);
    assert_eq!(
        psql(&server, "select count(*) from pgbench_accounts"),
        "100000"
    );
    for mode in ["simple", "extended", "prepared"] {
        for script in [&[][..], &["-N"][..], &["-S"][..]] {
            let mut args = vec!["-n", "-t", "50", "-c", "4", "-j", "2", "-M", mode];
            args.extend_from_slice(script);
            run(&server, "pgbench", &args);
        }
    }
    // Only tpcb-like touches tellers and branches: re-init, run it alone,
    // then every sum must agree.
    run(&server, "pgbench", &["-i", "-s", "1", "-q"]);
    run(
        &server,
        "pgbench",
        &["-n", "-t", "100", "-c", "8", "-j", "2", "-M", "prepared"],
    );
    balances_consistent(&server);
}

#[test]
fn seed_workloads_run_unmodified() {
    let server = Server::start();
    let w = workloads();
    let f = |p: &str| w.join(p).to_string_lossy().to_string();
    psql_file(&server, &f("subtrans-cliff/setup.sql"));
    for script in [
        "savepoints-90.sql",
        "select1-90.sql",
        "savepoints-60.sql",
        "select1-60.sql",
    ] {
        let path = f(&format!("subtrans-cliff/{script}"));
        run(
            &server,
            "pgbench",
            &["-n", "-c", "2", "-t", "3", "-f", &path],
        );
    }
    psql_file(&server, &f("multixact/setup.sql"));
    for script in ["forupdate-savepoint.sql", "forupdate-plain.sql"] {
        run(
            &server,
            "pgbench",
            &[
                "-n",
                "-c",
                "4",
                "-t",
                "50",
                "-f",
                &f(&format!("multixact/{script}")),
            ],
        );
    }
    assert_eq!(psql(&server, "select sum(v) from mx"), "400");
    psql_file(&server, &f("find-or-create/setup.sql"));
    run(
        &server,
        "pgbench",
        &[
            "-n",
            "-c",
            "4",
            "-t",
            "50",
            "-f",
            &f("find-or-create/find-or-create.sql"),
        ],
    );
    let n: i64 = psql(&server, "select count(*) from credit_accounts")
        .parse()
        .unwrap();
    assert!((1..=200).contains(&n), "{n} accounts");
    run(&server, "pgbench", &["-i", "-s", "1", "-q"]);
    for script in ["primary-writes.sql", "standby-reads.sql"] {
        let path = f(&format!("standby-long-tx/{script}"));
        run(
            &server,
            "pgbench",
            &["-n", "-M", "prepared", "-c", "2", "-t", "20", "-f", &path],
        );
    }
    // The replica trigger (70 savepoints, each with an UPDATE); the long
    // transaction itself only sleeps.
    psql_file(&server, &f("standby-long-tx/overflow-once.sql"));
    // PL/pgSQL exception blocks.
    psql_file(&server, &f("plpgsql/setup.sql"));
    for n in [10, 64, 65, 100, 1000] {
        for mode in ["blocks", "plain"] {
            let path = f(&format!("plpgsql/{mode}-{n}.sql"));
            run(
                &server,
                "pgbench",
                &["-n", "-c", "2", "-t", "2", "-f", &path],
            );
        }
    }
    // Every iteration updated one row: 2 clients x 2 calls x (sum of N) x 2.
    assert_eq!(psql(&server, "select sum(val) from contend"), "9912");
    psql_file(&server, &f("plpgsql/find-or-create-setup.sql"));
    run(
        &server,
        "pgbench",
        &[
            "-n",
            "-c",
            "8",
            "-t",
            "50",
            "-f",
            &f("plpgsql/find-or-create.sql"),
        ],
    );
    // Keys 0..100 (nextval 1..400, divided by 4), each created once; a call
    // that lost a race found the winner's row (it raises otherwise, and
    // `run` fails on pgbench's error).
    assert_eq!(
        psql(
            &server,
            "select count(*), count(distinct customer_id) from credit_accounts"
        ),
        "101|101"
    );
}

/// A DO block entering 70 exception blocks, each inserting a row, takes one
/// XID: the blocks are undo marks, not subtransactions.
#[test]
fn plpgsql_exception_blocks_consume_one_xid() {
    let server = Server::start();
    let xids = workloads().join("plpgsql/xids.sql");
    let out = run(
        &server,
        "psql",
        &[
            "-X",
            "-A",
            "-t",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-f",
            &xids.to_string_lossy(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let before: u64 = lines[0].trim().parse().unwrap();
    let after: u64 = lines[1].trim().parse().unwrap();
    assert_eq!(
        after - before - 1,
        1,
        "the DO block consumed one XID:\n{text}"
    );
    assert_eq!(lines[2], "70|1", "70 rows, one xmin:\n{text}");
}

/// The committed subtrans-cliff scripts are `generate.sh`'s output, so the
/// benchmark's generated N and the tested N are the same workload.
#[test]
fn subtrans_scripts_are_the_generators_output() {
    let dir = workloads().join("subtrans-cliff");
    for (n, mode, file) in [
        ("60", "savepoint", "savepoints-60.sql"),
        ("90", "savepoint", "savepoints-90.sql"),
        ("60", "select1", "select1-60.sql"),
        ("90", "select1", "select1-90.sql"),
    ] {
        let out = Command::new("bash")
            .arg(dir.join("generate.sh"))
            .args([n, mode])
            .output()
            .expect("run bash");
        assert!(out.status.success(), "generate.sh {n} {mode} failed");
        let committed = std::fs::read(dir.join(file)).unwrap();
        assert!(
            out.stdout == committed,
            "{file} differs from `generate.sh {n} {mode}`"
        );
        let marks = String::from_utf8(committed)
            .unwrap()
            .lines()
            .filter(|l| {
                *l == if mode == "savepoint" {
                    "SAVEPOINT a;"
                } else {
                    "SELECT 1;"
                }
            })
            .count();
        assert_eq!(marks.to_string(), n, "{file}");
    }
}

#[test]
fn xid_growth_demo_consumes_one_xid_and_rows_share_one_xmin() {
    let server = Server::start();
    let demo = workloads().join("xid-growth/demo.sql");
    let out = run(
        &server,
        "psql",
        &[
            "-X",
            "-A",
            "-t",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-f",
            &demo.to_string_lossy(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    // pg_current_xact_id() inside the transaction, then after it, then the rows.
    let inside: u64 = lines[0].trim().parse().unwrap();
    let after: u64 = lines[1].trim().parse().unwrap();
    assert_eq!(after - inside, 1, "one XID consumed:\n{text}");
    let xmins: std::collections::HashSet<&str> = lines[2..]
        .iter()
        .map(|l| l.split('|').nth(1).unwrap())
        .collect();
    assert_eq!(xmins.len(), 1, "all rows share the top-level xmin:\n{text}");
    assert_eq!(lines.len(), 5, "{text}");
}

#[test]
fn committed_data_survives_a_restart() {
    let mut server = Server::start();
    psql(&server, "create table keep (id serial primary key, v text)");
    psql(
        &server,
        "insert into keep (v) select 'row ' || g from generate_series(1, 500) g",
    );
    psql(&server, "create unlogged table scratch (a int)");
    psql(&server, "insert into scratch values (1)");
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());
    let again = Server::start_on(&dir);
    assert_eq!(
        psql(&again, "select count(*), max(id) from keep"),
        "500|500"
    );
    assert_eq!(
        psql(&again, "select count(*) from scratch"),
        "0",
        "UNLOGGED comes back empty"
    );
    assert_eq!(
        psql(&again, "insert into keep (v) values ('x') returning id"),
        "501"
    );
}

#[test]
fn column_precisions_survive_a_restart() {
    let mut server = Server::start();
    psql(
        &server,
        "create table tp (a timestamp(2), b timestamptz(0), c time(1), d timestamp, \
         e interval hour to second(1))",
    );
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());
    let again = Server::start_on(&dir);
    assert_eq!(
        psql(
            &again,
            "select string_agg(format_type(atttypid, atttypmod), ',' order by attnum) \
             from pg_attribute where attrelid = 'tp'::regclass and attnum > 0"
        ),
        "timestamp(2) without time zone,timestamp(0) with time zone,\
         time(1) without time zone,timestamp without time zone,interval hour to second(1)"
    );
    psql(
        &again,
        "insert into tp values ('2024-01-02 03:04:05.678', '2024-01-02 03:04:05.5+00', \
         '03:04:05.25', '2024-01-02 03:04:05.678', '1 day 02:03:04.56')",
    );
    assert_eq!(
        psql(&again, "set timezone = 'UTC'; select * from tp"),
        "2024-01-02 03:04:05.68|2024-01-02 03:04:06+00|03:04:05.3|2024-01-02 03:04:05.678|\
         1 day 02:03:04.6"
    );
}

use std::os::unix::process::ExitStatusExt;
