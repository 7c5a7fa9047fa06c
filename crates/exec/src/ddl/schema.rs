//! CREATE SCHEMA, DROP SCHEMA and ALTER SCHEMA RENAME TO, with PostgreSQL's
//! messages.
//!
//! A schema is a catalog change of its own (`Change::PutSchema`); its owner
//! and ACL live with those of other objects (an owner other than the
//! bootstrap superuser is recorded as its ACL entry). CREATE SCHEMA runs its
//! elements (CREATE TABLE / VIEW / SEQUENCE / INDEX) as if each named the
//! new schema. DROP SCHEMA lists what is in the schema, in creation order,
//! as PostgreSQL's dependency walk does: RESTRICT refuses with 2BP01 and a
//! DETAIL line per object, CASCADE drops them (one NOTICE, or a count and
//! the list) before the schema, so a rollback puts the schema back first.
//!
//! ```text
//!   CREATE SCHEMA app CREATE TABLE t (a int)   -> PutSchema app; CREATE TABLE app.t
//!   DROP SCHEMA app                            -> 2BP01, DETAIL: table app.t depends on schema app
//!   DROP SCHEMA app CASCADE                    -> NOTICE: drop cascades to table app.t
//! ```
//!
//! `public` is not a catalog schema (it always exists, OID 2200): DROP
//! SCHEMA public is refused (2BP01 while it holds objects, 0A000
//! otherwise) and it cannot be renamed. Left out: functions and types in
//! schemas other than `public` (their statements name `public` only), and
//! the CREATE privilege on the database that PostgreSQL requires of the
//! creator (every role may create a schema).

use std::sync::Arc;

use nestor_catalog::acl::ObjKind;
use nestor_catalog::{Change, SchemaDef, PUBLIC_NAMESPACE_OID};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb;
use nestor_parser::pb::node::Node as NodeEnum;
use nestor_plan::bind;

use super::notice_code;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// The schemas that always exist.
const SYSTEM_SCHEMAS: [&str; 3] = ["public", "pg_catalog", "information_schema"];

/// CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role] [element ...].
pub fn create_schema(
    ctx: &mut StatementCtx,
    text: &str,
    st: &pb::CreateSchemaStmt,
) -> Result<CommandTag, DbError> {
    let owner = match &st.authrole {
        Some(r) => super::role::resolve(ctx, r)?,
        None => current_role(ctx)?,
    };
    let name = if st.schemaname.is_empty() {
        // CREATE SCHEMA AUTHORIZATION role: named after the role.
        owner.name.clone()
    } else {
        st.schemaname.clone()
    };
    if st.if_not_exists && !st.schema_elts.is_empty() {
        return Err(DbError::unsupported(
            "CREATE SCHEMA IF NOT EXISTS cannot include schema elements",
        ));
    }
    check_name(&name)?;
    check_dotted(ctx, &name)?;
    if exists(ctx, &name) {
        if st.if_not_exists {
            notice_code(
                ctx,
                SqlState::DuplicateSchema,
                format!("schema \"{name}\" already exists, skipping"),
            );
            return Ok(CommandTag::Plain("CREATE SCHEMA"));
        }
        return Err(already_exists(&name));
    }
    let def = SchemaDef {
        oid: ctx.catalog.alloc_oid(),
        name: name.clone(),
    };
    let oid = def.oid.0;
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSchema(Arc::new(def)))?;
    if owner.oid.0 != nestor_catalog::BOOTSTRAP_SUPERUSER_OID {
        super::grant::set_owner(ctx, ObjKind::Schema, oid, owner.oid)?;
    }
    // The elements' unqualified names resolve in the new schema first.
    let saved = ctx.catalog.push_search_path(oid);
    let ran = in_creation_order(&st.schema_elts)
        .into_iter()
        .try_for_each(|elt| run_element(ctx, text, &name, elt));
    ctx.catalog.restore_search_path(saved);
    ran?;
    Ok(CommandTag::Plain("CREATE SCHEMA"))
}

