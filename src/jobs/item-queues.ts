import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DueItem } from './job-store.js';

export type Engine = 'plain' | 'browser';

/** A queue entry: which item, and which of its dispatches (a stale entry is told by it). */
export interface ItemEntry {
  j: string;
  i: number;
  d: number;
}

/** An entry's id: one per dispatch of an item, so a lost entry is handed out again under a new one. */
export const entryId = (item: DueItem): string => `${item.jobId}.${item.idx}.${item.dispatches}`;

export interface ItemQueuesOptions {
  /** Connections: the queue side fails fast, the workers' blocks (jobs/redis/redis-endpoint.ts). */
  client: Redis;
  workerConnection: () => Redis;
  /** Keys of every queue start with this (several deployments may share one Redis). */
  prefix: string;
  /** A worker's lock on its entry: past it without renewal (the instance died), the entry runs again elsewhere. */
  stalledMs: number;
  /** A run that threw (the database away mid-item): the item's entry is gone, the upkeep hands it out again. */
  onRunFailed: (err: unknown) => void;
}

/**
 * The two BullMQ queues items are handed out on, one per engine, so that each engine's share is
 * kept by its workers' concurrency. Redis holds only entries handed out now (a bounded window,
 * jobs/dispatcher.ts), each a few hundred bytes: never a queued item, never a document.
 */
export class ItemQueues {
  private readonly queues: Record<Engine, Queue<ItemEntry>>;
  private readonly workers: Worker<ItemEntry>[] = [];
  private readonly connections: Redis[] = [];

  constructor(private readonly options: ItemQueuesOptions) {
    // BullMQ's event stream keeps 10,000 events by default (several KB per entry): nothing here reads it.
    const queue = (engine: Engine) => new Queue<ItemEntry>(`items-${engine}`, { connection: options.client, prefix: options.prefix, streams: { events: { maxLen: 100 } } });
    this.queues = { plain: queue('plain'), browser: queue('browser') };
  }

  /** Entries waiting for a worker (handed out, not started). */
  async waiting(engine: Engine): Promise<number> {
    const counts = await this.queues[engine].getJobCounts('waiting', 'prioritized', 'delayed');
    return (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
  }

  async add(engine: Engine, items: DueItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.queues[engine].addBulk(items.map((item) => ({
      name: 'item',
      data: { j: item.jobId, i: item.idx, d: item.dispatches },
      opts: { jobId: entryId(item), removeOnComplete: true, removeOnFail: true, attempts: 1 },
    })));
  }

  /** Whether the entry is still in Redis (waiting, running or about to). */
  async holds(engine: Engine, item: DueItem): Promise<boolean> {
    const state = await this.queues[engine].getJobState(entryId(item));
    return state !== 'unknown' && state !== 'completed' && state !== 'failed';
  }

  /** Starts `concurrency` workers' worth of processing on this instance (0: none). */
  work(engine: Engine, concurrency: number, run: (entry: ItemEntry) => Promise<void>): void {
    if (concurrency <= 0) return;
    const { stalledMs, prefix } = this.options;
    const connection = this.options.workerConnection();
    connection.on('error', () => undefined); // reconnected on its own (redis-endpoint.ts)
    this.connections.push(connection);
    const worker = new Worker<ItemEntry>(`items-${engine}`, (job: Job<ItemEntry>) => run(job.data), {
      connection,
      prefix,
      concurrency,
      lockDuration: stalledMs,
      stalledInterval: stalledMs,
      // A stalled entry runs again (the ledger charges its item once); the engine's upkeep re-dispatches past this.
      maxStalledCount: 5,
    });
    worker.on('error', () => undefined); // a lost connection: BullMQ reconnects on its own
    worker.on('failed', (_job, err) => this.options.onRunFailed(err));
    this.workers.push(worker);
  }

  /** Workers finish what they run (bounded by the items' own deadlines), then the connections go. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
    for (const connection of this.connections) connection.disconnect();
  }
}
