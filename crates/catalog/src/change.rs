//! Schema changes: how one is applied, undone, committed and logged.
//!
//! A [`Change`] is applied to the catalog state at once (the relation lock
//! the statement holds keeps other sessions from using it before commit)
//! and leaves a
//! [`CatalogUndo`] in the transaction's undo log:
//!
//! ```text
//!   apply(PutTable t')   state: t -> t'        undo entry { prev: t, redo: PutTable(t') }
//!   ROLLBACK [TO]        undo():   t' -> t     (storage created by the change dropped)
//!   COMMIT               redo():   PutTable(t') to the WAL; commit(): free t's
//!                                  storage if t' no longer uses it (TRUNCATE, DROP)
//! ```
//!
//! The redo record is computed when the change is applied (it describes the
//! result, see [`crate::record`]); TEMP objects have none. A change applies to
//! one namespace (`public`, a schema, or a session's TEMP objects), and its
//! undo entry remembers which. Creating, renaming and dropping a schema are
//! changes of their own; DROP SCHEMA drops the schema's objects with changes
//! before the one that drops it, so undo (in reverse) restores the schema
//! before the objects go back into it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use nestor_common::RelId;
use nestor_storage::{Store, Table};
use nestor_txn::DdlUndo;
use parking_lot::RwLock;

use crate::defs::{Sequence, TableDef, ViewDef};
use crate::function::FunctionDef;
use crate::gate::DdlGateGuard;
use crate::record::CatalogRecord;
use crate::role::RoleDef;
use crate::{Namespace, Ns, State};
use nestor_types::composites::CompositeDef;
use nestor_types::domains::DomainDef;
use nestor_types::enums::EnumDef;

/// A schema change, applied under the catalog's write lock.
pub enum Change {
    /// Put (or replace) a table definition; `old_storage` is a storage
    /// table the new definition no longer uses (TRUNCATE), freed at commit.
    PutTable {
        def: Arc<TableDef>,
        old_storage: Option<Arc<Table>>,
    },
    DropTable(String),
    /// Give table `from` a new name: `def` is its definition under the new
    /// name (same storage).
    RenameTable {
        from: String,
        def: Arc<TableDef>,
    },
    PutSequence(Arc<Sequence>),
    DropSequence(String),
    /// COMMENT ON: set (Some) or remove (None) the comment of
    /// (classoid, objoid, objsubid).
    SetComment {
        key: (u32, u32, i32),
        text: Option<String>,
    },
    /// Create or replace a view.
    PutView(Arc<ViewDef>),
    DropView(String),
    /// Create or replace a function or procedure.
    PutFunction(Arc<FunctionDef>),
    DropFunction(Arc<FunctionDef>),
    /// Create or replace (by OID: ALTER, RENAME, GRANT of a membership) a
    /// role.
    PutRole(Arc<RoleDef>),
    DropRole(String),
    /// Create or replace (by OID: ADD VALUE, RENAME) an enum type.
    PutEnum(Arc<EnumDef>),
    DropEnum(String),
    /// Create, alter or rename (by OID) a domain.
    PutDomain(Arc<DomainDef>),
    DropDomain(String),
    /// Create or rename (by OID) a composite type.
    PutComposite(Arc<CompositeDef>),
    DropComposite(String),
    /// Create a cast (CREATE CAST).
    PutCast(Arc<crate::cast::CastDef>),
    /// Drop the cast of (source, target) type OIDs.
    DropCast((u32, u32)),
    /// Create or replace (by OID) an operator family.
    PutOpFamily(Arc<crate::opclass::OpFamilyDef>),
    /// Drop the operator family with this OID.
    DropOpFamily(u32),
    /// Create or replace (by OID) an operator class.
    PutOpClass(Arc<crate::opclass::OpClassDef>),
    /// Drop the operator class with this OID.
    DropOpClass(u32),
    /// Create, rename or change the owner of (by OID) a schema.
    PutSchema(Arc<crate::SchemaDef>),
    /// Drop the schema with this OID (its objects were dropped before).
    DropSchema(u32),
    /// Set (Some) or reset to the default (None) the owner and ACL of
    /// (class, object).
    SetAcl {
        key: (u32, u32),
        acl: Option<crate::acl::ObjAcl>,
    },
    /// Set (Some) or remove (None) the default ACL of (role, schema,
    /// object type): ALTER DEFAULT PRIVILEGES.
    SetDefaultAcl {
        key: (u32, u32, u8),
        acl: Option<Vec<crate::acl::AclItem>>,
    },
    /// Install (Some) or remove (None) extension `name`.
    SetExtension {
        name: String,
        ext: Option<crate::defs::ExtensionDef>,
    },
    /// Set (Some) or remove (None) the session defaults of (database OID,
    /// role OID), 0 meaning all: ALTER ROLE / DATABASE ... SET.
    SetRoleSettings {
        key: (u32, u32),
        config: Option<Vec<(String, String)>>,
    },
}

