import { expect } from 'chai';
import { addBrowserPages } from '../helpers/browser-pages.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

// What this file proves is the same on either database (the ledger on MySQL has suites of its own:
// credits-concurrency, chaos-kills, client-hangups, firecrawl-batch): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`browser engine: rendering and parameters (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '2' });
    let upgrades: ReturnType<typeof addBrowserPages>['upgrades'];
    let key: string;
    before(async () => {
      upgrades = addBrowserPages(s.target).upgrades;
      key = await s.store.key();
    });
    const render = (path: string, extra: Array<[string, string]> = [], init?: RequestInit, endpoint = '/v2/general') =>
      s.call(endpoint, [['x-api-key', key], ['url', s.target.url(path)], ...extra], init);

    it('answers the DOM after JavaScript ran, with the real status and headers from CDP (browser is the default)', async () => {
      const before = await s.store.remaining(key);
      const res = await render('/js-page', [['wait_for_selector', '#late']]);
      const body = await res.text();
      expect(res.status).to.equal(200);
      expect(body).to.match(/^<html><head>/).and.contain('<p id="late">rendered late</p>');
      expect(res.headers.get('svc-page-status-code')).to.equal('200');
      expect(res.headers.get('svc-original-header-x-target')).to.equal('browser');
      expect(res.headers.get('svc-original-header-set-cookie')).to.equal('server_cookie=1; Path=/');
      expect(res.headers.get('svc-credits-cost')).to.equal('10');
      expect(await s.store.remaining(key)).to.equal(before - 10);
      await expectMatchesSpec('v2GeneralGet', res, body);
    });

    it('reports the target status of an error page', async () => {
      const res = await render('/status?code=404');
      expect(res.status).to.equal(200);
      expect(res.headers.get('svc-page-status-code')).to.equal('404');
    });

    it('wraps a JSON answer in HTML when rendering, as the spec warns', async () => {
      const body = await (await render('/json')).text();
      expect(body).to.contain('{"ok":true}').and.match(/^<html>/);
    });

    it('wait_for_selector: 404 (not charged) when the selector never appears, 422 when it is not CSS', async () => {
      const before = await s.store.remaining(key);
      const missing = await render('/js-page', [['wait_for_selector', '#never'], ['timeout', '5']]);
      expect(missing.status).to.equal(404);
      await expectMatchesSpec('v2GeneralGet', missing, await missing.json());
      const seen = s.target.requestsTo('/raw-source').length;
      const invalid = await render('/raw-source', [['wait_for_selector', 'div[[']]);
      const body = await invalid.json();
      expect(invalid.status).to.equal(422);
      expect(body).to.deep.include({ detail: [{ loc: ['query', 'wait_for_selector'], msg: '"div[[" is not a valid CSS selector', type: 'value_error.selector' }] });
      expect(s.target.requestsTo('/raw-source').length).to.equal(seen);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('js_snippet runs after load and before the wait, so it can click what the selector waits for', async () => {
      const res = await render('/clicker', [['js_snippet', b64("document.getElementById('go').click();")], ['wait_for_selector', '#clicked']]);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.contain('<p id="clicked">clicked!</p>');
    });

    it('a snippet that throws still gets the page, and the error is logged by its class, never its message (which may quote the script)', async () => {
      const res = await render('/raw-source', [['js_snippet', b64("throw new TypeError('snippet boom')")]]);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.contain('changed');
      const line = await s.server.logLine('js_snippet failed');
      expect(line.errorClass).to.equal('TypeError');
      expect(s.server.rawOutput.join('\n')).to.not.contain('snippet boom');
    });

    it('block_resource: blocked types never reach the target', async () => {
      const count = (p: string) => s.target.requestsTo(p).length;
      const before = ['/img.png', '/style.css', '/app.js', '/api/data', '/api/xhr'].map(count);
      const res = await render('/js-page', [
        ['block_resource', 'image'], ['block_resource', 'stylesheet'], ['block_resource', 'script'], ['block_resource', 'fetch'], ['block_resource', 'xhr'],
      ]);
      expect(res.status).to.equal(200);
      expect(['/img.png', '/style.css', '/app.js', '/api/data', '/api/xhr'].map(count)).to.deep.equal(before);
      // The inline script still ran: blocking `script` stops script requests, not the page.
      expect(count('/frame')).to.be.greaterThan(0);
    });

    it('block_resource=document blocks subframes, never the page itself', async () => {
      const frames = s.target.requestsTo('/frame').length;
      const res = await render('/js-page', [['block_resource', 'document']]);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.contain('id="app"');
      expect(s.target.requestsTo('/frame').length).to.equal(frames);
    });

    it('block_resource takes all 13 types at once, including those Chrome cannot filter on (texttrack, manifest)', async () => {
      const tracks = () => s.target.requestsTo('/captions.vtt').length;
      const allowed = await render('/track-page', [['wait_for_selector', '#done']]);
      expect(allowed.status).to.equal(200);
      expect(tracks()).to.equal(1);
      const types = ['document', 'stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch', 'eventsource', 'websocket', 'manifest', 'other'];
      const all = await render('/js-page', types.map((t) => ['block_resource', t] as [string, string]));
      expect(all.status).to.equal(200);
      const trackOnly = await render('/track-page', [['block_resource', 'texttrack'], ['wait_for_selector', '#done']]);
      expect(trackOnly.status).to.equal(200);
      expect(tracks()).to.equal(1);
    });

    it('block_resource=websocket stops the handshake in the browser', async () => {
      const settled: [string, string] = ['wait_for_selector', '#ws-done'];
      expect((await render('/websocket-page', [settled])).status).to.equal(200);
      expect(upgrades.length).to.equal(1);
      expect((await render('/websocket-page', [['block_resource', 'websocket'], settled])).status).to.equal(200);
      expect(upgrades.length).to.equal(1);
    });

    it('return_page_source answers the body exactly as sent, before scripts, for 2 credits', async () => {
      const res = await render('/raw-source', [['return_page_source', 'true']]);
      const body = await res.text();
      expect(body).to.equal('<!doctype html><html><head><meta charset="utf-8"></head><body><div id="x">raw</div><script>document.getElementById("x").textContent = "changed";</script></body></html>');
      expect(res.headers.get('svc-credits-cost')).to.equal('2');
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    });

    it('cookies: sent with the very first request; the answer lists those the page and its scripts set', async () => {
      const first = s.target.requestsTo('/js-page').length;
      const res = await render('/js-page', [['cookies', 'caller=abc;second=2']], undefined, '/v1/general');
      const body = (await res.json()) as { cookies: string };
      expect(s.target.requestsTo('/js-page')[first].headers.cookie).to.equal('caller=abc; second=2');
      expect(body.cookies.split('; ').sort()).to.deep.equal(['caller=abc', 'from_js=yes', 'second=2', 'server_cookie=1']);
      await expectMatchesSpec('v1GeneralGet', res, body);
    });

    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      it(`forwards ${method} with its body and svc- headers as the page's navigation`, async () => {
        const res = await render('/echo-page', [], { method, headers: { 'svc-Content-Type': 'application/x-www-form-urlencoded', 'svc-X-Custom': 'yes' }, body: 'k=v' });
        expect(res.status).to.equal(200);
        expect(await res.text()).to.contain(`<pre id="echo">${method} k=v yes application/x-www-form-urlencoded</pre>`);
        const seen = s.target.requestsTo('/echo-page').at(-1);
        expect(seen?.method).to.equal(method);
        expect(seen?.body.toString()).to.equal('k=v');
      });
    }

    it('return_text (v1) and text (extended) are the rendered page text', async () => {
      const v1 = (await (await render('/raw-source', [['return_text', 'true']], undefined, '/v1/general')).json()) as { content: string };
      expect(v1.content).to.equal('changed');
      const ext = (await (await render('/raw-source', [], undefined, '/v2/extended')).json()) as { text: string };
      expect(ext.text).to.equal('changed');
    });

    it('extended lists the XHR/fetch calls and the iframes', async () => {
      const res = await render('/js-page', [['wait_for_selector', 'body[data-api]']], undefined, '/v2/extended');
      const body = (await res.json()) as { xhrs: Array<Record<string, unknown>>; iframes: Array<{ src: string; html: string }>; cookies: string };
      expect(res.status).to.equal(200);
      const api = body.xhrs.find((x) => String(x.url).endsWith('/api/data'));
      expect(api).to.deep.include({ method: 'POST', status: 200, request_body: 'q=1', body: '{"answer":42}' });
      expect(api?.headers).to.deep.include({ name: 'x-api', value: 'data' });
      expect(body.xhrs.find((x) => String(x.url).endsWith('/api/xhr'))).to.include({ method: 'GET', body: 'xhr-body' });
      expect(body.iframes).to.have.length(1);
      expect(body.iframes[0].src).to.equal(s.target.url('/frame'));
      expect(body.iframes[0].html).to.contain('<b>inside the frame</b>');
      await expectMatchesSpec('v2ExtendedGet', res, body);
    });

    it('timeout: a page that never finishes loading is cut off at the deadline and still answered', async () => {
      const started = Date.now();
      const res = await render('/never-finishes', [['timeout', '5']]);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.contain('partial content');
      expect(Date.now() - started).to.be.within(3_500, 6_000);
    });

    it('timeout: a target that never answers gives 404 at the deadline, not charged', async () => {
      const before = await s.store.remaining(key);
      const started = Date.now();
      const res = await render('/hang', [['timeout', '5']]);
      expect(res.status).to.equal(404);
      expect(Date.now() - started).to.be.within(3_500, 6_000);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('renders 6 requests in parallel (queueing for the pool of 2)', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => render('/raw-source')));
      expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
      for (const a of answers) expect(await a.text()).to.contain('changed');
    });
  });
}
