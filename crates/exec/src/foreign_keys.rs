//! FOREIGN KEY enforcement (the DDL is `ddl::foreign_key`).
//!
//! Correctness property: when a statement ends, every referencing row's
//! key (all columns non-NULL: MATCH SIMPLE) exists in the referenced
//! table, by the latest committed state plus the transaction's own work —
//! also against concurrent transactions, without any structure beyond the
//! row-lock table.
//!
//! Rules, as PostgreSQL's RI triggers:
//!
//! ```text
//!   child INSERT / key UPDATE   after the statement's rows are written:
//!                               find the parent row through its unique
//!                               index, lock it FOR KEY SHARE (held to
//!                               commit), 23503 if there is none
//!   parent DELETE / key UPDATE  per row, once written: referencing rows
//!                               (found with the same "dirty" snapshot)
//!                               get the constraint's action — NO ACTION /
//!                               RESTRICT 23503, CASCADE, SET NULL,
//!                               SET DEFAULT (run as an internal DELETE or
//!                               UPDATE, so their triggers, checks and
//!                               foreign keys apply in turn)
//! ```
//!
//! Why no MultiXact: the KEY SHARE lock is a holder record in the lock
//! table, one per transaction per row, whatever savepoints do. A parent
//! DELETE takes the row's UPDATE lock, so it waits for the child's
//! transaction; when it gets the lock the child row is committed and the
//! check (latest state, not the statement's snapshot) sees it. A child
//! whose lock attempt finds the parent row deleted by a committed
//! transaction fails. Both sides look with the latest snapshot extended to
//! the current command ([`dirty_snapshot`]), as ON CONFLICT's probe does.
//!
//! NO ACTION is checked when the statement's rows are written (a key
//! deleted and inserted again, or a row and its referencing rows deleted
//! by one statement, pass); RESTRICT at once; CASCADE / SET NULL / SET
//! DEFAULT run per parent row. The internal action statements are planned
//! per row.

use std::ops::Bound;
use std::sync::Arc;

use nestor_catalog::{FkAction, ForeignKey, IndexDef, TableDef};
use nestor_common::{CommandId, DbError, RelId, RowId, SqlState};
use nestor_plan::valops;
use nestor_storage::{LockResult, Recheck};
use nestor_txn::{LockMode, Snapshot, WaitPolicy};
use nestor_types::Value;

use crate::context::Ev;
use crate::pg_catalog::quote_ident;

/// The latest committed state plus this transaction's work, this very
/// command's included (PostgreSQL's dirty snapshot for RI checks).
fn dirty_snapshot(ev: &Ev) -> Snapshot {
    let mut snap = ev.ctx.txn.latest_snapshot();
    snap.cid = CommandId(ev.ctx.txn.cid().0.saturating_add(1));
    snap
}

fn key_text(t: &TableDef, cols: &[usize], key: &[Value], ev: &Ev) -> String {
    let names: Vec<&str> = cols.iter().map(|&c| t.columns[c].name.as_str()).collect();
    let vals: Vec<String> = key
        .iter()
        .map(|v| valops::to_text(v, &ev.ctx.eval).unwrap_or_else(|| "null".into()))
        .collect();
    format!("Key ({})=({})", names.join(", "), vals.join(", "))
}

/// The unique index of `parent` over exactly the key's columns.
fn key_index<'t>(parent: &'t TableDef, fk: &ForeignKey) -> Option<&'t IndexDef> {
    let mut want = fk.parent_columns.clone();
    want.sort_unstable();
    parent.indexes.iter().find(|i| {
        let mut have = i.columns.clone();
        have.sort_unstable();
        i.unique && have == want
    })
}

/// Check the foreign keys of a written child row (`old`: its values
/// before an UPDATE; an unchanged key is not checked again).
pub(crate) fn check_child(
    t: &TableDef,
    row: &[Value],
    old: Option<&[Value]>,
    rid: Option<RowId>,
    ev: &mut Ev,
) -> Result<(), DbError> {
    check_child_locking(t, row, old, rid, ev, true)
}

