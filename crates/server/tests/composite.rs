//! Composite types through the real server and psql: CREATE / ALTER /
//! DROP TYPE ... AS (...), columns and casts of a composite type, the
//! record text format (record_in / record_out quoting), comparisons and
//! ORDER BY, errors with their SQLSTATEs (psql's verbose form), the
//! catalog rows psql's `\dT` and `\d` read, json_populate_record and
//! friends, and the types surviving a crash (from the WAL, then from a
//! checkpoint image).

mod common;

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use common::{ok, Server};

/// Run SQL through psql with `VERBOSITY=verbose`: Ok(stdout) or the
/// error's `SQLSTATE: message` line.
fn run(server: &Server, sql: &str) -> Result<String, String> {
    let conninfo = format!(
        "host=127.0.0.1 port={} user=postgres dbname=postgres",
        server.port
    );
    let out = Command::new("psql")
        .args(["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1"])
        .args(["-v", "VERBOSITY=verbose", "-d", &conninfo, "-c", sql])
        .output()
        .expect("run psql");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        let e = String::from_utf8_lossy(&out.stderr);
        let line = e
            .lines()
            .find_map(|l| l.strip_prefix("ERROR:  "))
            .unwrap_or(&e)
            .to_string();
        Err(line)
    }
}

/// The `SQLSTATE: message` of a statement that must fail.
#[track_caller]
fn fails(server: &Server, sql: &str) -> String {
    match run(server, sql) {
        Ok(out) => panic!("{sql} succeeded with {out:?}"),
        Err(e) => e,
    }
}

