//! The row-lock table: in-memory, keyed by row, owned by top-level
//! transactions, with wait queues and deadlock detection.
//!
//! PostgreSQL stores row locks in the tuple header (`xmax` + infomask bits)
//! and, when two different transaction ids lock one row — which a savepoint
//! makes happen inside a single transaction, because the subtransaction has
//! its own XID — it creates a MultiXact, copied whole on every change (seed
//! 001). Here a lock lives in one table entry per locked row:
//!
//! ```text
//!   key                     holders (one per top-level xid)      waiters
//!   Row(rel 16384, row 7)   [(xid 41, NoKeyUpdate, level 2)]     cv, 1 waiting
//!   Row(rel 16384, row 9)   [(xid 41, KeyShare, 0),
//!                            (xid 57, KeyShare, 0)]               cv, 0
//!   Txn(41)                 [(xid 41, Update, 0)]                 cv, 0
//! ```
//!
//! The owner is the top-level XID; the savepoint level is bookkeeping for
//! monitoring. A transaction that locks a row and then updates it inside a
//! savepoint *upgrades its own holder record in place*: no second record, no
//! shared structure grows. Its private undo log remembers the mode it had
//! before, so ROLLBACK TO restores it (see `Transaction::rollback_to`).
//!
//! Waiting for a *transaction* (a unique-index inserter waiting for the first
//! inserter of the same key to finish) uses the same table: every transaction
//! holds `Txn(its xid)` exclusively from XID assignment until it ends, and a
//! waiter asks for it in Share mode. So the waits-for graph covers row locks
//! and transaction waits alike, and one detector finds cycles across both.
//!
//! Deadlock detection follows PostgreSQL: a waiter sleeps `deadlock_timeout`
//! first, then searches the waits-for graph once, from itself; if it finds a
//! path back to itself it fails with 40P01 and its transaction's locks are
//! released by the caller's abort, which breaks the cycle. Cycles can only be
//! closed by a new wait, and every new waiter runs the check, so no cycle
//! survives longer than one `deadlock_timeout` after it forms.
//!
//! Granting follows PostgreSQL's heap_lock_tuple: a request compatible
//! with every other holder is granted at once, even past waiters (so a
//! FOR SHARE next to a FOR SHARE holder never waits, whoever queues for
//! FOR UPDATE meanwhile); a request that conflicts with a holder joins the
//! key's queue, first come, first served, as waiters for PostgreSQL's
//! heavyweight tuple lock do. A release grants the queue from its head
//! while the head is compatible with the holders, and wakes only the
//! waiters it granted (each sleeps on its own condition variable), so a
//! release on a hot row wakes one transaction, not all of them.
//!
//! ```text
//!   Row(rel, 7)  holders [41 Share]   queue [57 Update]
//!   63 asks Share    → granted at once: holders [41 Share, 63 Share]
//!   41 commits       → 57 still conflicts with 63: stays queued
//!   63 asks Update   → an upgrade: queued first, ahead of 57
//!   63 commits       → 57 is granted and woken
//! ```
//!
//! A holder upgrading its own lock goes to the head of the queue (the
//! others may be waiting for it; PostgreSQL skips the tuple lock for
//! upgrades for the same reason). NOWAIT and SKIP LOCKED look at the
//! holders only. The waits-for graph has an edge from a waiter to every
//! conflicting holder and to every conflicting request queued ahead of it.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nestor_common::hash::IdHashMap;
use nestor_common::limits::LOCK_WAIT_POLL_MS;
use nestor_common::{RelId, RowId, SavepointLevel, SessionId, Xid};
use parking_lot::{Condvar, Mutex};

use crate::error::TxnError;
use crate::relation_locks::TableModes;

/// Lock strength. The four row modes come weakest first: each conflicts
/// with a superset of what the previous one conflicts with, so "the
/// stronger of two row modes" is their maximum. Relation locks
/// ([`LockKey::Relation`]) use `Table`: the set of PostgreSQL table-lock
/// modes one owner holds (those modes are not ordered by strength, so a
/// holder keeps the union of what it asked for; see
/// [`crate::relation_locks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockMode {
    KeyShare,
    Share,
    NoKeyUpdate,
    Update,
    Table(TableModes),
}

impl LockMode {
    /// PostgreSQL's row-lock conflict table.
    ///
    /// ```text
    ///                KeyShare Share NoKeyUpdate Update
    ///   KeyShare                                  X
    ///   Share                          X          X
    ///   NoKeyUpdate           X        X          X
    ///   Update        X       X        X          X
    /// ```
    pub(crate) fn conflicts_with(self, other: LockMode) -> bool {
        use LockMode::*;
        match (self, other) {
            (Table(a), Table(b)) => a.conflicts_with(b),
            (Table(_), _) | (_, Table(_)) => {
                unreachable!("row and table lock modes never meet on one key")
            }
            (KeyShare, _) => other == Update,
            (Share, _) => other >= NoKeyUpdate,
            (NoKeyUpdate, _) => other >= Share,
            (Update, _) => true,
        }
    }

    /// Whether holding `self` already gives everything `other` asks for.
    fn covers(self, other: LockMode) -> bool {
        match (self, other) {
            (LockMode::Table(a), LockMode::Table(b)) => a.contains(b),
            _ => self >= other,
        }
    }

    /// What an owner holds after also being granted `other`.
    fn union(self, other: LockMode) -> LockMode {
        match (self, other) {
            (LockMode::Table(a), LockMode::Table(b)) => LockMode::Table(a.union(b)),
            _ => self.max(other),
        }
    }
}

