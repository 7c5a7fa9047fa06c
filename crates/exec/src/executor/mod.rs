//! The executor: runs a [`Plan`] and pushes rows into a callback.
//!
//! Push-based: `run(plan, ev, param, emit)` calls `emit(ev, row)` per row;
//! `emit` returns `false` to stop early (LIMIT, EXISTS, scalar subqueries),
//! which unwinds the whole pipeline without reading further rows. Sort,
//! aggregation, DISTINCT and set operations materialize their input.
//! `param` is the current outer row of a nested loop; parameterized index
//! scans compute their keys from it.
//!
//! A consumer that only reads its input rows (a projection, an aggregate)
//! runs its input with [`run_ref`] instead: a sequential scan under it
//! decodes every row into one buffer, in place, and lends it out, so a
//! scan allocates nothing per row (`scan.rs`). Other inputs hand over
//! owned rows as usual and the consumer borrows them.
//!
//! ```text
//!   SELECT count(*) FROM t WHERE a = 0
//!   Aggregate count(*)          run_ref: reads &[Value]
//!     SeqScan t (a = 0)         one buffer [a, (b), (c), rowid, xmin, xmax]:
//!                               a decoded in place, b and c stay NULL
//! ```
//!
//! Row locking (`LockRows`) follows PostgreSQL's EvalPlanQual under READ
//! COMMITTED: when a row was changed by a transaction that committed after
//! the statement's snapshot, the newest version replaces the row's columns
//! and the WHERE clause is re-evaluated on it; rows that no longer qualify
//! are skipped, and rows that do are locked in their newest version.

use std::collections::HashSet;
use std::sync::Arc;

use nestor_common::sort::{pg_qsort, Bounded};
use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{Expr, JoinKind, Plan, SortKey, SYS_COLS};
use nestor_plan::valops;
use nestor_storage::Tuple;
use nestor_types::Value;

use crate::context::Ev;
use crate::workmem::entry_bytes;

mod aggregate;
pub mod eval;
mod hash_join;
mod lock;
mod ordered_set;
mod outer;
mod scan;
mod setop;
mod subquery;
mod window;

pub use subquery::eval_subquery;

use eval::Eval;

pub type Row = Vec<Value>;
pub type Emit<'f> = dyn FnMut(&mut Ev, Row) -> Result<bool, DbError> + 'f;
/// A consumer that only reads each row ([`run_ref`]): the producer may
/// hand it the same buffer again for the next row.
pub type EmitRef<'f> = dyn FnMut(&mut Ev, &[Value]) -> Result<bool, DbError> + 'f;

/// Check for cancel / statement_timeout every this many rows.
const INTERRUPT_EVERY: u32 = 1024;

impl crate::spill::sort::Cx for Ev<'_, '_> {
    fn poll(&mut self, counter: &mut u32) -> Result<(), DbError> {
        poll(self, counter)
    }
}

/// Count a row read; every INTERRUPT_EVERY rows of the statement (not of
/// one scan: a correlated subquery runs many scans of a few rows each)
/// look at cancel and statement_timeout.
pub(crate) fn poll(ev: &Ev, counter: &mut u32) -> Result<(), DbError> {
    *counter = counter.wrapping_add(1);
    let ticks = ev.ticks.get().wrapping_add(1);
    ev.ticks.set(ticks);
    if ticks.is_multiple_of(INTERRUPT_EVERY) {
        (ev.ctx.wait.interrupt)().map_err(DbError::from)?;
    }
    Ok(())
}

/// A scan row: the table's columns, then row id, xmin, xmax.
pub(crate) fn scan_row(t: Tuple, table: &nestor_catalog::TableDef) -> Row {
    const _: () = assert!(SYS_COLS == nestor_storage::TUPLE_SPARE_VALUES);
    let mut r = t.data;
    let head = nestor_storage::TupleHead {
        row: t.row,
        xmin: t.xmin,
        xmax: t.xmax,
    };
    complete_row(&mut r, head, table);
    r
}

/// Make a stored row's decoded values a scan row: the columns added after
/// it was written (their `missing` value: NULL or the ADD COLUMN's
/// default), then row id, xmin, xmax.
pub(crate) fn complete_row(
    r: &mut Row,
    t: nestor_storage::TupleHead,
    table: &nestor_catalog::TableDef,
) {
    let n = table.columns.len();
    // Stored versions have the width of the definition they were written
    // under; columns only get added (dropped ones keep their slot).
    assert!(
        r.len() <= n,
        "a stored row of {} has {} values, wider than its {n} columns",
        table.name,
        r.len()
    );
    r.reserve(n - r.len() + SYS_COLS);
    for c in &table.columns[r.len()..] {
        r.push(c.missing.clone());
    }
    r.push(Value::Int8(t.row.0 as i64));
    r.push(Value::Int8(t.xmin.0 as i64));
    r.push(Value::Int8(t.xmax.0 as i64));
    debug_assert_eq!(r.len(), n + SYS_COLS);
}

