import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { PNG } from 'pngjs';
import type { JobDocument } from '../../src/jobs/job-ports.js';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';

const FORM = (serviceUrl: string) => `<!doctype html><html><head><title>Form</title></head><body>
<input id="q" value="">
<button id="go" onclick="document.getElementById('out').textContent = 'typed:' + document.getElementById('q').value">Go</button>
<div id="out"></div>
<form action="/submitted" method="get"><input id="x" name="x"></form>
<div id="later"></div>
<script>setTimeout(function () { document.getElementById('later').innerHTML = '<p id="late">late content</p>'; }, 300);</script>
<a id="away" href="${serviceUrl}/v2/usage">away</a>
<script>window.popups = [];</script>
${'<button class="pop" onclick="window.popups.push(window.open(\'/popup\', \'_blank\'))">pop</button>'.repeat(20)}
<div style="height: 3000px">tall</div>
</body></html>`;

interface ActionsData {
  screenshots: string[];
  scrapes: Array<{ url: string; html: string }>;
  javascriptReturns: Array<{ type: string; value: unknown }>;
  pdfs: string[];
}
type ScrapeBody = { success: boolean; data: JobDocument & { actions?: ActionsData }; error?: string; details?: Array<{ path: unknown[]; message: string }> };

/** Firecrawl's browser actions on the browser engine, on the real server with real Chromium, against a loopback target. */
// What this file proves is the same on either database (the ledger on MySQL has suites of its own,
// and the SDK's batches run there in firecrawl-sdk): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`Firecrawl actions on POST /v2/scrape (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });
    let key: string;

    before(async () => {
      key = await s.store.key({ credits: 100_000 });
      s.target.route('/form', (_req, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FORM(s.server.base)));
      s.target.route('/submitted', (req, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><h1>Submitted ${req.url ?? ''}</h1></body></html>`));
    });

    const scrape = async (body: Record<string, unknown>) => {
      const res = await fetch(`${s.server.base}/v2/scrape`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as ScrapeBody };
    };

    it('clicks, writes, waits, scrolls, runs scripts and captures, in order: data.actions, charged one render', async () => {
      const before = await s.store.remaining(key);
      const { status, body } = await scrape({
        url: s.target.url('/form'),
        formats: ['markdown'],
        onlyMainContent: false,
        actions: [
          { type: 'click', selector: '#q' },
          { type: 'write', text: 'hello' },
          { type: 'click', selector: '#go' },
          { type: 'wait', selector: '#late' },
          { type: 'wait', milliseconds: 50 },
          { type: 'scroll', direction: 'down' },
          { type: 'executeJavascript', script: "document.getElementById('out').textContent" },
          { type: 'executeJavascript', script: 'new Promise((done) => setTimeout(() => done({ y: window.scrollY > 0, n: [1, 2] }), 10))' },
          { type: 'executeJavascript', script: "'x'.repeat(2 * 1024 * 1024)" },
          { type: 'scrape' },
          { type: 'screenshot', viewport: { width: 800, height: 600 } },
          { type: 'pdf', format: 'A4', landscape: true, scale: 0.5 },
        ],
      });
      expect(status, JSON.stringify(body)).to.equal(200);
      const { actions } = body.data;
      expect(actions?.javascriptReturns.slice(0, 2)).to.deep.equal([
        { type: 'string', value: 'typed:hello' },
        { type: 'object', value: { y: true, n: [1, 2] } },
      ]);
      expect(actions?.javascriptReturns[2]).to.include({ type: 'error' });
      expect(actions?.scrapes).to.have.length(1);
      expect(actions?.scrapes[0].url).to.equal(s.target.url('/form'));
      expect(actions?.scrapes[0].html).to.contain('typed:hello').and.contain('late content');
      expect(actions?.screenshots).to.have.length(1);
      const shot = actions?.screenshots[0] ?? '';
      expect(shot).to.match(/^data:image\/png;base64,/);
      expect(PNG.sync.read(Buffer.from(shot.slice(shot.indexOf(',') + 1), 'base64')).width).to.equal(800);
      expect(actions?.pdfs[0]).to.match(/^data:application\/pdf;base64,JVBERi/);
      expect(body.data.markdown).to.contain('typed:hello');
      expect(body.data.metadata.creditsUsed).to.equal(10);
      expect(await s.store.remaining(key)).to.equal(before - 10);
    });

    it('press Enter in a field submits its form: the document is the page it led to', async () => {
      const { status, body } = await scrape({
        url: s.target.url('/form'),
        actions: [{ type: 'click', selector: '#x' }, { type: 'write', text: 'v1' }, { type: 'press', key: 'Enter' }, { type: 'wait', selector: 'h1' }, { type: 'scrape' }],
      });
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.data.markdown).to.contain('Submitted /submitted?x=v1');
      expect(body.data.metadata.url).to.equal(s.target.url('/submitted?x=v1'));
      expect(s.target.requestsTo('/submitted')).to.have.length.greaterThan(0);
    });

    it('a selector that matches nothing is a 400 naming the action, not charged', async () => {
      const before = await s.store.remaining(key);
      for (const action of [{ type: 'click', selector: '#nowhere' }, { type: 'scroll', direction: 'up', selector: '.none' }]) {
        const { status, body } = await scrape({ url: s.target.url('/form'), actions: [{ type: 'wait', milliseconds: 10 }, action] });
        expect(status, JSON.stringify(body)).to.equal(400);
        expect(body.details?.[0].path).to.deep.equal(['actions.1.selector']);
        expect(body.error).to.contain('action 1');
      }
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('a selector that parses as CSS but that Chromium refuses is a 400 naming the action, for every action that takes one, not charged', async () => {
      const before = await s.store.remaining(key);
      for (const action of [{ type: 'wait', selector: ':nonsense' }, { type: 'click', selector: 'a:nonsense' }, { type: 'scroll', selector: ':nonsense' }]) {
        const { status, body } = await scrape({ url: s.target.url('/form'), timeout: 10_000, actions: [{ type: 'scrape' }, action] });
        expect(status, JSON.stringify(body)).to.equal(400);
        expect(body.details?.[0].path).to.deep.equal(['actions.1.selector']);
        expect(body.error).to.contain('not a valid CSS selector');
      }
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('refused before any work: browser false, more than 50 actions, waits over 60 s, an unknown action or key, CSS that does not parse', async () => {
      const before = await s.store.remaining(key);
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ browser: false, actions: [{ type: 'scrape' }] }, /actions needs the browser/],
        [{ actions: Array.from({ length: 51 }, () => ({ type: 'scrape' })) }, /actions/],
        [{ actions: [{ type: 'wait', milliseconds: 40_000 }, { type: 'wait', milliseconds: 30_000 }] }, /at most 60000 ms/],
        [{ timeout: 5_000, actions: [{ type: 'wait', milliseconds: 5_000 }] }, /leaves nothing/],
        [{ actions: [{ type: 'hover', selector: 'a' }] }, /actions/],
        [{ actions: [{ type: 'press', key: 'NotAKey' }] }, /not a key/],
        [{ actions: [{ type: 'click', selector: 'a[' }] }, /not a valid CSS selector/],
        [{ actions: [{ type: 'wait' }] }, /either milliseconds or a selector/],
      ];
      for (const [fields, message] of cases) {
        const { status, body } = await scrape({ url: s.target.url('/form'), ...fields });
        expect(status, JSON.stringify(body)).to.equal(400);
        expect(body.error).to.match(message);
      }
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it("a click that navigates to a refused address (the service's own port) never leaves the browser: 404, not charged", async () => {
      const before = await s.store.remaining(key);
      const { status, body } = await scrape({ url: s.target.url('/form'), timeout: 10_000, actions: [{ type: 'click', selector: '#away' }, { type: 'scrape' }] });
      expect(status, JSON.stringify(body)).to.equal(404);
      expect(body.error).to.contain('target policy');
      expect(await s.store.remaining(key)).to.equal(before);
      expect(s.server.logs.filter((l) => String(l.path ?? '').startsWith('/v2/usage')), 'requests the service got from the browser').to.deep.equal([]);
    });

    it('the attributes format: read in the HTML worker from the page as fetched, charged as the page', async () => {
      const { status, body } = await scrape({ url: s.target.url('/form'), formats: [{ type: 'attributes', selectors: [{ selector: 'input', attribute: 'id' }, { selector: 'a', attribute: 'href' }] }] });
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body.data.attributes).to.deep.equal([
        { selector: 'input', attribute: 'id', values: ['q', 'x'] },
        { selector: 'a', attribute: 'href', values: [`${s.server.base}/v2/usage`] },
      ]);
      expect(body.data.metadata.creditsUsed).to.equal(1);
      const refused = await scrape({ url: s.target.url('/form'), formats: [{ type: 'attributes', selectors: [{ selector: 'a[[', attribute: 'href' }] }] });
      expect(refused.status).to.equal(400);
      const one = { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] };
      for (const formats of [[one, one], [{ type: 'attributes', selectors: [...one.selectors, ...one.selectors] }]]) {
        const repeated = await scrape({ url: s.target.url('/form'), formats });
        expect(repeated.status, JSON.stringify(repeated.body)).to.equal(400);
      }
    });

    it('the sync API: actions as Base64 JSON on /v2/extended (their results added) and /v2/general (the page as they left it)', async () => {
      const actions = (list: unknown[]) => Buffer.from(JSON.stringify(list)).toString('base64');
      const steps = actions([{ type: 'click', selector: '#q' }, { type: 'write', text: 'sync' }, { type: 'click', selector: '#go' }, { type: 'executeJavascript', script: "document.getElementById('out').textContent" }]);
      const extended = await s.call('/v2/extended', [['url', s.target.url('/form')], ['x-api-key', key], ['actions', steps]]);
      const json = (await extended.json()) as { html: string; actions: ActionsData };
      expect(extended.status, JSON.stringify(json).slice(0, 500)).to.equal(200);
      expect(json.actions.javascriptReturns).to.deep.equal([{ type: 'string', value: 'typed:sync' }]);
      expect(json.html).to.contain('typed:sync');
      const general = await s.call('/v2/general', [['url', s.target.url('/form')], ['x-api-key', key], ['actions', steps]]);
      expect(general.status).to.equal(200);
      expect(await general.text()).to.contain('typed:sync');
      const before = await s.store.remaining(key);
      const plain = await s.call('/v2/general', [['url', s.target.url('/form')], ['x-api-key', key], ['browser', 'false'], ['actions', steps]]);
      expect(plain.status).to.equal(422);
      const missing = await s.call('/v2/extended', [['url', s.target.url('/form')], ['x-api-key', key], ['actions', actions([{ type: 'click', selector: '#none' }])]]);
      expect(missing.status).to.equal(422);
      expect(((await missing.json()) as { detail: Array<{ loc: unknown[]; type: string }> }).detail[0]).to.deep.include({ loc: ['query', 'actions.0.selector'], type: 'value_error.actions' });
      const notJson = await s.call('/v2/general', [['url', s.target.url('/form')], ['x-api-key', key], ['actions', Buffer.from('[{').toString('base64')]]);
      expect(notJson.status).to.equal(422);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('a page that opens a window on every click: each one closed as it appears, the render answered', async () => {
      const { status, body } = await scrape({
        url: s.target.url('/form'),
        timeout: 20_000,
        actions: [
          { type: 'click', selector: '.pop', all: true },
          { type: 'wait', milliseconds: 300 },
          { type: 'executeJavascript', script: 'window.popups.map((w) => w === null || w.closed)' },
        ],
      });
      expect(status, JSON.stringify(body).slice(0, 500)).to.equal(200);
      const closed = body.data.actions?.javascriptReturns[0].value as boolean[];
      expect(closed).to.have.length(20);
      expect(closed.every((c) => c)).to.equal(true);
    });

    it('a script that navigates the page mid-actions is an error for that action; the next acts on the page it led to', async () => {
      const { status, body } = await scrape({
        url: s.target.url('/form'),
        timeout: 20_000,
        actions: [{ type: 'executeJavascript', script: "location.href = '/submitted?by=script'; new Promise(() => {})" }, { type: 'scrape' }],
      });
      expect(status, JSON.stringify(body).slice(0, 500)).to.equal(200);
      expect(body.data.actions?.javascriptReturns).to.deep.equal([{ type: 'error', value: 'the page navigated while the script ran' }]);
      expect(body.data.actions?.scrapes[0].url).to.equal(s.target.url('/submitted?by=script'));
      expect(body.data.actions?.scrapes[0].html).to.contain('Submitted /submitted?by=script');
    });

    it('a script that never ends is ended by the deadline: 408, not charged, and the next request is served', async () => {
      const before = await s.store.remaining(key);
      const spin = await scrape({ url: s.target.url('/form'), timeout: 4_000, actions: [{ type: 'executeJavascript', script: 'while (true) {}' }] });
      expect(spin.status, JSON.stringify(spin.body)).to.equal(408);
      expect(await s.store.remaining(key)).to.equal(before);
      const next = await scrape({ url: s.target.url('/form'), actions: [{ type: 'scrape' }] });
      expect(next.status, JSON.stringify(next.body)).to.equal(200);
    });

    it('nothing typed, stored or set by one request is visible to the next on the same session', async () => {
      const first = await scrape({
        url: s.target.url('/form'),
        actions: [
          { type: 'click', selector: '#q' },
          { type: 'write', text: 'secret-typed' },
          { type: 'executeJavascript', script: "localStorage.setItem('k', 'secret-stored'); sessionStorage.setItem('s', 'secret-session'); document.cookie = 'c=secret-cookie; max-age=3600'; 'set'" },
        ],
      });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const second = await scrape({
        url: s.target.url('/form'),
        actions: [{ type: 'executeJavascript', script: "({ typed: document.getElementById('q').value, stored: localStorage.getItem('k'), session: sessionStorage.getItem('s'), cookie: document.cookie })" }],
      });
      expect(second.status, JSON.stringify(second.body)).to.equal(200);
      expect(second.body.data.actions?.javascriptReturns[0].value).to.deep.equal({ typed: '', stored: null, session: null, cookie: '' });
      const sent = s.target.requestsTo('/form').at(-1);
      expect(sent?.headers.cookie).to.equal(undefined);
    });
  });
}
