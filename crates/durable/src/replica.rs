//! The engine side of replication: base images for new replicas, and a
//! replica's applier. The wire side (walsender, walreceiver) is in
//! crates/server; the whole protocol is docs/replication.md.
//!
//! Property: a replica's state is always the primary's state as of some
//! commit, and it moves through the primary's commits in their order;
//! replay never cancels a reader. Rules and mechanism:
//!
//! - **Base image.** A new replica starts from a checkpoint image taken on
//!   the primary exactly as a checkpoint is (an MVCC snapshot at a cut
//!   `(csn, lsn)` taken under the commit sequencer, with the DDL gate), but
//!   streamed to the replica instead of written to a file
//!   ([`base_backup`]). The replica stores it as its `checkpoint` and
//!   streams the WAL from `lsn`.
//! - **The log is copied before it is applied.** Received records are
//!   appended to the replica's own WAL at the LSNs they carry and flushed
//!   ([`Applier::flush`]) before any of them is applied, so a crashed
//!   replica recovers what it applied and resumes at the end of its log.
//! - **Applying a commit is a local transaction.** Each committed
//!   transaction of the primary becomes one transaction of the replica's
//!   own transaction manager: its row images become new versions
//!   ([`nestor_storage::Table::apply_put`]) that no snapshot sees until
//!   the local commit publishes them all at once. So a replica snapshot is
//!   just the local horizon, "everything applied so far": O(1), no
//!   assigned-XID tracking, no subtransactions to look up, and REPEATABLE
//!   READ keeps its snapshot while replay continues. Old versions stay as
//!   long as a replica reader needs them (the replica's own pruning
//!   horizon); nothing is cancelled and the primary needs no feedback.
//! - **Checkpoints on a replica** cut at the last applied commit under
//!   the applier's lock: the image's CSN and LSN are the primary's (what
//!   the log it replays next carries), its rows are read at the local
//!   horizon of that same commit.
//!
//! ```text
//!   primary log   ..[T7 chunk][T7 commit][T8 commit]..      (lsn order)
//!                        │ stream              │
//!   replica log   ..[T7 chunk][T7 commit][T8 commit]..      flushed first
//!                        ▼ apply               ▼
//!   replica txns   local t41 (T7) → csn 900   local t42 (T8) → csn 901
//!   a reader at horizon 900 sees T7, not T8, until its next snapshot
//! ```
//!
//! Left out: DDL is applied to the catalog as it is met, not at the local
//! commit (a reader may see a new column or an emptied table a moment
//! before the transaction's rows); PostgreSQL takes AccessExclusive locks
//! on the standby instead, which cancel or block readers.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use nestor_common::{Csn, DbError, Lsn, RowId, SessionId, SqlState, Xid};
use nestor_storage::redo::{self, RedoOp};
use nestor_txn::{DataStore, Isolation, SnapshotSlot, Transaction};
use nestor_wal::{Record, RecordKind, Wal};

use crate::{apply_catalog, corrupt, table_for, wal_error, Cut, Engine};

/// What a replica has applied: the primary's CSN and the end LSN of its
/// last applied commit, and the largest primary XID seen (a promoted
/// replica's XIDs continue after it). Guarded by the engine's apply lock,
/// which a replica checkpoint takes for its cut.
#[derive(Clone, Copy, Debug, Default)]
pub struct Applied {
    pub csn: u64,
    pub lsn: Lsn,
    pub max_xid: u64,
}

