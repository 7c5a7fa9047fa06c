#!/usr/bin/env python3
"""psycopg2 (psycopg2-binary) against a PostgreSQL-compatible server.

Connection: libpq's PGHOST/PGPORT/PGUSER/PGDATABASE. Runs every check and
exits 1 naming the failed ones (see checklib.py). Run by
crates/server/tests/drivers.rs; every check passes on PostgreSQL 15.
"""

import io
import uuid
from datetime import date, datetime, timezone, timedelta
from decimal import Decimal

import psycopg2
import psycopg2.errors
import psycopg2.extensions
import psycopg2.extras

from checklib import CheckFailed, env, expect, expect_true, run_checks

psycopg2.extras.register_uuid()

ROW = {
    "i": 42,
    "b": 9007199254740993,
    "t": "héllo 'world' \\ \t",
    "n": Decimal("12345.6789"),
    "flag": True,
    "ts": datetime(2024, 2, 29, 13, 45, 6, 123456),
    "tstz": datetime(2024, 2, 29, 13, 45, 6, 123456, tzinfo=timezone.utc),
    "d": date(2024, 2, 29),
    "bin": bytes([0, 1, 2, 39, 92, 255]),
    "u": uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
    "ints": [1, None, 3],
    "texts": ["a", "b c", 'q"uote', ""],
}


def connect(**kw):
    e = env()
    return psycopg2.connect(host=e["host"], port=e["port"], user=e["user"], dbname=e["dbname"], **kw)


def setup_table(conn):
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS p2_child")
        cur.execute("DROP TABLE IF EXISTS p2_all")
        cur.execute(
            """CREATE TABLE p2_all (
                id serial PRIMARY KEY,
                i integer, b bigint, t text UNIQUE, n numeric(12,4), flag boolean,
                ts timestamp, tstz timestamptz, d date, bin bytea, u uuid,
                ints integer[], texts text[])"""
        )
    conn.commit()


def insert_row(cur, row):
    cur.execute(
        """INSERT INTO p2_all (i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts)
           VALUES (%(i)s, %(b)s, %(t)s, %(n)s, %(flag)s, %(ts)s, %(tstz)s, %(d)s,
                   %(bin)s, %(u)s, %(ints)s, %(texts)s) RETURNING id""",
        {**row, "bin": psycopg2.Binary(row["bin"])},
    )
    return cur.fetchone()[0]


def check_connect():
    conn = connect()
    expect_true("server_version >= 150000", conn.server_version >= 150000, conn.server_version)
    expect("server_encoding", conn.get_parameter_status("server_encoding"), "UTF8")
    expect("client_encoding", conn.encoding, "UTF8")
    expect("integer_datetimes", conn.get_parameter_status("integer_datetimes"), "on")
    with conn.cursor() as cur:
        cur.execute("SELECT 1 + %s, current_user, current_database()", (41,))
        e = env()
        expect("SELECT 1 + 41, current_user, current_database()", cur.fetchone(), (42, e["user"], e["dbname"]))
    expect("status in transaction", conn.info.transaction_status, psycopg2.extensions.TRANSACTION_STATUS_INTRANS)
    conn.rollback()
    expect("status idle", conn.info.transaction_status, psycopg2.extensions.TRANSACTION_STATUS_IDLE)
    conn.close()
    expect("closed", conn.closed, 1)


