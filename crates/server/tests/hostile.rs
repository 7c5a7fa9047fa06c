//! No client can take the server down: one session sends hostile input —
//! statements nested far too deep in every shape, huge literals and lists,
//! the protocol's maximum of 65,535 parameters, invalid UTF-8, a
//! transaction dropped mid-way — while another runs a steady workload that
//! must see no error and lose nothing. Each probe's outcome is checked
//! (the SQLSTATE PostgreSQL 15 gives, or the result), the hostile session
//! stays usable after each error, and the server is alive at the end.
//! (Malformed framing is wire.rs's.)

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::*;

fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

/// The error of a reply, if any: (SQLSTATE, message).
fn error_of(reply: &[Msg]) -> Option<(String, String)> {
    reply
        .iter()
        .find(|m| m.tag == b'E')
        .map(|m| (m.sqlstate(), m.message()))
}

/// The first column of the first DataRow of a reply.
fn first_value(reply: &[Msg]) -> Option<String> {
    let row = reply.iter().find(|m| m.tag == b'D')?;
    let b = &row.body;
    let len = i32::from_be_bytes(b[2..6].try_into().ok()?);
    (len >= 0).then(|| String::from_utf8_lossy(&b[6..6 + len as usize]).into_owned())
}

fn expect_error(c: &mut RawConn, sql: &str, sqlstate: &str, what: &str) -> String {
    let reply = c.query(sql);
    let (code, message) = error_of(&reply).unwrap_or_else(|| panic!("{what}: no error"));
    assert_eq!(code, sqlstate, "{what}: {message}");
    assert_eq!(
        reply.last().unwrap().tag,
        b'Z',
        "{what}: ends with ReadyForQuery"
    );
    message
}

fn expect_value(c: &mut RawConn, sql: &str, value: &str, what: &str) {
    let reply = c.query(sql);
    assert_eq!(error_of(&reply), None, "{what}");
    assert_eq!(first_value(&reply).as_deref(), Some(value), "{what}");
}

/// Statements nested `n` deep in each shape that nests.
fn deep_shapes(n: usize) -> Vec<(&'static str, String)> {
    vec![
        (
            "operator chain",
            format!("SELECT {}", vec!["1"; n].join("+")),
        ),
        (
            "parentheses",
            format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "function calls",
            format!("SELECT {}1{}", "abs(".repeat(n), ")".repeat(n)),
        ),
        (
            "CASE",
            format!(
                "SELECT {}1{}",
                "CASE WHEN true THEN ".repeat(n),
                " END".repeat(n)
            ),
        ),
        ("NOT", format!("SELECT {}true", "NOT ".repeat(n))),
        (
            "concatenation",
            format!("SELECT {}", vec!["'a'"; n].join(" || ")),
        ),
        (
            "subqueries",
            format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n)),
        ),
        ("UNION", vec!["SELECT 1"; n].join(" UNION ALL ")),
        ("casts", format!("SELECT 1{}", "::int".repeat(n))),
    ]
}

/// A Parse/Bind/Execute/Sync of `sql` with `params` text parameters.
fn extended(sql: &str, params: &[String]) -> Vec<u8> {
    let mut p = cstr("");
    p.extend(cstr(sql));
    p.extend(0u16.to_be_bytes());
    let mut b = cstr("");
    b.extend(cstr(""));
    b.extend(0u16.to_be_bytes());
    b.extend((params.len() as u16).to_be_bytes());
    for v in params {
        b.extend((v.len() as i32).to_be_bytes());
        b.extend(v.as_bytes());
    }
    b.extend(0u16.to_be_bytes());
    let mut e = cstr("");
    e.extend(0i32.to_be_bytes());
    let mut out = frame(b'P', &p);
    out.extend(frame(b'B', &b));
    out.extend(frame(b'E', &e));
    out.extend(frame(b'S', b""));
    out
}

