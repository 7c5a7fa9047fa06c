//! TLS for client connections (PostgreSQL's SSLRequest), with rustls.
//!
//! Negotiation is PostgreSQL's: the client sends an 8-byte SSLRequest in
//! plaintext; with `--tls-cert`/`--tls-key` the server answers 'S' and the
//! TLS handshake follows on the same socket, then the ordinary startup
//! packet inside TLS (startup.rs). Without them the answer is 'N' and the
//! client goes on in plaintext (or gives up, with `sslmode=require`).
//! `--tls-required` refuses a startup packet that did not come over TLS with
//! PostgreSQL's pg_hba `hostssl` FATAL 28000 ("... no encryption").
//!
//! Design: the TLS state is one boxed `rustls::ServerConnection` in the
//! connection's `Io`/`BlockingIo` (io.rs), next to the socket; a plain
//! connection has `None` there and pays one branch per read or write
//! syscall path, nothing per message. The message loop does not know about
//! TLS: `rbuf` receives plaintext, `wbuf` is encrypted when flushed.
//!
//! ```text
//!   socket ──ciphertext──▶ read_tls ─▶ rustls (decrypt, buffer) ─▶ rbuf ─▶ codec
//!   socket ◀─ciphertext── write_tls ◀─ rustls (encrypt, ≤64 KiB) ◀─ wbuf ◀─ codec
//! ```
//!
//! The poller (conn.rs) waits for readability of the raw socket. With TLS,
//! bytes that rustls has already decrypted are input too, although the
//! socket may have nothing more to read: a read therefore always takes the
//! plaintext rustls holds *before* it waits on the socket (`read_step`),
//! and every read moves all of it into `rbuf` at once, so rustls never
//! sits on plaintext while the connection waits. A socket that was readable
//! but delivered only part of a TLS record yields no input, and the wait
//! goes on (for the rest of the record).
//!
//! Two transports drive the same rustls state: the tokio socket while the
//! connection is on the reactor (`TryStream`: try_read/try_write, and
//! `readable()`/`writable()` when they would block), and the raw
//! non-blocking std socket while a session thread owns it (waiting with
//! sock.rs's `poll`).
//!
//! Limits: the certificate and key files are read whole, at most
//! `TLS_PEM_FILE_BYTES_MAX` each; rustls bounds its own buffers (16 KiB of
//! received plaintext, 64 KiB of pending output, handshake messages of at
//! most 64 KiB); the handshake runs inside the startup timeout (conn.rs).
//! A client that sends garbage or hangs up mid-handshake ends its own
//! connection only.
//!
//! Not done: client certificates (`clientcert`, `cert` authentication),
//! SCRAM-SHA-256-PLUS channel binding (not advertised, so libpq's
//! `channel_binding=prefer` falls back to plain SCRAM), direct TLS
//! negotiation (PostgreSQL 17's `sslnegotiation=direct`), pg_stat_ssl,
//! and replication connections over TLS (refused with a FATAL).

use std::io::{self, BufRead, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ServerConfig, ServerConnection};
use tokio::net::TcpStream;

use crate::sock::Sock;

/// Largest certificate (chain) or key file read at server start.
pub(crate) const TLS_PEM_FILE_BYTES_MAX: u64 = 1024 * 1024;

/// The ALPN protocol name PostgreSQL 17 registered; a client that offers
/// ALPN must offer this one (as PostgreSQL 17 requires).
const ALPN_POSTGRESQL: &[u8] = b"postgresql";

/// Read a PEM file whole, refusing huge ones.
fn read_pem_file(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let meta =
        std::fs::metadata(path).map_err(|e| format!("could not load {what} \"{shown}\": {e}"))?;
    if meta.len() > TLS_PEM_FILE_BYTES_MAX {
        return Err(format!(
            "could not load {what} \"{shown}\": larger than {TLS_PEM_FILE_BYTES_MAX} bytes"
        ));
    }
    std::fs::read(path).map_err(|e| format!("could not load {what} \"{shown}\": {e}"))
}

/// The server's TLS configuration from a PEM certificate chain (the server
/// certificate first, then any intermediates) and a PEM private key
/// (PKCS#8, PKCS#1 RSA or SEC1 EC). Errors name the file at fault.
pub fn load_config(cert_path: &Path, key_path: &Path) -> Result<Arc<ServerConfig>, String> {
    let cert_pem = read_pem_file(cert_path, "server certificate file")?;
    let certs = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            format!(
                "could not load server certificate file \"{}\": {e}",
                cert_path.display()
            )
        })?;
    if certs.is_empty() {
        return Err(format!(
            "could not load server certificate file \"{}\": no PEM CERTIFICATE in it",
            cert_path.display()
        ));
    }
    let key_pem = read_pem_file(key_path, "private key file")?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        let why = match e {
            rustls::pki_types::pem::Error::NoItemsFound => {
                "no PEM private key in it (PKCS#8, RSA or EC)".to_owned()
            }
            e => e.to_string(),
        };
        format!(
            "could not load private key file \"{}\": {why}",
            key_path.display()
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            format!(
                "could not use certificate \"{}\" with private key \"{}\": {e}",
                cert_path.display(),
                key_path.display()
            )
        })?;
    config.alpn_protocols = vec![ALPN_POSTGRESQL.to_vec()];
    Ok(Arc::new(config))
}

