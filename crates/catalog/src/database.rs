//! Databases: the level of the catalog above namespaces.
//!
//! A cluster holds databases (PostgreSQL's pg_database rows); each has a
//! [`State`] of its own: its `public` schema, its schemas, tables,
//! sequences, views, functions, enum types, domains, comments and ACLs,
//! and its sessions' TEMP objects. Roles and their per-database settings
//! are shared by the whole cluster (PostgreSQL's shared catalogs
//! pg_authid and pg_db_role_setting): they live in a state of their own,
//! [`Cluster::shared`], that belongs to no database.
//!
//! ```text
//!   Cluster
//!     shared:    roles "postgres", "alice"; role settings
//!     databases: 1 template1 -> State (empty)
//!                4 template0 -> State (empty, no connections)
//!                5 postgres  -> State { public: "t" -> TableDef, ... }
//!                16390 app   -> State { public: "t" -> TableDef, ... }
//!   Catalog handle { db: 16390, state: app's State, cluster }
//! ```
//!
//! A [`Catalog`] handle is for one database: every lookup goes to its
//! database's state, as before there were databases, so name resolution
//! costs what it did (no database key is looked at per name). A session
//! gets its handle once, at startup ([`Catalog::for_database`]), and only
//! ever sees its own database's objects, in pg_class and everywhere else.
//! Relation OIDs, storage relation ids and type OIDs come from one counter
//! for the whole cluster, so an OID names one object in one database
//! (storage is one store for all databases, keyed by those ids).
//!
//! Enum types and domains are also mirrored into the value layer's
//! registries, where a name resolves among the types of the database the
//! thread works for (`nestor_types::database_scope`).
//!
//! CREATE DATABASE makes an empty database: PostgreSQL copies its template
//! (template1), and template1 here holds no user objects to copy (objects
//! created in template1 are not copied; see docs/architecture.md). DROP
//! DATABASE takes the database out at once (undone if the statement
//! fails) and frees the storage of its tables at commit. Both are
//! changes through the transaction's undo log like the other schema
//! changes, though they never run inside a transaction block.
//!
//! Durability: records of a change in a database other than `postgres`
//! are logged wrapped in [`CatalogRecord::InDatabase`]; records outside
//! one apply in `postgres` (so data directories from before databases
//! replay unchanged), except those of roles, which apply to the shared
//! state wherever they are. [`CatalogRecord::PutDatabase`] and
//! [`CatalogRecord::DropDatabase`] create, rename and drop databases; a
//! checkpoint image lists every database with its objects wrapped.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use nestor_common::RelId;
use nestor_storage::Store;
use nestor_txn::DdlUndo;
use parking_lot::RwLock;

use crate::gate::DdlGateGuard;
use crate::State;

/// OID of the `postgres` database (as in PostgreSQL).
pub const POSTGRES_DATABASE_OID: u32 = nestor_types::database_scope::POSTGRES_DATABASE_OID;
/// OID of `template1` (as in PostgreSQL).
pub const TEMPLATE1_DATABASE_OID: u32 = 1;
/// OID of `template0` (as in PostgreSQL).
pub const TEMPLATE0_DATABASE_OID: u32 = 4;

/// A database: one pg_database row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseDef {
    pub oid: RelId,
    pub name: String,
    pub owner: RelId,
    /// datistemplate: may be a CREATE DATABASE template (and may not be
    /// dropped).
    pub is_template: bool,
    /// datallowconn.
    pub allow_conn: bool,
    /// datconnlimit (-1: none).
    pub conn_limit: i32,
}

impl DatabaseDef {
    /// The databases initdb makes.
    pub(crate) fn builtin() -> [DatabaseDef; 3] {
        let def = |oid: u32, name: &str, template: bool, conn: bool| DatabaseDef {
            oid: RelId(oid),
            name: name.into(),
            owner: RelId(crate::BOOTSTRAP_SUPERUSER_OID),
            is_template: template,
            allow_conn: conn,
            conn_limit: -1,
        };
        [
            def(TEMPLATE1_DATABASE_OID, "template1", true, true),
            def(TEMPLATE0_DATABASE_OID, "template0", true, false),
            def(POSTGRES_DATABASE_OID, "postgres", false, true),
        ]
    }
}

