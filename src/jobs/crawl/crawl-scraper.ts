import { decodeOptions } from '../firecrawl/firecrawl-options.js';
import type { HtmlWorkers } from '../../content/html-work/html-workers.js';
import type { FirecrawlDocuments } from '../firecrawl/firecrawl-documents.js';
import type { DocumentScraper, ItemScrape, ScrapedDocument, StoredScrapeOptions } from '../job-ports.js';
import { RetryablePageError } from '../retryable-page-error.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import { decodeRules, type CrawlRules } from './crawl-rules.js';
import { checkRedirect } from './crawl-redirect.js';
import type { CrawlPage, CrawlStore } from './crawl-store.js';
import { GatedFiles } from './gated-files.js';
import type { HostGate, HostRule } from './host-gate.js';
import type { Candidate, LinkFilter } from './link-filter.js';
import type { RobotsBook, RobotsRules } from './robots-book.js';
import type { SiteFiles } from './site-fetcher.js';
import { SITEMAP_LIMITS, sitemapUrls, type SitemapParser } from './sitemap-reader.js';
import { keyDigest, urlKey } from './url-key.js';

export interface CrawlScraperDeps {
  documents: FirecrawlDocuments;
  store: CrawlStore;
  gate: HostGate;
  robots: RobotsBook;
  files: SiteFiles;
  filter: LinkFilter;
  /** Where a site's sitemaps are parsed (their `sitemapXml` task). */
  sitemapWorkers: HtmlWorkers;
  /** CRAWL_HOST_CONCURRENCY: a host's requests at once when no delay applies. */
  hostCap: number;
}

/** A 429 or 503 without Retry-After backs its host off this long. */
const DEFAULT_BACK_OFF_MS = 2_000;
/** Crawls whose decoded rules are kept. */
const MAX_KEPT_RULES = 1_000;

/** The start URL is refused by robots.txt: the crawl has nothing it may fetch. */
export class RobotsRefusedError extends InvalidValueError {
  constructor() {
    super('url', "the site's robots.txt does not allow crawling this URL", 'value_error.robots');
  }
}

/**
 * The page's robots.txt could not be read for now (a 5xx, no answer): the page is tried again
 * later, with backoff, as a target's 5xx is; on its last attempt the site's silence refuses it.
 */
export class RobotsUnavailableError extends Error {
  readonly outcome = 'target_unusable';

  constructor() {
    super("the site's robots.txt cannot be read for now (a 5xx or no answer): tried again later");
    this.name = 'RobotsUnavailableError';
  }
}

/**
 * The job engine's scraper for a crawl's pages (a batch's go straight to the document maker).
 * Each page waits for its host's turn (host-gate.ts), is scraped and charged like any item, and
 * before its document is stored, the links it gave (and, for the start page, the site's
 * sitemaps) are sorted and recorded as the crawl's next items: so a crash anywhere loses no link,
 * and a page run again records nothing twice (the frontier is unique per crawl). A page that
 * redirected is held to where it ended first (crawl-redirect.ts).
 */
export class CrawlScraper implements DocumentScraper {
  /** Rules never change once a crawl is accepted: decoded once per crawl (and per instance), not per page. */
  private readonly rulesOf = new Map<string, CrawlRules>();

  constructor(private readonly deps: CrawlScraperDeps) {}

  engineOf(options: StoredScrapeOptions): 'plain' | 'browser' {
    return this.deps.documents.engineOf(options);
  }

