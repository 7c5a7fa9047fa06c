//! RIGHT and FULL joins, LATERAL subqueries and DISTINCT ON.
//!
//! A RIGHT or FULL join reads its right side once into memory with a
//! "matched" flag per row, then loops over the left side as a nested
//! loop does; after the last left row, the right rows no left row matched
//! come out NULL-extended on the left. For `l FULL JOIN r ON l.id = r.id`
//! with l = {1, 2} and r = {2, 3}:
//!
//! ```text
//!   left 1: no match        -> (1, NULL)        (FULL only)
//!   left 2: matches r's 2   -> (2, 2)           r[0] matched
//!   end:    r[1] unmatched  -> (NULL, 3)
//! ```
//!
//! A LATERAL subquery is the inner side of a nested loop whose parameter
//! row (the current left row) becomes the subquery's outer row, as a
//! correlated subquery's enclosing row does; its rows are collected before
//! they are emitted, so the outer row is restored before anything above
//! runs. DISTINCT ON keeps the first row of each key in input order (the
//! planner sorts the input by ORDER BY first).

use nestor_common::DbError;
use nestor_plan::ir::{Expr, JoinKind, Plan};
use nestor_types::Value;

use super::eval::Eval;
use super::{emit_all, run, Emit, Row};
use crate::context::Ev;
use crate::workmem::entry_bytes;

/// Run `plan` to completion with `param`, charging its rows to `what`.
pub(super) fn collect_charged(
    plan: &Plan,
    ev: &mut Ev,
    param: &[Value],
    what: &'static str,
    held: &mut usize,
) -> Result<Vec<Row>, DbError> {
    let mut rows = Vec::new();
    run(plan, ev, param, &mut |ev, row| {
        let bytes = entry_bytes(&row);
        ev.mem.charge(bytes, what)?;
        *held += bytes;
        rows.push(row);
        Ok(true)
    })?;
    Ok(rows)
}

/// A RIGHT or FULL join (see the module header).
pub(super) fn right_or_full_join(
    (left, left_width): (&Plan, usize),
    (right, right_width): (&Plan, usize),
    kind: JoinKind,
    on: Option<&Expr>,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut held = 0;
    let r = (|| {
        let rrows = collect_charged(right, ev, param, "join", &mut held)?;
        let mut matched = vec![false; rrows.len()];
        let go = run(left, ev, param, &mut |ev, lrow| {
            let mut any = false;
            for (i, rrow) in rrows.iter().enumerate() {
                let mut row = Vec::with_capacity(lrow.len() + rrow.len());
                row.extend(lrow.iter().cloned());
                row.extend(rrow.iter().cloned());
                if let Some(p) = on {
                    if !p.test(&row, ev)? {
                        continue;
                    }
                }
                any = true;
                matched[i] = true;
                if !emit(ev, row)? {
                    return Ok(false);
                }
            }
            if !any && kind == JoinKind::Full {
                let mut row = lrow;
                row.extend(std::iter::repeat_n(Value::Null, right_width));
                return emit(ev, row);
            }
            Ok(true)
        })?;
        if !go {
            return Ok(false);
        }
        let unmatched = rrows
            .into_iter()
            .zip(matched)
            .filter(|(_, m)| !m)
            .map(|(rrow, _)| {
                let mut row = vec![Value::Null; left_width];
                row.extend(rrow);
                row
            });
        emit_all(unmatched, ev, emit)
    })();
    ev.mem.release(held);
    r
}

/// `Plan::LateralSubquery`: the subquery's rows for the outer row
/// `param`, which begins at `pad` in the level's row. Before it: the
/// enclosing LATERAL join's row (`from::lateral_join` in the planner), as
/// far as it goes, else NULLs (columns the subquery cannot refer to).
pub(super) fn lateral_subquery(
    plan: &Plan,
    level: usize,
    pad: usize,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut outer = Vec::with_capacity(pad + param.len());
    if let Some(enclosing) = ev.outer.get(level) {
        outer.extend_from_slice(&enclosing[..pad.min(enclosing.len())]);
    }
    outer.resize(pad, Value::Null);
    outer.extend_from_slice(param);
    let saved_len = ev.outer.len();
    if saved_len <= level {
        ev.outer.resize(level + 1, Vec::new());
    }
    let saved = std::mem::replace(&mut ev.outer[level], outer);
    let mut held = 0;
    let rows = collect_charged(plan, ev, &[], "LATERAL subquery", &mut held);
    ev.outer[level] = saved;
    if saved_len <= level {
        ev.outer.truncate(saved_len);
    }
    let r = rows.and_then(|rows| emit_all(rows.into_iter(), ev, emit));
    ev.mem.release(held);
    r
}

/// `Plan::DistinctOn`: the first row of each key, in input order.
pub(super) fn distinct_on(
    input: &Plan,
    keys: &[Expr],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    super::first_per_key(input, ev, param, emit, "DISTINCT ON", &mut |row, ev| {
        let mut key = Vec::with_capacity(keys.len());
        for k in keys {
            key.push(k.eval(row, ev)?);
        }
        Ok(super::distinct_key(&key))
    })
}
