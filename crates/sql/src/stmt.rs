//! Statement dispatch: which statements the query engine handles, planning
//! them into a cached [`StmtPlan`], and executing it.
//!
//! A prepared statement keeps its source (text and parse tree) next to the
//! plan. Plans depend on the catalog (table definitions, indexes), so each
//! carries the catalog version it was made at; an execution that finds the
//! catalog changed re-plans first (as PostgreSQL invalidates cached plans),
//! and fails with 0A000 `cached plan must not change result type` if the
//! result columns changed. DDL has no plan: it runs from its parse tree.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_types::datatype::DataType;
use nestor_types::Value;
use parking_lot::RwLock;
use pg_query::protobuf::RawStmt;
use pg_query::NodeEnum;

use crate::bind::{self, Binder};
use crate::dml::{self, InsertPlan, ModifyPlan};
use crate::exec;
use crate::exec_api::{ColumnDesc, Prepared, RowSink, Settings, StatementCtx};
use crate::expr::Ev;
use crate::plan::{OutCol, Plan};
use crate::session::Engine;

/// Whether the query engine handles this statement.
pub fn handles(n: &NodeEnum) -> bool {
    matches!(
        n,
        NodeEnum::SelectStmt(_)
            | NodeEnum::InsertStmt(_)
            | NodeEnum::UpdateStmt(_)
            | NodeEnum::DeleteStmt(_)
            | NodeEnum::ExplainStmt(_)
            | NodeEnum::CreateStmt(_)
            | NodeEnum::DropStmt(_)
            | NodeEnum::AlterTableStmt(_)
            | NodeEnum::IndexStmt(_)
            | NodeEnum::CreateSeqStmt(_)
            | NodeEnum::TruncateStmt(_)
            | NodeEnum::VacuumStmt(_)
    )
}

enum Kind {
    Query {
        plan: Plan,
    },
    Insert(InsertPlan),
    Modify(ModifyPlan),
    Explain {
        inner: Box<Kind>,
        analyze: bool,
    },
    /// DDL: executed from the parse tree.
    Ddl,
}

/// The plan in `Prepared.plan`.
pub struct StmtPlan {
    text: Arc<str>,
    stmt: RawStmt,
    param_types: Vec<u32>,
    columns: Option<Vec<ColumnDesc>>,
    current: RwLock<(u64, Arc<Kind>)>,
}

