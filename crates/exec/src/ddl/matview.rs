//! Materialized views: a table whose rows are a query's result as of the
//! last REFRESH (PostgreSQL's relkind 'm').
//!
//! ```text
//!   CREATE MATERIALIZED VIEW mv AS q   -> CREATE TABLE AS q, then the table
//!                                         marked MatView { q, populated }
//!   REFRESH MATERIALIZED VIEW mv       -> fresh storage (as TRUNCATE), q run
//!                                         and its rows loaded (as COPY FROM)
//!   ... WITH NO DATA                   -> populated: false; reading it is 55000
//! ```
//!
//! The query is kept as SQL text and runs with the REFRESH's snapshot; the
//! old rows are freed when the REFRESH commits. INSERT/UPDATE/DELETE/COPY
//! into one are refused (42809), as PostgreSQL refuses them. REFRESH ...
//! CONCURRENTLY needs a unique index as in PostgreSQL and then refreshes
//! the same way (readers of the old rows are not blocked here anyway: a
//! statement keeps the storage it started with). Left out: matviews over
//! TEMP objects are refused (0A000), as PostgreSQL does.

use std::sync::Arc;

use nestor_catalog::{Change, MatView};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_plan::bind::relname;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

/// Mark the table CREATE MATERIALIZED VIEW made as a matview of `query`.
pub(crate) fn mark(
    ctx: &mut StatementCtx,
    name: &str,
    query: &pb::Node,
    populated: bool,
) -> Result<(), DbError> {
    let def = ctx
        .catalog
        .table(name)
        .ok_or_else(|| DbError::internal("materialized view vanished"))?;
    if def.persistence == nestor_catalog::Persistence::Temporary {
        return Err(DbError::unsupported("TEMP materialized views"));
    }
    let (depends_on, temp) = super::view::relations_read(ctx, query)?;
    if temp {
        return Err(DbError::unsupported(
            "materialized views over temporary tables or views",
        ));
    }
    let mut new = (*def).clone();
    new.matview = Some(MatView {
        query: super::view::stored_query(ctx, query)?,
        populated,
        rule_oid: ctx.catalog.alloc_oid(),
        depends_on,
    });
    super::put_table(ctx, new)
}

/// REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO] DATA].
pub fn refresh(ctx: &mut StatementCtx, st: &pb::RefreshMatViewStmt) -> Result<CommandTag, DbError> {
    let rv = st
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("REFRESH without a relation"))?;
    let name = relname(rv)?;
    let def = ctx.catalog.table(&name).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        )
    })?;
    let Some(mv) = def.matview.clone() else {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("\"{name}\" is not a materialized view"),
        ));
    };
    if st.concurrent {
        if st.skip_data {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "CONCURRENTLY and WITH NO DATA options cannot be used together",
            ));
        }
        if !mv.populated {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "CONCURRENTLY cannot be used when the materialized view is not populated",
            ));
        }
        if !def.indexes.iter().any(|i| i.unique && i.exprs.is_none()) {
            return Err(DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                format!("cannot refresh materialized view \"public.{name}\" concurrently"),
            )
            .with_hint(
                "Create a unique index with no WHERE clause on one or more columns of the materialized view.",
            ));
        }
    }
    let mut new = super::fresh_storage(ctx, &def)?;
    new.matview = Some(MatView {
        populated: !st.skip_data,
        ..mv.clone()
    });
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutTable {
            def: Arc::new(new),
            old_storage: Some(def.storage.clone()),
        },
    )?;
    if !st.skip_data {
        // Its unqualified names are public's, as for a view's query.
        let saved = ctx.catalog.enter_view_path();
        let rows = (crate::ROUTINES.query_rows)(ctx, &mv.query);
        ctx.catalog.restore_search_path(saved);
        let rows = rows?;
        let target = nestor_plan::modify::copy_target(ctx.catalog, ctx.eval, &name, &[])?;
        let mut done = 0;
        crate::modify::copy_insert(ctx, &target, rows, &mut done)?;
    }
    Ok(CommandTag::Plain("REFRESH MATERIALIZED VIEW"))
}
