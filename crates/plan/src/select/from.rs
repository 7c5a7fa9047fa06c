//! FROM items: tables, CTE references, system views, subqueries, joins
//! and functions, each adding its columns to the query level's scope and
//! becoming a node of the logical join tree ([`From`]).
//!
//! Joins: INNER, LEFT, RIGHT and FULL. A join's row is its left row then
//! its right row. NATURAL is USING of the column names both sides have.
//! JOIN USING merges each named column pair into one
//! column, the one an unqualified name means: for INNER and LEFT joins the
//! left copy, for RIGHT the right copy, for FULL a computed
//! `COALESCE(left, right)` appended after the two sides (the join's
//! `merged` expressions). In the scope the left copy stays visible but
//! `merged` (reachable qualified only; `*` puts the merged column in its
//! place), the right copy is hidden:
//!
//! ```text
//!   l(id, lv) FULL JOIN r(id, rv) USING (id)
//!   row:   l.id  lv  r.id  rv  | COALESCE(l.id, r.id)
//!   scope: l.id* lv  r.id- rv  | id-        (* merged, - hidden)
//!   SELECT *  ->  id, lv, rv
//! ```
//!
//! LATERAL subqueries: while a FROM item is planned, the level's scope
//! (`b.scopes[top]`) holds the columns it may refer to LATERALly — the
//! FROM list items before it, or the left side of the join it is the right
//! side of (columns below the scope's `floor` are there only to give
//! PostgreSQL's "invalid reference" error). A LATERAL subquery that refers
//! to them becomes `Plan::LateralSubquery`, the inner side of a nested
//! loop, re-run per left row. One that is a single row computed from
//! those columns (`LATERAL (VALUES (a.x)) s`) is also pulled up, as
//! PostgreSQL does: references to `s.x` read `a.x` itself
//! (`ScopeCol::subst`), so `b JOIN LATERAL ... ON b.k = s.x` is a
//! condition on `b` an index can answer per row of `a`.
//!
//! Functions (and expressions in function syntax: `coalesce(...)`,
//! `cast(...)`) in FROM: their result type decides their columns, as in
//! PostgreSQL's addRangeTableEntryForFunction. A named composite value
//! is split into its fields (`TableFunc::Fields`; a NULL is a row of
//! NULLs), an anonymous record into the column definition list it needs
//! (checked against the record's shape where it is known), anything else
//! is one column and takes no list.

use super::*;
use nestor_catalog::acl::{self, ObjKind};
use nestor_catalog::defs::PolicyCmd;

/// A FROM item before physical planning.
#[allow(clippy::large_enum_variant)]
pub(crate) enum From {
    Table {
        table: Arc<TableDef>,
        alias: String,
        offset: usize,
        /// Row-level security quals over the table's row (`rls`),
        /// evaluated in its scan before any condition of the statement.
        security: Vec<Expr>,
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
        /// Merged USING columns of a FULL join, over the join's row (local
        /// coordinates), after the two sides' columns.
        merged: Vec<Expr>,
        offset: usize,
        width: usize,
    },
    /// A function whose arguments refer to earlier FROM items (implicitly
    /// LATERAL): its arguments are over the query level's row.
    LateralFn {
        func: TableFunc,
        args: Vec<Expr>,
        /// The function scan's name (EXPLAIN).
        name: String,
        ordinality: bool,
        offset: usize,
        width: usize,
    },
    /// The FROM items before a LateralFn, and the function run per row of
    /// theirs.
    Lateral {
        left: Box<From>,
        func: TableFunc,
        args: Vec<Expr>,
        ordinality: bool,
        offset: usize,
        width: usize,
    },
}

impl From {
    /// Put row-level security quals (over the table's row) on the leaf
    /// of a table, or of its inheritance family (a filter over the
    /// family's rows, which have the named table's layout); a join's
    /// first leaf (the target of UPDATE ... FROM / DELETE ... USING).
    pub(crate) fn set_security(&mut self, quals: Vec<Expr>) {
        match self {
            From::Table { security, .. } => *security = quals,
            From::Other { plan, .. } => {
                let input = std::mem::replace(plan, Plan::Single);
                *plan = Plan::Filter {
                    input: Box::new(input),
                    pred: super::access::and_all(quals).unwrap_or(Expr::Const(Value::Bool(true))),
                };
            }
            From::Join { left, .. } | From::Lateral { left, .. } => left.set_security(quals),
            From::SysView { .. } | From::LateralFn { .. } => {}
        }
    }

    pub(crate) fn range(&self) -> (usize, usize) {
        match self {
            From::Table { table, offset, .. } => {
                (*offset, *offset + table.columns.len() + SYS_COLS)
            }
            From::Other { offset, width, .. }
            | From::SysView { offset, width, .. }
            | From::Join { offset, width, .. }
            | From::LateralFn { offset, width, .. }
            | From::Lateral { offset, width, .. } => (*offset, *offset + *width),
        }
    }
}

/// Add a FROM item's columns to `scope` and return its tree node.
pub(crate) fn plan_from_item(
    b: &mut Binder,
    n: &Node,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let before = scope.cols.len();
    let (item, alias) = match node(n)? {
        NodeEnum::RangeVar(rv) => (plan_range_var(b, rv, offset, scope)?, &rv.alias),
        NodeEnum::JoinExpr(j) => return plan_join(b, j, offset, scope),
        NodeEnum::RangeSubselect(rs) => (plan_subselect(b, rs, offset, scope)?, &rs.alias),
        NodeEnum::RangeFunction(rf) => {
            let saved = std::mem::replace(&mut b.agg, AggCtx::NotAllowed("functions in FROM"));
            let planned = plan_range_function(b, rf, offset, scope);
            b.agg = saved;
            (planned?, &rf.alias)
        }
        other => {
            return Err(DbError::unsupported(format!(
                "FROM item {}",
                bind::node_kind(other)
            )))
        }
    };
    let item = if b.null_extended > 0 {
        // A table's row id tells its NULL-extended rows; any other item
        // gets a marker.
        if let From::Table { .. } = item {
            let row_id = (before..scope.cols.len())
                .find(|&i| scope.cols[i].hidden && scope.cols[i].attnum == -1);
            scope.nullable_row_ids.extend(row_id);
        }
        null_marker(item, before, offset, scope)
    } else {
        item
    };
    if let Some(a) = alias {
        if bind::is_pseudo_rel(&a.aliasname) {
            // A rule action's NEW or OLD: reachable by qualified name
            // only, and not in `*` (PostgreSQL's p_cols_visible false).
            for c in &mut scope.cols[before..] {
                if !c.hidden {
                    c.hidden = true;
                    c.merged = true;
                }
            }
        }
        // More column aliases than columns (PostgreSQL's buildRelationAliases).
        let available = scope.cols[before..].iter().filter(|c| !c.hidden).count();
        if a.colnames.len() > available {
            return Err(DbError::new(
                SqlState::InvalidColumnReference,
                format!(
                    "table \"{}\" has {available} columns available but {} columns specified",
                    a.aliasname,
                    a.colnames.len()
                ),
            ));
        }
    }
    Ok(item)
}

/// A subquery, function or VALUES item on a side of an outer join that may
/// NULL-extend it gets one more column, hidden and nameless, TRUE in each
/// of its rows: NULL only where the join NULL-extends the item, which is
/// how its whole row (`Binder::whole_row`) is NULL there and not a row of
/// NULLs. (A table's row id serves so.) Others are returned as they are.
fn null_marker(item: From, before: usize, offset: &mut usize, scope: &mut Scope) -> From {
    let From::Other {
        plan,
        offset: at,
        width,
    } = item
    else {
        return item;
    };
    let Some(rel) = scope.cols.get(before).map(|c| c.rel.clone()) else {
        return From::Other {
            plan,
            offset: at,
            width,
        };
    };
    let truth = Expr::Const(Value::Bool(true));
    let plan = match plan {
        Plan::Project { input, mut exprs } => {
            exprs.push(truth);
            Plan::Project { input, exprs }
        }
        plan => Plan::Project {
            input: Box::new(plan),
            exprs: (0..width).map(Expr::Col).chain([truth]).collect(),
        },
    };
    scope.cols.push(ScopeCol {
        perm: None,
        rel,
        name: String::new(),
        ty: DataType::Bool,
        hidden: true,
        table_oid: 0,
        attnum: bind::NULL_MARKER_ATTNUM,
        merged: false,
        scalar_fn: false,
        subst: None,
        using_cast: None,
    });
    *offset += 1;
    debug_assert_eq!(scope.cols.len(), *offset, "scope and row layout agree");
    From::Other {
        plan,
        offset: at,
        width: width + 1,
    }
}

/// A subquery in FROM. A LATERAL one sees the columns the level's scope
/// holds while it is planned (see the module header); any other sees none
/// of the level's columns.
fn plan_subselect(
    b: &mut Binder,
    rs: &pb::RangeSubselect,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let NodeEnum::SelectStmt(sel) = node(req(&rs.subquery)?)? else {
        return Err(DbError::internal("subquery in FROM is not a SELECT"));
    };
    let top = b.level();
    let visible = if rs.lateral {
        b.scopes[top].clone()
    } else {
        // Earlier items exist but may not be referenced (PostgreSQL's
        // "invalid reference to FROM-clause entry").
        let cols = b.scopes[top].cols.clone();
        Scope {
            floor: cols.len(),
            cols,
            using_joins: Vec::new(),
            hidden_rels: Vec::new(),
            alias_floor: 0,
            param_start: 0,
            nullable_row_ids: b.scopes[top].nullable_row_ids.clone(),
            lateral_target: false,
            pending_duplicate: None,
        }
    };
    let pad = visible.param_start;
    let saved = std::mem::replace(&mut b.scopes[top], visible);
    let planned = plan_query(b, sel);
    b.scopes[top] = saved;
    let (plan, cols) = planned?;
    let lateral = rs.lateral && b.last_correlated;
    let pulled = if lateral && b.null_extended == 0 {
        pulled_up_columns(&plan, top)
    } else {
        None
    };
    mark_correlation(b, b.last_outer_level.is_some_and(|l| l < top));
    let plan = if lateral {
        Plan::LateralSubquery {
            plan: Box::new(plan),
            level: top,
            pad,
        }
    } else {
        plan
    };
    let alias = rs
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or_default();
    claim_alias(b, scope, &alias)?;
    let colnames = rs
        .alias
        .as_ref()
        .map(|a| bind::names(&a.colnames))
        .unwrap_or_default();
    let start = scope.cols.len();
    let leaf = add_leaf(plan, &alias, cols, &colnames, offset, scope);
    for (c, e) in scope.cols[start..]
        .iter_mut()
        .zip(pulled.unwrap_or_default())
    {
        c.subst = Some(Box::new(e));
    }
    Ok(leaf)
}

