//! Message framing shared by the walsender (server side of a replication
//! connection) and the walreceiver (a replica's client side): blocking
//! sockets, PostgreSQL's v3 framing (`tag:u8 len:i32 body`), the
//! replication sub-protocol's CopyData payloads (big-endian, as
//! PostgreSQL's walsender.c sends them), and the one Nestor adds.
//!
//! ```text
//!  XLogData         'w' start:u64 wal_end:u64 send_time:i64 record-bytes
//!  keepalive        'k' wal_end:u64 send_time:i64 reply_requested:u8
//!  status update    'r' write:u64 flush:u64 apply:u64 send_time:i64 reply:u8
//!  redo file piece  'R' xid:u64 total:u64 offset:u64 bytes     (Nestor's)
//! ```
//!
//! Each XLogData carries exactly one WAL record (docs/durability.md §2);
//! the redo file of a `TxnFile` record is sent in pieces before it.

use std::io::{self, Read, Write};
use std::time::Duration;

use nestor_common::limits::REPLICATION_MESSAGE_BYTES_MAX;

use crate::stream::StdStream;

/// Who is connected over a replication connection (pg_stat_replication).
pub struct Peer {
    pub pid: nestor_common::SessionId,
    pub user: String,
    pub application_name: String,
    /// None over the Unix-domain socket.
    pub client_addr: Option<String>,
}

/// PostgreSQL's timestamps: microseconds since 2000-01-01 UTC.
pub fn now_us() -> i64 {
    nestor_types::context::system_now()
}

/// Reads whole messages from a blocking socket whose read timeout makes
/// `next` return None now and then (so the caller can look at its flags);
/// a partial message stays buffered.
pub struct MsgReader {
    pub stream: StdStream,
    buf: Vec<u8>,
    /// REPLICATION_MESSAGE_BYTES_MAX: a longer message breaks the stream.
    max: usize,
}

impl MsgReader {
    pub fn new(stream: StdStream, leftover: Vec<u8>, poll: Duration) -> io::Result<MsgReader> {
        stream.set_read_timeout(Some(poll))?;
        Ok(MsgReader {
            stream,
            buf: leftover,
            max: REPLICATION_MESSAGE_BYTES_MAX,
        })
    }

    /// Whether a whole message is already buffered.
    pub fn has_message(&self) -> bool {
        self.complete().is_some()
    }

    fn complete(&self) -> Option<usize> {
        if self.buf.len() < 5 {
            return None;
        }
        let len = i32::from_be_bytes(self.buf[1..5].try_into().expect("4 bytes"));
        let total = 1 + len.max(0) as usize;
        (self.buf.len() >= total).then_some(total)
    }

    /// The next message (tag, body); Ok(None) when the poll interval
    /// passed without one; an error when the peer closed or broke framing.
    pub fn next(&mut self) -> io::Result<Option<(u8, Vec<u8>)>> {
        loop {
            if self.buf.len() >= 5 {
                let len = i32::from_be_bytes(self.buf[1..5].try_into().expect("4 bytes"));
                if len < 4 || len as usize > self.max {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("invalid message length {len}"),
                    ));
                }
            }
            if let Some(total) = self.complete() {
                let tag = self.buf[0];
                let body = self.buf[5..total].to_vec();
                self.buf.drain(..total);
                return Ok(Some((tag, body)));
            }
            let mut chunk = [0u8; 64 * 1024];
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "connection closed",
                    ))
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(None)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Append a framed message.
pub fn put_msg(out: &mut Vec<u8>, tag: u8, body: &[u8]) {
    out.push(tag);
    out.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    out.extend_from_slice(body);
}

/// A CString field.
pub fn put_cstr(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

/// Read big-endian integers from a message body.
pub struct Cursor<'a> {
    pub b: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor { b }
    }

    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if self.b.len() < n {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "message too short",
            ));
        }
        let (h, t) = self.b.split_at(n);
        self.b = t;
        Ok(h)
    }

    pub fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_be_bytes(self.take(8)?.try_into().expect("8")))
    }

    pub fn i64(&mut self) -> io::Result<i64> {
        Ok(i64::from_be_bytes(self.take(8)?.try_into().expect("8")))
    }

    pub fn i32(&mut self) -> io::Result<i32> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into().expect("4")))
    }

    pub fn i16(&mut self) -> io::Result<i16> {
        Ok(i16::from_be_bytes(self.take(2)?.try_into().expect("2")))
    }

    pub fn cstr(&mut self) -> io::Result<String> {
        let end = self
            .b
            .iter()
            .position(|&c| c == 0)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "unterminated string"))?;
        let s = String::from_utf8_lossy(&self.b[..end]).into_owned();
        self.b = &self.b[end + 1..];
        Ok(s)
    }

    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.b)
    }
}

/// The fields of an ErrorResponse / NoticeResponse: (severity, code,
/// message).
pub fn error_fields(body: &[u8]) -> (String, String, String) {
    let mut c = Cursor::new(body);
    let (mut sev, mut code, mut msg) = (String::new(), String::new(), String::new());
    while let Ok(t) = c.u8() {
        if t == 0 {
            break;
        }
        let Ok(v) = c.cstr() else { break };
        match t {
            b'S' => sev = v,
            b'C' => code = v,
            b'M' => msg = v,
            _ => {}
        }
    }
    (sev, code, msg)
}

/// Write all of `out` (blocking) and clear it.
pub fn send(stream: &mut impl Write, out: &mut Vec<u8>) -> io::Result<()> {
    if !out.is_empty() {
        stream.write_all(out)?;
        out.clear();
    }
    Ok(())
}
