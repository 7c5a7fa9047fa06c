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
//! A write through an automatically updatable view over such a view (one
//! level, plain columns in order: [`Through`]) is planned on the view
//! below with the upper view's columns as names and its WHERE added.
//!
//! Privileges are PostgreSQL's: the statement's on the view it names,
//! SELECT too only when it reads the view's columns (WHERE, RETURNING, SET
//! expressions), though the view is scanned to find the rows.
//!
//! Left out (0A000): INSERT into subscripted or field targets, deeper or
//! reordering chains of views over the trigger's view.

use std::sync::Arc;

use nestor_catalog::acl::{self, ObjKind};
use nestor_catalog::ViewDef;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;

use crate::bind::{self, AggCtx, Binder, Scope, ScopeCol};
use crate::ir::{Expr, Plan};
use crate::modify::{self, Returning, ViewCols};
use crate::select::{self, conjuncts};
use crate::view_write::{has_instead_trigger, WriteKind};

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
    /// Written through a view WITH CHECK OPTION over `view`: its name and
    /// condition over the row the trigger returned (44000 when not true).
    pub check: Option<(String, Expr)>,
}

/// A statement on an automatically updatable view over the view with the
/// INSTEAD OF trigger (one level, its columns plain columns of the view
/// below in their order): PostgreSQL rewrites it into a statement on the
/// view below, whose trigger then fires; the upper view's CHECK OPTION is
/// checked on the row the trigger returned (it does not cascade below).
struct Through {
    outer: Arc<ViewDef>,
    /// The column below each column of `outer` is (all plain columns).
    map: Vec<usize>,
    /// `outer`'s WHERE over the row below.
    cond: Option<Expr>,
}

impl Through {
    /// The expression over the row below an expression over `outer`'s
    /// columns is.
    fn substitute(&self, e: Expr) -> Result<Expr, DbError> {
        e.rewrite(&mut |x| {
            Ok(match x {
                Expr::Col(i) => Some(Expr::Col(self.map[*i])),
                _ => None,
            })
        })
    }

    fn check(&self) -> Option<(String, Expr)> {
        if self.outer.check_option == nestor_catalog::ViewCheckOption::None {
            return None;
        }
        let cond = self.cond.clone()?;
        Some((self.outer.name.clone(), cond))
    }
}

/// An INSERT, UPDATE or DELETE whose target view has an INSTEAD OF
/// trigger for it, planned; None for any other statement.
pub(crate) fn plan_statement(b: &mut Binder, q: &NodeEnum) -> Result<Option<InsteadPlan>, DbError> {
    match q {
        NodeEnum::InsertStmt(ins) => {
            let Some((v, through)) = ins
                .relation
                .as_ref()
                .and_then(|rv| target(b, rv, WriteKind::Insert))
            else {
                return Ok(None);
            };
            plan_insert(b, ins, v, through).map(Some)
        }
        NodeEnum::UpdateStmt(u) => {
            let Some(rv) = u.relation.as_ref() else {
                return Ok(None);
            };
            let Some((v, through)) = target(b, rv, WriteKind::Update) else {
                return Ok(None);
            };
            let st = ModifyStmt {
                rv,
                extra_from: &u.from_clause,
                where_clause: u.where_clause.as_deref(),
                set_list: &u.target_list,
                returning: &u.returning_list,
                delete: false,
                privs: 0,
            };
            plan_modify(b, &st, v, through).map(Some)
        }
        NodeEnum::DeleteStmt(d) => {
            let Some(rv) = d.relation.as_ref() else {
                return Ok(None);
            };
            let Some((v, through)) = target(b, rv, WriteKind::Delete) else {
                return Ok(None);
            };
            let st = ModifyStmt {
                rv,
                extra_from: &d.using_clause,
                where_clause: d.where_clause.as_deref(),
                set_list: &[],
                returning: &d.returning_list,
                delete: true,
                privs: 0,
            };
            plan_modify(b, &st, v, through).map(Some)
        }
        _ => Ok(None),
    }
}

