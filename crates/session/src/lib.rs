//! # nestor-session: one client's session, sans I/O
//!
//! The wire layer (`nestor-server`) decodes bytes into [`FrontendMsg`]s and
//! hands each to [`Session::handle`], which appends the [`BackendMsg`]s to
//! send back; the session never touches a socket. What lives here: the
//! transaction block and its states I/T/E ([`txn_block`]), prepared
//! statements and portals ([`portal`]), the statements the session runs
//! itself — transaction control, SET/SHOW/RESET, PREPARE/EXECUTE,
//! DISCARD, COPY's sub-protocol (`session::utility`, [`copy`]) — and the value
//! codec of the wire ([`encode`]). Everything else goes to the query engine
//! (`nestor-exec`).
//!
//! ```text
//!   FrontendMsg ─▶ Session::handle ─┬─ utility: BEGIN, SET, SHOW, COPY ...
//!                                   └─ nestor_exec::prepare / execute
//!                BackendMsg* ◀──────── ... ReadyForQuery(I|T|E)
//! ```

#![forbid(unsafe_code)]

pub mod copy;
pub(crate) mod cursor;
pub mod encode;
pub mod portal;
pub mod protocol;
pub mod session;
pub(crate) mod txn_block;

pub use nestor_exec::CancelToken;
pub use protocol::{BackendMsg, FieldDesc, FormatCode, FrontendMsg, TxnStatus};
pub use session::{Engine, EngineConfig, Session, SessionInfo};
