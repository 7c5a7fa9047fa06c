//! Planning of INSERT, UPDATE, DELETE and COPY FROM.
//!
//! INSERT: the source (VALUES or a query) is planned and coerced to the
//! target columns with assignment casts; the DEFAULT expressions of the
//! other columns and the table's CHECK constraints are bound from their
//! stored SQL text into the plan. UPDATE/DELETE: the target table is the
//! first leaf of a FROM tree (plus USING/FROM items); the WHERE clause is
//! kept for EvalPlanQual re-checks. ON CONFLICT: arbiter indexes are chosen
//! from the inference clause. Execution is `nestor-exec`'s.

use std::sync::Arc;

use nestor_catalog::acl::{self, ObjKind};

use nestor_catalog::{Catalog, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_types::datatype::DataType;
use nestor_types::{EvalCtx, Value};

use crate::bind::{self, node, relname, req, AggCtx, Binder, Scope, WinCtx};
use crate::ir::Expr;
use crate::ir::{OutCol, Plan};
use crate::select::{self, conjuncts};

pub struct Returning {
    pub exprs: Vec<Expr>,
    pub cols: Vec<OutCol>,
}

pub enum Conflict {
    Nothing {
        arbiters: Vec<usize>,
    },
    Update {
        arbiter: usize,
        sets: Vec<(usize, Expr)>,
        filter: Option<Expr>,
    },
}

pub struct InsertPlan {
    pub table: Arc<TableDef>,
    pub source: Plan,
    /// Table positions the source's columns go to.
    pub targets: Vec<usize>,
    /// DEFAULT expressions of the columns the source does not give.
    pub defaults: Vec<(usize, Expr)>,
    pub checks: Vec<BoundCheck>,
    pub conflict: Option<Conflict>,
    pub returning: Option<Returning>,
}

pub struct ModifyPlan {
    pub table: Arc<TableDef>,
    /// Offset of the target table's columns in the input row.
    pub offset: usize,
    pub input: Plan,
    /// The WHERE clause over the input row, for EvalPlanQual.
    pub recheck: Option<Expr>,
    /// UPDATE: (column, new value over the input row); empty for DELETE.
    pub sets: Vec<(usize, Expr)>,
    pub checks: Vec<BoundCheck>,
    pub returning: Option<Returning>,
    pub delete: bool,
}

fn table_for_write(b: &Binder, rv: &pb::RangeVar) -> Result<Arc<TableDef>, DbError> {
    let name = relname(rv)?;
    if b.catalog.table(&name).is_some_and(|t| t.matview.is_some()) {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("cannot change materialized view \"{name}\""),
        ));
    }
    b.catalog.table(&name).ok_or_else(|| {
        let e = if b.catalog.view(&name).is_some() {
            DbError::new(
                SqlState::FeatureNotSupported,
                format!("writing through view \"{name}\" is not supported"),
            )
            .with_hint("Write to the tables the view reads.")
        } else {
            DbError::new(
                SqlState::UndefinedTable,
                format!("relation \"{name}\" does not exist"),
            )
        };
        bind::err_at(e, b.text, rv.location)
    })
}

fn column_of(t: &TableDef, name: &str) -> Result<usize, DbError> {
    t.column_index(name).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedColumn,
            format!(
                "column \"{name}\" of relation \"{}\" does not exist",
                t.name
            ),
        )
    })
}

fn bind_returning(b: &mut Binder, list: &[Node]) -> Result<Option<Returning>, DbError> {
    if list.is_empty() {
        return Ok(None);
    }
    b.agg = AggCtx::NotAllowed("RETURNING");
    let saved = std::mem::replace(
        &mut b.window,
        WinCtx::NotAllowed(
            "window functions are not allowed in RETURNING",
            SqlState::WindowingError,
        ),
    );
    let targets = select::bind_targets(b, list);
    b.window = saved;
    let targets = targets?;
    Ok(Some(Returning {
        exprs: targets.iter().map(|t| t.expr.clone()).collect(),
        cols: targets.into_iter().map(|t| t.col).collect(),
    }))
}

