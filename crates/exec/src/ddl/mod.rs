//! DDL: CREATE/DROP/ALTER TABLE, CREATE/DROP INDEX, sequences, TRUNCATE,
//! VACUUM and ANALYZE.
//!
//! DDL is planned and executed in one step at execution time (its plan is
//! the parse tree). Each change builds new catalog definitions and applies
//! them through `Catalog::apply`, which records the undo in the
//! transaction, so ROLLBACK and ROLLBACK TO revert schema changes like
//! data changes. Generated names follow PostgreSQL (`t_pkey`, `t_a_key`,
//! `t_a_idx`, `t_a_check`, `t_id_seq`).

mod aggregate;
mod alter;
mod alter_type;
mod cast;
mod column_deps;
mod column_storage;
mod comment;
mod composite;
mod database;
mod default_acl;
mod domain;
mod enum_type;
mod extension;
mod foreign_key;
mod function;
mod function_deps;
mod generated;
mod grant;
mod index_am;
mod index_expr;
mod inherit;
mod matview;
mod opclass;
mod operator_oids;
mod owned;
mod part_index;
mod partition;
mod policy;
mod reindex;
mod rename;
mod role;
mod role_settings;
mod rule;
mod schema;
mod seq_params;
mod table;
mod trigger;
mod view;

pub use aggregate::create_aggregate;
pub use alter::alter_table;
pub use cast::create_cast;
pub use comment::comment;
pub use composite::create_composite;
pub use database::{alter_database, create_database, drop_database};
pub use default_acl::alter_default_privileges;
pub(crate) use default_acl::apply_default_acls;
pub use domain::{alter_domain, create_domain};
pub use enum_type::{alter_enum, create_enum};
pub use extension::create_extension;
pub use function::alter_function;
pub use grant::grant;
pub(crate) use grant::{check_ddl, created_objects, record_owner};
pub use matview::refresh as refresh_matview;
pub use opclass::{alter_opfamily, create_opclass, create_opfamily};
pub use owned::{drop_owned, reassign_owned};
pub use policy::{alter_policy, create_policy};
pub(crate) use reindex::reindex;
pub use rename::rename;
pub use role::{alter_role, create_role, drop_role, grant_role};
pub use role_settings::{alter_database_set, alter_role_set, const_text, set_stmt_value};
pub use rule::create_rule;
pub use schema::create_schema;
pub use table::{create_index, create_table, create_table_as};
pub use trigger::create_trigger;
pub use view::create_view;

use std::sync::Arc;

use nestor_catalog::{Change, Sequence};
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node, relname, Binder, Scope};
use nestor_txn::{TableLockMode, WaitPolicy};
use parking_lot::Mutex;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// An expression where PostgreSQL allows no column references nor
/// subqueries (a DEFAULT, a partition bound): the first of them met, in
/// text order, is the error (`cannot use column reference in {columns}`:
/// 42P10 for a partition bound, 0A000 in a DEFAULT, as PostgreSQL's
/// transformColumnRef; 0A000 `cannot use subquery in {subqueries}`), at
/// it.
/// What `refuse_columns_and_subqueries` calls a DEFAULT.
pub(crate) const DEFAULT_EXPRESSION: &str = "DEFAULT expression";

pub(crate) fn refuse_columns_and_subqueries(
    text: &str,
    n: &pb::Node,
    (columns, subqueries): (&str, &str),
) -> Result<(), DbError> {
    let Some(e) = n.node.as_ref() else {
        return Ok(());
    };
    let mut first: Option<(i32, bool)> = None;
    for (r, ..) in e.nodes() {
        let found = match r {
            nestor_parser::NodeRef::ColumnRef(c) => Some((c.location, true)),
            nestor_parser::NodeRef::SubLink(l) => Some((l.location, false)),
            _ => None,
        };
        if let Some(f) = found {
            if first.is_none_or(|p| f.0 < p.0) {
                first = Some(f);
            }
        }
    }
    let Some((loc, column)) = first else {
        return Ok(());
    };
    let e = if column {
        let code = if columns == DEFAULT_EXPRESSION {
            SqlState::FeatureNotSupported
        } else {
            SqlState::InvalidColumnReference
        };
        DbError::new(code, format!("cannot use column reference in {columns}"))
    } else {
        DbError::new(
            SqlState::FeatureNotSupported,
            format!("cannot use subquery in {subqueries}"),
        )
    };
    Err(bind::err_at(e, text, loc))
}

fn notice(ctx: &mut StatementCtx, msg: String) {
    notice_code(ctx, SqlState::SuccessfulCompletion, msg);
}

fn notice_code(ctx: &mut StatementCtx, code: SqlState, msg: String) {
    ctx.notices
        .push(DbError::new(code, msg).with_severity(Severity::Notice));
}

fn exists_err(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateTable,
        format!("relation \"{name}\" already exists"),
    )
}

/// CREATE ... of a relation name already taken: with IF NOT EXISTS a
/// notice and the command's tag (nothing to do), else 42P07. None: the
/// name is free.
fn skip_existing(
    ctx: &mut StatementCtx,
    name: &str,
    if_not_exists: bool,
    tag: &'static str,
    temporary: bool,
) -> Result<Option<CommandTag>, DbError> {
    // A composite type has a pg_class row of its name too.
    let composite = !temporary && ctx.catalog.composite(name).is_some();
    if !ctx.catalog.name_taken_in(name, temporary) && !composite {
        return Ok(None);
    }
    let name = ctx.catalog.unqualified(name).to_string();
    if !if_not_exists {
        return Err(exists_err(&name));
    }
    notice_code(
        ctx,
        SqlState::DuplicateTable,
        format!("relation \"{name}\" already exists, skipping"),
    );
    Ok(Some(CommandTag::Plain(tag)))
}

fn undefined_table(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedTable,
        format!("relation \"{name}\" does not exist"),
    )
}

