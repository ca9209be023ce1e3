import { z } from 'zod';
import { parseRangeList, type IpRange } from '../ip/ip-range.js';

/** Seconds, comma-separated, each from 0 to a day, in rising order. */
const secondsList = z.string().transform((text, ctx) => {
  const values = text.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const ok = values.length > 0 && values.length <= 50 && values.every((v, i) => Number.isInteger(v) && v >= 0 && v <= 86_400 && (i === 0 || v >= values[i - 1]));
  if (!ok) {
    ctx.addIssue({ code: 'custom', message: 'must be 1 to 50 whole numbers of seconds (0 to 86400), comma-separated, in rising order' });
    return z.NEVER;
  }
  return values;
});

const ranges = z
  .string()
  .default('')
  .transform((text, ctx): IpRange[] => {
    try {
      return parseRangeList(text);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

/** The variables of the job engine (batches, crawls, webhooks): one part of the one schema (config.ts). */
export const jobsVariables = {
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  REDIS_SERVER_PATH: z.string().min(1).default('/usr/bin/redis-server'),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  JOB_RESULT_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(24),
  BATCH_MAX_URLS: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  JOB_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  JOB_RETRY_BASE_SECONDS: z.coerce.number().min(0).max(3600).default(2),
  JOB_WORKERS: z.coerce.number().int().min(0).max(512).default(16),
  JOB_KEY_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(32),
  JOB_BROWSER_SHARE: z.coerce.number().min(0).max(1).default(0.5),
  JOB_STALLED_SECONDS: z.coerce.number().min(0.5).max(600).default(30),
  JOB_SYNC_QUIET_MS: z.coerce.number().int().min(0).max(60_000).default(50),
  JOB_SYNC_TRICKLE_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  WEBHOOK_RETRY_SCHEDULE: secondsList.default([0, 60, 300, 1800, 7200, 21_600, 43_200, 86_400]),
  WEBHOOK_ALLOW_CIDRS: ranges,
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(60).default(10),
  CRAWL_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
};

type Variables = z.infer<z.ZodObject<typeof jobsVariables>>;

export interface JobsConfig {
  /** A deployment's Redis; undefined: a private redis-server under `dataDir`, a child of this process. */
  redisUrl: string | undefined;
  redisServerPath: string;
  /** Where a private redis-server keeps its append-only file and socket. */
  redisDir: string;
  /** The origin (and path prefix) links to results are built on; undefined: the request's trusted scheme and host. */
  publicBaseUrl: string | undefined;
  /** A finished job's results are kept this long, then pruned. */
  resultTtlMs: number;
  batchMaxUrls: number;
  /** Retries of a failed item unless its job says otherwise. */
  maxRetries: number;
  /** The first retry's delay; each next one doubles it, with jitter. */
  retryBaseMs: number;
  /** Items this instance runs at once (0: it submits and answers, but runs none). */
  workers: number;
  /** Items of one key dispatched at once over every instance (below the plan's own cap, if lower). */
  keyMaxInFlight: number;
  /** The part of the browser pool job items may hold while synchronous requests wait. */
  browserShare: number;
  /** A worker's lock on its item: an instance dead this long has its items run again elsewhere. */
  stalledMs: number;
  /** Plain items start once no synchronous request has been in flight this long (scrape/sync-demand.ts). */
  syncQuietMs: number;
  /** While synchronous requests keep coming, one waiting plain item starts this often. */
  syncTrickleMs: number;
  webhooks: WebhookConfig;
  /** Requests at once to one host of a crawl, over every instance, when the crawl sets no delay. */
  crawlHostConcurrency: number;
}

export interface WebhookConfig {
  /** Delays of the attempts after the event, in ms: the first is usually 0. */
  retryScheduleMs: number[];
  /** Ranges a webhook may reach although not public (a receiver on the operator's own network). */
  allowCidrs: IpRange[];
  timeoutMs: number;
}

export function jobsConfig(e: Variables, dataDir: string): JobsConfig {
  return {
    redisUrl: e.REDIS_URL,
    redisServerPath: e.REDIS_SERVER_PATH,
    redisDir: `${dataDir.replace(/\/$/, '')}/redis`,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    resultTtlMs: e.JOB_RESULT_TTL_HOURS * 3_600_000,
    batchMaxUrls: e.BATCH_MAX_URLS,
    maxRetries: e.JOB_MAX_RETRIES,
    retryBaseMs: e.JOB_RETRY_BASE_SECONDS * 1000,
    workers: e.JOB_WORKERS,
    keyMaxInFlight: e.JOB_KEY_MAX_IN_FLIGHT,
    browserShare: e.JOB_BROWSER_SHARE,
    stalledMs: e.JOB_STALLED_SECONDS * 1000,
    syncQuietMs: e.JOB_SYNC_QUIET_MS,
    syncTrickleMs: e.JOB_SYNC_TRICKLE_MS,
    webhooks: {
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE.map((s) => s * 1000),
      allowCidrs: e.WEBHOOK_ALLOW_CIDRS,
      timeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
    },
    crawlHostConcurrency: e.CRAWL_HOST_CONCURRENCY,
  };
}
