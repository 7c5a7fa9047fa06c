//! Registry of live sessions: pg_stat_activity, cancel and terminate
//! (owned by the session layer).

use nestor_common::SessionId;

use crate::exec_api::ActivityRow;

pub struct Registry {
    pub max_connections: usize,
}

impl Registry {
    pub fn new(max_connections: usize) -> Registry {
        Registry { max_connections }
    }

    /// Cancel the running statement of `pid`; `secret` must match when given
    /// (protocol CancelRequest), None for pg_cancel_backend.
    pub fn cancel(&self, _pid: SessionId, _secret: Option<i32>) -> bool {
        false
    }

    /// pg_terminate_backend.
    pub fn terminate(&self, _pid: SessionId) -> bool {
        false
    }

    /// One row per live session.
    pub fn activity(&self) -> Vec<ActivityRow> {
        Vec::new()
    }
}
