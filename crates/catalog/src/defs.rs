//! Catalog object definitions: tables, columns, constraints, indexes and
//! sequences. A [`TableDef`] is immutable once published; a schema change
//! builds a new one (copy on write) and swaps it in through
//! [`crate::Catalog::apply`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use nestor_common::{DbError, RelId, SqlState};
use nestor_storage::{Index, Store, Table};
use nestor_types::datatype::DataType;
use nestor_types::Value;
use parking_lot::Mutex;

/// One column of a table.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: DataType,
    /// The domain (pg_type OID, `nestor_types::domains`) the column was
    /// declared with; `ty` is its base type. Writes of the column check
    /// the domain's constraints.
    pub domain: Option<u32>,
    pub not_null: bool,
    /// The DEFAULT expression as SQL text (PostgreSQL's deparsed form). The
    /// catalog stores it; the planner binds it when a statement needs it.
    pub default: Option<String>,
    /// A stored generated column (GENERATED ALWAYS AS (expr) STORED,
    /// PostgreSQL's attgenerated 's'): `default` holds the generation
    /// expression, computed from the row's other columns at every write
    /// instead of being a default.
    pub generated: bool,
    /// Value of the column in rows stored before it was added (ALTER TABLE
    /// ADD COLUMN does not rewrite rows; PostgreSQL's attmissingval).
    pub missing: Value,
    /// True once dropped (ALTER TABLE DROP COLUMN keeps the slot so stored
    /// rows keep their layout).
    pub dropped: bool,
    /// PostgreSQL's attstorage as set by ALTER COLUMN SET STORAGE (b'p',
    /// b'e', b'x', b'm'); `None` is the type's own storage. Nestor does
    /// not TOAST: the setting is kept for the catalog only.
    pub storage: Option<u8>,
    /// PostgreSQL's attcompression (b'p' pglz, b'l' lz4, 0 the default);
    /// kept for the catalog only, values are not compressed.
    pub compression: u8,
}

/// A CHECK constraint: its name and boolean expression as SQL text over the
/// table's columns (bound by the planner of each writing statement).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub name: String,
    pub expr: String,
}

/// An index (also the backing index of PRIMARY KEY / UNIQUE).
#[derive(Clone)]
pub struct IndexDef {
    pub oid: RelId,
    pub name: String,
    /// The key columns of a plain index; empty for a computed one (its
    /// keys are `exprs`), so code that knows only plain indexes passes
    /// computed ones by.
    pub columns: Vec<usize>,
    pub unique: bool,
    pub primary: bool,
    /// Created by a constraint (PRIMARY KEY, UNIQUE) rather than CREATE INDEX.
    pub constraint: bool,
    /// An expression or partial index's keys and predicate (None: plain).
    pub exprs: Option<Arc<IndexExprs>>,
    /// The access method (pg_am): btree, or hash (`USING hash`). A hash
    /// index shares the ordered storage of a btree one (its entries are
    /// the same); what differs is what it may serve: equality lookups
    /// only, never a range, an order or uniqueness (the planner's
    /// `access.rs`).
    pub method: crate::opclass::AccessMethod,
    /// Each key column's options as CREATE INDEX gave them (ASC/DESC,
    /// NULLS FIRST/LAST, COLLATE, operator class); empty when every key
    /// has the defaults. The storage index sorts as they say
    /// (`Index::with_order`).
    pub keyopts: Vec<IndexKeyOpt>,
    pub index: Arc<Index>,
}

/// One key column's options (PostgreSQL's pg_index.indoption,
/// indcollation and indclass, and the opclass options of pg_attribute).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexKeyOpt {
    pub desc: bool,
    pub nulls_first: bool,
    /// COLLATE, when it names a collation other than the key's own
    /// (a name Nestor knows: `nestor_types::collation`).
    pub collation: Option<String>,
    /// A named operator class that is not the key type's default.
    pub opclass: Option<String>,
    /// The operator class's options (`text_ops (x = 1)`), name and value
    /// as written.
    pub opclass_options: Vec<(String, String)>,
}

