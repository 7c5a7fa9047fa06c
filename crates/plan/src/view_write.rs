//! Writing through views: PostgreSQL's automatically updatable views.
//!
//! A view is automatically updatable when its query is a plain SELECT
//! from exactly one table or updatable view: no WITH, DISTINCT, GROUP BY,
//! HAVING, LIMIT/OFFSET, set operations, and no aggregates, window
//! functions or set-returning functions in its select list. Resolving a
//! write target walks the chain of views down to the table and binds each
//! view's select list and WHERE over the table's row, so that
//!
//! ```text
//!   view column i  -> an expression over the base table's row (with the
//!                     system columns); updatable when it is a plain column
//!   view condition -> the conjunction of every level's WHERE, over the row
//!   check options  -> the conditions each written row must satisfy (44000)
//! ```
//!
//! The DML planner (`modify.rs`) binds the statement's own expressions in
//! a scope of the view's columns and substitutes these expressions for
//! them, so the plan is an ordinary INSERT/UPDATE/DELETE of the table:
//! the executor, triggers, EvalPlanQual and the hot path of table writes
//! are unchanged. The view is in the privilege list (checked for the
//! user, ROW EXCLUSIVE lock), the table as the view's owner.
//!
//! UPDATE/DELETE bind over the base row's own layout (view columns that
//! are base columns name those positions; computed ones are virtual
//! positions substituted after binding), so FROM/USING items and
//! correlated subqueries work as for a table.
//!
//! View column defaults (ALTER VIEW ... SET DEFAULT) are resolved with
//! the columns: INSERT's DEFAULT names the first level's that has one, a
//! column an INSERT leaves out gets every level's (outermost first), then
//! the table's; UPDATE's DEFAULT is the named view's own default, else
//! NULL (PostgreSQL's rewriter replaces it at the view's level).
//!
//! INSERT ... ON CONFLICT through a view binds its inference, SET list and
//! WHERE over the view's columns (EXCLUDED's too) and rewrites them over
//! the base rows, so the arbiters are the table's unique indexes on the
//! columns the view names; the check options apply to the inserted and to
//! the updated row, not to the existing one (as in PostgreSQL, DO UPDATE
//! may reach a row the view does not show).
//!
//! Left out (0A000): RETURNING together with FROM/USING, and
//! correlated subqueries when the view has computed columns or in
//! INSERT/RETURNING/ON CONFLICT, subscripted or field assignments in ON
//! CONFLICT DO UPDATE, ON CONFLICT through a view with a check option
//! into a partitioned table, and writes through a view into a relation
//! with rules for the event (rules apply before planning, in the
//! rewriter). Below the named view and the relation right under it,
//! privileges are checked per relation, not per column.

use std::sync::Arc;

use nestor_catalog::acl::ObjKind;
use nestor_catalog::{Catalog, TableDef, ViewCheckOption, ViewDef};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_types::datatype::DataType;
use nestor_types::EvalCtx;

use crate::bind::{node, relname, AggCtx, Binder, Scope, ScopeCol, WinCtx};
use crate::ir::Expr;
use crate::select;

/// What a statement writes through.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WriteKind {
    Insert,
    Update,
    Delete,
}

impl WriteKind {
    /// INSERT, UPDATE or DELETE.
    pub fn command(self) -> &'static str {
        match self {
            WriteKind::Insert => "INSERT",
            WriteKind::Update => "UPDATE",
            WriteKind::Delete => "DELETE",
        }
    }
}

/// One column of a view written through.
#[derive(Clone, Debug)]
pub struct ViewCol {
    pub name: String,
    pub ty: DataType,
    /// Its value over the base table's row (data and system columns).
    pub expr: Expr,
    /// The base table column it is, when it is updatable.
    pub base: Option<usize>,
    /// What DEFAULT in an INSERT means for it: its own default (ALTER
    /// VIEW ... SET DEFAULT), else that of the column below that it passes
    /// through; None leaves the base table's. (UPDATE's DEFAULT is the
    /// named view's own default or NULL, as PostgreSQL's rewriter makes
    /// it.)
    pub default: Option<Expr>,
}

