//! Execution of INSERT, UPDATE, DELETE and COPY FROM (planned by
//! `nestor_plan::modify`).
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
//! Triggers fire around the writes (crate::triggers has the order): a
//! BEFORE ROW trigger may change or skip the row, AFTER ROW events queue
//! until the statement's rows are written.
//!
//! ON CONFLICT: the arbiter indexes are probed with a fresh snapshot
//! first; a conflict that appears between the probe and the insert (a
//! concurrent inserter that commits) is caught by inserting inside an
//! internal savepoint, rolled back on the 23505, after which the probe
//! runs again and finds the committed row.
//!
//! Partitioning: a row written into a partitioned table is routed to its
//! leaf by the plan's `Routing`, a row written into a partition is checked
//! against its `PartCheck`; key expressions among them are evaluated here
//! (the `KeyEval` passed in is this evaluator). A table that is neither
//! gets no routing and no check, so plain INSERTs do no extra work. A
//! constraint error in a leaf laid out differently shows the row in the
//! routed table's layout, as PostgreSQL does.

use std::ops::Bound;
use std::sync::Arc;

use nestor_catalog::TableDef;
use nestor_common::{DbError, RowId, SqlState};
use nestor_plan::ir::Expr;
use nestor_plan::ir::{SYS_COLS, SYS_ROWID};
use nestor_plan::modify::BoundCheck;
use nestor_plan::modify::{Conflict, ConflictRls, CopyTarget, InsertPlan, ModifyPlan, Returning};
use nestor_plan::select::partition::{PartCheck, Routing};
use nestor_plan::valops;
use nestor_storage::{LockResult, Recheck, StorageError, WriteResult};
use nestor_types::Value;

use crate::context::Ev;
use crate::context::{RowSink, StatementCtx};
use crate::executor::eval::Eval;
use crate::executor::Row;
use crate::triggers::{Event, Firing, LeafTriggers};

/// Name of the internal savepoint around ON CONFLICT inserts (a name no
/// SQL identifier can have).
const ON_CONFLICT_SAVEPOINT: &str = "\u{0}on_conflict";

fn failing_row(row: &[Value], table: &TableDef, ec: &nestor_types::EvalCtx) -> String {
    let vals: Vec<String> = table
        .live_columns()
        .map(|(i, _)| valops::to_text(&row[i], ec).unwrap_or_else(|| "null".into()))
        .collect();
    format!("Failing row contains ({}).", vals.join(", "))
}

/// Redo bytes a row write adds besides its values (record header, table
/// and row ids): with [`Value::row_bytes`], an upper bound of the row's
/// share of the commit's redo.
const REDO_ROW_OVERHEAD_BYTES: u64 = 64;

/// Count a row write (`row`: its new values; None: a delete) against the
/// transaction's redo file limit (`nestor --txn-redo-file-max`, 53400).
/// Nothing to count without a limit, the default.
fn note_redo(ev: &mut Ev, row: Option<&[Value]>) -> Result<(), DbError> {
    if nestor_common::limits::txn_redo_file_bytes_max() == u64::MAX {
        return Ok(());
    }
    let bytes = REDO_ROW_OVERHEAD_BYTES + row.map_or(0, |r| Value::row_bytes(r) as u64);
    ev.ctx.txn.note_written(bytes).map_err(DbError::from)
}

/// Compute the stored generated columns of a full table row (the leading
/// entries of `checks`, `nestor_plan::modify::bind_generated`) over its
/// other columns, replacing whatever the row held there (NULL, or a
/// BEFORE trigger's change, which PostgreSQL ignores too);
/// returns the rest of `checks`.
pub fn compute_generated<'c>(
    checks: &'c [BoundCheck],
    row: &mut [Value],
    ev: &mut Ev,
) -> Result<&'c [BoundCheck], DbError> {
    let n = checks.iter().take_while(|c| c.generated.is_some()).count();
    if n == 0 {
        return Ok(checks);
    }
    let mut padded = row.to_vec();
    padded.extend(std::iter::repeat_n(Value::Null, SYS_COLS));
    for ch in &checks[..n] {
        if let Some(slot) = ch.generated.and_then(|c| row.get_mut(c)) {
            *slot = ch.expr.eval(&padded, ev)?;
        }
    }
    Ok(&checks[n..])
}

/// What every row write passes first: the memory budget (53200 once the
/// server is at its --memory-limit, `nestor_common::memory`) and the
/// transaction's redo file limit, then its stored generated columns are
/// computed ([`compute_generated`]) and the NOT NULL and CHECK
/// constraints checked on the full table row (data columns only).
pub fn check_row(
    table: &TableDef,
    checks: &[BoundCheck],
    row: &mut [Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    assert_eq!(row.len(), table.columns.len(), "a full table row");
    nestor_common::memory::check_write()?;
    let checks = compute_generated(checks, row, ev)?;
    let row: &[Value] = row;
    note_redo(ev, Some(row))?;
    if checks.first().is_some_and(|c| c.domain.is_some()) {
        check_domains(table, checks, row, ev)?;
    }
    // Row-level security's checks come last in the list (one test for
    // tables without): PostgreSQL checks them before the constraints.
    if checks.last().is_some_and(|c| c.rls.is_some()) {
        check_policies(table, checks, row, ev)?;
    }
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
            .with_schema(table.storage.schema())
            .with_column(c.name.as_str()));
        }
    }
    if checks.is_empty() {
        return Ok(());
    }
    let mut padded = row.to_vec();
    padded.extend(std::iter::repeat_n(Value::Null, SYS_COLS));
    for ch in checks {
        if ch.domain.is_some() || ch.rls.is_some() {
            continue;
        }
        if crate::executor::eval::truthy(&ch.expr.eval(&padded, ev)?) == Some(false) {
            return Err(DbError::new(
                SqlState::CheckViolation,
                format!(
                    "new row for relation \"{}\" violates check constraint \"{}\"",
                    table.name, ch.name
                ),
            )
            .with_detail(failing_row(row, table, &ev.ctx.eval))
            .with_table(table.name.as_str())
            .with_schema(table.storage.schema())
            .with_constraint(ch.name.as_str()));
        }
    }
    Ok(())
}

