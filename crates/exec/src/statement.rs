//! Prepared statements of the query engine: planned once, executed many
//! times.
//!
//! A [`Prepared`] keeps its source (text and parse tree) next to the plan.
//! Plans depend on the catalog (table definitions, indexes), so each
//! carries the catalog version it was made at; an execution that finds the
//! catalog changed re-plans first (as PostgreSQL invalidates cached plans),
//! and fails with 0A000 `cached plan must not change result type` if the
//! result columns changed. DDL has no plan: it runs from its parse tree.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_parser::pb::RawStmt;
use nestor_parser::NodeEnum;
use nestor_plan::perm::Perm;
use nestor_plan::statement::{locks_rows, statement_node};
use nestor_plan::{explain, plan_statement, OutCol, PlannedStmt};
use nestor_txn::LockMode;
use nestor_types::{EvalCtx, Value};
use parking_lot::RwLock;

use crate::context::Ev;
use crate::context::{ColumnDesc, RowSink, StatementCtx};
use crate::tag::{CommandTag, RowsCommand};
use nestor_catalog::Catalog;

/// A planned statement, produced once by [`prepare`].
pub struct Prepared {
    /// Parameter type OIDs ($1..$n), inferred where the client gave 0.
    pub param_types: Vec<u32>,
    /// Result columns, or None for a statement that returns no rows
    /// (INSERT without RETURNING, DDL).
    pub columns: Option<Vec<ColumnDesc>>,
    text: Arc<str>,
    stmt: RawStmt,
    /// (catalog version, plan made at it, the privileges it needs).
    current: RwLock<(u64, Arc<PlannedStmt>, Arc<[Perm]>)>,
    /// (catalog version, role OID) whose privilege check last passed: the
    /// same role at the same version passes again without looking (GRANT,
    /// REVOKE, OWNER TO and role changes all bump the version).
    perms_passed: parking_lot::Mutex<(u64, u32)>,
    /// Its pg_stat_statements identity, from its first execution on.
    stat_id: std::sync::OnceLock<Arc<crate::stat_statements::QueryId>>,
}

impl Prepared {
    /// Whether a query could run backward as PostgreSQL would plan it
    /// (`Plan::supports_backward_scan`; false for anything but a query).
    pub fn supports_backward_scan(&self) -> bool {
        match &*self.current.read().1 {
            PlannedStmt::Query(plan) => plan.supports_backward_scan(),
            _ => false,
        }
    }

    /// The privileges the plan made at prepare time needs (with the
    /// columns it reads: what a view records it depends on).
    pub(crate) fn perms(&self) -> Arc<[Perm]> {
        self.current.read().2.clone()
    }
}

#[cfg(test)]
impl Prepared {
    /// The plan made at prepare time.
    pub(crate) fn plan_for_tests(&self) -> Arc<PlannedStmt> {
        self.current.read().1.clone()
    }
}

fn describe(cols: &[OutCol]) -> Vec<ColumnDesc> {
    cols.iter()
        .map(|c| ColumnDesc {
            name: c.name.clone(),
            type_oid: c.ty.oid(),
            type_size: c.ty.typlen(),
            type_modifier: c.ty.typmod(),
            table_oid: c.table_oid,
            column_id: c.column_id,
        })
        .collect()
}

/// Plan one statement. `text` is the full query string the statement was
/// parsed from (its locations index into it), `hints` the client's
/// parameter type OIDs (0 = infer).
pub fn prepare(
    catalog: &Catalog,
    eval: EvalCtx,
    text: &str,
    stmt: &RawStmt,
    hints: &[u32],
) -> Result<Prepared, DbError> {
    let version = catalog.version();
    let rewritten = select_into(stmt);
    let stmt = rewritten.as_ref().unwrap_or(stmt);
    let in_temp = temp_schema(stmt);
    let stmt = in_temp.as_ref().unwrap_or(stmt);
    let planned = plan_statement(catalog, eval, text, stmt, hints)?;
    let param_types = planned.params.iter().map(|t| t.oid()).collect();
    Ok(Prepared {
        param_types,
        columns: planned.columns.as_deref().map(describe),
        text: Arc::from(text),
        stmt: stmt.clone(),
        current: RwLock::new((version, Arc::new(planned.stmt), planned.perms.into())),
        perms_passed: parking_lot::Mutex::new((0, 0)),
        stat_id: std::sync::OnceLock::new(),
    })
}

