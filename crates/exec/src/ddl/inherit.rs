//! Table inheritance DDL: `CREATE TABLE ... INHERITS`, `ALTER TABLE ...
//! [NO] INHERIT`, and what DROP TABLE and ALTER TABLE do to a tree.
//!
//! A child records its parents by OID (`TableDef::inherits`, logged with
//! the table), and nothing else ties the two: the child has copies of the
//! parents' columns, NOT NULL markings, defaults and CHECK constraints,
//! made when it is created (or checked when it joins with INHERIT), which
//! is PostgreSQL's model too. Queries find the children at plan time
//! (`plan/src/select/inherit.rs`).
//!
//! ```text
//!   CREATE TABLE c (b text, a int) INHERITS (p)      p(a int, x int)
//!   columns:  a (p's, merged with c's own: NOTICE)  x (p's)  b (c's)
//!   checks:   p's, same names, then c's own
//! ```
//!
//! Column merging follows PostgreSQL's MergeAttributes: the parents'
//! columns first, in parent order (one column per name, its type the same
//! in every parent), then the new table's own; an own column of an
//! inherited name is merged into it (its type must be the same; its
//! DEFAULT wins, NOT NULL is or-ed). PostgreSQL counts per column how many
//! parents it came from and whether it was also declared locally
//! (attinhcount, attislocal); Nestor keeps the parent links only, so a
//! column is taken as inherited while some parent has it. Left out, with
//! 0A000: CHECK constraints marked NO INHERIT, and partitioning.

use std::sync::Arc;

use nestor_catalog::{Column, TableDef};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb;

use crate::context::StatementCtx;

use super::{notice, PendingCheck};

/// The tables a CREATE TABLE ... INHERITS names, resolved and checked.
pub(super) fn parents(
    ctx: &StatementCtx,
    cs: &pb::CreateStmt,
    temporary: bool,
) -> Result<Vec<Arc<TableDef>>, DbError> {
    let mut out: Vec<Arc<TableDef>> = Vec::new();
    for n in &cs.inh_relations {
        let Some(nestor_parser::NodeEnum::RangeVar(rv)) = n.node.as_ref() else {
            return Err(DbError::internal("INHERITS item is not a relation"));
        };
        let p = parent_table(ctx, rv)?;
        let partition = cs.partbound.is_some();
        let temp_parent = p.persistence == nestor_catalog::Persistence::Temporary;
        let msg = match (temp_parent, temporary) {
            (false, true) if partition => {
                "cannot create a temporary relation as partition of permanent relation"
            }
            (true, false) if partition => {
                "cannot create a permanent relation as partition of temporary relation"
            }
            (true, false) => "cannot inherit from temporary relation",
            _ => "",
        };
        if !msg.is_empty() {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("{msg} \"{}\"", rv.relname),
            ));
        }
        if out.iter().any(|o| o.oid == p.oid) {
            return Err(DbError::new(
                SqlState::DuplicateTable,
                format!(
                    "relation \"{}\" would be inherited from more than once",
                    rv.relname
                ),
            ));
        }
        out.push(p);
    }
    Ok(out)
}

/// A relation named as a parent: a table (not a view or sequence).
fn parent_table(ctx: &StatementCtx, rv: &pb::RangeVar) -> Result<Arc<TableDef>, DbError> {
    let name = nestor_plan::bind::relname(rv)?;
    match ctx.catalog.table(&name) {
        Some(t) if t.matview.is_none() => Ok(t),
        Some(_) => Err(not_a_table(&rv.relname)),
        None if ctx.catalog.relation(&name).is_some() => Err(not_a_table(&rv.relname)),
        // PostgreSQL reports it without a cursor.
        None => Err(super::undefined_table(&rv.relname)),
    }
}

fn not_a_table(name: &str) -> DbError {
    DbError::new(
        SqlState::WrongObjectType,
        format!("inherited relation \"{name}\" is not a table or foreign table"),
    )
}

