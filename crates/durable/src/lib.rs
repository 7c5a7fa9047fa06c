//! # nestor-durable: the data directory, the WAL wiring, checkpoints and crash
//! recovery.
//!
//! Property: nothing acknowledged as committed is ever lost, nothing
//! uncommitted is ever recovered. docs/durability.md has the protocol; in
//! short:
//!
//! - **What is logged.** A transaction's redo is generated at commit from its
//!   undo log (final row images, see `nestor_storage::redo`) and appended to
//!   the WAL under the commit sequencer, so the WAL holds committed
//!   transactions only, in commit order. Schema changes are logged as typed
//!   catalog records describing their result ([`CatalogRecord::PutTable`]
//!   carries the whole new definition with its OIDs); recovery installs
//!   them with `Catalog::replay`, so later row redo finds its tables and no
//!   SQL is executed. Sequences are not transactional: every commit carries
//!   the state of the sequences advanced since the previous commit
//!   ([`CatalogRecord::Sequences`]); replay keeps the maximum.
//! - **Checkpoints** are written from an MVCC snapshot at a cut `(csn, lsn)`
//!   taken under the commit sequencer (every commit ≤ csn lies before lsn in
//!   the WAL), while writers continue. DDL waits for a running checkpoint
//!   (the catalog's DDL gate), so the catalog image — the current catalog
//!   as records, no history — matches the cut. The file is
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
//!   DIR/identity               system identifier, timeline, timeline history
//!   DIR/standby.signal         present while DIR is a replica's
//! ```
//!
//! Replicas (docs/replication.md, `replica.rs`): a base image is a
//! checkpoint image streamed to the replica; a replica's recovery leaves
//! the log apply-only, and its checkpoints cut at the last applied commit.
//! A primary's checkpoint keeps the WAL its replicas may still ask for.

#![forbid(unsafe_code)]

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nestor_catalog::CatalogRecord;
use nestor_common::{Csn, DbError, Lsn, RelId, RowId, SqlState, Xid};
use nestor_storage::redo::{self, Reader, RedoOp};
use nestor_txn::Snapshot;
use nestor_wal::{SwitchLog, Wal, WalError};

pub mod engine;
pub mod replica;

pub use engine::{Engine, EngineConfig, Identity, STANDBY_SIGNAL};

/// Default checkpoint_timeout.
pub(crate) const CHECKPOINT_TIMEOUT_MS_DEFAULT: u64 = 5 * 60 * 1000;
/// Default max_wal_size: WAL written since the last checkpoint that
/// triggers the next one.
pub(crate) const MAX_WAL_BYTES_DEFAULT: u64 = 1 << 30;

const CHECKPOINT_MAGIC: &[u8; 8] = b"NESTORCK";
/// Version 3: rows in their stored form (`2 row:u64 len:u32 stored-row`).
/// Version 2 (rows as PostgreSQL binary values, `1 row:u64 ncols:u16
/// value*`) is still read; version 1 held DDL history as SQL text and is
/// refused.
const CHECKPOINT_VERSION: u32 = 3;
const CHECKPOINT_VERSION_VALUES: u32 = 2;

// ----- the lock file --------------------------------------------------------

/// Exclusive use of a data directory, held for the life of the server. An
/// OS file lock, so a killed server never leaves a stale lock behind.
pub(crate) struct DirLock {
    _file: File,
}

pub(crate) fn lock_data_dir(dir: &Path) -> Result<DirLock, DbError> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| io_error(dir, e))?;
    let path = dir.join("nestor.lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error(&path, e))?;
    check_data_dir(dir, &file)?;
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

/// PostgreSQL's checkDataDir: the data directory holds every row of every
/// table, so it must belong to the server's user (the owner of the lock
/// file it just opened) and be closed to others: 0700, or 0750 for group
/// read access. Anything more open is refused, with PostgreSQL's messages.
fn check_data_dir(dir: &Path, lock: &File) -> Result<(), DbError> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(dir).map_err(|e| io_error(dir, e))?;
    let me = lock.metadata().map_err(|e| io_error(dir, e))?.uid();
    if meta.uid() != me {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!("data directory \"{}\" has wrong ownership", dir.display()),
        )
        .with_hint("The server must be started by the user that owns the data directory."));
    }
    // Group write or any access for others (PG_MODE_MASK_GROUP).
    if meta.mode() & 0o027 != 0 {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!(
                "data directory \"{}\" has invalid permissions",
                dir.display()
            ),
        )
        .with_detail("Permissions should be u=rwx (0700) or u=rwx,g=rx (0750)."));
    }
    Ok(())
}

