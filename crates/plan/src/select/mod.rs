//! Planning of queries (SELECT, VALUES, set operations, WITH).
//!
//! One pass per query level:
//!
//! ```text
//!   WITH ctes            -> CteScan leaves (materialized once per execution;
//!                           one reading an enclosing query's row, at each
//!                           scan); WITH RECURSIVE items in dependency order
//!                           and checked first (recursion.rs), SEARCH and
//!                           CYCLE as added columns (search_cycle.rs)
//!   FROM items           -> a join tree of leaves (tables, subqueries, VALUES,
//!                           functions, system views); the level's Scope is the
//!                           concatenation of their columns
//!   WHERE                -> conjuncts, pushed down the join tree as far as
//!                           they can go; at a table leaf they pick the index
//!   GROUP BY / aggregates-> Aggregate (output: group keys, then aggregates);
//!                           targets, HAVING and ORDER BY are rewritten on top;
//!                           with grouping sets GroupingSets (grouping.rs)
//!   ORDER BY             -> Sort on the input row (or the output for DISTINCT)
//!   FOR UPDATE           -> LockRows (re-checks WHERE on newer versions)
//!   targets              -> Project;  DISTINCT -> Distinct;  LIMIT -> Limit
//!   DISTINCT ON          -> sorted like ORDER BY, then DistinctOn (see
//!                           distinct_on.rs)
//! ```
//!
//! Joins are nested loops when the inner side is a table with an index on
//! a column the join condition equates with an expression of the outer
//! side: the inner side becomes a parameterized index scan (one O(log n)
//! lookup per outer row). Otherwise a join with an equality between its
//! sides is a hash join (hash_join.rs); the rest are plain nested loops.
//! Likewise a correlated subquery's table read through `col = outer value`
//! without an index is read once and looked up per outer row (a hashed
//! scan, hash_join.rs).

mod access;
mod clauses;
mod distinct_on;
mod from;
pub mod gin;
mod grouping;
mod hash_join;
pub mod index_expr;
pub(crate) mod inherit;
mod minmax;
pub(crate) mod narrow;
pub mod partition;
pub(crate) mod recursion;
pub mod rls;
mod search_cycle;

use std::sync::Arc;

use nestor_common::sort::pg_qsort;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_txn::{LockMode, WaitPolicy};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::bind::{self, err_at, node, relname, req, AggCtx, Binder, Cte, Scope, ScopeCol, WinCtx};
use crate::ir::{AggCall, Cmp, Expr, WinCall};
use crate::ir::{
    AggSpec, IndexKeys, IndexOrder, JoinKind, LockTarget, OutCol, Plan, RowsFromItem, SortKey,
    TableFunc, SYS_COLS,
};
use crate::valops;
use nestor_catalog::TableDef;

pub use access::conjuncts;
pub(crate) use access::{and_all, build, with_filter};
pub(crate) use clauses::bind_targets;
pub(crate) use clauses::derive_name;
pub(crate) use from::{add_table, plan_from_item, view_checked_as, From};
pub use from::{row_binder, table_scope};

use clauses::*;

/// Plan a query at a new nesting level. Sets `b.last_correlated`.
pub fn plan_query(b: &mut Binder, sel: &pb::SelectStmt) -> Result<(Plan, Vec<OutCol>), DbError> {
    let level = b.scopes.len();
    if let Some(enclosing) = level.checked_sub(1) {
        b.level_aggs.push((enclosing, b.agg));
    }
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let saved_null_extended = std::mem::take(&mut b.null_extended);
    let saved_join_depth = std::mem::take(&mut b.join_depth);
    let saved_agg = b.agg;
    let saved_srf = std::mem::replace(&mut b.srf_allowed, false);
    let ctes_len = b.ctes.len();
    let r = plan_select(b, sel);
    b.null_extended = saved_null_extended;
    b.join_depth = saved_join_depth;
    b.ctes.truncate(ctes_len);
    b.agg = saved_agg;
    b.srf_allowed = saved_srf;
    b.scopes.pop();
    if level > 0 {
        b.level_aggs.pop();
    }
    let refs = b.outer_refs.pop().flatten();
    b.last_correlated = refs.is_some_and(|m| m < level);
    b.last_outer_level = refs.filter(|&m| m < level);
    r
}

fn set_op(sel: &pb::SelectStmt) -> pb::SetOperation {
    pb::SetOperation::try_from(sel.op).unwrap_or(pb::SetOperation::SetopNone)
}

/// Plan a SELECT at the current level (its scope is the top of the stack,
/// empty on entry).
fn plan_select(b: &mut Binder, sel: &pb::SelectStmt) -> Result<(Plan, Vec<OutCol>), DbError> {
    if let Some(w) = &sel.with_clause {
        plan_with(b, w)?;
    }
    // A top-level SELECT INTO is CREATE TABLE AS before it gets here
    // (the session's `select_into`): any other INTO is misplaced.
    if let Some(into) = &sel.into_clause {
        let at = into.rel.as_ref().map_or(-1, |r| r.location);
        return Err(err_at(
            DbError::new(SqlState::SyntaxError, "SELECT ... INTO is not allowed here"),
            b.text,
            at,
        ));
    }
    match set_op(sel) {
        pb::SetOperation::SetopNone | pb::SetOperation::Undefined => {}
        op => return plan_setop(b, sel, op),
    }
    if !sel.values_lists.is_empty() {
        let (plan, cols) = plan_values(b, &sel.values_lists)?;
        return finish_simple_output(b, sel, plan, cols);
    }
    plan_simple(b, sel)
}

/// Plan a WITH clause's items, in order (WITH RECURSIVE: in the order
/// recursion.rs finds, each after the items it names).
fn plan_with(b: &mut Binder, w: &pb::WithClause) -> Result<(), DbError> {
    let order = if w.recursive {
        recursion::order(b.text, w)?
    } else {
        (0..w.ctes.len()).collect()
    };
    for i in order {
        let NodeEnum::CommonTableExpr(cte) = node(&w.ctes[i])? else {
            return Err(DbError::internal("WITH item is not a CTE"));
        };
        // Without RECURSIVE an item sees only the items before it: the
        // others' names, for the error that names one (from.rs).
        let hidden_len = b.hidden_ctes.len();
        if !w.recursive {
            for later in &w.ctes[i..] {
                if let Ok(NodeEnum::CommonTableExpr(c)) = node(later) {
                    b.hidden_ctes.push(c.ctename.clone());
                }
            }
        }
        let r = plan_cte(b, w.recursive, cte);
        b.hidden_ctes.truncate(hidden_len);
        r?;
    }
    Ok(())
}

/// Plan one SELECT item of a WITH clause and put it in scope. A
/// data-modifying item reaching it is not at the top level (those are
/// planned by with_modify.rs before the statement): PostgreSQL's
/// 0A000, at the item's name.
pub(crate) fn plan_cte(
    b: &mut Binder,
    recursive: bool,
    cte: &pb::CommonTableExpr,
) -> Result<(), DbError> {
    reject_merge_cte(b, cte)?;
    let NodeEnum::SelectStmt(sel) = node(req(&cte.ctequery)?)? else {
        return Err(err_at(
            DbError::new(
                SqlState::FeatureNotSupported,
                "WITH clause containing a data-modifying statement must be at the top level",
            ),
            b.text,
            cte.location,
        ));
    };
    let sc = search_cycle::SearchCycle::of(b, cte)?;
    // A CTE is planned as a sibling query: its own level.
    let recursive = if recursive {
        plan_recursive(
            b,
            &cte.ctename,
            &bind::names(&cte.aliascolnames),
            sel,
            sc.as_ref(),
        )?
    } else {
        None
    };
    let (plan, mut cols) = match (recursive, &sc) {
        (Some(p), _) => p,
        (None, None) => plan_query(b, sel)?,
        (None, Some(sc)) => {
            plan_query(b, sel)?;
            return Err(sc.not_recursive(b));
        }
    };
    let outer_level = b.last_outer_level;
    let alias = bind::names(&cte.aliascolnames);
    let own = cols.len() - sc.as_ref().map_or(0, |sc| sc.added());
    if alias.len() > own {
        return Err(err_at(
            DbError::new(
                SqlState::InvalidColumnReference,
                format!(
                    "WITH query \"{}\" has {own} columns available but {} columns specified",
                    cte.ctename,
                    alias.len()
                ),
            ),
            b.text,
            cte.location,
        ));
    }
    for (c, a) in cols.iter_mut().zip(alias) {
        c.name = a;
    }
    let id = b.fresh_id();
    let volatile = narrow::plan_volatile(&plan);
    b.ctes.push(Cte {
        name: cte.ctename.clone(),
        id,
        volatile,
        refs: 0,
        whole_first: Default::default(),
        plan: Arc::new(plan),
        cols,
        working: false,
        no_returning: false,
        level: b.level(),
        star_hidden: sc.as_ref().map_or(0, |sc| sc.added()),
        outer_level,
    });
    Ok(())
}

