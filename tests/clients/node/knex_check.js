// Knex (on node-postgres) against a PostgreSQL-compatible server:
// migrate.latest over ./migrations (two tables with a foreign key, then an
// ALTER TABLE), the query builder, transactions (nested ones are
// savepoints), schema introspection, then migrate.rollback back to zero.
// Connection: PGHOST/PGPORT/PGUSER/PGDATABASE. Runs every check and exits 1
// naming the failed ones (checklib.js). Run by crates/server/tests/drivers.rs;
// every check passes on PostgreSQL 15.
'use strict';

process.env.TZ = 'UTC';

const path = require('path');
const knexFactory = require('knex');
const { env, expect, expectTrue, expectError, runChecks } = require('./checklib');

const migrations = { directory: path.join(__dirname, 'migrations'), loadExtensions: ['.js'] };

function makeKnex() {
  return knexFactory({ client: 'pg', connection: env(), pool: { min: 0, max: 3 } });
}

async function withKnex(fn) {
  const knex = makeKnex();
  try {
    return await fn(knex);
  } finally {
    await knex.destroy();
  }
}

async function check_clean_start() {
  // Leftovers of an earlier run against the same database.
  await withKnex(async (knex) => {
    await knex.schema.dropTableIfExists('knx_books');
    await knex.schema.dropTableIfExists('knx_authors');
    await knex.schema.dropTableIfExists('knex_migrations');
    await knex.schema.dropTableIfExists('knex_migrations_lock');
    expect('knx_authors gone', await knex.schema.hasTable('knx_authors'), false);
  });
}

async function check_migrate_latest() {
  await withKnex(async (knex) => {
    const [batch, log] = await knex.migrate.latest(migrations);
    expect('migrate.latest batch', batch, 1);
    expect('migrate.latest ran', log, ['20240101000000_authors_books.js', '20240102000000_books_isbn.js']);
    expect('currentVersion', await knex.migrate.currentVersion(migrations), '20240102000000');
    expect('hasTable knx_authors', await knex.schema.hasTable('knx_authors'), true);
    expect('hasTable knx_books', await knex.schema.hasTable('knx_books'), true);
    expect('hasColumn knx_books.isbn', await knex.schema.hasColumn('knx_books', 'isbn'), true);
    const info = await knex('knx_books').columnInfo();
    expect('columnInfo author_id', info.author_id, { type: 'integer', maxLength: null, nullable: false, defaultValue: null });
    expect('columnInfo title', info.title, { type: 'character varying', maxLength: 255, nullable: false, defaultValue: null });
    expect('columnInfo tags type', info.tags.type, 'ARRAY');
    const [list] = await knex.migrate.list(migrations);
    expect('migrate.list completed', list.map((m) => m.name), ['20240101000000_authors_books.js', '20240102000000_books_isbn.js']);
    const rows = await knex('knex_migrations').select('name', 'batch').orderBy('id');
    expect('knex_migrations rows', rows.map((r) => [r.name, r.batch]),
      [['20240101000000_authors_books.js', 1], ['20240102000000_books_isbn.js', 1]]);
    const fk = await knex.raw(
      `SELECT conname, confrelid::regclass::text AS parent, confdeltype
       FROM pg_constraint WHERE conrelid = 'knx_books'::regclass AND contype = 'f'`);
    expect('foreign key in pg_constraint', fk.rows, [{ conname: 'knx_books_author_id_foreign', parent: 'knx_authors', confdeltype: 'c' }]);
    const idx = await knex.raw("SELECT indexname FROM pg_indexes WHERE tablename = 'knx_books' ORDER BY indexname");
    expect('indexes', idx.rows.map((r) => r.indexname), ['knx_books_author_title', 'knx_books_pkey']);
    const again = await knex.migrate.latest(migrations);
    expect('migrate.latest again does nothing', again, [1, []]);
    // information_schema.columns.column_default of `boolean DEFAULT '1'`
    expect('columnInfo in_print', info.in_print, { type: 'boolean', maxLength: null, nullable: false, defaultValue: 'true' });
  });
}

