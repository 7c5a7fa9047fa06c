//! Schema changes survive a crash: recovery installs the typed catalog
//! records the WAL and the checkpoint carry (no SQL is re-executed), so
//! tables, defaults, CHECK constraints, indexes, sequences, functions,
//! procedures, triggers, views, rules, dropped, renamed (functions too) and truncated objects come back exactly
//! as committed — first from the WAL alone, then from a checkpoint image.
//! Transactions whose redo went to a redo file come back the same way,
//! and leave no file behind when they roll back or once a checkpoint holds
//! them.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use common::{err, ok, Server};

const SCHEMA: &[&str] = &[
    "create table t (id serial primary key, name text not null default 'anon', \
     n int check (n > 0), created date default '2020-01-02')",
    "create unique index t_name on t (name)",
    "insert into t (n) values (1)",
    "insert into t (name, n) values ('b', 2)",
    "alter table t add column extra int default 7",
    "alter table t add constraint t_n_small check (n < 100)",
    "alter table t drop column created",
    "create table gone (a int)",
    "drop table gone",
    "create table tr (a int primary key)",
    "insert into tr values (1), (2)",
    "truncate tr",
    "insert into tr values (3)",
    "create index t_n on t (n)",
    "drop index t_n",
    "create sequence s start 10",
    "select nextval('s'), nextval('s')",
    "create unlogged table u (a int default 5, b text)",
    "insert into u (b) values ('lost')",
    "create function f_add(a int, b int default 1) returns int language sql immutable \
     as 'select a + b'",
    "create function f_pl(x int) returns text language plpgsql as $$ begin return 'v1'; end $$",
    "create or replace function f_pl(x int) returns text language plpgsql \
     as $$ begin return 'v2:' || x; end $$",
    "create procedure p_ins(v int) language plpgsql as $$ begin insert into tr values (v); end $$",
    "create function gone_f() returns int language sql as 'select 1'",
    "drop function gone_f",
    "create function f_ren(x int) returns int language sql as 'select x * 3'",
    "alter function f_ren(int) rename to f_tripled",
    "create function trg_up() returns trigger language plpgsql \
     as $$ begin new.name := upper(new.name); return new; end $$",
    "create trigger t_up before insert on t for each row when (new.n = 77) \
     execute function trg_up()",
    "create trigger t_gone after delete on t execute function trg_up()",
    "drop trigger t_gone on t",
    "create table rn (a serial, b int check (b > 0))",
    "insert into rn (b) values (5)",
    "create view rnv as select a, b from rn where b > 0",
    "comment on table rn is 'renamed later'",
    "comment on column rn.b is 'the b'",
    "create view rnv2 (total) as select sum(b) from rnv",
    "create view gone_v as select 1",
    "drop view gone_v",
    "alter table rn rename to rn2",
    "alter table rn2 rename b to bb",
    "alter table rn2 rename constraint rn_b_check to rn2_bb_check",
];

/// What must hold after every restart (read-only checks).
fn check_schema(server: &Server) {
    assert_eq!(
        ok(server, "select id, name, n, extra from t order by id"),
        "1|anon|1|7\n2|b|2|7"
    );
    assert!(err(server, "select * from gone").contains("relation \"gone\" does not exist"));
    assert!(err(server, "select created from t").contains("column \"created\" does not exist"));
    assert_eq!(ok(server, "select a from tr"), "3");
    assert_eq!(ok(server, "select a, bb from rn2"), "1|5");
    assert_eq!(
        ok(server, "select a, b from rnv"),
        "1|5",
        "the view followed the renames"
    );
    assert_eq!(ok(server, "select total from rnv2"), "5");
    assert_eq!(
        ok(
            server,
            "select obj_description('rn2'::regclass, 'pg_class'), col_description('rn2'::regclass, 2)"
        ),
        "renamed later|the b"
    );
    assert!(err(server, "select * from gone_v").contains("does not exist"));
    assert!(err(server, "select * from rn").contains("relation \"rn\" does not exist"));
    assert_eq!(
        ok(server, "select pg_get_serial_sequence('rn2', 'a')"),
        "public.rn_a_seq"
    );
    assert_eq!(
        ok(server, "select f_add(2), f_add(2, 5), f_pl(7)"),
        "3|7|v2:7"
    );
    let e = err(server, "select gone_f()");
    assert!(e.contains("function gone_f() does not exist"), "{e}");
    assert_eq!(
        ok(
            server,
            "select proname, prokind from pg_proc where pronamespace <> 11 order by proname"
        ),
        "f_add|f\nf_pl|f\nf_tripled|f\np_ins|p\ntrg_up|f"
    );
    assert_eq!(
        ok(server, "select f_tripled(2)"),
        "6",
        "the renamed function"
    );
}

/// Writes that exercise the recovered definitions (run in a transaction
/// that is rolled back, so the checks can repeat).
fn check_behaviour(server: &Server) {
    let e = err(server, "insert into t (name, n) values ('d', 0)");
    assert!(e.contains("violates check constraint \"t_n_check\""), "{e}");
    let e = err(server, "insert into t (name, n) values ('e', 100)");
    assert!(e.contains("violates check constraint \"t_n_small\""), "{e}");
    let e = err(server, "insert into rn2 (bb) values (0)");
    assert!(
        e.contains("violates check constraint \"rn2_bb_check\""),
        "{e}"
    );
    let e = err(server, "insert into t (name, n) values ('b', 5)");
    assert!(
        e.contains("duplicate key value violates unique constraint \"t_name\""),
        "{e}"
    );
    let e = err(server, "insert into tr values (3)");
    assert!(e.contains("\"tr_pkey\""), "{e}");
    let e = err(server, "call p_ins(3)");
    assert!(e.contains("\"tr_pkey\""), "{e}");
    assert!(
        e.contains("PL/pgSQL function p_ins(integer) line 1 at SQL statement"),
        "{e}"
    );
    assert_eq!(
        ok(
            server,
            "begin; insert into u (b) values ('x') returning a; rollback"
        ),
        "5"
    );
}

