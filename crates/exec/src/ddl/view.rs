//! Views: CREATE [OR REPLACE] VIEW, DROP VIEW, and what keeps a view
//! valid while the tables under it change.
//!
//! A view is its defining query as SQL text (PostgreSQL's deparser) plus
//! the columns it had when created (names and types). A query naming the
//! view plans that text as a subquery in its place
//! (`nestor_plan::select::from::plan_view`), so a view always reads the
//! current rows through the current plan machinery; its columns stay
//! those of CREATE VIEW (columns later added to a table it selects `*`
//! from do not appear, as in PostgreSQL).
//!
//! PostgreSQL stores a view as a parse tree that refers to tables and
//! columns by number, so renames follow it and the dependency machinery
//! refuses changes that would break it. Nestor keeps text, and with it
//! the columns of each table the query reads (`ViewDef::column_deps`:
//! taken from the privileges its plan needs when it is made, which the
//! binder marks column by column, so a `*` counts the columns there were
//! then), so:
//!
//! ```text
//!   DROP TABLE t            view v reads t  -> 2BP01 (CASCADE drops v)
//!   ALTER TABLE t DROP      v reads c -> 2BP01 naming v and the views
//!     COLUMN c                over it (CASCADE drops them; column_deps.rs)
//!   ALTER TABLE t ALTER     v reads c -> 0A000, as PostgreSQL
//!     COLUMN c TYPE
//!   ALTER TABLE t RENAME    v's text is rewritten (t -> new name), then
//!   / RENAME COLUMN           re-planned
//!   ALTER TABLE t ...       every view over t (transitively) is re-planned
//!                           after the change; one that no longer plans, or
//!                           no longer yields its columns, fails the ALTER
//! ```
//!
//! TEMP views (and views over TEMP objects, which PostgreSQL makes TEMP
//! with a NOTICE) live in the session's namespace, are never logged and go
//! with the session, as TEMP tables do.
//!
//! WITH [LOCAL | CASCADED] CHECK OPTION is kept in the definition; writing
//! through a view is `nestor_plan::view_write`'s. The options
//! security_barrier and security_invoker are kept too (ALTER VIEW SET /
//! RESET changes them); security_invoker makes what the view reads
//! checked as the querying user (`ViewDef::security_invoker`).
//! Materialized views are elsewhere (`matview.rs`).

use std::sync::Arc;

