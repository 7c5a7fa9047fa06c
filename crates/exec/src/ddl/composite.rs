//! CREATE TYPE ... AS (attributes), ALTER TYPE (ADD / DROP / RENAME
//! ATTRIBUTE, RENAME TO, OWNER TO) and DROP TYPE of composite types.
//!
//! Each statement builds the type's new [`CompositeDef`] and applies it as
//! a `Change::PutComposite` (a drop as `Change::DropComposite`), so it is
//! undone by ROLLBACK and logged at COMMIT like any schema change; the
//! catalog keeps the value layer's registry in step
//! (`nestor_catalog::composite`). Checks and messages follow PostgreSQL's
//! typecmds.c and tablecmds.c:
//!
//! ```text
//!   CREATE TYPE pair AS (a int, b text)   relation 16390, array type 16391,
//!                                         type 16392 (PostgreSQL's order)
//!   CREATE TYPE pair AS (a int, a text)   42701 column "a" specified more than once
//!   DROP TYPE pair     (a column uses it) 2BP01 cannot drop type pair because
//!                                         other objects depend on it
//!   ALTER TYPE pair ADD ATTRIBUTE c int   (a column uses it) 0A000 cannot alter
//!                                         type "pair" because column "t.x" uses it
//! ```
//!
//! A column's type is interned with the attributes it was created with, so
//! changing the attributes of a type in use is refused (PostgreSQL refuses
//! it too unless CASCADE, which is 0A000 here), as is DROP ... CASCADE of a
//! type other objects use.

use std::sync::Arc;

use nestor_catalog::Change;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::composites::CompositeDef;
use nestor_types::domains::DomainDef;
use nestor_types::DataType;

use super::enum_type::{name_is_type, type_exists, type_name, undefined_type};
use super::notice;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// Whether `t` is, or contains (an attribute, an element), composite `oid`.
pub(super) fn uses(t: DataType, oid: u32) -> bool {
    match t {
        DataType::Record(r) if r.oid == oid => true,
        DataType::Record(r) => r.fields.iter().any(|(_, f)| uses(*f, oid)),
        DataType::Array(e) => uses(*e, oid),
        _ => false,
    }
}

/// The objects that use composite `oid`, as PostgreSQL's DETAIL lines
/// name them.
fn dependents(ctx: &StatementCtx, oid: u32) -> Vec<String> {
    dependents_but(ctx, oid, &[])
}

/// [`dependents`] but the domains of `domains` (by OID).
fn dependents_but(ctx: &StatementCtx, oid: u32, domains: &[u32]) -> Vec<String> {
    let mut out = Vec::new();
    for t in ctx.catalog.tables() {
        // A column of a domain over the type depends on the domain.
        for c in t
            .columns
            .iter()
            .filter(|c| !c.dropped && c.domain.is_none() && uses(c.ty, oid))
        {
            out.push(format!("column {} of table {}", c.name, t.name));
        }
    }
    for c in ctx.catalog.composites() {
        for (a, _) in c.attrs.iter().filter(|(_, t)| uses(*t, oid)) {
            out.push(format!("column {a} of composite type {}", c.name));
        }
    }
    for d in ctx.catalog.domains() {
        if uses(d.base, oid) && !domains.contains(&d.oid) {
            out.push(format!("type {}", d.name));
        }
    }
    for v in ctx.catalog.views() {
        if v.columns.iter().any(|(_, t)| uses(*t, oid)) {
            out.push(format!("view {}", v.name));
        }
    }
    let mut functions = ctx.catalog.all_functions();
    functions.sort_by_key(|f| f.oid);
    for f in functions {
        let ret = matches!(f.returns, nestor_catalog::function::Returns::Scalar(t) if uses(t, oid));
        if f.args.iter().any(|a| uses(a.ty, oid)) || ret {
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

/// 42501 unless the current role owns the type.
fn require_owner(ctx: &StatementCtx, def: &CompositeDef) -> Result<(), DbError> {
    crate::privilege::require_type_owner(ctx, def.owner, &def.name)
}

fn put(ctx: &mut StatementCtx, def: CompositeDef) -> Result<(), DbError> {
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutComposite(Arc::new(def)))
}

/// One attribute of a `(name type, ...)` list.
/// An attribute definition: its name, type (a domain's base type) and
/// the domain it names (the domain's or its array type's OID), if any.
fn attribute(n: &pb::Node) -> Result<(String, DataType, Option<u32>), DbError> {
    let NodeEnum::ColumnDef(cd) = node(n)? else {
        return Err(DbError::internal("composite attribute is not a column"));
    };
    let tn = cd
        .type_name
        .as_ref()
        .ok_or_else(|| DbError::internal("attribute without a type"))?;
    if let Some(p) = super::table::pseudo_type_named(tn) {
        return Err(super::table::pseudo_column(&cd.colname, p));
    }
    let t = bind::type_from_name(tn)?;
    if let Some(pseudo) = super::table::pseudo_type(t) {
        return Err(super::table::pseudo_column(&cd.colname, pseudo));
    }
    Ok((cd.colname.clone(), t, declared_domain(tn)))
}

/// The domain (or array of one) a type name names, by pg_type OID.
fn declared_domain(tn: &pb::TypeName) -> Option<u32> {
    bind::domain::domain_or_array(tn).map(|(d, array)| if array { d.array_oid } else { d.oid })
}

/// `domains` as kept: empty when no attribute has one.
fn trimmed(mut domains: Vec<Option<u32>>) -> Vec<Option<u32>> {
    if domains.iter().all(Option::is_none) {
        domains.clear();
    }
    domains
}

/// 42P16 when `t` contains composite type `def` itself.
fn not_itself(def: &CompositeDef, t: DataType) -> Result<(), DbError> {
    if uses(t, def.oid) {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!(
                "composite type {} cannot be made a member of itself",
                def.name
            ),
        ));
    }
    Ok(())
}