def check_crud_types():
    conn = connect()
    setup_table(conn)
    with conn.cursor() as cur:
        rid = insert_row(cur, ROW)
        expect("INSERT ... RETURNING id", rid, 1)
        cur.execute("SELECT i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts FROM p2_all WHERE id = %s", (rid,))
        got = cur.fetchone()
        for k, v in zip(["i", "b", "t", "n", "flag", "ts", "tstz", "d", "bin", "u", "ints", "texts"], got):
            if k == "bin":
                v = bytes(v)
            expect(f"round trip {k}", v, ROW[k])
        # NULLs of every type
        cur.execute(
            "INSERT INTO p2_all (i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (None,) * 12,
        )
        nid = cur.fetchone()[0]
        cur.execute("SELECT i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts FROM p2_all WHERE id = %s", (nid,))
        expect("row of NULLs", cur.fetchone(), (None,) * 12)
        cur.execute(
            "UPDATE p2_all SET n = n + %s, flag = NOT flag, ints = array_append(ints, %s), "
            "d = %s WHERE id = %s",
            (Decimal("0.0001"), 7, date(2025, 1, 1), rid),
        )
        expect("UPDATE rowcount", cur.rowcount, 1)
        cur.execute("SELECT n, flag, ints, d FROM p2_all WHERE id = %s", (rid,))
        expect(
            "after UPDATE",
            cur.fetchone(),
            (Decimal("12345.6790"), False, [1, None, 3, 7], date(2025, 1, 1)),
        )
        cur.execute("SELECT count(*) FROM p2_all WHERE %s = ANY(texts) AND b > %s", ("b c", 2**40))
        expect("= ANY(texts) with parameters", cur.fetchone()[0], 1)
        cur.execute("SELECT id FROM p2_all WHERE id = ANY(%s) ORDER BY id", ([rid, nid, 999],))
        expect("id = ANY(list parameter)", cur.fetchall(), [(rid,), (nid,)])
        cur.execute("DELETE FROM p2_all WHERE id = %s", (nid,))
        expect("DELETE rowcount", cur.rowcount, 1)
        cur.execute("SELECT count(*) FROM p2_all")
        expect("count after DELETE", cur.fetchone()[0], 1)
    conn.commit()
    conn.close()


def check_executemany_and_prepare():
    conn = connect()
    setup_table(conn)
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO p2_all (i, t) VALUES (%s, %s)", [(k, f"row {k}") for k in range(10)])
        psycopg2.extras.execute_values(cur, "INSERT INTO p2_all (i, t) VALUES %s", [(k, f"v {k}") for k in range(10, 25)])
        cur.execute("SELECT count(*), sum(i) FROM p2_all")
        expect("executemany + execute_values rows", cur.fetchone(), (25, sum(range(25))))
        # psycopg2 has no protocol-level prepare: SQL PREPARE/EXECUTE.
        cur.execute("PREPARE p2_get (int) AS SELECT t FROM p2_all WHERE i = $1")
        cur.execute("EXECUTE p2_get (%s)", (12,))
        expect("EXECUTE prepared", cur.fetchone(), ("v 12",))
        cur.execute("DEALLOCATE p2_get")
        try:
            cur.execute("EXECUTE p2_get (1)")
            raise CheckFailed("EXECUTE after DEALLOCATE succeeded")
        except psycopg2.Error as e:
            expect("EXECUTE after DEALLOCATE sqlstate", e.pgcode, "26000")
        conn.rollback()
    conn.close()


def check_transactions():
    conn = connect()
    setup_table(conn)
    other = connect()
    other.autocommit = True
    with conn.cursor() as cur, other.cursor() as ocur:
        cur.execute("INSERT INTO p2_all (i, t) VALUES (1, 'committed')")
        ocur.execute("SELECT count(*) FROM p2_all")
        expect("uncommitted row invisible to another session", ocur.fetchone()[0], 0)
        conn.commit()
        ocur.execute("SELECT count(*) FROM p2_all")
        expect("committed row visible", ocur.fetchone()[0], 1)
        cur.execute("INSERT INTO p2_all (i, t) VALUES (2, 'rolled back')")
        conn.rollback()
        cur.execute("SELECT t FROM p2_all ORDER BY i")
        expect("after rollback", cur.fetchall(), [("committed",)])
        conn.rollback()
    # `with conn` commits on success, rolls back on exception
    try:
        with conn:
            with conn.cursor() as cur:
                cur.execute("INSERT INTO p2_all (i, t) VALUES (3, 'ctx')")
                raise ZeroDivisionError
    except ZeroDivisionError:
        pass
    with conn:
        with conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM p2_all WHERE i = 3")
            expect("with-block rolled back", cur.fetchone()[0], 0)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("INSERT INTO p2_all (i, t) VALUES (4, 'autocommit')")
    ocur = other.cursor()
    ocur.execute("SELECT count(*) FROM p2_all WHERE i = 4")
    expect("autocommit insert visible", ocur.fetchone()[0], 1)
    conn.autocommit = False
    conn.set_session(isolation_level="REPEATABLE READ", readonly=True)
    with conn.cursor() as cur:
        cur.execute("SHOW transaction_isolation")
        expect("isolation level", cur.fetchone()[0], "repeatable read")
        try:
            cur.execute("INSERT INTO p2_all (i) VALUES (5)")
            raise CheckFailed("INSERT in a read-only transaction succeeded")
        except psycopg2.errors.ReadOnlySqlTransaction as e:
            expect("read-only transaction sqlstate", e.pgcode, "25006")
    conn.rollback()
    conn.close()
    other.close()


