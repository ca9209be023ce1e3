import type { Knex } from 'knex';

export interface NativeStatement {
  run(...bindings: unknown[]): { changes: number };
}

/** The parts of a better-sqlite3 connection the hot path uses (statements are cached per connection: database.ts). */
export interface NativeSqlite {
  prepare(sql: string): NativeStatement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
}

/** One request's write: runs inside a shared transaction, and if it throws only its own changes roll back. */
export type GroupedWrite<T> = (conn: NativeSqlite) => T;

interface Pending {
  write: GroupedWrite<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };
type RunBatch = (batch: Pending[], outcomes: Outcome[]) => void;

const batchRunners = new WeakMap<NativeSqlite, RunBatch>();

/** The batch as one transaction, each write in a savepoint of its own; made once per connection. */
function runnerFor(conn: NativeSqlite): RunBatch {
  let run = batchRunners.get(conn);
  if (!run) {
    const alone = conn.transaction((write: GroupedWrite<unknown>) => write(conn));
    run = conn.transaction((batch: Pending[], outcomes: Outcome[]) => {
      for (const p of batch) {
        try {
          outcomes.push({ ok: true, value: alone(p.write) });
        } catch (err) {
          outcomes.push({ ok: false, err });
        }
      }
    });
    batchRunners.set(conn, run);
  }
  return run;
}

/**
 * Group commit for the ledger's hot-path writes on SQLite. A commit costs more than the statements
 * it carries (the WAL frames of every page touched), so the reservations and charges that arrive
 * in one turn of the event loop share one: each is its own savepoint, so one that fails leaves
 * the others alone, and none is answered before the transaction holding it has committed. Every
 * promise settles after that commit: a charge is still durable before its 200 is sent.
 */
export class SqliteGroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(private readonly knex: Knex) {}

  run<T>(write: GroupedWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    let conn: NativeSqlite;
    try {
      conn = (await this.knex.client.acquireConnection()) as NativeSqlite;
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      runnerFor(conn)(batch, outcomes);
    } catch (err) {
      // The commit itself failed (the file locked by another process past busy_timeout, I/O):
      // nothing of the batch was written.
      for (const p of batch) p.reject(err);
      return;
    } finally {
      await this.knex.client.releaseConnection(conn);
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.err);
    });
  }
}
