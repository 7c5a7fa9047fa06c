//! Statement planning: which statements the query engine handles, and the
//! plan of one statement ([`PlannedStmt`]) with its result columns and
//! parameter types.
//!
//! DDL has no plan: the executor runs it from its parse tree
//! (`PlannedStmt::Ddl`). EXPLAIN wraps the plan of the statement it
//! explains; its text comes from [`explain`].

use crate::Expr;
use nestor_catalog::Catalog;
use nestor_common::{DbError, SqlState};
use nestor_parser::ast::{node, req};
use nestor_parser::pb::{self, RawStmt};
use nestor_parser::NodeEnum;
use nestor_types::datatype::DataType;
use nestor_types::EvalCtx;

use crate::bind::Binder;
use crate::ir::{OutCol, Plan};
use crate::modify::{self, InsertPlan, ModifyPlan};
use crate::view_write::WriteKind;
use crate::with_modify::{self, WriteCte, WriteStmt};

/// Whether the query engine handles this statement (the session handles
/// the rest: transaction control, SET/SHOW, PREPARE, COPY ...).
pub fn handles(n: &NodeEnum) -> bool {
    matches!(
        n,
        NodeEnum::SelectStmt(_)
            | NodeEnum::InsertStmt(_)
            | NodeEnum::UpdateStmt(_)
            | NodeEnum::DeleteStmt(_)
            | NodeEnum::MergeStmt(_)
            | NodeEnum::ExplainStmt(_)
            | NodeEnum::CreateStmt(_)
            | NodeEnum::DropStmt(_)
            | NodeEnum::AlterTableStmt(_)
            | NodeEnum::IndexStmt(_)
            | NodeEnum::CreateSeqStmt(_)
            | NodeEnum::TruncateStmt(_)
            | NodeEnum::VacuumStmt(_)
            | NodeEnum::ReindexStmt(_)
            | NodeEnum::CreateFunctionStmt(_)
            | NodeEnum::DoStmt(_)
            | NodeEnum::CallStmt(_)
            | NodeEnum::CreateTrigStmt(_)
            | NodeEnum::RuleStmt(_)
            | NodeEnum::CreatePolicyStmt(_)
            | NodeEnum::AlterPolicyStmt(_)
            | NodeEnum::LockStmt(_)
            | NodeEnum::AlterSeqStmt(_)
            | NodeEnum::AlterOwnerStmt(_)
            | NodeEnum::AlterFunctionStmt(_)
            | NodeEnum::ReassignOwnedStmt(_)
            | NodeEnum::CreateExtensionStmt(_)
            | NodeEnum::DropOwnedStmt(_)
            | NodeEnum::RenameStmt(_)
            | NodeEnum::CreateTableAsStmt(_)
            | NodeEnum::ViewStmt(_)
            | NodeEnum::CommentStmt(_)
            | NodeEnum::CreateRoleStmt(_)
            | NodeEnum::AlterRoleStmt(_)
            | NodeEnum::AlterRoleSetStmt(_)
            | NodeEnum::AlterDatabaseSetStmt(_)
            | NodeEnum::AlterDatabaseStmt(_)
            | NodeEnum::CreatedbStmt(_)
            | NodeEnum::DropdbStmt(_)
            | NodeEnum::AlterDefaultPrivilegesStmt(_)
            | NodeEnum::DropRoleStmt(_)
            | NodeEnum::GrantRoleStmt(_)
            | NodeEnum::GrantStmt(_)
            | NodeEnum::CreateSchemaStmt(_)
            | NodeEnum::RefreshMatViewStmt(_)
            | NodeEnum::CreateEnumStmt(_)
            | NodeEnum::CompositeTypeStmt(_)
            | NodeEnum::AlterEnumStmt(_)
            | NodeEnum::CreateDomainStmt(_)
            | NodeEnum::CreateRangeStmt(_)
            | NodeEnum::AlterDomainStmt(_)
            | NodeEnum::DefineStmt(_)
            | NodeEnum::CreateCastStmt(_)
            | NodeEnum::CreateOpClassStmt(_)
            | NodeEnum::CreateOpFamilyStmt(_)
            | NodeEnum::AlterOpFamilyStmt(_)
    )
}

