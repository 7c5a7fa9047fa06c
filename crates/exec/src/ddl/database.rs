//! CREATE DATABASE, DROP DATABASE and ALTER DATABASE (RENAME TO, OWNER
//! TO, CONNECTION LIMIT, ALLOW_CONNECTIONS, IS_TEMPLATE), with
//! PostgreSQL 15's checks, messages and SQLSTATEs.
//!
//! A database is a catalog level of its own (`nestor_catalog::database`):
//! a session sees only the objects of the database it connected to.
//! CREATE DATABASE makes an empty one (template1 holds no user objects
//! here: nothing is copied); the locale and storage options PostgreSQL
//! takes are accepted and have no effect, except ENCODING, which must be
//! UTF8 (the only encoding Nestor stores). DROP DATABASE refuses while
//! other sessions are connected to the database (55006, with PostgreSQL's
//! DETAIL) unless `WITH (FORCE)`, which terminates them first, as
//! pg_terminate_backend does, and waits for them to go.
//!
//! ```text
//!   CREATE DATABASE app                 -> PutDatabase app (OID from the counter)
//!   DROP DATABASE app                   -> 55006 while a session uses app
//!   DROP DATABASE app WITH (FORCE)      -> terminate them; DropDatabase app
//! ```
//!
//! Neither runs inside a transaction block (25001), as in PostgreSQL.

use std::time::{Duration, Instant};

use nestor_catalog::{Change, DatabaseDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::pb::node::Node as NodeEnum;
use nestor_plan::bind::node;

use super::notice_code;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// How long DROP DATABASE WITH (FORCE) waits for terminated sessions.
const FORCE_WAIT: Duration = Duration::from_secs(5);

/// CREATE DATABASE name [WITH] [option [=] value ...].
pub fn create_database(
    ctx: &mut StatementCtx,
    st: &pb::CreatedbStmt,
) -> Result<CommandTag, DbError> {
    not_in_block(ctx, "CREATE DATABASE")?;
    let cur = current_role(ctx)?;
    if !cur.superuser && !cur.createdb {
        return Err(denied("permission denied to create database"));
    }
    let mut owner = cur.oid;
    let mut template = "template1".to_string();
    let mut allow_conn = true;
    let mut is_template = false;
    let mut conn_limit = -1;
    let mut seen: Vec<&str> = Vec::new();
    for o in &st.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            return Err(DbError::internal("expected a CREATE DATABASE option"));
        };
        if seen.contains(&d.defname.as_str()) {
            return Err(conflicting(d));
        }
        seen.push(&d.defname);
        let arg = d.arg.as_deref().and_then(|a| a.node.as_ref());
        match d.defname.as_str() {
            "owner" => {
                if let Some(name) = arg_text(arg) {
                    let r = ctx.catalog.role(&name).ok_or_else(|| {
                        DbError::new(
                            SqlState::UndefinedObject,
                            format!("role \"{name}\" does not exist"),
                        )
                    })?;
                    if !cur.superuser && !ctx.catalog.is_member_of(cur.oid, r.oid) {
                        return Err(denied(&format!("must be member of role \"{}\"", r.name)));
                    }
                    owner = r.oid;
                }
            }
            "template" => {
                if let Some(name) = arg_text(arg) {
                    template = name;
                }
            }
            "encoding" => {
                if let Some(enc) = arg_text(arg) {
                    check_encoding(&enc)?;
                }
            }
            "connection_limit" => {
                if let Some(n) = arg_int(arg) {
                    conn_limit = check_conn_limit(n)?;
                }
            }
            "allow_connections" => allow_conn = arg_bool(d, arg)?,
            "is_template" => is_template = arg_bool(d, arg)?,
            "locale" | "lc_collate" | "lc_ctype" | "icu_locale" | "icu_rules"
            | "locale_provider" | "collation_version" | "tablespace" | "strategy" | "oid"
            | "builtin_locale" => {}
            other => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    format!("option \"{other}\" not recognized"),
                )
                .with_position(position(d.location)));
            }
        }
    }
    let source = ctx.catalog.database(&template).ok_or_else(|| {
        DbError::new(
            SqlState::InvalidCatalogName,
            format!("template database \"{template}\" does not exist"),
        )
    })?;
    if !source.is_template && !cur.superuser && source.owner != cur.oid {
        return Err(denied(&format!(
            "permission denied to copy database \"{template}\""
        )));
    }
    if ctx.catalog.database(&st.dbname).is_some() {
        return Err(DbError::new(
            SqlState::DuplicateDatabase,
            format!("database \"{}\" already exists", st.dbname),
        ));
    }
    let def = DatabaseDef {
        oid: ctx.catalog.alloc_oid(),
        name: st.dbname.clone(),
        owner,
        is_template,
        allow_conn,
        conn_limit,
    };
    ctx.catalog.put_database(ctx.txn, &ctx.db.store, def)?;
    Ok(CommandTag::Plain("CREATE DATABASE"))
}

