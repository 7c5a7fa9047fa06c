//! Writes on a view that its INSTEAD OF row triggers do (PostgreSQL's
//! ModifyTable over a view with INSTEAD OF triggers).
//!
//! A view with an INSTEAD OF trigger for a statement's event is written
//! by that trigger, whether or not it is automatically updatable (an
//! INSTEAD rule still comes first: rules rewrite the statement before it
//! is planned). The statement plans to the rows the trigger is called
//! with, and the executor (`nestor_exec::modify::exec_instead`) calls it
//! once per row:
//!
//! ```text
//!   INSERT INTO v ...        source rows, one value per view column
//!                            (NULL where the statement gives none: a
//!                            view's columns have no defaults here)
//!   UPDATE v SET .. WHERE    scan of v (joined with FROM items), each
//!                            row: OLD columns, then NEW columns
//!   DELETE FROM v WHERE      scan of v (joined with USING items): OLD
//! ```
//!
//! RETURNING is bound over the view's columns (and FROM/USING items) and
//! evaluated on the row the trigger returned (for DELETE on OLD, the
//! other items' columns as scanned), as PostgreSQL does; a row
//! the trigger returned NULL for is not counted and returns nothing.
//! ON CONFLICT: DO NOTHING without a target is accepted (nothing can
//! conflict); a conflict target is PostgreSQL's 42P10 (a view has no
//! unique index). The view's own CHECK OPTION is not enforced on these
//! rows (PostgreSQL's neither: the trigger decides what is written).
//!
//! Left out (0A000): INSERT into subscripted or field targets; reading the view for
//! UPDATE and DELETE needs SELECT on it (PostgreSQL: only when the
//! statement reads its columns).

use std::sync::Arc;

