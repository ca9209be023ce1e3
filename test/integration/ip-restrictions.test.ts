import { expect } from 'chai';
import http from 'node:http';
import { eventually } from '../helpers/eventually.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { ServerProcess } from '../helpers/server-process.js';
import { useSuite } from '../helpers/suite.js';
import { TargetServer } from '../helpers/target-server.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request from a client socket bound to `localAddress` (127.0.0.1, 127.0.0.2, ::1…): on loopback,
 * each is a different client to the server. `headers` values that are arrays go out as several lines.
 */
function from(localAddress: string, url: string, headers: Record<string, string | string[]> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { localAddress, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const detailOf = (a: Answer) => (JSON.parse(a.body) as { detail: string }).detail;

async function ipRestrictedCount(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('scrapegate_ip_restricted_total '));
  if (!line) throw new Error('no scrapegate_ip_restricted_total in /metrics');
  return Number(line.split(' ')[1]);
}

// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`per-key IP restrictions (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database);
    const url = (path: string, key: string, target = '/page', extra = '') =>
      `${s.server.base}${path}?${new URLSearchParams([['x-api-key', key], ['url', s.target.url(target)], ['browser', 'false']])}${extra}`;

    it('answers a key allowed only 127.0.0.2 from 127.0.0.2, on every operation', async () => {
      const key = await s.store.key({ credits: 1000, allowedIps: ['127.0.0.2'] });
      expect((await from('127.0.0.2', url('/v2/general', key))).status, 'v2 general').to.equal(200);
      expect((await from('127.0.0.2', url('/v2/extended', key))).status, 'v2 extended').to.equal(200);
      expect((await from('127.0.0.2', url('/v1/general', key))).status, 'v1 general').to.equal(200);
      const usage = await from('127.0.0.2', `${s.server.base}/v2/usage?x-api-key=${key}`);
      expect(usage.status, 'v2 usage').to.equal(200);
      expect(JSON.parse(usage.body)).to.include({ remained_credits: 997 });
      // No browsers in this suite: the screenshot gets past the restriction and meets the missing engine.
      expect((await from('127.0.0.2', `${s.server.base}/v2/screenshot?x-api-key=${key}&url=${encodeURIComponent(s.target.url('/page'))}`)).status, 'v2 screenshot').to.equal(422);
      expect(await s.store.remaining(key)).to.equal(997);
    });

    it('refuses it from 127.0.0.1 and 127.0.0.3 with 403 naming an IP restriction (never the list), uncharged and unbilled, on every operation', async () => {
      const key = await s.store.key({ credits: 1000, allowedIps: ['127.0.0.2', '203.0.113.0/24'] });
      const before = await ipRestrictedCount(s.server.base);
      const shot = `${s.server.base}/v2/screenshot?x-api-key=${key}&url=${encodeURIComponent(s.target.url('/page'))}`;
      const targetRequests = s.target.requests.length;
      for (const client of ['127.0.0.1', '127.0.0.3']) {
        for (const target of [url('/v2/general', key), url('/v2/extended', key), url('/v1/general', key), `${s.server.base}/v2/usage?x-api-key=${key}`, shot]) {
          const answer = await from(client, target);
          expect(answer.status, `${client} ${target}`).to.equal(403);
          const detail = detailOf(answer);
          expect(detail).to.equal(`An IP restriction applies to this API key: requests from this address (${client}) are not allowed.`);
          expect(detail).to.not.contain('127.0.0.2').and.not.contain('203.0.113.0');
          expect(answer.headers['svc-request-id'], 'no ledger row').to.equal(undefined);
        }
      }
      // The answer is the document's 403 (fetch's socket comes from 127.0.0.1 to the server's 127.0.0.1).
      for (const [operation, target] of [['v2GeneralGet', url('/v2/general', key)], ['v2Usage', `${s.server.base}/v2/usage?x-api-key=${key}`]]) {
        const res = await fetch(target);
        expect(res.status).to.equal(403);
        await expectMatchesSpec(operation, res, await res.json());
      }
      expect(s.target.requests.length, 'nothing fetched').to.equal(targetRequests);
      expect(await s.store.remaining(key)).to.equal(1000);
      expect(await ipRestrictedCount(s.server.base), 'every refusal counted').to.equal(before + 12);
    });

    it('ignores X-Forwarded-For from a peer that is no trusted proxy (TRUSTED_PROXIES is empty): no spoofing past a restriction', async () => {
      const key = await s.store.key({ credits: 1000, allowedIps: ['127.0.0.2'] });
      for (const spoof of ['127.0.0.2', '127.0.0.9, 127.0.0.2', ['127.0.0.2', '127.0.0.2']]) {
        const answer = await from('127.0.0.1', url('/v2/general', key), { 'x-forwarded-for': spoof });
        expect(answer.status, JSON.stringify(spoof)).to.equal(403);
        expect(detailOf(answer)).to.contain('(127.0.0.1)');
      }
      // And it does not hurt the allowed client either.
      expect((await from('127.0.0.2', url('/v2/general', key), { 'x-forwarded-for': '198.51.100.7' })).status).to.equal(200);
      expect(await s.store.remaining(key)).to.equal(999);
    });

    it('takes no concurrency slot for a refused request: a capped key\'s allowed client runs beside a crowd of refused ones', async () => {
      const key = await s.store.key({ planName: 'free', credits: 1000, maxConcurrency: 1, allowedIps: ['127.0.0.2'] });
      const asked = s.target.requestsTo('/slow').length;
      const slow = from('127.0.0.2', url('/v2/general', key, '/slow?ms=1500'));
      await eventually(() => s.target.requestsTo('/slow').length > asked, 5_000, 'the allowed request reached the target');
      // The allowed request holds the only slot: refused callers get 403 (not 409), and take nothing.
      const refused = await Promise.all(Array.from({ length: 10 }, () => from('127.0.0.1', url('/v2/general', key))));
      expect(refused.map((a) => a.status)).to.deep.equal(Array(10).fill(403));
      expect((await from('127.0.0.2', url('/v2/general', key))).status, 'the slot is held by the slow one').to.equal(409);
      expect((await slow).status).to.equal(200);
      expect(await s.store.leasesOf(key)).to.equal(0);
      // Refusals and an allowed request at once: the allowed one finds its slot free.
      const [allowed, ...others] = await Promise.all([
        from('127.0.0.2', url('/v2/general', key)),
        ...Array.from({ length: 10 }, () => from('127.0.0.3', url('/v2/general', key))),
      ]);
      expect(allowed.status).to.equal(200);
      expect(others.map((a) => a.status)).to.deep.equal(Array(10).fill(403));
      expect(await s.store.leasesOf(key)).to.equal(0);
      expect(await s.store.remaining(key)).to.equal(998);
    });

    it('keeps an unrestricted key working from everywhere, and a change of the list applies from the next request', async () => {
      const key = await s.store.key({ credits: 1000 });
      for (const client of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) expect((await from(client, url('/v2/general', key))).status, client).to.equal(200);
      await s.store.keys.setAllowedIps(key, ['127.0.0.3']);
      expect((await from('127.0.0.1', url('/v2/general', key))).status).to.equal(403);
      expect((await from('127.0.0.3', url('/v2/general', key))).status).to.equal(200);
      await s.store.keys.setAllowedIps(key, []);
      expect((await from('127.0.0.1', url('/v2/general', key))).status).to.equal(200);
      expect(await s.store.remaining(key)).to.equal(995);
    });
  });
}