/// [`check_child`]; `lock_parent` false finds the parent row without
/// locking it (a caller whose relation lock already keeps parent writers
/// out).
fn check_child_locking(
    t: &TableDef,
    row: &[Value],
    old: Option<&[Value]>,
    rid: Option<RowId>,
    ev: &mut Ev,
    lock_parent: bool,
) -> Result<(), DbError> {
    for fk in &t.foreign_keys {
        if let Some(rid) = rid.filter(|_| is_deferred(fk, ev)) {
            // Checked at commit (or SET CONSTRAINTS ... IMMEDIATE), on the
            // row as it is then.
            ev.ctx.deferred.push(DeferredCheck::Child {
                table: t.oid,
                row: rid,
                constraint: fk.name.clone(),
            });
            continue;
        }
        let key: Vec<Value> = fk.columns.iter().map(|&c| row[c].clone()).collect();
        if key.iter().any(Value::is_null) {
            // MATCH SIMPLE: a key with a NULL references nothing; MATCH
            // FULL: only an all-NULL key does.
            if fk.match_full && !key.iter().all(Value::is_null) {
                return Err(DbError::new(
                    SqlState::ForeignKeyViolation,
                    format!(
                        "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
                        t.name, fk.name
                    ),
                )
                .with_detail("MATCH FULL does not allow mixing of null and nonnull key values.")
                .with_table(&t.name)
                .with_schema(t.storage.schema())
                .with_constraint(&fk.name));
            }
            continue;
        }
        if let Some(old) = old {
            if fk
                .columns
                .iter()
                .all(|&c| old[c] == row[c] && !old[c].is_null())
            {
                continue;
            }
        }
        let parent =
            ev.ctx.catalog.table_by_oid(fk.parent).ok_or_else(|| {
                DbError::internal(format!("foreign key {} lost its table", fk.name))
            })?;
        if !parent_has(&parent, fk, &key, ev, lock_parent)? {
            return Err(DbError::new(
                SqlState::ForeignKeyViolation,
                format!(
                    "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
                    t.name, fk.name
                ),
            )
            .with_detail(format!(
                "{} is not present in table \"{}\".",
                key_text(t, &fk.columns, &key, ev),
                parent.name
            ))
            .with_table(&t.name)
            .with_schema(t.storage.schema())
            .with_constraint(&fk.name));
        }
    }
    Ok(())
}

/// Whether `parent` has a live row with `key` (the values of the
/// foreign key's columns); that row is then locked FOR KEY SHARE.
fn parent_has(
    parent: &TableDef,
    fk: &ForeignKey,
    key: &[Value],
    ev: &mut Ev,
    lock: bool,
) -> Result<bool, DbError> {
    let idx = key_index(parent, fk).ok_or_else(|| {
        DbError::internal(format!("foreign key {} lost its unique index", fk.name))
    })?;
    let mut probe = Vec::with_capacity(idx.columns.len());
    for pc in &idx.columns {
        let k = fk
            .parent_columns
            .iter()
            .position(|c| c == pc)
            .expect("the index covers the key");
        probe.push(valops::cast(
            key[k].clone(),
            parent.columns[*pc].ty,
            false,
            &ev.ctx.eval,
        )?);
    }
    let snap = dirty_snapshot(ev);
    let hits = parent.storage.index_scan(
        &idx.index,
        Bound::Included(&probe[..]),
        Bound::Included(&probe[..]),
        &snap,
    );
    for tuple in hits {
        if !lock {
            return Ok(true);
        }
        let locked = parent
            .storage
            .lock_row(
                ev.ctx.txn,
                tuple.row,
                LockMode::KeyShare,
                WaitPolicy::Block,
                &snap,
                &ev.ctx.wait,
                Recheck::Snapshot,
            )
            .map_err(|e| e.into_db(&|v| valops::render(v, &ev.ctx.eval)))?;
        match locked {
            LockResult::Locked => return Ok(true),
            LockResult::Changed(newest) => {
                if idx
                    .columns
                    .iter()
                    .zip(&probe)
                    .all(|(&c, v)| newest.get(c) == Some(v))
                {
                    return Ok(true);
                }
            }
            LockResult::Gone | LockResult::Skipped => {}
        }
    }
    Ok(false)
}

