import type { Redis } from 'ioredis';
import type { Config } from '../config/config.js';
import { HtmlWorkers } from '../content/html-work/html-workers.js';
import type { Egress } from '../egress/egress.js';
import type { TargetPolicy } from '../egress/target-policy/target-policy.js';
import { CrawlScraper } from '../jobs/crawl/crawl-scraper.js';
import { Crawls } from '../jobs/crawl/crawl-starter.js';
import { HostGate } from '../jobs/crawl/host-gate.js';
import { LinkFilter } from '../jobs/crawl/link-filter.js';
import { RobotsBook } from '../jobs/crawl/robots-book.js';
import { SiteFetcher } from '../jobs/crawl/site-fetcher.js';
import { SiteMapper } from '../jobs/crawl/site-mapper.js';
import { SITEMAP_LIMITS } from '../jobs/crawl/sitemap-reader.js';
import type { FirecrawlDocuments } from '../jobs/firecrawl/firecrawl-documents.js';
import type { Jobs } from '../jobs/job-ports.js';
import type { Database } from '../store/database.js';
import { translated } from '../store/driver-errors.js';
import { CrawlStoreSql } from '../store/jobs/crawl-store-sql.js';

/** Matching a page's links against a crawl's patterns takes at most this long (its thread is ended past it). */
const PATTERN_TASK_MS = 1_000;

/**
 * Crawls and maps: robots.txt and sitemaps through the egress, the frontier in the database,
 * each host's politeness in the job engine's Redis, the crawl's patterns and the sites' sitemaps
 * on worker threads of their own. The scraper wraps the document maker for the job engine's items.
 */
export function crawlParts(config: Config, w: { db: Database; documents: FirecrawlDocuments; egress: Egress; policy: TargetPolicy }) {
  // A site's file is read up to a sitemap's bytes (robots.txt asks for less: robots-book.ts).
  const files = new SiteFetcher(w.egress, { maxBytes: SITEMAP_LIMITS.bytes, maxRedirects: config.maxRedirects });
  const robots = new RobotsBook(files);
  const store = translated(new CrawlStoreSql(w.db.knex));
  const patternWorkers = new HtmlWorkers({ threads: 1, queueSize: config.htmlWork.queueSize, perKeyQueue: config.htmlWork.perKeyQueue, taskTimeoutMs: PATTERN_TASK_MS });
  const sitemapWorkers = new HtmlWorkers({ threads: 1, queueSize: config.htmlWork.queueSize, perKeyQueue: config.htmlWork.perKeyQueue, taskTimeoutMs: SITEMAP_LIMITS.parseMs });
  const filter = new LinkFilter({ policy: w.policy, patternWorkers, robots });
  return {
    mapper: new SiteMapper({ documents: w.documents, robots, files, policy: w.policy, sitemapWorkers }),
    /** The job engine's scraper: crawls' pages through the host gate on `redis`, batches' straight through. */
    scraper: (redis: Redis, prefix: string) =>
      new CrawlScraper({ documents: w.documents, store, gate: new HostGate(redis, prefix), robots, files, filter, sitemapWorkers, hostCap: config.jobs.crawlHostConcurrency }),
    crawls: (jobs: Jobs) => new Crawls(jobs, store),
    async stop(): Promise<void> {
      await Promise.all([patternWorkers.close(), sitemapWorkers.close()]);
    },
  };
}
