import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { livingPids, SeleniumGrid, type GridNode } from '../helpers/selenium-grid.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';

/**
 * A Selenium Grid node gone (its machine lost: the node, its drivers and browsers killed at once)
 * while renders run on it. One scrapegate instance with two sessions on a hub-and-node Grid.
 * Nothing may be lost: every 200 charged once, no error charged, no lease left, no browser of
 * the dead node left, and the service renders again once a node is back — without a restart.
 */
describe('Selenium Grid: a node gone with renders in flight (hub and node, BROWSER_POOL_SIZE=2)', function () {
  this.timeout(120_000);
  let grid: SeleniumGrid;
  let node: GridNode;
  let target: TargetServer;
  let store: TestStore;
  let server: ServerProcess;
  let key: string;
  let credits: number;

  before(async function () {
    this.timeout(120_000);
    const databaseUrl = process.env.TEST_MYSQL_URL || testDatabases()[0].freshUrl();
    // The hub checks its nodes every second, so a dead one is marked down in seconds, not minutes.
    grid = new SeleniumGrid({ role: 'hub', extraArgs: ['--healthcheck-interval', '1'] });
    target = new TargetServer('127.0.0.2');
    await Promise.all([grid.start(), target.start()]);
    // One slot more than the pool: a replacement may start before its predecessor's slot is free,
    // and a hub with no free slot says "not ready" on /status, which /readyz reads.
    node = await grid.addNode({ maxSessions: 3 });
    // The image takes 4 s, so the page's load (and the render) is still running when the node dies.
    target.route('/slow-page', (_req, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="slow">slow page</p><img src="/slow?ms=4000">'));
    store = await TestStore.open(databaseUrl);
    server = await new ServerProcess({
      DATABASE_URL: databaseUrl,
      SELENIUM_REMOTE_URL: grid.url,
      BROWSER_POOL_SIZE: '2',
      ALLOW_PRIVATE_TARGETS: 'false',
      TARGET_ALLOW_CIDRS: '127.0.0.2/32',
    }).start();
    key = await store.key({ planName: 'startup', credits: 1_000, maxConcurrency: 5 });
    credits = await store.remaining(key);
  });

  after(async function () {
    this.timeout(60_000);
    await server?.stop();
    await grid?.stop();
    await target?.stop();
    await store?.close();
  });

  const render = async (path: string, timeoutSeconds: number) => {
    const started = Date.now();
    const res = await fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', target.url(path)], ['timeout', String(timeoutSeconds)]])}`);
    const body = res.status === 200 ? await res.text() : ((await res.json()) as { detail?: unknown });
    return { status: res.status, body, cost: res.headers.get('svc-credits-cost'), ms: Date.now() - started, timeoutSeconds };
  };

  it('fails the renders in flight cleanly when their node dies: an error with a detail in time, nothing charged, no lease, no browser left', async () => {
    const browsers = node.browsers();
    expect(browsers, 'the pool warmed two browsers on the node').to.have.length(2);
    const processes = node.processes();
    const images = target.requestsTo('/slow').length;

    // Two renders hold both sessions; a third waits for one in the pool.
    const inFlight = [render('/slow-page', 15), render('/slow-page', 15), render('/slow-page', 6)];
    for (let i = 0; i < 200 && target.requestsTo('/slow').length < images + 2; i++) await sleep(50);
    expect(target.requestsTo('/slow').length, 'both renders are loading their image').to.equal(images + 2);

    await node.kill();
    const results = await Promise.all(inFlight);
    for (const r of results) {
      expect(r.status, JSON.stringify(r)).to.be.oneOf([404, 500]);
      expect((r.body as { detail?: unknown }).detail, JSON.stringify(r)).to.be.a('string').and.not.be.empty;
      expect(r.cost, 'an error carries no cost').to.equal(null);
      expect(r.ms, `answered within its ${r.timeoutSeconds} s timeout`).to.be.below(r.timeoutSeconds * 1000 + 2_000);
    }
    expect(await store.remaining(key), 'nothing charged').to.equal(credits);
    expect(await store.leasesOf(key), 'no lease left').to.equal(0);

    // Nothing of the dead node lives on: its Java process, drivers, browsers, their helpers.
    let left = livingPids(processes);
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await sleep(125);
      left = livingPids(processes);
    }
    expect(left, 'processes of the dead node still running').to.deep.equal([]);

    // The instance itself is up, says it cannot render now, and plain requests still work.
    expect((await fetch(`${server.base}/healthz`)).status).to.equal(200);
    expect((await fetch(`${server.base}/readyz`)).status, 'no browser session: not ready').to.equal(503);
    const plain = await fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', target.url('/page')], ['browser', 'false']])}`);
    expect(plain.status).to.equal(200);
    credits -= 1;
    expect(await store.remaining(key)).to.equal(credits);
  });

  it('renders again once a node is back, without a restart, and the new node runs exactly the pool\'s two browsers', async function () {
    this.timeout(90_000);
    const replacement = await grid.addNode({ maxSessions: 3 });
    const joined = Date.now();
    let ready = 0;
    while (Date.now() - joined < 60_000) {
      if ((await fetch(`${server.base}/readyz`)).status === 200) {
        ready = Date.now() - joined;
        break;
      }
      await sleep(250);
    }
    expect(ready, 'ready again within 60 s of the new node joining').to.be.above(0);

    const results = await Promise.all([render('/page', 30), render('/page', 30)]);
    for (const r of results) {
      expect(r.status, JSON.stringify(r)).to.equal(200);
      expect(r.body).to.contain('Hello target');
      expect(r.cost).to.equal('10');
    }
    credits -= 20;
    expect(await store.remaining(key), 'each 200 charged exactly once').to.equal(credits);
    expect(await store.leasesOf(key)).to.equal(0);

    // Both sessions back on the new node, and not one browser more (no abandoned session start).
    for (let i = 0; i < 40 && (await grid.sessionsOn(replacement.url)) < 2; i++) await sleep(250);
    const status = await grid.status();
    const summary = JSON.stringify(status?.nodes?.map((n) => ({ uri: n.uri, availability: n.availability, sessions: n.slots.filter((slot) => slot.session !== null).length })));
    expect(await grid.sessionsOn(replacement.url), `sessions on ${replacement.url}: ${summary}`).to.equal(2);
    expect(replacement.browsers()).to.have.length(2);
    console.log(`      (ready again ${ready} ms after the new node joined the hub)`);
  });
});

/**
 * Session starts given up while queued at a hub with no node (BROWSER_START_TIMEOUT_SECONDS): when
 * a node joins, the hub serves them late, to nobody. Each must be quit, or it holds a slot and a
 * browser on the node until the node's session timeout.
 */
describe('Selenium Grid: session starts given up while queued at the hub', function () {
  this.timeout(120_000);
  let grid: SeleniumGrid | undefined;
  let server: ServerProcess | undefined;
  after(async function () {
    this.timeout(60_000);
    await server?.stop();
    await grid?.stop();
  });

  it('are quit when the hub serves them late: the node keeps only the pool\'s session', async () => {
    grid = await new SeleniumGrid({ role: 'hub', extraArgs: ['--healthcheck-interval', '1'] }).start();
    server = await new ServerProcess({
      DATABASE_URL: testDatabases()[0].freshUrl(),
      SELENIUM_REMOTE_URL: grid.url,
      BROWSER_POOL_SIZE: '1',
      BROWSER_START_TIMEOUT_SECONDS: '2',
      ALLOW_PRIVATE_TARGETS: 'true',
    }).start('listening');
    // No node: starts time out and are tried again with backoff, each leaving a request queued.
    await server.waitForEvents('pool.startFailed', 3, 12_000).catch(() => undefined);
    const givenUp = server.eventsNamed('pool.startFailed').length;
    expect(givenUp, 'session starts given up before a node joined').to.be.at.least(3);
    expect((await fetch(`${server.base}/readyz`)).status).to.equal(503);

    const node = await grid.addNode({ maxSessions: 6 });
    await server.ready(60_000);
    // The late sessions are quit as they arrive; give them a moment, then count what is left.
    let sessions = await grid.sessionsOn(node.url);
    for (let i = 0; i < 60 && sessions !== 1; i++) {
      await sleep(250);
      sessions = await grid.sessionsOn(node.url);
    }
    await sleep(2_000);
    expect(await grid.sessionsOn(node.url), `sessions on the node (${givenUp} starts were given up)`).to.equal(1);
    expect(node.browsers()).to.have.length(1);
  });
});
