//! The commit protocol's interlock with snapshots (a version whose
//! transaction is in the middle of committing), commit order, O(1)
//! snapshots, lazy XIDs, and pruning with the lazily computed GC horizon.

mod common;

use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use common::*;
use nestor_common::{Csn, Xid};
use nestor_txn::{CommitLog, Isolation, TxnManager, XactStatus, XidState};

const RC: Isolation = Isolation::ReadCommitted;

/// A log whose first flush (after `skip` others) blocks until the test
/// opens the gate: it holds a committing transaction between "sequenced"
/// and "visible".
#[derive(Default)]
struct GatedLog {
    open: Mutex<bool>,
    cv: Condvar,
    appended: Mutex<Vec<Csn>>,
    skip: usize,
}

impl CommitLog for GatedLog {
    fn append(&self, _xid: Xid, csn: Csn, _redo: Box<dyn nestor_txn::RedoBuffer>) {
        self.appended.lock().unwrap().push(csn);
    }
    fn wait_durable(&self, csn: Csn) {
        // Only the first commit's flush is held; later ones are durable
        // at once (they must still not become visible before it).
        if self.appended.lock().unwrap().get(self.skip) != Some(&csn) {
            return;
        }
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.cv.wait(open).unwrap();
        }
    }
}

/// Opens the gate when dropped, so a failed assertion unwinds instead of
/// leaving a committer blocked (and the test hanging).
struct OpenOnDrop<'a>(&'a GatedLog);

impl Drop for OpenOnDrop<'_> {
    fn drop(&mut self) {
        self.0.open();
    }
}

impl GatedLog {
    /// Gated after the seed's commit.
    fn after_seed() -> Arc<GatedLog> {
        Arc::new(GatedLog {
            skip: 1,
            ..GatedLog::default()
        })
    }

    /// The CSN of the gated commit, once sequenced.
    fn gated_csn(&self) -> Option<Csn> {
        self.appended.lock().unwrap().get(self.skip).copied()
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }
}

#[test]
fn a_version_whose_transaction_is_mid_commit_is_invisible_until_published() {
    let log = Arc::new(GatedLog::default());
    let mgr = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
    let db = Db::with_log(mgr);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    insert(&db, &mut t1, 1, 10).unwrap();
    let xid = t1.xid();
    thread::scope(|sc| {
        let h = sc.spawn(move || t1.commit());
        // Wait until t1 is sequenced (has its CSN) but not yet visible.
        while log.appended.lock().unwrap().is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        let csn = log.appended.lock().unwrap()[0];
        assert_eq!(db.mgr.state(xid), Some(XidState::Committed(csn)));
        assert!(db.mgr.horizon() < csn, "horizon has not reached it");
        // A reader now sees nothing, without waiting for the committer.
        let mut t2 = s2.begin(RC);
        assert_eq!(read(&db, &mut t2, 1), None);
        log.open();
        assert_eq!(h.join().unwrap(), Some(csn));
        // The next statement's snapshot sees it.
        assert_eq!(read(&db, &mut t2, 1), Some(10));
    });
}

#[test]
fn commits_become_visible_in_commit_order() {
    // T1 sequences first but its flush is held; T2 (sequenced after) must
    // not become visible before T1 does.
    let log = Arc::new(GatedLog::default());
    let mgr = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
    let db = Db::with_log(mgr);
    let (s1, s2, s3) = (db.session(1), db.session(2), db.session(3));
    let mut t1 = s1.begin(RC);
    insert(&db, &mut t1, 1, 1).unwrap();
    let mut t2 = s2.begin(RC);
    insert(&db, &mut t2, 2, 2).unwrap();
    thread::scope(|sc| {
        let h1 = sc.spawn(move || t1.commit());
        while log.appended.lock().unwrap().is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        let h2 = sc.spawn(move || t2.commit());
        while log.appended.lock().unwrap().len() < 2 {
            thread::sleep(Duration::from_millis(1));
        }
        let mut r = s3.begin(RC);
        assert_eq!((read(&db, &mut r, 1), read(&db, &mut r, 2)), (None, None));
        // T2 is not acknowledged while T1, before it, is not visible: its
        // client would otherwise not see its own commit.
        thread::sleep(Duration::from_millis(20));
        assert!(!h2.is_finished(), "T2 acknowledged before it was visible");
        log.open();
        h1.join().unwrap();
        h2.join().unwrap();
        assert_eq!(read(&db, &mut r, 1), Some(1));
        assert_eq!(read(&db, &mut r, 2), Some(2));
    });
}