/// Plan INSERT.
pub(crate) fn plan_insert(b: &mut Binder, ins: &pb::InsertStmt) -> Result<InsertPlan, DbError> {
    if ins.with_clause.is_some() {
        return Err(DbError::unsupported("WITH in INSERT"));
    }
    let rv = ins
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("INSERT without table"))?;
    let table = table_for_write(b, rv)?;
    // INSERT; SELECT too when RETURNING reads the row, UPDATE for ON
    // CONFLICT DO UPDATE (which also reads the existing row).
    let mut privs = acl::INSERT;
    if !ins.returning_list.is_empty() {
        privs |= acl::SELECT;
    }
    if ins
        .on_conflict_clause
        .as_deref()
        .is_some_and(|oc| oc.action == pb::OnConflictAction::OnconflictUpdate as i32)
    {
        privs |= acl::UPDATE | acl::SELECT;
    }
    b.need(ObjKind::Table, table.oid.0, &table.name, privs);
    let mut targets = Vec::new();
    // Locations of the explicit target columns (empty when implicit), for
    // "more target columns than expressions".
    let mut col_locs = Vec::new();
    for c in &ins.cols {
        let NodeEnum::ResTarget(rt) = node(c)? else {
            continue;
        };
        if !rt.indirection.is_empty() {
            return Err(DbError::unsupported(
                "INSERT into subfields or array elements",
            ));
        }
        let pos = column_of(&table, &rt.name).map_err(|e| bind::err_at(e, b.text, rt.location))?;
        if targets.contains(&pos) {
            return Err(bind::err_at(
                DbError::new(
                    SqlState::DuplicateColumn,
                    format!("column \"{}\" specified more than once", rt.name),
                ),
                b.text,
                rt.location,
            ));
        }
        targets.push(pos);
        col_locs.push(rt.location);
    }
    if ins.cols.is_empty() {
        targets = table.live_columns().map(|(i, _)| i).collect();
    }
    let overriding =
        pb::OverridingKind::try_from(ins.r#override).unwrap_or(pb::OverridingKind::Undefined);
    if overriding == pb::OverridingKind::OverridingUserValue {
        return Err(DbError::unsupported("OVERRIDING USER VALUE"));
    }
    b.identity_check = (overriding != pb::OverridingKind::OverridingSystemValue).then_some(());
    let source = match ins.select_stmt.as_deref() {
        None => {
            targets.clear();
            Ok(Plan::Single)
        }
        Some(s) => plan_insert_source(b, &table, &mut targets, &col_locs, s),
    };
    let checked = b.identity_check.take().is_some();
    let source = source?;
    // INSERT ... SELECT (VALUES rows are checked item by item, DEFAULT
    // passing) into a GENERATED ALWAYS identity column.
    if checked && !matches!(source, Plan::Values { .. }) {
        if let Some(&c) = targets
            .iter()
            .find(|&&c| table.identity(c).is_some_and(|i| i.always))
        {
            return Err(generated_always(&table, c));
        }
    }
    let alias = rv
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or_else(|| table.name.clone());
    let conflict = match ins.on_conflict_clause.as_deref() {
        None => None,
        Some(oc) => Some(plan_conflict(b, &table, &alias, oc)?),
    };
    let scope = select::table_scope(&table, &alias);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let returning = bind_returning(b, &ins.returning_list);
    b.scopes.pop();
    b.outer_refs.pop();
    let mut defaults = Vec::new();
    for (i, _) in table.live_columns() {
        if !targets.contains(&i) {
            if let Some(e) = bind_default(b.catalog, b.eval, &table, i)? {
                defaults.push((i, e));
            }
        }
    }
    Ok(InsertPlan {
        checks: bind_checks(b.catalog, b.eval, &table)?,
        table,
        source,
        targets,
        defaults,
        conflict,
        returning: returning?,
    })
}

