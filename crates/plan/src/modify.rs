//! Planning of INSERT, UPDATE, DELETE and COPY FROM.
//!
//! INSERT: the source (VALUES or a query) is planned and coerced to the
//! target columns with assignment casts; the DEFAULT expressions of the
//! other columns and the table's CHECK constraints are bound from their
//! stored SQL text into the plan, its stored generated columns'
//! expressions in front of the checks (each write computes them there; a
//! generated column takes DEFAULT only, and COPY leaves it out). UPDATE/DELETE: the target table is the
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

use crate::bind::subscripts::{self, AssignTarget};
use crate::bind::{self, node, relname, req, AggCtx, Binder, Scope, WinCtx};
use crate::ir::Expr;
use crate::ir::{OutCol, Plan};
use crate::select::partition::{PartCheck, Routing};
use crate::select::{self, conjuncts};
use crate::view_write::{self, ViewCheck, ViewTarget, WriteKind};
use nestor_catalog::defs::PolicyCmd;

#[derive(Clone)]
pub struct Returning {
    pub exprs: Vec<Expr>,
    pub cols: Vec<OutCol>,
    /// UPDATE through a partitioned table, of a row it moves to another
    /// partition: `exprs` bound again with `tableoid` read from a value
    /// appended to the row (the destination leaf's OID), where `exprs`
    /// have the source partition's as a constant. None when no row can
    /// move.
    pub moved: Option<Vec<Expr>>,
}

#[derive(Clone)]
pub enum Conflict {
    Nothing {
        arbiters: Vec<usize>,
    },
    Update {
        arbiter: usize,
        sets: Vec<(usize, Expr)>,
        filter: Option<Expr>,
        /// Row-level security, when the table's policies apply.
        rls: Option<Arc<ConflictRls>>,
    },
}

/// Row-level security of ON CONFLICT DO UPDATE (PostgreSQL's
/// WCO_RLS_CONFLICT_CHECK and the UPDATE path's checks); the proposed row
/// passes the INSERT's as any inserted row.
#[derive(Clone, Debug)]
pub struct ConflictRls {
    /// Checked on the existing row once the WHERE passed: the UPDATE and
    /// SELECT policies' USING ("... (USING expression) ...").
    pub existing: Vec<BoundCheck>,
    /// What the updated row passes instead of the INSERT's checks: the
    /// table's, then the UPDATE policies' WITH CHECK (else USING) and the
    /// SELECT policies' USING.
    pub update_checks: Vec<BoundCheck>,
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
    /// Check options of the views written through (empty for a table).
    pub view_checks: Vec<ViewCheck>,
    /// A partitioned table: how rows reach its leaves.
    pub route: Option<Arc<Routing>>,
    /// A partition: the constraint its rows must meet.
    pub part_check: Option<PartCheck>,
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
    /// Check options of the views written through (empty for a table).
    pub view_checks: Vec<ViewCheck>,
    /// The same statement on each descendant of the table (an UPDATE or
    /// DELETE of an inheritance parent without ONLY), run after it.
    pub children: Vec<ModifyPlan>,
    /// UPDATE of a partition: the constraint new rows must meet (its
    /// bound and its ancestors').
    pub part_check: Option<PartCheck>,
    /// UPDATE through a partitioned table: a new row outside its leaf's
    /// constraint moves, routed from the named table.
    pub reroute: Option<Arc<Routing>>,
    /// The input reads the table's inheritance tree whole (UPDATE or
    /// DELETE through a view of a partitioned table): each row is
    /// written in the member it comes from.
    pub members: Option<Arc<Members>>,
}

/// The members of an inheritance tree a write reads whole, its rows in
/// the named table's layout (its columns, its system columns, then
/// `tableoid`, `select::inherit::add_family`'s row): what writing a row
/// in the member it comes from takes. MERGE into a partitioned table or
/// an inheritance parent, UPDATE or DELETE through a view of a
/// partitioned table.
#[derive(Clone)]
pub struct Members {
    /// Position of `tableoid` in the input row.
    pub tableoid: usize,
    /// The members that hold rows (a partitioned table's leaves).
    pub members: Vec<Member>,
    /// A partitioned table: how its new rows reach their leaves, and
    /// where an updated row leaving its leaf goes.
    pub route: Option<Arc<Routing>>,
}

/// One member of [`Members`].
#[derive(Clone)]
pub struct Member {
    pub table: Arc<TableDef>,
    /// Per column of the named table: its position in this member (None
    /// for a dropped column).
    pub cols: Vec<Option<usize>>,
    /// Whether the member has live columns the named table lacks (an
    /// inheritance child's own): its row is read whole from storage.
    pub extra: bool,
    /// What its updated rows pass, over its own row.
    pub checks: Vec<BoundCheck>,
    /// A leaf of a partitioned table: its whole partition constraint (a
    /// row failing it moves, routed from the named table).
    pub part_check: Option<PartCheck>,
}

/// What binds the checks a member's updated rows pass, over its row.
pub(crate) type MemberChecks<'a> =
    dyn FnMut(&mut Binder, &Arc<TableDef>) -> Result<Vec<BoundCheck>, DbError> + 'a;

impl Members {
    /// The members of `table`'s tree (`family`: every member, the table
    /// first) that hold rows, each with the checks `checks` binds over
    /// its row. Every member's lock is taken (`privs`), its privileges
    /// being the named table's (PostgreSQL checks those alone).
    pub(crate) fn build(
        b: &mut Binder,
        table: &Arc<TableDef>,
        family: &[Arc<TableDef>],
        privs: u16,
        checks: &mut MemberChecks<'_>,
    ) -> Result<Members, DbError> {
        let partitioned = table.partition_key.is_some();
        let route = if partitioned {
            partition_write(b, table, acl::INSERT)?.0
        } else {
            None
        };
        let mut members = Vec::new();
        for m in family {
            b.need_lock_only(m.oid.0, &m.name, privs);
            if m.partition_key.is_some() {
                continue;
            }
            let cols: Vec<Option<usize>> = table
                .columns
                .iter()
                .map(|c| (!c.dropped).then(|| m.column_index(&c.name)).flatten())
                .collect();
            let extra = m.live_columns().any(|(i, _)| !cols.contains(&Some(i)));
            let part_check = if partitioned {
                PartCheck::of(b.catalog, b.eval, m, None)?
            } else {
                None
            };
            members.push(Member {
                table: m.clone(),
                cols,
                extra,
                checks: checks(b, m)?,
                part_check,
            });
        }
        Ok(Members {
            tableoid: table.columns.len() + crate::ir::SYS_COLS,
            members,
            route,
        })
    }
}

/// What a DML statement names: a table, or a view it writes through.
pub(crate) enum WriteTarget {
    Table(Arc<TableDef>),
    View(Arc<nestor_catalog::ViewDef>),
}

pub(crate) fn table_for_write(b: &mut Binder, rv: &pb::RangeVar) -> Result<WriteTarget, DbError> {
    let name = relname(rv)?;
    // A trigger's transition table is read-only (PostgreSQL's
    // setTargetTable).
    if rv.schemaname.is_empty() && b.vars.is_some_and(|v| v.relation(&name).is_some()) {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("relation \"{name}\" cannot be the target of a modifying statement"),
        ));
    }
    if let Some(t) = b.catalog.table(&name) {
        b.need_schema(t.namespace, rv.location);
        if t.matview.is_some() {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("cannot change materialized view \"{name}\""),
            ));
        }
        return Ok(WriteTarget::Table(t));
    }
    if let Some(v) = b.catalog.view(&name) {
        b.need_schema(v.namespace, rv.location);
        return Ok(WriteTarget::View(v));
    }
    Err(bind::err_at(
        DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        ),
        b.text,
        rv.location,
    ))
}

/// The columns a statement writes, as INSERT's source and UPDATE's SET
/// bind against them: a table's, or the columns of a view whose INSTEAD OF
/// trigger takes the rows (no defaults, no identities).
pub(crate) trait WriteCols {
    fn col_name(&self, col: usize) -> &str;
    fn col_ty(&self, col: usize) -> DataType;
    fn col_default(&self, b: &Binder, col: usize) -> Result<Option<Expr>, DbError>;
    fn always_identity(&self, col: usize) -> bool;
    /// A stored generated column: it takes DEFAULT only.
    fn generated(&self, col: usize) -> bool;
    /// The domain (or array of a domain) the column was declared with.
    fn col_domain(&self, _col: usize) -> Option<u32> {
        None
    }
}

impl WriteCols for TableDef {
    fn col_name(&self, col: usize) -> &str {
        &self.columns[col].name
    }

    fn col_ty(&self, col: usize) -> DataType {
        self.columns[col].ty
    }

    fn col_default(&self, b: &Binder, col: usize) -> Result<Option<Expr>, DbError> {
        bind_default(b.catalog, b.eval, self, col)
    }

    fn always_identity(&self, col: usize) -> bool {
        self.identity(col).is_some_and(|i| i.always)
    }

    fn generated(&self, col: usize) -> bool {
        self.columns[col].generated
    }

    fn col_domain(&self, col: usize) -> Option<u32> {
        self.columns[col].domain
    }
}

/// The base table of a view written through: DEFAULT in a column the
/// view gives a default (`ViewCol::default`) means that, before the
/// table's own.
pub(crate) struct ViewBase<'a> {
    table: &'a TableDef,
    defaults: Vec<(usize, Expr)>,
    /// DEFAULT without a view default is NULL, not the table's.
    null_default: bool,
}

impl<'a> ViewBase<'a> {
    pub(crate) fn new(vt: &'a ViewTarget) -> ViewBase<'a> {
        let mut defaults: Vec<(usize, Expr)> = Vec::new();
        for c in &vt.cols {
            if let (Some(base), Some(d)) = (c.base, &c.default) {
                if !defaults.iter().any(|(b, _)| *b == base) {
                    defaults.push((base, d.clone()));
                }
            }
        }
        ViewBase {
            table: &vt.table,
            defaults,
            null_default: false,
        }
    }

    /// For UPDATE: DEFAULT is the named view's own default, else NULL.
    pub(crate) fn for_update(vt: &'a ViewTarget) -> ViewBase<'a> {
        let defaults = vt
            .defaults
            .iter()
            .filter(|d| d.top)
            .filter_map(|d| Some((d.base?, d.expr.clone())))
            .collect();
        ViewBase {
            table: &vt.table,
            defaults,
            null_default: true,
        }
    }
}

impl WriteCols for ViewBase<'_> {
    fn col_name(&self, col: usize) -> &str {
        self.table.col_name(col)
    }

    fn col_ty(&self, col: usize) -> DataType {
        self.table.col_ty(col)
    }

    fn col_default(&self, b: &Binder, col: usize) -> Result<Option<Expr>, DbError> {
        match self.defaults.iter().find(|(c, _)| *c == col) {
            Some((_, e)) => {
                // A view's default is a value to the table below it.
                let identity = self.table.always_identity(col);
                if self.null_default && (identity || self.table.generated(col)) {
                    return Err(update_to_default_only(self.table, col));
                }
                refuse_view_default(self.table, col, b.identity_check.is_some())?;
                Ok(Some(e.clone()))
            }
            None if self.null_default => Ok(None),
            None => self.table.col_default(b, col),
        }
    }

    fn always_identity(&self, col: usize) -> bool {
        self.table.always_identity(col)
    }

    fn generated(&self, col: usize) -> bool {
        self.table.generated(col)
    }

    fn col_domain(&self, col: usize) -> Option<u32> {
        self.table.col_domain(col)
    }
}

/// A view's columns (name, type) and their defaults (ALTER VIEW ... SET
/// DEFAULT; none: NULL, as PostgreSQL gives a view with INSTEAD OF
/// triggers).
pub(crate) struct ViewCols<'a>(pub &'a [(String, DataType)], pub Vec<Option<Expr>>);

