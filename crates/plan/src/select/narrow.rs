//! Scans that decode only the columns their query reads.
//!
//! A stored row is one byte buffer (`storage/src/codec.rs`); turning it
//! into values costs per column (an allocation per string). PostgreSQL
//! deforms a tuple only up to the last attribute a plan needs. Here a scan
//! whose rows go straight into a projection or an aggregate is told which
//! columns those read, and the others come out NULL without being decoded:
//!
//! ```text
//!   SELECT abalance FROM pgbench_accounts WHERE aid = $1
//!   Project [Col(2)]                      reads column 2
//!     IndexScan pgbench_accounts_pkey     key column 0, no filter
//!   => cols = [true, false, true, false]  (aid, bid, abalance, filler)
//!
//!   SELECT count(*) FROM contend WHERE id BETWEEN $1 AND $2
//!   Aggregate count(*)                    reads nothing
//!     IndexScan contend_pkey              key column 0
//!   => cols = [true, false]
//! ```
//!
//! Those same two consumers only read their input rows, so the executor
//! runs a sequential scan under them with one reused row buffer
//! (`exec/src/executor/scan.rs`): the mask also says which slots of that
//! buffer are rewritten per row.
//!
//! The rule is deliberately narrow, so that what reads a row is always
//! known: only a Project or Aggregate directly over a SeqScan/IndexScan,
//! in a query (not UPDATE/DELETE, which write whole rows back), and never
//! when one of its expressions or the scan's filter holds a subquery (a
//! correlated one reads the row by position from inside its own plan,
//! where this walk does not look). The system columns after the table's
//! are always there. Anything else keeps every column.
//!
//! Second, wherever a sequential scan sits, if its filter reads fewer
//! columns than the scan decodes, it decodes in two steps (`LateCols`):
//! the filter's columns for every visible row, the rest only for the rows
//! that pass, as PostgreSQL's qual sees a tuple deformed up to the last
//! attribute the qual needs:
//!
//! ```text
//!   SELECT * FROM pgbench_accounts WHERE aid % 100000 = 0
//!   SeqScan, cols: all  =>  late: filter [aid], rest [bid, abalance, filler]
//! ```

//!
//! Third, a subquery's outputs that the query above never reads are not
//! computed (PostgreSQL's remove_unused_subquery_outputs): going down from
//! the query's output through projections, filters, sorts and limits, a
//! projection item nothing above reads becomes NULL unless it is volatile,
//! so `SELECT q1 FROM (SELECT q1, (SELECT ...) AS unused FROM t) ss` never
//! runs the inner subquery (nor fails on its second row).

use std::sync::Arc;

use crate::ir::{Expr, LateCols, Plan};

/// Narrow every scan of `plan` that the rule above allows, and let
/// sequential scans decode their filter's columns first.
pub(crate) fn narrow_scans(plan: &mut Plan) {
    if let Plan::SeqScan { .. } = plan {
        // Its consumer (this walk's previous step) has narrowed it.
        filter_first(plan);
        return;
    }
    let used = match &*plan {
        Plan::Project { exprs, .. } => read_columns(exprs.iter()),
        Plan::Aggregate { group, aggs, .. } => {
            let mut args: Vec<&Expr> = group.iter().collect();
            for a in aggs {
                let call = &a.call;
                args.extend(call.arg.iter());
                args.extend(call.order.iter().map(|o| &o.key));
                args.extend(call.filter.iter());
            }
            read_columns(args.into_iter())
        }
        _ => None,
    };
    if let (Some(used), Plan::Project { input, .. } | Plan::Aggregate { input, .. }) =
        (used, &mut *plan)
    {
        narrow(input, used);
    }
    for child in plan.children_mut() {
        narrow_scans(child);
    }
}

/// The items of the projections under the query's top that nothing
/// reads become NULL (see the module header), unless computing them has
/// side effects: `width` is the query's output width; the walk goes down
/// through projections, filters, sorts and limits, adding what each reads.
pub(crate) fn drop_unused_outputs(plan: &mut Plan, width: usize) {
    let mut used: Vec<usize> = (0..width).collect();
    let mut at = plan;
    loop {
        let reads = match &mut *at {
            Plan::Project { exprs, .. } => {
                for (i, e) in exprs.iter_mut().enumerate() {
                    if !used.contains(&i) && !volatile(e) {
                        *e = Expr::Const(nestor_types::Value::Null);
                    }
                }
                used.clear();
                read_columns(exprs.iter())
            }
            Plan::Filter { pred, .. } => read_columns(std::iter::once(&*pred)),
            Plan::Sort { keys, .. } => read_columns(keys.iter().map(|k| &k.expr)),
            Plan::Limit { ties, .. } => read_columns(ties.iter().map(|k| &k.expr)),
            _ => return,
        };
        let Some(reads) = reads else {
            return;
        };
        used.extend(reads);
        at = match at {
            Plan::Project { input, .. }
            | Plan::Filter { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Limit { input, .. } => input,
            _ => return,
        };
    }
}

/// Whether evaluating `e` may change something or give another value
/// each time: a volatile or set-returning function in it, or in a
/// subquery it runs (a plan this walk cannot see through counts as one).
fn volatile(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| match x {
        Expr::Func(f, _) => found |= f.is_volatile() || matches!(f, crate::functions::Func::Srf(_)),
        Expr::UserFunc(f, _) => found |= f.0.volatility == nestor_catalog::Volatility::Volatile,
        Expr::Sub(s) => found |= plan_volatile(&s.plan),
        _ => {}
    });
    found
}