use nestor_catalog::{Change, Relation, ViewCheckOption, ViewDef};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb;
use nestor_plan::bind::{self, relname};
use nestor_types::DataType;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// CREATE [OR REPLACE] VIEW name [(columns)] AS query.
pub fn create_view(
    ctx: &mut StatementCtx,
    text: &str,
    vs: &pb::ViewStmt,
) -> Result<CommandTag, DbError> {
    let rv = vs
        .view
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE VIEW without a name"))?;
    let name = relname(rv)?;
    let opts = ViewOptions::of(vs)?;
    let check_option = opts.check_option;
    let query = vs
        .query
        .as_deref()
        .ok_or_else(|| DbError::internal("CREATE VIEW without a query"))?;
    let raw = pb::RawStmt {
        stmt: Some(Box::new(query.clone())),
        stmt_location: 0,
        stmt_len: 0,
    };
    // Described, not run: no policies (PostgreSQL stores the view's
    // query before its rewriter would apply them).
    let (out, needs) =
        nestor_plan::select::rls::unapplied(|| (crate::ROUTINES.describe_needs)(ctx, text, &raw))?;
    if let Some(pb::node::Node::SelectStmt(sel)) = query.node.as_ref() {
        if sel
            .with_clause
            .as_ref()
            .is_some_and(nestor_plan::with_modify::has_writes)
        {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "views must not contain data-modifying statements in WITH",
            ));
        }
    }
    let aliases = bind::names(&vs.aliases);
    if aliases.len() > out.len() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "CREATE VIEW specifies more column names than columns",
        ));
    }
    let mut columns: Vec<(String, DataType)> = Vec::with_capacity(out.len());
    for (i, c) in out.iter().enumerate() {
        let name = aliases.get(i).cloned().unwrap_or_else(|| c.name.clone());
        if columns.iter().any(|(n, _)| *n == name) {
            return Err(DbError::new(
                SqlState::DuplicateColumn,
                format!("column \"{name}\" specified more than once"),
            ));
        }
        // An anonymous record (a SEARCH BREADTH FIRST column) or an array
        // of them (a CYCLE path): PostgreSQL's 42P16.
        if let 2249 | 2287 = c.type_oid {
            let what = if c.type_oid == 2249 {
                "record"
            } else {
                "record[]"
            };
            return Err(super::table::pseudo_column(&name, what));
        }
        let ty = match DataType::from_oid_typmod(c.type_oid, c.type_modifier) {
            Some(DataType::Unknown) => DataType::Text,
            Some(t) => t,
            None => {
                return Err(DbError::unsupported(format!(
                    "a view column of type {}",
                    c.type_oid
                )))
            }
        };
        columns.push((name, ty));
    }
    let (depends_on, reads_temp) = relations_read(ctx, query)?;
    let mut column_deps = columns_read(&needs, &depends_on);
    for (rel, cols) in row_type_columns(ctx, query)? {
        if !column_deps.iter().any(|(r, _)| *r == rel) {
            column_deps.push((rel, cols));
        }
    }
    // A view over TEMP objects is TEMP itself, as in PostgreSQL.
    let temporary = rv.relpersistence == "t" || reads_temp;
    if reads_temp && rv.relpersistence != "t" {
        super::notice(ctx, format!("view \"{name}\" will be a temporary view"));
    }
    let prev = match ctx.catalog.relation(&name) {
        None => None,
        Some(Relation::View(v)) if vs.replace => Some(v),
        Some(Relation::View(_)) | Some(_) if !vs.replace => {
            return Err(DbError::new(
                SqlState::DuplicateTable,
                format!("relation \"{}\" already exists", rv.relname),
            ))
        }
        Some(_) => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{name}\" is not a view"),
            ))
        }
    };
    if let Some(p) = &prev {
        check_replacement(p, &columns)?;
        if reads_view(ctx, &depends_on, p.oid) {
            return Err(DbError::new(
                SqlState::InvalidObjectDefinition,
                format!("infinite recursion detected in rules for relation \"{name}\""),
            ));
        }
    }
    let (oid, rule_oid) = match &prev {
        Some(p) => (p.oid, p.rule_oid),
        None => (ctx.catalog.alloc_oid(), ctx.catalog.alloc_oid()),
    };
    let namespace = match &prev {
        Some(p) => p.namespace,
        None if temporary => nestor_catalog::TEMP_NAMESPACE,
        None => super::table::creation_namespace(ctx, rv, false)?,
    };
    let def = ViewDef {
        oid,
        rule_oid,
        name: rv.relname.clone(),
        namespace,
        query: stored_query(ctx, query)?,
        columns,
        depends_on,
        temporary,
        check_option,
        security_barrier: opts.security_barrier,
        security_invoker: opts.security_invoker,
        rules: prev.as_ref().map(|p| p.rules.clone()).unwrap_or_default(),
        triggers: prev
            .as_ref()
            .map(|p| p.triggers.clone())
            .unwrap_or_default(),
        // OR REPLACE keeps the columns, and so their defaults.
        defaults: prev
            .as_ref()
            .map(|p| p.defaults.clone())
            .unwrap_or_default(),
        column_deps: Some(column_deps),
    };
    let def = Arc::new(def);
    if check_option != ViewCheckOption::None {
        nestor_plan::view_write::check_option_allowed(ctx.catalog, ctx.eval, &def)?;
    }
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutView(def))?;
    if prev.is_some() {
        revalidate_views_on(ctx, oid, "view")?;
    }
    Ok(CommandTag::Plain("CREATE VIEW"))
}

/// A view's options (PostgreSQL's view reloptions).
#[derive(Clone, Copy, Default)]
struct ViewOptions {
    check_option: ViewCheckOption,
    security_barrier: bool,
    security_invoker: bool,
}

impl ViewOptions {
    /// WITH [LOCAL | CASCADED] CHECK OPTION, and `WITH (check_option =
    /// ..., security_barrier [= bool], security_invoker [= bool])`.
    fn of(vs: &pb::ViewStmt) -> Result<ViewOptions, DbError> {
        let mut o = ViewOptions::default();
        for d in &vs.options {
            if let Some(nestor_parser::NodeEnum::DefElem(d)) = d.node.as_ref() {
                o.set(d)?;
            }
        }
        // The clause wins over the option, as in PostgreSQL's DefineView.
        match pb::ViewCheckOption::try_from(vs.with_check_option) {
            Ok(pb::ViewCheckOption::LocalCheckOption) => o.check_option = ViewCheckOption::Local,
            Ok(pb::ViewCheckOption::CascadedCheckOption) => {
                o.check_option = ViewCheckOption::Cascaded
            }
            _ => {}
        }
        Ok(o)
    }

    /// The options of `def`.
    fn from_def(def: &ViewDef) -> ViewOptions {
        ViewOptions {
            check_option: def.check_option,
            security_barrier: def.security_barrier,
            security_invoker: def.security_invoker,
        }
    }