/// The columns of a LATERAL subquery of one row computed from the FROM
/// items before it (`LATERAL (VALUES (a.x))`, `LATERAL (SELECT a.x + 1)`)
/// as expressions over the level's row (level `top`), for references to
/// them to read those items directly ([`bind::ScopeCol::subst`]), as
/// PostgreSQL pulls such a subquery up. The item keeps its own columns
/// (`*`, its whole row). Not for a subquery an outer join may NULL-extend
/// (its columns are NULL there, the items' are not: the caller checks),
/// nor one computing with a volatile function, a subquery or an
/// aggregate (run once per row, not once per reference).
fn pulled_up_columns(plan: &Plan, top: usize) -> Option<Vec<Expr>> {
    let exprs = match plan {
        Plan::Project { input, exprs } if matches!(**input, Plan::Single) => exprs,
        Plan::Values { rows } if rows.len() == 1 => &rows[0],
        _ => return None,
    };
    let mut out = Vec::with_capacity(exprs.len());
    for e in exprs {
        let mut simple = e.is_movable();
        e.walk(&mut |x| {
            simple &= !matches!(
                x,
                Expr::Col(_) | Expr::Agg(_) | Expr::Window(_) | Expr::Param(_)
            );
        });
        if !simple {
            return None;
        }
        let lifted = e
            .clone()
            .rewrite(&mut |x| {
                Ok(match x {
                    Expr::Outer { level, col } if *level == top => Some(Expr::Col(*col)),
                    _ => None,
                })
            })
            .ok()?;
        out.push(lifted);
    }
    Some(out)
}

/// A range variable's name must be unique in its FROM list.
pub(super) fn check_alias(scope: &Scope, alias: &str) -> Result<(), DbError> {
    let visible = scope.cols.get(scope.alias_floor..).unwrap_or_default();
    if !alias.is_empty() && visible.iter().any(|c| c.rel == alias) {
        return Err(duplicate_alias(alias));
    }
    Ok(())
}

fn duplicate_alias(alias: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateAlias,
        format!("table name \"{alias}\" specified more than once"),
    )
}

/// [`check_alias`] for an item about to be added to `scope`, inside a
/// join while its sides are planned: PostgreSQL finds two items of one
/// name only when the join that holds both is complete
/// (checkNameSpaceConflicts), so a LATERAL item planned in between that
/// names them meets "table reference is ambiguous" first. The first such
/// name waits in [`Scope::pending_duplicate`] for the join's end
/// ([`raise_pending_duplicate`]).
fn claim_alias(b: &Binder, scope: &mut Scope, alias: &str) -> Result<(), DbError> {
    let here = scope.cols.len();
    match check_alias(scope, alias) {
        // Claimed already (a view's name is checked again once planned).
        Err(_)
            if scope
                .pending_duplicate
                .as_ref()
                .is_some_and(|(a, at)| a == alias && *at == here) =>
        {
            Ok(())
        }
        Err(e) if b.join_depth == 0 || scope.pending_duplicate.is_some() => Err(e),
        Err(_) => {
            scope.pending_duplicate = Some((alias.to_string(), here));
            Ok(())
        }
        Ok(()) => Ok(()),
    }
}

/// At the end of a join whose items begin at `start`: a name its items
/// gave twice is an error now (see [`claim_alias`]) when both are in the
/// join, or when no join encloses this one.
fn raise_pending_duplicate(b: &Binder, scope: &mut Scope, start: usize) -> Result<(), DbError> {
    let Some((alias, second)) = scope.pending_duplicate.clone() else {
        return Ok(());
    };
    let first_inside = scope.cols[start.min(second)..second]
        .iter()
        .any(|c| c.rel == alias);
    if first_inside || b.join_depth == 0 {
        scope.pending_duplicate = None;
        return Err(duplicate_alias(&alias));
    }
    Ok(())
}

pub(super) fn add_leaf(
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
            perm: None,
            rel: alias.to_string(),
            name: colnames.get(i).cloned().unwrap_or(c.name),
            ty: c.ty,
            hidden: false,
            table_oid: c.table_oid,
            attnum: c.column_id,
            merged: false,
            scalar_fn: false,
            subst: None,
            using_cast: None,
        });
    }
    let f = From::Other {
        plan,
        offset: *offset,
        width,
    };
    *offset += width;
    // Column positions are offsets into the level's row: the scope holds
    // exactly the columns of the items so far.
    debug_assert_eq!(scope.cols.len(), *offset, "scope and row layout agree");
    f
}

