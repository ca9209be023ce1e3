import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import type { JobDocument } from '../../src/jobs/job-ports.js';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';
import { waitUntil } from '../helpers/eventually.js';

/** The version the replayed requests say they come from (firecrawl-py 4.x cannot be installed here). */
const ORIGIN = 'python-sdk@4.12.0';
/** Where the server says it lives: never contacted, only written into `next`. */
const PUBLIC_BASE = 'https://scrapegate.example.invalid';

/**
 * firecrawl-py 4.x's transport, as its sources do it (FIRECRAWL-V2-NOTES §1.1): JSON bodies with
 * `origin` added to every POST; the Bearer key only to the API's own host; an absolute URL the
 * server gives (`next`) moved onto the API URL's scheme and host, path and query kept; any 2xx
 * taken, then `success` read.
 */
class PythonSdkReplay {
  constructor(
    private readonly apiUrl: string,
    private readonly key: string,
  ) {}

  /** `_build_url`: an absolute URL on another scheme or host is rewritten to the API URL's. */
  buildUrl(target: string): string {
    const api = new URL(this.apiUrl);
    if (/^https?:\/\//i.test(target)) {
      const url = new URL(target);
      if (url.protocol !== api.protocol || url.host !== api.host) {
        url.protocol = api.protocol;
        url.host = api.host;
      }
      return url.href;
    }
    // urljoin(base + "/", "/v2/..."): a path prefix of the API URL is dropped.
    return new URL(target, `${this.apiUrl}/`).href;
  }

  private headers(url: string): Record<string, string> {
    const sameHost = new URL(url).host === new URL(this.apiUrl).host;
    return { 'content-type': 'application/json', 'user-agent': 'python-requests/2.32.3', ...(sameHost ? { authorization: `Bearer ${this.key}` } : {}) };
  }

  async post(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const url = this.buildUrl(path);
    return this.read(await fetch(url, { method: 'POST', headers: this.headers(url), body: JSON.stringify({ ...body, origin: ORIGIN }) }));
  }

  async get(pathOrUrl: string): Promise<Record<string, unknown>> {
    const url = this.buildUrl(pathOrUrl);
    return this.read(await fetch(url, { headers: this.headers(url) }));
  }

  async delete(path: string): Promise<Record<string, unknown>> {
    const url = this.buildUrl(path);
    return this.read(await fetch(url, { method: 'DELETE', headers: this.headers(url) }));
  }

  /** `response.ok` (any 2xx), then the body's `success`; else the SDK raises. */
  private async read(res: Response): Promise<Record<string, unknown>> {
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok || body.success === false) throw new Error(`the SDK would raise: ${res.status} ${JSON.stringify(body)}`);
    return body;
  }
}

/** What firecrawl-py's pydantic Document model insists on (extra keys allowed). */
function expectPythonValid(doc: JobDocument): void {
  const m = doc.metadata as Record<string, unknown>;
  if (m.proxyUsed !== undefined) expect(m.proxyUsed).to.be.oneOf(['basic', 'stealth']);
  if (m.cacheState !== undefined) expect(m.cacheState).to.be.oneOf(['hit', 'miss']);
  expect(Number.isInteger(m.statusCode), 'statusCode is an int').to.equal(true);
  expect(Number.isInteger(m.creditsUsed), 'creditsUsed is an int').to.equal(true);
  if (m.numPages !== undefined) expect(Number.isInteger(m.numPages)).to.equal(true);
  if (doc.links !== undefined) expect(doc.links.every((l) => typeof l === 'string')).to.equal(true);
  if (doc.screenshot !== undefined) expect(doc.screenshot).to.be.a('string');
}

/** firecrawl-py 4.x's request shapes replayed against the real server: a contract test for a client that cannot be installed here. */
// What this file proves is the same on either database (the ledger on MySQL has suites of its own,
// and the SDK's batches run there in firecrawl-sdk): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`firecrawl-py 4.x's requests, replayed (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database, { PUBLIC_BASE_URL: PUBLIC_BASE });
    let py: PythonSdkReplay;

    before(async () => {
      py = new PythonSdkReplay(s.server.base, await s.store.key({ credits: 10_000 }));
      s.target.route('/doc', (req, res: ServerResponse) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Doc ${req.url ?? ''}</title></head><body><h1>Doc</h1><a href="/x">x</a></body></html>`),
      );
    });

    it('scrape: origin in the body, a 2xx with success, a document its models accept', async () => {
      const body = await py.post('/v2/scrape', { url: s.target.url('/doc'), formats: ['markdown', 'links', 'rawHtml'], onlyMainContent: true, timeout: 30_000, removeBase64Images: true, blockAds: true, proxy: 'basic' });
      const doc = body.data as JobDocument;
      expect(doc.markdown).to.contain('# Doc');
      expectPythonValid(doc);
    });

    it("a batch: started, polled to its end, then every page followed through next rewritten onto the API URL's host", async () => {
      const urls = Array.from({ length: 5 }, (_, i) => s.target.url(`/doc?n=${i}`));
      const started = await py.post('/v2/batch/scrape', { urls, formats: ['markdown'], ignoreInvalidURLs: true });
      expect(started.url).to.equal(`${PUBLIC_BASE}/v2/batch/scrape/${String(started.id)}`);
      let status = await py.get(String(started.url));
      await waitUntil(async () => (status = await py.get(String(started.url))).status !== 'scraping', 30_000);
      expect(status).to.include({ status: 'completed', total: 5, completed: 5 });
      expect(Number.isInteger(status.creditsUsed)).to.equal(true);
      // Once terminal, the SDK pages through `next` (here two documents a page, as the first call asked).
      let page = await py.get(`/v2/batch/scrape/${String(started.id)}?limit=2`);
      const docs = [...(page.data as JobDocument[])];
      const nexts: string[] = [];
      while (typeof page.next === 'string') {
        nexts.push(page.next);
        page = await py.get(page.next);
        docs.push(...(page.data as JobDocument[]));
      }
      expect(nexts).to.have.length(2);
      expect(nexts[0]).to.equal(`${PUBLIC_BASE}/v2/batch/scrape/${String(started.id)}?skip=2&limit=2`);
      expect(docs.map((d) => d.metadata.sourceURL).sort()).to.deep.equal([...urls].sort());
      docs.forEach(expectPythonValid);
    });

    it('cancel: a 2xx whose status is cancelled', async () => {
      const started = await py.post('/v2/batch/scrape', { urls: [s.target.url('/doc?c=1')], formats: ['markdown'] });
      const cancelled = await py.delete(`/v2/batch/scrape/${String(started.id)}`);
      expect(cancelled.status).to.equal('cancelled');
    });
  });
}
