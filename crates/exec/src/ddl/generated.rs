//! Stored generated columns: `col type GENERATED ALWAYS AS (expr) STORED`.
//!
//! A generated column is a [`Column`] with `generated` set whose `default`
//! holds the generation expression as SQL text, as PostgreSQL keeps it in
//! pg_attrdef with `attgenerated = 's'`; so it is logged, checkpointed
//! and recovered with the table definition as a default is (one flag bit
//! of the column record). The planner binds the expressions over the
//! table's row in front of its checks (`nestor_plan::modify::bind_checks`)
//! and every write computes them there (`crate::modify::check_row`): after
//! BEFORE ROW triggers, which see it NULL (INSERT and UPDATE alike),
//! and whose changes to the column are overwritten, as in PostgreSQL.
//!
//! This module holds the DDL side: the clause's own checks, the checks of
//! the expression once the table's columns are known (PostgreSQL's
//! messages, positions and SQLSTATEs), the inheritance rules, DROP
//! EXPRESSION, and what other ALTER TABLE commands must refuse.

use std::sync::Arc;

use nestor_catalog::{Column, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::{NodeEnum, NodeRef};
use nestor_plan::bind::{self, AggCtx, WinCtx};
use nestor_plan::ir::Expr;

use crate::context::StatementCtx;
use crate::executor::eval::Eval;

/// The system columns a generation expression may not read (`tableoid`
/// it may: it is the table's constant OID).
const SYSTEM_COLUMNS: [&str; 5] = ["ctid", "xmin", "xmax", "cmin", "cmax"];

/// The GENERATED ALWAYS AS (expr) STORED clause of column `cd` of
/// `table`: its expression as written.
pub(super) fn constraint(
    text: &str,
    table: &str,
    cd: &pb::ColumnDef,
    con: &pb::Constraint,
    seen: bool,
) -> Result<Node, DbError> {
    let syntax =
        |msg: String| bind::err_at(DbError::new(SqlState::SyntaxError, msg), text, con.location);
    if seen {
        return Err(syntax(format!(
            "multiple generation clauses specified for column \"{}\" of table \"{table}\"",
            cd.colname
        )));
    }
    if con.generated_when != "a" {
        return Err(syntax(
            "for a generated column, GENERATED ALWAYS must be specified".to_string(),
        ));
    }
    con.raw_expr
        .as_deref()
        .cloned()
        .ok_or_else(|| DbError::internal("generated column without expression"))
}

/// A generated column may have no DEFAULT and be no identity column; the
/// error points at the column's last constraint, as PostgreSQL's does.
pub(super) fn refuse_default_or_identity(
    text: &str,
    table: &str,
    cd: &pb::ColumnDef,
    default: bool,
    identity: bool,
) -> Result<(), DbError> {
    let what = match (default, identity) {
        (true, _) => "default",
        (_, true) => "identity",
        _ => return Ok(()),
    };
    let at = cd
        .constraints
        .iter()
        .rev()
        .find_map(|c| match c.node.as_ref() {
            Some(NodeEnum::Constraint(c)) => Some(c.location),
            _ => None,
        })
        .unwrap_or(-1);
    Err(bind::err_at(
        DbError::new(
            SqlState::SyntaxError,
            format!(
                "both {what} and generation expression specified for column \"{}\" of table \"{table}\"",
                cd.colname
            ),
        ),
        text,
        at,
    ))
}

/// Check the generation expression `expr` (as written in `text`) of
/// column `col` of `def`: it may read the table's other columns that are
/// not generated, and `tableoid`, through immutable functions only, and
/// must convert to the column's type. Returns it bound over the row.
pub(super) fn check_expr(
    ctx: &StatementCtx,
    text: &str,
    def: &TableDef,
    col: usize,
    expr: &Node,
) -> Result<Expr, DbError> {
    refuse_references(text, def, expr)?;
    let table = Arc::new(def.clone());
    let mut b = nestor_plan::select::row_binder(ctx.catalog, ctx.eval, text, &table);
    b.agg = AggCtx::NotAllowed("column generation expressions");
    b.window = WinCtx::NotAllowed(
        "window functions are not allowed in column generation expressions",
        SqlState::WindowingError,
    );
    let (e, ty) = b.bind(expr)?;
    if !nestor_plan::select::partition::is_immutable(&e) {
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            "generation expression is not immutable",
        ));
    }
    let c = &def.columns[col];
    b.coerce_assign(e, ty, c.ty).map_err(|e| {
        if e.code != SqlState::DatatypeMismatch {
            return e;
        }
        DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "column \"{}\" is of type {} but default expression is of type {ty}",
                c.name, c.ty
            ),
        )
        .with_hint("You will need to rewrite or cast the expression.")
    })
}