/// The plan of one statement.
pub enum PlannedStmt {
    Query(Plan),
    Insert(InsertPlan),
    /// UPDATE or DELETE.
    Modify(ModifyPlan),
    /// INSERT, UPDATE or DELETE on a view its INSTEAD OF triggers do.
    Instead(crate::instead::InsteadPlan),
    Merge(crate::merge::MergePlan),
    Explain {
        inner: Box<PlannedStmt>,
        analyze: bool,
        /// FORMAT JSON (else TEXT).
        json: bool,
    },
    /// CALL procedure(args): the input arguments in declaration order
    /// (defaults filled in); a procedure with OUT/INOUT arguments returns
    /// their values as a row.
    Call {
        def: std::sync::Arc<nestor_catalog::FunctionDef>,
        args: Vec<crate::ir::Expr>,
    },
    /// DDL: executed from the parse tree.
    Ddl,
    /// A statement with data-modifying WITH items: they run first, in
    /// order, to completion (crate::with_modify), then `main`.
    With {
        writes: Vec<WriteCte>,
        main: Box<PlannedStmt>,
    },
    /// A statement rules rewrote (crate::rewrite): its products run in
    /// order, each as its own command.
    Rewritten {
        /// INSERT, UPDATE or DELETE: the original statement's command.
        command: &'static str,
        products: Vec<RewrittenStmt>,
    },
}

/// One statement of a [`PlannedStmt::Rewritten`].
pub struct RewrittenStmt {
    pub stmt: PlannedStmt,
    /// Its row count is the command tag's.
    pub sets_tag: bool,
    /// Its rows are the statement's result rows (else discarded).
    pub returns_rows: bool,
}

impl PlannedStmt {
    /// The command name PostgreSQL's messages give a SELECT, INSERT,
    /// UPDATE or DELETE ("cannot execute SELECT in a read-only
    /// transaction"); a statement with data-modifying WITH items is named
    /// by its main statement. None for the others.
    pub fn command(&self) -> Option<&'static str> {
        match self {
            PlannedStmt::Query(_) => Some("SELECT"),
            PlannedStmt::Insert(_) => Some("INSERT"),
            PlannedStmt::Modify(m) if m.delete => Some("DELETE"),
            PlannedStmt::Modify(_) => Some("UPDATE"),
            PlannedStmt::Instead(p) => Some(p.kind.command()),
            PlannedStmt::Merge(_) => Some("MERGE"),
            PlannedStmt::With { main, .. } => main.command(),
            PlannedStmt::Rewritten { command, .. } => Some(command),
            _ => None,
        }
    }
}

/// A planned statement with what a client is told about it.
pub struct Planned {
    pub stmt: PlannedStmt,
    /// Result columns; None for a statement that returns no rows.
    pub columns: Option<Vec<OutCol>>,
    /// Types of $1..$n (unknowns resolved to text).
    pub params: Vec<DataType>,
    /// The privileges it needs (crate::perm), checked at each execution.
    pub perms: Vec<crate::perm::Perm>,
}

/// The statement node of a raw statement.
pub fn statement_node(stmt: &RawStmt) -> Result<&NodeEnum, DbError> {
    stmt.stmt
        .as_deref()
        .and_then(|n| n.node.as_ref())
        .ok_or_else(|| DbError::internal("empty statement"))
}

/// Plan one statement of `text` (its node locations index into `text`);
/// `hints` are the client's parameter type OIDs (0 = infer).
pub fn plan_statement(
    catalog: &Catalog,
    eval: EvalCtx,
    text: &str,
    stmt: &RawStmt,
    hints: &[u32],
) -> Result<Planned, DbError> {
    plan_statement_with(catalog, eval, text, stmt, hints, None)
}

/// [`plan_statement`] for a statement a PL/pgSQL body runs: names of its
/// variables bind as parameters (`vars`).
pub fn plan_statement_with(
    catalog: &Catalog,
    eval: EvalCtx,
    text: &str,
    stmt: &RawStmt,
    hints: &[u32],
    vars: Option<&dyn crate::bind::VarResolver>,
) -> Result<Planned, DbError> {
    let n = statement_node(stmt)?;
    if let Some(rw) = crate::rewrite::rewrite(catalog, eval, n)? {
        return plan_rewritten(catalog, eval, n, rw, hints, vars);
    }
    plan_unrewritten(catalog, eval, text, stmt, hints, vars)
}