fn node_of(stmt: &RawStmt) -> Result<&NodeEnum, DbError> {
    stmt.stmt
        .as_deref()
        .and_then(|n| n.node.as_ref())
        .ok_or_else(|| DbError::internal("empty statement"))
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

fn returning_cols(r: &Option<dml::Returning>) -> Option<Vec<OutCol>> {
    r.as_ref().map(|r| r.cols.clone())
}

/// Plan one statement.
pub fn prepare(
    engine: &Engine,
    settings: &Settings,
    text: &str,
    stmt: &RawStmt,
    hints: &[u32],
) -> Result<Prepared, DbError> {
    let version = engine.catalog.version();
    let (kind, cols, params) = plan_stmt(engine, settings, text, stmt, hints)?;
    let param_types: Vec<u32> = params.iter().map(|t| t.resolve_unknown().oid()).collect();
    let columns = cols.as_deref().map(describe);
    let plan = StmtPlan {
        text: Arc::from(text),
        stmt: stmt.clone(),
        param_types: param_types.clone(),
        columns: columns.clone(),
        current: RwLock::new((version, Arc::new(kind))),
    };
    Ok(Prepared {
        param_types,
        columns,
        plan: Box::new(plan),
    })
}

type Planned = (Kind, Option<Vec<OutCol>>, Vec<DataType>);

fn plan_stmt(
    engine: &Engine,
    settings: &Settings,
    text: &str,
    stmt: &RawStmt,
    hints: &[u32],
) -> Result<Planned, DbError> {
    let n = node_of(stmt)?;
    let mut b = Binder::new(engine, settings, text, hints);
    let (kind, cols) = plan_node(&mut b, n)?;
    let params = b.params.iter().map(|t| t.resolve_unknown()).collect();
    Ok((kind, cols, params))
}

fn plan_node(b: &mut Binder, n: &NodeEnum) -> Result<(Kind, Option<Vec<OutCol>>), DbError> {
    match n {
        NodeEnum::SelectStmt(sel) => {
            let (plan, cols) = crate::select::plan_query(b, sel)?;
            Ok((Kind::Query { plan }, Some(cols)))
        }
        NodeEnum::InsertStmt(ins) => {
            let p = dml::plan_insert(b, ins)?;
            let cols = returning_cols(&p.returning);
            Ok((Kind::Insert(p), cols))
        }
        NodeEnum::UpdateStmt(u) => {
            let p = dml::plan_update(b, u)?;
            let cols = returning_cols(&p.returning);
            Ok((Kind::Modify(p), cols))
        }
        NodeEnum::DeleteStmt(d) => {
            let p = dml::plan_delete(b, d)?;
            let cols = returning_cols(&p.returning);
            Ok((Kind::Modify(p), cols))
        }
        NodeEnum::ExplainStmt(e) => {
            let mut analyze = false;
            for o in &e.options {
                if let Some(NodeEnum::DefElem(d)) = o.node.as_ref() {
                    match d.defname.as_str() {
                        "analyze" => {
                            analyze = !matches!(d.arg.as_deref().and_then(|a| a.node.as_ref()), Some(NodeEnum::String(s)) if s.sval == "false" || s.sval == "off")
                        }
                        "costs" | "verbose" | "buffers" | "timing" | "summary" | "settings"
                        | "wal" => {}
                        "format" => {
                            if !matches!(d.arg.as_deref().and_then(|a| a.node.as_ref()), Some(NodeEnum::String(s)) if s.sval == "text")
                            {
                                return Err(DbError::unsupported(
                                    "EXPLAIN formats other than TEXT",
                                ));
                            }
                        }
                        other => {
                            return Err(DbError::new(
                                SqlState::SyntaxError,
                                format!("unrecognized EXPLAIN option \"{other}\""),
                            ))
                        }
                    }
                }
            }
            let inner = bind::req(&e.query)?;
            let (kind, _) = plan_node(b, bind::node(inner)?)?;
            if matches!(kind, Kind::Ddl) {
                return Err(DbError::unsupported("EXPLAIN of utility statements"));
            }
            let cols = vec![OutCol {
                name: "QUERY PLAN".into(),
                ty: DataType::Text,
                table_oid: 0,
                column_id: 0,
            }];
            Ok((
                Kind::Explain {
                    inner: Box::new(kind),
                    analyze,
                },
                Some(cols),
            ))
        }
        n if handles(n) => Ok((Kind::Ddl, None)),
        other => Err(DbError::unsupported(format!(
            "statement {}",
            bind::node_kind(other)
        ))),
    }
}

/// Execute a prepared statement.
pub fn execute(
    ctx: &mut StatementCtx<'_>,
    prepared: &Prepared,
    params: &[Value],
    sink: &mut dyn RowSink,
) -> Result<String, DbError> {
    let sp = prepared
        .plan
        .downcast_ref::<StmtPlan>()
        .ok_or_else(|| DbError::internal("not a query engine plan"))?;
    let kind = current_kind(ctx, sp)?;
    match kind.as_ref() {
        Kind::Ddl => exec_ddl(ctx, sp),
        k => {
            let mut ev = Ev::new(ctx, params);
            exec_kind(k, &mut ev, sink)
        }
    }
}

fn current_kind(ctx: &StatementCtx, sp: &StmtPlan) -> Result<Arc<Kind>, DbError> {
    let version = ctx.engine.catalog.version();
    {
        let cur = sp.current.read();
        if cur.0 == version || matches!(cur.1.as_ref(), Kind::Ddl) {
            return Ok(cur.1.clone());
        }
    }
    let (kind, cols, _) = plan_stmt(
        ctx.engine,
        ctx.settings,
        &sp.text,
        &sp.stmt,
        &sp.param_types,
    )?;
    if cols.as_deref().map(describe) != sp.columns {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cached plan must not change result type",
        ));
    }
    let kind = Arc::new(kind);
    *sp.current.write() = (version, kind.clone());
    Ok(kind)
}

fn read_only_check(ev: &Ev, what: &str) -> Result<(), DbError> {
    if ev.ctx.read_only {
        return Err(DbError::new(
            SqlState::ReadOnlySqlTransaction,
            format!("cannot execute {what} in a read-only transaction"),
        ));
    }
    Ok(())
}