/// A unique relation name from `base` (PostgreSQL appends digits) in the
/// namespace a TEMP or a permanent object goes to.
fn fresh_name(ctx: &StatementCtx, base: &str, taken: &[String], temporary: bool) -> String {
    let base: String = base.chars().take(63).collect();
    let mut name = base.clone();
    let mut i = 1;
    while ctx.catalog.name_taken_in(&name, temporary) || taken.contains(&name) {
        name = format!("{base}{i}");
        i += 1;
    }
    name
}

fn binder<'e>(ctx: &'e StatementCtx, text: &'e str) -> Binder<'e> {
    let mut b = Binder::new(
        ctx.catalog,
        ctx.eval,
        text,
        &[],
        nestor_plan::select::plan_query,
    );
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    b
}

/// 2BP01 of a DROP without CASCADE, as PostgreSQL's
/// reportDependentObjects words it: `what` (`table t`, `column c of table
/// t`) has dependents, one DETAIL line each (`view v depends on table t`).
pub(crate) fn dependents_remain(
    what: impl std::fmt::Display,
    lines: impl IntoIterator<Item = String>,
) -> DbError {
    DbError::new(
        SqlState::DependentObjectsStillExist,
        format!("cannot drop {what} because other objects depend on it"),
    )
    .with_detail(lines.into_iter().collect::<Vec<_>>().join("\n"))
    .with_hint("Use DROP ... CASCADE to drop the dependent objects too.")
}

/// PostgreSQL's NOTICE for the objects (`view v`) a DROP ... CASCADE
/// takes along, in the order given: the one object, or a count with the
/// list in DETAIL. Nothing for none.
pub(crate) fn cascades_notice(ctx: &mut StatementCtx, what: &[String]) {
    let lines: Vec<String> = what
        .iter()
        .map(|w| format!("drop cascades to {w}"))
        .collect();
    let e = match lines.as_slice() {
        [] => return,
        [one] => DbError::new(SqlState::SuccessfulCompletion, one.clone()),
        _ => DbError::new(
            SqlState::SuccessfulCompletion,
            format!("drop cascades to {} other objects", lines.len()),
        )
        .with_detail(lines.join("\n")),
    };
    ctx.notices
        .push(e.with_severity(nestor_common::error::Severity::Notice));
}

#[derive(Clone)]
struct PendingIndex {
    name: Option<String>,
    cols: Vec<String>,
    unique: bool,
    primary: bool,
    /// From a PRIMARY KEY / UNIQUE constraint (not CREATE INDEX), at this
    /// location of the statement.
    constraint: Option<i32>,
    /// UNIQUE NULLS NOT DISTINCT.
    nulls_not_distinct: bool,
    /// CREATE INDEX ... USING (constraints' indexes are btree).
    method: nestor_catalog::AccessMethod,
    /// Each key's options (empty: all defaults, as a constraint's).
    keyopts: Vec<nestor_catalog::IndexKeyOpt>,
}

struct PendingCheck {
    name: Option<String>,
    expr: Node,
    column: Option<String>,
}

/// The command tag of a DROP statement, as PostgreSQL names it (in the
/// read-only transaction error, for one).
pub fn drop_tag(ds: &pb::DropStmt) -> &'static str {
    use pb::ObjectType as O;
    match O::try_from(ds.remove_type).unwrap_or(O::Undefined) {
        O::ObjectTable => "DROP TABLE",
        O::ObjectIndex => "DROP INDEX",
        O::ObjectSequence => "DROP SEQUENCE",
        O::ObjectView => "DROP VIEW",
        O::ObjectMatview => "DROP MATERIALIZED VIEW",
        O::ObjectFunction => "DROP FUNCTION",
        O::ObjectProcedure => "DROP PROCEDURE",
        O::ObjectRoutine => "DROP ROUTINE",
        O::ObjectAggregate => "DROP AGGREGATE",
        O::ObjectTrigger => "DROP TRIGGER",
        O::ObjectRule => "DROP RULE",
        O::ObjectPolicy => "DROP POLICY",
        O::ObjectSchema => "DROP SCHEMA",
        O::ObjectType => "DROP TYPE",
        O::ObjectDomain => "DROP DOMAIN",
        O::ObjectCast => "DROP CAST",
        O::ObjectOpclass => "DROP OPERATOR CLASS",
        O::ObjectOpfamily => "DROP OPERATOR FAMILY",
        O::ObjectExtension => "DROP EXTENSION",
        O::ObjectOperator => "DROP OPERATOR",
        O::ObjectCollation => "DROP COLLATION",
        _ => "DROP",
    }
}

