//! Wire codec: bytes <-> messages.
//!
//! Design: the *frontend* decoder is hand-rolled; the *backend* encoder uses
//! pgwire's message types (except DataRow, see below).
//!
//! Why not pgwire's frontend decoder (`PgWireFrontendMessage::decode`,
//! pgwire 0.42.1): it is not bounded by the frame. After checking that
//! `len` bytes are buffered it hands the *whole* connection buffer to the
//! body decoder, which (1) reads past the end of a short message into the
//! next one (a `Q` whose string lacks its NUL swallows the following
//! message's bytes and desynchronises the stream), (2) uses the panicking
//! `bytes::Buf` getters (`get_u16`, `split_to`), so a truncated Parse or Bind
//! body panics the task, (3) accepts lengths < 4, (4) decodes strings with
//! `from_utf8_lossy`, silently replacing invalid bytes, and (5) maps the
//! empty name "" (the unnamed statement/portal) to `None`. A server must
//! reject all of these with 08P01 instead, so every frame here is split off
//! first and then parsed with a bounds-checked cursor that cannot leave it.
//!
//! Backend encoding goes through pgwire's `Message::encode`, which is fine
//! for our own well-formed values, with one trap handled in [`encode`]: on
//! failure it has already written the type byte, so we truncate back.
//! DataRow is encoded directly: pgwire's `DataRow` wants a pre-encoded body
//! in its own `BytesMut`, which would cost an allocation and a copy per row
//! on the hottest path; a test checks the bytes are identical. So are the
//! other messages every extended-protocol statement gets (ParseComplete,
//! BindComplete, RowDescription, CommandComplete, ReadyForQuery, ...):
//! building pgwire's values for them (a String per tag and field name) and
//! formatting the tag took ~2,000 instructions per statement, more than
//! reading a row by its primary key. Tests compare the bytes with pgwire's.

use bytes::{Buf, BufMut, BytesMut};
use nestor_common::{DbError, SqlState};
use nestor_exec::CommandTag;
use nestor_session::protocol::{BackendMsg, FieldDesc, FrontendMsg};
use pgwire::messages::{copy, data, response, startup, PgWireBackendMessage};

pub use nestor_common::limits::{
    AUTH_MESSAGE_BYTES_MAX, MESSAGE_BYTES_MAX, SMALL_MESSAGE_BYTES_MAX, STARTUP_PACKET_BYTES_MAX,
};

pub(crate) const SSL_REQUEST_CODE: i32 = 80_877_103;
pub(crate) const GSSENC_REQUEST_CODE: i32 = 80_877_104;
pub(crate) const CANCEL_REQUEST_CODE: i32 = 80_877_102;

/// A protocol violation: the connection gets FATAL with this and is closed.
pub fn protocol_violation(message: impl Into<String>) -> DbError {
    DbError::new(SqlState::ProtocolViolation, message)
        .with_severity(nestor_common::error::Severity::Fatal)
}

// ---------------------------------------------------------------------------
// Startup phase

/// The first packet(s) of a connection, before any typed message.
#[derive(Debug, PartialEq)]
pub(crate) enum StartupPacket {
    SslRequest,
    GssEncRequest,
    Cancel {
        pid: i32,
        secret: i32,
    },
    Startup {
        major: u16,
        minor: u16,
        params: Vec<(String, String)>,
    },
}

/// Split one startup packet off `buf` (4-byte length including itself, then
/// the body). `Ok(None)`: need more bytes.
pub(crate) fn decode_startup(buf: &mut BytesMut) -> Result<Option<StartupPacket>, DbError> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let len = i32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
    if len < 8 || len as usize > STARTUP_PACKET_BYTES_MAX {
        return Err(protocol_violation("invalid length of startup packet"));
    }
    let len = len as usize;
    if buf.len() < len {
        return Ok(None);
    }
    let packet = parse_startup(&buf[4..len]);
    buf.advance(len);
    packet.map(Some)
}