/// The role the statement runs as.
fn current_role(ctx: &StatementCtx) -> Result<Arc<nestor_catalog::RoleDef>, DbError> {
    ctx.catalog
        .role_by_oid(ctx.role.oid)
        .ok_or_else(|| DbError::internal("the current role does not exist"))
}

fn exists(ctx: &StatementCtx, name: &str) -> bool {
    SYSTEM_SCHEMAS.contains(&name) || ctx.catalog.schema(name).is_some()
}

fn already_exists(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateSchema,
        format!("schema \"{name}\" already exists"),
    )
}

fn does_not_exist(name: &str) -> DbError {
    DbError::new(
        SqlState::InvalidSchemaName,
        format!("schema \"{name}\" does not exist"),
    )
}

/// `pg_` names are reserved (42939), and the catalog splits qualified
/// names at their first dot (0A000 for a schema name with one).
fn check_name(name: &str) -> Result<(), DbError> {
    if name.starts_with("pg_") {
        return Err(DbError::new(
            SqlState::ReservedName,
            format!("unacceptable schema name \"{name}\""),
        )
        .with_detail("The prefix \"pg_\" is reserved for system schemas."));
    }
    if name.contains('.') {
        return Err(DbError::unsupported(format!(
            "a schema name containing a dot (\"{name}\")"
        )));
    }
    Ok(())
}

/// The elements of CREATE SCHEMA in the order PostgreSQL runs them
/// (transformCreateSchemaStmt): sequences, tables, views, then indexes,
/// each kind in the order written.
fn in_creation_order(elts: &[pb::Node]) -> Vec<&pb::Node> {
    let rank = |n: &pb::Node| match n.node.as_ref() {
        Some(NodeEnum::CreateSeqStmt(_)) => 0,
        Some(NodeEnum::CreateStmt(_)) => 1,
        Some(NodeEnum::ViewStmt(_)) => 2,
        Some(NodeEnum::IndexStmt(_)) => 3,
        _ => 4,
    };
    let mut out: Vec<&pb::Node> = elts.iter().collect();
    out.sort_by_key(|n| rank(n));
    out
}

/// A schema may not be named after the part before a dot of a
/// relation's own name: `s.t` would then name either (0A000).
fn check_dotted(ctx: &StatementCtx, name: &str) -> Result<(), DbError> {
    match ctx.catalog.dotted_relation(name) {
        Some(rel) => Err(DbError::unsupported(format!(
            "a schema named like the start of relation \"{rel}\" (\"{name}\")"
        ))),
        None => Ok(()),
    }
}

/// One element of CREATE SCHEMA, run in the new schema: a relation it
/// names without a schema goes there; naming another is 42P15.
fn run_element(
    ctx: &mut StatementCtx,
    text: &str,
    schema: &str,
    elt: &pb::Node,
) -> Result<(), DbError> {
    let mut n = elt
        .node
        .clone()
        .ok_or_else(|| DbError::internal("empty schema element"))?;
    let rv = match &mut n {
        NodeEnum::CreateStmt(cs) => cs.relation.as_mut(),
        NodeEnum::ViewStmt(vs) => vs.view.as_mut(),
        NodeEnum::CreateSeqStmt(cs) => cs.sequence.as_mut(),
        NodeEnum::IndexStmt(is) => is.relation.as_mut(),
        other => {
            return Err(DbError::unsupported(format!(
                "{} in CREATE SCHEMA",
                nestor_parser::ast::command_name(other)
            )))
        }
    };
    if let Some(rv) = rv {
        if rv.schemaname.is_empty() {
            rv.schemaname = schema.to_string();
        } else if rv.schemaname != schema {
            return Err(DbError::new(
                SqlState::InvalidSchemaDefinition,
                format!(
                    "CREATE specifies a schema ({}) different from the one being created ({schema})",
                    rv.schemaname
                ),
            ));
        }
    }
    match &n {
        NodeEnum::CreateStmt(cs) => super::create_table(ctx, text, cs)?,
        NodeEnum::ViewStmt(vs) => super::create_view(ctx, text, vs)?,
        NodeEnum::CreateSeqStmt(cs) => super::create_sequence(ctx, cs)?,
        NodeEnum::IndexStmt(is) => super::create_index(ctx, text, is)?,
        _ => return Err(DbError::internal("schema element")),
    };
    super::grant::record_owner(ctx, &n, &[])
}

