import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PeriodicJob } from '../time/periodic-job.js';
import type { DispatchQueries, DueItem, ScrapingJob } from './job-store.js';
import type { Engine, ItemQueues } from './item-queues.js';

export interface DispatcherOptions {
  queries: DispatchQueries;
  queues: ItemQueues;
  redis: Redis;
  prefix: string;
  /** Items of one key handed out at once over every instance, below its plan's cap if lower. */
  keyMaxInFlight: number;
  /** Entries a queue may hold waiting for a worker: beyond it, nothing more is handed out. */
  waitingCap: Record<Engine, number>;
  intervalMs: number;
  onError: (err: unknown) => void;
}

/** Holding the lock this long at most: a pass is a few queries; a dead holder's lock goes by itself. */
const LOCK_MS = 10_000;
/** A pass that met another instance's lock tries again this soon (items finished meanwhile). */
const CONTENDED_RETRY_MS = 50;
/** With no job scraping, the timer passes this rarely (a job submitted elsewhere wakes its own instance). */
const IDLE_PASS_MS = 30_000;
/**
 * Wakes within this are one pass: items finishing drive the passes, at most one per WAKE_MS (each
 * pass is a few queries; the queue holds twice the workers, so a pass this late starves none).
 */
const WAKE_MS = 100;
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * Hands queued items to the queues, fairly. One instance at a time (a lock in Redis) reads the
 * jobs still scraping and what each key has handed out, and gives each key a window: its plan's
 * concurrency (or JOB_KEY_MAX_IN_FLIGHT) minus what it holds, within its job's maxConcurrency.
 * Keys are served round-robin, one item each in turn, starting from a key that moves every pass,
 * until the queue holds its cap of waiting entries. So one key's 50,000 URLs never stand in front
 * of another key's 10 for more than the cap, and Redis never holds more than the windows.
 */
export class Dispatcher {
  private readonly timer: PeriodicJob;
  private retry: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private idleSince: number | undefined;
  private lastPass = 0;
  /** Woken since the last pass began: one more pass follows (a wake during a pass is not lost). */
  private woken = false;
  private stopped = false;

  constructor(private readonly options: DispatcherOptions) {
    this.timer = new PeriodicJob(() => this.passes(), options.intervalMs, options.onError);
  }

  private async passes(): Promise<void> {
    if (!this.woken && this.resting()) return;
    do {
      this.woken = false;
      await this.pass();
    } while (this.woken && !this.stopped);
  }

  /**
   * A timer's pass is skipped when idle and not woken since (a retry's time is never idle: its job
   * is scraping), or when woken passes ran within the interval: the timer only finds what no wake
   * told of (retries come due, items submitted or finished elsewhere).
   */
  private resting(): boolean {
    const now = Date.now();
    if (now - this.lastPass < this.options.intervalMs) return true;
    return this.idleSince !== undefined && now - this.idleSince < IDLE_PASS_MS;
  }

  start(): void {
    this.timer.start();
  }

  /**
   * A pass soon: items were submitted, or finished and freed their windows. Coalesced over
   * WAKE_MS, so that items finishing together share one pass (each pass is a few queries).
   */
  wake(): void {
    if (this.stopped || this.soon) return;
    this.idleSince = undefined;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      if (this.stopped) return;
      this.woken = true;
      void this.timer.runNow();
    }, WAKE_MS);
    this.soon.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearTimeout(this.soon);
    await this.timer.stop();
  }

  private async pass(): Promise<void> {
    const { redis, prefix } = this.options;
    this.lastPass = Date.now();
    const token = randomUUID();
    if ((await redis.set(`${prefix}:dispatch-lock`, token, 'PX', LOCK_MS, 'NX')) !== 'OK') {
      this.retryAfterContention();
      return;
    }
    try {
      await this.dispatch();
    } finally {
      await redis.eval(RELEASE, 1, `${prefix}:dispatch-lock`, token).catch(() => undefined);
    }
  }

  private retryAfterContention(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.wake();
    }, CONTENDED_RETRY_MS);
    this.retry.unref();
  }

  private async dispatch(): Promise<void> {
    const { queries, redis, prefix } = this.options;
    const { jobs, keyInFlight } = await queries.scraping();
    // Nothing to hand out: the timer's passes rest until a submission here wakes them (one
    // elsewhere is handed out by its own instance), so an idle service costs its database nothing.
    this.idleSince = jobs.length === 0 ? Date.now() : undefined;
    if (jobs.length === 0) return;
    const turn = await redis.incr(`${prefix}:dispatch-turn`);
    for (const engine of ['plain', 'browser'] as const) {
      const ofEngine = jobs.filter((j) => j.engine === engine);
      if (ofEngine.length === 0) continue;
      const room = this.options.waitingCap[engine] - (await this.options.queues.waiting(engine));
      if (room <= 0) continue;
      const picked = await this.pick(ofEngine, keyInFlight, room, turn);
      if (picked.length === 0) continue;
      const marked = await queries.markDispatched(picked, Date.now());
      try {
        await this.options.queues.add(engine, marked);
      } catch (err) {
        await queries.unmark(marked, Date.now());
        throw err;
      }
      for (const item of marked) {
        const key = ofEngine.find((j) => j.id === item.jobId)!.apiKeyId;
        keyInFlight.set(key, (keyInFlight.get(key) ?? 0) + 1);
      }
    }
  }

  /** Up to `room` items, one per key in turn, each key within its window and each job within its own. */
  private async pick(jobs: ScrapingJob[], keyInFlight: Map<number, number>, room: number, turn: number): Promise<DueItem[]> {
    const keys = [...new Set(jobs.map((j) => j.apiKeyId))].sort((a, b) => a - b);
    const start = turn % keys.length;
    const rotated = [...keys.slice(start), ...keys.slice(0, start)];
    const now = Date.now();
    const lists: DueItem[][] = [];
    for (const key of rotated) {
      const ofKey = jobs.filter((j) => j.apiKeyId === key);
      const cap = Math.min(ofKey[0].keyMaxConcurrency ?? Infinity, this.options.keyMaxInFlight);
      let window = Math.min(cap - (keyInFlight.get(key) ?? 0), room);
      const list: DueItem[] = [];
      for (const job of ofKey) {
        if (window <= 0) break;
        const jobWindow = Math.min(window, job.maxConcurrency === undefined ? Infinity : job.maxConcurrency - job.inFlight);
        if (jobWindow <= 0) continue;
        const due = await this.options.queries.due(job.id, now, jobWindow);
        list.push(...due);
        window -= due.length;
      }
      lists.push(list);
    }
    const picked: DueItem[] = [];
    for (let i = 0; picked.length < room; i++) {
      const round = lists.filter((l) => l.length > i).map((l) => l[i]);
      if (round.length === 0) break;
      picked.push(...round.slice(0, room - picked.length));
    }
    return picked;
  }
}
