//! Enum types in the catalog: the name map and its mirror in the value
//! layer's registry.
//!
//! The catalog's `State::enums` maps names to [`EnumDef`]s and is changed
//! like every other definition (a `Change::PutEnum`/`DropEnum` applied,
//! undone on ROLLBACK, logged at commit as a `PutEnum`/`DropEnum` record;
//! see the `change` and `record` modules). Values of an enum type
//! print, parse and sort through [`nestor_types::enums`], which has no
//! catalog at hand, so every put and remove here also updates that
//! registry: the two always hold the same definitions.
//!
//! ```text
//!   CREATE TYPE mood AS ENUM ('sad')   put(mood 16390)   registry: 16390
//!   ALTER TYPE mood RENAME TO feeling  put(feeling 16390) replaces mood (same OID)
//!   ROLLBACK                           remove(feeling), put(mood)
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use nestor_types::enums::{self, EnumDef};

/// Install `def`, replacing the type of the same OID (whatever its name:
/// a rename) and returning it.
pub(crate) fn put(
    database: u32,
    map: &mut BTreeMap<String, Arc<EnumDef>>,
    def: Arc<EnumDef>,
) -> Option<Arc<EnumDef>> {
    let old_name = map
        .iter()
        .find(|(_, e)| e.oid == def.oid)
        .map(|(n, _)| n.clone());
    let prev = old_name.and_then(|n| map.remove(&n));
    enums::install_in(database, def.clone());
    let replaced = map.insert(def.name.clone(), def);
    assert!(
        replaced.is_none() || prev.is_none(),
        "enum put onto another type's name"
    );
    prev.or(replaced)
}

/// Remove the type `name`, returning it.
pub(crate) fn remove(map: &mut BTreeMap<String, Arc<EnumDef>>, name: &str) -> Option<Arc<EnumDef>> {
    let prev = map.remove(name)?;
    enums::remove(prev.oid);
    Some(prev)
}
