import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import {
  createFirecrawlClient,
  firecrawlErrorMessage,
  isFirecrawlError,
  type FirecrawlClient,
  type FirecrawlErrorBody,
} from '../../../src/client/firecrawl/index.js';
import { testDatabases } from '../../helpers/databases.js';
import { eventually } from '../../helpers/eventually.js';
import { expectMatchesSpec } from '../../helpers/spec.js';
import { useSuite } from '../../helpers/suite.js';

const PAGE = '<!doctype html><html lang="en"><head><title>Client page</title></head><body><main><h1>Hello client</h1><p><a href="/next">next</a></p></main></body></html>';

/** A client whose every outgoing request is kept, to see how the key travelled. */
function recordingClient(base: string, apiKey: string): { client: FirecrawlClient; sent: Request[] } {
  const sent: Request[] = [];
  const client = createFirecrawlClient({
    baseUrl: base,
    apiKey,
    fetch: (request) => {
      sent.push(request.clone());
      return fetch(request);
    },
  });
  return { client, sent };
}

// The client's typing and the server's answers are the same whatever the database: SQLite only.
for (const database of testDatabases().filter((d) => d.name === 'sqlite')) {
  describe(`client: the Firecrawl dialect through createFirecrawlClient (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database);
    let key: string;
    let client: FirecrawlClient;
    let sent: Request[];
    before(async () => {
      key = await s.store.key({ credits: 10_000 });
      ({ client, sent } = recordingClient(s.server.base, key));
      s.target.route('/fc-page', (_req, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
    });

    it('scrape: the document typed, the key as a Bearer token, defaulted fields left to the server', async () => {
      const url = s.target.url('/fc-page');
      const { data, error, response } = await client.POST('/v2/scrape', { body: { url, formats: ['markdown', 'links'] } });
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(200);
      expect(data?.success).to.equal(true);
      expect(data?.data.markdown).to.contain('# Hello client');
      expect(data?.data.links).to.deep.equal([s.target.url('/next')]);
      expect(data?.data.metadata).to.include({ title: 'Client page', sourceURL: url, statusCode: 200, creditsUsed: 1, proxyUsed: 'basic' });
      const request = sent.at(-1);
      expect(request?.headers.get('authorization')).to.equal(`Bearer ${key}`);
      expect(request?.headers.get('x-api-key')).to.equal(null);
      expect(await request?.json()).to.deep.equal({ url, formats: ['markdown', 'links'] });
      await expectMatchesSpec('firecrawlScrape', response, data, 'firecrawl');
    });

    it('errors: a 400 naming what it refuses, a 401 and a 404, each the typed error body', async () => {
      const refused = await client.POST('/v2/scrape', { body: { url: s.target.url('/fc-page'), formats: ['json'] } });
      expect(refused.response.status).to.equal(400);
      expect(refused.data).to.equal(undefined);
      const body: FirecrawlErrorBody | undefined = refused.error;
      expect(body).to.include({ success: false, code: 'BAD_REQUEST' });
      expect(isFirecrawlError(body)).to.equal(true);
      expect(firecrawlErrorMessage(body)).to.contain('json').and.contain('(BAD_REQUEST)');
      await expectMatchesSpec('firecrawlScrape', refused.response, refused.error, 'firecrawl');

      const stranger = createFirecrawlClient({ baseUrl: s.server.base, apiKey: 'not-a-key' });
      const unauthorized = await stranger.POST('/v2/scrape', { body: { url: s.target.url('/fc-page') } });
      expect(unauthorized.response.status).to.equal(401);
      expect(unauthorized.error?.success).to.equal(false);
      expect(isFirecrawlError(unauthorized.error)).to.equal(true);

      const missing = await client.GET('/v2/batch/scrape/{id}', { params: { path: { id: '5b7c1f0e-2d4a-4c8e-9f1a-3e6b8d2c4a10' } } });
      expect(missing.response.status).to.equal(404);
      expect(missing.error).to.include({ success: false, code: 'NOT_FOUND' });
      await expectMatchesSpec('firecrawlBatchScrapeStatus', missing.response, missing.error, 'firecrawl');

      expect(isFirecrawlError('<html>502</html>')).to.equal(false);
      expect(firecrawlErrorMessage('<html>502</html>')).to.equal('<html>502</html>');
    });

    it('batch: started, its status read to the end, its failed page listed by errors', async () => {
      const urls = [s.target.url('/fc-page?n=1'), s.target.url('/fc-page?n=2'), s.target.url('/hang?n=3')];
      const started = await client.POST('/v2/batch/scrape', { body: { urls, formats: ['markdown'], timeout: 1_000, maxRetries: 0 } });
      expect(started.response.status).to.equal(200);
      const id = started.data?.id ?? '';
      expect(started.data?.url).to.equal(`${s.server.base}/v2/batch/scrape/${id}`);
      await expectMatchesSpec('firecrawlBatchScrapeStart', started.response, started.data, 'firecrawl');

      let status = await client.GET('/v2/batch/scrape/{id}', { params: { path: { id } } });
      await eventually(async () => {
        status = await client.GET('/v2/batch/scrape/{id}', { params: { path: { id } } });
        return status.data?.status !== 'scraping';
      }, 30_000, 'the batch to finish');
      expect(status.data).to.include({ success: true, status: 'completed', total: 3, creditsUsed: 2 });
      expect(status.data?.data.map((d) => d.metadata.sourceURL).sort()).to.deep.equal(urls.slice(0, 2));
      await expectMatchesSpec('firecrawlBatchScrapeStatus', status.response, status.data, 'firecrawl');

      const errors = await client.GET('/v2/batch/scrape/{id}/errors', { params: { path: { id } } });
      expect(errors.data?.errors.map((e) => [e.url, e.code])).to.deep.equal([[urls[2], 'SCRAPE_TIMEOUT']]);
      expect(errors.data?.robotsBlocked).to.deep.equal([]);
      await expectMatchesSpec('firecrawlBatchScrapeErrors', errors.response, errors.data, 'firecrawl');
    });

    it('batch: cancelled, the pages not started dropped', async () => {
      const urls = Array.from({ length: 20 }, (_, i) => s.target.url(`/hang?n=${i}`));
      const started = await client.POST('/v2/batch/scrape', { body: { urls, formats: ['markdown'], maxConcurrency: 1, timeout: 5_000 } });
      const id = started.data?.id ?? '';
      const cancelled = await client.DELETE('/v2/batch/scrape/{id}', { params: { path: { id } } });
      expect(cancelled.response.status).to.equal(200);
      expect(cancelled.data).to.deep.equal({ success: true, status: 'cancelled' });
      await expectMatchesSpec('firecrawlBatchScrapeCancel', cancelled.response, cancelled.data, 'firecrawl');
      const status = await client.GET('/v2/batch/scrape/{id}', { params: { path: { id } } });
      expect(status.data?.status).to.equal('cancelled');
      expect(status.data?.completed).to.be.lessThan(20);
      expect(sent.at(-1)?.headers.get('authorization')).to.equal(`Bearer ${key}`);
    });
  });
}
