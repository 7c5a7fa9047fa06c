//! TLS for client connections (src/tls.rs) through real clients: psql with
//! sslmode=require / verify-full / disable, psycopg, SCRAM over TLS,
//! `--tls-required`, large results and COPY in both directions inside TLS,
//! the three PEM key formats, bad certificate and key files at start, and
//! hostile clients (garbage or a hang-up mid-handshake, plaintext pipelined
//! after the SSLRequest, a second SSLRequest inside TLS) that must end only
//! their own connection. Certificates are made at test time with the
//! `openssl` command: a CA, and a server certificate it signed for
//! `localhost` and 127.0.0.1.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{code_packet, startup_packet, Server, GSSENC_REQUEST, SSL_REQUEST};

/// A directory of certificates and keys, removed when dropped.
struct Certs {
    dir: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Certs {
    /// ca.crt; server.crt for DNS:localhost and IP:127.0.0.1 signed by it,
    /// with its key in PKCS#8 (server.key), PKCS#1 (server-rsa.key); an EC
    /// certificate with a SEC1 key (ec.crt, ec.key).
    fn make() -> Certs {
        let dir = std::env::temp_dir().join(format!(
            "nestor-tls-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).expect("cert dir");
        let o = |args: &[&str]| openssl(&dir, args);
        o(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
            "-days",
            "2",
            "-subj",
            "/CN=Nestor Test CA",
        ]);
        std::fs::write(
            dir.join("ext.cnf"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
        )
        .expect("ext.cnf");
        o(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ]);
        o(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ]);
        o(&[
            "rsa",
            "-in",
            "server.key",
            "-traditional",
            "-out",
            "server-rsa.key",
        ]);
        o(&[
            "ecparam",
            "-name",
            "prime256v1",
            "-genkey",
            "-noout",
            "-out",
            "ec.key",
        ]);
        o(&[
            "req",
            "-new",
            "-key",
            "ec.key",
            "-out",
            "ec.csr",
            "-subj",
            "/CN=localhost",
        ]);
        o(&[
            "x509",
            "-req",
            "-in",
            "ec.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "ec.crt",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ]);
        Certs { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_string_lossy().into_owned()
    }

    fn server(&self, extra: &[&str]) -> Server {
        self.server_with("server.crt", "server.key", extra, &[])
    }

    fn server_with(&self, cert: &str, key: &str, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let (cert, key) = (self.path(cert), self.path(key));
        let mut args = vec!["--tls-cert", cert.as_str(), "--tls-key", key.as_str()];
        args.extend_from_slice(extra);
        Server::start_with(&args, env)
    }
}

impl Drop for Certs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// psql with a full connection string (`-X -A -t -q`, ON_ERROR_STOP):
/// Ok(stdout) or Err(stderr).
fn psql(conninfo: &str, sql: &str, env: &[(&str, &str)]) -> Result<String, String> {
    let mut cmd = Command::new("psql");
    cmd.args([
        "-X",
        "-A",
        "-t",
        "-q",
        "-v",
        "ON_ERROR_STOP=1",
        "-d",
        conninfo,
        "-c",
        sql,
    ])
    .env("PGCONNECT_TIMEOUT", "10")
    .env_remove("PGSSLMODE")
    .env_remove("PGPASSWORD");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run psql");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

fn conninfo(srv: &Server, opts: &str) -> String {
    format!(
        "host=127.0.0.1 port={} user=postgres dbname=postgres {opts}",
        srv.port
    )
}

/// `\conninfo`'s line about encryption, or what psql said instead.
fn ssl_line(srv: &Server, opts: &str) -> String {
    match psql(&conninfo(srv, opts), "\\conninfo", &[]) {
        Ok(out) => out
            .lines()
            .find(|l| l.starts_with("SSL connection"))
            .unwrap_or("no SSL")
            .to_string(),
        Err(e) => panic!("psql {opts}: {e}"),
    }
}

#[test]
fn psql_sslmode_require_and_disable() {
    let certs = Certs::make();
    let srv = certs.server(&[]);
    let c = conninfo(&srv, "sslmode=require");
    assert_eq!(
        psql(&c, "SELECT x FROM generate_series(1, 3) x", &[]).unwrap(),
        "1\n2\n3"
    );
    let line = ssl_line(&srv, "sslmode=require");
    assert!(line.contains("protocol: TLSv1.3"), "{line}");
    // Plaintext still works when TLS is not required.
    assert_eq!(
        psql(&conninfo(&srv, "sslmode=disable"), "SELECT 42", &[]).unwrap(),
        "42"
    );
    assert_eq!(ssl_line(&srv, "sslmode=disable"), "no SSL");
    // prefer (libpq's default) takes TLS when offered.
    assert!(ssl_line(&srv, "sslmode=prefer").contains("TLSv1.3"));
    // pg_stat_ssl shows each session's TLS as PostgreSQL (OpenSSL) names it.
    let own = "SELECT ssl, version, cipher, bits, client_dn IS NULL \
               FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
    assert_eq!(
        psql(&c, own, &[]).unwrap(),
        "t|TLSv1.3|TLS_AES_256_GCM_SHA384|256|t"
    );
    assert_eq!(
        psql(&conninfo(&srv, "sslmode=disable"), own, &[]).unwrap(),
        "f||||t"
    );
}

#[test]
fn without_a_certificate_sslmode_require_is_refused() {
    let srv = Server::start();
    let e = psql(&conninfo(&srv, "sslmode=require"), "SELECT 1", &[]).unwrap_err();
    assert!(e.contains("server does not support SSL"), "{e}");
    assert_eq!(ssl_line(&srv, "sslmode=prefer"), "no SSL");
}

#[test]
fn verify_full_checks_the_chain_and_the_host_name() {
    let certs = Certs::make();
    let srv = certs.server(&[]);
    let root = format!("sslrootcert={}", certs.path("ca.crt"));
    let good = format!(
        "host=localhost port={} user=postgres dbname=postgres sslmode=verify-full {root}",
        srv.port
    );
    assert_eq!(psql(&good, "SELECT 'verified'", &[]).unwrap(), "verified");
    // The certificate names localhost and 127.0.0.1, not this host.
    let wrong = format!(
        "host=wrong.example hostaddr=127.0.0.1 port={} user=postgres dbname=postgres sslmode=verify-full {root}",
        srv.port
    );
    let e = psql(&wrong, "SELECT 1", &[]).unwrap_err();
    assert!(e.contains("does not match host name"), "{e}");
    // A CA that did not sign it.
    let other = format!("sslrootcert={}", certs.path("server.crt"));
    let e = psql(
        &conninfo(&srv, &format!("sslmode=verify-ca {other}")),
        "SELECT 1",
        &[],
    )
    .unwrap_err();
    assert!(e.contains("certificate verify failed"), "{e}");
}

#[test]
fn tls_required_refuses_plaintext_with_the_pg_hba_fatal() {
    let certs = Certs::make();
    let srv = certs.server(&["--tls-required"]);
    let e = psql(&conninfo(&srv, "sslmode=disable"), "SELECT 1", &[]).unwrap_err();
    assert!(
        e.contains(
            "FATAL:  no pg_hba.conf entry for host \"127.0.0.1\", user \"postgres\", database \"postgres\", no encryption"
        ),
        "{e}"
    );
    assert_eq!(
        psql(&conninfo(&srv, "sslmode=require"), "SELECT 7", &[]).unwrap(),
        "7"
    );
    // The raw protocol: FATAL 28000, then the connection closes.
    let mut c = srv.raw();
    c.send(&startup_packet(
        3,
        0,
        &[("user", "alice"), ("database", "db1")],
    ));
    let m = c.expect_fatal_and_close("28000");
    assert_eq!(
        m.message(),
        "no pg_hba.conf entry for host \"127.0.0.1\", user \"alice\", database \"db1\", no encryption"
    );
}

#[test]
fn tls_required_needs_a_certificate() {
    let out = Command::new("timeout")
        .args([
            "20",
            env!("CARGO_BIN_EXE_nestor"),
            "--port",
            "0",
            "--tls-required",
        ])
        .output()
        .expect("run nestor");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--tls-cert"), "{err}");
}

#[test]
fn scram_over_tls_without_channel_binding() {
    let certs = Certs::make();
    let srv = certs.server_with(
        "server.crt",
        "server.key",
        &[],
        &[("NESTOR_PASSWORD", "pw1")],
    );
    let env = [("PGPASSWORD", "pw1")];
    // libpq's channel_binding=prefer: SCRAM-SHA-256 without -PLUS.
    assert_eq!(
        psql(&conninfo(&srv, "sslmode=require"), "SELECT 'in'", &env).unwrap(),
        "in"
    );
    let e = psql(
        &conninfo(&srv, "sslmode=require channel_binding=require"),
        "SELECT 1",
        &env,
    )
    .unwrap_err();
    assert!(e.contains("channel binding"), "{e}");
    let e = psql(
        &conninfo(&srv, "sslmode=require"),
        "SELECT 1",
        &[("PGPASSWORD", "wrong")],
    )
    .unwrap_err();
    assert!(e.contains("password authentication failed"), "{e}");
}

#[test]
fn psycopg_with_sslmode_require() {
    let certs = Certs::make();
    let srv = certs.server(&["--tls-required"]);
    let script = r#"
import sys, time, psycopg
with psycopg.connect(sys.argv[1]) as conn:
    assert conn.pgconn.ssl_in_use, "not encrypted"
    cur = conn.execute("SELECT %s::int + 1, repeat('y', 100000)", (41,))
    n, big = cur.fetchone()
    # Quiet for longer than a session thread lingers: the next query
    # wakes the poller through TLS.
    time.sleep(0.3)
    cur = conn.execute("SELECT count(*) FROM generate_series(1, 50000)")
    print(n, len(big), cur.fetchone()[0], conn.pgconn.ssl_in_use)
"#;
    let out = Command::new("python3")
        .args(["-c", script, &conninfo(&srv, "sslmode=require")])
        .output()
        .expect("run python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.trim(), "42 100000 50000 True");
}

#[test]
fn large_results_and_copy_through_tls() {
    let certs = Certs::make();
    let srv = certs.server(&[]);
    let c = conninfo(&srv, "sslmode=require");
    // 10 MB out in one result.
    let out = psql(
        &c,
        "SELECT x::text || ':' || repeat('ab', 500) FROM generate_series(1, 10000) x",
        &[],
    )
    .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10000);
    let tail = "ab".repeat(500);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(*l, format!("{}:{tail}", i + 1));
    }
    // COPY in (about 6 MB) and back out.
    let dir = &certs.dir;
    let input = dir.join("in.tsv");
    let mut data = String::new();
    for i in 0..60_000 {
        data.push_str(&format!("{i}\t{}\n", "z".repeat(90 + i % 17)));
    }
    std::fs::write(&input, &data).unwrap();
    psql(&c, "CREATE TABLE t (id int, s text)", &[]).unwrap();
    psql(&c, &format!("\\copy t FROM '{}'", input.display()), &[]).unwrap();
    assert_eq!(
        psql(&c, "SELECT count(*), sum(length(s)) FROM t", &[]).unwrap(),
        format!("60000|{}", (0..60_000).map(|i| 90 + i % 17).sum::<usize>())
    );
    let output = dir.join("out.tsv");
    psql(
        &c,
        &format!(
            "\\copy (SELECT * FROM t ORDER BY id) TO '{}'",
            output.display()
        ),
        &[],
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(&output).unwrap(), data);
}

#[test]
fn every_key_format_serves() {
    let certs = Certs::make();
    for (cert, key) in [("server.crt", "server-rsa.key"), ("ec.crt", "ec.key")] {
        let srv = certs.server_with(cert, key, &[], &[]);
        let line = ssl_line(&srv, "sslmode=require");
        assert!(line.contains("TLSv1.3"), "{cert} {key}: {line}");
    }
}

/// The server must not start (exit status 1; 2 for a usage error); its
/// error names `names`.
fn start_fails(args: &[&str], names: &str) {
    start_fails_with(1, args, names)
}

fn start_fails_with(code: i32, args: &[&str], names: &str) {
    let dir = std::env::temp_dir().join(format!("nestor-tls-nostart-{}", std::process::id()));
    let out = Command::new("timeout")
        .args([
            "20",
            env!("CARGO_BIN_EXE_nestor"),
            "--port",
            "0",
            "--data-dir",
        ])
        .arg(&dir)
        .args(args)
        .output()
        .expect("run nestor");
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(names), "{args:?}: {err}");
    assert!(!err.contains("listening on"), "{err}");
}

#[test]
fn bad_certificate_or_key_files_stop_the_start() {
    let certs = Certs::make();
    let (crt, key, ca_key) = (
        certs.path("server.crt"),
        certs.path("server.key"),
        certs.path("ca.key"),
    );
    let missing = certs.path("missing.pem");
    start_fails(
        &["--tls-cert", &missing, "--tls-key", &key],
        &format!("could not load server certificate file \"{missing}\""),
    );
    start_fails(
        &["--tls-cert", &crt, "--tls-key", &missing],
        &format!("could not load private key file \"{missing}\""),
    );
    // A key file with no key in it, a certificate file with none in it.
    start_fails(
        &["--tls-cert", &crt, "--tls-key", &crt],
        &format!("could not load private key file \"{crt}\": no PEM private key"),
    );
    start_fails(
        &["--tls-cert", &key, "--tls-key", &key],
        &format!("could not load server certificate file \"{key}\": no PEM CERTIFICATE"),
    );
    // A key that is not the certificate's.
    start_fails(
        &["--tls-cert", &crt, "--tls-key", &ca_key],
        &format!("could not use certificate \"{crt}\" with private key \"{ca_key}\""),
    );
    // Only one of the two.
    start_fails_with(2, &["--tls-cert", &crt], "--tls-key");
}

/// Read until the server closes; what it sent.
fn read_to_close(s: &mut TcpStream) -> Vec<u8> {
    s.set_read_timeout(Some(Duration::from_secs(70))).unwrap();
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return all,
            Ok(n) => all.extend_from_slice(&buf[..n]),
        }
    }
}

fn ssl_request(srv: &Server) -> TcpStream {
    let mut s = TcpStream::connect(srv.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&code_packet(SSL_REQUEST, &[])).unwrap();
    let mut b = [0u8; 1];
    s.read_exact(&mut b).unwrap();
    assert_eq!(b[0], b'S');
    s
}

#[test]
fn hostile_handshakes_end_only_their_own_connection() {
    let certs = Certs::make();
    let srv = certs.server(&[]);
    // Garbage instead of a ClientHello: the server sends at most an alert
    // (a TLS record: content type 21) and closes.
    let mut s = ssl_request(&srv);
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let got = read_to_close(&mut s);
    assert!(got.is_empty() || got[0] == 21, "{got:?}");
    // A hang-up right after 'S', and one in the middle of a ClientHello.
    drop(ssl_request(&srv));
    let mut s = ssl_request(&srv);
    s.write_all(&[
        0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03,
    ])
    .unwrap();
    drop(s);
    // A hang-up before reading 'S'.
    let mut s = TcpStream::connect(srv.addr()).unwrap();
    s.write_all(&code_packet(SSL_REQUEST, &[])).unwrap();
    drop(s);
    // Many stalled handshakes at once do not block others.
    let stalled: Vec<TcpStream> = (0..20).map(|_| ssl_request(&srv)).collect();
    // GSSENCRequest still gets 'N' with TLS on; then SSL after it.
    let mut c = srv.raw();
    c.send(&code_packet(GSSENC_REQUEST, &[]));
    assert_eq!(c.read_byte(), b'N');
    // Plaintext pipelined after the SSLRequest is refused (CVE-2021-23214).
    let mut c = srv.raw();
    let mut bytes = code_packet(SSL_REQUEST, &[]);
    bytes.extend(startup_packet(3, 0, &[("user", "postgres")]));
    c.send(&bytes);
    let m = c.expect_fatal_and_close("08P01");
    assert_eq!(m.message(), "received unencrypted data after SSL request");
    // The server still serves, in TLS and in plaintext.
    let ok = |opts: &str| psql(&conninfo(&srv, opts), "SELECT 'alive'", &[]);
    assert_eq!(ok("sslmode=require").unwrap(), "alive");
    assert_eq!(ok("sslmode=disable").unwrap(), "alive");
    drop(stalled);
    assert_eq!(ok("sslmode=require").unwrap(), "alive");
}

/// Inside TLS (Python's ssl module as the client): a second SSLRequest or
/// a GSSENCRequest is a protocol violation, FATAL 08P01, and the
/// connection closes; a startup packet then 500 pipelined queries are all
/// answered.
#[test]
fn negotiation_inside_tls_is_a_protocol_violation() {
    let certs = Certs::make();
    let srv = certs.server(&[]);
    let script = r#"
import socket, ssl, struct, sys
port, what = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(struct.pack("!ii", 8, 80877103))
assert s.recv(1) == b"S"
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
t = ctx.wrap_socket(s)
if what == "ssl":
    t.sendall(struct.pack("!ii", 8, 80877103))
elif what == "gss":
    t.sendall(struct.pack("!ii", 8, 80877104))
else:
    body = struct.pack("!i", 196608) + b"user\0postgres\0\0"
    t.sendall(struct.pack("!i", len(body) + 4) + body)
    # 500 queries in one write: many TLS records decrypted at once must
    # all be answered, without waiting for more input from the socket.
    q = b"SELECT 'inside'\0"
    t.sendall((b"Q" + struct.pack("!i", len(q) + 4) + q) * 500 + b"X\0\0\0\4")
data = b""
while True:
    try:
        b = t.recv(65536)
    except (ssl.SSLError, OSError):
        break
    if not b:
        break
    data += b
print(data.count(b"inside") if what == "query" else data)
"#;
    let run = |what: &str| {
        let out = Command::new("python3")
            .args(["-c", script, &srv.port.to_string(), what])
            .output()
            .expect("run python3");
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for what in ["ssl", "gss"] {
        let got = run(what);
        assert!(got.starts_with("b'E"), "{what}: {got}");
        assert!(got.contains("08P01"), "{what}: {got}");
        assert!(got.contains("SFATAL"), "{what}: {got}");
    }
    assert_eq!(run("query").trim(), "500");
}
