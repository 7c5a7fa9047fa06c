//! CREATE SCHEMA and DROP SCHEMA on the schemas there are: `public` (the
//! one user schema), `pg_catalog` and `information_schema`. Nestor has one
//! user schema, so these statements do what PostgreSQL does where the
//! outcome does not need another: `CREATE SCHEMA IF NOT EXISTS public`
//! (which migration tools emit) is a NOTICE, a new schema name is 0A000,
//! DROP of a schema that does not exist is 3F000 (or a NOTICE with IF
//! EXISTS), and DROP SCHEMA public is refused (2BP01 with PostgreSQL's
//! DETAIL while it holds objects, 0A000 otherwise: it could not be
//! created again).

use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_plan::bind;

use super::notice_code;
use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// The schemas that exist.
const SCHEMAS: [&str; 3] = ["public", "pg_catalog", "information_schema"];

/// CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role].
pub fn create_schema(
    ctx: &mut StatementCtx,
    st: &pb::CreateSchemaStmt,
) -> Result<CommandTag, DbError> {
    let name = if st.schemaname.is_empty() {
        // CREATE SCHEMA AUTHORIZATION role: named after the role.
        st.authrole
            .as_ref()
            .map(|r| r.rolename.clone())
            .unwrap_or_default()
    } else {
        st.schemaname.clone()
    };
    if name.starts_with("pg_") {
        return Err(DbError::new(
            SqlState::ReservedName,
            format!("unacceptable schema name \"{name}\""),
        )
        .with_detail("The prefix \"pg_\" is reserved for system schemas."));
    }
    if SCHEMAS.contains(&name.as_str()) {
        if st.if_not_exists && st.schema_elts.is_empty() {
            notice_code(
                ctx,
                SqlState::DuplicateSchema,
                format!("schema \"{name}\" already exists, skipping"),
            );
            return Ok(CommandTag::Plain("CREATE SCHEMA"));
        }
        return Err(DbError::new(
            SqlState::DuplicateSchema,
            format!("schema \"{name}\" already exists"),
        ));
    }
    Err(DbError::unsupported(format!(
        "CREATE SCHEMA \"{name}\" (Nestor has one user schema, public)"
    )))
}

/// DROP SCHEMA [IF EXISTS] name [, ...] [CASCADE].
pub fn drop_schema(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    for o in &ds.objects {
        let name = bind::str_val(o).unwrap_or_default().to_string();
        if !SCHEMAS.contains(&name.as_str()) {
            if ds.missing_ok {
                super::notice(ctx, format!("schema \"{name}\" does not exist, skipping"));
                continue;
            }
            return Err(DbError::new(
                SqlState::InvalidSchemaName,
                format!("schema \"{name}\" does not exist"),
            ));
        }
        if name != "public" {
            return Err(DbError::new(
                SqlState::DependentObjectsStillExist,
                format!("cannot drop schema {name} because it is required by the database system"),
            ));
        }
        let mut deps: Vec<String> = ctx
            .catalog
            .tables()
            .iter()
            .filter(|t| t.persistence != nestor_catalog::Persistence::Temporary)
            .map(|t| format!("table {} depends on schema public", t.name))
            .collect();
        deps.extend(
            ctx.catalog
                .views()
                .iter()
                .map(|v| format!("view {} depends on schema public", v.name)),
        );
        if !deps.is_empty() && ds.behavior != pb::DropBehavior::DropCascade as i32 {
            return Err(DbError::new(
                SqlState::DependentObjectsStillExist,
                "cannot drop schema public because other objects depend on it",
            )
            .with_detail(deps.join("\n"))
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
        }
        return Err(DbError::unsupported(
            "DROP SCHEMA public (Nestor has one user schema and could not create it again)",
        ));
    }
    Ok(CommandTag::Plain("DROP SCHEMA"))
}
