//! CREATE [UNIQUE] INDEX with key expressions or a WHERE predicate (an
//! expression or partial index): the keys and the predicate are bound
//! over the table's row with PostgreSQL's checks
//! (`nestor_plan::select::index_expr::bind_part`), kept in the catalog as SQL text
//! (`IndexExprs`), and the storage index gets their key function before it
//! is filled from the existing rows. Names follow PostgreSQL's
//! ChooseIndexName: `t_lower_idx`, `t_expr_idx`, `t_a_expr_idx`. A key
//! expression's top-level COLLATE is stripped and becomes the key's
//! collation, as ComputeIndexAttrs does (`(b COLLATE "C")` is the column
//! `b` under "C"); each key's options are resolved by
//! `index_am::key_opt`.

use std::sync::Arc;

use nestor_catalog::{AccessMethod, IndexDef, IndexExprs, IndexKey, Persistence, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::node;
use nestor_plan::select::index_expr::{self, Part};
use nestor_storage::Index;

use crate::context::StatementCtx;

use super::{exists_err, fresh_name};

/// Whether CREATE INDEX makes a computed index.
pub(super) fn is_computed(is: &pb::IndexStmt) -> bool {
    is.where_clause.is_some()
        || is
            .index_params
            .iter()
            .any(|p| matches!(node(p), Ok(NodeEnum::IndexElem(ie)) if ie.name.is_empty()))
}

/// The definition of a computed index on `def` (not yet attached).
pub(super) fn make(
    ctx: &StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    is: &pb::IndexStmt,
    method: AccessMethod,
) -> Result<IndexDef, DbError> {
    let mut keys = Vec::new();
    let mut name_parts = Vec::new();
    let mut gin = Vec::new();
    let mut gin_types = Vec::new();
    let mut keyopts = Vec::new();
    let gin_method = method == AccessMethod::Gin;
    for p in &is.index_params {
        let NodeEnum::IndexElem(ie) = node(p)? else {
            continue;
        };
        if !ie.name.is_empty() {
            let pos = def.column_index(&ie.name).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{}\" does not exist", ie.name),
                )
            })?;
            if gin_method {
                gin.push(super::index_am::gin_class(ie, def.columns[pos].ty)?);
                gin_types.push(def.columns[pos].ty);
            }
            keyopts.push(super::index_am::key_opt(method, ie, def.columns[pos].ty)?);
            keys.push(IndexKey::Column(pos));
            name_parts.push(ie.name.clone());
            continue;
        }
        let Some(expr) = ie.expr.as_deref() else {
            return Err(DbError::internal(
                "index element without column or expression",
            ));
        };
        let (expr, elem, collate_at) = strip_collate(expr, ie)?;
        let ie = &elem;
        let (bound, ty) = index_expr::bind_part(ctx.catalog, ctx.eval, text, def, expr, Part::Key)?;
        if gin_method {
            gin.push(super::index_am::gin_class(ie, ty)?);
            gin_types.push(ty);
        } else {
            super::index_am::check_key_type(method, ty)?;
        }
        // A COLLATE of the expression is an error at its place, as
        // PostgreSQL's transformCollateClause reports it.
        let opt = super::index_am::key_opt(method, ie, ty).map_err(|e| match collate_at {
            Some(at) => bind_err_at(e, text, at),
            None => e,
        })?;
        keyopts.push(opt);
        // `((a))` is the column, as in PostgreSQL; `f(a)` stays a call even
        // when the SQL function inlines to its argument.
        let called = index_expr::calls_user_function(ctx.catalog, expr);
        if let (nestor_plan::ir::Expr::Col(c), false) = (&bound, called) {
            let c = *c;
            keys.push(IndexKey::Column(c));
            name_parts.push(def.columns[c].name.clone());
            continue;
        }
        keys.push(IndexKey::Expr(index_expr::render(
            ctx.catalog,
            def,
            &bound,
            Part::Key,
            expr,
        )?));
        name_parts.push(index_expr::default_name_part(expr));
    }
    let predicate = match is.where_clause.as_deref() {
        None => None,
        Some(w) => {
            let (bound, _) =
                index_expr::bind_part(ctx.catalog, ctx.eval, text, def, w, Part::Predicate)?;
            Some(index_expr::render(
                ctx.catalog,
                def,
                &bound,
                Part::Predicate,
                w,
            )?)
        }
    };
    // After every key's class (ComputeIndexAttrs), as the build
    // (initGinState) finds them.
    for (class, ty) in gin.iter().zip(&gin_types) {
        super::index_am::check_gin_elements(*class, *ty)?;
    }
    let options = if gin_method {
        super::index_am::option_values(is)?
    } else {
        Vec::new()
    };
    let exprs = IndexExprs {
        keys,
        predicate,
        gin,
        options,
    };
    super::index_am::check_elem_options(is, def)?;
    let keyopts = super::index_am::normalized(keyopts);
    let order: Vec<_> = keyopts.iter().map(|o| o.key_order()).collect();
    let name = index_name(ctx, def, is, &name_parts)?;
    let oid = ctx.catalog.alloc_oid();
    // A GIN index is always computed: its keys are sets (module header
    // of nestor_plan::select::gin).
    if exprs.predicate.is_none() && !gin_method {
        // Columns only after all (`((a))`): a plain index.
        let columns: Vec<usize> = exprs.key_columns().collect();
        if columns.len() == exprs.keys.len() {
            let names = columns
                .iter()
                .map(|&c| def.columns[c].name.clone())
                .collect();
            let index = Index::new(oid, &name, columns.clone(), names, is.unique, false)
                .with_nulls_not_distinct(is.nulls_not_distinct)
                .with_fill(def.index_fill())
                .with_order(&order);
            return Ok(IndexDef {
                oid,
                name,
                columns,
                unique: is.unique,
                primary: false,
                constraint: false,
                exprs: None,
                method,
                keyopts,
                index: Arc::new(index),
            });
        }
    }
    let key_names = index_expr::key_names(&exprs, def);
    let index = Arc::new(
        Index::computed(oid, &name, key_names, is.unique)
            .with_nulls_not_distinct(is.nulls_not_distinct)
            .with_fill(def.index_fill())
            .with_multi(gin_method)
            .with_order(&order),
    );
    Ok(IndexDef {
        oid,
        name,
        columns: Vec::new(),
        unique: is.unique,
        primary: false,
        constraint: false,
        exprs: Some(Arc::new(exprs)),
        method,
        keyopts,
        index,
    })
}

