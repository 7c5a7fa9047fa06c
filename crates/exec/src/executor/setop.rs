//! INTERSECT and EXCEPT [ALL]: the right side is counted by row, the left
//! side streamed against the counts.

use std::collections::{HashMap, HashSet};

use nestor_common::DbError;
use nestor_plan::ir::Plan;
use nestor_types::Value;

use super::{distinct_key, run, Emit, Row};
use crate::context::Ev;
use crate::workmem::entry_bytes;

pub(super) fn run_setop(
    left: &Plan,
    right: &Plan,
    intersect: bool,
    all: bool,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let what = if intersect { "INTERSECT" } else { "EXCEPT" };
    let mut counts: HashMap<Row, i64> = HashMap::new();
    let mut held = 0;
    let r = setop_inner(
        left,
        right,
        intersect,
        all,
        ev,
        param,
        emit,
        &mut counts,
        &mut held,
        what,
    );
    ev.mem.release(held);
    r
}

#[allow(clippy::too_many_arguments)]
fn setop_inner(
    left: &Plan,
    right: &Plan,
    intersect: bool,
    all: bool,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
    counts: &mut HashMap<Row, i64>,
    held: &mut usize,
    what: &str,
) -> Result<bool, DbError> {
    run(right, ev, param, &mut |ev, row| {
        let key = distinct_key(&row);
        if let Some(c) = counts.get_mut(&key) {
            *c += 1;
        } else {
            let bytes = entry_bytes(&key);
            ev.mem.charge(bytes, what)?;
            *held += bytes;
            counts.insert(key, 1);
        }
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
            if keep && !emitted.contains(&k) {
                let bytes = entry_bytes(&k);
                ev.mem.charge(bytes, what)?;
                *held += bytes;
                emitted.insert(k);
                true
            } else {
                false
            }
        };
        if keep {
            emit(ev, row)
        } else {
            Ok(true)
        }
    })
}
