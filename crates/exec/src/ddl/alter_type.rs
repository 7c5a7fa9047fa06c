//! ALTER TABLE ... ALTER COLUMN c [SET DATA] TYPE t [USING expr].
//!
//! The order of PostgreSQL's checks and their errors is kept:
//!
//! ```text
//!   transform   USING expr bound over the old row (else the column), then
//!               an assignment cast to t; none exists: 42804 with a HINT
//!   default     re-cast to t (42804 "default for column ... cannot be cast
//!               automatically"); kept as PostgreSQL prints it, so a lone
//!               literal keeps its old type ('5'::text)
//!   dependents  a view reading the column: 0A000 as PostgreSQL; a foreign
//!               key over it: 0A000 (not implemented)
//!   CHECKs      bound again over the new row type (42883 ... if one no
//!               longer binds)
//!   rewrite     fresh storage with fresh (empty) indexes; every row of the
//!               old storage is converted and inserted as this transaction's
//!               own insert: cast failures (22P02 ...), NOT NULL (23502),
//!               CHECKs (23514) and unique indexes (23505 "could not create
//!               unique index") fail the statement
//! ```
//!
//! The rewrite is TRUNCATE's storage swap plus inserts: the new definition
//! (a `PutTable` naming the new storage) is applied before the rows are
//! written, so the commit's redo holds the table record and then the new
//! rows, recovery creates the storage and fills it, and ROLLBACK drops the
//! new storage and puts the old definition (with its untouched rows) back.
//! The old storage is freed at commit. Between string types that keep the
//! stored form (text, varchar, varchar(n)) without USING, rows are only
//! checked against a new length limit, not copied. The rewrite runs under
//! the table's ACCESS EXCLUSIVE lock, so no other transaction has
//! uncommitted rows in the old storage.

use std::sync::Arc;

