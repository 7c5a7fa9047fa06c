//! REASSIGN OWNED and DROP OWNED: what a role owns, and the privileges
//! granted to it, in the current database — the usual way to get rid of a
//! role that owns things (`REASSIGN OWNED BY old TO new; DROP OWNED BY
//! old; DROP ROLE old`).
//!
//! Ownership lives in two places: the ACL entries of relations,
//! functions and schemas (`Catalog::acls`, each with its owner), and the
//! definitions of enum, domain and composite types (their `owner`).
//!
//! ```text
//!   REASSIGN OWNED BY a TO b   every object owned by a: owner b (the ACL's
//!                              entries for a become b's, as ALTER ... OWNER
//!                              TO does); default privileges and grants to a
//!                              on others' objects stay
//!   DROP OWNED BY a            views, tables, sequences, functions, types,
//!                              schemas owned by a are dropped (as DROP ...
//!                              [CASCADE] would, one statement per kind, in
//!                              that order); then a's grants on what is
//!                              left, its default privileges, and a as a
//!                              policy's role (a policy of a alone goes)
//! ```
//!
//! The drops run through the ordinary DROP statements, so dependency
//! checks (2BP01 without CASCADE) and their cascades are theirs. Left out:
//! shared objects other than databases' ownership (which is not kept per
//! role here), and PostgreSQL's one-shot deletion of all the objects at
//! once: an object that depends on another dropped in a later statement
//! (a table default calling the role's function, say) needs CASCADE here.

use std::sync::Arc;

use nestor_catalog::acl::{self, ObjAcl, ObjKind};
use nestor_catalog::Change;
use nestor_common::keywords::quote_identifier;
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// The roles a REASSIGN/DROP OWNED names; the current role must be a
/// member of each (`what`: the message's verb phrase).
fn roles_named(ctx: &StatementCtx, roles: &[pb::Node], what: &str) -> Result<Vec<RelId>, DbError> {
    let mut out = Vec::with_capacity(roles.len());
    for r in roles {
        let Some(NodeEnum::RoleSpec(spec)) = r.node.as_ref() else {
            continue;
        };
        let role = super::role::resolve(ctx, spec)?;
        if !ctx.role.superuser && !ctx.catalog.is_member_of(ctx.role.oid, role.oid) {
            return Err(DbError::new(
                SqlState::InsufficientPrivilege,
                format!("permission denied to {what}"),
            ));
        }
        out.push(role.oid);
    }
    Ok(out)
}

/// The ACL kind of an ACL entry's class (None: a class REASSIGN/DROP
/// OWNED leaves, such as large objects or types kept elsewhere).
fn kind_of(class: u32) -> Option<ObjKind> {
    match class {
        acl::CLASS_RELATION => Some(ObjKind::Table),
        acl::CLASS_PROC => Some(ObjKind::Function),
        acl::CLASS_NAMESPACE => Some(ObjKind::Schema),
        _ => None,
    }
}

/// REASSIGN OWNED BY old [, ...] TO new.
pub fn reassign_owned(
    ctx: &mut StatementCtx,
    st: &pb::ReassignOwnedStmt,
) -> Result<CommandTag, DbError> {
    let old = roles_named(ctx, &st.roles, "reassign objects")?;
    let spec = st
        .newrole
        .as_ref()
        .ok_or_else(|| DbError::internal("REASSIGN OWNED without a new role"))?;
    let new = super::role::resolve(ctx, spec)?;
    if !ctx.role.superuser && !ctx.catalog.is_member_of(ctx.role.oid, new.oid) {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            "permission denied to reassign objects",
        ));
    }
    let mut acls = ctx.catalog.acls();
    acls.sort_by_key(|(k, _)| *k);
    for ((class, oid), a) in acls {
        if let (Some(kind), true) = (kind_of(class), old.contains(&a.owner)) {
            super::grant::set_owner(ctx, kind, oid, new.oid)?;
        }
    }
    let owned_by = |owner: u32| old.iter().any(|o| o.0 == owner);
    for e in ctx.catalog.enum_types() {
        if owned_by(e.owner) {
            let mut def = (*e).clone();
            def.owner = new.oid.0;
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::PutEnum(Arc::new(def)))?;
        }
    }
    for d in ctx.catalog.domains() {
        if owned_by(d.owner) {
            let mut def = (*d).clone();
            def.owner = new.oid.0;
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::PutDomain(Arc::new(def)))?;
        }
    }
    for c in ctx.catalog.composites() {
        if owned_by(c.owner) {
            let mut def = (*c).clone();
            def.owner = new.oid.0;
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::PutComposite(Arc::new(def)))?;
        }
    }
    Ok(CommandTag::Plain("REASSIGN OWNED"))
}

