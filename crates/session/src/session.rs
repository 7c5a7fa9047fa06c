//! Session: one client connection's state, driven one protocol message at a
//! time by the wire layer through [`Session::handle`].
//!
//! What lives here: the transaction block ([`crate::txn_block`]), the
//! session's settings ([`crate::settings`]), prepared statements and portals
//! ([`crate::portal`]), the COPY sub-protocol ([`crate::copy`]) and the
//! session's entry in the registry ([`crate::registry`]). Everything that
//! needs the catalog or the executor goes to [`crate::query`].
//!
//! Message flow:
//!
//! ```text
//!   Query(text) ─▶ parse ─▶ for each statement:
//!                     failed block? only COMMIT/ROLLBACK/ROLLBACK TO pass
//!                     utility (BEGIN, SET, SHOW, PREPARE, COPY ...) ─▶ here
//!                     otherwise ─▶ nestor_exec::prepare + execute
//!                   error ─▶ ErrorResponse, block.fail(), skip the rest
//!                 end of string ─▶ commit the implicit transaction
//!                 ─▶ ParameterStatus (changed reported GUCs), ReadyForQuery
//!   Parse/Bind/Describe/Execute ─▶ one implicit transaction until Sync;
//!                 after an error every message but Sync is discarded
//! ```
//!
//! Every statement runs inside a [`StatementCtx`]: `start_statement` gives
//! it a snapshot and command id, and its [`WaitCtl`] carries lock_timeout,
//! deadlock_timeout and an `interrupt` closure that the lock table and the
//! executor poll: it reports a cancel request (the token is reset at
//! statement start, so a cancel that arrives while idle is dropped, as in
//! PostgreSQL), statement_timeout and pg_terminate_backend.

use std::collections::HashMap;

use nestor_common::hash::IdHashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nestor_common::error::Severity;
use nestor_common::limits::STATEMENT_BYTES_MAX;
use nestor_common::{DbError, SessionId, SqlState};
use nestor_parser::pb::{node::Node as NodeEnum, RawStmt};
use nestor_txn::{TxnError, WaitCtl};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::encode;
use crate::portal::{chunk_tag, Pending, Portal, PreparedStmt, StmtBody};
use crate::protocol::{BackendMsg, FormatCode, FrontendMsg, TxnStatus};
use crate::txn_block::{aborted_error, BlockState, TxnBlock};
mod copy_server;
mod ctas_execute;
mod utility;
use nestor_exec::registry::{Activity, CancelToken, SessionShared, TerminateSignal};
use nestor_exec::{ColumnDesc, CommandTag, Prepared, RowSink, RowsCommand, StatementCtx};
use nestor_settings::SessionSettings;
use nestor_settings::SettingChange;

pub use nestor_durable::{Engine, EngineConfig};

/// Who connected, from the startup packet and the socket.
#[derive(Clone, Debug)]
pub struct SessionInfo {
    pub pid: SessionId,
    pub secret_key: i32,
    pub user: String,
    pub database: String,
    pub application_name: String,
    pub client_addr: Option<String>,
    /// The client's port, for the server log's remote_port.
    pub client_port: Option<u16>,
    /// Other startup parameters (options, DateStyle, client_encoding, ...).
    pub startup_params: Vec<(String, String)>,
    /// The connection's TLS, for pg_stat_ssl.
    pub ssl: Option<nestor_exec::registry::SslInfo>,
}

/// Microseconds since 2000-01-01 00:00:00 UTC.
pub fn now_us() -> i64 {
    nestor_types::context::system_now()
}

/// A COPY FROM STDIN in progress.
pub(crate) struct CopyInState {
    pub parser: crate::copy::CopyParser,
    /// None: a COPY refused once begun (`utility::refuse_copy_data`),
    /// which only reads its data to the end.
    pub target: Option<nestor_plan::modify::CopyTarget>,
    pub count: u64,
    pub failed: Option<DbError>,
    /// Statements of the query string still to run after the COPY.
    pub rest: Vec<RawStmt>,
    pub text: Arc<str>,
    /// When the COPY statement began and its text, for pg_stat_statements
    /// (track_utility), which counts it when it ends.
    pub tracked: Option<(Instant, Box<str>)>,
    /// Notices the batches raised (triggers' RAISE NOTICE), sent when the
    /// COPY ends.
    pub notices: Vec<DbError>,
}

/// One client session.
pub struct Session {
    pub(crate) engine: Arc<Engine>,
    pub(crate) info: SessionInfo,
    pub(crate) shared: Arc<SessionShared>,
    /// The session's handle on the catalog (sees its TEMP tables).
    pub(crate) catalog: nestor_catalog::Catalog,
    pub(crate) settings: SessionSettings,
    pub(crate) block: TxnBlock,
    /// Prepared statements and portals by name. The names are the
    /// client's, hashed with the fast id hasher all the same: every
    /// extended-protocol message looks one up (SipHash was 4 % of a
    /// savepoint-heavy script's server instructions), and colliding names
    /// can only slow down the session that chose them.
    pub(crate) statements: IdHashMap<String, Arc<PreparedStmt>>,
    pub(crate) portals: IdHashMap<String, Portal>,
    /// DECLAREd cursors (crate::cursor), and those PL/pgSQL opened.
    pub(crate) cursors: HashMap<String, crate::cursor::Cursor>,
    /// Cursors opened without a name so far (`<unnamed portal N>`).
    unnamed_cursors: u64,
    skip_until_sync: bool,
    pub(crate) copy_in: Option<CopyInState>,
    fatal_sent: bool,
    /// What the session counts in the memory budget's "sessions", and the
    /// (prepared statements, portals) it was counted for.
    mem_counted: (usize, (usize, usize)),
    /// The session's identity in the server log (nestor_common::log).
    log: Arc<nestor_common::log::SessionLog>,
    /// current_user as the executor checks it, and the (catalog version,
    /// settings generation) it was read at.
    role_cache: std::cell::Cell<((u64, u64), nestor_exec::privilege::RoleCtx)>,
    /// The (catalog version, settings generation) the catalog handle's
    /// search path was last set at.
    path_synced: std::cell::Cell<(u64, u64)>,
}

/// Memory of a session besides its prepared statements, portals and
/// socket buffers (the session, its settings and registry entry, its
/// connection task): jemalloc's allocated bytes grew by 32.6 kB per idle
/// connection over 500 (release build).
const SESSION_BASE_BYTES: usize = 32 << 10;
/// Memory of a prepared statement (text, parse tree, plan): measured the
/// same way, 45 kB each for a pair of small ones (an expression, a system
/// view with a WHERE clause); this estimate errs low for large ones.
const PREPARED_STATEMENT_BYTES: usize = 32 << 10;
/// Memory of an open portal (bound parameters, pending rows).
const PORTAL_BYTES: usize = 1 << 10;

/// Where a statement's rows go.
pub(crate) struct RowOut<'a> {
    pub out: &'a mut Vec<BackendMsg>,
    /// Send RowDescription first (simple protocol).
    pub describe: bool,
    pub formats: Vec<FormatCode>,
}

