import type { TargetPolicy } from '../../egress/target-policy/target-policy.js';
import type { operations } from '../../generated/firecrawl-types.js';
import type { Crawls } from '../../jobs/crawl/crawl-starter.js';
import type { SiteMapper } from '../../jobs/crawl/site-mapper.js';
import { storedOptions } from '../../jobs/firecrawl/firecrawl-options.js';
import type { Jobs, WebhookPolicy } from '../../jobs/job-ports.js';
import type { Answers } from '../../scrape/answers/answers.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import type { Caller } from '../../scrape/scrape-service.js';
import { recordCost } from '../answer-locals.js';
import { firecrawlOptions } from '../decode/firecrawl-options.js';
import { JobsUnavailableError } from '../errors/firecrawl-errors.js';
import type { HandlersOf } from '../routing/operations.js';
import { urlRefusal } from '../../egress/target-policy/url-refusal.js';
import { authenticatedCaller } from './firecrawl-caller.js';
import { checkInWorkers } from './option-checks.js';
import { publicBase } from './public-base.js';
import { subscription } from './webhook-subscription.js';

type CrawlOperations = Pick<operations, 'firecrawlCrawlStart' | 'firecrawlCrawlActive' | 'firecrawlCrawlStatus' | 'firecrawlCrawlCancel' | 'firecrawlCrawlErrors' | 'firecrawlMap'>;

export interface CrawlEdgeDeps {
  jobs: Jobs | undefined;
  /** Crawls beyond what every job answers; undefined with `jobs`: crawls answer 503. */
  crawls?: Crawls;
  mapper?: SiteMapper;
  webhooks: WebhookPolicy | undefined;
  policy: TargetPolicy;
  answers: Answers;
  authenticate: (caller: Caller) => Promise<unknown>;
  publicBaseUrl: string | undefined;
}

/** The token robots.txt groups are matched for when the crawl sends no User-Agent of its own. */
const ROBOTS_AGENT = 'scrapegate';

/** The absolute URL of a crawl's status, and of its page from `skip` (keeping the caller's `limit`). */
function crawlStatusUrl(base: string, id: string, page?: { skip: number; limit: number | undefined }): string {
  const url = `${base}/v2/crawl/${encodeURIComponent(id)}`;
  if (!page) return url;
  return `${url}?skip=${page.skip}${page.limit === undefined ? '' : `&limit=${page.limit}`}`;
}

/** POST /v2/crawl and its status, errors, cancel and active list; POST /v2/map. */
export function crawlHandlers(deps: CrawlEdgeDeps): HandlersOf<CrawlOperations> {
  const jobs = (): Jobs => {
    if (!deps.jobs) throw new JobsUnavailableError();
    return deps.jobs;
  };
  const crawls = (): Crawls => {
    if (!deps.crawls) throw new JobsUnavailableError();
    return deps.crawls;
  };
  return {
    firecrawlCrawlStart: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      const b = v.body;
      if (b.prompt !== undefined) throw new InvalidValueError('prompt', 'prompt is not supported by this server: give the crawl options themselves', 'value_error.not_supported');
      const refused = urlRefusal(b.url, deps.policy);
      if (refused !== undefined) throw new InvalidValueError('url', `the URL cannot be crawled: ${refused}`, 'value_error.url');
      const options = firecrawlOptions(b.scrapeOptions ?? {});
      await checkInWorkers(deps.answers, options, caller.keyHash);
      const agent = Object.entries(options.headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1];
      const webhook = b.webhook === undefined ? undefined : await subscription(b.webhook, deps.webhooks);
      const { id } = await crawls().start({
        caller,
        options: storedOptions(options),
        webhook,
        idempotencyKey: req.get('x-idempotency-key') || undefined,
        maxConcurrency: b.maxConcurrency,
        rules: {
          startUrl: new URL(b.url).href, limit: b.limit ?? 10_000, maxDiscoveryDepth: b.maxDiscoveryDepth ?? null, includePaths: b.includePaths ?? [], excludePaths: b.excludePaths ?? [],
          regexOnFullURL: b.regexOnFullURL ?? false, crawlEntireDomain: b.crawlEntireDomain ?? false, allowSubdomains: b.allowSubdomains ?? false,
          allowExternalLinks: b.allowExternalLinks ?? false, sitemap: b.ignoreSitemap === true ? 'skip' : (b.sitemap ?? 'include'), ignoreRobotsTxt: b.ignoreRobotsTxt ?? false,
          ignoreQueryParameters: b.ignoreQueryParameters ?? false, deduplicateSimilarURLs: b.deduplicateSimilarURLs ?? true,
          delayMs: b.delay === undefined || b.delay === 0 ? null : Math.round(b.delay * 1000), robotsAgent: agent ?? ROBOTS_AGENT,
        },
      });
      res.json({ success: true, id, url: crawlStatusUrl(publicBase(req, deps.publicBaseUrl), id) });
    },

    firecrawlCrawlStatus: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      const limit = v.query.limit;
      const page = await jobs().page(caller, 'crawl', v.path.id, { skip: v.query.skip ?? 0, limit });
      const next = page.nextSkip === undefined ? {} : { next: crawlStatusUrl(publicBase(req, deps.publicBaseUrl), page.id, { skip: page.nextSkip, limit }) };
      res.json({ success: true, status: page.status, total: page.total, completed: page.completed, creditsUsed: page.creditsUsed, expiresAt: page.expiresAt.toISOString(), ...next, data: page.documents });
    },

    firecrawlCrawlCancel: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      await jobs().cancel(caller, 'crawl', v.path.id);
      res.json({ success: true, status: 'cancelled' });
    },

    firecrawlCrawlErrors: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      res.json(await crawls().errors(caller, v.path.id));
    },

    firecrawlCrawlActive: async (_v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      const active = await jobs().active(caller, 'crawl');
      res.json({
        success: true,
        crawls: active.map((j) => ({ id: j.id, url: j.url ?? '', status: j.status, total: j.total, completed: j.completed, creditsUsed: j.creditsUsed, createdAt: j.createdAt.toISOString() })),
      });
    },

    firecrawlMap: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      if (!deps.mapper) throw new JobsUnavailableError();
      const b = v.body;
      const refused = urlRefusal(b.url, deps.policy);
      if (refused !== undefined) throw new InvalidValueError('url', `the URL cannot be mapped: ${refused}`, 'value_error.url');
      const { links, cost } = await deps.mapper.map({
        caller, url: new URL(b.url).href, search: b.search, sitemap: b.sitemap ?? 'include', includeSubdomains: b.includeSubdomains ?? true,
        ignoreQueryParameters: b.ignoreQueryParameters ?? true, limit: b.limit ?? 5_000, timeoutMs: b.timeout ?? 60_000, options: firecrawlOptions({ formats: ['links'] }),
        robotsAgent: ROBOTS_AGENT,
      });
      recordCost(res, cost);
      res.json({ success: true, links, creditsUsed: cost });
    },
  };
}
