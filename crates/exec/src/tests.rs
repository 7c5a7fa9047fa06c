//! Tests of the query engine through its public entry points
//! (`prepare`/`execute`/`copy_insert`) on a real in-memory database and
//! real transactions.

use std::sync::Arc;

use nestor_common::{DbError, SessionId, SqlState};
use nestor_txn::{Isolation, SnapshotSlot, Transaction, WaitCtl};
use nestor_types::Value;

use nestor_settings::Settings;
use nestor_types::datetime::TimeZone;
use nestor_types::EvalCtx;

use crate::{copy_insert, execute, prepare, Database, StatementCtx};

const UTC: EvalCtx = EvalCtx::new(TimeZone::UTC, 0);

struct Db {
    engine: Arc<Database>,
    slot: Arc<SnapshotSlot>,
    settings: Settings,
}

struct Out {
    tag: String,
    rows: Vec<Vec<Value>>,
    notices: Vec<DbError>,
}

fn no_wait_event(_: Option<(&'static str, &'static str)>) {}

impl Db {
    fn new() -> Db {
        let engine = Database::in_memory(10);
        let slot = engine.txn.register_slot();
        Db {
            engine,
            slot,
            settings: Settings::defaults(),
        }
    }

    fn begin(&self, iso: Isolation) -> Transaction {
        Transaction::begin(
            self.engine.txn.clone(),
            self.engine.store.clone(),
            self.slot.clone(),
            SessionId(1),
            iso,
        )
    }

    /// Run one statement in `txn`.
    fn run_in(&self, txn: &mut Transaction, sql: &str) -> Result<Out, DbError> {
        self.run_params(txn, sql, &[])
    }

    fn run_params(
        &self,
        txn: &mut Transaction,
        sql: &str,
        params: &[Value],
    ) -> Result<Out, DbError> {
        let stmts = nestor_parser::parse_sql(sql)?;
        assert_eq!(stmts.len(), 1, "one statement per call");
        let p = prepare(&self.engine.catalog, UTC, sql, &stmts[0], &[])?;
        let snapshot = txn.start_statement().map_err(DbError::from)?;
        let mut notices = Vec::new();
        let mut changes = Vec::new();
        let mut rows = Vec::new();
        let mut ctx = StatementCtx {
            db: &self.engine,
            catalog: &self.engine.catalog,
            session: SessionId(1),
            txn,
            snapshot,
            eval: UTC,
            settings: &self.settings,
            wait: WaitCtl::unbounded(),
            notices: &mut notices,
            txn_start_us: 0,
            stmt_start_us: 0,
            read_only: false,
            in_block: false,
            // Each statement is sent on its own, as a simple query.
            may_end_txn: true,
            restarts: 0,
            setting_changes: &mut changes,
            wait_event: &no_wait_event,
            deferred: &mut Vec::new(),
            notifies: &mut Vec::new(),
            role: crate::privilege::RoleCtx::BOOTSTRAP,
            constraints_deferred: Default::default(),
            trigger_depth: 0,
            cursors: &mut crate::context::NoCursors,
            transition: Vec::new(),
        };
        let tag = execute(&mut ctx, &p, params, &mut rows)?.to_string();
        Ok(Out { tag, rows, notices })
    }

    /// Run in its own committed transaction.
    fn run(&self, sql: &str) -> Result<Out, DbError> {
        let mut t = self.begin(Isolation::ReadCommitted);
        let r = self.run_in(&mut t, sql);
        if r.is_ok() {
            t.commit();
        } else {
            t.rollback();
        }
        r
    }

    fn ok(&self, sql: &str) -> Out {
        self.run(sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"))
    }

    fn err(&self, sql: &str) -> DbError {
        match self.run(sql) {
            Ok(_) => panic!("{sql}: expected an error"),
            Err(e) => e,
        }
    }

    /// Rows as text (NULL as "NULL").
    fn q(&self, sql: &str) -> Vec<Vec<String>> {
        texts(&self.ok(sql).rows)
    }
}

fn texts(rows: &[Vec<Value>]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| {
            r.iter()
                .map(|v| nestor_plan::valops::to_text(v, &UTC).unwrap_or_else(|| "NULL".into()))
                .collect()
        })
        .collect()
}

fn one(db: &Db, sql: &str) -> String {
    let r = db.q(sql);
    assert_eq!(r.len(), 1, "{sql}: {r:?}");
    r[0][0].clone()
}

fn setup_accounts(db: &Db) {
    db.ok("CREATE TABLE acc (id integer PRIMARY KEY, owner text NOT NULL, balance bigint DEFAULT 0, note varchar(5))");
    db.ok("INSERT INTO acc (id, owner, balance) VALUES (1, 'ann', 100), (2, 'bob', 50), (3, 'cid', 0)");
}

#[test]
fn select_without_from_and_expressions() {
    let db = Db::new();
    assert_eq!(
        db.q("SELECT 1 + 2, 'a' || 'b', 7 / 2, 7.0 / 2, NULL IS NULL"),
        vec![vec!["3", "ab", "3", "3.5000000000000000", "t"]]
    );
    assert_eq!(
        one(&db, "SELECT CASE WHEN 1 > 2 THEN 'x' ELSE 'y' END"),
        "y"
    );
    assert_eq!(one(&db, "SELECT coalesce(NULL, 3)"), "3");
    assert_eq!(one(&db, "SELECT 5 BETWEEN 1 AND 10"), "t");
    assert_eq!(one(&db, "SELECT 'abc' LIKE 'a%'"), "t");
    assert_eq!(one(&db, "SELECT 3 IN (1, 2, NULL)"), "NULL");
    assert_eq!(one(&db, "SELECT '42'::int + 1"), "43");
    assert_eq!(one(&db, "SELECT CAST(2.5 AS integer)"), "3");
    assert!(one(&db, "SELECT version()").starts_with("PostgreSQL "));
    let out = db.ok("SELECT 1 AS x");
    assert_eq!(out.tag, "SELECT 1");
}

