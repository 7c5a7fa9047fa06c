//! FOREIGN KEY constraints: the DDL side (CREATE TABLE ... REFERENCES,
//! ALTER TABLE ADD/DROP CONSTRAINT, what DROP TABLE and TRUNCATE do to a
//! referenced table). Enforcement is `crate::foreign_keys`.
//!
//! A foreign key lives in the referencing (child) table's definition and
//! names its referenced (parent) table by OID, with the columns of a
//! unique index there (PostgreSQL: a PRIMARY KEY or UNIQUE constraint or
//! a unique index over exactly those columns). MATCH SIMPLE and MATCH
//! FULL (`ForeignKey::match_full`); MATCH PARTIAL and `ON DELETE SET
//! NULL (columns)` are 0A000.

use std::sync::Arc;

use nestor_catalog::{FkAction, ForeignKey, Persistence, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_plan::bind::{self, relname};

use super::undefined_table;
use crate::context::StatementCtx;

/// A FOREIGN KEY clause as written, resolved once the tables are known.
pub(crate) struct PendingFk {
    pub name: Option<String>,
    /// Referencing columns (the column itself for a column constraint).
    pub columns: Vec<String>,
    pub parent: String,
    /// Empty: the parent's primary key.
    pub parent_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
    pub deferrable: bool,
    pub deferred: bool,
    /// MATCH FULL (MATCH SIMPLE otherwise).
    pub match_full: bool,
}

/// An action that writes the referencing columns cannot write a stored
/// generated one (PostgreSQL's 42601).
fn refuse_generated_actions(
    child: &TableDef,
    columns: &[usize],
    p: &PendingFk,
) -> Result<(), DbError> {
    if !columns.iter().any(|&c| child.columns[c].generated) {
        return Ok(());
    }
    let writes = |a: FkAction| matches!(a, FkAction::SetNull | FkAction::SetDefault);
    let what = if writes(p.on_update) || p.on_update == FkAction::Cascade {
        "ON UPDATE"
    } else if writes(p.on_delete) {
        "ON DELETE"
    } else {
        return Ok(());
    };
    Err(DbError::new(
        SqlState::SyntaxError,
        format!("invalid {what} action for foreign key constraint containing generated column"),
    ))
}

fn action(code: &str) -> Result<FkAction, DbError> {
    match code.as_bytes().first() {
        None | Some(b' ') => Ok(FkAction::NoAction),
        Some(&c) => FkAction::from_code(c)
            .ok_or_else(|| DbError::internal(format!("foreign key action {code}"))),
    }
}

/// The clause of constraint `c` (`columns`: the referencing column of a
/// column constraint; a table constraint lists its own).
pub(crate) fn pending(
    c: &pb::Constraint,
    columns: Option<Vec<String>>,
) -> Result<PendingFk, DbError> {
    let match_full = match c.fk_matchtype.as_str() {
        "" | "s" => false,
        "f" => true,
        _ => return Err(DbError::unsupported("MATCH PARTIAL foreign keys")),
    };
    if c.initdeferred && !c.deferrable {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
        ));
    }
    if !c.fk_del_set_cols.is_empty() {
        return Err(DbError::unsupported(
            "ON DELETE SET NULL/DEFAULT with a column list",
        ));
    }
    let pk = c
        .pktable
        .as_ref()
        .ok_or_else(|| DbError::internal("FOREIGN KEY without a referenced table"))?;
    Ok(PendingFk {
        name: (!c.conname.is_empty()).then(|| c.conname.clone()),
        columns: columns.unwrap_or_else(|| bind::names(&c.fk_attrs)),
        parent: relname(pk)?,
        parent_columns: bind::names(&c.pk_attrs),
        on_delete: action(&c.fk_del_action)?,
        on_update: action(&c.fk_upd_action)?,
        deferrable: c.deferrable,
        deferred: c.initdeferred,
        match_full,
    })
}

fn invalid_fk(msg: String) -> DbError {
    DbError::new(SqlState::InvalidForeignKey, msg)
}

/// The name PostgreSQL chooses: `<table>_<col>[_<col>...]_fkey`, with
/// digits added until no constraint of the table has it.
fn choose_name(child: &TableDef, cols: &[String], taken: &[String]) -> String {
    let base: String = format!("{}_{}", child.name, cols.join("_"))
        .chars()
        .take(58)
        .collect();
    let used = |n: &str| {
        taken.iter().any(|t| t == n)
            || child.foreign_keys.iter().any(|f| f.name == n)
            || child.checks.iter().any(|c| c.name == n)
            || child.indexes.iter().any(|i| i.name == n)
    };
    let mut name = format!("{base}_fkey");
    let mut i = 1;
    while used(&name) {
        name = format!("{base}_fkey{i}");
        i += 1;
    }
    name
}