/// Stream a base image (the checkpoint format, docs/durability.md §4) of
/// the primary into `out`. Returns the cut: the replica streams the WAL
/// from its LSN.
/// `on_cut` is told where the WAL must be kept from for the new replica:
/// first the log's end before the cut, then the cut. Transactions with
/// schema changes open for longer than CHECKPOINT_DDL_WAIT_MS make it fail
/// with 55006 (the replica tries again).
pub fn base_backup(
    engine: &Engine,
    out: &mut dyn Write,
    on_cut: impl Fn(Lsn),
) -> Result<(Csn, Lsn), DbError> {
    let Some(wal) = engine.db.log.wal() else {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            "base backup requested of a server without a WAL",
        ));
    };
    if engine.replication.in_recovery() {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            "recovery is in progress",
        )
        .with_hint("A replica cannot be the source of another replica's base image."));
    }
    // The WAL from here on is kept for the new replica before the cut is
    // taken: a checkpoint that has not seen this yet cut earlier, so it
    // removes nothing the image's position needs.
    on_cut(wal.next_lsn());
    let gate_wait = Duration::from_millis(nestor_common::limits::CHECKPOINT_DDL_WAIT_MS);
    let (slot, cut) = crate::take_cut(engine, Some(gate_wait), || wal.next_lsn())?;
    on_cut(cut.lsn);
    crate::write_image_to(out, &cut).map_err(|e| {
        DbError::new(
            SqlState::ConnectionException,
            format!("could not send base image: {e}"),
        )
    })?;
    drop(slot);
    Ok((cut.csn, cut.lsn))
}

/// A replica's cut for a checkpoint: under the apply lock, the last
/// applied commit (the primary's CSN and LSN) with the rows read at the
/// local horizon, which is that commit's.
pub(crate) fn replica_cut(engine: &Engine, slot: &SnapshotSlot) -> Cut {
    let applied = engine.applied.lock();
    let local = engine.txn.horizon();
    engine.txn.hold_horizon(slot, local);
    Cut {
        csn: Csn(applied.csn),
        read_csn: local,
        lsn: applied.lsn,
        next_xid: engine
            .txn
            .next_xid()
            .0
            .max(applied.max_xid.saturating_add(1)),
        next_oid: engine.catalog.next_oid(),
        ddl: engine
            .catalog
            .image()
            .iter()
            .map(nestor_catalog::CatalogRecord::encode)
            .collect(),
        sequences: engine.catalog.sequence_states().encode(),
        tables: engine.catalog.logged_storage(),
    }
}

/// XIDs a stream may carry: 64-bit XIDs never get near this, and a
/// promoted replica continues after the largest it saw.
const XID_MAX: u64 = 1 << 62;

/// Row ids a stream may name (2^40: a trillion rows per table).
const ROW_ID_MAX: u64 = 1 << 40;

/// A committed transaction received and not yet applied.
struct Ready {
    xid: u64,
    csn: u64,
    end: Lsn,
    redo: Vec<u8>,
}

/// A replica's applier: takes the records the walreceiver gets, appends
/// them to the local log, and once they are durable applies each committed
/// transaction as a local one. Single-threaded (the walreceiver's).
pub struct Applier {
    engine: Arc<Engine>,
    wal: Arc<Wal>,
    slot: Arc<SnapshotSlot>,
    /// Records received since the last flush, encoded, from `batch_start`.
    batch: Vec<u8>,
    batch_start: Lsn,
    batch_records: u64,
    batch_csn: u64,
    batch_files: Vec<(Lsn, Xid, u64)>,
    /// The transaction being assembled from chunks.
    pending: Vec<u8>,
    pending_xid: u64,
    /// `pending` as of the last flush: what a reconnect, which resumes
    /// after the flushed records, goes back to (a copy only while a
    /// transaction's chunks straddle a flush).
    pending_flushed: (u64, Vec<u8>),
    /// The redo file being received, if any.
    redo_in: Option<nestor_wal::RedoFileWriter>,
    /// A committed transaction could not be applied: the replica stops
    /// replaying (it must not skip a commit) and says why.
    broken: Option<String>,
    ready: Vec<Ready>,
    max_xid: u64,
}

