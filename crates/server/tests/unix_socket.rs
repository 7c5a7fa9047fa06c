//! The Unix-domain socket, through the clients that use it: psql with a
//! directory as its host (what `psql -p PORT` does with Debian's default
//! directory) and a raw socket for the SSL negotiation.

mod common;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn socket_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nestor-sock-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// psql over the socket in `dir`: Ok(stdout) or Err(stderr).
fn psql_unix(dir: &Path, port: u16, sql: &str) -> Result<String, String> {
    let host = dir.to_str().unwrap();
    psql_conninfo(
        &format!("host={host} port={port} user=postgres dbname=postgres"),
        sql,
    )
}

#[test]
fn psql_connects_over_the_socket_which_has_no_address() {
    let dir = socket_dir("psql");
    let mut srv = Server::start_with(&["--unix-socket-directories", dir.to_str().unwrap()], &[]);
    let socket = dir.join(format!(".s.PGSQL.{}", srv.port));
    let lock = dir.join(format!(".s.PGSQL.{}.lock", srv.port));
    assert!(socket.exists() && lock.exists());
    let lock_text = std::fs::read_to_string(&lock).unwrap();
    assert_eq!(
        lock_text.lines().next(),
        Some(srv.pid().to_string().as_str())
    );

    // As PostgreSQL: no client address or port for a local connection.
    let row = psql_unix(
        &dir,
        srv.port,
        "SELECT client_addr IS NULL, backend_type FROM pg_stat_activity \
         WHERE pid = pg_backend_pid()",
    )
    .unwrap();
    assert_eq!(row, "t|client backend");
    // The same data over either path.
    psql_unix(
        &dir,
        srv.port,
        "CREATE TABLE t (a int); INSERT INTO t VALUES (7)",
    )
    .unwrap();
    assert_eq!(ok(&srv, "SELECT a FROM t"), "7");
    assert_eq!(
        ok(
            &srv,
            "SELECT client_addr FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        ),
        "127.0.0.1"
    );

    // An SSLRequest on the socket is answered 'N' and the startup goes on
    // in the clear (PostgreSQL never negotiates TLS on a Unix socket).
    let mut s = UnixStream::connect(&socket).unwrap();
    s.write_all(&code_packet(80877103, &[])).unwrap();
    let mut answer = [0u8; 1];
    s.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"N");
    drop(s);

    // A clean shutdown removes the socket and its lock file.
    srv.signal_and_wait(libc::SIGTERM);
    assert!(!socket.exists(), "socket left behind");
    assert!(!lock.exists(), "lock file left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn local_lines_of_the_hba_file_decide_for_the_socket() {
    let dir = socket_dir("hba");
    let file = dir.join("pg_hba.conf");
    std::fs::write(
        &file,
        "local all postgres reject\nlocal all all trust\nhost all all all trust\n",
    )
    .unwrap();
    let srv = Server::start_with(
        &[
            "--unix-socket-directories",
            dir.to_str().unwrap(),
            "--hba-file",
            file.to_str().unwrap(),
        ],
        &[],
    );
    let e = psql_unix(&dir, srv.port, "SELECT 1").unwrap_err();
    assert!(
        e.contains(
            "pg_hba.conf rejects connection for host \"[local]\", user \"postgres\", \
             database \"postgres\", no encryption"
        ),
        "{e}"
    );
    // `host` lines do not apply to the socket, `local` ones not to TCP.
    assert_eq!(ok(&srv, "SELECT 1"), "1");
    ok(&srv, "CREATE ROLE alice LOGIN");
    let out = Command::new("psql")
        .args(["-X", "-A", "-t", "-h", dir.to_str().unwrap()])
        .args(["-p", &srv.port.to_string(), "-U", "alice", "-d", "postgres"])
        .args(["-c", "SELECT current_user"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "alice");
    drop(srv);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_that_cannot_hold_the_socket_is_a_warning() {
    let parent = socket_dir("missing");
    let dir = parent.join("not-there");
    let srv = Server::start_with(&["--unix-socket-directories", dir.to_str().unwrap()], &[]);
    assert_eq!(ok(&srv, "SELECT 1"), "1");
    assert!(
        srv.log_lines()
            .iter()
            .any(|l| l.contains("could not create Unix-domain socket in directory")),
        "{:?}",
        srv.log_lines()
    );
    drop(srv);
    std::fs::remove_dir_all(&parent).unwrap();
}
