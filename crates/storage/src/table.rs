//! A table: version chains behind stable row ids, and the write paths.

use std::ops::{AddAssign, Bound, Deref, DerefMut};
use std::sync::Arc;

use nestor_common::{CommandId, Csn, RelId, RowId, Xid};
use nestor_txn::{
    is_visible, stamp_visible, Acquired, DataUndo, LockKey, LockMode, Snapshot, Stamp, Transaction,
    TxnError, TxnManager, WaitCtl, WaitPolicy, XidState,
};
use nestor_types::{Row, Value};
use parking_lot::{Mutex, RwLock};

use crate::codec;
use crate::error::StorageError;
use crate::index::{self, visit_range, ByteBounds, Index};
use nestor_common::limits::{PRUNE_SCALE_PERCENT, PRUNE_THRESHOLD_VERSIONS};

/// One version of a row. Headers carry only top-level XIDs; the CSN fields
/// are stamped at commit so readers rarely consult the status table. The
/// values are in their stored form ([`crate::codec`]), decoded when read.
#[derive(Clone, Debug)]
pub(crate) struct Version {
    xmin: Xid,
    xmin_csn: Csn,
    xmax: Xid,
    xmax_csn: Csn,
    cmin: CommandId,
    cmax: CommandId,
    data: codec::StoredRow,
}

impl Version {
    fn row(&self) -> Row {
        codec::decode_row(&self.data)
    }
}

/// A row's versions, oldest first; the newest is last. Most rows have one
/// version, held inline (no allocation of its own).
///
/// `rekeyed` records that some version of the row had, for some index, a
/// key (or a partial index's coverage) another version did not: from then
/// on an index entry naming the row may be stale (its version pruned or
/// rolled back before the entry is removed), so a reader checks the entry
/// against the version it sees. A row that was never rekeyed has only
/// entries of its one key per index, and the check is skipped (it was the
/// costliest step of an index range read: re-encoding the key of every
/// row). The mark is never cleared while the row lives, so it stays `Many`
/// even with one version.
///
/// ```text
///   INSERT (k=5)             One(v1)                 entry 5   check: no
///   UPDATE SET other = ..    Many [v1 v2], rekeyed=f entry 5   check: no
///   prune v1                 One(v2)                 entry 5   check: no
///   UPDATE SET k = 6         Many [v2 v3], rekeyed=t entry 5,6 check: yes
///   prune v2                 Many [v3],    rekeyed=t entry 5 (until the
///                                                    pruner removes it), 6
/// ```
#[derive(Debug)]
enum Chain {
    One(Version),
    Many {
        versions: Vec<Version>,
        rekeyed: bool,
    },
}

impl Default for Chain {
    fn default() -> Chain {
        Chain::Many {
            versions: Vec::new(),
            rekeyed: false,
        }
    }
}

impl Deref for Chain {
    type Target = [Version];
    fn deref(&self) -> &[Version] {
        match self {
            Chain::One(v) => std::slice::from_ref(v),
            Chain::Many { versions, .. } => versions,
        }
    }
}

impl DerefMut for Chain {
    fn deref_mut(&mut self) -> &mut [Version] {
        match self {
            Chain::One(v) => std::slice::from_mut(v),
            Chain::Many { versions, .. } => versions,
        }
    }
}

impl Chain {
    fn push(&mut self, v: Version) {
        let rekeyed = self.rekeyed();
        let mut all = std::mem::take(self).into_vec();
        all.push(v);
        *self = Chain::from_vec(all, rekeyed);
    }

    fn pop(&mut self) -> Option<Version> {
        let rekeyed = self.rekeyed();
        let mut all = std::mem::take(self).into_vec();
        let v = all.pop();
        *self = Chain::from_vec(all, rekeyed);
        v
    }

    /// No versions left (the row's mark goes with them: only recovery,
    /// which rebuilds every index afterwards, empties a chain).
    fn clear(&mut self) {
        *self = Chain::default();
    }

    /// Whether an index entry naming this row may be stale (see above).
    fn rekeyed(&self) -> bool {
        matches!(self, Chain::Many { rekeyed: true, .. })
    }

    /// Mark the row rekeyed: called, under the row latch, before an entry
    /// of a key the row did not have is added.
    fn mark_rekeyed(&mut self) {
        if !self.rekeyed() {
            let all = std::mem::take(self).into_vec();
            *self = Chain::from_vec(all, true);
        }
    }

    /// Take out the versions `dead` selects; keep the others in order.
    fn remove_where(&mut self, dead: impl Fn(&Version) -> bool) -> Vec<Version> {
        let rekeyed = self.rekeyed();
        let (gone, kept): (Vec<Version>, Vec<Version>) =
            std::mem::take(self).into_vec().into_iter().partition(dead);
        *self = Chain::from_vec(kept, rekeyed);
        gone
    }

    fn into_vec(self) -> Vec<Version> {
        match self {
            Chain::One(v) => vec![v],
            Chain::Many { versions, .. } => versions,
        }
    }

    fn from_vec(mut versions: Vec<Version>, rekeyed: bool) -> Chain {
        if versions.len() == 1 && !rekeyed {
            Chain::One(versions.pop().expect("one version"))
        } else {
            Chain::Many { versions, rekeyed }
        }
    }
}

#[derive(Default)]
struct RowSlot {
    versions: Mutex<Chain>,
}

/// Row ids are allocated in order and never reused; their slots live in
/// chunks that never move: 16, 32, ... 512 slots, then 1,024 each, so a
/// small table costs little and a large one one `Arc` per 1,024 rows.
#[derive(Default)]
struct Rows {
    chunks: Vec<Arc<[RowSlot]>>,
    /// Row ids allocated so far.
    len: u64,
}

/// Slots before the first full-size chunk: 16 * (2^6 - 1).
const ROWS_GEOMETRIC_END: u64 = 1008;
const CHUNK_SLOTS_MAX: u64 = 1024;

/// (chunk, offset) of a row id.
fn chunk_pos(row: u64) -> (usize, usize) {
    if row < ROWS_GEOMETRIC_END {
        let k = 63 - (row / 16 + 1).leading_zeros() as u64;
        let start = 16 * ((1u64 << k) - 1);
        (k as usize, (row - start) as usize)
    } else {
        let q = row - ROWS_GEOMETRIC_END;
        (
            6 + (q / CHUNK_SLOTS_MAX) as usize,
            (q % CHUNK_SLOTS_MAX) as usize,
        )
    }
}

fn chunk_slots(k: usize) -> usize {
    if k < 6 {
        16 << k
    } else {
        CHUNK_SLOTS_MAX as usize
    }
}

impl Rows {
    fn get(&self, row: RowId) -> Option<&RowSlot> {
        if row.0 >= self.len {
            return None;
        }
        let (c, o) = chunk_pos(row.0);
        Some(&self.chunks[c][o])
    }

    fn get_shared(&self, row: RowId) -> Option<SlotRef> {
        if row.0 >= self.len {
            return None;
        }
        let (c, o) = chunk_pos(row.0);
        Some(SlotRef {
            chunk: self.chunks[c].clone(),
            off: o,
        })
    }

    /// Allocate the next row id (its slot starts empty).
    fn push(&mut self) -> RowId {
        let id = self.len;
        let (c, _) = chunk_pos(id);
        if c == self.chunks.len() {
            self.chunks
                .push((0..chunk_slots(c)).map(|_| RowSlot::default()).collect());
            nestor_common::memory::add(
                nestor_common::memory::Category::TableVersions,
                (chunk_slots(c) * std::mem::size_of::<RowSlot>()) as i64,
            );
        }
        assert!(c < self.chunks.len(), "row chunks are allocated in order");
        self.len += 1;
        RowId(id)
    }
}

impl Drop for Rows {
    /// The slots leave the memory count with the table (a scan may keep a
    /// chunk alive a moment longer).
    fn drop(&mut self) {
        let slots: usize = (0..self.chunks.len()).map(chunk_slots).sum();
        nestor_common::memory::add(
            nestor_common::memory::Category::TableVersions,
            -((slots * std::mem::size_of::<RowSlot>()) as i64),
        );
    }
}

/// A row's slot, usable after the row array's lock is released (it keeps
/// its chunk alive).
struct SlotRef {
    chunk: Arc<[RowSlot]>,
    off: usize,
}

impl Deref for SlotRef {
    type Target = RowSlot;
    fn deref(&self) -> &RowSlot {
        &self.chunk[self.off]
    }
}

/// Room a [`Tuple`]'s values leave for the three system columns the
/// executor appends (row id, xmin, xmax), so adding them does not move it.
pub const TUPLE_SPARE_VALUES: usize = 3;

/// A visible row as a reader gets it.
#[derive(Clone, Debug)]
pub struct Tuple {
    pub row: RowId,
    /// The values, decoded for this reader (capacity for
    /// [`TUPLE_SPARE_VALUES`] more).
    pub data: Vec<Value>,
    /// Creator of this version.
    pub xmin: Xid,
    /// Deleter/updater of this version (in progress or not visible), or NONE.
    pub xmax: Xid,
}

/// Which version a write accepts as its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recheck {
    /// The version visible to the statement's snapshot (first attempt).
    Snapshot,
    /// The newest committed version (READ COMMITTED after the caller
    /// re-checked its WHERE clause on it). Only valid right after a
    /// `Changed` result for the same row: that result kept the row lock, so
    /// the version re-checked is still the newest.
    Latest,
}

/// Outcome of update/delete.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteResult {
    Done,
    /// READ COMMITTED only: a transaction that committed after our snapshot
    /// changed the row; here is its newest version. Re-check and retry with
    /// `Recheck::Latest`, or skip the row.
    Changed(Row),
    /// The row is gone (deleted by a committed transaction; READ COMMITTED).
    Gone,
    /// Already updated or deleted by the current command: skip (PostgreSQL
    /// ignores a second update of a row by the same command).
    SelfModified,
    /// Updated or deleted by a later command of this transaction: one a
    /// function or trigger the current statement ran (PostgreSQL's 27000
    /// "already modified by an operation triggered by the current
    /// command").
    ModifiedLater,
}