/// DROP OWNED BY role [, ...] [CASCADE | RESTRICT].
pub fn drop_owned(ctx: &mut StatementCtx, st: &pb::DropOwnedStmt) -> Result<CommandTag, DbError> {
    let roles = roles_named(ctx, &st.roles, "drop objects")?;
    let cascade = st.behavior == pb::DropBehavior::DropCascade as i32;
    for stmt in drop_statements(ctx, &roles, cascade) {
        run_drop(ctx, &stmt)?;
    }
    revoke_grants(ctx, &roles)?;
    drop_default_privileges(ctx, &roles)?;
    drop_from_policies(ctx, &roles)?;
    Ok(CommandTag::Plain("DROP OWNED"))
}

/// `schema.name`, quoted as needed (`name` alone in public).
fn qualified(ctx: &StatementCtx, namespace: u32, name: &str) -> String {
    if namespace == nestor_catalog::PUBLIC_NAMESPACE_OID {
        return quote_identifier(name);
    }
    let schema = if namespace == nestor_catalog::TEMP_NAMESPACE {
        Some("pg_temp".to_string())
    } else {
        ctx.catalog.schema_name(namespace)
    };
    match schema {
        Some(s) => format!("{}.{}", quote_identifier(&s), quote_identifier(name)),
        None => quote_identifier(name),
    }
}

/// The DROP statements for what `roles` own, in dependency order: views,
/// tables (partitions and inheritance children go with their parents),
/// sequences, functions, types, schemas.
fn drop_statements(ctx: &StatementCtx, roles: &[RelId], cascade: bool) -> Vec<String> {
    let owns = |kind: ObjKind, oid: u32| roles.contains(&ctx.catalog.acl(kind, oid).owner);
    let mut views = Vec::new();
    let mut matviews = Vec::new();
    let mut tables = Vec::new();
    let mut sequences = Vec::new();
    let mut functions = Vec::new();
    let mut schemas = Vec::new();
    let mut acls = ctx.catalog.acls();
    acls.sort_by_key(|(k, _)| *k);
    for ((class, oid), a) in acls {
        if !roles.contains(&a.owner) {
            continue;
        }
        match class {
            acl::CLASS_RELATION => {
                if let Some(t) = ctx.catalog.table_by_oid(RelId(oid)) {
                    if t.matview.is_some() {
                        matviews.push(qualified(ctx, t.namespace, &t.name));
                    } else if !t.inherits.iter().any(|p| owns(ObjKind::Table, p.0)) {
                        // A child whose parent goes too goes with it.
                        tables.push(qualified(ctx, t.namespace, &t.name));
                    }
                } else if let Some(v) = ctx.catalog.views().into_iter().find(|v| v.oid.0 == oid) {
                    views.push(qualified(ctx, v.namespace, &v.name));
                } else if let Some(s) = ctx.catalog.sequences().into_iter().find(|s| s.oid.0 == oid)
                {
                    sequences.push(qualified(ctx, s.namespace, &s.name));
                }
            }
            acl::CLASS_PROC => {
                if let Some(f) = ctx
                    .catalog
                    .all_functions()
                    .into_iter()
                    .find(|f| f.oid.0 == oid)
                {
                    let word = if f.procedure {
                        "PROCEDURE"
                    } else if f.aggregate.is_some() {
                        "AGGREGATE"
                    } else {
                        "FUNCTION"
                    };
                    functions.push(format!(
                        "DROP {word} IF EXISTS {}({})",
                        quote_identifier(&f.name),
                        f.input_type_names().join(", ")
                    ));
                }
            }
            acl::CLASS_NAMESPACE => {
                if let Some(name) = ctx.catalog.schema_name(oid) {
                    if oid != nestor_catalog::PUBLIC_NAMESPACE_OID {
                        schemas.push(quote_identifier(&name));
                    }
                }
            }
            _ => {}
        }
    }
    let owned_by = |owner: u32| roles.iter().any(|r| r.0 == owner);
    let domains: Vec<String> = ctx
        .catalog
        .domains()
        .iter()
        .filter(|d| owned_by(d.owner))
        .map(|d| quote_identifier(&d.name))
        .collect();
    let types: Vec<String> = ctx
        .catalog
        .composites()
        .iter()
        .filter(|c| owned_by(c.owner))
        .map(|c| quote_identifier(&c.name))
        .chain(
            ctx.catalog
                .enum_types()
                .iter()
                .filter(|e| owned_by(e.owner))
                .map(|e| quote_identifier(&e.name)),
        )
        .collect();
    let behavior = if cascade { " CASCADE" } else { "" };
    let list = |what: &str, names: Vec<String>| {
        (!names.is_empty()).then(|| format!("DROP {what} IF EXISTS {}{behavior}", names.join(", ")))
    };
    let mut out: Vec<String> = [
        list("VIEW", views),
        list("MATERIALIZED VIEW", matviews),
        list("TABLE", tables),
        list("SEQUENCE", sequences),
    ]
    .into_iter()
    .flatten()
    .collect();
    out.extend(functions.into_iter().map(|f| f + behavior));
    out.extend(
        [
            list("DOMAIN", domains),
            list("TYPE", types),
            list("SCHEMA", schemas),
        ]
        .into_iter()
        .flatten(),
    );
    out
}

