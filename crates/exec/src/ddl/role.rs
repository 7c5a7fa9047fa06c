//! CREATE / ALTER / DROP ROLE (and USER, GROUP), GRANT and REVOKE of role
//! membership: PostgreSQL 15's user.c rules on the role catalog
//! (`nestor_catalog::role`).
//!
//! Who may do what (PostgreSQL 15): a superuser anything; a role with
//! CREATEROLE may create, alter, rename, drop and grant membership in roles
//! that are not superusers; a member WITH ADMIN OPTION may grant and revoke
//! membership in that role. Every change replaces whole role definitions:
//!
//! ```text
//!   CREATE ROLE app LOGIN PASSWORD 's3cret' IN ROLE readers
//!     -> PutRole(app { login, password: SCRAM-SHA-256$4096:..., member_of [readers] })
//!   DROP ROLE readers
//!     -> PutRole(app { member_of [] }), DropRole(readers)
//! ```
//!
//! Passwords are kept as SCRAM-SHA-256 verifiers only (a PASSWORD that
//! already is one is stored as given); MD5 hashes are refused with 0A000,
//! as Nestor authenticates with SCRAM only. ALTER ROLE ... SET is
//! `role_settings.rs`.

use std::sync::Arc;

use nestor_catalog::verifier::Verifier;
use nestor_catalog::{Change, Membership, RoleDef, BOOTSTRAP_SUPERUSER_OID};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::node;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use super::notice;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// The role running the statement (current_user: SET ROLE's role, else
/// the session user), whose attributes PostgreSQL checks.
pub(crate) fn current_role(ctx: &StatementCtx) -> Result<Arc<RoleDef>, DbError> {
    named_role(ctx, crate::privilege::current_role_name(ctx.settings))
}

fn named_role(ctx: &StatementCtx, name: &str) -> Result<Arc<RoleDef>, DbError> {
    ctx.catalog.role(name).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedObject,
            format!("role \"{name}\" does not exist"),
        )
    })
}

fn undefined_role(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!("role \"{name}\" does not exist"),
    )
}

fn denied(message: &str) -> DbError {
    DbError::new(SqlState::InsufficientPrivilege, message)
}

/// The role a RoleSpec names (CURRENT_USER and friends resolved).
pub(crate) fn resolve(ctx: &StatementCtx, spec: &pb::RoleSpec) -> Result<Arc<RoleDef>, DbError> {
    match pb::RoleSpecType::try_from(spec.roletype) {
        Ok(pb::RoleSpecType::RolespecCstring) => ctx
            .catalog
            .role(&spec.rolename)
            .ok_or_else(|| undefined_role(&spec.rolename)),
        Ok(pb::RoleSpecType::RolespecCurrentUser | pb::RoleSpecType::RolespecCurrentRole) => {
            current_role(ctx)
        }
        Ok(pb::RoleSpecType::RolespecSessionUser) => {
            named_role(ctx, ctx.settings.get("session_authorization").unwrap_or(""))
        }
        _ => Err(DbError::new(
            SqlState::UndefinedObject,
            "role \"public\" does not exist",
        )),
    }
}

fn role_spec(n: &pb::Node) -> Result<&pb::RoleSpec, DbError> {
    match node(n)? {
        NodeEnum::RoleSpec(r) => Ok(r),
        _ => Err(DbError::internal("expected a role name")),
    }
}

fn check_reserved(name: &str) -> Result<(), DbError> {
    if name.starts_with("pg_") {
        return Err(DbError::new(
            SqlState::ReservedName,
            format!("role name \"{name}\" is reserved"),
        )
        .with_detail("Role names starting with \"pg_\" are reserved."));
    }
    Ok(())
}

/// The options of CREATE/ALTER ROLE, as given.
#[derive(Default)]
struct Options {
    flags: Vec<(String, bool)>,
    conn_limit: Option<i32>,
    /// Some(None): PASSWORD NULL.
    password: Option<Option<String>>,
    valid_until: Option<String>,
    /// IN ROLE: roles the new role joins.
    in_roles: Vec<pb::RoleSpec>,
    /// ROLE / USER: members of the new role.
    members: Vec<pb::RoleSpec>,
    /// ADMIN: members with admin option.
    admins: Vec<pb::RoleSpec>,
}