    /// Set one option (`SET (name = value)`); 22023 for an unknown name
    /// or a bad value, as PostgreSQL's reloptions parser says.
    fn set(&mut self, d: &pb::DefElem) -> Result<(), DbError> {
        let value = match d.arg.as_deref().and_then(|a| a.node.as_ref()) {
            Some(nestor_parser::NodeEnum::String(s)) => Some(s.sval.clone()),
            Some(nestor_parser::NodeEnum::TypeName(t)) => Some(bind::names(&t.names).join(".")),
            Some(nestor_parser::NodeEnum::Integer(i)) => Some(i.ival.to_string()),
            Some(nestor_parser::NodeEnum::Boolean(b)) => Some(b.boolval.to_string()),
            Some(nestor_parser::NodeEnum::Float(f)) => Some(f.fval.clone()),
            _ => None,
        };
        let bad = |kind: &str, v: &str| {
            DbError::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for {kind} option \"{}\": {v}", d.defname),
            )
        };
        let boolean = |v: Option<String>| -> Result<bool, DbError> {
            let Some(v) = v else {
                return Ok(true);
            };
            match v.to_ascii_lowercase().as_str() {
                "true" | "on" | "yes" | "1" | "t" | "y" => Ok(true),
                "false" | "off" | "no" | "0" | "f" | "n" => Ok(false),
                _ => Err(bad("boolean", &v)),
            }
        };
        match d.defname.as_str() {
            "check_option" => {
                let v = value.unwrap_or_default();
                self.check_option = match v.as_str() {
                    "local" => ViewCheckOption::Local,
                    "cascaded" => ViewCheckOption::Cascaded,
                    _ => {
                        return Err(bad("enum", &v)
                            .with_detail("Valid values are \"local\" and \"cascaded\"."))
                    }
                }
            }
            "security_barrier" => self.security_barrier = boolean(value)?,
            "security_invoker" => self.security_invoker = boolean(value)?,
            other => {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("unrecognized parameter \"{other}\""),
                ))
            }
        }
        Ok(())
    }

    /// Back to the default (`RESET (name)`).
    fn reset(&mut self, name: &str) -> Result<(), DbError> {
        match name {
            "check_option" => self.check_option = ViewCheckOption::None,
            "security_barrier" => self.security_barrier = false,
            "security_invoker" => self.security_invoker = false,
            other => {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("unrecognized parameter \"{other}\""),
                ))
            }
        }
        Ok(())
    }
}

/// View `name` for an ALTER by its owner (42P01, 42501).
fn owned_view(ctx: &StatementCtx, name: &str) -> Result<Arc<ViewDef>, DbError> {
    let Some(v) = ctx.catalog.view(name) else {
        return Err(DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        ));
    };
    crate::privilege::require_owner(
        ctx,
        nestor_catalog::acl::ObjKind::Table,
        v.oid.0,
        "view",
        &v.name,
    )?;
    Ok(v)
}

/// ALTER VIEW name SET (option = value, ...) / RESET (option, ...).
pub(crate) fn alter_view_options(
    ctx: &mut StatementCtx,
    name: &str,
    cmds: &[(bool, &pb::DefElem)],
) -> Result<(), DbError> {
    let v = owned_view(ctx, name)?;
    let mut o = ViewOptions::from_def(&v);
    for (set, d) in cmds {
        if *set {
            o.set(d)?;
        } else {
            o.reset(&d.defname)?;
        }
    }
    let def = Arc::new(ViewDef {
        check_option: o.check_option,
        security_barrier: o.security_barrier,
        security_invoker: o.security_invoker,
        ..(*v).clone()
    });
    if o.check_option != ViewCheckOption::None && v.check_option == ViewCheckOption::None {
        nestor_plan::view_write::check_option_allowed(ctx.catalog, ctx.eval, &def)?;
    }
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutView(def))
}

/// ALTER VIEW name ALTER [COLUMN] col SET DEFAULT expr / DROP DEFAULT:
/// the default is checked as a table column's (no column references, no
/// subqueries, assignable to the column's type) and kept as SQL text in
/// the view's definition; writes through the view apply it
/// (`nestor_plan::view_write`).
pub(crate) fn alter_view_default(
    ctx: &mut StatementCtx,
    text: &str,
    name: &str,
    column: &str,
    expr: Option<&pb::Node>,
) -> Result<(), DbError> {
    let v = owned_view(ctx, name)?;
    let pos = v
        .columns
        .iter()
        .position(|(n, _)| n == column)
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{column}\" of relation \"{}\" does not exist",
                    v.name
                ),
            )
        })?;
    let mut defaults: Vec<(usize, String)> = v
        .defaults
        .iter()
        .filter(|(p, _)| *p != pos)
        .cloned()
        .collect();
    if let Some(d) = expr {
        // PostgreSQL cooks an ALTER's default without the statement's
        // text: its errors have no position.
        let checked = check_default(ctx, text, d, v.columns[pos].1).map_err(|mut e| {
            e.position = None;
            e
        });
        defaults.push((pos, checked?));
        defaults.sort_by_key(|(p, _)| *p);
    }
    let def = Arc::new(ViewDef {
        defaults,
        ..(*v).clone()
    });
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutView(def))
}