#[test]
fn schema_changes_survive_crashes_from_wal_and_from_checkpoint() {
    let mut server = Server::start();
    for sql in SCHEMA {
        ok(&server, sql);
    }
    check_schema(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // 1. From the WAL alone (no checkpoint was written).
    let mut again = Server::start_on(&dir);
    check_schema(&again);
    assert_eq!(
        ok(&again, "select count(*) from u"),
        "0",
        "UNLOGGED rows are gone"
    );
    check_behaviour(&again);
    assert_eq!(
        ok(
            &again,
            "insert into t (name, n) values ('c', 3) returning id, extra"
        ),
        "6|7",
        "serial continues after the three values the failed inserts took; \
         the ADD COLUMN default applies"
    );
    assert_eq!(ok(&again, "select nextval('s')"), "12");
    ok(&again, "create index t_n on t (n)");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());

    // 2. From the checkpoint image (plus an empty WAL tail).
    let third = Server::start_on(&dir);
    check_behaviour(&third);
    assert_eq!(ok(&third, "select count(*) from t"), "3");
    assert_eq!(ok(&third, "select nextval('s')"), "13");
    assert_eq!(
        ok(
            &third,
            "insert into t (name, n) values ('f', 4) returning id"
        ),
        "10"
    );
    let e = err(&third, "create index t_n on t (n)");
    assert!(e.contains("relation \"t_n\" already exists"), "{e}");
    assert_eq!(
        ok(
            &third,
            "begin; insert into t (name, n) values ('lower', 77) returning name; rollback"
        ),
        "LOWER",
        "the BEFORE INSERT trigger came back"
    );
}

/// What must hold after each restart once ALTER COLUMN TYPE rewrote `ty`.
fn check_retyped(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select code, pg_typeof(code), amount, pg_typeof(amount), note from ty order by code"
        ),
        "3|integer|-7.00|numeric|\n10|integer|1.50|numeric|hello\n20|integer|2.25|numeric|world"
    );
    let e = err(server, "insert into ty (code) values (10)");
    assert!(
        e.contains("duplicate key value violates unique constraint \"ty_code_key\""),
        "{e}"
    );
    let e = err(server, "insert into ty (code, amount) values (11, -1)");
    assert!(
        e.contains("violates check constraint \"ty_amount_check\""),
        "{e}"
    );
    assert_eq!(ok(server, "select note from ty where code = 20"), "world");
}

#[test]
fn column_type_changes_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table ty (id serial primary key, code text unique, \
         amount text check (amount <> '-1'), note varchar(20))",
        "insert into ty (code, amount, note) values ('10', '1.5', 'hello'), \
         ('20', '2.25', 'world'), ('3', '-7', null)",
        "alter table ty alter code type int using code::int",
        "begin; alter table ty alter note type text using upper(note); rollback",
        "alter table ty drop constraint ty_amount_check, \
         alter amount type numeric(10,2) using amount::numeric, \
         add constraint ty_amount_check check (amount <> -1)",
    ] {
        ok(&server, sql);
    }
    check_retyped(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    let mut again = Server::start_on(&dir);
    check_retyped(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());

    let third = Server::start_on(&dir);
    check_retyped(&third);
}

fn redo_files(data_dir: &std::path::Path) -> usize {
    std::fs::read_dir(data_dir.join("wal"))
        .expect("wal directory")
        .filter(|e| {
            e.as_ref()
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .ends_with(".redo")
        })
        .count()
}

#[test]
fn transactions_past_the_redo_memory_limit_survive_a_crash() {
    const FLAGS: &[&str] = &["--txn-redo-memory-max", "64kB"];
    let mut server = Server::start_with(FLAGS, &[]);
    let dir = server.data_dir.clone();
    ok(
        &server,
        "create table big (id int primary key, pad text, n int)",
    );
    let wal_stats = |s: &Server| -> Vec<u64> {
        ok(
            s,
            "select wal_records, wal_bytes, wal_fpi, wal_sync from pg_stat_wal",
        )
        .split('|')
        .map(|v| v.parse().expect("counter"))
        .collect()
    };
    let before = wal_stats(&server);
    // About 600 kB of redo: past the limit, so it goes to a redo file.
    ok(
        &server,
        "insert into big select g, repeat('x', 20) || g, g % 7 from generate_series(1, 20000) g",
    );
    assert_eq!(redo_files(&dir), 1);
    let file_bytes = std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "redo"))
        .map(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let after = wal_stats(&server);
    assert_eq!(after[0] - before[0], 1, "one record names the redo file");
    assert_eq!(
        after[1] - before[1],
        file_bytes + 36 + 12,
        "wal_bytes counts the file and its record (header + length + crc)"
    );
    assert_eq!(after[2], 0, "no full-page images");
    assert!(
        after[3] >= before[3] + 3,
        "file, directory and segment synced"
    );
    ok(
        &server,
        "begin; update big set n = n + 100 where id <= 10000; delete from big where id > 19990; \
         insert into big values (30000, 'small', 1); commit",
    );
    assert_eq!(redo_files(&dir), 2);
    ok(
        &server,
        "begin; insert into big select g, 'gone', 0 from generate_series(40000, 60000) g; rollback",
    );
    assert_eq!(
        redo_files(&dir),
        2,
        "a rolled-back transaction leaves no redo file"
    );
    let expect = ok(&server, "select count(*), sum(n), max(pad) from big");
    // sum(g % 7 for g in 1..=19990) + 100 * 10000 + 1
    assert_eq!(expect, "19991|1059971|xxxxxxxxxxxxxxxxxxxx9999");
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    let again = Server::start_on_with(&dir, FLAGS);
    assert_eq!(
        ok(&again, "select count(*), sum(n), max(pad) from big"),
        expect
    );
    let e = err(&again, "insert into big values (1, 'dup', 0)");
    assert!(e.contains("\"big_pkey\""), "the index is rebuilt: {e}");
    ok(&again, "checkpoint");
    assert_eq!(redo_files(&dir), 0, "the checkpoint holds them now");
}

/// The data directory holds every row of every table: the server creates
/// it 0700 and its files 0600, and refuses to start on a directory others
/// can read or a group can write, with PostgreSQL's messages.
#[test]
fn the_data_directory_is_the_server_users_alone() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;

    let fresh = Server::start();
    ok(&fresh, "create table m (a int)");
    ok(&fresh, "insert into m values (1)");
    ok(&fresh, "checkpoint");
    // (In a transaction that changed the schema a checkpoint would wait for
    // that transaction: refused instead of hanging.)
    let e = err(&fresh, "create table m2 (a int); checkpoint");
    assert!(
        e.contains("CHECKPOINT in a transaction that changed the schema"),
        "{e}"
    );
    let dir = fresh.data_dir.clone();
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("wal")), 0o700);
    for f in ["checkpoint", "nestor.lock"] {
        assert_eq!(mode(&dir.join(f)), 0o600, "{f}");
    }
    for seg in std::fs::read_dir(dir.join("wal")).unwrap() {
        assert_eq!(mode(&seg.unwrap().path()), 0o600);
    }
    drop(fresh);

    let open_dir = std::env::temp_dir().join(format!("nestor-perm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&open_dir);
    std::fs::create_dir(&open_dir).unwrap();
    for bad in [0o755, 0o770, 0o701] {
        std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(bad)).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
            .arg("--data-dir")
            .arg(&open_dir)
            .args(["--listen", "127.0.0.1", "--port", "0"])
            .output()
            .expect("run nestor");
        assert!(!out.status.success(), "started on a {bad:o} directory");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "data directory \"{}\" has invalid permissions",
                open_dir.display()
            )) && err.contains("DETAIL:  Permissions should be u=rwx (0700) or u=rwx,g=rx (0750)."),
            "{err}"
        );
    }
    // Group read access is allowed, as in PostgreSQL.
    std::fs::set_permissions(&open_dir, std::fs::Permissions::from_mode(0o750)).unwrap();
    let group = Server::start_on(&open_dir);
    assert_eq!(ok(&group, "select 1"), "1");
    drop(group);
    let _ = std::fs::remove_dir_all(&open_dir);
}

