//! Composite types in the catalog: the name map and its mirror in the
//! value layer's registry.
//!
//! The catalog's `State::composites` maps names to [`CompositeDef`]s and
//! is changed like every other definition (a `Change::PutComposite` or
//! `DropComposite` applied, undone on ROLLBACK, logged at commit as a
//! `PutComposite`/`DropComposite` record). Type names and OIDs resolve
//! through [`nestor_types::composites`], which has no catalog at hand, so
//! every put and remove here also updates that registry (as for enums
//! and domains).
//!
//! ```text
//!   CREATE TYPE pair AS (a int, b text)   put(pair 16391)   registry: 16391
//!   ALTER TYPE pair RENAME TO duo         put(duo 16391)    replaces pair
//!   ROLLBACK                              remove(duo), put(pair)
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use nestor_types::composites::{self, CompositeDef};

/// Install `def`, replacing the type of the same OID (whatever its name:
/// a rename) and returning it.
pub(crate) fn put(
    database: u32,
    map: &mut BTreeMap<String, Arc<CompositeDef>>,
    def: Arc<CompositeDef>,
) -> Option<Arc<CompositeDef>> {
    let old_name = map
        .iter()
        .find(|(_, d)| d.oid == def.oid)
        .map(|(n, _)| n.clone());
    let prev = old_name.and_then(|n| map.remove(&n));
    composites::install_in(database, def.clone());
    let replaced = map.insert(def.name.clone(), def);
    prev.or(replaced)
}

/// Remove the type `name`, returning it.
pub(crate) fn remove(
    map: &mut BTreeMap<String, Arc<CompositeDef>>,
    name: &str,
) -> Option<Arc<CompositeDef>> {
    let prev = map.remove(name)?;
    composites::remove(prev.oid);
    Some(prev)
}