pub(crate) fn io_error(path: &Path, e: std::io::Error) -> DbError {
    DbError::new(
        SqlState::IoError,
        format!("could not access \"{}\": {e}", path.display()),
    )
}

fn wal_error(e: WalError) -> DbError {
    DbError::new(SqlState::DataCorrupted, e.to_string())
}

// ----- recovery -------------------------------------------------------------

fn apply_catalog(engine: &Engine, bytes: &[u8]) -> Result<(), DbError> {
    let rec = CatalogRecord::decode(bytes).map_err(corrupt)?;
    engine.catalog.replay(rec, &engine.store).map_err(corrupt)
}

fn corrupt(why: String) -> DbError {
    DbError::new(SqlState::DataCorrupted, format!("corrupt redo: {why}"))
}

fn apply_op(engine: &Engine, op: RedoOp) -> Result<(), DbError> {
    match op {
        RedoOp::Put { rel, row, stored } => table_for(engine, rel)?.recover_put(row, stored),
        RedoOp::Delete { rel, row } => table_for(engine, rel)?.recover_delete(row),
        RedoOp::Ddl(bytes) => apply_catalog(engine, &bytes)?,
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
pub(crate) struct RecoveryReport {
    pub checkpoint_csn: u64,
    pub wal_transactions: u64,
    pub torn_tail_cut: Option<String>,
    pub millis: u128,
}

/// Recover `engine` from its data directory and switch its commit log to
/// the WAL. Runs before the server accepts connections.
pub(crate) fn recover(engine: &Arc<Engine>, log: &SwitchLog) -> Result<RecoveryReport, DbError> {
    let started = Instant::now();
    let dir = engine.config.data_dir.clone();
    let mut report = RecoveryReport::default();
    let mut next_xid = 1u64;
    let mut last_csn = Csn::BOOTSTRAP.0;
    let mut from_lsn = Lsn(0);
    let mut last_commit_end = Lsn(0);
    if let Some(ck) = read_checkpoint(&dir.join("checkpoint"))? {
        for rec in &ck.ddl {
            apply_catalog(engine, rec)?;
        }
        apply_catalog(engine, &ck.sequences)?;
        for (rel, row_ids, rows) in ck.tables {
            let t = table_for(engine, rel)?;
            t.reserve_row_ids(row_ids);
            for (row, stored) in rows {
                t.recover_put(row, stored);
            }
        }
        engine.catalog.ensure_next_oid(ck.next_oid);
        next_xid = ck.next_xid;
        last_csn = ck.csn;
        from_lsn = ck.lsn;
        last_commit_end = ck.lsn;
        report.checkpoint_csn = ck.csn;
    }
    let wal_dir = wal_dir(&dir);
    let mut pending: Vec<u8> = Vec::new();
    let mut pending_xid = 0u64;
    let mut failure: Option<DbError> = None;
    let end = nestor_wal::replay(&wal_dir, from_lsn, |rec| {
        if failure.is_some() {
            return Ok(());
        }
        // Chunks of a transaction whose commit record never made it (a
        // crash mid-append) are followed by another transaction's records:
        // they are dropped, never prefixed to the next commit.
        if rec.xid != pending_xid {
            pending.clear();
            pending_xid = rec.xid;
        }
        pending.extend_from_slice(&rec.payload);
        next_xid = next_xid.max(rec.xid + 1);
        if rec.kind == nestor_wal::RecordKind::TxnCommit {
            // The log holds commits in CSN order, and every commit after the
            // checkpoint's LSN is newer than its cut (docs/durability.md §4).
            if rec.csn <= last_csn {
                return Err(format!(
                    "commit of transaction {} has csn {} after csn {last_csn}: the log is not in commit order",
                    rec.xid, rec.csn
                ));
            }
            last_csn = rec.csn;
            last_commit_end = rec.end();
            report.wal_transactions += 1;
            let ops =
                redo::decode_ops(&pending).map_err(|e| format!("transaction {}: {e}", rec.xid))?;
            pending.clear();
            for op in ops {
                if let Err(e) = apply_op(engine, op) {
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
    // Every computed index bound (an image may list a table before a
    // function its index calls) before the indexes are filled.
    engine.catalog.finish_replay().map_err(corrupt)?;
    for t in engine.store.tables() {
        t.rebuild_indexes();
    }
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
    wal.adopt_redo_files(&end.redo_files).map_err(wal_error)?;
    wal.set_redo_memory_bytes_max(engine.config.txn_redo_memory_bytes_max);
    if engine.config.replica {
        // Hot standby (replica.rs): the log is the primary's, streamed in;
        // local commits only make applied transactions visible.
        // The log may end inside a transaction (chunks flushed, commit
        // not yet received): what was applied ends at the last commit,
        // and the applier picks the chunks after it up again.
        *engine.applied.lock() = replica::Applied {
            csn: last_csn,
            lsn: last_commit_end,
            max_xid: next_xid.saturating_sub(1),
        };
        let repl = &engine.replication;
        repl.set_in_recovery(true);
        repl.set_receive_lsn(end.end_lsn);
        repl.set_replay_lsn(last_commit_end);
        log.set_apply_only(Arc::new(wal));
    } else {
        log.set(Arc::new(wal));
    }
    engine.mark_recovered(end.end_lsn);
    report.millis = started.elapsed().as_millis();
    Ok(report)
}

// ----- checkpoints ----------------------------------------------------------

pub(crate) struct CheckpointImage {
    csn: u64,
    lsn: Lsn,
    next_xid: u64,
    next_oid: u32,
    ddl: Vec<Vec<u8>>,
    sequences: Vec<u8>,
    tables: Vec<TableImage>,
}

/// One table in a checkpoint: relation, row ids taken, rows.
type TableImage = (RelId, u64, Vec<(RowId, Box<[u8]>)>);

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

/// A checkpoint's cut: everything committed at or before `csn` (whose WAL
/// lies before `lsn`), with the catalog as it was then. `read_csn` is the
/// horizon the rows are read at: `csn` itself on a primary; on a replica
/// the local horizon of the same commit (`replica::replica_cut`).
pub(crate) struct Cut {
    csn: Csn,
    read_csn: Csn,
    lsn: Lsn,
    next_xid: u64,
    next_oid: u32,
    ddl: Vec<Vec<u8>>,
    sequences: Vec<u8>,
    tables: Vec<Arc<nestor_storage::Table>>,
}

/// Take a primary's cut (see the module header) with `position` the log's
/// next LSN. The returned slot holds the GC horizon at the cut until it is
/// dropped (after the image is written). `gate_wait` bounds the wait for
/// open DDL transactions.
pub(crate) fn take_cut(
    engine: &Engine,
    gate_wait: Option<Duration>,
    position: impl FnOnce() -> Lsn,
) -> Result<(Arc<nestor_txn::SnapshotSlot>, Cut), DbError> {
    // Until the cut is known the slot holds everything (a pruner running
    // between the cut and the hold must not take versions the image needs).
    let slot = engine.txn.register_slot();
    engine.txn.hold_everything(&slot);
    let cut = engine.catalog.gate().exclusive(gate_wait, || {
        let (csn, lsn) = engine.txn.checkpoint_cut(position);
        engine.txn.hold_horizon(&slot, csn);
        Cut {
            csn,
            read_csn: csn,
            lsn,
            next_xid: engine.txn.next_xid().0,
            next_oid: engine.catalog.next_oid(),
            ddl: engine
                .catalog
                .image()
                .iter()
                .map(CatalogRecord::encode)
                .collect(),
            sequences: engine.catalog.sequence_states().encode(),
            tables: engine.catalog.logged_storage(),
        }
    });
    let Some(cut) = cut else {
        return Err(DbError::new(
            SqlState::ObjectInUse,
            "checkpoint skipped: transactions with schema changes are still open",
        ));
    };
    Ok((slot, cut))
}

/// Write a checkpoint: see the module header for the protocol. Returns the
/// cut's CSN and LSN. `gate_wait` bounds how long it waits for open DDL
/// transactions (None: as long as it takes); when it runs out, no
/// checkpoint is written and an error says why.
pub fn checkpoint(engine: &Engine, gate_wait: Option<Duration>) -> Result<(Csn, Lsn), DbError> {
    let began = std::time::Instant::now();
    let r = write_checkpoint(engine, gate_wait);
    if r.is_ok() {
        engine.note_checkpoint_done(began.elapsed());
    }
    r
}

fn write_checkpoint(engine: &Engine, gate_wait: Option<Duration>) -> Result<(Csn, Lsn), DbError> {
    let log = engine.db.log.clone();
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
    let replica = engine.replication.in_recovery();
    let (slot, cut) = if replica {
        let slot = engine.txn.register_slot();
        engine.txn.hold_everything(&slot);
        let cut = replica::replica_cut(engine, &slot);
        (slot, cut)
    } else {
        take_cut(engine, gate_wait, || wal.next_lsn())?
    };
    let dir = &engine.config.data_dir;
    let tmp = dir.join("checkpoint.tmp");
    write_image(&tmp, &cut).map_err(|e| io_error(&tmp, e))?;
    drop(slot);
    let path = dir.join("checkpoint");
    fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))?;
    nestor_wal::sync_dir(dir).map_err(wal_error)?;
    // A primary keeps the WAL its replicas may still ask for.
    let keep_from = if replica {
        cut.lsn
    } else {
        engine.replication.retain_from(
            cut.lsn,
            wal.next_lsn(),
            engine.config.replica_wal_keep_bytes_max,
        )
    };
    wal.remove_before(keep_from).map_err(wal_error)?;
    engine.note_checkpoint(cut.lsn);
    Ok((cut.csn, cut.lsn))
}

/// The checkpoint file (format in the module header), fsynced.
fn write_image(path: &Path, cut: &Cut) -> std::io::Result<()> {
    let mut f = BufWriter::with_capacity(1 << 20, File::create(path)?);
    write_image_to(&mut f, cut)?;
    let f = f.into_inner().map_err(|e| e.into_error())?;
    f.sync_all()
}

/// The image of `cut` in the checkpoint format, into `out` (a file, or a
/// replica's connection for a base image).
pub(crate) fn write_image_to(out: &mut dyn Write, cut: &Cut) -> std::io::Result<()> {
    let mut w = CrcWriter { inner: out, crc: 0 };
    w.put(CHECKPOINT_MAGIC)?;
    w.put(&CHECKPOINT_VERSION.to_le_bytes())?;
    for v in [cut.csn.0, cut.lsn.0, cut.next_xid] {
        w.put(&v.to_le_bytes())?;
    }
    w.put(&cut.next_oid.to_le_bytes())?;
    w.put(&(cut.ddl.len() as u32).to_le_bytes())?;
    for d in &cut.ddl {
        w.put(&(d.len() as u32).to_le_bytes())?;
        w.put(d)?;
    }
    w.put(&(cut.sequences.len() as u32).to_le_bytes())?;
    w.put(&cut.sequences)?;
    w.put(&(cut.tables.len() as u32).to_le_bytes())?;
    let snap = Snapshot {
        horizon: cut.read_csn,
        own: Xid::NONE,
        cid: nestor_common::CommandId(0),
        ssi: None,
    };
    for t in &cut.tables {
        w.put(&t.id.0.to_le_bytes())?;
        w.put(&t.row_id_count().to_le_bytes())?;
        t.for_each_stored(&snap, |row, stored| {
            w.put(&[2])?;
            w.put(&row.0.to_le_bytes())?;
            w.put(&(stored.len() as u32).to_le_bytes())?;
            w.put(stored)
        })?;
        w.put(&[0])?;
    }
    let crc = w.crc;
    w.inner.write_all(&crc.to_le_bytes())
}

pub(crate) fn read_checkpoint(path: &Path) -> Result<Option<CheckpointImage>, DbError> {
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
    let version = r.u32()?;
    if version != CHECKPOINT_VERSION && version != CHECKPOINT_VERSION_VALUES {
        return Err(format!("unknown checkpoint version {version}"));
    }
    let (csn, lsn, next_xid, next_oid) = (r.u64()?, Lsn(r.u64()?), r.u64()?, r.u32()?);
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
        loop {
            match (version, r.u8()?) {
                (_, 0) => break,
                (CHECKPOINT_VERSION_VALUES, 1) => {
                    let row = RowId(r.u64()?);
                    rows.push((row, r.values_row()?));
                }
                (CHECKPOINT_VERSION, 2) => {
                    let row = RowId(r.u64()?);
                    let len = r.u32()? as usize;
                    rows.push((row, r.stored_row(len)?));
                }
                (_, k) => return Err(format!("unknown row record {k}")),
            }
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

/// Run `tick` every `interval` on a thread of its own until the engine
/// stops or is gone (the thread holds it only during a tick).
fn spawn_periodic(
    engine: &Arc<Engine>,
    name: &str,
    interval: Duration,
    mut tick: impl FnMut(&Engine) + Send + 'static,
) {
    let weak = Arc::downgrade(engine);
    let stop = engine.stopping.clone();
    let spawned = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(interval);
                let Some(engine) = weak.upgrade() else { return };
                tick(&engine);
            }
        });
    if let Err(e) = spawned {
        nestor_common::log::warning(&format!("could not start the {name}: {e}"));
    }
}

/// Background checkpoints every `timeout` or after `max_wal_bytes` of WAL.
pub(crate) fn start_checkpointer(engine: &Arc<Engine>, timeout: Duration, max_wal_bytes: u64) {
    let mut last = Instant::now();
    spawn_periodic(
        engine,
        "checkpointer",
        Duration::from_millis(200),
        move |engine| {
            if last.elapsed() >= timeout || engine.wal_bytes_since_checkpoint() >= max_wal_bytes {
                // Bounded, so a long-open DDL transaction delays the
                // checkpoint to a later tick instead of parking here.
                if let Err(e) = checkpoint(engine, Some(Duration::from_secs(1))) {
                    nestor_common::log::warning(&format!("checkpoint failed: {}", e.message));
                }
                last = Instant::now();
            }
        },
    );
}

// ----- the pruner -----------------------------------------------------------

/// Background pruning (what autovacuum is to PostgreSQL, for dead row
/// versions only), and the memory budget's measurement
/// (`nestor_common::memory::refresh`): every PRUNE_INTERVAL_MS, compute the
/// GC horizon (which also refreshes the hint writers trim hot rows' chains
/// by) and prune the tables where enough versions were superseded
/// (`Table::prune_due`); about once a second, warn of transactions open
/// longer than their session's nestor.long_transaction_warning
/// (docs/observability.md).
pub(crate) fn start_pruner(engine: &Arc<Engine>) {
    let interval = Duration::from_millis(nestor_common::limits::PRUNE_INTERVAL_MS);
    let mut last_check = std::time::Instant::now();
    spawn_periodic(engine, "pruner", interval, move |engine| {
        nestor_common::memory::refresh();
        // nestor.long_transaction_warning, about once a second.
        if last_check.elapsed() >= Duration::from_secs(1) {
            last_check = std::time::Instant::now();
            engine
                .db
                .sessions
                .warn_long_transactions(nestor_types::context::system_now());
        }
        let horizon = engine.db.txn.gc_horizon();
        for t in engine.db.store.tables() {
            if t.prune_due(horizon) {
                t.prune(horizon);
            }
        }
    });
}

/// The wait sampler (`nestor_exec::wait_sampling`): every `period`, one
/// sample of every session's wait event.
pub(crate) fn start_wait_sampler(engine: &Arc<Engine>, period: Duration) {
    spawn_periodic(engine, "wait sampler", period, move |engine| {
        let db = &engine.db;
        db.wait_sampling.sample(
            &db.sessions,
            &db.txn.locks,
            nestor_types::context::system_now(),
        );
    });
}

/// Flag shared with background threads.
pub(crate) type StopFlag = Arc<AtomicBool>;

/// Paths under a data directory.
pub(crate) fn wal_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("wal")
}

#[cfg(test)]
mod tests {
    use super::*;
    use nestor_types::Value;

    /// A checkpoint body with no catalog and one table of one row, the row
    /// record given.
    fn body(version: u32, row_record: &[u8]) -> Vec<u8> {
        let mut b = CHECKPOINT_MAGIC.to_vec();
        b.extend_from_slice(&version.to_le_bytes());
        for v in [5u64, 0, 9] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&16384u32.to_le_bytes()); // next oid
        b.extend_from_slice(&0u32.to_le_bytes()); // no DDL
        b.extend_from_slice(&0u32.to_le_bytes()); // empty sequence record
        b.extend_from_slice(&1u32.to_le_bytes()); // one table
        b.extend_from_slice(&16400u32.to_le_bytes());
        b.extend_from_slice(&4u64.to_le_bytes()); // row ids taken
        b.extend_from_slice(row_record);
        b.push(0);
        b
    }

    #[test]
    fn chunks_of_a_commit_that_never_finished_are_not_prefixed_to_the_next() {
        // A crash mid-append left a TxnChunk of xid 5 without its commit;
        // xid 6's commit follows. Replaying 6 must not decode 5's bytes.
        let dir = std::env::temp_dir().join(format!("nestor-torn-chunk-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("wal")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        let mut seg = Vec::new();
        let kind = nestor_wal::RecordKind::TxnChunk;
        nestor_wal::record::encode(&mut seg, 0, 5, 2, kind, b"\xffnot redo");
        let at = seg.len() as u64;
        let commit = nestor_wal::RecordKind::TxnCommit;
        nestor_wal::record::encode(&mut seg, at, 6, 2, commit, b"");
        fs::write(dir.join("wal").join("0000000000000000.wal"), &seg).unwrap();
        let engine = crate::Engine::new(crate::EngineConfig::durable(dir.clone(), 4))
            .unwrap_or_else(|e| panic!("recovery failed: {}", e.message));
        // Replaying 6 made the horizon 2; the bootstrap roles' commit
        // (this WAL has none) made it 3.
        assert_eq!(engine.db.txn.horizon(), nestor_common::Csn(3));
        assert!(engine.db.catalog.role("postgres").is_some());
        drop(engine);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn checkpoints_of_both_row_forms_are_read() {
        let values = [Value::Int4(7), Value::text("seven"), Value::Null];
        let stored = redo::store_values(&values);
        let mut v3 = vec![2];
        v3.extend_from_slice(&3u64.to_le_bytes());
        v3.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        v3.extend_from_slice(&stored);
        let mut v2 = vec![1];
        v2.extend_from_slice(&3u64.to_le_bytes());
        v2.extend_from_slice(&(values.len() as u16).to_le_bytes());
        for v in &values {
            redo::encode_value(v, &mut v2);
        }
        for (version, rec) in [(CHECKPOINT_VERSION, &v3), (CHECKPOINT_VERSION_VALUES, &v2)] {
            let img = parse_checkpoint(&body(version, rec)).unwrap();
            let (rel, taken, rows) = &img.tables[0];
            assert_eq!((*rel, *taken), (RelId(16400), 4));
            assert_eq!(rows.len(), 1);
            assert_eq!(rows[0].0, RowId(3));
            assert_eq!(&*redo::stored_values(&rows[0].1), &values[..]);
        }
        // Each form only in its own version; a damaged stored row is an
        // error, not a panic.
        assert!(parse_checkpoint(&body(CHECKPOINT_VERSION, &v2)).is_err());
        assert!(parse_checkpoint(&body(CHECKPOINT_VERSION_VALUES, &v3)).is_err());
        let mut bad = v3.clone();
        let last = bad.len() - 1;
        bad[last] = 0xFF; // a tag that does not exist
        assert!(parse_checkpoint(&body(CHECKPOINT_VERSION, &bad)).is_err());
    }
}