/// A CTE of WITH RECURSIVE that refers to itself: `init UNION [ALL]
/// step`, where `step` reads the working table under the CTE's name.
/// None when the query does not refer to itself (planned as usual).
/// With SEARCH or CYCLE clauses (`sc`) both sides get the columns they
/// add (search_cycle.rs).
fn plan_recursive(
    b: &mut Binder,
    name: &str,
    alias: &[String],
    sel: &pb::SelectStmt,
    sc: Option<&search_cycle::SearchCycle>,
) -> Result<Option<(Plan, Vec<OutCol>)>, DbError> {
    let op = set_op(sel);
    if op != pb::SetOperation::SetopUnion {
        return Ok(None);
    }
    let (Some(l), Some(r)) = (sel.larg.as_deref(), sel.rarg.as_deref()) else {
        return Ok(None);
    };
    if !sel.sort_clause.is_empty() || sel.limit_count.is_some() || sel.limit_offset.is_some() {
        return Err(DbError::unsupported(
            "ORDER BY, LIMIT or OFFSET in a recursive query",
        ));
    }
    // PostgreSQL's checkWellFormedRecursion refuses it; run, it would lock
    // each working-table row again at every step, without end.
    if !sel.locking_clause.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FOR UPDATE/SHARE in a recursive query is not implemented",
        ));
    }
    // On the recursive term alone it is a set operation's leaf.
    if let Some(l) = r.locking_clause.first() {
        return Err(locking_with_setop(l)?);
    }
    // A WITH clause atop the UNION (PostgreSQL accepts it; recursion.rs
    // has checked it does not name the query): in scope for both terms.
    let ctes_len = b.ctes.len();
    if let Some(w) = &sel.with_clause {
        plan_with(b, w)?;
    }
    let r = plan_recursive_terms(b, name, alias, sel, sc, (l, r));
    b.ctes.truncate(ctes_len);
    r
}

/// [`plan_recursive`] once its WITH clause is in scope.
fn plan_recursive_terms(
    b: &mut Binder,
    name: &str,
    alias: &[String],
    sel: &pb::SelectStmt,
    sc: Option<&search_cycle::SearchCycle>,
    (l, r): (&pb::SelectStmt, &pb::SelectStmt),
) -> Result<Option<(Plan, Vec<OutCol>)>, DbError> {
    let (init, mut cols) = plan_query(b, l)?;
    let init_outer = b.last_outer_level;
    for (c, a) in cols.iter_mut().zip(alias) {
        c.name = a.clone();
    }
    // SEARCH/CYCLE: the non-recursive term with the added columns, which
    // the working table has too (an error in the clauses waits for the
    // checks PostgreSQL makes first).
    let (mut extended, mut clause_err) = (None, None);
    match sc.map(|sc| sc.init_columns(b, &cols)) {
        Some(Ok(x)) => extended = Some(x),
        Some(Err(e)) => clause_err = Some(e),
        None => {}
    }
    let added = extended.as_ref().map_or(&[][..], |(_, a)| &a[..]);
    let step_query = sc.map(|sc| sc.step_query(r, extended.is_some()));
    let mut work_cols = cols.clone();
    work_cols.extend_from_slice(added);
    let work_id = b.fresh_id();
    let rq = step_query.as_ref().map_or(r, |s| &s.query);
    let (step, refs) =
        b.with_working_table(name.to_string(), work_id, (work_cols, added.len()), |b| {
            plan_query(b, rq)
        });
    let (step, step_cols) = step?;
    b.last_outer_level = match (init_outer, b.last_outer_level) {
        (Some(a), Some(s)) => Some(a.min(s)),
        (a, s) => a.or(s),
    };
    if refs == 0 {
        return Ok(None);
    }
    recursion::aggregate_in_recursive_term(b.text, r, name)?;
    let appended = match &step_query {
        Some(s) if s.extended => added.len(),
        _ => 0,
    };
    if step_cols.len() - appended != cols.len() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "each UNION query must have the same number of columns",
        ));
    }
    for (i, (c, s)) in cols.iter().zip(&step_cols).enumerate() {
        // The UNION's column is of the two terms' common type, with their
        // modifier when they agree (numeric(3,0) and numeric(10,0) give
        // numeric): it must be the non-recursive term's.
        let strings = c.ty.is_string() && s.ty.is_string();
        let typmods_differ = c.ty.typmod() != s.ty.typmod();
        if !strings && (c.ty.base() != s.ty.base() || typmods_differ) {
            let overall = bind::unify(c.ty, s.ty).unwrap_or(s.ty);
            let overall = if typmods_differ {
                overall.base()
            } else {
                overall
            };
            let loc = leaf_target(l, i).map_or(-1, |(n, _)| bind::expr_location(n));
            return Err(err_at(
                DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "recursive query \"{name}\" column {} has type {} in non-recursive term but type {} overall",
                        i + 1,
                        c.ty,
                        overall
                    ),
                )
                .with_hint("Cast the output of the non-recursive term to the correct type."),
                b.text,
                loc,
            ));
        }
    }
    // UNION (not ALL) dedups through a hash table in PostgreSQL: a
    // column of a type without a hash operator class (money) cannot.
    if !sel.all && cols.iter().any(|c| c.ty == DataType::Money) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "could not implement recursive UNION",
        )
        .with_detail("All column datatypes must be hashable."));
    }
    let (init, step) = match (sc, step_query, extended) {
        (Some(sc), Some(step_query), Some((exprs, added))) => {
            sc.check(sel, &step_query, clause_err)?;
            let names: Vec<String> = cols.iter().map(|c| c.name.clone()).collect();
            let step = sc.extend_step(b, step, &step_cols, &names)?;
            cols.extend(added);
            let init = Plan::Project {
                input: Box::new(init),
                exprs,
            };
            (init, step)
        }
        (Some(sc), Some(step_query), None) => {
            sc.check(sel, &step_query, clause_err)?;
            return Err(DbError::internal("SEARCH/CYCLE columns not planned"));
        }
        _ => (init, step),
    };
    let plan = Plan::RecursiveUnion {
        init: Box::new(init),
        step: Box::new(step),
        work_id,
        all: sel.all,
    };
    Ok(Some((plan, cols)))
}

fn plan_setop(
    b: &mut Binder,
    sel: &pb::SelectStmt,
    op: pb::SetOperation,
) -> Result<(Plan, Vec<OutCol>), DbError> {
    let l = sel
        .larg
        .as_deref()
        .ok_or_else(|| DbError::internal("set operation without left side"))?;
    let r = sel
        .rarg
        .as_deref()
        .ok_or_else(|| DbError::internal("set operation without right side"))?;
    if let Some(into) = &r.into_clause {
        let at = into.rel.as_ref().map_or(-1, |r| r.location);
        return Err(err_at(
            DbError::new(
                SqlState::SyntaxError,
                "INTO is only allowed on first SELECT of UNION/INTERSECT/EXCEPT",
            ),
            b.text,
            at,
        ));
    }
    let (lp, lc) = plan_query(b, l)?;
    let lcor = b.last_correlated;
    let (rp, rc) = plan_query(b, r)?;
    mark_correlation(b, lcor || b.last_correlated);
    let name = match op {
        pb::SetOperation::SetopUnion => "UNION",
        pb::SetOperation::SetopIntersect => "INTERSECT",
        _ => "EXCEPT",
    };
    if lc.len() != rc.len() {
        let loc = leaf_target(r, 0).map_or(-1, |(n, _)| bind::expr_location(n));
        return Err(err_at(
            DbError::new(
                SqlState::SyntaxError,
                format!("each {name} query must have the same number of columns"),
            ),
            b.text,
            loc,
        ));
    }
    let (cols, lcast, rcast) = setop_columns(b, (l, &lc), (r, &rc), name)?;
    // All but UNION ALL compare rows: a geometric column has no `=`.
    let dedups = !(op == pb::SetOperation::SetopUnion && sel.all);
    if let Some(i) = cols.iter().position(|c| matches!(c.ty, DataType::Geo(_))) {
        if dedups {
            let loc = leaf_target(l, i).map_or(-1, |(n, _)| bind::expr_location(n));
            return Err(err_at(
                DbError::new(
                    SqlState::UndefinedFunction,
                    format!(
                        "could not identify an equality operator for type {}",
                        cols[i].ty.name()
                    ),
                ),
                b.text,
                loc,
            ));
        }
    }
    let lp = Plan::Project {
        input: Box::new(lp),
        exprs: lcast,
    };
    let rp = Plan::Project {
        input: Box::new(rp),
        exprs: rcast,
    };
    let plan = match op {
        pb::SetOperation::SetopUnion if sel.all => Plan::Append {
            inputs: vec![lp, rp],
        },
        pb::SetOperation::SetopUnion => Plan::Distinct {
            input: Box::new(Plan::Append {
                inputs: vec![lp, rp],
            }),
        },
        _ => Plan::SetOp {
            left: Box::new(lp),
            right: Box::new(rp),
            intersect: op == pb::SetOperation::SetopIntersect,
            all: sel.all,
        },
    };
    finish_simple_output(b, sel, plan, cols)
}