impl IndexKeyOpt {
    /// ASC NULLS LAST, the key's collation and default class.
    pub fn is_default(&self) -> bool {
        *self == IndexKeyOpt::default()
    }

    /// PostgreSQL's indoption bits: 1 DESC, 2 NULLS FIRST.
    pub fn indoption(&self) -> i16 {
        i16::from(self.desc) | i16::from(self.nulls_first) << 1
    }

    /// Whether the key's operator class is of a type the key's type is
    /// binary-coercible to rather than its own (`bpchar_ops` on text,
    /// `oid_ops` on int4): the index holds the key's own order, and the
    /// class's operators are not the key type's, so the planner matches
    /// none of its conditions or orders to it (as PostgreSQL's do not).
    pub fn foreign_class(&self, ty: DataType) -> bool {
        match self.opclass.as_deref() {
            Some("bpchar_ops" | "bpchar_pattern_ops") => !matches!(ty.base(), DataType::Char(_)),
            Some("oid_ops" | "bit_ops" | "varbit_ops") => true,
            _ => false,
        }
    }

    /// How the storage index sorts this key.
    pub fn key_order(&self) -> nestor_storage::KeyOrder {
        nestor_storage::KeyOrder {
            desc: self.desc,
            nulls_first: self.nulls_first,
        }
    }
}

impl IndexDef {
    /// Key `k`'s options (the defaults when none were given).
    pub fn key_opt(&self, k: usize) -> IndexKeyOpt {
        self.keyopts.get(k).cloned().unwrap_or_default()
    }

    /// Key `k` sorts ASC NULLS LAST (PostgreSQL's "default sorting
    /// behavior", which ADD CONSTRAINT ... USING INDEX requires).
    pub fn default_sorting(&self, k: usize) -> bool {
        self.keyopts
            .get(k)
            .is_none_or(|o| !o.desc && !o.nulls_first)
    }
}

/// One key column of a computed index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexKey {
    /// A table column, by position.
    Column(usize),
    /// An expression over the table's columns, as SQL text (PostgreSQL's
    /// pg_get_indexdef form, e.g. `lower(b)`, `(a + b)`).
    Expr(String),
}

/// The definition of an expression or partial index, as SQL text (bound
/// by the SQL layer, as CHECK constraints are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexExprs {
    pub keys: Vec<IndexKey>,
    /// A partial index's WHERE condition.
    pub predicate: Option<String>,
    /// A GIN index's operator class of each key (empty for other
    /// methods).
    pub gin: Vec<crate::gin::GinClass>,
    /// A GIN index's storage parameters (`WITH (fastupdate = off)`), name
    /// and value as written: kept for pg_class.reloptions and
    /// pg_get_indexdef (they tune nothing in Nestor's storage).
    pub options: Vec<(String, String)>,
}

impl IndexExprs {
    /// The plain key columns (the columns the expressions and the
    /// predicate read are found by the SQL layer when it binds them).
    pub fn key_columns(&self) -> impl Iterator<Item = usize> + '_ {
        self.keys.iter().filter_map(|k| match k {
            IndexKey::Column(c) => Some(*c),
            IndexKey::Expr(_) => None,
        })
    }
}

/// Binds a computed index's keys when the catalog installs a table from a
/// record (recovery, replicas): set by the SQL layer at start
/// ([`set_index_binder`]), which parses and binds the text and installs
/// the key function with `Index::set_keys`. The catalog cannot do it
/// itself: it knows no SQL.
pub type IndexBinder = fn(&crate::Catalog, &Arc<TableDef>, &IndexDef) -> Result<(), String>;

static INDEX_BINDER: std::sync::OnceLock<IndexBinder> = std::sync::OnceLock::new();