fn plan_insert_source(
    b: &mut Binder,
    table: &TableDef,
    targets: &mut Vec<usize>,
    col_locs: &[i32],
    s: &Node,
) -> Result<Plan, DbError> {
    let NodeEnum::SelectStmt(sel) = node(s)? else {
        return Err(DbError::internal("INSERT source is not a SELECT"));
    };
    let simple_values = !sel.values_lists.is_empty()
        && sel.sort_clause.is_empty()
        && sel.limit_count.is_none()
        && sel.with_clause.is_none();
    if simple_values {
        b.scopes.push(Scope::default());
        b.outer_refs.push(None);
        let r = plan_insert_values(b, table, targets, col_locs, &sel.values_lists);
        b.scopes.pop();
        b.outer_refs.pop();
        return r;
    }
    let (plan, cols) = select::plan_query(b, sel)?;
    // Location of the i-th output expression of a plain SELECT.
    let target_loc = |i: usize| -> i32 {
        if sel.target_list.len() != cols.len() {
            return -1;
        }
        match sel.target_list.get(i).and_then(|n| n.node.as_ref()) {
            Some(NodeEnum::ResTarget(rt)) => rt
                .val
                .as_deref()
                .and_then(|v| v.node.as_ref())
                .map_or(rt.location, bind::expr_location),
            _ => -1,
        }
    };
    check_insert_arity(b, targets, col_locs, cols.len(), target_loc)?;
    let mut exprs = Vec::new();
    for (i, c) in cols.iter().enumerate() {
        let ty = table.columns[targets[i]].ty;
        exprs.push(
            b.coerce_assign(Expr::Col(i), c.ty, ty)
                .map_err(|e| assign_err(e, table, targets[i]))?,
        );
    }
    Ok(Plan::Project {
        input: Box::new(plan),
        exprs,
    })
}

/// PostgreSQL's transformInsertRow checks: more expressions than target
/// columns is an error; fewer is one too when the columns were listed
/// explicitly, otherwise the implicit list is cut to the expressions.
fn check_insert_arity(
    b: &Binder,
    targets: &mut Vec<usize>,
    col_locs: &[i32],
    n_exprs: usize,
    expr_loc: impl Fn(usize) -> i32,
) -> Result<(), DbError> {
    if n_exprs > targets.len() {
        return Err(bind::err_at(
            DbError::new(
                SqlState::SyntaxError,
                "INSERT has more expressions than target columns",
            ),
            b.text,
            expr_loc(targets.len()),
        ));
    }
    if n_exprs < targets.len() && !col_locs.is_empty() {
        return Err(bind::err_at(
            DbError::new(
                SqlState::SyntaxError,
                "INSERT has more target columns than expressions",
            ),
            b.text,
            col_locs[n_exprs],
        ));
    }
    targets.truncate(n_exprs);
    Ok(())
}

/// 428C9: an explicit value for a GENERATED ALWAYS identity column.
fn generated_always(table: &TableDef, col: usize) -> DbError {
    let name = &table.columns[col].name;
    DbError::new(
        SqlState::GeneratedAlways,
        format!("cannot insert a non-DEFAULT value into column \"{name}\""),
    )
    .with_detail(format!(
        "Column \"{name}\" is an identity column defined as GENERATED ALWAYS."
    ))
    .with_hint("Use OVERRIDING SYSTEM VALUE to override.")
}

fn assign_err(mut e: DbError, table: &TableDef, col: usize) -> DbError {
    if e.code == SqlState::DatatypeMismatch && e.message.starts_with("column is of type") {
        e.message = format!(
            "column \"{}\" {}",
            table.columns[col].name,
            &e.message["column ".len()..]
        );
    }
    e
}

fn plan_insert_values(
    b: &mut Binder,
    table: &TableDef,
    targets: &mut Vec<usize>,
    col_locs: &[i32],
    lists: &[Node],
) -> Result<Plan, DbError> {
    let mut rows = Vec::new();
    let mut lists_items = Vec::with_capacity(lists.len());
    for l in lists {
        let NodeEnum::List(items) = node(l)? else {
            return Err(DbError::internal("VALUES row is not a list"));
        };
        lists_items.push(items);
    }
    let width = lists_items.first().map_or(0, |l| l.items.len());
    for items in &lists_items {
        if items.items.len() != width {
            let loc = items
                .items
                .first()
                .and_then(|n| n.node.as_ref())
                .map_or(-1, bind::expr_location);
            return Err(bind::err_at(
                DbError::new(
                    SqlState::SyntaxError,
                    "VALUES lists must all be the same length",
                ),
                b.text,
                loc,
            ));
        }
    }
    // A multi-row VALUES is a subquery in PostgreSQL: its columns carry
    // no location, so arity errors have no cursor.
    let single = lists_items.len() == 1;
    check_insert_arity(b, targets, col_locs, width, |i| {
        if !single {
            return -1;
        }
        lists_items[0]
            .items
            .get(i)
            .and_then(|n| n.node.as_ref())
            .map_or(-1, bind::expr_location)
    })?;
    for items in lists_items {
        let mut row = Vec::new();
        for (i, item) in items.items.iter().enumerate() {
            let col = targets[i];
            let ty = table.columns[col].ty;
            if matches!(node(item)?, NodeEnum::SetToDefault(_)) {
                let d = bind_default(b.catalog, b.eval, table, col)?;
                row.push(d.unwrap_or(Expr::Const(Value::Null)));
                continue;
            }
            if b.identity_check.is_some() && table.identity(col).is_some_and(|i| i.always) {
                return Err(generated_always(table, col));
            }
            let item_loc = bind::expr_location(node(item)?);
            let (e, t) = b.bind(item)?;
            row.push(
                b.coerce_assign(e, t, ty)
                    .map_err(|e| assign_err(e, table, col))
                    .map_err(|e| bind::err_at(e, b.text, item_loc))?,
            );
        }
        rows.push(row);
    }
    Ok(Plan::Values { rows })
}

