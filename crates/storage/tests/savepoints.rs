//! Savepoints as marks in the private undo log: nested, shadowed names,
//! ROLLBACK TO restoring rows and releasing locks taken after the mark,
//! RELEASE merging, deep nesting, and invisibility to other sessions.

mod common;

use std::thread;

use common::*;
use nestor_common::limits::SAVEPOINT_DEPTH_MAX;
use nestor_storage::LockResult;
use nestor_txn::{Isolation, LockKey, LockMode, TxnError};

const RC: Isolation = Isolation::ReadCommitted;

#[test]
fn nested_rollback_to_restores_each_level() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    set(&db, &mut t, 1, 1).unwrap();
    t.savepoint("a").unwrap();
    set(&db, &mut t, 1, 2).unwrap();
    insert(&db, &mut t, 2, 2).unwrap();
    t.savepoint("b").unwrap();
    set(&db, &mut t, 1, 3).unwrap();
    delete(&db, &mut t, 2).unwrap();
    assert_eq!(read(&db, &mut t, 1), Some(3));
    assert_eq!(read(&db, &mut t, 2), None);
    t.rollback_to("b").unwrap();
    assert_eq!(read(&db, &mut t, 1), Some(2));
    assert_eq!(read(&db, &mut t, 2), Some(2), "delete undone");
    t.rollback_to("a").unwrap();
    assert_eq!(read(&db, &mut t, 1), Some(1));
    assert_eq!(read(&db, &mut t, 2), None, "insert undone");
    assert!(!t.has_savepoint("b"), "inner savepoint is gone");
    assert!(t.has_savepoint("a"), "rolled-back-to savepoint stays");
    // Work after ROLLBACK TO continues in a fresh subtransaction.
    set(&db, &mut t, 1, 4).unwrap();
    t.rollback_to("a").unwrap();
    assert_eq!(read(&db, &mut t, 1), Some(1));
    t.commit();
    assert_eq!(db.committed(), vec![(1, 1)]);
}

#[test]
fn same_name_shadows_and_release_uncovers_the_outer_one() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    t.savepoint("s").unwrap();
    set(&db, &mut t, 1, 1).unwrap();
    t.savepoint("s").unwrap();
    set(&db, &mut t, 1, 2).unwrap();
    t.rollback_to("s").unwrap();
    assert_eq!(read(&db, &mut t, 1), Some(1), "innermost 's' is the target");
    t.release("s").unwrap();
    t.rollback_to("s").unwrap();
    assert_eq!(read(&db, &mut t, 1), Some(0), "outer 's' after release");
    t.release("s").unwrap();
    assert_eq!(
        t.rollback_to("s"),
        Err(TxnError::SavepointNotFound { name: "s".into() })
    );
    t.commit();
}

#[test]
fn release_merges_into_the_parent() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    t.savepoint("outer").unwrap();
    t.savepoint("inner").unwrap();
    set(&db, &mut t, 1, 5).unwrap();
    t.savepoint("innermost").unwrap();
    t.release("inner").unwrap(); // releases innermost too
    assert!(!t.has_savepoint("innermost") && !t.has_savepoint("inner"));
    assert_eq!(read(&db, &mut t, 1), Some(5), "released work stays");
    t.rollback_to("outer").unwrap();
    assert_eq!(
        read(&db, &mut t, 1),
        Some(0),
        "and now belongs to the parent"
    );
    t.commit();
}