/// The output columns of a set operation (each the common type of its two
/// sides) and each side's casts to them.
type SetopColumns = (Vec<OutCol>, Vec<Expr>, Vec<Expr>);

fn setop_columns(
    b: &mut Binder,
    (l, lc): (&pb::SelectStmt, &[OutCol]),
    (r, rc): (&pb::SelectStmt, &[OutCol]),
    name: &str,
) -> Result<SetopColumns, DbError> {
    let mut cols = lc.to_vec();
    let (mut lcast, mut rcast) = (Vec::new(), Vec::new());
    let cast_to = |i: usize, from: DataType, t: DataType| {
        if from == t {
            Expr::Col(i)
        } else {
            Expr::Cast(Box::new(Expr::Col(i)), t)
        }
    };
    for (i, (a, c)) in lc.iter().zip(rc).enumerate() {
        // A quoted literal output by a leaf SELECT is still of unknown type
        // here (PostgreSQL resolves it with the other side's type).
        let (llit, rlit) = (leaf_literal(l, i), leaf_literal(r, i));
        let lt = if llit.is_some() || leaf_null(l, i) {
            DataType::Unknown
        } else {
            a.ty
        };
        let rt = if rlit.is_some() || leaf_null(r, i) {
            DataType::Unknown
        } else {
            c.ty
        };
        let at = |s: &pb::SelectStmt| leaf_target(s, i).map_or(-1, |(n, _)| bind::expr_location(n));
        let t = b.common_type_at(&[(lt, at(l)), (rt, at(r))], name)?;
        for (text, loc) in [llit, rlit].into_iter().flatten() {
            if !t.is_string() {
                valops::cast(Value::Text(Arc::from(text)), t, false, &b.eval)
                    .map_err(|e| err_at(e, b.text, loc))?;
            }
        }
        cols[i].ty = t;
        cols[i].table_oid = 0;
        cols[i].column_id = 0;
        lcast.push(cast_to(i, a.ty, t));
        rcast.push(cast_to(i, c.ty, t));
    }
    Ok((cols, lcast, rcast))
}

/// Target `i` of a leaf (non-set-operation) SELECT: its expression node
/// and the ResTarget.
fn leaf_target(sel: &pb::SelectStmt, i: usize) -> Option<(&NodeEnum, &pb::ResTarget)> {
    if sel.op != pb::SetOperation::SetopNone as i32 && sel.op != 0 {
        return None;
    }
    match sel.target_list.get(i)?.node.as_ref()? {
        NodeEnum::ResTarget(rt) => Some((rt.val.as_deref()?.node.as_ref()?, rt)),
        _ => None,
    }
}

/// The text and location of target `i` of a leaf SELECT if it is a quoted
/// literal.
/// Whether target `i` of a leaf SELECT is a bare NULL (of unknown type
/// until the other side decides, as a quoted literal is).
fn leaf_null(sel: &pb::SelectStmt, i: usize) -> bool {
    matches!(leaf_target(sel, i), Some((NodeEnum::AConst(c), _)) if c.isnull)
}

fn leaf_literal(sel: &pb::SelectStmt, i: usize) -> Option<(&str, i32)> {
    match leaf_target(sel, i)?.0 {
        NodeEnum::AConst(c) if !c.isnull => match &c.val {
            Some(pb::a_const::Val::Sval(s)) => Some((s.sval.as_str(), c.location)),
            _ => None,
        },
        _ => None,
    }
}

fn mark_correlation(b: &mut Binder, correlated: bool) {
    if correlated {
        let lvl = b.level();
        if let Some(r) = b.outer_refs.get_mut(lvl) {
            *r = Some(r.map_or(0, |x| x.min(lvl.saturating_sub(1))));
        }
    }
}

/// ORDER BY / LIMIT on a query whose output is all there is (VALUES, set
/// operations): keys name output columns by position or name.
fn finish_simple_output(
    b: &mut Binder,
    sel: &pb::SelectStmt,
    plan: Plan,
    cols: Vec<OutCol>,
) -> Result<(Plan, Vec<OutCol>), DbError> {
    let scope = Scope {
        floor: 0,
        using_joins: Vec::new(),
        hidden_rels: Vec::new(),
        alias_floor: 0,
        param_start: 0,
        nullable_row_ids: Vec::new(),
        lateral_target: false,
        pending_duplicate: None,
        cols: cols
            .iter()
            .map(|c| ScopeCol {
                perm: None,
                rel: String::new(),
                name: c.name.clone(),
                ty: c.ty,
                hidden: false,
                table_oid: 0,
                attnum: 0,
                merged: false,
                scalar_fn: false,
                subst: None,
                using_cast: None,
            })
            .collect(),
    };
    let top = b.level();
    b.scopes[top] = scope;
    let mut plan = plan;
    if !sel.sort_clause.is_empty() {
        let mut keys = Vec::new();
        for s in &sel.sort_clause {
            let NodeEnum::SortBy(sb) = node(s)? else {
                return Err(DbError::internal("ORDER BY item is not SortBy"));
            };
            let expr = match output_ref(b, req(&sb.node)?, &cols)? {
                Some(i) => Expr::Col(i),
                None => {
                    b.bind(req(&sb.node)?)
                        .map_err(|e| setop_arm_hint(e, sel))?
                        .0
                }
            };
            keys.push(sort_key(expr, sb)?);
        }
        plan = Plan::Sort {
            input: Box::new(plan),
            keys,
        };
    }
    plan = plan_limit(b, sel, plan)?;
    if let Some(l) = sel.locking_clause.first() {
        return Err(locking_with_setop(l)?);
    }
    Ok((plan, cols))
}

/// A set operation's ORDER BY naming a column of one of its SELECTs that
/// is not an output column: PostgreSQL's hint naming that SELECT as
/// `*SELECT* n` (its leaves numbered left to right).
fn setop_arm_hint(e: DbError, sel: &pb::SelectStmt) -> DbError {
    if e.code != SqlState::UndefinedColumn
        || e.hint.is_some()
        || set_op(sel) == pb::SetOperation::SetopNone
    {
        return e;
    }
    let Some(name) = e
        .message
        .strip_prefix("column \"")
        .and_then(|m| m.strip_suffix("\" does not exist"))
        .map(str::to_string)
    else {
        return e;
    };
    fn leaves<'a>(s: &'a pb::SelectStmt, out: &mut Vec<&'a pb::SelectStmt>) {
        match (s.larg.as_deref(), s.rarg.as_deref()) {
            (Some(l), Some(r)) if s.op > 1 => {
                leaves(l, out);
                leaves(r, out);
            }
            _ => out.push(s),
        }
    }
    let mut all = Vec::new();
    leaves(sel, &mut all);
    for (n, leaf) in all.iter().enumerate() {
        let names = leaf.target_list.iter().filter_map(|t| {
            let NodeEnum::ResTarget(rt) = node(t).ok()? else {
                return None;
            };
            if !rt.name.is_empty() {
                return Some(rt.name.clone());
            }
            match rt.val.as_deref().and_then(|v| v.node.as_ref())? {
                NodeEnum::ColumnRef(c) => bind::names(&c.fields).pop(),
                _ => None,
            }
        });
        if names.into_iter().any(|x| x == name) {
            return e.with_hint(format!(
                "There is a column named \"{name}\" in table \"*SELECT* {}\", but it cannot be referenced from this part of the query.",
                n + 1
            ));
        }
    }
    e
}

/// A locking clause on a set operation, named by its strength.
fn locking_with_setop(l: &Node) -> Result<DbError, DbError> {
    let strength = match node(l)? {
        NodeEnum::LockingClause(lc) => match pb::LockClauseStrength::try_from(lc.strength) {
            Ok(pb::LockClauseStrength::LcsFornokeyupdate) => "FOR NO KEY UPDATE",
            Ok(pb::LockClauseStrength::LcsForshare) => "FOR SHARE",
            Ok(pb::LockClauseStrength::LcsForkeyshare) => "FOR KEY SHARE",
            _ => "FOR UPDATE",
        },
        _ => "FOR UPDATE",
    };
    Ok(DbError::new(
        SqlState::FeatureNotSupported,
        format!("{strength} is not allowed with UNION/INTERSECT/EXCEPT"),
    ))
}