fn options(ctx: &mut StatementCtx, list: &[pb::Node]) -> Result<Options, DbError> {
    let mut o = Options::default();
    let mut seen: Vec<String> = Vec::new();
    for n in list {
        let NodeEnum::DefElem(d) = node(n)? else {
            return Err(DbError::internal("expected a role option"));
        };
        if seen.contains(&d.defname) {
            return Err(
                DbError::new(SqlState::SyntaxError, "conflicting or redundant options")
                    .with_position(u32::try_from(d.location + 1).unwrap_or(0)),
            );
        }
        seen.push(d.defname.clone());
        let arg = d.arg.as_deref().and_then(|a| a.node.as_ref());
        let roles = |arg: Option<&NodeEnum>| -> Result<Vec<pb::RoleSpec>, DbError> {
            match arg {
                Some(NodeEnum::List(l)) => l.items.iter().map(|n| role_spec(n).cloned()).collect(),
                _ => Ok(Vec::new()),
            }
        };
        match (d.defname.as_str(), arg) {
            (
                "superuser" | "createdb" | "createrole" | "inherit" | "canlogin" | "isreplication"
                | "bypassrls",
                Some(NodeEnum::Boolean(b)),
            ) => o.flags.push((d.defname.clone(), b.boolval)),
            ("connectionlimit", Some(NodeEnum::Integer(i))) => {
                if i.ival < -1 {
                    return Err(DbError::new(
                        SqlState::InvalidParameterValue,
                        format!("invalid connection limit: {}", i.ival),
                    ));
                }
                o.conn_limit = Some(i.ival);
            }
            ("password", Some(NodeEnum::String(s))) => o.password = Some(Some(s.sval.clone())),
            ("password", None) => o.password = Some(None),
            ("validUntil", Some(NodeEnum::String(s))) => o.valid_until = Some(s.sval.clone()),
            ("addroleto", a) => o.in_roles = roles(a)?,
            ("rolemembers", a) => o.members = roles(a)?,
            ("adminmembers", a) => o.admins = roles(a)?,
            ("sysid", _) => notice(ctx, "SYSID can no longer be specified".into()),
            (other, _) => {
                return Err(DbError::unsupported(format!("role option \"{other}\"")));
            }
        }
    }
    Ok(o)
}

/// Apply the attribute options to `r`; `cur` is who asks (checked here
/// for SUPERUSER/REPLICATION/BYPASSRLS, which only superusers may give).
fn set_attributes(
    ctx: &mut StatementCtx,
    r: &mut RoleDef,
    o: &Options,
    cur: &RoleDef,
) -> Result<(), DbError> {
    for (name, on) in &o.flags {
        match name.as_str() {
            "superuser" | "isreplication" | "bypassrls" if !cur.superuser => {
                let what = match name.as_str() {
                    "superuser" => "superusers",
                    "isreplication" => "replication users",
                    _ => "bypassrls users",
                };
                return Err(denied(&format!("must be superuser to create {what}")));
            }
            _ => {}
        }
        let field = match name.as_str() {
            "superuser" => &mut r.superuser,
            "createdb" => &mut r.createdb,
            "createrole" => &mut r.createrole,
            "inherit" => &mut r.inherit,
            "canlogin" => &mut r.login,
            "isreplication" => &mut r.replication,
            _ => &mut r.bypassrls,
        };
        *field = *on;
    }
    if let Some(n) = o.conn_limit {
        r.conn_limit = n;
    }
    if let Some(p) = &o.password {
        r.password = match p.as_deref() {
            None => None,
            Some("") => {
                notice(
                    ctx,
                    "empty string is not a valid password, clearing password".into(),
                );
                None
            }
            Some(p) if p.starts_with("md5") && p.len() == 35 => {
                return Err(DbError::unsupported(
                    "MD5 password hashes (Nestor authenticates with SCRAM-SHA-256 only)",
                ));
            }
            Some(p) => Some(match Verifier::parse(p) {
                Some(v) => v.to_text(),
                None => Verifier::new(p).to_text(),
            }),
        };
    }
    if let Some(t) = &o.valid_until {
        r.valid_until = match nestor_types::cast::cast(
            &Value::Text(t.as_str().into()),
            DataType::TimestampTz(None),
            true,
            &ctx.eval,
        )? {
            Value::TimestampTz(us) => Some(us),
            _ => None,
        };
    }
    Ok(())
}

