//! SERIALIZABLE: Serializable Snapshot Isolation (Cahill et al. 2008; Ports
//! and Grittner, VLDB 2012) on commit-sequence-number snapshots, following
//! PostgreSQL's predicate.c closely enough that its isolation suite gives
//! the same answers.
//!
//! **Property.** Every set of committed SERIALIZABLE transactions has the
//! effect of some serial order of them. **Rule.** Snapshot isolation only
//! admits a non-serializable history if it contains a *dangerous
//! structure*: two consecutive rw-antidependencies `T_in -rw-> T_pivot
//! -rw-> T_out` among concurrent transactions where `T_out` commits first.
//! A rw-antidependency `R -rw-> W` means R read something W wrote, without
//! seeing W's write (R must be ordered before W). Whenever such an edge is
//! recorded, and at commit, the structure is looked for and one transaction
//! (preferably the pivot, so a retry can succeed) is cancelled with 40001
//! "could not serialize access due to read/write dependencies among
//! transactions".
//!
//! **Mechanism.** Edges are found from both ends:
//!
//! ```text
//!   read first:  R holds a SIREAD (predicate) lock on what it read;
//!                W writes there later      -> W.check_write finds R's lock
//!   write first: W's version is there (uncommitted, or committed after R's
//!                snapshot); R's scan meets it -> R.conflict_out(W's xid)
//!
//!   Example (write skew, two doctors on call):
//!     T1: SELECT count(*) FROM doctors WHERE on_call   -- SIREAD on doctors
//!     T2: SELECT count(*) FROM doctors WHERE on_call   -- SIREAD on doctors
//!     T1: UPDATE doctors SET on_call = false WHERE id = 1
//!           check_write: T2 holds a lock there -> edge T2 -rw-> T1
//!     T2: UPDATE doctors SET on_call = false WHERE id = 2
//!           check_write: T1's lock -> edge T1 -rw-> T2; T2's scan of row 1
//!           had met nothing (T1 had not written yet)
//!     T1: COMMIT  -> precommit: T2 -rw-> T1 and T1 -rw-> T2, T2 not yet
//!                    committed: T2 is a pivot with T1 (committing first)
//!                    as T_out; T2 is doomed
//!     T2: COMMIT  -> 40001
//! ```
//!
//! Predicate locks are on relations (a sequential scan), on rows (each row
//! an index scan returns) and on index key ranges (what an index scan
//! looked at: an exact key prefix, or a range of entries), so an insert of
//! a phantom into a range someone read is a write there. Fine-grained locks
//! are promoted to relation locks past PRED_LOCKS_PER_RELATION_MAX per
//! relation or PRED_LOCKS_PER_TXN_MAX per transaction. PostgreSQL locks
//! heap and index *pages*; ours are exact rows and key ranges, so it
//! reports fewer false positives (a write next to what was read is no
//! conflict here).
//!
//! **Orders.** Whether R sees W's write is decided by visibility (W's CSN
//! against R's snapshot horizon), where the read happens. Everything else
//! compares one SSI sequence number, taken under this module's mutex when a
//! transaction begins (takes its snapshot), *prepares* (passes the commit
//! check; it gets its CSN in the same critical section and can no longer
//! fail) and *commits* (after its commit is visible): PostgreSQL's
//! LastSxactCommitSeqNo with its prepareSeqNo and commitSeqNo. Because the
//! commit step follows visibility, a transaction that begins after another
//! committed here sees it, as in PostgreSQL.
//!
//! **Read-only transactions.** A SERIALIZABLE READ ONLY transaction can only
//! be T_in, and only if T_out committed before its snapshot; it registers
//! the read-write transactions running when it starts, and once they all
//! commit without an out-conflict to such a T_out its snapshot is *safe*:
//! it drops its locks and runs as REPEATABLE READ. With no read-write
//! serializable transaction running it is safe from the start. DEFERRABLE
//! waits for a safe snapshot (retrying with a new one if it proves unsafe).
//!
//! **Savepoints** stay private marks: reads and conflicts of a rolled-back
//! savepoint are kept (as PostgreSQL keeps a subtransaction's predicate
//! locks); nothing here knows savepoints exist.
//!
//! **Memory.** A committed transaction is kept while a concurrent one still
//! runs (its locks can still meet their writes). Past SSI_COMMITTED_XACTS_MAX
//! the oldest is summarized: its locks become relation locks of one "old
//! committed" stand-in and its conflicts become summary flags on its
//! partners, and its XID is remembered with its earliest out-conflict
//! (bounded by SSI_SUMMARIZED_XIDS_MAX) - PostgreSQL's pg_serial.
//!
//! **Lock order.** A row latch may be held while this module's mutex is
//! taken (a tuple lock is registered, and the writers seen reported, under
//! the latch of the row read), never the other way round; a committing
//! transaction takes the commit sequencer inside it.
//!
//! Left out: two-phase commit (PREPARE TRANSACTION), parallel query, and
//! the partial release of committed transactions when only read-only ones
//! remain (they are released whole once nothing concurrent runs).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::num::NonZeroU64;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nestor_common::limits::{
    LOCK_WAIT_POLL_MS, PRED_LOCKS_PER_RELATION_MAX, PRED_LOCKS_PER_TXN_MAX,
    SSI_COMMITTED_XACTS_MAX, SSI_SUMMARIZED_XIDS_MAX,
};
use nestor_common::{Csn, RelId, RowId, SessionId, Xid};
use parking_lot::{Condvar, Mutex};

use crate::error::TxnError;
use crate::locks::WaitCtl;

/// A serializable transaction's entry (PostgreSQL's SERIALIZABLEXACT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SxactId(NonZeroU64);

/// The stand-in for summarized committed transactions.
const SUMMARY: SxactId = SxactId(NonZeroU64::MIN);