use nestor_catalog::acl::{self, ObjKind};
use nestor_catalog::{TriggerTiming, ViewDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;

use crate::bind::{self, AggCtx, Binder, Scope, ScopeCol, WinCtx};
use crate::ir::{Expr, Plan};
use crate::modify::{self, Returning, ViewCols};
use crate::select::{self, conjuncts};
use crate::view_write::WriteKind;

/// A write on a view its INSTEAD OF triggers do.
pub struct InsteadPlan {
    pub view: Arc<ViewDef>,
    pub kind: WriteKind,
    /// One row per trigger call: INSERT the new row; UPDATE and DELETE
    /// the scanned row (the old row's columns first, then those of the
    /// FROM/USING items: `width` in all), then for UPDATE the new row.
    pub source: Plan,
    /// UPDATE and DELETE: the width of the scanned row.
    pub width: usize,
    /// UPDATE: the view columns SET names (for UPDATE OF statement
    /// triggers).
    pub set_columns: Vec<usize>,
    /// Over the row the trigger returned (DELETE: the old row), followed
    /// for UPDATE and DELETE by the scanned row's other columns.
    pub returning: Option<Returning>,
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
    v.triggers
        .iter()
        .any(|t| t.timing == TriggerTiming::Instead && t.events & event_bit(kind) != 0)
}

/// An INSERT, UPDATE or DELETE whose target view has an INSTEAD OF
/// trigger for it, planned; None for any other statement.
pub(crate) fn plan_statement(b: &mut Binder, q: &NodeEnum) -> Result<Option<InsteadPlan>, DbError> {
    match q {
        NodeEnum::InsertStmt(ins) => {
            let Some(v) = ins
                .relation
                .as_ref()
                .and_then(|rv| target(b, rv, WriteKind::Insert))
            else {
                return Ok(None);
            };
            plan_insert(b, ins, v).map(Some)
        }
        NodeEnum::UpdateStmt(u) => {
            let Some(rv) = u.relation.as_ref() else {
                return Ok(None);
            };
            let Some(v) = target(b, rv, WriteKind::Update) else {
                return Ok(None);
            };
            let st = ModifyStmt {
                rv,
                extra_from: &u.from_clause,
                where_clause: u.where_clause.as_deref(),
                set_list: &u.target_list,
                returning: &u.returning_list,
                delete: false,
            };
            plan_modify(b, &st, v).map(Some)
        }
        NodeEnum::DeleteStmt(d) => {
            let Some(rv) = d.relation.as_ref() else {
                return Ok(None);
            };
            let Some(v) = target(b, rv, WriteKind::Delete) else {
                return Ok(None);
            };
            let st = ModifyStmt {
                rv,
                extra_from: &d.using_clause,
                where_clause: d.where_clause.as_deref(),
                set_list: &[],
                returning: &d.returning_list,
                delete: true,
            };
            plan_modify(b, &st, v).map(Some)
        }
        _ => Ok(None),
    }
}

/// The view `rv` names, when it has an INSTEAD OF trigger for `kind`.
fn target(b: &Binder, rv: &pb::RangeVar, kind: WriteKind) -> Option<Arc<ViewDef>> {
    let name = bind::relname(rv).ok()?;
    if b.catalog.table(&name).is_some() {
        return None;
    }
    b.catalog
        .view(&name)
        .filter(|v| has_instead_trigger(v, kind))
}

/// The scope RETURNING binds in: the view's columns under `alias`.
fn view_scope(v: &ViewDef, alias: &str) -> Scope {
    let mut scope = Scope::default();
    for (name, ty) in &v.columns {
        scope.cols.push(ScopeCol {
            rel: alias.to_string(),
            name: name.clone(),
            ty: *ty,
            hidden: false,
            table_oid: v.oid.0,
            attnum: 0,
            merged: false,
            scalar_fn: false,
        });
    }
    scope
}

fn bind_returning(
    b: &mut Binder,
    v: &ViewDef,
    alias: &str,
    list: &[Node],
) -> Result<Option<Returning>, DbError> {
    b.scopes.push(view_scope(v, alias));
    b.outer_refs.push(None);
    let r = modify::bind_returning(b, list);
    b.scopes.pop();
    b.outer_refs.pop();
    r
}

fn view_column(v: &ViewDef, name: &str) -> Option<usize> {
    v.columns.iter().position(|(n, _)| n == name)
}

/// INSERT INTO a view with an INSTEAD OF INSERT trigger.
fn plan_insert(
    b: &mut Binder,
    ins: &pb::InsertStmt,
    v: Arc<ViewDef>,
) -> Result<InsteadPlan, DbError> {
    let rv = ins
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("INSERT without table"))?;
    b.need_schema(v.namespace, rv.location);
    if let Some(oc) = ins.on_conflict_clause.as_deref() {
        if oc.infer.is_some() {
            return Err(DbError::new(
                SqlState::InvalidColumnReference,
                "there is no unique or exclusion constraint matching the ON CONFLICT specification",
            ));
        }
        if oc.action == pb::OnConflictAction::OnconflictUpdate as i32 {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "ON CONFLICT DO UPDATE requires inference specification or constraint name",
            )
            .with_hint("For example, ON CONFLICT (column_name)."));
        }
    }
    let mut privs = acl::INSERT;
    if !ins.returning_list.is_empty() {
        privs |= acl::SELECT;
    }
    b.need(ObjKind::Table, v.oid.0, &v.name, privs);
    let subscripted = ins.cols.iter().any(|c| match c.node.as_ref() {
        Some(NodeEnum::ResTarget(rt)) => !rt.indirection.is_empty(),
        _ => false,
    });
    if subscripted {
        return Err(DbError::unsupported(
            "INSERT into subscripts or fields of a view column",
        ));
    }
    let (mut targets, col_locs) =
        modify::insert_target_list(b, ins, &v.name, |n| view_column(&v, n))?;
    let n = v.columns.len();
    if ins.cols.is_empty() {
        targets = (0..n).collect();
    }
    let cols = ViewCols(&v.columns);
    let source = modify::insert_rows(b, ins, &cols, &mut targets, &col_locs, &[])?;
    // One value per view column, NULL for those the statement leaves out.
    let exprs = (0..n)
        .map(|i| match targets.iter().position(|&t| t == i) {
            Some(p) => Expr::Col(p),
            None => Expr::Const(nestor_types::Value::Null),
        })
        .collect();
    let alias = bind::alias_or(rv, &v.name);
    let returning = bind_returning(b, &v, &alias, &ins.returning_list)?;
    Ok(InsteadPlan {
        view: v,
        kind: WriteKind::Insert,
        source: Plan::Project {
            input: Box::new(source),
            exprs,
        },
        set_columns: Vec::new(),
        width: n,
        returning,
    })
}

