//! In-memory MVCC storage: tables of version chains behind stable row ids,
//! ordered indexes, the write paths (insert, update, delete, row lock) with
//! first-updater-wins, unique constraints enforced under concurrency, and
//! pruning of versions no snapshot can see.
//!
//! ```text
//!   Table "accounts" (rel 16384)
//!   rows[RowId] -> RowSlot { versions, oldest first }   (chunks of slots)
//!     rows[0]: [v(xmin 5 csn 3, xmax 9 csn 6, (1,'a')), v(xmin 9 csn 6, (1,'b'))]
//!     rows[1]: [v(xmin 12 running, (2,'c'))]            (one version: inline)
//!   Index accounts_pkey (unique, cols [0]): {key(1)+row 0, key(2)+row 1}
//! ```
//!
//! Versions hold their values as one byte buffer and index entries are
//! byte strings in key order ([`codec`] has both formats); readers get
//! `Value` rows decoded from the buffer.
//!
//! An update takes the row lock (NoKeyUpdate, or Update when a unique key
//! changes), then looks at the newest version. If it is the one the
//! statement's snapshot saw, it stamps `xmax` on it and appends the new
//! version; if another transaction committed a newer one since, READ
//! COMMITTED gets it back to re-check the WHERE clause (PostgreSQL's
//! EvalPlanQual) and REPEATABLE READ fails with 40001. Waiting happens only in
//! the lock table, so waits end exactly when the holder commits, aborts or
//! rolls back to a savepoint taken before the lock.
//!
//! Index entries are (key, row id) pairs and are never updated in place: a
//! new version adds an entry only if its key differs from the row's existing
//! entries; entries are removed when no version of the row has that key any
//! more (undo, pruning). Scans re-check each entry against the visible
//! version, so stale entries are harmless.
//! Expression and partial indexes compute their keys through a key
//! function the SQL layer binds ([`IndexKeys`]); a row outside a partial
//! index's predicate has the empty key and no entry (see `index.rs`'s
//! header), so these rules hold for them unchanged.
//!
//! Latch order: an index's entry lock before a row slot's latch; the lock
//! table never while holding a row latch (waits happen with no latch held).
//!
//! Left out (for now): table-level locks for DDL, on-disk storage (tables
//! live in memory; durability comes from the WAL and checkpoints).

#![forbid(unsafe_code)]

mod codec;
mod error;
mod index;
pub mod redo;
mod table;

pub use codec::KeyOrder;
pub use error::StorageError;
pub use index::{Index, IndexKeys};

/// The sortable key form of a value: equal values (as an index compares
/// them) have equal bytes. GIN's array_ops keys an element by it.
pub fn key_form(v: &nestor_types::Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(16);
    codec::put_key_value(v, &mut out);
    out
}
pub use table::{
    LockResult, PruneBy, PruneStats, Recheck, Table, TableScan, Tuple, TupleHead, WriteResult,
    TUPLE_SPARE_VALUES,
};

use std::collections::HashMap;
use std::sync::Arc;

use nestor_common::hash::IdHashMap;
use nestor_common::{Csn, RelId, RowId, Xid};
use nestor_txn::{DataStore, DataUndo, RedoBuffer, TxnManager, UndoEntry};

/// Redo is handed to the log's buffer in pieces of about this size, so a
/// huge transaction's redo never sits whole in memory here.
const REDO_CHUNK_BYTES: usize = 256 * 1024;

/// Extra redo appended to every commit (the catalog logs sequence states).
pub type CommitHook = std::sync::Arc<dyn Fn() -> Option<Vec<u8>> + Send + Sync>;
use parking_lot::RwLock;

/// All tables of a database, by relation id; the [`DataStore`] the
/// transaction manager calls back for undo and commit stamping.
pub struct Store {
    mgr: Arc<TxnManager>,
    tables: RwLock<HashMap<RelId, Arc<Table>>>,
    commit_hook: RwLock<Option<CommitHook>>,
}

impl Store {
    pub fn new(mgr: Arc<TxnManager>) -> Arc<Store> {
        Arc::new(Store {
            mgr,
            tables: RwLock::new(HashMap::new()),
            commit_hook: RwLock::new(None),
        })
    }

    pub fn manager(&self) -> &Arc<TxnManager> {
        &self.mgr
    }

