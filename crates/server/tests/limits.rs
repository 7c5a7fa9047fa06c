//! Every resource limit of `crates/common/src/limits.rs` that a client can
//! reach, exceeded once through the wire against the real binary, with the
//! SQLSTATE and message PostgreSQL 15 gives for its counterpart (or, where
//! PostgreSQL has none, the closest one). Limits that are large by default
//! are set small with their server flags so each probe takes milliseconds.
//! After each refusal the session (or the server, for FATAL ones) goes on.
//!
//! Elsewhere: statement size (STATEMENT_BYTES_MAX, 54000), the memory
//! budget (--memory-limit, 53200) and nesting depth (54001) in hostile.rs;
//! a frontend message longer than 1 GiB in wire.rs.

mod common;

use std::os::unix::process::ExitStatusExt;

use common::*;

/// The error of a reply, if any: (SQLSTATE, message, DETAIL, HINT).
fn error_of(reply: &[Msg]) -> Option<(String, String, String, String)> {
    reply.iter().find(|m| m.tag == b'E').map(|m| {
        let f = m.fields();
        let get = |c: u8| f.get(&c).cloned().unwrap_or_default();
        (get(b'C'), get(b'M'), get(b'D'), get(b'H'))
    })
}

fn ok(c: &mut RawConn, sql: &str) -> Vec<Msg> {
    let reply = c.query(sql);
    assert_eq!(error_of(&reply), None, "{sql}");
    reply
}

/// The first column of the first DataRow of a reply.
fn first_value(reply: &[Msg]) -> Option<String> {
    let row = reply.iter().find(|m| m.tag == b'D')?;
    let b = &row.body;
    let len = i32::from_be_bytes(b[2..6].try_into().ok()?);
    (len >= 0).then(|| String::from_utf8_lossy(&b[6..6 + len as usize]).into_owned())
}

fn value(c: &mut RawConn, sql: &str) -> String {
    first_value(&ok(c, sql)).unwrap_or_default()
}

/// Run `sql`, which must fail with `sqlstate`; returns the error's fields.
fn fails(c: &mut RawConn, sql: &str, sqlstate: &str) -> (String, String, String) {
    let reply = c.query(sql);
    let (code, message, detail, hint) =
        error_of(&reply).unwrap_or_else(|| panic!("{sql}: no error"));
    assert_eq!(code, sqlstate, "{sql}: {message}");
    assert_eq!(reply.last().map(|m| m.tag), Some(b'Z'), "{sql}");
    (message, detail, hint)
}

/// Log in as `user`: Ok(is_superuser as reported) or Err(the FATAL's
/// SQLSTATE and message, after which the server closed the connection).
fn login(srv: &Server, user: &str) -> (RawConn, Result<String, (String, String)>) {
    let mut c = srv.raw();
    c.send(&startup_packet(
        3,
        0,
        &[("user", user), ("database", "postgres")],
    ));
    let auth = c.read();
    assert_eq!(auth.tag, b'R', "{auth:?}");
    let mut superuser = String::new();
    loop {
        let m = c.read();
        match m.tag {
            b'E' => {
                assert_eq!(m.severity(), "FATAL");
                c.expect_closed();
                return (c, Err((m.sqlstate(), m.message())));
            }
            b'S' => {
                let parts: Vec<String> = m
                    .body
                    .split(|&b| b == 0)
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect();
                if parts[0] == "is_superuser" {
                    superuser = parts[1].clone();
                }
            }
            b'Z' => return (c, Ok(superuser)),
            _ => {}
        }
    }
}

