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
//! While the right side fits in work_mem, the output is the nested
//! loop's, row for row and in the same order (per left row, the matching
//! right rows in input order). A NULL key matches nothing, as `NULL = x` is
//! never true. With an empty right side an inner or RIGHT join reads no
//! left row, as PostgreSQL's does.
//!
//! Past work_mem the join becomes a grace hash join: the right rows read
//! so far and all later ones go to 16 hash batches by their key
//! (crate::spill::hash; NULL keys of a RIGHT or FULL join to a file of
//! their own), then every left row to the batch of its key (a NULL key is
//! NULL-extended at once for LEFT and FULL joins; for inner and RIGHT
//! joins a row whose batch has no right rows is dropped); each pair of
//! batches is then joined by this same code, one level deeper (a batch
//! still past work_mem splits again, up to DEPTH_MAX levels), and unmatched
//! rows come out per batch, so every join kind keeps its meaning. Only the
//! order changes: batch by batch.
//!
//! ```text
//!   right ─▶ table ─ past work_mem ─▶ R0..R15 (+ NULL keys)
//!   left  ─────────────────────────▶ L0..L15
//!   join(Li, Ri) for each i, in memory or batched again; then NULL keys
//! ```
//!
//! Memory: the right side's rows and keys are charged to the statement's
//! working memory as "hash join" and released when the join (or its move
//! to batches) is done; past `nestor.query_memory_max` (below work_mem,
//! or past DEPTH_MAX levels) the statement fails with 53200 naming it.

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
use crate::spill::hash::{batch_of, Batches, DEPTH_MAX};
use crate::spill::TempFile;
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

/// What a join joins by, independent of where its rows come from.
struct Shape<'p> {
    left_keys: &'p [Expr],
    right_keys: &'p [Expr],
    left_width: usize,
    right_width: usize,
    kind: JoinKind,
    filter: Option<&'p Expr>,
}

impl Shape<'_> {
    fn keep_right(&self) -> bool {
        matches!(self.kind, JoinKind::Right | JoinKind::Full)
    }

    fn keep_left(&self) -> bool {
        matches!(self.kind, JoinKind::Left | JoinKind::Full)
    }
}

/// The right side past work_mem: its rows in hash batches, and (RIGHT and
/// FULL joins) those with a NULL key, which match nothing.
struct Spilled {
    batches: Batches,
    unkeyed: Option<TempFile>,
}

impl Spilled {
    fn put(&mut self, key: Option<Row>, row: &[Value], ev: &Ev) -> Result<(), DbError> {
        match key {
            Some(k) => self.batches.add(&k, row),
            None => {
                let f = match &mut self.unkeyed {
                    Some(f) => f,
                    slot => slot.insert(TempFile::create(&ev.temp)?),
                };
                f.write(row)
            }
        }
    }
}

/// Read the right side: into memory, or past work_mem (below DEPTH_MAX
/// levels of batches) into batches.
fn build(
    shape: &Shape,
    right: &mut RowSource,
    ev: &mut Ev,
    (depth, held): (u32, &mut usize),
) -> Result<Result<Built, Spilled>, DbError> {
    let work_mem = ev.ctx.settings.work_mem_bytes;
    let keep_unkeyed = shape.keep_right();
    let mut b = Built {
        rows: Vec::new(),
        table: HashMap::new(),
    };
    let mut spilled: Option<Spilled> = None;
    right(ev, &mut |ev, row| {
        let key = key_of(shape.right_keys, &row, ev)?;
        if key.is_none() && !keep_unkeyed {
            return Ok(true);
        }
        if let Some(s) = &mut spilled {
            s.put(key, &row, ev)?;
            return Ok(true);
        }
        let bytes = entry_bytes(&row) + key.as_ref().map_or(0, |k| entry_bytes(k));
        ev.mem.charge(bytes, "hash join")?;
        *held += bytes;
        if let Some(k) = key {
            b.table.entry(k).or_default().push(b.rows.len());
        }
        b.rows.push(row);
        if *held > work_mem && depth < DEPTH_MAX {
            // Move what is in memory to the batches, in input order.
            let mut s = Spilled {
                batches: Batches::new(depth, &ev.temp),
                unkeyed: None,
            };
            b.table.clear();
            for row in std::mem::take(&mut b.rows) {
                let key = key_of(shape.right_keys, &row, ev)?;
                s.put(key, &row, ev)?;
            }
            ev.mem.release(*held);
            *held = 0;
            spilled = Some(s);
        }
        Ok(true)
    })?;
    Ok(match spilled {
        Some(s) => Err(s),
        None => Ok(b),
    })
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
    let shape = Shape {
        left_keys: left.keys,
        right_keys: right.keys,
        left_width: left.width,
        right_width: right.width,
        kind,
        filter,
    };
    let mut left_rows = |ev: &mut Ev, f: &mut Emit| run(left.plan, ev, param, f);
    let mut right_rows = |ev: &mut Ev, f: &mut Emit| run(right.plan, ev, param, f);
    let r = join(&shape, &mut left_rows, &mut right_rows, ev, emit, 0);
    super::count_temp_files(ev);
    r
}

