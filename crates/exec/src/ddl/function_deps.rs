//! The objects whose SQL calls a function, for DROP FUNCTION.
//!
//! PostgreSQL records a dependency (pg_depend) from each default, CHECK
//! constraint, generated column, partition key, index, view, policy and
//! domain constraint on every function its expressions call, so DROP
//! FUNCTION fails with 2BP01 listing them, and CASCADE drops them. Nestor keeps
//! those expressions as SQL text, so the dependency is found there: a call
//! `f(...)` (any schema prefix) whose argument count the function accepts
//! (its inputs less those with defaults, up to all of them, any number
//! past a VARIADIC).
//!
//! ```text
//!   CREATE FUNCTION f1(int) ...;  CREATE TABLE t (a int CHECK (f1(a) > 0));
//!   DROP FUNCTION f1(int);
//!   ERROR:  cannot drop function f1(integer) because other objects depend on it
//!   DETAIL:  constraint t_a_check on table t depends on function f1(integer)
//! ```
//!
//! A call is only taken for this function when no other function of the
//! same name accepts that many arguments: telling overloads apart would
//! need the argument types, which only binding the expression gives, so an
//! ambiguous call is not counted (the DROP goes ahead, as before).
//! CASCADE removes defaults, CHECKs, policies and domain constraints,
//! drops generated columns, indexes and views; a partitioned table or materialized
//! view that depends on the function is not dropped by it (0A000).

use std::sync::Arc;

use nestor_catalog::{FunctionDef, TableDef, ViewDef};
use nestor_common::{DbError, SqlState};

use crate::context::StatementCtx;

/// An object whose SQL calls the function.
pub(super) enum Dep {
    Default(Arc<TableDef>, usize),
    Generated(Arc<TableDef>, usize),
    Check(Arc<TableDef>, String),
    Policy(Arc<TableDef>, String),
    PartitionKey(Arc<TableDef>),
    Index(Arc<TableDef>, String),
    MatView(Arc<TableDef>),
    View(Arc<ViewDef>),
    DomainCheck(u32, String),
}

impl Dep {
    /// PostgreSQL's getObjectDescription of it.
    pub(super) fn describe(&self) -> String {
        match self {
            Dep::Default(t, c) => format!(
                "default value for column {} of table {}",
                t.columns[*c].name, t.name
            ),
            Dep::Generated(t, c) => format!("column {} of table {}", t.columns[*c].name, t.name),
            Dep::Check(t, name) => format!("constraint {name} on table {}", t.name),
            Dep::Policy(t, name) => format!("policy {name} on table {}", t.name),
            Dep::PartitionKey(t) => format!("table {}", t.name),
            Dep::Index(_, name) => format!("index {name}"),
            Dep::MatView(t) => format!("materialized view {}", t.name),
            Dep::View(v) => format!("view {}", v.name),
            Dep::DomainCheck(_, name) => format!("constraint {name}"),
        }
    }
}

/// The argument counts a call of `f` may have: (least, most or None for
/// any number).
fn arity(f: &FunctionDef) -> (usize, Option<usize>) {
    use nestor_catalog::ArgMode;
    let inputs: Vec<_> = f.args.iter().filter(|a| a.mode.is_input()).collect();
    let least = inputs.iter().filter(|a| a.default.is_none()).count();
    let variadic = inputs.iter().any(|a| a.mode == ArgMode::Variadic);
    (least, (!variadic).then_some(inputs.len()))
}

fn accepts(f: &FunctionDef, n: usize) -> bool {
    let (least, most) = arity(f);
    n >= least && most.is_none_or(|m| n <= m)
}

