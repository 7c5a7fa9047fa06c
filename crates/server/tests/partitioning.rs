//! Declarative partitioning through the wire: rows routed to their leaf
//! partition (INSERT and COPY), PostgreSQL's errors with their SQLSTATEs
//! and DETAILs, an UPDATE that moves a row between partitions, ATTACH and
//! DETACH PARTITION, pruning of point lookups, and partitions that
//! survive a restart and a crash (from the WAL and from a checkpoint).

mod common;

use std::os::unix::process::ExitStatusExt;

use common::*;

/// The error of a reply: (SQLSTATE, message, DETAIL).
fn error_of(reply: &[Msg]) -> Option<(String, String, String)> {
    reply.iter().find(|m| m.tag == b'E').map(|m| {
        let f = m.fields();
        (
            m.sqlstate(),
            m.message(),
            f.get(&b'D').cloned().unwrap_or_default(),
        )
    })
}

/// Run `sql` and return its error (panics when it succeeds).
fn fails(c: &mut RawConn, sql: &str) -> (String, String, String) {
    let reply = c.query(sql);
    error_of(&reply).unwrap_or_else(|| panic!("{sql}: no error"))
}

fn session(srv: &Server) -> RawConn {
    let mut c = srv.raw();
    c.startup("postgres");
    c
}

const SCHEMA: &[&str] = &[
    "create table m (id int not null, region text, v int, primary key (id, region)) \
     partition by list (region)",
    "create table m_eu partition of m for values in ('eu', 'uk')",
    "create table m_us partition of m for values in ('us') partition by range (id)",
    "create table m_us_lo partition of m_us for values from (minvalue) to (100)",
    "create table m_us_hi partition of m_us for values from (100) to (maxvalue)",
    "create table m_other partition of m default",
    "insert into m values (1, 'eu', 10), (2, 'uk', 20), (3, 'us', 30), (300, 'us', 40), \
     (5, 'jp', 50)",
];

fn where_rows_are(srv: &Server) -> String {
    ok(
        srv,
        "select tableoid::regclass, id, region, v from m order by id",
    )
}

const PLACED: &str =
    "m_eu|1|eu|10\nm_eu|2|uk|20\nm_us_lo|3|us|30\nm_other|5|jp|50\nm_us_hi|300|us|40";

#[test]
fn rows_are_routed_to_their_leaf_partition() {
    let srv = Server::start();
    for sql in SCHEMA {
        ok(&srv, sql);
    }
    assert_eq!(where_rows_are(&srv), PLACED);
    assert_eq!(ok(&srv, "select count(*) from only m"), "0");
    // COPY routes too.
    let file = srv.data_dir.with_extension("copy.tsv");
    std::fs::write(&file, "7\tuk\t70\n8\tus\t80\n").unwrap();
    ok(&srv, &format!("\\copy m from '{}'", file.display()));
    std::fs::remove_file(&file).ok();
    assert_eq!(
        ok(
            &srv,
            "select tableoid::regclass from m where id in (7, 8) order by id"
        ),
        "m_eu\nm_us_lo"
    );
    // Unique per partition is unique in the table (the key is in it).
    let mut c = session(&srv);
    let (code, msg, detail) = fails(&mut c, "insert into m values (1, 'eu', 0)");
    assert_eq!(code, "23505", "{msg}");
    assert!(msg.contains("m_eu_pkey"), "{msg}");
    assert_eq!(detail, "Key (id, region)=(1, eu) already exists.");
}

