// A key with a concurrency cap used at its cap from two instances: on MySQL, InnoDB makes some
// lease and balance statements deadlock victims (seen under load), which must be retried, never
// answered 500; test/store/deadlock-retry.test.ts makes a real deadlock to check the retry itself.
import { expect } from 'chai';
import http from 'node:http';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';

describe('a capped key at its cap from two instances on one database', function () {
  this.timeout(120_000);
  let store: TestStore;
  let target: TargetServer;
  const servers: ServerProcess[] = [];
  before(async () => {
    const databaseUrl = process.env.TEST_MYSQL_URL || testDatabases()[0].freshUrl();
    store = await TestStore.open(databaseUrl);
    target = await new TargetServer().start();
    const env = { DATABASE_URL: databaseUrl, BROWSER_POOL_SIZE: '0', ALLOW_PRIVATE_TARGETS: 'true' };
    servers.push(new ServerProcess(env), new ServerProcess(env));
    await Promise.all(servers.map((s) => s.start()));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await target?.stop();
    await store?.close();
  });

  it('answers every request 200 (never 500), leaves no lease and charges each once', async () => {
    const key = await store.key({ planName: 'team', credits: 100_000, maxConcurrency: 16 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      for (let i = next++; i < 2000; i = next++) {
        const url = `${servers[i % 2].base}/v2/general?x-api-key=${key}&browser=false&url=${encodeURIComponent(target.url('/page'))}`;
        const status = await new Promise<number>((resolve, reject) =>
          http.get(url, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0))).on('error', reject));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }));
    const deadlocks = servers.flatMap((s) => s.logs).filter((l) => JSON.stringify(l).includes('ER_LOCK_DEADLOCK')).length;
    expect({ statuses: Object.fromEntries(statuses), deadlocks }).to.deep.equal({ statuses: { 200: 2000 }, deadlocks: 0 });
    expect(await store.leasesOf(key)).to.equal(0);
    expect(await store.remaining(key)).to.equal(100_000 - 2000);
  });
});