#[test]
fn hostile_input_fails_cleanly_while_a_steady_workload_runs() {
    let srv = Server::start();
    let mut setup = srv.raw();
    setup.startup("postgres");
    assert_eq!(error_of(&setup.query("CREATE TABLE steady (n int)")), None);

    // The steady workload: inserts and reads until told to stop; every
    // reply must be free of errors.
    let stop = Arc::new(AtomicBool::new(false));
    let mut steady = srv.raw();
    steady.startup("postgres");
    let flag = stop.clone();
    let worker = std::thread::spawn(move || {
        let mut acked = 0u64;
        while !flag.load(Ordering::SeqCst) {
            let reply = steady.query(&format!("INSERT INTO steady VALUES ({acked})"));
            assert_eq!(error_of(&reply), None, "steady insert");
            acked += 1;
            let reply = steady.query("SELECT count(*) FROM steady");
            assert_eq!(error_of(&reply), None, "steady read");
            assert_eq!(first_value(&reply), Some(acked.to_string()));
        }
        acked
    });

    let mut c = srv.raw();
    c.startup("postgres");

    // Nested far too deep: PostgreSQL 15 answers 54001 "stack depth limit
    // exceeded" (or a 42601 "memory exhausted" from its parser's stack for
    // some shapes); the server used to abort on a thread's stack overflow.
    for (shape, sql) in deep_shapes(30_000) {
        let m = expect_error(&mut c, &sql, "54001", shape);
        assert_eq!(m, "stack depth limit exceeded");
    }
    // The example: 100,000 terms, a 200 kB statement.
    expect_error(&mut c, &deep_shapes(100_000)[0].1, "54001", "100,000 terms");
    // Deep, but within the limit: it runs.
    expect_value(&mut c, &deep_shapes(4_000)[0].1, "4000", "4,000 terms");

    // Past the statement size limit (STATEMENT_BYTES_MAX, 16 MiB): 54000.
    let big = "x".repeat(16 << 20);
    let m = expect_error(
        &mut c,
        &format!("SELECT length('{big}')"),
        "54000",
        "16 MiB statement",
    );
    assert!(m.contains("exceeds the limit of 16777216 bytes"), "{m}");
    // Huge, but flat: an 8 MB literal, a 100,000-element IN list, a
    // 20,000-row VALUES list.
    let big = "x".repeat(8 << 20);
    expect_value(
        &mut c,
        &format!("SELECT length('{big}')"),
        "8388608",
        "8 MB literal",
    );
    let list: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    expect_value(
        &mut c,
        &format!(
            "SELECT count(*) FROM (SELECT 1) s WHERE 99999 IN ({})",
            list.join(",")
        ),
        "1",
        "IN list",
    );
    let rows: Vec<String> = (0..20_000).map(|i| format!("({i}, 'r{i}')")).collect();
    expect_value(
        &mut c,
        &format!("SELECT count(*) FROM (VALUES {}) v(a, b)", rows.join(",")),
        "20000",
        "VALUES list",
    );

    // The protocol's maximum: 65,535 parameters.
    let placeholders: Vec<String> = (1..=65_535).map(|i| format!("${i}")).collect();
    let params: Vec<String> = (1..=65_535).map(|i| i.to_string()).collect();
    c.send(&extended(
        &format!("SELECT 65535 IN ({})", placeholders.join(",")),
        &params,
    ));
    let reply = c.read_until_ready();
    assert_eq!(error_of(&reply), None, "65,535 parameters");
    assert_eq!(first_value(&reply).as_deref(), Some("t"));

    // Invalid UTF-8 in a query: 22021, and the session goes on.
    let mut body = b"SELECT '".to_vec();
    body.extend([0xff, 0xfe]);
    body.extend(b"'\0");
    c.send(&frame(b'Q', &body));
    let reply = c.read_until_ready();
    assert_eq!(
        error_of(&reply),
        Some((
            "22021".into(),
            "invalid byte sequence for encoding \"UTF8\": 0xff".into()
        ))
    );
    expect_value(&mut c, "SELECT 1", "1", "after invalid UTF-8");
    // The same in a Parse: ERROR, the rest up to Sync skipped, then on.
    let mut p = b"\0SELECT '".to_vec();
    p.extend([0xe2, 0x28, 0xa1]);
    p.extend(b"'\0\0\0");
    let mut msgs = frame(b'P', &p);
    msgs.extend(extended("SELECT 2", &[]));
    c.send(&msgs);
    let reply = c.read_until_ready();
    let tags: String = reply.iter().map(|m| m.tag as char).collect();
    assert_eq!(tags, "EZ", "error, Bind/Execute skipped to Sync");
    assert_eq!(
        error_of(&reply).unwrap().1,
        "invalid byte sequence for encoding \"UTF8\": 0xe2 0x28 0xa1"
    );
    expect_value(&mut c, "SELECT 1", "1", "after an invalid Parse");

    // A transaction dropped mid-way: its row never appears.
    let mut dropped = srv.raw();
    dropped.startup("postgres");
    assert_eq!(error_of(&dropped.query("BEGIN")), None);
    assert_eq!(
        error_of(&dropped.query("INSERT INTO steady VALUES (-1)")),
        None
    );
    drop(dropped);

    stop.store(true, Ordering::SeqCst);
    let acked = worker.join().expect("the steady workload saw no error");
    assert!(acked > 0);
    expect_value(
        &mut setup,
        "SELECT count(*) FROM steady WHERE n >= 0",
        &acked.to_string(),
        "every acknowledged insert is there",
    );
    expect_value(
        &mut setup,
        "SELECT count(*) FROM steady WHERE n < 0",
        "0",
        "the dropped transaction's row is not",
    );
}