/// What a transaction keeps of its entry: the id, and a flag it can test
/// without the mutex, set when the entry is doomed or a read of its own
/// found that it must fail.
#[derive(Clone, Debug)]
pub struct SsiHandle {
    pub id: SxactId,
    attention: Arc<AtomicBool>,
}

impl SsiHandle {
    /// Whether [`Ssi::failure_of`] may have an error to report.
    pub fn needs_check(&self) -> bool {
        self.attention.load(Ordering::Acquire)
    }
}

/// An index key lock: what an index scan looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyLock {
    /// Every entry whose key values start with these bytes (an equality
    /// lookup on the first columns).
    Prefix(Box<[u8]>),
    /// Every entry (key values and row id, memcmp order) within bounds.
    Range(Bound<Box<[u8]>>, Bound<Box<[u8]>>),
    /// The whole index.
    All,
}

/// PostgreSQL's "Reason code" DETAIL of the 40001 error.
fn reason_detail(reason: &str) -> String {
    format!("Reason code: {reason}")
}

fn failure(reason: &str) -> TxnError {
    TxnError::SerializationConflict {
        detail: reason_detail(reason),
    }
}

/// Counters for monitoring and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SsiStats {
    /// Serializable transactions with an entry (running or kept).
    pub xacts: usize,
    pub committed_kept: usize,
    pub predicate_locks: usize,
    pub summarized: u64,
    pub failures: u64,
}

#[derive(Default)]
struct Held {
    rels: HashSet<RelId>,
    tuples: HashMap<RelId, Vec<(RowId, Xid)>>,
    prefixes: HashMap<RelId, Vec<Box<[u8]>>>,
    ranges: HashMap<RelId, Vec<u64>>,
    /// Fine-grained locks held (tuples, prefixes, ranges).
    fine: usize,
}

impl Held {
    fn fine_on(&self, rel: RelId) -> usize {
        self.tuples.get(&rel).map_or(0, Vec::len)
            + self.prefixes.get(&rel).map_or(0, Vec::len)
            + self.ranges.get(&rel).map_or(0, Vec::len)
    }
}

struct Sxact {
    xid: Xid,
    session: SessionId,
    /// The sequence number when it took its snapshot; PostgreSQL's
    /// lastCommitBeforeSnapshot is `begin_seq - 1`.
    begin_seq: u64,
    /// Passed the commit check (it will commit).
    prepare_seq: Option<u64>,
    /// Its commit is visible and its bookkeeping done.
    commit_seq: Option<u64>,
    declared_ro: bool,
    /// Declared READ ONLY, or committed without writing.
    read_only: bool,
    did_write: bool,
    /// Another transaction decided this one must fail (it will roll back,
    /// so it no longer counts in others' conflicts).
    doomed: bool,
    /// Why it is doomed, when the reason is not the context's default.
    reason: Option<String>,
    /// A read of its own found it must fail: reported once, as
    /// PostgreSQL's error at the read (a savepoint may catch it).
    pending: Option<String>,
    /// Set with `doomed` or `pending` (the handle's copy).
    attention: Arc<AtomicBool>,
    /// Committed with an rw out-edge to a transaction that committed first
    /// (the earliest such one's prepare_seq).
    conflict_out: bool,
    earliest_out: u64,
    summary_in: bool,
    summary_out: bool,
    /// Readers R with R -rw-> self.
    ins: HashSet<SxactId>,
    /// Writers W with self -rw-> W.
    outs: HashSet<SxactId>,
    /// Read-only: the running read-write transactions that may still make
    /// its snapshot unsafe. Read-write: the read-only ones it may.
    possible_unsafe: HashSet<SxactId>,
    ro_safe: bool,
    ro_unsafe: bool,
    deferrable_waiting: bool,
    held: Held,
}

impl Sxact {
    fn committed(&self) -> bool {
        self.commit_seq.is_some()
    }
    fn prepared(&self) -> bool {
        self.prepare_seq.is_some()
    }
    /// PostgreSQL's SeqNo.lastCommitBeforeSnapshot.
    fn last_commit_before_snapshot(&self) -> u64 {
        self.begin_seq - 1
    }
    fn doomed(&self) -> bool {
        self.doomed
    }
}

#[derive(Default)]
struct PredLocks {
    rels: HashMap<RelId, Vec<SxactId>>,
    /// A row version: the row and its creator (PostgreSQL locks a tuple
    /// version by its TID; a later version of the row is another target).
    tuples: HashMap<(RelId, RowId, Xid), Vec<SxactId>>,
    prefixes: HashMap<RelId, HashMap<Box<[u8]>, Vec<SxactId>>>,
    ranges: HashMap<RelId, Vec<RangeLock>>,
    next_range: u64,
    count: usize,
}

struct RangeLock {
    id: u64,
    lo: Bound<Box<[u8]>>,
    hi: Bound<Box<[u8]>>,
    holder: SxactId,
}

impl RangeLock {
    fn contains(&self, entry: &[u8]) -> bool {
        let above = match &self.lo {
            Bound::Unbounded => true,
            Bound::Included(l) => entry >= &l[..],
            Bound::Excluded(l) => entry > &l[..],
        };
        let below = match &self.hi {
            Bound::Unbounded => true,
            Bound::Included(h) => entry <= &h[..],
            Bound::Excluded(h) => entry < &h[..],
        };
        above && below
    }
}

fn add_holder(v: &mut Vec<SxactId>, s: SxactId) -> bool {
    if v.contains(&s) {
        false
    } else {
        v.push(s);
        true
    }
}

fn remove_holder<K: std::hash::Hash + Eq>(map: &mut HashMap<K, Vec<SxactId>>, k: K, s: SxactId) {
    if let Some(v) = map.get_mut(&k) {
        v.retain(|&h| h != s);
        if v.is_empty() {
            map.remove(&k);
        }
    }
}

/// Summarized transactions' XIDs: commit sequence number and earliest
/// out-conflict (PostgreSQL's pg_serial).
#[derive(Default)]
struct Summarized {
    by_xid: HashMap<Xid, (u64, Option<u64>)>,
    by_seq: BTreeMap<u64, Vec<Xid>>,
    /// XIDs at or below this were forgotten (SSI_SUMMARIZED_XIDS_MAX).
    floor: Option<Xid>,
}

