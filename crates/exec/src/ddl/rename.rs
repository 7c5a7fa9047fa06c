//! ALTER ... RENAME: tables, indexes, columns, constraints and triggers.
//!
//! A rename builds the new definition and applies it like any schema change
//! (undone by ROLLBACK, logged at COMMIT). Renaming a table is its own
//! catalog change (`Change::RenameTable`: the definition moves to the new
//! name with the same storage, so no row is copied); the others replace the
//! table's definition.
//!
//! PostgreSQL stores expressions as trees that refer to columns by number,
//! so a renamed column is renamed everywhere at once. Nestor stores CHECK
//! constraints and trigger conditions as SQL text, so RENAME COLUMN
//! rewrites them (`nestor_parser::rename_identifier`):
//!
//! ```text
//!   CHECK (qty > 0)            ALTER TABLE t RENAME qty TO amount
//!   trigger WHEN (new.qty > 5)   ──▶  CHECK (amount > 0)
//!   UPDATE OF qty                     WHEN (new.amount > 5), UPDATE OF amount
//! ```
//!
//! Partition key expressions are kept the same way and rewritten alike.
//!
//! Views store their query as text too: a renamed table or column is
//! renamed in the views that read it, which are then re-planned
//! (`super::view`).
//!
//! What refers to names elsewhere and is not rewritten: function bodies
//! (as in PostgreSQL, they are text there too) and column defaults naming
//! a sequence (`nextval('t_id_seq')` keeps the sequence's name, which a
//! table rename does not change, as in PostgreSQL; ALTER SEQUENCE ...
//! RENAME rewrites those defaults). Functions, procedures and routines are
//! renamed by `super::function::rename_function`; renaming schemas and
//! other objects is 0A000.

use std::sync::Arc;

use nestor_catalog::{Change, Relation, Sequence, TableDef, ViewDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, ObjectType};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{node, relname};