/// What a lock protects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKey {
    Row(RelId, RowId),
    /// Held exclusively by the transaction itself while it runs.
    Txn(Xid),
    /// pg_advisory_lock(key) (`pair` false) or pg_advisory_lock(k1, k2)
    /// (`pair` true, key = k1 << 32 | k2 as u32) in database `db` (its
    /// OID): PostgreSQL keeps the two forms, and each database's keys,
    /// apart. Share = the _shared functions, Update = exclusive.
    Advisory {
        key: i64,
        pair: bool,
        db: u32,
    },
    /// A relation (by OID), locked in PostgreSQL's table-lock modes by
    /// statements and DDL; owned per session (see [`crate::relation_locks`]).
    Relation(u32),
}

/// The lock table hashes its keys with the fast id hasher
/// (`nestor_common::hash`): rows, transactions and relations are the
/// server's own numbers. An advisory key is the client's, and an
/// FxHash-style hash of keys that differ only in their high bits puts them
/// all in one bucket, so a client could slow down every session's locking;
/// it is first mixed with SipHash under a per-process random key.
impl std::hash::Hash for LockKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match *self {
            LockKey::Row(rel, row) => {
                state.write_u8(0);
                state.write_u32(rel.0);
                state.write_u64(row.0);
            }
            LockKey::Txn(xid) => {
                state.write_u8(1);
                state.write_u64(xid.0);
            }
            LockKey::Advisory { key, pair, db } => {
                use std::hash::BuildHasher;
                static MIX: std::sync::OnceLock<std::collections::hash_map::RandomState> =
                    std::sync::OnceLock::new();
                state.write_u8(2);
                state.write_u64(MIX.get_or_init(Default::default).hash_one((key, pair, db)));
            }
            LockKey::Relation(oid) => {
                state.write_u8(3);
                state.write_u32(oid);
            }
        }
    }
}

impl LockKey {
    /// One session never conflicts with itself on an advisory lock (its
    /// session-level and transaction-level holds are separate holders), as
    /// a PostgreSQL backend never conflicts with its own locks.
    fn is_advisory(self) -> bool {
        matches!(self, LockKey::Advisory { .. })
    }

    fn is_relation(self) -> bool {
        matches!(self, LockKey::Relation(_))
    }
}

/// Session-level advisory locks are held by a pseudo-owner per session,
/// whose XID lies far above any real one (real XIDs are assigned from 1
/// upward and never reach 2^62).
const SESSION_OWNER_XID_BASE: u64 = 1 << 62;

fn session_owner(session: SessionId) -> Owner {
    Owner {
        xid: Xid(SESSION_OWNER_XID_BASE + session.0 as u64),
        session,
        level: SavepointLevel(0),
    }
}

/// Who holds or wants a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    pub xid: Xid,
    pub session: SessionId,
    pub level: SavepointLevel,
}

/// What to do when the lock is held by someone else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitPolicy {
    Block,
    /// Fail at once with 55P03.
    NoWait,
    /// Report `Skipped` at once.
    SkipLocked,
}

/// Result of a successful acquisition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquired {
    /// The owner already held this mode or a stronger one: nothing changed.
    AlreadyHeld,
    /// The lock was granted or upgraded; `prev` is what the owner held
    /// before (None: nothing), for the undo log.
    Granted {
        prev: Option<(LockMode, SavepointLevel)>,
    },
    /// SKIP LOCKED met a conflict.
    Skipped,
}

/// How a blocked waiter is bounded. `interrupt` is polled every
/// LOCK_WAIT_POLL_MS and returns an error to stop waiting (cancel request,
/// statement_timeout, termination).
pub struct WaitCtl<'a> {
    pub lock_timeout: Option<Duration>,
    pub deadlock_timeout: Duration,
    pub interrupt: &'a (dyn Fn() -> Result<(), TxnError> + Sync),
    /// log_lock_waits: a wait that outlasts deadlock_timeout is logged
    /// (server log, PostgreSQL's lines), and so is its end.
    pub log_lock_waits: bool,
}

fn never_interrupted() -> Result<(), TxnError> {
    Ok(())
}

impl WaitCtl<'static> {
    /// No timeouts but the default deadlock_timeout; never interrupted.
    pub fn unbounded() -> WaitCtl<'static> {
        WaitCtl {
            lock_timeout: None,
            deadlock_timeout: Duration::from_millis(
                nestor_common::limits::DEADLOCK_TIMEOUT_MS_DEFAULT,
            ),
            interrupt: &never_interrupted,
            log_lock_waits: false,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Holder {
    owner: Owner,
    mode: LockMode,
}

/// A queued request. `granted` is set by the releaser that granted it,
/// under the table's mutex, before `cv` is notified.
struct Queued {
    ticket: u64,
    owner: Owner,
    mode: LockMode,
    cv: Arc<Condvar>,
}

#[derive(Default)]
struct Entry {
    holders: Vec<Holder>,
    /// Requests waiting, oldest first.
    queue: VecDeque<Queued>,
}

#[derive(Clone, Copy, Debug)]
struct Wait {
    key: LockKey,
    mode: LockMode,
    session: SessionId,
}

#[derive(Default)]
struct Inner {
    entries: IdHashMap<LockKey, Entry>,
    /// Blocked transactions and what they wait for: the waits-for graph's
    /// edges are (waiter -> each conflicting holder of `key`, and each
    /// conflicting request queued ahead of it).
    waits: IdHashMap<Xid, Wait>,
    /// Grants made by releasers to queued requests, by ticket: taken by the
    /// waiter when it wakes.
    granted: IdHashMap<u64, Acquired>,
    next_ticket: u64,
    /// Session-level advisory locks: how many times each session took each
    /// key, [shared, exclusive] (PostgreSQL counts re-acquisitions).
    session_locks: IdHashMap<(SessionId, LockKey), [u32; 2]>,
}

/// The lock table. One mutex guards it; hold times are a hash lookup and a
/// few comparisons, never I/O.
#[derive(Default)]
pub struct LockTable {
    inner: Mutex<Inner>,
    /// Rollbacks to a savepoint that undid writes, ever (see
    /// [`LockTable::wake_txn_waiters`]); changed only under `inner`'s
    /// mutex, read without it on the insert path.
    undos: AtomicU64,
    /// Waits by kind, for the metrics endpoint ([`LockTable::wait_stats`]).
    waits: [WaitCounters; WAIT_KINDS],
}

/// What a lock wait waited for: a row (or a transaction's end, which is
/// how a row's writer is waited for), a relation, an advisory lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitKind {
    Row,
    Relation,
    Advisory,
}

