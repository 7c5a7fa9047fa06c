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

/// The materialized views whose queries read relation `oid` (not those
/// in `dropping`), and what reads them in turn, as (matview, the DETAIL
/// line naming what it depends on).
fn dependents(
    ctx: &StatementCtx,
    oid: nestor_common::RelId,
    what: &str,
    dropping: &[nestor_common::RelId],
    out: &mut Vec<(Arc<nestor_catalog::TableDef>, String)>,
) {
    let mut direct: Vec<Arc<nestor_catalog::TableDef>> = ctx
        .catalog
        .tables()
        .into_iter()
        .filter(|t| {
            !dropping.contains(&t.oid)
                && !out.iter().any(|(o, _)| o.oid == t.oid)
                && t.matview
                    .as_ref()
                    .is_some_and(|m| m.depends_on.contains(&oid))
        })
        .collect();
    direct.sort_by_key(|t| t.oid);
    for t in direct {
        let line = format!("materialized view {} depends on {what}", t.name);
        let inner = format!("materialized view {}", t.name);
        out.push((t.clone(), line));
        dependents(ctx, t.oid, &inner, dropping, out);
    }
}

/// The materialized views whose query reads column `pos` of table `t`
/// directly, in creation order. Their queries are planned now, so a `*`
/// also counts a column added since the view was made (PostgreSQL
/// records the columns at creation): that only makes DROP COLUMN
/// stricter.
pub(crate) fn reading_column(
    ctx: &StatementCtx,
    t: &nestor_catalog::TableDef,
    pos: usize,
) -> Result<Vec<Arc<nestor_catalog::TableDef>>, DbError> {
    let attnum = i16::try_from(pos + 1).unwrap_or(i16::MAX);
    let mut out = Vec::new();
    for m in ctx.catalog.tables() {
        let Some(mv) = m
            .matview
            .as_ref()
            .filter(|mv| mv.depends_on.contains(&t.oid))
        else {
            continue;
        };
        let stmts = nestor_parser::parse_sql(&mv.query)?;
        let Some(raw) = stmts.first() else { continue };
        // Its unqualified names are public's, as for a view's query.
        let saved = ctx.catalog.enter_view_path();
        let needs = nestor_plan::select::rls::unapplied(|| {
            (crate::ROUTINES.describe_needs)(ctx, &mv.query, raw)
        });
        ctx.catalog.restore_search_path(saved);
        // One that no longer plans reads nothing the DROP could break.
        let Ok((_, needs)) = needs else { continue };
        let reads = super::view::columns_read(&needs, &mv.depends_on)
            .iter()
            .any(|(r, cols)| *r == t.oid && cols.contains(&attnum));
        if reads {
            out.push(m.clone());
        }
    }
    out.sort_by_key(|m| m.oid.0);
    Ok(out)
}

/// DROP of relation `oid` (`what`: "table t", "view v") with materialized
/// views reading it: 2BP01 naming them and what reads them, or with
/// CASCADE they go first (with the views over them), in one NOTICE.
pub(crate) fn drop_dependents(
    ctx: &mut StatementCtx,
    oid: nestor_common::RelId,
    what: &str,
    dropping: &[nestor_common::RelId],
    cascade: bool,
) -> Result<(), DbError> {
    let mut deps = Vec::new();
    dependents(ctx, oid, what, dropping, &mut deps);
    if deps.is_empty() {
        return Ok(());
    }
    // The views over them are named (and dropped) with them.
    let mut lines = Vec::new();
    let mut gone = Vec::new();
    for (t, line) in &deps {
        lines.push(line.clone());
        gone.push(format!("materialized view {}", t.name));
        for v in super::view::dependent_views(ctx, t.oid) {
            if !dropping.contains(&v.oid) {
                lines.push(format!(
                    "view {} depends on materialized view {}",
                    v.name, t.name
                ));
                gone.push(format!("view {}", v.name));
            }
        }
    }
    if !cascade {
        return Err(super::dependents_remain(what, lines));
    }
    let before = ctx.notices.len();
    for (t, _) in deps.iter().rev() {
        if ctx.catalog.table_by_oid(t.oid).is_none() {
            continue;
        }
        let name = ctx.catalog.qualify(t.namespace, &t.name);
        let inner = format!("materialized view {}", t.name);
        super::view::drop_dependent_views(ctx, t.oid, &inner, dropping, true)?;
        super::drop_table(ctx, &name)?;
    }
    // One NOTICE for all of them, as PostgreSQL's reportDependentObjects.
    ctx.notices.truncate(before);
    let e = match gone.as_slice() {
        [one] => DbError::new(
            SqlState::SuccessfulCompletion,
            format!("drop cascades to {one}"),
        ),
        many => DbError::new(
            SqlState::SuccessfulCompletion,
            format!("drop cascades to {} other objects", many.len()),
        )
        .with_detail(
            many.iter()
                .map(|g| format!("drop cascades to {g}"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    };
    ctx.notices
        .push(e.with_severity(nestor_common::error::Severity::Notice));
    Ok(())
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
        let mut rows = rows?;
        // Its columns are those of its creation: a table its query reads
        // with `*` may have more now (they are left out, as a view leaves
        // them), never fewer.
        let width = def.columns.iter().filter(|c| !c.dropped).count();
        for r in &mut rows {
            if r.len() < width {
                return Err(DbError::new(
                    SqlState::ObjectNotInPrerequisiteState,
                    format!(
                        "materialized view \"{name}\" cannot be refreshed: its query now yields {} columns",
                        r.len()
                    ),
                ));
            }
            r.truncate(width);
        }
        let target = nestor_plan::modify::copy_target(ctx.catalog, ctx.eval, &name, &[])?;
        let mut done = 0;
        crate::modify::copy_insert(ctx, &target, rows, &mut done)?;
    }
    Ok(CommandTag::Plain("REFRESH MATERIALIZED VIEW"))
}
