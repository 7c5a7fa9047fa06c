//! COMMENT ON: a text attached to an object, kept in the catalog under
//! PostgreSQL's key (the object's catalog, its OID, the column number or
//! 0) and shown through `pg_description`, `obj_description` and
//! `col_description` (psql's `\d+`, pg_dump, SQLAlchemy's reflection).
//!
//! ```text
//!   COMMENT ON COLUMN t.a IS 'why'   ->  (pg_class 1259, t's oid, 1) = "why"
//!   COMMENT ON COLUMN t.a IS NULL    ->  the entry removed
//! ```
//!
//! A comment is a schema change like any other (undone by ROLLBACK, logged
//! at COMMIT as a `Comment` record). OIDs are never reused, so an object's
//! comment needs no cleanup when it is dropped: the readers show the
//! comments whose object exists. Objects that can carry one: tables,
//! views, sequences, indexes, columns, functions and procedures, triggers,
//! PRIMARY KEY / UNIQUE / FOREIGN KEY constraints, the schemas and the
//! domains; others (CHECK constraints, whose OIDs Nestor derives,
//! databases, roles, other types) are 0A000.

use nestor_catalog::{Change, Relation};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, ObjectType};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};

use super::undefined_table;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

const PG_CLASS: u32 = 1259;
const PG_PROC: u32 = 1255;
const PG_TRIGGER: u32 = 2620;
const PG_CONSTRAINT: u32 = 2606;
const PG_NAMESPACE: u32 = 2615;
const PG_TYPE: u32 = 1247;

/// COMMENT ON object IS 'text' | NULL.
pub fn comment(ctx: &mut StatementCtx, cs: &pb::CommentStmt) -> Result<CommandTag, DbError> {
    let kind = ObjectType::try_from(cs.objtype).unwrap_or(ObjectType::Undefined);
    let object = cs
        .object
        .as_deref()
        .ok_or_else(|| DbError::internal("COMMENT without an object"))?;
    let key = match kind {
        ObjectType::ObjectTable
        | ObjectType::ObjectView
        | ObjectType::ObjectSequence
        | ObjectType::ObjectIndex => relation_key(ctx, kind, object)?,
        ObjectType::ObjectColumn => column_key(ctx, object)?,
        ObjectType::ObjectFunction | ObjectType::ObjectProcedure | ObjectType::ObjectRoutine => {
            function_key(ctx, object)?
        }
        ObjectType::ObjectAggregate => aggregate_key(ctx, object)?,
        ObjectType::ObjectTrigger => trigger_key(ctx, object)?,
        ObjectType::ObjectTabconstraint => constraint_key(ctx, object)?,
        ObjectType::ObjectSchema => schema_key(ctx, object)?,
        ObjectType::ObjectDomain => domain_key(ctx, object)?,
        ObjectType::ObjectDomconstraint => domain_constraint_key(ctx, object)?,
        ObjectType::ObjectType => type_key(ctx, object)?,
        other => {
            return Err(DbError::unsupported(format!(
                "COMMENT ON {}",
                object_word(other)
            )))
        }
    };
    // An empty string removes the comment, as in PostgreSQL.
    let text = (!cs.comment.is_empty()).then(|| cs.comment.clone());
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::SetComment { key, text })?;
    Ok(CommandTag::Plain("COMMENT"))
}

fn object_word(kind: ObjectType) -> &'static str {
    match kind {
        ObjectType::ObjectDatabase => "DATABASE",
        ObjectType::ObjectRole => "ROLE",
        ObjectType::ObjectType => "TYPE",
        ObjectType::ObjectDomain => "DOMAIN",
        ObjectType::ObjectExtension => "EXTENSION",
        ObjectType::ObjectMatview => "MATERIALIZED VIEW",
        ObjectType::ObjectAggregate => "AGGREGATE",
        ObjectType::ObjectCollation => "COLLATION",
        ObjectType::ObjectRule => "RULE",
        ObjectType::ObjectPolicy => "POLICY",
        ObjectType::ObjectTablespace => "TABLESPACE",
        _ => "this object type",
    }
}

