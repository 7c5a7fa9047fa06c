//! Every limit Nestor enforces, in one place. Names end with the unit
//! (`_max` for counts, `_bytes_max`, `_ms_max`). Exceeding one is an operating
//! condition and returns a clear error (SQLSTATE 54000 "program_limit_exceeded",
//! 53300 "too_many_connections", 08P01 for protocol messages), never a crash;
//! the internal bounds at the end keep memory bounded instead (a writer
//! waits, a buffer stops growing).
//!
//! Some limits can be set when the server starts (`nestor --help`): the
//! constant is the default and [`configure`] installs the operator's value
//! for the whole process (one engine per process); the layers read them
//! through the functions at the end ([`savepoint_depth_max`] ...), one
//! relaxed atomic load each.

use std::sync::atomic::{AtomicU64, Ordering};

/// Savepoints open at once in one transaction (nesting depth). Each costs one
/// mark (a name and an undo-log offset), so the limit guards memory, not speed.
/// Default of `nestor --savepoint-depth-max`; PostgreSQL has no such limit
/// (a subtransaction each, 2^32-1 in all).
pub const SAVEPOINT_DEPTH_MAX: usize = 1_000_000;

/// Length of an identifier (table, column, savepoint name ...) in bytes.
/// Enforced by the parser (libpg_query's scanner truncates longer names, as
/// PostgreSQL does with NAMEDATALEN - 1).
pub const IDENTIFIER_BYTES_MAX: usize = 63;

/// Default for `--max-connections`.
pub const CONNECTIONS_MAX_DEFAULT: usize = 10_000;

/// Default for `--superuser-reserved-connections`: connection slots (of
/// `--max-connections`) only superusers may take, PostgreSQL's
/// superuser_reserved_connections default. Others get 53300 "remaining
/// connection slots are reserved for non-replication superuser
/// connections" once only these are left.
pub const SUPERUSER_RESERVED_CONNECTIONS_DEFAULT: usize = 3;

/// A single SQL statement text (simple or extended protocol), in bytes.
pub const STATEMENT_BYTES_MAX: usize = 16 * 1024 * 1024;

/// Undo-log entries one transaction may hold (rows written plus row locks
/// taken): bounds the private memory of a transaction (54000 past it).
/// Default of `nestor --txn-undo-entries-max`.
pub const TXN_UNDO_ENTRIES_MAX: usize = 50_000_000;

/// Locks one transaction may hold in the lock table at once (row locks and
/// transaction-level advisory locks; upgrades of a held lock do not count).
/// Past it: 53200 "out of shared memory", as PostgreSQL's lock table
/// answers past max_locks_per_transaction (whose 64 per backend counts
/// only heavyweight locks: PostgreSQL keeps row locks in the tuple, so it
/// has no row-lock limit; this default stays out of the way of a FOR
/// UPDATE over a large table). Default of `nestor --txn-locks-max`.
pub const TXN_LOCKS_MAX: usize = 50_000_000;

/// Disk space of one transaction's redo file (`wal/<xid>.redo`, written
/// at commit by a transaction whose redo outgrows
/// `--txn-redo-memory-max`): rows written count against it as they are
/// written, by an upper bound of their stored size, and the statement that
/// would pass it fails with 53400 as PostgreSQL's temp_file_limit does; the
/// redo file is never written. Default none (u64::MAX): the redo holds the
/// final image of rows that live in memory, so --memory-limit bounds it
/// already. Default of `nestor --txn-redo-file-max`.
pub const TXN_REDO_FILE_BYTES_MAX: u64 = u64::MAX;

/// Default `deadlock_timeout`: how long a lock waiter waits before it looks for
/// a deadlock cycle (PostgreSQL's default).
pub const DEADLOCK_TIMEOUT_MS_DEFAULT: u64 = 1_000;

/// How often a blocked waiter re-checks its cancel flag and deadline.
pub const LOCK_WAIT_POLL_MS: u64 = 10;

/// How often the wait sampler looks at every session
/// (pg_wait_sampling.profile_period's default; `exec/src/wait_sampling.rs`).
pub const WAIT_SAMPLING_PERIOD_MS: u64 = 10;

/// Samples kept in nestor_wait_sampling_history (pg_wait_sampling's
/// history_size default); the oldest go first.
pub const WAIT_SAMPLING_HISTORY_MAX: usize = 5000;

/// How many times one execution re-plans a statement whose relations
/// changed while it waited for their locks (each time, another
/// transaction's schema change committed or rolled back meanwhile) before
/// it runs the plan it has: its relations are locked by then, so only a
/// stream of unrelated schema changes can get this far.
pub const REPLAN_AFTER_LOCK_MAX: u32 = 16;

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

