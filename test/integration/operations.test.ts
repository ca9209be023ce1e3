import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { antibotFixtures } from '../fixtures/antibot/index.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';
import { closedPort, TestProxy } from '../helpers/test-proxy.js';

/** `name{a="x",b="y"} 3` lines → value by name and labels; comments and other series left out. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

function sum(text: string, name: string, where: Record<string, string> = {}): number {
  return samples(text, name)
    .filter((s) => Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

/** /healthz, /readyz and /metrics of the real server, with the target policy on and a proxy that is down. */
describe('operations: health, readiness and metrics', function () {
  this.timeout(90_000);
  const database = testDatabases()[0];
  let target: TargetServer;
  let store: TestStore;
  let server: ServerProcess;
  let key: string;
  const liveProxy = new TestProxy('127.0.0.11');
  const wall = antibotFixtures().walls.find((f) => f.rule === 'datadome')!;

  before(async () => {
    target = await new TargetServer('127.0.0.2').start();
    target.route('/walled', (_req, res) => void res.writeHead(wall.status, Object.fromEntries(wall.headers)).end(wall.body));
    await liveProxy.start();
    const proxies = join(mkdtempSync(join(tmpdir(), 'proxies-')), 'proxies.json');
    // The dead proxy comes first in turn: the request fails over to the live one and the failure is counted.
    writeFileSync(proxies, JSON.stringify({ datacenter: { US: [`http://dc-user:hunter2@127.0.0.1:${await closedPort()}`, liveProxy.url('dc-user')] } }));
    const databaseUrl = database.freshUrl();
    store = await TestStore.open(databaseUrl);
    key = await store.key();
    server = new ServerProcess({
      DATABASE_URL: databaseUrl,
      ALLOW_PRIVATE_TARGETS: 'false',
      TARGET_ALLOW_CIDRS: '127.0.0.2/32',
      PROXY_CONFIG: proxies,
      BROWSER_POOL_SIZE: '1',
    });
    await server.start('listening');
  });
  after(async () => {
    await server?.stop();
    await liveProxy.stop();
    await target?.stop();
    await store?.close();
  });

  it('listens before the pool is warm: /healthz is 200 at once, /readyz 503 until a session is up, then 200', async () => {
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    const first = await fetch(`${server.base}/readyz`);
    expect(first.status).to.equal(503);
    expect(await first.json()).to.deep.include({ status: 'not ready' });
    await server.ready();
    const ready = await fetch(`${server.base}/readyz`);
    expect(await ready.json()).to.deep.equal({ status: 'ready', checks: { database: 'ok', browsers: 'ok' } });
  });

  it('counts requests, credits, fetch latency, walls, refusals, proxy failures and the pool, without a key or a credential', async () => {
    const call = async (query: Array<[string, string]>) => {
      const res = await fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ...query])}`);
      await res.arrayBuffer();
      return res;
    };
    const before = await store.remaining(key);
    const costs: number[] = [];
    for (const [query, status] of [
      [[['url', target.url('/page')], ['browser', 'false']], 200],
      [[['url', target.url('/page')], ['browser', 'false']], 200],
      [[['url', target.url('/page')]], 200],
      [[['url', target.url('/page')], ['browser', 'false'], ['proxy_country', 'US']], 200],
      [[['url', target.url('/walled')], ['browser', 'false']], 423],
      // Refusals aimed at loopback only (the reasons of other ranges: target-policy.test.ts, on the decision alone).
      [[['url', 'http://127.0.0.1:8/'], ['browser', 'false']], 422],
      [[['url', 'http://127.0.0.1:25/'], ['browser', 'false']], 422],
      [[['url', `http://127.0.0.1:${server.port}/v2/usage`], ['browser', 'false']], 422],
    ] as Array<[Array<[string, string]>, number]>) {
      const res = await call(query);
      expect(res.status, JSON.stringify(query)).to.equal(status);
      if (status === 200) costs.push(Number(res.headers.get('svc-credits-cost')));
    }
    expect(await fetch(`${server.base}/v2/general?url=x`).then((r) => r.status)).to.equal(422);
    await fetch(`${server.base}/no/such/path/${key}`);

    const res = await fetch(`${server.base}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await res.text();

    expect(sum(text, 'scrapegate_http_requests_total', { endpoint: '/v2/general', method: 'GET', status: '200' })).to.equal(4);
    expect(sum(text, 'scrapegate_http_requests_total', { endpoint: '/v2/general', status: '423' })).to.equal(1);
    expect(sum(text, 'scrapegate_http_requests_total', { endpoint: '/v2/general', status: '422' })).to.equal(4);
    expect(sum(text, 'scrapegate_http_requests_total', { endpoint: 'unmatched', status: '404' })).to.equal(1);
    const charged = sum(text, 'scrapegate_credits_charged_total');
    expect(charged).to.equal(costs.reduce((a, b) => a + b, 0));
    expect(charged).to.equal(before - (await store.remaining(key)));
    expect(sum(text, 'scrapegate_credits_charged_total', { engine: 'browser', proxy_type: 'datacenter' })).to.equal(10);
    expect(sum(text, 'scrapegate_fetch_duration_seconds_count', { engine: 'plain', outcome: 'ok' })).to.equal(3);
    // The walled request may meet the wall twice: failing over past the dead proxy lands on the live one again.
    const walls = sum(text, 'scrapegate_fetch_duration_seconds_count', { engine: 'plain', outcome: 'wall' });
    expect(walls).to.be.within(1, 2);
    expect(sum(text, 'scrapegate_fetch_duration_seconds_count', { engine: 'browser', outcome: 'ok' })).to.equal(1);
    expect(sum(text, 'scrapegate_antibot_verdicts_total', { vendor: 'DataDome' })).to.equal(walls);
    expect(sum(text, 'scrapegate_egress_refusals_total', { reason: 'loopback' })).to.equal(1);
    expect(sum(text, 'scrapegate_egress_refusals_total', { reason: 'own-port' })).to.equal(1);
    expect(sum(text, 'scrapegate_egress_refusals_total', { reason: 'unsafe-port' })).to.equal(1);
    expect(sum(text, 'scrapegate_proxy_failures_total', { proxy_type: 'datacenter', country: 'US' })).to.be.at.least(1);
    expect(sum(text, 'scrapegate_browser_pool_sessions')).to.equal(1);
    expect(sum(text, 'scrapegate_browser_pool_queue_depth')).to.equal(0);
    expect(samples(text, 'scrapegate_browser_session_restarts')).to.have.length(1);
    expect(samples(text, 'scrapegate_process_resident_memory_bytes')).to.have.length(1);

    expect(text).not.to.contain(key);
    expect(text).not.to.contain(key.slice(3, 12));
    expect(text).not.to.contain('hunter2');
    expect(text).not.to.contain('dc-user');
    expect(text).not.to.contain('127.0.0.1:9');
  });
});