impl Applier {
    /// The applier of a replica engine (its log set apply-only by
    /// recovery).
    pub fn new(engine: Arc<Engine>) -> Result<Applier, DbError> {
        let wal = engine.db.log.wal().ok_or_else(|| {
            DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                "replica applier started before recovery",
            )
        })?;
        let start = wal.flush();
        let slot = engine.txn.register_slot();
        let applied = *engine.applied.lock();
        // The local log may end inside a transaction: its chunks after the
        // last applied commit are read back, so the rest of it, which the
        // primary sends from the end of the log, completes it.
        let dir = crate::wal_dir(&engine.config.data_dir);
        let mut pending = Vec::new();
        let mut pending_xid = 0;
        let mut max_xid = applied.max_xid;
        let mut reader = nestor_wal::LogReader::new(&dir, applied.lsn).map_err(wal_error)?;
        while let Some((rec, _)) = reader.next(start).map_err(wal_error)? {
            if rec.xid != pending_xid {
                pending.clear();
                pending_xid = rec.xid;
            }
            max_xid = max_xid.max(rec.xid);
            if rec.kind != RecordKind::TxnChunk {
                // Only chunks can follow the last applied commit.
                return Err(corrupt(format!(
                    "the replica's log has a commit at {} after the last applied one at {}",
                    rec.lsn.pg_text(),
                    applied.lsn.pg_text()
                )));
            }
            pending.extend_from_slice(&rec.payload);
        }
        Ok(Applier {
            engine,
            wal,
            slot,
            batch: Vec::new(),
            batch_start: start,
            batch_records: 0,
            batch_csn: 0,
            batch_files: Vec::new(),
            pending_flushed: (pending_xid, pending.clone()),
            pending,
            pending_xid,
            ready: Vec::new(),
            max_xid,
            redo_in: None,
            broken: None,
        })
    }

    /// Where the next record must start (the end of what was received).
    pub fn end_lsn(&self) -> Lsn {
        self.batch_start.advance(self.batch.len() as u64)
    }

    /// Bytes received and not yet flushed.
    pub fn unflushed_bytes(&self) -> usize {
        self.batch.len()
    }

    /// A piece of the redo file of transaction `xid` (`total` bytes, this
    /// piece at `offset`), sent before its `TxnFile` record: written to
    /// disk as it comes, durable under its name once complete. A file
    /// larger than the redo file limit (`--txn-redo-file-max`) is refused.
    pub fn redo_piece(
        &mut self,
        xid: Xid,
        total: u64,
        offset: u64,
        bytes: &[u8],
    ) -> Result<(), DbError> {
        if offset == 0 {
            if total > nestor_common::limits::txn_redo_file_bytes_max() {
                return Err(stream_error(format!(
                    "the redo file of transaction {} has {total} bytes, more than this replica's --txn-redo-file-max",
                    xid.0
                )));
            }
            let dir = crate::wal_dir(&self.engine.config.data_dir);
            self.redo_in =
                Some(nestor_wal::RedoFileWriter::create(&dir, xid, total).map_err(wal_error)?);
        }
        let w = self
            .redo_in
            .as_mut()
            .filter(|w| w.xid() == xid && w.written() == offset)
            .ok_or_else(|| stream_error("redo file pieces out of order".into()))?;
        if w.piece(bytes).map_err(wal_error)? {
            self.redo_in = None;
        }
        Ok(())
    }

    /// One record as received, starting at `start`: checked (checksum, the
    /// LSN it carries, continuity) and added to the batch.
    pub fn record(&mut self, start: Lsn, bytes: &[u8]) -> Result<(), DbError> {
        if start != self.end_lsn() {
            return Err(stream_error(format!(
                "record at {} does not continue the log at {}",
                start.pg_text(),
                self.end_lsn().pg_text()
            )));
        }
        let rec = nestor_wal::record::decode(bytes, start)
            .map_err(|e| stream_error(format!("damaged record at {}: {e:?}", start.pg_text())))?;
        if rec.len() != bytes.len() {
            return Err(stream_error(format!(
                "record at {} has {} bytes, its message {}",
                start.pg_text(),
                rec.len(),
                bytes.len()
            )));
        }
        if rec.xid == 0 || rec.xid > XID_MAX {
            return Err(stream_error(format!(
                "record at {} names transaction {}",
                start.pg_text(),
                rec.xid
            )));
        }
        let end = start.advance(bytes.len() as u64);
        self.batch.extend_from_slice(bytes);
        self.batch_records += 1;
        self.batch_csn = self.batch_csn.max(rec.csn);
        self.max_xid = self.max_xid.max(rec.xid);
        self.assemble(rec, end)
    }

    /// Collect a transaction's records until its commit (recovery's rule:
    /// chunks of a transaction without a commit are dropped).
    fn assemble(&mut self, rec: Record, end: Lsn) -> Result<(), DbError> {
        if rec.xid != self.pending_xid {
            self.pending.clear();
            self.pending_xid = rec.xid;
        }
        match rec.kind {
            RecordKind::TxnChunk => self.pending.extend_from_slice(&rec.payload),
            RecordKind::TxnCommit => {
                self.pending.extend_from_slice(&rec.payload);
                self.ready.push(Ready {
                    xid: rec.xid,
                    csn: rec.csn,
                    end,
                    redo: std::mem::take(&mut self.pending),
                });
            }
            RecordKind::TxnFile => {
                let dir = crate::wal_dir(&self.engine.config.data_dir);
                let redo = nestor_wal::read_redo_file(&dir, &rec)
                    .map_err(|why| stream_error(format!("transaction {}: {why}", rec.xid)))?;
                self.batch_files
                    .push((rec.lsn, Xid(rec.xid), redo.len() as u64));
                self.pending.clear();
                self.ready.push(Ready {
                    xid: rec.xid,
                    csn: rec.csn,
                    end,
                    redo,
                });
            }
        }
        Ok(())
    }

    /// Make the batch durable in the local log, then apply every complete
    /// transaction in it. Returns the end of the log (written = flushed).
    pub fn flush(&mut self) -> Result<Lsn, DbError> {
        if !self.batch.is_empty() {
            self.wal.append_raw(
                self.batch_start,
                &self.batch,
                self.batch_records,
                self.batch_csn,
                &self.batch_files,
            );
            let end = self.wal.flush();
            debug_assert_eq!(end, self.end_lsn());
            self.batch.clear();
            self.batch_files.clear();
            self.batch_records = 0;
            self.batch_start = end;
            self.engine.replication.set_receive_lsn(end);
            // XIDs of transactions whose chunks are in the log but whose
            // commit is not (the primary may die mid-transaction) count
            // too: a promoted replica must never hand one out again.
            let mut applied = self.engine.applied.lock();
            applied.max_xid = applied.max_xid.max(self.max_xid);
        }
        self.pending_flushed = (self.pending_xid, self.pending.clone());
        if let Some(why) = &self.broken {
            return Err(corrupt(why.clone()));
        }
        for t in std::mem::take(&mut self.ready) {
            if let Err(e) = self.apply(t) {
                // Flushed and not applied: replaying on would skip it.
                self.broken = Some(e.message.clone());
                return Err(e);
            }
        }
        Ok(self.batch_start)
    }

    /// The connection broke: drop what was received after the last flush
    /// (the primary sends it again from the end of the local log).
    pub fn forget_unflushed(&mut self) {
        self.batch.clear();
        self.batch_files.clear();
        self.batch_records = 0;
        self.batch_csn = 0;
        self.ready.clear();
        self.redo_in = None;
        self.pending_xid = self.pending_flushed.0;
        self.pending = self.pending_flushed.1.clone();
    }

    /// Why replay stopped, if it did.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }

    /// Apply one committed transaction of the primary as a local one.
    fn apply(&mut self, t: Ready) -> Result<(), DbError> {
        let engine = &self.engine;
        let ops = redo::decode_ops(&t.redo)
            .map_err(|e| corrupt(format!("transaction {}: {e}", t.xid)))?;
        let mut applied = engine.applied.lock();
        if t.csn <= applied.csn {
            return Err(corrupt(format!(
                "replicated commit of transaction {} has csn {} after csn {}: the stream is not its primary's commit order",
                t.xid, t.csn, applied.csn
            )));
        }
        let store: Arc<dyn DataStore> = engine.store.clone();
        let mut txn = Transaction::begin(
            engine.txn.clone(),
            store,
            self.slot.clone(),
            SessionId(0),
            Isolation::ReadCommitted,
        );
        txn.set_replay();
        for op in ops {
            match op {
                RedoOp::Put { rel, row, stored } => {
                    let table = table_for(engine, rel)?;
                    // Row ids of rolled-back inserts are never reused, so
                    // a commit may name ids well past the table's count;
                    // only an absurd one is refused (the table would
                    // allocate slots up to it).
                    if row.0 >= ROW_ID_MAX {
                        return Err(corrupt(format!(
                            "replicated transaction {} writes row {} of relation {rel}",
                            t.xid, row.0
                        )));
                    }
                    table
                        .apply_put(&mut txn, row, stored)
                        .map_err(|e| apply_failed(t.xid, rel.0, row, e))?
                }
                RedoOp::Delete { rel, row } => table_for(engine, rel)?
                    .apply_delete(&mut txn, row)
                    .map_err(|e| apply_failed(t.xid, rel.0, row, e))?,
                RedoOp::Ddl(bytes) => apply_catalog(engine, &bytes)?,
            }
        }
        txn.commit();
        *applied = Applied {
            csn: t.csn,
            lsn: t.end,
            max_xid: self.max_xid,
        };
        drop(applied);
        let repl = &engine.replication;
        repl.set_replay_lsn(t.end);
        repl.set_replay_time_us(nestor_types::context::system_now());
        Ok(())
    }
}