#[test]
fn errors_have_sqlstates() {
    let db = Db::new();
    let e = db.err("SELECT * FROM nope");
    assert_eq!(
        (e.code, e.message.as_str()),
        (SqlState::UndefinedTable, "relation \"nope\" does not exist")
    );
    assert_eq!(e.position, Some(15));
    db.ok("CREATE TABLE t (a int)");
    let e = db.err("SELECT b FROM t");
    assert_eq!(
        (e.code, e.message.as_str()),
        (SqlState::UndefinedColumn, "column \"b\" does not exist")
    );
    let e = db.err("SELEC 1");
    assert_eq!(
        (e.code, e.message.as_str()),
        (SqlState::SyntaxError, "syntax error at or near \"SELEC\"")
    );
    assert_eq!(db.err("SELECT 1/0").code, SqlState::DivisionByZero);
    assert_eq!(
        db.err("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT n FROM r) SEARCH DEPTH FIRST BY n SET o SELECT * FROM r")
            .code,
        SqlState::FeatureNotSupported
    );
    let e = db.err("SELECT 'x'::int");
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            SqlState::InvalidTextRepresentation,
            "invalid input syntax for type integer: \"x\""
        )
    );
}

#[test]
fn ddl_and_basic_dml() {
    let db = Db::new();
    setup_accounts(&db);
    assert_eq!(
        db.q("SELECT id, owner, balance FROM acc ORDER BY id DESC LIMIT 2"),
        vec![vec!["3", "cid", "0"], vec!["2", "bob", "50"]]
    );
    let out = db.ok("UPDATE acc SET balance = balance + 1 WHERE id >= 2 RETURNING id, balance");
    assert_eq!(out.tag, "UPDATE 2");
    assert_eq!(texts(&out.rows), vec![vec!["2", "51"], vec!["3", "1"]]);
    let out = db.ok("DELETE FROM acc WHERE owner = 'cid' RETURNING *");
    assert_eq!(out.tag, "DELETE 1");
    assert_eq!(one(&db, "SELECT count(*) FROM acc"), "2");
    let e = db.err("INSERT INTO acc (id, owner) VALUES (1, 'dup')");
    assert_eq!(e.code, SqlState::UniqueViolation);
    assert_eq!(e.detail.as_deref(), Some("Key (id)=(1) already exists."));
    let e = db.err("INSERT INTO acc (id) VALUES (9)");
    assert_eq!(e.code, SqlState::NotNullViolation);
    assert_eq!(
        e.message,
        "null value in column \"owner\" of relation \"acc\" violates not-null constraint"
    );
    assert_eq!(
        db.err("INSERT INTO acc (id, owner, note) VALUES (9, 'x', 'toolong')")
            .code,
        SqlState::StringDataRightTruncation
    );
    let out = db.ok("DROP TABLE IF EXISTS missing");
    assert_eq!(
        out.notices[0].message,
        "table \"missing\" does not exist, skipping"
    );
    assert_eq!(
        db.err("CREATE TABLE acc (x int)").code,
        SqlState::DuplicateTable
    );
    db.ok("DROP TABLE acc");
    assert_eq!(db.err("SELECT * FROM acc").code, SqlState::UndefinedTable);
}

#[test]
fn serial_defaults_check_and_sequences() {
    let db = Db::new();
    db.ok("CREATE TABLE s (id bigserial PRIMARY KEY, v int CHECK (v > 0), d text DEFAULT 'dflt')");
    let out = db.ok("INSERT INTO s (v) VALUES (5), (6) RETURNING id, d");
    assert_eq!(texts(&out.rows), vec![vec!["1", "dflt"], vec!["2", "dflt"]]);
    let e = db.err("INSERT INTO s (v) VALUES (-1)");
    assert_eq!(e.code, SqlState::CheckViolation);
    assert_eq!(
        e.message,
        "new row for relation \"s\" violates check constraint \"s_v_check\""
    );
    assert_eq!(one(&db, "SELECT currval('s_id_seq')"), "3");
    assert_eq!(one(&db, "SELECT nextval('s_id_seq')"), "4");
    db.ok("CREATE SEQUENCE q START 10 INCREMENT 5");
    assert_eq!(one(&db, "SELECT nextval('q')"), "10");
    assert_eq!(one(&db, "SELECT nextval('q')"), "15");
    assert_eq!(one(&db, "SELECT setval('q', 100)"), "100");
    assert_eq!(one(&db, "SELECT nextval('q')"), "105");
}

#[test]
fn ddl_rolls_back() {
    let db = Db::new();
    let mut t = db.begin(Isolation::ReadCommitted);
    db.run_in(&mut t, "CREATE TABLE r (a int)").unwrap();
    db.run_in(&mut t, "INSERT INTO r VALUES (1)").unwrap();
    t.savepoint("s").unwrap();
    db.run_in(&mut t, "DROP TABLE r").unwrap();
    assert!(db.run_in(&mut t, "SELECT * FROM r").is_err());
    t.rollback_to("s").unwrap();
    assert_eq!(
        texts(&db.run_in(&mut t, "SELECT a FROM r").unwrap().rows),
        vec![vec!["1"]]
    );
    t.rollback();
    assert_eq!(db.err("SELECT * FROM r").code, SqlState::UndefinedTable);
    // TRUNCATE is transactional too.
    db.ok("CREATE TABLE tr (a int)");
    db.ok("INSERT INTO tr VALUES (1), (2)");
    let mut t = db.begin(Isolation::ReadCommitted);
    db.run_in(&mut t, "TRUNCATE tr").unwrap();
    assert_eq!(
        texts(&db.run_in(&mut t, "SELECT count(*) FROM tr").unwrap().rows),
        vec![vec!["0"]]
    );
    t.rollback();
    assert_eq!(one(&db, "SELECT count(*) FROM tr"), "2");
}