/// The row-level security checks of a new row (the last of `checks`), in
/// order: a row they do not pass (false or NULL) is 42501.
pub(crate) fn check_policies(
    table: &TableDef,
    checks: &[BoundCheck],
    row: &[Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    let mut padded = row.to_vec();
    padded.extend(std::iter::repeat_n(Value::Null, SYS_COLS));
    for ch in checks {
        let Some(rls) = &ch.rls else {
            continue;
        };
        if crate::executor::eval::truthy(&ch.expr.eval(&padded, ev)?) != Some(true) {
            return Err(rls.error(&table.name));
        }
    }
    Ok(())
}

/// The constraints of the row's domain columns (the first of `checks`),
/// checked before the table's own as PostgreSQL coerces a written value
/// to its column's domain first.
/// The error names the column (its error field) but not the table.
fn check_domains(
    table: &TableDef,
    checks: &[BoundCheck],
    row: &[Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    for ch in checks {
        let Some(domain) = &ch.domain else {
            break;
        };
        if crate::executor::eval::truthy(&ch.expr.eval(row, ev)?) == Some(false) {
            let check = (!ch.name.is_empty()).then_some(ch.name.as_str());
            let e = nestor_plan::bind::domain::domain_violation(domain, check);
            return Err(match ch.expr.columns().first() {
                Some(&c) => e.with_column(table.columns[c].name.as_str()),
                None => e,
            });
        }
    }
    Ok(())
}

/// COPY FROM: a value failing its column's domain is reported as
/// PostgreSQL's input function reports it, with the column and value in
/// the context (`column p: "-8"`; the session puts the line before it).
fn copy_domain_context(mut e: DbError, t: &TableDef, row: &[Value], ev: &Ev) -> DbError {
    let column = match &e.object {
        Some(o) if o.table.is_none() => o.column.clone(),
        _ => None,
    };
    if let Some(name) = column {
        if let Some(k) = t.column_index(&name) {
            // PostgreSQL's CopyFromErrorCallback: a NULL field is "null
            // input", any other its text.
            e.context = Some(if row[k].is_null() {
                format!("column {name}: null input")
            } else {
                format!("column {name}: \"{}\"", row[k].to_text(&ev.ctx.eval))
            });
        }
    }
    e
}

/// A row written through a view WITH CHECK OPTION (over the base row and
/// its system columns) must satisfy the views' conditions: 44000 naming
/// the first view whose condition it fails, as PostgreSQL checks them
/// after the write.
pub(crate) fn check_view_options(
    table: &TableDef,
    checks: &[nestor_plan::view_write::ViewCheck],
    row: &[Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    for ch in checks {
        if crate::executor::eval::truthy(&ch.expr.eval(row, ev)?) != Some(true) {
            return Err(DbError::new(
                SqlState::WithCheckOptionViolation,
                format!("new row violates check option for view \"{}\"", ch.view),
            )
            .with_detail(failing_row(row, table, &ev.ctx.eval)));
        }
    }
    Ok(())
}

fn storage_err(e: StorageError, ec: &nestor_types::EvalCtx) -> DbError {
    e.into_db(&|v| valops::render(v, ec))
}

pub(crate) fn emit_returning(
    ret: &Option<Returning>,
    row: &[Value],
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<(), DbError> {
    match ret {
        Some(r) => emit_exprs(&r.exprs, row, ev, sink),
        None => Ok(()),
    }
}

/// One RETURNING row: `exprs` over `row`.
fn emit_exprs(
    exprs: &[Expr],
    row: &[Value],
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<(), DbError> {
    let mut out = Vec::with_capacity(exprs.len());
    for e in exprs {
        out.push(e.eval(row, ev)?);
    }
    sink.row(out)
}

/// Build a full table row from source values, filling defaults.
pub(crate) fn build_row(
    table: &TableDef,
    targets: &[usize],
    defaults: &[(usize, Expr)],
    vals: Row,
    ev: &mut Ev,
) -> Result<Row, DbError> {
    // zip would silently drop values: the planner sized them alike.
    assert_eq!(vals.len(), targets.len(), "source row width");
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

/// A written row as RETURNING reads it: its columns, its system columns
/// (row id, xmin, xmax), then `tableoid`, the table it was written in
/// (which RETURNING of a partitioned table's INSERT reads: the leaf the
/// row was routed to; any other RETURNING knows its table's OID).
fn with_sys(mut row: Row, rid: RowId, ev: &Ev, table: nestor_common::RelId) -> Row {
    row.push(Value::Int8(rid.0 as i64));
    row.push(Value::Int8(ev.ctx.txn.xid().0 as i64));
    row.push(Value::Int8(0));
    row.push(Value::Int8(i64::from(table.0)));
    row
}

/// All rows of `plan`, read before the first is written (so a statement
/// never sees its own changes, e.g. INSERT INTO t SELECT FROM t).
/// PostgreSQL streams them, so they are not bounded by
/// nestor.query_memory_max, only checked against the memory budget.
pub(crate) fn collect(plan: &nestor_plan::ir::Plan, ev: &mut Ev) -> Result<Vec<Row>, DbError> {
    let mut rows = Vec::new();
    let mut growth = nestor_common::memory::Growth::new("buffer of rows to write");
    crate::executor::run(plan, ev, &[], &mut |_, r| {
        growth.grow(crate::workmem::entry_bytes(&r))?;
        rows.push(r);
        Ok(true)
    })?;
    Ok(rows)
}

pub(crate) fn exec_insert(
    p: &InsertPlan,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<u64, DbError> {
    if let Some(r) = &p.route {
        return exec_insert_routed(p, r, ev, sink);
    }
    let mut trig = Firing::new(&p.table, Event::Insert, &[], ev)?;
    // ON CONFLICT DO UPDATE fires UPDATE triggers too: the statement's
    // (BEFORE after INSERT's, AFTER before INSERT's, as PostgreSQL) and
    // the row triggers of each row it updates.
    let mut upd = match conflict_set_columns(p) {
        Some(cols) => Firing::new(&p.table, Event::Update, &cols, ev)?,
        None => None,
    };
    if let Some(t) = &trig {
        t.before_statement(ev)?;
    }
    if let Some(t) = &upd {
        t.before_statement(ev)?;
    }
    let sources = collect(&p.source, ev)?;
    let mut count = 0;
    // Rows inserted into a table with foreign keys, checked once the
    // statement's rows are all written (crate::foreign_keys).
    let mut fk_rows: Option<Vec<(RowId, Row)>> = (!p.table.foreign_keys.is_empty()).then(Vec::new);
    for vals in sources {
        let mut row = build_row(&p.table, &p.targets, &p.defaults, vals, ev)?;
        let Some(t) = &mut trig else {
            check_row(&p.table, &p.checks, &mut row, ev)?;
            check_partition(&p.table, p.part_check.as_ref(), &row, ev)?;
            if insert_one(p, row, ev, sink, &mut fk_rows, upd.as_mut())? != Outcome::Skipped {
                count += 1;
            }
            continue;
        };
        let Some(mut row) = t.before_insert(row, p.part_check.as_ref(), ev)? else {
            continue;
        };
        check_row(&p.table, &p.checks, &mut row, ev)?;
        check_partition(&p.table, p.part_check.as_ref(), &row, ev)?;
        let written = t.live(&row);
        match insert_one(p, row, ev, sink, &mut fk_rows, upd.as_mut())? {
            Outcome::Inserted => {
                count += 1;
                t.after_row(None, Some(written), ev)?;
            }
            Outcome::Updated => count += 1,
            Outcome::Skipped => {}
        }
    }
    for (rid, row) in fk_rows.into_iter().flatten() {
        crate::foreign_keys::check_child(&p.table, &row, None, Some(rid), ev)?;
    }
    let mut fired: Vec<&mut Firing> = trig.iter_mut().chain(upd.iter_mut()).collect();
    crate::triggers::fire_in_order(&mut fired, &mut [], ev)?;
    if let Some(t) = &mut upd {
        t.after_statement(ev)?;
    }
    if let Some(t) = &mut trig {
        t.after_statement(ev)?;
    }
    Ok(count)
}

/// A row routed from partitioned table `f`'s to `leaf` (in its layout),
/// kept for `f`'s transition tables when it has any.
pub(crate) fn capture_routed(
    f: &mut Firing,
    r: &Routing,
    leaf: usize,
    row: &[Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    if !f.captures() {
        return Ok(());
    }
    let full = r.leaves[leaf].back(row.to_vec(), r.root.columns.len());
    let live = f.live(&full);
    f.capture_row(None, Some(&live), ev)
}

/// The columns ON CONFLICT DO UPDATE sets (what its UPDATE OF triggers
/// see); None without DO UPDATE.
fn conflict_set_columns(p: &InsertPlan) -> Option<Vec<usize>> {
    match &p.conflict {
        Some(Conflict::Update { sets, .. }) => Some(sets.iter().map(|(c, _)| *c).collect()),
        _ => None,
    }
}

/// A row written into a partition must meet its partition constraint
/// (23514). Nothing to do (no check) for any other table.
pub(crate) fn check_partition(
    table: &TableDef,
    check: Option<&PartCheck>,
    row: &[Value],
    ev: &mut Ev,
) -> Result<(), DbError> {
    match check {
        Some(c) if !part_holds(c, row, ev)? => Err(nestor_plan::select::partition::violation(
            table,
            row,
            &ev.ctx.eval,
        )),
        _ => Ok(()),
    }
}

/// Whether `row` meets partition constraint `c` (key expressions
/// evaluated over the row).
pub(crate) fn part_holds(c: &PartCheck, row: &[Value], ev: &mut Ev) -> Result<bool, DbError> {
    c.holds(row, &mut |e, r| e.eval(r, ev))
}

/// INSERT into a partitioned table: each row routed to its leaf and
/// written there (the leaf's constraints, foreign keys and row triggers
/// apply, `LeafTriggers`); statement triggers are the named table's.
fn exec_insert_routed(
    p: &InsertPlan,
    r: &Routing,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<u64, DbError> {
    let mut trig = Firing::new(&p.table, Event::Insert, &[], ev)?;
    let mut leaf_trig = LeafTriggers::new(r);
    // ON CONFLICT DO UPDATE: the named table's UPDATE statement triggers,
    // and each leaf's UPDATE row triggers (made when a row first updates
    // there), as in `exec_insert`.
    let update_cols = conflict_set_columns(p);
    let mut upd = match &update_cols {
        Some(cols) => Firing::new(&p.table, Event::Update, cols, ev)?,
        None => None,
    };
    let mut leaf_upd: Vec<Option<Option<Firing>>> = r.leaves.iter().map(|_| None).collect();
    if let Some(t) = &trig {
        t.before_statement(ev)?;
    }
    if let Some(t) = &upd {
        t.before_statement(ev)?;
    }
    let sources = collect(&p.source, ev)?;
    let mut count = 0;
    let mut fk_rows: Vec<(usize, RowId, Row)> = Vec::new();
    // ON CONFLICT: the statement as it applies to each leaf, made when a
    // row first reaches it.
    let mut leaf_plans: Vec<Option<InsertPlan>> = r.leaves.iter().map(|_| None).collect();
    let width = p.table.columns.len();
    for vals in sources {
        let mut row = build_row(&p.table, &p.targets, &p.defaults, vals, ev)?;
        // The leaf computes them again, alike (a partition has its
        // parent's generation expressions): RETURNING shows them.
        compute_generated(&p.checks, &mut row, ev)?;
        if let Some(conflict) = &p.conflict {
            let i = route_row(r, &row, ev)?;
            if leaf_plans[i].is_none() {
                leaf_plans[i] = Some(leaf_plan(p, r, i, conflict, ev)?);
            }
            let Some(lp) = &leaf_plans[i] else {
                continue;
            };
            if let Some(t) = &mut leaf_trig {
                match t.before(i, row, ev)? {
                    Some(x) => row = x,
                    None => continue,
                }
            }
            check_row(&lp.table, &lp.checks, &mut row, ev)?;
            let captures = trig.as_ref().is_some_and(Firing::captures);
            let written = (leaf_trig.is_some() || captures).then(|| row.clone());
            if let (Some(cols), None) = (&update_cols, &leaf_upd[i]) {
                let leaf = &r.leaves[i].table;
                leaf_upd[i] = Some(Firing::for_descendant(
                    leaf,
                    Event::Update,
                    cols,
                    upd.as_ref(),
                    ev,
                )?);
            }
            let lu = leaf_upd[i].as_mut().and_then(Option::as_mut);
            match insert_one(lp, row, ev, sink, &mut None, lu)? {
                Outcome::Inserted => {
                    count += 1;
                    if let (Some(f), Some(w)) = (trig.as_mut(), &written) {
                        capture_routed(f, r, i, w, ev)?;
                    }
                    if let (Some(t), Some(w)) = (&mut leaf_trig, written) {
                        t.after(i, &w, ev)?;
                    }
                }
                Outcome::Updated => count += 1,
                Outcome::Skipped => {}
            }
            continue;
        }
        // Row-level security: the named table's policies, on the row in
        // its layout (the leaf's own do not apply, as in PostgreSQL).
        if p.checks.last().is_some_and(|c| c.rls.is_some()) {
            check_policies(&p.table, &p.checks, &row, ev)?;
        }
        let Some((leaf, rid, written)) = insert_routed(r, row, leaf_trig.as_mut(), ev)? else {
            continue;
        };
        if let Some(f) = trig.as_mut() {
            capture_routed(f, r, leaf, &written, ev)?;
        }
        if !r.leaves[leaf].table.foreign_keys.is_empty() {
            fk_rows.push((leaf, rid, written.clone()));
        }
        if p.returning.is_some() {
            let row = r.leaves[leaf].back(written, width);
            emit_returning(
                &p.returning,
                &with_sys(row, rid, ev, r.leaves[leaf].table.oid),
                ev,
                sink,
            )?;
        }
        count += 1;
    }
    for (leaf, rid, row) in fk_rows {
        crate::foreign_keys::check_child(&r.leaves[leaf].table, &row, None, Some(rid), ev)?;
    }
    let mut fired: Vec<&mut Firing> = leaf_upd.iter_mut().flatten().flatten().collect();
    if let Some(u) = &mut upd {
        for f in fired.iter_mut() {
            u.absorb(f);
        }
    }
    crate::triggers::fire_in_order(&mut fired, leaf_trig.as_mut_slice(), ev)?;
    if let Some(t) = &mut upd {
        t.after_statement(ev)?;
    }
    if let Some(t) = &mut trig {
        t.after_statement(ev)?;
    }
    Ok(count)
}

/// INSERT ... ON CONFLICT into a partitioned table as it applies to leaf
/// `i`: the arbiter indexes are the leaf's own with the same columns
/// (uniqueness per partition is uniqueness in the table, the key being
/// in every unique index), and a row DO UPDATE changes must stay in the
/// leaf. Only for leaves with the table's column layout.
fn leaf_plan(
    p: &InsertPlan,
    r: &Routing,
    i: usize,
    conflict: &Conflict,
    ev: &Ev,
) -> Result<InsertPlan, DbError> {
    let leaf = &r.leaves[i];
    if leaf.map.is_some() {
        return Err(DbError::unsupported(
            "INSERT ... ON CONFLICT into a partition whose columns differ from its table's",
        ));
    }
    let arbiter = |a: usize| -> Result<usize, DbError> {
        let (cols, exprs) = (&p.table.indexes[a].columns, &p.table.indexes[a].exprs);
        leaf.table
            .indexes
            .iter()
            .position(|x| x.unique && x.columns == *cols && x.exprs == *exprs)
            .ok_or_else(|| {
                DbError::internal(format!(
                    "partition \"{}\" lacks the arbiter index of ON CONFLICT",
                    leaf.table.name
                ))
            })
    };
    let conflict = match conflict {
        Conflict::Nothing { arbiters } => Conflict::Nothing {
            arbiters: arbiters
                .iter()
                .map(|&a| arbiter(a))
                .collect::<Result<_, _>>()?,
        },
        Conflict::Update {
            arbiter: a,
            sets,
            filter,
            rls,
        } => Conflict::Update {
            arbiter: arbiter(*a)?,
            sets: sets.clone(),
            filter: filter.clone(),
            rls: rls.clone(),
        },
    };
    Ok(InsertPlan {
        table: leaf.table.clone(),
        source: nestor_plan::ir::Plan::Single,
        targets: Vec::new(),
        defaults: Vec::new(),
        checks: leaf.checks.clone(),
        conflict: Some(conflict),
        returning: p.returning.clone(),
        view_checks: Vec::new(),
        route: None,
        part_check: PartCheck::of(ev.ctx.catalog, ev.ctx.eval, &leaf.table, None)?,
    })
}

/// The leaf a row (in the routed table's layout) goes to, after the
/// routed table's own partition constraint.
fn route_row(r: &Routing, row: &[Value], ev: &mut Ev) -> Result<usize, DbError> {
    if let Some(c) = &r.root_check {
        if !part_holds(c, row, ev)? {
            return Err(nestor_plan::select::partition::violation(
                &r.root,
                row,
                &ev.ctx.eval,
            ));
        }
    }
    let ec = ev.ctx.eval;
    let (catalog, role) = (ev.ctx.catalog, ev.ctx.role);
    // PostgreSQL's ExecBuildSlotPartitionKeyDescription: SELECT on the
    // table or on every key column (an expression key: the table's).
    let shows_key = |t: &TableDef| {
        if role.superuser {
            return true;
        }
        let columns: Option<Vec<i16>> = t.partition_key.as_ref().map_or(Some(Vec::new()), |k| {
            k.parts
                .iter()
                .map(|p| match p {
                    nestor_catalog::partition::KeyPart::Column(c) => Some(*c as i16 + 1),
                    nestor_catalog::partition::KeyPart::Expr(_) => None,
                })
                .collect()
        });
        match columns {
            Some(cols) => crate::privilege::may_select_columns(catalog, role.oid, t.oid.0, &cols),
            None => crate::privilege::allowed(
                catalog,
                role.oid,
                nestor_catalog::acl::ObjKind::Table,
                t.oid.0,
                nestor_catalog::acl::SELECT,
            ),
        }
    };
    r.route(row, &ec, &mut |e, row| e.eval(row, ev), &shows_key)
}

/// Route one row (in the routed table's layout) to its leaf and insert
/// it there, through the leaf's row triggers (`trig`, when any leaf has
/// some): the leaf, the row's id and the row as the leaf stores it; None
/// when a BEFORE ROW trigger returned NULL.
pub(crate) fn insert_routed(
    r: &Routing,
    row: Row,
    trig: Option<&mut LeafTriggers>,
    ev: &mut Ev,
) -> Result<Option<(usize, RowId, Row)>, DbError> {
    let i = route_row(r, &row, ev)?;
    let leaf = &r.leaves[i];
    let mut row = leaf.row(row);
    let mut trig = trig;
    if let Some(t) = trig.as_deref_mut() {
        match t.before(i, row, ev)? {
            Some(x) => row = x,
            None => return Ok(None),
        }
    }
    let as_routed = |e: DbError, row: &Row, ev: &Ev| match &leaf.map {
        None => e,
        Some(_) => {
            let routed = leaf.back(row.clone(), r.root.columns.len());
            failing_row_as_routed(e, &r.root, &routed, ev)
        }
    };
    if let Err(e) = check_row(&leaf.table, &leaf.checks, &mut row, ev) {
        return Err(as_routed(e, &row, ev));
    }
    // A BEFORE ROW trigger of the leaf may have moved the row out of it.
    if let Some(c) = trig.as_deref().and_then(|t| t.recheck(i)) {
        if let Err(e) = check_partition(&leaf.table, Some(c), &row, ev) {
            return Err(as_routed(e, &row, ev));
        }
    }
    let rid = store_row(&leaf.table, &row, ev)?;
    if let Some(t) = trig {
        t.after(i, &row, ev)?;
    }
    Ok(Some((i, rid, row)))
}

/// A constraint error of a leaf whose columns are ordered differently
/// shows the failing row as the routed table lays it out, as
/// PostgreSQL's ExecConstraints maps it back to the root's tuple.
fn failing_row_as_routed(mut e: DbError, root: &TableDef, row: &[Value], ev: &Ev) -> DbError {
    if e.detail
        .as_deref()
        .is_some_and(|d| d.starts_with("Failing row contains"))
    {
        e.detail = Some(failing_row(row, root, &ev.ctx.eval));
    }
    e
}

/// Write a new row into `table`'s storage and count it for pg_stat.
pub(crate) fn store_row(table: &TableDef, row: &Row, ev: &mut Ev) -> Result<RowId, DbError> {
    let rid = table
        .storage
        .insert(ev.ctx.txn, row, &ev.ctx.wait)
        .map_err(|e| storage_err(e, &ev.ctx.eval))?;
    ev.ctx
        .db
        .stats
        .count(table.oid.0, crate::stats::Counter::Inserted, 1);
    Ok(rid)
}

/// What [`insert_one`] did with a row.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Outcome {
    Inserted,
    /// ON CONFLICT DO UPDATE updated the conflicting row.
    Updated,
    /// DO NOTHING, or DO UPDATE's WHERE or a BEFORE UPDATE trigger
    /// declined.
    Skipped,
}

/// Insert one row with ON CONFLICT handling (`upd`: the UPDATE triggers
/// a DO UPDATE fires).
fn insert_one(
    p: &InsertPlan,
    row: Row,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
    fk_rows: &mut Option<Vec<(RowId, Row)>>,
    mut upd: Option<&mut Firing>,
) -> Result<Outcome, DbError> {
    let Some(conflict) = &p.conflict else {
        let rid = store_row(&p.table, &row, ev)?;
        if let Some(rows) = fk_rows {
            rows.push((rid, row.clone()));
        }
        let row = with_sys(row, rid, ev, p.table.oid);
        if !p.view_checks.is_empty() {
            check_view_options(&p.table, &p.view_checks, &row, ev)?;
        }
        emit_returning(&p.returning, &row, ev, sink)?;
        return Ok(Outcome::Inserted);
    };
    let arbiters: Vec<usize> = match conflict {
        Conflict::Nothing { arbiters } => arbiters.clone(),
        Conflict::Update { arbiter, .. } => vec![*arbiter],
    };
    loop {
        if let Some(existing) = find_conflict(&p.table, &arbiters, &row, ev) {
            match conflict {
                Conflict::Nothing { .. } => {
                    check_conflict_visible(&p.table, &existing, ev)?;
                    return Ok(Outcome::Skipped);
                }
                Conflict::Update {
                    sets, filter, rls, ..
                } => {
                    let update = (sets.as_slice(), filter.as_ref(), upd.as_deref_mut());
                    match conflict_update(p, existing, &row, (update, rls.as_deref()), ev, sink)? {
                        Some(true) => return Ok(Outcome::Updated),
                        Some(false) => return Ok(Outcome::Skipped),
                        None => continue,
                    }
                }
            }
        }
        ev.ctx
            .txn
            .savepoint(ON_CONFLICT_SAVEPOINT)
            .map_err(DbError::from)?;
        let r = p.table.storage.insert(ev.ctx.txn, &row, &ev.ctx.wait);
        match r {
            Ok(rid) => {
                ev.ctx
                    .db
                    .stats
                    .count(p.table.oid.0, crate::stats::Counter::Inserted, 1);
                ev.ctx
                    .txn
                    .release(ON_CONFLICT_SAVEPOINT)
                    .map_err(DbError::from)?;
                if let Some(rows) = fk_rows {
                    rows.push((rid, row.clone()));
                }
                let row = with_sys(row, rid, ev, p.table.oid);
                if !p.view_checks.is_empty() {
                    check_view_options(&p.table, &p.view_checks, &row, ev)?;
                }
                emit_returning(&p.returning, &row, ev, sink)?;
                return Ok(Outcome::Inserted);
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
        // (An empty key: a partial index that does not cover the row.)
        if key.is_empty() || idx.index.null_exempt(&key) {
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

/// REPEATABLE READ and SERIALIZABLE: DO NOTHING may not skip a row because
/// of a conflicting row its snapshot cannot see (inserted by a transaction
/// that committed after it): 40001, as PostgreSQL's ExecCheckTupleVisible.
fn check_conflict_visible(
    t: &TableDef,
    existing: &nestor_storage::Tuple,
    ev: &Ev,
) -> Result<(), DbError> {
    let txn = &ev.ctx.txn;
    if !txn.isolation().uses_transaction_snapshot()
        || (!txn.xid().is_none() && existing.xmin == txn.xid())
    {
        return Ok(());
    }
    let snap = nestor_txn::Snapshot {
        ssi: None,
        ..ev.ctx.snapshot
    };
    match t.storage.get(existing.row, &snap) {
        Some(seen) if seen.xmin == existing.xmin => Ok(()),
        _ => Err(nestor_txn::TxnError::SerializationFailure { deleted: false }.into()),
    }
}

/// DO UPDATE on the conflicting row. Some(changed) when done, None to
/// retry (the row went away meanwhile).
/// DO UPDATE's SET list, WHERE and the UPDATE triggers it fires.
type ConflictSet<'a, 'f> = (
    &'a [(usize, Expr)],
    Option<&'a Expr>,
    Option<&'a mut Firing<'f>>,
);

fn conflict_update(
    p: &InsertPlan,
    existing: nestor_storage::Tuple,
    proposed: &[Value],
    ((sets, filter, mut upd), rls): (ConflictSet<'_, '_>, Option<&ConflictRls>),
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<Option<bool>, DbError> {
    let t = &p.table;
    let checks = rls.map_or(&p.checks, |r| &r.update_checks);
    let rid = existing.row;
    check_not_own_row(t, &existing, ev)?;
    // The existing row, then EXCLUDED (the proposed row), as bound.
    let mut input = crate::executor::scan_row(existing.clone(), t);
    input.extend(proposed.iter().cloned());
    input.extend([Value::Null, Value::Null, Value::Null]);
    // READ COMMITTED works on the latest committed version; REPEATABLE
    // READ and SERIALIZABLE get 40001 from storage if that is newer than
    // their snapshot.
    let snap = if ev.ctx.txn.isolation().uses_transaction_snapshot() {
        ev.ctx.snapshot
    } else {
        ev.ctx.txn.latest_snapshot()
    };
    let mut recheck = Recheck::Snapshot;
    loop {
        if let Some(f) = filter {
            if !f.test(&input, ev)? {
                // The row stays locked, as in PostgreSQL.
                let r = lock_conflicting(t, rid, &snap, recheck, ev)?;
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
        // Row-level security: the existing row must pass the UPDATE (and
        // SELECT) policies' USING, as PostgreSQL's WCO_RLS_CONFLICT_CHECK.
        if let Some(r) = rls {
            check_policies(t, &r.existing, &input[..t.columns.len()], ev)?;
        }
        let mut new: Row = input[..t.columns.len()].to_vec();
        for (c, e) in sets {
            new[*c] = e.eval(&input, ev)?;
        }
        // BEFORE ROW UPDATE triggers, on the row locked first (as
        // PostgreSQL's ExecOnConflictUpdate locks it before updating).
        let old_live = upd.as_deref().map(|f| f.live(&input[..t.columns.len()]));
        if let (Some(f), Some(old)) = (upd.as_deref().filter(|f| f.has_before_row()), &old_live) {
            let r = lock_conflicting(t, rid, &snap, recheck, ev)?;
            match r {
                nestor_storage::LockResult::Locked => {}
                nestor_storage::LockResult::Changed(newest) => {
                    replace_prefix(&mut input, &newest);
                    recheck = Recheck::Latest;
                    continue;
                }
                nestor_storage::LockResult::Gone => return Ok(None),
                nestor_storage::LockResult::Skipped => return Ok(Some(false)),
            }
            // The trigger sees the stored generated columns NULL, as
            // UPDATE's BEFORE triggers do (`new_values`).
            for ch in p.checks.iter().take_while(|c| c.generated.is_some()) {
                if let Some(v) = ch.generated.and_then(|c| new.get_mut(c)) {
                    *v = Value::Null;
                }
            }
            match f.before_row(Some(old), Some(f.live(&new)), ev)? {
                Some(r) => new = f.full(r),
                None => return Ok(Some(false)),
            }
        }
        check_row(t, checks, &mut new, ev)?;
        check_partition(t, p.part_check.as_ref(), &new, ev)?;
        let row = Arc::from(new.clone());
        let r = t
            .storage
            .update(ev.ctx.txn, rid, &row, &snap, &ev.ctx.wait, recheck);
        match r.map_err(|e| storage_err(e, &ev.ctx.eval))? {
            WriteResult::Done => {
                ev.ctx
                    .db
                    .stats
                    .count(t.oid.0, crate::stats::Counter::Updated, 1);
                if !t.foreign_keys.is_empty() {
                    let old = input[..t.columns.len()].to_vec();
                    crate::foreign_keys::check_child(t, &new, Some(&old), Some(rid), ev)?;
                }
                let refs = ev.ctx.catalog.referencing(t.oid);
                if !refs.is_empty() {
                    let old = input[..t.columns.len()].to_vec();
                    let mut deferred = Vec::new();
                    crate::foreign_keys::on_parent_change(
                        t,
                        &refs,
                        &old,
                        Some(&new),
                        &mut deferred,
                        ev,
                    )?;
                    crate::foreign_keys::check_no_action(t, deferred, ev)?;
                }
                if let (Some(f), Some(old)) = (upd.as_deref_mut(), old_live) {
                    let live = f.live(&new);
                    f.after_row(Some(old), Some(live), ev)?;
                }
                let new = with_sys(new, rid, ev, p.table.oid);
                // Through a view: the updated row passes its check
                // options too (PostgreSQL's ExecUpdate checks them).
                if !p.view_checks.is_empty() {
                    check_view_options(&p.table, &p.view_checks, &new, ev)?;
                }
                emit_returning(&p.returning, &new, ev, sink)?;
                return Ok(Some(true));
            }
            WriteResult::SelfModified => return Err(affect_row_twice()),
            WriteResult::ModifiedLater => return Err(modified_later("updated")),
            WriteResult::Gone => return Ok(None),
            WriteResult::Changed(newest) => {
                replace_prefix(&mut input, &newest);
                recheck = Recheck::Latest;
            }
        }
    }
}

/// Lock ON CONFLICT DO UPDATE's conflicting row FOR UPDATE, waiting.
fn lock_conflicting(
    t: &TableDef,
    rid: RowId,
    snap: &nestor_txn::Snapshot,
    recheck: Recheck,
    ev: &mut Ev,
) -> Result<nestor_storage::LockResult, DbError> {
    t.storage
        .lock_row(
            ev.ctx.txn,
            rid,
            nestor_txn::LockMode::Update,
            nestor_txn::WaitPolicy::Block,
            snap,
            &ev.ctx.wait,
            recheck,
        )
        .map_err(|e| storage_err(e, &ev.ctx.eval))
}

/// A conflicting row this very command wrote (found through the probe's
/// view of the current command): PostgreSQL's tuple lock fails with 21000
/// before the WHERE clause is looked at.
fn check_not_own_row(
    t: &TableDef,
    existing: &nestor_storage::Tuple,
    ev: &Ev,
) -> Result<(), DbError> {
    let own = ev.ctx.txn.xid();
    if own.is_none() || existing.xmin != own {
        return Ok(());
    }
    let before = t.storage.get(existing.row, &ev.ctx.txn.latest_snapshot());
    if before.map(|b| (b.xmin, b.data)) != Some((existing.xmin, existing.data.clone())) {
        return Err(affect_row_twice());
    }
    Ok(())
}

/// PostgreSQL's error for a row a function or trigger of the statement
/// changed before the statement's own write of it.
fn modified_later(what: &str) -> DbError {
    DbError::new(
        SqlState::TriggeredDataChangeViolation,
        format!("tuple to be {what} was already modified by an operation triggered by the current command"),
    )
    .with_hint(
        "Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.",
    )
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

/// The trigger event of an UPDATE or DELETE.
fn modify_event(p: &ModifyPlan) -> Event {
    if p.delete {
        Event::Delete
    } else {
        Event::Update
    }
}

/// The columns an UPDATE's SET names (UPDATE OF triggers).
pub(crate) fn set_columns(p: &ModifyPlan) -> Vec<usize> {
    p.sets.iter().map(|(c, _)| *c).collect()
}

/// The named table's triggers of an UPDATE or DELETE, its BEFORE
/// STATEMENT ones fired.
pub(crate) fn statement_triggers<'p>(
    p: &'p ModifyPlan,
    ev: &mut Ev,
) -> Result<Option<Firing<'p>>, DbError> {
    let trig = Firing::new(&p.table, modify_event(p), &set_columns(p), ev)?;
    if let Some(t) = &trig {
        t.before_statement(ev)?;
    }
    Ok(trig)
}

pub(crate) fn exec_modify(
    p: &ModifyPlan,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<u64, DbError> {
    let event = modify_event(p);
    let mut trig = statement_triggers(p, ev)?;
    let mut moving = move_triggers(p, ev)?;
    let mut count = modify_rows(p, ev, sink, trig.as_mut(), moving.as_mut())?;
    // The descendants of an inheritance parent (the partitions of a
    // partitioned table): their rows too, firing their row triggers;
    // statement triggers are the named table's only. AFTER ROW triggers
    // fire once all the statement's rows are written, in the order they
    // were queued (rows moved between partitions queue DELETE and INSERT
    // events, `MoveTriggers`).
    let mut fired = Vec::new();
    let mut inserts = Vec::new();
    if let Some(m) = moving {
        fired.extend(m.delete);
        inserts.extend(m.insert);
    }
    for c in &p.children {
        let mut child_trig =
            Firing::for_descendant(&c.table, event, &set_columns(c), trig.as_ref(), ev)?;
        let mut moving = move_triggers(c, ev)?;
        count += modify_rows(c, ev, sink, child_trig.as_mut(), moving.as_mut())?;
        if let (Some(t), Some(c)) = (&mut trig, &mut child_trig) {
            t.absorb(c);
        }
        fired.extend(child_trig);
        if let Some(m) = moving {
            fired.extend(m.delete);
            inserts.extend(m.insert);
        }
    }
    let mut all: Vec<&mut Firing> = trig.iter_mut().chain(fired.iter_mut()).collect();
    crate::triggers::fire_in_order(&mut all, &mut inserts, ev)?;
    if let Some(t) = &mut trig {
        t.after_statement(ev)?;
    }
    Ok(count)
}

/// The triggers rows an UPDATE moves out of `p.table` (a partition) fire;
/// None when it moves none or nothing fires.
fn move_triggers<'p>(p: &'p ModifyPlan, ev: &mut Ev) -> Result<Option<MoveTriggers<'p>>, DbError> {
    let Some(route) = p.reroute.as_ref().filter(|_| !p.delete) else {
        return Ok(None);
    };
    let delete = Firing::new(&p.table, Event::Delete, &[], ev)?.map(Firing::descendant);
    let insert = LeafTriggers::new(route);
    if delete.is_none() && insert.is_none() {
        return Ok(None);
    }
    Ok(Some(MoveTriggers {
        delete,
        insert,
        as_update: true,
        moved: false,
    }))
}

/// The rows of one table an UPDATE or DELETE changes.
fn modify_rows(
    p: &ModifyPlan,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
    mut trig: Option<&mut Firing>,
    mut moving: Option<&mut MoveTriggers>,
) -> Result<u64, DbError> {
    let rows = collect(&p.input, ev)?;
    let mut count = 0;
    let mut fk = FkWork::new(&p.table, !p.delete, ev);
    for row in rows {
        let trigs = (trig.as_deref_mut(), moving.as_deref_mut());
        if modify_one(p, row, ev, sink, trigs, &mut fk)? {
            count += 1;
        }
    }
    fk.finish(&p.table, ev)?;
    Ok(count)
}

/// The foreign-key work of an UPDATE or DELETE: the constraints that
/// reference the table (applied per row), and the updated rows of a
/// referencing table (new, old), checked when all are written.
pub(crate) struct FkWork {
    refs: Vec<(Arc<TableDef>, nestor_catalog::ForeignKey)>,
    child_rows: Vec<(RowId, Row, Row)>,
    child: bool,
    no_action: Vec<crate::foreign_keys::NoActionCheck>,
}

impl FkWork {
    /// The work of a statement on `table` that updates rows (`update`)
    /// or only deletes them.
    pub(crate) fn new(table: &TableDef, update: bool, ev: &Ev) -> FkWork {
        FkWork {
            refs: ev.ctx.catalog.referencing(table.oid),
            child_rows: Vec::new(),
            child: update && !table.foreign_keys.is_empty(),
            no_action: Vec::new(),
        }
    }

    /// The checks left once the statement's rows are all written.
    pub(crate) fn finish(&mut self, table: &TableDef, ev: &mut Ev) -> Result<(), DbError> {
        crate::foreign_keys::check_no_action(table, std::mem::take(&mut self.no_action), ev)?;
        for (rid, new, old) in std::mem::take(&mut self.child_rows) {
            crate::foreign_keys::check_child(table, &new, Some(&old), Some(rid), ev)?;
        }
        Ok(())
    }
}

fn new_values(p: &ModifyPlan, row: &[Value], ev: &mut Ev) -> Result<Row, DbError> {
    let n = p.table.columns.len();
    let mut new: Row = row[p.offset..p.offset + n].to_vec();
    for (c, e) in &p.sets {
        new[*c] = e.eval(row, ev)?;
    }
    // Stored generated columns are computed after BEFORE ROW triggers,
    // which see them NULL (as PostgreSQL's new tuple has them).
    for ch in p.checks.iter().take_while(|c| c.generated.is_some()) {
        if let Some(v) = ch.generated.and_then(|c| new.get_mut(c)) {
            *v = Value::Null;
        }
    }
    Ok(new)
}

fn modify_one(
    p: &ModifyPlan,
    mut row: Row,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
    (trig, moving): (Option<&mut Firing>, Option<&mut MoveTriggers>),
    fk: &mut FkWork,
) -> Result<bool, DbError> {
    let r = write_row(
        p,
        &mut row,
        ev,
        sink,
        trig,
        fk,
        Recheck::Snapshot,
        Epq::Where,
        moving,
    )?;
    Ok(r == Written::Yes)
}

/// What a row's concurrent change makes [`write_row`] do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Epq {
    /// UPDATE and DELETE: re-check the WHERE clause on the newest version
    /// and write it if it still holds; skip a row gone or already changed
    /// by this command.
    Where,
    /// MERGE: return each of those cases (`Written::Changed` with the
    /// newest version in the row), the caller deciding again.
    Return,
}

/// What [`write_row`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Written {
    Yes,
    /// Not written: the WHERE clause's re-check, a BEFORE trigger, a lock
    /// skipped.
    Skipped,
    /// `Epq::Return`: the row changed (its newest version is in the row).
    Changed,
    /// `Epq::Return`: the row is gone.
    Gone,
    /// `Epq::Return`: this command already changed the row.
    SelfModified,
}

/// UPDATE or DELETE one row of `p.table` (its columns at `p.offset` in
/// `row`), firing its row triggers and doing its foreign-key work.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_row(
    p: &ModifyPlan,
    row: &mut Row,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
    mut trig: Option<&mut Firing>,
    fk: &mut FkWork,
    mut recheck: Recheck,
    epq: Epq,
    mut moving: Option<&mut MoveTriggers>,
) -> Result<Written, DbError> {
    let t = &p.table;
    let n = t.columns.len();
    let rid = match &row[p.offset + n + SYS_ROWID] {
        Value::Int8(r) => RowId(*r as u64),
        _ => return Ok(Written::Skipped),
    };
    let ret = epq == Epq::Return;
    loop {
        let snap = ev.ctx.snapshot;
        // BEFORE ROW triggers fire on the row's newest version, locked
        // first, so each fires once per row.
        let mut triggered: Option<Row> = None;
        if let Some(f) = trig.as_deref().filter(|f| f.has_before_row()) {
            let mode = if p.delete {
                nestor_txn::LockMode::Update
            } else {
                nestor_txn::LockMode::NoKeyUpdate
            };
            let locked = t
                .storage
                .lock_row(
                    ev.ctx.txn,
                    rid,
                    mode,
                    nestor_txn::WaitPolicy::Block,
                    &snap,
                    &ev.ctx.wait,
                    recheck,
                )
                .map_err(|e| storage_err(e, &ev.ctx.eval))?;
            match locked {
                LockResult::Locked => {}
                LockResult::Gone if ret => return Ok(Written::Gone),
                LockResult::Gone | LockResult::Skipped => return Ok(Written::Skipped),
                LockResult::Changed(newest) => {
                    for (i, v) in newest.iter().take(n).enumerate() {
                        row[p.offset + i] = v.clone();
                    }
                    if ret {
                        return Ok(Written::Changed);
                    }
                    if let Some(w) = &p.recheck {
                        if !w.test(row, ev)? {
                            return Ok(Written::Skipped);
                        }
                    }
                    recheck = Recheck::Latest;
                    continue;
                }
            }
            let old = f.live(&row[p.offset..p.offset + n]);
            let proposed = if p.delete {
                None
            } else {
                Some(f.live(&new_values(p, row, ev)?))
            };
            match f.before_row(Some(&old), proposed, ev)? {
                None => return Ok(Written::Skipped),
                Some(r) if !p.delete => triggered = Some(f.full(r)),
                Some(_) => {}
            }
        }
        let old_live = trig
            .as_deref()
            .map(|f| f.live(&row[p.offset..p.offset + n]));
        let old_row: Option<Row> =
            (fk.child || !fk.refs.is_empty()).then(|| row[p.offset..p.offset + n].to_vec());
        let mut new_live = None;
        let mut moved = false;
        let mut vanished = false;
        // A moved row as its new partition's triggers left it.
        let mut landed: Option<Row> = None;
        // The leaf a moved row landed in (its RETURNING `tableoid`).
        let mut moved_to: Option<nestor_common::RelId> = None;
        let result = if p.delete {
            note_redo(ev, None)?;
            t.storage
                .delete(ev.ctx.txn, rid, &snap, &ev.ctx.wait, recheck)
                .map_err(|e| storage_err(e, &ev.ctx.eval))?
        } else {
            let mut new = match triggered.take() {
                Some(r) => r,
                None => new_values(p, row, ev)?,
            };
            // The partition constraint first (ExecUpdateAct): a row that
            // leaves its partition is checked by the one it moves to, not
            // by this one's CHECK constraints.
            let stays = match &p.part_check {
                Some(c) => part_holds(c, &new, ev)?,
                None => true,
            };
            if stays {
                check_row(t, &p.checks, &mut new, ev)?;
            } else {
                // Its UPDATE policies still hold it (WCO_RLS_UPDATE_CHECK
                // of the row inserted where it moves).
                let rest = compute_generated(&p.checks, &mut new, ev)?;
                if rest.last().is_some_and(|c| c.rls.is_some()) {
                    check_policies(t, rest, &new, ev)?;
                }
            }
            if let Some(f) = trig.as_deref() {
                new_live = Some(f.live(&new));
            }
            let moves = match &p.part_check {
                Some(_) if !stays => match &p.reroute {
                    Some(r) => Some(r),
                    None => {
                        return Err(nestor_plan::select::partition::violation(
                            t,
                            &new,
                            &ev.ctx.eval,
                        ))
                    }
                },
                _ => None,
            };
            let r = match moves {
                Some(route) => {
                    let mv = moving.as_deref_mut();
                    let old = mv
                        .as_ref()
                        .and_then(|m| m.delete.as_ref())
                        .map(|f| f.live(&row[p.offset..p.offset + n]));
                    // The source partition's BEFORE ROW DELETE triggers;
                    // NULL keeps the row where it is, unchanged.
                    if let (Some(f), Some(old)) =
                        (mv.as_ref().and_then(|m| m.delete.as_ref()), &old)
                    {
                        if f.has_before_row() && f.before_row(Some(old), None, ev)?.is_none() {
                            return Ok(Written::Skipped);
                        }
                    }
                    moved = true;
                    let (r, inserted) =
                        move_row(t, route, rid, &new, (snap, recheck), ev, mv, old)?;
                    if let Some((row, to)) = inserted {
                        landed = Some(row);
                        moved_to = Some(to);
                    }
                    if let Some(m) = moving.as_deref_mut() {
                        m.moved = true;
                    }
                    r
                }
                None => t
                    .storage
                    .update(ev.ctx.txn, rid, &new, &snap, &ev.ctx.wait, recheck)
                    .map_err(|e| storage_err(e, &ev.ctx.eval))?,
            };
            // A moved row the destination's BEFORE ROW trigger dropped is
            // gone, and not counted (PostgreSQL counts the insert).
            vanished = moved && landed.is_none();
            if r == WriteResult::Done {
                for (i, v) in landed.take().unwrap_or(new).into_iter().enumerate() {
                    row[p.offset + i] = v;
                }
                row[p.offset + n + 1] = Value::Int8(ev.ctx.txn.xid().0 as i64);
            }
            r
        };
        match result {
            WriteResult::Done => {
                let what = if p.delete {
                    crate::stats::Counter::Deleted
                } else {
                    crate::stats::Counter::Updated
                };
                ev.ctx.db.stats.count(t.oid.0, what, 1);
                if let Some(old) = old_row {
                    let new = (!p.delete).then(|| row[p.offset..p.offset + n].to_vec());
                    if !fk.refs.is_empty() {
                        crate::foreign_keys::on_parent_change(
                            t,
                            &fk.refs,
                            &old,
                            new.as_deref(),
                            &mut fk.no_action,
                            ev,
                        )?;
                    }
                    if let (true, Some(new)) = (fk.child, new) {
                        fk.child_rows.push((rid, new, old));
                    }
                }
                if vanished {
                    return Ok(Written::Skipped);
                }
                if !p.view_checks.is_empty() {
                    check_view_options(t, &p.view_checks, &row[p.offset..], ev)?;
                }
                match (&p.returning, moved_to) {
                    (
                        Some(Returning {
                            moved: Some(exprs), ..
                        }),
                        Some(to),
                    ) => {
                        let mut with_oid = row.to_vec();
                        with_oid.push(Value::Int8(i64::from(to.0)));
                        emit_exprs(exprs, &with_oid, ev, sink)?;
                    }
                    _ => emit_returning(&p.returning, row, ev, sink)?,
                }
                match trig.as_deref_mut() {
                    Some(f) if !moved => f.after_row(old_live, new_live, ev)?,
                    // A moved row is an UPDATE in the transition tables
                    // (in its new partition's version), MERGE's aside.
                    Some(f) if f.captures() && moving.as_ref().is_none_or(|m| m.as_update) => {
                        let new = f.live(&row[p.offset..p.offset + n]);
                        f.capture_row(old_live.as_deref(), Some(&new), ev)?;
                    }
                    _ => {}
                }
                return Ok(Written::Yes);
            }
            // A trigger or function the statement ran changed the row.
            WriteResult::ModifiedLater => {
                return Err(modified_later(if p.delete { "deleted" } else { "updated" }))
            }
            WriteResult::Gone if ret => return Ok(Written::Gone),
            WriteResult::SelfModified if ret => return Ok(Written::SelfModified),
            WriteResult::Gone | WriteResult::SelfModified => return Ok(Written::Skipped),
            WriteResult::Changed(newest) => {
                for (i, v) in newest.iter().take(n).enumerate() {
                    row[p.offset + i] = v.clone();
                }
                if ret {
                    return Ok(Written::Changed);
                }
                if let Some(w) = &p.recheck {
                    if !w.test(row, ev)? {
                        return Ok(Written::Skipped);
                    }
                }
                recheck = Recheck::Latest;
            }
        }
    }
}

/// The row triggers a row moved out of its partition by an UPDATE fires
/// (PostgreSQL's cross-partition update): after the source partition's
/// BEFORE ROW UPDATE triggers, its DELETE triggers, then the INSERT
/// triggers of the partition the row goes to; the UPDATE's AFTER ROW
/// triggers do not fire for it.
pub(crate) struct MoveTriggers<'r> {
    pub(crate) delete: Option<Firing<'r>>,
    pub(crate) insert: Option<LeafTriggers<'r>>,
    /// Whether the UPDATE's transition tables keep a moved row (an
    /// UPDATE's do; PostgreSQL 15's MERGE keeps it as a DELETE and an
    /// INSERT instead, `merge`).
    pub(crate) as_update: bool,
    /// Set when a write moved its row.
    pub(crate) moved: bool,
}

/// UPDATE of a row out of its partition (PostgreSQL's cross-partition
/// update): the old version is deleted and the new one routed from the
/// table the statement named, in the same transaction. `old`: the old
/// row's live columns, for the AFTER ROW DELETE event (queued before the
/// insert's). Returns the row as it landed and the leaf it landed in.
#[allow(clippy::too_many_arguments)]
fn move_row(
    t: &TableDef,
    route: &Routing,
    rid: RowId,
    new: &[Value],
    (snap, recheck): (nestor_txn::Snapshot, Recheck),
    ev: &mut Ev,
    mv: Option<&mut MoveTriggers>,
    old: Option<Vec<Value>>,
) -> Result<(WriteResult, Option<(Row, nestor_common::RelId)>), DbError> {
    note_redo(ev, None)?;
    let r = t
        .storage
        .delete(ev.ctx.txn, rid, &snap, &ev.ctx.wait, recheck)
        .map_err(|e| storage_err(e, &ev.ctx.eval))?;
    if r == WriteResult::Done {
        let mut insert = None;
        if let Some(m) = mv {
            if let Some(f) = &mut m.delete {
                f.after_row(old, None, ev)?;
            }
            insert = m.insert.as_mut();
        }
        let root = &route.root;
        let row = in_layout(root, t, new);
        // The row as the destination's triggers left it, back in `t`'s
        // layout (for RETURNING).
        if let Some((leaf, _, stored)) = insert_routed(route, row, insert, ev)? {
            let routed = route.leaves[leaf].back(stored, root.columns.len());
            let to = route.leaves[leaf].table.oid;
            return Ok((r, Some((in_layout(t, root, &routed), to))));
        }
    }
    Ok((r, None))
}

/// A row of `from` in the layout of `to` (columns matched by name; those
/// `from` lacks NULL).
fn in_layout(to: &TableDef, from: &TableDef, row: &[Value]) -> Row {
    to.columns
        .iter()
        .map(|c| match from.column_index(&c.name) {
            Some(i) if !c.dropped => row[i].clone(),
            _ => Value::Null,
        })
        .collect()
}

pub fn copy_insert(
    ctx: &mut StatementCtx<'_>,
    target: &CopyTarget,
    rows: Vec<Vec<Value>>,
    done: &mut u64,
) -> Result<u64, DbError> {
    let t = &target.table;
    crate::relation_lock::lock(
        ctx,
        t.oid.0,
        nestor_txn::TableLockMode::RowExclusive,
        nestor_txn::WaitPolicy::Block,
        &t.name,
    )?;
    if let Some(r) = &target.route {
        return copy_routed(ctx, target, r, rows, done);
    }
    let mut ev = Ev::new(ctx, &[]);
    // INSERT triggers fire as for INSERT (the session hands over the whole
    // COPY in one batch then, so statement triggers fire once).
    let mut trig = Firing::new(t, Event::Insert, &[], &mut ev)?;
    if let Some(f) = &trig {
        f.before_statement(&mut ev)?;
    }
    let mut n = 0;
    *done = 0;
    let mut fk_rows = Vec::new();
    // Every column in table order, none defaulted: the parsed row is the
    // table row (pgbench -i, COPY without a column list).
    let whole = target.defaults.is_empty()
        && target.columns.len() == t.columns.len()
        && target.columns.iter().enumerate().all(|(i, &c)| i == c);
    let total = rows.len() as u64;
    for (i, mut vals) in rows.into_iter().enumerate() {
        // On an error, the index of the row that failed (its input line).
        *done = i as u64;
        cast_copy_row(target, &mut vals, &ev)?;
        let mut row = if whole {
            vals
        } else {
            build_row(t, &target.columns, &target.defaults, vals, &mut ev)?
        };
        if !copy_where(target, &row, &mut ev)? {
            continue;
        }
        if let Some(f) = &trig {
            match f.before_insert(row, target.part_check.as_ref(), &mut ev)? {
                Some(r) => row = r,
                None => continue,
            }
        }
        check_row(t, &target.checks, &mut row, &mut ev)
            .map_err(|e| copy_domain_context(e, t, &row, &ev))?;
        check_partition(t, target.part_check.as_ref(), &row, &mut ev)?;
        let written = trig.as_ref().map(|f| f.live(&row));
        let rid = t
            .storage
            .insert(ev.ctx.txn, &row, &ev.ctx.wait)
            .map_err(|e| storage_err(e, &ev.ctx.eval))?;
        if !t.foreign_keys.is_empty() {
            fk_rows.push((rid, row));
        }
        if let Some(f) = &mut trig {
            f.after_row(None, written, &mut ev)?;
        }
        n += 1;
    }
    ev.ctx
        .db
        .stats
        .count(t.oid.0, crate::stats::Counter::Inserted, n);
    *done = total;
    for (rid, row) in fk_rows {
        crate::foreign_keys::check_child(t, &row, None, Some(rid), &mut ev)?;
    }
    if let Some(f) = &mut trig {
        f.after_statement(&mut ev)?;
    }
    Ok(n)
}

/// A parsed COPY row's values in place, cast to the data columns' types.
fn cast_copy_row(target: &CopyTarget, vals: &mut [Value], ev: &Ev) -> Result<(), DbError> {
    assert_eq!(vals.len(), target.types.len(), "COPY row width");
    for (v, ty) in vals.iter_mut().zip(&target.types) {
        *v = valops::cast(std::mem::replace(v, Value::Null), *ty, false, &ev.ctx.eval)?;
    }
    Ok(())
}

/// Whether COPY FROM's WHERE (if any) holds for a table row: it is bound
/// over the row and then the system columns, which a row not yet written
/// does not have (NULL).
fn copy_where(target: &CopyTarget, row: &[Value], ev: &mut Ev) -> Result<bool, DbError> {
    let Some(f) = &target.filter else {
        return Ok(true);
    };
    let mut padded = row.to_vec();
    padded.extend(std::iter::repeat_n(Value::Null, SYS_COLS));
    f.test(&padded, ev)
}

/// COPY FROM into a partitioned table: each row routed to its leaf (the
/// leaves locked as the table is).
fn copy_routed(
    ctx: &mut StatementCtx<'_>,
    target: &CopyTarget,
    r: &Routing,
    rows: Vec<Vec<Value>>,
    done: &mut u64,
) -> Result<u64, DbError> {
    for t in r.tables() {
        crate::relation_lock::lock(
            ctx,
            t.oid.0,
            nestor_txn::TableLockMode::RowExclusive,
            nestor_txn::WaitPolicy::Block,
            &t.name,
        )?;
    }
    let t = &target.table;
    let mut ev = Ev::new(ctx, &[]);
    let mut trig = Firing::new(t, Event::Insert, &[], &mut ev)?;
    if let Some(f) = &trig {
        f.before_statement(&mut ev)?;
    }
    let mut leaf_trig = LeafTriggers::new(r);
    let mut n = 0;
    let total = rows.len() as u64;
    let mut fk_rows = Vec::new();
    for (i, mut vals) in rows.into_iter().enumerate() {
        // On an error, the index of the row that failed (its input line).
        *done = i as u64;
        cast_copy_row(target, &mut vals, &ev)?;
        let row = build_row(t, &target.columns, &target.defaults, vals, &mut ev)?;
        if !copy_where(target, &row, &mut ev)? {
            continue;
        }
        let Some((leaf, rid, row)) = insert_routed(r, row, leaf_trig.as_mut(), &mut ev)? else {
            continue;
        };
        if let Some(f) = trig.as_mut() {
            capture_routed(f, r, leaf, &row, &mut ev)?;
        }
        if !r.leaves[leaf].table.foreign_keys.is_empty() {
            fk_rows.push((leaf, rid, row));
        }
        n += 1;
    }
    *done = total;
    for (leaf, rid, row) in fk_rows {
        crate::foreign_keys::check_child(&r.leaves[leaf].table, &row, None, Some(rid), &mut ev)?;
    }
    if let Some(t) = &mut leaf_trig {
        t.fire_after(&mut ev)?;
    }
    if let Some(f) = &mut trig {
        f.after_statement(&mut ev)?;
    }
    Ok(n)
}

/// INSERT, UPDATE or DELETE on a view its INSTEAD OF triggers do
/// (`nestor_plan::instead`): the view's BEFORE STATEMENT triggers, the
/// INSTEAD OF triggers once per source row (read before the first call,
/// so the triggers' writes do not feed the scan), then its AFTER
/// STATEMENT triggers. A row the triggers return NULL for is skipped; the
/// others count and give their RETURNING row from the row returned
/// (DELETE: the old row).
pub(crate) fn exec_instead(
    p: &nestor_plan::instead::InsteadPlan,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<u64, DbError> {
    use nestor_plan::view_write::WriteKind;
    let event = match p.kind {
        WriteKind::Insert => Event::Insert,
        WriteKind::Update => Event::Update,
        WriteKind::Delete => Event::Delete,
    };
    let Some(mut trig) = Firing::for_view(&p.view, event, &p.set_columns, ev)? else {
        return Err(DbError::internal(format!(
            "view \"{}\" has no INSTEAD OF {} trigger",
            p.view.name,
            p.kind.command()
        )));
    };
    trig.before_statement(ev)?;
    let rows = collect(&p.source, ev)?;
    let n = p.view.columns.len();
    let mut count = 0;
    for mut row in rows {
        // The scanned row's columns after the view's (FROM/USING items).
        let mut rest = Vec::new();
        let (old, new) = match p.kind {
            WriteKind::Insert => (None, Some(row)),
            WriteKind::Update => {
                let new = row.split_off(p.width);
                rest = row.split_off(n);
                (Some(row), Some(new))
            }
            WriteKind::Delete => {
                rest = row.split_off(n);
                (Some(row), None)
            }
        };
        let Some(mut done) = trig.instead_row(old.as_deref(), new, ev)? else {
            continue;
        };
        if let Some((view, cond)) = &p.check {
            if crate::executor::eval::truthy(&cond.eval(&done, ev)?) != Some(true) {
                let vals: Vec<String> = done
                    .iter()
                    .map(|v| valops::to_text(v, &ev.ctx.eval).unwrap_or_else(|| "null".into()))
                    .collect();
                return Err(DbError::new(
                    SqlState::WithCheckOptionViolation,
                    format!("new row violates check option for view \"{view}\""),
                )
                .with_detail(format!("Failing row contains ({}).", vals.join(", "))));
            }
        }
        count += 1;
        if p.returning.is_some() {
            done.extend(rest);
            emit_returning(&p.returning, &done, ev, sink)?;
        }
    }
    trig.after_statement(ev)?;
    Ok(count)
}
