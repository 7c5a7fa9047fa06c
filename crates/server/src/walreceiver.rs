//! The walreceiver: a replica's connection to its primary
//! (`nestor --replica-of HOST:PORT`). docs/replication.md has the whole
//! protocol; in short:
//!
//! 1. **First start** (no `standby.signal` in the data directory): connect
//!    with `replication=true`, check the primary (IDENTIFY_SYSTEM), copy a
//!    base image (NESTOR_BASE_BACKUP) into `checkpoint`, take the
//!    primary's system identifier and timeline (`identity`), write
//!    `standby.signal`. Then the engine starts as on any restart:
//!    recovery loads the image and replays the local log.
//! 2. **Streaming:** START_REPLICATION from the end of the local log; each
//!    XLogData record goes to the applier (durable::replica::Applier), which
//!    appends it to the local log, flushes when the socket has nothing more
//!    buffered (one fsync per burst), then applies whole transactions; a
//!    status update after each flush tells the primary write = flush =
//!    apply position (pg_stat_replication, WAL retention).
//! 3. **Failures** (primary restarted, network gone, timeout): the
//!    connection is dropped, anything received but not flushed is
//!    forgotten, and after REPLICA_RETRY_MS the receiver connects again
//!    and resumes from the end of its log; meanwhile the replica keeps
//!    serving reads and pg_stat_wal_receiver says `waiting` with the error.
//! 4. **Lost position** (the primary removed the WAL the replica needs,
//!    58P01 at START_REPLICATION): copy a new base image and replace the
//!    replica's state with it in place, readers going on
//!    (durable::replica::resync); then stream again.
//! 5. **Promotion** (`pg_promote()` or `nestor --promote`, which leaves a
//!    `promote.signal`): the receiver stops, everything flushed has been
//!    applied, and the engine becomes a primary on the next timeline.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nestor_common::limits::{
    REPLICATION_STATUS_INTERVAL_MS, REPLICATION_TIMEOUT_MS, REPLICA_RETRY_MS,
};
use nestor_common::{Lsn, Xid};
use nestor_durable::replica::Applier;
use nestor_durable::{Engine, Identity, STANDBY_SIGNAL};

use crate::repl_wire::{self, error_fields, now_us, put_cstr, put_msg, Cursor, MsgReader};
use crate::scram;
use crate::stream::StdStream;

/// The file `nestor --promote` leaves for a running replica.
pub const PROMOTE_SIGNAL: &str = "promote.signal";

/// How often the receive loop looks at its flags while idle.
const POLL: Duration = Duration::from_millis(100);

/// Received bytes a replica holds before it flushes them even if more
/// are waiting on the socket.
const UNFLUSHED_BYTES_MAX: usize = 8 << 20;

/// Where and how to connect to the primary.
#[derive(Clone, Debug)]
pub struct Config {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    pub application_name: String,
}

impl Config {
    fn conninfo(&self) -> String {
        format!(
            "host={} port={} user={} application_name={}",
            self.host, self.port, self.user, self.application_name
        )
    }
}

/// Why a connection ended.
#[derive(Debug)]
pub struct Failure {
    /// The primary's SQLSTATE, when it sent an error.
    pub code: Option<String>,
    pub message: String,
}

impl Failure {
    fn io(e: impl std::fmt::Display) -> Failure {
        Failure {
            code: None,
            message: e.to_string(),
        }
    }

    fn new(message: impl Into<String>) -> Failure {
        Failure {
            code: None,
            message: message.into(),
        }
    }