/// The dotted name of the object (`[schema.]table[.column]`).
fn names(object: &pb::Node) -> Result<Vec<String>, DbError> {
    Ok(match node(object)? {
        NodeEnum::List(l) => bind::names(&l.items),
        NodeEnum::String(s) => vec![s.sval.clone()],
        _ => Vec::new(),
    })
}

/// The relation named by the last part (after an optional schema).
fn relation_named(ctx: &StatementCtx, parts: &[String]) -> Result<(String, Relation), DbError> {
    let name = parts
        .last()
        .ok_or_else(|| DbError::internal("COMMENT without a name"))?
        .clone();
    if parts.len() > 1 {
        let schema = &parts[parts.len() - 2];
        if !matches!(schema.as_str(), "public" | "pg_temp") && ctx.catalog.schema(schema).is_none()
        {
            return Err(DbError::new(
                SqlState::InvalidSchemaName,
                format!("schema \"{schema}\" does not exist"),
            ));
        }
        let q = format!("{schema}.{name}");
        let rel = ctx
            .catalog
            .relation(&q)
            .ok_or_else(|| undefined_table(&q))?;
        return Ok((name, rel));
    }
    let rel = ctx
        .catalog
        .relation(&name)
        .ok_or_else(|| undefined_table(&name))?;
    Ok((name, rel))
}

fn relation_key(
    ctx: &StatementCtx,
    kind: ObjectType,
    object: &pb::Node,
) -> Result<(u32, u32, i32), DbError> {
    let parts = names(object)?;
    let (name, rel) = relation_named(ctx, &parts)?;
    let (oid, is) = match &rel {
        Relation::Table(t) => (t.oid.0, "table"),
        Relation::View(v) => (v.oid.0, "view"),
        Relation::Sequence(s) => (s.oid.0, "sequence"),
        Relation::Index { table, index } => (
            table
                .indexes
                .iter()
                .find(|i| i.name == *index)
                .map_or(0, |i| i.oid.0),
            "index",
        ),
    };
    let want = match kind {
        ObjectType::ObjectView => "view",
        ObjectType::ObjectSequence => "sequence",
        ObjectType::ObjectIndex => "index",
        _ => "table",
    };
    if is != want {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("\"{name}\" is not a {want}"),
        ));
    }
    Ok((PG_CLASS, oid, 0))
}

fn column_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let parts = names(object)?;
    let (column, rel_parts) = parts
        .split_last()
        .ok_or_else(|| DbError::internal("COMMENT ON COLUMN without a name"))?;
    if rel_parts.is_empty() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "column name must be qualified",
        ));
    }
    let (name, rel) = relation_named(ctx, rel_parts)?;
    let (oid, attnum) = match &rel {
        Relation::Table(t) => (
            t.oid.0,
            t.columns
                .iter()
                .position(|c| !c.dropped && c.name == *column),
        ),
        Relation::View(v) => (v.oid.0, v.columns.iter().position(|(c, _)| c == column)),
        _ => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{name}\" is not a table, view, materialized view, composite type, or foreign table"),
            ))
        }
    };
    let attnum = attnum.ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedColumn,
            format!("column \"{column}\" of relation \"{name}\" does not exist"),
        )
    })?;
    Ok((PG_CLASS, oid, attnum as i32 + 1))
}

fn function_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let NodeEnum::ObjectWithArgs(owa) = node(object)? else {
        return Err(DbError::internal("COMMENT ON FUNCTION without a signature"));
    };
    let f = function_with_args(ctx, owa)?;
    Ok((PG_PROC, f.oid.0, 0))
}

