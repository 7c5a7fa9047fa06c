//! Errors of the transaction layer and their one mapping to SQLSTATE.

use nestor_common::{DbError, SqlState};

/// What can go wrong inside the transaction manager. Every variant is an
/// operating condition (a conflict, a timeout, a limit); broken invariants
/// are assertions, not errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxnError {
    /// First-updater-wins under REPEATABLE READ: the row changed (or was
    /// deleted) by a transaction that committed after our snapshot.
    SerializationFailure { deleted: bool },
    /// SERIALIZABLE: the transaction is part of a dangerous structure of
    /// rw-conflicts (`detail`: PostgreSQL's "Reason code: ...").
    SerializationConflict { detail: String },
    /// This waiter closed a cycle in the waits-for graph.
    Deadlock { detail: String },
    /// NOWAIT met a conflicting lock. `what` names the object, e.g.
    /// `row in relation "t"`.
    LockNotAvailable { what: String },
    /// lock_timeout expired while waiting.
    LockTimeout,
    /// statement_timeout expired while waiting.
    StatementTimeout,
    /// Cancel request (pg_cancel_backend or protocol CancelRequest).
    Canceled,
    /// pg_terminate_backend or server shutdown.
    Terminated,
    /// ROLLBACK TO / RELEASE of a name that is not open.
    SavepointNotFound { name: String },
    /// More than SAVEPOINT_DEPTH_MAX savepoints open at once.
    SavepointDepthExceeded { max: usize },
    /// The transaction's undo log reached TXN_UNDO_ENTRIES_MAX.
    UndoLogFull { max: usize },
    /// The transaction holds TXN_LOCKS_MAX locks and asked for another.
    TooManyLocks { max: usize },
    /// The rows written would make a redo file larger than
    /// TXN_REDO_FILE_BYTES_MAX.
    RedoFileFull { max: u64 },
}

impl From<TxnError> for DbError {
    fn from(e: TxnError) -> DbError {
        match e {
            TxnError::SerializationFailure { deleted: false } => DbError::new(
                SqlState::SerializationFailure,
                "could not serialize access due to concurrent update",
            ),
            TxnError::SerializationFailure { deleted: true } => DbError::new(
                SqlState::SerializationFailure,
                "could not serialize access due to concurrent delete",
            ),
            TxnError::SerializationConflict { detail } => DbError::new(
                SqlState::SerializationFailure,
                "could not serialize access due to read/write dependencies among transactions",
            )
            .with_detail(detail)
            .with_hint("The transaction might succeed if retried."),
            TxnError::Deadlock { detail } => {
                DbError::new(SqlState::DeadlockDetected, "deadlock detected")
                    .with_detail(detail)
                    .with_hint("See server log for query details.")
            }
            TxnError::LockNotAvailable { what } => DbError::new(
                SqlState::LockNotAvailable,
                format!("could not obtain lock on {what}"),
            ),
            TxnError::LockTimeout => DbError::new(
                SqlState::LockNotAvailable,
                "canceling statement due to lock timeout",
            ),
            TxnError::StatementTimeout => DbError::new(
                SqlState::QueryCanceled,
                "canceling statement due to statement timeout",
            ),
            TxnError::Canceled => DbError::new(
                SqlState::QueryCanceled,
                "canceling statement due to user request",
            ),
            TxnError::Terminated => DbError::new(
                SqlState::AdminShutdown,
                "terminating connection due to administrator command",
            ),
            TxnError::SavepointNotFound { name } => DbError::new(
                SqlState::InvalidSavepointSpecification,
                format!("savepoint \"{name}\" does not exist"),
            ),
            TxnError::SavepointDepthExceeded { max } => DbError::new(
                SqlState::ProgramLimitExceeded,
                format!("cannot have more than {max} savepoints open in one transaction"),
            )
            .with_hint("Release savepoints that are no longer needed (savepoint_depth_max)."),
            TxnError::UndoLogFull { max } => DbError::new(
                SqlState::ProgramLimitExceeded,
                format!("transaction wrote or locked more than {max} rows"),
            )
            .with_hint("Split the work into smaller transactions (txn_undo_entries_max)."),
            // PostgreSQL's lock table past max_locks_per_transaction.
            TxnError::TooManyLocks { max } => {
                DbError::new(SqlState::OutOfMemory, "out of shared memory")
                    .with_detail(format!(
                        "A transaction may hold at most {max} row and advisory locks (--txn-locks-max)."
                    ))
                    .with_hint("You might need to increase --txn-locks-max.")
            }
            // PostgreSQL's temp_file_limit: "temporary file size exceeds
            // temp_file_limit (1024kB)".
            TxnError::RedoFileFull { max } => DbError::new(
                SqlState::ConfigurationLimitExceeded,
                format!("redo file size exceeds txn_redo_file_max ({}kB)", max / 1024),
            )
            .with_detail(
                "The rows this transaction wrote would not fit its redo file; the statement wrote nothing.",
            )
            .with_hint("Split the work into smaller transactions, or restart the server with a larger --txn-redo-file-max."),
        }
    }
}