/// What must hold after each restart of `enum_types_survive_crashes`.
fn check_enums(server: &Server) {
    assert_eq!(
        ok(server, "select enum_range(null::feeling)"),
        "{awful,sad,so-so,happy,ecstatic}"
    );
    assert_eq!(
        ok(
            server,
            "select enumlabel, enumsortorder from pg_enum \
             where enumtypid = 'feeling'::regtype order by enumsortorder"
        ),
        "awful|0\nsad|1\nso-so|2\nhappy|3\necstatic|4"
    );
    assert_eq!(
        ok(server, "select name, m, hist from people order by m, name"),
        "al|awful|{happy,awful}\nbo|so-so|\ncy|happy|{so-so}"
    );
    assert_eq!(
        ok(
            server,
            "set enable_seqscan = off; select name from people where m >= 'so-so' order by m"
        ),
        "bo\ncy"
    );
    let e = err(server, "select 'meh'::feeling");
    assert!(
        e.contains("invalid input value for enum feeling: \"meh\""),
        "{e}"
    );
    assert!(err(server, "select 'x'::gone_enum").contains("type \"gone_enum\" does not exist"));
    assert!(err(server, "select 'x'::rolled_back").contains("does not exist"));
    assert!(err(server, "select 'sad'::mood").contains("type \"mood\" does not exist"));
}

#[test]
fn enum_types_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create type mood as enum ('sad', 'meh', 'happy')",
        "create table people (name text primary key, m mood, hist mood[])",
        "create index people_m on people (m)",
        "alter type mood add value 'ecstatic'",
        "alter type mood add value 'awful' before 'sad'",
        "insert into people values ('al', 'awful', '{happy,awful}'), ('bo', 'meh', null), \
         ('cy', 'happy', '{meh}')",
        "alter type mood rename value 'meh' to 'so-so'",
        "alter type mood rename to feeling",
        "create type gone_enum as enum ('x')",
        "drop type gone_enum",
        "begin; create type rolled_back as enum ('x'); rollback",
    ] {
        ok(&server, sql);
    }
    check_enums(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_enums(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let mut third = Server::start_on(&dir);
    check_enums(&third);
    // New OIDs do not collide with the replayed labels.
    ok(&third, "alter type feeling add value 'fine' after 'so-so'");
    ok(
        &third,
        "insert into people values ('di', 'fine', '{fine,sad}')",
    );
    assert_eq!(
        ok(
            &third,
            "select name from people where m > 'so-so' order by m"
        ),
        "di\ncy"
    );
    assert!(third.signal_and_wait(libc::SIGKILL).signal().is_some());
    let fourth = Server::start_on(&dir);
    assert_eq!(
        ok(&fourth, "select name, hist from people where m = 'fine'"),
        "di|{fine,sad}"
    );
}

/// What must hold after each restart of `domains_survive_crashes`.
fn check_domains(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select typname, typbasetype::regtype, typnotnull, typtypmod, typdefault \
             from pg_type where typtype = 'd' order by typname"
        ),
        "code|character varying|t|9|'AA'::character varying\nposint|integer|f|-1|\nsmall|posint|f|-1|"
    );
    assert_eq!(
        ok(
            server,
            "select conname, convalidated, pg_get_constraintdef(oid) from pg_constraint \
             where contypid = 'posint'::regtype order by conname"
        ),
        "posint_check|t|CHECK ((VALUE > 0))\nposint_small|f|CHECK ((VALUE < 100)) NOT VALID"
    );
    assert_eq!(
        ok(server, "select id, p, c from dt order by id"),
        "1|5|AB\n2|500|AA"
    );
    let e = err(server, "insert into dt values (3, 0, 'XY')");
    assert!(
        e.contains("value for domain posint violates check constraint \"posint_check\""),
        "{e}"
    );
    let e = err(server, "insert into dt values (3, 100, 'XY')");
    assert!(e.contains("\"posint_small\""), "{e}");
    let e = err(server, "insert into dt values (3, 1, null)");
    assert!(e.contains("domain code does not allow null values"), "{e}");
    let e = err(server, "select 'ab'::code");
    assert!(e.contains("\"code_upper\""), "{e}");
    assert_eq!(
        ok(
            server,
            "select format_type(atttypid, atttypmod) from pg_attribute \
             where attrelid = 'dt'::regclass and attnum > 0 and not attisdropped order by attnum"
        ),
        "integer\nposint\ncode"
    );
    let e = err(server, "select 70::small");
    assert!(
        e.contains("domain small violates check constraint \"small_check\""),
        "{e}"
    );
    let e = err(server, "select 0::small");
    assert!(
        e.contains("domain small violates check constraint \"posint_check\""),
        "{e}"
    );
    assert!(err(server, "select 1::gone_dom").contains("type \"gone_dom\" does not exist"));
    assert!(err(server, "select 1::rolled_back_dom").contains("does not exist"));
    assert!(err(server, "select 'x'::ccode").contains("type \"ccode\" does not exist"));
}