const WAIT_KINDS: usize = 3;

impl WaitKind {
    pub const ALL: [WaitKind; WAIT_KINDS] = [WaitKind::Row, WaitKind::Relation, WaitKind::Advisory];

    pub fn name(self) -> &'static str {
        match self {
            WaitKind::Row => "row",
            WaitKind::Relation => "relation",
            WaitKind::Advisory => "advisory",
        }
    }

    fn of(key: LockKey) -> WaitKind {
        match key {
            LockKey::Row(..) | LockKey::Txn(_) => WaitKind::Row,
            LockKey::Relation(_) => WaitKind::Relation,
            LockKey::Advisory { .. } => WaitKind::Advisory,
        }
    }
}

/// Relaxed counters of one kind of wait, touched only by requests that
/// had to queue (never on the path of a lock granted at once).
#[derive(Default)]
struct WaitCounters {
    started: AtomicU64,
    micros: AtomicU64,
    waiting: AtomicU64,
}

/// Lock waits of one kind so far: waits begun, microseconds spent in
/// finished waits, requests waiting now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WaitStats {
    pub waits: u64,
    pub wait_micros: u64,
    pub waiting: u64,
}

/// One lock held or awaited, for pg_locks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockRow {
    pub key: LockKey,
    pub session: SessionId,
    pub mode: LockMode,
    pub granted: bool,
    /// Held in a session's fast-path list, not in the table.
    pub fastpath: bool,
}

/// A snapshot of one key's state, for monitoring and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockInfo {
    pub holders: Vec<(Owner, LockMode)>,
    pub waiters: u32,
}

impl LockTable {
    pub fn new() -> LockTable {
        LockTable::default()
    }

    /// Lock waits of `kind` so far (relaxed reads: a scrape, not a
    /// consistent snapshot).
    pub fn wait_stats(&self, kind: WaitKind) -> WaitStats {
        let c = &self.waits[kind as usize];
        WaitStats {
            waits: c.started.load(Ordering::Relaxed),
            wait_micros: c.micros.load(Ordering::Relaxed),
            waiting: c.waiting.load(Ordering::Relaxed),
        }
    }

    /// Acquire (or upgrade to) `mode` on `key` for `owner`, waiting as
    /// `policy` and `ctl` allow. `what` names the object for the NOWAIT
    /// message, e.g. `row in relation "t"`.
    /// Grant `mode` to `owner` now if no other holder conflicts (an upgrade
    /// of the owner's own lock records the previous mode); None if it must
    /// wait.
    fn try_grant(
        entry: &mut Entry,
        key: LockKey,
        owner: Owner,
        mode: LockMode,
    ) -> Option<Acquired> {
        let own = entry.holders.iter().position(|h| h.owner.xid == owner.xid);
        if let Some(i) = own {
            if entry.holders[i].mode.covers(mode) {
                return Some(Acquired::AlreadyHeld);
            }
        }
        let blocked = entry
            .holders
            .iter()
            .any(|h| Self::conflict(key, owner, mode, h.owner, h.mode));
        if blocked {
            return None;
        }
        let prev = match own {
            Some(i) => {
                let h = &mut entry.holders[i];
                let prev = (h.mode, h.owner.level);
                h.mode = h.mode.union(mode);
                h.owner.level = owner.level;
                Some(prev)
            }
            None => {
                entry.holders.push(Holder { owner, mode });
                None
            }
        };
        Some(Acquired::Granted { prev })
    }

    /// Whether `a` asking for `mode` conflicts with `b` holding or asking
    /// for `b_mode` on `key`.
    fn conflict(key: LockKey, a: Owner, mode: LockMode, b: Owner, b_mode: LockMode) -> bool {
        a.xid != b.xid
            && !(key.is_advisory() && a.session == b.session)
            && mode.conflicts_with(b_mode)
    }

    pub(crate) fn acquire(
        &self,
        owner: Owner,
        key: LockKey,
        mode: LockMode,
        policy: WaitPolicy,
        ctl: &WaitCtl<'_>,
        what: &dyn Fn() -> String,
    ) -> Result<Acquired, TxnError> {
        self.acquire_unless_undone(owner, key, mode, policy, ctl, what, None)
    }

