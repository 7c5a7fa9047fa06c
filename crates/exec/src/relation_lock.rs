//! Which relation locks a statement takes, and when (the lock modes, their
//! conflicts and the fast path are `nestor_txn::relation_locks`).
//!
//! As in PostgreSQL, a statement locks every relation it uses before it
//! runs and keeps the locks until its transaction ends:
//!
//! ```text
//!   SELECT ... FROM t                 t ACCESS SHARE
//!   SELECT ... FROM t FOR UPDATE      t ROW SHARE
//!   INSERT / UPDATE / DELETE t        t ROW EXCLUSIVE (+ ACCESS SHARE on what it reads)
//!   CREATE INDEX ON t                 t SHARE
//!   CREATE TRIGGER ON t               t SHARE ROW EXCLUSIVE
//!   ALTER/DROP/TRUNCATE/RENAME t      t ACCESS EXCLUSIVE
//!   CREATE TABLE t (and the like)     t ACCESS EXCLUSIVE, once it exists
//!   LOCK TABLE t IN m MODE [NOWAIT]   t m
//! ```
//!
//! A planned statement's relations are its privilege list (the binder
//! records every relation it reads or writes, with the views' underlying
//! tables): locks are taken from it at each execution. A plan is made
//! before its locks are held, so [`lock_plan`]'s caller compares the
//! catalog version after locking and re-plans if another transaction's DDL
//! committed or rolled back meanwhile (PostgreSQL locks during parse
//! analysis instead; the outcome is the same: the statement runs on the
//! definition its locks protect). Under READ COMMITTED a statement that
//! had to go through the lock table takes a fresh snapshot after it, as
//! PostgreSQL's statement snapshot follows its locks, so it sees what the
//! DDL it waited for committed.
//!
//! DDL locks its existing targets by name before it reads their
//! definitions ([`lock_ddl_targets`]); names that do not resolve are left
//! to the DDL's own "does not exist" errors.
//!
//! ALTER TABLE takes PostgreSQL's level per subcommand (the strongest of
//! its subcommands): SHARE ROW EXCLUSIVE to add a foreign key (on the
//! referenced table too, as CREATE TABLE ... REFERENCES does), SHARE
//! UPDATE EXCLUSIVE for statistics-like settings, ACCESS EXCLUSIVE for the
//! rest.
//!
//! Left out: locks on sequences for nextval (ALTER SEQUENCE does not wait
//! for it), on functions and types.

use nestor_catalog::acl::{self, ObjKind};
use nestor_catalog::Relation;
use nestor_common::DbError;
use nestor_parser::{pb, NodeEnum};
use nestor_plan::perm::Perm;
use nestor_plan::PlannedStmt;
use nestor_txn::{Isolation, RelationLocked, TableLockMode, WaitPolicy};

use crate::context::StatementCtx;

/// OIDs below this are system relations (pg_class and friends): nothing
/// takes a strong lock on them, so reading them takes none.
const FIRST_USER_OID: u32 = 16384;

/// Lock one relation for the rest of the transaction. Returns whether the
/// request went beyond the session's own fast path (and so may have
/// waited).
pub(crate) fn lock(
    ctx: &mut StatementCtx,
    oid: u32,
    mode: TableLockMode,
    policy: WaitPolicy,
    name: &str,
) -> Result<bool, DbError> {
    let what = || format!("relation \"{name}\"");
    let got = ctx.txn.lock_relation(oid, mode, policy, &ctx.wait, &what)?;
    Ok(got == RelationLocked::Table)
}

/// Lock the relations a planned statement uses. Returns whether any
/// request may have waited: the caller re-checks its plan and snapshot.
pub(crate) fn lock_plan(
    ctx: &mut StatementCtx,
    plan: &PlannedStmt,
    perms: &[Perm],
) -> Result<bool, DbError> {
    // Only a relation the statement may update asks: is it SELECT ... FOR
    // UPDATE/SHARE (ROW SHARE) or an UPDATE (ROW EXCLUSIVE)?
    let locks_rows = || match plan {
        PlannedStmt::Query(p) => nestor_plan::statement::locks_rows(p).is_some(),
        _ => false,
    };
    let mut waited = false;
    for p in perms {
        if p.kind != ObjKind::Table || p.oid < FIRST_USER_OID {
            continue;
        }
        let mode = if p.privs & (acl::INSERT | acl::DELETE) != 0 {
            TableLockMode::RowExclusive
        } else if p.privs & acl::UPDATE != 0 {
            if locks_rows() {
                TableLockMode::RowShare
            } else {
                TableLockMode::RowExclusive
            }
        } else {
            TableLockMode::AccessShare
        };
        waited |= lock(ctx, p.oid, mode, WaitPolicy::Block, &p.name)?;
    }
    Ok(waited)
}

/// After locks that may have waited: under READ COMMITTED the statement
/// reads at a snapshot taken after them.
pub(crate) fn refresh_snapshot(ctx: &mut StatementCtx) {
    if ctx.txn.isolation() == Isolation::ReadCommitted {
        ctx.snapshot = ctx.txn.latest_snapshot();
    }
}

