//! The memory budget (`nestor --memory-limit`): tables live in memory, so a
//! write that would take the process past its limit fails with PostgreSQL's
//! `53200 out of memory` instead of the allocator failing and aborting the
//! process with every session in it.
//!
//! What is counted is what the process has allocated, measured by a probe
//! the server installs (jemalloc's `stats.allocated`, or the resident set
//! where another allocator is built in): table versions, indexes, undo and
//! redo buffers, sessions and query memory alike. A background thread
//! refreshes the measurement every PRUNE_INTERVAL_MS ([`refresh`]); a write
//! checks the last measurement ([`check_write`], one atomic load), so a
//! single statement may overshoot the limit by what it allocates in one
//! interval, which the default limit's headroom (80 % of the machine's or
//! the cgroup's memory) absorbs. Reads are never refused; memory frees as
//! rows are deleted and their versions pruned.
//!
//! Per statement, the executor bounds its working memory (sorts, hash
//! tables, materialised results) by `nestor.query_memory_max` and checks
//! the budget as that memory grows ([`check_query`]; nestor_exec's
//! `workmem`), so a read that would take the process down fails with
//! 53200 too. Buffers PostgreSQL would stream (an INSERT's source rows,
//! result rows waiting for the socket) are checked against the budget only
//! ([`Growth`]).
//!
//! What holds the memory is counted by [`Category`]: counters the paths
//! that allocate maintain ([`add`]), one relaxed atomic add per change on
//! its own cache line, read by the nestor_memory view. They are estimates
//! of the bytes held (sizes of what the structures hold, not the
//! allocator's overhead); the measured total above is the truth the
//! budget is enforced on.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::error::{DbError, SqlState};

static LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);
static USED: AtomicU64 = AtomicU64::new(0);
static PROBE: OnceLock<Probe> = OnceLock::new();

/// How the server measures its memory: a name for the nestor_memory view
/// and the function that reads it.
pub struct Probe {
    pub source: &'static str,
    pub read: fn() -> Option<u64>,
}

/// Install the measurement (once, at start-up) and the limit in bytes.
pub fn configure(limit_bytes: u64, probe: Probe) {
    LIMIT.store(limit_bytes, Ordering::Relaxed);
    let _ = PROBE.set(probe);
    refresh();
}

/// Take a new measurement (the pruner's tick).
pub fn refresh() {
    if let Some(bytes) = PROBE.get().and_then(|p| (p.read)()) {
        USED.store(bytes, Ordering::Relaxed);
    }
}

/// The limit in bytes (u64::MAX: none).
pub fn limit_bytes() -> u64 {
    LIMIT.load(Ordering::Relaxed)
}

/// The last measurement, in bytes.
pub fn used_bytes() -> u64 {
    USED.load(Ordering::Relaxed)
}

/// Where the measurement comes from ("none" without a probe).
pub fn source() -> &'static str {
    PROBE.get().map_or("none", |p| p.source)
}

/// What holds memory (nestor_memory's categories).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// Row versions and the tables' row slots.
    TableVersions,
    /// Index entries.
    Indexes,
    /// Open transactions' undo logs.
    UndoLogs,
    /// Committing transactions' redo kept in memory, and the WAL buffer.
    RedoBuffers,
    /// Connections: sessions with their buffers, prepared statements and
    /// portals.
    Sessions,
    /// Statements' sorts, hash tables, materialised results and result
    /// rows not yet sent.
    QueryWorkingMemory,
}

impl Category {
    pub const ALL: [Category; 6] = [
        Category::TableVersions,
        Category::Indexes,
        Category::UndoLogs,
        Category::RedoBuffers,
        Category::Sessions,
        Category::QueryWorkingMemory,
    ];

    /// The name nestor_memory shows.
    pub fn name(self) -> &'static str {
        match self {
            Category::TableVersions => "table versions",
            Category::Indexes => "indexes",
            Category::UndoLogs => "undo logs",
            Category::RedoBuffers => "redo buffers",
            Category::Sessions => "sessions",
            Category::QueryWorkingMemory => "query working memory",
        }
    }
}

/// One counter per cache line: writers of different categories never
/// share one.
#[repr(align(64))]
struct Counter(AtomicI64);

static COUNTERS: [Counter; 6] = [const { Counter(AtomicI64::new(0)) }; 6];

/// `bytes` more (or, negative, fewer) held by `category`. Nothing to do
/// for 0 (no write to the shared counter).
#[inline]
pub fn add(category: Category, bytes: i64) {
    if bytes != 0 {
        COUNTERS[category as usize]
            .0
            .fetch_add(bytes, Ordering::Relaxed);
    }
}