    /// [`Self::acquire`]; with `seen_undos`, a request that finds the
    /// table's undo count moved past it returns `Skipped` at once instead of
    /// queueing (a rollback to a savepoint ran since the caller looked).
    #[allow(clippy::too_many_arguments)]
    fn acquire_unless_undone(
        &self,
        owner: Owner,
        key: LockKey,
        mode: LockMode,
        policy: WaitPolicy,
        ctl: &WaitCtl<'_>,
        what: &dyn Fn() -> String,
        seen_undos: Option<u64>,
    ) -> Result<Acquired, TxnError> {
        assert!(!owner.xid.is_none(), "lock owner must have an xid");
        let mut g = self.inner.lock();
        if seen_undos.is_some_and(|seen| seen != self.undos.load(Ordering::SeqCst)) {
            return Ok(Acquired::Skipped);
        }
        let entry = g.entries.entry(key).or_default();
        // Compatible with every other holder: granted now, queue or not
        // (see the module header).
        let holds = entry.holders.iter().any(|h| h.owner.xid == owner.xid);
        // A relation lock queues behind a conflicting request that waits,
        // unless its owner already holds the relation (PostgreSQL's rule: a
        // waiting ALTER TABLE holds back later readers, so it is not starved
        // by a stream of them; an owner already in is let through, since
        // the waiter may be waiting for it).
        let behind_waiter = key.is_relation()
            && !holds
            && entry
                .queue
                .iter()
                .any(|q| Self::conflict(key, owner, mode, q.owner, q.mode));
        if !behind_waiter {
            if let Some(done) = Self::try_grant(entry, key, owner, mode) {
                return Ok(done);
            }
        }
        match policy {
            WaitPolicy::NoWait => {
                Self::forget_if_unused(&mut g, key);
                return Err(TxnError::LockNotAvailable { what: what() });
            }
            WaitPolicy::SkipLocked => {
                Self::forget_if_unused(&mut g, key);
                return Ok(Acquired::Skipped);
            }
            WaitPolicy::Block => {}
        }
        let started = Instant::now();
        let ticket = g.next_ticket;
        g.next_ticket += 1;
        let cv = Arc::new(Condvar::new());
        let queued = Queued {
            ticket,
            owner,
            mode,
            cv: cv.clone(),
        };
        let entry = g.entries.get_mut(&key).expect("entry exists");
        if holds {
            // An upgrade goes first: the others may be waiting for it.
            entry.queue.push_front(queued);
        } else {
            entry.queue.push_back(queued);
        }
        g.waits.insert(
            owner.xid,
            Wait {
                key,
                mode,
                session: owner.session,
            },
        );
        // An owner upgrading its relation lock behind a waiter that waits
        // for it is in a deadlock at once: PostgreSQL reports it without
        // waiting deadlock_timeout (ProcSleep's early check), so the one
        // asking is the one that fails.
        let early = if holds && key.is_relation() {
            Self::find_cycle(&g, owner.session)
        } else {
            None
        };
        let counters = &self.waits[WaitKind::of(key) as usize];
        counters.started.fetch_add(1, Ordering::Relaxed);
        counters.waiting.fetch_add(1, Ordering::Relaxed);
        let r = match early {
            Some(detail) => Err(TxnError::Deadlock { detail }),
            None => Self::wait_queued(&mut g, owner.session, ticket, &cv, ctl, started),
        };
        let waited = started.elapsed();
        // log_lock_waits logged a wait past deadlock_timeout; its end too.
        if ctl.log_lock_waits && r.is_ok() && waited >= ctl.deadlock_timeout {
            nestor_common::log::log(&format!(
                "process {} acquired {} after {:.3} ms",
                owner.session.0,
                Self::target_text(key, mode),
                waited.as_secs_f64() * 1000.0
            ));
        }
        counters.waiting.fetch_sub(1, Ordering::Relaxed);
        let micros = u64::try_from(waited.as_micros()).unwrap_or(u64::MAX);
        counters.micros.fetch_add(micros, Ordering::Relaxed);
        g.waits.remove(&owner.xid);
        if r.is_err() {
            Self::dequeue(&mut g, key, ticket);
        }
        r
    }

    /// Sleep until a releaser grants `ticket`, or a bound ends the wait
    /// that began at `started`.
    fn wait_queued(
        g: &mut parking_lot::MutexGuard<'_, Inner>,
        session: SessionId,
        ticket: u64,
        cv: &Condvar,
        ctl: &WaitCtl<'_>,
        started: Instant,
    ) -> Result<Acquired, TxnError> {
        let mut deadlock_checked = false;
        loop {
            if let Some(done) = g.granted.remove(&ticket) {
                return Ok(done);
            }
            Self::check_wait_bounds(ctl, started)?;
            let waited = started.elapsed();
            if !deadlock_checked && waited >= ctl.deadlock_timeout {
                deadlock_checked = true;
                if let Some(detail) = Self::find_cycle(g, session) {
                    return Err(TxnError::Deadlock { detail });
                }
                if ctl.log_lock_waits {
                    Self::log_still_waiting(g, session, waited);
                }
            }
            let mut sleep = Duration::from_millis(LOCK_WAIT_POLL_MS);
            if !deadlock_checked && ctl.deadlock_timeout > waited {
                sleep = sleep.min(ctl.deadlock_timeout - waited);
            }
            cv.wait_for(g, sleep);
        }
    }

    /// Withdraw a request that stopped waiting (error, timeout, deadlock;
    /// the table's mutex was held since the waiter saw it was not granted,
    /// so it is still queued). Those queued behind it may now be grantable.
    fn dequeue(g: &mut Inner, key: LockKey, ticket: u64) {
        debug_assert!(!g.granted.contains_key(&ticket));
        if let Some(entry) = g.entries.get_mut(&key) {
            entry.queue.retain(|q| q.ticket != ticket);
        }
        Self::grant_queue(g, key);
        Self::forget_if_unused(g, key);
    }

