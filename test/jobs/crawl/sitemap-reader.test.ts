import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import type { SiteFile, SiteFiles } from '../../../src/jobs/crawl/site-fetcher.js';
import { sitemapUrls } from '../../../src/jobs/crawl/sitemap-reader.js';

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

const limits = (over: Partial<Parameters<typeof sitemapUrls>[3]> = {}) => ({ maxFiles: 10, maxUrls: 1_000, maxBytes: 1024 * 1024, deadline: Date.now() + 10_000, ...over });

describe('sitemap reader', () => {
  const start = new URL('http://site.test/');

  it("follows robots.txt's index to a gzipped child, and /sitemap.xml", async () => {
    const files = new Files({
      'http://site.test/index.xml': index(['http://site.test/child.xml.gz']),
      'http://site.test/child.xml.gz': gzipSync(urlset(['http://site.test/a', 'http://site.test/b'])),
      'http://site.test/sitemap.xml': urlset(['http://site.test/c']),
    });
    const urls = await sitemapUrls(files, start, ['http://site.test/index.xml'], limits());
    expect(urls.sort()).to.deep.equal(['http://site.test/a', 'http://site.test/b', 'http://site.test/c']);
  });

  it('keeps to its bounds: URLs, files, an inflated size; a loop of indexes is read once', async () => {
    const many = Array.from({ length: 50 }, (_, i) => `http://site.test/p${i}`);
    expect(await sitemapUrls(new Files({ 'http://site.test/sitemap.xml': urlset(many) }), start, [], limits({ maxUrls: 10 }))).to.have.length(10);
    const loop = new Files({ 'http://site.test/sitemap.xml': index(['http://site.test/sitemap.xml', 'http://site.test/other.xml']), 'http://site.test/other.xml': index(['http://site.test/sitemap.xml']) });
    expect(await sitemapUrls(loop, start, [], limits())).to.deep.equal([]);
    expect(loop.asked).to.have.length(2);
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x20));
    expect(await sitemapUrls(new Files({ 'http://site.test/sitemap.xml': bomb }), start, [], limits({ maxBytes: 64 * 1024 }))).to.deep.equal([]);
    const files = new Files(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [i === 0 ? 'http://site.test/sitemap.xml' : `http://site.test/m${i}.xml`, index([`http://site.test/m${i + 1}.xml`])])));
    await sitemapUrls(files, start, [], limits({ maxFiles: 5 }));
    expect(files.asked).to.have.length(5);
  });
});