fn type_conflict(msg: String, inherited: &Column, other: &Column) -> DbError {
    DbError::new(SqlState::DatatypeMismatch, msg)
        .with_detail(format!("{} versus {}", inherited.ty, other.ty))
}

fn same_type(a: &Column, b: &Column) -> bool {
    a.ty == b.ty && a.domain == b.domain
}

/// Merge the parents' columns into a new table's own (`own`, in order):
/// the merged list, and for each own column its position in it.
pub(super) fn merge_columns(
    ctx: &mut StatementCtx,
    parents: &[Arc<TableDef>],
    own: Vec<Column>,
) -> Result<(Vec<Column>, Vec<usize>), DbError> {
    let mut cols: Vec<Column> = Vec::new();
    for p in parents {
        for (_, c) in p.live_columns() {
            match cols.iter_mut().find(|x| x.name == c.name) {
                Some(x) => {
                    notice(
                        ctx,
                        format!(
                            "merging multiple inherited definitions of column \"{}\"",
                            c.name
                        ),
                    );
                    if !same_type(x, c) {
                        return Err(type_conflict(
                            format!("inherited column \"{}\" has a type conflict", c.name),
                            x,
                            c,
                        ));
                    }
                    super::generated::merge_parents(x, c)?;
                    x.not_null |= c.not_null;
                }
                None => cols.push(Column {
                    missing: nestor_types::Value::Null,
                    ..c.clone()
                }),
            }
        }
    }
    let mut positions = Vec::with_capacity(own.len());
    for (k, c) in own.into_iter().enumerate() {
        match cols.iter().position(|x| x.name == c.name) {
            Some(i) if i == k => notice(
                ctx,
                format!("merging column \"{}\" with inherited definition", c.name),
            ),
            Some(_) => ctx.notices.push(
                DbError::new(
                    SqlState::SuccessfulCompletion,
                    format!(
                        "moving and merging column \"{}\" with inherited definition",
                        c.name
                    ),
                )
                .with_detail("User-specified column moved to the position of the inherited column.")
                .with_severity(nestor_common::error::Severity::Notice),
            ),
            None => {}
        }
        match cols.iter().position(|x| x.name == c.name) {
            Some(i) => {
                let x = &mut cols[i];
                if !same_type(x, &c) {
                    return Err(type_conflict(
                        format!("column \"{}\" has a type conflict", c.name),
                        x,
                        &c,
                    ));
                }
                x.not_null |= c.not_null;
                super::generated::merge_own(x, &c)?;
                if c.default.is_some() && !x.generated {
                    x.default = c.default;
                }
                positions.push(i);
            }
            None => {
                positions.push(cols.len());
                cols.push(c);
            }
        }
    }
    Ok((cols, positions))
}

/// The parents' CHECK constraints as pending ones of the new table, ahead
/// of its own; an own constraint of an inherited name must say the same
/// (it is merged into it, with a NOTICE).
pub(super) fn merge_checks(
    ctx: &mut StatementCtx,
    parents: &[Arc<TableDef>],
    child: &str,
    own: Vec<PendingCheck>,
) -> Result<Vec<PendingCheck>, DbError> {
    let mut out: Vec<PendingCheck> = Vec::new();
    let mut inherited: Vec<(String, String)> = Vec::new();
    for p in parents {
        for k in &p.checks {
            if inherited.iter().any(|(n, _)| *n == k.name) {
                continue;
            }
            inherited.push((k.name.clone(), k.expr.clone()));
            out.push(PendingCheck {
                name: Some(k.name.clone()),
                expr: nestor_parser::parse_expr(&k.expr)?,
                column: None,
            });
        }
    }
    for pc in own {
        let same_name = pc
            .name
            .as_ref()
            .and_then(|n| inherited.iter().find(|(i, _)| i == n));
        match same_name {
            Some((name, expr)) => {
                if nestor_parser::deparse_expr(&pc.expr)? != *expr {
                    return Err(DbError::new(
                        SqlState::DuplicateObject,
                        format!("constraint \"{name}\" for relation \"{child}\" already exists"),
                    ));
                }
                notice(
                    ctx,
                    format!("merging constraint \"{name}\" with inherited definition"),
                );
            }
            None => out.push(pc),
        }
    }
    Ok(out)
}