    /// Set the hook whose bytes (if any) end every commit's redo as a DDL op.
    pub fn set_commit_hook(&self, hook: CommitHook) {
        *self.commit_hook.write() = Some(hook);
    }

    /// Create an empty table. Panics if the id is taken (the catalog owns ids).
    pub fn create_table(&self, id: RelId, name: &str) -> Arc<Table> {
        let t = Arc::new(Table::new(id, name, self.mgr.clone()));
        let old = self.tables.write().insert(id, t.clone());
        assert!(old.is_none(), "relation id {id} reused");
        t
    }

    pub fn table(&self, id: RelId) -> Option<Arc<Table>> {
        self.tables.read().get(&id).cloned()
    }

    pub fn drop_table(&self, id: RelId) -> Option<Arc<Table>> {
        self.tables.write().remove(&id)
    }

    pub fn tables(&self) -> Vec<Arc<Table>> {
        self.tables.read().values().cloned().collect()
    }

    /// Prune every table at the current GC horizon (VACUUM).
    pub fn prune_all(&self) -> PruneStats {
        let horizon = self.mgr.gc_horizon();
        let mut total = PruneStats::default();
        for t in self.tables() {
            total += t.prune_by(horizon, PruneBy::Vacuum);
        }
        total
    }
}

impl DataStore for Store {
    fn undo(&self, xid: Xid, change: &DataUndo) {
        if let Some((rel, _)) = change_target(change) {
            // A table dropped by this transaction is restored by the DDL undo,
            // which runs first (it is newer); one dropped by a committed
            // transaction cannot hold our uncommitted versions.
            if let Some(t) = self.table(rel) {
                t.undo(xid, change);
            }
        }
    }

    fn stamp(&self, xid: Xid, csn: Csn, change: &DataUndo) {
        if let Some((rel, row)) = change_target(change) {
            if let Some(t) = self.table(rel) {
                t.stamp(xid, csn, row);
            }
        }
    }

    /// Each written row's final image at its last change, DDL in place
    /// (see [`redo`]).
    fn redo(&self, xid: Xid, changes: &[UndoEntry], out: &mut dyn RedoBuffer) {
        // A row is logged once, at its last change. Only rows an UPDATE or
        // DELETE touched can appear more than once (an INSERT's row id is
        // new), so only those need their last position: a bulk load hashes
        // nothing.
        let mut last: IdHashMap<(RelId, RowId), usize> = IdHashMap::default();
        for (i, e) in changes.iter().enumerate() {
            if let UndoEntry::Data(DataUndo::Update { rel, row } | DataUndo::Delete { rel, row }) =
                e
            {
                last.insert((*rel, *row), i);
            }
        }
        let mut buf = Vec::new();
        // One lookup per run of rows of the same table.
        let mut table: Option<Arc<Table>> = None;
        for (i, e) in changes.iter().enumerate() {
            match e {
                UndoEntry::Data(DataUndo::Ddl(d)) => {
                    if let Some(bytes) = d.redo() {
                        redo::encode_op(&redo::RedoOp::Ddl(bytes), &mut buf);
                    }
                }
                UndoEntry::Data(
                    DataUndo::Insert { rel, row }
                    | DataUndo::Update { rel, row }
                    | DataUndo::Delete { rel, row },
                ) => {
                    if last.get(&(*rel, *row)).is_some_and(|&at| at != i) {
                        continue; // changed again later
                    }
                    if table.as_ref().is_none_or(|t| t.id != *rel) {
                        table = self.table(*rel);
                    }
                    if let Some(t) = table.as_ref().filter(|t| t.is_logged()) {
                        t.encode_final_image(xid, *row, &mut buf);
                    }
                }
                UndoEntry::Lock { .. } | UndoEntry::RelationLock { .. } => {}
            }
            if buf.len() >= REDO_CHUNK_BYTES {
                out.write(&buf);
                buf.clear();
            }
        }
        if let Some(hook) = self.commit_hook.read().as_ref() {
            if let Some(bytes) = hook() {
                redo::encode_op(&redo::RedoOp::Ddl(bytes), &mut buf);
            }
        }
        out.write(&buf);
    }
}

fn change_target(change: &DataUndo) -> Option<(RelId, nestor_common::RowId)> {
    match change {
        DataUndo::Insert { rel, row }
        | DataUndo::Update { rel, row }
        | DataUndo::Delete { rel, row } => Some((*rel, *row)),
        DataUndo::Ddl(_) => None,
    }
}
