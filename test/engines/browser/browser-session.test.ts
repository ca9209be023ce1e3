import { OwnPorts } from '../../../src/egress/target-policy/own-ports.js';
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { BrowserSession } from '../../../src/engines/browser/browser-session.js';
import { browsersIn, livingIn, livingProcesses } from '../../helpers/chromium-processes.js';
import { eventually } from '../../helpers/eventually.js';
import { recordStartedGroup } from '../../helpers/started-processes.js';
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
    recordStartedGroup(session.processGroup);
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
    await session.reset();
    expect(await driver.getAllWindowHandles()).to.deep.equal([session.mainWindow]);
    const beacons = target.requestsTo('/beacon').length;
    await sleep(400);
    expect(target.requestsTo('/beacon').length).to.equal(beacons);
    session.gateway.finish();
  });

  it("sends none of Chrome's own traffic out through a render's egress: the account list it asks for when its cookies change", async () => {
    const looked: string[] = [];
    const lookup = async (hostname: string) => {
      looked.push(hostname);
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    target.route('/sets-cookie', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<script>document.cookie = "a=1"</script>'));
    for (let i = 0; i < 3; i++) {
      session.gateway.serve(directEgress({ allowPrivate: true, lookup }));
      await session.driver.get(target.url('/sets-cookie'));
      // Chrome asks for the list a moment after the jar changes, here while the next page renders.
      await session.reset();
      await sleep(300);
      session.gateway.finish();
    }
    expect(looked).to.deep.equal([]);
  });

  it('runs driver and browser in a process group of its own, killed whole', async () => {
    const other = await BrowserSession.create({ chromiumPath: '/usr/bin/chromium', chromedriverPath: '/usr/bin/chromedriver', remoteUrl: undefined, gatewayHost: '127.0.0.1', ownPorts: new OwnPorts() });
    const group = other.processGroup!;
    recordStartedGroup(group);
    expect(browsersIn([group]).length, 'Chromium in the session group').to.be.greaterThan(0);
    expect(await other.memoryMb()).to.be.within(50, 2000);
    other.kill();
    await eventually(() => livingIn([group]).length === 0, 5_000, 'the session group gone');
  });
});

/** Ports listening now on this machine, by the pids that hold them (`ss`). */
function listening(): Array<{ address: string; port: number; pid: number }> {
  const out = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  return out.split('\n').flatMap((line) => {
    const local = /\s(\S+):(\d+)\s+\S+:\S+\s/.exec(line);
    const pid = /pid=(\d+)/.exec(line);
    return local && pid ? [{ address: local[1], port: Number(local[2]), pid: Number(pid[1]) }] : [];
  });
}

describe('BrowserSession ports (real Chromium)', function () {
  this.timeout(60_000);

  it("registers the driver's and DevTools' ports as scrapegate's own before anything listens on them, and the driver on loopback only", async () => {
    const registered: Array<{ port: number; listeningAlready: boolean }> = [];
    class RecordingPorts extends OwnPorts {
      override add(port: number): void {
        registered.push({ port, listeningAlready: listening().some((l) => l.port === port) });
        super.add(port);
      }
    }
    const ownPorts = new RecordingPorts();
    const session = await BrowserSession.create({ chromiumPath: '/usr/bin/chromium', chromedriverPath: '/usr/bin/chromedriver', remoteUrl: undefined, gatewayHost: '127.0.0.1', ownPorts });
    recordStartedGroup(session.processGroup);
    try {
      const group = session.processGroup!;
      const members = new Set(livingProcesses().filter((p) => p.pgid === group).map((p) => p.pid));
      const ours = listening().filter((l) => members.has(l.pid));
      expect(ours.length, 'ports the driver and browser listen on').to.be.at.least(2);
      for (const { address, port } of ours) {
        expect(registered.find((r) => r.port === port), `${address}:${port}`).to.deep.equal({ port, listeningAlready: false });
        expect(address, `${port} listens on`).to.be.oneOf(['127.0.0.1', '[::1]']);
      }
      for (const { port } of registered) expect(ownPorts.has(port), String(port)).to.equal(true);
    } finally {
      await session.quit();
    }
    for (const { port } of registered) expect(ownPorts.has(port), `${port} after quit`).to.equal(false);
  });
});