/// --max-connections 5 with 2 slots reserved for superusers: PostgreSQL 15
/// with max_connections = 5 and superuser_reserved_connections = 2 lets a
/// non-superuser in 3 times, then refuses it with 53300 "remaining
/// connection slots are reserved for non-replication superuser
/// connections"; superusers get the 2 left, then 53300 "sorry, too many
/// clients already".
#[test]
fn connections_past_the_limit_and_into_the_superuser_reserve_get_53300() {
    let srv = Server::start_with(
        &[
            "--max-connections",
            "5",
            "--superuser-reserved-connections",
            "2",
            "--superuser",
            "admin",
        ],
        &[],
    );
    common::ok(&srv, "CREATE ROLE app LOGIN");
    // psql's session ends after its socket: wait until its slot is free.
    let mut held = Vec::new();
    for _ in 0..1000 {
        if let (c, Ok(_)) = login(&srv, "app") {
            held.push(c);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    for _ in 1..3 {
        let (c, r) = login(&srv, "app");
        assert_eq!(r, Ok("off".to_string()), "is_superuser of app");
        held.push(c);
    }
    let (_, refused) = login(&srv, "app");
    assert_eq!(
        refused,
        Err((
            "53300".into(),
            "remaining connection slots are reserved for non-replication superuser connections"
                .into()
        ))
    );
    for _ in 0..2 {
        let (c, r) = login(&srv, "admin");
        assert_eq!(r, Ok("on".to_string()), "is_superuser of admin");
        held.push(c);
    }
    let (_, refused) = login(&srv, "admin");
    assert_eq!(
        refused,
        Err(("53300".into(), "sorry, too many clients already".into()))
    );
    // The sessions let in still work; a slot freed is taken again.
    assert_eq!(value(&mut held[0], "SELECT 1"), "1");
    let mut freed = held.remove(1);
    freed.send(&frame(b'X', b""));
    freed.expect_closed();
    // The session ends after its socket: wait until its slot is free (a
    // superuser's: the others are in the reserve).
    let mut back = None;
    for _ in 0..1000 {
        match login(&srv, "admin") {
            (c, Ok(_)) => {
                back = Some(c);
                break;
            }
            (_, Err(_)) => std::thread::sleep(std::time::Duration::from_millis(10)),
        }
    }
    let mut back = back.expect("a freed slot is taken again");
    assert_eq!(value(&mut back, "SELECT current_user"), "admin");
}

/// A server with every per-transaction limit set small.
fn small_limits_server() -> Server {
    Server::start_with(
        &[
            "--savepoint-depth-max",
            "100",
            "--txn-locks-max",
            "1000",
            "--txn-undo-entries-max",
            "10000",
            "--txn-redo-memory-max",
            "64kB",
            "--txn-redo-file-max",
            "1MB",
        ],
        &[],
    )
}

/// SAVEPOINT_DEPTH_MAX (--savepoint-depth-max): 54000. PostgreSQL 15 has no
/// such limit (every savepoint is a subtransaction; 2^32-1 in all, 54000
/// "cannot have more than 2^32-1 subtransactions in a transaction").
#[test]
fn savepoints_past_the_depth_limit_get_54000() {
    let srv = small_limits_server();
    let mut c = srv.raw();
    c.startup("postgres");
    ok(&mut c, "BEGIN");
    ok(&mut c, &"SAVEPOINT s;".repeat(100));
    let (message, _, hint) = fails(&mut c, "SAVEPOINT s", "54000");
    assert_eq!(
        message,
        "cannot have more than 100 savepoints open in one transaction"
    );
    assert!(hint.contains("savepoint_depth_max"), "{hint}");
    // The failed SAVEPOINT aborted the block; ROLLBACK TO an existing one
    // recovers it, as after any error.
    ok(&mut c, "ROLLBACK TO s");
    assert_eq!(value(&mut c, "SELECT 1"), "1");
    ok(&mut c, "RELEASE s");
    ok(&mut c, "SAVEPOINT t");
    ok(&mut c, "COMMIT");
}

/// TXN_LOCKS_MAX (--txn-locks-max): 53200 "out of shared memory", as
/// PostgreSQL 15 answers `SELECT pg_advisory_xact_lock(g) FROM
/// generate_series(1, 200000) g` (HINT: You might need to increase
/// max_locks_per_transaction). Row locks count too (PostgreSQL has no
/// limit on those: they live in the tuple).
#[test]
fn locks_past_the_per_transaction_limit_get_53200() {
    let srv = small_limits_server();
    let mut c = srv.raw();
    c.startup("postgres");
    ok(&mut c, "CREATE TABLE t (id int PRIMARY KEY)");
    ok(
        &mut c,
        "INSERT INTO t SELECT g FROM generate_series(1, 1500) g",
    );
    ok(&mut c, "BEGIN");
    assert_eq!(
        value(
            &mut c,
            "SELECT count(pg_advisory_xact_lock(g)) FROM generate_series(1, 1000) g"
        ),
        "1000"
    );
    // Taking a held lock again costs nothing.
    ok(&mut c, "SELECT pg_advisory_xact_lock(7)");
    let (message, detail, hint) = fails(&mut c, "SELECT pg_advisory_xact_lock(1001)", "53200");
    assert_eq!(message, "out of shared memory");
    assert!(
        detail.contains("at most 1000 row and advisory locks"),
        "{detail}"
    );
    assert_eq!(hint, "You might need to increase --txn-locks-max.");
    ok(&mut c, "ROLLBACK");

    // Row locks: FOR UPDATE over 1,500 rows.
    ok(&mut c, "BEGIN");
    let (message, _, _) = fails(
        &mut c,
        "SELECT count(*) FROM (SELECT * FROM t FOR UPDATE) s",
        "53200",
    );
    assert_eq!(message, "out of shared memory");
    ok(&mut c, "ROLLBACK");
    // Everything was released: another session locks what this one had.
    let mut other = srv.raw();
    other.startup("postgres");
    assert_eq!(
        value(
            &mut other,
            "SELECT count(*) FROM (SELECT * FROM t WHERE id <= 1000 FOR UPDATE NOWAIT) s"
        ),
        "1000"
    );
    assert_eq!(
        value(&mut other, "SELECT pg_try_advisory_xact_lock(5)"),
        "t"
    );
    // ROLLBACK TO gives back the locks taken after the savepoint.
    ok(&mut c, "BEGIN");
    ok(&mut c, "SAVEPOINT a");
    ok(
        &mut c,
        "SELECT count(pg_advisory_xact_lock(g)) FROM generate_series(1, 1000) g",
    );
    ok(&mut c, "ROLLBACK TO a");
    ok(
        &mut c,
        "SELECT count(pg_advisory_xact_lock(g)) FROM generate_series(2001, 3000) g",
    );
    ok(&mut c, "ROLLBACK");
    // Within the limit it works, and the locks are released at the end.
    ok(&mut c, "BEGIN");
    assert_eq!(
        value(
            &mut c,
            "SELECT count(*) FROM (SELECT * FROM t WHERE id <= 1000 FOR UPDATE) s"
        ),
        "1000"
    );
    ok(&mut c, "COMMIT");
}

/// TXN_UNDO_ENTRIES_MAX (--txn-undo-entries-max): 54000. PostgreSQL 15 has
/// no such limit (its undo is the heap itself).
#[test]
fn writes_past_the_undo_limit_get_54000_and_roll_back() {
    let srv = small_limits_server();
    let mut c = srv.raw();
    c.startup("postgres");
    ok(&mut c, "CREATE TABLE u (n int)");
    let (message, _, hint) = fails(
        &mut c,
        "INSERT INTO u SELECT g FROM generate_series(1, 12000) g",
        "54000",
    );
    assert_eq!(message, "transaction wrote or locked more than 10000 rows");
    assert!(hint.contains("smaller transactions"), "{hint}");
    assert_eq!(value(&mut c, "SELECT count(*) FROM u"), "0");
    // Within the limit, in several statements of one transaction.
    ok(&mut c, "BEGIN");
    ok(
        &mut c,
        "INSERT INTO u SELECT g FROM generate_series(1, 5000) g",
    );
    ok(
        &mut c,
        "INSERT INTO u SELECT g FROM generate_series(1, 5000) g",
    );
    fails(&mut c, "INSERT INTO u VALUES (0)", "54000");
    ok(&mut c, "ROLLBACK");
    ok(
        &mut c,
        "INSERT INTO u SELECT g FROM generate_series(1, 10000) g",
    );
    assert_eq!(value(&mut c, "SELECT count(*) FROM u"), "10000");
}

/// Redo files under `wal/`.
fn redo_files(srv: &Server) -> Vec<String> {
    std::fs::read_dir(srv.data_dir.join("wal"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".redo"))
                .collect()
        })
        .unwrap_or_default()
}

