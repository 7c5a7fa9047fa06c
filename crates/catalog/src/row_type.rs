//! Tables' row types as composite types: a column of type `t` where `t`
//! is a table (`CREATE TABLE people (fn fullname, bd date)`).
//!
//! A table's row type has the table's OID as its type OID and the
//! table's columns as its attributes. Every table the catalog installs is
//! noted in the value layer's registry by that OID
//! ([`nestor_types::composites::note_row_type`]), so a column of that type
//! prints, parses and decodes (its catalog record names the type by OID)
//! without the catalog; the binder resolves the name (through the
//! catalog's search path).
//!
//! Because a column's record names the referenced table by OID, that
//! table must be installed first when a checkpoint image is replayed
//! ([`dependency_order`]), and it may not be dropped while a column uses
//! its row type (2BP01, [`check_change`]). A permanent table may not use a
//! TEMP table's row type, and a table in a schema other than `public` may
//! be used only by tables of the same schema (0A000: the image writes
//! `public` first, then each schema).
//!
//! ```text
//!   CREATE TABLE fullname (first text, last text)   registry: 16390 fullname (first, last)
//!   CREATE TABLE people (fn fullname)               column fn: Record(oid 16390)
//!   DROP TABLE fullname                             2BP01 ... column fn of table people
//!                                                   depends on type fullname
//! ```
//!
//! Left out: a column keeps the row type's attributes of its creation, so
//! ALTER TABLE may not change the referenced table's columns (names,
//! types, added or dropped ones) while such a column exists (0A000, where
//! PostgreSQL changes the row type and reads the stored values through
//! it, adding NULL fields).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_types::composites::{self, CompositeDef};
use nestor_types::DataType;

use crate::change::Change;
use crate::defs::{Persistence, TableDef};
use crate::{Ns, State, PUBLIC_NAMESPACE_OID};

/// Note `def`'s row type in the registry; returns it.
pub fn note(def: &TableDef) -> DataType {
    let live = || def.columns.iter().filter(|c| !c.dropped);
    composites::note_row_type(CompositeDef {
        oid: def.oid.0,
        array_oid: 0,
        relid: def.oid.0,
        name: def.name.clone(),
        owner: 0,
        attrs: live().map(|c| (c.name.clone(), c.ty)).collect(),
        domains: live().map(|c| c.domain).collect(),
    })
    .data_type()
}

/// Forget table `oid`'s row type.
pub(crate) fn forget(oid: u32) {
    composites::forget_row_type(oid);
}

/// The OIDs of the record types `t` contains (itself, attributes,
/// elements).
fn record_oids(t: DataType, out: &mut Vec<u32>) {
    match t {
        DataType::Record(r) => {
            if r.oid != 0 {
                out.push(r.oid);
            }
            for (_, f) in &r.fields {
                record_oids(*f, out);
            }
        }
        DataType::Array(e) => record_oids(*e, out),
        _ => {}
    }
}

/// The tables whose row types `def`'s columns use.
fn referenced(def: &TableDef) -> Vec<u32> {
    let mut out = Vec::new();
    for c in def.columns.iter().filter(|c| !c.dropped) {
        record_oids(c.ty, &mut out);
    }
    out
}

fn all_tables(st: &State) -> impl Iterator<Item = &Arc<TableDef>> {
    std::iter::once(&st.public)
        .chain(st.schemas.values().map(|s| &s.ns))
        .chain(st.temp.values())
        .flat_map(|ns| ns.tables.values())
}

/// The checks of a change that puts or drops a table (see the module doc).
pub(crate) fn check_change(st: &State, ns: Ns, change: &Change) -> Result<(), DbError> {
    match change {
        Change::PutTable { def, .. } => check_put(st, def),
        Change::DropTable(name) => {
            let Some(def) = st.ns(ns).and_then(|n| n.tables.get(name)) else {
                return Ok(());
            };
            check_drop(st, def)
        }
        _ => Ok(()),
    }
}

