import { expect } from 'chai';
import pino from 'pino';
import { BrowserPool } from '../../../src/engines/browser/browser-pool.js';
import { BrowserSession } from '../../../src/engines/browser/browser-session.js';
import { OwnPorts } from '../../../src/egress/target-policy/own-ports.js';
import { browsersIn } from '../../helpers/chromium-processes.js';
import { eventually } from '../../helpers/eventually.js';
import { recordStartedGroup } from '../../helpers/started-processes.js';

describe('BrowserPool (real Chromium)', function () {
  this.timeout(60_000);
  const made: BrowserSession[] = [];
  let pool: BrowserPool;
  before(async () => {
    const options = { chromiumPath: '/usr/bin/chromium', chromedriverPath: '/usr/bin/chromedriver', remoteUrl: undefined, gatewayHost: '127.0.0.1', ownPorts: new OwnPorts() };
    pool = new BrowserPool(
      async () => {
        const session = await BrowserSession.create(options);
        recordStartedGroup(session.processGroup);
        made.push(session);
        return session;
      },
      { size: 1, maxPages: 100, maxMemoryMb: 800, memoryCheckEvery: 10, idleCheckMs: 300 },
      pino({ level: 'silent' }),
    );
    await pool.start();
  });
  after(async () => {
    await pool?.close();
    for (const s of made) await s.quit();
  });

  it('replaces a session that stopped answering while idle, before any request needs it', async () => {
    expect(pool.stats).to.include({ size: 1, idle: 1, retired: 0 });
    // The browser ends behind the pool's back, as when a Grid node's session timeout ends it. Only
    // its Chromium is killed: the test makes no call of its own that the pool's check could cut.
    for (const pid of browsersIn([made[0].processGroup!])) process.kill(pid, 'SIGKILL');
    await eventually(() => pool.stats.retired === 1 && pool.stats.idle === 1, 15_000, 'the dead session retired and replaced');
    expect(pool.stats).to.include({ size: 1, idle: 1, retired: 1 });
    expect(made).to.have.length(2);
    expect(await made[1].answers(5_000)).to.equal(true);
  });
});
