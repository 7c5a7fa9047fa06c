//! The walsender: a replication connection on a primary (startup
//! parameter `replication=true` or `database`, superusers only), speaking
//! PostgreSQL's replication sub-protocol over the simple query protocol.
//!
//! Commands (docs/replication.md has the whole exchange):
//!
//! - `IDENTIFY_SYSTEM`: one row (systemid, timeline, xlogpos, dbname), as
//!   PostgreSQL sends it: the data directory's system identifier, the
//!   timeline (1 + promotions it has seen), the durable end of the log.
//! - `NESTOR_BASE_BACKUP`: a CopyOut stream of a checkpoint image taken at
//!   a cut (durable::replica::base_backup), then one row (start_lsn, csn):
//!   the replica streams from start_lsn. Nestor's own command: the image is
//!   Nestor's checkpoint format, not a tar of files, so PostgreSQL's
//!   `BASE_BACKUP` name would promise pg_basebackup something it is not.
//! - `TIMELINE_HISTORY n`: (filename, content) with the history of
//!   timelines up to n in PostgreSQL's history-file format.
//! - `START_REPLICATION [SLOT s] [PHYSICAL] X/Y [TIMELINE n]`:
//!   CopyBothResponse, then every WAL record from X/Y on as XLogData, one
//!   record per message, as soon as the record is durable here; keepalives
//!   while idle; the replica's status updates feed pg_stat_replication and
//!   what WAL is kept for it (`Replication::retain`).
//!
//! Two threads per streaming connection: this one sends (it waits on the
//! WAL's flush condition, so a commit is on its way to the replica as soon
//! as it is durable), a second one reads the replica's messages. Either
//! ending ends the connection. Server shutdown ends it after what is
//! durable has been sent.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nestor_common::limits::{REPLICATION_STATUS_INTERVAL_MS, REPLICATION_TIMEOUT_MS};
use nestor_common::{DbError, Lsn, SessionId, SqlState};
use nestor_durable::Engine;
use nestor_exec::replication::SenderStatus;
use nestor_wal::{LogReader, RecordKind};
use tokio::sync::watch;

use bytes::BytesMut;
use nestor_exec::tag::CommandTag;
use nestor_session::protocol::{BackendMsg, FieldDesc, TxnStatus};

use crate::codec;
use crate::repl_wire::{self, now_us, put_msg, Cursor, MsgReader, Peer};
use crate::stream::StdStream;

/// How often the sending loop looks at its flags while there is nothing
/// to send.
const POLL: Duration = Duration::from_millis(100);

/// Redo file bytes per 'R' message.
const REDO_PIECE_BYTES: usize = 1 << 20;

/// Base image bytes per CopyData message.
const COPY_PIECE_BYTES: usize = 256 * 1024;

/// Serve a replication connection whose startup (authentication,
/// ReadyForQuery) is done. Returns when the connection ends.
pub fn run(
    stream: StdStream,
    leftover: Vec<u8>,
    engine: Arc<Engine>,
    peer: Peer,
    shutdown: watch::Receiver<bool>,
) {
    let repl = engine.replication.clone();
    let status = SenderStatus {
        pid: peer.pid.0,
        usename: peer.user.clone(),
        application_name: peer.application_name.clone(),
        client_addr: peer.client_addr.clone(),
        backend_start_us: now_us(),
        state: "startup",
        sync_state: "async",
        ..Default::default()
    };
    let mut out = Vec::new();
    if !repl.add_sender(status, engine.config.wal_senders_max) {
        let e = DbError::new(
            SqlState::TooManyConnections,
            format!(
                "number of requested standby connections exceeds max_wal_senders (currently {})",
                engine.config.wal_senders_max
            ),
        )
        .with_severity(nestor_common::error::Severity::Fatal);
        put_error(&mut out, &e);
        let mut s = stream;
        let _ = repl_wire::send(&mut s, &mut out);
        return;
    }
    let mut ws = WalSender {
        engine: engine.clone(),
        peer,
        shutdown,
        out,
    };
    if let Err(e) = ws.serve(stream, leftover) {
        tracing::debug!("walsender {} ended: {e}", ws.peer.pid.0);
    }
    repl.remove_sender(ws.peer.pid);
}

