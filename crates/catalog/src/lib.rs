//! # nestor-catalog: relations, sequences and their redo
//!
//! The catalog maps names to immutable definitions behind `Arc`s. A schema
//! change builds a new definition and swaps it in (copy on write), so a
//! running statement keeps the definition it was planned with and readers
//! never see a half-changed table. Every change bumps [`Catalog::version`];
//! cached plans compare it and re-plan when it moved.
//!
//! ```text
//!   Catalog
//!     tables:    "accounts" -> TableDef { oid 16384, columns, checks,
//!                                         indexes [accounts_pkey 16386],
//!                                         storage: Arc<Table 16385> }
//!     sequences: "accounts_id_seq" -> Sequence { oid 16387, state (42, called) }
//!     index_owner: "accounts_pkey" -> "accounts"
//! ```
//!
//! Changes are transactional through the transaction's undo log (see
//! [`change`]): ROLLBACK and ROLLBACK TO swap the previous definitions back.
//! The catalog itself is not versioned by snapshot: a change is in place as
//! soon as it is made. Other sessions do not use it before it commits
//! because the statement that made it holds the relation's lock (taken by
//! the executor, `exec/src/relation_lock.rs`), and because the names it
//! changed are claimed ([`claims`]): other sessions resolve and list them
//! as committed.
//!
//! Durability: each change's redo is a typed [`record::CatalogRecord`]
//! describing its result; recovery installs records with [`Catalog::replay`]
//! (no SQL is parsed or executed), and a checkpoint writes the current
//! catalog as records ([`Catalog::image`]) under the [`gate::DdlGate`], so its
//! image holds exactly the committed schema.
//!
//! Relation OIDs come from one counter starting at 16384
//! (FirstNormalObjectId). A table's storage has its own relation id from the
//! same counter: TRUNCATE swaps in fresh storage, keeping the table's OID.
//! Sequences are not transactional (as in PostgreSQL): nextval's effect
//! survives a rollback; every commit logs the states advanced since the
//! previous one ([`Catalog::sequence_hook`]).
//!
//! TEMP tables and their sequences live in a namespace of the session that
//! created them (PostgreSQL's pg_temp_N): a [`Catalog`] handle made with
//! [`Catalog::for_session`] resolves names in its session's namespace first,
//! then in `public`, and no other session sees them. They are never logged,
//! their ON COMMIT actions run after each commit ([`Catalog::after_commit`]),
//! and they are dropped when the session ends
//! ([`Catalog::drop_temp_objects`]).
//!
//! ```text
//!   State
//!     public:  "t" -> TableDef (permanent)
//!     temp[session 7]: "t" -> TableDef (TEMP, ON COMMIT DELETE ROWS)
//!   session 7 resolves "t" to its TEMP t; session 8 to public t
//! ```
//!
//! Roles ([`role`]) and the owners and ACLs of objects ([`acl`]) are kept
//! beside the namespaces and change the same way, and so are enum types
//! ([`enum_type`]), which are also mirrored into the value layer's
//! registry (`nestor_types::enums`); user casts ([`cast`]) and operator
//! classes and families ([`opclass`]) are kept there too, by OID.
//!
//! Schemas other than `public` ([`SchemaDef`], PostgreSQL's pg_namespace
//! rows) each hold a [`Namespace`] of their own, keyed by OID. Objects in
//! them are named to the catalog as `schema.name`: every lookup splits a
//! name at its first dot when the part before it names a schema
//! (`public`, `pg_temp` or one created), so the unqualified lookup of a
//! public table costs one scan of its name for a dot and allocates
//! nothing; a name whose prefix is no schema is looked up whole (a table
//! may be called `"a.b"`).
//!
//! ```text
//!   State
//!     public:  "t" -> TableDef { namespace 2200 }
//!     schemas: 16390 -> Schema { app, "t" -> TableDef { namespace 16390 } }
//!   "t" resolves in public; "app.t" in app; "nosuch.t" is looked up as "nosuch.t"
//! ```
//!
//! Changes to a schema's objects are logged wrapped in
//! [`CatalogRecord::InSchema`]; records outside one apply in `public`
//! (those of data directories older than schemas included).
//!
//! Unqualified names follow the session's search_path: a session's handle
//! keeps the namespaces the setting names that exist ([`Catalog::set_search_path`],
//! called by the session when the setting, its role or the catalog moved),
//! searched after its TEMP namespace unless the path lists pg_temp; new
//! relations go to the first of them. Other handles (recovery, background
//! work) search `public` only. The path is a short vector read under its
//! own lock: a lookup still allocates nothing.
//!
//! Databases ([`database`]) are the level above: each has a [`State`] of
//! its own (everything above is per database), a handle is for one
//! database, and roles live in the cluster's shared state.
//!
//! Left out: functions in schemas other than `public`, dependency
//! tracking beyond serial sequences owned by their column.

#![forbid(unsafe_code)]

pub mod acl;
pub mod cast;
pub mod change;
mod claims;
pub mod composite;
pub mod database;
pub mod defs;
pub mod domain;
pub mod enum_type;
pub mod function;
pub mod gate;
pub mod gin;
pub mod opclass;
pub mod partition;
pub mod partition_index;
pub mod record;
pub mod role;
pub mod row_type;
pub mod verifier;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use nestor_common::{DbError, RelId, SessionId, SqlState};
pub use nestor_storage::{key_form, IndexKeys};
use nestor_storage::{Index, Store, Table};
use nestor_txn::{DataUndo, Transaction};
use nestor_types::composites::CompositeDef;
use nestor_types::domains::DomainDef;
use nestor_types::enums::EnumDef;
use parking_lot::{Mutex, RwLock};

pub use change::{sync_storage_indexes, Change};
pub use database::{
    DatabaseDef, POSTGRES_DATABASE_OID, TEMPLATE0_DATABASE_OID, TEMPLATE1_DATABASE_OID,
};
pub use defs::{
    index_fill, set_index_binder, Check, Column, FkAction, ForeignKey, Identity, IndexBinder,
    IndexDef, IndexExprs, IndexKey, IndexKeyOpt, MatView, OnCommit, Persistence, Relation, RuleDef,
    RuleEvent, Sequence, TableDef, TriggerDef, TriggerEnabled, TriggerTiming, ViewCheckOption,
    ViewDef, TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_TRUNCATE, TRIGGER_UPDATE,
};
pub use function::{
    AggregateSpec, ArgMode, FuncArg, FunctionDef, FunctionRef, Language, Returns, Volatility,
};
pub use gate::{DdlGate, DdlGateGuard};
pub use opclass::AccessMethod;
pub use record::{
    CatalogRecord, ColumnRecord, FunctionRecord, IndexRecord, SequenceRecord, SequenceState,
    TableRecord,
};
pub use role::{Membership, RoleDef, BOOTSTRAP_SUPERUSER_OID};

/// First OID handed out to user objects (PostgreSQL's FirstNormalObjectId).
pub(crate) const FIRST_USER_OID: u32 = 16384;
/// OID of the `public` namespace (as in PostgreSQL).
pub const PUBLIC_NAMESPACE_OID: u32 = 2200;
/// A relation name given as text (`'MyTable'::regclass`, nextval's
/// argument, pg_get_serial_sequence's table) as PostgreSQL's
/// stringToQualifiedNameList reads it: dot-separated identifiers, each
/// folded to lower case unless double-quoted (`""` is a quote inside),
/// blanks around them ignored; returned joined by dots, as
/// [`Catalog::relation`] takes a name. 42602 "invalid name syntax" for an
/// empty part or unbalanced quotes.
pub fn qualified_name(text: &str) -> Result<String, DbError> {
    let invalid = || DbError::new(SqlState::InvalidName, "invalid name syntax");
    let mut parts: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut part = String::new();
        if chars.next_if_eq(&'"').is_some() {
            loop {
                match chars.next() {
                    Some('"') if chars.next_if_eq(&'"').is_some() => part.push('"'),
                    Some('"') => break,
                    Some(c) => part.push(c),
                    None => return Err(invalid()),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| *c != '.' && !c.is_whitespace()) {
                part.push(c.to_ascii_lowercase());
            }
            if part.is_empty() {
                return Err(invalid());
            }
        }
        parts.push(part);
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        match chars.next() {
            None => break,
            Some('.') => continue,
            Some(_) => return Err(invalid()),
        }
    }
    Ok(parts.join("."))
}

/// The `namespace` of TEMP objects: each session's own (pg_temp_N).
pub const TEMP_NAMESPACE: u32 = 0;
/// OID of the `pg_catalog` namespace.
pub const PG_CATALOG_NAMESPACE_OID: u32 = 11;

/// Which namespace a name lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ns {
    Public,
    /// The TEMP objects of one session.
    Temp(SessionId),
    /// A schema made by CREATE SCHEMA, by OID.
    Schema(u32),
}

impl Ns {
    /// The pg_namespace OID of a permanent namespace (`public` for TEMP).
    fn oid(self) -> u32 {
        match self {
            Ns::Schema(oid) => oid,
            Ns::Public | Ns::Temp(_) => PUBLIC_NAMESPACE_OID,
        }
    }
}

/// A schema other than `public` (a pg_namespace row; its owner and ACL
/// are kept with those of other objects, see [`acl`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaDef {
    pub oid: RelId,
    pub name: String,
}

/// A schema and the objects in it.
pub(crate) struct Schema {
    pub def: Arc<SchemaDef>,
    pub ns: Namespace,
}

/// A session's search_path as the namespaces it names that exist, in
/// order (`pg_temp` where it is listed): what [`Catalog::set_search_path`]
/// made of the setting.
type SearchPath = Vec<Ns>;

/// A search path saved by [`Catalog::push_search_path`].
pub struct SavedSearchPath(SearchPath);

/// Most entries search_path resolves to (longer settings are cut).
pub const SEARCH_PATH_ENTRIES_MAX: usize = 64;

/// The name maps of one namespace.
#[derive(Default)]
pub(crate) struct Namespace {
    pub tables: BTreeMap<String, Arc<TableDef>>,
    /// index name -> table name
    pub index_owner: HashMap<String, String>,
    pub sequences: BTreeMap<String, Arc<Sequence>>,
    pub views: BTreeMap<String, Arc<ViewDef>>,
    /// COMMENT ON: (classoid, objoid, objsubid) -> text (public only).
    pub comments: BTreeMap<(u32, u32, i32), String>,
    /// Functions and procedures by name; overloads differ in input types.
    pub functions: BTreeMap<String, Vec<Arc<FunctionDef>>>,
}

/// Every namespace of one database, under one lock (roles: of the
/// cluster's shared state, see [`database`]).
#[derive(Default)]
pub(crate) struct State {
    /// The database's OID (0: the cluster's shared state).
    pub db: u32,
    pub public: Namespace,
    pub temp: HashMap<SessionId, Namespace>,
    /// Schemas other than `public`, by OID.
    pub schemas: BTreeMap<u32, Schema>,
    /// Roles by name (server-wide, see [`role`]).
    pub roles: BTreeMap<String, Arc<RoleDef>>,
    /// Owners and ACLs changed from the default, by (class, object) OID
    /// (see [`acl`]).
    pub acls: BTreeMap<(u32, u32), acl::ObjAcl>,
    /// Session defaults of ALTER ROLE / DATABASE ... SET, by (database
    /// OID, role OID), 0 meaning all (PostgreSQL's pg_db_role_setting).
    pub role_settings: BTreeMap<(u32, u32), RoleSettings>,
    /// ALTER DEFAULT PRIVILEGES, by (role, schema OID or 0, object type
    /// letter): PostgreSQL's pg_default_acl (see [`acl`]).
    pub default_acls: BTreeMap<(u32, u32, u8), Vec<acl::AclItem>>,
    /// Installed extensions by name (CREATE EXTENSION).
    pub extensions: BTreeMap<String, defs::ExtensionDef>,
    /// Enum types by name (in `public`; see [`enum_type`]).
    pub enums: BTreeMap<String, Arc<EnumDef>>,
    /// Domains by name (in `public`; see [`domain`]).
    pub domains: BTreeMap<String, Arc<DomainDef>>,
    /// Composite types by name (in `public`; see [`composite`]).
    pub composites: BTreeMap<String, Arc<CompositeDef>>,
    /// User casts by (source, target) type OID (see [`cast`]).
    pub casts: BTreeMap<(u32, u32), Arc<cast::CastDef>>,
    /// User operator families and classes by OID (see [`opclass`]).
    pub opfamilies: BTreeMap<u32, Arc<opclass::OpFamilyDef>>,
    pub opclasses: BTreeMap<u32, Arc<opclass::OpClassDef>>,
    /// Some table has (or had) parents: until then no scan looks for
    /// children (sticky, so it never has to be recomputed on undo).
    pub inheritance: bool,
    /// Relation names in-progress transactions have changed (see
    /// [`claims`]).
    pub claims: claims::Claims,
    /// Function names in-progress transactions have changed.
    pub fn_claims: HashMap<String, claims::FnClaim>,
    /// Recovery: tables whose computed indexes did not bind yet (an index
    /// expression calling a function the image lists after its table),
    /// bound again as functions arrive and at [`Catalog::finish_replay`].
    pub unbound: Vec<(Ns, String)>,
}

