//! INTERSECT and EXCEPT [ALL]: the right side is counted by row, the left
//! side streamed against the counts.

use std::collections::{HashMap, HashSet};

use nestor_common::DbError;
use nestor_plan::ir::Plan;
use nestor_types::Value;

use super::{distinct_key, run, Emit, Row};
use crate::context::Ev;

pub(super) fn run_setop(
    left: &Plan,
    right: &Plan,
    intersect: bool,
    all: bool,
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut counts: HashMap<Row, i64> = HashMap::new();
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
