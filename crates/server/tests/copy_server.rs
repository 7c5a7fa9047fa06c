//! COPY to and from server-side files and programs
//! (session/src/session/copy_server.rs): the server process reads or writes
//! the data, for superusers and members of PostgreSQL's predefined roles,
//! through the same formats and checks as COPY FROM STDIN / TO STDOUT.
//! Files live in the test server's own data directory.

mod common;

use common::*;

#[test]
fn copy_reads_and_writes_server_files_in_every_format() {
    let srv = Server::start();
    let dir = srv.data_dir.clone();
    std::fs::write(dir.join("in.txt"), "1\tone\n2\t\\N\n").unwrap();
    ok(&srv, "CREATE TABLE t (a int, b text)");
    let abs_in = dir.join("in.txt");
    assert_eq!(ok(&srv, &format!("COPY t FROM '{}'", abs_in.display())), "");
    // A relative name is the data directory's.
    ok(&srv, "COPY t FROM 'in.txt' WHERE a = 2");
    assert_eq!(
        ok(&srv, "SELECT a, coalesce(b, 'null') FROM t ORDER BY a"),
        "1|one\n2|null\n2|null"
    );
    for (opts, name) in [
        ("CSV HEADER", "out.csv"),
        ("(FORMAT binary)", "out.bin"),
        ("", "out.txt"),
    ] {
        let path = dir.join(name);
        ok(&srv, &format!("COPY t TO '{}' {opts}", path.display()));
        ok(&srv, "CREATE TABLE back (a int, b text)");
        ok(&srv, &format!("COPY back FROM '{}' {opts}", path.display()));
        assert_eq!(
            ok(
                &srv,
                "SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM back) d"
            ),
            "0",
            "{opts}"
        );
        ok(&srv, "DROP TABLE back");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("out.csv")).unwrap(),
        "a,b\n1,one\n2,\n2,\n"
    );
    let q = dir.join("q.txt");
    ok(
        &srv,
        &format!(
            "COPY (SELECT a * 10 FROM t WHERE b IS NULL) TO '{}'",
            q.display()
        ),
    );
    assert_eq!(std::fs::read_to_string(&q).unwrap(), "20\n20\n");
}

#[test]
fn copy_runs_programs_and_reports_their_failure() {
    let srv = Server::start();
    ok(&srv, "CREATE TABLE t (a int)");
    ok(&srv, "COPY t FROM PROGRAM 'seq 1 5'");
    assert_eq!(ok(&srv, "SELECT sum(a) FROM t"), "15");
    let out = srv.data_dir.join("prog.txt");
    ok(
        &srv,
        &format!("COPY t TO PROGRAM 'sort -rn > {}'", out.display()),
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "5\n4\n3\n2\n1\n");
    let e = err(&srv, "COPY t FROM PROGRAM 'exit 3'");
    assert!(e.contains("program \"exit 3\" failed"), "{e}");
    assert!(e.contains("child process exited with exit code 3"), "{e}");
    // A bad row stops the COPY; the program still writing is not waited for.
    let e = err(&srv, "COPY t FROM PROGRAM 'yes x'");
    assert!(
        e.contains("invalid input syntax for type integer: \"x\""),
        "{e}"
    );
    assert_eq!(ok(&srv, "SELECT count(*) FROM t"), "5");
}

#[test]
fn server_side_copy_errors_are_postgresqls() {
    let srv = Server::start();
    ok(&srv, "CREATE TABLE t (a int)");
    let e = err(&srv, "COPY t TO 'relative.txt'");
    assert!(
        e.contains("relative path not allowed for COPY to file"),
        "{e}"
    );
    let missing = srv.data_dir.join("missing.txt");
    let e = err(&srv, &format!("COPY t FROM '{}'", missing.display()));
    assert!(
        e.contains(&format!(
            "could not open file \"{}\" for reading: No such file or directory",
            missing.display()
        )),
        "{e}"
    );
    assert!(
        e.contains("HINT:  COPY FROM instructs the PostgreSQL server process"),
        "{e}"
    );
    let e = err(&srv, &format!("COPY t FROM '{}'", srv.data_dir.display()));
    assert!(e.contains("is a directory"), "{e}");

    // Only superusers and members of the predefined roles.
    ok(&srv, "CREATE ROLE plain LOGIN; GRANT ALL ON t TO plain");
    let as_plain = |sql: &str| psql(&srv, &format!("SET ROLE plain; {sql}"));
    let file = srv.data_dir.join("x.txt");
    let e = as_plain(&format!("COPY t TO '{}'", file.display())).unwrap_err();
    assert!(
        e.contains("must be superuser or have privileges of the pg_write_server_files role to COPY to a file"),
        "{e}"
    );
    let e = as_plain("COPY t FROM PROGRAM 'true'").unwrap_err();
    assert!(e.contains("pg_execute_server_program"), "{e}");
    // (The predefined roles themselves do not exist yet: catalog/src/role.rs.)
    let e = as_plain(&format!("COPY t FROM '{}'", file.display())).unwrap_err();
    assert!(
        e.contains("pg_read_server_files role to COPY from a file"),
        "{e}"
    );
    as_plain("COPY t TO STDOUT").expect("anyone may COPY to stdout");
}
