import { expect } from 'chai';
import { connect } from 'node:net';
import type { JobDocument, WebhookPolicy } from '../../../src/jobs/job-ports.js';
import { inProcessServer, type InProcessServer } from '../../helpers/in-process-server.js';
import { InMemoryJobs } from '../../helpers/in-memory-jobs.js';
import { expectMatchesSpec } from '../../helpers/spec.js';

const PAGE = '<html><head><title>Fake page</title><meta name="description" content="About it"></head><body><nav>menu</nav><main><h1>Hello fake</h1><p>A <a href="/next">link</a>.</p></main></body></html>';

class RefusingWebhooks implements WebhookPolicy {
  async check(url: string): Promise<void> {
    if (new URL(url).hostname === '10.0.0.1') throw Object.assign(new Error('10.0.0.1 is not an allowed target'), { name: 'WebhookRefusedError', outcome: 'webhook_refused' });
  }
}

function doc(n: number): JobDocument {
  return { markdown: `# ${n}`, metadata: { sourceURL: `http://127.0.0.1:9/${n}`, url: `http://127.0.0.1:9/${n}`, statusCode: 200, proxyUsed: 'basic', creditsUsed: 1, scrapeId: `id-${n}` } };
}

/**
 * The Firecrawl dialect's edge in the real server, in process, over a scripted engine and the job
 * port in memory: bodies, keys, URLs, pages and every error's shape.
 */