    /// Credentials or identity problems: retrying will not help.
    fn is_permanent(&self) -> bool {
        self.code
            .as_deref()
            .is_some_and(|c| c.starts_with("28") || c == "42501")
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.code {
            Some(c) => write!(f, "{} (SQLSTATE {c})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Asked to stop (server shutdown): every wait for the primary ends.
type Stop = Arc<dyn Fn() -> bool + Send + Sync>;

/// A replication connection to the primary, logged in.
struct Client {
    reader: MsgReader,
    out: Vec<u8>,
    stop: Stop,
}

impl Client {
    fn connect(cfg: &Config, stop: Stop) -> Result<Client, Failure> {
        let addr = (cfg.host.as_str(), cfg.port)
            .to_socket_addrs()
            .map_err(|e| Failure::io(format!("could not resolve \"{}\": {e}", cfg.host)))?
            .next()
            .ok_or_else(|| Failure::new(format!("could not resolve \"{}\"", cfg.host)))?;
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).map_err(|e| {
            Failure::io(format!(
                "could not connect to the primary at {}:{}: {e}",
                cfg.host, cfg.port
            ))
        })?;
        stream.set_nodelay(true).map_err(Failure::io)?;
        stream
            .set_write_timeout(Some(Duration::from_millis(REPLICATION_TIMEOUT_MS)))
            .map_err(Failure::io)?;
        let mut c = Client {
            reader: MsgReader::new(StdStream::Tcp(stream), Vec::new(), POLL)
                .map_err(Failure::io)?,
            out: Vec::new(),
            stop,
        };
        let mut body = Vec::new();
        body.extend_from_slice(&196608i32.to_be_bytes());
        for (k, v) in [
            ("user", cfg.user.as_str()),
            ("database", "replication"),
            ("replication", "true"),
            ("application_name", cfg.application_name.as_str()),
        ] {
            put_cstr(&mut body, k);
            put_cstr(&mut body, v);
        }
        body.push(0);
        c.out
            .extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        c.out.extend_from_slice(&body);
        c.send()?;
        c.authenticate(cfg)?;
        Ok(c)
    }

    fn send(&mut self) -> Result<(), Failure> {
        repl_wire::send(&mut self.reader.stream, &mut self.out).map_err(Failure::io)
    }

    /// The next message, waiting at most REPLICATION_TIMEOUT_MS.
    fn recv(&mut self) -> Result<(u8, Vec<u8>), Failure> {
        let deadline = Instant::now() + Duration::from_millis(REPLICATION_TIMEOUT_MS);
        loop {
            if let Some(m) = self.reader.next().map_err(Failure::io)? {
                return Ok(m);
            }
            if (self.stop)() {
                return Err(Failure::new("the server is shutting down"));
            }
            if Instant::now() >= deadline {
                return Err(Failure::new("timed out waiting for the primary"));
            }
        }
    }

    fn server_error(body: &[u8]) -> Failure {
        let (_, code, message) = error_fields(body);
        Failure {
            code: Some(code),
            message,
        }
    }

    fn authenticate(&mut self, cfg: &Config) -> Result<(), Failure> {
        let mut scram: Option<scram::Client> = None;
        let mut verified = false;
        loop {
            let (tag, body) = self.recv()?;
            match tag {
                b'R' => {
                    let mut c = Cursor::new(&body);
                    match c.i32().map_err(Failure::io)? {
                        0 if scram.is_some() && !verified => {
                            return Err(Failure::new(
                                "the primary ended SCRAM authentication without proving it knows the password",
                            ))
                        }
                        0 => {}
                        3 => {
                            let pw = self.password(cfg)?;
                            let mut b = Vec::new();
                            put_cstr(&mut b, &pw);
                            put_msg(&mut self.out, b'p', &b);
                            self.send()?;
                        }
                        10 => {
                            let client = scram::Client::new(&self.password(cfg)?);
                            let first = client.first();
                            let mut b = Vec::new();
                            put_cstr(&mut b, scram::MECHANISM);
                            b.extend_from_slice(&(first.len() as i32).to_be_bytes());
                            b.extend_from_slice(first.as_bytes());
                            put_msg(&mut self.out, b'p', &b);
                            self.send()?;
                            scram = Some(client);
                        }
                        11 => {
                            let client = scram
                                .as_mut()
                                .ok_or_else(|| Failure::new("unexpected SASLContinue"))?;
                            let server_first = String::from_utf8_lossy(c.rest()).into_owned();
                            let last = client.last(&server_first).map_err(Failure::new)?;
                            put_msg(&mut self.out, b'p', last.as_bytes());
                            self.send()?;
                        }
                        12 => {
                            let client = scram
                                .as_ref()
                                .ok_or_else(|| Failure::new("unexpected SASLFinal"))?;
                            let server_final = String::from_utf8_lossy(c.rest()).into_owned();
                            client.verify(&server_final).map_err(Failure::new)?;
                            verified = true;
                        }
                        other => {
                            return Err(Failure::new(format!(
                                "the primary asked for authentication method {other}, which a Nestor replica does not speak"
                            )))
                        }
                    }
                }
                b'E' => return Err(Self::server_error(&body)),
                b'Z' => return Ok(()),
                _ => {} // ParameterStatus, BackendKeyData, notices
            }
        }
    }

    fn password(&self, cfg: &Config) -> Result<String, Failure> {
        cfg.password.clone().ok_or_else(|| Failure {
            code: Some("28P01".into()),
            message: "the primary asks for a password: set NESTOR_REPLICA_PASSWORD".into(),
        })
    }

    fn query(&mut self, text: &str) {
        let mut b = Vec::new();
        put_cstr(&mut b, text);
        put_msg(&mut self.out, b'Q', &b);
    }

    /// A command returning rows of text: the rows.
    fn rows(&mut self, text: &str) -> Result<Vec<Vec<Option<String>>>, Failure> {
        self.query(text);
        self.send()?;
        let mut rows = Vec::new();
        let mut failure = None;
        loop {
            let (tag, body) = self.recv()?;
            match tag {
                b'D' => rows.push(data_row(&body)?),
                b'E' => failure = Some(Self::server_error(&body)),
                b'Z' => break,
                _ => {}
            }
        }
        match failure {
            Some(f) => Err(f),
            None => Ok(rows),
        }
    }
}

fn data_row(body: &[u8]) -> Result<Vec<Option<String>>, Failure> {
    let mut c = Cursor::new(body);
    let n = c.i16().map_err(Failure::io)?;
    let mut out = Vec::new();
    for _ in 0..n {
        let len = c.i32().map_err(Failure::io)?;
        if len < 0 {
            out.push(None);
        } else {
            let b = c.rest();
            let len = (len as usize).min(b.len());
            out.push(Some(String::from_utf8_lossy(&b[..len]).into_owned()));
            c.b = &b[len..];
        }
    }
    Ok(out)
}

/// IDENTIFY_SYSTEM: (system id, timeline, durable end of the log).
fn identify(c: &mut Client) -> Result<(u64, u32, Lsn), Failure> {
    let rows = c.rows("IDENTIFY_SYSTEM")?;
    let row = rows
        .first()
        .ok_or_else(|| Failure::new("IDENTIFY_SYSTEM returned no row"))?;
    let get = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
    let bad = || Failure::new(format!("unexpected IDENTIFY_SYSTEM row {row:?}"));
    let system_id = get(0).parse().map_err(|_| bad())?;
    let timeline = get(1).parse().map_err(|_| bad())?;
    let pos = Lsn::parse_pg(&get(2)).ok_or_else(bad)?;
    Ok((system_id, timeline, pos))
}

/// Make `dir` a replica's data directory if it is not one yet: copy a base
/// image from the primary. Retries while the primary cannot be reached
/// (until `stopping`); gives up on authentication errors.
pub fn prepare_data_dir(dir: &Path, cfg: &Config, stopping: Stop) -> Result<(), String> {
    if dir.join(STANDBY_SIGNAL).exists() && dir.join("checkpoint").exists() {
        return Ok(());
    }
    let has_wal = std::fs::read_dir(dir.join("wal"))
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if !dir.join(STANDBY_SIGNAL).exists() && (dir.join("checkpoint").exists() || has_wal) {
        return Err(format!(
            "data directory \"{}\" holds a database that is not a replica's (no {STANDBY_SIGNAL}); start a replica in an empty directory",
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create \"{}\": {e}", dir.display()))?;
    loop {
        match base_copy(dir, cfg, stopping.clone()) {
            Ok(lsn) => {
                tracing::info!(
                    "copied a base image from {}:{}; streaming will start at {}",
                    cfg.host,
                    cfg.port,
                    lsn.pg_text()
                );
                return Ok(());
            }
            Err(f) if f.is_permanent() => {
                return Err(format!("cannot copy a base image from the primary: {f}"))
            }
            Err(f) => {
                tracing::warn!("cannot copy a base image from the primary yet: {f}; retrying");
                let until = Instant::now() + Duration::from_millis(REPLICA_RETRY_MS);
                while Instant::now() < until {
                    if stopping() {
                        return Err("stopped before the base image was copied".into());
                    }
                    std::thread::sleep(POLL);
                }
            }
        }
    }
}

/// One attempt at the base image. Crash-safe order: the image is copied
/// and synced under a temporary name, then `identity` and
/// `standby.signal` are written, and only then is the image renamed to
/// `checkpoint`; a directory with `standby.signal` and no `checkpoint`
/// (a crash before the rename) copies again.
fn base_copy(dir: &Path, cfg: &Config, stop: Stop) -> Result<Lsn, Failure> {
    let (system_id, timeline, start) = fetch_image(dir, cfg, "checkpoint.base", stop.clone())?;
    // A primary past timeline 1 has a history; the replica takes it on.
    let history = if timeline > 1 {
        timeline_history(dir, cfg, timeline, stop)?
    } else {
        Vec::new()
    };
    Identity {
        system_id,
        timeline,
        history,
    }
    .save(dir)
    .map_err(|e| Failure::new(e.into_message()))?;
    std::fs::write(dir.join(STANDBY_SIGNAL), b"").map_err(Failure::io)?;
    sync_dir(dir)?;
    std::fs::rename(dir.join("checkpoint.base"), dir.join("checkpoint")).map_err(Failure::io)?;
    sync_dir(dir)?;
    Ok(start)
}

/// The primary's timeline history up to `timeline` (TIMELINE_HISTORY).
fn timeline_history(
    _dir: &Path,
    cfg: &Config,
    timeline: u32,
    stop: Stop,
) -> Result<Vec<(u32, Lsn)>, Failure> {
    let mut c = Client::connect(cfg, stop)?;
    history_of(&mut c, timeline)
}

fn history_of(c: &mut Client, timeline: u32) -> Result<Vec<(u32, Lsn)>, Failure> {
    let rows = c.rows(&format!("TIMELINE_HISTORY {timeline}"))?;
    let content = rows
        .first()
        .and_then(|r| r.get(1).cloned().flatten())
        .ok_or_else(|| Failure::new("TIMELINE_HISTORY returned no content"))?;
    Identity::parse_history_file(&content)
        .ok_or_else(|| Failure::new(format!("unreadable timeline history {content:?}")))
}

fn sync_dir(dir: &Path) -> Result<(), Failure> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Failure::io)
}

/// Copy a base image from the primary into `dir/name` (through
/// `name.tmp`, synced before the rename). Returns the primary's system
/// identifier and timeline and where streaming continues.
fn fetch_image(
    dir: &Path,
    cfg: &Config,
    name: &str,
    stop: Stop,
) -> Result<(u64, u32, Lsn), Failure> {
    use std::io::Write;
    let mut c = Client::connect(cfg, stop)?;
    let (system_id, timeline, _) = identify(&mut c)?;
    c.query("NESTOR_BASE_BACKUP");
    c.send()?;
    let tmp = dir.join(format!("{name}.tmp"));
    let file = std::fs::File::create(&tmp).map_err(Failure::io)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut start = None;
    let mut failure = None;
    loop {
        let (tag, body) = c.recv()?;
        match tag {
            b'd' => w.write_all(&body).map_err(Failure::io)?,
            b'D' => {
                let row = data_row(&body)?;
                start = row
                    .first()
                    .cloned()
                    .flatten()
                    .and_then(|t| Lsn::parse_pg(&t));
            }
            b'E' => failure = Some(Client::server_error(&body)),
            b'Z' => break,
            _ => {} // CopyOutResponse, CopyDone, RowDescription, CommandComplete
        }
    }
    if let Some(f) = failure {
        let _ = std::fs::remove_file(&tmp);
        return Err(f);
    }
    let start = start.ok_or_else(|| Failure::new("base image without a start position"))?;
    let file = w.into_inner().map_err(|e| Failure::io(e.error()))?;
    file.sync_all().map_err(Failure::io)?;
    std::fs::rename(&tmp, dir.join(name)).map_err(Failure::io)?;
    Ok((system_id, timeline, start))
}

/// The primary no longer has the WAL this replica needs: copy a new base
/// image and make the replica's state equal to it in place
/// (durable::replica::resync); readers go on meanwhile.
fn recopy(engine: &Engine, cfg: &Config, stop: Stop) -> Result<Lsn, Failure> {
    let dir = &engine.config.data_dir;
    let (system_id, timeline, _) = fetch_image(dir, cfg, "checkpoint.new", stop.clone())?;
    if system_id != engine.system_id() {
        let _ = std::fs::remove_file(dir.join("checkpoint.new"));
        return Err(Failure::new("the new base image comes from another system"));
    }
    // An image from a newer timeline comes with its history (as a first
    // copy does), or the next START_REPLICATION would be refused.
    let history = if timeline > engine.timeline() {
        Some(timeline_history(dir, cfg, timeline, stop)?)
    } else {
        None
    };
    let lsn = nestor_durable::replica::resync(engine, &dir.join("checkpoint.new"))
        .map_err(|e| Failure::new(e.into_message()))?;
    if let Some(h) = history {
        engine
            .adopt_timeline(timeline, h)
            .map_err(|e| Failure::new(e.into_message()))?;
    }
    Ok(lsn)
}

/// How a streaming session ended without an error.
enum End {
    Stop,
    Promote,
}

/// Start the walreceiver thread of a replica engine. It streams until
/// the server stops (`stopping`) or the replica is promoted.
pub fn start(
    engine: Arc<Engine>,
    cfg: Config,
    stopping: Stop,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("walreceiver".into())
        .spawn(move || {
            let repl = engine.replication.clone();
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                receive(engine, cfg, stopping)
            }));
            if run.is_err() {
                // The panic hook printed it. Replay has stopped: say so
                // where operators look, and keep serving reads.
                tracing::error!("the walreceiver failed; this replica no longer replays");
                repl.update_receiver(|r| {
                    r.status = "stopped";
                    r.last_error = Some("the walreceiver failed (see the server log)".into());
                });
            }
        })
}