/// Install the binder of computed indexes (once per process).
pub fn set_index_binder(f: IndexBinder) {
    let _ = INDEX_BINDER.set(f);
}

/// Bind every computed index of `def` that has no key function yet.
pub(crate) fn bind_computed_indexes(
    catalog: &crate::Catalog,
    def: &Arc<TableDef>,
) -> Result<(), String> {
    for i in def.indexes.iter().filter(|i| !i.index.has_keys()) {
        let Some(bind) = INDEX_BINDER.get() else {
            return Err(format!(
                "index \"{}\" has key expressions, and no binder is installed",
                i.name
            ));
        };
        bind(catalog, def, i)?;
    }
    Ok(())
}

impl std::fmt::Debug for IndexDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IndexDef({} {} {:?})", self.oid, self.name, self.columns)
    }
}

/// Persistence of a table as written (all live in memory alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persistence {
    Permanent,
    Unlogged,
    Temporary,
}

impl Persistence {
    /// `pg_class.relpersistence`.
    pub fn code(self) -> &'static str {
        match self {
            Persistence::Permanent => "p",
            Persistence::Unlogged => "u",
            Persistence::Temporary => "t",
        }
    }
}

/// What a TEMP table does at each commit (CREATE TEMP TABLE ... ON COMMIT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnCommit {
    PreserveRows,
    DeleteRows,
    Drop,
}

/// When a trigger fires relative to its event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriggerTiming {
    Before,
    After,
    /// INSTEAD OF: a view's row trigger that does the write itself.
    Instead,
}

/// A trigger (PostgreSQL's pg_trigger row): kept with its table or view,
/// so it goes where the relation goes (DROP TABLE/VIEW drops it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriggerDef {
    pub oid: RelId,
    pub name: String,
    pub timing: TriggerTiming,
    /// TRIGGER_INSERT | TRIGGER_DELETE | TRIGGER_UPDATE | TRIGGER_TRUNCATE.
    pub events: u8,
    /// UPDATE OF these columns (empty: any UPDATE).
    pub columns: Vec<String>,
    /// FOR EACH ROW (else FOR EACH STATEMENT).
    pub row: bool,
    /// WHEN (condition), as SQL text over NEW and OLD.
    pub when: Option<String>,
    /// The trigger function's OID.
    pub function: RelId,
    /// Arguments given in EXECUTE FUNCTION f('a', 'b'), as text.
    pub args: Vec<String>,
    /// The trigger of the partitioned parent this one is a clone of
    /// (pg_trigger.tgparentid): a row trigger created on a partitioned
    /// table is cloned into each of its partitions, goes with the
    /// original (DROP, RENAME) and cannot be dropped or renamed alone.
    pub parent: Option<RelId>,
    /// ALTER TABLE ... ENABLE / DISABLE TRIGGER (pg_trigger.tgenabled).
    pub enabled: TriggerEnabled,
    /// REFERENCING OLD TABLE AS name (pg_trigger.tgoldtable).
    pub old_table: Option<String>,
    /// REFERENCING NEW TABLE AS name (pg_trigger.tgnewtable).
    pub new_table: Option<String>,
}

impl TriggerDef {
    /// Whether it has transition tables (REFERENCING).
    pub fn has_transition(&self) -> bool {
        self.old_table.is_some() || self.new_table.is_some()
    }
}

/// When a trigger fires, by session_replication_role (pg_trigger.tgenabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TriggerEnabled {
    /// 'O': in the origin and local roles (the default).
    #[default]
    Origin,
    /// 'D': never.
    Disabled,
    /// 'R': in the replica role only.
    Replica,
    /// 'A': always.
    Always,
}

impl TriggerEnabled {
    /// pg_trigger.tgenabled.
    pub fn code(self) -> char {
        match self {
            TriggerEnabled::Origin => 'O',
            TriggerEnabled::Disabled => 'D',
            TriggerEnabled::Replica => 'R',
            TriggerEnabled::Always => 'A',
        }
    }