/// Outcome of a row lock (SELECT ... FOR UPDATE and friends).
#[derive(Clone, Debug, PartialEq)]
pub enum LockResult {
    Locked,
    /// SKIP LOCKED met a conflicting lock.
    Skipped,
    Changed(Row),
    Gone,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PruneStats {
    pub versions_removed: u64,
    pub rows_removed: u64,
    pub index_entries_removed: u64,
}

impl AddAssign for PruneStats {
    fn add_assign(&mut self, o: PruneStats) {
        self.versions_removed += o.versions_removed;
        self.rows_removed += o.rows_removed;
        self.index_entries_removed += o.index_entries_removed;
    }
}

/// Where the newest version stands for a writer holding the row lock.
enum Target {
    Ok(Row),
    Outcome(WriteResult),
}

/// What an index scan reads each entry's row with ([`Table::entry_row`]).
struct EntryRead<'a> {
    index: &'a Index,
    snap: &'a Snapshot,
    cols: Option<&'a [bool]>,
}

pub struct Table {
    pub id: RelId,
    /// False for UNLOGGED and TEMP tables: no redo, not in checkpoints, so
    /// they come back empty after a restart (as in PostgreSQL).
    logged: std::sync::atomic::AtomicBool,
    name: RwLock<String>,
    /// The schema its definition is in (for errors' SCHEMA NAME field).
    schema: RwLock<String>,
    rows: RwLock<Rows>,
    indexes: RwLock<Vec<Arc<Index>>>,
    mgr: Arc<TxnManager>,
    /// Versions superseded (UPDATE, DELETE) since the last prune: what
    /// [`Table::prune_due`] weighs, as autovacuum weighs n_dead_tup.
    superseded: std::sync::atomic::AtomicU64,
    /// The GC horizon of the last prune.
    pruned_at: std::sync::atomic::AtomicU64,
    /// Prune passes and when the last one ended (Unix microseconds; 0:
    /// never), by [`PruneBy`]: pg_stat_all_tables' autovacuum / vacuum
    /// columns.
    prunes: [(std::sync::atomic::AtomicU64, std::sync::atomic::AtomicI64); 2],
}

/// Who pruned a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PruneBy {
    /// The background pruner (PostgreSQL's autovacuum).
    Background = 0,
    /// A VACUUM statement.
    Vacuum = 1,
}

/// An UPDATE's key for one index: the index, the new version's key, and
/// whether it differs from the old version's.
type NewKey = (Arc<Index>, Vec<u8>, bool);

impl Table {
    pub(crate) fn new(id: RelId, name: &str, mgr: Arc<TxnManager>) -> Table {
        Table {
            id,
            logged: std::sync::atomic::AtomicBool::new(true),
            name: RwLock::new(name.to_string()),
            schema: RwLock::new("public".to_string()),
            rows: RwLock::new(Rows::default()),
            indexes: RwLock::new(Vec::new()),
            mgr,
            superseded: std::sync::atomic::AtomicU64::new(0),
            pruned_at: std::sync::atomic::AtomicU64::new(0),
            prunes: Default::default(),
        }
    }