/// `SELECT ... INTO t FROM ...` is CREATE TABLE t AS SELECT ... (PostgreSQL
/// turns it into one during parse analysis).
fn select_into(stmt: &RawStmt) -> Option<RawStmt> {
    let Some(NodeEnum::SelectStmt(sel)) = stmt.stmt.as_ref()?.node.as_ref() else {
        return None;
    };
    // The INTO of a set operation is its leftmost SELECT's.
    let mut query = sel.clone();
    let mut leaf = &mut *query;
    while leaf.into_clause.is_none() {
        match leaf.larg.as_deref_mut() {
            Some(l) if leaf.op > 1 => leaf = l,
            _ => return None,
        }
    }
    let into = leaf.into_clause.take()?;
    let cta = nestor_parser::pb::CreateTableAsStmt {
        query: Some(Box::new(nestor_parser::pb::Node {
            node: Some(NodeEnum::SelectStmt(query)),
        })),
        into: Some(into),
        objtype: nestor_parser::pb::ObjectType::ObjectTable as i32,
        is_select_into: true,
        if_not_exists: false,
    };
    Some(RawStmt {
        stmt: Some(Box::new(nestor_parser::pb::Node {
            node: Some(NodeEnum::CreateTableAsStmt(Box::new(cta))),
        })),
        stmt_location: stmt.stmt_location,
        stmt_len: stmt.stmt_len,
    })
}

/// A relation created in `pg_temp` without TEMP is temporary, as
/// PostgreSQL's RangeVarAdjustRelationPersistence makes it (CREATE TABLE,
/// CREATE TABLE AS, CREATE VIEW, CREATE SEQUENCE); an UNLOGGED one there
/// is refused where the namespace is chosen.
fn temp_schema(stmt: &RawStmt) -> Option<RawStmt> {
    use nestor_parser::pb::RangeVar;
    fn adjust(rv: Option<&mut RangeVar>) -> bool {
        match rv {
            Some(rv) if rv.schemaname == "pg_temp" && rv.relpersistence == "p" => {
                rv.relpersistence = "t".into();
                true
            }
            _ => false,
        }
    }
    let mut out = stmt.clone();
    let changed = match out.stmt.as_mut()?.node.as_mut()? {
        NodeEnum::CreateStmt(cs) => adjust(cs.relation.as_mut()),
        NodeEnum::CreateTableAsStmt(cta) => adjust(cta.into.as_mut()?.rel.as_mut()),
        NodeEnum::ViewStmt(vs) => adjust(vs.view.as_mut()),
        NodeEnum::CreateSeqStmt(cs) => adjust(cs.sequence.as_mut()),
        _ => false,
    };
    changed.then_some(out)
}

/// [`prepare`] for a statement a PL/pgSQL body runs: names of its
/// variables bind as parameters through `vars`.
pub(crate) fn prepare_with(
    catalog: &Catalog,
    eval: EvalCtx,
    text: &str,
    stmt: &RawStmt,
    hints: &[u32],
    vars: &dyn nestor_plan::bind::VarResolver,
) -> Result<Prepared, DbError> {
    let version = catalog.version();
    let in_temp = temp_schema(stmt);
    let stmt = in_temp.as_ref().unwrap_or(stmt);
    let planned =
        nestor_plan::statement::plan_statement_with(catalog, eval, text, stmt, hints, Some(vars))?;
    let param_types = planned.params.iter().map(|t| t.oid()).collect();
    Ok(Prepared {
        param_types,
        columns: planned.columns.as_deref().map(describe),
        text: Arc::from(text),
        stmt: stmt.clone(),
        current: RwLock::new((version, Arc::new(planned.stmt), planned.perms.into())),
        perms_passed: parking_lot::Mutex::new((0, 0)),
        stat_id: std::sync::OnceLock::new(),
    })
}

impl Prepared {
    /// The query string it was prepared from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its statement's (location, length) in [`Prepared::text`].
    pub fn location(&self) -> (i32, i32) {
        (self.stmt.stmt_location, self.stmt.stmt_len)
    }

    /// Its pg_stat_statements identity: computed (through the store's
    /// cache of texts) at the first call, kept after. A statement
    /// PostgreSQL counts as utility (DDL, CALL, DO, EXPLAIN, CREATE TABLE
    /// AS: all but SELECT, INSERT, UPDATE, DELETE, MERGE) gets the identity
    /// of its exact text, as PostgreSQL 15 gives utility statements.
    pub fn stat_id(
        &self,
        store: &crate::stat_statements::StatStatements,
    ) -> &Arc<crate::stat_statements::QueryId> {
        self.stat_id.get_or_init(|| {
            let text = crate::stat_statements::statement_text(
                &self.text,
                self.stmt.stmt_location,
                self.stmt.stmt_len,
            );
            let mut node = self.stmt.stmt.as_ref().and_then(|n| n.node.as_ref());
            // SQL EXECUTE counts under its PREPARE's text: the prepared
            // query decides.
            if let Some(NodeEnum::PrepareStmt(p)) = node {
                node = p.query.as_ref().and_then(|n| n.node.as_ref());
            }
            let optimizable = matches!(
                node,
                Some(
                    NodeEnum::SelectStmt(_)
                        | NodeEnum::InsertStmt(_)
                        | NodeEnum::UpdateStmt(_)
                        | NodeEnum::DeleteStmt(_)
                        | NodeEnum::MergeStmt(_)
                )
            );
            if optimizable {
                store.identify(text)
            } else {
                store.identify_utility(text)
            }
        })
    }

