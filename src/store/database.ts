import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { migrationSource } from './migrations/index.js';

export type Dialect = 'sqlite' | 'mysql';

export interface Database {
  knex: Knex;
  dialect: Dialect;
  close(): Promise<void>;
  /** The default time limit of a statement (MySQL); raised while migrations run. */
  limits: { statementMs: number };
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
 * How long a query may wait for a connection. A healthy pool hands one out in microseconds; past
 * this the database is down or hung, and the request gets its 500 ("retry shortly") well within
 * its own deadline instead of hanging on the pool (knex's default is 60 s).
 */
const ACQUIRE_CONNECTION_TIMEOUT_MS = 5_000;
/**
 * How long one MySQL statement may take unless its caller says otherwise (the hot path's are
 * bounded by their request). Past it mysql2 ends the connection, so a statement sent to a frozen
 * server fails cleanly instead of holding its request and a pooled connection for ever.
 * Migrations may take longer (migrate() lifts it while they run).
 */
const STATEMENT_TIMEOUT_MS = 10_000;
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

interface MysqlConnection {
  query(options: unknown, ...rest: unknown[]): unknown;
}

/** Every query of the connection gets `limits.statementMs` as its timeout, unless it has its own. */
function limitStatements(conn: MysqlConnection, limits: { statementMs: number }): void {
  const query = conn.query.bind(conn);
  conn.query = (options: unknown, ...rest: unknown[]) => {
    const withLimit = typeof options === 'string' ? { sql: options } : { ...(options as object) };
    if ((withLimit as { timeout?: number }).timeout === undefined) (withLimit as { timeout?: number }).timeout = limits.statementMs;
    return query(withLimit, ...rest);
  };
}

/** How long opening one MySQL connection may take (a server that accepts but never greets). */
const CONNECT_TIMEOUT_MS = 3_000;

/**
 * knex reports every failed connection attempt on stderr with its stack: during an outage that is
 * one stack per request. The error middleware already logs each failed request; knex's own
 * warnings are kept to one line every few seconds, with how many were left out.
 */
function quietKnexLog(intervalMs = 5_000): { warn(message: unknown): void } {
  let last = 0;
  let suppressed = 0;
  return {
    warn(message: unknown) {
      const now = Date.now();
      if (now - last < intervalMs) {
        suppressed++;
        return;
      }
      const text = (message instanceof Error ? message.message : String(message)).split('\n')[0];
      process.stderr.write(`knex: ${text}${suppressed > 0 ? ` (${suppressed} more warnings in the last ${Math.round((now - last) / 1000)} s not shown)` : ''}\n`);
      last = now;
      suppressed = 0;
    },
  };
}

function closer(knex: Knex): () => Promise<void> {
  return () => knex.destroy();
}

/**
 * One pool for the process's life: the hot path never opens a connection of its own.
 * `sqlite:<path>` (or `sqlite::memory:`) selects better-sqlite3, `mysql://…` selects mysql2.
 */
export function openDatabase(url: string): Database {
  const limits = { statementMs: STATEMENT_TIMEOUT_MS };
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      acquireConnectionTimeout: ACQUIRE_CONNECTION_TIMEOUT_MS,
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
    return { knex, dialect: 'sqlite', close: closer(knex), limits };
  }
  if (url.startsWith('mysql://')) {
    // A restarted or failed-over server: knex validates a pooled connection before handing it out
    // (mysql2 marks one the server closed), so dead ones are dropped and fresh ones made, and the
    // service recovers without a restart. Acquiring and connecting are bounded (see above).
    const knex = knexFactory({
      client: 'mysql2',
      connection: {
        uri: url,
        supportBigNumbers: true,
        bigNumberStrings: false,
        connectTimeout: CONNECT_TIMEOUT_MS,
        enableKeepAlive: true,
      } as Knex.MySql2ConnectionConfig,
      acquireConnectionTimeout: ACQUIRE_CONNECTION_TIMEOUT_MS,
      pool: {
        min: 1,
        max: 16,
        createTimeoutMillis: CONNECT_TIMEOUT_MS,
        idleTimeoutMillis: 30_000,
        afterCreate: (conn: MysqlConnection, done: (err: Error | null, conn: unknown) => void) => {
          limitStatements(conn, limits);
          done(null, conn);
        },
      },
      log: quietKnexLog(),
    });
    return { knex, dialect: 'mysql', close: closer(knex), limits };
  }
  throw new Error(`Unsupported DATABASE_URL ${url.replace(/\/\/[^@]*@/, '//***@')}: use sqlite:<path> or mysql://`);
}

export async function migrate(db: Database): Promise<void> {
  const usual = db.limits.statementMs;
  db.limits.statementMs = MIGRATION_TIMEOUT_MS;
  try {
    await db.knex.migrate.latest({ migrationSource });
  } finally {
    db.limits.statementMs = usual;
  }
}