async function check_query_builder() {
  await withKnex(async (knex) => {
    const [a] = await knex('knx_authors').insert({ name: 'Ursula' }).returning(['id', 'name', 'created_at']);
    expect('insert returning', [a.id, a.name], [1, 'Ursula']);
    expectTrue('created_at default', a.created_at instanceof Date && Math.abs(Date.now() - a.created_at) < 600000, a.created_at);
    const books = await knex('knx_books').insert([
      { author_id: a.id, title: 'A Wizard of Earthsea', price: '7.99', tags: ['fantasy', 'classic'], published: '1968-11-01' },
      { author_id: a.id, title: 'The Dispossessed', price: '9.50', in_print: false, isbn: '978-0061054884' },
    ]).returning('id');
    expect('batch insert returning', books.map((b) => b.id), [1, 2]);
    const got = await knex('knx_books as b').join('knx_authors as a', 'a.id', 'b.author_id')
      .select('a.name', 'b.title', 'b.price', 'b.in_print', 'b.tags').where('b.price', '>', 5).orderBy('b.id');
    expect('join select', got, [
      { name: 'Ursula', title: 'A Wizard of Earthsea', price: '7.99', in_print: true, tags: ['fantasy', 'classic'] },
      { name: 'Ursula', title: 'The Dispossessed', price: '9.50', in_print: false, tags: null }]);
    expect('whereIn', (await knex('knx_books').whereIn('id', [2, 3]).pluck('title')), ['The Dispossessed']);
    expect('count', await knex('knx_books').count('* as n').first(), { n: '2' });
    expect('update', await knex('knx_books').where({ id: 1 }).update({ price: knex.raw('price + ?', ['1.01']) }), 1);
    expect('after update', (await knex('knx_books').where({ id: 1 }).first('price')).price, '9.00');
    const e = await expectError('foreign key violation', '23503', () => knex('knx_books').insert({ author_id: 999, title: 'x' }));
    expect('constraint', e.constraint, 'knx_books_author_id_foreign');
    await expectError('unique violation', '23505', () => knex('knx_authors').insert({ name: 'Ursula' }));
    expect('delete cascades', await knex('knx_authors').where({ id: a.id }).del(), 1);
    expect('books after cascade', await knex('knx_books').count('* as n').first(), { n: '0' });
  });
}

async function check_transactions() {
  await withKnex(async (knex) => {
    await knex.transaction(async (trx) => {
      const [a] = await trx('knx_authors').insert({ name: 'Le Guin' }).returning('id');
      await trx('knx_books').insert({ author_id: a.id, title: 'kept' });
      try {
        await trx.transaction(async (inner) => {
          await inner('knx_books').insert({ author_id: a.id, title: 'inner rolled back' });
          await inner('knx_books').insert({ author_id: 12345, title: 'fk violation' });
        });
      } catch (e) {
        expect('inner transaction error', e.code, '23503');
      }
      await trx.transaction(async (inner) => {
        await inner('knx_books').insert({ author_id: a.id, title: 'inner kept' });
      });
    });
    expect('after nested transactions', await knex('knx_books').orderBy('id').pluck('title'), ['kept', 'inner kept']);
    try {
      await knex.transaction(async (trx) => {
        await trx('knx_authors').insert({ name: 'rolled back' });
        throw new Error('rollback please');
      });
    } catch (e) {
      expect('transaction rejected with the thrown error', e.message, 'rollback please');
    }
    expect('rolled back author absent', await knex('knx_authors').where({ name: 'rolled back' }).pluck('id'), []);
  });
}

async function check_migrate_rollback() {
  await withKnex(async (knex) => {
    const [batch, log] = await knex.migrate.rollback(migrations, true);
    expect('rollback batch', batch, 1);
    expect('rolled back', log, ['20240102000000_books_isbn.js', '20240101000000_authors_books.js']);
    expect('knx_books gone', await knex.schema.hasTable('knx_books'), false);
    expect('knx_authors gone', await knex.schema.hasTable('knx_authors'), false);
    expect('currentVersion', await knex.migrate.currentVersion(migrations), 'none');
    expect('knex_migrations empty', await knex('knex_migrations').count('* as n').first(), { n: '0' });
    const [batch2] = await knex.migrate.latest(migrations);
    expect('migrate.latest after rollback', batch2, 1);
    await knex.migrate.down(migrations);
    expect('migrate.down removed isbn', await knex.schema.hasColumn('knx_books', 'isbn'), false);
    await knex.migrate.rollback(migrations, true);
    expect('back to zero', await knex.schema.hasTable('knx_authors'), false);
  });
}

runChecks('knex', [check_clean_start, check_migrate_latest, check_query_builder, check_transactions, check_migrate_rollback])
  .catch((e) => {
    console.error(e);
    process.exit(2);
  });
