//! Catalog: tables, columns, indexes, sequences (owned by the query engine).
//!
//! The catalog is a map from names to immutable definitions behind `Arc`s.
//! A schema change builds a new definition and swaps it in (copy on write),
//! so a running statement keeps the definition it was planned with and
//! readers never see a half-changed table. Every change bumps `version`;
//! cached plans compare it and re-plan when it moved.
//!
//! Changes are transactional through the transaction's undo log: each DDL
//! pushes a `DataUndo::Ddl` whose `undo()` swaps the previous definitions
//! back (ROLLBACK and ROLLBACK TO), and whose `commit()` frees what the
//! change made unreachable (the storage of a dropped or truncated table).
//! The catalog itself is not versioned by snapshot: other sessions see a
//! change as soon as it is made (PostgreSQL would block them on the table's
//! lock until commit; we have no table locks yet).
//!
//! Relation OIDs come from one counter starting at 16384 (FirstNormalObjectId).
//! A table's storage (`Arc<Table>`) has its own relation id from the same
//! counter: TRUNCATE swaps in a fresh storage table, keeping the table's OID.
//! Sequences are not transactional (as in PostgreSQL): nextval's effect
//! survives a rollback.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use nestor_common::{DbError, RelId, SessionId, SqlState};
use nestor_storage::{Index, Store, Table};
use nestor_txn::{DataUndo, DdlUndo, Transaction};
use parking_lot::{Mutex, RwLock};

use crate::expr::Expr;
use nestor_types::datatype::DataType;

/// First OID handed out to user objects (PostgreSQL's FirstNormalObjectId).
pub const FIRST_USER_OID: u32 = 16384;
/// OID of the `public` namespace (as in PostgreSQL).
pub const PUBLIC_NAMESPACE_OID: u32 = 2200;
/// OID of the `pg_catalog` namespace.
pub const PG_CATALOG_NAMESPACE_OID: u32 = 11;

/// One column of a table.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: DataType,
    pub not_null: bool,
    /// The DEFAULT expression (bound with no input row), if any.
    pub default: Option<Expr>,
    /// Text of the default as written, for catalogs (pg_attrdef).
    pub default_text: Option<String>,
    /// Value of the column in rows stored before it was added (ALTER TABLE
    /// ADD COLUMN does not rewrite rows; PostgreSQL's attmissingval).
    pub missing: nestor_types::Value,
    /// True once dropped (ALTER TABLE DROP COLUMN keeps the slot so stored
    /// rows keep their layout).
    pub dropped: bool,
}

/// A CHECK constraint.
#[derive(Clone, Debug)]
pub struct Check {
    pub name: String,
    /// Bound over the table's row.
    pub expr: Expr,
}

/// An index (also the backing index of PRIMARY KEY / UNIQUE).
#[derive(Clone)]
pub struct IndexDef {
    pub oid: RelId,
    pub name: String,
    pub columns: Vec<usize>,
    pub unique: bool,
    pub primary: bool,
    /// Created by a constraint (PRIMARY KEY, UNIQUE) rather than CREATE INDEX.
    pub constraint: bool,
    pub index: Arc<Index>,
}

/// Persistence of a table as written (all live in memory alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persistence {
    Permanent,
    Unlogged,
    Temporary,
}

/// A table definition. Immutable: changes build a new one.
#[derive(Clone)]
pub struct TableDef {
    pub oid: RelId,
    pub name: String,
    pub columns: Vec<Column>,
    pub checks: Vec<Check>,
    pub indexes: Vec<IndexDef>,
    pub persistence: Persistence,
    /// Columns every stored row version has (later ones are padded on read
    /// with their `missing` value).
    pub base_width: usize,
    /// Sequences owned by columns (serial), dropped with the table.
    pub owned_sequences: Vec<String>,
    pub storage: Arc<Table>,
}

impl std::fmt::Debug for IndexDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IndexDef({} {} {:?})", self.oid, self.name, self.columns)
    }
}

impl std::fmt::Debug for TableDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TableDef({} {})", self.oid, self.name)
    }
}

impl TableDef {
    /// Position of a live column by name.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| !c.dropped && c.name == name)
    }

    /// Positions of the live columns, in order.
    pub fn live_columns(&self) -> impl Iterator<Item = (usize, &Column)> {
        self.columns.iter().enumerate().filter(|(_, c)| !c.dropped)
    }

    pub fn primary_key(&self) -> Option<&IndexDef> {
        self.indexes.iter().find(|i| i.primary)
    }
}