fn parse_startup(body: &[u8]) -> Result<StartupPacket, DbError> {
    let len = body.len() + 4;
    let mut cur = Cursor::new(body);
    let code = cur.i32()?;
    match code {
        SSL_REQUEST_CODE | GSSENC_REQUEST_CODE => {
            if len != 8 {
                return Err(protocol_violation("invalid length of startup packet"));
            }
            Ok(if code == SSL_REQUEST_CODE {
                StartupPacket::SslRequest
            } else {
                StartupPacket::GssEncRequest
            })
        }
        CANCEL_REQUEST_CODE => {
            // Protocol 3.2 allows longer keys; ours are 4 bytes, so anything
            // else cannot match a session and is simply ignored by caller.
            let pid = cur.i32()?;
            let secret = if cur.remaining() == 4 { cur.i32()? } else { 0 };
            Ok(StartupPacket::Cancel { pid, secret })
        }
        _ => {
            let major = (code as u32 >> 16) as u16;
            let minor = (code as u32 & 0xffff) as u16;
            let mut params = Vec::new();
            if major == 3 {
                // Name/value pairs, terminated by an empty name. PostgreSQL
                // requires the terminator and rejects a name without value.
                loop {
                    let name = cur.cstr_startup()?;
                    if name.is_empty() {
                        break;
                    }
                    let value = cur.cstr_startup()?;
                    params.push((name, value));
                }
                if cur.remaining() != 0 {
                    return Err(protocol_violation(
                        "invalid startup packet layout: expected terminator as last byte",
                    ));
                }
            }
            Ok(StartupPacket::Startup {
                major,
                minor,
                params,
            })
        }
    }
}

// ---------------------------------------------------------------------------
// Typed frontend messages

/// A decoded frontend message after startup.
#[derive(Debug, PartialEq)]
pub(crate) enum Frontend {
    /// Handed to the session.
    Msg(FrontendMsg),
    /// 'X'.
    Terminate,
    /// 'p' (password / SASL messages): the raw body; only meaningful during
    /// authentication.
    Auth(Vec<u8>),
}

/// Per-type body limit, or `None` for an unknown type byte. Checked before
/// the length, as PostgreSQL does, so garbage gets "invalid frontend message
/// type".
fn body_limit(tag: u8) -> Option<usize> {
    match tag {
        b'Q' | b'P' | b'B' | b'd' | b'f' => Some(MESSAGE_BYTES_MAX),
        b'D' | b'E' | b'S' | b'H' | b'C' | b'c' | b'X' => Some(SMALL_MESSAGE_BYTES_MAX),
        b'p' => Some(AUTH_MESSAGE_BYTES_MAX),
        b'F' => Some(MESSAGE_BYTES_MAX),
        _ => None,
    }
}

/// Bytes still needed to complete the message at the head of `buf`, if its
/// header is already there (lets the reader size its buffer).
pub(crate) fn pending_frame_len(buf: &[u8]) -> Option<usize> {
    if buf.len() < 5 {
        return None;
    }
    let len = i32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]);
    if len < 4 {
        return None;
    }
    Some(1 + len as usize)
}

/// Split one typed message off `buf` and decode it. `Ok(None)`: incomplete.
/// Errors are FATAL protocol violations.
pub(crate) fn decode_message(buf: &mut BytesMut) -> Result<Option<Frontend>, DbError> {
    let Some(&tag) = buf.first() else {
        return Ok(None);
    };
    let Some(limit) = body_limit(tag) else {
        return Err(protocol_violation(format!(
            "invalid frontend message type {tag}"
        )));
    };
    if buf.len() < 5 {
        return Ok(None);
    }
    let len = i32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]);
    if len < 4 || (len as usize - 4) > limit {
        return Err(protocol_violation("invalid message length"));
    }
    let total = 1 + len as usize;
    if buf.len() < total {
        return Ok(None);
    }
    let msg = match parse_body(tag, &buf[5..total]) {
        // Framed correctly, content unreadable: an ERROR where the message
        // stood; the connection goes on (PostgreSQL does the same).
        Err(e) if e.code == SqlState::CharacterNotInRepertoire && tag != b'p' => {
            Ok(Frontend::Msg(FrontendMsg::Invalid {
                error: e,
                query: tag == b'Q',
            }))
        }
        other => other,
    };
    buf.advance(total);
    msg.map(Some)
}

fn parse_body(tag: u8, body: &[u8]) -> Result<Frontend, DbError> {
    let mut c = Cursor::new(body);
    let msg = match tag {
        b'Q' => FrontendMsg::Query(c.cstr()?),
        b'P' => parse_parse(&mut c)?,
        b'B' => parse_bind(&mut c)?,
        b'D' | b'C' => parse_describe_close(tag, &mut c)?,
        b'E' => {
            let portal = c.cstr()?;
            let max_rows = c.i32()?;
            // PostgreSQL treats a negative or zero count as "no limit".
            FrontendMsg::Execute {
                portal,
                max_rows: max_rows.max(0) as u32,
            }
        }
        b'S' => FrontendMsg::Sync,
        b'H' => FrontendMsg::Flush,
        b'd' => FrontendMsg::CopyData(c.rest().to_vec()),
        b'c' => FrontendMsg::CopyDone,
        b'f' => FrontendMsg::CopyFail(c.cstr()?),
        b'X' => return Ok(Frontend::Terminate),
        b'p' => return Ok(Frontend::Auth(c.rest().to_vec())),
        b'F' => {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "fastpath function calls are not supported",
            )
            .with_severity(nestor_common::error::Severity::Fatal))
        }
        _ => {
            return Err(protocol_violation(format!(
                "invalid frontend message type {tag}"
            )))
        }
    };
    if c.remaining() != 0 {
        return Err(protocol_violation("invalid message format"));
    }
    Ok(Frontend::Msg(msg))
}

