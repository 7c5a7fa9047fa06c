//! INSERT, UPDATE, DELETE and COPY FROM: planning and execution.
//!
//! Writes go through the storage layer's `Table::insert/update/delete`,
//! which take row locks and enforce unique indexes. Under READ COMMITTED a
//! row changed by a transaction that committed after our snapshot comes
//! back as `WriteResult::Changed(newest)`: we put the newest version into
//! the statement's row, re-evaluate the WHERE clause (PostgreSQL's
//! EvalPlanQual, for the target row; joined rows keep their values),
//! recompute the new values and retry with `Recheck::Latest`. Rows deleted
//! meanwhile (`Gone`) or already changed by this command (`SelfModified`)
//! are skipped. REPEATABLE READ gets 40001 from storage.
//!
//! ON CONFLICT: the arbiter indexes are probed with a fresh snapshot
//! first; a conflict that appears between the probe and the insert (a
//! concurrent inserter that commits) is caught by inserting inside an
//! internal savepoint, rolled back on the 23505, after which the probe
//! runs again and finds the committed row.

use std::ops::Bound;
use std::sync::Arc;

use nestor_common::{DbError, RowId, SqlState};
use nestor_storage::{Recheck, StorageError, WriteResult};
use nestor_types::datatype::DataType;
use nestor_types::Value;
use pg_query::protobuf::{self as pb, Node};
use pg_query::NodeEnum;

use crate::bind::{self, node, relname, req, AggCtx, Binder, BoundCheck, Scope};
use crate::catalog::TableDef;
use crate::exec::{self, Row};
use crate::exec_api::{RowSink, StatementCtx};
use crate::expr::{Ev, Expr};
use crate::plan::{OutCol, Plan, SYS_COLS, SYS_ROWID};
use crate::select::{self, conjuncts};
use crate::valops;