struct Inner {
    xacts: HashMap<SxactId, Sxact>,
    by_xid: HashMap<Xid, SxactId>,
    next_id: u64,
    seq: u64,
    committed: VecDeque<SxactId>,
    /// Running (not committed) entries' begin sequence numbers.
    active_begins: BTreeSet<u64>,
    /// Entries not declared READ ONLY and not committed.
    writable: usize,
    locks: PredLocks,
    summarized: Summarized,
    summarized_count: u64,
    failures: u64,
    /// SSI_COMMITTED_XACTS_MAX unless set otherwise.
    committed_max: usize,
}

/// The SSI state of the whole server: one mutex, taken only by
/// serializable transactions.
pub struct Ssi {
    inner: Mutex<Inner>,
    /// Woken when a read-only transaction waiting for a safe snapshot may
    /// proceed.
    safe: Condvar,
}

impl Default for Ssi {
    fn default() -> Self {
        Ssi::new()
    }
}

/// Who must fail after an rw-conflict closed a dangerous structure.
enum Victim {
    /// The calling transaction, now, with this reason.
    Me(&'static str, Option<Xid>),
    None,
}

impl Ssi {
    pub fn new() -> Ssi {
        let mut xacts = HashMap::new();
        xacts.insert(SUMMARY, Sxact::summary());
        Ssi {
            inner: Mutex::new(Inner {
                xacts,
                by_xid: HashMap::new(),
                next_id: 2,
                seq: 0,
                committed: VecDeque::new(),
                active_begins: BTreeSet::new(),
                writable: 0,
                locks: PredLocks::default(),
                summarized: Summarized::default(),
                summarized_count: 0,
                failures: 0,
                committed_max: SSI_COMMITTED_XACTS_MAX,
            }),
            safe: Condvar::new(),
        }
    }

    /// Keep at most `n` committed entries before summarizing the oldest
    /// (default SSI_COMMITTED_XACTS_MAX; tests set it low to exercise
    /// summarization).
    pub fn set_committed_xacts_max(&self, n: usize) {
        self.inner.lock().committed_max = n;
    }

    pub fn stats(&self) -> SsiStats {
        let g = self.inner.lock();
        SsiStats {
            xacts: g.xacts.len() - 1,
            committed_kept: g.committed.len(),
            predicate_locks: g.locks.count,
            summarized: g.summarized_count,
            failures: g.failures,
        }
    }

    // ----- begin ------------------------------------------------------------

    /// Start a serializable transaction: take its snapshot (`take`, called
    /// under the mutex so the snapshot and the set of concurrent entries
    /// agree) and register it. Returns the snapshot and the handle, or no
    /// handle for a read-only transaction whose snapshot is safe (it runs as
    /// REPEATABLE READ). A READ ONLY DEFERRABLE one waits here until its
    /// snapshot is known safe, retrying with a new one if it proves unsafe.
    #[allow(clippy::too_many_arguments)]
    pub fn begin(
        &self,
        session: SessionId,
        declared_ro: bool,
        deferrable: bool,
        take: &dyn Fn() -> Csn,
        ctl: &WaitCtl<'_>,
    ) -> Result<(Csn, Option<SsiHandle>), TxnError> {
        loop {
            let mut g = self.inner.lock();
            g.cleanup();
            let snapshot = take();
            if declared_ro && g.writable == 0 {
                return Ok((snapshot, None));
            }
            let id = SxactId(NonZeroU64::new(g.next_id).expect("ids start at 2"));
            g.next_id += 1;
            g.seq += 1;
            let mut s = Sxact::new(session, g.seq, declared_ro);
            let handle = SsiHandle {
                id,
                attention: s.attention.clone(),
            };
            if declared_ro {
                let writers: Vec<SxactId> = g
                    .xacts
                    .iter()
                    .filter(|(_, o)| !o.committed() && !o.doomed() && !o.read_only)
                    .map(|(&i, _)| i)
                    .collect();
                if writers.is_empty() {
                    return Ok((snapshot, None));
                }
                for w in &writers {
                    g.xacts
                        .get_mut(w)
                        .expect("listed")
                        .possible_unsafe
                        .insert(id);
                }
                s.possible_unsafe = writers.into_iter().collect();
            } else {
                g.writable += 1;
            }
            g.active_begins.insert(s.begin_seq);
            g.xacts.insert(id, s);
            if !(declared_ro && deferrable) {
                return Ok((snapshot, Some(handle)));
            }
            // Wait for the snapshot to prove safe or unsafe.
            g.xacts.get_mut(&id).expect("inserted").deferrable_waiting = true;
            loop {
                let me = &g.xacts[&id];
                if me.ro_unsafe || me.possible_unsafe.is_empty() {
                    break;
                }
                self.safe
                    .wait_for(&mut g, Duration::from_millis(LOCK_WAIT_POLL_MS));
                if let Err(e) = (ctl.interrupt)() {
                    g.abort(id);
                    return Err(e);
                }
            }
            let unsafe_ = g.xacts[&id].ro_unsafe;
            g.abort(id);
            if !unsafe_ {
                return Ok((snapshot, None));
            }
            // Unsafe: try again with a new snapshot.
        }
    }

    /// The sessions a READ ONLY DEFERRABLE transaction of `session` waits
    /// for (PostgreSQL's pg_safe_snapshot_blocking_pids).
    pub fn safe_snapshot_blockers(&self, session: SessionId) -> Vec<SessionId> {
        let g = self.inner.lock();
        let Some(me) = g
            .xacts
            .values()
            .find(|s| s.session == session && s.deferrable_waiting)
        else {
            return Vec::new();
        };
        let mut out: Vec<SessionId> = me
            .possible_unsafe
            .iter()
            .filter_map(|w| g.xacts.get(w).map(|w| w.session))
            .collect();
        out.sort_unstable_by_key(|s| s.0);
        out.dedup();
        out
    }

