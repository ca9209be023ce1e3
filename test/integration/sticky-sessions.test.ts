import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { ServerProcess } from '../helpers/server-process.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { TargetServer } from '../helpers/target-server.js';
import { TestProxy } from '../helpers/test-proxy.js';

/**
 * Sticky proxy sessions across two instances that share nothing but PROXY_CONFIG and the
 * database: each exit is a loopback proxy leaving from an address of its own, so the target's
 * request log says which exit carried a request, the browser's subresources included.
 */
describe('sticky proxy sessions on two instances', function () {
  this.timeout(120_000);
  const exits = ['127.0.0.31', '127.0.0.32', '127.0.0.33', '127.0.0.34'].map((a) => new TestProxy(a));
  const gateway = new TestProxy('127.0.0.35');
  const target = new TargetServer('127.0.0.2');
  const servers: ServerProcess[] = [];
  let store: TestStore;
  let key: string;

  before(async () => {
    for (const p of [...exits, gateway]) await p.start();
    await target.start();
    target.route('/sticky', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<link rel="stylesheet" href="/sticky.css"><img src="/sticky.png"><p>sticky</p>'));
    target.route('/sticky.css', (_req, res) => void res.writeHead(200, { 'content-type': 'text/css' }).end('p{}'));
    target.route('/sticky.png', (_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex')));
    const path = join(mkdtempSync(join(tmpdir(), 'sticky-')), 'proxies.json');
    writeFileSync(path, JSON.stringify({
      datacenter: { US: exits.map((p) => p.url('dc-user')) },
      residential: { '*': [gateway.url('user-country-{country}-session-{session}')] },
    }));
    const databaseUrl = testDatabases()[0].freshUrl();
    store = await TestStore.open(databaseUrl);
    const env = { DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.2/32', BROWSER_POOL_SIZE: '1', PROXY_CONFIG: path };
    servers.push(new ServerProcess(env), new ServerProcess(env));
    await Promise.all(servers.map((s) => s.start()));
    key = await store.key({ credits: 100_000 });
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const p of [...exits, gateway]) await p.stop();
    await target.stop();
    await store?.close();
  });

  const call = (server: ServerProcess, path: string, query: Array<[string, string]>) =>
    fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', target.url(path)], ...query])}`);
  /** Exits the target saw for `path` since `from` requests were logged. */
  const seen = (path: string, from = 0) => target.requests.slice(from).filter((r) => r.url.startsWith(path)).map((r) => r.remoteAddress);

  for (const browser of [false, true]) {
    const engine = browser ? 'browser' : 'plain';

    it(`${engine}: a session leaves through one exit from either instance, subresources included, and sessions spread over the exits`, async () => {
      const chosen = new Map<number, string>();
      for (const session of [1, 2, 3, 4, 5, 6, 7, 8]) {
        const from = target.requests.length;
        for (const server of [servers[0], servers[1], servers[0]]) {
          const res = await call(server, `/sticky?${engine}-${session}`, [['browser', String(browser)], ['proxy_country', 'US'], ['session_id', String(session)]]);
          expect(res.status).to.equal(200);
          await res.arrayBuffer();
        }
        const used = new Set(seen('/sticky', from));
        expect([...used], `session ${session}`).to.have.length(1);
        if (browser) expect(seen('/sticky.css', from).length, 'the stylesheet was fetched').to.be.greaterThan(0);
        chosen.set(session, [...used][0]);
      }
      expect(new Set(chosen.values()).size, 'eight sessions over four exits').to.be.at.least(2);
    });
  }

  it('without a session, requests still rotate over the exits', async () => {
    const from = target.requests.length;
    for (let i = 0; i < 4; i++) expect((await call(servers[0], '/sticky?none', [['browser', 'false'], ['proxy_country', 'US']])).status).to.equal(200);
    expect(new Set(seen('/sticky?none', from)).size).to.equal(4);
  });

  it('a session whose exit fails moves to another on both instances, and stays there after the exit recovers', async () => {
    const session = ['session_id', '77'] as [string, string];
    const ask = async (server: ServerProcess) => {
      const from = target.requests.length;
      const res = await call(server, '/sticky?moving', [['browser', 'false'], ['proxy_country', 'US'], session]);
      expect(res.status).to.equal(200);
      return seen('/sticky?moving', from)[0];
    };
    const first = await ask(servers[0]);
    expect(await ask(servers[1])).to.equal(first);
    const failing = exits.find((p) => p.exitAddress === first)!;
    failing.behaviour = 'auth-required';
    const moved = await ask(servers[0]);
    expect(moved).to.not.equal(first);
    expect(await ask(servers[1]), 'the other instance moves to the same exit').to.equal(moved);
    failing.behaviour = 'forward';
    // Past the failed exit's first cool-down (1 s): it is healthy again, yet the session stays.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const server of [servers[0], servers[1], servers[0]]) expect(await ask(server)).to.equal(moved);
  });

  it('a gateway template pins a session in its user name, the same on both instances; a request without a session gets a fresh one', async () => {
    const user = async (server: ServerProcess, query: Array<[string, string]>) => {
      const res = await call(server, '/sticky?gateway', [['browser', 'false'], ['proxy_type', 'residential'], ['proxy_country', 'DE'], ...query]);
      expect(res.status).to.equal(200);
      await expectMatchesSpec('v2GeneralGet', res, await res.text());
      return gateway.connects.at(-1)?.user ?? '';
    };
    const a = await user(servers[0], [['session_id', '5']]);
    expect(a).to.match(/^user-country-de-session-[0-9a-f]{16}$/);
    expect(await user(servers[1], [['session_id', '5']])).to.equal(a);
    expect(await user(servers[0], [['session_id', '6']])).to.not.equal(a);
    const fresh = [await user(servers[0], []), await user(servers[0], [])];
    expect(fresh[0]).to.match(/^user-country-de-session-[0-9a-f]+$/);
    expect(fresh[0]).to.not.equal(fresh[1]);
  });

  it('refuses a session_id outside 0–10,000,000 with 422 naming it', async () => {
    for (const bad of ['-1', '10000001', 'abc']) {
      const res = await call(servers[0], '/sticky', [['browser', 'false'], ['session_id', bad]]);
      expect(res.status, bad).to.equal(422);
      const body = (await res.json()) as { detail: Array<{ loc: unknown[] }> };
      expect(body.detail[0].loc).to.deep.equal(['query', 'session_id']);
    }
  });
});
