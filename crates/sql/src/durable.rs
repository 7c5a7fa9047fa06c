//! Durability: the data directory, the WAL wiring, checkpoints and crash
//! recovery.
//!
//! Property: nothing acknowledged as committed is ever lost, nothing
//! uncommitted is ever recovered. docs/durability.md has the protocol; in
//! short:
//!
//! - **What is logged.** A transaction's redo is generated at commit from its
//!   undo log (final row images, see `nestor_storage::redo`) and appended to
//!   the WAL under the commit sequencer, so the WAL holds committed
//!   transactions only, in commit order. Schema changes are logged as the
//!   statement's SQL text plus the relation OIDs it allocated
//!   ([`CatalogRecord::Statement`]); recovery re-executes the statement with
//!   the same OIDs forced, so later row redo finds its tables. Sequences are
//!   not transactional: every commit carries the state of the sequences
//!   advanced since the previous commit ([`CatalogRecord::Sequences`]);
//!   replay keeps the maximum.
//! - **Checkpoints** are written from an MVCC snapshot at a cut `(csn, lsn)`
//!   taken under the commit sequencer (every commit ≤ csn lies before lsn in
//!   the WAL), while writers continue. DDL waits for a running checkpoint
//!   (the DDL gate), so the catalog image matches the cut. The file is
//!   written to a temporary name, fsynced, renamed, and the directory
//!   fsynced; then WAL segments before the cut are removed.
//! - **Recovery** loads the newest checkpoint (a bad checksum stops startup
//!   naming the file), replays the WAL from its lsn (a torn tail is cut; a
//!   gap or damage earlier stops startup), rebuilds indexes, and continues
//!   XIDs and CSNs after everything recovered.
//! - UNLOGGED and TEMP tables: no row redo and no rows in checkpoints, so
//!   they come back empty (their definitions survive), as in PostgreSQL.
//!
//! Data directory layout:
//!
//! ```text
//!   DIR/nestor.lock            held (flock) while a server uses DIR
//!   DIR/wal/<lsn>.wal          WAL segments (crates/wal)
//!   DIR/checkpoint             the newest checkpoint image
//!   DIR/checkpoint.tmp         a checkpoint being written (ignored)
//! ```

use std::cell::RefCell;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nestor_common::{Csn, DbError, RelId, RowId, SessionId, SqlState, Xid};
use nestor_storage::redo::{self, Reader, RedoOp};
use nestor_txn::{CommitLog, RedoBuffer, Snapshot};
use nestor_wal::{Wal, WalError};
use parking_lot::{Mutex, RwLock};

use crate::engine::Engine;
use crate::protocol::{BackendMsg, FrontendMsg};
use crate::session::{Session, SessionInfo};

/// Default checkpoint_timeout.
pub const CHECKPOINT_TIMEOUT_MS_DEFAULT: u64 = 5 * 60 * 1000;
/// Default max_wal_size: WAL written since the last checkpoint that
/// triggers the next one.
pub const MAX_WAL_BYTES_DEFAULT: u64 = 1 << 30;

const CHECKPOINT_MAGIC: &[u8; 8] = b"NESTORCK";
const CHECKPOINT_VERSION: u32 = 1;

// ----- the WAL behind a switch ----------------------------------------------

/// The commit log the transaction manager is built with. Until recovery has
/// finished it logs nothing (replayed work is already in the WAL); then it
/// forwards to the WAL.
#[derive(Default)]
pub struct SwitchLog {
    wal: RwLock<Option<Arc<Wal>>>,
}

impl SwitchLog {
    pub fn set(&self, wal: Arc<Wal>) {
        *self.wal.write() = Some(wal);
    }

    pub fn wal(&self) -> Option<Arc<Wal>> {
        self.wal.read().clone()
    }
}

impl CommitLog for SwitchLog {
    fn redo_buffer(&self) -> Box<dyn RedoBuffer> {
        match self.wal() {
            Some(w) => w.redo_buffer(),
            None => nestor_txn::NoLog.redo_buffer(),
        }
    }

    fn append(&self, xid: Xid, csn: Csn, redo: Box<dyn RedoBuffer>) {
        if let Some(w) = self.wal() {
            w.append(xid, csn, redo);
        }
    }

    fn wait_durable(&self, csn: Csn) {
        if let Some(w) = self.wal() {
            w.wait_durable(csn);
        }
    }
}

// ----- the lock file --------------------------------------------------------