#[test]
fn on_conflict() {
    let db = Db::new();
    db.ok("CREATE TABLE kv (k int PRIMARY KEY, v text, n int DEFAULT 0)");
    db.ok("INSERT INTO kv VALUES (1, 'a', 0)");
    let out = db.ok("INSERT INTO kv VALUES (1, 'b'), (2, 'c') ON CONFLICT DO NOTHING");
    assert_eq!(out.tag, "INSERT 0 1");
    let out = db.ok("INSERT INTO kv (k, v) VALUES (1, 'z') ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = kv.n + 1 RETURNING k, v, n");
    assert_eq!(texts(&out.rows), vec![vec!["1", "z", "1"]]);
    let out = db.ok("INSERT INTO kv (k, v) VALUES (1, 'q') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE kv.n > 5");
    assert_eq!(out.tag, "INSERT 0 0");
    assert_eq!(
        db.q("SELECT k, v FROM kv ORDER BY k"),
        vec![vec!["1", "z"], vec!["2", "c"]]
    );
    assert_eq!(
        db.err("INSERT INTO kv VALUES (3) ON CONFLICT (v) DO NOTHING")
            .code,
        SqlState::InvalidColumnReference
    );
}

#[test]
fn joins_aggregates_subqueries() {
    let db = Db::new();
    setup_accounts(&db);
    db.ok("CREATE TABLE tx (id serial PRIMARY KEY, acc int, amount int)");
    db.ok("INSERT INTO tx (acc, amount) VALUES (1, 10), (1, 20), (2, 5), (9, 1)");
    // string_agg skips NULLs (it once concatenated a delimiter for them).
    assert_eq!(
        db.q("SELECT string_agg(x, ', '), string_agg(DISTINCT x, '') FROM (VALUES ('a,'), (NULL), ('b'), ('b')) v(x)"),
        vec![vec!["a,, b, b", "a,b"]]
    );
    assert_eq!(
        db.q("SELECT a.owner, sum(t.amount) AS s, count(*) FROM acc a JOIN tx t ON t.acc = a.id GROUP BY a.owner ORDER BY s DESC"),
        vec![vec!["ann", "30", "2"], vec!["bob", "5", "1"]]
    );
    assert_eq!(
        db.q("SELECT a.id, t.amount FROM acc a LEFT JOIN tx t ON t.acc = a.id WHERE a.id > 1 ORDER BY 1"),
        vec![vec!["2", "5"], vec!["3", "NULL"]]
    );
    assert_eq!(
        db.q("SELECT owner FROM acc WHERE id IN (SELECT acc FROM tx) ORDER BY owner"),
        vec![vec!["ann"], vec!["bob"]]
    );
    assert_eq!(
        db.q("SELECT owner FROM acc a WHERE NOT EXISTS (SELECT 1 FROM tx WHERE tx.acc = a.id)"),
        vec![vec!["cid"]]
    );
    assert_eq!(one(&db, "SELECT (SELECT max(amount) FROM tx)"), "20");
    assert_eq!(
        db.q("SELECT acc, count(DISTINCT amount) FROM tx GROUP BY acc HAVING count(*) > 1"),
        vec![vec!["1", "2"]]
    );
    assert_eq!(
        one(&db, "SELECT avg(amount) FROM tx WHERE acc = 1"),
        "15.0000000000000000"
    );
    assert_eq!(
        db.q("SELECT DISTINCT acc FROM tx ORDER BY acc"),
        vec![vec!["1"], vec!["2"], vec!["9"]]
    );
    assert_eq!(
        db.q("SELECT 1 UNION SELECT 2 UNION SELECT 1 ORDER BY 1"),
        vec![vec!["1"], vec!["2"]]
    );
    assert_eq!(
        db.q("WITH w AS (SELECT id FROM acc WHERE id < 3) SELECT count(*) FROM w"),
        vec![vec!["2"]]
    );
    assert_eq!(
        db.q("SELECT * FROM generate_series(1, 5, 2) g"),
        vec![vec!["1"], vec!["3"], vec!["5"]]
    );
    assert_eq!(
        db.q("VALUES (1, 'a'), (2, 'b')"),
        vec![vec!["1", "a"], vec!["2", "b"]]
    );
    assert_eq!(
        db.q("SELECT id FROM acc ORDER BY id LIMIT 1 OFFSET 1"),
        vec![vec!["2"]]
    );
    let e = db.err("SELECT owner, count(*) FROM acc");
    assert_eq!(e.code, SqlState::GroupingError);
    assert_eq!(one(&db, "SELECT count(*) FROM acc a, tx t"), "12");
    db.ok("INSERT INTO acc (id, owner) SELECT i + 10, 'gen' FROM generate_series(1, 3) i");
    assert_eq!(
        one(&db, "SELECT count(*) FROM acc WHERE owner = 'gen'"),
        "3"
    );
    let out =
        db.ok("UPDATE acc SET balance = t.amount FROM tx t WHERE t.acc = acc.id AND t.amount = 5");
    assert_eq!(out.tag, "UPDATE 1");
    assert_eq!(
        db.ok("DELETE FROM tx USING acc WHERE tx.acc = acc.id AND acc.owner = 'ann'")
            .tag,
        "DELETE 2"
    );
}

