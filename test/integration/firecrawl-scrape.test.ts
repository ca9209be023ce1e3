import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { PNG } from 'pngjs';
import type { JobDocument } from '../../src/jobs/job-ports.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

const ARTICLE = `<!doctype html><html lang="fr"><head><title>Notes de version</title>
<meta name="description" content="Ce qui change"><meta property="og:title" content="Notes">
<link rel="icon" href="/favicon.png"><base href="/docs/"></head><body>
<nav><a href="/home">Accueil</a></nav>
<main><h1>Version 2</h1><p>Lisez <a href="guide.html">le guide</a> et <a href="https://example.com/">ailleurs</a>.</p>
<img src="img/logo.png" alt="logo"><img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">
<div class="late"></div></main>
<footer>Pied de page</footer>
<script>document.querySelector('.late').textContent = 'rendu par script';</script>
</body></html>`;

type ScrapeBody = { success: boolean; data: JobDocument };

/** POST /v2/scrape on the real server, against a real target on loopback, on both engines and both databases. */
// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`Firecrawl POST /v2/scrape (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });
    let key: string;

    before(async () => {
      key = await s.store.key({ credits: 100_000 });
      s.target.route('/article', (_req, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE));
      s.target.route('/moved', (_req, res: ServerResponse) => void res.writeHead(302, { location: '/article' }).end());
    });

    const scrape = (body: Record<string, unknown>) =>
      fetch(`${s.server.base}/v2/scrape`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });

    it('plain: markdown, html, rawHtml, links, images and the metadata, charged at the plain cost', async () => {
      const before = await s.store.remaining(key);
      const url = s.target.url('/moved');
      const res = await scrape({ url, formats: ['markdown', 'html', 'rawHtml', 'links', 'images'], origin: 'js-sdk@4.42.0' });
      const body = (await res.json()) as ScrapeBody;
      expect(res.status, JSON.stringify(body)).to.equal(200);
      await expectMatchesSpec('firecrawlScrape', res, body, 'firecrawl');
      const { data } = body;
      const base = s.target.url('/');
      expect(data.markdown).to.contain('# Version 2').and.contain(`[le guide](${base}docs/guide.html)`).and.not.contain('Pied de page').and.not.contain('Accueil');
      expect(data.html).to.contain('<h1>Version 2</h1>').and.not.match(/<script|Pied de page|base64/);
      expect(data.rawHtml).to.equal(ARTICLE);
      expect(data.links).to.deep.equal([`${base}home`, `${base}docs/guide.html`, 'https://example.com/']);
      expect(data.images).to.deep.equal([`${base}docs/img/logo.png`]);
      expect(data.metadata).to.include({
        sourceURL: url,
        url: s.target.url('/article'),
        statusCode: 200,
        contentType: 'text/html; charset=utf-8',
        title: 'Notes de version',
        description: 'Ce qui change',
        language: 'fr',
        ogTitle: 'Notes',
        favicon: `${base}favicon.png`,
        proxyUsed: 'basic',
        creditsUsed: 1,
      });
      const row = await s.store.ledgerRow(data.metadata.scrapeId);
      expect(row).to.include({ outcome: 'charged', cost: 1 });
      expect(await s.store.remaining(key)).to.equal(before - 1);
    });

    it('browser: the rendered page and a screenshot as a data URI, charged at the browser cost', async () => {
      const res = await scrape({ url: s.target.url('/article'), formats: ['markdown', { type: 'screenshot', viewport: { width: 800, height: 600 } }], onlyMainContent: false });
      const body = (await res.json()) as ScrapeBody;
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(body.data.markdown).to.contain('rendu par script').and.contain('Pied de page');
      const shot = body.data.screenshot as string;
      expect(shot).to.match(/^data:image\/png;base64,/);
      const png = PNG.sync.read(Buffer.from(shot.slice(shot.indexOf(',') + 1), 'base64'));
      expect(png.width).to.equal(800);
      expect(body.data.metadata.creditsUsed).to.equal(10);
    });

    it('a timeout is a 408 SCRAPE_TIMEOUT, refunded', async () => {
      const before = await s.store.remaining(key);
      const res = await scrape({ url: s.target.url('/hang'), timeout: 1000 });
      const body = (await res.json()) as { success: boolean; code: string };
      expect(res.status).to.equal(408);
      expect(body).to.include({ success: false, code: 'SCRAPE_TIMEOUT' });
      expect(await s.store.remaining(key)).to.equal(before);
    });
  });
}
