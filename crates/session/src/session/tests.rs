//! Session tests: real FrontendMsgs in, exact BackendMsg sequences out.

use std::sync::Arc;

use nestor_common::{SessionId, SqlState};

use super::*;
use crate::protocol::{BackendMsg as B, FrontendMsg as F};

fn engine(max: usize) -> Arc<Engine> {
    Engine::new(EngineConfig::in_memory(max)).unwrap()
}

fn session(e: &Arc<Engine>, pid: u32) -> Session {
    let info = SessionInfo {
        pid: SessionId(pid),
        secret_key: 42,
        user: "postgres".into(),
        database: "postgres".into(),
        application_name: String::new(),
        client_addr: None,
        client_port: None,
        startup_params: vec![("DateStyle".into(), "ISO".into())],
        ssl: None,
    };
    let s = Session::new(e.clone(), info).unwrap();
    assert!(s
        .parameter_status()
        .iter()
        .any(|(k, v)| k == "DateStyle" && v == "ISO, MDY"));
    s
}

fn q(s: &mut Session, sql: &str) -> Vec<BackendMsg> {
    let mut out = Vec::new();
    s.handle(F::Query(sql.into()), &mut out);
    out
}

fn tags(out: &[BackendMsg]) -> Vec<String> {
    out.iter()
        .map(|m| match m {
            B::CommandComplete(t) => t.to_string(),
            B::Error(e) => format!("E:{}", e.code.code()),
            B::Notice(e) => format!("W:{}", e.code.code()),
            B::ReadyForQuery(st) => format!("Z:{}", st.as_byte() as char),
            B::RowDescription(_) => "T".into(),
            B::DataRow(r) => format!(
                "D:{}",
                r.iter()
                    .map(|v| v
                        .as_ref()
                        .map_or("NULL".into(), |b| String::from_utf8_lossy(b).into_owned()))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            B::ParameterStatus(k, v) => format!("S:{k}={v}"),
            B::EmptyQueryResponse => "I".into(),
            B::ParseComplete => "1".into(),
            B::BindComplete => "2".into(),
            B::CloseComplete => "3".into(),
            B::NoData => "n".into(),
            B::PortalSuspended => "s".into(),
            B::ParameterDescription(p) => format!("t:{p:?}"),
            other => format!("{other:?}"),
        })
        .collect()
}

fn run(s: &mut Session, sql: &str) -> Vec<String> {
    tags(&q(s, sql))
}

fn error_of(out: &[BackendMsg]) -> DbError {
    out.iter()
        .find_map(|m| match m {
            B::Error(e) => Some(e.clone()),
            _ => None,
        })
        .expect("an error")
}

#[test]
fn commit_and_rollback_outside_block_warn() {
    let e = engine(10);
    let mut s = session(&e, 1);
    assert_eq!(run(&mut s, "COMMIT"), ["W:25P01", "COMMIT", "Z:I"]);
    assert_eq!(run(&mut s, "ROLLBACK"), ["W:25P01", "ROLLBACK", "Z:I"]);
    assert_eq!(run(&mut s, "BEGIN"), ["BEGIN", "Z:T"]);
    assert_eq!(run(&mut s, "BEGIN"), ["W:25001", "BEGIN", "Z:T"]);
    assert_eq!(run(&mut s, "END"), ["COMMIT", "Z:I"]);
    assert_eq!(run(&mut s, ""), ["I", "Z:I"]);
}

#[test]
fn savepoints_outside_block_are_errors() {
    let e = engine(10);
    let mut s = session(&e, 1);
    let out = q(&mut s, "SAVEPOINT a");
    assert_eq!(
        error_of(&out).message,
        "SAVEPOINT can only be used in transaction blocks"
    );
    assert_eq!(tags(&out), ["E:25P01", "Z:I"]);
    let out = q(&mut s, "ROLLBACK TO a");
    assert_eq!(
        error_of(&out).message,
        "ROLLBACK TO SAVEPOINT can only be used in transaction blocks"
    );
    let out = q(&mut s, "RELEASE a");
    assert_eq!(
        error_of(&out).message,
        "RELEASE SAVEPOINT can only be used in transaction blocks"
    );
}

#[test]
fn failed_block_recovers_with_rollback_to() {
    let e = engine(10);
    let mut s = session(&e, 1);
    assert_eq!(
        run(&mut s, "BEGIN; SAVEPOINT a; SAVEPOINT b; SAVEPOINT a"),
        ["BEGIN", "SAVEPOINT", "SAVEPOINT", "SAVEPOINT", "Z:T"]
    );
    let out = q(&mut s, "ROLLBACK TO nope");
    assert_eq!(error_of(&out).message, "savepoint \"nope\" does not exist");
    assert_eq!(tags(&out), ["E:3B001", "Z:E"]);
    let out = q(&mut s, "SAVEPOINT c");
    assert_eq!(
        error_of(&out).message,
        "current transaction is aborted, commands ignored until end of transaction block"
    );
    assert_eq!(tags(&out), ["E:25P02", "Z:E"]);
    // The innermost "a" (shadowing the outer one) is the target; it stays.
    assert_eq!(run(&mut s, "ROLLBACK TO SAVEPOINT a"), ["ROLLBACK", "Z:T"]);
    assert_eq!(s.block.txn().unwrap().savepoint_stats().depth, 3);
    assert_eq!(run(&mut s, "RELEASE b"), ["RELEASE", "Z:T"]);
    assert_eq!(s.block.txn().unwrap().savepoint_stats().depth, 1);
    assert_eq!(run(&mut s, "ROLLBACK TO b"), ["E:3B001", "Z:E"]);
    assert_eq!(run(&mut s, "COMMIT"), ["ROLLBACK", "Z:I"]);
}

#[test]
fn error_in_block_then_commit_reports_rollback() {
    let e = engine(10);
    let mut s = session(&e, 1);
    assert_eq!(run(&mut s, "BEGIN"), ["BEGIN", "Z:T"]);
    assert_eq!(run(&mut s, "SHOW nope"), ["E:42704", "Z:E"]);
    assert_eq!(run(&mut s, "SHOW DateStyle"), ["E:25P02", "Z:E"]);
    assert_eq!(run(&mut s, "COMMIT"), ["ROLLBACK", "Z:I"]);
}

#[test]
fn multi_statement_string_is_one_implicit_transaction() {
    let e = engine(10);
    let mut s = session(&e, 1);
    // An error stops the string; the SET before it is rolled back.
    let out = run(
        &mut s,
        "SET application_name = 'x'; SHOW nope; SET application_name = 'y'",
    );
    assert_eq!(out, ["SET", "E:42704", "Z:I"]);
    assert_eq!(
        run(&mut s, "SHOW application_name"),
        ["T", "D:", "SHOW", "Z:I"]
    );
    // BEGIN in the middle turns it into an explicit block.
    assert_eq!(
        run(&mut s, "SET statement_timeout = '1s'; BEGIN; SHOW nope"),
        ["SET", "BEGIN", "E:42704", "Z:E"]
    );
    assert_eq!(
        run(&mut s, "ROLLBACK; SHOW statement_timeout"),
        ["ROLLBACK", "T", "D:0", "SHOW", "Z:I"]
    );
}

#[test]
fn set_show_reset_and_parameter_status() {
    let e = engine(10);
    let mut s = session(&e, 1);
    assert_eq!(run(&mut s, "SET statement_timeout = 1500"), ["SET", "Z:I"]);
    assert_eq!(
        run(&mut s, "SHOW statement_timeout"),
        ["T", "D:1500ms", "SHOW", "Z:I"]
    );
    assert_eq!(
        run(&mut s, "SET lock_timeout TO '1min'; SHOW lock_timeout"),
        ["SET", "T", "D:1min", "SHOW", "Z:I"]
    );
    let out = q(&mut s, "SET lock_timeout = 'abc'");
    assert_eq!(
        error_of(&out).message,
        "invalid value for parameter \"lock_timeout\": \"abc\""
    );
    let out = q(&mut s, "SET foo = 1");
    assert_eq!(
        error_of(&out).message,
        "unrecognized configuration parameter \"foo\""
    );
    assert_eq!(
        run(&mut s, "SET application_name = 'app'"),
        ["SET", "S:application_name=app", "Z:I"]
    );
    assert_eq!(
        run(&mut s, "RESET application_name"),
        ["RESET", "S:application_name=", "Z:I"]
    );
    assert_eq!(run(&mut s, "SET TIME ZONE 'UTC'"), ["SET", "Z:I"]);
    assert_eq!(run(&mut s, "SHOW TIME ZONE"), ["T", "D:UTC", "SHOW", "Z:I"]);
    assert_eq!(
        run(
            &mut s,
            "SET search_path = '$user', public; SHOW search_path"
        ),
        ["SET", "T", "D:\"$user\", public", "SHOW", "Z:I"]
    );
    assert_eq!(run(&mut s, "RESET ALL"), ["RESET", "Z:I"]);
    assert_eq!(
        run(&mut s, "SHOW statement_timeout"),
        ["T", "D:0", "SHOW", "Z:I"]
    );
    let out = q(&mut s, "SHOW ALL");
    assert!(out.iter().filter(|m| matches!(m, B::DataRow(_))).count() > 20);
}

#[test]
fn set_local_and_rollback_revert() {
    let e = engine(10);
    let mut s = session(&e, 1);
    assert_eq!(
        run(&mut s, "SET LOCAL statement_timeout = 10"),
        ["W:25P01", "SET", "Z:I"]
    );
    run(
        &mut s,
        "BEGIN; SET LOCAL statement_timeout = '5s'; SET lock_timeout = '2s'",
    );
    assert_eq!(
        run(&mut s, "SHOW statement_timeout"),
        ["T", "D:5s", "SHOW", "Z:T"]
    );
    run(&mut s, "COMMIT");
    assert_eq!(
        run(&mut s, "SHOW statement_timeout; SHOW lock_timeout"),
        ["T", "D:0", "SHOW", "T", "D:2s", "SHOW", "Z:I"]
    );
    run(
        &mut s,
        "BEGIN; SET lock_timeout = '3s'; SAVEPOINT a; SET application_name = 'z'",
    );
    assert_eq!(
        run(&mut s, "ROLLBACK TO a"),
        ["ROLLBACK", "S:application_name=", "Z:T"]
    );
    assert_eq!(
        run(&mut s, "SHOW application_name; SHOW lock_timeout"),
        ["T", "D:", "SHOW", "T", "D:3s", "SHOW", "Z:T"]
    );
    run(&mut s, "ROLLBACK");
    assert_eq!(
        run(&mut s, "SHOW lock_timeout"),
        ["T", "D:2s", "SHOW", "Z:I"]
    );
}

#[test]
fn application_name_reverts_and_is_reported_again() {
    let e = engine(10);
    let mut s = session(&e, 1);
    assert_eq!(
        run(&mut s, "BEGIN; SET application_name = 'a'"),
        ["BEGIN", "SET", "S:application_name=a", "Z:T"]
    );
    assert_eq!(
        run(&mut s, "ROLLBACK"),
        ["ROLLBACK", "S:application_name=", "Z:I"]
    );
}

#[test]
fn isolation_levels() {
    let e = engine(10);
    let mut s = session(&e, 1);
    run(&mut s, "BEGIN ISOLATION LEVEL SERIALIZABLE");
    assert_eq!(
        run(&mut s, "SHOW transaction_isolation"),
        ["T", "D:serializable", "SHOW", "Z:T"]
    );
    run(&mut s, "COMMIT");
    run(&mut s, "BEGIN ISOLATION LEVEL REPEATABLE READ");
    assert_eq!(
        run(&mut s, "SHOW transaction_isolation"),
        ["T", "D:repeatable read", "SHOW", "Z:T"]
    );
    run(&mut s, "COMMIT");
    assert_eq!(
        run(&mut s, "SHOW transaction_isolation"),
        ["T", "D:read committed", "SHOW", "Z:I"]
    );
    run(
        &mut s,
        "SET default_transaction_isolation = 'repeatable read'",
    );
    run(&mut s, "BEGIN");
    assert_eq!(
        run(&mut s, "SHOW transaction_isolation"),
        ["T", "D:repeatable read", "SHOW", "Z:T"]
    );
    // SHOW takes no snapshot; a query does.
    assert_eq!(
        run(&mut s, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"),
        ["SET", "Z:T"]
    );
    run(&mut s, "SELECT 1");
    let out = q(&mut s, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
    assert_eq!(
        error_of(&out).message,
        "SET TRANSACTION ISOLATION LEVEL must be called before any query"
    );
    assert_eq!(tags(&out), ["E:25001", "Z:E"]);
    run(&mut s, "ROLLBACK");
    assert_eq!(
        run(&mut s, "BEGIN READ ONLY; SHOW transaction_read_only"),
        ["BEGIN", "T", "D:on", "SHOW", "Z:T"]
    );
    assert!(s.block.read_only());
}

#[test]
fn sql_prepare_execute_deallocate() {
    let e = engine(10);
    let mut s = session(&e, 1);
    // Needs the query engine's SELECT with a parameter.
    assert_eq!(
        run(&mut s, "PREPARE p (int) AS SELECT $1"),
        ["PREPARE", "Z:I"]
    );
    assert_eq!(run(&mut s, "PREPARE p AS SELECT 1"), ["E:42P05", "Z:I"]);
    assert_eq!(run(&mut s, "EXECUTE p(7)"), ["T", "D:7", "SELECT 1", "Z:I"]);
    let out = q(&mut s, "EXECUTE q");
    assert_eq!(
        error_of(&out).message,
        "prepared statement \"q\" does not exist"
    );
    assert_eq!(run(&mut s, "DEALLOCATE p"), ["DEALLOCATE", "Z:I"]);
    assert_eq!(run(&mut s, "DEALLOCATE ALL"), ["DEALLOCATE ALL", "Z:I"]);
    assert_eq!(run(&mut s, "DEALLOCATE p"), ["E:26000", "Z:I"]);
}

#[test]
fn extended_protocol_error_skips_until_sync() {
    let e = engine(10);
    let mut s = session(&e, 1);
    let mut out = Vec::new();
    let msgs = vec![
        F::Parse {
            name: "s1".into(),
            query: "SHOW nope".into(),
            param_types: vec![],
        },
        F::Bind {
            portal: "".into(),
            statement: "s1".into(),
            param_formats: vec![],
            params: vec![],
            result_formats: vec![],
        },
        F::Execute {
            portal: "".into(),
            max_rows: 0,
        },
        F::Sync,
        F::Parse {
            name: "".into(),
            query: "SHOW DateStyle".into(),
            param_types: vec![],
        },
        F::Describe {
            kind: b'S',
            name: "".into(),
        },
        F::Bind {
            portal: "".into(),
            statement: "".into(),
            param_formats: vec![],
            params: vec![],
            result_formats: vec![],
        },
        F::Execute {
            portal: "".into(),
            max_rows: 0,
        },
        F::Close {
            kind: b'S',
            name: "".into(),
        },
        F::Sync,
    ];
    for m in msgs {
        s.handle(m, &mut out);
    }
    assert_eq!(
        tags(&out),
        [
            "E:42704",
            "Z:I",
            "1",
            "t:[]",
            "T",
            "2",
            "D:ISO, MDY",
            "SHOW",
            "3",
            "Z:I"
        ]
    );
}

#[test]
fn extended_protocol_unknown_names() {
    let e = engine(10);
    let mut s = session(&e, 1);
    let mut out = Vec::new();
    s.handle(
        F::Bind {
            portal: "".into(),
            statement: "zz".into(),
            param_formats: vec![],
            params: vec![],
            result_formats: vec![],
        },
        &mut out,
    );
    s.handle(F::Sync, &mut out);
    s.handle(
        F::Execute {
            portal: "pp".into(),
            max_rows: 0,
        },
        &mut out,
    );
    s.handle(F::Sync, &mut out);
    s.handle(
        F::Parse {
            name: "a".into(),
            query: "BEGIN".into(),
            param_types: vec![],
        },
        &mut out,
    );
    s.handle(
        F::Parse {
            name: "a".into(),
            query: "BEGIN".into(),
            param_types: vec![],
        },
        &mut out,
    );
    s.handle(F::Sync, &mut out);
    assert_eq!(
        tags(&out),
        ["E:26000", "Z:I", "E:34000", "Z:I", "1", "E:42P05", "Z:I"]
    );
    let out2 = q(&mut s, "SELECT 1; SELECT 2");
    assert!(!tags(&out2).is_empty());
}

#[test]
fn extended_begin_holds_block_across_sync() {
    let e = engine(10);
    let mut s = session(&e, 1);
    let mut out = Vec::new();
    for sql in ["BEGIN", "SAVEPOINT x", "COMMIT"] {
        s.handle(
            F::Parse {
                name: "".into(),
                query: sql.into(),
                param_types: vec![],
            },
            &mut out,
        );
        s.handle(
            F::Bind {
                portal: "".into(),
                statement: "".into(),
                param_formats: vec![],
                params: vec![],
                result_formats: vec![],
            },
            &mut out,
        );
        s.handle(
            F::Describe {
                kind: b'P',
                name: "".into(),
            },
            &mut out,
        );
        s.handle(
            F::Execute {
                portal: "".into(),
                max_rows: 0,
            },
            &mut out,
        );
        s.handle(F::Sync, &mut out);
    }
    assert_eq!(
        tags(&out),
        [
            "1",
            "2",
            "n",
            "BEGIN",
            "Z:T",
            "1",
            "2",
            "n",
            "SAVEPOINT",
            "Z:T",
            "1",
            "2",
            "n",
            "COMMIT",
            "Z:I"
        ]
    );
}

#[test]
fn too_many_connections_and_registry() {
    let e = engine(2);
    let s1 = session(&e, 1);
    let _s2 = session(&e, 2);
    let info = SessionInfo {
        pid: SessionId(3),
        secret_key: 1,
        user: "postgres".into(),
        database: "postgres".into(),
        application_name: String::new(),
        client_addr: None,
        client_port: None,
        startup_params: vec![],
        ssl: None,
    };
    let err = Session::new(e.clone(), info).err().unwrap();
    assert_eq!(err.code.code(), "53300");
    assert_eq!(err.message, "sorry, too many clients already");
    assert_eq!(e.sessions.activity().len(), 2);
    assert!(!e.cancel_request(SessionId(1), 7));
    assert!(e.cancel_request(SessionId(1), 42));
    drop(s1);
    assert_eq!(e.sessions.activity().len(), 1);
}

#[test]
fn activity_states() {
    let e = engine(10);
    let mut s = session(&e, 5);
    run(&mut s, "BEGIN");
    let row = e.sessions.activity().pop().unwrap();
    assert_eq!(row.state, "idle in transaction");
    assert_eq!(row.query, "BEGIN");
    assert_eq!(row.wait_event.as_deref(), Some("ClientRead"));
    run(&mut s, "SAVEPOINT a; SHOW nope");
    let row = e.sessions.activity().pop().unwrap();
    assert_eq!(row.state, "idle in transaction (aborted)");
    assert_eq!(row.savepoints_defined, 1);
    run(&mut s, "ROLLBACK");
    assert_eq!(e.sessions.activity().pop().unwrap().state, "idle");
}

#[test]
fn activity_query_is_clipped_to_track_activity_query_size() {
    let e = engine(10);
    let mut s = session(&e, 6);
    // 'é' is two bytes: 1,022 bytes of "SELECT '" + é's puts the cut in the
    // middle of a character, which must move back to its start.
    let long = format!("SELECT '{}'", "é".repeat(600));
    run(&mut s, &long);
    let row = e.sessions.activity().pop().unwrap();
    assert_eq!(row.query.len(), 1022);
    assert!(long.starts_with(&row.query));
    run(&mut s, "SELECT 1");
    assert_eq!(e.sessions.activity().pop().unwrap().query, "SELECT 1");
}

#[test]
fn terminate_and_idle_timeout() {
    let e = engine(10);
    let mut s = session(&e, 9);
    assert_eq!(s.idle_timeout(), None);
    run(
        &mut s,
        "SET idle_in_transaction_session_timeout = '50ms'; BEGIN",
    );
    assert_eq!(s.idle_timeout(), Some(Duration::from_millis(50)));
    let mut out = Vec::new();
    s.on_idle_timeout(&mut out);
    assert_eq!(error_of(&out).code.code(), "25P03");
    assert_eq!(
        error_of(&out).message,
        "terminating connection due to idle-in-transaction timeout"
    );
    let mut s2 = session(&e, 10);
    assert!(e.sessions.terminate(SessionId(10)));
    assert!(s2.is_terminated());
    let out = q(&mut s2, "SHOW DateStyle");
    assert_eq!(error_of(&out).code.code(), "57P01");
    assert_eq!(error_of(&out).severity, Severity::Fatal);
}

#[test]
fn statement_text_limit() {
    let e = engine(10);
    let mut s = session(&e, 1);
    let big = " ".repeat(STATEMENT_BYTES_MAX + 1);
    assert_eq!(run(&mut s, &big), ["E:54000", "Z:I"]);
}

// ----- tests that need the query engine (SELECT, pg_sleep, generate_series)

#[test]
fn portal_suspension_with_row_limit() {
    let e = engine(10);
    let mut s = session(&e, 1);
    let mut out = Vec::new();
    let sql = "SELECT * FROM generate_series(1, 5) AS x";
    s.handle(
        F::Parse {
            name: "".into(),
            query: sql.into(),
            param_types: vec![],
        },
        &mut out,
    );
    s.handle(
        F::Bind {
            portal: "p".into(),
            statement: "".into(),
            param_formats: vec![],
            params: vec![],
            result_formats: vec![],
        },
        &mut out,
    );
    s.handle(
        F::Execute {
            portal: "p".into(),
            max_rows: 2,
        },
        &mut out,
    );
    s.handle(
        F::Execute {
            portal: "p".into(),
            max_rows: 2,
        },
        &mut out,
    );
    s.handle(
        F::Execute {
            portal: "p".into(),
            max_rows: 2,
        },
        &mut out,
    );
    s.handle(F::Sync, &mut out);
    let t = tags(&out);
    assert_eq!(t.iter().filter(|x| x.starts_with("D:")).count(), 5);
    assert_eq!(t.iter().filter(|x| *x == "s").count(), 2);
    assert_eq!(t[t.len() - 2], "SELECT 1");
    assert_eq!(t[t.len() - 1], "Z:I");
}

#[test]
fn cancel_and_statement_timeout_stop_a_running_statement() {
    let e = engine(10);
    let mut s = session(&e, 1);
    let e2 = e.clone();
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        assert!(e2.cancel_request(SessionId(1), 42));
    });
    let out = q(&mut s, "SELECT pg_sleep(30)");
    h.join().unwrap();
    assert_eq!(
        error_of(&out).message,
        "canceling statement due to user request"
    );
    let out = q(
        &mut s,
        "SET statement_timeout = '50ms'; SELECT pg_sleep(30)",
    );
    assert_eq!(
        error_of(&out).message,
        "canceling statement due to statement timeout"
    );
    assert_eq!(error_of(&out).code.code(), "57014");
}

#[test]
fn date_and_interval_styles_and_float_digits_honoured() {
    let e = engine(10);
    let mut s = session(&e, 1);
    // A DateStyle change is reported to the client (ParameterStatus).
    assert_eq!(
        run(&mut s, "SET DateStyle = 'SQL, DMY'"),
        ["SET", "S:DateStyle=SQL, DMY", "Z:I"]
    );
    assert_eq!(
        run(&mut s, "SELECT date '2024-01-02', date '13/04/2024'"),
        ["T", "D:02/01/2024,13/04/2024", "SELECT 1", "Z:I"]
    );
    // A partial value keeps the other half.
    assert_eq!(
        run(&mut s, "SET DateStyle = postgres"),
        ["SET", "S:DateStyle=Postgres, DMY", "Z:I"]
    );
    assert_eq!(
        run(&mut s, "SELECT timestamp '2024-01-02 03:04:05.5'"),
        ["T", "D:Tue 02 Jan 03:04:05.5 2024", "SELECT 1", "Z:I"]
    );
    let out = q(&mut s, "SET DateStyle = 'iso, sql'");
    assert_eq!(error_of(&out).code, SqlState::InvalidParameterValue);
    run(&mut s, "SET IntervalStyle = sql_standard");
    assert_eq!(
        run(&mut s, "SELECT interval '1 year 2 mons'"),
        ["T", "D:1-2", "SELECT 1", "Z:I"]
    );
    assert_eq!(
        run(&mut s, "SELECT 1.0::float8 / 3"),
        ["T", "D:0.3333333333333333", "SELECT 1", "Z:I"]
    );
    run(&mut s, "SET extra_float_digits = -3");
    assert_eq!(
        run(&mut s, "SELECT 1.0::float8 / 3"),
        ["T", "D:0.333333333333", "SELECT 1", "Z:I"]
    );
    // A startup DateStyle applies from the first statement.
    let info = SessionInfo {
        pid: SessionId(2),
        secret_key: 1,
        user: "postgres".into(),
        database: "postgres".into(),
        application_name: String::new(),
        client_addr: None,
        client_port: None,
        startup_params: vec![("DateStyle".into(), "German".into())],
        ssl: None,
    };
    let mut g = Session::new(e.clone(), info).expect("German is a DateStyle");
    assert_eq!(
        run(&mut g, "SELECT date '2024-01-02'"),
        ["T", "D:02.01.2024", "SELECT 1", "Z:I"]
    );
}

#[test]
fn currval_does_not_outlive_its_session() {
    let e = engine(4);
    let mut a = session(&e, 7);
    run(&mut a, "create sequence s");
    assert_eq!(run(&mut a, "select nextval('s')")[1], "D:1");
    assert_eq!(run(&mut a, "select currval('s')")[1], "D:1");
    drop(a);
    // A later session with the same pid starts with no currval.
    let mut b = session(&e, 7);
    let out = run(&mut b, "select currval('s')");
    assert!(out.contains(&"E:55000".to_string()), "{out:?}");
}

#[test]
fn unsupported_statements_are_named_by_their_command() {
    let e = engine(10);
    let mut s = session(&e, 1);
    for (sql, name) in [
        ("CREATE PUBLICATION p FOR ALL TABLES", "CREATE PUBLICATION"),
        (
            "CREATE TYPE r AS RANGE (subtype = int4)",
            "CREATE TYPE ... AS RANGE (user-defined range types)",
        ),
    ] {
        let out = q(&mut s, sql);
        assert_eq!(error_of(&out).code, SqlState::FeatureNotSupported, "{sql}");
        assert_eq!(
            error_of(&out).message,
            format!("{name} is not supported"),
            "{sql}"
        );
    }
}

#[test]
fn views_refuse_changes_that_would_break_them() {
    let e = engine(10);
    let mut s = session(&e, 1);
    for sql in [
        "CREATE TABLE vt (id int, name text, qty int)",
        "INSERT INTO vt VALUES (1, 'a', 2)",
        "CREATE VIEW v AS SELECT id, name FROM vt",
        "CREATE VIEW vv AS SELECT name FROM v",
    ] {
        let out = run(&mut s, sql);
        assert!(!out.iter().any(|m| m.starts_with("E:")), "{sql}: {out:?}");
    }
    // A column the view reads cannot go; one it does not read can.
    let out = q(&mut s, "ALTER TABLE vt DROP COLUMN name");
    assert_eq!(error_of(&out).code, SqlState::DependentObjectsStillExist);
    assert_eq!(
        error_of(&out).message,
        "cannot drop column name of table vt because other objects depend on it"
    );
    let out = run(&mut s, "ALTER TABLE vt DROP COLUMN qty");
    assert!(!out.iter().any(|m| m.starts_with("E:")), "{out:?}");
    // Renames are carried into the view's text.
    q(&mut s, "ALTER TABLE vt RENAME COLUMN name TO title");
    q(&mut s, "ALTER TABLE vt RENAME TO vt2");
    let out = run(&mut s, "SELECT * FROM vv");
    assert!(out.contains(&"D:a".to_string()), "{out:?}");
    // Writing through the (simple, so updatable) view reaches the
    // renamed table.
    let out = run(&mut s, "INSERT INTO v VALUES (2, 'b')");
    assert!(!out.iter().any(|m| m.starts_with("E:")), "{out:?}");
    let out = run(&mut s, "SELECT title FROM vt2 WHERE id = 2");
    assert!(out.contains(&"D:b".to_string()), "{out:?}");
}

/// An aggregate over only an outer query's columns belongs to that query,
/// as in PostgreSQL: the outer query aggregates, and the subquery yields
/// that one value per row of its own (so more than one row is 21000).
/// Aggregates reading their own query's columns, or none, run as before.
#[test]
fn outer_level_aggregates_belong_to_the_outer_query() {
    let e = engine(10);
    let mut s = session(&e, 1);
    run(&mut s, "CREATE TABLE oa (a int)");
    run(&mut s, "INSERT INTO oa VALUES (1), (2), (3)");
    for sql in [
        "SELECT (SELECT max(t0.a) FROM oa t1) FROM oa t0",
        "SELECT (SELECT count(*) FILTER (WHERE t0.a > 1) FROM oa t1) FROM oa t0",
    ] {
        let out = q(&mut s, sql);
        assert_eq!(error_of(&out).code, SqlState::CardinalityViolation, "{sql}");
    }
    assert_eq!(
        run(
            &mut s,
            "SELECT (SELECT max(t0.a) FROM oa t1 LIMIT 1) FROM oa t0"
        ),
        run(&mut s, "VALUES (3)")
    );
    let out = q(
        &mut s,
        "SELECT avg((SELECT avg(a1.a ORDER BY (SELECT avg(a2.a) FROM oa a3)) FROM oa a1)) \
         FROM oa a2",
    );
    assert_eq!(
        error_of(&out).message,
        "aggregate function calls cannot be nested"
    );
    let out = q(&mut s, "SELECT max(min(a)) FROM oa");
    assert_eq!(
        error_of(&out).message,
        "aggregate function calls cannot be nested"
    );
    assert_eq!(
        run(
            &mut s,
            "SELECT (SELECT max(t0.a + t1.a) FROM oa t1), \
             (SELECT count(*) FROM oa t1 WHERE t1.a < t0.a) FROM oa t0 ORDER BY 1"
        ),
        run(&mut s, "VALUES (4, 0), (5, 1), (6, 2)")
    );
}