/// Parse: statement name, query, parameter type OIDs.
fn parse_parse(c: &mut Cursor) -> Result<FrontendMsg, DbError> {
    let name = c.cstr()?;
    let query = c.cstr()?;
    let n = c.u16()?;
    let mut param_types = Vec::with_capacity((n as usize).min(c.remaining() / 4));
    for _ in 0..n {
        param_types.push(c.i32()? as u32);
    }
    Ok(FrontendMsg::Parse {
        name,
        query,
        param_types,
    })
}

/// Bind: portal, statement, parameter formats and values (length -1 is
/// NULL), result formats.
fn parse_bind(c: &mut Cursor) -> Result<FrontendMsg, DbError> {
    let portal = c.cstr()?;
    let statement = c.cstr()?;
    let param_formats = c.i16_list()?;
    let n = c.u16()?;
    let mut params = Vec::with_capacity((n as usize).min(c.remaining() / 4));
    for _ in 0..n {
        let plen = c.i32()?;
        if plen == -1 {
            params.push(None);
        } else if plen < 0 {
            return Err(protocol_violation("invalid message format"));
        } else {
            params.push(Some(c.bytes(plen as usize)?.to_vec()));
        }
    }
    let result_formats = c.i16_list()?;
    Ok(FrontendMsg::Bind {
        portal,
        statement,
        param_formats,
        params,
        result_formats,
    })
}

/// Describe or Close: 'S' (statement) or 'P' (portal), then the name.
fn parse_describe_close(tag: u8, c: &mut Cursor) -> Result<FrontendMsg, DbError> {
    let kind = c.u8()?;
    let what = if tag == b'D' { "DESCRIBE" } else { "CLOSE" };
    if kind != b'S' && kind != b'P' {
        return Err(protocol_violation(format!(
            "invalid {what} message subtype {kind}"
        )));
    }
    let name = c.cstr()?;
    Ok(if tag == b'D' {
        FrontendMsg::Describe { kind, name }
    } else {
        FrontendMsg::Close { kind, name }
    })
}

