/*
** node_pg_client.js — node-postgres (npm `pg`, installed by scripts/clients)
** against `sluice serve`; driven by clients_node_test.py, which starts the
** server and passes its port. pg speaks the protocol in JavaScript (no
** libpq): simple queries for text without values, the extended protocol
** (Parse / Bind / Execute with $n) for queries with values and for named
** (prepared) statements.
**
**   node node_pg_client.js PORT simple|params
** Prints "ok" and exits 0 when every check holds; a failed check throws.
*/
'use strict';
const assert = require('assert');
const { Client } = require('pg');

const NUMS = "CREATE TABLE n (id BIGINT, x DOUBLE, s STRING) WITH ('connector'='datagen', " +
  "'number-of-rows'='5', 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='5', " +
  "'fields.s.length'='4')";

async function simple(c) {
  let r = await c.query(NUMS);
  assert.strictEqual(r.command, 'CREATE');
  r = await c.query('SELECT id, x, s FROM n');
  assert.deepStrictEqual(r.fields.map((f) => [f.name, f.dataTypeID]), [['id', 20], ['x', 701], ['s', 25]]);
  assert.strictEqual(r.rowCount, 5);
  // int8 arrives as a string in pg (no precision loss), float8 as a number.
  assert.deepStrictEqual(r.rows.map((row) => row.id).sort(), ['1', '2', '3', '4', '5']);
  for (const row of r.rows) {
    assert.strictEqual(typeof row.x, 'number');
    assert.strictEqual(row.s.length, 4);
  }
  // Several statements in one query: pg returns one result per statement.
  const rs = await c.query("SHOW TABLES; SELECT id FROM n WHERE id = 3");
  assert.ok(Array.isArray(rs) && rs.length === 2, 'two results');
  assert.deepStrictEqual(rs[1].rows, [{ id: '3' }]);
  // An error: a DatabaseError with the SQLSTATE and position (characters).
  const bad = "SELECT s, nöpe FROM n";
  await assert.rejects(c.query(bad), (e) => {
    assert.strictEqual(e.code, '42703');
    assert.strictEqual(e.severity, 'ERROR');
    assert.ok(bad.slice(Number(e.position) - 1).startsWith('nöpe'), 'position ' + e.position);
    return true;
  });
  r = await c.query('SELECT id FROM n');
  assert.strictEqual(r.rowCount, 5, 'the connection goes on after an error');
}

async function params(c) {
  await c.query(NUMS);
  let r = await c.query('SELECT id, id + $1 AS m, $2 AS label FROM n WHERE id > $3',
    [1000000000000, 'héllo', 2]);
  assert.deepStrictEqual(r.rows.map((row) => [row.id, row.m, row.label]).sort(),
    [['3', '1000000000003', 'héllo'], ['4', '1000000000004', 'héllo'], ['5', '1000000000005', 'héllo']]);
  // NULL and a value that looks like SQL are values.
  r = await c.query('SELECT id FROM n WHERE CAST(id AS STRING) = $1', ["1' OR '1'='1"]);
  assert.strictEqual(r.rowCount, 0);
  r = await c.query('SELECT id, $1 AS nothing FROM n WHERE id = 1', [null]);
  assert.deepStrictEqual(r.rows, [{ id: '1', nothing: null }]);
  // A named (prepared) statement, executed again with other values.
  for (let i = 1; i <= 5; i++) {
    r = await c.query({ name: 'by_id', text: 'SELECT id, s FROM n WHERE id = $1', values: [i] });
    assert.strictEqual(r.rowCount, 1);
    assert.strictEqual(r.rows[0].id, String(i));
  }
  // A parameter error: too few values.
  await assert.rejects(c.query('SELECT id FROM n WHERE id = $1 AND id < $2', [1]), (e) => {
    assert.ok(e.code === '08P01' || e.code === '42P02', 'code ' + e.code);
    return true;
  });
  r = await c.query('SELECT id FROM n WHERE id = $1', [4]);
  assert.deepStrictEqual(r.rows, [{ id: '4' }], 'the connection goes on after an error');
}

async function main() {
  const [port, which] = process.argv.slice(2);
  const c = new Client({ host: '127.0.0.1', port: Number(port), user: 'sluice', database: 'sluice',
    connectionTimeoutMillis: 10000, query_timeout: 60000 });
  await c.connect();
  try {
    await ({ simple, params })[which](c);
  } finally {
    await c.end();
  }
  console.log('ok');
}

main().catch((e) => { console.error(e); process.exit(1); });