use nestor_catalog::{Change, Sequence, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{AggCtx, Binder};
use nestor_plan::functions::Func;
use nestor_plan::ir::Expr;
use nestor_types::cast::{coercion, Coercion};
use nestor_types::{DataType, Value};

use super::alter::existing_column;
use crate::context::{Ev, StatementCtx};
use crate::executor::eval::{truthy, Eval};
use crate::pg_catalog::quote_ident;

pub(super) fn alter_column_type(
    ctx: &mut StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let pos = existing_column(def, &cmd.name)?;
    if let Some(i) = def.indexes.iter().find(|i| {
        i.exprs.is_some()
            && nestor_plan::select::index_expr::columns_read(ctx.catalog, def, i).contains(&pos)
    }) {
        let what = if i.method == nestor_catalog::AccessMethod::Gin {
            "GIN"
        } else {
            "expression or partial"
        };
        return Err(DbError::unsupported(format!(
            "ALTER COLUMN TYPE of a column that {what} index \"{}\" uses",
            i.name
        )));
    }
    let Some(NodeEnum::ColumnDef(cd)) = cmd
        .def
        .as_deref()
        .map(nestor_parser::ast::node)
        .transpose()?
    else {
        return Err(DbError::internal("ALTER COLUMN TYPE without a type"));
    };
    if cd.coll_clause.is_some() {
        return Err(DbError::unsupported("ALTER COLUMN TYPE ... COLLATE"));
    }
    let tn = cd
        .type_name
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER COLUMN TYPE without a type"))?;
    if nestor_plan::bind::domain::domain_from_name(tn).is_some() {
        return Err(DbError::unsupported("ALTER COLUMN TYPE to a domain"));
    }
    let new_ty = nestor_plan::bind::type_from_name(tn)?;
    let col = &def.columns[pos];
    let old_ty = col.ty;
    let using = cd.raw_default.as_deref();
    super::generated::check_alter_type(ctx, def, pos, using.is_some())?;
    if using.is_none() && new_ty == old_ty {
        // PostgreSQL refuses it all the same (it rebuilds what reads the
        // column whatever the new type).
        refuse_if_views_read(ctx, def, pos)?;
        if col.domain.is_some() {
            // From a domain to its base type: the values stay.
            let mut new = (**def).clone();
            new.columns[pos].domain = None;
            return super::put_table(ctx, new);
        }
        return Ok(());
    }
    if def.identity(pos).is_some()
        && !matches!(new_ty, DataType::Int2 | DataType::Int4 | DataType::Int8)
    {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "identity column type must be smallint, integer, or bigint",
        ));
    }

    // The transform: USING over the old row, or the column itself.
    let transform = {
        let mut b = nestor_plan::select::row_binder(ctx.catalog, ctx.eval, text, def);
        b.agg = AggCtx::NotAllowed("transform expressions");
        let (e, from) = match using {
            Some(u) => {
                let (e, t) = b.bind(u)?;
                if contains_subquery(&e) {
                    return Err(at(
                        DbError::new(
                            SqlState::FeatureNotSupported,
                            "cannot use subquery in transform expression",
                        ),
                        text,
                        u,
                    ));
                }
                (e, t)
            }
            None => (Expr::Col(pos), old_ty),
        };
        if !automatic(from, new_ty) {
            let err = match using {
                Some(_) => DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "result of USING clause for column \"{}\" cannot be cast automatically to type {}",
                        col.name,
                        new_ty.name()
                    ),
                )
                .with_hint("You might need to add an explicit cast."),
                None => DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "column \"{}\" cannot be cast automatically to type {}",
                        col.name,
                        new_ty.name()
                    ),
                )
                .with_hint(format!(
                    "You might need to specify \"USING {}::{new_ty}\".",
                    quote_ident(&col.name)
                )),
            };
            return Err(err);
        }
        if from == DataType::Unknown {
            // A literal converted now: PostgreSQL gives no position.
            b.coerce_assign(e, from, new_ty).map_err(|mut e| {
                e.position = None;
                e
            })?
        } else if from == new_ty {
            e
        } else {
            Expr::Func(Func::AssignCast(new_ty), vec![e])
        }
    };

    // Each index on the column is rebuilt for the new type, which needs
    // an operator class of its method (a hash index on a column becoming
    // money: PostgreSQL's 42704).
    for i in def.indexes.iter().filter(|i| i.columns.contains(&pos)) {
        super::index_am::check_key_type(i.method, new_ty)?;
        // The key's own collation and class must take the new type too.
        for (k, _) in i.columns.iter().enumerate().filter(|(_, &c)| c == pos) {
            super::index_am::check_retyped_key(&i.key_opt(k), new_ty)?;
        }
    }

    // The default, as PostgreSQL stored it, must cast to the new type.
    let default = match &col.default {
        Some(_) if def.identity(pos).is_none() && !col.generated => {
            let shown = crate::pg_catalog::default_text(def, pos);
            if let Some(d) = &shown {
                let node = nestor_parser::parse_expr(d)?;
                let mut b = Binder::new(
                    ctx.catalog,
                    ctx.eval,
                    d,
                    &[],
                    nestor_plan::select::plan_query,
                );
                b.scopes.push(nestor_plan::bind::Scope::default());
                b.outer_refs.push(None);
                let (_, t) = b.bind(&node)?;
                if !automatic(t, new_ty) {
                    return Err(DbError::new(
                        SqlState::DatatypeMismatch,
                        format!(
                            "default for column \"{}\" cannot be cast automatically to type {}",
                            col.name,
                            new_ty.name()
                        ),
                    ));
                }
            }
            shown
        }
        other => other.clone(),
    };

    refuse_if_views_read(ctx, def, pos)?;
    let own_fk = def.foreign_keys.iter().find(|f| f.columns.contains(&pos));
    let other_fk = ctx
        .catalog
        .referencing(def.oid)
        .into_iter()
        .find(|(_, f)| f.parent_columns.contains(&pos))
        .map(|(_, f)| f);
    if let Some(fk) = own_fk.cloned().or(other_fk) {
        return Err(DbError::unsupported(format!(
            "ALTER COLUMN TYPE of column \"{}\", which foreign key constraint \"{}\" uses,",
            col.name, fk.name
        )));
    }

    let keeps_form = using.is_none()
        && old_ty.is_string()
        && new_ty.is_string()
        && !matches!(old_ty, DataType::Char(_))
        && !matches!(new_ty, DataType::Char(_));
    // The statement holds the table's ACCESS EXCLUSIVE lock, so every
    // transaction that wrote to it has ended: its rows are committed (and
    // copied below) or gone.
    debug_assert!(
        keeps_form || def.storage.running_writers(ctx.txn.xid()).is_empty(),
        "a rewrite under ACCESS EXCLUSIVE finds no running writer"
    );
    let mut new = if keeps_form {
        (**def).clone()
    } else {
        super::fresh_storage(ctx, def)?
    };
    new.columns[pos].ty = new_ty;
    new.columns[pos].domain = None;
    new.columns[pos].default = default;
    let new = Arc::new(new);
    // CHECK constraints must bind over the new row type.
    // (Their text is not the statement's: no position.)
    let mut checks =
        nestor_plan::modify::bind_checks(ctx.catalog, ctx.eval, &new).map_err(|mut e| {
            e.position = None;
            e
        })?;
    // A NOT VALID CHECK stays unchecked on the rewritten rows, as
    // PostgreSQL re-adds it NOT VALID after the rewrite.
    checks.retain(|c| !new.not_valid.contains(&c.name));
    // A generated column keeps its values, converted (its expression
    // reads no column whose type changes: `check_alter_type`).
    checks.retain(|c| c.generated.is_none());
    if def.identity(pos).is_some() {
        retype_identity_sequence(ctx, def, pos, old_ty, new_ty)?;
    }

    let mut snap = ctx.txn.latest_snapshot();
    snap.cid = nestor_common::CommandId(ctx.txn.cid().0.saturating_add(1));
    let rows: Vec<nestor_storage::Tuple> = def.storage.scan(&snap).collect();
    let width = def.columns.len();
    if keeps_form {
        let mut ev = Ev::new(ctx, &[]);
        for tuple in rows {
            let row = crate::executor::scan_row(tuple, def);
            transform.eval(&row, &mut ev)?;
        }
        return super::put_table(ctx, (*new).clone());
    }
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutTable {
            def: new.clone(),
            old_storage: Some(def.storage.clone()),
        },
    )?;
    let mut ev = Ev::new(ctx, &[]);
    let mut n = 0u32;
    for tuple in rows {
        crate::executor::poll(&ev, &mut n)?;
        let old = crate::executor::scan_row(tuple, def);
        let v = transform.eval(&old, &mut ev)?;
        let mut row = old;
        row.truncate(width);
        row[pos] = v;
        for (k, c) in new.columns.iter().enumerate() {
            if c.dropped {
                row[k] = Value::Null;
            } else if c.not_null && row[k].is_null() {
                return Err(DbError::new(
                    SqlState::NotNullViolation,
                    format!(
                        "column \"{}\" of relation \"{}\" contains null values",
                        c.name, new.name
                    ),
                )
                .with_table(new.name.as_str())
                .with_schema(new.storage.schema())
                .with_column(c.name.as_str()));
            }
        }
        for ch in &checks {
            if truthy(&ch.expr.eval(&row, &mut ev)?) == Some(false) {
                return Err(DbError::new(
                    SqlState::CheckViolation,
                    format!(
                        "check constraint \"{}\" of relation \"{}\" is violated by some row",
                        ch.name, new.name
                    ),
                )
                .with_table(new.name.as_str())
                .with_schema(new.storage.schema())
                .with_constraint(ch.name.as_str()));
            }
        }
        let r = new.storage.insert(ev.ctx.txn, &row, &ev.ctx.wait);
        r.map_err(|e| unique_failure(e, &ev))?;
    }
    Ok(())
}

