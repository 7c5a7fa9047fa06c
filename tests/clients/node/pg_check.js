// node-postgres (pg) against a PostgreSQL-compatible server, with its
// companion packages pg-cursor (portals read a few rows at a time) and
// pg-copy-streams (COPY). Connection: PGHOST/PGPORT/PGUSER/PGDATABASE
// (defaults 127.0.0.1, 5432, postgres, postgres; see checklib.js).
// Runs every check and exits 1 naming the failed ones (checklib.js). Run by
// crates/server/tests/drivers.rs; every check passes on PostgreSQL 15.
'use strict';

process.env.TZ = 'UTC'; // node-postgres reads timestamp/date in local time

const { Client, Pool, types } = require('pg');
const Cursor = require('pg-cursor');
const { from: copyFrom, to: copyTo } = require('pg-copy-streams');
const { pipeline } = require('stream/promises');
const { Readable, Writable } = require('stream');
const { env, CheckFailed, expect, expectTrue, expectError, runChecks } = require('./checklib');

const ROW = [
  42,
  '9007199254740993',
  "héllo 'world' \\ \t",
  '12345.6789',
  true,
  new Date('2024-02-29T13:45:06.123Z'),
  new Date('2024-02-29T13:45:06.123Z'),
  '2024-02-29',
  Buffer.from([0, 1, 2, 39, 92, 255]),
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  [1, null, 3],
  ['a', 'b c', 'q"uote', ''],
];
const COLS = ['i', 'b', 't', 'n', 'flag', 'ts', 'tstz', 'd', 'bin', 'u', 'ints', 'texts'];

async function connect() {
  const c = new Client(env());
  await c.connect();
  return c;
}

