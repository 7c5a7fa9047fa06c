//! A client's socket: TCP or Unix-domain.
//!
//! PostgreSQL listens on TCP and on a Unix-domain socket
//! `<dir>/.s.PGSQL.<port>` in each of `unix_socket_directories`; psql,
//! libpq and most drivers use the socket when no host is given
//! (`psql -p 5433`). Both carry the same protocol, so everything above the
//! bytes (startup, sessions, the walsender) takes a [`Stream`] and does
//! not care which it is. The differences are few and live here or are
//! asked for by [`Peer`]:
//!
//! - a Unix connection has no address: pg_stat_activity shows
//!   `client_addr` NULL and `client_port` -1, messages say `[local]`, and
//!   pg_hba's `local` lines (not `host` ones) decide how it authenticates;
//! - TLS is negotiated only over TCP (PostgreSQL answers an SSLRequest on a
//!   Unix socket with `N`); `Stream::tcp` asserts it;
//! - Nagle's algorithm (`TCP_NODELAY`) exists only for TCP.
//!
//! The socket file itself (creation, its lock file, removal at shutdown)
//! is `unix_socket.rs`'s.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

use bytes::BufMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Who is at the other end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    Tcp(SocketAddr),
    Unix,
}

impl Peer {
    /// The client's IP address; None over a Unix socket.
    pub fn ip(self) -> Option<std::net::IpAddr> {
        match self {
            Peer::Tcp(a) => Some(a.ip()),
            Peer::Unix => None,
        }
    }

    /// The client's port: -1 over a Unix socket (pg_stat_activity).
    pub fn port(self) -> i32 {
        match self {
            Peer::Tcp(a) => i32::from(a.port()),
            Peer::Unix => -1,
        }
    }

    /// The host as PostgreSQL's messages name it: the address, or
    /// `[local]`.
    pub fn host(self) -> String {
        match self {
            Peer::Tcp(a) => a.ip().to_string(),
            Peer::Unix => "[local]".to_string(),
        }
    }
}

impl std::fmt::Display for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Peer::Tcp(a) => write!(f, "{a}"),
            Peer::Unix => f.write_str("[local]"),
        }
    }
}

/// A connection's socket while it is on tokio's reactor.
pub enum Stream {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

impl Stream {
    /// The TCP socket under a TLS session. TLS is only ever started on TCP
    /// (startup.rs refuses an SSLRequest on a Unix socket).
    pub(crate) fn tcp(&self) -> &tokio::net::TcpStream {
        match self {
            Stream::Tcp(s) => s,
            Stream::Unix(_) => panic!("TLS on a Unix-domain socket"),
        }
    }

    pub fn is_unix(&self) -> bool {
        matches!(self, Stream::Unix(_))
    }

    /// Send small messages at once (no Nagle delay); nothing to do on a
    /// Unix socket.
    pub fn set_nodelay(&self) {
        if let Stream::Tcp(s) = self {
            let _ = s.set_nodelay(true);
        }
    }

    pub async fn readable(&self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.readable().await,
            Stream::Unix(s) => s.readable().await,
        }
    }

    pub fn try_read_buf<B: BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.try_read_buf(buf),
            Stream::Unix(s) => s.try_read_buf(buf),
        }
    }

    pub async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.write_all(buf).await,
            Stream::Unix(s) => s.write_all(buf).await,
        }
    }

    pub async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf).await,
            Stream::Unix(s) => s.read(buf).await,
        }
    }

    /// Half-close: the client reads to the end of what was sent.
    pub async fn shutdown(&mut self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.shutdown().await,
            Stream::Unix(s) => s.shutdown().await,
        }
    }

    /// Off the reactor (still non-blocking): for a session thread or a
    /// walsender.
    pub fn into_std(self) -> io::Result<StdStream> {
        Ok(match self {
            Stream::Tcp(s) => StdStream::Tcp(s.into_std()?),
            Stream::Unix(s) => StdStream::Unix(s.into_std()?),
        })
    }

    /// Back on the reactor. Must run inside the runtime.
    pub fn from_std(s: StdStream) -> io::Result<Stream> {
        Ok(match s {
            StdStream::Tcp(s) => Stream::Tcp(tokio::net::TcpStream::from_std(s)?),
            StdStream::Unix(s) => Stream::Unix(tokio::net::UnixStream::from_std(s)?),
        })
    }
}

/// The same socket off the reactor: a session thread's or a walsender's.
pub enum StdStream {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

impl StdStream {
    /// The TCP socket under a TLS session (see [`Stream::tcp`]).
    pub(crate) fn tcp(&self) -> &std::net::TcpStream {
        match self {
            StdStream::Tcp(s) => s,
            StdStream::Unix(_) => panic!("TLS on a Unix-domain socket"),
        }
    }

    pub fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        match self {
            StdStream::Tcp(s) => s.set_nonblocking(on),
            StdStream::Unix(s) => s.set_nonblocking(on),
        }
    }

    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            StdStream::Tcp(s) => s.set_read_timeout(t),
            StdStream::Unix(s) => s.set_read_timeout(t),
        }
    }

    pub fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            StdStream::Tcp(s) => s.set_write_timeout(t),
            StdStream::Unix(s) => s.set_write_timeout(t),
        }
    }

    pub fn try_clone(&self) -> io::Result<StdStream> {
        Ok(match self {
            StdStream::Tcp(s) => StdStream::Tcp(s.try_clone()?),
            StdStream::Unix(s) => StdStream::Unix(s.try_clone()?),
        })
    }

    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        match self {
            StdStream::Tcp(s) => s.shutdown(how),
            StdStream::Unix(s) => s.shutdown(how),
        }
    }
}

impl AsRawFd for StdStream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            StdStream::Tcp(s) => s.as_raw_fd(),
            StdStream::Unix(s) => s.as_raw_fd(),
        }
    }
}

impl Read for StdStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            StdStream::Tcp(s) => s.read(buf),
            StdStream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for StdStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            StdStream::Tcp(s) => s.write(buf),
            StdStream::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
