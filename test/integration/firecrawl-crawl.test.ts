import { expect } from 'chai';
import type { JobDocument } from '../../src/jobs/job-ports.js';
import { urlKey } from '../../src/jobs/crawl/url-key.js';
import { CrawlSite } from '../helpers/crawl-site.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { HealthProber } from '../helpers/health-prober.js';
import { TestStore } from '../helpers/keys.js';
import { booksBalance } from '../helpers/ledger-checks.js';
import { ServerProcess } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

interface StatusBody {
  status: string;
  total: number;
  completed: number;
  creditsUsed: number;
  next?: string;
  data: JobDocument[];
}

const sqlite = testDatabases().find((d) => d.name === 'sqlite')!;

/**
 * A crawl of a generated loopback site through the real server, the target policy on (only
 * 127.0.0.1 and 127.0.0.2 allowed): scope, dedupe, depth, limit, robots.txt, the policy at every
 * hop, 429 with Retry-After, and the host's politeness, proved on the site's own log.
 */
describe('Firecrawl crawl (sqlite)', function () {
  this.timeout(300_000);
  let server: ServerProcess;
  let store: TestStore;
  let databaseUrl: string;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await WebhookReceiver.start();
    databaseUrl = sqlite.freshUrl();
    store = await TestStore.open(databaseUrl);
    server = await new ServerProcess({
      DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.1/32,127.0.0.2/32', BROWSER_POOL_SIZE: '0',
      JOB_RETRY_BASE_SECONDS: '0.05', JOB_STALLED_SECONDS: '5', JOB_WORKERS: '8', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '0,1,1',
    }).start();
  });
  after(async () => {
    await receiver?.close();
    await server?.stop();
    await store?.close();
  });

  const api = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.base}${path}`, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } });

  async function finished(key: string, id: string): Promise<{ status: StatusBody; docs: JobDocument[] }> {
    let status: StatusBody | undefined;
    await eventually(async () => {
      status = (await (await api(key, `/v2/crawl/${id}?limit=1`)).json()) as StatusBody;
      return status.status !== 'scraping';
    }, 240_000, 'the crawl to finish');
    const docs: JobDocument[] = [];
    for (let next: string | undefined = `${server.base}/v2/crawl/${id}`; next; ) {
      const page = (await (await api(key, next.slice(server.base.length))).json()) as StatusBody;
      docs.push(...page.data);
      next = page.next;
    }
    return { status: status!, docs };
  }

  it('limit 500, depth 3: exactly 500 in-scope pages, each once; robots-refused listed and never fetched; hostile links lead nowhere', async () => {
    const site = await new CrawlSite({ pages: 2_000, fanout: 10 }).start(Number(new URL(server.base).port));
    // The site links to metadata and private addresses: the policy must drop them (no error, no
    // document names them), and the server's sockets reach loopback only even if it did not.
    expect(server.eventsNamed('test.loopback-only')).to.have.length(1);
    try {
      const key = await store.key({ credits: 100_000 });
      const before = await store.remaining(key);
      const res = await api(key, '/v2/crawl', { method: 'POST', body: JSON.stringify({ url: site.url('/p/0'), limit: 500, maxDiscoveryDepth: 3, sitemap: 'skip', crawlEntireDomain: true, scrapeOptions: { formats: ['markdown'], timeout: 30_000 } }) });
      expect(res.status).to.equal(200);
      const { id, url } = (await res.json()) as { id: string; url: string };
      expect(url).to.equal(`${server.base}/v2/crawl/${id}`);
      const { status, docs } = await finished(key, id);
      expect(status.status).to.equal('completed');
      const errors = (await (await api(key, `/v2/crawl/${id}/errors`)).json()) as { errors: Array<{ url: string }>; robotsBlocked: string[] };
      expect(docs.length + errors.errors.length).to.equal(500);
      const keys = [...docs.map((d) => d.metadata.sourceURL), ...errors.errors.map((e) => e.url)].map((u) => urlKey(u, { ignoreQuery: false, similar: true }));
      expect(new Set(keys).size).to.equal(500);
      for (const d of docs) {
        expect(new URL(d.metadata.sourceURL).host).to.equal(`127.0.0.1:${site.port}`);
        expect(d.metadata.depth).to.be.at.most(3);
        if (d.metadata.depth! > 0) expect(d.metadata.foundOn).to.be.a('string');
      }
      // Only the redirect loop fails; the 429 pages were retried after their Retry-After.
      expect(errors.errors.every((e) => e.url.includes('/loop/'))).to.equal(true);
      expect(docs.filter((d) => d.metadata.sourceURL.includes('/busy/')).every((d) => d.metadata.statusCode === 200)).to.equal(true);
      expect(errors.robotsBlocked.length).to.be.greaterThan(0);
      expect(errors.robotsBlocked.every((u) => new URL(u).pathname.startsWith('/private/'))).to.equal(true);
      expect(site.hits.filter((h) => h.path.startsWith('/private/'))).to.deep.equal([]);
      expect(site.hits.filter((h) => h.host === '127.0.0.2')).to.deep.equal([]);
      // Each page fetched once (a 429 page twice), whatever its spellings. (A page past its timeout
      // is fetched again by design: the timeout is wide, so that a busy machine's slow Markdown is not one.)
      const pageHits = site.hits.filter((h) => h.path.startsWith('/p/')).map((h) => urlKey(site.url(h.path), { ignoreQuery: false, similar: true }));
      const twice = pageHits.filter((k, i) => pageHits.indexOf(k) !== i);
      const warned = server.logs.filter((l) => (l.level ?? 0) >= 40).map((l) => l.msg);
      expect(twice, `fetched twice; the server warned: ${JSON.stringify(warned.slice(0, 10))}`).to.deep.equal([]);
      expect(site.maxInFlight).to.be.at.most(2);
      const credits = docs.reduce((sum, d) => sum + d.metadata.creditsUsed, 0);
      expect(status.creditsUsed).to.equal(credits);
      expect(before - (await store.remaining(key))).to.equal(credits);
      expect(await booksBalance(databaseUrl)).to.equal(true);
    } finally {
      await site.stop();
    }
  });

  it('holds a redirect to the crawl: out of scope or robots-refused, the page is listed in /errors; a page reached by a redirect and a link is kept once', async () => {
    const site = await new CrawlSite({ pages: 31, fanout: 5, extraLinks: ['/go/p/3', '/go/p/25', '/go/away', '/go/private'] }).start(Number(new URL(server.base).port));
    try {
      const key = await store.key({ credits: 100_000 });
      const res = await api(key, '/v2/crawl', { method: 'POST', body: JSON.stringify({ url: site.url('/p/0'), limit: 200, maxDiscoveryDepth: 2, sitemap: 'skip', crawlEntireDomain: true, scrapeOptions: { formats: ['rawHtml'], timeout: 5_000 } }) });
      const { id } = (await res.json()) as { id: string };
      const { status, docs } = await finished(key, id);
      expect(status.status).to.equal('completed');
      const errors = (await (await api(key, `/v2/crawl/${id}/errors`)).json()) as { errors: Array<{ url: string; error: string }> };
      const errorOf = (path: string) => errors.errors.find((e) => e.url === site.url(path))?.error ?? '';
      expect(errorOf('/go/away')).to.match(/redirects to http:\/\/127\.0\.0\.2:\d+\/elsewhere, outside the crawl's scope/);
      expect(errorOf('/go/private')).to.match(/redirects to .*\/private\/go, which the site's robots\.txt does not allow/);
      // /p/3 is linked by the start page with its redirect: kept once, the redirect listed as a duplicate.
      expect(errorOf('/go/p/3')).to.match(/which this crawl already has/);
      const finals = docs.map((d) => urlKey(d.metadata.url, { ignoreQuery: false, similar: true }));
      expect(new Set(finals).size).to.equal(finals.length);
      for (const path of ['/p/3', '/p/25']) expect(finals.filter((k) => k === urlKey(site.url(path), { ignoreQuery: false, similar: true }))).to.have.length(1);
      expect(docs.some((d) => d.metadata.url.includes('127.0.0.2') || d.metadata.url.includes('/private/'))).to.equal(false);
      // A redirect is followed before its target is judged: that one disallowed page was fetched, not kept.
      expect(site.hits.filter((h) => h.path.startsWith('/private/')).map((h) => h.path)).to.deep.equal(['/private/go']);
      // Pages not kept are not charged.
      expect(status.creditsUsed).to.equal(docs.reduce((sum, d) => sum + d.metadata.creditsUsed, 0));
      expect(await booksBalance(databaseUrl)).to.equal(true);
    } finally {
      await site.stop();
    }
  });

  it("keeps robots.txt's Crawl-delay between two requests to the host, reads the gzipped sitemap, and tells its webhook crawl.started|page|completed", async () => {
    const site = await new CrawlSite({ pages: 200, fanout: 5, crawlDelay: 0.1, orphans: 5 }).start(Number(new URL(server.base).port));
    try {
      const key = await store.key({ credits: 100_000 });
      const { id } = (await (await api(key, '/v2/crawl', { method: 'POST', body: JSON.stringify({ url: site.url('/'), limit: 25, crawlEntireDomain: true, scrapeOptions: { timeout: 5_000 }, webhook: receiver.url('/crawl') }) })).json()) as { id: string };
      const { docs } = await finished(key, id);
      const types = () => receiver.received.filter((r) => r.path === '/crawl' && (JSON.parse(r.body) as { id: string }).id === id).map((r) => (JSON.parse(r.body) as { type: string }).type);
      await eventually(() => types().includes('crawl.completed'), 60_000, 'the completed event');
      expect(types().filter((t) => t === 'crawl.started')).to.have.length(1);
      expect(types().filter((t) => t === 'crawl.page')).to.have.length(docs.length);
      expect(docs.length).to.be.greaterThan(10);
      expect(docs.some((d) => d.metadata.sourceURL.includes('/orphan/'))).to.equal(true);
      const pages = site.hits.filter((h) => h.host === '127.0.0.1' && !h.path.startsWith('/robots') && !h.path.startsWith('/sitemap')).sort((a, b) => a.start - b.start);
      for (let i = 1; i < pages.length; i++) expect(pages[i].start - pages[i - 1].end).to.be.at.least(100 - 2);
    } finally {
      await site.stop();
    }
  });

  it('refuses an invalid pattern naming it, and bounds a catastrophically backtracking one', async () => {
    const key = await store.key({ credits: 1_000 });
    const bad = await api(key, '/v2/crawl', { method: 'POST', body: JSON.stringify({ url: 'http://127.0.0.1:9/', includePaths: ['/ok', '(unclosed'] }) });
    expect(bad.status).to.equal(400);
    expect(await bad.text()).to.include('includePaths.1');

    // (a+)+$ on /aaa…! backtracks for longer than anyone will wait: matched on a thread of its
    // own that is ended past its second, while the service answers /healthz as it does during
    // the same crawl with a harmless pattern (the baseline, measured here: the machine may be busy).
    const site = await new CrawlSite({ pages: 50, fanout: 5, extraLinks: [`/${'a'.repeat(40)}!`] }).start(Number(new URL(server.base).port));
    try {
      const crawlWith = async (includePaths: string[]) => {
        const prober = new HealthProber(server.base);
        await prober.ready();
        const res = await api(key, '/v2/crawl', { method: 'POST', body: JSON.stringify({ url: site.url('/p/0'), limit: 20, sitemap: 'skip', crawlEntireDomain: true, includePaths }) });
        const { id } = (await res.json()) as { id: string };
        const { status } = await finished(key, id);
        return { id, status, report: await prober.stop() };
      };
      const baseline = (await crawlWith(['a+$', '^/p/'])).report;
      const { id, status, report } = await crawlWith(['(a+)+$', '^/p/']);
      expect(status.status).to.equal('completed');
      const errors = (await (await api(key, `/v2/crawl/${id}/errors`)).json()) as { errors: Array<{ url: string; error: string }> };
      expect(errors.errors.map((e) => e.error).join(' ')).to.include('take too long to match');
      expect(report.probes).to.be.greaterThan(10);
      expect(report.worstMs, `harmless pattern's worst ${baseline.worstMs.toFixed(1)} ms`).to.be.below(Math.max(100, 2 * baseline.worstMs));
    } finally {
      await site.stop();
    }
  });
});