/// TXN_REDO_FILE_BYTES_MAX (--txn-redo-file-max): 53400, worded as
/// PostgreSQL 15's temp_file_limit ("temporary file size exceeds
/// temp_file_limit (1024kB)", also 53400). The statement fails before
/// anything reaches the disk; the transaction rolls back; no redo file is
/// left; a smaller transaction still commits through a redo file.
#[test]
fn a_redo_file_past_its_limit_gets_53400_and_nothing_is_written() {
    let srv = small_limits_server();
    let mut c = srv.raw();
    c.startup("postgres");
    ok(&mut c, "CREATE TABLE r (n int, pad text)");
    // About 400 kB of redo: past --txn-redo-memory-max, through a file.
    ok(
        &mut c,
        "INSERT INTO r SELECT g, repeat('x', 100) FROM generate_series(1, 1500) g",
    );
    // Its redo file stays until a checkpoint covers it.
    let committed = redo_files(&srv);
    assert_eq!(committed.len(), 1, "{committed:?}");
    let (message, detail, hint) = fails(
        &mut c,
        "INSERT INTO r SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g",
        "53400",
    );
    assert_eq!(message, "redo file size exceeds txn_redo_file_max (1024kB)");
    assert!(detail.contains("wrote nothing"), "{detail}");
    assert!(hint.contains("--txn-redo-file-max"), "{hint}");
    assert_eq!(value(&mut c, "SELECT count(*) FROM r"), "1500");
    assert_eq!(redo_files(&srv), committed);
    // The limit is the transaction's: statements add up.
    ok(&mut c, "BEGIN");
    ok(
        &mut c,
        "INSERT INTO r SELECT g, repeat('x', 100) FROM generate_series(1, 3000) g",
    );
    ok(&mut c, "UPDATE r SET n = n + 1 WHERE n <= 500");
    fails(
        &mut c,
        "INSERT INTO r SELECT g, repeat('x', 100) FROM generate_series(1, 2000) g",
        "53400",
    );
    ok(&mut c, "ROLLBACK");
    assert_eq!(value(&mut c, "SELECT count(*) FROM r"), "1500");
    assert_eq!(redo_files(&srv), committed);
    // What committed survives a crash (replayed from its redo file).
    drop(c);
    let mut srv = srv;
    let dir = srv.data_dir.clone();
    assert!(srv.signal_and_wait(libc::SIGKILL).signal().is_some());
    let again = Server::start_on(&dir);
    let mut c = again.raw();
    c.startup("postgres");
    assert_eq!(value(&mut c, "SELECT count(*) FROM r"), "1500");
}