/// Whether some row of `child` references `key` through `fk`.
fn child_rows_exist(
    child: &TableDef,
    fk: &ForeignKey,
    key: &[Value],
    ev: &mut Ev,
) -> Result<bool, DbError> {
    let snap = dirty_snapshot(ev);
    // An index whose leading columns are the foreign key's, in order.
    let idx = child.indexes.iter().find(|i| {
        i.columns.len() >= fk.columns.len() && i.columns[..fk.columns.len()] == fk.columns[..]
    });
    let probe: Vec<Value> = fk
        .columns
        .iter()
        .zip(key)
        .map(|(&c, v)| valops::cast(v.clone(), child.columns[c].ty, false, &ev.ctx.eval))
        .collect::<Result<_, _>>()?;
    if let Some(idx) = idx {
        let hits = child.storage.index_scan(
            &idx.index,
            Bound::Included(&probe[..]),
            Bound::Included(&probe[..]),
            &snap,
        );
        return Ok(!hits.is_empty());
    }
    let mut n = 0u32;
    for tuple in child.storage.scan(&snap) {
        crate::executor::poll(ev, &mut n)?;
        let row = crate::executor::scan_row(tuple, child);
        if fk.columns.iter().zip(&probe).all(|(&c, v)| row[c] == *v) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A check of a DEFERRABLE constraint left for the commit (or SET
/// CONSTRAINTS ... IMMEDIATE): verified against the state then, so work
/// rolled back to a savepoint meanwhile passes.
#[derive(Clone, Debug)]
pub enum DeferredCheck {
    /// Foreign key `constraint` of row `row` of table `table`, if the row
    /// still exists.
    Child {
        table: RelId,
        row: RowId,
        constraint: String,
    },
    /// A referenced key deleted or changed in `table`: no row of `child`
    /// may reference it through `constraint` unless `table` has it again.
    Parent {
        table: RelId,
        child: RelId,
        constraint: String,
        key: Vec<Value>,
    },
}

impl DeferredCheck {
    /// Whether the check is one of constraint (table, name) of `set` (for
    /// a Parent check: the referencing table's constraint).
    pub fn concerns(&self, set: &[(RelId, String)]) -> bool {
        let (table, name) = match self {
            DeferredCheck::Child {
                table, constraint, ..
            } => (table, constraint),
            DeferredCheck::Parent {
                child, constraint, ..
            } => (child, constraint),
        };
        set.iter().any(|(t, n)| t == table && n == name)
    }
}

/// The transaction's SET CONSTRAINTS state: ALL (None: each constraint's
/// own INITIALLY) and the constraints named since (by OID), which a later
/// SET CONSTRAINTS ALL forgets, as PostgreSQL's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstraintModes {
    pub all: Option<bool>,
    pub named: Vec<(RelId, bool)>,
}

impl ConstraintModes {
    /// Whether `fk` is checked at commit now: DEFERRABLE, and deferred by
    /// SET CONSTRAINTS or INITIALLY DEFERRED.
    pub fn deferred(&self, fk: &ForeignKey) -> bool {
        fk.deferrable
            && self
                .named
                .iter()
                .find(|(o, _)| *o == fk.oid)
                .map(|(_, d)| *d)
                .or(self.all)
                .unwrap_or(fk.deferred)
    }

    /// SET CONSTRAINTS ALL.
    pub fn set_all(&mut self, deferred: bool) {
        self.all = Some(deferred);
        self.named.clear();
    }

    /// SET CONSTRAINTS name (the constraint's OID).
    pub fn set(&mut self, oid: RelId, deferred: bool) {
        self.named.retain(|(o, _)| *o != oid);
        self.named.push((oid, deferred));
    }
}

fn is_deferred(fk: &ForeignKey, ev: &Ev) -> bool {
    ev.ctx.constraints_deferred.deferred(fk)
}

/// The DEFERRABLE constraints SET CONSTRAINTS names, as (table, name,
/// OID): 42704 for a name no constraint has; one that is not DEFERRABLE
/// (only foreign keys can be) is 42809 for DEFERRED and left alone for
/// IMMEDIATE, as in PostgreSQL.
pub fn named_constraints(
    ctx: &crate::StatementCtx,
    names: &[String],
    deferred: bool,
) -> Result<Vec<(RelId, String, RelId)>, DbError> {
    let tables = ctx.catalog.tables();
    let mut out = Vec::new();
    for name in names {
        let mut found = false;
        for t in &tables {
            for fk in t.foreign_keys.iter().filter(|f| f.name == *name) {
                found = true;
                if fk.deferrable {
                    out.push((t.oid, fk.name.clone(), fk.oid));
                } else if deferred {
                    return Err(not_deferrable(name));
                }
            }
            let other = t.checks.iter().any(|c| c.name == *name)
                || t.indexes.iter().any(|i| i.constraint && i.name == *name);
            if other && deferred {
                return Err(not_deferrable(name));
            }
            found |= other;
        }
        if !found {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!("constraint \"{name}\" does not exist"),
            ));
        }
    }
    Ok(out)
}

fn not_deferrable(name: &str) -> DbError {
    DbError::new(
        SqlState::WrongObjectType,
        format!("constraint \"{name}\" is not deferrable"),
    )
}

