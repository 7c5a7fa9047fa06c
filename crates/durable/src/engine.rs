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
    /// User names that are superusers (no roles yet).
    pub superusers: Vec<String>,
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
            superusers: vec!["postgres".to_string()],
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
    _dir_lock: Option<DirLock>,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Result<Arc<Engine>, DbError> {
        let dir_lock = if config.durable {
            Some(durable::lock_data_dir(&config.data_dir)?)
        } else {
            None
        };
        let log = Arc::new(SwitchLog::default());
        let db = Arc::new(Database::new(config.max_connections, log.clone()));
        db.sessions.set_superusers(
            config.superuser_reserved_connections,
            config.superusers.clone(),
        );
        let durable = config.durable;
        let engine = Arc::new(Engine {
            config,
            db,
            checkpoint_lock: Mutex::new(()),
            stopping: Arc::new(AtomicBool::new(false)),
            checkpoint_lsn: AtomicU64::new(0),
            _dir_lock: dir_lock,
        });
        if durable {
            let report = durable::recover(&engine, &log)?;
            eprintln!(
                "recovered: checkpoint at csn {}, {} transactions replayed from the WAL in {} ms{}",
                report.checkpoint_csn,
                report.wal_transactions,
                report.millis,
                report
                    .torn_tail_cut
                    .map(|t| format!("; torn WAL tail cut in {t}"))
                    .unwrap_or_default()
            );
            durable::start_checkpointer(
                &engine,
                engine.config.checkpoint_timeout,
                engine.config.max_wal_bytes,
            );
        }
        durable::start_pruner(&engine);
        Ok(engine)
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

    /// Clean shutdown: stop background work and write a checkpoint so the
    /// next start replays nothing.
    pub fn shutdown(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        if self.config.durable {
            // Bounded: a session still blocked with uncommitted DDL must not
            // keep the process from exiting (recovery replays the WAL).
            if let Err(e) = durable::checkpoint(self, Some(Duration::from_secs(5))) {
                eprintln!("shutdown checkpoint failed: {}", e.message);
            }
        }
    }

    pub(crate) fn mark_recovered(&self, end_lsn: Lsn) {
        self.checkpoint_lsn.store(end_lsn.0, Ordering::SeqCst);
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

impl std::ops::Deref for Engine {
    type Target = Database;

    fn deref(&self) -> &Database {
        &self.db
    }
}