#[test]
fn composite_columns_casts_and_text_format() {
    let s = Server::start();
    ok(&s, "create type pair as (a int, b text)");
    ok(&s, "create table t (id int primary key, x pair)");
    ok(
        &s,
        "insert into t values (1, row(1, 'a')), (2, '(2,\"b c\")'), (3, null), \
         (4, row(null, null)), (5, '(5,)'), (6, row(6, 'q\"uo\\te'))",
    );
    assert_eq!(
        ok(&s, "select id, x from t order by id"),
        "1|(1,a)\n2|(2,\"b c\")\n3|\n4|(,)\n5|(5,)\n6|(6,\"q\"\"uo\\\\te\")"
    );
    // Fields by name, the whole row expanded, a field of a cast literal.
    assert_eq!(
        ok(&s, "select (x).b, (x).a + 1 from t where id = 2"),
        "b c|3"
    );
    assert_eq!(ok(&s, "select (x).* from t where id = 1"), "1|a");
    assert_eq!(
        ok(&s, "select '[' || ('(7,\" x \")'::pair).b || ']'"),
        "[ x ]"
    );
    // record_in: an empty quoted string is '', nothing is NULL,
    // backslashes and doubled quotes escape.
    assert_eq!(
        ok(
            &s,
            "select ('(1,\"\")'::pair).b = '', ('(1,)'::pair).b is null, ('(1,\"a\"\"b\")'::pair).b, ('(1,a\\\\b)'::pair).b"
        ),
        "t|t|a\"b|a\\b"
    );
    // IS NULL of a row: NULL, or every field NULL.
    assert_eq!(
        ok(&s, "select id from t where x is null order by id"),
        "3\n4"
    );
    assert_eq!(
        ok(&s, "select id from t where x is not null order by id"),
        "1\n2\n6"
    );
    // Comparisons with a row constructor and a literal; ORDER BY (NULLs
    // last, field by field).
    // (record_eq: the fields' types must match; a bare literal would be
    // an anonymous record, as in PostgreSQL.)
    assert_eq!(ok(&s, "select id from t where x = row(1, 'a'::text)"), "1");
    assert_eq!(
        fails(&s, "select id from t where x = row(1, 'a')"),
        "42804: cannot compare dissimilar column types text and unknown at record column 2"
    );
    assert_eq!(
        ok(&s, "select id from t where x = '(2,\"b c\")'::pair"),
        "2"
    );
    assert_eq!(
        fails(&s, "select id from t where x = '(2,b)'"),
        "0A000: input of anonymous composite types is not implemented"
    );
    assert_eq!(
        ok(&s, "select id from t where id <> 3 order by x desc, id"),
        "4\n6\n5\n2\n1"
    );
    // UPDATE of one field (the others kept; NULL ones for a NULL row).
    ok(&s, "update t set x.b = 'B' where id in (1, 3)");
    assert_eq!(
        ok(&s, "select id, x from t where id in (1, 3) order by id"),
        "1|(1,B)\n3|(,B)"
    );
    ok(&s, "update t set x = null where id = 3");
    ok(&s, "update t set x.b = 'a' where id = 1");
    // Casts from a row, to text, from text.
    assert_eq!(ok(&s, "select row(8, 9)::pair"), "(8,9)");
    assert_eq!(ok(&s, "select (row(8, 9)::pair)::text || '!'"), "(8,9)!");
    assert_eq!(ok(&s, "select pg_typeof(x) from t where id = 1"), "pair");
    assert_eq!(
        fails(&s, "select row(1, 2, 3)::pair"),
        "42846: cannot cast type record to pair"
    );
    assert_eq!(
        fails(&s, "select '(1,a'::pair"),
        "22P02: malformed record literal: \"(1,a\""
    );
    assert_eq!(
        fails(&s, "select '1,a)'::pair"),
        "22P02: malformed record literal: \"1,a)\""
    );
    assert_eq!(
        fails(&s, "select '(1)'::pair"),
        "22P02: malformed record literal: \"(1)\""
    );
    assert_eq!(
        fails(&s, "select '(1,a,b)'::pair"),
        "22P02: malformed record literal: \"(1,a,b)\""
    );
    assert_eq!(
        fails(&s, "select '(1,a) x'::pair"),
        "22P02: malformed record literal: \"(1,a) x\""
    );
    assert_eq!(
        fails(&s, "select '(x,a)'::pair"),
        "22P02: invalid input syntax for type integer: \"x\""
    );
    assert_eq!(
        fails(&s, "select '(1,a)'::record"),
        "0A000: input of anonymous composite types is not implemented"
    );
    // A composite type inside another, and a function over one.
    ok(&s, "create type outer_t as (p pair, n numeric(4,1))");
    assert_eq!(
        ok(&s, "select '(\"(1,x)\",2.25)'::outer_t"),
        "(\"(1,x)\",2.3)"
    );
    assert_eq!(ok(&s, "select (('(\"(1,x)\",2)'::outer_t).p).b"), "x");
    // A table's row type names a composite type in casts.
    ok(&s, "create table person (first text, last text)");
    assert_eq!(
        ok(
            &s,
            "select '(Joe,\"von Blow\")'::person, row('a', 'b')::person, pg_typeof('(x,y)'::person)"
        ),
        "(Joe,\"von Blow\")|(a,b)|person"
    );
    assert_eq!(ok(&s, "select ('(Joe,Blow)'::person).last"), "Blow");
    // And a column's type.
    ok(&s, "create table pp (p person, n int)");
    ok(
        &s,
        "insert into pp values ('(Ann,Lee)', 1), (row('Bo', null), 2)",
    );
    assert_eq!(
        ok(&s, "select p, (p).first from pp order by n"),
        "(Ann,Lee)|Ann\n(Bo,)|Bo"
    );
    assert_eq!(
        fails(&s, "drop table person"),
        "2BP01: cannot drop table person because other objects depend on it"
    );
    assert_eq!(
        fails(&s, "create table person_arr (a person[])"),
        "0A000: arrays of the row type of table person is not supported"
    );
    // User-defined types live in public: another schema that exists is
    // 0A000, one that does not is PostgreSQL's 3F000.
    ok(&s, "create schema tys");
    for ddl in [
        "create type tys.e as enum ('a')",
        "create domain tys.d as int",
    ] {
        assert_eq!(
            fails(&s, ddl),
            "0A000: types in schema tys (user-defined types live in public) is not supported"
        );
    }
    assert_eq!(
        fails(&s, "create domain nosuch.d as int"),
        "3F000: schema \"nosuch\" does not exist"
    );
    ok(
        &s,
        "create function pa(p pair) returns int language sql as 'select (p).a * 10'",
    );
    assert_eq!(ok(&s, "select pa(x) from t where id = 2"), "20");
}