/// Run the deferred checks (at commit, or SET CONSTRAINTS ... IMMEDIATE).
pub fn check_deferred(
    ctx: &mut crate::StatementCtx,
    checks: Vec<DeferredCheck>,
) -> Result<(), DbError> {
    let mut ev = Ev::new(ctx, &[]);
    // Checks run now are immediate.
    let saved = std::mem::replace(
        &mut ev.ctx.constraints_deferred,
        ConstraintModes {
            all: Some(false),
            named: Vec::new(),
        },
    );
    let r = (|| {
        for c in checks {
            match c {
                DeferredCheck::Child {
                    table,
                    row,
                    constraint,
                } => {
                    let Some(t) = ev.ctx.catalog.table_by_oid(table) else {
                        continue;
                    };
                    let snap = dirty_snapshot(&ev);
                    let Some(tuple) = t.storage.get(row, &snap) else {
                        continue;
                    };
                    let values = crate::executor::scan_row(tuple, &t);
                    let probe = TableDef {
                        foreign_keys: t
                            .foreign_keys
                            .iter()
                            .filter(|f| f.deferrable && f.name == constraint)
                            .cloned()
                            .collect(),
                        ..(*t).clone()
                    };
                    check_child(&probe, &values, None, None, &mut ev)?;
                }
                DeferredCheck::Parent {
                    table,
                    child,
                    constraint,
                    key,
                } => {
                    let (Some(t), Some(c)) = (
                        ev.ctx.catalog.table_by_oid(table),
                        ev.ctx.catalog.table_by_oid(child),
                    ) else {
                        continue;
                    };
                    let Some(fk) = c
                        .foreign_keys
                        .iter()
                        .find(|f| f.name == constraint)
                        .cloned()
                    else {
                        continue;
                    };
                    check_no_action(&t, vec![(c, fk, key)], &mut ev)?;
                }
            }
        }
        Ok(())
    })();
    ev.ctx.constraints_deferred = saved;
    r
}

/// A NO ACTION check left for the end of the statement: the key a
/// deleted or updated parent row held, and the constraint.
pub(crate) type NoActionCheck = (Arc<TableDef>, ForeignKey, Vec<Value>);

/// A row of `t` was deleted (`new` None) or updated: apply the actions of
/// the foreign keys that reference `t` (`refs`, from
/// `Catalog::referencing`). NO ACTION checks go to `deferred`, for
/// [`check_no_action`] once the statement's rows are written.
pub(crate) fn on_parent_change(
    t: &TableDef,
    refs: &[(Arc<TableDef>, ForeignKey)],
    old: &[Value],
    new: Option<&[Value]>,
    deferred: &mut Vec<NoActionCheck>,
    ev: &mut Ev,
) -> Result<(), DbError> {
    for (child, fk) in refs {
        let key: Vec<Value> = fk.parent_columns.iter().map(|&c| old[c].clone()).collect();
        if key.iter().any(Value::is_null) {
            continue;
        }
        if let Some(new) = new {
            if fk.parent_columns.iter().all(|&c| new[c] == old[c]) {
                continue;
            }
        }
        // The child as it is now (an earlier action may have changed it).
        let child = ev
            .ctx
            .catalog
            .table_by_oid(child.oid)
            .unwrap_or_else(|| child.clone());
        let action = if new.is_some() {
            fk.on_update
        } else {
            fk.on_delete
        };
        match action {
            FkAction::NoAction if is_deferred(fk, ev) => {
                ev.ctx.deferred.push(DeferredCheck::Parent {
                    table: t.oid,
                    child: child.oid,
                    constraint: fk.name.clone(),
                    key,
                })
            }
            FkAction::NoAction => deferred.push((child, fk.clone(), key)),
            FkAction::Restrict => {
                if child_rows_exist(&child, fk, &key, ev)? {
                    return Err(still_referenced(t, &child, fk, &key, ev));
                }
            }
            FkAction::Cascade | FkAction::SetNull | FkAction::SetDefault => {
                run_action(&child, fk, action, &key, new, ev)?;
            }
        }
    }
    Ok(())
}