/// What a generation expression may not name, found in the expression as
/// written (so the error points at it): another generated column, a
/// system column other than `tableoid`, the whole row, a subquery.
fn refuse_references(text: &str, def: &TableDef, expr: &Node) -> Result<(), DbError> {
    let Some(n) = expr.node.as_ref() else {
        return Ok(());
    };
    let bare = def.name.rsplit('.').next().unwrap_or(&def.name);
    let at = |e: DbError, loc: i32| bind::err_at(e, text, loc);
    let whole_row = |loc| {
        at(
            DbError::new(
                SqlState::InvalidObjectDefinition,
                "cannot use whole-row variable in column generation expression",
            )
            .with_detail("This would cause the generated column to depend on its own value."),
            loc,
        )
    };
    for (r, ..) in n.nodes() {
        match r {
            NodeRef::SubLink(s) => {
                return Err(at(
                    DbError::new(
                        SqlState::FeatureNotSupported,
                        "cannot use subquery in column generation expression",
                    ),
                    s.location,
                ))
            }
            NodeRef::ColumnRef(c) => {
                let star = c
                    .fields
                    .last()
                    .is_some_and(|f| matches!(f.node, Some(NodeEnum::AStar(_))));
                let names = bind::names(&c.fields);
                let name = match names.as_slice() {
                    [t] if star || (t == bare && def.column_index(t).is_none()) => {
                        return Err(whole_row(c.location))
                    }
                    [t, _] if star && t == bare => return Err(whole_row(c.location)),
                    [n] => n,
                    [t, n] if t == bare => n,
                    _ => continue,
                };
                match def.column_index(name) {
                    Some(i) if def.columns[i].generated => {
                        return Err(at(
                            DbError::new(
                                SqlState::InvalidObjectDefinition,
                                format!(
                                    "cannot use generated column \"{name}\" in column generation expression"
                                ),
                            )
                            .with_detail(
                                "A generated column cannot reference another generated column.",
                            ),
                            c.location,
                        ))
                    }
                    None if SYSTEM_COLUMNS.contains(&name.as_str()) => {
                        return Err(at(
                            DbError::new(
                                SqlState::InvalidColumnReference,
                                format!(
                                    "cannot use system column \"{name}\" in column generation expression"
                                ),
                            ),
                            c.location,
                        ))
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The generated columns of `def` whose expressions read column `col`.
pub(crate) fn dependents(
    ctx: &StatementCtx,
    def: &TableDef,
    col: usize,
) -> Result<Vec<usize>, DbError> {
    nestor_plan::modify::generated_dependents(ctx.catalog, ctx.eval, def, col)
}

/// Merging an inherited column `x` with another parent's column `c` of
/// the same name (PostgreSQL's MergeAttributes).
pub(super) fn merge_parents(x: &Column, c: &Column) -> Result<(), DbError> {
    if x.generated != c.generated {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!("inherited column \"{}\" has a generation conflict", c.name),
        ));
    }
    if x.generated && x.default != c.default {
        return Err(DbError::new(
            SqlState::InvalidColumnDefinition,
            format!(
                "column \"{}\" inherits conflicting generation expressions",
                c.name
            ),
        ));
    }
    Ok(())
}

/// Merging a new table's own column `own` into inherited column `x`: a
/// generated parent column's expression is inherited, not restated, and
/// takes no default; a plain parent column may become generated in the
/// child.
pub(super) fn merge_own(x: &mut Column, own: &Column) -> Result<(), DbError> {
    if !x.generated {
        if own.generated {
            x.generated = true;
            x.default = own.default.clone();
        }
        return Ok(());
    }
    if own.generated {
        return Err(DbError::new(
            SqlState::InvalidColumnDefinition,
            format!("child column \"{}\" specifies generation expression", own.name),
        )
        .with_hint(
            "Omit the generation expression in the definition of the child table column to inherit the generation expression from the parent table.",
        ));
    }
    if own.default.is_some() {
        return Err(DbError::new(
            SqlState::InvalidColumnDefinition,
            format!(
                "column \"{}\" inherits from generated column but specifies default",
                own.name
            ),
        ));
    }
    Ok(())
}

/// ALTER TABLE ... INHERIT: a child column matching a generated parent
/// column must be generated with the same expression.
pub(super) fn check_inherit(parent: &Column, child: &Column) -> Result<(), DbError> {
    if !parent.generated {
        return Ok(());
    }
    if !child.generated {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "column \"{}\" in child table must be a generated column",
                child.name
            ),
        ));
    }
    if child.default != parent.default {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "column \"{}\" in child table has a conflicting generation expression",
                child.name
            ),
        ));
    }
    Ok(())
}

/// `column "x" of relation "t" is a generated column`: what SET DEFAULT,
/// DROP DEFAULT and ALTER TYPE ... USING refuse (42P16).
pub(super) fn is_generated_err(col: &str, table: &str) -> DbError {
    DbError::new(
        SqlState::SyntaxError,
        format!("column \"{col}\" of relation \"{table}\" is a generated column"),
    )
}