/// [`complete_row`] for a row decoded in place into a scan's buffer
/// (`TableScan::next_in_place`): of the columns `cols` marks (None: all),
/// those from `stored` on (where the version's values ended) get their `missing`
/// value; the system columns are overwritten.
pub(crate) fn finish_row(
    r: &mut [Value],
    t: nestor_storage::TupleHead,
    stored: usize,
    table: &nestor_catalog::TableDef,
    cols: Option<&[bool]>,
) {
    let n = table.columns.len();
    if stored < n {
        for (i, c) in table.columns.iter().enumerate().skip(stored) {
            if cols.is_none_or(|m| m.get(i).copied().unwrap_or(true)) {
                r[i] = c.missing.clone();
            }
        }
    }
    let sys = [t.row.0, t.xmin.0, t.xmax.0];
    for (slot, x) in r[n..n + SYS_COLS].iter_mut().zip(sys) {
        // Overwritten in place when the slot already holds an int8 (from
        // the previous row): nothing to drop.
        match slot {
            Value::Int8(v) => *v = x as i64,
            _ => *slot = Value::Int8(x as i64),
        }
    }
}

/// Run `plan`, handing each row to `emit` by reference. A sequential scan
/// then decodes every row into one buffer and an index range read into
/// one batch of buffers, and neither allocates per row
/// (`scan::seq_scan_ref`, `scan::index_scan_ref`); any other plan runs as
/// [`run`] does. For
/// consumers that only read their input rows: projections and
/// aggregates.
pub(crate) fn run_ref(
    plan: &Plan,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut EmitRef,
) -> Result<bool, DbError> {
    match plan {
        Plan::SeqScan {
            table,
            filter,
            cols,
            late,
            ..
        } => {
            nestor_common::stack::check()?;
            let cols = (cols.as_ref(), late.as_deref());
            scan::seq_scan_ref(table, filter.as_ref(), cols, ev, emit)
        }
        Plan::IndexScan {
            table,
            index,
            keys,
            filter,
            cols,
            order,
            ..
        } => {
            nestor_common::stack::check()?;
            let keys = (keys, cols.as_deref(), *order);
            scan::index_scan_ref(table, index, keys, filter.as_ref(), ev, param, emit)
        }
        _ => run(plan, ev, param, &mut |ev, row| emit(ev, &row)),
    }
}

