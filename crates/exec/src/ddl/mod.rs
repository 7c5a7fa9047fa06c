//! DDL: CREATE/DROP/ALTER TABLE, CREATE/DROP INDEX, sequences, TRUNCATE,
//! VACUUM and ANALYZE.
//!
//! DDL is planned and executed in one step at execution time (its plan is
//! the parse tree). Each change builds new catalog definitions and applies
//! them through `Catalog::apply`, which records the undo in the
//! transaction, so ROLLBACK and ROLLBACK TO revert schema changes like
//! data changes. Generated names follow PostgreSQL (`t_pkey`, `t_a_key`,
//! `t_a_idx`, `t_a_check`, `t_id_seq`).

mod alter;
mod function;
mod table;
mod trigger;

pub use alter::alter_table;
pub use table::{create_index, create_table};
pub use trigger::create_trigger;

use std::sync::Arc;

use nestor_catalog::{Change, Sequence};
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node, relname, Binder, Scope};
use parking_lot::Mutex;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

fn notice(ctx: &mut StatementCtx, msg: String) {
    notice_code(ctx, SqlState::SuccessfulCompletion, msg);
}

fn notice_code(ctx: &mut StatementCtx, code: SqlState, msg: String) {
    ctx.notices
        .push(DbError::new(code, msg).with_severity(Severity::Notice));
}

fn exists_err(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateTable,
        format!("relation \"{name}\" already exists"),
    )
}

/// CREATE ... of a relation name already taken: with IF NOT EXISTS a
/// notice and the command's tag (nothing to do), else 42P07. None: the
/// name is free.
fn skip_existing(
    ctx: &mut StatementCtx,
    name: &str,
    if_not_exists: bool,
    tag: &'static str,
    temporary: bool,
) -> Result<Option<CommandTag>, DbError> {
    if !ctx.catalog.name_taken_in(name, temporary) {
        return Ok(None);
    }
    if !if_not_exists {
        return Err(exists_err(name));
    }
    notice_code(
        ctx,
        SqlState::DuplicateTable,
        format!("relation \"{name}\" already exists, skipping"),
    );
    Ok(Some(CommandTag::Plain(tag)))
}

fn undefined_table(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedTable,
        format!("relation \"{name}\" does not exist"),
    )
}

/// A unique relation name from `base` (PostgreSQL appends digits) in the
/// namespace a TEMP or a permanent object goes to.
fn fresh_name(ctx: &StatementCtx, base: &str, taken: &[String], temporary: bool) -> String {
    let base: String = base.chars().take(63).collect();
    let mut name = base.clone();
    let mut i = 1;
    while ctx.catalog.name_taken_in(&name, temporary) || taken.contains(&name) {
        name = format!("{base}{i}");
        i += 1;
    }
    name
}

fn binder<'e>(ctx: &'e StatementCtx, text: &'e str) -> Binder<'e> {
    let mut b = Binder::new(
        ctx.catalog,
        ctx.eval,
        text,
        &[],
        nestor_plan::select::plan_query,
    );
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    b
}

struct PendingIndex {
    name: Option<String>,
    cols: Vec<String>,
    unique: bool,
    primary: bool,
    /// From a PRIMARY KEY / UNIQUE constraint (not CREATE INDEX), at this
    /// location of the statement.
    constraint: Option<i32>,
}

struct PendingCheck {
    name: Option<String>,
    expr: Node,
    column: Option<String>,
}

