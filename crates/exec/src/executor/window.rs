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
//! A frame is computed per row as positions `lo..hi` of the partition,
//! minus what EXCLUDE takes out (the current row, its peer group, or the
//! peers but not itself): ROWS offsets count positions, GROUPS offsets
//! peer groups, and RANGE offsets are added to (subtracted from) the
//! current row's ORDER BY value with PostgreSQL's in_range rules
//! ([`in_range`]), the frame's head and tail moving forward only, as in
//! nodeWindowAgg.c. Aggregates over frames that start at UNBOUNDED
//! PRECEDING and exclude nothing are computed incrementally (a running
//! aggregate per partition); others fold each row's frame anew. Rows come
//! out in the order of the last call's window, as PostgreSQL's WindowAgg
//! leaves them.
//!
//! Memory: the rows and their keys are charged to the statement's working
//! memory (53200 past it), as a sort's are.

use std::cmp::Ordering;

use nestor_common::sort::pg_qsort;
use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{
    AggCall, AggOrder, Expr, FrameBound, FrameExclude, FrameMode, Plan, WinCall, WinFunc,
};
use nestor_plan::valops;
use nestor_types::Value;

use super::aggregate::{acc_done, acc_new, acc_step};
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
        // Each call sorts the previous call's output, as each WindowAgg's
        // Sort reads the one below it (a call already in order, such as a
        // second function over the same window, is left as it is).
        pg_qsort(&mut order, |&a, &b| {
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
            let first_key = |i: usize| keys[part[i]].1.first();
            let values = partition_values(call, part, &rows, peers_of, first_key, ev)?;
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

/// Keys in ascending order, NULLs last (PARTITION BY's, and the groups
/// of an aggregate that sorts them).
pub(super) fn partition_cmp(a: &[Value], b: &[Value], ec: &nestor_types::EvalCtx) -> Ordering {
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
fn partition_values<'a>(
    call: &WinCall,
    part: &[usize],
    rows: &[Row],
    peers: impl Fn(usize, usize) -> bool,
    first_key: impl Fn(usize) -> Option<&'a Value>,
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
            let frames = frames(call, n, &group_start, &group_end, &first_key, ev)?;
            for (k, fr) in frames.iter().enumerate() {
                let pick = match call.func {
                    WinFunc::FirstValue => fr.positions().next(),
                    WinFunc::LastValue => fr.positions().next_back(),
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
                        fr.positions().nth(nth as usize - 1)
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
                direct: Vec::new(),
                user: call.user.clone(),
            };
            // FILTER: the rows it keeps out of every frame.
            let mut filtered_out = vec![false; if call.filter.is_some() { n } else { 0 }];
            if let Some(cond) = &call.filter {
                for (k, out) in filtered_out.iter_mut().enumerate() {
                    *out = !cond.test(&rows[part[k]], ev)?;
                }
            }
            let input = |k: usize, ev: &mut Ev| -> Result<Option<Value>, DbError> {
                if filtered_out.get(k) == Some(&true) {
                    return Ok(None);
                }
                if call.args.is_empty() {
                    // count(*): every row counts.
                    Ok(Some(Value::Bool(true)))
                } else {
                    arg(k, 0, ev).map(Some)
                }
            };
            let frames = frames(call, n, &group_start, &group_end, &first_key, ev)?;
            if matches!(call.frame.start, FrameBound::UnboundedPreceding)
                && call.frame.exclude == FrameExclude::NoOthers
            {
                // Running: the frame only grows.
                let mut acc = acc_new(&agg);
                let mut fed = 0;
                for fr in &frames {
                    while fed < fr.hi {
                        if let Some(v) = input(fed, ev)? {
                            acc_step(&mut acc, v, ev)?;
                        }
                        fed += 1;
                    }
                    out.push(acc_done(acc.clone(), ev)?);
                }
            } else {
                for fr in &frames {
                    let mut acc = acc_new(&agg);
                    for f in fr.positions() {
                        if let Some(v) = input(f, ev)? {
                            acc_step(&mut acc, v, ev)?;
                        }
                    }
                    out.push(acc_done(acc, ev)?);
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

/// One row's frame: positions `lo..hi` of the partition except
/// `skip.0..skip.1` (EXCLUDE), but `keep` (EXCLUDE TIES keeps the row).
struct Frame {
    lo: usize,
    hi: usize,
    skip: (usize, usize),
    keep: Option<usize>,
}

impl Frame {
    fn positions(&self) -> impl DoubleEndedIterator<Item = usize> + '_ {
        (self.lo..self.hi)
            .filter(move |&p| p < self.skip.0 || p >= self.skip.1 || Some(p) == self.keep)
    }
}

/// A frame offset's value (ROWS and GROUPS: a count; RANGE: the value
/// in_range adds), checked as nodeWindowAgg does.
fn offset_value(e: &Expr, start: bool, mode: FrameMode, ev: &mut Ev) -> Result<Value, DbError> {
    let which = if start { "starting" } else { "ending" };
    let v = e.eval(&[], ev)?;
    if v.is_null() {
        return Err(DbError::new(
            SqlState::NullValueNotAllowed,
            format!("frame {which} offset must not be null"),
        ));
    }
    // (A RANGE offset is checked by in_range, as it is used.)
    if mode != FrameMode::Range && v.as_i64().is_some_and(|x| x < 0) {
        return Err(DbError::new(
            SqlState::InvalidPrecedingOrFollowingSize,
            format!("frame {which} offset must not be negative"),
        ));
    }
    Ok(v)
}

/// Every row's frame in one partition of `n` rows (`first_key`: a row's
/// first ORDER BY value, which RANGE offsets apply to).
fn frames<'a>(
    call: &WinCall,
    n: usize,
    group_start: &[usize],
    group_end: &[usize],
    first_key: &impl Fn(usize) -> Option<&'a Value>,
    ev: &mut Ev,
) -> Result<Vec<Frame>, DbError> {
    let f = &call.frame;
    let bound = |b: &FrameBound, start: bool, ev: &mut Ev| -> Result<Option<Value>, DbError> {
        match b {
            FrameBound::Preceding(e) | FrameBound::Following(e) => {
                offset_value(e, start, f.mode, ev).map(Some)
            }
            _ => Ok(None),
        }
    };
    let start_off = bound(&f.start, true, ev)?;
    let end_off = bound(&f.end, false, ev)?;
    let count = |v: &Option<Value>| v.as_ref().and_then(Value::as_i64).unwrap_or(0).max(0) as u64;
    let (so, eo) = (count(&start_off), count(&end_off));
    let clamp = |x: u64| x.min(n as u64) as usize;
    // GROUPS: the peer groups' first positions, and each row's group.
    let mut group_of = vec![0usize; n];
    let mut starts = Vec::new();
    if f.mode == FrameMode::Groups {
        for k in 0..n {
            if group_start[k] == k {
                starts.push(k);
            }
            group_of[k] = starts.len() - 1;
        }
    }
    let groups = starts.len() as u64;
    let group_first = |g: u64| if g >= groups { n } else { starts[g as usize] };
    let group_last_excl = |g: u64| {
        if g + 1 >= groups {
            n
        } else {
            starts[g as usize + 1]
        }
    };
    let order = call.order.first();
    let asc = order.is_none_or(|o| !o.desc);
    let nulls_first = order.is_some_and(|o| o.nulls_first);
    let ec = ev.ctx.eval;
    let (mut head, mut tail) = (0usize, 0usize);
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let lo = match (&f.start, f.mode) {
            (FrameBound::UnboundedPreceding, _) => 0,
            (FrameBound::UnboundedFollowing, _) => n,
            (FrameBound::CurrentRow, FrameMode::Rows) => k,
            (FrameBound::CurrentRow, _) => group_start[k],
            (FrameBound::Preceding(_), FrameMode::Rows) => k.saturating_sub(clamp(so)),
            (FrameBound::Following(_), FrameMode::Rows) => clamp(k as u64 + so),
            (FrameBound::Preceding(_), FrameMode::Groups) => {
                group_first((group_of[k] as u64).saturating_sub(so))
            }
            (FrameBound::Following(_), FrameMode::Groups) => {
                group_first((group_of[k] as u64).saturating_add(so))
            }
            (FrameBound::Preceding(_) | FrameBound::Following(_), FrameMode::Range) => {
                // The first row at or past current ± offset.
                let sub = matches!(f.start, FrameBound::Preceding(_)) == asc;
                let less = !asc;
                let off = start_off.as_ref().expect("an offset");
                let curr = first_key(k).unwrap_or(&Value::Null);
                while head < n {
                    let h = first_key(head).unwrap_or(&Value::Null);
                    let found = if h.is_null() || curr.is_null() {
                        if nulls_first {
                            !h.is_null() || curr.is_null()
                        } else {
                            h.is_null() || !curr.is_null()
                        }
                    } else {
                        in_range(h, curr, off, sub, less, &ec)?
                    };
                    if found {
                        break;
                    }
                    head += 1;
                }
                head
            }
        };
        let hi = match (&f.end, f.mode) {
            (FrameBound::UnboundedFollowing, _) => n,
            (FrameBound::UnboundedPreceding, _) => 0,
            (FrameBound::CurrentRow, FrameMode::Rows) => k + 1,
            (FrameBound::CurrentRow, _) => group_end[k] + 1,
            (FrameBound::Preceding(_), FrameMode::Rows) => (k + 1).saturating_sub(clamp(eo)),
            (FrameBound::Following(_), FrameMode::Rows) => clamp(k as u64 + 1 + eo),
            (FrameBound::Preceding(_), FrameMode::Groups) => {
                let g = group_of[k] as u64;
                if g < eo {
                    0
                } else {
                    group_last_excl(g - eo)
                }
            }
            (FrameBound::Following(_), FrameMode::Groups) => {
                group_last_excl((group_of[k] as u64).saturating_add(eo).min(groups - 1))
            }
            (FrameBound::Preceding(_) | FrameBound::Following(_), FrameMode::Range) => {
                // One past the last row at or before current ± offset.
                let sub = matches!(f.end, FrameBound::Preceding(_)) == asc;
                let less = asc;
                let off = end_off.as_ref().expect("an offset");
                let curr = first_key(k).unwrap_or(&Value::Null);
                while tail < n {
                    let t = first_key(tail).unwrap_or(&Value::Null);
                    let past = if t.is_null() || curr.is_null() {
                        if nulls_first {
                            !t.is_null()
                        } else {
                            !curr.is_null()
                        }
                    } else {
                        !in_range(t, curr, off, sub, less, &ec)?
                    };
                    if past {
                        break;
                    }
                    tail += 1;
                }
                tail
            }
        };
        let (skip, keep) = match f.exclude {
            FrameExclude::NoOthers => ((0, 0), None),
            FrameExclude::CurrentRow => ((k, k + 1), None),
            FrameExclude::Group => ((group_start[k], group_end[k] + 1), None),
            FrameExclude::Ties => ((group_start[k], group_end[k] + 1), Some(k)),
        };
        out.push(Frame {
            lo,
            hi: hi.max(lo),
            skip,
            keep,
        });
    }
    Ok(out)
}

fn invalid_size() -> DbError {
    DbError::new(
        SqlState::InvalidPrecedingOrFollowingSize,
        "invalid preceding or following size in window function",
    )
}

/// PostgreSQL's in_range support functions: whether `val` is `<=`
/// (`less`) or `>=` `base - offset` (`sub`) or `base + offset`. Integers
/// compute without overflow, floats and numerics order NaN above all and
/// treat infinite offsets as PostgreSQL does, a time's sum does not wrap
/// around midnight, dates and timestamps add the interval as `+` does.
pub(crate) fn in_range(
    val: &Value,
    base: &Value,
    offset: &Value,
    sub: bool,
    less: bool,
    ec: &nestor_types::EvalCtx,
) -> Result<bool, DbError> {
    use std::cmp::Ordering::*;
    let decide = |o: Ordering| if less { o != Greater } else { o != Less };
    if let (Some(v), Some(b), Some(off)) = (val.as_i64(), base.as_i64(), offset.as_i64()) {
        if off < 0 {
            return Err(invalid_size());
        }
        let sum = if sub {
            b as i128 - off as i128
        } else {
            b as i128 + off as i128
        };
        return Ok(decide((v as i128).cmp(&sum)));
    }
    if let (Some(v), Some(b), Some(off)) = (val.as_f64(), base.as_f64(), offset.as_f64()) {
        if off.is_nan() || off < 0.0 {
            return Err(invalid_size());
        }
        if v.is_nan() {
            return Ok(if b.is_nan() { true } else { !less });
        }
        if b.is_nan() {
            return Ok(less);
        }
        if off.is_infinite() && b.is_infinite() && (if sub { b > 0.0 } else { b < 0.0 }) {
            return Ok(true);
        }
        let sum = if sub { b - off } else { b + off };
        return Ok(if less { v <= sum } else { v >= sum });
    }
    match (val, base, offset) {
        (Value::Numeric(v), Value::Numeric(b), Value::Numeric(off)) => {
            let zero = nestor_types::Numeric::zero();
            if off.is_nan() || off < &zero {
                return Err(invalid_size());
            }
            if v.is_nan() {
                return Ok(if b.is_nan() { true } else { !less });
            }
            if b.is_nan() {
                return Ok(less);
            }
            let inf = |x: &nestor_types::Numeric| {
                *x == nestor_types::Numeric::infinity(false)
                    || *x == nestor_types::Numeric::infinity(true)
            };
            if inf(off) && inf(b) && (if sub { b > &zero } else { b < &zero }) {
                return Ok(true);
            }
            let sum = valops::arith(
                if sub {
                    nestor_plan::valops::Arith::Sub
                } else {
                    nestor_plan::valops::Arith::Add
                },
                base,
                offset,
                ec,
            )?;
            Ok(decide(valops::compare(val, &sum, ec)))
        }
        (Value::Time(v), Value::Time(b), Value::Interval(off)) => {
            if off.span() < 0 {
                return Err(invalid_size());
            }
            let sum = if sub {
                *b as i128 - off.micros as i128
            } else {
                *b as i128 + off.micros as i128
            };
            Ok(decide((*v as i128).cmp(&sum)))
        }
        // in_range_timetz_interval: the base's time moved without
        // wrapping, in the base's zone, compared as timetz_cmp does.
        (Value::TimeTz(v, vz), Value::TimeTz(b, bz), Value::Interval(off)) => {
            if off.span() < 0 {
                return Err(invalid_size());
            }
            let sum = if sub {
                *b as i128 - off.micros as i128
            } else {
                *b as i128 + off.micros as i128
            };
            let utc = |t: i128, z: i32| t + z as i128 * 1_000_000;
            let ord = utc(*v as i128, *vz).cmp(&utc(sum, *bz)).then(vz.cmp(bz));
            Ok(decide(ord))
        }
        (_, _, Value::Interval(off)) => {
            if off.span() < 0 {
                return Err(invalid_size());
            }
            let op = if sub {
                nestor_plan::valops::Arith::Sub
            } else {
                nestor_plan::valops::Arith::Add
            };
            let sum = valops::arith(op, base, offset, ec)?;
            Ok(decide(valops::compare(val, &sum, ec)))
        }
        _ => Err(DbError::internal("RANGE offset of an unexpected type")),
    }
}

#[cfg(test)]
mod tests {
    use super::{in_range, ntile};
    use nestor_types::datetime::Interval;
    use nestor_types::{EvalCtx, Numeric, Value};

    #[test]
    fn in_range_as_postgresql() {
        let ec = EvalCtx::utc_now();
        let ir = |v: Value, b: Value, o: Value, sub, less| in_range(&v, &b, &o, sub, less, &ec);
        // 3 >= 5 - 2, 4 <= 2 + 1 is false; integers do not overflow.
        assert!(ir(Value::Int4(3), Value::Int4(5), Value::Int8(2), true, false).unwrap());
        assert!(!ir(Value::Int4(4), Value::Int4(2), Value::Int8(1), false, true).unwrap());
        assert!(ir(
            Value::Int8(i64::MAX),
            Value::Int8(i64::MAX),
            Value::Int8(i64::MAX),
            false,
            true
        )
        .unwrap());
        assert!(ir(Value::Int4(1), Value::Int4(1), Value::Int8(-1), true, false).is_err());
        // NaN sorts above everything; an infinite offset reaches -infinity.
        let f = Value::Float8;
        assert!(ir(f(f64::NAN), f(1.0), f(1.0), false, true).is_ok_and(|b| !b));
        assert!(ir(f(f64::NAN), f(f64::NAN), f(1.0), false, true).unwrap());
        assert!(ir(
            f(f64::NEG_INFINITY),
            f(f64::NEG_INFINITY),
            f(f64::INFINITY),
            false,
            false
        )
        .unwrap());
        assert!(ir(f(1.0), f(1.0), f(f64::NAN), true, false).is_err());
        let n = |s: &str| Value::Numeric(Numeric::parse(s).unwrap());
        assert!(ir(n("2.5"), n("1"), n("1.5"), false, true).unwrap());
        assert!(ir(n("1"), n("1"), n("NaN"), true, false).is_err());
        // time sums do not wrap around midnight; dates add intervals.
        let hour = Value::Interval(Interval::new(0, 0, 3_600_000_000));
        assert!(!ir(
            Value::Time(0),
            Value::Time(23 * 3_600_000_000),
            hour.clone(),
            false,
            false
        )
        .unwrap());
        assert!(ir(
            Value::Date(1),
            Value::Date(0),
            Value::Interval(Interval::new(0, 1, 0)),
            false,
            true
        )
        .unwrap());
        assert!(ir(
            Value::Date(1),
            Value::Date(0),
            Value::Interval(Interval::new(0, -1, 0)),
            false,
            true
        )
        .is_err());
    }

    #[test]
    fn ntile_splits_as_postgresql() {
        let b: Vec<usize> = (0..10).map(|k| ntile(k, 10, 3)).collect();
        assert_eq!(b, vec![1, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
        let b: Vec<usize> = (0..3).map(|k| ntile(k, 3, 5)).collect();
        assert_eq!(b, vec![1, 2, 3]);
    }
}
