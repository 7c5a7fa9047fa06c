//! What a statement executes within, and where its rows go.
//!
//! The session owns the transaction, the settings and the wait bounds; for
//! each statement it lends them to the executor as a [`StatementCtx`].

use std::collections::HashMap;
use std::sync::Arc;

use nestor_catalog::Catalog;
use nestor_common::{DbError, SessionId};
use nestor_settings::{SettingChange, Settings};
use nestor_txn::{Snapshot, Transaction, WaitCtl};
use nestor_types::{EvalCtx, Value};

use crate::database::Database;
use crate::tag::CommandTag;
use crate::workmem::QueryMemory;

/// Everything a statement executes within.
pub struct StatementCtx<'a> {
    pub db: &'a Database,
    /// The session's handle on the catalog (it sees the session's TEMP
    /// tables); use it rather than `db.catalog` for every name lookup.
    pub catalog: &'a Catalog,
    pub session: SessionId,
    pub txn: &'a mut Transaction,
    /// The statement's snapshot (taken by the session at statement start).
    pub snapshot: Snapshot,
    /// Session state values depend on (TimeZone, transaction timestamp).
    pub eval: EvalCtx,
    pub settings: &'a Settings,
    pub wait: WaitCtl<'a>,
    /// NOTICE/WARNING messages raised by the statement, sent before its result.
    pub notices: &'a mut Vec<DbError>,
    /// Microseconds since 2000-01-01 UTC of transaction start (now()) and
    /// statement start (statement_timestamp()).
    pub txn_start_us: i64,
    pub stmt_start_us: i64,
    /// The transaction is READ ONLY (BEGIN READ ONLY, SET TRANSACTION READ
    /// ONLY, default_transaction_read_only): writes and DDL fail with 25006
    /// `cannot execute <COMMAND> in a read-only transaction`.
    pub read_only: bool,
    /// Inside an explicit transaction block (BEGIN ... COMMIT): VACUUM and
    /// the like fail with 25001.
    pub in_block: bool,
    /// The statement may end its transaction and start another (COMMIT /
    /// ROLLBACK in a procedure): a CALL or DO sent on its own, outside a
    /// transaction block; cleared while a function runs (PostgreSQL's
    /// non-atomic execution context).
    pub may_end_txn: bool,
    /// Transactions the statement has ended so far: a saved command id or
    /// snapshot belongs to the transaction it was taken in.
    pub restarts: u32,
    /// `set_config(name, value, is_local)` from SQL: the executor checks the
    /// value and records the change here; the session applies it when the
    /// statement succeeds.
    pub setting_changes: &'a mut Vec<SettingChange>,
    /// Report a wait event for pg_stat_activity while the statement sleeps
    /// outside the lock table, e.g. `(ctx.wait_event)(Some(("Timeout",
    /// "PgSleep")))` around pg_sleep, and `None` after it.
    pub wait_event: &'a (dyn Fn(Option<(&'static str, &'static str)>) + Sync),
    /// Checks of DEFERRABLE constraints waiting for the commit (the
    /// session runs them, `nestor_exec::check_deferred`).
    pub deferred: &'a mut Vec<crate::DeferredCheck>,
    /// SET CONSTRAINTS in this transaction (nothing set: each constraint's
    /// own INITIALLY).
    pub constraints_deferred: crate::ConstraintModes,
    /// NOTIFY / pg_notify() sent in this transaction, delivered at its
    /// commit (crate::notify).
    pub notifies: &'a mut Vec<crate::PendingNotify>,
    /// The role the statement runs as (current_user; see the privilege module).
    pub role: RoleCtx,
    /// Trigger functions running, nested (pg_trigger_depth()).
    pub trigger_depth: u32,
    /// The session's cursors, for PL/pgSQL's OPEN, FETCH, MOVE and CLOSE.
    pub cursors: &'a mut dyn Cursors,
    /// The transition tables of the trigger function running (empty
    /// outside one), by the slot `Plan::EphemeralScan` names; set and
    /// restored around each trigger call (by the PL/pgSQL trigger entry).
    pub transition: Vec<TransitionRows>,
}

/// A transition table's rows (a table's live columns).
pub type TransitionRows = Arc<Vec<Vec<Value>>>;

/// A trigger call's transition tables (REFERENCING OLD/NEW TABLE AS
/// name): the name and the statement's rows of each.
#[derive(Clone, Default)]
pub(crate) struct Transition {
    pub old: Option<(String, TransitionRows)>,
    pub new: Option<(String, TransitionRows)>,
}

/// How FETCH and MOVE move a cursor (a count of i64::MAX is ALL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchDirection {
    Forward(i64),
    Backward(i64),
    Absolute(i64),
    Relative(i64),
}

/// A cursor PL/pgSQL opened: its query's rows, computed at OPEN.
pub struct OpenedCursor {
    pub columns: Vec<ColumnDesc>,
    pub rows: Vec<Vec<Value>>,
    /// Backward moves allowed.
    pub scrollable: bool,
    /// The query's text (pg_cursors.statement).
    pub statement: Arc<str>,
}

