import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadCatalog } from '../config/catalog.js';
import type { Config } from '../config/config.js';
import { Drain, type DrainResult } from '../http/drain.js';
import { DatabaseMetrics } from '../observability/database-metrics.js';
import { SyncDemand } from '../scrape/sync-demand.js';
import { Metrics } from '../observability/metrics.js';
import { Readiness } from '../observability/readiness.js';
import { databaseAnswers } from '../store/database-ping.js';
import { migrate, openDatabase } from '../store/database.js';
import { sqlStores } from '../store/sql-stores.js';
import { billingParts } from './billing-parts.js';
import { edgeParts } from './edge-parts.js';
import { firecrawlDocuments } from './firecrawl-parts.js';
import { answerMalformedRequest } from './malformed-request.js';
import { scrapeParts, type ScrapeOverrides } from './scrape-parts.js';
import { crawlParts } from './crawl-parts.js';
import { jobParts } from './job-parts.js';
import { webhookParts } from './webhook-parts.js';

/** The longest any request may run: v1's 60 s, and v2's `timeout` at its maximum. */
const LONGEST_DEADLINE_MS = 60_000;
const REQUEST_TIMEOUT_MARGIN_MS = 10_000;
const HEADERS_TIMEOUT_MS = 15_000;

export interface RunningServer {
  port: number;
  /**
   * Graceful stop: not ready any more, no new connections, requests in flight finish within
   * `graceMs` (or until `endGrace` aborts) and the rest fail uncharged; then every browser quits
   * and the database closes.
   */
  shutdown(graceMs: number, endGrace?: AbortSignal): Promise<DrainResult>;
}

/**
 * Builds every part from the config, migrates the database and listens; the browsers warm up
 * after. `overrides` replace parts (the fast tests run the real server on engines of their own).
 */
export async function startServer(config: Config, logger: Logger, overrides: ScrapeOverrides = {}): Promise<RunningServer> {
  const catalog = loadCatalog(config.plansConfigPath);
  const db = openDatabase(config.databaseUrl);
  await migrate(db);
  const stores = sqlStores(db);
  if (config.adminToken !== undefined && (await stores.keys.find(config.adminToken))) {
    throw new Error('ADMIN_TOKEN is the secret of an API key: choose another token (a scraping key never opens the admin API).');
  }
  const metrics = new Metrics();
  const databaseMetrics = new DatabaseMetrics(metrics.registry);
  db.knex.on('query', () => databaseMetrics.statementSent());
  const drain = new Drain();
  const books = billingParts(config, stores, logger);
  // Synchronous scrapes before job items on this instance's CPU: the plain job workers yield to them.
  const demand = new SyncDemand({ quietMs: config.jobs.syncQuietMs, trickleMs: config.jobs.syncTrickleMs });
  const scrape = await scrapeParts(config, { catalog, billing: books.billing, refusals: books.refusals, metrics, stopping: drain.stopping, logger, overrides, demand });
  const { browser } = scrape;
  const readiness = new Readiness([
    { name: 'database', ready: () => databaseAnswers(db, 2_000) },
    ...(browser ? [{ name: 'browsers', ready: browser.ready }] : []),
  ]);
  const webhooks = webhookParts(config, { db, ownPorts: scrape.ownPorts, metrics, logger });
  // The document maker serves POST /v2/scrape and the job engine's items alike.
  const documents = firecrawlDocuments({ service: scrape.service, htmlWorkers: scrape.htmlWorkers });
  const crawling = crawlParts(config, { db, documents, egress: scrape.egress, policy: scrape.policy });
  const jobs = overrides.jobs
    ? undefined
    : await jobParts(config, {
        db, scraper: documents, scraperWith: crawling.scraper, outbox: webhooks.outbox, keyOf: (caller) => scrape.service.account(caller), metrics,
        browserSessions: browser ? config.browser.poolSize : 0, stopping: drain.stopping, logger, demand,
      });
  const firecrawl = {
    documents, jobs: overrides.jobs ?? jobs?.jobs, webhooks: overrides.webhooks ?? webhooks.policy, policy: scrape.policy,
    crawls: jobs ? crawling.crawls(jobs.jobs) : undefined, mapper: crawling.mapper,
  };
  const edge = await edgeParts(config, {
    stores, catalog, billing: books.billing, service: scrape.service, answers: scrape.answers, readiness, drain, metrics, logger, webhooks: webhooks.admin, firecrawl,
  });

  const server = edge.app.listen(config.port, config.host);
  // Headers arrive at once or never; a whole request (its body included) within the longest
  // deadline plus a margin. Node's defaults (60 s, 300 s) let a stalled upload hold its memory
  // for minutes. A body that stalls is cut sooner still (http/body/body-reader.ts).
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = LONGEST_DEADLINE_MS + REQUEST_TIMEOUT_MARGIN_MS;
  server.on('clientError', answerMalformedRequest);
  // Firecrawl's JS SDK watches a job over a WebSocket: accepted and closed, so that it polls.
  server.on('upgrade', edge.upgrade);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  scrape.ownPorts.add(port);
  logger.info({ port, host: config.host, database: db.dialect }, 'listening');
  browser?.warm();
  books.start();
  edge.sessionUpkeep.start();
  webhooks.start();
  jobs?.start();
  if ((await stores.keys.list()).length === 0) {
    logger.info('No API key exists yet. Create one with: npx scrapegate keys create --plan free');
  }
  return {
    port,
    async shutdown(graceMs, endGrace = new AbortController().signal) {
      readiness.drain();
      // Workers take no new item; those running finish within the grace, or end uncharged when the
      // drain stops the scrapes, and go back to the queue.
      const [result] = await Promise.all([drain.run(server, graceMs, endGrace), jobs?.stop()]);
      await webhooks.stop();
      await crawling.stop();
      await scrape.close();
      await edge.sessionUpkeep.stop();
      await books.stop();
      await db.close();
      return result;
    },
  };
}