def check_savepoints():
    conn = connect()
    setup_table(conn)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO p2_all (i, t) VALUES (1, 'a')")
        cur.execute("SAVEPOINT s1")
        cur.execute("INSERT INTO p2_all (i, t) VALUES (2, 'b')")
        cur.execute("SAVEPOINT s2")
        cur.execute("INSERT INTO p2_all (i, t) VALUES (3, 'c')")
        cur.execute("ROLLBACK TO SAVEPOINT s2")
        cur.execute("RELEASE SAVEPOINT s1")
        cur.execute("SAVEPOINT s3")
        try:
            cur.execute("INSERT INTO p2_all (i, t) VALUES (4, 'a')")
            raise CheckFailed("duplicate insert succeeded")
        except psycopg2.errors.UniqueViolation:
            pass
        cur.execute("ROLLBACK TO SAVEPOINT s3")
        cur.execute("SELECT i FROM p2_all ORDER BY i")
        expect("rows after savepoints", cur.fetchall(), [(1,), (2,)])
    conn.commit()
    with conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM p2_all")
        expect("committed rows", cur.fetchone()[0], 2)
    conn.close()


def check_errors():
    conn = connect()
    setup_table(conn)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO p2_all (i, t) VALUES (%s, %s)", (1, "dup"))
        try:
            cur.execute("INSERT INTO p2_all (i, t) VALUES (%s, %s)", (2, "dup"))
            raise CheckFailed("duplicate insert succeeded")
        except psycopg2.errors.UniqueViolation as e:
            expect("unique violation pgcode", e.pgcode, "23505")
            expect("diag.constraint_name", e.diag.constraint_name, "p2_all_t_key")
            expect("diag.table_name", e.diag.table_name, "p2_all")
            expect("diag.severity", e.diag.severity, "ERROR")
            expect_true("message mentions the constraint", "p2_all_t_key" in e.pgerror, e.pgerror)
        try:
            cur.execute("SELECT 1")
            raise CheckFailed("statement in an aborted transaction succeeded")
        except psycopg2.errors.InFailedSqlTransaction as e:
            expect("aborted transaction pgcode", e.pgcode, "25P02")
        expect("status inerror", conn.info.transaction_status, psycopg2.extensions.TRANSACTION_STATUS_INERROR)
        conn.rollback()
        for sql, code, cls in [
            ("SELECT 1/0", "22012", psycopg2.errors.DivisionByZero),
            ("SELECT * FROM p2_no_such_table", "42P01", psycopg2.errors.UndefinedTable),
            ("SELEC 1", "42601", psycopg2.errors.SyntaxError),
            ("SELECT no_such_column FROM p2_all", "42703", psycopg2.errors.UndefinedColumn),
            ("SELECT 'x'::integer", "22P02", psycopg2.errors.InvalidTextRepresentation),
            ("INSERT INTO p2_all (id) VALUES (NULL)", "23502", psycopg2.errors.NotNullViolation),
        ]:
            try:
                cur.execute(sql)
                raise CheckFailed(f"{sql} succeeded")
            except psycopg2.Error as e:
                expect(f"{sql} -> class", type(e), cls)
                expect(f"{sql} -> pgcode", e.pgcode, code)
            conn.rollback()
    conn.close()