/// The view `rv` names, when it has an INSTEAD OF trigger for `kind`; or
/// the view below it when `rv` is an automatically updatable view of
/// plain columns over a view with such a trigger.
fn target(
    b: &mut Binder,
    rv: &pb::RangeVar,
    kind: WriteKind,
) -> Option<(Arc<ViewDef>, Option<Through>)> {
    let name = bind::relname(rv).ok()?;
    if b.catalog.table(&name).is_some() {
        return None;
    }
    let v = b.catalog.view(&name)?;
    if has_instead_trigger(&v, kind) {
        return Some((v, None));
    }
    let sel = crate::view_write::view_select(&v).ok()?;
    if crate::view_write::shape_detail(&sel).is_some() {
        return None;
    }
    let below = crate::view_write::single_from(&sel)?;
    let below_name = bind::relname(below).ok()?;
    if b.catalog.table(&below_name).is_some() {
        return None;
    }
    let inner = b
        .catalog
        .view(&below_name)
        .filter(|w| has_instead_trigger(w, kind))?;
    let alias = bind::alias_or(below, &below.relname);
    b.scopes.push(view_scope(&inner, &alias));
    b.outer_refs.push(None);
    let saved = b.agg;
    b.agg = AggCtx::NotAllowed("a view written through");
    let bound = (|| -> Result<(Vec<Expr>, Option<Expr>), DbError> {
        let targets = select::bind_targets(b, &sel.target_list)?;
        let cond = match sel.where_clause.as_deref() {
            Some(w) => Some(b.bind_bool(w, "WHERE")?),
            None => None,
        };
        Ok((targets.into_iter().map(|t| t.expr).collect(), cond))
    })();
    b.agg = saved;
    b.scopes.pop();
    b.outer_refs.pop();
    let (exprs, cond) = bound.ok()?;
    if exprs.len() != v.columns.len() {
        return None;
    }
    let map = exprs
        .iter()
        .map(|e| match e {
            Expr::Col(j) if *j < inner.columns.len() => Some(*j),
            _ => None,
        })
        .collect::<Option<Vec<usize>>>()?;
    // In the order of the columns below (RETURNING * reads them there).
    if map.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    Some((
        inner,
        Some(Through {
            outer: v,
            map,
            cond,
        }),
    ))
}

/// The privileges the statement needs so far on view `v` (as the current
/// user).
fn view_privs(b: &Binder, v: &ViewDef) -> u16 {
    b.perms
        .iter()
        .find(|p| p.kind == ObjKind::Table && p.oid == v.oid.0 && p.check_as == b.perm_as)
        .map_or(0, |p| p.privs)
}

fn set_view_privs(b: &mut Binder, v: &ViewDef, privs: u16) {
    let perm_as = b.perm_as;
    if let Some(p) = b
        .perms
        .iter_mut()
        .find(|p| p.kind == ObjKind::Table && p.oid == v.oid.0 && p.check_as == perm_as)
    {
        p.privs = privs;
    }
}

