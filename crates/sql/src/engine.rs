//! The shared state of one server: transaction manager, tables, catalog and
//! the registry of sessions. One `Arc<Engine>` is shared by all sessions.

use std::sync::Arc;

use nestor_common::{DbError, SessionId};
use nestor_storage::Store;
use nestor_txn::TxnManager;

use crate::catalog::Catalog;
use crate::registry::Registry;

/// Server-wide configuration the engine needs.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub data_dir: std::path::PathBuf,
    pub max_connections: usize,
}

pub struct Engine {
    pub config: EngineConfig,
    pub txn: Arc<TxnManager>,
    pub store: Arc<Store>,
    pub catalog: Catalog,
    pub sessions: Registry,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Result<Arc<Engine>, DbError> {
        let txn = TxnManager::new();
        let store = Store::new(txn.clone());
        let sessions = Registry::new(config.max_connections);
        Ok(Arc::new(Engine {
            config,
            txn,
            store,
            catalog: Catalog::new(),
            sessions,
        }))
    }

    /// CancelRequest from the wire: cancel the running statement of session
    /// `pid` if `secret` matches. Returns whether a session was signalled.
    pub fn cancel_request(&self, pid: SessionId, secret: i32) -> bool {
        self.sessions.cancel(pid, Some(secret))
    }
}