impl<'a> ViewCols<'a> {
    pub(crate) fn of(b: &Binder, v: &'a nestor_catalog::ViewDef) -> Result<ViewCols<'a>, DbError> {
        let defaults = v
            .columns
            .iter()
            .enumerate()
            .map(|(i, (_, ty))| view_write::bind_view_default(b, v, i, *ty))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ViewCols(&v.columns, defaults))
    }
}

impl WriteCols for ViewCols<'_> {
    fn col_name(&self, col: usize) -> &str {
        &self.0[col].0
    }

    fn col_ty(&self, col: usize) -> DataType {
        self.0[col].1
    }

    fn col_default(&self, _: &Binder, col: usize) -> Result<Option<Expr>, DbError> {
        Ok(self.1.get(col).cloned().flatten())
    }

    fn always_identity(&self, _: usize) -> bool {
        false
    }

    fn generated(&self, _: usize) -> bool {
        false
    }
}

pub(crate) fn column_of(t: &TableDef, name: &str) -> Result<usize, DbError> {
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

/// The defaults of the live columns an INSERT does not name.
pub(crate) fn insert_defaults(
    b: &Binder,
    table: &TableDef,
    targets: &[usize],
) -> Result<Vec<(usize, Expr)>, DbError> {
    let mut defaults = Vec::new();
    for (i, _) in table.live_columns() {
        if !targets.contains(&i) {
            if let Some(e) = bind_default(b.catalog, b.eval, table, i)? {
                defaults.push((i, e));
            }
        }
    }
    Ok(defaults)
}

/// INSERT's explicit target columns: their positions in the relation
/// named `relation` (found by `lookup`) and their locations in the text
/// (for "more target columns than expressions"); both empty for the
/// implicit list. Unknown and repeated columns are PostgreSQL's errors.
pub(crate) fn insert_target_list(
    b: &Binder,
    ins: &pb::InsertStmt,
    relation: &str,
    lookup: impl Fn(&str) -> Option<usize>,
) -> Result<(Vec<usize>, Vec<i32>), DbError> {
    let mut targets = Vec::new();
    let mut locs = Vec::new();
    // Columns named whole, and those named with subscripts (which may
    // repeat: `(a[1], a[3])`).
    let mut partial: Vec<bool> = Vec::new();
    for c in &ins.cols {
        let NodeEnum::ResTarget(rt) = node(c)? else {
            continue;
        };
        let at = |e| bind::err_at(e, b.text, rt.location);
        let pos = lookup(&rt.name).ok_or_else(|| {
            at(DbError::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{}\" of relation \"{relation}\" does not exist",
                    rt.name
                ),
            ))
        })?;
        let whole = rt.indirection.is_empty();
        let named_whole = targets.iter().zip(&partial).any(|(&t, &p)| t == pos && !p);
        if named_whole || (whole && targets.contains(&pos)) {
            return Err(at(DbError::new(
                SqlState::DuplicateColumn,
                format!("column \"{}\" specified more than once", rt.name),
            )));
        }
        targets.push(pos);
        partial.push(!whole);
        locs.push(rt.location);
    }
    Ok((targets, locs))
}

/// The subscripts of INSERT's target columns (`INSERT INTO t (a[1],
/// a[3])`), one entry per target; empty when none has any.
pub(crate) fn insert_subscripts(
    b: &mut Binder,
    ins: &pb::InsertStmt,
    table: &dyn WriteCols,
    targets: &[usize],
) -> Result<Vec<Option<AssignTarget>>, DbError> {
    if ins.cols.iter().all(|c| match c.node.as_ref() {
        Some(NodeEnum::ResTarget(rt)) => rt.indirection.is_empty(),
        _ => true,
    }) {
        return Ok(Vec::new());
    }
    // Subscripts see no columns (PostgreSQL binds them before the source).
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let r = bind_insert_subscripts(b, ins, table, targets);
    b.scopes.pop();
    b.outer_refs.pop();
    r
}

fn bind_insert_subscripts(
    b: &mut Binder,
    ins: &pb::InsertStmt,
    table: &dyn WriteCols,
    targets: &[usize],
) -> Result<Vec<Option<AssignTarget>>, DbError> {
    let mut out = Vec::new();
    let cols = ins.cols.iter().filter_map(|c| match c.node.as_ref() {
        Some(NodeEnum::ResTarget(rt)) => Some(rt),
        _ => None,
    });
    for (rt, &col) in cols.zip(targets) {
        if rt.indirection.is_empty() {
            out.push(None);
            continue;
        }
        let ty = table.col_ty(col);
        let t = subscripts::bind_assign_target(b, &rt.name, ty, &rt.indirection, false)
            .map_err(|e| bind::err_at(e, b.text, rt.location))?;
        out.push(Some(t));
    }
    Ok(out)
}

/// An INSERT source whose values go into subscripted targets, made into
/// one value per column: the targets of a column fold into nested array
/// assignments into NULL (PostgreSQL's rewriter does the same), and
/// `targets` becomes the list of distinct columns.
fn fold_subscripted(source: Plan, targets: &mut Vec<usize>, subs: &[Option<AssignTarget>]) -> Plan {
    let mut cols: Vec<usize> = Vec::with_capacity(targets.len());
    let mut exprs: Vec<Expr> = Vec::with_capacity(targets.len());
    for (i, &c) in targets.iter().enumerate() {
        let v = Expr::Col(i);
        let Some(t) = subs.get(i).and_then(Option::as_ref) else {
            cols.push(c);
            exprs.push(v);
            continue;
        };
        match cols.iter().position(|&x| x == c) {
            Some(p) => {
                let base = std::mem::replace(&mut exprs[p], Expr::Const(Value::Null));
                exprs[p] = t.apply(base, v);
            }
            None => {
                cols.push(c);
                exprs.push(t.apply(Expr::Const(Value::Null), v));
            }
        }
    }
    *targets = cols;
    Plan::Project {
        input: Box::new(source),
        exprs,
    }
}

/// A value of INSERT's source (or of a subscripted SET) coerced to what it
/// is assigned to: the column's type, or the element or array type of a
/// subscripted target (with PostgreSQL's message for each).
fn coerce_insert_value(
    b: &mut Binder,
    table: &dyn WriteCols,
    col: usize,
    sub: Option<&AssignTarget>,
    (e, t): (Expr, DataType),
) -> Result<Expr, DbError> {
    match sub {
        None => b
            .coerce_assign(e, t, table.col_ty(col))
            .map_err(|e| assign_err(e, table, col)),
        Some(s) => b
            .coerce_assign(e, t, s.value_ty)
            .map_err(|e| subscripts::subscripted_assign_err(e, table.col_name(col), s)),
    }
}

pub(crate) fn bind_returning(b: &mut Binder, list: &[Node]) -> Result<Option<Returning>, DbError> {
    if list.is_empty() {
        return Ok(None);
    }
    b.agg = AggCtx::NotAllowed("RETURNING");
    let targets = b.without_windows("window functions are not allowed in RETURNING", |b| {
        select::bind_targets(b, list)
    })?;
    Ok(Some(Returning {
        exprs: targets.iter().map(|t| t.expr.clone()).collect(),
        cols: targets.into_iter().map(|t| t.col).collect(),
        moved: None,
    }))
}

/// A `tableoid` column read from the row (after its system columns): a
/// routed INSERT's leaf, an UPDATE's moved row's new leaf.
fn tableoid_col(alias: &str, table_oid: u32) -> bind::ScopeCol {
    bind::ScopeCol {
        perm: None,
        rel: alias.to_string(),
        name: "tableoid".to_string(),
        ty: DataType::Oid,
        hidden: true,
        table_oid,
        attnum: select::inherit::TABLEOID_ATTNUM,
        merged: false,
        scalar_fn: false,
        subst: None,
        using_cast: None,
    }
}

/// Plan INSERT.
pub(crate) fn plan_insert(b: &mut Binder, ins: &pb::InsertStmt) -> Result<InsertPlan, DbError> {
    let rv = ins
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("INSERT without table"))?;
    let table = match table_for_write(b, rv)? {
        WriteTarget::Table(t) => t,
        WriteTarget::View(v) => return plan_insert_view(b, ins, rv, &v),
    };
    // INSERT; SELECT of the columns RETURNING reads (its scope marks
    // them: `RETURNING 1` needs none, as in PostgreSQL), UPDATE for ON
    // CONFLICT DO UPDATE (which also reads the existing row).
    let mut privs = acl::INSERT;
    if ins
        .on_conflict_clause
        .as_deref()
        .is_some_and(|oc| oc.action == pb::OnConflictAction::OnconflictUpdate as i32)
    {
        privs |= acl::UPDATE | acl::SELECT;
    }
    let perm = b.need_by_columns(ObjKind::Table, table.oid.0, &table.name, privs);
    let (mut targets, col_locs) =
        insert_target_list(b, ins, &table.name, |n| table.column_index(n))?;
    if ins.cols.is_empty() {
        targets = table.live_columns().map(|(i, _)| i).collect();
    }
    let subs = insert_subscripts(b, ins, &*table, &targets)?;
    let mut source = insert_rows(b, ins, &*table, &mut targets, &col_locs, &subs)?;
    b.mark_written(perm, &attnums(&targets), true);
    if !subs.is_empty() {
        source = fold_subscripted(source, &mut targets, &subs);
    }
    let alias = bind::alias_or(rv, &table.name);
    let conflict = match ins.on_conflict_clause.as_deref() {
        None => None,
        Some(oc) => Some(plan_conflict(b, &table, &alias, oc, perm)?),
    };
    let mut scope = select::table_scope(&table, &alias);
    if table.partition_key.is_some() {
        // A routed row's `tableoid` is its leaf's, after its system
        // columns (the executor's `with_sys`).
        scope.cols.push(tableoid_col(&alias, table.oid.0));
    }
    Binder::tag_cols(&mut scope, 0, perm);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let returning = bind_returning(b, &ins.returning_list);
    b.scopes.pop();
    b.outer_refs.pop();
    let defaults = insert_defaults(b, &table, &targets)?;
    let (route, part_check) = partition_write(b, &table, acl::INSERT)?;
    let mut checks = bind_checks(b.catalog, b.eval, &table)?;
    let mut conflict = conflict;
    if let Some(role) = select::rls::applies(b, &table)? {
        if route.is_some() && conflict.is_some() {
            return Err(DbError::unsupported(
                "INSERT ... ON CONFLICT into a partitioned table with row-level security",
            ));
        }
        let new_rows = &select::rls::NewRows {
            role,
            kind: crate::ir::CheckKind::NewRow,
        };
        let mut update_checks = checks.clone();
        checks.extend(new_rows.checks(b, &table, &table, PolicyCmd::Insert, false)?);
        // DO UPDATE reads the target (its inference columns at least).
        let do_update = matches!(conflict, Some(Conflict::Update { .. }));
        if !ins.returning_list.is_empty() || do_update {
            checks.extend(new_rows.checks(b, &table, &table, PolicyCmd::Select, true)?);
        }
        if let Some(Conflict::Update { rls, .. }) = &mut conflict {
            let existing_rows = &select::rls::NewRows {
                role,
                kind: crate::ir::CheckKind::Conflict,
            };
            let mut existing = existing_rows.checks(b, &table, &table, PolicyCmd::Update, true)?;
            existing.extend(existing_rows.checks(b, &table, &table, PolicyCmd::Select, true)?);
            update_checks.extend(new_rows.checks(b, &table, &table, PolicyCmd::Update, false)?);
            update_checks.extend(new_rows.checks(b, &table, &table, PolicyCmd::Select, true)?);
            *rls = Some(Arc::new(ConflictRls {
                existing,
                update_checks,
            }));
        }
    }
    Ok(InsertPlan {
        checks,
        table,
        source,
        targets,
        defaults,
        conflict,
        returning: returning?,
        view_checks: Vec::new(),
        route,
        part_check,
    })
}

