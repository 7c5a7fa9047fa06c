//! One server's database with its durability: the [`Database`] every
//! statement runs against, recovered from the data directory at start,
//! checkpointed in the background and at shutdown. One `Arc<Engine>` is
//! shared by all sessions; it dereferences to the [`Database`].

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nestor_common::{DbError, Lsn, SessionId};
use nestor_exec::Database;
use nestor_wal::SwitchLog;
use parking_lot::Mutex;

use crate as durable;
use crate::DirLock;

/// The file that marks a data directory as a replica's (PostgreSQL's
/// name): present from its base image until promotion.
pub const STANDBY_SIGNAL: &str = "standby.signal";

/// Server-wide configuration the engine needs.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub data_dir: std::path::PathBuf,
    pub max_connections: usize,
    /// Persist to `data_dir` (WAL, checkpoints, recovery). False keeps
    /// everything in memory (unit tests).
    pub durable: bool,
    /// checkpoint_timeout.
    pub checkpoint_timeout: Duration,
    /// max_wal_size: WAL bytes since the last checkpoint that trigger one.
    pub max_wal_bytes: u64,
    /// Redo a committing transaction keeps in memory before it goes to its
    /// redo file (TXN_REDO_MEMORY_BYTES_MAX by default).
    pub txn_redo_memory_bytes_max: usize,
    /// Connection slots (of `max_connections`) kept for `superusers`
    /// (PostgreSQL's superuser_reserved_connections; none by default here,
    /// `nestor` sets 3).
    pub superuser_reserved_connections: usize,
    /// Superuser roles created at start when missing (besides the
    /// bootstrap superuser `postgres`, OID 10).
    pub superusers: Vec<String>,
    /// Superuser roles created only when the catalog has no roles at all
    /// (a new data directory): the operating-system user, as initdb does.
    pub bootstrap_superusers: Vec<String>,
    /// A replica (`nestor --replica-of`): recovery leaves the log in
    /// apply-only mode and sessions read-only until promotion.
    pub replica: bool,
    /// WAL a primary keeps for replicas that may still ask for it
    /// (REPLICA_WAL_KEEP_BYTES_MAX by default).
    pub replica_wal_keep_bytes_max: u64,
    /// Walsenders at once (max_wal_senders).
    pub wal_senders_max: usize,
    /// The wait sampler's period (WAIT_SAMPLING_PERIOD_MS by default);
    /// None: no sampling.
    pub wait_sampling_period: Option<Duration>,
}

impl EngineConfig {
    /// A durable engine on `data_dir` with default settings.
    pub fn durable(data_dir: std::path::PathBuf, max_connections: usize) -> EngineConfig {
        EngineConfig {
            data_dir,
            max_connections,
            durable: true,
            checkpoint_timeout: Duration::from_millis(durable::CHECKPOINT_TIMEOUT_MS_DEFAULT),
            max_wal_bytes: durable::MAX_WAL_BYTES_DEFAULT,
            txn_redo_memory_bytes_max: nestor_common::limits::TXN_REDO_MEMORY_BYTES_MAX,
            superuser_reserved_connections: 0,
            superusers: Vec::new(),
            bootstrap_superusers: Vec::new(),
            replica: false,
            replica_wal_keep_bytes_max: nestor_common::limits::REPLICA_WAL_KEEP_BYTES_MAX,
            wal_senders_max: nestor_common::limits::WAL_SENDERS_MAX,
            wait_sampling_period: Some(Duration::from_millis(
                nestor_common::limits::WAIT_SAMPLING_PERIOD_MS,
            )),
        }
    }

    /// An in-memory engine (nothing is written anywhere).
    pub fn in_memory(max_connections: usize) -> EngineConfig {
        EngineConfig {
            durable: false,
            ..EngineConfig::durable(std::env::temp_dir(), max_connections)
        }
    }
}