/// The column mask of the first table scan under projections and
/// aggregates of `sql`'s plan (`plan/src/select/narrow.rs`); Err if there
/// is no such scan.
fn scan_columns(db: &Db, sql: &str) -> Result<Option<Vec<bool>>, String> {
    scan_masks(db, sql).map(|(cols, _)| cols)
}

/// [`scan_columns`], and a sequential scan's filter-first columns
/// (`narrow::filter_first`).
type Masks = (Option<Vec<bool>>, Option<Vec<bool>>);

fn scan_masks(db: &Db, sql: &str) -> Result<Masks, String> {
    use nestor_plan::statement::PlannedStmt;
    use nestor_plan::Plan;
    let stmts = nestor_parser::parse_sql(sql).unwrap();
    let p = prepare(&db.engine.catalog, UTC, sql, &stmts[0], &[]).unwrap();
    let planned = p.plan_for_tests();
    let mut plan = match planned.as_ref() {
        PlannedStmt::Query(plan) => plan,
        _ => return Err("not a query".into()),
    };
    loop {
        match plan {
            Plan::SeqScan { cols, late, .. } => {
                return Ok((
                    cols.as_deref().map(<[bool]>::to_vec),
                    late.as_ref().map(|l| l.filter.to_vec()),
                ))
            }
            Plan::IndexScan { cols, .. } => {
                return Ok((cols.as_deref().map(<[bool]>::to_vec), None))
            }
            Plan::Project { input, .. }
            | Plan::Aggregate { input, .. }
            | Plan::Filter { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Limit { input, .. } => plan = input,
            other => return Err(format!("no scan: {other:?}")),
        }
    }
}

#[test]
fn scans_decode_only_what_the_query_reads() {
    let db = Db::new();
    setup_accounts(&db); // acc (id, owner, balance, note)
    let cols = |sql: &str| scan_columns(&db, sql).unwrap();
    let (t, f) = (true, false);
    assert_eq!(
        cols("SELECT balance FROM acc WHERE id = 2"),
        Some(vec![t, f, t, f])
    );
    assert_eq!(cols("SELECT count(*) FROM acc"), Some(vec![f, f, f, f]));
    assert_eq!(
        cols("SELECT owner FROM acc WHERE note IS NULL"),
        Some(vec![f, t, f, t])
    );
    assert_eq!(
        cols("SELECT sum(balance) FILTER (WHERE note > 'a') FROM acc GROUP BY owner"),
        Some(vec![f, t, t, t])
    );
    // The index's key column is always decoded.
    assert_eq!(
        cols("SELECT count(*) FROM acc WHERE id > 1"),
        Some(vec![t, f, f, f])
    );
    // Every column read: nothing to narrow.
    assert_eq!(cols("SELECT * FROM acc"), None);
    // A subquery reads the row where this walk does not look.
    assert_eq!(
        cols("SELECT id, (SELECT count(*) FROM acc b WHERE b.owner = a.owner) FROM acc a"),
        None
    );
    assert_eq!(
        cols("SELECT id FROM acc a WHERE EXISTS (SELECT 1 FROM acc b WHERE b.note = a.note)"),
        None
    );
    // UPDATE and DELETE write whole rows back: never narrowed.
    assert!(scan_columns(&db, "UPDATE acc SET balance = 1 WHERE id = 1").is_err());
    // And the rows are right.
    assert_eq!(
        db.q("SELECT balance FROM acc WHERE id = 1"),
        vec![vec!["100"]]
    );
    assert_eq!(
        db.q("SELECT count(*) FROM acc WHERE id > 1"),
        vec![vec!["2"]]
    );
}

fn explain(db: &Db, sql: &str) -> String {
    db.q(&format!("EXPLAIN {sql}"))
        .into_iter()
        .map(|r| r[0].clone())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn index_plans() {
    let db = Db::new();
    setup_accounts(&db);
    db.ok("CREATE INDEX acc_owner_idx ON acc (owner)");
    assert!(explain(&db, "SELECT * FROM acc WHERE id = 2")
        .starts_with("Index Scan using acc_pkey on acc"));
    assert!(explain(&db, "SELECT * FROM acc WHERE id IN (1, 3)")
        .starts_with("Index Scan using acc_pkey on acc"));
    assert!(explain(&db, "SELECT * FROM acc WHERE id BETWEEN 1 AND 2")
        .contains("Index Cond: ((id >= 1) AND (id <= 2))"));
    assert!(explain(&db, "SELECT * FROM acc WHERE owner = 'bob'")
        .starts_with("Index Scan using acc_owner_idx on acc"));
    let p = explain(&db, "SELECT * FROM acc WHERE balance > 10");
    assert!(
        p.starts_with("Seq Scan on acc") && p.contains("Filter: (balance > 10)"),
        "{p}"
    );
    assert_eq!(
        db.q("SELECT owner FROM acc WHERE id IN (1, 3) ORDER BY id"),
        vec![vec!["ann"], vec!["cid"]]
    );
    assert_eq!(
        db.q("SELECT owner FROM acc WHERE id BETWEEN 2 AND 3 ORDER BY id"),
        vec![vec!["bob"], vec!["cid"]]
    );
    assert_eq!(
        db.q("SELECT owner FROM acc WHERE id > 2"),
        vec![vec!["cid"]]
    );
    assert_eq!(
        db.q("SELECT owner FROM acc WHERE id = NULL"),
        Vec::<Vec<String>>::new()
    );
    let mut t = db.begin(Isolation::ReadCommitted);
    let out = db
        .run_params(
            &mut t,
            "SELECT owner FROM acc WHERE id = $1",
            &[Value::Int4(2)],
        )
        .unwrap();
    assert_eq!(texts(&out.rows), vec![vec!["bob"]]);
    db.ok("CREATE TABLE tx (acc int, amount int)");
    db.ok("INSERT INTO tx VALUES (1, 1), (2, 2)");
    let p = explain(&db, "SELECT * FROM tx JOIN acc ON acc.id = tx.acc");
    assert!(p.contains("Index Scan using acc_pkey on acc"), "{p}");
    assert_eq!(
        one(&db, "SELECT count(*) FROM tx JOIN acc ON acc.id = tx.acc"),
        "2"
    );
}

#[test]
fn system_columns_and_functions() {
    let db = Db::new();
    setup_accounts(&db);
    assert_eq!(one(&db, "SELECT ctid FROM acc WHERE id = 1"), "(0,1)");
    let mut t = db.begin(Isolation::ReadCommitted);
    let x = texts(&db.run_in(&mut t, "SELECT txid_current()").unwrap().rows)[0][0].clone();
    db.run_in(&mut t, "UPDATE acc SET balance = 1 WHERE id = 1")
        .unwrap();
    let xmin = texts(
        &db.run_in(&mut t, "SELECT xmin FROM acc WHERE id = 1")
            .unwrap()
            .rows,
    )[0][0]
        .clone();
    assert_eq!(x, xmin);
    let st = texts(
        &db.run_in(&mut t, "SELECT pg_xact_status(txid_current())")
            .unwrap()
            .rows,
    )[0][0]
        .clone();
    assert_eq!(st, "in progress");
    t.commit();
    assert_eq!(
        one(&db, &format!("SELECT pg_xact_status({x})")),
        "committed"
    );
    let e = db.err("SELECT pg_xact_status(99999)");
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            SqlState::InvalidParameterValue,
            "transaction ID 99999 is in the future"
        )
    );
    let snap = one(&db, "SELECT pg_current_snapshot()");
    assert_eq!(snap.split(':').count(), 3);
    assert_eq!(one(&db, "SELECT current_setting('timezone')"), "UTC");
    assert_eq!(one(&db, "SELECT pg_backend_pid()"), "1");
}

