import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { SeleniumGrid } from '../helpers/selenium-grid.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';

/** The Grid's `--session-timeout` in this test (production: 300, see README "Scaling out"). */
const SESSION_TIMEOUT_S = 6;
/** How often the instance checks its idle sessions in this test. */
const IDLE_CHECK_S = 2;
/**
 * The Grid looks for timed-out sessions periodically, not at the instant one times out: a dead
 * instance's session is ended within the timeout plus that period.
 */
const GRID_CLEANUP_BOUND_MS = 60_000;

/**
 * On a Grid, a SIGKILLed instance cannot quit its sessions and no watchdog of ours runs on the
 * Grid's machines: the Grid's own session timeout ends them. A live instance keeps its idle
 * sessions alive by checking them every BROWSER_IDLE_CHECK_SECONDS, well inside the timeout.
 */
describe('Selenium Grid: the sessions of a killed instance end by the Grid\'s session timeout', function () {
  this.timeout(180_000);
  let grid: SeleniumGrid;
  let target: TargetServer;
  let store: TestStore;
  let server: ServerProcess;

  before(async function () {
    this.timeout(120_000);
    const databaseUrl = testDatabases()[0].freshUrl();
    grid = new SeleniumGrid({ maxSessions: 2, extraArgs: ['--session-timeout', String(SESSION_TIMEOUT_S)] });
    target = new TargetServer();
    await Promise.all([grid.start(), target.start()]);
    store = await TestStore.open(databaseUrl);
    server = await new ServerProcess({
      DATABASE_URL: databaseUrl,
      SELENIUM_REMOTE_URL: grid.url,
      BROWSER_POOL_SIZE: '1',
      BROWSER_IDLE_CHECK_SECONDS: String(IDLE_CHECK_S),
      ALLOW_PRIVATE_TARGETS: 'true',
    }).start();
  });

  after(async function () {
    this.timeout(60_000);
    await server?.stop();
    await grid?.stop();
    await target?.stop();
    await store?.close();
  });

  const gridSessions = async () => (await grid.status())?.nodes.flatMap((n) => n.slots.filter((s) => s.session !== null).map((s) => s.session!.sessionId)) ?? [];

  it('keeps a live instance\'s idle session past the timeout, and ends a killed one\'s', async () => {
    const key = await store.key({ credits: 1_000 });
    const [session] = await gridSessions();
    expect(session, 'the warm session on the Grid').to.be.a('string');
    // Idle for twice the timeout: the instance's checks keep its session.
    await sleep(2 * SESSION_TIMEOUT_S * 1_000);
    const res = await fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', target.url('/page')]])}`);
    expect(res.status).to.equal(200);
    expect(server.eventsNamed('pool.started'), 'no session was replaced').to.have.length(1);
    expect(await gridSessions()).to.deep.equal([session]);

    await server.kill();
    const killedAt = Date.now();
    while ((await gridSessions()).length > 0 && Date.now() - killedAt < GRID_CLEANUP_BOUND_MS) await sleep(500);
    const endedAfter = Date.now() - killedAt;
    expect(await gridSessions(), `the killed instance's session, ${endedAfter} ms after the kill`).to.deep.equal([]);
    // Its last check came at most IDLE_CHECK_S before the kill.
    expect(endedAfter, 'not before the session timeout').to.be.at.least((SESSION_TIMEOUT_S - IDLE_CHECK_S - 1) * 1_000);
    console.log(`      the Grid ended the killed instance's session ${endedAfter} ms after the kill (timeout ${SESSION_TIMEOUT_S} s)`);
  });
});