    /// Whether it fires in a session whose session_replication_role is
    /// replica (`replica`) or origin/local.
    pub fn fires(self, replica: bool) -> bool {
        match self {
            TriggerEnabled::Origin => !replica,
            TriggerEnabled::Disabled => false,
            TriggerEnabled::Replica => replica,
            TriggerEnabled::Always => true,
        }
    }
}

/// The event a rule fires on (pg_rewrite.ev_type: '2' UPDATE, '3'
/// INSERT, '4' DELETE; a view's own ON SELECT rule is its `rule_oid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleEvent {
    Update,
    Insert,
    Delete,
}

impl RuleEvent {
    /// pg_rewrite.ev_type.
    pub fn code(self) -> u8 {
        match self {
            RuleEvent::Update => b'2',
            RuleEvent::Insert => b'3',
            RuleEvent::Delete => b'4',
        }
    }

    /// The event of a pg_rewrite.ev_type code.
    pub fn of_code(c: u8) -> Option<RuleEvent> {
        match c {
            b'2' => Some(RuleEvent::Update),
            b'3' => Some(RuleEvent::Insert),
            b'4' => Some(RuleEvent::Delete),
            _ => None,
        }
    }

    /// The command's name (ON INSERT ...).
    pub fn name(self) -> &'static str {
        match self {
            RuleEvent::Update => "UPDATE",
            RuleEvent::Insert => "INSERT",
            RuleEvent::Delete => "DELETE",
        }
    }
}

/// A rewrite rule (CREATE RULE ... ON INSERT|UPDATE|DELETE, PostgreSQL's
/// pg_rewrite row): kept with its table or view, so it goes where the
/// relation goes. The condition and actions are SQL text (the deparser's
/// form) over the relation's NEW and OLD; the planner's rewrite step
/// (`nestor_plan::rewrite`) turns a statement into its actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleDef {
    pub oid: RelId,
    pub name: String,
    pub event: RuleEvent,
    /// DO INSTEAD (else DO ALSO).
    pub instead: bool,
    /// WHERE condition.
    pub qual: Option<String>,
    /// The actions, in order (none: DO NOTHING).
    pub actions: Vec<String>,
}

/// The command a row-level security policy applies to (pg_policy.polcmd:
/// '*' ALL, 'r' SELECT, 'a' INSERT, 'w' UPDATE, 'd' DELETE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyCmd {
    All,
    Select,
    Insert,
    Update,
    Delete,
}

impl PolicyCmd {
    /// pg_policy.polcmd.
    pub fn code(self) -> u8 {
        match self {
            PolicyCmd::All => b'*',
            PolicyCmd::Select => b'r',
            PolicyCmd::Insert => b'a',
            PolicyCmd::Update => b'w',
            PolicyCmd::Delete => b'd',
        }
    }

    /// The command of a pg_policy.polcmd code.
    pub fn of_code(c: u8) -> Option<PolicyCmd> {
        Some(match c {
            b'*' => PolicyCmd::All,
            b'r' => PolicyCmd::Select,
            b'a' => PolicyCmd::Insert,
            b'w' => PolicyCmd::Update,
            b'd' => PolicyCmd::Delete,
            _ => return None,
        })
    }

    /// The name pg_policies shows (ALL, SELECT, ...).
    pub fn name(self) -> &'static str {
        match self {
            PolicyCmd::All => "ALL",
            PolicyCmd::Select => "SELECT",
            PolicyCmd::Insert => "INSERT",
            PolicyCmd::Update => "UPDATE",
            PolicyCmd::Delete => "DELETE",
        }
    }

    /// Whether a policy for this command applies to `cmd` (ALL applies
    /// to every command).
    pub fn applies_to(self, cmd: PolicyCmd) -> bool {
        self == PolicyCmd::All || self == cmd
    }
}