/// DROP TABLE / INDEX / SEQUENCE.
pub fn drop(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let kind = pb::ObjectType::try_from(ds.remove_type).unwrap_or(pb::ObjectType::Undefined);
    let (tag, what) = match kind {
        pb::ObjectType::ObjectTable => ("DROP TABLE", "table"),
        pb::ObjectType::ObjectIndex => ("DROP INDEX", "index"),
        pb::ObjectType::ObjectSequence => ("DROP SEQUENCE", "sequence"),
        pb::ObjectType::ObjectView => return Err(DbError::unsupported("views")),
        pb::ObjectType::ObjectFunction
        | pb::ObjectType::ObjectProcedure
        | pb::ObjectType::ObjectRoutine => return function::drop_functions(ctx, ds, kind),
        pb::ObjectType::ObjectTrigger => return trigger::drop_trigger(ctx, ds),
        _ => return Err(DbError::unsupported(format!("DROP of {kind:?}"))),
    };
    // Resolve all first (PostgreSQL drops all or nothing).
    let mut names = Vec::new();
    for o in &ds.objects {
        let parts = match node(o)? {
            NodeEnum::List(l) => bind::names(&l.items),
            NodeEnum::String(s) => vec![s.sval.clone()],
            _ => continue,
        };
        let Some(name) = parts.last().cloned() else {
            continue;
        };
        let exists = match kind {
            pb::ObjectType::ObjectTable => ctx.catalog.table(&name).is_some(),
            pb::ObjectType::ObjectIndex => matches!(
                ctx.catalog.relation(&name),
                Some(nestor_catalog::Relation::Index { .. })
            ),
            _ => ctx.catalog.sequence(&name).is_some(),
        };
        if !exists {
            if ds.missing_ok {
                notice(ctx, format!("{what} \"{name}\" does not exist, skipping"));
                continue;
            }
            if ctx.catalog.name_taken(&name) {
                return Err(DbError::new(
                    SqlState::WrongObjectType,
                    format!("\"{name}\" is not a {what}"),
                ));
            }
            let msg = format!("{what} \"{name}\" does not exist");
            return Err(DbError::new(
                if what == "index" || what == "sequence" || what == "table" {
                    SqlState::UndefinedTable
                } else {
                    SqlState::UndefinedObject
                },
                msg,
            ));
        }
        names.push(name);
    }
    for name in names {
        match kind {
            pb::ObjectType::ObjectTable => drop_table(ctx, &name)?,
            pb::ObjectType::ObjectIndex => drop_index(ctx, &name)?,
            _ => drop_sequence(ctx, &name)?,
        }
    }
    Ok(CommandTag::Plain(tag))
}

fn drop_table(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    let def = ctx
        .catalog
        .table(name)
        .ok_or_else(|| undefined_table(name))?;
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::DropTable(name.to_string()))?;
    for s in &def.owned_sequences {
        if ctx.catalog.sequence(s).is_some() {
            ctx.catalog
                .apply(ctx.txn, &ctx.db.store, Change::DropSequence(s.clone()))?;
        }
    }
    Ok(())
}

fn drop_index(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    let Some(nestor_catalog::Relation::Index { table, .. }) = ctx.catalog.relation(name) else {
        return Err(undefined_table(name));
    };
    let idx = table
        .indexes
        .iter()
        .find(|i| i.name == name)
        .ok_or_else(|| undefined_table(name))?;
    if idx.constraint {
        return Err(DbError::new(
            SqlState::ObjectInUse,
            format!(
                "cannot drop index {name} because constraint {name} on table {} requires it",
                table.name
            ),
        )
        .with_hint(format!(
            "You can drop constraint {name} on table {} instead.",
            table.name
        )));
    }
    let mut new = (*table).clone();
    new.indexes.retain(|i| i.name != name);
    table.storage.drop_index(idx.oid);
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutTable {
            def: Arc::new(new),
            old_storage: None,
        },
    )
}

fn drop_sequence(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::DropSequence(name.to_string()),
    )
}

fn def_int(d: &pb::DefElem) -> Result<Option<i64>, DbError> {
    match d.arg.as_deref().and_then(|n| n.node.as_ref()) {
        None => Ok(None),
        Some(NodeEnum::Integer(i)) => Ok(Some(i.ival as i64)),
        Some(NodeEnum::Float(f)) => f.fval.parse().map(Some).map_err(|_| {
            DbError::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for {}", d.defname),
            )
        }),
        Some(NodeEnum::Boolean(b)) => Ok(Some(b.boolval as i64)),
        Some(_) => Err(DbError::unsupported(format!(
            "sequence option {}",
            d.defname
        ))),
    }
}