/// A view with INSTEAD OF triggers is planned by `instead.rs` from
/// the statement's top (`statement::plan_node`); reached another way (a
/// data-modifying WITH item), its triggers would be skipped.
fn refuse_instead(v: &nestor_catalog::ViewDef, kind: WriteKind) -> Result<(), DbError> {
    if crate::view_write::has_instead_trigger(v, kind) {
        return Err(DbError::unsupported(format!(
            "{} on view \"{}\", which has INSTEAD OF triggers, here",
            kind.command(),
            v.name
        )));
    }
    Ok(())
}

/// INSERT through an automatically updatable view (`view_write`): the
/// view's columns map to the base table's, the others get their defaults,
/// RETURNING is over the view's columns.
fn plan_insert_view(
    b: &mut Binder,
    ins: &pb::InsertStmt,
    rv: &pb::RangeVar,
    v: &Arc<nestor_catalog::ViewDef>,
) -> Result<InsertPlan, DbError> {
    refuse_instead(v, WriteKind::Insert)?;
    refuse_rls_through_view(b, v, "INSERT")?;
    let mut privs = acl::INSERT;
    if !ins.returning_list.is_empty() {
        privs |= acl::SELECT;
    }
    let do_update = ins
        .on_conflict_clause
        .as_deref()
        .is_some_and(|oc| oc.action == pb::OnConflictAction::OnconflictUpdate as i32);
    if do_update {
        privs |= acl::UPDATE | acl::SELECT;
    }
    let view_perm = view_need(b, v, privs);
    let vt = view_write::resolve(b, v, WriteKind::Insert, privs)?;
    if do_update && ins.returning_list.is_empty() {
        conflict_reads_by_column(b, &vt, view_perm);
    }
    let table = vt.table.clone();
    let (mut view_cols, col_locs) = insert_target_list(b, ins, &v.name, |n| vt.column(n))?;
    if ins.cols.is_empty() {
        // The implicit list: as many view columns as the source gives.
        let n = insert_source_width(ins).unwrap_or(vt.cols.len());
        view_cols = (0..vt.cols.len().min(n)).collect();
    }
    let mut targets = view_cols
        .iter()
        .map(|&i| vt.writable(i, WriteKind::Insert))
        .collect::<Result<Vec<_>, _>>()?;
    let base = ViewBase::new(&vt);
    let subs = insert_subscripts(b, ins, &base, &targets)?;
    let mut source = insert_rows(b, ins, &base, &mut targets, &col_locs, &subs)?;
    b.mark_written(
        view_perm,
        &attnums(&view_cols[..targets.len().min(view_cols.len())]),
        true,
    );
    if let Some(p) = vt.table_perm {
        b.mark_written(p, &attnums(&targets), true);
    }
    if !subs.is_empty() {
        source = fold_subscripted(source, &mut targets, &subs);
    }
    let alias = bind::alias_or(rv, &v.name);
    let conflict = match ins.on_conflict_clause.as_deref() {
        None => None,
        Some(oc) => Some(plan_view_conflict(b, &vt, &alias, oc, view_perm)?),
    };
    let returning = bind_view_returning(b, &vt, &alias, &ins.returning_list)?;
    let defaults = view_insert_defaults(b, ins, &vt, &targets)?;
    let (route, part_check) = partition_write(b, &table, acl::INSERT)?;
    if route.is_some() && conflict.is_some() && !vt.checks.is_empty() {
        // The executor routes such rows through per-leaf plans, which
        // check their leaf's constraints, not the view's options.
        return Err(DbError::unsupported(
            "INSERT ... ON CONFLICT through a view with a check option into a partitioned table",
        ));
    }
    Ok(InsertPlan {
        checks: bind_checks(b.catalog, b.eval, &table)?,
        table,
        source,
        targets,
        defaults,
        conflict,
        returning,
        view_checks: vt.checks,
        route,
        part_check,
    })
}

/// A view default reaching a stored generated column, or a GENERATED
/// ALWAYS identity column (`checked`: without OVERRIDING SYSTEM VALUE),
/// is an explicit value there: PostgreSQL's error.
fn refuse_view_default(table: &TableDef, col: usize, checked: bool) -> Result<(), DbError> {
    if table.generated(col) {
        return Err(generated_column(table, col));
    }
    if checked && table.always_identity(col) {
        return Err(generated_always(table, col));
    }
    Ok(())
}

/// 428C9: UPDATE assigning a generated or GENERATED ALWAYS identity
/// column something other than its own DEFAULT.
fn update_to_default_only(table: &TableDef, col: usize) -> DbError {
    let name = table.col_name(col);
    let detail = if table.generated(col) {
        format!("Column \"{name}\" is a generated column.")
    } else {
        format!("Column \"{name}\" is an identity column defined as GENERATED ALWAYS.")
    };
    DbError::new(
        SqlState::GeneratedAlways,
        format!("column \"{name}\" can only be updated to DEFAULT"),
    )
    .with_detail(detail)
}

/// The defaults of the base columns an INSERT through a view does not
/// give: the views' (`ViewTarget::omitted_defaults`), then the table's.
fn view_insert_defaults(
    b: &Binder,
    ins: &pb::InsertStmt,
    vt: &ViewTarget,
    targets: &[usize],
) -> Result<Vec<(usize, Expr)>, DbError> {
    let mut defaults = vt.omitted_defaults(targets)?;
    let checked = ins.r#override != pb::OverridingKind::OverridingSystemValue as i32;
    for (c, _) in &defaults {
        refuse_view_default(&vt.table, *c, checked)?;
    }
    let given: Vec<usize> = targets
        .iter()
        .copied()
        .chain(defaults.iter().map(|(c, _)| *c))
        .collect();
    defaults.extend(insert_defaults(b, &vt.table, &given)?);
    Ok(defaults)
}

/// Whether a VALUES list has a `t.*` item (its columns, so the row's
/// width is not its item count).
fn values_have_star(sel: &pb::SelectStmt) -> bool {
    sel.values_lists.iter().any(|l| match node(l) {
        Ok(NodeEnum::List(items)) => items.items.iter().any(|i| {
            matches!(node(i), Ok(NodeEnum::ColumnRef(c))
                if matches!(c.fields.last().and_then(|f| f.node.as_ref()), Some(NodeEnum::AStar(_))))
        }),
        _ => false,
    })
}

/// How many values each row of an INSERT's source has, when its text
/// tells (VALUES, or a select list without `*`).
fn insert_source_width(ins: &pb::InsertStmt) -> Option<usize> {
    let NodeEnum::SelectStmt(sel) = node(ins.select_stmt.as_deref()?).ok()? else {
        return None;
    };
    if let Some(first) = sel.values_lists.first() {
        let NodeEnum::List(l) = node(first).ok()? else {
            return None;
        };
        if values_have_star(sel) {
            return None;
        }
        return Some(l.items.len());
    }
    if sel.op != pb::SetOperation::SetopNone as i32 && sel.op != 0 {
        return None;
    }
    for t in &sel.target_list {
        let NodeEnum::ResTarget(rt) = node(t).ok()? else {
            return None;
        };
        if let Some(NodeEnum::ColumnRef(cr)) = rt.val.as_deref().and_then(|v| v.node.as_ref()) {
            if cr
                .fields
                .iter()
                .any(|f| matches!(f.node, Some(NodeEnum::AStar(_))))
            {
                return None;
            }
        }
    }
    Some(sel.target_list.len())
}

/// RETURNING over a view's columns, rewritten over the base row.
fn bind_view_returning(
    b: &mut Binder,
    vt: &ViewTarget,
    alias: &str,
    list: &[Node],
) -> Result<Option<Returning>, DbError> {
    b.scopes.push(vt.scope(alias));
    b.outer_refs.push(None);
    let r = bind_returning(b, list);
    b.scopes.pop();
    b.outer_refs.pop();
    let Some(mut r) = r? else {
        return Ok(None);
    };
    r.exprs = r
        .exprs
        .into_iter()
        .map(|e| vt.substitute(e))
        .collect::<Result<_, _>>()?;
    Ok(Some(r))
}

/// The rows an INSERT inserts (VALUES, a query, or DEFAULT VALUES, which
/// empties `targets`), after OVERRIDING and GENERATED ALWAYS identity
/// columns are checked.
pub(crate) fn insert_rows(
    b: &mut Binder,
    ins: &pb::InsertStmt,
    table: &dyn WriteCols,
    targets: &mut Vec<usize>,
    col_locs: &[i32],
    subs: &[Option<AssignTarget>],
) -> Result<Plan, DbError> {
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
        Some(s) => plan_insert_source(b, table, targets, col_locs, subs, s),
    };
    let checked = b.identity_check.take().is_some();
    let source = source?;
    // INSERT ... SELECT into a stored generated column (VALUES rows are
    // checked item by item, DEFAULT passing), whatever OVERRIDING says.
    if !matches!(source, Plan::Values { .. }) {
        if let Some(&c) = targets.iter().find(|&&c| table.generated(c)) {
            return Err(generated_column(table, c));
        }
    }
    // INSERT ... SELECT (VALUES rows are checked item by item, DEFAULT
    // passing) into a GENERATED ALWAYS identity column.
    if checked && !matches!(source, Plan::Values { .. }) {
        if let Some(&c) = targets.iter().find(|&&c| table.always_identity(c)) {
            return Err(generated_always(table, c));
        }
    }
    Ok(source)
}

fn plan_insert_source(
    b: &mut Binder,
    table: &dyn WriteCols,
    targets: &mut Vec<usize>,
    col_locs: &[i32],
    subs: &[Option<AssignTarget>],
    s: &Node,
) -> Result<Plan, DbError> {
    let NodeEnum::SelectStmt(sel) = node(s)? else {
        return Err(DbError::internal("INSERT source is not a SELECT"));
    };
    // (`VALUES (t.*)` is planned as a query, which expands the star.)
    let simple_values = !sel.values_lists.is_empty()
        && !values_have_star(sel)
        && sel.sort_clause.is_empty()
        && sel.limit_count.is_none()
        && sel.with_clause.is_none();
    if simple_values {
        if let Some(as_select) = srf_values_row(b, sel) {
            // `VALUES (generate_series(1, 10))`: one row calling a
            // set-returning function is a SELECT of it, as PostgreSQL's
            // transformInsertStmt makes a single VALUES row a target list.
            let n = Node {
                node: Some(NodeEnum::SelectStmt(Box::new(as_select))),
            };
            return plan_insert_source(b, table, targets, col_locs, subs, &n);
        }
        b.scopes.push(Scope::default());
        b.outer_refs.push(None);
        let r = plan_insert_values(b, table, targets, col_locs, subs, &sel.values_lists);
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
        let sub = subs.get(i).and_then(Option::as_ref);
        // A quoted literal or NULL of a plain SELECT stays of unknown type
        // for the column to decide (PostgreSQL's transformInsertStmt), so
        // `INSERT INTO t (p) SELECT '(0,0)'` reads it as the column's type
        // and `INSERT INTO t SELECT 1, NULL` is a NULL of it.
        let ty = if c.ty == DataType::Text
            && sel.target_list.len() == cols.len()
            && untyped_literal_target(sel, i)
        {
            DataType::Unknown
        } else {
            c.ty
        };
        exprs.push(coerce_insert_value(
            b,
            table,
            targets[i],
            sub,
            (Expr::Col(i), ty),
        )?);
    }
    Ok(Plan::Project {
        input: Box::new(plan),
        exprs,
    })
}

