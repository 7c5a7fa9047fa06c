//! A client socket with its read and write buffers.
//!
//! An idle connection holds no buffer: both are freed before waiting for
//! input and allocated when the socket becomes readable. Output is written
//! in chunks so large results do not double in memory. The buffers count
//! in the memory budget's "sessions" category, brought up to date when a
//! connection changes hands (to a session thread and back) and when it
//! closes, not per message.
//!
//! With TLS (tls.rs) the TLS session sits beside the socket and the
//! buffers hold plaintext; a plain connection pays a `None` check per read
//! or write, not per message.

use std::io;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use nestor_common::DbError;
use nestor_session::protocol::BackendMsg;

use nestor_common::limits::{CLOSE_DRAIN_BYTES_MAX, READ_RESERVE_BYTES_MAX};

use crate::codec;
use crate::sock::Sock;
use crate::stream::{StdStream, Stream};
use crate::tls::TlsConn;

/// Smallest read; grows toward the size of a pending large message.
const READ_CHUNK_BYTES: usize = 8 * 1024;
/// Output is written out whenever this much is pending.
const WRITE_CHUNK_BYTES: usize = 64 * 1024;
/// After a FATAL: how long, and how much input, to discard before closing.
const CLOSE_DRAIN: Duration = Duration::from_millis(200);

/// How much to reserve before a read: a chunk, or what the pending message
/// still lacks (bounded).
fn read_want(rbuf: &BytesMut) -> usize {
    codec::pending_frame_len(rbuf)
        .map(|n| n.saturating_sub(rbuf.len()))
        .unwrap_or(0)
        .clamp(READ_CHUNK_BYTES, READ_RESERVE_BYTES_MAX)
}

/// Encode one message into `wbuf`; true when enough is pending that it
/// should be written out now (output goes out in chunks).
fn encode_into(wbuf: &mut BytesMut, m: &BackendMsg) -> Result<bool, Failure> {
    codec::encode(wbuf, m).map_err(|e| Failure::Fatal(Box::new(e)))?;
    Ok(wbuf.len() >= WRITE_CHUNK_BYTES)
}

/// After `wbuf` was written out: empty it, and give back a buffer a large
/// result grew.
fn written(wbuf: &mut BytesMut) {
    wbuf.clear();
    if wbuf.capacity() > WRITE_CHUNK_BYTES * 2 {
        *wbuf = BytesMut::new();
    }
}

/// Why the message loop ends abnormally.
pub enum Failure {
    /// Socket gone: close without a word.
    Io,
    /// Tell the client, then close.
    Fatal(Box<DbError>),
}

/// Socket plus buffers.
pub struct Io {
    pub stream: Stream,
    pub rbuf: BytesMut,
    pub wbuf: BytesMut,
    /// The buffers' capacity as counted in the memory budget.
    accounted: Counted,
    /// `Some` once the client negotiated TLS (tls.rs).
    tls: Option<Box<TlsConn>>,
}

/// Bytes of a connection's buffers counted in the memory budget's
/// "sessions"; uncounted when dropped with the connection.
#[derive(Default)]
struct Counted(usize);

impl Counted {
    /// Bring the count up to the buffers' capacity.
    fn update(&mut self, rbuf: &BytesMut, wbuf: &BytesMut) {
        let cap = rbuf.capacity() + wbuf.capacity();
        if cap != self.0 {
            nestor_common::memory::add(
                nestor_common::memory::Category::Sessions,
                cap as i64 - self.0 as i64,
            );
            self.0 = cap;
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        nestor_common::memory::add(nestor_common::memory::Category::Sessions, -(self.0 as i64));
    }
}

impl Io {
    pub fn new(stream: Stream) -> Io {
        Io {
            stream,
            rbuf: BytesMut::new(),
            wbuf: BytesMut::new(),
            accounted: Counted::default(),
            tls: None,
        }
    }

    /// Whether the connection is encrypted.
    pub(crate) fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// The TLS protocol and cipher, for pg_stat_ssl.
    pub(crate) fn ssl_info(&self) -> Option<nestor_exec::registry::SslInfo> {
        self.tls.as_ref().map(|t| t.info())
    }

    /// Run the TLS handshake (after the 'S' answer to an SSLRequest); from
    /// then on the buffers hold plaintext.
    pub(crate) async fn start_tls(&mut self, config: Arc<rustls::ServerConfig>) -> io::Result<()> {
        let tls = TlsConn::accept(self.stream.tcp(), config).await?;
        tracing::debug!("TLS established: {}", tls.describe());
        self.tls = Some(Box::new(tls));
        Ok(())
    }

