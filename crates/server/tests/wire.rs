//! Wire-level behaviour of the `nestor` binary, with raw TCP: negotiation,
//! startup, pipelining of simple and extended queries, framing errors,
//! cancel requests, shutdown, idle memory, the binary COPY sub-protocol.
//! The SQL used is literal SELECTs with parameters and COPY of a small
//! table; the replies are checked message by message.

mod common;

use common::*;

/// The type bytes of a reply, e.g. "TDCZ" for a one-row simple query.
fn tags(msgs: &[Msg]) -> String {
    msgs.iter().map(|m| m.tag as char).collect()
}

/// The text values of a DataRow (None for NULL).
fn row_values(m: &Msg) -> Vec<Option<String>> {
    assert_eq!(m.tag, b'D', "expected DataRow, got {m:?}");
    let n = i16::from_be_bytes([m.body[0], m.body[1]]);
    let mut rest = &m.body[2..];
    (0..n)
        .map(|_| {
            let len = i32::from_be_bytes(rest[..4].try_into().unwrap());
            rest = &rest[4..];
            (len >= 0).then(|| {
                let (v, tail) = rest.split_at(len as usize);
                rest = tail;
                String::from_utf8(v.to_vec()).unwrap()
            })
        })
        .collect()
}

/// A CommandComplete's tag ("SELECT 1").
fn command_tag(m: &Msg) -> String {
    assert_eq!(m.tag, b'C', "expected CommandComplete, got {m:?}");
    String::from_utf8(m.body.strip_suffix(b"\0").unwrap().to_vec()).unwrap()
}

/// `select N` by simple query: RowDescription, one DataRow "N",
/// CommandComplete "SELECT 1", ReadyForQuery with status `status`.
fn assert_select_reply(reply: &[Msg], n: &str, status: u8) {
    assert_eq!(tags(reply), "TDCZ", "{reply:?}");
    assert_eq!(row_values(&reply[1]), [Some(n.to_string())]);
    assert_eq!(command_tag(&reply[2]), "SELECT 1");
    assert_eq!(reply[3].body, [status], "ReadyForQuery status");
}

fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

/// Parse: statement name, query, no parameter types (inferred).
fn parse(name: &str, query: &str) -> Vec<u8> {
    let mut body = cstr(name);
    body.extend(cstr(query));
    body.extend(0i16.to_be_bytes());
    frame(b'P', &body)
}

/// Bind: portal, statement, text parameters, text results.
fn bind(portal: &str, stmt: &str, params: &[&str]) -> Vec<u8> {
    let mut body = cstr(portal);
    body.extend(cstr(stmt));
    body.extend(0i16.to_be_bytes());
    body.extend((params.len() as i16).to_be_bytes());
    for p in params {
        body.extend((p.len() as i32).to_be_bytes());
        body.extend(p.as_bytes());
    }
    body.extend(0i16.to_be_bytes());
    frame(b'B', &body)
}

/// Execute: portal, all rows.
fn execute(portal: &str) -> Vec<u8> {
    let mut body = cstr(portal);
    body.extend(0i32.to_be_bytes());
    frame(b'E', &body)
}

fn sync() -> Vec<u8> {
    frame(b'S', b"")
}

#[test]
fn ssl_and_gss_requests_get_n_then_startup_is_ready_idle() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.send(&code_packet(SSL_REQUEST, &[]));
    assert_eq!(c.read_byte(), b'N');
    c.send(&code_packet(GSSENC_REQUEST, &[]));
    assert_eq!(c.read_byte(), b'N');
    let st = c.startup("postgres");
    assert_eq!(st.status, b'I');
    assert!(st.pid > 0);
    assert!(st.params.iter().any(|(k, _)| k == "server_version"));
    // The negotiated connection answers queries.
    assert_select_reply(&c.query("select 1"), "1", b'I');
    c.send(&frame(b'X', b""));
    c.expect_closed();
}

#[test]
fn plain_startup_without_negotiation() {
    let srv = Server::start();
    let mut c = srv.raw();
    assert_eq!(c.startup("postgres").status, b'I');
}