/// A single VALUES row with a set-returning function call among its
/// items (and no DEFAULT) as the SELECT of those items.
fn srf_values_row(b: &Binder, sel: &pb::SelectStmt) -> Option<pb::SelectStmt> {
    let [row] = sel.values_lists.as_slice() else {
        return None;
    };
    let NodeEnum::List(items) = node(row).ok()? else {
        return None;
    };
    let mut srf = false;
    for it in &items.items {
        match it.node.as_ref()? {
            NodeEnum::SetToDefault(_) => return None,
            NodeEnum::FuncCall(f) => srf |= b.srf_kind(f).is_some(),
            _ => {}
        }
    }
    if !srf {
        return None;
    }
    let target_list = items
        .items
        .iter()
        .map(|it| {
            Some(Node {
                node: Some(NodeEnum::ResTarget(Box::new(pb::ResTarget {
                    val: Some(Box::new(it.clone())),
                    location: bind::expr_location(it.node.as_ref()?),
                    ..Default::default()
                }))),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(pb::SelectStmt {
        target_list,
        ..Default::default()
    })
}

/// Whether output `i` of a plain SELECT (no set operation, no DISTINCT)
/// is a bare string literal or NULL.
fn untyped_literal_target(sel: &pb::SelectStmt, i: usize) -> bool {
    let plain = matches!(
        pb::SetOperation::try_from(sel.op),
        Ok(pb::SetOperation::SetopNone) | Ok(pb::SetOperation::Undefined)
    ) && sel.distinct_clause.is_empty();
    let target = sel.target_list.get(i).and_then(|n| match n.node.as_ref() {
        Some(NodeEnum::ResTarget(rt)) => rt.val.as_deref().and_then(|v| v.node.as_ref()),
        _ => None,
    });
    plain
        && matches!(target, Some(NodeEnum::AConst(c))
            if c.isnull || matches!(c.val, Some(pb::a_const::Val::Sval(_))))
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
fn generated_always(table: &dyn WriteCols, col: usize) -> DbError {
    let name = table.col_name(col);
    DbError::new(
        SqlState::GeneratedAlways,
        format!("cannot insert a non-DEFAULT value into column \"{name}\""),
    )
    .with_detail(format!(
        "Column \"{name}\" is an identity column defined as GENERATED ALWAYS."
    ))
    .with_hint("Use OVERRIDING SYSTEM VALUE to override.")
}

/// 428C9: an explicit value for a stored generated column.
fn generated_column(table: &dyn WriteCols, col: usize) -> DbError {
    let name = table.col_name(col);
    DbError::new(
        SqlState::GeneratedAlways,
        format!("cannot insert a non-DEFAULT value into column \"{name}\""),
    )
    .with_detail(format!("Column \"{name}\" is a generated column."))
}

fn assign_err(mut e: DbError, table: &dyn WriteCols, col: usize) -> DbError {
    if e.code == SqlState::DatatypeMismatch && e.message.starts_with("column is of type") {
        e.message = format!(
            "column \"{}\" {}",
            table.col_name(col),
            &e.message["column ".len()..]
        );
    }
    e
}

pub(crate) fn plan_insert_values(
    b: &mut Binder,
    table: &dyn WriteCols,
    targets: &mut Vec<usize>,
    col_locs: &[i32],
    subs: &[Option<AssignTarget>],
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
            let sub = subs.get(i).and_then(Option::as_ref);
            if matches!(node(item)?, NodeEnum::SetToDefault(_)) {
                if let Some(sub) = sub {
                    let loc = col_locs.get(i).copied().unwrap_or(-1);
                    return Err(bind::err_at(default_into_part(sub), b.text, loc));
                }
                let d = table.col_default(b, col)?;
                row.push(d.unwrap_or(Expr::Const(Value::Null)));
                continue;
            }
            if b.identity_check.is_some() && table.always_identity(col) {
                return Err(generated_always(table, col));
            }
            if table.generated(col) {
                return Err(generated_column(table, col));
            }
            let item_loc = bind::expr_location(node(item)?);
            let bound = b.bind(item)?;
            let loc = match sub {
                Some(_) => col_locs.get(i).copied().unwrap_or(-1),
                None => item_loc,
            };
            let v = coerce_insert_value(b, table, col, sub, bound)
                .map_err(|e| bind::err_at(e, b.text, loc))?;
            // A literal whose input checks domains (of a composite's
            // attributes, of an array's elements) is checked here too, for
            // the error's cursor (the column's check, after, then passes).
            let v = match sub {
                None => b.check_literal(v, table.col_ty(col), table.col_domain(col), item)?,
                Some(_) => v,
            };
            row.push(v);
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
    perm: usize,
) -> Result<Conflict, DbError> {
    let action = pb::OnConflictAction::try_from(oc.action)
        .unwrap_or(pb::OnConflictAction::OnconflictNothing);
    let arbiters = conflict_arbiters(b, table, oc)?;
    mark_inferred(b, table, oc, perm)?;
    if action != pb::OnConflictAction::OnconflictUpdate {
        return Ok(Conflict::Nothing { arbiters });
    }
    if oc.infer.is_none() {
        return Err(no_inference(b, oc));
    }
    // Scope: the existing row, then EXCLUDED.
    let mut scope = Scope::default();
    let mut off = 0;
    // EXCLUDED's columns need SELECT on the target's, as PostgreSQL
    // checks them.
    select::add_table(table.clone(), alias, &[], &mut off, &mut scope);
    select::add_table(table.clone(), "excluded", &[], &mut off, &mut scope);
    Binder::tag_cols(&mut scope, 0, perm);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let r = bind_sets(b, &**table, &oc.target_list, &|n| column_of(table, n)).and_then(|sets| {
        let set_cols: Vec<usize> = sets.iter().map(|(c, _)| *c).collect();
        b.mark_written(perm, &attnums(&set_cols), false);
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
        rls: None,
    })
}

/// ON CONFLICT DO UPDATE through a view reads by column, as PostgreSQL
/// checks it: the view's columns its clauses name (marked as they are
/// bound), and, on the table right below, every column the view shows
/// (EXCLUDED is built over all of them). Without RETURNING nothing else
/// needs the whole relations' SELECT.
fn conflict_reads_by_column(b: &mut Binder, vt: &ViewTarget, view_perm: usize) {
    b.perms[view_perm].cols.untracked &= !acl::SELECT;
    let Some(p) = vt.table_perm else {
        return;
    };
    let n = vt.table.columns.len();
    let mut read: Vec<usize> = Vec::new();
    for c in &vt.cols {
        c.expr.walk(&mut |e| {
            if let Expr::Col(i) = e {
                if *i < n && !read.contains(i) {
                    read.push(*i);
                }
            }
        });
    }
    let perm = &mut b.perms[p];
    perm.cols.untracked &= !acl::SELECT;
    for c in read {
        crate::perm::add_col(&mut perm.cols.select, c as i16 + 1);
    }
}

/// DO UPDATE without a conflict target: PostgreSQL's error, at the ON
/// CONFLICT clause.
fn no_inference(b: &Binder, oc: &pb::OnConflictClause) -> DbError {
    let e = DbError::new(
        SqlState::SyntaxError,
        "ON CONFLICT DO UPDATE requires inference specification or constraint name",
    )
    .with_hint("For example, ON CONFLICT (column_name).");
    bind::err_at(e, b.text, oc.location)
}

/// ON CONFLICT DO UPDATE through a view assigning a view column that is
/// not a base column: PostgreSQL's rewriter error (no position), raised
/// once every SET target names a view column.
fn refuse_computed_sets(vt: &ViewTarget, list: &[Node]) -> Result<(), DbError> {
    let mut cols = Vec::with_capacity(list.len());
    for t in list {
        if let NodeEnum::ResTarget(rt) = node(t)? {
            match vt.column(&rt.name) {
                Some(i) => cols.push(i),
                None => return Ok(()),
            }
        }
    }
    for i in cols {
        vt.writable(i, WriteKind::Insert)?;
    }
    Ok(())
}

/// ON CONFLICT of an INSERT through a view (PostgreSQL's rewriter maps
/// it onto the base relation): the inference names the view's columns
/// (their expressions over the base row choose the table's unique
/// indexes), DO UPDATE's SET list writes view columns that are base
/// columns, its values and WHERE read the existing row and EXCLUDED as
/// the view shows them. ON CONSTRAINT looks for the constraint on the
/// view, which has none, as in PostgreSQL.
fn plan_view_conflict(
    b: &mut Binder,
    vt: &ViewTarget,
    alias: &str,
    oc: &pb::OnConflictClause,
    view_perm: usize,
) -> Result<Conflict, DbError> {
    let action = pb::OnConflictAction::try_from(oc.action)
        .unwrap_or(pb::OnConflictAction::OnconflictNothing);
    let arbiters = view_conflict_arbiters(b, vt, alias, oc, view_perm)?;
    if action != pb::OnConflictAction::OnconflictUpdate {
        return Ok(Conflict::Nothing { arbiters });
    }
    if oc.infer.is_none() {
        return Err(no_inference(b, oc));
    }
    for t in &oc.target_list {
        if matches!(node(t)?, NodeEnum::ResTarget(rt) if !rt.indirection.is_empty()) {
            return Err(DbError::unsupported(
                "a subscripted or field assignment in ON CONFLICT DO UPDATE through a view",
            ));
        }
    }
    refuse_computed_sets(vt, &oc.target_list)?;
    // Scope: the existing row, then EXCLUDED, both as the view's columns.
    let mut scope = vt.scope(alias);
    scope.cols.extend(vt.scope("excluded").cols);
    Binder::tag_cols_by_position(&mut scope, 0, view_perm);
    let n = vt.cols.len();
    for (k, c) in scope.cols.iter_mut().enumerate().skip(n) {
        if let Some((p, _)) = c.perm {
            c.perm = Some((p, (k - n) as i16 + 1));
        }
    }
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let col_of = |name: &str| -> Result<usize, DbError> {
        let i = vt.column(name).ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    vt.view.name
                ),
            )
        })?;
        // PostgreSQL's rewriter checks the SET list as part of the INSERT.
        vt.writable(i, WriteKind::Insert)
    };
    let r = bind_sets(b, &ViewBase::for_update(vt), &oc.target_list, &col_of).and_then(|sets| {
        let filter = match &oc.where_clause {
            Some(w) => Some(b.bind_bool(w, "WHERE")?),
            None => None,
        };
        Ok((sets, filter))
    });
    b.scopes.pop();
    b.outer_refs.pop();
    let (sets, filter) = r?;
    let set_cols: Vec<usize> = sets.iter().map(|(c, _)| *c).collect();
    let view_set_cols: Vec<usize> = vt
        .cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.base.is_some_and(|x| set_cols.contains(&x)))
        .map(|(i, _)| i)
        .collect();
    b.mark_written(view_perm, &attnums(&view_set_cols), false);
    if let Some(p) = vt.table_perm {
        b.mark_written(p, &attnums(&set_cols), false);
    }
    let sets = sets
        .into_iter()
        .map(|(c, e)| Ok((c, vt.substitute_conflict(e)?)))
        .collect::<Result<Vec<_>, DbError>>()?;
    let filter = filter.map(|f| vt.substitute_conflict(f)).transpose()?;
    Ok(Conflict::Update {
        arbiter: arbiters[0],
        sets,
        filter,
        rls: None,
    })
}