/// DROP TABLE / INDEX / SEQUENCE.
pub fn drop(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let kind = pb::ObjectType::try_from(ds.remove_type).unwrap_or(pb::ObjectType::Undefined);
    if ds.concurrent {
        // PostgreSQL's ExecDropStmt and RemoveRelations, in their order.
        database::not_in_block(ctx, "DROP INDEX CONCURRENTLY")?;
        let refuse = |m: &str| Err(DbError::new(SqlState::FeatureNotSupported, m.to_string()));
        if ds.objects.len() != 1 {
            return refuse("DROP INDEX CONCURRENTLY does not support dropping multiple objects");
        }
        if ds.behavior == pb::DropBehavior::DropCascade as i32 {
            return refuse("DROP INDEX CONCURRENTLY does not support CASCADE");
        }
    }
    let what = match kind {
        pb::ObjectType::ObjectTable => "table",
        pb::ObjectType::ObjectIndex => "index",
        pb::ObjectType::ObjectSequence => "sequence",
        pb::ObjectType::ObjectView => "view",
        pb::ObjectType::ObjectMatview => "materialized view",
        pb::ObjectType::ObjectFunction
        | pb::ObjectType::ObjectProcedure
        | pb::ObjectType::ObjectRoutine
        | pb::ObjectType::ObjectAggregate => return function::drop_functions(ctx, ds, kind),
        pb::ObjectType::ObjectTrigger => return trigger::drop_trigger(ctx, ds),
        pb::ObjectType::ObjectRule => return rule::drop_rule(ctx, ds),
        pb::ObjectType::ObjectPolicy => return policy::drop_policy(ctx, ds),
        pb::ObjectType::ObjectSchema => return schema::drop_schema(ctx, ds),
        pb::ObjectType::ObjectType => return enum_type::drop_types(ctx, ds),
        pb::ObjectType::ObjectDomain => return domain::drop_domains(ctx, ds),
        pb::ObjectType::ObjectCast => return cast::drop_cast(ctx, ds),
        pb::ObjectType::ObjectOpclass => return opclass::drop_opclass(ctx, ds),
        pb::ObjectType::ObjectOpfamily => return opclass::drop_opfamily(ctx, ds),
        pb::ObjectType::ObjectExtension => return extension::drop_extensions(ctx, ds),
        _ => return Err(DbError::unsupported(format!("DROP of {kind:?}"))),
    };
    // Resolve all first (PostgreSQL drops all or nothing).
    let mut names = Vec::new();
    for o in &ds.objects {
        let parts = match node(o)? {
            NodeEnum::List(l) => bind::names(&l.items),
            NodeEnum::String(s) => vec![s.sval.clone()],
            _ => continue,
        };
        let Some(name) = qualified_name(ctx, &parts, ds.missing_ok)? else {
            continue;
        };
        let exists = match kind {
            pb::ObjectType::ObjectTable => ctx
                .catalog
                .table(&name)
                .is_some_and(|t| t.matview.is_none()),
            pb::ObjectType::ObjectMatview => ctx
                .catalog
                .table(&name)
                .is_some_and(|t| t.matview.is_some()),
            pb::ObjectType::ObjectIndex => matches!(
                ctx.catalog.relation(&name),
                Some(nestor_catalog::Relation::Index { .. })
            ),
            pb::ObjectType::ObjectView => ctx.catalog.view(&name).is_some(),
            _ => ctx.catalog.sequence(&name).is_some(),
        };
        if !exists {
            let name = ctx.catalog.unqualified(&name).to_string();
            if ds.missing_ok {
                notice(ctx, format!("{what} \"{name}\" does not exist, skipping"));
                continue;
            }
            if let Some(rel) = ctx.catalog.relation(&name) {
                let e = DbError::new(
                    SqlState::WrongObjectType,
                    format!("\"{name}\" is not a {what}"),
                );
                let hint = match rel {
                    nestor_catalog::Relation::Table(t) if t.matview.is_some() => {
                        "Use DROP MATERIALIZED VIEW to remove a materialized view."
                    }
                    nestor_catalog::Relation::Table(_) => "Use DROP TABLE to remove a table.",
                    nestor_catalog::Relation::View(_) => "Use DROP VIEW to remove a view.",
                    nestor_catalog::Relation::Index { .. } => "Use DROP INDEX to remove an index.",
                    nestor_catalog::Relation::Sequence(_) => {
                        "Use DROP SEQUENCE to remove a sequence."
                    }
                };
                return Err(e.with_hint(hint));
            }
            let msg = format!("{what} \"{name}\" does not exist");
            return Err(DbError::new(
                if matches!(
                    what,
                    "index" | "sequence" | "table" | "view" | "materialized view"
                ) {
                    SqlState::UndefinedTable
                } else {
                    SqlState::UndefinedObject
                },
                msg,
            ));
        }
        names.push(name);
    }
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    if kind == pb::ObjectType::ObjectTable {
        inherit::drop_children(ctx, &mut names, cascade)?;
    }
    if kind == pb::ObjectType::ObjectTable {
        // Foreign keys of tables not dropped with them that reference them:
        // 2BP01, or with CASCADE the constraints go.
        for name in &names {
            let Some(t) = ctx.catalog.table(name) else {
                continue;
            };
            let deps: Vec<_> = foreign_key::referenced_by_others(ctx, &t)
                .into_iter()
                .filter(|(c, _)| !names.contains(&c.name))
                .collect();
            if deps.is_empty() {
                continue;
            }
            if !cascade {
                return Err(foreign_key::dependents_error(&t, &deps));
            }
            let dropped: Vec<(u32, String)> = deps
                .iter()
                .map(|(c, fk)| {
                    (
                        fk.oid.0,
                        format!("constraint {} on table {}", fk.name, c.name),
                    )
                })
                .collect();
            foreign_key::cascade_notice(ctx, dropped);
            for (child, fk) in deps {
                let cur = ctx.catalog.table_by_oid(child.oid).unwrap_or(child);
                let mut new = (*cur).clone();
                new.foreign_keys.retain(|f| f.name != fk.name);
                put_table(ctx, new)?;
            }
        }
    }
    // Views over what is dropped: 2BP01, or with CASCADE they go first.
    let dropping: Vec<nestor_common::RelId> = names
        .iter()
        .filter_map(|n| match ctx.catalog.relation(n)? {
            nestor_catalog::Relation::Table(t) => Some(t.oid),
            nestor_catalog::Relation::View(v) => Some(v.oid),
            nestor_catalog::Relation::Sequence(s) => Some(s.oid),
            nestor_catalog::Relation::Index { .. } => None,
        })
        .collect();
    for name in names {
        match kind {
            pb::ObjectType::ObjectTable | pb::ObjectType::ObjectMatview => {
                if let Some(t) = ctx.catalog.table(&name) {
                    let what = if t.matview.is_some() {
                        format!("materialized view {name}")
                    } else {
                        format!("table {name}")
                    };
                    view::drop_dependent_views(ctx, t.oid, &what, &dropping, cascade)?;
                    matview::drop_dependents(ctx, t.oid, &what, &dropping, cascade)?;
                    row_type_functions(ctx, &t, &what, cascade)?;
                }
                drop_table(ctx, &name)?
            }
            pb::ObjectType::ObjectIndex => drop_index(ctx, &name)?,
            pb::ObjectType::ObjectView => view::drop_view(ctx, &name, &dropping, cascade)?,
            _ => {
                default_dependents(ctx, &name, cascade)?;
                drop_sequence(ctx, &name)?
            }
        }
    }
    Ok(CommandTag::Plain(drop_tag(ds)))
}