use super::{notice, undefined_table};
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// ALTER TABLE / INDEX ... RENAME, ALTER TRIGGER ... RENAME.
pub fn rename(ctx: &mut StatementCtx, rs: &pb::RenameStmt) -> Result<CommandTag, DbError> {
    let kind = ObjectType::try_from(rs.rename_type).unwrap_or(ObjectType::Undefined);
    if kind == ObjectType::ObjectRole {
        return super::role::rename_role(ctx, &rs.subname, &rs.newname);
    }
    if kind == ObjectType::ObjectType {
        if let Some(NodeEnum::List(l)) = rs.object.as_deref().map(node).transpose()? {
            // ALTER TYPE also renames a domain, as in PostgreSQL.
            let names = nestor_plan::bind::names(&l.items);
            if names
                .last()
                .is_some_and(|n| ctx.catalog.domain(n).is_some())
            {
                super::domain::rename_domain(ctx, &l.items, &rs.newname)?;
                return Ok(CommandTag::Plain("ALTER TYPE"));
            }
            if super::composite::rename_composite(ctx, &l.items, &rs.newname)? {
                return Ok(CommandTag::Plain("ALTER TYPE"));
            }
            super::enum_type::rename_enum(ctx, &l.items, &rs.newname)?;
            return Ok(CommandTag::Plain("ALTER TYPE"));
        }
    }
    if kind == ObjectType::ObjectAttribute {
        return super::composite::rename_attribute(ctx, rs);
    }
    if kind == ObjectType::ObjectSchema {
        return super::schema::rename_schema(ctx, rs);
    }
    if kind == ObjectType::ObjectDatabase {
        return super::database::rename_database(ctx, &rs.subname, &rs.newname);
    }
    if matches!(
        kind,
        ObjectType::ObjectDomain | ObjectType::ObjectDomconstraint
    ) {
        if let Some(NodeEnum::List(l)) = rs.object.as_deref().map(node).transpose()? {
            if kind == ObjectType::ObjectDomain {
                super::domain::rename_domain(ctx, &l.items, &rs.newname)?;
            } else {
                super::domain::rename_domain_constraint(ctx, &l.items, &rs.subname, &rs.newname)?;
            }
            return Ok(CommandTag::Plain("ALTER DOMAIN"));
        }
    }
    if kind == ObjectType::ObjectRule {
        return super::rule::rename_rule(ctx, rs);
    }
    if kind == ObjectType::ObjectPolicy {
        return super::policy::rename_policy(ctx, rs);
    }
    if let (
        ObjectType::ObjectFunction | ObjectType::ObjectProcedure | ObjectType::ObjectRoutine,
        Some(NodeEnum::ObjectWithArgs(owa)),
    ) = (kind, rs.object.as_deref().map(node).transpose()?)
    {
        super::function::rename_function(ctx, owa, kind, &rs.newname)?;
        return Ok(CommandTag::Plain(match kind {
            ObjectType::ObjectProcedure => "ALTER PROCEDURE",
            ObjectType::ObjectRoutine => "ALTER ROUTINE",
            _ => "ALTER FUNCTION",
        }));
    }
    let tag = match kind {
        ObjectType::ObjectIndex => "ALTER INDEX",
        ObjectType::ObjectTrigger => "ALTER TRIGGER",
        ObjectType::ObjectView => "ALTER VIEW",
        _ => "ALTER TABLE",
    };
    let tag = match kind {
        ObjectType::ObjectSequence => "ALTER SEQUENCE",
        _ => tag,
    };
    let supported = matches!(
        kind,
        ObjectType::ObjectTable
            | ObjectType::ObjectIndex
            | ObjectType::ObjectColumn
            | ObjectType::ObjectTabconstraint
            | ObjectType::ObjectTrigger
            | ObjectType::ObjectView
            | ObjectType::ObjectSequence
    );
    if !supported {
        return Err(DbError::unsupported(format!(
            "ALTER {} ... RENAME",
            object_word(kind)
        )));
    }
    let rv = rs
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("RENAME without a relation"))?;
    let name = relname(rv)?;
    let Some(rel) = ctx.catalog.relation(&name) else {
        if rs.missing_ok {
            notice(ctx, format!("relation \"{name}\" does not exist, skipping"));
            return Ok(CommandTag::Plain(tag));
        }
        return Err(undefined_table(&name));
    };
    match (kind, rel) {
        // ALTER INDEX on a table renames the table, as in PostgreSQL.
        (ObjectType::ObjectTable | ObjectType::ObjectIndex, Relation::Table(def)) => {
            rename_table(ctx, &def, &rs.newname)?
        }
        (ObjectType::ObjectTable | ObjectType::ObjectIndex, Relation::Index { table, index }) => {
            rename_index(ctx, &table, &index, &rs.newname)?
        }
        (ObjectType::ObjectColumn, Relation::Table(def)) => {
            rename_column_tree(ctx, &def, rv.inh, &rs.subname, &rs.newname)?
        }
        (ObjectType::ObjectTabconstraint, Relation::Table(def)) => {
            rename_constraint(ctx, &def, &rs.subname, &rs.newname)?
        }
        (ObjectType::ObjectTrigger, Relation::Table(def)) => {
            super::trigger::rename_on_table(ctx, &def, &rs.subname, &rs.newname)?
        }
        (ObjectType::ObjectTrigger, Relation::View(v)) => {
            let renamed = renamed_triggers(&v.name, &v.triggers, &rs.subname, &rs.newname)?;
            let mut new = (*v).clone();
            new.triggers = renamed;
            super::put_view(ctx, new)?
        }
        (ObjectType::ObjectTable | ObjectType::ObjectSequence, Relation::Sequence(seq)) => {
            rename_sequence(ctx, &seq, &rs.newname)?
        }
        (ObjectType::ObjectTable | ObjectType::ObjectView, Relation::View(v)) => {
            rename_view(ctx, &v, &rs.newname)?
        }
        (ObjectType::ObjectColumn, Relation::View(v)) => {
            rename_view_column(ctx, &v, &rs.subname, &rs.newname)?
        }
        (ObjectType::ObjectSequence, _) => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{name}\" is not a sequence"),
            ))
        }
        (ObjectType::ObjectView, _) => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{name}\" is not a view"),
            ))
        }
        _ => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{name}\" is not a table"),
            ))
        }
    }
    Ok(CommandTag::Plain(tag))
}