/// Simple queries and extended-protocol batches sent in one write are each
/// answered, in order, with their own messages and values; every Sync (and
/// every Query) gets exactly one ReadyForQuery; an error in a batch skips
/// the rest of that batch up to its Sync and nothing after it.
#[test]
fn pipelined_messages_are_all_answered_in_order() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.startup("postgres");
    let mut bytes = frame(b'Q', b"select 1\0");
    // Unnamed statement and portal: Parse, Bind ($1 = 41), Execute, Sync.
    bytes.extend(parse("", "select $1::int4 + 1"));
    bytes.extend(bind("", "", &["41"]));
    bytes.extend(execute(""));
    bytes.extend(sync());
    bytes.extend(frame(b'Q', b"select 2\0"));
    // Named statement; Bind of a statement that does not exist fails, so
    // the Execute after it is skipped until Sync.
    bytes.extend(parse("s2", "select $1::int4 * 2, $2::text"));
    bytes.extend(bind("", "nope", &[]));
    bytes.extend(execute(""));
    bytes.extend(sync());
    // The named statement survives the failed batch: two portals of it.
    bytes.extend(bind("p1", "s2", &["21", "a"]));
    bytes.extend(bind("p2", "s2", &["5", "b"]));
    bytes.extend(execute("p2"));
    bytes.extend(execute("p1"));
    bytes.extend(sync());
    // A bare Sync: just ReadyForQuery.
    bytes.extend(sync());
    bytes.extend(frame(b'Q', b"select 3\0"));
    c.send(&bytes);

    assert_select_reply(&c.read_until_ready(), "1", b'I');

    let r = c.read_until_ready();
    assert_eq!(tags(&r), "12DCZ", "ParseComplete, BindComplete, row: {r:?}");
    assert_eq!(row_values(&r[2]), [Some("42".to_string())]);
    assert_eq!(command_tag(&r[3]), "SELECT 1");
    assert_eq!(r[4].body, b"I");

    assert_select_reply(&c.read_until_ready(), "2", b'I');

    let r = c.read_until_ready();
    assert_eq!(
        tags(&r),
        "1EZ",
        "the Execute after the failed Bind is skipped: {r:?}"
    );
    assert_eq!(r[1].sqlstate(), "26000", "{:?}", r[1].fields());
    assert_eq!(r[1].message(), "prepared statement \"nope\" does not exist");
    assert_eq!(r[2].body, b"I");

    let r = c.read_until_ready();
    assert_eq!(tags(&r), "22DCDCZ", "{r:?}");
    assert_eq!(
        row_values(&r[2]),
        [Some("10".to_string()), Some("b".to_string())]
    );
    assert_eq!(command_tag(&r[3]), "SELECT 1");
    assert_eq!(
        row_values(&r[4]),
        [Some("42".to_string()), Some("a".to_string())]
    );
    assert_eq!(command_tag(&r[5]), "SELECT 1");
    assert_eq!(r[6].body, b"I");

    let r = c.read_until_ready();
    assert_eq!(tags(&r), "Z", "a bare Sync: {r:?}");

    // Exactly one ReadyForQuery per Sync: the next reply is the last query's.
    assert_select_reply(&c.read_until_ready(), "3", b'I');
}

#[test]
fn garbage_and_bad_lengths_are_fatal_08p01_and_do_not_affect_others() {
    let srv = Server::start();
    let mut healthy = srv.raw();
    healthy.startup("postgres");

    // Unknown message type after startup.
    let mut c = srv.raw();
    c.startup("postgres");
    c.send(b"\x01garbage garbage");
    let e = c.expect_fatal_and_close("08P01");
    assert_eq!(e.message(), "invalid frontend message type 1");

    // Huge length (> 1 GiB).
    let mut c = srv.raw();
    c.startup("postgres");
    c.send(b"Q\x7f\xff\xff\xff");
    assert_eq!(
        c.expect_fatal_and_close("08P01").message(),
        "invalid message length"
    );

    // Length < 4.
    let mut c = srv.raw();
    c.startup("postgres");
    c.send(b"S\x00\x00\x00\x02");
    assert_eq!(
        c.expect_fatal_and_close("08P01").message(),
        "invalid message length"
    );

    // Malformed body: a string without its terminator.
    let mut c = srv.raw();
    c.startup("postgres");
    c.send(&frame(b'Q', b"select"));
    c.expect_fatal_and_close("08P01");

    // Truncated message, then the client stops sending.
    let mut c = srv.raw();
    c.startup("postgres");
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
    c.send(&startup_packet(
        3,
        2,
        &[("user", "postgres"), ("_pq_.magic", "1")],
    ));
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
    let st = a.startup("postgres");
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
    // Nothing was cancelled: the target connection answers normally (no
    // 57014), idle.
    assert_select_reply(&a.query("select 1"), "1", b'I');
}