impl Session {
    /// Register a new session (fails with 53300 past max_connections).
    pub fn new(engine: Arc<Engine>, info: SessionInfo) -> Result<Session, DbError> {
        // The wire layer has authenticated the role; it may have been
        // dropped since.
        let role = engine.catalog.role(&info.user).ok_or_else(|| {
            DbError::new(
                SqlState::InvalidAuthorizationSpecification,
                format!("role \"{}\" does not exist", info.user),
            )
            .with_severity(nestor_common::error::Severity::Fatal)
        })?;
        // The database (after authentication, as in PostgreSQL): the
        // session's catalog handle sees its objects only.
        let database = engine.catalog.database(&info.database).ok_or_else(|| {
            DbError::new(
                SqlState::InvalidCatalogName,
                format!("database \"{}\" does not exist", info.database),
            )
            .with_severity(nestor_common::error::Severity::Fatal)
        })?;
        if !database.allow_conn {
            return Err(DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                format!(
                    "database \"{}\" is not currently accepting connections",
                    info.database
                ),
            )
            .with_severity(nestor_common::error::Severity::Fatal));
        }
        let mut settings = SessionSettings::new(&info.user);
        // ALTER ROLE / DATABASE ... SET defaults (exec ddl::role_settings),
        // least specific first, then the startup packet's over them all.
        let db = database.oid.0;
        for key in [(0, 0), (db, 0), (0, role.oid.0), (db, role.oid.0)] {
            for (k, v) in engine.catalog.role_setting(key) {
                if let Err(e) = settings.apply_startup(&k, &v) {
                    // Checked when set; a value this version refuses is
                    // skipped, as PostgreSQL skips it with a WARNING.
                    nestor_common::log::warning(&e.message);
                }
            }
        }
        for (k, v) in &info.startup_params {
            settings.apply_startup(k, v)?;
        }
        if !info.application_name.is_empty() {
            settings.apply_startup("application_name", &info.application_name)?;
        }
        let slot = engine.txn.register_slot();
        let shared = Arc::new(SessionShared {
            pid: info.pid,
            secret_key: info.secret_key,
            user: info.user.clone(),
            database: info.database.clone(),
            client_addr: info.client_addr.clone(),
            ssl: info.ssl.clone(),
            backend_start_us: now_us(),
            cancel: CancelToken::default(),
            terminated: AtomicBool::new(false),
            terminate_waker: parking_lot::Mutex::new(None),
            slot: slot.clone(),
            mgr: engine.txn.clone(),
            activity: parking_lot::Mutex::new(Activity {
                state: "idle",
                application_name: settings.show("application_name")?,
                ..Activity::default()
            }),
            notifications: parking_lot::Mutex::new(Default::default()),
            notify_wake: Default::default(),
            listening: parking_lot::Mutex::new(Vec::new()),
            prepared: parking_lot::Mutex::new(Vec::new()),
            cursors: parking_lot::Mutex::new(Vec::new()),
            log: Default::default(),
        });
        engine.sessions.register(
            shared.clone(),
            nestor_exec::registry::RoleLimits {
                superuser: role.superuser,
                conn_limit: role.conn_limit,
                db_conn_limit: database.conn_limit,
            },
        )?;
        engine
            .db
            .stats
            .sessions
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let log = Arc::new(nestor_common::log::SessionLog::new(
            info.pid.0,
            info.user.clone(),
            info.database.clone(),
            info.client_addr.clone(),
            info.client_port,
            nestor_common::log::unix_now_us(),
            Some(shared.clone()),
        ));
        let _ = shared.log.set(Arc::downgrade(&log));
        // Registered first, then the database looked up again: a DROP
        // DATABASE either sees this session (and fails with 55006) or has
        // taken the database out before (and this session gets 3D000).
        let catalog = match engine.catalog.for_database(&info.database) {
            Some(c) if c.database_oid() == db => c.for_session(info.pid),
            _ => {
                engine.sessions.unregister(info.pid);
                return Err(DbError::new(
                    SqlState::InvalidCatalogName,
                    format!("database \"{}\" does not exist", info.database),
                )
                .with_severity(nestor_common::error::Severity::Fatal));
            }
        };
        let block = TxnBlock::new(
            slot,
            info.pid,
            catalog.clone(),
            shared.cancel.clone(),
            engine.db.clone(),
        );
        let mut s = Session {
            engine,
            info,
            shared,
            catalog,
            settings,
            block,
            statements: IdHashMap::default(),
            portals: IdHashMap::default(),
            cursors: HashMap::new(),
            unnamed_cursors: 0,
            skip_until_sync: false,
            copy_in: None,
            fatal_sent: false,
            mem_counted: (0, (0, 0)),
            log,
            role_cache: std::cell::Cell::new((
                (0, u64::MAX),
                nestor_exec::privilege::RoleCtx::of(&role),
            )),
            path_synced: std::cell::Cell::new((0, u64::MAX)),
        };
        s.block.mirror(&mut s.settings);
        s.count_memory();
        s.settings
            .set_virtual("is_superuser", if role.superuser { "on" } else { "off" });
        s.settings.set_virtual("nestor.database", &s.info.database);
        if nestor_common::log::format() == nestor_common::log::Format::Json {
            s.settings.set_virtual("log_destination", "jsonlog");
        }
        // What parameter_status() returns is what the client has seen.
        s.settings.changed_reports();
        Ok(s)
    }

    /// The session's identity in the server log: the wire layer makes it
    /// the current thread's while the session runs there.
    pub fn log_session(&self) -> &Arc<nestor_common::log::SessionLog> {
        &self.log
    }

    /// is_superuser follows SET ROLE and SET SESSION AUTHORIZATION.
    pub(crate) fn refresh_is_superuser(&mut self) {
        let superuser = self.role_ctx().superuser;
        self.settings
            .set_virtual("is_superuser", if superuser { "on" } else { "off" });
    }

    /// The role statements run as: SET ROLE's, else the session user's,
    /// re-read when the catalog or the settings changed since the last
    /// statement (a rolled-back SET ROLE changes the name back): two
    /// integer compares on the statement path.
    pub(crate) fn role_ctx(&self) -> nestor_exec::privilege::RoleCtx {
        let key = (self.catalog.version(), self.settings.generation());
        let (at, cached) = self.role_cache.get();
        if at == key {
            return cached;
        }
        let name = self.current_role_name();
        let ctx = match self.catalog.role(name) {
            Some(r) => nestor_exec::privilege::RoleCtx::of(&r),
            // Dropped while connected: nothing is allowed.
            None => nestor_exec::privilege::RoleCtx {
                oid: nestor_common::RelId(0),
                superuser: false,
            },
        };
        self.role_cache.set((key, ctx));
        ctx
    }

    /// Give the catalog handle search_path's schemas when the setting, the
    /// role (`$user`) or the catalog (a schema made or dropped) may have
    /// changed since the last statement: two integer compares otherwise.
    /// Every statement plans and runs with an evaluation context, which
    /// calls this first.
    fn sync_search_path(&self) {
        let key = (self.catalog.version(), self.settings.generation());
        if self.path_synced.get() == key {
            return;
        }
        let setting = self.settings.view().get("search_path").unwrap_or("public");
        let items = nestor_settings::search_path_items(setting);
        self.catalog
            .set_search_path(items.iter().map(String::as_str), self.current_role_name());
        self.sync_rls_user();
        // The version moves when the path or the RLS user changed.
        self.path_synced
            .set((self.catalog.version(), self.settings.generation()));
    }

    /// Tell the catalog handle whom row-level security is planned for:
    /// the current role (none when it bypasses RLS) and `row_security`.
    fn sync_rls_user(&self) {
        // A role dropped while connected bypasses nothing (no role has
        // OID u32::MAX: only PUBLIC's policies apply to it).
        let role = self
            .catalog
            .role(self.current_role_name())
            .map_or(u32::MAX, |r| {
                if r.superuser || r.bypassrls {
                    0
                } else {
                    r.oid.0
                }
            });
        let row_security = self.settings.view().get("row_security") != Some("off");
        self.catalog
            .set_rls_user(nestor_catalog::RlsUser { role, row_security });
    }

    /// current_user: the SET ROLE role, else the session user.
    pub(crate) fn current_role_name(&self) -> &str {
        nestor_exec::privilege::current_role_name(self.settings.view())
    }

    /// ParameterStatus values to send after authentication.
    pub fn parameter_status(&self) -> Vec<(String, String)> {
        self.settings.reported_values()
    }

    /// Handle one frontend message; may block (lock waits, pg_sleep). Appends
    /// the responses, including ReadyForQuery after Query and Sync.
    pub fn handle(&mut self, msg: FrontendMsg, out: &mut Vec<BackendMsg>) {
        // Stack depth is measured from here (nestor_common::stack).
        nestor_common::stack::set_base();
        nestor_common::stack::set_limit(self.settings.view().max_stack_depth_bytes);
        if self.is_terminated() {
            self.send_fatal_terminated(out);
            return;
        }
        if self.copy_in.is_some() {
            self.handle_copy_message(msg, out);
            return;
        }
        match msg {
            FrontendMsg::Query(text) => self.simple_query(text, out),
            FrontendMsg::Invalid { error, query: true } => {
                self.skip_until_sync = false;
                self.fail(error, out);
                self.finish_query(out);
            }
            FrontendMsg::Sync => self.sync(out),
            FrontendMsg::Flush => {}
            FrontendMsg::CopyData(_) | FrontendMsg::CopyDone | FrontendMsg::CopyFail(_) => {}
            other if self.skip_until_sync => drop(other),
            FrontendMsg::Invalid { error, .. } => {
                self.fail(error, out);
                self.skip_until_sync = true;
            }
            other => {
                if let Err(e) = self.extended(other, out) {
                    self.fail(e, out);
                    self.skip_until_sync = true;
                }
            }
        }
        if self.is_terminated() {
            self.send_fatal_terminated(out);
        }
    }

    pub fn transaction_status(&self) -> TxnStatus {
        match self.block.state() {
            BlockState::Idle | BlockState::Implicit => TxnStatus::Idle,
            BlockState::InBlock => TxnStatus::InBlock,
            BlockState::Failed => TxnStatus::Failed,
        }
    }

    /// The OID of the database the session is connected to.
    pub fn database_oid(&self) -> u32 {
        self.catalog.database_oid()
    }

    pub fn cancel_token(&self) -> CancelToken {
        self.shared.cancel.clone()
    }

    /// The session's pid.
    pub fn pid(&self) -> SessionId {
        self.info.pid
    }

    /// The secret a CancelRequest must present (sent in BackendKeyData).
    pub fn secret_key(&self) -> i32 {
        self.info.secret_key
    }

    /// True once pg_terminate_backend() targeted this session: the wire
    /// layer sends FATAL 57P01 and closes the connection.
    pub fn is_terminated(&self) -> bool {
        self.shared.terminated.load(Ordering::SeqCst)
    }

    /// Notifications delivered to this session, as NotificationResponse
    /// messages, when it is not inside a transaction (PostgreSQL holds
    /// them until the transaction ends). Whether any were added.
    pub fn take_notifications(&mut self, out: &mut Vec<BackendMsg>) -> bool {
        if self.block.txn().is_some() {
            return false;
        }
        let mut q = self.shared.notifications.lock();
        let any = !q.is_empty();
        for n in q.drain(..) {
            out.push(BackendMsg::Notification {
                pid: n.sender.0 as i32,
                channel: n.channel,
                payload: n.payload,
            });
        }
        any
    }

    /// Resolves when pg_terminate_backend() targets this session or a
    /// notification arrives for it: the wire layer's idle wait selects on
    /// it.
    pub fn terminate_signal(&self) -> TerminateSignal {
        TerminateSignal(self.shared.clone())
    }

    /// How long the wire layer may wait for the next message before calling
    /// [`Session::on_idle_timeout`]: idle_in_transaction_session_timeout
    /// while inside a transaction block, None otherwise.
    pub fn idle_timeout(&self) -> Option<Duration> {
        if !self.block.in_explicit_block() {
            return None;
        }
        match self.settings.view().idle_in_transaction_session_timeout_ms {
            0 => None,
            ms => Some(Duration::from_millis(ms)),
        }
    }

    /// The idle-in-transaction timeout expired: roll back and produce the
    /// FATAL the wire layer sends before closing the connection.
    pub fn on_idle_timeout(&mut self, out: &mut Vec<BackendMsg>) {
        self.block.abandon(&mut self.settings);
        let e = DbError::new(
            SqlState::IdleInTransactionSessionTimeout,
            "terminating connection due to idle-in-transaction timeout",
        )
        .with_severity(Severity::Fatal);
        self.log_error(&e);
        out.push(BackendMsg::Error(e));
        self.shared.terminated.store(true, Ordering::SeqCst);
        self.fatal_sent = true;
    }

    /// After pg_terminate_backend(): roll back and produce the FATAL the
    /// wire layer sends before closing, once (later calls add nothing).
    pub fn send_fatal_terminated(&mut self, out: &mut Vec<BackendMsg>) {
        if !self.fatal_sent {
            self.fatal_sent = true;
            self.block.abandon(&mut self.settings);
            let e = DbError::from(TxnError::Terminated).with_severity(Severity::Fatal);
            self.log_error(&e);
            out.push(BackendMsg::Error(e));
        }
    }

    // ----- simple query protocol -------------------------------------------

    fn simple_query(&mut self, text: String, out: &mut Vec<BackendMsg>) {
        self.skip_until_sync = false;
        self.statements.remove("");
        self.set_active(&text);
        let text = match self.conform_strings(text, out) {
            Ok(t) => t,
            Err(e) => {
                self.fail(e, out);
                self.finish_query(out);
                return;
            }
        };
        match self.parse_shaped(&text) {
            Err(e) => self.fail(e, out),
            Ok(p) if p.stmts.is_empty() => out.push(BackendMsg::EmptyQueryResponse),
            Ok(p) => {
                self.block.multi_statement = p.stmts.len() > 1;
                let text: Arc<str> = Arc::from(text);
                if !self.run_statements(text, p.origin, p.stmts, out) {
                    return; // COPY FROM STDIN in progress
                }
            }
        }
        self.finish_query(out);
    }

    fn check_text_len(text: &str) -> Result<(), DbError> {
        if text.len() > STATEMENT_BYTES_MAX {
            return Err(DbError::new(
                SqlState::ProgramLimitExceeded,
                format!(
                    "statement text of {} bytes exceeds the limit of {STATEMENT_BYTES_MAX} bytes",
                    text.len()
                ),
            ));
        }
        Ok(())
    }

    /// With standard_conforming_strings off, the text with its plain
    /// literals in standard form, the scanner's warnings sent first
    /// (`nestor_parser::nonstandard`); else the text as it came.
    fn conform_strings(&self, text: String, out: &mut Vec<BackendMsg>) -> Result<String, DbError> {
        let view = self.settings.view();
        if view.standard_conforming_strings {
            return Ok(text);
        }
        Self::check_text_len(&text)?;
        match nestor_parser::nonstandard::conform(&text, view.escape_string_warning)? {
            None => Ok(text),
            Some(c) => {
                out.extend(c.warnings.into_iter().map(BackendMsg::Notice));
                Ok(c.text)
            }
        }
    }

    /// Parse for a tree used with exactly this text (extended protocol).
    fn parse_text(&self, text: &str) -> Result<Vec<RawStmt>, DbError> {
        Self::check_text_len(text)?;
        nestor_parser::parse_sql_cached(text)
    }

    /// Parse for a simple query, possibly from the tree of a text that
    /// differs only in constants (`nestor_parser::parse_sql_shaped`).
    fn parse_shaped(&self, text: &str) -> Result<nestor_parser::Parsed, DbError> {
        Self::check_text_len(text)?;
        nestor_parser::parse_sql_shaped(text)
    }

    /// Run statements of one query string; false if a COPY FROM STDIN took
    /// over (the rest runs after CopyDone). With an `origin`, the trees'
    /// locations refer to the origin's text: statements are bound against
    /// it and error cursors are moved back into `text`.
    pub(crate) fn run_statements(
        &mut self,
        text: Arc<str>,
        origin: Option<nestor_parser::Origin>,
        stmts: Vec<RawStmt>,
        out: &mut Vec<BackendMsg>,
    ) -> bool {
        let bound = origin
            .as_ref()
            .map_or_else(|| text.clone(), |o| o.text().clone());
        let mut iter = stmts.into_iter();
        while let Some(raw) = iter.next() {
            let mut rows = RowOut {
                out,
                describe: true,
                formats: Vec::new(),
            };
            match self.exec_raw(&bound, &raw, &[], &mut rows) {
                Ok(()) => {}
                Err(e) => {
                    let e = match &origin {
                        Some(o) => o.map_error(&text, e),
                        None => e,
                    };
                    self.fail(e, out);
                    return true;
                }
            }
            if let Some(c) = self.copy_in.as_mut() {
                c.rest = iter.collect();
                c.text = bound;
                return false;
            }
        }
        true
    }

    /// Before a commit: the checks of DEFERRABLE constraints the
    /// transaction left (PostgreSQL's AfterTriggerFireDeferred). A failure
    /// rolls the transaction back and is the commit's error.
    pub(crate) fn check_deferred_for_commit(&mut self) -> Result<(), DbError> {
        if self.block.deferred.is_empty() || self.block.state() == BlockState::Failed {
            return Ok(());
        }
        let checks = std::mem::take(&mut self.block.deferred);
        let (r, notices) = self.with_statement(|ctx| nestor_exec::check_deferred(ctx, checks));
        self.block.warnings.extend(notices);
        if let Err(e) = r {
            self.block.abandon(&mut self.settings);
            return Err(e);
        }
        Ok(())
    }

    /// End of a simple query: commit the implicit transaction, report
    /// changed parameters, ReadyForQuery.
    pub(crate) fn finish_query(&mut self, out: &mut Vec<BackendMsg>) {
        let result = if self.block.state() == BlockState::Implicit {
            self.check_deferred_for_commit()
                .and_then(|()| self.block.end_implicit(&mut self.settings))
        } else {
            self.block.end_implicit(&mut self.settings)
        };
        // The implicit commit belongs to the last statement: its warnings
        // come before that statement's CommandComplete and its error takes
        // its place, as in PostgreSQL (which commits before reporting
        // completion).
        let complete = match out.last() {
            Some(BackendMsg::CommandComplete(_)) => out.pop(),
            _ => None,
        };
        out.extend(self.block.warnings.drain(..).map(BackendMsg::Notice));
        match result {
            Err(e) => {
                self.log_error(&e);
                out.push(BackendMsg::Error(e));
            }
            Ok(()) => out.extend(complete),
        }
        self.ready(out);
    }

    fn ready(&mut self, out: &mut Vec<BackendMsg>) {
        if self.block.txn().is_none() {
            self.portals.clear();
            self.drop_stale_cursors();
            self.take_notifications(out);
        }
        self.count_memory();
        for (k, v) in self.settings.changed_reports() {
            out.push(BackendMsg::ParameterStatus(k, v));
        }
        self.set_idle();
        out.push(BackendMsg::ReadyForQuery(self.transaction_status()));
    }

    /// Report an error and move the transaction block accordingly.
    pub(crate) fn fail(&mut self, mut e: DbError, out: &mut Vec<BackendMsg>) {
        let counter = match e.code {
            SqlState::DeadlockDetected => Some(&self.engine.db.stats.deadlocks),
            SqlState::SerializationFailure => Some(&self.engine.db.stats.serialization_failures),
            _ => None,
        };
        if let Some(c) = counter {
            c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        if e.code == SqlState::AdminShutdown {
            e.severity = Severity::Fatal;
            self.fatal_sent = true;
        }
        self.log_error(&e);
        out.push(BackendMsg::Error(e));
        self.block.fail(&mut self.settings);
    }

    /// Write an error sent to the client to the server log with the
    /// statement it came from, as PostgreSQL does: unless
    /// log_min_messages is above its severity (default warning), with
    /// the statement unless log_min_error_statement is (default error).
    /// The error path only.
    pub(crate) fn log_error(&self, e: &DbError) {
        let view = self.settings.view();
        let rank = nestor_settings::log_level_rank(e.severity.as_str());
        if rank < view.log_min_messages {
            return;
        }
        let statement = if rank >= view.log_min_error_statement {
            self.shared.activity.lock().query.clone()
        } else {
            String::new()
        };
        let mut line = nestor_common::log::Line::new(e.severity.as_str(), &e.message);
        line.state_code = Some(e.sqlstate());
        line.detail = e.detail.as_deref();
        line.hint = e.hint.as_deref();
        line.context = e.context.as_deref();
        line.session = Some(&self.log);
        if !statement.is_empty() {
            line.statement = Some(&statement);
            line.cursor_position = e.position;
        }
        nestor_common::log::write(&line);
    }

    /// Execute one parsed statement of `text`.
    pub(crate) fn exec_raw(
        &mut self,
        text: &Arc<str>,
        raw: &RawStmt,
        params: &[Value],
        rows: &mut RowOut<'_>,
    ) -> Result<(), DbError> {
        let node = raw
            .stmt
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| DbError::internal("empty statement node"))?;
        if self.block.is_failed() && !utility::is_txn_exit(node) {
            return Err(aborted_error());
        }
        if let Some((text, raw)) = ctas_execute::rewrite(self, text, node)? {
            return self.exec_raw(&text, &raw, params, rows);
        }
        if nestor_plan::handles(node) {
            let current_of = self.rewrite_current_of(raw, false)?;
            let prepared = self.prepare_query(text, current_of.as_ref().unwrap_or(raw), &[])?;
            let mut described = None;
            if rows.describe {
                if let Some(cols) = &prepared.columns {
                    described = Some(rows.out.len());
                    rows.out
                        .push(BackendMsg::RowDescription(encode::field_descs(cols, &[])));
                }
            }
            let tag = self.run_prepared(&prepared, params, rows, described)?;
            rows.out.push(BackendMsg::CommandComplete(tag));
            return Ok(());
        }
        if !matches!(node, NodeEnum::TransactionStmt(_)) {
            // SET and friends belong to the implicit transaction too, so a
            // later error in the same query string reverts them.
            self.block
                .ensure(&self.engine, &mut self.settings, now_us())?;
        }
        let (start, track) = (Instant::now(), self.settings.view().track_utility);
        utility::execute(self, text, raw, node, params, rows)?;
        self.utility_done(text, raw, node, (start, track), rows.out);
        Ok(())
    }

    /// A utility statement completed (`out` ends with its CommandComplete,
    /// unless it began a COPY FROM STDIN): log it if it took
    /// log_min_duration_statement or longer, and add it to
    /// pg_stat_statements under its own text, as PostgreSQL 15 does with
    /// track_utility on (but PREPARE, EXECUTE and DEALLOCATE: EXECUTE counts
    /// under its PREPARE's query). `(start, track)`: when it started and
    /// whether track_utility was on then (PostgreSQL decides before it
    /// runs, so `SET pg_stat_statements.track_utility = off` counts). A
    /// COPY FROM STDIN counts when it ends.
    pub(crate) fn utility_done(
        &mut self,
        text: &str,
        raw: &RawStmt,
        node: &NodeEnum,
        (start, track): (Instant, bool),
        out: &[BackendMsg],
    ) {
        let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
        self.log_duration(elapsed_ms, text, raw.stmt_location, raw.stmt_len);
        if !track
            || matches!(
                node,
                NodeEnum::PrepareStmt(_) | NodeEnum::ExecuteStmt(_) | NodeEnum::DeallocateStmt(_)
            )
        {
            return;
        }
        let stmt =
            nestor_exec::stat_statements::statement_text(text, raw.stmt_location, raw.stmt_len);
        if let Some(c) = self.copy_in.as_mut() {
            c.tracked = Some((start, stmt.into()));
            return;
        }
        let rows = match out.last() {
            Some(BackendMsg::CommandComplete(CommandTag::Rows(_, n))) => *n,
            _ => 0,
        };
        self.record_utility(stmt, elapsed_ms, rows);
    }

    /// Add one call of the utility statement `stmt` to pg_stat_statements.
    pub(crate) fn record_utility(&self, stmt: &str, elapsed_ms: f64, rows: u64) {
        let store = &self.engine.db.stat_statements;
        store.record(
            &store.identify_utility(stmt),
            nestor_exec::stat_statements::Call {
                userid: self.role_ctx().oid.0,
                dbid: self.catalog.database_oid(),
                toplevel: true,
                elapsed_ms,
                rows,
                savepoints: 0,
            },
        );
    }

    /// Forget the cursors of transactions that have ended (WITH HOLD ones
    /// stay).
    pub(crate) fn drop_stale_cursors(&mut self) {
        if self.cursors.is_empty() {
            return;
        }
        let current = self.block.txn().is_some().then_some(self.block.start_us);
        let before = self.cursors.len();
        self.cursors
            .retain(|_, c| c.hold || Some(c.txn_start_us) == current);
        if self.cursors.len() != before {
            self.publish_cursors();
        }
    }

    /// Publish the open cursors for pg_cursors.
    pub(crate) fn publish_cursors(&self) {
        let mut list: Vec<nestor_exec::CursorInfo> = self
            .cursors
            .iter()
            .map(|(name, c)| nestor_exec::CursorInfo {
                name: name.clone(),
                statement: c.statement.clone(),
                holdable: c.hold,
                binary: c.binary,
                scrollable: c.scrollable,
                creation_time_us: c.created_us,
            })
            .collect();
        list.sort_by_key(|a| a.creation_time_us);
        *self.shared.cursors.lock() = list;
    }

    /// What a transaction statement does to the cursors: a rollback drops
    /// those its transaction declared, WITH HOLD ones too (`tag` "ROLLBACK",
    /// or the statement failed and ended the transaction); ROLLBACK TO
    /// drops those declared inside the savepoint; RELEASE hands them to
    /// the enclosing level.
    pub(crate) fn cursors_after_txn_stmt(
        &mut self,
        kind: nestor_parser::pb::TransactionStmtKind,
        tag: Option<&'static str>,
        txn_start: Option<i64>,
    ) {
        use nestor_parser::pb::TransactionStmtKind as K;
        if self.cursors.is_empty() {
            return;
        }
        let level = self.block.level() as usize;
        match kind {
            K::TransStmtRollbackTo if tag.is_some() => {
                self.cursors.retain(|_, c| c.savepoint_depth < level);
            }
            K::TransStmtRelease if tag.is_some() => {
                for c in self.cursors.values_mut() {
                    c.savepoint_depth = c.savepoint_depth.min(level);
                }
            }
            K::TransStmtCommit | K::TransStmtRollback if tag != Some("COMMIT") => {
                if let Some(start) = txn_start {
                    self.cursors.retain(|_, c| c.txn_start_us != start);
                }
            }
            _ => {}
        }
        self.drop_stale_cursors();
        self.publish_cursors();
    }

    /// `UPDATE/DELETE ... WHERE CURRENT OF c` with the condition the
    /// cursor's current row stands for (crate::cursor); None for any other
    /// statement. `placeholder`: a condition that matches nothing instead,
    /// for planning the statement at Parse (it is planned again, with the
    /// cursor's row, at each Execute).
    pub(crate) fn rewrite_current_of(
        &mut self,
        raw: &RawStmt,
        placeholder: bool,
    ) -> Result<Option<RawStmt>, DbError> {
        let Some(node) = raw.stmt.as_ref().and_then(|n| n.node.as_ref()) else {
            return Ok(None);
        };
        let node = match node {
            // EXPLAIN of one: with ANALYZE it runs, so it needs the row.
            NodeEnum::ExplainStmt(e) => {
                let Some(inner) = e.query.as_ref().and_then(|q| q.node.as_ref()) else {
                    return Ok(None);
                };
                let runs = e.options.iter().any(|o| match o.node.as_ref() {
                    Some(NodeEnum::DefElem(d)) if d.defname == "analyze" => !matches!(
                        d.arg.as_deref().and_then(|a| a.node.as_ref()),
                        Some(NodeEnum::String(v)) if matches!(v.sval.as_str(), "false" | "off")
                    ),
                    _ => false,
                });
                let Some(inner) = self.current_of_node(inner, placeholder || !runs)? else {
                    return Ok(None);
                };
                let mut e = e.clone();
                e.query = Some(Box::new(nestor_parser::pb::Node { node: Some(inner) }));
                NodeEnum::ExplainStmt(e)
            }
            node => match self.current_of_node(node, placeholder)? {
                Some(n) => n,
                None => return Ok(None),
            },
        };
        Ok(Some(RawStmt {
            stmt: Some(Box::new(nestor_parser::pb::Node { node: Some(node) })),
            stmt_location: raw.stmt_location,
            stmt_len: raw.stmt_len,
        }))
    }

    /// [`Self::rewrite_current_of`] of the UPDATE or DELETE itself.
    fn current_of_node(
        &mut self,
        node: &NodeEnum,
        placeholder: bool,
    ) -> Result<Option<NodeEnum>, DbError> {
        let (relation, where_clause) = match node {
            NodeEnum::UpdateStmt(u) => (&u.relation, &u.where_clause),
            NodeEnum::DeleteStmt(d) => (&d.relation, &d.where_clause),
            _ => return Ok(None),
        };
        let Some(NodeEnum::CurrentOfExpr(co)) = where_clause.as_ref().and_then(|w| w.node.as_ref())
        else {
            return Ok(None);
        };
        let rv = relation
            .as_ref()
            .ok_or_else(|| DbError::internal("UPDATE without a relation"))?;
        let refname = rv
            .alias
            .as_ref()
            .map_or_else(|| rv.relname.clone(), |a| a.aliasname.clone());
        let origin = if placeholder {
            None
        } else {
            self.current_of_origin(rv, &co.cursor_name)?
        };
        let cond = crate::cursor::origin_condition(&refname, origin.as_ref());
        let mut node = node.clone();
        match &mut node {
            NodeEnum::UpdateStmt(u) => u.where_clause = Some(Box::new(cond)),
            NodeEnum::DeleteStmt(d) => d.where_clause = Some(Box::new(cond)),
            _ => {}
        }
        Ok(Some(node))
    }

    /// The current row of cursor `name` in the table `rv` names.
    fn current_of_origin(
        &mut self,
        rv: &nestor_parser::pb::RangeVar,
        name: &str,
    ) -> Result<Option<crate::cursor::RowOrigin>, DbError> {
        let rel = nestor_plan::bind::relname(rv)?;
        let table = match self.catalog.relation(&rel) {
            Some(nestor_catalog::Relation::Table(t)) => t,
            Some(nestor_catalog::Relation::View(_)) => {
                return Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    "WHERE CURRENT OF on a view is not implemented",
                ))
            }
            // The statement's planning reports the missing relation.
            _ => return Ok(None),
        };
        let current = self.block.txn().is_some().then_some(self.block.start_us);
        let c = self.cursor(name)?;
        if Some(c.txn_start_us) != current {
            return Err(DbError::new(
                SqlState::InvalidCursorState,
                format!("cursor \"{name}\" is held from a previous transaction"),
            ));
        }
        c.current_of(name, table.oid.0, &rv.relname)
    }

    /// The open cursor called `name` (34000 if there is none).
    pub(crate) fn cursor(&mut self, name: &str) -> Result<&crate::cursor::Cursor, DbError> {
        self.cursor_mut(name).map(|c| &*c)
    }

    pub(crate) fn cursor_mut(&mut self, name: &str) -> Result<&mut crate::cursor::Cursor, DbError> {
        self.drop_stale_cursors();
        self.cursors.get_mut(name).ok_or_else(|| {
            DbError::new(
                SqlState::InvalidCursorName,
                format!("cursor \"{name}\" does not exist"),
            )
        })
    }

    pub(crate) fn prepare_query(
        &mut self,
        text: &str,
        raw: &RawStmt,
        hints: &[u32],
    ) -> Result<Prepared, DbError> {
        nestor_exec::prepare(&self.catalog, self.eval_ctx(), text, raw, hints)
    }

    /// Run a planned statement, streaming its rows as DataRows.
    /// `described`: where in `rows.out` this query's RowDescription is, if
    /// the statement is a simple-protocol query that may still change its
    /// result columns (planned again after waiting for its locks).
    pub(crate) fn run_prepared(
        &mut self,
        prepared: &Prepared,
        params: &[Value],
        rows: &mut RowOut<'_>,
        described: Option<usize>,
    ) -> Result<CommandTag, DbError> {
        let types = column_types(prepared.columns.as_deref());
        let codec = self.eval_ctx();
        let mut sink = DataRowSink {
            out: rows.out,
            codec,
            types,
            formats: &rows.formats,
            growth: nestor_common::memory::Growth::new("result buffer (rows not yet sent)"),
            described,
        };
        let start = self.observed().then(Instant::now);
        let (r, notices) = self.with_statement(|ctx| {
            let sp = ctx.txn.savepoint_stats().defined;
            let tag = nestor_exec::execute(ctx, prepared, params, &mut sink)?;
            Ok((tag, ctx.txn.savepoint_stats().defined.saturating_sub(sp)))
        });
        for n in notices {
            rows.out.push(BackendMsg::Notice(n));
        }
        let (tag, savepoints) = r?;
        if let Some(start) = start {
            self.statement_done(prepared, start, tag, savepoints);
        }
        Ok(tag)
    }

    /// Whether statements are timed: pg_stat_statements tracks them or
    /// log_min_duration_statement may log them.
    pub(crate) fn observed(&self) -> bool {
        let view = self.settings.view();
        view.track_statements || view.log_min_duration_ms.is_some()
    }

    /// A planned statement completed: add it to pg_stat_statements and log
    /// it if it took log_min_duration_statement or longer (PostgreSQL's
    /// line, on the server's standard error).
    pub(crate) fn statement_done(
        &self,
        prepared: &Prepared,
        start: Instant,
        tag: CommandTag,
        savepoints: u64,
    ) {
        let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
        let view = self.settings.view();
        let store = &self.engine.db.stat_statements;
        let id = prepared.stat_id(store);
        if view.track_statements && (view.track_utility || !id.utility) {
            store.record(
                id,
                nestor_exec::stat_statements::Call {
                    userid: self.role_ctx().oid.0,
                    dbid: self.catalog.database_oid(),
                    toplevel: true,
                    elapsed_ms,
                    rows: tag.rows(),
                    savepoints,
                },
            );
        }
        let (location, len) = prepared.location();
        self.log_duration(elapsed_ms, prepared.text(), location, len);
    }

    /// Log a statement that took log_min_duration_statement or longer, with
    /// PostgreSQL's line, on the server's standard error.
    pub(crate) fn log_duration(&self, elapsed_ms: f64, text: &str, location: i32, len: i32) {
        let view = self.settings.view();
        let Some(min) = view.log_min_duration_ms else {
            return;
        };
        if view.log_min_messages > nestor_settings::LOG_RANK {
            return;
        }
        if elapsed_ms >= min as f64 {
            let stmt = nestor_exec::stat_statements::statement_text(text, location, len);
            let message = format!("duration: {elapsed_ms:.3} ms  statement: {}", stmt.trim());
            let mut line = nestor_common::log::Line::new("LOG", &message);
            line.session = Some(&self.log);
            nestor_common::log::write(&line);
        }
    }

    /// What value semantics depend on: the session's TimeZone and the
    /// transaction timestamp (now when there is no transaction).
    pub(crate) fn eval_ctx(&self) -> nestor_types::EvalCtx {
        self.sync_search_path();
        let now = if self.block.txn().is_some() {
            self.block.start_us
        } else {
            now_us()
        };
        let view = self.settings.view();
        nestor_types::EvalCtx::new(view.time_zone, now)
            .with_extra_float_digits(view.extra_float_digits)
            .with_styles(view.date_style, view.interval_style)
            .with_bytea_escape(view.bytea_escape)
            .with_ts_config(view.ts_config)
    }

    /// Run `f` as one statement: open the transaction if needed, take the
    /// snapshot, build the wait bounds, and apply set_config() changes on
    /// success. Returns f's result and the statement's notices.
    pub(crate) fn with_statement<T>(
        &mut self,
        f: impl FnOnce(&mut StatementCtx<'_>) -> Result<T, DbError>,
    ) -> (Result<T, DbError>, Vec<DbError>) {
        let mut notices = Vec::new();
        let mut changes = Vec::new();
        let r = self.statement_inner(&mut notices, &mut changes, f);
        // Text search notices raised while the statement was planned (a
        // literal's input function) or outside the executor's calls.
        notices.extend(nestor_types::tsearch::take_notices());
        // RAISE LOG / DEBUG go to the server log only (client_min_messages
        // is NOTICE).
        notices.retain(|n| !matches!(n.severity, Severity::Log | Severity::Debug));
        if r.is_ok() {
            for c in changes {
                self.settings.set(&c.name, c.value, c.is_local);
            }
        }
        self.publish_txn();
        (r, notices)
    }

    fn statement_inner<T>(
        &mut self,
        notices: &mut Vec<DbError>,
        changes: &mut Vec<SettingChange>,
        f: impl FnOnce(&mut StatementCtx<'_>) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let start = now_us();
        self.shared.cancel.reset();
        let role = self.role_ctx();
        self.block.ensure(&self.engine, &mut self.settings, start)?;
        let read_only = self.block.read_only();
        let in_block = self.block.in_explicit_block();
        // PostgreSQL's non-atomic context: a statement sent alone, outside
        // BEGIN ... COMMIT and not one of several in one Query message.
        let may_end_txn = !in_block && !self.block.multi_statement;
        let txn_start_us = self.block.start_us;
        let view = self.settings.view();
        let stmt_timeout = view.statement_timeout_ms;
        let lock_timeout = view.lock_timeout_ms;
        let deadlock = view.deadlock_timeout_ms.max(1);
        let deadline =
            (stmt_timeout > 0).then(|| Instant::now() + Duration::from_millis(stmt_timeout));
        let shared = self.shared.clone();
        let interrupt = move || interrupt_check(&shared, deadline);
        let shared2 = self.shared.clone();
        let wait_event = move |ev: Option<(&'static str, &'static str)>| {
            shared2.activity.lock().wait_event = ev;
        };
        let waits_for_safe_snapshot = self.block.waits_for_safe_snapshot();
        let mut cursors = crate::cursor::StatementCursors {
            map: &mut self.cursors,
            txn_start_us,
            savepoint_depth: self.block.level() as usize,
            unnamed: &mut self.unnamed_cursors,
            changed: false,
        };
        let (txn, deferred, constraints_deferred, notifies) = self.block.txn_and_deferred();
        let txn = txn.expect("ensured");
        let wait = WaitCtl {
            lock_timeout: (lock_timeout > 0).then(|| Duration::from_millis(lock_timeout)),
            deadlock_timeout: Duration::from_millis(deadlock),
            interrupt: &interrupt,
            log_lock_waits: view.log_lock_waits
                && view.log_min_messages <= nestor_settings::LOG_RANK,
        };
        if waits_for_safe_snapshot {
            wait_event(Some(("IPC", "SafeSnapshot")));
        }
        let reused = txn.reuses_snapshot();
        let snapshot = txn.start_statement_with(&wait);
        if waits_for_safe_snapshot {
            wait_event(None);
        }
        let snapshot = snapshot?;
        if !reused {
            // A new snapshot: when it was taken (this statement's start,
            // read above) for the metrics' oldest snapshot age.
            let mut a = self.shared.activity.lock();
            a.snapshot_xmin = Some(self.engine.txn.next_xid().0);
            a.snapshot_start_us = Some(start);
        }
        let mut ctx = StatementCtx {
            db: &self.engine.db,
            catalog: &self.catalog,
            session: self.info.pid,
            txn,
            snapshot,
            eval: nestor_types::EvalCtx::new(self.settings.view().time_zone, txn_start_us)
                .with_extra_float_digits(self.settings.view().extra_float_digits)
                .with_styles(
                    self.settings.view().date_style,
                    self.settings.view().interval_style,
                )
                .with_bytea_escape(self.settings.view().bytea_escape)
                .with_ts_config(self.settings.view().ts_config),
            settings: self.settings.view(),
            wait,
            notices,
            txn_start_us,
            stmt_start_us: start,
            read_only,
            in_block,
            may_end_txn,
            restarts: 0,
            setting_changes: changes,
            wait_event: &wait_event,
            deferred,
            constraints_deferred,
            notifies,
            role,
            trigger_depth: 0,
            cursors: &mut cursors,
            transition: Vec::new(),
        };
        let r = f(&mut ctx);
        self.shared.activity.lock().wait_event = None;
        if cursors.changed {
            self.publish_cursors();
        }
        r
    }

    // ----- extended query protocol -----------------------------------------

    fn sync(&mut self, out: &mut Vec<BackendMsg>) {
        self.skip_until_sync = false;
        let result = if self.block.state() == BlockState::Implicit {
            self.check_deferred_for_commit()
                .and_then(|()| self.block.end_implicit(&mut self.settings))
        } else {
            self.block.end_implicit(&mut self.settings)
        };
        out.extend(self.block.warnings.drain(..).map(BackendMsg::Notice));
        if let Err(e) = result {
            self.log_error(&e);
            out.push(BackendMsg::Error(e));
        }
        self.ready(out);
    }

    fn extended(&mut self, msg: FrontendMsg, out: &mut Vec<BackendMsg>) -> Result<(), DbError> {
        match msg {
            FrontendMsg::Parse {
                name,
                query,
                param_types,
            } => self.parse_msg(name, query, param_types, out),
            FrontendMsg::Bind {
                portal,
                statement,
                param_formats,
                params,
                result_formats,
            } => self.bind_msg(
                portal,
                statement,
                param_formats,
                params,
                result_formats,
                out,
            ),
            FrontendMsg::Describe { kind, name } => self.describe_msg(kind, &name, out),
            FrontendMsg::Execute { portal, max_rows } => self.execute_msg(&portal, max_rows, out),
            FrontendMsg::Close { kind, name } => {
                match kind {
                    b'S' => drop(self.drop_statement(&name)),
                    _ => drop(self.portals.remove(&name)),
                }
                out.push(BackendMsg::CloseComplete);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn parse_msg(
        &mut self,
        name: String,
        text: String,
        hints: Vec<u32>,
        out: &mut Vec<BackendMsg>,
    ) -> Result<(), DbError> {
        self.set_active(&text);
        if !name.is_empty() && self.statements.contains_key(&name) {
            return Err(duplicate_statement(&name));
        }
        let text = self.conform_strings(text, out)?;
        let mut stmts = self.parse_text(&text)?;
        if stmts.len() > 1 {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "cannot insert multiple commands into a prepared statement",
            ));
        }
        let text: Arc<str> = Arc::from(text);
        let stmt = match stmts.pop() {
            None => empty_stmt(text),
            Some(raw) => self.build_prepared(text, raw, &hints)?,
        };
        self.put_statement(name, stmt, false);
        out.push(BackendMsg::ParseComplete);
        Ok(())
    }

    /// Plan (query) or classify (utility) one statement for later execution.
    pub(crate) fn build_prepared(
        &mut self,
        text: Arc<str>,
        raw: RawStmt,
        hints: &[u32],
    ) -> Result<PreparedStmt, DbError> {
        let node = raw
            .stmt
            .as_ref()
            .and_then(|n| n.node.as_ref())
            .ok_or_else(|| DbError::internal("empty statement node"))?;
        if self.block.is_failed() && !utility::is_txn_exit(node) {
            return Err(aborted_error());
        }
        // Runs as the CREATE TABLE AS it stands for when executed.
        if nestor_plan::handles(node) && !ctas_execute::applies(node) {
            let current_of = self.rewrite_current_of(&raw, true)?;
            let prepared = self.prepare_query(&text, current_of.as_ref().unwrap_or(&raw), hints)?;
            return Ok(PreparedStmt {
                param_types: prepared.param_types.clone(),
                columns: prepared.columns.clone(),
                text,
                raw,
                body: StmtBody::Query(prepared),
                info: None,
            });
        }
        let columns = utility::result_columns(self, node)?;
        // DECLARE's parameters are its query's.
        let param_types = match node {
            NodeEnum::DeclareCursorStmt(d) => {
                let query = utility::cursor_query(d)?;
                self.prepare_query(&text, &query, hints)?.param_types
            }
            _ => hints.to_vec(),
        };
        Ok(PreparedStmt {
            text,
            raw,
            body: StmtBody::Utility,
            param_types,
            columns,
            info: None,
        })
    }

    /// Keep a prepared statement under `name`; a named one is published
    /// for pg_prepared_statements (`from_sql`: made by SQL PREPARE).
    pub(crate) fn put_statement(&mut self, name: String, mut stmt: PreparedStmt, from_sql: bool) {
        if !name.is_empty() {
            let info = Arc::new(nestor_exec::PreparedInfo {
                name: name.clone(),
                statement: stmt.text.clone(),
                prepare_time_us: now_us(),
                param_types: stmt.param_types.clone(),
                from_sql,
                executions: Default::default(),
            });
            stmt.info = Some(info.clone());
            let mut published = self.shared.prepared.lock();
            published.retain(|p| p.name != name);
            published.push(info);
        }
        self.statements.insert(name, Arc::new(stmt));
    }

    /// Forget the prepared statement `name` (and its published row).
    pub(crate) fn drop_statement(&mut self, name: &str) -> Option<Arc<PreparedStmt>> {
        let stmt = self.statements.remove(name)?;
        if !name.is_empty() {
            self.shared.prepared.lock().retain(|p| p.name != name);
        }
        Some(stmt)
    }

    /// Forget every named prepared statement (DEALLOCATE ALL), and the
    /// unnamed one too with `unnamed` (DISCARD ALL).
    pub(crate) fn drop_statements(&mut self, unnamed: bool) {
        self.statements.retain(|k, _| k.is_empty() && !unnamed);
        self.shared.prepared.lock().clear();
    }

    fn lookup_statement(&self, name: &str) -> Result<Arc<PreparedStmt>, DbError> {
        self.statements.get(name).cloned().ok_or_else(|| {
            let msg = if name.is_empty() {
                "unnamed prepared statement does not exist".to_string()
            } else {
                format!("prepared statement \"{name}\" does not exist")
            };
            DbError::new(SqlState::InvalidSqlStatementName, msg)
        })
    }

    fn bind_msg(
        &mut self,
        portal: String,
        statement: String,
        param_formats: Vec<FormatCode>,
        params: Vec<Option<Vec<u8>>>,
        result_formats: Vec<FormatCode>,
        out: &mut Vec<BackendMsg>,
    ) -> Result<(), DbError> {
        let stmt = self.lookup_statement(&statement)?;
        if self.block.is_failed() && !is_exit_stmt(&stmt) {
            return Err(aborted_error());
        }
        let values = self.decode_params(&stmt, &statement, &param_formats, &params)?;
        let ncols = stmt.columns.as_ref().map_or(0, Vec::len);
        encode::check_result_formats(&result_formats, ncols)?;
        if !portal.is_empty() && self.portals.contains_key(&portal) {
            return Err(DbError::new(
                SqlState::DuplicateCursor,
                format!("portal \"{portal}\" already exists"),
            ));
        }
        // PostgreSQL chooses the plan at Bind (generic_plans counts there).
        stmt.count_execution();
        self.portals
            .insert(portal, Portal::new(stmt, values, result_formats));
        out.push(BackendMsg::BindComplete);
        Ok(())
    }

    fn decode_params(
        &self,
        stmt: &PreparedStmt,
        name: &str,
        formats: &[FormatCode],
        params: &[Option<Vec<u8>>],
    ) -> Result<Vec<Value>, DbError> {
        if params.len() != stmt.param_types.len() {
            return Err(DbError::new(
                SqlState::ProtocolViolation,
                format!(
                    "bind message supplies {} parameters, but prepared statement \"{name}\" requires {}",
                    params.len(),
                    stmt.param_types.len()
                ),
            ));
        }
        if formats.len() > 1 && formats.len() != params.len() {
            return Err(DbError::new(
                SqlState::ProtocolViolation,
                format!(
                    "bind message has {} parameter formats but {} parameters",
                    formats.len(),
                    params.len()
                ),
            ));
        }
        let codec = self.eval_ctx();
        params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let f = encode::column_format(formats, i);
                encode::decode_param(&codec, p.as_deref(), f, stmt.param_types[i], i)
            })
            .collect()
    }

    fn describe_msg(
        &mut self,
        kind: u8,
        name: &str,
        out: &mut Vec<BackendMsg>,
    ) -> Result<(), DbError> {
        let (cols, formats) = if kind == b'S' {
            let stmt = self.lookup_statement(name)?;
            out.push(BackendMsg::ParameterDescription(stmt.param_types.clone()));
            (stmt.columns.clone(), Vec::new())
        } else if let Some(p) = self.portals.get(name) {
            (p.stmt.columns.clone(), p.formats.clone())
        } else {
            // A DECLAREd cursor is a portal too (psycopg describes its
            // named cursors this way).
            let c = self.cursor(name).map_err(|_| missing_portal(name))?;
            (Some(c.columns.clone()), Vec::new())
        };
        out.push(match cols {
            Some(c) => BackendMsg::RowDescription(encode::field_descs(&c, &formats)),
            None => BackendMsg::NoData,
        });
        Ok(())
    }

    fn execute_msg(
        &mut self,
        name: &str,
        max_rows: u32,
        out: &mut Vec<BackendMsg>,
    ) -> Result<(), DbError> {
        let mut portal = self
            .portals
            .remove(name)
            .ok_or_else(|| missing_portal(name))?;
        self.set_active(&portal.stmt.text.clone());
        let r = self.execute_portal(&mut portal, max_rows, out);
        if self.block.txn().is_some() || self.block.state() != BlockState::Idle {
            self.portals.insert(name.to_string(), portal);
        }
        r
    }

    /// A WHERE CURRENT OF statement planned again with its cursor's
    /// current row (at Parse it was planned with a placeholder).
    fn current_of_plan(&mut self, stmt: &PreparedStmt) -> Result<Option<Prepared>, DbError> {
        match self.rewrite_current_of(&stmt.raw, false)? {
            Some(raw) => Ok(Some(self.prepare_query(
                &stmt.text,
                &raw,
                &stmt.param_types,
            )?)),
            None => Ok(None),
        }
    }

    fn execute_portal(
        &mut self,
        portal: &mut Portal,
        max_rows: u32,
        out: &mut Vec<BackendMsg>,
    ) -> Result<(), DbError> {
        let stmt = portal.stmt.clone();
        if self.block.is_failed() && !is_exit_stmt(&stmt) {
            return Err(aborted_error());
        }
        if let Some(p) = portal.pending.as_mut() {
            return self.emit_pending(
                p,
                &portal.stmt,
                &portal.formats,
                max_rows,
                out,
                &mut portal.done,
            );
        }
        if portal.done {
            out.push(BackendMsg::CommandComplete(CommandTag::Rows(
                RowsCommand::Select,
                0,
            )));
            return Ok(());
        }
        match &stmt.body {
            StmtBody::Empty => {
                out.push(BackendMsg::EmptyQueryResponse);
                Ok(())
            }
            StmtBody::Utility => {
                let node = stmt.raw.stmt.as_ref().and_then(|n| n.node.as_ref());
                let node = node.ok_or_else(|| DbError::internal("empty statement node"))?;
                let mut rows = RowOut {
                    out,
                    describe: false,
                    formats: portal.formats.clone(),
                };
                portal.done = true;
                let params = portal.params.clone();
                let (start, track) = (Instant::now(), self.settings.view().track_utility);
                utility::execute(self, &stmt.text, &stmt.raw, node, &params, &mut rows)?;
                self.utility_done(&stmt.text, &stmt.raw, node, (start, track), rows.out);
                Ok(())
            }
            StmtBody::Query(prepared) if max_rows == 0 => {
                let fresh = self.current_of_plan(&stmt)?;
                let prepared = fresh.as_ref().unwrap_or(prepared);
                let mut rows = RowOut {
                    out,
                    describe: false,
                    formats: portal.formats.clone(),
                };
                let tag = self.run_prepared(prepared, &portal.params, &mut rows, None)?;
                portal.done = true;
                out.push(BackendMsg::CommandComplete(tag));
                Ok(())
            }
            StmtBody::Query(prepared) => {
                let fresh = self.current_of_plan(&stmt)?;
                let prepared = fresh.as_ref().unwrap_or(prepared);
                let mut buf: Vec<Vec<Value>> = Vec::new();
                let start = self.observed().then(Instant::now);
                let (r, notices) = self.with_statement(|ctx| {
                    let sp = ctx.txn.savepoint_stats().defined;
                    let tag = nestor_exec::execute(ctx, prepared, &portal.params, &mut buf)?;
                    Ok((tag, ctx.txn.savepoint_stats().defined.saturating_sub(sp)))
                });
                out.extend(notices.into_iter().map(BackendMsg::Notice));
                let (tag, savepoints) = r?;
                if let Some(start) = start {
                    self.statement_done(prepared, start, tag, savepoints);
                }
                let mut pending = Pending {
                    rows: buf.into(),
                    tag,
                };
                self.emit_pending(
                    &mut pending,
                    &stmt,
                    &portal.formats,
                    max_rows,
                    out,
                    &mut portal.done,
                )?;
                if !portal.done {
                    portal.pending = Some(pending);
                }
                Ok(())
            }
        }
    }

    fn emit_pending(
        &mut self,
        p: &mut Pending,
        stmt: &PreparedStmt,
        formats: &[FormatCode],
        max_rows: u32,
        out: &mut Vec<BackendMsg>,
        done: &mut bool,
    ) -> Result<(), DbError> {
        let codec = self.eval_ctx();
        let types = column_types(stmt.columns.as_deref());
        let n = if max_rows == 0 {
            p.rows.len()
        } else {
            (max_rows as usize).min(p.rows.len())
        };
        for row in p.rows.drain(..n) {
            out.push(BackendMsg::DataRow(encode::encode_row(
                &codec, &row, &types, formats,
            )));
        }
        if p.rows.is_empty() && (max_rows == 0 || n < max_rows as usize || n == 0) {
            out.push(BackendMsg::CommandComplete(chunk_tag(p.tag, n)));
            *done = true;
        } else if p.rows.is_empty() {
            // Exactly max_rows were left: PostgreSQL still suspends once.
            out.push(BackendMsg::PortalSuspended);
            p.tag = chunk_tag(p.tag, 0);
        } else {
            out.push(BackendMsg::PortalSuspended);
        }
        Ok(())
    }

    // ----- registry publishing ---------------------------------------------

    fn set_active(&self, text: &str) {
        let now = now_us();
        let mut a = self.shared.activity.lock();
        a.state = "active";
        // Most statements repeat the last one's text (prepared statements,
        // a driver's BEGIN/COMMIT): keep the copy, and its allocation.
        let text = clip_query(text);
        if a.query != text {
            a.query.clear();
            a.query.push_str(text);
        }
        a.query_start_us = Some(now);
        a.state_change_us = Some(now);
        if a.xact_start_us.is_none() {
            a.xact_start_us = Some(now);
        }
        a.long_txn_warning_ms = self.settings.view().long_transaction_warning_ms;
    }

    fn set_idle(&self) {
        let state = match self.block.state() {
            BlockState::Idle | BlockState::Implicit => "idle",
            BlockState::InBlock => "idle in transaction",
            BlockState::Failed => "idle in transaction (aborted)",
        };
        let mut a = self.shared.activity.lock();
        a.state = state;
        a.state_change_us = Some(now_us());
        let app = &self.settings.view().application_name;
        if a.application_name != *app {
            a.application_name.clone_from(app);
        }
        a.long_txn_warning_ms = self.settings.view().long_transaction_warning_ms;
        if self.block.txn().is_none() {
            a.xact_start_us = None;
            a.xid = nestor_common::Xid::NONE;
            a.snapshot_xmin = None;
            a.snapshot_start_us = None;
            a.savepoint_depth = 0;
        }
    }

    /// Publish the transaction's xid and savepoint counters.
    pub(crate) fn publish_txn(&self) {
        let mut a = self.shared.activity.lock();
        match self.block.txn() {
            Some(t) => {
                let s = t.savepoint_stats();
                a.xid = t.xid();
                a.savepoint_depth = s.depth as u64;
                a.savepoints_defined = s.defined;
                a.savepoint_rollbacks = s.rollbacks_to;
            }
            None => a.xid = nestor_common::Xid::NONE,
        }
    }
}