struct WalSender {
    engine: Arc<Engine>,
    peer: Peer,
    shutdown: watch::Receiver<bool>,
    out: Vec<u8>,
}

/// Encode a message with the codec every connection uses (codec.rs), so
/// replication answers carry the same fields (an error's DETAIL and HINT,
/// ...) as any other.
fn put(out: &mut Vec<u8>, m: &BackendMsg) {
    let mut buf = BytesMut::new();
    if let Err(e) = codec::encode(&mut buf, m) {
        // Too large to encode: say so instead (that one always fits).
        let _ = codec::encode(&mut buf, &BackendMsg::Error(e));
    }
    out.extend_from_slice(&buf);
}

fn put_error(out: &mut Vec<u8>, e: &DbError) {
    put(out, &BackendMsg::Error(e.clone()));
}

fn put_ready(out: &mut Vec<u8>) {
    put(out, &BackendMsg::ReadyForQuery(TxnStatus::Idle));
}

/// RowDescription of text (25) or int4 (23) columns, text format.
fn put_row_description(out: &mut Vec<u8>, cols: &[(&str, u32)]) {
    let fields = cols
        .iter()
        .map(|&(name, oid)| FieldDesc {
            name: name.to_string(),
            table_oid: 0,
            column_id: 0,
            type_oid: oid,
            type_size: if oid == 23 { 4 } else { -1 },
            type_modifier: -1,
            format: 0,
        })
        .collect();
    put(out, &BackendMsg::RowDescription(fields));
}

fn put_data_row(out: &mut Vec<u8>, vals: &[Option<String>]) {
    let values = vals
        .iter()
        .map(|v| v.as_ref().map(|s| s.as_bytes().to_vec()))
        .collect();
    put(out, &BackendMsg::DataRow(values));
}

fn put_complete(out: &mut Vec<u8>, tag: &'static str) {
    put(out, &BackendMsg::CommandComplete(CommandTag::Plain(tag)));
}

/// A parsed replication command.
enum Command {
    IdentifySystem,
    TimelineHistory(u32),
    BaseBackup,
    StartReplication { start: Lsn, timeline: Option<u32> },
}

fn syntax_error(text: &str) -> DbError {
    DbError::new(
        SqlState::SyntaxError,
        format!("syntax error in replication command \"{}\"", text.trim()),
    )
}

/// Parse a replication command (keywords case-insensitive, as PostgreSQL's
/// repl_gram.y). Anything else is refused: Nestor runs no SQL on a
/// replication connection.
fn parse(text: &str) -> Result<Command, DbError> {
    let trimmed = text.trim().trim_end_matches(';').trim();
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let upper: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
    match upper.first().map(String::as_str) {
        Some("IDENTIFY_SYSTEM") if words.len() == 1 => Ok(Command::IdentifySystem),
        Some("NESTOR_BASE_BACKUP") if words.len() == 1 => Ok(Command::BaseBackup),
        Some("TIMELINE_HISTORY") if words.len() == 2 => words[1]
            .parse()
            .map(Command::TimelineHistory)
            .map_err(|_| syntax_error(text)),
        Some("START_REPLICATION") => {
            let mut i = 1;
            if upper.get(i).map(String::as_str) == Some("SLOT") {
                i += 2; // slots are accepted by name and not kept (see docs)
            }
            if upper.get(i).map(String::as_str) == Some("LOGICAL") {
                return Err(DbError::unsupported("logical replication"));
            }
            if upper.get(i).map(String::as_str) == Some("PHYSICAL") {
                i += 1;
            }
            let start = words
                .get(i)
                .and_then(|w| Lsn::parse_pg(w))
                .ok_or_else(|| syntax_error(text))?;
            i += 1;
            let timeline = match upper.get(i).map(String::as_str) {
                None => None,
                Some("TIMELINE") => Some(
                    words
                        .get(i + 1)
                        .and_then(|w| w.parse::<u32>().ok())
                        .ok_or_else(|| syntax_error(text))?,
                ),
                Some(_) => return Err(syntax_error(text)),
            };
            if words.len() > i + 2 {
                return Err(syntax_error(text));
            }
            Ok(Command::StartReplication { start, timeline })
        }
        Some(
            "BASE_BACKUP"
            | "CREATE_REPLICATION_SLOT"
            | "DROP_REPLICATION_SLOT"
            | "READ_REPLICATION_SLOT"
            | "SHOW",
        ) => Err(DbError::unsupported(format!(
            "replication command {}",
            upper[0]
        ))),
        _ => Err(DbError::new(
            SqlState::FeatureNotSupported,
            "only replication commands are supported on a replication connection",
        )
        .with_hint("Nestor's replication connections run IDENTIFY_SYSTEM, NESTOR_BASE_BACKUP and START_REPLICATION.")),
    }
}