fn plan_values(b: &mut Binder, lists: &[Node]) -> Result<(Plan, Vec<OutCol>), DbError> {
    let saved = std::mem::replace(&mut b.agg, AggCtx::NotAllowed("VALUES"));
    let planned = plan_values_rows(b, lists);
    b.agg = saved;
    planned
}

fn plan_values_rows(b: &mut Binder, lists: &[Node]) -> Result<(Plan, Vec<OutCol>), DbError> {
    let mut rows: Vec<Vec<(Expr, DataType)>> = Vec::new();
    for l in lists {
        let NodeEnum::List(items) = node(l)? else {
            return Err(DbError::internal("VALUES row is not a list"));
        };
        let mut row = Vec::new();
        for i in &items.items {
            // `t.*` in a VALUES row is its columns, as in a select list.
            if let Some(Some(rel)) = clauses::star_rel(i)? {
                let mut targets = Vec::new();
                let at = match node(i)? {
                    NodeEnum::ColumnRef(c) => c.location,
                    _ => -1,
                };
                clauses::expand_star(b, Some(&rel), &mut targets, at)?;
                row.extend(targets.into_iter().map(|t| (t.expr, t.col.ty)));
                continue;
            }
            row.push(b.bind(i)?);
        }
        if let Some(first) = rows.first() {
            if first.len() != row.len() {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    "VALUES lists must all be the same length",
                ));
            }
        }
        rows.push(row);
    }
    let width = rows.first().map_or(0, Vec::len);
    let mut types = Vec::with_capacity(width);
    for c in 0..width {
        let ts: Vec<DataType> = rows.iter().map(|r| r[c].1).collect();
        types.push(b.common_type(&ts, "VALUES")?);
    }
    let mut out = Vec::new();
    for row in rows {
        let mut r = Vec::new();
        for (c, (e, t)) in row.into_iter().enumerate() {
            let keep = t.is_integer() && types[c].is_integer() && t == types[c];
            r.push(if keep { e } else { b.coerce(e, t, types[c])? });
        }
        out.push(r);
    }
    let cols = types
        .iter()
        .enumerate()
        .map(|(i, t)| OutCol {
            name: format!("column{}", i + 1),
            ty: *t,
            table_oid: 0,
            column_id: 0,
        })
        .collect();
    Ok((Plan::Values { rows: out }, cols))
}

/// A target list entry after binding.
pub(crate) struct Target {
    pub expr: Expr,
    pub col: OutCol,
}

/// A WHERE clause bound as a boolean, where aggregates and window
/// functions are PostgreSQL's errors (SELECT, UPDATE, DELETE and the
/// writes INSTEAD OF triggers do).
pub(crate) fn bind_where(b: &mut Binder, w: Option<&Node>) -> Result<Option<Expr>, DbError> {
    b.agg = AggCtx::NotAllowed("WHERE");
    b.without_windows("window functions are not allowed in WHERE", |b| match w {
        Some(w) => b.bind_bool(w, "WHERE").map(Some),
        None => Ok(None),
    })
}

fn plan_simple(b: &mut Binder, sel: &pb::SelectStmt) -> Result<(Plan, Vec<OutCol>), DbError> {
    if let Some(rewritten) = srf_target_as_from(sel) {
        if !unnests_tsvector(b, sel) {
            return plan_simple(b, &rewritten);
        }
    }
    // (An aggregate of this level found in a LATERAL subquery.)
    b.agg = AggCtx::NotAllowed("FROM clause of their own query level");
    let tree = plan_from_clause(b, sel)?;
    let where_expr = bind_where(b, sel.where_clause.as_deref())?;
    let lock_tables = lock_targets(b, sel, tree.as_ref())?;
    let mut tree = tree;
    if let (Some(t), false) = (tree.as_mut(), lock_tables.is_empty()) {
        rls::lock_quals(b, t, &lock_tables)?;
    }
    // Locking rows needs UPDATE as well as SELECT (on the table or at
    // least one column, as PostgreSQL).
    for t in &lock_tables {
        b.need_by_columns(
            nestor_catalog::acl::ObjKind::Table,
            t.table.oid.0,
            &t.table.name,
            nestor_catalog::acl::UPDATE,
        );
    }
    let mut plan = scan_and_filter(b, tree, where_expr.as_ref())?;
    let windows = window_clause(b, sel)?;
    let saved_windows = std::mem::replace(&mut b.windows, windows);
    let input_width = b.scopes[b.level()].cols.len();
    // Aggregates of subqueries that belong to this level (bind/outer_agg.rs).
    b.outer_aggs.push(bind::outer_agg::OuterAggs {
        level: b.level(),
        width: input_width,
        calls: Vec::new(),
        locations: Vec::new(),
    });
    let q = bind_query_clauses(b, sel);
    let outer_calls = b.outer_aggs.pop().map(|a| a.calls).unwrap_or_default();
    b.windows = saved_windows;
    let mut q = q?;
    let has_agg = !outer_calls.is_empty()
        || q.targets.iter().any(|t| contains_agg(&t.expr))
        || q.having.as_ref().is_some_and(contains_agg)
        || (!q.distinct && q.sort.iter().any(|k| contains_agg(&k.expr)))
        || q.distinct_on.iter().any(contains_agg);
    // HAVING without GROUP BY makes the whole input one group, as an
    // aggregate does.
    if has_agg || !q.group.is_empty() || q.sets.is_some() || q.having.is_some() {
        if !lock_tables.is_empty() {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "FOR UPDATE is not allowed with aggregate functions",
            ));
        }
        let (p, width) = plan_aggregation(b, sel, &mut q, plan, outer_calls)?;
        plan = p;
        if has_window(&q) {
            plan = plan_window(&mut q, plan, width, true)?;
        }
    } else if has_window(&q) {
        if !lock_tables.is_empty() {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "FOR UPDATE is not allowed with window functions",
            ));
        }
        plan = plan_window(&mut q, plan, input_width, false)?;
    }
    // With set-returning functions in the select list the rows to sort
    // are the ProjectSet's (project_output).
    let sets = q.targets.iter().any(|t| t.expr.contains_srf());
    if !q.distinct && !q.sort.is_empty() && !sets {
        // FETCH ... WITH TIES finds its ties through the sort node.
        let ties = sel.limit_option == pb::LimitOption::WithTies as i32;
        let limited = sel.limit_count.is_some() && !ties;
        plan = match access::index_ordered(b.catalog, plan, &q.sort, limited) {
            Ok(p) if !ties => p,
            Ok(p) | Err(p) => Plan::Sort {
                input: Box::new(p),
                keys: q.sort.clone(),
            },
        };
    }
    if !lock_tables.is_empty() {
        let (mode, policy) = lock_mode(sel)?;
        plan = Plan::LockRows {
            input: Box::new(plan),
            targets: lock_tables,
            mode,
            policy,
            recheck: where_expr,
        };
    }
    let (plan, cols) = project_output(plan, q);
    Ok((plan_limit(b, sel, plan)?, cols))
}

/// The FROM list as one logical tree (cross joins between the items); the
/// level's scope becomes the items' columns.
fn plan_from_clause(b: &mut Binder, sel: &pb::SelectStmt) -> Result<Option<From>, DbError> {
    let mut items = Vec::new();
    let mut offset = 0;
    let mut scope = Scope::default();
    let top = b.level();
    for f in &sel.from_clause {
        // A function in FROM may refer to the items before it (PostgreSQL
        // makes it LATERAL implicitly): it binds its arguments seeing them;
        // so does a LATERAL subquery (any other subquery is refused them).
        // A JOIN's LATERAL subqueries see them too (`from::lateral_join`).
        let function = matches!(
            f.node,
            Some(NodeEnum::RangeFunction(_) | NodeEnum::RangeSubselect(_) | NodeEnum::JoinExpr(_))
        );
        if function {
            b.scopes[top] = scope.clone();
        }
        let item = plan_from_item(b, f, &mut offset, &mut scope);
        if function {
            b.scopes[top] = Scope::default();
        }
        items.push(item?);
    }
    b.scopes[top] = scope;
    let mut tree: Option<From> = None;
    for r in items {
        tree = Some(match (tree, r) {
            (None, From::LateralFn { .. }) => {
                return Err(DbError::internal(
                    "a lateral function with nothing before it",
                ))
            }
            (None, r) => r,
            (
                Some(l),
                From::LateralFn {
                    func,
                    args,
                    ordinality,
                    width,
                    ..
                },
            ) => {
                let (lo, lh) = l.range();
                From::Lateral {
                    left: Box::new(l),
                    func,
                    args,
                    ordinality,
                    offset: lo,
                    width: lh - lo + width,
                }
            }
            (Some(l), r) => {
                let (lo, _) = l.range();
                let (_, rh) = r.range();
                From::Join {
                    kind: JoinKind::Inner,
                    left: Box::new(l),
                    right: Box::new(r),
                    on: Vec::new(),
                    merged: Vec::new(),
                    offset: lo,
                    width: rh - lo,
                }
            }
        });
    }
    Ok(tree)
}