/// Run `plan`, calling `emit` for each row. Returns false if `emit` asked
/// to stop.
pub fn run(plan: &Plan, ev: &mut Ev, param: &[Value], emit: &mut Emit) -> Result<bool, DbError> {
    nestor_common::stack::check()?;
    match plan {
        Plan::Single => emit(ev, Vec::new()),
        Plan::Values { rows } => run_values(rows, ev, param, emit),
        Plan::SeqScan {
            table,
            filter,
            cols,
            late,
            ..
        } => {
            let cols = (cols.as_ref(), late.as_deref());
            scan::seq_scan(table, filter.as_ref(), cols, ev, emit)
        }
        Plan::HashedScan {
            table,
            id,
            col,
            key,
            build_filter,
            filter,
            ..
        } => hash_join::hashed_scan(
            table,
            (*id, *col, key),
            (build_filter.as_ref(), filter.as_ref()),
            ev,
            param,
            emit,
        ),
        Plan::IndexScan {
            table,
            index,
            keys,
            filter,
            cols,
            order,
            ..
        } => scan::index_scan(
            table,
            index,
            (keys, cols.as_deref(), *order),
            filter.as_ref(),
            ev,
            param,
            emit,
        ),
        Plan::FunctionScan {
            func,
            args,
            ordinality: false,
            ..
        } => scan::run_function(func, args, ev, param, emit),
        Plan::FunctionScan { func, args, .. } => {
            let mut n = 0i64;
            scan::run_function(func, args, ev, param, &mut |ev, mut row| {
                n += 1;
                row.push(Value::Int8(n));
                emit(ev, row)
            })
        }
        Plan::SysView { view, filter } => scan::sysview(*view, filter.as_ref(), ev, emit),
        Plan::EphemeralScan { slot, name } => {
            let Some(rows) = ev.ctx.transition.get(*slot).cloned() else {
                return Err(DbError::internal(format!(
                    "transition table \"{name}\" read outside its trigger"
                )));
            };
            emit_all(rows.iter().cloned(), ev, emit)
        }
        Plan::RecursiveUnion {
            init,
            step,
            work_id,
            all,
        } => recursive_union(init, step, *work_id, *all, ev, param, emit),
        Plan::CteScan {
            plan,
            correlated: true,
            ..
        } => run(plan, ev, &[], emit),
        Plan::CteScan {
            id,
            plan,
            whole_first,
            ..
        } if whole_first.load(std::sync::atomic::Ordering::Relaxed) => {
            let rows = materialize_cached(*id, plan, ev)?;
            emit_all(rows.iter().cloned(), ev, emit)
        }
        Plan::CteScan { id, plan, .. } => cte_scan(*id, plan, ev, emit),
        Plan::Filter { input, pred } => run_filter(input, pred, ev, param, emit),
        Plan::Project { input, exprs } => run_project(input, exprs, ev, param, emit),
        Plan::ProjectSet { input, exprs } => run_project_set(input, exprs, ev, param, emit),
        Plan::LateralFunction {
            input,
            func,
            args,
            ordinality,
        } => run(input, ev, param, &mut |ev, row| {
            let mut n = 0i64;
            scan::run_function(func, args, ev, &row, &mut |ev, f| {
                n += 1;
                let mut out = row.clone();
                out.extend(f);
                if *ordinality {
                    out.push(Value::Int8(n));
                }
                emit(ev, out)
            })
        }),
        Plan::NestedLoop {
            left,
            right,
            kind: kind @ (JoinKind::Right | JoinKind::Full),
            on,
            left_width,
            right_width,
        } => outer::right_or_full_join(
            (left, *left_width),
            (right, *right_width),
            *kind,
            on.as_ref(),
            ev,
            param,
            emit,
        ),
        Plan::NestedLoop {
            left,
            right,
            kind,
            on,
            right_width,
            ..
        } => nested_loop(
            left,
            right,
            *kind,
            on.as_ref(),
            *right_width,
            ev,
            param,
            emit,
        ),
        Plan::HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            filter,
            left_width,
            right_width,
            ..
        } => hash_join::hash_join(
            hash_join::Side {
                plan: left,
                keys: left_keys,
                width: *left_width,
            },
            hash_join::Side {
                plan: right,
                keys: right_keys,
                width: *right_width,
            },
            *kind,
            filter.as_ref(),
            ev,
            param,
            emit,
        ),
        Plan::LateralSubquery { plan, level, pad } => {
            outer::lateral_subquery(plan, *level, *pad, ev, param, emit)
        }
        Plan::DistinctOn { input, keys } => outer::distinct_on(input, keys, ev, param, emit),
        Plan::Aggregate { input, group, aggs } => {
            aggregate::run_aggregate(input, group, aggs, ev, param, emit)
        }
        Plan::GroupingSets {
            input,
            group,
            sets,
            aggs,
        } => aggregate::run_grouping_sets(input, (group, sets), aggs, ev, param, emit),
        Plan::Window { input, calls } => window::run_window(input, calls, ev, param, emit),
        Plan::Sort { input, keys } => run_sort(input, keys, None, ev, param, emit),
        Plan::Limit {
            input,
            limit,
            offset,
            ties,
        } => run_limit(
            input,
            (limit.as_ref(), offset.as_ref()),
            ties,
            ev,
            param,
            emit,
        ),
        Plan::Distinct { input } => run_distinct(input, ev, param, emit),
        Plan::Append { inputs } => {
            for i in inputs {
                if !run(i, ev, param, emit)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Plan::SetOp {
            left,
            right,
            intersect,
            all,
        } => setop::run_setop(left, right, *intersect, *all, ev, param, emit),
        Plan::LockRows { .. } => lock::run_lock_rows(plan, ev, param, emit),
    }
}

fn run_filter(
    input: &Plan,
    pred: &Expr,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    // A scan lends its rows: only the ones that pass are copied out, and
    // nothing is allocated for the rows dropped here. Other inputs hand
    // over rows they built anyway.
    if matches!(input, Plan::SeqScan { .. } | Plan::IndexScan { .. }) {
        return run_ref(input, ev, param, &mut |ev, row| {
            if pred.test(row, ev)? {
                emit(ev, row.to_vec())
            } else {
                Ok(true)
            }
        });
    }
    run(input, ev, param, &mut |ev, row| {
        if pred.test(&row, ev)? {
            emit(ev, row)
        } else {
            Ok(true)
        }
    })
}

fn run_project(
    input: &Plan,
    exprs: &[Expr],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    run_ref(input, ev, param, &mut |ev, row| {
        project_row(row, exprs, ev, emit)
    })
}

fn project_row(
    row: &[Value],
    exprs: &[Expr],
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut out = Vec::with_capacity(exprs.len());
    for e in exprs {
        out.push(e.eval(row, ev)?);
    }
    emit(ev, out)
}

/// `plan` under a LIMIT that needs at most `bound` rows of it: a Sort
/// reached through projections and Appends sorts bounded, as PostgreSQL's
/// ExecSetTupleBound tells it to (keeping only the best `bound` rows once
/// it holds twice as many, which also decides the order of peers).
fn run_bounded(
    plan: &Plan,
    bound: Option<usize>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let Some(b) = bound else {
        return run(plan, ev, param, emit);
    };
    match plan {
        Plan::Sort { input, keys } => run_sort(input, keys, Some(b), ev, param, emit),
        Plan::Project { input, exprs } => {
            nestor_common::stack::check()?;
            run_bounded(input, bound, ev, param, &mut |ev, row| {
                project_row(&row, exprs, ev, emit)
            })
        }
        Plan::Append { inputs } => {
            for i in inputs {
                if !run_bounded(i, bound, ev, param, emit)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => run(plan, ev, param, emit),
    }
}

fn run_distinct(
    input: &Plan,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut source = |ev: &mut Ev, f: &mut Emit| run(input, ev, param, f);
    let r = distinct_rows(&mut source, ev, emit, 0);
    count_temp_files(ev);
    r
}

/// Where DISTINCT reads its rows: a function pushing them into a callback.
type RowSource<'s> = dyn FnMut(&mut Ev, &mut Emit) -> Result<bool, DbError> + 's;

/// DISTINCT: the first row of each value, in input order until the keys
/// seen pass work_mem; then the rows of values not seen go to hash batches
/// (crate::spill::hash), each deduplicated on its own afterwards, at
/// `depth` + 1.
fn distinct_rows(
    source: &mut RowSource,
    ev: &mut Ev,
    emit: &mut Emit,
    depth: u32,
) -> Result<bool, DbError> {
    use crate::spill::hash::{Batches, DEPTH_MAX};
    let work_mem = ev.ctx.settings.work_mem_bytes;
    let mut seen: HashSet<Row> = HashSet::new();
    let mut batches: Option<Batches> = None;
    let mut held = 0;
    let r = source(ev, &mut |ev, row| {
        let key = distinct_key(&row);
        if seen.contains(&key) {
            return Ok(true);
        }
        if batches.is_some() || (held > work_mem && depth < DEPTH_MAX) {
            let b = batches.get_or_insert_with(|| Batches::new(depth, &ev.temp));
            b.add(&key, &row)?;
            return Ok(true);
        }
        let bytes = entry_bytes(&key);
        ev.mem.charge(bytes, "DISTINCT")?;
        held += bytes;
        seen.insert(key);
        emit(ev, row)
    });
    ev.mem.release(held);
    drop(seen);
    if !r? {
        return Ok(false);
    }
    let Some(batches) = batches else {
        return Ok(true);
    };
    for f in batches.into_files()? {
        let mut source = hash_join::file_rows(Some(f));
        if !distinct_rows(&mut source, ev, emit, depth + 1)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The rows of `input` whose `key` was not seen before, in input order
/// (DISTINCT ON, over sorted input: no spilling, which would change the
/// order); the keys seen are charged as `what`.
pub(super) fn first_per_key(
    input: &Plan,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
    what: &str,
    key: &mut dyn FnMut(&Row, &mut Ev) -> Result<Row, DbError>,
) -> Result<bool, DbError> {
    let mut seen: HashSet<Row> = HashSet::new();
    let mut held = 0;
    let r = run(input, ev, param, &mut |ev, row| {
        let key = key(&row, ev)?;
        if seen.contains(&key) {
            return Ok(true);
        }
        let bytes = entry_bytes(&key);
        ev.mem.charge(bytes, what)?;
        held += bytes;
        seen.insert(key);
        emit(ev, row)
    });
    ev.mem.release(held);
    r
}

/// Every row of `input`, each charged to working memory as `what`; `held`
/// counts the bytes charged (the caller releases them, also on error).
pub(super) fn collect_charged(
    input: &Plan,
    ev: &mut Ev,
    param: &[Value],
    what: &str,
    held: &mut usize,
) -> Result<Vec<Row>, DbError> {
    let mut rows: Vec<Row> = Vec::new();
    run(input, ev, param, &mut |ev, row| {
        let bytes = entry_bytes(&row);
        ev.mem.charge(bytes, what)?;
        *held += bytes;
        rows.push(row);
        Ok(true)
    })?;
    Ok(rows)
}

fn emit_all(
    rows: impl Iterator<Item = Row>,
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut n = 0;
    for r in rows {
        poll(ev, &mut n)?;
        if !emit(ev, r)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn run_values(
    rows: &[Vec<Expr>],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    for r in rows {
        let mut out = Vec::with_capacity(r.len());
        for e in r {
            out.push(e.eval(param, ev)?);
        }
        if !emit(ev, out)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// For each left row, the right side (parameterized by the left row);
/// LEFT joins emit a NULL-extended row when nothing matched.
#[allow(clippy::too_many_arguments)]
fn nested_loop(
    left: &Plan,
    right: &Plan,
    kind: JoinKind,
    on: Option<&Expr>,
    right_width: usize,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    // A function in FROM runs once however many left rows there are
    // (PostgreSQL materialises a FunctionScan), at the first left row:
    // a volatile one must not give each left row different rows, nor run
    // when there is no left row. Its arguments do not refer to the left
    // side (that is a LateralFn).
    // (Also under the projection of a row marker, `from::null_marker`.)
    let materialise = match right {
        Plan::FunctionScan { .. } => true,
        Plan::Project { input, exprs } => {
            matches!(**input, Plan::FunctionScan { .. })
                && exprs
                    .iter()
                    .all(|e| matches!(e, Expr::Col(_) | Expr::Const(_)))
        }
        _ => false,
    };
    let mut once: Option<Vec<Row>> = None;
    let mut held = 0;
    let r = run(left, ev, param, &mut |ev, lrow| {
        let mut matched = false;
        let mut go = true;
        let mut inner = |ev: &mut Ev, rrow: Row| {
            debug_assert_eq!(rrow.len(), right_width, "inner row width");
            let mut row = Vec::with_capacity(lrow.len() + rrow.len());
            row.extend(lrow.iter().cloned());
            row.extend(rrow);
            if let Some(p) = on {
                if !p.test(&row, ev)? {
                    return Ok(true);
                }
            }
            matched = true;
            go = emit(ev, row)?;
            Ok(go)
        };
        if materialise && once.is_none() {
            once = Some(outer::collect_charged(
                right,
                ev,
                param,
                "function result",
                &mut held,
            )?);
        }
        match &once {
            Some(rows) => {
                for r in rows {
                    if !inner(ev, r.clone())? {
                        break;
                    }
                }
            }
            None => {
                run(right, ev, &lrow, &mut inner)?;
            }
        }
        if !go {
            return Ok(false);
        }
        if !matched && kind == JoinKind::Left {
            let mut row = lrow;
            row.extend(std::iter::repeat_n(Value::Null, right_width));
            return emit(ev, row);
        }
        Ok(true)
    });
    ev.mem.release(held);
    r
}

/// ORDER BY: the rows sorted in memory by PostgreSQL's quicksort
/// (nestor_common::sort), in sorted runs on disk past work_mem; with a
/// `bound` (a LIMIT above, run_bounded) only the best `bound` rows are
/// kept once twice as many have come, as tuplesort's bounded heap keeps
/// them.
fn run_sort(
    input: &Plan,
    keys: &[SortKey],
    bound: Option<usize>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let work_mem = ev.ctx.settings.work_mem_bytes;
    let ec = ev.ctx.eval;
    let cmp = |a: &[Value], b: &[Value]| compare_keys(a, b, keys, &ec);
    let mut rows: Vec<(Vec<Value>, Row)> = Vec::new();
    let mut top = bound.filter(|&b| b > 0).map(Bounded::new);
    let mut held = 0;
    // Sorted runs written to temporary files once `held` passes work_mem
    // (crate::spill::sort).
    let mut runs = crate::spill::sort::Runs::new(keys.len(), &ev.temp);
    let r = run(input, ev, param, &mut |ev, row| {
        let mut k = Vec::with_capacity(keys.len());
        for key in keys {
            k.push(sort_form(key.expr.eval(&row, ev)?));
        }
        let bytes = entry_bytes(&k) + entry_bytes(&row);
        ev.mem.charge(bytes, "sort")?;
        held += bytes;
        if let Some(t) = top.as_mut() {
            let over = held > work_mem;
            let mut freed = 0;
            t.push(
                (k, row),
                over,
                &mut |a, b| cmp(&a.0, &b.0),
                &mut |(k, r)| {
                    freed += entry_bytes(&k) + entry_bytes(&r);
                },
            );
            ev.mem.release(freed);
            held -= freed;
            if !over || t.is_heap() {
                return Ok(true);
            }
            // Past work_mem with no more than `bound` rows held: the
            // bound saves nothing, so the rows go to sorted runs as an
            // unbounded sort's do.
            rows = top
                .take()
                .expect("bounded")
                .finish(&mut |a, b| cmp(&a.0, &b.0));
        } else {
            rows.push((k, row));
        }
        if held > work_mem {
            runs.add(&mut rows, &cmp)?;
            ev.mem.release(held);
            held = 0;
        }
        Ok(true)
    });
    if let Err(e) = r {
        ev.mem.release(held);
        drop(runs);
        count_temp_files(ev);
        return Err(e);
    }
    if let Some(t) = top {
        rows = t.finish(&mut |a, b| cmp(&a.0, &b.0));
        let r = emit_all(rows.into_iter().map(|(_, r)| r), ev, emit);
        ev.mem.release(held);
        return r;
    }
    let r = if runs.is_empty() {
        pg_qsort(&mut rows, |a, b| cmp(&a.0, &b.0));
        emit_all(rows.into_iter().map(|(_, r)| r), ev, emit)
    } else {
        runs.finish(rows, &cmp, work_mem, ev, emit)
    };
    ev.mem.release(held);
    count_temp_files(ev);
    r
}

/// A sort key's value as the sort compares it: a jsonb value's order is
/// its parsed value's (`nestor_types::jsonb_order`), so it is compared as
/// its sort-key bytes, made once per row rather than per comparison (the
/// byte order of the bytea is the jsonb order).
fn sort_form(v: Value) -> Value {
    match v {
        Value::Jsonb(s) => Value::Bytea(nestor_types::jsonb_order::sort_key(&s).into()),
        v => v,
    }
}

/// Add the statement's removed temporary files to pg_stat_database.
pub(super) fn count_temp_files(ev: &mut Ev) {
    let (files, bytes) = ev.temp.take_counts();
    if files > 0 {
        let s = &ev.ctx.db.stats;
        s.temp_files
            .fetch_add(files, std::sync::atomic::Ordering::Relaxed);
        s.temp_bytes
            .fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
    }
}

/// LIMIT / OFFSET; with `ties` (FETCH FIRST ... WITH TIES, over sorted
/// rows) the rows after the limit whose sort keys equal the last one's
/// come too.
fn run_limit(
    input: &Plan,
    (limit, offset): (Option<&Expr>, Option<&Expr>),
    ties: &[SortKey],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let lim = eval_count(limit, ev, "LIMIT")?;
    let mut skip = eval_count(offset, ev, "OFFSET")?.unwrap_or(0);
    if lim == Some(0) {
        return Ok(true);
    }
    // The rows needed from the input (compute_tuples_needed); none known
    // WITH TIES.
    let bound = match (lim, ties.is_empty()) {
        (Some(l), true) => usize::try_from(l.saturating_add(skip)).ok(),
        _ => None,
    };
    let mut left = lim;
    let mut stopped_by_limit = false;
    // The last row's sort keys once the limit is reached WITH TIES.
    let mut last: Option<Vec<Value>> = None;
    let ec = ev.ctx.eval;
    let r = run_bounded(input, bound, ev, param, &mut |ev, row| {
        if skip > 0 {
            skip -= 1;
            return Ok(true);
        }
        if let Some(last) = &last {
            if compare_keys(&sort_values(ties, &row, ev)?, last, ties, &ec).is_eq() {
                return emit(ev, row);
            }
            stopped_by_limit = true;
            return Ok(false);
        }
        let keys = if left == Some(1) && !ties.is_empty() {
            Some(sort_values(ties, &row, ev)?)
        } else {
            None
        };
        let cont = emit(ev, row)?;
        if let Some(l) = left.as_mut() {
            *l -= 1;
            if *l == 0 {
                if keys.is_some() {
                    last = keys;
                    return Ok(cont);
                }
                stopped_by_limit = true;
                return Ok(false);
            }
        }
        Ok(cont)
    })?;
    Ok(r || stopped_by_limit)
}

/// The values of sort keys for one row.
fn sort_values(keys: &[SortKey], row: &[Value], ev: &mut Ev) -> Result<Vec<Value>, DbError> {
    keys.iter().map(|k| k.expr.eval(row, ev)).collect()
}

/// Values compare by SQL semantics for DISTINCT/GROUP BY: normalize
/// numerics so `1.0` and `1.00` are one group.
pub(super) fn distinct_key(row: &[Value]) -> Row {
    // Value's Eq/Hash already compare numerics by value ignoring scale.
    row.to_vec()
}

fn compare_keys(
    a: &[Value],
    b: &[Value],
    keys: &[SortKey],
    ec: &nestor_types::EvalCtx,
) -> std::cmp::Ordering {
    debug_assert!(a.len() == keys.len() && b.len() == keys.len());
    for (i, k) in keys.iter().enumerate() {
        let (x, y) = (&a[i], &b[i]);
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => {
                if k.nulls_first {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                }
            }
            (false, true) => {
                if k.nulls_first {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Less
                }
            }
            (false, false) => {
                let o = valops::compare(x, y, ec);
                if k.desc {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        if o.is_ne() {
            return o;
        }
    }
    std::cmp::Ordering::Equal
}

fn eval_count(e: Option<&Expr>, ev: &mut Ev, what: &str) -> Result<Option<i64>, DbError> {
    let Some(e) = e else { return Ok(None) };
    match e.eval(&[], ev)? {
        Value::Null => Ok(None),
        v => {
            let n = valops::as_i64(&v).unwrap_or(0);
            if n < 0 {
                let code = if what == "OFFSET" {
                    SqlState::InvalidRowCountInResultOffsetClause
                } else {
                    SqlState::InvalidRowCountInLimitClause
                };
                return Err(DbError::new(code, format!("{what} must not be negative")));
            }
            Ok(Some(n))
        }
    }
}

/// A CTE's rows: from the statement's cache once a scan has read them
/// all; the first scan streams them to its consumer as the CTE produces
/// them and keeps them, so a consumer that stops early (LIMIT over an
/// endless WITH RECURSIVE, as PostgreSQL's lazy CTE scan allows) stops the
/// CTE too. Rows of a scan that stopped early are not kept: a later scan
/// (rare: the statement is usually done) computes them again.
fn cte_scan(id: usize, plan: &Plan, ev: &mut Ev, emit: &mut Emit) -> Result<bool, DbError> {
    if let Some(rows) = ev.cache.get(&id).cloned() {
        return emit_all(rows.iter().cloned(), ev, emit);
    }
    let mut rows = Vec::new();
    let mut held = 0usize;
    let done = run(plan, ev, &[], &mut |ev, row| {
        let bytes = entry_bytes(&row);
        ev.mem.charge(bytes, "materialized CTE or subquery")?;
        held += bytes;
        rows.push(row.clone());
        emit(ev, row)
    });
    match done {
        Ok(true) => {
            // Kept (and counted) until the statement ends.
            ev.cache.insert(id, Arc::new(rows));
            Ok(true)
        }
        other => {
            ev.mem.release(held);
            other
        }
    }
}

pub(super) fn materialize_cached(
    id: usize,
    plan: &Plan,
    ev: &mut Ev,
) -> Result<Arc<Vec<Row>>, DbError> {
    if let Some(r) = ev.cache.get(&id) {
        return Ok(r.clone());
    }
    // Kept (and counted) until the statement ends.
    let mut rows = Vec::new();
    run(plan, ev, &[], &mut |ev, row| {
        ev.mem
            .charge(entry_bytes(&row), "materialized CTE or subquery")?;
        rows.push(row);
        Ok(true)
    })?;
    let rows = Arc::new(rows);
    ev.cache.insert(id, rows.clone());
    Ok(rows)
}

/// `Plan::ProjectSet`: per input row, each set-returning call's values
/// side by side, padded with NULL to the longest; an item that calls one
/// inside an expression (`(f(x)).n`) is evaluated per output row with the
/// call replaced by its value for that row.
fn run_project_set(
    input: &Plan,
    exprs: &[Expr],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    use nestor_plan::functions::{Func, SrfKind};
    enum Item<'a> {
        Plain(Value),
        /// A whole item: the set at this position.
        Set(usize),
        /// Calls inside an expression: their sets from this position on,
        /// in the expression's pre-order.
        Nested(&'a Expr, usize),
    }
    run(input, ev, param, &mut |ev, row| {
        let mut items: Vec<Item> = Vec::with_capacity(exprs.len());
        let mut sets: Vec<Vec<Value>> = Vec::new();
        let call = |kind: SrfKind, args: &[Expr], ev: &mut Ev| -> Result<Vec<Value>, DbError> {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(a.eval(&row, ev)?);
            }
            crate::functions::srf_values(kind, &vals, &ev.ctx.eval)
        };
        for e in exprs {
            match e {
                Expr::Func(Func::Srf(kind), args) => {
                    sets.push(call(*kind, args, ev)?);
                    items.push(Item::Set(sets.len() - 1));
                }
                e if e.contains_srf() => {
                    let mut calls: Vec<(SrfKind, Vec<Expr>)> = Vec::new();
                    e.walk(&mut |x| {
                        if let Expr::Func(Func::Srf(kind), args) = x {
                            calls.push((*kind, args.clone()));
                        }
                    });
                    items.push(Item::Nested(e, sets.len()));
                    for (kind, args) in calls {
                        sets.push(call(kind, &args, ev)?);
                    }
                }
                e => items.push(Item::Plain(e.eval(&row, ev)?)),
            }
        }
        let n = sets.iter().map(Vec::len).max().unwrap_or(0);
        let value = |k: usize, i: usize| sets[k].get(i).cloned().unwrap_or(Value::Null);
        for i in 0..n {
            let mut out = Vec::with_capacity(items.len());
            for item in &items {
                out.push(match item {
                    Item::Plain(v) => v.clone(),
                    Item::Set(k) => value(*k, i),
                    Item::Nested(e, first) => {
                        let mut k = *first;
                        let e = (*e).clone().rewrite(&mut |x| {
                            Ok(match x {
                                Expr::Func(Func::Srf(_), _) => {
                                    k += 1;
                                    Some(Expr::Const(value(k - 1, i)))
                                }
                                _ => None,
                            })
                        })?;
                        e.eval(&row, ev)?
                    }
                });
            }
            if !emit(ev, out)? {
                return Ok(false);
            }
        }
        Ok(true)
    })
}

/// WITH RECURSIVE (see `Plan::RecursiveUnion`). Every round's rows are
/// emitted as they are found; the working table is the cache entry of
/// `work_id`. Results other subqueries of the step cached during a round
/// are dropped after it, as they may have read the working table.
fn recursive_union(
    init: &Plan,
    step: &Plan,
    work_id: usize,
    all: bool,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut seen: HashSet<Row> = HashSet::new();
    let mut held = 0usize;
    // One round: its new rows go up as they are made (as PostgreSQL's
    // RecursiveUnion returns them), so a LIMIT stops even a round that
    // never ends (a nested recursive query over this one's working
    // table), and are kept as the next round's working table. None: the
    // consumer wants no more rows.
    let mut round = |plan: &Plan,
                     ev: &mut Ev,
                     held: &mut usize,
                     emit: &mut Emit|
     -> Result<Option<Vec<Row>>, DbError> {
        let mut rows = Vec::new();
        let more = run(plan, ev, param, &mut |ev, row| {
            if !all {
                let key = distinct_key(&row);
                if seen.contains(&key) {
                    return Ok(true);
                }
                let bytes = entry_bytes(&key);
                ev.mem.charge(bytes, "recursive UNION")?;
                *held += bytes;
                seen.insert(key);
            }
            rows.push(row.clone());
            emit(ev, row)
        })?;
        Ok(more.then_some(rows))
    };
    let result = (|| {
        let Some(mut work) = round(init, ev, &mut held, emit)? else {
            return Ok(false);
        };
        while !work.is_empty() {
            let bytes: usize = work.iter().map(|r| entry_bytes(r)).sum();
            ev.mem.charge(bytes, "recursive query working table")?;
            ev.cache.insert(work_id, Arc::new(work));
            let cached: HashSet<usize> = ev.cache.keys().copied().collect();
            let next = round(step, ev, &mut held, emit);
            ev.cache.retain(|k, _| cached.contains(k));
            ev.cache.remove(&work_id);
            ev.mem.release(bytes);
            match next? {
                Some(rows) => work = rows,
                None => return Ok(false),
            }
        }
        Ok(true)
    })();
    ev.mem.release(held);
    result
}

/// Run a plan to completion, collecting its rows.
pub fn collect(plan: &Plan, ev: &mut Ev) -> Result<Vec<Row>, DbError> {
    let mut rows = Vec::new();
    run(plan, ev, &[], &mut |_, row| {
        rows.push(row);
        Ok(true)
    })?;
    Ok(rows)
}
