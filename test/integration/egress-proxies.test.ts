import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { antibotFixtures, BLOCK_ALL } from '../fixtures/antibot/index.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { closedPort, TestProxy } from '../helpers/test-proxy.js';
import { selfSignedCert } from '../helpers/tls-target.js';

type Detail = { detail: string | Array<{ loc: unknown[]; msg: string; type: string }> };

/**
 * Routing through real upstream proxies on loopback, with the target policy on. Each proxy leaves
 * from an address of its own, so the target's request log says which proxy carried a request.
 */
// What this file proves is the same on either database (the ledger on MySQL has suites of its own:
// credits-concurrency, chaos-kills, client-hangups, firecrawl-batch): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`egress through upstream proxies (${database.name})`, function () {
    this.timeout(60_000);
    const proxyCert = selfSignedCert();
    const proxies = {
      usA: new TestProxy('127.0.0.11'),
      usB: new TestProxy('127.0.0.12'),
      fr: new TestProxy('127.0.0.14'),
      frHanging: new TestProxy('127.0.0.19', 'hang'),
      it: new TestProxy('127.0.0.18'),
      jpBadGateway: new TestProxy('127.0.0.20', 'bad-gateway'),
      gbA: new TestProxy('127.0.0.16'),
      gbB: new TestProxy('127.0.0.17'),
      gateway: new TestProxy('127.0.0.15', 'forward', 'secret'),
      // An https:// proxy: TLS to the proxy itself, its certificate trusted through NODE_EXTRA_CA_CERTS.
      nlTls: new TestProxy('127.0.0.21', 'forward', undefined, proxyCert),
    };
    const env: Record<string, string> = {
      ALLOW_PRIVATE_TARGETS: 'false',
      TARGET_ALLOW_CIDRS: '127.0.0.2/32',
      BROWSER_POOL_SIZE: '1',
      NODE_EXTRA_CA_CERTS: proxyCert.certPath,
    };
    before(async () => {
      for (const p of Object.values(proxies)) await p.start();
      const path = join(mkdtempSync(join(tmpdir(), 'proxies-')), 'proxies.json');
      writeFileSync(path, JSON.stringify({
        datacenter: {
          US: [proxies.usA.url('dc-user'), proxies.usB.url('dc-user')],
          FR: [proxies.frHanging.url(), proxies.fr.url()],
          IT: [`http://dc-user:secret@127.0.0.1:${await closedPort()}`, proxies.it.url()],
          JP: [`http://dc-user:secret@127.0.0.1:${await closedPort()}`, proxies.jpBadGateway.url('dc-user')],
          GB: [proxies.gbA.url(), proxies.gbB.url()],
          NL: [proxies.nlTls.url('dc-user')],
        },
        residential: { '*': [proxies.gateway.url('user-country-{country}')] },
      }));
      env.PROXY_CONFIG = path;
    });
    const s = useSuite(database, env, '127.0.0.2');
    after(async () => {
      for (const p of Object.values(proxies)) await p.stop();
    });

    let key: string;
    const wall = antibotFixtures().walls.find((f) => f.rule === 'cloudflare-challenge')!;
    before(async () => {
      key = await s.store.key();
      const page = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      s.target.route('/proxied-page', page('<link rel="stylesheet" href="/p.css"><img src="/p.png"><p id="x">page</p><script>fetch("/p-api").then(() => { document.body.dataset.done = 1; });</script>'));
      s.target.route('/p.css', (_req, res) => void res.writeHead(200, { 'content-type': 'text/css' }).end('p{}'));
      s.target.route('/p.png', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex')));
      s.target.route('/p-api', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      const walled = (who: (address: string) => boolean) => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
        if (!who((req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''))) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>welcome</p>');
        res.writeHead(wall.status, Object.fromEntries(wall.headers)).end(wall.body);
      };
      s.target.route('/walled-for-a', walled((a) => a === '127.0.0.16'));
      s.target.route('/walled-for-all', walled(() => true));
    });

    const call = (path: string, browser: boolean, extra: Array<[string, string]>) =>
      s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(path)], ['browser', String(browser)], ...extra]);
    const exits = (path: string) => s.target.requestsTo(path).map((r) => r.remoteAddress);

    for (const browser of [false, true]) {
      const engine = browser ? 'browser' : 'plain';

      it(`${engine}: proxy_country=US leaves through the US proxies, rotating between them`, async () => {
        const path = `/page?${engine}-us`;
        for (let i = 0; i < 4; i++) {
          const res = await call(path, browser, [['proxy_country', 'us']]);
          expect(res.status).to.equal(200);
          expect(res.headers.get('svc-credits-cost')).to.equal(browser ? '10' : '1');
        }
        const seen = s.target.requests.filter((r) => r.url === path).map((r) => r.remoteAddress);
        expect(seen).to.have.length(4);
        expect(seen.filter((a) => a === '127.0.0.11')).to.have.length(2);
        expect(seen.filter((a) => a === '127.0.0.12')).to.have.length(2);
        // The tunnel is asked for the address scrapegate checked, with the proxy's credentials.
        expect(proxies.usA.connects.at(-1)).to.deep.equal({ target: `127.0.0.2:${s.target.port}`, user: 'dc-user' });
      });

      it(`${engine}: residential with proxy_country=DE goes through the template with "de" filled in`, async () => {
        const res = await call(`/page?${engine}-res`, browser, [['proxy_type', 'residential'], ['proxy_country', 'DE']]);
        expect(res.status).to.equal(200);
        expect(res.headers.get('svc-credits-cost')).to.equal(browser ? '125' : '25');
        expect(proxies.gateway.connects.at(-1)?.user).to.equal('user-country-de');
        expect(s.target.requests.filter((r) => r.url === `/page?${engine}-res`).map((r) => r.remoteAddress)).to.deep.equal(['127.0.0.15']);
      });

      it(`${engine}: an https:// proxy is spoken to over TLS`, async () => {
        const res = await call(`/page?${engine}-nl`, browser, [['proxy_country', 'NL']]);
        expect(res.status).to.equal(200);
        expect(exits(`/page`).at(-1)).to.equal('127.0.0.21');
        expect(proxies.nlTls.connects.at(-1)?.user).to.equal('dc-user');
      });

      it(`${engine}: a refused proxy and a hanging proxy are skipped within the deadline`, async () => {
        for (const country of ['IT', 'FR', 'IT', 'FR']) {
          const started = Date.now();
          const res = await call(`/page?${engine}-${country}`, browser, [['proxy_country', country], ['timeout', '10']]);
          expect(res.status, country).to.equal(200);
          expect(Date.now() - started).to.be.below(9_000);
        }
        expect(new Set(exits('/page').filter((a) => a === '127.0.0.14' || a === '127.0.0.18'))).to.deep.equal(new Set(['127.0.0.14', '127.0.0.18']));
        expect(proxies.frHanging.connects.length).to.be.greaterThan(0);
      });

      it(`${engine}: every proxy of the choice down → 404 saying so, not charged`, async () => {
        const before = await s.store.remaining(key);
        const res = await call(`/page?${engine}-jp`, browser, [['proxy_country', 'JP'], ['timeout', '5']]);
        const body = (await res.json()) as Detail;
        expect(res.status).to.equal(404);
        expect(body.detail).to.match(/^The target could not be reached: no proxy could reach the target \(\d+ datacenter prox(y|ies) for JP tried\)$/);
        await expectMatchesSpec('v2GeneralGet', res, body);
        expect(await s.store.remaining(key)).to.equal(before);
        expect(s.target.requests.filter((r) => r.url === `/page?${engine}-jp`)).to.have.length(0);
      });

      it(`${engine}: a wall on one proxy is retried through another of the same choice`, async () => {
        const before = exits('/walled-for-a').length;
        for (let i = 0; i < 2; i++) {
          const res = await call('/walled-for-a', browser, [['proxy_country', 'GB'], ...BLOCK_ALL]);
          if (res.status !== 200) console.log(s.server.logs.filter((l) => (l.level ?? 0) >= 50).map((l) => JSON.stringify(l)).join('\n'));
          expect(res.status).to.equal(200);
          expect(await res.text()).to.contain('welcome');
        }
        const seen = exits('/walled-for-a').slice(before);
        expect(seen).to.have.length(3); // one of the two requests started on the walled proxy
        expect(seen.filter((a) => a === '127.0.0.16')).to.have.length(1);
      });

      it(`${engine}: walled on every proxy → 423, not charged`, async () => {
        const before = await s.store.remaining(key);
        const seen = exits('/walled-for-all').length;
        const res = await call('/walled-for-all', browser, [['proxy_country', 'GB'], ...BLOCK_ALL]);
        const body = (await res.json()) as Detail;
        expect(res.status).to.equal(423);
        expect(body.detail).to.equal("The target's anti-bot detection blocked the request (Cloudflare challenge). Retry, or change the proxy type or country.");
        await expectMatchesSpec('v2GeneralGet', res, body);
        expect(new Set(exits('/walled-for-all').slice(seen))).to.deep.equal(new Set(['127.0.0.16', '127.0.0.17']));
        expect(await s.store.remaining(key)).to.equal(before);
      });
    }

    it("browser: the page's stylesheet, image and fetch leave through the same upstream as its navigation", async () => {
      const res = await call('/proxied-page', true, [['proxy_country', 'US'], ['wait_for_selector', 'body[data-done]']]);
      expect(res.status).to.equal(200);
      const [exit] = exits('/proxied-page');
      expect(exit).to.be.oneOf(['127.0.0.11', '127.0.0.12']);
      for (const path of ['/p.css', '/p.png', '/p-api']) expect(exits(path), path).to.deep.equal([exit]);
    });

    it('a country or type that is not configured → 422 naming what is available, in the query or a v1 body', async () => {
      const res = await call('/page', false, [['proxy_country', 'BR']]);
      const body = (await res.json()) as Detail;
      expect(res.status).to.equal(422);
      expect(body.detail).to.deep.equal([
        { loc: ['query', 'proxy_country'], msg: 'no datacenter proxy for country BR on this server; available: US, FR, IT, JP, GB, NL', type: 'value_error.proxy_unavailable' },
      ]);
      await expectMatchesSpec('v2GeneralGet', res, body);
      const v1 = await fetch(`${s.server.base}/v1/general`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ url: s.target.url('/page'), browser: false, proxy_country: 'br' }),
      });
      expect(v1.status).to.equal(422);
      expect(((await v1.json()) as Detail).detail).to.have.nested.property('[0].loc').deep.equal(['body', 'proxy_country']);
    });

    it('never writes a proxy credential into a log line', () => {
      const all = s.server.rawOutput.join('\n');
      expect(all).to.contain('upstream proxy failed');
      expect(all).to.not.contain('secret');
      expect(all).to.not.contain('user-country');
      expect(all).to.not.contain('dc-user');
    });
  });
}