/// Shorthand: an I/O error of kind `kind` carrying `e`.
fn io_err(kind: io::ErrorKind, e: impl std::fmt::Display) -> io::Error {
    io::Error::new(kind, e.to_string())
}

/// The tokio socket as a non-blocking `Read + Write` for rustls.
struct TryStream<'a>(&'a TcpStream);

impl Read for TryStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.try_read(buf)
    }
}

impl Write for TryStream<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.try_write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One connection's TLS session.
pub(crate) struct TlsConn {
    conn: ServerConnection,
}

impl TlsConn {
    /// Run the server side of the handshake on the (reactor-registered)
    /// socket. The caller bounds its time. Errors: the client hung up,
    /// sent something that is not TLS, or could not agree on parameters
    /// (it has been sent an alert, as far as the socket took it).
    pub(crate) async fn accept(stream: &TcpStream, config: Arc<ServerConfig>) -> io::Result<Self> {
        let mut conn =
            ServerConnection::new(config).map_err(|e| io_err(io::ErrorKind::Other, e))?;
        let mut t = TryStream(stream);
        while conn.is_handshaking() {
            if conn.wants_write() {
                match conn.write_tls(&mut t) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => stream.writable().await?,
                    Err(e) => return Err(e),
                }
                continue;
            }
            match conn.read_tls(&mut t) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(_) => {
                    if let Err(e) = conn.process_new_packets() {
                        // Best effort: the alert rustls queued.
                        let _ = conn.write_tls(&mut t);
                        return Err(io_err(io::ErrorKind::InvalidData, e));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => stream.readable().await?,
                Err(e) => return Err(e),
            }
        }
        let mut tls = TlsConn { conn };
        // What the handshake's end queued (TLS 1.3 session tickets).
        tls.send_async(stream).await?;
        Ok(tls)
    }

    /// Protocol version and cipher suite as PostgreSQL's pg_stat_ssl shows
    /// them (OpenSSL's names: rustls's `TLS13_AES_256_GCM_SHA384` is
    /// `TLS_AES_256_GCM_SHA384`, `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`
    /// is `ECDHE-RSA-AES128-GCM-SHA256`).
    pub(crate) fn info(&self) -> nestor_exec::registry::SslInfo {
        let version = match self.conn.protocol_version() {
            Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3",
            Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2",
            _ => "TLS",
        };
        let suite = self
            .conn
            .negotiated_cipher_suite()
            .and_then(|s| s.suite().as_str())
            .unwrap_or("");
        let (cipher, bits) = openssl_cipher(suite);
        nestor_exec::registry::SslInfo {
            version: version.into(),
            cipher,
            bits,
        }
    }

    /// Protocol version and cipher suite, for the log.
    pub(crate) fn describe(&self) -> String {
        let version = self
            .conn
            .protocol_version()
            .and_then(|v| v.as_str())
            .unwrap_or("TLS");
        let suite = self
            .conn
            .negotiated_cipher_suite()
            .and_then(|s| s.suite().as_str())
            .unwrap_or("?");
        format!("{version} {suite}")
    }

    /// Move all plaintext rustls holds into `rbuf`. Ok(n > 0): moved;
    /// Ok(0): the client closed the TLS session (close_notify); errors:
    /// WouldBlock (nothing decrypted yet), UnexpectedEof (the socket
    /// closed without close_notify).
    fn drain(&mut self, rbuf: &mut BytesMut) -> io::Result<usize> {
        let mut moved = 0;
        loop {
            let mut reader = self.conn.reader();
            match reader.fill_buf() {
                Ok([]) => return Ok(moved),
                Ok(chunk) => {
                    let n = chunk.len();
                    rbuf.extend_from_slice(chunk);
                    reader.consume(n);
                    moved += n;
                }
                Err(_) if moved > 0 => return Ok(moved),
                Err(e) => return Err(e),
            }
        }
    }