    /// Whether enough versions were superseded since the last prune for a
    /// background pass over the table to pay: PRUNE_THRESHOLD_VERSIONS plus
    /// PRUNE_SCALE_PERCENT of its rows (autovacuum_vacuum_threshold and
    /// autovacuum_vacuum_scale_factor, PostgreSQL's defaults).
    /// And only if the GC horizon moved since the last prune: while a long
    /// snapshot holds it back, another pass would find nothing new.
    pub fn prune_due(&self, horizon: Csn) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let superseded = self.superseded.load(Relaxed);
        superseded >= PRUNE_THRESHOLD_VERSIONS + self.row_id_count() * PRUNE_SCALE_PERCENT / 100
            && horizon.0 > self.pruned_at.load(Relaxed)
    }

    fn note_superseded(&self) {
        self.superseded
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Drop the versions of a row's chain that no snapshot can see any more
    /// (their deletion committed at or below the GC horizon hint) and whose
    /// index keys all equal `keys` (the new version's), so that no index
    /// entry depends on them alone. A hot row's chain stays short between
    /// pruner passes, as PostgreSQL's page pruning keeps HOT chains short;
    /// dead versions with other keys are left to [`Table::prune`], which
    /// also removes their index entries. Returns how many were dropped.
    fn trim_chain(&self, versions: &mut Chain, keys: &[NewKey]) -> usize {
        let horizon = self.mgr.gc_horizon_hint();
        let dead = |v: &Version| v.xmax_csn != Csn::NONE && v.xmax_csn <= horizon;
        if !versions.iter().any(dead) {
            return 0;
        }
        let same_keys = |v: &Version| {
            keys.iter()
                .all(|(idx, key, _)| idx.stored_key_bytes(&v.data) == *key)
        };
        versions.remove_where(|v| dead(v) && same_keys(v)).len()
    }

    pub fn is_logged(&self) -> bool {
        self.logged.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn set_logged(&self, logged: bool) {
        self.logged
            .store(logged, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn name(&self) -> String {
        self.name.read().clone()
    }

    pub fn rename(&self, name: &str) {
        *self.name.write() = name.to_string();
    }

    pub fn schema(&self) -> String {
        self.schema.read().clone()
    }

    /// Set the schema errors name (the catalog does, when it installs
    /// a definition).
    pub fn set_schema(&self, schema: &str) {
        if *self.schema.read() != schema {
            *self.schema.write() = schema.to_string();
        }
    }

    pub fn indexes(&self) -> Vec<Arc<Index>> {
        self.indexes.read().clone()
    }

    /// Row ids allocated so far (live, dead and pruned).
    pub fn row_id_count(&self) -> u64 {
        self.rows.read().len
    }

    fn slot(&self, row: RowId) -> Option<SlotRef> {
        self.rows.read().get_shared(row)
    }

    fn what(&self) -> String {
        format!("row in relation \"{}\"", self.name())
    }

    // ----- reading -------------------------------------------------------

    fn resolve_created(&self, v: &Version, snap: &Snapshot) -> Stamp {
        self.mgr.resolve(v.xmin, v.cmin, v.xmin_csn, snap)
    }

    fn resolve_deleted(&self, v: &Version, snap: &Snapshot) -> Option<Stamp> {
        (!v.xmax.is_none()).then(|| self.mgr.resolve(v.xmax, v.cmax, v.xmax_csn, snap))
    }

    /// The version visible to `snap`: the newest whose creation is visible,
    /// if its deletion is not. Newest first, so a long-open old snapshot
    /// never slows readers of new versions.
    fn visible<'v>(&self, versions: &'v [Version], snap: &Snapshot) -> Option<&'v Version> {
        for v in versions.iter().rev() {
            let created = self.resolve_created(v, snap);
            if !stamp_visible(created, snap) {
                continue;
            }
            let deleted = self.resolve_deleted(v, snap);
            return is_visible(created, deleted, snap).then_some(v);
        }
        None
    }

    /// SERIALIZABLE reads (`snap.ssi` set), under the row's latch: report
    /// an rw-conflict out to each transaction whose write to this row the
    /// reader does not see (a newer version, or the visible version's
    /// deletion, by a transaction still running or committed after the
    /// snapshot), and, with `lock`, take a predicate lock on the row if a
    /// version is visible. Under the latch, so a writer that changes the row
    /// either comes first (its version is seen here) or finds the lock.
    /// Returns false once the reader holds the whole relation.
    fn ssi_read_row(&self, versions: &[Version], snap: &Snapshot, row: RowId, lock: bool) -> bool {
        let Some(id) = snap.ssi else {
            return false;
        };
        let running = |x: Xid| matches!(self.mgr.state(x), Some(XidState::InProgress));
        let mut writers: [Xid; 2] = [Xid::NONE; 2];
        let mut push = |x: Xid| {
            if !writers.contains(&x) {
                if writers[0].is_none() {
                    writers[0] = x;
                } else if writers[1].is_none() {
                    writers[1] = x;
                } else {
                    self.mgr.ssi.conflict_out(id, x);
                }
            }
        };
        let mut visible = None;
        for v in versions.iter().rev() {
            let created = self.resolve_created(v, snap);
            if stamp_visible(created, snap) {
                let seen = match self.resolve_deleted(v, snap) {
                    None => true,
                    Some(d) if stamp_visible(d, snap) => false,
                    // Deleted after the snapshot, or by a transaction still
                    // running: the reader sees the row, not the delete.
                    Some(Stamp::Committed(_)) => {
                        push(v.xmax);
                        true
                    }
                    Some(Stamp::NotCommitted) => {
                        if running(v.xmax) {
                            push(v.xmax);
                        }
                        true
                    }
                    Some(Stamp::Own(_)) => true,
                };
                visible = seen.then_some(v.xmin);
                break;
            }
            match created {
                Stamp::Committed(_) => push(v.xmin),
                Stamp::NotCommitted if running(v.xmin) => push(v.xmin),
                _ => {}
            }
        }
        for x in writers.into_iter().filter(|x| !x.is_none()) {
            self.mgr.ssi.conflict_out(id, x);
        }
        if let (true, Some(xmin)) = (lock, visible) {
            return self.mgr.ssi.lock_tuple(id, self.id, row, xmin);
        }
        true
    }

    fn tuple(row: RowId, v: &Version) -> Tuple {
        Self::tuple_of(row, v, None)
    }

    /// A tuple with only the columns `cols` marks decoded (None: all); the
    /// others are NULL.
    fn tuple_of(row: RowId, v: &Version, cols: Option<&[bool]>) -> Tuple {
        let data = match cols {
            None => codec::decode_row_spare(&v.data, TUPLE_SPARE_VALUES),
            Some(cols) => codec::decode_row_only(&v.data, TUPLE_SPARE_VALUES, cols),
        };
        Tuple {
            row,
            data,
            xmin: v.xmin,
            xmax: v.xmax,
        }
    }

    /// The visible version of one row.
    pub fn get(&self, row: RowId, snap: &Snapshot) -> Option<Tuple> {
        let slot = self.slot(row)?;
        let versions = slot.versions.lock();
        if snap.ssi.is_some() {
            self.ssi_read_row(&versions, snap, row, true);
        }
        self.visible(&versions, snap).map(|v| Self::tuple(row, v))
    }

    /// Sequential scan of visible rows, in row-id order. A SERIALIZABLE
    /// reader locks the whole relation first.
    pub fn scan<'a>(&'a self, snap: &Snapshot) -> TableScan<'a> {
        if let Some(id) = snap.ssi {
            self.mgr.ssi.lock_relation(id, self.id);
        }
        TableScan {
            table: self,
            next: 0,
            chunk: None,
            snap: *snap,
            cols: None,
        }
    }

    /// Index range scan: visible rows whose key lies within the bounds
    /// (bounds may be key prefixes), in key order.
    ///
    /// Takes the index lock, then the row array's lock, once for the whole
    /// range (the lock order of every path: index, rows, row latch), and
    /// neither copies keys nor clones row slots: per entry it is one row
    /// latch and the visibility check.
    pub fn index_scan(
        &self,
        index: &Index,
        lo: Bound<&[Value]>,
        hi: Bound<&[Value]>,
        snap: &Snapshot,
    ) -> Vec<Tuple> {
        self.index_scan_only(index, lo, hi, snap, None)
    }

    /// [`Table::index_scan`] decoding only the columns `cols` marks (None:
    /// all); the others are NULL.
    pub fn index_scan_only(
        &self,
        index: &Index,
        lo: Bound<&[Value]>,
        hi: Bound<&[Value]>,
        snap: &Snapshot,
        cols: Option<&[bool]>,
    ) -> Vec<Tuple> {
        let mut out = Vec::new();
        let bounds = index.byte_bounds(lo, hi);
        // SERIALIZABLE: lock what the scan looks at before looking, so an
        // entry added after this either is seen or finds the lock.
        let mut lock_rows = snap.ssi.is_some();
        if let Some(id) = snap.ssi {
            self.mgr.ssi.lock_index(id, index.id, bounds.key_lock());
        }
        let entries = index.entries.read();
        let rows = self.rows.read();
        let mut scratch = Vec::new();
        let read = EntryRead { index, snap, cols };
        visit_range(&entries, &bounds, |key, row| {
            out.extend(self.entry_row(&rows, &read, (key, row), &mut scratch, &mut lock_rows));
        });
        out
    }

    /// A GIN (multi-key) index read: the visible rows that have an entry
    /// for every key of `keys` (`all`) or for any of them. Lossy on
    /// purpose: an entry may come from another version of the row than
    /// the visible one, so the caller rechecks its condition on each row
    /// (as PostgreSQL rechecks a GIN bitmap heap scan). Each row once, in
    /// row id order.
    pub fn gin_scan(
        &self,
        index: &Index,
        keys: &[Vec<u8>],
        all: bool,
        snap: &Snapshot,
        cols: Option<&[bool]>,
    ) -> Vec<Tuple> {
        if let Some(id) = snap.ssi {
            self.mgr
                .ssi
                .lock_index(id, index.id, nestor_txn::KeyLock::All);
        }
        let mut rows: Option<Vec<RowId>> = None;
        for k in keys {
            let mut found = index.exact_row_ids(k);
            found.sort_unstable();
            found.dedup();
            rows = Some(match rows {
                None => found,
                Some(prev) if all => {
                    let mut both = prev;
                    both.retain(|r| found.binary_search(r).is_ok());
                    both
                }
                Some(mut prev) => {
                    prev.extend(found);
                    prev.sort_unstable();
                    prev.dedup();
                    prev
                }
            });
            if all && rows.as_ref().is_some_and(Vec::is_empty) {
                break;
            }
        }
        let mut out = Vec::new();
        for row in rows.unwrap_or_default() {
            let Some(slot) = self.slot(row) else { continue };
            let versions = slot.versions.lock();
            if snap.ssi.is_some() {
                self.ssi_read_row(&versions, snap, row, true);
            }
            if let Some(v) = self.visible(&versions, snap) {
                out.push(Self::tuple_of(row, v, cols));
            }
        }
        out
    }

    /// The row an index entry points at, when the entry is its visible
    /// version's key: each visible row is met once, at the entry of its
    /// visible key (which lies within the scan's bounds, as `key` does).
    /// Notes the read for SERIALIZABLE; `lock_rows` turns off once the
    /// SSI manager stops taking row locks.
    fn entry_row(
        &self,
        rows: &Rows,
        read: &EntryRead<'_>,
        entry: (&[u8], RowId),
        scratch: &mut Vec<u8>,
        lock_rows: &mut bool,
    ) -> Option<Tuple> {
        self.entry_version(rows, read, entry, scratch, lock_rows, |row, v| {
            Self::tuple_of(row, v, read.cols)
        })
    }

    /// [`Table::entry_row`] handing the visible version to `take` (under
    /// the row's latch) instead of decoding it into a new tuple.
    fn entry_version<R>(
        &self,
        rows: &Rows,
        read: &EntryRead<'_>,
        (key, row): (&[u8], RowId),
        scratch: &mut Vec<u8>,
        lock_rows: &mut bool,
        take: impl FnOnce(RowId, &Version) -> R,
    ) -> Option<R> {
        let slot = rows.get(row)?;
        let versions = slot.versions.lock();
        let mut found = None;
        if let Some(v) = self.visible(&versions, read.snap) {
            // Only a rekeyed row can have an entry its visible version
            // does not hold (see `Chain`).
            let holds = !versions.rekeyed() || {
                scratch.clear();
                read.index.put_stored_key(&v.data, scratch).is_some()
                    && (scratch.as_slice() == key
                        || (read.index.is_multi() && index::blob_has(scratch, key)))
            };
            if holds {
                found = Some(take(row, v));
            }
        }
        if read.snap.ssi.is_some() {
            let lock = *lock_rows && found.is_some();
            if !self.ssi_read_row(&versions, read.snap, row, lock) && lock {
                *lock_rows = false;
            }
        }
        found
    }

    /// One batch of an index range scan: at most `max_rows` visible rows
    /// within the bounds, in key order (`backward`: descending), starting
    /// at the entry `resume` (None: at the start), decoded in place into the first
    /// `width` (the table's column count) slots of `out[0]`, `out[1]`, ...
    /// (the columns `cols` leaves unmarked are not touched, see
    /// `codec::decode_in_place`); `out` gets another all-NULL buffer of
    /// `width` + [`TUPLE_SPARE_VALUES`] values when it runs short, so a
    /// lookup that finds one row makes one. `heads` gets, per row, where it
    /// came from and where its stored values ended (as
    /// [`TableScan::next_in_place`] returns). Nothing else is allocated per
    /// row but the values themselves, and a batch small enough to stay in
    /// the CPU cache is handed up while it is still there. Returns where
    /// the next batch resumes (None: the range is exhausted).
    ///
    /// Reading in batches lets `ORDER BY col LIMIT n` stop after a few
    /// entries and never holds the index lock while the rows flow up the
    /// plan. A row visible to the snapshot keeps its visible key's entry
    /// until no snapshot can see that version, so across batches each
    /// visible row is still met exactly once.
    #[allow(clippy::too_many_arguments)]
    pub fn index_scan_batch_into(
        &self,
        index: &Index,
        (lo, hi): (Bound<&[Value]>, Bound<&[Value]>),
        snap: &Snapshot,
        cols: Option<&[bool]>,
        (backward, resume, max_rows): (bool, Option<&[u8]>, usize),
        (out, width): (&mut Vec<Vec<Value>>, usize),
        heads: &mut Vec<(TupleHead, usize)>,
    ) -> Option<Vec<u8>> {
        assert!(max_rows > 0, "a batch holds at least one row");
        heads.clear();
        let bounds = index.byte_bounds(lo, hi);
        let mut lock_rows = snap.ssi.is_some();
        if let Some(id) = snap.ssi {
            self.mgr.ssi.lock_index(id, index.id, bounds.key_lock());
        }
        let upto = cols.map_or(usize::MAX, codec::mask_end);
        let entries = index.entries.read();
        let rows = self.rows.read();
        let mut scratch = Vec::new();
        let read = EntryRead { index, snap, cols };
        let mut next = None;
        crate::index::visit_range_from(&entries, &bounds, resume, backward, |entry, key, row| {
            if heads.len() == max_rows {
                next = Some(entry.to_vec());
                return false;
            }
            if heads.len() == out.len() {
                out.push(vec![Value::Null; width + TUPLE_SPARE_VALUES]);
            }
            let buf = &mut out[heads.len()][..width];
            let found = self.entry_version(
                &rows,
                &read,
                (key, row),
                &mut scratch,
                &mut lock_rows,
                |row, v| {
                    let stored = codec::decode_in_place(&v.data, cols, upto, buf);
                    let head = TupleHead {
                        row,
                        xmin: v.xmin,
                        xmax: v.xmax,
                    };
                    (head, stored)
                },
            );
            heads.extend(found);
            true
        });
        next
    }

    // ----- writing -------------------------------------------------------

    fn check_row(&self, data: &[Value]) {
        for idx in self.indexes.read().iter() {
            assert!(
                idx.columns.iter().all(|&c| c < data.len()),
                "row too short for index"
            );
        }
    }

    /// Insert a new row. Unique indexes are checked the PostgreSQL way: a
    /// second inserter of a key waits for the first to finish.
    pub fn insert(
        &self,
        txn: &mut Transaction,
        data: &[Value],
        ctl: &WaitCtl<'_>,
    ) -> Result<RowId, StorageError> {
        self.check_row(data);
        let xid = txn.assign_xid();
        let version = Version {
            xmin: xid,
            cmin: txn.cid(),
            xmin_csn: Csn::NONE,
            xmax: Xid::NONE,
            cmax: CommandId(0),
            xmax_csn: Csn::NONE,
            data: codec::StoredRow::new(codec::encode_row(data)),
        };
        let row = {
            let mut rows = self.rows.write();
            let id = rows.push();
            rows.get(id)
                .expect("just allocated")
                .versions
                .lock()
                .push(version);
            id
        };
        txn.push_undo(DataUndo::Insert { rel: self.id, row })?;
        txn.ssi_write_heap(self.id, None)?;
        for idx in self.indexes() {
            let key = if idx.is_computed() {
                idx.try_key_bytes(data).map_err(StorageError::Eval)?
            } else {
                idx.key_bytes(data)
            };
            if !key.is_empty() {
                self.add_index_entry(txn, &idx, data, key, row, ctl)?;
            }
        }
        Ok(row)
    }

    /// Update `row` to `data`. See the module header for the protocol.
    pub fn update(
        &self,
        txn: &mut Transaction,
        row: RowId,
        data: &[Value],
        snap: &Snapshot,
        ctl: &WaitCtl<'_>,
        recheck: Recheck,
    ) -> Result<WriteResult, StorageError> {
        self.check_row(data);
        let mut mode = LockMode::NoKeyUpdate;
        loop {
            let (newly, outcome) =
                self.lock_target(txn, row, mode, WaitPolicy::Block, snap, ctl, recheck)?;
            let old = match outcome {
                Target::Ok(old) => old,
                Target::Outcome(o) => {
                    self.release_unless_changed(txn, row, newly, &o);
                    return Ok(o);
                }
            };
            // Each index's key of the new version, and whether the update
            // changes it.
            let keys: Vec<NewKey> = match self.new_keys(data, &old) {
                Ok(keys) => keys,
                Err(e) => {
                    self.unlock_if_new(txn, row, newly);
                    return Err(StorageError::Eval(e));
                }
            };
            if mode == LockMode::NoKeyUpdate && keys.iter().any(|(idx, _, c)| *c && idx.unique) {
                mode = LockMode::Update;
                continue;
            }
            let slot = self.slot(row).expect("locked row exists");
            let replaced;
            {
                let mut versions = slot.versions.lock();
                if keys.iter().all(|k| !k.2) {
                    self.trim_chain(&mut versions, &keys);
                } else {
                    // Before the new key's entry exists (see `Chain`).
                    versions.mark_rekeyed();
                }
                replaced = versions.last().expect("locked row has a version").xmin;
                expire_newest(&mut versions, txn);
                versions.push(Version {
                    xmin: txn.xid(),
                    cmin: txn.cid(),
                    xmin_csn: Csn::NONE,
                    xmax: Xid::NONE,
                    cmax: CommandId(0),
                    xmax_csn: Csn::NONE,
                    data: codec::StoredRow::new(codec::encode_row(data)),
                });
            }
            self.note_superseded();
            txn.push_undo(DataUndo::Update { rel: self.id, row })?;
            txn.ssi_write_heap(self.id, Some((row, replaced)))?;
            for (idx, key, _) in keys.into_iter().filter(|k| k.2 && !k.1.is_empty()) {
                self.add_index_entry(txn, &idx, data, key, row, ctl)?;
            }
            return Ok(WriteResult::Done);
        }
    }

    /// Each index's key of an UPDATE's new version `data`, and whether
    /// it differs from the old version's. A computed index's expression
    /// error is the update's.
    fn new_keys(
        &self,
        data: &[Value],
        old: &[Value],
    ) -> Result<Vec<NewKey>, nestor_common::DbError> {
        self.indexes()
            .into_iter()
            .map(|idx| {
                let key = if idx.is_computed() {
                    idx.try_key_bytes(data)?
                } else {
                    idx.key_bytes(data)
                };
                let changed = key != idx.key_bytes(old);
                Ok((idx, key, changed))
            })
            .collect()
    }

    /// Delete `row`.
    pub fn delete(
        &self,
        txn: &mut Transaction,
        row: RowId,
        snap: &Snapshot,
        ctl: &WaitCtl<'_>,
        recheck: Recheck,
    ) -> Result<WriteResult, StorageError> {
        let (newly, outcome) = self.lock_target(
            txn,
            row,
            LockMode::Update,
            WaitPolicy::Block,
            snap,
            ctl,
            recheck,
        )?;
        if let Target::Outcome(o) = outcome {
            self.release_unless_changed(txn, row, newly, &o);
            return Ok(o);
        }
        let slot = self.slot(row).expect("locked row exists");
        let deleted = {
            let mut versions = slot.versions.lock();
            let xmin = versions.last().expect("locked row has a version").xmin;
            expire_newest(&mut versions, txn);
            xmin
        };
        self.note_superseded();
        txn.push_undo(DataUndo::Delete { rel: self.id, row })?;
        txn.ssi_write_heap(self.id, Some((row, deleted)))?;
        Ok(WriteResult::Done)
    }

    /// SELECT ... FOR <mode>: lock the row, with the same re-check rules as
    /// a write.
    #[allow(clippy::too_many_arguments)]
    pub fn lock_row(
        &self,
        txn: &mut Transaction,
        row: RowId,
        mode: LockMode,
        policy: WaitPolicy,
        snap: &Snapshot,
        ctl: &WaitCtl<'_>,
        recheck: Recheck,
    ) -> Result<LockResult, StorageError> {
        let (newly, outcome) = match self.lock_target(txn, row, mode, policy, snap, ctl, recheck) {
            Ok(x) => x,
            Err(StorageError::Txn(TxnError::LockNotAvailable { .. }))
                if policy == WaitPolicy::SkipLocked =>
            {
                return Ok(LockResult::Skipped)
            }
            Err(e) => return Err(e),
        };
        match outcome {
            Target::Ok(_) => Ok(LockResult::Locked),
            Target::Outcome(o) => {
                self.release_unless_changed(txn, row, newly, &o);
                Ok(match o {
                    WriteResult::Changed(r) => LockResult::Changed(r),
                    WriteResult::Gone => LockResult::Gone,
                    WriteResult::Done | WriteResult::SelfModified | WriteResult::ModifiedLater => {
                        LockResult::Locked
                    }
                })
            }
        }
    }

    /// Take the row lock, then classify the newest version. Returns whether
    /// the lock was newly granted by this call (so a skipped row can give it
    /// back) and the target.
    #[allow(clippy::too_many_arguments)]
    fn lock_target(
        &self,
        txn: &mut Transaction,
        row: RowId,
        mode: LockMode,
        policy: WaitPolicy,
        snap: &Snapshot,
        ctl: &WaitCtl<'_>,
        recheck: Recheck,
    ) -> Result<(bool, Target), StorageError> {
        let what = || self.what();
        let got = txn.lock(LockKey::Row(self.id, row), mode, policy, ctl, &what)?;
        let newly = match got {
            Acquired::Skipped => {
                return Err(StorageError::Txn(TxnError::LockNotAvailable {
                    what: what(),
                }))
            }
            Acquired::Granted { prev } => {
                assert!(
                    recheck == Recheck::Snapshot || prev.is_some(),
                    "Recheck::Latest requires the row lock kept from the Changed result"
                );
                true
            }
            Acquired::AlreadyHeld => false,
        };
        let target = if mode == LockMode::KeyShare {
            self.classify_for_key_share(txn, row, snap, recheck)
        } else {
            self.classify_newest(txn, row, snap, recheck)
        };
        match target {
            Ok(t) => Ok((newly, t)),
            Err(e) => {
                self.unlock_if_new(txn, row, newly);
                Err(e)
            }
        }
    }

    fn classify_newest(
        &self,
        txn: &mut Transaction,
        row: RowId,
        snap: &Snapshot,
        recheck: Recheck,
    ) -> Result<Target, StorageError> {
        let Some(slot) = self.slot(row) else {
            return Ok(Target::Outcome(WriteResult::Gone));
        };
        let versions = slot.versions.lock();
        let Some(newest) = versions.last() else {
            return Ok(Target::Outcome(WriteResult::Gone));
        };
        let own = txn.xid();
        let rr = txn.isolation().uses_transaction_snapshot();
        // We hold the row lock: every other writer of this row has ended or
        // is sequenced (it released its row locks early and waits for its
        // flush), so its stamps resolve to committed (aborted ones were
        // undone). A commit read here is noted for our later snapshots.
        if !newest.xmax.is_none() {
            if newest.xmax == own {
                let o = if newest.cmax == txn.cid() {
                    WriteResult::SelfModified
                } else if newest.cmax.0 > txn.cid().0 {
                    WriteResult::ModifiedLater
                } else {
                    WriteResult::Gone
                };
                return Ok(Target::Outcome(o));
            }
            let csn = self.committed_csn(newest.xmax, newest.xmax_csn);
            txn.note_commit_seen(csn);
            if rr && csn > snap.horizon {
                return Err(TxnError::SerializationFailure { deleted: true }.into());
            }
            return Ok(Target::Outcome(WriteResult::Gone));
        }
        if newest.xmin == own {
            if newest.cmin == txn.cid() {
                return Ok(Target::Outcome(WriteResult::SelfModified));
            }
            if newest.cmin.0 > txn.cid().0 {
                return Ok(Target::Outcome(WriteResult::ModifiedLater));
            }
            return Ok(Target::Ok(newest.row()));
        }
        let csn = self.committed_csn(newest.xmin, newest.xmin_csn);
        txn.note_commit_seen(csn);
        if csn <= snap.horizon || recheck == Recheck::Latest {
            return Ok(Target::Ok(newest.row()));
        }
        if rr {
            return Err(TxnError::SerializationFailure { deleted: false }.into());
        }
        Ok(Target::Outcome(WriteResult::Changed(newest.row())))
    }

    /// FOR KEY SHARE's view of the row. Its lock is compatible with a
    /// non-key update's NoKeyUpdate, so, unlike every other mode, it may be
    /// granted while another transaction's non-key update of the row is
    /// still running (or rolling back): that writer's version is not there
    /// yet for us, and its `xmax` on the version before it is no delete (a
    /// delete or key update takes Update, which would have made us wait).
    /// And as in PostgreSQL (heap_lock_tuple), a non-key update committed
    /// after our snapshot does not disturb a key-share lock: the row we saw
    /// is locked and returned as it was, at any isolation level; only a
    /// committed delete or key change is a conflict.
    ///
    /// ```text
    ///   versions  [v1 (1,'one') csn 5]  [v2 (1,'two') xmin 41 running]
    ///   snapshot horizon 7:  KeyShare -> Ok (v1 locked; 41 may commit)
    ///   41 commits at csn 9: KeyShare -> Ok (keys of v2 = keys of v1)
    ///   v2 = (2,'two'), id unique, committed csn 9:
    ///                        RR -> 40001, RC -> Changed(v2)
    /// ```
    fn classify_for_key_share(
        &self,
        txn: &mut Transaction,
        row: RowId,
        snap: &Snapshot,
        recheck: Recheck,
    ) -> Result<Target, StorageError> {
        let Some(slot) = self.slot(row) else {
            return Ok(Target::Outcome(WriteResult::Gone));
        };
        let versions = slot.versions.lock();
        let own = txn.xid();
        let settled = |x: Xid, hint: Csn| -> bool {
            x == own
                || hint != Csn::NONE
                || matches!(self.mgr.state(x), Some(XidState::Committed(_)) | None)
        };
        // Versions of a writer still running (or being undone) are not there.
        let mut end = versions.len();
        while end > 0 && !settled(versions[end - 1].xmin, versions[end - 1].xmin_csn) {
            end -= 1;
        }
        let live = &versions[..end];
        let Some(newest) = live.last() else {
            return Ok(Target::Outcome(WriteResult::Gone));
        };
        let rr = txn.isolation().uses_transaction_snapshot();
        let unsettled_xmax = !newest.xmax.is_none() && !settled(newest.xmax, newest.xmax_csn);
        assert!(
            !unsettled_xmax || end < versions.len(),
            "a running delete of row {row} holds a lock compatible with FOR KEY SHARE"
        );
        if !newest.xmax.is_none() && !unsettled_xmax {
            if newest.xmax == own {
                let o = if newest.cmax == txn.cid() {
                    WriteResult::SelfModified
                } else if newest.cmax.0 > txn.cid().0 {
                    WriteResult::ModifiedLater
                } else {
                    WriteResult::Gone
                };
                return Ok(Target::Outcome(o));
            }
            let csn = self.committed_csn(newest.xmax, newest.xmax_csn);
            txn.note_commit_seen(csn);
            if rr && csn > snap.horizon {
                return Err(TxnError::SerializationFailure { deleted: true }.into());
            }
            return Ok(Target::Outcome(WriteResult::Gone));
        }
        if newest.xmin == own {
            if newest.cmin == txn.cid() {
                return Ok(Target::Outcome(WriteResult::SelfModified));
            }
            if newest.cmin.0 > txn.cid().0 {
                return Ok(Target::Outcome(WriteResult::ModifiedLater));
            }
            return Ok(Target::Ok(newest.row()));
        }
        txn.note_commit_seen(self.committed_csn(newest.xmin, newest.xmin_csn));
        if recheck == Recheck::Latest {
            return Ok(Target::Ok(newest.row()));
        }
        // Walk back over the versions committed after the snapshot: each must
        // have kept every unique key of the version before it.
        let unique: Vec<Arc<Index>> = self.indexes().into_iter().filter(|i| i.unique).collect();
        let mut i = live.len() - 1;
        loop {
            let v = &live[i];
            if v.xmin == own || self.committed_csn(v.xmin, v.xmin_csn) <= snap.horizon {
                return Ok(Target::Ok(newest.row()));
            }
            let keeps_keys = i > 0 && {
                let (new, old) = (v.row(), live[i - 1].row());
                unique
                    .iter()
                    .all(|idx| idx.key_bytes(&new) == idx.key_bytes(&old))
            };
            if !keeps_keys {
                break;
            }
            i -= 1;
        }
        if rr {
            return Err(TxnError::SerializationFailure { deleted: false }.into());
        }
        Ok(Target::Outcome(WriteResult::Changed(newest.row())))
    }

    /// CSN of a header XID that must be committed (we hold the row lock).
    fn committed_csn(&self, xid: Xid, hint: Csn) -> Csn {
        if hint != Csn::NONE {
            return hint;
        }
        match self.mgr.state(xid) {
            Some(XidState::Committed(csn)) => csn,
            other => panic!("row-lock holder saw {xid} in state {other:?}"),
        }
    }

    /// A row that is gone or self-modified is skipped: give back a lock this
    /// call took. A `Changed` row keeps its lock, so the newest version the
    /// caller re-checks stays the newest until its `Recheck::Latest` retry
    /// (as PostgreSQL keeps the tuple lock its EvalPlanQual took, even when
    /// the re-check then fails).
    fn release_unless_changed(
        &self,
        txn: &mut Transaction,
        row: RowId,
        newly: bool,
        o: &WriteResult,
    ) {
        if !matches!(o, WriteResult::Changed(_)) {
            self.unlock_if_new(txn, row, newly);
        }
    }

    fn unlock_if_new(&self, txn: &mut Transaction, row: RowId, newly: bool) {
        if newly {
            txn.undo_last_lock(LockKey::Row(self.id, row));
        }
    }

    /// Add `key` (`data`'s key in `idx`, as `Index::key_bytes` gives it)
    /// and `row` to `idx`, enforcing uniqueness.
    fn add_index_entry(
        &self,
        txn: &mut Transaction,
        idx: &Index,
        data: &[Value],
        key: Vec<u8>,
        row: RowId,
        ctl: &WaitCtl<'_>,
    ) -> Result<(), StorageError> {
        if idx.is_multi() {
            return self.add_multi_entries(txn, idx, &key, row);
        }
        let checked = idx.unique && !idx.key_has_null(data);
        loop {
            let seen_undos = self.mgr.locks.undos();
            let mut entries = idx.entries.write();
            if checked {
                match self.unique_conflict(txn, idx, &entries, &key, row) {
                    Conflict::None => {}
                    Conflict::Live => {
                        // SERIALIZABLE: report the rw-conflict this insert
                        // would have been first (PostgreSQL checks before
                        // raising the violation, so SSI wins).
                        if txn.ssi().is_some() {
                            drop(entries);
                            let entry = index::entry(&key, row);
                            txn.ssi_write_index(
                                idx.id,
                                entry.as_bytes(),
                                &idx.key_prefix_ends(data),
                            )?;
                        }
                        return Err(StorageError::UniqueViolation {
                            schema: self.schema(),
                            table: self.name(),
                            constraint: idx.name(),
                            columns: idx.key_names(),
                            key: idx.key_of(data),
                        });
                    }
                    Conflict::Pending(other) => {
                        drop(entries);
                        txn.wait_for(other, seen_undos, ctl)?;
                        continue;
                    }
                }
            }
            let entry = index::entry(&key, row);
            if txn.ssi().is_none() {
                entries.insert(entry);
                return Ok(());
            }
            let bytes = entry.as_bytes().to_vec();
            entries.insert(entry);
            drop(entries);
            txn.ssi_write_index(idx.id, &bytes, &idx.key_prefix_ends(data))?;
            return Ok(());
        }
    }

    /// A multi-key (GIN) index: one entry per key of the blob (never
    /// unique). SERIALIZABLE notes each entry as written.
    fn add_multi_entries(
        &self,
        txn: &mut Transaction,
        idx: &Index,
        blob: &[u8],
        row: RowId,
    ) -> Result<(), StorageError> {
        let made: Vec<codec::Key> = index::split_keys(blob)
            .map(|k| index::entry(k, row))
            .collect();
        let written: Vec<Vec<u8>> = if txn.ssi().is_some() {
            made.iter().map(|e| e.as_bytes().to_vec()).collect()
        } else {
            Vec::new()
        };
        {
            let mut entries = idx.entries.write();
            for e in made {
                entries.insert(e);
            }
        }
        for (bytes, k) in written.iter().zip(index::split_keys(blob)) {
            txn.ssi_write_index(idx.id, bytes, &[k.len()])?;
        }
        Ok(())
    }

    fn unique_conflict(
        &self,
        txn: &Transaction,
        idx: &Index,
        entries: &std::collections::BTreeSet<codec::Key>,
        key: &[u8],
        me: RowId,
    ) -> Conflict {
        let mut others = Vec::new();
        visit_range(entries, &ByteBounds::exact(key), |_, other| {
            if other != me {
                others.push(other);
            }
        });
        let mut scratch = Vec::new();
        for other_row in others {
            let Some(slot) = self.slot(other_row) else {
                continue;
            };
            let versions = slot.versions.lock();
            for v in versions.iter() {
                scratch.clear();
                if idx.put_stored_key(&v.data, &mut scratch).is_some() && scratch == key {
                    match self.liveness(txn.xid(), v) {
                        Conflict::None => {}
                        c => return c,
                    }
                }
            }
        }
        Conflict::None
    }

    /// Whether a version holding a unique key blocks a new one, regardless
    /// of snapshots (uniqueness is about the latest state).
    fn liveness(&self, own: Xid, v: &Version) -> Conflict {
        let state = |x: Xid, hint: Csn| -> Who {
            if x == own {
                Who::Own
            } else if hint != Csn::NONE {
                Who::Committed
            } else {
                match self.mgr.state(x) {
                    Some(XidState::InProgress) => Who::Running(x),
                    // Sequenced but not yet visible (its flush may still be
                    // running): wait for it like a running transaction, so
                    // the 23505 that follows is about a row the next
                    // statement can see (PostgreSQL waits for the xact lock).
                    Some(XidState::Committed(csn)) if csn > self.mgr.horizon() => Who::Running(x),
                    Some(XidState::Committed(_)) => Who::Committed,
                    Some(XidState::Aborted) | None => Who::Aborted,
                }
            }
        };
        match state(v.xmin, v.xmin_csn) {
            Who::Aborted => return Conflict::None,
            Who::Running(x) => return Conflict::Pending(x),
            Who::Own | Who::Committed => {}
        }
        if v.xmax.is_none() {
            return Conflict::Live;
        }
        match state(v.xmax, v.xmax_csn) {
            Who::Own | Who::Committed => Conflict::None,
            Who::Aborted => Conflict::Live,
            Who::Running(x) => Conflict::Pending(x),
        }
    }

    // ----- undo, commit stamping, pruning --------------------------------

    pub(crate) fn undo(&self, xid: Xid, change: &DataUndo) {
        let (row, removed) = match change {
            DataUndo::Insert { row, .. } | DataUndo::Update { row, .. } => {
                let slot = self.slot(*row).expect("undo of a known row");
                let mut versions = slot.versions.lock();
                let v = versions.pop().expect("undo of a write finds its version");
                assert!(
                    v.xmin == xid && v.xmin_csn == Csn::NONE,
                    "undo pops an own version"
                );
                if matches!(change, DataUndo::Update { .. }) {
                    let prev = versions
                        .last_mut()
                        .expect("an update has a previous version");
                    assert_eq!(prev.xmax, xid, "undo of update clears own xmax");
                    prev.xmax = Xid::NONE;
                    prev.cmax = CommandId(0);
                } else {
                    assert!(versions.is_empty(), "undo of insert empties the row");
                }
                (*row, Some(v))
            }
            DataUndo::Delete { row, .. } => {
                let slot = self.slot(*row).expect("undo of a known row");
                let mut versions = slot.versions.lock();
                let v = versions
                    .last_mut()
                    .expect("undo of delete finds the version");
                assert_eq!(v.xmax, xid, "undo of delete clears own xmax");
                v.xmax = Xid::NONE;
                v.cmax = CommandId(0);
                (*row, None)
            }
            DataUndo::Ddl(_) => return,
        };
        if let Some(v) = removed {
            for idx in self.indexes() {
                let key = idx.stored_key_bytes(&v.data);
                if !key.is_empty() {
                    self.remove_entry_if_unused(&idx, &key, row);
                }
            }
        }
    }

    /// Remove (key, row) from `idx` unless some version of the row still
    /// has that key. Index lock first, then the row latch.
    fn remove_entry_if_unused(&self, idx: &Index, key: &[u8], row: RowId) -> bool {
        if idx.is_multi() {
            return self.remove_multi_if_unused(idx, key, row);
        }
        let mut entries = idx.entries.write();
        if let Some(slot) = self.slot(row) {
            let versions = slot.versions.lock();
            if versions
                .iter()
                .any(|v| idx.stored_key_bytes(&v.data) == key)
            {
                return false;
            }
        }
        entries.remove(&index::entry(key, row))
    }

    /// [`Table::remove_entry_if_unused`] for each key of a multi-key
    /// blob: a key stays while some version of the row still has it.
    fn remove_multi_if_unused(&self, idx: &Index, blob: &[u8], row: RowId) -> bool {
        let mut entries = idx.entries.write();
        let held: Vec<Vec<u8>> = match self.slot(row) {
            Some(slot) => slot
                .versions
                .lock()
                .iter()
                .map(|v| idx.stored_key_bytes(&v.data))
                .collect(),
            None => Vec::new(),
        };
        let mut removed = false;
        for k in index::split_keys(blob) {
            if !held.iter().any(|h| index::blob_has(h, k)) {
                removed |= entries.remove(&index::entry(k, row));
            }
        }
        removed
    }

    pub(crate) fn stamp(&self, xid: Xid, csn: Csn, row: RowId) {
        let Some(slot) = self.slot(row) else { return };
        let mut versions = slot.versions.lock();
        // The committer's versions are contiguous (it held the row lock
        // while it wrote them) and the version it replaced or deleted is
        // the one just before them: stop there. Having released its row
        // locks early (docs/transactions.md), it may find a later
        // writer's versions on top: skip those.
        //
        //   [v1 xmax=T] [v2 xmin=T xmax=U] [v3 xmin=U]    stamp T
        //        ^stop        ^stamp          ^skip
        let mut inside = false;
        for v in versions.iter_mut().rev() {
            if v.xmax == xid {
                v.xmax_csn = csn;
            }
            if v.xmin == xid {
                v.xmin_csn = csn;
                inside = true;
            } else if inside || v.xmax == xid {
                break;
            }
        }
    }

    /// Remove versions whose deletion committed at or below `horizon` (no
    /// snapshot at or above it can see them) and their index entries.
    pub fn prune(&self, horizon: Csn) -> PruneStats {
        self.prune_by(horizon, PruneBy::Background)
    }

    /// Versions superseded (UPDATE, DELETE, also by transactions that
    /// rolled back) and not pruned yet: pg_stat_all_tables.n_dead_tup.
    pub fn dead_versions(&self) -> u64 {
        self.superseded.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// (passes, end of the last one in Unix microseconds if any) of the
    /// prunes made by `by`.
    pub fn prune_passes(&self, by: PruneBy) -> (u64, Option<i64>) {
        use std::sync::atomic::Ordering::Relaxed;
        let (n, at) = &self.prunes[by as usize];
        let at = at.load(Relaxed);
        (n.load(Relaxed), (at != 0).then_some(at))
    }

    /// [`Table::prune`], counted as `by`'s.
    pub fn prune_by(&self, horizon: Csn, by: PruneBy) -> PruneStats {
        let stats = self.prune_versions(horizon);
        {
            use std::sync::atomic::Ordering::Relaxed;
            let (n, at) = &self.prunes[by as usize];
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros() as i64);
            n.fetch_add(1, Relaxed);
            at.store(now, Relaxed);
        }
        // Versions a held-back horizon kept stay counted for the next pass.
        use std::sync::atomic::Ordering::Relaxed;
        let removed = stats.versions_removed;
        let _ = self
            .superseded
            .fetch_update(Relaxed, Relaxed, |c| Some(c.saturating_sub(removed)));
        self.pruned_at.fetch_max(horizon.0, Relaxed);
        stats
    }

    fn prune_versions(&self, horizon: Csn) -> PruneStats {
        let mut stats = PruneStats::default();
        let n = self.row_id_count();
        let indexes = self.indexes();
        for i in 0..n {
            let row = RowId(i);
            let Some(slot) = self.slot(row) else { break };
            let removed: Vec<Version> = {
                let mut versions = slot.versions.lock();
                let dead = |v: &Version| v.xmax_csn != Csn::NONE && v.xmax_csn <= horizon;
                if !versions.iter().any(dead) {
                    continue;
                }
                let gone = versions.remove_where(dead);
                if versions.is_empty() {
                    stats.rows_removed += 1;
                }
                gone
            };
            stats.versions_removed += removed.len() as u64;
            for idx in &indexes {
                let mut keys: Vec<Vec<u8>> = removed
                    .iter()
                    .map(|v| idx.stored_key_bytes(&v.data))
                    .collect();
                keys.sort();
                keys.dedup();
                for key in keys.into_iter().filter(|k| !k.is_empty()) {
                    if self.remove_entry_if_unused(idx, &key, row) {
                        stats.index_entries_removed += 1;
                    }
                }
            }
        }
        stats
    }

    // ----- redo and recovery ----------------------------------------------

    /// Append the redo of `xid`'s final effect on `row` to `out`: its
    /// newest own version (the stored bytes, copied), or a delete. Nothing
    /// if the transaction left the row as it found it.
    pub(crate) fn encode_final_image(&self, xid: Xid, row: RowId, out: &mut Vec<u8>) {
        let Some(slot) = self.slot(row) else { return };
        let versions = slot.versions.lock();
        let Some(newest) = versions.last() else {
            return;
        };
        if newest.xmax == xid {
            crate::redo::encode_op(&crate::redo::RedoOp::Delete { rel: self.id, row }, out);
        } else if newest.xmin == xid {
            crate::redo::encode_put(self.id, row, &newest.data, out);
        }
    }

    /// The transactions other than `own` still running that created or
    /// deleted a version of a row here (a rewrite of the table checks that
    /// its lock left none, so no row is left behind in the old storage).
    pub fn running_writers(&self, own: Xid) -> Vec<Xid> {
        let running = |x: Xid| {
            !x.is_none() && x != own && matches!(self.mgr.state(x), Some(XidState::InProgress))
        };
        let mut out = Vec::new();
        for i in 0..self.row_id_count() {
            let Some(slot) = self.slot(RowId(i)) else {
                break;
            };
            let versions = slot.versions.lock();
            for v in versions.iter() {
                for x in [v.xmin, v.xmax] {
                    if running(x) && !out.contains(&x) {
                        out.push(x);
                    }
                }
            }
        }
        out
    }

    /// Call `f` with the stored form of each row visible to `snap`, in row
    /// order (a checkpoint writes these bytes as they are). The row latch
    /// is released before `f` runs.
    pub fn for_each_stored<E>(
        &self,
        snap: &Snapshot,
        mut f: impl FnMut(RowId, &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut buf = Vec::new();
        for i in 0..self.row_id_count() {
            let row = RowId(i);
            let Some(slot) = self.slot(row) else { break };
            buf.clear();
            {
                let versions = slot.versions.lock();
                match self.visible(&versions, snap) {
                    Some(v) => buf.extend_from_slice(&v.data),
                    None => continue,
                }
            }
            f(row, &buf)?;
        }
        Ok(())
    }

    /// Recovery: make the stored row `stored` (checked by the redo reader)
    /// the only, committed version of `row`. Indexes are rebuilt once at
    /// the end of recovery ([`Table::rebuild_indexes`]).
    pub fn recover_put(&self, row: RowId, stored: Box<[u8]>) {
        let slot = self.slot_for_recovery(row);
        let mut versions = slot.versions.lock();
        versions.clear();
        versions.push(Version {
            xmin: Xid::NONE,
            cmin: CommandId(0),
            xmin_csn: Csn::BOOTSTRAP,
            xmax: Xid::NONE,
            cmax: CommandId(0),
            xmax_csn: Csn::NONE,
            data: codec::StoredRow::new(stored),
        });
    }

    /// Recovery: the row is deleted.
    pub fn recover_delete(&self, row: RowId) {
        if let Some(slot) = self.slot(row) {
            slot.versions.lock().clear();
        }
    }

    /// A replica applying a primary's commit: `row` becomes `stored` as a
    /// new version written by `txn` (the walreceiver's local transaction),
    /// invisible until it commits, so readers keep their snapshots while
    /// replay goes on. No row lock and no unique check: the replica's
    /// only writer is its applier, and the primary already checked the
    /// keys (a transaction's changes may pass through states a check
    /// would refuse, e.g. a key moved from one row to another).
    pub fn apply_put(
        &self,
        txn: &mut Transaction,
        row: RowId,
        stored: Box<[u8]>,
    ) -> Result<(), StorageError> {
        let xid = txn.assign_xid();
        // Index entries of the new version (stale ones of older versions
        // go with pruning, as on the primary).
        let mut keys: Vec<(Arc<Index>, codec::Key)> = Vec::new();
        let indexes = self.indexes();
        for idx in indexes.iter().cloned() {
            let mut key = Vec::new();
            if idx.put_stored_key(&stored, &mut key).is_none() {
                continue;
            }
            if idx.is_multi() {
                for k in index::split_keys(&key) {
                    keys.push((idx.clone(), index::entry(k, row)));
                }
                continue;
            }
            codec::put_row_id(row, &mut key);
            keys.push((idx, codec::Key::new(&key)));
        }
        let slot = self.slot_for_recovery(row);
        let replaced = {
            let mut versions = slot.versions.lock();
            let replaced = versions.last().is_some_and(|v| v.xmax.is_none());
            if replaced {
                expire_newest(&mut versions, txn);
            }
            if rekeys(&versions, &indexes, &stored) {
                versions.mark_rekeyed();
            }
            versions.push(Version {
                xmin: xid,
                cmin: txn.cid(),
                xmin_csn: Csn::NONE,
                xmax: Xid::NONE,
                cmax: CommandId(0),
                xmax_csn: Csn::NONE,
                data: codec::StoredRow::new(stored),
            });
            replaced
        };
        if replaced {
            self.note_superseded();
            txn.push_undo(DataUndo::Update { rel: self.id, row })?;
        } else {
            txn.push_undo(DataUndo::Insert { rel: self.id, row })?;
        }
        for (idx, key) in keys {
            idx.entries.write().insert(key);
        }
        Ok(())
    }

    /// A replica applying a primary's commit: `row` is deleted by `txn`.
    pub fn apply_delete(&self, txn: &mut Transaction, row: RowId) -> Result<(), StorageError> {
        txn.assign_xid();
        let Some(slot) = self.slot(row) else {
            return Ok(());
        };
        {
            let mut versions = slot.versions.lock();
            if !versions.last().is_some_and(|v| v.xmax.is_none()) {
                return Ok(());
            }
            expire_newest(&mut versions, txn);
        }
        self.note_superseded();
        txn.push_undo(DataUndo::Delete { rel: self.id, row })?;
        Ok(())
    }

    fn slot_for_recovery(&self, row: RowId) -> SlotRef {
        let mut rows = self.rows.write();
        while rows.len <= row.0 {
            rows.push();
        }
        rows.get_shared(row).expect("allocated above")
    }

    /// Recovery: row ids below `n` are taken (a checkpoint's count), so new
    /// inserts never reuse an id the log may mention.
    pub fn reserve_row_ids(&self, n: u64) {
        if n > 0 {
            drop(self.slot_for_recovery(RowId(n - 1)));
        }
    }

    /// Recovery: rebuild every index from the rows.
    pub fn rebuild_indexes(&self) {
        for idx in self.indexes() {
            let found = self.index_entries(&idx, false).unwrap_or_default();
            *idx.entries.write() = found.into_iter().map(|(k, _)| k).collect();
        }
    }

    /// REINDEX: build index `id` again from the versions as they are
    /// (dropping the entries of versions pruned since). The caller holds
    /// the table in a mode that keeps writers out (SHARE), so no entry is
    /// added while the new set is built. False if no such index.
    pub fn rebuild_index(&self, id: RelId) -> bool {
        let Some(idx) = self.indexes().into_iter().find(|i| i.id == id) else {
            return false;
        };
        // Not strict: every stored version had its key computed when it
        // was written (as at recovery's rebuild).
        let found = self.index_entries(&idx, false).unwrap_or_default();
        *idx.entries.write() = found.into_iter().map(|(k, _)| k).collect();
        true
    }

    /// Every entry `index` needs for the rows as they are, in key order, one
    /// per (key, row), with whether a live version holds it (for a unique
    /// index's build-time check; always false for other indexes).
    ///
    /// A computed index's key expression may fail on a row: for a live
    /// version that is the error (CREATE INDEX fails, `strict`); a dead
    /// one, or any when not `strict` (recovery), gets no entry.
    fn index_entries(
        &self,
        index: &Index,
        strict: bool,
    ) -> Result<Vec<(codec::Key, bool)>, nestor_common::DbError> {
        let mut found: Vec<(codec::Key, bool)> = Vec::new();
        {
            let rows = self.rows.read();
            let mut key = Vec::new();
            for i in 0..rows.len {
                let row = RowId(i);
                let slot = rows.get(row).expect("row below len");
                let mut versions = slot.versions.lock();
                if versions.len() > 1 && rekeys(&versions[1..], &[index], &versions[0].data) {
                    // Its versions' keys differ: this index gets an entry
                    // per key (see `Chain`).
                    versions.mark_rekeyed();
                }
                for v in versions.iter() {
                    key.clear();
                    if strict && index.is_computed() {
                        if let Err(e) = index.try_key_bytes(&codec::decode_row(&v.data)) {
                            if !matches!(self.liveness(Xid::NONE, v), Conflict::None) {
                                return Err(e);
                            }
                        }
                    }
                    let Some(null) = index.put_stored_key(&v.data, &mut key) else {
                        continue; // outside a partial index's predicate
                    };
                    if index.is_multi() {
                        for k in index::split_keys(&key) {
                            found.push((index::entry(k, row), false));
                        }
                        continue;
                    }
                    let live = index.unique
                        && (!null || index.nulls_not_distinct)
                        && matches!(
                            self.liveness(Xid::NONE, v),
                            Conflict::Live | Conflict::Pending(_)
                        );
                    codec::put_row_id(row, &mut key);
                    found.push((codec::Key::new(&key), live));
                }
            }
        }
        // Key order is (values, row id) order.
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        // Versions of one row with one key are one entry, live if any is.
        found.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 |= later.1;
            }
            same
        });
        Ok(found)
    }

    /// Number of versions of one row (tests and monitoring).
    pub fn version_count(&self, row: RowId) -> usize {
        self.slot(row).map_or(0, |s| s.versions.lock().len())
    }

    /// Attach an index and fill it from every existing version. For a
    /// unique index, fails if two live rows share a key.
    ///
    /// Built in bulk: every (key, row) entry is collected, sorted once,
    /// checked for duplicates among adjacent live entries and loaded into
    /// the B-tree from sorted input (no per-entry tree descent, no hashing
    /// of keys).
    pub fn add_index(&self, index: Arc<Index>) -> Result<(), StorageError> {
        let found = self
            .index_entries(&index, true)
            .map_err(StorageError::Eval)?;
        if index.unique {
            let split: Vec<(&[u8], RowId, bool)> = found
                .iter()
                .map(|(k, live)| {
                    let (values, row) = codec::split_row_id(k.as_bytes());
                    (values, row, *live)
                })
                .collect();
            if let Some((key, row)) = first_duplicate(&split) {
                return Err(StorageError::UniqueViolation {
                    schema: self.schema(),
                    table: self.name(),
                    constraint: index.name(),
                    columns: index.key_names(),
                    key: self.key_values(&index, row, key),
                });
            }
        }
        {
            let mut entries = index.entries.write();
            assert!(entries.is_empty(), "a new index starts empty");
            // Sorted input: BTreeSet builds full nodes from it.
            *entries = found.into_iter().map(|(k, _)| k).collect();
        }
        self.indexes.write().push(index);
        Ok(())
    }

    /// The values of the key `key` as held by a version of `row`.
    fn key_values(&self, index: &Index, row: RowId, key: &[u8]) -> Vec<Value> {
        let slot = self.slot(row).expect("row of an index entry");
        let versions = slot.versions.lock();
        let v = versions
            .iter()
            .find(|v| index.stored_key_bytes(&v.data) == key)
            .expect("a version holds the key");
        index.key_of(&v.row())
    }

    /// Detach an index.
    pub fn drop_index(&self, id: RelId) -> Option<Arc<Index>> {
        let mut idx = self.indexes.write();
        let pos = idx.iter().position(|i| i.id == id)?;
        Some(idx.remove(pos))
    }
}