impl Session {
    /// Bring the session's "sessions" count up to date when its number of
    /// prepared statements or portals changed (at each ReadyForQuery: two
    /// length reads when nothing changed).
    fn count_memory(&mut self) {
        let shape = (self.statements.len(), self.portals.len());
        if self.mem_counted.0 != 0 && shape == self.mem_counted.1 {
            return;
        }
        let bytes =
            SESSION_BASE_BYTES + shape.0 * PREPARED_STATEMENT_BYTES + shape.1 * PORTAL_BYTES;
        nestor_common::memory::add(
            nestor_common::memory::Category::Sessions,
            bytes as i64 - self.mem_counted.0 as i64,
        );
        self.mem_counted = (bytes, shape);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        nestor_common::memory::add(
            nestor_common::memory::Category::Sessions,
            -(self.mem_counted.0 as i64),
        );
        self.block.abandon(&mut self.settings);
        self.catalog.drop_temp_objects(&self.engine.store);
        self.engine.txn.locks.unlock_session_all(self.info.pid);
        self.engine.catalog.forget_session(self.info.pid);
        self.engine.sessions.unregister(self.info.pid);
    }
}

fn interrupt_check(shared: &SessionShared, deadline: Option<Instant>) -> Result<(), TxnError> {
    if shared.terminated.load(Ordering::SeqCst) {
        return Err(TxnError::Terminated);
    }
    if shared.cancel.is_cancelled() {
        return Err(TxnError::Canceled);
    }
    match deadline {
        Some(d) if Instant::now() >= d => Err(TxnError::StatementTimeout),
        _ => Ok(()),
    }
}