/// CHECK ... NO INHERIT: Nestor's constraints have no such marking.
pub(super) fn refuse_no_inherit(c: &pb::Constraint) -> Result<(), DbError> {
    if c.is_no_inherit {
        return Err(DbError::unsupported("CHECK constraints marked NO INHERIT"));
    }
    Ok(())
}

/// The tables below `t` in its inheritance tree (not `t`), each with the
/// parent it was reached through.
pub(super) fn descendants_of(
    ctx: &StatementCtx,
    t: &Arc<TableDef>,
) -> Vec<(Arc<TableDef>, Arc<TableDef>)> {
    let members = ctx.catalog.descendants(t);
    members[1..]
        .iter()
        .map(|m| {
            let via = members
                .iter()
                .find(|p| m.inherits.contains(&p.oid))
                .cloned()
                .unwrap_or_else(|| t.clone());
            (m.clone(), via)
        })
        .collect()
}

/// DROP TABLE of tables with children: without CASCADE 2BP01 naming them
/// (as PostgreSQL's dependency report does), with it the children are
/// added to the tables dropped, after a NOTICE.
pub(super) fn drop_children(
    ctx: &mut StatementCtx,
    names: &mut Vec<String>,
    cascade: bool,
) -> Result<(), DbError> {
    let mut extra: Vec<(String, String)> = Vec::new();
    // Partitions go with their partitioned table, without CASCADE.
    let mut partitions: Vec<String> = Vec::new();
    for name in names.iter() {
        let Some(t) = ctx.catalog.table(name) else {
            continue;
        };
        for (child, via) in descendants_of(ctx, &t) {
            let dropped_anyway = names.contains(&child.name)
                || extra.iter().any(|(n, _)| *n == child.name)
                || partitions.contains(&child.name);
            if !dropped_anyway && child.partition_bound.is_some() {
                partitions.push(child.name.clone());
            } else if !dropped_anyway {
                extra.push((child.name.clone(), via.name.clone()));
            }
        }
        if !cascade && !extra.is_empty() {
            return Err(super::dependents_remain(
                format_args!("table {}", t.name),
                extra
                    .iter()
                    .map(|(c, p)| format!("table {c} depends on table {p}")),
            ));
        }
    }
    names.extend(partitions);
    if extra.is_empty() {
        return Ok(());
    }
    let what = extra
        .iter()
        .enumerate()
        .map(|(i, (c, _))| (i as u32, format!("table {c}")))
        .collect();
    super::foreign_key::cascade_notice(ctx, what);
    names.extend(extra.into_iter().map(|(c, _)| c));
    Ok(())
}