/// Of index entries sorted by (key, row), with whether each is live: the
/// key a scan in row order would first see twice among live entries of
/// different rows (the duplicate PostgreSQL reports in this case, and the
/// same one whatever the sort did).
fn first_duplicate<K: Eq + Clone>(sorted: &[(K, RowId, bool)]) -> Option<(K, RowId)> {
    let live: Vec<&(K, RowId, bool)> = sorted.iter().filter(|e| e.2).collect();
    let mut best: Option<(RowId, &K)> = None;
    for group in live.chunk_by(|a, b| a.0 == b.0) {
        // Rows ascend within a key: the second distinct row is where a
        // scan in row order meets the key again.
        let Some(first) = group.first() else { continue };
        if let Some(second) = group.iter().find(|e| e.1 != first.1) {
            if best.is_none_or(|(r, _)| second.1 < r) {
                best = Some((second.1, &second.0));
            }
        }
    }
    best.map(|(r, k)| (k.clone(), r))
}

/// Whether `stored` has, for one of `indexes`, a key (or a partial
/// index's coverage) some version in `versions` does not.
fn rekeys<I: Deref<Target = Index>>(versions: &[Version], indexes: &[I], stored: &[u8]) -> bool {
    // A new row (a replica's insert) has nothing to differ from: no key
    // encoded for nothing.
    !versions.is_empty()
        && indexes.iter().any(|idx| {
            let key = idx.stored_key_bytes(stored);
            versions
                .iter()
                .any(|v| idx.stored_key_bytes(&v.data) != key)
        })
}