    /// The transaction got its XID: writes by it are now attributable.
    pub fn set_xid(&self, id: SxactId, xid: Xid) {
        let mut g = self.inner.lock();
        if let Some(s) = g.xacts.get_mut(&id) {
            s.xid = xid;
            g.by_xid.insert(xid, id);
        }
    }

    // ----- reads --------------------------------------------------------------

    /// A sequential scan of `rel` is about to start.
    pub fn lock_relation(&self, id: SxactId, rel: RelId) {
        let mut g = self.inner.lock();
        if g.reading(id) {
            g.lock_rel(id, rel);
        }
    }

    /// The version of `row` created by `xmin` was read through an index (or
    /// by its id). Returns false once the transaction holds the whole
    /// relation (more calls are pointless).
    pub fn lock_tuple(&self, id: SxactId, rel: RelId, row: RowId, xmin: Xid) -> bool {
        let mut g = self.inner.lock();
        if !g.reading(id) {
            return false;
        }
        let me = &g.xacts[&id];
        if me.held.rels.contains(&rel) {
            return false;
        }
        if add_holder(g.locks.tuples.entry((rel, row, xmin)).or_default(), id) {
            g.locks.count += 1;
            let me = g.xacts.get_mut(&id).expect("reading");
            me.held.tuples.entry(rel).or_default().push((row, xmin));
            me.held.fine += 1;
            g.promote_if_needed(id, rel);
        }
        true
    }

    /// An index scan is about to look at the entries `key` covers.
    pub fn lock_index(&self, id: SxactId, index: RelId, key: KeyLock) {
        let mut g = self.inner.lock();
        if !g.reading(id) || g.xacts[&id].held.rels.contains(&index) {
            return;
        }
        match key {
            KeyLock::All => g.lock_rel(id, index),
            KeyLock::Prefix(p) => {
                let holders = g.locks.prefixes.entry(index).or_default();
                let v = holders.entry(p.clone()).or_default();
                if add_holder(v, id) {
                    g.locks.count += 1;
                    let me = g.xacts.get_mut(&id).expect("reading");
                    me.held.prefixes.entry(index).or_default().push(p);
                    me.held.fine += 1;
                    g.promote_if_needed(id, index);
                }
            }
            KeyLock::Range(lo, hi) => {
                let rid = g.locks.next_range;
                g.locks.next_range += 1;
                g.locks.ranges.entry(index).or_default().push(RangeLock {
                    id: rid,
                    lo,
                    hi,
                    holder: id,
                });
                g.locks.count += 1;
                let me = g.xacts.get_mut(&id).expect("reading");
                me.held.ranges.entry(index).or_default().push(rid);
                me.held.fine += 1;
                g.promote_if_needed(id, index);
            }
        }
    }

    /// The reader met a version written by `writer`, a transaction whose
    /// write it does not see (in progress, or committed after its
    /// snapshot): an rw-conflict out. A failure this closes for the reader
    /// dooms it (the executor reports it at once).
    pub fn conflict_out(&self, id: SxactId, writer: Xid) {
        let mut g = self.inner.lock();
        if !g.reading(id) || g.xacts[&id].doomed() {
            return;
        }
        if let Victim::Me(reason, xid) = g.conflict_out(id, writer) {
            let text = match xid {
                Some(x) => reason.replace("%u", &x.0.to_string()),
                None => reason.to_string(),
            };
            let s = g.xacts.get_mut(&id).expect("reading");
            s.pending = Some(text);
            s.attention.store(true, Ordering::Release);
        }
    }

    /// Why the transaction must fail now, if it must (`context`: where it
    /// noticed, in PostgreSQL's words: "conflict out checking", ...).
    pub fn failure_of(&self, id: SxactId, context: &str) -> Option<TxnError> {
        let mut g = self.inner.lock();
        let s = g.xacts.get_mut(&id)?;
        let reason = if let Some(p) = s.pending.take() {
            if !s.doomed {
                s.attention.store(false, Ordering::Release);
            }
            p
        } else if s.doomed {
            s.reason.clone().unwrap_or_else(|| {
                format!("Canceled on identification as a pivot, during {context}.")
            })
        } else {
            return None;
        };
        g.failures += 1;
        Some(failure(&reason))
    }

    // ----- writes -------------------------------------------------------------

    /// A write to heap relation `rel` (a new row when `version` is None,
    /// else an update or delete of the version of a row created by an XID)
    /// is in place: whoever holds a predicate lock on it read it first.
    pub fn check_write_heap(
        &self,
        id: SxactId,
        rel: RelId,
        version: Option<(RowId, Xid)>,
    ) -> Result<(), TxnError> {
        let mut g = self.inner.lock();
        if !g.writing(id)? {
            return Ok(());
        }
        let mut readers: Vec<SxactId> = g.locks.rels.get(&rel).cloned().unwrap_or_default();
        if let Some((r, x)) = version {
            if let Some(v) = g.locks.tuples.get(&(rel, r, x)) {
                readers.extend_from_slice(v);
            }
        }
        g.flag_readers(id, readers)
    }

    /// An index entry (key values then row id, as `entry`) was added;
    /// `prefix_ends` are the byte lengths of its first 1, 2, ... key values.
    pub fn check_write_index(
        &self,
        id: SxactId,
        index: RelId,
        entry: &[u8],
        prefix_ends: &[usize],
    ) -> Result<(), TxnError> {
        let mut g = self.inner.lock();
        if !g.writing(id)? {
            return Ok(());
        }
        let mut readers: Vec<SxactId> = g.locks.rels.get(&index).cloned().unwrap_or_default();
        if let Some(p) = g.locks.prefixes.get(&index) {
            for &end in prefix_ends {
                if let Some(v) = p.get(&entry[..end]) {
                    readers.extend_from_slice(v);
                }
            }
        }
        if let Some(rs) = g.locks.ranges.get(&index) {
            readers.extend(rs.iter().filter(|r| r.contains(entry)).map(|r| r.holder));
        }
        g.flag_readers(id, readers)
    }

