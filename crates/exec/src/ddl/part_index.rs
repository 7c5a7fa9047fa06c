//! Indexes of partitioned tables, as PostgreSQL keeps them: an index on
//! a partitioned table (a "partitioned index", relkind `I`, printed `ON
//! ONLY` by pg_get_indexdef) holds no rows; each partition has an index
//! of the same definition, and a partitioned partition passes it down to
//! its own partitions.
//!
//! Nestor keeps no link from a partition's index to its parent's: the
//! link is the definition. Two indexes have the same definition when they
//! agree on uniqueness, NULLS NOT DISTINCT, their keys and their
//! predicate, with columns compared by name (a partition may order its
//! columns differently or have dropped ones; its columns are its
//! parent's by name and type) and expressions and predicates by their
//! stored text, which names columns and so reads the same over the parent
//! and over any partition. When the parent has several indexes of one
//! definition, its k-th claims a partition's k-th index of that
//! definition, as PostgreSQL's has_superclass check lets each of a
//! partition's indexes serve one parent index.
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

use nestor_catalog::{IndexDef, IndexKey, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::NodeEnum;

use crate::context::StatementCtx;

use super::PendingIndex;

/// One key of an index, independent of the table's column numbering.
#[derive(PartialEq, Eq)]
enum Key<'a> {
    Column(&'a str),
    Expr(&'a str),
}

fn keys<'a>(t: &'a TableDef, i: &'a IndexDef) -> Vec<Key<'a>> {
    let col = |c: usize| Key::Column(t.columns.get(c).map_or("", |c| c.name.as_str()));
    match &i.exprs {
        None => i.columns.iter().map(|&c| col(c)).collect(),
        Some(x) => x
            .keys
            .iter()
            .map(|k| match k {
                IndexKey::Column(c) => col(*c),
                IndexKey::Expr(e) => Key::Expr(e),
            })
            .collect(),
    }
}

fn predicate(i: &IndexDef) -> Option<&str> {
    i.exprs.as_ref().and_then(|x| x.predicate.as_deref())
}

/// Whether index `a` of table `at` and index `b` of table `bt` have the
/// same definition.
fn same_definition(at: &TableDef, a: &IndexDef, bt: &TableDef, b: &IndexDef) -> bool {
    a.unique == b.unique
        && a.index.nulls_not_distinct == b.index.nulls_not_distinct
        && predicate(a) == predicate(b)
        && keys(at, a) == keys(bt, b)
}

/// The index of `child` that the parent's index `idx` claims: the k-th
/// of the child's indexes of its definition, for `idx` the k-th of the
/// parent's.
pub(super) fn claimed<'c>(
    parent: &TableDef,
    idx: &IndexDef,
    child: &'c TableDef,
) -> Option<&'c IndexDef> {
    let k = parent
        .indexes
        .iter()
        .take_while(|o| o.oid != idx.oid)
        .filter(|o| same_definition(parent, o, parent, idx))
        .count();
    child
        .indexes
        .iter()
        .filter(|c| same_definition(parent, idx, child, c))
        .nth(k)
}

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
        return super::table::create_computed(ctx, &text, child, &is);
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
    };
    super::table::add_index_cascading(ctx, child, pi)
}

/// `CREATE [UNIQUE] INDEX ON t (keys) [NULLS NOT DISTINCT] [WHERE pred]`
/// for a computed index: its keys and predicate over column names.
fn statement(t: &TableDef, idx: &IndexDef) -> String {
    let keys: Vec<String> = keys(t, idx)
        .into_iter()
        .map(|k| match k {
            Key::Column(c) => crate::pg_catalog::quote_ident(c),
            Key::Expr(e) => format!("({e})"),
        })
        .collect();
    let mut s = format!(
        "CREATE {}INDEX ON t ({})",
        if idx.unique { "UNIQUE " } else { "" },
        keys.join(", ")
    );
    if idx.index.nulls_not_distinct {
        s.push_str(" NULLS NOT DISTINCT");
    }
    if let Some(p) = predicate(idx) {
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
    let owner = parent
        .indexes
        .iter()
        .find(|p| claimed(&parent, p, table).is_some_and(|c| c.oid == idx.oid));
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