fn put(ctx: &mut StatementCtx, r: RoleDef) -> Result<(), DbError> {
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutRole(Arc::new(r)))
}

/// CREATE ROLE / USER / GROUP.
pub fn create_role(ctx: &mut StatementCtx, st: &pb::CreateRoleStmt) -> Result<CommandTag, DbError> {
    let cur = current_role(ctx)?;
    if !cur.superuser && !cur.createrole {
        return Err(denied("permission denied to create role"));
    }
    check_reserved(&st.role)?;
    let user = st.stmt_type == pb::RoleStmtType::RolestmtUser as i32;
    let o = options(ctx, &st.options)?;
    if ctx.catalog.role(&st.role).is_some() {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!("role \"{}\" already exists", st.role),
        ));
    }
    let mut r = RoleDef::new(ctx.catalog.alloc_oid(), &st.role);
    r.login = user;
    set_attributes(ctx, &mut r, &o, &cur)?;
    for spec in &o.in_roles {
        let role = resolve(ctx, spec)?;
        check_grantable(&cur, &role)?;
        r.member_of.push(Membership {
            role: role.oid,
            grantor: cur.oid,
            admin: false,
        });
    }
    let oid = r.oid;
    put(ctx, r)?;
    let new = ctx.catalog.role_by_oid(oid).expect("just created");
    for (specs, admin) in [(&o.members, false), (&o.admins, true)] {
        for spec in specs {
            let member = resolve(ctx, spec)?;
            add_member(ctx, &new, &member, admin, &cur)?;
        }
    }
    Ok(CommandTag::Plain("CREATE ROLE"))
}

/// ALTER ROLE name [WITH] options, and ALTER GROUP g ADD/DROP USER.
pub fn alter_role(ctx: &mut StatementCtx, st: &pb::AlterRoleStmt) -> Result<CommandTag, DbError> {
    let cur = current_role(ctx)?;
    let spec = st
        .role
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER ROLE without a role"))?;
    let target = resolve(ctx, spec)?;
    let o = options(ctx, &st.options)?;
    if st.action != 0 && !o.members.is_empty() {
        // ALTER GROUP g ADD USER u (+1) / DROP USER u (-1).
        for m in &o.members {
            let member = resolve(ctx, m)?;
            if st.action > 0 {
                add_member(ctx, &target, &member, false, &cur)?;
            } else {
                remove_member(ctx, &target, &member, false, &cur)?;
            }
        }
        return Ok(CommandTag::Plain("ALTER ROLE"));
    }
    let only_password = o.flags.is_empty()
        && o.conn_limit.is_none()
        && o.valid_until.is_none()
        && o.password.is_some();
    let own_password = only_password && cur.oid == target.oid;
    if !cur.superuser && !own_password {
        if target.superuser || o.flags.iter().any(|(f, _)| f == "superuser") {
            return Err(denied(
                "must be superuser to alter superuser roles or change superuser attribute",
            ));
        }
        if !cur.createrole {
            return Err(denied("permission denied"));
        }
    }
    if target.oid.0 == BOOTSTRAP_SUPERUSER_OID
        && o.flags.iter().any(|(f, on)| f == "superuser" && !on)
    {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "permission denied: bootstrap user must be superuser",
        ));
    }
    let mut r = (*target).clone();
    set_attributes(ctx, &mut r, &o, &cur)?;
    put(ctx, r)?;
    Ok(CommandTag::Plain("ALTER ROLE"))
}

/// ALTER ROLE a RENAME TO b.
pub fn rename_role(ctx: &mut StatementCtx, from: &str, to: &str) -> Result<CommandTag, DbError> {
    let cur = current_role(ctx)?;
    let target = ctx.catalog.role(from).ok_or_else(|| undefined_role(from))?;
    let session = ctx.settings.get("session_authorization").unwrap_or("");
    if target.name == session {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "session user cannot be renamed",
        ));
    }
    if ctx.catalog.role(to).is_some() {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!("role \"{to}\" already exists"),
        ));
    }
    check_reserved(to)?;
    if target.superuser && !cur.superuser {
        return Err(denied("must be superuser to rename superusers"));
    }
    if !cur.superuser && !cur.createrole {
        return Err(denied("permission denied to rename role"));
    }
    let mut r = (*target).clone();
    r.name = to.to_string();
    put(ctx, r)?;
    Ok(CommandTag::Plain("ALTER ROLE"))
}

