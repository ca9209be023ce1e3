import { expect } from 'chai';
import type { HtmlWorkers } from '../../../src/content/html-work/html-workers.js';
import { firecrawlOptions } from '../../../src/http/decode/firecrawl-options.js';
import { CrawlScraper, RobotsRefusedError, RobotsUnavailableError } from '../../../src/jobs/crawl/crawl-scraper.js';
import type { CrawlRules } from '../../../src/jobs/crawl/crawl-rules.js';
import type { CrawlPage, CrawlStore, FoundUrl } from '../../../src/jobs/crawl/crawl-store.js';
import type { HostGate } from '../../../src/jobs/crawl/host-gate.js';
import type { LinkFilter } from '../../../src/jobs/crawl/link-filter.js';
import { RobotsBook } from '../../../src/jobs/crawl/robots-book.js';
import type { SiteFile, SiteFiles } from '../../../src/jobs/crawl/site-fetcher.js';
import type { FirecrawlDocuments } from '../../../src/jobs/firecrawl/firecrawl-documents.js';
import { storedOptions } from '../../../src/jobs/firecrawl/firecrawl-options.js';
import type { ScrapedDocument } from '../../../src/jobs/job-ports.js';
import { decide } from '../../../src/jobs/retry-policy.js';

/** Nothing is contacted: robots.txt, the store, the gate and the page are fakes. */
const PAGE = 'http://127.0.0.1:8080/docs/a';
const rules: CrawlRules = {
  startUrl: 'http://127.0.0.1:8080/docs/', limit: 10, maxDiscoveryDepth: null, includePaths: [], excludePaths: [], regexOnFullURL: false, crawlEntireDomain: false,
  allowSubdomains: false, allowExternalLinks: false, sitemap: 'skip', ignoreRobotsTxt: false, ignoreQueryParameters: false, deduplicateSimilarURLs: true, delayMs: null, robotsAgent: 'scrapegate',
};
const page: CrawlPage = { jobId: 'job', idx: 1, url: PAGE, depth: 1, foundOn: rules.startUrl, rules: JSON.stringify(rules), status: 'scraping' };

function scraper(robotsStatus: number) {
  const blocked: FoundUrl[] = [];
  const made: string[] = [];
  const files: SiteFiles = { get: async (url): Promise<SiteFile> => ({ status: robotsStatus, finalUrl: url, body: Buffer.from('User-agent: *\nAllow: /\n') }) };
  const store = { pageOf: async () => page, discover: async (_j: string, _f: FoundUrl[], b: FoundUrl[]) => (blocked.push(...b), 0), claim: async () => true } as unknown as CrawlStore;
  const gate = { enter: async () => ({ release: async () => undefined }), backOff: async () => undefined } as unknown as HostGate;
  const documents = {
    make: async (call: { url: string }): Promise<ScrapedDocument> => {
      made.push(call.url);
      return { document: { metadata: { url: call.url, sourceURL: call.url, statusCode: 200, proxyUsed: 'basic' } }, cost: 1 } as ScrapedDocument;
    },
  } as unknown as FirecrawlDocuments;
  const crawl = new CrawlScraper({
    documents, store, gate, robots: new RobotsBook(files), files, filter: {} as LinkFilter, sitemapWorkers: {} as HtmlWorkers, hostCap: 2,
  });
  const run = (lastAttempt: boolean) =>
    crawl.scrape({ operation: 'crawl', caller: { keyHash: 'k', clientAddress: '127.0.0.1' }, url: PAGE, options: storedOptions(firecrawlOptions({ formats: ['markdown'] })), requestId: 'r', job: { id: 'job', idx: 1 }, lastAttempt, discoverLinks: false, answered: async () => undefined });
  return { run, blocked, made };
}

describe('crawl scraper: robots.txt unavailable', () => {
  it('retries a page whose robots.txt answers 5xx (with backoff, counted), fetching nothing; its last attempt refuses it as robots-blocked', async () => {
    const { run, blocked, made } = scraper(503);
    let first: unknown;
    await run(false).catch((err: unknown) => (first = err));
    expect(first).to.be.instanceOf(RobotsUnavailableError);
    expect(decide(first)).to.equal('retry');
    expect(made).to.deep.equal([]);
    let last: unknown;
    await run(true).catch((err: unknown) => (last = err));
    expect(last).to.be.instanceOf(RobotsRefusedError);
    expect(blocked.map((b) => b.url)).to.deep.equal([PAGE]);
    expect(made).to.deep.equal([]);
  });

  it('fetches the page when robots.txt is read and allows it', async () => {
    const { run, made } = scraper(200);
    await run(false);
    expect(made).to.deep.equal([PAGE]);
  });
});