/// The session's cursors as server-side code reaches them: the same
/// table SQL's DECLARE, FETCH, MOVE and CLOSE work on, so a cursor a
/// function opens and returns (a refcursor) is fetched from in SQL, and
/// the other way round. The session implements it; a context without a
/// session has [`NoCursors`].
pub trait Cursors {
    /// Whether a cursor of this name is open in this transaction.
    fn is_open(&mut self, name: &str) -> bool;
    /// Open a cursor of this name (the caller checked it is free).
    fn open(&mut self, name: &str, cursor: OpenedCursor) -> Result<(), DbError>;
    /// A new name for a cursor opened without one (`<unnamed portal N>`).
    fn unnamed(&mut self) -> String;
    /// FETCH / MOVE: the rows passed over, and the cursor's columns;
    /// 34000 for a cursor that is not open.
    #[allow(clippy::type_complexity)]
    fn fetch(
        &mut self,
        name: &str,
        dir: FetchDirection,
        moving: bool,
    ) -> Result<(Vec<ColumnDesc>, Vec<Vec<Value>>), DbError>;
    /// CLOSE; 34000 for a cursor that is not open.
    fn close(&mut self, name: &str) -> Result<(), DbError>;
}

/// No cursors (a statement run without a session).
pub struct NoCursors;

fn no_cursor(name: &str) -> DbError {
    DbError::new(
        nestor_common::SqlState::InvalidCursorName,
        format!("cursor \"{name}\" does not exist"),
    )
}

impl Cursors for NoCursors {
    fn is_open(&mut self, _: &str) -> bool {
        false
    }

    fn open(&mut self, _: &str, _: OpenedCursor) -> Result<(), DbError> {
        Err(DbError::unsupported("cursors outside a session"))
    }

    fn unnamed(&mut self) -> String {
        "<unnamed portal 1>".into()
    }

    fn fetch(
        &mut self,
        name: &str,
        _: FetchDirection,
        _: bool,
    ) -> Result<(Vec<ColumnDesc>, Vec<Vec<Value>>), DbError> {
        Err(no_cursor(name))
    }

    fn close(&mut self, name: &str) -> Result<(), DbError> {
        Err(no_cursor(name))
    }
}

/// What a call of a user-defined function produced.
pub(crate) enum Outcome {
    /// RETURN x (or the OUT arguments' values).
    Value(Value),
    /// A set-returning function's rows (RETURN NEXT / RETURN QUERY), or a
    /// row-returning function's row.
    Rows(Vec<Vec<Value>>),
}

/// One firing of a trigger: the event and the row (the table's live
/// columns, in order).
pub(crate) struct TriggerCall<'a> {
    pub name: &'a str,
    /// "BEFORE" / "AFTER" / "INSTEAD OF".
    pub when: &'static str,
    /// "ROW" / "STATEMENT".
    pub level: &'static str,
    /// "INSERT" / "UPDATE" / "DELETE" / "TRUNCATE".
    pub op: &'static str,
    /// The table or view fired on.
    pub rel_oid: nestor_common::RelId,
    pub rel_name: &'a str,
    pub schema: &'static str,
    pub args: &'a [String],
    pub cols: Arc<Vec<(String, nestor_types::datatype::DataType)>>,
    pub new: Option<Vec<Value>>,
    pub old: Option<Vec<Value>>,
    /// Its transition tables (None: it has none).
    pub transition: Option<Transition>,
}

/// Run a trigger function; the row it returned (None: NULL).
pub(crate) type TriggerFn = fn(
    &Arc<nestor_catalog::FunctionDef>,
    TriggerCall<'_>,
    &mut StatementCtx<'_>,
) -> Result<Option<Vec<Value>>, DbError>;

/// Call a user-defined function with its input arguments.
pub(crate) type CallFn = fn(
    &Arc<nestor_catalog::FunctionDef>,
    Vec<Value>,
    &mut StatementCtx<'_>,
) -> Result<Outcome, DbError>;