/// A frontend message longer than its type allows (a Sync of 10,001 bytes;
/// SMALL_MESSAGE_BYTES_MAX) ends the connection with FATAL 08P01 "invalid
/// message length"; PostgreSQL 15 logs that message and closes the
/// connection without a word. Other sessions go on.
#[test]
fn a_message_past_its_size_limit_is_fatal_08p01() {
    let srv = Server::start();
    let mut other = srv.raw();
    other.startup("postgres");
    let mut c = srv.raw();
    c.startup("postgres");
    let mut m = vec![b'S'];
    m.extend_from_slice(&(10_001i32 + 4).to_be_bytes());
    c.send(&m);
    let e = c.expect_fatal_and_close("08P01");
    assert_eq!(e.message(), "invalid message length");
    assert_eq!(value(&mut other, "SELECT 1"), "1");
}

/// `nestor.query_memory_max`: what one statement's sorts, hash tables and
/// materialised results may hold. Sorts, hash aggregates and hash joins
/// spill past work_mem (tests/spill.rs); below work_mem (here 1MB against
/// work_mem's 4MB), and for what has no spill path, Nestor fails the
/// statement with 53200 "out of memory", the DETAIL naming the operation.
/// The default (a quarter of --memory-limit) runs what a small limit
/// refuses.
#[test]
fn statements_past_their_working_memory_limit_get_53200_naming_the_operation() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.startup("postgres");
    let probes = [
        (
            "SELECT count(*) FROM (SELECT g FROM generate_series(1, 100000) g ORDER BY g DESC) s",
            "sort",
        ),
        (
            "SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, 100000) g GROUP BY g) s",
            "hash aggregate (GROUP BY)",
        ),
        (
            "SELECT count(*) FROM (SELECT DISTINCT g FROM generate_series(1, 100000) g) s",
            "DISTINCT",
        ),
        (
            "SELECT count(DISTINCT g) FROM generate_series(1, 100000) g",
            "DISTINCT aggregate",
        ),
        (
            "SELECT length(string_agg(repeat('x', 1000), ',')) FROM generate_series(1, 10000)",
            "string_agg",
        ),
        (
            "WITH w AS MATERIALIZED (SELECT g, repeat('x', 100) FROM generate_series(1, 100000) g) \
             SELECT count(*) FROM w",
            "materialized CTE or subquery",
        ),
        (
            "SELECT count(*) FROM generate_series(1, 10) g \
             WHERE g IN (SELECT h FROM generate_series(1, 100000) h)",
            "materialized CTE or subquery",
        ),
        (
            "SELECT count(*) FROM (SELECT g FROM generate_series(1, 10) g \
             EXCEPT SELECT g FROM generate_series(1, 100000) g) s",
            "EXCEPT",
        ),
        (
            "SELECT count(*) FROM generate_series(1, 3) g \
             WHERE g = ANY (SELECT h FROM generate_series(g, 100000) h)",
            "subquery result",
        ),
        (
            "SELECT count(*) FROM generate_series(1, 3) a \
             JOIN generate_series(1, 100000) b ON a = b",
            "hash join",
        ),
    ];
    ok(&mut c, "SET nestor.query_memory_max = '1MB'");
    assert_eq!(value(&mut c, "SHOW nestor.query_memory_max"), "1MB");
    for (sql, what) in probes {
        let (message, detail, hint) = fails(&mut c, sql, "53200");
        assert_eq!(message, "out of memory", "{sql}");
        assert_eq!(
            detail,
            format!("The statement's {what} would hold more than nestor.query_memory_max (1MB)."),
            "{sql}"
        );
        assert!(hint.contains("nestor.query_memory_max"), "{hint}");
        assert_eq!(value(&mut c, "SELECT 1"), "1", "the session goes on");
    }
    // Within the limit, and with the default.
    assert_eq!(
        value(
            &mut c,
            "SELECT count(*) FROM (SELECT g FROM generate_series(1, 1000) g ORDER BY g DESC) s"
        ),
        "1000"
    );
    ok(&mut c, "RESET nestor.query_memory_max");
    assert_eq!(value(&mut c, "SHOW nestor.query_memory_max"), "-1");
    for (sql, _) in probes {
        ok(&mut c, sql);
    }
    // Values as PostgreSQL's memory parameters take them.
    ok(&mut c, "SET nestor.query_memory_max = 2048");
    assert_eq!(value(&mut c, "SHOW nestor.query_memory_max"), "2MB");
    let (message, _, _) = fails(&mut c, "SET nestor.query_memory_max = '10kB'", "22023");
    assert_eq!(
        message,
        "10 kB is outside the valid range for parameter \"nestor.query_memory_max\" (-1 .. 2147483647)"
    );
}

