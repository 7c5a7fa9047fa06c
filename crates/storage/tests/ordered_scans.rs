//! Index range scans read in batches (`Table::index_scan_batch_into`):
//! every visible row once, in key order or its reverse, resuming where the
//! last batch stopped, whatever is written between batches, decoded into
//! the caller's buffers (made as rows are found, reused batch after batch).

mod common;

use std::ops::Bound;

use common::*;
use nestor_txn::{Isolation, Snapshot};
use nestor_types::Value;

/// The test table's columns (id, value).
const WIDTH: usize = 2;

/// One batch of at most `max` rows of `t_pkey` within the bounds: their
/// ids and where the next batch resumes.
fn batch(
    db: &Db,
    snap: &Snapshot,
    bounds: (Bound<&[Value]>, Bound<&[Value]>),
    (backward, resume, max): (bool, Option<&[u8]>, usize),
    bufs: &mut Vec<Vec<Value>>,
) -> (Vec<i64>, Option<Vec<u8>>) {
    let mut heads = Vec::new();
    let next = db.table.index_scan_batch_into(
        &db.pkey,
        bounds,
        snap,
        None,
        (backward, resume, max),
        (bufs, WIDTH),
        &mut heads,
    );
    assert!(heads.len() <= max && bufs.len() <= max);
    assert!(heads.iter().all(|&(_, stored)| stored >= WIDTH));
    let ids = bufs[..heads.len()].iter().map(|r| int(&r[0])).collect();
    (ids, next)
}

/// The ids of a whole ordered scan of `t_pkey` within the bounds, in
/// batches of `max` rows.
fn ids(
    db: &Db,
    snap: &Snapshot,
    bounds: (Bound<&[Value]>, Bound<&[Value]>),
    backward: bool,
    max: usize,
) -> Vec<i64> {
    let mut out = Vec::new();
    let mut bufs = Vec::new();
    let mut resume: Option<Vec<u8>> = None;
    loop {
        let (rows, next) = batch(
            db,
            snap,
            bounds,
            (backward, resume.as_deref(), max),
            &mut bufs,
        );
        out.extend(rows);
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
    let mut bufs = Vec::new();
    let (first, next) = batch(&db, &snap, all, (false, None, 5), &mut bufs);
    assert_eq!(first.len(), 5);
    // Another session adds rows on both sides of the resume point and
    // deletes some: the rest of the scan still shows the snapshot's rows.
    db.seed(&[(1, 0), (3, 0), (21, 0), (41, 0)]);
    let mut out = first;
    let mut resume = next;
    while let Some(r) = resume {
        let (rows, next) = batch(&db, &snap, all, (false, Some(&r), 5), &mut bufs);
        out.extend(rows);
        resume = next;
    }
    assert_eq!(out, (1..=20).map(|i| i * 2).collect::<Vec<_>>());
}
