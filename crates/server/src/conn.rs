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
//! Each connection is one tokio task while it is quiet, and owns a thread
//! while it talks:
//!
//! ```text
//!   poller (tokio task)            session thread (blocking pool)
//!   wait_for_input ──input──▶ active_loop: run every complete message,
//!        ▲                      write the output (one flush per Query or
//!        │                      Sync), wait ≤ ACTIVE_LINGER for more, ...
//!        └──────── quiet ──────  hand the socket back
//! ```
//!
//! A request/response client therefore costs no thread hand-off per
//! message (measured in docs/performance.md: the hand-off was half the CPU
//! of a short statement), and an idle connection costs no thread and no
//! buffer (both are freed before waiting), only the task, the socket and
//! the session. `Session::handle` may block (lock waits, pg_sleep): that is
//! fine on the session thread. Output is written in 64 KiB chunks so large
//! results do not double in memory. Shutdown while a statement runs cancels
//! it; the session thread notices shutdown and pg_terminate_backend() at
//! the latest when its linger ends; an idle connection waits on the
//! session's terminate signal, so it costs no wake-ups at all.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_session::protocol::FrontendMsg;
use nestor_session::session::Session;
use tokio::sync::watch;

use crate::codec::{self, Frontend};
use crate::io::{BlockingIo, Failure, Io};
use crate::shared::Shared;
use crate::startup;
use crate::stream::{Peer, Stream};

/// PostgreSQL's default `authentication_timeout`: the whole startup phase
/// must finish within it.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a connection keeps its session thread after its last input
/// before it goes back to the poller (sock.rs). Long enough to span a
/// client's think time between statements under load (256 clients on 2
/// cores come back every ~10 ms), short enough that a connection that
/// went quiet holds no thread.
const ACTIVE_LINGER: Duration = Duration::from_millis(50);

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
    stream: Stream,
    peer: Peer,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    stream.set_nodelay();
    let mut io = Io::new(stream);
    let started = tokio::select! {
        r = tokio::time::timeout(STARTUP_TIMEOUT, startup::startup(&mut io, &shared, peer)) => r,
        _ = shutdown.changed() => {
            io.send_fatal(&admin_shutdown()).await;
            return;
        }
    };
    let session = match started {
        Ok(Some(startup::Started::Session(session))) => *session,
        Ok(Some(startup::Started::Replication(peer_info))) => {
            let engine = shared.engine.clone();
            match io.into_std() {
                Ok((stream, leftover)) => {
                    let _ = tokio::task::spawn_blocking(move || {
                        crate::walsender::run(stream, leftover, engine, peer_info, shutdown)
                    })
                    .await;
                }
                Err(e) => tracing::warn!(%peer, "cannot hand the replication connection over: {e}"),
            }
            return;
        }
        Ok(None) => return,
        Err(_elapsed) => {
            tracing::debug!(%peer, "startup timed out");
            return;
        }
    };
    let (io, session) = run(io, session, &mut shutdown).await;
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

/// What the session thread hands back with the connection.
enum Outcome {
    /// No input for `ACTIVE_LINGER` (or the idle timeout is due): wait in
    /// the poller, counting idle time from the instant given.
    Quiet(Instant),
    /// Close the connection (socket gone, or Terminate).
    Close,
    /// Send this FATAL, then close.
    Fatal(DbError),
    /// The output already ends with a FATAL (the session was terminated):
    /// flush and close.
    Closing,
}

/// What ends a wait in the poller, or not.
enum Next {
    Continue,
    /// Close the connection, dropping the session.
    Close,
}

/// The message loop: alternate between the session thread (while the
/// client is talking) and the poller (while it is quiet). Returns the
/// connection unless it was lost with its thread, and the session unless it
/// was lost to a panic.
async fn run(
    mut io: Io,
    mut session: Session,
    shutdown: &mut watch::Receiver<bool>,
) -> (Option<Io>, Option<Session>) {
    let mut shutting_down = *shutdown.borrow();
    // The first input (often already buffered with the startup packet)
    // moves the connection to a session thread; a connection that logs in
    // and waits costs no thread.
    let mut has_input = !io.rbuf.is_empty();
    let mut quiet_since = Instant::now();
    loop {
        if shutting_down || session.is_terminated() {
            io.send_fatal(&admin_shutdown()).await;
            return (Some(io), Some(session));
        }
        if has_input {
            let (back_io, back, outcome) = active(io, session, shutdown, &mut shutting_down).await;
            let Some(back_io) = back_io else {
                return (None, back);
            };
            io = back_io;
            quiet_since = match outcome {
                Outcome::Quiet(since) => since,
                Outcome::Close => return (Some(io), back),
                Outcome::Fatal(e) => {
                    io.send_fatal(&e).await;
                    return (Some(io), back);
                }
                Outcome::Closing => {
                    io.close().await;
                    return (Some(io), back);
                }
            };
            let Some(back) = back else {
                return (Some(io), None); // unreachable: a lost session is Fatal
            };
            session = back;
            has_input = false;
            // Shutdown or termination seen while the session thread had
            // the connection: check before waiting in the poller.
            continue;
        }
        io.release_idle_buffers();
        match wait_for_input(
            &mut io,
            &mut session,
            shutdown,
            &mut shutting_down,
            quiet_since,
        )
        .await
        {
            Next::Continue => has_input = true,
            Next::Close => return (Some(io), Some(session)),
        }
    }
}

