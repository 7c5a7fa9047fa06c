#!/usr/bin/env python3
"""psycopg 3 against a PostgreSQL-compatible server: server-side parameters
(extended protocol), text and binary formats, prepared statements, pipeline
mode, nested transaction blocks (savepoints), server-side cursors, COPY
(text and binary) and type introspection.

Connection: libpq's PGHOST/PGPORT/PGUSER/PGDATABASE. Runs every check and
exits 1 naming the failed ones (see checklib.py). Run by
crates/server/tests/drivers.rs; every check passes on PostgreSQL 15.
"""

import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import psycopg
from psycopg import errors, sql
from psycopg.pq import TransactionStatus
from psycopg.types import TypeInfo

from checklib import CheckFailed, env, expect, expect_true, run_checks

ROW = (
    42,
    9007199254740993,
    "héllo 'world' \\ \t",
    Decimal("12345.6789"),
    True,
    datetime(2024, 2, 29, 13, 45, 6, 123456),
    datetime(2024, 2, 29, 13, 45, 6, 123456, tzinfo=timezone.utc),
    date(2024, 2, 29),
    bytes([0, 1, 2, 39, 92, 255]),
    uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
    [1, None, 3],
    ["a", "b c", 'q"uote', ""],
)
COLS = "i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts"


def connect(**kw):
    e = env()
    return psycopg.connect(host=e["host"], port=e["port"], user=e["user"], dbname=e["dbname"], **kw)


def setup_table(conn):
    conn.execute("DROP TABLE IF EXISTS p3_all")
    conn.execute(
        """CREATE TABLE p3_all (
            id serial PRIMARY KEY,
            i integer, b bigint, t text UNIQUE, n numeric(12,4), flag boolean,
            ts timestamp, tstz timestamptz, d date, bin bytea, u uuid,
            ints integer[], texts text[])"""
    )
    conn.commit()


def check_connect():
    with connect() as conn:
        expect_true("server_version >= 150000", conn.info.server_version >= 150000, conn.info.server_version)
        expect("server_encoding", conn.info.parameter_status("server_encoding"), "UTF8")
        expect("client encoding", conn.info.encoding, "utf-8")
        expect_true("backend pid", conn.info.backend_pid > 0)
        row = conn.execute("SELECT %s + 1, current_user, current_database()", (41,)).fetchone()
        expect("SELECT $1 + 1, current_user, current_database()", row, (42, env()["user"], env()["dbname"]))
        expect("transaction status", conn.info.transaction_status, TransactionStatus.INTRANS)
        conn.rollback()
        expect("transaction status idle", conn.info.transaction_status, TransactionStatus.IDLE)


def crud(binary):
    with connect() as conn:
        setup_table(conn)
        cur = conn.cursor(binary=binary)
        rid = cur.execute(
            f"INSERT INTO p3_all ({COLS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            ROW,
        ).fetchone()[0]
        expect("INSERT ... RETURNING id", rid, 1)
        got = cur.execute(f"SELECT {COLS} FROM p3_all WHERE id = %s", (rid,)).fetchone()
        for k, g, w in zip(COLS.split(", "), got, ROW):
            expect(f"round trip {k}", g, w)
        nid = cur.execute(
            f"INSERT INTO p3_all ({COLS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (None,) * 12,
        ).fetchone()[0]
        expect("row of NULLs", cur.execute(f"SELECT {COLS} FROM p3_all WHERE id = %s", (nid,)).fetchone(), (None,) * 12)
        cur.execute(
            "UPDATE p3_all SET n = n + %s, flag = NOT flag, ints = array_append(ints, %s), d = %s WHERE id = %s",
            (Decimal("0.0001"), 7, date(2025, 1, 1), rid),
        )
        expect("UPDATE rowcount", cur.rowcount, 1)
        expect(
            "after UPDATE",
            cur.execute("SELECT n, flag, ints, d FROM p3_all WHERE id = %s", (rid,)).fetchone(),
            (Decimal("12345.6790"), False, [1, None, 3, 7], date(2025, 1, 1)),
        )
        expect(
            "id = ANY(%s) with a list",
            cur.execute("SELECT id FROM p3_all WHERE id = ANY(%s) ORDER BY id", ([rid, nid, 999],)).fetchall(),
            [(rid,), (nid,)],
        )
        expect(
            "%s = ANY(texts)",
            cur.execute("SELECT count(*) FROM p3_all WHERE %s = ANY(texts) AND b > %s", ("b c", 2**40)).fetchone()[0],
            1,
        )
        cur.execute("DELETE FROM p3_all WHERE id = %s", (nid,))
        expect("DELETE rowcount", cur.rowcount, 1)
        expect("count after DELETE", cur.execute("SELECT count(*) FROM p3_all").fetchone()[0], 1)
        conn.commit()