/// A catalog function in FROM of one argument and fixed columns: the
/// function, its argument's type, its columns.
type FixedColumns<'a> = (TableFunc, DataType, &'a [(&'a str, DataType)]);

pub(super) fn plan_range_var(
    b: &mut Binder,
    rv: &pb::RangeVar,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let name = relname(rv)?;
    let alias = bind::alias_or(rv, &rv.relname);
    claim_alias(b, scope, &alias)?;
    let colnames = rv
        .alias
        .as_ref()
        .map(|a| bind::names(&a.colnames))
        .unwrap_or_default();
    if rv.schemaname.is_empty() || rv.schemaname == "public" {
        if let Some(at) = b.ctes.iter().rposition(|c| c.name == name) {
            // Two scans of a volatile CTE must read the same rows: the
            // second reference makes every scan compute it whole before
            // reading (a nested loop over two references would otherwise
            // run it again inside the first scan; PostgreSQL materializes
            // it once).
            let c = &mut b.ctes[at];
            c.refs += 1;
            if c.refs > 1 && c.volatile && !c.working {
                c.whole_first
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let cte = c.clone();
            if cte.no_returning {
                return Err(err_at(
                    DbError::new(
                        SqlState::FeatureNotSupported,
                        format!("WITH query \"{name}\" does not have a RETURNING clause"),
                    ),
                    b.text,
                    rv.location,
                ));
            }
            if cte.working {
                let count = b
                    .recursive_refs
                    .iter_mut()
                    .find(|(id, _)| *id == cte.id)
                    .map(|(_, n)| n);
                let Some(count) = count else {
                    return Err(DbError::internal("recursive CTE without a reference count"));
                };
                if *count > 0 {
                    return Err(err_at(
                        DbError::new(
                            SqlState::InvalidRecursion,
                            format!(
                                "recursive reference to query \"{name}\" must not appear more than once"
                            ),
                        ),
                        b.text,
                        rv.location,
                    ));
                }
                *count += 1;
            }
            let plan = Plan::CteScan {
                id: cte.id,
                name: name.clone(),
                plan: cte.plan.clone(),
                correlated: cte.outer_level.is_some(),
                whole_first: cte.whole_first.clone(),
            };
            if let Some(m) = cte.outer_level {
                for r in b.outer_refs.iter_mut().skip(m + 1) {
                    *r = Some(r.map_or(m, |x| x.min(m)));
                }
            }
            let leaf = add_leaf(plan, &alias, cte.cols.clone(), &colnames, offset, scope);
            if b.level() > cte.level {
                let n = scope.cols.len();
                for c in &mut scope.cols[n - cte.star_hidden.min(n)..] {
                    c.hidden = true;
                }
            }
            return Ok(leaf);
        }
    }
    // A trigger's transition table: after CTEs, before the catalog, as
    // PostgreSQL looks up ephemeral named relations.
    if rv.schemaname.is_empty() {
        if let Some((slot, cols)) = b.vars.and_then(|v| v.relation(&name)) {
            let out = cols
                .iter()
                .map(|(n, ty)| OutCol {
                    name: n.clone(),
                    ty: *ty,
                    table_oid: 0,
                    column_id: 0,
                })
                .collect();
            let plan = Plan::EphemeralScan { slot, name };
            return Ok(add_leaf(plan, &alias, out, &colnames, offset, scope));
        }
    }
    if rv.schemaname != "pg_catalog" && rv.schemaname != "information_schema" {
        if let Some(t) = b.catalog.table(&name) {
            b.need_schema(t.namespace, rv.location);
            let perm = b.need_by_columns(ObjKind::Table, t.oid.0, &t.name, acl::SELECT);
            let first = scope.cols.len();
            if let Some(members) = super::inherit::family(b, &t, rv.inh) {
                // The needs lock the descendants too (a partitioned
                // table's partitions: checked as their owners').
                for m in &members[1..] {
                    if t.partition_key.is_some() {
                        b.need_as_owner(m, acl::SELECT);
                    } else {
                        b.need(ObjKind::Table, m.oid.0, &m.name, acl::SELECT);
                    }
                }
                let role = super::rls::applies(b, &t)?;
                let mut leaf =
                    super::inherit::add_family(&t, &members, &alias, &colnames, offset, scope);
                Binder::tag_cols(scope, first, perm);
                if let Some(role) = role {
                    let quals = super::rls::security_quals(b, &t, &t, PolicyCmd::Select, role)?;
                    leaf.set_security(quals);
                }
                return Ok(leaf);
            }
            let role = super::rls::applies(b, &t)?;
            let mut leaf = add_table(t.clone(), &alias, &colnames, offset, scope);
            Binder::tag_cols(scope, first, perm);
            if let Some(role) = role {
                let quals = super::rls::security_quals(b, &t, &t, PolicyCmd::Select, role)?;
                leaf.set_security(quals);
            }
            return Ok(leaf);
        }
    }
    if rv.schemaname != "pg_catalog" && rv.schemaname != "information_schema" {
        if let Some(v) = b.catalog.view(&name) {
            b.need_schema(v.namespace, rv.location);
            let perm = b.need_by_columns(ObjKind::Table, v.oid.0, &v.name, acl::SELECT);
            let (plan, cols) = plan_view(b, &v)?;
            claim_alias(b, scope, &alias)?;
            let first = scope.cols.len();
            let leaf = add_leaf(plan, &alias, cols, &colnames, offset, scope);
            // The view's own columns, by position (its attribute numbers).
            Binder::tag_cols_by_position(scope, first, perm);
            return Ok(leaf);
        }
    }
    if rv.schemaname == "information_schema" {
        if let Some(sel) = crate::information_schema::view_select(&name)? {
            // Planned as its SQL in a subquery (PostgreSQL defines these
            // views in SQL too); errors in it are not the user's text's.
            let saved = std::mem::take(&mut b.text);
            let planned = plan_query(b, &sel);
            b.text = saved;
            let (plan, cols) = planned?;
            mark_correlation(b, b.last_correlated);
            claim_alias(b, scope, &alias)?;
            return Ok(add_leaf(plan, &alias, cols, &colnames, offset, scope));
        }
    }
    if rv.schemaname != "pg_catalog" && rv.schemaname != "information_schema" {
        if let Some(seq) = b.catalog.sequence(&name) {
            b.need_schema(seq.namespace, rv.location);
            b.need(ObjKind::Sequence, seq.oid.0, &seq.name, acl::SELECT);
            // A sequence reads as a one-row relation of its state.
            use crate::functions::{CatalogFn, Func};
            let oid = Expr::Const(Value::Int8(i64::from(seq.oid.0)));
            let state = |last| {
                Expr::Func(
                    Func::Catalog(CatalogFn::SequenceState(last)),
                    vec![oid.clone()],
                )
            };
            let plan = Plan::Project {
                input: Box::new(Plan::Single),
                exprs: vec![state(true), Expr::Const(Value::Int8(0)), state(false)],
            };
            let cols = [
                ("last_value", DataType::Int8),
                ("log_cnt", DataType::Int8),
                ("is_called", DataType::Bool),
            ]
            .into_iter()
            .map(|(n, ty)| OutCol {
                name: n.to_string(),
                ty,
                table_oid: 0,
                column_id: 0,
            })
            .collect();
            return Ok(add_leaf(plan, &alias, cols, &colnames, offset, scope));
        }
    }
    if let Some(view) = crate::sysviews::View::by_name(&name) {
        let mut cols = view.columns();
        let visible = cols.len();
        // A catalog relation has the system column tableoid (pg_dump
        // selects it), after its own columns and hidden from `*`.
        if let crate::sysviews::View::Catalog(_) = view {
            cols.push(("tableoid", DataType::Oid));
        }
        let width = cols.len();
        for (i, (cname, ty)) in cols.into_iter().enumerate() {
            scope.cols.push(ScopeCol {
                perm: None,
                rel: alias.clone(),
                name: colnames
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| cname.to_string()),
                ty,
                hidden: i >= visible,
                table_oid: 0,
                attnum: 0,
                merged: false,
                scalar_fn: false,
                subst: None,
                using_cast: None,
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
    // PostgreSQL names the relation as written, schema included.
    let shown = if rv.schemaname.is_empty() {
        name
    } else {
        format!("{}.{}", rv.schemaname, rv.relname)
    };
    let mut e = DbError::new(
        SqlState::UndefinedTable,
        format!("relation \"{shown}\" does not exist"),
    );
    // A WITH item of an enclosing or the same WITH that is not visible
    // here (itself, a later one): PostgreSQL's parserOpenTable hint.
    if rv.schemaname.is_empty() && b.hidden_ctes.contains(&rv.relname) {
        e = e
            .with_detail(format!(
                "There is a WITH item named \"{}\", but it cannot be referenced from this part of the query.",
                rv.relname
            ))
            .with_hint("Use WITH RECURSIVE, or re-order the WITH items to remove forward references.");
    }
    Err(err_at(e, b.text, rv.location))
}

/// A view's query planned in place of its name: its SQL text parsed and
/// planned as a subquery that sees the catalog only (not the CTEs or
/// PL/pgSQL variables around the reference), trimmed to the columns the
/// view was created with and named as they were. A query that no longer
/// yields those columns (a table it reads changed under it) is an error
/// naming the view.
/// As whom what view `v` reads is checked (`Binder::perm_as`): its
/// owner, or for a security_invoker view whoever the enclosing query is
/// checked as (the session user, or the owner of a view above it).
pub(crate) fn view_checked_as(
    b: &Binder,
    v: &nestor_catalog::ViewDef,
) -> Option<nestor_common::RelId> {
    if v.security_invoker {
        b.perm_as
    } else {
        Some(b.catalog.acl(ObjKind::Table, v.oid.0).owner)
    }
}

pub fn plan_view(
    b: &mut Binder,
    v: &nestor_catalog::ViewDef,
) -> Result<(Plan, Vec<OutCol>), DbError> {
    let stmts = nestor_parser::parse_sql(&v.query)?;
    let Some(NodeEnum::SelectStmt(sel)) = stmts
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .and_then(|n| n.node)
    else {
        return Err(DbError::internal(format!(
            "view \"{}\" is not a SELECT",
            v.name
        )));
    };
    let saved_text = std::mem::take(&mut b.text);
    let saved_ctes = std::mem::take(&mut b.ctes);
    let saved_vars = b.vars.take();
    // What the view reads is checked as its owner, or as the user of
    // the query for a security_invoker view. (Its own conditions filter
    // its rows before any of the outer query's run, which is what
    // security_barrier asks: outer conditions stay above this plan.)
    let checked_as = view_checked_as(b, v);
    let saved_as = std::mem::replace(&mut b.perm_as, checked_as);
    // Its names mean what they meant when it was made: unqualified ones
    // are public's (or TEMP ones).
    let saved_path = b.catalog.enter_view_path();
    let planned = plan_query(b, &sel);
    b.catalog.restore_search_path(saved_path);
    b.perm_as = saved_as;
    b.text = saved_text;
    b.ctes = saved_ctes;
    b.vars = saved_vars;
    let (plan, mut cols) = planned.map_err(|e| broken_view(v, e.into_message()))?;
    mark_correlation(b, b.last_correlated);
    if cols.len() < v.columns.len() {
        return Err(broken_view(
            v,
            format!("its query yields {} columns", cols.len()),
        ));
    }
    let width = cols.len();
    cols.truncate(v.columns.len());
    for (c, (name, ty)) in cols.iter_mut().zip(&v.columns) {
        // A reg* column was recorded as the text it leaves as (its OID
        // stays one inside the query).
        let reg = *ty == DataType::Text && crate::bind::reg_name_fn(c.ty).is_some();
        let same = c.ty == *ty || (c.ty == DataType::Unknown && *ty == DataType::Text) || reg;
        if !same {
            return Err(broken_view(
                v,
                format!("column \"{name}\" is now of type {}", c.ty),
            ));
        }
        c.name = name.clone();
        if !reg {
            c.ty = *ty;
        }
    }
    let plan = if width > cols.len() {
        Plan::Project {
            input: Box::new(plan),
            exprs: (0..cols.len()).map(Expr::Col).collect(),
        }
    } else {
        plan
    };
    Ok((plan, cols))
}

fn broken_view(v: &nestor_catalog::ViewDef, why: String) -> DbError {
    DbError::new(
        SqlState::DependentObjectsStillExist,
        format!("view \"{}\" no longer matches the tables it reads", v.name),
    )
    .with_detail(why)
}

/// The scope of one table's row (its columns, then the hidden system
/// columns): what CHECK constraints and RETURNING lists bind against.
pub fn table_scope(t: &Arc<TableDef>, alias: &str) -> Scope {
    let mut scope = Scope::default();
    add_table(t.clone(), alias, &[], &mut 0, &mut scope);
    scope
}

/// A binder over one table's row, named as the table: how SQL stored
/// against a row binds (CHECK constraints, partition key and index
/// expressions, COPY FROM WHERE, ALTER COLUMN TYPE ... USING).
pub fn row_binder<'e>(
    catalog: &'e nestor_catalog::Catalog,
    eval: nestor_types::EvalCtx,
    text: &'e str,
    t: &Arc<TableDef>,
) -> Binder<'e> {
    let mut b = Binder::new(catalog, eval, text, &[], super::plan_query);
    b.scopes.push(table_scope(t, &t.name));
    b.outer_refs.push(None);
    b
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
            perm: None,
            rel: alias.to_string(),
            name,
            ty: c.ty,
            hidden: c.dropped,
            table_oid: t.oid.0,
            attnum: i as i16 + 1,
            merged: false,
            scalar_fn: false,
            subst: None,
            using_cast: None,
        });
    }
    for (name, attnum) in [("ctid", -1), ("xmin", -3), ("xmax", -5)] {
        scope.cols.push(ScopeCol {
            perm: None,
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
            scalar_fn: false,
            subst: None,
            using_cast: None,
        });
    }
    let f = From::Table {
        table: t.clone(),
        alias: alias.to_string(),
        offset: *offset,
        security: Vec::new(),
    };
    *offset += t.columns.len() + SYS_COLS;
    debug_assert_eq!(scope.cols.len(), *offset, "scope and row layout agree");
    f
}

fn join_kind(j: &pb::JoinExpr) -> Result<JoinKind, DbError> {
    match pb::JoinType::try_from(j.jointype) {
        Ok(pb::JoinType::JoinInner) => Ok(JoinKind::Inner),
        Ok(pb::JoinType::JoinLeft) => Ok(JoinKind::Left),
        Ok(pb::JoinType::JoinRight) => Ok(JoinKind::Right),
        Ok(pb::JoinType::JoinFull) => Ok(JoinKind::Full),
        _ => Err(DbError::unsupported("this join type")),
    }
}

/// Plan a join's right side: a LATERAL subquery there sees the left side
/// (columns from `start` to `left_end`), unless the join is RIGHT or FULL.
fn plan_join_right(
    b: &mut Binder,
    (j, kind): (&pb::JoinExpr, JoinKind),
    (start, left_end): (usize, usize),
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let rarg = req(&j.rarg)?;
    // (Any subquery: one not LATERAL gets the columns for errors only.)
    if !matches!(
        &rarg.node,
        Some(NodeEnum::JoinExpr(_) | NodeEnum::RangeSubselect(_) | NodeEnum::RangeFunction(_))
    ) {
        return plan_from_item(b, rarg, offset, scope);
    }
    let outer_only = matches!(kind, JoinKind::Right | JoinKind::Full);
    let top = b.level();
    // What the join may see LATERALly (the items before it), then its left
    // side unless the join is RIGHT or FULL.
    let floor = if outer_only {
        left_end
    } else {
        joins_visible_floor(&b.scopes[top], start)
    };
    let visible = Scope {
        cols: scope.cols[..left_end].to_vec(),
        floor,
        using_joins: Vec::new(),
        hidden_rels: Vec::new(),
        alias_floor: 0,
        param_start: start,
        nullable_row_ids: scope.nullable_row_ids.clone(),
        lateral_target: false,
        pending_duplicate: scope.pending_duplicate.clone(),
    };
    let saved = std::mem::replace(&mut b.scopes[top], visible);
    let r = plan_from_item(b, rarg, offset, scope);
    b.scopes[top] = saved;
    r.map_err(|e| {
        let unreachable = e.code == SqlState::UndefinedTable
            && e.message
                .starts_with("invalid reference to FROM-clause entry");
        if outer_only && unreachable {
            let mut e = e.with_detail(
                "The combining JOIN type must be INNER or LEFT for a LATERAL reference.",
            );
            e.code = SqlState::InvalidColumnReference;
            e.hint = None;
            e
        } else {
            e
        }
    })
}

pub(super) fn plan_join(
    b: &mut Binder,
    j: &pb::JoinExpr,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let kind = join_kind(j)?;
    let start = *offset;
    // An aliased join's own names need not differ from the ones around it.
    let outer_floor = scope.alias_floor;
    if j.alias.is_some() {
        scope.alias_floor = scope.cols.len();
    }
    // The left side sees LATERALly what the join sees (the items before
    // it); a reference to them makes the join LATERAL (`lateral_join`).
    let top = b.level();
    let uses_mark = b.outer_uses.len();
    let mut visible = b.scopes[top].clone();
    if visible.cols.len() == start {
        visible.param_start = start;
    } else {
        // Not a FROM list's scope (a caller planning one item alone): the
        // left side sees nothing.
        visible = Scope {
            param_start: start,
            ..Scope::default()
        };
    }
    let saved = std::mem::replace(&mut b.scopes[top], visible);
    let nullable = matches!(kind, JoinKind::Right | JoinKind::Full);
    b.null_extended += usize::from(nullable);
    b.join_depth += 1;
    let left = plan_from_item(b, req(&j.larg)?, offset, scope);
    b.null_extended -= usize::from(nullable);
    b.scopes[top] = saved;
    let left = match left? {
        // `a, f(a.x) JOIN b ON ...`: the function reads the items before
        // the join from the row the LATERAL join is run for.
        From::LateralFn {
            func,
            args,
            name,
            ordinality,
            offset,
            width,
        } => From::Other {
            plan: Plan::FunctionScan {
                func,
                args: args
                    .into_iter()
                    .map(|a| outer_before(b, a, start))
                    .collect::<Result<_, _>>()?,
                name,
                ordinality,
            },
            offset,
            width,
        },
        left => left,
    };
    let lscope_end = scope.cols.len();
    let nullable = matches!(kind, JoinKind::Left | JoinKind::Full);
    b.null_extended += usize::from(nullable);
    let right = plan_join_right(b, (j, kind), (start, lscope_end), offset, scope);
    b.null_extended -= usize::from(nullable);
    b.join_depth -= 1;
    let mut right = right?;
    raise_pending_duplicate(b, scope, start)?;
    let inner_floor = std::mem::replace(&mut scope.alias_floor, outer_floor);
    let trivially_true = match &j.quals {
        None => true,
        Some(q) => matches!(
            &q.node,
            Some(NodeEnum::AConst(c)) if matches!(&c.val, Some(pb::a_const::Val::Boolval(v)) if v.boolval)
        ),
    };
    let plain_cross =
        kind == JoinKind::Inner && trivially_true && !j.is_natural && j.using_clause.is_empty();
    if matches!(right, From::LateralFn { .. }) && !plain_cross {
        right = lateral_fn_subquery(b, right, start)?;
    }
    if let From::LateralFn {
        func,
        args,
        ordinality,
        width,
        ..
    } = right
    {
        // `a CROSS JOIN LATERAL f(a.x)`, `a JOIN f(a.x) ON true`: the
        // function runs per row of the left side, as in a comma list.
        if let Some(a) = &j.alias {
            for c in &mut scope.cols[start..] {
                c.rel = a.aliasname.clone();
            }
        }
        // Arguments reading FROM items before the join read them from the
        // row the LATERAL join is run for (`lateral_join`).
        let args = args
            .into_iter()
            .map(|a| outer_before(b, a, start))
            .collect::<Result<Vec<_>, DbError>>()?;
        let (lo, lhi) = left.range();
        let joined = From::Lateral {
            left: Box::new(left),
            func,
            args,
            ordinality,
            offset: lo,
            width: lhi - lo + width,
        };
        return lateral_join(b, joined, uses_mark, scope);
    }
    let mut on = Vec::new();
    // Bind ON against the columns of this join only (plus outer levels).
    let on_scope = Scope {
        floor: start,
        ..scope.clone()
    };
    let saved = std::mem::replace(&mut b.scopes[top], on_scope);
    let mut pairs = Vec::new();
    let result = (|| -> Result<(), DbError> {
        if let Some(q) = &j.quals {
            let msg = "window functions are not allowed in JOIN conditions";
            let saved = std::mem::replace(&mut b.agg, AggCtx::NotAllowed("JOIN conditions"));
            let bound = b.without_windows(msg, |b| b.bind_bool(q, "JOIN/ON"));
            b.agg = saved;
            on = conjuncts(bound?);
        }
        let using: Vec<String> = if j.is_natural {
            natural_columns(scope, start, lscope_end)
        } else {
            let names = j.using_clause.iter().filter_map(bind::str_val);
            names.map(str::to_string).collect()
        };
        for col in &using {
            let (l, r) = using_pair(scope, col, start, lscope_end)?;
            b.mark_read(top, l, false);
            b.mark_read(top, r, false);
            let (lt, rt) = (scope.cols[l].ty, scope.cols[r].ty);
            on.push(Expr::Cmp(
                Cmp::Eq,
                Box::new(using_operand(Expr::Col(l), lt, rt)),
                Box::new(using_operand(Expr::Col(r), rt, lt)),
            ));
            pairs.push((l, r));
        }
        Ok(())
    })();
    b.scopes[top] = saved;
    result?;
    let merged = merge_using(b, kind, &pairs, start, offset, scope)?;
    let using_alias = match &j.join_using_alias {
        Some(a) => {
            // The alias is one more range variable of the join's own.
            if scope.cols[start..].iter().any(|c| c.rel == a.aliasname) {
                return Err(DbError::new(
                    SqlState::DuplicateAlias,
                    format!("table name \"{}\" specified more than once", a.aliasname),
                ));
            }
            Some((a.aliasname.clone(), using_named(kind, &pairs, scope)))
        }
        None => None,
    };
    // An alias on the join itself hides every name inside it, USING
    // aliases included (`(a JOIN b USING (i) AS x) AS y`: no `x`).
    let using_alias = using_alias.filter(|_| j.alias.is_none());
    if let Some(a) = &j.alias {
        // The alias against the names before the join at this level.
        let before = Scope {
            cols: scope.cols[..inner_floor].to_vec(),
            alias_floor: outer_floor,
            ..Scope::default()
        };
        check_alias(&before, &a.aliasname)?;
        for u in scope.using_joins.iter_mut().filter(|u| u.start >= start) {
            u.using_alias = None;
        }
        for c in &mut scope.cols[start..] {
            if c.rel != a.aliasname && !c.rel.is_empty() && !scope.hidden_rels.contains(&c.rel) {
                scope.hidden_rels.push(c.rel.clone());
            }
            c.rel = a.aliasname.clone();
        }
    }
    if !pairs.is_empty() {
        scope.using_joins.push(bind::UsingJoin {
            start,
            end: scope.cols.len(),
            merged: pairs.iter().map(|&(l, _)| l).collect(),
            alias: j.alias.as_ref().map(|a| a.aliasname.clone()),
            using_alias,
        });
    }
    if let Some(a) = &j.alias {
        rename_join_columns(scope, a, start)?;
    }
    let joined = From::Join {
        kind,
        left: Box::new(left),
        right: Box::new(right),
        on,
        merged,
        offset: start,
        width: *offset - start,
    };
    lateral_join(b, joined, uses_mark, scope)
}

/// `(a JOIN b ...) AS j (x, y, ...)`: the names rename the join's
/// columns in the order `j.*` lists them (merged USING columns first), a
/// column the names do not reach keeping its own. More names than
/// columns is 42601, as PostgreSQL's transformFromClauseItem says.
fn rename_join_columns(scope: &mut Scope, a: &pb::Alias, start: usize) -> Result<(), DbError> {
    if a.colnames.is_empty() {
        return Ok(());
    }
    let (order, _) = super::clauses::star_order(scope, Some(&a.aliasname), start);
    if a.colnames.len() > order.len() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            format!(
                "join expression \"{}\" has {} columns available but {} columns specified",
                a.aliasname,
                order.len(),
                a.colnames.len()
            ),
        ));
    }
    for ((shown, read), name) in order.into_iter().zip(bind::names(&a.colnames)) {
        // A USING column's copies (and a FULL join's merged column, read
        // in the left copy's place) all answer to the new name only.
        let old = std::mem::take(&mut scope.cols[shown].name);
        for c in &mut scope.cols[start..] {
            if c.merged && c.name == old {
                c.name = name.clone();
            }
        }
        scope.cols[shown].name = name.clone();
        scope.cols[read].name = name;
    }
    Ok(())
}

