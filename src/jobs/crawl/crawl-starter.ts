import type { Caller } from '../../scrape/scrape-service.js';
import type { JobErrors, Jobs, StoredScrapeOptions, WebhookSubscription } from '../job-ports.js';
import { checkPatterns, type CrawlRules } from './crawl-rules.js';
import type { CrawlStore } from './crawl-store.js';
import { keyDigest, urlKey } from './url-key.js';

/** A crawl as the edge asks for it: its start URL allowed, its scrape options validated. */
export interface CrawlRequest {
  caller: Caller;
  rules: CrawlRules;
  options: StoredScrapeOptions;
  webhook?: WebhookSubscription;
  idempotencyKey?: string;
  maxConcurrency?: number;
}

/** robotsBlocked lists this many URLs at most. */
const MAX_BLOCKED_LISTED = 10_000;

/** What the edge asks of crawls beyond what every job answers (jobs/job-ports.ts Jobs). */
export class Crawls {
  constructor(private readonly jobs: Jobs, private readonly store: CrawlStore) {}

  /** The crawl's job, with its rules and its start URL as the first page of its frontier. Patterns refused name themselves (400). */
  start(request: CrawlRequest): Promise<{ id: string }> {
    const { rules } = request;
    checkPatterns('includePaths', rules.includePaths);
    checkPatterns('excludePaths', rules.excludePaths);
    const key = urlKey(rules.startUrl, { ignoreQuery: rules.ignoreQueryParameters, similar: rules.deduplicateSimilarURLs }) ?? rules.startUrl;
    const start = { url: rules.startUrl, digest: keyDigest(key), depth: 0, foundOn: undefined };
    return this.jobs.submitCrawl({
      caller: request.caller, url: rules.startUrl, options: request.options, webhook: request.webhook, idempotencyKey: request.idempotencyKey,
      maxConcurrency: request.maxConcurrency, seed: (trx, jobId) => this.store.seed(trx, jobId, JSON.stringify(rules), start),
    });
  }

  /** The job's failed pages (its owner's only), and the URLs robots.txt refused. */
  async errors(caller: Caller, id: string): Promise<JobErrors> {
    // The crawl's own kind: a batch's id must not list its errors here (nor its robots-refused URLs).
    const { errors } = await this.jobs.errors(caller, 'crawl', id);
    return { errors, robotsBlocked: await this.store.robotsBlocked(id, MAX_BLOCKED_LISTED) };
  }
}
