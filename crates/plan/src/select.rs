//! Planning of queries (SELECT, VALUES, set operations, WITH).
//!
//! One pass per query level:
//!
//! ```text
//!   WITH ctes            -> CteScan leaves (materialized once per execution)
//!   FROM items           -> a join tree of leaves (tables, subqueries, VALUES,
//!                           functions, system views); the level's Scope is the
//!                           concatenation of their columns
//!   WHERE                -> conjuncts, pushed down the join tree as far as
//!                           they can go; at a table leaf they pick the index
//!   GROUP BY / aggregates-> Aggregate (output: group keys, then aggregates);
//!                           targets, HAVING and ORDER BY are rewritten on top
//!   ORDER BY             -> Sort on the input row (or the output for DISTINCT)
//!   FOR UPDATE           -> LockRows (re-checks WHERE on newer versions)
//!   targets              -> Project;  DISTINCT -> Distinct;  LIMIT -> Limit
//! ```
//!
//! Joins are nested loops; when the inner side is a table with an index on
//! a column the join condition equates with an expression of the outer
//! side, the inner side becomes a parameterized index scan (one O(log n)
//! lookup per outer row).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_txn::{LockMode, WaitPolicy};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::bind::{self, err_at, node, relname, req, AggCtx, Binder, Cte, Scope, ScopeCol};
use crate::ir::{AggCall, Cmp, Expr};
use crate::ir::{
    AggSpec, IndexKeys, JoinKind, LockTarget, OutCol, Plan, SortKey, TableFunc, SYS_COLS,
};
use crate::valops;
use nestor_catalog::TableDef;

/// A FROM item before physical planning.
#[allow(clippy::large_enum_variant)]
pub(crate) enum From {
    Table {
        table: Arc<TableDef>,
        alias: String,
        offset: usize,
    },
    /// A leaf with a fixed plan (subquery, VALUES, CTE, function).
    Other {
        plan: Plan,
        offset: usize,
        width: usize,
    },
    SysView {
        view: crate::sysviews::View,
        offset: usize,
        width: usize,
    },
    Join {
        kind: JoinKind,
        left: Box<From>,
        right: Box<From>,
        on: Vec<Expr>,
        offset: usize,
        width: usize,
    },
}

impl From {
    pub(crate) fn range(&self) -> (usize, usize) {
        match self {
            From::Table { table, offset, .. } => {
                (*offset, *offset + table.columns.len() + SYS_COLS)
            }
            From::Other { offset, width, .. }
            | From::SysView { offset, width, .. }
            | From::Join { offset, width, .. } => (*offset, *offset + *width),
        }
    }
}

/// Plan a query at a new nesting level. Sets `b.last_correlated`.
pub fn plan_query(b: &mut Binder, sel: &pb::SelectStmt) -> Result<(Plan, Vec<OutCol>), DbError> {
    let level = b.scopes.len();
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let saved_agg = b.agg;
    let ctes_len = b.ctes.len();
    let r = plan_select(b, sel);
    b.ctes.truncate(ctes_len);
    b.agg = saved_agg;
    b.scopes.pop();
    let refs = b.outer_refs.pop().flatten();
    b.last_correlated = refs.is_some_and(|m| m < level);
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
    if sel.into_clause.is_some() {
        return Err(DbError::unsupported("SELECT INTO"));
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

fn plan_with(b: &mut Binder, w: &pb::WithClause) -> Result<(), DbError> {
    if w.recursive {
        return Err(DbError::unsupported("WITH RECURSIVE"));
    }
    for c in &w.ctes {
        let NodeEnum::CommonTableExpr(cte) = node(c)? else {
            return Err(DbError::internal("WITH item is not a CTE"));
        };
        let sel = match node(req(&cte.ctequery)?)? {
            NodeEnum::SelectStmt(s) => s,
            _ => return Err(DbError::unsupported("data-modifying statements in WITH")),
        };
        // A CTE is planned as a sibling query: its own level.
        let (plan, mut cols) = plan_query(b, sel)?;
        let alias = bind::names(&cte.aliascolnames);
        for (c, a) in cols.iter_mut().zip(alias) {
            c.name = a;
        }
        let id = b.fresh_id();
        b.ctes.push(Cte {
            name: cte.ctename.clone(),
            id,
            plan: Arc::new(plan),
            cols,
        });
    }
    Ok(())
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
    let mut cols = lc.clone();
    let mut lcast = Vec::new();
    let mut rcast = Vec::new();
    for (i, (a, c)) in lc.iter().zip(&rc).enumerate() {
        // A quoted literal output by a leaf SELECT is still of unknown type
        // here (PostgreSQL resolves it with the other side's type).
        let (llit, rlit) = (leaf_literal(l, i), leaf_literal(r, i));
        let (lt, rt) = (
            if llit.is_some() {
                DataType::Unknown
            } else {
                a.ty
            },
            if rlit.is_some() {
                DataType::Unknown
            } else {
                c.ty
            },
        );
        let located = [
            (
                lt,
                leaf_target(l, i).map_or(-1, |(n, _)| bind::expr_location(n)),
            ),
            (
                rt,
                leaf_target(r, i).map_or(-1, |(n, _)| bind::expr_location(n)),
            ),
        ];
        let t = b.common_type_at(&located, name)?;
        for (text, loc) in [llit, rlit].into_iter().flatten() {
            if !t.is_string() {
                valops::cast(Value::Text(Arc::from(text)), t, false, &b.eval)
                    .map_err(|e| err_at(e, b.text, loc))?;
            }
        }
        cols[i].ty = t;
        cols[i].table_oid = 0;
        cols[i].column_id = 0;
        lcast.push(if a.ty == t {
            Expr::Col(i)
        } else {
            Expr::Cast(Box::new(Expr::Col(i)), t)
        });
        rcast.push(if c.ty == t {
            Expr::Col(i)
        } else {
            Expr::Cast(Box::new(Expr::Col(i)), t)
        });
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
        pb::SetOperation::SetopUnion => {
            let app = Plan::Append {
                inputs: vec![lp, rp],
            };
            if sel.all {
                app
            } else {
                Plan::Distinct {
                    input: Box::new(app),
                }
            }
        }
        _ => Plan::SetOp {
            left: Box::new(lp),
            right: Box::new(rp),
            intersect: op == pb::SetOperation::SetopIntersect,
            all: sel.all,
        },
    };
    finish_simple_output(b, sel, plan, cols)
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
        cols: cols
            .iter()
            .map(|c| ScopeCol {
                rel: String::new(),
                name: c.name.clone(),
                ty: c.ty,
                hidden: false,
                table_oid: 0,
                attnum: 0,
                merged: false,
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
                None => b.bind(req(&sb.node)?)?.0,
            };
            keys.push(sort_key(expr, sb));
        }
        plan = Plan::Sort {
            input: Box::new(plan),
            keys,
        };
    }
    plan = plan_limit(b, sel, plan)?;
    if !sel.locking_clause.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FOR UPDATE is not allowed with UNION/INTERSECT/EXCEPT",
        ));
    }
    Ok((plan, cols))
}

