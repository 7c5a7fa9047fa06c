#!/usr/bin/env python3
"""asyncpg against a PostgreSQL-compatible server. asyncpg always uses the
extended protocol with binary formats, prepares every statement, and
introspects types it does not know through pg_type queries.

Connection: libpq's PGHOST/PGPORT/PGUSER/PGDATABASE. Runs every check and
exits 1 naming the failed ones (see checklib.py). Run by
crates/server/tests/drivers.rs; every check passes on PostgreSQL 15.
"""

import asyncio
import io
import json
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import asyncpg

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
COLS = ["i", "b", "t", "n", "flag", "ts", "tstz", "d", "bin", "u", "ints", "texts"]
COLS_SQL = ", ".join(COLS)


async def connect():
    e = env()
    return await asyncpg.connect(host=e["host"], port=e["port"], user=e["user"], database=e["dbname"])


async def setup_table(conn):
    await conn.execute("DROP TABLE IF EXISTS apg_all")
    await conn.execute(
        """CREATE TABLE apg_all (
            id serial PRIMARY KEY,
            i integer, b bigint, t text UNIQUE, n numeric(12,4), flag boolean,
            ts timestamp, tstz timestamptz, d date, bin bytea, u uuid,
            ints integer[], texts text[])"""
    )


def sync(coro_fn):
    """Make an async check a plain function for checklib."""
    def run():
        asyncio.run(coro_fn())
    run.__name__ = coro_fn.__name__
    return run


@sync
async def check_connect():
    conn = await connect()
    try:
        v = conn.get_server_version()
        expect_true("server version >= 15", v.major >= 15, v)
        expect("server_encoding", conn.get_settings().server_encoding, "UTF8")
        expect("client_encoding", conn.get_settings().client_encoding, "UTF8")
        expect("fetchval $1 + 1", await conn.fetchval("SELECT $1::int + 1", 41), 42)
        expect("current_user", await conn.fetchval("SELECT current_user"), env()["user"])
        expect_true("backend pid", conn.get_server_pid() > 0)
    finally:
        await conn.close()
    expect("is_closed", conn.is_closed(), True)


@sync
async def check_crud_types():
    conn = await connect()
    try:
        await setup_table(conn)
        placeholders = ", ".join(f"${k}" for k in range(1, 13))
        rid = await conn.fetchval(f"INSERT INTO apg_all ({COLS_SQL}) VALUES ({placeholders}) RETURNING id", *ROW)
        expect("INSERT ... RETURNING id", rid, 1)
        rec = await conn.fetchrow(f"SELECT {COLS_SQL} FROM apg_all WHERE id = $1", rid)
        for k, w in zip(COLS, ROW):
            expect(f"round trip {k}", rec[k], w)
        nid = await conn.fetchval(
            f"INSERT INTO apg_all ({COLS_SQL}) VALUES ({placeholders}) RETURNING id", *([None] * 12))
        rec = await conn.fetchrow(f"SELECT {COLS_SQL} FROM apg_all WHERE id = $1", nid)
        expect("row of NULLs", tuple(rec.values()), (None,) * 12)
        status = await conn.execute(
            "UPDATE apg_all SET n = n + $1, flag = NOT flag, ints = array_append(ints, $2), d = $3 WHERE id = $4",
            Decimal("0.0001"), 7, date(2025, 1, 1), rid)
        expect("UPDATE status", status, "UPDATE 1")
        rec = await conn.fetchrow("SELECT n, flag, ints, d FROM apg_all WHERE id = $1", rid)
        expect("after UPDATE", tuple(rec.values()), (Decimal("12345.6790"), False, [1, None, 3, 7], date(2025, 1, 1)))
        rows = await conn.fetch("SELECT id FROM apg_all WHERE id = ANY($1::int[]) ORDER BY id", [rid, nid, 999])
        expect("id = ANY($1::int[])", [r["id"] for r in rows], [rid, nid])
        rows = await conn.fetch("SELECT id FROM apg_all WHERE id = ANY($1) ORDER BY id", [rid, nid, 999])
        expect("id = ANY($1) (type inferred)", [r["id"] for r in rows], [rid, nid])
        expect("$1 = ANY(texts)",
               await conn.fetchval("SELECT count(*) FROM apg_all WHERE $1 = ANY(texts) AND b > $2", "b c", 2**40), 1)
        expect("DELETE status", await conn.execute("DELETE FROM apg_all WHERE id = $1", nid), "DELETE 1")
        expect("count after DELETE", await conn.fetchval("SELECT count(*) FROM apg_all"), 1)
    finally:
        await conn.close()


