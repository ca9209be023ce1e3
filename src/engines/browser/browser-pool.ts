import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { PeriodicJob } from '../../time/periodic-job.js';
import { ClientCancelledError } from '../../time/client-cancelled-error.js';
import { DeadlineExceededError } from '../../egress/fetch-errors.js';
import type { Deadline } from '../../time/deadline.js';
import { race, within } from '../../time/deadline-race.js';
import type { BrowserSession } from './browser-session.js';

/**
 * What a pool tells its listeners (the server's log and metrics, a parent process's tests): a
 * session started, could not be started, was reset for its next request, or was retired.
 */
export interface PoolEvents {
  started: [{ session: number; processGroup: number | undefined }];
  startFailed: [{ attempt: number; err: unknown }];
  reset: [{ session: number; ms: number }];
  /** `reason` in words; `cause`, the closed set the metrics count by. */
  retired: [{ session: number; pages: number; reason: string; cause: RetireCause }];
}

/** Why a session was retired: it failed, served its pages, grew too large, would not reset, or stopped answering while idle. */
export type RetireCause = 'failure' | 'pages' | 'memory' | 'reset' | 'idle';

export interface PoolOptions {
  size: number;
  maxPages: number;
  maxMemoryMb: number;
  /** Memory is read every this many renders (reading /proc for a process tree is not free). */
  memoryCheckEvery: number;
  /** Idle sessions are asked to answer this often; one that does not is retired. */
  idleCheckMs?: number;
  /** A reset that takes longer (a page spinning its renderer) retires the session instead. */
  resetTimeoutMs?: number;
}

const IDLE_CHECK_MS = 60_000;
const IDLE_ANSWER_MS = 5_000;
const RESET_TIMEOUT_MS = 5_000;

export interface ReleaseInfo {
  /** False after any browser-side failure: the session is retired, not reused. */
  healthy: boolean;
}

interface Waiter {
  resolve(session: BrowserSession): void;
  reject(err: Error): void;
}

/**
 * Warm browser sessions handed out one request at a time. Requests beyond the pool queue in
 * order with their deadline counting. A session is reset between requests and retired — killed
 * and replaced in the background — after `maxPages` renders, after any failure, or when its
 * memory passes `maxMemoryMb`.
 */