/// A view column's default as an INSERT that leaves the column out gets
/// it: PostgreSQL's rewriter adds each level's defaults for the columns
/// not assigned at that level, whether or not the view above shows them.
#[derive(Clone, Debug)]
pub struct LevelDefault {
    pub view: String,
    pub column: String,
    /// The base column it fills; None: a computed column (an error).
    pub base: Option<usize>,
    pub expr: Expr,
    /// A default of the view the statement names (UPDATE's DEFAULT
    /// takes only those).
    pub top: bool,
}

/// A check option's condition over the base table's row.
#[derive(Clone, Debug)]
pub struct ViewCheck {
    pub view: String,
    pub expr: Expr,
}

/// A view resolved to the table its writes go to.
pub struct ViewTarget {
    pub view: Arc<ViewDef>,
    pub table: Arc<TableDef>,
    pub cols: Vec<ViewCol>,
    /// Every level's WHERE condition over the base row.
    pub conds: Vec<Expr>,
    /// The check options that apply to rows written through the view.
    pub checks: Vec<ViewCheck>,
    /// Every level's column defaults, outermost first.
    pub defaults: Vec<LevelDefault>,
    /// The table's need when it is right below the view: the statement
    /// marks the table columns it writes there (`crate::perm`); None
    /// below several views (their needs are the relations' privileges).
    pub table_perm: Option<usize>,
}

impl ViewTarget {
    /// The scope statements bind in: the view's columns under `alias`.
    pub fn scope(&self, alias: &str) -> Scope {
        let mut scope = Scope::default();
        for c in &self.cols {
            scope.cols.push(ScopeCol {
                perm: None,
                rel: alias.to_string(),
                name: c.name.clone(),
                ty: c.ty,
                hidden: false,
                table_oid: self.view.oid.0,
                attnum: 0,
                merged: false,
                scalar_fn: false,
                subst: None,
                using_cast: None,
            });
        }
        scope
    }

    /// An expression bound in [`ViewTarget::scope`] rewritten over the base
    /// table's row.
    pub fn substitute(&self, e: Expr) -> Result<Expr, DbError> {
        if e.has_correlated_subquery() {
            return Err(DbError::unsupported(
                "a correlated subquery in a statement writing through a view",
            ));
        }
        substitute(e, &self.cols)
    }

    /// An expression bound in ON CONFLICT DO UPDATE's scope through the
    /// view (the view's columns of the existing row, then EXCLUDED's)
    /// rewritten over the executor's input: the existing base row with
    /// its system columns, then the proposed base row with its.
    pub fn substitute_conflict(&self, e: Expr) -> Result<Expr, DbError> {
        if e.has_correlated_subquery() {
            return Err(DbError::unsupported(
                "a correlated subquery in INSERT ... ON CONFLICT through a view",
            ));
        }
        let n = self.cols.len();
        let width = self.table.columns.len() + crate::ir::SYS_COLS;
        e.rewrite(&mut |x| {
            Ok(match x {
                Expr::Col(i) if *i < n => Some(self.cols[*i].expr.clone()),
                Expr::Col(i) => Some(shift_cols(self.cols[*i - n].expr.clone(), width)?),
                _ => None,
            })
        })
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.cols.iter().position(|c| c.name == name)
    }

    /// The base column view column `i` writes, or PostgreSQL's error for a
    /// column that is not a plain column of the base relation.
    pub fn writable(&self, i: usize, kind: WriteKind) -> Result<usize, DbError> {
        let c = &self.cols[i];
        c.base.ok_or_else(|| {
            let verb = match kind {
                WriteKind::Insert => "insert into",
                _ => "update",
            };
            DbError::new(
                SqlState::FeatureNotSupported,
                format!(
                    "cannot {verb} column \"{}\" of view \"{}\"",
                    c.name, self.view.name
                ),
            )
            .with_detail(
                "View columns that are not columns of their base relation are not updatable.",
            )
        })
    }
}