/// An io::Write that frames what it is given as CopyData messages.
struct CopyOut<'a> {
    stream: &'a mut StdStream,
    buf: Vec<u8>,
}

impl io::Write for CopyOut<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        // At most COPY_PIECE_BYTES per CopyData whatever a write holds (a
        // row can be larger than a replica accepts in one message).
        let take = data.len().min(COPY_PIECE_BYTES - self.buf.len());
        self.buf.extend_from_slice(&data[..take]);
        if self.buf.len() >= COPY_PIECE_BYTES {
            self.flush()?;
        }
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut framed = Vec::with_capacity(self.buf.len() + 5);
        put_msg(&mut framed, b'd', &self.buf);
        self.buf.clear();
        self.stream.write_all_retry(&framed)
    }
}

/// Blocking write of a whole buffer (the socket has a write timeout).
trait WriteAll {
    fn write_all_retry(&mut self, b: &[u8]) -> io::Result<()>;
}

impl WriteAll for StdStream {
    fn write_all_retry(&mut self, b: &[u8]) -> io::Result<()> {
        io::Write::write_all(self, b)
    }
}

impl WalSender {
    fn stopping(&self) -> bool {
        *self.shutdown.borrow()
    }

    fn serve(&mut self, mut stream: StdStream, leftover: Vec<u8>) -> io::Result<()> {
        stream.set_write_timeout(Some(Duration::from_millis(REPLICATION_TIMEOUT_MS)))?;
        let mut reader = MsgReader::new(stream.try_clone()?, leftover, POLL)?;
        let mut heard = Instant::now();
        loop {
            if heard.elapsed() > Duration::from_millis(REPLICATION_TIMEOUT_MS) {
                // An idle replication connection must not keep its
                // walsender slot (max_wal_senders) forever.
                tracing::info!("terminating idle walsender {}", self.peer.pid.0);
                return Ok(());
            }
            if self.stopping() {
                let e = DbError::new(
                    SqlState::AdminShutdown,
                    "terminating connection due to administrator command",
                )
                .with_severity(nestor_common::error::Severity::Fatal);
                put_error(&mut self.out, &e);
                return repl_wire::send(&mut stream, &mut self.out);
            }
            let Some((tag, body)) = reader.next()? else {
                continue;
            };
            heard = Instant::now();
            match tag {
                b'Q' => {
                    let text = Cursor::new(&body).cstr()?;
                    if text.trim().trim_matches(';').trim().is_empty() {
                        put(&mut self.out, &BackendMsg::EmptyQueryResponse);
                        put_ready(&mut self.out);
                        repl_wire::send(&mut stream, &mut self.out)?;
                        continue;
                    }
                    match parse(&text) {
                        Ok(Command::IdentifySystem) => self.identify_system(),
                        Ok(Command::TimelineHistory(tl)) => self.timeline_history(tl),
                        Ok(Command::BaseBackup) => {
                            repl_wire::send(&mut stream, &mut self.out)?;
                            self.base_backup(&mut stream)?;
                        }
                        Ok(Command::StartReplication { start, timeline }) => {
                            match self.check_start(start, timeline) {
                                Ok(()) => {
                                    return self.stream_wal(stream, reader, start);
                                }
                                Err(e) => {
                                    put_error(&mut self.out, &e);
                                    put_ready(&mut self.out);
                                }
                            }
                        }
                        Err(e) => {
                            put_error(&mut self.out, &e);
                            put_ready(&mut self.out);
                        }
                    }
                    repl_wire::send(&mut stream, &mut self.out)?;
                }
                b'X' => return Ok(()),
                // Sync ends an (unsupported) extended-protocol exchange
                // with ReadyForQuery; Flush only flushes.
                b'S' => {
                    put_ready(&mut self.out);
                    repl_wire::send(&mut stream, &mut self.out)?;
                }
                b'H' => repl_wire::send(&mut stream, &mut self.out)?,
                other => {
                    let e = DbError::new(
                        SqlState::ProtocolViolation,
                        format!(
                            "invalid message type {} on a replication connection",
                            other as char
                        ),
                    )
                    .with_severity(nestor_common::error::Severity::Fatal);
                    put_error(&mut self.out, &e);
                    return repl_wire::send(&mut stream, &mut self.out);
                }
            }
        }
    }