/// Run one generated DROP statement through the DDL it is.
fn run_drop(ctx: &mut StatementCtx, sql: &str) -> Result<(), DbError> {
    let parsed = nestor_parser::parse_sql(sql)?;
    let Some(NodeEnum::DropStmt(ds)) = parsed
        .into_iter()
        .next()
        .and_then(|s| s.stmt)
        .and_then(|n| n.node)
    else {
        return Err(DbError::internal(format!("DROP OWNED made {sql}")));
    };
    // The objects exist (they were just listed): no "does not exist,
    // skipping" notices for those an earlier statement's CASCADE took.
    let before = ctx.notices.len();
    super::drop(ctx, &ds)?;
    let mut i = before;
    while i < ctx.notices.len() {
        if ctx.notices[i].message.ends_with(", skipping") {
            ctx.notices.remove(i);
        } else {
            i += 1;
        }
    }
    Ok(())
}

/// The privileges granted to `roles` on what is left (object and column
/// ACLs): revoked.
fn revoke_grants(ctx: &mut StatementCtx, roles: &[RelId]) -> Result<(), DbError> {
    let names = |i: &acl::AclItem| roles.iter().any(|r| r.0 == i.grantee);
    let mut acls = ctx.catalog.acls();
    acls.sort_by_key(|(k, _)| *k);
    for ((class, oid), a) in acls {
        let Some(kind) = kind_of(class) else {
            continue;
        };
        let touched = a
            .acl
            .as_deref()
            .is_some_and(|items| items.iter().any(names))
            || a.cols.iter().any(|(_, items)| items.iter().any(names));
        if !touched {
            continue;
        }
        let acl = a
            .acl
            .map(|items| items.into_iter().filter(|i| !names(i)).collect());
        let cols = a
            .cols
            .into_iter()
            .map(|(attnum, items)| (attnum, items.into_iter().filter(|i| !names(i)).collect()))
            .filter(|(_, items): &(i16, Vec<acl::AclItem>)| !items.is_empty())
            .collect();
        super::grant::set_acl(
            ctx,
            kind,
            oid,
            ObjAcl {
                owner: a.owner,
                acl,
                cols,
            },
        )?;
    }
    Ok(())
}

/// The default privileges `roles` set (ALTER DEFAULT PRIVILEGES FOR ROLE
/// them) go, and grants to them in others'.
fn drop_default_privileges(ctx: &mut StatementCtx, roles: &[RelId]) -> Result<(), DbError> {
    for (key, items) in ctx.catalog.default_acls() {
        let acl = if roles.iter().any(|r| r.0 == key.0) {
            None
        } else if items.iter().any(|i| roles.iter().any(|r| r.0 == i.grantee)) {
            Some(
                items
                    .into_iter()
                    .filter(|i| !roles.iter().any(|r| r.0 == i.grantee))
                    .collect(),
            )
        } else {
            continue;
        };
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::SetDefaultAcl { key, acl })?;
    }
    Ok(())
}

/// `roles` leave the TO lists of the policies naming them; a policy of
/// theirs alone is dropped (PostgreSQL's RemoveRoleFromObjectPolicy).
fn drop_from_policies(ctx: &mut StatementCtx, roles: &[RelId]) -> Result<(), DbError> {
    for t in ctx.catalog.tables() {
        let named = |p: &nestor_catalog::defs::PolicyDef| {
            p.roles.iter().any(|r| roles.iter().any(|x| x.0 == *r))
        };
        if !t.row_security.policies.iter().any(named) {
            continue;
        }
        let mut new = (*t).clone();
        for p in &mut new.row_security.policies {
            p.roles.retain(|r| !roles.iter().any(|x| x.0 == *r));
        }
        let before: Vec<String> = t
            .row_security
            .policies
            .iter()
            .filter(|p| named(p))
            .map(|p| p.name.clone())
            .collect();
        new.row_security
            .policies
            .retain(|p| !(before.contains(&p.name) && p.roles.is_empty()));
        super::put_table(ctx, new)?;
    }
    Ok(())
}
