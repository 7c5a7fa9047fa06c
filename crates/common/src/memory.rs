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
//! Left out: per-query working memory limits (work_mem for sorts, hashes,
//! aggregates), per-category accounting.

use std::sync::atomic::{AtomicU64, Ordering};
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

/// Fail a write with 53200 once the process is at or past its limit.
pub fn check_write() -> Result<(), DbError> {
    let (used, limit) = (used_bytes(), limit_bytes());
    if used < limit {
        return Ok(());
    }
    Err(
        DbError::new(SqlState::OutOfMemory, "out of memory").with_detail(format!(
            "Nestor uses {} MB ({}) of its {} MB memory limit (--memory-limit); writes fail until \
         memory is freed: DELETE, TRUNCATE or DROP what is not needed (old row versions are \
         pruned in the background), or restart with a larger limit.",
            used >> 20,
            source(),
            limit >> 20
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
        assert!(e.detail.unwrap().contains("memory limit (--memory-limit)"));
        FAKE.store(999, Ordering::Relaxed);
        refresh();
        assert!(check_write().is_ok());
        assert_eq!((used_bytes(), limit_bytes(), source()), (999, 1000, "test"));
        LIMIT.store(u64::MAX, Ordering::Relaxed);
    }
}