@sync
async def check_prepared():
    conn = await connect()
    try:
        await setup_table(conn)
        await conn.executemany("INSERT INTO apg_all (i, t) VALUES ($1, $2)", [(k, f"r{k}") for k in range(20)])
        expect("executemany rows", await conn.fetchval("SELECT count(*) FROM apg_all"), 20)
        stmt = await conn.prepare("SELECT i, t, n FROM apg_all WHERE i >= $1 AND t <> $2 ORDER BY i")
        expect("get_parameters", [t.name for t in stmt.get_parameters()], ["int4", "text"])
        expect("get_attributes", [(a.name, a.type.name) for a in stmt.get_attributes()],
               [("i", "int4"), ("t", "text"), ("n", "numeric")])
        rows = await stmt.fetch(17, "r18")
        expect("prepared fetch", [tuple(r.values()) for r in rows], [(17, "r17", None), (19, "r19", None)])
        expect("prepared fetchval", await stmt.fetchval(19, ""), 19)
        expect("prepared fetchrow", tuple((await stmt.fetchrow(5, "")).values()), (5, "r5", None))
        ins = await conn.prepare("INSERT INTO apg_all (i, t) VALUES ($1, $2)")
        await ins.executemany([(100, "a"), (101, "b")])
        expect("prepared executemany", await conn.fetchval("SELECT count(*) FROM apg_all WHERE i >= 100"), 2)
        expect("explain", isinstance(await stmt.explain(1, "x"), list), True)
    finally:
        await conn.close()


@sync
async def check_transactions():
    conn = await connect()
    other = await connect()
    try:
        await setup_table(conn)
        tr = conn.transaction()
        await tr.start()
        await conn.execute("INSERT INTO apg_all (i, t) VALUES (1, 'committed')")
        expect("uncommitted invisible", await other.fetchval("SELECT count(*) FROM apg_all"), 0)
        expect("is_in_transaction", conn.is_in_transaction(), True)
        await tr.commit()
        expect("committed visible", await other.fetchval("SELECT count(*) FROM apg_all"), 1)
        try:
            async with conn.transaction():
                await conn.execute("INSERT INTO apg_all (i, t) VALUES (2, 'rolled back')")
                raise ZeroDivisionError
        except ZeroDivisionError:
            pass
        expect("after rollback", [r["t"] for r in await conn.fetch("SELECT t FROM apg_all ORDER BY i")], ["committed"])
        async with conn.transaction(isolation="serializable", readonly=True):
            expect("isolation", await conn.fetchval("SHOW transaction_isolation"), "serializable")
            try:
                await conn.execute("INSERT INTO apg_all (i) VALUES (3)")
                raise CheckFailed("insert in read-only transaction succeeded")
            except asyncpg.ReadOnlySQLTransactionError as e:
                expect("read-only sqlstate", e.sqlstate, "25006")
    finally:
        await conn.close()
        await other.close()


@sync
async def check_nested_transactions():
    conn = await connect()
    try:
        await setup_table(conn)
        async with conn.transaction():
            await conn.execute("INSERT INTO apg_all (i, t) VALUES (1, 'outer')")
            async with conn.transaction():
                await conn.execute("INSERT INTO apg_all (i, t) VALUES (2, 'inner kept')")
            try:
                async with conn.transaction():
                    await conn.execute("INSERT INTO apg_all (i, t) VALUES (3, 'inner')")
                    await conn.execute("INSERT INTO apg_all (i, t) VALUES (4, 'outer')")
                raise CheckFailed("duplicate insert succeeded")
            except asyncpg.UniqueViolationError as e:
                expect("inner unique violation", e.sqlstate, "23505")
            sp = conn.transaction()
            await sp.start()
            await conn.execute("INSERT INTO apg_all (i, t) VALUES (5, 'x')")
            await sp.rollback()
            expect("rows inside outer", [r["i"] for r in await conn.fetch("SELECT i FROM apg_all ORDER BY i")], [1, 2])
        expect("rows after commit", [r["i"] for r in await conn.fetch("SELECT i FROM apg_all ORDER BY i")], [1, 2])
    finally:
        await conn.close()


