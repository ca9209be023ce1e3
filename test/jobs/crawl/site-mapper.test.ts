import { expect } from 'chai';
import type { HtmlWorkers } from '../../../src/content/html-work/html-workers.js';
import { firecrawlOptions } from '../../../src/http/decode/firecrawl-options.js';
import { RobotsBook } from '../../../src/jobs/crawl/robots-book.js';
import type { SiteFile, SiteFiles } from '../../../src/jobs/crawl/site-fetcher.js';
import { SiteMapper, type MapRequest } from '../../../src/jobs/crawl/site-mapper.js';
import type { DocumentCall, FirecrawlDocuments } from '../../../src/jobs/firecrawl/firecrawl-documents.js';
import type { ScrapedDocument } from '../../../src/jobs/job-ports.js';
import { targetPolicy } from '../../helpers/egress.js';

/** Nothing is contacted: the site's files and pages are fakes, the policy judged on its decision alone. */
const START = 'http://127.0.0.1:8080/';
const answering = (robots: string): SiteFiles => ({
  get: async (url): Promise<SiteFile> => (url.endsWith('/robots.txt') ? { status: 200, finalUrl: url, body: Buffer.from(robots) } : { status: 404, finalUrl: url, body: Buffer.alloc(0) }),
});
const silent: SiteFiles = { get: () => new Promise<never>(() => undefined) };
const noWorkers = { run: async () => ({ index: false, urls: [] }) } as unknown as HtmlWorkers;

/** Pages as `page` makes them; every call recorded. A page that hangs ends only when cancelled, uncharged. */
class Pages {
  readonly asked: string[] = [];
  constructor(private readonly page: (url: string) => string[] | 'hang') {}
  readonly documents = {
    make: async (call: DocumentCall): Promise<ScrapedDocument> => {
      this.asked.push(call.url);
      const links = this.page(call.url);
      if (links === 'hang') {
        await new Promise((_resolve, reject) => call.cancelled?.addEventListener('abort', () => reject(Object.assign(new Error('cut'), { outcome: 'cancelled' })), { once: true }));
      }
      return { document: { metadata: { url: call.url, title: call.url, statusCode: 200 } }, cost: 1, links: links === 'hang' ? [] : links } as ScrapedDocument;
    },
  } as unknown as FirecrawlDocuments;
}

const mapper = (files: SiteFiles, pages: Pages) =>
  new SiteMapper({ documents: pages.documents, robots: new RobotsBook(files), files, policy: targetPolicy({ allowCidrs: '127.0.0.1/32' }), sitemapWorkers: noWorkers });

const request = (over: Partial<MapRequest> = {}): MapRequest => ({
  caller: { keyHash: 'key', clientAddress: '127.0.0.1' }, url: START, search: undefined, sitemap: 'include', includeSubdomains: false, ignoreQueryParameters: true,
  limit: 100, timeoutMs: 10_000, options: firecrawlOptions({ formats: ['links'] }), robotsAgent: 'scrapegate', ...over,
});

describe('site mapper (map)', function () {
  this.timeout(30_000);

  it('answers by its timeout when robots.txt and the sitemaps never answer', async () => {
    const started = performance.now();
    const { links, cost } = await mapper(silent, new Pages(() => [])).map(request({ timeoutMs: 1_500 }));
    expect(performance.now() - started).to.be.within(1_000, 2_500);
    expect(links).to.deep.equal([]);
    expect(cost).to.equal(0);
  });

  it('cuts a page still running at the deadline (uncharged) and answers with what it has #slow', async () => {
    const pages = new Pages((url) => (url === START ? [`${START}a`, `${START}b`] : 'hang'));
    const started = performance.now();
    const { links, cost } = await mapper(answering(''), pages).map(request({ timeoutMs: 2_500 }));
    expect(performance.now() - started).to.be.within(2_000, 3_500);
    expect(links.map((l) => l.url)).to.have.members([START, `${START}a`, `${START}b`]);
    expect(cost).to.equal(1);
  });

  it("walks no page robots.txt refuses, and still lists it", async () => {
    const pages = new Pages((url) => (url === START ? [`${START}private/a`, `${START}public/b`] : []));
    const { links } = await mapper(answering('User-agent: *\nDisallow: /private/\n'), pages).map(request());
    expect(pages.asked).to.deep.equal([START, `${START}public/b`]);
    expect(links.map((l) => l.url)).to.include(`${START}private/a`);
    const refusedStart = new Pages(() => []);
    await mapper(answering('User-agent: *\nDisallow: /\n'), refusedStart).map(request());
    expect(refusedStart.asked).to.deep.equal([]);
  });
});