#[test]
fn composite_ddl_catalog_and_errors() {
    let s = Server::start();
    ok(&s, "create type pair as (a int, b varchar(5))");
    assert_eq!(
        fails(&s, "create type pair as (z int)"),
        "42710: type \"pair\" already exists"
    );
    assert_eq!(
        fails(&s, "create type dup as (a int, a text)"),
        "42701: column \"a\" specified more than once"
    );
    assert_eq!(
        fails(&s, "create type bad as (a nosuch)"),
        "42704: type \"nosuch\" does not exist"
    );
    // Arrays of a composite type.
    ok(&s, "create table arr (a pair[])");
    ok(
        &s,
        "insert into arr values (array[row(1, 'x'), row(2, 'y z')]::pair[]), ('{\"(3,)\",NULL}')",
    );
    assert_eq!(
        ok(&s, "select a, (a[1]).b from arr order by 1"),
        "{\"(1,x)\",\"(2,\\\"y z\\\")\"}|x\n{\"(3,)\",NULL}|"
    );
    ok(&s, "drop table arr");
    // pg_type, pg_class and pg_attribute rows, as psql reads them.
    assert_eq!(
        ok(
            &s,
            "select t.typtype, t.typcategory, c.relkind, c.relnatts, a.typname \
             from pg_type t join pg_class c on c.oid = t.typrelid \
             join pg_type a on a.oid = t.typarray where t.typname = 'pair'"
        ),
        "c|C|c|2|_pair"
    );
    assert_eq!(
        ok(
            &s,
            "select attname, format_type(atttypid, atttypmod) from pg_attribute \
             where attrelid = (select typrelid from pg_type where typname = 'pair') order by attnum"
        ),
        "a|integer\nb|character varying(5)"
    );
    ok(&s, "comment on type pair is 'two things'");
    assert_eq!(ok(&s, "\\dT pair"), "public|pair|two things");
    assert_eq!(
        ok(&s, "\\d pair"),
        "a|integer|||\nb|character varying(5)|||"
    );
    // ALTER TYPE while nothing uses it.
    ok(&s, "alter type pair add attribute c date");
    ok(&s, "alter type pair rename attribute c to d");
    assert_eq!(
        ok(&s, "select '(1,x,2024-01-02)'::pair"),
        "(1,x,2024-01-02)"
    );
    ok(&s, "alter type pair drop attribute d");
    assert_eq!(
        fails(&s, "alter type pair drop attribute nosuch"),
        "42703: column \"nosuch\" of relation \"pair\" does not exist"
    );
    // In use by a column: ALTER and DROP are refused.
    ok(&s, "create table t (x pair)");
    assert_eq!(
        fails(&s, "alter type pair alter attribute b type text"),
        "0A000: cannot alter type \"pair\" because column \"t.x\" uses it"
    );
    // PostgreSQL adds an attribute under a column without rewriting it;
    // Nestor's columns keep the type's shape of their creation, so it
    // refuses (see nestor_exec's ddl/composite.rs).
    assert_eq!(
        fails(&s, "alter type pair add attribute c int"),
        "0A000: cannot alter type \"pair\" because column \"t.x\" uses it"
    );
    assert_eq!(
        fails(&s, "drop type pair"),
        "2BP01: cannot drop type pair because other objects depend on it"
    );
    ok(&s, "drop table t");
    ok(
        &s,
        "create function f(p pair) returns int language sql as 'select 1'",
    );
    assert_eq!(
        fails(&s, "drop type pair restrict"),
        "2BP01: cannot drop type pair because other objects depend on it"
    );
    ok(&s, "drop function f(pair)");
    // Rolled back, then really dropped.
    ok(&s, "begin; drop type pair; rollback");
    assert_eq!(ok(&s, "select '(1,a)'::pair"), "(1,a)");
    ok(&s, "alter type pair rename to duo");
    assert_eq!(ok(&s, "select '(1,a)'::duo"), "(1,a)");
    ok(&s, "drop type duo");
    assert_eq!(
        fails(&s, "select '(1,a)'::duo"),
        "42704: type \"duo\" does not exist"
    );
    assert_eq!(
        ok(&s, "select count(*) from pg_class where relkind = 'c'"),
        "0"
    );
}

