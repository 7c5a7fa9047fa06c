// The small harness the Node checks share (the same shape as
// tests/clients/python/checklib.py). Connection parameters come from
// libpq's environment variables PGHOST/PGPORT/PGUSER/PGDATABASE, which
// node-postgres reads itself; `env()` gives them for Knex.
//
// `runChecks` runs every check in order (or those named on the command
// line), prints `ok <name>` or `FAIL <name>: <why>` for each and exits 1
// naming the failed ones. A check stops at its first failed assertion.
'use strict';

const util = require('util');

function env() {
  return {
    host: process.env.PGHOST || '127.0.0.1',
    port: parseInt(process.env.PGPORT || '5432', 10),
    user: process.env.PGUSER || 'postgres',
    database: process.env.PGDATABASE || 'postgres',
  };
}

class CheckFailed extends Error {}

function show(v) {
  return util.inspect(v, { depth: 5, breakLength: Infinity, compact: true });
}

function expect(what, got, want) {
  if (!util.isDeepStrictEqual(got, want)) {
    throw new CheckFailed(`${what}: got ${show(got)}, want ${show(want)}`);
  }
  console.log(`    ${what}: ${show(got)}`);
}

function expectTrue(what, cond, detail) {
  if (!cond) throw new CheckFailed(`${what}: false ${detail === undefined ? '' : show(detail)}`);
  console.log(`    ${what}`);
}

// Run `fn`, which must reject with a database error of SQLSTATE `code`;
// returns the error.
async function expectError(what, code, fn) {
  let err;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  if (!err) throw new CheckFailed(`${what}: succeeded, want SQLSTATE ${code}`);
  if (err instanceof CheckFailed) throw err;
  if (err.code !== code) {
    throw new CheckFailed(`${what}: got SQLSTATE ${err.code} (${err.message}), want ${code}`);
  }
  console.log(`    ${what}: SQLSTATE ${err.code}`);
  return err;
}

async function runChecks(driver, checks) {
  const names = process.argv.slice(2);
  const failed = [];
  for (const fn of checks) {
    const name = fn.name.replace(/^check_?/, '');
    if (names.length && !names.includes(name)) continue;
    console.log(`-- ${driver}: ${name}`);
    const t0 = Date.now();
    try {
      await fn();
      console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(2)}s)`);
    } catch (e) {
      let detail = e instanceof CheckFailed ? e.message : `${e.name}: ${e.message}`;
      if (e.code) detail += ` [SQLSTATE ${e.code}]`;
      if (!(e instanceof CheckFailed) && e.stack) {
        const here = e.stack.split('\n').find((l) => l.includes('_check.js'));
        if (here) detail += ` (${here.trim()})`;
      }
      console.log(`FAIL ${name}: ${detail}`);
      failed.push(name);
    }
  }
  if (failed.length) {
    console.log(`${driver}: ${failed.length} check(s) failed: ${failed.join(', ')}`);
    process.exit(1);
  }
  console.log(`${driver}: all checks passed`);
  process.exit(0);
}

module.exports = { env, CheckFailed, expect, expectTrue, expectError, runChecks };