/// Functions whose arguments or result are table `t`'s row type
/// (`CREATE FUNCTION full_name(p people)`, `RETURNS people`): 2BP01
/// naming them (`function full_name(people) depends on type people`), or
/// with CASCADE they are dropped first, as PostgreSQL's dependency on the
/// table's pg_type row drops them.
fn row_type_functions(
    ctx: &mut StatementCtx,
    t: &nestor_catalog::TableDef,
    what: &str,
    cascade: bool,
) -> Result<(), DbError> {
    let oid = t.oid;
    let uses = |ty: nestor_types::DataType| composite::uses(ty, oid.0);
    let mut deps: Vec<Arc<nestor_catalog::FunctionDef>> = ctx
        .catalog
        .all_functions()
        .into_iter()
        .filter(|f| {
            f.args.iter().any(|a| uses(a.ty))
                || match &f.returns {
                    nestor_catalog::Returns::RowType(r) => *r == oid,
                    nestor_catalog::Returns::Scalar(ty) => uses(*ty),
                    nestor_catalog::Returns::Row(cols) => cols.iter().any(|(_, ty)| uses(*ty)),
                    _ => false,
                }
        })
        .collect();
    if deps.is_empty() {
        return Ok(());
    }
    deps.sort_by_key(|f| f.oid);
    if !cascade {
        return Err(dependents_remain(
            what,
            deps.iter()
                .map(|f| format!("{} depends on type {}", function::described(f), t.name)),
        ));
    }
    let lines: Vec<String> = deps
        .iter()
        .map(|f| format!("drop cascades to {}", function::described(f)))
        .collect();
    let e = match lines.as_slice() {
        [one] => DbError::new(SqlState::SuccessfulCompletion, one.clone()),
        _ => DbError::new(
            SqlState::SuccessfulCompletion,
            format!("drop cascades to {} other objects", lines.len()),
        )
        .with_detail(lines.join("\n")),
    };
    ctx.notices.push(e.with_severity(Severity::Notice));
    for f in deps {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropFunction(f))?;
    }
    Ok(())
}

/// Column defaults that call nextval / currval / setval of sequence `name`
/// (PostgreSQL records a dependency on the sequence a regclass constant
/// names): 2BP01 naming them, or with CASCADE the defaults are dropped.
fn default_dependents(ctx: &mut StatementCtx, name: &str, cascade: bool) -> Result<(), DbError> {
    let Some(seq) = ctx.catalog.sequence(name) else {
        return Ok(());
    };
    let mut deps: Vec<(Arc<nestor_catalog::TableDef>, usize)> = Vec::new();
    for t in ctx.catalog.tables() {
        for (i, c) in t.live_columns() {
            let Some(d) = &c.default else { continue };
            if sequences_called(ctx, d).contains(&seq.oid.0) {
                deps.push((t.clone(), i));
            }
        }
    }
    if deps.is_empty() {
        return Ok(());
    }
    let what = |(t, i): &(Arc<nestor_catalog::TableDef>, usize)| {
        format!(
            "default value for column {} of table {}",
            t.columns[*i].name, t.name
        )
    };
    if !cascade {
        return Err(dependents_remain(
            format_args!("sequence {}", seq.name),
            deps.iter()
                .map(|d| format!("{} depends on sequence {}", what(d), seq.name)),
        ));
    }
    foreign_key::cascade_notice(ctx, deps.iter().map(|d| (0, what(d))).collect());
    for (t, i) in deps {
        let cur = ctx.catalog.table_by_oid(t.oid).unwrap_or(t);
        let mut new = (*cur).clone();
        new.columns[i].default = None;
        put_table(ctx, new)?;
    }
    Ok(())
}

/// The OIDs of the sequences a default expression's nextval / currval /
/// setval calls name with a constant.
fn sequences_called(ctx: &StatementCtx, default: &str) -> Vec<u32> {
    let mut out = Vec::new();
    each_call(&format!("SELECT {default}"), |f| {
        let fname = bind::names(&f.funcname);
        if !matches!(
            fname.last().map(String::as_str),
            Some("nextval" | "currval" | "setval")
        ) {
            return;
        }
        let Some(arg) = f.args.first().and_then(|a| a.node.as_ref()) else {
            return;
        };
        // A regclass constant: a bare literal (nextval takes regclass)
        // or one cast to regclass; a text one is looked up at each call.
        let lit = match arg {
            NodeEnum::TypeCast(tc)
                if tc.type_name.as_ref().is_some_and(|t| {
                    bind::names(&t.names)
                        .last()
                        .is_some_and(|n| n == "regclass")
                }) =>
            {
                tc.arg.as_ref().and_then(|a| a.node.as_ref())
            }
            NodeEnum::TypeCast(_) => None,
            other => Some(other),
        };
        if let Some(NodeEnum::AConst(c)) = lit {
            if let Some(pb::a_const::Val::Sval(s)) = &c.val {
                if let Some(sq) = ctx.catalog.sequence(&s.sval) {
                    out.push(sq.oid.0);
                }
            }
        }
    });
    out
}

/// Call `f` on every function call of the SQL `sql` (nothing when it
/// does not parse).
pub(crate) fn each_call(sql: &str, mut f: impl FnMut(&pb::FuncCall)) {
    let Ok(stmts) = nestor_parser::parse_sql(sql) else {
        return;
    };
    for st in &stmts {
        let Some(n) = st.stmt.as_ref().and_then(|n| n.node.as_ref()) else {
            continue;
        };
        for (r, ..) in n.nodes() {
            if let nestor_parser::NodeRef::FuncCall(call) = r {
                f(call);
            }
        }
    }
}

