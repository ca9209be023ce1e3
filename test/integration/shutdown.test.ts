import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { addBrowserPages } from '../helpers/browser-pages.js';
import { livingIn, sessionGroupsOf } from '../helpers/chromium-processes.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';

interface Answer {
  status: number;
  cost: number;
  detail?: string;
}

/**
 * SIGTERM with requests in flight, on the real server with a browser pool: what finishes within
 * SHUTDOWN_GRACE_SECONDS is answered and charged, what does not is failed uncharged, leases are
 * released, every browser quits, the log is flushed and the process exits 0.
 */
for (const database of testDatabases()) {
  describe(`graceful shutdown on SIGTERM (${database.name})`, function () {
    this.timeout(90_000);
    let target: TargetServer;
    let store: TestStore;
    let databaseUrl: string;
    before(async () => {
      target = await new TargetServer().start();
      addBrowserPages(target);
      databaseUrl = database.freshUrl();
      store = await TestStore.open(databaseUrl);
    });
    after(async () => {
      await target?.stop();
      await store?.close();
    });

    async function scrape(server: ServerProcess, key: string, query: Array<[string, string]>): Promise<Answer> {
      const res = await fetch(`${server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ...query])}`);
      const body = await res.text();
      return {
        status: res.status,
        cost: Number(res.headers.get('svc-credits-cost') ?? 0),
        detail: res.status === 200 ? undefined : (JSON.parse(body) as { detail: string }).detail,
      };
    }

    async function serverWith(graceSeconds: number): Promise<ServerProcess> {
      return new ServerProcess({ DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '1', SHUTDOWN_GRACE_SECONDS: String(graceSeconds) }).start();
    }

    /** Sends SIGTERM once the target has seen `inFlight` requests arrive, and waits for the exit code. */
    async function terminateWhen(server: ServerProcess, path: string, inFlight: number, seenBefore: number): Promise<{ code: number | null; stoppedAt: number }> {
      const seen = () => target.requestsTo(path).length - seenBefore;
      for (let i = 0; i < 400 && seen() < inFlight; i++) await sleep(25);
      expect(seen(), `requests to ${path} in flight`).to.be.at.least(inFlight);
      const groups = sessionGroupsOf(server.pid);
      expect(groups).to.have.length(1);
      const exited = server.signal('SIGTERM');
      // New connections are refused once draining starts.
      await sleep(300);
      const late = await fetch(`${server.base}/healthz`).then((r) => r.status, (err: Error) => err.name);
      expect(late).to.not.equal(200);
      const code = await exited;
      // Killed before the exit; on a loaded machine the last ones can take a moment to be gone.
      for (let i = 0; i < 50 && livingIn(groups).length > 0; i++) await sleep(100);
      expect(livingIn(groups), 'browser processes left by the stopped server').to.deep.equal([]);
      return { code, stoppedAt: Date.now() };
    }

    it('lets requests in flight finish within the grace period, charges them once, then quits every browser and exits 0', async () => {
      const server = await serverWith(10);
      const free = await store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
      const paid = await store.key();
      const [freeBefore, paidBefore] = [await store.remaining(free), await store.remaining(paid)];
      const seenBefore = target.requestsTo('/slow').length;
      const answers = Promise.all([
        scrape(server, free, [['url', target.url('/slow?ms=1500')], ['browser', 'false']]),
        scrape(server, paid, [['url', target.url('/slow?ms=1500')], ['browser', 'false']]),
        scrape(server, paid, [['url', target.url('/slow?ms=1500')]]),
      ]);
      const { code } = await terminateWhen(server, '/slow', 3, seenBefore);
      const done = await answers;
      expect(done.map((a) => a.status)).to.deep.equal([200, 200, 200]);
      expect(code).to.equal(0);
      expect(await store.remaining(free)).to.equal(freeBefore - done[0].cost);
      expect(await store.remaining(paid)).to.equal(paidBefore - done[1].cost - done[2].cost);
      expect(await store.leasesOf(free)).to.equal(0);
      const stopped = server.logs.find((l) => l.msg === 'stopped');
      expect(stopped, 'the last log line is flushed before exit').to.include({ finished: 3, cut: 0 });
    });

    it('fails what is still running when the grace period ends, uncharged and with its lease released', async () => {
      const server = await serverWith(1);
      const free = await store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
      const paid = await store.key();
      const [freeBefore, paidBefore] = [await store.remaining(free), await store.remaining(paid)];
      const started = Date.now();
      const seenBefore = target.requestsTo('/slow').length;
      const answers = Promise.all([
        scrape(server, free, [['url', target.url('/slow?ms=20000')], ['browser', 'false']]),
        scrape(server, paid, [['url', target.url('/slow?ms=20000')]]),
      ]);
      const { code, stoppedAt } = await terminateWhen(server, '/slow', 2, seenBefore);
      const done = await answers;
      expect(code).to.equal(0);
      expect(stoppedAt - started, 'exit after the 1 s grace, not the 20 s target').to.be.below(12_000);
      for (const answer of done) {
        expect(answer.status).to.equal(500);
        expect(answer.detail).to.match(/shutting down.*not charged/);
      }
      expect(await store.remaining(free)).to.equal(freeBefore);
      expect(await store.remaining(paid)).to.equal(paidBefore);
      expect(await store.leasesOf(free)).to.equal(0);
      expect(server.logs.find((l) => l.msg === 'stopped')).to.include({ cut: 2 });
    });
  });
}