/// One pg_db_role_setting entry's `name=value` pairs, in the order they
/// were first set.
pub type RoleSettings = Vec<(String, String)>;

impl State {
    pub(crate) fn ns(&self, ns: Ns) -> Option<&Namespace> {
        match ns {
            Ns::Public => Some(&self.public),
            Ns::Temp(s) => self.temp.get(&s),
            Ns::Schema(oid) => self.schemas.get(&oid).map(|s| &s.ns),
        }
    }

    /// The namespace a change applies to; a schema's must exist (checked
    /// by [`Catalog::namespace_of`] and by replay).
    pub(crate) fn ns_mut(&mut self, ns: Ns) -> &mut Namespace {
        match ns {
            Ns::Public => &mut self.public,
            Ns::Temp(s) => self.temp.entry(s).or_default(),
            Ns::Schema(oid) => {
                &mut self
                    .schemas
                    .get_mut(&oid)
                    .expect("a change applies in an existing schema")
                    .ns
            }
        }
    }

    /// The namespace a schema name denotes for `session`.
    fn schema_ns(&self, session: Option<SessionId>, schema: &str) -> Option<Ns> {
        match schema {
            "public" => Some(Ns::Public),
            "pg_temp" => session.map(Ns::Temp),
            s => self
                .schemas
                .values()
                .find(|x| x.def.name == s)
                .map(|x| Ns::Schema(x.def.oid.0)),
        }
    }

    /// Where `name` resolves for `session` searching `path`, and the name
    /// without its qualifier: the namespace a `schema.` prefix names,
    /// else the session's TEMP objects (first unless `path` lists
    /// pg_temp, as in PostgreSQL) and the path's namespaces in order.
    fn scope<'a>(
        &'a self,
        session: Option<SessionId>,
        path: &'a [Ns],
        name: &'a str,
    ) -> (impl Iterator<Item = (Ns, &'a Namespace)> + 'a, &'a str) {
        let (only, bare) = match name.split_once('.') {
            Some((schema, bare)) => match self.schema_ns(session, schema) {
                Some(ns) => (Some(ns), bare),
                None => (None, name),
            },
            None => (None, name),
        };
        let searched = if only.is_some() { &path[..0] } else { path };
        let temp = match (only, session) {
            (None, Some(s)) if !path.contains(&Ns::Temp(s)) => Some(Ns::Temp(s)),
            _ => None,
        };
        let found = only
            .into_iter()
            .chain(temp)
            .chain(searched.iter().copied())
            .filter_map(move |ns| self.ns(ns).map(|n| (ns, n)));
        (found, bare)
    }

    /// The namespace unqualified names are created in: the first of
    /// `path` other than pg_temp.
    fn creation_ns(path: &[Ns]) -> Option<Ns> {
        path.iter().copied().find(|ns| !matches!(ns, Ns::Temp(_)))
    }

    /// Every namespace `session` sees: its TEMP objects, `public`, then
    /// the schemas.
    fn all(&self, session: Option<SessionId>) -> impl Iterator<Item = (Ns, &Namespace)> {
        let temp = session.and_then(|s| self.temp.get(&s).map(|n| (Ns::Temp(s), n)));
        temp.into_iter()
            .chain(std::iter::once((Ns::Public, &self.public)))
            .chain(
                self.schemas
                    .iter()
                    .map(|(oid, s)| (Ns::Schema(*oid), &s.ns)),
            )
    }

    /// The namespace holding a relation named (maybe qualified) `name` in
    /// the map `has` checks, and its bare name.
    fn find<'a>(
        &'a self,
        session: Option<SessionId>,
        path: &'a [Ns],
        name: &'a str,
        has: impl Fn(&Namespace, &str) -> bool,
    ) -> Option<(Ns, &'a str)> {
        let (mut scope, bare) = self.scope(session, path, name);
        let ns = scope.find(|(_, n)| has(n, bare))?.0;
        Some((ns, bare))
    }
}

impl Namespace {
    /// Install a table definition under its name; returns the previous one.
    pub(crate) fn put_table(&mut self, def: Arc<TableDef>) -> Option<Arc<TableDef>> {
        let before = nestor_types::composites::lookup(def.oid.0);
        let prev = self.remove_table(&def.name);
        for i in &def.indexes {
            self.index_owner.insert(i.name.clone(), def.name.clone());
            // Renames (and their undo) reach the storage index's name.
            i.index.set_name(&i.name);
        }
        row_type::note(&def);
        if let (Some(before), Some(now)) = (before, nestor_types::composites::lookup(def.oid.0)) {
            if before.attrs != now.attrs {
                self.follow_row_type(def.oid.0, now.data_type());
            }
        }
        self.tables.insert(def.name.clone(), def);
        prev
    }

    /// Table `oid`'s row type changed (ALTER TABLE ADD/DROP/ALTER
    /// COLUMN): the functions taking or returning it take the new one,
    /// and every function is compiled afresh (a PL/pgSQL variable
    /// declared of the type has its shape from compilation).
    fn follow_row_type(&mut self, oid: u32, now: nestor_types::DataType) {
        let follow = |t: &mut nestor_types::DataType| {
            if matches!(t, nestor_types::DataType::Record(r) if r.oid == oid) {
                *t = now;
            }
        };
        for list in self.functions.values_mut() {
            for f in list.iter_mut() {
                let mut new = (**f).clone();
                new.args.iter_mut().for_each(|a| follow(&mut a.ty));
                if let Returns::Scalar(t) = &mut new.returns {
                    follow(t);
                }
                *f = Arc::new(new);
            }
        }
    }

    pub(crate) fn remove_table(&mut self, name: &str) -> Option<Arc<TableDef>> {
        let prev = self.tables.remove(name)?;
        for i in &prev.indexes {
            self.index_owner.remove(&i.name);
        }
        row_type::forget(prev.oid.0);
        Some(prev)
    }

    /// Install a function, replacing the one with the same OID or the
    /// same name and input types; returns the replaced one.
    pub(crate) fn put_function(&mut self, def: Arc<FunctionDef>) -> Option<Arc<FunctionDef>> {
        let inputs = def.input_types();
        let list = self.functions.entry(def.name.clone()).or_default();
        let pos = list
            .iter()
            .position(|f| f.oid == def.oid || f.same_signature(&def.name, &inputs));
        match pos {
            Some(i) => Some(std::mem::replace(&mut list[i], def)),
            None => {
                list.push(def);
                None
            }
        }
    }

    /// Remove the function with this OID (under `name`).
    pub(crate) fn remove_function(&mut self, name: &str, oid: RelId) -> Option<Arc<FunctionDef>> {
        let list = self.functions.get_mut(name)?;
        let i = list.iter().position(|f| f.oid == oid)?;
        let prev = list.remove(i);
        if list.is_empty() {
            self.functions.remove(name);
        }
        Some(prev)
    }

    /// A relation name of any kind in this namespace.
    fn relation(&self, name: &str) -> Option<Relation> {
        if let Some(t) = self.tables.get(name) {
            return Some(Relation::Table(t.clone()));
        }
        if let Some(t) = self.index_owner.get(name) {
            let table = self.tables.get(t)?.clone();
            return Some(Relation::Index {
                table,
                index: name.to_string(),
            });
        }
        if let Some(v) = self.views.get(name) {
            return Some(Relation::View(v.clone()));
        }
        self.sequences
            .get(name)
            .map(|s| Relation::Sequence(s.clone()))
    }
}

/// A handle on the catalog. Clones share everything; a handle made by
/// [`Catalog::for_session`] also sees that session's TEMP objects.
#[derive(Clone)]
pub struct Catalog {
    /// This handle's database's objects.
    state: Arc<RwLock<State>>,
    /// The roles and the databases (see [`database`]).
    cluster: Arc<database::Cluster>,
    /// This handle's database's OID.
    db: u32,
    next_oid: Arc<AtomicU32>,
    version: Arc<AtomicU64>,
    /// currval() per (session, sequence oid).
    currvals: Arc<Mutex<HashMap<(SessionId, RelId), i64>>>,
    gate: Arc<DdlGate>,
    /// The session whose TEMP namespace this handle resolves names in.
    session: Option<SessionId>,
    /// The session has created a TEMP object (shared by the session's
    /// clones of the handle): only then is there work after commits and
    /// at session end.
    made_temp: Arc<AtomicBool>,
    /// The session's search_path (`public` for other handles).
    path: Arc<RwLock<SearchPath>>,
    /// Whom row-level security is planned for ([`RlsUser`], packed:
    /// role OID, bit 32 row_security off); 0 for handles that bypass it
    /// (recovery, background work, superuser sessions).
    rls_user: Arc<AtomicU64>,
}

/// Whom a statement planned through a handle runs as, for row-level
/// security: the current role unless it bypasses RLS (superuser,
/// BYPASSRLS: `role` 0), and the session's `row_security` setting. The
/// session sets it with [`Catalog::set_rls_user`]; plans that applied
/// policies depend on it, so a change bumps [`Catalog::version`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RlsUser {
    /// The current role's OID; 0: it bypasses row-level security.
    pub role: u32,
    /// The `row_security` setting (off: a query policies would affect
    /// fails instead).
    pub row_security: bool,
}

impl RlsUser {
    fn pack(self) -> u64 {
        u64::from(self.role) | u64::from(!self.row_security) << 32
    }

    fn unpack(v: u64) -> RlsUser {
        RlsUser {
            role: v as u32,
            row_security: v >> 32 == 0,
        }
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}

impl Catalog {
    /// The catalog of a new cluster (template1, template0, postgres), and
    /// a handle on its `postgres` database.
    pub fn new() -> Catalog {
        let cluster = Arc::new(database::Cluster::new());
        let home = cluster
            .entry(POSTGRES_DATABASE_OID)
            .map(|e| e.state)
            .unwrap_or_default();
        Catalog {
            state: home,
            cluster,
            db: POSTGRES_DATABASE_OID,
            next_oid: Arc::new(AtomicU32::new(FIRST_USER_OID)),
            version: Arc::new(AtomicU64::new(1)),
            currvals: Arc::new(Mutex::new(HashMap::new())),
            gate: Arc::new(DdlGate::default()),
            session: None,
            made_temp: Arc::new(AtomicBool::new(false)),
            path: Arc::new(RwLock::new(vec![Ns::Public])),
            rls_user: Arc::new(AtomicU64::new(0)),
        }
    }

    /// A handle for one session: names resolve in its TEMP namespace
    /// first, and TEMP objects it creates go there.
    pub fn for_session(&self, session: SessionId) -> Catalog {
        Catalog {
            session: Some(session),
            made_temp: Arc::new(AtomicBool::new(false)),
            path: Arc::new(RwLock::new(vec![Ns::Public])),
            rls_user: Arc::new(AtomicU64::new(0)),
            ..self.clone()
        }
    }

    /// Whom row-level security is planned for through this handle.
    pub fn rls_user(&self) -> RlsUser {
        RlsUser::unpack(self.rls_user.load(Ordering::Acquire))
    }