/// ALTER TABLE child INHERIT parent: the child must already have what the
/// parent has — each column, with the same type and NOT NULL, and each
/// CHECK constraint, by name, with the same expression.
pub(super) fn add_parent(
    ctx: &mut StatementCtx,
    child: &Arc<TableDef>,
    parent_rv: &pb::RangeVar,
) -> Result<TableDef, DbError> {
    let parent = parent_table(ctx, parent_rv)?;
    if parent.oid == child.oid
        || ctx
            .catalog
            .descendants(child)
            .iter()
            .any(|d| d.oid == parent.oid)
    {
        return Err(
            DbError::new(SqlState::DuplicateTable, "circular inheritance not allowed").with_detail(
                format!(
                    "\"{}\" is already a child of \"{}\".",
                    parent.name, child.name
                ),
            ),
        );
    }
    super::trigger::refuse_transition_rows(
        child,
        "an inheritance child",
        "in inheritance hierarchies",
    )?;
    if child.inherits.contains(&parent.oid) {
        return Err(DbError::new(
            SqlState::DuplicateTable,
            format!(
                "relation \"{}\" would be inherited from more than once",
                parent.name
            ),
        ));
    }
    if parent.persistence == nestor_catalog::Persistence::Temporary
        && child.persistence != nestor_catalog::Persistence::Temporary
    {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("cannot inherit from temporary relation \"{}\"", parent.name),
        ));
    }
    for (_, pc) in parent.live_columns() {
        let Some(i) = child.column_index(&pc.name) else {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!("child table is missing column \"{}\"", pc.name),
            ));
        };
        let cc = &child.columns[i];
        if !same_type(pc, cc) {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "child table \"{}\" has different type for column \"{}\"",
                    child.name, pc.name
                ),
            ));
        }
        if pc.not_null && !cc.not_null {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "column \"{}\" in child table must be marked NOT NULL",
                    pc.name
                ),
            ));
        }
        super::generated::check_inherit(pc, cc)?;
    }
    for k in &parent.checks {
        match child.checks.iter().find(|c| c.name == k.name) {
            None => {
                return Err(DbError::new(
                    SqlState::DatatypeMismatch,
                    format!("child table is missing constraint \"{}\"", k.name),
                ))
            }
            Some(c) if c.expr != k.expr => {
                return Err(DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "child table \"{}\" has different definition for check constraint \"{}\"",
                        child.name, k.name
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    let mut new = (**child).clone();
    new.inherits.push(parent.oid);
    Ok(new)
}

/// ALTER TABLE child NO INHERIT parent: the link goes; the columns and
/// constraints stay the child's own.
pub(super) fn remove_parent(
    ctx: &StatementCtx,
    child: &Arc<TableDef>,
    parent_rv: &pb::RangeVar,
) -> Result<TableDef, DbError> {
    let parent = parent_table(ctx, parent_rv)?;
    if !child.inherits.contains(&parent.oid) {
        return Err(DbError::new(
            SqlState::UndefinedTable,
            format!(
                "relation \"{}\" is not a parent of relation \"{}\"",
                parent.name, child.name
            ),
        ));
    }
    let mut new = (**child).clone();
    new.inherits.retain(|&p| p != parent.oid);
    Ok(new)
}

/// Whether column `name` of `t` comes from one of its parents (then the
/// child may not drop or rename it on its own).
pub(super) fn is_inherited(ctx: &StatementCtx, t: &TableDef, name: &str) -> bool {
    t.inherits.iter().any(|&p: &RelId| {
        ctx.catalog
            .table_by_oid(p)
            .is_some_and(|p| p.column_index(name).is_some())
    })
}

/// Subcommands that go down the tree with the table's (PostgreSQL
/// recurses these unless ONLY is written).
fn recursing(sub: pb::AlterTableType) -> bool {
    use pb::AlterTableType as A;
    matches!(
        sub,
        A::AtAddColumn
            | A::AtDropColumn
            | A::AtAddConstraint
            | A::AtDropConstraint
            | A::AtAlterColumnType
            | A::AtSetNotNull
            | A::AtDropNotNull
            | A::AtColumnDefault
            | A::AtDropExpression
            | A::AtSetStorage
    )
}

fn subtype(cmd: &pb::AlterTableCmd) -> pb::AlterTableType {
    pb::AlterTableType::try_from(cmd.subtype).unwrap_or(pb::AlterTableType::Undefined)
}

/// The descendants an ALTER TABLE subcommand also applies to (none with
/// ONLY: then a column must not be added to a parent alone).
pub(super) fn recursing_children(
    ctx: &StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
    recurse: bool,
) -> Result<Vec<Arc<TableDef>>, DbError> {
    use pb::AlterTableType as A;
    let sub = subtype(cmd);
    if !recursing(sub) {
        return Ok(Vec::new());
    }
    let children: Vec<Arc<TableDef>> = descendants_of(ctx, def)
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    if recurse || children.is_empty() {
        return Ok(children);
    }
    match sub {
        A::AtAddColumn => Err(DbError::new(
            SqlState::InvalidTableDefinition,
            "column must be added to child tables too",
        )),
        A::AtDropExpression => Err(DbError::new(
            SqlState::FeatureNotSupported,
            "ALTER TABLE / DROP EXPRESSION must be applied to child tables too",
        )),
        A::AtDropColumn | A::AtAlterColumnType => Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!(
                "{} must be applied to child tables too",
                if sub == A::AtDropColumn {
                    "DROP COLUMN"
                } else {
                    "type of inherited column"
                }
            ),
        )),
        _ => Ok(Vec::new()),
    }
}

/// Whether a subcommand recursing from a parent still has work in child
/// `t`: ADD COLUMN of a column it has merges (same type, NOTICE), DROP
/// COLUMN and DROP CONSTRAINT skip what it lacks or still inherits from
/// another parent.
pub(super) fn child_cmd_applies(
    ctx: &mut StatementCtx,
    t: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<bool, DbError> {
    use pb::AlterTableType as A;
    match subtype(cmd) {
        A::AtAddColumn => {
            let Some(nestor_parser::NodeEnum::ColumnDef(cd)) =
                cmd.def.as_deref().and_then(|n| n.node.as_ref())
            else {
                return Ok(true);
            };
            let Some(i) = t.column_index(&cd.colname) else {
                return Ok(true);
            };
            let ty = cd
                .type_name
                .as_ref()
                .map(nestor_plan::bind::type_from_name)
                .transpose()?;
            if ty.is_some_and(|ty| ty != t.columns[i].ty) {
                return Err(DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "child table \"{}\" has different type for column \"{}\"",
                        t.name, cd.colname
                    ),
                ));
            }
            notice(
                ctx,
                format!(
                    "merging definition of column \"{}\" for child \"{}\"",
                    cd.colname, t.name
                ),
            );
            Ok(false)
        }
        A::AtDropColumn => {
            Ok(t.column_index(&cmd.name).is_some() && !is_inherited(ctx, t, &cmd.name))
        }
        A::AtDropConstraint => Ok(t.checks.iter().any(|c| c.name == cmd.name)),
        A::AtAlterColumnType
        | A::AtSetNotNull
        | A::AtDropNotNull
        | A::AtColumnDefault
        | A::AtDropExpression
        | A::AtSetStorage => Ok(t.column_index(&cmd.name).is_some()),
        _ => Ok(true),
    }
}