/// `COMMENT ON AGGREGATE name(types)` (`name(*)` for none): 42883
/// `aggregate name(types) does not exist` as PostgreSQL words it.
fn aggregate_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let NodeEnum::ObjectWithArgs(owa) = node(object)? else {
        return Err(DbError::internal(
            "COMMENT ON AGGREGATE without a signature",
        ));
    };
    let parts = bind::names(&owa.objname);
    let name = parts
        .last()
        .ok_or_else(|| DbError::internal("aggregate without a name"))?;
    let mut types = Vec::new();
    for a in &owa.objargs {
        if let NodeEnum::TypeName(tn) = node(a)? {
            types.push(super::function::signature_type(ctx, tn)?);
        }
    }
    let found = nestor_plan::bind::user_agg::aggregates(ctx.catalog, name)
        .into_iter()
        .find(|f| f.same_signature(name, &types));
    let Some(f) = found else {
        let list = if types.is_empty() {
            "*".to_string()
        } else {
            types
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(DbError::new(
            SqlState::UndefinedFunction,
            format!("aggregate {name}({list}) does not exist"),
        ));
    };
    Ok((PG_PROC, f.oid.0, 0))
}

/// The function an `name(types)` (or a bare name, when it is unique)
/// designates, with PostgreSQL's errors.
pub(crate) fn function_with_args(
    ctx: &StatementCtx,
    owa: &pb::ObjectWithArgs,
) -> Result<std::sync::Arc<nestor_catalog::FunctionDef>, DbError> {
    let parts = bind::names(&owa.objname);
    let name = parts
        .last()
        .ok_or_else(|| DbError::internal("function without a name"))?;
    let found = ctx.catalog.functions(name);
    let f = if owa.args_unspecified {
        match found.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(DbError::new(
                    SqlState::UndefinedFunction,
                    format!("could not find a function named \"{name}\""),
                ))
            }
            _ => {
                return Err(DbError::new(
                    SqlState::AmbiguousFunction,
                    format!("function name \"{name}\" is not unique"),
                )
                .with_hint("Specify the argument list to select the function unambiguously."))
            }
        }
    } else {
        let mut types = Vec::new();
        for a in &owa.objargs {
            if let NodeEnum::TypeName(tn) = node(a)? {
                types.push(super::function::signature_type(ctx, tn)?);
            }
        }
        found
            .into_iter()
            .find(|f| f.same_signature(name, &types))
            .ok_or_else(|| {
                let list: Vec<String> = types.iter().map(|t| t.to_string()).collect();
                DbError::new(
                    SqlState::UndefinedFunction,
                    format!("function {name}({}) does not exist", list.join(", ")),
                )
            })?
    };
    Ok(f)
}

/// `COMMENT ON TRIGGER name ON table`: the object is [table..., trigger].
fn trigger_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let parts = names(object)?;
    let (trigger, rel_parts) = parts
        .split_last()
        .ok_or_else(|| DbError::internal("COMMENT ON TRIGGER without a name"))?;
    let (name, rel) = relation_named(ctx, rel_parts)?;
    let triggers = match &rel {
        Relation::Table(t) => &t.triggers,
        Relation::View(v) => &v.triggers,
        _ => return Err(undefined_table(&name)),
    };
    let tg = triggers
        .iter()
        .find(|g| g.name == *trigger)
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("trigger \"{trigger}\" for table \"{name}\" does not exist"),
            )
        })?;
    Ok((PG_TRIGGER, tg.oid.0, 0))
}

/// `COMMENT ON CONSTRAINT name ON table`.
fn constraint_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let parts = names(object)?;
    let (constraint, rel_parts) = parts
        .split_last()
        .ok_or_else(|| DbError::internal("COMMENT ON CONSTRAINT without a name"))?;
    let (name, rel) = relation_named(ctx, rel_parts)?;
    let Relation::Table(t) = rel else {
        return Err(undefined_table(&name));
    };
    if t.checks.iter().any(|c| c.name == *constraint) {
        return Err(DbError::unsupported("COMMENT ON a CHECK constraint"));
    }
    let oid = t
        .indexes
        .iter()
        .find(|i| i.constraint && i.name == *constraint)
        .map(|i| i.oid.0)
        .or_else(|| {
            t.foreign_keys
                .iter()
                .find(|f| f.name == *constraint)
                .map(|f| f.oid.0)
        })
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("constraint \"{constraint}\" for table \"{name}\" does not exist"),
            )
        })?;
    Ok((PG_CONSTRAINT, oid, 0))
}