#[test]
fn domains_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create domain posint as int check (value > 0)",
        "create domain ccode as varchar(5) not null default 'AA' \
         constraint code_upper check (value = upper(value))",
        "alter domain ccode rename to code",
        "create table dt (id int primary key, p posint, c code)",
        "insert into dt values (1, 5, 'AB')",
        "insert into dt (id, p) values (2, 500)",
        "alter domain posint add constraint posint_small check (value < 100) not valid",
        "create domain small as posint check (value < 50)",
        "create domain gone_dom as int",
        "create table gone_t (a int, g gone_dom)",
        "drop domain gone_dom cascade",
        "begin; create domain rolled_back_dom as int; rollback",
    ] {
        ok(&server, sql);
    }
    check_domains(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_domains(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let mut third = Server::start_on(&dir);
    check_domains(&third);
    // New OIDs do not collide with the replayed ones.
    ok(
        &third,
        "alter domain posint add constraint posint_even check (value % 2 = 0) not valid",
    );
    ok(&third, "create domain later as text");
    assert!(third.signal_and_wait(libc::SIGKILL).signal().is_some());
    let fourth = Server::start_on(&dir);
    assert_eq!(
        ok(
            &fourth,
            "select count(distinct oid) from pg_constraint where contypid = 'posint'::regtype"
        ),
        "3"
    );
    let e = err(&fourth, "insert into dt values (3, 3, 'XY')");
    assert!(e.contains("\"posint_even\""), "{e}");
    assert_eq!(ok(&fourth, "select count(*) from gone_t"), "0");
}

/// What must hold after each restart once schemas were made, renamed and
/// dropped (their objects logged in `InSchema` records).
fn check_schemas(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select n.nspname, c.relname, c.relkind from pg_class c \
             join pg_namespace n on n.oid = c.relnamespace \
             where n.nspname in ('shop', 'public') order by 1, 2"
        ),
        "public|t|r\npublic|t_pkey|i\nshop|s|S\nshop|t|r\nshop|t_id_seq|S\n\
         shop|t_pkey|i\nshop|t_v_idx|i\nshop|v|v"
    );
    assert_eq!(
        ok(server, "select id, v from shop.v order by id"),
        "1|a\n2|b"
    );
    assert_eq!(ok(server, "select a from public.t"), "7");
    assert_eq!(
        ok(
            server,
            "select nspname from pg_namespace where nspname in ('tmp', 'gone', 'dropped', 'store')"
        ),
        ""
    );
    assert_eq!(
        ok(
            server,
            "select pg_get_userbyid(nspowner) from pg_namespace where nspname = 'shop'"
        ),
        "shopkeeper"
    );
    let e = err(server, "insert into shop.t (v) values ('a')");
    assert!(e.contains("t_v_idx"), "{e}");
}

#[test]
fn schemas_survive_crashes_from_wal_and_from_checkpoint() {
    let mut server = Server::start();
    for sql in [
        "create role shopkeeper",
        "create schema store authorization shopkeeper",
        "create table store.t (id serial primary key, v text)",
        "create unique index t_v_idx on store.t (v)",
        "insert into store.t (v) values ('a'), ('b')",
        "create view store.v as select id, v from store.t",
        "create sequence store.s start 10",
        "select nextval('store.s'), nextval('store.s')",
        "alter schema store rename to shop",
        "create table t (a int primary key)",
        "insert into t values (7)",
        "create schema dropped",
        "create table dropped.t (a int)",
        "create view dropped.v as select a from dropped.t",
        "drop schema dropped cascade",
        "begin; create schema gone; create table gone.t (a int); rollback",
    ] {
        ok(&server, sql);
    }
    check_schemas(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // 1. From the WAL alone.
    let mut again = Server::start_on(&dir);
    check_schemas(&again);
    assert_eq!(ok(&again, "select nextval('shop.s')"), "12");
    assert_eq!(
        ok(&again, "insert into shop.t (v) values ('c') returning id"),
        "4",
        "serial continues after the value the failed insert took"
    );
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());

    // 2. From the checkpoint image.
    let third = Server::start_on(&dir);
    ok(&third, "delete from shop.t where v = 'c'");
    check_schemas(&third);
    assert_eq!(ok(&third, "select nextval('shop.s')"), "13");
}

/// What must hold after each restart of a table with expression and
/// partial indexes: their definitions, their entries (rebuilt from the
/// rows through the re-bound key expressions) and their uniqueness.
fn check_computed_indexes(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select pg_get_indexdef(indexrelid) from pg_index \
             where indrelid = 'ci'::regclass order by 1"
        ),
        "CREATE INDEX ci_big ON public.ci USING btree (a) WHERE (a > 100)\n\
         CREATE UNIQUE INDEX ci_lower_idx ON public.ci USING btree (lower(b))"
    );
    let e = err(server, "insert into ci values (1000, 'NAME5')");
    assert!(e.contains("Key (lower(b))=(name5) already exists"), "{e}");
    assert_eq!(
        ok(
            server,
            "set enable_seqscan = off; \
             explain (costs off) select * from ci where lower(b) = 'name7'"
        ),
        "Index Scan using ci_lower_idx on ci\n  Index Cond: (lower(b) = 'name7'::text)"
    );
    assert_eq!(ok(server, "select a from ci where lower(b) = 'name7'"), "7");
    assert_eq!(
        ok(server, "select count(*) from ci where a > 100 and a < 1000"),
        "100"
    );
    assert_eq!(ok(server, "select count(*) from ci where a > 150"), "50");
}

#[test]
fn expression_and_partial_indexes_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table ci (a int, b text)",
        "insert into ci select i, 'Name' || i from generate_series(1, 200) i",
        "create unique index on ci (lower(b))",
        "create index ci_big on ci (a) where a > 100",
        "update ci set a = a + 1000 where a = 150",
        "delete from ci where a = 1150",
        "insert into ci values (150, 'Name150')",
    ] {
        ok(&server, sql);
    }
    check_computed_indexes(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_computed_indexes(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_computed_indexes(&third);
}

/// What must hold after each restart of
/// `indexes_on_sql_functions_survive_crashes`.
fn check_function_indexes(server: &Server) {
    assert_eq!(
        ok(server, "select pg_get_indexdef('fi_norm'::regclass)"),
        "CREATE UNIQUE INDEX fi_norm ON public.fi USING btree (fi_normalize(b))"
    );
    let e = err(server, "insert into fi values (1000, '  NAME5 ')");
    assert!(e.contains("already exists"), "{e}");
    assert_eq!(
        ok(
            server,
            "set enable_seqscan = off; \
             explain (costs off) select a from fi where fi_normalize(b) = 'name7'"
        ),
        "Index Scan using fi_norm on fi\n  Index Cond: (lower(btrim(b)) = 'name7'::text)"
    );
    assert_eq!(
        ok(server, "select a from fi where fi_normalize(b) = 'name7'"),
        "7"
    );
}

/// An index on a SQL function's call (inlined when bound): a checkpoint
/// image lists tables before functions, so the index binds once its
/// function is installed, before recovery fills it.
#[test]
fn indexes_on_sql_functions_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table fi (a int, b text)",
        "create function fi_normalize(text) returns text language sql immutable \
         as 'select lower(btrim($1))'",
        "insert into fi select i, 'Name' || i from generate_series(1, 50) i",
        "create unique index fi_norm on fi (fi_normalize(b))",
    ] {
        ok(&server, sql);
    }
    check_function_indexes(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());
    let mut again = Server::start_on(&dir);
    check_function_indexes(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_function_indexes(&third);
}

/// What must hold after each restart of
/// `indexes_on_added_columns_survive_crashes`.
fn check_added_column_indexes(server: &Server) {
    // The rows stored before ADD COLUMN are in the indexes with the
    // column's NULL or DEFAULT, and the unique check sees them.
    let e = err(server, "insert into ac (a, c) values (3, 5)");
    assert!(e.contains("Key (a, c)=(3, 5) already exists"), "{e}");
    assert_eq!(
        ok(
            server,
            "set enable_seqscan = off; \
             explain (costs off) select a from ac where c = 5"
        ),
        "Index Scan using ac_c on ac\n  Index Cond: (c = 5)"
    );
    assert_eq!(ok(server, "select count(*) from ac where b is null"), "9");
    assert_eq!(ok(server, "select count(*) from ac where c = 5"), "9");
    assert_eq!(ok(server, "select count(*) from ac where d * 2 = 2"), "9");
    assert_eq!(ok(server, "select a from ac where d * 2 = 4"), "10");
}