/// DROP SCHEMA [IF EXISTS] name [, ...] [CASCADE | RESTRICT].
pub fn drop_schema(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    for o in &ds.objects {
        let name = bind::str_val(o).unwrap_or_default().to_string();
        if SYSTEM_SCHEMAS.contains(&name.as_str()) {
            return drop_system_schema(ctx, &name, cascade);
        }
        let Some(def) = ctx.catalog.schema(&name) else {
            if ds.missing_ok {
                super::notice(ctx, format!("schema \"{name}\" does not exist, skipping"));
                continue;
            }
            return Err(does_not_exist(&name));
        };
        if !ctx.role.superuser {
            crate::privilege::require_owner(ctx, ObjKind::Schema, def.oid.0, "schema", &name)?;
        }
        let members = members(ctx, def.oid.0);
        if !members.is_empty() {
            if !cascade {
                let mut detail: Vec<String> = Vec::new();
                for m in &members {
                    let what = m.describe(&name);
                    detail.push(format!("{what} depends on schema {name}"));
                    for (fk, child) in &m.foreign_keys {
                        detail.push(format!(
                            "constraint {fk} on table {child} depends on {what}"
                        ));
                    }
                }
                return Err(super::dependents_remain(
                    format_args!("schema {name}"),
                    detail,
                ));
            }
            cascade_notice(ctx, &name, &members);
            let dropping: Vec<RelId> = members.iter().map(|m| RelId(m.oid)).collect();
            for m in &members {
                drop_member(ctx, &name, m, &dropping)?;
            }
        }
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropSchema(def.oid.0))?;
    }
    Ok(CommandTag::Plain("DROP SCHEMA"))
}

/// DROP SCHEMA of `public`, `pg_catalog` or `information_schema`.
fn drop_system_schema(
    ctx: &mut StatementCtx,
    name: &str,
    cascade: bool,
) -> Result<CommandTag, DbError> {
    if name != "public" {
        return Err(DbError::new(
            SqlState::DependentObjectsStillExist,
            format!("cannot drop schema {name} because it is required by the database system"),
        ));
    }
    let members = members(ctx, PUBLIC_NAMESPACE_OID);
    if !members.is_empty() && !cascade {
        return Err(super::dependents_remain(
            "schema public",
            members
                .iter()
                .map(|m| format!("{} depends on schema public", m.describe(""))),
        ));
    }
    Err(DbError::unsupported(
        "DROP SCHEMA public (it always exists in Nestor and could not be created again)",
    ))
}

/// An object in a schema, as DROP SCHEMA lists it.
struct Member {
    oid: u32,
    /// "table", "view", "materialized view" or "sequence".
    word: &'static str,
    name: String,
    /// Its name alone finds it through the search path.
    visible: bool,
    /// A table's foreign keys in tables outside the schema, as
    /// (constraint, table as printed): dropped with it.
    foreign_keys: Vec<(String, String)>,
}

impl Member {
    /// `table s.t`, or `table t` when the search path finds it by that
    /// name (as PostgreSQL's getObjectDescription prints it).
    fn describe(&self, schema: &str) -> String {
        if schema.is_empty() || self.visible {
            format!("{} {}", self.word, self.name)
        } else {
            format!("{} {schema}.{}", self.word, self.name)
        }
    }
}

/// The foreign keys of tables outside schema `oid` that reference `t`,
/// as (constraint, referencing table as printed).
fn outside_foreign_keys(
    ctx: &StatementCtx,
    t: &nestor_catalog::TableDef,
    oid: u32,
) -> Vec<(String, String)> {
    super::foreign_key::referenced_by_others(ctx, t)
        .into_iter()
        .filter(|(c, _)| c.namespace != oid)
        .map(|(c, fk)| {
            let shown = if visible(ctx, &c.name, c.oid) {
                c.name.clone()
            } else {
                ctx.catalog.qualify(c.namespace, &c.name)
            };
            (fk.name, shown)
        })
        .collect()
}