/// A function argument over the level's row with its references to
/// columns before `start` (FROM items before a join) made references to
/// the row the LATERAL join is run for (`lateral_join`).
/// A function on the right of a LEFT JOIN (or an INNER one with a real
/// ON condition) that reads the join's left side or the items before it
/// (`v LEFT JOIN generate_series(v.a, 3) g ON g > 1`): a LATERAL
/// subquery over the function, run per left row as `LEFT JOIN LATERAL
/// (SELECT * FROM f(...))` is, its arguments reading the level's row
/// (the items before the join, then the left row: `pad` = `start`).
fn lateral_fn_subquery(b: &mut Binder, f: From, start: usize) -> Result<From, DbError> {
    let From::LateralFn {
        func,
        args,
        name,
        ordinality,
        offset,
        width,
    } = f
    else {
        return Ok(f);
    };
    let top = b.level();
    // Every column it reads is the level row's.
    let args = args
        .into_iter()
        .map(|a| outer_before(b, a, usize::MAX))
        .collect::<Result<Vec<_>, DbError>>()?;
    let scan = Plan::FunctionScan {
        func,
        args,
        name,
        ordinality,
    };
    Ok(From::Other {
        plan: Plan::LateralSubquery {
            plan: Box::new(scan),
            level: top,
            pad: start,
        },
        offset,
        width,
    })
}

