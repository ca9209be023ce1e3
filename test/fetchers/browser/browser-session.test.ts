import { OwnPorts } from '../../../src/egress/address-policy.js';
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { BrowserSession } from '../../../src/fetchers/browser/browser-session.js';
import { chromiumPids } from '../../helpers/chromium-processes.js';
import { directEgress } from '../../helpers/egress.js';
import { TargetServer } from '../../helpers/target-server.js';

describe('BrowserSession (real Chromium)', function () {
  this.timeout(60_000);
  let target: TargetServer;
  let session: BrowserSession;
  before(async () => {
    target = await new TargetServer().start();
    target.route('/beacon-page', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<script>setInterval(() => fetch("/beacon"), 50);</script>'));
    target.route('/beacon', (_req, res) => void res.writeHead(204).end());
    session = await BrowserSession.create({ chromiumPath: '/usr/bin/chromium', chromedriverPath: '/usr/bin/chromedriver', remoteUrl: undefined, gatewayHost: '127.0.0.1', ownPorts: new OwnPorts() });
  });
  after(async () => {
    await session?.quit();
    await target.stop();
  });

  it('reset closes every tab but the session main one, so nothing keeps running for the next request', async () => {
    const { driver } = session;
    session.gateway.serve(directEgress({ allowPrivate: true }));
    await driver.switchTo().newWindow('tab');
    await driver.get(target.url('/beacon-page'));
    await driver.switchTo().window(session.mainWindow);
    while (target.requestsTo('/beacon').length === 0) await sleep(50);
    await session.reset([target.origin]);
    expect(await driver.getAllWindowHandles()).to.deep.equal([session.mainWindow]);
    const beacons = target.requestsTo('/beacon').length;
    await sleep(400);
    expect(target.requestsTo('/beacon').length).to.equal(beacons);
    session.gateway.finish();
  });

  it('runs driver and browser in a process group of its own, killed whole', async () => {
    const before = chromiumPids().length;
    const other = await BrowserSession.create({ chromiumPath: '/usr/bin/chromium', chromedriverPath: '/usr/bin/chromedriver', remoteUrl: undefined, gatewayHost: '127.0.0.1', ownPorts: new OwnPorts() });
    expect(chromiumPids().length).to.be.greaterThan(before);
    expect(await other.memoryMb()).to.be.within(50, 2000);
    other.kill();
    await sleep(300);
    expect(chromiumPids().length).to.equal(before);
  });
});
