//! work_mem and temporary files (crate nestor_exec::spill): a sort past
//! work_mem writes sorted runs to `<data>/pgsql_tmp` and merges them. Each
//! query's rows with `work_mem = '64kB'` (spilling, as pg_stat_database's
//! temp_files shows) must equal its rows with `work_mem = '1GB'` (in
//! memory); the temporary directory must be empty after every statement,
//! also one that fails or is cancelled mid-way; temp_file_limit stops a
//! statement with 53400; files left by a killed server go at the next
//! start. tests/regress/sql/spill.sql compares the same kind of queries
//! with PostgreSQL 15's results.

mod common;

use common::*;

fn temp_dir_entries(srv: &Server) -> Vec<String> {
    std::fs::read_dir(srv.data_dir.join("pgsql_tmp"))
        .expect("pgsql_tmp exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn temp_files(srv: &Server) -> i64 {
    ok(
        srv,
        "SELECT temp_files FROM pg_stat_database WHERE datname = current_database()",
    )
    .parse()
    .expect("a count")
}

const SETUP: &str = "CREATE TABLE t (id int, i int, s text, n numeric, f float8, a int[]); \
     INSERT INTO t SELECT g, CASE WHEN g % 11 = 0 THEN NULL ELSE (g * 7919) % 1000 END, \
       CASE WHEN g % 13 = 0 THEN NULL ELSE md5(g::text) END, \
       CASE WHEN g % 17 = 0 THEN NULL ELSE ((g * 31) % 977)::numeric / 7 END, \
       ((g * 13) % 101)::float8 / 3, ARRAY[g % 5, g % 3] \
     FROM generate_series(1, 30000) g";

#[test]
fn sorts_past_work_mem_spill_and_return_what_they_return_in_memory() {
    let srv = Server::start();
    ok(&srv, SETUP);
    let queries = [
        "SELECT id, i FROM t ORDER BY i, id",
        "SELECT id, i FROM t ORDER BY i DESC, id",
        "SELECT id, i FROM t ORDER BY i NULLS FIRST, id DESC",
        "SELECT id, i FROM t ORDER BY i DESC NULLS LAST, id",
        "SELECT id, s FROM t ORDER BY s, id",
        "SELECT id, s FROM t ORDER BY s DESC NULLS LAST, id",
        "SELECT * FROM t ORDER BY n, f DESC, id",
        "SELECT a, id FROM t ORDER BY a, id DESC",
        "SELECT i, count(*) FROM t GROUP BY i ORDER BY 2 DESC, 1",
        "SELECT id FROM t ORDER BY i, id LIMIT 5 OFFSET 20000",
        "SELECT id, s FROM t ORDER BY (id * 7919) % 30011",
    ];
    for q in queries {
        let in_memory = ok(&srv, &format!("SET work_mem = '1GB'; {q}"));
        let before = temp_files(&srv);
        let spilled = ok(&srv, &format!("SET work_mem = '64kB'; {q}"));
        assert!(temp_files(&srv) > before, "{q} did not spill");
        assert!(in_memory == spilled, "{q}: spilled rows differ");
        assert!(temp_dir_entries(&srv).is_empty(), "{q} left files");
    }
    // Rows equal on the keys: in memory PostgreSQL's quicksort decides
    // their order (nestor_common::sort), a spilled sort its merge of runs,
    // as PostgreSQL's external sort does; either way the same rows, each
    // key's rows together and the keys in order.
    let q = "SELECT i % 3 AS k, id FROM (SELECT id, i FROM t ORDER BY id DESC) s ORDER BY k";
    let rows = |wm: &str| -> Vec<(String, String)> {
        let out = ok(&srv, &format!("SET work_mem = '{wm}'; {q}"));
        out.lines()
            .map(|l| {
                let (k, id) = l.split_once('|').unwrap_or((l, ""));
                (k.to_string(), id.to_string())
            })
            .collect()
    };
    let (mut mem, mut spill) = (rows("1GB"), rows("64kB"));
    let keys = |v: &[(String, String)]| v.iter().map(|r| r.0.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&mem), keys(&spill), "the keys' order");
    mem.sort();
    spill.sort();
    assert_eq!(mem, spill, "the same rows");
}

