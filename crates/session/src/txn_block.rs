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
//!
//! A transaction's characteristics (isolation level, read-only,
//! deferrable) behave like PostgreSQL's transaction-scoped parameters: BEGIN
//! or SET TRANSACTION changes them; ROLLBACK TO a savepoint (or an error in
//! it) reverts what was set inside it; an error at the top level reverts them
//! to the transaction's start; COMMIT/ROLLBACK AND CHAIN start the next block
//! with what is left (PostgreSQL's Save/RestoreTransactionCharacteristics,
//! as its transactions regression test shows).
//!
//! ```text
//!   BEGIN ISOLATION LEVEL REPEATABLE READ   chars RR    start RC (default)
//!   SELECT 1/0                              chars RC    (top-level error)
//!   COMMIT AND CHAIN                        -> ROLLBACK, new block: RC
//!   SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; COMMIT AND CHAIN
//!                                           -> new block: RR, and its start
//!                                              is RR too (an error keeps RR)
//! ```

use std::sync::Arc;

use nestor_common::{DbError, SessionId, SqlState};
use nestor_txn::{DataStore, Isolation, SnapshotSlot, Transaction};

use nestor_catalog::Catalog;
use nestor_durable::Engine;
use nestor_exec::registry::CancelToken;
use nestor_exec::replication::Replication;
use nestor_exec::stats::XactEnd;
use nestor_settings::SessionSettings;
use nestor_storage::Store;

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

/// An isolation level as requested and shown. READ UNCOMMITTED runs as
/// READ COMMITTED (as in PostgreSQL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IsoLevel {
    ReadUncommitted,
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl IsoLevel {
    pub(crate) fn name(self) -> &'static str {
        match self {
            IsoLevel::ReadUncommitted => "read uncommitted",
            IsoLevel::ReadCommitted => "read committed",
            IsoLevel::RepeatableRead => "repeatable read",
            IsoLevel::Serializable => "serializable",
        }
    }

    /// The isolation the transaction runs with.
    fn runs_as(self) -> Isolation {
        match self {
            IsoLevel::ReadUncommitted | IsoLevel::ReadCommitted => Isolation::ReadCommitted,
            IsoLevel::RepeatableRead => Isolation::RepeatableRead,
            IsoLevel::Serializable => Isolation::Serializable,
        }
    }
}

/// Characteristics requested by BEGIN / SET TRANSACTION (None: unchanged).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct TxnOptions {
    pub isolation: Option<IsoLevel>,
    pub read_only: Option<bool>,
    pub deferrable: Option<bool>,
}

/// A transaction's characteristics (PostgreSQL's
/// SavedTransactionCharacteristics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Characteristics {
    isolation: IsoLevel,
    read_only: bool,
    deferrable: bool,
}

impl Characteristics {
    /// A new transaction's, from the session's defaults.
    fn defaults(settings: &SessionSettings) -> Result<Characteristics, DbError> {
        let v = settings.view();
        Ok(Characteristics {
            isolation: parse_isolation(v.default_transaction_isolation)?,
            read_only: v.default_transaction_read_only,
            deferrable: v.default_transaction_deferrable,
        })
    }
}

/// Placeholder characteristics while no transaction is open.
const IDLE_CHARS: Characteristics = Characteristics {
    isolation: IsoLevel::ReadCommitted,
    read_only: false,
    deferrable: false,
};

/// The transaction block of one session.
pub(crate) struct TxnBlock {
    state: BlockState,
    txn: Option<Transaction>,
    /// The open transaction's characteristics (meaningless when Idle).
    chars: Characteristics,
    /// ... at its start, what a top-level error reverts them to.
    start_chars: Characteristics,
    /// ... when each open savepoint was defined (innermost last), what
    /// ROLLBACK TO or an error inside it reverts them to.
    mark_chars: Vec<Characteristics>,
    /// A multi-statement simple query is running (PostgreSQL's implicit
    /// transaction *block*: SET LOCAL does not warn inside it).
    pub multi_statement: bool,
    /// Microseconds since 2000-01-01 of transaction start (now()).
    pub start_us: i64,
    slot: Arc<SnapshotSlot>,
    session: SessionId,
    /// For the TEMP tables' ON COMMIT actions after each commit.
    catalog: Catalog,
    store: Arc<Store>,
    /// A replica's transactions are all READ ONLY (PostgreSQL's hot
    /// standby) until it is promoted; on a primary, commits may wait for
    /// synchronous replicas.
    replication: Arc<Replication>,
    log: Arc<nestor_wal::SwitchLog>,
    cancel: CancelToken,
    /// Warnings of the last commit (a wait for synchronous replicas cut
    /// short), for the session to send.
    pub(crate) warnings: Vec<DbError>,
    /// Checks of DEFERRABLE constraints the transaction's statements left
    /// for its commit.
    pub(crate) deferred: Vec<nestor_exec::DeferredCheck>,
    /// SET CONSTRAINTS { ALL | name, ... } { DEFERRED | IMMEDIATE } in
    /// this transaction.
    pub(crate) constraints_deferred: nestor_exec::ConstraintModes,
    /// NOTIFYs and LISTEN/UNLISTENs waiting for the commit, each at the
    /// savepoint level it was made at (nestor_exec::notify).
    pub(crate) notifies: Vec<nestor_exec::PendingNotify>,
    pub(crate) listens: Vec<(u32, nestor_exec::ListenOp)>,
    /// Where a commit delivers them.
    db: Arc<nestor_exec::Database>,
    /// What [`TxnBlock::mirror`] last wrote and the settings' generation
    /// right after: while neither moved, there is nothing to write (every
    /// statement mirrors twice, the values rarely change).
    mirrored: std::cell::Cell<Option<(Characteristics, u64)>>,
}