/// The catalog's name for a relation written as `parts` (`schema.name`
/// outside `public`); a schema that does not exist is 3F000 (None after
/// a NOTICE with IF EXISTS), as PostgreSQL's DROP reports it.
fn qualified_name(
    ctx: &mut StatementCtx,
    parts: &[String],
    missing_ok: bool,
) -> Result<Option<String>, DbError> {
    match parts {
        [] => Ok(None),
        [.., s, n] if matches!(s.as_str(), "public" | "pg_temp") => Ok(Some(format!("{s}.{n}"))),
        [.., s, n] if s != "pg_catalog" => {
            if ctx.catalog.schema(s).is_some() {
                return Ok(Some(format!("{s}.{n}")));
            }
            if missing_ok {
                notice(ctx, format!("schema \"{s}\" does not exist, skipping"));
                return Ok(None);
            }
            Err(DbError::new(
                SqlState::InvalidSchemaName,
                format!("schema \"{s}\" does not exist"),
            ))
        }
        [.., n] => Ok(Some(n.clone())),
    }
}

fn drop_table(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    let def = ctx
        .catalog
        .table(name)
        .ok_or_else(|| undefined_table(name))?;
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::DropTable(name.to_string()))?;
    for s in &def.owned_sequences {
        let s = ctx.catalog.qualify(def.namespace, s);
        if ctx.catalog.sequence(&s).is_some() {
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::DropSequence(s))?;
        }
    }
    Ok(())
}

pub(super) fn drop_index(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    let Some(nestor_catalog::Relation::Index { table, .. }) = ctx.catalog.relation(name) else {
        return Err(undefined_table(name));
    };
    let name = ctx.catalog.unqualified(name);
    let idx = table
        .indexes
        .iter()
        .find(|i| i.name == name)
        .ok_or_else(|| undefined_table(name))?;
    if idx.constraint {
        return Err(DbError::new(
            SqlState::ObjectInUse,
            format!(
                "cannot drop index {name} because constraint {name} on table {} requires it",
                table.name
            ),
        )
        .with_hint(format!(
            "You can drop constraint {name} on table {} instead.",
            table.name
        )));
    }
    part_index::refuse_drop(ctx, &table, idx)?;
    // A partitioned index goes with its partitions' indexes.
    let mut doomed = part_index::claimed_tree(ctx, &table, idx);
    doomed.push((table.clone(), idx.clone()));
    for (t, i) in doomed {
        let cur = ctx.catalog.table_by_oid(t.oid).unwrap_or(t);
        let mut new = (*cur).clone();
        new.indexes.retain(|x| x.oid != i.oid);
        cur.storage.drop_index(i.oid);
        put_table(ctx, new)?;
    }
    Ok(())
}

fn drop_sequence(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::DropSequence(name.to_string()),
    )
}

fn def_int(d: &pb::DefElem) -> Result<Option<i64>, DbError> {
    match d.arg.as_deref().and_then(|n| n.node.as_ref()) {
        None => Ok(None),
        Some(NodeEnum::Integer(i)) => Ok(Some(i.ival as i64)),
        Some(NodeEnum::Float(f)) => f.fval.parse().map(Some).map_err(|_| {
            DbError::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for {}", d.defname),
            )
        }),
        Some(NodeEnum::Boolean(b)) => Ok(Some(b.boolval as i64)),
        Some(_) => Err(DbError::unsupported(format!(
            "sequence option {}",
            d.defname
        ))),
    }
}

/// CREATE SEQUENCE.
pub(crate) fn create_sequence(
    ctx: &mut StatementCtx,
    cs: &pb::CreateSeqStmt,
) -> Result<CommandTag, DbError> {
    let rv = cs
        .sequence
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE SEQUENCE without name"))?;
    let name = relname(rv)?;
    let temporary = rv.relpersistence == "t";
    let namespace = table::creation_namespace(ctx, rv, temporary)?;
    if let Some(tag) = skip_existing(ctx, &name, cs.if_not_exists, "CREATE SEQUENCE", temporary)? {
        return Ok(tag);
    }
    let f = seq_params::init_params(&cs.options, None, seq_params::INT8_OID, false)?;
    let seq = Arc::new(f.sequence(
        ctx.catalog.alloc_oid(),
        rv.relname.clone(),
        namespace,
        None,
        temporary,
    ));
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSequence(seq.clone()))?;
    set_owned_by(ctx, &seq, &name, &cs.options)?;
    Ok(CommandTag::Plain("CREATE SEQUENCE"))
}

/// ALTER SEQUENCE's parameter options (all but OWNED BY): the sequence
/// with its new parameters, installed when any was given. RESTART gives
/// it a state of its own, so that a rollback brings back the old one with
/// the old definition; otherwise the state is shared.
pub(super) fn alter_sequence_params(
    ctx: &mut StatementCtx,
    seq: &Arc<Sequence>,
    options: &[Node],
) -> Result<Arc<Sequence>, DbError> {
    let changes = options
        .iter()
        .any(|o| matches!(node(o), Ok(NodeEnum::DefElem(d)) if d.defname != "owned_by"));
    if !changes {
        return Ok(seq.clone());
    }
    let (last, called) = *seq.state.lock();
    let type_oid = match seq.type_oid {
        0 => crate::pg_catalog::sequence_type(ctx.catalog, seq).oid(),
        t => t,
    };
    let current = seq_params::SeqForm {
        type_oid,
        increment: seq.increment,
        min: seq.min,
        max: seq.max,
        start: seq.start,
        cache: seq.cache,
        cycle: seq.cycle,
        last,
        called,
    };
    let f = seq_params::init_params(options, Some(current), current.type_oid, false)?;
    let restarted = (f.last, f.called) != (last, called);
    let mut new = seq.with_owner(seq.owned_by.clone());
    new.increment = f.increment;
    new.min = f.min;
    new.max = f.max;
    new.start = f.start;
    new.cycle = f.cycle;
    new.type_oid = f.type_oid;
    new.cache = f.cache;
    if restarted {
        new.state = Arc::new(Mutex::new((f.last, f.called)));
        new.dirty = Arc::new(std::sync::atomic::AtomicBool::new(true));
    }
    let new = Arc::new(new);
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSequence(new.clone()))?;
    Ok(new)
}