    /// Grant queued requests from the head while the head is compatible
    /// with the holders (first come, first served), waking each one
    /// granted.
    fn grant_queue(g: &mut Inner, key: LockKey) {
        let Some(entry) = g.entries.get_mut(&key) else {
            return;
        };
        while let Some(head) = entry.queue.front() {
            let Some(done) = Self::try_grant(entry, key, head.owner, head.mode) else {
                break;
            };
            let head = entry.queue.pop_front().expect("head exists");
            g.granted.insert(head.ticket, done);
            head.cv.notify_one();
        }
    }

    fn check_wait_bounds(ctl: &WaitCtl<'_>, started: Instant) -> Result<(), TxnError> {
        (ctl.interrupt)()?;
        if let Some(t) = ctl.lock_timeout {
            if started.elapsed() >= t {
                return Err(TxnError::LockTimeout);
            }
        }
        Ok(())
    }

    fn forget_if_unused(g: &mut Inner, key: LockKey) {
        if let Some(e) = g.entries.get(&key) {
            if e.holders.is_empty() && e.queue.is_empty() {
                g.entries.remove(&key);
            }
        }
    }

    /// Depth-first search of the waits-for graph from `start`; returns
    /// PostgreSQL-style DETAIL lines describing the cycle if there is one.
    /// Its nodes are sessions (a PostgreSQL backend): a session waits under
    /// its transaction's XID or, for a session-level advisory lock, under
    /// its session pseudo-owner, and holds locks under both.
    fn find_cycle(g: &Inner, start: SessionId) -> Option<String> {
        let mut path: Vec<(SessionId, SessionId)> = Vec::new(); // (waiter, blocker)
        let mut visited = HashSet::new();
        if Self::dfs(g, start, start, &mut visited, &mut path) {
            Some(Self::describe(g, &path))
        } else {
            None
        }
    }

    fn wait_of(g: &Inner, session: SessionId) -> Option<(Xid, Wait)> {
        g.waits
            .iter()
            .find(|(_, w)| w.session == session)
            .map(|(&x, &w)| (x, w))
    }

    fn dfs(
        g: &Inner,
        start: SessionId,
        at: SessionId,
        visited: &mut HashSet<SessionId>,
        path: &mut Vec<(SessionId, SessionId)>,
    ) -> bool {
        let Some((xid, w)) = Self::wait_of(g, at) else {
            return false;
        };
        let Some(entry) = g.entries.get(&w.key) else {
            return false;
        };
        let waiter = Owner {
            xid,
            session: at,
            level: SavepointLevel(0),
        };
        for blocker in Self::blockers(entry, w.key, waiter, w.mode) {
            path.push((at, blocker));
            if blocker == start {
                return true;
            }
            if visited.insert(blocker) && Self::dfs(g, start, blocker, visited, path) {
                return true;
            }
            path.pop();
        }
        false
    }

    /// Whose sessions `waiter`, waiting for `mode` on this entry, waits
    /// for: conflicting holders, and conflicting requests queued ahead of
    /// its own.
    fn blockers(entry: &Entry, key: LockKey, waiter: Owner, mode: LockMode) -> Vec<SessionId> {
        let holders = entry
            .holders
            .iter()
            .filter(|h| Self::conflict(key, waiter, mode, h.owner, h.mode))
            .map(|h| h.owner.session);
        let ahead = entry
            .queue
            .iter()
            .take_while(|q| q.owner.xid != waiter.xid)
            .filter(|q| Self::conflict(key, waiter, mode, q.owner, q.mode))
            .map(|q| q.owner.session);
        let mut out: Vec<SessionId> = holders.chain(ahead).collect();
        out.sort_unstable_by_key(|s| s.0);
        out.dedup();
        out
    }

    fn describe(g: &Inner, path: &[(SessionId, SessionId)]) -> String {
        let lines: Vec<String> = path
            .iter()
            .map(|&(waiter, blocker)| {
                let (_, w) = Self::wait_of(g, waiter).expect("a waiter on the cycle waits");
                let target = Self::target_text(w.key, w.mode);
                format!(
                    "Process {} waits for {}; blocked by process {}.",
                    waiter.0, target, blocker.0
                )
            })
            .collect();
        lines.join("\n")
    }

    /// What a waiter waits for, as PostgreSQL's messages name it
    /// ("ShareLock on transaction 41").
    fn target_text(key: LockKey, mode: LockMode) -> String {
        match key {
            LockKey::Txn(x) => format!("ShareLock on transaction {x}"),
            LockKey::Row(rel, row) => {
                format!("ExclusiveLock on tuple ({row},1) of relation {rel} of database 5")
            }
            LockKey::Advisory { key, pair, db } => {
                let mode = if mode == LockMode::Update {
                    "ExclusiveLock"
                } else {
                    "ShareLock"
                };
                let (hi, lo) = ((key as u64 >> 32) as u32, key as u32);
                let field4 = if pair { 2 } else { 1 };
                format!("{mode} on advisory lock [{db},{hi},{lo},{field4}]")
            }
            LockKey::Relation(oid) => {
                let mode = match mode {
                    LockMode::Table(m) => m.strongest_name(),
                    _ => "AccessExclusiveLock",
                };
                format!("{mode} on relation {oid} of database 5")
            }
        }
    }

