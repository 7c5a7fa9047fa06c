//! Every limit Nestor enforces, in one place. Names end with the unit
//! (`_max` for counts, `_bytes_max`, `_ms_max`). Exceeding one is an operating
//! condition and returns a clear error (SQLSTATE 54000 "program_limit_exceeded",
//! 53300 "too_many_connections", 08P01 for protocol messages), never a crash;
//! the internal bounds at the end keep memory bounded instead (a writer
//! waits, a buffer stops growing).

/// Savepoints open at once in one transaction (nesting depth). Each costs one
/// mark (a name and an undo-log offset), so the limit guards memory, not speed.
pub const SAVEPOINT_DEPTH_MAX: usize = 1_000_000;

/// Length of an identifier (table, column, savepoint name ...) in bytes.
/// Enforced by the parser (libpg_query's scanner truncates longer names, as
/// PostgreSQL does with NAMEDATALEN - 1).
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

// ----- the wire protocol ------------------------------------------------------

/// Largest frontend message body PostgreSQL accepts for messages that carry
/// data (Query, Parse, Bind, CopyData): 1 GiB - 1 (`PQ_LARGE_MESSAGE_LIMIT`).
pub const MESSAGE_BYTES_MAX: usize = 0x3fff_ffff;

/// Limit for fixed-shape messages (Sync, Execute, Describe, ...), as
/// PostgreSQL's `PQ_SMALL_MESSAGE_LIMIT`.
pub const SMALL_MESSAGE_BYTES_MAX: usize = 10_000;

/// Largest startup packet (PostgreSQL's `MAX_STARTUP_PACKET_LENGTH`).
pub const STARTUP_PACKET_BYTES_MAX: usize = 10_000;

/// Largest SASL message during authentication (`PG_MAX_AUTH_TOKEN_LENGTH`).
pub const AUTH_MESSAGE_BYTES_MAX: usize = 65_535;

/// Largest single read-buffer growth step while reading one big message.
pub const READ_RESERVE_BYTES_MAX: usize = 1024 * 1024;

/// Input discarded, at most, after a FATAL before the socket closes.
pub const CLOSE_DRAIN_BYTES_MAX: usize = 1024 * 1024;

// ----- values -----------------------------------------------------------------

/// Longest value a function may build (PostgreSQL's 1 GB limit, 54000
/// "requested length too large").
pub const VALUE_BYTES_MAX: usize = (1 << 30) - 1;

/// Parameters a statement may reference ($1 … $65535): the protocol's
/// maximum, since Bind carries a 16-bit count.
pub const PARAMS_MAX: usize = 65_535;

// ----- stack depth -------------------------------------------------------------

/// Stack of the threads that run sessions' statements (address space,
/// touched only as deep as a statement goes): twice STACK_DEPTH_BYTES_MAX.
pub const SESSION_STACK_BYTES: usize = 2 * STACK_DEPTH_BYTES_MAX;

/// Stack a statement may use before it fails with 54001 "stack depth limit
/// exceeded" (PostgreSQL's max_stack_depth, which defaults to 2 MB; our
/// frames are larger). Checked by `nestor_common::stack::check` in the
/// recursive paths. Sized so that a statement nested EXPRESSION_DEPTH_MAX
/// deep fits, and a session stack (twice this) holds NESTING_TOKENS_MAX
/// levels of libpg_query's output and its decoding: about 3.5 kB per level
/// in a release build and 8 kB in a debug build (the tests'), whose limit
/// is therefore larger. Address space: touched only as deep as used.
pub const STACK_DEPTH_BYTES_MAX: usize = if cfg!(debug_assertions) {
    512 << 20
} else {
    128 << 20
};

/// Nesting a statement may have: a statement whose lexical nesting bound
/// (nestor_parser::depth) passes it is refused before it is parsed.
/// PostgreSQL's default 2 MB stack allows about 4,500 levels of `1+1+...`.
pub const EXPRESSION_DEPTH_MAX: usize = 10_000;

/// Tokens that can nest (operators, brackets, nesting keywords) a statement
/// may hold at all, whatever its structure: the backstop of the nesting
/// bound, sized so that a tree this deep still fits a session's stack
/// through libpg_query's output and its decoding (about 3.5 kB a level in
/// a release build, 8 kB in a debug one).
pub const NESTING_TOKENS_MAX: usize = 50_000;