/// The arbiters of ON CONFLICT through a view: its inference's columns
/// and expressions (and WHERE) bound over the view's columns and
/// rewritten over the base row, matched against the table's unique
/// indexes; every unique index without an inference.
fn view_conflict_arbiters(
    b: &mut Binder,
    vt: &ViewTarget,
    alias: &str,
    oc: &pb::OnConflictClause,
    view_perm: usize,
) -> Result<Vec<usize>, DbError> {
    let table = &vt.table;
    let Some(inf) = oc.infer.as_deref() else {
        return Ok(unique_indexes(table));
    };
    if !inf.conname.is_empty() {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!(
                "constraint \"{}\" for table \"{}\" does not exist",
                inf.conname, vt.view.name
            ),
        ));
    }
    let mut scope = vt.scope(alias);
    Binder::tag_cols_by_position(&mut scope, 0, view_perm);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let bound = (|| {
        let top = b.level();
        let mut keys = Vec::new();
        for e in &inf.index_elems {
            let NodeEnum::IndexElem(ie) = node(e)? else {
                continue;
            };
            keys.push(match ie.expr.as_deref() {
                Some(x) if ie.name.is_empty() => b.bind(x)?.0,
                _ => {
                    let i = vt.column(&ie.name).ok_or_else(|| {
                        DbError::new(
                            SqlState::UndefinedColumn,
                            format!("column \"{}\" does not exist", ie.name),
                        )
                    })?;
                    b.mark_read(top, i, false);
                    Expr::Col(i)
                }
            });
        }
        let given = match inf.where_clause.as_deref() {
            Some(w) => select::conjuncts(b.bind_bool(w, "WHERE")?),
            None => Vec::new(),
        };
        Ok::<_, DbError>((keys, given))
    })();
    b.scopes.pop();
    b.outer_refs.pop();
    let (keys, given) = bound?;
    let keys = keys
        .into_iter()
        .map(|k| vt.substitute(k))
        .collect::<Result<Vec<_>, _>>()?;
    let given = given
        .into_iter()
        .map(|g| vt.substitute(g))
        .collect::<Result<Vec<_>, _>>()?;
    matching_arbiters(b, table, &keys, &given)
}

/// Every unique index of `table` (ON CONFLICT without an inference).
fn unique_indexes(table: &TableDef) -> Vec<usize> {
    table
        .indexes
        .iter()
        .enumerate()
        .filter(|(_, i)| i.unique)
        .map(|(i, _)| i)
        .collect()
}

/// The need of a view a statement writes through: what it writes by
/// column ([`Binder::mark_written`]), what it reads through the view by
/// the view's privilege.
fn view_need(b: &mut Binder, v: &nestor_catalog::ViewDef, privs: u16) -> usize {
    let i = b.need_by_columns(ObjKind::Table, v.oid.0, &v.name, privs);
    b.perms[i].cols.untracked |= privs & acl::SELECT;
    i
}

/// Attribute numbers of column positions.
fn attnums(cols: &[usize]) -> Vec<i16> {
    cols.iter().map(|&c| c as i16 + 1).collect()
}

/// The columns ON CONFLICT's inference names (and its expressions and
/// WHERE read) are read: they need SELECT, as PostgreSQL's
/// transformOnConflictArbiter marks them.
fn mark_inferred(
    b: &mut Binder,
    table: &Arc<TableDef>,
    oc: &pb::OnConflictClause,
    perm: usize,
) -> Result<(), DbError> {
    let Some(inf) = oc.infer.as_deref() else {
        return Ok(());
    };
    let mut scope = select::table_scope(table, &table.name);
    Binder::tag_cols(&mut scope, 0, perm);
    b.scopes.push(scope);
    b.outer_refs.push(None);
    let top = b.level();
    // ON CONSTRAINT: the constraint's columns.
    if let Some(idx) = table.indexes.iter().find(|x| x.name == inf.conname) {
        for &c in &idx.columns {
            b.mark_read(top, c, false);
        }
    }
    // Bound for the columns they read only (conflict_arbiters bound them
    // for their meaning).
    for e in &inf.index_elems {
        let NodeEnum::IndexElem(ie) = node(e)? else {
            continue;
        };
        match ie.expr.as_deref() {
            Some(x) if ie.name.is_empty() => drop(b.bind(x)),
            _ => {
                if let Some(c) = table.column_index(&ie.name) {
                    b.mark_read(top, c, false);
                }
            }
        }
    }
    if let Some(w) = inf.where_clause.as_deref() {
        drop(b.bind(w));
    }
    b.scopes.pop();
    b.outer_refs.pop();
    Ok(())
}

/// The unique indexes an ON CONFLICT clause arbitrates on: the named
/// constraint, the unique indexes on exactly the inferred columns and
/// expressions (a partial one only when the clause's WHERE implies its
/// predicate), or every unique index.
fn conflict_arbiters(
    b: &Binder,
    table: &Arc<TableDef>,
    oc: &pb::OnConflictClause,
) -> Result<Vec<usize>, DbError> {
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
            use crate::select::index_expr::{self, Part};
            let mut keys = Vec::new();
            for e in &inf.index_elems {
                let NodeEnum::IndexElem(ie) = node(e)? else {
                    continue;
                };
                keys.push(match ie.expr.as_deref() {
                    Some(x) if ie.name.is_empty() => {
                        index_expr::bind_part(b.catalog, b.eval, b.text, table, x, Part::Key)?.0
                    }
                    _ => Expr::Col(column_of(table, &ie.name)?),
                });
            }
            let given = match inf.where_clause.as_deref() {
                Some(w) => select::conjuncts(
                    index_expr::bind_part(b.catalog, b.eval, b.text, table, w, Part::Predicate)?.0,
                ),
                None => Vec::new(),
            };
            arbiters = matching_arbiters(b, table, &keys, &given)?;
        }
    } else {
        arbiters = unique_indexes(table);
    }
    Ok(arbiters)
}

/// The unique indexes on exactly the inferred keys (a partial one only
/// when the inference's WHERE conjuncts `given` imply its predicate), or
/// PostgreSQL's error when there is none.
fn matching_arbiters(
    b: &Binder,
    table: &Arc<TableDef>,
    keys: &[Expr],
    given: &[Expr],
) -> Result<Vec<usize>, DbError> {
    use crate::select::index_expr;
    let same_set = |have: &[Expr]| {
        have.len() == keys.len()
            && have.iter().all(|k| keys.contains(k))
            && keys.iter().all(|k| have.contains(k))
    };
    let mut arbiters = Vec::new();
    for (i, idx) in table.indexes.iter().enumerate().filter(|(_, x)| x.unique) {
        let found = match &idx.exprs {
            None => same_set(
                &idx.columns
                    .iter()
                    .map(|&c| Expr::Col(c))
                    .collect::<Vec<_>>(),
            ),
            Some(x) => {
                let bound = index_expr::bind_stored(b.catalog, table, x)?;
                let have: Vec<Expr> = bound.keys.into_iter().map(|(k, _)| k).collect();
                same_set(&have) && index_expr::implied(&bound.predicate, given)
            }
        };
        if found {
            arbiters.push(i);
        }
    }
    if arbiters.is_empty() {
        return Err(DbError::new(
            SqlState::InvalidColumnReference,
            "there is no unique or exclusion constraint matching the ON CONFLICT specification",
        ));
    }
    Ok(arbiters)
}

pub(crate) fn bind_sets(
    b: &mut Binder,
    table: &dyn WriteCols,
    list: &[Node],
    col_of: &dyn Fn(&str) -> Result<usize, DbError>,
) -> Result<Vec<(usize, Expr)>, DbError> {
    b.agg = AggCtx::NotAllowed("UPDATE");
    let mut sets: Vec<(usize, Expr)> = Vec::new();
    // Whether each of `sets` assigns through subscripts.
    let mut partial: Vec<bool> = Vec::new();
    // The values of the multiple-column item being read (`SET (a, b) =
    // ...` is one target per column, each naming the shared source).
    let mut multi: Vec<SetValue> = Vec::new();
    for t in list {
        let NodeEnum::ResTarget(rt) = node(t)? else {
            continue;
        };
        // `SET a[1] = v`, `SET c.f = v`, `SET c.f[2] = v`: assignment
        // through subscripts and fields (`bind/subscripts.rs`).
        let val = req(&rt.val)?;
        let col = col_of(&rt.name).map_err(|e| bind::err_at(e, b.text, rt.location))?;
        let sub = if rt.indirection.is_empty() {
            None
        } else {
            let ty = table.col_ty(col);
            Some(
                subscripts::bind_assign_target(b, &rt.name, ty, &rt.indirection, true)
                    .map_err(|e| bind::err_at(e, b.text, rt.location))?,
            )
        };
        // Several assignments to one column only through subscripts,
        // which nest (PostgreSQL's rewriter).
        let prior = sets.iter().position(|(c, _)| *c == col);
        if prior.is_some_and(|p| sub.is_none() || !partial[p]) {
            return Err(DbError::new(
                SqlState::SyntaxError,
                format!("multiple assignments to same column \"{}\"", rt.name),
            ));
        }
        let value = match node(val)? {
            NodeEnum::SetToDefault(_) => None,
            NodeEnum::MultiAssignRef(m) => {
                if m.colno == 1 {
                    multi = bind_multi_source(b, m)?;
                }
                usize::try_from(m.colno - 1)
                    .ok()
                    .and_then(|i| multi.get(i))
                    .cloned()
                    .ok_or_else(|| DbError::internal("multiple-column UPDATE item out of order"))?
            }
            other => {
                let loc = bind::expr_location(other);
                let (e, t) = b.bind(val)?;
                Some((e, t, loc))
            }
        };
        let Some(sub) = sub else {
            let e = match value {
                None => table
                    .col_default(b, col)?
                    .unwrap_or(Expr::Const(Value::Null)),
                Some((e, t, loc)) => assign_value(b, table, col, &rt.name, (e, t), loc)?,
            };
            sets.push((col, e));
            partial.push(false);
            continue;
        };
        let Some(bound) = value else {
            return Err(bind::err_at(default_into_part(&sub), b.text, rt.location));
        };
        let v = coerce_insert_value(b, table, col, Some(&sub), (bound.0, bound.1))
            .map_err(|e| bind::err_at(e, b.text, rt.location))?;
        match prior {
            Some(p) => {
                let base = std::mem::replace(&mut sets[p].1, Expr::Const(Value::Null));
                sets[p].1 = sub.apply(base, v);
            }
            None => {
                sets.push((col, sub.apply(Expr::Col(col), v)));
                partial.push(true);
            }
        }
    }
    Ok(sets)
}

/// `SET a[1] = DEFAULT`, `SET c.f = DEFAULT`: PostgreSQL refuses both,
/// naming the target's first step.
fn default_into_part(target: &AssignTarget) -> DbError {
    let msg = if target.starts_with_field() {
        "cannot set a subfield to DEFAULT"
    } else {
        "cannot set an array element to DEFAULT"
    };
    DbError::new(SqlState::FeatureNotSupported, msg)
}

/// Whether an UPDATE's new value reads the target row's columns (below
/// `width`); a subscripted assignment's own column is not a read.
pub(crate) fn reads_row(e: &Expr, width: usize) -> bool {
    match e {
        Expr::Func(
            crate::functions::Func::ArrayAssign { .. }
            | crate::functions::Func::JsonbAssign { .. }
            | crate::functions::Func::FieldStore { .. },
            args,
        ) => {
            let base = match args.first() {
                Some(Expr::Col(_)) | None => false,
                Some(base) => reads_row(base, width),
            };
            base || args[1..].iter().any(|a| reads_row(a, width))
        }
        e => e.columns().iter().any(|&c| c < width),
    }
}

