//! The transaction-block state machine of one session (PostgreSQL's
//! `TBLOCK_*` states, reduced to what a client can observe).
//!
//! ```text
//!             any statement               BEGIN
//!   Idle ─────────────────────▶ Implicit ───────▶ InBlock ◀──────────┐
//!    ▲   (autocommit: one per      │ end of query     │ error          │ ROLLBACK TO
//!    │    statement, or per         │ string / Sync:   ▼                │ (savepoint
//!    │    multi-statement string    │ commit, or   Failed ─────────────┘  stays)
//!    │    / extended batch)         │ rollback        │ COMMIT → rollback, tag ROLLBACK
//!    └──────────────────────────────┴─────────────────┘ ROLLBACK
//! ```
//!
//! The [`Transaction`] itself (undo log, savepoint marks, locks) is the txn
//! crate's; this module decides when to begin, commit and roll it back and
//! which errors and warnings a client sees for each transaction-control
//! statement, worded as PostgreSQL words them. On an error inside a block
//! the failed level is undone at once (`undo_failed_level`), so its row
//! locks are released immediately as PostgreSQL's abort of the current
//! (sub)transaction releases them, while the block waits in `Failed` for
//! ROLLBACK or ROLLBACK TO.
//!
//! Settings follow the same events: [`SessionSettings`] gets begin, commit,
//! rollback and savepoint notifications so SET reverts with the work.

use std::sync::Arc;

use nestor_common::{DbError, SessionId, SqlState};
use nestor_txn::{DataStore, Isolation, SnapshotSlot, Transaction};

use nestor_durable::Engine;
use nestor_settings::SessionSettings;

/// Observable state of the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BlockState {
    /// No transaction.
    Idle,
    /// An implicit transaction (autocommit statement, multi-statement query
    /// string, or extended-protocol batch up to Sync).
    Implicit,
    /// BEGIN ... (ReadyForQuery 'T').
    InBlock,
    /// An error happened in the block (ReadyForQuery 'E').
    Failed,
}

/// Isolation requested by BEGIN / SET TRANSACTION.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TxnOptions {
    pub isolation: Option<Isolation>,
    pub read_only: Option<bool>,
}

/// The transaction block of one session.
pub(crate) struct TxnBlock {
    state: BlockState,
    txn: Option<Transaction>,
    read_only: bool,
    /// A multi-statement simple query is running (PostgreSQL's implicit
    /// transaction *block*: SET LOCAL does not warn inside it).
    pub multi_statement: bool,
    /// Microseconds since 2000-01-01 of transaction start (now()).
    pub start_us: i64,
    slot: Arc<SnapshotSlot>,
    session: SessionId,
}

/// SQL spelling of an isolation level (SHOW transaction_isolation).
pub(crate) fn isolation_name(i: Isolation) -> &'static str {
    match i {
        Isolation::ReadCommitted => "read committed",
        Isolation::RepeatableRead => "repeatable read",
    }
}

/// Parse an isolation level name; SERIALIZABLE is refused with 0A000.
pub(crate) fn parse_isolation(name: &str) -> Result<Isolation, DbError> {
    match name.trim().to_ascii_lowercase().as_str() {
        "read committed" | "read uncommitted" => Ok(Isolation::ReadCommitted),
        "repeatable read" => Ok(Isolation::RepeatableRead),
        "serializable" => Err(DbError::new(
            SqlState::FeatureNotSupported,
            "SERIALIZABLE isolation is not supported yet; use REPEATABLE READ",
        )),
        other => Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for parameter \"transaction_isolation\": \"{other}\""),
        )),
    }
}

fn not_in_block(what: &str) -> DbError {
    DbError::new(
        SqlState::NoActiveSqlTransaction,
        format!("{what} can only be used in transaction blocks"),
    )
}

fn warning(code: SqlState, msg: &str) -> DbError {
    DbError::new(code, msg).with_severity(nestor_common::error::Severity::Warning)
}