fn object_word(kind: ObjectType) -> &'static str {
    match kind {
        ObjectType::ObjectSequence => "SEQUENCE",
        ObjectType::ObjectView => "VIEW",
        ObjectType::ObjectMatview => "MATERIALIZED VIEW",
        ObjectType::ObjectFunction => "FUNCTION",
        ObjectType::ObjectProcedure => "PROCEDURE",
        ObjectType::ObjectSchema => "SCHEMA",
        ObjectType::ObjectDatabase => "DATABASE",
        ObjectType::ObjectRole => "ROLE",
        ObjectType::ObjectType => "TYPE",
        _ => "object",
    }
}

fn relation_exists(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateTable,
        format!("relation \"{name}\" already exists"),
    )
}

/// The sequences owned by `table` (by name), with `f` applied to their
/// OWNED BY (table, column), put back.
fn update_owned_sequences(
    ctx: &mut StatementCtx,
    (namespace, table): (u32, &str),
    f: impl Fn(&mut (String, String)),
) -> Result<(), DbError> {
    let owned: Vec<Arc<Sequence>> = ctx
        .catalog
        .sequences()
        .into_iter()
        .filter(|s| s.owned_by.as_ref().is_some_and(|(t, _)| t == table))
        .filter(|s| s.namespace == namespace)
        .collect();
    for seq in owned {
        let mut owner = seq.owned_by.clone();
        if let Some(o) = owner.as_mut() {
            f(o);
        }
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::PutSequence(Arc::new(seq.with_owner(owner))),
        )?;
    }
    Ok(())
}

fn rename_table(ctx: &mut StatementCtx, def: &Arc<TableDef>, to: &str) -> Result<(), DbError> {
    let temporary = def.persistence == nestor_catalog::Persistence::Temporary;
    if ctx
        .catalog
        .name_taken_in(&ctx.catalog.qualify(def.namespace, to), temporary)
    {
        return Err(relation_exists(to));
    }
    let from = def.name.clone();
    let mut new = (**def).clone();
    new.name = to.to_string();
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::RenameTable {
            from: ctx.catalog.qualify(def.namespace, &from),
            def: Arc::new(new),
        },
    )?;
    update_owned_sequences(ctx, (def.namespace, &from), |o| o.0 = to.to_string())?;
    super::view::rename_in_views(ctx, def.oid, &from, to)?;
    super::view::revalidate_views_on(ctx, def.oid, &format!("table {from}"))
}

/// ALTER SEQUENCE ... RENAME TO: column defaults name a sequence as text
/// (`nextval('s'::regclass)`), so the defaults that call this one, and
/// the owning table's list of its sequences, follow.
fn rename_sequence(ctx: &mut StatementCtx, seq: &Arc<Sequence>, to: &str) -> Result<(), DbError> {
    let q = |n: &str| ctx.catalog.qualify(seq.namespace, n);
    if ctx.catalog.name_taken_in(&q(to), seq.temporary) {
        return Err(relation_exists(to));
    }
    let from = seq.name.clone();
    let mut new = seq.with_owner(seq.owned_by.clone());
    new.name = to.to_string();
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::DropSequence(q(&from)))?;
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSequence(Arc::new(new)))?;
    let old_call = format!("nextval('{from}'::regclass)");
    let new_call = format!("nextval('{to}'::regclass)");
    for t in ctx.catalog.tables() {
        let uses = t
            .columns
            .iter()
            .any(|c| c.default.as_deref().is_some_and(|d| d.contains(&old_call)));
        if !uses && !t.owned_sequences.contains(&from) {
            continue;
        }
        let mut def = (*t).clone();
        for c in &mut def.columns {
            if let Some(d) = &c.default {
                c.default = Some(d.replace(&old_call, &new_call));
            }
        }
        for s in def.owned_sequences.iter_mut().filter(|s| **s == from) {
            *s = to.to_string();
        }
        super::put_table(ctx, def)?;
    }
    super::view::rename_in_views(ctx, seq.oid, &from, to)?;
    super::view::revalidate_views_on(ctx, seq.oid, &format!("sequence {from}"))
}