/// DROP ROLE [IF EXISTS] a, b: memberships in and of each dropped role go
/// with it (PostgreSQL deletes its pg_auth_members rows).
pub fn drop_role(ctx: &mut StatementCtx, st: &pb::DropRoleStmt) -> Result<CommandTag, DbError> {
    let cur = current_role(ctx)?;
    if !cur.superuser && !cur.createrole {
        return Err(denied("permission denied to drop role"));
    }
    let session = ctx
        .settings
        .get("session_authorization")
        .unwrap_or("")
        .to_string();
    for n in &st.roles {
        let spec = role_spec(n)?;
        if spec.roletype != pb::RoleSpecType::RolespecCstring as i32 {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "cannot use special role specifier in DROP ROLE",
            ));
        }
        let Some(target) = ctx.catalog.role(&spec.rolename) else {
            if st.missing_ok {
                notice(
                    ctx,
                    format!("role \"{}\" does not exist, skipping", spec.rolename),
                );
                continue;
            }
            return Err(undefined_role(&spec.rolename));
        };
        if target.oid == cur.oid {
            return Err(DbError::new(
                SqlState::ObjectInUse,
                "current user cannot be dropped",
            ));
        }
        if target.name == session {
            return Err(DbError::new(
                SqlState::ObjectInUse,
                "session user cannot be dropped",
            ));
        }
        if target.oid.0 == BOOTSTRAP_SUPERUSER_OID {
            return Err(DbError::new(
                SqlState::ObjectInUse,
                format!(
                    "cannot drop role {} because it is required by the database system",
                    target.name
                ),
            ));
        }
        if target.superuser && !cur.superuser {
            return Err(denied("must be superuser to drop superusers"));
        }
        let deps = super::grant::dependents_of_role(ctx, target.oid);
        if !deps.is_empty() {
            return Err(DbError::new(
                SqlState::DependentObjectsStillExist,
                format!(
                    "role \"{}\" cannot be dropped because some objects depend on it",
                    target.name
                ),
            )
            .with_detail(deps.join("\n")));
        }
        // Its session defaults go with it (PostgreSQL's DropSetting).
        for (key, _) in ctx.catalog.role_settings() {
            if key.1 == target.oid.0 {
                ctx.catalog.apply(
                    ctx.txn,
                    &ctx.db.store,
                    Change::SetRoleSettings { key, config: None },
                )?;
            }
        }
        for other in ctx.catalog.roles() {
            if other.member_of.iter().any(|m| m.role == target.oid) {
                let mut r = (*other).clone();
                r.member_of.retain(|m| m.role != target.oid);
                put(ctx, r)?;
            }
        }
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::DropRole(target.name.clone()),
        )?;
    }
    Ok(CommandTag::Plain("DROP ROLE"))
}

/// Whether `cur` may grant membership in `role`.
fn check_grantable(cur: &RoleDef, role: &RoleDef) -> Result<(), DbError> {
    if role.oid.0 == crate::pg_catalog::DATABASE_OWNER_ROLE_OID {
        return Err(DbError::new(
            SqlState::InternalError,
            format!("role \"{}\" cannot have explicit members", role.name),
        ));
    }
    if cur.superuser {
        return Ok(());
    }
    if role.superuser {
        return Err(denied("must be superuser to alter superusers"));
    }
    let admin = cur.member_of.iter().any(|m| m.role == role.oid && m.admin);
    if cur.createrole || admin {
        return Ok(());
    }
    Err(denied(&format!(
        "must have admin option on role \"{}\"",
        role.name
    )))
}