#[test]
fn rollback_to_releases_locks_taken_after_the_mark_and_wakes_waiters() {
    let db = Db::new();
    db.seed(&[(1, 0), (2, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    lock_wait(&db, &mut t1, 1, LockMode::Update).unwrap();
    t1.savepoint("a").unwrap();
    lock_wait(&db, &mut t1, 2, LockMode::Update).unwrap();
    set(&db, &mut t1, 2, 7).unwrap();
    let key2 = LockKey::Row(T, db.row_id(2));
    thread::scope(|sc| {
        let h = sc.spawn(|| {
            let mut t2 = s2.begin(RC);
            set(&db, &mut t2, 2, 9).unwrap();
            t2.commit();
        });
        wait_for_waiter(&db, key2);
        t1.rollback_to("a").unwrap();
        h.join().unwrap(); // woken by the rollback-to, not by t1's end
    });
    assert_eq!(db.committed(), vec![(1, 0), (2, 9)]);
    // The lock taken before the mark is still held.
    let mut t3 = db.session(3).begin(RC);
    let r = lock_nowait(&db, &mut t3, 1, LockMode::KeyShare);
    assert!(r.is_err(), "row 1 still locked by t1");
    t1.commit();
    let r = lock_nowait(&db, &mut t3, 1, LockMode::KeyShare);
    assert_eq!(r.unwrap(), LockResult::Locked);
}

#[test]
fn rollback_to_restores_the_previous_lock_mode() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    lock_wait(&db, &mut t1, 1, LockMode::KeyShare).unwrap();
    t1.savepoint("a").unwrap();
    set(&db, &mut t1, 1, 1).unwrap(); // upgrades to NoKeyUpdate in place
    let key = LockKey::Row(T, db.row_id(1));
    let info = db.mgr.locks.info(key).unwrap();
    assert_eq!(info.holders.len(), 1, "upgrade in place, one holder record");
    assert_eq!(info.holders[0].1, LockMode::NoKeyUpdate);
    t1.rollback_to("a").unwrap();
    let info = db.mgr.locks.info(key).unwrap();
    assert_eq!(info.holders[0].1, LockMode::KeyShare);
    // Another transaction may now take FOR SHARE (conflicts only with the
    // update-level lock that was rolled back).
    let mut t2 = s2.begin(RC);
    let r = lock_nowait(&db, &mut t2, 1, LockMode::Share);
    assert_eq!(r.unwrap(), LockResult::Locked);
}

#[test]
fn ten_thousand_nested_writing_savepoints_in_one_transaction() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    let xids_before = db.mgr.stats().xids_assigned;
    for i in 1..=10_000 {
        t.savepoint("a").unwrap();
        set(&db, &mut t, 1, i).unwrap();
    }
    assert_eq!(t.savepoint_stats().depth, 10_000);
    assert_eq!(
        db.mgr.stats().xids_assigned - xids_before,
        1,
        "one XID for all"
    );
    t.rollback_to("a").unwrap();
    assert_eq!(read(&db, &mut t, 1), Some(9_999));
    t.commit();
    assert_eq!(db.committed(), vec![(1, 9_999)]);
    // The lock table holds nothing after commit.
    assert!(db.mgr.locks.is_empty());
}

#[test]
fn savepoints_are_invisible_to_other_sessions() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    let xid = t1.assign_xid();
    for i in 0..100 {
        t1.savepoint(&format!("s{i}")).unwrap();
        insert(&db, &mut t1, 100 + i, i).unwrap();
    }
    let key = LockKey::Txn(xid);
    assert_eq!(db.mgr.locks.len(), 1, "only the transaction's own key");
    assert_eq!(db.mgr.locks.info(key).unwrap().holders.len(), 1);
    t1.commit();
    let mut t2 = s2.begin(RC);
    let snap = t2.start_statement().unwrap();
    let xmins: std::collections::HashSet<_> = db
        .table
        .scan(&snap)
        .filter(|t| int(&t.data[0]) >= 100)
        .map(|t| t.xmin)
        .collect();
    assert_eq!(xmins.len(), 1, "every row carries the top-level xid");
    assert!(xmins.contains(&xid));
}

#[test]
fn depth_limit_is_enforced_with_a_clear_error() {
    let db = Db::new();
    let s = db.session(1);
    let mut t = s.begin(RC);
    for _ in 0..SAVEPOINT_DEPTH_MAX {
        t.savepoint("x").unwrap();
    }
    let err = t.savepoint("x").unwrap_err();
    assert_eq!(
        err,
        TxnError::SavepointDepthExceeded {
            max: SAVEPOINT_DEPTH_MAX
        }
    );
    let db_err: nestor_common::DbError = err.into();
    assert_eq!(db_err.code.code(), "54000");
}

#[test]
fn failed_level_undo_keeps_outer_work_and_marks() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    set(&db, &mut t, 1, 1).unwrap();
    t.savepoint("a").unwrap();
    set(&db, &mut t, 1, 2).unwrap();
    t.undo_failed_level(); // an error inside savepoint a
    assert_eq!(read(&db, &mut t, 1), Some(1));
    t.rollback_to("a").unwrap();
    t.commit();
    assert_eq!(db.committed(), vec![(1, 1)]);
}