/// Move the connection to a session thread until the client goes quiet
/// (see sock.rs for why). The socket and buffers move with it and come
/// back. None: the session panicked and is gone.
async fn active(
    io: Io,
    mut session: Session,
    shutdown: &mut watch::Receiver<bool>,
    shutting_down: &mut bool,
) -> (Option<Io>, Option<Session>, Outcome) {
    let cancel = session.cancel_token();
    let stop = shutdown.clone();
    let Ok(mut bio) = io.into_blocking() else {
        return (None, Some(session), Outcome::Close);
    };
    let mut handle = tokio::task::spawn_blocking(move || {
        // Lines the server log gets from this thread are about this
        // session until it hands the connection back.
        let log = session.log_session().clone();
        let ran = std::panic::catch_unwind(AssertUnwindSafe(|| {
            // Type names resolve among the session's database's types.
            let db = session.database_oid();
            nestor_common::log::scoped(&log, || {
                nestor_types::database_scope::with_database(db, || {
                    active_loop(&mut bio, &mut session, &stop)
                })
            })
        }));
        match ran {
            Ok(outcome) => (bio, Some(session), outcome),
            Err(_) => {
                // The panic hook has printed it. Dropping the session
                // rolls back its transaction and releases its locks.
                drop(session);
                let e = fatal(
                    SqlState::InternalError,
                    "internal error: the session failed; connection closed",
                );
                (bio, None, Outcome::Fatal(e))
            }
        }
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
    match joined {
        Ok((bio, session, outcome)) => {
            if session.is_none() {
                tracing::error!("session panicked; connection closed");
            }
            match Io::from_blocking(bio) {
                Ok(io) => (Some(io), session, outcome),
                Err(e) => {
                    tracing::warn!("cannot watch the socket again: {e}");
                    (None, session, Outcome::Close)
                }
            }
        }
        // Only the socket code around the catch_unwind could get here:
        // the connection is gone with the thread's stack.
        Err(e) => {
            tracing::error!("connection thread failed: {e}");
            (None, None, Outcome::Close)
        }
    }
}

/// On the session thread: run every complete message, write the output
/// (one flush per batch, i.e. per Query or Sync), and wait for the next
/// message for up to `ACTIVE_LINGER`.
fn active_loop(
    io: &mut BlockingIo,
    session: &mut Session,
    shutdown: &watch::Receiver<bool>,
) -> Outcome {
    let give_up = || *shutdown.borrow();
    let mut out = Vec::new();
    loop {
        if give_up() {
            return Outcome::Fatal(admin_shutdown());
        }
        let batch = next_batch(&mut io.rbuf);
        for m in batch.msgs {
            session.handle(m, &mut out);
            if session.is_terminated() {
                break;
            }
        }
        if session.is_terminated() {
            session.send_fatal_terminated(&mut out);
        }
        match io.write_out(&out, &give_up) {
            Ok(()) => {}
            Err(Failure::Io) => return Outcome::Close,
            Err(Failure::Fatal(e)) => return Outcome::Fatal(e.with_severity(Severity::Fatal)),
        }
        out.clear();
        if session.is_terminated() {
            return Outcome::Closing;
        }
        if let Some(e) = batch.error {
            return Outcome::Fatal(e);
        }
        if batch.terminate {
            let _ = io.flush(&give_up);
            return Outcome::Close;
        }
        if codec::pending_frame_len(&io.rbuf).is_some_and(|n| n <= io.rbuf.len()) {
            continue; // more complete messages already buffered
        }
        if io.flush(&give_up).is_err() {
            return Outcome::Close;
        }
        let quiet_since = Instant::now();
        let linger = session
            .idle_timeout()
            .map_or(ACTIVE_LINGER, |t| t.min(ACTIVE_LINGER));
        match io.fill_within(linger) {
            Ok(None) => return Outcome::Quiet(quiet_since),
            Ok(Some(0)) if io.rbuf.is_empty() => return Outcome::Close,
            Ok(Some(0)) => {
                return Outcome::Fatal(codec::protocol_violation("incomplete message from client"))
            }
            Ok(Some(_)) => {}
            Err(_) => return Outcome::Close,
        }
    }
}

/// Wait, holding no buffers, until the client sends more, the idle-in-
/// transaction timeout (counted from `quiet_since`) fires, the server
/// shuts down or the session is terminated; notifications that arrive
/// meanwhile are sent as they come.
async fn wait_for_input(
    io: &mut Io,
    session: &mut Session,
    shutdown: &mut watch::Receiver<bool>,
    shutting_down: &mut bool,
    quiet_since: Instant,
) -> Next {
    // idle_in_transaction_session_timeout, from the session's settings.
    let idle_deadline = session
        .idle_timeout()
        .map(|d| tokio::time::Instant::from_std(quiet_since + d));
    loop {
        let signal = session.terminate_signal();
        tokio::select! {
        _ = tokio::time::sleep_until(idle_deadline.unwrap_or_else(tokio::time::Instant::now)), if idle_deadline.is_some() => {
            let mut out = Vec::new();
            session.on_idle_timeout(&mut out);
            let _ = io.write_out(&out).await;
            let _ = io.flush().await;
            return Next::Close;
        }
        r = io.fill() => return match r {
            Ok(0) => {
                if !io.rbuf.is_empty() {
                    io.send_fatal(&codec::protocol_violation(
                        "incomplete message from client",
                    ))
                    .await;
                }
                Next::Close
            }
            Ok(_) => Next::Continue,
            Err(_) => Next::Close,
        },
        _ = shutdown.changed(), if !*shutting_down => {
            *shutting_down = true;
            return Next::Continue;
        }
        _ = signal => {
            if session.is_terminated() {
                io.send_fatal(&admin_shutdown()).await;
                return Next::Close;
            }
            // A notification for an idle session: send it now (PostgreSQL
            // interrupts its wait for input the same way).
            let mut out = Vec::new();
            if session.take_notifications(&mut out)
                && (io.write_out(&out).await.is_err() || io.flush().await.is_err())
            {
                return Next::Close;
            }
            continue;
        }
        }
    }
}