/// The engine's entry points into server-side code (PL/pgSQL and SQL
/// functions, DO). Server-side code runs statements, and statements
/// call functions: the executor and the statement dispatcher reach it
/// through this table (`crate::ROUTINES`, filled in at the crate root)
/// rather than by name, so the modules stay layered (plpgsql above
/// statement and executor).
pub(crate) struct Routines {
    pub call: CallFn,
    pub trigger: TriggerFn,
    pub create_function: fn(
        &mut StatementCtx<'_>,
        &str,
        &nestor_parser::pb::CreateFunctionStmt,
    ) -> Result<CommandTag, DbError>,
    pub run_do:
        fn(&mut StatementCtx<'_>, &str, &nestor_parser::pb::DoStmt) -> Result<CommandTag, DbError>,
    /// Run one internal SQL statement (a foreign key's action) with typed
    /// parameters (their type OIDs), discarding rows.
    pub run_sql: RunSqlFn,
    /// The output columns a query (a parse tree of `text`) would have,
    /// planned in the statement's catalog (CREATE VIEW, CREATE TABLE AS).
    pub describe: DescribeFn,
    /// [`Routines::describe`] with the privileges the query needs, which
    /// list the columns of each relation it reads (what a view records it
    /// depends on).
    pub describe_needs: DescribeNeedsFn,
    /// Plan and run one statement given as a parse tree of `text`,
    /// discarding rows; its command tag.
    pub run_raw: RunRawFn,
    /// Plan and run one query given as SQL text, collecting its rows
    /// (REFRESH MATERIALIZED VIEW).
    pub query_rows: QueryRowsFn,
}

/// `Routines::query_rows`.
pub(crate) type QueryRowsFn = fn(&mut StatementCtx<'_>, &str) -> Result<Vec<Vec<Value>>, DbError>;

/// `Routines::describe_needs`.
pub(crate) type DescribeNeedsFn =
    fn(
        &StatementCtx<'_>,
        &str,
        &nestor_parser::pb::RawStmt,
    ) -> Result<(Vec<ColumnDesc>, std::sync::Arc<[nestor_plan::perm::Perm]>), DbError>;

/// `Routines::describe`.
pub(crate) type DescribeFn =
    fn(&StatementCtx<'_>, &str, &nestor_parser::pb::RawStmt) -> Result<Vec<ColumnDesc>, DbError>;

/// `Routines::run_raw`.
pub(crate) type RunRawFn =
    fn(&mut StatementCtx<'_>, &str, &nestor_parser::pb::RawStmt) -> Result<CommandTag, DbError>;

/// `Routines::run_sql`: statement context, SQL text, parameters and their
/// type OIDs.
pub(crate) type RunSqlFn = fn(&mut StatementCtx<'_>, &str, &[Value], &[u32]) -> Result<(), DbError>;

/// One output column as the planner describes it to the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDesc {
    pub name: String,
    pub type_oid: u32,
    pub type_size: i16,
    pub type_modifier: i32,
    pub table_oid: u32,
    pub column_id: i16,
}

/// Receives result rows as they are produced.
pub trait RowSink {
    fn row(&mut self, row: Vec<Value>) -> Result<(), DbError>;

    /// The statement was planned again before it produced any row (a
    /// concurrent schema change committed or rolled back while it waited
    /// for its locks) and now returns `columns`. A sink that has already
    /// told the client the old columns refuses, as PostgreSQL refuses to
    /// run a prepared statement whose result changed.
    fn columns_changed(&mut self, columns: &[ColumnDesc]) -> Result<(), DbError> {
        let _ = columns;
        Err(DbError::new(
            nestor_common::SqlState::FeatureNotSupported,
            "cached plan must not change result type",
        ))
    }
}

impl RowSink for Vec<Vec<Value>> {
    fn row(&mut self, row: Vec<Value>) -> Result<(), DbError> {
        self.push(row);
        Ok(())
    }
}

/// The state one execution of a statement evaluates in.
pub struct Ev<'c, 'a> {
    pub ctx: &'c mut StatementCtx<'a>,
    pub params: &'c [Value],
    /// Rows of enclosing queries, indexed by query level.
    pub outer: Vec<Vec<Value>>,
    /// Results of uncorrelated subqueries and CTEs, by id.
    pub cache: HashMap<usize, Arc<Vec<Vec<Value>>>>,
    /// What the statement's sorts, hash tables and materialised results
    /// hold (`nestor.query_memory_max`).
    pub mem: QueryMemory,
    /// What the statement's temporary files hold (temp_file_limit).
    pub temp: Arc<crate::spill::TempSpace>,
    /// Rows read so far (cancel and statement_timeout are checked every
    /// so many: executor::poll).
    pub ticks: std::cell::Cell<u32>,
}

impl<'c, 'a> Ev<'c, 'a> {
    pub fn new(ctx: &'c mut StatementCtx<'a>, params: &'c [Value]) -> Ev<'c, 'a> {
        let max = crate::workmem::limit_bytes(ctx.settings.query_memory_max_bytes);
        let temp = crate::spill::TempSpace::new(ctx.settings.temp_file_limit_bytes);
        Ev {
            ctx,
            params,
            outer: Vec::new(),
            cache: HashMap::new(),
            mem: QueryMemory::new(max),
            temp,
            ticks: std::cell::Cell::new(0),
        }
    }
}

/// The role a statement runs as (current_user), resolved by the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoleCtx {
    pub oid: nestor_common::RelId,
    pub superuser: bool,
}

impl RoleCtx {
    /// The bootstrap superuser (internal statements, tests).
    pub const BOOTSTRAP: RoleCtx = RoleCtx {
        oid: nestor_common::RelId(nestor_catalog::BOOTSTRAP_SUPERUSER_OID),
        superuser: true,
    };

    pub fn of(r: &nestor_catalog::RoleDef) -> RoleCtx {
        RoleCtx {
            oid: r.oid,
            superuser: r.superuser,
        }
    }
}