impl Change {
    /// Whether the change is to the cluster's shared state (roles and
    /// their settings) rather than to one database's.
    pub(crate) fn is_shared(&self) -> bool {
        matches!(
            self,
            Change::PutRole(_) | Change::DropRole(_) | Change::SetRoleSettings { .. }
        )
    }
}

/// What undoing one change restores.
pub(crate) enum Undo {
    Table {
        name: String,
        /// Previous definition of the name (None: it did not exist).
        prev: Option<Arc<TableDef>>,
        /// Storage to free at commit (dropped/replaced).
        free_on_commit: Option<Arc<Table>>,
        /// Storage created by the change, removed on undo.
        created_storage: Option<Arc<Table>>,
    },
    Sequence {
        name: String,
        prev: Option<Arc<Sequence>>,
    },
    View {
        name: String,
        prev: Option<Arc<ViewDef>>,
    },
    Comment {
        key: (u32, u32, i32),
        prev: Option<String>,
    },
    Rename {
        /// The definition under its old name.
        prev: Arc<TableDef>,
        to: String,
    },
    Function {
        name: String,
        /// The definition the change put in place (None for a drop).
        put: Option<Arc<FunctionDef>>,
        /// The one it replaced or dropped.
        prev: Option<Arc<FunctionDef>>,
    },
    Acl {
        key: (u32, u32),
        prev: Option<crate::acl::ObjAcl>,
    },
    RoleSettings {
        key: (u32, u32),
        prev: Option<Vec<(String, String)>>,
    },
    DefaultAcl {
        key: (u32, u32, u8),
        prev: Option<Vec<crate::acl::AclItem>>,
    },
    Extension {
        name: String,
        prev: Option<crate::defs::ExtensionDef>,
    },
    Enum {
        /// The name the change put a type under (None for a drop).
        put: Option<String>,
        /// The type it replaced, renamed or dropped.
        prev: Option<Arc<EnumDef>>,
    },
    Domain {
        /// The name the change put a domain under (None for a drop).
        put: Option<String>,
        /// The domain it replaced, renamed or dropped.
        prev: Option<Arc<DomainDef>>,
    },
    Composite {
        /// The name the change put a type under (None for a drop).
        put: Option<String>,
        /// The type it replaced, renamed or dropped.
        prev: Option<Arc<CompositeDef>>,
    },
    Cast {
        key: (u32, u32),
        /// The cast of that key before the change (None: there was none).
        prev: Option<Arc<crate::cast::CastDef>>,
    },
    OpFamily {
        oid: u32,
        /// The family of that OID before the change (None: there was none).
        prev: Option<Arc<crate::opclass::OpFamilyDef>>,
    },
    OpClass {
        oid: u32,
        /// The class of that OID before the change (None: there was none).
        prev: Option<Arc<crate::opclass::OpClassDef>>,
    },
    Schema {
        oid: u32,
        /// Its definition before the change (None: it did not exist).
        prev: Option<Arc<crate::SchemaDef>>,
    },
    Role {
        /// The name the change put a role under (None for a drop).
        put: Option<String>,
        /// The role it replaced, renamed or dropped.
        prev: Option<Arc<RoleDef>>,
    },
}

