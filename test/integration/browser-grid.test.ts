import { expect } from 'chai';
import { addBrowserPages } from '../helpers/browser-pages.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { SeleniumGrid } from '../helpers/selenium-grid.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';

describe('browser engine on a Selenium Grid (SELENIUM_REMOTE_URL)', function () {
  this.timeout(120_000);
  let grid: SeleniumGrid;
  let target: TargetServer;
  let store: TestStore;
  let server: ServerProcess;
  before(async () => {
    // One slot, which the pool's session takes: the hub's /status then says ready: false.
    grid = await new SeleniumGrid({ maxSessions: 1 }).start();
    target = await new TargetServer().start();
    addBrowserPages(target);
    const databaseUrl = testDatabases()[0].freshUrl();
    store = await TestStore.open(databaseUrl);
    server = await new ServerProcess({ DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '1', SELENIUM_REMOTE_URL: grid.url }).start();
  });
  after(async () => {
    await server?.stop();
    await grid?.stop();
    await target?.stop();
    await store?.close();
  });

  it('is ready while its warm session fills the Grid (the hub is up, though it has no free slot)', async () => {
    expect((await grid.status())?.ready).to.equal(false);
    expect(await (await fetch(`${server.base}/readyz`)).json()).to.deep.equal({ status: 'ready', checks: { database: 'ok', browsers: 'ok' } });
  });

  it('with private targets allowed, the Grid is still never a target: a page cannot drive its browsers', async () => {
    const key = await store.key();
    for (const browser of ['false', 'true']) {
      const res = await fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', `${grid.url}/status`], ['browser', browser]])}`);
      const body = (await res.json()) as { detail: Array<{ loc: unknown[]; msg: string }> };
      expect(res.status, browser).to.equal(422);
      expect(body.detail[0]).to.deep.include({ loc: ['query', 'url'], msg: `the URL is not allowed: port ${grid.port} of 127.0.0.1 is scrapegate's own` });
    }
  });

  it('renders through the Grid with the CDP features (status, headers, XHRs, blocking)', async () => {
    expect(await server.logLine('browser pool ready')).to.include({ grid: true, sessions: 1 });
    const key = await store.key();
    const images = target.requestsTo('/img.png').length;
    const res = await fetch(`${server.base}/v2/extended?${new URLSearchParams([
      ['x-api-key', key], ['url', target.url('/js-page')], ['wait_for_selector', 'body[data-api]'], ['block_resource', 'image'],
    ])}`);
    const body = (await res.json()) as { html: string; status_code: number; headers: Array<{ name: string; value: string }>; xhrs: Array<{ url: string }> };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body.status_code).to.equal(200);
    expect(body.html).to.contain('rendered late');
    expect(body.headers).to.deep.include({ name: 'x-target', value: 'browser' });
    expect(body.xhrs.map((x) => new URL(x.url).pathname)).to.include('/api/data');
    expect(target.requestsTo('/img.png').length).to.equal(images);
  });
});