async function withClient(fn) {
  const c = await connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function setupTable(c) {
  await c.query('DROP TABLE IF EXISTS npg_all');
  await c.query(`CREATE TABLE npg_all (
      id serial PRIMARY KEY,
      i integer, b bigint, t text UNIQUE, n numeric(12,4), flag boolean,
      ts timestamp, tstz timestamptz, d date, bin bytea, u uuid,
      ints integer[], texts text[])`);
}

async function check_connect() {
  await withClient(async (c) => {
    const r = await c.query('SELECT $1::int + 1 AS v, current_user AS u, current_database() AS db', [41]);
    expect('SELECT $1::int + 1', r.rows[0], { v: 42, u: env().user, db: env().database });
    expect('rowCount', r.rowCount, 1);
    expect('command', r.command, 'SELECT');
    const v = await c.query('SHOW server_version_num');
    expectTrue('server_version_num >= 150000', parseInt(v.rows[0].server_version_num, 10) >= 150000, v.rows[0]);
    expectTrue('processID', c.processID > 0, c.processID);
    const enc = await c.query('SHOW server_encoding');
    expect('server_encoding', enc.rows[0].server_encoding, 'UTF8');
  });
}

async function check_crud_types() {
  await withClient(async (c) => {
    await setupTable(c);
    const ph = COLS.map((_, k) => `$${k + 1}`).join(', ');
    const ins = await c.query(`INSERT INTO npg_all (${COLS.join(', ')}) VALUES (${ph}) RETURNING id`, ROW);
    expect('INSERT ... RETURNING id', ins.rows[0].id, 1);
    const r = await c.query(`SELECT ${COLS.join(', ')}, d::text AS dtext FROM npg_all WHERE id = $1`, [1]);
    const row = r.rows[0];
    const want = { ...Object.fromEntries(COLS.map((k, j) => [k, ROW[j]])) };
    want.d = new Date('2024-02-29T00:00:00Z');
    for (const k of COLS) expect(`round trip ${k}`, row[k], want[k]);
    expect('date as text', row.dtext, '2024-02-29');
    const nul = await c.query(`INSERT INTO npg_all (${COLS.join(', ')}) VALUES (${ph}) RETURNING id`, COLS.map(() => null));
    const nid = nul.rows[0].id;
    const rn = await c.query({ text: `SELECT ${COLS.join(', ')} FROM npg_all WHERE id = $1`, values: [nid], rowMode: 'array' });
    expect('row of NULLs', rn.rows[0], COLS.map(() => null));
    const up = await c.query(
      'UPDATE npg_all SET n = n + $1, flag = NOT flag, ints = array_append(ints, $2), d = $3 WHERE id = $4',
      ['0.0001', 7, '2025-01-01', 1]);
    expect('UPDATE rowCount', up.rowCount, 1);
    const after = await c.query('SELECT n, flag, ints, d::text AS d FROM npg_all WHERE id = $1', [1]);
    expect('after UPDATE', after.rows[0], { n: '12345.6790', flag: false, ints: [1, null, 3, 7], d: '2025-01-01' });
    const any = await c.query('SELECT id FROM npg_all WHERE id = ANY($1) ORDER BY id', [[1, nid, 999]]);
    expect('id = ANY($1) with a JS array', any.rows.map((x) => x.id), [1, nid]);
    const anyt = await c.query('SELECT count(*)::int AS n FROM npg_all WHERE $1 = ANY(texts) AND b > $2', ['b c', 2 ** 40]);
    expect('$1 = ANY(texts)', anyt.rows[0].n, 1);
    const del = await c.query('DELETE FROM npg_all WHERE id = $1', [nid]);
    expect('DELETE rowCount', del.rowCount, 1);
    expect('count after DELETE', (await c.query('SELECT count(*) AS n FROM npg_all')).rows[0].n, '1');
  });
}

async function check_prepared() {
  await withClient(async (c) => {
    await setupTable(c);
    for (let k = 0; k < 10; k++) {
      await c.query({ name: 'npg_ins', text: 'INSERT INTO npg_all (i, t) VALUES ($1, $2)', values: [k, `r${k}`] });
    }
    expect('rows from a named prepared statement', (await c.query('SELECT count(*)::int AS n FROM npg_all')).rows[0].n, 10);
    for (const k of [3, 7]) {
      const r = await c.query({ name: 'npg_get', text: 'SELECT t, i * 2 AS dbl FROM npg_all WHERE i = $1', values: [k] });
      expect(`named statement npg_get(${k})`, r.rows, [{ t: `r${k}`, dbl: k * 2 }]);
    }
    await expectError('named statement with a bad parameter', '22P02', () =>
      c.query({ name: 'npg_get', text: 'SELECT t, i * 2 AS dbl FROM npg_all WHERE i = $1', values: ['x'] }));
    const r = await c.query({ name: 'npg_get', text: 'SELECT t, i * 2 AS dbl FROM npg_all WHERE i = $1', values: [9] });
    expect('named statement after an error', r.rows, [{ t: 'r9', dbl: 18 }]);
  });
}

async function check_transactions() {
  const pool = new Pool({ ...env(), max: 3 });
  try {
    const c = await pool.connect();
    await setupTable(c);
    await c.query('BEGIN');
    await c.query("INSERT INTO npg_all (i, t) VALUES (1, 'committed')");
    expect('uncommitted invisible to another session', (await pool.query('SELECT count(*)::int AS n FROM npg_all')).rows[0].n, 0);
    await c.query('COMMIT');
    expect('committed visible', (await pool.query('SELECT count(*)::int AS n FROM npg_all')).rows[0].n, 1);
    await c.query('BEGIN');
    await c.query("INSERT INTO npg_all (i, t) VALUES (2, 'rolled back')");
    await c.query('ROLLBACK');
    expect('after ROLLBACK', (await c.query('SELECT t FROM npg_all ORDER BY i')).rows, [{ t: 'committed' }]);
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    expect('isolation', (await c.query('SHOW transaction_isolation')).rows[0].transaction_isolation, 'repeatable read');
    await expectError('INSERT in a read-only transaction', '25006', () => c.query('INSERT INTO npg_all (i) VALUES (3)'));
    await c.query('ROLLBACK');
    c.release();
    const results = await Promise.all([...Array(12).keys()].map((k) => pool.query('SELECT $1::int * 2 AS v', [k])));
    expect('pool concurrent queries', results.map((r) => r.rows[0].v), [...Array(12).keys()].map((k) => k * 2));
  } finally {
    await pool.end();
  }
}

async function check_savepoints() {
  await withClient(async (c) => {
    await setupTable(c);
    await c.query('BEGIN');
    await c.query("INSERT INTO npg_all (i, t) VALUES (1, 'a')");
    await c.query('SAVEPOINT s1');
    await c.query("INSERT INTO npg_all (i, t) VALUES (2, 'b')");
    await c.query('SAVEPOINT s2');
    await c.query("INSERT INTO npg_all (i, t) VALUES (3, 'c')");
    await c.query('ROLLBACK TO SAVEPOINT s2');
    await c.query('RELEASE SAVEPOINT s1');
    await c.query('SAVEPOINT s3');
    await expectError('duplicate inside a savepoint', '23505', () => c.query("INSERT INTO npg_all (i, t) VALUES (4, 'a')"));
    await c.query('ROLLBACK TO SAVEPOINT s3');
    expect('rows after savepoints', (await c.query('SELECT i FROM npg_all ORDER BY i')).rows, [{ i: 1 }, { i: 2 }]);
    await c.query('COMMIT');
    expect('committed', (await c.query('SELECT count(*)::int AS n FROM npg_all')).rows[0].n, 2);
  });
}

async function check_errors() {
  await withClient(async (c) => {
    await setupTable(c);
    await c.query('INSERT INTO npg_all (i, t) VALUES ($1, $2)', [1, 'dup']);
    await c.query('BEGIN');
    const e = await expectError('unique violation', '23505', () => c.query('INSERT INTO npg_all (i, t) VALUES ($1, $2)', [2, 'dup']));
    expect('constraint', e.constraint, 'npg_all_t_key');
    expect('table', e.table, 'npg_all');
    expect('schema', e.schema, 'public');
    expect('severity', e.severity, 'ERROR');
    expect('detail', e.detail, 'Key (t)=(dup) already exists.');
    await expectError('statement in an aborted transaction', '25P02', () => c.query('SELECT 1'));
    await c.query('ROLLBACK');
    await expectError('division by zero', '22012', () => c.query('SELECT 1 / $1::int', [0]));
    await expectError('undefined table', '42P01', () => c.query('SELECT * FROM npg_missing'));
    await expectError('syntax error', '42601', () => c.query('SELEC 1'));
    const col = await expectError('undefined column', '42703', () => c.query('SELECT nope FROM npg_all'));
    expectTrue('undefined column has a position', col.position !== undefined, col.position);
    await expectError('not null', '23502', () => c.query('INSERT INTO npg_all (id) VALUES ($1)', [null]));
    await expectError('bad integer text', '22P02', () => c.query('SELECT $1::int', ['x']));
    expect('usable after errors', (await c.query('SELECT 7 AS v')).rows[0].v, 7);
  });
}

async function check_cursor() {
  await withClient(async (c) => {
    await setupTable(c);
    await c.query("INSERT INTO npg_all (i, t) SELECT g, 'r' || g FROM generate_series(1, 100) g");
    await c.query('BEGIN');
    const cur = c.query(new Cursor('SELECT i, t FROM npg_all WHERE i > $1 ORDER BY i', [10]));
    const first = await cur.read(5);
    expect('cursor.read(5)', first.map((r) => r.i), [11, 12, 13, 14, 15]);
    const second = await cur.read(3);
    expect('cursor.read(3)', second.map((r) => r.i), [16, 17, 18]);
    let rest = [];
    for (;;) {
      const rows = await cur.read(20);
      if (!rows.length) break;
      rest = rest.concat(rows);
    }
    expect('rest', [rest.length, rest[rest.length - 1]], [82, { i: 100, t: 'r100' }]);
    await cur.close();
    // SQL-level cursor
    await c.query('DECLARE npg_c CURSOR FOR SELECT i FROM npg_all ORDER BY i');
    expect('FETCH 3', (await c.query('FETCH 3 FROM npg_c')).rows, [{ i: 1 }, { i: 2 }, { i: 3 }]);
    await c.query('CLOSE npg_c');
    await c.query('COMMIT');
  });
}

async function check_copy() {
  await withClient(async (c) => {
    await setupTable(c);
    const ingest = c.query(copyFrom('COPY npg_all (i, t, n, d) FROM STDIN'));
    await pipeline(Readable.from(['1\tone\t1.5\t2024-01-02\n', '2\ttwo\\ttab\t\\N\t2024-01-03\n']), ingest);
    expect('COPY FROM rowCount', ingest.rowCount, 2);
    const csv = c.query(copyFrom('COPY npg_all (i, t) FROM STDIN WITH (FORMAT csv)'));
    await pipeline(Readable.from(['3,"three, quoted"\n']), csv);
    const r = await c.query('SELECT i, t, n, d::text AS d FROM npg_all ORDER BY i');
    expect('rows after COPY FROM', r.rows, [
      { i: 1, t: 'one', n: '1.5000', d: '2024-01-02' },
      { i: 2, t: 'two\ttab', n: null, d: '2024-01-03' },
      { i: 3, t: 'three, quoted', n: null, d: null },
    ]);
    const chunks = [];
    await pipeline(
      c.query(copyTo('COPY (SELECT i, t FROM npg_all WHERE i <= 2 ORDER BY i) TO STDOUT')),
      new Writable({ write(chunk, _enc, cb) { chunks.push(chunk); cb(); } }),
    );
    expect('COPY TO STDOUT', Buffer.concat(chunks).toString(), '1\tone\n2\ttwo\\ttab\n');
    const bad = c.query(copyFrom('COPY npg_all (i) FROM STDIN'));
    let err;
    try {
      await pipeline(Readable.from(['notanint\n']), bad);
    } catch (e) {
      err = e;
    }
    expect('bad COPY data SQLSTATE', err && err.code, '22P02');
    expect('usable after a failed COPY', (await c.query('SELECT 1 AS v')).rows[0].v, 1);
  });
}

async function check_metadata() {
  await withClient(async (c) => {
    await setupTable(c);
    const r = await c.query(`SELECT ${COLS.join(', ')} FROM npg_all`);
    expect('fields name/dataTypeID', r.fields.map((f) => [f.name, f.dataTypeID]), [
      ['i', 23], ['b', 20], ['t', 25], ['n', 1700], ['flag', 16], ['ts', 1114], ['tstz', 1184],
      ['d', 1082], ['bin', 17], ['u', 2950], ['ints', 1007], ['texts', 1009]]);
    const oid = (await c.query("SELECT 'npg_all'::regclass::oid AS oid")).rows[0].oid;
    expect('fields tableID', r.fields[0].tableID, oid);
    expect('fields columnID', r.fields.map((f) => f.columnID), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect('numeric(12,4) typmod', r.fields[3].dataTypeModifier, ((12 << 16) | 4) + 4);
    expect('fields of a computed column', (await c.query('SELECT 1 + 1 AS two')).fields.map((f) => [f.tableID, f.columnID]), [[0, 0]]);
    const multi = await c.query('SELECT 1 AS a; SELECT 2 AS b');
    expect('multi-statement simple query', multi.map((x) => x.rows[0]), [{ a: 1 }, { b: 2 }]);
    const parser = types.getTypeParser(20);
    types.setTypeParser(20, (v) => BigInt(v));
    try {
      const b = await c.query('SELECT 9007199254740993::bigint AS b');
      expect('custom int8 type parser', b.rows[0].b, 9007199254740993n);
    } finally {
      types.setTypeParser(20, parser);
    }
    const cols = await c.query(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_name = $1 ORDER BY ordinal_position LIMIT 3`, ['npg_all']);
    expect('information_schema.columns', cols.rows, [
      { column_name: 'id', data_type: 'integer', is_nullable: 'NO' },
      { column_name: 'i', data_type: 'integer', is_nullable: 'YES' },
      { column_name: 'b', data_type: 'bigint', is_nullable: 'YES' }]);
  });
}

runChecks('node-postgres', [
  check_connect, check_crud_types, check_prepared, check_transactions, check_savepoints, check_errors,
  check_cursor, check_copy, check_metadata,
]).catch((e) => {
  console.error(e);
  process.exit(2);
});
void CheckFailed;