    /// Set whom row-level security is planned for (the session calls
    /// this when its role or `row_security` may have changed). A change
    /// bumps [`Catalog::version`], so plans are made again, when some
    /// table has row-level security enabled (a plan made without one
    /// holds for every role; enabling it bumps the version anyway), so
    /// sessions of ordinary roles connecting do not re-plan everyone's
    /// statements.
    pub fn set_rls_user(&self, user: RlsUser) {
        let packed = user.pack();
        if self.rls_user.swap(packed, Ordering::AcqRel) != packed
            && self.tables().iter().any(|t| t.row_security.enabled)
        {
            self.version.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// A handle on the database named `name` (no session's), or None when
    /// there is none.
    pub fn for_database(&self, name: &str) -> Option<Catalog> {
        let e = self.cluster.entry_named(name)?;
        Some(self.on_entry(e))
    }

    /// A handle on the database with this OID (no session's).
    fn on_database(&self, oid: u32) -> Option<Catalog> {
        let e = self.cluster.entry(oid)?;
        Some(self.on_entry(e))
    }

    fn on_entry(&self, e: database::DbEntry) -> Catalog {
        Catalog {
            state: e.state,
            db: e.def.oid.0,
            session: None,
            made_temp: Arc::new(AtomicBool::new(false)),
            path: Arc::new(RwLock::new(vec![Ns::Public])),
            rls_user: Arc::new(AtomicU64::new(0)),
            ..self.clone()
        }
    }

    /// The OID of this handle's database.
    pub fn database_oid(&self) -> u32 {
        self.db
    }

    /// Every database, by OID.
    pub fn databases(&self) -> Vec<Arc<DatabaseDef>> {
        let dbs = self.cluster.databases.read();
        let all = dbs.values().map(|e| e.def.clone()).collect();
        all
    }

    /// The database named `name`.
    pub fn database(&self, name: &str) -> Option<Arc<DatabaseDef>> {
        self.cluster.entry_named(name).map(|e| e.def)
    }

    /// The database with this OID.
    pub fn database_by_oid(&self, oid: u32) -> Option<Arc<DatabaseDef>> {
        self.cluster.entry(oid).map(|e| e.def)
    }

    /// CREATE DATABASE (a new OID in `def`) and ALTER DATABASE (RENAME,
    /// OWNER: the OID of an existing one): install `def` now, with its
    /// undo in `txn`. A new database is empty.
    pub fn put_database(
        &self,
        txn: &mut Transaction,
        store: &Arc<Store>,
        def: DatabaseDef,
    ) -> Result<(), DbError> {
        let token = self.gate.enter();
        let oid = def.oid.0;
        let redo = CatalogRecord::PutDatabase(def.clone()).encode();
        let prev = self.cluster.put(def);
        self.database_undo(txn, store, oid, prev, false, redo, token)
    }

    /// DROP DATABASE: take the database with this OID out now; its
    /// storage is freed at commit.
    pub fn drop_database(
        &self,
        txn: &mut Transaction,
        store: &Arc<Store>,
        oid: u32,
    ) -> Result<(), DbError> {
        let token = self.gate.enter();
        let prev = self.cluster.databases.write().remove(&oid);
        if prev.is_none() {
            return Err(database::vanished());
        }
        let redo = CatalogRecord::DropDatabase { oid: RelId(oid) }.encode();
        self.database_undo(txn, store, oid, prev, true, redo, token)
    }

    #[allow(clippy::too_many_arguments)]
    fn database_undo(
        &self,
        txn: &mut Transaction,
        store: &Arc<Store>,
        oid: u32,
        prev: Option<database::DbEntry>,
        dropped: bool,
        redo: Vec<u8>,
        token: DdlGateGuard,
    ) -> Result<(), DbError> {
        self.version.fetch_add(1, Ordering::AcqRel);
        txn.assign_xid();
        let entry = Arc::new(database::DatabaseUndo {
            cluster: self.cluster.clone(),
            version: self.version.clone(),
            store: store.clone(),
            oid,
            prev,
            dropped,
            redo,
            _gate: token,
        });
        if let Err(e) = txn.push_undo(DataUndo::Ddl(entry.clone())) {
            nestor_txn::DdlUndo::undo(entry.as_ref());
            return Err(DbError::from(e));
        }
        Ok(())
    }

    /// Bumped by every schema change; plans made at an older version are
    /// re-planned.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Whom a plan made through this handle holds for (at this version):
    /// every session without TEMP objects (None), or, once this session
    /// has made one, this session alone (its names may resolve to them).
    pub fn plan_scope(&self) -> Option<SessionId> {
        match self.session {
            Some(s) if self.made_temp.load(Ordering::Acquire) => Some(s),
            Some(s) if *self.path.read() != [Ns::Public] => Some(s),
            // Its plans applied (or may apply) its role's policies.
            Some(s) if self.rls_user.load(Ordering::Acquire) != 0 => Some(s),
            // What this session resolves differs from what others do while
            // some transaction's DDL is in progress (see [`claims`]).
            Some(s) if self.state.read().has_claims() => Some(s),
            _ => None,
        }
    }

    /// Set the session's search_path from the setting's items (unquoted;
    /// `$user` stands for `user`): the schemas among them that exist, in
    /// order. A change bumps [`Catalog::version`] (plans resolved names
    /// with the old path); the session calls this whenever the setting,
    /// the role or the catalog may have changed, so a schema created
    /// later joins the path as in PostgreSQL.
    pub fn set_search_path<'a>(&self, items: impl Iterator<Item = &'a str>, user: &str) {
        let path: SearchPath = {
            let st = self.state.read();
            let mut path = Vec::new();
            for item in items.take(SEARCH_PATH_ENTRIES_MAX) {
                let name = if item == "$user" { user } else { item };
                let ns = match name {
                    "pg_temp" => self.session.map(Ns::Temp),
                    "pg_catalog" | "" => None,
                    n => st.schema_ns(self.session, n),
                };
                if let Some(ns) = ns.filter(|ns| !path.contains(ns)) {
                    path.push(ns);
                }
            }
            path
        };
        if *self.path.read() == path {
            return;
        }
        *self.path.write() = path;
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Put schema `namespace` in front of the search path (CREATE SCHEMA
    /// runs its elements so, as PostgreSQL does); returns the path to put
    /// back with [`Catalog::restore_search_path`].
    pub fn push_search_path(&self, namespace: u32) -> SavedSearchPath {
        let mut path = self.path.write();
        let saved = path.clone();
        path.insert(0, Ns::Schema(namespace));
        SavedSearchPath(saved)
    }

    /// Search `public` only (a view's query is planned so: the catalog
    /// keeps the names it read elsewhere qualified); returns the path to
    /// put back with [`Catalog::restore_search_path`].
    pub fn enter_view_path(&self) -> SavedSearchPath {
        let mut path = self.path.write();
        SavedSearchPath(std::mem::replace(&mut *path, vec![Ns::Public]))
    }

    /// Put back the path [`Catalog::push_search_path`] saved.
    pub fn restore_search_path(&self, saved: SavedSearchPath) {
        *self.path.write() = saved.0;
    }

    /// The schemas of the search path (pg_temp_N excluded), by name:
    /// current_schemas(false).
    pub fn search_path_schemas(&self) -> Vec<String> {
        let path = self.path.read();
        path.iter()
            .filter_map(|ns| match ns {
                Ns::Temp(_) => None,
                ns => self.schema_name(ns.oid()),
            })
            .collect()
    }

    /// Whether the search path lists pg_temp (then TEMP objects are not
    /// searched first).
    pub fn search_path_lists_temp(&self) -> bool {
        self.path.read().iter().any(|ns| matches!(ns, Ns::Temp(_)))
    }

    /// The gate checkpoints take to cut the catalog consistently.
    pub fn gate(&self) -> &DdlGate {
        &self.gate
    }

    pub fn alloc_oid(&self) -> RelId {
        RelId(self.next_oid.fetch_add(1, Ordering::Relaxed))
    }

    /// Recovery: never allocate below `next`.
    pub fn ensure_next_oid(&self, next: u32) {
        self.next_oid.fetch_max(next, Ordering::Relaxed);
    }

    pub fn next_oid(&self) -> u32 {
        self.next_oid.load(Ordering::Relaxed)
    }

    /// The enum type `name`.
    pub fn enum_type(&self, name: &str) -> Option<Arc<EnumDef>> {
        self.state.read().enums.get(name).cloned()
    }

    /// Every enum type, by name.
    pub fn enum_types(&self) -> Vec<Arc<EnumDef>> {
        self.state.read().enums.values().cloned().collect()
    }

    /// The domain `name`.
    pub fn domain(&self, name: &str) -> Option<Arc<DomainDef>> {
        self.state.read().domains.get(name).cloned()
    }

    /// Every domain, by name.
    pub fn domains(&self) -> Vec<Arc<DomainDef>> {
        self.state.read().domains.values().cloned().collect()
    }

    /// The composite type `name`.
    pub fn composite(&self, name: &str) -> Option<Arc<CompositeDef>> {
        self.state.read().composites.get(name).cloned()
    }

    /// Every composite type, by name.
    pub fn composites(&self) -> Vec<Arc<CompositeDef>> {
        self.state.read().composites.values().cloned().collect()
    }

    /// The user cast from type OID `source` to `target`.
    pub fn cast(&self, source: u32, target: u32) -> Option<Arc<cast::CastDef>> {
        let st = self.state.read();
        if st.casts.is_empty() {
            return None;
        }
        st.casts.get(&(source, target)).cloned()
    }

    /// Every user cast, by (source, target).
    pub fn casts(&self) -> Vec<Arc<cast::CastDef>> {
        self.state.read().casts.values().cloned().collect()
    }

    /// Every user operator family, by OID.
    pub fn opfamilies(&self) -> Vec<Arc<opclass::OpFamilyDef>> {
        self.state.read().opfamilies.values().cloned().collect()
    }

    /// Every user operator class, by OID.
    pub fn opclasses(&self) -> Vec<Arc<opclass::OpClassDef>> {
        self.state.read().opclasses.values().cloned().collect()
    }

    /// The user operator class with OID `oid`.
    pub fn opclass_by_oid(&self, oid: u32) -> Option<Arc<opclass::OpClassDef>> {
        self.state.read().opclasses.get(&oid).cloned()
    }

    /// The user operator class `name` of access method `am`.
    pub fn opclass(
        &self,
        am: opclass::AccessMethod,
        name: &str,
    ) -> Option<Arc<opclass::OpClassDef>> {
        let st = self.state.read();
        st.opclasses
            .values()
            .find(|c| c.am == am && c.name == name)
            .cloned()
    }

    /// The user operator family `name` of access method `am`.
    pub fn opfamily(
        &self,
        am: opclass::AccessMethod,
        name: &str,
    ) -> Option<Arc<opclass::OpFamilyDef>> {
        let st = self.state.read();
        st.opfamilies
            .values()
            .find(|f| f.am == am && f.name == name)
            .cloned()
    }

    /// The role named `name`.
    pub fn role(&self, name: &str) -> Option<Arc<RoleDef>> {
        self.cluster.shared.read().roles.get(name).cloned()
    }

    /// The role with this OID.
    pub fn role_by_oid(&self, oid: RelId) -> Option<Arc<RoleDef>> {
        let st = self.cluster.shared.read();
        let found = st.roles.values().find(|r| r.oid == oid).cloned();
        found
    }

    /// Every role, by name.
    pub fn roles(&self) -> Vec<Arc<RoleDef>> {
        self.cluster.shared.read().roles.values().cloned().collect()
    }

    /// The owner and ACL of an object (the default when never changed).
    pub fn acl(&self, kind: acl::ObjKind, oid: u32) -> acl::ObjAcl {
        let st = self.state.read();
        st.acls
            .get(&(kind.class(), oid))
            .cloned()
            .unwrap_or_else(|| acl::ObjAcl::default_for(kind, oid))
    }

    /// Every pg_db_role_setting entry: (database OID, role OID; 0 for
    /// all) and its `name=value` settings in the order they were first set.
    pub fn role_settings(&self) -> Vec<((u32, u32), RoleSettings)> {
        let st = self.cluster.shared.read();
        let all = st
            .role_settings
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        all
    }

    /// The settings one (database, role) entry holds (empty: none).
    pub fn role_setting(&self, key: (u32, u32)) -> RoleSettings {
        self.cluster
            .shared
            .read()
            .role_settings
            .get(&key)
            .cloned()
            .unwrap_or_default()
    }

    /// Every pg_default_acl entry.
    /// The installed extensions, by name.
    pub fn extensions(&self) -> Vec<(String, defs::ExtensionDef)> {
        let st = self.state.read();
        st.extensions
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Whether extension `name` is installed in this database.
    pub fn has_extension(&self, name: &str) -> bool {
        self.state.read().extensions.contains_key(name)
    }

    pub fn default_acls(&self) -> Vec<((u32, u32, u8), Vec<acl::AclItem>)> {
        let st = self.state.read();
        let all = st
            .default_acls
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        all
    }

    /// One pg_default_acl entry.
    pub fn default_acl(&self, key: (u32, u32, u8)) -> Option<Vec<acl::AclItem>> {
        self.state.read().default_acls.get(&key).cloned()
    }

    /// Every changed owner/ACL entry (objects may since be gone).
    pub fn acls(&self) -> Vec<((u32, u32), acl::ObjAcl)> {
        let st = self.state.read();
        let all = st.acls.iter().map(|(k, a)| (*k, a.clone())).collect();
        all
    }

    /// Whether `member` has the privileges of `role`: it is the role, or a
    /// member of it through roles that all inherit (PostgreSQL's
    /// has_privs_of_role; superusers are checked by the caller).
    pub fn has_privs_of_role(&self, member: RelId, role: RelId) -> bool {
        if member == role {
            return true;
        }
        let st = self.cluster.shared.read();
        let by_oid = |oid: RelId| st.roles.values().find(|r| r.oid == oid);
        let mut seen = vec![member];
        let mut todo = vec![member];
        while let Some(oid) = todo.pop() {
            let Some(r) = by_oid(oid) else { continue };
            if !r.inherit {
                continue;
            }
            for m in &r.member_of {
                if m.role == role {
                    return true;
                }
                if !seen.contains(&m.role) {
                    seen.push(m.role);
                    todo.push(m.role);
                }
            }
        }
        false
    }

    /// Whether role `member` is `role` or a member of it, directly or
    /// through other roles.
    pub fn is_member_of(&self, member: RelId, role: RelId) -> bool {
        let st = self.cluster.shared.read();
        let by_oid = |oid: RelId| st.roles.values().find(|r| r.oid == oid).map(|r| &**r);
        by_oid(member).is_some_and(|m| role::is_member_of(m, role, &by_oid))
    }

    pub fn table(&self, name: &str) -> Option<Arc<TableDef>> {
        let st = self.state.read();
        let path = self.path.read();
        let (mut scope, bare) = st.scope(self.session, &path, name);
        if st.claims.is_empty() {
            return scope.find_map(|(_, n)| n.tables.get(bare)).cloned();
        }
        scope.find_map(|(ns, n)| match st.visible(self.session, ns, n, bare) {
            Some(Relation::Table(t)) => Some(t),
            _ => None,
        })
    }

    /// The table with this OID, if this handle sees it.
    pub fn table_by_oid(&self, oid: RelId) -> Option<Arc<TableDef>> {
        let st = self.state.read();
        if !st.claims.is_empty() {
            return self.claimed_by_oid(
                &st,
                oid,
                |n| &n.tables,
                |r| match r {
                    Relation::Table(t) => Some(t),
                    _ => None,
                },
                |t| t.oid,
            );
        }
        let found = st
            .all(self.session)
            .find_map(|(_, n)| n.tables.values().find(|t| t.oid == oid))
            .cloned();
        found
    }

    /// The tables this handle sees (its session's TEMP ones first).
    pub fn tables(&self) -> Vec<Arc<TableDef>> {
        let st = self.state.read();
        self.visible_all(
            &st,
            |n| &n.tables,
            |r| match r {
                Relation::Table(t) => Some(t),
                _ => None,
            },
        )
    }

    pub fn sequences(&self) -> Vec<Arc<Sequence>> {
        let st = self.state.read();
        self.visible_all(
            &st,
            |n| &n.sequences,
            |r| match r {
                Relation::Sequence(s) => Some(s),
                _ => None,
            },
        )
    }

    /// The entries of one kind (the map `map` picks, the relations `kind`
    /// accepts) this handle sees in every namespace: the current ones
    /// other transactions have not claimed, and what their claims keep.
    fn visible_all<T: Clone>(
        &self,
        st: &State,
        map: impl Fn(&Namespace) -> &BTreeMap<String, T>,
        kind: impl Fn(&Relation) -> Option<&T>,
    ) -> Vec<T> {
        let session = self.session;
        let mut out = Vec::new();
        for (ns, n) in st.all(session) {
            let current = map(n).iter();
            out.extend(
                current
                    .filter(|(name, _)| st.sees_current(session, ns, name))
                    .map(|(_, v)| v.clone()),
            );
            out.extend(st.foreign_befores(session, ns).filter_map(&kind).cloned());
        }
        out
    }

    /// A relation by OID while some transaction's DDL is in progress:
    /// the current one unless it is another transaction's new relation,
    /// else what another transaction's claim keeps (see [`claims`]).
    fn claimed_by_oid<T: Clone>(
        &self,
        st: &State,
        oid: RelId,
        map: impl Fn(&Namespace) -> &BTreeMap<String, T>,
        kind: impl Fn(&Relation) -> Option<&T>,
        id: impl Fn(&T) -> RelId,
    ) -> Option<T> {
        let session = self.session;
        for (ns, n) in st.all(session) {
            let now = map(n).iter().find(|(_, v)| id(v) == oid);
            if let Some((name, v)) = now {
                if st.resolves_current(session, ns, name, oid) {
                    return Some(v.clone());
                }
            }
        }
        let found = st.all(session).find_map(|(ns, _)| {
            st.foreign_befores(session, ns)
                .filter_map(&kind)
                .find(|v| id(v) == oid)
                .cloned()
        });
        found
    }

    pub fn sequence(&self, name: &str) -> Option<Arc<Sequence>> {
        let st = self.state.read();
        let path = self.path.read();
        let (mut scope, bare) = st.scope(self.session, &path, name);
        if st.claims.is_empty() {
            return scope.find_map(|(_, n)| n.sequences.get(bare)).cloned();
        }
        scope.find_map(|(ns, n)| match st.visible(self.session, ns, n, bare) {
            Some(Relation::Sequence(s)) => Some(s),
            _ => None,
        })
    }

    pub fn sequence_by_oid(&self, oid: RelId) -> Option<Arc<Sequence>> {
        let st = self.state.read();
        if !st.claims.is_empty() {
            return self.claimed_by_oid(
                &st,
                oid,
                |n| &n.sequences,
                |r| match r {
                    Relation::Sequence(s) => Some(s),
                    _ => None,
                },
                |s| s.oid,
            );
        }
        let found = st
            .all(self.session)
            .find_map(|(_, n)| n.sequences.values().find(|s| s.oid == oid))
            .cloned();
        found
    }

    pub fn view(&self, name: &str) -> Option<Arc<ViewDef>> {
        let st = self.state.read();
        let path = self.path.read();
        let (mut scope, bare) = st.scope(self.session, &path, name);
        if st.claims.is_empty() {
            return scope.find_map(|(_, n)| n.views.get(bare)).cloned();
        }
        scope.find_map(|(ns, n)| match st.visible(self.session, ns, n, bare) {
            Some(Relation::View(v)) => Some(v),
            _ => None,
        })
    }

    /// Every view this handle sees (its session's TEMP views first).
    pub fn views(&self) -> Vec<Arc<ViewDef>> {
        let st = self.state.read();
        self.visible_all(
            &st,
            |n| &n.views,
            |r| match r {
                Relation::View(v) => Some(v),
                _ => None,
            },
        )
    }

    /// Every COMMENT ON text, by (classoid, objoid, objsubid). A comment
    /// outlives its object in this map (OIDs are never reused); readers
    /// show those whose object exists.
    pub fn comments(&self) -> Vec<((u32, u32, i32), String)> {
        let st = self.state.read();
        let found = st
            .public
            .comments
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        found
    }

    /// The views whose queries read relation `oid` directly.
    pub fn views_on(&self, oid: RelId) -> Vec<Arc<ViewDef>> {
        let st = self.state.read();
        let mut out: Vec<Arc<ViewDef>> = st
            .all(self.session)
            .flat_map(|(_, n)| n.views.values())
            .filter(|v| v.depends_on.contains(&oid))
            .cloned()
            .collect();
        if st.claims.is_empty() {
            return out;
        }
        // Views another transaction dropped and may still keep (see
        // [`Catalog::claimed_away`]).
        let away = self.claimed_away_of(
            &st,
            |n| &n.views,
            |r| match r {
                Relation::View(v) => Some(v),
                _ => None,
            },
            |v| v.oid,
        );
        out.extend(away.into_iter().filter(|v| v.depends_on.contains(&oid)));
        out
    }

    /// Resolve a relation name of any kind.
    pub fn relation(&self, name: &str) -> Option<Relation> {
        let st = self.state.read();
        let path = self.path.read();
        let (mut scope, bare) = st.scope(self.session, &path, name);
        scope.find_map(|(ns, n)| match st.claims.is_empty() {
            true => n.relation(bare),
            false => st.visible(self.session, ns, n, bare),
        })
    }

    /// Every schema other than `public`, by OID.
    pub fn schemas(&self) -> Vec<Arc<SchemaDef>> {
        let st = self.state.read();
        let all = st.schemas.values().map(|s| s.def.clone()).collect();
        all
    }

    /// The schema (other than `public`) named `name`.
    pub fn schema(&self, name: &str) -> Option<Arc<SchemaDef>> {
        let st = self.state.read();
        let found = st
            .schemas
            .values()
            .find(|s| s.def.name == name)
            .map(|s| s.def.clone());
        found
    }

    /// A relation (or index) whose own name is `schema.` and more: a
    /// schema of that name could not be told from it (see the notes on
    /// schemas).
    pub fn dotted_relation(&self, schema: &str) -> Option<String> {
        let prefix = format!("{schema}.");
        let st = self.state.read();
        let found = st.all(self.session).find_map(|(_, n)| {
            n.tables
                .keys()
                .chain(n.views.keys())
                .chain(n.sequences.keys())
                .chain(n.index_owner.keys())
                .find(|k| k.starts_with(&prefix))
                .cloned()
        });
        found
    }

    /// The name of the schema with this OID (`public` included).
    pub fn schema_name(&self, oid: u32) -> Option<String> {
        if oid == PUBLIC_NAMESPACE_OID {
            return Some("public".into());
        }
        let st = self.state.read();
        let found = st.schemas.get(&oid).map(|s| s.def.name.clone());
        found
    }

    /// The name that finds an object of schema `namespace` whatever the
    /// search path: `schema.name` (`pg_temp.name` for a TEMP object).
    pub fn qualify(&self, namespace: u32, name: &str) -> String {
        match namespace {
            TEMP_NAMESPACE => format!("pg_temp.{name}"),
            ns => {
                let schema = self.schema_name(ns).unwrap_or_else(|| "public".into());
                format!("{schema}.{name}")
            }
        }
    }

    /// How SQL text the catalog keeps (a serial column's nextval default)
    /// names an object of schema `namespace`: alone in `public` and for
    /// TEMP objects (as PostgreSQL prints them with the default path),
    /// `schema.name` elsewhere.
    pub fn display_name(&self, namespace: u32, name: &str) -> String {
        match namespace {
            TEMP_NAMESPACE | PUBLIC_NAMESPACE_OID => name.to_string(),
            ns => self.qualify(ns, name),
        }
    }

    /// `name` without the schema qualifier a lookup would take off it.
    pub fn unqualified<'a>(&self, name: &'a str) -> &'a str {
        let st = self.state.read();
        match name.split_once('.') {
            Some((schema, bare)) if st.schema_ns(self.session, schema).is_some() => bare,
            _ => name,
        }
    }

    /// The schema a relation written with the qualifier `schema` (empty:
    /// none) is created in: its OID; 3F000 if there is no such schema.
    pub fn creation_namespace(&self, schema: &str) -> Result<u32, DbError> {
        match schema {
            "" => State::creation_ns(&self.path.read())
                .map(Ns::oid)
                .ok_or_else(|| {
                    DbError::new(
                        SqlState::InvalidSchemaName,
                        "no schema has been selected to create in",
                    )
                }),
            "public" | "pg_temp" => Ok(PUBLIC_NAMESPACE_OID),
            s => self.schema(s).map(|d| d.oid.0).ok_or_else(|| {
                DbError::new(
                    SqlState::InvalidSchemaName,
                    format!("schema \"{s}\" does not exist"),
                )
            }),
        }
    }

    /// The functions and procedures named `name` (every overload).
    pub fn functions(&self, name: &str) -> Vec<Arc<FunctionDef>> {
        let st = self.state.read();
        if !st.fn_claims.is_empty() {
            return st.visible_functions(self.session, name);
        }
        let found = st.public.functions.get(name).cloned().unwrap_or_default();
        found
    }

    /// Every function and procedure (pg_proc).
    pub fn all_functions(&self) -> Vec<Arc<FunctionDef>> {
        let st = self.state.read();
        if !st.fn_claims.is_empty() {
            return st.visible_all_functions(self.session);
        }
        let found = st.public.functions.values().flatten().cloned().collect();
        found
    }

    /// The function with this OID.
    pub fn function_by_oid(&self, oid: RelId) -> Option<Arc<FunctionDef>> {
        let st = self.state.read();
        if !st.fn_claims.is_empty() {
            let all = st.visible_all_functions(self.session);
            return all.into_iter().find(|f| f.oid == oid);
        }
        let found = st
            .public
            .functions
            .values()
            .flatten()
            .find(|f| f.oid == oid)
            .cloned();
        found
    }

    pub fn name_taken(&self, name: &str) -> bool {
        self.relation(name).is_some()
    }

    /// Whether a new relation named `name` would clash: in the session's
    /// TEMP namespace for a TEMP object, in `public` otherwise (a TEMP
    /// table may shadow a permanent one of the same name).
    pub fn name_taken_in(&self, name: &str, temporary: bool) -> bool {
        let st = self.state.read();
        let taken = |ns: Ns, bare: &str| {
            st.ns(ns)
                .is_some_and(|n| st.visible(self.session, ns, n, bare).is_some())
        };
        if let Some((schema, bare)) = name.split_once('.') {
            if let Some(ns) = st.schema_ns(self.session, schema) {
                return taken(ns, bare);
            }
        }
        let ns = match (temporary, self.session) {
            (true, Some(s)) => Some(Ns::Temp(s)),
            _ => State::creation_ns(&self.path.read()),
        };
        ns.is_some_and(|ns| taken(ns, name))
    }

    /// The transaction of another session that has claimed the relation
    /// name a statement is about to create (in the namespace it would be
    /// created in) and made it denote something this session does not
    /// see yet: the statement waits for it first, as PostgreSQL's waits on
    /// its catalog's unique index (see [`claims`]). A name this session
    /// still sees (another transaction dropped it) is simply taken.
    pub fn claim_holder(&self, name: &str) -> Option<nestor_common::Xid> {
        let st = self.state.read();
        if st.claims.is_empty() {
            return None;
        }
        let (ns, bare) = match name.split_once('.') {
            Some((schema, bare)) => match st.schema_ns(self.session, schema) {
                Some(ns) => (ns, bare),
                None => (State::creation_ns(&self.path.read())?, name),
            },
            None => (State::creation_ns(&self.path.read())?, name),
        };
        let xid = st
            .foreign_claim(self.session, ns, bare)
            .filter(|c| c.before.is_none())
            .map(|c| c.xid);
        xid
    }

    /// The foreign keys that reference table `parent`, with the tables
    /// that hold them (the parent itself for a self-reference).
    pub fn referencing(&self, parent: RelId) -> Vec<(Arc<TableDef>, ForeignKey)> {
        // Every UPDATE and DELETE asks: walk the tables in place, without
        // collecting (and reference-counting) all of them first.
        let st = self.state.read();
        let mut out = Vec::new();
        for t in st.all(self.session).flat_map(|(_, n)| n.tables.values()) {
            for fk in &t.foreign_keys {
                if fk.parent == parent {
                    out.push((t.clone(), fk.clone()));
                }
            }
        }
        if !st.claims.is_empty() {
            for t in self.claimed_away(&st) {
                for fk in &t.foreign_keys {
                    if fk.parent == parent {
                        out.push((t.clone(), fk.clone()));
                    }
                }
            }
        }
        out
    }

    /// The tables other transactions' claims keep that are no longer in
    /// the catalog (dropped, not committed yet). Dependency walks
    /// (referencing foreign keys, inheritance children, views on a table)
    /// take these *and* the uncommitted current ones: a drop waits for,
    /// or refuses, what another transaction may still commit or keep, and
    /// a read of a parent goes through the lock of every child that may
    /// be there (see [`claims`]).
    fn claimed_away(&self, st: &State) -> Vec<Arc<TableDef>> {
        self.claimed_away_of(
            st,
            |n| &n.tables,
            |r| match r {
                Relation::Table(t) => Some(t),
                _ => None,
            },
            |t| t.oid,
        )
    }

    /// [`Catalog::claimed_away`] for the entries of one kind (the map
    /// `map` picks, the relations `kind` accepts, `id` their OIDs).
    fn claimed_away_of<T: Clone>(
        &self,
        st: &State,
        map: impl Fn(&Namespace) -> &BTreeMap<String, T>,
        kind: impl Fn(&Relation) -> Option<&T>,
        id: impl Fn(&T) -> RelId,
    ) -> Vec<T> {
        let session = self.session;
        let present = |oid: RelId| {
            st.all(session)
                .any(|(_, n)| map(n).values().any(|v| id(v) == oid))
        };
        st.all(session)
            .flat_map(|(ns, _)| st.foreign_befores(session, ns))
            .filter_map(&kind)
            .filter(|v| !present(id(v)))
            .cloned()
            .collect()
    }

    /// The tables that inherit directly from table `parent`, in OID order
    /// (PostgreSQL's find_inheritance_children). Walks the tables in
    /// place, and not at all while no table ever had a parent.
    pub fn children(&self, parent: RelId) -> Vec<Arc<TableDef>> {
        let st = self.state.read();
        if !st.inheritance {
            return Vec::new();
        }
        let mut out: Vec<Arc<TableDef>> = st
            .all(self.session)
            .flat_map(|(_, n)| n.tables.values())
            .filter(|t| t.inherits.contains(&parent))
            .cloned()
            .collect();
        if !st.claims.is_empty() {
            let away = self.claimed_away(&st);
            out.extend(away.into_iter().filter(|t| t.inherits.contains(&parent)));
        }
        out.sort_by_key(|t| t.oid.0);
        // A partitioned table's partitions in bound order (a partition
        // has its parent alone, so all siblings have bounds).
        if out.iter().all(|t| t.partition_bound.is_some()) {
            out.sort_by(|a, b| match (&a.partition_bound, &b.partition_bound) {
                (Some(x), Some(y)) => partition::bound_order(x, y),
                _ => std::cmp::Ordering::Equal,
            });
        }
        out
    }

    /// Table `root` and all its descendants, each once, parents before
    /// their children (PostgreSQL's find_all_inheritors).
    pub fn descendants(&self, root: &Arc<TableDef>) -> Vec<Arc<TableDef>> {
        let mut out = vec![root.clone()];
        let mut i = 0;
        while i < out.len() {
            for c in self.children(out[i].oid) {
                if !out.iter().any(|t| t.oid == c.oid) {
                    out.push(c);
                }
            }
            i += 1;
        }
        out
    }

    /// `'name'::regclass`: the OID of a relation (a number is taken as is).
    pub fn regclass(&self, name: &str) -> Result<u32, DbError> {
        if let Ok(oid) = name.trim().parse::<u32>() {
            return Ok(oid);
        }
        let n = qualified_name(name)?;
        match self.relation(&n) {
            Some(Relation::Table(t)) => Ok(t.oid.0),
            Some(Relation::Index { table, index }) => Ok(table
                .indexes
                .iter()
                .find(|i| i.name == index)
                .map_or(0, |i| i.oid.0)),
            Some(Relation::Sequence(s)) => Ok(s.oid.0),
            Some(Relation::View(v)) => Ok(v.oid.0),
            None => Err(DbError::new(
                SqlState::UndefinedTable,
                format!("relation \"{n}\" does not exist"),
            )),
        }
    }

    /// The sequence a regclass-style name denotes: 42P01 if no relation
    /// has the name, 42809 if it is not a sequence.
    pub fn sequence_named(&self, name: &str) -> Result<Arc<Sequence>, DbError> {
        let n = qualified_name(name)?;
        match self.relation(&n) {
            Some(Relation::Sequence(s)) => Ok(s),
            Some(_) => Err(DbError::new(
                SqlState::WrongObjectType,
                format!("\"{n}\" is not a sequence"),
            )),
            None => Err(DbError::new(
                SqlState::UndefinedTable,
                format!("relation \"{n}\" does not exist"),
            )),
        }
    }

    // ----- per-session sequence state -------------------------------------

    /// nextval()'s value: the sequence's currval, and the sequence
    /// lastval() reads (PostgreSQL's last_used_seq, kept under the pseudo
    /// sequence id 0).
    pub fn set_currval(&self, session: SessionId, seq: RelId, v: i64) {
        let mut c = self.currvals.lock();
        c.insert((session, seq), v);
        c.insert((session, RelId(0)), i64::from(seq.0));
    }

    /// currval() of one sequence only (setval), leaving lastval() alone.
    pub fn set_seq_currval(&self, session: SessionId, seq: RelId, v: i64) {
        self.currvals.lock().insert((session, seq), v);
    }

    /// lastval(): the currval of the sequence nextval() last used in the
    /// session (a setval of it since shows); None once it is dropped.
    pub fn lastval(&self, session: SessionId) -> Option<i64> {
        let seq = RelId(u32::try_from(self.currval(session, RelId(0))?).ok()?);
        self.sequence_by_oid(seq)?;
        self.currval(session, seq)
    }

    pub fn currval(&self, session: SessionId, seq: RelId) -> Option<i64> {
        self.currvals.lock().get(&(session, seq)).copied()
    }

    /// Forget a session's currval state (session end).
    pub fn forget_session(&self, session: SessionId) {
        self.currvals.lock().retain(|(s, _), _| *s != session);
    }

    // ----- schema changes ---------------------------------------------------

    /// Apply `change` now and record its undo (with its redo) in `txn`.
    pub fn apply(
        &self,
        txn: &mut Transaction,
        store: &Arc<Store>,
        change: Change,
    ) -> Result<(), DbError> {
        let token = self.gate.enter();
        if let Change::PutTable { def, .. } = &change {
            def.storage.set_logged(def.is_logged());
            let schema = self.schema_name(def.namespace);
            def.storage
                .set_schema(schema.as_deref().unwrap_or("public"));
        }
        let mut change = change;
        // Roles are the cluster's; everything else is this database's,
        // which must still be there (a session cannot outlive a DROP
        // DATABASE by much: the drop fails while it is connected).
        let shared = change.is_shared();
        let target = if shared {
            &self.cluster.shared
        } else {
            if self.cluster.entry(self.db).is_none() {
                return Err(database::vanished());
            }
            &self.state
        };
        let xid = txn.assign_xid();
        let (ns, redo, undo, claimed) = {
            let mut st = target.write();
            let ns = self.namespace_of(&st, &mut change)?;
            check_dotted_names(&st, self.session, &change)?;
            row_type::check_change(&st, ns, &change)?;
            let claimed = match (self.session, ns) {
                (Some(owner), Ns::Public | Ns::Schema(_)) if !shared => {
                    st.claim(owner, xid, ns, &change)?
                }
                _ => Vec::new(),
            };
            let fn_claimed = match (self.session, &change) {
                (Some(owner), Change::PutFunction(f) | Change::DropFunction(f)) => {
                    st.claim_function(owner, &f.name)?.then(|| f.name.clone())
                }
                _ => None,
            };
            if let Change::PutTable { def, .. } = &change {
                st.inheritance |= !def.inherits.is_empty();
            }
            // TEMP objects are never logged.
            let record = match ns {
                Ns::Public => Some(change.redo()),
                Ns::Schema(namespace) => Some(CatalogRecord::InSchema {
                    namespace,
                    record: Box::new(change.redo()),
                }),
                Ns::Temp(_) => None,
            };
            let redo = record.map(|r| match shared || self.db == POSTGRES_DATABASE_OID {
                true => r.encode(),
                false => CatalogRecord::InDatabase {
                    database: self.db,
                    record: Box::new(r),
                }
                .encode(),
            });
            (ns, redo, change.apply(&mut st, ns), (claimed, fn_claimed))
        };
        let (claimed, fn_claimed) = claimed;
        self.version.fetch_add(1, Ordering::AcqRel);
        let entry = Arc::new(change::CatalogUndo {
            state: target.clone(),
            version: self.version.clone(),
            store: store.clone(),
            ns,
            undo,
            redo,
            claimed,
            fn_claimed,
            _gate: token,
        });
        if let Err(e) = txn.push_undo(DataUndo::Ddl(entry.clone())) {
            // The undo log is full: take the change back before failing.
            nestor_txn::DdlUndo::undo(entry.as_ref());
            return Err(DbError::from(e));
        }
        Ok(())
    }

    /// The namespace a change applies to: a new object goes to its
    /// schema (a TEMP one to the session's namespace), a drop or rename
    /// to wherever its (maybe qualified) name resolves; the name in the
    /// change is left without its qualifier.
    fn namespace_of(&self, st: &State, change: &mut Change) -> Result<Ns, DbError> {
        let path = self.path.read();
        let (temp, namespace) = match change {
            Change::PutTable { def, .. } => {
                (def.persistence == Persistence::Temporary, def.namespace)
            }
            Change::PutSequence(s) => (s.temporary, s.namespace),
            Change::PutView(v) => (v.temporary, v.namespace),
            Change::DropTable(name) | Change::RenameTable { from: name, .. } => {
                return Ok(resolve_name(st, (self.session, &path), name, |n, b| {
                    n.tables.contains_key(b)
                }));
            }
            Change::DropView(name) => {
                return Ok(resolve_name(st, (self.session, &path), name, |n, b| {
                    n.views.contains_key(b)
                }));
            }
            Change::DropSequence(name) => {
                return Ok(resolve_name(st, (self.session, &path), name, |n, b| {
                    n.sequences.contains_key(b)
                }));
            }
            // Comments live in public (keyed by OID).
            Change::SetComment { .. } => return Ok(Ns::Public),
            // Functions live in public (as in PostgreSQL unless pg_temp is
            // named).
            Change::PutFunction(_) | Change::DropFunction(_) => return Ok(Ns::Public),
            // Roles and schemas are catalog-wide, ACLs keyed by OID: logged
            // like public objects (a TEMP object's ACL is logged too;
            // harmless).
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
            | Change::SetExtension { .. } => return Ok(Ns::Public),
        };
        if !temp {
            if namespace == PUBLIC_NAMESPACE_OID {
                return Ok(Ns::Public);
            }
            if !st.schemas.contains_key(&namespace) {
                return Err(DbError::new(
                    SqlState::InvalidSchemaName,
                    format!("schema with OID {namespace} does not exist"),
                ));
            }
            return Ok(Ns::Schema(namespace));
        }
        let session = self.session.ok_or_else(|| {
            DbError::new(
                SqlState::InternalError,
                "temporary objects need a session's catalog",
            )
        })?;
        self.made_temp.store(true, Ordering::Release);
        Ok(Ns::Temp(session))
    }

    // ----- TEMP objects -----------------------------------------------------

    /// After every commit of the session: the ON COMMIT actions of its TEMP
    /// tables (DROP; DELETE ROWS empties a table that has rows by giving it
    /// fresh storage). They are private to the session and never logged,
    /// so this happens directly, after the commit, as nothing else can see
    /// the tables in between.
    pub fn after_commit(&self, store: &Store) {
        let Some(session) = self.session else { return };
        if !self.made_temp.load(Ordering::Acquire) {
            return;
        }
        let mut st = self.state.write();
        let Some(ns) = st.temp.get_mut(&session) else {
            return;
        };
        let due: Vec<Arc<TableDef>> = ns
            .tables
            .values()
            .filter(|t| t.on_commit != OnCommit::PreserveRows)
            .cloned()
            .collect();
        let mut changed = false;
        for def in due {
            match def.on_commit {
                OnCommit::Drop => {
                    ns.remove_table(&def.name);
                    for s in &def.owned_sequences {
                        ns.sequences.remove(s);
                    }
                    store.drop_table(def.storage.id);
                }
                OnCommit::DeleteRows if def.storage.row_id_count() > 0 => {
                    let fresh = def.with_fresh_storage(store, self.alloc_oid());
                    ns.put_table(Arc::new(fresh));
                    store.drop_table(def.storage.id);
                }
                OnCommit::DeleteRows | OnCommit::PreserveRows => continue,
            }
            changed = true;
        }
        if changed {
            self.version.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Session end (its transaction has ended): drop its TEMP objects and
    /// their storage.
    pub fn drop_temp_objects(&self, store: &Store) {
        let Some(session) = self.session else { return };
        if !self.made_temp.load(Ordering::Acquire) {
            return;
        }
        let Some(ns) = self.state.write().temp.remove(&session) else {
            return;
        };
        for t in ns.tables.values() {
            store.drop_table(t.storage.id);
            row_type::forget(t.oid.0);
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    // ----- durability -------------------------------------------------------

    /// The catalog as records: the roles, then each database's objects
    /// (every sequence, then every table, ...; TEMP objects excluded),
    /// those of databases other than `postgres` after their
    /// `PutDatabase` and wrapped in `InDatabase`. Taken under the DDL
    /// gate, it is the committed schema: the catalog part of a checkpoint.
    pub fn image(&self) -> Vec<CatalogRecord> {
        let mut all = state_image(&self.cluster.shared.read());
        let dbs: Vec<database::DbEntry> = self.cluster.databases.read().values().cloned().collect();
        // A built-in database dropped stays dropped.
        for d in DatabaseDef::builtin() {
            if !dbs.iter().any(|e| e.def.oid == d.oid) {
                all.push(CatalogRecord::DropDatabase { oid: d.oid });
            }
        }
        let builtin = DatabaseDef::builtin();
        for e in dbs {
            let records = state_image(&e.state.read());
            let unchanged = builtin.iter().any(|b| *b == *e.def);
            if unchanged && e.def.oid.0 == POSTGRES_DATABASE_OID {
                all.extend(records);
                continue;
            }
            // A fresh cluster has template1 and template0 as they are.
            if unchanged && records.is_empty() {
                continue;
            }
            all.push(CatalogRecord::PutDatabase((*e.def).clone()));
            all.extend(records.into_iter().map(|r| CatalogRecord::InDatabase {
                database: e.def.oid.0,
                record: Box::new(r),
            }));
        }
        all
    }

    /// Storage of the tables whose rows are logged (not UNLOGGED/TEMP), in
    /// every database.
    pub fn logged_storage(&self) -> Vec<Arc<Table>> {
        let dbs = self.cluster.databases.read();
        let mut all = Vec::new();
        for e in dbs.values() {
            let st = e.state.read();
            let schemas = st.schemas.values().flat_map(|s| s.ns.tables.values());
            all.extend(
                st.public
                    .tables
                    .values()
                    .chain(schemas)
                    .filter(|t| t.is_logged())
                    .map(|t| t.storage.clone()),
            );
        }
        all
    }

    /// The state of every logged sequence (of every database).
    pub fn sequence_states(&self) -> CatalogRecord {
        database_sequences(&self.cluster, false)
            .unwrap_or_else(|| CatalogRecord::Sequences(Vec::new()))
    }

    /// The commit hook: the states of sequences changed since the last
    /// commit that logged them, appended to each commit's redo.
    pub fn sequence_hook(&self) -> nestor_storage::CommitHook {
        let cluster = self.cluster.clone();
        Arc::new(move || database_sequences(&cluster, true).map(|r| r.encode()))
    }

    /// Recovery: install one record. Errors describe corrupt input.
    pub fn replay(&self, rec: CatalogRecord, store: &Store) -> Result<(), String> {
        self.replay_top(rec, store)?;
        self.version.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Install a record outside any database: a database's creation or
    /// drop, a record of one database (`postgres` when not wrapped), a
    /// batch of them.
    fn replay_top(&self, rec: CatalogRecord, store: &Store) -> Result<(), String> {
        match rec {
            CatalogRecord::PutDatabase(d) => {
                self.ensure_next_oid(d.oid.0 + 1);
                self.cluster.put(d);
            }
            CatalogRecord::DropDatabase { oid } => {
                // Idempotent: a checkpoint image lists the built-in
                // databases that were dropped.
                let gone = self.cluster.databases.write().remove(&oid.0);
                if let Some(gone) = gone {
                    database::free_dropped(&gone, store);
                }
            }
            CatalogRecord::Batch(records) => {
                for r in records {
                    self.replay_top(r, store)?;
                }
            }
            CatalogRecord::InDatabase { database, record } => {
                let h = self
                    .on_database(database)
                    .ok_or_else(|| format!("record in unknown database {database}"))?;
                h.replay_in(*record, Ns::Public, store)?;
            }
            rec => {
                let h = self
                    .on_database(POSTGRES_DATABASE_OID)
                    .ok_or_else(|| "record in dropped database postgres".to_string())?;
                h.replay_in(rec, Ns::Public, store)?;
            }
        }
        Ok(())
    }

    /// Install one record in namespace `ns`.
    fn replay_in(&self, rec: CatalogRecord, ns: Ns, store: &Store) -> Result<(), String> {
        match rec {
            CatalogRecord::PutTable(t) => self.replay_put_table(*t, ns, store)?,
            CatalogRecord::PutSchema(d) => {
                self.ensure_next_oid(d.oid.0 + 1);
                change::put_schema(&mut self.state.write(), Arc::new(d));
            }
            CatalogRecord::DropSchema { oid } => {
                self.state
                    .write()
                    .schemas
                    .remove(&oid.0)
                    .ok_or_else(|| format!("DropSchema of unknown schema {oid}"))?;
            }
            CatalogRecord::PutDatabase(_)
            | CatalogRecord::DropDatabase { .. }
            | CatalogRecord::InDatabase { .. }
            | CatalogRecord::Batch(_) => {
                return Err("a database record inside a database".into());
            }
            CatalogRecord::InSchema { namespace, record } => {
                if ns != Ns::Public || !self.state.read().schemas.contains_key(&namespace) {
                    return Err(format!("record in unknown schema {namespace}"));
                }
                self.replay_in(*record, Ns::Schema(namespace), store)?;
            }
            CatalogRecord::DropTable { name } => {
                let prev = self.state.write().ns_mut(ns).remove_table(&name);
                let prev = prev.ok_or_else(|| format!("DropTable of unknown table {name}"))?;
                store.drop_table(prev.storage.id);
            }
            CatalogRecord::PutView(v) => {
                self.ensure_next_oid(v.oid.0.max(v.rule_oid.0) + 1);
                let v = ViewDef {
                    namespace: ns.oid(),
                    ..v
                };
                self.state
                    .write()
                    .ns_mut(ns)
                    .views
                    .insert(v.name.clone(), Arc::new(v));
            }
            CatalogRecord::PutEnum(e) => {
                let max = e
                    .labels
                    .iter()
                    .map(|l| l.oid)
                    .fold(e.oid.max(e.array_oid), u32::max);
                self.ensure_next_oid(max + 1);
                let mut st = self.state.write();
                let db = st.db;
                enum_type::put(db, &mut st.enums, Arc::new(e));
            }
            CatalogRecord::DropEnum { name } => {
                enum_type::remove(&mut self.state.write().enums, &name)
                    .ok_or_else(|| format!("DropEnum of unknown type {name}"))?;
            }
            CatalogRecord::PutDomain(d) => {
                let max = d
                    .checks
                    .iter()
                    .map(|c| c.oid)
                    .fold(d.oid.max(d.array_oid), u32::max);
                self.ensure_next_oid(max + 1);
                let mut st = self.state.write();
                let db = st.db;
                domain::put(db, &mut st.domains, Arc::new(d));
            }
            CatalogRecord::DropDomain { name } => {
                domain::remove(&mut self.state.write().domains, &name)
                    .ok_or_else(|| format!("DropDomain of unknown domain {name}"))?;
            }
            CatalogRecord::PutComposite(c) => {
                self.ensure_next_oid(c.oid.max(c.array_oid).max(c.relid) + 1);
                let mut st = self.state.write();
                let db = st.db;
                composite::put(db, &mut st.composites, Arc::new(c));
            }
            CatalogRecord::DropComposite { name } => {
                composite::remove(&mut self.state.write().composites, &name)
                    .ok_or_else(|| format!("DropComposite of unknown type {name}"))?;
            }
            CatalogRecord::PutCast(c) => {
                self.ensure_next_oid(c.oid + 1);
                let key = (c.source, c.target);
                self.state.write().casts.insert(key, Arc::new(c));
            }
            CatalogRecord::DropCast { source, target } => {
                self.state
                    .write()
                    .casts
                    .remove(&(source, target))
                    .ok_or_else(|| format!("DropCast of unknown cast {source} -> {target}"))?;
            }
            CatalogRecord::PutOpFamily(f) => {
                self.ensure_next_oid(f.oid + 1);
                self.state.write().opfamilies.insert(f.oid, Arc::new(f));
            }
            CatalogRecord::DropOpFamily { oid } => {
                self.state
                    .write()
                    .opfamilies
                    .remove(&oid)
                    .ok_or_else(|| format!("DropOpFamily of unknown family {oid}"))?;
            }
            CatalogRecord::PutOpClass(c) => {
                let top = c
                    .operators
                    .iter()
                    .map(|m| m.oid)
                    .chain(c.procs.iter().map(|m| m.oid))
                    .fold(c.oid, u32::max);
                self.ensure_next_oid(top + 1);
                self.state.write().opclasses.insert(c.oid, Arc::new(c));
            }
            CatalogRecord::DropOpClass { oid } => {
                self.state
                    .write()
                    .opclasses
                    .remove(&oid)
                    .ok_or_else(|| format!("DropOpClass of unknown class {oid}"))?;
            }
            CatalogRecord::PutRole(r) => {
                self.ensure_next_oid(r.oid.0 + 1);
                role::put(&mut self.cluster.shared.write().roles, Arc::new(r));
            }
            CatalogRecord::SetAcl { key, acl } => {
                let mut st = self.state.write();
                match acl {
                    Some(a) => st.acls.insert(key, a),
                    None => st.acls.remove(&key),
                };
            }
            CatalogRecord::SetDefaultAcl { key, acl } => {
                let mut st = self.state.write();
                match acl {
                    Some(a) => st.default_acls.insert(key, a),
                    None => st.default_acls.remove(&key),
                };
            }
            CatalogRecord::SetExtension { name, ext } => {
                if let Some(e) = &ext {
                    self.ensure_next_oid(e.oid.0 + 1);
                }
                let mut st = self.state.write();
                match ext {
                    Some(e) => st.extensions.insert(name, e),
                    None => st.extensions.remove(&name),
                };
            }
            CatalogRecord::SetRoleSettings { key, config } => {
                let mut st = self.cluster.shared.write();
                match config {
                    Some(c) => st.role_settings.insert(key, c),
                    None => st.role_settings.remove(&key),
                };
            }
            CatalogRecord::DropRole { name } => {
                self.cluster
                    .shared
                    .write()
                    .roles
                    .remove(&name)
                    .ok_or_else(|| format!("DropRole of unknown role {name}"))?;
            }
            CatalogRecord::Comment { key, text } => {
                let mut st = self.state.write();
                match text {
                    Some(t) => st.ns_mut(ns).comments.insert(key, t),
                    None => st.ns_mut(ns).comments.remove(&key),
                };
            }
            CatalogRecord::DropView { name } => {
                self.state
                    .write()
                    .ns_mut(ns)
                    .views
                    .remove(&name)
                    .ok_or_else(|| format!("DropView of unknown view {name}"))?;
            }
            CatalogRecord::RenameTable { from, to } => {
                let mut st = self.state.write();
                let n = st.ns_mut(ns);
                let prev = n
                    .remove_table(&from)
                    .ok_or_else(|| format!("RenameTable of unknown table {from}"))?;
                if n.tables.contains_key(&to) {
                    return Err(format!("RenameTable onto existing table {to}"));
                }
                let mut def = (*prev).clone();
                def.name = to;
                n.put_table(Arc::new(def));
            }
            CatalogRecord::PutSequence(s) => {
                self.ensure_next_oid(s.oid.0 + 1);
                let seq = Arc::new(sequence_from(s, ns.oid()));
                self.state
                    .write()
                    .ns_mut(ns)
                    .sequences
                    .insert(seq.name.clone(), seq);
            }
            CatalogRecord::DropSequence { name } => {
                self.state.write().ns_mut(ns).sequences.remove(&name);
            }
            CatalogRecord::Sequences(seqs) => self.restore_sequences(&seqs),
            CatalogRecord::PutFunction(f) => {
                self.ensure_next_oid(f.oid.0 + 1);
                self.state
                    .write()
                    .ns_mut(ns)
                    .put_function(Arc::new(function_from(f)));
                if !self.state.read().unbound.is_empty() {
                    // Not yet an error: a later function may be the one.
                    let _ = self.bind_waiting();
                }
            }
            CatalogRecord::DropFunction { name, oid } => {
                self.state
                    .write()
                    .ns_mut(ns)
                    .remove_function(&name, oid)
                    .ok_or_else(|| format!("DropFunction of unknown function {name} ({oid})"))?;
            }
        }
        Ok(())
    }

    fn replay_put_table(&self, rec: TableRecord, ns: Ns, store: &Store) -> Result<(), String> {
        let prev = self
            .state
            .read()
            .ns(ns)
            .and_then(|n| n.tables.get(&rec.name).cloned());
        let storage = match prev.as_ref().filter(|p| p.storage.id == rec.storage) {
            Some(p) => p.storage.clone(),
            None => {
                if let Some(p) = &prev {
                    store.drop_table(p.storage.id);
                }
                if store.table(rec.storage).is_some() {
                    return Err(format!(
                        "table {}: storage relation {} is already in use",
                        rec.name, rec.storage
                    ));
                }
                store.create_table(rec.storage, &rec.name)
            }
        };
        let max_oid = rec
            .indexes
            .iter()
            .map(|i| i.oid.0)
            .chain(rec.matview.as_ref().map(|m| m.rule_oid.0))
            .fold(rec.oid.0.max(rec.storage.0), u32::max);
        self.ensure_next_oid(max_oid + 1);
        let mut def = table_from(rec, storage, prev.as_deref())?;
        def.namespace = ns.oid();
        def.storage.set_logged(def.is_logged());
        let schema = self.schema_name(def.namespace).unwrap_or_default();
        def.storage.set_schema(&schema);
        let def = Arc::new(def);
        // Computed indexes get their key functions before they are filled
        // (at the end of recovery); one calling a function not installed
        // yet waits for it.
        let bound = defs::bind_computed_indexes(self, &def).is_ok();
        sync_storage_indexes(&def);
        let mut st = self.state.write();
        st.inheritance |= !def.inherits.is_empty();
        let name = def.name.clone();
        st.ns_mut(ns).put_table(def);
        st.unbound.retain(|(n, t)| !(*n == ns && *t == name));
        if !bound {
            st.unbound.push((ns, name));
        }
        Ok(())
    }

    /// Recovery: bind the computed indexes still waiting (see
    /// `State::unbound`); the error of one that still fails.
    fn bind_waiting(&self) -> Result<(), String> {
        let waiting = std::mem::take(&mut self.state.write().unbound);
        let mut failed = Vec::new();
        let mut first_error = None;
        for (ns, name) in waiting {
            let def = self
                .state
                .read()
                .ns(ns)
                .and_then(|n| n.tables.get(&name).cloned());
            let Some(def) = def else { continue };
            if let Err(e) = defs::bind_computed_indexes(self, &def) {
                first_error.get_or_insert(e);
                failed.push((ns, name));
            }
        }
        self.state.write().unbound.extend(failed);
        first_error.map_or(Ok(()), Err)
    }

    /// The end of recovery (before indexes are filled): every computed
    /// index is bound, in every database, or the first that cannot be is
    /// the error.
    pub fn finish_replay(&self) -> Result<(), String> {
        let dbs: Vec<u32> = self.cluster.databases.read().keys().copied().collect();
        for oid in dbs {
            if let Some(h) = self.on_database(oid) {
                h.bind_waiting()?;
            }
        }
        Ok(())
    }

    /// Recovery: sequences move forward to the logged states (never back:
    /// commits may log states out of order, and a value once handed out
    /// must not be handed out again).
    fn restore_sequences(&self, seqs: &[SequenceState]) {
        let st = self.state.read();
        for (name, last, called) in seqs {
            let (mut scope, bare) = st.scope(None, &[Ns::Public], name);
            let found = scope.find_map(|(_, n)| n.sequences.get(bare));
            if let Some(s) = found {
                let mut cur = s.state.lock();
                let ahead = if s.increment >= 0 {
                    *last > cur.0
                } else {
                    *last < cur.0
                };
                if ahead || (*last == cur.0 && *called) {
                    *cur = (*last, *called || cur.1);
                }
            }
        }
    }
}

/// The states of the logged sequences of every database (only those
/// advanced since last logged when `dirty_only`): a `Sequences` record,
/// those of databases other than `postgres` wrapped in `InDatabase`, and
/// several in a `Batch`; None when there are none.
fn database_sequences(cluster: &database::Cluster, dirty_only: bool) -> Option<CatalogRecord> {
    let mut records = Vec::new();
    for (oid, e) in cluster.databases.read().iter() {
        let st = e.state.read();
        let seqs: Vec<SequenceState> = logged_sequences(&st)
            .filter(|(_, s)| !dirty_only || s.dirty.swap(false, Ordering::AcqRel))
            .map(|(q, s)| sequence_state(q, s))
            .collect();
        if seqs.is_empty() && (dirty_only || *oid != POSTGRES_DATABASE_OID) {
            continue;
        }
        let record = CatalogRecord::Sequences(seqs);
        records.push(match *oid {
            POSTGRES_DATABASE_OID => record,
            database => CatalogRecord::InDatabase {
                database,
                record: Box::new(record),
            },
        });
    }
    match records.len() {
        0 => None,
        1 => records.pop(),
        _ => Some(CatalogRecord::Batch(records)),
    }
}

/// The records of one state: its roles (the shared state's), types,
/// ACLs, schemas, relations and functions.
fn state_image(st: &State) -> Vec<CatalogRecord> {
    let seqs = st
        .public
        .sequences
        .values()
        .map(|s| CatalogRecord::PutSequence(sequence_record(s)));
    let tables = row_type::dependency_order(st.public.tables.values().collect())
        .into_iter()
        .map(|t| CatalogRecord::put_table(table_record(t)));
    let functions = st
        .public
        .functions
        .values()
        .flatten()
        .map(|f| CatalogRecord::PutFunction(function_record(f)));
    let views = st
        .public
        .views
        .values()
        .map(|v| CatalogRecord::PutView((**v).clone()));
    let roles = st
        .roles
        .values()
        .map(|r| CatalogRecord::PutRole((**r).clone()));
    let acls = st.acls.iter().map(|(k, a)| CatalogRecord::SetAcl {
        key: *k,
        acl: Some(a.clone()),
    });
    let role_settings = st
        .role_settings
        .iter()
        .map(|(k, v)| CatalogRecord::SetRoleSettings {
            key: *k,
            config: Some(v.clone()),
        });
    let default_acls = st
        .default_acls
        .iter()
        .map(|(k, v)| CatalogRecord::SetDefaultAcl {
            key: *k,
            acl: Some(v.clone()),
        });
    // Enum types before any table (their columns' types decode by
    // them), schemas before what is in them.
    let enums = st
        .enums
        .values()
        .map(|e| CatalogRecord::PutEnum((**e).clone()));
    // Domains and composite types after the enums they may use, before
    // the tables, together in creation (OID) order: a domain may be over
    // a composite type, an attribute of one may be of a domain or of an
    // earlier composite, and each decodes by what it names.
    // (ALTER TYPE ADD ATTRIBUTE can make a type use a later one: a
    // composite ranks after the domains of its attributes, a domain after
    // the composite it is over.)
    let composite_rank = |c: &CompositeDef| {
        c.domains
            .iter()
            .flatten()
            .map(|&d| {
                nestor_types::domains::lookup_array(d)
                    .map(|def| def.oid)
                    .unwrap_or(d)
            })
            .fold(c.oid, u32::max)
    };
    let domain_rank = |d: &DomainDef| {
        let over = d.base.element().unwrap_or(d.base);
        let composite = match over {
            nestor_types::DataType::Record(r) if r.oid != 0 => {
                nestor_types::composites::lookup(r.oid)
            }
            _ => None,
        };
        composite.map_or(d.oid, |c| composite_rank(&c).max(d.oid))
    };
    let mut types: Vec<((u32, u32), CatalogRecord)> = st
        .domains
        .values()
        .map(|d| {
            (
                (domain_rank(d), d.oid),
                CatalogRecord::PutDomain((**d).clone()),
            )
        })
        .chain(st.composites.values().map(|c| {
            (
                (composite_rank(c), c.oid),
                CatalogRecord::PutComposite((**c).clone()),
            )
        }))
        .collect();
    types.sort_by_key(|(rank, _)| *rank);
    let domains = types.into_iter().map(|(_, r)| r);
    let schemas = st
        .schemas
        .values()
        .map(|s| CatalogRecord::PutSchema((*s.def).clone()));
    // Casts after the types and functions they name.
    let casts = st
        .casts
        .values()
        .map(|c| CatalogRecord::PutCast((**c).clone()));
    // Operator families before their classes; both after the functions
    // they name (tables name classes by OID, looked up when used).
    let opfamilies = st
        .opfamilies
        .values()
        .map(|f| CatalogRecord::PutOpFamily((**f).clone()));
    let opclasses = st
        .opclasses
        .values()
        .map(|c| CatalogRecord::PutOpClass((**c).clone()));
    let mut all: Vec<CatalogRecord> = roles
        .chain(enums)
        .chain(domains)
        .chain(acls)
        .chain(role_settings)
        .chain(default_acls)
        .chain(
            st.extensions
                .iter()
                .map(|(name, e)| CatalogRecord::SetExtension {
                    name: name.clone(),
                    ext: Some(e.clone()),
                }),
        )
        .chain(schemas)
        .chain(seqs)
        .chain(tables)
        .chain(functions)
        .chain(views)
        .chain(casts)
        .chain(opfamilies)
        .chain(opclasses)
        .collect();
    // COMMENT ON's (kept in public, keyed by OID).
    all.extend(
        st.public
            .comments
            .iter()
            .map(|(k, t)| CatalogRecord::Comment {
                key: *k,
                text: Some(t.clone()),
            }),
    );
    for (oid, s) in &st.schemas {
        all.extend(
            namespace_image(&s.ns).map(|record| CatalogRecord::InSchema {
                namespace: *oid,
                record: Box::new(record),
            }),
        );
    }
    all
}

/// A relation whose own name has a dot after the name of a schema could
/// not be told from that schema's relation (see the notes on schemas):
/// 0A000, as for a schema named after the part before the dot of a
/// relation's name ([`Catalog::dotted_relation`]).
fn check_dotted_names(
    st: &State,
    session: Option<SessionId>,
    change: &Change,
) -> Result<(), DbError> {
    let names: Vec<&str> = match change {
        Change::PutTable { def, .. } => std::iter::once(def.name.as_str())
            .chain(def.indexes.iter().map(|i| i.name.as_str()))
            .collect(),
        Change::RenameTable { def, .. } => vec![def.name.as_str()],
        Change::PutView(v) => vec![v.name.as_str()],
        Change::PutSequence(s) => vec![s.name.as_str()],
        _ => return Ok(()),
    };
    for name in names {
        let clash = name
            .split_once('.')
            .is_some_and(|(schema, _)| st.schema_ns(session, schema).is_some());
        if clash {
            return Err(DbError::unsupported(format!(
                "a relation named with a schema's name and a dot (\"{name}\")"
            )));
        }
    }
    Ok(())
}

/// The records of one schema's relations: sequences, tables, views.
fn namespace_image(ns: &Namespace) -> impl Iterator<Item = CatalogRecord> + '_ {
    let seqs = ns
        .sequences
        .values()
        .map(|s| CatalogRecord::PutSequence(sequence_record(s)));
    let tables = row_type::dependency_order(ns.tables.values().collect())
        .into_iter()
        .map(|t| CatalogRecord::put_table(table_record(t)));
    let views = ns
        .views
        .values()
        .map(|v| CatalogRecord::PutView((**v).clone()));
    seqs.chain(tables).chain(views)
}

/// The namespace a drop or rename names (`public` when nothing has the
/// name: the change then does nothing there), leaving `name` bare.
fn resolve_name(
    st: &State,
    (session, path): (Option<SessionId>, &[Ns]),
    name: &mut String,
    has: impl Fn(&Namespace, &str) -> bool,
) -> Ns {
    let Some((ns, bare)) = st.find(session, path, name, has) else {
        return Ns::Public;
    };
    let skip = name.len() - bare.len();
    name.drain(..skip);
    ns
}

/// The record describing a function.
pub(crate) fn function_record(f: &FunctionDef) -> FunctionRecord {
    FunctionRecord {
        oid: f.oid,
        name: f.name.clone(),
        procedure: f.procedure,
        args: f.args.clone(),
        returns: f.returns.clone(),
        retset: f.retset,
        language: f.language,
        body: f.body.clone(),
        volatility: f.volatility,
        strict: f.strict,
        aggregate: f.aggregate.as_deref().cloned(),
        result_domain: f.result_domain,
    }
}

fn function_from(r: FunctionRecord) -> FunctionDef {
    FunctionDef {
        oid: r.oid,
        name: r.name,
        procedure: r.procedure,
        args: r.args,
        returns: r.returns,
        retset: r.retset,
        language: r.language,
        body: r.body,
        volatility: r.volatility,
        strict: r.strict,
        compiled: std::sync::OnceLock::new(),
        declared: None,
        aggregate: r.aggregate.map(Arc::new),
        result_domain: r.result_domain,
    }
}

/// The logged sequences: those in `public`, then those in schemas (with
/// the schema's name, which qualifies theirs in state records).
fn logged_sequences(st: &State) -> impl Iterator<Item = (Option<&str>, &Arc<Sequence>)> {
    let public = st.public.sequences.values().map(|s| (None, s));
    let schemas = st.schemas.values().flat_map(|x| {
        let name = x.def.name.as_str();
        x.ns.sequences.values().map(move |s| (Some(name), s))
    });
    public.chain(schemas)
}

/// A sequence's state record entry: its name, qualified outside `public`.
fn sequence_state(schema: Option<&str>, s: &Arc<Sequence>) -> SequenceState {
    let (last, called) = *s.state.lock();
    let name = match schema {
        Some(q) => format!("{q}.{}", s.name),
        None => s.name.clone(),
    };
    (name, last, called)
}

/// The record describing a table definition.
pub(crate) fn table_record(def: &TableDef) -> TableRecord {
    TableRecord {
        oid: def.oid,
        storage: def.storage.id,
        name: def.name.clone(),
        persistence: def.persistence,
        base_width: def.base_width,
        columns: def
            .columns
            .iter()
            .map(|c| ColumnRecord {
                name: c.name.clone(),
                ty: c.ty,
                domain: c.domain,
                not_null: c.not_null,
                dropped: c.dropped,
                generated: c.generated,
                default: c.default.clone(),
                missing: c.missing.clone(),
                storage: c.storage.unwrap_or(0),
                compression: c.compression,
            })
            .collect(),
        checks: def
            .checks
            .iter()
            .map(|c| (c.name.clone(), c.expr.clone()))
            .collect(),
        indexes: def
            .indexes
            .iter()
            .map(|i| IndexRecord {
                oid: i.oid,
                name: i.name.clone(),
                columns: i.columns.clone(),
                unique: i.unique,
                primary: i.primary,
                constraint: i.constraint,
                exprs: i.exprs.as_deref().cloned(),
                nulls_not_distinct: i.index.nulls_not_distinct,
                hash: i.method == opclass::AccessMethod::Hash,
                gin: i.method == opclass::AccessMethod::Gin,
                keyopts: i.keyopts.clone(),
            })
            .collect(),
        owned_sequences: def.owned_sequences.clone(),
        triggers: def.triggers.clone(),
        rules: def.rules.clone(),
        row_security: def.row_security.clone(),
        foreign_keys: def.foreign_keys.clone(),
        identities: def.identities.clone(),
        matview: def.matview.clone(),
        not_valid: def.not_valid.clone(),
        inherits: def.inherits.clone(),
        partition_key: def.partition_key.clone(),
        partition_bound: def.partition_bound.clone(),
    }
}

/// The record describing a sequence, with its current state.
pub(crate) fn sequence_record(s: &Sequence) -> SequenceRecord {
    let (last, called) = *s.state.lock();
    SequenceRecord {
        oid: s.oid,
        name: s.name.clone(),
        increment: s.increment,
        min: s.min,
        max: s.max,
        start: s.start,
        cycle: s.cycle,
        owned_by: s.owned_by.clone(),
        last,
        called,
        type_oid: s.type_oid,
        cache: s.cache,
    }
}

fn sequence_from(s: SequenceRecord, namespace: u32) -> Sequence {
    Sequence {
        oid: s.oid,
        name: s.name,
        namespace,
        increment: s.increment,
        min: s.min,
        max: s.max,
        start: s.start,
        cycle: s.cycle,
        type_oid: s.type_oid,
        cache: s.cache,
        state: Arc::new(Mutex::new((s.last, s.called))),
        owned_by: s.owned_by,
        temporary: false,
        dirty: Arc::new(AtomicBool::new(false)),
    }
}

/// How a computed index's keys are named in a 23505 DETAIL: a column by
/// its (quoted if need be) name, an expression as written
/// (`Key (a, lower(b))=(1, abc)`).
pub fn index_key_names(x: &IndexExprs, columns: &[Column]) -> Vec<String> {
    x.keys
        .iter()
        .map(|k| match k {
            IndexKey::Column(c) => nestor_common::keywords::quote_identifier(&columns[*c].name),
            IndexKey::Expr(e) => e.clone(),
        })
        .collect()
}

/// A table definition from its record, reusing the index objects of the
/// previous definition on the same storage.
fn table_from(
    rec: TableRecord,
    storage: Arc<Table>,
    prev: Option<&TableDef>,
) -> Result<TableDef, String> {
    let columns: Vec<Column> = rec
        .columns
        .into_iter()
        .map(|c| Column {
            name: c.name,
            ty: c.ty,
            domain: c.domain,
            not_null: c.not_null,
            default: c.default,
            generated: c.generated,
            missing: c.missing,
            dropped: c.dropped,
            storage: (c.storage != 0).then_some(c.storage),
            compression: c.compression,
        })
        .collect();
    let mut indexes = Vec::with_capacity(rec.indexes.len());
    for i in rec.indexes {
        if let Some(&bad) = i.columns.iter().find(|&&c| c >= columns.len()) {
            return Err(format!("index {}: column {bad} out of range", i.name));
        }
        let reuse = prev
            .filter(|p| Arc::ptr_eq(&p.storage, &storage))
            .and_then(|p| p.indexes.iter().find(|x| x.oid == i.oid))
            .map(|x| x.index.clone());
        if let Some(x) = &i.exprs {
            if let Some(bad) = x.key_columns().find(|&c| c >= columns.len()) {
                return Err(format!("index {}: column {bad} out of range", i.name));
            }
        }
        let index = reuse.unwrap_or_else(|| {
            Arc::new(
                match &i.exprs {
                    None => {
                        let names = i.columns.iter().map(|&c| columns[c].name.clone()).collect();
                        Index::new(
                            i.oid,
                            &i.name,
                            i.columns.clone(),
                            names,
                            i.unique,
                            i.primary,
                        )
                    }
                    Some(x) => {
                        Index::computed(i.oid, &i.name, index_key_names(x, &columns), i.unique)
                    }
                }
                .with_nulls_not_distinct(i.nulls_not_distinct)
                .with_fill(index_fill(&columns, rec.base_width))
                .with_multi(i.gin)
                .with_order(
                    &i.keyopts
                        .iter()
                        .map(IndexKeyOpt::key_order)
                        .collect::<Vec<_>>(),
                ),
            )
        });
        indexes.push(IndexDef {
            oid: i.oid,
            name: i.name,
            columns: i.columns,
            unique: i.unique,
            primary: i.primary,
            constraint: i.constraint,
            exprs: i.exprs.map(Arc::new),
            method: if i.gin {
                opclass::AccessMethod::Gin
            } else if i.hash {
                opclass::AccessMethod::Hash
            } else {
                opclass::AccessMethod::Btree
            },
            keyopts: i.keyopts,
            index,
        });
    }
    Ok(TableDef {
        oid: rec.oid,
        name: rec.name,
        namespace: PUBLIC_NAMESPACE_OID,
        columns,
        checks: rec
            .checks
            .into_iter()
            .map(|(name, expr)| Check { name, expr })
            .collect(),
        indexes,
        persistence: rec.persistence,
        base_width: rec.base_width,
        owned_sequences: rec.owned_sequences,
        triggers: rec.triggers,
        rules: rec.rules,
        row_security: rec.row_security,
        foreign_keys: rec.foreign_keys,
        identities: rec.identities,
        matview: rec.matview,
        not_valid: rec.not_valid,
        inherits: rec.inherits,
        partition_key: rec.partition_key,
        partition_bound: rec.partition_bound,
        on_commit: OnCommit::PreserveRows,
        storage,
    })
}
