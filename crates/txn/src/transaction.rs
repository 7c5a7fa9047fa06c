//! One transaction: its lazily assigned XID, command ids, snapshot policy,
//! private undo log and savepoint marks.
//!
//! A savepoint is not a transaction. It is a *mark*: the undo log's length
//! when the savepoint was defined, plus its name.
//!
//! ```text
//!   BEGIN; INSERT r1; SAVEPOINT a; UPDATE r2; SELECT r3 FOR UPDATE;
//!          SAVEPOINT b; DELETE r1;
//!
//!   undo log: [0 Insert r1] [1 Lock r2 (none)] [2 Update r2]
//!             [3 Lock r3 (none)] [4 Lock r1 (none)] [5 Delete r1]
//!   marks:    a -> 1, b -> 4
//!
//!   ROLLBACK TO a: undo 5..1 newest first (restore r1, release r1's lock,
//!                  release r3, drop r2's new version, release r2),
//!                  truncate the log to 1, drop marks above a, keep a.
//!   RELEASE a:     drop marks a and b; the log stays (the writes now
//!                  belong to the enclosing level). O(1).
//! ```
//!
//! Every write keeps the top-level XID; no other session can tell a row was
//! written inside a savepoint. Defining a savepoint costs one `Vec::push`;
//! nothing shared grows. Rolling back costs the work undone. The XID is
//! assigned on the first write or row lock, so read-only transactions and
//! savepoints never consume XIDs.

use std::sync::Arc;

use nestor_common::limits;
use nestor_common::{CommandId, Csn, RelId, RowId, SavepointLevel, SessionId, Xid};

use crate::error::TxnError;
use crate::locks::{Acquired, LockKey, LockMode, Owner, WaitCtl, WaitPolicy};
use crate::manager::{SnapshotSlot, TxnManager};
use crate::ssi::SsiHandle;
use crate::visibility::Snapshot;

/// Isolation level of a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// A new snapshot for every statement.
    ReadCommitted,
    /// One snapshot, taken by the first statement.
    RepeatableRead,
    /// REPEATABLE READ plus rw-conflict tracking ([`crate::ssi`]).
    Serializable,
}

impl Isolation {
    /// One snapshot for the whole transaction (REPEATABLE READ and
    /// SERIALIZABLE): a row changed after it fails with 40001.
    pub fn uses_transaction_snapshot(self) -> bool {
        self != Isolation::ReadCommitted
    }
}

/// Undo of a schema change, supplied by the catalog.
pub trait DdlUndo: Send + Sync + std::fmt::Debug {
    /// Revert the change (transaction or savepoint rolled back).
    fn undo(&self);
    /// The transaction committed; finalize (e.g. free a dropped table).
    fn commit(&self) {}
    /// The change's redo for the WAL (replayed by the catalog at
    /// recovery), or None for a change that needs none.
    fn redo(&self) -> Option<Vec<u8>> {
        None
    }
}

/// A data change as the undo log records it: ids only. The storage layer
/// (a [`DataStore`]) knows how to revert and stamp each.
#[derive(Clone, Debug)]
pub enum DataUndo {
    /// A new row (one own version).
    Insert { rel: RelId, row: RowId },
    /// A new own version on top of an older one (which got xmax = us).
    Update { rel: RelId, row: RowId },
    /// The newest version got xmax = us.
    Delete { rel: RelId, row: RowId },
    /// A schema change.
    Ddl(Arc<dyn DdlUndo>),
}

/// One undo-log entry.
#[derive(Clone, Debug)]
pub enum UndoEntry {
    /// A lock acquisition or upgrade, with what was held before.
    Lock {
        key: LockKey,
        prev: Option<(LockMode, SavepointLevel)>,
    },
    /// A relation lock taken or strengthened, with the modes the session
    /// held on it before (so ROLLBACK TO gives back what the savepoint
    /// took, as PostgreSQL's subtransaction abort does).
    RelationLock {
        rel: u32,
        prev: crate::relation_locks::TableModes,
    },
    Data(DataUndo),
}

/// What the transaction manager needs from storage.
pub trait DataStore: Send + Sync {
    /// Revert one change made by `xid` (newest first).
    fn undo(&self, xid: Xid, change: &DataUndo);
    /// Stamp `csn` into the headers of the versions written by `change`.
    fn stamp(&self, xid: Xid, csn: Csn, change: &DataUndo);
    /// Write the redo of the transaction's surviving changes to `out`
    /// (handed to the commit log before the commit becomes visible).
    fn redo(&self, _xid: Xid, _changes: &[UndoEntry], _out: &mut dyn crate::manager::RedoBuffer) {}
}