fn add_member(
    ctx: &mut StatementCtx,
    role: &RoleDef,
    member: &RoleDef,
    admin: bool,
    cur: &RoleDef,
) -> Result<(), DbError> {
    check_grantable(cur, role)?;
    // A loop: role is member (or is) already a member of member.
    if ctx.catalog.is_member_of(role.oid, member.oid) {
        return Err(DbError::new(
            SqlState::InvalidGrantOperation,
            format!(
                "role \"{}\" is a member of role \"{}\"",
                role.name, member.name
            ),
        ));
    }
    // Re-read: an earlier grant of this statement may have changed it.
    let member = ctx
        .catalog
        .role_by_oid(member.oid)
        .ok_or_else(|| undefined_role(&member.name))?;
    let mut r = (*member).clone();
    match r.member_of.iter_mut().find(|m| m.role == role.oid) {
        Some(m) if m.admin || !admin => {
            notice(
                ctx,
                format!(
                    "role \"{}\" is already a member of role \"{}\"",
                    member.name, role.name
                ),
            );
            return Ok(());
        }
        Some(m) => m.admin = true,
        None => r.member_of.push(Membership {
            role: role.oid,
            grantor: cur.oid,
            admin,
        }),
    }
    put(ctx, r)
}

fn remove_member(
    ctx: &mut StatementCtx,
    role: &RoleDef,
    member: &RoleDef,
    admin_only: bool,
    cur: &RoleDef,
) -> Result<(), DbError> {
    check_grantable(cur, role)?;
    let member = ctx
        .catalog
        .role_by_oid(member.oid)
        .ok_or_else(|| undefined_role(&member.name))?;
    let mut r = (*member).clone();
    let Some(i) = r.member_of.iter().position(|m| m.role == role.oid) else {
        ctx.notices.push(
            DbError::new(
                SqlState::Warning,
                format!(
                    "role \"{}\" is not a member of role \"{}\"",
                    member.name, role.name
                ),
            )
            .with_severity(nestor_common::error::Severity::Warning),
        );
        return Ok(());
    };
    if admin_only {
        r.member_of[i].admin = false;
    } else {
        r.member_of.remove(i);
    }
    put(ctx, r)
}

/// GRANT role TO member [WITH ADMIN OPTION] / REVOKE [ADMIN OPTION FOR]
/// role FROM member.
pub fn grant_role(ctx: &mut StatementCtx, st: &pb::GrantRoleStmt) -> Result<CommandTag, DbError> {
    let cur = current_role(ctx)?;
    // GRANT ... WITH ADMIN OPTION: admin true; REVOKE ADMIN OPTION FOR:
    // the option named (libpg_query gives it as admin false).
    let mut admin = false;
    let mut admin_named = false;
    for o in &st.opt {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        match (
            d.defname.as_str(),
            d.arg.as_deref().and_then(|a| a.node.as_ref()),
        ) {
            ("admin", Some(NodeEnum::Boolean(b))) => {
                admin = b.boolval;
                admin_named = true;
            }
            ("admin", None) => {
                admin = true;
                admin_named = true;
            }
            (other, _) => {
                return Err(DbError::unsupported(format!(
                    "GRANT role WITH {} OPTION",
                    other.to_uppercase()
                )))
            }
        }
    }
    if let Some(g) = &st.grantor {
        let grantor = resolve(ctx, g)?;
        if grantor.oid != cur.oid && !cur.superuser {
            return Err(denied("grantor must be current user"));
        }
    }
    for granted in &st.granted_roles {
        let NodeEnum::AccessPriv(p) = node(granted)? else {
            return Err(DbError::internal("expected a role name"));
        };
        if p.priv_name == "pg_database_owner" {
            return Err(DbError::new(
                SqlState::InternalError,
                "role \"pg_database_owner\" cannot have explicit members",
            ));
        }
        let role = ctx
            .catalog
            .role(&p.priv_name)
            .ok_or_else(|| undefined_role(&p.priv_name))?;
        for grantee in &st.grantee_roles {
            let member = resolve(ctx, role_spec(grantee)?)?;
            if st.is_grant {
                add_member(ctx, &role, &member, admin, &cur)?;
            } else {
                remove_member(ctx, &role, &member, admin_named, &cur)?;
            }
        }
    }
    Ok(CommandTag::Plain(if st.is_grant {
        "GRANT ROLE"
    } else {
        "REVOKE ROLE"
    }))
}
