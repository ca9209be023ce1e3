import { StoreUnavailableError } from '../billing/store-unavailable-error.js';

/**
 * Codes that say the database, not the statement, is the problem: MySQL/MariaDB refusing work
 * while it shuts down, after killing our connection or out of connections or threads, or read-only
 * (as during a failover); SQLite's lock held by another process past busy_timeout.
 */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_CANT_CREATE_THREAD',
  'ER_OUT_OF_RESOURCES',
  'ER_OPTION_PREVENTS_STATEMENT',
  // A statement that passed its time limit (a frozen server): mysql2 ends its connection.
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
  'SQLITE_BUSY_TIMEOUT',
]);

interface ErrorFields {
  name?: unknown;
  code?: unknown;
  fatal?: unknown;
  cause?: unknown;
}

function unavailable(e: ErrorFields): boolean {
  // mysql2 marks `fatal` every error that broke or never made the connection: refused, reset,
  // timed out, not resolved (the socket's code: ECONNREFUSED, ETIMEDOUT…), lost mid-statement
  // (PROTOCOL_CONNECTION_LOST), or a command on a closed connection. A statement's own error
  // never is.
  if (e.fatal === true) return true;
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  // knex could not hand out a connection in time (acquireConnectionTimeout): new ones cannot be
  // made, or every pooled one is stuck.
  return e.name === 'KnexTimeoutError';
}

/**
 * Whether `err` says the database could not be reached or used at all (as opposed to a statement
 * that failed on a working database, which is a bug). Looks through `cause` chains, since knex
 * wraps the pool's errors.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (current instanceof StoreUnavailableError) return true;
    const fields = current as ErrorFields;
    if (unavailable(fields)) return true;
    current = fields.cause;
  }
  return false;
}

/** Codes of a connection lost while a statement was on it: the server may have run it, or not. */
const OUTCOME_UNKNOWN_CODES: ReadonlySet<string> = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ER_CONNECTION_KILLED',
]);

/**
 * Whether a statement that failed with `err` may still have been carried out: the connection was
 * lost after it was sent (a server shutting down kills its connections, and a statement it had
 * already committed gets no answer). A refused connection, a pool timeout, a closed connection or
 * a server that refused the statement while shutting down never ran it.
 */
export function mayHaveRun(err: unknown): boolean {
  const e = err as { code?: unknown; syscall?: unknown } | null;
  if (e === null || typeof e !== 'object' || e.syscall === 'connect') return false;
  return typeof e.code === 'string' && OUTCOME_UNKNOWN_CODES.has(e.code);
}

/** A driver's error as the ports know it: StoreUnavailableError when the database, not the statement, failed. */
export function storeError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isDatabaseUnavailable(err)) return err;
  return new StoreUnavailableError(mayHaveRun(err), { cause: err, message: 'the database is unavailable' });
}

/**
 * A store adapter whose every method answers with the ports' errors in place of its driver's:
 * the one place where MySQL's and SQLite's codes are read.
 */
export function translated<T extends object>(adapter: T): T {
  return new Proxy(adapter, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise ? result.catch((err: unknown) => Promise.reject(storeError(err))) : result;
        } catch (err) {
          throw storeError(err);
        }
      };
    },
  });
}

/** A unique key met again (MySQL's ER_DUP_ENTRY, SQLite's constraint). */
export function isDuplicateKey(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code ?? '';
  return code === 'ER_DUP_ENTRY' || code.startsWith('SQLITE_CONSTRAINT');
}
