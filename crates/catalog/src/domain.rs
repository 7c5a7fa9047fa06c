//! Domains in the catalog: the name map and its mirror in the value
//! layer's registry.
//!
//! The catalog's `State::domains` maps names to [`DomainDef`]s and is
//! changed like every other definition (a `Change::PutDomain` or
//! `DropDomain` applied, undone on ROLLBACK, logged at commit as a
//! `PutDomain`/`DropDomain` record). Type names resolve through
//! [`nestor_types::domains`], which has no catalog at hand, so every put
//! and remove here also updates that registry: the two always hold the
//! same definitions (as for enum types).
//!
//! ```text
//!   CREATE DOMAIN d AS int            put(d 16390)     registry: 16390
//!   ALTER DOMAIN d ADD CHECK (...)    put(d 16390)     replaces it (same OID)
//!   ALTER DOMAIN d RENAME TO e        put(e 16390)     replaces d
//!   ROLLBACK                          remove(e), put(d) as it was
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use nestor_types::domains::{self, DomainDef};

/// Install `def`, replacing the domain of the same OID (whatever its
/// name: a rename) and returning it.
pub(crate) fn put(
    database: u32,
    map: &mut BTreeMap<String, Arc<DomainDef>>,
    def: Arc<DomainDef>,
) -> Option<Arc<DomainDef>> {
    let old_name = map
        .iter()
        .find(|(_, d)| d.oid == def.oid)
        .map(|(n, _)| n.clone());
    let prev = old_name.and_then(|n| map.remove(&n));
    domains::install_in(database, def.clone());
    let replaced = map.insert(def.name.clone(), def);
    prev.or(replaced)
}

/// Remove the domain `name`, returning it.
pub(crate) fn remove(
    map: &mut BTreeMap<String, Arc<DomainDef>>,
    name: &str,
) -> Option<Arc<DomainDef>> {
    let prev = map.remove(name)?;
    domains::remove(prev.oid);
    Some(prev)
}