fn duplicate_column(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateColumn,
        format!("column \"{name}\" specified more than once"),
    )
}

/// CREATE TYPE name AS (attributes).
pub fn create_composite(
    ctx: &mut StatementCtx,
    st: &pb::CompositeTypeStmt,
) -> Result<CommandTag, DbError> {
    let rv = st
        .typevar
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE TYPE without a name"))?;
    let name = match rv.schemaname.as_str() {
        "" | "public" => rv.relname.clone(),
        s => {
            return Err(DbError::unsupported(format!(
                "composite types in schema {s}"
            )))
        }
    };
    if name_is_type(ctx, &name) || ctx.catalog.composite(&name).is_some() {
        return Err(type_exists(&name));
    }
    let mut attrs: Vec<(String, DataType)> = Vec::with_capacity(st.coldeflist.len());
    let mut domains = Vec::with_capacity(st.coldeflist.len());
    for n in &st.coldeflist {
        let (a, t, d) = attribute(n)?;
        if attrs.iter().any(|(p, _)| *p == a) {
            return Err(duplicate_column(&a));
        }
        attrs.push((a, t));
        domains.push(d);
    }
    // PostgreSQL: the relation's OID, then the array type's, then the
    // type's.
    let relid = ctx.catalog.alloc_oid().0;
    let array_oid = ctx.catalog.alloc_oid().0;
    let oid = ctx.catalog.alloc_oid().0;
    let def = CompositeDef {
        oid,
        array_oid,
        relid,
        name,
        owner: ctx.role.oid.0,
        attrs,
        domains: trimmed(domains),
    };
    put(ctx, def)?;
    Ok(CommandTag::Plain("CREATE TYPE"))
}

