//! Registry of live sessions: pg_stat_activity, cancel, terminate and the
//! max_connections limit with its reserve for superusers.
//!
//! As in PostgreSQL, the last `superuser_reserved` of the `max_connections`
//! slots are for superuser roles: another role is refused with 53300
//! "remaining connection slots are reserved for non-replication superuser
//! connections" once only those are free, and everyone with 53300 "sorry,
//! too many clients already" once none is. A role's CONNECTION LIMIT is
//! checked here too (53300 "too many connections for role"; superusers are
//! exempt, as in PostgreSQL).
//!
//! Each session owns its state privately (the transaction, portals,
//! settings) and *publishes* a small [`SessionShared`] record here: the
//! cancel token, the terminate flag, and an activity record it updates at
//! statement boundaries (state, query text, times, xid, savepoint counters).
//! Other threads only read that record, so a monitoring query never touches
//! a running session's transaction. Two things are read live rather than
//! published: the snapshot slot (what the session's snapshot holds back) and
//! the lock wait (`locks.waiting_for(xid)`), because they change in the
//! middle of a statement and a monitor wants them exactly then.
//!
//! `backend_xmin` is shown as an XID-like number: the value of the XID
//! counter when the session's current snapshot was taken. Every XID below
//! it started before the snapshot, it stays fixed while the snapshot is
//! held (one statement under READ COMMITTED, the whole transaction under
//! REPEATABLE READ), and `age()`-style monitoring of long snapshots works as
//! with PostgreSQL's backend_xmin.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use nestor_common::{DbError, SessionId, SqlState, Xid};
use nestor_txn::{LockKey, SnapshotSlot, TxnManager};
use parking_lot::Mutex;

use crate::notify::{ListenOp, Notification};

/// Set from another thread to cancel the session's running statement.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// A row of pg_stat_activity.
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
    /// When the snapshot the session holds was taken (microseconds since
    /// 2000-01-01), while it holds one.
    pub snapshot_start_us: Option<i64>,
    pub query: String,
    /// Savepoint view: open depth, defined this transaction, ROLLBACK TOs.
    pub savepoint_depth: u64,
    pub savepoints_defined: u64,
    pub savepoint_rollbacks: u64,
    /// pg_stat_ssl: the connection's TLS, if any.
    pub ssl: Option<SslInfo>,
}

/// A TLS connection's protocol and cipher as PostgreSQL (OpenSSL) names
/// them, for pg_stat_ssl.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SslInfo {
    /// "TLSv1.3", "TLSv1.2".
    pub version: String,
    /// "TLS_AES_256_GCM_SHA384", "ECDHE-RSA-AES128-GCM-SHA256", ...
    pub cipher: String,
    /// Key bits of the cipher.
    pub bits: i32,
}

/// What a session publishes about itself; see [`ActivityRow`].
#[derive(Clone, Debug, Default)]
pub struct Activity {
    pub application_name: String,
    pub state: &'static str,
    pub query: String,
    pub xact_start_us: Option<i64>,
    pub query_start_us: Option<i64>,
    pub state_change_us: Option<i64>,
    pub xid: Xid,
    /// XID counter when the held snapshot was taken (see module header).
    pub snapshot_xmin: Option<u64>,
    /// When the held snapshot was taken: the start of the statement that
    /// took it (microseconds since 2000-01-01).
    pub snapshot_start_us: Option<i64>,
    /// Explicit wait event set by the executor (pg_sleep), if any.
    pub wait_event: Option<(&'static str, &'static str)>,
    pub savepoint_depth: u64,
    pub savepoints_defined: u64,
    pub savepoint_rollbacks: u64,
    /// The session's nestor.long_transaction_warning in milliseconds (0:
    /// off), and the transaction start it has warned about.
    pub long_txn_warning_ms: u64,
    pub long_txn_warned_for: Option<i64>,
}

/// Resolves once the session is terminated (pg_terminate_backend) or a
/// notification arrived for it since the last time it resolved: what an
/// idle connection waits on, instead of polling the flags.
/// Runtime-agnostic (a plain `Future`); the flags are checked again after
/// the waker is stored, so an event between the two is not lost.
pub struct TerminateSignal(pub Arc<SessionShared>);