impl std::fmt::Debug for Undo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undo::Table { name, .. } => write!(f, "table {name}"),
            Undo::Sequence { name, .. } => write!(f, "sequence {name}"),
            Undo::Rename { prev, to } => write!(f, "rename {} to {to}", prev.name),
            Undo::View { name, .. } => write!(f, "view {name}"),
            Undo::Comment { key, .. } => write!(f, "comment {key:?}"),
            Undo::Function { name, .. } => write!(f, "function {name}"),
            Undo::Acl { key, .. } => write!(f, "acl {key:?}"),
            Undo::Schema { oid, .. } => write!(f, "schema {oid}"),
            Undo::RoleSettings { key, .. } => write!(f, "role settings {key:?}"),
            Undo::DefaultAcl { key, .. } => write!(f, "default acl {key:?}"),
            Undo::Extension { name, .. } => write!(f, "extension {name}"),
            Undo::Enum { put, prev } => write!(
                f,
                "enum {:?}",
                put.as_deref().or(prev.as_ref().map(|p| p.name.as_str()))
            ),
            Undo::Domain { put, prev } => write!(
                f,
                "domain {:?}",
                put.as_deref().or(prev.as_ref().map(|p| p.name.as_str()))
            ),
            Undo::Composite { put, prev } => write!(
                f,
                "composite {:?}",
                put.as_deref().or(prev.as_ref().map(|p| p.name.as_str()))
            ),
            Undo::Cast { key, .. } => write!(f, "cast {key:?}"),
            Undo::OpFamily { oid, .. } => write!(f, "operator family {oid}"),
            Undo::OpClass { oid, .. } => write!(f, "operator class {oid}"),
            Undo::Role { put, prev } => write!(
                f,
                "role {:?}",
                put.as_deref().or(prev.as_ref().map(|p| p.name.as_str()))
            ),
        }
    }
}

impl Change {
    /// The redo record of this change (for a change to `public`: TEMP
    /// objects do not survive a restart and are never logged).
    pub(crate) fn redo(&self) -> CatalogRecord {
        match self {
            Change::PutTable { def, .. } => CatalogRecord::put_table(crate::table_record(def)),
            Change::DropTable(name) => CatalogRecord::DropTable { name: name.clone() },
            Change::RenameTable { from, def } => CatalogRecord::RenameTable {
                from: from.clone(),
                to: def.name.clone(),
            },
            Change::PutSequence(s) => CatalogRecord::PutSequence(crate::sequence_record(s)),
            Change::DropSequence(name) => CatalogRecord::DropSequence { name: name.clone() },
            Change::SetComment { key, text } => CatalogRecord::Comment {
                key: *key,
                text: text.clone(),
            },
            Change::PutView(v) => CatalogRecord::PutView((**v).clone()),
            Change::DropView(name) => CatalogRecord::DropView { name: name.clone() },
            Change::PutFunction(f) => CatalogRecord::PutFunction(crate::function_record(f)),
            Change::DropFunction(f) => CatalogRecord::DropFunction {
                name: f.name.clone(),
                oid: f.oid,
            },
            Change::PutRole(r) => CatalogRecord::PutRole((**r).clone()),
            Change::DropRole(name) => CatalogRecord::DropRole { name: name.clone() },
            Change::PutEnum(e) => CatalogRecord::PutEnum((**e).clone()),
            Change::DropEnum(name) => CatalogRecord::DropEnum { name: name.clone() },
            Change::PutDomain(d) => CatalogRecord::PutDomain((**d).clone()),
            Change::DropDomain(name) => CatalogRecord::DropDomain { name: name.clone() },
            Change::PutComposite(c) => CatalogRecord::PutComposite((**c).clone()),
            Change::DropComposite(name) => CatalogRecord::DropComposite { name: name.clone() },
            Change::PutCast(c) => CatalogRecord::PutCast((**c).clone()),
            Change::DropCast((source, target)) => CatalogRecord::DropCast {
                source: *source,
                target: *target,
            },
            Change::PutOpFamily(d) => CatalogRecord::PutOpFamily((**d).clone()),
            Change::DropOpFamily(oid) => CatalogRecord::DropOpFamily { oid: *oid },
            Change::PutOpClass(d) => CatalogRecord::PutOpClass((**d).clone()),
            Change::DropOpClass(oid) => CatalogRecord::DropOpClass { oid: *oid },
            Change::PutSchema(d) => CatalogRecord::PutSchema((**d).clone()),
            Change::DropSchema(oid) => CatalogRecord::DropSchema { oid: RelId(*oid) },
            Change::SetAcl { key, acl } => CatalogRecord::SetAcl {
                key: *key,
                acl: acl.clone(),
            },
            Change::SetRoleSettings { key, config } => CatalogRecord::SetRoleSettings {
                key: *key,
                config: config.clone(),
            },
            Change::SetDefaultAcl { key, acl } => CatalogRecord::SetDefaultAcl {
                key: *key,
                acl: acl.clone(),
            },
            Change::SetExtension { name, ext } => CatalogRecord::SetExtension {
                name: name.clone(),
                ext: ext.clone(),
            },
        }
    }