/// What an UPDATE or DELETE on a view with INSTEAD OF triggers says.
struct ModifyStmt<'a> {
    rv: &'a pb::RangeVar,
    extra_from: &'a [Node],
    where_clause: Option<&'a Node>,
    set_list: &'a [Node],
    returning: &'a [Node],
    delete: bool,
}

/// UPDATE or DELETE of a view with an INSTEAD OF trigger for it.
fn plan_modify(
    b: &mut Binder,
    st: &ModifyStmt<'_>,
    v: Arc<ViewDef>,
) -> Result<InsteadPlan, DbError> {
    b.need_schema(v.namespace, st.rv.location);
    let (kind, mut privs) = if st.delete {
        (WriteKind::Delete, acl::DELETE)
    } else {
        (WriteKind::Update, acl::UPDATE)
    };
    if st.where_clause.is_some() || !st.returning.is_empty() {
        privs |= acl::SELECT;
    }
    b.need(ObjKind::Table, v.oid.0, &v.name, privs);
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let r = scan(b, st, &v);
    b.scopes.pop();
    b.outer_refs.pop();
    let (source, width, set_columns, returning) = r?;
    Ok(InsteadPlan {
        view: v,
        kind,
        source,
        set_columns,
        width,
        returning,
    })
}

type Scanned = (Plan, usize, Vec<usize>, Option<Returning>);

/// The scan of the view (and FROM items) giving OLD, and for UPDATE NEW;
/// RETURNING binds over the scanned row (its first columns the view's).
fn scan(b: &mut Binder, st: &ModifyStmt<'_>, v: &Arc<ViewDef>) -> Result<Scanned, DbError> {
    let mut scope = Scope::default();
    let mut off = 0;
    let target = Node {
        node: Some(NodeEnum::RangeVar(st.rv.clone())),
    };
    let mut tree = select::plan_from_item(b, &target, &mut off, &mut scope)?;
    for f in st.extra_from {
        let item = select::plan_from_item(b, f, &mut off, &mut scope)?;
        let (lo, _) = tree.range();
        let (_, hi) = item.range();
        tree = select::From::Join {
            kind: crate::ir::JoinKind::Inner,
            left: Box::new(tree),
            right: Box::new(item),
            on: Vec::new(),
            merged: Vec::new(),
            offset: lo,
            width: hi - lo,
        };
    }
    let top = b.level();
    b.scopes[top] = scope;
    b.agg = AggCtx::NotAllowed("WHERE");
    let saved = std::mem::replace(
        &mut b.window,
        WinCtx::NotAllowed(
            "window functions are not allowed in WHERE",
            SqlState::WindowingError,
        ),
    );
    let filter = match st.where_clause {
        Some(w) => b.bind_bool(w, "WHERE").map(Some),
        None => Ok(None),
    };
    b.window = saved;
    let filter = filter?;
    let sets = if st.delete {
        Vec::new()
    } else {
        let col_of = |n: &str| -> Result<usize, DbError> {
            view_column(v, n).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{n}\" of relation \"{}\" does not exist", v.name),
                )
            })
        };
        modify::bind_sets(b, &ViewCols(&v.columns), st.set_list, &col_of)?
    };
    let returning = modify::bind_returning(b, st.returning)?;
    let conj = filter.map(conjuncts).unwrap_or_default();
    let (plan, rest) = select::build(b, tree, conj, None)?;
    let input = select::with_filter(plan, rest);
    let n = v.columns.len();
    let width = off;
    let mut exprs: Vec<Expr> = (0..width).map(Expr::Col).collect();
    if !st.delete {
        for i in 0..n {
            exprs.push(
                sets.iter()
                    .rev()
                    .find(|(c, _)| *c == i)
                    .map_or(Expr::Col(i), |(_, e)| e.clone()),
            );
        }
    }
    let set_columns = sets.iter().map(|(c, _)| *c).collect();
    Ok((
        Plan::Project {
            input: Box::new(input),
            exprs,
        },
        width,
        set_columns,
        returning,
    ))
}
