import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { migrationSource } from './migrations/index.js';

export type Dialect = 'sqlite' | 'mysql';

export interface Database {
  knex: Knex;
  dialect: Dialect;
  close(): Promise<void>;
}

interface SqliteConnection {
  pragma(s: string): unknown;
  prepare(sql: string): unknown;
}

/** Statements kept per connection; the hot path's SQL text is constant, so a few dozen suffice. */
const STATEMENT_CACHE_SIZE = 64;

/**
 * knex's better-sqlite3 dialect prepares every query again (a sixth of a plain request's CPU
 * under load): the connection keeps the statements it prepared, by their SQL text, instead.
 * A better-sqlite3 statement is reusable with any bindings.
 */
function cachePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/**
 * One pool for the process's life: the hot path never opens a connection of its own.
 * `sqlite:<path>` (or `sqlite::memory:`) selects better-sqlite3, `mysql://…` selects mysql2.
 */
export function openDatabase(url: string): Database {
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        // WAL lets a second process (the CLI) read while the server writes; busy_timeout makes
        // writers queue instead of failing when two processes share the file.
        afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) => {
          conn.pragma('journal_mode = WAL');
          conn.pragma('busy_timeout = 5000');
          conn.pragma('synchronous = NORMAL');
          cachePreparedStatements(conn);
          done(null, conn);
        },
      },
    });
    return { knex, dialect: 'sqlite', close: () => knex.destroy() };
  }
  if (url.startsWith('mysql://')) {
    const knex = knexFactory({
      client: 'mysql2',
      connection: { uri: url, supportBigNumbers: true, bigNumberStrings: false } as Knex.MySql2ConnectionConfig,
      pool: { min: 1, max: 16 },
    });
    return { knex, dialect: 'mysql', close: () => knex.destroy() };
  }
  throw new Error(`Unsupported DATABASE_URL ${url.replace(/\/\/[^@]*@/, '//***@')}: use sqlite:<path> or mysql://`);
}

export async function migrate(db: Database): Promise<void> {
  await db.knex.migrate.latest({ migrationSource });
}
