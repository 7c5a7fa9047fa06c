//! Relation locks: PostgreSQL's eight table-lock modes, so that DDL waits
//! for the transactions using a table and they wait for it.
//!
//! Property: a transaction that has used a relation (read it, written it,
//! locked it) sees the same definition of it until it ends, and nobody
//! uses a relation while another transaction's uncommitted DDL on it could
//! still change or roll back. Rule (PostgreSQL's): every statement locks
//! the relations it uses in a mode that says how (ACCESS SHARE to read,
//! ROW SHARE for SELECT FOR UPDATE, ROW EXCLUSIVE to write), DDL in the
//! mode its change needs (ACCESS EXCLUSIVE for most, SHARE for CREATE
//! INDEX, ...), the modes conflict as PostgreSQL's table says, and every
//! lock is held until the transaction ends.
//!
//! ```text
//!              AS  RS  RE  SUE  S  SRE  E  AE      (X: conflicts)
//!   ACCESS SHARE                               X
//!   ROW SHARE                              X   X
//!   ROW EXCL                      X   X    X   X
//!   SHARE UPD EXCL           X    X   X    X   X
//!   SHARE               X    X        X    X   X
//!   SHARE ROW EXCL      X    X    X   X    X   X
//!   EXCLUSIVE       X   X    X    X   X    X   X
//!   ACCESS EXCL X   X   X    X    X   X    X   X
//! ```
//!
//! Mechanism: relation locks live in the same [`crate::locks::LockTable`] as row locks
//! ([`LockKey::Relation`]), so one waits-for graph and one deadlock
//! detector cover both. Their owner is the *session* (a pseudo-XID per
//! session): a read-only transaction has no XID, and one session never
//! conflicts with itself. A holder keeps the union of the modes it asked
//! for ([`TableModes`]).
//!
//! Every statement takes locks, so the common case must not touch the
//! shared table. PostgreSQL's fast path, kept as it is: the three *weak*
//! modes (ACCESS SHARE, ROW SHARE, ROW EXCLUSIVE) do not conflict with one
//! another, so a weak lock is recorded in the session's own list (in its
//! [`SnapshotSlot`], under a mutex nobody else takes on the hot path) as
//! long as no *strong* lock is held or wanted on any relation hashing to
//! the same one of [`RELATION_LOCK_PARTITIONS`] counters.
//!
//! ```text
//!   weak (session S, rel R):    lock S.holds
//!                               if strong[R % P] == 0: S.fast += (R, mode)   done
//!                               else: the lock table, as S's pseudo-owner
//!   strong (session T, rel R):  strong[R % P] += 1           (announce)
//!                               for each session's holds (locked in turn):
//!                                   move its fast (R, m) into the table
//!                               the lock table: wait for the holders
//! ```
//!
//! The announcement and the check are both made with the session's list
//! locked by the checker (weak) or by the mover (strong), so a weak lock
//! is either seen by the mover or made after the announcement, and then it
//! goes to the table. At transaction end the list is cleared, the table
//! holds released and the announcements withdrawn.
//!
//! Each new or strengthened hold is an entry in the transaction's undo log
//! with the modes held before, so ROLLBACK TO SAVEPOINT (and an error inside
//! a savepoint) gives back what was taken since, as PostgreSQL's
//! subtransaction abort does; a strong hold given back withdraws its
//! announcement.
//!
//! Left out: no session-level relation locks;
//! PostgreSQL's deadlock-avoiding rearrangement of wait queues (a soft
//! deadlock is reported as a deadlock).

use std::sync::atomic::{AtomicU32, Ordering};

use nestor_common::{SavepointLevel, SessionId, Xid};
use parking_lot::Mutex;

use crate::error::TxnError;
use crate::locks::{Acquired, LockKey, LockMode, LockRow, Owner, WaitCtl, WaitPolicy};
use crate::manager::{SnapshotSlot, TxnManager};

/// How many strong-lock counters relations hash into (PostgreSQL's
/// FAST_PATH_STRONG_LOCK_HASH_PARTITIONS).
pub const RELATION_LOCK_PARTITIONS: usize = 1024;