/// PostgreSQL's answer to SERIALIZABLE on a hot standby (check_XactIsoLevel).
fn serializable_in_recovery() -> DbError {
    DbError::new(
        SqlState::FeatureNotSupported,
        "cannot use serializable mode in a hot standby",
    )
    .with_hint("You can use REPEATABLE READ instead.")
}

/// Parse an isolation level name.
pub(crate) fn parse_isolation(name: &str) -> Result<IsoLevel, DbError> {
    let name = name.trim();
    const LEVELS: [(&str, IsoLevel); 4] = [
        ("read committed", IsoLevel::ReadCommitted),
        ("read uncommitted", IsoLevel::ReadUncommitted),
        ("repeatable read", IsoLevel::RepeatableRead),
        ("serializable", IsoLevel::Serializable),
    ];
    // Canonical (lower-case) names, as settings hold them, match first.
    let found = LEVELS.iter().find(|(n, _)| name == *n);
    match found.or_else(|| LEVELS.iter().find(|(n, _)| name.eq_ignore_ascii_case(n))) {
        Some((_, level)) => Ok(*level),
        None => Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!(
                "invalid value for parameter \"transaction_isolation\": \"{}\"",
                name.to_ascii_lowercase()
            ),
        )),
    }
}

fn not_in_block(what: &str) -> DbError {
    DbError::new(
        SqlState::NoActiveSqlTransaction,
        format!("{what} can only be used in transaction blocks"),
    )
}