/// DROP TYPE of these composite types (the caller resolved the names).
pub(super) fn drop_composites(
    ctx: &mut StatementCtx,
    defs: Vec<Arc<CompositeDef>>,
    cascade: bool,
) -> Result<(), DbError> {
    for def in &defs {
        require_owner(ctx, def)?;
        let deps: Vec<String> = dependents(ctx, def.oid)
            .into_iter()
            .filter(|d| {
                !defs
                    .iter()
                    .any(|o| o.oid != def.oid && d.ends_with(&format!("composite type {}", o.name)))
            })
            .collect();
        if deps.is_empty() {
            continue;
        }
        // CASCADE drops the domains over it (and what uses them); other
        // dependents are not dropped by cascade yet.
        let domains: Vec<_> = ctx
            .catalog
            .domains()
            .into_iter()
            .filter(|d| uses(d.base, def.oid))
            .collect();
        if cascade && deps.len() == domains.len() {
            let why = domains
                .iter()
                .map(|d| {
                    (
                        super::domain::Dependent::Domain(d.name.clone()),
                        def.name.clone(),
                    )
                })
                .collect();
            super::domain::drop_domain_defs(ctx, domains, why, true)?;
            continue;
        }
        // CASCADE drops the functions that take or return it, when
        // they are all that uses it.
        let functions = super::function::using_type(ctx, &|t| uses(t, def.oid));
        if cascade && deps.len() == functions.len() {
            super::function::drop_cascaded(ctx, functions)?;
            continue;
        }
        if cascade {
            return Err(DbError::unsupported(
                "DROP TYPE ... CASCADE of a type columns, attributes or views use",
            ));
        }
        return Err(super::dependents_remain(
            format_args!("type {}", def.name),
            deps.iter()
                .map(|d| format!("{d} depends on type {}", def.name)),
        ));
    }
    for def in defs {
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::DropComposite(def.name.clone()),
        )?;
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::SetComment {
                key: (1247, def.oid, 0),
                text: None,
            },
        )?;
    }
    Ok(())
}

/// The composite type `name` for a change by its owner.
fn owned(ctx: &StatementCtx, name: &str) -> Result<CompositeDef, DbError> {
    let def = ctx
        .catalog
        .composite(name)
        .ok_or_else(|| undefined_type(name))?;
    require_owner(ctx, &def)?;
    Ok((*def).clone())
}

/// ALTER TYPE name RENAME TO new (true: `name` is a composite type).
pub(super) fn rename_composite(
    ctx: &mut StatementCtx,
    parts: &[pb::Node],
    to: &str,
) -> Result<bool, DbError> {
    let name = type_name(ctx.catalog, parts)?;
    if ctx.catalog.composite(&name).is_none() {
        return Ok(false);
    }
    let mut def = owned(ctx, &name)?;
    if name_is_type(ctx, to) || ctx.catalog.composite(to).is_some() {
        return Err(type_exists(to));
    }
    def.name = to.to_string();
    put(ctx, def)?;
    Ok(true)
}

/// ALTER TYPE name OWNER TO role (true: `name` is a composite type).
pub(super) fn alter_composite_owner(
    ctx: &mut StatementCtx,
    parts: &[pb::Node],
    spec: &pb::RoleSpec,
) -> Result<bool, DbError> {
    let name = type_name(ctx.catalog, parts)?;
    if ctx.catalog.composite(&name).is_none() {
        return Ok(false);
    }
    let mut def = owned(ctx, &name)?;
    let new = super::role::resolve(ctx, spec)?;
    if !ctx.role.superuser && !ctx.catalog.is_member_of(ctx.role.oid, new.oid) {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            format!("must be member of role \"{}\"", new.name),
        ));
    }
    def.owner = new.oid.0;
    put(ctx, def)?;
    Ok(true)
}

/// 0A000 when a column, attribute or function uses the type whose
/// attributes are about to change (PostgreSQL's message for a column; it
/// would rewrite them under CASCADE).
fn check_not_in_use(ctx: &StatementCtx, def: &CompositeDef, cascade: bool) -> Result<(), DbError> {
    for t in ctx.catalog.tables() {
        if let Some(c) = t.columns.iter().find(|c| !c.dropped && uses(c.ty, def.oid)) {
            let msg = format!(
                "cannot alter type \"{}\" because column \"{}.{}\" uses it",
                def.name, t.name, c.name
            );
            return Err(if cascade {
                DbError::unsupported("ALTER TYPE ... CASCADE of a type a column uses")
            } else {
                DbError::new(SqlState::FeatureNotSupported, msg)
            });
        }
    }
    // Domains over the type itself follow it (`rebase_domains`).
    let over: Vec<u32> = domains_over(ctx, def.oid).iter().map(|d| d.oid).collect();
    if let Some(d) = dependents_but(ctx, def.oid, &over).first() {
        return Err(DbError::unsupported(format!(
            "ALTER TYPE {} while {d} uses it",
            def.name
        )));
    }
    Ok(())
}