/// ALTER VIEW ... RENAME TO: the views that read it have its name in
/// their text, which follows.
fn rename_view(ctx: &mut StatementCtx, v: &Arc<ViewDef>, to: &str) -> Result<(), DbError> {
    if ctx
        .catalog
        .name_taken_in(&ctx.catalog.qualify(v.namespace, to), false)
    {
        return Err(relation_exists(to));
    }
    let from = v.name.clone();
    let mut new = (**v).clone();
    new.name = to.to_string();
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::DropView(ctx.catalog.qualify(v.namespace, &from)),
    )?;
    super::put_view(ctx, new)?;
    super::view::rename_in_views(ctx, v.oid, &from, to)?;
    super::view::revalidate_views_on(ctx, v.oid, &format!("view {from}"))
}

/// ALTER VIEW ... RENAME COLUMN (PostgreSQL 13+): the view's column name,
/// and the views that read it.
fn rename_view_column(
    ctx: &mut StatementCtx,
    v: &Arc<ViewDef>,
    from: &str,
    to: &str,
) -> Result<(), DbError> {
    let pos = v
        .columns
        .iter()
        .position(|(c, _)| c == from)
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedColumn,
                format!("column \"{from}\" does not exist"),
            )
        })?;
    if v.columns.iter().any(|(c, _)| c == to) {
        return Err(DbError::new(
            SqlState::DuplicateColumn,
            format!("column \"{to}\" of relation \"{}\" already exists", v.name),
        ));
    }
    let mut new = (**v).clone();
    new.columns[pos].0 = to.to_string();
    super::put_view(ctx, new)?;
    super::view::rename_in_views(ctx, v.oid, from, to)?;
    super::view::revalidate_views_on(ctx, v.oid, &format!("view {}", v.name))
}

fn rename_index(
    ctx: &mut StatementCtx,
    table: &Arc<TableDef>,
    index: &str,
    to: &str,
) -> Result<(), DbError> {
    if ctx.catalog.name_taken(to) {
        return Err(relation_exists(to));
    }
    let mut new = (**table).clone();
    for i in new.indexes.iter_mut().filter(|i| i.name == index) {
        i.name = to.to_string();
    }
    super::put_table(ctx, new)
}

/// Names PostgreSQL reserves for system columns.
const SYSTEM_COLUMNS: [&str; 6] = ["tableoid", "cmax", "xmax", "cmin", "xmin", "ctid"];

/// RENAME COLUMN of a table and, as PostgreSQL's renameatt recurses,
/// of its inheritance children and partitions (an inherited column is
/// renamed only from the top; ONLY on a table with children is 42P16).
fn rename_column_tree(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    recurse: bool,
    from: &str,
    to: &str,
) -> Result<(), DbError> {
    let inherited = def.inherits.iter().any(|p| {
        ctx.catalog
            .table_by_oid(*p)
            .is_some_and(|p| p.column_index(from).is_some())
    });
    if inherited {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!("cannot rename inherited column \"{from}\""),
        ));
    }
    let members = ctx.catalog.descendants(def);
    if !recurse && members.len() > 1 && def.column_index(from).is_some() {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!("inherited column \"{from}\" must be renamed in child tables too"),
        ));
    }
    rename_column(ctx, def, from, to)?;
    for m in members.iter().skip(1) {
        let Some(cur) = ctx.catalog.table_by_oid(m.oid) else {
            continue;
        };
        if cur.column_index(from).is_some() {
            rename_column(ctx, &cur, from, to)?;
        }
    }
    Ok(())
}