/// A view column's DEFAULT expression, bound and coerced to the column's
/// type as a table column's is, as the SQL text the view keeps.
fn check_default(
    ctx: &StatementCtx,
    text: &str,
    d: &pb::Node,
    ty: DataType,
) -> Result<String, DbError> {
    super::refuse_columns_and_subqueries(
        text,
        d,
        (super::DEFAULT_EXPRESSION, super::DEFAULT_EXPRESSION),
    )?;
    let mut b = super::binder(ctx, text);
    b.agg = nestor_plan::bind::AggCtx::NotAllowed("DEFAULT expressions");
    let (e, t) = b.bind(d)?;
    b.coerce_assign(e, t, ty)?;
    nestor_parser::deparse_expr(d)
}

/// OR REPLACE keeps the old columns (same names and types, in order) and
/// may add new ones at the end, as PostgreSQL requires.
fn check_replacement(prev: &ViewDef, columns: &[(String, DataType)]) -> Result<(), DbError> {
    let code = SqlState::InvalidTableDefinition;
    if columns.len() < prev.columns.len() {
        return Err(DbError::new(code, "cannot drop columns from view"));
    }
    for ((old, old_ty), (new, new_ty)) in prev.columns.iter().zip(columns) {
        if old != new {
            return Err(DbError::new(
                code,
                format!("cannot change name of view column \"{old}\" to \"{new}\""),
            )
            .with_hint(
                "Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.",
            ));
        }
        if old_ty != new_ty {
            return Err(DbError::new(
                code,
                format!(
                    "cannot change data type of view column \"{old}\" from {old_ty} to {new_ty}"
                ),
            ));
        }
    }
    Ok(())
}

/// The tables and views a query names (by OID). The parse tree is walked
/// through its serialized form for every RangeVar, so no node kind is
/// missed; a name that is a CTE of the query resolves to nothing or, if a
/// table has the same name, counts it (which only makes DROP stricter).
/// The relations a view's query reads, and whether one is TEMP.
pub(crate) fn relations_read(
    ctx: &StatementCtx,
    query: &pb::Node,
) -> Result<(Vec<RelId>, bool), DbError> {
    let json = serde_json::to_value(query)
        .map_err(|e| DbError::internal(format!("view query as JSON: {e}")))?;
    let mut names = Vec::new();
    collect_range_vars(&json, &mut names);
    let mut out = Vec::new();
    let mut temp = false;
    for (schema, rel) in names {
        if schema == "pg_catalog" || schema == "information_schema" {
            continue;
        }
        let name = match schema.as_str() {
            "" => rel,
            s => format!("{s}.{rel}"),
        };
        let oid = match ctx.catalog.relation(&name) {
            Some(Relation::Table(t)) => {
                temp |= t.persistence == nestor_catalog::Persistence::Temporary;
                t.oid
            }
            Some(Relation::View(v)) => {
                temp |= v.temporary;
                v.oid
            }
            Some(Relation::Sequence(s)) => {
                temp |= s.temporary;
                s.oid
            }
            _ => continue,
        };
        if !out.contains(&oid) {
            out.push(oid);
        }
    }
    Ok((out, temp))
}

/// A view's query as the catalog keeps it: deparsed, each relation it
/// names without a schema that the search path finds outside `public`
/// (and not TEMP) qualified by its schema, so the text reads the same
/// relations whatever the path of the session using the view (PostgreSQL
/// keeps their OIDs).
pub(crate) fn stored_query(ctx: &StatementCtx, query: &pb::Node) -> Result<String, DbError> {
    let sql = nestor_parser::deparse_query(query)?;
    let stmts = nestor_parser::parse_sql(&sql)?;
    let json = serde_json::to_value(&stmts)
        .map_err(|e| DbError::internal(format!("view query as JSON: {e}")))?;
    let (mut vars, mut ctes) = (Vec::new(), Vec::new());
    crate::pg_catalog::collect_unqualified(&json, &mut vars, &mut ctes);
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for (at, rel) in vars {
        if ctes.contains(&rel) {
            continue;
        }
        let namespace = match ctx.catalog.relation(&rel) {
            Some(Relation::Table(t)) if t.persistence != nestor_catalog::Persistence::Temporary => {
                t.namespace
            }
            Some(Relation::View(v)) if !v.temporary => v.namespace,
            Some(Relation::Sequence(s)) if !s.temporary => s.namespace,
            _ => continue,
        };
        if namespace == nestor_catalog::PUBLIC_NAMESPACE_OID {
            continue;
        }
        if let Some(schema) = ctx.catalog.schema_name(namespace) {
            inserts.push((at, format!("{}.", crate::pg_catalog::quote_ident(&schema))));
        }
    }
    if inserts.is_empty() {
        return Ok(sql);
    }
    inserts.sort_by_key(|i| std::cmp::Reverse(i.0));
    let mut pinned = sql;
    for (at, prefix) in inserts {
        if pinned.is_char_boundary(at) {
            pinned.insert_str(at, &prefix);
        }
    }
    let stmt = nestor_parser::parse_sql(&pinned)?
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .ok_or_else(|| DbError::internal("view query is empty"))?;
    nestor_parser::deparse_query(&stmt)
}