/// The objects whose SQL calls `f` (see the module header).
pub(super) fn dependents(ctx: &StatementCtx, f: &FunctionDef) -> Vec<Dep> {
    let others: Vec<Arc<FunctionDef>> = ctx
        .catalog
        .all_functions()
        .into_iter()
        .filter(|g| g.name == f.name && g.oid != f.oid)
        .collect();
    let calls_f = |sql: &str| -> bool {
        let Ok(stmts) = nestor_parser::parse_sql(sql) else {
            return false;
        };
        let Ok(json) = serde_json::to_value(&stmts) else {
            return false;
        };
        nestor_plan::select::index_expr::function_calls(&json)
            .into_iter()
            .filter(|(name, _)| *name == f.name)
            .any(|(_, n)| accepts(f, n) && !others.iter().any(|g| accepts(g, n)))
    };
    let calls_expr = |e: &str| calls_f(&format!("SELECT {e}"));
    // In creation order, as PostgreSQL's pg_depend scan lists them.
    let mut tables = ctx.catalog.tables();
    tables.sort_by_key(|t| t.oid.0);
    let mut views = ctx.catalog.views();
    views.sort_by_key(|v| v.oid.0);
    let mut domains = ctx.catalog.domains();
    domains.sort_by_key(|d| d.oid);
    let mut out = Vec::new();
    for t in tables {
        for (i, c) in t.columns.iter().enumerate() {
            match &c.default {
                Some(d) if !c.dropped && calls_expr(d) => out.push(if c.generated {
                    Dep::Generated(t.clone(), i)
                } else {
                    Dep::Default(t.clone(), i)
                }),
                _ => {}
            }
        }
        for c in &t.checks {
            if calls_expr(&c.expr) {
                out.push(Dep::Check(t.clone(), c.name.clone()));
            }
        }
        for p in &t.row_security.policies {
            if p.qual.iter().chain(p.check.iter()).any(|e| calls_expr(e)) {
                out.push(Dep::Policy(t.clone(), p.name.clone()));
            }
        }
        let key_calls = t.partition_key.as_ref().is_some_and(|k| {
            k.parts.iter().any(|p| match p {
                nestor_catalog::partition::KeyPart::Expr(e) => calls_expr(&e.sql),
                _ => false,
            })
        });
        if key_calls {
            out.push(Dep::PartitionKey(t.clone()));
        }
        for i in &t.indexes {
            let Some(x) = &i.exprs else { continue };
            let keys = x.keys.iter().filter_map(|k| match k {
                nestor_catalog::IndexKey::Expr(e) => Some(e.as_str()),
                nestor_catalog::IndexKey::Column(_) => None,
            });
            if keys.chain(x.predicate.as_deref()).any(calls_expr) {
                out.push(Dep::Index(t.clone(), i.name.clone()));
            }
        }
        if t.matview.as_ref().is_some_and(|m| calls_f(&m.query)) {
            out.push(Dep::MatView(t.clone()));
        }
    }
    for v in views {
        if calls_f(&v.query) {
            out.push(Dep::View(v));
        }
    }
    for d in domains {
        for c in &d.checks {
            if calls_expr(&c.expr) {
                out.push(Dep::DomainCheck(d.oid, c.name.clone()));
            }
        }
    }
    out
}

/// DROP FUNCTION ... CASCADE: remove what `deps` name.
pub(super) fn drop_all(ctx: &mut StatementCtx, deps: Vec<Dep>) -> Result<(), DbError> {
    for d in deps {
        match d {
            Dep::Default(t, c) => {
                let Some(cur) = ctx.catalog.table_by_oid(t.oid) else {
                    continue;
                };
                let mut def = (*cur).clone();
                def.columns[c].default = None;
                super::put_table(ctx, def)?;
            }
            Dep::Check(t, name) => {
                let Some(cur) = ctx.catalog.table_by_oid(t.oid) else {
                    continue;
                };
                let mut def = (*cur).clone();
                def.checks.retain(|c| c.name != name);
                super::put_table(ctx, def)?;
            }
            Dep::Policy(t, name) => {
                let Some(cur) = ctx.catalog.table_by_oid(t.oid) else {
                    continue;
                };
                let mut def = (*cur).clone();
                def.row_security.policies.retain(|p| p.name != name);
                super::put_table(ctx, def)?;
            }
            Dep::Generated(t, c) => {
                let Some(cur) = ctx.catalog.table_by_oid(t.oid) else {
                    continue;
                };
                super::alter::drop_column_at(ctx, &cur, c)?;
            }
            Dep::Index(t, name) => {
                let index = ctx.catalog.qualify(t.namespace, &name);
                super::drop_index(ctx, &index)?;
            }
            Dep::View(v) => {
                let name = ctx.catalog.qualify(v.namespace, &v.name);
                super::view::drop_view(ctx, &name, &[], true)?;
            }
            Dep::DomainCheck(oid, name) => super::domain::drop_check_cascaded(ctx, oid, &name)?,
            d @ (Dep::PartitionKey(_) | Dep::MatView(_)) => {
                return Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    format!(
                        "DROP FUNCTION ... CASCADE does not drop {}: drop it first",
                        d.describe()
                    ),
                ))
            }
        }
    }
    Ok(())
}
