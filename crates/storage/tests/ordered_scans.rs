//! Ordered index scans read in batches (`Table::index_scan_batch`): every
//! visible row once, in key order or its reverse, resuming where the last
//! batch stopped, whatever is written between batches.

mod common;

use std::ops::Bound;

use common::*;
use nestor_storage::Tuple;
use nestor_txn::{Isolation, Snapshot};
use nestor_types::Value;

/// The ids of a whole ordered scan of `t_pkey` within the bounds, in
/// batches of `batch` rows.
fn ids(
    db: &Db,
    snap: &Snapshot,
    bounds: (Bound<&[Value]>, Bound<&[Value]>),
    backward: bool,
    batch: usize,
) -> Vec<i64> {
    let mut out = Vec::new();
    let mut resume: Option<Vec<u8>> = None;
    loop {
        let (rows, next): (Vec<Tuple>, _) = db.table.index_scan_batch(
            &db.pkey,
            bounds,
            snap,
            None,
            backward,
            resume.as_deref(),
            batch,
        );
        assert!(rows.len() <= batch);
        out.extend(rows.iter().map(|t| int(&t.data[0])));
        match next {
            Some(n) => resume = Some(n),
            None => return out,
        }
    }
}

#[test]
fn batches_cover_the_range_once_in_either_direction() {
    let db = Db::new();
    let rows: Vec<(i64, i64)> = (1..=100).map(|i| (i, i * 10)).collect();
    db.seed(&rows);
    let s = db.session(1);
    let mut t = s.begin(Isolation::ReadCommitted);
    let snap = t.start_statement().unwrap();
    let all = (Bound::Unbounded, Bound::Unbounded);
    for batch in [1, 3, 16, 1000] {
        assert_eq!(
            ids(&db, &snap, all, false, batch),
            (1..=100).collect::<Vec<_>>()
        );
        assert_eq!(
            ids(&db, &snap, all, true, batch),
            (1..=100).rev().collect::<Vec<_>>()
        );
    }
    let (lo, hi) = ([Value::Int8(10)], [Value::Int8(20)]);
    let range = (Bound::Excluded(&lo[..]), Bound::Included(&hi[..]));
    assert_eq!(
        ids(&db, &snap, range, false, 4),
        (11..=20).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&db, &snap, range, true, 4),
        (11..=20).rev().collect::<Vec<_>>()
    );
    let empty = (Bound::Included(&hi[..]), Bound::Excluded(&lo[..]));
    assert!(ids(&db, &snap, empty, true, 4).is_empty());
}

#[test]
fn rows_written_between_batches_follow_the_snapshot() {
    let db = Db::new();
    let rows: Vec<(i64, i64)> = (1..=20).map(|i| (i * 2, i)).collect();
    db.seed(&rows);
    let s = db.session(1);
    let mut t = s.begin(Isolation::RepeatableRead);
    let snap = t.start_statement().unwrap();
    let all = (Bound::Unbounded, Bound::Unbounded);
    let (first, next) = db
        .table
        .index_scan_batch(&db.pkey, all, &snap, None, false, None, 5);
    assert_eq!(first.len(), 5);
    // Another session adds rows on both sides of the resume point and
    // deletes some: the rest of the scan still shows the snapshot's rows.
    db.seed(&[(1, 0), (3, 0), (21, 0), (41, 0)]);
    let mut out: Vec<i64> = first.iter().map(|t| int(&t.data[0])).collect();
    let mut resume = next;
    while let Some(r) = resume {
        let (rows, next) =
            db.table
                .index_scan_batch(&db.pkey, all, &snap, None, false, Some(&r), 5);
        out.extend(rows.iter().map(|t| int(&t.data[0])));
        resume = next;
    }
    assert_eq!(out, (1..=20).map(|i| i * 2).collect::<Vec<_>>());
}