    pub(crate) fn apply(self, state: &mut State, ns: Ns) -> Undo {
        let st = match self {
            Change::PutRole(def) => {
                let put = Some(def.name.clone());
                let prev = crate::role::put(&mut state.roles, def);
                return Undo::Role { put, prev };
            }
            Change::DropRole(name) => {
                let prev = state.roles.remove(&name);
                return Undo::Role { put: None, prev };
            }
            Change::PutEnum(def) => {
                let put = Some(def.name.clone());
                let prev = crate::enum_type::put(state.db, &mut state.enums, def);
                return Undo::Enum { put, prev };
            }
            Change::DropEnum(name) => {
                let prev = crate::enum_type::remove(&mut state.enums, &name);
                return Undo::Enum { put: None, prev };
            }
            Change::PutDomain(def) => {
                let put = Some(def.name.clone());
                let prev = crate::domain::put(state.db, &mut state.domains, def);
                return Undo::Domain { put, prev };
            }
            Change::DropDomain(name) => {
                let prev = crate::domain::remove(&mut state.domains, &name);
                return Undo::Domain { put: None, prev };
            }
            Change::PutComposite(def) => {
                let put = Some(def.name.clone());
                let prev = crate::composite::put(state.db, &mut state.composites, def);
                return Undo::Composite { put, prev };
            }
            Change::DropComposite(name) => {
                let prev = crate::composite::remove(&mut state.composites, &name);
                return Undo::Composite { put: None, prev };
            }
            Change::PutCast(def) => {
                let key = (def.source, def.target);
                let prev = state.casts.insert(key, def);
                return Undo::Cast { key, prev };
            }
            Change::DropCast(key) => {
                let prev = state.casts.remove(&key);
                return Undo::Cast { key, prev };
            }
            Change::PutOpFamily(def) => {
                let oid = def.oid;
                let prev = state.opfamilies.insert(oid, def);
                return Undo::OpFamily { oid, prev };
            }
            Change::DropOpFamily(oid) => {
                let prev = state.opfamilies.remove(&oid);
                return Undo::OpFamily { oid, prev };
            }
            Change::PutOpClass(def) => {
                let oid = def.oid;
                let prev = state.opclasses.insert(oid, def);
                return Undo::OpClass { oid, prev };
            }
            Change::DropOpClass(oid) => {
                let prev = state.opclasses.remove(&oid);
                return Undo::OpClass { oid, prev };
            }
            Change::PutSchema(def) => {
                let oid = def.oid.0;
                let prev = put_schema(state, def);
                return Undo::Schema { oid, prev };
            }
            Change::DropSchema(oid) => {
                let prev = state.schemas.remove(&oid).map(|s| s.def);
                return Undo::Schema { oid, prev };
            }
            Change::SetAcl { key, acl } => {
                let prev = match acl {
                    Some(a) => state.acls.insert(key, a),
                    None => state.acls.remove(&key),
                };
                return Undo::Acl { key, prev };
            }
            Change::SetRoleSettings { key, config } => {
                let prev = match config {
                    Some(c) => state.role_settings.insert(key, c),
                    None => state.role_settings.remove(&key),
                };
                return Undo::RoleSettings { key, prev };
            }
            Change::SetDefaultAcl { key, acl } => {
                let prev = match acl {
                    Some(a) => state.default_acls.insert(key, a),
                    None => state.default_acls.remove(&key),
                };
                return Undo::DefaultAcl { key, prev };
            }
            Change::SetExtension { name, ext } => {
                let prev = match ext {
                    Some(e) => state.extensions.insert(name.clone(), e),
                    None => state.extensions.remove(&name),
                };
                return Undo::Extension { name, prev };
            }
            _ => state.ns_mut(ns),
        };
        match self {
            Change::PutTable { def, old_storage } => {
                let name = def.name.clone();
                let prev = st.put_table(def.clone());
                let created_storage = match &prev {
                    Some(p) if Arc::ptr_eq(&p.storage, &def.storage) => None,
                    _ => Some(def.storage.clone()),
                };
                Undo::Table {
                    name,
                    prev,
                    free_on_commit: old_storage,
                    created_storage,
                }
            }
            Change::DropTable(name) => {
                let prev = st.remove_table(&name);
                let free_on_commit = prev.as_ref().map(|p| p.storage.clone());
                Undo::Table {
                    name,
                    prev,
                    free_on_commit,
                    created_storage: None,
                }
            }
            Change::RenameTable { from, def } => {
                let prev = st.remove_table(&from).expect("renamed table exists");
                assert!(Arc::ptr_eq(&prev.storage, &def.storage));
                let to = def.name.clone();
                let replaced = st.put_table(def);
                assert!(replaced.is_none(), "rename onto an existing table");
                Undo::Rename { prev, to }
            }
            Change::PutSequence(seq) => {
                let name = seq.name.clone();
                let prev = st.sequences.insert(name.clone(), seq);
                Undo::Sequence { name, prev }
            }
            Change::DropSequence(name) => {
                let prev = st.sequences.remove(&name);
                Undo::Sequence { name, prev }
            }
            Change::SetComment { key, text } => {
                let prev = match text {
                    Some(t) => st.comments.insert(key, t),
                    None => st.comments.remove(&key),
                };
                Undo::Comment { key, prev }
            }
            Change::PutView(v) => {
                let name = v.name.clone();
                let prev = st.views.insert(name.clone(), v);
                Undo::View { name, prev }
            }
            Change::DropView(name) => {
                let prev = st.views.remove(&name);
                Undo::View { name, prev }
            }
            Change::PutFunction(def) => {
                let prev = st.put_function(def.clone());
                Undo::Function {
                    name: def.name.clone(),
                    put: Some(def),
                    prev,
                }
            }
            Change::DropFunction(def) => {
                let prev = st.remove_function(&def.name, def.oid);
                Undo::Function {
                    name: def.name.clone(),
                    put: None,
                    prev,
                }
            }
            Change::PutRole(_)
            | Change::DropRole(_)
            | Change::PutEnum(_)
            | Change::DropEnum(_)
            | Change::PutDomain(_)
            | Change::DropDomain(_)
            | Change::PutComposite(_)
            | Change::DropComposite(_)
            | Change::PutCast(_)
            | Change::DropCast(_)
            | Change::PutOpFamily(_)
            | Change::DropOpFamily(_)
            | Change::PutOpClass(_)
            | Change::DropOpClass(_)
            | Change::PutSchema(_)
            | Change::DropSchema(_)
            | Change::SetAcl { .. }
            | Change::SetRoleSettings { .. }
            | Change::SetDefaultAcl { .. }
            | Change::SetExtension { .. } => unreachable!("applied above"),
        }
    }
}