/// The memory budget holds for reads too: a sort allowed by its own limit,
/// or a result waiting for the socket, that would take the process past
/// --memory-limit fails with 53200 naming it, and the server goes on.
#[test]
fn reads_that_would_pass_the_memory_limit_get_53200() {
    let srv = Server::start_with(&["--memory-limit", "128MB"], &[]);
    let mut c = srv.raw();
    c.startup("postgres");
    ok(&mut c, "SET nestor.query_memory_max = '4GB'");
    // In memory: past work_mem the sort would spill to temporary files.
    ok(&mut c, "SET work_mem = '1GB'");
    let (message, detail, _) = fails(
        &mut c,
        "SELECT count(*) FROM (SELECT g, repeat('x', 100) FROM generate_series(1, 3000000) g \
         ORDER BY g DESC) s",
        "53200",
    );
    assert_eq!(message, "out of memory");
    assert!(
        detail.starts_with("The statement's sort holds "),
        "{detail}"
    );
    assert!(
        detail.ends_with("of its 128 MB memory limit (--memory-limit)."),
        "{detail}"
    );
    let (_, detail, _) = fails(
        &mut c,
        "SELECT repeat('x', 1000) FROM generate_series(1, 1000000)",
        "53200",
    );
    assert!(
        detail.starts_with("The statement's result buffer (rows not yet sent) holds "),
        "{detail}"
    );
    // Memory is back once the statement is gone.
    let mut back = false;
    for _ in 0..1000 {
        if error_of(&c.query(
            "SELECT count(*) FROM (SELECT g FROM generate_series(1, 100000) g ORDER BY g) s",
        ))
        .is_none()
        {
            back = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(back, "a sort runs again");
}

/// nestor_memory shows what holds the memory by category, from counters
/// kept on the paths that allocate: they grow with what is stored and
/// shrink when it goes.
#[test]
fn nestor_memory_shows_usage_by_category() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.startup("postgres");
    let cols = [
        "table_versions_bytes",
        "indexes_bytes",
        "undo_logs_bytes",
        "redo_buffers_bytes",
        "sessions_bytes",
        "query_working_memory_bytes",
    ];
    let read = |c: &mut RawConn| -> Vec<i64> {
        cols.iter()
            .map(|col| {
                value(c, &format!("SELECT {col} FROM nestor_memory"))
                    .parse()
                    .unwrap()
            })
            .collect()
    };
    let before = read(&mut c);
    assert!(before[4] > 0, "this session counts: {before:?}");
    ok(&mut c, "CREATE TABLE m (id int PRIMARY KEY, pad text)");
    ok(
        &mut c,
        "INSERT INTO m SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g",
    );
    let loaded = read(&mut c);
    // 20,000 rows of ~110 stored bytes, and their keys.
    assert!(loaded[0] - before[0] > 20_000 * 110, "{loaded:?}");
    assert!(loaded[1] - before[1] > 20_000 * 16, "{loaded:?}");
    // An open transaction's undo log counts from its next statement on.
    ok(&mut c, "BEGIN");
    ok(&mut c, "UPDATE m SET pad = 'y' WHERE id <= 5000");
    let open = read(&mut c);
    assert!(open[2] >= 5000 * 16, "{open:?}");
    ok(&mut c, "ROLLBACK");
    assert_eq!(read(&mut c)[2], before[2], "the undo log is gone");
    // A statement's sort counts while it holds its rows (all of them:
    // below work_mem, and WITH TIES does not bound the sort).
    ok(&mut c, "SET work_mem = '1GB'");
    let held: i64 = value(
        &mut c,
        "SELECT (SELECT query_working_memory_bytes FROM nestor_memory) \
         FROM generate_series(1, 100000) g ORDER BY g DESC FETCH FIRST 1 ROW WITH TIES",
    )
    .parse()
    .unwrap();
    assert!(held > 100_000 * 48, "{held}");
    assert_eq!(read(&mut c)[5], 0, "and not after");
    // Another session counts; dropping the table gives its memory back.
    let mut other = srv.raw();
    other.startup("postgres");
    assert!(read(&mut c)[4] > loaded[4], "a second session");
    drop(other);
    ok(&mut c, "DROP TABLE m");
    let after = read(&mut c);
    assert!(after[0] < loaded[0] - 20_000 * 110, "{after:?}");
    assert!(after[1] < loaded[1] - 20_000 * 16, "{after:?}");
}

/// max_stack_depth (at most STACK_DEPTH_BYTES_MAX): infinite recursion in
/// a PL/pgSQL function ends with PostgreSQL's 54001 and its HINT naming
/// the parameter, and the session goes on. A larger setting than the
/// session threads' stack allows is refused, as PostgreSQL refuses one
/// past the platform's limit.
#[test]
fn recursion_past_max_stack_depth_gets_54001() {
    let srv = Server::start();
    let mut c = srv.raw();
    c.startup("postgres");
    ok(
        &mut c,
        "CREATE FUNCTION r(n int) RETURNS int AS $$ BEGIN RETURN r(n + 1); END $$ LANGUAGE plpgsql",
    );
    ok(
        &mut c,
        "CREATE FUNCTION depth(n int) RETURNS int AS $$ BEGIN IF n = 0 THEN RETURN 0; END IF; \
         RETURN depth(n - 1) + 1; END $$ LANGUAGE plpgsql",
    );
    ok(&mut c, "SET max_stack_depth = '4MB'");
    let (message, _, hint) = fails(&mut c, "SELECT r(1)", "54001");
    assert_eq!(message, "stack depth limit exceeded");
    assert!(
        hint.contains("\"max_stack_depth\" (currently 4096kB)"),
        "{hint}"
    );
    ok(&mut c, "RESET max_stack_depth");
    // The default lets a recursion a hundred deep through.
    assert_eq!(value(&mut c, "SELECT depth(100)"), "100");
    let (message, detail, _) = fails(&mut c, "SET max_stack_depth = '100GB'", "22023");
    assert!(message.contains("max_stack_depth"), "{message}");
    assert!(detail.contains("must not exceed"), "{detail}");
    // The session is fine after all of it.
    assert_eq!(value(&mut c, "SELECT 1"), "1");
}