#[test]
fn json_populate_record_and_friends() {
    let s = Server::start();
    ok(&s, "create type jpop as (a text, b int, c timestamp)");
    assert_eq!(
        ok(
            &s,
            "select * from json_populate_record(null::jpop, '{\"a\":\"blurfl\",\"x\":43.2}')"
        ),
        "blurfl||"
    );
    assert_eq!(
        ok(
            &s,
            "select * from jsonb_populate_record(row('x',3,'2012-12-31 15:30:56')::jpop, '{\"a\":\"blurfl\",\"x\":43.2}')"
        ),
        "blurfl|3|2012-12-31 15:30:56"
    );
    assert_eq!(
        ok(
            &s,
            "select json_populate_record(null::jpop, '{\"a\":[100,200,false],\"b\":7}')"
        ),
        "(\"[100,200,false]\",7,)"
    );
    assert_eq!(
        ok(
            &s,
            "select * from json_populate_recordset(null::jpop, '[{\"a\":1,\"b\":2},{\"a\":\"x\",\"c\":\"2012-01-20 10:42:53\"}]')"
        ),
        "1|2|\nx||2012-01-20 10:42:53"
    );
    assert_eq!(
        ok(
            &s,
            "select * from jsonb_to_record('{\"a\":1,\"b\":\"foo\",\"c\":\"bar\"}') as x(a int, b text, d text)"
        ),
        "1|foo|"
    );
    assert_eq!(
        ok(
            &s,
            "select * from json_to_recordset('[{\"a\":1,\"b\":\"foo\"},{\"a\":2,\"c\":\"bar\"}]') as x(a int, b text)"
        ),
        "1|foo\n2|"
    );
    assert_eq!(
        fails(&s, "select * from json_to_record('{\"a\":1}')"),
        "42601: a column definition list is required for functions returning \"record\""
    );
    assert_eq!(
        fails(
            &s,
            "select * from json_populate_recordset(null::jpop, '{\"a\":1}')"
        ),
        "22023: cannot call json_populate_recordset on an object"
    );
    assert_eq!(
        fails(&s, "select json_populate_record(null::jpop, '[1]')"),
        "22023: cannot call populate_composite on an array"
    );
    assert_eq!(
        fails(&s, "select json_populate_record(null::record, '{}')"),
        "0A000: could not determine row type for result of json_populate_record"
    );
    assert_eq!(
        ok(&s, "select json_populate_record(row(1,2), '{\"f1\": 0}')"),
        "(0,2)"
    );
    assert_eq!(
        ok(
            &s,
            "select row_to_json(row(1,null,null)::jpop), to_jsonb(row('y',2,null)::jpop)"
        ),
        "{\"a\":\"1\",\"b\":null,\"c\":null}|{\"a\": \"y\", \"b\": 2, \"c\": null}"
    );
}