impl ViewTarget {
    /// The defaults an INSERT assigning the base columns `assigned` adds
    /// (base column, value), in PostgreSQL's order: each level's, from
    /// the outermost view down, for the columns nothing above filled. A
    /// default of a computed column is PostgreSQL's error.
    pub fn omitted_defaults(&self, assigned: &[usize]) -> Result<Vec<(usize, Expr)>, DbError> {
        let mut out: Vec<(usize, Expr)> = Vec::new();
        for d in &self.defaults {
            let Some(base) = d.base else {
                return Err(not_insertable(&d.column, &d.view));
            };
            if !assigned.contains(&base) && !out.iter().any(|(c, _)| *c == base) {
                out.push((base, d.expr.clone()));
            }
        }
        Ok(out)
    }
}

fn not_insertable(column: &str, view: &str) -> DbError {
    DbError::new(
        SqlState::FeatureNotSupported,
        format!("cannot insert into column \"{column}\" of view \"{view}\""),
    )
    .with_detail("View columns that are not columns of their base relation are not updatable.")
}

/// View `v`'s default for column `pos` (of type `ty`), bound from its
/// SQL text as a table column's default is.
pub(crate) fn bind_view_default(
    b: &Binder,
    v: &ViewDef,
    pos: usize,
    ty: DataType,
) -> Result<Option<Expr>, DbError> {
    let Some((_, sql)) = v.defaults.iter().find(|(p, _)| *p == pos) else {
        return Ok(None);
    };
    let node = nestor_parser::parse_expr(sql)?;
    let mut db = Binder::new(b.catalog, b.eval, sql, &[], select::plan_query);
    db.scopes.push(Scope::default());
    db.outer_refs.push(None);
    db.agg = AggCtx::NotAllowed("DEFAULT expressions");
    let (e, t) = db.bind(&node)?;
    db.coerce_assign(e, t, ty).map(Some)
}

/// `e` over a row placed `by` columns further on.
fn shift_cols(e: Expr, by: usize) -> Result<Expr, DbError> {
    e.rewrite(&mut |x| {
        Ok(match x {
            Expr::Col(i) => Some(Expr::Col(*i + by)),
            _ => None,
        })
    })
}

fn substitute(e: Expr, cols: &[ViewCol]) -> Result<Expr, DbError> {
    e.rewrite(&mut |x| {
        Ok(match x {
            Expr::Col(i) => Some(cols[*i].expr.clone()),
            _ => None,
        })
    })
}

/// PostgreSQL's error for writing to a view that is not automatically
/// updatable (55000).
fn not_updatable(view: &str, kind: WriteKind, detail: &str) -> DbError {
    let (msg, hint) = match kind {
        WriteKind::Insert => (
            format!("cannot insert into view \"{view}\""),
            "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule.",
        ),
        WriteKind::Update => (
            format!("cannot update view \"{view}\""),
            "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule.",
        ),
        WriteKind::Delete => (
            format!("cannot delete from view \"{view}\""),
            "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule.",
        ),
    };
    DbError::new(SqlState::ObjectNotInPrerequisiteState, msg)
        .with_detail(detail)
        .with_hint(hint)
}

/// The view's query, parsed.
pub(crate) fn view_select(v: &ViewDef) -> Result<Box<pb::SelectStmt>, DbError> {
    let stmts = nestor_parser::parse_sql(&v.query)?;
    match stmts
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .and_then(|n| n.node)
    {
        Some(NodeEnum::SelectStmt(sel)) => Ok(sel),
        _ => Err(DbError::internal(format!(
            "view \"{}\" is not a SELECT",
            v.name
        ))),
    }
}

