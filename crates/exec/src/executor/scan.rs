//! Leaves of the plan: table scans (sequential and by index), set-returning
//! functions in FROM, and system views.
//!
//! A sequential scan keeps one row buffer of the table's width plus the
//! system columns. Each visible version decodes the columns the plan reads
//! into their slots in place (`TableScan::next_in_place`; unread columns
//! stay NULL, columns added after the version was written get their
//! `missing` value), the system columns are overwritten, and the filter
//! runs on the buffer. A passing row is lent to a consumer that only reads
//! it (`seq_scan_ref`, under [`super::run_ref`]) or moved out to one that
//! keeps it (`seq_scan`, which starts a fresh buffer then); rows the
//! filter drops never leave the buffer. Invisible versions are skipped
//! before anything is decoded. When the plan says so (`LateCols`), the
//! filter's columns are decoded first and the rest only for the rows that
//! pass ([`scan_rows`]).
//!
//! An index range read does the same with a batch of buffers: the index
//! is read in batches (16 rows, growing to 256), each batch's visible rows
//! decoded in place into the scan's buffers and consumed before the next
//! batch is read ([`range_scan`]), so the index lock is not held while
//! rows go up the plan and the batch is still in the CPU cache when they
//! do. IN lists and `= ANY` read their keys one after another into tuples
//! of their own (a list is short).

use std::ops::Bound;
use std::sync::Arc;