#[derive(Debug)]
struct Mark {
    name: Box<str>,
    undo_len: usize,
}

/// Per-transaction savepoint counters (pg_stat_get_backend_subxact spirit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SavepointStats {
    pub depth: usize,
    pub defined: u64,
    pub rollbacks_to: u64,
}

pub struct Transaction {
    mgr: Arc<TxnManager>,
    store: Arc<dyn DataStore>,
    slot: Arc<SnapshotSlot>,
    session: SessionId,
    xid: Xid,
    isolation: Isolation,
    /// The command id of the statement in progress.
    cid: CommandId,
    /// Commands started so far (the next statement gets this id).
    next_cid: u32,
    /// REPEATABLE READ: the snapshot horizon, once taken.
    fixed_horizon: Option<Csn>,
    undo: Vec<UndoEntry>,
    /// Locks held in the lock table (undo entries that took a lock anew),
    /// for limits::txn_locks_max.
    locks: usize,
    /// Undo entries of relation locks (not counted against
    /// limits::txn_undo_entries_max).
    relation_undo: usize,
    /// Rows written so far, in bytes (an upper bound of the redo), for
    /// limits::txn_redo_file_bytes_max.
    written_bytes: u64,
    /// Bytes of the undo log counted in the memory budget's "undo logs"
    /// (brought up to date at each statement's start and at the end).
    undo_accounted: usize,
    marks: Vec<Mark>,
    stats: SavepointStats,
    /// synchronous_commit: wait for the WAL flush before acknowledging.
    synchronous_commit: bool,
    /// SERIALIZABLE: the transaction's SSI entry, once its snapshot is
    /// taken (none for a read-only one whose snapshot is safe).
    ssi: Option<SsiHandle>,
    /// Declared READ ONLY / DEFERRABLE (what SSI's read-only optimisations
    /// go by).
    read_only: bool,
    deferrable: bool,
    ended: bool,
    /// A replica's applier replaying a committed transaction: the
    /// per-transaction limits were the primary's to enforce.
    replay: bool,
    /// The highest CSN of a commit this transaction read through a row
    /// lock (the newest version of a row it locked), possibly one whose
    /// locks were released before it became visible (early lock release,
    /// docs/transactions.md §"Early lock release"): its later snapshots
    /// see at least that far, so it never reads a row it locked as newer
    /// than the rest of the database.
    seen: Csn,
}

impl Transaction {
    /// Start a transaction for `session`, whose snapshot slot is `slot`.
    pub fn begin(
        mgr: Arc<TxnManager>,
        store: Arc<dyn DataStore>,
        slot: Arc<SnapshotSlot>,
        session: SessionId,
        isolation: Isolation,
    ) -> Transaction {
        Transaction {
            mgr,
            store,
            slot,
            session,
            xid: Xid::NONE,
            isolation,
            cid: CommandId(0),
            next_cid: 0,
            fixed_horizon: None,
            undo: Vec::new(),
            locks: 0,
            relation_undo: 0,
            written_bytes: 0,
            undo_accounted: 0,
            marks: Vec::new(),
            stats: SavepointStats::default(),
            synchronous_commit: true,
            ssi: None,
            read_only: false,
            deferrable: false,
            ended: false,
            replay: false,
            seen: Csn::NONE,
        }
    }

    /// Mark this transaction as a replica's replay of a commit (no undo
    /// limit: what the primary committed must apply).
    pub fn set_replay(&mut self) {
        self.replay = true;
    }

    /// READ ONLY and DEFERRABLE as declared (BEGIN / SET TRANSACTION,
    /// before the first statement).
    pub fn set_access(&mut self, read_only: bool, deferrable: bool) {
        self.read_only = read_only;
        self.deferrable = deferrable;
    }

    /// The SSI entry, if the transaction is SERIALIZABLE and tracked.
    pub fn ssi(&self) -> Option<&SsiHandle> {
        self.ssi.as_ref()
    }