    /// One non-blocking read: the plaintext already decrypted, else what
    /// the socket has. Ok(n > 0): n bytes appended to `rbuf`; Ok(0): end
    /// of input; Err(WouldBlock): wait for the socket and call again.
    fn read_step<T: Read + Write>(&mut self, t: &mut T, rbuf: &mut BytesMut) -> io::Result<usize> {
        loop {
            match self.drain(rbuf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            // Ok(0) (socket EOF) too is processed: the next drain reports it.
            self.conn.read_tls(t)?;
            if let Err(e) = self.conn.process_new_packets() {
                let _ = self.conn.write_tls(t);
                return Err(io_err(io::ErrorKind::InvalidData, e));
            }
        }
    }

    /// Write out the TLS records rustls holds. Err(WouldBlock): the socket
    /// is full.
    fn send_step<T: Write>(&mut self, t: &mut T) -> io::Result<()> {
        while self.conn.wants_write() {
            match self.conn.write_tls(t) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Hand plaintext to rustls (encrypted at once); how much it took
    /// (less than all when its output buffer is full).
    fn queue(&mut self, plain: &[u8]) -> io::Result<usize> {
        self.conn.writer().write(plain)
    }

    /// Read on the reactor: as `Io::fill` (cancel-safe: nothing is lost
    /// across the only await, on readiness).
    pub(crate) async fn fill(
        &mut self,
        stream: &TcpStream,
        rbuf: &mut BytesMut,
    ) -> io::Result<usize> {
        loop {
            match self.read_step(&mut TryStream(stream), rbuf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => stream.readable().await?,
                r => return r,
            }
        }
    }

    async fn send_async(&mut self, stream: &TcpStream) -> io::Result<()> {
        loop {
            match self.send_step(&mut TryStream(stream)) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => stream.writable().await?,
                r => return r,
            }
        }
    }

    /// Write all of `buf` on the reactor.
    pub(crate) async fn write_all(&mut self, stream: &TcpStream, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let n = self.queue(buf)?;
            buf = &buf[n..];
            self.send_async(stream).await?;
        }
        self.send_async(stream).await
    }

    /// Say goodbye (close_notify) before the socket is shut down.
    pub(crate) async fn close_notify(&mut self, stream: &TcpStream) -> io::Result<()> {
        self.conn.send_close_notify();
        self.send_async(stream).await
    }

    /// Read on a session thread: as `BlockingIo::fill_within`. A socket
    /// that delivers only part of a record within `timeout` gave no input.
    pub(crate) fn fill_within(
        &mut self,
        stream: &std::net::TcpStream,
        rbuf: &mut BytesMut,
        timeout: Duration,
    ) -> io::Result<Option<usize>> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.read_step(&mut &*stream, rbuf) {
                Ok(n) => return Ok(Some(n)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || !Sock(stream_fd(stream)).wait_readable(left)? {
                return Ok(None);
            }
        }
    }

    /// Write all of `buf` on a session thread, giving up on a full socket
    /// once `give_up` says so (as `Sock::write_all`).
    pub(crate) fn write_all_blocking(
        &mut self,
        stream: &std::net::TcpStream,
        mut buf: &[u8],
        give_up: &dyn Fn() -> bool,
    ) -> io::Result<()> {
        let sock = Sock(stream_fd(stream));
        loop {
            let n = self.queue(buf)?;
            buf = &buf[n..];
            loop {
                match self.send_step(&mut &*stream) {
                    Ok(()) => break,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        sock.wait_writable(give_up)?
                    }
                    Err(e) => return Err(e),
                }
            }
            if buf.is_empty() {
                return Ok(());
            }
        }
    }
}

fn stream_fd(stream: &std::net::TcpStream) -> std::os::fd::RawFd {
    std::os::fd::AsRawFd::as_raw_fd(stream)
}

/// OpenSSL's name and key bits of a rustls cipher suite name.
fn openssl_cipher(rustls_name: &str) -> (String, i32) {
    let bits = if rustls_name.contains("AES_128") {
        128
    } else {
        256
    };
    if let Some(rest) = rustls_name.strip_prefix("TLS13_") {
        return (format!("TLS_{rest}"), bits);
    }
    // TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 -> ECDHE-RSA-AES128-GCM-SHA256
    let Some((kx, cipher)) = rustls_name
        .strip_prefix("TLS_")
        .and_then(|n| n.split_once("_WITH_"))
    else {
        return (rustls_name.to_string(), bits);
    };
    let cipher = cipher
        .replace("AES_128", "AES128")
        .replace("AES_256", "AES256")
        .replace("CHACHA20_POLY1305_SHA256", "CHACHA20-POLY1305")
        .replace('_', "-");
    (format!("{}-{cipher}", kx.replace('_', "-")), bits)
}

#[cfg(test)]
mod cipher_name_tests {
    #[test]
    fn rustls_names_become_openssl_names() {
        for (from, to, bits) in [
            ("TLS13_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", 256),
            ("TLS13_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", 128),
            (
                "TLS13_CHACHA20_POLY1305_SHA256",
                "TLS_CHACHA20_POLY1305_SHA256",
                256,
            ),
            (
                "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                "ECDHE-RSA-AES128-GCM-SHA256",
                128,
            ),
            (
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
                "ECDHE-ECDSA-CHACHA20-POLY1305",
                256,
            ),
        ] {
            assert_eq!(super::openssl_cipher(from), (to.to_string(), bits));
        }
    }
}