/// The wire types of a statement's result columns.
fn column_types(cols: Option<&[ColumnDesc]>) -> Vec<DataType> {
    cols.map(|c| c.iter().map(|c| encode::wire_type(c.type_oid)).collect())
        .unwrap_or_default()
}

fn empty_stmt(text: Arc<str>) -> PreparedStmt {
    PreparedStmt {
        text,
        raw: RawStmt::default(),
        body: StmtBody::Empty,
        param_types: Vec::new(),
        columns: None,
        info: None,
    }
}

fn is_exit_stmt(stmt: &PreparedStmt) -> bool {
    match (
        &stmt.body,
        stmt.raw.stmt.as_ref().and_then(|n| n.node.as_ref()),
    ) {
        (StmtBody::Utility, Some(node)) => utility::is_txn_exit(node),
        _ => false,
    }
}

pub(crate) fn duplicate_statement(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicatePreparedStatement,
        format!("prepared statement \"{name}\" already exists"),
    )
}

fn missing_portal(name: &str) -> DbError {
    DbError::new(
        SqlState::InvalidCursorName,
        format!("portal \"{name}\" does not exist"),
    )
}

/// Streams result rows as DataRow messages. They wait in `out` until the
/// wire layer writes the batch, so their bytes are checked against the
/// memory budget as they grow (a result larger than the server can hold
/// fails with 53200 instead of taking the process down).
struct DataRowSink<'a> {
    out: &'a mut Vec<BackendMsg>,
    codec: nestor_types::EvalCtx,
    types: Vec<DataType>,
    formats: &'a [FormatCode],
    growth: nestor_common::memory::Growth,
    /// Index of the RowDescription a simple query sent in `out`, while no
    /// row followed it: a re-planned statement may still replace it.
    described: Option<usize>,
}