    /// TRUNCATE / DROP: every predicate lock on the relations is a conflict.
    pub fn check_write_table(&self, id: SxactId, rels: &[RelId]) -> Result<(), TxnError> {
        let mut g = self.inner.lock();
        if !g.writing(id)? {
            return Ok(());
        }
        let mut readers = Vec::new();
        for rel in rels {
            readers.extend(g.locks.rels.get(rel).into_iter().flatten());
            readers.extend(
                g.locks
                    .tuples
                    .iter()
                    .filter(|((r, _, _), _)| r == rel)
                    .flat_map(|(_, v)| v.iter()),
            );
            readers.extend(
                g.locks
                    .prefixes
                    .get(rel)
                    .into_iter()
                    .flatten()
                    .flat_map(|(_, v)| v),
            );
            readers.extend(
                g.locks
                    .ranges
                    .get(rel)
                    .into_iter()
                    .flatten()
                    .map(|r| &r.holder),
            );
        }
        let readers: Vec<SxactId> = readers.into_iter().copied().collect();
        g.flag_readers(id, readers)
    }

    // ----- end ----------------------------------------------------------------

    /// COMMIT, first step: fail if the transaction is doomed or, committing
    /// first, would complete a dangerous structure it cannot otherwise break
    /// (the pivot is doomed instead, as PostgreSQL does). Otherwise it is
    /// *prepared*: `sequence` gives the commit its CSN (None when it wrote
    /// nothing) in the same critical section, and [`Ssi::commit`] must
    /// follow once the commit is visible. On failure the entry is released
    /// and the caller rolls back.
    pub fn prepare(
        &self,
        id: SxactId,
        sequence: impl FnOnce() -> Option<Csn>,
    ) -> Result<Option<Csn>, TxnError> {
        let mut g = self.inner.lock();
        if !g.xacts.contains_key(&id) {
            // Released early (a read-only transaction found safe).
            return Ok(sequence());
        }
        if let Err(e) = g.precommit(id) {
            g.failures += 1;
            g.abort(id);
            self.safe.notify_all();
            return Err(e);
        }
        g.seq += 1;
        let seq = g.seq;
        g.xacts.get_mut(&id).expect("present").prepare_seq = Some(seq);
        Ok(sequence())
    }

    /// COMMIT, second step: the commit is visible (PostgreSQL's
    /// ReleasePredicateLocks at commit).
    pub fn commit(&self, id: SxactId) {
        let mut g = self.inner.lock();
        if g.xacts.contains_key(&id) {
            g.commit(id);
            self.safe.notify_all();
        }
    }

    /// A serializable transaction without an entry ended (a read-only one
    /// whose snapshot was safe): release what no one needs any more, as
    /// the end of a tracked one would.
    pub fn tidy(&self) {
        self.inner.lock().cleanup();
    }

    /// ROLLBACK (or a commit that failed before reaching here).
    pub fn abort(&self, id: SxactId) {
        let mut g = self.inner.lock();
        if g.xacts.contains_key(&id) {
            g.abort(id);
            self.safe.notify_all();
        }
    }
}

impl Sxact {
    fn new(session: SessionId, begin_seq: u64, declared_ro: bool) -> Sxact {
        Sxact {
            xid: Xid::NONE,
            session,
            begin_seq,
            prepare_seq: None,
            commit_seq: None,
            declared_ro,
            read_only: declared_ro,
            did_write: false,
            doomed: false,
            reason: None,
            pending: None,
            attention: Arc::new(AtomicBool::new(false)),
            conflict_out: false,
            earliest_out: u64::MAX,
            summary_in: false,
            summary_out: false,
            ins: HashSet::new(),
            outs: HashSet::new(),
            possible_unsafe: HashSet::new(),
            ro_safe: false,
            ro_unsafe: false,
            deferrable_waiting: false,
            held: Held::default(),
        }
    }

    /// The "old committed" stand-in: committed before everything.
    fn summary() -> Sxact {
        let mut s = Sxact::new(SessionId(0), 1, false);
        s.prepare_seq = Some(0);
        s.commit_seq = Some(0);
        s
    }
}

impl Inner {
    /// Whether a read by `id` needs predicate locking; a read-only entry
    /// found safe is released here (PostgreSQL's SerializationNeededForRead).
    fn reading(&mut self, id: SxactId) -> bool {
        match self.xacts.get(&id) {
            None => false,
            Some(s) if s.ro_safe => {
                self.release(id);
                self.cleanup();
                false
            }
            Some(_) => true,
        }
    }

    /// Whether a write by `id` needs checking; fails if it is doomed.
    fn writing(&mut self, id: SxactId) -> Result<bool, TxnError> {
        let Some(s) = self.xacts.get_mut(&id) else {
            return Ok(false);
        };
        if let Some(p) = s.pending.take() {
            self.failures += 1;
            return Err(failure(&p));
        }
        if s.doomed {
            self.failures += 1;
            let r = s.reason.clone().unwrap_or_else(|| {
                "Canceled on identification as a pivot, during conflict in checking.".into()
            });
            return Err(failure(&r));
        }
        s.did_write = true;
        Ok(true)
    }

    fn doom(&mut self, id: SxactId) {
        if let Some(s) = self.xacts.get_mut(&id) {
            s.doomed = true;
            s.attention.store(true, Ordering::Release);
        }
    }

    fn lock_rel(&mut self, id: SxactId, rel: RelId) {
        if self.xacts[&id].held.rels.contains(&rel) {
            return;
        }
        self.drop_fine(id, rel);
        add_holder(self.locks.rels.entry(rel).or_default(), id);
        self.locks.count += 1;
        self.xacts
            .get_mut(&id)
            .expect("present")
            .held
            .rels
            .insert(rel);
    }

