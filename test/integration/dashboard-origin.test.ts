import { expect } from 'chai';
import http from 'node:http';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDatabases } from '../helpers/databases.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';
import { TestStore } from '../helpers/keys.js';

const TOKEN = 'origin-admin-token-9e2c5a1f7d3b8e6c';
const METRICS_TOKEN = 'origin-metrics-token-1a7d4f9c2e8b5d3a';
const ADMIN_HOST = 'admin.example.com';

/** A GET from `localAddress` naming `host` in its Host header (a client of 127.0.0.1 speaks through the trusted proxy). */
function get(base: string, path: string, host: string, headers: Record<string, string> = {}, localAddress = '127.0.0.2'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { localAddress, agent: false, headers: { host, ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe(`the operator's surfaces on an origin of their own (DASHBOARD_ORIGIN=https://${ADMIN_HOST}, METRICS_TOKEN)`, function () {
  this.timeout(60_000);
  const database = testDatabases()[0];
  let server: ServerProcess;
  let target: TargetServer;
  let store: TestStore;
  let key: string;
  let apiHost: string;
  before(async () => {
    const url = database.freshUrl();
    target = await new TargetServer().start();
    store = await TestStore.open(url);
    key = await store.key();
    server = await new ServerProcess({
      DATABASE_URL: url, BROWSER_POOL_SIZE: '0', ALLOW_PRIVATE_TARGETS: 'true', ADMIN_TOKEN: TOKEN, METRICS_TOKEN,
      DASHBOARD_ORIGIN: `https://${ADMIN_HOST}`, TRUSTED_PROXIES: '127.0.0.1/32',
    }).start();
    apiHost = server.base.slice('http://'.length);
  });
  after(async () => {
    await server?.stop();
    await target?.stop();
    await store?.close();
  });
  const scrapePath = () => `/v2/general?${new URLSearchParams({ 'x-api-key': key, url: target.url('/page'), browser: 'false' })}`;
  const operatorPaths = ['/dashboard', '/dashboard/', '/docs/admin', '/openapi/admin.json', '/openapi/admin.yaml'];

  it('answers the dashboard and the admin documents on the dashboard\'s origin alone', async () => {
    for (const path of operatorPaths) {
      expect((await get(server.base, path, ADMIN_HOST)).status, `${path} there`).to.equal(200);
      expect((await get(server.base, path, `${ADMIN_HOST}:443`)).status, `${path} at its default port`).to.equal(200);
      expect((await get(server.base, path, 'ADMIN.example.COM')).status, `${path} in capitals`).to.equal(200);
      expect((await get(server.base, path, apiHost)).status, `${path} on the API's origin`).to.equal(404);
      expect((await get(server.base, path.toUpperCase(), apiHost)).status, `${path.toUpperCase()} on the API's origin`).to.equal(404);
      expect((await get(server.base, path, `${ADMIN_HOST}:8443`)).status, `${path} on another port`).to.equal(404);
      expect((await get(server.base, path, `${ADMIN_HOST}.evil.example`)).status).to.equal(404);
    }
    expect((await get(server.base, '/dashboard/assets/dashboard.css', ADMIN_HOST)).status).to.equal(200);
    expect((await get(server.base, '/dashboard/assets/dashboard.css', apiHost)).status).to.equal(404);
  });

  it('judges the scheme where a trusted proxy tells it: the dashboard\'s host over http is neither origin', async () => {
    const viaProxy = (path: string, proto: string) => get(server.base, path, ADMIN_HOST, { 'x-forwarded-proto': proto }, '127.0.0.1');
    expect((await viaProxy('/dashboard', 'https')).status).to.equal(200);
    expect((await viaProxy('/dashboard', 'http')).status).to.equal(404);
    expect((await viaProxy(scrapePath(), 'http')).status).to.equal(404);
    // From a peer that is no trusted proxy the header says nothing: judged on the Host alone.
    expect((await get(server.base, '/dashboard', ADMIN_HOST, { 'x-forwarded-proto': 'http' })).status).to.equal(200);
  });

  it('never answers a scraping operation on the dashboard\'s host, and answers it as before elsewhere', async () => {
    const before = target.requestsTo('/page').length;
    for (const path of [scrapePath(), `/v1/?${new URLSearchParams({ api_key: key, url: target.url('/page') })}`, `/V2/GENERAL?${new URLSearchParams({ 'x-api-key': key, url: target.url('/page') })}`]) {
      expect((await get(server.base, path, ADMIN_HOST)).status, path).to.equal(404);
    }
    expect(target.requestsTo('/page').length, 'the target was never asked').to.equal(before);
    expect((await get(server.base, scrapePath(), apiHost)).status).to.equal(200);
    expect((await get(server.base, '/openapi.json', apiHost)).status).to.equal(200);
  });

  it('signs the operator in on the dashboard\'s origin, with the admin API and health answering on both', async () => {
    const operator = new DashboardClient(server.base, '127.0.0.2');
    const headers = { host: ADMIN_HOST, origin: `http://${ADMIN_HOST}` };
    const signedIn = await operator.request('POST', '/dashboard/sign-in', { secret: TOKEN }, headers);
    expect(signedIn.status).to.equal(303);
    expect((await operator.request('GET', '/dashboard', undefined, { host: ADMIN_HOST })).body).to.contain('Signed in as the operator');
    expect((await operator.request('POST', '/dashboard/sign-in', { secret: TOKEN }, { host: apiHost })).status).to.equal(404);
    for (const host of [ADMIN_HOST, apiHost]) {
      expect((await get(server.base, '/admin/v1/plans', host, { authorization: `Bearer ${TOKEN}` })).status).to.equal(200);
      expect((await get(server.base, '/healthz', host)).status).to.equal(200);
    }
  });

  it('keeps /metrics to whoever has METRICS_TOKEN', async () => {
    for (const authorization of [undefined, 'Bearer wrong-metrics-token-0000000000000000', `Bearer ${METRICS_TOKEN}x`, `Basic ${METRICS_TOKEN}`, `Bearer ${TOKEN}`]) {
      const refused = await get(server.base, '/metrics', apiHost, authorization ? { authorization } : {});
      expect(refused.status, String(authorization)).to.equal(401);
      expect(refused.body).not.to.contain('scrapegate_');
    }
    const scraped = await get(server.base, '/metrics', apiHost, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(scraped.status).to.equal(200);
    expect(scraped.body).to.contain('scrapegate_http_requests_total');
    expect(server.rawOutput.join('\n')).not.to.contain(METRICS_TOKEN);
  });
});
