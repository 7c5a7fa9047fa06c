//! ALTER DEFAULT PRIVILEGES: the ACL a role's new objects start from
//! (PostgreSQL's pg_default_acl and aclchk.c's SetDefaultACL /
//! get_user_default_acl).
//!
//! An entry is keyed by (role, schema OID or 0, object type letter:
//! `r` tables and views, `S` sequences, `f` functions and procedures, `T`
//! types, `n` schemas). A global entry (no IN SCHEMA) replaces the kind's
//! default ACL; a per-schema one can only add to it:
//!
//! ```text
//!   ALTER DEFAULT PRIVILEGES FOR ROLE app GRANT SELECT ON TABLES TO reader
//!     (app, 0, 'r') -> {app=arwdDxt/app, reader=r/app}
//!   ALTER DEFAULT PRIVILEGES FOR ROLE app IN SCHEMA public GRANT INSERT ON TABLES TO writer
//!     (app, 2200, 'r') -> {writer=a/app}
//!   CREATE TABLE t (as app): relacl = global entry (or acldefault) merged
//!     with the schema's: {app=arwdDxt/app, reader=r/app, writer=a/app}
//! ```
//!
//! An entry that comes back to the default is removed, as PostgreSQL
//! removes it. A role may change its own defaults and those of roles whose
//! privileges it has; superusers anyone's. The grantor of every item is
//! the target role. Nestor has one user schema (public), so IN SCHEMA
//! names it or fails with 3F000; types (`T`) are kept and shown but Nestor
//! has no CREATE TYPE to apply them to.

use nestor_catalog::acl::{self, AclItem, ObjAcl, ObjKind};
use nestor_catalog::{Change, Persistence, PUBLIC_NAMESPACE_OID};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb::{self, ObjectType};
use nestor_parser::NodeEnum;
use nestor_plan::bind::node;

use super::grant::{grantees, listed_privileges, schema_oid};
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// pg_default_acl's object type letter of a GRANT's object type.
fn objtype_letter(t: ObjectType) -> Result<u8, DbError> {
    Ok(match t {
        ObjectType::ObjectTable => b'r',
        ObjectType::ObjectSequence => b'S',
        ObjectType::ObjectFunction | ObjectType::ObjectProcedure | ObjectType::ObjectRoutine => {
            b'f'
        }
        ObjectType::ObjectType => b'T',
        ObjectType::ObjectSchema => b'n',
        other => {
            return Err(DbError::internal(format!(
                "unexpected object type {other:?} in ALTER DEFAULT PRIVILEGES"
            )))
        }
    })
}

/// Every privilege of an object type letter, and the word its errors use.
fn letter_privileges(letter: u8) -> (u16, &'static str) {
    match letter {
        b'r' => (ObjKind::Table.all(), "relation"),
        b'S' => (ObjKind::Sequence.all(), "sequence"),
        b'f' => (ObjKind::Function.all(), "function"),
        b'n' => (ObjKind::Schema.all(), "schema"),
        _ => (acl::USAGE, "type"),
    }
}

/// PostgreSQL's acldefault(objtype, owner).
fn acldefault(letter: u8, owner: u32) -> Vec<AclItem> {
    let kind = match letter {
        b'r' => ObjKind::Table,
        b'S' => ObjKind::Sequence,
        b'f' => ObjKind::Function,
        b'n' => ObjKind::Schema,
        _ => {
            let item = |grantee| AclItem {
                grantee,
                grantor: owner,
                privs: acl::USAGE,
                grant_option: 0,
            };
            return vec![item(0), item(owner)];
        }
    };
    ObjAcl {
        owner: RelId(owner),
        acl: None,
        cols: Vec::new(),
    }
    .effective(kind)
}

/// ALTER DEFAULT PRIVILEGES [FOR ROLE r, ...] [IN SCHEMA s, ...] GRANT /
/// REVOKE ...
pub fn alter_default_privileges(
    ctx: &mut StatementCtx,
    st: &pb::AlterDefaultPrivilegesStmt,
) -> Result<CommandTag, DbError> {
    let action = st
        .action
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER DEFAULT PRIVILEGES without an action"))?;
    let (mut roles, mut schemas) = (Vec::new(), Vec::new());
    for o in &st.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            return Err(DbError::internal("expected an option"));
        };
        let items = match d.arg.as_deref().map(node).transpose()? {
            Some(NodeEnum::List(l)) => l.items.clone(),
            _ => Vec::new(),
        };
        for item in &items {
            match (d.defname.as_str(), node(item)?) {
                ("roles", NodeEnum::RoleSpec(rs)) => {
                    roles.push(super::role::resolve(ctx, rs)?.oid.0)
                }
                ("schemas", NodeEnum::String(s)) => schemas.push(schema_oid(ctx, &s.sval)?),
                _ => {
                    return Err(DbError::internal(
                        "unexpected ALTER DEFAULT PRIVILEGES option",
                    ))
                }
            }
        }
    }
    let me = ctx.role.oid;
    if roles.is_empty() {
        roles.push(me.0);
    }
    for &r in &roles {
        if !ctx.role.superuser && !ctx.catalog.has_privs_of_role(me, RelId(r)) {
            return Err(DbError::new(
                SqlState::InsufficientPrivilege,
                format!(
                    "must be member of role \"{}\"",
                    crate::pg_catalog::role_name(ctx.catalog, r)
                ),
            ));
        }
    }
    let objtype = ObjectType::try_from(action.objtype).unwrap_or(ObjectType::Undefined);
    let letter = objtype_letter(objtype)?;
    if letter == b'n' && !schemas.is_empty() {
        return Err(DbError::new(
            SqlState::InvalidGrantOperation,
            "cannot use IN SCHEMA clause when using GRANT/REVOKE ON SCHEMAS",
        ));
    }
    let (all, what) = letter_privileges(letter);
    let privs = match listed_privileges(action)? {
        None => all,
        Some(list) => {
            let mut bits = 0;
            for acl_listed in list {
                let (word, bit) = (acl_listed.word, acl_listed.bit);
                if !acl_listed.cols.is_empty() {
                    return Err(DbError::new(
                        SqlState::InvalidGrantOperation,
                        "default privileges cannot be set for columns",
                    ));
                }
                if all & bit == 0 {
                    return Err(DbError::new(
                        SqlState::InvalidGrantOperation,
                        format!("invalid privilege type {word} for {what}"),
                    ));
                }
                bits |= bit;
            }
            bits
        }
    };
    let grantees = grantees(ctx, action)?;
    let places = if schemas.is_empty() { vec![0] } else { schemas };
    for &role in &roles {
        for &schema in &places {
            let key = (role, schema, letter);
            // A global entry starts from the kind's default; a per-schema
            // one from nothing (it can only add).
            let base = if schema == 0 {
                acldefault(letter, role)
            } else {
                Vec::new()
            };
            let mut items = ctx.catalog.default_acl(key).unwrap_or_else(|| base.clone());
            update(
                &mut items,
                &grantees,
                role,
                privs,
                action.is_grant,
                action.grant_option,
            );
            let acl = (!same_acl(&items, &base)).then_some(items);
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::SetDefaultAcl { key, acl })?;
        }
    }
    Ok(CommandTag::Plain("ALTER DEFAULT PRIVILEGES"))
}