fn promote_asked(engine: &Engine) -> bool {
    engine.replication.promotion_requested() || engine.config.data_dir.join(PROMOTE_SIGNAL).exists()
}

fn receive(engine: Arc<Engine>, cfg: Config, stop: Stop) {
    let stopping = &*stop;
    let repl = engine.replication.clone();
    let mut applier = match Applier::new(engine.clone()) {
        Ok(a) => a,
        Err(e) => {
            tracing::error!("walreceiver cannot start: {}", e.message);
            return;
        }
    };
    repl.update_receiver(|r| {
        r.pid = std::process::id();
        r.status = "starting";
        r.sender_host = cfg.host.clone();
        r.sender_port = i32::from(cfg.port);
        r.conninfo = cfg.conninfo();
    });
    let end = loop {
        if stopping() {
            break End::Stop;
        }
        if promote_asked(&engine) {
            break End::Promote;
        }
        match stream(&engine, &mut applier, &cfg, stop.clone()) {
            Ok(end) => break end,
            Err(f) if f.code.as_deref() == Some("58P01") => {
                tracing::warn!(
                    "the primary no longer has the WAL this replica needs ({f}); copying a new base image"
                );
                repl.update_receiver(|r| {
                    r.status = "restarting";
                    r.last_error = Some(f.to_string());
                });
                drop(applier);
                match recopy(&engine, &cfg, stop.clone()) {
                    Ok(lsn) => tracing::info!(
                        "replica state replaced by a new base image; streaming resumes at {}",
                        lsn.pg_text()
                    ),
                    Err(e) => {
                        tracing::warn!("cannot copy a new base image yet: {e}");
                        let until = Instant::now() + Duration::from_millis(REPLICA_RETRY_MS);
                        while Instant::now() < until && !stopping() {
                            std::thread::sleep(POLL);
                        }
                    }
                }
                applier = match Applier::new(engine.clone()) {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::error!("walreceiver cannot go on: {}", e.message);
                        return;
                    }
                };
            }
            Err(f) if applier.broken().is_some() => {
                // A flushed commit could not be applied: going on would
                // skip it. Replay stops here; reads go on.
                tracing::error!(
                    "replay stopped: {f}; this replica keeps serving what it has applied and must be re-created"
                );
                repl.update_receiver(|r| {
                    r.status = "stopped";
                    r.last_error = Some(f.to_string());
                });
                return;
            }
            Err(f) => {
                // What was flushed is applied; the rest will come again.
                applier.forget_unflushed();
                tracing::warn!(
                    "replication from {}:{} interrupted: {f}; reconnecting",
                    cfg.host,
                    cfg.port
                );
                repl.update_receiver(|r| {
                    r.status = "waiting";
                    r.last_error = Some(f.to_string());
                });
                let until = Instant::now() + Duration::from_millis(REPLICA_RETRY_MS);
                while Instant::now() < until && !stopping() && !promote_asked(&engine) {
                    std::thread::sleep(POLL);
                }
            }
        }
    };
    if let End::Promote = end {
        applier.forget_unflushed();
        let _ = std::fs::remove_file(engine.config.data_dir.join(PROMOTE_SIGNAL));
        drop(applier);
        repl.clear_receiver();
        if let Err(e) = engine.promote() {
            tracing::error!("promotion failed: {}", e.message);
        }
    }
}

