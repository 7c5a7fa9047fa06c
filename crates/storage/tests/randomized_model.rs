//! Seeded randomized test of the transaction core against a reference model.
//!
//! A deterministic scheduler interleaves up to six open transactions, one
//! operation at a time, all on one thread: reads, read-modify-write
//! increments (a non-key update: row lock + update with READ COMMITTED
//! re-check), key changes, deletes, inserts of fresh keys, SELECT ... FOR
//! every lock mode, savepoints (with shadowed names), ROLLBACK TO, RELEASE,
//! COMMIT and ROLLBACK, at both isolation levels. Writes are split into
//! their scan and their write so that other transactions run in between.
//! Locks are requested with NOWAIT; a transaction that cannot get one
//! retries later, and one stuck too long is rolled back (the scheduler's
//! deadlock breaker). Interleavings therefore depend only on the seed.
//!
//! The model keeps each committed transaction's surviving writes in commit
//! (CSN) order. Checked at every step:
//! - every read equals the model state at the reader's snapshot horizon,
//!   overlaid with the reader's own surviving writes (so no read sees
//!   uncommitted or rolled-back data, and RR reads are repeatable);
//! - after every commit, the database's latest state equals the serial
//!   application of all committed transactions in commit order;
//! - every NOWAIT row-lock request fails exactly when another open
//!   transaction holds a conflicting mode (the model tracks each lock with
//!   the savepoint it was taken under, so ROLLBACK TO gives it back);
//! - a granted SELECT ... FOR <mode> returns the row it saw when no
//!   committed change conflicts with the mode (for FOR KEY SHARE: only a
//!   delete or key change does, and a running non-key update never does),
//!   and otherwise re-check (READ COMMITTED) or 40001 (REPEATABLE READ).
//!
//! Reproduce a failure with `NESTOR_SEED=<seed> cargo test -p nestor-storage
//! --test randomized_model`.

mod common;

use std::collections::BTreeMap;

use common::*;
use nestor_common::{Csn, RowId};
use nestor_storage::{LockResult, Recheck, StorageError, WriteResult};
use nestor_txn::{Isolation, LockKey, LockMode, Transaction, TxnError, WaitCtl, WaitPolicy};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const ACCOUNTS: i64 = 8;
const ACTORS_MAX: usize = 6;
const STEPS: usize = 3_000;

type State = BTreeMap<i64, i64>;
/// (key, Some(value)) writes a row, (key, None) deletes it.
type Writes = Vec<(i64, Option<i64>)>;

/// What a run exercised, so the test cannot pass vacuously.
#[derive(Default, Debug)]
struct Coverage {
    writing_commits: u64,
    rechecks: u64,
    serialization_failures: u64,
    rollbacks_to: u64,
    lock_conflicts: u64,
    deletes: u64,
    key_changes: u64,
    /// FOR KEY SHARE granted while another transaction's non-key update of
    /// the row was running.
    key_share_beside_update: u64,
    locks_by_mode: [u64; 4],
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum WriteKind {
    Increment(i64),
    Delete,
    ChangeKey,
}

impl WriteKind {
    fn mode(self) -> LockMode {
        match self {
            WriteKind::Increment(_) => LockMode::NoKeyUpdate,
            WriteKind::Delete | WriteKind::ChangeKey => LockMode::Update,
        }
    }
}

/// A write whose scan ran (snapshot taken, row seen) but whose write has
/// not yet: other transactions may commit in between, which is what
/// exercises the READ COMMITTED re-check and 40001.
struct Pending {
    kind: WriteKind,
    id: i64,
    snap: nestor_txn::Snapshot,
    seen: i64,
}

struct Actor<'a> {
    t: Transaction,
    session: Session<'a>,
    /// Own surviving writes, in order.
    writes: Writes,
    /// Savepoint name, writes.len() and event number at definition
    /// (innermost last).
    marks: Vec<(String, usize, u64)>,
    /// Row locks held: (row, mode, event number when taken).
    locks: Vec<(RowId, LockMode, u64)>,
    events: u64,
    stuck: u32,
    next_key: i64,
    pending: Option<Pending>,
}