def check_crud_text():
    crud(binary=False)


def check_crud_binary():
    crud(binary=True)


def check_prepared_and_pipeline():
    with connect() as conn:
        setup_table(conn)
        cur = conn.cursor()
        cur.executemany("INSERT INTO p3_all (i, t) VALUES (%s, %s)", [(k, f"r{k}") for k in range(20)])
        expect("executemany rows", cur.execute("SELECT count(*) FROM p3_all").fetchone()[0], 20)
        for k in range(3):
            row = conn.execute("SELECT t FROM p3_all WHERE i = %s", (k,), prepare=True).fetchone()
            expect(f"prepare=True run {k}", row, (f"r{k}",))
        conn.prepare_threshold = 0
        for k in range(3, 6):
            expect(f"prepare_threshold=0 run {k}",
                   conn.execute("SELECT t, i * 2 FROM p3_all WHERE i = %s", (k,)).fetchone(), (f"r{k}", k * 2))
        conn.commit()
        with conn.pipeline():
            c1 = conn.execute("INSERT INTO p3_all (i, t) VALUES (%s, %s) RETURNING id", (100, "pipe1"))
            c2 = conn.execute("INSERT INTO p3_all (i, t) VALUES (%s, %s) RETURNING id", (101, "pipe2"))
            c3 = conn.execute("SELECT count(*) FROM p3_all WHERE i >= %s", (100,))
        expect("pipeline ids", (c1.fetchone()[0], c2.fetchone()[0]), (21, 22))
        expect("pipeline count", c3.fetchone()[0], 2)
        conn.commit()


def check_transactions():
    with connect() as conn, connect(autocommit=True) as other:
        setup_table(conn)
        conn.execute("INSERT INTO p3_all (i, t) VALUES (1, 'committed')")
        expect("uncommitted row invisible", other.execute("SELECT count(*) FROM p3_all").fetchone()[0], 0)
        conn.commit()
        expect("committed row visible", other.execute("SELECT count(*) FROM p3_all").fetchone()[0], 1)
        conn.execute("INSERT INTO p3_all (i, t) VALUES (2, 'rolled back')")
        conn.rollback()
        expect("after rollback", conn.execute("SELECT t FROM p3_all ORDER BY i").fetchall(), [("committed",)])
        conn.rollback()
        conn.autocommit = True
        try:
            with conn.transaction():
                conn.execute("INSERT INTO p3_all (i, t) VALUES (3, 'x')")
                raise ZeroDivisionError
        except ZeroDivisionError:
            pass
        expect("transaction() rolled back on exception",
               conn.execute("SELECT count(*) FROM p3_all WHERE i = 3").fetchone()[0], 0)
        with conn.transaction():
            conn.execute("INSERT INTO p3_all (i, t) VALUES (4, 'y')")
        expect("transaction() committed", other.execute("SELECT count(*) FROM p3_all WHERE i = 4").fetchone()[0], 1)
        conn.isolation_level = psycopg.IsolationLevel.SERIALIZABLE
        conn.read_only = True
        with conn.transaction():
            expect("isolation", conn.execute("SHOW transaction_isolation").fetchone()[0], "serializable")
            expect("read only", conn.execute("SHOW transaction_read_only").fetchone()[0], "on")


def check_nested_transactions():
    with connect(autocommit=True) as conn:
        setup_table(conn)
        with conn.transaction():
            conn.execute("INSERT INTO p3_all (i, t) VALUES (1, 'outer')")
            with conn.transaction():
                conn.execute("INSERT INTO p3_all (i, t) VALUES (2, 'inner kept')")
            try:
                with conn.transaction():
                    conn.execute("INSERT INTO p3_all (i, t) VALUES (3, 'inner rolled back')")
                    conn.execute("INSERT INTO p3_all (i, t) VALUES (4, 'outer')")
            except errors.UniqueViolation as e:
                expect("inner unique violation", e.sqlstate, "23505")
            with conn.transaction(savepoint_name="named_sp") as tx:
                conn.execute("INSERT INTO p3_all (i, t) VALUES (5, 'explicit rollback')")
                raise psycopg.Rollback(tx)
            expect("rows inside outer", conn.execute("SELECT i FROM p3_all ORDER BY i").fetchall(), [(1,), (2,)])
        expect("rows after commit", conn.execute("SELECT i FROM p3_all ORDER BY i").fetchall(), [(1,), (2,)])