#[test]
fn indexes_on_added_columns_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table ac (a int)",
        "insert into ac select g from generate_series(1, 10) g",
        "alter table ac add column b int",
        "alter table ac add column c int default 5",
        "alter table ac add column d int default 1",
        "update ac set b = 0, c = 6, d = 2 where a = 10",
        "create unique index ac_ac on ac (a, c)",
        "create index on ac ((d * 2))",
        "create index ac_b on ac (b)",
        "create index ac_c on ac (c)",
    ] {
        ok(&server, sql);
    }
    check_added_column_indexes(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_added_column_indexes(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_added_column_indexes(&third);
}

/// What must hold after each restart of `row_type_functions_survive_crashes`.
fn check_row_type_functions(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select p.label, bump(p, 1), first_rt() from rt p order by a"
        ),
        "1:x|2|(1,x,7)\n2:y|3|(1,x,7)"
    );
}

/// Functions taking and returning a table's row type are written after
/// the table (WAL) and in the image after it (checkpoint), and keep
/// the type as ALTER TABLE changed it.
#[test]
fn row_type_functions_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table rt (a int, b text)",
        "insert into rt values (1, 'x'), (2, 'y')",
        "create function label(r rt) returns text language sql as $$ select r.a || ':' || r.b $$",
        "alter table rt add column c int default 7",
        "create function bump(rt, int) returns int language plpgsql as $$ begin return $1.a + $2; end $$",
        "create function first_rt() returns rt language sql as $$ select * from rt order by a limit 1 $$",
    ] {
        ok(&server, sql);
    }
    check_row_type_functions(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    let mut again = Server::start_on(&dir);
    check_row_type_functions(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_row_type_functions(&third);
}

/// What must hold after each restart of `hash_indexes_survive_crashes`:
/// the indexes are still hash indexes (pg_am, pg_get_indexdef), still
/// used for equality only, and their entries match the rows.
fn check_hash_indexes(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select c.relname, a.amname, pg_get_indexdef(c.oid) from pg_class c \
             join pg_am a on a.oid = c.relam where c.relname like 'hx%' \
             and c.relkind = 'i' order by 1"
        ),
        "hx_a|hash|CREATE INDEX hx_a ON public.hx USING hash (a)\n\
         hx_lb|hash|CREATE INDEX hx_lb ON public.hx USING hash (lower(b))"
    );
    assert_eq!(
        ok(
            server,
            "set enable_seqscan = off; \
             explain (costs off) select b from hx where a = 7"
        ),
        "Index Scan using hx_a on hx\n  Index Cond: (a = 7)"
    );
    assert_eq!(
        ok(server, "explain (costs off) select b from hx where a < 7"),
        "Seq Scan on hx\n  Filter: (a < 7)"
    );
    assert_eq!(ok(server, "select b from hx where a = 7"), "seven");
    assert_eq!(ok(server, "select count(*) from hx where a = 3"), "0");
    assert_eq!(ok(server, "select a from hx where lower(b) = 'v5'"), "5");
    assert_eq!(ok(server, "select count(*) from hx where a = 1000"), "1");
}

#[test]
fn hash_indexes_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table hx (a int, b text)",
        "insert into hx select g, 'V' || g from generate_series(1, 50) g",
        "create index hx_a on hx using hash (a)",
        "create index hx_lb on hx using hash (lower(b))",
        "update hx set b = 'seven' where a = 7",
        "delete from hx where a = 3",
        "insert into hx values (1000, 'big')",
    ] {
        ok(&server, sql);
    }
    check_hash_indexes(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image; writes after the
    // restart keep the index right.
    let mut again = Server::start_on(&dir);
    check_hash_indexes(&again);
    ok(&again, "insert into hx values (1000, 'big2')");
    ok(&again, "delete from hx where b = 'big2'");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_hash_indexes(&third);
}

/// What must hold after each restart of
/// `index_key_options_survive_crashes`: the keys' options (pg_get_indexdef,
/// pg_index.indoption), the order the entries lie in (an ORDER BY the
/// index serves forward and backward, NULLs where declared), ranges on a
/// DESC key, and the uniqueness of a DESC key.
fn check_index_key_options(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select pg_get_indexdef(indexrelid), indoption from pg_index \
             where indrelid = 'ko'::regclass order by 1"
        ),
        "CREATE INDEX ko_ab ON public.ko USING btree (a DESC NULLS LAST, b COLLATE \"C\" text_pattern_ops)|1 0\n\
         CREATE INDEX ko_expr ON public.ko USING btree (lower(b) NULLS FIRST)|2\n\
         CREATE UNIQUE INDEX ko_u ON public.ko USING btree (u DESC)|3"
    );
    assert_eq!(
        ok(
            server,
            "explain (costs off) select a from ko order by a desc nulls last limit 3"
        ),
        "Limit\n  ->  Index Scan using ko_ab on ko"
    );
    assert_eq!(
        ok(
            server,
            "select a from ko order by a desc nulls last limit 3"
        ),
        "50\n49\n48"
    );
    assert_eq!(
        ok(
            server,
            "select coalesce(a, -1) from ko order by a nulls first limit 3"
        ),
        "-1\n-1\n1"
    );
    assert_eq!(
        ok(
            server,
            "select count(*), min(a), max(a) from ko where a > 10 and a <= 20"
        ),
        "10|11|20"
    );
    assert_eq!(ok(server, "select count(*) from ko where a < 5"), "4");
    let e = err(server, "insert into ko values (1, 'x', 7)");
    assert!(e.contains("Key (u)=(7) already exists"), "{e}");
}