#[test]
fn xids_are_lazy_and_top_level_only() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let before = db.mgr.stats().xids_assigned;
    let mut t = s.begin(RC);
    for i in 0..1_000 {
        t.savepoint(&format!("s{i}")).unwrap();
        read(&db, &mut t, 1);
    }
    assert_eq!(t.xid(), Xid::NONE, "read-only: no xid");
    for i in 0..1_000 {
        t.savepoint(&format!("w{i}")).unwrap();
        set(&db, &mut t, 1, i).unwrap();
    }
    let xid = t.xid();
    t.commit();
    assert_eq!(db.mgr.stats().xids_assigned - before, 1);
    assert_eq!(db.mgr.xact_status(xid), XactStatus::Committed);
}

#[test]
fn snapshot_acquisition_does_not_depend_on_session_count() {
    // Structural, not timed: taking a snapshot reads one atomic and never
    // touches the slot registry; registering 10,000 sessions leaves the
    // snapshot path identical (the benchmark measures the time).
    let db = Db::new();
    let sessions: Vec<_> = (0..10_000).map(|i| db.session(i)).collect();
    assert_eq!(db.mgr.slot_count(), 10_000);
    let mut t = sessions[0].begin(RC);
    let snap = t.start_statement().unwrap();
    assert_eq!(snap.horizon, db.mgr.horizon());
    assert_eq!(sessions[0].slot.held(), Some(snap.horizon));
    assert_eq!(sessions[1].slot.held(), None);
}

#[test]
fn pruning_keeps_what_an_old_snapshot_needs_and_no_more() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (old, w) = (db.session(1), db.session(2));
    let mut reader = old.begin(Isolation::RepeatableRead);
    assert_eq!(read(&db, &mut reader, 1), Some(0));
    for i in 1..=50 {
        let mut t = w.begin(RC);
        set(&db, &mut t, 1, i).unwrap();
        t.commit();
    }
    let rid = db.row_id(1);
    assert_eq!(db.table.version_count(rid), 51);
    let stats = db.store.prune_all();
    // The old snapshot still needs version 0. Every replacement committed
    // after the GC horizon (the old snapshot), so none is provably dead:
    // like PostgreSQL's xmin horizon, pruning only removes versions whose
    // deletion is at or below the oldest snapshot.
    assert_eq!(
        read(&db, &mut reader, 1),
        Some(0),
        "old snapshot still served"
    );
    assert_eq!(stats.versions_removed, 0);
    // A new reader reads the newest version first, whatever the chain length.
    let mut fresh = w.begin(RC);
    assert_eq!(read(&db, &mut fresh, 1), Some(50));
    drop(fresh);
    reader.commit();
    let stats = db.store.prune_all();
    assert_eq!(stats.versions_removed, 50);
    assert_eq!(db.table.version_count(rid), 1);
    assert_eq!(db.committed(), vec![(1, 50)]);
}