/// Why a view's query is not automatically updatable, from its shape
/// alone (PostgreSQL's view_query_is_auto_updatable, in its order); the
/// select list is checked once bound.
pub fn shape_detail(sel: &pb::SelectStmt) -> Option<&'static str> {
    if !sel.distinct_clause.is_empty() {
        return Some("Views containing DISTINCT are not automatically updatable.");
    }
    if !sel.group_clause.is_empty() {
        return Some("Views containing GROUP BY are not automatically updatable.");
    }
    if sel.having_clause.is_some() {
        return Some("Views containing HAVING are not automatically updatable.");
    }
    if sel.op != pb::SetOperation::SetopNone as i32 && sel.op != 0 {
        return Some(
            "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable.",
        );
    }
    if sel.with_clause.is_some() {
        return Some("Views containing WITH are not automatically updatable.");
    }
    if sel.limit_offset.is_some() || sel.limit_count.is_some() {
        return Some("Views containing LIMIT or OFFSET are not automatically updatable.");
    }
    if !sel.values_lists.is_empty() {
        return Some(NOT_SINGLE);
    }
    None
}

pub(crate) fn single_from(sel: &pb::SelectStmt) -> Option<&pb::RangeVar> {
    if sel.from_clause.len() != 1 {
        return None;
    }
    match node(&sel.from_clause[0]).ok()? {
        NodeEnum::RangeVar(rv) => Some(rv),
        _ => None,
    }
}

const NOT_SINGLE: &str =
    "Views that do not select from a single table or view are not automatically updatable.";

/// Resolve view `v` (named in a statement of `kind`) down to its table.
/// The privileges `privs` are required on each relation below the view,
/// checked as the owner of the view above it.
pub fn resolve(
    b: &mut Binder,
    v: &Arc<ViewDef>,
    kind: WriteKind,
    privs: u16,
) -> Result<ViewTarget, DbError> {
    resolve_depth(b, v, kind, privs, 0)
}

fn resolve_depth(
    b: &mut Binder,
    v: &Arc<ViewDef>,
    kind: WriteKind,
    privs: u16,
    depth: usize,
) -> Result<ViewTarget, DbError> {
    if depth > 100 {
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            format!(
                "infinite recursion detected in rules for relation \"{}\"",
                v.name
            ),
        ));
    }
    let sel = view_select(v)?;
    if let Some(d) = shape_detail(&sel) {
        return Err(not_updatable(&v.name, kind, d));
    }
    let Some(rv) = single_from(&sel) else {
        return Err(not_updatable(&v.name, kind, NOT_SINGLE));
    };
    let name = relname(rv)?;
    let alias = crate::bind::alias_or(rv, &rv.relname);
    let checked_as = select::view_checked_as(b, v);
    let saved_as = std::mem::replace(&mut b.perm_as, checked_as);
    let mut table_perm = None;
    let r = (|| {
        // The level below: a table, or an updatable view resolved first.
        let (table, lower, scope) = if let Some(t) = b.catalog.table(&name) {
            if t.matview.is_some() {
                return Err(not_updatable(&v.name, kind, NOT_SINGLE));
            }
            refuse_rules(&v.name, &t.name, &t.rules, kind)?;
            if depth == 0 {
                // Written columns by column; reads through the view need
                // the table's SELECT.
                let i = b.need_by_columns(ObjKind::Table, t.oid.0, &t.name, privs);
                b.perms[i].cols.untracked |= privs & nestor_catalog::acl::SELECT;
                table_perm = Some(i);
            } else {
                b.need(ObjKind::Table, t.oid.0, &t.name, privs);
            }
            let scope = select::table_scope(&t, &alias);
            (t, None, scope)
        } else if let Some(inner) = b.catalog.view(&name) {
            refuse_rules(&v.name, &inner.name, &inner.rules, kind)?;
            if has_instead_trigger(&inner, kind) {
                return Err(DbError::unsupported(format!(
                    "{} through view \"{}\" into view \"{}\", which has INSTEAD OF {} triggers",
                    kind.command(),
                    v.name,
                    inner.name,
                    kind.command()
                )));
            }
            b.need(ObjKind::Table, inner.oid.0, &inner.name, privs);
            let lower = resolve_depth(b, &inner, kind, privs, depth + 1)?;
            let scope = lower.scope(&alias);
            (lower.table.clone(), Some(lower), scope)
        } else {
            return Err(not_updatable(&v.name, kind, NOT_SINGLE));
        };
        bind_level(b, v, &sel, kind, table, lower, scope)
    })();
    b.perm_as = saved_as;
    r.map(|vt| ViewTarget { table_perm, ..vt })
}