/// Exclusive use of a data directory, held for the life of the server. An
/// OS file lock, so a killed server never leaves a stale lock behind.
pub struct DirLock {
    _file: File,
}

pub fn lock_data_dir(dir: &Path) -> Result<DirLock, DbError> {
    fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let path = dir.join("nestor.lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error(&path, e))?;
    match file.try_lock() {
        Ok(()) => {
            let mut f = &file;
            let _ = f.write_all(format!("{}\n", std::process::id()).as_bytes());
            Ok(DirLock { _file: file })
        }
        Err(_) => Err(DbError::new(
            SqlState::ObjectInUse,
            format!(
                "lock file \"{}\" is in use: another nestor server is running on data directory \"{}\"",
                path.display(),
                dir.display()
            ),
        )),
    }
}

fn io_error(path: &Path, e: std::io::Error) -> DbError {
    DbError::new(
        SqlState::IoError,
        format!("could not access \"{}\": {e}", path.display()),
    )
}

fn wal_error(e: WalError) -> DbError {
    DbError::new(SqlState::DataCorrupted, e.to_string())
}

// ----- catalog records ------------------------------------------------------

/// The catalog's redo, carried in `RedoOp::Ddl`.
#[derive(Clone, Debug, PartialEq)]
pub enum CatalogRecord {
    /// A DDL statement and the relation OIDs it allocated, in order.
    Statement { sql: String, oids: Vec<u32> },
    /// Sequence states: (name, last value, is_called).
    Sequences(Vec<(String, i64, bool)>),
}

impl CatalogRecord {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            CatalogRecord::Statement { sql, oids } => {
                out.push(1);
                out.extend_from_slice(&(oids.len() as u32).to_le_bytes());
                for o in oids {
                    out.extend_from_slice(&o.to_le_bytes());
                }
                put_str(&mut out, sql);
            }
            CatalogRecord::Sequences(seqs) => {
                out.push(2);
                out.extend_from_slice(&(seqs.len() as u32).to_le_bytes());
                for (name, last, called) in seqs {
                    put_str(&mut out, name);
                    out.extend_from_slice(&last.to_le_bytes());
                    out.push(*called as u8);
                }
            }
        }
        out
    }

    pub fn decode(buf: &[u8]) -> Result<CatalogRecord, String> {
        let mut r = Reader::new(buf);
        let rec = match r.u8()? {
            1 => {
                let n = r.u32()? as usize;
                let oids = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
                CatalogRecord::Statement {
                    sql: get_str(&mut r)?,
                    oids,
                }
            }
            2 => {
                let n = r.u32()? as usize;
                let mut seqs = Vec::new();
                for _ in 0..n {
                    let name = get_str(&mut r)?;
                    let last = r.u64()? as i64;
                    let called = r.u8()? != 0;
                    seqs.push((name, last, called));
                }
                CatalogRecord::Sequences(seqs)
            }
            t => return Err(format!("unknown catalog record {t}")),
        };
        if !r.at_end() {
            return Err("trailing bytes after catalog record".into());
        }
        Ok(rec)
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn get_str(r: &mut Reader<'_>) -> Result<String, String> {
    let n = r.u32()? as usize;
    String::from_utf8(r.bytes(n)?.to_vec()).map_err(|_| "invalid UTF-8 in catalog record".into())
}

// ----- DDL capture ----------------------------------------------------------

/// What one DDL statement did, for its redo: the text and the OIDs it
/// allocated. Shared by the statement's first catalog undo entry.
#[derive(Debug, Default)]
pub struct Capture {
    pub sql: String,
    pub oids: Vec<u32>,
    /// TEMP objects are not logged (they do not survive a restart).
    pub skip: bool,
    attached: bool,
}

/// The open capture of the statement running on this thread, with its
/// transaction's hold on the DDL gate.
type OpenCapture = (Arc<Mutex<Capture>>, Arc<DdlGateGuard>);

thread_local! {
    static CAPTURE: RefCell<Option<OpenCapture>> = const { RefCell::new(None) };
}

/// Keeps checkpoints and catalog changes apart: every transaction that
/// changed the catalog holds a token until it ends; a checkpoint waits until
/// no token is held, then runs its cut while new DDL waits. So a
/// checkpoint's catalog image never contains uncommitted DDL nor misses DDL
/// committed before its cut. (A checkpoint can be delayed by a stream of
/// DDL transactions; DDL waits at most for one checkpoint's cut.)
#[derive(Default)]
pub struct DdlGate {
    state: Mutex<GateState>,
    cv: parking_lot::Condvar,
}

#[derive(Default)]
struct GateState {
    tokens: usize,
    checkpoint_running: bool,
}

impl DdlGate {
    fn enter(self: &Arc<Self>) -> DdlGateGuard {
        let mut st = self.state.lock();
        while st.checkpoint_running {
            self.cv.wait(&mut st);
        }
        st.tokens += 1;
        DdlGateGuard(self.clone())
    }

    /// Run `f` with no catalog change in flight, waiting at most `wait`
    /// (None: as long as it takes) for the transactions holding tokens to
    /// end. Returns None if the wait ran out.
    fn exclusive<T>(&self, wait: Option<Duration>, f: impl FnOnce() -> T) -> Option<T> {
        let deadline = wait.map(|w| Instant::now() + w);
        let mut st = self.state.lock();
        while st.tokens > 0 || st.checkpoint_running {
            match deadline {
                Some(d) => {
                    if self.cv.wait_until(&mut st, d).timed_out() {
                        return None;
                    }
                }
                None => self.cv.wait(&mut st),
            }
        }
        st.checkpoint_running = true;
        drop(st);
        let r = f();
        self.state.lock().checkpoint_running = false;
        self.cv.notify_all();
        Some(r)
    }
}

/// A DDL transaction's hold on the gate, released when dropped (at the
/// transaction's end, with its undo log).
pub struct DdlGateGuard(Arc<DdlGate>);

impl Drop for DdlGateGuard {
    fn drop(&mut self) {
        let mut st = self.0.state.lock();
        st.tokens -= 1;
        if st.tokens == 0 {
            self.0.cv.notify_all();
        }
    }
}

impl std::fmt::Debug for DdlGateGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DdlGateGuard")
    }
}