impl RowSink for DataRowSink<'_> {
    fn row(&mut self, row: Vec<Value>) -> Result<(), DbError> {
        self.described = None;
        let enc = encode::encode_row(&self.codec, &row, &self.types, self.formats);
        self.growth.grow(encoded_bytes(&enc))?;
        self.out.push(BackendMsg::DataRow(enc));
        Ok(())
    }

    fn columns_changed(&mut self, columns: &[ColumnDesc]) -> Result<(), DbError> {
        let Some(at) = self.described else {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "cached plan must not change result type",
            ));
        };
        assert!(
            matches!(self.out.get(at), Some(BackendMsg::RowDescription(_))),
            "a described query's RowDescription is where it was put"
        );
        self.out[at] = BackendMsg::RowDescription(encode::field_descs(columns, &[]));
        self.types = column_types(Some(columns));
        Ok(())
    }
}

/// Bytes a DataRow's fields take (with a vector header each).
fn encoded_bytes(fields: &[Option<Vec<u8>>]) -> usize {
    fields
        .iter()
        .map(|f| 24 + f.as_ref().map_or(0, Vec::len))
        .sum::<usize>()
        + 24
}

/// pg_stat_activity.query keeps this many bytes of a statement's text, as
/// PostgreSQL's default track_activity_query_size (1024 bytes with the
/// terminating NUL) does.
const ACTIVITY_QUERY_BYTES_MAX: usize = 1023;

/// `text` cut to [`ACTIVITY_QUERY_BYTES_MAX`] at a character boundary.
fn clip_query(text: &str) -> &str {
    if text.len() <= ACTIVITY_QUERY_BYTES_MAX {
        return text;
    }
    let mut end = ACTIVITY_QUERY_BYTES_MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
