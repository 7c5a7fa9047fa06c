//! Subquery expressions: EXISTS, scalar and `op ANY/ALL` subqueries.
//! Uncorrelated ones run once per execution (cached by id); correlated ones
//! run per outer row, with that row visible to the subquery as its
//! enclosing level.

use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{SubKind, SubQuery};
use nestor_types::array::Array;
use nestor_types::Value;

use super::eval::Eval;
use super::{materialize_cached, run, Row};
use crate::context::Ev;
use crate::workmem::entry_bytes;

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
    // After aggregation: the row in the input layout it was bound against.
    let row = match &s.remap {
        Some(exprs) => exprs
            .iter()
            .map(|e| e.eval(row, ev))
            .collect::<Result<Vec<Value>, DbError>>()?,
        None => row.to_vec(),
    };
    let saved_len = ev.outer.len();
    if ev.outer.len() <= s.level {
        ev.outer.resize(s.level + 1, Vec::new());
    }
    let saved = std::mem::replace(&mut ev.outer[s.level], row);
    let mut rows: Vec<Row> = Vec::new();
    let limit = match s.kind {
        SubKind::Exists => 1,
        SubKind::Scalar => 2,
        SubKind::Any { .. } | SubKind::Array { .. } => usize::MAX,
    };
    let mut held = 0;
    let r = run(&s.plan, ev, &[], &mut |ev, r| {
        let bytes = entry_bytes(&r);
        ev.mem.charge(bytes, "subquery result")?;
        held += bytes;
        rows.push(r);
        Ok(rows.len() < limit)
    });
    ev.mem.release(held);
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
        SubKind::Any { op, all, .. } => Ok(crate::functions::quantified(
            &lhs.unwrap_or(Value::Null),
            *op,
            *all,
            rows.map(|r| &r[0]),
            ec,
        )),
        SubKind::Array { elem, of_arrays } => {
            let items = rows.map(|r| r[0].clone()).collect();
            if *of_arrays {
                return Ok(Array::stack(*elem, items)?.value());
            }
            Ok(Array::from_items(*elem, items).value())
        }
    }
}