/// `arg` with its columns before position `start` read from the level's
/// row as outer references (`usize::MAX`: all of them).
fn outer_before(b: &mut Binder, arg: Expr, start: usize) -> Result<Expr, DbError> {
    let top = b.level();
    arg.rewrite(&mut |e| {
        Ok(match e {
            Expr::Col(c) if *c < start => Some(b.outer_ref(top, *c)),
            _ => None,
        })
    })
}

/// The floor of what a join's right side sees LATERALly when the join is
/// INNER or LEFT: what the join itself sees (`received`, the scope the
/// join was planned in, when it is the FROM list's scope up to the join),
/// else only the join's left side.
fn joins_visible_floor(received: &Scope, start: usize) -> usize {
    if received.cols.len() == start {
        received.floor
    } else {
        start
    }
}

/// A join whose LATERAL subqueries refer to FROM items before it (the
/// earlier items of the FROM list, or the left side of a join it is the
/// right side of: `a, (b JOIN LATERAL (SELECT a.x) s ON true)`): it is
/// planned now and run per row of those items, as a
/// `Plan::LateralSubquery` whose row is the level's row up to the join.
/// Its subqueries read those columns from that row (ev.outer), the join's
/// own columns from its nested loops' rows:
///
/// ```text
///   a, (x JOIN LATERAL (SELECT a.f1, x.q1) s ON true)
///   level row:  a.f1 | x.q1 x.q2 | s.f1 s.q1
///   per a row:  LateralSubquery(pad 0) sets ev.outer[level] = [a.f1]
///     NestedLoop(x, s): per x row, s's LateralSubquery(pad 1) sees
///     ev.outer[level][..1] ++ x row = [a.f1, x.q1, x.q2]
/// ```
///
/// Any other join is returned as it is. `uses_mark`: the length of the
/// outer-reference log when the join began.
fn lateral_join(
    b: &mut Binder,
    joined: From,
    uses_mark: usize,
    scope: &Scope,
) -> Result<From, DbError> {
    let top = b.level();
    let (lo, hi) = joined.range();
    let reaches_out = b.outer_uses[uses_mark..]
        .iter()
        .any(|&(level, col)| level == top && col < lo);
    if !reaches_out {
        return Ok(joined);
    }
    let pad = b.scopes[top].param_start;
    assert!(pad <= lo, "a LATERAL join's row begins before it");
    // Planned over the level's columns so far (EXPLAIN names them).
    let received = std::mem::replace(&mut b.scopes[top], scope.clone());
    let built = access::build(b, joined, Vec::new(), None);
    b.scopes[top] = received;
    let (plan, rest) = built?;
    if !rest.is_empty() {
        return Err(DbError::unsupported(
            "a JOIN condition with a subquery inside a JOIN that refers LATERALly to FROM items before it",
        ));
    }
    Ok(From::Other {
        plan: Plan::LateralSubquery {
            plan: Box::new(plan),
            level: top,
            pad,
        },
        offset: lo,
        width: hi - lo,
    })
}

/// The USING columns as a join_using_alias names them: each the column
/// its unqualified name means (the left copy of an inner or left join,
/// the right copy of a right join, a full join's merged column, which
/// merge_using appended after the join's columns, one per pair).
fn using_named(kind: JoinKind, pairs: &[(usize, usize)], scope: &Scope) -> Vec<(String, usize)> {
    let full_from = scope.cols.len() - pairs.len();
    pairs
        .iter()
        .enumerate()
        .map(|(k, &(l, r))| {
            let i = match kind {
                JoinKind::Right => r,
                JoinKind::Full => full_from + k,
                _ => l,
            };
            (scope.cols[l].name.clone(), i)
        })
        .collect()
}

/// NATURAL JOIN's USING list: the names of the left side's columns that
/// the right side has too, in the left side's order.
fn natural_columns(scope: &Scope, start: usize, left_end: usize) -> Vec<String> {
    let visible = |c: &&ScopeCol| !c.hidden && !c.name.is_empty();
    let right: Vec<&str> = scope.cols[left_end..]
        .iter()
        .filter(visible)
        .map(|c| c.name.as_str())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for c in scope.cols[start..left_end].iter().filter(visible) {
        if right.contains(&c.name.as_str()) && !out.contains(&c.name) {
            out.push(c.name.clone());
        }
    }
    out
}

/// The left and right columns a USING column names: the columns an
/// unqualified reference on each side means.
/// A USING column as its equality compares it: a `character` column
/// without its trailing blanks unless the other side is a `character` of
/// the same length (bpchar equality; bpchar to text drops the blanks).
fn using_operand(e: Expr, t: DataType, other: DataType) -> Expr {
    match (t, other) {
        (DataType::Char(Some(a)), DataType::Char(Some(b))) if a == b => e,
        (DataType::Char(_), _) => Expr::Func(crate::functions::Func::BpcharToText, vec![e]),
        _ => e,
    }
}

fn using_pair(
    scope: &Scope,
    col: &str,
    start: usize,
    left_end: usize,
) -> Result<(usize, usize), DbError> {
    let means = |c: &ScopeCol| c.name == col && !c.merged;
    let missing = |side: &str| {
        DbError::new(
            SqlState::UndefinedColumn,
            format!("column \"{col}\" specified in USING clause does not exist in {side} table"),
        )
    };
    let l = scope.cols[start..left_end]
        .iter()
        .rposition(means)
        .map(|p| p + start)
        .ok_or_else(|| missing("left"))?;
    let r = scope.cols[left_end..]
        .iter()
        .position(means)
        .map(|p| p + left_end)
        .ok_or_else(|| missing("right"))?;
    Ok((l, r))
}

/// Make each USING pair one column (see the module header): returns the
/// FULL join's COALESCE expressions (over the join's row), whose columns
/// are added to the scope after the two sides'.
fn merge_using(
    b: &mut Binder,
    kind: JoinKind,
    pairs: &[(usize, usize)],
    start: usize,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<Vec<Expr>, DbError> {
    let mut merged = Vec::new();
    for &(l, r) in pairs {
        // The column the unqualified name means, when its type is not the
        // pair's common type, reads coerced (`ScopeCol::using_cast`).
        let cast_named = |b: &mut Binder, scope: &mut Scope, named: usize| {
            let (lt, rt) = (scope.cols[l].ty, scope.cols[r].ty);
            let ty = b.common_type(&[lt, rt], "JOIN/USING")?;
            let c = &mut scope.cols[named];
            // Another type modifier alone changes no value (PostgreSQL
            // relabels the column).
            if c.ty.without_typmod() != ty.without_typmod() {
                c.using_cast = Some((ty, c.rel.clone()));
            }
            Ok::<(), DbError>(())
        };
        match kind {
            JoinKind::Inner | JoinKind::Left => {
                scope.cols[r].hidden = true;
                scope.cols[r].merged = true;
                cast_named(b, scope, l)?;
            }
            JoinKind::Right => {
                scope.cols[l].merged = true;
                scope.cols[r].hidden = true;
                cast_named(b, scope, r)?;
            }
            JoinKind::Full => {
                scope.cols[l].merged = true;
                scope.cols[r].hidden = true;
                scope.cols[r].merged = true;
                let (lt, rt) = (scope.cols[l].ty, scope.cols[r].ty);
                let ty = b.common_type(&[lt, rt], "JOIN/USING")?;
                let mut side = |c: usize, t| b.coerce(Expr::Col(c - start), t, ty);
                let (le, re) = (side(l, lt)?, side(r, rt)?);
                merged.push(Expr::Coalesce(vec![le, re]));
                let mut c = scope.cols[l].clone();
                // Reachable by its name alone (or the join's alias).
                c.rel = String::new();
                c.ty = ty;
                c.hidden = true;
                c.merged = false;
                c.using_cast = None;
                c.table_oid = 0;
                c.attnum = 0;
                c.perm = None;
                scope.cols.push(c);
                *offset += 1;
            }
        }
    }
    Ok(merged)
}

/// The [`SetFn::Populate`](nestor_types::set_fns::SetFn) of a populate
/// function in FROM: its record type is the base argument's, or the
/// column definition list's (`json_to_record(...) AS x(a int, b text)`).
fn populate_fn(
    fname: &str,
    (json, base, set): (bool, bool, bool),
    types: &[DataType],
    coldeflist: &[pb::Node],
) -> Result<nestor_types::set_fns::SetFn, DbError> {
    let first = types.first().copied().unwrap_or(DataType::Unknown);
    let anonymous = matches!(first, DataType::Record(r) if r.oid == 0);
    if base && anonymous && coldeflist.is_empty() {
        // An anonymous record's row type is not the function's (FROM
        // needs the column definition list, as for `record`).
        return Err(DbError::new(
            SqlState::SyntaxError,
            "a column definition list is required for functions returning \"record\"",
        ));
    }
    let rt = if base
        && (coldeflist.is_empty() || !matches!(first, DataType::Record(r) if r.fields.is_empty()))
    {
        let rt = crate::functions::populate_base(fname, first)?;
        if !coldeflist.is_empty() {
            check_row_matches(rt, &column_defs(coldeflist)?)?;
        }
        rt
    } else {
        if coldeflist.is_empty() {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "a column definition list is required for functions returning \"record\"",
            ));
        }
        nestor_types::datatype::record_type(column_defs(coldeflist)?)
    };
    Ok(nestor_types::set_fns::SetFn::Populate {
        rt,
        json,
        base,
        set,
    })
}