/// ALTER SEQUENCE name [ parameters ] [ OWNED BY table.column | NONE ].
pub(crate) fn alter_sequence(
    ctx: &mut StatementCtx,
    st: &pb::AlterSeqStmt,
) -> Result<CommandTag, DbError> {
    let rv = st
        .sequence
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER SEQUENCE without name"))?;
    let name = relname(rv)?;
    let Some(seq) = ctx.catalog.sequence(&name) else {
        if ctx.catalog.relation(&name).is_some() {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{}\" is not a sequence", rv.relname),
            ));
        }
        if st.missing_ok {
            notice(ctx, format!("relation \"{name}\" does not exist, skipping"));
            return Ok(CommandTag::Plain("ALTER SEQUENCE"));
        }
        return Err(undefined_table(&name));
    };
    let seq = alter_sequence_params(ctx, &seq, &st.options)?;
    set_owned_by(ctx, &seq, &name, &st.options)?;
    Ok(CommandTag::Plain("ALTER SEQUENCE"))
}

/// The OWNED BY option of CREATE or ALTER SEQUENCE, if given: the
/// sequence `seq` (known as `name`) becomes owned by the column (dropped
/// with it) or by nothing.
fn set_owned_by(
    ctx: &mut StatementCtx,
    seq: &Arc<Sequence>,
    name: &str,
    options: &[Node],
) -> Result<(), DbError> {
    let mut owner: Option<Option<(String, String)>> = None;
    for o in options {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        if d.defname != "owned_by" {
            continue;
        }
        let parts = match d.arg.as_deref().map(node).transpose()? {
            Some(NodeEnum::List(l)) => bind::names(&l.items),
            _ => Vec::new(),
        };
        owner = Some(match parts.as_slice() {
            [none] if none.eq_ignore_ascii_case("none") => None,
            [.., table, column] => {
                let q = match parts.as_slice() {
                    [.., schema, _, _] => format!("{schema}.{table}"),
                    _ => table.clone(),
                };
                let t = ctx
                    .catalog
                    .table(&q)
                    .ok_or_else(|| not_an_owner(ctx, &q, table))?;
                if t.column_index(column).is_none() {
                    return Err(DbError::new(
                        SqlState::UndefinedColumn,
                        format!("column \"{column}\" of relation \"{table}\" does not exist"),
                    ));
                }
                if t.persistence == nestor_catalog::Persistence::Temporary && !seq.temporary {
                    return Err(DbError::new(
                        SqlState::ObjectNotInPrerequisiteState,
                        "sequence must have same owner as table it is linked to",
                    ));
                }
                Some((table.clone(), column.clone()))
            }
            _ => {
                return Err(
                    DbError::new(SqlState::SyntaxError, "invalid OWNED BY option")
                        .with_hint("Specify OWNED BY table.column or OWNED BY NONE."),
                )
            }
        });
    }
    let Some(owner) = owner else {
        return Ok(());
    };
    // The tables that list it among their owned sequences (dropped with
    // them) follow.
    if let Some((old_table, _)) = &seq.owned_by {
        let q = ctx.catalog.qualify(seq.namespace, old_table);
        if let Some(t) = ctx.catalog.table(&q) {
            let mut def = (*t).clone();
            def.owned_sequences.retain(|s| *s != name);
            put_table(ctx, def)?;
        }
    }
    if let Some((table, _)) = &owner {
        let q = ctx.catalog.qualify(seq.namespace, table);
        let t = ctx
            .catalog
            .table(&q)
            .ok_or_else(|| undefined_table(table))?;
        let mut def = (*t).clone();
        def.owned_sequences.push(name.to_string());
        put_table(ctx, def)?;
    }
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutSequence(Arc::new(seq.with_owner(owner))),
    )
}

/// Why OWNED BY `table.col` names no table (PostgreSQL's checks in
/// process_owned_by): an index is 42809, a system catalog is in another
/// schema than the sequence (55000), else the relation does not exist.
fn not_an_owner(ctx: &StatementCtx, qualified: &str, table: &str) -> DbError {
    match ctx.catalog.relation(qualified) {
        Some(nestor_catalog::Relation::Index { .. }) => DbError::new(
            SqlState::WrongObjectType,
            format!("sequence cannot be owned by relation \"{table}\""),
        )
        .with_detail("This operation is not supported for indexes."),
        _ if nestor_plan::pg_catalog::by_name(table).is_some() => DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            "sequence must be in same schema as table it is linked to",
        ),
        _ => undefined_table(table),
    }
}

/// OWNER TO of an object without an owner of its own (databases,
/// languages): they belong to the bootstrap superuser; giving one to it
/// changes nothing, to another existing role is 0A000, to a missing one
/// 42704.
pub(crate) fn check_new_owner(ctx: &StatementCtx, spec: &pb::RoleSpec) -> Result<(), DbError> {
    let role = role::resolve(ctx, spec)?;
    let name = &role.name;
    if role.oid.0 != nestor_catalog::BOOTSTRAP_SUPERUSER_OID {
        return Err(DbError::unsupported(format!(
            "OWNER TO a role other than the bootstrap superuser (\"{name}\") for databases and languages"
        )));
    }
    Ok(())
}