/// Relation locks are owned by a pseudo-XID per session, far above any
/// real XID and apart from the session-level advisory owners (2^62 + s).
const RELATION_OWNER_XID_BASE: u64 = 1 << 61;

/// PostgreSQL's table-lock modes, in its order (and `LOCK TABLE`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TableLockMode {
    AccessShare,
    RowShare,
    RowExclusive,
    ShareUpdateExclusive,
    Share,
    ShareRowExclusive,
    Exclusive,
    AccessExclusive,
}

impl TableLockMode {
    pub const ALL: [TableLockMode; 8] = [
        TableLockMode::AccessShare,
        TableLockMode::RowShare,
        TableLockMode::RowExclusive,
        TableLockMode::ShareUpdateExclusive,
        TableLockMode::Share,
        TableLockMode::ShareRowExclusive,
        TableLockMode::Exclusive,
        TableLockMode::AccessExclusive,
    ];

    /// The modes this one conflicts with (the table in the module header).
    fn conflicts(self) -> TableModes {
        use TableLockMode::*;
        let modes: &[TableLockMode] = match self {
            AccessShare => &[AccessExclusive],
            RowShare => &[Exclusive, AccessExclusive],
            RowExclusive => &[Share, ShareRowExclusive, Exclusive, AccessExclusive],
            ShareUpdateExclusive => &[
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            Share => &[
                RowExclusive,
                ShareUpdateExclusive,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            ShareRowExclusive => &[
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            Exclusive => &[
                RowShare,
                RowExclusive,
                ShareUpdateExclusive,
                Share,
                ShareRowExclusive,
                Exclusive,
                AccessExclusive,
            ],
            AccessExclusive => &TableLockMode::ALL,
        };
        modes
            .iter()
            .fold(TableModes::EMPTY, |acc, &m| acc.union(TableModes::of(m)))
    }

    /// The modes that never conflict with one another, which the fast
    /// path grants without the lock table.
    pub fn is_weak(self) -> bool {
        self <= TableLockMode::RowExclusive
    }

    /// PostgreSQL's name, as in pg_locks and deadlock reports.
    pub fn name(self) -> &'static str {
        use TableLockMode::*;
        match self {
            AccessShare => "AccessShareLock",
            RowShare => "RowShareLock",
            RowExclusive => "RowExclusiveLock",
            ShareUpdateExclusive => "ShareUpdateExclusiveLock",
            Share => "ShareLock",
            ShareRowExclusive => "ShareRowExclusiveLock",
            Exclusive => "ExclusiveLock",
            AccessExclusive => "AccessExclusiveLock",
        }
    }
}

/// A set of table-lock modes: what one owner holds on one relation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableModes(u8);

impl TableModes {
    pub const EMPTY: TableModes = TableModes(0);

    pub fn of(mode: TableLockMode) -> TableModes {
        TableModes(1 << mode as u8)
    }

    pub fn union(self, other: TableModes) -> TableModes {
        TableModes(self.0 | other.0)
    }

    pub fn intersection(self, other: TableModes) -> TableModes {
        TableModes(self.0 & other.0)
    }

    pub fn contains(self, other: TableModes) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn modes(self) -> impl Iterator<Item = TableLockMode> {
        TableLockMode::ALL
            .into_iter()
            .filter(move |&m| self.contains(TableModes::of(m)))
    }

    /// Whether every mode in the set is weak (the fast path's modes).
    pub fn is_weak(self) -> bool {
        self.modes().all(TableLockMode::is_weak)
    }

    /// Whether a holder of `self` and one of `other` (different owners)
    /// conflict.
    pub fn conflicts_with(self, other: TableModes) -> bool {
        self.modes().any(|m| m.conflicts().0 & other.0 != 0)
    }

    /// The name of the strongest mode in the set (deadlock reports).
    pub fn strongest_name(self) -> &'static str {
        self.modes()
            .last()
            .map_or("AccessShareLock", TableLockMode::name)
    }
}

/// How a relation lock request was met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationLocked {
    /// The session already held the mode.
    AlreadyHeld,
    /// Granted by the fast path, without the lock table.
    Fast,
    /// Granted in the lock table (it may have waited).
    Table,
}