/// A memory-hungry client under a small `--memory-limit`: its writes fail
/// with 53200 once the server is at the limit, the transaction rolls back,
/// other sessions keep reading, and writes work again once memory is freed.
#[test]
fn writes_past_the_memory_limit_fail_with_53200_and_the_server_lives() {
    let srv = Server::start_with(&["--memory-limit", "64MB"], &[]);
    let mut c = srv.raw();
    c.startup("postgres");
    assert_eq!(error_of(&c.query("CREATE TABLE big (a int, b text)")), None);
    let mut committed = 0u64;
    let mut refused = None;
    for batch in 0..100 {
        let reply = c.query(&format!(
            "INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series({}, {}) g",
            batch * 20_000,
            batch * 20_000 + 19_999
        ));
        match error_of(&reply) {
            None => committed += 20_000,
            Some(e) => {
                refused = Some((e, reply));
                break;
            }
        }
    }
    let ((code, message), reply) = refused.expect("the limit was reached within 100 batches");
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("53200", "out of memory")
    );
    let detail = reply
        .iter()
        .find(|m| m.tag == b'E')
        .and_then(|m| m.fields().get(&b'D').cloned())
        .unwrap_or_default();
    assert!(
        detail.contains("of its 64 MB memory limit (--memory-limit)"),
        "{detail}"
    );
    assert!(committed > 0);

    // Reads go on, in this session and in others.
    let mut other = srv.raw();
    other.startup("postgres");
    expect_value(
        &mut other,
        "SELECT count(*) FROM big",
        &committed.to_string(),
        "reads",
    );
    expect_value(
        &mut other,
        "SELECT limit_bytes FROM nestor_memory",
        "67108864",
        "view",
    );
    expect_value(
        &mut c,
        "SELECT count(*) FROM big",
        &committed.to_string(),
        "no partial batch",
    );

    // Freed memory makes writes possible again (measured every 100 ms).
    assert_eq!(error_of(&c.query("DROP TABLE big")), None);
    assert_eq!(error_of(&c.query("CREATE TABLE small (a int)")), None);
    let mut inserted = false;
    for _ in 0..100 {
        if error_of(&c.query("INSERT INTO small VALUES (1)")).is_none() {
            inserted = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(inserted, "writes work again after DROP TABLE");
    expect_value(
        &mut other,
        "SELECT writes_refused, used_bytes < limit_bytes FROM nestor_memory",
        "f",
        "view after",
    );
}