pub struct Engine {
    pub config: EngineConfig,
    pub db: Arc<Database>,
    pub(crate) checkpoint_lock: Mutex<()>,
    pub(crate) stopping: durable::StopFlag,
    checkpoint_lsn: AtomicU64,
    /// Checkpoints written since the start, and how long the last one took
    /// (microseconds), for the metrics endpoint.
    checkpoints: AtomicU64,
    last_checkpoint_micros: AtomicU64,
    /// A replica's last applied commit (its checkpoints cut here).
    pub(crate) applied: Mutex<crate::replica::Applied>,
    /// System identifier and timeline (`DIR/identity`).
    identity: Mutex<Identity>,
    _dir_lock: Option<DirLock>,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Result<Arc<Engine>, DbError> {
        let dir_lock = if config.durable {
            Some(durable::lock_data_dir(&config.data_dir)?)
        } else {
            None
        };
        let identity = if config.durable {
            Identity::load_or_create(&config.data_dir)?
        } else {
            Identity::new_random()
        };
        let log = Arc::new(SwitchLog::default());
        let db = Arc::new(Database::new(config.max_connections, log.clone()));
        db.sessions
            .set_superuser_reserved(config.superuser_reserved_connections);
        let durable = config.durable;
        let engine = Arc::new(Engine {
            config,
            db,
            checkpoint_lock: Mutex::new(()),
            stopping: Arc::new(AtomicBool::new(false)),
            checkpoint_lsn: AtomicU64::new(0),
            checkpoints: AtomicU64::new(0),
            last_checkpoint_micros: AtomicU64::new(0),
            applied: Mutex::new(Default::default()),
            identity: Mutex::new(identity),
            _dir_lock: dir_lock,
        });
        if durable {
            let report = durable::recover(&engine, &log)?;
            nestor_common::log::log(&format!(
                "recovered: checkpoint at csn {}, {} transactions replayed from the WAL in {} ms{}",
                report.checkpoint_csn,
                report.wal_transactions,
                report.millis,
                report
                    .torn_tail_cut
                    .map(|t| format!("; torn WAL tail cut in {t}"))
                    .unwrap_or_default()
            ));
            durable::start_checkpointer(
                &engine,
                engine.config.checkpoint_timeout,
                engine.config.max_wal_bytes,
            );
        }
        if !engine.config.replica {
            engine.bootstrap_roles()?;
        }
        durable::start_pruner(&engine);
        if let Some(period) = engine.config.wait_sampling_period {
            durable::start_wait_sampler(&engine, period);
        }
        Ok(engine)
    }