/// The relations a query names (schema, name), leaving out the names of
/// WITH queries where they are in scope (a WITH RECURSIVE item sees all
/// its clause's names, a plain one those before it; the statement's body
/// all of them), so `CREATE RECURSIVE VIEW v` does not read `v`.
fn collect_range_vars(v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    collect_range_vars_in(v, &mut Vec::new(), out);
}

fn collect_range_vars_in(
    v: &serde_json::Value,
    ctes: &mut Vec<String>,
    out: &mut Vec<(String, String)>,
) {
    use serde_json::Value as J;
    match v {
        J::Object(map) => {
            let with = map.get("with_clause").filter(|w| !w.is_null());
            let depth = ctes.len();
            if let Some(w) = with {
                let recursive = w.get("recursive").and_then(J::as_bool).unwrap_or(false);
                let items: Vec<(String, &J)> = w
                    .get("ctes")
                    .and_then(J::as_array)
                    .map(|v| v.as_slice())
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|c| {
                        let cte = c.get("node")?.get("CommonTableExpr")?;
                        Some((
                            cte.get("ctename")?.as_str()?.to_string(),
                            cte.get("ctequery")?,
                        ))
                    })
                    .collect();
                if recursive {
                    ctes.extend(items.iter().map(|i| i.0.clone()));
                }
                for (name, query) in &items {
                    collect_range_vars_in(query, ctes, out);
                    if !recursive {
                        ctes.push(name.clone());
                    }
                }
            }
            for (k, child) in map {
                if k == "with_clause" {
                    continue;
                }
                if k == "RangeVar" || k == "relation" {
                    let rel = child.get("relname").and_then(|r| r.as_str());
                    let schema = child
                        .get("schemaname")
                        .and_then(|r| r.as_str())
                        .unwrap_or("");
                    if let Some(rel) = rel.filter(|r| !r.is_empty()) {
                        if !(schema.is_empty() && ctes.iter().any(|c| c == rel)) {
                            out.push((schema.to_string(), rel.to_string()));
                        }
                    }
                }
                collect_range_vars_in(child, ctes, out);
            }
            ctes.truncate(depth);
        }
        J::Array(items) => {
            for i in items {
                collect_range_vars_in(i, ctes, out);
            }
        }
        _ => {}
    }
}

/// Whether relations `deps` read view `oid`, directly or through views.
fn reads_view(ctx: &StatementCtx, deps: &[RelId], oid: RelId) -> bool {
    let views = ctx.catalog.views();
    let mut seen: Vec<RelId> = Vec::new();
    let mut stack: Vec<RelId> = deps.to_vec();
    while let Some(d) = stack.pop() {
        if d == oid {
            return true;
        }
        if seen.contains(&d) {
            continue;
        }
        seen.push(d);
        if let Some(v) = views.iter().find(|v| v.oid == d) {
            stack.extend(v.depends_on.iter().copied());
        }
    }
    false
}

/// The views that read relation `oid`, directly or through other views,
/// dependents before what they depend on (the order to drop them in).
pub(crate) fn dependent_views(ctx: &StatementCtx, oid: RelId) -> Vec<Arc<ViewDef>> {
    let mut out: Vec<Arc<ViewDef>> = Vec::new();
    let mut frontier = vec![oid];
    while let Some(o) = frontier.pop() {
        for v in ctx.catalog.views_on(o) {
            if let Some(i) = out.iter().position(|x| x.oid == v.oid) {
                // Seen already: it must come before this level too.
                let v = out.remove(i);
                out.push(v);
            } else {
                out.push(v.clone());
            }
            frontier.push(v.oid);
        }
    }
    out.reverse();
    out
}

/// The views over relation `oid` in dependency order (each after what it
/// reads), each with the name of the relation it reads that led here
/// (`what` for the direct ones): PostgreSQL's DETAIL lines.
fn views_in_order(ctx: &StatementCtx, oid: RelId, what: &str) -> Vec<(Arc<ViewDef>, String)> {
    fn visit(ctx: &StatementCtx, oid: RelId, what: &str, out: &mut Vec<(Arc<ViewDef>, String)>) {
        let mut direct = ctx.catalog.views_on(oid);
        direct.sort_by_key(|v| v.oid.0);
        for v in direct {
            if out.iter().any(|(x, _)| x.oid == v.oid) {
                continue;
            }
            out.push((v.clone(), what.to_string()));
            visit(ctx, v.oid, &format!("view {}", v.name), out);
        }
    }
    let mut out = Vec::new();
    visit(ctx, oid, what, &mut out);
    out
}

