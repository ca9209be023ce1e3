import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashApiKey } from '../../src/billing/billing.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { booksBalance, ledgerRows, unsettled } from '../helpers/ledger-checks.js';
import { ServerProcess } from '../helpers/server-process.js';

const mysql = testDatabases().find((d) => d.name === 'mysql');
const PER_KEY = 1_500;

/**
 * Reconciliation with two instances on one MySQL database, each SIGKILLed in turn while both
 * refund the same backlog of abandoned reservations (as after a crash loop). The refund of a row
 * only succeeds while it is still reserved, so however the kills fall, every row is refunded
 * exactly once: the balances come out exact, and a row charged before stays charged.
 */
(mysql ? describe : describe.skip)('reconciliation: two instances on MySQL killed in turn while both reconcile', function () {
  this.timeout(180_000);
  let own: { url: string; drop: () => Promise<void> };
  let store: TestStore;

  before(async () => {
    own = await mysql!.isolated();
    store = await TestStore.open(own.url);
  });
  after(async () => {
    await store?.close();
    await own?.drop();
  });

  it(`refunds each of ${3 * PER_KEY} abandoned reservations once`, async () => {
    const billing = new SqlBillingStore(store.db);
    const off = { allowance: 0, windowMs: 3_600_000 };
    const initial = 100_000;
    const keys = [await store.key({ credits: initial }), await store.key({ credits: initial }), await store.key({ planName: 'startup', credits: initial })];
    const costs = [1, 10, 25];
    const chargedCredits = [0, 0, 0];
    // Abandoned reservations, past their settle limit at once; every tenth charged first (those
    // stay charged). Made ten at a time per key, all keys at once: one by one took 15 s.
    const reserve = async (k: number, i: number) => {
      const requestId = randomUUID();
      const entry = { requestId, instanceId: 'crashed', operation: 'v2GeneralGet', engine: 'plain', proxyType: 'datacenter', proxyCountry: null, targetHost: 'example.com', settleLimitMs: i % 10 === 0 ? 60_000 : 1 };
      expect(await billing.reserveByHash(hashApiKey(keys[k]), { cost: costs[k], budgeted: false, at: Date.now() }, off, entry)).to.equal(true);
      if (i % 10 === 0) {
        expect(await billing.charge(requestId, { endedAt: Date.now(), status: 200, pageStatus: 200, durationMs: 5, failure: null, proxyCountry: null }, 60_000, 5_000)).to.equal(true);
        chargedCredits[k] += costs[k];
      }
    };
    await Promise.all(keys.map(async (_key, k) => {
      for (let i = 0; i < PER_KEY; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => reserve(k, i + j)));
    }));
    expect(await unsettled(store)).to.equal(3 * PER_KEY * 0.9);

    const env = { DATABASE_URL: own.url, BROWSER_POOL_SIZE: '0', RECONCILE_INTERVAL_SECONDS: '1', RECONCILE_MARGIN_SECONDS: '0' };
    const instances = await Promise.all([new ServerProcess(env).start('listening'), new ServerProcess(env).start('listening')]);
    const all = [...instances];
    const left: number[] = [];
    for (let round = 0; round < 6; round++) {
      const which = round % 2;
      await sleep(100 + Math.random() * 300);
      await instances[which].kill();
      left.push(await unsettled(store));
      instances[which] = await new ServerProcess(env).start('listening');
      all.push(instances[which]);
    }
    const deadline = Date.now() + 60_000;
    while ((await unsettled(store)) > 0 && Date.now() < deadline) await sleep(250);
    await Promise.all(instances.map((i) => i.stop()));

    expect(await unsettled(store), 'reservations left').to.equal(0);
    const rows = await ledgerRows(store);
    for (const [k, key] of keys.entries()) {
      const record = (await store.keys.find(key))!;
      expect(initial - record.creditsRemaining, `key ${k}: credits spent`).to.equal(chargedCredits[k]);
      const mine = rows.filter((r) => r.api_key_id === record.id);
      expect(mine.filter((r) => r.outcome === 'charged').length).to.equal(PER_KEY / 10);
      expect(mine.filter((r) => r.outcome === 'refunded').length).to.equal(PER_KEY * 0.9);
    }
    // What the instances say they refunded never exceeds the rows (a killed one may not have said it).
    const said = all.flatMap((i) => i.logs).filter((l) => typeof l.msg === 'string' && l.msg.startsWith('reconciled:')).reduce((sum, l) => sum + Number(l.count), 0);
    expect(said).to.be.at.most(3 * PER_KEY * 0.9);
    expect(await booksBalance(own.url)).to.equal(true);
    console.log(`      reserved left after each kill: ${left.join(', ')}; ${all.length} instances, ${said} refunds reported`);
  });
});