#[test]
fn sigterm_closes_connections_with_57p01_and_exits_zero() {
    let mut srv = Server::start();
    let mut idle = srv.raw();
    idle.startup("postgres");
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
        c.startup("postgres");
        c.query("select 1");
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let before = srv.rss_kib();
    let mut conns = Vec::with_capacity(N);
    for _ in 0..N {
        let mut c = srv.raw();
        c.startup("postgres");
        conns.push(c);
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let after = srv.rss_kib();
    let per_conn = after.saturating_sub(before) as f64 / N as f64;
    eprintln!("RSS {before} KiB -> {after} KiB with {N} idle connections: {per_conn:.1} KiB each");
    assert!(per_conn < 100.0, "{per_conn:.1} KiB per idle connection");
    // All still alive: the first and the last one answer.
    assert_select_reply(&conns[0].query("select 1"), "1", b'I');
    assert_select_reply(&conns[N - 1].query("select 2"), "2", b'I');
}

/// A connection moves between the poller and a session thread while it
/// talks (conn.rs): answers stay in order for queries sent in one write and
/// after a quiet period (back in the poller), and an idle-in-transaction
/// timeout shorter than the session thread's linger still fires.
#[test]
fn connection_moves_between_poller_and_session_thread() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.startup("postgres");
    let mut both = frame(b'Q', &cstr("select 1"));
    both.extend(frame(b'Q', &cstr("select 2")));
    c.send(&both);
    assert_select_reply(&c.read_until_ready(), "1", b'I');
    assert_select_reply(&c.read_until_ready(), "2", b'I');
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_select_reply(&c.query("select 3"), "3", b'I');
    c.query("SET idle_in_transaction_session_timeout = '10ms'");
    assert_eq!(tags(&c.query("BEGIN")), "CZ");
    let e = c.expect_fatal_and_close("25P03");
    assert_eq!(
        e.message(),
        "terminating connection due to idle-in-transaction timeout"
    );
}

/// A CopyData frame.
fn copy_data(bytes: &[u8]) -> Vec<u8> {
    frame(b'd', bytes)
}

/// Binary COPY as PostgreSQL 15 does it on the wire (checked against a
/// real server): CopyIn/CopyOutResponse say binary overall and per column,
/// a tuple split across CopyData messages loads, COPY TO sends the header
/// with the first tuple and the trailer alone, and a bad signature is
/// 22P04 at CopyDone.
#[test]
fn copy_binary_sub_protocol() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.startup("postgres");
    assert_eq!(tags(&c.query("create table wt (a int4, b text)")), "CZ");

    let r = c.query("insert into wt values (1, 'x')");
    assert_eq!(tags(&r), "CZ");
    c.send(&frame(b'Q', b"COPY wt (b) FROM STDIN (FORMAT binary)\0"));
    let g = c.read();
    assert_eq!((g.tag, &g.body[..]), (b'G', &[1u8, 0, 1, 0, 1][..]));
    let mut stream = b"PGCOPY\n\xff\r\n\0".to_vec();
    stream.extend_from_slice(&[0; 8]);
    stream.extend_from_slice(&[0, 1, 0, 0, 0, 2, b'y', b'z', 0xff, 0xff]);
    // Cut inside the field's length and inside its data.
    for part in [&stream[..23], &stream[23..27], &stream[27..]] {
        c.send(&copy_data(part));
    }
    c.send(&frame(b'c', b""));
    let r = c.read_until_ready();
    assert_eq!(tags(&r), "CZ", "{r:?}");
    assert_eq!(command_tag(&r[0]), "COPY 1");

    let r = c.query("COPY wt TO STDOUT (FORMAT binary)");
    assert_eq!(tags(&r), "HdddcCZ", "{r:?}");
    assert_eq!(r[0].body, [1, 0, 2, 0, 1, 0, 1]);
    let mut first = b"PGCOPY\n\xff\r\n\0".to_vec();
    first.extend_from_slice(&[0; 8]);
    first.extend_from_slice(&[0, 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 1, b'x']);
    assert_eq!(r[1].body, first);
    assert_eq!(
        r[2].body,
        [0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2, b'y', b'z']
    );
    assert_eq!(r[3].body, [0xff, 0xff]);
    assert_eq!(command_tag(&r[5]), "COPY 2");

    c.send(&frame(b'Q', b"COPY wt FROM STDIN (FORMAT binary)\0"));
    let g = c.read();
    assert_eq!((g.tag, &g.body[..]), (b'G', &[1u8, 0, 2, 0, 1, 0, 1][..]));
    c.send(&copy_data(b"PGCOPX"));
    c.send(&frame(b'c', b""));
    let r = c.read_until_ready();
    assert_eq!(tags(&r), "EZ", "{r:?}");
    assert_eq!(r[0].sqlstate(), "22P04");
    assert_eq!(r[0].message(), "COPY file signature not recognized");
}