/// DROP of relation `oid` (what: "table t"): its dependent views go with
/// CASCADE (with PostgreSQL's notice), else 2BP01. `dropping` are the
/// other relations the same statement drops.
pub(crate) fn drop_dependent_views(
    ctx: &mut StatementCtx,
    oid: RelId,
    what: &str,
    dropping: &[RelId],
    cascade: bool,
) -> Result<(), DbError> {
    let deps: Vec<_> = dependent_views(ctx, oid)
        .into_iter()
        .filter(|v| !dropping.contains(&v.oid))
        .collect();
    if deps.is_empty() {
        return Ok(());
    }
    if !cascade {
        let detail: Vec<String> = views_in_order(ctx, oid, what)
            .iter()
            .filter(|(v, _)| !dropping.contains(&v.oid))
            .map(|(v, on)| format!("view {} depends on {on}", v.name))
            .collect();
        return Err(super::dependents_remain(what, detail));
    }
    let mut listed: Vec<&Arc<ViewDef>> = deps.iter().collect();
    listed.sort_by_key(|v| v.oid.0);
    let lines: Vec<String> = listed
        .iter()
        .map(|v| format!("drop cascades to view {}", v.name))
        .collect();
    let notice = if lines.len() == 1 {
        DbError::new(SqlState::SuccessfulCompletion, lines[0].clone())
    } else {
        DbError::new(
            SqlState::SuccessfulCompletion,
            format!("drop cascades to {} other objects", lines.len()),
        )
        .with_detail(lines.join("\n"))
    };
    ctx.notices
        .push(notice.with_severity(nestor_common::error::Severity::Notice));
    for v in deps {
        let name = ctx.catalog.qualify(v.namespace, &v.name);
        if ctx.catalog.view(&name).is_some() {
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::DropView(name))?;
        }
    }
    Ok(())
}

/// DROP VIEW v (its dependents as DROP does for tables).
pub(crate) fn drop_view(
    ctx: &mut StatementCtx,
    name: &str,
    dropping: &[RelId],
    cascade: bool,
) -> Result<(), DbError> {
    let Some(v) = ctx.catalog.view(name) else {
        return Ok(());
    };
    let what = format!("view {name}");
    drop_dependent_views(ctx, v.oid, &what, dropping, cascade)?;
    super::matview::drop_dependents(ctx, v.oid, &what, dropping, cascade)?;
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::DropView(name.to_string()))
}

/// After a change to relation `oid`: every view over it must still plan
/// and yield its columns, else the change fails naming the first view
/// that would break.
pub(crate) fn revalidate_views_on(
    ctx: &mut StatementCtx,
    oid: RelId,
    what: &str,
) -> Result<(), DbError> {
    for (v, _) in views_in_order(ctx, oid, what) {
        let name = match v.namespace {
            nestor_catalog::TEMP_NAMESPACE => crate::pg_catalog::quote_ident(&v.name),
            ns => format!(
                "{}.{}",
                crate::pg_catalog::quote_ident(&ctx.catalog.schema_name(ns).unwrap_or_default()),
                crate::pg_catalog::quote_ident(&v.name)
            ),
        };
        let sql = format!("SELECT * FROM {name}");
        let stmts = nestor_parser::parse_sql(&sql)?;
        let Some(raw) = stmts.first() else { continue };
        let described =
            nestor_plan::select::rls::unapplied(|| (crate::ROUTINES.describe)(ctx, &sql, raw));
        if let Err(e) = described {
            let mut err = DbError::new(
                SqlState::DependentObjectsStillExist,
                format!("cannot change {what} because view {} depends on it", v.name),
            )
            .with_detail(e.detail.clone().unwrap_or_else(|| e.message.clone()));
            err = err.with_hint(
                "Nestor keeps a view's query as SQL text: drop the view, make the change, and create the view again.",
            );
            return Err(err);
        }
    }
    Ok(())
}

/// RENAME of a table or column that views read: their query text is
/// rewritten (`old` to `new` wherever it names something), then each is
/// re-planned by [`revalidate_views_on`].
pub(crate) fn rename_in_views(
    ctx: &mut StatementCtx,
    oid: RelId,
    old: &str,
    new: &str,
) -> Result<(), DbError> {
    for v in ctx.catalog.views_on(oid) {
        let query = nestor_parser::rename_identifier_in_query(&v.query, old, new)?;
        if query == v.query {
            continue;
        }
        let mut def = (*v).clone();
        def.query = query;
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::PutView(Arc::new(def)))?;
    }
    Ok(())
}

/// The columns of each relation a view's query reads directly, from the
/// privileges its plan needs: the needs checked as the current role (what
/// a view it reads reads is checked as that view's owner) on relations
/// the query names, which the binder marks column by column as it binds
/// references to them (a `*` expanded into each column).
pub(crate) fn columns_read(
    needs: &[nestor_plan::perm::Perm],
    named: &[RelId],
) -> Vec<(RelId, Vec<i16>)> {
    let mut out: Vec<(RelId, Vec<i16>)> = Vec::new();
    for p in needs {
        let direct = p.kind == nestor_catalog::acl::ObjKind::Table
            && p.check_as.is_none()
            && named.contains(&RelId(p.oid));
        if !direct || p.cols.select.is_empty() {
            continue;
        }
        match out.iter_mut().find(|(r, _)| r.0 == p.oid) {
            Some((_, cols)) => {
                for &a in &p.cols.select {
                    nestor_plan::perm::add_col(cols, a);
                }
            }
            None => out.push((RelId(p.oid), p.cols.select.clone())),
        }
    }
    out
}

