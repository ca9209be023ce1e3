import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

export interface TestDatabase {
  name: string;
  /** A fresh database URL for one suite (SQLite: a new file; MySQL: the shared test database). */
  freshUrl(): string;
  /**
   * A database of its own, for a suite that checks or moves the books of the whole database
   * (`billing verify`, the ledger's upkeep): SQLite a new file, MySQL a new schema on the test
   * server, dropped by `drop`.
   */
  isolated(): Promise<{ url: string; drop: () => Promise<void> }>;
}

const sqliteUrl = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'scrapegate-')), 'test.sqlite')}`;

const sqlite: TestDatabase = {
  name: 'sqlite',
  freshUrl: sqliteUrl,
  isolated: async () => ({ url: sqliteUrl(), drop: async () => undefined }),
};

function mysqlDatabase(url: string): TestDatabase {
  return {
    name: 'mysql',
    freshUrl: () => url,
    isolated: async () => {
      const name = `scrapegate_${process.pid}_${randomBytes(4).toString('hex')}`;
      const server = new URL(url);
      server.pathname = '/';
      const admin = await mysql.createConnection(server.toString());
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const own = new URL(url);
      own.pathname = `/${name}`;
      return {
        url: own.toString(),
        drop: async () => {
          const conn = await mysql.createConnection(server.toString());
          try {
            await conn.query(`DROP DATABASE IF EXISTS ${name}`);
          } finally {
            await conn.end();
          }
        },
      };
    },
  };
}

/** SQLite always; MySQL too when TEST_MYSQL_URL names one (as .ci/run does). */
export function testDatabases(): TestDatabase[] {
  const mysqlUrl = process.env.TEST_MYSQL_URL;
  const out = [sqlite];
  if (mysqlUrl) out.push(mysqlDatabase(mysqlUrl));
  return out;
}