/// The NO ACTION checks of a statement's parent rows: a key still
/// referenced is an error unless a row of `t` holds it again.
pub(crate) fn check_no_action(
    t: &TableDef,
    deferred: Vec<NoActionCheck>,
    ev: &mut Ev,
) -> Result<(), DbError> {
    for (child, fk, key) in deferred {
        let child = ev.ctx.catalog.table_by_oid(child.oid).unwrap_or(child);
        if !child_rows_exist(&child, &fk, &key, ev)? {
            continue;
        }
        let parent = ev
            .ctx
            .catalog
            .table_by_oid(t.oid)
            .unwrap_or_else(|| Arc::new(t.clone()));
        if parent_has(&parent, &fk, &key, ev, true)? {
            continue;
        }
        return Err(still_referenced(t, &child, &fk, &key, ev));
    }
    Ok(())
}

fn still_referenced(
    t: &TableDef,
    child: &TableDef,
    fk: &ForeignKey,
    key: &[Value],
    ev: &Ev,
) -> DbError {
    DbError::new(
        SqlState::ForeignKeyViolation,
        format!(
            "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\"",
            t.name, fk.name, child.name
        ),
    )
    .with_detail(format!(
        "{} is still referenced from table \"{}\".",
        key_text(t, &fk.parent_columns, key, ev),
        child.name
    ))
    .with_table(&child.name)
    .with_schema(child.storage.schema())
    .with_constraint(&fk.name)
}

/// CASCADE / SET NULL / SET DEFAULT as the DELETE or UPDATE of the child
/// rows holding `key` that PostgreSQL's RI triggers run.
fn run_action(
    child: &TableDef,
    fk: &ForeignKey,
    action: FkAction,
    key: &[Value],
    new: Option<&[Value]>,
    ev: &mut Ev,
) -> Result<(), DbError> {
    let mut params: Vec<Value> = Vec::new();
    let mut types: Vec<u32> = Vec::new();
    let mut param = |v: Value, ty: nestor_types::DataType, params: &mut Vec<Value>| {
        params.push(v);
        types.push(ty.base().oid());
        format!("${}::{}", params.len(), ty)
    };
    let mut conds = Vec::new();
    for (&c, v) in fk.columns.iter().zip(key) {
        let col = &child.columns[c];
        conds.push(format!(
            "{} = {}",
            quote_ident(&col.name),
            param(v.clone(), col.ty, &mut params)
        ));
    }
    let table = quote_ident(&child.name);
    let sql = match (action, new) {
        (FkAction::Cascade, None) => format!("DELETE FROM {table} WHERE {}", conds.join(" AND ")),
        (FkAction::Cascade, Some(new)) => {
            let mut sets = Vec::new();
            for (&c, &pc) in fk.columns.iter().zip(&fk.parent_columns) {
                let col = &child.columns[c];
                let p = param(new[pc].clone(), col.ty, &mut params);
                sets.push(format!("{} = {p}", quote_ident(&col.name)));
            }
            format!(
                "UPDATE {table} SET {} WHERE {}",
                sets.join(", "),
                conds.join(" AND ")
            )
        }
        (FkAction::SetNull | FkAction::SetDefault, _) => {
            let value = if action == FkAction::SetNull {
                "NULL"
            } else {
                "DEFAULT"
            };
            let sets: Vec<String> = fk
                .columns
                .iter()
                .map(|&c| format!("{} = {value}", quote_ident(&child.columns[c].name)))
                .collect();
            format!(
                "UPDATE {table} SET {} WHERE {}",
                sets.join(", "),
                conds.join(" AND ")
            )
        }
        _ => unreachable!("only the actions that change rows run statements"),
    };
    // Row-level security does not hide referencing rows from the action
    // (PostgreSQL runs it as the owner with SECURITY_NOFORCE_RLS).
    nestor_plan::select::rls::unapplied(|| (crate::ROUTINES.run_sql)(ev.ctx, &sql, &params, &types))
}

/// ALTER TABLE ADD FOREIGN KEY: every existing row of `t` must satisfy
/// `fk`. The statement holds SHARE ROW EXCLUSIVE on both tables, so no
/// other transaction writes to them: parent rows are found, not locked
/// (as PostgreSQL's RI_Initial_Check reads them).
pub(crate) fn validate(t: &TableDef, fk: &ForeignKey, ev: &mut Ev) -> Result<(), DbError> {
    let probe = TableDef {
        foreign_keys: vec![fk.clone()],
        ..t.clone()
    };
    let snap = dirty_snapshot(ev);
    let rows: Vec<Vec<Value>> = t
        .storage
        .scan(&snap)
        .map(|tuple| crate::executor::scan_row(tuple, t))
        .collect();
    let mut n = 0u32;
    for row in rows {
        crate::executor::poll(ev, &mut n)?;
        check_child_locking(&probe, &row, None, None, ev, false)?;
    }
    Ok(())
}
