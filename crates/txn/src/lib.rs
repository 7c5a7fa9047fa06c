//! The transaction core of Nestor: 64-bit XIDs assigned lazily to top-level
//! transactions only, commit-sequence-number snapshots, savepoints as marks
//! in a private undo log, and an in-memory row-lock table with deadlock
//! detection. No I/O: the WAL plugs in through [`CommitLog`], storage
//! through [`DataStore`].
//!
//! Start with docs/transactions.md for the whole design; each module's
//! header explains its part:
//! - [`visibility`]: snapshots and the visibility rule (a pure function);
//! - [`manager`]: XIDs, the commit protocol, the horizon, the GC horizon;
//! - [`transaction`]: command ids, isolation, undo log and savepoints;
//! - [`locks`]: the row-lock table, waits and deadlock detection;
//! - [`relation_locks`]: table-lock modes and their fast path;
//! - [`ssi`]: SERIALIZABLE (predicate locks, rw-conflicts, safe snapshots).

#![forbid(unsafe_code)]

pub mod error;
pub mod locks;
pub mod manager;
pub mod relation_locks;
pub mod ssi;
pub mod transaction;
pub mod visibility;

pub use error::TxnError;
pub use locks::{
    Acquired, LockKey, LockMode, LockRow, LockTable, Owner, WaitCtl, WaitKind, WaitPolicy,
    WaitStats,
};
pub use manager::{
    CommitLog, NoLog, RedoBuffer, SnapshotSlot, TxnManager, TxnStats, XactStatus, XidState,
};
pub use relation_locks::{RelationLocked, TableLockMode, TableModes};
pub use ssi::{KeyLock, Ssi, SsiHandle, SsiStats, SxactId};
pub use transaction::{
    DataStore, DataUndo, DdlUndo, Isolation, SavepointStats, Transaction, UndoEntry,
};
pub use visibility::{is_visible, stamp_visible, Snapshot, Stamp};