/// State of a sequence.
#[derive(Debug)]
pub struct Sequence {
    pub oid: RelId,
    pub name: String,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub cycle: bool,
    /// (last value, is_called).
    pub state: Mutex<(i64, bool)>,
    /// The column owning it (serial), as (table name, column name).
    pub owned_by: Option<(String, String)>,
    /// Changed since its state was last logged (see durable.rs).
    pub dirty: std::sync::atomic::AtomicBool,
}

impl Sequence {
    /// nextval(): advance and return the new value (not transactional).
    pub fn next(&self) -> Result<i64, DbError> {
        let mut st = self.state.lock();
        self.dirty.store(true, Ordering::Release);
        if !st.1 {
            st.1 = true;
            return Ok(st.0);
        }
        let next = st.0.checked_add(self.increment);
        let v = match next {
            Some(v) if v >= self.min && v <= self.max => v,
            _ if self.cycle => {
                if self.increment > 0 {
                    self.min
                } else {
                    self.max
                }
            }
            _ => {
                let which = if self.increment > 0 {
                    "maximum"
                } else {
                    "minimum"
                };
                let bound = if self.increment > 0 {
                    self.max
                } else {
                    self.min
                };
                return Err(DbError::new(
                    SqlState::ObjectNotInPrerequisiteState,
                    format!(
                        "nextval: reached {which} value of sequence \"{}\" ({bound})",
                        self.name
                    ),
                ));
            }
        };
        st.0 = v;
        Ok(v)
    }
}

/// What a catalog name resolves to.
#[derive(Clone, Debug)]
pub enum Relation {
    Table(Arc<TableDef>),
    Index { table: Arc<TableDef>, index: String },
    Sequence(Arc<Sequence>),
}

#[derive(Default)]
pub(crate) struct State {
    pub tables: BTreeMap<String, Arc<TableDef>>,
    /// index name -> table name
    pub index_owner: HashMap<String, String>,
    pub sequences: BTreeMap<String, Arc<Sequence>>,
}

pub struct Catalog {
    state: Arc<RwLock<State>>,
    next_oid: AtomicU32,
    /// OIDs recovery forces the next allocations to take (replayed DDL).
    forced_oids: Mutex<std::collections::VecDeque<u32>>,
    /// Redo of every committed DDL statement, in commit order: the catalog
    /// part of a checkpoint.
    history: Arc<Mutex<Vec<Vec<u8>>>>,
    version: Arc<AtomicU64>,
    /// currval() per (session, sequence oid).
    currvals: Mutex<HashMap<(SessionId, RelId), i64>>,
}

impl Catalog {
    pub fn new() -> Catalog {
        Catalog {
            state: Arc::new(RwLock::new(State::default())),
            next_oid: AtomicU32::new(FIRST_USER_OID),
            forced_oids: Mutex::new(Default::default()),
            history: Arc::new(Mutex::new(Vec::new())),
            version: Arc::new(AtomicU64::new(1)),
            currvals: Mutex::new(HashMap::new()),
        }
    }

