//! The transaction manager: XID allocation, the commit sequencer and horizon,
//! the status of in-flight transactions, snapshot slots and the GC horizon.
//!
//! Correctness property: a snapshot sees a transaction's effects all or
//! nothing, and sees commits in commit order (never a later commit without
//! every earlier one). Rule: a commit's effects become visible exactly when
//! the *horizon* reaches its CSN, and the horizon only advances over a
//! contiguous prefix of finished commits. Mechanism:
//!
//! ```text
//!   commit(T):  lock sequencer: csn = next_csn++; log.append(T, csn, redo)
//!               status[T] = Committed(csn)          (visible to nobody yet)
//!               release T's row locks; wake waiters (early lock release)
//!               log.wait_durable(csn)               (WAL-before-visible)
//!               publish(csn): done += {csn};
//!                   while done has horizon+1: horizon += 1   (in CSN order)
//!               stamp csn into T's versions; forget status[T]
//!               release T's Txn lock
//!   snapshot:   horizon.load()                      (O(1), no list of xids)
//! ```
//!
//! Taking a snapshot never scans sessions. The oldest snapshot still in use
//! (the GC horizon) is computed only when pruning asks for it, by scanning
//! the registered [`SnapshotSlot`]s; see [`TxnManager::gc_horizon`] for the
//! interlock that keeps that scan safe against snapshots being taken
//! concurrently. docs/transactions.md holds the full protocol.

use std::collections::BTreeSet;

use nestor_common::hash::IdHashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use nestor_common::{CommandId, Csn, Lsn, Xid};
use parking_lot::{Condvar, Mutex, RwLock};

use crate::locks::LockTable;
use crate::visibility::{Snapshot, Stamp};