    /// SERIALIZABLE: fail now if another transaction doomed this one, or a
    /// read of its own found it must fail. `context` names where, in
    /// PostgreSQL's reason codes ("conflict out checking").
    pub fn check_serializable(&self, context: &str) -> Result<(), TxnError> {
        match &self.ssi {
            Some(h) if h.needs_check() => match self.mgr.ssi.failure_of(h.id, context) {
                Some(e) => Err(e),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// SERIALIZABLE: a write to heap relation `rel` is in place: a new row
    /// (None), or an update or delete of the version of a row created by an
    /// XID; rw-conflicts in from its readers.
    pub fn ssi_write_heap(
        &self,
        rel: RelId,
        version: Option<(RowId, Xid)>,
    ) -> Result<(), TxnError> {
        match &self.ssi {
            Some(h) => self.mgr.ssi.check_write_heap(h.id, rel, version),
            None => Ok(()),
        }
    }

    /// SERIALIZABLE: an entry was added to `index`.
    pub fn ssi_write_index(
        &self,
        index: RelId,
        entry: &[u8],
        prefix_ends: &[usize],
    ) -> Result<(), TxnError> {
        match &self.ssi {
            Some(h) => self
                .mgr
                .ssi
                .check_write_index(h.id, index, entry, prefix_ends),
            None => Ok(()),
        }
    }

    /// SERIALIZABLE: TRUNCATE or DROP of these relations (a table and its
    /// indexes) conflicts with every read of them.
    pub fn ssi_write_table(&self, rels: &[RelId]) -> Result<(), TxnError> {
        match &self.ssi {
            Some(h) => self.mgr.ssi.check_write_table(h.id, rels),
            None => Ok(()),
        }
    }

    pub fn manager(&self) -> &Arc<TxnManager> {
        &self.mgr
    }

    /// The XID, or `Xid::NONE` if none has been assigned yet.
    pub fn xid(&self) -> Xid {
        self.xid
    }

    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// Change the isolation level (SET TRANSACTION, before the first
    /// statement took a snapshot).
    pub fn set_isolation(&mut self, isolation: Isolation) {
        self.isolation = isolation;
    }

    /// synchronous_commit for this transaction's COMMIT: off acknowledges
    /// before the WAL flush (it may be lost in a crash, as in PostgreSQL;
    /// visibility still follows commit order).
    pub fn set_synchronous_commit(&mut self, on: bool) {
        self.synchronous_commit = on;
    }

    /// Whether the next statement reuses the transaction's snapshot
    /// (REPEATABLE READ and SERIALIZABLE after their first statement).
    pub fn reuses_snapshot(&self) -> bool {
        self.fixed_horizon.is_some()
    }

    /// Whether a snapshot has been taken (SET TRANSACTION ISOLATION LEVEL
    /// must come before any query, as in PostgreSQL).
    pub fn has_snapshot(&self) -> bool {
        self.next_cid > 0
    }

    /// The XID, assigning one on first use (first write or row lock). The
    /// transaction then holds its own `Txn(xid)` lock until it ends, which is
    /// what others wait on.
    pub fn assign_xid(&mut self) -> Xid {
        if self.xid.is_none() {
            let xid = self.mgr.assign_xid();
            self.xid = xid;
            let owner = self.owner();
            let got = self.mgr.locks.acquire(
                owner,
                LockKey::Txn(xid),
                LockMode::Update,
                WaitPolicy::NoWait,
                &WaitCtl::unbounded(),
                &|| String::new(),
            );
            assert!(
                matches!(got, Ok(Acquired::Granted { prev: None })),
                "fresh xid lock must be free"
            );
            if let Some(h) = &self.ssi {
                self.mgr.ssi.set_xid(h.id, xid);
            }
        }
        self.xid
    }

    fn owner(&self) -> Owner {
        Owner {
            xid: self.xid,
            session: self.session,
            level: self.level(),
        }
    }

    /// Current savepoint nesting level (0 = top level).
    pub fn level(&self) -> SavepointLevel {
        SavepointLevel(self.marks.len() as u32)
    }

    /// Start a statement: the next command id and a snapshot (a new one per
    /// statement under READ COMMITTED, the first one under REPEATABLE READ).
    pub fn start_statement(&mut self) -> Result<Snapshot, TxnError> {
        self.start_statement_with(&WaitCtl::unbounded())
    }

    /// [`Self::start_statement`]; `ctl` bounds the wait of a SERIALIZABLE
    /// READ ONLY DEFERRABLE transaction for a safe snapshot.
    pub fn start_statement_with(&mut self, ctl: &WaitCtl<'_>) -> Result<Snapshot, TxnError> {
        if self.next_cid == u32::MAX {
            return Err(TxnError::UndoLogFull {
                max: u32::MAX as usize,
            });
        }
        let horizon = match (self.isolation, self.fixed_horizon) {
            (Isolation::ReadCommitted, _) => self.mgr.take_horizon(&self.slot).max(self.seen),
            (_, Some(h)) => h,
            (Isolation::RepeatableRead, None) => {
                let h = self.mgr.take_horizon(&self.slot);
                self.fixed_horizon = Some(h);
                h
            }
            (Isolation::Serializable, None) => {
                let (mgr, slot) = (&self.mgr, &self.slot);
                let (h, handle) = mgr.ssi.begin(
                    self.session,
                    self.read_only,
                    self.deferrable,
                    &|| mgr.take_horizon(slot),
                    ctl,
                )?;
                if let (Some(hd), false) = (&handle, self.xid.is_none()) {
                    mgr.ssi.set_xid(hd.id, self.xid);
                }
                self.ssi = handle;
                self.fixed_horizon = Some(h);
                h
            }
        };
        self.cid = CommandId(self.next_cid);
        self.next_cid += 1;
        self.account_undo(self.undo.capacity() * std::mem::size_of::<UndoEntry>());
        Ok(self.snapshot_at(horizon))
    }

    /// Count `bytes` of undo log in the memory budget (instead of what was
    /// counted before): twice per statement, not per entry.
    fn account_undo(&mut self, bytes: usize) {
        if bytes != self.undo_accounted {
            nestor_common::memory::add(
                nestor_common::memory::Category::UndoLogs,
                bytes as i64 - self.undo_accounted as i64,
            );
            self.undo_accounted = bytes;
        }
    }

    /// A snapshot at `horizon` for the current command, with the current xid.
    pub(crate) fn snapshot_at(&self, horizon: Csn) -> Snapshot {
        Snapshot {
            horizon,
            own: self.xid,
            cid: self.cid,
            ssi: self.ssi.as_ref().map(|h| h.id),
        }
    }

    /// A fresh snapshot for the current command without starting a new one
    /// (READ COMMITTED re-check of a row changed concurrently, ON
    /// CONFLICT's look at the newest version). It takes no predicate locks,
    /// as PostgreSQL's non-MVCC snapshots take none.
    pub fn latest_snapshot(&self) -> Snapshot {
        Snapshot {
            ssi: None,
            ..self.snapshot_at(self.mgr.newer_horizon(&self.slot).max(self.seen))
        }
    }

    /// Storage found, under this transaction's row lock, a version written
    /// or deleted by the commit at `csn` (which may not be visible to new
    /// snapshots yet: its committer released its row locks early). The
    /// transaction's later READ COMMITTED snapshots include it.
    pub fn note_commit_seen(&mut self, csn: Csn) {
        if csn > self.seen {
            self.seen = csn;
        }
    }

    /// Back to the command id of a statement that ran others inside it (a
    /// function's statements are commands of their own; the calling
    /// statement's writes keep its id).
    pub fn restore_command(&mut self, cid: CommandId) {
        assert!(cid.0 < self.next_cid, "restoring a command not started");
        self.cid = cid;
    }

    /// The command id writes of the current statement are stamped with.
    pub fn cid(&self) -> CommandId {
        self.cid
    }

    /// Record a data change for undo (and redo, at commit).
    pub fn push_undo(&mut self, change: DataUndo) -> Result<(), TxnError> {
        assert!(!self.xid.is_none(), "a write needs an xid");
        self.push(UndoEntry::Data(change))
    }

    /// The change has been made: record it even past the limit, so that
    /// the failing statement's undo reverts it, and then fail.
    fn push(&mut self, entry: UndoEntry) -> Result<(), TxnError> {
        self.undo.push(entry);
        let max = limits::txn_undo_entries_max();
        if self.undo.len() - self.relation_undo > max && !self.replay {
            return Err(TxnError::UndoLogFull { max });
        }
        Ok(())
    }

    fn check_undo_room(&self) -> Result<(), TxnError> {
        let max = limits::txn_undo_entries_max();
        // Relation-lock entries are bounded by the relations' count
        // (txn_locks_max) and are not rows written or locked.
        if self.undo.len() - self.relation_undo >= max {
            return Err(TxnError::UndoLogFull { max });
        }
        Ok(())
    }

    /// Count `bytes` of row data written against the redo file limit
    /// (limits::txn_redo_file_bytes_max): an upper bound of what the
    /// commit's redo will hold, so the statement that would make the redo
    /// file too large fails before anything is written to disk.
    pub fn note_written(&mut self, bytes: u64) -> Result<(), TxnError> {
        let max = limits::txn_redo_file_bytes_max();
        let total = self.written_bytes.saturating_add(bytes);
        if total > max {
            return Err(TxnError::RedoFileFull { max });
        }
        self.written_bytes = total;
        Ok(())
    }

    /// Lock `key` in `mode` (assigning the XID). Upgrades of a lock the
    /// transaction already holds happen in place.
    pub fn lock(
        &mut self,
        key: LockKey,
        mode: LockMode,
        policy: WaitPolicy,
        ctl: &WaitCtl<'_>,
        what: &dyn Fn() -> String,
    ) -> Result<Acquired, TxnError> {
        self.assign_xid();
        self.check_undo_room()?;
        let got = self
            .mgr
            .locks
            .acquire(self.owner(), key, mode, policy, ctl, what)?;
        if let Acquired::Granted { prev } = got {
            if matches!(key, LockKey::Row(..)) {
                // The lock may have been released early by a commit not yet
                // visible: what it did is ours to see (a child row it
                // inserted under a key-share lock, the version it wrote).
                self.note_commit_seen(self.mgr.sequenced());
            }
            if prev.is_none() {
                let max = limits::txn_locks_max();
                if self.locks >= max {
                    self.mgr.locks.release(self.xid, key);
                    return Err(TxnError::TooManyLocks { max });
                }
                self.locks += 1;
            }
            self.undo.push(UndoEntry::Lock { key, prev });
        }
        Ok(got)
    }

    /// Lock relation `rel` in `mode` until the transaction ends (see
    /// [`crate::relation_locks`]). No XID is needed: the session owns it.
    pub fn lock_relation(
        &mut self,
        rel: u32,
        mode: crate::relation_locks::TableLockMode,
        policy: WaitPolicy,
        ctl: &WaitCtl<'_>,
        what: &dyn Fn() -> String,
    ) -> Result<crate::relation_locks::RelationLocked, TxnError> {
        let (got, prev) =
            self.mgr
                .lock_relation(self.session, &self.slot, rel, mode, policy, ctl, what)?;
        if got != crate::relation_locks::RelationLocked::AlreadyHeld {
            self.undo.push(UndoEntry::RelationLock { rel, prev });
            self.relation_undo += 1;
        }
        Ok(got)
    }

    /// Give back the lock on `key` if the most recent undo entry took it (a
    /// row skipped after its re-check must not stay locked).
    pub fn undo_last_lock(&mut self, key: LockKey) {
        if let Some(UndoEntry::Lock { key: k, prev }) = self.undo.last() {
            if *k == key {
                let prev = *prev;
                self.undo.pop();
                self.locks -= usize::from(prev.is_none());
                self.mgr.locks.restore(self.xid, key, prev);
            }
        }
    }

    /// Wait until transaction `other` ends or rolls back to a savepoint
    /// (unique-key conflicts; the caller re-checks).
    /// `seen_undos` is the lock table's [`LockTable::undos`] read before
    /// the conflict was found.
    pub fn wait_for(
        &mut self,
        other: Xid,
        seen_undos: u64,
        ctl: &WaitCtl<'_>,
    ) -> Result<(), TxnError> {
        self.assign_xid();
        assert_ne!(other, self.xid, "a transaction never waits for itself");
        self.mgr
            .locks
            .wait_for_txn(self.owner(), other, seen_undos, ctl)
    }

    /// SAVEPOINT name.
    pub fn savepoint(&mut self, name: &str) -> Result<(), TxnError> {
        let max = limits::savepoint_depth_max();
        if self.marks.len() >= max {
            return Err(TxnError::SavepointDepthExceeded { max });
        }
        self.marks.push(Mark {
            name: name.into(),
            undo_len: self.undo.len(),
        });
        self.stats.defined += 1;
        Ok(())
    }

    fn find_mark(&self, name: &str) -> Result<usize, TxnError> {
        self.marks
            .iter()
            .rposition(|m| &*m.name == name)
            .ok_or_else(|| TxnError::SavepointNotFound { name: name.into() })
    }

    /// ROLLBACK TO SAVEPOINT name: undo everything after the innermost mark
    /// of that name, drop the marks above it, keep it.
    pub fn rollback_to(&mut self, name: &str) -> Result<(), TxnError> {
        let i = self.find_mark(name)?;
        let len = self.marks[i].undo_len;
        self.undo_to(len);
        self.marks.truncate(i + 1);
        self.stats.rollbacks_to += 1;
        Ok(())
    }

    /// RELEASE SAVEPOINT name: drop the innermost mark of that name and all
    /// marks above it. The changes stay.
    pub fn release(&mut self, name: &str) -> Result<(), TxnError> {
        let i = self.find_mark(name)?;
        self.marks.truncate(i);
        Ok(())
    }

    /// After an error inside a transaction block: undo the work of the
    /// innermost open savepoint (or of the whole transaction when none is
    /// open), releasing its locks at once as PostgreSQL's abort of the
    /// current (sub)transaction does. The marks stay, so a later
    /// ROLLBACK TO finds them.
    pub fn undo_failed_level(&mut self) {
        let len = self.marks.last().map_or(0, |m| m.undo_len);
        self.undo_to(len);
    }

    /// Whether a savepoint of that name is open.
    /// Whether this transaction changed the schema (holds the DDL gate a
    /// checkpoint waits for). Scans the undo log: for rare callers.
    pub fn has_schema_changes(&self) -> bool {
        self.undo
            .iter()
            .any(|e| matches!(e, UndoEntry::Data(DataUndo::Ddl(_))))
    }

    pub fn has_savepoint(&self, name: &str) -> bool {
        self.find_mark(name).is_ok()
    }

    pub fn savepoint_stats(&self) -> SavepointStats {
        SavepointStats {
            depth: self.marks.len(),
            ..self.stats
        }
    }

    fn undo_to(&mut self, len: usize) {
        let mut data_undone = false;
        while self.undo.len() > len {
            let entry = self.undo.pop().expect("len > target");
            match entry {
                UndoEntry::Lock { key, prev } => {
                    self.locks -= usize::from(prev.is_none());
                    self.mgr.locks.restore(self.xid, key, prev)
                }
                UndoEntry::RelationLock { rel, prev } => {
                    self.relation_undo -= 1;
                    self.mgr.restore_relation(&self.slot, rel, prev)
                }
                UndoEntry::Data(DataUndo::Ddl(d)) => d.undo(),
                UndoEntry::Data(change) => {
                    data_undone = true;
                    self.store.undo(self.xid, &change)
                }
            }
        }
        // Whoever waits for this transaction to end because of a version it
        // wrote (a unique-key conflict) re-checks now: the version may be
        // gone, as PostgreSQL's subtransaction abort ends such waits.
        if data_undone {
            self.mgr.locks.wake_txn_waiters(self.xid);
        }
    }

    /// COMMIT of a transaction that cannot fail to commit (not
    /// SERIALIZABLE). Returns the CSN, or None for a transaction that wrote
    /// nothing.
    pub fn commit(self) -> Option<Csn> {
        self.try_commit()
            .expect("only a SERIALIZABLE transaction's commit can fail")
    }

    /// COMMIT. A SERIALIZABLE transaction fails with 40001 when it is part
    /// of a dangerous structure; it is then rolled back.
    pub fn try_commit(mut self) -> Result<Option<Csn>, TxnError> {
        if self.xid.is_none() {
            match self.ssi.take() {
                Some(h) => {
                    if let Err(e) = self.mgr.ssi.prepare(h.id, || None) {
                        self.abort();
                        return Err(e);
                    }
                    self.mgr.ssi.commit(h.id);
                }
                None if self.isolation == Isolation::Serializable && self.has_snapshot() => {
                    self.mgr.ssi.tidy();
                }
                None => {}
            }
            self.ended = true;
            self.account_undo(0);
            self.mgr.release_relations(&self.slot);
            self.slot.clear();
            return Ok(None);
        }
        let mut redo = self.mgr.redo_buffer(self.xid);
        self.store.redo(self.xid, &self.undo, redo.as_mut());
        redo.seal();
        // A commit with nothing to redo (it wrote only UNLOGGED or temporary
        // tables, or only locked rows) has nothing to lose in a crash: like
        // PostgreSQL's commit of a transaction that wrote no WAL, it does
        // not wait for the flush. It is still published in CSN order.
        let synchronous = self.synchronous_commit && !redo.is_empty();
        // SERIALIZABLE: the commit check and the CSN in one step (the
        // transaction is then "prepared" and cannot fail any more).
        let ssi = self.ssi.take();
        let release_early = ssi.is_none();
        let csn = match &ssi {
            None => self.mgr.sequence_commit(self.xid, redo),
            Some(h) => {
                let (mgr, xid) = (self.mgr.clone(), self.xid);
                match mgr
                    .ssi
                    .prepare(h.id, || Some(mgr.sequence_commit(xid, redo)))
                {
                    Ok(csn) => csn.expect("a transaction with an xid gets a CSN"),
                    Err(e) => {
                        self.abort();
                        return Err(e);
                    }
                }
            }
        };
        self.ended = true;
        if release_early {
            self.release_row_locks();
        }
        self.mgr.publish(csn, synchronous);
        // ... and committed for SSI once visible, so a serializable
        // transaction that begins after this sees it (docs/transactions.md).
        if let Some(h) = ssi {
            self.mgr.ssi.commit(h.id);
        }
        for entry in &self.undo {
            match entry {
                UndoEntry::Data(DataUndo::Ddl(d)) => d.commit(),
                UndoEntry::Data(change) => self.store.stamp(self.xid, csn, change),
                UndoEntry::Lock { .. } | UndoEntry::RelationLock { .. } => {}
            }
        }
        self.mgr.forget(self.xid);
        self.release_locks(release_early);
        self.mgr.release_relations(&self.slot);
        self.slot.clear();
        self.account_undo(0);
        Ok(Some(csn))
    }

    /// COMMIT (or ROLLBACK) inside a procedure: end this transaction and
    /// continue in a new one with the same characteristics, in place (the
    /// session's handle stays valid). The new transaction is begun before
    /// the old one ends but has no XID and no snapshot until it is used,
    /// so nothing sees two transactions of one session. A failed commit
    /// (SERIALIZABLE) has rolled the old one back; the new one is there.
    pub fn restart(&mut self, commit: bool) -> Result<Option<Csn>, TxnError> {
        assert!(!self.ended, "restarting an ended transaction");
        let mut next = Transaction::begin(
            self.mgr.clone(),
            self.store.clone(),
            self.slot.clone(),
            self.session,
            self.isolation,
        );
        next.set_access(self.read_only, self.deferrable);
        next.synchronous_commit = self.synchronous_commit;
        let old = std::mem::replace(self, next);
        if commit {
            old.try_commit()
        } else {
            old.rollback();
            Ok(None)
        }
    }

    /// ROLLBACK (also what dropping an unfinished transaction does).
    pub fn rollback(mut self) {
        self.abort();
    }

    fn abort(&mut self) {
        self.ended = true;
        match self.ssi.take() {
            Some(h) => self.mgr.ssi.abort(h.id),
            None if self.isolation == Isolation::Serializable && self.has_snapshot() => {
                self.mgr.ssi.tidy()
            }
            None => {}
        }
        if !self.xid.is_none() {
            self.mgr.mark_aborted(self.xid);
            self.undo_to(0);
            self.mgr.forget(self.xid);
            self.mgr.locks.release(self.xid, LockKey::Txn(self.xid));
        }
        self.mgr.release_relations(&self.slot);
        self.account_undo(0);
        self.slot.clear();
        // What this transaction read through its row locks may not be
        // published yet; the session's next transaction must not see less.
        self.mgr.wait_visible(self.seen);
    }

    /// Early lock release: the row locks, once the commit is sequenced
    /// (it can no longer fail or roll back) and before its WAL flush.
    fn release_row_locks(&mut self) {
        for entry in &self.undo {
            if let UndoEntry::Lock {
                key: key @ LockKey::Row(..),
                ..
            } = entry
            {
                self.mgr.locks.release(self.xid, *key);
            }
        }
    }

    /// The other locks (advisory, the transaction's own `Txn` lock that
    /// unique-key waiters wait on), once the commit is visible; the row
    /// locks too unless `rows_released`.
    fn release_locks(&mut self, rows_released: bool) {
        for entry in &self.undo {
            if let UndoEntry::Lock { key, .. } = entry {
                if !(rows_released && matches!(key, LockKey::Row(..))) {
                    self.mgr.locks.release(self.xid, *key);
                }
            }
        }
        self.mgr.locks.release(self.xid, LockKey::Txn(self.xid));
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if !self.ended {
            self.abort();
        }
    }
}