#[test]
fn index_key_options_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table ko (a int, b text, u int)",
        "insert into ko select g, 'V' || g, g from generate_series(1, 50) g",
        "insert into ko values (null, 'n1', null), (null, 'n2', null)",
        "create index ko_ab on ko (a desc nulls last, b collate \"C\" text_pattern_ops)",
        "create index ko_expr on ko (lower(b) nulls first)",
        "create unique index ko_u on ko (u desc)",
    ] {
        ok(&server, sql);
    }
    check_index_key_options(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_index_key_options(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_index_key_options(&third);
}

/// What must hold after each restart of `gin_indexes_survive_crashes`:
/// the indexes are still GIN indexes with their classes, still read for
/// `@>`, `?` and `&&`, and their entries (rebuilt from the rows) find
/// exactly the rows an unindexed scan finds.
fn check_gin_indexes(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select c.relname, a.amname, pg_get_indexdef(c.oid) from pg_class c \
             join pg_am a on a.oid = c.relam where c.relname like 'gx%' \
             and c.relkind = 'i' order by 1"
        ),
        "gx_doc|gin|CREATE INDEX gx_doc ON public.gx USING gin (doc)\n\
         gx_path|gin|CREATE INDEX gx_path ON public.gx USING gin (doc jsonb_path_ops)\n\
         gx_tags|gin|CREATE INDEX gx_tags ON public.gx USING gin (tags)"
    );
    assert_eq!(
        ok(
            server,
            "set enable_seqscan = off; \
             explain (costs off) select a from gx where tags && '{3}'"
        ),
        "Bitmap Heap Scan on gx\n  Recheck Cond: (tags && '{3}'::integer[])\n  \
         ->  Bitmap Index Scan on gx_tags\n        Index Cond: (tags && '{3}'::integer[])"
    );
    for cond in [
        r#"doc @> '{"m": 3}'"#,
        "doc ? 'seven'",
        "doc ?| array['k1', 'nine']",
        "tags && '{3, 4}'",
        "tags @> '{1}'",
        "tags <@ '{1, 2, 3}'",
    ] {
        let indexed = ok(
            server,
            &format!("select count(*) || ':' || coalesce(sum(a), 0) from gx where {cond}"),
        );
        let plain = ok(
            server,
            &format!(
                "select count(*) || ':' || coalesce(sum(a), 0) from \
                 (select * from gx offset 0) s where {cond}"
            ),
        );
        assert_eq!(indexed, plain, "{cond}");
        assert_ne!(indexed, "0:0", "{cond}");
    }
    assert_eq!(ok(server, "select a from gx where doc ? 'seven'"), "7");
    assert_eq!(ok(server, "select count(*) from gx where doc ? 'k3'"), "0");
}

#[test]
fn gin_indexes_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table gx (a int, doc jsonb, tags int[])",
        "insert into gx select g, jsonb_build_object('m', g % 5, 'k' || (g % 4), g), \
         array[g % 6, g % 4] from generate_series(1, 60) g",
        "create index gx_doc on gx using gin (doc)",
        "create index gx_path on gx using gin (doc jsonb_path_ops)",
        "create index gx_tags on gx using gin (tags)",
        r#"update gx set doc = '{"seven": true, "m": 3}' where a = 7"#,
        "delete from gx where doc ? 'k3'",
        "insert into gx values (1000, '{\"nine\": 1}', '{1,2,3}')",
        // Keys of a document nested far deeper than the main thread's
        // stack would parse: recovery re-indexes it on a session's stack.
        "insert into gx (a, doc) select 0, (repeat('[', 50000) || '1' || repeat(']', 50000))::jsonb",
    ] {
        ok(&server, sql);
    }
    check_gin_indexes(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image; writes after the
    // restart keep the index right.
    let mut again = Server::start_on(&dir);
    check_gin_indexes(&again);
    ok(&again, "insert into gx values (1001, '{\"k3\": 1}', '{4}')");
    ok(&again, "delete from gx where a = 1001");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_gin_indexes(&third);
}

/// Installed extensions are catalog state: kept by the WAL and by a
/// checkpoint's image, and so is their removal.
#[test]
fn extensions_survive_crashes() {
    let mut server = Server::start();
    ok(&server, "create extension \"uuid-ossp\"");
    ok(&server, "create extension pgcrypto");
    ok(&server, "drop extension pgcrypto");
    let check = |s: &Server| {
        assert_eq!(
            ok(
                s,
                "select string_agg(extname, ',' order by extname) from pg_extension"
            ),
            "plpgsql,uuid-ossp"
        );
        assert_eq!(
            ok(
                s,
                "select uuid_generate_v5(uuid_ns_dns(), 'www.example.com')"
            ),
            "2ed6657d-e927-568b-95e1-2665a8aea6a2"
        );
    };
    check(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());
    let mut again = Server::start_on(&dir);
    check(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check(&third);
}

/// What must hold after each restart of `rules_survive_crashes`.
fn check_rules(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select c.relname, r.rulename, r.ev_type, r.is_instead from pg_rewrite r \
             join pg_class c on c.oid = r.ev_class where r.rulename <> '_RETURN' \
             and c.relnamespace = 'public'::regnamespace order by 1, 2"
        ),
        "base|base_log|3|f\nbase|base_skip|4|t\nbv|bv_ins|3|t\nbv|bv_upd_renamed|2|t"
    );
    // The rules still rewrite: a view written through its INSTEAD rules,
    // a table's ALSO and conditional INSTEAD rules.
    assert_eq!(
        ok(server, "insert into bv values (10, 'ten') returning a, b"),
        "10|ten"
    );
    ok(server, "update bv set b = b || '!' where a = 10");
    ok(server, "delete from base where a = 10");
    assert_eq!(
        ok(server, "select a, b from base order by a"),
        "1|one\n10|ten!"
    );
    let n = ok(server, "select count(*) from blog where a = 10");
    assert_eq!(n, "1");
}

#[test]
fn rules_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table base (a int primary key, b text)",
        "create table blog (a int, b text)",
        "create view bv as select a, b from base",
        "create rule bv_ins as on insert to bv do instead \
         insert into base values (new.a, new.b) returning a, b",
        "create rule bv_upd as on update to bv do instead \
         update base set b = new.b where a = old.a",
        "alter rule bv_upd on bv rename to bv_upd_renamed",
        "create rule base_log as on insert to base do also insert into blog values (new.a, new.b)",
        "create rule base_skip as on delete to base where old.a >= 10 do instead nothing",
        "create rule gone as on delete to bv do instead nothing",
        "drop rule gone on bv",
        "begin; create rule rolled_back as on update to base do instead nothing; rollback",
        "insert into base values (1, 'one')",
    ] {
        ok(&server, sql);
    }
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());
    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_rules(&again);
    ok(&again, "delete from base where a = 10");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    assert_eq!(
        ok(
            &third,
            "select count(*) from pg_rules where schemaname = 'public'"
        ),
        "4"
    );
    ok(&third, "delete from base where a = 10");
    assert_eq!(ok(&third, "select count(*) from base"), "2");
}

/// What must hold after each restart of
/// `view_column_dependencies_survive_crashes`: the columns the views read
/// still hold them (a `*` counts the columns of its creation only).
fn check_view_columns(server: &Server) {
    let e = err(server, "alter table vt drop column b");
    assert!(
        e.contains("view vstar depends on column b of table vt"),
        "{e}"
    );
    assert!(e.contains("view vb depends on column b of table vt"), "{e}");
    let e = err(server, "alter table vt alter column a type bigint");
    assert!(
        e.contains("rule _RETURN on view vstar depends on column \"a\""),
        "{e}"
    );
    ok(server, "begin; alter table vt drop column later; rollback");
}