/// Bounds-checked reader over one message body; every read that would leave
/// the body is a protocol violation, never a panic.
pub struct Cursor<'a> {
    buf: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8]) -> Cursor<'a> {
        Cursor { buf }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len()
    }

    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.buf)
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], DbError> {
        if n > self.buf.len() {
            return Err(protocol_violation("insufficient data left in message"));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    pub fn u8(&mut self) -> Result<u8, DbError> {
        Ok(self.bytes(1)?[0])
    }

    pub fn i16(&mut self) -> Result<i16, DbError> {
        let b = self.bytes(2)?;
        Ok(i16::from_be_bytes([b[0], b[1]]))
    }

    /// Counts are unsigned 16-bit on the wire (up to 65535 parameters).
    pub fn u16(&mut self) -> Result<u16, DbError> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub fn i32(&mut self) -> Result<i32, DbError> {
        let b = self.bytes(4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i16_list(&mut self) -> Result<Vec<i16>, DbError> {
        let n = self.u16()?;
        let mut v = Vec::with_capacity((n as usize).min(self.remaining() / 2));
        for _ in 0..n {
            v.push(self.i16()?);
        }
        Ok(v)
    }

    /// NUL-terminated string bytes (without the NUL).
    pub(crate) fn cstr_bytes(&mut self) -> Result<&'a [u8], DbError> {
        let Some(nul) = self.buf.iter().position(|&b| b == 0) else {
            return Err(protocol_violation("invalid string in message"));
        };
        let s = &self.buf[..nul];
        self.buf = &self.buf[nul + 1..];
        Ok(s)
    }

    /// NUL-terminated UTF-8 string. Invalid UTF-8 is refused, as PostgreSQL
    /// does with a UTF8 server encoding, rather than silently replaced.
    pub fn cstr(&mut self) -> Result<String, DbError> {
        let b = self.cstr_bytes()?;
        utf8(b)
    }

    fn cstr_startup(&mut self) -> Result<String, DbError> {
        if self.buf.is_empty() {
            return Err(protocol_violation(
                "invalid startup packet layout: expected terminator as last byte",
            ));
        }
        self.cstr()
            .map_err(|e| e.with_severity(nestor_common::error::Severity::Fatal))
    }
}

pub fn utf8(b: &[u8]) -> Result<String, DbError> {
    match std::str::from_utf8(b) {
        Ok(s) => Ok(s.to_owned()),
        Err(e) => Err(DbError::invalid_utf8(&b[e.valid_up_to()..])),
    }
}

// ---------------------------------------------------------------------------
// Backend encoding

/// Encode one pgwire backend message. On failure (a message over pgwire's
/// per-type size limit) the partial bytes are removed and an error is
/// returned for the caller to report instead.
pub(crate) fn encode_pg(buf: &mut BytesMut, msg: &PgWireBackendMessage) -> Result<(), DbError> {
    let mark = buf.len();
    msg.encode(buf).map_err(|e| {
        buf.truncate(mark);
        DbError::new(
            SqlState::ProgramLimitExceeded,
            format!("could not encode response: {e}"),
        )
    })
}

/// Error/notice fields in PostgreSQL's order: S, V, C, M, D, H, P, p, q,
/// W, s, t, c, n.
fn error_fields(e: &DbError) -> Vec<(u8, String)> {
    let sev = e.severity.as_str().to_owned();
    let mut f = vec![
        (b'S', sev.clone()),
        (b'V', sev),
        (b'C', e.sqlstate().to_owned()),
        (b'M', e.message.clone()),
    ];
    if let Some(d) = &e.detail {
        f.push((b'D', d.clone()));
    }
    if let Some(h) = &e.hint {
        f.push((b'H', h.clone()));
    }
    if let Some(p) = e.position {
        f.push((b'P', p.to_string()));
    }
    if let Some(i) = &e.internal {
        f.push((b'p', i.position.to_string()));
        f.push((b'q', i.query.clone()));
    }
    if let Some(w) = &e.context {
        f.push((b'W', w.clone()));
    }
    if let Some(o) = &e.object {
        for (tag, v) in [
            (b's', &o.schema),
            (b't', &o.table),
            (b'c', &o.column),
            (b'n', &o.constraint),
        ] {
            if let Some(v) = v {
                f.push((tag, v.clone()));
            }
        }
    }
    f
}

pub(crate) fn error_message(e: &DbError) -> PgWireBackendMessage {
    PgWireBackendMessage::ErrorResponse(response::ErrorResponse::new(error_fields(e)))
}

/// DataRow written directly (see module comment).
fn encode_data_row(buf: &mut BytesMut, values: &[Option<Vec<u8>>]) -> Result<(), DbError> {
    let body: usize = 2 + values
        .iter()
        .map(|v| 4 + v.as_ref().map_or(0, |v| v.len()))
        .sum::<usize>();
    if body + 4 > i32::MAX as usize || values.len() > i16::MAX as usize {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            "row is too large to send",
        ));
    }
    buf.reserve(1 + 4 + body);
    buf.put_u8(b'D');
    buf.put_i32((4 + body) as i32);
    buf.put_i16(values.len() as i16);
    for v in values {
        match v {
            None => buf.put_i32(-1),
            Some(v) => {
                buf.put_i32(v.len() as i32);
                buf.put_slice(v);
            }
        }
    }
    Ok(())
}

/// A message whose body is `body` (nothing, or ReadyForQuery's status).
fn put_fixed(buf: &mut BytesMut, tag: u8, body: &[u8]) -> Result<(), DbError> {
    buf.reserve(5 + body.len());
    buf.put_u8(tag);
    buf.put_i32(4 + body.len() as i32);
    buf.put_slice(body);
    Ok(())
}

/// A message of `tag` whose body `body` writes; its length is filled in
/// after. A body that outgrows a message is taken back out.
fn put_framed(
    buf: &mut BytesMut,
    tag: u8,
    body: impl FnOnce(&mut BytesMut),
) -> Result<(), DbError> {
    let mark = buf.len();
    buf.put_u8(tag);
    buf.put_i32(0);
    body(buf);
    let len = buf.len() - mark - 1;
    let Ok(len32) = i32::try_from(len) else {
        buf.truncate(mark);
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            "could not encode response: message too large",
        ));
    };
    buf[mark + 1..mark + 5].copy_from_slice(&len32.to_be_bytes());
    Ok(())
}

fn put_cstr(buf: &mut BytesMut, s: &str) {
    buf.put_slice(s.as_bytes());
    buf.put_u8(0);
}