/// 25P02.
pub(crate) fn aborted_error() -> DbError {
    DbError::new(
        SqlState::InFailedSqlTransaction,
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

impl TxnBlock {
    pub fn new(slot: Arc<SnapshotSlot>, session: SessionId) -> TxnBlock {
        TxnBlock {
            state: BlockState::Idle,
            txn: None,
            read_only: false,
            multi_statement: false,
            start_us: 0,
            slot,
            session,
        }
    }

    pub fn state(&self) -> BlockState {
        self.check();
        self.state
    }

    /// The block's invariant: a transaction is open exactly when the block
    /// is not Idle.
    fn check(&self) {
        assert_eq!(
            self.txn.is_some(),
            self.state != BlockState::Idle,
            "transaction block {:?} with{} a transaction",
            self.state,
            if self.txn.is_some() { "" } else { "out" }
        );
    }

    pub(crate) fn is_failed(&self) -> bool {
        self.state == BlockState::Failed
    }

    /// Inside BEGIN ... (or a failed block).
    pub(crate) fn in_explicit_block(&self) -> bool {
        matches!(self.state, BlockState::InBlock | BlockState::Failed)
    }

    pub fn read_only(&self) -> bool {
        self.read_only
    }

    pub fn txn(&self) -> Option<&Transaction> {
        self.txn.as_ref()
    }

    pub(crate) fn txn_mut(&mut self) -> Option<&mut Transaction> {
        self.txn.as_mut()
    }

    /// Make sure a transaction is open (an implicit one if none), and
    /// return it.
    pub(crate) fn ensure(
        &mut self,
        engine: &Engine,
        settings: &mut SessionSettings,
        now_us: i64,
    ) -> Result<&mut Transaction, DbError> {
        if self.txn.is_none() {
            let iso = parse_isolation(
                settings
                    .view()
                    .get("default_transaction_isolation")
                    .unwrap_or("read committed"),
            )?;
            let store: Arc<dyn DataStore> = engine.store.clone();
            self.txn = Some(Transaction::begin(
                engine.txn.clone(),
                store,
                self.slot.clone(),
                self.session,
                iso,
            ));
            self.read_only = settings.view().default_transaction_read_only;
            self.start_us = now_us;
            self.state = BlockState::Implicit;
            settings.begin_txn();
            self.mirror(settings);
        }
        Ok(self.txn.as_mut().expect("just opened"))
    }

    /// Copy transaction_isolation / transaction_read_only into the view.
    pub(crate) fn mirror(&self, settings: &mut SessionSettings) {
        let iso = match &self.txn {
            Some(t) => isolation_name(t.isolation()).to_string(),
            None => settings
                .view()
                .get("default_transaction_isolation")
                .unwrap_or("read committed")
                .replace("read uncommitted", "read committed"),
        };
        settings.set_virtual("transaction_isolation", &iso);
        let ro = match &self.txn {
            Some(_) => self.read_only,
            None => settings.view().default_transaction_read_only,
        };
        settings.set_virtual("transaction_read_only", if ro { "on" } else { "off" });
    }

    /// BEGIN / START TRANSACTION. Returns a warning when already in a block.
    pub fn begin(
        &mut self,
        engine: &Engine,
        settings: &mut SessionSettings,
        opts: TxnOptions,
        now_us: i64,
    ) -> Result<Option<DbError>, DbError> {
        if self.state == BlockState::InBlock {
            return Ok(Some(warning(
                SqlState::ActiveSqlTransaction,
                "there is already a transaction in progress",
            )));
        }
        self.ensure(engine, settings, now_us)?;
        self.state = BlockState::InBlock;
        self.set_options(settings, opts)?;
        Ok(None)
    }

    /// SET TRANSACTION / BEGIN options on the open transaction.
    pub(crate) fn set_options(
        &mut self,
        settings: &mut SessionSettings,
        opts: TxnOptions,
    ) -> Result<(), DbError> {
        let Some(txn) = self.txn.as_mut() else {
            return Ok(());
        };
        if let Some(iso) = opts.isolation {
            if txn.has_snapshot() && iso != txn.isolation() {
                return Err(DbError::new(
                    SqlState::ActiveSqlTransaction,
                    "SET TRANSACTION ISOLATION LEVEL must be called before any query",
                ));
            }
            txn.set_isolation(iso);
        }
        if let Some(ro) = opts.read_only {
            if !ro && self.read_only && txn.has_snapshot() {
                return Err(DbError::new(
                    SqlState::ActiveSqlTransaction,
                    "transaction read-write mode must be set before any query",
                ));
            }
            self.read_only = ro;
        }
        self.mirror(settings);
        Ok(())
    }

    /// COMMIT / END. Returns (tag, warning).
    pub fn commit(&mut self, settings: &mut SessionSettings) -> (&'static str, Option<DbError>) {
        match self.state {
            BlockState::Failed => {
                self.finish(false, settings);
                ("ROLLBACK", None)
            }
            BlockState::InBlock => {
                self.finish(true, settings);
                ("COMMIT", None)
            }
            BlockState::Idle | BlockState::Implicit => {
                self.finish(true, settings);
                ("COMMIT", Some(no_txn_warning()))
            }
        }
    }

    /// ROLLBACK / ABORT. Returns the warning outside a block.
    pub fn rollback(&mut self, settings: &mut SessionSettings) -> Option<DbError> {
        let warn = !self.in_explicit_block();
        self.finish(false, settings);
        warn.then(no_txn_warning)
    }

    /// SAVEPOINT name.
    pub fn savepoint(&mut self, settings: &mut SessionSettings, name: &str) -> Result<(), DbError> {
        let txn = self.explicit_txn("SAVEPOINT")?;
        txn.savepoint(name)?;
        settings.savepoint();
        Ok(())
    }

    /// ROLLBACK TO [SAVEPOINT] name: also recovers a failed block.
    pub fn rollback_to(
        &mut self,
        settings: &mut SessionSettings,
        name: &str,
    ) -> Result<(), DbError> {
        let txn = self.explicit_txn("ROLLBACK TO SAVEPOINT")?;
        txn.rollback_to(name)?;
        let level = txn.level().0 as usize;
        settings.rollback_to(level);
        self.state = BlockState::InBlock;
        Ok(())
    }

    /// RELEASE [SAVEPOINT] name.
    pub fn release(&mut self, settings: &mut SessionSettings, name: &str) -> Result<(), DbError> {
        let txn = self.explicit_txn("RELEASE SAVEPOINT")?;
        txn.release(name)?;
        let level = txn.level().0 as usize;
        settings.release(level + 1);
        Ok(())
    }

    fn explicit_txn(&mut self, what: &str) -> Result<&mut Transaction, DbError> {
        if !self.in_explicit_block() {
            return Err(not_in_block(what));
        }
        Ok(self.txn.as_mut().expect("a block has a transaction"))
    }

    /// A statement failed. Inside a block: undo the failed level now and
    /// enter Failed. Otherwise: roll the implicit transaction back.
    pub fn fail(&mut self, settings: &mut SessionSettings) {
        match self.state {
            BlockState::InBlock | BlockState::Failed => {
                if let Some(t) = self.txn.as_mut() {
                    t.undo_failed_level();
                }
                self.state = BlockState::Failed;
            }
            BlockState::Implicit | BlockState::Idle => self.finish(false, settings),
        }
    }

    /// End of a query string or Sync: commit an implicit transaction.
    pub(crate) fn end_implicit(&mut self, settings: &mut SessionSettings) {
        self.multi_statement = false;
        if self.state == BlockState::Implicit {
            self.finish(true, settings);
        }
    }

    /// Commit (`true`) or roll back whatever is open and go Idle.
    pub fn finish(&mut self, commit: bool, settings: &mut SessionSettings) {
        if let Some(mut t) = self.txn.take() {
            if commit {
                // synchronous_commit = off acknowledges before the WAL flush
                // (on, local, remote_*: wait for the local flush).
                t.set_synchronous_commit(settings.view().synchronous_commit);
                t.commit();
                settings.commit_txn();
            } else {
                t.rollback();
                settings.rollback_txn();
            }
        }
        self.state = BlockState::Idle;
        self.read_only = false;
        self.mirror(settings);
        self.check();
    }
}

fn no_txn_warning() -> DbError {
    warning(
        SqlState::NoActiveSqlTransaction,
        "there is no transaction in progress",
    )
}