#[test]
fn view_column_dependencies_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table vt (a int, b int, c int)",
        "create view vstar as select * from vt",
        "create view vb as select b from vt",
        "alter table vt add column later int",
        "alter view vb set (security_barrier = true)",
    ] {
        ok(&server, sql);
    }
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());
    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_view_columns(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_view_columns(&third);
    assert_eq!(
        ok(&third, "alter table vt drop column b cascade; select count(*) from pg_views where viewname in ('vstar', 'vb')"),
        "0"
    );
}

/// What must hold after each restart of `aggregates_survive_crashes`.
fn check_aggregates(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select my_sum(x), sumsq_text(x), old_max(x) from agg_in"
        ),
        "1006|total: 14|3"
    );
    assert_eq!(
        ok(
            server,
            "select x, my_sum(x) over (order by x) from agg_in order by x"
        ),
        "1|1001\n2|1003\n3|1006"
    );
    assert_eq!(
        ok(
            server,
            "select proname, prokind from pg_proc \
             where proname in ('my_sum', 'sumsq_text', 'old_max', 'add_sq') order by proname"
        ),
        "add_sq|f\nmy_sum|a\nold_max|a\nsumsq_text|a"
    );
    assert!(err(server, "select gone_agg(x) from agg_in").contains("does not exist"));
    assert!(err(server, "select rolled_back_agg(x) from agg_in").contains("does not exist"));
}

#[test]
fn aggregates_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table agg_in (x int)",
        "insert into agg_in values (1), (2), (3)",
        "create aggregate my_sum(int) (sfunc = int4pl, stype = int, initcond = '0')",
        "create or replace aggregate my_sum(int) (sfunc = int4pl, stype = int, initcond = '1000')",
        "create function add_sq(s numeric, v numeric) returns numeric language sql \
         as 'select s + v * v'",
        "create function show_total(s numeric) returns text language plpgsql \
         as $$ begin return 'total: ' || s; end $$",
        "create aggregate sumsq_text(numeric) (sfunc = add_sq, stype = numeric, \
         finalfunc = show_total, initcond = 0)",
        "create aggregate old_max (basetype = int, sfunc = int4larger, stype = int)",
        "create aggregate gone_agg(int) (sfunc = int4pl, stype = int)",
        "drop aggregate gone_agg(int)",
        "begin; create aggregate rolled_back_agg(int) (sfunc = int4pl, stype = int); rollback",
    ] {
        ok(&server, sql);
    }
    check_aggregates(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_aggregates(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_aggregates(&third);
}

/// Composite values, arrays of them and arrays inside them are stored
/// without their type's shape, so a checkpoint image reads back before
/// its composite types are installed (it once refused to start).
fn check_composites(server: &Server) {
    assert_eq!(
        ok(server, "select f3, f4, f4[1].if1 from comp_t order by f1"),
        "(1,{a})|{\"(2,)\",\"(,{b})\"}|2\n|[0:1]={NULL,\"(3,{})\"}|3"
    );
}

#[test]
fn composite_arrays_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create type comp_it as (if1 int, if2 text[])",
        "create table comp_t (f1 int, f3 comp_it, f4 comp_it[])",
        "insert into comp_t (f1, f3.if1, f3.if2, f4[1].if1, f4[2].if2) values (1, 1, '{a}', 2, '{b}')",
        "insert into comp_t (f1, f4) values (2, '[0:1]={NULL,\"(3,{})\"}')",
    ] {
        ok(&server, sql);
    }
    check_composites(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_composites(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_composites(&third);
}

fn check_casts(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select 'ok'::mood::int4, '2000-01-11'::date::int4, digit_name(2)"
        ),
        "2|10|digit 2"
    );
    assert_eq!(
        ok(
            server,
            "select castsource::regtype, casttarget::regtype, castcontext, castmethod \
             from pg_cast where oid >= 16384 order by castsource::regtype::text"
        ),
        "date|integer|e|b\ninteger|digit|i|i\nmood|integer|a|f"
    );
    assert!(err(server, "select 'ok'::mood::text::int4").contains("invalid input syntax"));
    assert!(err(server, "select 'ok'::mood::bool").contains("cannot cast"));
}

#[test]
fn casts_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create type mood as enum ('sad', 'ok', 'happy')",
        "create function mood_rank(mood) returns int4 language sql immutable \
         as $$ select case $1 when 'sad' then 1 when 'ok' then 2 else 3 end $$",
        "create cast (mood as int4) with function mood_rank(mood) as assignment",
        "create type digit as enum ('1', '2', '3')",
        "create function digit_name(digit) returns text language sql \
         as $$ select 'digit ' || $1::text $$",
        "create cast (int4 as digit) with inout as implicit",
        "create cast (date as int4) without function",
        "create function text_len(text) returns int4 language sql as $$ select length($1) $$",
        "create cast (text as int4) with function text_len(text)",
        "drop cast (text as int4)",
        "create function is_happy(mood) returns bool language sql as $$ select $1 = 'happy' $$",
        "create cast (mood as bool) with function is_happy(mood)",
        "drop function is_happy(mood) cascade",
        "begin; create cast (mood as text) with inout; rollback",
    ] {
        ok(&server, sql);
    }
    check_casts(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_casts(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_casts(&third);
}

/// pg_trigger of a partition tree: clones with their parents and enabled
/// states, and what a routed insert fires.
fn check_partition_triggers(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select tgrelid::regclass, tgname, tgparentid <> 0, tgenabled from pg_trigger \
             order by tgrelid::regclass::text, tgname"
        ),
        "pt|ta|f|O\npt|tb|f|D\npt1|ta|t|O\npt1|tb|t|D\npt2|ta|t|O\npt2|tb|t|D\n\
         pt21|ta|t|O\npt21|tb|t|D\npt21|tz|f|R"
    );
    ok(server, "truncate audit");
    ok(server, "insert into pt values (1), (12)");
    assert_eq!(ok(server, "select tg from audit order by n"), "pt1\npt21");
    assert!(err(server, "drop trigger ta on pt21").contains("because trigger ta on table pt2"));
}