/// The physical plan of the FROM tree with the WHERE clause placed.
fn scan_and_filter(
    b: &mut Binder,
    tree: Option<From>,
    where_expr: Option<&Expr>,
) -> Result<Plan, DbError> {
    Ok(match (tree, where_expr) {
        (Some(t), w) => {
            let conj = w.cloned().map(conjuncts).unwrap_or_default();
            let (p, rest) = build(b, t, conj, None)?;
            with_filter(p, rest)
        }
        (None, Some(w)) => Plan::Filter {
            input: Box::new(Plan::Single),
            pred: w.clone(),
        },
        (None, None) => Plan::Single,
    })
}

/// The bound select list, HAVING, GROUP BY and ORDER BY of one query.
struct QueryClauses {
    targets: Vec<Target>,
    having: Option<Expr>,
    group: Vec<Expr>,
    distinct: bool,
    /// Over the input row, or over the output columns with DISTINCT.
    sort: Vec<SortKey>,
    /// DISTINCT ON expressions, over the input row (`distinct` is false).
    distinct_on: Vec<Expr>,
    /// GROUPING SETS / ROLLUP / CUBE: the sets, positions in `group`.
    sets: Option<Vec<Vec<usize>>>,
}

fn bind_query_clauses(b: &mut Binder, sel: &pb::SelectStmt) -> Result<QueryClauses, DbError> {
    let saved_window = b.window;
    let r = bind_query_clauses_inner(b, sel);
    b.window = saved_window;
    r
}

fn bind_query_clauses_inner(b: &mut Binder, sel: &pb::SelectStmt) -> Result<QueryClauses, DbError> {
    let not_allowed = |clause: &'static str| WinCtx::NotAllowed(clause, SqlState::WindowingError);
    b.agg = AggCtx::Allowed;
    b.window = WinCtx::Allowed;
    let targets = bind_targets(b, &sel.target_list)?;
    b.window = not_allowed("window functions are not allowed in HAVING");
    let having = match &sel.having_clause {
        Some(h) => Some(b.bind_bool(h, "HAVING")?),
        None => None,
    };
    let mut group = Vec::new();
    b.agg = AggCtx::NotAllowed("GROUP BY");
    b.window = not_allowed("window functions are not allowed in GROUP BY");
    let mut sets = None;
    if grouping::has_grouping_sets(&sel.group_clause) {
        let (g, s) = grouping::bind_grouping_sets(b, &sel.group_clause, &targets)?;
        group = g;
        sets = Some(s);
    } else {
        for g in &sel.group_clause {
            group.push(bind_group_item(b, g, &targets)?);
        }
    }
    // GROUP BY naming an output column that is a window call.
    let has_window = |e: &Expr| {
        let mut found = false;
        e.walk(&mut |x| found |= matches!(x, Expr::Window(_)));
        found
    };
    if group.iter().any(has_window) {
        // (Positions line up unless a `*` expanded to several targets.)
        let aligned = targets.len() == sel.target_list.len();
        let at = targets
            .iter()
            .zip(&sel.target_list)
            .filter(|_| aligned)
            .find(|(t, _)| has_window(&t.expr))
            .and_then(|(_, n)| match n.node.as_ref() {
                Some(NodeEnum::ResTarget(rt)) => {
                    rt.val.as_deref()?.node.as_ref().map(bind::expr_location)
                }
                _ => None,
            })
            .unwrap_or(-1);
        return Err(err_at(
            DbError::new(
                SqlState::WindowingError,
                "window functions are not allowed in GROUP BY",
            ),
            b.text,
            at,
        ));
    }
    b.agg = AggCtx::Allowed;
    b.window = WinCtx::Allowed;
    let on = sel.distinct_clause.iter().any(|n| n.node.is_some());
    let distinct = !sel.distinct_clause.is_empty() && !on;
    if distinct {
        check_distinct_types(b, sel, &targets)?;
    }
    let mut sort = Vec::new();
    for s in &sel.sort_clause {
        let NodeEnum::SortBy(sb) = node(s)? else {
            return Err(DbError::internal("ORDER BY item is not SortBy"));
        };
        let (e, ty) = order_by_expr(b, sb, &targets, distinct)?;
        let unordered = matches!(ty, DataType::Geo(_)) || bind::geo_field(ty).is_some();
        if unordered && sb.use_op.is_empty() {
            return Err(err_at(
                DbError::new(
                    SqlState::UndefinedFunction,
                    format!(
                        "could not identify an ordering operator for type {}",
                        ty.name()
                    ),
                )
                .with_hint("Use an explicit ordering operator or modify the query."),
                b.text,
                bind::expr_location(node(req(&sb.node)?)?),
            ));
        }
        sort.push(sort_key(e, sb)?);
    }
    let distinct_on = if on {
        distinct_on::bind_distinct_on(b, sel, &targets, &mut sort)?
    } else {
        Vec::new()
    };
    Ok(QueryClauses {
        targets,
        having,
        group,
        distinct,
        sort,
        distinct_on,
        sets,
    })
}

/// SELECT DISTINCT needs `=` on every output column: the geometric types
/// have no default one (PostgreSQL's 42883, at the column's expression).
fn check_distinct_types(
    b: &Binder,
    sel: &pb::SelectStmt,
    targets: &[Target],
) -> Result<(), DbError> {
    let Some(i) = targets
        .iter()
        .position(|t| matches!(t.col.ty, DataType::Geo(_)))
    else {
        return Ok(());
    };
    let at = sel
        .target_list
        .get(i)
        .filter(|_| targets.len() == sel.target_list.len())
        .and_then(|n| match n.node.as_ref() {
            Some(NodeEnum::ResTarget(rt)) => {
                rt.val.as_deref()?.node.as_ref().map(bind::expr_location)
            }
            _ => None,
        })
        .unwrap_or(-1);
    Err(err_at(
        DbError::new(
            SqlState::UndefinedFunction,
            format!(
                "could not identify an equality operator for type {}",
                targets[i].col.ty.name()
            ),
        ),
        b.text,
        at,
    ))
}