describe('the Firecrawl dialect, in process: /v2/scrape and /v2/batch/scrape', function () {
  this.timeout(30_000);
  let s: InProcessServer;
  let jobs: InMemoryJobs;
  let key: string;
  const target = 'http://127.0.0.1:8123/page';

  before(async () => {
    jobs = new InMemoryJobs();
    s = await inProcessServer(
      { '/page': { body: Buffer.from(PAGE), headers: [['Content-Type', 'text/html; charset=utf-8']] }, '/down': { status: 503, body: Buffer.from('down') } },
      { BATCH_MAX_URLS: '50000', ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.1/32' },
      { jobs, webhooks: new RefusingWebhooks() },
    );
    key = await s.store.key({ credits: 1_000 });
  });
  after(() => s?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
    fetch(`${s.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${key}` }) => fetch(`${s.base}${path}`, { headers });
  type ErrorBody = { success: false; error: string; code?: string; details?: Array<{ path: unknown[]; message: string }> };

  async function expectError(res: Response, status: number, operation: string): Promise<ErrorBody> {
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).to.equal(status);
    expect(body.success).to.equal(false);
    expect(body.error).to.be.a('string').and.not.match(/at .*\.ts:\d+/);
    await expectMatchesSpec(operation, res, body, 'firecrawl');
    return body;
  }

  it('serves its document and its Redoc page beside the others', async () => {
    const document = (await (await fetch(`${s.base}/openapi/firecrawl.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).to.deep.equal([
      '/v2/scrape', '/v2/batch/scrape', '/v2/batch/scrape/{id}', '/v2/batch/scrape/{id}/errors', '/v2/crawl', '/v2/crawl/active', '/v2/crawl/{id}', '/v2/crawl/{id}/errors', '/v2/map',
    ]);
    const docs = await fetch(`${s.base}/docs/firecrawl`);
    expect(docs.status).to.equal(200);
    expect(docs.headers.get('content-security-policy')).to.contain("default-src 'self'");
    expect(await docs.text()).to.contain('scrapegate Firecrawl dialect');
  });

  describe('POST /v2/scrape', () => {
    it('answers {success, data} with markdown by default, the metadata and the cost; origin and integration accepted', async () => {
      const res = await post('/v2/scrape', { url: target, origin: 'js-sdk@4.42.0', integration: 'n8n' });
      const body = (await res.json()) as { success: boolean; data: JobDocument };
      expect(res.status).to.equal(200);
      await expectMatchesSpec('firecrawlScrape', res, body, 'firecrawl');
      expect(body.data.markdown).to.equal('# Hello fake\n\nA [link](http://127.0.0.1:8123/next).');
      expect(body.data).not.to.have.any.keys('html', 'rawHtml', 'links');
      expect(body.data.metadata).to.include({ sourceURL: target, url: target, statusCode: 200, title: 'Fake page', description: 'About it', proxyUsed: 'basic', creditsUsed: 1, cacheState: 'miss' });
      expect(body.data.metadata.scrapeId).to.equal(res.headers.get('svc-request-id'));
      expect(await s.store.remaining(key)).to.equal(999);
    });

    it('takes the key as x-api-key too, and the scrapegate options under their own names', async () => {
      const res = await post('/v2/scrape', { url: target, formats: ['rawHtml', 'links', { type: 'html' }], browser: false, proxy_type: 'datacenter', cookies: 'a=1', headers: { 'X-Thing': 'one' } }, { 'x-api-key': key });
      const body = (await res.json()) as { data: JobDocument };
      expect(res.status).to.equal(200);
      expect(body.data.rawHtml).to.equal(PAGE);
      expect(body.data.links).to.deep.equal(['http://127.0.0.1:8123/next']);
      expect(body.data.html).to.equal('<main><h1>Hello fake</h1><p>A <a href="http://127.0.0.1:8123/next">link</a>.</p></main>');
      const seen = s.engine.seen.at(-1)?.request;
      expect(seen?.headers).to.deep.equal({ 'X-Thing': 'one' });
      expect(seen?.cookies).to.deep.equal([{ name: 'a', value: '1' }]);
      expect(seen?.browser).to.equal(false);
    });

    it('a target 5xx is a document (the last attempt), with its status and error', async () => {
      const res = await post('/v2/scrape', { url: 'http://127.0.0.1:8123/down' });
      const body = (await res.json()) as { data: JobDocument };
      expect(res.status).to.equal(200);
      expect(body.data.metadata).to.include({ statusCode: 503, error: 'the target answered 503' });
    });

    it('400: an unknown field, an unsupported format, an action, a bad URL; each named', async () => {
      const unknown = await expectError(await post('/v2/scrape', { url: target, fastMode: true }), 400, 'firecrawlScrape');
      expect(unknown.details?.[0].path).to.deep.equal(['fastMode']);
      const json = await expectError(await post('/v2/scrape', { url: target, formats: [{ type: 'json', prompt: 'x' }] }), 400, 'firecrawlScrape');
      expect(json.error).to.match(/json format is not supported/);
      expect((await expectError(await post('/v2/scrape', { url: target, formats: ['summary'] }), 400, 'firecrawlScrape')).error).to.match(/summary format is not supported/);
      expect((await expectError(await post('/v2/scrape', { url: target, actions: [{ type: 'click' }] }), 400, 'firecrawlScrape')).error).to.match(/actions/);
      await expectError(await post('/v2/scrape', { url: 'ftp://127.0.0.1/x' }), 400, 'firecrawlScrape');
      await expectError(await post('/v2/scrape', { url: target, browser: false, waitFor: 1000 }), 400, 'firecrawlScrape');
      await expectError(await post('/v2/scrape', { url: target, includeTags: ['a[['] }), 400, 'firecrawlScrape');
      await expectError(await post('/v2/scrape', 'not json'), 400, 'firecrawlScrape');
    });

    it('401 without a key or with a wrong one, 402 without credits, 403 from an address the key does not allow', async () => {
      await expectError(await post('/v2/scrape', { url: target }, {}), 401, 'firecrawlScrape');
      await expectError(await post('/v2/scrape', { url: target }, { authorization: 'Bearer sg_not_a_key' }), 401, 'firecrawlScrape');
      const broke = await s.store.key({ credits: 0 });
      const noCredits = await expectError(await post('/v2/scrape', { url: target }, { authorization: `Bearer ${broke}` }), 402, 'firecrawlScrape');
      expect(noCredits.error).to.match(/credit/i);
      const elsewhere = await s.store.key({ allowedIps: ['203.0.113.7'] });
      await expectError(await post('/v2/scrape', { url: target }, { authorization: `Bearer ${elsewhere}` }), 403, 'firecrawlScrape');
    });
  });

  describe('POST /v2/batch/scrape', () => {
    it('answers {success, id, url} with the status URL; refused URLs go to invalidURLs; options stored normalised', async () => {
      const urls = [target, 'http://10.1.2.3/x', 'not a url', 'http://127.0.0.1:8123/2', 'http://169.254.169.254/latest'];
      const res = await post('/v2/batch/scrape', { urls, formats: ['markdown', 'links'], proxy: 'basic', maxConcurrency: 3, origin: 'python-sdk@4.1.0' }, { authorization: `Bearer ${key}`, 'x-idempotency-key': 'abc' });
      const body = (await res.json()) as { success: true; id: string; url: string; invalidURLs: string[] };
      expect(res.status).to.equal(200);
      await expectMatchesSpec('firecrawlBatchScrapeStart', res, body, 'firecrawl');
      expect(body.url).to.equal(`${s.base}/v2/batch/scrape/${body.id}`);
      expect(body.invalidURLs).to.deep.equal(['http://10.1.2.3/x', 'not a url', 'http://169.254.169.254/latest']);
      const submitted = jobs.submitted.at(-1);
      expect(submitted?.urls).to.deep.equal([target, 'http://127.0.0.1:8123/2']);
      expect(submitted?.maxConcurrency).to.equal(3);
      expect(submitted?.idempotencyKey).to.equal('abc');
      expect(submitted?.options).to.deep.include({ onlyMainContent: true, browser: false, proxy: 'basic', timeoutMs: 60_000 });
      const again = (await (await post('/v2/batch/scrape', { urls }, { authorization: `Bearer ${key}`, 'x-idempotency-key': 'abc' })).json()) as { id: string };
      expect(again.id).to.equal(body.id);
    });

    it('with ignoreInvalidURLs false, a refused URL is a 400 naming it', async () => {
      const body = await expectError(await post('/v2/batch/scrape', { urls: [target, 'http://10.9.9.9/'], ignoreInvalidURLs: false }), 400, 'firecrawlBatchScrapeStart');
      expect(body.details?.[0].path).to.deep.equal(['urls.1']);
    });

    it('a webhook is judged by the webhook policy: refused, a 400; allowed, subscribed to every event', async () => {
      await expectError(await post('/v2/batch/scrape', { urls: [target], webhook: 'http://10.0.0.1/hook' }), 400, 'firecrawlBatchScrapeStart');
      const res = await post('/v2/batch/scrape', { urls: [target], webhook: { url: 'http://127.0.0.1:9/hook', metadata: { a: 'b' } } });
      expect(res.status).to.equal(200);
      expect(jobs.submitted.at(-1)?.webhook).to.deep.equal({ url: 'http://127.0.0.1:9/hook', headers: {}, metadata: { a: 'b' }, events: ['started', 'page', 'completed', 'failed'] });
    });

    it('50,001 URLs are a 400; a 10 MB body a 413, refused from its length', async () => {
      const urls = Array.from({ length: 50_001 }, (_, i) => `http://127.0.0.1:8123/${i}`);
      const tooMany = await expectError(await post('/v2/batch/scrape', { urls }), 400, 'firecrawlBatchScrapeStart');
      expect(tooMany.error).to.match(/at most 50000 URLs/);
      const fifty = await post('/v2/batch/scrape', { urls: urls.slice(0, 50_000) });
      expect(fifty.status).to.equal(200);
      const huge = JSON.stringify({ urls: [target], origin: 'x'.repeat(10 * 1024 * 1024) });
      await expectError(await post('/v2/batch/scrape', huge), 413, 'firecrawlBatchScrapeStart');
      // Without a key, the same body is refused for its key, before a byte of it is read.
      await expectError(await post('/v2/batch/scrape', huge, {}), 401, 'firecrawlBatchScrapeStart');
    });
  });

  describe('GET, DELETE /v2/batch/scrape/{id} and its errors', () => {
    let id: string;
    before(async () => {
      id = ((await (await post('/v2/batch/scrape', { urls: [target] })).json()) as { id: string }).id;
      jobs.give(id, [doc(0), doc(1), doc(2)], 'completed', [{ id: 'e1', url: 'http://127.0.0.1:9/x', code: 'TARGET_UNREACHABLE', error: 'refused', timestamp: new Date(0).toISOString() }]);
    });

    it('pages the documents: next keeps the limit, absolute on the request\'s host, absent on the last page', async () => {
      const first = await get(`/v2/batch/scrape/${id}?limit=2`);
      const body = (await first.json()) as { status: string; total: number; completed: number; creditsUsed: number; next?: string; data: JobDocument[] };
      expect(first.status).to.equal(200);
      await expectMatchesSpec('firecrawlBatchScrapeStatus', first, body, 'firecrawl');
      expect(body).to.include({ status: 'completed', total: 1, completed: 3, creditsUsed: 3 });
      expect(body.data.map((d) => d.markdown)).to.deep.equal(['# 0', '# 1']);
      expect(body.next).to.equal(`${s.base}/v2/batch/scrape/${id}?skip=2&limit=2`);
      const last = (await (await get(new URL(body.next as string).pathname + new URL(body.next as string).search)).json()) as { next?: string; data: JobDocument[] };
      expect(last.data.map((d) => d.markdown)).to.deep.equal(['# 2']);
      expect(last).not.to.have.property('next');
    });

    it('skip and limit out of range are a 400', async () => {
      await expectError(await get(`/v2/batch/scrape/${id}?limit=0`), 400, 'firecrawlBatchScrapeStatus');
      await expectError(await get(`/v2/batch/scrape/${id}?limit=1001`), 400, 'firecrawlBatchScrapeStatus');
      await expectError(await get(`/v2/batch/scrape/${id}?skip=-1`), 400, 'firecrawlBatchScrapeStatus');
      await expectError(await get(`/v2/batch/scrape/${id}?skip=abc`), 400, 'firecrawlBatchScrapeStatus');
    });

    it('another key\'s job, or none, is a 404; no key a 401', async () => {
      const other = await s.store.key();
      await expectError(await get(`/v2/batch/scrape/${id}`, { authorization: `Bearer ${other}` }), 404, 'firecrawlBatchScrapeStatus');
      await expectError(await get('/v2/batch/scrape/00000000-0000-0000-0000-000000000000'), 404, 'firecrawlBatchScrapeStatus');
      await expectError(await get(`/v2/batch/scrape/${id}/errors`, { authorization: `Bearer ${other}` }), 404, 'firecrawlBatchScrapeErrors');
      await expectError(await get(`/v2/batch/scrape/${id}`, {}), 401, 'firecrawlBatchScrapeStatus');
    });

    it('errors: {errors, robotsBlocked}; DELETE: {success, status: cancelled}', async () => {
      const errors = await get(`/v2/batch/scrape/${id}/errors`);
      const body = await errors.json();
      await expectMatchesSpec('firecrawlBatchScrapeErrors', errors, body, 'firecrawl');
      expect(body).to.deep.equal({ errors: [{ id: 'e1', url: 'http://127.0.0.1:9/x', code: 'TARGET_UNREACHABLE', error: 'refused', timestamp: new Date(0).toISOString() }], robotsBlocked: [] });
      const cancelled = await fetch(`${s.base}/v2/batch/scrape/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
      expect(await cancelled.json()).to.deep.equal({ success: true, status: 'cancelled' });
    });

    it('the JS SDK\'s watcher: its WebSocket is accepted and closed with 1000, so it polls', async () => {
      const port = Number(new URL(s.base).port);
      const answer = await new Promise<Buffer>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(`GET /v2/batch/scrape/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ${key}\r\n\r\n`);
        });
        const chunks: Buffer[] = [];
        socket.on('data', (c) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
      });
      const text = answer.toString('latin1');
      expect(text).to.match(/^HTTP\/1\.1 101 /);
      expect(text).to.contain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
      expect([...answer.subarray(answer.length - 4)]).to.deep.equal([0x88, 0x02, 0x03, 0xe8]);
    });
  });
});