/// The tables whose row type a function the query calls in FROM returns
/// (`FROM get_users()`, `ROWS FROM (get_users(), ...)`), each with the
/// columns of it the query uses. PostgreSQL records the view's dependency
/// on those columns; Nestor counts, of the columns there are when the
/// view is made, those a column reference of the query names (any
/// column reference ending in the name: a same-named column of another
/// relation counts too, which only makes DROP COLUMN stricter), or all
/// of them when the query selects a `*`. A call is counted when every
/// function of its name returns that row type.
fn row_type_columns(
    ctx: &StatementCtx,
    query: &pb::Node,
) -> Result<Vec<(RelId, Vec<i16>)>, DbError> {
    let json = serde_json::to_value(query)
        .map_err(|e| DbError::internal(format!("view query as JSON: {e}")))?;
    let mut names = Vec::new();
    range_function_names(&json, &mut names);
    let mut out: Vec<(RelId, Vec<i16>)> = Vec::new();
    for name in names {
        let mut rels = ctx
            .catalog
            .all_functions()
            .into_iter()
            .filter(|f| f.name == name)
            .map(|f| match f.returns {
                nestor_catalog::Returns::RowType(rel) => Some(rel),
                _ => None,
            })
            .collect::<Vec<_>>();
        rels.dedup();
        let [Some(rel)] = rels.as_slice() else {
            continue;
        };
        let Some(t) = ctx.catalog.table_by_oid(*rel) else {
            continue;
        };
        if out.iter().any(|(r, _)| r == rel) {
            continue;
        }
        let cols = t
            .live_columns()
            .filter(|(_, c)| names_column(&json, &c.name))
            .filter_map(|(i, _)| i16::try_from(i + 1).ok())
            .collect();
        out.push((*rel, cols));
    }
    Ok(out)
}

/// The names of the functions called in FROM (RangeFunction items).
fn range_function_names(v: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value as J;
    match v {
        J::Object(map) => {
            if let Some(rf) = map.get("RangeFunction") {
                let calls = rf.get("functions").and_then(J::as_array);
                for item in calls.map(|v| v.as_slice()).unwrap_or_default() {
                    let first = item
                        .pointer("/node/List/items/0/node/FuncCall/funcname")
                        .and_then(J::as_array)
                        .and_then(|n| n.last())
                        .and_then(|n| n.pointer("/node/String/sval"))
                        .and_then(J::as_str);
                    if let Some(name) = first {
                        out.push(name.to_string());
                    }
                }
            }
            for child in map.values() {
                range_function_names(child, out);
            }
        }
        J::Array(items) => items.iter().for_each(|i| range_function_names(i, out)),
        _ => {}
    }
}

/// The views that read column `pos` of table `t` directly, in creation
/// order: their recorded column dependencies, or for a view recorded
/// without them, its query naming the column (a column reference ending
/// in its name, which a same-named column of another table also matches)
/// or selecting `*`.
pub(crate) fn views_reading_column(
    ctx: &StatementCtx,
    t: &nestor_catalog::TableDef,
    pos: usize,
) -> Result<Vec<Arc<ViewDef>>, DbError> {
    let attnum = i16::try_from(pos + 1).unwrap_or(i16::MAX);
    let column = &t.columns[pos].name;
    let mut out = Vec::new();
    // Those reading it through a function returning its row type do not
    // name it (`views_on` misses them).
    let views = ctx.catalog.views().into_iter().filter(|v| {
        v.depends_on.contains(&t.oid)
            || v.column_deps
                .as_ref()
                .is_some_and(|d| d.iter().any(|(r, _)| *r == t.oid))
    });
    for v in views {
        let reads = match &v.column_deps {
            Some(deps) => deps
                .iter()
                .any(|(r, cols)| *r == t.oid && cols.contains(&attnum)),
            None => query_names_column(&v.query, column)?,
        };
        if reads {
            out.push(v);
        }
    }
    out.sort_by_key(|v| v.oid.0);
    Ok(out)
}

/// The first view that reads column `pos` of table `t` directly.
pub(crate) fn view_reading_column(
    ctx: &StatementCtx,
    t: &nestor_catalog::TableDef,
    pos: usize,
) -> Result<Option<Arc<ViewDef>>, DbError> {
    Ok(views_reading_column(ctx, t, pos)?.into_iter().next())
}

/// A view and the views over it, each with the DETAIL line saying why it
/// goes.
pub(crate) type ViewGroup = Vec<(Arc<ViewDef>, String)>;