fn plan_conflict(
    b: &mut Binder,
    table: &Arc<TableDef>,
    alias: &str,
    oc: &pb::OnConflictClause,
) -> Result<Conflict, DbError> {
    let action = pb::OnConflictAction::try_from(oc.action)
        .unwrap_or(pb::OnConflictAction::OnconflictNothing);
    let arbiters = conflict_arbiters(table, oc)?;
    if action != pb::OnConflictAction::OnconflictUpdate {
        return Ok(Conflict::Nothing { arbiters });
    }
    if oc.infer.is_none() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "ON CONFLICT DO UPDATE requires inference specification or constraint name",
        )
        .with_hint("For example, ON CONFLICT (column_name)."));
    }
    // Scope: the existing row, then EXCLUDED.
    let mut scope = Scope::default();
    let mut off = 0;
    select::add_table(table.clone(), alias, &[], &mut off, &mut scope);
    select::add_table(table.clone(), "excluded", &[], &mut off, &mut scope);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let r = bind_sets(b, table, &oc.target_list).and_then(|sets| {
        let filter = match &oc.where_clause {
            Some(w) => Some(b.bind_bool(w, "WHERE")?),
            None => None,
        };
        Ok((sets, filter))
    });
    b.scopes.pop();
    b.outer_refs.pop();
    let (sets, filter) = r?;
    Ok(Conflict::Update {
        arbiter: arbiters[0],
        sets,
        filter,
    })
}

/// The unique indexes an ON CONFLICT clause arbitrates on: the named
/// constraint, the unique indexes on exactly the inferred columns, or every
/// unique index.
fn conflict_arbiters(table: &TableDef, oc: &pb::OnConflictClause) -> Result<Vec<usize>, DbError> {
    let mut arbiters: Vec<usize> = Vec::new();
    if let Some(inf) = oc.infer.as_deref() {
        if !inf.conname.is_empty() {
            let i = table
                .indexes
                .iter()
                .position(|x| x.name == inf.conname)
                .ok_or_else(|| {
                    DbError::new(
                        SqlState::UndefinedObject,
                        format!(
                            "constraint \"{}\" for table \"{}\" does not exist",
                            inf.conname, table.name
                        ),
                    )
                })?;
            arbiters.push(i);
        } else {
            let mut cols = Vec::new();
            for e in &inf.index_elems {
                let NodeEnum::IndexElem(ie) = node(e)? else {
                    continue;
                };
                if ie.name.is_empty() {
                    return Err(DbError::unsupported("ON CONFLICT with an expression"));
                }
                cols.push(column_of(table, &ie.name)?);
            }
            let mut sorted = cols.clone();
            sorted.sort_unstable();
            for (i, idx) in table.indexes.iter().enumerate() {
                let mut ic = idx.columns.clone();
                ic.sort_unstable();
                if idx.unique && ic == sorted {
                    arbiters.push(i);
                }
            }
            if arbiters.is_empty() {
                return Err(DbError::new(
                    SqlState::InvalidColumnReference,
                    "there is no unique or exclusion constraint matching the ON CONFLICT specification",
                ));
            }
        }
    } else {
        arbiters = table
            .indexes
            .iter()
            .enumerate()
            .filter(|(_, i)| i.unique)
            .map(|(i, _)| i)
            .collect();
    }
    Ok(arbiters)
}