    fn identify_system(&mut self) {
        let e = &self.engine;
        let pos = e.db.log.wal().map_or(Lsn(0), |w| w.durable_lsn());
        put_row_description(
            &mut self.out,
            &[
                ("systemid", 25),
                ("timeline", 23),
                ("xlogpos", 25),
                ("dbname", 25),
            ],
        );
        put_data_row(
            &mut self.out,
            &[
                Some(e.system_id().to_string()),
                Some(e.timeline().to_string()),
                Some(pos.pg_text()),
                None,
            ],
        );
        put_complete(&mut self.out, "IDENTIFY_SYSTEM");
        put_ready(&mut self.out);
    }

    /// TIMELINE_HISTORY tl: PostgreSQL's (filename, content) row, the
    /// content in its history-file format (timelines up to `tl`).
    fn timeline_history(&mut self, tl: u32) {
        let id = self.engine.identity();
        if tl < 2 || tl > id.timeline {
            put_error(
                &mut self.out,
                &DbError::new(
                    SqlState::UndefinedFile,
                    format!("could not open file \"pg_wal/{tl:08X}.history\": No such file or directory"),
                ),
            );
            put_ready(&mut self.out);
            return;
        }
        let upto = nestor_durable::Identity {
            history: id.history.iter().copied().filter(|h| h.0 <= tl).collect(),
            ..id
        };
        put_row_description(&mut self.out, &[("filename", 25), ("content", 25)]);
        put_data_row(
            &mut self.out,
            &[Some(format!("{tl:08X}.history")), Some(upto.history_file())],
        );
        put_complete(&mut self.out, "TIMELINE_HISTORY");
        put_ready(&mut self.out);
    }

    fn base_backup(&mut self, stream: &mut StdStream) -> io::Result<()> {
        self.engine
            .replication
            .update_sender(self.peer.pid, |s| s.state = "backup");
        // CopyOutResponse: binary, no columns.
        let mut head = Vec::new();
        put(
            &mut head,
            &BackendMsg::CopyOutResponse {
                format: 1,
                column_formats: Vec::new(),
            },
        );
        stream.write_all_retry(&head)?;
        let name = self.peer.application_name.clone();
        let repl = self.engine.replication.clone();
        let mut copy = CopyOut {
            stream,
            buf: Vec::new(),
        };
        let result = nestor_durable::replica::base_backup(&self.engine, &mut copy, |lsn| {
            repl.retain(&name, lsn)
        });
        io::Write::flush(&mut copy)?;
        match result {
            Ok((csn, lsn)) => {
                put(&mut self.out, &BackendMsg::CopyDone);
                put_row_description(&mut self.out, &[("start_lsn", 25), ("csn", 25)]);
                put_data_row(
                    &mut self.out,
                    &[Some(lsn.pg_text()), Some(csn.0.to_string())],
                );
                put_complete(&mut self.out, "NESTOR_BASE_BACKUP");
            }
            Err(e) => put_error(&mut self.out, &e),
        }
        put_ready(&mut self.out);
        repl_wire::send(stream, &mut self.out)
    }