/// A write through a view reaches the relation below it without that
/// relation's rules (they rewrite statements before planning, and this
/// expansion happens in planning): 0A000 rather than skip them.
fn refuse_rules(
    view: &str,
    below: &str,
    rules: &[nestor_catalog::RuleDef],
    kind: WriteKind,
) -> Result<(), DbError> {
    let event = match kind {
        WriteKind::Insert => nestor_catalog::RuleEvent::Insert,
        WriteKind::Update => nestor_catalog::RuleEvent::Update,
        WriteKind::Delete => nestor_catalog::RuleEvent::Delete,
    };
    if rules.iter().any(|r| r.event == event) {
        return Err(DbError::unsupported(format!(
            "{} through view \"{view}\" into \"{below}\", which has ON {} rules",
            event.name(),
            event.name()
        )));
    }
    Ok(())
}

/// Bind one view's select list and WHERE in the scope of the level below
/// and rewrite them over the base row.
fn bind_level(
    b: &mut Binder,
    v: &Arc<ViewDef>,
    sel: &pb::SelectStmt,
    kind: WriteKind,
    table: Arc<TableDef>,
    lower: Option<ViewTarget>,
    scope: Scope,
) -> Result<ViewTarget, DbError> {
    let saved_text = std::mem::take(&mut b.text);
    let saved_ctes = std::mem::take(&mut b.ctes);
    let saved_vars = b.vars.take();
    let saved_agg = std::mem::replace(&mut b.agg, AggCtx::Allowed);
    let saved_window = std::mem::replace(&mut b.window, WinCtx::Allowed);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let bound = (|| {
        let targets = select::bind_targets(b, &sel.target_list)?;
        b.agg = AggCtx::NotAllowed("WHERE");
        let cond = match &sel.where_clause {
            Some(w) => Some(b.bind_bool(w, "WHERE")?),
            None => None,
        };
        Ok((targets, cond))
    })();
    b.scopes.pop();
    b.outer_refs.pop();
    b.text = saved_text;
    b.ctes = saved_ctes;
    b.vars = saved_vars;
    b.agg = saved_agg;
    b.window = saved_window;
    let (targets, cond) = bound.map_err(|e: DbError| {
        DbError::new(
            SqlState::DependentObjectsStillExist,
            format!("view \"{}\" no longer matches the tables it reads", v.name),
        )
        .with_detail(e.into_message())
    })?;
    let mut agg = false;
    let mut win = false;
    let mut srf = false;
    for t in &targets {
        t.expr.walk(&mut |e| match e {
            Expr::Agg(_) => agg = true,
            Expr::Window(_) => win = true,
            _ => {}
        });
        srf |= t.expr.contains_srf();
    }
    if agg {
        return Err(not_updatable(
            &v.name,
            kind,
            "Views that return aggregate functions are not automatically updatable.",
        ));
    }
    if win {
        return Err(not_updatable(
            &v.name,
            kind,
            "Views that return window functions are not automatically updatable.",
        ));
    }
    if srf {
        return Err(not_updatable(
            &v.name,
            kind,
            "Views that return set-returning functions are not automatically updatable.",
        ));
    }
    let n_data = table.columns.len();
    let mut cols = Vec::with_capacity(v.columns.len());
    let mut level_defaults = Vec::new();
    for (pos, (t, (name, ty))) in targets.into_iter().zip(&v.columns).enumerate() {
        let own_default = if kind == WriteKind::Delete {
            None
        } else {
            bind_view_default(b, v, pos, *ty)?
        };
        let mut default = own_default.clone();
        let (expr, base) = match &lower {
            None => {
                // A plain data column (not a system column) is updatable.
                let base = match t.expr {
                    Expr::Col(c) if c < n_data => Some(c),
                    _ => None,
                };
                (t.expr, base)
            }
            Some(l) => {
                let base = match t.expr {
                    Expr::Col(c) => l.cols[c].base,
                    _ => None,
                };
                if let (None, Expr::Col(c)) = (&default, &t.expr) {
                    default = l.cols[*c].default.clone();
                }
                let e = if t.expr.has_correlated_subquery() {
                    return Err(DbError::unsupported(
                        "writing through a view over a view whose select list has a correlated subquery",
                    ));
                } else {
                    substitute(t.expr, &l.cols)?
                };
                (e, base)
            }
        };
        if let Some(e) = own_default {
            level_defaults.push(LevelDefault {
                view: v.name.clone(),
                column: name.clone(),
                base,
                expr: e,
                top: true,
            });
        }
        cols.push(ViewCol {
            name: name.clone(),
            ty: *ty,
            expr,
            base,
            default,
        });
    }
    if kind != WriteKind::Delete && cols.iter().all(|c| c.base.is_none()) {
        return Err(not_updatable(
            &v.name,
            kind,
            "Views that have no updatable columns are not automatically updatable.",
        ));
    }
    let cond = match (cond, &lower) {
        (Some(c), Some(l)) => {
            if c.has_correlated_subquery() {
                return Err(DbError::unsupported(
                    "writing through a view over a view whose WHERE has a correlated subquery",
                ));
            }
            Some(substitute(c, &l.cols)?)
        }
        (c, _) => c,
    };
    let (mut conds, lower_checks) = match lower {
        Some(l) => {
            level_defaults.extend(
                l.defaults
                    .into_iter()
                    .map(|d| LevelDefault { top: false, ..d }),
            );
            (l.conds, l.checks)
        }
        None => (Vec::new(), Vec::new()),
    };
    // Innermost first, as PostgreSQL checks (and reports) them: CASCADED
    // checks every condition below too, whatever those views' options;
    // otherwise the checks of the views below stand as they are.
    let mut checks = match v.check_option {
        ViewCheckOption::Cascaded => cascaded_checks(b, v, &table)?,
        _ => lower_checks,
    };
    if v.check_option != ViewCheckOption::None {
        if let Some(c) = &cond {
            checks.push(ViewCheck {
                view: v.name.clone(),
                expr: c.clone(),
            });
        }
    }
    conds.extend(cond);
    Ok(ViewTarget {
        view: v.clone(),
        table,
        cols,
        conds,
        checks,
        defaults: level_defaults,
        table_perm: None,
    })
}

