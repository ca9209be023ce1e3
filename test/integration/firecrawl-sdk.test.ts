import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { PNG } from 'pngjs';
import { loadFirecrawlSdk, type FirecrawlSdk, type FirecrawlSdkClass } from '../helpers/firecrawl-sdk.js';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';
import { waitUntil } from '../helpers/eventually.js';

/** A small site for crawl and map: every page links on, one link twice spelled. */
const SITE: Record<string, string[]> = { '': ['a', 'b'], a: ['b', 'c'], b: ['c', 'a#top'], c: [''] };
const sitePage = (name: string) =>
  `<!doctype html><html><head><title>site ${name || 'home'}</title></head><body><main><h1>Site ${name || 'home'}</h1>${SITE[name]
    .map((to) => `<a href="/site/${to}">${to || 'home'}</a>`)
    .join(' ')}</main></body></html>`;

const PAGE = `<!doctype html><html lang="en"><head><title>SDK page</title><meta name="description" content="for the SDK"></head><body>
<nav><a href="/home">Home</a></nav>
<main><h1>Hello SDK</h1><p>Read <a href="/guide" data-kind="doc">the guide</a>.</p><img src="/logo.png" alt="logo">
<input id="q"><button id="go" onclick="document.getElementById('out').textContent = 'typed:' + document.getElementById('q').value">Go</button><div id="out"></div></main>
<footer>Footer</footer></body></html>`;

/**
 * Firecrawl's published JS SDK (`@mendable/firecrawl-js` 4.x, from test/sdk) against the real
 * server, through its own methods only: its requests, its checks of the answers and its polling
 * are what a user of it gets. Skipped where test/sdk is not installed (`npm test` installs it).
 * Crawl and map run on a four-page site of the suite's target.
 */
// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`Firecrawl's JS SDK against the real server (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });
    let Firecrawl: FirecrawlSdkClass;
    let sdk: FirecrawlSdk;
    let key: string;

    before(async function () {
      const loaded = await loadFirecrawlSdk();
      if (!loaded) this.skip();
      Firecrawl = loaded;
      key = await s.store.key({ credits: 100_000 });
      sdk = new Firecrawl({ apiKey: key, apiUrl: s.server.base });
      s.target.route('/page', (_req, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
      for (const name of Object.keys(SITE)) {
        s.target.route(`/site/${name}`, (_req, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(sitePage(name)));
      }
      s.target.route('/held', (_req, res: ServerResponse) => {
        const t = setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>'), 3_000);
        res.on('close', () => clearTimeout(t));
      });
    });

    it('scrape with every format: markdown, html, rawHtml, links, images, screenshot, attributes', async () => {
      const url = s.target.url('/page');
      const base = s.target.url('/');
      const doc = await sdk.scrape(url, {
        formats: ['markdown', 'html', 'rawHtml', 'links', 'images', { type: 'screenshot', fullPage: false, viewport: { width: 640, height: 480 } }, { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }, { selector: '[data-kind]', attribute: 'data-kind' }] }],
      });
      expect(doc.markdown).to.contain('# Hello SDK').and.contain(`[the guide](${base}guide)`).and.not.contain('Footer');
      expect(doc.html).to.contain('<h1>Hello SDK</h1>').and.not.contain('Footer');
      expect(doc.rawHtml).to.contain('<footer>Footer</footer>');
      expect(doc.links).to.deep.equal([`${base}home`, `${base}guide`]);
      expect(doc.images).to.deep.equal([`${base}logo.png`]);
      const shot = String(doc.screenshot);
      expect(PNG.sync.read(Buffer.from(shot.slice(shot.indexOf(',') + 1), 'base64')).width).to.equal(640);
      expect(doc.attributes).to.deep.equal([
        { selector: 'a', attribute: 'href', values: ['/home', '/guide'] },
        { selector: '[data-kind]', attribute: 'data-kind', values: ['doc'] },
      ]);
      expect(doc.metadata).to.include({ title: 'SDK page', description: 'for the SDK', language: 'en', sourceURL: url, statusCode: 200, proxyUsed: 'basic', creditsUsed: 10 });
    });

    it('scrape with actions: the page as they left it, and data.actions', async () => {
      const doc = await sdk.scrape(s.target.url('/page'), {
        formats: ['markdown'],
        actions: [
          { type: 'click', selector: '#q' },
          { type: 'write', text: 'from the SDK' },
          { type: 'click', selector: '#go' },
          { type: 'wait', milliseconds: 20 },
          { type: 'executeJavascript', script: "document.getElementById('out').textContent" },
          { type: 'scrape' },
          { type: 'screenshot', fullPage: true },
        ],
      });
      const actions = doc.actions as { javascriptReturns: unknown[]; scrapes: Array<{ html: string }>; screenshots: string[]; pdfs: string[] };
      expect(actions.javascriptReturns).to.deep.equal([{ type: 'string', value: 'typed:from the SDK' }]);
      expect(actions.scrapes[0].html).to.contain('typed:from the SDK');
      expect(actions.screenshots[0]).to.match(/^data:image\/png;base64,/);
      expect(actions.pdfs).to.deep.equal([]);
      expect(doc.markdown).to.contain('typed:from the SDK');
    });

    it('a refused action reaches the SDK as its error, with the status and the action named', async () => {
      const err = await sdk.scrape(s.target.url('/page'), { actions: [{ type: 'click', selector: '#nowhere' }] }).then(() => undefined, (e: unknown) => e as { status: number; message: string });
      expect(err).to.include({ status: 400 });
      expect(err?.message).to.contain('actions.0.selector');
    });

    it('startBatchScrape and getBatchScrapeStatus: the job started, then read until it completes', async () => {
      const urls = [s.target.url('/page'), s.target.url('/page?b=1'), s.target.url('/page?b=2')];
      const started = await sdk.startBatchScrape([...urls, 'not a url'], { options: { formats: ['markdown', 'links'] } });
      expect(started.id).to.be.a('string');
      expect(started.url).to.equal(`${s.server.base}/v2/batch/scrape/${started.id}`);
      expect(started.invalidURLs).to.deep.equal(['not a url']);
      let job = await sdk.getBatchScrapeStatus(started.id);
      await waitUntil(async () => (job = await sdk.getBatchScrapeStatus(started.id)).status !== 'scraping', 30_000);
      expect(job).to.include({ status: 'completed', total: 3, completed: 3, creditsUsed: 3 });
      expect(job.data.map((d) => d.metadata.sourceURL).sort()).to.deep.equal([...urls].sort());
      expect(job.data[0].links).to.have.length(2);
    });

    it('batchScrape: started and polled by the SDK to the end, every page of documents followed', async () => {
      const urls = Array.from({ length: 5 }, (_, i) => s.target.url(`/page?n=${i}`));
      const job = await sdk.batchScrape(urls, { options: { formats: ['markdown'] }, pollInterval: 1 });
      expect(job).to.include({ status: 'completed', total: 5, completed: 5, creditsUsed: 5 });
      expect(job.data).to.have.length(5);
      expect(job.data.every((d) => String(d.markdown).includes('Hello SDK'))).to.equal(true);
    });

    it('batchScrape with actions: each page rendered, its actions run, its data.actions stored with it', async () => {
      const urls = [s.target.url('/page?a=1'), s.target.url('/page?a=2')];
      const job = await sdk.batchScrape(urls, { options: { formats: ['markdown'], actions: [{ type: 'executeJavascript', script: 'location.search' }] }, pollInterval: 1 });
      expect(job).to.include({ status: 'completed', total: 2, completed: 2, creditsUsed: 20 });
      const returned = job.data.map((d) => (d.actions as { javascriptReturns: Array<{ value: unknown }> }).javascriptReturns[0].value).sort();
      expect(returned).to.deep.equal(['?a=1', '?a=2']);
    });

    it('cancelBatchScrape: the job cancelled, the pages not started dropped, uncharged', async () => {
      const before = await s.store.remaining(key);
      const urls = Array.from({ length: 40 }, (_, i) => s.target.url(`/held?n=${i}`));
      const started = await sdk.startBatchScrape(urls, { options: { formats: ['markdown'] }, maxConcurrency: 1 });
      expect(await sdk.cancelBatchScrape(started.id)).to.equal(true);
      const job = await sdk.getBatchScrapeStatus(started.id);
      expect(job.status).to.equal('cancelled');
      expect(job.completed).to.be.lessThan(40);
      expect(before - (await s.store.remaining(key))).to.be.at.most(job.completed + 1);
    });

    const sitePages = () => Object.keys(SITE).map((name) => s.target.url(`/site/${name}`)).sort();

    it('crawl: started and polled by the SDK to the end, every page of the site once', async () => {
      const job = await sdk.crawl(s.target.url('/site/'), { limit: 10, scrapeOptions: { formats: ['markdown'] }, pollInterval: 1 });
      expect(job).to.include({ status: 'completed', total: 4, completed: 4, creditsUsed: 4 });
      expect(job.data.map((d) => d.metadata?.sourceURL).sort()).to.deep.equal(sitePages());
      expect(job.data.every((d) => /^# Site /m.test(String(d.markdown)))).to.equal(true);
    });

    it('startCrawl and getCrawlStatus: the limit holds, and getCrawlErrors reads the errors', async () => {
      const started = await sdk.startCrawl(s.target.url('/site/'), { limit: 2, scrapeOptions: { formats: ['links'] } });
      expect(started.url).to.equal(`${s.server.base}/v2/crawl/${started.id}`);
      let job = await sdk.getCrawlStatus(started.id);
      await waitUntil(async () => (job = await sdk.getCrawlStatus(started.id)).status !== 'scraping', 30_000);
      expect(job).to.include({ status: 'completed', completed: 2, creditsUsed: 2 });
      expect(job.data).to.have.length(2);
      const errors = await sdk.getCrawlErrors(started.id);
      expect(errors.errors).to.deep.equal([]);
    });

    it('map: every page of the site, from its links', async () => {
      const map = await sdk.map(s.target.url('/site/'), { limit: 100 });
      const urls = map.links.map((l) => l.url);
      for (const page of sitePages()) expect(urls, page).to.include(page);
    });
  });
}
