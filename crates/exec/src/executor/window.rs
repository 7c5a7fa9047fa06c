//! Window functions: the input is materialized, and each call sorts the
//! rows by its (PARTITION BY, ORDER BY) keys and walks the partitions:
//!
//! ```text
//!   rows sorted by (dept, salary)   row_number  rank  sum(salary) (default frame)
//!   a  10                           1           1     10
//!   a  20                           2           2     40   <- peers (20, 20)
//!   a  20                           3           2     40      share the frame end
//!   b  5                            1           1     5
//! ```
//!
//! Ranking functions read peer groups (rows equal on ORDER BY); lag/lead
//! read positions; aggregates and first/last/nth_value read the frame.
//! Frames that start at UNBOUNDED PRECEDING are computed incrementally (a
//! running aggregate per partition); others — ROWS with offsets — fold
//! each row's frame anew. Rows come out in the order of the last call's
//! window, as PostgreSQL's WindowAgg leaves them.
//!
//! Memory: the rows and their keys are charged to the statement's working
//! memory (53200 past it), as a sort's are.

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{AggCall, AggOrder, FrameBound, Plan, WinCall, WinFrame, WinFunc};
use nestor_plan::valops;
use nestor_types::Value;

use super::aggregate::{acc_add, acc_finish, acc_new};
use super::eval::Eval;
use super::{emit_all, Emit, Row};
use crate::context::Ev;
use crate::workmem::entry_bytes;

pub(super) fn run_window(
    input: &Plan,
    calls: &[WinCall],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut held = 0;
    let r = super::collect_charged(input, ev, param, "window", &mut held)
        .and_then(|rows| compute(rows, calls, ev, &mut held));
    let r = match r {
        Ok(rows) => emit_all(rows.into_iter(), ev, emit),
        Err(e) => Err(e),
    };
    ev.mem.release(held);
    r
}

/// Every call's column appended to every row; rows in the last call's
/// window order.
fn compute(
    mut rows: Vec<Row>,
    calls: &[WinCall],
    ev: &mut Ev,
    held: &mut usize,
) -> Result<Vec<Row>, DbError> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    for call in calls {
        // (partition keys, order keys) of every row.
        let mut keys: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(rows.len());
        for row in &rows {
            let mut p = Vec::with_capacity(call.partition.len());
            for e in &call.partition {
                p.push(e.eval(row, ev)?);
            }
            let mut o = Vec::with_capacity(call.order.len());
            for k in &call.order {
                o.push(k.key.eval(row, ev)?);
            }
            let bytes = entry_bytes(&p) + entry_bytes(&o);
            ev.mem.charge(bytes, "window")?;
            *held += bytes;
            keys.push((p, o));
        }
        let ec = ev.ctx.eval;
        order = (0..rows.len()).collect();
        order.sort_by(|&a, &b| {
            partition_cmp(&keys[a].0, &keys[b].0, &ec)
                .then_with(|| order_cmp(&keys[a].1, &keys[b].1, &call.order, &ec))
        });
        let mut results = vec![Value::Null; rows.len()];
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len()
                && partition_cmp(&keys[order[start]].0, &keys[order[end]].0, &ec).is_eq()
            {
                end += 1;
            }
            let part = &order[start..end];
            let peers_of = |i: usize, j: usize| {
                order_cmp(&keys[part[i]].1, &keys[part[j]].1, &call.order, &ec).is_eq()
            };
            let values = partition_values(call, part, &rows, peers_of, ev)?;
            for (k, v) in values.into_iter().enumerate() {
                results[part[k]] = v;
            }
            start = end;
        }
        for (row, v) in rows.iter_mut().zip(results) {
            row.push(v);
        }
    }
    let mut slots: Vec<Option<Row>> = rows.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .map(|i| slots[i].take().expect("each row once"))
        .collect())
}

fn partition_cmp(a: &[Value], b: &[Value], ec: &nestor_types::EvalCtx) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => valops::compare(x, y, ec),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

fn order_cmp(a: &[Value], b: &[Value], keys: &[AggOrder], ec: &nestor_types::EvalCtx) -> Ordering {
    for ((x, y), k) in a.iter().zip(b).zip(keys) {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) if k.nulls_first => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if k.nulls_first => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) if k.desc => valops::compare(y, x, ec),
            (false, false) => valops::compare(x, y, ec),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The call's value for each row of one partition (`part`: row indexes
