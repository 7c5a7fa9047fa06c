//! Randomized SQL through the whole statement path (parse, bind, plan,
//! execute) on an in-memory engine: the statements of the regression
//! scripts (tests/regress/sql), mutated — byte ranges deleted, duplicated
//! or swapped, tokens inserted or repeated. Every input must be answered
//! with results or an error and ReadyForQuery, never a panic or a hang,
//! and the session must stay usable. `scripts/fuzz` runs it longer
//! (NESTOR_FUZZ_ITERS, NESTOR_FUZZ_SEED).

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use nestor_common::SessionId;
use nestor_durable::{Engine, EngineConfig};

use super::*;
use crate::protocol::{BackendMsg as B, FrontendMsg as F};

/// The statements of every regression script (comments and psql
/// meta-commands dropped, COPY data not included).
fn corpus() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/regress/sql");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/regress/sql")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).expect("script");
        let mut stmt = String::new();
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with("--") || t.starts_with('\\') || t.is_empty() {
                continue;
            }
            stmt.push_str(line);
            stmt.push('\n');
            if t.ends_with(';') {
                let upper = stmt.to_ascii_uppercase();
                // (COPY data is not in the statement; sleeping only wastes
                // the run's time.)
                if !upper.contains("FROM STDIN") && !upper.contains("PG_SLEEP") {
                    out.push(std::mem::take(&mut stmt));
                }
                stmt.clear();
            }
        }
    }
    assert!(out.len() > 100, "corpus of {} statements", out.len());
    out
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    ",",
    "'",
    "\"",
    "$1",
    "NULL",
    "SELECT",
    "-",
    "::int",
    "::text",
    "ARRAY[",
    "]",
    "\\",
    "/*",
    "*/",
    "--",
    ";",
    "*",
    "1e308",
    "-0",
    "''",
    "E'\\x",
    "$$",
    "WHERE",
    "AND",
    "OR NOT",
    "ORDER BY 1",
    "GROUP BY",
    "LIMIT -1",
    "OFFSET",
    "CASE WHEN",
    "END",
    "\u{0}",
    "\u{10ffff}",
    "é",
    "9223372036854775808",
    "-2147483649",
    "'infinity'",
    "NaN",
];

fn mutate(rng: &mut StdRng, s: &str) -> String {
    let mut b = s.as_bytes().to_vec();
    for _ in 0..rng.gen_range(1..4) {
        let n = b.len();
        let i = rng.gen_range(0..=n);
        let j = rng.gen_range(i..=n.min(i + 16));
        match rng.gen_range(0..5) {
            0 => {
                b.drain(i..j);
            }
            1 => {
                let dup = b[i..j].to_vec();
                b.splice(i..i, dup);
            }
            2 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())].as_bytes();
                b.splice(i..i, t.iter().copied());
            }
            3 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())];
                let rep = t.repeat(rng.gen_range(2..200));
                b.splice(i..i, rep.bytes());
            }
            _ => {
                let k = rng.gen_range(0..=n);
                let l = rng.gen_range(k..=n.min(k + 16));
                if j <= k {
                    let (x, y) = (b[i..j].to_vec(), b[k..l].to_vec());
                    b.splice(k..l, x);
                    b.splice(i..j, y);
                }
            }
        }
    }
    // The wire layer hands the session valid UTF-8 only.
    String::from_utf8_lossy(&b).into_owned()
}

fn run(s: &mut Session, sql: &str) -> Vec<BackendMsg> {
    let mut out = Vec::new();
    s.handle(F::Query(sql.into()), &mut out);
    out
}

#[test]
fn mutated_statements_get_an_answer_and_never_break_the_session() {
    // On a session thread's stack, as in the server.
    std::thread::Builder::new()
        .stack_size(nestor_common::limits::SESSION_STACK_BYTES)
        .spawn(fuzz_sql)
        .expect("thread")
        .join()
        .expect("the fuzz thread panicked");
}

fn fuzz_sql() {
    let iters: u64 = std::env::var("NESTOR_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000);
    let seed: u64 = std::env::var("NESTOR_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(11);
    eprintln!("SQL fuzz: {iters} statements, seed {seed}");
    let corpus = corpus();
    let engine: Arc<Engine> = Engine::new(EngineConfig::in_memory(4)).expect("engine");
    let info = SessionInfo {
        pid: SessionId(1),
        secret_key: 1,
        user: "postgres".into(),
        database: "postgres".into(),
        application_name: String::new(),
        client_addr: None,
        client_port: None,
        startup_params: vec![],
        ssl: None,
    };
    let mut s = Session::new(engine, info).expect("session");
    // A mutation can make a cheap statement expensive (a larger series).
    run(&mut s, "SET statement_timeout = '2s'");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut errors = 0u64;
    for i in 0..iters {
        let base = &corpus[rng.gen_range(0..corpus.len())];
        let sql = mutate(&mut rng, base);
        if std::env::var_os("NESTOR_FUZZ_VERBOSE").is_some() {
            eprintln!("#{i} running {:?}", &sql[..sql.len().min(300)]);
        }
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut s, &sql)))
            .unwrap_or_else(|_| panic!("#{i} (seed {seed}) panicked on {sql:?}"));
        if s.copy_in.is_some() {
            let mut more = Vec::new();
            s.handle(F::CopyFail("fuzz".into()), &mut more);
        }
        assert!(
            matches!(out.last(), Some(B::ReadyForQuery(_))) || s.copy_in.is_none(),
            "#{i} (seed {seed}) {sql:?}: no ReadyForQuery"
        );
        if s.transaction_status() != crate::protocol::TxnStatus::Idle {
            run(&mut s, "ROLLBACK");
        }
        let lower = sql.to_ascii_lowercase();
        if lower.contains("set") || lower.contains("timeout") || lower.contains("discard") {
            // The mutation may have changed or reset the timeout.
            run(&mut s, "SET statement_timeout = '2s'");
        }
        if out.iter().any(|m| matches!(m, B::Error(_))) {
            errors += 1;
        }
        if i % 100 == 0 {
            let out = run(&mut s, "SELECT 1");
            assert!(
                out.iter().any(|m| matches!(m, B::DataRow(_))),
                "#{i} (seed {seed}): the session no longer answers after {sql:?}"
            );
        }
    }
    eprintln!("SQL fuzz: {errors} of {iters} statements failed (an error is a fine answer)");
    assert!(errors < iters, "some mutated statements still run");
}
