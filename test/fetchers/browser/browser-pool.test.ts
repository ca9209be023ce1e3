import { expect } from 'chai';
import pino from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { OwnPorts } from '../../../src/egress/address-policy.js';
import { BrowserPool } from '../../../src/fetchers/browser/browser-pool.js';
import { BrowserSession } from '../../../src/fetchers/browser/browser-session.js';

describe('BrowserPool (real Chromium)', function () {
  this.timeout(60_000);
  const made: BrowserSession[] = [];
  let pool: BrowserPool;
  before(async () => {
    const options = { chromiumPath: '/usr/bin/chromium', chromedriverPath: '/usr/bin/chromedriver', remoteUrl: undefined, gatewayHost: '127.0.0.1', ownPorts: new OwnPorts() };
    pool = new BrowserPool(
      async () => {
        const session = await BrowserSession.create(options);
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
    // The WebDriver session ends behind the pool's back, as a Grid node's session timeout does.
    await made[0].driver.quit();
    for (let i = 0; i < 100 && (pool.stats.retired === 0 || pool.stats.idle === 0); i++) await sleep(100);
    expect(pool.stats).to.include({ size: 1, idle: 1, retired: 1 });
    expect(made).to.have.length(2);
    expect(await made[1].answers(5_000)).to.equal(true);
  });
});