/// Stamp the newest version of a row whose lock `txn` holds as deleted
/// (or replaced) by the current command.
fn expire_newest(versions: &mut Chain, txn: &Transaction) {
    let newest = versions.last_mut().expect("locked row has versions");
    assert!(newest.xmax.is_none(), "target version already deleted");
    newest.xmax = txn.xid();
    newest.cmax = txn.cid();
}

enum Who {
    Own,
    Committed,
    Running(Xid),
    Aborted,
}

enum Conflict {
    None,
    Live,
    Pending(Xid),
}

/// Iterator over the visible rows of a table, in row-id order. Takes each
/// row's latch only while checking that row.
pub struct TableScan<'a> {
    table: &'a Table,
    next: u64,
    /// The chunk holding `next`, and the first row id past it.
    chunk: Option<(Arc<[RowSlot]>, u64)>,
    snap: Snapshot,
    /// The columns to decode (None: all); see [`TableScan::only`].
    cols: Option<Arc<[bool]>>,
}

impl TableScan<'_> {
    /// Decode only the columns `cols` marks (None: all); the others come
    /// out NULL.
    pub fn only(mut self, cols: Option<Arc<[bool]>>) -> Self {
        self.cols = cols;
        self
    }
}

/// Where a visible row came from, for a reader that decoded its values
/// into a buffer of its own ([`TableScan::next_into`]).
#[derive(Clone, Copy, Debug)]
pub struct TupleHead {
    pub row: RowId,
    /// Creator of this version.
    pub xmin: Xid,
    /// Deleter/updater of this version (in progress or not visible), or NONE.
    pub xmax: Xid,
}