    /// The plan as it stands.
    pub(crate) fn plan_snapshot(&self) -> Arc<PlannedStmt> {
        self.current.read().1.clone()
    }
}

/// Rows an internal statement returns: none are kept.
struct Discard;

impl RowSink for Discard {
    fn row(&mut self, _: Vec<Value>) -> Result<(), DbError> {
        Ok(())
    }
}

/// Parse, plan and run one internal statement (crate::ROUTINES.run_sql).
pub(crate) fn run_internal(
    ctx: &mut StatementCtx<'_>,
    sql: &str,
    params: &[Value],
    types: &[u32],
) -> Result<(), DbError> {
    let stmts = nestor_parser::parse_sql(sql)?;
    let stmt = stmts
        .first()
        .ok_or_else(|| DbError::internal("empty internal statement"))?;
    let prepared = prepare(ctx.catalog, ctx.eval, sql, stmt, types)?;
    execute(ctx, &prepared, params, &mut Discard)?;
    Ok(())
}

/// Run one query given as SQL text and collect its rows
/// (`Routines::query_rows`).
pub(crate) fn query_rows(
    ctx: &mut StatementCtx<'_>,
    sql: &str,
) -> Result<Vec<Vec<Value>>, DbError> {
    let stmts = nestor_parser::parse_sql(sql)?;
    let stmt = stmts
        .first()
        .ok_or_else(|| DbError::internal("empty internal query"))?;
    let prepared = prepare(ctx.catalog, ctx.eval, sql, stmt, &[])?;
    let mut rows: Vec<Vec<Value>> = Vec::new();
    execute(ctx, &prepared, &[], &mut rows)?;
    Ok(rows)
}

/// The output columns of a query (`Routines::describe`): 42P18-style
/// errors for a statement that returns no rows are the caller's.
pub(crate) fn describe_query(
    ctx: &StatementCtx<'_>,
    text: &str,
    raw: &RawStmt,
) -> Result<Vec<ColumnDesc>, DbError> {
    describe_query_needs(ctx, text, raw).map(|(cols, _)| cols)
}

/// [`describe_query`] with the privileges the query needs (the columns
/// of each relation it reads).
pub(crate) fn describe_query_needs(
    ctx: &StatementCtx<'_>,
    text: &str,
    raw: &RawStmt,
) -> Result<(Vec<ColumnDesc>, Arc<[Perm]>), DbError> {
    let prepared = prepare(ctx.catalog, ctx.eval, text, raw, &[])?;
    if !prepared.param_types.is_empty() {
        return Err(DbError::new(
            SqlState::UndefinedParameter,
            "there is no parameter $1",
        ));
    }
    let perms = prepared.perms();
    let cols = prepared
        .columns
        .ok_or_else(|| DbError::internal("the query returns no rows"))?;
    Ok((cols, perms))
}

/// Plan and run one statement, discarding rows (`Routines::run_raw`).
pub(crate) fn run_raw(
    ctx: &mut StatementCtx<'_>,
    text: &str,
    raw: &RawStmt,
) -> Result<CommandTag, DbError> {
    let prepared = prepare(ctx.catalog, ctx.eval, text, raw, &[])?;
    execute(ctx, &prepared, &[], &mut Discard)
}

/// Execute a prepared statement with the values of $1..$n (in the types of
/// `prepared.param_types`); rows go to `sink`.
pub fn execute(
    ctx: &mut StatementCtx<'_>,
    prepared: &Prepared,
    params: &[Value],
    sink: &mut dyn RowSink,
) -> Result<CommandTag, DbError> {
    let (mut plan, mut perms, mut made_at) = current_plan(ctx, prepared, sink)?;
    // Lock what the plan uses; a plan made before a concurrent schema
    // change committed (or rolled back) is made again, and its relations
    // locked (see crate::relation_lock).
    let mut waited = false;
    for _ in 0..nestor_common::limits::REPLAN_AFTER_LOCK_MAX {
        waited |= crate::relation_lock::lock_plan(ctx, &plan, &perms)?;
        if ctx.catalog.version() == made_at {
            break;
        }
        (plan, perms, made_at) = current_plan(ctx, prepared, sink)?;
    }
    if waited {
        crate::relation_lock::refresh_snapshot(ctx);
    }
    if !ctx.role.superuser && !perms.is_empty() {
        let key = (ctx.catalog.version(), ctx.role.oid.0);
        if *prepared.perms_passed.lock() != key {
            crate::privilege::check_all(ctx, &perms, &prepared.text)?;
            *prepared.perms_passed.lock() = key;
        }
    }
    match plan.as_ref() {
        PlannedStmt::Ddl => execute_ddl(ctx, prepared),
        stmt => execute_planned(stmt, &mut Ev::new(ctx, params), sink),
    }
}