#[test]
fn composite_types_survive_a_crash_and_a_checkpoint() {
    let mut s = Server::start();
    ok(&s, "create type inner_t as (x int, y text)");
    ok(&s, "create type outer_t as (i inner_t, z bool)");
    ok(&s, "create table t (id int, o outer_t)");
    ok(&s, "insert into t values (1, '(\"(1,a b)\",t)')");
    ok(&s, "comment on type outer_t is 'nested'");
    // A column of a table's row type, the table named to sort after the
    // one using it (a checkpoint image must install it first).
    ok(&s, "create table zrow (k int, v text)");
    ok(&s, "create table arow (z zrow)");
    ok(&s, "insert into arow values ('(1,one)')");
    let check = |s: &Server, rows: &str| {
        assert_eq!(ok(s, "select z, (z).v from arow"), "(1,one)|one");
        assert_eq!(ok(s, "select id, o from t order by id"), rows);
        assert_eq!(ok(s, "select ((o).i).y from t where id = 1"), "a b");
        assert_eq!(
            ok(s, "select obj_description('outer_t'::regtype, 'pg_type')"),
            "nested"
        );
    };
    check(&s, "1|(\"(1,\"\"a b\"\")\",t)");
    let dir = s.data_dir.clone();
    assert!(s.signal_and_wait(libc::SIGKILL).signal().is_some());
    let mut again = Server::start_on(&dir);
    check(&again, "1|(\"(1,\"\"a b\"\")\",t)");
    ok(&again, "checkpoint");
    ok(&again, "insert into t values (2, row(row(2, null), false))");
    ok(&again, "create type later as (q int)");
    assert!(again.signal_and_wait(libc::SIGKILL).signal().is_some());
    let third = Server::start_on(&dir);
    check(&third, "1|(\"(1,\"\"a b\"\")\",t)\n2|(\"(2,)\",f)");
    assert_eq!(ok(&third, "select '(5)'::later"), "(5)");
}

#[test]
fn pg_dump_writes_composite_types_in_dependency_order() {
    let s = Server::start();
    // Named so that the type used sorts after the one using it.
    ok(&s, "create type zpair as (a int, b text)");
    ok(&s, "create type anest as (p zpair, q int)");
    ok(&s, "create table bt (x anest, y zpair[])");
    ok(
        &s,
        "insert into bt values ('(\"(1,x y)\",2)', '{\"(3,z)\"}')",
    );
    ok(
        &s,
        "create function g(i int) returns zpair language sql as 'select row(i, i::text)::zpair'",
    );
    let dump = Command::new("pg_dump")
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &s.port.to_string(),
            "-U",
            "postgres",
            "postgres",
        ])
        .output()
        .expect("run pg_dump");
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let text = String::from_utf8_lossy(&dump.stdout).to_string();
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle} in {text}"))
    };
    assert!(at("CREATE TYPE public.zpair AS") < at("CREATE TYPE public.anest AS"));
    assert!(
        text.contains("    x public.anest,\n    y public.zpair[]\n"),
        "{text}"
    );
    assert!(text.contains("RETURNS public.zpair"), "{text}");
    // Restored into another database, the same rows.
    ok(&s, "create database restored");
    let file = std::env::temp_dir().join(format!("nestor-composite-dump-{}.sql", s.port));
    std::fs::write(&file, &dump.stdout).expect("write the dump");
    let restore = Command::new("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1"])
        .args([
            "-p",
            &s.port.to_string(),
            "-U",
            "postgres",
            "-d",
            "restored",
        ])
        .arg("-f")
        .arg(&file)
        .output()
        .expect("run psql");
    let _ = std::fs::remove_file(&file);
    assert!(
        restore.status.success(),
        "{}",
        String::from_utf8_lossy(&restore.stderr)
    );
    let conninfo = format!(
        "host=127.0.0.1 port={} user=postgres dbname=restored",
        s.port
    );
    assert_eq!(
        common::psql_conninfo(&conninfo, "select x, y, g(4) from bt").unwrap(),
        "(\"(1,\"\"x y\"\")\",2)|{\"(3,z)\"}|(4,4)"
    );
}