/// What DROP ROLE lists for a pg_default_acl entry (PostgreSQL's
/// getObjectDescription): "default privileges on new relations belonging
/// to role app[ in schema public]".
pub(crate) fn describe(ctx: &StatementCtx, (role, schema, letter): (u32, u32, u8)) -> String {
    let what = match letter {
        b'r' => "relations",
        b'S' => "sequences",
        b'f' => "functions",
        b'T' => "types",
        _ => "schemas",
    };
    let mut s = format!(
        "default privileges on new {what} belonging to role {}",
        crate::pg_catalog::role_name(ctx.catalog, role)
    );
    if schema != 0 {
        s.push_str(" in schema public");
    }
    s
}

/// Grant or revoke `privs` (or only their grant option) for `grantees`,
/// granted by `grantor` (PostgreSQL's aclupdate).
fn update(
    items: &mut Vec<AclItem>,
    grantees: &[u32],
    grantor: u32,
    privs: u16,
    is_grant: bool,
    grant_option: bool,
) {
    for &g in grantees {
        if is_grant {
            let add = AclItem {
                grantee: g,
                grantor,
                privs,
                grant_option: if grant_option { privs } else { 0 },
            };
            acl::merge_item(items, add);
        } else if let Some(i) = items
            .iter_mut()
            .find(|i| i.grantee == g && i.grantor == grantor)
        {
            if !grant_option {
                i.privs &= !privs;
            }
            i.grant_option &= !privs & i.privs;
        }
    }
    items.retain(|i| i.privs != 0);
}

/// The ACL a new object of `kind` owned by `owner` starts with, when
/// default privileges say something (None: the kind's default).
fn initial_acl(ctx: &StatementCtx, kind: ObjKind, owner: u32, schema: u32) -> Option<Vec<AclItem>> {
    let letter = match kind {
        ObjKind::Table => b'r',
        ObjKind::Sequence => b'S',
        ObjKind::Function => b'f',
        ObjKind::Schema => b'n',
    };
    let global = ctx.catalog.default_acl((owner, 0, letter));
    let local = (schema != 0)
        .then(|| ctx.catalog.default_acl((owner, schema, letter)))
        .flatten();
    if global.is_none() && local.is_none() {
        return None;
    }
    let default = acldefault(letter, owner);
    let mut items = global.unwrap_or_else(|| default.clone());
    for add in local.unwrap_or_default() {
        acl::merge_item(&mut items, add);
    }
    (!same_acl(&items, &default)).then_some(items)
}

/// Whether two ACLs hold the same items in any order (PostgreSQL sorts
/// both before aclequal).
fn same_acl(a: &[AclItem], b: &[AclItem]) -> bool {
    let key = |i: &AclItem| (i.grantee, i.grantor, i.privs, i.grant_option);
    let mut a: Vec<_> = a.iter().map(key).collect();
    let mut b: Vec<_> = b.iter().map(key).collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// After a CREATE: the objects it made get the default privileges their
/// owner set (`created`: what the statement made; a TEMP table is outside
/// every schema an IN SCHEMA can name).
pub(crate) fn apply_default_acls(
    ctx: &mut StatementCtx,
    created: &[(ObjKind, u32)],
) -> Result<(), DbError> {
    if created.is_empty() || ctx.catalog.default_acls().is_empty() {
        return Ok(());
    }
    for &(kind, oid) in created {
        let temp = kind == ObjKind::Table
            && ctx
                .catalog
                .table_by_oid(RelId(oid))
                .is_some_and(|t| t.persistence == Persistence::Temporary);
        let schema = if temp { 0 } else { PUBLIC_NAMESPACE_OID };
        let owner = ctx.catalog.acl(kind, oid).owner.0;
        if let Some(items) = initial_acl(ctx, kind, owner, schema) {
            let acl = ObjAcl {
                owner: RelId(owner),
                acl: Some(items),
                cols: Vec::new(),
            };
            super::grant::set_acl(ctx, kind, oid, acl)?;
        }
    }
    Ok(())
}