fn rename_column(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    from: &str,
    to: &str,
) -> Result<(), DbError> {
    let pos = def.column_index(from).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedColumn,
            format!("column \"{from}\" does not exist"),
        )
    })?;
    if SYSTEM_COLUMNS.contains(&to) {
        return Err(DbError::new(
            SqlState::DuplicateColumn,
            format!("column name \"{to}\" conflicts with a system column name"),
        ));
    }
    if def.column_index(to).is_some() {
        return Err(DbError::new(
            SqlState::DuplicateColumn,
            format!(
                "column \"{to}\" of relation \"{}\" already exists",
                def.name
            ),
        ));
    }
    let mut new = (**def).clone();
    new.columns[pos].name = to.to_string();
    for c in &mut new.checks {
        c.expr = nestor_parser::rename_identifier(&c.expr, from, to)?;
    }
    // Computed indexes name columns in their stored text (their bound
    // keys are by position and stay as they are).
    for i in &mut new.indexes {
        if let Some(x) = &i.exprs {
            let mut x = (**x).clone();
            for k in &mut x.keys {
                if let nestor_catalog::IndexKey::Expr(e) = k {
                    *e = nestor_parser::replace_identifier(e, from, to)?;
                }
            }
            if let Some(p) = &x.predicate {
                x.predicate = Some(nestor_parser::replace_identifier(p, from, to)?);
            }
            i.exprs = Some(Arc::new(x));
        }
    }
    if let Some(k) = &mut new.partition_key {
        for p in &mut k.parts {
            if let nestor_catalog::partition::KeyPart::Expr(e) = p {
                if e.columns.contains(&pos) {
                    e.sql = nestor_parser::rename_identifier(&e.sql, from, to)?;
                }
            }
        }
    }
    // Policies name the table's columns in their stored text too (a
    // subquery's column of the same name is renamed with them).
    for p in &mut new.row_security.policies {
        for e in [&mut p.qual, &mut p.check].into_iter().flatten() {
            *e = nestor_parser::rename_identifier(e, from, to)?;
        }
    }
    for t in &mut new.triggers {
        for c in t.columns.iter_mut().filter(|c| *c == from) {
            *c = to.to_string();
        }
        if let Some(w) = &t.when {
            t.when = Some(nestor_parser::rename_identifier(w, from, to)?);
        }
    }
    super::put_table(ctx, new)?;
    update_owned_sequences(ctx, (def.namespace, &def.name), |o| {
        if o.1 == from {
            o.1 = to.to_string();
        }
    })?;
    super::view::rename_in_views(ctx, def.oid, from, to)?;
    super::view::revalidate_views_on(ctx, def.oid, &format!("table {}", def.name))
}

/// RENAME CONSTRAINT: a CHECK, a FOREIGN KEY, or a PRIMARY KEY / UNIQUE
/// constraint (whose index is renamed with it, as in PostgreSQL).
fn rename_constraint(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    from: &str,
    to: &str,
) -> Result<(), DbError> {
    let is_index = def.indexes.iter().any(|i| i.constraint && i.name == from);
    let exists = def.checks.iter().any(|c| c.name == from)
        || def.foreign_keys.iter().any(|f| f.name == from)
        || is_index;
    if !exists {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!(
                "constraint \"{from}\" for table \"{}\" does not exist",
                def.name
            ),
        ));
    }
    let taken = def.checks.iter().any(|c| c.name == to)
        || def.foreign_keys.iter().any(|f| f.name == to)
        || def.indexes.iter().any(|i| i.constraint && i.name == to);
    if taken {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!(
                "constraint \"{to}\" for relation \"{}\" already exists",
                def.name
            ),
        ));
    }
    if is_index && ctx.catalog.name_taken(to) {
        return Err(relation_exists(to));
    }
    let mut new = (**def).clone();
    for c in new.checks.iter_mut().filter(|c| c.name == from) {
        c.name = to.to_string();
    }
    for f in new.foreign_keys.iter_mut().filter(|f| f.name == from) {
        f.name = to.to_string();
    }
    for n in new.not_valid.iter_mut().filter(|n| *n == from) {
        *n = to.to_string();
    }
    for i in new
        .indexes
        .iter_mut()
        .filter(|i| i.constraint && i.name == from)
    {
        i.name = to.to_string();
    }
    super::put_table(ctx, new)
}

/// The triggers of relation `rel` with `from` renamed `to` (name order
/// kept, the order they fire in).
fn renamed_triggers(
    rel: &str,
    triggers: &[nestor_catalog::TriggerDef],
    from: &str,
    to: &str,
) -> Result<Vec<nestor_catalog::TriggerDef>, DbError> {
    if !triggers.iter().any(|t| t.name == from) {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!("trigger \"{from}\" for table \"{rel}\" does not exist"),
        ));
    }
    if triggers.iter().any(|t| t.name == to) {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!("trigger \"{to}\" for relation \"{rel}\" already exists"),
        ));
    }
    let mut new = triggers.to_vec();
    for t in new.iter_mut().filter(|t| t.name == from) {
        t.name = to.to_string();
    }
    new.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(new)
}