/// ADD COLUMN of a generated column, or of one whose default differs row
/// by row (`fill`: a volatile DEFAULT, a serial or identity column's
/// nextval): the table's rows are written again into fresh storage with
/// the column computed (PostgreSQL rewrites the table too), each passing
/// the new definition's checks.
pub(super) fn rewrite(
    ctx: &mut StatementCtx,
    old: &Arc<TableDef>,
    new: TableDef,
    fill: Option<&Expr>,
) -> Result<(), DbError> {
    let new = Arc::new(super::fresh_storage(ctx, &new)?);
    let checks = nestor_plan::modify::bind_checks(ctx.catalog, ctx.eval, &new)?;
    let mut snap = ctx.txn.latest_snapshot();
    snap.cid = nestor_common::CommandId(ctx.txn.cid().0.saturating_add(1));
    let rows: Vec<nestor_storage::Tuple> = old.storage.scan(&snap).collect();
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        nestor_catalog::Change::PutTable {
            def: new.clone(),
            old_storage: Some(old.storage.clone()),
        },
    )?;
    let width = new.columns.len();
    let mut ev = crate::context::Ev::new(ctx, &[]);
    let mut n = 0u32;
    for tuple in rows {
        crate::executor::poll(&ev, &mut n)?;
        // Read as the old definition lays it out (fresh storage has no
        // `missing` values), the new column NULL until computed.
        let mut row = crate::executor::scan_row(tuple, old);
        row.truncate(old.columns.len());
        row.resize(width, nestor_types::Value::Null);
        if let Some(f) = fill {
            let v = f.eval(&[], &mut ev)?;
            row[width - 1] =
                nestor_plan::valops::cast(v, new.columns[width - 1].ty, false, &ev.ctx.eval)?;
        }
        crate::modify::check_row(&new, &checks, &mut row, &mut ev)?;
        new.storage
            .insert(ev.ctx.txn, &row, &ev.ctx.wait)
            .map_err(|e| e.into_db(&|v| nestor_plan::valops::render(v, &ev.ctx.eval)))?;
    }
    Ok(())
}

/// ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION [IF EXISTS]: the
/// column keeps its stored values and becomes a plain column.
pub(super) fn drop_expression(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let pos = super::alter::existing_column(def, &cmd.name)?;
    if !def.columns[pos].generated {
        let msg = format!(
            "column \"{}\" of relation \"{}\" is not a stored generated column",
            cmd.name, def.name
        );
        if cmd.missing_ok {
            super::notice(ctx, format!("{msg}, skipping"));
            return Ok(());
        }
        return Err(DbError::new(SqlState::ObjectNotInPrerequisiteState, msg));
    }
    let mut new = (**def).clone();
    new.columns[pos].generated = false;
    new.columns[pos].default = None;
    super::put_table(ctx, new)
}

/// ALTER COLUMN ... TYPE of column `pos`: refused for a column a
/// generated column reads (PostgreSQL 15 does not re-plan the
/// expression), and with USING for a generated column itself.
pub(super) fn check_alter_type(
    ctx: &StatementCtx,
    def: &Arc<TableDef>,
    pos: usize,
    using: bool,
) -> Result<(), DbError> {
    let name = &def.columns[pos].name;
    if using && def.columns[pos].generated {
        return Err(DbError::new(
            SqlState::InvalidColumnDefinition,
            "cannot specify USING when altering type of generated column",
        )
        .with_detail(format!("Column \"{name}\" is a generated column.")));
    }
    if let Some(&d) = dependents(ctx, def, pos)?.first() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot alter type of a column used by a generated column",
        )
        .with_detail(format!(
            "Column \"{name}\" is used by generated column \"{}\".",
            def.columns[d].name
        )));
    }
    Ok(())
}

/// A BEFORE ROW trigger's WHEN condition may not read NEW's generated
/// columns (they are computed after the trigger), nor the whole NEW row
/// of a table that has some.
pub(super) fn refuse_in_when(text: &str, t: &TableDef, when: &Node) -> Result<(), DbError> {
    if !t.columns.iter().any(|c| c.generated && !c.dropped) {
        return Ok(());
    }
    let Some(n) = when.node.as_ref() else {
        return Ok(());
    };
    for (r, ..) in n.nodes() {
        let NodeRef::ColumnRef(c) = r else {
            continue;
        };
        let names = bind::names(&c.fields);
        if names.first().map(String::as_str) != Some("new") {
            continue;
        }
        let star = c
            .fields
            .get(1)
            .is_some_and(|f| matches!(f.node, Some(NodeEnum::AStar(_))));
        let detail = match names.get(1).and_then(|n| t.column_index(n)) {
            _ if star => "A whole-row reference is used and the table contains generated columns."
                .to_string(),
            Some(i) if t.columns[i].generated => {
                format!("Column \"{}\" is a generated column.", t.columns[i].name)
            }
            _ => continue,
        };
        return Err(bind::err_at(
            DbError::new(
                SqlState::InvalidColumnReference,
                "BEFORE trigger's WHEN condition cannot reference NEW generated columns",
            )
            .with_detail(detail),
            text,
            c.location,
        ));
    }
    Ok(())
}
