import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type express from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { HtmlWorkers } from '../content/html-work/html-workers.js';
import type { TargetPolicy } from '../egress/target-policy/target-policy.js';
import type { BodyBudget } from '../http/body/body-budget.js';
import { firecrawlRoutes } from '../http/firecrawl/firecrawl-routes.js';
import { closeWatcherUpgrade } from '../http/firecrawl/watcher-upgrade.js';
import { loadSpecAssets, type SpecAssets } from '../http/spec-assets.js';
import { FirecrawlDocuments } from '../jobs/firecrawl/firecrawl-documents.js';
import type { Jobs, WebhookPolicy } from '../jobs/job-ports.js';
import type { Crawls } from '../jobs/crawl/crawl-starter.js';
import type { SiteMapper } from '../jobs/crawl/site-mapper.js';
import type { Answers } from '../scrape/answers/answers.js';
import type { ScrapeService } from '../scrape/scrape-service.js';

/** The Firecrawl dialect's document maker: the job engine's DocumentScraper, and POST /v2/scrape's. */
export function firecrawlDocuments(with_: { service: ScrapeService; htmlWorkers: HtmlWorkers }): FirecrawlDocuments {
  return new FirecrawlDocuments({ service: with_.service, workers: with_.htmlWorkers });
}

/** What the Firecrawl dialect's edge is given by the composition: the lead's job engine among them. */
export interface FirecrawlDeps {
  documents: FirecrawlDocuments;
  /** The job engine; undefined: batches answer 503. */
  jobs: Jobs | undefined;
  /** The webhook policy; undefined: a batch with a webhook is a 400. */
  webhooks: WebhookPolicy | undefined;
  /** The scrapes' target policy: a batch's URLs are judged by it at submission. */
  policy: TargetPolicy;
  /** Crawls and maps; undefined: they answer 503. */
  crawls?: Crawls;
  mapper?: SiteMapper;
}

export interface FirecrawlEdge {
  /** POST /v2/scrape and /v2/batch/scrape…, with their own error answers: mounted beside the API's routes. */
  routes: express.Router;
  /** The document and its Redoc page (/openapi/firecrawl.json, /docs/firecrawl). */
  spec: SpecAssets;
  /** The http server's 'upgrade' listener: a job watcher's WebSocket is accepted and closed (1000); any other upgrade refused. */
  upgrade(req: IncomingMessage, socket: Duplex): void;
}

/**
 * The Firecrawl dialect's HTTP edge: its document's routes over the document maker, the job
 * engine (`jobs`; undefined: batches answer 503), the webhook policy and the target policy (a
 * batch's URLs judged at submission).
 */
export async function firecrawlParts(
  config: Config,
  with_: FirecrawlDeps & { service: ScrapeService; answers: Answers; bodyBudget: BodyBudget; logger: Logger },
): Promise<FirecrawlEdge> {
  const { service } = with_;
  const spec = loadSpecAssets(undefined, 'firecrawl');
  const routes = await firecrawlRoutes(spec.document, {
    documents: with_.documents,
    jobs: with_.jobs,
    webhooks: with_.webhooks,
    policy: with_.policy,
    crawls: with_.crawls,
    mapper: with_.mapper,
    answers: with_.answers,
    authenticate: (caller) => service.account(caller),
    batchMaxUrls: config.jobs.batchMaxUrls,
    publicBaseUrl: config.jobs.publicBaseUrl,
    bodyBudget: with_.bodyBudget,
    logger: with_.logger,
  });
  return {
    routes,
    spec,
    upgrade(req, socket) {
      if (!closeWatcherUpgrade(req, socket)) socket.destroy();
    },
  };
}
