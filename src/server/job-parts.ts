import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { Dispatcher } from '../jobs/dispatcher.js';
import { ItemQueues } from '../jobs/item-queues.js';
import { ItemRunner } from '../jobs/item-runner.js';
import { JobEngine } from '../jobs/job-engine.js';
import type { DocumentScraper, WebhookOutbox } from '../jobs/job-ports.js';
import { JobUpkeep } from '../jobs/job-upkeep.js';
import { PrivateRedis } from '../jobs/redis/private-redis.js';
import { describeEndpoint, openRedis, type RedisEndpoint } from '../jobs/redis/redis-endpoint.js';
import { JobMetrics } from '../observability/job-metrics.js';
import type { Metrics } from '../observability/metrics.js';
import type { Caller } from '../scrape/scrape-service.js';
import type { SyncDemand } from '../scrape/sync-demand.js';
import type { Database } from '../store/database.js';
import { translated } from '../store/driver-errors.js';
import { DispatchQueriesSql } from '../store/jobs/dispatch-queries-sql.js';
import { ItemTransitionsSql } from '../store/jobs/item-transitions-sql.js';
import { JobRecordsSql } from '../store/jobs/job-records-sql.js';

/** Every key in Redis starts with it. */
const PREFIX = 'scrapegate';
const DISPATCH_INTERVAL_MS = 500;

export interface JobPartsWith {
  db: Database;
  scraper: DocumentScraper;
  /** The scraper items run through when it needs the engine's Redis (a crawl's host gate); else `scraper`. */
  scraperWith?: (redis: Redis, prefix: string) => DocumentScraper;
  outbox: WebhookOutbox;
  keyOf: (caller: Caller) => Promise<{ id: number }>;
  metrics: Metrics;
  /** The browser pool's size: job items take at most `JOB_BROWSER_SHARE` of it. */
  browserSessions: number;
  stopping: AbortSignal;
  logger: Logger;
  /** Synchronous scrapes in flight here: a plain job worker waits for its turn before it takes an item. */
  demand?: SyncDemand;
}

/**
 * The job engine: its Redis (a deployment's, or a private redis-server that dies with the
 * service), the queues and their workers, the dispatcher, the upkeep, and the Jobs the edge uses.
 */
export async function jobParts(config: Config, w: JobPartsWith) {
  const c = config.jobs;
  const privateRedis = c.redisUrl === undefined ? await PrivateRedis.start({ serverPath: c.redisServerPath, dir: c.redisDir }) : undefined;
  const endpoint: RedisEndpoint = c.redisUrl !== undefined ? { url: c.redisUrl } : { socketPath: privateRedis!.socketPath };
  const client = openRedis(endpoint, 'client', 'jobs');
  client.on('error', (err: unknown) => w.logger.warn({ err, redis: describeEndpoint(endpoint) }, 'redis connection'));
  const scraper = w.scraperWith ? w.scraperWith(client, PREFIX) : w.scraper;
  const records = translated(new JobRecordsSql(w.db.knex));
  const transitions = translated(new ItemTransitionsSql(w.db.knex));
  const queries = translated(new DispatchQueriesSql(w.db.knex));
  const jobMetrics = new JobMetrics(w.metrics.registry, async () => {
    const rows = (await w.db.knex('jobs').select('kind', 'status').count({ n: '*' }).groupBy('kind', 'status')) as Array<{ kind: string; status: string; n: number | string }>;
    return rows.map((r) => ({ kind: r.kind, status: r.status, count: Number(r.n) }));
  });
  const queues = new ItemQueues({ client, workerConnection: () => openRedis(endpoint, 'worker', 'jobs-worker'), prefix: PREFIX, stalledMs: c.stalledMs,
    onRunFailed: (err) => w.logger.error({ err }, 'a job item could not be run; it is handed out again'),
  });
  const browserWorkers = c.browserShare > 0 && w.browserSessions > 0 ? Math.max(1, Math.floor(w.browserSessions * c.browserShare)) : 0;
  const onError = (what: string) => (err: unknown) => w.logger.error({ err }, what);
  const dispatcher = new Dispatcher({
    queries, queues, redis: client, prefix: PREFIX, keyMaxInFlight: c.keyMaxInFlight, intervalMs: DISPATCH_INTERVAL_MS, onError: onError('job dispatch failed'),
    // Twice what this instance runs at once: enough to keep workers fed between passes, little enough that a newcomer waits briefly.
    waitingCap: { plain: Math.max(8, 2 * c.workers), browser: Math.max(2, 2 * browserWorkers) },
  });
  const runner = new ItemRunner({
    transitions, scraper, outbox: w.outbox, metrics: jobMetrics, logger: w.logger, retryBaseMs: c.retryBaseMs, resultTtlMs: c.resultTtlMs,
    stopping: w.stopping, finished: () => dispatcher.wake(),
  });
  const upkeep = new JobUpkeep({
    records, queries, transitions, queues, lostAfterMs: 4 * c.stalledMs, intervalMs: c.stalledMs,
    requeued: () => dispatcher.wake(), onError: onError('job upkeep failed'),
  });
  const jobs = new JobEngine({
    records, scraper, outbox: w.outbox, metrics: jobMetrics, keyOf: w.keyOf, submitted: () => dispatcher.wake(),
    resultTtlMs: c.resultTtlMs, batchMaxUrls: c.batchMaxUrls, maxRetries: c.maxRetries,
  });
  w.logger.info({ redis: describeEndpoint(endpoint), workers: c.workers, browserWorkers }, 'job engine ready');
  return {
    jobs,
    records,
    start(): void {
      // Plain items share the CPU with plain requests; browser items have their own share of the pool.
      queues.work('plain', c.workers, async (entry) => {
        await w.demand?.turn(w.stopping);
        return runner.run(entry);
      });
      queues.work('browser', browserWorkers, (entry) => runner.run(entry));
      dispatcher.start();
      upkeep.start();
    },
    /** After the scrape service has been told to stop: items in flight end, uncharged, and go back to the queue. */
    async stop(): Promise<void> {
      await dispatcher.stop();
      await upkeep.stop();
      await queues.close();
      client.disconnect();
      await privateRedis?.stop();
    },
  };
}
