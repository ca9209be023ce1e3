import type { ProxyType } from '../../config/catalog.js';
import type { HtmlWorkers } from '../../content/html-work/html-workers.js';
import { ProxyUnavailableError } from '../../egress/fetch-errors.js';
import { AntiBotDetectedError } from '../../scrape/anti-bot-error.js';
import type { Caller, ScrapeService } from '../../scrape/scrape-service.js';
import type { DocumentScraper, ItemScrape, JobDocument, ScrapedDocument, StoredScrapeOptions } from '../job-ports.js';
import { documentAnswer } from './document-answer.js';
import { decodeOptions, type FirecrawlOptions } from './firecrawl-options.js';
import { itemRequest } from './item-request.js';

export interface FirecrawlDocumentsDeps {
  service: ScrapeService;
  /** The service's HTML workers (the pages'), where every piece of work on a page's HTML runs. */
  workers: HtmlWorkers;
}

/** One scrape as the document maker runs it, from a job item or from POST /v2/scrape. */
export interface DocumentCall {
  operation: string;
  caller: Caller;
  url: string;
  options: FirecrawlOptions;
  requestId?: string;
  lastAttempt: boolean;
  discoverLinks: boolean;
  cancelled?: AbortSignal;
  /** The document made and its cost, before the charge; with the page's links when `discoverLinks` asked for them. */
  answered?: (document: JobDocument, cost: number, links: string[] | undefined) => Promise<void>;
  /**
   * A job's item (a batch's or a crawl's page): it yields to synchronous requests
   * (scrape/sync-demand.ts). Required, so that no caller is synchronous demand by omission: a
   * crawl's pages once were, and held the instance's other job workers back as a caller would.
   */
  background: boolean;
}

/**
 * The Firecrawl dialect's document maker: a page scraped through the scrape service (billed,
 * fetched, answered and settled there, as any API call) and made into a Firecrawl document. It
 * serves the job engine's items (DocumentScraper) and POST /v2/scrape alike.
 */
export class FirecrawlDocuments implements DocumentScraper {
  constructor(private readonly deps: FirecrawlDocumentsDeps) {}

  engineOf(options: StoredScrapeOptions): 'plain' | 'browser' {
    return decodeOptions(options).browser ? 'browser' : 'plain';
  }

  scrape(item: ItemScrape): Promise<ScrapedDocument> {
    return this.make({
      operation: item.operation,
      caller: item.caller,
      url: item.url,
      options: decodeOptions(item.options),
      requestId: item.requestId,
      lastAttempt: item.lastAttempt,
      discoverLinks: item.discoverLinks,
      cancelled: item.cancelled,
      answered: (document, cost) => item.answered(document, cost),
      background: true,
    });
  }

  /**
   * The page's document. `proxy: auto` leaves through a datacenter proxy, and through a
   * residential one when the page is a wall or a 403 (each attempt settled on its own: the
   * first refunded, only the document charged); where the server has no residential proxies, the
   * datacenter answer stands.
   */
  async make(call: DocumentCall): Promise<ScrapedDocument> {
    const { proxy } = call.options;
    if (proxy !== 'auto') return this.attempt(call, proxy === 'stealth' ? 'residential' : 'datacenter', false);
    try {
      return await this.attempt(call, 'datacenter', true);
    } catch (err) {
      if (!(err instanceof AntiBotDetectedError)) throw err;
      try {
        return await this.attempt(call, 'residential', false);
      } catch (again) {
        if (again instanceof ProxyUnavailableError && again.param === 'proxy_type') return this.attempt(call, 'datacenter', false);
        throw again;
      }
    }
  }

  private async attempt(call: DocumentCall, proxyType: ProxyType, escalateOn403: boolean): Promise<ScrapedDocument> {
    const answer = documentAnswer(this.deps.workers, {
      sourceURL: call.url,
      options: call.options,
      proxyUsed: proxyType === 'residential' ? 'stealth' : 'basic',
      lastAttempt: call.lastAttempt,
      discoverLinks: call.discoverLinks,
      escalateOn403,
    });
    const result = await this.deps.service.scrape({
      operation: call.operation,
      caller: call.caller,
      request: itemRequest(call.url, call.options, proxyType),
      answer,
      cancelled: call.cancelled,
      requestId: call.requestId,
      background: call.background,
      answered: async (made, settled) => {
        made.document.metadata.creditsUsed = settled.cost;
        made.document.metadata.scrapeId = settled.requestId;
        await call.answered?.(made.document, settled.cost, made.links);
      },
    });
    const { document, links } = result.answer;
    return links === undefined ? { document, cost: result.cost } : { document, cost: result.cost, links };
  }
}