/// One database and its objects.
#[derive(Clone)]
pub(crate) struct DbEntry {
    pub def: Arc<DatabaseDef>,
    pub state: Arc<RwLock<State>>,
}

impl DbEntry {
    pub(crate) fn new(def: DatabaseDef) -> DbEntry {
        let state = State {
            db: def.oid.0,
            ..State::default()
        };
        DbEntry {
            def: Arc::new(def),
            state: Arc::new(RwLock::new(state)),
        }
    }
}

/// What every handle of the cluster shares: the roles and the databases.
pub(crate) struct Cluster {
    /// Roles and role settings (its namespaces stay empty).
    pub shared: Arc<RwLock<State>>,
    /// Databases by OID.
    pub databases: RwLock<BTreeMap<u32, DbEntry>>,
}

impl Cluster {
    /// The cluster initdb makes: template1, template0, postgres.
    pub(crate) fn new() -> Cluster {
        let databases = DatabaseDef::builtin()
            .into_iter()
            .map(|d| (d.oid.0, DbEntry::new(d)))
            .collect();
        Cluster {
            shared: Arc::new(RwLock::new(State::default())),
            databases: RwLock::new(databases),
        }
    }

    pub(crate) fn entry(&self, oid: u32) -> Option<DbEntry> {
        self.databases.read().get(&oid).cloned()
    }

    pub(crate) fn entry_named(&self, name: &str) -> Option<DbEntry> {
        let dbs = self.databases.read();
        let found = dbs.values().find(|e| e.def.name == name).cloned();
        found
    }

    /// Install (create, or replace the definition of: rename, owner)
    /// database `def`; returns the entry it replaced.
    pub(crate) fn put(&self, def: DatabaseDef) -> Option<DbEntry> {
        let mut dbs = self.databases.write();
        match dbs.get_mut(&def.oid.0) {
            Some(e) => {
                let prev = e.clone();
                e.def = Arc::new(def);
                Some(prev)
            }
            None => {
                dbs.insert(def.oid.0, DbEntry::new(def));
                None
            }
        }
    }
}

/// Free what a dropped database held: its tables' storage and its types'
/// registry entries.
pub(crate) fn free_dropped(entry: &DbEntry, store: &Store) {
    let st = entry.state.read();
    let spaces = std::iter::once(&st.public)
        .chain(st.schemas.values().map(|s| &s.ns))
        .chain(st.temp.values());
    for ns in spaces {
        for t in ns.tables.values() {
            store.drop_table(t.storage.id);
            nestor_types::composites::forget_row_type(t.oid.0);
        }
    }
    for e in st.enums.values() {
        nestor_types::enums::remove(e.oid);
    }
    for d in st.domains.values() {
        nestor_types::domains::remove(d.oid);
    }
    for c in st.composites.values() {
        nestor_types::composites::remove(c.oid);
    }
}

/// The undo log entry of CREATE, DROP or ALTER DATABASE.
pub(crate) struct DatabaseUndo {
    pub cluster: Arc<Cluster>,
    pub version: Arc<AtomicU64>,
    pub store: Arc<Store>,
    pub oid: u32,
    /// The entry before the change (None: the change created it).
    pub prev: Option<DbEntry>,
    /// Whether the change dropped the database.
    pub dropped: bool,
    pub redo: Vec<u8>,
    /// Keeps checkpoints out until the transaction ends.
    pub _gate: DdlGateGuard,
}

impl std::fmt::Debug for DatabaseUndo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatabaseUndo({}, dropped {})", self.oid, self.dropped)
    }
}

impl DdlUndo for DatabaseUndo {
    fn undo(&self) {
        {
            let mut dbs = self.cluster.databases.write();
            match &self.prev {
                Some(p) => dbs.insert(self.oid, p.clone()),
                None => dbs.remove(&self.oid),
            };
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    fn commit(&self) {
        if let (true, Some(p)) = (self.dropped, &self.prev) {
            free_dropped(p, &self.store);
        }
    }

    fn redo(&self) -> Option<Vec<u8>> {
        Some(self.redo.clone())
    }
}

/// The error of a change in a database dropped meanwhile.
pub(crate) fn vanished() -> nestor_common::DbError {
    nestor_common::DbError::new(
        nestor_common::SqlState::InvalidCatalogName,
        "the current database has been dropped",
    )
}