/// One connection's worth of streaming.
fn stream(
    engine: &Engine,
    applier: &mut Applier,
    cfg: &Config,
    stop: Stop,
) -> Result<End, Failure> {
    let repl = &engine.replication;
    let stopping = stop.clone();
    let mut c = Client::connect(cfg, stop)?;
    let (system_id, timeline, _) = identify(&mut c)?;
    if system_id != engine.system_id() {
        return Err(Failure {
            code: Some("XX000".into()),
            message: format!(
                "database system identifier differs between the primary and standby: the primary's identifier is {system_id}, the standby's identifier is {}",
                engine.system_id()
            ),
        });
    }
    let ours = engine.timeline();
    if timeline < ours {
        return Err(Failure::new(format!(
            "the primary is on timeline {timeline}, behind this replica's timeline {ours}: it is an old primary; point the replica at the promoted one"
        )));
    }
    // A primary on a newer timeline: its history first (the check that
    // this replica's log is a prefix of it is the primary's, at
    // START_REPLICATION).
    let history = if timeline > ours {
        Some(history_of(&mut c, timeline)?)
    } else {
        None
    };
    let start = applier.end_lsn();
    c.query(&format!(
        "START_REPLICATION PHYSICAL {} TIMELINE {ours}",
        start.pg_text()
    ));
    c.send()?;
    loop {
        let (tag, body) = c.recv()?;
        match tag {
            b'W' => break,
            b'E' => return Err(Client::server_error(&body)),
            _ => {}
        }
    }
    if let Some(history) = history {
        engine
            .adopt_timeline(timeline, history)
            .map_err(|e| Failure::new(e.into_message()))?;
    }
    tracing::info!(
        "started streaming WAL from the primary at {} on timeline {timeline}",
        start.pg_text()
    );
    repl.update_receiver(|r| {
        r.status = "streaming";
        r.receive_start_lsn = start;
        r.received_tli = timeline as i32;
        r.last_error = None;
    });
    let mut last_status = Instant::now();
    let mut heard = Instant::now();
    let mut reported = Lsn(0);
    let mut last_promote_check = Instant::now();
    loop {
        if stopping() {
            return Ok(End::Stop);
        }
        // The promote signal file is looked at every POLL, not per message.
        if last_promote_check.elapsed() >= POLL {
            last_promote_check = Instant::now();
            if promote_asked(engine) {
                applier
                    .flush()
                    .map_err(|e| Failure::new(e.into_message()))?;
                return Ok(End::Promote);
            }
        }
        let msg = c.reader.next().map_err(Failure::io)?;
        if let Some((tag, body)) = msg {
            heard = Instant::now();
            match tag {
                b'd' => {
                    let mut m = Cursor::new(&body);
                    match m.u8().map_err(Failure::io)? {
                        b'w' => {
                            let at = Lsn(m.u64().map_err(Failure::io)?);
                            let wal_end = Lsn(m.u64().map_err(Failure::io)?);
                            let sent = m.i64().map_err(Failure::io)?;
                            applier
                                .record(at, m.rest())
                                .map_err(|e| Failure::new(e.into_message()))?;
                            repl.update_receiver(|r| {
                                r.latest_end_lsn = wal_end;
                                r.latest_end_time_us = Some(sent);
                                r.last_msg_send_time_us = Some(sent);
                                r.last_msg_receipt_time_us = Some(now_us());
                                r.written_lsn = applier.end_lsn();
                            });
                        }
                        b'k' => {
                            let wal_end = Lsn(m.u64().map_err(Failure::io)?);
                            let sent = m.i64().map_err(Failure::io)?;
                            let reply = m.u8().map_err(Failure::io)? == 1;
                            repl.update_receiver(|r| {
                                r.latest_end_lsn = wal_end;
                                r.last_msg_send_time_us = Some(sent);
                                r.last_msg_receipt_time_us = Some(now_us());
                            });
                            if reply {
                                reported = Lsn(0);
                            }
                        }
                        b'R' => {
                            let xid = m.u64().map_err(Failure::io)?;
                            let total = m.u64().map_err(Failure::io)?;
                            let offset = m.u64().map_err(Failure::io)?;
                            applier
                                .redo_piece(Xid(xid), total, offset, m.rest())
                                .map_err(|e| Failure::new(e.into_message()))?;
                        }
                        other => {
                            return Err(Failure::new(format!(
                                "unexpected replication message type \"{}\"",
                                other as char
                            )))
                        }
                    }
                }
                b'E' => return Err(Client::server_error(&body)),
                b'c' => return Err(Failure::new("the primary ended streaming")),
                _ => {}
            }
        } else if heard.elapsed() > Duration::from_millis(REPLICATION_TIMEOUT_MS) {
            return Err(Failure::new(
                "terminating walreceiver due to timeout: nothing from the primary",
            ));
        }
        let burst_over = !c.reader.has_message();
        if applier.unflushed_bytes() > 0
            && (burst_over || applier.unflushed_bytes() >= UNFLUSHED_BYTES_MAX)
        {
            applier
                .flush()
                .map_err(|e| Failure::new(e.into_message()))?;
        }
        let pos = applier.end_lsn();
        let due = last_status.elapsed() >= Duration::from_millis(REPLICATION_STATUS_INTERVAL_MS);
        if applier.unflushed_bytes() == 0 && (pos != reported || due) {
            repl.update_receiver(|r| {
                r.written_lsn = pos;
                r.flushed_lsn = pos;
            });
            let mut b = vec![b'r'];
            for l in [pos, pos, pos] {
                b.extend_from_slice(&l.0.to_be_bytes());
            }
            b.extend_from_slice(&now_us().to_be_bytes());
            b.push(0);
            put_msg(&mut c.out, b'd', &b);
            c.send()?;
            reported = pos;
            last_status = Instant::now();
        }
    }
}