fn exec_kind(k: &Kind, ev: &mut Ev, sink: &mut dyn RowSink) -> Result<String, DbError> {
    match k {
        Kind::Query { plan } => {
            if matches!(plan, Plan::LockRows { .. }) || contains_lock(plan) {
                read_only_check(ev, "SELECT FOR UPDATE")?;
            }
            let mut n: u64 = 0;
            exec::run(plan, ev, &[], &mut |_, row| {
                n += 1;
                sink.row(row)?;
                Ok(true)
            })?;
            Ok(format!("SELECT {n}"))
        }
        Kind::Insert(p) => {
            read_only_check(ev, "INSERT")?;
            let n = dml::exec_insert(p, ev, sink)?;
            Ok(format!("INSERT 0 {n}"))
        }
        Kind::Modify(p) => {
            let tag = if p.delete { "DELETE" } else { "UPDATE" };
            read_only_check(ev, tag)?;
            let n = dml::exec_modify(p, ev, sink)?;
            Ok(format!("{tag} {n}"))
        }
        Kind::Explain { inner, analyze } => {
            let mut lines = Vec::new();
            explain_kind(inner, &mut lines);
            if *analyze {
                let start = std::time::Instant::now();
                let mut discard: Vec<Vec<Value>> = Vec::new();
                exec_kind(inner, ev, &mut discard)?;
                lines.push(format!(
                    "Execution Time: {:.3} ms",
                    start.elapsed().as_secs_f64() * 1e3
                ));
            }
            for l in lines {
                sink.row(vec![Value::Text(Arc::from(l))])?;
            }
            Ok("EXPLAIN".into())
        }
        Kind::Ddl => Err(DbError::internal("DDL reached exec_kind")),
    }
}

fn contains_lock(p: &Plan) -> bool {
    match p {
        Plan::LockRows { .. } => true,
        Plan::Project { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Filter { input, .. }
        | Plan::Sort { input, .. } => contains_lock(input),
        _ => false,
    }
}

fn explain_kind(k: &Kind, out: &mut Vec<String>) {
    match k {
        Kind::Query { plan } => plan.explain(out),
        Kind::Insert(p) => {
            out.push(format!("Insert on {}", p.table.name));
            let mut sub = Vec::new();
            p.source.explain(&mut sub);
            out.extend(sub.into_iter().map(|l| format!("  ->  {}", l.trim_start())));
        }
        Kind::Modify(p) => {
            out.push(format!(
                "{} on {}",
                if p.delete { "Delete" } else { "Update" },
                p.table.name
            ));
            let mut sub = Vec::new();
            p.input.explain(&mut sub);
            for (i, l) in sub.into_iter().enumerate() {
                out.push(if i == 0 {
                    format!("  ->  {l}")
                } else {
                    format!("      {l}")
                });
            }
        }
        Kind::Explain { inner, .. } => explain_kind(inner, out),
        Kind::Ddl => {}
    }
}

fn exec_ddl(ctx: &mut StatementCtx<'_>, sp: &StmtPlan) -> Result<String, DbError> {
    let n = node_of(&sp.stmt)?;
    if ctx.read_only && !matches!(n, NodeEnum::VacuumStmt(_)) {
        let what = match n {
            NodeEnum::CreateStmt(_) => "CREATE TABLE",
            NodeEnum::DropStmt(_) => "DROP",
            NodeEnum::AlterTableStmt(_) => "ALTER TABLE",
            NodeEnum::IndexStmt(_) => "CREATE INDEX",
            NodeEnum::CreateSeqStmt(_) => "CREATE SEQUENCE",
            _ => "TRUNCATE TABLE",
        };
        return Err(DbError::new(
            SqlState::ReadOnlySqlTransaction,
            format!("cannot execute {what} in a read-only transaction"),
        ));
    }
    let text = sp.text.clone();
    exec_ddl_node(ctx, &text, n)
}

fn exec_ddl_node(
    ctx: &mut StatementCtx<'_>,
    text: &Arc<str>,
    n: &NodeEnum,
) -> Result<String, DbError> {
    let text = text.clone();
    let r = match n {
        NodeEnum::CreateStmt(cs) => crate::ddl::create_table(ctx, &text, cs),
        NodeEnum::DropStmt(ds) => crate::ddl::drop(ctx, ds),
        NodeEnum::AlterTableStmt(at) => crate::ddl::alter_table(ctx, &text, at),
        NodeEnum::IndexStmt(is) => crate::ddl::create_index(ctx, is),
        NodeEnum::CreateSeqStmt(cs) => crate::ddl::create_sequence(ctx, cs),
        NodeEnum::TruncateStmt(ts) => crate::ddl::truncate(ctx, ts),
        NodeEnum::VacuumStmt(vs) => crate::ddl::vacuum(ctx, vs),
        other => Err(DbError::unsupported(format!(
            "statement {}",
            bind::node_kind(other)
        ))),
    };
    r
}
