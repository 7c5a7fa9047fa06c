//! CREATE EXTENSION / DROP EXTENSION for the extensions Nestor provides
//! (`nestor_types::extensions::AVAILABLE`: pg_stat_statements, pgcrypto,
//! uuid-ossp; plpgsql is always there). Their functions are the engine's own; what the catalog
//! keeps per database is which are installed (pg_extension), and the
//! binder treats a function of an extension that is not installed as not
//! existing.
//!
//! ```text
//!   CREATE EXTENSION IF NOT EXISTS "uuid-ossp"   pg_extension gets a row
//!   SELECT uuid_generate_v4()                   works (42883 before)
//!   DROP EXTENSION "uuid-ossp"                  the functions go again
//! ```
//!
//! Left out (0A000): any other extension (citext, hstore, pg_trgm,
//! postgis, ... are not built in), SCHEMA other than public, VERSION
//! other than the one provided. DROP does not look for objects that call
//! the extension's functions (a column default, a view): PostgreSQL's
//! 2BP01 there is left out, and they fail when they run.

use nestor_catalog::defs::ExtensionDef;
use nestor_catalog::Change;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;

use super::notice;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// An extension Nestor does not provide: PostgreSQL's 0A000 for one not
/// installed on the system.
fn unsupported(name: &str) -> DbError {
    DbError::new(
        SqlState::FeatureNotSupported,
        format!("extension \"{name}\" is not available"),
    )
    .with_detail(
        "Nestor provides the extensions plpgsql, pg_stat_statements, pgcrypto and uuid-ossp.",
    )
}

/// What calls extension `name`'s functions (column defaults, CHECK
/// constraints, views), as DROP's 2BP01 DETAIL lines.
fn users_of(ctx: &StatementCtx, name: &str) -> Vec<String> {
    let calls = |sql: &str| -> Vec<String> {
        let mut out = Vec::new();
        super::each_call(sql, |f| {
            let fname = nestor_plan::bind::names(&f.funcname);
            if let Some(last) = fname.last() {
                if nestor_types::extensions::provider(last) == Some(name) {
                    out.push(nestor_types::extensions::signature(last, f.args.len()));
                }
            }
        });
        out
    };
    let mut out = Vec::new();
    let mut tables = ctx.catalog.tables();
    tables.sort_by_key(|t| t.oid);
    for t in &tables {
        for (_, c) in t.live_columns() {
            if let Some(d) = &c.default {
                for f in calls(&format!("SELECT {d}")) {
                    out.push(format!(
                        "default value for column {} of table {} depends on function {f}",
                        c.name, t.name
                    ));
                }
            }
        }
        for k in &t.checks {
            for f in calls(&format!("SELECT {}", k.expr)) {
                out.push(format!(
                    "constraint {} on table {} depends on function {f}",
                    k.name, t.name
                ));
            }
        }
    }
    let mut views = ctx.catalog.views();
    views.sort_by_key(|v| v.oid);
    for v in views {
        if let Some(f) = calls(&v.query).into_iter().next() {
            out.push(format!("view {} depends on function {f}", v.name));
        }
    }
    out
}

fn option_str(d: &pb::DefElem) -> String {
    match d.arg.as_deref().and_then(|a| a.node.as_ref()) {
        Some(NodeEnum::String(s)) => s.sval.clone(),
        Some(NodeEnum::Integer(i)) => i.ival.to_string(),
        Some(NodeEnum::Float(f)) => f.fval.clone(),
        _ => String::new(),
    }
}

/// CREATE EXTENSION [IF NOT EXISTS] name [WITH] [SCHEMA s] [VERSION v]
/// [CASCADE].
pub fn create_extension(
    ctx: &mut StatementCtx,
    st: &pb::CreateExtensionStmt,
) -> Result<CommandTag, DbError> {
    let name = st.extname.as_str();
    let tag = CommandTag::Plain("CREATE EXTENSION");
    if !ctx.role.superuser {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            format!("permission denied to create extension \"{name}\""),
        )
        .with_hint("Must be superuser to create this extension."));
    }
    if name == "plpgsql" || ctx.catalog.has_extension(name) {
        if st.if_not_exists {
            notice(
                ctx,
                format!("extension \"{name}\" already exists, skipping"),
            );
            return Ok(tag);
        }
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!("extension \"{name}\" already exists"),
        ));
    }
    let Some(&(_, version)) = nestor_types::extensions::AVAILABLE
        .iter()
        .find(|(n, _)| *n == name)
    else {
        return Err(unsupported(name));
    };
    for o in &st.options {
        let Some(NodeEnum::DefElem(d)) = o.node.as_ref() else {
            continue;
        };
        let value = option_str(d);
        match d.defname.as_str() {
            "schema" if value == "public" || value == "pg_catalog" => {}
            "schema" => {
                if ctx.catalog.schema(&value).is_none() {
                    return Err(DbError::new(
                        SqlState::InvalidSchemaName,
                        format!("schema \"{value}\" does not exist"),
                    ));
                }
                return Err(DbError::unsupported(format!(
                    "CREATE EXTENSION in schema \"{value}\" (extensions go in public)"
                )));
            }
            "new_version" if value != version => {
                return Err(DbError::unsupported(format!(
                    "version \"{value}\" of extension \"{name}\" (Nestor provides {version})"
                )))
            }
            _ => {}
        }
    }
    let oid = ctx.catalog.alloc_oid();
    let ext = ExtensionDef {
        oid,
        version: version.to_string(),
    };
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::SetExtension {
            name: name.to_string(),
            ext: Some(ext),
        },
    )?;
    Ok(tag)
}

/// DROP EXTENSION [IF EXISTS] name [, ...] [CASCADE | RESTRICT].
pub fn drop_extensions(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let mut names = Vec::new();
    for o in &ds.objects {
        if let Some(NodeEnum::String(s)) = o.node.as_ref() {
            names.push(s.sval.clone());
        }
    }
    // All or nothing: check every name first.
    let mut dropping = Vec::new();
    for name in names {
        if name == "plpgsql" {
            return Err(DbError::unsupported("DROP EXTENSION plpgsql"));
        }
        if ctx.catalog.has_extension(&name) {
            dropping.push(name);
        } else if ds.missing_ok {
            notice(
                ctx,
                format!("extension \"{name}\" does not exist, skipping"),
            );
        } else {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!("extension \"{name}\" does not exist"),
            ));
        }
    }
    if !ctx.role.superuser && !dropping.is_empty() {
        return Err(DbError::new(
            SqlState::InsufficientPrivilege,
            format!("must be owner of extension {}", dropping[0]),
        ));
    }
    for name in &dropping {
        let users = users_of(ctx, name);
        if users.is_empty() {
            continue;
        }
        if ds.behavior == pb::DropBehavior::DropCascade as i32 {
            return Err(DbError::unsupported(format!(
                "DROP EXTENSION ... CASCADE of extension {name}, which other objects use"
            )));
        }
        return Err(super::dependents_remain(format!("extension {name}"), users));
    }
    for name in dropping {
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::SetExtension { name, ext: None },
        )?;
    }
    Ok(CommandTag::Plain("DROP EXTENSION"))
}