impl Future for TerminateSignal {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let s = &self.0;
        let ready =
            || s.terminated.load(Ordering::SeqCst) || s.notify_wake.swap(false, Ordering::SeqCst);
        if ready() {
            return Poll::Ready(());
        }
        *s.terminate_waker.lock() = Some(cx.waker().clone());
        if ready() {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

/// The shared half of one session.
pub struct SessionShared {
    pub pid: SessionId,
    pub secret_key: i32,
    pub user: String,
    pub database: String,
    pub client_addr: Option<String>,
    pub backend_start_us: i64,
    pub cancel: CancelToken,
    pub terminated: AtomicBool,
    /// Woken by [`Registry::terminate`]: the wire layer's idle wait for this
    /// session (see [`TerminateSignal`]).
    pub terminate_waker: Mutex<Option<Waker>>,
    pub slot: Arc<SnapshotSlot>,
    pub mgr: Arc<TxnManager>,
    pub activity: Mutex<Activity>,
    /// Notifications delivered to this session and not yet sent
    /// (crate::notify).
    pub notifications: Mutex<VecDeque<Notification>>,
    /// Set when one arrives; cleared by the idle wait that wakes for it.
    pub notify_wake: AtomicBool,
    /// The channels it listens on (committed LISTENs).
    pub listening: Mutex<Vec<String>>,
    /// Its named prepared statements (SQL PREPARE and protocol-level
    /// Parse), as pg_prepared_statements shows them to the session itself.
    pub prepared: Mutex<Vec<Arc<PreparedInfo>>>,
    /// Its open cursors (SQL DECLARE), as pg_cursors shows them to the
    /// session itself.
    pub cursors: Mutex<Vec<CursorInfo>>,
    /// The connection's TLS (set at start, never changed).
    pub ssl: Option<SslInfo>,
    /// The session's identity in the server log, for lines other threads
    /// write about it (weak: the log identity reads this entry).
    pub log: std::sync::OnceLock<std::sync::Weak<nestor_common::log::SessionLog>>,
}

/// An open cursor as pg_cursors shows it.
#[derive(Clone, Debug)]
pub struct CursorInfo {
    pub name: String,
    /// The query string the DECLARE came in (PostgreSQL keeps the whole
    /// string, as for PREPARE).
    pub statement: Arc<str>,
    pub holdable: bool,
    pub binary: bool,
    pub scrollable: bool,
    /// Microseconds since 2000-01-01 UTC.
    pub creation_time_us: i64,
}

/// A named prepared statement as pg_prepared_statements shows it.
#[derive(Debug)]
pub struct PreparedInfo {
    pub name: String,
    /// The query string the client sent to create it (for PREPARE, the
    /// whole string the PREPARE came in, as PostgreSQL keeps it).
    pub statement: Arc<str>,
    /// Microseconds since 2000-01-01 UTC.
    pub prepare_time_us: i64,
    /// Parameter type OIDs, as inferred.
    pub param_types: Vec<u32>,
    /// Created by SQL PREPARE (not the protocol's Parse).
    pub from_sql: bool,
    /// Times it was executed. Nestor plans a statement once, without its
    /// parameters' values, and reuses the plan: each execution uses a
    /// generic plan in PostgreSQL's terms (generic_plans).
    pub executions: std::sync::atomic::AtomicI64,
}

/// What the server log reads about a session when it writes a line.
impl nestor_common::log::LiveFields for SessionShared {
    fn txid(&self) -> u64 {
        self.activity.lock().xid.0
    }

    fn application_name(&self) -> String {
        self.activity.lock().application_name.clone()
    }
}

impl SessionShared {
    fn row(&self) -> ActivityRow {
        let a = self.activity.lock().clone();
        let (wait_type, wait) = self.wait_event(&a);
        ActivityRow {
            pid: self.pid,
            datname: self.database.clone(),
            usename: self.user.clone(),
            application_name: a.application_name,
            client_addr: self.client_addr.clone(),
            ssl: self.ssl.clone(),
            backend_start_us: self.backend_start_us,
            xact_start_us: a.xact_start_us,
            query_start_us: a.query_start_us,
            state_change_us: a.state_change_us,
            wait_event_type: wait_type,
            wait_event: wait,
            state: a.state.to_string(),
            backend_xid: (!a.xid.is_none()).then_some(a.xid.0),
            backend_xmin: self.slot.held().and(a.snapshot_xmin),
            snapshot_start_us: self.slot.held().and(a.snapshot_start_us),
            query: a.query,
            savepoint_depth: a.savepoint_depth,
            savepoints_defined: a.savepoints_defined,
            savepoint_rollbacks: a.savepoint_rollbacks,
        }
    }

    fn wait_event(&self, a: &Activity) -> (Option<String>, Option<String>) {
        let waiting = if a.state != "active" {
            None
        } else if a.xid.is_none() {
            self.mgr.locks.waiting_for_session(self.pid)
        } else {
            // The published xid may predate the statement that assigned
            // one and is now waiting: look the wait up by session too.
            self.mgr
                .locks
                .waiting_for(a.xid)
                .or_else(|| self.mgr.locks.waiting_for_session(self.pid))
        };
        match event_of(a, waiting) {
            Some((t, e)) => (Some(t.to_string()), Some(e.to_string())),
            None => (None, None),
        }
    }
}

/// A wait event as pg_stat_activity names it (type, event); None: running
/// on CPU.
pub type WaitEvent = Option<(&'static str, &'static str)>;

/// What a session waits on, as pg_stat_activity names it: a client read
/// when idle, its lock-table wait, the executor's explicit event
/// (pg_sleep), or nothing (running).
fn event_of(a: &Activity, lock_wait: Option<LockKey>) -> WaitEvent {
    if a.state != "active" {
        return Some(("Client", "ClientRead"));
    }
    match lock_wait {
        Some(LockKey::Row(..)) => Some(("Lock", "tuple")),
        Some(LockKey::Txn(_)) => Some(("Lock", "transactionid")),
        Some(LockKey::Advisory { .. }) => Some(("Lock", "advisory")),
        Some(LockKey::Relation(_)) => Some(("Lock", "relation")),
        None => a.wait_event,
    }
}

pub struct Registry {
    pub max_connections: usize,
    sessions: Mutex<HashMap<SessionId, Arc<SessionShared>>>,
    /// LISTEN: channel -> the sessions listening on it (crate::notify).
    channels: Mutex<HashMap<String, Vec<SessionId>>>,
    /// The connection slots kept for superusers.
    reserved: std::sync::atomic::AtomicUsize,
}

/// Who is registering: what the slot checks need of the role.
#[derive(Clone, Copy, Debug)]
pub struct RoleLimits {
    pub superuser: bool,
    /// The role's CONNECTION LIMIT (-1: none).
    pub conn_limit: i32,
    /// The database's CONNECTION LIMIT (-1: none).
    pub db_conn_limit: i32,
}

impl Registry {
    pub fn new(max_connections: usize) -> Registry {
        Registry {
            max_connections,
            sessions: Mutex::new(HashMap::new()),
            channels: Mutex::new(HashMap::new()),
            reserved: Default::default(),
        }
    }

    /// Keep the last `reserved` connection slots for superusers.
    pub fn set_superuser_reserved(&self, reserved: usize) {
        self.reserved
            .store(reserved, std::sync::atomic::Ordering::Relaxed);
    }

    /// Add a session; 53300 past max_connections, into the superusers'
    /// reserve or past its role's or database's CONNECTION LIMIT (not for
    /// superusers, as in PostgreSQL), 08P01 for a reused pid.
    pub fn register(&self, shared: Arc<SessionShared>, role: RoleLimits) -> Result<(), DbError> {
        let superuser = role.superuser;
        let reserved = self.reserved.load(std::sync::atomic::Ordering::Relaxed);
        let mut g = self.sessions.lock();
        let refuse = |message: &str| {
            Err(DbError::new(SqlState::TooManyConnections, message)
                .with_severity(nestor_common::error::Severity::Fatal))
        };
        if g.len() >= self.max_connections {
            return refuse("sorry, too many clients already");
        }
        if !superuser && g.len() + reserved >= self.max_connections {
            return refuse(
                "remaining connection slots are reserved for non-replication superuser connections",
            );
        }
        if !superuser && role.conn_limit >= 0 {
            let n = g.values().filter(|s| s.user == shared.user).count();
            if n >= role.conn_limit as usize {
                return refuse(&format!(
                    "too many connections for role \"{}\"",
                    shared.user
                ));
            }
        }
        if !superuser && role.db_conn_limit >= 0 {
            let n = g.values().filter(|s| s.database == shared.database).count();
            if n >= role.db_conn_limit as usize {
                return refuse(&format!(
                    "too many connections for database \"{}\"",
                    shared.database
                ));
            }
        }
        if g.contains_key(&shared.pid) {
            return Err(DbError::new(
                SqlState::ProtocolViolation,
                format!("session id {} is already in use", shared.pid),
            ));
        }
        g.insert(shared.pid, shared);
        Ok(())
    }

    pub fn unregister(&self, pid: SessionId) {
        let gone = self.sessions.lock().remove(&pid);
        if let Some(s) = gone {
            self.apply_listen(&s, &[ListenOp::UnlistenAll]);
        }
    }

    /// A committed transaction's LISTEN / UNLISTEN, in order.
    pub fn apply_listen(&self, s: &SessionShared, ops: &[ListenOp]) {
        if ops.is_empty() {
            return;
        }
        let mut channels = self.channels.lock();
        let mut mine = s.listening.lock();
        let drop_from = |ch: &str, channels: &mut HashMap<String, Vec<SessionId>>| {
            if let Some(v) = channels.get_mut(ch) {
                v.retain(|p| *p != s.pid);
                if v.is_empty() {
                    channels.remove(ch);
                }
            }
        };
        for op in ops {
            match op {
                ListenOp::Listen(ch) => {
                    if !mine.contains(ch) {
                        mine.push(ch.clone());
                        channels.entry(ch.clone()).or_default().push(s.pid);
                    }
                }
                ListenOp::Unlisten(ch) => {
                    mine.retain(|c| c != ch);
                    drop_from(ch, &mut channels);
                }
                ListenOp::UnlistenAll => {
                    for ch in mine.drain(..) {
                        drop_from(&ch, &mut channels);
                    }
                }
            }
        }
    }

    /// 54000 if a session listening on one of `channels` is
    /// NOTIFY_QUEUE_MAX notifications behind (checked before a commit).
    pub fn check_notify_room(&self, channels: &[(String, String)]) -> Result<(), DbError> {
        if channels.is_empty() {
            return Ok(()); // the commit path of every transaction: no lock
        }
        let targets = self.listeners_of(channels);
        let sessions = self.sessions.lock();
        for pid in targets {
            let behind = sessions
                .get(&pid)
                .map_or(0, |s| s.notifications.lock().len());
            if behind >= crate::notify::NOTIFY_QUEUE_MAX {
                return Err(DbError::new(
                    SqlState::ProgramLimitExceeded,
                    "too many notifications in the NOTIFY queue",
                ));
            }
        }
        Ok(())
    }

    fn listeners_of(&self, notes: &[(String, String)]) -> Vec<SessionId> {
        let channels = self.channels.lock();
        let mut out: Vec<SessionId> = Vec::new();
        for (ch, _) in notes {
            for p in channels.get(ch).into_iter().flatten() {
                if !out.contains(p) {
                    out.push(*p);
                }
            }
        }
        out
    }

    /// After `sender`'s commit: queue its notifications for every session
    /// listening on their channels, and wake those sessions.
    pub fn deliver(&self, sender: SessionId, notes: &[(String, String)]) {
        if notes.is_empty() {
            return;
        }
        let channels = self.channels.lock().clone();
        let sessions = self.sessions.lock();
        // Channels are per database, as in PostgreSQL.
        let database = sessions.get(&sender).map(|s| s.database.clone());
        for (ch, payload) in notes {
            for pid in channels.get(ch).into_iter().flatten() {
                let Some(s) = sessions.get(pid) else { continue };
                if database.as_ref().is_some_and(|d| *d != s.database) {
                    continue;
                }
                s.notifications.lock().push_back(Notification {
                    sender,
                    channel: ch.clone(),
                    payload: payload.clone(),
                });
                s.notify_wake.store(true, Ordering::SeqCst);
                if let Some(w) = s.terminate_waker.lock().take() {
                    w.wake();
                }
            }
        }
    }

    pub fn get(&self, pid: SessionId) -> Option<Arc<SessionShared>> {
        self.sessions.lock().get(&pid).cloned()
    }

    /// Number of live sessions.
    pub fn len(&self) -> usize {
        self.sessions.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cancel the running statement of `pid`; `secret` must match when given
    /// (protocol CancelRequest), None for pg_cancel_backend.
    pub fn cancel(&self, pid: SessionId, secret: Option<i32>) -> bool {
        match self.get(pid) {
            Some(s) if secret.is_none_or(|k| k == s.secret_key) => {
                s.cancel.cancel();
                true
            }
            _ => false,
        }
    }

    /// pg_terminate_backend: the session's running statement stops with
    /// FATAL 57P01 and the wire layer closes the connection.
    pub fn terminate(&self, pid: SessionId) -> bool {
        match self.get(pid) {
            Some(s) => {
                s.terminated.store(true, Ordering::SeqCst);
                s.cancel.cancel();
                if let Some(w) = s.terminate_waker.lock().take() {
                    w.wake();
                }
                true
            }
            None => false,
        }
    }

    /// One row per live session, ordered by pid.
    /// Log a WARNING, once per transaction, for each session whose
    /// transaction has been open for its nestor.long_transaction_warning
    /// or longer (`now_us`: microseconds since 2000-01-01); such a
    /// transaction's snapshot keeps the pruner from removing dead versions.
    /// Called about once a second by the engine's pruner thread.
    pub fn warn_long_transactions(&self, now_us: i64) {
        let all: Vec<Arc<SessionShared>> = self.sessions.lock().values().cloned().collect();
        for s in all {
            let warn = {
                let mut a = s.activity.lock();
                match a.xact_start_us {
                    Some(start)
                        if a.long_txn_warning_ms > 0
                            && a.long_txn_warned_for != Some(start)
                            && now_us.saturating_sub(start)
                                >= (a.long_txn_warning_ms as i64).saturating_mul(1000) =>
                    {
                        a.long_txn_warned_for = Some(start);
                        Some((now_us - start, a.state, a.query.clone()))
                    }
                    _ => None,
                }
            };
            if let Some((age_us, state, query)) = warn {
                let message = format!(
                    "transaction of process {} has been open for {:.3} s ({state}): it holds back pruning of dead row versions",
                    s.pid.0,
                    age_us as f64 / 1e6
                );
                let detail = format!("Its last statement: {query}");
                let log = s.log.get().and_then(std::sync::Weak::upgrade);
                let mut line = nestor_common::log::Line::new("WARNING", &message).detail(&detail);
                line.session = log.as_deref();
                nestor_common::log::write(&line);
            }
        }
    }

    /// Every session's wait event now (the wait sampler's look: the lock
    /// table is asked once for all sessions).
    pub fn wait_samples(&self, locks: &nestor_txn::LockTable) -> Vec<(SessionId, WaitEvent)> {
        let all: Vec<Arc<SessionShared>> = self.sessions.lock().values().cloned().collect();
        if all.is_empty() {
            return Vec::new();
        }
        let waits: HashMap<SessionId, LockKey> = locks.waiting_sessions().into_iter().collect();
        all.iter()
            .map(|s| {
                let a = s.activity.lock();
                (s.pid, event_of(&a, waits.get(&s.pid).copied()))
            })
            .collect()
    }

    pub fn activity(&self) -> Vec<ActivityRow> {
        let all: Vec<Arc<SessionShared>> = self.sessions.lock().values().cloned().collect();
        let mut rows: Vec<ActivityRow> = all.iter().map(|s| s.row()).collect();
        rows.sort_by_key(|r| r.pid);
        rows
    }
}
