//! Connection startup: SSL/GSS negotiation, cancel requests, the startup
//! packet, authentication, and creation of the session.
//!
//! Design: a straight-line async function per connection, mirroring
//! PostgreSQL's ProcessStartupPacket + ClientAuthentication:
//!
//! 1. Packets without a type byte: SSLRequest / GSSENCRequest get 'N' (we
//!    speak plaintext only) and the client continues; a CancelRequest is
//!    forwarded to `Engine::cancel_request` and the connection closed with no
//!    reply; a StartupMessage must be protocol 3.x (3.1+ is negotiated down to
//!    3.0 with NegotiateProtocolVersion, other majors get FATAL 0A000).
//! 2. Authentication: trust (AuthenticationOk) or, with a server password,
//!    SCRAM-SHA-256 (see `scram.rs`). Wrong password: FATAL 28P01.
//! 3. `Session::new` (an Err such as 53300 is sent as FATAL), then
//!    BackendKeyData, the session's ParameterStatus values and ReadyForQuery.
//!
//! Any protocol violation is a FATAL ErrorResponse and the connection ends.
//! A client that hangs up during authentication (psql does, to prompt for a
//! password) is closed quietly.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use nestor_common::error::Severity;
use nestor_common::{DbError, SessionId, SqlState};
use nestor_session::protocol::BackendMsg;
use nestor_session::session::{Session, SessionInfo};
use pgwire::messages::startup::{
    Authentication, BackendKeyData, NegotiateProtocolVersion, SecretKey,
};
use pgwire::messages::PgWireBackendMessage;

use crate::codec::{self, Cursor, Frontend, StartupPacket};
use crate::io::Io;
use crate::scram;
use crate::shared::Shared;

fn fatal(code: SqlState, message: impl Into<String>) -> DbError {
    DbError::new(code, message).with_severity(Severity::Fatal)
}

/// Outcome of a step: `Err(Some(e))` sends `e` and closes, `Err(None)`
/// closes silently (peer gone, or a cancel request done).
type Step<T> = Result<T, Option<DbError>>;

fn send(io: &mut Io, msg: PgWireBackendMessage) -> Step<()> {
    codec::encode_pg(&mut io.wbuf, &msg).map_err(Some)?;
    Ok(())
}

async fn flush(io: &mut Io) -> Step<()> {
    io.flush().await.map_err(|_| None)
}

/// Run the startup phase. `None`: the connection is finished (an error was
/// already sent if there was one to send).
pub async fn startup(io: &mut Io, shared: &Arc<Shared>, peer: SocketAddr) -> Option<Session> {
    match run(io, shared, peer).await {
        Ok(s) => Some(s),
        Err(Some(e)) => {
            tracing::debug!(%peer, "startup failed: {e}");
            io.send_fatal(&e).await;
            None
        }
        Err(None) => None,
    }
}

/// Read one startup-phase packet.
async fn read_startup_packet(io: &mut Io) -> Step<StartupPacket> {
    loop {
        if let Some(p) = codec::decode_startup(&mut io.rbuf).map_err(Some)? {
            return Ok(p);
        }
        match io.fill().await {
            Ok(0) | Err(_) => return Err(None),
            Ok(_) => {}
        }
    }
}

async fn run(io: &mut Io, shared: &Arc<Shared>, peer: SocketAddr) -> Step<Session> {
    let (major, minor, params) = negotiate(io, shared).await?;
    if major != 3 {
        return Err(Some(fatal(
            SqlState::FeatureNotSupported,
            format!("unsupported frontend protocol {major}.{minor}: server supports 3.0 to 3.0"),
        )));
    }
    let (ident, unrecognized) = identify(params)?;
    if minor > 0 || !unrecognized.is_empty() {
        send(
            io,
            PgWireBackendMessage::NegotiateProtocolVersion(NegotiateProtocolVersion::new(
                0,
                unrecognized,
            )),
        )?;
    }
    if let Some(verifier) = &shared.verifier {
        authenticate_scram(io, verifier, &ident.user).await?;
    }
    send(io, PgWireBackendMessage::Authentication(Authentication::Ok))?;
    let session = open_session(shared, ident, peer).await?;
    send(
        io,
        PgWireBackendMessage::BackendKeyData(BackendKeyData::new(
            session.pid().0 as i32,
            SecretKey::I32(session.secret_key()),
        )),
    )?;
    for (k, v) in session.parameter_status() {
        send(io, codec::parameter_status(&k, &v))?;
    }
    codec::encode(
        &mut io.wbuf,
        &BackendMsg::ReadyForQuery(session.transaction_status()),
    )
    .map_err(Some)?;
    flush(io).await?;
    Ok(session)
}

/// Answer SSL/GSS encryption requests ("N": not supported, once each) and
/// cancel requests until the startup message arrives; its version and
/// parameters.
async fn negotiate(io: &mut Io, shared: &Arc<Shared>) -> Step<(u16, u16, Vec<(String, String)>)> {
    let mut ssl_done = false;
    let mut gss_done = false;
    loop {
        match read_startup_packet(io).await? {
            StartupPacket::SslRequest if !ssl_done => ssl_done = true,
            StartupPacket::GssEncRequest if !gss_done => gss_done = true,
            StartupPacket::SslRequest | StartupPacket::GssEncRequest => {
                return Err(Some(codec::protocol_violation(
                    "duplicate SSL/GSS negotiation request",
                )));
            }
            StartupPacket::Cancel { pid, secret } => {
                if pid > 0 {
                    let engine = shared.engine.clone();
                    // May take the engine's session registry lock.
                    let _ = tokio::task::spawn_blocking(move || {
                        engine.cancel_request(SessionId(pid as u32), secret)
                    })
                    .await;
                }
                return Err(None);
            }
            StartupPacket::Startup {
                major,
                minor,
                params,
            } => return Ok((major, minor, params)),
        }
        io.wbuf.extend_from_slice(b"N");
        flush(io).await?;
    }
}