/// [`volatile`] for every expression of a plan; true for nodes whose
/// expressions it does not list.
pub(crate) fn plan_volatile(plan: &Plan) -> bool {
    let any = |es: &mut dyn Iterator<Item = &Expr>| {
        let mut found = false;
        for e in es {
            found |= volatile(e);
        }
        found
    };
    let own = match plan {
        Plan::Single | Plan::Distinct { .. } | Plan::Append { .. } | Plan::SetOp { .. } => false,
        Plan::Values { rows } => any(&mut rows.iter().flatten()),
        Plan::SeqScan { filter, .. } => any(&mut filter.iter()),
        Plan::IndexScan { filter, keys, .. } => any(&mut filter
            .iter()
            .chain(keys.eq.iter())
            .chain(keys.in_list.iter().flatten())
            .chain(keys.in_array.iter())),
        Plan::HashedScan {
            key,
            build_filter,
            filter,
            ..
        } => any(&mut std::iter::once(key)
            .chain(build_filter.iter())
            .chain(filter.iter())),
        // A CTE's plan is not among the scan's inputs.
        Plan::CteScan { plan, .. } => plan_volatile(plan),
        Plan::Filter { pred, .. } => volatile(pred),
        Plan::Project { exprs, .. } => any(&mut exprs.iter()),
        Plan::NestedLoop { on, .. } => any(&mut on.iter()),
        Plan::Aggregate { group, aggs, .. } => {
            any(&mut group.iter())
                || aggs.iter().any(|a| {
                    a.call.user.is_some() || any(&mut a.call.arg.iter().chain(a.call.filter.iter()))
                })
        }
        Plan::Sort { keys, .. } => any(&mut keys.iter().map(|k| &k.expr)),
        Plan::Limit { limit, offset, .. } => any(&mut limit.iter().chain(offset.iter())),
        _ => true,
    };
    own || plan.children().into_iter().any(plan_volatile)
}

/// The input columns `exprs` read, or None when that is not known (a
/// subquery).
fn read_columns<'a>(exprs: impl Iterator<Item = &'a Expr>) -> Option<Vec<usize>> {
    let mut cols = Vec::new();
    let mut known = true;
    for e in exprs {
        e.walk(&mut |x| match x {
            Expr::Col(c) => cols.push(*c),
            Expr::Sub(_) => known = false,
            _ => {}
        });
    }
    known.then_some(cols)
}

/// Give a scan directly under the projection/aggregate its columns.
fn narrow(scan: &mut Plan, used: Vec<usize>) {
    let (table, filter, cols, keys) = match scan {
        Plan::SeqScan {
            table,
            filter,
            cols,
            ..
        } => (table, filter, cols, &[][..]),
        Plan::IndexScan {
            table,
            filter,
            cols,
            index,
            ..
        } => (table, filter, cols, &index.columns[..]),
        _ => return,
    };
    let Some(from_filter) = read_columns(filter.iter()) else {
        return;
    };
    let n = table.columns.len();
    let mut mask = vec![false; n];
    // Past the table's columns: the system columns, always decoded.
    for c in used
        .into_iter()
        .chain(from_filter)
        .chain(keys.iter().copied())
    {
        if let Some(m) = mask.get_mut(c) {
            *m = true;
        }
    }
    if mask.iter().all(|&m| m) {
        return;
    }
    *cols = Some(Arc::from(mask));
}

/// Give a sequential scan with a filter its two decoding steps (see the
/// module header) when the filter reads fewer columns than the scan
/// decodes: a row the filter drops then costs only its filter's columns
/// (`exec/src/executor/scan.rs`). As for narrowing, a filter holding a
/// subquery keeps the plain scan.
fn filter_first(scan: &mut Plan) {
    let Plan::SeqScan {
        table,
        filter: Some(filter),
        cols,
        late,
        ..
    } = scan
    else {
        return;
    };
    let Some(read) = read_columns(std::iter::once(&*filter)) else {
        return;
    };
    let n = table.columns.len();
    let mut first = vec![false; n];
    // Past the table's columns: the system columns, always there.
    for c in read.into_iter().filter(|&c| c < n) {
        first[c] = true;
    }
    let decoded = |c: usize| cols.as_ref().is_none_or(|m| m[c]);
    assert!(
        (0..n).all(|c| !first[c] || decoded(c)),
        "a narrowed scan decodes its filter's columns"
    );
    let rest: Vec<bool> = (0..n).map(|c| decoded(c) && !first[c]).collect();
    if rest.contains(&true) {
        *late = Some(Arc::new(LateCols {
            filter: Arc::from(first),
            rest: Arc::from(rest),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subqueries_make_the_columns_unknown() {
        assert_eq!(
            read_columns([Expr::Col(2), Expr::Col(0)].iter()),
            Some(vec![2, 0])
        );
        let sub = Expr::Sub(Arc::new(crate::ir::SubQuery {
            kind: crate::ir::SubKind::Exists,
            plan: Arc::new(Plan::Single),
            level: 0,
            correlated: true,
            id: 0,
            remap: None,
        }));
        assert_eq!(read_columns([Expr::Col(1), sub].iter()), None);
    }
}
