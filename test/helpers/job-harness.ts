import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Billing, hashApiKey } from '../../src/billing/billing.js';
import { DeferredWrites } from '../../src/billing/deferred-writes.js';
import { loadConfig } from '../../src/config/config.js';
import type { DocumentScraper, ItemScrape, JobEvent, ScrapedDocument, WebhookOutbox } from '../../src/jobs/job-ports.js';
import { RetryablePageError } from '../../src/jobs/retryable-page-error.js';
import { Metrics } from '../../src/observability/metrics.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
import { jobParts } from '../../src/server/job-parts.js';
import type { TestStore } from './keys.js';

/** A target's failure, named as the egress names an unreachable one. */
class UnreachableError extends Error {
  readonly outcome = 'target_unreachable';
}

/**
 * The job engine's far side for its own tests: items become documents by a plain fetch of a
 * loopback target, under the real billing on the real ledger (reserved under the item's id,
 * stored before the charge, charged once), so that what the engine promises about money is
 * tested on the books. The Firecrawl dialect's document maker is tested on its own and with the
 * engine through the server (test/integration/).
 */
export class LedgerScraper implements DocumentScraper {
  readonly attempts = new Map<string, number>();

  constructor(private readonly billing: Billing, private readonly cost = 1) {}

  engineOf(): 'plain' {
    return 'plain';
  }

  async scrape(item: ItemScrape): Promise<ScrapedDocument> {
    this.attempts.set(item.url, (this.attempts.get(item.url) ?? 0) + 1);
    const facts = { operation: item.operation, engine: 'plain', proxyType: 'datacenter', proxyCountry: null, targetHost: new URL(item.url).hostname };
    const reservation = await this.billing.reserve(item.caller.keyHash, { cost: this.cost, budgeted: false, at: Date.now() }, facts, { at: Date.now() + 10_000, budgetMs: 10_000 }, item.caller.clientAddress, item.requestId);
    try {
      let res: Response;
      try {
        res = await fetch(item.url, { signal: AbortSignal.timeout(5_000) });
      } catch (err) {
        throw new UnreachableError((err as Error).message);
      }
      const body = await res.text();
      if (!item.lastAttempt && (res.status >= 500 || res.status === 429)) throw new RetryablePageError(res.status);
      const document = { markdown: body, metadata: { sourceURL: item.url, url: item.url, statusCode: res.status, proxyUsed: 'basic' as const, creditsUsed: this.cost, scrapeId: item.requestId } };
      await item.answered(document, this.cost);
      await reservation.charge({ status: 200, pageStatus: res.status, failure: null, proxyCountry: null });
      return { document, cost: this.cost };
    } catch (err) {
      await reservation.refund({ status: 404, pageStatus: null, failure: (err as Error).message, proxyCountry: null }, false);
      throw err;
    }
  }
}

/** Every event the engine records, as the real outbox would be handed them (webhooks/ delivers them). */
export class RecordingOutbox implements WebhookOutbox {
  readonly events: JobEvent[] = [];

  async enqueue(event: JobEvent): Promise<void> {
    if (event.subscription.events.includes(event.type)) this.events.push(event);
  }

  wake(): void {}
}

export interface JobInstance {
  parts: Awaited<ReturnType<typeof jobParts>>;
  scraper: LedgerScraper;
  outbox: RecordingOutbox;
  stop(): Promise<void>;
}

/** One instance of the job engine on the store's database and the given Redis (undefined: a private one). */
export async function jobInstance(store: TestStore, env: Record<string, string>, redisUrl?: string): Promise<JobInstance> {
  const config = loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'scrapegate-jobs-')), JOB_STALLED_SECONDS: '2', JOB_RETRY_BASE_SECONDS: '0.05',
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}), ...env,
  });
  const billing = new Billing({
    store: new SqlBillingStore(store.db), deferred: new DeferredWrites({ firstDelayMs: 10, maxDelayMs: 20 }),
    budget: { allowance: 0, windowMs: 3_600_000 }, leaseGraceMs: 1_000, instanceId: `test-${Math.random()}`,
  });
  const scraper = new LedgerScraper(billing);
  const outbox = new RecordingOutbox();
  const stopping = new AbortController();
  const parts = await jobParts(config, {
    db: store.db, scraper, outbox, metrics: new Metrics(), browserSessions: 0, stopping: stopping.signal, logger: pino({ level: process.env.JOB_TEST_LOG ?? 'silent' }),
    keyOf: (caller) => billing.accountByHash(caller.keyHash, caller.clientAddress),
  });
  parts.start();
  return {
    parts, scraper, outbox,
    async stop() {
      stopping.abort();
      await parts.stop();
    },
  };
}

export const callerOf = (key: string) => ({ keyHash: hashApiKey(key), clientAddress: '127.0.0.1' });