    /// Create the bootstrap superuser `postgres` (OID 10, as after
    /// PostgreSQL's initdb) and the configured superusers if they are
    /// missing, in one logged transaction. On a data directory that has
    /// them (every start but the first) this does nothing.
    fn bootstrap_roles(&self) -> Result<(), DbError> {
        use nestor_catalog::{Change, RoleDef, BOOTSTRAP_SUPERUSER_OID};
        let cat = &self.db.catalog;
        let mut missing = Vec::new();
        let first = cat.roles().is_empty();
        let bootstrap = nestor_common::RelId(BOOTSTRAP_SUPERUSER_OID);
        if cat.role_by_oid(bootstrap).is_none() && cat.role("postgres").is_none() {
            missing.push(RoleDef::superuser(bootstrap, "postgres"));
        }
        let wanted = self.config.superusers.iter().chain(
            first
                .then_some(&self.config.bootstrap_superusers)
                .into_iter()
                .flatten(),
        );
        for name in wanted {
            if cat.role(name).is_none() && !missing.iter().any(|r| &r.name == name) {
                missing.push(RoleDef::superuser(cat.alloc_oid(), name));
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let store: Arc<dyn nestor_txn::DataStore> = self.db.store.clone();
        let mut txn = nestor_txn::Transaction::begin(
            self.db.txn.clone(),
            store,
            self.db.txn.register_slot(),
            nestor_common::SessionId(0),
            nestor_txn::Isolation::ReadCommitted,
        );
        for role in missing {
            cat.apply(&mut txn, &self.db.store, Change::PutRole(Arc::new(role)))?;
        }
        txn.commit();
        Ok(())
    }

    /// CHECKPOINT (also run by the checkpointer and at clean shutdown).
    pub fn checkpoint(&self) -> Result<(), DbError> {
        durable::checkpoint(self, None).map(|_| ())
    }

    /// CHECKPOINT that waits at most `wait` for transactions with schema
    /// changes to end (then fails with 55006, naming why).
    pub fn checkpoint_within(&self, wait: Duration) -> Result<(), DbError> {
        durable::checkpoint(self, Some(wait)).map(|_| ())
    }

    /// The server is stopping: background threads (checkpointer, pruner,
    /// a replica's walreceiver) end at their next look.
    pub fn begin_shutdown(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.replication.shut_down();
    }

    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Clean shutdown: stop background work and write a checkpoint so the
    /// next start replays nothing.
    pub fn shutdown(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        if self.config.durable {
            // Bounded: a session still blocked with uncommitted DDL must not
            // keep the process from exiting (recovery replays the WAL).
            if let Err(e) = durable::checkpoint(self, Some(Duration::from_secs(5))) {
                nestor_common::log::warning(&format!("shutdown checkpoint failed: {}", e.message));
            }
        }
    }

    /// Turn this replica into a primary at the end of the log it has (the
    /// walreceiver has stopped and applied everything it flushed). XIDs
    /// and CSNs continue after the primary's; `standby.signal` is removed
    /// so a restart comes up as a primary; then sessions may write.
    pub fn promote(&self) -> Result<(), DbError> {
        let Some(wal) = self.db.log.wal() else {
            return Err(DbError::new(
                nestor_common::SqlState::ObjectNotInPrerequisiteState,
                "promotion requested before recovery finished",
            ));
        };
        let applied = *self.applied.lock();
        self.txn.advance_after_recovery(
            nestor_common::Xid(applied.max_xid.saturating_add(1)),
            nestor_common::Csn(wal.last_csn().max(applied.csn)),
        );
        {
            let mut id = self.identity.lock();
            id.timeline += 1;
            let tl = id.timeline;
            id.history.push((tl, wal.next_lsn()));
            id.save(&self.config.data_dir)?;
        }
        self.db.log.end_apply_only();
        let signal = self.config.data_dir.join(STANDBY_SIGNAL);
        match std::fs::remove_file(&signal) {
            Ok(()) => nestor_wal::sync_dir(&self.config.data_dir)
                .map_err(|e| DbError::new(nestor_common::SqlState::IoError, e.to_string()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(durable::io_error(&signal, e)),
        }
        self.replication.promotion_done();
        nestor_common::log::log(&format!(
            "promoted: this server is now a primary on timeline {}; its log continues at {}",
            self.timeline(),
            wal.next_lsn().pg_text()
        ));
        Ok(())
    }

    /// The data directory's system identifier (IDENTIFY_SYSTEM): a replica
    /// has its primary's, and refuses to stream from any other.
    pub fn system_id(&self) -> u64 {
        self.identity.lock().system_id
    }

    /// The timeline: 1, plus one for each promotion in this directory's
    /// history (a promoted replica's log forks from its old primary's).
    pub fn timeline(&self) -> u32 {
        self.identity.lock().timeline
    }

    /// The timeline history (see [`Identity`]).
    pub fn identity(&self) -> Identity {
        self.identity.lock().clone()
    }

    /// A replica following a primary on a newer timeline takes on its
    /// timeline and history.
    pub fn adopt_timeline(&self, timeline: u32, history: Vec<(u32, Lsn)>) -> Result<(), DbError> {
        let mut id = self.identity.lock();
        if timeline <= id.timeline {
            return Ok(());
        }
        id.timeline = timeline;
        id.history = history;
        id.save(&self.config.data_dir)
    }

    pub(crate) fn mark_recovered(&self, end_lsn: Lsn) {
        self.checkpoint_lsn.store(end_lsn.0, Ordering::SeqCst);
    }

    pub(crate) fn note_checkpoint_done(&self, took: Duration) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.last_checkpoint_micros.store(us, Ordering::Relaxed);
        self.checkpoints.fetch_add(1, Ordering::Relaxed);
    }

    /// Checkpoints written since the server started (the shutdown one
    /// included), and the duration of the last one (zero before any).
    pub fn checkpoint_stats(&self) -> (u64, Duration) {
        (
            self.checkpoints.load(Ordering::Relaxed),
            Duration::from_micros(self.last_checkpoint_micros.load(Ordering::Relaxed)),
        )
    }

    pub(crate) fn note_checkpoint(&self, lsn: Lsn) {
        self.checkpoint_lsn.store(lsn.0, Ordering::SeqCst);
    }

    /// WAL written since the last checkpoint's cut.
    pub(crate) fn wal_bytes_since_checkpoint(&self) -> u64 {
        self.db.log.wal().map_or(0, |w| {
            let from = self.checkpoint_lsn.load(Ordering::SeqCst);
            w.next_lsn().0.saturating_sub(from) + w.redo_file_bytes_from(Lsn(from))
        })
    }

    /// CancelRequest from the wire: cancel the running statement of session
    /// `pid` if `secret` matches. Returns whether a session was signalled.
    pub fn cancel_request(&self, pid: SessionId, secret: i32) -> bool {
        self.sessions.cancel(pid, Some(secret))
    }
}

/// Who a data directory is: `DIR/identity`, the text
/// `system_id timeline [tl:switch_lsn ...]`, written once at creation (or
/// copied from the primary with a base image), at each promotion, and when
/// a replica follows a primary onto a newer timeline. The history lists,
/// for every timeline after the first, the LSN where it began (PostgreSQL's
/// timeline history files, in one line).
#[derive(Clone, Debug)]
pub struct Identity {
    pub system_id: u64,
    pub timeline: u32,
    /// (timeline, LSN where it began), oldest first.
    pub history: Vec<(u32, Lsn)>,
}

impl Identity {
    const FILE: &'static str = "identity";

    /// A new system: PostgreSQL's recipe (seconds and microseconds of
    /// the creation time, and the pid) gives a unique-enough id.
    pub fn new_random() -> Identity {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let id = (now.as_secs() << 32)
            | (u64::from(now.subsec_micros()) << 12)
            | u64::from(std::process::id() & 0xFFF);
        Identity {
            system_id: id,
            timeline: 1,
            history: Vec::new(),
        }
    }

    /// Where timeline `tl` began (None for timeline 1 or one not in the
    /// history).
    pub fn began(&self, tl: u32) -> Option<Lsn> {
        self.history.iter().find(|h| h.0 == tl).map(|h| h.1)
    }

    pub fn load(dir: &std::path::Path) -> Result<Option<Identity>, DbError> {
        let path = dir.join(Self::FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(durable::io_error(&path, e)),
        };
        let bad = || {
            DbError::new(
                nestor_common::SqlState::DataCorrupted,
                format!("identity file \"{}\" is damaged: {text:?}", path.display()),
            )
        };
        let mut words = text.split_whitespace();
        let system_id = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
        let timeline: u32 = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
        let mut history = Vec::new();
        for w in words {
            let entry = match w.split_once(':') {
                Some((tl, lsn)) => (tl.parse().ok(), Lsn::parse_pg(lsn)),
                // The first format: the current timeline's start alone.
                None => (Some(timeline), Lsn::parse_pg(w)),
            };
            match entry {
                (Some(tl), Some(lsn)) => history.push((tl, lsn)),
                _ => return Err(bad()),
            }
        }
        Ok(Some(Identity {
            system_id,
            timeline,
            history,
        }))
    }

    /// The history as TIMELINE_HISTORY sends it: PostgreSQL's history
    /// file lines, `parent_timeline<TAB>switch_lsn<TAB>reason`.
    pub fn history_file(&self) -> String {
        self.history
            .iter()
            .map(|(tl, lsn)| format!("{}\t{}\tpromotion\n", tl - 1, lsn.pg_text()))
            .collect()
    }

    /// Parse what [`Identity::history_file`] writes.
    pub fn parse_history_file(text: &str) -> Option<Vec<(u32, Lsn)>> {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let mut f = l.split('\t');
                let parent: u32 = f.next()?.trim().parse().ok()?;
                let lsn = Lsn::parse_pg(f.next()?.trim())?;
                Some((parent + 1, lsn))
            })
            .collect()
    }

    fn load_or_create(dir: &std::path::Path) -> Result<Identity, DbError> {
        if let Some(id) = Identity::load(dir)? {
            return Ok(id);
        }
        let id = Identity::new_random();
        id.save(dir)?;
        Ok(id)
    }

    /// Write the file durably (temporary name, fsync, rename, fsync dir).
    pub fn save(&self, dir: &std::path::Path) -> Result<(), DbError> {
        let path = dir.join(Self::FILE);
        let tmp = dir.join("identity.tmp");
        let mut text = format!("{} {}", self.system_id, self.timeline);
        for (tl, lsn) in &self.history {
            text.push_str(&format!(" {tl}:{}", lsn.pg_text()));
        }
        text.push('\n');
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            std::fs::File::open(dir)?.sync_all()
        };
        write().map_err(|e| durable::io_error(&path, e))
    }
}

impl std::ops::Deref for Engine {
    type Target = Database;

    fn deref(&self) -> &Database {
        &self.db
    }
}