/// An ORDER BY item: an output column (by position or name), else an
/// expression over the input row; with DISTINCT it must be in the select
/// list.
fn order_by_expr(
    b: &mut Binder,
    sb: &pb::SortBy,
    targets: &[Target],
    distinct: bool,
) -> Result<(Expr, DataType), DbError> {
    let out_cols: Vec<OutCol> = targets.iter().map(|t| t.col.clone()).collect();
    Ok(match output_ref(b, req(&sb.node)?, &out_cols)? {
        Some(i) if distinct => (Expr::Col(i), out_cols[i].ty),
        Some(i) => (targets[i].expr.clone(), out_cols[i].ty),
        None if distinct => {
            let (e, t) = b.bind(req(&sb.node)?)?;
            match targets.iter().position(|t| t.expr == e) {
                Some(i) => (Expr::Col(i), t),
                None => {
                    return Err(DbError::new(
                        SqlState::InvalidColumnReference,
                        "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                    ))
                }
            }
        }
        None => b.bind(req(&sb.node)?)?,
    })
}

/// Aggregate over `input`: targets, HAVING and (without DISTINCT) ORDER BY
/// are rewritten to read the aggregation's output.
fn plan_aggregation(
    b: &mut Binder,
    sel: &pb::SelectStmt,
    q: &mut QueryClauses,
    input: Plan,
    outer_calls: Vec<AggCall>,
) -> Result<(Plan, usize), DbError> {
    let scope = b.scopes[b.level()].clone();
    // The aggregates of subqueries first: their placeholders count on it.
    let outer_count = outer_calls.len();
    let mut aggs: Vec<AggCall> = outer_calls;
    let group = &q.group;
    // With grouping sets the mask column follows the group columns.
    let mask = q.sets.as_ref().map(|_| group.len());
    let rewrite = |e: &mut Expr, src: &[Node], aggs: &mut Vec<AggCall>| {
        let old = std::mem::replace(e, Expr::Const(Value::Null));
        *e = agg_rewrite(old, (group, mask), aggs, &scope, (b.text, src))?;
        Ok::<(), DbError>(())
    };
    for t in &mut q.targets {
        rewrite(&mut t.expr, &sel.target_list, &mut aggs)?;
    }
    if let Some(h) = q.having.as_mut() {
        let src = sel.having_clause.as_deref().map(std::slice::from_ref);
        rewrite(h, src.unwrap_or(&[]), &mut aggs)?;
    }
    if !q.distinct {
        for k in &mut q.sort {
            rewrite(&mut k.expr, &sel.sort_clause, &mut aggs)?;
        }
    }
    for e in &mut q.distinct_on {
        rewrite(e, &sel.distinct_clause, &mut aggs)?;
    }
    // The row after aggregation has another layout than the one the
    // subqueries' outer references were bound against: they get one in
    // that layout.
    let remap = AggRemap {
        group: &q.group,
        mask,
        width: scope.cols.len(),
        outer_count,
        scope: &scope,
    };
    for t in &mut q.targets {
        remap.apply(b, &mut t.expr, &sel.target_list)?;
    }
    if let Some(h) = q.having.as_mut() {
        let src = sel.having_clause.as_deref().map(std::slice::from_ref);
        remap.apply(b, h, src.unwrap_or(&[]))?;
    }
    if !q.distinct {
        for k in &mut q.sort {
            remap.apply(b, &mut k.expr, &sel.sort_clause)?;
        }
    }
    let width = q.group.len() + usize::from(mask.is_some()) + aggs.len();
    let input = having_to_where(q, input);
    let group = std::mem::take(&mut q.group);
    let aggs: Vec<AggSpec> = aggs.into_iter().map(|call| AggSpec { call }).collect();
    // A grouped query with no GROUP BY and no aggregate (only HAVING) is
    // one group of no columns whatever its input holds: PostgreSQL does
    // not scan it (so its WHERE is never evaluated), a Result.
    let degenerate = group.is_empty() && aggs.is_empty() && q.sets.is_none();
    let plan = match q.sets.take() {
        _ if degenerate => Plan::Single,
        Some(sets) => Plan::GroupingSets {
            input: Box::new(input),
            group,
            sets,
            aggs,
        },
        None if group.is_empty() => Plan::Aggregate {
            input: Box::new(minmax::index_input(b.catalog, input, &aggs).unwrap_or_else(|p| p)),
            group,
            aggs,
        },
        None => Plan::Aggregate {
            input: Box::new(sorted_for_groups(input, &group, &aggs)),
            group,
            aggs,
        },
    };
    let plan = match q.having.take() {
        Some(pred) => Plan::Filter {
            input: Box::new(plan),
            pred,
        },
        None => plan,
    };
    Ok((plan, width))
}

/// HAVING conditions that read no aggregate, only grouping columns, move
/// below the aggregation as a filter on its input (PostgreSQL's
/// subquery_planner does the same): fewer rows are grouped, and EXPLAIN
/// shows them where PostgreSQL does. Not with grouping sets (a column a
/// set leaves out is NULL in its rows), volatile functions or subqueries.
fn having_to_where(q: &mut QueryClauses, input: Plan) -> Plan {
    let Some(having) = q.having.take() else {
        return input;
    };
    if q.sets.is_some() || q.group.is_empty() {
        q.having = Some(having);
        return input;
    }
    let group = &q.group;
    let movable = |e: &Expr| {
        let mut ok = true;
        e.walk(&mut |x| match x {
            Expr::Col(c) => ok &= *c < group.len(),
            Expr::Outer { .. } | Expr::Sub(_) | Expr::Agg(_) | Expr::Window(_) => ok = false,
            Expr::Func(f, _) if f.is_volatile() => ok = false,
            Expr::UserFunc(f, _) if f.0.volatility == nestor_catalog::Volatility::Volatile => {
                ok = false
            }
            _ => {}
        });
        ok && !e.columns().is_empty()
    };
    // The grouping expressions it reads must be safe to evaluate per row
    // too (`GROUP BY random() HAVING random() > 0.5` stays a HAVING).
    let steady = |e: &Expr| {
        let mut ok = true;
        e.walk(&mut |x| {
            if let Expr::Col(c) = x {
                ok &= group.get(*c).is_some_and(Expr::is_movable);
            }
        });
        ok
    };
    let (moved, kept): (Vec<Expr>, Vec<Expr>) = access::conjuncts(having)
        .into_iter()
        .partition(|e| movable(e) && steady(e));
    q.having = and_all(kept);
    let moved: Vec<Expr> = moved
        .into_iter()
        .map(|e| {
            e.rewrite(&mut |x| {
                Ok(match x {
                    Expr::Col(c) => Some(group[*c].clone()),
                    _ => None,
                })
            })
            .expect("a column substitution cannot fail")
        })
        .collect();
    with_filter(input, moved)
}

/// The input of a GROUP BY whose aggregates have DISTINCT or ORDER BY,
/// sorted on the group keys: PostgreSQL cannot hash such aggregates and
/// runs a GroupAggregate over a Sort, so each group's rows reach the
/// aggregate's own sort in the order the group sort left them, which
/// decides the order of the aggregate's peers.
fn sorted_for_groups(input: Plan, group: &[Expr], aggs: &[AggSpec]) -> Plan {
    if group.is_empty() || !aggs.iter().any(AggSpec::sorts_input) {
        return input;
    }
    let keys = group
        .iter()
        .map(|e| SortKey {
            expr: e.clone(),
            desc: false,
            nulls_first: false,
        })
        .collect();
    Plan::Sort {
        input: Box::new(input),
        keys,
    }
}

/// How the correlated subqueries of an aggregating query's select list,
/// HAVING and ORDER BY see its row: in its input layout (see
/// [`crate::ir::SubQuery::remap`]).
struct AggRemap<'a> {
    group: &'a [Expr],
    mask: Option<usize>,
    /// The input row's width.
    width: usize,
    /// Aggregates of subqueries, the first of the aggregation's.
    outer_count: usize,
    scope: &'a Scope,
}

impl AggRemap<'_> {
    fn apply(&self, b: &Binder, e: &mut Expr, src: &[Node]) -> Result<(), DbError> {
        let level = b.level();
        let old = std::mem::replace(e, Expr::Const(Value::Null));
        *e = old.rewrite(&mut |x| {
            let Expr::Sub(s) = x else {
                return Ok(None);
            };
            if !s.correlated || s.level != level || s.remap.is_some() {
                return Ok(None);
            }
            let reads = b.sub_reads.get(&s.id).map_or(&[][..], Vec::as_slice);
            for &c in reads.iter().filter(|&&c| c < self.width) {
                if !self.group.contains(&Expr::Col(c)) {
                    let col = &self.scope.cols[c];
                    return Err(err_at(
                        DbError::new(
                            SqlState::GroupingError,
                            format!(
                                "subquery uses ungrouped column \"{}.{}\" from outer query",
                                col.rel, col.name
                            ),
                        ),
                        b.text,
                        sub_column_ref_location(src, &col.rel, &col.name),
                    ));
                }
            }
            let row = self.row();
            let mut sub = (**s).clone();
            // The ANY operand is over the aggregated row already.
            sub.remap = Some(row);
            Ok(Some(Expr::Sub(Arc::new(sub))))
        })?;
        Ok(())
    }

    /// The input-layout row, as expressions over the aggregated row.
    fn row(&self) -> Vec<Expr> {
        let ng = self.group.len() + usize::from(self.mask.is_some());
        let grouped = (0..self.width).map(|c| {
            self.group
                .iter()
                .position(|g| *g == Expr::Col(c))
                .map_or(Expr::Const(Value::Null), Expr::Col)
        });
        grouped
            .chain((0..self.outer_count).map(|k| Expr::Col(ng + k)))
            .collect()
    }
}

/// The WINDOW clause's named windows.
fn window_clause(
    b: &Binder,
    sel: &pb::SelectStmt,
) -> Result<Vec<(String, pb::WindowDef)>, DbError> {
    let mut out: Vec<(String, pb::WindowDef)> = Vec::new();
    for w in &sel.window_clause {
        let NodeEnum::WindowDef(def) = node(w)? else {
            return Err(DbError::internal("WINDOW item is not a WindowDef"));
        };
        if out.iter().any(|(n, _)| *n == def.name) {
            return Err(err_at(
                DbError::new(
                    SqlState::WindowingError,
                    format!("window \"{}\" is already defined", def.name),
                ),
                b.text,
                def.location,
            ));
        }
        out.push((def.name.clone(), (**def).clone()));
    }
    Ok(out)
}

fn contains_window(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Window(_)));
    found
}

fn has_window(q: &QueryClauses) -> bool {
    q.targets.iter().any(|t| contains_window(&t.expr))
        || (!q.distinct && q.sort.iter().any(|k| contains_window(&k.expr)))
        || q.distinct_on.iter().any(contains_window)
}

