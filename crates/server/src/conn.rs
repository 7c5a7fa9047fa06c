//! One client connection: startup, then the message loop.
//!
//! Design: the wire layer is thin. It splits bytes into messages, hands each
//! to `Session::handle` and writes back what the session returns; all
//! protocol *meaning* (transaction status, skip-until-Sync after an error,
//! portals, COPY state, when to send ReadyForQuery) is the session's.
//!
//! The loop is ours rather than pgwire's handler loop so that the session,
//! not a fixed response kind, decides the ReadyForQuery status, and so that
//! we can act on events other than client input (shutdown, termination).
//!
//! Each connection is one tokio task: no thread per connection. An idle
//! connection holds no read or write buffer (they are freed before waiting
//! for input and allocated when the socket becomes readable), so its cost
//! is the task, the socket and the session.
//!
//! `Session::handle` may block (lock waits, pg_sleep), so a batch of
//! messages runs on the blocking pool with the session moved in and back.
//! A batch is every complete message already buffered, up to and including
//! the first Query or Sync: pipelined Parse/Bind/Execute/Sync cost one
//! thread hop, and output is flushed at each ReadyForQuery as PostgreSQL
//! does. Output is written in 64 KiB chunks so large results do not double
//! in memory.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_session::protocol::FrontendMsg;
use nestor_session::session::Session;
use tokio::net::TcpStream;
use tokio::sync::watch;

use crate::codec::{self, Frontend};
use crate::io::{Failure, Io};
use crate::shared::Shared;
use crate::startup;

/// PostgreSQL's default `authentication_timeout`: the whole startup phase
/// must finish within it.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// How often an idle connection checks whether its session was terminated
/// by pg_terminate_backend() (a running statement notices through the
/// session itself). Polling because the session offers no wake-up; measured
/// cost: ~3.6% of one core for 10,000 idle connections (release build).
const TERMINATE_POLL: Duration = Duration::from_secs(1);

fn fatal(code: SqlState, message: &str) -> DbError {
    DbError::new(code, message).with_severity(Severity::Fatal)
}

pub fn admin_shutdown() -> DbError {
    fatal(
        SqlState::AdminShutdown,
        "terminating connection due to administrator command",
    )
}

/// Serve one accepted connection to the end.
pub async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let mut io = Io::new(stream);
    let started = tokio::select! {
        r = tokio::time::timeout(STARTUP_TIMEOUT, startup::startup(&mut io, &shared, peer)) => r,
        _ = shutdown.changed() => {
            io.send_fatal(&admin_shutdown()).await;
            return;
        }
    };
    let session = match started {
        Ok(Some(session)) => session,
        Ok(None) => return,
        Err(_elapsed) => {
            tracing::debug!(%peer, "startup timed out");
            return;
        }
    };
    let session = run(&mut io, session, &mut shutdown).await;
    // Drop the session (aborting any open transaction and releasing its
    // locks) before the socket closes, so that a client that reconnects at
    // once finds them released. Drop may take locks: off the async threads.
    if let Some(session) = session {
        let _ = tokio::task::spawn_blocking(move || drop(session)).await;
    }
    drop(io);
}

/// Decode the next batch: complete buffered messages up to and including
/// the first Query or Sync.
struct Batch {
    msgs: Vec<FrontendMsg>,
    terminate: bool,
    error: Option<DbError>,
}

fn next_batch(rbuf: &mut BytesMut) -> Batch {
    let mut b = Batch {
        msgs: Vec::new(),
        terminate: false,
        error: None,
    };
    loop {
        match codec::decode_message(rbuf) {
            Ok(Some(Frontend::Msg(m))) => {
                let ends = matches!(m, FrontendMsg::Query(_) | FrontendMsg::Sync);
                b.msgs.push(m);
                if ends {
                    break;
                }
            }
            Ok(Some(Frontend::Terminate)) => {
                b.terminate = true;
                break;
            }
            Ok(Some(Frontend::Auth(_))) => {
                b.error = Some(codec::protocol_violation(format!(
                    "invalid frontend message type {}",
                    b'p'
                )));
                break;
            }
            Ok(None) => break,
            Err(e) => {
                b.error = Some(e);
                break;
            }
        }
    }
    b
}

/// What ends the message loop, or not.
enum Next {
    Continue,
    /// Close the connection, dropping the session.
    Close,
}

