//! CREATE TYPE ... AS ENUM, ALTER TYPE (ADD VALUE, RENAME VALUE, RENAME
//! TO) and DROP TYPE of enum types.
//!
//! Each statement builds the type's new [`EnumDef`] and applies it as a
//! `Change::PutEnum` (a drop as `Change::DropEnum`), so it is undone by
//! ROLLBACK and logged at COMMIT like any schema change; the catalog keeps
//! the value layer's registry in step (`nestor_catalog::enum_type`).
//! Checks and messages follow PostgreSQL's typecmds.c and pg_enum.c:
//!
//! ```text
//!   CREATE TYPE mood AS ENUM ('sad', 'ok')   array type 16390, type 16391,
//!                                            labels 16392, 16393 (sort 1, 2)
//!   ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'     label 16394, sort 1.5
//!   ALTER TYPE mood ADD VALUE 'ok'       42710 enum label "ok" already exists
//!   DROP TYPE mood    (a column uses it)  2BP01 cannot drop type mood because
//!                                         other objects depend on it
//! ```
//!
//! A label ADD VALUE adds is pending until the commit (55P04 when used,
//! see `nestor_types::enums`); other sessions get the same 55P04 where
//! PostgreSQL, which does not show them the label yet, says 22P02.
//!
//! The creator owns the type (pg_type.typowner); ALTER and DROP need
//! ownership (42501 `must be owner of type mood`), as in PostgreSQL.
//!
//! Left out: DROP TYPE ... CASCADE when columns use the type (0A000;
//! PostgreSQL drops the columns), ALTER TYPE ... SET SCHEMA, and USAGE
//! privileges on types (GRANT ... ON TYPE).

use std::sync::Arc;

use nestor_catalog::Change;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::enums::{self, EnumDef, Position};
use nestor_types::DataType;

use super::{notice, notice_code};
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// The type name of a `type_name` list (`public.` allowed; types live
/// in public only, so another existing schema is 0A000).
pub(super) fn type_name(
    catalog: &nestor_catalog::Catalog,
    parts: &[pb::Node],
) -> Result<String, DbError> {
    let names = bind::names(parts);
    match names.as_slice() {
        [n] => Ok(n.clone()),
        [s, n] if s == "public" => Ok(n.clone()),
        [s, _] if catalog.schema(s).is_some() || s == "pg_catalog" => Err(DbError::unsupported(
            format!("types in schema {s} (user-defined types live in public)"),
        )),
        [s, _] => Err(DbError::new(
            SqlState::InvalidSchemaName,
            format!("schema \"{s}\" does not exist"),
        )),
        _ => Err(DbError::new(
            SqlState::SyntaxError,
            format!("improper qualified name: {}", names.join(".")),
        )),
    }
}

pub(super) fn undefined_type(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!("type \"{name}\" does not exist"),
    )
}

pub(super) fn type_exists(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateObject,
        format!("type \"{name}\" already exists"),
    )
}

/// Whether `name` names a type already: an enum, a built-in type, or a
/// table/view (whose row type PostgreSQL creates under the same name).
pub(super) fn name_is_type(ctx: &StatementCtx, name: &str) -> bool {
    ctx.catalog.enum_type(name).is_some()
        || DataType::from_sql_name(name, &[]).is_ok()
        || ctx.catalog.table(name).is_some()
        || ctx.catalog.view(name).is_some()
}

/// The enum type `name` (42704 if none; 42809 for another kind of type).
fn existing(ctx: &StatementCtx, name: &str) -> Result<Arc<EnumDef>, DbError> {
    if let Some(e) = ctx.catalog.enum_type(name) {
        return Ok(e);
    }
    if let Ok(t) = DataType::from_sql_name(name, &[]) {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("{} is not an enum", t.name()),
        ));
    }
    Err(undefined_type(name))
}

/// 42501 unless the current role owns the type.
fn require_owner(ctx: &StatementCtx, def: &EnumDef) -> Result<(), DbError> {
    crate::privilege::require_type_owner(ctx, def.owner, &def.name)
}

/// The enum type `name` for a change by its owner.
fn owned(ctx: &StatementCtx, name: &str) -> Result<EnumDef, DbError> {
    let def = existing(ctx, name)?;
    require_owner(ctx, &def)?;
    Ok((*def).clone())
}

fn put(ctx: &mut StatementCtx, def: EnumDef) -> Result<(), DbError> {
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutEnum(Arc::new(def)))
}