/// Window functions over `input` (rows `width` wide): each distinct call
/// becomes a column after the input's, and the targets and ORDER BY read
/// it there.
fn plan_window(
    q: &mut QueryClauses,
    input: Plan,
    width: usize,
    grouped: bool,
) -> Result<Plan, DbError> {
    let mut calls: Vec<WinCall> = Vec::new();
    {
        let mut collect = |e: &Expr| {
            e.walk(&mut |x| {
                if let Expr::Window(w) = x {
                    if !calls.iter().any(|c| c == w.as_ref()) {
                        calls.push((**w).clone());
                    }
                }
            })
        };
        q.targets.iter().for_each(|t| collect(&t.expr));
        if !q.distinct {
            q.sort.iter().for_each(|k| collect(&k.expr));
        }
        q.distinct_on.iter().for_each(&mut collect);
    }
    order_windows(&mut calls, q, grouped);
    let rewrite = |e: Expr| -> Result<Expr, DbError> {
        e.rewrite(&mut |x| {
            let Expr::Window(w) = x else {
                return Ok(None);
            };
            let i = calls
                .iter()
                .position(|c| c == w.as_ref())
                .ok_or_else(|| DbError::internal("window call not collected"))?;
            Ok(Some(Expr::Col(width + i)))
        })
    };
    for t in &mut q.targets {
        let e = std::mem::replace(&mut t.expr, Expr::Const(Value::Null));
        t.expr = rewrite(e)?;
    }
    if !q.distinct {
        for k in &mut q.sort {
            let e = std::mem::replace(&mut k.expr, Expr::Const(Value::Null));
            k.expr = rewrite(e)?;
        }
    }
    for e in &mut q.distinct_on {
        let old = std::mem::replace(e, Expr::Const(Value::Null));
        *e = rewrite(old)?;
    }
    let correlated = calls.iter().any(|c| {
        c.args
            .iter()
            .chain(&c.partition)
            .chain(c.order.iter().map(|o| &o.key))
            .any(Expr::has_correlated_subquery)
    });
    if correlated {
        return Err(DbError::unsupported(
            "correlated subqueries in window function calls",
        ));
    }
    Ok(Plan::Window {
        input: Box::new(input),
        calls,
    })
}

/// Put the window calls in the order PostgreSQL runs its WindowAggs
/// (select_active_windows), bottom first: the rows come out in the last
/// one's sort order, and each sorts the previous one's output, so the
/// order decides both the result's order and the order of peers.
///
/// PostgreSQL sorts the windows by their PARTITION BY then ORDER BY items
/// (common_prefix_cmp): item by item, the one whose expression got the
/// higher sort-group reference comes first, then the descending one (its
/// sort operator `>` has the higher oid), then NULLS FIRST; then the longer
/// list. References go to distinct expressions in the order the parser
/// meets them: ORDER BY, then GROUP BY, then the windows' items.
fn order_windows(calls: &mut [WinCall], q: &QueryClauses, grouped: bool) {
    if calls.len() < 2 {
        return;
    }
    let mut refs: Vec<Expr> = Vec::new();
    let mut note = |e: &Expr| {
        if !refs.contains(e) {
            refs.push(e.clone());
        }
    };
    if !q.distinct {
        q.sort.iter().for_each(|k| note(&k.expr));
    }
    if grouped {
        (0..q.group.len()).for_each(|i| note(&Expr::Col(i)));
    }
    for c in calls.iter() {
        c.partition.iter().for_each(&mut note);
        c.order.iter().for_each(|o| note(&o.key));
    }
    let sort_ref = |e: &Expr| refs.iter().position(|r| r == e).map_or(0, |i| i + 1);
    // (reference, descending, nulls first) per PARTITION BY / ORDER BY item.
    let items = |c: &WinCall| -> Vec<(usize, bool, bool)> {
        c.partition
            .iter()
            .map(|e| (sort_ref(e), false, false))
            .chain(
                c.order
                    .iter()
                    .map(|o| (sort_ref(&o.key), o.desc, o.nulls_first)),
            )
            .collect()
    };
    pg_qsort(calls, |a, b| {
        let (a, b) = (items(a), items(b));
        for (x, y) in a.iter().zip(&b) {
            let o = y.cmp(x);
            if o.is_ne() {
                return o;
            }
        }
        b.len().cmp(&a.len())
    });
}

/// The select list (then DISTINCT and its ORDER BY) on top of `plan`.
fn project_output(plan: Plan, mut q: QueryClauses) -> (Plan, Vec<OutCol>) {
    let cols: Vec<OutCol> = q.targets.iter().map(|t| t.col.clone()).collect();
    let sets = q.targets.iter().any(|t| t.expr.contains_srf());
    let exprs: Vec<Expr> = q.targets.into_iter().map(|t| t.expr).collect();
    if !q.distinct_on.is_empty() {
        let plan = distinct_on::plan_distinct_on(plan, exprs, q.distinct_on, sets);
        return (plan, cols);
    }
    let mut plan = if sets
        && !q.distinct
        && !q.sort.is_empty()
        && !q.sort.iter().any(|k| k.expr.contains_srf())
    {
        // No sort key reads a set-returning function: sorted first and
        // the functions expanded after, as PostgreSQL postpones SRFs past
        // the Sort (make_sort_input_target), so each input row's set
        // comes out in the function's own order.
        Plan::ProjectSet {
            input: Box::new(Plan::Sort {
                input: Box::new(plan),
                keys: std::mem::take(&mut q.sort),
            }),
            exprs,
        }
    } else if sets && !q.distinct && !q.sort.is_empty() {
        // Sorted after the ProjectSet: a key that is an output column is
        // read there, any other one is computed as an extra column,
        // dropped after the sort.
        let width = exprs.len();
        let mut exprs = exprs;
        let keys = q
            .sort
            .into_iter()
            .map(|k| {
                let col = match exprs[..width].iter().position(|e| *e == k.expr) {
                    Some(i) => i,
                    None => {
                        exprs.push(k.expr.clone());
                        exprs.len() - 1
                    }
                };
                SortKey {
                    expr: Expr::Col(col),
                    ..k
                }
            })
            .collect();
        let extra = exprs.len() > width;
        let mut plan = Plan::Sort {
            input: Box::new(Plan::ProjectSet {
                input: Box::new(plan),
                exprs,
            }),
            keys,
        };
        if extra {
            plan = Plan::Project {
                input: Box::new(plan),
                exprs: (0..width).map(Expr::Col).collect(),
            };
        }
        return (plan, cols);
    } else if sets {
        Plan::ProjectSet {
            input: Box::new(plan),
            exprs,
        }
    } else {
        Plan::Project {
            input: Box::new(plan),
            exprs,
        }
    };
    if q.distinct {
        plan = Plan::Distinct {
            input: Box::new(plan),
        };
        if !q.sort.is_empty() {
            plan = Plan::Sort {
                input: Box::new(plan),
                keys: q.sort,
            };
        }
    }
    (plan, cols)
}

/// `SELECT srf(args) [AS a], ...` without FROM, the set-returning function
/// being one whole select-list item, is `SELECT srf [AS a], ... FROM
/// srf(args) AS srf(srf)`: one input row, so the function's rows are the
/// result rows (PostgreSQL's ProjectSet over a single row).
fn srf_target_as_from(sel: &pb::SelectStmt) -> Option<pb::SelectStmt> {
    if !sel.from_clause.is_empty() || !sel.group_clause.is_empty() || sel.having_clause.is_some() {
        return None;
    }
    let is_srf = |n: &Node| match n.node.as_ref() {
        Some(NodeEnum::ResTarget(rt)) => match rt.val.as_deref().and_then(|v| v.node.as_ref()) {
            Some(NodeEnum::FuncCall(f)) => {
                let name = bind::names(&f.funcname);
                matches!(
                    name.last().map(String::as_str),
                    Some(
                        "generate_series"
                            | "unnest"
                            | "pg_partition_ancestors"
                            | "jsonb_path_query"
                    )
                ) && f.over.is_none()
            }
            _ => false,
        },
        _ => false,
    };
    let mut srfs = sel
        .target_list
        .iter()
        .enumerate()
        .filter(|(_, n)| is_srf(n));
    let (i, _) = srfs.next()?;
    if srfs.next().is_some() {
        return None;
    }
    // Another set-returning call, inside an item, runs in step with it:
    // a ProjectSet, not a join.
    let calls_srf = |n: &Node| {
        n.node.as_ref().is_some_and(|n| {
            n.nodes().into_iter().any(|(r, ..)| {
                matches!(r, nestor_parser::NodeRef::FuncCall(f)
                    if bind::names(&f.funcname).last().is_some_and(|n| n == "_pg_expandarray"))
            })
        })
    };
    if sel.target_list.iter().any(calls_srf) {
        return None;
    }
    let mut out = sel.clone();
    let Some(NodeEnum::ResTarget(rt)) = out.target_list[i].node.as_mut() else {
        return None;
    };
    let val = rt.val.take()?;
    let Some(NodeEnum::FuncCall(f)) = val.node.as_ref() else {
        return None;
    };
    let fname = bind::names(&f.funcname).last().cloned()?;
    let location = f.location;
    let string = |s: &str| Node {
        node: Some(NodeEnum::String(pb::String { sval: s.into() })),
    };
    rt.val = Some(Box::new(Node {
        node: Some(NodeEnum::ColumnRef(pb::ColumnRef {
            fields: vec![string(&fname)],
            location,
        })),
    }));
    out.from_clause = vec![Node {
        node: Some(NodeEnum::RangeFunction(pb::RangeFunction {
            functions: vec![Node {
                node: Some(NodeEnum::List(pb::List {
                    items: vec![*val, Node { node: None }],
                })),
            }],
            alias: Some(pb::Alias {
                aliasname: fname.clone(),
                colnames: vec![string(&fname)],
            }),
            ..Default::default()
        })),
    }];
    Some(out)
}