/// The conditions of every view below `v` (a CASCADED check option
/// checks them all, whatever their own options), innermost first as
/// PostgreSQL reports the innermost failing view.
fn cascaded_checks(
    b: &mut Binder,
    v: &Arc<ViewDef>,
    table: &Arc<TableDef>,
) -> Result<Vec<ViewCheck>, DbError> {
    let sel = view_select(v)?;
    let Some(rv) = single_from(&sel) else {
        return Ok(Vec::new());
    };
    let name = relname(rv)?;
    let Some(inner) = b.catalog.view(&name) else {
        return Ok(Vec::new());
    };
    let mut forced = (*inner).clone();
    forced.check_option = ViewCheckOption::Cascaded;
    let l = resolve_depth(b, &Arc::new(forced), WriteKind::Delete, 0, 1)?;
    debug_assert!(Arc::ptr_eq(&l.table, table) || l.table.oid == table.oid);
    Ok(l.checks)
}

/// The events a view's INSTEAD OF triggers take, in
/// pg_relation_is_updatable's bits (4 UPDATE, 8 INSERT, 16 DELETE).
pub fn trigger_updatable(catalog: &Catalog, oid: RelId) -> i32 {
    let Some(v) = catalog.views().into_iter().find(|v| v.oid == oid) else {
        return 0;
    };
    [
        (WriteKind::Update, 4),
        (WriteKind::Insert, 8),
        (WriteKind::Delete, 16),
    ]
    .into_iter()
    .filter(|&(k, _)| has_instead_trigger(&v, k))
    .fold(0, |m, (_, bit)| m | bit)
}