/// Runs `f` (one DDL statement's execution) with a capture open.
pub fn capture_ddl<T>(engine: &Engine, sql: &str, f: impl FnOnce() -> T) -> T {
    let guard = Arc::new(engine.ddl_gate.enter());
    let cap = Arc::new(Mutex::new(Capture {
        sql: sql.trim().to_string(),
        ..Capture::default()
    }));
    CAPTURE.with(|c| *c.borrow_mut() = Some((cap, guard)));
    let r = f();
    CAPTURE.with(|c| *c.borrow_mut() = None);
    r
}

/// Called by the catalog's OID allocator.
pub fn note_oid(oid: RelId) {
    CAPTURE.with(|c| {
        if let Some((cap, _)) = c.borrow().as_ref() {
            cap.lock().oids.push(oid.0);
        }
    });
}

/// Called when a TEMP object is created: the statement is not logged.
pub fn skip_logging() {
    CAPTURE.with(|c| {
        if let Some((cap, _)) = c.borrow().as_ref() {
            cap.lock().skip = true;
        }
    });
}

/// For the catalog's undo entry: the capture (only the statement's first
/// entry gets it, so the statement is logged once) and the gate guard.
pub fn attach() -> (Option<Arc<Mutex<Capture>>>, Option<Arc<DdlGateGuard>>) {
    CAPTURE.with(|c| match c.borrow().as_ref() {
        Some((cap, guard)) => {
            let first = !std::mem::replace(&mut cap.lock().attached, true);
            (first.then(|| cap.clone()), Some(guard.clone()))
        }
        None => (None, None),
    })
}

/// The redo bytes of a capture (None for TEMP objects).
pub fn capture_redo(cap: &Mutex<Capture>) -> Option<Vec<u8>> {
    let c = cap.lock();
    (!c.skip).then(|| {
        CatalogRecord::Statement {
            sql: c.sql.clone(),
            oids: c.oids.clone(),
        }
        .encode()
    })
}

// ----- recovery -------------------------------------------------------------

/// A session used to re-execute logged DDL during recovery.
struct Replayer {
    session: Session,
}

impl Replayer {
    fn new(engine: &Arc<Engine>) -> Result<Replayer, DbError> {
        let info = SessionInfo {
            pid: SessionId(0),
            secret_key: 0,
            user: "nestor".into(),
            database: "postgres".into(),
            application_name: "recovery".into(),
            client_addr: None,
            startup_params: Vec::new(),
        };
        Ok(Replayer {
            session: Session::new(engine.clone(), info)?,
        })
    }