/// Bytes `category` holds, as counted.
pub fn held(category: Category) -> u64 {
    COUNTERS[category as usize].0.load(Ordering::Relaxed).max(0) as u64
}

/// The category holding the most, with its bytes (for error details).
pub fn largest() -> (Category, u64) {
    Category::ALL
        .iter()
        .map(|&c| (c, held(c)))
        .max_by_key(|&(_, b)| b)
        .unwrap_or((Category::TableVersions, 0))
}

/// Fail a statement whose working memory (`what`, holding
/// `held_bytes`) grows while the process is at or past its limit.
pub fn check_query(what: &str, held_bytes: usize) -> Result<(), DbError> {
    let (used, limit) = (used_bytes(), limit_bytes());
    if used < limit {
        return Ok(());
    }
    Err(
        DbError::new(SqlState::OutOfMemory, "out of memory").with_detail(format!(
            "The statement's {what} holds {} MB while Nestor uses {} MB ({}) of its {} MB \
             memory limit (--memory-limit).",
            held_bytes >> 20,
            used >> 20,
            source(),
            limit >> 20
        )),
    )
}

/// A buffer that grows with what a statement produces (an INSERT's source
/// rows, result rows not yet sent), checked against the budget every
/// QUERY_MEMORY_GLOBAL_CHECK_BYTES and counted as query working memory
/// while it lives.
pub struct Growth {
    what: &'static str,
    held: usize,
    published: usize,
    next_check: usize,
}

/// Counters are brought up to date in steps of this much.
const PUBLISH_BYTES: usize = 64 << 10;

impl Growth {
    pub fn new(what: &'static str) -> Growth {
        Growth {
            what,
            held: 0,
            published: 0,
            next_check: crate::limits::QUERY_MEMORY_GLOBAL_CHECK_BYTES,
        }
    }

    /// The buffer holds `bytes` more.
    pub fn grow(&mut self, bytes: usize) -> Result<(), DbError> {
        self.held = self.held.saturating_add(bytes);
        if self.held - self.published >= PUBLISH_BYTES {
            add(
                Category::QueryWorkingMemory,
                (self.held - self.published) as i64,
            );
            self.published = self.held;
        }
        if self.held >= self.next_check {
            self.next_check = self.held + crate::limits::QUERY_MEMORY_GLOBAL_CHECK_BYTES;
            check_query(self.what, self.held)?;
        }
        Ok(())
    }
}

impl Drop for Growth {
    fn drop(&mut self) {
        add(Category::QueryWorkingMemory, -(self.published as i64));
    }
}

/// Fail a write with 53200 once the process is at or past its limit.
pub fn check_write() -> Result<(), DbError> {
    let (used, limit) = (used_bytes(), limit_bytes());
    if used < limit {
        return Ok(());
    }
    let (most, most_bytes) = largest();
    Err(
        DbError::new(SqlState::OutOfMemory, "out of memory").with_detail(format!(
            "Nestor uses {} MB ({}) of its {} MB memory limit (--memory-limit), {} MB of it \
             {}; writes fail until memory is freed: DELETE, TRUNCATE or DROP what is not \
             needed (old row versions are pruned in the background), or restart with a \
             larger limit.",
            used >> 20,
            source(),
            limit >> 20,
            most_bytes >> 20,
            most.name()
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test touches the process-wide budget (tests run in threads).
    #[test]
    fn writes_fail_with_53200_at_the_limit_and_pass_below_it() {
        static FAKE: AtomicU64 = AtomicU64::new(100);
        configure(
            1000,
            Probe {
                source: "test",
                read: || Some(FAKE.load(Ordering::Relaxed)),
            },
        );
        assert!(check_write().is_ok());
        FAKE.store(1000, Ordering::Relaxed);
        assert!(check_write().is_ok(), "not measured again yet");
        refresh();
        let e = check_write().unwrap_err();
        assert_eq!(e.code, SqlState::OutOfMemory);
        assert_eq!(e.message, "out of memory");
        assert!(e
            .detail
            .clone()
            .unwrap()
            .contains("memory limit (--memory-limit)"));
        FAKE.store(999, Ordering::Relaxed);
        refresh();
        assert!(check_write().is_ok());
        assert_eq!((used_bytes(), limit_bytes(), source()), (999, 1000, "test"));
        LIMIT.store(u64::MAX, Ordering::Relaxed);
    }
}