def check_named_cursor():
    conn = connect()
    setup_table(conn)
    with conn.cursor() as cur:
        psycopg2.extras.execute_values(cur, "INSERT INTO p2_all (i, t) VALUES %s", [(k, f"r{k}") for k in range(1, 101)])
    conn.commit()
    cur = conn.cursor(name="p2_named")
    cur.itersize = 7
    cur.execute("SELECT i, t FROM p2_all WHERE i > %s ORDER BY i", (10,))
    expect("fetchone", cur.fetchone(), (11, "r11"))
    expect("fetchmany(3)", cur.fetchmany(3), [(12, "r12"), (13, "r13"), (14, "r14")])
    rest = list(cur)
    expect("iterated rest count", len(rest), 86)
    expect("last row", rest[-1], (100, "r100"))
    expect_true("description after fetch", cur.description is not None and cur.description[0].name == "i")
    cur.close()
    scur = conn.cursor(name="p2_scroll", scrollable=True)
    scur.execute("SELECT i FROM p2_all ORDER BY i")
    scur.scroll(49, mode="absolute")
    expect("scroll absolute 49 then fetchone", scur.fetchone(), (50,))
    scur.scroll(-10)
    expect("scroll relative -10", scur.fetchone(), (41,))
    scur.close()
    conn.commit()
    hcur = conn.cursor(name="p2_hold", withhold=True)
    hcur.execute("SELECT i FROM p2_all ORDER BY i DESC")
    expect("withhold first", hcur.fetchone(), (100,))
    conn.commit()
    expect("withhold after commit", hcur.fetchmany(2), [(99,), (98,)])
    hcur.close()
    conn.commit()
    conn.close()


def check_copy():
    conn = connect()
    setup_table(conn)
    with conn.cursor() as cur:
        data = io.StringIO("1\tone\t1.5\t2024-01-02\n2\ttwo\\ttab\t\\N\t2024-01-03\n")
        cur.copy_from(data, "p2_all", columns=("i", "t", "n", "d"))
        expect("copy_from rowcount", cur.rowcount, 2)
        csv = io.StringIO('3,"three, quoted",3.25,2024-01-04\n4,,,\n')
        cur.copy_expert("COPY p2_all (i, t, n, d) FROM STDIN WITH (FORMAT csv)", csv)
        cur.execute("SELECT i, t, n, d FROM p2_all ORDER BY i")
        expect(
            "rows after COPY FROM",
            cur.fetchall(),
            [
                (1, "one", Decimal("1.5000"), date(2024, 1, 2)),
                (2, "two\ttab", None, date(2024, 1, 3)),
                (3, "three, quoted", Decimal("3.2500"), date(2024, 1, 4)),
                (4, None, None, None),
            ],
        )
        out = io.StringIO()
        cur.copy_expert("COPY (SELECT i, t FROM p2_all WHERE i <= 2 ORDER BY i) TO STDOUT", out)
        expect("COPY TO STDOUT text", out.getvalue(), "1\tone\n2\ttwo\\ttab\n")
        out = io.StringIO()
        cur.copy_expert("COPY p2_all (i, t) TO STDOUT WITH (FORMAT csv, HEADER)", out)
        expect("COPY TO STDOUT csv header", out.getvalue().splitlines()[0], "i,t")
        expect("COPY TO STDOUT csv rows", len(out.getvalue().splitlines()), 5)
        try:
            cur.copy_expert("COPY p2_all (i) FROM STDIN", io.StringIO("notanint\n"))
            raise CheckFailed("bad COPY data accepted")
        except psycopg2.errors.InvalidTextRepresentation as e:
            expect("bad COPY data pgcode", e.pgcode, "22P02")
        conn.rollback()
    conn.close()