/// [`plan_statement_with`] without the rule rewrite step: the statement
/// as it is (CREATE RULE plans each action so).
pub fn plan_unrewritten(
    catalog: &Catalog,
    eval: EvalCtx,
    text: &str,
    stmt: &RawStmt,
    hints: &[u32],
    vars: Option<&dyn crate::bind::VarResolver>,
) -> Result<Planned, DbError> {
    let n = statement_node(stmt)?;
    let mut b = Binder::new(catalog, eval, text, hints, crate::select::plan_query);
    b.vars = vars;
    let (stmt, columns) = plan_node(&mut b, n)?;
    let params = b.params.iter().map(|t| t.resolve_unknown()).collect();
    Ok(Planned {
        stmt,
        columns,
        params,
        perms: b.perms,
    })
}

type NodePlan = (PlannedStmt, Option<Vec<OutCol>>);

/// Plan the statements rules rewrote a statement into: each from its own
/// SQL text (the deparser's), as a client's statement would be. Their
/// errors carry no position (it would point into that text, which the
/// client never saw).
fn plan_rewritten(
    catalog: &Catalog,
    eval: EvalCtx,
    original: &NodeEnum,
    rw: crate::rewrite::Rewritten,
    hints: &[u32],
    vars: Option<&dyn crate::bind::VarResolver>,
) -> Result<Planned, DbError> {
    let command = match original {
        NodeEnum::InsertStmt(_) => "INSERT",
        NodeEnum::UpdateStmt(_) => "UPDATE",
        NodeEnum::DeleteStmt(_) => "DELETE",
        _ => "SELECT",
    };
    let mut products: Vec<RewrittenStmt> = Vec::with_capacity(rw.products.len());
    let mut columns = None;
    let mut params: Vec<DataType> = Vec::new();
    let mut perms = Vec::new();
    for p in rw.products {
        if !handles(&p.stmt)
            || !matches!(
                p.stmt,
                NodeEnum::SelectStmt(_)
                    | NodeEnum::InsertStmt(_)
                    | NodeEnum::UpdateStmt(_)
                    | NodeEnum::DeleteStmt(_)
            )
        {
            return Err(DbError::unsupported(format!(
                "{} as a rule action",
                nestor_parser::ast::command_name(&p.stmt)
            )));
        }
        let sql = nestor_parser::deparse_query(&nestor_parser::ast::wrap(p.stmt))?;
        let raw = nestor_parser::parse_sql(&sql)?
            .into_iter()
            .next()
            .ok_or_else(|| DbError::internal("rewritten statement is empty"))?;
        let n = statement_node(&raw)?;
        let mut b = Binder::new(catalog, eval, &sql, hints, crate::select::plan_query);
        b.vars = vars;
        let (stmt, cols) = plan_node(&mut b, n).map_err(|mut e| {
            e.position = None;
            e
        })?;
        if p.returns_rows && columns.is_none() {
            columns = cols;
        }
        for (i, t) in b.params.iter().enumerate() {
            let t = t.resolve_unknown();
            match params.get_mut(i) {
                Some(have) if *have == DataType::Unknown || *have == DataType::Text => *have = t,
                Some(_) => {}
                None => params.push(t),
            }
        }
        perms.extend(b.perms);
        products.push(RewrittenStmt {
            stmt,
            sets_tag: p.sets_tag,
            returns_rows: p.returns_rows,
        });
    }
    // One statement of the original's command that sets the tag (a WITH
    // item rewritten, an INSTEAD rule's single action): it is the plan.
    if let [only] = products.as_slice() {
        if only.sets_tag && only.stmt.command() == Some(command) {
            let stmt = products.pop().map(|p| p.stmt);
            if let Some(stmt) = stmt {
                return Ok(Planned {
                    stmt,
                    columns,
                    params,
                    perms,
                });
            }
        }
    }
    Ok(Planned {
        stmt: PlannedStmt::Rewritten { command, products },
        columns,
        params,
        perms,
    })
}