/// `tree` cross-joined with an UPDATE's FROM or a DELETE's USING items
/// (the WHERE clause relates them), their columns added to `scope`.
pub(crate) fn join_extra_from(
    b: &mut Binder,
    mut tree: select::From,
    items: &[Node],
    off: &mut usize,
    scope: &mut Scope,
) -> Result<select::From, DbError> {
    // LATERAL items see the FROM items before them, not the target (whose
    // columns are there for PostgreSQL's "invalid reference" error).
    let top = b.level();
    let target_end = tree.range().1;
    for f in items {
        let visible = Scope {
            cols: scope.cols.clone(),
            floor: target_end,
            nullable_row_ids: scope.nullable_row_ids.clone(),
            lateral_target: true,
            ..Scope::default()
        };
        let saved = std::mem::replace(&mut b.scopes[top], visible);
        let item = select::plan_from_item(b, f, off, scope);
        b.scopes[top] = saved;
        let item = item?;
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
    Ok(tree)
}

/// One column's value in an UPDATE's SET: None for DEFAULT, else the
/// bound expression, its type and its location in the statement.
type SetValue = Option<(Expr, DataType, i32)>;

/// A bound value for column `col` of an UPDATE's SET, coerced to the
/// column's type (an identity column GENERATED ALWAYS takes DEFAULT only).
fn assign_value(
    b: &mut Binder,
    table: &dyn WriteCols,
    col: usize,
    name: &str,
    (e, t): (Expr, DataType),
    loc: i32,
) -> Result<Expr, DbError> {
    if table.always_identity(col) {
        return Err(DbError::new(
            SqlState::GeneratedAlways,
            format!("column \"{name}\" can only be updated to DEFAULT"),
        )
        .with_detail(format!(
            "Column \"{name}\" is an identity column defined as GENERATED ALWAYS."
        )));
    }
    if table.generated(col) {
        return Err(DbError::new(
            SqlState::GeneratedAlways,
            format!("column \"{name}\" can only be updated to DEFAULT"),
        )
        .with_detail(format!("Column \"{name}\" is a generated column.")));
    }
    b.coerce_assign(e, t, table.col_ty(col))
        .map_err(|e| assign_err(e, table, col))
        .map_err(|e| bind::err_at(e, b.text, loc))
}

/// The source of `SET (a, b, ...) = source`: one value per column (None
/// for DEFAULT), with its type and location. A row constructor gives its
/// fields, a sub-SELECT its single row's columns (each column reads the
/// subquery's record, so a subquery is run once per column); anything
/// else is PostgreSQL's 0A000, a count that does not match the columns
/// its 42601.
fn bind_multi_source(b: &mut Binder, m: &pb::MultiAssignRef) -> Result<Vec<SetValue>, DbError> {
    let src = req(&m.source)?;
    let loc = match node(src)? {
        NodeEnum::RowExpr(r) => r.location,
        other => bind::expr_location(other),
    };
    let n = usize::try_from(m.ncolumns).unwrap_or(0);
    let mismatch = |b: &Binder| {
        let e = DbError::new(
            SqlState::SyntaxError,
            "number of columns does not match number of values",
        );
        bind::err_at(e, b.text, loc)
    };
    match node(src)? {
        // Element by element, so a quoted literal takes its column's type
        // (and DEFAULT is allowed), unless a `v.*` must expand.
        NodeEnum::RowExpr(r) if !r.args.iter().any(is_star) => {
            let mut out = Vec::with_capacity(r.args.len());
            for a in &r.args {
                out.push(if is_default(a) {
                    None
                } else {
                    let (e, t) = b.bind(a)?;
                    Some((e, t, bind::expr_location(node(a)?)))
                });
            }
            if out.len() != n {
                return Err(mismatch(b));
            }
            Ok(out)
        }
        NodeEnum::RowExpr(_) => {
            // Bound whole: `ROW(v.*)` expands.
            let (e, t) = b.bind(src)?;
            let (Expr::Func(crate::functions::Func::RowCtor, fields), DataType::Record(r)) = (e, t)
            else {
                return Err(DbError::internal("row constructor without a record type"));
            };
            if fields.len() != n {
                return Err(mismatch(b));
            }
            Ok(fields
                .into_iter()
                .zip(&r.fields)
                .map(|(e, (_, t))| Some((e, *t, loc)))
                .collect())
        }
        NodeEnum::SubLink(s) if s.sub_link_type == pb::SubLinkType::ExprSublink as i32 => {
            let (row, types) = b.bind_multiassign_sublink(s, n)?;
            Ok(types
                .into_iter()
                .enumerate()
                .map(|(i, t)| {
                    let field =
                        Expr::Func(crate::functions::Func::FieldSelect(i), vec![row.clone()]);
                    Some((field, t, loc))
                })
                .collect())
        }
        _ => {
            let e = DbError::new(
                SqlState::FeatureNotSupported,
                "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression",
            );
            Err(bind::err_at(e, b.text, loc))
        }
    }
}

fn is_default(n: &Node) -> bool {
    matches!(n.node, Some(NodeEnum::SetToDefault(_)))
}

/// `v.*` or `*`.
fn is_star(n: &Node) -> bool {
    matches!(&n.node, Some(NodeEnum::ColumnRef(c))
        if c.fields.iter().any(|f| matches!(f.node, Some(NodeEnum::AStar(_)))))
}

/// Whether a descendant's live columns are its ancestor's, in the same
/// order.
fn same_layout(parent: &TableDef, child: &TableDef) -> bool {
    let names =
        |t: &TableDef| -> Vec<String> { t.live_columns().map(|(_, c)| c.name.clone()).collect() };
    names(parent) == names(child)
}

/// RETURNING of a descendant laid out differently from the table the
/// statement names: its `*` (unqualified when there is no FROM list, or
/// qualified by the target's name) spelled out in the named table's
/// column order, which is the order PostgreSQL returns them in.
fn star_in_order(list: &[Node], alias: &str, parent: &TableDef, alone: bool) -> Vec<Node> {
    let str_node = |s: &str| Node {
        node: Some(NodeEnum::String(pb::String {
            sval: s.to_string(),
        })),
    };
    let mut out = Vec::with_capacity(list.len());
    for n in list {
        let star = match &n.node {
            Some(NodeEnum::ResTarget(rt)) if rt.name.is_empty() => match rt.val.as_deref() {
                Some(Node {
                    node: Some(NodeEnum::ColumnRef(c)),
                }) => match c.fields.as_slice() {
                    [f] => alone && matches!(f.node, Some(NodeEnum::AStar(_))),
                    [q, f] => {
                        matches!(&q.node, Some(NodeEnum::String(s)) if s.sval == alias)
                            && matches!(f.node, Some(NodeEnum::AStar(_)))
                    }
                    _ => false,
                },
                _ => false,
            },
            _ => false,
        };
        if !star {
            out.push(n.clone());
            continue;
        }
        for (_, c) in parent.live_columns() {
            let col = pb::ColumnRef {
                fields: vec![str_node(alias), str_node(&c.name)],
                location: -1,
            };
            out.push(Node {
                node: Some(NodeEnum::ResTarget(Box::new(pb::ResTarget {
                    name: String::new(),
                    indirection: Vec::new(),
                    val: Some(Box::new(Node {
                        node: Some(NodeEnum::ColumnRef(col)),
                    })),
                    location: -1,
                }))),
            });
        }
    }
    out
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
    let table = match table_for_write(b, rv)? {
        WriteTarget::Table(t) => t,
        WriteTarget::View(v) => {
            return plan_modify_view(
                b,
                rv,
                &v,
                extra_from,
                where_clause,
                set_list,
                returning,
                delete,
            )
        }
    };
    let alias = bind::alias_or(rv, &table.name);
    let stmt = ModifyStmt {
        extra_from,
        where_clause,
        set_list,
        returning,
        delete,
    };
    let mut plan = plan_modify_table(b, &table, None, &alias, &stmt)?;
    if let Some(members) = select::inherit::family(b, &table, rv.inh) {
        for m in &members[1..] {
            let child = plan_modify_table(b, m, Some(&table), &alias, &stmt)?;
            plan.children.push(child);
        }
    }
    if !delete {
        partition_update(b, &table, &mut plan)?;
    }
    prune_modify(b.catalog, b.eval, &mut plan);
    Ok(plan)
}

/// UPDATE of a partitioned table or a partition: the constraint each
/// table's new rows must meet, and through a partitioned table the
/// routing of rows that leave their partition.
fn partition_update(
    b: &mut Binder,
    table: &Arc<TableDef>,
    plan: &mut ModifyPlan,
) -> Result<(), DbError> {
    if table.partition_key.is_none() {
        plan.part_check = PartCheck::of(b.catalog, b.eval, table, None)?;
        return Ok(());
    }
    let (route, _) = partition_write(b, table, acl::INSERT)?;
    for c in &mut plan.children {
        // The leaf's whole constraint, as PostgreSQL's ExecPartitionCheck:
        // a row that fails it is routed again from the named table, whose
        // own constraint (when it is a partition too) then rejects a row
        // that would leave its subtree.
        c.part_check = PartCheck::of(b.catalog, b.eval, &c.table, None)?;
        c.reroute = route.clone();
    }
    Ok(())
}

/// The clauses of an UPDATE or DELETE, planned once per table of an
/// inheritance tree.
struct ModifyStmt<'a> {
    extra_from: &'a [Node],
    where_clause: Option<&'a Node>,
    set_list: &'a [Node],
    returning: &'a [Node],
    delete: bool,
}

/// UPDATE or DELETE of one table. For a descendant of the table the
/// statement names (`parent`), the same clauses are bound against the
/// descendant's own row, so names find its columns wherever they are;
/// its columns the parent lacks are kept out of `*`. Its privileges are
/// checked as the parent's are (PostgreSQL checks the parent's alone):
/// the need is what locks it.
fn plan_modify_table(
    b: &mut Binder,
    table: &Arc<TableDef>,
    parent: Option<&Arc<TableDef>>,
    alias: &str,
    stmt: &ModifyStmt<'_>,
) -> Result<ModifyPlan, DbError> {
    let ModifyStmt {
        extra_from,
        where_clause,
        set_list,
        returning,
        delete,
    } = *stmt;
    let alias = alias.to_string();
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let r = (|| -> Result<ModifyPlan, DbError> {
        let mut scope = Scope::default();
        let mut off = 0;
        let mut tree = select::add_table(table.clone(), &alias, &[], &mut off, &mut scope);
        let perm = match parent {
            Some(_) => b.need_lock_only(table.oid.0, &table.name, 0),
            None => b.need_by_columns(ObjKind::Table, table.oid.0, &table.name, 0),
        };
        Binder::tag_cols(&mut scope, 0, perm);
        if let Some(p) = parent {
            for c in &mut scope.cols[..table.columns.len()] {
                c.hidden |= p.column_index(&c.name).is_none();
            }
        }
        tree = join_extra_from(b, tree, extra_from, &mut off, &mut scope)?;
        let top = b.level();
        b.scopes[top] = scope;
        let recheck = select::bind_where(b, where_clause)?;
        let sets = if delete {
            Vec::new()
        } else {
            bind_sets(b, &**table, set_list, &|n| column_of(table, n))?
        };
        // UPDATE / DELETE; SELECT too when the statement reads the row's
        // values (WHERE, RETURNING, SET expressions over its columns), as
        // PostgreSQL requires.
        let width = table.columns.len();
        let reads = where_clause.is_some()
            || !returning.is_empty()
            || sets.iter().any(|(_, e)| reads_row(e, width));
        let privs = match (delete, reads) {
            (true, r) => acl::DELETE | if r { acl::SELECT } else { 0 },
            (false, r) => acl::UPDATE | if r { acl::SELECT } else { 0 },
        };
        // A descendant's need locks it; only the named table is checked.
        match parent {
            Some(_) => b.need_lock_only(table.oid.0, &table.name, privs),
            None => b.need_by_columns(ObjKind::Table, table.oid.0, &table.name, privs),
        };
        let set_cols: Vec<usize> = sets.iter().map(|(c, _)| *c).collect();
        b.mark_written(perm, &attnums(&set_cols), false);
        let bind_list = |b: &mut Binder| match parent {
            Some(p) if !same_layout(p, table) => {
                let list = star_in_order(returning, &alias, p, extra_from.is_empty());
                let saved = b.whole_row_as.replace((alias.clone(), p.clone()));
                let bound = bind_returning(b, &list);
                b.whole_row_as = saved;
                bound
            }
            _ => bind_returning(b, returning),
        };
        let mut returning_plan = bind_list(b)?;
        // A row this UPDATE moves out of `table` (a partition of the
        // named, partitioned table) lands in another leaf, whose OID its
        // RETURNING `tableoid` must read (see `Returning::moved`).
        let movable = !delete && parent.is_some_and(|p| p.partition_key.is_some());
        if let Some(r) = returning_plan.as_mut().filter(|_| movable) {
            let scope = b.scopes.last_mut().expect("the UPDATE's scope");
            scope.cols.push(tableoid_col(&alias, table.oid.0));
            let again = bind_list(b);
            b.scopes.last_mut().expect("the UPDATE's scope").cols.pop();
            r.moved = again?.map(|m| m.exprs);
        }
        let returning = returning_plan;
        let mut checks = if delete {
            Vec::new()
        } else {
            bind_checks(b.catalog, b.eval, table)?
        };
        // Row-level security: the named table's policies (a descendant's
        // rows are its ancestor's), bound over this table's row.
        let mut recheck = recheck;
        let mut secured = None;
        let named = parent.unwrap_or(table);
        if let Some(role) = select::rls::applies(b, named)? {
            let cmd = if delete {
                PolicyCmd::Delete
            } else {
                PolicyCmd::Update
            };
            let mut quals = select::rls::security_quals(b, named, table, cmd, role)?;
            if reads {
                quals.extend(select::rls::security_quals(
                    b,
                    named,
                    table,
                    PolicyCmd::Select,
                    role,
                )?);
            }
            if !delete {
                let rls = &select::rls::NewRows {
                    role,
                    kind: crate::ir::CheckKind::NewRow,
                };
                checks.extend(rls.checks(b, named, table, PolicyCmd::Update, false)?);
                if reads {
                    checks.extend(rls.checks(b, named, table, PolicyCmd::Select, true)?);
                }
            }
            tree.set_security(quals.clone());
            secured = Some(quals);
        }
        // The statement's own conditions: the policies' are in the scan.
        let conj = recheck.clone().map(conjuncts).unwrap_or_default();
        // EvalPlanQual re-checks both.
        if let Some(quals) = secured {
            recheck = select::and_all(quals.into_iter().chain(recheck).collect());
        }
        let (plan, rest) = select::build(b, tree, conj, None)?;
        let input = select::with_filter(plan, rest);
        Ok(ModifyPlan {
            table: table.clone(),
            offset: 0,
            input,
            recheck,
            sets,
            checks,
            returning,
            delete,
            view_checks: Vec::new(),
            children: Vec::new(),
            part_check: None,
            reroute: None,
            members: None,
        })
    })();
    b.scopes.pop();
    b.outer_refs.pop();
    r
}

