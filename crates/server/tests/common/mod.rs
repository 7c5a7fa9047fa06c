//! Shared helpers for tests that run the real `nestor` binary.
//!
//! `Server::start()` launches it with `--port 0` on a fresh temporary data
//! directory and learns the port from its "listening on ADDR" log line (no
//! race for a "free" port). Stderr keeps being drained in a thread (and
//! echoed, so failing tests show the server log). Dropping a `Server` kills
//! it and removes the data directory.
//!
//! The raw-protocol helpers (`RawConn`) speak just enough of the wire
//! protocol to test startup, errors and framing with exact bytes; for SQL
//! use a real client (tokio-postgres is a dev-dependency).

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Server {
    child: Child,
    pub port: u16,
    pub data_dir: PathBuf,
    /// Every line the server wrote to its standard error so far.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

static SEQ: AtomicUsize = AtomicUsize::new(0);

fn temp_data_dir() -> PathBuf {
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "nestor-test-{}-{}-{n}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

impl Server {
    /// Start with default flags (trust authentication).
    pub fn start() -> Server {
        Server::start_with(&[], &[])
    }

    /// Start with extra flags and environment variables.
    pub fn start_with(args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_in(temp_data_dir(), args, env)
    }

    /// Start on an existing data directory (restart after a crash).
    pub fn start_on(data_dir: &std::path::Path) -> Server {
        Server::start_in(data_dir.to_path_buf(), &[], &[])
    }

    /// Start on an existing data directory with extra flags.
    pub fn start_on_with(data_dir: &std::path::Path, args: &[&str]) -> Server {
        Server::start_in(data_dir.to_path_buf(), args, &[])
    }

    fn start_in(data_dir: PathBuf, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_nestor"));
        cmd.arg("--data-dir")
            .arg(&data_dir)
            .args(["--listen", "127.0.0.1", "--port", "0"])
            // No Unix socket unless a test asks for one (a later flag wins).
            .args(["--unix-socket-directories", ""])
            .args(args)
            .env_remove("NESTOR_PASSWORD")
            .env_remove("NESTOR_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn nestor");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log2 = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                eprintln!("[nestor] {line}");
                log2.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(line.clone());
                if let Some(addr) = line.split("listening on ").nth(1) {
                    // A text line ends with the address; a jsonlog line's
                    // message ends at the quote.
                    let addr = addr.split('"').next().unwrap_or(addr);
                    let _ = tx.send(addr.trim().to_owned());
                }
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(a) => a,
            Err(_) => {
                let _ = child.kill();
                panic!("nestor did not report its listening address");
            }
        };
        let port = addr
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port in listening line");
        Server {
            child,
            port,
            data_dir,
            log,
        }
    }

    /// The server's standard error lines so far.
    pub fn log_lines(&self) -> Vec<String> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The log once `done` holds for it: the server writes a line after
    /// the statement's reply and a thread reads it from the pipe, so a
    /// test that reads right away can miss it on a loaded machine. Gives
    /// up (returning the log as it is) after `LOG_WAIT_MS_MAX`.
    pub fn log_lines_when(&self, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        const LOG_WAIT_MS_MAX: u64 = 10_000;
        let step = std::time::Duration::from_millis(20);
        for _ in 0..LOG_WAIT_MS_MAX / 20 {
            let lines = self.log_lines();
            if done(&lines) {
                return lines;
            }
            std::thread::sleep(step);
        }
        self.log_lines()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A tokio-postgres connection string.
    pub fn conn_str(&self, user: &str, password: Option<&str>) -> String {
        let mut s = format!(
            "host=127.0.0.1 port={} user={user} dbname=postgres",
            self.port
        );
        if let Some(p) = password {
            s.push_str(&format!(
                " password='{}'",
                p.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        }
        s
    }

    /// A raw TCP connection with read/write timeouts.
    pub fn raw(&self) -> RawConn {
        let s = TcpStream::connect(self.addr()).expect("connect");
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        RawConn { s }
    }

    /// Send a signal (e.g. `libc::SIGTERM`) and wait for the exit status.
    pub fn signal_and_wait(&mut self, sig: i32) -> ExitStatus {
        // SAFETY: kill() on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
        self.wait_timeout(Duration::from_secs(20))
            .expect("nestor did not exit after the signal")
    }

    pub fn wait_timeout(&mut self, t: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + t;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Resident set size of the server process in KiB (Linux).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// One backend message: type byte and body.
#[derive(Debug, Clone)]
pub struct Msg {
    pub tag: u8,
    pub body: Vec<u8>,
}

impl Msg {
    /// Fields of an ErrorResponse/NoticeResponse.
    pub fn fields(&self) -> HashMap<u8, String> {
        let mut m = HashMap::new();
        let mut rest = &self.body[..];
        while let Some((&code, tail)) = rest.split_first() {
            if code == 0 {
                break;
            }
            let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
            m.insert(code, String::from_utf8_lossy(&tail[..end]).into_owned());
            rest = tail.get(end + 1..).unwrap_or(&[]);
        }
        m
    }

    pub fn sqlstate(&self) -> String {
        self.fields().get(&b'C').cloned().unwrap_or_default()
    }

    pub fn message(&self) -> String {
        self.fields().get(&b'M').cloned().unwrap_or_default()
    }

    pub fn severity(&self) -> String {
        self.fields().get(&b'V').cloned().unwrap_or_default()
    }
}

pub struct RawConn {
    pub s: TcpStream,
}

/// Build a message with a type byte.
pub fn frame(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    v.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    v.extend_from_slice(body);
    v
}

/// A StartupMessage for protocol `major.minor` with the given parameters.
pub fn startup_packet(major: u16, minor: u16, params: &[(&str, &str)]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&major.to_be_bytes());
    body.extend_from_slice(&minor.to_be_bytes());
    for (k, v) in params {
        body.extend_from_slice(k.as_bytes());
        body.push(0);
        body.extend_from_slice(v.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut p = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    p.extend_from_slice(&body);
    p
}

/// A packet without type byte: length, then `code`, then `rest`.
pub fn code_packet(code: i32, rest: &[u8]) -> Vec<u8> {
    let mut p = ((rest.len() + 8) as i32).to_be_bytes().to_vec();
    p.extend_from_slice(&code.to_be_bytes());
    p.extend_from_slice(rest);
    p
}

pub const SSL_REQUEST: i32 = 80_877_103;
pub const GSSENC_REQUEST: i32 = 80_877_104;
pub const CANCEL_REQUEST: i32 = 80_877_102;

/// What startup returned: backend pid and secret, and the ReadyForQuery status.
pub struct Started {
    pub pid: i32,
    pub secret: i32,
    pub status: u8,
    pub params: Vec<(String, String)>,
}

impl RawConn {
    pub fn send(&mut self, bytes: &[u8]) {
        self.s.write_all(bytes).expect("write");
    }

    /// Send, tolerating a connection the server already closed.
    pub fn send_lossy(&mut self, bytes: &[u8]) {
        let _ = self.s.write_all(bytes);
    }

    pub fn read_byte(&mut self) -> u8 {
        let mut b = [0u8; 1];
        self.s.read_exact(&mut b).expect("read byte");
        b[0]
    }

    /// Next message, or `None` at EOF/reset (or after IO_TIMEOUT).
    pub fn try_read(&mut self) -> Option<Msg> {
        self.read_msg().ok()
    }

    fn read_msg(&mut self) -> std::io::Result<Msg> {
        let mut head = [0u8; 5];
        self.s.read_exact(&mut head)?;
        let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]);
        assert!(len >= 4, "server sent bad length {len}");
        let mut body = vec![0u8; len as usize - 4];
        self.s.read_exact(&mut body)?;
        Ok(Msg { tag: head[0], body })
    }

    /// Next message; panics naming why there is none (a closed connection,
    /// or no answer within IO_TIMEOUT).
    pub fn read(&mut self) -> Msg {
        match self.read_msg() {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                panic!("server closed the connection")
            }
            Err(e) => panic!("no message from the server within {IO_TIMEOUT:?}: {e}"),
        }
    }

    /// Messages up to and including ReadyForQuery.
    pub fn read_until_ready(&mut self) -> Vec<Msg> {
        let mut v = Vec::new();
        loop {
            let m = self.read();
            let done = m.tag == b'Z';
            v.push(m);
            if done {
                return v;
            }
        }
    }

    /// Full trust-authentication startup as `user`.
    pub fn startup(&mut self, user: &str) -> Started {
        self.send(&startup_packet(
            3,
            0,
            &[("user", user), ("database", "postgres")],
        ));
        self.expect_started()
    }

    /// Read AuthenticationOk .. ReadyForQuery.
    pub fn expect_started(&mut self) -> Started {
        let auth = self.read();
        assert_eq!(auth.tag, b'R', "expected Authentication, got {auth:?}");
        assert_eq!(auth.body, 0i32.to_be_bytes(), "expected AuthenticationOk");
        let mut st = Started {
            pid: 0,
            secret: 0,
            status: 0,
            params: Vec::new(),
        };
        for m in self.read_until_ready() {
            match m.tag {
                b'K' => {
                    st.pid = i32::from_be_bytes(m.body[0..4].try_into().unwrap());
                    st.secret = i32::from_be_bytes(m.body[4..8].try_into().unwrap());
                }
                b'S' => {
                    let parts: Vec<String> = m
                        .body
                        .split(|&b| b == 0)
                        .map(|p| String::from_utf8_lossy(p).into_owned())
                        .collect();
                    st.params.push((parts[0].clone(), parts[1].clone()));
                }
                b'Z' => st.status = m.body[0],
                other => panic!("unexpected message {} during startup", other as char),
            }
        }
        st
    }

    /// The next message must be a FATAL error with this SQLSTATE, and then
    /// the server must close the connection. Returns the error.
    pub fn expect_fatal_and_close(&mut self, sqlstate: &str) -> Msg {
        let m = self.read();
        assert_eq!(m.tag, b'E', "expected ErrorResponse, got {m:?}");
        assert_eq!(m.severity(), "FATAL", "{:?}", m.fields());
        assert_eq!(m.sqlstate(), sqlstate, "{:?}", m.fields());
        self.expect_closed();
        m
    }

    /// The server closes the connection (EOF or reset) without sending more.
    pub fn expect_closed(&mut self) {
        let mut buf = [0u8; 64];
        match self.s.read(&mut buf) {
            Ok(0) => {}
            Ok(n) => panic!("expected close, got {n} more bytes: {:?}", &buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("expected close, got {e}"),
        }
    }

    /// Simple query; returns everything up to ReadyForQuery.
    pub fn query(&mut self, sql: &str) -> Vec<Msg> {
        let mut body = sql.as_bytes().to_vec();
        body.push(0);
        self.send(&frame(b'Q', &body));
        self.read_until_ready()
    }

    pub fn close_write(&mut self) {
        let _ = self.s.shutdown(Shutdown::Write);
    }
}

/// Run SQL through psql on `port` (`-X -A -t -q`, ON_ERROR_STOP, as
/// postgres): Ok(stdout) or Err(stderr).
pub fn psql_port(port: u16, sql: &str, env: &[(&str, &str)]) -> Result<String, String> {
    let conninfo = format!("host=127.0.0.1 port={port} user=postgres dbname=postgres");
    psql_conninfo_env(&conninfo, sql, env)
}

/// [`psql_port`] with a connection string of its own (another host or
/// socket directory, user, database).
pub fn psql_conninfo(conninfo: &str, sql: &str) -> Result<String, String> {
    psql_conninfo_env(conninfo, sql, &[])
}

fn psql_conninfo_env(conninfo: &str, sql: &str, env: &[(&str, &str)]) -> Result<String, String> {
    let mut cmd = Command::new("psql");
    cmd.args(["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1"])
        .args(["-d", conninfo, "-c", sql]);
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

/// Run SQL through psql on `server`: Ok(stdout) or Err(stderr).
pub fn psql(server: &Server, sql: &str) -> Result<String, String> {
    psql_port(server.port, sql, &[])
}

/// Its output; panics naming the statement when it fails.
pub fn ok(server: &Server, sql: &str) -> String {
    psql(server, sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Its error; panics when it succeeds.
pub fn err(server: &Server, sql: &str) -> String {
    match psql(server, sql) {
        Ok(out) => panic!("{sql} succeeded with {out:?}"),
        Err(e) => e,
    }
}

/// xorshift64*: a seeded, dependency-free generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// None one time in `one_in`, else a value below `n`.
    pub fn maybe(&mut self, n: u64, one_in: u64) -> Option<i64> {
        (self.below(one_in) != 0).then(|| self.below(n) as i64)
    }
}
