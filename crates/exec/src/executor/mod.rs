//! The executor: runs a [`Plan`] and pushes rows into a callback.
//!
//! Push-based: `run(plan, ev, param, emit)` calls `emit(ev, row)` per row;
//! `emit` returns `false` to stop early (LIMIT, EXISTS, scalar subqueries),
//! which unwinds the whole pipeline without reading further rows. Sort,
//! aggregation, DISTINCT and set operations materialize their input.
//! `param` is the current outer row of a nested loop; parameterized index
//! scans compute their keys from it.
//!
//! Row locking (`LockRows`) follows PostgreSQL's EvalPlanQual under READ
//! COMMITTED: when a row was changed by a transaction that committed after
//! the statement's snapshot, the newest version replaces the row's columns
//! and the WHERE clause is re-evaluated on it; rows that no longer qualify
//! are skipped, and rows that do are locked in their newest version.

use std::collections::HashSet;
use std::ops::Bound;
use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_storage::{LockResult, Recheck, Tuple};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use nestor_plan::ir::{AggCall, AggFunc, Expr, SubKind, SubQuery};
use nestor_plan::ir::{IndexKeys, JoinKind, LockTarget, Plan, SortKey, TableFunc, SYS_COLS};
use nestor_plan::valops;

use crate::context::Ev;

pub mod eval;

use eval::{truthy, Eval};

pub type Row = Vec<Value>;
pub type Emit<'f> = dyn FnMut(&mut Ev, Row) -> Result<bool, DbError> + 'f;

/// Check for cancel / statement_timeout every this many rows.
const INTERRUPT_EVERY: u32 = 1024;

fn poll(ev: &Ev, counter: &mut u32) -> Result<(), DbError> {
    *counter += 1;
    if counter.is_multiple_of(INTERRUPT_EVERY) {
        (ev.ctx.wait.interrupt)().map_err(DbError::from)?;
    }
    Ok(())
}

/// A scan row: the table's columns, then row id, xmin, xmax.
pub fn scan_row(t: &Tuple, table: &nestor_catalog::TableDef) -> Row {
    let n = table.columns.len();
    let mut r = Vec::with_capacity(n + SYS_COLS);
    r.extend(t.data.iter().take(n).cloned());
    for c in &table.columns[r.len()..] {
        r.push(c.missing.clone());
    }
    r.push(Value::Int8(t.row.0 as i64));
    r.push(Value::Int8(t.xmin.0 as i64));
    r.push(Value::Int8(t.xmax.0 as i64));
    r
}