/// Writing through a view to a table whose row-level security applies
/// is left out (0A000).
fn refuse_rls_through_view(
    b: &Binder,
    v: &nestor_catalog::ViewDef,
    command: &str,
) -> Result<(), DbError> {
    let mut tables = Vec::new();
    for d in &v.depends_on {
        if let Some(t) = b.catalog.table_by_oid(*d) {
            tables.push(t);
        }
    }
    let mut probe = Binder::new(b.catalog, b.eval, "", &[], select::plan_query);
    probe.perm_as = select::view_checked_as(b, v);
    for t in tables {
        if select::rls::applies(&probe, &t)?.is_some() {
            return Err(DbError::unsupported(format!(
                "{command} through view \"{}\" on a table with row-level security",
                v.name
            )));
        }
    }
    Ok(())
}

/// UPDATE or DELETE through an automatically updatable view. The
/// statement binds over the base table's row: a view column that is a
/// base column names that position (so correlated subqueries and
/// UPDATE ... FROM / DELETE ... USING see the row as for a table), the
/// other view columns are virtual positions after the FROM items,
/// replaced by their expressions over the base row once bound. The views'
/// conditions join the WHERE clause (and its EvalPlanQual re-check).
#[allow(clippy::too_many_arguments)]
fn plan_modify_view(
    b: &mut Binder,
    rv: &pb::RangeVar,
    v: &Arc<nestor_catalog::ViewDef>,
    extra_from: &[Node],
    where_clause: Option<&Node>,
    set_list: &[Node],
    returning: &[Node],
    delete: bool,
) -> Result<ModifyPlan, DbError> {
    if !extra_from.is_empty() && !returning.is_empty() {
        return Err(DbError::unsupported(if delete {
            "DELETE ... USING ... RETURNING on a view"
        } else {
            "UPDATE ... FROM ... RETURNING on a view"
        }));
    }
    let (kind, write) = if delete {
        (WriteKind::Delete, acl::DELETE)
    } else {
        (WriteKind::Update, acl::UPDATE)
    };
    refuse_instead(v, kind)?;
    refuse_rls_through_view(b, v, kind.command())?;
    let mut privs = write;
    if where_clause.is_some() || !returning.is_empty() {
        privs |= acl::SELECT;
    }
    let vt = view_write::resolve(b, v, kind, privs)?;
    let table = vt.table.clone();
    // A partitioned table is read whole (its leaves' rows in its layout,
    // `Members` writing each in its leaf).
    let family = match table.partition_key {
        Some(_) => select::inherit::family(b, &table, true),
        None => None,
    };
    // A read-only column assigned: PostgreSQL's rewriter error (no cursor).
    for t in set_list {
        if let NodeEnum::ResTarget(rt) = node(t)? {
            if let Some(i) = vt.column(&rt.name) {
                vt.writable(i, kind)?;
            }
        }
    }
    let alias = bind::alias_or(rv, &v.name);
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    let r = (|| -> Result<ModifyPlan, DbError> {
        let mut base_scope = Scope::default();
        let mut off = 0;
        let mut tree = match &family {
            Some(members) => {
                select::inherit::add_family(&table, members, &alias, &[], &mut off, &mut base_scope)
            }
            None => select::add_table(table.clone(), &alias, &[], &mut off, &mut base_scope),
        };
        // The base row's positions, named by the view columns that are
        // plain references to them (the first one each); the rest are
        // unreachable.
        let mut scope = Scope::default();
        let mut namer: Vec<Option<usize>> = vec![None; base_scope.width()];
        let mut virtual_cols = Vec::new();
        for (i, c) in vt.cols.iter().enumerate() {
            match c.expr {
                Expr::Col(j) if namer[j].is_none() => namer[j] = Some(i),
                _ => virtual_cols.push(i),
            }
        }
        for (j, mut sc) in base_scope.cols.into_iter().enumerate() {
            match namer[j] {
                Some(i) => {
                    sc.name = vt.cols[i].name.clone();
                    sc.hidden = false;
                }
                None => {
                    sc.name = "\u{0}".to_string();
                    sc.hidden = true;
                }
            }
            scope.cols.push(sc);
        }
        tree = join_extra_from(b, tree, extra_from, &mut off, &mut scope)?;
        let virtual_start = scope.width();
        for &i in &virtual_cols {
            let c = &vt.cols[i];
            scope.cols.push(bind::ScopeCol {
                perm: None,
                rel: alias.clone(),
                name: c.name.clone(),
                ty: c.ty,
                hidden: false,
                table_oid: vt.view.oid.0,
                attnum: 0,
                merged: false,
                scalar_fn: false,
                subst: None,
                using_cast: None,
            });
        }
        let top = b.level();
        b.scopes[top] = scope;
        b.agg = AggCtx::NotAllowed("WHERE");
        let filter = match where_clause {
            Some(w) => Some(b.bind_bool(w, "WHERE")?),
            None => None,
        };
        let sets = if delete {
            Vec::new()
        } else {
            let col_of = |n: &str| -> Result<usize, DbError> {
                let i = vt.column(n).ok_or_else(|| {
                    DbError::new(
                        SqlState::UndefinedColumn,
                        format!("column \"{n}\" of relation \"{}\" does not exist", v.name),
                    )
                })?;
                vt.writable(i, kind)
            };
            bind_sets(b, &ViewBase::for_update(&vt), set_list, &col_of)?
        };
        // Virtual positions become their expressions over the base row. A
        // correlated subquery reads the row by position, so it cannot see
        // a virtual one.
        let devirtualize = |e: Expr| -> Result<Expr, DbError> {
            if virtual_cols.is_empty() {
                return Ok(e);
            }
            if e.has_correlated_subquery() {
                return Err(DbError::unsupported(
                    "a correlated subquery in a statement writing through a view with computed columns",
                ));
            }
            e.rewrite(&mut |x| {
                Ok(match x {
                    Expr::Col(p) if *p >= virtual_start => {
                        Some(vt.cols[virtual_cols[*p - virtual_start]].expr.clone())
                    }
                    _ => None,
                })
            })
        };
        let filter = filter.map(devirtualize).transpose()?;
        let sets = sets
            .into_iter()
            .map(|(c, e)| Ok((c, devirtualize(e)?)))
            .collect::<Result<Vec<_>, DbError>>()?;
        let width = table.columns.len();
        if privs & acl::SELECT == 0
            && sets
                .iter()
                .any(|(_, e)| e.columns().iter().any(|&c| c < width))
        {
            // SET expressions read the row: SELECT on every level too.
            privs |= acl::SELECT;
            view_write::resolve(b, v, kind, privs)?;
        }
        let view_perm = view_need(b, v, privs);
        if !delete {
            let mut written = Vec::new();
            for t in set_list {
                if let NodeEnum::ResTarget(rt) = node(t)? {
                    written.extend(vt.column(&rt.name));
                }
            }
            b.mark_written(view_perm, &attnums(&written), false);
            if let Some(p) = vt.table_perm {
                let set_cols: Vec<usize> = sets.iter().map(|(c, _)| *c).collect();
                b.mark_written(p, &attnums(&set_cols), false);
            }
        }
        let mut conj: Vec<Expr> = filter.into_iter().flat_map(conjuncts).collect();
        conj.extend(vt.conds.iter().cloned().flat_map(conjuncts));
        let recheck = match conj.len() {
            0 => None,
            1 => Some(conj[0].clone()),
            _ => Some(Expr::And(conj.clone())),
        };
        let (plan, rest) = select::build(b, tree, conj, None)?;
        let input = select::with_filter(plan, rest);
        Ok(ModifyPlan {
            table: table.clone(),
            offset: 0,
            input,
            recheck,
            sets,
            checks: Vec::new(),
            returning: None,
            delete,
            view_checks: Vec::new(),
            children: Vec::new(),
            part_check: None,
            reroute: None,
            members: None,
        })
    })();
    b.scopes.pop();
    b.outer_refs.pop();
    let mut plan = r?;
    plan.returning = bind_view_returning(b, &vt, &alias, returning)?;
    if !delete {
        plan.checks = bind_checks(b.catalog, b.eval, &table)?;
        plan.view_checks = vt.checks;
    }
    if let Some(family) = &family {
        let members = Members::build(b, &table, family, write, &mut |b, m| {
            if delete {
                Ok(Vec::new())
            } else {
                bind_checks(b.catalog, b.eval, m)
            }
        })?;
        plan.members = Some(Arc::new(members));
    }
    Ok(plan)
}

pub(crate) fn plan_update(b: &mut Binder, u: &pb::UpdateStmt) -> Result<ModifyPlan, DbError> {
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
    /// COPY FROM ... WHERE: bound over the table row (then the system
    /// columns); a row it is not true for is skipped.
    pub filter: Option<Expr>,
    /// A partitioned table: how rows reach its leaves.
    pub route: Option<Arc<Routing>>,
    /// A partition: the constraint its rows must meet.
    pub part_check: Option<PartCheck>,
}