export class BrowserPool extends EventEmitter<PoolEvents> {
  private readonly idle: BrowserSession[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly all = new Set<BrowserSession>();
  private readonly spawning = new Set<Promise<void>>();
  private closed = false;
  /** The first warm-up finished: every session of `size` started once. */
  warm = false;
  private readonly backoffWakers = new Set<() => void>();
  retired = 0;
  private readonly idleCheck: PeriodicJob;

  constructor(
    private readonly create: () => Promise<BrowserSession>,
    private readonly options: PoolOptions,
    private readonly logger: Logger,
  ) {
    super();
    this.idleCheck = new PeriodicJob(() => this.checkIdle(), options.idleCheckMs ?? IDLE_CHECK_MS, (err) => logger.warn({ err }, 'the check of idle browser sessions failed'));
    this.idleCheck.start(false);
  }

  /** Starts every session, two at a time (a cold start is CPU-bound for about a second). */
  async start(): Promise<void> {
    const queue = Array.from({ length: this.options.size }, (_, i) => i);
    const worker = async () => {
      while (queue.shift() !== undefined) await this.spawn();
    };
    await Promise.all([worker(), worker()]);
    if (this.all.size === 0 && this.options.size > 0) throw new Error('no browser session could be started');
    this.warm = true;
  }

  get stats(): { size: number; idle: number; busy: number; starting: number; waiting: number; retired: number } {
    return {
      size: this.all.size,
      idle: this.idle.length,
      busy: this.all.size - this.idle.length,
      starting: this.spawning.size,
      waiting: this.waiters.length,
      retired: this.retired,
    };
  }

  /** A session for one render; waits in order, within `deadline`, unless `cancelled` aborts first (the caller left). */
  acquire(deadline: Deadline, cancelled?: AbortSignal): Promise<BrowserSession> {
    if (this.closed) return Promise.reject(new Error('the browser pool is closed'));
    if (cancelled?.aborted) return Promise.reject(new ClientCancelledError());
    let session: BrowserSession | undefined;
    while ((session = this.idle.pop())) {
      // A browser can die while idle (killed, out of memory): never hand that one out.
      if (session.alive) return Promise.resolve(session);
      this.retire(session, 'died while idle', 'idle');
    }
    return new Promise((resolve, reject) => {
      const leave = (err: Error) => {
        clearTimeout(timer);
        cancelled?.removeEventListener('abort', gone);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(err);
      };
      const gone = () => leave(new ClientCancelledError());
      const waiter: Waiter = {
        resolve: (s) => {
          clearTimeout(timer);
          cancelled?.removeEventListener('abort', gone);
          resolve(s);
        },
        reject,
      };
      const timer = setTimeout(() => leave(new DeadlineExceededError(`no browser became free within the ${Math.round(deadline.budgetMs / 1000)}-second deadline`)), deadline.remainingMs());
      cancelled?.addEventListener('abort', gone, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Takes a session back; resetting or replacing it happens off the request's path. */
  release(session: BrowserSession, info: ReleaseInfo): void {
    session.pages++;
    void this.recycle(session, info);
  }

  /** Quits every session, and waits for those still starting so that none outlives the pool. */
  async close(): Promise<void> {
    this.closed = true;
    void this.idleCheck.stop();
    for (const wake of this.backoffWakers) wake();
    for (const w of this.waiters.splice(0)) w.reject(new Error('the browser pool is closed'));
    await Promise.all([...this.spawning]);
    const sessions = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(sessions.map((s) => s.quit()));
  }

  private async recycle(session: BrowserSession, info: ReleaseInfo): Promise<void> {
    let retire: { reason: string; cause: RetireCause } | undefined =
      !info.healthy || !session.alive ? { reason: 'failure', cause: 'failure' } : session.pages >= this.options.maxPages ? { reason: 'page limit', cause: 'pages' } : undefined;
    if (!retire && session.pages % this.options.memoryCheckEvery === 0) {
      const mb = await session.memoryMb();
      if (mb !== undefined && mb > this.options.maxMemoryMb) retire = { reason: `memory ${Math.round(mb)} MB`, cause: 'memory' };
    }
    if (!retire) {
      try {
        // A page can keep its renderer busy after it was read (a busy loop started by a timer or
        // a getter): DevTools never answers then. Every session comes back, or is replaced.
        const ms = this.options.resetTimeoutMs ?? RESET_TIMEOUT_MS;
        const started = Date.now();
        await race(session.reset(), [within(ms, () => new Error(`the reset did not finish within ${ms} ms`))]);
        this.emit('reset', { session: session.id, ms: Date.now() - started });
      } catch (err) {
        this.logger.warn({ err, session: session.id }, 'browser session reset failed');
        retire = { reason: 'reset failure', cause: 'reset' };
      }
    }
    if (retire) {
      this.retire(session, retire.reason, retire.cause);
      return;
    }
    this.handOut(session);
  }

  /**
   * A session that died while idle would fail the next render handed to it (after a quiet spell,
   * the first one): found here instead, and replaced before anyone needs it.
   */
  private async checkIdle(): Promise<void> {
    const idle = [...this.idle];
    const answers = await Promise.all(idle.map((s) => s.answers(IDLE_ANSWER_MS)));
    idle.forEach((session, i) => {
      const stillIdle = this.idle.indexOf(session);
      if (answers[i] || stillIdle < 0 || this.closed) return;
      this.idle.splice(stillIdle, 1);
      this.retire(session, 'stopped answering while idle', 'idle');
    });
  }

  private retire(session: BrowserSession, reason: string, cause: RetireCause): void {
    this.all.delete(session);
    this.retired++;
    this.emit('retired', { session: session.id, pages: session.pages, reason, cause });
    session.kill();
    if (!this.closed) void this.spawn();
  }

  private spawn(): Promise<void> {
    const started = this.spawnOne().finally(() => this.spawning.delete(started));
    this.spawning.add(started);
    return started;
  }

  private handOut(session: BrowserSession): void {
    if (this.closed) {
      void session.quit();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(session);
    else this.idle.push(session);
  }

  /** Starts one session, retrying with backoff: a pool that shrank must grow back on its own. */
  private async spawnOne(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        const session = await this.create();
        if (this.closed) {
          await session.quit();
          return;
        }
        this.emit('started', { session: session.id, processGroup: session.processGroup });
        this.all.add(session);
        this.handOut(session);
        return;
      } catch (err) {
        this.emit('startFailed', { attempt, err });
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(timer);
            this.backoffWakers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(500 * 2 ** attempt, 30_000));
          this.backoffWakers.add(wake);
        });
      }
    }
  }
}