fn check_put(st: &State, def: &TableDef) -> Result<(), DbError> {
    for oid in referenced(def) {
        if oid == def.oid.0 {
            return Err(DbError::new(
                SqlState::InvalidTableDefinition,
                format!(
                    "composite type {} cannot be made a member of itself",
                    def.name
                ),
            ));
        }
        let Some(t) = all_tables(st).find(|t| t.oid.0 == oid) else {
            continue;
        };
        let temp = |t: &TableDef| t.persistence == Persistence::Temporary;
        if temp(t) && !temp(def) {
            return Err(DbError::unsupported(format!(
                "a column of the row type of temporary table {} in a permanent table",
                t.name
            )));
        }
        if !temp(t) && t.namespace != def.namespace && t.namespace != PUBLIC_NAMESPACE_OID {
            return Err(DbError::unsupported(format!(
                "a column of the row type of table {} in another schema",
                t.name
            )));
        }
    }
    refuse_new_shape(st, def)
}

/// The attributes a table's row type has: its live columns' names and
/// types.
fn shape(def: &TableDef) -> Vec<(&str, DataType, Option<u32>)> {
    def.columns
        .iter()
        .filter(|c| !c.dropped)
        .map(|c| (c.name.as_str(), c.ty, c.domain))
        .collect()
}

/// 0A000 when `def` changes the attributes of a row type a column of
/// another table holds: that column keeps the attributes of its creation
/// (see the module doc), so its values would no longer be of the row type
/// the table now has. (ALTER COLUMN TYPE says PostgreSQL's 0A000 before
/// this: `nestor_exec`'s alter_type.)
fn refuse_new_shape(st: &State, def: &TableDef) -> Result<(), DbError> {
    let Some(old) = all_tables(st).find(|t| t.oid == def.oid) else {
        return Ok(());
    };
    if shape(old) == shape(def) {
        return Ok(());
    }
    for t in all_tables(st).filter(|t| t.oid != def.oid) {
        for c in t.columns.iter().filter(|c| !c.dropped) {
            let mut oids = Vec::new();
            record_oids(c.ty, &mut oids);
            if oids.contains(&def.oid.0) {
                return Err(DbError::unsupported(format!(
                    "changing the columns of table {} while column \"{}.{}\" uses its row type",
                    def.name, t.name, c.name
                )));
            }
        }
    }
    Ok(())
}

fn check_drop(st: &State, def: &TableDef) -> Result<(), DbError> {
    let mut deps = Vec::new();
    for t in all_tables(st).filter(|t| t.oid != def.oid) {
        for c in t.columns.iter().filter(|c| !c.dropped) {
            let mut oids = Vec::new();
            record_oids(c.ty, &mut oids);
            if oids.contains(&def.oid.0) {
                deps.push(format!(
                    "column {} of table {} depends on type {}",
                    c.name, t.name, def.name
                ));
            }
        }
    }
    if deps.is_empty() {
        return Ok(());
    }
    Err(DbError::new(
        SqlState::DependentObjectsStillExist,
        format!(
            "cannot drop table {} because other objects depend on it",
            def.name
        ),
    )
    .with_detail(deps.join("\n"))
    .with_hint("Use DROP ... CASCADE to drop the dependent objects too."))
}

/// `tables` with every table after the tables whose row types its
/// columns use (for a checkpoint image, whose records are replayed in
/// order).
pub(crate) fn dependency_order(tables: Vec<&Arc<TableDef>>) -> Vec<&Arc<TableDef>> {
    let oids: Vec<u32> = tables.iter().map(|t| t.oid.0).collect();
    let mut done: Vec<u32> = Vec::with_capacity(tables.len());
    let mut out = Vec::with_capacity(tables.len());
    let mut rest = tables;
    while !rest.is_empty() {
        let (ready, wait): (Vec<_>, Vec<_>) = rest.into_iter().partition(|t| {
            referenced(t)
                .iter()
                .all(|o| *o == t.oid.0 || !oids.contains(o) || done.contains(o))
        });
        if ready.is_empty() {
            // Cannot happen (no cycles); keep every table anyway.
            out.extend(wait);
            break;
        }
        done.extend(ready.iter().map(|t| t.oid.0));
        out.extend(ready);
        rest = wait;
    }
    out
}