    /// Remove `id`'s fine-grained locks on `rel`.
    fn drop_fine(&mut self, id: SxactId, rel: RelId) {
        let me = self.xacts.get_mut(&id).expect("present");
        let tuples = me.held.tuples.remove(&rel).unwrap_or_default();
        let prefixes = me.held.prefixes.remove(&rel).unwrap_or_default();
        let ranges = me.held.ranges.remove(&rel).unwrap_or_default();
        let n = tuples.len() + prefixes.len() + ranges.len();
        me.held.fine -= n;
        self.locks.count -= n;
        for (row, xmin) in tuples {
            remove_holder(&mut self.locks.tuples, (rel, row, xmin), id);
        }
        if let Some(map) = self.locks.prefixes.get_mut(&rel) {
            for p in prefixes {
                remove_holder(map, p, id);
            }
            if map.is_empty() {
                self.locks.prefixes.remove(&rel);
            }
        }
        if !ranges.is_empty() {
            if let Some(v) = self.locks.ranges.get_mut(&rel) {
                v.retain(|r| !(r.holder == id && ranges.contains(&r.id)));
                if v.is_empty() {
                    self.locks.ranges.remove(&rel);
                }
            }
        }
    }

    /// Granularity promotion: too many fine locks on one relation, or in
    /// all, become relation locks.
    fn promote_if_needed(&mut self, id: SxactId, rel: RelId) {
        let held = &self.xacts[&id].held;
        if held.fine_on(rel) > PRED_LOCKS_PER_RELATION_MAX {
            self.lock_rel(id, rel);
        }
        while self.xacts[&id].held.fine > PRED_LOCKS_PER_TXN_MAX {
            let held = &self.xacts[&id].held;
            let most = held
                .tuples
                .keys()
                .chain(held.prefixes.keys())
                .chain(held.ranges.keys())
                .copied()
                .max_by_key(|&r| held.fine_on(r))
                .expect("fine locks exist");
            self.lock_rel(id, most);
        }
    }

    /// Every predicate lock `id` holds, released.
    fn release_locks(&mut self, id: SxactId) {
        let held = std::mem::take(&mut self.xacts.get_mut(&id).expect("present").held);
        for rel in held.rels.iter() {
            remove_holder(&mut self.locks.rels, *rel, id);
        }
        self.locks.count -= held.rels.len();
        for (rel, rows) in held.tuples {
            self.locks.count -= rows.len();
            for (row, xmin) in rows {
                remove_holder(&mut self.locks.tuples, (rel, row, xmin), id);
            }
        }
        for (rel, ps) in held.prefixes {
            self.locks.count -= ps.len();
            if let Some(map) = self.locks.prefixes.get_mut(&rel) {
                for p in ps {
                    remove_holder(map, p, id);
                }
                if map.is_empty() {
                    self.locks.prefixes.remove(&rel);
                }
            }
        }
        for (rel, ids) in held.ranges {
            self.locks.count -= ids.len();
            if let Some(v) = self.locks.ranges.get_mut(&rel) {
                v.retain(|r| r.holder != id);
                if v.is_empty() {
                    self.locks.ranges.remove(&rel);
                }
            }
        }
    }

    /// Remove an entry entirely: locks, edges, XID.
    fn release(&mut self, id: SxactId) {
        assert_ne!(id, SUMMARY, "the summary stand-in is never released");
        self.release_locks(id);
        let s = self.xacts.remove(&id).expect("present");
        if !s.committed() {
            self.active_begins.remove(&s.begin_seq);
            if !s.declared_ro {
                self.writable -= 1;
            }
        }
        if !s.xid.is_none() && self.by_xid.get(&s.xid) == Some(&id) {
            self.by_xid.remove(&s.xid);
        }
        for r in &s.ins {
            if let Some(o) = self.xacts.get_mut(r) {
                o.outs.remove(&id);
            }
        }
        for w in &s.outs {
            if let Some(o) = self.xacts.get_mut(w) {
                o.ins.remove(&id);
            }
        }
        for o in &s.possible_unsafe {
            if let Some(o) = self.xacts.get_mut(o) {
                o.possible_unsafe.remove(&id);
                if o.declared_ro && o.possible_unsafe.is_empty() && !o.ro_unsafe {
                    o.ro_safe = true;
                }
            }
        }
    }

    fn edge_exists(&self, reader: SxactId, writer: SxactId) -> bool {
        self.xacts
            .get(&reader)
            .is_some_and(|r| r.outs.contains(&writer))
    }

    /// `me` wrote where `readers` hold predicate locks
    /// (CheckTargetForConflictsIn).
    fn flag_readers(&mut self, me: SxactId, mut readers: Vec<SxactId>) -> Result<(), TxnError> {
        readers.sort_unstable();
        readers.dedup();
        let my_begin = self.xacts[&me].begin_seq;
        for r in readers {
            if r == me {
                continue;
            }
            let Some(rs) = self.xacts.get(&r) else {
                continue;
            };
            let concurrent = rs.commit_seq.is_none_or(|c| my_begin < c);
            if rs.doomed() || !concurrent || self.edge_exists(r, me) {
                continue;
            }
            if let Victim::Me(reason, _) = self.flag_rw(r, me, me) {
                // The statement fails; a savepoint may catch it and go on.
                self.failures += 1;
                return Err(failure(reason));
            }
        }
        Ok(())
    }

    /// Record `reader -rw-> writer` after checking that it closes no
    /// dangerous structure (FlagRWConflict). `me` is the caller.
    fn flag_rw(&mut self, reader: SxactId, writer: SxactId, me: SxactId) -> Victim {
        assert_ne!(reader, writer);
        match self.on_conflict(reader, writer, me) {
            Victim::None => {}
            v => return v,
        }
        if reader == SUMMARY {
            self.xacts.get_mut(&writer).expect("present").summary_in = true;
        } else if writer == SUMMARY {
            self.xacts.get_mut(&reader).expect("present").summary_out = true;
        } else {
            self.xacts
                .get_mut(&reader)
                .expect("present")
                .outs
                .insert(writer);
            self.xacts
                .get_mut(&writer)
                .expect("present")
                .ins
                .insert(reader);
        }
        Victim::None
    }

