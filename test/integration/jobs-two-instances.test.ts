import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { TestStore } from '../helpers/keys.js';
import { booksBalance, ledgerRows } from '../helpers/ledger-checks.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';
import { TestRedis } from '../helpers/test-redis.js';

const mysql = testDatabases().find((d) => d.name === 'mysql');

/**
 * Two instances on one Redis and one MySQL share a batch's work. One is SIGKILLed mid-batch: its
 * items run again on the other (BullMQ's stalled entries), none is charged twice, the books balance.
 */
(mysql ? describe : describe.skip)('jobs: two instances on one Redis, one SIGKILLed mid-batch (mysql)', function () {
  this.timeout(240_000);
  let own: { url: string; drop: () => Promise<void> };
  let store: TestStore;
  let redis: TestRedis;
  let target: TargetServer;
  const servers: ServerProcess[] = [];

  before(async () => {
    own = await mysql!.isolated();
    store = await TestStore.open(own.url);
    redis = await TestRedis.start();
    target = await new TargetServer().start();
  });
  after(async () => {
    for (const server of servers) await server.kill();
    await redis?.kill();
    await target?.stop();
    await store?.close();
    await own?.drop();
  });

  it('completes the batch on the survivor, each item charged once', async () => {
    const env = { DATABASE_URL: own.url, REDIS_URL: redis.url, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '0', JOB_STALLED_SECONDS: '2', JOB_WORKERS: '8' };
    const [a, b] = await Promise.all([new ServerProcess(env).start(), new ServerProcess(env).start()]);
    servers.push(a, b);
    const key = await store.key({ credits: 100_000 });
    const urls = Array.from({ length: 400 }, (_, i) => target.url(`/slow?ms=${i % 4 === 0 ? 400 : 30}&i=${i}`));
    const res = await fetch(`${a.base}/v2/batch/scrape`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ urls, formats: ['rawHtml'] }) });
    const { id } = (await res.json()) as { id: string };
    const status = async (server: ServerProcess) => (await (await fetch(`${server.base}/v2/batch/scrape/${id}?limit=1`, { headers: { 'x-api-key': key } })).json()) as { status: string; completed: number; creditsUsed: number };
    // Both instances take items: the one to die holds some when it dies.
    const byInstance = async () => (await store.db.knex('request_ledger').select('instance_id').count({ n: '*' }).groupBy('instance_id')) as Array<{ instance_id: string }>;
    await eventually(async () => (await byInstance()).length >= 2 && (await status(b)).completed >= 50, 60_000, 'both instances at work');
    await a.kill();
    await eventually(async () => (await status(b)).status === 'completed', 180_000, 'the survivor to finish the batch');
    const done = await status(b);
    expect(done.completed).to.equal(urls.length);
    const rows = (await ledgerRows(store)).filter((r) => r.outcome === 'charged');
    expect(rows.length).to.equal(urls.length);
    expect(new Set(rows.map((r) => r.request_id)).size).to.equal(urls.length);
    expect(100_000 - (await store.remaining(key))).to.equal(done.creditsUsed);
    expect(await booksBalance(own.url)).to.equal(true);
  });
});