#[test]
fn for_update_and_eval_plan_qual() {
    let db = Db::new();
    setup_accounts(&db);
    // T2's snapshot is taken before T1 commits its update.
    let mut t2 = db.begin(Isolation::ReadCommitted);
    let mut t1 = db.begin(Isolation::ReadCommitted);
    db.run_in(
        &mut t1,
        "UPDATE acc SET balance = balance + 1000 WHERE id = 1",
    )
    .unwrap();
    let h = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        t1.commit();
    });
    // Blocks on T1's row lock, then re-checks the newest version.
    let out = db
        .run_in(
            &mut t2,
            "UPDATE acc SET balance = balance + 1 WHERE balance >= 100 RETURNING id, balance",
        )
        .unwrap();
    h.join().unwrap();
    assert_eq!(texts(&out.rows), vec![vec!["1", "1101"]]);
    t2.commit();
    // WHERE no longer true on the newest version: skipped.
    let mut t1 = db.begin(Isolation::ReadCommitted);
    let mut t2 = db.begin(Isolation::ReadCommitted);
    db.run_in(&mut t1, "UPDATE acc SET owner = 'zed' WHERE id = 2")
        .unwrap();
    let h = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        t1.commit();
    });
    let out = db
        .run_in(&mut t2, "SELECT id FROM acc WHERE owner = 'bob' FOR UPDATE")
        .unwrap();
    h.join().unwrap();
    assert!(out.rows.is_empty());
    t2.commit();
    // NOWAIT and SKIP LOCKED.
    let mut t1 = db.begin(Isolation::ReadCommitted);
    db.run_in(&mut t1, "SELECT * FROM acc WHERE id = 3 FOR UPDATE")
        .unwrap();
    let e = db.err("SELECT * FROM acc WHERE id = 3 FOR UPDATE NOWAIT");
    assert_eq!(e.code, SqlState::LockNotAvailable);
    assert_eq!(
        db.q("SELECT id FROM acc ORDER BY id FOR UPDATE SKIP LOCKED"),
        vec![vec!["1"], vec!["2"]]
    );
    t1.commit();
}

#[test]
fn repeatable_read_serialization_failure() {
    let db = Db::new();
    setup_accounts(&db);
    let mut t2 = db.begin(Isolation::RepeatableRead);
    db.run_in(&mut t2, "SELECT count(*) FROM acc").unwrap();
    db.ok("UPDATE acc SET balance = 7 WHERE id = 1");
    let e = db
        .run_in(&mut t2, "UPDATE acc SET balance = 8 WHERE id = 1")
        .err()
        .unwrap();
    assert_eq!(e.code, SqlState::SerializationFailure);
}