/// Nesting a jsonpath expression may have (parentheses, filters inside
/// filters, operators, subscripts): deeper input is refused with 54001 when
/// it is parsed, so neither the recursive-descent parser nor the
/// evaluator (whose recursion follows the tree) can exhaust the stack. An
/// accessor chain (`$.a.b.c...`) is a list, not nesting, and costs nothing
/// here.
pub const JSONPATH_DEPTH_MAX: usize = 128;

/// Items one jsonpath evaluation may visit (accessor results and `.**`
/// descendants, counted together): `$.**.**.**...` grows with a power of
/// the document's size, and a function call cannot be cancelled midway, so
/// past this it fails with 54000 instead of running on.
pub const JSONPATH_ITEMS_MAX: u64 = 10_000_000;

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

/// Nesting of arrays and objects a json/jsonb input may have (54001 past
/// it, as past the stack check that each level also makes): PostgreSQL's
/// default 2 MB stack parses 10,000 levels (its regression tests do), and
/// a session's stack holds this many of our parser's frames many times
/// over. The parser recurses, so a thread that parses JSON without a
/// session's stack base must have the stack for this many levels.
pub const JSON_NESTING_MAX: usize = 100_000;

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

/// Resolved signatures of one polymorphic function kept with their
/// compiled bodies (plan's bind/polymorphic.rs); a call of a further one
/// gets an instance of its own, compiled for its statement.
pub const POLYMORPHIC_INSTANCES_MAX: usize = 64;

/// Statements pg_stat_statements keeps statistics for (PostgreSQL's
/// `pg_stat_statements.max`, whose default this is; shown by SHOW, fixed at
/// start). Past it the twentieth of the entries with the fewest calls is
/// dropped (`nestor_exec::stat_statements`).
pub const STAT_STATEMENTS_MAX: usize = 5000;

/// Statement texts whose pg_stat_statements identity (fingerprint and
/// normalised text) is remembered for the simple protocol, shared by all
/// sessions; emptied when full.
pub const STAT_STATEMENT_TEXTS_MAX: usize = 8192;

/// Bytes of a statement's normalised text pg_stat_statements keeps (the
/// rest is cut at a character boundary; PostgreSQL keeps whole texts in a
/// file). Texts longer than this are not remembered by the identity cache
/// either: with the 5000 entries and the cache this bounds what statistics
/// hold to about 0.9 GB in the worst case, and a few MB in practice.
pub const STAT_STATEMENT_TEXT_BYTES_MAX: usize = 64 << 10;

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

// ----- replication (docs/replication.md) ------------------------------------

/// Walsenders a primary runs at once (PostgreSQL's max_wal_senders
/// default); one more replication connection is refused with 53300.
pub const WAL_SENDERS_MAX: usize = 10;

/// WAL a primary keeps for replicas that may still ask for it (connected or
/// recently connected), counted back from the end of the log. A replica
/// further behind loses its position and must copy a new base image (it
/// says so in its log). Default of `nestor --replica-wal-keep-max`.
pub const REPLICA_WAL_KEEP_BYTES_MAX: u64 = 1 << 30;

/// Largest replication message (CopyData) either side accepts: a WAL
/// record is at most 1 MiB of payload, and redo files are sent in pieces
/// of this size.
pub const REPLICATION_MESSAGE_BYTES_MAX: usize = 2 * 1024 * 1024;

/// How often a walsender tells an idle replica the end of the log
/// (keepalive) and a walreceiver reports its positions (PostgreSQL's
/// wal_receiver_status_interval is 10 s; shorter here so lag and
/// synchronous commits see progress promptly).
pub const REPLICATION_STATUS_INTERVAL_MS: u64 = 1_000;

/// A walsender or walreceiver that hears nothing from its peer for this
/// long gives up on the connection (wal_sender_timeout /
/// wal_receiver_timeout).
pub const REPLICATION_TIMEOUT_MS: u64 = 60_000;

/// How long a replica waits before connecting again after losing its
/// primary (wal_retrieve_retry_interval).
pub const REPLICA_RETRY_MS: u64 = 1_000;

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

// ----- per-query working memory ---------------------------------------------