impl Actor<'_> {
    fn event(&mut self) -> u64 {
        self.events += 1;
        self.events
    }

    fn held(&self, rid: RowId) -> Option<LockMode> {
        self.locks.iter().filter(|l| l.0 == rid).map(|l| l.1).max()
    }

    fn took(&mut self, rid: RowId, mode: LockMode) {
        let e = self.event();
        self.locks.push((rid, mode, e));
    }
}

/// PostgreSQL's row-lock conflict table (explicit-locking.html, table
/// 13.3), written out here rather than taken from the code under test.
fn conflicts(a: LockMode, b: LockMode) -> bool {
    use LockMode::*;
    matches!(
        (a, b),
        (Update, _) | (_, Update) | (NoKeyUpdate, NoKeyUpdate | Share) | (Share, NoKeyUpdate)
    )
}

/// Whether another actor than `me` holds a lock on `rid` conflicting with `mode`.
fn conflict(actors: &[Actor<'_>], me: usize, rid: RowId, mode: LockMode) -> bool {
    actors
        .iter()
        .enumerate()
        .any(|(j, a)| j != me && a.held(rid).is_some_and(|m| conflicts(mode, m)))
}

struct Model {
    base: State,
    /// Committed transactions' final writes, by CSN.
    log: Vec<(Csn, Writes)>,
}

impl Model {
    fn at(&self, horizon: Csn) -> State {
        let mut s = self.base.clone();
        for (csn, writes) in &self.log {
            if *csn <= horizon {
                apply(&mut s, writes);
            }
        }
        s
    }

    fn latest(&self) -> State {
        self.at(Csn(u64::MAX))
    }
}

fn apply(s: &mut State, writes: &[(i64, Option<i64>)]) {
    for &(k, v) in writes {
        match v {
            Some(v) => s.insert(k, v),
            None => s.remove(&k),
        };
    }
}

fn overlay(mut s: State, writes: &[(i64, Option<i64>)]) -> State {
    apply(&mut s, writes);
    s
}

const MODES: [LockMode; 4] = [
    LockMode::KeyShare,
    LockMode::Share,
    LockMode::NoKeyUpdate,
    LockMode::Update,
];

fn run(seed: u64, cov: &mut Coverage) {
    let db = Db::new();
    let seed_rows: Vec<(i64, i64)> = (1..=ACCOUNTS).map(|i| (i, 100)).collect();
    db.seed(&seed_rows);
    let model_base: State = seed_rows.iter().copied().collect();
    let mut model = Model {
        base: model_base,
        log: Vec::new(),
    };
    let mut row_ids: BTreeMap<i64, RowId> = (1..=ACCOUNTS).map(|i| (i, db.row_id(i))).collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut actors: Vec<Actor<'_>> = Vec::new();
    let mut session_no = 0u32;
    for step in 0..STEPS {
        if rng.gen_bool(0.05) {
            // The background pruner at a random moment, between the open
            // transactions' statements; it also refreshes the GC horizon
            // hint that every UPDATE trims its row's chain by.
            db.store.prune_all();
        }
        if actors.len() < ACTORS_MAX && rng.gen_bool(0.3) {
            session_no += 1;
            let session = db.session(session_no);
            let iso = if rng.gen_bool(0.5) {
                Isolation::ReadCommitted
            } else {
                Isolation::RepeatableRead
            };
            let t = session.begin(iso);
            actors.push(Actor {
                t,
                session,
                writes: Vec::new(),
                marks: Vec::new(),
                locks: Vec::new(),
                events: 0,
                stuck: 0,
                next_key: 1_000 * session_no as i64,
                pending: None,
            });
            continue;
        }
        if actors.is_empty() {
            continue;
        }
        let i = rng.gen_range(0..actors.len());
        let ctx = format!("seed {seed} step {step} actor {i}");
        let op = rng.gen_range(0..100);
        let keys: Vec<i64> = row_ids.keys().copied().collect();
        let id = keys[rng.gen_range(0..keys.len())];
        let mode = MODES[rng.gen_range(0..4)];
        // The lock request this step makes, and whether the model says
        // another transaction's lock conflicts with it.
        let (lock_rid, lock_mode) = match &actors[i].pending {
            Some(p) => (row_ids[&p.id], p.kind.mode()),
            None => (row_ids[&id], mode),
        };
        let expect_conflict = conflict(&actors, i, lock_rid, lock_mode);
        let beside_update = actors.iter().enumerate().any(|(j, a)| {
            j != i && a.held(lock_rid) == Some(LockMode::NoKeyUpdate) && !a.writes.is_empty()
        });
        let a = &mut actors[i];
        let outcome: Result<(), StorageError> = if a.pending.is_some() {
            finish_write(&db, a, &model, &mut row_ids, expect_conflict, &ctx, cov)
        } else {
            match op {
                0..=19 => {
                    let snap = a.t.start_statement().unwrap();
                    let got = get_in(&db, &snap, id);
                    let want = overlay(model.at(snap.horizon), &a.writes).get(&id).copied();
                    assert_eq!(got, want, "{ctx}: read of {id}");
                    Ok(())
                }
                20..=41 => {
                    // The scan half of UPDATE t SET v = v + d WHERE id = $1,
                    // DELETE FROM t WHERE id = $1, UPDATE t SET id = $2 WHERE id = $1.
                    let snap = a.t.start_statement().unwrap();
                    if let Some(seen) = get_in(&db, &snap, id) {
                        let kind = match op {
                            20..=35 => WriteKind::Increment(rng.gen_range(1..10)),
                            36..=38 => WriteKind::Delete,
                            _ => WriteKind::ChangeKey,
                        };
                        a.pending = Some(Pending {
                            kind,
                            id,
                            snap,
                            seen,
                        });
                    }
                    Ok(())
                }
                42..=49 => {
                    a.t.start_statement().unwrap();
                    let key = a.next_key;
                    a.next_key += 1;
                    let rid = db
                        .table
                        .insert(&mut a.t, &row(key, 1), &WaitCtl::unbounded());
                    rid.map(|rid| {
                        row_ids.insert(key, rid);
                        a.writes.push((key, Some(1)));
                    })
                }
                50..=63 => lock_row(
                    &db,
                    a,
                    &model,
                    id,
                    row_ids[&id],
                    mode,
                    expect_conflict,
                    beside_update,
                    &ctx,
                    cov,
                ),
                64..=75 => {
                    let name = ["a", "b", "c"][rng.gen_range(0..3)].to_string();
                    a.t.savepoint(&name).unwrap();
                    let e = a.event();
                    a.marks.push((name, a.writes.len(), e));
                    Ok(())
                }
                76..=83 => {
                    if let Some(k) = (!a.marks.is_empty()).then(|| rng.gen_range(0..a.marks.len()))
                    {
                        let name = a.marks[k].0.clone();
                        let j = a.marks.iter().rposition(|m| m.0 == name).unwrap();
                        a.t.rollback_to(&name).unwrap();
                        cov.rollbacks_to += 1;
                        let (_, writes_len, at) = a.marks[j];
                        a.writes.truncate(writes_len);
                        a.locks.retain(|l| l.2 < at);
                        a.marks.truncate(j + 1);
                    }
                    Ok(())
                }
                84..=88 => {
                    if let Some(k) = (!a.marks.is_empty()).then(|| rng.gen_range(0..a.marks.len()))
                    {
                        let name = a.marks[k].0.clone();
                        let j = a.marks.iter().rposition(|m| m.0 == name).unwrap();
                        a.t.release(&name).unwrap();
                        a.marks.truncate(j);
                    }
                    Ok(())
                }
                89..=96 => {
                    let a = actors.swap_remove(i);
                    if let Some(csn) = a.t.commit() {
                        cov.writing_commits += 1;
                        model.log.push((csn, a.writes));
                        model.log.sort_by_key(|(c, _)| *c);
                    }
                    let mut got = BTreeMap::new();
                    for (k, v) in db.committed() {
                        got.insert(k, v);
                    }
                    assert_eq!(got, model.latest(), "{ctx}: state after commit");
                    drop(a.session);
                    continue;
                }
                _ => {
                    actors.swap_remove(i).t.rollback();
                    continue;
                }
            }
        };
        match outcome {
            Ok(()) => actors[i].stuck = 0,
            Err(StorageError::Txn(TxnError::LockNotAvailable { .. })) => {
                assert!(
                    expect_conflict,
                    "{ctx}: NOWAIT failed with no conflicting holder"
                );
                cov.lock_conflicts += 1;
                actors[i].stuck += 1;
                if actors[i].stuck > 5 {
                    actors.swap_remove(i).t.rollback();
                }
            }
            Err(StorageError::Txn(TxnError::SerializationFailure { .. })) => {
                assert_eq!(
                    actors[i].t.isolation(),
                    Isolation::RepeatableRead,
                    "{ctx}: 40001 under RC"
                );
                cov.serialization_failures += 1;
                actors.swap_remove(i).t.rollback();
            }
            Err(e) => panic!("{ctx}: unexpected {e:?}"),
        }
    }
    for a in actors {
        a.t.rollback();
    }
    let got: State = db.committed().into_iter().collect();
    assert_eq!(got, model.latest(), "seed {seed}: final state");
    assert!(db.mgr.locks.is_empty(), "seed {seed}: locks left behind");
    // Everything committed is reachable through the index after pruning.
    db.store.prune_all();
    let got: State = db.committed().into_iter().collect();
    assert_eq!(got, model.latest(), "seed {seed}: state after pruning");
}

/// SELECT * FROM t WHERE id = $1 FOR <mode> NOWAIT, checked against the
/// model: granted exactly when no other transaction holds a conflicting
/// mode; the row as seen when no committed change since the snapshot
/// conflicts with the mode, else a re-check (READ COMMITTED) or 40001.
#[allow(clippy::too_many_arguments)]
fn lock_row(
    db: &Db,
    a: &mut Actor<'_>,
    model: &Model,
    id: i64,
    rid: RowId,
    mode: LockMode,
    expect_conflict: bool,
    beside_update: bool,
    ctx: &str,
    cov: &mut Coverage,
) -> Result<(), StorageError> {
    let snap = a.t.start_statement().unwrap();
    if get_in(db, &snap, id).is_none() {
        return Ok(());
    }
    let own = a.writes.iter().any(|w| w.0 == id);
    let (then, now) = (model.at(snap.horizon), model.latest());
    let changed = if mode == LockMode::KeyShare {
        !now.contains_key(&id)
    } else {
        then.get(&id) != now.get(&id)
    };
    let ctx = format!("{ctx}: {mode:?} of {id} (own writes {own}, changed {changed})");
    let got = db.table.lock_row(
        &mut a.t,
        rid,
        mode,
        WaitPolicy::NoWait,
        &snap,
        &WaitCtl::unbounded(),
        Recheck::Snapshot,
    );
    if let Err(StorageError::Txn(TxnError::SerializationFailure { .. })) = &got {
        assert!(changed && !own && !expect_conflict, "{ctx}: 40001");
    }
    let got = got?;
    assert!(
        !expect_conflict,
        "{ctx}: granted beside a conflicting holder"
    );
    cov.locks_by_mode[MODES.iter().position(|m| *m == mode).unwrap()] += 1;
    if mode == LockMode::KeyShare && beside_update {
        cov.key_share_beside_update += 1;
    }
    match got {
        LockResult::Locked => {
            assert!(own || !changed, "{ctx}: locked a changed row");
            a.took(rid, mode);
        }
        LockResult::Changed(_) => {
            assert!(!own && changed, "{ctx}: re-check of an unchanged row");
            assert_eq!(a.t.isolation(), Isolation::ReadCommitted, "{ctx}");
            a.took(rid, mode);
        }
        LockResult::Gone => {
            assert!(!own && !now.contains_key(&id), "{ctx}: gone");
            assert_eq!(a.t.isolation(), Isolation::ReadCommitted, "{ctx}");
        }
        LockResult::Skipped => panic!("{ctx}: skipped under NOWAIT"),
    }
    Ok(())
}

/// The write half of a pending write: row lock NOWAIT (so the
/// single-threaded scheduler never blocks), then the write with the READ
/// COMMITTED re-check of the newest version (which drops the row when its
/// key no longer matches, as EvalPlanQual's re-check of the WHERE does).
fn finish_write(
    db: &Db,
    a: &mut Actor<'_>,
    model: &Model,
    row_ids: &mut BTreeMap<i64, RowId>,
    expect_conflict: bool,
    ctx: &str,
    cov: &mut Coverage,
) -> Result<(), StorageError> {
    let p = a.pending.as_ref().expect("pending write");
    let (kind, id, snap, seen) = (p.kind, p.id, p.snap, p.seen);
    let rid = row_ids[&id];
    let got = a.t.lock(
        LockKey::Row(T, rid),
        kind.mode(),
        WaitPolicy::NoWait,
        &WaitCtl::unbounded(),
        &|| "row".into(),
    );
    assert_eq!(
        got.is_err(),
        expect_conflict,
        "{ctx}: {kind:?} lock of {id}: {got:?}"
    );
    got?;
    a.took(rid, kind.mode());
    a.pending = None;
    let latest = overlay(model.latest(), &a.writes).get(&id).copied();
    let new_key = a.next_key;
    let mut base = seen;
    let mut recheck = Recheck::Snapshot;
    let applied = loop {
        let ctl = WaitCtl::unbounded();
        let r = match kind {
            WriteKind::Increment(d) => {
                db.table
                    .update(&mut a.t, rid, &row(id, base + d), &snap, &ctl, recheck)?
            }
            WriteKind::ChangeKey => {
                db.table
                    .update(&mut a.t, rid, &row(new_key, base), &snap, &ctl, recheck)?
            }
            WriteKind::Delete => db.table.delete(&mut a.t, rid, &snap, &ctl, recheck)?,
        };
        match r {
            WriteResult::Done => break true,
            WriteResult::Changed(newest) => {
                assert_eq!(a.t.isolation(), Isolation::ReadCommitted, "{ctx}");
                cov.rechecks += 1;
                if int(&newest[0]) != id {
                    break false;
                }
                base = int(&newest[1]);
                recheck = Recheck::Latest;
            }
            WriteResult::Gone => break false,
            WriteResult::SelfModified | WriteResult::ModifiedLater => {
                panic!("{ctx}: self-modified")
            }
        }
    };
    assert_eq!(
        applied.then_some(base),
        latest,
        "{ctx}: the {kind:?} applied to the newest version"
    );
    if !applied {
        return Ok(());
    }
    match kind {
        WriteKind::Increment(d) => a.writes.push((id, Some(base + d))),
        WriteKind::Delete => {
            cov.deletes += 1;
            a.writes.push((id, None));
        }
        WriteKind::ChangeKey => {
            cov.key_changes += 1;
            a.next_key += 1;
            row_ids.insert(new_key, rid);
            a.writes.push((id, None));
            a.writes.push((new_key, Some(base)));
        }
    }
    Ok(())
}

#[test]
fn randomized_transactions_match_the_serial_model() {
    let seeds: Vec<u64> = match std::env::var("NESTOR_SEED") {
        Ok(s) => vec![s.parse().expect("NESTOR_SEED is a number")],
        Err(_) => (1..=12).collect(),
    };
    let mut cov = Coverage::default();
    for seed in seeds {
        run(seed, &mut cov);
    }
    eprintln!("coverage: {cov:?}");
    assert!(
        cov.writing_commits > 0 && cov.rollbacks_to > 0 && cov.lock_conflicts > 0,
        "{cov:?}"
    );
    if std::env::var("NESTOR_SEED").is_err() {
        assert!(
            cov.rechecks > 0
                && cov.serialization_failures > 0
                && cov.deletes > 0
                && cov.key_changes > 0
                && cov.key_share_beside_update > 0
                && cov.locks_by_mode.iter().all(|&n| n > 0),
            "{cov:?}"
        );
    }
}