/// [`execute`] for a statement a function runs (PL/pgSQL, SQL functions):
/// with `pg_stat_statements.track = all` it is timed and counted under
/// an entry with `toplevel` false, as PostgreSQL counts nested statements;
/// otherwise this is one test of the setting more than [`execute`].
pub(crate) fn execute_nested(
    ctx: &mut StatementCtx<'_>,
    prepared: &Prepared,
    params: &[Value],
    sink: &mut dyn RowSink,
) -> Result<CommandTag, DbError> {
    if !ctx.settings.track_nested {
        return execute(ctx, prepared, params, sink);
    }
    let start = std::time::Instant::now();
    let tag = execute(ctx, prepared, params, sink)?;
    let store = &ctx.db.stat_statements;
    let id = prepared.stat_id(store);
    if ctx.settings.track_utility || !id.utility {
        store.record(
            id,
            crate::stat_statements::Call {
                userid: ctx.role.oid.0,
                dbid: ctx.catalog.database_oid(),
                toplevel: false,
                elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
                rows: tag.rows(),
                savepoints: 0,
            },
        );
    }
    Ok(tag)
}

/// A plan, its privilege list and the catalog version it was made at.
type PlanAndPerms = (Arc<PlannedStmt>, Arc<[Perm]>, u64);

/// The plan for the current catalog version, made again if the catalog
/// moved. A plan whose result columns changed is handed to `sink` (which
/// may refuse) and not kept: the statement's described columns stay what
/// they were.
fn current_plan(
    ctx: &StatementCtx,
    p: &Prepared,
    sink: &mut dyn RowSink,
) -> Result<PlanAndPerms, DbError> {
    let version = ctx.catalog.version();
    {
        let cur = p.current.read();
        if cur.0 == version || matches!(cur.1.as_ref(), PlannedStmt::Ddl) {
            return Ok((cur.1.clone(), cur.2.clone(), version));
        }
    }
    let planned = plan_statement(ctx.catalog, ctx.eval, &p.text, &p.stmt, &p.param_types)?;
    let columns = planned.columns.as_deref().map(describe);
    let plan = Arc::new(planned.stmt);
    let perms: Arc<[Perm]> = planned.perms.into();
    if !same_result(columns.as_deref(), p.columns.as_deref()) {
        sink.columns_changed(columns.as_deref().unwrap_or_default())?;
    } else {
        *p.current.write() = (version, plan.clone(), perms.clone());
    }
    Ok((plan, perms, version))
}

/// Whether a plan made again returns what the statement was described
/// with: the same column names and types (the table a column comes from
/// may differ, as when search_path now finds another table of the same
/// shape; PostgreSQL compares the tuple descriptors the same way).
fn same_result(a: Option<&[ColumnDesc]>, b: Option<&[ColumnDesc]>) -> bool {
    let shape = |c: &ColumnDesc| (c.name.clone(), c.type_oid, c.type_size, c.type_modifier);
    match (a, b) {
        (Some(a), Some(b)) => a.len() == b.len() && a.iter().map(shape).eq(b.iter().map(shape)),
        (None, None) => true,
        _ => false,
    }
}

fn read_only_check(ev: &Ev, what: &str) -> Result<(), DbError> {
    if ev.ctx.read_only {
        return Err(read_only_error(what));
    }
    Ok(())
}

/// [`read_only_check`] for a statement writing rows of `stmt`: writes to
/// temporary tables only are allowed in a read-only transaction, as in
/// PostgreSQL (ExecCheckXactReadOnly: they are invisible to every other
/// session, and a replica's sessions have their own).
fn write_check(ev: &Ev, stmt: &PlannedStmt, what: &str) -> Result<(), DbError> {
    if writes_temp_only(stmt) {
        return Ok(());
    }
    read_only_check(ev, what)
}

/// Whether every table `stmt` writes is temporary (a query writes none).
fn writes_temp_only(stmt: &PlannedStmt) -> bool {
    use nestor_plan::with_modify::WriteStmt;
    let temp =
        |t: &nestor_catalog::TableDef| t.persistence == nestor_catalog::Persistence::Temporary;
    match stmt {
        PlannedStmt::Query(plan) => {
            locks_rows(plan).is_none() || nestor_plan::statement::locks_only_temp(plan)
        }
        PlannedStmt::Insert(p) => temp(&p.table),
        PlannedStmt::Modify(p) => temp(&p.table),
        PlannedStmt::Merge(p) => temp(&p.table),
        PlannedStmt::With { writes, main } => {
            writes.iter().all(|w| match &w.stmt {
                WriteStmt::Insert(p) => temp(&p.table),
                WriteStmt::Modify(p) => temp(&p.table),
                WriteStmt::Instead(_) => false,
            }) && writes_temp_only(main)
        }
        _ => false,
    }
}

fn read_only_error(what: &str) -> DbError {
    DbError::new(
        SqlState::ReadOnlySqlTransaction,
        format!("cannot execute {what} in a read-only transaction"),
    )
}