/// The message loop. Returns the session unless it was lost to a panic.
async fn run(
    io: &mut Io,
    mut session: Session,
    shutdown: &mut watch::Receiver<bool>,
) -> Option<Session> {
    let mut shutting_down = *shutdown.borrow();
    loop {
        if shutting_down || session.is_terminated() {
            io.send_fatal(&admin_shutdown()).await;
            return Some(session);
        }
        let batch = next_batch(&mut io.rbuf);
        if !batch.msgs.is_empty() {
            let next;
            (session, next) =
                match run_batch(io, session, batch.msgs, shutdown, &mut shutting_down).await {
                    Some(r) => r,
                    None => return None,
                };
            if let Next::Close = next {
                return Some(session);
            }
        }
        if let Some(e) = batch.error {
            io.send_fatal(&e).await;
            return Some(session);
        }
        if batch.terminate {
            let _ = io.flush().await;
            return Some(session);
        }
        if io.flush().await.is_err() {
            return Some(session);
        }
        if codec::pending_frame_len(&io.rbuf).is_some_and(|n| n <= io.rbuf.len()) {
            continue; // more complete messages already buffered
        }
        io.release_idle_buffers();
        match wait_for_input(io, &mut session, shutdown, &mut shutting_down).await {
            Next::Continue => {}
            Next::Close => return Some(session),
        }
    }
}

/// Run one batch on the blocking pool (the session moves there and back)
/// and write its output. None: the session panicked and is gone.
async fn run_batch(
    io: &mut Io,
    mut session: Session,
    msgs: Vec<FrontendMsg>,
    shutdown: &mut watch::Receiver<bool>,
    shutting_down: &mut bool,
) -> Option<(Session, Next)> {
    let cancel = session.cancel_token();
    let mut handle = tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        for m in msgs {
            session.handle(m, &mut out);
            if session.is_terminated() {
                break;
            }
        }
        (session, out)
    });
    let joined = loop {
        tokio::select! {
            r = &mut handle => break r,
            // Shutdown while a statement runs: cancel it, then wait.
            _ = shutdown.changed(), if !*shutting_down => {
                *shutting_down = true;
                cancel.cancel();
            }
        }
    };
    let (session, out) = match joined {
        Ok(r) => r,
        Err(e) => {
            tracing::error!("session panicked: {e}");
            io.send_fatal(&fatal(
                SqlState::InternalError,
                "internal error: the session failed; connection closed",
            ))
            .await;
            return None;
        }
    };
    let next = match io.write_out(&out).await {
        Ok(()) if session.is_terminated() => {
            io.send_fatal(&admin_shutdown()).await;
            Next::Close
        }
        Ok(()) => Next::Continue,
        Err(Failure::Io) => Next::Close,
        Err(Failure::Fatal(e)) => {
            io.send_fatal(&e.with_severity(Severity::Fatal)).await;
            Next::Close
        }
    };
    Some((session, next))
}

/// Wait, holding no buffers, until the client sends more, the idle-in-
/// transaction timeout fires, the server shuts down or the session is
/// terminated.
async fn wait_for_input(
    io: &mut Io,
    session: &mut Session,
    shutdown: &mut watch::Receiver<bool>,
    shutting_down: &mut bool,
) -> Next {
    // idle_in_transaction_session_timeout, from the session's settings.
    let idle_deadline = session
        .idle_timeout()
        .map(|d| tokio::time::Instant::now() + d);
    loop {
        tokio::select! {
            _ = tokio::time::sleep_until(idle_deadline.unwrap_or_else(tokio::time::Instant::now)), if idle_deadline.is_some() => {
                let mut out = Vec::new();
                session.on_idle_timeout(&mut out);
                let _ = io.write_out(&out).await;
                let _ = io.flush().await;
                return Next::Close;
            }
            r = io.fill() => match r {
                Ok(0) => {
                    if !io.rbuf.is_empty() {
                        io.send_fatal(&codec::protocol_violation(
                            "incomplete message from client",
                        ))
                        .await;
                    }
                    return Next::Close;
                }
                Ok(_) => return Next::Continue,
                Err(_) => return Next::Close,
            },
            _ = shutdown.changed(), if !*shutting_down => {
                *shutting_down = true;
                return Next::Continue;
            }
            _ = tokio::time::sleep(TERMINATE_POLL) => {
                if session.is_terminated() {
                    io.send_fatal(&admin_shutdown()).await;
                    return Next::Close;
                }
            }
        }
    }
}