#[test]
fn alter_table_and_vacuum() {
    let db = Db::new();
    db.ok("CREATE TABLE a (x int, y int)");
    db.ok("INSERT INTO a VALUES (1, 1), (1, 2)");
    let e = db.err("ALTER TABLE a ADD PRIMARY KEY (x)");
    assert_eq!(e.code, SqlState::UniqueViolation);
    db.ok("UPDATE a SET x = y");
    db.ok("ALTER TABLE a ADD PRIMARY KEY (x)");
    assert!(explain(&db, "SELECT * FROM a WHERE x = 1").contains("a_pkey"));
    db.ok("ALTER TABLE a ADD COLUMN z text DEFAULT 'zz'");
    assert_eq!(
        db.q("SELECT x, z FROM a ORDER BY x"),
        vec![vec!["1", "zz"], vec!["2", "zz"]]
    );
    db.ok("ALTER TABLE a DROP COLUMN y");
    assert_eq!(
        db.q("SELECT * FROM a ORDER BY x"),
        vec![vec!["1", "zz"], vec!["2", "zz"]]
    );
    db.ok("INSERT INTO a VALUES (3, 'q')");
    assert_eq!(db.ok("VACUUM").tag, "VACUUM");
    assert_eq!(db.ok("VACUUM ANALYZE a").tag, "VACUUM");
    assert_eq!(db.ok("ANALYZE a").tag, "ANALYZE");
    assert_eq!(one(&db, "SELECT count(*) FROM a"), "3");
}

#[test]
fn pgbench_shapes() {
    let db = Db::new();
    db.ok("create table pgbench_accounts(aid int not null, bid int, abalance int, filler char(84)) with (fillfactor=100)");
    db.ok("create table pgbench_branches(bid int not null, bbalance int, filler char(88)) with (fillfactor=100)");
    db.ok("create table pgbench_history(tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))");
    db.ok("insert into pgbench_branches(bid,bbalance) values(1,0)");
    let target =
        nestor_plan::modify::copy_target(&db.engine.catalog, UTC, "pgbench_accounts", &[]).unwrap();
    let mut t = db.begin(Isolation::ReadCommitted);
    let snapshot = t.start_statement().unwrap();
    let mut notices = Vec::new();
    let mut changes = Vec::new();
    let mut ctx = StatementCtx {
        db: &db.engine,
        catalog: &db.engine.catalog,
        session: SessionId(1),
        txn: &mut t,
        snapshot,
        eval: UTC,
        settings: &db.settings,
        wait: WaitCtl::unbounded(),
        notices: &mut notices,
        txn_start_us: 0,
        stmt_start_us: 0,
        read_only: false,
        in_block: false,
        may_end_txn: false,
        restarts: 0,
        setting_changes: &mut changes,
        wait_event: &no_wait_event,
        deferred: &mut Vec::new(),
        notifies: &mut Vec::new(),
        role: crate::privilege::RoleCtx::BOOTSTRAP,
        constraints_deferred: Default::default(),
        trigger_depth: 0,
        cursors: &mut crate::context::NoCursors,
        transition: Vec::new(),
    };
    let rows = (1..=100)
        .map(|i| {
            vec![
                Value::Int4(i),
                Value::Int4(1),
                Value::Int4(0),
                Value::Text(Arc::from("")),
            ]
        })
        .collect();
    assert_eq!(copy_insert(&mut ctx, &target, rows, &mut 0).unwrap(), 100);
    t.commit();
    db.ok("alter table pgbench_accounts add primary key (aid)");
    db.ok("vacuum analyze pgbench_accounts");
    assert_eq!(one(&db, "select count(*) from pgbench_branches"), "1");
    let probe = "select o.n, p.partstrat, pg_catalog.count(i.inhparent) from pg_catalog.pg_class as c join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) where c.relname = 'pgbench_accounts' and o.n is not null group by 1, 2 order by 1 asc limit 1";
    // pgbench's partition probe (a LATERAL subquery, arrays) finds the
    // table in the second schema of the path (pg_catalog, public).
    assert_eq!(one(&db, probe), "2");
    let mut t = db.begin(Isolation::ReadCommitted);
    let upd = "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2";
    db.run_params(&mut t, upd, &[Value::Int4(5), Value::Int4(7)])
        .unwrap();
    let sel = db
        .run_params(
            &mut t,
            "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
            &[Value::Int4(7)],
        )
        .unwrap();
    assert_eq!(texts(&sel.rows), vec![vec!["5"]]);
    db.run_in(&mut t, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 7, 5, CURRENT_TIMESTAMP)").unwrap();
    t.commit();
    assert!(
        explain(&db, "SELECT abalance FROM pgbench_accounts WHERE aid = 7")
            .starts_with("Index Scan using pgbench_accounts_pkey")
    );
}

#[test]
fn prepared_plan_survives_ddl() {
    let db = Db::new();
    db.ok("CREATE TABLE p (a int)");
    db.ok("INSERT INTO p VALUES (1)");
    let sql = "SELECT a FROM p WHERE a = $1";
    let stmts = nestor_parser::parse_sql(sql).unwrap();
    let prepared = prepare(&db.engine.catalog, UTC, sql, &stmts[0], &[]).unwrap();
    assert_eq!(prepared.param_types, vec![23]);
    db.ok("CREATE INDEX p_a ON p (a)");
    let mut t = db.begin(Isolation::ReadCommitted);
    let snapshot = t.start_statement().unwrap();
    let mut notices = Vec::new();
    let mut changes = Vec::new();
    let mut rows = Vec::new();
    let mut ctx = StatementCtx {
        db: &db.engine,
        catalog: &db.engine.catalog,
        session: SessionId(1),
        txn: &mut t,
        snapshot,
        eval: UTC,
        settings: &db.settings,
        wait: WaitCtl::unbounded(),
        notices: &mut notices,
        txn_start_us: 0,
        stmt_start_us: 0,
        read_only: false,
        in_block: false,
        may_end_txn: false,
        restarts: 0,
        setting_changes: &mut changes,
        wait_event: &no_wait_event,
        deferred: &mut Vec::new(),
        notifies: &mut Vec::new(),
        role: crate::privilege::RoleCtx::BOOTSTRAP,
        constraints_deferred: Default::default(),
        trigger_depth: 0,
        cursors: &mut crate::context::NoCursors,
        transition: Vec::new(),
    };
    execute(&mut ctx, &prepared, &[Value::Int4(1)], &mut rows).unwrap();
    assert_eq!(rows.len(), 1);
}

