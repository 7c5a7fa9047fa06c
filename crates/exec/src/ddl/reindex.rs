//! REINDEX { INDEX | TABLE | SCHEMA | DATABASE | SYSTEM } [CONCURRENTLY]
//! name, with PostgreSQL's options `(VERBOSE)`, `(CONCURRENTLY)` and
//! `(TABLESPACE t)`.
//!
//! An index is a B-tree of (key, row id) entries over every stored version
//! (`storage/src/table.rs`); REINDEX builds it again from the versions as
//! they are now ([`nestor_storage::Table::rebuild_index`]), which drops the
//! entries of versions pruned since. The table is held in SHARE mode while
//! it happens, as in PostgreSQL, so no writer adds an entry the rebuild
//! would miss:
//!
//! ```text
//!   REINDEX TABLE t ── lock t SHARE ── for each index of t:
//!                          entries := sorted (key, row) of t's versions
//! ```
//!
//! CONCURRENTLY takes the same path: Nestor's rebuild is one sorted bulk
//! load under the lock, not PostgreSQL's build-then-swap of a second index,
//! so writers wait for it instead of running beside it. Its rules are
//! PostgreSQL's all the same (not in a transaction block, not on system
//! catalogs). System catalogs are views computed from the catalog and have
//! no indexes: REINDEX SYSTEM has nothing to do, and REINDEX DATABASE
//! rebuilds the user tables' indexes. TABLESPACE must name pg_default.
//!
//! Partitioned tables and their indexes hold no rows: REINDEX of one
//! reindexes its partitions (and cannot run in a transaction block).

use nestor_catalog::{Relation, TableDef};
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, ReindexObjectType as Kind};
use nestor_parser::NodeEnum;
use nestor_plan::bind::relname;
use nestor_txn::{TableLockMode, WaitPolicy};
use std::sync::Arc;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

struct Options {
    verbose: bool,
    concurrently: bool,
}

pub(crate) fn reindex(ctx: &mut StatementCtx, st: &pb::ReindexStmt) -> Result<CommandTag, DbError> {
    let opts = options(st)?;
    let kind = Kind::try_from(st.kind).unwrap_or(Kind::Undefined);
    let conc_block = || {
        DbError::new(
            SqlState::ActiveSqlTransaction,
            "REINDEX CONCURRENTLY cannot run inside a transaction block",
        )
    };
    if opts.concurrently && ctx.in_block {
        return Err(conc_block());
    }
    match kind {
        Kind::ReindexObjectIndex | Kind::ReindexObjectTable => {
            let rv = st
                .relation
                .as_ref()
                .ok_or_else(|| DbError::internal("REINDEX without a relation"))?;
            let name = relname(rv)?;
            let index = kind == Kind::ReindexObjectIndex;
            let system = matches!(rv.schemaname.as_str(), "pg_catalog" | "pg_toast")
                || (rv.schemaname.is_empty()
                    && !index
                    && ctx.catalog.relation(&name).is_none()
                    && nestor_plan::pg_catalog::by_name(&rv.relname).is_some());
            if system {
                return system_relation(&opts);
            }
            if index {
                reindex_index(ctx, &name, &opts)
            } else {
                reindex_table(ctx, &name, &opts)
            }
        }
        Kind::ReindexObjectSchema | Kind::ReindexObjectDatabase | Kind::ReindexObjectSystem => {
            let what = match kind {
                Kind::ReindexObjectSchema => "REINDEX SCHEMA",
                Kind::ReindexObjectDatabase => "REINDEX DATABASE",
                _ => "REINDEX SYSTEM",
            };
            if ctx.in_block {
                return Err(DbError::new(
                    SqlState::ActiveSqlTransaction,
                    format!("{what} cannot run inside a transaction block"),
                ));
            }
            reindex_many(ctx, kind, &st.name, &opts)
        }
        Kind::Undefined => Err(DbError::internal("REINDEX of an unknown kind")),
    }
}