/// Who connects where, from the startup parameters.
struct Identity {
    user: String,
    database: String,
    application_name: String,
    /// Parameters applied as session settings.
    params: Vec<(String, String)>,
}

/// The identity in the startup parameters, and the `_pq_.` protocol
/// options we do not recognize (reported in NegotiateProtocolVersion).
fn identify(params: Vec<(String, String)>) -> Step<(Identity, Vec<String>)> {
    let mut user = None;
    let mut database = None;
    let mut application_name = String::new();
    let mut startup_params = Vec::new();
    let mut unrecognized = Vec::new();
    for (k, v) in params {
        match k.as_str() {
            "user" => user = Some(v),
            "database" => database = Some(v),
            "application_name" => application_name = v.clone(),
            _ if k.starts_with("_pq_.") => unrecognized.push(k),
            _ => startup_params.push((k, v)),
        }
    }
    let user = match user {
        Some(u) if !u.is_empty() => u,
        _ => {
            return Err(Some(fatal(
                SqlState::InvalidAuthorizationSpecification,
                "no PostgreSQL user name specified in startup packet",
            )))
        }
    };
    let database = match database {
        Some(d) if !d.is_empty() => d,
        _ => user.clone(),
    };
    let ident = Identity {
        user,
        database,
        application_name,
        params: startup_params,
    };
    Ok((ident, unrecognized))
}

/// Create the session (it registers with the engine, which may block).
async fn open_session(shared: &Arc<Shared>, ident: Identity, peer: SocketAddr) -> Step<Session> {
    let info = SessionInfo {
        pid: SessionId(shared.next_pid()),
        secret_key: rand::random(),
        user: ident.user,
        database: ident.database,
        application_name: ident.application_name,
        client_addr: Some(peer.ip().to_string()),
        startup_params: ident.params,
    };
    let engine = shared.engine.clone();
    tokio::task::spawn_blocking(move || Session::new(engine, info))
        .await
        .map_err(|_| {
            Some(fatal(
                SqlState::InternalError,
                "internal error creating session",
            ))
        })?
        .map_err(|e| Some(e.with_severity(Severity::Fatal)))
}

/// Read the next 'p' message body during authentication.
async fn read_auth_message(io: &mut Io) -> Step<Vec<u8>> {
    loop {
        match codec::decode_message(&mut io.rbuf) {
            Ok(Some(Frontend::Auth(body))) => return Ok(body),
            Ok(Some(Frontend::Terminate)) => return Err(None),
            Ok(Some(Frontend::Msg(_))) => {
                return Err(Some(codec::protocol_violation(
                    "expected SASL response, got a different message type",
                )))
            }
            Ok(None) => {}
            Err(e) => return Err(Some(e)),
        }
        match io.fill().await {
            Ok(0) | Err(_) => return Err(None),
            Ok(_) => {}
        }
    }
}

fn malformed(detail: &str) -> Option<DbError> {
    Some(codec::protocol_violation("malformed SCRAM message").with_detail(detail))
}

async fn authenticate_scram(io: &mut Io, verifier: &scram::Verifier, user: &str) -> Step<()> {
    send(
        io,
        PgWireBackendMessage::Authentication(Authentication::SASL(vec![
            scram::MECHANISM.to_owned()
        ])),
    )?;
    flush(io).await?;

    // SASLInitialResponse: mechanism, Int32 length (-1: none), data.
    let body = read_auth_message(io).await?;
    let mut c = Cursor::new(&body);
    // Every error during authentication ends the connection.
    let mechanism = c
        .cstr()
        .map_err(|e| Some(e.with_severity(nestor_common::error::Severity::Fatal)))?;
    if mechanism != scram::MECHANISM {
        return Err(Some(codec::protocol_violation(
            "client selected an invalid SASL authentication mechanism",
        )));
    }
    let len = c.i32().map_err(Some)?;
    if len < 0 {
        return Err(malformed("The message is empty."));
    }
    let first = c.bytes(len as usize).map_err(Some)?;
    if c.remaining() != 0 {
        return Err(Some(codec::protocol_violation("invalid message format")));
    }
    let (exchange, server_first) = scram::client_first(verifier, first).map_err(scram_err(user))?;
    send(
        io,
        PgWireBackendMessage::Authentication(Authentication::SASLContinue(Bytes::from(
            server_first,
        ))),
    )?;
    flush(io).await?;

    // SASLResponse: the client-final-message.
    let body = read_auth_message(io).await?;
    let server_final = scram::client_final(verifier, &exchange, &body).map_err(scram_err(user))?;
    send(
        io,
        PgWireBackendMessage::Authentication(Authentication::SASLFinal(Bytes::from(server_final))),
    )
}

fn scram_err(user: &str) -> impl Fn(scram::ScramError) -> Option<DbError> + '_ {
    move |e| match e {
        scram::ScramError::BadProof => Some(fatal(
            SqlState::InvalidPassword,
            format!("password authentication failed for user \"{user}\""),
        )),
        scram::ScramError::Malformed(detail) => malformed(detail),
    }
}