/// The domains over composite `oid` itself (at any level of domains over
/// domains: each has the root's base type).
fn domains_over(ctx: &StatementCtx, oid: u32) -> Vec<Arc<DomainDef>> {
    ctx.catalog
        .domains()
        .into_iter()
        .filter(|d| matches!(d.base, DataType::Record(r) if r.oid == oid))
        .collect()
}

/// The domains over composite `def` (just changed) with its new shape,
/// to put after it (a logged domain decodes its base type by the
/// composite's OID); their CHECK constraints must still bind over it. One
/// naming an attribute of `dropped` is PostgreSQL's dependency error
/// (2BP01; 0A000 under CASCADE, which would drop the constraint).
fn rebase_domains(
    ctx: &StatementCtx,
    def: &CompositeDef,
    dropped: &[String],
    cascade: bool,
) -> Result<Vec<DomainDef>, DbError> {
    let base = def.data_type();
    let mut rebased = Vec::new();
    for d in domains_over(ctx, def.oid) {
        for c in &d.checks {
            // Each constraint alone, over the new type.
            let one = DomainDef {
                base,
                parent: None,
                not_null: false,
                checks: vec![c.clone()],
                ..(*d).clone()
            };
            let bound = bind::domain::bind_domain_checks(
                ctx.catalog,
                ctx.eval,
                nestor_plan::select::plan_query,
                &one,
                1,
                0,
            );
            match bound {
                Err(e) if e.code == SqlState::UndefinedColumn && !dropped.is_empty() => {
                    return Err(attribute_in_use(def, dropped, &c.name, cascade));
                }
                Err(mut e) => {
                    // Its cursor is in the constraint's text, not the
                    // statement's.
                    e.position = None;
                    e.unpositioned = true;
                    return Err(e);
                }
                Ok(_) => {}
            }
        }
        rebased.push(DomainDef {
            base,
            ..(*d).clone()
        });
    }
    Ok(rebased)
}

/// DROP DOMAIN ... CASCADE: attribute `attr` of composite type `name`,
/// of the domain, is dropped (0A000 when something uses the type, as
/// for ALTER TYPE ... DROP ATTRIBUTE ... CASCADE).
pub(super) fn drop_attribute_cascaded(
    ctx: &mut StatementCtx,
    name: &str,
    attr: &str,
) -> Result<(), DbError> {
    let Some(cur) = ctx.catalog.composite(name) else {
        return Ok(());
    };
    let mut def = (*cur).clone();
    check_not_in_use(ctx, &def, true)?;
    let Some(i) = def.attrs.iter().position(|(a, _)| a == attr) else {
        return Ok(());
    };
    def.domains.resize(def.attrs.len(), None);
    let dropped = vec![def.attrs.remove(i).0];
    def.domains.remove(i);
    def.domains = trimmed(std::mem::take(&mut def.domains));
    let rebased = rebase_domains(ctx, &def, &dropped, true)?;
    put(ctx, def)?;
    for d in rebased {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::PutDomain(Arc::new(d)))?;
    }
    Ok(())
}

/// DROP ATTRIBUTE of an attribute a domain's constraint names.
fn attribute_in_use(def: &CompositeDef, dropped: &[String], check: &str, cascade: bool) -> DbError {
    if cascade {
        return DbError::unsupported(
            "ALTER TYPE ... DROP ATTRIBUTE ... CASCADE of an attribute a domain constraint uses",
        );
    }
    // The constraint names one of them; PostgreSQL reports the first
    // dropped (one DROP ATTRIBUTE a statement is the common case).
    let attr = &dropped[0];
    super::dependents_remain(
        format_args!("column {attr} of composite type {}", def.name),
        [format!(
            "constraint {check} depends on column {attr} of composite type {}",
            def.name
        )],
    )
}

