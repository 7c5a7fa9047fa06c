//! SELECT DISTINCT ON (exprs): of the rows in ORDER BY order, the first of
//! each value of `exprs`.
//!
//! The expressions (output column names and positions allowed, as in
//! ORDER BY) are bound over the input row, like ORDER BY keys without
//! DISTINCT, and go through aggregation and window rewriting with them.
//! They must be the leftmost ORDER BY items, in any order (PostgreSQL's
//! 42P10 otherwise); the ones ORDER BY lacks are appended to it, and
//! without ORDER BY the input is sorted by them. The plan keeps them as
//! hidden output columns for the duplicate test and drops them after:
//!
//! ```text
//!   SELECT DISTINCT ON (dept) id FROM emp ORDER BY dept, salary DESC
//!   Sort (dept, salary DESC) -> Project (id, dept)
//!     -> DistinctOn (key: column 1) -> Project (id)
//! ```

use super::*;

/// Bind the DISTINCT ON list and check it against (and complete) the
/// ORDER BY keys `sort` (over the input row).
pub(super) fn bind_distinct_on(
    b: &mut Binder,
    sel: &pb::SelectStmt,
    targets: &[Target],
    sort: &mut Vec<SortKey>,
) -> Result<Vec<Expr>, DbError> {
    let out_cols: Vec<OutCol> = targets.iter().map(|t| t.col.clone()).collect();
    let mut exprs = Vec::with_capacity(sel.distinct_clause.len());
    let mut locations = Vec::with_capacity(sel.distinct_clause.len());
    for n in &sel.distinct_clause {
        let e = match output_ref(b, n, &out_cols)? {
            Some(i) => targets[i].expr.clone(),
            None => b.bind(n)?.0,
        };
        locations.push(n.node.as_ref().map_or(-1, bind::expr_location));
        exprs.push(e);
    }
    let mismatch = |loc: i32| {
        err_at(
            DbError::new(
                SqlState::InvalidColumnReference,
                "SELECT DISTINCT ON expressions must match initial ORDER BY expressions",
            ),
            b.text,
            loc,
        )
    };
    // ORDER BY items that are DISTINCT ON expressions must all come before
    // the first that is not.
    let mut skipped = false;
    for k in sort.iter() {
        match exprs.iter().position(|e| *e == k.expr) {
            Some(i) if skipped => return Err(mismatch(locations[i])),
            Some(_) => {}
            None => skipped = true,
        }
    }
    for (e, loc) in exprs.iter().zip(&locations) {
        if sort.iter().any(|k| k.expr == *e) {
            continue;
        }
        if skipped {
            return Err(mismatch(*loc));
        }
        sort.push(SortKey {
            expr: e.clone(),
            desc: false,
            nulls_first: false,
        });
    }
    Ok(exprs)
}

/// `plan` (producing the select list `exprs`, sorted) reduced to the first
/// row of each DISTINCT ON key.
pub(super) fn plan_distinct_on(plan: Plan, exprs: Vec<Expr>, keys: Vec<Expr>, sets: bool) -> Plan {
    let width = exprs.len();
    let key_cols = (width..width + keys.len()).map(Expr::Col).collect();
    let mut all = exprs;
    all.extend(keys);
    let input = if sets {
        Plan::ProjectSet {
            input: Box::new(plan),
            exprs: all,
        }
    } else {
        Plan::Project {
            input: Box::new(plan),
            exprs: all,
        }
    };
    Plan::Project {
        input: Box::new(Plan::DistinctOn {
            input: Box::new(input),
            keys: key_cols,
        }),
        exprs: (0..width).map(Expr::Col).collect(),
    }
}