/// Default of the `nestor.query_memory_max` setting (-1): this share of
/// `--memory-limit` may be held by one statement's sorts, hash tables
/// (GROUP BY, DISTINCT, INTERSECT/EXCEPT) and materialised CTEs and
/// subqueries. Not work_mem, which sorts, hash aggregates and hash joins
/// spill past (exec's spill module): this bounds the whole statement,
/// including what has no spill path (53200 past it), so the default must
/// let every query that works on PostgreSQL work here.
pub const QUERY_MEMORY_PERCENT_DEFAULT: u64 = 25;

/// A statement's working memory is checked against the server's
/// `--memory-limit` each time it grows by this much: a statement holding
/// less never fails on the server-wide budget, only on its own limit.
pub const QUERY_MEMORY_GLOBAL_CHECK_BYTES: usize = 1 << 20;

// ----- limits set at server start --------------------------------------------

/// The limits `nestor` flags may change, with the constants above as
/// defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Configured {
    pub savepoint_depth_max: usize,
    pub txn_undo_entries_max: usize,
    pub txn_locks_max: usize,
    pub txn_redo_file_bytes_max: u64,
}

impl Default for Configured {
    fn default() -> Configured {
        Configured {
            savepoint_depth_max: SAVEPOINT_DEPTH_MAX,
            txn_undo_entries_max: TXN_UNDO_ENTRIES_MAX,
            txn_locks_max: TXN_LOCKS_MAX,
            txn_redo_file_bytes_max: TXN_REDO_FILE_BYTES_MAX,
        }
    }
}

static SAVEPOINT_DEPTH: AtomicU64 = AtomicU64::new(SAVEPOINT_DEPTH_MAX as u64);
static TXN_UNDO_ENTRIES: AtomicU64 = AtomicU64::new(TXN_UNDO_ENTRIES_MAX as u64);
static TXN_LOCKS: AtomicU64 = AtomicU64::new(TXN_LOCKS_MAX as u64);
static TXN_REDO_FILE_BYTES: AtomicU64 = AtomicU64::new(TXN_REDO_FILE_BYTES_MAX);

/// Install the server's limits (at start-up, before any session).
pub fn configure(c: Configured) {
    SAVEPOINT_DEPTH.store(c.savepoint_depth_max as u64, Ordering::Relaxed);
    TXN_UNDO_ENTRIES.store(c.txn_undo_entries_max as u64, Ordering::Relaxed);
    TXN_LOCKS.store(c.txn_locks_max as u64, Ordering::Relaxed);
    TXN_REDO_FILE_BYTES.store(c.txn_redo_file_bytes_max, Ordering::Relaxed);
}

fn load(a: &AtomicU64) -> usize {
    usize::try_from(a.load(Ordering::Relaxed)).unwrap_or(usize::MAX)
}

/// LISTEN/NOTIFY: a payload must be shorter than this (PostgreSQL's
/// 8000-byte rule; 22023 past it).
pub const NOTIFY_PAYLOAD_BYTES_MAX: usize = 7999;
/// Notifications waiting for one listening session; a NOTIFY whose
/// listener is this far behind fails at commit with 54000 (PostgreSQL's
/// "too many notifications in the NOTIFY queue").
pub const NOTIFY_QUEUE_MAX: usize = 100_000;
/// A channel name is an identifier (NAMEDATALEN - 1 bytes).
pub const NOTIFY_CHANNEL_BYTES_MAX: usize = 63;

/// The Prometheus endpoint (`--metrics-listen`): a request's line and
/// headers must fit in this many bytes (431 past it); a body is never read.
pub const METRICS_REQUEST_BYTES_MAX: usize = 8 * 1024;
/// The Prometheus endpoint: time a client has to send its request line and
/// headers (408 past it); it has as long again to take the response before
/// the connection is closed.
pub const METRICS_REQUEST_MILLIS_MAX: u64 = 5_000;
/// The Prometheus endpoint: connections served at once; one past it is
/// closed at once (a scraper needs one).
pub const METRICS_CONNECTIONS_MAX: usize = 16;

/// The configured SAVEPOINT_DEPTH_MAX.
pub fn savepoint_depth_max() -> usize {
    load(&SAVEPOINT_DEPTH)
}

/// The configured TXN_UNDO_ENTRIES_MAX.
pub fn txn_undo_entries_max() -> usize {
    load(&TXN_UNDO_ENTRIES)
}

/// The configured TXN_LOCKS_MAX.
pub fn txn_locks_max() -> usize {
    load(&TXN_LOCKS)
}

/// The configured TXN_REDO_FILE_BYTES_MAX (u64::MAX: none).
pub fn txn_redo_file_bytes_max() -> u64 {
    TXN_REDO_FILE_BYTES.load(Ordering::Relaxed)
}