    /// PostgreSQL's OnConflict_CheckForSerializationFailure for a new
    /// `reader -rw-> writer`.
    fn on_conflict(&mut self, reader: SxactId, writer: SxactId, me: SxactId) -> Victim {
        let (r, w) = (&self.xacts[&reader], &self.xacts[&writer]);
        // R -> W -> T2 with W committed and already out-conflicted to an
        // earlier commit.
        let mut failed = w.committed() && (w.conflict_out || w.summary_out);
        // W is a pivot whose T2 committed (prepared) first, unless R or W
        // committed before T2, or R is read-only and overlaps T2.
        if !failed {
            if w.summary_out {
                failed = true;
            } else {
                failed = w.outs.iter().any(|t2| {
                    let Some(t2p) = self.xacts[t2].prepare_seq else {
                        return false;
                    };
                    r.commit_seq.is_none_or(|rc| t2p <= rc)
                        && w.commit_seq.is_none_or(|wc| t2p <= wc)
                        && (!r.read_only || t2p <= r.last_commit_before_snapshot())
                });
            }
        }
        // R is a pivot whose W committed (prepared) first: T0 -> R -> W,
        // unless T0 committed before W, or is read-only and overlaps W.
        if !failed && w.prepared() && !r.read_only {
            let wp = w.prepare_seq.expect("prepared");
            if r.summary_in {
                failed = true;
            } else {
                failed = r.ins.iter().any(|t0| {
                    let t0 = &self.xacts[t0];
                    !t0.doomed()
                        && t0.commit_seq.is_none_or(|c| c >= wp)
                        && (!t0.read_only || t0.last_commit_before_snapshot() >= wp)
                });
            }
        }
        if !failed {
            return Victim::None;
        }
        if me == writer {
            return Victim::Me("Canceled on identification as a pivot, during write.", None);
        }
        if w.prepared() {
            // W can no longer be cancelled: the reader goes.
            assert_eq!(
                me, reader,
                "a prepared writer's conflict is found by its reader"
            );
            return Victim::Me(
                "Canceled on conflict out to pivot %u, during read.",
                Some(w.xid),
            );
        }
        self.doom(writer);
        Victim::None
    }

    /// CheckForSerializableConflictOut, after the caller established that
    /// `writer`'s write is invisible to `me`'s snapshot.
    fn conflict_out(&mut self, me: SxactId, writer: Xid) -> Victim {
        let Some(&w) = self.by_xid.get(&writer) else {
            return self.conflict_out_summarized(me, writer);
        };
        if w == me || self.xacts[&w].doomed() {
            return Victim::None;
        }
        let ws = &self.xacts[&w];
        if ws.summary_out {
            if !ws.prepared() {
                self.doom(w);
                return Victim::None;
            }
            return Victim::Me("Canceled on conflict out to old pivot.", None);
        }
        let ms = &self.xacts[&me];
        if ms.read_only
            && ws.committed()
            && (!ws.conflict_out || ms.last_commit_before_snapshot() < ws.earliest_out)
        {
            // The read-only transaction will appear to run first.
            return Victim::None;
        }
        if self.edge_exists(me, w) {
            return Victim::None;
        }
        self.flag_rw(me, w, me)
    }

    /// A write by a transaction without an entry: not serializable, or
    /// summarized.
    fn conflict_out_summarized(&mut self, me: SxactId, writer: Xid) -> Victim {
        let found = match self.summarized.by_xid.get(&writer) {
            Some(&(_, earliest)) => Some(earliest),
            // Forgotten: count it as summarized with an out-conflict.
            None if self.summarized.floor.is_some_and(|f| writer <= f) => Some(Some(0)),
            None => None,
        };
        let Some(earliest) = found else {
            return Victim::None;
        };
        let ms = &self.xacts[&me];
        if let Some(e) = earliest {
            if !ms.read_only || e <= ms.last_commit_before_snapshot() {
                return Victim::Me("Canceled on conflict out to old pivot %u.", Some(writer));
            }
        }
        if ms.summary_in || !ms.ins.is_empty() {
            return Victim::Me(
                "Canceled on identification as a pivot, with conflict out to old committed transaction %u.",
                Some(writer),
            );
        }
        self.xacts.get_mut(&me).expect("present").summary_out = true;
        Victim::None
    }

    /// PreCommit_CheckForSerializationFailure.
    fn precommit(&mut self, me: SxactId) -> Result<(), TxnError> {
        if let Some(p) = self.xacts.get_mut(&me).expect("present").pending.take() {
            return Err(failure(&p));
        }
        let s = &self.xacts[&me];
        if s.doomed() {
            let r = s.reason.clone().unwrap_or_else(|| {
                "Canceled on identification as a pivot, during commit attempt.".into()
            });
            return Err(failure(&r));
        }
        let mut doom = Vec::new();
        for near in &s.ins {
            let n = &self.xacts[near];
            if n.committed() || n.doomed() {
                continue;
            }
            let dangerous = n.ins.iter().any(|far| {
                let f = &self.xacts[far];
                *far == me || (!f.committed() && !f.read_only && !f.doomed())
            });
            if dangerous {
                if n.prepared() {
                    return Err(failure(
                        "Canceled on commit attempt with conflict in from prepared pivot.",
                    ));
                }
                doom.push(*near);
            }
        }
        for n in doom {
            self.doom(n);
        }
        Ok(())
    }

    /// ROLLBACK (ReleasePredicateLocks(false)): everything goes.
    fn abort(&mut self, id: SxactId) {
        self.doom(id);
        self.release(id);
        self.cleanup();
    }