/// A query's result columns of a reg* type (`c.oid::regclass`) leave as
/// the object's name, as PostgreSQL's output function prints them; inside
/// the query (joins, ORDER BY, comparisons) they stay OIDs.
/// RETURNING's reg* columns leave as names too (as `reg_names_out`).
fn reg_names_returning(r: &mut Option<modify::Returning>) {
    let Some(r) = r else {
        return;
    };
    let name = |e: &mut Expr, f| {
        *e = Expr::Func(
            f,
            vec![std::mem::replace(e, Expr::Const(nestor_types::Value::Null))],
        );
    };
    for (i, c) in r.cols.iter_mut().enumerate() {
        if let Some(f) = crate::bind::reg_name_fn(c.ty) {
            name(&mut r.exprs[i], f);
            if let Some(moved) = &mut r.moved {
                name(&mut moved[i], f);
            }
            c.ty = DataType::Text;
        }
    }
}

/// The same for an UPDATE or DELETE and the plans of its table's
/// descendants.
fn reg_names_modify(p: &mut ModifyPlan) {
    reg_names_returning(&mut p.returning);
    for c in &mut p.children {
        reg_names_modify(c);
    }
}

fn reg_names_out(plan: Plan, cols: Vec<OutCol>) -> (Plan, Vec<OutCol>) {
    if !cols
        .iter()
        .any(|c| crate::bind::reg_name_fn(c.ty).is_some())
    {
        return (plan, cols);
    }
    let exprs = cols
        .iter()
        .enumerate()
        .map(|(i, c)| match crate::bind::reg_name_fn(c.ty) {
            Some(f) => Expr::Func(f, vec![Expr::Col(i)]),
            None => Expr::Col(i),
        })
        .collect();
    let cols = cols
        .into_iter()
        .map(|c| match crate::bind::reg_name_fn(c.ty) {
            Some(_) => OutCol {
                ty: DataType::Text,
                ..c
            },
            _ => c,
        })
        .collect();
    (
        Plan::Project {
            input: Box::new(plan),
            exprs,
        },
        cols,
    )
}

fn plan_node(b: &mut Binder, n: &NodeEnum) -> Result<NodePlan, DbError> {
    if let NodeEnum::MergeStmt(m) = n {
        if m.with_clause.as_ref().is_some_and(|w| w.recursive) {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "WITH RECURSIVE is not supported for MERGE statement",
            ));
        }
    }
    if let Some(w) = with_modify::top_with(n) {
        return plan_with_statement(b, n, w);
    }
    if let Some(mut p) = crate::instead::plan_statement(b, n)? {
        reg_names_returning(&mut p.returning);
        let cols = p.returning.as_ref().map(|r| r.cols.clone());
        return Ok((PlannedStmt::Instead(p), cols));
    }
    match n {
        NodeEnum::SelectStmt(sel) => {
            let (plan, cols) = crate::select::plan_query(b, sel)?;
            let (mut plan, cols) = reg_names_out(plan, cols);
            crate::select::narrow::drop_unused_outputs(&mut plan, cols.len());
            crate::select::narrow::narrow_scans(&mut plan);
            Ok((PlannedStmt::Query(plan), Some(cols)))
        }
        NodeEnum::InsertStmt(ins) => {
            let mut p = modify::plan_insert(b, ins)?;
            reg_names_returning(&mut p.returning);
            let cols = p.returning.as_ref().map(|r| r.cols.clone());
            Ok((PlannedStmt::Insert(p), cols))
        }
        NodeEnum::UpdateStmt(u) => {
            let mut p = modify::plan_update(b, u)?;
            reg_names_modify(&mut p);
            let cols = p.returning.as_ref().map(|r| r.cols.clone());
            Ok((PlannedStmt::Modify(p), cols))
        }
        NodeEnum::DeleteStmt(d) => {
            let mut p = modify::plan_delete(b, d)?;
            reg_names_modify(&mut p);
            let cols = p.returning.as_ref().map(|r| r.cols.clone());
            Ok((PlannedStmt::Modify(p), cols))
        }
        NodeEnum::MergeStmt(m) => Ok((PlannedStmt::Merge(crate::merge::plan_merge(b, m)?), None)),
        NodeEnum::ExplainStmt(e) => plan_explain(b, e),
        NodeEnum::CallStmt(cs) => {
            // A procedure with OUT arguments returns a row.
            let fc = cs
                .funccall
                .as_deref()
                .ok_or_else(|| DbError::internal("CALL without a call"))?;
            let name = crate::bind::names(&fc.funcname)
                .last()
                .cloned()
                .unwrap_or_default();
            b.scopes.push(crate::bind::Scope::default());
            b.outer_refs.push(None);
            let (def, args) = crate::bind::userfunc::bind_procedure_call(b, &name, fc)?;
            let cols: Vec<OutCol> = def
                .args
                .iter()
                .filter(|a| a.mode.is_output())
                .map(|a| OutCol {
                    name: a.name.clone(),
                    ty: a.ty,
                    table_oid: 0,
                    column_id: 0,
                })
                .collect();
            let cols = (!cols.is_empty()).then_some(cols);
            Ok((PlannedStmt::Call { def, args }, cols))
        }
        n if handles(n) => Ok((PlannedStmt::Ddl, None)),
        other => Err(DbError::unsupported(nestor_parser::ast::command_name(
            other,
        ))),
    }
}

