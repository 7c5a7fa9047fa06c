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
    /// `set_config(name, value, is_local)` from SQL: the executor checks the
    /// value and records the change here; the session applies it when the
    /// statement succeeds.
    pub setting_changes: &'a mut Vec<SettingChange>,
    /// Report a wait event for pg_stat_activity while the statement sleeps
    /// outside the lock table, e.g. `(ctx.wait_event)(Some(("Timeout",
    /// "PgSleep")))` around pg_sleep, and `None` after it.
    pub wait_event: &'a (dyn Fn(Option<(&'static str, &'static str)>) + Sync),
}

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
    /// Rows read so far (cancel and statement_timeout are checked every
    /// so many: executor::poll).
    pub ticks: std::cell::Cell<u32>,
}

impl<'c, 'a> Ev<'c, 'a> {
    pub fn new(ctx: &'c mut StatementCtx<'a>, params: &'c [Value]) -> Ev<'c, 'a> {
        let max = crate::workmem::limit_bytes(ctx.settings.query_memory_max_bytes);
        Ev {
            ctx,
            params,
            outer: Vec::new(),
            cache: HashMap::new(),
            mem: QueryMemory::new(max),
            ticks: std::cell::Cell::new(0),
        }
    }
}
