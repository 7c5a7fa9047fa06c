//! Row locks through the storage write paths: every cell of PostgreSQL's
//! conflict table, NOWAIT, SKIP LOCKED, lock_timeout, deadlocks across row
//! locks and transaction waits, waking on commit and abort, and the
//! MultiXact case of seed 001 (lock, savepoint, update) creating nothing.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use common::*;
use nestor_common::SqlState;
use nestor_storage::{LockResult, StorageError};
use nestor_txn::{Isolation, LockKey, LockMode, TxnError, WaitCtl, WaitPolicy};

const RC: Isolation = Isolation::ReadCommitted;
const MODES: [LockMode; 4] = [
    LockMode::KeyShare,
    LockMode::Share,
    LockMode::NoKeyUpdate,
    LockMode::Update,
];

#[test]
fn every_cell_of_the_conflict_table() {
    // PostgreSQL's table: X = conflicts.
    //              KS  S  NKU  U
    let table = [
        [false, false, false, true],
        [false, false, true, true],
        [false, true, true, true],
        [true, true, true, true],
    ];
    for (i, held) in MODES.iter().enumerate() {
        for (j, wanted) in MODES.iter().enumerate() {
            let db = Db::new();
            db.seed(&[(1, 0)]);
            let (s1, s2) = (db.session(1), db.session(2));
            let mut t1 = s1.begin(RC);
            lock_wait(&db, &mut t1, 1, *held).unwrap();
            let mut t2 = s2.begin(RC);
            let r = lock_nowait(&db, &mut t2, 1, *wanted);
            if table[i][j] {
                let e = r.unwrap_err().into_db(&|v| format!("{v:?}"));
                assert_eq!(e.code, SqlState::LockNotAvailable, "{held:?} vs {wanted:?}");
                assert_eq!(e.message, "could not obtain lock on row in relation \"t\"");
            } else {
                assert_eq!(r.unwrap(), LockResult::Locked, "{held:?} vs {wanted:?}");
            }
        }
    }
}

#[test]
fn update_takes_no_key_update_so_key_share_does_not_block_it() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    lock_wait(&db, &mut t1, 1, LockMode::KeyShare).unwrap();
    let mut t2 = s2.begin(RC);
    assert_eq!(
        set(&db, &mut t2, 1, 5).unwrap(),
        1,
        "non-key update passes FOR KEY SHARE"
    );
    t2.commit();
    // A delete needs FOR UPDATE strength: it conflicts with KEY SHARE.
    let mut t3 = db.session(3).begin(RC);
    let ctl = WaitCtl {
        lock_timeout: Some(Duration::from_millis(50)),
        ..WaitCtl::unbounded()
    };
    let snap = t3.start_statement().unwrap();
    let rid = db.row_id(1);
    let err = db
        .table
        .delete(&mut t3, rid, &snap, &ctl, nestor_storage::Recheck::Snapshot)
        .unwrap_err();
    assert_eq!(err, StorageError::Txn(TxnError::LockTimeout));
    let e = err.into_db(&|v| format!("{v:?}"));
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            SqlState::LockNotAvailable,
            "canceling statement due to lock timeout"
        )
    );
}