/// A row-level security policy (CREATE POLICY, PostgreSQL's pg_policy
/// row): kept with its table, so it goes where the table goes. Its
/// expressions are SQL text (the deparser's form) over the table's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyDef {
    pub oid: RelId,
    pub name: String,
    pub cmd: PolicyCmd,
    /// AS PERMISSIVE (else RESTRICTIVE).
    pub permissive: bool,
    /// The roles it applies to, by OID, in order; 0 is PUBLIC.
    pub roles: Vec<u32>,
    /// USING.
    pub qual: Option<String>,
    /// WITH CHECK.
    pub check: Option<String>,
}

/// A table's row-level security: pg_class.relrowsecurity and
/// relforcerowsecurity, and its policies in pg_policy's heap order
/// (creation; a changed one last).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowSecurity {
    pub enabled: bool,
    pub forced: bool,
    pub policies: Vec<PolicyDef>,
}

impl RowSecurity {
    /// Nothing set (what tables without it, and older records, have).
    pub fn is_default(&self) -> bool {
        !self.enabled && !self.forced && self.policies.is_empty()
    }
}

pub const TRIGGER_INSERT: u8 = 1;
pub const TRIGGER_DELETE: u8 = 2;
pub const TRIGGER_UPDATE: u8 = 4;
pub const TRIGGER_TRUNCATE: u8 = 8;

/// What a foreign key does to referencing rows when the referenced key is
/// deleted or changed (pg_constraint.confdeltype / confupdtype).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FkAction {
    NoAction,
    Restrict,
    Cascade,
    SetNull,
    SetDefault,
}

impl FkAction {
    /// PostgreSQL's one-letter code.
    pub fn code(self) -> u8 {
        match self {
            FkAction::NoAction => b'a',
            FkAction::Restrict => b'r',
            FkAction::Cascade => b'c',
            FkAction::SetNull => b'n',
            FkAction::SetDefault => b'd',
        }
    }

    pub fn from_code(c: u8) -> Option<FkAction> {
        Some(match c {
            b'a' => FkAction::NoAction,
            b'r' => FkAction::Restrict,
            b'c' => FkAction::Cascade,
            b'n' => FkAction::SetNull,
            b'd' => FkAction::SetDefault,
            _ => return None,
        })
    }

    /// The clause's words (`SET NULL`).
    pub fn sql(self) -> &'static str {
        match self {
            FkAction::NoAction => "NO ACTION",
            FkAction::Restrict => "RESTRICT",
            FkAction::Cascade => "CASCADE",
            FkAction::SetNull => "SET NULL",
            FkAction::SetDefault => "SET DEFAULT",
        }
    }
}

/// A FOREIGN KEY constraint, kept with the referencing (child) table:
/// MATCH SIMPLE, checked when each statement's rows are written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignKey {
    pub oid: RelId,
    pub name: String,
    /// Referencing columns (positions in this table).
    pub columns: Vec<usize>,
    /// The referenced table's OID and columns (a unique index covers them).
    pub parent: RelId,
    pub parent_columns: Vec<usize>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
    /// DEFERRABLE, and INITIALLY DEFERRED: checked at commit unless SET
    /// CONSTRAINTS makes it immediate.
    pub deferrable: bool,
    pub deferred: bool,
    /// MATCH FULL: a key must be all NULL (not checked) or have no NULL;
    /// MATCH SIMPLE (false) skips a key with any NULL.
    pub match_full: bool,
}

/// An identity column (GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY): its
/// values come from its owned sequence through its default; ALWAYS also
/// refuses explicit values unless OVERRIDING SYSTEM VALUE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub column: usize,
    pub always: bool,
}