    /// Bumped by every schema change; plans made at an older version are
    /// re-planned.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    pub fn alloc_oid(&self) -> RelId {
        let forced = self.forced_oids.lock().pop_front();
        let oid = match forced {
            Some(o) => {
                self.next_oid.fetch_max(o + 1, Ordering::Relaxed);
                RelId(o)
            }
            None => RelId(self.next_oid.fetch_add(1, Ordering::Relaxed)),
        };
        crate::durable::note_oid(oid);
        oid
    }

    /// Recovery: the next allocations return exactly these OIDs.
    pub fn force_oids(&self, oids: &[u32]) {
        *self.forced_oids.lock() = oids.iter().copied().collect();
    }

    /// Recovery: never allocate below `next`.
    pub fn ensure_next_oid(&self, next: u32) {
        self.next_oid.fetch_max(next, Ordering::Relaxed);
    }

    pub fn next_oid(&self) -> u32 {
        self.next_oid.load(Ordering::Relaxed)
    }

    /// Redo of every committed DDL statement so far (checkpoint image).
    pub fn committed_ddl(&self) -> Vec<Vec<u8>> {
        self.history.lock().clone()
    }

    /// Storage of the tables whose rows are logged (not UNLOGGED/TEMP).
    pub fn logged_storage(&self) -> Vec<Arc<Table>> {
        self.state
            .read()
            .tables
            .values()
            .filter(|t| t.persistence == Persistence::Permanent)
            .map(|t| t.storage.clone())
            .collect()
    }

    /// The state of every sequence (checkpoint image).
    pub fn sequence_record(&self) -> crate::durable::CatalogRecord {
        let st = self.state.read();
        let seqs = st
            .sequences
            .values()
            .map(|s| {
                let (last, called) = *s.state.lock();
                (s.name.clone(), last, called)
            })
            .collect();
        crate::durable::CatalogRecord::Sequences(seqs)
    }

    /// The commit hook: the states of sequences changed since the last
    /// commit that logged them, appended to each commit's redo.
    pub fn sequence_hook(&self) -> nestor_storage::CommitHook {
        let state = self.state.clone();
        Arc::new(move || {
            let st = state.read();
            let seqs: Vec<(String, i64, bool)> = st
                .sequences
                .values()
                .filter(|s| s.dirty.swap(false, Ordering::AcqRel))
                .map(|s| {
                    let (last, called) = *s.state.lock();
                    (s.name.clone(), last, called)
                })
                .collect();
            (!seqs.is_empty()).then(|| crate::durable::CatalogRecord::Sequences(seqs).encode())
        })
    }

    /// Recovery: sequences move forward to the logged states (never back:
    /// commits may log states out of order, and a value once handed out
    /// must not be handed out again).
    pub fn restore_sequences(&self, seqs: &[(String, i64, bool)]) {
        let st = self.state.read();
        for (name, last, called) in seqs {
            if let Some(s) = st.sequences.get(name) {
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

    pub fn table(&self, name: &str) -> Option<Arc<TableDef>> {
        self.state.read().tables.get(name).cloned()
    }

    pub fn tables(&self) -> Vec<Arc<TableDef>> {
        self.state.read().tables.values().cloned().collect()
    }

    pub fn sequences(&self) -> Vec<Arc<Sequence>> {
        self.state.read().sequences.values().cloned().collect()
    }

    pub fn sequence(&self, name: &str) -> Option<Arc<Sequence>> {
        self.state.read().sequences.get(name).cloned()
    }

    /// Resolve a relation name of any kind.
    pub fn relation(&self, name: &str) -> Option<Relation> {
        let st = self.state.read();
        if let Some(t) = st.tables.get(name) {
            return Some(Relation::Table(t.clone()));
        }
        if let Some(t) = st.index_owner.get(name) {
            let table = st.tables.get(t)?.clone();
            return Some(Relation::Index {
                table,
                index: name.to_string(),
            });
        }
        st.sequences
            .get(name)
            .map(|s| Relation::Sequence(s.clone()))
    }

    pub fn name_taken(&self, name: &str) -> bool {
        self.relation(name).is_some()
    }

    pub fn set_currval(&self, session: SessionId, seq: RelId, v: i64) {
        let mut c = self.currvals.lock();
        c.insert((session, seq), v);
        c.insert((session, RelId(0)), v);
    }

    /// currval() of one sequence only (setval), leaving lastval() alone.
    pub fn set_seq_currval(&self, session: SessionId, seq: RelId, v: i64) {
        self.currvals.lock().insert((session, seq), v);
    }

    /// lastval(): the value most recently returned by nextval() in the
    /// session (kept under the pseudo sequence id 0).
    pub fn lastval(&self, session: SessionId) -> Option<i64> {
        self.currval(session, RelId(0))
    }

    pub fn currval(&self, session: SessionId, seq: RelId) -> Option<i64> {
        self.currvals.lock().get(&(session, seq)).copied()
    }

    /// Forget a session's currval state (session end).
    pub fn forget_session(&self, session: SessionId) {
        self.currvals.lock().retain(|(s, _), _| *s != session);
    }

    /// Apply `change` now and record its undo in `txn`.
    pub(crate) fn apply(
        &self,
        txn: &mut Transaction,
        store: &Arc<Store>,
        change: Change,
    ) -> Result<(), DbError> {
        if let Change::PutTable { def, .. } = &change {
            def.storage
                .set_logged(def.persistence == Persistence::Permanent);
            if def.persistence == Persistence::Temporary {
                crate::durable::skip_logging();
            }
        }
        let undo = {
            let mut st = self.state.write();
            change.apply(&mut st)
        };
        self.version.fetch_add(1, Ordering::AcqRel);
        txn.assign_xid();
        let (capture, gate) = crate::durable::attach();
        txn.push_undo(DataUndo::Ddl(Arc::new(CatalogUndo {
            state: self.state.clone(),
            version: self.version.clone(),
            store: store.clone(),
            undo,
            capture,
            _gate: gate,
            history: self.history.clone(),
        })))
        .map_err(DbError::from)
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}

/// A schema change, applied under the catalog's write lock.
pub(crate) enum Change {
    /// Put (or replace) a table definition; `old_storage` is a storage
    /// table the new definition no longer uses (TRUNCATE), freed at commit.
    PutTable {
        def: Arc<TableDef>,
        old_storage: Option<Arc<Table>>,
    },
    DropTable(String),
    PutSequence(Arc<Sequence>),
    DropSequence(String),
}

/// What undoing one change restores.
enum Undo {
    /// Previous definition of a table name (None: it did not exist).
    Table {
        name: String,
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
}

impl std::fmt::Debug for Undo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undo::Table { name, .. } => write!(f, "table {name}"),
            Undo::Sequence { name, .. } => write!(f, "sequence {name}"),
        }
    }
}

impl Change {
    fn apply(self, st: &mut State) -> Undo {
        match self {
            Change::PutTable { def, old_storage } => {
                let name = def.name.clone();
                let prev = st.tables.insert(name.clone(), def.clone());
                if let Some(p) = &prev {
                    for i in &p.indexes {
                        st.index_owner.remove(&i.name);
                    }
                }
                for i in &def.indexes {
                    st.index_owner.insert(i.name.clone(), name.clone());
                }
                let new_storage = match &prev {
                    Some(p) if Arc::ptr_eq(&p.storage, &def.storage) => None,
                    _ => Some(def.storage.clone()),
                };
                Undo::Table {
                    name,
                    prev,
                    free_on_commit: old_storage,
                    created_storage: new_storage,
                }
            }
            Change::DropTable(name) => {
                let prev = st.tables.remove(&name);
                if let Some(p) = &prev {
                    for i in &p.indexes {
                        st.index_owner.remove(&i.name);
                    }
                }
                let storage = prev.as_ref().map(|p| p.storage.clone());
                Undo::Table {
                    name,
                    prev,
                    free_on_commit: storage,
                    created_storage: None,
                }
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
        }
    }
}

struct CatalogUndo {
    state: Arc<RwLock<State>>,
    version: Arc<AtomicU64>,
    store: Arc<Store>,
    undo: Undo,
    /// The statement's redo (first undo entry of a DDL statement only).
    capture: Option<Arc<Mutex<crate::durable::Capture>>>,
    /// Keeps checkpoints out until the transaction ends.
    _gate: Option<Arc<crate::durable::DdlGateGuard>>,
    history: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl std::fmt::Debug for CatalogUndo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CatalogUndo({:?})", self.undo)
    }
}

impl DdlUndo for CatalogUndo {
    fn undo(&self) {
        let mut st = self.state.write();
        match &self.undo {
            Undo::Table {
                name,
                prev,
                created_storage,
                ..
            } => {
                if let Some(cur) = st.tables.remove(name) {
                    for i in &cur.indexes {
                        st.index_owner.remove(&i.name);
                    }
                }
                if let Some(p) = prev {
                    for i in &p.indexes {
                        st.index_owner.insert(i.name.clone(), name.clone());
                    }
                    st.tables.insert(name.clone(), p.clone());
                    // Indexes attached to shared storage by the change.
                    sync_storage_indexes(p);
                }
                if let Some(s) = created_storage {
                    let keep = prev.as_ref().is_some_and(|p| Arc::ptr_eq(&p.storage, s));
                    if !keep {
                        self.store.drop_table(s.id);
                    }
                }
            }
            Undo::Sequence { name, prev } => match prev {
                Some(p) => {
                    st.sequences.insert(name.clone(), p.clone());
                }
                None => {
                    st.sequences.remove(name);
                }
            },
        }
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    fn redo(&self) -> Option<Vec<u8>> {
        self.capture
            .as_deref()
            .and_then(crate::durable::capture_redo)
    }

    fn commit(&self) {
        if let Some(r) = self.redo() {
            self.history.lock().push(r);
        }
        if let Undo::Table {
            free_on_commit: Some(s),
            name,
            ..
        } = &self.undo
        {
            let still_used = self
                .state
                .read()
                .tables
                .get(name)
                .is_some_and(|t| Arc::ptr_eq(&t.storage, s));
            if !still_used {
                self.store.drop_table(s.id);
            }
        }
    }
}

/// Make the storage table's attached indexes match a definition (after an
/// undo restored an older definition sharing the same storage).
pub(crate) fn sync_storage_indexes(def: &TableDef) {
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
