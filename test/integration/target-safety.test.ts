import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { TargetServer } from '../helpers/target-server.js';

type Detail = { detail: string | Array<{ loc: unknown[]; msg: string; type: string }> };

/**
 * The target policy on, as in production: only 127.0.0.2 is allowed (TARGET_ALLOW_CIDRS), the
 * legitimate target listens there, and a victim that records every request listens on 127.0.0.1
 * and ::1. Every vector aims at loopback only; none may reach the victim.
 */
describe('target safety with the policy on (sqlite)', function () {
  this.timeout(60_000);
  const s = useSuite(testDatabases()[0], { ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.2/32', BROWSER_POOL_SIZE: '1', HOST: '127.0.0.2' }, '127.0.0.2');
  const victim = new TargetServer('127.0.0.1');
  const victim6 = new TargetServer('::1');
  /** The legitimate target again, on a port of the fetch standard's bad-port list. */
  const unsafe = new TargetServer('127.0.0.2');
  let key: string;
  let v: number;

  before(async () => {
    await victim.start();
    await unsafe.start(10080);
    v = victim.port;
    await victim6.start(v).catch(() => victim6.start());
    key = await s.store.key();
    const html = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    s.target.route('/to-victim', (_req, res) => void res.writeHead(302, { location: `http://127.0.0.1:${v}/stolen` }).end());
    s.target.route('/to-victim6', (_req, res) => void res.writeHead(302, { location: `http://[::1]:${victim6.port}/stolen` }).end());
    s.target.route('/to-service', (_req, res) => void res.writeHead(302, { location: `${s.server.base}/v2/usage?x-api-key=${key}` }).end());
    s.target.route('/to-file', (_req, res) => void res.writeHead(302, { location: 'file:///etc/passwd' }).end());
    s.target.route('/ok.css', (_req, res) => void res.writeHead(200, { 'content-type': 'text/css' }).end('p { color: blue; }'));
    s.target.route('/embeds', html(
      `<link rel="stylesheet" href="/ok.css"><p id="done">embeds page</p>
       <img src="http://127.0.0.1:${v}/img"><img src="http://[::1]:${victim6.port}/img6"><iframe src="http://127.0.0.1:${v}/frame"></iframe>
       <img src="${s.server.base}/v2/usage?x-api-key=${key}">
       <script>
         fetch('http://127.0.0.1:${v}/fetch').catch(() => {});
         try { new WebSocket('ws://127.0.0.1:${v}/ws'); } catch (e) {}
         const x = new XMLHttpRequest(); x.open('GET', 'http://localhost:${v}/xhr'); x.send();
       </script>`,
    ));
    s.target.route('/meta-refresh', html(`<meta http-equiv="refresh" content="0;url=http://127.0.0.1:${v}/meta"><p>refreshing</p>`));
  });
  after(async () => {
    await victim.stop();
    await victim6.stop();
    await unsafe.stop();
  });
  afterEach(() => {
    expect(victim.requests.map((r) => r.url), 'requests that reached the victim on 127.0.0.1').to.deep.equal([]);
    expect(victim6.requests.map((r) => r.url), 'requests that reached the victim on ::1').to.deep.equal([]);
  });

  const call = (url: string, browser: boolean, extra: Array<[string, string]> = []) =>
    s.call('/v2/general', [['x-api-key', key], ['url', url], ['browser', String(browser)], ...extra]);

  for (const browser of [false, true]) {
    const engine = browser ? 'browser' : 'plain';

    it(`${engine}: the legitimate target on 127.0.0.2 works`, async () => {
      const res = await call(s.target.url('/page'), browser);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.contain('Hello target');
    });

    // Live attempts are aimed at loopback spellings only: unspecified, private and link-local
    // addresses are checked on the policy's decision alone (test/egress/target-policy.test.ts).
    it(`${engine}: refuses loopback in every spelling as an invalid url (422, nothing fetched, not charged)`, async () => {
      const before = await s.store.remaining(key);
      const vectors = [
        `http://127.0.0.1:${v}/`, `http://[::ffff:127.0.0.1]:${v}/`, `http://[::ffff:7f00:1]:${v}/`, `http://2130706433:${v}/`,
        `http://0x7f.1:${v}/`, `http://017700000001:${v}/`, `http://127.1:${v}/`, `http://[::1]:${v}/`,
      ];
      for (const url of vectors) {
        const res = await call(url, browser);
        const body = (await res.json()) as Detail;
        expect(res.status, url).to.equal(422);
        expect(body.detail, url).to.have.length(1);
        const [issue] = body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
        expect(issue.loc, url).to.deep.equal(['query', 'url']);
        expect(issue.msg, url).to.match(/^the URL is not allowed: .*(loopback|unspecified) address/);
        await expectMatchesSpec('v2GeneralGet', res, body);
      }
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it(`${engine}: IPv4-compatible IPv6 ([::127.0.0.1], i.e. ::7f00:1) is refused like the mapped forms`, async () => {
      for (const url of [`http://[::127.0.0.1]:${v}/`, `http://[::7f00:1]:${v}/`]) {
        const res = await call(url, browser);
        expect(res.status, url).to.equal(422);
        expect(((await res.json()) as Detail).detail, url).to.deep.equal([{ loc: ['query', 'url'], msg: 'the URL is not allowed: ::7f00:1 is an IPv4-compatible IPv6 address', type: 'value_error.url.forbidden' }]);
      }
    });

    it(`${engine}: a refused name says that it is not allowed, never what it resolves to`, async () => {
      const res = await call(`http://localhost:${v}/`, browser);
      const body = (await res.json()) as Detail;
      expect(res.status).to.equal(422);
      expect(body.detail).to.deep.equal([{ loc: ['query', 'url'], msg: 'the URL is not allowed: localhost is not an allowed target', type: 'value_error.url.forbidden' }]);
      expect(JSON.stringify(body)).to.not.match(/127\.0\.0\.1|::1|loopback/);
    });

    it(`${engine}: a port browsers refuse is reachable only where TARGET_ALLOW_CIDRS names the host`, async () => {
      // 127.0.0.2 is listed: the operator meant it, whatever the port (Chrome defers to the policy).
      const res = await call(unsafe.url('/page'), browser);
      expect(res.status, await res.clone().text()).to.equal(200);
      expect(await res.text()).to.contain('Hello target');
    });

    it(`${engine}: a name that resolves nowhere usable ("localhost.") and non-http schemes are refused too`, async () => {
      const before = await s.store.remaining(key);
      const dotted = await call(`http://localhost.:${v}/`, browser);
      expect(dotted.status).to.be.oneOf([404, 422]);
      for (const url of ['file:///etc/passwd', 'chrome://version', 'javascript:alert(1)', 'view-source:http://127.0.0.2/']) {
        const res = await call(url, browser);
        expect(res.status, url).to.equal(422);
        expect(((await res.json()) as Detail).detail).to.deep.include({ loc: ['query', 'url'], msg: 'invalid or missing URL scheme: only absolute http and https URLs are accepted', type: 'value_error.url.scheme' });
      }
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it(`${engine}: scrapegate's own port is never a target, even on an allowed address`, async () => {
      const res = await call(`${s.server.base}/v2/usage?x-api-key=${key}`, browser);
      expect(res.status).to.equal(422);
      expect(JSON.stringify(await res.json())).to.contain("scrapegate's own");
    });

    it(`${engine}: a redirect to loopback, to ::1, to the service or to file: fails the request (404, not charged)`, async () => {
      const before = await s.store.remaining(key);
      for (const path of ['/to-victim', '/to-victim6', '/to-service', '/to-file']) {
        const res = await call(s.target.url(path), browser, [['timeout', '5']]);
        const body = (await res.json()) as Detail;
        expect(res.status, path).to.equal(404);
        expect(body.detail, path).to.be.a('string');
        if (path !== '/to-file') expect(body.detail, path).to.match(/^The target could not be reached: blocked by the target policy: /);
        await expectMatchesSpec('v2GeneralGet', res, body);
      }
      expect(await s.store.remaining(key)).to.equal(before);
      expect(s.server.logs.filter((l) => String(l.path ?? '').startsWith('/v2/usage')), 'requests the service got from itself').to.deep.equal([]);
    });
  }

  it('browser: images, iframes, fetch, XHR and WebSocket from a page to loopback or the service never leave', async () => {
    const res = await call(s.target.url('/embeds'), true, [['wait_for_selector', '#done']]);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.contain('embeds page');
    expect(s.target.requestsTo('/ok.css'), 'the allowed subresource').to.have.length(1);
    expect(s.server.logs.filter((l) => String(l.path ?? '').startsWith('/v2/usage'))).to.deep.equal([]);
  });

  it('browser: a meta refresh to loopback never leaves, and answers without a 5xx', async () => {
    const res = await call(s.target.url('/meta-refresh'), true, [['timeout', '5']]);
    expect(res.status).to.be.oneOf([200, 404]);
  });

  it('browser: the session that met all of these still serves the next render', async () => {
    const res = await call(s.target.url('/page'), true);
    expect(res.status).to.equal(200);
  });
});