#[test]
fn routing_and_bound_errors_are_postgresqls() {
    let srv = Server::start();
    ok(
        &srv,
        "create table r (a int, b text) partition by range (a)",
    );
    ok(
        &srv,
        "create table r1 partition of r for values from (1) to (10)",
    );
    let mut c = session(&srv);
    let (code, msg, detail) = fails(&mut c, "insert into r values (50, 'x')");
    assert_eq!(code, "23514");
    assert_eq!(msg, "no partition of relation \"r\" found for row");
    assert_eq!(
        detail,
        "Partition key of the failing row contains (a) = (50)."
    );
    let (code, msg, detail) = fails(&mut c, "insert into r1 values (50, 'x')");
    assert_eq!(code, "23514");
    assert_eq!(
        msg,
        "new row for relation \"r1\" violates partition constraint"
    );
    assert_eq!(detail, "Failing row contains (50, x).");
    let (code, msg, _) = fails(
        &mut c,
        "create table r2 partition of r for values from (5) to (20)",
    );
    assert_eq!(
        (code.as_str(), msg.as_str()),
        ("42P17", "partition \"r2\" would overlap partition \"r1\"")
    );
    let (code, msg, detail) = fails(
        &mut c,
        "create table r3 partition of r for values from (30) to (20)",
    );
    assert_eq!(code, "42P17");
    assert_eq!(msg, "empty range bound specified for partition \"r3\"");
    assert_eq!(
        detail,
        "Specified lower bound (30) is greater than or equal to upper bound (20)."
    );
    ok(&srv, "create table rd partition of r default");
    let (code, msg, _) = fails(&mut c, "create table rd2 partition of r default");
    assert_eq!(code, "42P17");
    assert_eq!(
        msg,
        "partition \"rd2\" conflicts with existing default partition \"rd\""
    );
    ok(&srv, "insert into r values (50, 'x')");
    let (code, msg, _) = fails(
        &mut c,
        "create table r4 partition of r for values from (40) to (60)",
    );
    assert_eq!(code, "23514");
    assert_eq!(
        msg,
        "updated partition constraint for default partition \"rd\" would be violated by some row"
    );
    let (code, msg, _) = fails(
        &mut c,
        "create table h (a int, b int, primary key (b)) partition by range (a)",
    );
    assert_eq!(code, "0A000");
    assert_eq!(
        msg,
        "unique constraint on partitioned table must include all partitioning columns"
    );
    ok(&srv, "create table hp (a int) partition by hash (a)");
    ok(
        &srv,
        "create table hp0 partition of hp for values with (modulus 4, remainder 0)",
    );
    let (code, _, detail) = fails(
        &mut c,
        "create table hp1 partition of hp for values with (modulus 6, remainder 1)",
    );
    assert_eq!(code, "42P17");
    assert_eq!(
        detail,
        "The new modulus 6 is not divisible by 4, the modulus of existing partition \"hp0\"."
    );
    let (code, msg, _) = fails(&mut c, "alter table r detach partition r1 concurrently");
    assert_eq!(code, "0A000", "{msg}");
}

#[test]
fn hash_partitions_place_rows_as_postgresql_does() {
    let srv = Server::start();
    ok(&srv, "create table h (a int, t text) partition by hash (a)");
    for r in 0..4 {
        ok(
            &srv,
            &format!("create table h{r} partition of h for values with (modulus 4, remainder {r})"),
        );
    }
    ok(
        &srv,
        "insert into h select g, 'x' || g from generate_series(1, 12) g",
    );
    // PostgreSQL 15 puts 1..12 (int4) in these partitions.
    assert_eq!(
        ok(
            &srv,
            "select tableoid::regclass, string_agg(a::text, ',' order by a) from h \
             group by 1 order by 1"
        ),
        HASH_PLACEMENT
    );
}

/// `select tableoid::regclass, string_agg(...)` on PostgreSQL 15 for the
/// table of `hash_partitions_place_rows_as_postgresql_does`.
const HASH_PLACEMENT: &str = "h0|1,12\nh1|3,5,8,9,11\nh2|2\nh3|4,6,7,10";