/// A statement whose WITH clause crate::with_modify plans: its items put
/// in scope, then the statement without the clause.
fn plan_with_statement(
    b: &mut Binder,
    n: &NodeEnum,
    w: &pb::WithClause,
) -> Result<NodePlan, DbError> {
    let ctes_len = b.ctes.len();
    let r = (|| {
        let writes = with_modify::plan_with_clause(b, w)?;
        let (main, cols) = plan_node(b, &with_modify::without_with(n))?;
        if writes.is_empty() {
            return Ok((main, cols));
        }
        let main = Box::new(main);
        Ok((PlannedStmt::With { writes, main }, cols))
    })();
    b.ctes.truncate(ctes_len);
    r
}

fn plan_explain(b: &mut Binder, e: &pb::ExplainStmt) -> Result<NodePlan, DbError> {
    let mut analyze = false;
    let mut json = false;
    for o in &e.options {
        if let Some(NodeEnum::DefElem(d)) = o.node.as_ref() {
            let arg = match d.arg.as_deref().and_then(|a| a.node.as_ref()) {
                Some(NodeEnum::String(s)) => Some(s.sval.as_str()),
                _ => None,
            };
            match d.defname.as_str() {
                "analyze" => analyze = !matches!(arg, Some("false" | "off")),
                "costs" | "verbose" | "buffers" | "timing" | "summary" | "settings" | "wal" => {}
                "format" if arg == Some("text") => json = false,
                "format" if arg == Some("json") => json = true,
                "format" => {
                    return Err(DbError::unsupported(
                        "EXPLAIN formats other than TEXT and JSON",
                    ))
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
    let mut query = node(req(&e.query)?)?;
    // EXPLAIN DECLARE c CURSOR FOR q explains q.
    if let NodeEnum::DeclareCursorStmt(d) = query {
        query = node(req(&d.query)?)?;
    }
    let inner = match crate::rewrite::rewrite(b.catalog, b.eval, query)? {
        Some(rw) => {
            let p = plan_rewritten(b.catalog, b.eval, query, rw, &[], b.vars)?;
            b.perms.extend(p.perms);
            p.stmt
        }
        None => plan_node(b, query)?.0,
    };
    if matches!(inner, PlannedStmt::Ddl | PlannedStmt::Call { .. }) {
        return Err(DbError::unsupported("EXPLAIN of utility statements"));
    }
    let cols = vec![OutCol {
        name: "QUERY PLAN".into(),
        ty: if json { DataType::Json } else { DataType::Text },
        table_oid: 0,
        column_id: 0,
    }];
    let stmt = PlannedStmt::Explain {
        inner: Box::new(inner),
        analyze,
        json,
    };
    Ok((stmt, Some(cols)))
}

/// Whether a query locks rows (SELECT ... FOR UPDATE/SHARE).
pub fn locks_rows(p: &Plan) -> Option<nestor_txn::LockMode> {
    match p {
        Plan::LockRows { mode, .. } => Some(*mode),
        Plan::Project { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Filter { input, .. }
        | Plan::Sort { input, .. } => locks_rows(input),
        _ => None,
    }
}

/// Whether every table a locking query (SELECT ... FOR UPDATE/SHARE)
/// locks rows of is temporary: a read-only transaction may lock those, as
/// PostgreSQL's ExecCheckXactReadOnly skips temporary relations.
pub fn locks_only_temp(p: &Plan) -> bool {
    match p {
        Plan::LockRows { targets, .. } => targets
            .iter()
            .all(|t| t.table.persistence == nestor_catalog::Persistence::Temporary),
        Plan::Project { input, .. }
        | Plan::Limit { input, .. }
        | Plan::Filter { input, .. }
        | Plan::Sort { input, .. } => locks_only_temp(input),
        _ => false,
    }
}

/// EXPLAIN text of a statement, one line per entry.
pub fn explain(stmt: &PlannedStmt, out: &mut Vec<String>) {
    match stmt {
        PlannedStmt::Query(plan) => plan.explain(out),
        PlannedStmt::Insert(p) => explain_insert(p, out),
        PlannedStmt::Modify(p) => explain_modify(p, out),
        PlannedStmt::Instead(p) => explain_instead(p, out),
        PlannedStmt::Merge(p) => {
            out.push(format!("Merge on {}", p.table.name));
            let mut sub = Vec::new();
            p.input.explain(&mut sub);
            for (i, l) in sub.into_iter().enumerate() {
                let pad = if i == 0 { "  ->  " } else { "      " };
                out.push(format!("{pad}{l}"));
            }
        }
        PlannedStmt::Explain { inner, .. } => explain(inner, out),
        PlannedStmt::With { writes, main } => {
            // As PostgreSQL: the main plan's top line, then each item
            // ("CTE name" and its statement), then the rest.
            let mut lines = Vec::new();
            explain(main, &mut lines);
            let mut rest = lines.into_iter();
            out.extend(rest.next());
            for w in writes {
                out.push(format!("  CTE {}", w.name));
                let mut sub = Vec::new();
                match &w.stmt {
                    WriteStmt::Insert(p) => explain_insert(p, &mut sub),
                    WriteStmt::Modify(p) => explain_modify(p, &mut sub),
                    WriteStmt::Instead(p) => explain_instead(p, &mut sub),
                }
                for (i, l) in sub.into_iter().enumerate() {
                    let pad = if i == 0 { "    ->  " } else { "        " };
                    out.push(format!("{pad}{l}"));
                }
            }
            out.extend(rest);
        }
        PlannedStmt::Rewritten { products, .. } => {
            // As PostgreSQL: each query's plan in turn.
            for p in products {
                explain(&p.stmt, out);
            }
        }
        PlannedStmt::Call { .. } | PlannedStmt::Ddl => {}
    }
}

fn explain_instead(p: &crate::instead::InsteadPlan, out: &mut Vec<String>) {
    let what = match p.kind {
        WriteKind::Insert => "Insert",
        WriteKind::Update => "Update",
        WriteKind::Delete => "Delete",
    };
    out.push(format!("{what} on {}", p.view.name));
    let mut sub = Vec::new();
    p.source.explain(&mut sub);
    for (i, l) in sub.into_iter().enumerate() {
        let pad = if i == 0 { "  ->  " } else { "      " };
        out.push(format!("{pad}{l}"));
    }
}

fn explain_insert(p: &InsertPlan, out: &mut Vec<String>) {
    out.push(format!("Insert on {}", p.table.name));
    let mut sub = Vec::new();
    p.source.explain(&mut sub);
    out.extend(sub.into_iter().map(|l| format!("  ->  {}", l.trim_start())));
}

fn explain_modify(p: &ModifyPlan, out: &mut Vec<String>) {
    let what = if p.delete { "Delete" } else { "Update" };
    out.push(format!("{what} on {}", p.table.name));
    let mut sub = Vec::new();
    p.input.explain(&mut sub);
    if !p.children.is_empty() {
        // An inheritance tree: one line per table written, then the
        // scans of each, as PostgreSQL's Append under the ModifyTable.
        out.push(format!("  {what} on {}", p.table.name));
        for c in &p.children {
            out.push(format!("  {what} on {}", c.table.name));
        }
        let mut inputs = vec!["Append".to_string()];
        for c in std::iter::once(p).chain(&p.children) {
            let mut lines = Vec::new();
            c.input.explain(&mut lines);
            for (i, l) in lines.into_iter().enumerate() {
                let pad = if i == 0 { "  ->  " } else { "      " };
                inputs.push(format!("{pad}{l}"));
            }
        }
        sub = inputs;
    }
    for (i, l) in sub.into_iter().enumerate() {
        let pad = if i == 0 { "  ->  " } else { "      " };
        out.push(format!("{pad}{l}"));
    }
}