/// Whether the relation `name` alone finds is the one with OID `oid`.
fn visible(ctx: &StatementCtx, name: &str, oid: RelId) -> bool {
    use nestor_catalog::Relation;
    match ctx.catalog.relation(name) {
        Some(Relation::Table(t)) => t.oid == oid,
        Some(Relation::View(v)) => v.oid == oid,
        Some(Relation::Sequence(s)) => s.oid == oid,
        _ => false,
    }
}

/// The permanent relations in schema `oid` that depend on it directly (a
/// serial column's sequence depends on its table instead), in creation
/// order.
fn members(ctx: &StatementCtx, oid: u32) -> Vec<Member> {
    let persistent = |p| p != nestor_catalog::Persistence::Temporary;
    let tables: Vec<_> = ctx
        .catalog
        .tables()
        .into_iter()
        .filter(|t| t.namespace == oid && persistent(t.persistence))
        .collect();
    let owned: Vec<&String> = tables.iter().flat_map(|t| &t.owned_sequences).collect();
    let mut out: Vec<Member> = tables
        .iter()
        .map(|t| Member {
            oid: t.oid.0,
            word: if t.matview.is_some() {
                "materialized view"
            } else {
                "table"
            },
            name: t.name.clone(),
            visible: visible(ctx, &t.name, t.oid),
            foreign_keys: outside_foreign_keys(ctx, t, oid),
        })
        .collect();
    out.extend(
        ctx.catalog
            .views()
            .into_iter()
            .filter(|v| v.namespace == oid && !v.temporary)
            .map(|v| Member {
                oid: v.oid.0,
                word: "view",
                name: v.name.clone(),
                visible: visible(ctx, &v.name, v.oid),
                foreign_keys: Vec::new(),
            }),
    );
    out.extend(
        ctx.catalog
            .sequences()
            .into_iter()
            .filter(|s| s.namespace == oid && !s.temporary && !owned.contains(&&s.name))
            .map(|s| Member {
                oid: s.oid.0,
                word: "sequence",
                name: s.name.clone(),
                visible: visible(ctx, &s.name, s.oid),
                foreign_keys: Vec::new(),
            }),
    );
    out.sort_by_key(|m| m.oid);
    out
}

/// CASCADE's NOTICE: the one object, or how many and the list.
fn cascade_notice(ctx: &mut StatementCtx, schema: &str, members: &[Member]) {
    let mut lines: Vec<String> = Vec::new();
    for m in members {
        lines.push(format!("drop cascades to {}", m.describe(schema)));
        for (fk, child) in &m.foreign_keys {
            lines.push(format!("drop cascades to constraint {fk} on table {child}"));
        }
    }
    if let [one] = lines.as_slice() {
        super::notice(ctx, one.clone());
        return;
    }
    let n = DbError::new(
        SqlState::SuccessfulCompletion,
        format!("drop cascades to {} other objects", lines.len()),
    )
    .with_severity(nestor_common::error::Severity::Notice)
    .with_detail(lines.join("\n"));
    ctx.notices.push(n);
}

/// Drop one object of a schema being dropped (`dropping`: all of them;
/// views elsewhere over its tables are dropped with a NOTICE of their
/// own).
fn drop_member(
    ctx: &mut StatementCtx,
    schema: &str,
    m: &Member,
    dropping: &[RelId],
) -> Result<(), DbError> {
    let q = format!("{schema}.{}", m.name);
    match m.word {
        "view" => {
            if ctx.catalog.view(&q).is_some() {
                ctx.catalog
                    .apply(ctx.txn, &ctx.db.store, Change::DropView(q))?;
            }
            Ok(())
        }
        "sequence" => ctx
            .catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropSequence(q)),
        _ => {
            if let Some(t) = ctx.catalog.table(&q) {
                for (child, fk) in super::foreign_key::referenced_by_others(ctx, &t) {
                    let cur = ctx.catalog.table_by_oid(child.oid).unwrap_or(child);
                    let mut new = (*cur).clone();
                    new.foreign_keys.retain(|f| f.name != fk.name);
                    super::put_table(ctx, new)?;
                }
                let what = m.describe(schema);
                super::view::drop_dependent_views(ctx, t.oid, &what, dropping, true)?;
                super::drop_table(ctx, &q)?;
            }
            Ok(())
        }
    }
}