#[test]
fn update_moves_rows_and_attach_detach_work() {
    let srv = Server::start();
    for sql in SCHEMA {
        ok(&srv, sql);
    }
    ok(&srv, "update m set region = 'us' where id = 1");
    ok(&srv, "update m set id = 150 where id = 3");
    assert_eq!(
        ok(
            &srv,
            "select tableoid::regclass, id, region from m where id in (1, 150) order by id"
        ),
        "m_us_lo|1|us\nm_us_hi|150|us"
    );
    // Inside a transaction that rolls back, the move is undone.
    ok(
        &srv,
        "begin; update m set region = 'jp' where id = 2; rollback",
    );
    assert_eq!(
        ok(&srv, "select tableoid::regclass from m where id = 2"),
        "m_eu"
    );
    // A partition named directly does not move rows.
    let mut c = session(&srv);
    let (code, msg, _) = fails(&mut c, "update m_eu set region = 'us'");
    assert_eq!(code, "23514");
    assert_eq!(
        msg,
        "new row for relation \"m_eu\" violates partition constraint"
    );

    // DETACH: the table keeps its rows and leaves the tree.
    ok(&srv, "alter table m detach partition m_eu");
    assert_eq!(ok(&srv, "select count(*) from m where region = 'uk'"), "0");
    assert_eq!(ok(&srv, "select count(*) from m_eu"), "1");
    // ATTACH checks the rows against the bound.
    let (code, msg, _) = fails(
        &mut c,
        "alter table m attach partition m_eu for values in ('fr')",
    );
    assert_eq!(code, "23514");
    assert_eq!(
        msg,
        "partition constraint of relation \"m_eu\" is violated by some row"
    );
    ok(
        &srv,
        "alter table m attach partition m_eu for values in ('eu', 'uk')",
    );
    assert_eq!(ok(&srv, "select count(*) from m where region = 'uk'"), "1");
    assert_eq!(
        ok(
            &srv,
            "select pg_get_expr(relpartbound, oid), relispartition from pg_class \
             where relname = 'm_eu'"
        ),
        "FOR VALUES IN ('eu', 'uk')|t"
    );
    assert_eq!(
        ok(&srv, "select pg_get_partkeydef('m'::regclass)"),
        "LIST (region)"
    );
    // TRUNCATE and DROP go down the tree.
    ok(&srv, "truncate m");
    assert_eq!(ok(&srv, "select count(*) from m_us_hi"), "0");
    ok(&srv, "drop table m");
    assert_eq!(
        ok(
            &srv,
            "select count(*) from pg_class where relname like 'm\\_%'"
        ),
        "0"
    );
}

#[test]
fn point_lookups_scan_one_partition() {
    let srv = Server::start();
    ok(
        &srv,
        "create table e (id int primary key, v text) partition by range (id)",
    );
    for k in 0..10 {
        ok(
            &srv,
            &format!(
                "create table e{k} partition of e for values from ({}) to ({})",
                k * 1000,
                (k + 1) * 1000
            ),
        );
    }
    ok(
        &srv,
        "insert into e select g, 'v' || g from generate_series(0, 9999) g",
    );
    let plan = ok(&srv, "explain select v from e where id = 4242");
    assert!(plan.contains("e4"), "{plan}");
    assert!(!plan.contains("e5") && !plan.contains("e0 "), "{plan}");
    assert!(plan.contains("Index Scan"), "{plan}");
    assert_eq!(ok(&srv, "select v from e where id = 4242"), "v4242");
    assert_eq!(ok(&srv, "select count(*) from e where v = 'v4242'"), "1");
}

#[test]
fn partitions_survive_restart_and_crash() {
    let mut srv = Server::start();
    for sql in SCHEMA {
        ok(&srv, sql);
    }
    let dir = srv.data_dir.clone();
    assert!(srv.signal_and_wait(libc::SIGKILL).signal().is_some());
    // From the WAL.
    let mut again = Server::start_on(&dir);
    assert_eq!(where_rows_are(&again), PLACED);
    let mut c = session(&again);
    let (code, _, _) = fails(
        &mut c,
        "create table m_eu2 partition of m for values in ('eu')",
    );
    assert_eq!(code, "42P17", "the bounds came back");
    ok(&again, "insert into m values (9, 'uk', 90)");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    // From the checkpoint image.
    let third = Server::start_on(&dir);
    assert_eq!(
        ok(&third, "select tableoid::regclass from m where id = 9"),
        "m_eu"
    );
    assert_eq!(
        ok(
            &third,
            "select pg_get_expr(relpartbound, oid) from pg_class where relname = 'm_us_lo'"
        ),
        "FOR VALUES FROM (MINVALUE) TO (100)"
    );
}

