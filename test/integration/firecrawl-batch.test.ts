import { expect } from 'chai';
import type { JobDocument } from '../../src/jobs/job-ports.js';
import { antibotFixtures } from '../fixtures/antibot/index.js';
import { createAdminClient } from '../../src/client/admin/index.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { booksBalance, ledgerRows } from '../helpers/ledger-checks.js';
import { useSuite } from '../helpers/suite.js';
import { verifiesBoth, WebhookReceiver } from '../helpers/webhook-receiver.js';

const TOKEN = 'batch-admin-token-0123456789abcdef';

interface StatusBody {
  success: boolean;
  status: string;
  total: number;
  completed: number;
  creditsUsed: number;
  next?: string;
  data: JobDocument[];
}

/**
 * A batch of 500 loopback URLs through the real server, in Firecrawl's shape: pages, 404s, slow
 * pages, timeouts and walls. Every URL is accounted for once, credits are exact, the books balance,
 * and the webhook receives every event signed both ways.
 */
for (const database of testDatabases()) {
  describe(`Firecrawl batch scrape (${database.name})`, function () {
    this.timeout(300_000);
    let receiver: WebhookReceiver;
    before(async () => void (receiver = await WebhookReceiver.start()));
    after(async () => receiver?.close());
    const s = useSuite(database, {
      ADMIN_TOKEN: TOKEN, WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '0,1,1,1', JOB_RETRY_BASE_SECONDS: '0.05', JOB_STALLED_SECONDS: '2',
    });
    const wall = antibotFixtures().walls[0];

    const api = (key: string, path: string, init: RequestInit = {}) =>
      fetch(`${s.server.base}${path}`, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });

    it('500 URLs of mixed outcomes: each once in data or errors, credits exact, the books balanced, every event signed both ways', async () => {
      s.target.route('/wall', (_req, res) => void res.writeHead(wall.status, wall.headers.flat()).end(wall.body));
      const key = await s.store.key({ credits: 100_000 });
      // The server's first page starts its HTML threads and compiles its code: on a loaded machine
      // that alone can pass an item's deadline, and a page would time out for no fault of its own.
      const warm = await s.store.key();
      expect((await api(warm, '/v2/scrape', { method: 'POST', body: JSON.stringify({ url: s.target.url('/page?warm') }) })).status).to.equal(200);
      const before = await s.store.remaining(key);
      const urls = Array.from({ length: 500 }, (_, i) => {
        if (i % 50 === 1) return s.target.url(`/hang?i=${i}`);
        if (i % 50 === 2) return s.target.url(`/wall?i=${i}`);
        if (i % 10 === 3) return s.target.url(`/status?code=404&i=${i}`);
        if (i % 10 === 4) return s.target.url(`/slow?ms=200&i=${i}`);
        return s.target.url(`/page?i=${i}`);
      });
      const submitted = await api(key, '/v2/batch/scrape', {
        method: 'POST',
        body: JSON.stringify({ urls, formats: ['markdown'], timeout: 4_000, maxRetries: 1, webhook: { url: receiver.url('/batch'), metadata: { run: 'mixed' }, events: ['started', 'page', 'completed'] } }),
      });
      const { id, url } = (await submitted.json()) as { id: string; url: string };
      expect(submitted.status).to.equal(200);
      expect(url).to.equal(`${s.server.base}/v2/batch/scrape/${id}`);
      let status: StatusBody | undefined;
      await eventually(async () => {
        status = (await (await api(key, `/v2/batch/scrape/${id}`)).json()) as StatusBody;
        return status.status !== 'scraping';
      }, 240_000, 'the batch to finish');
      expect(status!.status).to.equal('completed');
      const docs: JobDocument[] = [];
      for (let next: string | undefined = `${s.server.base}/v2/batch/scrape/${id}`; next; ) {
        const page = (await (await api(key, next.slice(s.server.base.length))).json()) as StatusBody;
        docs.push(...page.data);
        next = page.next;
      }
      const errors = ((await (await api(key, `/v2/batch/scrape/${id}/errors`)).json()) as { errors: Array<{ url: string; code: string }> }).errors;
      expect([...docs.map((d) => d.metadata.sourceURL), ...errors.map((e) => e.url)].sort()).to.deep.equal([...urls].sort());
      expect(errors.map((e) => e.url).sort()).to.deep.equal(urls.filter((u) => u.includes('/hang') || u.includes('/wall')).sort());
      expect(new Set(errors.filter((e) => e.url.includes('/hang')).map((e) => e.code))).to.deep.equal(new Set(['SCRAPE_TIMEOUT']));
      expect(docs.filter((d) => d.metadata.sourceURL.includes('code=404')).every((d) => d.metadata.statusCode === 404)).to.equal(true);
      const credits = docs.reduce((sum, d) => sum + d.metadata.creditsUsed, 0);
      expect(status!.creditsUsed).to.equal(credits);
      expect(before - (await s.store.remaining(key))).to.equal(credits);
      const charged = (await ledgerRows(s.store)).filter((r) => r.outcome === 'charged' && docs.some((d) => d.metadata.scrapeId === r.request_id));
      expect(charged.length).to.equal(docs.length);
      expect(await booksBalance(s.databaseUrl)).to.equal(true);

      // Every event, signed both ways with the key's secret: started, a page per document, completed.
      const admin = createAdminClient({ baseUrl: s.server.base, adminToken: TOKEN });
      const keyId = (await s.store.keys.find(key))!.id;
      const secret = (await admin.GET('/admin/v1/keys/{id}/webhook-secret', { params: { path: { id: keyId } } })).data!.secret;
      const ofJob = () => receiver.received.filter((r) => r.path === '/batch' && (JSON.parse(r.body) as { id: string }).id === id);
      await eventually(() => ofJob().some((r) => (JSON.parse(r.body) as { type: string }).type === 'batch_scrape.completed'), 60_000, 'the completed event');
      const received = ofJob();
      const types = received.map((r) => (JSON.parse(r.body) as { type: string }).type);
      expect(types.filter((t) => t === 'batch_scrape.started')).to.have.length(1);
      expect(types.filter((t) => t === 'batch_scrape.page')).to.have.length(docs.length);
      expect(types.filter((t) => t === 'batch_scrape.completed')).to.have.length(1);
      for (const r of received) expect(await verifiesBoth(r, secret)).to.equal(true);
      expect((JSON.parse(received[0].body) as { metadata: unknown }).metadata).to.deep.equal({ run: 'mixed' });
    });

    it("hides a job from another key (404), and pages by skip and limit with next keeping the limit", async () => {
      const owner = await s.store.key();
      const other = await s.store.key();
      const urls = Array.from({ length: 7 }, (_, i) => s.target.url(`/page?p=${i}`));
      const { id } = (await (await api(owner, '/v2/batch/scrape', { method: 'POST', body: JSON.stringify({ urls }) })).json()) as { id: string };
      expect((await api(other, `/v2/batch/scrape/${id}`)).status).to.equal(404);
      expect((await api(other, `/v2/batch/scrape/${id}/errors`)).status).to.equal(404);
      expect((await api(other, `/v2/batch/scrape/${id}`, { method: 'DELETE' })).status).to.equal(404);
      await eventually(async () => ((await (await api(owner, `/v2/batch/scrape/${id}`)).json()) as StatusBody).status === 'completed', 60_000, 'the batch');
      const page = (await (await api(owner, `/v2/batch/scrape/${id}?limit=3`)).json()) as StatusBody;
      expect(page.data).to.have.length(3);
      expect(page.next).to.equal(`${s.server.base}/v2/batch/scrape/${id}?skip=3&limit=3`);
      expect((await api(owner, `/v2/batch/scrape/${id}?skip=-1`)).status).to.equal(400);
      expect((await api(owner, `/v2/batch/scrape/${id}?limit=0`)).status).to.equal(400);
    });
  });
}