/// A key expression without its top-level COLLATE clauses (`(x COLLATE
/// "C")` is `x COLLATE "C"`, as ComputeIndexAttrs strips them), and its
/// element with the outermost one's collation when it names none of its
/// own (and that clause's location).
fn strip_collate<'e>(
    mut expr: &'e pb::Node,
    ie: &pb::IndexElem,
) -> Result<(&'e pb::Node, pb::IndexElem, Option<i32>), DbError> {
    let mut collation = None;
    while let NodeEnum::CollateClause(cc) = node(expr)? {
        collation.get_or_insert_with(|| (cc.collname.clone(), cc.location));
        let Some(arg) = cc.arg.as_deref() else {
            break;
        };
        expr = arg;
    }
    let mut elem = ie.clone();
    elem.expr = None;
    let mut at = None;
    if let (true, Some((names, location))) = (elem.collation.is_empty(), collation) {
        elem.collation = names;
        at = Some(location);
    }
    Ok((expr, elem, at))
}

fn bind_err_at(e: DbError, text: &str, location: i32) -> DbError {
    nestor_parser::ast::err_at(e, text, location)
}

/// The index's name: as given (42P07 if taken), else PostgreSQL's
/// `table_part_part_idx`, numbered past names in use.
fn index_name(
    ctx: &StatementCtx,
    def: &TableDef,
    is: &pb::IndexStmt,
    parts: &[String],
) -> Result<String, DbError> {
    let q = |n: &str| ctx.catalog.qualify(def.namespace, n);
    let taken: Vec<String> = def.indexes.iter().map(|i| q(&i.name)).collect();
    let temporary = def.persistence == Persistence::Temporary;
    let name = if is.idxname.is_empty() {
        let base = format!("{}_{}_idx", def.name, parts.join("_"));
        fresh_name(ctx, &q(&base), &taken, temporary)
    } else {
        let n = q(&is.idxname);
        if ctx.catalog.name_taken_in(&n, temporary) || taken.contains(&n) {
            return Err(exists_err(&is.idxname));
        }
        n
    };
    Ok(ctx.catalog.unqualified(&name).to_string())
}