#[test]
fn skip_locked_skips_and_nowait_fails() {
    let db = Db::new();
    db.seed(&[(1, 0), (2, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    lock_wait(&db, &mut t1, 1, LockMode::Update).unwrap();
    let mut t2 = s2.begin(RC);
    let got: Vec<_> = [1, 2]
        .iter()
        .map(|&id| {
            lock(
                &db,
                &mut t2,
                id,
                LockMode::Update,
                WaitPolicy::SkipLocked,
                &WaitCtl::unbounded(),
            )
            .unwrap()
        })
        .collect();
    assert_eq!(got, vec![LockResult::Skipped, LockResult::Locked]);
    let e = lock_nowait(&db, &mut t2, 1, LockMode::Share).unwrap_err();
    assert!(is_txn_err(&e, |t| matches!(
        t,
        TxnError::LockNotAvailable { .. }
    )));
}

#[test]
fn waiters_wake_on_commit_and_on_abort() {
    for commit in [true, false] {
        let db = Db::new();
        db.seed(&[(1, 0)]);
        let (s1, s2) = (db.session(1), db.session(2));
        let mut t1 = s1.begin(RC);
        set(&db, &mut t1, 1, 1).unwrap();
        let key = LockKey::Row(T, db.row_id(1));
        let dbr = &db;
        thread::scope(|sc| {
            let h = sc.spawn(move || {
                let mut t2 = s2.begin(RC);
                update_with(dbr, &mut t2, 1, &WaitCtl::unbounded(), |v| v + 10).unwrap();
                t2.commit();
            });
            wait_for_waiter(&db, key);
            if commit {
                t1.commit();
            } else {
                t1.rollback();
            }
            h.join().unwrap();
        });
        let want = if commit { 11 } else { 10 };
        assert_eq!(db.committed(), vec![(1, want)]);
    }
}

#[test]
fn deadlock_between_two_row_locks_is_detected() {
    let db = Db::new();
    db.seed(&[(1, 0), (2, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    let mut t2 = s2.begin(RC);
    set(&db, &mut t1, 1, 1).unwrap();
    set(&db, &mut t2, 2, 2).unwrap();
    let key2 = LockKey::Row(T, db.row_id(2));
    let ctl = ctl_ms(50);
    let dbr = &db;
    let failed = thread::scope(|sc| {
        // t1 waits for row 2 (held by t2) with a long deadlock_timeout, so
        // t2 — which closes the cycle — is the one that detects it.
        let h = sc.spawn(move || {
            let r = update_with(dbr, &mut t1, 2, &ctl_ms(60_000), |v| v + 1);
            (r, t1)
        });
        wait_for_waiter(&db, key2);
        let err = update_with(&db, &mut t2, 1, &ctl, |v| v + 1).unwrap_err();
        t2.rollback(); // the victim's abort breaks the cycle
        let (r, t1) = h.join().unwrap();
        assert_eq!(r.unwrap(), 1, "the survivor proceeds");
        t1.commit();
        err
    });
    let e = failed.into_db(&|v| format!("{v:?}"));
    assert_eq!(e.code, SqlState::DeadlockDetected);
    assert_eq!(e.message, "deadlock detected");
    let detail = e.detail.clone().unwrap();
    assert!(
        detail.contains("Process 2 waits for") && detail.contains("blocked by process 1"),
        "{detail}"
    );
    assert_eq!(db.committed(), vec![(1, 1), (2, 1)]);
}

#[test]
fn deadlock_through_a_unique_key_wait_is_detected() {
    // t1 inserts key 10 and then waits for row 1 (locked by t2); t2 inserts
    // key 10 too and must wait for t1's transaction: a cycle through a
    // transaction wait and a row lock.
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    let mut t2 = s2.begin(RC);
    insert(&db, &mut t1, 10, 0).unwrap();
    set(&db, &mut t2, 1, 5).unwrap();
    let key1 = LockKey::Row(T, db.row_id(1));
    let dbr = &db;
    thread::scope(|sc| {
        let h = sc.spawn(move || {
            let r = update_with(dbr, &mut t1, 1, &ctl_ms(60_000), |v| v + 1);
            (r, t1)
        });
        wait_for_waiter(&db, key1);
        t2.start_statement().unwrap();
        let err = db
            .table
            .insert(&mut t2, &row(10, 0), &ctl_ms(30))
            .unwrap_err();
        assert!(
            is_txn_err(&err, |t| matches!(t, TxnError::Deadlock { .. })),
            "{err:?}"
        );
        t2.rollback();
        let (r, t1) = h.join().unwrap();
        r.unwrap();
        t1.commit();
    });
    assert_eq!(db.committed(), vec![(1, 1), (10, 0)]);
}

#[test]
fn interrupt_stops_a_wait() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    set(&db, &mut t1, 1, 1).unwrap();
    let cancel = AtomicBool::new(false);
    let check = || {
        if cancel.load(Ordering::SeqCst) {
            Err(TxnError::Canceled)
        } else {
            Ok(())
        }
    };
    let ctl = WaitCtl {
        interrupt: &check,
        log_lock_waits: false,
        ..WaitCtl::unbounded()
    };
    let key = LockKey::Row(T, db.row_id(1));
    let dbr = &db;
    thread::scope(|sc| {
        let h = sc.spawn(move || {
            let mut t2 = s2.begin(RC);
            update_with(dbr, &mut t2, 1, &ctl, |v| v + 1)
        });
        wait_for_waiter(&db, key);
        cancel.store(true, Ordering::SeqCst);
        let err = h.join().unwrap().unwrap_err();
        assert_eq!(err, StorageError::Txn(TxnError::Canceled));
    });
}

#[test]
fn lock_savepoint_update_creates_no_extra_shared_structure() {
    // Seed 001's MultiXact case: SELECT .. FOR UPDATE; SAVEPOINT; UPDATE.
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    for round in 0..100 {
        let mut t = s.begin(RC);
        lock_wait(&db, &mut t, 1, LockMode::Update).unwrap();
        t.savepoint("s").unwrap();
        set(&db, &mut t, 1, round + 1).unwrap();
        let key = LockKey::Row(T, db.row_id(1));
        let info = db.mgr.locks.info(key).unwrap();
        assert_eq!(
            info.holders.len(),
            1,
            "one holder record: the top-level xid"
        );
        assert_eq!(info.holders[0].1, LockMode::Update);
        assert_eq!(
            db.mgr.locks.len(),
            2,
            "the row and the transaction's own key"
        );
        t.commit();
    }
    assert!(db.mgr.locks.is_empty());
    assert_eq!(db.committed(), vec![(1, 100)]);
}

#[test]
fn unique_key_second_inserter_waits_then_fails_or_succeeds() {
    for first_commits in [true, false] {
        let db = Db::new();
        let (s1, s2) = (db.session(1), db.session(2));
        let mut t1 = s1.begin(RC);
        insert(&db, &mut t1, 7, 1).unwrap();
        let key = LockKey::Txn(t1.xid());
        let dbr = &db;
        thread::scope(|sc| {
            let h = sc.spawn(move || {
                let mut t2 = s2.begin(RC);
                let r = insert(dbr, &mut t2, 7, 2);
                if r.is_ok() {
                    t2.commit();
                }
                r
            });
            wait_for_waiter(&db, key);
            if first_commits {
                t1.commit();
                let e = h.join().unwrap().unwrap_err().into_db(&|v| match v {
                    nestor_types::Value::Int8(i) => i.to_string(),
                    _ => "?".into(),
                });
                assert_eq!(e.code, SqlState::UniqueViolation);
                assert_eq!(
                    e.message,
                    "duplicate key value violates unique constraint \"t_pkey\""
                );
                assert_eq!(e.detail.as_deref(), Some("Key (id)=(7) already exists."));
            } else {
                t1.rollback();
                h.join().unwrap().unwrap();
            }
        });
        let want = if first_commits {
            vec![(7, 1)]
        } else {
            vec![(7, 2)]
        };
        assert_eq!(db.committed(), want);
    }
}

#[test]
fn unique_key_freed_by_own_delete_can_be_reused() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    assert!(
        insert(&db, &mut t, 1, 5).is_err(),
        "duplicate while the row lives"
    );
    drop(t);
    let mut t = s.begin(RC);
    delete(&db, &mut t, 1).unwrap();
    insert(&db, &mut t, 1, 5).unwrap();
    t.commit();
    assert_eq!(db.committed(), vec![(1, 5)]);
}