/// A replica whose primary no longer has the WAL it needs starts over
/// from a new base image (`DIR/checkpoint.new`, copied by the
/// walreceiver), without a restart and without stopping its readers:
///
/// 1. the image becomes the replica's checkpoint (renamed into place,
///    durably): from here a crash recovers the new state;
/// 2. the local log restarts empty at the image's LSN (old segments and
///    redo files removed) and replaces the old one in the SwitchLog;
/// 3. the in-memory state is made equal to the image as **one local
///    transaction**: every row of the image is put, every live row the
///    image lacks is deleted, objects it lacks are dropped. Readers keep
///    the old state until that commit, then see the new one at once
///    (DDL differences apply as met, as in replay).
///
/// Holds the checkpoint lock throughout, so no checkpoint cuts in the
/// middle. Returns the LSN streaming resumes from.
pub fn resync(engine: &Engine, image: &std::path::Path) -> Result<Lsn, DbError> {
    let _no_checkpoint = engine.checkpoint_lock.lock();
    let ck = crate::read_checkpoint(image)?.ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedFile,
            format!("base image \"{}\" is missing", image.display()),
        )
    })?;
    let dir = &engine.config.data_dir;
    let path = dir.join("checkpoint");
    std::fs::rename(image, &path).map_err(|e| crate::io_error(&path, e))?;
    nestor_wal::sync_dir(dir).map_err(wal_error)?;
    // 2. A new, empty local log at the image's position.
    let wal_dir = crate::wal_dir(dir);
    if let Some(old) = engine.db.log.wal() {
        old.flush();
    }
    for entry in std::fs::read_dir(&wal_dir).map_err(|e| crate::io_error(&wal_dir, e))? {
        let p = entry.map_err(|e| crate::io_error(&wal_dir, e))?.path();
        if p.extension().is_some_and(|x| x == "wal" || x == "redo") {
            std::fs::remove_file(&p).map_err(|e| crate::io_error(&p, e))?;
        }
    }
    nestor_wal::sync_dir(&wal_dir).map_err(wal_error)?;
    let wal = Wal::open(&wal_dir, ck.lsn, ck.csn, nestor_wal::SEGMENT_BYTES_DEFAULT)
        .map_err(wal_error)?;
    wal.set_redo_memory_bytes_max(engine.config.txn_redo_memory_bytes_max);
    engine.db.log.set_apply_only(Arc::new(wal));
    // 3. The state, as one local transaction.
    let mut applied = engine.applied.lock();
    // What the new image holds, by (database, name or OID); the local
    // objects it does not hold are dropped first (whole databases last).
    use nestor_catalog::CatalogRecord as R;
    let mut keep_tables = std::collections::HashSet::new();
    let mut keep_sequences = std::collections::HashSet::new();
    let mut keep_functions = std::collections::HashSet::new();
    let mut keep_databases = std::collections::HashSet::new();
    for bytes in &ck.ddl {
        let rec = R::decode(bytes).map_err(corrupt)?;
        if let R::PutDatabase(d) = &rec {
            keep_databases.insert(d.oid.0);
        }
        match in_database(rec) {
            (db, R::PutTable(t)) => keep_tables.insert((db, t.name)),
            (db, R::PutSequence(q)) => keep_sequences.insert((db, q.name)),
            (db, R::PutFunction(f)) => keep_functions.insert((db, f.oid)),
            _ => false,
        };
    }
    let mut drop_databases = Vec::new();
    for rec in engine.catalog.image() {
        if let R::PutDatabase(d) = &rec {
            if !keep_databases.contains(&d.oid.0) {
                drop_databases.push(R::DropDatabase { oid: d.oid });
            }
            continue;
        }
        let (db, rec) = in_database(rec);
        let drop = match rec {
            R::PutTable(t) if !keep_tables.contains(&(db, t.name.clone())) => {
                Some(R::DropTable { name: t.name })
            }
            R::PutSequence(q) if !keep_sequences.contains(&(db, q.name.clone())) => {
                Some(R::DropSequence { name: q.name })
            }
            R::PutFunction(f) if !keep_functions.contains(&(db, f.oid)) => Some(R::DropFunction {
                name: f.name,
                oid: f.oid,
            }),
            _ => None,
        };
        if let Some(d) = drop {
            let d = match db {
                nestor_catalog::POSTGRES_DATABASE_OID => d,
                database => R::InDatabase {
                    database,
                    record: Box::new(d),
                },
            };
            apply_catalog(engine, &d.encode())?;
        }
    }
    for d in drop_databases {
        apply_catalog(engine, &d.encode())?;
    }
    for bytes in &ck.ddl {
        apply_catalog(engine, bytes)?;
    }
    apply_catalog(engine, &ck.sequences)?;
    engine.catalog.ensure_next_oid(ck.next_oid);
    let slot = engine.txn.register_slot();
    let store: Arc<dyn DataStore> = engine.store.clone();
    let mut txn = Transaction::begin(
        engine.txn.clone(),
        store,
        slot,
        SessionId(0),
        Isolation::ReadCommitted,
    );
    txn.set_replay();
    let now = engine.txn.horizon();
    for (rel, row_ids, rows) in ck.tables {
        let t = table_for(engine, rel)?;
        t.reserve_row_ids(row_ids);
        let snap = nestor_txn::Snapshot {
            horizon: now,
            own: Xid::NONE,
            cid: nestor_common::CommandId(0),
            ssi: None,
        };
        let mut live = Vec::new();
        t.for_each_stored(&snap, |row, _| {
            live.push(row);
            Ok::<(), ()>(())
        })
        .expect("collecting row ids cannot fail");
        let present: std::collections::HashSet<RowId> = rows.iter().map(|r| r.0).collect();
        for row in live.into_iter().filter(|r| !present.contains(r)) {
            t.apply_delete(&mut txn, row)
                .map_err(|e| apply_failed(0, rel.0, row, e))?;
        }
        for (row, stored) in rows {
            t.apply_put(&mut txn, row, stored)
                .map_err(|e| apply_failed(0, rel.0, row, e))?;
        }
    }
    txn.commit();
    *applied = Applied {
        csn: ck.csn,
        lsn: ck.lsn,
        max_xid: applied.max_xid.max(ck.next_xid.saturating_sub(1)),
    };
    drop(applied);
    engine.note_checkpoint(ck.lsn);
    let repl = &engine.replication;
    repl.set_receive_lsn(ck.lsn);
    repl.set_replay_lsn(ck.lsn);
    Ok(ck.lsn)
}

fn apply_failed(xid: u64, rel: u32, row: RowId, e: nestor_storage::StorageError) -> DbError {
    corrupt(format!(
        "replicated transaction {xid} could not be applied to relation {rel} row {}: {e:?}",
        row.0
    ))
}

fn stream_error(message: String) -> DbError {
    DbError::new(SqlState::ProtocolViolation, message)
}

/// A catalog record and the database it applies in (`postgres` unless
/// wrapped in `InDatabase`).
fn in_database(rec: nestor_catalog::CatalogRecord) -> (u32, nestor_catalog::CatalogRecord) {
    match rec {
        nestor_catalog::CatalogRecord::InDatabase { database, record } => (database, *record),
        rec => (nestor_catalog::POSTGRES_DATABASE_OID, rec),
    }
}