/// Where a committing transaction writes its redo before it is sequenced.
/// The log decides where the bytes live (the WAL's buffer goes to the
/// transaction's redo file past its memory limit).
pub trait RedoBuffer: Send {
    fn write(&mut self, bytes: &[u8]);
    fn len(&self) -> u64;
    /// Called once after the last write and before the commit is
    /// sequenced, outside the sequencer: the place for slow work (the
    /// WAL makes a spilled redo file durable here).
    fn seal(&mut self) {}
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// For the log that made it, to get its concrete type back.
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

/// An in-memory redo buffer.
impl RedoBuffer for Vec<u8> {
    fn write(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    fn len(&self) -> u64 {
        Vec::len(self) as u64
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// The seam to the write-ahead log. A committing transaction writes its
/// redo into a [`RedoBuffer`] from [`CommitLog::redo_buffer`] and hands it
/// to the log *before* it becomes visible; `append` is called in CSN order
/// (under the sequencer lock), `wait_durable` outside it.
pub trait CommitLog: Send + Sync {
    fn redo_buffer(&self, _xid: Xid) -> Box<dyn RedoBuffer> {
        Box::new(Vec::new())
    }
    fn append(&self, xid: Xid, csn: Csn, redo: Box<dyn RedoBuffer>);
    fn wait_durable(&self, csn: Csn);
}

/// No log at all: commits are visible as soon as they are sequenced
/// (in-memory operation, and the transaction-core tests).
pub struct NoLog;

/// Discards what is written.
struct NullRedo;

impl RedoBuffer for NullRedo {
    fn write(&mut self, _: &[u8]) {}
    fn len(&self) -> u64 {
        0
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl CommitLog for NoLog {
    fn redo_buffer(&self, _xid: Xid) -> Box<dyn RedoBuffer> {
        Box::new(NullRedo)
    }
    fn append(&self, _: Xid, _: Csn, _: Box<dyn RedoBuffer>) {}
    fn wait_durable(&self, _: Csn) {}
}

/// State of a transaction that may still have unstamped versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XidState {
    InProgress,
    /// Sequenced at this CSN; visible once the horizon reaches it.
    Committed(Csn),
    /// Aborted, its versions being removed by undo.
    Aborted,
}

/// One session's registration of the snapshot it holds, read only by the GC
/// horizon scan. `u64::MAX` = holds none; `0` = taking one right now.
pub struct SnapshotSlot {
    held: AtomicU64,
    /// The session's relation locks (see [`crate::relation_locks`]).
    pub(crate) relations: crate::relation_locks::RelationHolds,
}

const SLOT_NONE: u64 = u64::MAX;
const SLOT_ACQUIRING: u64 = 0;

impl SnapshotSlot {
    /// The horizon this slot holds back, if any.
    pub fn held(&self) -> Option<Csn> {
        match self.held.load(Ordering::SeqCst) {
            SLOT_NONE => None,
            v => Some(Csn(v)),
        }
    }

    /// Stop holding any snapshot.
    pub fn clear(&self) {
        self.held.store(SLOT_NONE, Ordering::SeqCst);
    }
}

struct Sequencer {
    next_csn: u64,
    /// Sequenced and durable but not yet covered by the horizon.
    done: BTreeSet<u64>,
}

/// Counters for monitoring and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxnStats {
    pub xids_assigned: u64,
    pub commits: u64,
    pub aborts: u64,
}

pub struct TxnManager {
    next_xid: AtomicU64,
    horizon: AtomicU64,
    /// The last CSN handed out: commits up to it are sequenced (committed,
    /// perhaps not yet durable or visible). A row lock taken after an early
    /// release reads it (docs/transactions.md §"Early lock release").
    sequenced: AtomicU64,
    /// The largest GC horizon a scan has found ([`Self::gc_horizon_hint`]).
    gc_hint: AtomicU64,
    seq: Mutex<Sequencer>,
    /// Signalled when the horizon advances (commits waiting to be covered).
    published: Condvar,
    status: RwLock<IdHashMap<Xid, XidState>>,
    slots: Mutex<Vec<Weak<SnapshotSlot>>>,
    pub locks: LockTable,
    /// Strong relation locks announced, by partition (the fast path's
    /// check; see [`crate::relation_locks`]).
    pub(crate) relation_strong: crate::relation_locks::StrongCounters,
    /// SERIALIZABLE's predicate locks and rw-conflicts.
    pub ssi: crate::ssi::Ssi,
    log: Arc<dyn CommitLog>,
    commits: AtomicU64,
    aborts: AtomicU64,
    first_xid: u64,
    history: Mutex<History>,
}

/// Outcome of recently ended transactions, for pg_xact_status(). Bounded:
/// older outcomes are forgotten (PostgreSQL likewise forgets truncated clog).
#[derive(Default)]
struct History {
    outcome: IdHashMap<Xid, bool>,
    order: std::collections::VecDeque<Xid>,
}

pub use nestor_common::limits::XACT_HISTORY_MAX;

/// Answer of [`TxnManager::xact_status`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XactStatus {
    InProgress,
    Committed,
    Aborted,
    /// Ended too long ago to be remembered (pg_xact_status returns NULL).
    Unknown,
}

impl TxnManager {
    pub fn new() -> Arc<TxnManager> {
        TxnManager::with_log(Arc::new(NoLog), Xid(1), Csn::BOOTSTRAP)
    }

    /// A manager continuing after recovery: XIDs from `next_xid`, horizon
    /// at `horizon` (everything recovered is visible).
    pub fn with_log(log: Arc<dyn CommitLog>, next_xid: Xid, horizon: Csn) -> Arc<TxnManager> {
        assert!(next_xid.0 >= 1 && horizon.0 >= 1);
        Arc::new(TxnManager {
            next_xid: AtomicU64::new(next_xid.0),
            horizon: AtomicU64::new(horizon.0),
            sequenced: AtomicU64::new(horizon.0),
            gc_hint: AtomicU64::new(0),
            seq: Mutex::new(Sequencer {
                next_csn: horizon.0 + 1,
                done: BTreeSet::new(),
            }),
            published: Condvar::new(),
            status: RwLock::new(IdHashMap::default()),
            slots: Mutex::new(Vec::new()),
            locks: LockTable::new(),
            relation_strong: Default::default(),
            ssi: crate::ssi::Ssi::new(),
            log,
            commits: AtomicU64::new(0),
            aborts: AtomicU64::new(0),
            first_xid: next_xid.0,
            history: Mutex::new(History::default()),
        })
    }

    /// Register a session's snapshot slot. Done once per session, off the
    /// snapshot path.
    pub fn register_slot(&self) -> Arc<SnapshotSlot> {
        let slot = Arc::new(SnapshotSlot {
            held: AtomicU64::new(SLOT_NONE),
            relations: Default::default(),
        });
        let mut slots = self.slots.lock();
        slots.retain(|w| w.strong_count() > 0);
        slots.push(Arc::downgrade(&slot));
        slot
    }

    /// Run `f` on every registered slot that is still in use.
    pub(crate) fn for_each_slot(&self, mut f: impl FnMut(&SnapshotSlot)) {
        let slots: Vec<Arc<SnapshotSlot>> =
            self.slots.lock().iter().filter_map(Weak::upgrade).collect();
        for s in &slots {
            f(s);
        }
    }

    /// Take a snapshot horizon and record it in `slot`. O(1): two stores and
    /// one load, whatever the number of sessions.
    pub fn take_horizon(&self, slot: &SnapshotSlot) -> Csn {
        slot.held.store(SLOT_ACQUIRING, Ordering::SeqCst);
        let h = self.horizon.load(Ordering::SeqCst);
        slot.held.store(h, Ordering::SeqCst);
        Csn(h)
    }

    /// A horizon for a newer snapshot taken while `slot` may already hold
    /// an older one (a READ COMMITTED re-check, ON CONFLICT's look at the
    /// newest version): the slot keeps its older value, which protects
    /// everything the newer snapshot can see as well (pruning removes only
    /// versions dead at or below the oldest held horizon). Overwriting it
    /// would let a REPEATABLE READ transaction's snapshot lose the versions
    /// it still reads. An empty slot is filled as by take_horizon.
    pub fn newer_horizon(&self, slot: &SnapshotSlot) -> Csn {
        if slot.held.load(Ordering::SeqCst) == SLOT_NONE {
            return self.take_horizon(slot);
        }
        Csn(self.horizon.load(Ordering::SeqCst))
    }

    /// The current commit horizon (for monitoring; readers use take_horizon).
    pub fn horizon(&self) -> Csn {
        Csn(self.horizon.load(Ordering::SeqCst))
    }

    /// The oldest horizon any registered snapshot may still read at: no
    /// version whose deletion committed at or below it is visible to anyone.
    ///
    /// Interlock with [`Self::take_horizon`] (all operations SeqCst): the
    /// scan reads the horizon `g` first, then each slot. A session that
    /// stores ACQUIRING before our slot read is counted as 0 (prune nothing
    /// it might need). One that stores it after our read of its slot reads
    /// the horizon after we read `g`, so it gets a value >= g. Either way no
    /// snapshot below the returned value can exist.
    pub fn gc_horizon(&self) -> Csn {
        let h = self.scan_gc_horizon();
        self.gc_hint.fetch_max(h.0, Ordering::SeqCst);
        h
    }

    /// The last GC horizon a scan found ([`Self::gc_horizon`]): never above
    /// the true one (it only grows), so what is dead by it is dead. Costs
    /// one load; a writer prunes its row's chain by it (`storage::Table`),
    /// the background pruner refreshes it.
    pub fn gc_horizon_hint(&self) -> Csn {
        Csn(self.gc_hint.load(Ordering::SeqCst))
    }

    fn scan_gc_horizon(&self) -> Csn {
        let mut h = self.horizon.load(Ordering::SeqCst);
        let mut slots = self.slots.lock();
        slots.retain(|w| match w.upgrade() {
            Some(s) => {
                let v = s.held.load(Ordering::SeqCst);
                if v != SLOT_NONE {
                    h = h.min(v);
                }
                true
            }
            None => false,
        });
        Csn(h)
    }

    /// Number of registered slots (sessions).
    pub fn slot_count(&self) -> usize {
        self.slots
            .lock()
            .iter()
            .filter(|w| w.strong_count() > 0)
            .count()
    }

    /// Allocate a new top-level XID and record it as in progress.
    pub(crate) fn assign_xid(&self) -> Xid {
        let xid = Xid(self.next_xid.fetch_add(1, Ordering::SeqCst));
        self.status.write().insert(xid, XidState::InProgress);
        xid
    }

    /// After recovery: continue XIDs after `next_xid` and make `horizon`
    /// (the last recovered commit) the visible horizon. Startup only.
    pub fn advance_after_recovery(&self, next_xid: Xid, horizon: Csn) {
        let mut seq = self.seq.lock();
        assert!(
            seq.done.is_empty(),
            "recovery runs before any commit is in flight"
        );
        self.next_xid.fetch_max(next_xid.0, Ordering::SeqCst);
        let h = self.horizon.load(Ordering::SeqCst).max(horizon.0);
        self.horizon.store(h, Ordering::SeqCst);
        seq.next_csn = seq.next_csn.max(h + 1);
        self.sequenced.fetch_max(h, Ordering::SeqCst);
    }

    /// A consistent cut for a checkpoint: the last sequenced CSN and
    /// `position()` (the log's next LSN) read together under the sequencer
    /// lock, so every commit up to the CSN is before the position in the
    /// log and every later one after it. Then waits until the horizon
    /// covers the CSN.
    pub fn checkpoint_cut(&self, position: impl FnOnce() -> Lsn) -> (Csn, Lsn) {
        let (csn, lsn) = {
            let seq = self.seq.lock();
            (Csn(seq.next_csn - 1), position())
        };
        let mut seq = self.seq.lock();
        while self.horizon.load(Ordering::SeqCst) < csn.0 {
            self.published.wait(&mut seq);
        }
        (csn, lsn)
    }

    /// Hold `slot` at exactly `horizon` (a checkpoint reading at its cut).
    /// Keep pruning from removing anything until the slot is set to a
    /// horizon ([`Self::hold_horizon`]) or cleared: for a reader that
    /// learns its horizon only later (a checkpoint's cut), as
    /// [`Self::take_horizon`] does for the moment between its two stores.
    pub fn hold_everything(&self, slot: &SnapshotSlot) {
        slot.held.store(SLOT_ACQUIRING, Ordering::SeqCst);
    }

    pub fn hold_horizon(&self, slot: &SnapshotSlot, horizon: Csn) {
        assert!(horizon <= self.horizon(), "cannot hold a future horizon");
        slot.held.store(horizon.0, Ordering::SeqCst);
    }

    /// The next XID that will be assigned (txid_current's upper bound).
    pub fn next_xid(&self) -> Xid {
        Xid(self.next_xid.load(Ordering::SeqCst))
    }

    /// Resolve a version-header XID for `snap`. `hint` is the CSN stamped in
    /// the header (Csn::NONE if not stamped yet); `cid` the command id stored
    /// beside the XID. Callers hold the row's latch, so a header XID that is
    /// unstamped always still has a status entry.
    pub fn resolve(&self, xid: Xid, cid: CommandId, hint: Csn, snap: &Snapshot) -> Stamp {
        if xid == snap.own && !xid.is_none() {
            return Stamp::Own(cid);
        }
        if hint != Csn::NONE {
            return Stamp::Committed(hint);
        }
        match self.state(xid) {
            Some(XidState::Committed(csn)) => Stamp::Committed(csn),
            Some(XidState::InProgress) | Some(XidState::Aborted) => Stamp::NotCommitted,
            None => panic!("unstamped version of {xid} without a status entry"),
        }
    }

    /// Status of an in-flight XID (None once it has ended and stamped).
    pub fn state(&self, xid: Xid) -> Option<XidState> {
        self.status.read().get(&xid).copied()
    }

    /// pg_xact_status(). Callers reject XIDs >= next_xid() first.
    pub fn xact_status(&self, xid: Xid) -> XactStatus {
        match self.state(xid) {
            Some(XidState::InProgress) => return XactStatus::InProgress,
            Some(XidState::Committed(_)) => return XactStatus::Committed,
            Some(XidState::Aborted) => return XactStatus::Aborted,
            None => {}
        }
        match self.history.lock().outcome.get(&xid) {
            Some(true) => XactStatus::Committed,
            Some(false) => XactStatus::Aborted,
            None => XactStatus::Unknown,
        }
    }

    fn remember(&self, xid: Xid, committed: bool) {
        let mut h = self.history.lock();
        h.outcome.insert(xid, committed);
        h.order.push_back(xid);
        if h.order.len() > XACT_HISTORY_MAX {
            let old = h.order.pop_front().expect("non-empty");
            h.outcome.remove(&old);
        }
    }

    /// Sequence a commit: assign its CSN and hand its redo to the log, in
    /// CSN order. The transaction is not visible yet.
    pub(crate) fn redo_buffer(&self, xid: Xid) -> Box<dyn RedoBuffer> {
        self.log.redo_buffer(xid)
    }

    pub(crate) fn sequence_commit(&self, xid: Xid, redo: Box<dyn RedoBuffer>) -> Csn {
        let mut seq = self.seq.lock();
        let csn = Csn(seq.next_csn);
        seq.next_csn += 1;
        self.log.append(xid, csn, redo);
        self.status.write().insert(xid, XidState::Committed(csn));
        self.sequenced.store(csn.0, Ordering::SeqCst);
        csn
    }

    /// The last sequenced CSN (see [`Self::sequenced`]'s field).
    pub(crate) fn sequenced(&self) -> Csn {
        Csn(self.sequenced.load(Ordering::SeqCst))
    }

    /// Wait for durability (unless the commit is asynchronous:
    /// synchronous_commit = off), then make `csn` visible once every
    /// earlier commit is visible. Returns only when the horizon covers `csn`, so a
    /// client acknowledged for a commit always sees it in its next
    /// statement (read-your-writes), even when an earlier commit was still
    /// flushing.
    pub(crate) fn publish(&self, csn: Csn, synchronous: bool) {
        if synchronous {
            self.log.wait_durable(csn);
        }
        let mut seq = self.seq.lock();
        seq.done.insert(csn.0);
        let mut h = self.horizon.load(Ordering::SeqCst);
        let advanced = seq.done.contains(&(h + 1));
        while seq.done.remove(&(h + 1)) {
            h += 1;
        }
        self.horizon.store(h, Ordering::SeqCst);
        self.commits.fetch_add(1, Ordering::Relaxed);
        if advanced {
            self.published.notify_all();
        }
        while self.horizon.load(Ordering::SeqCst) < csn.0 {
            self.published.wait(&mut seq);
        }
    }

    /// Wait until the horizon covers `csn` (a commit sequenced already,
    /// so this is bounded by its flush).
    pub(crate) fn wait_visible(&self, csn: Csn) {
        if self.horizon.load(Ordering::SeqCst) >= csn.0 {
            return;
        }
        let mut seq = self.seq.lock();
        assert!(csn.0 < seq.next_csn, "waiting for an unsequenced {csn:?}");
        while self.horizon.load(Ordering::SeqCst) < csn.0 {
            self.published.wait(&mut seq);
        }
    }

    pub(crate) fn mark_aborted(&self, xid: Xid) {
        self.status.write().insert(xid, XidState::Aborted);
        self.aborts.fetch_add(1, Ordering::Relaxed);
    }

    /// Forget an ended transaction once all its versions carry their stamp
    /// (or were removed by undo).
    pub(crate) fn forget(&self, xid: Xid) {
        let committed = matches!(
            self.status.write().remove(&xid),
            Some(XidState::Committed(_))
        );
        self.remember(xid, committed);
    }

    pub fn stats(&self) -> TxnStats {
        TxnStats {
            xids_assigned: self.next_xid.load(Ordering::SeqCst) - self.first_xid,
            commits: self.commits.load(Ordering::Relaxed),
            aborts: self.aborts.load(Ordering::Relaxed),
        }
    }
}
