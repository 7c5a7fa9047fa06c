//! SQL layer: sessions, the PostgreSQL grammar (via libpg_query), binding,
//! planning and execution over the storage engine and transaction manager.

pub mod bind;
pub use nestor_catalog as catalog;
pub mod ddl;
pub mod dml;
pub mod durable;
pub mod engine;
pub mod exec;
pub mod exec_api;
pub mod expr;
pub mod functions;
pub mod parse;
pub mod plan;
pub mod protocol;
pub mod query;
#[cfg(test)]
mod query_tests;
pub mod registry;
pub mod select;
pub mod session;
pub mod stmt;
pub mod sysviews;
pub mod valops;
// Session layer (session engineer).
pub mod copy;
pub mod encode;
pub mod portal;
pub mod settings;
pub mod txn_block;
pub mod utility;

pub use protocol::{BackendMsg, FieldDesc, FormatCode, FrontendMsg, TxnStatus};
pub use session::{CancelToken, Engine, EngineConfig, Session, SessionInfo};