fn plan_values(b: &mut Binder, lists: &[Node]) -> Result<(Plan, Vec<OutCol>), DbError> {
    let mut rows: Vec<Vec<(Expr, DataType)>> = Vec::new();
    for l in lists {
        let NodeEnum::List(items) = node(l)? else {
            return Err(DbError::internal("VALUES row is not a list"));
        };
        let mut row = Vec::new();
        for i in &items.items {
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

fn plan_simple(b: &mut Binder, sel: &pb::SelectStmt) -> Result<(Plan, Vec<OutCol>), DbError> {
    if let Some(rewritten) = srf_target_as_from(sel) {
        return plan_simple(b, &rewritten);
    }
    // FROM
    let mut items = Vec::new();
    let mut offset = 0;
    let mut scope = Scope::default();
    for f in &sel.from_clause {
        let item = plan_from_item(b, f, &mut offset, &mut scope)?;
        items.push(item);
    }
    let top = b.level();
    b.scopes[top] = scope;
    let tree = items.into_iter().reduce(|l, r| {
        let (lo, _) = l.range();
        let (_, rh) = r.range();
        From::Join {
            kind: JoinKind::Inner,
            left: Box::new(l),
            right: Box::new(r),
            on: Vec::new(),
            offset: lo,
            width: rh - lo,
        }
    });
    // WHERE
    b.agg = AggCtx::NotAllowed("WHERE");
    let where_expr = match &sel.where_clause {
        Some(w) => Some(b.bind_bool(w, "WHERE")?),
        None => None,
    };
    let lock_tables = lock_targets(b, sel, tree.as_ref())?;
    let mut plan = match tree {
        None => Plan::Single,
        Some(t) => {
            let conj = where_expr.clone().map(conjuncts).unwrap_or_default();
            let (p, rest) = build(b, t, conj, None)?;
            with_filter(p, rest)
        }
    };
    if where_expr.is_some() && matches!(plan, Plan::Single) {
        plan = Plan::Filter {
            input: Box::new(plan),
            pred: where_expr.clone().unwrap_or(Expr::Const(Value::Bool(true))),
        };
    }
    // Targets (aggregates allowed)
    b.agg = AggCtx::Allowed;
    let mut targets = bind_targets(b, &sel.target_list)?;
    let having = match &sel.having_clause {
        Some(h) => Some(b.bind_bool(h, "HAVING")?),
        None => None,
    };
    let mut group = Vec::new();
    b.agg = AggCtx::NotAllowed("GROUP BY");
    for g in &sel.group_clause {
        group.push(bind_group_item(b, g, &targets)?);
    }
    b.agg = AggCtx::Allowed;
    let distinct = !sel.distinct_clause.is_empty();
    if distinct && sel.distinct_clause.iter().any(|n| n.node.is_some()) {
        return Err(DbError::unsupported("SELECT DISTINCT ON"));
    }
    // ORDER BY keys over the input row (or output columns with DISTINCT).
    let mut sort = Vec::new();
    for s in &sel.sort_clause {
        let NodeEnum::SortBy(sb) = node(s)? else {
            return Err(DbError::internal("ORDER BY item is not SortBy"));
        };
        let out_cols: Vec<OutCol> = targets.iter().map(|t| t.col.clone()).collect();
        let e =
            match output_ref(b, req(&sb.node)?, &out_cols)? {
                Some(i) if distinct => Expr::Col(i),
                Some(i) => targets[i].expr.clone(),
                None if distinct => {
                    let (e, _) = b.bind(req(&sb.node)?)?;
                    match targets.iter().position(|t| t.expr == e) {
                        Some(i) => Expr::Col(i),
                        None => return Err(DbError::new(
                            SqlState::InvalidColumnReference,
                            "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                        )),
                    }
                }
                None => b.bind(req(&sb.node)?)?.0,
            };
        sort.push(sort_key(e, sb));
    }
    let has_agg = targets.iter().any(|t| contains_agg(&t.expr))
        || having.as_ref().is_some_and(contains_agg)
        || (!distinct && sort.iter().any(|k| contains_agg(&k.expr)));
    if has_agg || !group.is_empty() {
        if !lock_tables.is_empty() {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "FOR UPDATE is not allowed with aggregate functions",
            ));
        }
        let scope = b.scopes[top].clone();
        let mut aggs: Vec<AggCall> = Vec::new();
        for t in &mut targets {
            t.expr = agg_rewrite(
                std::mem::replace(&mut t.expr, Expr::Const(Value::Null)),
                &group,
                &mut aggs,
                &scope,
                (b.text, &sel.target_list),
            )?;
        }
        let having = having
            .map(|h| {
                let src = sel.having_clause.as_deref().map(std::slice::from_ref);
                agg_rewrite(h, &group, &mut aggs, &scope, (b.text, src.unwrap_or(&[])))
            })
            .transpose()?;
        if !distinct {
            for k in &mut sort {
                k.expr = agg_rewrite(
                    std::mem::replace(&mut k.expr, Expr::Const(Value::Null)),
                    &group,
                    &mut aggs,
                    &scope,
                    (b.text, &sel.sort_clause),
                )?;
            }
        }
        for t in &targets {
            if has_correlated_sub(&t.expr) {
                return Err(DbError::unsupported(
                    "correlated subqueries in the select list of an aggregate query",
                ));
            }
        }
        plan = Plan::Aggregate {
            input: Box::new(plan),
            group,
            aggs: aggs.into_iter().map(|call| AggSpec { call }).collect(),
        };
        if let Some(h) = having {
            plan = Plan::Filter {
                input: Box::new(plan),
                pred: h,
            };
        }
    } else if let Some(h) = having {
        // HAVING without aggregates or GROUP BY: one group of all rows.
        let _ = h;
        return Err(DbError::unsupported(
            "HAVING without GROUP BY or aggregates",
        ));
    }
    if !distinct && !sort.is_empty() {
        plan = Plan::Sort {
            input: Box::new(plan),
            keys: sort.clone(),
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
    let cols: Vec<OutCol> = targets.iter().map(|t| t.col.clone()).collect();
    plan = Plan::Project {
        input: Box::new(plan),
        exprs: targets.into_iter().map(|t| t.expr).collect(),
    };
    if distinct {
        plan = Plan::Distinct {
            input: Box::new(plan),
        };
        if !sort.is_empty() {
            plan = Plan::Sort {
                input: Box::new(plan),
                keys: sort,
            };
        }
    }
    plan = plan_limit(b, sel, plan)?;
    Ok((plan, cols))
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
                    Some("generate_series" | "unnest")
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

fn has_correlated_sub(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let Expr::Sub(s) = x {
            if s.correlated {
                found = true;
            }
        }
    });
    found
}

fn contains_agg(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x, Expr::Agg(_)) {
            found = true;
        }
    });
    found
}

/// Rewrite an expression over the input row into one over the aggregation
/// output: group keys and aggregate calls become columns.
fn agg_rewrite(
    e: Expr,
    group: &[Expr],
    aggs: &mut Vec<AggCall>,
    scope: &Scope,
    src: (&str, &[Node]),
) -> Result<Expr, DbError> {
    let ng = group.len();
    e.rewrite(&mut |x| {
        if let Some(i) = group.iter().position(|g| g == x) {
            return Ok(Some(Expr::Col(i)));
        }
        match x {
            Expr::Agg(a) => {
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

fn bind_group_item(b: &mut Binder, g: &Node, targets: &[Target]) -> Result<Expr, DbError> {
    let cols: Vec<OutCol> = targets.iter().map(|t| t.col.clone()).collect();
    // A bare name binds to an input column first (PostgreSQL's rule for
    // GROUP BY), then to an output alias; a number is a target position.
    if let NodeEnum::AConst(_) = node(g)? {
        if let Some(i) = output_ref(b, g, &cols)? {
            return Ok(targets[i].expr.clone());
        }
    }
    match b.bind(g) {
        Ok((e, _)) => Ok(e),
        Err(e) if e.code == SqlState::UndefinedColumn => match output_ref(b, g, &cols)? {
            Some(i) => Ok(targets[i].expr.clone()),
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// An ORDER BY / GROUP BY item that names an output column: a position
/// (`ORDER BY 2`) or a bare output name (`ORDER BY total`).
fn output_ref(b: &Binder, n: &Node, cols: &[OutCol]) -> Result<Option<usize>, DbError> {
    match node(n)? {
        NodeEnum::AConst(c) => {
            if let Some(pb::a_const::Val::Ival(i)) = &c.val {
                let k = i.ival;
                if k < 1 || k as usize > cols.len() {
                    return Err(err_at(
                        DbError::new(
                            SqlState::InvalidColumnReference,
                            format!("ORDER BY position {k} is not in select list"),
                        ),
                        b.text,
                        c.location,
                    ));
                }
                return Ok(Some(k as usize - 1));
            }
            Ok(None)
        }
        NodeEnum::ColumnRef(c) if c.fields.len() == 1 => {
            let Some(name) = c.fields.first().and_then(bind::str_val) else {
                return Ok(None);
            };
            let hits: Vec<usize> = cols
                .iter()
                .enumerate()
                .filter(|(_, c)| c.name == name)
                .map(|(i, _)| i)
                .collect();
            Ok(if hits.len() == 1 { Some(hits[0]) } else { None })
        }
        _ => Ok(None),
    }
}

fn sort_key(expr: Expr, sb: &pb::SortBy) -> SortKey {
    let desc = sb.sortby_dir == pb::SortByDir::SortbyDesc as i32;
    let nulls_first = match pb::SortByNulls::try_from(sb.sortby_nulls) {
        Ok(pb::SortByNulls::SortbyNullsFirst) => true,
        Ok(pb::SortByNulls::SortbyNullsLast) => false,
        _ => desc,
    };
    SortKey {
        expr,
        desc,
        nulls_first,
    }
}

fn plan_limit(b: &mut Binder, sel: &pb::SelectStmt, plan: Plan) -> Result<Plan, DbError> {
    if sel.limit_count.is_none() && sel.limit_offset.is_none() {
        return Ok(plan);
    }
    if sel.limit_option == pb::LimitOption::WithTies as i32 {
        return Err(DbError::unsupported("FETCH ... WITH TIES"));
    }
    let saved = b.agg;
    b.agg = AggCtx::NotAllowed("LIMIT");
    let mut bind_int = |n: &Option<Box<Node>>| -> Result<Option<Expr>, DbError> {
        match n {
            None => Ok(None),
            Some(n) => {
                let (e, t) = b.bind(n)?;
                if matches!(e, Expr::Const(Value::Null)) {
                    return Ok(None);
                }
                Ok(Some(b.coerce(e, t, DataType::Int8)?))
            }
        }
    };
    let limit = bind_int(&sel.limit_count)?;
    let offset = bind_int(&sel.limit_offset)?;
    b.agg = saved;
    Ok(Plan::Limit {
        input: Box::new(plan),
        limit,
        offset,
    })
}

fn lock_mode(sel: &pb::SelectStmt) -> Result<(LockMode, WaitPolicy), DbError> {
    let mut mode = LockMode::KeyShare;
    let mut policy = WaitPolicy::Block;
    for l in &sel.locking_clause {
        let NodeEnum::LockingClause(lc) = node(l)? else {
            continue;
        };
        let m = match pb::LockClauseStrength::try_from(lc.strength) {
            Ok(pb::LockClauseStrength::LcsForkeyshare) => LockMode::KeyShare,
            Ok(pb::LockClauseStrength::LcsForshare) => LockMode::Share,
            Ok(pb::LockClauseStrength::LcsFornokeyupdate) => LockMode::NoKeyUpdate,
            _ => LockMode::Update,
        };
        mode = mode.max(m);
        policy = match pb::LockWaitPolicy::try_from(lc.wait_policy) {
            Ok(pb::LockWaitPolicy::LockWaitSkip) => WaitPolicy::SkipLocked,
            Ok(pb::LockWaitPolicy::LockWaitError) => WaitPolicy::NoWait,
            _ => policy,
        };
    }
    Ok((mode, policy))
}

/// Tables locked by FOR UPDATE/SHARE (all tables, or those named by OF).
fn lock_targets(
    b: &Binder,
    sel: &pb::SelectStmt,
    tree: Option<&From>,
) -> Result<Vec<LockTarget>, DbError> {
    if sel.locking_clause.is_empty() {
        return Ok(Vec::new());
    }
    if !sel.distinct_clause.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FOR UPDATE is not allowed with DISTINCT clause",
        ));
    }
    if !sel.group_clause.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FOR UPDATE is not allowed with GROUP BY clause",
        ));
    }
    let mut named: Vec<String> = Vec::new();
    for l in &sel.locking_clause {
        if let NodeEnum::LockingClause(lc) = node(l)? {
            for r in &lc.locked_rels {
                if let NodeEnum::RangeVar(rv) = node(r)? {
                    named.push(rv.relname.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut stack: Vec<&From> = tree.into_iter().collect();
    while let Some(f) = stack.pop() {
        match f {
            From::Table {
                table,
                alias,
                offset,
            } if named.is_empty() || named.contains(alias) => {
                out.push(LockTarget {
                    table: table.clone(),
                    offset: *offset,
                });
            }
            From::Join { left, right, .. } => {
                stack.push(left);
                stack.push(right);
            }
            _ => {}
        }
    }
    let _ = b;
    if out.is_empty() && !named.is_empty() {
        return Err(DbError::new(
            SqlState::UndefinedTable,
            format!(
                "relation \"{}\" in FOR UPDATE clause not found in FROM clause",
                named[0]
            ),
        ));
    }
    Ok(out)
}

pub(crate) fn bind_targets(b: &mut Binder, list: &[Node]) -> Result<Vec<Target>, DbError> {
    let mut out = Vec::new();
    for t in list {
        let NodeEnum::ResTarget(rt) = node(t)? else {
            return Err(DbError::internal("target is not ResTarget"));
        };
        let val = req(&rt.val)?;
        if let Some(star) = star_rel(val)? {
            expand_star(b, star.as_deref(), &mut out, rt.location)?;
            continue;
        }
        let (expr, ty) = b.bind(val)?;
        let name = if rt.name.is_empty() {
            derive_name(val)
        } else {
            rt.name.clone()
        };
        let (table_oid, column_id) = match &expr {
            Expr::Col(c) => {
                let sc = &b.scopes[b.level()].cols[*c];
                (sc.table_oid, sc.attnum)
            }
            _ => (0, 0),
        };
        let ty = if ty == DataType::Unknown {
            DataType::Text
        } else {
            ty
        };
        out.push(Target {
            expr,
            col: OutCol {
                name,
                ty,
                table_oid,
                column_id,
            },
        });
    }
    Ok(out)
}

/// `*` (Some(None)) or `t.*` (Some(Some(t))).
fn star_rel(n: &Node) -> Result<Option<Option<String>>, DbError> {
    if let NodeEnum::ColumnRef(c) = node(n)? {
        if let Some(last) = c.fields.last() {
            if matches!(last.node, Some(NodeEnum::AStar(_))) {
                let rel = if c.fields.len() >= 2 {
                    bind::str_val(&c.fields[c.fields.len() - 2]).map(str::to_string)
                } else {
                    None
                };
                return Ok(Some(rel));
            }
        }
    }
    Ok(None)
}

fn expand_star(
    b: &Binder,
    rel: Option<&str>,
    out: &mut Vec<Target>,
    location: i32,
) -> Result<(), DbError> {
    let scope = &b.scopes[b.level()];
    if rel.is_none() && scope.cols.is_empty() {
        return Err(err_at(
            DbError::new(
                SqlState::SyntaxError,
                "SELECT * with no tables specified is not valid",
            ),
            b.text,
            location,
        ));
    }
    let mut any = false;
    for (i, c) in scope.cols.iter().enumerate() {
        if c.hidden || rel.is_some_and(|r| r != c.rel) {
            continue;
        }
        any = true;
        out.push(Target {
            expr: Expr::Col(i),
            col: OutCol {
                name: c.name.clone(),
                ty: c.ty,
                table_oid: c.table_oid,
                column_id: c.attnum,
            },
        });
    }
    if let (Some(r), false) = (rel, any) {
        if !scope.cols.iter().any(|c| c.rel == r) {
            return Err(err_at(
                DbError::new(
                    SqlState::UndefinedTable,
                    format!("missing FROM-clause entry for table \"{r}\""),
                ),
                b.text,
                location,
            ));
        }
    }
    Ok(())
}

/// PostgreSQL's column name for an unnamed target.
pub fn derive_name(n: &Node) -> String {
    match n.node.as_ref() {
        Some(NodeEnum::ColumnRef(c)) => c
            .fields
            .last()
            .and_then(bind::str_val)
            .unwrap_or("?column?")
            .to_string(),
        Some(NodeEnum::FuncCall(f)) => bind::names(&f.funcname)
            .last()
            .cloned()
            .unwrap_or_else(|| "?column?".into()),
        Some(NodeEnum::TypeCast(t)) => {
            let inner = t
                .arg
                .as_deref()
                .map(derive_name)
                .unwrap_or_else(|| "?column?".into());
            if inner != "?column?" {
                return inner;
            }
            t.type_name
                .as_ref()
                .and_then(|tn| bind::names(&tn.names).last().cloned())
                .map(|n| match n.as_str() {
                    "int4" => "int4".to_string(),
                    _ => n,
                })
                .unwrap_or(inner)
        }
        Some(NodeEnum::CaseExpr(_)) => "case".into(),
        Some(NodeEnum::CoalesceExpr(_)) => "coalesce".into(),
        Some(NodeEnum::MinMaxExpr(m)) => {
            if m.op == pb::MinMaxOp::IsGreatest as i32 {
                "greatest".into()
            } else {
                "least".into()
            }
        }
        Some(NodeEnum::SqlvalueFunction(f)) => {
            use pb::SqlValueFunctionOp as Op;
            match Op::try_from(f.op) {
                Ok(Op::SvfopCurrentTimestamp | Op::SvfopCurrentTimestampN) => "current_timestamp",
                Ok(Op::SvfopCurrentDate) => "current_date",
                Ok(Op::SvfopCurrentUser) => "current_user",
                Ok(Op::SvfopSessionUser) => "session_user",
                Ok(Op::SvfopUser) => "user",
                Ok(Op::SvfopCurrentRole) => "current_role",
                Ok(Op::SvfopCurrentCatalog) => "current_catalog",
                Ok(Op::SvfopCurrentSchema) => "current_schema",
                Ok(Op::SvfopLocaltimestamp | Op::SvfopLocaltimestampN) => "localtimestamp",
                _ => "?column?",
            }
            .into()
        }
        Some(NodeEnum::SubLink(s)) => {
            if s.sub_link_type == pb::SubLinkType::ExistsSublink as i32 {
                return "exists".into();
            }
            if let Some(NodeEnum::SelectStmt(sel)) =
                s.subselect.as_deref().and_then(|n| n.node.as_ref())
            {
                if let Some(Some(NodeEnum::ResTarget(rt))) =
                    sel.target_list.first().map(|t| t.node.as_ref())
                {
                    if !rt.name.is_empty() {
                        return rt.name.clone();
                    }
                    if let Some(v) = rt.val.as_deref() {
                        return derive_name(v);
                    }
                }
            }
            "?column?".into()
        }
        Some(NodeEnum::AExpr(a)) if a.kind == pb::AExprKind::AexprNullif as i32 => "nullif".into(),
        _ => "?column?".into(),
    }
}

/// Add a FROM item's columns to `scope` and return its tree node.
pub(crate) fn plan_from_item(
    b: &mut Binder,
    n: &Node,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    match node(n)? {
        NodeEnum::RangeVar(rv) => plan_range_var(b, rv, offset, scope),
        NodeEnum::JoinExpr(j) => plan_join(b, j, offset, scope),
        NodeEnum::RangeSubselect(rs) => {
            if rs.lateral {
                return Err(DbError::unsupported("LATERAL"));
            }
            let NodeEnum::SelectStmt(sel) = node(req(&rs.subquery)?)? else {
                return Err(DbError::internal("subquery in FROM is not a SELECT"));
            };
            let (plan, cols) = plan_query(b, sel)?;
            mark_correlation(b, b.last_correlated);
            let alias = rs
                .alias
                .as_ref()
                .map(|a| a.aliasname.clone())
                .unwrap_or_default();
            check_alias(scope, &alias)?;
            let colnames = rs
                .alias
                .as_ref()
                .map(|a| bind::names(&a.colnames))
                .unwrap_or_default();
            Ok(add_leaf(plan, &alias, cols, &colnames, offset, scope))
        }
        NodeEnum::RangeFunction(rf) => plan_range_function(b, rf, offset, scope),
        other => Err(DbError::unsupported(format!(
            "FROM item {}",
            bind::node_kind(other)
        ))),
    }
}

/// A range variable's name must be unique in its FROM list.
fn check_alias(scope: &Scope, alias: &str) -> Result<(), DbError> {
    if !alias.is_empty() && scope.cols.iter().any(|c| c.rel == alias) {
        return Err(DbError::new(
            SqlState::DuplicateAlias,
            format!("table name \"{alias}\" specified more than once"),
        ));
    }
    Ok(())
}

fn add_leaf(
    plan: Plan,
    alias: &str,
    cols: Vec<OutCol>,
    colnames: &[String],
    offset: &mut usize,
    scope: &mut Scope,
) -> From {
    let width = cols.len();
    for (i, c) in cols.into_iter().enumerate() {
        scope.cols.push(ScopeCol {
            rel: alias.to_string(),
            name: colnames.get(i).cloned().unwrap_or(c.name),
            ty: c.ty,
            hidden: false,
            table_oid: c.table_oid,
            attnum: c.column_id,
            merged: false,
        });
    }
    let f = From::Other {
        plan,
        offset: *offset,
        width,
    };
    *offset += width;
    f
}

fn plan_range_var(
    b: &mut Binder,
    rv: &pb::RangeVar,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let name = relname(rv)?;
    let alias = rv
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or_else(|| name.clone());
    check_alias(scope, &alias)?;
    let colnames = rv
        .alias
        .as_ref()
        .map(|a| bind::names(&a.colnames))
        .unwrap_or_default();
    if rv.schemaname.is_empty() || rv.schemaname == "public" {
        if let Some(cte) = b.ctes.iter().rev().find(|c| c.name == name).cloned() {
            let plan = Plan::CteScan {
                id: cte.id,
                name: name.clone(),
                plan: cte.plan.clone(),
            };
            return Ok(add_leaf(
                plan,
                &alias,
                cte.cols.clone(),
                &colnames,
                offset,
                scope,
            ));
        }
    }
    if rv.schemaname != "pg_catalog" && rv.schemaname != "information_schema" {
        if let Some(t) = b.catalog.table(&name) {
            return Ok(add_table(t, &alias, &colnames, offset, scope));
        }
    }
    if let Some(view) = crate::sysviews::View::by_name(&name) {
        let cols = view.columns();
        let width = cols.len();
        for (i, (cname, ty)) in cols.into_iter().enumerate() {
            scope.cols.push(ScopeCol {
                rel: alias.clone(),
                name: colnames
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| cname.to_string()),
                ty,
                hidden: false,
                table_oid: 0,
                attnum: 0,
                merged: false,
            });
        }
        let f = From::SysView {
            view,
            offset: *offset,
            width,
        };
        *offset += width;
        return Ok(f);
    }
    Err(err_at(
        DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        ),
        b.text,
        rv.location,
    ))
}

/// The scope of one table's row (its columns, then the hidden system
/// columns): what CHECK constraints and RETURNING lists bind against.
pub fn table_scope(t: &Arc<TableDef>, alias: &str) -> Scope {
    let mut scope = Scope::default();
    add_table(t.clone(), alias, &[], &mut 0, &mut scope);
    scope
}

/// Add a table's columns (and hidden system columns) to the scope.
pub(crate) fn add_table(
    t: Arc<TableDef>,
    alias: &str,
    colnames: &[String],
    offset: &mut usize,
    scope: &mut Scope,
) -> From {
    let mut live = 0;
    for (i, c) in t.columns.iter().enumerate() {
        let name = if c.dropped {
            String::new()
        } else {
            let n = colnames
                .get(live)
                .cloned()
                .unwrap_or_else(|| c.name.clone());
            live += 1;
            n
        };
        scope.cols.push(ScopeCol {
            rel: alias.to_string(),
            name,
            ty: c.ty,
            hidden: c.dropped,
            table_oid: t.oid.0,
            attnum: i as i16 + 1,
            merged: false,
        });
    }
    for (name, attnum) in [("ctid", -1), ("xmin", -3), ("xmax", -5)] {
        scope.cols.push(ScopeCol {
            rel: alias.to_string(),
            name: name.to_string(),
            ty: if name == "ctid" {
                DataType::Text
            } else {
                DataType::Int8
            },
            hidden: true,
            table_oid: t.oid.0,
            attnum,
            merged: false,
        });
    }
    let f = From::Table {
        table: t.clone(),
        alias: alias.to_string(),
        offset: *offset,
    };
    *offset += t.columns.len() + SYS_COLS;
    f
}

fn plan_join(
    b: &mut Binder,
    j: &pb::JoinExpr,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let kind = match pb::JoinType::try_from(j.jointype) {
        Ok(pb::JoinType::JoinInner) => JoinKind::Inner,
        Ok(pb::JoinType::JoinLeft) => JoinKind::Left,
        Ok(pb::JoinType::JoinRight) => return Err(DbError::unsupported("RIGHT JOIN")),
        Ok(pb::JoinType::JoinFull) => return Err(DbError::unsupported("FULL JOIN")),
        _ => return Err(DbError::unsupported("this join type")),
    };
    if j.is_natural {
        return Err(DbError::unsupported("NATURAL JOIN"));
    }
    let start = *offset;
    let left = plan_from_item(b, req(&j.larg)?, offset, scope)?;
    let lscope_end = scope.cols.len();
    let right = plan_from_item(b, req(&j.rarg)?, offset, scope)?;
    let mut on = Vec::new();
    // Bind ON against the columns of this join only (plus outer levels).
    let top = b.level();
    let saved = std::mem::replace(&mut b.scopes[top], scope.clone());
    let result = (|| -> Result<(), DbError> {
        if let Some(q) = &j.quals {
            on = conjuncts(b.bind_bool(q, "JOIN/ON")?);
        }
        for u in &j.using_clause {
            let Some(col) = bind::str_val(u) else {
                continue;
            };
            let l = scope.cols[..lscope_end]
                .iter()
                .rposition(|c| c.name == col && !c.hidden)
                .ok_or_else(|| DbError::new(SqlState::UndefinedColumn, format!("column \"{col}\" specified in USING clause does not exist in left table")))?;
            let r = scope.cols[lscope_end..]
                .iter()
                .position(|c| c.name == col && !c.hidden)
                .map(|p| p + lscope_end)
                .ok_or_else(|| DbError::new(SqlState::UndefinedColumn, format!("column \"{col}\" specified in USING clause does not exist in right table")))?;
            on.push(Expr::Cmp(
                Cmp::Eq,
                Box::new(Expr::Col(l)),
                Box::new(Expr::Col(r)),
            ));
        }
        Ok(())
    })();
    b.scopes[top] = saved;
    result?;
    if !j.using_clause.is_empty() {
        // USING columns are visible once: hide the right side's copies.
        for u in &j.using_clause {
            if let Some(col) = bind::str_val(u) {
                if let Some(c) = scope.cols[lscope_end..].iter_mut().find(|c| c.name == col) {
                    c.hidden = true;
                    c.merged = true;
                }
            }
        }
    }
    if let Some(a) = &j.alias {
        for c in &mut scope.cols[start..] {
            c.rel = a.aliasname.clone();
        }
    }
    Ok(From::Join {
        kind,
        left: Box::new(left),
        right: Box::new(right),
        on,
        offset: start,
        width: *offset - start,
    })
}

fn plan_range_function(
    b: &mut Binder,
    rf: &pb::RangeFunction,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    if rf.lateral || rf.ordinality || rf.is_rowsfrom || rf.functions.len() != 1 {
        return Err(DbError::unsupported("this form of function in FROM"));
    }
    let NodeEnum::List(l) = node(&rf.functions[0])? else {
        return Err(DbError::internal("RangeFunction item is not a list"));
    };
    let Some(NodeEnum::FuncCall(fc)) = l.items.first().and_then(|n| n.node.as_ref()) else {
        return Err(DbError::unsupported("this function in FROM"));
    };
    let fname = bind::names(&fc.funcname)
        .last()
        .cloned()
        .unwrap_or_default();
    let alias = rf
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or_else(|| fname.clone());
    let colnames = rf
        .alias
        .as_ref()
        .map(|a| bind::names(&a.colnames))
        .unwrap_or_default();
    match fname.as_str() {
        "generate_series" => {
            if !(2..=3).contains(&fc.args.len()) {
                return Err(DbError::unsupported("generate_series with these arguments"));
            }
            let mut args = Vec::new();
            let mut types = Vec::new();
            for a in &fc.args {
                let (e, t) = b.bind(a)?;
                args.push(e);
                types.push(t);
            }
            let ty = b.common_type(&types, "generate_series")?;
            if !ty.is_integer() {
                return Err(DbError::unsupported(format!(
                    "generate_series({})",
                    ty.name()
                )));
            }
            let ty = if ty == DataType::Int2 {
                DataType::Int4
            } else {
                ty
            };
            let args = args
                .into_iter()
                .zip(types)
                .map(|(e, t)| b.coerce(e, t, ty))
                .collect::<Result<Vec<_>, _>>()?;
            let name = colnames.first().cloned().unwrap_or_else(|| alias.clone());
            let plan = Plan::FunctionScan {
                func: TableFunc::GenerateSeries,
                args,
                name: fname.clone(),
            };
            let cols = vec![OutCol {
                name,
                ty,
                table_oid: 0,
                column_id: 0,
            }];
            Ok(add_leaf(plan, &alias, cols, &[], offset, scope))
        }
        _ => {
            // A scalar function in FROM yields one row.
            let (e, t) = b.bind(&l.items[0])?;
            let name = colnames.first().cloned().unwrap_or_else(|| alias.clone());
            let plan = Plan::Project {
                input: Box::new(Plan::Single),
                exprs: vec![e],
            };
            let ty = if t == DataType::Unknown {
                DataType::Text
            } else {
                t
            };
            let cols = vec![OutCol {
                name,
                ty,
                table_oid: 0,
                column_id: 0,
            }];
            Ok(add_leaf(plan, &alias, cols, &[], offset, scope))
        }
    }
}

/// Split an AND tree into its conjuncts.
pub fn conjuncts(e: Expr) -> Vec<Expr> {
    match e {
        Expr::And(v) => v.into_iter().flat_map(conjuncts).collect(),
        e => vec![e],
    }
}

fn and_all(mut v: Vec<Expr>) -> Option<Expr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(Expr::And(v)),
    }
}

pub(crate) fn with_filter(p: Plan, rest: Vec<Expr>) -> Plan {
    match and_all(rest) {
        None => p,
        Some(pred) => Plan::Filter {
            input: Box::new(p),
            pred,
        },
    }
}

fn within(e: &Expr, lo: usize, hi: usize) -> bool {
    e.columns().iter().all(|&c| c >= lo && c < hi)
}

/// Key expressions for a parameterized inner scan: conjuncts over the
/// whole join row, the left side's range (left row = positions from
/// `left_lo`).
pub(crate) struct JoinParam {
    left_lo: usize,
    left_hi: usize,
    conj: Vec<Expr>,
}

/// Build the physical plan of a FROM tree with `conj` (in the query
/// level's row coordinates) pushed down. Returns the plan (rows local to
/// the node's range) and the conjuncts it could not place.
pub(crate) fn build(
    b: &mut Binder,
    f: From,
    conj: Vec<Expr>,
    param: Option<JoinParam>,
) -> Result<(Plan, Vec<Expr>), DbError> {
    let (lo, hi) = f.range();
    let (mine, rest): (Vec<Expr>, Vec<Expr>) = conj.into_iter().partition(|e| within(e, lo, hi));
    match f {
        From::Table {
            table,
            alias,
            offset,
        } => {
            let local: Vec<Expr> = mine
                .into_iter()
                .map(|e| e.shift(-(offset as isize)))
                .collect();
            Ok((table_scan(b, table, alias, local, offset, param), rest))
        }
        From::Other { plan, offset, .. } => {
            let local: Vec<Expr> = mine
                .into_iter()
                .map(|e| e.shift(-(offset as isize)))
                .collect();
            Ok((with_filter(plan, local), rest))
        }
        From::SysView { view, offset, .. } => {
            let local: Vec<Expr> = mine
                .into_iter()
                .map(|e| e.shift(-(offset as isize)))
                .collect();
            Ok((
                Plan::SysView {
                    view,
                    filter: and_all(local),
                },
                rest,
            ))
        }
        From::Join {
            kind,
            left,
            right,
            on,
            offset,
            width,
        } => {
            let (llo, lhi) = left.range();
            let (rlo, rhi) = right.range();
            let mut to_left = Vec::new();
            let mut to_right = Vec::new();
            let mut at_join = Vec::new();
            let mut above = Vec::new();
            for e in mine {
                if within(&e, llo, lhi) {
                    to_left.push(e);
                } else if within(&e, rlo, rhi) && kind == JoinKind::Inner {
                    to_right.push(e);
                } else if kind == JoinKind::Inner {
                    at_join.push(e);
                } else {
                    above.push(e);
                }
            }
            for e in on {
                if within(&e, rlo, rhi) {
                    to_right.push(e);
                } else if within(&e, llo, lhi) && kind == JoinKind::Inner {
                    to_left.push(e);
                } else {
                    at_join.push(e);
                }
            }
            let (lp, lrest) = build(b, *left, to_left, None)?;
            let jp = JoinParam {
                left_lo: llo,
                left_hi: lhi,
                conj: at_join.clone(),
            };
            let (rp, rrest) = build(b, *right, to_right, Some(jp))?;
            at_join.extend(rrest);
            above.extend(lrest);
            let on_local: Vec<Expr> = at_join
                .into_iter()
                .map(|e| e.shift(-(offset as isize)))
                .collect();
            let plan = Plan::NestedLoop {
                left: Box::new(lp),
                right: Box::new(rp),
                kind,
                on: and_all(on_local),
                right_width: rhi - rlo,
            };
            let _ = width;
            let mut rest = rest;
            rest.extend(above);
            Ok((plan, rest))
        }
    }
}

/// A table leaf: pick an index for the conjuncts (local coordinates), or
/// a join-parameterized index lookup.
fn table_scan(
    b: &mut Binder,
    table: Arc<TableDef>,
    alias: String,
    local: Vec<Expr>,
    offset: usize,
    param: Option<JoinParam>,
) -> Plan {
    let _ = b;
    if let Some((index, keys, used)) = choose_index(&table, &local) {
        let filter: Vec<Expr> = local
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !used.contains(i))
            .map(|(_, e)| e)
            .collect();
        return Plan::IndexScan {
            table,
            alias,
            index,
            keys,
            filter: and_all(filter),
        };
    }
    if let Some(p) = param {
        if let Some((index, keys)) = join_index(&table, offset, &p) {
            return Plan::IndexScan {
                table,
                alias,
                index,
                keys,
                filter: and_all(local),
            };
        }
    }
    Plan::SeqScan {
        table,
        alias,
        filter: and_all(local),
    }
}

/// `Col(c) op e` or `e op Col(c)` with `e` computable before the scan.
fn col_cmp(e: &Expr) -> Option<(usize, Cmp, &Expr)> {
    if let Expr::Cmp(op, a, b) = e {
        if let Expr::Col(c) = a.as_ref() {
            if b.is_row_independent() {
                return Some((*c, *op, b));
            }
        }
        if let Expr::Col(c) = b.as_ref() {
            if a.is_row_independent() {
                return Some((*c, op.flip(), a));
            }
        }
    }
    None
}

fn indexable_type(t: DataType) -> bool {
    !matches!(
        t,
        DataType::Numeric(_) | DataType::Float4 | DataType::Float8
    )
}

/// The best index for the conjuncts: most equality columns, then a range
/// or IN list. Returns the index, keys, and the conjuncts it covers.
fn choose_index(
    table: &TableDef,
    conj: &[Expr],
) -> Option<(nestor_catalog::IndexDef, IndexKeys, Vec<usize>)> {
    let mut best: Option<(usize, nestor_catalog::IndexDef, IndexKeys, Vec<usize>)> = None;
    for idx in &table.indexes {
        let mut keys = IndexKeys {
            eq: Vec::new(),
            in_list: None,
            lo: None,
            hi: None,
            display: Vec::new(),
        };
        let mut used = Vec::new();
        let mut score = 0;
        for &col in &idx.columns {
            if !indexable_type(table.columns[col].ty) {
                break;
            }
            let eq = conj.iter().enumerate().find_map(|(i, e)| match col_cmp(e) {
                Some((c, Cmp::Eq, v)) if c == col => Some((i, v.clone())),
                _ => None,
            });
            if let Some((i, v)) = eq {
                keys.display.push(format!(
                    "{} = {}",
                    table.columns[col].name,
                    crate::ir::show(&v, table)
                ));
                keys.eq.push(v);
                used.push(i);
                score += 10;
                continue;
            }
            // IN list on the first column.
            if keys.eq.is_empty() {
                if let Some((i, list)) = conj.iter().enumerate().find_map(|(i, e)| match e {
                    Expr::InList {
                        lhs,
                        list,
                        negated: false,
                    } if matches!(lhs.as_ref(), Expr::Col(c) if *c == col)
                        && list.iter().all(Expr::is_row_independent) =>
                    {
                        Some((i, list.clone()))
                    }
                    _ => None,
                }) {
                    keys.display
                        .push(format!("{} = ANY (...)", table.columns[col].name));
                    keys.in_list = Some(list);
                    used.push(i);
                    score += 8;
                    break;
                }
            }
            for (i, e) in conj.iter().enumerate() {
                match col_cmp(e) {
                    Some((c, op @ (Cmp::Gt | Cmp::Ge), v)) if c == col && keys.lo.is_none() => {
                        keys.display.push(format!(
                            "{} {} {}",
                            table.columns[col].name,
                            op.symbol(),
                            crate::ir::show(v, table)
                        ));
                        keys.lo = Some((v.clone(), op == Cmp::Ge));
                        used.push(i);
                        score += 3;
                    }
                    Some((c, op @ (Cmp::Lt | Cmp::Le), v)) if c == col && keys.hi.is_none() => {
                        keys.display.push(format!(
                            "{} {} {}",
                            table.columns[col].name,
                            op.symbol(),
                            crate::ir::show(v, table)
                        ));
                        keys.hi = Some((v.clone(), op == Cmp::Le));
                        used.push(i);
                        score += 3;
                    }
                    _ => {}
                }
            }
            break;
        }
        if score == 0 {
            continue;
        }
        if idx.unique && keys.eq.len() == idx.columns.len() {
            score += 5;
        }
        if best.as_ref().is_none_or(|(s, ..)| score > *s) {
            best = Some((score, idx.clone(), keys, used));
        }
    }
    best.map(|(_, i, k, u)| (i, k, u))
}

/// A join condition `inner.col = f(outer row)` on the first column of an
/// index of the inner table: the inner side becomes an index lookup keyed
/// by the outer row.
fn join_index(
    table: &TableDef,
    offset: usize,
    p: &JoinParam,
) -> Option<(nestor_catalog::IndexDef, IndexKeys)> {
    let width = table.columns.len() + SYS_COLS;
    for idx in &table.indexes {
        let first = idx.columns[0];
        if !indexable_type(table.columns[first].ty) {
            continue;
        }
        let target = offset + first;
        for e in &p.conj {
            let Expr::Cmp(Cmp::Eq, a, bx) = e else {
                continue;
            };
            let other = match (a.as_ref(), bx.as_ref()) {
                (Expr::Col(c), o) if *c == target => o,
                (o, Expr::Col(c)) if *c == target => o,
                _ => continue,
            };
            let cols = other.columns();
            let outer_only = cols.iter().all(|&c| c >= p.left_lo && c < p.left_hi)
                && !cols.iter().any(|&c| c >= offset && c < offset + width);
            if !outer_only || matches!(other, Expr::Sub(_)) {
                continue;
            }
            let key = other.clone().shift(-(p.left_lo as isize));
            let keys = IndexKeys {
                eq: vec![key],
                in_list: None,
                lo: None,
                hi: None,
                display: vec![format!("{} = (outer)", table.columns[first].name)],
            };
            return Some((idx.clone(), keys));
        }
    }
    None
}