/// CREATE SEQUENCE.
pub(crate) fn create_sequence(
    ctx: &mut StatementCtx,
    cs: &pb::CreateSeqStmt,
) -> Result<CommandTag, DbError> {
    let rv = cs
        .sequence
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE SEQUENCE without name"))?;
    let name = relname(rv)?;
    let temporary = rv.relpersistence == "t";
    if let Some(tag) = skip_existing(ctx, &name, cs.if_not_exists, "CREATE SEQUENCE", temporary)? {
        return Ok(tag);
    }
    let (mut inc, mut min, mut max, mut start, mut cycle) = (1i64, None, None, None, false);
    for o in &cs.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        match d.defname.as_str() {
            "increment" => inc = def_int(d)?.unwrap_or(1),
            "minvalue" => min = def_int(d)?,
            "maxvalue" => max = def_int(d)?,
            "start" => start = def_int(d)?,
            "cycle" => cycle = def_int(d)?.unwrap_or(1) != 0,
            "cache" | "owned_by" | "as" => {}
            other => return Err(DbError::unsupported(format!("sequence option {other}"))),
        }
    }
    if inc == 0 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "INCREMENT must not be zero",
        ));
    }
    let min = min.unwrap_or(if inc > 0 { 1 } else { i64::MIN });
    let max = max.unwrap_or(if inc > 0 { i64::MAX } else { -1 });
    let start = start.unwrap_or(if inc > 0 { min } else { max });
    let seq = Arc::new(Sequence {
        oid: ctx.catalog.alloc_oid(),
        name: name.clone(),
        increment: inc,
        min,
        max,
        start,
        cycle,
        state: Mutex::new((start, false)),
        owned_by: None,
        temporary,
        dirty: std::sync::atomic::AtomicBool::new(true),
    });
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSequence(seq))?;
    Ok(CommandTag::Plain("CREATE SEQUENCE"))
}

/// TRUNCATE: swap in fresh storage (freed old storage at commit).
pub fn truncate(ctx: &mut StatementCtx, ts: &pb::TruncateStmt) -> Result<CommandTag, DbError> {
    let mut defs = Vec::new();
    for r in &ts.relations {
        let NodeEnum::RangeVar(rv) = node(r)? else {
            continue;
        };
        let name = relname(rv)?;
        defs.push(
            ctx.catalog
                .table(&name)
                .ok_or_else(|| undefined_table(&name))?,
        );
    }
    // Statement triggers: every table's BEFORE TRUNCATE first, the AFTER
    // ones once all are emptied.
    for def in &defs {
        let mut ev = crate::context::Ev::new(ctx, &[]);
        crate::triggers::truncate(def, nestor_catalog::TriggerTiming::Before, &mut ev)?;
    }
    for def in &defs {
        // SERIALIZABLE: every read of the table conflicts with emptying it.
        let mut rels = vec![def.storage.id];
        rels.extend(def.indexes.iter().map(|i| i.index.id));
        ctx.txn.ssi_write_table(&rels)?;
        let new = def.with_fresh_storage(&ctx.db.store, ctx.catalog.alloc_oid());
        if ts.restart_seqs {
            for s in &def.owned_sequences {
                if let Some(seq) = ctx.catalog.sequence(s) {
                    *seq.state.lock() = (seq.start, false);
                    seq.dirty.store(true, std::sync::atomic::Ordering::Release);
                }
            }
        }
        ctx.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::PutTable {
                def: Arc::new(new),
                old_storage: Some(def.storage.clone()),
            },
        )?;
    }
    for def in &defs {
        let mut ev = crate::context::Ev::new(ctx, &[]);
        crate::triggers::truncate(def, nestor_catalog::TriggerTiming::After, &mut ev)?;
    }
    Ok(CommandTag::Plain("TRUNCATE TABLE"))
}

/// VACUUM [ANALYZE] [tables] / ANALYZE.
pub(crate) fn vacuum(ctx: &mut StatementCtx, vs: &pb::VacuumStmt) -> Result<CommandTag, DbError> {
    if !vs.is_vacuumcmd {
        return Ok(CommandTag::Plain("ANALYZE"));
    }
    if ctx.in_block {
        return Err(DbError::new(
            SqlState::ActiveSqlTransaction,
            "VACUUM cannot run inside a transaction block",
        ));
    }
    let mut tables = Vec::new();
    for r in &vs.rels {
        let NodeEnum::VacuumRelation(vr) = node(r)? else {
            continue;
        };
        if let Some(rv) = &vr.relation {
            let name = relname(rv)?;
            tables.push(
                ctx.catalog
                    .table(&name)
                    .ok_or_else(|| undefined_table(&name))?,
            );
        }
    }
    if tables.is_empty() {
        ctx.db.store.prune_all();
    } else {
        let horizon = ctx.db.txn.gc_horizon();
        for t in tables {
            t.storage.prune(horizon);
        }
    }
    Ok(CommandTag::Plain("VACUUM"))
}
