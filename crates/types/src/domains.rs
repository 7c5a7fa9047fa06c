//! Domains (`CREATE DOMAIN posint AS integer CHECK (VALUE > 0)`): their
//! definitions and the process-wide registry type names resolve through.
//!
//! A domain is its base type plus constraints. Nestor keeps no domain
//! in [`DataType`]: a value of a domain *is* a value of its base type,
//! and an expression or column of a domain has the base type to the
//! binder, the executor and the wire (PostgreSQL too sends the base type's
//! OID in RowDescription for a domain column). Where the domain matters
//! it is named by its pg_type OID beside the base type: a table column
//! keeps it (`Column::domain` in the catalog), and the places that write
//! such a column or cast to the domain check its constraints (the binder
//! binds them from the SQL text kept here, `VALUE` standing for the
//! value).
//!
//! Type names resolve without a catalog ([`DataType::from_sql_name`]), so
//! the catalog mirrors every domain it installs, drops or rolls back into
//! this registry ([`install`], [`remove`]), as it does for enums:
//!
//! ```text
//!   CREATE DOMAIN posint AS integer CHECK (VALUE > 0)
//!     registry: 16390 posint -> base integer, check posint_check "VALUE > 0"
//!   DataType::from_sql_name("posint")  ->  Int4
//!   CREATE TABLE t (n posint)          ->  column n: Int4, domain 16390
//!   INSERT INTO t VALUES (0)           ->  23514 value for domain posint
//!                                          violates check constraint "posint_check"
//! ```
//!
//! An array of a domain (`posint[]`) is an array of the base type whose
//! elements are checked; a column of one keeps the array type's OID.
//!
//! A domain over another domain (`CREATE DOMAIN d2 AS posint`) names it as
//! its parent and has the same base type; a value of it must pass the
//! constraints of every level, the parent's first ([`lineage`]), and takes
//! the nearest DEFAULT.
//!
//! Left out: collations other than the base type's, and domain-typed
//! function results, which behave as the base type (their constraints are
//! not checked).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use crate::datatype::DataType;

/// One CHECK constraint of a domain (a pg_constraint row with contypid).
#[derive(Clone, Debug, PartialEq)]
pub struct DomainCheck {
    /// The constraint's OID.
    pub oid: u32,
    pub name: String,
    /// The boolean expression as SQL text over `VALUE`.
    pub expr: String,
    /// False for a constraint added NOT VALID and not validated since.
    pub validated: bool,
}

/// A domain: its pg_type OIDs, name, base type and constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct DomainDef {
    pub oid: u32,
    pub array_oid: u32,
    pub name: String,
    /// The owning role's OID (pg_type.typowner).
    pub owner: u32,
    /// The base type with its typmod (the root's for a domain over a
    /// domain).
    pub base: DataType,
    /// The domain this one is over (pg_type.typbasetype then), if any.
    pub parent: Option<u32>,
    /// The DEFAULT expression as SQL text (pg_type.typdefault).
    pub default: Option<String>,
    /// NOT NULL (pg_type.typnotnull).
    pub not_null: bool,
    /// CHECK constraints in creation order.
    pub checks: Vec<DomainCheck>,
}

impl DomainDef {
    pub fn check(&self, name: &str) -> Option<&DomainCheck> {
        self.checks.iter().find(|c| c.name == name)
    }
}

#[derive(Default)]
struct Registry {
    by_oid: HashMap<u32, Arc<DomainDef>>,
    /// (database, name) -> OID: a name resolves in its database only
    /// (see [`crate::database_scope`]).
    by_name: HashMap<(u32, String), u32>,
    /// The database of each domain, by OID.
    database: HashMap<u32, u32>,
}

fn registry() -> &'static RwLock<Registry> {
    static R: OnceLock<RwLock<Registry>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// Install (create or replace, a rename included) a definition in the
/// current thread's database.
pub fn install(def: Arc<DomainDef>) {
    install_in(crate::database_scope::current(), def)
}

/// Install (create or replace, a rename included) a definition of
/// database `database`.
pub fn install_in(database: u32, def: Arc<DomainDef>) {
    let mut r = registry().write().unwrap_or_else(|e| e.into_inner());
    if let Some(prev) = r.by_oid.get(&def.oid).map(|p| p.name.clone()) {
        let db = r.database.get(&def.oid).copied().unwrap_or(database);
        r.by_name.remove(&(db, prev));
    }
    r.by_name.insert((database, def.name.clone()), def.oid);
    r.database.insert(def.oid, database);
    r.by_oid.insert(def.oid, def);
}

/// Forget a domain.
pub fn remove(oid: u32) {
    let mut r = registry().write().unwrap_or_else(|e| e.into_inner());
    if let Some(prev) = r.by_oid.remove(&oid) {
        let db = r.database.remove(&oid).unwrap_or_default();
        r.by_name.remove(&(db, prev.name.clone()));
    }
}

/// The domain named `name` in the current thread's database.
pub fn by_name(name: &str) -> Option<Arc<DomainDef>> {
    let r = registry().read().unwrap_or_else(|e| e.into_inner());
    r.by_name
        .get(&(crate::database_scope::current(), name.to_string()))
        .and_then(|oid| r.by_oid.get(oid))
        .cloned()
}

/// The domain of pg_type OID `oid`.
pub fn lookup(oid: u32) -> Option<Arc<DomainDef>> {
    let r = registry().read().unwrap_or_else(|e| e.into_inner());
    r.by_oid.get(&oid).cloned()
}

/// `def` and the domains it is over, the outermost (root) first.
pub fn lineage(def: &Arc<DomainDef>) -> Vec<Arc<DomainDef>> {
    let mut out = vec![def.clone()];
    while let Some(p) = out.last().and_then(|d| d.parent).and_then(lookup) {
        if out.iter().any(|d| d.oid == p.oid) || out.len() > 64 {
            break;
        }
        out.push(p);
    }
    out.reverse();
    out
}

/// The DEFAULT a value of `def` gets: its own, else its parent's.
pub fn effective_default(def: &Arc<DomainDef>) -> Option<String> {
    lineage(def)
        .into_iter()
        .rev()
        .find_map(|d| d.default.clone())
}

/// The domain whose array type has pg_type OID `oid`.
pub fn lookup_array(oid: u32) -> Option<Arc<DomainDef>> {
    let r = registry().read().unwrap_or_else(|e| e.into_inner());
    r.by_oid.values().find(|d| d.array_oid == oid).cloned()
}
