import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../helpers/eventually.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { ServerProcess } from '../helpers/server-process.js';
import { useSuite } from '../helpers/suite.js';

for (const database of testDatabases()) {
  describe(`credits and concurrency (${database.name})`, () => {
    const s = useSuite(database, { LEASE_GRACE_SECONDS: '1' });
    const plain = (key: string, path: string, extra: Array<[string, string]> = []) =>
      s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(path)], ['browser', 'false'], ...extra]);

    it('charges exactly once per 200 under 100 parallel requests', async () => {
      const key = await s.store.key({ credits: 1000 });
      const answers = await Promise.all(Array.from({ length: 100 }, () => plain(key, '/page')));
      expect(answers.map((r) => r.status)).to.deep.equal(Array(100).fill(200));
      expect(await s.store.remaining(key)).to.equal(900);
    });

    it('names the ledger row of every billed answer in Svc-request-id: charged for a 200, refunded for a 404', async () => {
      const key = await s.store.key({ credits: 100 });
      const ok = await plain(key, '/page?secret=1');
      const failed = await plain(key, '/loop');
      expect([ok.status, failed.status]).to.deep.equal([200, 404]);
      await expectMatchesSpec('v2GeneralGet', ok, await ok.text());
      await expectMatchesSpec('v2GeneralGet', failed, await failed.json());
      const okId = ok.headers.get('svc-request-id');
      const failedId = failed.headers.get('svc-request-id');
      expect(okId).to.be.a('string').and.not.equal(failedId);
      expect(await s.store.ledgerRow(okId!)).to.deep.equal({ outcome: 'charged', cost: 1, statusSent: 200, targetHost: '127.0.0.1' });
      expect(await s.store.ledgerRow(failedId!)).to.deep.equal({ outcome: 'refunded', cost: 1, statusSent: 404, targetHost: '127.0.0.1' });
      // A request refused before billing (no such key) has no row and no id.
      const refused = await plain('no-such-key', '/page');
      expect(refused.status).to.equal(403);
      expect(refused.headers.get('svc-request-id')).to.equal(null);
      expect(await s.store.remaining(key)).to.equal(99);
    });

    it('never overdraws: 100 parallel requests on 40 credits give exactly 40 answers and a zero balance', async () => {
      const key = await s.store.key({ credits: 40 });
      const answers = await Promise.all(Array.from({ length: 100 }, () => plain(key, '/page')));
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((st) => st === 200)).to.have.length(40);
      expect(statuses.filter((st) => st === 403)).to.have.length(60);
      expect(await s.store.remaining(key)).to.equal(0);
    });

    it('lets a free plan run one request at a time: 409 beyond it, and the slot comes back', async () => {
      const key = await s.store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
      const asked = s.target.requestsTo('/slow').length;
      const first = plain(key, '/slow?ms=1500');
      // The first holds the slot once the target has it.
      await eventually(() => s.target.requestsTo('/slow').length > asked, 5_000, 'the first request reached the target');
      const second = await plain(key, '/page');
      const body = await second.json();
      expect(second.status).to.equal(409);
      expect((body as { detail: string }).detail).to.contain('Concurrent request limit');
      await expectMatchesSpec('v2GeneralGet', second, body);
      expect((await first).status).to.equal(200);
      expect(await s.store.leasesOf(key)).to.equal(0);
      expect((await plain(key, '/page')).status).to.equal(200);
      expect(await s.store.remaining(key)).to.equal(10_000 - 2);
    });

    it('releases the slot after a failed request too', async () => {
      const key = await s.store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
      expect((await plain(key, '/loop')).status).to.equal(404);
      expect(await s.store.leasesOf(key)).to.equal(0);
      expect((await plain(key, '/page')).status).to.equal(200);
    });

    it('lets a lease left by a killed server expire on its own', async function () {
      this.timeout(40_000);
      const key = await s.store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
      const env = { DATABASE_URL: s.databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', LEASE_GRACE_SECONDS: '1', BROWSER_POOL_SIZE: '0' };
      // Both up before the lease is taken: a server's start under load could outlast the lease.
      const [doomed, survivor] = await Promise.all([new ServerProcess(env).start(), new ServerProcess(env).start()]);
      const hangingCall = fetch(`${doomed.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', s.target.url('/hang')], ['browser', 'false'], ['timeout', '5']])}`).catch(() => undefined);
      const leaseTakenAt = Date.now();
      while (s.target.requestsTo('/hang').length === 0) await sleep(50);
      await doomed.kill();
      await hangingCall;
      expect(await s.store.leasesOf(key)).to.equal(1);

      try {
        const call = () => fetch(`${survivor.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']])}`);
        expect((await call()).status).to.equal(409);
        let status = 409;
        while (status === 409 && Date.now() - leaseTakenAt < 15_000) {
          await sleep(250);
          status = (await call()).status;
        }
        expect(status).to.equal(200);
        // The lease lived for the request's 5 s deadline (the shortest there is) plus the 1 s
        // grace, and not much longer.
        expect(Date.now() - leaseTakenAt).to.be.within(5_500, 9_000);
        expect(await s.store.leasesOf(key)).to.equal(0);
      } finally {
        await survivor.stop();
      }
    });
  });
}