/// `set_fn` as a FROM function: a populate function whose rows need
/// the checks of domains (of its record type's attributes, or the domain
/// its base argument `base` was cast to) checks each.
fn populate_checked(
    b: &mut Binder,
    set_fn: nestor_types::set_fns::SetFn,
    base: Option<&Expr>,
) -> Result<TableFunc, DbError> {
    let nestor_types::set_fns::SetFn::Populate { rt, base: has, .. } = set_fn else {
        return Ok(TableFunc::Set(set_fn));
    };
    let checks = match bind::domain::base_domain(base.filter(|_| has)) {
        Some(c) => Some(c),
        None => bind::domain::contained_checks(
            b.catalog,
            b.eval,
            super::plan_query,
            DataType::Record(rt),
        )?,
    };
    Ok(match checks {
        Some(c) => TableFunc::Checked(Box::new(TableFunc::Set(set_fn)), Box::new(c)),
        None => TableFunc::Set(set_fn),
    })
}

const NOT_RECORD: &str =
    "a column definition list is only allowed for functions returning \"record\"";

/// A column definition list where the function's result needs none
/// (42601, at the list as PostgreSQL points).
fn coldeflist_error(b: &Binder, rf: &pb::RangeFunction, msg: &str) -> DbError {
    let at = match rf.coldeflist.first().and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::ColumnDef(d)) => d.location,
        _ => -1,
    };
    bind::err_at(DbError::new(SqlState::SyntaxError, msg), b.text, at)
}

/// The fields of a column definition list (`AS x(a int, b text)`).
fn column_defs(coldeflist: &[pb::Node]) -> Result<Vec<(String, DataType)>, DbError> {
    let mut fields = Vec::with_capacity(coldeflist.len());
    for n in coldeflist {
        let NodeEnum::ColumnDef(cd) = node(n)? else {
            return Err(DbError::internal("column definition is not a ColumnDef"));
        };
        let tn = cd
            .type_name
            .as_ref()
            .ok_or_else(|| DbError::internal("column definition without a type"))?;
        fields.push((cd.colname.clone(), bind::type_from_name(tn)?));
    }
    Ok(fields)
}

/// A column definition list given for a function whose row type is known
/// must describe that row (PostgreSQL's tupledesc_match).
fn check_row_matches(
    rt: &nestor_types::datatype::RecordType,
    defs: &[(String, DataType)],
) -> Result<(), DbError> {
    let mismatch = |detail: String| {
        DbError::new(
            SqlState::DatatypeMismatch,
            "function return row and query-specified return row do not match",
        )
        .with_detail(detail)
        .unpositioned()
    };
    if rt.fields.len() != defs.len() {
        let n = rt.fields.len();
        return Err(mismatch(format!(
            "Returned row contains {n} attribute{}, but query expects {}.",
            if n == 1 { "" } else { "s" },
            defs.len()
        )));
    }
    for (i, ((_, have), (_, want))) in rt.fields.iter().zip(defs).enumerate() {
        if have.base() != want.base() {
            return Err(mismatch(format!(
                "Returned type {} at ordinal position {}, but query expects {}.",
                have.name(),
                i + 1,
                want.name()
            )));
        }
    }
    Ok(())
}

/// ROWS FROM (f(...) [AS (coldefs)], g(...), ...) [WITH ORDINALITY]: each
/// function is planned as if it stood alone in FROM (so each takes what a
/// lone function takes: a column definition list, multi-array unnest),
/// then one scan runs them all and puts their rows side by side
/// (`TableFunc::RowsFrom`).
fn plan_rows_from(
    b: &mut Binder,
    rf: &pb::RangeFunction,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    if !rf.coldeflist.is_empty() && rf.functions.len() != 1 {
        // PostgreSQL's transformRangeFunction.
        let at = match rf.coldeflist[0].node.as_ref() {
            Some(NodeEnum::ColumnDef(d)) => d.location,
            _ => -1,
        };
        let e = DbError::new(
            SqlState::SyntaxError,
            "ROWS FROM() with multiple functions cannot have a column definition list",
        )
        .with_hint("Put a separate column definition list for each function inside ROWS FROM().");
        return Err(bind::err_at(e, b.text, at));
    }
    let mut items = Vec::with_capacity(rf.functions.len());
    let mut args = Vec::new();
    let mut cols: Vec<OutCol> = Vec::new();
    let mut first_name = String::new();
    for f in &rf.functions {
        let NodeEnum::List(l) = node(f)? else {
            return Err(DbError::internal("RangeFunction item is not a list"));
        };
        // A lone function's list may also follow ROWS FROM (...).
        let coldeflist = match l.items.get(1).and_then(|n| n.node.as_ref()) {
            Some(NodeEnum::List(defs)) => defs.items.clone(),
            _ => rf.coldeflist.clone(),
        };
        let lone = pb::RangeFunction {
            lateral: rf.lateral,
            ordinality: false,
            is_rowsfrom: false,
            functions: vec![pb::Node {
                node: Some(NodeEnum::List(pb::List {
                    items: l.items.iter().take(1).cloned().collect(),
                })),
            }],
            alias: None,
            coldeflist,
        };
        // Planned against a copy of the level's scope, so its arguments
        // see the items before this ROWS FROM and its columns land where
        // this item's columns start.
        let mut item_scope = scope.clone();
        let mut item_offset = *offset;
        let item = plan_range_function(b, &lone, &mut item_offset, &mut item_scope)?;
        let (func, item_args) = match item {
            From::Other {
                plan: Plan::FunctionScan { func, args, .. },
                ..
            }
            | From::LateralFn { func, args, .. } => (func, args),
            _ => return Err(DbError::unsupported("this function in ROWS FROM")),
        };
        let item_cols: Vec<OutCol> = item_scope.cols[*offset..]
            .iter()
            .map(|c| OutCol {
                name: c.name.clone(),
                ty: c.ty,
                table_oid: 0,
                column_id: 0,
            })
            .collect();
        if first_name.is_empty() {
            first_name = item_cols
                .first()
                .map(|c| c.name.clone())
                .unwrap_or_default();
        }
        items.push(RowsFromItem {
            func,
            nargs: item_args.len(),
            width: item_cols.len(),
        });
        args.extend(item_args);
        cols.extend(item_cols);
    }
    let colnames = rf
        .alias
        .as_ref()
        .map(|a| bind::names(&a.colnames))
        .unwrap_or_default();
    for (c, n) in cols.iter_mut().zip(&colnames) {
        c.name = n.clone();
    }
    // Without an alias the item is named after its first function, as in
    // PostgreSQL.
    let alias = rf
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or(first_name);
    let plan = function_scan(
        TableFunc::RowsFrom(items),
        args,
        &alias,
        &mut cols,
        rf.ordinality,
        &colnames,
    );
    Ok(function_leaf(plan, &alias, cols, offset, scope))
}