/// The existing relations a DDL statement changes, and in which mode.
fn ddl_targets(n: &NodeEnum) -> Vec<(String, TableLockMode)> {
    use TableLockMode::*;
    let rv = |r: &Option<pb::RangeVar>| r.as_ref().and_then(|r| nestor_plan::bind::relname(r).ok());
    let mut out = Vec::new();
    let mut push = |name: Option<String>, mode| {
        if let Some(name) = name {
            out.push((name, mode));
        }
    };
    match n {
        NodeEnum::DropStmt(ds) => {
            let kind =
                pb::ObjectType::try_from(ds.remove_type).unwrap_or(pb::ObjectType::Undefined);
            if matches!(
                kind,
                pb::ObjectType::ObjectTable
                    | pb::ObjectType::ObjectIndex
                    | pb::ObjectType::ObjectSequence
                    | pb::ObjectType::ObjectView
                    | pb::ObjectType::ObjectMatview
            ) {
                for o in &ds.objects {
                    let name = match o.node.as_ref() {
                        Some(NodeEnum::List(l)) => nestor_plan::bind::names(&l.items).pop(),
                        Some(NodeEnum::String(s)) => Some(s.sval.clone()),
                        _ => None,
                    };
                    push(name, AccessExclusive);
                }
            }
            if kind == pb::ObjectType::ObjectPolicy {
                // [schema.]table.policy: the table.
                for o in &ds.objects {
                    if let Some(NodeEnum::List(l)) = o.node.as_ref() {
                        let mut parts = nestor_plan::bind::names(&l.items);
                        parts.pop();
                        push(parts.pop(), AccessExclusive);
                    }
                }
            }
        }
        NodeEnum::AlterTableStmt(at) => {
            // The table first, then the tables its new foreign keys
            // reference (PostgreSQL's order).
            let mut mode = None;
            let mut referenced = Vec::new();
            for c in &at.cmds {
                let Some(NodeEnum::AlterTableCmd(cmd)) = c.node.as_ref() else {
                    continue;
                };
                let (m, refs) = alter_cmd_lock(cmd);
                mode = mode.max(Some(m));
                referenced.extend(refs);
            }
            push(rv(&at.relation), mode.unwrap_or(AccessExclusive));
            for r in referenced {
                push(Some(r), ShareRowExclusive);
            }
        }
        NodeEnum::CreateStmt(cs) => {
            // The tables its foreign keys reference (their triggers in
            // PostgreSQL), which the new table's constraint now names.
            for e in &cs.table_elts {
                let constraints = match e.node.as_ref() {
                    Some(NodeEnum::ColumnDef(cd)) => cd.constraints.iter().collect::<Vec<_>>(),
                    Some(NodeEnum::Constraint(_)) => vec![e],
                    _ => Vec::new(),
                };
                for c in constraints {
                    if let Some(r) = fk_referenced(c) {
                        push(Some(r), ShareRowExclusive);
                    }
                }
            }
        }
        NodeEnum::IndexStmt(is) => push(
            rv(&is.relation),
            if is.concurrent {
                ShareUpdateExclusive
            } else {
                Share
            },
        ),
        NodeEnum::TruncateStmt(ts) => {
            for r in &ts.relations {
                if let Some(NodeEnum::RangeVar(r)) = r.node.as_ref() {
                    push(nestor_plan::bind::relname(r).ok(), AccessExclusive);
                }
            }
        }
        NodeEnum::CreateTrigStmt(ct) => push(rv(&ct.relation), ShareRowExclusive),
        NodeEnum::RuleStmt(r) => push(rv(&r.relation), AccessExclusive),
        NodeEnum::CreatePolicyStmt(p) => push(rv(&p.table), AccessExclusive),
        NodeEnum::AlterPolicyStmt(p) => push(rv(&p.table), AccessExclusive),
        NodeEnum::RenameStmt(rs) => push(rv(&rs.relation), AccessExclusive),
        NodeEnum::ViewStmt(vs) if vs.replace => push(rv(&vs.view), AccessExclusive),
        NodeEnum::RefreshMatViewStmt(r) => push(
            rv(&r.relation),
            if r.concurrent {
                Exclusive
            } else {
                AccessExclusive
            },
        ),
        NodeEnum::AlterSeqStmt(s) => push(rv(&s.sequence), ShareRowExclusive),
        _ => {}
    }
    out
}

/// The table a FOREIGN KEY constraint node references, if it is one.
fn fk_referenced(c: &pb::Node) -> Option<String> {
    let Some(NodeEnum::Constraint(c)) = c.node.as_ref() else {
        return None;
    };
    if c.contype != pb::ConstrType::ConstrForeign as i32 {
        return None;
    }
    nestor_plan::bind::relname(c.pktable.as_ref()?).ok()
}