    /// log_lock_waits: PostgreSQL's "still waiting" line, once
    /// deadlock_timeout has passed without a deadlock.
    fn log_still_waiting(g: &Inner, session: SessionId, waited: Duration) {
        let Some((_, w)) = Self::wait_of(g, session) else {
            return;
        };
        let Some(entry) = g.entries.get(&w.key) else {
            return;
        };
        let list = |v: Vec<u32>| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        let mut holders: Vec<u32> = entry.holders.iter().map(|h| h.owner.session.0).collect();
        holders.sort_unstable();
        holders.dedup();
        let queue: Vec<u32> = entry.queue.iter().map(|q| q.owner.session.0).collect();
        let message = format!(
            "process {} still waiting for {} after {:.3} ms",
            session.0,
            Self::target_text(w.key, w.mode),
            waited.as_secs_f64() * 1000.0
        );
        let noun = if holders.len() == 1 {
            "Process holding the lock"
        } else {
            "Processes holding the lock"
        };
        let detail = format!("{noun}: {}. Wait queue: {}.", list(holders), list(queue));
        nestor_common::log::write(&nestor_common::log::Line::new("LOG", &message).detail(&detail));
    }

    /// Record `owner` as holding `mode` on `key` without a conflict check:
    /// the fast path moving a hold it granted outside the table into it
    /// (see [`crate::relation_locks`]; such holds never conflict with what
    /// the table holds, because a conflicting request announces itself
    /// before it is granted and moves them first).
    pub(crate) fn insert_transferred(&self, owner: Owner, key: LockKey, mode: LockMode) {
        let mut g = self.inner.lock();
        let entry = g.entries.entry(key).or_default();
        match entry.holders.iter_mut().find(|h| h.owner.xid == owner.xid) {
            Some(h) => h.mode = h.mode.union(mode),
            None => {
                debug_assert!(!entry
                    .holders
                    .iter()
                    .any(|h| Self::conflict(key, owner, mode, h.owner, h.mode)));
                entry.holders.push(Holder { owner, mode });
            }
        }
    }

    /// Drop `xid`'s hold on `key` and wake the waiters.
    pub fn release(&self, xid: Xid, key: LockKey) {
        self.restore(xid, key, None);
    }

    /// Undo one acquisition: put `xid`'s hold on `key` back to `prev`
    /// (None: no hold) and wake the waiters.
    pub(crate) fn restore(&self, xid: Xid, key: LockKey, prev: Option<(LockMode, SavepointLevel)>) {
        let mut g = self.inner.lock();
        let Some(entry) = g.entries.get_mut(&key) else {
            return;
        };
        if let Some(i) = entry.holders.iter().position(|h| h.owner.xid == xid) {
            match prev {
                Some((mode, level)) => {
                    entry.holders[i].mode = mode;
                    entry.holders[i].owner.level = level;
                }
                None => {
                    entry.holders.swap_remove(i);
                }
            }
            Self::grant_queue(&mut g, key);
        }
        Self::forget_if_unused(&mut g, key);
    }

    /// Block until transaction `other` has ended (committed or aborted) or
    /// undone some of its writes (rollback to a savepoint), as `waiter`; the
    /// caller re-checks its conflict. Deadlocks through this wait are
    /// detected like row locks.
    ///
    /// `seen_undos` is [`Self::undos`] read before the caller found the
    /// conflict: a rollback to a savepoint between then and now is not
    /// missed.
    pub(crate) fn wait_for_txn(
        &self,
        waiter: Owner,
        other: Xid,
        seen_undos: u64,
        ctl: &WaitCtl<'_>,
    ) -> Result<(), TxnError> {
        let key = LockKey::Txn(other);
        let what = || format!("transaction {other}");
        // Skipped: woken by `wake_txn_waiters` while `other` still runs.
        let got = self.acquire_unless_undone(
            waiter,
            key,
            LockMode::Share,
            WaitPolicy::Block,
            ctl,
            &what,
            Some(seen_undos),
        )?;
        match got {
            Acquired::Granted { .. } => self.release(waiter.xid, key),
            Acquired::AlreadyHeld | Acquired::Skipped => {}
        }
        Ok(())
    }

    /// Wake everyone waiting in [`Self::wait_for_txn`] for `xid`, without
    /// the transaction having ended: after a rollback to a savepoint, the
    /// versions they waited on may be gone, and each waiter re-checks (and
    /// waits again if its conflict is still there).
    pub(crate) fn wake_txn_waiters(&self, xid: Xid) {
        let mut g = self.inner.lock();
        self.undos.fetch_add(1, Ordering::SeqCst);
        let key = LockKey::Txn(xid);
        let Some(entry) = g.entries.get_mut(&key) else {
            return;
        };
        let woken: Vec<Queued> = entry.queue.drain(..).collect();
        for q in woken {
            g.granted.insert(q.ticket, Acquired::Skipped);
            q.cv.notify_one();
        }
        Self::forget_if_unused(&mut g, key);
    }

    /// How many rollbacks to a savepoint have undone writes so far: read
    /// before looking for a conflict that [`Self::wait_for_txn`] waits on.
    pub fn undos(&self) -> u64 {
        self.undos.load(Ordering::SeqCst)
    }

    /// Every lock in the table: holders, then the queue in order.
    pub fn rows(&self) -> Vec<LockRow> {
        let g = self.inner.lock();
        let mut out = Vec::new();
        for (&key, e) in &g.entries {
            let row = |owner: Owner, mode, granted| LockRow {
                key,
                session: owner.session,
                mode,
                granted,
                fastpath: false,
            };
            out.extend(e.holders.iter().map(|h| row(h.owner, h.mode, true)));
            out.extend(e.queue.iter().map(|q| row(q.owner, q.mode, false)));
        }
        out
    }

    /// Current holders and waiter count of `key` (None if unlocked).
    pub fn info(&self, key: LockKey) -> Option<LockInfo> {
        let g = self.inner.lock();
        g.entries.get(&key).map(|e| LockInfo {
            holders: e.holders.iter().map(|h| (h.owner, h.mode)).collect(),
            waiters: e.queue.len() as u32,
        })
    }