fn active_txn(msg: &str) -> DbError {
    DbError::new(SqlState::ActiveSqlTransaction, msg)
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
    pub fn new(
        slot: Arc<SnapshotSlot>,
        session: SessionId,
        catalog: Catalog,
        cancel: CancelToken,
        db: Arc<nestor_exec::Database>,
    ) -> TxnBlock {
        TxnBlock {
            state: BlockState::Idle,
            txn: None,
            chars: IDLE_CHARS,
            start_chars: IDLE_CHARS,
            mark_chars: Vec::new(),
            multi_statement: false,
            start_us: 0,
            slot,
            session,
            catalog,
            store: db.store.clone(),
            replication: db.replication.clone(),
            log: db.log.clone(),
            cancel,
            warnings: Vec::new(),
            deferred: Vec::new(),
            constraints_deferred: Default::default(),
            notifies: Vec::new(),
            listens: Vec::new(),
            mirrored: std::cell::Cell::new(None),
            db,
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

    /// The next statement takes the first snapshot of a SERIALIZABLE READ
    /// ONLY DEFERRABLE transaction, which may wait for a safe one.
    pub(crate) fn waits_for_safe_snapshot(&self) -> bool {
        self.txn.as_ref().is_some_and(|t| {
            !t.has_snapshot()
                && t.isolation() == Isolation::Serializable
                && self.chars.read_only
                && self.chars.deferrable
        })
    }

    pub fn read_only(&self) -> bool {
        self.txn.is_some() && self.chars.read_only
    }

    pub fn txn(&self) -> Option<&Transaction> {
        self.txn.as_ref()
    }

    /// The open transaction with the deferred checks it has collected
    /// (what a statement borrows together).
    pub(crate) fn txn_and_deferred(
        &mut self,
    ) -> (
        Option<&mut Transaction>,
        &mut Vec<nestor_exec::DeferredCheck>,
        nestor_exec::ConstraintModes,
        &mut Vec<nestor_exec::PendingNotify>,
    ) {
        (
            self.txn.as_mut(),
            &mut self.deferred,
            self.constraints_deferred.clone(),
            &mut self.notifies,
        )
    }

    /// The savepoint level statements run at now (0 outside savepoints).
    pub(crate) fn level(&self) -> u32 {
        self.txn.as_ref().map_or(0, |t| t.level().0)
    }

    /// Forget the NOTIFYs and LISTENs made at `level` or deeper (ROLLBACK
    /// TO undid them).
    fn drop_notify_from(&mut self, level: u32) {
        self.notifies.retain(|n| n.level < level);
        self.listens.retain(|(l, _)| *l < level);
    }

    /// RELEASE: what was made inside the released savepoints now belongs
    /// to `level`.
    fn merge_notify_into(&mut self, level: u32) {
        for n in &mut self.notifies {
            n.level = n.level.min(level);
        }
        for (l, _) in &mut self.listens {
            *l = (*l).min(level);
        }
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
            let mut chars = Characteristics::defaults(settings)?;
            if self.replication.in_recovery() {
                chars.read_only = true;
                if chars.isolation == IsoLevel::Serializable {
                    return Err(serializable_in_recovery());
                }
            }
            self.open(engine, settings, chars, now_us);
            self.state = BlockState::Implicit;
        }
        Ok(self.txn.as_mut().expect("just opened"))
    }

    /// Start a transaction with these characteristics (state left to the
    /// caller).
    fn open(
        &mut self,
        engine: &Engine,
        settings: &mut SessionSettings,
        chars: Characteristics,
        now_us: i64,
    ) {
        let store: Arc<dyn DataStore> = engine.store.clone();
        self.txn = Some(Transaction::begin(
            engine.txn.clone(),
            store,
            self.slot.clone(),
            self.session,
            chars.isolation.runs_as(),
        ));
        if let Some(t) = self.txn.as_mut() {
            t.set_access(chars.read_only, chars.deferrable);
        }
        self.chars = chars;
        self.start_chars = chars;
        self.mark_chars.clear();
        self.start_us = now_us;
        settings.begin_txn();
        self.mirror(settings);
    }

    /// Copy transaction_isolation / _read_only / _deferrable into the view.
    pub(crate) fn mirror(&self, settings: &mut SessionSettings) {
        let chars = match &self.txn {
            Some(_) => Ok(self.chars),
            None => Characteristics::defaults(settings),
        };
        // Defaults were checked when they were set.
        let mut chars = chars.unwrap_or(IDLE_CHARS);
        chars.read_only |= self.replication.in_recovery();
        if self.mirrored.get() == Some((chars, settings.generation())) {
            return;
        }
        let on_off = |b: bool| if b { "on" } else { "off" };
        settings.set_virtual("transaction_isolation", chars.isolation.name());
        settings.set_virtual("transaction_read_only", on_off(chars.read_only));
        settings.set_virtual("transaction_deferrable", on_off(chars.deferrable));
        self.mirrored.set(Some((chars, settings.generation())));
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

    /// SET TRANSACTION / BEGIN options on the open transaction, checked
    /// as PostgreSQL's check hooks do (variable.c): nothing changes unless
    /// every option is allowed.
    pub(crate) fn set_options(
        &mut self,
        settings: &mut SessionSettings,
        opts: TxnOptions,
    ) -> Result<(), DbError> {
        let Some(txn) = self.txn.as_mut() else {
            return Ok(());
        };
        let (started, in_savepoint) = (txn.has_snapshot(), txn.level().0 > 0);
        if self.replication.in_recovery() {
            if opts.read_only == Some(false) {
                return Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    "cannot set transaction read-write mode during recovery",
                ));
            }
            if opts.isolation == Some(IsoLevel::Serializable) {
                return Err(serializable_in_recovery());
            }
        }
        if let Some(iso) = opts.isolation {
            if iso != self.chars.isolation {
                if started {
                    return Err(active_txn(
                        "SET TRANSACTION ISOLATION LEVEL must be called before any query",
                    ));
                }
                if in_savepoint {
                    return Err(active_txn(
                        "SET TRANSACTION ISOLATION LEVEL must not be called in a subtransaction",
                    ));
                }
            }
        }
        if opts.read_only == Some(false) && self.chars.read_only {
            if in_savepoint {
                return Err(active_txn(
                    "cannot set transaction read-write mode inside a read-only transaction",
                ));
            }
            if started {
                return Err(active_txn(
                    "transaction read-write mode must be set before any query",
                ));
            }
        }
        if opts.deferrable.is_some() {
            if in_savepoint {
                return Err(active_txn(
                    "SET TRANSACTION [NOT] DEFERRABLE cannot be called within a subtransaction",
                ));
            }
            if started {
                return Err(active_txn(
                    "SET TRANSACTION [NOT] DEFERRABLE must be called before any query",
                ));
            }
        }
        if let Some(iso) = opts.isolation {
            self.chars.isolation = iso;
            txn.set_isolation(iso.runs_as());
        }
        if let Some(ro) = opts.read_only {
            self.chars.read_only = ro;
        }
        if let Some(d) = opts.deferrable {
            self.chars.deferrable = d;
        }
        txn.set_access(self.chars.read_only, self.chars.deferrable);
        self.mirror(settings);
        Ok(())
    }

    /// The characteristics an error or ROLLBACK TO at savepoint level
    /// `level` (0: none open) reverts to.
    ///
    /// Marks above the session's own savepoints are a statement's internal
    /// ones (INSERT ... ON CONFLICT), which no SET TRANSACTION ran under.
    fn chars_before_level(&self, level: usize) -> Characteristics {
        match level.min(self.mark_chars.len()) {
            0 => self.start_chars,
            l => self.mark_chars[l - 1],
        }
    }

    /// COMMIT AND CHAIN / ROLLBACK AND CHAIN: end the block as `commit`
    /// says (a failed block rolls back), then start a new one with the
    /// characteristics left. Outside a block: 25P01, nothing ends.
    pub fn end_and_chain(
        &mut self,
        engine: &Engine,
        settings: &mut SessionSettings,
        commit: bool,
        now_us: i64,
    ) -> Result<&'static str, DbError> {
        if !self.in_explicit_block() {
            let what = if commit {
                "COMMIT AND CHAIN"
            } else {
                "ROLLBACK AND CHAIN"
            };
            return Err(not_in_block(what));
        }
        let chars = self.chars;
        let tag = if commit {
            self.commit(settings)?.0
        } else {
            self.abandon(settings);
            "ROLLBACK"
        };
        self.open(engine, settings, chars, now_us);
        self.state = BlockState::InBlock;
        Ok(tag)
    }

    /// COMMIT / END. Returns (tag, warning), or the error that rolled the
    /// transaction back instead (a SERIALIZABLE one can fail to commit).
    pub fn commit(
        &mut self,
        settings: &mut SessionSettings,
    ) -> Result<(&'static str, Option<DbError>), DbError> {
        Ok(match self.state {
            BlockState::Failed => {
                self.finish(false, settings)?;
                ("ROLLBACK", None)
            }
            BlockState::InBlock => {
                self.finish(true, settings)?;
                ("COMMIT", None)
            }
            BlockState::Idle | BlockState::Implicit => {
                self.finish(true, settings)?;
                ("COMMIT", Some(no_txn_warning()))
            }
        })
    }

    /// ROLLBACK / ABORT. Returns the warning outside a block.
    pub fn rollback(&mut self, settings: &mut SessionSettings) -> Option<DbError> {
        let warn = !self.in_explicit_block();
        self.abandon(settings);
        warn.then(no_txn_warning)
    }

    /// SAVEPOINT name.
    pub fn savepoint(&mut self, settings: &mut SessionSettings, name: &str) -> Result<(), DbError> {
        let txn = self.explicit_txn("SAVEPOINT")?;
        txn.savepoint(name)?;
        self.mark_chars.push(self.chars);
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
        self.drop_notify_from(level as u32);
        settings.rollback_to(level);
        self.chars = self.chars_before_level(level);
        self.mark_chars.truncate(level);
        self.mirror(settings);
        self.state = BlockState::InBlock;
        Ok(())
    }

    /// RELEASE [SAVEPOINT] name.
    pub fn release(&mut self, settings: &mut SessionSettings, name: &str) -> Result<(), DbError> {
        let txn = self.explicit_txn("RELEASE SAVEPOINT")?;
        txn.release(name)?;
        let level = txn.level().0 as usize;
        // READ ONLY set inside the released savepoint ends with it, as a
        // subtransaction's end restores PostgreSQL's XactReadOnly (the
        // other characteristics cannot change inside one).
        if let Some(before) = self.mark_chars.get(level).copied() {
            self.chars.read_only = before.read_only;
            let txn = self.txn.as_mut().expect("a block has a transaction");
            txn.set_access(self.chars.read_only, self.chars.deferrable);
        }
        self.merge_notify_into(level as u32);
        settings.release(level + 1);
        self.mark_chars.truncate(level);
        self.mirror(settings);
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
                    let level = t.level().0 as usize;
                    self.chars = self.chars_before_level(level);
                }
                self.state = BlockState::Failed;
            }
            BlockState::Implicit | BlockState::Idle => self.abandon(settings),
        }
    }

    /// End of a query string or Sync: commit an implicit transaction. An
    /// error means it was rolled back instead.
    pub(crate) fn end_implicit(&mut self, settings: &mut SessionSettings) -> Result<(), DbError> {
        self.multi_statement = false;
        if self.state == BlockState::Implicit {
            self.finish(true, settings)?;
        }
        Ok(())
    }

    /// Roll back whatever is open and go Idle.
    pub fn abandon(&mut self, settings: &mut SessionSettings) {
        self.finish(false, settings)
            .expect("a rollback cannot fail");
    }

    /// synchronous_commit = remote_write / on / remote_apply with
    /// synchronous_standby_names set: the commit (durable and visible
    /// here already) is acknowledged once the synchronous replicas have it
    /// (docs/replication.md). A cancel ends the wait with PostgreSQL's
    /// warning; the commit stands.
    fn wait_for_replicas(&mut self, settings: &SessionSettings) {
        let cancel = self.cancel.clone();
        let view = settings.view();
        if let Some(w) =
            self.replication
                .wait_after_commit(&self.log, view.get("synchronous_commit"), &|| {
                    cancel.is_cancelled()
                })
        {
            self.warnings.push(w);
        }
    }

    /// Commit (`true`) or roll back whatever is open and go Idle. A commit
    /// that fails (SERIALIZABLE, 40001) rolls back and returns the error.
    pub fn finish(&mut self, commit: bool, settings: &mut SessionSettings) -> Result<(), DbError> {
        let mut result = Ok(());
        // Deferred checks ran before a commit got here (Session::
        // check_deferred_for_commit); nothing of them outlives the
        // transaction.
        self.deferred.clear();
        self.constraints_deferred = Default::default();
        let notifies = std::mem::take(&mut self.notifies);
        let listens = std::mem::take(&mut self.listens);
        if let Some(mut t) = self.txn.take() {
            let sp = t.savepoint_stats();
            let end = |committed: bool, commit_micros: Option<u64>| XactEnd {
                committed,
                savepoints: sp.defined,
                savepoint_rollbacks: sp.rollbacks_to,
                commit_micros,
            };
            if commit {
                // synchronous_commit = off acknowledges before the WAL flush
                // (on, local, remote_*: wait for the local flush).
                t.set_synchronous_commit(settings.view().synchronous_commit);
                let notes = nestor_exec::notify::fold(&notifies);
                // A listener too far behind refuses the NOTIFY, as
                // PostgreSQL's full queue does, before anything commits.
                if let Err(e) = self.db.sessions.check_notify_room(&notes) {
                    t.rollback();
                    self.db.stats.count_xact(end(false, None));
                    settings.rollback_txn();
                    result = Err(e);
                } else {
                    let began = std::time::Instant::now();
                    let committed = t.try_commit();
                    let micros = u64::try_from(began.elapsed().as_micros()).ok();
                    match committed {
                        Ok(csn) => {
                            self.db.stats.count_xact(end(true, micros));
                            self.deliver(&listens, &notes);
                            self.catalog.after_commit(&self.store);
                            if csn.is_some() {
                                self.wait_for_replicas(settings);
                            }
                            settings.commit_txn();
                        }
                        Err(e) => {
                            self.db.stats.count_xact(end(false, micros));
                            settings.rollback_txn();
                            result = Err(e.into());
                        }
                    }
                }
            } else {
                t.rollback();
                self.db.stats.count_xact(end(false, None));
                settings.rollback_txn();
            }
        }
        self.state = BlockState::Idle;
        self.chars = IDLE_CHARS;
        self.mark_chars.clear();
        self.mirror(settings);
        self.check();
        result
    }
}

impl TxnBlock {
    /// After a commit: its LISTEN/UNLISTENs take effect, then its
    /// notifications go to the listeners (this session included).
    fn deliver(&self, listens: &[(u32, nestor_exec::ListenOp)], notes: &[(String, String)]) {
        if !listens.is_empty() {
            if let Some(me) = self.db.sessions.get(self.session) {
                let ops: Vec<_> = listens.iter().map(|(_, op)| op.clone()).collect();
                self.db.sessions.apply_listen(&me, &ops);
            }
        }
        self.db.sessions.deliver(self.session, notes);
    }
}

fn no_txn_warning() -> DbError {
    warning(
        SqlState::NoActiveSqlTransaction,
        "there is no transaction in progress",
    )
}
