import { expect } from 'chai';
import { CrawlSite } from '../helpers/crawl-site.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { booksBalance } from '../helpers/ledger-checks.js';
import { ServerProcess } from '../helpers/server-process.js';

const sqlite = testDatabases().find((d) => d.name === 'sqlite')!;

/**
 * POST /v2/map on a generated loopback site: the sitemap index (from robots.txt) and its gzipped
 * child, plus the pages linked but missing from the sitemap, within its timeout; the pages it
 * fetched are charged and reported; `search` filters.
 */
describe('Firecrawl map (sqlite)', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let store: TestStore;
  let databaseUrl: string;
  let site: CrawlSite;
  const unlisted = Array.from({ length: 5 }, (_, i) => `/orphan/${100 + i}`);

  before(async () => {
    databaseUrl = sqlite.freshUrl();
    store = await TestStore.open(databaseUrl);
    server = await new ServerProcess({ DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.1/32,127.0.0.2/32', BROWSER_POOL_SIZE: '0' }).start();
    site = await new CrawlSite({ pages: 2_000, fanout: 10, orphans: 10, extraLinks: unlisted }).start(Number(new URL(server.base).port));
  });
  after(async () => {
    await site?.stop();
    await server?.stop();
    await store?.close();
  });

  const map = (key: string, body: Record<string, unknown>) =>
    fetch(`${server.base}/v2/map`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });

  it("returns at least 95% of the sitemap's URLs and the linked pages it lacks, within its timeout, charging the pages fetched", async () => {
    const key = await store.key({ credits: 1_000 });
    const before = await store.remaining(key);
    const started = performance.now();
    const res = await map(key, { url: site.url('/p/0'), timeout: 30_000 });
    const elapsed = performance.now() - started;
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { success: boolean; links: Array<{ url: string; title?: string }>; creditsUsed: number };
    expect(elapsed).to.be.below(30_000);
    const urls = new Set(body.links.map((l) => l.url));
    const listed = site.sitemapPaths().map((p) => site.url(p));
    expect(listed.filter((u) => urls.has(u)).length).to.be.at.least(Math.ceil(0.95 * listed.length));
    for (const path of unlisted) expect(urls.has(site.url(path)), path).to.equal(true);
    // No link outside the site, none the policy refuses, none robots.txt would keep a crawl from.
    expect([...urls].every((u) => new URL(u).host === `127.0.0.1:${site.port}`)).to.equal(true);
    expect(body.creditsUsed).to.be.greaterThan(0);
    expect(before - (await store.remaining(key))).to.equal(body.creditsUsed);
    expect(body.links.find((l) => l.url === site.url('/p/0'))?.title).to.equal('/p/0');
    expect(await booksBalance(databaseUrl)).to.equal(true);
  });

  it('filters by search, keeps to the limit, and with sitemap only fetches no page', async () => {
    const key = await store.key({ credits: 1_000 });
    const searched = (await (await map(key, { url: site.url('/p/0'), search: 'orphan', sitemap: 'only' })).json()) as { links: Array<{ url: string }>; creditsUsed: number };
    expect(searched.links.length).to.equal(10);
    expect(searched.links.every((l) => l.url.includes('/orphan/'))).to.equal(true);
    expect(searched.creditsUsed).to.equal(0);
    const limited = (await (await map(key, { url: site.url('/p/0'), limit: 50 })).json()) as { links: unknown[] };
    expect(limited.links.length).to.equal(50);
    // A refused start URL, by a loopback spelling (the service's own port): the metadata and private
    // addresses are refused by the same decision (urlRefusal), tested without a socket in url-refusal.test.ts.
    expect((await map(key, { url: `${server.base}/healthz` })).status).to.equal(400);
  });

  it("is served by a server whose sockets reach loopback only, so the site's metadata and private links could never be contacted", () => {
    expect(server.eventsNamed('test.loopback-only')).to.have.length(1);
  });
});
