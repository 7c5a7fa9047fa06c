//! Shared vocabulary of every Nestor layer: identifiers as newtypes, named
//! limits, and the client-facing error with its SQLSTATE.
//!
//! Nothing here does work. Each layer has its own error enum and maps it into
//! [`DbError`] with one exhaustive `match` (see `nestor_txn::TxnError`), so a
//! new failure mode cannot reach a client without a SQLSTATE being chosen for it.

#![forbid(unsafe_code)]

pub mod errcodes;
pub mod error;
pub mod hash;
pub mod ids;
pub mod keywords;
pub mod limits;
pub mod log;
pub mod memory;
pub mod sort;
pub mod stack;
pub mod units;

pub use error::{DbError, InternalQuery, SqlState};
pub use ids::{CommandId, Csn, Lsn, RelId, RowId, SavepointLevel, SessionId, Xid};
