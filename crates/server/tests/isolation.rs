//! PostgreSQL's own isolation specs that Nestor passes (tests/isolation,
//! refreshed by `scripts/pg-isolation --save-passing`), run the way
//! pg_isolation_regress runs them: PostgreSQL 15's `isolationtester` reads
//! the spec and talks to a fresh Nestor; its output must equal
//! `expected/SPEC.out` or an alternative `SPEC_N.out`, ignoring white space
//! (pg_regress diffs with `-w`). PGTZ is PST8PDT, as pg_regress sets it.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Server;

/// A spec that takes longer is hanging (the slowest passing one takes a few
/// seconds: deadlock_timeout waits).
const SPEC_TIMEOUT: Duration = Duration::from_secs(120);

fn isolation_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/isolation")
}

/// PostgreSQL's isolationtester: NESTOR_ISOLATIONTESTER, else under
/// `pg_config --pkglibdir` (postgresql-client-15 installs it there).
fn isolationtester() -> PathBuf {
    if let Ok(p) = std::env::var("NESTOR_ISOLATIONTESTER") {
        return PathBuf::from(p);
    }
    let mut dirs = Vec::new();
    if let Ok(o) = Command::new("pg_config").arg("--pkglibdir").output() {
        dirs.push(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    }
    dirs.push(PathBuf::from("/usr/lib/postgresql/15/lib"));
    dirs.iter()
        .map(|d| d.join("pgxs/src/test/isolation/isolationtester"))
        .find(|p| p.exists())
        .expect(
            "isolationtester not found (postgresql-client-15; scripts/install-deps.sh installs it)",
        )
}

/// Lines with all white space removed (`diff -w`).
fn squeeze(s: &str) -> Vec<String> {
    s.lines()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect())
        .collect()
}

fn run_spec(tester: &Path, name: &str) -> Result<(), String> {
    let dir = isolation_dir();
    let spec = std::fs::File::open(dir.join("specs").join(format!("{name}.spec")))
        .map_err(|e| format!("{name}.spec: {e}"))?;
    let srv = Server::start();
    let mut child = Command::new(tester)
        .arg(format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres",
            srv.port
        ))
        .env("PGTZ", "PST8PDT")
        .stdin(Stdio::from(spec))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("run isolationtester: {e}"))?;
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        let mut e = String::new();
        let _ = err.read_to_string(&mut e);
        s + &e
    });
    let started = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if started.elapsed() > SPEC_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{name}: no result after {SPEC_TIMEOUT:?} (a hang?)"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let got = reader.join().expect("reader thread");
    let expected: Vec<PathBuf> = std::fs::read_dir(dir.join("expected"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            stem == name
                || stem
                    .strip_prefix(name)
                    .and_then(|r| r.strip_prefix('_'))
                    .is_some_and(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit())
        })
        .collect();
    if expected.is_empty() {
        return Err(format!("{name}: no expected output"));
    }
    for p in &expected {
        let want = std::fs::read_to_string(p).map_err(|e| e.to_string())?;
        if squeeze(&want) == squeeze(&got) {
            return Ok(());
        }
    }
    let want = std::fs::read_to_string(&expected[0]).unwrap_or_default();
    Err(format!(
        "{name}: output differs from {}\n--- expected\n{want}\n--- nestor\n{got}",
        expected[0].display()
    ))
}

#[test]
fn postgresql_isolation_specs_that_pass_stay_passing() {
    let tester = isolationtester();
    let schedule = std::fs::read_to_string(isolation_dir().join("schedule"))
        .expect("tests/isolation/schedule");
    let names: Vec<&str> = schedule
        .lines()
        .filter_map(|l| l.strip_prefix("test:"))
        .map(str::trim)
        .collect();
    assert!(!names.is_empty(), "empty schedule");
    let failures: Vec<String> = names
        .iter()
        .filter_map(|n| run_spec(&tester, n).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} specs failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n\n")
    );
}