impl TableScan<'_> {
    /// The next visible row, the columns [`TableScan::only`] marks decoded
    /// into their slots of `out` in place (the other slots untouched; see
    /// `codec::decode_in_place`), with where the stored row ended before
    /// the last marked column (`out.len()` if it did not): marked slots
    /// from there on belong to columns added after the row was written. Nothing is allocated per row but the values themselves
    /// (strings), and invisible versions are skipped before any decoding.
    pub fn next_in_place(&mut self, out: &mut [Value]) -> Option<(TupleHead, usize)> {
        // Moved out for the call (no reference count touched per row).
        let cols = self.cols.take();
        let upto = cols.as_deref().map_or(usize::MAX, codec::mask_end);
        let next = self.next_visible(|row, v| {
            let read = codec::decode_in_place(&v.data, cols.as_deref(), upto, out);
            let head = TupleHead {
                row,
                xmin: v.xmin,
                xmax: v.xmax,
            };
            (head, read)
        });
        self.cols = cols;
        next
    }

    /// Decode, for the row [`TableScan::next_in_place`] just returned,
    /// the columns `cols` marks into their slots of `out`, as that call
    /// did for its own columns (same return value). For a reader that
    /// tests some columns before it wants the others: the row's latch is
    /// taken again and the visible version found again, which is the same
    /// one (one snapshot sees one version of a row; pruning keeps what a
    /// live snapshot sees).
    pub fn decode_more(&self, head: TupleHead, cols: &[bool], out: &mut [Value]) -> usize {
        assert_eq!(
            head.row.0 + 1,
            self.next,
            "decode_more follows next_in_place"
        );
        let (chunk, _) = self.chunk.as_ref().expect("next_in_place set the chunk");
        let versions = chunk[chunk_pos(head.row.0).1].versions.lock();
        let v = self
            .table
            .visible(&versions, &self.snap)
            .expect("the version next_in_place returned is still visible");
        assert_eq!(v.xmin, head.xmin, "one snapshot sees one version of a row");
        codec::decode_in_place(&v.data, Some(cols), codec::mask_end(cols), out)
    }

    /// Find the next visible version and hand it to `read` under its
    /// row's latch.
    fn next_visible<R>(&mut self, read: impl FnOnce(RowId, &Version) -> R) -> Option<R> {
        loop {
            let row = RowId(self.next);
            if !matches!(&self.chunk, Some((_, end)) if row.0 < *end) {
                let rows = self.table.rows.read();
                if row.0 >= rows.len {
                    return None;
                }
                let (c, o) = chunk_pos(row.0);
                let chunk = rows.chunks[c].clone();
                let end = (row.0 + (chunk_slots(c) - o) as u64).min(rows.len);
                self.chunk = Some((chunk, end));
            }
            let (chunk, _) = self.chunk.as_ref().expect("set above");
            self.next += 1;
            let versions = chunk[chunk_pos(row.0).1].versions.lock();
            if self.snap.ssi.is_some() {
                self.table.ssi_read_row(&versions, &self.snap, row, false);
            }
            if let Some(v) = self.table.visible(&versions, &self.snap) {
                return Some(read(row, v));
            }
        }
    }
}