@sync
async def check_errors():
    conn = await connect()
    try:
        await setup_table(conn)
        await conn.execute("INSERT INTO apg_all (i, t) VALUES ($1, $2)", 1, "dup")
        try:
            await conn.execute("INSERT INTO apg_all (i, t) VALUES ($1, $2)", 2, "dup")
            raise CheckFailed("duplicate insert succeeded")
        except asyncpg.UniqueViolationError as e:
            expect("sqlstate", e.sqlstate, "23505")
            expect("constraint_name", e.constraint_name, "apg_all_t_key")
            expect("table_name", e.table_name, "apg_all")
            expect("schema_name", e.schema_name, "public")
            expect("detail", e.detail, "Key (t)=(dup) already exists.")
        for q, args, cls, code in [
            ("SELECT 1 / $1::int", (0,), asyncpg.DivisionByZeroError, "22012"),
            ("SELECT * FROM apg_missing", (), asyncpg.UndefinedTableError, "42P01"),
            ("SELEC 1", (), asyncpg.PostgresSyntaxError, "42601"),
            ("SELECT 'x'::integer", (), asyncpg.InvalidTextRepresentationError, "22P02"),
            ("INSERT INTO apg_all (id) VALUES ($1)", (None,), asyncpg.NotNullViolationError, "23502"),
        ]:
            try:
                await conn.execute(q, *args)
                raise CheckFailed(f"{q} succeeded")
            except asyncpg.PostgresError as e:
                expect(f"{q} -> class", type(e), cls)
                expect(f"{q} -> sqlstate", e.sqlstate, code)
        try:
            await conn.execute("INSERT INTO apg_all (i) VALUES ($1)", "not an int")
            raise CheckFailed("text for an int parameter accepted")
        except asyncpg.DataError:
            pass
        tr = conn.transaction()
        await tr.start()
        try:
            await conn.execute("SELECT 1/0")
            raise CheckFailed("SELECT 1/0 succeeded")
        except asyncpg.DivisionByZeroError:
            pass
        try:
            await conn.fetchval("SELECT 1")
            raise CheckFailed("statement in an aborted transaction succeeded")
        except asyncpg.InFailedSQLTransactionError as e:
            expect("aborted transaction sqlstate", e.sqlstate, "25P02")
        await tr.rollback()
        expect("usable after rollback", await conn.fetchval("SELECT 7"), 7)
    finally:
        await conn.close()


@sync
async def check_cursor():
    conn = await connect()
    try:
        await setup_table(conn)
        await conn.executemany("INSERT INTO apg_all (i, t) VALUES ($1, $2)", [(k, f"r{k}") for k in range(1, 101)])
        async with conn.transaction():
            got = [r["i"] async for r in conn.cursor("SELECT i FROM apg_all WHERE i > $1 ORDER BY i", 10, prefetch=7)]
            expect("iterated cursor", (len(got), got[0], got[-1]), (90, 11, 100))
            cur = await conn.cursor("SELECT i, t FROM apg_all ORDER BY i")
            expect("cursor.fetchrow", tuple((await cur.fetchrow()).values()), (1, "r1"))
            expect("cursor.fetch(3)", [r["i"] for r in await cur.fetch(3)], [2, 3, 4])
            expect("cursor.forward(10)", await cur.forward(10), 10)
            expect("after forward", (await cur.fetchrow())["i"], 15)
            stmt = await conn.prepare("SELECT i FROM apg_all WHERE i % $1 = 0 ORDER BY i")
            cur2 = await stmt.cursor(25)
            expect("prepared statement cursor", [r["i"] for r in await cur2.fetch(10)], [25, 50, 75, 100])
        try:
            await conn.cursor("SELECT 1")
            raise CheckFailed("cursor outside a transaction was allowed")
        except asyncpg.NoActiveSQLTransactionError:
            pass
    finally:
        await conn.close()