/// CREATE TYPE name AS ENUM (labels).
pub fn create_enum(ctx: &mut StatementCtx, st: &pb::CreateEnumStmt) -> Result<CommandTag, DbError> {
    let name = type_name(ctx.catalog, &st.type_name)?;
    if name_is_type(ctx, &name) {
        return Err(type_exists(&name));
    }
    let mut labels: Vec<String> = Vec::with_capacity(st.vals.len());
    for v in &st.vals {
        match node(v)? {
            NodeEnum::String(s) => labels.push(s.sval.clone()),
            _ => return Err(DbError::internal("enum label is not a string")),
        }
    }
    // PostgreSQL: the array type's OID first, then the type's, then the
    // labels'.
    let array_oid = ctx.catalog.alloc_oid().0;
    let oid = ctx.catalog.alloc_oid().0;
    let mut with_oids = Vec::with_capacity(labels.len());
    for l in labels {
        with_oids.push((ctx.catalog.alloc_oid().0, l));
    }
    for (i, (_, l)) in with_oids.iter().enumerate() {
        enums::check_label(l)?;
        if with_oids[..i].iter().any(|(_, p)| p == l) {
            return Err(duplicate_label(oid, l));
        }
    }
    let mut def = EnumDef::new(oid, array_oid, &name, with_oids);
    def.owner = ctx.role.oid.0;
    put(ctx, def)?;
    Ok(CommandTag::Plain("CREATE TYPE"))
}

/// PostgreSQL does not check CREATE TYPE's list for duplicates: the
/// unique index on pg_enum (enumtypid, enumlabel) reports them.
fn duplicate_label(oid: u32, label: &str) -> DbError {
    DbError::new(
        SqlState::UniqueViolation,
        "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"",
    )
    .with_detail(format!(
        "Key (enumtypid, enumlabel)=({oid}, {label}) already exists."
    ))
}

/// ALTER TYPE name ADD VALUE [IF NOT EXISTS] v [BEFORE|AFTER n], ALTER TYPE
/// name RENAME VALUE a TO b.
pub fn alter_enum(ctx: &mut StatementCtx, st: &pb::AlterEnumStmt) -> Result<CommandTag, DbError> {
    let name = type_name(ctx.catalog, &st.type_name)?;
    let mut def = owned(ctx, &name)?;
    if !st.old_val.is_empty() {
        def.rename_label(&st.old_val, &st.new_val)?;
        put(ctx, def)?;
        return Ok(CommandTag::Plain("ALTER TYPE"));
    }
    enums::check_label(&st.new_val)?;
    if def.label(&st.new_val).is_some() {
        let msg = format!("enum label \"{}\" already exists", st.new_val);
        if st.skip_if_new_val_exists {
            notice_code(ctx, SqlState::DuplicateObject, format!("{msg}, skipping"));
            return Ok(CommandTag::Plain("ALTER TYPE"));
        }
        return Err(DbError::new(SqlState::DuplicateObject, msg));
    }
    let pos = match (st.new_val_neighbor.as_str(), st.new_val_is_after) {
        ("", _) => Position::End,
        (n, true) => Position::After(n),
        (n, false) => Position::Before(n),
    };
    let oid = ctx.catalog.alloc_oid().0;
    def.add_label(oid, &st.new_val, pos)?;
    put(ctx, def)?;
    // Unusable until this transaction commits (the catalog's commit of
    // the change clears it).
    enums::mark_pending(oid);
    Ok(CommandTag::Plain("ALTER TYPE"))
}

/// ALTER TYPE name RENAME TO new.
pub fn rename_enum(ctx: &mut StatementCtx, parts: &[pb::Node], to: &str) -> Result<(), DbError> {
    let name = type_name(ctx.catalog, parts)?;
    let mut def = owned(ctx, &name)?;
    if name_is_type(ctx, to) {
        return Err(type_exists(to));
    }
    def.name = to.to_string();
    put(ctx, def)
}

/// ALTER TYPE name OWNER TO role (the new owner must exist; a
/// non-superuser must own the type and be a member of the new owner).
pub fn alter_enum_owner(
    ctx: &mut StatementCtx,
    parts: &[pb::Node],
    spec: &pb::RoleSpec,
) -> Result<(), DbError> {
    let name = type_name(ctx.catalog, parts)?;
    let mut def = owned(ctx, &name)?;
    let new = super::role::resolve(ctx, spec)?;
    if !ctx.role.superuser && !ctx.catalog.is_member_of(ctx.role.oid, new.oid) {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            format!("must be member of role \"{}\"", new.name),
        ));
    }
    def.owner = new.oid.0;
    put(ctx, def)
}