/// ALTER TYPE name ADD ATTRIBUTE / DROP ATTRIBUTE [IF EXISTS] / ALTER
/// ATTRIBUTE ... TYPE (the AlterTableStmt PostgreSQL parses them into).
pub(super) fn alter_composite(
    ctx: &mut StatementCtx,
    at: &pb::AlterTableStmt,
    name: &str,
) -> Result<CommandTag, DbError> {
    let mut def = owned(ctx, name)?;
    // Kept beside `attrs` position by position while they change.
    def.domains.resize(def.attrs.len(), None);
    let mut dropped = Vec::new();
    let mut cascade_any = false;
    for c in &at.cmds {
        let NodeEnum::AlterTableCmd(cmd) = node(c)? else {
            continue;
        };
        let cascade = cmd.behavior == pb::DropBehavior::DropCascade as i32;
        cascade_any |= cascade;
        check_not_in_use(ctx, &def, cascade)?;
        let kind =
            pb::AlterTableType::try_from(cmd.subtype).unwrap_or(pb::AlterTableType::Undefined);
        match kind {
            pb::AlterTableType::AtAddColumn => {
                let n = cmd
                    .def
                    .as_deref()
                    .ok_or_else(|| DbError::internal("ADD ATTRIBUTE without a definition"))?;
                let (a, t, d) = attribute(n)?;
                not_itself(&def, t)?;
                if def.attrs.iter().any(|(p, _)| *p == a) {
                    return Err(DbError::new(
                        SqlState::DuplicateColumn,
                        format!("column \"{a}\" of relation \"{}\" already exists", def.name),
                    ));
                }
                def.attrs.push((a, t));
                def.domains.push(d);
            }
            pb::AlterTableType::AtDropColumn => {
                match def.attrs.iter().position(|(p, _)| *p == cmd.name) {
                    Some(i) => {
                        dropped.push(def.attrs.remove(i).0);
                        def.domains.remove(i);
                    }
                    None if cmd.missing_ok => notice(
                        ctx,
                        format!(
                            "column \"{}\" of relation \"{}\" does not exist, skipping",
                            cmd.name, def.name
                        ),
                    ),
                    None => return Err(undefined_attribute(&cmd.name, &def.name)),
                }
            }
            pb::AlterTableType::AtAlterColumnType => {
                let n = cmd
                    .def
                    .as_deref()
                    .ok_or_else(|| DbError::internal("ALTER ATTRIBUTE without a type"))?;
                let NodeEnum::ColumnDef(cd) = node(n)? else {
                    return Err(DbError::internal("ALTER ATTRIBUTE without a type"));
                };
                let tn = cd
                    .type_name
                    .as_ref()
                    .ok_or_else(|| DbError::internal("ALTER ATTRIBUTE without a type"))?;
                let t = bind::type_from_name(tn)?;
                not_itself(&def, t)?;
                let i = def
                    .attrs
                    .iter()
                    .position(|(p, _)| *p == cmd.name)
                    .ok_or_else(|| undefined_attribute(&cmd.name, &def.name))?;
                def.attrs[i].1 = t;
                def.domains[i] = declared_domain(tn);
            }
            _ => return Err(DbError::unsupported("this ALTER TYPE subcommand")),
        }
    }
    def.domains = trimmed(std::mem::take(&mut def.domains));
    let rebased = rebase_domains(ctx, &def, &dropped, cascade_any)?;
    put(ctx, def)?;
    for d in rebased {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::PutDomain(Arc::new(d)))?;
    }
    Ok(CommandTag::Plain("ALTER TYPE"))
}

fn undefined_attribute(attr: &str, ty: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedColumn,
        format!("column \"{attr}\" of relation \"{ty}\" does not exist"),
    )
}

/// ALTER TYPE name RENAME ATTRIBUTE a TO b.
pub(super) fn rename_attribute(
    ctx: &mut StatementCtx,
    rs: &pb::RenameStmt,
) -> Result<CommandTag, DbError> {
    let rv = rs
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("RENAME ATTRIBUTE without a type"))?;
    let mut def = owned(ctx, &rv.relname)?;
    check_not_in_use(
        ctx,
        &def,
        rs.behavior == pb::DropBehavior::DropCascade as i32,
    )?;
    if def.attrs.iter().any(|(p, _)| *p == rs.newname) {
        return Err(DbError::new(
            SqlState::DuplicateColumn,
            format!(
                "column \"{}\" of relation \"{}\" already exists",
                rs.newname, def.name
            ),
        ));
    }
    let i = def
        .attrs
        .iter()
        .position(|(p, _)| *p == rs.subname)
        .ok_or_else(|| undefined_attribute(&rs.subname, &def.name))?;
    def.attrs[i].0 = rs.newname.clone();
    put(ctx, def)?;
    Ok(CommandTag::Plain("ALTER TYPE"))
}
