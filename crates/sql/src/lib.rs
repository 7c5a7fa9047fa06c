//! SQL layer: sessions, the PostgreSQL grammar (via libpg_query), binding,
//! planning and execution over the storage engine and transaction manager.

pub mod protocol;
pub mod session;

pub use protocol::{BackendMsg, FieldDesc, FormatCode, FrontendMsg, TxnStatus};
pub use session::{CancelToken, Engine, EngineConfig, Session, SessionInfo};