/// The views to drop with column `pos` of table `t`: one group for each
/// view reading it (in creation order), of that view and the views over
/// it (those not in an earlier group), each with PostgreSQL's reason for
/// it ("view v depends on column c of table t", "view w depends on view
/// v"); each view's dependents follow it.
pub(crate) fn view_groups_on_column(
    ctx: &StatementCtx,
    t: &nestor_catalog::TableDef,
    pos: usize,
) -> Result<Vec<ViewGroup>, DbError> {
    let column = format!("column {} of table {}", t.columns[pos].name, t.name);
    let mut seen: Vec<RelId> = Vec::new();
    let mut out = Vec::new();
    for v in views_reading_column(ctx, t, pos)? {
        if seen.contains(&v.oid) {
            continue;
        }
        let line = format!("view {} depends on {column}", v.name);
        out.push(view_and_dependents(ctx, v, line, &mut seen));
    }
    Ok(out)
}

/// View `v` (going because `why`) and the views over it not in `seen`,
/// each with its DETAIL line; all of them are added to `seen`.
pub(crate) fn view_and_dependents(
    ctx: &StatementCtx,
    v: Arc<ViewDef>,
    why: String,
    seen: &mut Vec<RelId>,
) -> ViewGroup {
    let over = format!("view {}", v.name);
    let oid = v.oid;
    seen.push(oid);
    let mut group = vec![(v, why)];
    for (w, on) in views_in_order(ctx, oid, &over) {
        if !seen.contains(&w.oid) {
            seen.push(w.oid);
            let line = format!("view {} depends on {on}", w.name);
            group.push((w, line));
        }
    }
    group
}

/// The views whose query names type `name` (a cast to it, in any
/// schema), in creation order. PostgreSQL records the dependency of the
/// view on the type; Nestor finds the name in the query text.
pub(crate) fn views_naming_type(
    ctx: &StatementCtx,
    name: &str,
) -> Result<Vec<Arc<ViewDef>>, DbError> {
    let mut out = Vec::new();
    for v in ctx.catalog.views() {
        let json = serde_json::to_value(nestor_parser::parse_sql(&v.query)?)
            .map_err(|e| DbError::internal(format!("view query as JSON: {e}")))?;
        if names_type(&json, name) {
            out.push(v);
        }
    }
    out.sort_by_key(|v| v.oid.0);
    Ok(out)
}

/// Whether a parse tree has a type name whose last part is `name`.
fn names_type(v: &serde_json::Value, name: &str) -> bool {
    use serde_json::Value as J;
    match v {
        J::Object(map) => map.iter().any(|(k, child)| {
            if k == "TypeName" || k == "type_name" {
                let last = child
                    .get("names")
                    .and_then(J::as_array)
                    .and_then(|n| n.last())
                    .and_then(|n| n.pointer("/node/String/sval"))
                    .and_then(J::as_str);
                if last == Some(name) {
                    return true;
                }
            }
            names_type(child, name)
        }),
        J::Array(items) => items.iter().any(|i| names_type(i, name)),
        _ => false,
    }
}

/// [`view_groups_on_column`] as one list.
pub(crate) fn views_dropped_with_column(
    ctx: &StatementCtx,
    t: &nestor_catalog::TableDef,
    pos: usize,
) -> Result<Vec<(Arc<ViewDef>, String)>, DbError> {
    Ok(view_groups_on_column(ctx, t, pos)?
        .into_iter()
        .flatten()
        .collect())
}

/// Drop the views `views` (from [`views_dropped_with_column`]) for a
/// cascaded drop whose NOTICE the caller gave: dependents first.
pub(crate) fn drop_views_cascaded(
    ctx: &mut StatementCtx,
    views: &[(Arc<ViewDef>, String)],
) -> Result<(), DbError> {
    let oids: Vec<RelId> = views.iter().map(|(v, _)| v.oid).collect();
    for (v, _) in views.iter().rev() {
        let name = ctx.catalog.qualify(v.namespace, &v.name);
        drop_view(ctx, &name, &oids, true)?;
    }
    Ok(())
}

/// Whether a query (SQL text) has a column reference ending in `column`,
/// or a `*`.
fn query_names_column(query: &str, column: &str) -> Result<bool, DbError> {
    for raw in &nestor_parser::parse_sql(query)? {
        let json = serde_json::to_value(&raw.stmt)
            .map_err(|e| DbError::internal(format!("view query as JSON: {e}")))?;
        if names_column(&json, column) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn names_column(v: &serde_json::Value, column: &str) -> bool {
    match v {
        serde_json::Value::Object(map) => map.iter().any(|(k, child)| {
            if k == "ColumnRef" {
                let last = child
                    .get("fields")
                    .and_then(|f| f.as_array())
                    .and_then(|f| f.last());
                if let Some(last) = last {
                    let last = last.get("node").unwrap_or(last);
                    if last.get("AStar").is_some() || last.get("A_Star").is_some() {
                        return true;
                    }
                    let name = last
                        .get("String")
                        .and_then(|s| s.get("sval"))
                        .and_then(|s| s.as_str());
                    if name == Some(column) {
                        return true;
                    }
                }
            }
            names_column(child, column)
        }),
        serde_json::Value::Array(items) => items.iter().any(|i| names_column(i, column)),
        _ => false,
    }
}