/// in window order).
fn partition_values(
    call: &WinCall,
    part: &[usize],
    rows: &[Row],
    peers: impl Fn(usize, usize) -> bool,
    ev: &mut Ev,
) -> Result<Vec<Value>, DbError> {
    let n = part.len();
    // Peer groups: the last position of each row's group.
    let mut group_end = vec![0; n];
    let mut group_start = vec![0; n];
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && peers(i, j) {
            j += 1;
        }
        for k in i..j {
            group_start[k] = i;
            group_end[k] = j - 1;
        }
        i = j;
    }
    let arg = |k: usize, a: usize, ev: &mut Ev| -> Result<Value, DbError> {
        call.args[a].eval(&rows[part[k]], ev)
    };
    let mut out = Vec::with_capacity(n);
    match call.func {
        WinFunc::RowNumber => out.extend((1..=n as i64).map(Value::Int8)),
        WinFunc::Rank => out.extend((0..n).map(|k| Value::Int8(group_start[k] as i64 + 1))),
        WinFunc::DenseRank => {
            let mut rank = 0i64;
            for (k, start) in group_start.iter().enumerate() {
                if k == *start {
                    rank += 1;
                }
                out.push(Value::Int8(rank));
            }
        }
        WinFunc::PercentRank => out.extend((0..n).map(|k| {
            Value::Float8(if n > 1 {
                group_start[k] as f64 / (n - 1) as f64
            } else {
                0.0
            })
        })),
        WinFunc::CumeDist => {
            out.extend((0..n).map(|k| Value::Float8((group_end[k] + 1) as f64 / n as f64)))
        }
        WinFunc::Ntile => {
            for k in 0..n {
                let buckets = match arg(k, 0, ev)? {
                    Value::Null => {
                        out.push(Value::Null);
                        continue;
                    }
                    v => v.as_i64().unwrap_or(0),
                };
                if buckets <= 0 {
                    return Err(DbError::new(
                        SqlState::InvalidArgumentForNtileFunction,
                        "argument of ntile must be greater than zero",
                    ));
                }
                out.push(Value::Int4(ntile(k, n, buckets as usize) as i32));
            }
        }
        WinFunc::Lag | WinFunc::Lead => {
            for k in 0..n {
                let offset = if call.args.len() > 1 {
                    match arg(k, 1, ev)? {
                        Value::Null => {
                            out.push(Value::Null);
                            continue;
                        }
                        v => v.as_i64().unwrap_or(1),
                    }
                } else {
                    1
                };
                let target = if call.func == WinFunc::Lag {
                    k as i64 - offset
                } else {
                    k as i64 + offset
                };
                out.push(if (0..n as i64).contains(&target) {
                    arg(target as usize, 0, ev)?
                } else if call.args.len() > 2 {
                    arg(k, 2, ev)?
                } else {
                    Value::Null
                });
            }
        }
        WinFunc::FirstValue | WinFunc::LastValue | WinFunc::NthValue => {
            for k in 0..n {
                let (lo, hi) = frame(&call.frame, k, n, &group_start, &group_end, ev)?;
                let pick = match call.func {
                    WinFunc::FirstValue => (lo < hi).then_some(lo),
                    WinFunc::LastValue => (lo < hi).then(|| hi - 1),
                    _ => {
                        let nth = match arg(k, 1, ev)? {
                            Value::Null => {
                                out.push(Value::Null);
                                continue;
                            }
                            v => v.as_i64().unwrap_or(0),
                        };
                        if nth <= 0 {
                            return Err(DbError::new(
                                SqlState::InvalidArgumentForNthValueFunction,
                                "argument of nth_value must be greater than zero",
                            ));
                        }
                        let at = lo + nth as usize - 1;
                        (at < hi).then_some(at)
                    }
                };
                out.push(match pick {
                    Some(p) => arg(p, 0, ev)?,
                    None => Value::Null,
                });
            }
        }
        WinFunc::Agg(func) => {
            let agg = AggCall {
                func,
                arg: None,
                delimiter: call.args.get(1).and_then(|d| match d {
                    nestor_plan::ir::Expr::Const(v) => Some(v.clone()),
                    _ => None,
                }),
                distinct: false,
                ty: call.ty,
                order: Vec::new(),
                filter: None,
            };
            let ec = ev.ctx.eval;
            let input = |k: usize, ev: &mut Ev| -> Result<Value, DbError> {
                if call.args.is_empty() {
                    // count(*): every row counts.
                    Ok(Value::Bool(true))
                } else {
                    arg(k, 0, ev)
                }
            };
            if matches!(call.frame.start, FrameBound::UnboundedPreceding) {
                // Running: the frame only grows.
                let mut acc = acc_new(&agg);
                let mut fed = 0;
                for k in 0..n {
                    let (_, hi) = frame(&call.frame, k, n, &group_start, &group_end, ev)?;
                    while fed < hi {
                        let v = input(fed, ev)?;
                        acc_add(&mut acc, v, &ec)?;
                        fed += 1;
                    }
                    out.push(acc_finish(acc.clone(), &ec)?);
                }
            } else {
                for k in 0..n {
                    let (lo, hi) = frame(&call.frame, k, n, &group_start, &group_end, ev)?;
                    let mut acc = acc_new(&agg);
                    for f in lo..hi {
                        let v = input(f, ev)?;
                        acc_add(&mut acc, v, &ec)?;
                    }
                    out.push(acc_finish(acc, &ec)?);
                }
            }
        }
    }
    Ok(out)
}