    /// What `xid` is blocked on right now, if anything (pg_stat_activity).
    pub fn waiting_for(&self, xid: Xid) -> Option<LockKey> {
        self.inner.lock().waits.get(&xid).map(|w| w.key)
    }

    /// What `session`'s transaction is blocked on right now, if anything:
    /// for a monitor that does not know the waiter's XID yet (it may have
    /// been assigned by the very statement that is waiting).
    pub fn waiting_for_session(&self, session: SessionId) -> Option<LockKey> {
        self.inner
            .lock()
            .waits
            .values()
            .find(|w| w.session == session)
            .map(|w| w.key)
    }

    /// Every session waiting in the table now, and on what (one look for
    /// all of them: the wait sampler's).
    pub fn waiting_sessions(&self) -> Vec<(SessionId, LockKey)> {
        self.inner
            .lock()
            .waits
            .values()
            .map(|w| (w.session, w.key))
            .collect()
    }

    /// The sessions whose locks block `session`'s current wait: holders of
    /// a conflicting mode and conflicting requests queued ahead of it
    /// (pg_blocking_pids). Empty when it is not waiting in the lock table.
    pub fn blocking_sessions(&self, session: SessionId) -> Vec<SessionId> {
        let g = self.inner.lock();
        let Some((xid, w)) = Self::wait_of(&g, session) else {
            return Vec::new();
        };
        let Some(entry) = g.entries.get(&w.key) else {
            return Vec::new();
        };
        let waiter = Owner {
            xid,
            session,
            level: SavepointLevel(0),
        };
        Self::blockers(entry, w.key, waiter, w.mode)
    }

    // ----- session-level advisory locks --------------------------------------

    /// pg_advisory_lock[_shared](key) at session level: held until unlocked
    /// as many times as it was taken, or until the session ends; a
    /// transaction's end does not release it. With `WaitPolicy::NoWait`
    /// (pg_try_advisory_lock) a conflict returns false instead of waiting.
    pub fn lock_session(
        &self,
        session: SessionId,
        key: LockKey,
        exclusive: bool,
        policy: WaitPolicy,
        ctl: &WaitCtl<'_>,
    ) -> Result<bool, TxnError> {
        assert!(key.is_advisory(), "session-level locks are advisory locks");
        let i = usize::from(exclusive);
        let held = {
            let g = self.inner.lock();
            g.session_locks
                .get(&(session, key))
                .is_some_and(|c| c[1] > 0 || (c[0] > 0 && !exclusive))
        };
        if !held {
            let mode = if exclusive {
                LockMode::Update
            } else {
                LockMode::Share
            };
            let what = || "advisory lock".to_string();
            match self.acquire(session_owner(session), key, mode, policy, ctl, &what) {
                Ok(Acquired::Skipped) => return Ok(false),
                Err(TxnError::LockNotAvailable { .. }) if policy != WaitPolicy::Block => {
                    return Ok(false)
                }
                Err(e) => return Err(e),
                Ok(_) => {}
            }
        }
        self.inner
            .lock()
            .session_locks
            .entry((session, key))
            .or_default()[i] += 1;
        Ok(true)
    }

    /// pg_advisory_unlock[_shared](key): false if the session holds no such
    /// session-level lock.
    pub fn unlock_session(&self, session: SessionId, key: LockKey, exclusive: bool) -> bool {
        let i = usize::from(exclusive);
        let left = {
            let mut g = self.inner.lock();
            let Some(c) = g.session_locks.get_mut(&(session, key)) else {
                return false;
            };
            if c[i] == 0 {
                return false;
            }
            c[i] -= 1;
            let left = *c;
            if left == [0, 0] {
                g.session_locks.remove(&(session, key));
            }
            left
        };
        let xid = session_owner(session).xid;
        let [shared, excl] = left;
        if shared == 0 && excl == 0 {
            self.release(xid, key);
        } else if excl == 0 && exclusive {
            // Back from exclusive to the shared hold still counted.
            self.restore(xid, key, Some((LockMode::Share, SavepointLevel(0))));
        }
        true
    }

    /// pg_advisory_unlock_all(), and session end: every session-level lock.
    pub fn unlock_session_all(&self, session: SessionId) {
        let keys: Vec<LockKey> = {
            let mut g = self.inner.lock();
            let keys = g
                .session_locks
                .keys()
                .filter(|(s, _)| *s == session)
                .map(|&(_, k)| k)
                .collect::<Vec<_>>();
            for k in &keys {
                g.session_locks.remove(&(session, *k));
            }
            keys
        };
        let xid = session_owner(session).xid;
        for k in keys {
            self.release(xid, k);
        }
    }

