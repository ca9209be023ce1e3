import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { addBrowserPages } from '../helpers/browser-pages.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { SeleniumGrid } from '../helpers/selenium-grid.js';
import { ServerProcess } from '../helpers/server-process.js';
import { requestOwners } from '../helpers/socket-owner.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { TargetServer } from '../helpers/target-server.js';
import { closedPort } from '../helpers/test-proxy.js';

/**
 * Scaling out: two stateless scrapegate processes share one database (MySQL when TEST_MYSQL_URL
 * names one, else one SQLite file) and one real Selenium Grid. The target policy is on, as in
 * production: only 127.0.0.2 is allowed (the target listens there); a victim on 127.0.0.1 records
 * every request, and none may reach it.
 */
const mysqlUrl = process.env.TEST_MYSQL_URL || undefined;

describe(`scale-out: two instances on one ${mysqlUrl ? 'MySQL' : 'SQLite'} database and one Selenium Grid`, function () {
  this.timeout(120_000);
  let grid: SeleniumGrid;
  let target: TargetServer;
  let victim: TargetServer;
  let store: TestStore;
  let a: ServerProcess;
  let b: ServerProcess;
  /** Requests of the gateway pages, with the processes that opened the connection each came on. */
  const witnessed: Array<{ path: string; owners: number[] }> = [];

  before(async function () {
    this.timeout(120_000);
    const databaseUrl = mysqlUrl ?? testDatabases()[0].freshUrl();
    grid = new SeleniumGrid({ maxSessions: 4 });
    target = new TargetServer('127.0.0.2');
    victim = new TargetServer('127.0.0.1');
    await Promise.all([grid.start(), target.start(), victim.start()]);
    addBrowserPages(target);
    const v = victim.port;
    const html = (body: string) => (_req: unknown, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    // Answered only once `ss` has said whose connection the request came on.
    const witness = (path: string, answer: (res: ServerResponse) => void) =>
      target.route(path, (req, res) => void requestOwners(req).then((owners) => {
        witnessed.push({ path, owners });
        answer(res);
      }));
    witness('/gw-page', (res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<p id="page">gateway page</p><img src="/gw.png"><img src="http://127.0.0.1:${v}/img"><iframe src="http://127.0.0.1:${v}/frame"></iframe>
       <script>
         fetch('http://127.0.0.1:${v}/fetch').catch(() => {});
         fetch('/gw-data').then((r) => r.text()).then((t) => { document.body.dataset.gw = t; });
       </script>`,
    ));
    witness('/gw.png', (res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex')));
    witness('/gw-data', (res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('through-the-gateway'));
    target.route('/to-victim', (_req, res) => void res.writeHead(302, { location: `http://127.0.0.1:${v}/stolen` }).end());
    target.route('/slow-page', html('<p id="slow">slow page</p><img src="/slow?ms=1500">'));

    store = await TestStore.open(databaseUrl); // migrates once, before either instance starts
    const env = {
      DATABASE_URL: databaseUrl,
      SELENIUM_REMOTE_URL: grid.url,
      BROWSER_POOL_SIZE: '1',
      ALLOW_PRIVATE_TARGETS: 'false',
      TARGET_ALLOW_CIDRS: '127.0.0.2/32',
      LEASE_GRACE_SECONDS: '5',
    };
    a = new ServerProcess(env);
    b = new ServerProcess(env);
    await Promise.all([a.start(), b.start()]);
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all([a?.stop(), b?.stop()]);
    await grid?.stop();
    await Promise.all([target?.stop(), victim?.stop()]);
    await store?.close();
  });

  afterEach(function () {
    // A failure shows what the instances logged as errors.
    if (this.currentTest?.state === 'failed') {
      for (const [name, server] of [['A', a], ['B', b]] as const) {
        for (const line of server?.logs.filter((l) => (l.level ?? 0) >= 50).slice(-5) ?? []) console.error(`${name}: ${JSON.stringify(line).slice(0, 1500)}`);
      }
    }
    expect(victim.requests.map((r) => r.url), 'requests that reached the victim on 127.0.0.1').to.deep.equal([]);
  });

  const call = (server: ServerProcess, key: string, query: Array<[string, string]>, init?: RequestInit) =>
    fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ...query])}`, init);

  it('runs both instances on the one Grid, each with its own session', async () => {
    for (const server of [a, b]) expect(await server.logLine('browser pool ready')).to.include({ grid: true, sessions: 1 });
    const status = await grid.status();
    expect(status?.nodes.flatMap((n) => n.slots).filter((slot) => slot.session !== null)).to.have.length(2);
  });

  it('renders through the Grid on both instances (content the page writes late)', async () => {
    const key = await store.key();
    for (const server of [a, b]) {
      const res = await call(server, key, [['url', target.url('/js-page')], ['wait_for_selector', '#late']]);
      const text = await res.text();
      expect(res.status, text).to.equal(200);
      expect(res.headers.get('svc-credits-cost')).to.equal('10');
      expect(text).to.contain('rendered late');
    }
  });

  it("keeps the Grid's browsers behind each instance's gateway: the target sees the gateway, the victim sees nothing", async () => {
    const key = await store.key();
    for (const server of [a, b]) {
      witnessed.length = 0;
      const res = await call(server, key, [['url', target.url('/gw-page')], ['wait_for_selector', 'body[data-gw]'], ['timeout', '20']]);
      const text = await res.text();
      expect(res.status, text).to.equal(200);
      expect(text).to.contain('gateway page').and.to.contain('data-gw="through-the-gateway"');
      // The page, its image and its fetch each came on a connection the instance itself opened
      // (its gateway dialled them), never on one of the Grid's Chromium processes.
      expect(witnessed.map((w) => w.path).sort()).to.deep.equal(['/gw-data', '/gw-page', '/gw.png']);
      for (const w of witnessed) expect(w.owners, `${w.path} via ${server === a ? 'A' : 'B'}`).to.deep.equal([server.pid]);
    }
    // Asked for directly, the victim is an invalid url on either instance, browser or not.
    for (const [server, browser] of [[a, 'true'], [b, 'false']] as const) {
      const res = await call(server, key, [['url', `http://127.0.0.1:${victim.port}/`], ['browser', browser]]);
      expect(res.status).to.equal(422);
    }
  });

  it("refuses a free key's second concurrent request with 409 on the other instance, then serves it again", async () => {
    const key = await store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
    // A plain request held on A, then a render held on B (its image takes 1.5 s): the other instance refuses.
    for (const [holder, other, browser] of [[a, b, 'false'], [b, a, 'true']] as const) {
      const slowSeen = target.requestsTo('/slow').length;
      const path = browser === 'true' ? '/slow-page' : '/slow?ms=1500';
      const held = call(holder, key, [['url', target.url(path)], ['browser', browser], ['timeout', '20']]);
      for (let i = 0; i < 100 && target.requestsTo('/slow').length === slowSeen; i++) await sleep(50);
      expect(target.requestsTo('/slow').length, 'the held request reached the target').to.be.above(slowSeen);
      const refused = await call(other, key, [['url', target.url('/page')], ['browser', 'false']]);
      const body = await refused.json();
      expect(refused.status).to.equal(409);
      expect((body as { detail: string }).detail).to.contain('Concurrent request limit');
      await expectMatchesSpec('v2GeneralGet', refused, body);
      expect((await held).status).to.equal(200);
      expect(await store.leasesOf(key)).to.equal(0);
      expect((await call(other, key, [['url', target.url('/page')], ['browser', 'false']])).status).to.equal(200);
    }
    // Charged: the plain hold (1), the render (10) and the two follow-ups (1 each); never the 409s.
    expect(await store.remaining(key)).to.equal(10_000 - 13);
    expect(await store.leasesOf(key)).to.equal(0);
  });

  it('keeps credits exact over 200 requests spread over both instances (8 in flight, mixed costs, errors free)', async () => {
    // A paid plan: no concurrency cap (the free key's cap across instances is the test above).
    const key = await store.key({ planName: 'startup', credits: 100_000, maxConcurrency: null });
    const refusedUrl = `http://127.0.0.2:${await closedPort('127.0.0.2')}/`;
    // Errors (404, never charged): a refused connection (retried until its 5 s deadline), a
    // redirect loop, a redirect to the victim (refused by the policy).
    type Kind = 'refused' | 'loop' | 'to-victim' | 'page-source' | 'render' | 'target-503' | 'plain';
    const kindOf = (i: number): Kind =>
      i === 0 ? 'refused' : i % 50 === 0 ? 'to-victim' : i % 25 === 0 ? 'loop'
        : i % 50 === 7 ? 'render' : i % 20 === 10 ? 'page-source' : i % 30 === 3 ? 'target-503' : 'plain';
    const errors = new Set<Kind>(['refused', 'loop', 'to-victim']);
    const expectedCost: Record<Kind, number> = { refused: 0, loop: 0, 'to-victim': 0, 'page-source': 2, render: 10, 'target-503': 1, plain: 1 };
    const query = (kind: Kind): Array<[string, string]> => {
      switch (kind) {
        case 'refused': return [['url', refusedUrl], ['browser', 'false'], ['timeout', '5']];
        case 'loop': return [['url', target.url('/loop')], ['browser', 'false']];
        case 'to-victim': return [['url', target.url('/to-victim')], ['browser', 'false']];
        case 'page-source': return [['url', target.url('/page')], ['return_page_source', 'true']];
        case 'render': return [['url', target.url('/page')]];
        case 'target-503': return [['url', target.url('/status?code=503')], ['browser', 'false']];
        case 'plain': return [['url', target.url('/page')], ['browser', 'false']];
      }
    };
    const before = await store.remaining(key);
    const results: Array<{ i: number; kind: Kind; status: number; cost: string | null; detail?: unknown; page: string | null; via: 'A' | 'B' }> = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < 200; i = next++) {
        const kind = kindOf(i);
        const via = i % 2 === 0 ? 'A' : 'B';
        const res = await call(via === 'A' ? a : b, key, query(kind));
        const body = res.status === 200 ? await res.text() : ((await res.json()) as { detail?: unknown });
        results.push({ i, kind, via, status: res.status, cost: res.headers.get('svc-credits-cost'), page: res.headers.get('svc-page-status-code'), detail: typeof body === 'string' ? undefined : body.detail });
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: 8 }, worker));
    const elapsed = Date.now() - started;

    expect(results).to.have.length(200);
    expect(results.filter((r) => r.via === 'A')).to.have.length(100);
    for (const r of results) {
      if (errors.has(r.kind)) {
        expect(r.status, `#${r.i} ${r.kind}`).to.equal(404);
        expect(r.detail, `#${r.i}`).to.be.a('string').and.not.be.empty;
        expect(r.cost, `#${r.i}: an error carries no cost`).to.equal(null);
      } else {
        expect(r.status, `#${r.i} ${r.kind} via ${r.via}: ${JSON.stringify(r.detail)}`).to.equal(200);
        expect(Number(r.cost), `#${r.i} ${r.kind}`).to.equal(expectedCost[r.kind]);
        if (r.kind === 'target-503') expect(r.page).to.equal('503');
      }
    }
    const charged = results.filter((r) => r.status === 200).reduce((sum, r) => sum + Number(r.cost), 0);
    expect(before - (await store.remaining(key)), 'credits taken = sum of Svc-credits-cost of the 200s').to.equal(charged);
    expect(results.filter((r) => r.status === 404)).to.have.length(8);
    expect(await store.leasesOf(key)).to.equal(0);
    expect(elapsed, '200 mixed requests over two instances').to.be.below(60_000);
  });

  it('leaves both instances ready and the Grid with exactly their two sessions', async () => {
    for (const server of [a, b]) expect((await fetch(`${server.base}/readyz`)).status).to.equal(200);
    const status = await grid.status();
    expect(status?.nodes.flatMap((n) => n.slots).filter((slot) => slot.session !== null)).to.have.length(2);
  });
});