/// Bucket of row `k` of `n` split into `buckets` as even as possible (the
/// first `n % buckets` buckets one larger), 1-based.
fn ntile(k: usize, n: usize, buckets: usize) -> usize {
    if buckets >= n {
        return k + 1;
    }
    let small = n / buckets;
    let big = n % buckets;
    let big_rows = big * (small + 1);
    if k < big_rows {
        k / (small + 1) + 1
    } else {
        big + (k - big_rows) / small + 1
    }
}

/// The frame of row `k` as positions `lo..hi` of the partition.
fn frame(
    f: &WinFrame,
    k: usize,
    n: usize,
    group_start: &[usize],
    group_end: &[usize],
    ev: &mut Ev,
) -> Result<(usize, usize), DbError> {
    let offset = |e: &nestor_plan::ir::Expr, ev: &mut Ev| -> Result<usize, DbError> {
        match e.eval(&[], ev)? {
            Value::Null => Err(DbError::new(
                SqlState::NullValueNotAllowed,
                "frame starting offset must not be null",
            )),
            v => {
                let x = v.as_i64().unwrap_or(0);
                if x < 0 {
                    return Err(DbError::new(
                        SqlState::InvalidPrecedingOrFollowingSize,
                        "frame starting offset must not be negative",
                    ));
                }
                Ok(x.min(n as i64) as usize)
            }
        }
    };
    let lo = match &f.start {
        FrameBound::UnboundedPreceding => 0,
        FrameBound::CurrentRow if f.rows => k,
        FrameBound::CurrentRow => group_start[k],
        FrameBound::Preceding(e) => k.saturating_sub(offset(e, ev)?),
        FrameBound::Following(e) => (k + offset(e, ev)?).min(n),
        FrameBound::UnboundedFollowing => n,
    };
    let hi = match &f.end {
        FrameBound::UnboundedFollowing => n,
        FrameBound::CurrentRow if f.rows => k + 1,
        FrameBound::CurrentRow => group_end[k] + 1,
        FrameBound::Preceding(e) => (k + 1).saturating_sub(offset(e, ev)?),
        FrameBound::Following(e) => (k + 1 + offset(e, ev)?).min(n),
        FrameBound::UnboundedPreceding => 0,
    };
    Ok((lo, hi.max(lo)))
}

#[cfg(test)]
mod tests {
    use super::ntile;

    #[test]
    fn ntile_splits_as_postgresql() {
        let b: Vec<usize> = (0..10).map(|k| ntile(k, 10, 3)).collect();
        assert_eq!(b, vec![1, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
        let b: Vec<usize> = (0..3).map(|k| ntile(k, 3, 5)).collect();
        assert_eq!(b, vec![1, 2, 3]);
    }
}
