//! What depends on a table column, for ALTER TABLE ... DROP COLUMN.
//!
//! PostgreSQL records in pg_depend that a view's `_RETURN` rule, a
//! materialized view, another table's foreign key, a trigger (its `UPDATE
//! OF` list or its WHEN condition) and a rule (its condition or actions)
//! use a column, so DROP COLUMN fails with 2BP01 naming them, and CASCADE
//! drops them:
//!
//! ```text
//!   CREATE TABLE parent (a int PRIMARY KEY);
//!   CREATE TABLE child (c int REFERENCES parent (a));
//!   ALTER TABLE parent DROP COLUMN a;
//!   ERROR:  cannot drop column a of table parent because other objects depend on it
//!   DETAIL:  constraint child_c_fkey on table child depends on column a of table parent
//!   ALTER TABLE parent DROP COLUMN a CASCADE;
//!   NOTICE:  drop cascades to constraint child_c_fkey on table child
//! ```
//!
//! Nestor keeps views as text with the columns they read recorded
//! (`ViewDef::column_deps`, see view.rs); materialized views' queries are
//! planned again to see what they read (matview.rs); triggers' WHEN
//! conditions and rules' SQL are searched for `NEW.col` / `OLD.col`, the
//! only way they can name the table's columns. Those dependents are listed
//! in creation order (their OIDs, as PostgreSQL's dependency scan mostly
//! gives them), each view followed by the views over it. What goes with the
//! column on its own (indexes, CHECKs over it, its own foreign keys) is
//! `alter::drop_column_at`'s; generated columns and policies reading it are
//! checked before this (alter.rs, policy.rs).

use std::sync::Arc;

use nestor_catalog::{ForeignKey, TableDef, ViewDef};
use nestor_common::DbError;

use crate::context::StatementCtx;

/// An object that depends on the column.
enum Dependent {
    /// A view reading it, and the views over that view: (view, DETAIL
    /// line) each.
    Views(Vec<(Arc<ViewDef>, String)>),
    MatView(Arc<TableDef>),
    /// Another table's foreign key referencing it.
    ForeignKey(Arc<TableDef>, ForeignKey),
    Trigger(String),
    Rule(String),
}

/// The dependents of column `pos` of `t`, each with its OID (the order to
/// list them in).
fn dependents(
    ctx: &StatementCtx,
    t: &TableDef,
    pos: usize,
) -> Result<Vec<(u32, Dependent)>, DbError> {
    let mut out: Vec<(u32, Dependent)> = Vec::new();
    // Views, each with the views over it.
    for group in super::view::view_groups_on_column(ctx, t, pos)? {
        out.push((group[0].0.oid.0, Dependent::Views(group)));
    }
    for m in super::matview::reading_column(ctx, t, pos)? {
        out.push((m.oid.0, Dependent::MatView(m)));
    }
    for (child, fk) in ctx.catalog.referencing(t.oid) {
        // A table's own key over the column goes with the column.
        let own = child.oid == t.oid && fk.columns.contains(&pos);
        if fk.parent == t.oid && fk.parent_columns.contains(&pos) && !own {
            out.push((fk.oid.0, Dependent::ForeignKey(child, fk)));
        }
    }
    let column = &t.columns[pos].name;
    for tr in &t.triggers {
        let when = match &tr.when {
            Some(w) => names_new_or_old(&format!("SELECT {w}"), column)?,
            None => false,
        };
        if tr.columns.contains(column) || when {
            out.push((tr.oid.0, Dependent::Trigger(tr.name.clone())));
        }
    }
    for r in &t.rules {
        let mut reads = match &r.qual {
            Some(q) => names_new_or_old(&format!("SELECT {q}"), column)?,
            None => false,
        };
        for a in &r.actions {
            reads = reads || names_new_or_old(a, column)?;
        }
        if reads {
            out.push((r.oid.0, Dependent::Rule(r.name.clone())));
        }
    }
    out.sort_by_key(|(oid, _)| *oid);
    Ok(out)
}

fn column_name(t: &TableDef, pos: usize) -> String {
    format!("column {} of table {}", t.columns[pos].name, t.name)
}

/// Whether SQL text has a column reference `NEW.column` or `OLD.column`.
fn names_new_or_old(sql: &str, column: &str) -> Result<bool, DbError> {
    let json = serde_json::to_value(nestor_parser::parse_sql(sql)?)
        .map_err(|e| DbError::internal(format!("SQL as JSON: {e}")))?;
    Ok(has_new_or_old(&json, column))
}