/// DROP TYPE [IF EXISTS] names [CASCADE | RESTRICT].
pub fn drop_types(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    // DROP TYPE of domains is DROP DOMAIN (PostgreSQL drops either kind).
    let domain = |o: &pb::Node| match node(o) {
        Ok(NodeEnum::TypeName(tn)) => nestor_plan::bind::domain::domain_from_name(tn).is_some(),
        _ => false,
    };
    if !ds.objects.is_empty() && ds.objects.iter().all(domain) {
        super::domain::drop_domains(ctx, ds)?;
        return Ok(CommandTag::Plain("DROP TYPE"));
    }
    let mut drops = Vec::new();
    let mut composites = Vec::new();
    for o in &ds.objects {
        let parts = match node(o)? {
            NodeEnum::TypeName(tn) => tn.names.clone(),
            NodeEnum::List(l) => l.items.clone(),
            _ => continue,
        };
        let names = bind::names(&parts);
        let name = match names.as_slice() {
            [s, n] if s == "pg_catalog" => n.clone(),
            _ => type_name(ctx.catalog, &parts)?,
        };
        if let Some(c) = ctx.catalog.composite(&name) {
            composites.push(c);
            continue;
        }
        match existing(ctx, &name) {
            Ok(def) => drops.push(def),
            Err(e) if e.code == SqlState::WrongObjectType => {
                let t = DataType::from_sql_name(&name, &[])?;
                return Err(DbError::new(
                    SqlState::DependentObjectsStillExist,
                    format!(
                        "cannot drop type {} because it is required by the database system",
                        t.name()
                    ),
                ));
            }
            Err(e) if e.code == SqlState::UndefinedObject && ds.missing_ok => {
                notice(ctx, format!("type \"{name}\" does not exist, skipping"));
            }
            Err(e) => return Err(e),
        }
    }
    for def in &drops {
        require_owner(ctx, def)?;
        check_unused(ctx, def, ds)?;
    }
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    super::composite::drop_composites(ctx, composites, cascade)?;
    for def in drops {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropEnum(def.name.clone()))?;
    }
    Ok(CommandTag::Plain("DROP TYPE"))
}

/// The objects that use the type, as PostgreSQL's DETAIL lines name them.
fn dependents(ctx: &StatementCtx, oid: u32) -> Vec<String> {
    let uses = |t: DataType| t == DataType::Enum(oid) || t.element() == Some(DataType::Enum(oid));
    let mut out = Vec::new();
    for t in ctx.catalog.tables() {
        for c in t.columns.iter().filter(|c| !c.dropped && uses(c.ty)) {
            // An array column depends on the array type (PostgreSQL names
            // it), which depends on the enum.
            let suffix = if c.ty.is_array() { "[]" } else { "" };
            out.push(format!("column {} of table {}{suffix}", c.name, t.name));
        }
    }
    for d in ctx.catalog.domains() {
        if uses(d.base) {
            out.push(format!("type {}", d.name));
        }
    }
    for c in ctx.catalog.composites() {
        for (a, t) in &c.attrs {
            if uses(*t) {
                let suffix = if t.is_array() { "[]" } else { "" };
                out.push(format!("column {a} of composite type {}{suffix}", c.name));
            }
        }
    }
    for v in ctx.catalog.views() {
        if v.columns.iter().any(|(_, t)| uses(*t)) {
            out.push(format!("view {}", v.name));
        }
    }
    for f in ctx.catalog.all_functions() {
        let returns = matches!(f.returns, nestor_catalog::Returns::Scalar(t) if uses(t));
        if f.args.iter().any(|a| uses(a.ty)) || returns {
            out.push(super::function::described(&f));
        }
    }
    out.extend(
        super::cast::of_type(ctx, oid)
            .iter()
            .map(|c| super::cast::describe(c)),
    );
    out
}

fn check_unused(ctx: &mut StatementCtx, def: &EnumDef, ds: &pb::DropStmt) -> Result<(), DbError> {
    let deps = dependents(ctx, def.oid);
    if deps.is_empty() {
        return Ok(());
    }
    let cascade = ds.behavior == pb::DropBehavior::DropCascade as i32;
    // CASCADE drops the functions that take or return it, when they are
    // all that uses it.
    let oid = def.oid;
    let uses =
        move |t: DataType| t == DataType::Enum(oid) || t.element() == Some(DataType::Enum(oid));
    let functions = super::function::using_type(ctx, &uses);
    if cascade && deps.len() == functions.len() {
        return super::function::drop_cascaded(ctx, functions);
    }
    if cascade {
        return Err(DbError::unsupported(
            "DROP TYPE ... CASCADE of a type columns, attributes or views use",
        ));
    }
    Err(super::dependents_remain(
        format_args!("type {}", def.name),
        deps.iter().map(|d| match d.strip_suffix("[]") {
            Some(d) => format!("{d} depends on type {}[]", def.name),
            None => format!("{d} depends on type {}", def.name),
        }),
    ))
}