/// The events relation `oid` takes (PostgreSQL's
/// pg_relation_is_updatable without triggers: 4 UPDATE, 8 INSERT,
/// 16 DELETE): all for a table, what resolving finds for a view, none for
/// anything else.
pub fn relation_updatable(catalog: &Catalog, eval: EvalCtx, oid: RelId) -> i32 {
    if catalog
        .table_by_oid(oid)
        .is_some_and(|t| t.matview.is_none())
    {
        return 4 | 8 | 16;
    }
    let Some(v) = catalog.views().into_iter().find(|v| v.oid == oid) else {
        return 0;
    };
    let mut b = Binder::new(catalog, eval, "", &[], select::plan_query);
    let mut mask = 0;
    if resolve(&mut b, &v, WriteKind::Update, 0).is_ok() {
        mask |= 4 | 8;
    }
    if resolve(&mut b, &v, WriteKind::Delete, 0).is_ok() {
        mask |= 16;
    }
    mask
}

/// Whether column `attnum` (from 1) of relation `oid` can be written.
pub fn column_updatable(catalog: &Catalog, eval: EvalCtx, oid: RelId, attnum: i64) -> bool {
    if catalog
        .table_by_oid(oid)
        .is_some_and(|t| t.matview.is_none())
    {
        return true;
    }
    let Some(v) = catalog.views().into_iter().find(|v| v.oid == oid) else {
        return false;
    };
    let mut b = Binder::new(catalog, eval, "", &[], select::plan_query);
    let Ok(vt) = resolve(&mut b, &v, WriteKind::Update, 0) else {
        return false;
    };
    usize::try_from(attnum - 1)
        .ok()
        .and_then(|i| vt.cols.get(i))
        .is_some_and(|c| c.base.is_some())
}

/// CREATE VIEW ... WITH CHECK OPTION needs an automatically updatable
/// view: PostgreSQL's 0A000 with the reason as its hint otherwise.
pub fn check_option_allowed(
    catalog: &Catalog,
    eval: EvalCtx,
    v: &Arc<ViewDef>,
) -> Result<(), DbError> {
    // Over a view with INSTEAD OF triggers the check applies to the rows
    // they return (`instead.rs`), however the view below is written.
    let sel = view_select(v)?;
    if shape_detail(&sel).is_none() {
        let below = single_from(&sel).map(relname).transpose()?;
        if let Some(inner) = below.and_then(|n| catalog.view(&n)) {
            if inner
                .triggers
                .iter()
                .any(|t| t.timing == nestor_catalog::TriggerTiming::Instead)
            {
                return Ok(());
            }
        }
    }
    let mut b = Binder::new(catalog, eval, "", &[], select::plan_query);
    match resolve(&mut b, v, WriteKind::Update, 0) {
        Err(e) if e.code == SqlState::ObjectNotInPrerequisiteState => {
            let mut err = DbError::new(
                SqlState::FeatureNotSupported,
                "WITH CHECK OPTION is supported only on automatically updatable views",
            );
            if let Some(d) = e.into_data().detail {
                err = err.with_hint(d);
            }
            Err(err)
        }
        Err(e) => Err(e),
        Ok(_) => Ok(()),
    }
}

/// The trigger event bit of a write.
fn event_bit(kind: WriteKind) -> u8 {
    match kind {
        WriteKind::Insert => nestor_catalog::TRIGGER_INSERT,
        WriteKind::Update => nestor_catalog::TRIGGER_UPDATE,
        WriteKind::Delete => nestor_catalog::TRIGGER_DELETE,
    }
}

/// Whether view `v` has an INSTEAD OF trigger for `kind`.
pub fn has_instead_trigger(v: &ViewDef, kind: WriteKind) -> bool {
    v.triggers.iter().any(|t| {
        t.timing == nestor_catalog::TriggerTiming::Instead && t.events & event_bit(kind) != 0
    })
}