#[test]
fn privileges_are_the_partitioned_tables() {
    let srv = Server::start();
    ok(&srv, "create table g (a int) partition by list (a)");
    ok(&srv, "create table g1 partition of g for values in (1)");
    ok(&srv, "create role clerk login");
    ok(&srv, "grant select, insert on g to clerk");
    let clerk = |sql: &str| {
        psql_conninfo(
            &format!(
                "host=127.0.0.1 port={} user=clerk dbname=postgres",
                srv.port
            ),
            sql,
        )
    };
    // Through the partitioned table: its privileges alone, as in
    // PostgreSQL.
    clerk("insert into g values (1)").unwrap();
    assert_eq!(clerk("select count(*) from g").unwrap(), "1");
    // The partition itself: its own.
    let e = clerk("select count(*) from g1").unwrap_err();
    assert!(e.contains("permission denied for table g1"), "{e}");
}

#[test]
fn key_expressions_survive_restart_and_crash() {
    let mut srv = Server::start();
    for sql in [
        "create table k (a int, b text) partition by range ((a + 1), lower(b) collate \"C\")",
        "create table k1 partition of k for values from (0, 'a') to (10, 'm')",
        "create table kd partition of k default",
        "insert into k values (3, 'B'), (20, 'x')",
    ] {
        ok(&srv, sql);
    }
    let dir = srv.data_dir.clone();
    assert!(srv.signal_and_wait(libc::SIGKILL).signal().is_some());
    // From the WAL.
    let mut again = Server::start_on(&dir);
    let key = "select pg_get_partkeydef('k'::regclass)";
    assert_eq!(ok(&again, key), "RANGE (((a + 1)), lower(b) COLLATE \"C\")");
    ok(&again, "insert into k values (5, 'C')");
    let mut c = session(&again);
    let (code, _, _) = fails(&mut c, "insert into k1 values (10, 'c')");
    assert_eq!(code, "23514", "the key expression came back");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    // From the checkpoint image.
    let third = Server::start_on(&dir);
    assert_eq!(
        ok(&third, "select tableoid::regclass, a from k order by a"),
        "k1|3\nk1|5\nkd|20"
    );
    assert_eq!(ok(&third, key), "RANGE (((a + 1)), lower(b) COLLATE \"C\")");
}

/// A hash key hashed by a user operator class's support function:
/// the class, its family and the key come back from the WAL and from a
/// checkpoint image, and rows keep landing where PostgreSQL puts them.
#[test]
fn operator_class_keys_survive_restart_and_crash() {
    let mut srv = Server::start();
    for sql in [
        "create function h4(value int4, seed int8) returns int8 \
         language sql strict immutable as $$ select value + seed $$",
        "create operator class c4 for type int4 using hash as operator 1 =, function 2 h4(int4, int8)",
        "create operator family f using btree",
        "begin; create operator class gone for type int4 using hash as operator 1 =; rollback",
        "create table h (a int) partition by hash (a c4)",
        "create table h0 partition of h for values with (modulus 4, remainder 0)",
        "create table h3 partition of h for values with (modulus 4, remainder 3)",
        "insert into h values (12), (11)",
    ] {
        ok(&srv, sql);
    }
    let dir = srv.data_dir.clone();
    assert!(srv.signal_and_wait(libc::SIGKILL).signal().is_some());
    let check = |s: &Server| {
        assert_eq!(
            ok(s, "select pg_get_partkeydef('h'::regclass)"),
            "HASH (a c4)"
        );
        assert_eq!(
            ok(
                s,
                "select opcname, opfname from pg_opclass c join pg_opfamily f \
                 on f.oid = c.opcfamily where opcnamespace = 2200 order by 1"
            ),
            "c4|c4"
        );
        assert_eq!(ok(s, "select opfname from pg_opfamily order by 1"), "c4\nf");
        let mut c = session(s);
        let (code, _, _) = fails(&mut c, "insert into h0 values (11)");
        assert_eq!(code, "23514", "the class hashes the key");
    };
    // From the WAL.
    let mut again = Server::start_on(&dir);
    check(&again);
    ok(&again, "insert into h values (16), (7)");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    // From the checkpoint image.
    let third = Server::start_on(&dir);
    check(&third);
    assert_eq!(
        ok(&third, "select tableoid::regclass, a from h order by a"),
        "h3|7\nh3|11\nh0|12\nh0|16"
    );
}