fn has_new_or_old(v: &serde_json::Value, column: &str) -> bool {
    use serde_json::Value as J;
    match v {
        J::Object(map) => map.iter().any(|(k, child)| {
            if k == "ColumnRef" {
                let names: Vec<&str> = child
                    .get("fields")
                    .and_then(J::as_array)
                    .map(|f| f.as_slice())
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|f| f.pointer("/node/String/sval").and_then(J::as_str))
                    .collect();
                if let [rel, col] = names.as_slice() {
                    let rel = rel.to_ascii_lowercase();
                    if (rel == "new" || rel == "old") && *col == column {
                        return true;
                    }
                }
            }
            has_new_or_old(child, column)
        }),
        J::Array(items) => items.iter().any(|i| has_new_or_old(i, column)),
        _ => false,
    }
}

/// DROP COLUMN of column `pos` of `t` [CASCADE]: 2BP01 naming what
/// depends on it, or (CASCADE) those go first, in one NOTICE.
pub(super) fn drop_dependents(
    ctx: &mut StatementCtx,
    t: &TableDef,
    pos: usize,
    cascade: bool,
) -> Result<(), DbError> {
    let deps = dependents(ctx, t, pos)?;
    if deps.is_empty() {
        return Ok(());
    }
    let column = column_name(t, pos);
    let mut lines: Vec<String> = Vec::new();
    let mut gone: Vec<String> = Vec::new();
    for (_, d) in &deps {
        match d {
            Dependent::Views(views) => {
                for (v, line) in views {
                    lines.push(line.clone());
                    gone.push(format!("view {}", v.name));
                }
            }
            Dependent::MatView(m) => {
                lines.push(format!("materialized view {} depends on {column}", m.name));
                gone.push(format!("materialized view {}", m.name));
                for v in super::view::dependent_views(ctx, m.oid) {
                    lines.push(format!(
                        "view {} depends on materialized view {}",
                        v.name, m.name
                    ));
                    gone.push(format!("view {}", v.name));
                }
            }
            Dependent::ForeignKey(child, fk) => {
                let what = format!("constraint {} on table {}", fk.name, child.name);
                lines.push(format!("{what} depends on {column}"));
                gone.push(what);
            }
            Dependent::Trigger(name) => {
                let what = format!("trigger {name} on table {}", t.name);
                lines.push(format!("{what} depends on {column}"));
                gone.push(what);
            }
            Dependent::Rule(name) => {
                let what = format!("rule {name} on table {}", t.name);
                lines.push(format!("{what} depends on {column}"));
                gone.push(what);
            }
        }
    }
    if !cascade {
        return Err(super::dependents_remain(column, lines));
    }
    // One NOTICE for all of them (dropping some would give their own).
    let before = ctx.notices.len();
    for (_, d) in deps {
        drop_one(ctx, t, d)?;
    }
    ctx.notices.truncate(before);
    super::cascades_notice(ctx, &gone);
    Ok(())
}

/// Drop one dependent for DROP COLUMN ... CASCADE.
fn drop_one(ctx: &mut StatementCtx, t: &TableDef, d: Dependent) -> Result<(), DbError> {
    match d {
        Dependent::Views(views) => super::view::drop_views_cascaded(ctx, &views),
        Dependent::MatView(m) => {
            if ctx.catalog.table_by_oid(m.oid).is_none() {
                return Ok(());
            }
            let name = ctx.catalog.qualify(m.namespace, &m.name);
            let inner = format!("materialized view {}", m.name);
            super::view::drop_dependent_views(ctx, m.oid, &inner, &[], true)?;
            super::drop_table(ctx, &name)
        }
        Dependent::ForeignKey(child, fk) => {
            let cur = ctx.catalog.table_by_oid(child.oid).unwrap_or(child);
            let mut new = (*cur).clone();
            new.foreign_keys.retain(|f| f.name != fk.name);
            super::put_table(ctx, new)
        }
        Dependent::Trigger(name) => {
            let Some(cur) = ctx.catalog.table_by_oid(t.oid) else {
                return Ok(());
            };
            let mut new = (*cur).clone();
            new.triggers.retain(|tr| tr.name != name);
            super::put_table(ctx, new)
        }
        Dependent::Rule(name) => {
            let Some(cur) = ctx.catalog.table_by_oid(t.oid) else {
                return Ok(());
            };
            let mut new = (*cur).clone();
            new.rules.retain(|r| r.name != name);
            super::put_table(ctx, new)
        }
    }
}
