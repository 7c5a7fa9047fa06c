//! Connection startup: SSL/GSS negotiation, cancel requests, the startup
//! packet, authentication, and creation of the session.
//!
//! Design: a straight-line async function per connection, mirroring
//! PostgreSQL's ProcessStartupPacket + ClientAuthentication:
//!
//! 1. Packets without a type byte: SSLRequest gets 'S' and the TLS
//!    handshake when the server has a certificate (tls.rs), else 'N';
//!    GSSENCRequest always gets 'N'; the client continues (in TLS after
//!    'S', where another SSL/GSS request is a protocol violation); with
//!    `--tls-required` a startup packet in plaintext gets PostgreSQL's
//!    pg_hba FATAL 28000 "... no encryption"; a CancelRequest is
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

use std::sync::Arc;

use bytes::Bytes;
use nestor_catalog::RoleDef;
use nestor_common::error::Severity;
use nestor_common::{DbError, SessionId, SqlState};
use nestor_session::protocol::{BackendMsg, TxnStatus};
use nestor_session::session::{Session, SessionInfo};
use pgwire::messages::startup::{
    Authentication, BackendKeyData, NegotiateProtocolVersion, SecretKey,
};
use pgwire::messages::PgWireBackendMessage;

use crate::codec::{self, Cursor, Frontend, StartupPacket};
use crate::io::Io;
use crate::scram;
use crate::shared::Shared;
use crate::stream::Peer;

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

/// What the startup phase opened.
pub enum Started {
    Session(Box<Session>),
    /// A replication connection (`replication=true|database`): a
    /// walsender, not a session.
    Replication(crate::repl_wire::Peer),
}