pub(super) fn plan_range_function(
    b: &mut Binder,
    rf: &pb::RangeFunction,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    // LATERAL changes nothing: a function may refer to earlier items anyway.
    if rf.is_rowsfrom || rf.functions.len() != 1 {
        return plan_rows_from(b, rf, offset, scope);
    }
    let NodeEnum::List(l) = node(&rf.functions[0])? else {
        return Err(DbError::internal("RangeFunction item is not a list"));
    };
    let first = l
        .items
        .first()
        .ok_or_else(|| DbError::internal("RangeFunction item without a function"))?;
    let Some(NodeEnum::FuncCall(fc)) = first.node.as_ref() else {
        return plan_expr_item(b, rf, first, offset, scope);
    };
    let fname = bind::names(&fc.funcname)
        .last()
        .cloned()
        .unwrap_or_default();
    let (alias, colnames) = function_alias(rf, &fname);
    let name = colnames.first().cloned().unwrap_or_else(|| {
        // Its OUT parameter names the column unless an alias was given.
        if fname == "pg_partition_ancestors" && rf.alias.is_none() {
            "relid".to_string()
        } else {
            alias.clone()
        }
    });
    let builtin = matches!(
        fname.as_str(),
        "generate_series"
            | "unnest"
            | "pg_partition_ancestors"
            | "pg_partition_tree"
            | "pg_options_to_table"
            | "jsonb_path_query"
    );
    // unnest of one array takes a list when its elements are records
    // (`record_columns`).
    let lone_unnest = fname == "unnest" && fc.args.len() == 1;
    if builtin && !lone_unnest && !rf.coldeflist.is_empty() {
        return Err(coldeflist_error(b, rf, NOT_RECORD));
    }
    if fname == "unnest" && fc.args.len() > 1 {
        // unnest(a, b, ...): one column per array, side by side, the
        // shorter ones padded with NULL (Django's bulk_create sends this).
        let mut args = Vec::with_capacity(fc.args.len());
        let mut cols = Vec::with_capacity(fc.args.len());
        for (i, a) in fc.args.iter().enumerate() {
            let (e, t) = b.bind(a)?;
            let elem = t.element().ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedFunction,
                    format!(
                        "function unnest({}) does not exist",
                        t.resolve_unknown().name()
                    ),
                )
            })?;
            args.push(e);
            cols.push(OutCol {
                name: colnames.get(i).cloned().unwrap_or_else(|| "unnest".into()),
                ty: elem,
                table_oid: 0,
                column_id: 0,
            });
        }
        let plan = function_scan(
            TableFunc::Unnest,
            args,
            &fname,
            &mut cols,
            rf.ordinality,
            &colnames,
        );
        return Ok(function_leaf(plan, &alias, cols, offset, scope));
    }
    let regclass = DataType::Reg(nestor_types::datatype::RegKind::Class);
    let fixed: Option<FixedColumns> = match fname.as_str() {
        "pg_partition_tree" => Some((
            TableFunc::PartitionTree,
            regclass,
            &[
                ("relid", regclass),
                ("parentrelid", regclass),
                ("isleaf", DataType::Bool),
                ("level", DataType::Int4),
            ],
        )),
        "pg_options_to_table" => Some((
            TableFunc::OptionsToTable,
            DataType::Text.array_of().expect("text[]"),
            &[
                ("option_name", DataType::Text),
                ("option_value", DataType::Text),
            ],
        )),
        _ => None,
    };
    if let Some((func, arg_ty, out)) = fixed {
        // One argument of `arg_ty`, columns `out` (renamed by the alias).
        let [arg] = fc.args.as_slice() else {
            return Err(DbError::unsupported(format!(
                "{fname} with these arguments"
            )));
        };
        let (e, t) = b.bind(arg)?;
        let e = b.coerce(e, t, arg_ty)?;
        let plan = Plan::FunctionScan {
            func,
            args: vec![e],
            name: fname.clone(),
            ordinality: false,
        };
        let cols = out
            .iter()
            .enumerate()
            .map(|(i, (n, ty))| OutCol {
                name: colnames.get(i).cloned().unwrap_or_else(|| n.to_string()),
                ty: *ty,
                table_oid: 0,
                column_id: 0,
            })
            .collect();
        return Ok(add_leaf(plan, &alias, cols, &[], offset, scope));
    }
    let populate = nestor_types::set_fns::populate_kind(&fname);
    let named_set_fn =
        nestor_types::set_fns::SetFn::by_name(&fname).or_else(|| tsvector_unnest(b, &fname, fc));
    if populate.is_some() || named_set_fn.is_some() {
        // regexp_matches, jsonb_each and the other built-in set-returning
        // functions over values (nestor_types::set_fns).
        let mut args = Vec::with_capacity(fc.args.len());
        let mut types = Vec::with_capacity(fc.args.len());
        for a in &fc.args {
            let (e, t) = b.bind(a)?;
            args.push(e);
            types.push(t);
        }
        let set_fn = match (populate, named_set_fn) {
            (Some(kind), _) => populate_fn(&fname, kind, &types, &rf.coldeflist)
                .map_err(|e| bind::err_at(e, b.text, fc.location))?,
            (None, Some(f)) => f,
            (None, None) => return Err(DbError::internal("no set-returning function")),
        };
        let (params, out) = set_fn
            .bind(&types)
            .map_err(|e| bind::err_at(e, b.text, fc.location))?;
        if populate.is_none() && !rf.coldeflist.is_empty() {
            let msg = if out.len() > 1 {
                "a column definition list is redundant for a function with OUT parameters"
            } else {
                NOT_RECORD
            };
            return Err(coldeflist_error(b, rf, msg));
        }
        let func = populate_checked(b, set_fn, args.first())?;
        let mut coerced = Vec::with_capacity(args.len());
        for ((e, from), want) in args.into_iter().zip(&types).zip(params) {
            coerced.push(b.coerce(e, *from, want)?);
        }
        let single = out.len() == 1;
        let mut cols: Vec<OutCol> = out
            .into_iter()
            .enumerate()
            .map(|(i, (n, ty))| OutCol {
                // A one-column function without an output parameter name
                // (its column is named after it) takes the alias, as in
                // PostgreSQL; `value`, `key` stay.
                name: colnames.get(i).cloned().unwrap_or_else(|| {
                    if single && n == fname {
                        alias.clone()
                    } else {
                        n.to_string()
                    }
                }),
                ty,
                table_oid: 0,
                column_id: 0,
            })
            .collect();
        let plan = function_scan(func, coerced, &fname, &mut cols, rf.ordinality, &colnames);
        // One column, and no ordinality column after it.
        let scalar = cols.len() == 1;
        let leaf = function_leaf(plan, &alias, cols, offset, scope);
        if scalar {
            scope
                .cols
                .last_mut()
                .expect("the function's column")
                .scalar_fn = true;
        }
        return Ok(leaf);
    }
    if !builtin {
        if let Some((def, args, out)) = crate::bind::userfunc::bind_from(b, &fname, fc)? {
            let record = matches!(def.returns, nestor_catalog::Returns::Record);
            let out = match (record, rf.coldeflist.is_empty()) {
                (true, true) => {
                    let e = DbError::new(
                        SqlState::SyntaxError,
                        "a column definition list is required for functions returning \"record\"",
                    );
                    return Err(bind::err_at(e, b.text, fc.location));
                }
                (true, false) => column_defs(&rf.coldeflist)?,
                (false, true) => out,
                (false, false) => {
                    let msg = match def.returns {
                        nestor_catalog::Returns::Row(_) => {
                            "a column definition list is redundant for a function with OUT parameters"
                        }
                        nestor_catalog::Returns::RowType(_) => {
                            "a column definition list is redundant for a function returning a named composite type"
                        }
                        nestor_catalog::Returns::Scalar(DataType::Record(rt)) if rt.oid != 0 => {
                            "a column definition list is redundant for a function returning a named composite type"
                        }
                        _ => NOT_RECORD,
                    };
                    return Err(coldeflist_error(b, rf, msg));
                }
            };
            let shape = record.then(|| out.iter().map(|(_, t)| *t).collect());
            let mut cols: Vec<OutCol> = out
                .into_iter()
                .enumerate()
                .map(|(i, (n, ty))| OutCol {
                    name: colnames.get(i).cloned().unwrap_or(
                        if matches!(def.returns, nestor_catalog::Returns::Scalar(t)
                                if !matches!(t, DataType::Record(rt) if rt.oid != 0))
                            && rf.alias.is_some()
                        {
                            alias.clone()
                        } else {
                            n
                        },
                    ),
                    ty,
                    table_oid: 0,
                    column_id: 0,
                })
                .collect();
            let func = TableFunc::User(crate::ir::UserFn(def), shape);
            let plan = function_scan(func, args, &fname, &mut cols, rf.ordinality, &colnames);
            return Ok(function_leaf(plan, &alias, cols, offset, scope));
        }
    }
    let (plan, ty) = match fname.as_str() {
        "generate_series" => generate_series(b, fc)?,
        "unnest" => unnest(b, fc)?,
        "generate_subscripts" => {
            let allowed = std::mem::replace(&mut b.srf_allowed, true);
            let bound = b.bind_srf(fc);
            b.srf_allowed = allowed;
            let (e, ty) = bound?;
            let Expr::Func(crate::functions::Func::Srf(kind), args) = e else {
                return Err(DbError::internal(
                    "generate_subscripts bound as a set function",
                ));
            };
            let plan = Plan::FunctionScan {
                func: TableFunc::Srf(kind),
                args,
                name: fname.clone(),
                ordinality: false,
            };
            (plan, ty)
        }
        // Its items as a jsonb[] (nestor_types::jsonpath::query_set_fn),
        // unnested.
        "jsonb_path_query" => {
            let args = b.bind_jsonpath_args("jsonb_path_query", fc)?;
            let items = Expr::Func(
                crate::functions::Func::Library(nestor_types::jsonpath::query_set_fn()),
                args,
            );
            let plan = Plan::FunctionScan {
                func: TableFunc::Unnest,
                args: vec![items],
                name: fname.clone(),
                ordinality: false,
            };
            (plan, DataType::Jsonb)
        }
        "pg_partition_ancestors" => {
            let [arg] = fc.args.as_slice() else {
                return Err(DbError::unsupported(
                    "pg_partition_ancestors with these arguments",
                ));
            };
            let (e, t) = b.bind(arg)?;
            let e = if t.is_integer() || t == DataType::Oid {
                e
            } else {
                let t = if t == DataType::Unknown {
                    DataType::Text
                } else {
                    t
                };
                let e = b.coerce(e, t, DataType::Text)?;
                Expr::Func(crate::functions::Func::Regclass, vec![e])
            };
            let plan = Plan::FunctionScan {
                func: TableFunc::PartitionAncestors,
                args: vec![e],
                name: fname.clone(),
                ordinality: false,
            };
            (plan, DataType::Reg(nestor_types::datatype::RegKind::Class))
        }
        _ if rf.ordinality => {
            return Err(DbError::unsupported("WITH ORDINALITY on this function"));
        }
        _ => {
            // A scalar function in FROM yields one row; one reading earlier
            // FROM items is a function scan of its value, run per row of
            // theirs (`function_leaf`).
            let (e, t) = b.bind(&l.items[0])?;
            let plan = if e.columns().is_empty() {
                Plan::Project {
                    input: Box::new(Plan::Single),
                    exprs: vec![e],
                }
            } else {
                Plan::FunctionScan {
                    func: TableFunc::Value,
                    args: vec![e],
                    name: fname.clone(),
                    ordinality: false,
                }
            };
            (plan, t.resolve_unknown())
        }
    };
    let fields = record_columns(b, rf, ty, fc.location)?;
    let col = OutCol {
        name,
        ty,
        table_oid: 0,
        column_id: 0,
    };
    value_leaf(
        plan,
        col,
        fields,
        rf.ordinality,
        (&alias, &colnames),
        offset,
        scope,
    )
}

