import { PeriodicJob } from '../time/periodic-job.js';
import type { DispatchQueries, ItemTransitions, JobRecords } from './job-store.js';
import type { ItemQueues } from './item-queues.js';

export interface JobUpkeepOptions {
  records: JobRecords;
  queries: DispatchQueries;
  transitions: ItemTransitions;
  queues: ItemQueues;
  /** An item handed out and untouched this long is checked against Redis: its entry may be lost. */
  lostAfterMs: number;
  intervalMs: number;
  /** Items went back to the queue: hand them out. */
  requeued: () => void;
  onError: (err: unknown) => void;
}

const PRUNE_BATCH = 100;
const CHECK_BATCH = 500;

/**
 * What every instance does on a timer for the jobs: prunes results past their TTL, and finds
 * items whose queue entry is gone (a Redis restarted without its last second, an instance killed
 * between the database and Redis) to queue them again. An item in Redis is left alone: BullMQ's
 * stalled-entry check hands out again what a dead instance held.
 */
export class JobUpkeep {
  private readonly timer: PeriodicJob;

  constructor(private readonly o: JobUpkeepOptions) {
    this.timer = new PeriodicJob(() => this.pass(), o.intervalMs, o.onError);
  }

  start(): void {
    this.timer.start(false);
  }

  runNow(): Promise<void> {
    return this.timer.runNow();
  }

  stop(): Promise<void> {
    return this.timer.stop();
  }

  private async pass(): Promise<void> {
    const now = Date.now();
    while ((await this.o.records.prune(now, PRUNE_BATCH)) === PRUNE_BATCH);
    let requeued = 0;
    for (const item of await this.o.queries.handedOutSince(now - this.o.lostAfterMs, CHECK_BATCH)) {
      if (await this.o.queues.holds(item.engine, item)) continue;
      // An attempt started and lost counts against the item's retries, like any failed one.
      await this.o.transitions.requeue(item.jobId, item.idx, now, false, now);
      requeued++;
    }
    if (requeued > 0) this.o.requeued();
  }
}