    /// Number of locked keys (including transactions' own Txn keys).
    pub fn len(&self) -> usize {
        self.inner.lock().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nestor_common::{RelId, RowId, SavepointLevel, SessionId};
    use LockMode::*;

    fn owner(x: u64) -> Owner {
        Owner {
            xid: Xid(x),
            session: SessionId(x as u32),
            level: SavepointLevel(0),
        }
    }

    const ROW: LockKey = LockKey::Row(RelId(1), RowId(7));

    /// Acquire, waiting as long as it takes; deadlock_timeout is long, so
    /// only `take_checking` runs the deadlock check (deterministic victim).
    fn take(t: &LockTable, x: u64, key: LockKey, mode: LockMode) -> Result<Acquired, TxnError> {
        let ctl = WaitCtl {
            lock_timeout: None,
            deadlock_timeout: Duration::from_secs(3600),
            interrupt: &never_interrupted,
            log_lock_waits: false,
        };
        t.acquire(owner(x), key, mode, WaitPolicy::Block, &ctl, &|| {
            "row".into()
        })
    }

    fn take_checking(
        t: &LockTable,
        x: u64,
        key: LockKey,
        mode: LockMode,
    ) -> Result<Acquired, TxnError> {
        let ctl = WaitCtl {
            lock_timeout: None,
            deadlock_timeout: Duration::from_millis(20),
            interrupt: &never_interrupted,
            log_lock_waits: false,
        };
        t.acquire(owner(x), key, mode, WaitPolicy::Block, &ctl, &|| {
            "row".into()
        })
    }

    /// Blocks in another thread; returns its handle once it is queued.
    fn take_queued(
        t: &Arc<LockTable>,
        x: u64,
        key: LockKey,
        mode: LockMode,
    ) -> std::thread::JoinHandle<Result<Acquired, TxnError>> {
        let before = t.info(key).map_or(0, |i| i.waiters);
        let t2 = t.clone();
        let h = std::thread::spawn(move || take(&t2, x, key, mode));
        while t.info(key).map_or(0, |i| i.waiters) == before {
            std::thread::yield_now();
        }
        h
    }

    fn holders(t: &LockTable, key: LockKey) -> Vec<(u64, LockMode)> {
        t.info(key).map_or(Vec::new(), |i| {
            i.holders.iter().map(|(o, m)| (o.xid.0, *m)).collect()
        })
    }

    #[test]
    fn release_grants_the_oldest_waiter_only() {
        let t = Arc::new(LockTable::new());
        take(&t, 1, ROW, Update).unwrap();
        let h2 = take_queued(&t, 2, ROW, Update);
        let h3 = take_queued(&t, 3, ROW, Update);
        t.release(Xid(1), ROW);
        assert!(h2.join().unwrap().is_ok());
        assert_eq!(holders(&t, ROW), [(2, Update)]);
        assert_eq!(t.info(ROW).unwrap().waiters, 1, "3 still waits");
        t.release(Xid(2), ROW);
        assert!(h3.join().unwrap().is_ok());
        assert_eq!(holders(&t, ROW), [(3, Update)]);
    }

    #[test]
    fn compatible_lockers_are_granted_past_a_stronger_waiter() {
        // PostgreSQL's heap_lock_tuple (isolation spec
        // tuplelock-upgrade-no-deadlock): only the holders decide.
        let t = Arc::new(LockTable::new());
        take(&t, 1, ROW, KeyShare).unwrap();
        let h2 = take_queued(&t, 2, ROW, Update);
        assert!(matches!(
            take(&t, 3, ROW, KeyShare),
            Ok(Acquired::Granted { .. })
        ));
        assert_eq!(holders(&t, ROW), [(1, KeyShare), (3, KeyShare)]);
        t.release(Xid(1), ROW);
        assert_eq!(t.info(ROW).unwrap().waiters, 1, "2 still waits for 3");
        t.release(Xid(3), ROW);
        assert!(h2.join().unwrap().is_ok());
        assert_eq!(holders(&t, ROW), [(2, Update)]);
        t.release(Xid(2), ROW);
        // NOWAIT looks at the holders only.
        let ctl = WaitCtl::unbounded();
        let r = t.acquire(owner(4), ROW, Share, WaitPolicy::NoWait, &ctl, &|| {
            "row".into()
        });
        assert!(matches!(r, Ok(Acquired::Granted { .. })), "{r:?}");
    }

    #[test]
    fn a_holder_upgrading_goes_ahead_of_the_queue() {
        let t = Arc::new(LockTable::new());
        take(&t, 1, ROW, KeyShare).unwrap();
        take(&t, 2, ROW, KeyShare).unwrap();
        let h3 = take_queued(&t, 3, ROW, Update);
        // 1 upgrades: it waits for 2 only, not behind 3.
        let h1 = take_queued(&t, 1, ROW, Update);
        t.release(Xid(2), ROW);
        assert!(h1.join().unwrap().is_ok());
        assert_eq!(holders(&t, ROW), [(1, Update)]);
        t.release(Xid(1), ROW);
        assert!(h3.join().unwrap().is_ok());
    }

    #[test]
    fn a_cycle_through_a_queued_request_is_a_deadlock() {
        let t = Arc::new(LockTable::new());
        let other = LockKey::Row(RelId(1), RowId(8));
        take(&t, 3, other, Update).unwrap();
        take(&t, 1, ROW, Share).unwrap();
        let h2 = take_queued(&t, 2, ROW, Update); // waits for 1
        let h3 = take_queued(&t, 3, ROW, NoKeyUpdate); // waits for 1, queued behind 2
                                                       // 1 -> 3 (holder of `other`) -> 1 (holder) and 2 (queued ahead) -> 1.
        let r1 = take_checking(&t, 1, other, Update);
        assert!(matches!(r1, Err(TxnError::Deadlock { .. })), "{r1:?}");
        // 1 aborts: its locks go, and the others finish in order.
        t.release(Xid(1), ROW);
        assert!(h2.join().unwrap().is_ok());
        t.release(Xid(2), ROW);
        assert!(h3.join().unwrap().is_ok());
    }

    #[test]
    fn conflict_table_matches_postgresql() {
        let modes = [KeyShare, Share, NoKeyUpdate, Update];
        let expected = [
            [false, false, false, true],
            [false, false, true, true],
            [false, true, true, true],
            [true, true, true, true],
        ];
        for (i, a) in modes.iter().enumerate() {
            for (j, b) in modes.iter().enumerate() {
                assert_eq!(a.conflicts_with(*b), expected[i][j], "{a:?} vs {b:?}");
                assert_eq!(a.conflicts_with(*b), b.conflicts_with(*a), "symmetric");
            }
        }
    }
}
