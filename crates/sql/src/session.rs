//! Session: one client connection's state. PLACEHOLDER SKELETON: the
//! signatures below are the contract with nestor-server; the bodies are being
//! written (issue 3) and must not land as they are.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use nestor_common::{DbError, SessionId};

use crate::protocol::{BackendMsg, FrontendMsg, TxnStatus};

pub use crate::engine::{Engine, EngineConfig};

/// Who connected, from the startup packet and the socket.
#[derive(Clone, Debug)]
pub struct SessionInfo {
    pub pid: SessionId,
    pub secret_key: i32,
    pub user: String,
    pub database: String,
    pub application_name: String,
    pub client_addr: Option<String>,
    /// Other startup parameters (options, DateStyle, client_encoding, ...).
    pub startup_params: Vec<(String, String)>,
}

/// Set from another thread to cancel the session's running statement.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// One client session.
pub struct Session {
    _engine: Arc<Engine>,
    info: SessionInfo,
    cancel: CancelToken,
}

impl Session {
    /// Register a new session (fails with 53300 past max_connections).
    pub fn new(engine: Arc<Engine>, info: SessionInfo) -> Result<Session, DbError> {
        Ok(Session {
            _engine: engine,
            info,
            cancel: CancelToken::default(),
        })
    }

    /// ParameterStatus values to send after authentication.
    pub fn parameter_status(&self) -> Vec<(String, String)> {
        vec![
            ("server_version".into(), "15.0 (Nestor 0.1.0)".into()),
            (
                "application_name".into(),
                self.info.application_name.clone(),
            ),
        ]
    }

    /// Handle one frontend message; may block (lock waits, pg_sleep). Appends
    /// the responses, including ReadyForQuery after Query and Sync.
    pub fn handle(&mut self, msg: FrontendMsg, out: &mut Vec<BackendMsg>) {
        match msg {
            FrontendMsg::Query(_) | FrontendMsg::Sync => {
                out.push(BackendMsg::Error(DbError::unsupported("SQL (skeleton)")));
                out.push(BackendMsg::ReadyForQuery(self.transaction_status()));
            }
            _ => {}
        }
    }

    pub fn transaction_status(&self) -> TxnStatus {
        TxnStatus::Idle
    }

    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// True once pg_terminate_backend() targeted this session: the wire
    /// layer sends FATAL 57P01 and closes the connection.
    pub fn is_terminated(&self) -> bool {
        false
    }
}