/// A FROM item that is an expression in function syntax but no function
/// call (`coalesce(b)`, `cast(x as t)`, `current_date`, `greatest(...)`):
/// one row of its value, named as the select list would name it, its
/// columns as [`record_columns`] says.
fn plan_expr_item(
    b: &mut Binder,
    rf: &pb::RangeFunction,
    item: &pb::Node,
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let fname = super::clauses::derive_name(item);
    let (alias, colnames) = function_alias(rf, &fname);
    let (e, t) = b.bind(item)?;
    let t = t.resolve_unknown();
    let fields = record_columns(b, rf, t, item_location(item))?;
    let plan = Plan::FunctionScan {
        func: TableFunc::Value,
        args: vec![e],
        name: fname.clone(),
        ordinality: false,
    };
    let name = colnames.first().cloned().unwrap_or_else(|| alias.clone());
    let col = OutCol {
        name,
        ty: t,
        table_oid: 0,
        column_id: 0,
    };
    value_leaf(
        plan,
        col,
        fields,
        rf.ordinality,
        (&alias, &colnames),
        offset,
        scope,
    )
}

/// Where an expression item's errors point (its function's name).
fn item_location(item: &pb::Node) -> i32 {
    match item.node.as_ref() {
        Some(NodeEnum::CoalesceExpr(c)) => c.location,
        Some(NodeEnum::MinMaxExpr(m)) => m.location,
        Some(NodeEnum::SqlvalueFunction(f)) => f.location,
        Some(n) => bind::location_of(n),
        None => -1,
    }
}

const REDUNDANT_COMPOSITE: &str =
    "a column definition list is redundant for a function returning a named composite type";

/// The columns of a FROM function whose value is of type `ty`, as
/// PostgreSQL's addRangeTableEntryForFunction sorts result types: a named
/// composite type's fields (a column definition list is redundant); an
/// anonymous record's from the column definition list, which it needs and
/// which must match the record's shape where that is known here (else the
/// scan checks each value's width); None for any other type, one column
/// (which takes no list).
fn record_columns(
    b: &Binder,
    rf: &pb::RangeFunction,
    ty: DataType,
    location: i32,
) -> Result<Option<Vec<(String, DataType)>>, DbError> {
    match ty {
        DataType::Record(rt) if rt.oid != 0 => {
            if !rf.coldeflist.is_empty() {
                return Err(coldeflist_error(b, rf, REDUNDANT_COMPOSITE));
            }
            Ok(Some(rt.fields.clone()))
        }
        DataType::Record(rt) => {
            if rf.coldeflist.is_empty() {
                let e = DbError::new(
                    SqlState::SyntaxError,
                    "a column definition list is required for functions returning \"record\"",
                );
                return Err(bind::err_at(e, b.text, location));
            }
            let defs = column_defs(&rf.coldeflist)?;
            if !rt.fields.is_empty() {
                check_row_matches(rt, &defs)?;
            }
            Ok(Some(defs))
        }
        _ if !rf.coldeflist.is_empty() => Err(coldeflist_error(b, rf, NOT_RECORD)),
        _ => Ok(None),
    }
}

/// The FROM node of a function scan of one value per row: the value as
/// its one column `col`, or — given a record's `fields` — split into
/// them (the alias's column names renaming either), with WITH
/// ORDINALITY's column after.
fn value_leaf(
    plan: Plan,
    col: OutCol,
    fields: Option<Vec<(String, DataType)>>,
    ordinality: bool,
    (alias, colnames): (&str, &[String]),
    offset: &mut usize,
    scope: &mut Scope,
) -> Result<From, DbError> {
    let Some(fields) = fields else {
        let mut cols = vec![col];
        let plan = match plan {
            Plan::FunctionScan {
                func, args, name, ..
            } if ordinality => function_scan(func, args, &name, &mut cols, true, colnames),
            plan => plan,
        };
        return Ok(function_leaf(plan, alias, cols, offset, scope));
    };
    let (func, args, name) = match plan {
        Plan::FunctionScan {
            func, args, name, ..
        } => (func, args, name),
        Plan::Project { input, mut exprs }
            if matches!(*input, Plan::Single) && exprs.len() == 1 =>
        {
            (TableFunc::Value, vec![exprs.remove(0)], alias.to_string())
        }
        _ => return Err(DbError::unsupported("this record-valued function in FROM")),
    };
    let mut cols: Vec<OutCol> = fields
        .into_iter()
        .enumerate()
        .map(|(i, (n, ty))| OutCol {
            name: colnames.get(i).cloned().unwrap_or(n),
            ty,
            table_oid: 0,
            column_id: 0,
        })
        .collect();
    let func = TableFunc::Fields(Box::new(func), cols.len());
    let plan = function_scan(func, args, &name, &mut cols, ordinality, colnames);
    Ok(function_leaf(plan, alias, cols, offset, scope))
}

/// A function's scan, with WITH ORDINALITY's column added after its
/// `cols` when asked for.
fn function_scan(
    func: TableFunc,
    args: Vec<Expr>,
    fname: &str,
    cols: &mut Vec<OutCol>,
    ordinality: bool,
    colnames: &[String],
) -> Plan {
    if ordinality {
        cols.push(ordinality_col(colnames, cols.len()));
    }
    Plan::FunctionScan {
        func,
        args,
        name: fname.to_string(),
        ordinality,
    }
}

/// WITH ORDINALITY's column: named by the alias list at `at`, else
/// `ordinality`.
fn ordinality_col(colnames: &[String], at: usize) -> OutCol {
    OutCol {
        name: colnames
            .get(at)
            .cloned()
            .unwrap_or_else(|| "ordinality".into()),
        ty: DataType::Int8,
        table_oid: 0,
        column_id: 0,
    }
}

/// A function's FROM node: a leaf, or — when its arguments refer to
/// earlier FROM items — a lateral function run per row of theirs.
fn function_leaf(
    plan: Plan,
    alias: &str,
    cols: Vec<OutCol>,
    offset: &mut usize,
    scope: &mut Scope,
) -> From {
    if let Plan::FunctionScan {
        func,
        args,
        name,
        ordinality,
    } = &plan
    {
        if args.iter().any(|a| !a.columns().is_empty()) {
            let (func, args, ordinality) = (func.clone(), args.clone(), *ordinality);
            let name = name.clone();
            let leaf = add_leaf(Plan::Single, alias, cols, &[], offset, scope);
            let (lo, hi) = leaf.range();
            return From::LateralFn {
                func,
                args,
                name,
                ordinality,
                offset: lo,
                width: hi - lo,
            };
        }
    }
    add_leaf(plan, alias, cols, &[], offset, scope)
}

/// unnest(array): its elements in storage order, one row each (every
/// dimension flattened, as PostgreSQL does).
/// unnest(tsvector) is text search's (lexeme, positions, weights), not an
/// array's: the argument's type decides (a parameter is taken as an
/// array, as its type is not known before binding).
fn tsvector_unnest(
    b: &mut Binder,
    fname: &str,
    fc: &pb::FuncCall,
) -> Option<nestor_types::set_fns::SetFn> {
    if fname != "unnest" || fc.args.len() != 1 {
        return None;
    }
    if !super::peekable(&fc.args[0]) {
        return None;
    }
    let (_, t) = b.bind(&fc.args[0]).ok()?;
    (t == DataType::TsVector).then_some(nestor_types::set_fns::SetFn::TsUnnest)
}

fn unnest(b: &mut Binder, fc: &pb::FuncCall) -> Result<(Plan, DataType), DbError> {
    if fc.args.len() != 1 {
        return Err(DbError::internal(
            "unnest of several arrays is planned apart",
        ));
    }
    let (e, t) = b.bind(&fc.args[0])?;
    let elem = match t {
        DataType::Unknown => {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                "could not determine polymorphic type because input has type unknown",
            ))
        }
        t => t.element().ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedFunction,
                format!("function unnest({}) does not exist", t.name()),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
        })?,
    };
    let plan = Plan::FunctionScan {
        func: TableFunc::Unnest,
        args: vec![e],
        name: "unnest".into(),
        ordinality: false,
    };
    Ok((plan, elem))
}

/// generate_series(start, stop [, step]) over integers, numeric and
/// timestamps.
fn generate_series(b: &mut Binder, fc: &pb::FuncCall) -> Result<(Plan, DataType), DbError> {
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
    // Over timestamps with an interval step (the executor walks it).
    if let Some(t) = crate::functions::timestamp_series_type(&types) {
        let wants = [t, t, DataType::Interval(None)];
        let args = args
            .into_iter()
            .zip(types)
            .zip(wants)
            .map(|((e, from), want)| b.coerce(e, from, want))
            .collect::<Result<Vec<_>, _>>()?;
        let plan = Plan::FunctionScan {
            func: TableFunc::GenerateSeries,
            args,
            name: "generate_series".into(),
            ordinality: false,
        };
        return Ok((plan, t));
    }
    let ty = crate::functions::series_type(b.common_type(&types, "generate_series")?)?;
    let args = args
        .into_iter()
        .zip(types)
        .map(|(e, t)| b.coerce(e, t, ty))
        .collect::<Result<Vec<_>, _>>()?;
    let plan = Plan::FunctionScan {
        func: TableFunc::GenerateSeries,
        args,
        name: "generate_series".into(),
        ordinality: false,
    };
    Ok((plan, ty))
}

/// A function in FROM's alias (its name when none is given) and column
/// aliases.
fn function_alias(rf: &pb::RangeFunction, fname: &str) -> (String, Vec<String>) {
    match &rf.alias {
        Some(a) => (a.aliasname.clone(), bind::names(&a.colnames)),
        None => (fname.to_string(), Vec::new()),
    }
}