/// CommandComplete: the tag's text, the row count written without
/// `fmt` (the tag is short and its count a u64).
fn encode_command_complete(buf: &mut BytesMut, tag: &CommandTag) -> Result<(), DbError> {
    put_framed(buf, b'C', |b| {
        match *tag {
            CommandTag::Rows(c, n) => {
                b.put_slice(c.prefix().as_bytes());
                let mut digits = [0u8; 20];
                let mut i = digits.len();
                let mut n = n;
                loop {
                    i -= 1;
                    digits[i] = b'0' + (n % 10) as u8;
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                b.put_slice(&digits[i..]);
            }
            CommandTag::Plain(s) => b.put_slice(s.as_bytes()),
        }
        b.put_u8(0);
    })
}

fn encode_row_description(buf: &mut BytesMut, fields: &[FieldDesc]) -> Result<(), DbError> {
    let Ok(n) = i16::try_from(fields.len()) else {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            "could not encode response: too many columns",
        ));
    };
    put_framed(buf, b'T', |b| {
        b.put_i16(n);
        for f in fields {
            put_cstr(b, &f.name);
            b.put_u32(f.table_oid);
            b.put_i16(f.column_id);
            b.put_u32(f.type_oid);
            b.put_i16(f.type_size);
            b.put_i32(f.type_modifier);
            b.put_i16(f.format);
        }
    })
}

/// Encode one session response.
pub fn encode(buf: &mut BytesMut, msg: &BackendMsg) -> Result<(), DbError> {
    use PgWireBackendMessage as P;
    let pg = match msg {
        BackendMsg::DataRow(values) => return encode_data_row(buf, values),
        BackendMsg::RowDescription(fields) => return encode_row_description(buf, fields),
        BackendMsg::NoData => return put_fixed(buf, b'n', &[]),
        BackendMsg::CommandComplete(tag) => return encode_command_complete(buf, tag),
        BackendMsg::EmptyQueryResponse => return put_fixed(buf, b'I', &[]),
        BackendMsg::Error(e) => error_message(e),
        BackendMsg::Notice(e) => P::NoticeResponse(response::NoticeResponse::new(error_fields(e))),
        BackendMsg::ParseComplete => return put_fixed(buf, b'1', &[]),
        BackendMsg::BindComplete => return put_fixed(buf, b'2', &[]),
        BackendMsg::CloseComplete => return put_fixed(buf, b'3', &[]),
        BackendMsg::ParameterDescription(types) => {
            P::ParameterDescription(data::ParameterDescription::new(types.clone()))
        }
        BackendMsg::PortalSuspended => return put_fixed(buf, b's', &[]),
        BackendMsg::ReadyForQuery(status) => return put_fixed(buf, b'Z', &[status.as_byte()]),
        BackendMsg::CopyInResponse {
            format,
            column_formats,
        } => P::CopyInResponse(copy::CopyInResponse::new(
            *format,
            column_formats.len() as i16,
            column_formats.clone(),
        )),
        BackendMsg::CopyOutResponse {
            format,
            column_formats,
        } => P::CopyOutResponse(copy::CopyOutResponse::new(
            *format,
            column_formats.len() as i16,
            column_formats.clone(),
        )),
        BackendMsg::CopyData(d) => {
            P::CopyData(copy::CopyData::new(bytes::Bytes::copy_from_slice(d)))
        }
        BackendMsg::CopyDone => P::CopyDone(copy::CopyDone::new()),
        BackendMsg::ParameterStatus(k, v) => parameter_status(k, v),
        BackendMsg::Notification {
            pid,
            channel,
            payload,
        } => P::NotificationResponse(response::NotificationResponse::new(
            *pid,
            channel.clone(),
            payload.clone(),
        )),
    };
    encode_pg(buf, &pg)
}