    fn check_start(&self, start: Lsn, timeline: Option<u32>) -> Result<(), DbError> {
        let e = &self.engine;
        if e.replication.in_recovery() {
            return Err(DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                "cannot stream WAL from a replica",
            )
            .with_hint("Point the replica at the primary (cascading replication is not built)."));
        }
        if let Some(tl) = timeline {
            if tl > e.timeline() {
                return Err(DbError::new(
                    SqlState::UndefinedObject,
                    format!("requested timeline {tl} is not in this server's history"),
                ));
            }
        }
        let Some(wal) = e.db.log.wal() else {
            return Err(DbError::internal("no WAL"));
        };
        let end = wal.durable_lsn();
        if start > end {
            return Err(DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                format!(
                    "requested starting point {} is ahead of the WAL flush position of this server {}",
                    start.pg_text(),
                    end.pg_text()
                ),
            ));
        }
        // A replica on an older timeline has our log only up to where
        // the next timeline began here; past that its log is another
        // history (it followed an old primary further).
        if let Some(tl) = timeline.filter(|&t| t < e.timeline()) {
            if let Some(began) = e.identity().began(tl + 1) {
                if start > began {
                    return Err(DbError::new(
                        SqlState::ObjectNotInPrerequisiteState,
                        format!(
                            "requested starting point {} on timeline {tl} is not in this server's history",
                            start.pg_text()
                        ),
                    )
                    .with_detail(format!(
                        "This server's history forked off timeline {tl} at {}.",
                        began.pg_text()
                    )));
                }
            }
        }
        Ok(())
    }

    /// CopyBoth: send records from `start` as they become durable until
    /// the replica goes away, the server shuts down, or the log's segment
    /// a reader needs is gone.
    fn stream_wal(
        &mut self,
        mut stream: StdStream,
        reader: MsgReader,
        start: Lsn,
    ) -> io::Result<()> {
        let engine = self.engine.clone();
        let repl = engine.replication.clone();
        let pid = self.peer.pid;
        let name = self.peer.application_name.clone();
        let wal = engine
            .db
            .log
            .wal()
            .ok_or_else(|| io::Error::other("no WAL"))?;
        let dir = engine.config.data_dir.join("wal");
        let mut log = match LogReader::new(&dir, start) {
            Ok(r) => r,
            Err(e) => {
                // Only a removed segment is 58P01 (a replica then copies a
                // new base image); anything else is an I/O error.
                let code = match e {
                    nestor_wal::WalError::Removed { .. } => SqlState::UndefinedFile,
                    _ => SqlState::IoError,
                };
                let err = DbError::new(code, e.to_string());
                put_error(&mut self.out, &err);
                put_ready(&mut self.out);
                return repl_wire::send(&mut stream, &mut self.out);
            }
        };
        repl.retain(&name, start);
        put_msg(&mut self.out, b'W', &[0, 0, 0]);
        repl_wire::send(&mut stream, &mut self.out)?;
        repl.update_sender(pid, |s| {
            s.state = "catchup";
            s.sent_lsn = start;
        });
        // The replica's side, on its own thread.
        let done = Arc::new(AtomicBool::new(false));
        let heard_us = Arc::new(AtomicI64::new(now_us()));
        let lags = Arc::new(parking_lot::Mutex::new(LagTracker::default()));
        let listener = {
            let (done, heard_us, lags, repl) =
                (done.clone(), heard_us.clone(), lags.clone(), repl.clone());
            let name = name.clone();
            std::thread::Builder::new()
                .name("walsender-reply".into())
                .spawn(move || {
                    let r = listen(reader, pid, &name, &repl, &heard_us, &lags, &done);
                    done.store(true, Ordering::SeqCst);
                    match r {
                        Ok(copy_done) => copy_done,
                        Err(e) => {
                            tracing::debug!("walsender {} replica side ended: {e}", pid.0);
                            false
                        }
                    }
                })?
        };
        let result = self.send_loop(&mut stream, &wal, &mut log, &done, &heard_us, &lags);
        done.store(true, Ordering::SeqCst);
        if listener.join().unwrap_or(false) {
            // The client ended the stream with CopyDone: answer as
            // PostgreSQL does (CopyDone, CommandComplete, ReadyForQuery),
            // then close (Nestor runs no further commands on it).
            put(&mut self.out, &BackendMsg::CopyDone);
            put_complete(&mut self.out, "START_REPLICATION");
            put_ready(&mut self.out);
            let _ = repl_wire::send(&mut stream, &mut self.out);
        }
        let _ = stream.shutdown(std::net::Shutdown::Both);
        result
    }

    fn send_loop(
        &mut self,
        stream: &mut StdStream,
        wal: &nestor_wal::Wal,
        log: &mut LogReader,
        done: &AtomicBool,
        heard_us: &AtomicI64,
        lags: &parking_lot::Mutex<LagTracker>,
    ) -> io::Result<()> {
        let repl = self.engine.replication.clone();
        let pid = self.peer.pid;
        let status_every = Duration::from_millis(REPLICATION_STATUS_INTERVAL_MS);
        let mut last_sent = Instant::now();
        let mut caught_up = false;
        loop {
            if done.load(Ordering::SeqCst) {
                return Ok(());
            }
            let stopping = self.stopping();
            let end = wal.durable_lsn();
            let mut sent_any = false;
            while let Some((rec, bytes)) = log.next(end).map_err(io::Error::other)? {
                if rec.kind == RecordKind::TxnFile {
                    self.send_redo_file(stream, log, &rec)?;
                }
                let mut body = Vec::with_capacity(bytes.len() + 25);
                body.push(b'w');
                body.extend_from_slice(&rec.lsn.0.to_be_bytes());
                body.extend_from_slice(&end.0.to_be_bytes());
                body.extend_from_slice(&now_us().to_be_bytes());
                body.extend_from_slice(&bytes);
                put_msg(&mut self.out, b'd', &body);
                sent_any = true;
                if self.out.len() >= 1 << 20 {
                    repl_wire::send(stream, &mut self.out)?;
                }
            }
            if sent_any {
                repl_wire::send(stream, &mut self.out)?;
                last_sent = Instant::now();
                let pos = log.position();
                lags.lock().sent(pos);
                repl.update_sender(pid, |s| {
                    s.sent_lsn = pos;
                    if !caught_up {
                        s.state = "catchup";
                    }
                });
            } else if !caught_up {
                caught_up = true;
                repl.update_sender(pid, |s| s.state = "streaming");
            }
            if stopping {
                // Everything durable has been sent: PostgreSQL's walsender
                // also sends up to the shutdown checkpoint, then ends.
                return Ok(());
            }
            if last_sent.elapsed() >= status_every {
                let mut body = vec![b'k'];
                body.extend_from_slice(&end.0.to_be_bytes());
                body.extend_from_slice(&now_us().to_be_bytes());
                body.push(0);
                put_msg(&mut self.out, b'd', &body);
                repl_wire::send(stream, &mut self.out)?;
                last_sent = Instant::now();
            }
            let silent_us = now_us() - heard_us.load(Ordering::SeqCst);
            if silent_us > REPLICATION_TIMEOUT_MS as i64 * 1000 {
                tracing::info!("terminating walsender {} due to replication timeout", pid.0);
                return Ok(());
            }
            if !sent_any {
                wal.wait_durable_beyond(log.position(), Instant::now() + POLL);
            }
        }
    }

    /// The redo file of a `TxnFile` record, read and sent in pieces before
    /// the record (never whole in memory), checked against the record's
    /// length and checksum as it goes.
    fn send_redo_file(
        &mut self,
        stream: &mut StdStream,
        log: &LogReader,
        rec: &nestor_wal::Record,
    ) -> io::Result<()> {
        let mut file = log.redo_file(rec).map_err(io::Error::other)?;
        let total = file.len();
        let mut offset = 0u64;
        let mut piece = vec![0u8; REDO_PIECE_BYTES];
        loop {
            let n = file.next_piece(&mut piece).map_err(io::Error::other)?;
            if n == 0 && offset > 0 {
                break;
            }
            let mut body = Vec::with_capacity(n + 25);
            body.push(b'R');
            body.extend_from_slice(&rec.xid.to_be_bytes());
            body.extend_from_slice(&total.to_be_bytes());
            body.extend_from_slice(&offset.to_be_bytes());
            body.extend_from_slice(&piece[..n]);
            put_msg(&mut self.out, b'd', &body);
            repl_wire::send(stream, &mut self.out)?;
            offset += n as u64;
            if n == 0 {
                break;
            }
        }
        Ok(())
    }
}