  async scrape(item: ItemScrape): Promise<ScrapedDocument> {
    if (item.operation !== 'crawl') return this.deps.documents.scrape(item);
    // The page's place in the frontier is read while its host's turn is awaited: once a crawl's
    // rules are known here, a page waits for neither query before its fetch.
    const pending = this.deps.store.pageOf(item.requestId).then((found) => {
      if (!found) throw new Error('a crawl item has no page in its frontier');
      return found;
    });
    pending.catch(() => undefined);
    const known = item.job && item.job.idx !== 0 ? this.rulesOf.get(item.job.id) : undefined;
    const rules = known ?? this.rules(await pending);
    const start = known === undefined && (await pending).idx === 0;
    const options = decodeOptions(item.options);
    // robots.txt and sitemaps are read in their host's turns, as its pages are, before this page's.
    const files = new GatedFiles(this.deps.files, this.deps.gate, this.deps.hostCap, item.cancelled);
    const robots = rules.ignoreRobotsTxt ? undefined : await this.deps.robots.rulesOf(item.url, files);
    if (robots?.unavailable && !item.lastAttempt) throw new RobotsUnavailableError();
    // Other pages' robots.txt was read as their link was followed; one unreadable then is read now.
    if ((start || robots?.unavailable) && robots && !robots.allows(item.url, rules.robotsAgent)) {
      const page = await pending;
      const digest = keyDigest(urlKey(page.url, { ignoreQuery: false, similar: false }) ?? page.url);
      await this.deps.store.discover(page.jobId, [], [{ url: page.url, digest: `robots-${digest}`.slice(0, 40), depth: 0, foundOn: undefined }], rules.limit, Date.now());
      throw new RobotsRefusedError();
    }
    const fromSitemaps = start && rules.sitemap !== 'skip' ? await this.sitemapCandidates(files, rules, robots, item.caller.keyHash) : [];
    const host = new URL(item.url).host;
    const turn = await this.deps.gate.enter(host, this.hostRule(rules, robots, options.timeoutMs), item.cancelled);
    try {
      return await this.deps.documents.make({
        operation: 'crawl', caller: item.caller, url: item.url, options, requestId: item.requestId,
        lastAttempt: item.lastAttempt, discoverLinks: rules.sitemap !== 'only', cancelled: item.cancelled, background: true,
        answered: async (document, cost, links) => {
          const page = await pending;
          await checkRedirect(this.deps, page, rules, document.metadata.url, item.caller.keyHash);
          document.metadata.depth = page.depth;
          if (page.foundOn !== undefined) document.metadata.foundOn = page.foundOn;
          await this.follow(page, rules, [...fromSitemaps, ...this.linkCandidates(page, rules, links ?? [])], item.caller.keyHash);
          await item.answered(document, cost);
        },
      });
    } catch (err) {
      if (err instanceof RetryablePageError && (err.status === 429 || err.status === 503)) await this.deps.gate.backOff(host, err.retryAfterMs ?? DEFAULT_BACK_OFF_MS);
      throw err;
    } finally {
      // Not awaited: a turn handed back late only ever holds the host back longer.
      void turn.release().catch(() => undefined);
    }
  }

  private rules(page: CrawlPage): CrawlRules {
    let rules = this.rulesOf.get(page.jobId);
    if (!rules) {
      if (this.rulesOf.size >= MAX_KEPT_RULES) this.rulesOf.delete(this.rulesOf.keys().next().value as string);
      rules = decodeRules(page.rules);
      this.rulesOf.set(page.jobId, rules);
    }
    return rules;
  }

  /** `delay`, else robots.txt's Crawl-delay: one at a time, that far apart; else the host cap. */
  private hostRule(rules: CrawlRules, robots: RobotsRules | undefined, timeoutMs: number): HostRule {
    const leaseMs = timeoutMs + 10_000;
    const spacing = rules.delayMs ?? robots?.delayMs(rules.robotsAgent);
    return spacing !== undefined ? { cap: 1, spacingMs: spacing, leaseMs } : { cap: this.deps.hostCap, spacingMs: 0, leaseMs };
  }

  private linkCandidates(page: CrawlPage, rules: CrawlRules, links: string[]): Candidate[] {
    const depth = page.depth + 1;
    if (rules.maxDiscoveryDepth !== null && depth > rules.maxDiscoveryDepth) return [];
    return links.map((url) => ({ url, depth, foundOn: page.url }));
  }

  private async sitemapCandidates(files: SiteFiles, rules: CrawlRules, robots: RobotsRules | undefined, keyHash: string): Promise<Candidate[]> {
    const parse: SitemapParser = (input) => this.deps.sitemapWorkers.run('sitemapXml', input, { key: keyHash });
    const urls = await sitemapUrls(files, parse, new URL(rules.startUrl), robots?.sitemaps ?? [], {
      maxFiles: SITEMAP_LIMITS.files, maxUrls: Math.min(rules.limit * 2, SITEMAP_LIMITS.crawlUrls), maxBytes: SITEMAP_LIMITS.bytes, deadline: Date.now() + SITEMAP_LIMITS.crawlMs,
    });
    return urls.map((url) => ({ url, depth: 0, foundOn: undefined }));
  }

  private async follow(page: CrawlPage, rules: CrawlRules, candidates: Candidate[], keyHash: string): Promise<void> {
    if (candidates.length === 0) return;
    const { found, blocked } = await this.deps.filter.sort(rules, candidates, keyHash);
    await this.deps.store.discover(page.jobId, found, blocked, rules.limit, Date.now());
  }
}