/// Run the startup phase. `None`: the connection is finished (an error was
/// already sent if there was one to send).
pub async fn startup(io: &mut Io, shared: &Arc<Shared>, peer: Peer) -> Option<Started> {
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

async fn run(io: &mut Io, shared: &Arc<Shared>, peer: Peer) -> Step<Started> {
    let (major, minor, params) = negotiate(io, shared).await?;
    if major != 3 {
        return Err(Some(fatal(
            SqlState::FeatureNotSupported,
            format!("unsupported frontend protocol {major}.{minor}: server supports 3.0 to 3.0"),
        )));
    }
    let (ident, unrecognized) = identify(params)?;
    // --tls-required is about the network: a Unix-domain socket cannot
    // carry TLS (PostgreSQL's `hostssl` lines likewise never match it).
    if shared.tls_required && !io.is_tls() && peer != Peer::Unix {
        return Err(Some(no_encryption(&ident, peer)));
    }
    if minor > 0 || !unrecognized.is_empty() {
        send(
            io,
            PgWireBackendMessage::NegotiateProtocolVersion(NegotiateProtocolVersion::new(
                0,
                unrecognized,
            )),
        )?;
    }
    let role = authenticate(io, shared, &ident, peer).await?;
    if ident.replication {
        return start_walsender(io, shared, ident, &role, peer).await;
    }
    send(io, PgWireBackendMessage::Authentication(Authentication::Ok))?;
    let session = open_session(shared, ident, peer, io.ssl_info()).await?;
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
    Ok(Started::Session(Box::new(session)))
}

/// A replication connection after authentication: superusers and roles
/// with REPLICATION only, then
/// AuthenticationOk, BackendKeyData, the fixed ParameterStatus values a
/// walreceiver reads, ReadyForQuery. walsender.rs does the rest.
async fn start_walsender(
    io: &mut Io,
    shared: &Arc<Shared>,
    ident: Identity,
    role: &RoleDef,
    peer: Peer,
) -> Step<Started> {
    if io.is_tls() {
        return Err(Some(fatal(
            SqlState::FeatureNotSupported,
            "replication connections over SSL are not supported",
        )));
    }
    if !(role.superuser || role.replication) {
        return Err(Some(fatal(
            SqlState::InsufficientPrivilege,
            "must be superuser or replication role to start walsender",
        )));
    }
    send(io, PgWireBackendMessage::Authentication(Authentication::Ok))?;
    let pid = SessionId(shared.next_pid());
    send(
        io,
        PgWireBackendMessage::BackendKeyData(BackendKeyData::new(
            pid.0 as i32,
            SecretKey::I32(rand::random()),
        )),
    )?;
    for (k, v) in [
        ("server_version", "15.0"),
        ("server_encoding", "UTF8"),
        ("client_encoding", "UTF8"),
        ("DateStyle", "ISO, MDY"),
        ("integer_datetimes", "on"),
        ("standard_conforming_strings", "on"),
        ("TimeZone", "UTC"),
        ("application_name", ident.application_name.as_str()),
    ] {
        send(io, codec::parameter_status(k, v))?;
    }
    codec::encode(&mut io.wbuf, &BackendMsg::ReadyForQuery(TxnStatus::Idle)).map_err(Some)?;
    flush(io).await?;
    Ok(Started::Replication(crate::repl_wire::Peer {
        pid,
        user: ident.user,
        application_name: ident.application_name,
        client_addr: peer.ip().map(|ip| ip.to_string()),
    }))
}

/// FATAL 28000 for a connection the rules refuse: `what` is "no
/// pg_hba.conf entry for" or "pg_hba.conf rejects", as PostgreSQL words
/// them.
fn hba_refusal(ident: &Identity, peer: Peer, tls: bool, what: &str) -> DbError {
    let host = peer.host();
    let enc = if tls {
        "SSL encryption"
    } else {
        "no encryption"
    };
    let message = if ident.replication {
        let what = what.replace("rejects", "rejects replication connection for");
        let what = what.replace("entry for", "entry for replication connection from");
        format!("{what} host \"{host}\", user \"{}\", {enc}", ident.user)
    } else {
        let what = if what.ends_with("rejects") {
            format!("{what} connection for")
        } else {
            what.to_string()
        };
        format!(
            "{what} host \"{host}\", user \"{}\", database \"{}\", {enc}",
            ident.user, ident.database
        )
    };
    fatal(SqlState::InvalidAuthorizationSpecification, message)
}

/// PostgreSQL's refusal when only `hostssl` lines would match (pg_hba).
fn no_encryption(ident: &Identity, peer: Peer) -> DbError {
    let host = peer.host();
    let message = if ident.replication {
        format!(
            "no pg_hba.conf entry for replication connection from host \"{host}\", user \"{}\", no encryption",
            ident.user
        )
    } else {
        format!(
            "no pg_hba.conf entry for host \"{host}\", user \"{}\", database \"{}\", no encryption",
            ident.user, ident.database
        )
    };
    fatal(SqlState::InvalidAuthorizationSpecification, message)
}

/// Answer SSL/GSS encryption requests (once each: 'S' and the TLS
/// handshake for SSL when the server has a certificate, else 'N') and
/// cancel requests until the startup message arrives; its version and
/// parameters.
async fn negotiate(io: &mut Io, shared: &Arc<Shared>) -> Step<(u16, u16, Vec<(String, String)>)> {
    let mut ssl_done = false;
    let mut gss_done = false;
    loop {
        match read_startup_packet(io).await? {
            StartupPacket::SslRequest if !ssl_done => {
                ssl_done = true;
                // Over a Unix-domain socket TLS is refused ('N'), as
                // PostgreSQL does.
                if let Some(config) = shared.tls.as_ref().filter(|_| !io.stream.is_unix()) {
                    // Bytes after the SSLRequest would be plaintext the
                    // client did not mean to be read as such (PostgreSQL's
                    // CVE-2021-23214 check).
                    if !io.rbuf.is_empty() {
                        return Err(Some(codec::protocol_violation(
                            "received unencrypted data after SSL request",
                        )));
                    }
                    io.wbuf.extend_from_slice(b"S");
                    flush(io).await?;
                    if let Err(e) = io.start_tls(config.clone()).await {
                        tracing::debug!("TLS handshake failed: {e}");
                        return Err(None);
                    }
                    // As PostgreSQL: no further negotiation inside TLS.
                    gss_done = true;
                    continue;
                }
            }
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
    /// `replication=true|on|yes|1|database`: a walsender.
    replication: bool,
}

/// The identity in the startup parameters, and the `_pq_.` protocol
/// options we do not recognize (reported in NegotiateProtocolVersion).
fn identify(params: Vec<(String, String)>) -> Step<(Identity, Vec<String>)> {
    let mut user = None;
    let mut database = None;
    let mut application_name = String::new();
    let mut startup_params = Vec::new();
    let mut unrecognized = Vec::new();
    let mut replication = false;
    for (k, v) in params {
        match k.as_str() {
            "user" => user = Some(v),
            "replication" => {
                replication = match v.to_ascii_lowercase().as_str() {
                    "true" | "on" | "yes" | "1" | "database" => true,
                    "false" | "off" | "no" | "0" => false,
                    _ => {
                        return Err(Some(fatal(
                            SqlState::InvalidParameterValue,
                            format!("invalid value for parameter \"replication\": \"{v}\""),
                        )))
                    }
                }
            }
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
        replication,
    };
    Ok((ident, unrecognized))
}

/// Create the session (it registers with the engine, which may block).
async fn open_session(
    shared: &Arc<Shared>,
    ident: Identity,
    peer: Peer,
    ssl: Option<nestor_exec::registry::SslInfo>,
) -> Step<Session> {
    let info = SessionInfo {
        ssl,
        pid: SessionId(shared.next_pid()),
        secret_key: rand::random(),
        user: ident.user,
        database: ident.database,
        application_name: ident.application_name,
        client_addr: peer.ip().map(|ip| ip.to_string()),
        client_port: u16::try_from(peer.port()).ok(),
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

/// Authenticate the startup packet's role, PostgreSQL's
/// ClientAuthentication: the first matching rule (hba.rs: `--hba-file`, or
/// trust / SCRAM-SHA-256 everywhere by `--password`) decides; SCRAM checks
/// the role's own verifier, or the server password's for a role without
/// one. A role that does not exist fails the password exchange like a
/// wrong password (28P01, PostgreSQL's mock authentication: whether a role
/// exists is not given away), and under trust gets FATAL 28000; so does a
/// role without LOGIN.
async fn authenticate(
    io: &mut Io,
    shared: &Shared,
    ident: &Identity,
    peer: Peer,
) -> Step<Arc<RoleDef>> {
    let catalog = &shared.engine.catalog;
    let role = catalog.role(&ident.user);
    let conn = crate::hba::Conn {
        peer: peer.ip(),
        tls: io.is_tls(),
        database: &ident.database,
        replication: ident.replication,
        user: &ident.user,
    };
    let member = |user: &str, group: &str| match (catalog.role(user), catalog.role(group)) {
        (Some(u), Some(g)) => catalog.is_member_of(u.oid, g.oid),
        _ => false,
    };
    let method = match shared.hba.decide(&conn, &member) {
        Some((m, _)) => m,
        None => {
            return Err(Some(hba_refusal(
                ident,
                peer,
                io.is_tls(),
                "no pg_hba.conf entry for",
            )))
        }
    };
    if method == crate::hba::Method::Reject {
        return Err(Some(hba_refusal(
            ident,
            peer,
            io.is_tls(),
            "pg_hba.conf rejects",
        )));
    }
    if method == crate::hba::Method::Scram {
        let own = role
            .as_ref()
            .and_then(|r| r.password.as_deref())
            .and_then(scram::Verifier::parse);
        let verifier = match (&role, own, &shared.verifier) {
            (Some(_), Some(own), _) => own,
            (Some(_), None, Some(server)) => server.clone(),
            // Mock: no password opens it (an unknown role, or one without
            // a password and no server password).
            _ => scram::Verifier::new(&format!("{:x}", rand::random::<u128>())),
        };
        authenticate_scram(io, &verifier, &ident.user).await?;
        let expired = role
            .as_ref()
            .and_then(|r| r.valid_until)
            .is_some_and(|t| t < nestor_session::session::now_us());
        if role.is_none() || expired {
            return Err(Some(fatal(
                SqlState::InvalidPassword,
                format!("password authentication failed for user \"{}\"", ident.user),
            )));
        }
    }
    let role = role.ok_or_else(|| {
        fatal(
            SqlState::InvalidAuthorizationSpecification,
            format!("role \"{}\" does not exist", ident.user),
        )
    })?;
    if !role.login {
        return Err(Some(fatal(
            SqlState::InvalidAuthorizationSpecification,
            format!("role \"{}\" is not permitted to log in", ident.user),
        )));
    }
    Ok(role)
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

/// Randomized startup and SCRAM-SHA-256 exchanges against the real
/// [`startup`] over loopback TCP: a client that speaks the exchange
/// correctly (computing its proof as RFC 5802 says) except that one of its
/// messages — the startup packet, the SASLInitialResponse or the
/// SASLResponse — is mutated, or garbage follows, or the password is
/// wrong. The server must answer every exchange with a session or a FATAL
/// and a close: no panic, no hang, no session without the right proof.
/// `scripts/fuzz` runs it longer (NESTOR_FUZZ_ITERS, NESTOR_FUZZ_SEED).
#[cfg(test)]
mod fuzz {
    use std::time::Duration;

    use base64::engine::general_purpose::STANDARD as B64;
    use base64::Engine as _;
    use hmac::Mac;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use sha2::{Digest, Sha256};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    use super::*;

    const PASSWORD: &str = "sekret";
    const SALT: [u8; 16] = [9; 16];
    /// Few PBKDF2 iterations: the exchange, not the key derivation, is
    /// under test.
    const ITERATIONS: u32 = 16;

    fn fuzz_params() -> (u64, u64) {
        let env = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        (env("NESTOR_FUZZ_ITERS", 300), env("NESTOR_FUZZ_SEED", 5))
    }

    fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
        let mut m = hmac::Hmac::<Sha256>::new_from_slice(key).expect("any key size");
        m.update(data);
        m.finalize().into_bytes().into()
    }

    fn proof(password: &str, auth_message: &str) -> Vec<u8> {
        let mut salted = [0u8; 32];
        pbkdf2::pbkdf2_hmac::<Sha256>(password.as_bytes(), &SALT, ITERATIONS, &mut salted);
        let client_key = hmac(&salted, b"Client Key");
        let stored: [u8; 32] = Sha256::digest(client_key).into();
        let sig = hmac(&stored, auth_message.as_bytes());
        client_key.iter().zip(sig).map(|(a, b)| a ^ b).collect()
    }

    fn frame(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut v = vec![tag];
        v.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        v.extend_from_slice(body);
        v
    }

    fn startup_packet(params: &[(&str, &str)]) -> Vec<u8> {
        let mut body = 196_608i32.to_be_bytes().to_vec();
        for (k, v) in params {
            body.extend_from_slice(k.as_bytes());
            body.push(0);
            body.extend_from_slice(v.as_bytes());
            body.push(0);
        }
        body.push(0);
        let mut p = ((body.len() + 4) as i32).to_be_bytes().to_vec();
        p.extend(body);
        p
    }

    fn mutate(rng: &mut StdRng, m: &mut Vec<u8>) {
        const TOKENS: &[&[u8]] = &[
            b",", b"=", b"n,,", b"p=", b"r=", b"c=", b"biws", b"\0", b"\xff", b"==", b"m=x",
        ];
        for _ in 0..rng.gen_range(1..4) {
            let n = m.len();
            let i = rng.gen_range(0..=n);
            match rng.gen_range(0..6) {
                0 if n > 0 => {
                    let k = rng.gen_range(0..n);
                    m[k] ^= 1 << rng.gen_range(0..8);
                }
                1 => m.truncate(i),
                2 => {
                    let j = rng.gen_range(i..=n.min(i + 8));
                    m.drain(i..j);
                }
                3 => {
                    let t = TOKENS[rng.gen_range(0..TOKENS.len())];
                    m.splice(i..i, t.iter().copied());
                }
                4 if n >= 5 => {
                    // A length field (of a typed message, or the packet's).
                    let at = if m[0].is_ascii_alphabetic() { 1 } else { 0 };
                    let len: i32 = rng.gen_range(-8..20_000);
                    m[at..at + 4].copy_from_slice(&len.to_be_bytes());
                }
                _ => m.insert(i, rng.gen()),
            }
        }
    }

    /// Read backend messages until one of the given type (Some(body)), an
    /// ErrorResponse, or the end of the connection (None).
    async fn until(s: &mut TcpStream, want: u8) -> Option<Vec<u8>> {
        loop {
            let mut head = [0u8; 5];
            s.read_exact(&mut head).await.ok()?;
            let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]);
            let mut body = vec![0u8; (len as usize).saturating_sub(4)];
            s.read_exact(&mut body).await.ok()?;
            if head[0] == want {
                return Some(body);
            }
            if head[0] == b'E' {
                return None;
            }
        }
    }

    /// Which of the client's messages is damaged.
    #[derive(Clone, Copy, Debug)]
    enum Damage {
        None,
        WrongPassword,
        Startup,
        First,
        Final,
        Trailing,
    }

    /// After a damaged message the client sends nothing more (the server
    /// may be waiting for bytes a damaged length promised): it half-closes
    /// and reads what the server says until the end.
    async fn hang_up(mut s: TcpStream) -> bool {
        let _ = s.shutdown().await;
        loop {
            match until(&mut s, b'R').await {
                Some(b) if b.get(..4) == Some(&0i32.to_be_bytes()[..]) => return true,
                Some(_) => {}
                None => return false,
            }
        }
    }

    /// Play the client; returns whether it saw AuthenticationOk.
    async fn client(mut s: TcpStream, rng: &mut StdRng, damage: Damage) -> bool {
        let mut startup = startup_packet(&[("user", "postgres"), ("database", "postgres")]);
        if let Damage::Startup = damage {
            mutate(rng, &mut startup);
            let _ = s.write_all(&startup).await;
            return hang_up(s).await;
        }
        if s.write_all(&startup).await.is_err() {
            return false;
        }
        // AuthenticationSASL.
        let Some(sasl) = until(&mut s, b'R').await else {
            return false;
        };
        if sasl.get(..4) != Some(&10i32.to_be_bytes()[..]) {
            return false;
        }
        let cnonce: String = (0..18)
            .map(|_| rng.gen_range(b'a'..=b'z') as char)
            .collect();
        let first_bare = format!("n=,r={cnonce}");
        let first = format!("n,,{first_bare}");
        let mut body = b"SCRAM-SHA-256\0".to_vec();
        body.extend((first.len() as i32).to_be_bytes());
        body.extend(first.as_bytes());
        let mut msg = frame(b'p', &body);
        if let Damage::First = damage {
            mutate(rng, &mut msg);
            let _ = s.write_all(&msg).await;
            return hang_up(s).await;
        }
        if s.write_all(&msg).await.is_err() {
            return false;
        }
        // AuthenticationSASLContinue: the server-first-message.
        let Some(cont) = until(&mut s, b'R').await else {
            return false;
        };
        if cont.get(..4) != Some(&11i32.to_be_bytes()[..]) {
            return false;
        }
        let server_first = String::from_utf8_lossy(&cont[4..]).into_owned();
        let nonce = server_first
            .split(',')
            .find_map(|a| a.strip_prefix("r="))
            .unwrap_or("")
            .to_owned();
        let without_proof = format!("c=biws,r={nonce}");
        let auth = format!("{first_bare},{server_first},{without_proof}");
        let password = match damage {
            Damage::WrongPassword => "wrong",
            _ => PASSWORD,
        };
        let fin = format!("{without_proof},p={}", B64.encode(proof(password, &auth)));
        let mut msg = frame(b'p', fin.as_bytes());
        if let Damage::Final = damage {
            mutate(rng, &mut msg);
        }
        if let Damage::Trailing = damage {
            let junk: Vec<u8> = (0..rng.gen_range(1..64)).map(|_| rng.gen()).collect();
            msg.extend(junk);
        }
        if s.write_all(&msg).await.is_err() {
            return false;
        }
        hang_up(s).await
    }

    #[test]
    fn mutated_startup_and_scram_exchanges_end_cleanly() {
        let (iters, seed) = fuzz_params();
        eprintln!("startup/SCRAM fuzz: {iters} exchanges, seed {seed}");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let engine = nestor_durable::Engine::new(nestor_durable::EngineConfig::in_memory(
                iters as usize + 8,
            ))
            .expect("engine");
            let verifier = scram::Verifier::with_salt(PASSWORD, &SALT, ITERATIONS);
            let shared = Arc::new(Shared::new(engine, Some(verifier), 100));
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().expect("addr");
            let mut rng = StdRng::seed_from_u64(seed);
            let (mut ok, mut refused) = (0u64, 0u64);
            for i in 0..iters {
                let damage = match rng.gen_range(0..6) {
                    0 => Damage::None,
                    1 => Damage::WrongPassword,
                    2 => Damage::Startup,
                    3 => Damage::First,
                    4 => Damage::Final,
                    _ => Damage::Trailing,
                };
                let mut crng = StdRng::seed_from_u64(rng.gen());
                let conn = TcpStream::connect(addr).await.expect("connect");
                let (stream, peer) = listener.accept().await.expect("accept");
                let sh = shared.clone();
                let server = tokio::spawn(async move {
                    let mut io = Io::new(crate::stream::Stream::Tcp(stream));
                    startup(&mut io, &sh, Peer::Tcp(peer)).await.map(drop).is_some()
                });
                let client = tokio::spawn(async move { client(conn, &mut crng, damage).await });
                let bounded = Duration::from_secs(20);
                let served = tokio::time::timeout(bounded, server)
                    .await
                    .unwrap_or_else(|_| panic!("exchange {i} ({damage:?}, seed {seed}) hung"))
                    .unwrap_or_else(|e| {
                        panic!("exchange {i} ({damage:?}, seed {seed}) panicked: {e}")
                    });
                let authenticated = client.await.unwrap_or(false);
                assert_eq!(
                    served, authenticated,
                    "exchange {i} ({damage:?}): the client saw AuthenticationOk iff a session opened"
                );
                match damage {
                    Damage::None => assert!(served, "a correct exchange logs in"),
                    Damage::WrongPassword => assert!(!served, "a wrong proof never logs in"),
                    _ => {}
                }
                if served {
                    ok += 1;
                } else {
                    refused += 1;
                }
            }
            eprintln!("startup/SCRAM fuzz: {ok} logged in, {refused} refused");
        });
    }
}