/// COMMENT ON DOMAIN d: keyed by the domain's pg_type OID.
fn domain_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let parts = match node(object)? {
        NodeEnum::TypeName(tn) => bind::names(&tn.names),
        _ => names(object)?,
    };
    let name = match parts.as_slice() {
        [n] => n.clone(),
        [s, n] if s == "public" => n.clone(),
        _ => parts.join("."),
    };
    let d = ctx.catalog.domain(&name).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedObject,
            format!("type \"{name}\" does not exist"),
        )
    })?;
    Ok((PG_TYPE, d.oid, 0))
}

/// COMMENT ON CONSTRAINT c ON DOMAIN d: keyed by the CHECK constraint's
/// pg_constraint OID.
fn domain_constraint_key(
    ctx: &StatementCtx,
    object: &pb::Node,
) -> Result<(u32, u32, i32), DbError> {
    let NodeEnum::List(l) = node(object)? else {
        return Err(DbError::internal("COMMENT ON CONSTRAINT ... ON DOMAIN"));
    };
    let [domain, constraint] = l.items.as_slice() else {
        return Err(DbError::internal("COMMENT ON CONSTRAINT ... ON DOMAIN"));
    };
    let (_, oid, _) = domain_key(ctx, domain)?;
    let def = nestor_types::domains::lookup(oid)
        .ok_or_else(|| DbError::internal("a domain without its definition"))?;
    let name = bind::names(std::slice::from_ref(constraint)).concat();
    let check = def.check(&name).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedObject,
            format!(
                "constraint \"{name}\" for domain {} does not exist",
                def.name
            ),
        )
    })?;
    Ok((PG_CONSTRAINT, check.oid, 0))
}

/// COMMENT ON TYPE t: keyed by the type's pg_type OID (a composite, enum
/// or domain; a built-in type's comment is 0A000).
fn type_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let parts = match node(object)? {
        NodeEnum::TypeName(tn) => bind::names(&tn.names),
        _ => names(object)?,
    };
    let name = match parts.as_slice() {
        [n] => n.clone(),
        [s, n] if s == "public" => n.clone(),
        _ => parts.join("."),
    };
    if let Some(c) = ctx.catalog.composite(&name) {
        return Ok((PG_TYPE, c.oid, 0));
    }
    if let Some(e) = ctx.catalog.enum_type(&name) {
        return Ok((PG_TYPE, e.oid, 0));
    }
    if ctx.catalog.domain(&name).is_some() {
        return domain_key(ctx, object);
    }
    if nestor_types::DataType::from_sql_name(&name, &[]).is_ok() {
        return Err(DbError::unsupported("COMMENT ON TYPE of a built-in type"));
    }
    Err(DbError::new(
        SqlState::UndefinedObject,
        format!("type \"{name}\" does not exist"),
    ))
}

fn schema_key(ctx: &StatementCtx, object: &pb::Node) -> Result<(u32, u32, i32), DbError> {
    let parts = names(object)?;
    let oid = match parts.last().map(String::as_str) {
        Some("public") => 2200,
        Some("pg_catalog") => 11,
        Some("information_schema") => 13_000,
        Some(other) if ctx.catalog.schema(other).is_some() => {
            ctx.catalog.schema(other).map_or(0, |s| s.oid.0)
        }
        Some(other) => {
            return Err(DbError::new(
                SqlState::InvalidSchemaName,
                format!("schema \"{other}\" does not exist"),
            ))
        }
        None => return Err(DbError::internal("COMMENT ON SCHEMA without a name")),
    };
    Ok((PG_NAMESPACE, oid, 0))
}