/// The scope RETURNING binds in: the view's columns under `alias`.
fn view_scope(v: &ViewDef, alias: &str) -> Scope {
    let mut scope = Scope::default();
    for (name, ty) in &v.columns {
        scope.cols.push(ScopeCol {
            perm: None,
            rel: alias.to_string(),
            name: name.clone(),
            ty: *ty,
            hidden: false,
            table_oid: v.oid.0,
            attnum: 0,
            merged: false,
            scalar_fn: false,
            subst: None,
            using_cast: None,
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

/// INSERT INTO a view with an INSTEAD OF INSERT trigger (or through a
/// view over it).
fn plan_insert(
    b: &mut Binder,
    ins: &pb::InsertStmt,
    v: Arc<ViewDef>,
    through: Option<Through>,
) -> Result<InsteadPlan, DbError> {
    let rv = ins
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("INSERT without table"))?;
    // The view the statement names.
    let named = through.as_ref().map_or(&v, |t| &t.outer).clone();
    b.need_schema(named.namespace, rv.location);
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
    b.need(ObjKind::Table, named.oid.0, &named.name, privs);
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
        modify::insert_target_list(b, ins, &named.name, |n| view_column(&named, n))?;
    let n = named.columns.len();
    if ins.cols.is_empty() {
        targets = (0..n).collect();
    }
    let cols = ViewCols::of(b, &named)?;
    let source = modify::insert_rows(b, ins, &cols, &mut targets, &col_locs, &[])?;
    // One value per column of the trigger's view: the named view's
    // default, else NULL, for those the statement leaves out.
    let below = |j: usize| match &through {
        None => Some(j),
        Some(t) => t.map.iter().position(|&m| m == j),
    };
    let exprs = (0..v.columns.len())
        .map(|j| {
            let given = below(j).and_then(|i| targets.iter().position(|&t| t == i));
            match given {
                Some(p) => Expr::Col(p),
                None => below(j)
                    .and_then(|i| cols.1.get(i).cloned().flatten())
                    .unwrap_or(Expr::Const(nestor_types::Value::Null)),
            }
        })
        .collect();
    let alias = bind::alias_or(rv, &named.name);
    let mut returning = bind_returning(b, &named, &alias, &ins.returning_list)?;
    if let (Some(t), Some(r)) = (&through, returning.as_mut()) {
        r.exprs = std::mem::take(&mut r.exprs)
            .into_iter()
            .map(|e| t.substitute(e))
            .collect::<Result<_, _>>()?;
    }
    Ok(InsteadPlan {
        check: through.as_ref().and_then(Through::check),
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
    /// What the statement needs on the view it names (set by
    /// `plan_modify`).
    privs: u16,
}

/// UPDATE or DELETE of a view with an INSTEAD OF trigger for it.
fn plan_modify(
    b: &mut Binder,
    st: &ModifyStmt<'_>,
    v: Arc<ViewDef>,
    through: Option<Through>,
) -> Result<InsteadPlan, DbError> {
    let named = through.as_ref().map_or(&v, |t| &t.outer).clone();
    b.need_schema(named.namespace, st.rv.location);
    let (kind, mut privs) = if st.delete {
        (WriteKind::Delete, acl::DELETE)
    } else {
        (WriteKind::Update, acl::UPDATE)
    };
    if st.where_clause.is_some() || !st.returning.is_empty() {
        privs |= acl::SELECT;
    }
    b.need(ObjKind::Table, named.oid.0, &named.name, privs);
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let st = ModifyStmt { privs, ..*st };
    let r = scan(b, &st, &v, through.as_ref());
    b.scopes.pop();
    b.outer_refs.pop();
    let (source, width, set_columns, returning) = r?;
    Ok(InsteadPlan {
        check: through.as_ref().and_then(Through::check),
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
fn scan(
    b: &mut Binder,
    st: &ModifyStmt<'_>,
    v: &Arc<ViewDef>,
    through: Option<&Through>,
) -> Result<Scanned, DbError> {
    let mut scope = Scope::default();
    let mut off = 0;
    // Through a view: the view below under the statement's name for its
    // target, its columns named as the view above names them.
    let mut rv = st.rv.clone();
    if let Some(t) = through {
        let alias = bind::alias_or(st.rv, &t.outer.name);
        rv.relname = v.name.clone();
        rv.schemaname = String::new();
        rv.alias = Some(pb::Alias {
            aliasname: alias,
            colnames: Vec::new(),
        });
    }
    let target = Node {
        node: Some(NodeEnum::RangeVar(rv)),
    };
    // Reading the target as a FROM item needs SELECT on it; the statement
    // needs that only when it reads the view's columns (below).
    let named = through.map_or(v, |t| &t.outer);
    let before = view_privs(b, named);
    let mut tree = select::plan_from_item(b, &target, &mut off, &mut scope)?;
    set_view_privs(b, named, before | st.privs);
    if let Some(t) = through {
        for (j, c) in scope.cols.iter_mut().enumerate().take(v.columns.len()) {
            match t.map.iter().position(|&m| m == j) {
                Some(i) => c.name = t.outer.columns[i].0.clone(),
                None => c.hidden = true,
            }
        }
    }
    tree = modify::join_extra_from(b, tree, st.extra_from, &mut off, &mut scope)?;
    let top = b.level();
    b.scopes[top] = scope;
    let filter = select::bind_where(b, st.where_clause)?;
    let sets = if st.delete {
        Vec::new()
    } else {
        let col_of = |n: &str| -> Result<usize, DbError> {
            let i = view_column(named, n).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!(
                        "column \"{n}\" of relation \"{}\" does not exist",
                        named.name
                    ),
                )
            })?;
            Ok(through.map_or(i, |t| t.map[i]))
        };
        modify::bind_sets(b, &ViewCols::of(b, v)?, st.set_list, &col_of)?
    };
    let returning = modify::bind_returning(b, st.returning)?;
    let n = v.columns.len();
    if sets.iter().any(|(_, e)| e.columns().iter().any(|&c| c < n)) {
        // SET expressions read the view's row.
        let privs = view_privs(b, named) | acl::SELECT;
        set_view_privs(b, named, privs);
    }
    let mut conj = filter.map(conjuncts).unwrap_or_default();
    if let Some(c) = through.and_then(|t| t.cond.clone()) {
        conj.extend(conjuncts(c));
    }
    let (plan, rest) = select::build(b, tree, conj, None)?;
    let input = select::with_filter(plan, rest);
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