/// Whether PostgreSQL casts `from` to `to` in an assignment.
fn automatic(from: DataType, to: DataType) -> bool {
    matches!(
        coercion(from, to),
        Some(Coercion::Implicit | Coercion::Assignment)
    )
}

fn contains_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Sub(_)));
    found
}

/// An error placed at a node of the statement text.
fn at(e: DbError, text: &str, n: &pb::Node) -> DbError {
    match nestor_parser::ast::node(n) {
        Ok(ne) => nestor_parser::ast::err_at(e, text, nestor_parser::ast::expr_location(ne)),
        Err(_) => e,
    }
}

/// 0A000 when a view reads column `pos` of `def` (PostgreSQL's
/// dependency on it from the view's `_RETURN` rule), or a column of
/// another table holds values of `def`'s row type (their stored values
/// would keep the old type: PostgreSQL refuses that too).
fn refuse_if_views_read(
    ctx: &StatementCtx,
    def: &nestor_catalog::TableDef,
    pos: usize,
) -> Result<(), DbError> {
    if let Some(v) = super::view::view_reading_column(ctx, def, pos)? {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot alter type of a column used by a view or rule",
        )
        .with_detail(format!(
            "rule _RETURN on view {} depends on column \"{}\"",
            v.name, def.columns[pos].name
        )));
    }
    if let Some((t, c)) = column_of_row_type(ctx, def) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!(
                "cannot alter table \"{}\" because column \"{}.{}\" uses its row type",
                def.name, t.name, t.columns[c].name
            ),
        ));
    }
    Ok(())
}