impl Iterator for TableScan<'_> {
    type Item = Tuple;

    fn next(&mut self) -> Option<Tuple> {
        let cols = self.cols.take();
        let t = self.next_visible(|row, v| Table::tuple_of(row, v, cols.as_deref()));
        self.cols = cols;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[(i32, u64, bool)]) -> Vec<(Vec<Value>, RowId, bool)> {
        let mut v: Vec<_> = list
            .iter()
            .map(|&(k, r, live)| (vec![Value::Int4(k)], RowId(r), live))
            .collect();
        v.sort_unstable_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        v
    }

    #[test]
    fn first_duplicate_is_the_one_a_row_order_scan_meets_first() {
        // Rows 0..5 with keys 1, 0, 0, 1, 2: a scan in row order meets 0
        // again at row 2, before 1 again at row 3.
        let e = entries(&[
            (1, 0, true),
            (0, 1, true),
            (0, 2, true),
            (1, 3, true),
            (2, 4, true),
        ]);
        assert_eq!(first_duplicate(&e), Some((vec![Value::Int4(0)], RowId(2))));
        // Keys 0, 1, 1, 0: 1 comes back first (row 2).
        let e = entries(&[(0, 0, true), (1, 1, true), (1, 2, true), (0, 3, true)]);
        assert_eq!(first_duplicate(&e), Some((vec![Value::Int4(1)], RowId(2))));
    }

    #[test]
    fn row_ids_map_to_consecutive_chunk_slots() {
        // Every id gets the slot after the previous one's, chunk by chunk.
        let (mut chunk, mut off) = (0usize, 0usize);
        assert_eq!(chunk_pos(0), (0, 0));
        for id in 1..20_000u64 {
            off += 1;
            if off == chunk_slots(chunk) {
                chunk += 1;
                off = 0;
            }
            assert_eq!(chunk_pos(id), (chunk, off), "row {id}");
        }
        assert_eq!(chunk_slots(0), 16);
        assert_eq!(chunk_slots(6), CHUNK_SLOTS_MAX as usize);
    }

    #[test]
    fn a_single_version_row_is_held_inline() {
        let v = |x: u64| Version {
            xmin: Xid(x),
            xmin_csn: Csn::NONE,
            xmax: Xid::NONE,
            xmax_csn: Csn::NONE,
            cmin: CommandId(0),
            cmax: CommandId(0),
            data: codec::StoredRow::new(codec::encode_row(&[Value::Int8(x as i64)])),
        };
        let mut c = Chain::default();
        assert!(c.is_empty());
        c.push(v(1));
        assert!(matches!(c, Chain::One(_)));
        c.push(v(2));
        assert_eq!(c.iter().map(|v| v.xmin.0).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(c.pop().map(|v| v.xmin.0), Some(2));
        assert!(matches!(c, Chain::One(_)));
        c.push(v(3));
        let gone = c.remove_where(|v| v.xmin.0 == 1);
        assert_eq!(gone.len(), 1);
        assert!(matches!(&c, Chain::One(v) if v.xmin.0 == 3));
        c.clear();
        assert!(c.is_empty());
        // A row's slot: latch plus one inline version.
        assert!(
            std::mem::size_of::<RowSlot>() <= 64,
            "{}",
            std::mem::size_of::<RowSlot>()
        );
    }

    #[test]
    fn dead_entries_and_versions_of_one_row_are_no_duplicates() {
        // Two versions of row 0 with the same key, and a dead row 1.
        let e = entries(&[(5, 0, true), (5, 0, true), (5, 1, false), (6, 2, true)]);
        assert_eq!(first_duplicate(&e), None);
    }
}
