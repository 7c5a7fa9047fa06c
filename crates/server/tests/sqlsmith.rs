//! A short seeded run of `scripts/sqlsmith` (random statements over the
//! supported grammar) against the binary under test, without PostgreSQL:
//! no statement may end its session or the server. The comparison with
//! PostgreSQL 15 runs behind the script (`scripts/sqlsmith`).

use std::process::Command;

#[test]
fn random_statements_never_end_the_session() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("scripts/sqlsmith"))
        .args(["--no-pg", "--queries", "300", "--seed", "7"])
        .arg("--nestor-bin")
        .arg(env!("CARGO_BIN_EXE_nestor"))
        .output()
        .expect("run scripts/sqlsmith (python3 with psycopg)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "scripts/sqlsmith failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("300 statements"), "{stdout}");
}