/// The first live column (table, position) whose values hold values of
/// table `def`'s row type (`CREATE TABLE u (y t)`), in creation order.
pub(super) fn column_of_row_type(
    ctx: &StatementCtx,
    def: &nestor_catalog::TableDef,
) -> Option<(Arc<TableDef>, usize)> {
    let mut tables = ctx.catalog.tables();
    tables.sort_by_key(|t| t.oid.0);
    tables.into_iter().find_map(|t| {
        let c = t
            .live_columns()
            .find(|(_, c)| super::composite::uses(c.ty, def.oid.0))
            .map(|(i, _)| i)?;
        Some((t, c))
    })
}

/// Two rewritten rows with the same key: PostgreSQL reports it as the
/// index build failing.
fn unique_failure(e: nestor_storage::StorageError, ev: &Ev) -> DbError {
    let render = |v: &Value| nestor_plan::valops::render(v, &ev.ctx.eval);
    match e {
        nestor_storage::StorageError::UniqueViolation {
            schema,
            table,
            constraint,
            columns,
            key,
        } => DbError::new(
            SqlState::UniqueViolation,
            format!("could not create unique index \"{constraint}\""),
        )
        .with_detail(format!(
            "Key ({})=({}) is duplicated.",
            columns.join(", "),
            key.iter().map(render).collect::<Vec<_>>().join(", ")
        ))
        .with_table(table)
        .with_schema(schema)
        .with_constraint(constraint),
        e => e.into_db(&render),
    }
}

/// An identity column's sequence follows its type, as PostgreSQL's
/// `ALTER SEQUENCE ... AS`: a bound that was the old type's limit becomes
/// the new type's.
fn retype_identity_sequence(
    ctx: &mut StatementCtx,
    def: &TableDef,
    pos: usize,
    old_ty: DataType,
    new_ty: DataType,
) -> Result<(), DbError> {
    let col = &def.columns[pos].name;
    let Some(seq) = def
        .owned_sequences
        .iter()
        .filter_map(|s| ctx.catalog.sequence(s))
        .find(|s| {
            s.owned_by
                .as_ref()
                .is_some_and(|(t, c)| *t == def.name && c == col)
        })
    else {
        return Ok(());
    };
    let limits = |t: DataType| match t {
        DataType::Int2 => (i16::MIN as i64, i16::MAX as i64),
        DataType::Int4 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    let (old_min, old_max) = limits(old_ty);
    let (new_min, new_max) = limits(new_ty);
    let mut max = seq.max;
    let mut min = seq.min;
    if max == old_max || max > new_max {
        max = new_max;
    }
    if min == old_min || min < new_min {
        min = new_min;
    }
    let type_oid = super::seq_params::oid_of(new_ty).unwrap_or(seq.type_oid);
    if max == seq.max && min == seq.min && type_oid == seq.type_oid {
        return Ok(());
    }
    let mut next: Sequence = seq.with_owner(seq.owned_by.clone());
    next.max = max;
    next.min = min;
    next.type_oid = type_oid;
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSequence(Arc::new(next)))
}