fn bind_sets(
    b: &mut Binder,
    table: &TableDef,
    list: &[Node],
) -> Result<Vec<(usize, Expr)>, DbError> {
    b.agg = AggCtx::NotAllowed("UPDATE");
    let mut sets = Vec::new();
    for t in list {
        let NodeEnum::ResTarget(rt) = node(t)? else {
            continue;
        };
        if !rt.indirection.is_empty() {
            return Err(DbError::unsupported(
                "UPDATE of subfields or array elements",
            ));
        }
        let val = req(&rt.val)?;
        if matches!(node(val)?, NodeEnum::MultiAssignRef(_)) {
            return Err(DbError::unsupported("UPDATE SET (a, b) = ..."));
        }
        let col = column_of(table, &rt.name).map_err(|e| bind::err_at(e, b.text, rt.location))?;
        let ty = table.columns[col].ty;
        let e = if matches!(node(val)?, NodeEnum::SetToDefault(_)) {
            bind_default(b.catalog, b.eval, table, col)?.unwrap_or(Expr::Const(Value::Null))
        } else if table.identity(col).is_some_and(|i| i.always) {
            return Err(DbError::new(
                SqlState::GeneratedAlways,
                format!("column \"{}\" can only be updated to DEFAULT", rt.name),
            )
            .with_detail(format!(
                "Column \"{}\" is an identity column defined as GENERATED ALWAYS.",
                rt.name
            )));
        } else {
            let val_loc = bind::expr_location(node(val)?);
            let (e, t) = b.bind(val)?;
            b.coerce_assign(e, t, ty)
                .map_err(|e| assign_err(e, table, col))
                .map_err(|e| bind::err_at(e, b.text, val_loc))?
        };
        sets.push((col, e));
    }
    Ok(sets)
}

/// Plan UPDATE (`sets` non-empty) or DELETE.
fn plan_modify(
    b: &mut Binder,
    rv: &pb::RangeVar,
    extra_from: &[Node],
    where_clause: Option<&Node>,
    set_list: &[Node],
    returning: &[Node],
    delete: bool,
) -> Result<ModifyPlan, DbError> {
    let table = table_for_write(b, rv)?;
    let alias = rv
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or_else(|| table.name.clone());
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let r = (|| -> Result<ModifyPlan, DbError> {
        let mut scope = Scope::default();
        let mut off = 0;
        let mut tree = select::add_table(table.clone(), &alias, &[], &mut off, &mut scope);
        for f in extra_from {
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
        let recheck = match where_clause {
            Some(w) => b.bind_bool(w, "WHERE").map(Some),
            None => Ok(None),
        };
        b.window = saved;
        let recheck = recheck?;
        let sets = if delete {
            Vec::new()
        } else {
            bind_sets(b, &table, set_list)?
        };
        // UPDATE / DELETE; SELECT too when the statement reads the row's
        // values (WHERE, RETURNING, SET expressions over its columns), as
        // PostgreSQL requires.
        let width = table.columns.len();
        let reads = where_clause.is_some()
            || !returning.is_empty()
            || sets
                .iter()
                .any(|(_, e)| e.columns().iter().any(|&c| c < width));
        let privs = match (delete, reads) {
            (true, r) => acl::DELETE | if r { acl::SELECT } else { 0 },
            (false, r) => acl::UPDATE | if r { acl::SELECT } else { 0 },
        };
        b.need(ObjKind::Table, table.oid.0, &table.name, privs);
        let returning = bind_returning(b, returning)?;
        let conj = recheck.clone().map(conjuncts).unwrap_or_default();
        let (plan, rest) = select::build(b, tree, conj, None)?;
        let input = select::with_filter(plan, rest);
        let checks = if delete {
            Vec::new()
        } else {
            bind_checks(b.catalog, b.eval, &table)?
        };
        Ok(ModifyPlan {
            table: table.clone(),
            offset: 0,
            input,
            recheck,
            sets,
            checks,
            returning,
            delete,
        })
    })();
    b.scopes.pop();
    b.outer_refs.pop();
    r
}

pub(crate) fn plan_update(b: &mut Binder, u: &pb::UpdateStmt) -> Result<ModifyPlan, DbError> {
    if u.with_clause.is_some() {
        return Err(DbError::unsupported("WITH in UPDATE"));
    }
    let rv = u
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("UPDATE without table"))?;
    plan_modify(
        b,
        rv,
        &u.from_clause,
        u.where_clause.as_deref(),
        &u.target_list,
        &u.returning_list,
        false,
    )
}

