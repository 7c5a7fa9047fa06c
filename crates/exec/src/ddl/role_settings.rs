//! ALTER ROLE / ALTER DATABASE ... SET and RESET: session defaults kept in
//! the catalog (PostgreSQL's pg_db_role_setting), applied when a session
//! starts.
//!
//! An entry is keyed by (database OID, role OID), 0 meaning "all", and
//! holds `name=value` pairs in the order they were first set:
//!
//! ```text
//!   ALTER ROLE app SET search_path TO app, public   -> (0, app)   [search_path=app, public]
//!   ALTER ROLE app IN DATABASE postgres SET ...     -> (5, app)   [...]
//!   ALTER DATABASE postgres SET work_mem = '8MB'    -> (5, 0)     [work_mem=8MB]
//!   ALTER ROLE ALL SET timezone = 'UTC'             -> (0, 0)     [TimeZone=UTC]
//!   ALTER ROLE app RESET ALL                        -> (0, app) removed
//! ```
//!
//! A session starting as role R in database D applies (0, 0), (D, 0),
//! (0, R), (D, R) in that order, each overriding the one before, and then
//! the startup packet's parameters (PGOPTIONS) over all of them, which is
//! PostgreSQL's priority of setting sources; RESET in the session goes back
//! to these values (see `session::Session::new`). A stored value is checked
//! when it is set, as PostgreSQL does; one a later version no longer
//! accepts is skipped at connection with a warning in the server log.
//!
//! Privileges (PostgreSQL 15's AlterRoleSet / AlterDatabaseSet): a
//! superuser may set anyone's defaults; a CREATEROLE role those of roles
//! that are not superusers; any role its own. ALTER ROLE ALL needs a
//! superuser, ALTER DATABASE the database's owner (the bootstrap superuser)
//! or a superuser. Nestor serves one database; naming another is 3D000.
//!
//! Left out: custom (dotted) parameters, which Nestor's SET does not know
//! either, and per-parameter superuser-only checks (Nestor has no
//! superuser-only parameters).

use nestor_catalog::{Change, RoleDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node, VariableSetKind};
use nestor_parser::NodeEnum;

use super::role::{current_role, resolve};
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// ALTER ROLE { name | ALL } [ IN DATABASE d ] SET / RESET ...
pub fn alter_role_set(
    ctx: &mut StatementCtx,
    st: &pb::AlterRoleSetStmt,
) -> Result<CommandTag, DbError> {
    let cur = current_role(ctx)?;
    let role = match &st.role {
        None => {
            if !cur.superuser {
                return Err(denied("must be superuser to alter settings globally"));
            }
            0
        }
        Some(spec) => {
            let target = resolve(ctx, spec)?;
            check_may_alter(&cur, &target)?;
            target.oid.0
        }
    };
    let database = if st.database.is_empty() {
        0
    } else {
        database_oid(ctx, &st.database)?
    };
    let set = st
        .setstmt
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER ROLE SET without a setting"))?;
    change(ctx, (database, role), set)?;
    Ok(CommandTag::Plain("ALTER ROLE"))
}

/// ALTER DATABASE d SET / RESET ...
pub fn alter_database_set(
    ctx: &mut StatementCtx,
    st: &pb::AlterDatabaseSetStmt,
) -> Result<CommandTag, DbError> {
    let database = database_oid(ctx, &st.dbname)?;
    let cur = current_role(ctx)?;
    if !cur.superuser && cur.oid.0 != nestor_catalog::BOOTSTRAP_SUPERUSER_OID {
        return Err(denied(&format!("must be owner of database {}", st.dbname)));
    }
    let set = st
        .setstmt
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER DATABASE SET without a setting"))?;
    change(ctx, (database, 0), set)?;
    Ok(CommandTag::Plain("ALTER DATABASE"))
}

