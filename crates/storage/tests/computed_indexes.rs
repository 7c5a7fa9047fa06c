//! Computed (expression and partial) indexes: a key function decides each
//! row's key, or that a partial index does not cover it. Rows outside the
//! predicate get no entry and no unique check; UPDATE moves rows in and
//! out; ROLLBACK TO and pruning remove exactly the entries no version
//! holds any more; a failing key expression fails the write.

mod common;

use std::ops::Bound;
use std::sync::Arc;

use common::*;
use nestor_common::{DbError, RelId, SqlState};
use nestor_storage::{Index, IndexKeys, StorageError};
use nestor_txn::Isolation;
use nestor_types::Value;

const RC: Isolation = Isolation::ReadCommitted;

/// UNIQUE (v % 100) WHERE v >= 0; v = -99 makes the key fail (a stand-in
/// for a division by zero).
struct ModWhereNonNegative {
    names: Vec<String>,
}

impl IndexKeys for ModWhereNonNegative {
    fn keys(&self, row: &[Value]) -> Result<Option<Vec<Value>>, DbError> {
        let v = int(&row[1]);
        if v == -99 {
            return Err(DbError::new(SqlState::DivisionByZero, "division by zero"));
        }
        Ok((v >= 0).then(|| vec![Value::Int8(v % 100)]))
    }

    fn names(&self) -> &[String] {
        &self.names
    }
}

fn with_index(db: &Db) -> Arc<Index> {
    let idx = Arc::new(Index::computed(
        RelId(16390),
        "t_mod_idx",
        vec!["((v % 100))".into()],
        true,
    ));
    idx.set_keys(Arc::new(ModWhereNonNegative {
        names: vec!["((v % 100))".into()],
    }));
    db.table.add_index(idx.clone()).unwrap();
    idx
}

/// Ids of the rows the index finds under key `k`, as a new statement sees.
fn lookup(db: &Db, idx: &Index, t: &mut nestor_txn::Transaction, k: i64) -> Vec<i64> {
    let snap = t.start_statement().unwrap();
    let key = [Value::Int8(k)];
    let mut ids: Vec<i64> = db
        .table
        .index_scan(
            idx,
            Bound::Included(&key[..]),
            Bound::Included(&key[..]),
            &snap,
        )
        .iter()
        .map(|tu| int(&tu.data[0]))
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn partial_rows_have_no_entries_and_no_unique_check() {
    let db = Db::new();
    db.seed(&[(1, 5), (2, -5), (3, -105)]);
    let idx = with_index(&db);
    assert_eq!(idx.len(), 1, "only row 1 is covered");
    let s = db.session(1);
    let mut t = s.begin(RC);
    // Outside the predicate: no conflict with anything.
    insert(&db, &mut t, 4, -5).unwrap();
    // Inside: 105 % 100 = 5 collides with row 1.
    match insert(&db, &mut t, 5, 105) {
        Err(StorageError::UniqueViolation { columns, key, .. }) => {
            assert_eq!(columns, vec!["((v % 100))".to_string()]);
            assert_eq!(key, vec![Value::Int8(5)]);
        }
        other => panic!("expected a unique violation, got {other:?}"),
    }
    t.rollback();
    let mut t = s.begin(RC);
    // The key expression's error is the write's.
    match insert(&db, &mut t, 6, -99) {
        Err(StorageError::Eval(e)) => assert_eq!(e.code, SqlState::DivisionByZero),
        other => panic!("expected the key expression's error, got {other:?}"),
    }
    t.rollback();
}

#[test]
fn updates_move_rows_in_and_out_and_rollback_to_restores_entries() {
    let db = Db::new();
    db.seed(&[(1, 5), (2, -7)]);
    let idx = with_index(&db);
    let s = db.session(1);
    let mut t = s.begin(RC);
    set(&db, &mut t, 1, -5).unwrap(); // out of the index
    set(&db, &mut t, 2, 7).unwrap(); // into it
    assert_eq!(lookup(&db, &idx, &mut t, 5), Vec::<i64>::new());
    assert_eq!(lookup(&db, &idx, &mut t, 7), vec![2]);
    t.savepoint("s").unwrap();
    set(&db, &mut t, 2, 8).unwrap();
    insert(&db, &mut t, 3, 5).unwrap(); // 5 is free now
    assert_eq!(lookup(&db, &idx, &mut t, 8), vec![2]);
    assert_eq!(lookup(&db, &idx, &mut t, 5), vec![3]);
    t.rollback_to("s").unwrap();
    assert_eq!(lookup(&db, &idx, &mut t, 8), Vec::<i64>::new());
    assert_eq!(lookup(&db, &idx, &mut t, 5), Vec::<i64>::new());
    assert_eq!(lookup(&db, &idx, &mut t, 7), vec![2]);
    t.commit();
    // Another snapshot sees the committed state; once pruned, only the
    // live versions' entries are left (row 2's key 7).
    let mut r = s.begin(RC);
    assert_eq!(lookup(&db, &idx, &mut r, 7), vec![2]);
    assert_eq!(lookup(&db, &idx, &mut r, 5), Vec::<i64>::new());
    r.commit();
    db.store.prune_all();
    assert_eq!(idx.len(), 1);
}

#[test]
fn an_index_built_over_older_versions_checks_their_entries() {
    // Row 1 changes v before the index exists: both versions get an entry
    // (an old snapshot may still read 5), and a new snapshot must not find
    // the row under the key its visible version no longer has.
    let db = Db::new();
    db.seed(&[(1, 5), (2, 9)]);
    let s = db.session(1);
    let mut t = s.begin(RC);
    set(&db, &mut t, 1, 6).unwrap();
    t.commit();
    let idx = with_index(&db);
    assert_eq!(idx.len(), 3, "entries 5 and 6 of row 1, 9 of row 2");
    let mut r = s.begin(RC);
    assert_eq!(lookup(&db, &idx, &mut r, 5), Vec::<i64>::new());
    assert_eq!(lookup(&db, &idx, &mut r, 6), vec![1]);
    assert_eq!(lookup(&db, &idx, &mut r, 9), vec![2]);
    r.commit();
    // A key change after the build is checked the same way.
    let mut t = s.begin(RC);
    set(&db, &mut t, 2, 10).unwrap();
    t.commit();
    let mut r = s.begin(RC);
    assert_eq!(lookup(&db, &idx, &mut r, 9), Vec::<i64>::new());
    assert_eq!(lookup(&db, &idx, &mut r, 10), vec![2]);
    r.commit();
}
