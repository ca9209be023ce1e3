import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { HtmlWorkers } from '../../../src/content/html-work/html-workers.js';
import type { SiteFile, SiteFiles } from '../../../src/jobs/crawl/site-fetcher.js';
import { sitemapUrls, type SitemapParser } from '../../../src/jobs/crawl/sitemap-reader.js';

const urlset = (urls: string[]) => `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`;
const index = (maps: string[]) => `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${maps.map((m) => `<sitemap><loc>${m}</loc></sitemap>`).join('')}</sitemapindex>`;

/** A site's files by URL; every fetch is counted. */
class Files implements SiteFiles {
  readonly asked: string[] = [];
  constructor(private readonly files: Record<string, Buffer | string>) {}
  async get(url: string): Promise<SiteFile | undefined> {
    this.asked.push(url);
    const body = this.files[url];
    return body === undefined ? { status: 404, finalUrl: url, body: Buffer.alloc(0) } : { status: 200, finalUrl: url, body: Buffer.from(body) };
  }
}

const limits = (over: Partial<Parameters<typeof sitemapUrls>[4]> = {}) => ({ maxFiles: 10, maxUrls: 1_000, maxBytes: 1024 * 1024, deadline: Date.now() + 10_000, ...over });

describe('sitemap reader', function () {
  this.timeout(60_000);
  const start = new URL('http://site.test/');
  let workers: HtmlWorkers;
  let parse: SitemapParser;
  before(() => {
    workers = new HtmlWorkers({ threads: 1, taskTimeoutMs: 30_000 });
    parse = (input) => workers.run('sitemapXml', input, { key: 'test' });
  });
  after(() => workers.close());

  it("follows robots.txt's index to a gzipped child, and /sitemap.xml", async () => {
    const files = new Files({
      'http://site.test/index.xml': index(['http://site.test/child.xml.gz']),
      'http://site.test/child.xml.gz': gzipSync(urlset(['http://site.test/a', 'http://site.test/b'])),
      'http://site.test/sitemap.xml': urlset(['http://site.test/c']),
    });
    const urls = await sitemapUrls(files, parse, start, ['http://site.test/index.xml'], limits());
    expect(urls.sort()).to.deep.equal(['http://site.test/a', 'http://site.test/b', 'http://site.test/c']);
  });

  it('keeps to its bounds: URLs, files, an inflated size; a loop of indexes is read once', async () => {
    const many = Array.from({ length: 50 }, (_, i) => `http://site.test/p${i}`);
    expect(await sitemapUrls(new Files({ 'http://site.test/sitemap.xml': urlset(many) }), parse, start, [], limits({ maxUrls: 10 }))).to.have.length(10);
    const loop = new Files({ 'http://site.test/sitemap.xml': index(['http://site.test/sitemap.xml', 'http://site.test/other.xml']), 'http://site.test/other.xml': index(['http://site.test/sitemap.xml']) });
    expect(await sitemapUrls(loop, parse, start, [], limits())).to.deep.equal([]);
    expect(loop.asked).to.have.length(2);
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x20));
    expect(await sitemapUrls(new Files({ 'http://site.test/sitemap.xml': bomb }), parse, start, [], limits({ maxBytes: 64 * 1024 }))).to.deep.equal([]);
    const files = new Files(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [i === 0 ? 'http://site.test/sitemap.xml' : `http://site.test/m${i}.xml`, index([`http://site.test/m${i + 1}.xml`])])));
    await sitemapUrls(files, parse, start, [], limits({ maxFiles: 5 }));
    expect(files.asked).to.have.length(5);
  });

  it('parses off the event loop: a large sitemap leaves the loop idle while it is read', async () => {
    const many = Array.from({ length: 50_000 }, (_, i) => `http://site.test/some/rather/long/path/to/page-${i}?with=query&amp;and=more`);
    const files = new Files({ 'http://site.test/sitemap.xml': gzipSync(urlset(many)) });
    // The worker thread is started first: its start is not the parse.
    await sitemapUrls(new Files({}), parse, start, [], limits());
    const before = performance.eventLoopUtilization();
    const urls = await sitemapUrls(files, parse, start, [], limits({ maxUrls: 200_000, maxBytes: 64 * 1024 * 1024 }));
    const busy = performance.eventLoopUtilization(before);
    expect(urls).to.have.length(50_000);
    // Parsing on the loop would keep it busy nearly all the time; here it only inflates, copies and waits.
    expect(busy.utilization).to.be.below(0.5);
  });
});