/// DROP DATABASE [IF EXISTS] name [[WITH] (FORCE)].
pub fn drop_database(ctx: &mut StatementCtx, st: &pb::DropdbStmt) -> Result<CommandTag, DbError> {
    const TAG: CommandTag = CommandTag::Plain("DROP DATABASE");
    not_in_block(ctx, "DROP DATABASE")?;
    let mut force = false;
    for o in &st.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            return Err(DbError::internal("expected a DROP DATABASE option"));
        };
        match d.defname.as_str() {
            "force" => force = true,
            other => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    format!("unrecognized DROP DATABASE option \"{other}\""),
                )
                .with_position(position(d.location)))
            }
        }
    }
    let Some(db) = ctx.catalog.database(&st.dbname) else {
        if st.missing_ok {
            notice_code(
                ctx,
                SqlState::SuccessfulCompletion,
                format!("database \"{}\" does not exist, skipping", st.dbname),
            );
            return Ok(TAG);
        }
        return Err(does_not_exist(&st.dbname));
    };
    check_owner(ctx, &db)?;
    if db.is_template {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            "cannot drop a template database",
        ));
    }
    if db.oid.0 == ctx.catalog.database_oid() {
        return Err(DbError::new(
            SqlState::ObjectInUse,
            "cannot drop the currently open database",
        ));
    }
    if force {
        terminate_others(ctx, &db.name)?;
    }
    // Out of the catalog first, then the check: a session connecting
    // meanwhile either is seen here or finds the database gone
    // (nestor_session's Session::new looks it up after registering).
    ctx.catalog
        .drop_database(ctx.txn, &ctx.db.store, db.oid.0)?;
    check_unused(ctx, &db.name)?;
    // Its ALTER DATABASE / ROLE ... IN DATABASE settings go with it.
    for ((database, role), _) in ctx.catalog.role_settings() {
        if database == db.oid.0 {
            ctx.catalog.apply(
                ctx.txn,
                &ctx.db.store,
                Change::SetRoleSettings {
                    key: (database, role),
                    config: None,
                },
            )?;
        }
    }
    Ok(TAG)
}

/// ALTER DATABASE name [WITH] option ... (CONNECTION LIMIT,
/// ALLOW_CONNECTIONS, IS_TEMPLATE).
pub fn alter_database(
    ctx: &mut StatementCtx,
    st: &pb::AlterDatabaseStmt,
) -> Result<CommandTag, DbError> {
    let db = ctx
        .catalog
        .database(&st.dbname)
        .ok_or_else(|| does_not_exist(&st.dbname))?;
    check_owner(ctx, &db)?;
    let mut def = (*db).clone();
    for o in &st.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            return Err(DbError::internal("expected an ALTER DATABASE option"));
        };
        let arg = d.arg.as_deref().and_then(|a| a.node.as_ref());
        match d.defname.as_str() {
            "connection_limit" => {
                if let Some(n) = arg_int(arg) {
                    def.conn_limit = check_conn_limit(n)?;
                }
            }
            "allow_connections" => {
                def.allow_conn = arg_bool(d, arg)?;
                if !def.allow_conn && db.oid.0 == ctx.catalog.database_oid() {
                    return Err(DbError::new(
                        SqlState::FeatureNotSupported,
                        "cannot disallow connections for current database",
                    ));
                }
            }
            "is_template" => def.is_template = arg_bool(d, arg)?,
            "tablespace" => {
                return Err(DbError::unsupported("ALTER DATABASE ... SET TABLESPACE"));
            }
            other => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    format!("option \"{other}\" not recognized"),
                )
                .with_position(position(d.location)));
            }
        }
    }
    ctx.catalog.put_database(ctx.txn, &ctx.db.store, def)?;
    Ok(CommandTag::Plain("ALTER DATABASE"))
}

