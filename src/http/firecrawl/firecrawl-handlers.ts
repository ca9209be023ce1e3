import type { TargetPolicy } from '../../egress/target-policy/target-policy.js';
import type { operations } from '../../generated/firecrawl-types.js';
import type { FirecrawlDocuments } from '../../jobs/firecrawl/firecrawl-documents.js';
import { storedOptions } from '../../jobs/firecrawl/firecrawl-options.js';
import type { Jobs, WebhookPolicy } from '../../jobs/job-ports.js';
import type { Crawls } from '../../jobs/crawl/crawl-starter.js';
import type { SiteMapper } from '../../jobs/crawl/site-mapper.js';
import type { Answers } from '../../scrape/answers/answers.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import type { Caller } from '../../scrape/scrape-service.js';
import { recordCost, recordRequestId, scrapeCall } from '../answer-locals.js';
import { firecrawlOptions } from '../decode/firecrawl-options.js';
import { JobsUnavailableError } from '../errors/firecrawl-errors.js';
import type { HandlersOf } from '../routing/operations.js';
import { urlRefusal } from '../../egress/target-policy/url-refusal.js';
import { sortUrls } from './batch-urls.js';
import { authenticatedCaller } from './firecrawl-caller.js';
import { checkInWorkers } from './option-checks.js';
import { batchStatusUrl, publicBase } from './public-base.js';
import { crawlHandlers } from './crawl-handlers.js';
import { subscription } from './webhook-subscription.js';

export type FirecrawlHandlers = HandlersOf<operations>;

export interface FirecrawlEdgeDeps {
  documents: FirecrawlDocuments;
  /** The job engine; undefined: this server takes no batches (503). */
  jobs: Jobs | undefined;
  /** Judges webhook URLs; undefined: a batch with a webhook is refused. */
  webhooks: WebhookPolicy | undefined;
  policy: TargetPolicy;
  answers: Answers;
  /** The key's account, or its refusal (the billing's): before anything else is done. */
  authenticate: (caller: Caller) => Promise<unknown>;
  batchMaxUrls: number;
  publicBaseUrl: string | undefined;
  /** Crawls (their start and robotsBlocked) and maps; undefined: they answer 503. */
  crawls?: Crawls;
  mapper?: SiteMapper;
}

/** A refusal lists this many of the URLs refused, at most. */
const LISTED_REFUSALS = 20;

/** The Firecrawl operations: each judges its caller's key first, then answers in Firecrawl's shapes. */
export function firecrawlHandlers(deps: FirecrawlEdgeDeps): FirecrawlHandlers {
  const jobs = (): Jobs => {
    if (!deps.jobs) throw new JobsUnavailableError();
    return deps.jobs;
  };
  return {
    ...crawlHandlers(deps),
    firecrawlScrape: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      const { url, ...fields } = v.body;
      const refused = urlRefusal(url, deps.policy);
      if (refused !== undefined) throw new InvalidValueError('url', `the URL cannot be scraped: ${refused}`, 'value_error.url');
      const options = firecrawlOptions(fields);
      await checkInWorkers(deps.answers, options, caller.keyHash);
      const { cancelled } = scrapeCall(res);
      const made = await deps.documents.make({ operation: 'firecrawlScrape', caller, url, options, lastAttempt: true, discoverLinks: false, cancelled, background: false });
      recordRequestId(res, made.document.metadata.scrapeId);
      recordCost(res, made.cost);
      res.json({ success: true, data: made.document });
    },

    firecrawlBatchScrapeStart: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      const { urls, webhook, ignoreInvalidURLs, maxConcurrency, maxRetries, appendToId, ...fields } = v.body;
      if (appendToId !== undefined) throw new InvalidValueError('appendToId', 'appendToId is not supported by this server', 'value_error.not_supported');
      if (urls.length > deps.batchMaxUrls) throw new InvalidValueError('urls', `a batch may have at most ${deps.batchMaxUrls} URLs`, 'value_error.list.max_items');
      const options = firecrawlOptions(fields);
      await checkInWorkers(deps.answers, options, caller.keyHash);
      const sorted = await sortUrls(urls, deps.policy);
      if (sorted.invalid.length > 0 && ignoreInvalidURLs === false) {
        throw InvalidValueError.of(sorted.invalid.slice(0, LISTED_REFUSALS).map(({ index, why }) => ({ param: `urls.${index}`, msg: `the URL cannot be scraped: ${why}`, type: 'value_error.url' })));
      }
      if (sorted.valid.length === 0) throw new InvalidValueError('urls', 'none of the URLs can be scraped', 'value_error.url');
      const subscribed = webhook === undefined ? undefined : await subscription(webhook, deps.webhooks);
      const idempotencyKey = req.get('x-idempotency-key') || undefined;
      const { id } = await jobs().submitBatch({ caller, urls: sorted.valid, options: storedOptions(options), webhook: subscribed, idempotencyKey, maxConcurrency, maxRetries });
      const invalidURLs = sorted.invalid.map((refused) => refused.url);
      res.json({ success: true, id, url: batchStatusUrl(publicBase(req, deps.publicBaseUrl), id), ...(invalidURLs.length > 0 ? { invalidURLs } : {}) });
    },

    firecrawlBatchScrapeStatus: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      const skip = v.query.skip ?? 0;
      const limit = v.query.limit;
      const page = await jobs().page(caller, 'batch_scrape', v.path.id, { skip, limit });
      const next = page.nextSkip === undefined ? {} : { next: batchStatusUrl(publicBase(req, deps.publicBaseUrl), page.id, { skip: page.nextSkip, limit }) };
      res.json({
        success: true,
        status: page.status,
        total: page.total,
        completed: page.completed,
        creditsUsed: page.creditsUsed,
        expiresAt: page.expiresAt.toISOString(),
        ...next,
        data: page.documents,
      });
    },

    firecrawlBatchScrapeCancel: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      await jobs().cancel(caller, 'batch_scrape', v.path.id);
      res.json({ success: true, status: 'cancelled' });
    },

    firecrawlBatchScrapeErrors: async (v, req, res) => {
      const caller = await authenticatedCaller(req, res, deps.authenticate);
      const { errors, robotsBlocked } = await jobs().errors(caller, 'batch_scrape', v.path.id);
      res.json({ errors, robotsBlocked });
    },
  };
}