/// A table definition. Immutable: changes build a new one.
#[derive(Clone)]
pub struct TableDef {
    pub oid: RelId,
    pub name: String,
    /// The OID of its schema (pg_namespace; [`crate::TEMP_NAMESPACE`] for
    /// TEMP tables, which live in their session's namespace).
    pub namespace: u32,
    pub columns: Vec<Column>,
    pub checks: Vec<Check>,
    pub indexes: Vec<IndexDef>,
    pub persistence: Persistence,
    /// Columns every stored row version has (later ones are padded on read
    /// with their `missing` value).
    pub base_width: usize,
    /// Sequences owned by columns (serial), dropped with the table.
    pub owned_sequences: Vec<String>,
    /// TEMP tables only (PreserveRows for every other table).
    pub on_commit: OnCommit,
    /// Triggers, in name order (the order PostgreSQL fires them in).
    pub triggers: Vec<TriggerDef>,
    /// Rewrite rules, in name order (the order PostgreSQL applies them in).
    pub rules: Vec<RuleDef>,
    /// FOREIGN KEY constraints of this (referencing) table.
    pub foreign_keys: Vec<ForeignKey>,
    /// Row-level security: ENABLE / FORCE and the policies.
    pub row_security: RowSecurity,
    /// Identity columns.
    pub identities: Vec<Identity>,
    /// A materialized view: its query, and whether it holds its rows.
    pub matview: Option<MatView>,
    /// CHECK and FOREIGN KEY constraints added NOT VALID and not validated
    /// since (by name): the rows that existed then were not checked, later
    /// ones are (pg_constraint.convalidated false).
    pub not_valid: Vec<String>,
    /// The tables it inherits from (CREATE TABLE ... INHERITS, ALTER
    /// TABLE ... INHERIT), by OID in declaration order: PostgreSQL's
    /// pg_inherits rows with this table as inhrelid.
    pub inherits: Vec<RelId>,
    /// A partitioned table's key (PARTITION BY): its rows live in its
    /// partitions (`crate::partition`).
    pub partition_key: Option<crate::partition::PartitionKey>,
    /// A partition's bound (PARTITION OF ... FOR VALUES): its one parent
    /// is `inherits[0]`.
    pub partition_bound: Option<crate::partition::PartitionBound>,
    pub storage: Arc<Table>,
}

/// What makes a table a materialized view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatView {
    /// The defining query as SQL text (PostgreSQL's deparser).
    pub query: String,
    /// False after WITH NO DATA until a REFRESH: reading it is 55000.
    pub populated: bool,
    /// Its `_RETURN` rule's OID (pg_rewrite), and the relations the query
    /// reads (pg_depend: pg_dump creates it after them).
    pub rule_oid: RelId,
    pub depends_on: Vec<RelId>,
}

impl std::fmt::Debug for TableDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TableDef({} {})", self.oid, self.name)
    }
}

/// What an index of a table with these columns pads a stored row with
/// when the row predates columns added since ([`Index::with_fill`]): each
/// column's `missing` value, or nothing when every stored row has every
/// column (`base_width` covers them all).
pub fn index_fill(columns: &[Column], base_width: usize) -> Vec<Value> {
    if base_width >= columns.len() {
        return Vec::new();
    }
    columns.iter().map(|c| c.missing.clone()).collect()
}

impl TableDef {
    /// [`index_fill`] of this table as it stands.
    pub fn index_fill(&self) -> Vec<Value> {
        index_fill(&self.columns, self.base_width)
    }

    /// The partitioned table this one is a partition of (None for any
    /// other table, an inheritance child included).
    pub fn partition_parent(&self) -> Option<RelId> {
        self.partition_bound
            .as_ref()
            .and(self.inherits.first().copied())
    }

    /// The identity of column `col`, if it is one.
    pub fn identity(&self, col: usize) -> Option<Identity> {
        self.identities.iter().copied().find(|i| i.column == col)
    }

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