def check_metadata():
    conn = connect()
    setup_table(conn)
    with conn.cursor() as cur:
        cur.execute("SELECT i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts FROM p2_all")
        got = [(c.name, c.type_code) for c in cur.description]
        expect(
            "cursor.description names and type OIDs",
            got,
            [("i", 23), ("b", 20), ("t", 25), ("n", 1700), ("flag", 16), ("ts", 1114), ("tstz", 1184),
             ("d", 1082), ("bin", 17), ("u", 2950), ("ints", 1007), ("texts", 1009)],
        )
        n = cur.description[3]
        expect("numeric(12,4) precision/scale", (n.precision, n.scale), (12, 4))
        expect("description table_oid set", cur.description[0].table_oid is not None and cur.description[0].table_oid > 0, True)
        expect("description table_column", cur.description[2].table_column, 4)
        cur.execute("SELECT 'p2_all'::regclass::oid = %s", (cur.description[0].table_oid,))
        expect("table_oid is the table's oid", cur.fetchone()[0], True)
        cur.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = %s ORDER BY ordinal_position LIMIT 4",
            ("p2_all",),
        )
        expect("information_schema.columns", cur.fetchall(),
               [("id", "integer"), ("i", "integer"), ("b", "bigint"), ("t", "text")])
        dcur = conn.cursor(cursor_factory=psycopg2.extras.RealDictCursor)
        dcur.execute("SELECT 1 AS one, 'x' AS two")
        expect("RealDictCursor", dict(dcur.fetchone()), {"one": 1, "two": "x"})
        cur.execute("SELECT oid, typname, typarray FROM pg_type WHERE typname = 'uuid'")
        expect("pg_type uuid row", cur.fetchone(), (2950, "uuid", 2951))
        expect("mogrify", cur.mogrify("SELECT %s, %s", (1, "a'b")), b"SELECT 1, 'a''b'")
    conn.rollback()
    conn.close()


def check_jsonb():
    """psycopg2's Json adapter."""
    conn = connect()
    with conn.cursor() as cur:
        cur.execute("SELECT %s::jsonb", (psycopg2.extras.Json({"a": [1, "two"]}),))
        expect("jsonb round trip", cur.fetchone()[0], {"a": [1, "two"]})
        cur.execute("SELECT %s::jsonb -> 'a'", (psycopg2.extras.Json({"a": [1, "two"]}),))
        expect("jsonb -> 'a'", cur.fetchone()[0], [1, "two"])
    conn.rollback()
    conn.close()


def check_interval():
    """timedelta parameters (interval)."""
    conn = connect()
    with conn.cursor() as cur:
        ts = datetime(2024, 2, 29, 13, 0, tzinfo=timezone.utc)
        cur.execute("SELECT %s + %s", (ts, timedelta(days=1, seconds=30)))
        expect("timestamptz + interval parameter", cur.fetchone()[0], ts + timedelta(days=1, seconds=30))
        cur.execute("SELECT %s::interval", (timedelta(hours=25, microseconds=5),))
        expect("interval round trip", cur.fetchone()[0], timedelta(hours=25, microseconds=5))
    conn.rollback()
    conn.close()


def check_pg_prepared_statements():
    conn = connect()
    with conn.cursor() as cur:
        cur.execute("PREPARE p2_q (int) AS SELECT $1 + 1")
        cur.execute("SELECT name, statement LIKE 'PREPARE p2_q%%', parameter_types::text "
                    "FROM pg_prepared_statements WHERE name = 'p2_q'")
        expect("pg_prepared_statements row", cur.fetchone(), ("p2_q", True, "{integer}"))
    conn.rollback()
    conn.close()


if __name__ == "__main__":
    run_checks(
        "psycopg2",
        [check_connect, check_crud_types, check_executemany_and_prepare, check_transactions,
         check_savepoints, check_errors, check_named_cursor, check_copy, check_metadata,
         check_jsonb, check_interval, check_pg_prepared_statements],
    )
