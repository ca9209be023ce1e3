/**
 * One MySQL schema per test run, so that a run never meets what an earlier run (or a developer's
 * work on another branch) left in the shared database: its tables, rows or recorded migrations.
 *   create <url>  creates `scrapegate_run_<pid>_<hex>` on url's server and prints its URL
 *   drop <url>    drops the schema a `create` printed (and nothing else: the name must match)
 */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

const RUN_SCHEMA = /^scrapegate_run_\d+_[0-9a-f]{8}$/;

async function onServer(url: URL, sql: string): Promise<void> {
  const server = new URL(url);
  server.pathname = '/';
  const conn = await mysql.createConnection(server.toString());
  try {
    await conn.query(sql);
  } finally {
    await conn.end();
  }
}

async function main(): Promise<void> {
  const [verb, raw] = process.argv.slice(2);
  if (!raw || (verb !== 'create' && verb !== 'drop')) throw new Error('usage: test-schema.ts create|drop <mysql-url>');
  const url = new URL(raw);
  if (verb === 'create') {
    const name = `scrapegate_run_${process.pid}_${randomBytes(4).toString('hex')}`;
    await onServer(url, `CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
    process.stdout.write(`${url.toString()}\n`);
    return;
  }
  const name = url.pathname.slice(1);
  if (!RUN_SCHEMA.test(name)) throw new Error(`not a run schema: ${name}`);
  await onServer(url, `DROP DATABASE IF EXISTS ${name}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`test-schema: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