/// A scan whose rows go to an aggregate or a projection reads them by
/// reference from one buffer reused for the whole scan, decoding only the
/// columns the query reads (`executor::run_ref`); under a sort the same
/// scan hands each row over owned. Random predicates over both must agree,
/// errors included, on the cases that matter to a scan: NULLs, integer
/// columns against int8 / numeric / float constants, text, a dropped
/// column, columns added with defaults after rows were written, rows
/// updated and deleted by the reading transaction, and rows written by
/// another transaction that has not committed.
/// A scan that decodes its filter's columns first (`narrow::filter_first`)
/// and goes back to one step when the filter keeps most rows: the same
/// rows either way, on both sides of the switch.
#[test]
fn two_step_scans_return_whole_rows() {
    let db = Db::new();
    db.ok("CREATE TABLE w (a int, b text, c int)");
    db.ok("INSERT INTO w SELECT i, 'b' || i, i * 2 FROM generate_series(1, 3000) i");
    db.ok("ALTER TABLE w ADD COLUMN d text DEFAULT 'dflt'");
    db.ok("INSERT INTO w VALUES (3001, 'b3001', 6002, 'late')");
    let (t, f) = (true, false);
    assert_eq!(
        scan_masks(&db, "SELECT * FROM w WHERE a > 1").unwrap(),
        (None, Some(vec![t, f, f, f]))
    );
    assert_eq!(
        scan_masks(&db, "SELECT b FROM w WHERE a > 1 AND c < 0").unwrap(),
        (Some(vec![t, t, t, f]), Some(vec![t, f, t, f]))
    );
    // Nothing else to decode; a subquery reads the row unseen.
    assert_eq!(
        scan_masks(&db, "SELECT a FROM w WHERE a > 1").unwrap(),
        (Some(vec![t, f, f, f]), None)
    );
    assert_eq!(
        scan_masks(
            &db,
            "SELECT * FROM w WHERE a > (SELECT max(c) FROM w x WHERE x.b = w.b)"
        )
        .unwrap()
        .1,
        None
    );
    for pred in [
        "a % 1000 = 1",
        "a % 10 <> 0",
        "a > 2990",
        "a % 2 = 0 OR a < 5",
    ] {
        let two_step = db.q(&format!("SELECT * FROM w WHERE {pred} ORDER BY a"));
        let one_step = db.q(&format!(
            "SELECT * FROM (SELECT * FROM w OFFSET 0) s WHERE {pred} ORDER BY a"
        ));
        assert!(!two_step.is_empty(), "{pred}");
        assert_eq!(two_step, one_step, "{pred}");
        for r in &two_step {
            let a: i64 = r[0].parse().unwrap();
            assert_eq!(r[1], format!("b{a}"), "{pred}");
            assert_eq!(r[2], (2 * a).to_string(), "{pred}");
            assert_eq!(r[3], if a == 3001 { "late" } else { "dflt" }, "{pred}");
        }
    }
}

