//! Every limit Nestor enforces, in one place. Names end with the unit
//! (`_max` for counts, `_bytes_max`, `_ms_max`). Exceeding one is an operating
//! condition and returns a clear error (SQLSTATE 54000 "program_limit_exceeded"
//! or 53300 "too_many_connections"), never a crash.

/// Savepoints open at once in one transaction (nesting depth). Each costs one
/// mark (a name and an undo-log offset), so the limit guards memory, not speed.
pub const SAVEPOINT_DEPTH_MAX: usize = 1_000_000;

/// Length of a savepoint name in bytes (PostgreSQL truncates identifiers to 63).
pub const IDENTIFIER_BYTES_MAX: usize = 63;

/// Default for `--max-connections`.
pub const CONNECTIONS_MAX_DEFAULT: usize = 10_000;

/// A single SQL statement text (simple or extended protocol), in bytes.
pub const STATEMENT_BYTES_MAX: usize = 16 * 1024 * 1024;

/// Undo-log entries one transaction may hold (rows written plus row locks
/// taken). Bounds the private memory of a transaction until redo spilling
/// lands with the WAL.
pub const TXN_UNDO_ENTRIES_MAX: usize = 50_000_000;

/// Default `deadlock_timeout`: how long a lock waiter waits before it looks for
/// a deadlock cycle (PostgreSQL's default).
pub const DEADLOCK_TIMEOUT_MS_DEFAULT: u64 = 1_000;

/// How often a blocked waiter re-checks its cancel flag and deadline.
pub const LOCK_WAIT_POLL_MS: u64 = 10;