/// When each sent position left, to turn the replica's reports into
/// write/flush/replay lag (PostgreSQL's LagTracker, simplified: one
/// sample per send). Each level uses a sample once: a report that
/// confirms nothing new keeps the last lag, and once the replica has
/// confirmed everything sent twice in a row the lag is cleared (NULL), as
/// PostgreSQL does for an idle, caught-up standby.
#[derive(Default)]
struct LagTracker {
    samples: std::collections::VecDeque<(Lsn, i64)>,
    /// Per level (write, flush, apply): the newest sample already used.
    used: [Lsn; 3],
    last_sent: Lsn,
    idle_reports: u32,
}

/// A report's effect on one level's lag.
#[derive(Debug, PartialEq, Eq)]
enum Lag {
    /// A new measurement (microseconds).
    Measured(i64),
    /// Nothing new: keep the last one.
    Keep,
    /// Idle and caught up: no lag to show.
    Clear,
}

impl LagTracker {
    const SAMPLES_MAX: usize = 8192;

    fn sent(&mut self, lsn: Lsn) {
        if self.samples.len() == Self::SAMPLES_MAX {
            self.samples.pop_front();
        }
        self.samples.push_back((lsn, now_us()));
        self.last_sent = lsn;
    }

    /// The replica reports `[write, flush, apply]`: each level's lag.
    fn report(&mut self, reached: [Lsn; 3]) -> [Lag; 3] {
        let now = now_us();
        let mut out = [Lag::Keep, Lag::Keep, Lag::Keep];
        let mut measured = false;
        for (level, at) in reached.iter().enumerate() {
            let newest = self
                .samples
                .iter()
                .rev()
                .find(|(l, _)| *l <= *at && *l > self.used[level]);
            if let Some(&(l, t)) = newest {
                self.used[level] = l;
                out[level] = Lag::Measured(now - t);
                measured = true;
            }
        }
        let floor = self.used.iter().copied().min().unwrap_or(Lsn(0));
        while self.samples.front().is_some_and(|(l, _)| *l <= floor) {
            self.samples.pop_front();
        }
        let caught_up = reached.iter().all(|l| *l >= self.last_sent);
        if measured || !caught_up {
            self.idle_reports = 0;
        } else {
            self.idle_reports += 1;
            if self.idle_reports >= 2 {
                out = [Lag::Clear, Lag::Clear, Lag::Clear];
            }
        }
        out
    }
}

