import { StoreUnavailableError } from './store-unavailable-error.js';

interface PendingWrite {
  /** What the write gives back, for the warning if it is lost (no secret in it). */
  what: string;
  write: () => PromiseLike<unknown>;
  idempotent: boolean;
}

export interface DeferredWritesOptions {
  /** The first retry waits this long; each failed round doubles it, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Told of a write given up: a statement error, or still pending when the database closed. */
  onLost: (what: string, err: unknown) => void;
  /**
   * Told of a write that is not idempotent and lost its connection after it was sent: the
   * database may have applied it, and the retry may apply it a second time.
   */
  onUncertain: (what: string, err: unknown) => void;
}

const DEFAULTS: DeferredWritesOptions = {
  firstDelayMs: 200,
  maxDelayMs: 5_000,
  onLost: (what, err) => process.emitWarning(`${what} was lost: ${messageOf(err)}`, 'DeferredWriteLost'),
  onUncertain: (what, err) => process.emitWarning(`${what} may have been applied before its connection was lost (${messageOf(err)})`, 'UncertainWrite'),
};

/** The driver's words and code, without the SQL text knex puts before them. */
function messageOf(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  const code = (err as { code?: unknown } | null)?.code;
  const words = message.slice(message.lastIndexOf(' - ') + 1).replace(/^- /, '');
  return typeof code === 'string' ? `${code}: ${words}` : words;
}

/**
 * The writes that give something back after a request — a refund of credits it did not use, the
 * concurrency slot it held — must not be lost to a database outage: the request has its own
 * answer to give (the target's 404, say), and the key must not pay for the outage. A write that
 * meets an unreachable database is kept here and retried in order, with backoff, until the
 * database takes it; the request goes on at once. Both writes are conditional (a refund only into
 * the period it was taken from, a slot only by its own lease id), so a late one is still right.
 *
 * Only a cache in front of the ledger: a refund is applied once however often it is retried (it
 * only changes a row still reserved), and what a dead process still held here is done by
 * reconciliation (a reserved row past its settle limit is refunded, the slot of a settled row
 * freed). The queue just settles sooner while the process lives.
 */
export class DeferredWrites {
  private readonly pending: PendingWrite[] = [];
  private readonly options: DeferredWritesOptions;
  private delayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private retrying: Promise<void> | undefined;
  private closed = false;

  constructor(options: Partial<DeferredWritesOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
    this.delayMs = this.options.firstDelayMs;
  }

  /** Writes waiting for the database. */
  get size(): number {
    return this.pending.length;
  }

  /**
   * Runs `write` now. If the database is unavailable it is kept and retried until it goes
   * through, and this resolves at once; any other error is the caller's. `idempotent`: applying
   * the write twice changes nothing more than once (otherwise a retry after a connection lost
   * mid-statement is reported as uncertain).
   */
  async run(what: string, write: () => PromiseLike<unknown>, { idempotent = false }: { idempotent?: boolean } = {}): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (this.closed || !(err instanceof StoreUnavailableError)) throw err;
      if (!idempotent && err.mayHaveRun) this.options.onUncertain(what, err);
      this.pending.push({ what, write, idempotent });
      this.schedule();
      return;
    }
    // The database answers again: what waited goes now rather than at its next timer.
    if (this.pending.length > 0 && !this.retrying) this.retryNow();
  }

  /**
   * A write that is not deferred (the caller answers an error) but may have been applied: its
   * connection was lost after it was sent. Reported as uncertain; the error is the caller's.
   */
  reportIfUncertain(what: string, err: unknown): void {
    if (err instanceof StoreUnavailableError && err.mayHaveRun) this.options.onUncertain(what, err);
  }

  /**
   * Once the database is closing: one last try for whatever waits (while `timeoutMs` allows), and
   * what still fails is reported lost. Later writes run once, never deferred.
   */
  async close(timeoutMs = 2_000): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const started = Date.now();
    await this.retrying;
    while (this.pending.length > 0 && Date.now() - started < timeoutMs) {
      const next = this.pending[0];
      try {
        await next.write();
      } catch (err) {
        if (err instanceof StoreUnavailableError) break;
        this.options.onLost(next.what, err);
      }
      this.pending.shift();
    }
    for (const lost of this.pending.splice(0)) this.options.onLost(lost.what, new Error('the database was unavailable until it closed'));
  }

  private schedule(): void {
    if (this.timer || this.retrying || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.retryNow();
    }, this.delayMs);
    // A pending write must not keep a stopping process alive: close() makes the last try.
    this.timer.unref();
  }

  private retryNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // drain() only fails if a reporting hook throws: never an unhandled rejection for that.
    this.retrying = this.drain().catch(() => undefined).finally(() => {
      this.retrying = undefined;
      if (this.pending.length > 0) this.schedule();
    });
  }

  /** In order; stops at the first write that still meets an unavailable database, and backs off. */
  private async drain(): Promise<void> {
    while (this.pending.length > 0 && !this.closed) {
      const next = this.pending[0];
      try {
        await next.write();
      } catch (err) {
        if (err instanceof StoreUnavailableError) {
          if (!next.idempotent && err.mayHaveRun) this.options.onUncertain(next.what, err);
          this.delayMs = Math.min(this.delayMs * 2, this.options.maxDelayMs);
          return;
        }
        // The statement itself failed on a working database: retrying will not help.
        this.options.onLost(next.what, err);
      }
      this.pending.shift();
    }
    this.delayMs = this.options.firstDelayMs;
  }
}
