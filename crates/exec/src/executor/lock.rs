//! Row locking for SELECT ... FOR UPDATE/SHARE (the LockRows operator),
//! with PostgreSQL's EvalPlanQual under READ COMMITTED.

use nestor_common::DbError;
use nestor_plan::ir::{Expr, LockTarget, Plan, SYS_COLS};
use nestor_plan::valops;
use nestor_storage::{LockResult, Recheck};
use nestor_types::Value;

use super::eval::Eval;
use super::{run, Emit, Row};
use crate::context::Ev;

/// Lock the rows of `targets` in `row`; returns the row to emit (with the
/// newest versions swapped in) or None to skip it.
/// The LockRows operator: lock each input row's target rows, re-checking
/// them on newer versions (EvalPlanQual); rows that no longer qualify are
/// skipped.
pub(super) fn run_lock_rows(
    plan: &Plan,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let Plan::LockRows {
        input,
        targets,
        mode,
        policy,
        recheck,
    } = plan
    else {
        return Err(DbError::internal("run_lock_rows on another operator"));
    };
    run(input, ev, param, &mut |ev, row| match lock_row(
        ev,
        row,
        targets,
        *mode,
        *policy,
        recheck.as_ref(),
    )? {
        Some(row) => emit(ev, row),
        None => Ok(true),
    })
}

fn lock_row(
    ev: &mut Ev,
    mut row: Row,
    targets: &[LockTarget],
    mode: nestor_txn::LockMode,
    policy: nestor_txn::WaitPolicy,
    recheck: Option<&Expr>,
) -> Result<Option<Row>, DbError> {
    for t in targets {
        // A lock is an entry in the lock table: it takes memory as a write
        // does, so it passes the memory budget too.
        nestor_common::memory::check_write()?;
        let ncols = t.table.columns.len();
        let rid = match &row[t.offset + ncols] {
            Value::Int8(r) => nestor_common::RowId(*r as u64),
            _ => continue, // NULL-extended side of an outer join
        };
        // An inheritance tree's row: the member it came from.
        let (table, map) = if t.members.is_empty() {
            (&t.table, None)
        } else {
            let oid = match &row[t.offset + ncols + SYS_COLS] {
                Value::Int8(o) => *o as u32,
                _ => continue,
            };
            match t.members.iter().find(|(m, _)| m.oid.0 == oid) {
                Some((m, map)) => (m, Some(map)),
                None => return Err(DbError::internal("locked row of an unknown member")),
            }
        };
        let mut recheck_mode = Recheck::Snapshot;
        loop {
            let snap = ev.ctx.snapshot;
            let res = table
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
                    match map {
                        None => {
                            for (i, v) in newest.iter().enumerate() {
                                row[t.offset + i] = v.clone();
                            }
                        }
                        // A member's row, onto the tree's columns.
                        Some(map) => {
                            for (i, at) in map.iter().enumerate() {
                                row[t.offset + i] = at
                                    .and_then(|j| newest.get(j).cloned())
                                    .unwrap_or(Value::Null);
                            }
                        }
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