use nestor_catalog::{IndexDef, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{Expr, IndexKeys, IndexOrder, LateCols, RowsFromItem, TableFunc};
use nestor_plan::sysviews::View;
use nestor_plan::valops;
use nestor_storage::Tuple;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use nestor_plan::ir::SYS_COLS;

use super::eval::Eval;
use super::{finish_row, poll, scan_row, Emit, EmitRef, Row};
use crate::context::Ev;
use crate::workmem::entry_bytes;

/// Emit `row` if it passes `filter`; false when the consumer wants no
/// more rows.
fn emit_if(
    filter: Option<&Expr>,
    row: super::Row,
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    if let Some(f) = filter {
        if !f.test(&row, ev)? {
            return Ok(true);
        }
    }
    emit(ev, row)
}

/// Every visible row of `table` that passes `filter`.
pub(super) fn seq_scan(
    table: &TableDef,
    filter: Option<&Expr>,
    cols: (Option<&Arc<[bool]>>, Option<&LateCols>),
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let width = table.columns.len() + SYS_COLS;
    scan_rows(table, filter, cols, ev, |ev, row| {
        // The passing row leaves; the next one is decoded into a new
        // buffer (rows the filter drops reuse theirs).
        emit(ev, std::mem::replace(row, vec![Value::Null; width]))
    })
}

/// [`seq_scan`] for a consumer that only reads the rows: one buffer for
/// the whole scan.
pub(super) fn seq_scan_ref(
    table: &TableDef,
    filter: Option<&Expr>,
    cols: (Option<&Arc<[bool]>>, Option<&LateCols>),
    ev: &mut Ev,
    emit: &mut EmitRef,
) -> Result<bool, DbError> {
    scan_rows(table, filter, cols, ev, |ev, row| emit(ev, row))
}

/// The loop of both scans: each visible row decoded into `row` (only the
/// columns `cols` marks), completed to a scan row, tested against
/// `filter` and, if it passes, handed to `each`.
///
/// With `late` (`plan/src/select/narrow.rs`) a row is decoded in two
/// steps: the filter's columns, then, if it passes, the rest. That saves
/// the rest's decoding (a string allocation per text column) for every row
/// the filter drops, and costs a second visit of the row (its latch and
/// visibility check) for every row it keeps; so a scan whose filter keeps
/// more than half of its first `LATE_SAMPLE_ROWS` rows goes back to one
/// step for the remaining ones.
fn scan_rows(
    table: &TableDef,
    filter: Option<&Expr>,
    (cols, late): (Option<&Arc<[bool]>>, Option<&LateCols>),
    ev: &mut Ev,
    mut each: impl FnMut(&mut Ev, &mut Row) -> Result<bool, DbError>,
) -> Result<bool, DbError> {
    populated(table)?;
    let snap = ev.ctx.snapshot;
    let storage = table.storage.clone();
    let mut n = 0;
    ssi_check(ev)?;
    let mut read = 0;
    let mut more = true;
    let mut late = late.filter(|_| filter.is_some());
    let mut scan = storage
        .scan(&snap)
        .only(late.map_or_else(|| cols.cloned(), |l| Some(l.filter.clone())));
    let mut mask = late.map_or_else(|| cols.map(|c| &c[..]), |l| Some(&l.filter[..]));
    let (mut tested, mut kept) = (0u32, 0u32);
    let width = table.columns.len();
    // Unread columns stay NULL in it from row to row.
    let mut row = vec![Value::Null; width + SYS_COLS];
    while let Some((head, stored)) = scan.next_in_place(&mut row[..width]) {
        read += 1;
        poll(ev, &mut n)?;
        finish_row(&mut row, head, stored, table, mask);
        if let Some(f) = filter {
            let pass = f.test(&row, ev)?;
            if let Some(l) = late {
                tested += 1;
                kept += pass as u32;
                if pass {
                    let stored = scan.decode_more(head, &l.rest, &mut row[..width]);
                    finish_row(&mut row, head, stored, table, Some(&l.rest[..]));
                }
                if tested == LATE_SAMPLE_ROWS && kept > tested / 2 {
                    late = None;
                    scan = scan.only(cols.cloned());
                    mask = cols.map(|c| &c[..]);
                }
            }
            if !pass {
                continue;
            }
        }
        if !each(ev, &mut row)? {
            more = false;
            break;
        }
    }
    ev.ctx.db.stats.count_scan(table.oid.0, false, read);
    if !more {
        return Ok(false);
    }
    ssi_check(ev)?;
    Ok(true)
}

/// The rows a two-step scan tests before it decides whether two steps pay
/// ([`scan_rows`]).
const LATE_SAMPLE_ROWS: u32 = 1024;

/// A materialized view made WITH NO DATA cannot be read until REFRESHed
/// (55000, when the query runs, as PostgreSQL's executor reports it).
fn populated(table: &TableDef) -> Result<(), DbError> {
    if table.matview.as_ref().is_some_and(|m| !m.populated) {
        return Err(DbError::new(
            nestor_common::SqlState::ObjectNotInPrerequisiteState,
            format!(
                "materialized view \"{}\" has not been populated",
                table.name
            ),
        )
        .with_hint("Use the REFRESH MATERIALIZED VIEW command."));
    }
    Ok(())
}

/// SERIALIZABLE: a read fails once the transaction is doomed, or when what
/// it just read closed a dangerous structure with it as the one to cancel
/// (PostgreSQL fails at the row read; the scan's rows are not used).
fn ssi_check(ev: &Ev) -> Result<(), DbError> {
    ev.ctx
        .txn
        .check_serializable("conflict out checking")
        .map_err(DbError::from)
}

/// The visible rows an index lookup finds, then `filter`.
pub(super) fn index_scan(
    table: &TableDef,
    index: &IndexDef,
    (keys, cols, order): (&IndexKeys, Option<&[bool]>, IndexOrder),
    filter: Option<&Expr>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    populated(table)?;
    if index.method == nestor_catalog::AccessMethod::Gin {
        return gin_scan(table, index, (keys, cols), filter, ev, param, emit);
    }
    let Some(vals) = list_values(keys, ev, param)? else {
        let backward = order == IndexOrder::Backward;
        let width = table.columns.len() + SYS_COLS;
        return range_scan(
            table,
            index,
            (keys, cols, backward),
            filter,
            ev,
            param,
            &mut |ev, row| emit(ev, std::mem::replace(row, vec![Value::Null; width])),
        );
    };
    // An IN list reads one key after another, each whole (a list is short).
    let Some(range) = key_range(table, index, keys, ev, param)? else {
        return Ok(true);
    };
    ssi_check(ev)?;
    let (tuples, scans) = in_list_lookup(table, index, (range.prefix, vals), cols, ev)?;
    ev.ctx
        .db
        .stats
        .count_scans(index.oid.0, true, scans, tuples.len() as u64);
    ssi_check(ev)?;
    for t in tuples {
        let row = scan_row(t, table);
        if !emit_if(filter, row, ev, emit)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// [`index_scan`] for a consumer that only reads the rows: a range scan
/// lends it the batch's buffers; the other index reads run as
/// [`index_scan`] does.
pub(super) fn index_scan_ref(
    table: &TableDef,
    index: &IndexDef,
    (keys, cols, order): (&IndexKeys, Option<&[bool]>, IndexOrder),
    filter: Option<&Expr>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut EmitRef,
) -> Result<bool, DbError> {
    let ranged = keys.in_list.is_none() && keys.in_array.is_none();
    if index.method == nestor_catalog::AccessMethod::Gin || !ranged {
        let keys = (keys, cols, order);
        return index_scan(table, index, keys, filter, ev, param, &mut |ev, row| {
            emit(ev, &row)
        });
    }
    populated(table)?;
    let backward = order == IndexOrder::Backward;
    let keys = (keys, cols, backward);
    range_scan(table, index, keys, filter, ev, param, &mut |ev, row| {
        emit(ev, row)
    })
}

/// A GIN index read (`nestor_plan::select::gin`): each condition's value
/// becomes a lookup (rows with all, or any, of its keys); the candidate
/// rows of all conditions are intersected and each is rechecked by
/// `filter`, which holds the GIN conditions themselves (the keys are
/// lossy). A condition whose value has no keys (`@> '{}'`) narrows
/// nothing; when none narrows, the table is scanned whole (PostgreSQL
/// reads the whole index then).
fn gin_scan(
    table: &TableDef,
    index: &IndexDef,
    (keys, cols): (&IndexKeys, Option<&[bool]>),
    filter: Option<&Expr>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    use nestor_plan::select::gin::{search, Search};
    let mut lookups: Vec<(Vec<Vec<u8>>, bool)> = Vec::new();
    for q in &keys.gin {
        let value = q.value.eval(param, ev)?;
        match search(q, &value)? {
            Search::Nothing => return Ok(true),
            Search::Everything => {}
            Search::All(k) => lookups.push((k, true)),
            Search::Any(k) => lookups.push((k, false)),
        }
    }
    if lookups.is_empty() {
        return seq_scan(table, filter, (None, None), ev, emit);
    }
    ssi_check(ev)?;
    let snap = ev.ctx.snapshot;
    let mut found: Option<Vec<Tuple>> = None;
    for (k, all) in &lookups {
        let tuples = table.storage.gin_scan(&index.index, k, *all, &snap, cols);
        found = Some(match found {
            None => tuples,
            Some(prev) => {
                let rows: std::collections::HashSet<_> = tuples.iter().map(|t| t.row).collect();
                prev.into_iter().filter(|t| rows.contains(&t.row)).collect()
            }
        });
    }
    let tuples = found.unwrap_or_default();
    ev.ctx
        .db
        .stats
        .count_scans(index.oid.0, true, lookups.len() as u64, tuples.len() as u64);
    ssi_check(ev)?;
    for t in tuples {
        let row = scan_row(t, table);
        if !emit_if(filter, row, ev, emit)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A system view's rows (computed now), then `filter`.
pub(super) fn sysview(
    view: View,
    filter: Option<&Expr>,
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    for row in crate::sysviews::rows(view, ev) {
        if !emit_if(filter, row, ev, emit)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The values an IN list or `= ANY (array)` on the index's key column
/// looks up (None: the keys are a range).
fn list_values(
    keys: &IndexKeys,
    ev: &mut Ev,
    param: &[Value],
) -> Result<Option<Vec<Value>>, DbError> {
    Ok(Some(match (&keys.in_list, &keys.in_array) {
        (Some(list), _) => {
            let mut vals = Vec::with_capacity(list.len());
            for e in list {
                vals.push(e.eval(param, ev)?);
            }
            vals
        }
        (None, Some(array)) => match array.eval(param, ev)? {
            Value::Array(a) => a.items.clone(),
            _ => Vec::new(), // NULL: `x = ANY (NULL)` is never true
        },
        (None, None) => return Ok(None),
    }))
}

/// The values of an IN list or `= ANY (array)` on the key column after
/// `prefix`: one lookup per distinct non-NULL value, in key order.
fn in_list_lookup(
    table: &TableDef,
    index: &IndexDef,
    (prefix, list): (Vec<Value>, Vec<Value>),
    cols: Option<&[bool]>,
    ev: &mut Ev,
) -> Result<(Vec<Tuple>, u64), DbError> {
    let pos = prefix.len();
    let mut vals = Vec::with_capacity(list.len());
    for v in list {
        if !v.is_null() {
            vals.push(cast_key(&ev.ctx.eval, v, table, index, pos)?);
        }
    }
    vals.sort();
    vals.dedup();
    let lookups = vals.len() as u64;
    let snap = ev.ctx.snapshot;
    let mut out = Vec::new();
    let mut k = prefix;
    for v in vals {
        k.truncate(pos);
        k.push(v);
        out.extend(table.storage.index_scan_only(
            &index.index,
            Bound::Included(&k[..]),
            Bound::Included(&k[..]),
            &snap,
            cols,
        ));
    }
    Ok((out, lookups))
}

/// An index range in key values: the equality prefix and the bounds on
/// the next column (each with the prefix before it).
struct KeyRange {
    prefix: Vec<Value>,
    lo: Option<(Vec<Value>, bool)>,
    hi: Option<(Vec<Value>, bool)>,
}

impl KeyRange {
    fn bounds(&self) -> (Bound<&[Value]>, Bound<&[Value]>) {
        (self.side(&self.lo), self.side(&self.hi))
    }

    fn side<'a>(&'a self, b: &'a Option<(Vec<Value>, bool)>) -> Bound<&'a [Value]> {
        match b {
            Some((k, true)) => Bound::Included(&k[..]),
            Some((k, false)) => Bound::Excluded(&k[..]),
            None if self.prefix.is_empty() => Bound::Unbounded,
            None => Bound::Included(&self.prefix[..]),
        }
    }
}

/// Evaluate equal keys and the range on the next column; None when a key
/// is NULL (no rows).
fn key_range(
    table: &TableDef,
    index: &IndexDef,
    keys: &IndexKeys,
    ev: &mut Ev,
    param: &[Value],
) -> Result<Option<KeyRange>, DbError> {
    let mut prefix = Vec::with_capacity(keys.eq.len() + 1);
    for (i, e) in keys.eq.iter().enumerate() {
        let v = e.eval(param, ev)?;
        if v.is_null() {
            return Ok(None);
        }
        prefix.push(cast_key(&ev.ctx.eval, v, table, index, i)?);
    }
    let pos = prefix.len();
    // None: a NULL bound (no rows); Some(None): no bound.
    type KeyBound = Option<Option<(Vec<Value>, bool)>>;
    let bound = |b: &Option<(Expr, bool)>, ev: &mut Ev| -> Result<KeyBound, DbError> {
        match b {
            None => Ok(Some(None)),
            Some((e, incl)) => {
                let v = e.eval(param, ev)?;
                if v.is_null() {
                    return Ok(None);
                }
                let mut k = prefix.clone();
                k.push(cast_key(&ev.ctx.eval, v, table, index, pos)?);
                Ok(Some(Some((k, *incl))))
            }
        }
    };
    let Some(mut lo) = bound(&keys.lo, ev)? else {
        return Ok(None);
    };
    let Some(mut hi) = bound(&keys.hi, ev)? else {
        return Ok(None);
    };
    // A bound on one side alone stops before the NULLs on the other (which
    // it must not return, and past which other prefixes follow): in the
    // column's ascending order NULLs lie above every value (NULLS LAST,
    // and DESC NULLS FIRST, its reverse) or below (NULLS FIRST, DESC
    // NULLS LAST).
    let null_at = || {
        let mut k = prefix.clone();
        k.push(Value::Null);
        Some((k, false))
    };
    if index.index.key_order(pos).null_high() {
        if lo.is_some() && hi.is_none() {
            hi = null_at();
        }
    } else if hi.is_some() && lo.is_none() {
        lo = null_at();
    }
    Ok(Some(KeyRange { prefix, lo, hi }))
}

/// One lookup by equal keys and a range on the next column.
/// An index range read (in key order, `backward`: descending), in
/// batches of growing size: each batch's visible rows are decoded in place
/// into a set of row buffers (`Table::index_scan_batch_into`, which makes
/// them as rows are found and reuses them batch after batch), completed
/// to scan rows, tested against `filter`, and the passing ones handed to
/// `each`, before the next batch is read. The index lock is not held while
/// rows flow up the plan; a small first batch lets a LIMIT stop the
/// reading early; a bounded one keeps the batch in the CPU cache while it
/// is consumed, and a consumer that keeps a row takes its buffer with it
/// (`index_scan` puts a new one in its place), so nothing is allocated
/// for the rows the filter drops.
fn range_scan(
    table: &TableDef,
    index: &IndexDef,
    (keys, cols, backward): (&IndexKeys, Option<&[bool]>, bool),
    filter: Option<&Expr>,
    ev: &mut Ev,
    param: &[Value],
    each: &mut dyn FnMut(&mut Ev, &mut Row) -> Result<bool, DbError>,
) -> Result<bool, DbError> {
    let Some(range) = key_range(table, index, keys, ev, param)? else {
        return Ok(true);
    };
    let snap = ev.ctx.snapshot;
    let width = table.columns.len();
    // Row buffers, made as rows are found (a point lookup makes one).
    let mut bufs: Vec<Row> = Vec::new();
    let mut heads = Vec::new();
    let (mut resume, mut batch, mut read, mut n) = (None::<Vec<u8>>, INDEX_BATCH_ROWS_FIRST, 0, 0);
    loop {
        ssi_check(ev)?;
        let next = table.storage.index_scan_batch_into(
            &index.index,
            range.bounds(),
            &snap,
            cols,
            (backward, resume.as_deref(), batch),
            (&mut bufs, width),
            &mut heads,
        );
        read += heads.len() as u64;
        for (row, &(head, stored)) in bufs.iter_mut().zip(&heads) {
            poll(ev, &mut n)?;
            finish_row(row, head, stored, table, cols);
            if filter.map_or(Ok(true), |f| f.test(row, ev))? && !each(ev, row)? {
                ev.ctx.db.stats.count_scans(index.oid.0, true, 1, read);
                return Ok(false);
            }
        }
        let Some(k) = next else { break };
        resume = Some(k);
        batch = (batch * 4).min(INDEX_BATCH_ROWS_MAX);
    }
    ev.ctx.db.stats.count_scans(index.oid.0, true, 1, read);
    ssi_check(ev)?;
    Ok(true)
}

/// Rows in the first batch of an index range read (a LIMIT is usually
/// small), and the most in any batch (small enough that a batch of
/// decoded rows stays in the CPU cache while the plan consumes it).
const INDEX_BATCH_ROWS_FIRST: usize = 16;
const INDEX_BATCH_ROWS_MAX: usize = 256;

/// Key values must have the column's own type to compare as the index
/// does (integers of other widths compare by value already).
fn cast_key(
    ec: &nestor_types::EvalCtx,
    v: Value,
    table: &TableDef,
    index: &IndexDef,
    i: usize,
) -> Result<Value, DbError> {
    // A computed index's key values already have the key's type (the
    // planner casts them).
    let Some(&col) = index.columns.get(i) else {
        return Ok(v);
    };
    let ty = table.columns[col].ty;
    if ty.is_integer() && valops::as_i64(&v).is_some() {
        return Ok(v);
    }
    match (&v, ty) {
        (Value::Text(_), DataType::Text | DataType::Varchar(_)) => Ok(v),
        _ => valops::cast(v, ty, true, ec),
    }
}

pub(super) fn run_function(
    func: &TableFunc,
    args: &[Expr],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    match func {
        TableFunc::GenerateSeries => {
            let mut vals = Vec::new();
            for a in args {
                vals.push(a.eval(param, ev)?);
            }
            if vals.iter().any(Value::is_null) {
                return Ok(true);
            }
            if let (Value::Timestamp(_) | Value::TimestampTz(_), Some(Value::Interval(step))) =
                (&vals[0], vals.get(2))
            {
                // Over timestamps: start, start + step, ... while not past
                // stop.
                use nestor_types::datetime_fns::{series_next, series_step_forward, series_within};
                let forward = series_step_forward(step)?;
                let mut cur = vals[0].clone();
                let mut n = 0;
                while series_within(&cur, &vals[1], forward) {
                    poll(ev, &mut n)?;
                    let next = series_next(&cur, step, &ev.ctx.eval)?;
                    if !emit(ev, vec![cur])? {
                        return Ok(false);
                    }
                    if matches!(next, Value::Timestamp(t) | Value::TimestampTz(t)
                        if t == i64::MAX || t == i64::MIN)
                    {
                        break;
                    }
                    cur = next;
                }
                return Ok(true);
            }
            if let [Value::Numeric(start), Value::Numeric(stop), step @ ..] = &vals[..] {
                let step = match step {
                    [Value::Numeric(s)] => Some(s),
                    _ => None,
                };
                let mut n = 0;
                for v in nestor_types::Numeric::series(start, stop, step)? {
                    poll(ev, &mut n)?;
                    if !emit(ev, vec![Value::Numeric(v)])? {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
            let int = |v: &Value| valops::as_i64(v).unwrap_or(0);
            let (start, stop) = (int(&vals[0]), int(&vals[1]));
            let step = vals.get(2).map(int).unwrap_or(1);
            if step == 0 {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    "step size cannot equal zero",
                ));
            }
            let is4 = matches!(vals[0], Value::Int4(_));
            let mut i = start;
            let mut n = 0;
            while (step > 0 && i <= stop) || (step < 0 && i >= stop) {
                poll(ev, &mut n)?;
                let v = if is4 {
                    Value::Int4(i as i32)
                } else {
                    Value::Int8(i)
                };
                if !emit(ev, vec![v])? {
                    return Ok(false);
                }
                match i.checked_add(step) {
                    Some(x) => i = x,
                    None => break,
                }
            }
            Ok(true)
        }
        TableFunc::Set(f) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(a.eval(param, ev)?);
            }
            let mut n = 0;
            for row in f.rows(&vals, &ev.ctx.eval)? {
                poll(ev, &mut n)?;
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        TableFunc::Srf(kind) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(a.eval(param, ev)?);
            }
            let mut n = 0;
            for v in crate::functions::srf_values(*kind, &vals, &ev.ctx.eval)? {
                poll(ev, &mut n)?;
                if !emit(ev, vec![v])? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        TableFunc::Value => {
            let v = args[0].eval(param, ev)?;
            emit(ev, vec![v])
        }
        TableFunc::OptionsToTable => {
            let Value::Array(a) = args[0].eval(param, ev)? else {
                return Ok(true);
            };
            for v in &a.items {
                let Some(opt) = v.as_str() else { continue };
                let (k, val) = match opt.split_once('=') {
                    Some((k, val)) => (k, Value::text(val)),
                    None => (opt, Value::Null),
                };
                if !emit(ev, vec![Value::text(k), val])? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        TableFunc::PartitionAncestors => {
            // The relation, then the partitioned tables above it.
            let rel = args[0].eval(param, ev)?;
            let Some(o) = rel.as_i64() else {
                return Ok(true);
            };
            let mut cur = ev.ctx.catalog.table_by_oid(nestor_common::RelId(o as u32));
            while let Some(t) = cur {
                if !emit(ev, vec![Value::Int8(i64::from(t.oid.0))])? {
                    return Ok(false);
                }
                cur = t
                    .partition_parent()
                    .and_then(|p| ev.ctx.catalog.table_by_oid(p));
            }
            Ok(true)
        }
        TableFunc::PartitionTree => {
            // Nothing for a table neither partitioned nor a partition.
            let rel = args[0].eval(param, ev)?;
            let Some(o) = rel.as_i64() else {
                return Ok(true);
            };
            let catalog = ev.ctx.catalog;
            let Some(top) = catalog.table_by_oid(nestor_common::RelId(o as u32)) else {
                return Ok(true);
            };
            if top.partition_key.is_none() && top.partition_bound.is_none() {
                return Ok(true);
            }
            let oid = |o: nestor_common::RelId| Value::Int8(i64::from(o.0));
            let mut level = vec![top];
            let mut depth = 0;
            while !level.is_empty() {
                let mut next = Vec::new();
                for t in level {
                    let parent = t.partition_parent().map_or(Value::Null, oid);
                    let leaf = t.partition_key.is_none();
                    let row = vec![oid(t.oid), parent, Value::Bool(leaf), Value::Int4(depth)];
                    if !emit(ev, row)? {
                        return Ok(false);
                    }
                    if !leaf {
                        let mut children = catalog.children(t.oid);
                        children.sort_by_key(|c| c.oid.0);
                        next.extend(children);
                    }
                }
                level = next;
                depth += 1;
            }
            Ok(true)
        }
        TableFunc::Unnest if args.len() > 1 => {
            let mut arrays = Vec::with_capacity(args.len());
            for a in args {
                arrays.push(match a.eval(param, ev)? {
                    Value::Array(a) => a.items.clone(),
                    _ => Vec::new(),
                });
            }
            let n = arrays.iter().map(Vec::len).max().unwrap_or(0);
            let mut polled = 0;
            for i in 0..n {
                poll(ev, &mut polled)?;
                let row = arrays
                    .iter()
                    .map(|a| a.get(i).cloned().unwrap_or(Value::Null))
                    .collect();
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        TableFunc::Unnest => {
            let Value::Array(a) = args[0].eval(param, ev)? else {
                return Ok(true);
            };
            let mut n = 0;
            for v in &a.items {
                poll(ev, &mut n)?;
                if !emit(ev, vec![v.clone()])? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        TableFunc::RowsFrom(items) => rows_from(items, args, ev, param, emit),
        TableFunc::Checked(inner, checks) => {
            let mut checked = |ev: &mut Ev, row: Vec<Value>| {
                let rec = Value::Record(row.as_slice().into());
                super::eval::check_domain(checks, std::slice::from_ref(&rec), ev)?;
                emit(ev, row)
            };
            run_function(inner, args, ev, param, &mut checked)
        }
        TableFunc::Fields(inner, width) => {
            let width = *width;
            let mut split = |ev: &mut Ev, row: Vec<Value>| {
                let fields = match row.into_iter().next() {
                    Some(Value::Record(fields)) => {
                        record_width(fields.len(), width)?;
                        fields.to_vec()
                    }
                    _ => vec![Value::Null; width],
                };
                emit(ev, fields)
            };
            run_function(inner, args, ev, param, &mut split)
        }
        TableFunc::User(f, shape) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(a.eval(param, ev)?);
            }
            let declared = match shape {
                Some(_) => None,
                None => f.0.result_columns(ev.ctx.catalog)?,
            };
            let columns = match shape {
                Some(types) => Some(types.len()),
                None => declared.as_ref().map(|c| c.len()),
            };
            let row_result = columns.is_some();
            let width = columns.unwrap_or(1);
            let rows = match (crate::ROUTINES.call)(&f.0, vals, ev.ctx)? {
                crate::context::Outcome::Rows(rows) => rows,
                // A function returning one record: its fields are the
                // columns (none, a row of NULLs, as in PostgreSQL).
                crate::context::Outcome::Value(Value::Record(fields)) if row_result => {
                    vec![fields.to_vec()]
                }
                crate::context::Outcome::Value(Value::Null) if row_result => {
                    vec![vec![Value::Null; width]]
                }
                crate::context::Outcome::Value(v) => vec![vec![v]],
            };
            let mut n = 0;
            for mut row in rows {
                // RETURN NEXT of a composite value: its fields are the row.
                if row_result && width != 1 {
                    if let [Value::Record(fields)] = row.as_slice() {
                        row = match &declared {
                            Some(cols) => record_row(&f.0, fields, cols, &ev.ctx.eval)?,
                            None => fields.to_vec(),
                        };
                    }
                }
                if let Some(types) = shape {
                    fit_record_row(&f.0, &mut row, types, &ev.ctx.eval)?;
                }
                // The function's rows were fitted to its result type; the
                // plan was made for the same columns (a schema change
                // re-plans).
                if row.len() != width {
                    return Err(DbError::internal(format!(
                        "function {} returned {} columns where its result has {width}",
                        f.0.name,
                        row.len()
                    )));
                }
                poll(ev, &mut n)?;
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
    }
}

/// The row of a composite value a row-returning function gave as its one
/// column (`select (1, 2)`). Its width must be the declared row's
/// (PostgreSQL's tupledesc_match, 42804). A table's or named composite
/// type's fields are coerced to the type's, as PostgreSQL coerces the
/// final statement of such a function; OUT parameters make an anonymous
/// row, which must match as it is: a field's type is known only as far
/// as its value tells it, so only numeric fields of another numeric type
/// are told apart (a text value may be of any string type, an int8 one
/// an oid).
fn record_row(
    def: &nestor_catalog::FunctionDef,
    fields: &[Value],
    cols: &[(String, DataType)],
    ec: &nestor_types::EvalCtx,
) -> Result<Vec<Value>, DbError> {
    record_width(fields.len(), cols.len())?;
    if !matches!(def.returns, nestor_catalog::Returns::Row(_)) {
        return fields
            .iter()
            .zip(cols)
            .map(|(v, (_, want))| match v {
                Value::Null => Ok(Value::Null),
                v => valops::cast(v.clone(), *want, false, ec),
            })
            .collect();
    }
    for (i, (v, (_, want))) in fields.iter().zip(cols).enumerate() {
        let have = v.data_type();
        if have.is_numeric() && want.is_numeric() && have.base() != want.base() {
            return Err(row_mismatch(format!(
                "Returned type {} at ordinal position {}, but query expects {}.",
                have.name(),
                i + 1,
                want.name()
            )));
        }
    }
    Ok(fields.to_vec())
}

/// PostgreSQL's tupledesc_match failure (42804).
fn row_mismatch(detail: String) -> DbError {
    DbError::new(
        SqlState::DatatypeMismatch,
        "function return row and query-specified return row do not match",
    )
    .with_detail(detail)
}

/// A composite value of `have` fields where the scan's row has `want`.
fn record_width(have: usize, want: usize) -> Result<(), DbError> {
    if have == want {
        return Ok(());
    }
    Err(row_mismatch(format!(
        "Returned row contains {have} attribute{}, but query expects {want}.",
        if have == 1 { "" } else { "s" },
    )))
}

/// A row of a function returning record, checked against the column
/// definition list of its call: as many columns, each of the listed type
/// or one that widens to it implicitly (int4 into int8, varchar into
/// text), with the messages PostgreSQL gives for SQL and PL/pgSQL
/// functions.
fn fit_record_row(
    def: &nestor_catalog::FunctionDef,
    row: &mut [Value],
    types: &[DataType],
    ec: &nestor_types::EvalCtx,
) -> Result<(), DbError> {
    let sql = matches!(def.language, nestor_catalog::Language::Sql);
    let mismatch = |detail: String| {
        let (state, msg) = if sql {
            (
                SqlState::InvalidFunctionDefinition,
                "return type mismatch in function declared to return record",
            )
        } else {
            (
                SqlState::DatatypeMismatch,
                "wrong record type supplied in RETURN NEXT",
            )
        };
        let e = DbError::new(state, msg).with_detail(detail);
        if sql {
            e.with_context(format!("SQL function \"{}\" during startup", def.name))
        } else {
            e
        }
    };
    if row.len() != types.len() {
        return Err(mismatch(if sql {
            let n = if row.len() > types.len() {
                "many"
            } else {
                "few"
            };
            format!("Final statement returns too {n} columns.")
        } else {
            format!(
                "Number of returned columns ({}) does not match expected column count ({}).",
                row.len(),
                types.len()
            )
        }));
    }
    for (i, (v, &want)) in row.iter_mut().zip(types).enumerate() {
        let have = v.data_type();
        if v.is_null() || have.base() == want.base() {
            continue;
        }
        let widens =
            (have.is_numeric() && want.is_numeric()) || (have.is_string() && want.is_string());
        if sql && widens {
            *v = valops::cast(std::mem::replace(v, Value::Null), want, false, ec)?;
            continue;
        }
        return Err(mismatch(if sql {
            format!(
                "Final statement returns {} instead of {} at column {}.",
                have.name(),
                want.name(),
                i + 1
            )
        } else {
            format!(
                "Returned type {} does not match expected type {} in column {}.",
                have.name(),
                want.name(),
                i + 1
            )
        }));
    }
    Ok(())
}

/// ROWS FROM: each function's rows in full (PostgreSQL materialises them
/// too), then row i of every function side by side, NULLs for a function
/// that has fewer rows.
fn rows_from(
    items: &[RowsFromItem],
    args: &[Expr],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut held = 0;
    let out = rows_from_held(items, args, ev, param, emit, &mut held);
    ev.mem.release(held);
    out
}

/// [`rows_from`], counting the working memory it charges in `held`.
fn rows_from_held(
    items: &[RowsFromItem],
    args: &[Expr],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
    held: &mut usize,
) -> Result<bool, DbError> {
    let mut results: Vec<Vec<Row>> = Vec::with_capacity(items.len());
    let mut at = 0;
    for item in items {
        let mut rows = Vec::new();
        run_function(
            &item.func,
            &args[at..at + item.nargs],
            ev,
            param,
            &mut |ev, row| {
                assert_eq!(row.len(), item.width, "a ROWS FROM item's row width");
                let bytes = entry_bytes(&row);
                ev.mem.charge(bytes, "ROWS FROM result")?;
                *held += bytes;
                rows.push(row);
                Ok(true)
            },
        )?;
        at += item.nargs;
        results.push(rows);
    }
    assert_eq!(at, args.len(), "ROWS FROM items use every argument");
    let n = results.iter().map(Vec::len).max().unwrap_or(0);
    let width = items.iter().map(|i| i.width).sum();
    let mut polled = 0;
    for i in 0..n {
        poll(ev, &mut polled)?;
        let mut row = Vec::with_capacity(width);
        for (item, rows) in items.iter().zip(&mut results) {
            match rows.get_mut(i) {
                Some(r) => row.append(r),
                None => row.extend(std::iter::repeat_n(Value::Null, item.width)),
            }
        }
        if !emit(ev, row)? {
            return Ok(false);
        }
    }
    Ok(true)
}
