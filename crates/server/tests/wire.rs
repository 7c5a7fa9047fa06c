//! Wire-level behaviour of the `nestor` binary, with raw TCP: negotiation,
//! startup, framing errors, cancel requests, shutdown, idle memory.
//! Nothing here depends on SQL beyond what the session guarantees for any
//! Query: some response ending in ReadyForQuery.

mod common;

use common::*;

#[test]
fn ssl_and_gss_requests_get_n_then_startup_is_ready_idle() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.send(&code_packet(SSL_REQUEST, &[]));
    assert_eq!(c.read_byte(), b'N');
    c.send(&code_packet(GSSENC_REQUEST, &[]));
    assert_eq!(c.read_byte(), b'N');
    let st = c.startup("alice");
    assert_eq!(st.status, b'I');
    assert!(st.pid > 0);
    assert!(st.params.iter().any(|(k, _)| k == "server_version"));
    // Any query gets a response that ends in ReadyForQuery.
    let resp = c.query("select 1");
    assert_eq!(resp.last().map(|m| m.tag), Some(b'Z'));
    c.send(&frame(b'X', b""));
    c.expect_closed();
}

#[test]
fn plain_startup_without_negotiation() {
    let srv = Server::start();
    let mut c = srv.raw();
    assert_eq!(c.startup("bob").status, b'I');
}

#[test]
fn pipelined_messages_are_all_answered() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.startup("bob");
    // Two simple queries and an extended-protocol Sync in one write.
    let mut bytes = frame(b'Q', b"select 1\0");
    bytes.extend(frame(b'Q', b"select 2\0"));
    bytes.extend(frame(b'S', b""));
    c.send(&bytes);
    for _ in 0..3 {
        c.read_until_ready();
    }
}

#[test]
fn garbage_and_bad_lengths_are_fatal_08p01_and_do_not_affect_others() {
    let srv = Server::start();
    let mut healthy = srv.raw();
    healthy.startup("steady");

    // Unknown message type after startup.
    let mut c = srv.raw();
    c.startup("x");
    c.send(b"\x01garbage garbage");
    let e = c.expect_fatal_and_close("08P01");
    assert_eq!(e.message(), "invalid frontend message type 1");

    // Huge length (> 1 GiB).
    let mut c = srv.raw();
    c.startup("x");
    c.send(b"Q\x7f\xff\xff\xff");
    assert_eq!(
        c.expect_fatal_and_close("08P01").message(),
        "invalid message length"
    );

    // Length < 4.
    let mut c = srv.raw();
    c.startup("x");
    c.send(b"S\x00\x00\x00\x02");
    assert_eq!(
        c.expect_fatal_and_close("08P01").message(),
        "invalid message length"
    );

    // Malformed body: a string without its terminator.
    let mut c = srv.raw();
    c.startup("x");
    c.send(&frame(b'Q', b"select"));
    c.expect_fatal_and_close("08P01");

    // Truncated message, then the client stops sending.
    let mut c = srv.raw();
    c.startup("x");
    c.send(b"Q\x00\x00\x00\x20sel");
    c.close_write();
    assert_eq!(
        c.expect_fatal_and_close("08P01").message(),
        "incomplete message from client"
    );

    // Garbage instead of a startup packet (an HTTP request).
    let mut c = srv.raw();
    c.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(
        c.expect_fatal_and_close("08P01").message(),
        "invalid length of startup packet"
    );

    // Startup packet over 10,000 bytes.
    let mut c = srv.raw();
    // (Only the length: the body would be unread when the server closes,
    // and unread data turns the close into a reset that can eat the error.)
    c.send(&10_001i32.to_be_bytes());
    c.expect_fatal_and_close("08P01");

    // The healthy connection was not disturbed.
    let resp = healthy.query("select 1");
    assert_eq!(resp.last().unwrap().body, b"I");
}

#[test]
fn protocol_versions() {
    let srv = Server::start();
    // 2.0 is refused like PostgreSQL does.
    let mut c = srv.raw();
    c.send(&startup_packet(2, 0, &[("user", "x")]));
    let e = c.expect_fatal_and_close("0A000");
    assert!(e.message().starts_with("unsupported frontend protocol 2.0"));

    // 3.2 and _pq_ options: negotiated down to 3.0, then business as usual.
    let mut c = srv.raw();
    c.send(&startup_packet(3, 2, &[("user", "x"), ("_pq_.magic", "1")]));
    let v = c.read();
    assert_eq!(v.tag, b'v');
    assert_eq!(&v.body[0..4], &0i32.to_be_bytes()); // newest minor: 0
    assert_eq!(&v.body[4..8], &1i32.to_be_bytes());
    assert_eq!(&v.body[8..], b"_pq_.magic\0");
    assert_eq!(c.expect_started().status, b'I');

    // No user name.
    let mut c = srv.raw();
    c.send(&startup_packet(3, 0, &[("database", "x")]));
    c.expect_fatal_and_close("28000");
}

#[test]
fn cancel_request_with_wrong_key_is_harmless() {
    let srv = Server::start();
    let mut a = srv.raw();
    let st = a.startup("alice");
    let mut rest = st.pid.to_be_bytes().to_vec();
    rest.extend_from_slice(&st.secret.wrapping_add(1).to_be_bytes());
    let mut cancel = srv.raw();
    cancel.send(&code_packet(CANCEL_REQUEST, &rest));
    cancel.expect_closed();
    // Also after an SSLRequest, and with a pid that does not exist.
    let mut cancel = srv.raw();
    cancel.send(&code_packet(SSL_REQUEST, &[]));
    assert_eq!(cancel.read_byte(), b'N');
    cancel.send(&code_packet(
        CANCEL_REQUEST,
        &[0, 0, 0x7f, 0xff, 0, 0, 0, 1],
    ));
    cancel.expect_closed();
    let resp = a.query("select 1");
    assert_eq!(resp.last().unwrap().tag, b'Z');
}

#[test]
fn sigterm_closes_connections_with_57p01_and_exits_zero() {
    let mut srv = Server::start();
    let mut idle = srv.raw();
    idle.startup("alice");
    let status = srv.signal_and_wait(libc::SIGTERM);
    assert!(status.success(), "exit status {status:?}");
    let e = idle.expect_fatal_and_close("57P01");
    assert_eq!(
        e.message(),
        "terminating connection due to administrator command"
    );
}

#[test]
fn sigint_exits_zero() {
    let mut srv = Server::start();
    let status = srv.signal_and_wait(libc::SIGINT);
    assert!(status.success(), "exit status {status:?}");
}

/// 1,000 idle connections (after startup) must cost well under 100 KiB each.
#[test]
fn idle_connections_are_cheap() {
    const N: usize = 1000;
    let srv = Server::start();
    // Warm up the runtime and allocator with a few connections first.
    let mut warm: Vec<RawConn> = (0..20).map(|_| srv.raw()).collect();
    for c in &mut warm {
        c.startup("warm");
        c.query("select 1");
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let before = srv.rss_kib();
    let mut conns = Vec::with_capacity(N);
    for i in 0..N {
        let mut c = srv.raw();
        c.startup(&format!("user{i}"));
        conns.push(c);
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let after = srv.rss_kib();
    let per_conn = after.saturating_sub(before) as f64 / N as f64;
    eprintln!("RSS {before} KiB -> {after} KiB with {N} idle connections: {per_conn:.1} KiB each");
    assert!(per_conn < 100.0, "{per_conn:.1} KiB per idle connection");
    // All still alive.
    let resp = conns[N - 1].query("select 1");
    assert_eq!(resp.last().unwrap().tag, b'Z');
}
