//! SQL layer: sessions, the PostgreSQL grammar (via libpg_query), binding,
//! planning and execution over the storage engine and transaction manager.

pub mod catalog;
pub mod engine;
pub mod exec_api;
pub mod protocol;
pub mod query;
pub mod registry;
pub mod session;

pub use protocol::{BackendMsg, FieldDesc, FormatCode, FrontendMsg, TxnStatus};
pub use session::{CancelToken, Engine, EngineConfig, Session, SessionInfo};