def check_errors():
    with connect() as conn:
        setup_table(conn)
        conn.execute("INSERT INTO p3_all (i, t) VALUES (%s, %s)", (1, "dup"))
        try:
            conn.execute("INSERT INTO p3_all (i, t) VALUES (%s, %s)", (2, "dup"))
            raise CheckFailed("duplicate insert succeeded")
        except errors.UniqueViolation as e:
            expect("sqlstate", e.sqlstate, "23505")
            expect("diag.constraint_name", e.diag.constraint_name, "p3_all_t_key")
            expect("diag.table_name", e.diag.table_name, "p3_all")
            expect("diag.schema_name", e.diag.schema_name, "public")
            expect("diag.severity_nonlocalized", e.diag.severity_nonlocalized, "ERROR")
            expect_true("diag.message_detail mentions the key", "(t)=(dup)" in (e.diag.message_detail or ""),
                        e.diag.message_detail)
        expect("status inerror", conn.info.transaction_status, TransactionStatus.INERROR)
        try:
            conn.execute("SELECT 1")
            raise CheckFailed("statement in an aborted transaction succeeded")
        except errors.InFailedSqlTransaction as e:
            expect("aborted sqlstate", e.sqlstate, "25P02")
        conn.rollback()
        for q, params, cls in [
            ("SELECT 1 / %s", (0,), errors.DivisionByZero),
            ("SELECT * FROM p3_missing WHERE a = %s", (1,), errors.UndefinedTable),
            ("SELECT %s::integer", ("x",), errors.InvalidTextRepresentation),
            ("INSERT INTO p3_all (id) VALUES (%s)", (None,), errors.NotNullViolation),
            ("SELECT %s::smallint", (100000,), errors.NumericValueOutOfRange),
        ]:
            try:
                conn.execute(q, params)
                raise CheckFailed(f"{q} succeeded")
            except psycopg.Error as e:
                expect(f"{q} -> class", type(e), cls)
            conn.rollback()
        # the connection is still usable
        expect("usable after errors", conn.execute("SELECT 7").fetchone(), (7,))


def check_server_cursor():
    with connect() as conn:
        setup_table(conn)
        conn.cursor().executemany("INSERT INTO p3_all (i, t) VALUES (%s, %s)", [(k, f"r{k}") for k in range(1, 101)])
        conn.commit()
        with conn.cursor(name="p3_named") as cur:
            cur.itersize = 7
            cur.execute("SELECT i, t FROM p3_all WHERE i > %s ORDER BY i", (10,))
            expect("fetchone", cur.fetchone(), (11, "r11"))
            expect("fetchmany(2)", cur.fetchmany(2), [(12, "r12"), (13, "r13")])
            expect("description", [c.name for c in cur.description], ["i", "t"])
            rest = list(cur)
            expect("iterated rest", (len(rest), rest[-1]), (87, (100, "r100")))
        with conn.cursor(name="p3_scroll", scrollable=True) as cur:
            cur.execute("SELECT i FROM p3_all ORDER BY i")
            cur.scroll(49, mode="absolute")
            expect("scroll absolute", cur.fetchone(), (50,))
            cur.scroll(-10)
            expect("scroll relative", cur.fetchone(), (41,))
        with conn.cursor(name="p3_binary", binary=True) as cur:
            cur.execute("SELECT i, t FROM p3_all WHERE i = ANY(%s) ORDER BY i", ([5, 6],))
            expect("binary named cursor", cur.fetchall(), [(5, "r5"), (6, "r6")])
        conn.commit()
        with conn.cursor(name="p3_hold", withhold=True) as cur:
            cur.execute("SELECT i FROM p3_all ORDER BY i DESC")
            expect("withhold first", cur.fetchone(), (100,))
            conn.commit()
            expect("withhold after commit", cur.fetchmany(2), [(99,), (98,)])
        conn.commit()