// ----- parsing ------------------------------------------------------------------

/// Statement texts up to this long are eligible for the parse cache
/// (nestor_parser::parse_sql_cached).
pub const PARSE_CACHE_TEXT_BYTES_MAX: usize = 256;

/// Parse trees the cache keeps (shared by all sessions); emptied when full.
pub const PARSE_CACHE_ENTRIES_MAX: usize = 1024;

// ----- the WAL and transactions -----------------------------------------------

/// Payload of one WAL record; a transaction's redo is cut into records of
/// at most this size.
pub const RECORD_PAYLOAD_BYTES_MAX: usize = 1 << 20;

/// Bytes of encoded records waiting for the WAL flusher before a large
/// transaction's appender waits for it to drain.
pub const WAL_BUFFER_BYTES_MAX: usize = 16 * 1024 * 1024;

/// How long the WAL flusher gathers records while no one waits for them to
/// be durable (only synchronous_commit = off commits appended): PostgreSQL's
/// wal_writer_delay default. An asynchronous commit is on disk within about
/// this long; a synchronous commit, a checkpoint or a full buffer ends the
/// wait at once.
pub const WAL_WRITER_DELAY_MS: u64 = 200;

/// Redo a committing transaction keeps in memory; past it the redo goes to
/// the transaction's redo file, which is made durable before the commit is
/// sequenced and joins the log through a small commit record (nestor_wal's
/// SpillBuffer). Default of `nestor --txn-redo-memory-max`. Kept well under
/// WAL_BUFFER_BYTES_MAX: an in-memory redo is copied into the log buffer
/// under the commit sequencer, a redo file is not.
pub const TXN_REDO_MEMORY_BYTES_MAX: usize = 8 * 1024 * 1024;

/// How long a CHECKPOINT statement waits for other sessions' transactions
/// with schema changes to end before it fails with 55006.
pub const CHECKPOINT_DDL_WAIT_MS: u64 = 30_000;

// ----- pruning (garbage collection of old row versions) --------------------

/// How often the background pruner looks at the tables (and refreshes the
/// GC horizon hint writers trim their row's chain by).
pub const PRUNE_INTERVAL_MS: u64 = 100;

/// A table is pruned in the background once this many versions plus
/// PRUNE_SCALE_PERCENT of its rows were superseded since its last prune
/// (autovacuum_vacuum_threshold = 50, autovacuum_vacuum_scale_factor = 0.2).
pub const PRUNE_THRESHOLD_VERSIONS: u64 = 50;
pub const PRUNE_SCALE_PERCENT: u64 = 20;

/// Ended transactions whose outcome pg_xact_status() can still report.
pub const XACT_HISTORY_MAX: usize = 1_000_000;

// ----- SERIALIZABLE (predicate locks and rw-conflict tracking) -------------

/// Fine-grained predicate locks (tuples, index keys and ranges) one
/// serializable transaction may hold on one relation before they are
/// promoted to a lock on the whole relation (PostgreSQL's
/// max_pred_locks_per_relation, which counts pages; ours counts rows).
pub const PRED_LOCKS_PER_RELATION_MAX: usize = 4_096;

/// Fine-grained predicate locks one serializable transaction may hold in
/// all; past it the relation where it holds the most is promoted (PostgreSQL's
/// max_pred_locks_per_transaction, 64, counts pages and relations).
pub const PRED_LOCKS_PER_TXN_MAX: usize = 65_536;

/// Committed serializable transactions kept with their predicate locks and
/// conflicts while a concurrent one still runs; past it the oldest is
/// summarized (its locks become relation locks of one "old committed"
/// stand-in, its conflicts flags on its partners), as PostgreSQL summarizes
/// into pg_serial.
pub const SSI_COMMITTED_XACTS_MAX: usize = 10_000;

/// Summarized transactions whose XID and earliest out-conflict are kept for
/// readers that meet their writes; past it the oldest are forgotten and any
/// write by an XID at or below the forgotten ones counts, conservatively, as
/// one by a summarized transaction with a conflict out.
pub const SSI_SUMMARIZED_XIDS_MAX: usize = 1_000_000;
