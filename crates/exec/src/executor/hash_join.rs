//! Hash joins (`Plan::HashJoin`; when the planner chooses one is
//! `plan/src/select/hash_join.rs`).
//!
//! Build, then probe. The right side is run once: each row is kept (for
//! RIGHT and FULL joins, with a "matched" flag), and the rows whose key
//! values are all non-NULL are entered in a hash table from key to the
//! rows' positions, in input order. Then each left row computes its keys
//! and visits the rows under them; the join's filter decides which of
//! those match. Unmatched left rows of a LEFT or FULL join come out
//! NULL-extended on the right at once, unmatched right rows of a RIGHT or
//! FULL join NULL-extended on the left after the last left row. For
//! `l LEFT JOIN r ON l.k = r.k AND r.v > 0`, r = {(1, 5), (1, -1), (NULL, 3)}:
//!
//! ```text
//!   build:  {1 -> [0, 1]}          (NULL, 3) kept, not entered
//!   left 1: rows 0, 1; filter passes row 0 only -> (1, 1, 5)
//!   left 2: no rows                            -> (2, NULL, NULL)
//! ```
//!
//! The output is the nested loop's, row for row and in the same order (per
//! left row, the matching right rows in input order). A NULL key matches
//! nothing, as `NULL = x` is never true. With an empty right side an inner
//! or RIGHT join reads no left row, as PostgreSQL's does.
//!
//! Memory: the right side's rows and keys are charged to the statement's
//! working memory as "hash join" and released when the join is done; past
//! `nestor.query_memory_max` the statement fails with 53200 naming it.
//! There is no spilling to disk (no batches), as for Nestor's sorts and
//! aggregates.
//!
//! `Plan::HashedScan` is the same idea for a table a correlated subquery
//! reads through `col = (enclosing row's value)`: the first run scans the
//! table as a plain scan would (a subquery run once costs no copy); at the
//! second its rows are read once into the statement's cache, ordered by `col` (Value's
//! order, which agrees with `=` within the column's hash class), and each
//! run of the subquery finds its rows by binary search instead of scanning
//! the table. Within one key the rows keep the table's order, so each run
//! returns what the scan would. The rows stay (charged as "hashed
//! subquery scan") until the statement ends, as materialised subqueries
//! do; the statement's snapshot and command id make them what every scan
//! would read.

use std::collections::HashMap;
use std::sync::Arc;

use nestor_catalog::TableDef;

use nestor_common::DbError;
use nestor_plan::ir::{Expr, JoinKind, Plan};
use nestor_types::Value;

use super::eval::Eval;
use super::{emit_all, poll, run, scan, Emit, Row};
use crate::context::Ev;
use crate::workmem::entry_bytes;

/// One side of a hash join: its plan, its key expressions, its row width.
pub(super) struct Side<'p> {
    pub plan: &'p Plan,
    pub keys: &'p [Expr],
    pub width: usize,
}

/// The key values of `row`, None if one is NULL (it matches nothing).
fn key_of(keys: &[Expr], row: &[Value], ev: &mut Ev) -> Result<Option<Row>, DbError> {
    let mut k = Vec::with_capacity(keys.len());
    for e in keys {
        let v = e.eval(row, ev)?;
        if v.is_null() {
            return Ok(None);
        }
        k.push(v);
    }
    Ok(Some(k))
}

/// The right side read into memory.
struct Built {
    rows: Vec<Row>,
    table: HashMap<Row, Vec<usize>>,
}

fn build(
    right: &Side,
    keep_unkeyed: bool,
    ev: &mut Ev,
    param: &[Value],
    held: &mut usize,
) -> Result<Built, DbError> {
    let mut b = Built {
        rows: Vec::new(),
        table: HashMap::new(),
    };
    run(right.plan, ev, param, &mut |ev, row| {
        let key = key_of(right.keys, &row, ev)?;
        if key.is_none() && !keep_unkeyed {
            return Ok(true);
        }
        let bytes = entry_bytes(&row) + key.as_ref().map_or(0, |k| entry_bytes(k));
        ev.mem.charge(bytes, "hash join")?;
        *held += bytes;
        if let Some(k) = key {
            b.table.entry(k).or_default().push(b.rows.len());
        }
        b.rows.push(row);
        Ok(true)
    })?;
    Ok(b)
}