/// ALTER DATABASE name RENAME TO new.
pub fn rename_database(
    ctx: &mut StatementCtx,
    from: &str,
    to: &str,
) -> Result<CommandTag, DbError> {
    let db = ctx
        .catalog
        .database(from)
        .ok_or_else(|| does_not_exist(from))?;
    if ctx.catalog.database(to).is_some() {
        return Err(DbError::new(
            SqlState::DuplicateDatabase,
            format!("database \"{to}\" already exists"),
        ));
    }
    check_owner(ctx, &db)?;
    let cur = current_role(ctx)?;
    if !cur.superuser && !cur.createdb {
        return Err(denied("permission denied to rename database"));
    }
    if db.oid.0 == ctx.catalog.database_oid() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "current database cannot be renamed",
        ));
    }
    check_unused(ctx, from)?;
    let def = DatabaseDef {
        name: to.to_string(),
        ..(*db).clone()
    };
    ctx.catalog.put_database(ctx.txn, &ctx.db.store, def)?;
    Ok(CommandTag::Plain("ALTER DATABASE"))
}

/// ALTER DATABASE name OWNER TO role (PostgreSQL: the owner, a member of
/// the new owner role, with CREATEDB; or a superuser).
pub fn change_database_owner(
    ctx: &mut StatementCtx,
    name: &str,
    role: &pb::RoleSpec,
) -> Result<(), DbError> {
    let db = ctx
        .catalog
        .database(name)
        .ok_or_else(|| does_not_exist(name))?;
    let new = super::role::resolve(ctx, role)?;
    if new.oid == db.owner {
        return Ok(());
    }
    let cur = current_role(ctx)?;
    if !cur.superuser {
        check_owner(ctx, &db)?;
        if !ctx.catalog.is_member_of(cur.oid, new.oid) {
            return Err(denied(&format!("must be member of role \"{}\"", new.name)));
        }
        if !cur.createdb {
            return Err(denied("permission denied to change owner of database"));
        }
    }
    let def = DatabaseDef {
        owner: new.oid,
        ..(*db).clone()
    };
    ctx.catalog.put_database(ctx.txn, &ctx.db.store, def)
}

/// PostgreSQL's PreventInTransactionBlock: refused in a BEGIN block, in a
/// query string of several statements (one implicit block) and in a
/// function.
pub(super) fn not_in_block(ctx: &StatementCtx, what: &str) -> Result<(), DbError> {
    if ctx.in_block || !ctx.may_end_txn {
        return Err(DbError::new(
            SqlState::ActiveSqlTransaction,
            format!("{what} cannot run inside a transaction block"),
        ));
    }
    Ok(())
}

/// The role the statement runs as.
fn current_role(ctx: &StatementCtx) -> Result<std::sync::Arc<nestor_catalog::RoleDef>, DbError> {
    ctx.catalog
        .role_by_oid(ctx.role.oid)
        .ok_or_else(|| DbError::internal("the current role does not exist"))
}

/// The database's owner (or a member of its role) or a superuser.
fn check_owner(ctx: &StatementCtx, db: &DatabaseDef) -> Result<(), DbError> {
    if ctx.role.superuser || ctx.catalog.has_privs_of_role(ctx.role.oid, db.owner) {
        return Ok(());
    }
    Err(denied(&format!("must be owner of database {}", db.name)))
}

/// 55006 while sessions other than this one are connected to `name`.
fn check_unused(ctx: &StatementCtx, name: &str) -> Result<(), DbError> {
    let others = other_sessions(ctx, name);
    if others.is_empty() {
        return Ok(());
    }
    let detail = match others.len() {
        1 => "There is 1 other session using the database.".to_string(),
        n => format!("There are {n} other sessions using the database."),
    };
    Err(DbError::new(
        SqlState::ObjectInUse,
        format!("database \"{name}\" is being accessed by other users"),
    )
    .with_detail(&detail))
}