#[test]
fn hash_aggregates_past_work_mem_spill_to_batches_and_return_the_same_groups() {
    let srv = Server::start();
    ok(&srv, SETUP);
    let queries = [
        "SELECT id % 7919 AS k, count(*), sum(i), min(s), max(n), avg(f) FROM t GROUP BY 1 ORDER BY 1",
        "SELECT s, count(*) FROM t GROUP BY s ORDER BY s NULLS FIRST",
        // 1.0 and 1.00 are one group whichever batch they land in.
        "SELECT n, count(*) FROM (SELECT CASE WHEN id % 2 = 0 THEN (id % 5000)::numeric \
           ELSE round((id % 5000)::numeric, 2) END AS n FROM t) x GROUP BY n ORDER BY n",
        "SELECT i, string_agg(id::text, ',' ORDER BY id), count(DISTINCT id % 3) FROM t GROUP BY i ORDER BY i",
        "SELECT id % 5000, a, count(*) FROM t GROUP BY 1, 2 ORDER BY 1, 2",
        "SELECT k, count(*) FROM (SELECT id % 9000 AS k FROM t) x GROUP BY k HAVING count(*) > 3 ORDER BY k",
        "SELECT id % 4000 AS k, i % 2 AS j, count(*) FROM t GROUP BY ROLLUP (1, 2) ORDER BY 1, 2, 3",
        "SELECT DISTINCT id % 9000 AS k FROM t ORDER BY k",
        "SELECT DISTINCT s, i FROM t ORDER BY s, i",
        "SELECT count(*) FROM (SELECT DISTINCT id % 12345, s FROM t) x",
        "SELECT id % 6000 FROM t UNION SELECT id % 7000 FROM t ORDER BY 1",
    ];
    for q in queries {
        let in_memory = ok(&srv, &format!("SET work_mem = '1GB'; {q}"));
        let before = temp_files(&srv);
        let spilled = ok(&srv, &format!("SET work_mem = '64kB'; {q}"));
        assert!(temp_files(&srv) > before, "{q} did not spill");
        assert!(in_memory == spilled, "{q}: spilled rows differ");
        assert!(temp_dir_entries(&srv).is_empty(), "{q} left files");
    }
    // Groups beyond the table fail mid-batch: no files stay.
    let e = err(
        &srv,
        "SET work_mem = '64kB'; SELECT id % 9000, sum(1 / (id - 29999)) FROM t GROUP BY 1",
    );
    assert!(e.contains("division by zero"), "{e}");
    assert!(temp_dir_entries(&srv).is_empty());
}

#[test]
fn hash_joins_past_work_mem_join_in_batches_with_every_join_kind() {
    let srv = Server::start();
    ok(&srv, SETUP);
    ok(
        &srv,
        "CREATE TABLE u (k bigint, v text); \
         INSERT INTO u SELECT CASE WHEN g % 19 = 0 THEN NULL ELSE g % 12000 END, 'v' || g \
         FROM generate_series(1, 20000) g",
    );
    let queries = [
        "SELECT t.id, u.v FROM t JOIN u ON t.i = u.k ORDER BY 1, 2",
        "SELECT t.id, u.v FROM t LEFT JOIN u ON t.id = u.k ORDER BY 1, 2",
        "SELECT t.id, u.v FROM t RIGHT JOIN u ON t.id = u.k ORDER BY 1, 2",
        "SELECT t.id, u.v FROM t FULL JOIN u ON t.id = u.k ORDER BY 1, 2",
        // A filter besides the key: a failing filter NULL-extends.
        "SELECT t.id, u.v FROM t FULL JOIN u ON t.id = u.k AND u.v > 'v5' ORDER BY 1, 2",
        "SELECT count(*), count(t.id), count(u.k) FROM t FULL JOIN u ON t.id % 5000 = u.k",
        "SELECT t.id, u.v FROM u LEFT JOIN t ON t.id = u.k WHERE t.s IS NULL ORDER BY 1, 2",
    ];
    for q in queries {
        let in_memory = ok(&srv, &format!("SET work_mem = '1GB'; {q}"));
        let before = temp_files(&srv);
        let spilled = ok(&srv, &format!("SET work_mem = '64kB'; {q}"));
        assert!(temp_files(&srv) > before, "{q} did not spill");
        assert!(in_memory == spilled, "{q}: spilled rows differ");
        assert!(temp_dir_entries(&srv).is_empty(), "{q} left files");
    }
    // Every row with one key: the batches cannot split it, so past
    // DEPTH_MAX levels the table just grows.
    assert_eq!(
        ok(
            &srv,
            "SET work_mem = '64kB'; \
             SELECT count(*) FROM (SELECT 1 AS k FROM generate_series(1, 600)) a \
             JOIN (SELECT 1 AS k FROM generate_series(1, 600)) b ON a.k = b.k"
        ),
        "360000"
    );
    assert!(temp_dir_entries(&srv).is_empty());
}