/// The settings of (database, role) after `set`, put in the catalog.
fn change(
    ctx: &mut StatementCtx,
    key: (u32, u32),
    set: &pb::VariableSetStmt,
) -> Result<(), DbError> {
    let mut config = ctx.catalog.role_setting(key);
    let kind = VariableSetKind::try_from(set.kind).unwrap_or(VariableSetKind::Undefined);
    match kind {
        VariableSetKind::VarResetAll => config.clear(),
        VariableSetKind::VarReset | VariableSetKind::VarSetDefault => {
            let name = canonical_name(&set.name)?;
            config.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
        }
        VariableSetKind::VarSetValue | VariableSetKind::VarSetCurrent => {
            let name = canonical_name(&set.name)?;
            let value = if kind == VariableSetKind::VarSetCurrent {
                ctx.settings.get(name).unwrap_or_default().to_string()
            } else {
                set_stmt_value(name, &set.args)?
            };
            // Checked now, as PostgreSQL checks it; stored as written.
            nestor_settings::canonicalize(name, &value)?;
            match config
                .iter_mut()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
            {
                Some(entry) => entry.1 = value,
                None => config.push((name.to_string(), value)),
            }
        }
        _ => return Err(DbError::internal("unexpected SET form in ALTER ... SET")),
    }
    let config = (!config.is_empty()).then_some(config);
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::SetRoleSettings { key, config },
    )?;
    Ok(())
}

/// A parameter's name as PostgreSQL spells it (`TimeZone`); 42704 if it
/// does not exist.
fn canonical_name(name: &str) -> Result<&'static str, DbError> {
    nestor_settings::canonical_name(name)
}

/// The OID of the database named `name`.
fn database_oid(ctx: &StatementCtx, name: &str) -> Result<u32, DbError> {
    match ctx.catalog.database(name) {
        Some(d) => Ok(d.oid.0),
        None => Err(DbError::new(
            SqlState::InvalidCatalogName,
            format!("database \"{name}\" does not exist"),
        )),
    }
}

/// PostgreSQL's rule for changing another role's settings.
fn check_may_alter(cur: &RoleDef, target: &RoleDef) -> Result<(), DbError> {
    if target.superuser {
        if !cur.superuser {
            return Err(denied("must be superuser to alter superusers"));
        }
        return Ok(());
    }
    if cur.superuser || cur.createrole || cur.oid == target.oid {
        return Ok(());
    }
    Err(denied("permission denied"))
}

fn denied(message: &str) -> DbError {
    DbError::new(SqlState::InsufficientPrivilege, message)
}

/// The value text of SET's arguments, as PostgreSQL flattens them
/// (flatten_set_variable_args): list items joined by ", ", a quoted
/// search_path item kept quoted as an identifier.
pub fn set_stmt_value(name: &str, args: &[Node]) -> Result<String, DbError> {
    let parts: Vec<String> = args
        .iter()
        .map(|a| {
            let is_str = matches!(
                a.node.as_ref(),
                Some(NodeEnum::AConst(c)) if matches!(c.val, Some(pb::a_const::Val::Sval(_)))
            );
            let v = const_text(a)
                .ok_or_else(|| DbError::unsupported("SET with a non-constant value"))?;
            Ok(if name.eq_ignore_ascii_case("search_path") && is_str {
                crate::pg_catalog::quote_ident(&v)
            } else {
                v
            })
        })
        .collect::<Result<_, DbError>>()?;
    Ok(parts.join(", "))
}

/// A constant's text (SET and transaction options take constants only).
pub fn const_text(n: &Node) -> Option<String> {
    match n.node.as_ref()? {
        NodeEnum::AConst(c) => match c.val.as_ref()? {
            pb::a_const::Val::Ival(i) => Some(i.ival.to_string()),
            pb::a_const::Val::Fval(f) => Some(f.fval.clone()),
            pb::a_const::Val::Sval(s) => Some(s.sval.clone()),
            pb::a_const::Val::Boolval(b) => Some(if b.boolval { "on" } else { "off" }.into()),
            pb::a_const::Val::Bsval(b) => Some(b.bsval.clone()),
        },
        NodeEnum::TypeCast(tc) => tc.arg.as_deref().and_then(const_text),
        NodeEnum::String(s) => Some(s.sval.clone()),
        NodeEnum::Integer(i) => Some(i.ival.to_string()),
        _ => None,
    }
}