/// The sessions other than this one connected to database `name`.
fn other_sessions(ctx: &StatementCtx, name: &str) -> Vec<nestor_common::SessionId> {
    ctx.db
        .sessions
        .activity()
        .iter()
        .filter(|a| a.pid != ctx.session && a.datname == name)
        .map(|a| a.pid)
        .collect()
}

/// WITH (FORCE): terminate the other sessions of database `name` (as
/// pg_terminate_backend: a non-superuser may not end a superuser's) and
/// wait for them to go.
fn terminate_others(ctx: &StatementCtx, name: &str) -> Result<(), DbError> {
    let others = other_sessions(ctx, name);
    if !ctx.role.superuser {
        for pid in &others {
            let su = ctx
                .db
                .sessions
                .get(*pid)
                .and_then(|s| ctx.catalog.role(&s.user))
                .is_some_and(|r| r.superuser);
            if su {
                return Err(denied("permission denied to terminate process").with_detail(
                    "Only roles with the SUPERUSER attribute may terminate processes of roles with the SUPERUSER attribute.",
                ));
            }
        }
    }
    for pid in &others {
        ctx.db.sessions.terminate(*pid);
    }
    let start = Instant::now();
    while !other_sessions(ctx, name).is_empty() && start.elapsed() < FORCE_WAIT {
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

fn does_not_exist(name: &str) -> DbError {
    DbError::new(
        SqlState::InvalidCatalogName,
        format!("database \"{name}\" does not exist"),
    )
}

fn denied(msg: &str) -> DbError {
    DbError::new(SqlState::InsufficientPrivilege, msg)
}

fn conflicting(d: &pb::DefElem) -> DbError {
    DbError::new(SqlState::SyntaxError, "conflicting or redundant options")
        .with_position(position(d.location))
}

fn position(location: i32) -> u32 {
    u32::try_from(location + 1).unwrap_or(0)
}

/// A name or string option's text (None: DEFAULT).
fn arg_text(arg: Option<&NodeEnum>) -> Option<String> {
    match arg? {
        NodeEnum::String(s) => Some(s.sval.clone()),
        NodeEnum::Integer(i) => Some(i.ival.to_string()),
        NodeEnum::TypeName(t) => nestor_plan::bind::names(&t.names).pop(),
        _ => None,
    }
}

fn arg_int(arg: Option<&NodeEnum>) -> Option<i32> {
    match arg? {
        NodeEnum::Integer(i) => Some(i.ival),
        NodeEnum::String(s) => s.sval.parse().ok(),
        _ => None,
    }
}

/// A boolean option (PostgreSQL's defGetBoolean).
fn arg_bool(d: &pb::DefElem, arg: Option<&NodeEnum>) -> Result<bool, DbError> {
    let text = match arg {
        None => return Ok(true),
        Some(NodeEnum::Boolean(b)) => return Ok(b.boolval),
        Some(NodeEnum::Integer(i)) if i.ival == 0 || i.ival == 1 => return Ok(i.ival == 1),
        Some(NodeEnum::String(s)) => s.sval.to_ascii_lowercase(),
        _ => String::new(),
    };
    match text.as_str() {
        "true" | "on" => Ok(true),
        "false" | "off" => Ok(false),
        _ => Err(DbError::new(
            SqlState::SyntaxError,
            format!("{} requires a Boolean value", d.defname),
        )),
    }
}

fn check_conn_limit(n: i32) -> Result<i32, DbError> {
    if n < -1 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid connection limit: {n}"),
        ));
    }
    Ok(n)
}

/// ENCODING: UTF8 (by name, any case and dashes, or number 6).
fn check_encoding(enc: &str) -> Result<(), DbError> {
    let norm: String = enc
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    match norm.as_str() {
        "utf8" | "unicode" | "6" => Ok(()),
        _ => Err(DbError::unsupported(format!(
            "encoding \"{enc}\" (Nestor stores text as UTF8)"
        ))),
    }
}
