//! The listener: accepts connections, spawns one task per connection, and
//! shuts down cleanly.
//!
//! Design: one tokio task per socket (it lends the socket to a session
//! thread while the client talks: conn.rs); a `watch` channel broadcasts shutdown
//! to all of them; each task holds a guard that counts open sockets and
//! keeps an `mpsc` sender alive, so shutdown can wait until every
//! connection has sent its FATAL 57P01 and dropped its session (bounded by
//! `SHUTDOWN_GRACE`). Sockets beyond `max_connections` plus a small reserve
//! (for cancel requests and connections still authenticating) are refused
//! with FATAL 53300 before reading anything; the exact session limit is the
//! engine's (`Session::new` fails with 53300). The Unix-domain sockets
//! (unix_socket.rs) are accepted the same way, each by a task of its own.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{mpsc, watch};

use crate::conn;
use crate::io::Io;
use crate::shared::Shared;
use crate::stream::{Peer, Stream};

/// How long shutdown waits for connections to finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Counts an open socket and keeps shutdown waiting until dropped.
struct SocketGuard {
    shared: Arc<Shared>,
    _done: mpsc::Sender<()>,
}

impl Drop for SocketGuard {
    fn drop(&mut self) {
        self.shared.sockets.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Resolves on SIGINT or SIGTERM. Installed before the listener announces
/// itself, so an early signal is never fatal to the process.
pub(crate) struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Signals {
    pub fn install() -> std::io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.term.recv() => "SIGTERM",
            _ = self.int.recv() => "SIGINT",
        }
    }
}

/// Start serving an accepted socket, or refuse it when too many are open.
fn admit(
    stream: Stream,
    peer: Peer,
    shared: &Arc<Shared>,
    shutdown: &watch::Receiver<bool>,
    done: &mpsc::Sender<()>,
) {
    let open = shared.sockets.fetch_add(1, Ordering::Relaxed);
    let guard = SocketGuard {
        shared: shared.clone(),
        _done: done.clone(),
    };
    if open >= shared.sockets_max {
        tokio::spawn(refuse(stream, guard));
    } else {
        tokio::spawn(connection(
            stream,
            peer,
            shared.clone(),
            shutdown.clone(),
            guard,
        ));
    }
}

/// After a failed accept (EMFILE and friends): back off rather than spin.
async fn accept_failed(e: std::io::Error) {
    tracing::warn!("accept failed: {e}");
    tokio::time::sleep(Duration::from_millis(50)).await;
}

/// Accept on one Unix-domain socket until shutdown.
async fn accept_unix(
    listener: UnixListener,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
    done: mpsc::Sender<()>,
) {
    loop {
        tokio::select! {
            _ = shutdown.changed() => return,
            r = listener.accept() => match r {
                Ok((stream, _)) => admit(Stream::Unix(stream), Peer::Unix, &shared, &shutdown, &done),
                Err(e) => accept_failed(e).await,
            }
        }
    }
}

/// Accept until a signal arrives, then shut down.
pub async fn run(
    listener: TcpListener,
    unix: Vec<UnixListener>,
    shared: Arc<Shared>,
    mut signals: Signals,
) {
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    for l in unix {
        tokio::spawn(accept_unix(
            l,
            shared.clone(),
            shutdown_rx.clone(),
            done_tx.clone(),
        ));
    }
    let signal = loop {
        tokio::select! {
            s = signals.recv() => break s,
            r = listener.accept() => match r {
                Ok((stream, peer)) => admit(Stream::Tcp(stream), Peer::Tcp(peer), &shared, &shutdown_rx, &done_tx),
                Err(e) => accept_failed(e).await,
            }
        }
    };
    tracing::info!("received {signal}, shutting down");
    drop(listener);
    let _ = shutdown_tx.send(true);
    drop(done_tx);
    if tokio::time::timeout(SHUTDOWN_GRACE, done_rx.recv())
        .await
        .is_err()
    {
        tracing::warn!(
            "{} connection(s) still busy after {:?}; exiting anyway",
            shared.sockets.load(Ordering::Relaxed),
            SHUTDOWN_GRACE
        );
    }
}

async fn connection(
    stream: Stream,
    peer: Peer,
    shared: Arc<Shared>,
    shutdown: watch::Receiver<bool>,
    _guard: SocketGuard,
) {
    conn::serve(stream, peer, shared, shutdown).await;
}

async fn refuse(stream: Stream, _guard: SocketGuard) {
    let mut io = Io::new(stream);
    io.send_fatal(
        &DbError::new(
            SqlState::TooManyConnections,
            "sorry, too many clients already",
        )
        .with_severity(Severity::Fatal),
    )
    .await;
}