    /// The commit is visible (ReleasePredicateLocks(true)).
    fn commit(&mut self, id: SxactId) {
        self.seq += 1;
        let seq = self.seq;
        let (outs, ins, possible, declared_ro, begin_seq) = {
            let s = self.xacts.get_mut(&id).expect("present");
            assert!(s.prepared(), "a commit is prepared first");
            s.commit_seq = Some(seq);
            if !s.did_write {
                s.read_only = true;
            }
            (
                s.outs.iter().copied().collect::<Vec<_>>(),
                s.ins.iter().copied().collect::<Vec<_>>(),
                std::mem::take(&mut s.possible_unsafe),
                s.declared_ro,
                s.begin_seq,
            )
        };
        self.active_begins.remove(&begin_seq);
        if !declared_ro {
            self.writable -= 1;
        }
        let read_only = self.xacts[&id].read_only;
        if !read_only && self.xacts[&id].summary_out {
            let s = self.xacts.get_mut(&id).expect("present");
            s.earliest_out = 0;
            s.conflict_out = true;
        }
        // Out-edges to committed transactions become the conflict-out flag.
        for w in outs {
            let ws = &self.xacts[&w];
            if !ws.committed() {
                continue;
            }
            let wp = ws.prepare_seq.expect("committed");
            let s = self.xacts.get_mut(&id).expect("present");
            if !read_only {
                s.earliest_out = s.earliest_out.min(wp);
                s.conflict_out = true;
            }
            s.outs.remove(&w);
            self.xacts.get_mut(&w).expect("present").ins.remove(&id);
        }
        // In-edges from committed and read-only transactions can no longer
        // matter.
        for r in ins {
            let rs = &self.xacts[&r];
            if rs.committed() || rs.read_only {
                self.xacts.get_mut(&id).expect("present").ins.remove(&r);
                self.xacts.get_mut(&r).expect("present").outs.remove(&id);
            }
        }
        let (did_write, conflict_out, earliest) = {
            let s = &self.xacts[&id];
            (s.did_write, s.conflict_out, s.earliest_out)
        };
        for ro in possible {
            let Some(r) = self.xacts.get_mut(&ro) else {
                continue;
            };
            if declared_ro {
                // Our own list: just forget it.
                r.possible_unsafe.remove(&id);
                continue;
            }
            if did_write && conflict_out && earliest <= r.last_commit_before_snapshot() {
                // Unsafe: it can never become safe.
                r.ro_unsafe = true;
                let others: Vec<SxactId> = r.possible_unsafe.drain().collect();
                for o in others {
                    if let Some(o) = self.xacts.get_mut(&o) {
                        o.possible_unsafe.remove(&ro);
                    }
                }
            } else {
                r.possible_unsafe.remove(&id);
                if r.possible_unsafe.is_empty() && !r.ro_unsafe {
                    r.ro_safe = true;
                }
            }
        }
        self.committed.push_back(id);
        self.cleanup();
    }

    /// Release committed entries no running transaction began before
    /// (ClearOldPredicateLocks); summarize past SSI_COMMITTED_XACTS_MAX.
    fn cleanup(&mut self) {
        let min_begin = self.active_begins.first().copied().unwrap_or(u64::MAX);
        while let Some(&id) = self.committed.front() {
            if self.xacts[&id].commit_seq.expect("committed") < min_begin {
                self.committed.pop_front();
                self.release(id);
            } else {
                break;
            }
        }
        while self.committed.len() > self.committed_max {
            let id = self.committed.pop_front().expect("non-empty");
            self.summarize(id);
        }
        // The stand-in's locks and XIDs matter while anyone began before
        // the commits they stand for.
        let summary_seq = self.xacts[&SUMMARY].commit_seq.expect("committed");
        if summary_seq < min_begin && !self.xacts[&SUMMARY].held.rels.is_empty() {
            self.release_locks(SUMMARY);
        }
        while let Some((&seq, _)) = self.summarized.by_seq.first_key_value() {
            if seq >= min_begin {
                break;
            }
            let (_, xids) = self.summarized.by_seq.pop_first().expect("non-empty");
            for x in xids {
                self.summarized.by_xid.remove(&x);
            }
        }
    }

    /// Fold a committed entry into the "old committed" stand-in
    /// (SummarizeOldestCommittedSxact).
    fn summarize(&mut self, id: SxactId) {
        let s = &self.xacts[&id];
        let mut rels: Vec<RelId> = s.held.rels.iter().copied().collect();
        rels.extend(s.held.tuples.keys());
        rels.extend(s.held.prefixes.keys());
        rels.extend(s.held.ranges.keys());
        let (seq, xid) = (s.commit_seq.expect("committed"), s.xid);
        let earliest = s.conflict_out.then_some(s.earliest_out);
        let (ins, outs) = (s.ins.clone(), s.outs.clone());
        for r in ins {
            if let Some(o) = self.xacts.get_mut(&r) {
                o.summary_out = true;
            }
        }
        for w in outs {
            if let Some(o) = self.xacts.get_mut(&w) {
                o.summary_in = true;
            }
        }
        for rel in rels {
            self.lock_rel(SUMMARY, rel);
        }
        {
            let sum = self.xacts.get_mut(&SUMMARY).expect("stand-in");
            sum.commit_seq = Some(sum.commit_seq.expect("committed").max(seq));
            sum.prepare_seq = sum.commit_seq;
        }
        if !xid.is_none() {
            self.summarized.by_xid.insert(xid, (seq, earliest));
            self.summarized.by_seq.entry(seq).or_default().push(xid);
            while self.summarized.by_xid.len() > SSI_SUMMARIZED_XIDS_MAX {
                let (_, xids) = self.summarized.by_seq.pop_first().expect("non-empty");
                for x in xids {
                    self.summarized.by_xid.remove(&x);
                    self.summarized.floor = Some(self.summarized.floor.map_or(x, |f| f.max(x)));
                }
            }
        }
        self.summarized_count += 1;
        self.release(id);
    }
}