fn options(st: &pb::ReindexStmt) -> Result<Options, DbError> {
    let mut opts = Options {
        verbose: false,
        concurrently: false,
    };
    for p in &st.params {
        let Some(NodeEnum::DefElem(d)) = p.node.as_ref() else {
            continue;
        };
        let on = || match d.arg.as_ref().and_then(|a| a.node.as_ref()) {
            None => Ok(true),
            Some(NodeEnum::Boolean(b)) => Ok(b.boolval),
            Some(NodeEnum::Integer(i)) => Ok(i.ival != 0),
            Some(NodeEnum::String(s)) => match s.sval.to_ascii_lowercase().as_str() {
                "true" | "on" | "yes" | "1" => Ok(true),
                "false" | "off" | "no" | "0" => Ok(false),
                _ => Err(bool_required(&d.defname)),
            },
            _ => Err(bool_required(&d.defname)),
        };
        match d.defname.as_str() {
            "verbose" => opts.verbose = on()?,
            "concurrently" => opts.concurrently = on()?,
            "tablespace" => {
                let space = match d.arg.as_ref().and_then(|a| a.node.as_ref()) {
                    Some(NodeEnum::String(s)) => s.sval.clone(),
                    _ => String::new(),
                };
                if space != "pg_default" {
                    return Err(DbError::new(
                        SqlState::UndefinedObject,
                        format!("tablespace \"{space}\" does not exist"),
                    ));
                }
            }
            other => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    format!("unrecognized REINDEX option \"{other}\""),
                ))
            }
        }
    }
    Ok(opts)
}

fn bool_required(name: &str) -> DbError {
    DbError::new(
        SqlState::SyntaxError,
        format!("{name} requires a Boolean value"),
    )
}

/// pg_catalog and pg_toast relations are views of the catalog here, with
/// no indexes: nothing to rebuild. CONCURRENTLY is refused as PostgreSQL
/// refuses it.
fn system_relation(opts: &Options) -> Result<CommandTag, DbError> {
    if opts.concurrently {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot reindex system catalogs concurrently",
        ));
    }
    Ok(CommandTag::Plain("REINDEX"))
}

fn reindex_index(
    ctx: &mut StatementCtx,
    name: &str,
    opts: &Options,
) -> Result<CommandTag, DbError> {
    let (table, index) = match ctx.catalog.relation(name) {
        Some(Relation::Index { table, index }) => (table, index),
        Some(_) => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{}\" is not an index", ctx.catalog.unqualified(name)),
            ))
        }
        None => return Err(undefined(name)),
    };
    if table.partition_key.is_some() {
        if ctx.in_block {
            return Err(DbError::new(
                SqlState::ActiveSqlTransaction,
                "REINDEX INDEX cannot run inside a transaction block",
            )
            .with_context(format!(
                "while reindexing partitioned index \"{}.{}\"",
                ctx.catalog.schema_name(table.namespace).unwrap_or_default(),
                index
            )));
        }
        let def = table
            .indexes
            .iter()
            .find(|i| i.name == index)
            .ok_or_else(|| undefined(name))?;
        let cols: Vec<String> = def
            .columns
            .iter()
            .map(|c| table.columns[*c].name.clone())
            .collect();
        for part in leaves(ctx, &table) {
            lock_share(ctx, &part)?;
            for idx in part
                .indexes
                .iter()
                .filter(|i| same_columns(&part, i, &cols))
            {
                rebuild(ctx, &part, &idx.name, opts);
            }
        }
        return Ok(CommandTag::Plain("REINDEX"));
    }
    lock_share(ctx, &table)?;
    rebuild(ctx, &table, &index, opts);
    Ok(CommandTag::Plain("REINDEX"))
}

fn reindex_table(
    ctx: &mut StatementCtx,
    name: &str,
    opts: &Options,
) -> Result<CommandTag, DbError> {
    let table = match ctx.catalog.relation(name) {
        Some(Relation::Table(t)) => t,
        Some(_) => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!(
                    "\"{}\" is not a table or materialized view",
                    ctx.catalog.unqualified(name)
                ),
            ))
        }
        None => return Err(undefined(name)),
    };
    let tables = if table.partition_key.is_some() {
        if ctx.in_block {
            return Err(DbError::new(
                SqlState::ActiveSqlTransaction,
                "REINDEX TABLE cannot run inside a transaction block",
            )
            .with_context(format!(
                "while reindexing partitioned table \"{}.{}\"",
                ctx.catalog.schema_name(table.namespace).unwrap_or_default(),
                table.name
            )));
        }
        leaves(ctx, &table)
    } else {
        vec![table.clone()]
    };
    let mut any = false;
    for t in &tables {
        lock_share(ctx, t)?;
        for idx in &t.indexes {
            rebuild(ctx, t, &idx.name, opts);
            any = true;
        }
    }
    if !any && table.partition_key.is_none() {
        let msg = if opts.concurrently {
            format!(
                "table \"{}\" has no indexes that can be reindexed concurrently",
                table.name
            )
        } else {
            format!("table \"{}\" has no indexes to reindex", table.name)
        };
        ctx.notices.push(
            DbError::new(SqlState::SuccessfulCompletion, msg).with_severity(Severity::Notice),
        );
    }
    Ok(CommandTag::Plain("REINDEX"))
}