/// Run `plan`, calling `emit` for each row. Returns false if `emit` asked
/// to stop.
pub fn run(plan: &Plan, ev: &mut Ev, param: &[Value], emit: &mut Emit) -> Result<bool, DbError> {
    match plan {
        Plan::Single => emit(ev, Vec::new()),
        Plan::Values { rows } => {
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
        Plan::SeqScan { table, filter, .. } => {
            let snap = ev.ctx.snapshot;
            let storage = table.storage.clone();
            let mut n = 0;
            for t in storage.scan(&snap) {
                poll(ev, &mut n)?;
                let row = scan_row(&t, table);
                if let Some(f) = filter {
                    if !f.test(&row, ev)? {
                        continue;
                    }
                }
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Plan::IndexScan {
            table,
            index,
            keys,
            filter,
            ..
        } => {
            let tuples = index_lookup(table, index, keys, ev, param)?;
            for t in tuples {
                let row = scan_row(&t, table);
                if let Some(f) = filter {
                    if !f.test(&row, ev)? {
                        continue;
                    }
                }
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Plan::FunctionScan { func, args, .. } => run_function(*func, args, ev, param, emit),
        Plan::SysView { view, filter } => {
            let rows = crate::sysviews::rows(*view, ev);
            for row in rows {
                if let Some(f) = filter {
                    if !f.test(&row, ev)? {
                        continue;
                    }
                }
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Plan::CteScan { id, plan, .. } => {
            let rows = materialize_cached(*id, plan, ev)?;
            for r in rows.iter() {
                if !emit(ev, r.clone())? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Plan::Filter { input, pred } => run(input, ev, param, &mut |ev, row| {
            if pred.test(&row, ev)? {
                emit(ev, row)
            } else {
                Ok(true)
            }
        }),
        Plan::Project { input, exprs } => run(input, ev, param, &mut |ev, row| {
            let mut out = Vec::with_capacity(exprs.len());
            for e in exprs {
                out.push(e.eval(&row, ev)?);
            }
            emit(ev, out)
        }),
        Plan::NestedLoop {
            left,
            right,
            kind,
            on,
            right_width,
        } => run(left, ev, param, &mut |ev, lrow| {
            let mut matched = false;
            let mut go = true;
            run(right, ev, &lrow, &mut |ev, rrow| {
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
            })?;
            if !go {
                return Ok(false);
            }
            if !matched && *kind == JoinKind::Left {
                let mut row = lrow;
                row.extend(std::iter::repeat_n(Value::Null, *right_width));
                return emit(ev, row);
            }
            Ok(true)
        }),
        Plan::Aggregate { input, group, aggs } => {
            run_aggregate(input, group, aggs, ev, param, emit)
        }
        Plan::Sort { input, keys } => {
            let mut rows: Vec<(Vec<Value>, Row)> = Vec::new();
            run(input, ev, param, &mut |ev, row| {
                let mut k = Vec::with_capacity(keys.len());
                for key in keys {
                    k.push(key.expr.eval(&row, ev)?);
                }
                rows.push((k, row));
                Ok(true)
            })?;
            let ec = ev.ctx.eval;
            rows.sort_by(|a, b| compare_keys(&a.0, &b.0, keys, &ec));
            for (_, r) in rows {
                if !emit(ev, r)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Plan::Limit {
            input,
            limit,
            offset,
        } => {
            let lim = eval_count(limit.as_ref(), ev, "LIMIT")?;
            let mut skip = eval_count(offset.as_ref(), ev, "OFFSET")?.unwrap_or(0);
            if lim == Some(0) {
                return Ok(true);
            }
            let mut left = lim;
            let mut stopped_by_limit = false;
            let r = run(input, ev, param, &mut |ev, row| {
                if skip > 0 {
                    skip -= 1;
                    return Ok(true);
                }
                let cont = emit(ev, row)?;
                if let Some(l) = left.as_mut() {
                    *l -= 1;
                    if *l == 0 {
                        stopped_by_limit = true;
                        return Ok(false);
                    }
                }
                Ok(cont)
            })?;
            Ok(r || stopped_by_limit)
        }
        Plan::Distinct { input } => {
            let mut seen: HashSet<Row> = HashSet::new();
            run(input, ev, param, &mut |ev, row| {
                if seen.insert(distinct_key(&row)) {
                    emit(ev, row)
                } else {
                    Ok(true)
                }
            })
        }
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
        } => run_setop(left, right, *intersect, *all, ev, param, emit),
        Plan::LockRows {
            input,
            targets,
            mode,
            policy,
            recheck,
        } => run(input, ev, param, &mut |ev, row| match lock_row(
            ev,
            row,
            targets,
            *mode,
            *policy,
            recheck.as_ref(),
        )? {
            Some(row) => emit(ev, row),
            None => Ok(true),
        }),
    }
}

/// Values compare by SQL semantics for DISTINCT/GROUP BY: normalize
/// numerics so `1.0` and `1.00` are one group.
fn distinct_key(row: &[Value]) -> Row {
    // Value's Eq/Hash already compare numerics by value ignoring scale.
    row.to_vec()
}

fn compare_keys(
    a: &[Value],
    b: &[Value],
    keys: &[SortKey],
    ec: &nestor_types::EvalCtx,
) -> std::cmp::Ordering {
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
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("{what} must not be negative"),
                ));
            }
            Ok(Some(n))
        }
    }
}

/// Evaluate index keys and read the matching visible rows.
pub fn index_lookup(
    table: &nestor_catalog::TableDef,
    index: &nestor_catalog::IndexDef,
    keys: &IndexKeys,
    ev: &mut Ev,
    param: &[Value],
) -> Result<Vec<Tuple>, DbError> {
    let snap = ev.ctx.snapshot;
    let storage = &table.storage;
    if let Some(list) = &keys.in_list {
        let mut vals = Vec::with_capacity(list.len());
        for e in list {
            let v = e.eval(param, ev)?;
            if !v.is_null() {
                vals.push(cast_key(&ev.ctx.eval, v, table, index, 0)?);
            }
        }
        vals.sort();
        vals.dedup();
        let mut out = Vec::new();
        for v in vals {
            let k = [v];
            out.extend(storage.index_scan(
                &index.index,
                Bound::Included(&k[..]),
                Bound::Included(&k[..]),
                &snap,
            ));
        }
        return Ok(out);
    }
    let mut prefix = Vec::with_capacity(keys.eq.len() + 1);
    for (i, e) in keys.eq.iter().enumerate() {
        let v = e.eval(param, ev)?;
        if v.is_null() {
            return Ok(Vec::new());
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
    let Some(lo) = bound(&keys.lo, ev)? else {
        return Ok(Vec::new());
    };
    let Some(hi) = bound(&keys.hi, ev)? else {
        return Ok(Vec::new());
    };
    let lo_b = match &lo {
        Some((k, true)) => Bound::Included(&k[..]),
        Some((k, false)) => Bound::Excluded(&k[..]),
        None if prefix.is_empty() => Bound::Unbounded,
        None => Bound::Included(&prefix[..]),
    };
    let hi_b = match &hi {
        Some((k, true)) => Bound::Included(&k[..]),
        Some((k, false)) => Bound::Excluded(&k[..]),
        None if prefix.is_empty() => Bound::Unbounded,
        None => Bound::Included(&prefix[..]),
    };
    let mut rows = storage.index_scan(&index.index, lo_b, hi_b, &snap);
    if lo.is_some() && hi.is_none() && !prefix.is_empty() {
        // The lower bound's prefix semantics already stop at the prefix.
        rows.retain(|t| index.index.key_of(&t.data).starts_with(&prefix));
    }
    Ok(rows)
}

/// Key values must have the column's own type to compare as the index
/// does (integers of other widths compare by value already).
fn cast_key(
    ec: &nestor_types::EvalCtx,
    v: Value,
    table: &nestor_catalog::TableDef,
    index: &nestor_catalog::IndexDef,
    i: usize,
) -> Result<Value, DbError> {
    let ty = table.columns[index.columns[i]].ty;
    if ty.is_integer() && valops::as_i64(&v).is_some() {
        return Ok(v);
    }
    match (&v, ty) {
        (Value::Text(_), DataType::Text | DataType::Varchar(_)) => Ok(v),
        _ => valops::cast(v, ty, true, ec),
    }
}

fn run_function(
    func: TableFunc,
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
        TableFunc::Unnest => Err(DbError::unsupported("unnest")),
    }
}

fn materialize_cached(id: usize, plan: &Plan, ev: &mut Ev) -> Result<Arc<Vec<Row>>, DbError> {
    if let Some(r) = ev.cache.get(&id) {
        return Ok(r.clone());
    }
    let mut rows = Vec::new();
    run(plan, ev, &[], &mut |_, row| {
        rows.push(row);
        Ok(true)
    })?;
    let rows = Arc::new(rows);
    ev.cache.insert(id, rows.clone());
    Ok(rows)
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

/// Evaluate a subquery expression on `row` (a row of the enclosing level).
pub fn eval_subquery(s: &SubQuery, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let lhs = match &s.kind {
        SubKind::Any { lhs, .. } => Some(lhs.eval(row, ev)?),
        _ => None,
    };
    if !s.correlated {
        let rows = materialize_cached(s.id, &s.plan, ev)?;
        return sub_result(s, lhs, rows.iter().map(|r| r.as_slice()), &ev.ctx.eval);
    }
    let saved_len = ev.outer.len();
    if ev.outer.len() <= s.level {
        ev.outer.resize(s.level + 1, Vec::new());
    }
    let saved = std::mem::replace(&mut ev.outer[s.level], row.to_vec());
    let mut rows: Vec<Row> = Vec::new();
    let limit = match s.kind {
        SubKind::Exists => 1,
        SubKind::Scalar => 2,
        SubKind::Any { .. } => usize::MAX,
    };
    let r = run(&s.plan, ev, &[], &mut |_, r| {
        rows.push(r);
        Ok(rows.len() < limit)
    });
    ev.outer[s.level] = saved;
    ev.outer.truncate(saved_len.max(s.level));
    if saved_len <= s.level {
        ev.outer.truncate(saved_len);
    }
    r?;
    sub_result(s, lhs, rows.iter().map(|r| r.as_slice()), &ev.ctx.eval)
}

fn sub_result<'r>(
    s: &SubQuery,
    lhs: Option<Value>,
    mut rows: impl Iterator<Item = &'r [Value]>,
    ec: &nestor_types::EvalCtx,
) -> Result<Value, DbError> {
    match &s.kind {
        SubKind::Exists => Ok(Value::Bool(rows.next().is_some())),
        SubKind::Scalar => {
            let first = rows.next();
            if rows.next().is_some() {
                return Err(DbError::new(
                    SqlState::CardinalityViolation,
                    "more than one row returned by a subquery used as an expression",
                ));
            }
            Ok(first.map_or(Value::Null, |r| r[0].clone()))
        }
        SubKind::Any { op, all, .. } => {
            let x = lhs.unwrap_or(Value::Null);
            let mut unknown = false;
            let mut any_row = false;
            for r in rows {
                any_row = true;
                let y = &r[0];
                if x.is_null() || y.is_null() {
                    unknown = true;
                    continue;
                }
                let holds = op.holds(valops::compare(&x, y, ec));
                if holds && !*all {
                    return Ok(Value::Bool(true));
                }
                if !holds && *all {
                    return Ok(Value::Bool(false));
                }
            }
            if !any_row {
                return Ok(Value::Bool(*all));
            }
            Ok(if unknown {
                Value::Null
            } else {
                Value::Bool(*all)
            })
        }
    }
}

/// Running state of one aggregate in one group.
#[derive(Clone)]
enum Acc {
    Count(i64),
    Sum(Option<Value>, DataType),
    Avg(Option<Value>, i64),
    MinMax(Option<Value>, bool),
    Bool(Option<bool>, bool),
    Str(Option<String>),
}

fn acc_new(c: &AggCall) -> Acc {
    match c.func {
        AggFunc::CountStar | AggFunc::Count => Acc::Count(0),
        AggFunc::Sum => Acc::Sum(None, c.ty),
        AggFunc::Avg => Acc::Avg(None, 0),
        AggFunc::Min => Acc::MinMax(None, false),
        AggFunc::Max => Acc::MinMax(None, true),
        AggFunc::BoolAnd => Acc::Bool(None, true),
        AggFunc::BoolOr => Acc::Bool(None, false),
        AggFunc::StringAgg => Acc::Str(None),
    }
}

fn sum_type(v: &Value, result: DataType) -> DataType {
    match v {
        Value::Float4(_) | Value::Float8(_) => result,
        _ if result == DataType::Int8 => DataType::Int8,
        _ => DataType::NUMERIC,
    }
}

fn acc_add(acc: &mut Acc, v: Value, ec: &nestor_types::EvalCtx) -> Result<(), DbError> {
    if v.is_null() {
        return Ok(());
    }
    match acc {
        Acc::Count(n) => *n += 1,
        Acc::Sum(s, ty) => {
            let t = sum_type(&v, *ty);
            let v = valops::cast(v, t, true, ec)?;
            *s = Some(match s.take() {
                None => v,
                Some(x) => valops::arith(valops::Arith::Add, &x, &v, ec)?,
            });
        }
        Acc::Avg(s, n) => {
            let t = if matches!(v, Value::Float4(_) | Value::Float8(_)) {
                DataType::Float8
            } else {
                DataType::NUMERIC
            };
            let v = valops::cast(v, t, true, ec)?;
            *s = Some(match s.take() {
                None => v,
                Some(x) => valops::arith(valops::Arith::Add, &x, &v, ec)?,
            });
            *n += 1;
        }
        Acc::MinMax(m, max) => {
            let better = match m {
                None => true,
                Some(cur) => {
                    let o = valops::compare(&v, cur, ec);
                    if *max {
                        o.is_gt()
                    } else {
                        o.is_lt()
                    }
                }
            };
            if better {
                *m = Some(v);
            }
        }
        Acc::Bool(b, and) => {
            let x = truthy(&v).unwrap_or(*and);
            *b = Some(match b {
                None => x,
                Some(y) => {
                    if *and {
                        *y && x
                    } else {
                        *y || x
                    }
                }
            });
        }
        Acc::Str(s) => {
            // The bound argument is concat(value, delimiter).
            let t = valops::to_text(&v, ec).unwrap_or_default();
            match s {
                None => *s = Some(t),
                Some(cur) => cur.push_str(&t),
            }
        }
    }
    Ok(())
}

fn acc_finish(acc: Acc, call: &AggCall, ec: &nestor_types::EvalCtx) -> Result<Value, DbError> {
    Ok(match acc {
        Acc::Count(n) => Value::Int8(n),
        Acc::Sum(s, _) => s.unwrap_or(Value::Null),
        Acc::Avg(None, _) => Value::Null,
        Acc::Avg(Some(s), n) => {
            let t = if matches!(s, Value::Float8(_)) {
                DataType::Float8
            } else {
                DataType::NUMERIC
            };
            let d = valops::cast(Value::Int8(n), t, true, ec)?;
            valops::arith(valops::Arith::Div, &s, &d, ec)?
        }
        Acc::MinMax(m, _) => m.unwrap_or(Value::Null),
        Acc::Bool(b, _) => b.map_or(Value::Null, Value::Bool),
        Acc::Str(s) => {
            // Drop the trailing delimiter added by the argument.
            let sep = match &call.arg {
                Some(Expr::Func(_, a)) => match a.get(1) {
                    Some(Expr::Const(v)) => valops::to_text(v, ec).unwrap_or_default(),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            match s {
                None => Value::Null,
                Some(mut x) => {
                    if !sep.is_empty() && x.ends_with(&sep) {
                        x.truncate(x.len() - sep.len());
                    }
                    Value::Text(x.into())
                }
            }
        }
    })
}

struct Group {
    accs: Vec<Acc>,
    seen: Vec<Option<HashSet<Value>>>,
}

fn run_aggregate(
    input: &Plan,
    group: &[Expr],
    aggs: &[nestor_plan::ir::AggSpec],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut groups: std::collections::HashMap<Row, usize> = std::collections::HashMap::new();
    let mut order: Vec<(Row, Group)> = Vec::new();
    let new_group = || Group {
        accs: aggs.iter().map(|a| acc_new(&a.call)).collect(),
        seen: aggs
            .iter()
            .map(|a| a.call.distinct.then(HashSet::new))
            .collect(),
    };
    run(input, ev, param, &mut |ev, row| {
        let mut key = Vec::with_capacity(group.len());
        for g in group {
            key.push(g.eval(&row, ev)?);
        }
        let nk = distinct_key(&key);
        let gi = match groups.get(&nk) {
            Some(&i) => i,
            None => {
                order.push((key, new_group()));
                groups.insert(nk, order.len() - 1);
                order.len() - 1
            }
        };
        let g = &mut order[gi].1;
        for (i, a) in aggs.iter().enumerate() {
            let v = match &a.call.arg {
                None => Value::Bool(true),
                Some(e) => e.eval(&row, ev)?,
            };
            if let Some(seen) = &mut g.seen[i] {
                if v.is_null() || !seen.insert(v.clone()) {
                    continue;
                }
            }
            acc_add(&mut g.accs[i], v, &ev.ctx.eval)?;
        }
        Ok(true)
    })?;
    if order.is_empty() && group.is_empty() {
        order.push((Vec::new(), new_group()));
    }
    for (key, g) in order {
        let mut row = key;
        for (acc, a) in g.accs.into_iter().zip(aggs) {
            row.push(acc_finish(acc, &a.call, &ev.ctx.eval)?);
        }
        if !emit(ev, row)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn run_setop(
    left: &Plan,
    right: &Plan,
    intersect: bool,
    all: bool,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut counts: std::collections::HashMap<Row, i64> = std::collections::HashMap::new();
    run(right, ev, param, &mut |_, row| {
        *counts.entry(distinct_key(&row)).or_insert(0) += 1;
        Ok(true)
    })?;
    let mut emitted: HashSet<Row> = HashSet::new();
    run(left, ev, param, &mut |ev, row| {
        let k = distinct_key(&row);
        let c = counts.get(&k).copied().unwrap_or(0);
        let keep = if all {
            let keep = if intersect { c > 0 } else { c <= 0 };
            if let Some(x) = counts.get_mut(&k) {
                *x -= 1;
            }
            keep
        } else {
            let keep = if intersect { c > 0 } else { c == 0 };
            keep && emitted.insert(k)
        };
        if keep {
            emit(ev, row)
        } else {
            Ok(true)
        }
    })
}

/// Lock the rows of `targets` in `row`; returns the row to emit (with the
/// newest versions swapped in) or None to skip it.
fn lock_row(
    ev: &mut Ev,
    mut row: Row,
    targets: &[LockTarget],
    mode: nestor_txn::LockMode,
    policy: nestor_txn::WaitPolicy,
    recheck: Option<&Expr>,
) -> Result<Option<Row>, DbError> {
    for t in targets {
        let ncols = t.table.columns.len();
        let rid = match &row[t.offset + ncols] {
            Value::Int8(r) => nestor_common::RowId(*r as u64),
            _ => continue, // NULL-extended side of an outer join
        };
        let mut recheck_mode = Recheck::Snapshot;
        loop {
            let snap = ev.ctx.snapshot;
            let res = t
                .table
                .storage
                .lock_row(
                    ev.ctx.txn,
                    rid,
                    mode,
                    policy,
                    &snap,
                    &ev.ctx.wait,
                    recheck_mode,
                )
                .map_err(|e| e.into_db(&|v| valops::render(v, &ev.ctx.eval)))?;
            match res {
                LockResult::Locked => break,
                LockResult::Skipped | LockResult::Gone => return Ok(None),
                LockResult::Changed(newest) => {
                    for (i, v) in newest.iter().enumerate() {
                        row[t.offset + i] = v.clone();
                    }
                    if let Some(r) = recheck {
                        if !r.test(&row, ev)? {
                            return Ok(None);
                        }
                    }
                    recheck_mode = Recheck::Latest;
                }
            }
        }
    }
    Ok(Some(row))
}
