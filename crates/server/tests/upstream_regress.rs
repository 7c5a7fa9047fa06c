//! PostgreSQL 15's own regression files that Nestor passes whole
//! (tests/pg15-regress, copied unchanged from upstream's
//! src/test/regress), run as `scripts/pg-regress` runs the whole upstream
//! suite: its prepared `test_setup.sql`, then each file through `psql -X
//! -a -q` against one fresh Nestor, in this order, compared whole with
//! PostgreSQL's expected output (pg_regress's verdict). A file here that
//! stops matching fails the suite; `scripts/pg-regress` over the whole
//! upstream suite finds the files that may join (tests/pg15-regress/README.md).

use std::path::Path;
use std::process::Command;

/// The files, in PostgreSQL's schedule order.
const IDENTICAL: &[&str] = &[
    "boolean",
    "varchar",
    "text",
    "int2",
    "int4",
    "int8",
    "oid",
    "time",
    "timestamp",
    "timetz",
    "select_distinct_on",
    "select_having",
    "delete",
    "prepare",
    "enum",
    "bit",
    "money",
    "hash_part",
];

#[test]
fn upstream_files_stay_identical() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let keep = tempfile_dir();
    let out = Command::new("python3")
        .arg(repo.join("scripts/pg-regress"))
        .arg("--regress-dir")
        .arg(repo.join("tests/pg15-regress"))
        .arg("--nestor-bin")
        .arg(env!("CARGO_BIN_EXE_nestor"))
        .arg("--keep")
        .arg(&keep)
        .arg("--require-identical")
        .args(IDENTICAL)
        .output()
        .expect("run scripts/pg-regress (python3, psql)");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "upstream files differ (outputs in {}):\n{report}\n{}",
        keep.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    for name in IDENTICAL {
        assert!(
            report.lines().any(
                |l| l.split_whitespace().next() == Some(name) && l.contains("[file identical]")
            ),
            "{name} not reported identical:\n{report}"
        );
    }
    let _ = std::fs::remove_dir_all(&keep);
}

/// A fresh directory for the outputs (kept when the test fails).
fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("nestor-upstream-regress-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("create the output directory");
    d
}
