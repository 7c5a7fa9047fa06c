//! The contract between the session (transaction blocks, protocol, utility
//! statements) and the query engine (catalog, binder, planner, executor).
//!
//! The session parses the statement text (libpg_query), handles utility and
//! transaction-control statements itself, and hands everything else to
//! [`crate::query::prepare`] once (a [`Prepared`] plan, cached for prepared
//! statements) and [`crate::query::execute`] per execution, inside a
//! [`StatementCtx`] that carries the transaction, the statement's snapshot,
//! the session's settings and the wait bounds.

use nestor_common::{DbError, SessionId};
use nestor_txn::{Snapshot, Transaction, WaitCtl};
use nestor_types::Value;

use crate::session::Engine;

/// Session settings the query engine reads (GUCs). The session owns and
/// changes them (SET/RESET/SET LOCAL); the engine only reads.
#[derive(Clone, Debug)]
pub struct Settings {
    /// `name -> value` for every known setting, PostgreSQL spelling.
    pub values: std::collections::BTreeMap<String, String>,
}

impl Settings {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The session's TimeZone.
    pub fn time_zone(&self) -> nestor_types::datetime::TimeZone {
        self.get("timezone")
            .and_then(nestor_types::datetime::TimeZone::parse)
            .unwrap_or(nestor_types::datetime::TimeZone::UTC)
    }
}

/// Everything a statement executes within.
pub struct StatementCtx<'a> {
    pub engine: &'a Engine,
    pub session: SessionId,
    pub txn: &'a mut Transaction,
    /// The statement's snapshot (taken by the session at statement start).
    pub snapshot: Snapshot,
    /// Session state values depend on (TimeZone, transaction timestamp).
    pub eval: nestor_types::EvalCtx,
    pub settings: &'a Settings,
    pub wait: WaitCtl<'a>,
    /// NOTICE/WARNING messages raised by the statement, sent before its result.
    pub notices: &'a mut Vec<DbError>,
    /// Microseconds since 2000-01-01 UTC of transaction start (now()) and
    /// statement start (statement_timestamp()).
    pub txn_start_us: i64,
    pub stmt_start_us: i64,
    /// The transaction is READ ONLY (BEGIN READ ONLY, SET TRANSACTION READ
    /// ONLY, default_transaction_read_only): the query engine rejects writes
    /// and DDL with 25006 `cannot execute <COMMAND> in a read-only
    /// transaction` (session engineer's note to the query engine).
    pub read_only: bool,
    /// Inside an explicit transaction block (BEGIN ... COMMIT): VACUUM and
    /// the like fail with 25001.
    pub in_block: bool,
    /// `set_config(name, value, is_local)` from SQL: the engine checks the
    /// value with [`crate::settings::canonicalize`] (which returns the value
    /// set_config reports) and pushes the change here; the session applies it
    /// when the statement succeeds.
    pub setting_changes: &'a mut Vec<SettingChange>,
    /// Report a wait event for pg_stat_activity while the statement sleeps
    /// outside the lock table, e.g. `(ctx.wait_event)(Some(("Timeout",
    /// "PgSleep")))` around pg_sleep, and `None` after it.
    pub wait_event: &'a (dyn Fn(Option<(&'static str, &'static str)>) + Sync),
}

/// A `set_config()` call made by a statement (see `StatementCtx`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingChange {
    pub name: String,
    /// Canonical value (from `settings::canonicalize`).
    pub value: String,
    pub is_local: bool,
}

/// One output column as the planner describes it.
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
}

impl RowSink for Vec<Vec<Value>> {
    fn row(&mut self, row: Vec<Value>) -> Result<(), DbError> {
        self.push(row);
        Ok(())
    }
}

/// A planned statement, produced once by [`crate::query::prepare`].
pub struct Prepared {
    /// Parameter type OIDs ($1..$n), inferred where the client gave 0.
    pub param_types: Vec<u32>,
    /// Result columns, or None for a statement that returns no rows
    /// (INSERT without RETURNING, DDL).
    pub columns: Option<Vec<ColumnDesc>>,
    /// The engine's plan; opaque to the session.
    pub plan: Box<dyn std::any::Any + Send + Sync>,
}

/// A row of pg_stat_activity, provided by the session registry.
#[derive(Clone, Debug, PartialEq)]
pub struct ActivityRow {
    pub pid: SessionId,
    pub datname: String,
    pub usename: String,
    pub application_name: String,
    pub client_addr: Option<String>,
    /// Microseconds since 2000-01-01 UTC.
    pub backend_start_us: i64,
    pub xact_start_us: Option<i64>,
    pub query_start_us: Option<i64>,
    pub state_change_us: Option<i64>,
    pub wait_event_type: Option<String>,
    pub wait_event: Option<String>,
    /// "active", "idle", "idle in transaction", "idle in transaction (aborted)".
    pub state: String,
    pub backend_xid: Option<u64>,
    pub backend_xmin: Option<u64>,
    pub query: String,
    /// Savepoint view: open depth, defined this transaction, ROLLBACK TOs.
    pub savepoint_depth: u64,
    pub savepoints_defined: u64,
    pub savepoint_rollbacks: u64,
}
