//! State shared by all connections: the engine, the authentication
//! verifier, the socket count and the backend pid counter.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;

use nestor_durable::Engine;

use crate::scram;

/// Sockets allowed beyond `max_connections` (cancel requests, clients still
/// in startup, clients about to be told 53300 by the engine).
pub(crate) const SOCKETS_RESERVE: usize = 64;

/// State shared by all connections.
pub struct Shared {
    pub engine: Arc<Engine>,
    /// `Some`: SCRAM-SHA-256 authentication; `None`: trust.
    pub verifier: Option<scram::Verifier>,
    pub sockets_max: usize,
    pub(crate) sockets: AtomicUsize,
    pid: AtomicU32,
}

impl Shared {
    pub fn new(
        engine: Arc<Engine>,
        verifier: Option<scram::Verifier>,
        max_connections: usize,
    ) -> Shared {
        Shared {
            engine,
            verifier,
            sockets_max: max_connections.saturating_add(SOCKETS_RESERVE),
            sockets: AtomicUsize::new(0),
            pid: AtomicU32::new(0),
        }
    }

    /// A fresh backend "pid" (positive i32, as clients expect).
    pub(crate) fn next_pid(&self) -> u32 {
        loop {
            let p = self.pid.fetch_add(1, Ordering::Relaxed).wrapping_add(1) & 0x7fff_ffff;
            if p != 0 {
                return p;
            }
        }
    }
}