/// Resolve a clause against the child table `child` (being created, or
/// existing) — `parent_self` is `child` itself when the clause names it.
pub(crate) fn resolve(
    ctx: &StatementCtx,
    child: &TableDef,
    p: &PendingFk,
    taken: &[String],
) -> Result<ForeignKey, DbError> {
    let parent: Arc<TableDef> = if p.parent == child.name {
        Arc::new(child.clone())
    } else {
        ctx.catalog
            .table(&p.parent)
            .ok_or_else(|| undefined_table(&p.parent))?
    };
    if parent.partition_key.is_some() || child.partition_key.is_some() {
        return Err(DbError::unsupported("foreign keys on partitioned tables"));
    }
    match (child.persistence, parent.persistence) {
        (Persistence::Permanent, Persistence::Permanent)
        | (Persistence::Unlogged, Persistence::Permanent | Persistence::Unlogged)
        | (Persistence::Temporary, Persistence::Temporary) => {}
        (Persistence::Temporary, _) => {
            return Err(DbError::new(
                SqlState::InvalidTableDefinition,
                "constraints on temporary tables may reference only temporary tables",
            ))
        }
        (Persistence::Unlogged, _) => {
            return Err(DbError::new(
                SqlState::InvalidTableDefinition,
                "constraints on unlogged tables may reference only permanent or unlogged tables",
            ))
        }
        (Persistence::Permanent, _) => {
            return Err(DbError::new(
                SqlState::InvalidTableDefinition,
                "constraints on permanent tables may reference only permanent tables",
            ))
        }
    }
    let column = |t: &TableDef, n: &str| {
        t.column_index(n).ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedColumn,
                format!("column \"{n}\" referenced in foreign key constraint does not exist"),
            )
        })
    };
    let columns = p
        .columns
        .iter()
        .map(|c| column(child, c))
        .collect::<Result<Vec<_>, _>>()?;
    refuse_generated_actions(child, &columns, p)?;
    let parent_columns: Vec<usize> = if p.parent_columns.is_empty() {
        parent
            .indexes
            .iter()
            .find(|i| i.primary)
            .map(|i| i.columns.clone())
            .ok_or_else(|| {
                invalid_fk(format!(
                    "there is no primary key for referenced table \"{}\"",
                    parent.name
                ))
            })?
    } else {
        p.parent_columns
            .iter()
            .map(|c| column(&parent, c))
            .collect::<Result<Vec<_>, _>>()?
    };
    if columns.len() != parent_columns.len() {
        return Err(invalid_fk(
            "number of referencing and referenced columns for foreign key disagree".into(),
        ));
    }
    let mut want = parent_columns.clone();
    want.sort_unstable();
    let unique = parent.indexes.iter().any(|i| {
        let mut have = i.columns.clone();
        have.sort_unstable();
        i.unique && have == want
    });
    if !unique {
        return Err(invalid_fk(format!(
            "there is no unique constraint matching given keys for referenced table \"{}\"",
            parent.name
        )));
    }
    let name = match &p.name {
        Some(n) => n.clone(),
        None => choose_name(child, &p.columns, taken),
    };
    for (&c, &pc) in columns.iter().zip(&parent_columns) {
        let (ct, pt) = (child.columns[c].ty, parent.columns[pc].ty);
        if nestor_plan::bind::unify(ct, pt).is_none() {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!("foreign key constraint \"{name}\" cannot be implemented"),
            )
            .with_detail(format!(
                "Key columns \"{}\" and \"{}\" are of incompatible types: {} and {}.",
                child.columns[c].name,
                parent.columns[pc].name,
                ct.name(),
                pt.name()
            )));
        }
    }
    Ok(ForeignKey {
        oid: ctx.catalog.alloc_oid(),
        name,
        columns,
        parent: parent.oid,
        parent_columns,
        on_delete: p.on_delete,
        on_update: p.on_update,
        deferrable: p.deferrable,
        deferred: p.deferred,
        match_full: p.match_full,
    })
}

/// The foreign keys of other tables that reference `t` (its own
/// self-references excluded): what DROP TABLE and TRUNCATE look at.
pub(crate) fn referenced_by_others(
    ctx: &StatementCtx,
    t: &TableDef,
) -> Vec<(Arc<TableDef>, ForeignKey)> {
    ctx.catalog
        .referencing(t.oid)
        .into_iter()
        .filter(|(c, _)| c.oid != t.oid)
        .collect()
}

/// PostgreSQL's NOTICE for objects a DROP ... CASCADE takes along: the
/// one object, or a count with the list in DETAIL.
pub(crate) fn cascade_notice(ctx: &mut StatementCtx, mut what: Vec<(u32, String)>) {
    if what.is_empty() {
        return;
    }
    // PostgreSQL lists them in its dependency scan's order; by name here.
    what.sort_by(|a, b| a.1.cmp(&b.1));
    let what: Vec<String> = what.into_iter().map(|(_, w)| w).collect();
    super::cascades_notice(ctx, &what);
}

/// DROP TABLE of a referenced table: 2BP01 naming the first dependent
/// constraint, as PostgreSQL (without CASCADE).
pub(crate) fn dependents_error(t: &TableDef, deps: &[(Arc<TableDef>, ForeignKey)]) -> DbError {
    super::dependents_remain(
        format_args!("table {}", t.name),
        deps.iter().map(|(c, fk)| {
            format!(
                "constraint {} on table {} depends on table {}",
                fk.name, c.name, t.name
            )
        }),
    )
}