/// ALTER SCHEMA name RENAME TO new_name.
pub(crate) fn rename_schema(
    ctx: &mut StatementCtx,
    st: &pb::RenameStmt,
) -> Result<CommandTag, DbError> {
    let name = match st.object.as_deref().and_then(bind::str_val) {
        Some(n) => n.to_string(),
        None => st.subname.clone(),
    };
    let def = match ctx.catalog.schema(&name) {
        Some(d) => d,
        None if SYSTEM_SCHEMAS.contains(&name.as_str()) => {
            return Err(DbError::unsupported(format!("ALTER SCHEMA {name} RENAME")))
        }
        None => return Err(does_not_exist(&name)),
    };
    if !ctx.role.superuser {
        crate::privilege::require_owner(ctx, ObjKind::Schema, def.oid.0, "schema", &name)?;
    }
    if exists(ctx, &st.newname) {
        return Err(already_exists(&st.newname));
    }
    check_name(&st.newname)?;
    check_dotted(ctx, &st.newname)?;
    let new = SchemaDef {
        oid: def.oid,
        name: st.newname.clone(),
    };
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSchema(Arc::new(new)))?;
    follow_rename(ctx, def.oid.0, &name, &st.newname)?;
    Ok(CommandTag::Plain("ALTER SCHEMA"))
}

/// Views and column defaults keep SQL text that names the schema: the
/// views that read its relations (their queries' identifiers) and the
/// defaults that call nextval() of its sequences follow the new name
/// (PostgreSQL keeps OIDs there instead).
fn follow_rename(ctx: &mut StatementCtx, oid: u32, old: &str, new: &str) -> Result<(), DbError> {
    let members: Vec<RelId> = members_with_owned(ctx, oid);
    for v in ctx.catalog.views() {
        if !v.depends_on.iter().any(|d| members.contains(d)) {
            continue;
        }
        let query = nestor_parser::rename_identifier_in_query(&v.query, old, new)?;
        if query != v.query {
            let mut def = (*v).clone();
            def.query = query;
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::PutView(Arc::new(def)))?;
        }
    }
    let (old_call, new_call) = (format!("nextval('{old}."), format!("nextval('{new}."));
    for t in ctx.catalog.tables() {
        let uses = t
            .columns
            .iter()
            .any(|c| c.default.as_deref().is_some_and(|d| d.contains(&old_call)));
        if !uses {
            continue;
        }
        let mut def = (*t).clone();
        for c in &mut def.columns {
            if let Some(d) = &c.default {
                c.default = Some(d.replace(&old_call, &new_call));
            }
        }
        super::put_table(ctx, def)?;
    }
    Ok(())
}

/// The OIDs of every relation in schema `oid` (serial sequences included).
fn members_with_owned(ctx: &StatementCtx, oid: u32) -> Vec<RelId> {
    let mut out: Vec<RelId> = members(ctx, oid).iter().map(|m| RelId(m.oid)).collect();
    out.extend(
        ctx.catalog
            .sequences()
            .iter()
            .filter(|s| s.namespace == oid)
            .map(|s| s.oid),
    );
    out
}

/// ALTER SCHEMA name OWNER TO role (for `public` too).
pub(crate) fn change_schema_owner(
    ctx: &mut StatementCtx,
    name: &str,
    role: &pb::RoleSpec,
) -> Result<(), DbError> {
    let oid = match name {
        "public" => PUBLIC_NAMESPACE_OID,
        _ => match ctx.catalog.schema(name) {
            Some(d) => d.oid.0,
            None => return Err(does_not_exist(name)),
        },
    };
    super::grant::change_owner(ctx, ObjKind::Schema, oid, "schema", name, role)
}
