//! Indexes of partitioned tables, as PostgreSQL keeps them: an index on
//! a partitioned table (a "partitioned index", relkind `I`, printed `ON
//! ONLY` by pg_get_indexdef) holds no rows; each partition has an index
//! of the same definition, and a partitioned partition passes it down to
//! its own partitions.
//!
//! Which partition index belongs to which parent index is decided by
//! their definitions (`nestor_catalog::partition_index`).
//!
//! What uses it:
//! - CREATE INDEX on a partitioned table ([`cascade`]): each partition
//!   reuses a free index of the definition or gets a new one, named by the
//!   partition (`p1_lower_idx`), with the expressions and predicate bound
//!   over the partition's own columns;
//! - CREATE TABLE ... PARTITION OF and ATTACH PARTITION ([`inherit`]):
//!   the new partition gets (or already has) each of the parent's indexes;
//! - DROP INDEX ([`claimed`]): a partitioned index takes its partitions'
//!   indexes with it, and a partition's claimed index cannot be dropped
//!   alone (2BP01).
//!
//! An expression or partial index is cloned by printing its definition
//! as a CREATE INDEX statement and building that statement over the
//! partition, the path a user's CREATE INDEX takes, so the partition's
//! index is checked, named and filled as one created directly.

use std::sync::Arc;

use nestor_catalog::partition_index::{claimed, claiming};
use nestor_catalog::{IndexDef, IndexKey, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::NodeEnum;

use crate::context::StatementCtx;

use super::PendingIndex;

/// Gives each partition of `def` an index like its index `idx`.
pub(super) fn cascade(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    idx: &IndexDef,
) -> Result<(), DbError> {
    for child in ctx.catalog.children(def.oid) {
        if claimed(def, idx, &child).is_none() {
            create_like(ctx, def, idx, &child)?;
        }
    }
    Ok(())
}

/// A new partition (just created, or being attached) gets each of its
/// parent's indexes it lacks. `computed_only`: the plain ones are already
/// there (CREATE TABLE ... PARTITION OF builds them with the table).
pub(super) fn inherit(
    ctx: &mut StatementCtx,
    parent: &Arc<TableDef>,
    child_oid: nestor_common::RelId,
    computed_only: bool,
) -> Result<(), DbError> {
    for idx in &parent.indexes {
        if computed_only && idx.exprs.is_none() {
            continue;
        }
        let child = ctx
            .catalog
            .table_by_oid(child_oid)
            .ok_or_else(|| DbError::internal("new partition vanished"))?;
        if claimed(parent, idx, &child).is_none() {
            create_like(ctx, parent, idx, &child)?;
        }
    }
    Ok(())
}

/// Creates on `child` an index of the definition of `parent`'s `idx`
/// (and down `child`'s partitions, when it has them).
fn create_like(
    ctx: &mut StatementCtx,
    parent: &TableDef,
    idx: &IndexDef,
    child: &Arc<TableDef>,
) -> Result<(), DbError> {
    if idx.exprs.is_some() {
        let text = statement(parent, idx);
        let mut parsed = nestor_parser::parse_sql(&text)?;
        let Some(NodeEnum::IndexStmt(is)) = parsed.pop().and_then(|s| s.stmt).and_then(|n| n.node)
        else {
            return Err(DbError::internal("partition index: bad generated CREATE"));
        };
        return super::table::create_computed(ctx, &text, child, &is, idx.method);
    }
    let pi = PendingIndex {
        name: None,
        cols: idx
            .columns
            .iter()
            .map(|&c| parent.columns[c].name.clone())
            .collect(),
        unique: idx.unique,
        primary: idx.primary,
        constraint: idx.constraint.then_some(-1),
        nulls_not_distinct: idx.index.nulls_not_distinct,
        method: idx.method,
        keyopts: idx.keyopts.clone(),
    };
    super::table::add_index_cascading(ctx, child, pi)
}

/// `CREATE [UNIQUE] INDEX ON t (keys) [NULLS NOT DISTINCT] [WHERE pred]`
/// for a computed index: its keys and predicate over column names.
fn statement(t: &TableDef, idx: &IndexDef) -> String {
    let col = |c: usize| crate::pg_catalog::quote_ident(&t.columns[c].name);
    let keys: Vec<String> = match &idx.exprs {
        None => idx.columns.iter().map(|&c| col(c)).collect(),
        Some(x) => x
            .keys
            .iter()
            .enumerate()
            .map(|(n, k)| {
                let key = match k {
                    IndexKey::Column(c) => col(*c),
                    IndexKey::Expr(e) => format!("({e})"),
                };
                // A GIN key keeps its operator class, a btree key its
                // options.
                let key = match x.gin.get(n) {
                    Some(g) => format!("{key} {}", g.name()),
                    None => key,
                };
                key + &crate::pg_catalog::key_decoration(&idx.key_opt(n), idx.method)
            })
            .collect(),
    };
    let mut s = format!(
        "CREATE {}INDEX ON t ({})",
        if idx.unique { "UNIQUE " } else { "" },
        keys.join(", ")
    );
    if idx.index.nulls_not_distinct {
        s.push_str(" NULLS NOT DISTINCT");
    }
    if let Some(p) = idx.exprs.as_ref().and_then(|x| x.predicate.as_deref()) {
        s.push_str(" WHERE ");
        s.push_str(p);
    }
    s
}

/// DROP INDEX of a partition's index that a parent's index claims
/// (2BP01, as PostgreSQL's dependency check words it).
pub(super) fn refuse_drop(
    ctx: &StatementCtx,
    table: &TableDef,
    idx: &IndexDef,
) -> Result<(), DbError> {
    let Some(parent) = table
        .partition_bound
        .as_ref()
        .and(table.inherits.first())
        .and_then(|&p| ctx.catalog.table_by_oid(p))
    else {
        return Ok(());
    };
    let owner = claiming(&parent, table, idx);
    match owner {
        None => Ok(()),
        Some(p) => Err(DbError::new(
            SqlState::DependentObjectsStillExist,
            format!(
                "cannot drop index {} because index {} requires it",
                idx.name, p.name
            ),
        )
        .with_hint(format!("You can drop index {} instead.", p.name))),
    }
}

/// The partitions' indexes a partitioned table's index `idx` claims, down
/// the tree (dropped with it).
pub(super) fn claimed_tree(
    ctx: &StatementCtx,
    table: &TableDef,
    idx: &IndexDef,
) -> Vec<(Arc<TableDef>, IndexDef)> {
    let mut out = Vec::new();
    if table.partition_key.is_none() {
        return out;
    }
    for child in ctx.catalog.children(table.oid) {
        if let Some(c) = claimed(table, idx, &child).cloned() {
            out.extend(claimed_tree(ctx, &child, &c));
            out.push((child, c));
        }
    }
    out
}