    /// Read more bytes into `rbuf`. Returns 0 at EOF. Cancel-safe: bytes
    /// read are in `rbuf` before any await can be abandoned.
    pub async fn fill(&mut self) -> io::Result<usize> {
        if let Some(tls) = &mut self.tls {
            return tls.fill(self.stream.tcp(), &mut self.rbuf).await;
        }
        loop {
            self.stream.readable().await?;
            let want = read_want(&self.rbuf);
            self.rbuf.reserve(want);
            match self.stream.try_read_buf(&mut self.rbuf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
        }
    }

    pub async fn flush(&mut self) -> io::Result<()> {
        if !self.wbuf.is_empty() {
            match &mut self.tls {
                None => self.stream.write_all(&self.wbuf).await?,
                Some(tls) => tls.write_all(self.stream.tcp(), &self.wbuf).await?,
            }
        }
        written(&mut self.wbuf);
        Ok(())
    }

    /// Free both buffers if they hold nothing (before waiting idle).
    pub(crate) fn release_idle_buffers(&mut self) {
        if self.rbuf.is_empty() {
            self.rbuf = BytesMut::new();
        }
        if self.wbuf.is_empty() {
            self.wbuf = BytesMut::new();
        }
        self.accounted.update(&self.rbuf, &self.wbuf);
    }

    /// Send an ErrorResponse (typically FATAL) before closing, ignoring I/O
    /// errors: the connection is ending anyway. Then half-close and discard
    /// input for a moment: closing a socket with unread input sends a reset,
    /// which can destroy the error before the client reads it.
    pub async fn send_fatal(&mut self, e: &DbError) {
        let _ = codec::encode_pg(&mut self.wbuf, &codec::error_message(e));
        self.close().await;
    }

    /// Flush, half-close and drain (see `send_fatal`): for output that
    /// already ends in a FATAL.
    pub async fn close(&mut self) {
        if self.flush().await.is_err() {
            return;
        }
        if let Some(tls) = &mut self.tls {
            if tls.close_notify(self.stream.tcp()).await.is_err() {
                return;
            }
        }
        let _ = self.stream.shutdown().await;
        let mut sink = [0u8; 4096];
        let mut left = CLOSE_DRAIN_BYTES_MAX;
        let _ = tokio::time::timeout(CLOSE_DRAIN, async {
            while left > 0 {
                match self.stream.read(&mut sink).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => left = left.saturating_sub(n),
                }
            }
        })
        .await;
    }

    /// Take the socket off the reactor for a session thread (sock.rs):
    /// while it talks, its input must not wake the poller.
    pub(crate) fn into_blocking(mut self) -> io::Result<BlockingIo> {
        self.accounted.update(&self.rbuf, &self.wbuf);
        Ok(BlockingIo {
            stream: self.stream.into_std()?,
            rbuf: self.rbuf,
            wbuf: self.wbuf,
            accounted: self.accounted,
            tls: self.tls,
        })
    }

    /// Hand the socket to a thread of its own for good (a walsender):
    /// blocking mode, and the bytes already read. Not over TLS (startup.rs
    /// refuses such a replication connection first).
    pub(crate) fn into_std(mut self) -> io::Result<(StdStream, Vec<u8>)> {
        if self.tls.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "replication over TLS is not supported",
            ));
        }
        self.accounted.update(&self.rbuf, &self.wbuf);
        let stream = self.stream.into_std()?;
        stream.set_nonblocking(false)?;
        Ok((stream, self.rbuf.to_vec()))
    }

    /// Put a socket back on the reactor. Must run inside the runtime.
    pub(crate) fn from_blocking(mut b: BlockingIo) -> io::Result<Io> {
        b.accounted.update(&b.rbuf, &b.wbuf);
        Ok(Io {
            stream: Stream::from_std(b.stream)?,
            rbuf: b.rbuf,
            wbuf: b.wbuf,
            accounted: b.accounted,
            tls: b.tls,
        })
    }

    /// Encode session output, writing out in chunks.
    pub async fn write_out(&mut self, out: &[BackendMsg]) -> Result<(), Failure> {
        for m in out {
            if encode_into(&mut self.wbuf, m)? {
                self.flush().await.map_err(|_| Failure::Io)?;
            }
        }
        Ok(())
    }
}

/// The same connection while a session thread owns it: blocking reads and
/// writes (sock.rs), the socket off the reactor.
pub(crate) struct BlockingIo {
    stream: StdStream,
    pub rbuf: BytesMut,
    wbuf: BytesMut,
    accounted: Counted,
    tls: Option<Box<TlsConn>>,
}

impl BlockingIo {
    fn sock(&self) -> Sock {
        Sock(self.stream.as_raw_fd())
    }

    /// Wait up to `timeout` for input. Ok(None): none came; Ok(Some(0)):
    /// end of file.
    pub(crate) fn fill_within(&mut self, timeout: Duration) -> io::Result<Option<usize>> {
        if let Some(tls) = &mut self.tls {
            return tls.fill_within(self.stream.tcp(), &mut self.rbuf, timeout);
        }
        let want = read_want(&self.rbuf);
        self.sock().read_within(&mut self.rbuf, want, timeout)
    }

    /// Write out what is pending, giving up on a full socket once
    /// `give_up` says so.
    pub(crate) fn flush(&mut self, give_up: &dyn Fn() -> bool) -> io::Result<()> {
        if !self.wbuf.is_empty() {
            match &mut self.tls {
                None => self.sock().write_all(&self.wbuf, give_up)?,
                Some(tls) => tls.write_all_blocking(self.stream.tcp(), &self.wbuf, give_up)?,
            }
        }
        written(&mut self.wbuf);
        Ok(())
    }

    /// Encode session output, writing out in chunks.
    pub(crate) fn write_out(
        &mut self,
        out: &[BackendMsg],
        give_up: &dyn Fn() -> bool,
    ) -> Result<(), Failure> {
        for m in out {
            if encode_into(&mut self.wbuf, m)? {
                self.flush(give_up).map_err(|_| Failure::Io)?;
            }
        }
        Ok(())
    }
}