/// REINDEX SCHEMA / DATABASE / SYSTEM: the tables with rows of the
/// schema or database (system catalogs have no indexes here).
fn reindex_many(
    ctx: &mut StatementCtx,
    kind: Kind,
    name: &str,
    opts: &Options,
) -> Result<CommandTag, DbError> {
    let tables: Vec<Arc<TableDef>> = match kind {
        Kind::ReindexObjectSchema => {
            if opts.concurrently && (name == "pg_catalog" || name == "pg_toast") {
                ctx.notices.push(
                    DbError::new(
                        SqlState::FeatureNotSupported,
                        "cannot reindex system catalogs concurrently, skipping all",
                    )
                    .with_severity(Severity::Warning),
                );
                return Ok(CommandTag::Plain("REINDEX"));
            }
            if matches!(name, "pg_catalog" | "pg_toast" | "information_schema") {
                return Ok(CommandTag::Plain("REINDEX"));
            }
            if name.is_empty() {
                return Err(DbError::internal("REINDEX SCHEMA without a name"));
            }
            let schema = ctx.catalog.creation_namespace(name)?;
            ctx.catalog
                .tables()
                .into_iter()
                .filter(|t| t.namespace == schema)
                .collect()
        }
        _ => {
            let current = ctx
                .settings
                .get("nestor.database")
                .unwrap_or("postgres")
                .to_string();
            if !name.is_empty() && name != current {
                return Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    "can only reindex the currently open database",
                ));
            }
            if kind == Kind::ReindexObjectSystem {
                if opts.concurrently {
                    return Err(DbError::new(
                        SqlState::FeatureNotSupported,
                        "cannot reindex system catalogs concurrently",
                    ));
                }
                return Ok(CommandTag::Plain("REINDEX"));
            }
            ctx.catalog.tables()
        }
    };
    for t in tables {
        if t.partition_key.is_some() || t.indexes.is_empty() || !may_reindex(ctx, &t) {
            continue;
        }
        lock_share(ctx, &t)?;
        for idx in &t.indexes {
            rebuild(ctx, &t, &idx.name, opts);
        }
    }
    Ok(CommandTag::Plain("REINDEX"))
}

/// A role reindexes, in a schema or database, the tables it owns.
fn may_reindex(ctx: &StatementCtx, t: &TableDef) -> bool {
    ctx.role.superuser || crate::privilege::owns(ctx, nestor_catalog::acl::ObjKind::Table, t.oid.0)
}

/// Build index `index` of `table` again; VERBOSE reports it.
fn rebuild(ctx: &mut StatementCtx, table: &TableDef, index: &str, opts: &Options) {
    let Some(def) = table.indexes.iter().find(|i| i.name == index) else {
        return;
    };
    let rebuilt = table.storage.rebuild_index(def.oid);
    assert!(
        rebuilt,
        "index {index} of {} is attached to its storage",
        table.name
    );
    if opts.verbose {
        ctx.notices.push(
            DbError::new(
                SqlState::SuccessfulCompletion,
                format!("index \"{index}\" was reindexed"),
            )
            .with_severity(Severity::Info),
        );
    }
}

/// PostgreSQL's REINDEX lock on the table: SHARE (writers wait).
fn lock_share(ctx: &mut StatementCtx, table: &TableDef) -> Result<(), DbError> {
    crate::relation_lock::lock(
        ctx,
        table.oid.0,
        TableLockMode::Share,
        WaitPolicy::Block,
        &table.name,
    )?;
    Ok(())
}

/// The partitions with rows under a partitioned table.
fn leaves(ctx: &StatementCtx, table: &Arc<TableDef>) -> Vec<Arc<TableDef>> {
    let mut out = Vec::new();
    let mut todo = vec![table.clone()];
    while let Some(t) = todo.pop() {
        if t.partition_key.is_some() {
            todo.extend(ctx.catalog.children(t.oid));
        } else {
            out.push(t);
        }
    }
    out
}

/// Whether index `idx` of partition `part` is on the columns named `cols`
/// (how a partitioned index's partition indexes are recognised).
fn same_columns(part: &TableDef, idx: &nestor_catalog::IndexDef, cols: &[String]) -> bool {
    idx.columns.len() == cols.len()
        && idx
            .columns
            .iter()
            .zip(cols)
            .all(|(c, n)| part.columns[*c].name == *n)
}

fn undefined(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedTable,
        format!("relation \"{name}\" does not exist"),
    )
}