fn execute_planned(
    stmt: &PlannedStmt,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<CommandTag, DbError> {
    match stmt {
        PlannedStmt::Query(plan) => {
            if let Some(mode) = locks_rows(plan) {
                // PostgreSQL names the clause: "cannot execute SELECT FOR
                // SHARE in a read-only transaction".
                let what = match mode {
                    LockMode::KeyShare => "SELECT FOR KEY SHARE",
                    LockMode::Share => "SELECT FOR SHARE",
                    LockMode::NoKeyUpdate => "SELECT FOR NO KEY UPDATE",
                    LockMode::Update | LockMode::Table(_) => "SELECT FOR UPDATE",
                };
                write_check(ev, stmt, what)?;
            }
            let mut n: u64 = 0;
            crate::executor::run(plan, ev, &[], &mut |_, row| {
                n += 1;
                sink.row(row)?;
                Ok(true)
            })?;
            Ok(CommandTag::Rows(RowsCommand::Select, n))
        }
        PlannedStmt::Insert(p) => {
            write_check(ev, stmt, "INSERT")?;
            let n = crate::modify::exec_insert(p, ev, sink)?;
            Ok(CommandTag::Rows(RowsCommand::Insert, n))
        }
        PlannedStmt::Modify(p) => {
            let (what, cmd) = if p.delete {
                ("DELETE", RowsCommand::Delete)
            } else {
                ("UPDATE", RowsCommand::Update)
            };
            write_check(ev, stmt, what)?;
            let n = crate::members::exec_modify(p, ev, sink)?;
            Ok(CommandTag::Rows(cmd, n))
        }
        PlannedStmt::Instead(p) => {
            let cmd = match p.kind {
                nestor_plan::view_write::WriteKind::Insert => RowsCommand::Insert,
                nestor_plan::view_write::WriteKind::Update => RowsCommand::Update,
                nestor_plan::view_write::WriteKind::Delete => RowsCommand::Delete,
            };
            read_only_check(ev, p.kind.command())?;
            let n = crate::modify::exec_instead(p, ev, sink)?;
            Ok(CommandTag::Rows(cmd, n))
        }
        PlannedStmt::Merge(p) => {
            write_check(ev, stmt, "MERGE")?;
            let n = crate::merge::exec_merge(p, ev, sink)?;
            Ok(CommandTag::Rows(RowsCommand::Merge, n))
        }
        PlannedStmt::Explain {
            inner,
            analyze,
            json,
        } => explain_statement(inner, *analyze, *json, ev, sink),
        PlannedStmt::Call { def, args } => {
            use crate::executor::eval::Eval;
            // One bound argument per procedure argument; OUT ones are
            // evaluated (as PostgreSQL does) but not passed.
            let mut vals = Vec::with_capacity(args.len());
            for (a, e) in def.args.iter().zip(args) {
                let v = e.eval(&[], ev)?;
                if a.mode.is_input() {
                    vals.push(v);
                }
            }
            let outputs = def.args.iter().any(|a| a.mode.is_output());
            match (crate::ROUTINES.call)(def, vals, ev.ctx)? {
                crate::context::Outcome::Rows(rows) if outputs => {
                    for r in rows {
                        sink.row(r)?;
                    }
                }
                crate::context::Outcome::Value(v) if outputs => sink.row(vec![v])?,
                _ => {}
            }
            Ok(CommandTag::Plain("CALL"))
        }
        PlannedStmt::With { writes, main } => {
            // PostgreSQL names the main statement: "cannot execute SELECT
            // in a read-only transaction".
            let what = main.command().unwrap_or("SELECT");
            write_check(ev, stmt, what)?;
            crate::with_modify::run_writes(writes, ev)?;
            execute_planned(main, ev, sink)
        }
        PlannedStmt::Rewritten { command, products } => {
            read_only_check(ev, command)?;
            run_rewritten(command, products, ev, sink)
        }
        PlannedStmt::Ddl => Err(DbError::internal("DDL reached execute_planned")),
    }
}

/// The statements rules rewrote a statement into, in order: each after
/// the changes of those before it (a new command id and snapshot, as
/// PostgreSQL's CommandCounterIncrement between a portal's queries),
/// with its own evaluation state. The tag is the original command's,
/// with the row count of the product that sets it (0 if none does).
fn run_rewritten(
    command: &str,
    products: &[nestor_plan::statement::RewrittenStmt],
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<CommandTag, DbError> {
    let mut rows = 0;
    for (i, p) in products.iter().enumerate() {
        if i > 0 {
            ev.ctx.snapshot = ev.ctx.txn.start_statement_with(&ev.ctx.wait)?;
        }
        let mut discard: Vec<Vec<Value>> = Vec::new();
        let out: &mut dyn RowSink = if p.returns_rows {
            &mut *sink
        } else {
            &mut discard
        };
        let params = ev.params;
        let tag = execute_planned(&p.stmt, &mut Ev::new(ev.ctx, params), out)?;
        if p.sets_tag {
            rows = tag.rows();
        }
    }
    let cmd = match command {
        "INSERT" => RowsCommand::Insert,
        "UPDATE" => RowsCommand::Update,
        _ => RowsCommand::Delete,
    };
    Ok(CommandTag::Rows(cmd, rows))
}

fn explain_statement(
    inner: &PlannedStmt,
    analyze: bool,
    json: bool,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<CommandTag, DbError> {
    let mut lines = Vec::new();
    explain(inner, &mut lines);
    let mut elapsed_ms = None;
    if analyze {
        let start = std::time::Instant::now();
        let mut discard: Vec<Vec<Value>> = Vec::new();
        execute_planned(inner, ev, &mut discard)?;
        elapsed_ms = Some(start.elapsed().as_secs_f64() * 1e3);
    }
    if json {
        let doc = explain_json(&lines, elapsed_ms);
        sink.row(vec![Value::Text(Arc::from(doc))])?;
        return Ok(CommandTag::Plain("EXPLAIN"));
    }
    if let Some(ms) = elapsed_ms {
        lines.push(format!("Execution Time: {ms:.3} ms"));
    }
    for l in lines {
        sink.row(vec![Value::Text(Arc::from(l))])?;
    }
    Ok(CommandTag::Plain("EXPLAIN"))
}

/// EXPLAIN (FORMAT JSON): the TEXT plan's tree as PostgreSQL's JSON shape
/// — `[{"Plan": {"Node Type": ..., "Relation Name": ..., "Plans": [...]}}]`
/// — with each detail line (`Filter: ...`, `Index Cond: ...`) as a key.
/// Nodes are recognised by their `->` arrows (one level per six columns of
/// indentation), as the TEXT format prints them.
fn explain_json(lines: &[String], elapsed_ms: Option<f64>) -> String {
    use serde_json::{Map, Value as J};
    fn node(label: &str) -> Map<String, J> {
        let mut m = Map::new();
        let (kind, rel) = match label.split_once(" on ") {
            Some((k, r)) => (k, Some(r)),
            None => (label, None),
        };
        let (kind, index) = match kind.split_once(" using ") {
            Some((k, i)) => (k, Some(i)),
            None => (kind, None),
        };
        m.insert("Node Type".into(), J::from(kind));
        if let Some(i) = index {
            m.insert("Index Name".into(), J::from(i));
        }
        if let Some(r) = rel {
            let mut words = r.split_whitespace();
            if let Some(name) = words.next() {
                m.insert("Relation Name".into(), J::from(name));
                m.insert("Alias".into(), J::from(words.next().unwrap_or(name)));
            }
        }
        m
    }
    // (depth, node) in order; children attach to the nearest shallower one.
    let mut nodes: Vec<(usize, Map<String, J>)> = Vec::new();
    for l in lines {
        let trimmed = l.trim_start();
        let indent = l.len() - trimmed.len();
        if nodes.is_empty() {
            nodes.push((0, node(trimmed)));
        } else if let Some(label) = trimmed.strip_prefix("->  ") {
            nodes.push(((indent + 4) / 6, node(label)));
        } else if let Some((k, v)) = trimmed.split_once(": ") {
            if let Some((_, n)) = nodes.last_mut() {
                n.insert(k.to_string(), J::from(v));
            }
        }
    }
    while nodes.len() > 1 {
        let (depth, child) = nodes.pop().expect("more than one");
        let parent = nodes
            .iter_mut()
            .rev()
            .find(|(d, _)| *d < depth)
            .map(|(_, n)| n);
        if let Some(p) = parent {
            let plans = p.entry("Plans").or_insert_with(|| J::Array(Vec::new()));
            if let J::Array(a) = plans {
                a.insert(0, J::Object(child));
            }
        }
    }
    let mut top = Map::new();
    top.insert(
        "Plan".into(),
        J::Object(nodes.pop().map(|(_, n)| n).unwrap_or_default()),
    );
    if let Some(ms) = elapsed_ms {
        top.insert(
            "Execution Time".into(),
            J::from((ms * 1000.0).round() / 1000.0),
        );
    }
    serde_json::to_string_pretty(&J::Array(vec![J::Object(top)])).unwrap_or_default()
}

fn execute_ddl(ctx: &mut StatementCtx<'_>, p: &Prepared) -> Result<CommandTag, DbError> {
    let n = statement_node(&p.stmt)?;
    let runs_code = matches!(n, NodeEnum::DoStmt(_));
    if ctx.read_only && !matches!(n, NodeEnum::VacuumStmt(_) | NodeEnum::LockStmt(_)) && !runs_code
    {
        let what = match n {
            NodeEnum::CreateFunctionStmt(f) if f.is_procedure => "CREATE PROCEDURE",
            NodeEnum::CreateFunctionStmt(_) => "CREATE FUNCTION",
            NodeEnum::CreateStmt(_) => "CREATE TABLE",
            NodeEnum::DropStmt(d) => crate::ddl::drop_tag(d),
            NodeEnum::AlterTableStmt(_) => "ALTER TABLE",
            NodeEnum::IndexStmt(_) => "CREATE INDEX",
            NodeEnum::CreateSeqStmt(_) => "CREATE SEQUENCE",
            NodeEnum::CreateTrigStmt(_) => "CREATE TRIGGER",
            NodeEnum::RuleStmt(_) => "CREATE RULE",
            NodeEnum::CreatePolicyStmt(_) => "CREATE POLICY",
            NodeEnum::AlterPolicyStmt(_) => "ALTER POLICY",
            NodeEnum::AlterSeqStmt(_) => "ALTER SEQUENCE",
            NodeEnum::AlterOwnerStmt(_) => "ALTER OWNER",
            NodeEnum::AlterFunctionStmt(_) => "ALTER FUNCTION",
            NodeEnum::ReassignOwnedStmt(_) => "REASSIGN OWNED",
            NodeEnum::CreateExtensionStmt(_) => "CREATE EXTENSION",
            NodeEnum::DropOwnedStmt(_) => "DROP OWNED",
            NodeEnum::RenameStmt(_) => "ALTER TABLE",
            NodeEnum::CreateTableAsStmt(_) => "CREATE TABLE AS",
            NodeEnum::ViewStmt(_) => "CREATE VIEW",
            NodeEnum::CommentStmt(_) => "COMMENT",
            NodeEnum::CreateRoleStmt(_) => "CREATE ROLE",
            NodeEnum::AlterRoleStmt(_) | NodeEnum::AlterRoleSetStmt(_) => "ALTER ROLE",
            NodeEnum::AlterDatabaseSetStmt(_) | NodeEnum::AlterDatabaseStmt(_) => "ALTER DATABASE",
            NodeEnum::CreatedbStmt(_) => "CREATE DATABASE",
            NodeEnum::DropdbStmt(_) => "DROP DATABASE",
            NodeEnum::AlterDefaultPrivilegesStmt(_) => "ALTER DEFAULT PRIVILEGES",
            NodeEnum::DropRoleStmt(_) => "DROP ROLE",
            NodeEnum::GrantRoleStmt(_) => "GRANT",
            NodeEnum::GrantStmt(g) if g.is_grant => "GRANT",
            NodeEnum::GrantStmt(_) => "REVOKE",
            NodeEnum::CreateSchemaStmt(_) => "CREATE SCHEMA",
            NodeEnum::RefreshMatViewStmt(_) => "REFRESH MATERIALIZED VIEW",
            NodeEnum::CreateEnumStmt(_)
            | NodeEnum::CompositeTypeStmt(_)
            | NodeEnum::CreateRangeStmt(_) => "CREATE TYPE",
            NodeEnum::AlterEnumStmt(_) => "ALTER TYPE",
            NodeEnum::CreateDomainStmt(_) => "CREATE DOMAIN",
            NodeEnum::DefineStmt(_) => "CREATE AGGREGATE",
            NodeEnum::CreateCastStmt(_) => "CREATE CAST",
            NodeEnum::CreateOpClassStmt(_) => "CREATE OPERATOR CLASS",
            NodeEnum::CreateOpFamilyStmt(_) => "CREATE OPERATOR FAMILY",
            NodeEnum::AlterOpFamilyStmt(_) => "ALTER OPERATOR FAMILY",
            NodeEnum::AlterDomainStmt(_) => "ALTER DOMAIN",
            NodeEnum::ReindexStmt(_) => "REINDEX",
            _ => "TRUNCATE TABLE",
        };
        return Err(read_only_error(what));
    }
    let text = p.text.clone();
    // Privileges first, as PostgreSQL checks them before it waits for
    // the lock: a role that may not change the table does not queue.
    if !ctx.role.superuser {
        crate::ddl::check_ddl(ctx, n, &text)?;
    }
    crate::relation_lock::lock_ddl_targets(ctx, n)?;
    let before = crate::ddl::created_objects(ctx, n);
    let tag = run_ddl(ctx, n, &text)?;
    let created: Vec<_> = crate::ddl::created_objects(ctx, n)
        .into_iter()
        .filter(|o| !before.contains(o))
        .collect();
    crate::relation_lock::lock_created(ctx, &created)?;
    crate::ddl::record_owner(ctx, n, &before)?;
    crate::ddl::apply_default_acls(ctx, &created)?;
    Ok(tag)
}

fn run_ddl(
    ctx: &mut StatementCtx<'_>,
    n: &NodeEnum,
    text: &Arc<str>,
) -> Result<CommandTag, DbError> {
    let text = text.clone();
    match n {
        NodeEnum::CreateStmt(cs) => crate::ddl::create_table(ctx, &text, cs),
        NodeEnum::DropStmt(ds) => crate::ddl::drop(ctx, ds),
        NodeEnum::AlterTableStmt(at) => crate::ddl::alter_table(ctx, &text, at),
        NodeEnum::IndexStmt(is) => crate::ddl::create_index(ctx, &text, is),
        NodeEnum::CreateSeqStmt(cs) => crate::ddl::create_sequence(ctx, cs),
        NodeEnum::TruncateStmt(ts) => crate::ddl::truncate(ctx, ts),
        NodeEnum::VacuumStmt(vs) => crate::ddl::vacuum(ctx, vs),
        NodeEnum::ReindexStmt(st) => crate::ddl::reindex(ctx, st),
        NodeEnum::CreateFunctionStmt(cf) => (crate::ROUTINES.create_function)(ctx, &text, cf),
        NodeEnum::DoStmt(ds) => (crate::ROUTINES.run_do)(ctx, &text, ds),
        NodeEnum::CreateTrigStmt(ct) => crate::ddl::create_trigger(ctx, &text, ct),
        NodeEnum::RuleStmt(rs) => crate::ddl::create_rule(ctx, &text, rs),
        NodeEnum::CreatePolicyStmt(st) => crate::ddl::create_policy(ctx, st),
        NodeEnum::AlterPolicyStmt(st) => crate::ddl::alter_policy(ctx, st),
        NodeEnum::LockStmt(ls) => crate::ddl::lock_table(ctx, ls),
        NodeEnum::AlterSeqStmt(st) => crate::ddl::alter_sequence(ctx, st),
        NodeEnum::AlterOwnerStmt(st) => crate::ddl::alter_owner(ctx, st),
        NodeEnum::AlterFunctionStmt(st) => crate::ddl::alter_function(ctx, &text, st),
        NodeEnum::ReassignOwnedStmt(st) => crate::ddl::reassign_owned(ctx, st),
        NodeEnum::CreateExtensionStmt(st) => crate::ddl::create_extension(ctx, st),
        NodeEnum::DropOwnedStmt(st) => crate::ddl::drop_owned(ctx, st),
        NodeEnum::RenameStmt(st) => crate::ddl::rename(ctx, st),
        NodeEnum::CreateTableAsStmt(st) => crate::ddl::create_table_as(ctx, &text, st),
        NodeEnum::ViewStmt(st) => crate::ddl::create_view(ctx, &text, st),
        NodeEnum::CommentStmt(st) => crate::ddl::comment(ctx, st),
        NodeEnum::CreateRoleStmt(st) => crate::ddl::create_role(ctx, st),
        NodeEnum::AlterRoleStmt(st) => crate::ddl::alter_role(ctx, st),
        NodeEnum::AlterRoleSetStmt(st) => crate::ddl::alter_role_set(ctx, st),
        NodeEnum::AlterDatabaseSetStmt(st) => crate::ddl::alter_database_set(ctx, st),
        NodeEnum::AlterDatabaseStmt(st) => crate::ddl::alter_database(ctx, st),
        NodeEnum::CreatedbStmt(st) => crate::ddl::create_database(ctx, st),
        NodeEnum::DropdbStmt(st) => crate::ddl::drop_database(ctx, st),
        NodeEnum::AlterDefaultPrivilegesStmt(st) => crate::ddl::alter_default_privileges(ctx, st),
        NodeEnum::DropRoleStmt(st) => crate::ddl::drop_role(ctx, st),
        NodeEnum::GrantRoleStmt(st) => crate::ddl::grant_role(ctx, st),
        NodeEnum::GrantStmt(st) => crate::ddl::grant(ctx, st),
        NodeEnum::CreateSchemaStmt(st) => crate::ddl::create_schema(ctx, &text, st),
        NodeEnum::RefreshMatViewStmt(st) => crate::ddl::refresh_matview(ctx, st),
        NodeEnum::CreateEnumStmt(st) => crate::ddl::create_enum(ctx, st),
        NodeEnum::CompositeTypeStmt(st) => crate::ddl::create_composite(ctx, st),
        NodeEnum::AlterEnumStmt(st) => crate::ddl::alter_enum(ctx, st),
        NodeEnum::CreateDomainStmt(st) => crate::ddl::create_domain(ctx, st),
        NodeEnum::CreateRangeStmt(_) => Err(DbError::unsupported(
            "CREATE TYPE ... AS RANGE (user-defined range types)",
        )),
        NodeEnum::DefineStmt(st)
            if st.kind == nestor_parser::pb::ObjectType::ObjectAggregate as i32 =>
        {
            crate::ddl::create_aggregate(ctx, st)
        }
        NodeEnum::AlterDomainStmt(st) => crate::ddl::alter_domain(ctx, st),
        NodeEnum::CreateCastStmt(st) => crate::ddl::create_cast(ctx, st),
        NodeEnum::CreateOpClassStmt(st) => crate::ddl::create_opclass(ctx, st),
        NodeEnum::CreateOpFamilyStmt(st) => crate::ddl::create_opfamily(ctx, st),
        NodeEnum::AlterOpFamilyStmt(st) => crate::ddl::alter_opfamily(st),
        other => Err(DbError::unsupported(nestor_parser::ast::command_name(
            other,
        ))),
    }
}