    fn statement(&mut self, engine: &Engine, sql: &str, oids: &[u32]) -> Result<(), DbError> {
        engine.catalog.force_oids(oids);
        let mut out = Vec::new();
        self.session
            .handle(FrontendMsg::Query(sql.to_string()), &mut out);
        engine.catalog.force_oids(&[]);
        for m in out {
            if let BackendMsg::Error(e) = m {
                return Err(DbError::new(
                    SqlState::DataCorrupted,
                    format!(
                        "recovery could not replay a logged statement ({sql}): {}",
                        e.message
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn apply_catalog(engine: &Engine, replayer: &mut Replayer, bytes: &[u8]) -> Result<(), DbError> {
    let rec = CatalogRecord::decode(bytes).map_err(corrupt)?;
    match rec {
        CatalogRecord::Statement { sql, oids } => replayer.statement(engine, &sql, &oids),
        CatalogRecord::Sequences(seqs) => {
            engine.catalog.restore_sequences(&seqs);
            Ok(())
        }
    }
}

fn corrupt(why: String) -> DbError {
    DbError::new(SqlState::DataCorrupted, format!("corrupt redo: {why}"))
}

fn apply_op(engine: &Engine, replayer: &mut Replayer, op: RedoOp) -> Result<(), DbError> {
    match op {
        RedoOp::Put { rel, row, values } => table_for(engine, rel)?.recover_put(row, values),
        RedoOp::Delete { rel, row } => table_for(engine, rel)?.recover_delete(row),
        RedoOp::Ddl(bytes) => apply_catalog(engine, replayer, &bytes)?,
    }
    Ok(())
}

fn table_for(engine: &Engine, rel: RelId) -> Result<Arc<nestor_storage::Table>, DbError> {
    engine.store.table(rel).ok_or_else(|| {
        DbError::new(
            SqlState::DataCorrupted,
            format!("redo refers to relation {rel}, which recovery did not create"),
        )
    })
}

/// What recovery found, for the startup log line.
#[derive(Debug, Default)]
pub struct RecoveryReport {
    pub checkpoint_csn: u64,
    pub wal_transactions: u64,
    pub torn_tail_cut: Option<String>,
    pub millis: u128,
}

/// Recover `engine` from its data directory and switch its commit log to
/// the WAL. Runs before the server accepts connections.
pub fn recover(engine: &Arc<Engine>, log: &SwitchLog) -> Result<RecoveryReport, DbError> {
    let started = Instant::now();
    let dir = engine.config.data_dir.clone();
    let mut replayer = Replayer::new(engine)?;
    let mut report = RecoveryReport::default();
    let mut next_xid = 1u64;
    let mut last_csn = Csn::BOOTSTRAP.0;
    let mut from_lsn = 0;
    if let Some(ck) = read_checkpoint(&dir.join("checkpoint"))? {
        for stmt in &ck.ddl {
            apply_catalog(engine, &mut replayer, stmt)?;
        }
        apply_catalog(engine, &mut replayer, &ck.sequences)?;
        for (rel, row_ids, rows) in ck.tables {
            let t = table_for(engine, rel)?;
            t.reserve_row_ids(row_ids);
            for (row, values) in rows {
                t.recover_put(row, values);
            }
        }
        engine.catalog.ensure_next_oid(ck.next_oid);
        next_xid = ck.next_xid;
        last_csn = ck.csn;
        from_lsn = ck.lsn;
        report.checkpoint_csn = ck.csn;
    }
    let wal_dir = dir.join("wal");
    let mut pending: Vec<u8> = Vec::new();
    let mut failure: Option<DbError> = None;
    let end = nestor_wal::replay(&wal_dir, from_lsn, |rec| {
        if failure.is_some() {
            return Ok(());
        }
        pending.extend_from_slice(&rec.payload);
        next_xid = next_xid.max(rec.xid + 1);
        if rec.kind == nestor_wal::RecordKind::TxnCommit {
            last_csn = last_csn.max(rec.csn);
            report.wal_transactions += 1;
            let ops =
                redo::decode_ops(&pending).map_err(|e| format!("transaction {}: {e}", rec.xid))?;
            pending.clear();
            for op in ops {
                if let Err(e) = apply_op(engine, &mut replayer, op) {
                    failure = Some(e);
                    break;
                }
            }
        }
        Ok(())
    })
    .map_err(wal_error)?;
    if let Some(e) = failure {
        return Err(e);
    }
    report.torn_tail_cut = end
        .cut
        .map(|(f, off)| format!("{} at offset {off}", f.display()));
    for t in engine.store.tables() {
        t.rebuild_indexes();
    }
    drop(replayer);
    engine
        .txn
        .advance_after_recovery(Xid(next_xid), Csn(last_csn));
    let wal = Wal::open(
        &wal_dir,
        end.end_lsn,
        engine.txn.horizon().0,
        nestor_wal::SEGMENT_BYTES_DEFAULT,
    )
    .map_err(wal_error)?;
    log.set(Arc::new(wal));
    engine.mark_recovered(end.end_lsn);
    report.millis = started.elapsed().as_millis();
    Ok(report)
}

// ----- checkpoints ----------------------------------------------------------

struct CheckpointImage {
    csn: u64,
    lsn: u64,
    next_xid: u64,
    next_oid: u32,
    ddl: Vec<Vec<u8>>,
    sequences: Vec<u8>,
    tables: Vec<TableImage>,
}

/// One table in a checkpoint: relation, row ids taken, rows.
type TableImage = (RelId, u64, Vec<(RowId, nestor_types::Row)>);

/// A writer that checksums what it writes.
struct CrcWriter<W: Write> {
    inner: W,
    crc: u32,
}

impl<W: Write> CrcWriter<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc = crc32c::crc32c_append(self.crc, bytes);
        self.inner.write_all(bytes)
    }
}

/// Write a checkpoint: see the module header for the protocol. Returns the
/// cut's CSN and LSN. `gate_wait` bounds how long it waits for open DDL
/// transactions (None: as long as it takes); when it runs out, no
/// checkpoint is written and an error says why.
pub fn checkpoint(engine: &Engine, gate_wait: Option<Duration>) -> Result<(Csn, u64), DbError> {
    let log = engine.log.clone();
    let Some(wal) = log.wal() else {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            "checkpoint requested before recovery finished",
        ));
    };
    let _one_at_a_time = match gate_wait {
        Some(w) => engine.checkpoint_lock.try_lock_for(w).ok_or_else(|| {
            DbError::new(
                SqlState::ObjectInUse,
                "checkpoint skipped: another checkpoint is running",
            )
        })?,
        None => engine.checkpoint_lock.lock(),
    };
    let slot = engine.txn.register_slot();
    let cut = engine.ddl_gate.exclusive(gate_wait, || {
        let (csn, lsn) = engine.txn.checkpoint_cut(|| wal.next_lsn());
        engine.txn.hold_horizon(&slot, csn);
        (
            csn,
            lsn,
            engine.catalog.committed_ddl(),
            engine.catalog.sequence_record().encode(),
            engine.catalog.logged_storage(),
            engine.catalog.next_oid(),
            engine.txn.next_xid().0,
        )
    });
    let Some((csn, lsn, ddl, sequences, tables, next_oid, next_xid)) = cut else {
        return Err(DbError::new(
            SqlState::ObjectInUse,
            "checkpoint skipped: transactions with schema changes are still open",
        ));
    };
    let snap = Snapshot {
        horizon: csn,
        own: Xid::NONE,
        cid: nestor_common::CommandId(0),
    };
    let dir = &engine.config.data_dir;
    let tmp = dir.join("checkpoint.tmp");
    let write = || -> std::io::Result<()> {
        let f = File::create(&tmp)?;
        let mut w = CrcWriter {
            inner: BufWriter::with_capacity(1 << 20, f),
            crc: 0,
        };
        w.put(CHECKPOINT_MAGIC)?;
        w.put(&CHECKPOINT_VERSION.to_le_bytes())?;
        for v in [csn.0, lsn, next_xid] {
            w.put(&v.to_le_bytes())?;
        }
        w.put(&next_oid.to_le_bytes())?;
        w.put(&(ddl.len() as u32).to_le_bytes())?;
        for d in &ddl {
            w.put(&(d.len() as u32).to_le_bytes())?;
            w.put(d)?;
        }
        w.put(&(sequences.len() as u32).to_le_bytes())?;
        w.put(&sequences)?;
        w.put(&(tables.len() as u32).to_le_bytes())?;
        let mut buf = Vec::new();
        for t in &tables {
            w.put(&t.id.0.to_le_bytes())?;
            w.put(&t.row_id_count().to_le_bytes())?;
            for tu in t.scan(&snap) {
                buf.clear();
                buf.push(1);
                buf.extend_from_slice(&tu.row.0.to_le_bytes());
                buf.extend_from_slice(&(tu.data.len() as u16).to_le_bytes());
                for v in tu.data.iter() {
                    redo::encode_value(v, &mut buf);
                }
                w.put(&buf)?;
            }
            w.put(&[0])?;
        }
        let crc = w.crc;
        w.inner.write_all(&crc.to_le_bytes())?;
        let f = w.inner.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()
    };
    write().map_err(|e| io_error(&tmp, e))?;
    drop(slot);
    let path = dir.join("checkpoint");
    fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))?;
    nestor_wal::sync_dir(dir).map_err(wal_error)?;
    wal.remove_before(lsn).map_err(wal_error)?;
    engine.note_checkpoint(lsn);
    Ok((csn, lsn))
}

fn read_checkpoint(path: &Path) -> Result<Option<CheckpointImage>, DbError> {
    let mut data = Vec::new();
    match File::open(path) {
        Ok(mut f) => f.read_to_end(&mut data).map_err(|e| io_error(path, e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path, e)),
    };
    let bad = |why: &str| {
        DbError::new(
            SqlState::DataCorrupted,
            format!(
                "checkpoint file \"{}\" is corrupt ({why}); refusing to start rather than lose committed data",
                path.display()
            ),
        )
    };
    if data.len() < 4 + CHECKPOINT_MAGIC.len() {
        return Err(bad("too short"));
    }
    let (body, tail) = data.split_at(data.len() - 4);
    if crc32c::crc32c(body) != u32::from_le_bytes(tail.try_into().expect("4 bytes")) {
        return Err(bad("checksum mismatch"));
    }
    parse_checkpoint(body).map(Some).map_err(|e| bad(&e))
}

fn parse_checkpoint(body: &[u8]) -> Result<CheckpointImage, String> {
    let mut r = Reader::new(body);
    if r.bytes(8)? != CHECKPOINT_MAGIC {
        return Err("not a checkpoint file".into());
    }
    if r.u32()? != CHECKPOINT_VERSION {
        return Err("unknown checkpoint version".into());
    }
    let (csn, lsn, next_xid, next_oid) = (r.u64()?, r.u64()?, r.u64()?, r.u32()?);
    let n = r.u32()? as usize;
    let mut ddl = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        let len = r.u32()? as usize;
        ddl.push(r.bytes(len)?.to_vec());
    }
    let len = r.u32()? as usize;
    let sequences = r.bytes(len)?.to_vec();
    let nt = r.u32()? as usize;
    let mut tables = Vec::new();
    for _ in 0..nt {
        let rel = RelId(r.u32()?);
        let row_ids = r.u64()?;
        let mut rows = Vec::new();
        while r.u8()? == 1 {
            let row = RowId(r.u64()?);
            let ncols = r.u16()? as usize;
            let vals = (0..ncols)
                .map(|_| r.value())
                .collect::<Result<Vec<_>, _>>()?;
            rows.push((row, Arc::from(vals)));
        }
        tables.push((rel, row_ids, rows));
    }
    if !r.at_end() {
        return Err("trailing bytes".into());
    }
    Ok(CheckpointImage {
        csn,
        lsn,
        next_xid,
        next_oid,
        ddl,
        sequences,
        tables,
    })
}

// ----- the checkpointer -----------------------------------------------------

/// Background checkpoints every `timeout` or after `max_wal_bytes` of WAL.
pub fn start_checkpointer(engine: &Arc<Engine>, timeout: Duration, max_wal_bytes: u64) {
    let weak = Arc::downgrade(engine);
    let stop = engine.stopping.clone();
    let spawned = std::thread::Builder::new()
        .name("checkpointer".into())
        .spawn(move || {
            let mut last = Instant::now();
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(200));
                let Some(engine) = weak.upgrade() else { return };
                let wal_since = engine.wal_bytes_since_checkpoint();
                if last.elapsed() >= timeout || wal_since >= max_wal_bytes {
                    // Bounded, so a long-open DDL transaction delays the
                    // checkpoint to a later tick instead of parking here.
                    if let Err(e) = checkpoint(&engine, Some(Duration::from_secs(1))) {
                        eprintln!("checkpoint failed: {}", e.message);
                    }
                    last = Instant::now();
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("could not start the checkpointer: {e}");
    }
}

/// Flag shared with background threads.
pub type StopFlag = Arc<AtomicBool>;

/// Paths under a data directory.
pub fn wal_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("wal")
}