/// `Plan::HashJoin` (see the module header).
pub(super) fn hash_join(
    left: Side,
    right: Side,
    kind: JoinKind,
    filter: Option<&Expr>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut held = 0;
    let r = join(left, right, kind, filter, ev, param, emit, &mut held);
    ev.mem.release(held);
    r
}

#[allow(clippy::too_many_arguments)]
fn join(
    left: Side,
    right: Side,
    kind: JoinKind,
    filter: Option<&Expr>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
    held: &mut usize,
) -> Result<bool, DbError> {
    let keep_right = matches!(kind, JoinKind::Right | JoinKind::Full);
    let keep_left = matches!(kind, JoinKind::Left | JoinKind::Full);
    let built = build(&right, keep_right, ev, param, held)?;
    if built.rows.is_empty() && !keep_left {
        return Ok(true);
    }
    let mut matched = vec![false; if keep_right { built.rows.len() } else { 0 }];
    let mut n = 0;
    let go = run(left.plan, ev, param, &mut |ev, lrow| {
        let mut any = false;
        let key = if built.table.is_empty() {
            None
        } else {
            key_of(left.keys, &lrow, ev)?
        };
        if let Some(hits) = key.as_ref().and_then(|k| built.table.get(k)) {
            for &i in hits {
                poll(ev, &mut n)?;
                let rrow = &built.rows[i];
                let mut row = Vec::with_capacity(lrow.len() + rrow.len());
                row.extend(lrow.iter().cloned());
                row.extend(rrow.iter().cloned());
                if let Some(f) = filter {
                    if !f.test(&row, ev)? {
                        continue;
                    }
                }
                any = true;
                if keep_right {
                    matched[i] = true;
                }
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
        }
        if !any && keep_left {
            let mut row = lrow;
            row.extend(std::iter::repeat_n(Value::Null, right.width));
            return emit(ev, row);
        }
        Ok(true)
    })?;
    if !go || !keep_right {
        return Ok(go);
    }
    let unmatched = built
        .rows
        .into_iter()
        .zip(matched)
        .filter(|(_, m)| !m)
        .map(|(rrow, _)| {
            let mut row = vec![Value::Null; left.width];
            row.extend(rrow);
            row
        });
    emit_all(unmatched, ev, emit)
}

/// `Plan::HashedScan` (see the module header).
pub(super) fn hashed_scan(
    table: &TableDef,
    (id, col, key): (usize, usize, &Expr),
    (build_filter, filter): (Option<&Expr>, Option<&Expr>),
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let k = key.eval(param, ev)?;
    if k.is_null() {
        return Ok(true);
    }
    let rows = match ev.cache.get(&(id + 1)) {
        Some(rows) => rows.clone(),
        None if !ev.cache.contains_key(&id) => {
            // The first run scans as the plain plan would: a subquery run
            // for one outer row costs no copy of the table.
            ev.cache.insert(id, Arc::new(Vec::new()));
            return scan::seq_scan(table, build_filter, (None, None), ev, &mut |ev, row| {
                if row[col] != k {
                    return Ok(true);
                }
                if let Some(f) = filter {
                    if !f.test(&row, ev)? {
                        return Ok(true);
                    }
                }
                emit(ev, row)
            });
        }
        None => {
            let mut rows: Vec<Row> = Vec::new();
            scan::seq_scan(table, build_filter, (None, None), ev, &mut |ev, row| {
                if row[col].is_null() {
                    return Ok(true);
                }
                // Kept (and counted) until the statement ends.
                ev.mem.charge(entry_bytes(&row), "hashed subquery scan")?;
                rows.push(row);
                Ok(true)
            })?;
            rows.sort_by(|a, b| a[col].cmp(&b[col]));
            let rows = Arc::new(rows);
            ev.cache.insert(id + 1, rows.clone());
            rows
        }
    };
    let lo = rows.partition_point(|r| r[col] < k);
    let hi = lo + rows[lo..].partition_point(|r| r[col] <= k);
    let mut n = 0;
    for row in &rows[lo..hi] {
        poll(ev, &mut n)?;
        if let Some(f) = filter {
            if !f.test(row, ev)? {
                continue;
            }
        }
        if !emit(ev, row.clone())? {
            return Ok(false);
        }
    }
    Ok(true)
}