@sync
async def check_copy_text():
    conn = await connect()
    try:
        await setup_table(conn)
        src = io.BytesIO(b"1\tone\t1.5\n2\ttwo\\ttab\t\\N\n")
        status = await conn.copy_to_table("apg_all", source=src, columns=["i", "t", "n"])
        expect("copy_to_table (text) status", status, "COPY 2")
        status = await conn.copy_to_table("apg_all", source=io.BytesIO(b'3,"three, q",3.25\n'),
                                          columns=["i", "t", "n"], format="csv")
        expect("copy_to_table (csv) status", status, "COPY 1")
        rows = await conn.fetch("SELECT i, t, n FROM apg_all ORDER BY i")
        expect("rows after COPY", [tuple(r.values()) for r in rows],
               [(1, "one", Decimal("1.5000")), (2, "two\ttab", None), (3, "three, q", Decimal("3.2500"))])
        out = io.BytesIO()
        await conn.copy_from_query("SELECT i, t FROM apg_all WHERE i <= $1 ORDER BY i", 2, output=out)
        expect("copy_from_query", out.getvalue(), b"1\tone\n2\ttwo\\ttab\n")
        out = io.BytesIO()
        await conn.copy_from_table("apg_all", columns=["i", "t"], output=out, format="csv", header=True)
        expect("copy_from_table csv", out.getvalue().decode().splitlines()[0:2], ["i,t", "1,one"])
    finally:
        await conn.close()


@sync
async def check_copy_records_binary():
    conn = await connect()
    try:
        await setup_table(conn)
        status = await conn.copy_records_to_table("apg_all", records=[ROW, (7,) + (None,) * 11], columns=COLS)
        expect("copy_records_to_table status", status, "COPY 2")
        rec = await conn.fetchrow(f"SELECT {COLS_SQL} FROM apg_all WHERE i = 42")
        expect("row after binary COPY", tuple(rec.values()), ROW)
    finally:
        await conn.close()


@sync
async def check_pool():
    e = env()
    pool = await asyncpg.create_pool(host=e["host"], port=e["port"], user=e["user"], database=e["dbname"],
                                     min_size=2, max_size=4)
    try:
        results = await asyncio.gather(*(pool.fetchval("SELECT $1::int * 2", k) for k in range(20)))
        expect("pool concurrent fetchval", results, [k * 2 for k in range(20)])
        async with pool.acquire() as c:
            expect("acquired connection", await c.fetchval("SELECT 'pooled'"), "pooled")
        expect("pool size within bounds", 2 <= pool.get_size() <= 4, True)
    finally:
        await pool.close()


@sync
async def check_introspection():
    """asyncpg introspects types it has no codec for (queries pg_type and
    friends): json/jsonb codecs via set_type_codec, arrays of them."""
    conn = await connect()
    try:
        await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
        await conn.set_type_codec("json", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
        expect("jsonb codec round trip", await conn.fetchval("SELECT $1::jsonb", {"a": [1, "x"]}), {"a": [1, "x"]})
        expect("json codec round trip", await conn.fetchval("SELECT $1::json", [1, 2]), [1, 2])
        expect("jsonb[]", await conn.fetchval("SELECT ARRAY['{\"k\": 1}'::jsonb]"), [{"k": 1}])
        expect("oid/regclass", await conn.fetchval("SELECT 'pg_class'::regclass::oid"), 1259)
        types = await conn.fetch("SELECT typname FROM pg_type WHERE oid = ANY($1::oid[]) ORDER BY oid", [16, 25, 2950])
        expect("pg_type by oid array", [r["typname"] for r in types], ["bool", "text", "uuid"])
        await setup_table(conn)
        stmt = await conn.prepare(f"SELECT {COLS_SQL} FROM apg_all")
        expect("attribute types", [a.type.name for a in stmt.get_attributes()],
               ["int4", "int8", "text", "numeric", "bool", "timestamp", "timestamptz", "date", "bytea", "uuid",
                "int4[]", "text[]"])
    finally:
        await conn.close()


if __name__ == "__main__":
    run_checks(
        "asyncpg",
        [check_connect, check_crud_types, check_prepared, check_transactions, check_nested_transactions,
         check_errors, check_cursor, check_copy_text, check_copy_records_binary, check_pool, check_introspection],
    )