/// The undo log entry of one schema change.
pub(crate) struct CatalogUndo {
    pub state: Arc<RwLock<State>>,
    pub version: Arc<AtomicU64>,
    pub store: Arc<Store>,
    /// The namespace the change applied to.
    pub ns: Ns,
    pub undo: Undo,
    /// Encoded redo record (None for TEMP objects).
    pub redo: Option<Vec<u8>>,
    /// The relation names this change claimed in `ns` (see
    /// `claims.rs`): released when it commits or is undone.
    pub claimed: Vec<String>,
    /// The function name this change claimed, likewise.
    pub fn_claimed: Option<String>,
    /// Keeps checkpoints out until the transaction ends.
    pub _gate: DdlGateGuard,
}

impl std::fmt::Debug for CatalogUndo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CatalogUndo({:?})", self.undo)
    }
}

impl DdlUndo for CatalogUndo {
    fn undo(&self) {
        {
            let mut state = self.state.write();
            if let Undo::Acl { key, prev } = &self.undo {
                match prev {
                    Some(p) => state.acls.insert(*key, p.clone()),
                    None => state.acls.remove(key),
                };
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::DefaultAcl { key, prev } = &self.undo {
                match prev {
                    Some(p) => state.default_acls.insert(*key, p.clone()),
                    None => state.default_acls.remove(key),
                };
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::Extension { name, prev } = &self.undo {
                match prev {
                    Some(p) => state.extensions.insert(name.clone(), p.clone()),
                    None => state.extensions.remove(name),
                };
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::RoleSettings { key, prev } = &self.undo {
                match prev {
                    Some(p) => state.role_settings.insert(*key, p.clone()),
                    None => state.role_settings.remove(key),
                };
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::Enum { put, prev } = &self.undo {
                if let Some(name) = put {
                    crate::enum_type::remove(&mut state.enums, name);
                }
                if let Some(p) = prev {
                    crate::enum_type::put(state.db, &mut state.enums, p.clone());
                }
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::Domain { put, prev } = &self.undo {
                if let Some(name) = put {
                    crate::domain::remove(&mut state.domains, name);
                }
                if let Some(p) = prev {
                    crate::domain::put(state.db, &mut state.domains, p.clone());
                }
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::Composite { put, prev } = &self.undo {
                if let Some(name) = put {
                    crate::composite::remove(&mut state.composites, name);
                }
                if let Some(p) = prev {
                    crate::composite::put(state.db, &mut state.composites, p.clone());
                }
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::Cast { key, prev } = &self.undo {
                match prev {
                    Some(p) => state.casts.insert(*key, p.clone()),
                    None => state.casts.remove(key),
                };
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::OpFamily { oid, prev } = &self.undo {
                match prev {
                    Some(p) => state.opfamilies.insert(*oid, p.clone()),
                    None => state.opfamilies.remove(oid),
                };
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::OpClass { oid, prev } = &self.undo {
                match prev {
                    Some(p) => state.opclasses.insert(*oid, p.clone()),
                    None => state.opclasses.remove(oid),
                };
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::Role { put, prev } = &self.undo {
                if let Some(name) = put {
                    state.roles.remove(name);
                }
                if let Some(p) = prev {
                    crate::role::put(&mut state.roles, p.clone());
                }
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            if let Undo::Schema { oid, prev } = &self.undo {
                match prev {
                    Some(p) => {
                        put_schema(&mut state, p.clone());
                    }
                    None => {
                        state.schemas.remove(oid);
                    }
                }
                drop(state);
                self.version.fetch_add(1, Ordering::AcqRel);
                return;
            }
            state.release(self.ns, &self.claimed);
            if let Some(name) = &self.fn_claimed {
                state.release_function(name);
            }
            let st = state.ns_mut(self.ns);
            match &self.undo {
                Undo::Table {
                    name,
                    prev,
                    created_storage,
                    ..
                } => undo_table(st, &self.store, name, prev, created_storage),
                Undo::Rename { prev, to } => {
                    st.remove_table(to);
                    st.put_table(prev.clone());
                }
                Undo::Comment { key, prev } => match prev {
                    Some(p) => {
                        st.comments.insert(*key, p.clone());
                    }
                    None => {
                        st.comments.remove(key);
                    }
                },
                Undo::View { name, prev } => match prev {
                    Some(p) => {
                        st.views.insert(name.clone(), p.clone());
                    }
                    None => {
                        st.views.remove(name);
                    }
                },
                Undo::Sequence { name, prev } => match prev {
                    Some(p) => {
                        st.sequences.insert(name.clone(), p.clone());
                    }
                    None => {
                        st.sequences.remove(name);
                    }
                },
                Undo::Function { name, put, prev } => {
                    if let Some(p) = put {
                        st.remove_function(name, p.oid);
                    }
                    if let Some(p) = prev {
                        st.put_function(p.clone());
                    }
                }
                Undo::Role { .. }
                | Undo::Enum { .. }
                | Undo::Domain { .. }
                | Undo::Composite { .. }
                | Undo::Cast { .. }
                | Undo::OpFamily { .. }
                | Undo::OpClass { .. }
                | Undo::Schema { .. }
                | Undo::Acl { .. }
                | Undo::RoleSettings { .. }
                | Undo::DefaultAcl { .. }
                | Undo::Extension { .. } => unreachable!("undone above"),
            }
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    fn redo(&self) -> Option<Vec<u8>> {
        self.redo.clone()
    }

    fn commit(&self) {
        if !self.claimed.is_empty() || self.fn_claimed.is_some() {
            // Other sessions see the change from now on.
            let mut state = self.state.write();
            state.release(self.ns, &self.claimed);
            if let Some(name) = &self.fn_claimed {
                state.release_function(name);
            }
            drop(state);
            self.version.fetch_add(1, Ordering::AcqRel);
        }
        if let Undo::Enum {
            put: Some(name), ..
        } = &self.undo
        {
            if let Some(def) = self.state.read().enums.get(name) {
                nestor_types::enums::clear_pending(def.labels.iter().map(|l| l.oid));
            }
            return;
        }
        let Undo::Table {
            free_on_commit: Some(s),
            name,
            ..
        } = &self.undo
        else {
            return;
        };
        let still_used = self
            .state
            .read()
            .ns(self.ns)
            .and_then(|n| n.tables.get(name))
            .is_some_and(|t| Arc::ptr_eq(&t.storage, s));
        if !still_used {
            self.store.drop_table(s.id);
        }
    }
}

/// Install a schema definition (keeping the objects of the schema with
/// its OID); returns the definition it replaced.
pub(crate) fn put_schema(
    state: &mut State,
    def: Arc<crate::SchemaDef>,
) -> Option<Arc<crate::SchemaDef>> {
    match state.schemas.get_mut(&def.oid.0) {
        Some(s) => {
            for t in s.ns.tables.values() {
                t.storage.set_schema(&def.name);
            }
            Some(std::mem::replace(&mut s.def, def))
        }
        None => {
            let ns = Namespace::default();
            state.schemas.insert(def.oid.0, crate::Schema { def, ns });
            None
        }
    }
}

fn undo_table(
    st: &mut Namespace,
    store: &Store,
    name: &str,
    prev: &Option<Arc<TableDef>>,
    created_storage: &Option<Arc<Table>>,
) {
    st.remove_table(name);
    if let Some(p) = prev {
        st.put_table(p.clone());
        // Indexes attached to shared storage by the change.
        sync_storage_indexes(p);
    }
    if let Some(s) = created_storage {
        let keep = prev.as_ref().is_some_and(|p| Arc::ptr_eq(&p.storage, s));
        if !keep {
            store.drop_table(s.id);
        }
    }
}

/// Make the storage table's attached indexes match a definition (after an
/// undo restored an older definition sharing the same storage, or after
/// recovery installed one).
pub fn sync_storage_indexes(def: &TableDef) {
    let want: Vec<RelId> = def.indexes.iter().map(|i| i.oid).collect();
    for idx in def.storage.indexes() {
        if !want.contains(&idx.id) {
            def.storage.drop_index(idx.id);
        }
    }
    let have: Vec<RelId> = def.storage.indexes().iter().map(|i| i.id).collect();
    for i in &def.indexes {
        if !have.contains(&i.oid) {
            // Re-attaching an index that existed before cannot violate
            // uniqueness that held before.
            let _ = def.storage.add_index(i.index.clone());
        }
    }
}