/// ALTER FUNCTION/PROCEDURE/SCHEMA/... OWNER TO (see [`check_new_owner`]).
pub(crate) fn alter_owner(
    ctx: &mut StatementCtx,
    st: &pb::AlterOwnerStmt,
) -> Result<CommandTag, DbError> {
    let kind = pb::ObjectType::try_from(st.object_type).unwrap_or(pb::ObjectType::Undefined);
    if let Some(role) = &st.newowner {
        match (kind, st.object.as_deref().map(node).transpose()?) {
            (
                pb::ObjectType::ObjectFunction
                | pb::ObjectType::ObjectProcedure
                | pb::ObjectType::ObjectRoutine,
                Some(NodeEnum::ObjectWithArgs(owa)),
            ) => {
                let f = comment::function_with_args(ctx, owa)?;
                let word = if f.procedure { "procedure" } else { "function" };
                grant::change_owner(
                    ctx,
                    nestor_catalog::acl::ObjKind::Function,
                    f.oid.0,
                    word,
                    &f.name,
                    role,
                )?;
            }
            (pb::ObjectType::ObjectType, Some(NodeEnum::List(l))) => {
                if !composite::alter_composite_owner(ctx, &l.items, role)? {
                    enum_type::alter_enum_owner(ctx, &l.items, role)?;
                }
            }
            (pb::ObjectType::ObjectDomain, Some(NodeEnum::List(l))) => {
                domain::alter_domain_owner(ctx, &l.items, role)?;
            }
            (pb::ObjectType::ObjectSchema, Some(NodeEnum::String(s))) => {
                schema::change_schema_owner(ctx, &s.sval, role)?;
            }
            (pb::ObjectType::ObjectDatabase, Some(NodeEnum::String(s))) => {
                database::change_database_owner(ctx, &s.sval, role)?;
            }
            _ => check_new_owner(ctx, role)?,
        }
    }
    let tag = match kind {
        pb::ObjectType::ObjectFunction => "ALTER FUNCTION",
        pb::ObjectType::ObjectProcedure => "ALTER PROCEDURE",
        pb::ObjectType::ObjectRoutine => "ALTER ROUTINE",
        pb::ObjectType::ObjectSchema => "ALTER SCHEMA",
        pb::ObjectType::ObjectDatabase => "ALTER DATABASE",
        pb::ObjectType::ObjectLanguage => "ALTER LANGUAGE",
        pb::ObjectType::ObjectType => "ALTER TYPE",
        pb::ObjectType::ObjectDomain => "ALTER DOMAIN",
        _ => return Err(DbError::unsupported("ALTER OWNER of this object type")),
    };
    Ok(CommandTag::Plain(tag))
}

/// Lock a table TRUNCATE reaches through another (a descendant, or a
/// referencing table under CASCADE) and add its definition as the lock
/// protects it.
fn lock_for_truncate(
    ctx: &mut StatementCtx,
    t: Arc<nestor_catalog::TableDef>,
    defs: &mut Vec<Arc<nestor_catalog::TableDef>>,
) -> Result<(), DbError> {
    crate::relation_lock::lock(
        ctx,
        t.oid.0,
        TableLockMode::AccessExclusive,
        WaitPolicy::Block,
        &t.name,
    )?;
    defs.push(ctx.catalog.table_by_oid(t.oid).unwrap_or(t));
    Ok(())
}

/// TRUNCATE: swap in fresh storage (freed old storage at commit).
pub fn truncate(ctx: &mut StatementCtx, ts: &pb::TruncateStmt) -> Result<CommandTag, DbError> {
    let mut defs = Vec::new();
    for r in &ts.relations {
        let NodeEnum::RangeVar(rv) = node(r)? else {
            continue;
        };
        let name = relname(rv)?;
        let t = ctx
            .catalog
            .table(&name)
            .ok_or_else(|| undefined_table(&name))?;
        if !rv.inh && t.partition_key.is_some() {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                "cannot truncate only a partitioned table",
            )
            .with_hint(
                "Do not specify the ONLY keyword, or use TRUNCATE ONLY on the partitions directly.",
            ));
        }
        defs.push(t.clone());
        // Without ONLY the table's descendants are truncated too.
        if rv.inh {
            for (child, _) in inherit::descendants_of(ctx, &t) {
                lock_for_truncate(ctx, child, &mut defs)?;
            }
        }
    }
    // A table referenced by a foreign key is truncated only together with
    // the referencing tables (TRUNCATE ... CASCADE adds them), as in
    // PostgreSQL.
    let cascade = ts.behavior == pb::DropBehavior::DropCascade as i32;
    let mut i = 0;
    while i < defs.len() {
        let t = defs[i].clone();
        for (child, _) in foreign_key::referenced_by_others(ctx, &t) {
            if defs.iter().any(|d| d.oid == child.oid) {
                continue;
            }
            if cascade {
                notice(
                    ctx,
                    format!("truncate cascades to table \"{}\"", child.name),
                );
                lock_for_truncate(ctx, child, &mut defs)?;
                continue;
            }
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "cannot truncate a table referenced in a foreign key constraint",
            )
            .with_detail(format!(
                "Table \"{}\" references \"{}\".",
                child.name, t.name
            ))
            .with_hint(format!(
                "Truncate table \"{}\" at the same time, or use TRUNCATE ... CASCADE.",
                child.name
            )));
        }
        i += 1;
    }
    // Statement triggers: every table's BEFORE TRUNCATE first, the AFTER
    // ones once all are emptied.
    for def in &defs {
        let mut ev = crate::context::Ev::new(ctx, &[]);
        crate::triggers::truncate(def, nestor_catalog::TriggerTiming::Before, &mut ev)?;
    }
    for def in &defs {
        let new = fresh_storage(ctx, def)?;
        if ts.restart_seqs {
            for s in &def.owned_sequences {
                if let Some(seq) = ctx.catalog.sequence(&ctx.catalog.qualify(def.namespace, s)) {
                    *seq.state.lock() = (seq.start, false);
                    seq.dirty.store(true, std::sync::atomic::Ordering::Release);
                }
            }
        }
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::PutTable {
                def: Arc::new(new),
                old_storage: Some(def.storage.clone()),
            },
        )?;
    }
    for def in &defs {
        let mut ev = crate::context::Ev::new(ctx, &[]);
        crate::triggers::truncate(def, nestor_catalog::TriggerTiming::After, &mut ev)?;
    }
    Ok(CommandTag::Plain("TRUNCATE TABLE"))
}