#[test]
fn borrowed_scans_agree_with_the_owning_path() {
    let db = Db::new();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let value = |rnd: &mut dyn FnMut(u64) -> u64, kind: u64| -> String {
        if rnd(6) == 0 {
            return "NULL".into();
        }
        match kind {
            0 => format!("{}", rnd(9) as i64 - 4),
            1 => format!(
                "'{}'",
                ["", "a", "ab", "b", "B", "é", "a%"][rnd(7) as usize]
            ),
            _ => format!("{}.{}", rnd(5) as i64 - 2, rnd(3) * 5),
        }
    };
    db.ok("CREATE TABLE r (a int, b bigint, gone int, c numeric, d text)");
    let mut insert = |db: &Db, txn: Option<&mut Transaction>, extra: &[u64]| {
        let mut vals = vec![
            value(&mut rnd, 0),
            value(&mut rnd, 0),
            value(&mut rnd, 0),
            value(&mut rnd, 2),
            value(&mut rnd, 1),
        ];
        if !extra.is_empty() {
            vals.remove(2);
        }
        vals.extend(extra.iter().map(|&k| value(&mut rnd, k)));
        let sql = format!("INSERT INTO r VALUES ({})", vals.join(", "));
        match txn {
            Some(t) => {
                db.run_in(t, &sql).unwrap();
            }
            None => {
                db.ok(&sql);
            }
        }
    };
    for _ in 0..120 {
        insert(&db, None, &[]);
    }
    db.ok("ALTER TABLE r DROP COLUMN gone");
    db.ok("ALTER TABLE r ADD COLUMN e int DEFAULT 7");
    for _ in 0..60 {
        insert(&db, None, &[0]);
    }
    db.ok("ALTER TABLE r ADD COLUMN f text DEFAULT 'x'");
    for _ in 0..60 {
        insert(&db, None, &[0, 1]);
    }
    // Another transaction's uncommitted writes: invisible to the reader.
    let mut other = db.begin(Isolation::ReadCommitted);
    db.run_in(&mut other, "UPDATE r SET a = a + 100 WHERE b > 0")
        .unwrap();
    db.run_in(&mut other, "DELETE FROM r WHERE a < -2").unwrap();
    for _ in 0..20 {
        insert(&db, Some(&mut other), &[0, 1]);
    }
    // The reader's own writes: visible to it.
    let mut t = db.begin(Isolation::ReadCommitted);
    // (Rows the other transaction has not touched: no lock wait.)
    db.run_in(
        &mut t,
        "UPDATE r SET d = d || 'z', e = e + 1 WHERE c > 0 AND b <= 0 AND a >= -2",
    )
    .unwrap();
    db.run_in(&mut t, "DELETE FROM r WHERE b = -3 AND a >= -2")
        .unwrap();
    for _ in 0..20 {
        insert(&db, Some(&mut t), &[0, 1]);
    }
    let cols = [("a", 0), ("b", 0), ("c", 2), ("d", 1), ("e", 0), ("f", 1)];
    let consts = [
        "0",
        "2",
        "-3",
        "2::int8",
        "2.0",
        "1.5",
        "2.5::float8",
        "NULL",
        "'a'",
        "'b'",
    ];
    let ops = ["=", "<>", "<", "<=", ">", ">="];
    for i in 0..400 {
        let (col, kind) = cols[rnd(cols.len() as u64) as usize];
        let pred = match rnd(6) {
            0 if kind == 1 => format!(
                "{col} LIKE '{}'",
                ["a%", "%b", "_", "%", "é%", "a\\%"][rnd(6) as usize]
            ),
            1 if kind == 1 => format!("{col} COLLATE \"C\" < 'b'"),
            2 => format!("{col} IS NULL"),
            3 if kind != 1 => format!("10 / ({col} - {col} + {}) > 0", rnd(2)),
            // Integer arithmetic over leaves (`eval::int_test`), overflow
            // and division by zero included.
            4 if kind == 0 => [
                format!("{col} % 3 = 1"),
                format!("{col} * 3 > 2"),
                format!("2 - {col} <= {col}"),
                format!("{col} / {} >= 0", rnd(2)),
                format!("{col} + 9223372036854775806 > 0"),
            ][rnd(5) as usize]
                .clone(),
            _ => {
                let k = consts[rnd(consts.len() as u64) as usize];
                let k = match (kind, k.starts_with('\'')) {
                    (1, false) => "'ab'",
                    (0 | 2, true) => "1",
                    _ => k,
                };
                format!("{col} {} {k}", ops[rnd(ops.len() as u64) as usize])
            }
        };
        let pred = if i % 3 == 0 {
            format!("{pred} AND a IS NOT NULL")
        } else {
            pred
        };
        let owned = db.run_in(
            &mut t,
            // Over a subquery with OFFSET 0: the scan feeds a Limit, which
            // takes whole decoded rows (the owning path), and the filter
            // reads those.
            &format!(
                "SELECT a, b, c, d, e, f FROM (SELECT * FROM r OFFSET 0) s \
                 WHERE {pred} ORDER BY a, b, c, d, e, f"
            ),
        );
        let projected = db.run_in(
            &mut t,
            &format!("SELECT a, b, c, d, e, f FROM r WHERE {pred}"),
        );
        let counted = db.run_in(
            &mut t,
            &format!("SELECT count(*), sum(a), max(d), count(f) FROM r WHERE {pred}"),
        );
        // The predicate as a value (the general evaluation, not a WHERE
        // clause's test).
        let general = db.run_in(
            &mut t,
            &format!("SELECT count(*) FROM r WHERE ({pred}) IS TRUE"),
        );
        let counted = match (counted, general) {
            (Ok(c), Ok(g)) => {
                assert_eq!(texts(&c.rows)[0][0], texts(&g.rows)[0][0], "{pred}");
                Ok(c)
            }
            (Err(c), Err(g)) => {
                assert_eq!((c.code, &c.message), (g.code, &g.message), "{pred}");
                Err(c)
            }
            (c, g) => panic!("{pred}: counted {:?}, general {:?}", c.is_ok(), g.is_ok()),
        };
        match (owned, projected, counted) {
            (Ok(owned), Ok(projected), Ok(counted)) => {
                let owned = texts(&owned.rows);
                let mut projected = texts(&projected.rows);
                let key = |r: &Vec<String>| {
                    r.iter()
                        .map(|v| {
                            (
                                v == "NULL",
                                v.parse::<f64>().ok().map(|x| x.to_bits()),
                                v.clone(),
                            )
                        })
                        .collect::<Vec<_>>()
                };
                projected.sort_by_key(key);
                let mut sorted_owned = owned.clone();
                sorted_owned.sort_by_key(key);
                assert_eq!(sorted_owned, projected, "{pred}");
                let counted = texts(&counted.rows);
                assert_eq!(counted[0][0], owned.len().to_string(), "{pred}");
                let sum: i64 = owned.iter().filter_map(|r| r[0].parse::<i64>().ok()).sum();
                let any_a = owned.iter().any(|r| r[0] != "NULL");
                assert_eq!(
                    counted[0][1],
                    if any_a {
                        sum.to_string()
                    } else {
                        "NULL".into()
                    },
                    "{pred}"
                );
                let count_f = owned.iter().filter(|r| r[5] != "NULL").count();
                assert_eq!(counted[0][3], count_f.to_string(), "{pred}");
            }
            (Err(a), Err(b), Err(c)) => {
                assert_eq!((a.code, &a.message), (b.code, &b.message), "{pred}");
                assert_eq!((a.code, &a.message), (c.code, &c.message), "{pred}");
            }
            (a, b, c) => panic!(
                "{pred}: owned {:?}, projected {:?}, counted {:?}",
                a.map(|o| o.rows.len()),
                b.map(|o| o.rows.len()),
                c.map(|o| o.rows.len())
            ),
        }
    }
    t.rollback();
    other.rollback();
}