#[test]
fn temporary_files_go_when_a_statement_fails_or_is_cancelled() {
    let srv = Server::start();
    ok(&srv, SETUP);
    // A sort key fails after runs were written.
    let e = err(
        &srv,
        "SET work_mem = '64kB'; SELECT id FROM t ORDER BY 1 / (30000 - id)",
    );
    assert!(e.contains("division by zero"), "{e}");
    assert!(temp_dir_entries(&srv).is_empty());
    // The consumer fails while the runs are merged.
    let e = err(
        &srv,
        "SET work_mem = '64kB'; \
         SELECT 1 / (id - 1000) FROM (SELECT id FROM t ORDER BY id OFFSET 0) s",
    );
    assert!(e.contains("division by zero"), "{e}");
    assert!(temp_dir_entries(&srv).is_empty());
    // statement_timeout cancels a long spilling sort.
    let e = err(
        &srv,
        "SET work_mem = '64kB'; SET statement_timeout = '300ms'; \
         SELECT count(*) FROM (SELECT g FROM generate_series(1, 5000000) g ORDER BY g DESC OFFSET 0) s",
    );
    assert!(e.contains("statement timeout"), "{e}");
    assert!(temp_dir_entries(&srv).is_empty());
}

#[test]
fn temp_file_limit_stops_a_statement_with_53400() {
    let srv = Server::start();
    ok(&srv, SETUP);
    assert_eq!(ok(&srv, "SHOW temp_file_limit"), "-1");
    assert_eq!(ok(&srv, "SHOW work_mem"), "4MB");
    let e = err(
        &srv,
        "SET work_mem = '64kB'; SET temp_file_limit = '100kB'; \
         SELECT * FROM t ORDER BY s",
    );
    assert!(
        e.contains("temporary file size exceeds temp_file_limit (100kB)"),
        "{e}"
    );
    assert!(temp_dir_entries(&srv).is_empty());
    let mut c = srv.raw();
    c.startup("postgres");
    c.query("SET work_mem = '64kB'");
    c.query("SET temp_file_limit = '100kB'");
    let msgs = c.query("SELECT * FROM t ORDER BY s");
    let e = msgs.iter().find(|m| m.tag == b'E').expect("an error");
    assert_eq!(e.sqlstate(), "53400");
    // Within the limit the same sort works.
    assert_eq!(
        ok(
            &srv,
            "SET work_mem = '64kB'; SET temp_file_limit = '100MB'; \
             SELECT count(*) FROM (SELECT * FROM t ORDER BY s OFFSET 0) x"
        ),
        "30000"
    );
}

#[test]
fn files_left_by_a_killed_server_are_removed_at_start() {
    let mut srv = Server::start();
    let tmp = srv.data_dir.join("pgsql_tmp");
    assert!(tmp.is_dir());
    srv.signal_and_wait(libc::SIGKILL);
    std::fs::write(tmp.join("pgsql_tmp1.0"), b"left over").unwrap();
    let again = Server::start_on(&srv.data_dir);
    assert!(temp_dir_entries(&again).is_empty());
    assert_eq!(ok(&again, "SELECT 1"), "1");
}