def check_copy_text():
    with connect() as conn:
        setup_table(conn)
        with conn.cursor().copy("COPY p3_all (i, t, n, d, ints) FROM STDIN") as copy:
            copy.write_row((1, "one", Decimal("1.5"), date(2024, 1, 2), [1, 2]))
            copy.write_row((2, "two\ttab", None, date(2024, 1, 3), None))
            copy.write("3\tthree\t3.25\t2024-01-04\t{3}\n")
        with conn.cursor().copy("COPY p3_all (i, t) FROM STDIN WITH (FORMAT csv)") as copy:
            copy.write('4,"four, quoted"\n')
        rows = conn.execute("SELECT i, t, n, d, ints FROM p3_all ORDER BY i").fetchall()
        expect("rows after COPY FROM", rows, [
            (1, "one", Decimal("1.5000"), date(2024, 1, 2), [1, 2]),
            (2, "two\ttab", None, date(2024, 1, 3), None),
            (3, "three", Decimal("3.2500"), date(2024, 1, 4), [3]),
            (4, "four, quoted", None, None, None),
        ])
        cur = conn.cursor()
        with cur.copy("COPY (SELECT i, t, n FROM p3_all WHERE i <= 2 ORDER BY i) TO STDOUT") as copy:
            copy.set_types(["int4", "text", "numeric"])
            got = list(copy.rows())
        expect("COPY TO STDOUT rows", got, [(1, "one", Decimal("1.5000")), (2, "two\ttab", None)])
        with cur.copy("COPY p3_all (i, t) TO STDOUT WITH (FORMAT csv, HEADER)") as copy:
            text = b"".join(bytes(b) for b in copy).decode()
        expect("COPY csv header", text.splitlines()[0], "i,t")
        conn.commit()


def check_copy_binary():
    with connect() as conn:
        setup_table(conn)
        cur = conn.cursor()
        with cur.copy(f"COPY p3_all ({COLS}) FROM STDIN WITH (FORMAT binary)") as copy:
            copy.set_types(["int4", "int8", "text", "numeric", "bool", "timestamp", "timestamptz", "date",
                            "bytea", "uuid", "int4[]", "text[]"])
            copy.write_row(ROW)
        got = conn.execute(f"SELECT {COLS} FROM p3_all").fetchone()
        expect("row after binary COPY FROM", got, ROW)
        with cur.copy(f"COPY p3_all ({COLS}) TO STDOUT WITH (FORMAT binary)") as copy:
            copy.set_types(["int4", "int8", "text", "numeric", "bool", "timestamp", "timestamptz", "date",
                            "bytea", "uuid", "int4[]", "text[]"])
            rows = list(copy.rows())
        expect("binary COPY TO STDOUT", rows, [ROW])
        conn.commit()


def check_metadata():
    with connect() as conn:
        setup_table(conn)
        cur = conn.execute(f"SELECT {COLS} FROM p3_all")
        expect("description names/type OIDs", [(c.name, c.type_code) for c in cur.description], [
            ("i", 23), ("b", 20), ("t", 25), ("n", 1700), ("flag", 16), ("ts", 1114), ("tstz", 1184),
            ("d", 1082), ("bin", 17), ("u", 2950), ("ints", 1007), ("texts", 1009)])
        expect("numeric(12,4) precision/scale", (cur.description[3].precision, cur.description[3].scale), (12, 4))
        expect("description type_display", cur.description[10].type_display, "int4[]")
        for name, oid, array_oid in [("uuid", 2950, 2951), ("numeric", 1700, 1231), ("int4", 23, 1007)]:
            info = TypeInfo.fetch(conn, name)
            expect_true(f"TypeInfo.fetch({name!r}) found", info is not None)
            expect(f"TypeInfo {name} oids", (info.oid, info.array_oid), (oid, array_oid))
        conn.rollback()
        conn.execute("DROP TABLE IF EXISTS p3_meta")
        conn.execute("CREATE TABLE p3_meta (a int PRIMARY KEY, b text NOT NULL DEFAULT 'x')")
        ident = sql.SQL("SELECT {} FROM {} WHERE {} = %s").format(sql.Identifier("b"), sql.Identifier("p3_meta"),
                                                                   sql.Identifier("a"))
        conn.execute("INSERT INTO p3_meta (a) VALUES (1)")
        expect("sql.Identifier composed query", conn.execute(ident, (1,)).fetchone(), ("x",))
        rows = conn.execute(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull "
            "FROM pg_attribute a WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped "
            "ORDER BY a.attnum", ("p3_meta",)).fetchall()
        expect("pg_attribute introspection", rows, [("a", "integer", True), ("b", "text", True)])
        conn.commit()


if __name__ == "__main__":
    run_checks(
        "psycopg3",
        [check_connect, check_crud_text, check_crud_binary, check_prepared_and_pipeline, check_transactions,
         check_nested_transactions, check_errors, check_server_cursor, check_copy_text, check_copy_binary,
         check_metadata],
    )