/// One session's relation locks, kept in its snapshot slot.
#[derive(Default)]
pub struct RelationHolds {
    inner: Mutex<Holds>,
}

#[derive(Default)]
struct Holds {
    /// Weak locks granted by the fast path, not in the lock table.
    fast: Vec<(u32, TableModes)>,
    /// Locks held in the lock table (moved there or taken there).
    table: Vec<(u32, TableModes)>,
    /// Relations whose strong counter this session raised.
    announced: Vec<u32>,
    /// The owner's session (set at the first lock; a slot is a session's).
    session: Option<SessionId>,
}

impl Holds {
    fn held(&self, rel: u32) -> TableModes {
        let find = |v: &[(u32, TableModes)]| {
            v.iter()
                .find(|(r, _)| *r == rel)
                .map_or(TableModes::EMPTY, |&(_, m)| m)
        };
        find(&self.fast).union(find(&self.table))
    }

    fn in_table(&self, rel: u32) -> bool {
        self.table.iter().any(|(r, _)| *r == rel)
    }

    fn count(&self) -> usize {
        self.fast.len() + self.table.len()
    }

    /// The owner of these holds (set at the session's first lock, so any
    /// slot with holds has it).
    fn owner(&self) -> Owner {
        relation_owner(self.session.expect("a slot with holds has its session"))
    }
}

fn add(v: &mut Vec<(u32, TableModes)>, rel: u32, modes: TableModes) {
    match v.iter_mut().find(|(r, _)| *r == rel) {
        Some((_, m)) => *m = m.union(modes),
        None => v.push((rel, modes)),
    }
}

/// The strong-lock announcement counters.
pub struct StrongCounters([AtomicU32; RELATION_LOCK_PARTITIONS]);

impl Default for StrongCounters {
    fn default() -> StrongCounters {
        StrongCounters(std::array::from_fn(|_| AtomicU32::new(0)))
    }
}

impl StrongCounters {
    fn slot(&self, rel: u32) -> &AtomicU32 {
        &self.0[rel as usize % RELATION_LOCK_PARTITIONS]
    }
}

/// The owner a session's relation locks are held under.
pub fn relation_owner(session: SessionId) -> Owner {
    Owner {
        xid: Xid(RELATION_OWNER_XID_BASE + session.0 as u64),
        session,
        level: SavepointLevel(0),
    }
}

