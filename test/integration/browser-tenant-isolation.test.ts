import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { TargetServer } from '../helpers/target-server.js';

const html = (body: string) => (_req: unknown, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
const b64 = (source: string) => Buffer.from(source).toString('base64');

/**
 * One warm session serves two tenants in turn, and the first one's pages fight back: frames of
 * another site that write storage, popups, a renderer kept busy after the page was read, a DOM of
 * tens of MB, and objects redefined to lie to whoever reads them. The second tenant must see
 * nothing of the first, the session must come back (or be replaced), and nothing oversized may
 * cross into the service.
 */
describe('browser sessions shared by tenants, against hostile pages', function () {
  this.timeout(90_000);
  const s = useSuite(
    testDatabases()[0],
    { ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.2/32,127.0.0.3/32', BROWSER_POOL_SIZE: '1', MAX_BODY_BYTES: String(1024 * 1024) },
    '127.0.0.2',
  );
  // Another site (127.0.0.3 is cross-site to 127.0.0.2): its frames run out of process.
  const other = new TargetServer('127.0.0.3');
  let first: string;
  let second: string;

  before(async () => {
    await other.start();
    first = await s.store.key();
    second = await s.store.key();
    const report = `<script>(async () => {
      const seen = {
        local: localStorage.getItem('secret'),
        session: sessionStorage.getItem('secret'),
        idb: (await indexedDB.databases()).map((d) => d.name),
        sw: (await navigator.serviceWorker.getRegistrations()).length,
        caches: await caches.keys(),
      };
      parent.postMessage(JSON.stringify(seen), '*');
      const p = document.createElement('p');
      p.id = 'seen';
      p.textContent = JSON.stringify(seen);
      document.body.append(p);
    })()</script>`;
    const write = `<iframe src="${s.target.url('/nested-write')}"></iframe><script>
      localStorage.setItem('secret', 'tenant-1');
      sessionStorage.setItem('secret', 'tenant-1');
      indexedDB.open('tenant-1');
      caches.open('tenant-1').then((c) => c.put('/x', new Response('y')));
      navigator.serviceWorker.register('/sw.js').then(() => parent.postMessage('written', '*'), () => parent.postMessage('written', '*'));
    </script>`;
    other.route('/write', html(write));
    other.route('/read', html(report));
    other.route('/sw.js', (_req, res) => void res.writeHead(200, { 'content-type': 'text/javascript' }).end('self.addEventListener("fetch", () => {});'));
    other.route('/popup', html('<p>a popup</p><script>localStorage.setItem("secret", "tenant-1")</script>'));
    // A frame of the top site inside the cross-site one: same-site, with a cross-site ancestor.
    s.target.route('/nested-write', html('<script>localStorage.setItem("secret", "tenant-1")</script>'));
    s.target.route('/nested-read', html(report));
    const embed = (path: string, inner = '') =>
      html(`<script>addEventListener('message', (e) => {
          const p = document.createElement('p');
          p.id = 'msg';
          p.textContent = e.data;
          document.body.append(p);
        });</script>
        <iframe src="${other.url(path)}"></iframe>${inner}`);
    s.target.route('/embed-write', embed('/write'));
    s.target.route('/embed-read', embed('/read', `<iframe src="${s.target.url('/nested-read')}"></iframe>`));
    s.target.route('/opens-popups', html(`<p id="opened">opener</p><script>for (let i = 0; i < 50; i++) window.open('${other.url('/popup')}?' + i);</script>`));
    s.target.route('/spins-on-leave', html('<p>spins when left</p><script>addEventListener("pagehide", () => { for (;;) {} });</script>'));
    // What the reset asks the page runs the page's own Array methods: this one never returns.
    s.target.route('/spins-on-reset', html('<p>spins when asked</p><script>Array.prototype.some = function () { for (;;) {} };</script>'));
    s.target.route('/plain-page', html('<p id="plain">plain</p>'));
  });
  after(() => other.stop());

  const render = (key: string, url: string, extra: Array<[string, string]> = []) =>
    s.call('/v2/general', [['x-api-key', key], ['url', url], ['timeout', '15'], ...extra]);

  it("a cross-site iframe's partitioned storage, and a same-site frame below it, are wiped before the next tenant", async () => {
    const wrote = await render(first, s.target.url('/embed-write'), [['wait_for_selector', '#msg']]);
    const written = await wrote.text();
    expect(wrote.status, written).to.equal(200);
    expect(written).to.contain('written');
    const read = await render(second, s.target.url('/embed-read'), [['wait_for_selector', '#msg']]);
    const page = await read.text();
    expect(read.status, page).to.equal(200);
    const seen = JSON.parse(/<p id="msg">(.*?)<\/p>/.exec(page)?.[1] ?? '{}');
    expect(seen).to.deep.equal({ local: null, session: null, idb: [], sw: 0, caches: [] });
    const nested = await render(second, s.target.url('/nested-read'), [['wait_for_selector', '#seen']]);
    expect(JSON.parse(/<p id="seen">(.*?)<\/p>/.exec(await nested.text())?.[1] ?? '{}')).to.include({ local: null });
  });

  it('a page cannot open windows: popups are blocked, and nothing of theirs reaches the next tenant', async () => {
    const res = await render(first, s.target.url('/opens-popups'), [['wait_for_selector', '#opened']]);
    expect(res.status).to.equal(200);
    expect(other.requestsTo('/popup'), 'popups that loaded').to.deep.equal([]);
    const read = await render(second, other.url('/read'), [['wait_for_selector', '#seen']]);
    expect(JSON.parse(/<p id="seen">(.*?)<\/p>/.exec(await read.text())?.[1] ?? '{}')).to.include({ local: null });
  });

  for (const page of ['/spins-on-leave', '/spins-on-reset']) {
    it(`a page that keeps its renderer busy after it was read (${page}) costs at most its browser context, never the next tenant`, async () => {
      const retired = () => s.server.eventsNamed('pool.retired').filter((e) => e.cause === 'reset').length;
      const before = retired();
      const spun = await render(first, s.target.url(page));
      expect(spun.status).to.equal(200);
      const started = Date.now();
      const next = await render(second, s.target.url('/plain-page'), [['wait_for_selector', '#plain']]);
      expect(next.status).to.equal(200);
      expect(Date.now() - started, 'the reset deadline and a fresh session').to.be.below(12_000);
      // Its renderer went with its browser context (disposed, never asked anything): the session serves on.
      expect(retired()).to.equal(before);
    });
  }

  it('the DOM is read from an isolated world: a page that redefines what reads it is not believed', async () => {
    const lie = `Object.defineProperty(document.documentElement, 'outerHTML', { get() { return '<html>a lie</html>'; } });
      Object.defineProperty(HTMLElement.prototype, 'innerText', { get() { return 'a lie'; } });
      JSON.stringify = () => '"a lie"';`;
    const res = await s.call('/v1/general', [['x-api-key', second], ['url', s.target.url('/plain-page')], ['js_snippet', b64(lie)], ['return_text', 'false']]);
    const body = (await res.json()) as { content: string };
    expect(res.status).to.equal(200);
    expect(body.content).to.contain('<p id="plain">plain</p>').and.not.contain('a lie');
    const text = await s.call('/v1/general', [['x-api-key', second], ['url', s.target.url('/plain-page')], ['js_snippet', b64(lie)], ['return_text', 'true']]);
    expect(((await text.json()) as { content: string }).content).to.equal('plain');
  });

  it('a rendered DOM past the cap is measured in the browser and answered 404, uncharged, without reaching the service', async () => {
    const huge = `document.body.append('a'.repeat(30 * 1024 * 1024));`;
    for (const returnText of ['false', 'true']) {
      const before = await s.store.remaining(second);
      const res = await s.call('/v1/general', [['x-api-key', second], ['url', s.target.url('/plain-page')], ['js_snippet', b64(huge)], ['return_text', returnText]]);
      const body = (await res.json()) as { detail: string };
      expect(res.status).to.equal(404);
      expect(body.detail).to.equal("The target's answer is not usable: the rendered page exceeds 1048576 characters");
      await expectMatchesSpec('v1GeneralGet', res, body);
      expect(await s.store.remaining(second)).to.equal(before);
    }
    expect((await render(second, s.target.url('/plain-page'))).status).to.equal(200);
  });

  it('extended lists a cross-site (out-of-process) iframe with its HTML, read from its own isolated world', async () => {
    const res = await s.call('/v2/extended', [['x-api-key', second], ['url', s.target.url('/embed-read')], ['wait_for_selector', '#msg']]);
    const body = (await res.json()) as { iframes: Array<{ src: string; html: string }> };
    expect(res.status).to.equal(200);
    expect(body.iframes.map((f) => f.src)).to.deep.equal([other.url('/read'), s.target.url('/nested-read')]);
    expect(body.iframes[0].html).to.contain('<p id="seen">');
  });
});