/// Name of the internal savepoint around ON CONFLICT inserts (a name no
/// SQL identifier can have).
const ON_CONFLICT_SAVEPOINT: &str = "\u{0}on_conflict";

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
    b.engine.catalog.table(&name).ok_or_else(|| {
        bind::err_at(
            DbError::new(
                SqlState::UndefinedTable,
                format!("relation \"{name}\" does not exist"),
            ),
            b.text,
            rv.location,
        )
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

fn table_scope(b: &mut Binder, t: &Arc<TableDef>, alias: &str) -> Scope {
    let mut scope = Scope::default();
    let mut off = 0;
    select::add_table(t.clone(), alias, &[], &mut off, &mut scope);
    let _ = b;
    scope
}

fn bind_returning(b: &mut Binder, list: &[Node]) -> Result<Option<Returning>, DbError> {
    if list.is_empty() {
        return Ok(None);
    }
    b.agg = AggCtx::NotAllowed("RETURNING");
    let targets = select::bind_targets(b, list)?;
    Ok(Some(Returning {
        exprs: targets.iter().map(|t| t.expr.clone()).collect(),
        cols: targets.into_iter().map(|t| t.col).collect(),
    }))
}

/// Plan INSERT.
pub fn plan_insert(b: &mut Binder, ins: &pb::InsertStmt) -> Result<InsertPlan, DbError> {
    if ins.with_clause.is_some() {
        return Err(DbError::unsupported("WITH in INSERT"));
    }
    let rv = ins
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("INSERT without table"))?;
    let table = table_for_write(b, rv)?;
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
    let source = match ins.select_stmt.as_deref() {
        None => {
            targets.clear();
            Plan::Single
        }
        Some(s) => plan_insert_source(b, &table, &mut targets, &col_locs, s)?,
    };
    let alias = rv
        .alias
        .as_ref()
        .map(|a| a.aliasname.clone())
        .unwrap_or_else(|| table.name.clone());
    let conflict = match ins.on_conflict_clause.as_deref() {
        None => None,
        Some(oc) => Some(plan_conflict(b, &table, &alias, oc)?),
    };
    let scope = table_scope(b, &table, &alias);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let returning = bind_returning(b, &ins.returning_list);
    b.scopes.pop();
    b.outer_refs.pop();
    let mut defaults = Vec::new();
    for (i, _) in table.live_columns() {
        if !targets.contains(&i) {
            if let Some(e) = bind::bind_default(b.engine, b.settings, &table, i)? {
                defaults.push((i, e));
            }
        }
    }
    Ok(InsertPlan {
        checks: bind::bind_checks(b.engine, b.settings, &table)?,
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
                let d = bind::bind_default(b.engine, b.settings, table, col)?;
                row.push(d.unwrap_or(Expr::Const(Value::Null)));
                continue;
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
            bind::bind_default(b.engine, b.settings, table, col)?
                .unwrap_or(Expr::Const(Value::Null))
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
                kind: crate::plan::JoinKind::Inner,
                left: Box::new(tree),
                right: Box::new(item),
                on: Vec::new(),
                offset: lo,
                width: hi - lo,
            };
        }
        let top = b.level();
        b.scopes[top] = scope;
        b.agg = AggCtx::NotAllowed("WHERE");
        let recheck = match where_clause {
            Some(w) => Some(b.bind_bool(w, "WHERE")?),
            None => None,
        };
        let sets = if delete {
            Vec::new()
        } else {
            bind_sets(b, &table, set_list)?
        };
        let returning = bind_returning(b, returning)?;
        let conj = recheck.clone().map(conjuncts).unwrap_or_default();
        let (plan, rest) = select::build(b, tree, conj, None)?;
        let input = select::with_filter(plan, rest);
        let checks = if delete {
            Vec::new()
        } else {
            bind::bind_checks(b.engine, b.settings, &table)?
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

pub fn plan_update(b: &mut Binder, u: &pb::UpdateStmt) -> Result<ModifyPlan, DbError> {
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

pub fn plan_delete(b: &mut Binder, d: &pb::DeleteStmt) -> Result<ModifyPlan, DbError> {
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

// ----- execution ---------------------------------------------------------

fn failing_row(row: &[Value], table: &TableDef, ec: &nestor_types::EvalCtx) -> String {
    let vals: Vec<String> = table
        .live_columns()
        .map(|(i, _)| valops::to_text(&row[i], ec).unwrap_or_else(|| "null".into()))
        .collect();
    format!("Failing row contains ({}).", vals.join(", "))
}

/// NOT NULL and CHECK constraints on a full table row (data columns only).
pub fn check_row(
    table: &TableDef,
    checks: &[BoundCheck],
    row: &[Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    for (i, c) in table.live_columns() {
        if c.not_null && row[i].is_null() {
            return Err(DbError::new(
                SqlState::NotNullViolation,
                format!(
                    "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                    c.name, table.name
                ),
            )
            .with_detail(failing_row(row, table, &ev.ctx.eval))
            .with_table(table.name.as_str())
            .with_column(c.name.as_str()));
        }
    }
    if checks.is_empty() {
        return Ok(());
    }
    let mut padded = row.to_vec();
    padded.extend(std::iter::repeat_n(Value::Null, SYS_COLS));
    for ch in checks {
        if crate::expr::truthy(&ch.expr.eval(&padded, ev)?) == Some(false) {
            return Err(DbError::new(
                SqlState::CheckViolation,
                format!(
                    "new row for relation \"{}\" violates check constraint \"{}\"",
                    table.name, ch.name
                ),
            )
            .with_detail(failing_row(row, table, &ev.ctx.eval))
            .with_table(table.name.as_str())
            .with_constraint(ch.name.as_str()));
        }
    }
    Ok(())
}

fn storage_err(e: StorageError, ec: &nestor_types::EvalCtx) -> DbError {
    e.into_db(&|v| valops::render(v, ec))
}

fn emit_returning(
    ret: &Option<Returning>,
    row: &[Value],
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<(), DbError> {
    if let Some(r) = ret {
        let mut out = Vec::with_capacity(r.exprs.len());
        for e in &r.exprs {
            out.push(e.eval(row, ev)?);
        }
        sink.row(out)?;
    }
    Ok(())
}

/// Build a full table row from source values, filling defaults.
fn build_row(
    table: &TableDef,
    targets: &[usize],
    defaults: &[(usize, Expr)],
    vals: Row,
    ev: &mut Ev,
) -> Result<Row, DbError> {
    let mut row = vec![Value::Null; table.columns.len()];
    for (v, &t) in vals.into_iter().zip(targets) {
        row[t] = v;
    }
    for (i, d) in defaults {
        debug_assert!(!targets.contains(i), "a default for a given column");
        let v = d.eval(&[], ev)?;
        row[*i] = valops::cast(v, table.columns[*i].ty, false, &ev.ctx.eval)?;
    }
    Ok(row)
}

fn with_sys(mut row: Row, rid: RowId, ev: &Ev) -> Row {
    row.push(Value::Int8(rid.0 as i64));
    row.push(Value::Int8(ev.ctx.txn.xid().0 as i64));
    row.push(Value::Int8(0));
    row
}

pub fn exec_insert(p: &InsertPlan, ev: &mut Ev, sink: &mut dyn RowSink) -> Result<u64, DbError> {
    let mut sources = Vec::new();
    exec::run(&p.source, ev, &[], &mut |_, r| {
        sources.push(r);
        Ok(true)
    })?;
    let mut count = 0;
    for vals in sources {
        let row = build_row(&p.table, &p.targets, &p.defaults, vals, ev)?;
        check_row(&p.table, &p.checks, &row, ev)?;
        if insert_one(p, row, ev, sink)? {
            count += 1;
        }
    }
    Ok(count)
}

/// Insert one row with ON CONFLICT handling; returns whether a row was
/// inserted or updated.
fn insert_one(
    p: &InsertPlan,
    row: Row,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<bool, DbError> {
    let Some(conflict) = &p.conflict else {
        let rid = p
            .table
            .storage
            .insert(ev.ctx.txn, Arc::from(row.clone()), &ev.ctx.wait)
            .map_err(|e| storage_err(e, &ev.ctx.eval))?;
        emit_returning(&p.returning, &with_sys(row, rid, ev), ev, sink)?;
        return Ok(true);
    };
    let arbiters: Vec<usize> = match conflict {
        Conflict::Nothing { arbiters } => arbiters.clone(),
        Conflict::Update { arbiter, .. } => vec![*arbiter],
    };
    loop {
        if let Some(existing) = find_conflict(&p.table, &arbiters, &row, ev) {
            match conflict {
                Conflict::Nothing { .. } => return Ok(false),
                Conflict::Update { sets, filter, .. } => {
                    match conflict_update(p, existing, &row, sets, filter.as_ref(), ev, sink)? {
                        Some(done) => return Ok(done),
                        None => continue,
                    }
                }
            }
        }
        ev.ctx
            .txn
            .savepoint(ON_CONFLICT_SAVEPOINT)
            .map_err(DbError::from)?;
        let r = p
            .table
            .storage
            .insert(ev.ctx.txn, Arc::from(row.clone()), &ev.ctx.wait);
        match r {
            Ok(rid) => {
                ev.ctx
                    .txn
                    .release(ON_CONFLICT_SAVEPOINT)
                    .map_err(DbError::from)?;
                emit_returning(&p.returning, &with_sys(row, rid, ev), ev, sink)?;
                return Ok(true);
            }
            Err(StorageError::UniqueViolation { constraint, .. })
                if arbiters
                    .iter()
                    .any(|&a| p.table.indexes[a].name == constraint) =>
            {
                ev.ctx
                    .txn
                    .rollback_to(ON_CONFLICT_SAVEPOINT)
                    .map_err(DbError::from)?;
                ev.ctx
                    .txn
                    .release(ON_CONFLICT_SAVEPOINT)
                    .map_err(DbError::from)?;
            }
            Err(e) => {
                ev.ctx
                    .txn
                    .rollback_to(ON_CONFLICT_SAVEPOINT)
                    .map_err(DbError::from)?;
                ev.ctx
                    .txn
                    .release(ON_CONFLICT_SAVEPOINT)
                    .map_err(DbError::from)?;
                return Err(storage_err(e, &ev.ctx.eval));
            }
        }
    }
}

/// A live row holding one of the arbiters' keys, by the latest state.
fn find_conflict(
    table: &TableDef,
    arbiters: &[usize],
    row: &[Value],
    ev: &Ev,
) -> Option<nestor_storage::Tuple> {
    // Like PostgreSQL's dirty snapshot, the probe also sees rows this very
    // command wrote: a second proposed row with the same key must find the
    // first one (DO NOTHING skips it, DO UPDATE fails with 21000) instead of
    // failing the unique check over and over.
    let mut snap = ev.ctx.txn.latest_snapshot();
    snap.cid = nestor_common::CommandId(ev.ctx.txn.cid().0.saturating_add(1));
    for &a in arbiters {
        let idx = &table.indexes[a];
        let key = idx.index.key_of(row);
        if key.iter().any(Value::is_null) {
            continue;
        }
        let hits = table.storage.index_scan(
            &idx.index,
            Bound::Included(&key[..]),
            Bound::Included(&key[..]),
            &snap,
        );
        if let Some(t) = hits.into_iter().next() {
            return Some(t);
        }
    }
    None
}

/// DO UPDATE on the conflicting row. Some(changed) when done, None to
/// retry (the row went away meanwhile).
fn conflict_update(
    p: &InsertPlan,
    existing: nestor_storage::Tuple,
    proposed: &[Value],
    sets: &[(usize, Expr)],
    filter: Option<&Expr>,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<Option<bool>, DbError> {
    let t = &p.table;
    let rid = existing.row;
    // A row this very command wrote (found through the probe's view of the
    // current command): PostgreSQL's tuple lock fails with 21000 before the
    // WHERE clause is looked at.
    let own = ev.ctx.txn.xid();
    if !own.is_none() && existing.xmin == own {
        let before = t.storage.get(rid, &ev.ctx.txn.latest_snapshot());
        if before.map(|b| (b.xmin, b.data)) != Some((existing.xmin, existing.data.clone())) {
            return Err(affect_row_twice());
        }
    }
    let mut input = exec::scan_row(&existing, t);
    input.extend(proposed.iter().cloned());
    input.extend([Value::Null, Value::Null, Value::Null]);
    let rr = ev.ctx.txn.isolation() == nestor_txn::Isolation::RepeatableRead;
    // READ COMMITTED works on the latest committed version; REPEATABLE
    // READ gets 40001 from storage if that is newer than its snapshot.
    let snap = if rr {
        ev.ctx.snapshot
    } else {
        ev.ctx.txn.latest_snapshot()
    };
    let mut recheck = Recheck::Snapshot;
    loop {
        if let Some(f) = filter {
            if !f.test(&input, ev)? {
                // The row stays locked, as in PostgreSQL.
                let r = t
                    .storage
                    .lock_row(
                        ev.ctx.txn,
                        rid,
                        nestor_txn::LockMode::Update,
                        nestor_txn::WaitPolicy::Block,
                        &snap,
                        &ev.ctx.wait,
                        recheck,
                    )
                    .map_err(|e| storage_err(e, &ev.ctx.eval))?;
                match r {
                    nestor_storage::LockResult::Changed(newest) => {
                        replace_prefix(&mut input, &newest);
                        recheck = Recheck::Latest;
                        continue;
                    }
                    nestor_storage::LockResult::Gone => return Ok(None),
                    _ => return Ok(Some(false)),
                }
            }
        }
        let mut new: Row = input[..t.columns.len()].to_vec();
        for (c, e) in sets {
            new[*c] = e.eval(&input, ev)?;
        }
        check_row(t, &p.checks, &new, ev)?;
        match t
            .storage
            .update(
                ev.ctx.txn,
                rid,
                Arc::from(new.clone()),
                &snap,
                &ev.ctx.wait,
                recheck,
            )
            .map_err(|e| storage_err(e, &ev.ctx.eval))?
        {
            WriteResult::Done => {
                emit_returning(&p.returning, &with_sys(new, rid, ev), ev, sink)?;
                return Ok(Some(true));
            }
            WriteResult::SelfModified => return Err(affect_row_twice()),
            WriteResult::Gone => return Ok(None),
            WriteResult::Changed(newest) => {
                replace_prefix(&mut input, &newest);
                recheck = Recheck::Latest;
            }
        }
    }
}

fn affect_row_twice() -> DbError {
    DbError::new(
        SqlState::CardinalityViolation,
        "ON CONFLICT DO UPDATE command cannot affect row a second time",
    )
    .with_hint(
        "Ensure that no rows proposed for insertion within the same command have duplicate \
         constrained values.",
    )
}

fn replace_prefix(row: &mut [Value], newest: &[Value]) {
    for (i, v) in newest.iter().enumerate() {
        row[i] = v.clone();
    }
}

pub fn exec_modify(p: &ModifyPlan, ev: &mut Ev, sink: &mut dyn RowSink) -> Result<u64, DbError> {
    let mut rows = Vec::new();
    exec::run(&p.input, ev, &[], &mut |_, r| {
        rows.push(r);
        Ok(true)
    })?;
    let mut count = 0;
    for row in rows {
        if modify_one(p, row, ev, sink)? {
            count += 1;
        }
    }
    Ok(count)
}

fn new_values(p: &ModifyPlan, row: &[Value], ev: &mut Ev) -> Result<Row, DbError> {
    let n = p.table.columns.len();
    let mut new: Row = row[p.offset..p.offset + n].to_vec();
    for (c, e) in &p.sets {
        new[*c] = e.eval(row, ev)?;
    }
    Ok(new)
}

fn modify_one(
    p: &ModifyPlan,
    mut row: Row,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<bool, DbError> {
    let t = &p.table;
    let n = t.columns.len();
    let rid = match &row[p.offset + n + SYS_ROWID] {
        Value::Int8(r) => RowId(*r as u64),
        _ => return Ok(false),
    };
    let mut recheck = Recheck::Snapshot;
    loop {
        let snap = ev.ctx.snapshot;
        let result = if p.delete {
            t.storage
                .delete(ev.ctx.txn, rid, &snap, &ev.ctx.wait, recheck)
                .map_err(|e| storage_err(e, &ev.ctx.eval))?
        } else {
            let new = new_values(p, &row, ev)?;
            check_row(t, &p.checks, &new, ev)?;
            let r = t
                .storage
                .update(
                    ev.ctx.txn,
                    rid,
                    Arc::from(new.clone()),
                    &snap,
                    &ev.ctx.wait,
                    recheck,
                )
                .map_err(|e| storage_err(e, &ev.ctx.eval))?;
            if r == WriteResult::Done {
                for (i, v) in new.into_iter().enumerate() {
                    row[p.offset + i] = v;
                }
                row[p.offset + n + 1] = Value::Int8(ev.ctx.txn.xid().0 as i64);
            }
            r
        };
        match result {
            WriteResult::Done => {
                emit_returning(&p.returning, &row, ev, sink)?;
                return Ok(true);
            }
            WriteResult::Gone | WriteResult::SelfModified => return Ok(false),
            WriteResult::Changed(newest) => {
                for (i, v) in newest.iter().take(n).enumerate() {
                    row[p.offset + i] = v.clone();
                }
                if let Some(w) = &p.recheck {
                    if !w.test(&row, ev)? {
                        return Ok(false);
                    }
                }
                recheck = Recheck::Latest;
            }
        }
    }
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
    engine: &crate::session::Engine,
    settings: &crate::exec_api::Settings,
    table: &str,
    columns: &[String],
) -> Result<CopyTarget, DbError> {
    let t = engine.catalog.table(table).ok_or_else(|| {
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
            if let Some(e) = bind::bind_default(engine, settings, &t, i)? {
                defaults.push((i, e));
            }
        }
    }
    Ok(CopyTarget {
        checks: bind::bind_checks(engine, settings, &t)?,
        defaults,
        types: cols.iter().map(|&c| t.columns[c].ty).collect(),
        names: cols.iter().map(|&c| t.columns[c].name.clone()).collect(),
        columns: cols,
        table: t,
    })
}

pub fn copy_insert(
    ctx: &mut StatementCtx<'_>,
    target: &CopyTarget,
    rows: Vec<Vec<Value>>,
    done: &mut u64,
) -> Result<u64, DbError> {
    let mut ev = Ev::new(ctx, &[]);
    let t = &target.table;
    let mut n = 0;
    *done = 0;
    for vals in rows {
        let vals: Row = vals
            .into_iter()
            .zip(&target.types)
            .map(|(v, ty)| valops::cast(v, *ty, false, &ev.ctx.eval))
            .collect::<Result<_, _>>()?;
        let row = build_row(t, &target.columns, &target.defaults, vals, &mut ev)?;
        check_row(t, &target.checks, &row, &mut ev)?;
        t.storage
            .insert(ev.ctx.txn, Arc::from(row), &ev.ctx.wait)
            .map_err(|e| storage_err(e, &ev.ctx.eval))?;
        n += 1;
        *done = n;
    }
    Ok(n)
}