/// Put a changed definition of a view in place (its rules, triggers,
/// names).
pub(crate) fn put_view(
    ctx: &mut StatementCtx,
    def: nestor_catalog::ViewDef,
) -> Result<(), DbError> {
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        nestor_catalog::change::Change::PutView(std::sync::Arc::new(def)),
    )?;
    Ok(())
}

/// Put a changed definition of a table in place (same storage).
pub(crate) fn put_table(
    ctx: &mut StatementCtx,
    mut def: nestor_catalog::TableDef,
) -> Result<(), DbError> {
    // A NOT VALID constraint dropped (DROP CONSTRAINT, or with its column)
    // leaves no mark behind.
    let names = |d: &nestor_catalog::TableDef, n: &String| {
        d.checks.iter().any(|c| c.name == *n) || d.foreign_keys.iter().any(|f| f.name == *n)
    };
    if !def.not_valid.is_empty() {
        let keep: Vec<String> = def
            .not_valid
            .iter()
            .filter(|n| names(&def, n))
            .cloned()
            .collect();
        def.not_valid = keep;
    }
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutTable {
            def: Arc::new(def),
            old_storage: None,
        },
    )
}

/// `def` over fresh, empty storage (TRUNCATE, a table rewrite, REFRESH):
/// under SERIALIZABLE every read of the table conflicts with emptying it.
/// The caller puts it in place with the old storage to free at commit.
pub(crate) fn fresh_storage(
    ctx: &mut StatementCtx,
    def: &nestor_catalog::TableDef,
) -> Result<nestor_catalog::TableDef, DbError> {
    let mut rels = vec![def.storage.id];
    rels.extend(def.indexes.iter().map(|i| i.index.id));
    ctx.txn.ssi_write_table(&rels)?;
    Ok(def.with_fresh_storage(&ctx.db.store, ctx.catalog.alloc_oid()))
}

/// LOCK TABLE t [IN mode MODE] [NOWAIT]: the relation lock every
/// statement takes implicitly (crate::relation_lock), taken explicitly
/// and held to the transaction's end.
pub(crate) fn lock_table(ctx: &mut StatementCtx, ls: &pb::LockStmt) -> Result<CommandTag, DbError> {
    if !ctx.in_block {
        return Err(DbError::new(
            SqlState::NoActiveSqlTransaction,
            "LOCK TABLE can only be used in transaction blocks",
        ));
    }
    let mode = usize::try_from(ls.mode)
        .ok()
        .and_then(|m| TableLockMode::ALL.get(m.wrapping_sub(1)).copied())
        .unwrap_or(TableLockMode::AccessExclusive);
    // Stronger modes are fine in a READ ONLY transaction (PostgreSQL:
    // they block writers, they write nothing) but not on a hot standby.
    if mode > TableLockMode::RowExclusive && ctx.db.replication.in_recovery() {
        return Err(DbError::new(
            SqlState::ReadOnlySqlTransaction,
            "cannot execute LOCK TABLE during recovery",
        ));
    }
    // PostgreSQL's LockTableAclCheck: UPDATE, DELETE or TRUNCATE permit
    // any mode, SELECT up to ACCESS SHARE, INSERT up to ROW EXCLUSIVE;
    // checked before waiting.
    use nestor_catalog::acl;
    let mut mask = acl::UPDATE | acl::DELETE | acl::TRUNCATE;
    if mode <= TableLockMode::AccessShare {
        mask |= acl::SELECT;
    }
    if mode <= TableLockMode::RowExclusive {
        mask |= acl::INSERT;
    }
    let mut targets = Vec::new();
    for r in &ls.relations {
        let NodeEnum::RangeVar(rv) = node(r)? else {
            continue;
        };
        let rel = relname(rv)?;
        use nestor_catalog::Relation as R;
        let (oid, word) = match ctx.catalog.relation(&rel) {
            Some(R::Table(t)) if t.matview.is_none() => (t.oid.0, "table"),
            Some(R::View(v)) => (v.oid.0, "view"),
            Some(other) => {
                let kind = match other {
                    R::Table(_) => "materialized views",
                    R::Sequence(_) => "sequences",
                    _ => "indexes",
                };
                return Err(DbError::new(
                    SqlState::WrongObjectType,
                    format!("cannot lock relation \"{rel}\""),
                )
                .with_detail(format!("This operation is not supported for {kind}.")));
            }
            None => return Err(undefined_table(&rel)),
        };
        let may_lock = ctx.role.superuser
            || crate::privilege::allowed_any(
                ctx.catalog,
                ctx.role.oid,
                acl::ObjKind::Table,
                oid,
                mask,
            );
        if !may_lock {
            return Err(DbError::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied for {word} {rel}"),
            ));
        }
        targets.push((oid, rel));
    }
    let policy = if ls.nowait {
        WaitPolicy::NoWait
    } else {
        WaitPolicy::Block
    };
    for (oid, name) in targets {
        crate::relation_lock::lock(ctx, oid, mode, policy, &name)?;
    }
    Ok(CommandTag::Plain("LOCK TABLE"))
}

/// VACUUM [ANALYZE] [tables] / ANALYZE.
pub(crate) fn vacuum(ctx: &mut StatementCtx, vs: &pb::VacuumStmt) -> Result<CommandTag, DbError> {
    if !vs.is_vacuumcmd {
        return Ok(CommandTag::Plain("ANALYZE"));
    }
    database::not_in_block(ctx, "VACUUM")?;
    let mut tables = Vec::new();
    for r in &vs.rels {
        let NodeEnum::VacuumRelation(vr) = node(r)? else {
            continue;
        };
        if let Some(rv) = &vr.relation {
            let name = relname(rv)?;
            tables.push(
                ctx.catalog
                    .table(&name)
                    .ok_or_else(|| undefined_table(&name))?,
            );
        }
    }
    if tables.is_empty() {
        ctx.db.store.prune_all();
    } else {
        let horizon = ctx.db.txn.gc_horizon();
        for t in tables {
            t.storage.prune_by(horizon, nestor_storage::PruneBy::Vacuum);
        }
    }
    Ok(CommandTag::Plain("VACUUM"))
}