/// The lock one ALTER TABLE subcommand needs (PostgreSQL's
/// AlterTableGetLockLevel, for the subcommands Nestor has), and the
/// tables an added foreign key references (SHARE ROW EXCLUSIVE on them).
fn alter_cmd_lock(cmd: &pb::AlterTableCmd) -> (TableLockMode, Vec<String>) {
    use pb::AlterTableType as A;
    use TableLockMode::*;
    let subtype = A::try_from(cmd.subtype).unwrap_or(A::Undefined);
    match subtype {
        A::AtAddConstraint => match cmd.def.as_deref().and_then(fk_referenced) {
            Some(r) => (ShareRowExclusive, vec![r]),
            None => (AccessExclusive, Vec::new()),
        },
        A::AtValidateConstraint
        | A::AtSetStatistics
        | A::AtClusterOn
        | A::AtDropCluster
        | A::AtSetOptions
        | A::AtResetOptions => (ShareUpdateExclusive, Vec::new()),
        A::AtEnableTrig
        | A::AtEnableAlwaysTrig
        | A::AtEnableReplicaTrig
        | A::AtEnableTrigAll
        | A::AtEnableTrigUser
        | A::AtDisableTrig
        | A::AtDisableTrigAll
        | A::AtDisableTrigUser => (ShareRowExclusive, Vec::new()),
        _ => (AccessExclusive, Vec::new()),
    }
}

/// The OID a relation lock on `name` is taken on: an index's table (as
/// the table's lock is what its users hold).
fn lock_oid(ctx: &StatementCtx, name: &str) -> Option<u32> {
    match ctx.catalog.relation(name)? {
        Relation::Table(t) => Some(t.oid.0),
        Relation::Index { table, .. } => Some(table.oid.0),
        Relation::Sequence(s) => Some(s.oid.0),
        Relation::View(v) => Some(v.oid.0),
    }
}

/// Lock what a DDL statement is about to change. Returns whether a request
/// may have waited.
pub(crate) fn lock_ddl_targets(ctx: &mut StatementCtx, n: &NodeEnum) -> Result<bool, DbError> {
    let mut waited = false;
    for (name, mode) in ddl_targets(n) {
        if let Some(oid) = lock_oid(ctx, &name) {
            waited |= lock(ctx, oid, mode, WaitPolicy::Block, &name)?;
        }
    }
    for name in created_names(n) {
        waited |= wait_for_claim(ctx, &name)?;
    }
    Ok(waited)
}

/// Wait until no other transaction holds a claim on relation name `name`
/// (it created, renamed or dropped a relation of that name and has not
/// ended: `nestor_catalog`'s claims), as PostgreSQL waits on its catalog's
/// unique index. Returns whether it waited.
fn wait_for_claim(ctx: &mut StatementCtx, name: &str) -> Result<bool, DbError> {
    let mut waited = false;
    loop {
        let seen_undos = ctx.txn.manager().locks.undos();
        let Some(holder) = ctx.catalog.claim_holder(name) else {
            return Ok(waited);
        };
        ctx.txn.wait_for(holder, seen_undos, &ctx.wait)?;
        waited = true;
    }
}

/// The relation names a DDL statement creates (or renames onto) in a
/// permanent namespace: the new relation's own name, not the ones derived
/// from it (a serial column's sequence, a constraint's index).
fn created_names(n: &NodeEnum) -> Vec<String> {
    let permanent = |r: &pb::RangeVar| r.relpersistence != "t";
    let rv = |r: &Option<pb::RangeVar>| {
        r.as_ref()
            .filter(|r| permanent(r))
            .and_then(|r| nestor_plan::bind::relname(r).ok())
    };
    // A name created beside relation `r` (in its schema).
    let beside = |r: &Option<pb::RangeVar>, name: &str| {
        r.as_ref()
            .filter(|r| permanent(r) && !name.is_empty())
            .map(|r| {
                let mut named = r.clone();
                named.relname = name.to_string();
                nestor_plan::bind::relname(&named).unwrap_or_else(|_| name.to_string())
            })
    };
    let name = match n {
        NodeEnum::CreateStmt(cs) => rv(&cs.relation),
        NodeEnum::CreateTableAsStmt(st) => st.into.as_ref().and_then(|i| rv(&i.rel)),
        NodeEnum::ViewStmt(vs) => rv(&vs.view),
        NodeEnum::CreateSeqStmt(cs) => rv(&cs.sequence),
        NodeEnum::IndexStmt(is) => beside(&is.relation, &is.idxname),
        NodeEnum::RenameStmt(rs) if rs.subname.is_empty() => beside(&rs.relation, &rs.newname),
        _ => None,
    };
    name.into_iter().collect()
}

/// Lock the relations a DDL statement created (no other session can have
/// used them yet; from here on they wait for this transaction's end).
pub(crate) fn lock_created(
    ctx: &mut StatementCtx,
    created: &[(ObjKind, u32)],
) -> Result<(), DbError> {
    for &(kind, oid) in created {
        if matches!(kind, ObjKind::Table | ObjKind::Sequence) {
            lock(
                ctx,
                oid,
                TableLockMode::AccessExclusive,
                WaitPolicy::Block,
                "",
            )?;
        }
    }
    Ok(())
}