/// Whether the select list's set-returning item is unnest of a tsvector:
/// that one returns a record per lexeme, which the select list's
/// ProjectSet builds (the rewrite into FROM would give its columns).
fn unnests_tsvector(b: &mut Binder, sel: &pb::SelectStmt) -> bool {
    sel.target_list.iter().any(|n| {
        let Some(NodeEnum::ResTarget(rt)) = n.node.as_ref() else {
            return false;
        };
        let Some(NodeEnum::FuncCall(f)) = rt.val.as_deref().and_then(|v| v.node.as_ref()) else {
            return false;
        };
        let [arg] = f.args.as_slice() else {
            return false;
        };
        bind::names(&f.funcname)
            .last()
            .is_some_and(|n| n == "unnest")
            && peekable(arg)
            && b.bind(arg).is_ok_and(|(_, t)| t == DataType::TsVector)
    })
}

/// Whether binding `n` once more just to learn its type is harmless: no
/// parameter (whose type binding decides) and no subquery (which binding
/// plans) inside.
pub(crate) fn peekable(n: &Node) -> bool {
    n.node.as_ref().is_some_and(|n| {
        !matches!(n, NodeEnum::SubLink(_) | NodeEnum::ParamRef(_))
            && !n.nodes().into_iter().any(|(r, ..)| {
                matches!(
                    r,
                    nestor_parser::NodeRef::SubLink(_) | nestor_parser::NodeRef::ParamRef(_)
                )
            })
    })
}

fn contains_agg(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x, Expr::Agg(_) | Expr::Grouping(_)) {
            found = true;
        }
    });
    found
}

/// Rewrite an expression over the input row into one over the aggregation
/// output: group keys and aggregate calls become columns.
fn agg_rewrite(
    e: Expr,
    (group, mask): (&[Expr], Option<usize>),
    aggs: &mut Vec<AggCall>,
    scope: &Scope,
    src: (&str, &[Node]),
) -> Result<Expr, DbError> {
    let ng = group.len() + usize::from(mask.is_some());
    e.rewrite(&mut |x| {
        if let Some(i) = group.iter().position(|g| g == x) {
            return Ok(Some(Expr::Col(i)));
        }
        match x {
            Expr::Grouping(args) => grouping::rewrite_grouping(args, group, mask, src).map(Some),
            Expr::Agg(a) => {
                for d in &a.direct {
                    check_direct_arg(d, (group, mask), scope, src)?;
                }
                let i = match aggs.iter().position(|y| y == a.as_ref()) {
                    Some(i) => i,
                    None => {
                        aggs.push((**a).clone());
                        aggs.len() - 1
                    }
                };
                Ok(Some(Expr::Col(ng + i)))
            }
            Expr::Col(c) => {
                let col = &scope.cols[*c];
                Err(err_at(
                    DbError::new(
                        SqlState::GroupingError,
                        format!(
                            "column \"{}.{}\" must appear in the GROUP BY clause or be used in an aggregate function",
                            col.rel, col.name
                        ),
                    ),
                    src.0,
                    column_ref_location(src.1, &col.name),
                ))
            }
            _ => Ok(None),
        }
    })
}

/// An ordered-set aggregate's direct argument may read grouped columns
/// only (PostgreSQL checks it as though it were outside the aggregate).
fn check_direct_arg(
    d: &Expr,
    (group, mask): (&[Expr], Option<usize>),
    scope: &Scope,
    src: (&str, &[Node]),
) -> Result<(), DbError> {
    let r = agg_rewrite(
        d.clone(),
        (group, mask),
        &mut Vec::new(),
        scope,
        (src.0, &[]),
    );
    match r {
        Err(e) if e.code == SqlState::GroupingError && e.position.is_none() => {
            let mut name = None;
            d.walk(&mut |x| {
                if let (None, Expr::Col(c)) = (&name, x) {
                    if group.iter().all(|g| g != x) {
                        name = Some(scope.cols[*c].name.clone());
                    }
                }
            });
            let loc = name.map_or(-1, |n| direct_arg_ref_location(src.1, &n));
            Err(err_at(
                e.with_detail(
                    "Direct arguments of an ordered-set aggregate must use only grouped columns.",
                ),
                src.0,
                loc,
            ))
        }
        r => r.map(|_| ()),
    }
}

/// The location of the first reference to column `name` among the direct
/// arguments of ordered-set aggregate calls in `nodes`.
fn direct_arg_ref_location(nodes: &[Node], name: &str) -> i32 {
    let mut refs = Vec::new();
    for n in nodes.iter().filter_map(|n| n.node.as_ref()) {
        for (r, ..) in n.nodes() {
            let nestor_parser::NodeRef::FuncCall(f) = r else {
                continue;
            };
            if !f.agg_within_group {
                continue;
            }
            for a in f.args.iter().filter_map(|a| a.node.as_ref()) {
                for (inner, ..) in a.nodes() {
                    match inner {
                        nestor_parser::NodeRef::ColumnRef(c)
                            if c.fields.last().and_then(bind::str_val) == Some(name) =>
                        {
                            refs.push(c.location)
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    refs.into_iter().filter(|l| *l >= 0).min().unwrap_or(-1)
}

/// The location of the first reference to column `name` in `nodes` (for
/// errors found after binding, when only the bound column is known).
/// References inside aggregate calls do not count.
fn column_ref_location(nodes: &[Node], name: &str) -> i32 {
    let mut refs = Vec::new();
    let mut in_aggs = Vec::new();
    for n in nodes.iter().filter_map(|n| n.node.as_ref()) {
        for (r, ..) in n.nodes() {
            match r {
                nestor_parser::NodeRef::ColumnRef(c)
                    if c.fields.last().and_then(bind::str_val) == Some(name) && c.location >= 0 =>
                {
                    refs.push(c.location)
                }
                nestor_parser::NodeRef::FuncCall(f)
                    if bind::names(&f.funcname)
                        .last()
                        .is_some_and(|n| bind::is_aggregate(n)) =>
                {
                    for (inner, ..) in NodeEnum::FuncCall(Box::new(f.clone())).nodes() {
                        if let nestor_parser::NodeRef::ColumnRef(c) = inner {
                            in_aggs.push(c.location);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    refs.into_iter()
        .filter(|l| !in_aggs.contains(l))
        .min()
        .unwrap_or(-1)
}

/// Where a subquery in `nodes` names the column `rel.name` (qualified or
/// not): the first such reference, else [`column_ref_location`]'s.
fn sub_column_ref_location(nodes: &[Node], rel: &str, name: &str) -> i32 {
    let mut found = Vec::new();
    for n in nodes.iter().filter_map(|n| n.node.as_ref()) {
        for (r, ..) in n.nodes() {
            let nestor_parser::NodeRef::SubLink(sl) = r else {
                continue;
            };
            let Some(sub) = sl.subselect.as_ref().and_then(|s| s.node.as_ref()) else {
                continue;
            };
            for (inner, ..) in sub.nodes() {
                if let nestor_parser::NodeRef::ColumnRef(c) = inner {
                    let parts = bind::names(&c.fields);
                    let hit = match parts.as_slice() {
                        [n] => n == name,
                        [r, n] => r == rel && n == name,
                        _ => false,
                    };
                    if hit && c.location >= 0 {
                        found.push(c.location);
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .min()
        .unwrap_or_else(|| column_ref_location(nodes, name))
}

/// A WITH item may not be a MERGE (PostgreSQL 15's 0A000, at the item).
pub(crate) fn reject_merge_cte(b: &Binder, cte: &pb::CommonTableExpr) -> Result<(), DbError> {
    if let Some(NodeEnum::MergeStmt(_)) = cte.ctequery.as_deref().and_then(|q| q.node.as_ref()) {
        return Err(err_at(
            DbError::new(
                SqlState::FeatureNotSupported,
                "MERGE not supported in WITH query",
            ),
            b.text,
            cte.location,
        ));
    }
    Ok(())
}