pub fn parameter_status(k: &str, v: &str) -> PgWireBackendMessage {
    PgWireBackendMessage::ParameterStatus(startup::ParameterStatus::new(k.to_owned(), v.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nestor_common::error::Severity;
    use nestor_session::protocol::TxnStatus;

    fn frame(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut v = vec![tag];
        v.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        v.extend_from_slice(body);
        v
    }

    fn decode_all(bytes: &[u8]) -> Result<Vec<Frontend>, DbError> {
        let mut buf = BytesMut::from(bytes);
        let mut out = Vec::new();
        while let Some(m) = decode_message(&mut buf)? {
            out.push(m);
        }
        Ok(out)
    }

    /// Iterations and seed of the randomized tests; `scripts/fuzz` raises
    /// the count (NESTOR_FUZZ_ITERS) and varies the seed (NESTOR_FUZZ_SEED).
    fn fuzz_params() -> (u64, u64) {
        let env = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        (env("NESTOR_FUZZ_ITERS", 20_000), env("NESTOR_FUZZ_SEED", 7))
    }

    /// Valid messages of every type, then mutated: flipped and dropped
    /// bytes, truncations, random lengths, random type bytes. The decoders
    /// must answer every input with a message, "need more", or an error:
    /// never a panic, and never more output than input can hold.
    #[test]
    fn mutated_frames_never_panic_the_decoders() {
        use rand::{Rng, SeedableRng};
        let (iters, seed) = fuzz_params();
        eprintln!("decoder fuzz: {iters} inputs, seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let valid: Vec<Vec<u8>> = vec![
            frame(b'Q', b"select 1\0"),
            frame(b'P', b"s1\0select $1\0\0\x01\0\0\0\x17"),
            frame(
                b'B',
                b"\0s1\0\0\x01\0\x01\0\x02\0\0\0\x0212\xff\xff\xff\xff\0\x01\0\x01",
            ),
            frame(b'D', b"P\0"),
            frame(b'C', b"S\0"),
            frame(b'E', b"\0\0\0\0\x05"),
            frame(b'S', b""),
            frame(b'H', b""),
            frame(b'd', b"1\t2\n"),
            frame(b'c', b""),
            frame(b'f', b"oops\0"),
            frame(b'p', b"SCRAM-SHA-256\0\0\0\0\x04abcd"),
            frame(b'X', b""),
        ];
        for _ in 0..iters {
            let mut m = valid[rng.gen_range(0..valid.len())].clone();
            for _ in 0..rng.gen_range(1..4) {
                match rng.gen_range(0..6) {
                    0 => {
                        let i = rng.gen_range(0..m.len());
                        m[i] ^= 1 << rng.gen_range(0..8);
                    }
                    1 => {
                        let i = rng.gen_range(0..m.len());
                        m.remove(i);
                    }
                    2 => m.truncate(rng.gen_range(0..=m.len())),
                    3 if m.len() >= 5 => {
                        let len: i32 = rng.gen_range(-8..64);
                        m[1..5].copy_from_slice(&len.to_be_bytes());
                    }
                    4 => m[0] = rng.gen(),
                    _ => {
                        let i = rng.gen_range(0..=m.len());
                        m.insert(i, rng.gen());
                    }
                }
                if m.is_empty() {
                    m.push(b'Q');
                }
            }
            let _ = decode_all(&m);
            let mut b = BytesMut::from(&m[..]);
            let _ = decode_startup(&mut b);
        }
    }

    #[test]
    fn decodes_pipeline() {
        let mut b = frame(b'P', b"s1\0select $1\0\0\x01\0\0\0\x17");
        b.extend(frame(
            b'B',
            b"\0s1\0\0\x01\0\x01\0\x02\0\0\0\x0212\xff\xff\xff\xff\0\x01\0\x01",
        ));
        b.extend(frame(b'D', b"P\0"));
        b.extend(frame(b'E', b"\0\0\0\0\x05"));
        b.extend(frame(b'S', b""));
        b.extend(frame(b'X', b""));
        let msgs = decode_all(&b).unwrap();
        assert_eq!(
            msgs,
            vec![
                Frontend::Msg(FrontendMsg::Parse {
                    name: "s1".into(),
                    query: "select $1".into(),
                    param_types: vec![23]
                }),
                Frontend::Msg(FrontendMsg::Bind {
                    portal: "".into(),
                    statement: "s1".into(),
                    param_formats: vec![1],
                    params: vec![Some(b"12".to_vec()), None],
                    result_formats: vec![1],
                }),
                Frontend::Msg(FrontendMsg::Describe {
                    kind: b'P',
                    name: "".into()
                }),
                Frontend::Msg(FrontendMsg::Execute {
                    portal: "".into(),
                    max_rows: 5
                }),
                Frontend::Msg(FrontendMsg::Sync),
                Frontend::Terminate,
            ]
        );
    }

    #[test]
    fn incomplete_is_none_and_keeps_bytes() {
        let b = frame(b'Q', b"select 1\0");
        for cut in 0..b.len() {
            let mut buf = BytesMut::from(&b[..cut]);
            assert_eq!(decode_message(&mut buf).unwrap(), None);
            assert_eq!(buf.len(), cut);
        }
    }

    fn fatal_msg(bytes: &[u8]) -> String {
        let e = decode_all(bytes).unwrap_err();
        assert_eq!(e.severity, Severity::Fatal);
        e.message.clone()
    }

    #[test]
    fn rejects_bad_frames() {
        assert_eq!(
            fatal_msg(b"\x01\0\0\0\x04"),
            "invalid frontend message type 1"
        );
        assert_eq!(fatal_msg(b"Z"), "invalid frontend message type 90");
        assert_eq!(fatal_msg(b"S\0\0\0\x03"), "invalid message length");
        assert_eq!(fatal_msg(b"Q\xff\xff\xff\xff"), "invalid message length");
        assert_eq!(fatal_msg(b"Q\x40\0\0\x04"), "invalid message length");
        assert_eq!(fatal_msg(b"S\0\0\x27\x16"), "invalid message length");
        // A string without terminator must not swallow the next message.
        let mut b = frame(b'Q', b"x");
        b.extend(frame(b'S', b""));
        assert_eq!(fatal_msg(&b), "invalid string in message");
        // Truncated Parse/Bind bodies: errors, never panics.
        let parse = frame(b'P', b"s\0select 1\0\0\x02\0\0\0\x17\0\0\0\x17");
        for cut in 6..parse.len() - 1 {
            let mut p = parse[..cut].to_vec();
            let len = (p.len() - 1) as i32;
            p[1..5].copy_from_slice(&len.to_be_bytes());
            assert_eq!(
                decode_all(&p).unwrap_err().code,
                SqlState::ProtocolViolation
            );
        }
        let bind = frame(b'B', b"\0\0\0\0\0\x01\x7f\xff\xff\xff\0\0");
        assert_eq!(fatal_msg(&bind), "insufficient data left in message");
        assert_eq!(fatal_msg(&frame(b'S', b"x")), "invalid message format");
        assert_eq!(
            fatal_msg(&frame(b'D', b"Z\0")),
            "invalid DESCRIBE message subtype 90"
        );
        // Framed correctly, content not UTF-8: an ERROR for the session to
        // report where the message stood, not a protocol failure.
        let msgs = decode_all(&frame(b'Q', b"\xc3\x28\0")).unwrap();
        match &msgs[..] {
            [Frontend::Msg(FrontendMsg::Invalid { error, query: true })] => {
                assert_eq!(error.code, SqlState::CharacterNotInRepertoire);
                assert_eq!(
                    error.message,
                    "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28"
                );
                assert_eq!(error.severity, nestor_common::error::Severity::Error);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn startup_packets() {
        let mut b = BytesMut::from(&b"\0\0\0\x08\x04\xd2\x16\x2f"[..]);
        assert_eq!(
            decode_startup(&mut b).unwrap(),
            Some(StartupPacket::SslRequest)
        );
        let mut b = BytesMut::from(&b"\0\0\0\x10\x04\xd2\x16\x2e\0\0\0\x07\xff\xff\xff\xfe"[..]);
        assert_eq!(
            decode_startup(&mut b).unwrap(),
            Some(StartupPacket::Cancel { pid: 7, secret: -2 })
        );
        let body = b"\0\x03\0\0user\0bob\0database\0db\0\0";
        let mut p = ((body.len() + 4) as i32).to_be_bytes().to_vec();
        p.extend_from_slice(body);
        let mut b = BytesMut::from(&p[..]);
        assert_eq!(
            decode_startup(&mut b).unwrap(),
            Some(StartupPacket::Startup {
                major: 3,
                minor: 0,
                params: vec![
                    ("user".into(), "bob".into()),
                    ("database".into(), "db".into())
                ]
            })
        );
        for bad in [
            &b"\0\0\0\x04"[..],
            b"\0\0\x27\x11",
            b"\xff\xff\xff\xff",
            b"GET ",
        ] {
            let mut b = BytesMut::from(bad);
            assert_eq!(
                decode_startup(&mut b).unwrap_err().message,
                "invalid length of startup packet"
            );
        }
        // Missing terminator.
        let body = b"\0\x03\0\0user\0bob\0";
        let mut p = ((body.len() + 4) as i32).to_be_bytes().to_vec();
        p.extend_from_slice(body);
        assert!(decode_startup(&mut BytesMut::from(&p[..])).is_err());
    }

    #[test]
    fn data_row_matches_pgwire() {
        let values = vec![Some(b"abc".to_vec()), None, Some(Vec::new())];
        let mut ours = BytesMut::new();
        encode(&mut ours, &BackendMsg::DataRow(values)).unwrap();
        let mut body = BytesMut::new();
        body.put_i32(3);
        body.put_slice(b"abc");
        body.put_i32(-1);
        body.put_i32(0);
        let mut theirs = BytesMut::new();
        PgWireBackendMessage::DataRow(data::DataRow::new(body, 3))
            .encode(&mut theirs)
            .unwrap();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn direct_encodings_match_pgwire() {
        use nestor_exec::RowsCommand;
        use pgwire::messages::extendedquery;
        let ready_for_query = |status: u8| {
            let status = match status {
                b'T' => response::TransactionStatus::Transaction,
                b'E' => response::TransactionStatus::Error,
                _ => response::TransactionStatus::Idle,
            };
            PgWireBackendMessage::ReadyForQuery(response::ReadyForQuery::new(status))
        };
        let field = |f: &FieldDesc| {
            data::FieldDescription::new(
                f.name.clone(),
                f.table_oid as i32,
                f.column_id,
                f.type_oid,
                f.type_size,
                f.type_modifier,
                f.format,
            )
        };
        let fields = vec![
            FieldDesc {
                name: "abalance".into(),
                table_oid: 16_384,
                column_id: 3,
                type_oid: 23,
                type_size: 4,
                type_modifier: -1,
                format: 0,
            },
            FieldDesc {
                name: "é".into(),
                table_oid: 0,
                column_id: 0,
                type_oid: 1043,
                type_size: -1,
                type_modifier: 24,
                format: 1,
            },
        ];
        let tags = [
            CommandTag::Rows(RowsCommand::Select, 0),
            CommandTag::Rows(RowsCommand::Insert, 1),
            CommandTag::Rows(RowsCommand::Update, 4),
            CommandTag::Rows(RowsCommand::Delete, 10),
            CommandTag::Rows(RowsCommand::Copy, 1_000_000),
            CommandTag::Rows(RowsCommand::Fetch, u64::MAX),
            CommandTag::Rows(RowsCommand::Move, 7),
            CommandTag::Plain("SAVEPOINT"),
        ];
        use PgWireBackendMessage as P;
        let mut cases: Vec<(BackendMsg, PgWireBackendMessage)> = vec![
            (
                BackendMsg::RowDescription(fields.clone()),
                P::RowDescription(data::RowDescription::new(
                    fields.iter().map(field).collect(),
                )),
            ),
            (
                BackendMsg::RowDescription(Vec::new()),
                P::RowDescription(data::RowDescription::new(Vec::new())),
            ),
            (BackendMsg::NoData, P::NoData(data::NoData::new())),
            (
                BackendMsg::EmptyQueryResponse,
                P::EmptyQueryResponse(response::EmptyQueryResponse::new()),
            ),
            (
                BackendMsg::ParseComplete,
                P::ParseComplete(extendedquery::ParseComplete::new()),
            ),
            (
                BackendMsg::BindComplete,
                P::BindComplete(extendedquery::BindComplete::new()),
            ),
            (
                BackendMsg::CloseComplete,
                P::CloseComplete(extendedquery::CloseComplete::new()),
            ),
            (
                BackendMsg::PortalSuspended,
                P::PortalSuspended(extendedquery::PortalSuspended::new()),
            ),
        ];
        for st in [TxnStatus::Idle, TxnStatus::InBlock, TxnStatus::Failed] {
            cases.push((BackendMsg::ReadyForQuery(st), ready_for_query(st.as_byte())));
        }
        for t in tags {
            cases.push((
                BackendMsg::CommandComplete(t),
                P::CommandComplete(response::CommandComplete::new(t.to_string())),
            ));
        }
        for (ours, theirs) in cases {
            let (mut a, mut b) = (BytesMut::from(&b"prefix"[..]), BytesMut::new());
            encode(&mut a, &ours).unwrap();
            theirs.encode(&mut b).unwrap();
            assert_eq!(&a[6..], &b[..], "{ours:?}");
        }
        assert_eq!(
            CommandTag::Rows(RowsCommand::Fetch, u64::MAX).to_string(),
            format!("FETCH {}", u64::MAX)
        );
    }

    #[test]
    fn encodes_error_and_ready() {
        let mut b = BytesMut::new();
        let e = DbError::new(SqlState::SyntaxError, "boom").with_position(3);
        encode(&mut b, &BackendMsg::Error(e)).unwrap();
        encode(&mut b, &BackendMsg::ReadyForQuery(TxnStatus::Failed)).unwrap();
        let expected_err = b"SERROR\0VERROR\0C42601\0Mboom\0P3\0\0";
        assert_eq!(b[0], b'E');
        assert_eq!(&b[5..5 + expected_err.len()], &expected_err[..]);
        assert_eq!(&b[5 + expected_err.len()..], b"Z\0\0\0\x05E");
    }

    #[test]
    fn failed_encode_leaves_no_bytes() {
        let mut b = BytesMut::new();
        let huge = "x".repeat(40_000);
        assert!(encode(&mut b, &BackendMsg::ParameterStatus("x".into(), huge)).is_err());
        assert!(b.is_empty());
    }
}
