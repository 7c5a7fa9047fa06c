//! State shared by all connections: the engine, the authentication
//! verifier, the TLS configuration, the socket count and the backend pid
//! counter.

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
    /// The server password's verifier (for roles without their own).
    pub verifier: Option<scram::Verifier>,
    /// Who authenticates how (`--hba-file`, else by `--password`).
    pub hba: crate::hba::Hba,
    /// `Some`: an SSLRequest is answered 'S' (tls.rs); `None`: 'N'.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// Refuse startup packets that did not come over TLS (`--tls-required`).
    pub tls_required: bool,
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
            hba: crate::hba::Hba::default_rules(verifier.is_some()),
            verifier,
            tls: None,
            tls_required: false,
            sockets_max: max_connections.saturating_add(SOCKETS_RESERVE),
            sockets: AtomicUsize::new(0),
            pid: AtomicU32::new(0),
        }
    }

    /// Authenticate by these rules instead of the default.
    pub fn with_hba(mut self, hba: crate::hba::Hba) -> Shared {
        self.hba = hba;
        self
    }

    /// Offer TLS with `config`; with `required`, only over TLS.
    pub fn with_tls(mut self, config: Option<Arc<rustls::ServerConfig>>, required: bool) -> Shared {
        self.tls = config;
        self.tls_required = required;
        self
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