/// COPY FROM into a table whose row-level security applies to the
/// current role: PostgreSQL's 0A000 (after the privilege check).
pub fn refuse_copy_from_rls(catalog: &Catalog, eval: EvalCtx, t: &TableDef) -> Result<(), DbError> {
    let probe = Binder::new(catalog, eval, "", &[], select::plan_query);
    if select::rls::applies(&probe, t)?.is_some() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "COPY FROM not supported with row-level security",
        )
        .with_hint("Use INSERT statements instead."));
    }
    Ok(())
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
    // Generated columns are computed, never copied (PostgreSQL's
    // CopyGetAttnums leaves them out of the default list).
    let cols: Vec<usize> = if columns.is_empty() {
        t.live_columns()
            .filter(|(_, c)| !c.generated)
            .map(|(i, _)| i)
            .collect()
    } else {
        let cols: Vec<usize> = columns
            .iter()
            .map(|c| column_of(&t, c))
            .collect::<Result<_, _>>()?;
        if let Some(&g) = cols.iter().find(|&&c| t.columns[c].generated) {
            return Err(copy_generated_column(&t.columns[g].name));
        }
        cols
    };
    if let Some((i, _)) = cols
        .iter()
        .enumerate()
        .find(|(i, c)| cols[..*i].contains(c))
    {
        return Err(DbError::new(
            SqlState::DuplicateColumn,
            format!("column \"{}\" specified more than once", columns[i]),
        ));
    }
    let mut defaults = Vec::new();
    for (i, _) in t.live_columns() {
        if !cols.contains(&i) {
            if let Some(e) = bind_default(catalog, eval, &t, i)? {
                defaults.push((i, e));
            }
        }
    }
    let route =
        Routing::build(catalog, eval, &t, &|l| bind_checks(catalog, eval, l))?.map(Arc::new);
    let part_check = match route {
        Some(_) => None,
        None => PartCheck::of(catalog, eval, &t, None)?,
    };
    Ok(CopyTarget {
        filter: None,
        checks: bind_checks(catalog, eval, &t)?,
        route,
        part_check,
        defaults,
        types: cols.iter().map(|&c| t.columns[c].ty).collect(),
        names: cols.iter().map(|&c| t.columns[c].name.clone()).collect(),
        columns: cols,
        table: t,
    })
}

/// COPY naming a generated column (42P10).
pub fn copy_generated_column(name: &str) -> DbError {
    DbError::new(
        SqlState::InvalidColumnReference,
        format!("column \"{name}\" is a generated column"),
    )
    .with_detail("Generated columns cannot be used in COPY.")
}

/// COPY FROM's WHERE condition (`node`, in statement `text`) bound over
/// the table's row, with PostgreSQL's refusals: subqueries (0A000),
/// aggregates, set-returning and window functions.
pub fn bind_copy_where(
    catalog: &Catalog,
    eval: EvalCtx,
    text: &str,
    table: &Arc<TableDef>,
    node: &Node,
) -> Result<Expr, DbError> {
    let no_subquery = |n: &Node| {
        let at = bind::node(n).map_or(-1, nestor_parser::ast::expr_location);
        let e = DbError::new(
            SqlState::FeatureNotSupported,
            "cannot use subquery in COPY FROM WHERE condition",
        );
        nestor_parser::ast::err_at(e, text, at)
    };
    if matches!(bind::node(node), Ok(NodeEnum::SubLink(_))) {
        return Err(no_subquery(node));
    }
    let mut b = select::row_binder(catalog, eval, text, table);
    b.agg = AggCtx::NotAllowed("COPY FROM WHERE conditions");
    b.window = WinCtx::NotAllowed(
        "window functions are not allowed in COPY FROM WHERE conditions",
        SqlState::WindowingError,
    );
    let expr = b.bind_bool(node, "WHERE")?;
    let mut sub = false;
    expr.walk(&mut |x| sub |= matches!(x, Expr::Sub(_)));
    if sub {
        return Err(no_subquery(node));
    }
    // Evaluated before the row's generated columns are computed.
    let generated = expr
        .columns()
        .into_iter()
        .find(|&c| table.columns.get(c).is_some_and(|c| c.generated));
    if let Some(c) = generated {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "generated columns are not supported in COPY FROM WHERE conditions",
        )
        .with_detail(format!(
            "Column \"{}\" is a generated column.",
            table.columns[c].name
        )));
    }
    Ok(expr)
}

/// What a write into `table` needs of partitioning: the routing of a
/// partitioned table (its tree locked through needs of `privs`), or the
/// partition constraint of a partition. Nothing, at no cost, for any
/// other table.
pub(crate) fn partition_write(
    b: &mut Binder,
    table: &Arc<TableDef>,
    privs: u16,
) -> Result<(Option<Arc<Routing>>, Option<PartCheck>), DbError> {
    if table.partition_key.is_none() && table.partition_bound.is_none() {
        return Ok((None, None));
    }
    let Some(route) = Routing::build(b.catalog, b.eval, table, &|t| {
        bind_checks(b.catalog, b.eval, t)
    })?
    else {
        return Ok((None, PartCheck::of(b.catalog, b.eval, table, None)?));
    };
    for t in route.tables() {
        b.need_as_owner(&t, privs);
    }
    Ok((Some(Arc::new(route)), None))
}

/// UPDATE or DELETE through a partitioned table: only the leaves its
/// WHERE clause's `key = constant` conditions leave (PostgreSQL prunes
/// the result relations alike); the partitioned members hold no rows.
fn prune_modify(catalog: &Catalog, eval: EvalCtx, plan: &mut ModifyPlan) {
    let table = plan.table.clone();
    if table.partition_key.is_none() {
        return;
    }
    let conj = plan.recheck.clone().map(conjuncts).unwrap_or_default();
    let eq = crate::select::partition::eq_consts(&conj, plan.offset, table.columns.len());
    let keep = crate::select::partition::surviving(catalog, eval, &table, &eq);
    plan.children.retain(|c| keep.contains(&c.table.oid));
    // In PostgreSQL's order: a partitioned partition's leaves in its place.
    plan.children
        .sort_by_key(|c| keep.iter().position(|&o| o == c.table.oid));
}

// ----- stored expressions of the target table -------------------------------
pub use crate::ir::BoundCheck;

/// Bind column `col`'s DEFAULT expression (stored as SQL text), coerced to
/// the column's type; None when it has none.
pub(crate) fn bind_default(
    catalog: &Catalog,
    eval: EvalCtx,
    table: &TableDef,
    col: usize,
) -> Result<Option<Expr>, DbError> {
    let c = &table.columns[col];
    if c.generated {
        // Its value is computed as the row is written (`bind_generated`).
        return Ok(None);
    }
    // A column without a DEFAULT of its own takes its domain's.
    let domain_default = match (&c.default, c.domain) {
        (None, Some(d)) => nestor_types::domains::lookup(d)
            .and_then(|d| nestor_types::domains::effective_default(&d)),
        _ => None,
    };
    let Some(sql) = c.default.as_deref().or(domain_default.as_deref()) else {
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

/// Bind a table's stored generated columns' expressions over its row,
/// coerced to their columns' types (PostgreSQL's ExecInitStoredGenerated).
pub fn bind_generated(
    catalog: &Catalog,
    eval: EvalCtx,
    table: &Arc<TableDef>,
) -> Result<Vec<BoundCheck>, DbError> {
    let mut out = Vec::new();
    for (i, c) in table.live_columns() {
        let (true, Some(sql)) = (c.generated, c.default.as_deref()) else {
            continue;
        };
        let node = nestor_parser::parse_expr(sql)?;
        let mut b = select::row_binder(catalog, eval, sql, table);
        b.agg = AggCtx::NotAllowed("column generation expressions");
        let (e, t) = b.bind(&node)?;
        out.push(BoundCheck {
            name: String::new(),
            expr: b.coerce_assign(e, t, c.ty)?,
            domain: None,
            generated: Some(i),
            rls: None,
        });
    }
    Ok(out)
}

/// The columns of `def` a generated column's expression reads (by
/// position), or None for a column that is not generated.
pub fn generated_reads(
    catalog: &Catalog,
    eval: EvalCtx,
    def: &TableDef,
    col: usize,
) -> Result<Option<Vec<usize>>, DbError> {
    let c = &def.columns[col];
    let (true, Some(sql)) = (c.generated, c.default.as_deref()) else {
        return Ok(None);
    };
    let node = nestor_parser::parse_expr(sql)?;
    let table = Arc::new(def.clone());
    let mut b = select::row_binder(catalog, eval, sql, &table);
    let (e, _) = b.bind(&node)?;
    let mut cols = e.columns();
    cols.retain(|&i| i < def.columns.len());
    cols.sort_unstable();
    cols.dedup();
    Ok(Some(cols))
}

/// The generated columns of `def` whose expressions read column `col`
/// (what PostgreSQL's pg_depend would list; found by binding them).
pub fn generated_dependents(
    catalog: &Catalog,
    eval: EvalCtx,
    def: &TableDef,
    col: usize,
) -> Result<Vec<usize>, DbError> {
    let mut out = Vec::new();
    if !def.columns.iter().any(|c| c.generated && !c.dropped) {
        return Ok(out);
    }
    for (i, _) in def.live_columns() {
        if i != col && generated_reads(catalog, eval, def, i)?.is_some_and(|r| r.contains(&col)) {
            out.push(i);
        }
    }
    Ok(out)
}

/// Bind what every write of a table's rows computes and checks, in the
/// order it does: its stored generated columns, the constraints of its
/// domain columns, its CHECK constraints (stored as SQL text) over its row.
/// The check of column `i`'s domains inside its composite (or array of
/// composites, or domain over one): the Domain node raises the error,
/// named for `domain` (empty: none of the column's own).
fn contained_domains(i: usize, checks: crate::ir::DomainChecks, domain: String) -> BoundCheck {
    BoundCheck {
        name: String::new(),
        expr: Expr::Domain(Box::new(crate::ir::DomainCoerce {
            arg: Expr::Col(i),
            checks,
            at: None,
        })),
        domain: Some(domain),
        generated: None,
        rls: None,
    }
}

pub fn bind_checks(
    catalog: &Catalog,
    eval: EvalCtx,
    table: &Arc<TableDef>,
) -> Result<Vec<BoundCheck>, DbError> {
    let mut out = bind_generated(catalog, eval, table)?;
    for (i, c) in table.live_columns() {
        let Some(oid) = c.domain else {
            // A composite (or array of one) with attributes of domains:
            // the Domain node raises the error.
            if let Some(checks) =
                bind::domain::contained_checks(catalog, eval, select::plan_query, c.ty)?
            {
                out.push(contained_domains(i, checks, String::new()));
            }
            continue;
        };
        if let Some(def) = nestor_types::domains::lookup_array(oid) {
            // An array of the domain: the Domain node raises the error.
            let checks =
                bind::domain::bind_domain_checks(catalog, eval, select::plan_query, &def, 1, 0)?;
            out.push(BoundCheck {
                name: String::new(),
                expr: bind::domain::domain_array_check(Expr::Col(i), checks),
                domain: Some(def.name.clone()),
                generated: None,
                rls: None,
            });
            continue;
        }
        let Some(def) = nestor_types::domains::lookup(oid) else {
            continue;
        };
        let (d, parts) = bind::domain::split_parts(bind::domain::bind_domain_checks(
            catalog,
            eval,
            select::plan_query,
            &def,
            table.columns.len(),
            i,
        )?);
        if let Some(checks) = parts {
            // The domains inside a domain over a composite, first.
            out.push(contained_domains(i, checks, d.domain.clone()));
        }
        if d.not_null {
            out.push(BoundCheck {
                name: String::new(),
                expr: Expr::IsNull(Box::new(Expr::Col(i)), true),
                domain: Some(d.domain.clone()),
                generated: None,
                rls: None,
            });
        }
        for (name, expr) in d.checks {
            out.push(BoundCheck {
                name,
                expr,
                domain: Some(d.domain.clone()),
                generated: None,
                rls: None,
            });
        }
    }
    for ch in &table.checks {
        let node = nestor_parser::parse_expr(&ch.expr)?;
        let mut b = select::row_binder(catalog, eval, &ch.expr, table);
        b.agg = AggCtx::NotAllowed("check constraints");
        let expr = b.bind_bool(&node, "CHECK")?;
        out.push(BoundCheck {
            name: ch.name.clone(),
            expr,
            domain: None,
            generated: None,
            rls: None,
        });
    }
    Ok(out)
}