/// What a child may not do on its own to what it inherits: drop or
/// retype an inherited column, drop an inherited CHECK constraint
/// (42P16, PostgreSQL's messages).
pub(super) fn refuse_on_inherited(
    ctx: &StatementCtx,
    t: &TableDef,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    use pb::AlterTableType as A;
    if t.inherits.is_empty() {
        return Ok(());
    }
    let what = match subtype(cmd) {
        A::AtDropColumn if is_inherited(ctx, t, &cmd.name) => {
            format!("cannot drop inherited column \"{}\"", cmd.name)
        }
        A::AtAlterColumnType if is_inherited(ctx, t, &cmd.name) => {
            format!("cannot alter inherited column \"{}\"", cmd.name)
        }
        A::AtDropExpression if is_inherited(ctx, t, &cmd.name) => {
            "cannot drop generation expression from inherited column".to_string()
        }
        A::AtDropConstraint if inherited_check(ctx, t, &cmd.name) => format!(
            "cannot drop inherited constraint \"{}\" of relation \"{}\"",
            cmd.name, t.name
        ),
        _ => return Ok(()),
    };
    Err(DbError::new(SqlState::InvalidTableDefinition, what))
}

fn inherited_check(ctx: &StatementCtx, t: &TableDef, name: &str) -> bool {
    t.inherits.iter().any(|&p| {
        ctx.catalog
            .table_by_oid(p)
            .is_some_and(|p| p.checks.iter().any(|c| c.name == name))
    })
}
