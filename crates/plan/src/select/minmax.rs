//! MIN and MAX read from an index (PostgreSQL's planagg.c).
//!
//! `SELECT max(id) FROM t` needs one row: the last non-NULL entry of an
//! index on `id`. When every aggregate of an ungrouped query over one
//! table is min or max of a column some btree index orders, the
//! aggregation's input becomes, per aggregate, the first row of an index
//! scan in that aggregate's direction:
//!
//! ```text
//!   SELECT min(a), max(a) FROM t WHERE b > 0
//!
//!   Aggregate                               Aggregate
//!     -> Seq Scan on t              =>        -> Append
//!          Filter: (b > 0)                         -> Limit 1
//!                                                    -> Index Scan using t_a on t
//!                                                         Filter: ((a IS NOT NULL) AND (b > 0))
//!                                                  -> Limit 1
//!                                                    -> Index Scan Backward using t_a on t
//!                                                         Filter: ((a IS NOT NULL) AND (b > 0))
//! ```
//!
//! The aggregates still run, over at most one row per aggregate: min(a)
//! over rows that include the table's (WHERE-qualified) row of least
//! non-NULL `a` is that `a`, whatever the other rows hold, so the answer is
//! the full scan's. An empty table or no qualifying row gives no rows and
//! min/max NULL, as before. PostgreSQL prints the same idea as a Result
//! over one InitPlan per aggregate.
//!
//! Only plain shapes are rewritten: the input a table scan (perhaps under
//! a filter), each aggregate min/max of a column with no DISTINCT, FILTER
//! or ORDER BY. Anything else (joins, partitioned tables, expressions
//! without an index, count alongside) keeps the full aggregation.

use nestor_types::Value;

use crate::ir::{AggCall, AggFunc, AggSpec, Expr, Plan, SortKey};

/// The input for `aggs` read through indexes, or the input unchanged
/// (`Err`) when some aggregate has no index to read.
pub(super) fn index_input(
    catalog: &nestor_catalog::Catalog,
    input: Plan,
    aggs: &[AggSpec],
) -> Result<Plan, Plan> {
    let Some(keys) = aggs
        .iter()
        .map(|a| sort_key(&a.call))
        .collect::<Option<Vec<_>>>()
    else {
        return Err(input);
    };
    if keys.is_empty() || copy_scan(&input).is_none() {
        return Err(input);
    }
    let mut arms = Vec::with_capacity(keys.len());
    for key in keys {
        let scan = copy_scan(&input).expect("checked above");
        let not_null = Expr::IsNull(Box::new(key.expr.clone()), true);
        let scan = add_filter(scan, not_null);
        // NULLs are filtered out, so either placement of them serves:
        // the usual one first, then the other (an index declared
        // `DESC NULLS LAST`), as planagg's two build_minmax_path calls.
        let other = SortKey {
            nulls_first: !key.nulls_first,
            ..key.clone()
        };
        let ordered = super::access::index_ordered(catalog, scan, std::slice::from_ref(&key), true)
            .or_else(|scan| {
                super::access::index_ordered(catalog, scan, std::slice::from_ref(&other), true)
            });
        match ordered {
            Ok(ordered) => arms.push(Plan::Limit {
                input: Box::new(ordered),
                limit: Some(Expr::Const(Value::Int8(1))),
                offset: None,
                ties: Vec::new(),
            }),
            Err(_) => return Err(input),
        }
    }
    Ok(match arms.len() {
        1 => arms.pop().expect("one arm"),
        _ => Plan::Append { inputs: arms },
    })
}

/// The order whose first row is `call`'s answer: ascending for min
/// (NULLs last), descending for max (NULLs first, skipped by the
/// `IS NOT NULL` filter); None for any other aggregate.
fn sort_key(call: &AggCall) -> Option<SortKey> {
    let desc = match call.func {
        AggFunc::Min => false,
        AggFunc::Max => true,
        _ => return None,
    };
    if call.distinct || call.filter.is_some() || !call.order.is_empty() || call.user.is_some() {
        return None;
    }
    match &call.arg {
        Some(e @ Expr::Col(_)) => Some(SortKey {
            expr: e.clone(),
            desc,
            nulls_first: desc,
        }),
        _ => None,
    }
}

/// `scan` (a shape [`copy_scan`] takes) filtering on `pred` first.
fn add_filter(mut scan: Plan, pred: Expr) -> Plan {
    match &mut scan {
        Plan::Filter { input, .. } => {
            let inner = std::mem::replace(&mut **input, Plan::Single);
            **input = add_filter(inner, pred);
        }
        Plan::SeqScan { filter, .. } | Plan::IndexScan { filter, .. } => {
            *filter = super::and_all([pred].into_iter().chain(filter.take()).collect());
        }
        _ => return super::with_filter(scan, vec![pred]),
    }
    scan
}

/// A copy of a plain table scan (perhaps under a filter): the shapes the
/// rewrite reads; None for anything else.
fn copy_scan(plan: &Plan) -> Option<Plan> {
    Some(match plan {
        Plan::Filter { input, pred } => Plan::Filter {
            input: Box::new(copy_scan(input)?),
            pred: pred.clone(),
        },
        Plan::SeqScan {
            table,
            alias,
            filter,
            cols: None,
            late: None,
        } => Plan::SeqScan {
            table: table.clone(),
            alias: alias.clone(),
            filter: filter.clone(),
            cols: None,
            late: None,
        },
        Plan::IndexScan {
            table,
            alias,
            index,
            keys,
            filter,
            cols: None,
            order,
        } => Plan::IndexScan {
            table: table.clone(),
            alias: alias.clone(),
            index: index.clone(),
            keys: keys.clone(),
            filter: filter.clone(),
            cols: None,
            order: *order,
        },
        _ => return None,
    })
}