fn apply_lag(lag: Lag, slot: &mut Option<i64>) {
    match lag {
        Lag::Measured(us) => *slot = Some(us),
        Lag::Keep => {}
        Lag::Clear => *slot = None,
    }
}

/// The replica's side of a streaming connection: status updates (and
/// hot-standby feedback, which Nestor does not need: a replica keeps what
/// its own readers need), CopyDone or Terminate to end.
fn listen(
    mut reader: MsgReader,
    pid: SessionId,
    name: &str,
    repl: &nestor_exec::replication::Replication,
    heard_us: &AtomicI64,
    lags: &parking_lot::Mutex<LagTracker>,
    done: &AtomicBool,
) -> io::Result<bool> {
    while !done.load(Ordering::SeqCst) {
        let Some((tag, body)) = reader.next()? else {
            continue;
        };
        heard_us.store(now_us(), Ordering::SeqCst);
        match tag {
            b'd' => {
                let mut c = Cursor::new(&body);
                match c.u8()? {
                    b'r' => {
                        let (write, flush, apply) = (Lsn(c.u64()?), Lsn(c.u64()?), Lsn(c.u64()?));
                        let _client_time = c.i64()?;
                        let [wl, fl, al] = lags.lock().report([write, flush, apply]);
                        repl.retain(name, flush);
                        repl.update_sender(pid, |s| {
                            s.write_lsn = write;
                            s.flush_lsn = flush;
                            s.replay_lsn = apply;
                            apply_lag(wl, &mut s.write_lag_us);
                            apply_lag(fl, &mut s.flush_lag_us);
                            apply_lag(al, &mut s.replay_lag_us);
                            s.reply_time_us = Some(now_us());
                        });
                    }
                    b'h' => {}
                    other => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("unexpected standby message type \"{}\"", other as char),
                        ))
                    }
                }
            }
            b'c' => return Ok(true),
            b'X' => return Ok(false),
            other => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("invalid standby message type \"{}\"", other as char),
                ))
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replication_commands_parse_as_postgresql_spells_them() {
        assert!(matches!(
            parse("IDENTIFY_SYSTEM"),
            Ok(Command::IdentifySystem)
        ));
        assert!(matches!(
            parse(" identify_system ;"),
            Ok(Command::IdentifySystem)
        ));
        match parse("START_REPLICATION SLOT s PHYSICAL 0/1A2B TIMELINE 1") {
            Ok(Command::StartReplication { start, timeline }) => {
                assert_eq!(start, Lsn(0x1A2B));
                assert_eq!(timeline, Some(1));
            }
            _ => panic!("START_REPLICATION did not parse"),
        }
        match parse("START_REPLICATION 1/0") {
            Ok(Command::StartReplication { start, timeline }) => {
                assert_eq!(start, Lsn(1 << 32));
                assert_eq!(timeline, None);
            }
            _ => panic!("START_REPLICATION did not parse"),
        }
        let code = |t: &str| parse(t).err().map(|e| e.code.code());
        assert_eq!(code("START_REPLICATION nonsense"), Some("42601"));
        assert_eq!(code("START_REPLICATION 0/0 TIMELINE"), Some("42601"));
        assert_eq!(code("START_REPLICATION SLOT s LOGICAL 0/0"), Some("0A000"));
        assert_eq!(code("BASE_BACKUP"), Some("0A000"));
        assert!(matches!(
            parse("TIMELINE_HISTORY 2"),
            Ok(Command::TimelineHistory(2))
        ));
        assert_eq!(code("TIMELINE_HISTORY x"), Some("42601"));
        assert_eq!(code("SELECT 1"), Some("0A000"));
    }

    #[test]
    fn lag_is_measured_once_per_send_and_cleared_when_idle() {
        let mut l = LagTracker::default();
        l.sent(Lsn(100));
        l.sent(Lsn(200));
        // Nothing confirmed yet: keep.
        assert_eq!(l.report([Lsn(50); 3]), [Lag::Keep, Lag::Keep, Lag::Keep]);
        // Written 150, flushed and applied nothing new.
        let r = l.report([Lsn(150), Lsn(50), Lsn(50)]);
        assert!(matches!(r[0], Lag::Measured(_)));
        assert_eq!(r[1], Lag::Keep);
        // The same report again measures nothing new.
        assert_eq!(l.report([Lsn(150), Lsn(50), Lsn(50)])[0], Lag::Keep);
        // Everything confirmed: measured once, then idle reports clear it.
        assert!(matches!(l.report([Lsn(200); 3])[2], Lag::Measured(_)));
        assert_eq!(l.report([Lsn(200); 3]), [Lag::Keep, Lag::Keep, Lag::Keep]);
        assert_eq!(
            l.report([Lsn(200); 3]),
            [Lag::Clear, Lag::Clear, Lag::Clear]
        );
        assert!(l.samples.is_empty());
    }
}