impl TxnManager {
    /// Lock relation `rel` in `mode` for `session` (whose slot is `slot`)
    /// until [`Self::release_relations`]. `what` names the relation for
    /// NOWAIT's message.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lock_relation(
        &self,
        session: SessionId,
        slot: &SnapshotSlot,
        rel: u32,
        mode: TableLockMode,
        policy: WaitPolicy,
        ctl: &WaitCtl<'_>,
        what: &dyn Fn() -> String,
    ) -> Result<(RelationLocked, TableModes), TxnError> {
        let want = TableModes::of(mode);
        let strong = self.relation_strong.slot(rel);
        let prev;
        {
            let mut h = slot.relations.inner.lock();
            debug_assert!(h.session.is_none_or(|s| s == session));
            h.session = Some(session);
            prev = h.held(rel);
            if prev.contains(want) {
                return Ok((RelationLocked::AlreadyHeld, prev));
            }
            let max = nestor_common::limits::txn_locks_max();
            if h.count() >= max && h.held(rel) == TableModes::EMPTY {
                return Err(TxnError::TooManyLocks { max });
            }
            if mode.is_weak() && !h.in_table(rel) && strong.load(Ordering::SeqCst) == 0 {
                add(&mut h.fast, rel, want);
                return Ok((RelationLocked::Fast, prev));
            }
        }
        let announced_now = !mode.is_weak() && {
            let mut h = slot.relations.inner.lock();
            let fresh = !h.announced.contains(&rel);
            if fresh {
                strong.fetch_add(1, Ordering::SeqCst);
                h.announced.push(rel);
            }
            fresh
        };
        if !mode.is_weak() {
            self.move_fast_holds(rel);
        }
        let owner = relation_owner(session);
        let got = self.locks.acquire(
            owner,
            LockKey::Relation(rel),
            LockMode::Table(want),
            policy,
            ctl,
            what,
        );
        let mut h = slot.relations.inner.lock();
        match got {
            Ok(Acquired::Granted { .. }) | Ok(Acquired::AlreadyHeld) => {
                add(&mut h.table, rel, want);
                Ok((RelationLocked::Table, prev))
            }
            Ok(Acquired::Skipped) | Err(_) => {
                if announced_now {
                    h.announced.retain(|r| *r != rel);
                    strong.fetch_sub(1, Ordering::SeqCst);
                }
                match got {
                    Err(e) => Err(e),
                    _ => Err(TxnError::LockNotAvailable { what: what() }),
                }
            }
        }
    }

    /// Put the session's hold on `rel` back to `prev` (an undo entry of
    /// [`crate::transaction::Transaction::lock_relation`]: ROLLBACK TO
    /// SAVEPOINT, or an error inside one).
    pub(crate) fn restore_relation(&self, slot: &SnapshotSlot, rel: u32, prev: TableModes) {
        let mut h = slot.relations.inner.lock();
        // A relation can be in both lists (a weak hold taken by the fast
        // path, a later one in the table while a strong lock was announced
        // on its partition): each keeps its part of `prev`.
        if let Some(i) = h.fast.iter().position(|(r, _)| *r == rel) {
            let kept = h.fast[i].1.intersection(prev);
            if kept == TableModes::EMPTY {
                h.fast.swap_remove(i);
            } else {
                h.fast[i].1 = kept;
            }
        }
        if let Some(i) = h.table.iter().position(|(r, _)| *r == rel) {
            let kept = h.table[i].1.intersection(prev);
            let owner = h.owner();
            if kept == TableModes::EMPTY {
                h.table.swap_remove(i);
                self.locks.release(owner.xid, LockKey::Relation(rel));
            } else if kept != h.table[i].1 {
                h.table[i].1 = kept;
                self.locks.restore(
                    owner.xid,
                    LockKey::Relation(rel),
                    Some((LockMode::Table(kept), SavepointLevel(0))),
                );
            }
        }
        if prev.is_weak() {
            if let Some(a) = h.announced.iter().position(|r| *r == rel) {
                h.announced.swap_remove(a);
                self.relation_strong
                    .slot(rel)
                    .fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    /// Move every session's fast-path holds on `rel` into the lock table
    /// (a strong request has been announced, so no new ones appear).
    fn move_fast_holds(&self, rel: u32) {
        self.for_each_slot(|slot| {
            let mut h = slot.relations.inner.lock();
            let Some(i) = h.fast.iter().position(|(r, _)| *r == rel) else {
                return;
            };
            let (_, modes) = h.fast.swap_remove(i);
            self.locks.insert_transferred(
                h.owner(),
                LockKey::Relation(rel),
                LockMode::Table(modes),
            );
            add(&mut h.table, rel, modes);
        });
    }

    /// Every lock held or awaited (pg_locks): the lock table's, then the
    /// relation locks in the sessions' fast-path lists.
    pub fn lock_rows(&self) -> Vec<LockRow> {
        let mut out = self.locks.rows();
        self.for_each_slot(|slot| {
            let h = slot.relations.inner.lock();
            let Some(session) = h.session else {
                return;
            };
            out.extend(h.fast.iter().map(|&(rel, modes)| LockRow {
                key: LockKey::Relation(rel),
                session,
                mode: LockMode::Table(modes),
                granted: true,
                fastpath: true,
            }));
        });
        out
    }

    /// Release every relation lock the session holds (transaction end).
    pub(crate) fn release_relations(&self, slot: &SnapshotSlot) {
        let (owner, table, announced) = {
            let mut h = slot.relations.inner.lock();
            h.fast.clear();
            if h.table.is_empty() && h.announced.is_empty() {
                return;
            }
            (
                h.owner(),
                std::mem::take(&mut h.table),
                std::mem::take(&mut h.announced),
            )
        };
        for (rel, _) in table {
            self.locks.release(owner.xid, LockKey::Relation(rel));
        }
        for rel in announced {
            self.relation_strong
                .slot(rel)
                .fetch_sub(1, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::sync::Arc;

    /// PostgreSQL's conflict table, as the documentation prints it (rows:
    /// requested mode, in `TableLockMode::ALL` order; X = conflicts).
    const PG_TABLE: [&str; 8] = [
        ".......X", "......XX", "....XXXX", "...XXXXX", "..XX.XXX", "..XXXXXX", ".XXXXXXX",
        "XXXXXXXX",
    ];

    fn pg_conflicts(a: TableLockMode, b: TableLockMode) -> bool {
        PG_TABLE[a as usize].as_bytes()[b as usize] == b'X'
    }

    #[test]
    fn conflict_table_is_postgresqls_and_symmetric() {
        for a in TableLockMode::ALL {
            for b in TableLockMode::ALL {
                let ours = TableModes::of(a).conflicts_with(TableModes::of(b));
                assert_eq!(ours, pg_conflicts(a, b), "{a:?} vs {b:?}");
                assert_eq!(ours, pg_conflicts(b, a), "symmetric: {a:?} vs {b:?}");
            }
        }
    }

    /// Random NOWAIT requests and transaction ends of three sessions on
    /// relations that share a strong-lock partition (and one that does
    /// not), checked against a model that knows nothing of the fast path:
    /// a request is granted iff no other session holds a conflicting mode.
    #[test]
    fn fast_path_agrees_with_a_plain_model() {
        let mgr = TxnManager::new();
        let slots: Vec<Arc<SnapshotSlot>> = (0..3).map(|_| mgr.register_slot()).collect();
        let rels = [5u32, 5 + RELATION_LOCK_PARTITIONS as u32, 6];
        let ctl = WaitCtl::unbounded();
        for seed in 0..40u64 {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            // model[session][rel] = modes held; undo[session] = what each
            // acquisition held before (a savepoint's undo log)
            let mut model = [[TableModes::EMPTY; 3]; 3];
            let mut undo: [Vec<(usize, TableModes)>; 3] = Default::default();
            for _ in 0..300 {
                let s = rng.gen_range(0..3usize);
                if rng.gen_ratio(1, 8) {
                    mgr.release_relations(&slots[s]);
                    model[s] = [TableModes::EMPTY; 3];
                    undo[s].clear();
                    continue;
                }
                if rng.gen_ratio(1, 6) {
                    // ROLLBACK TO: give back the newest acquisitions.
                    for _ in 0..rng.gen_range(1..4) {
                        let Some((r, prev)) = undo[s].pop() else {
                            break;
                        };
                        mgr.restore_relation(&slots[s], rels[r], prev);
                        model[s][r] = prev;
                    }
                    continue;
                }
                let r = rng.gen_range(0..3usize);
                let mode = TableLockMode::ALL[rng.gen_range(0..8)];
                let want = TableModes::of(mode);
                let blocked = (0..3).any(|o| o != s && model[o][r].conflicts_with(want));
                let got = mgr.lock_relation(
                    SessionId(s as u32 + 1),
                    &slots[s],
                    rels[r],
                    mode,
                    WaitPolicy::NoWait,
                    &ctl,
                    &|| "relation".into(),
                );
                match got {
                    Ok((how, prev)) => {
                        assert!(!blocked, "seed {seed}: {mode:?} granted past a conflict");
                        assert_eq!(prev, model[s][r], "seed {seed}: what was held before");
                        if how != RelationLocked::AlreadyHeld {
                            undo[s].push((r, prev));
                        }
                        model[s][r] = model[s][r].union(want);
                    }
                    Err(TxnError::LockNotAvailable { .. }) => {
                        assert!(blocked, "seed {seed}: {mode:?} refused without a conflict")
                    }
                    Err(e) => panic!("seed {seed}: {e:?}"),
                }
            }
            for slot in &slots {
                mgr.release_relations(slot);
            }
            assert!(
                mgr.locks.is_empty(),
                "seed {seed}: the lock table is empty at the end"
            );
            assert!(
                mgr.relation_strong
                    .0
                    .iter()
                    .all(|c| c.load(Ordering::SeqCst) == 0),
                "seed {seed}: every announcement withdrawn"
            );
        }
    }
}