#[test]
fn pruning_removes_deleted_rows_and_their_index_entries() {
    let db = Db::new();
    db.seed(&[(1, 0), (2, 0), (3, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    delete(&db, &mut t, 2).unwrap();
    t.commit();
    assert_eq!(db.pkey.len(), 3);
    let stats = db.store.prune_all();
    assert_eq!((stats.rows_removed, stats.index_entries_removed), (1, 1));
    assert_eq!(db.pkey.len(), 2);
    assert_eq!(db.committed(), vec![(1, 0), (3, 0)]);
    // The key is free again.
    let mut t = s.begin(RC);
    insert(&db, &mut t, 2, 9).unwrap();
    t.commit();
    assert_eq!(db.committed(), vec![(1, 0), (2, 9), (3, 0)]);
}

#[test]
fn aborted_transactions_leave_nothing_behind() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    set(&db, &mut t, 1, 5).unwrap();
    insert(&db, &mut t, 2, 5).unwrap();
    let xid = t.xid();
    t.rollback();
    assert_eq!(db.mgr.xact_status(xid), XactStatus::Aborted);
    assert_eq!(db.table.version_count(db.row_id(1)), 1);
    assert_eq!(db.pkey.len(), 1, "the aborted insert's index entry is gone");
    assert!(db.mgr.locks.is_empty());
    assert_eq!(db.committed(), vec![(1, 0)]);
}

#[test]
fn unique_conflict_with_a_commit_not_yet_visible_waits_for_it() {
    // Found by the racing find-or-create benchmark: a 23505 raised against a
    // commit that was sequenced but not yet visible let the next statement
    // miss the conflicting row. The second inserter must wait until the
    // first commit is visible.
    let log = Arc::new(GatedLog::default());
    let mgr = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
    let db = Db::with_log(mgr);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    insert(&db, &mut t1, 7, 1).unwrap();
    let xid1 = t1.xid();
    thread::scope(|sc| {
        let h1 = sc.spawn(move || t1.commit());
        while log.appended.lock().unwrap().is_empty() {
            thread::sleep(Duration::from_millis(1));
        }
        let dbr = &db;
        let s2r = &s2;
        let h2 = sc.spawn(move || {
            let mut t2 = s2r.begin(RC);
            let err = insert(dbr, &mut t2, 7, 2).unwrap_err();
            // Right after the 23505, a new statement sees the row.
            let seen = read(dbr, &mut t2, 7);
            (err, seen)
        });
        let key = nestor_txn::LockKey::Txn(xid1);
        let mut blocked = false;
        for _ in 0..2000 {
            if db.mgr.locks.info(key).is_some_and(|i| i.waiters > 0) {
                blocked = true;
                break;
            }
            if h2.is_finished() {
                break;
            }
            thread::sleep(Duration::from_millis(1));
        }
        log.open();
        h1.join().unwrap();
        let (err, seen) = h2.join().unwrap();
        assert!(
            blocked,
            "the second inserter must wait for the first commit"
        );
        assert!(matches!(
            err,
            nestor_storage::StorageError::UniqueViolation { .. }
        ));
        assert_eq!(seen, Some(1));
    });
}

/// A Db seeded with `rows`, row 1 then updated to v = 5 (its old and new
/// version both hold v = 5), and a unique index on v to add to it.
fn updated_db_and_index_on_v(rows: &[(i64, i64)]) -> (Db, Arc<nestor_storage::Index>) {
    let db = Db::new();
    db.seed(rows);
    let s = db.session(1);
    let mut t = s.begin(Isolation::ReadCommitted);
    set(&db, &mut t, 1, 5).unwrap();
    t.commit();
    drop(s);
    let by_v = Arc::new(nestor_storage::Index::new(
        nestor_common::RelId(16390),
        "t_v_key",
        vec![1],
        vec!["v".into()],
        true,
        false,
    ));
    (db, by_v)
}

#[test]
fn a_unique_index_over_rows_with_several_versions_finds_the_duplicate() {
    // Row 1 is updated without changing v: it has a dead and a live version
    // with v = 5; row 2 is live with v = 5. A unique index on v must fail,
    // whichever of row 1's versions the build looks at first.
    for _ in 0..20 {
        let (db, by_v) = updated_db_and_index_on_v(&[(1, 5), (2, 5), (3, 6)]);
        match db.table.add_index(by_v) {
            Err(nestor_storage::StorageError::UniqueViolation { key, .. }) => {
                assert_eq!(key, vec![nestor_types::Value::Int8(5)]);
            }
            other => panic!("expected a unique violation, got {other:?}"),
        }
        // Without the duplicate row, the same shape builds.
        let (db, by_v) = updated_db_and_index_on_v(&[(1, 5), (3, 6)]);
        db.table.add_index(by_v.clone()).unwrap();
        assert_eq!(by_v.len(), 2, "row 1's two versions share one entry");
    }
}

/// A writer trims its row's chain of versions every snapshot is past (by
/// the GC horizon hint the background pruner refreshes), so a hot row
/// stays short between pruner passes; never what an open snapshot needs,
/// and never a version whose index key differs (its entry is the pruner's).
#[test]
fn an_update_trims_its_rows_dead_versions_and_only_those() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (old, w) = (db.session(1), db.session(2));
    let rid = db.row_id(1);
    let mut reader = old.begin(Isolation::RepeatableRead);
    assert_eq!(read(&db, &mut reader, 1), Some(0));
    for i in 1..=20 {
        let mut t = w.begin(RC);
        set(&db, &mut t, 1, i).unwrap();
        t.commit();
        db.mgr.gc_horizon(); // what the pruner does every interval
    }
    assert_eq!(
        db.table.version_count(rid),
        21,
        "the old snapshot holds them"
    );
    assert_eq!(read(&db, &mut reader, 1), Some(0));
    reader.commit();
    db.mgr.gc_horizon();
    let mut t = w.begin(RC);
    set(&db, &mut t, 1, 21).unwrap();
    t.commit();
    // Kept: the version this update replaced (its replacement was not
    // committed when it was trimmed) and the new one.
    assert_eq!(db.table.version_count(rid), 2);
    assert_eq!(db.committed(), vec![(1, 21)]);

    // A key change: the version with the old key stays until a prune
    // removes it with its index entry.
    let mut t = w.begin(RC);
    let snap = t.start_statement().unwrap();
    let moved = db
        .table
        .update(
            &mut t,
            rid,
            &row(100, 22),
            &snap,
            &nestor_txn::WaitCtl::unbounded(),
            nestor_storage::Recheck::Snapshot,
        )
        .unwrap();
    assert!(matches!(moved, nestor_storage::WriteResult::Done));
    t.commit();
    db.mgr.gc_horizon();
    for v in 23..=25 {
        let mut t = w.begin(RC);
        set(&db, &mut t, 100, v).unwrap();
        t.commit();
        db.mgr.gc_horizon();
    }
    // The two id=1 versions (20 and 21), the one the last update replaced
    // and the new one; 22 and 23 (id=100, dead) were trimmed.
    assert_eq!(db.table.version_count(rid), 4);
    assert_eq!(db.pkey.len(), 2, "entries for id 1 and id 100");
    db.store.prune_all();
    assert_eq!(db.table.version_count(rid), 1);
    assert_eq!(db.pkey.len(), 1);
    assert_eq!(db.committed(), vec![(100, 25)]);
}

/// A newer snapshot taken inside a REPEATABLE READ transaction (ON
/// CONFLICT's look at the newest version, a READ COMMITTED re-check) must
/// not release the older one the transaction keeps reading at: pruning
/// and chain trimming go by the oldest horizon its slot holds.
#[test]
fn a_newer_snapshot_does_not_release_the_transactions_own() {
    let db = Db::new();
    db.seed(&[(1, 0)]);
    let (old, w) = (db.session(1), db.session(2));
    let mut reader = old.begin(Isolation::RepeatableRead);
    assert_eq!(read(&db, &mut reader, 1), Some(0));
    let mut t = w.begin(RC);
    set(&db, &mut t, 1, 1).unwrap();
    t.commit();
    let newer = reader.latest_snapshot();
    assert_eq!(get_in(&db, &newer, 1), Some(1));
    for v in 2..=4 {
        db.mgr.gc_horizon();
        let mut t = w.begin(RC);
        set(&db, &mut t, 1, v).unwrap();
        t.commit();
        db.store.prune_all();
    }
    assert_eq!(
        read(&db, &mut reader, 1),
        Some(0),
        "the RR snapshot still reads"
    );
}

/// Early lock release (docs/transactions.md): a committer gives up its row
/// locks once sequenced, so a writer waiting for the row goes on while the
/// commit's flush is held, writes on top of its (not yet stamped, not yet
/// visible) version, and is itself acknowledged only after it.
#[test]
fn a_row_lock_waiter_goes_on_while_the_holder_flushes() {
    let log = GatedLog::after_seed();
    let mgr = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
    let db = &Db::with_log(mgr);
    db.seed(&[(1, 10), (2, 20)]);
    let (s1, s2, s3) = (db.session(1), db.session(2), db.session(3));
    let mut t1 = s1.begin(RC);
    let mut t2 = s2.begin(RC);
    set(db, &mut t1, 1, 11).unwrap();
    set(db, &mut t1, 2, 21).unwrap();
    let t1_xid = t1.xid();
    thread::scope(|sc| {
        let _gate = OpenOnDrop(&log);
        let waiter = sc.spawn(move || {
            // UPDATE t SET v = v + 1 WHERE id = 1: blocks on t1's lock.
            let n = update_with(db, &mut t2, 1, &ctl_ms(10_000), |v| v + 1).unwrap();
            (t2, n)
        });
        wait_for_waiter(db, nestor_txn::LockKey::Row(db.table.id, db.row_id(1)));
        let h1 = sc.spawn(move || t1.commit());
        // The waiter finishes its UPDATE while t1's flush is still held.
        for _ in 0..5_000 {
            if waiter.is_finished() {
                break;
            }
            thread::sleep(Duration::from_millis(1));
        }
        assert!(waiter.is_finished(), "the waiter waited for t1's flush");
        let (mut t2, n) = waiter.join().unwrap();
        assert_eq!(n, 1);
        let csn1 = log.gated_csn().expect("t1 is sequenced");
        assert!(db.mgr.horizon() < csn1, "t1 is not visible yet");
        assert!(!h1.is_finished(), "t1 acknowledged before its flush");
        // Others do not see t1 yet ...
        let mut r = s3.begin(RC);
        assert_eq!(
            (read(db, &mut r, 1), read(db, &mut r, 2)),
            (Some(10), Some(20))
        );
        // ... but t2, which read t1's row 1 through its lock, sees all of
        // t1 from its next statement on (not row 1 new and row 2 old).
        assert_eq!(
            (read(db, &mut t2, 1), read(db, &mut t2, 2)),
            (Some(12), Some(21))
        );
        // t2's commit waits for t1's.
        let h2 = sc.spawn(move || t2.commit());
        thread::sleep(Duration::from_millis(20));
        assert!(!h2.is_finished(), "t2 acknowledged before t1 was visible");
        log.open();
        assert_eq!(h1.join().unwrap(), Some(csn1));
        assert!(h2.join().unwrap().unwrap() > csn1);
        // t1's versions were stamped under t2's (no status entry is left).
        assert_eq!(db.mgr.state(t1_xid), None);
        assert_eq!(
            (read(db, &mut r, 1), read(db, &mut r, 2)),
            (Some(12), Some(21))
        );
    });
    assert_eq!(db.committed(), vec![(1, 12), (2, 21)]);
}

/// A waiter that read an early-released commit and then rolls back leaves
/// only once that commit is visible: the session's next transaction never
/// sees less than it saw.
#[test]
fn a_rollback_after_reading_an_early_released_commit_waits_for_it() {
    let log = GatedLog::after_seed();
    let mgr = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
    let db = &Db::with_log(mgr);
    db.seed(&[(1, 10)]);
    let (s1, s2) = (db.session(1), db.session(2));
    let mut t1 = s1.begin(RC);
    set(db, &mut t1, 1, 11).unwrap();
    let mut t2 = s2.begin(RC);
    thread::scope(|sc| {
        let _gate = OpenOnDrop(&log);
        let waiter = sc.spawn(move || {
            let r = lock_wait(db, &mut t2, 1, nestor_txn::LockMode::Update).unwrap();
            t2.rollback();
            r
        });
        wait_for_waiter(db, nestor_txn::LockKey::Row(db.table.id, db.row_id(1)));
        let h1 = sc.spawn(move || t1.commit());
        thread::sleep(Duration::from_millis(20));
        assert!(!waiter.is_finished(), "rolled back before t1 was visible");
        log.open();
        h1.join().unwrap();
        assert!(matches!(
            waiter.join().unwrap(),
            nestor_storage::LockResult::Changed(_)
        ));
        let mut t3 = s2.begin(RC);
        assert_eq!(read(db, &mut t3, 1), Some(11));
    });
}

/// The dependency an early-released lock carries need not be a version of
/// the locked row: here t1 holds FOR KEY SHARE on row 1 (as a foreign-key
/// check does) and inserts row 3 (the child). Whoever takes row 1's lock
/// after t1 released it must see row 3, or a parent DELETE would find no
/// child and succeed.
#[test]
fn a_lock_taken_after_an_early_release_sees_the_whole_releaser() {
    let log = GatedLog::after_seed();
    let mgr = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
    let db = &Db::with_log(mgr);
    db.seed(&[(1, 10)]);
    let (s1, s3) = (db.session(1), db.session(3));
    let mut t1 = s1.begin(RC);
    lock_wait(db, &mut t1, 1, nestor_txn::LockMode::KeyShare).unwrap();
    insert(db, &mut t1, 3, 1).unwrap();
    // Begun out here so that it ends after the gate opens (its end waits
    // for what it saw to be visible).
    let mut t3 = s3.begin(RC);
    thread::scope(|sc| {
        let _gate = OpenOnDrop(&log);
        let h1 = sc.spawn(move || t1.commit());
        while log.gated_csn().is_none() {
            thread::sleep(Duration::from_millis(1));
        }
        // t1 is sequenced, its flush held; its locks are free.
        let r = lock(
            db,
            &mut t3,
            1,
            nestor_txn::LockMode::Update,
            nestor_txn::WaitPolicy::NoWait,
            &ctl_ms(1_000),
        );
        assert!(r.is_ok(), "t1's key-share lock was not released early");
        assert_eq!(get_in(db, &t3.latest_snapshot(), 3), Some(1));
        assert!(!h1.is_finished());
    });
}