#[test]
fn partition_triggers_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table audit (n serial, tg text)",
        "create function log_row() returns trigger language plpgsql as \
         $$ begin insert into audit (tg) values (tg_table_name); return new; end $$",
        "create table pt (a int) partition by range (a)",
        "create table pt1 partition of pt for values from (0) to (10)",
        "create table pt2 partition of pt for values from (10) to (20) partition by range (a)",
        "create trigger ta after insert on pt for each row execute function log_row()",
        "create trigger tb before insert on pt for each row execute function log_row()",
        "create table pt21 partition of pt2 for values from (10) to (15)",
        "create trigger tz after insert on pt21 for each row execute function log_row()",
        "alter table pt disable trigger tb",
        "alter table pt21 enable replica trigger tz",
        "create table pt3 partition of pt for values from (20) to (30)",
        "alter table pt detach partition pt3",
    ] {
        ok(&server, sql);
    }
    check_partition_triggers(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_partition_triggers(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_partition_triggers(&third);
}

/// What must hold after each restart of
/// `transition_table_triggers_survive_crashes`.
fn check_transition_triggers(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select tgname, tgoldtable, tgnewtable, tgenabled from pg_trigger \
             where tgrelid = 'tr'::regclass order by tgname"
        ),
        "tr_del|gone||O\ntr_ins||added|D\ntr_upd|before|after|O"
    );
    ok(server, "delete from tr_log");
    ok(server, "update tr set a = a + 10");
    assert_eq!(ok(server, "select s from tr_log"), "1,2>11,12");
}

#[test]
fn transition_table_triggers_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table tr (a int)",
        "create table tr_log (s text)",
        "create function log_tr() returns trigger language plpgsql as $$ begin \
         insert into tr_log select (select string_agg(a::text, ',' order by a) from before) \
         || '>' || (select string_agg(a::text, ',' order by a) from after); return null; end $$",
        "create function noop() returns trigger language plpgsql as $$ begin return null; end $$",
        "create trigger tr_upd after update on tr referencing old table as before \
         new table as after for each statement execute function log_tr()",
        "create trigger tr_ins after insert on tr referencing new table as added \
         for each statement execute function noop()",
        "create trigger tr_del after delete on tr referencing old table as gone \
         for each row execute function noop()",
        "alter table tr disable trigger tr_ins",
        "insert into tr values (1), (2)",
    ] {
        ok(&server, sql);
    }
    check_transition_triggers(&server);
    ok(&server, "update tr set a = a - 10");
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_transition_triggers(&again);
    ok(&again, "update tr set a = a - 10");
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_transition_triggers(&third);
}

/// What must hold after each restart of `row_security_survives_crashes`.
fn check_row_security(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select policyname, permissive, roles, cmd, qual, with_check from pg_policies \
             where tablename = 'rs' order by policyname"
        ),
        "p_low|RESTRICTIVE|{public}|ALL|(v < 100)|\n\
         p_mine|PERMISSIVE|{rs_alice}|ALL|(who = CURRENT_USER)|(v > 0)\n\
         p_read|PERMISSIVE|{public}|SELECT|(v = 1)|"
    );
    assert_eq!(
        ok(
            server,
            "select relrowsecurity, relforcerowsecurity from pg_class where relname = 'rs'"
        ),
        "t|t"
    );
    assert_eq!(
        ok(server, "set role rs_alice; select v from rs order by v"),
        "1\n1\n2"
    );
    assert_eq!(ok(server, "select count(*) from rs"), "4");
    assert!(err(
        server,
        "set role rs_alice; insert into rs values ('rs_alice', -1)"
    )
    .contains("new row violates row-level security policy for table \"rs\""));
}

#[test]
fn row_security_survives_crashes() {
    let mut server = Server::start();
    for sql in [
        "create role rs_alice",
        "create table rs (who text, v int)",
        "grant all on rs to rs_alice",
        "insert into rs values ('rs_alice', 1), ('rs_alice', 2), ('bob', 1), ('rs_alice', 200)",
        "alter table rs enable row level security",
        "alter table rs force row level security",
        "create policy p_own on rs to rs_alice using (who = current_user) with check (v > 0)",
        "create policy p_read on rs for select using (v = 1)",
        "create policy p_low on rs as restrictive using (v < 100)",
        "alter policy p_own on rs rename to p_mine",
        "create policy p_gone on rs using (true)",
        "drop policy p_gone on rs",
    ] {
        ok(&server, sql);
    }
    check_row_security(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_row_security(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_row_security(&third);
}

/// What must hold after each restart of `generated_columns_survive_crashes`.
fn check_generated(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select attname, attgenerated, pg_get_expr(adbin, adrelid) from pg_attribute \
             left join pg_attrdef on adrelid = attrelid and adnum = attnum \
             where attrelid = 'gc'::regclass and attnum > 0 and not attisdropped order by attnum"
        ),
        "a||\nb|s|a * 2\nc||\nd|s|c || '!'\ne||"
    );
    assert_eq!(
        ok(server, "select * from gc order by a"),
        "1|2|x|x!|\n2|4|y|y!|"
    );
    // Still computed, still refused.
    ok(server, "insert into gc (a, c) values (3, 'z')");
    ok(server, "update gc set a = 30 where a = 3");
    assert_eq!(ok(server, "select b, d from gc where a = 30"), "60|z!");
    ok(server, "delete from gc where a = 30");
    assert!(err(server, "insert into gc (a, b) values (4, 4)").contains("generated column"));
}

#[test]
fn generated_columns_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table gc (a int, b int generated always as (a * 2) stored, c text)",
        "insert into gc (a, c) values (1, 'x'), (2, 'y')",
        "alter table gc add column d text generated always as (c || '!') stored",
        "alter table gc add column e int generated always as (a + 1) stored",
        "alter table gc alter column e drop expression",
        "update gc set e = null",
    ] {
        ok(&server, sql);
    }
    check_generated(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_generated(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_generated(&third);
}

/// What must hold after each restart of `view_column_defaults_survive_crashes`.
fn check_view_defaults(server: &Server) {
    assert_eq!(
        ok(
            server,
            "select attname, atthasdef, pg_get_expr(adbin, adrelid) from pg_attribute \
             left join pg_attrdef on adrelid = attrelid and adnum = attnum \
             where attrelid = 'vdv'::regclass and attnum > 0 order by attnum"
        ),
        "a|t|100\nb|t|'view'::text\nc|f|"
    );
    // Still applied by writes through the view, before the table's own.
    ok(server, "delete from vdt");
    assert_eq!(
        ok(server, "insert into vdv default values returning a, b, c"),
        "100|view|7"
    );
}

#[test]
fn view_column_defaults_survive_crashes() {
    let mut server = Server::start();
    for sql in [
        "create table vdt (a int primary key, b text default 'table', c int default 7)",
        "create view vdv with (security_barrier) as select a, b, c from vdt",
        "alter view vdv alter column a set default 100",
        "alter view vdv alter column b set default 'view'",
        "alter view vdv alter column c set default 1",
        "alter view vdv alter column c drop default",
        "begin; alter view vdv alter column c set default 2; rollback",
    ] {
        ok(&server, sql);
    }
    check_view_defaults(&server);
    let dir = server.data_dir.clone();
    assert!(server.signal_and_wait(libc::SIGKILL).signal().is_some());

    // From the WAL alone, then from a checkpoint image.
    let mut again = Server::start_on(&dir);
    check_view_defaults(&again);
    ok(&again, "checkpoint");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check_view_defaults(&third);
}