    /// The same definition over new, empty storage `id` in `store`, with
    /// fresh (empty) index objects: TRUNCATE, ON COMMIT DELETE ROWS. Rows
    /// added before a version's columns existed no longer exist, so every
    /// column is a base column.
    pub fn with_fresh_storage(&self, store: &Store, id: RelId) -> TableDef {
        let storage = store.create_table(id, &self.name);
        let mut new = self.clone();
        new.storage = storage.clone();
        for idx in &mut new.indexes {
            idx.index = Arc::new(idx.index.fresh_copy());
            storage
                .add_index(idx.index.clone())
                .expect("an empty table violates no unique index");
        }
        for c in &mut new.columns {
            c.missing = Value::Null;
        }
        new.base_width = new.columns.len();
        new
    }

    /// Whether committed changes to the table's rows reach the WAL.
    pub fn is_logged(&self) -> bool {
        self.persistence == Persistence::Permanent
    }
}

/// State of a sequence.
#[derive(Debug)]
pub struct Sequence {
    pub oid: RelId,
    pub name: String,
    /// The OID of its schema ([`crate::TEMP_NAMESPACE`] for TEMP ones).
    pub namespace: u32,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub cycle: bool,
    /// AS smallint/integer/bigint: the type's OID (21, 23, 20); 0 in
    /// sequences logged before it was kept (pg_sequence then shows the
    /// owning column's type, else bigint).
    pub type_oid: u32,
    /// CACHE (kept for pg_sequence; every nextval is one step here).
    pub cache: i64,
    /// (last value, is_called). Shared by the definitions that replace
    /// one another (ALTER SEQUENCE ... OWNED BY): a nextval() through an
    /// older one still advances the one sequence.
    pub state: Arc<Mutex<(i64, bool)>>,
    /// The column owning it (serial), as (table name, column name).
    pub owned_by: Option<(String, String)>,
    /// Belongs to a TEMP table: never logged, gone after a restart.
    pub temporary: bool,
    /// Changed since its state was last logged (see the commit hook).
    pub dirty: Arc<AtomicBool>,
}

impl Sequence {
    /// The same sequence (sharing its state) owned by `owned_by` instead.
    pub fn with_owner(&self, owned_by: Option<(String, String)>) -> Sequence {
        Sequence {
            oid: self.oid,
            name: self.name.clone(),
            namespace: self.namespace,
            increment: self.increment,
            min: self.min,
            max: self.max,
            start: self.start,
            cycle: self.cycle,
            type_oid: self.type_oid,
            cache: self.cache,
            state: self.state.clone(),
            owned_by,
            temporary: self.temporary,
            dirty: self.dirty.clone(),
        }
    }

    /// nextval(): advance and return the new value (not transactional).
    pub fn next(&self) -> Result<i64, DbError> {
        let mut st = self.state.lock();
        self.dirty.store(true, Ordering::Release);
        if !st.1 {
            st.1 = true;
            return Ok(st.0);
        }
        let v = match st.0.checked_add(self.increment) {
            Some(v) if v >= self.min && v <= self.max => v,
            _ if self.cycle => self.wrap_value(),
            _ => return Err(self.exhausted()),
        };
        st.0 = v;
        Ok(v)
    }

    /// setval(): set the state (not transactional).
    pub fn set(&self, value: i64, called: bool) -> Result<(), DbError> {
        if value < self.min || value > self.max {
            return Err(DbError::new(
                SqlState::NumericValueOutOfRange,
                format!(
                    "setval: value {value} is out of bounds for sequence \"{}\" ({}..{})",
                    self.name, self.min, self.max
                ),
            ));
        }
        *self.state.lock() = (value, called);
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Back to the start (TRUNCATE ... RESTART IDENTITY).
    pub fn restart(&self) {
        *self.state.lock() = (self.start, false);
        self.dirty.store(true, Ordering::Release);
    }

    fn wrap_value(&self) -> i64 {
        if self.increment > 0 {
            self.min
        } else {
            self.max
        }
    }

    fn exhausted(&self) -> DbError {
        let (which, bound) = if self.increment > 0 {
            ("maximum", self.max)
        } else {
            ("minimum", self.min)
        };
        DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!(
                "nextval: reached {which} value of sequence \"{}\" ({bound})",
                self.name
            ),
        )
    }
}