/// Where a join side's rows come from: its plan, or a batch file.
type RowSource<'s> = dyn FnMut(&mut Ev, &mut Emit) -> Result<bool, DbError> + 's;

/// The join of `left` and `right` at batch level `depth` (0: the plans).
fn join(
    shape: &Shape,
    left: &mut RowSource,
    right: &mut RowSource,
    ev: &mut Ev,
    emit: &mut Emit,
    depth: u32,
) -> Result<bool, DbError> {
    let mut held = 0;
    let r = match build(shape, right, ev, (depth, &mut held)) {
        Ok(Ok(built)) => probe(shape, left, &built, ev, emit),
        Ok(Err(spilled)) => join_batches(shape, left, spilled, ev, emit, depth),
        Err(e) => Err(e),
    };
    ev.mem.release(held);
    r
}

/// Probe the right side in memory with each left row.
fn probe(
    shape: &Shape,
    left: &mut RowSource,
    built: &Built,
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let (keep_left, keep_right) = (shape.keep_left(), shape.keep_right());
    if built.rows.is_empty() && !keep_left {
        return Ok(true);
    }
    let mut matched = vec![false; if keep_right { built.rows.len() } else { 0 }];
    let mut n = 0;
    let go = left(ev, &mut |ev, lrow| {
        let mut any = false;
        let key = if built.table.is_empty() {
            None
        } else {
            key_of(shape.left_keys, &lrow, ev)?
        };
        if let Some(hits) = key.as_ref().and_then(|k| built.table.get(k)) {
            for &i in hits {
                poll(ev, &mut n)?;
                let rrow = &built.rows[i];
                let mut row = Vec::with_capacity(lrow.len() + rrow.len());
                row.extend(lrow.iter().cloned());
                row.extend(rrow.iter().cloned());
                if let Some(f) = shape.filter {
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
            row.extend(std::iter::repeat_n(Value::Null, shape.right_width));
            return emit(ev, row);
        }
        Ok(true)
    })?;
    if !go || !keep_right {
        return Ok(go);
    }
    let unmatched = built
        .rows
        .iter()
        .zip(matched)
        .filter(|(_, m)| !m)
        .map(|(rrow, _)| null_left(shape, rrow.clone()));
    emit_all(unmatched, ev, emit)
}

/// A right row NULL-extended on the left.
fn null_left(shape: &Shape, rrow: Row) -> Row {
    let mut row = vec![Value::Null; shape.left_width];
    row.extend(rrow);
    row
}

/// The grace hash join: the left rows go to the right side's batches
/// (by the same hash), then each pair of batches is joined on its own,
/// one level deeper; a NULL left key matches nothing (NULL-extended at
/// once for LEFT and FULL joins), NULL right keys come last for RIGHT and
/// FULL joins.
fn join_batches(
    shape: &Shape,
    left: &mut RowSource,
    spilled: Spilled,
    ev: &mut Ev,
    emit: &mut Emit,
    depth: u32,
) -> Result<bool, DbError> {
    let keep_left = shape.keep_left();
    let mut right = spilled.batches.into_slots()?;
    let mut left_batches = Batches::new(depth, &ev.temp);
    let go = left(
        ev,
        &mut |ev, lrow| match key_of(shape.left_keys, &lrow, ev)? {
            None if keep_left => {
                let mut row = lrow;
                row.extend(std::iter::repeat_n(Value::Null, shape.right_width));
                emit(ev, row)
            }
            None => Ok(true),
            Some(k) if !keep_left && right[batch_of(&k, depth)].is_none() => Ok(true),
            Some(k) => left_batches.add(&k, &lrow).map(|()| true),
        },
    )?;
    if !go {
        return Ok(false);
    }
    let mut lefts = left_batches.into_slots()?;
    for (l, r) in lefts.iter_mut().zip(right.iter_mut()) {
        if l.is_none() && r.is_none() {
            continue;
        }
        let (mut l, mut r) = (file_rows(l.take()), file_rows(r.take()));
        if !join(shape, &mut l, &mut r, ev, emit, depth + 1)? {
            return Ok(false);
        }
    }
    let Some(mut f) = spilled.unkeyed else {
        return Ok(true);
    };
    f.read()?;
    let mut n = 0;
    while let Some(rrow) = f.next()? {
        poll(ev, &mut n)?;
        if !emit(ev, null_left(shape, rrow))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A batch file as a row source (None: no rows).
pub(super) fn file_rows(
    mut f: Option<TempFile>,
) -> impl FnMut(&mut Ev, &mut Emit) -> Result<bool, DbError> {
    move |ev, out| {
        let Some(f) = f.as_mut() else {
            return Ok(true);
        };
        let mut n = 0;
        while let Some(row) = f.next()? {
            poll(ev, &mut n)?;
            if !out(ev, row)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
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
