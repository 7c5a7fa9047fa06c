//! Blocking reads and writes on a connection's socket, from the thread that
//! runs its session.
//!
//! Why: a request/response client (pgbench, a driver) sends a message,
//! waits for the answer, sends the next. If every message went poller →
//! session thread → poller, each would cost two thread hand-offs (futex
//! wake-ups and context switches: half the CPU in the profile of
//! docs/performance.md). Instead, a connection that has input keeps its
//! session thread: the thread reads, runs, writes and waits for the next
//! message itself, as a PostgreSQL backend does, and goes back to the
//! poller only after `ACTIVE_LINGER` without input (see conn.rs).
//!
//! How: while a session thread owns the connection, the socket is off
//! tokio's reactor (io.rs `into_blocking`: otherwise every message would
//! also wake a poller thread for nothing) and this module waits with
//! `poll` and moves bytes with `recv`/`send` on the file descriptor, which
//! stays non-blocking. When the thread goes quiet, the socket goes back on
//! the reactor (`from_blocking`), which reports any input already there.

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

use bytes::BytesMut;

/// Granularity of a blocked write's check for "give up" (shutdown).
const WRITE_POLL_SLICE_MS: i32 = 1000;

/// A borrowed socket descriptor.
#[derive(Clone, Copy)]
pub(crate) struct Sock(pub RawFd);

impl Sock {
    /// Wait up to `timeout_ms` (-1: forever) for `events`. Ok(false) on
    /// timeout.
    #[allow(unsafe_code)]
    fn wait(self, events: libc::c_short, timeout_ms: i32) -> io::Result<bool> {
        let mut pfd = libc::pollfd {
            fd: self.0,
            events,
            revents: 0,
        };
        loop {
            // SAFETY: one valid pollfd, count 1.
            let r = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
            if r >= 0 {
                return Ok(r > 0);
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    /// Read what is available into `rbuf` (reserving at least `want`
    /// bytes), waiting up to `timeout` for it. Ok(None): nothing arrived in
    /// time; Ok(Some(0)): end of file.
    #[allow(unsafe_code)]
    pub(crate) fn read_within(
        self,
        rbuf: &mut BytesMut,
        want: usize,
        timeout: Duration,
    ) -> io::Result<Option<usize>> {
        rbuf.reserve(want);
        let mut waited = false;
        loop {
            let spare = rbuf.spare_capacity_mut();
            // SAFETY: recv writes at most spare.len() bytes into the
            // buffer's spare capacity.
            let n = unsafe { libc::recv(self.0, spare.as_mut_ptr().cast(), spare.len(), 0) };
            if n >= 0 {
                let n = n as usize;
                // SAFETY: recv initialised the first n bytes of the spare
                // capacity.
                unsafe { rbuf.set_len(rbuf.len() + n) };
                return Ok(Some(n));
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock if !waited => {
                    waited = true;
                    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
                    if !self.wait(libc::POLLIN, ms)? {
                        return Ok(None);
                    }
                }
                // Readable after the wait, yet nothing: a spurious wake-up.
                io::ErrorKind::WouldBlock => return Ok(None),
                _ => return Err(e),
            }
        }
    }

    /// Write all of `buf`, waiting while the socket is full. Checks
    /// `give_up` every `WRITE_POLL_SLICE_MS` of waiting, so a client that
    /// stops reading cannot hold a shutdown forever.
    #[allow(unsafe_code)]
    pub(crate) fn write_all(self, mut buf: &[u8], give_up: &dyn Fn() -> bool) -> io::Result<()> {
        while !buf.is_empty() {
            // SAFETY: reads buf.len() bytes from a live slice. MSG_NOSIGNAL:
            // a closed peer is an error here, not SIGPIPE.
            let n =
                unsafe { libc::send(self.0, buf.as_ptr().cast(), buf.len(), libc::MSG_NOSIGNAL) };
            if n >= 0 {
                buf = &buf[n as usize..];
                continue;
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => {}
                io::ErrorKind::WouldBlock => self.wait_writable(give_up)?,
                _ => return Err(e),
            }
        }
        Ok(())
    }

    /// Wait up to `timeout` for input (tls.rs reads through rustls).
    /// Ok(false) on timeout.
    pub(crate) fn wait_readable(self, timeout: Duration) -> io::Result<bool> {
        let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
        self.wait(libc::POLLIN, ms)
    }

    /// Wait for room to write, up to `WRITE_POLL_SLICE_MS`; Err(TimedOut)
    /// when there is none and `give_up` says so.
    pub(crate) fn wait_writable(self, give_up: &dyn Fn() -> bool) -> io::Result<()> {
        if !self.wait(libc::POLLOUT, WRITE_POLL_SLICE_MS)? && give_up() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        Ok(())
    }
}