pub(crate) fn plan_delete(b: &mut Binder, d: &pb::DeleteStmt) -> Result<ModifyPlan, DbError> {
    if d.with_clause.is_some() {
        return Err(DbError::unsupported("WITH in DELETE"));
    }
    let rv = d
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("DELETE without table"))?;
    plan_modify(
        b,
        rv,
        &d.using_clause,
        d.where_clause.as_deref(),
        &[],
        &d.returning_list,
        true,
    )
}

// ----- COPY FROM -----------------------------------------------------------

/// Where COPY FROM data goes.
#[derive(Clone, Debug)]
pub struct CopyTarget {
    pub table: Arc<TableDef>,
    /// Table positions of the data's columns, in data order.
    pub columns: Vec<usize>,
    /// Types of the data's columns, in data order.
    pub types: Vec<DataType>,
    /// Names of the data's columns.
    pub names: Vec<String>,
    /// DEFAULT expressions of the other columns.
    pub defaults: Vec<(usize, Expr)>,
    pub checks: Vec<BoundCheck>,
}

pub fn copy_target(
    catalog: &Catalog,
    eval: EvalCtx,
    table: &str,
    columns: &[String],
) -> Result<CopyTarget, DbError> {
    let t = catalog.table(table).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{table}\" does not exist"),
        )
    })?;
    let cols: Vec<usize> = if columns.is_empty() {
        t.live_columns().map(|(i, _)| i).collect()
    } else {
        columns
            .iter()
            .map(|c| column_of(&t, c))
            .collect::<Result<_, _>>()?
    };
    let mut defaults = Vec::new();
    for (i, _) in t.live_columns() {
        if !cols.contains(&i) {
            if let Some(e) = bind_default(catalog, eval, &t, i)? {
                defaults.push((i, e));
            }
        }
    }
    Ok(CopyTarget {
        checks: bind_checks(catalog, eval, &t)?,
        defaults,
        types: cols.iter().map(|&c| t.columns[c].ty).collect(),
        names: cols.iter().map(|&c| t.columns[c].name.clone()).collect(),
        columns: cols,
        table: t,
    })
}

// ----- stored expressions of the target table -------------------------------
/// A CHECK constraint bound over its table's row (data columns, then the
/// hidden system columns).
#[derive(Clone, Debug)]
pub struct BoundCheck {
    pub name: String,
    pub expr: Expr,
}

/// Bind column `col`'s DEFAULT expression (stored as SQL text), coerced to
/// the column's type; None when it has none.
pub(crate) fn bind_default(
    catalog: &Catalog,
    eval: EvalCtx,
    table: &TableDef,
    col: usize,
) -> Result<Option<Expr>, DbError> {
    let c = &table.columns[col];
    let Some(sql) = c.default.as_deref() else {
        return Ok(None);
    };
    let node = nestor_parser::parse_expr(sql)?;
    let mut b = Binder::new(catalog, eval, sql, &[], select::plan_query);
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    b.agg = AggCtx::NotAllowed("DEFAULT expressions");
    let (e, t) = b.bind(&node)?;
    b.coerce_assign(e, t, c.ty).map(Some)
}

/// Bind a table's CHECK constraints (stored as SQL text) over its row.
pub fn bind_checks(
    catalog: &Catalog,
    eval: EvalCtx,
    table: &Arc<TableDef>,
) -> Result<Vec<BoundCheck>, DbError> {
    let mut out = Vec::with_capacity(table.checks.len());
    for ch in &table.checks {
        let node = nestor_parser::parse_expr(&ch.expr)?;
        let mut b = Binder::new(catalog, eval, &ch.expr, &[], select::plan_query);
        b.scopes.push(select::table_scope(table, &table.name));
        b.outer_refs.push(None);
        b.agg = AggCtx::NotAllowed("check constraints");
        let expr = b.bind_bool(&node, "CHECK")?;
        out.push(BoundCheck {
            name: ch.name.clone(),
            expr,
        });
    }
    Ok(out)
}