/** Behind a load balancer: its X-Forwarded-For names the client, and only its. */
describe('per-key IP restrictions behind a trusted proxy (TRUSTED_PROXIES=127.0.0.1/32)', function () {
  this.timeout(60_000);
  const s = useSuite(testDatabases()[0], { TRUSTED_PROXIES: '127.0.0.1/32' });
  const url = (path: string, key: string) => `${s.server.base}${path}?${new URLSearchParams([['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']])}`;

  it('believes the proxy\'s X-Forwarded-For: the rightmost address that is no trusted proxy is the client', async () => {
    const key = await s.store.key({ credits: 1000, allowedIps: ['127.0.0.2'] });
    const via = (xff: string | string[] | undefined, client = '127.0.0.1') => from(client, url('/v2/general', key), xff === undefined ? {} : { 'x-forwarded-for': xff });
    expect((await via('127.0.0.2')).status).to.equal(200);
    expect((await via('127.0.0.9, 127.0.0.2')).status, 'what a client wrote left of it is not read').to.equal(200);
    expect((await via('127.0.0.2, 127.0.0.1')).status, 'trusted hops are skipped').to.equal(200);
    expect((await via(['127.0.0.2', '127.0.0.1'])).status, 'several lines are one list').to.equal(200);
    const usage = await from('127.0.0.1', `${s.server.base}/v2/usage?x-api-key=${key}`, { 'x-forwarded-for': '127.0.0.2' });
    expect(usage.status, 'v2 usage').to.equal(200);
    for (const [xff, client] of [['127.0.0.2, 127.0.0.9', '127.0.0.9'], [undefined, '127.0.0.1'], ['not-an-address', '127.0.0.1']] as const) {
      const answer = await via(xff);
      expect(answer.status, String(xff)).to.equal(403);
      expect(detailOf(answer)).to.contain(`(${client})`);
    }
    // A peer that is no trusted proxy is still the client, whatever it says.
    expect((await via('127.0.0.2', '127.0.0.3')).status).to.equal(403);
    expect(await s.store.remaining(key)).to.equal(996);
  });
});

/** Over IPv6: ::1 is a client of its own, and an IPv4 entry does not admit it. */
describe('per-key IP restrictions over IPv6 (the server on ::1)', function () {
  this.timeout(60_000);
  const target = new TargetServer();
  let store: TestStore;
  let server: ServerProcess;
  before(async () => {
    const databaseUrl = testDatabases()[0].freshUrl();
    await target.start();
    store = await TestStore.open(databaseUrl);
    server = await new ServerProcess({ HOST: '::1', DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '0' }).start();
  });
  after(async () => {
    await server?.stop();
    await target.stop();
    await store?.close();
  });

  it('admits ::1 by an IPv6 entry and refuses it for a key allowed only 127.0.0.2', async () => {
    const v6 = await store.key({ credits: 100, allowedIps: ['::1'] });
    const v4 = await store.key({ credits: 100, allowedIps: ['127.0.0.2'] });
    const url = (key: string) => `${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', target.url('/page')], ['browser', 'false']])}`;
    expect((await from('::1', url(v6))).status).to.equal(200);
    const refused = await from('::1', url(v4));
    expect(refused.status).to.equal(403);
    expect(detailOf(refused)).to.contain('(::1)');
    expect([await store.remaining(v6), await store.remaining(v4)]).to.deep.equal([99, 100]);
  });
});