/// A view: a stored query, planned in place of its name in FROM.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewDef {
    pub oid: RelId,
    /// The OID of its `_RETURN` rule (pg_rewrite), for the tools that
    /// read view dependencies through it.
    pub rule_oid: RelId,
    pub name: String,
    /// The OID of its schema (not part of its record: a record in a
    /// schema other than `public` is wrapped in `InSchema`).
    pub namespace: u32,
    /// The defining query as SQL text (PostgreSQL's deparser).
    pub query: String,
    /// The view's columns (after its column list) and their types, fixed
    /// when it was created: columns later added to a table that the
    /// query selects `*` from do not appear, as in PostgreSQL.
    pub columns: Vec<(String, DataType)>,
    /// The tables and views the query reads (DROP of one needs CASCADE).
    pub depends_on: Vec<RelId>,
    /// A TEMP view (in its session's namespace; never logged).
    pub temporary: bool,
    /// WITH [LOCAL | CASCADED] CHECK OPTION: rows written through the
    /// view must satisfy its condition.
    pub check_option: ViewCheckOption,
    /// WITH (security_barrier): conditions of a query over the view are
    /// never evaluated on rows the view's own conditions reject. Nestor
    /// plans a view as a subquery whose result outer conditions filter,
    /// never pushing them below it, so this holds for every view; the
    /// option is kept for pg_class.reloptions (and for a planner that
    /// would push conditions down: it must not for these views).
    pub security_barrier: bool,
    /// WITH (security_invoker): the relations under the view are checked
    /// (privileges, row-level security) as the user of the query, not as
    /// the view's owner.
    pub security_invoker: bool,
    /// Rewrite rules other than its `_RETURN`, in name order.
    pub rules: Vec<RuleDef>,
    /// Its triggers (INSTEAD OF row triggers, BEFORE/AFTER statement
    /// triggers), in name order; they go when the view goes.
    pub triggers: Vec<TriggerDef>,
    /// Column defaults (ALTER VIEW ... ALTER COLUMN c SET DEFAULT): the
    /// column's position and the expression as SQL text, by position. An
    /// INSERT through the view that leaves the column out (or says
    /// DEFAULT) takes it before the base table's own default.
    pub defaults: Vec<(usize, String)>,
    /// The columns of each table its query reads directly (attribute
    /// numbers, ascending; 0: the whole row), taken when it was made, so
    /// `SELECT *` counts the columns there were then (PostgreSQL's
    /// pg_depend entries on table columns). DROP COLUMN and ALTER COLUMN
    /// TYPE of one need the view gone. None: a view recorded before Nestor
    /// kept them (its query text is searched instead).
    pub column_deps: Option<Vec<(RelId, Vec<i16>)>>,
}

/// An installed extension (CREATE EXTENSION; pg_extension): its OID and
/// version. Its functions are the query engine's own; the catalog keeps
/// whether it is installed in this database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionDef {
    pub oid: RelId,
    pub version: String,
}

/// A view's check option (PostgreSQL's `check_option` reloption).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewCheckOption {
    #[default]
    None,
    Local,
    Cascaded,
}

impl ViewCheckOption {
    /// The name information_schema.views.check_option shows.
    pub fn name(self) -> &'static str {
        match self {
            ViewCheckOption::None => "NONE",
            ViewCheckOption::Local => "LOCAL",
            ViewCheckOption::Cascaded => "CASCADED",
        }
    }
}

/// What a catalog name resolves to.
#[derive(Clone, Debug)]
pub enum Relation {
    Table(Arc<TableDef>),
    Index { table: Arc<TableDef>, index: String },
    Sequence(Arc<Sequence>),
    View(Arc<ViewDef>),
}
