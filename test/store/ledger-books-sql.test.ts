import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashApiKey } from '../../src/billing/billing.js';
import type { LedgerEntry } from '../../src/billing/billing-store.js';
import { LedgerUpkeep } from '../../src/billing/ledger-upkeep.js';
import { Reconciler } from '../../src/billing/reconciler.js';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { SqlLedgerBooks } from '../../src/store/billing/ledger-books-sql.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { testDatabases } from '../helpers/databases.js';

const DAY_MS = 86_400_000;
const off = { allowance: 0, windowMs: 3_600_000 };
const entry = (settleLimitMs = 60_000): LedgerEntry => ({
  requestId: randomUUID(), instanceId: 'books-test', operation: 'v2GeneralGet', engine: 'plain', proxyType: 'datacenter',
  proxyCountry: null, targetHost: 'example.com', settleLimitMs,
});
const ended = (status: number, durationMs: number) => ({ endedAt: Date.now(), status, pageStatus: status, durationMs, failure: null, proxyCountry: null });

/**
 * The ledger's books on each database: what reconciliation, the daily totals, retention and
 * `billing verify` read and write. Each suite has a database of its own, since the upkeep moves
 * the books of the whole database.
 */
for (const database of testDatabases()) {
  describe(`SqlLedgerBooks (${database.name})`, function () {
    this.timeout(30_000);
    let db: Database;
    let drop: () => Promise<void>;
    let store: SqlBillingStore;
    let books: SqlLedgerBooks;
    let keys: ApiKeyStore;
    before(async () => {
      const isolated = await database.isolated();
      drop = isolated.drop;
      db = openDatabase(isolated.url);
      await migrate(db);
      store = new SqlBillingStore(db);
      books = new SqlLedgerBooks(db);
      keys = new ApiKeyStore(db.knex);
    });
    after(async () => {
      await db?.close();
      await drop?.();
    });
    const reserve = async (key: string, cost: number, e = entry()) => {
      expect(await store.reserveByHash(hashApiKey(key), { cost, budgeted: false, at: Date.now() }, off, e)).to.equal(true);
      return e.requestId;
    };
    const remaining = async (key: string) => (await keys.find(key))!.creditsRemaining;
    const ownDiscrepancies = async (key: string) => {
      const id = (await keys.find(key))!.id;
      return (await books.discrepancies()).filter((d) => d.apiKeyId === id);
    };

    it('finds a reservation stale only once its settle limit and the margin have passed on the database clock, and never a settled one', async () => {
      const { key } = await keys.create({ planName: 'startup', credits: 100, maxConcurrency: null });
      const pending = await reserve(key, 1, entry(400));
      const charged = await reserve(key, 1, entry(400));
      expect(await store.charge(charged, ended(200, 5), 400, 5_000)).to.equal(true);
      expect(await books.staleReservations(300, 100)).to.deep.equal([]);
      await sleep(400 + 300 + 150);
      expect(await books.staleReservations(300, 100)).to.deep.equal([pending]);
    });

    it('is reconciled once per row by instances reconciling at the same time, and the books balance', async () => {
      const { key } = await keys.create({ planName: 'startup', credits: 1_000, maxConcurrency: null });
      await new Reconciler({ store, books, marginMs: 50, intervalMs: 60_000 }).reconcileOnce(); // what earlier tests left
      const stale = [];
      for (let i = 0; i < 30; i++) stale.push(await reserve(key, 3, entry(100)));
      const kept = await reserve(key, 2, entry(60_000));
      expect(await remaining(key)).to.equal(1_000 - 90 - 2);
      await sleep(300);
      const reconcilers = [1, 2, 3].map(() => new Reconciler({ store, books, marginMs: 50, intervalMs: 60_000 }));
      const counts = await Promise.all(reconcilers.map((r) => r.reconcileOnce()));
      expect(counts.reduce((a, n) => a + n, 0)).to.equal(30);
      expect(await remaining(key), 'each stale reservation refunded once').to.equal(1_000 - 2);
      const rows = (await db.knex('request_ledger').whereIn('request_id', stale)) as Array<{ outcome: string; settled_by: string }>;
      expect(rows.map((r) => `${r.outcome} by ${r.settled_by}`)).to.deep.equal(Array(30).fill('refunded by reconcile'));
      expect((await db.knex('request_ledger').where({ request_id: kept }).first())?.outcome, 'still within its limit').to.equal('reserved');
      expect(await ownDiscrepancies(key)).to.deep.equal([]);
    });

    it("frees a slot whose request has settled (its release met an outage), never a running request's", async () => {
      const { key, record } = await keys.create({ planName: 'free', credits: 100, maxConcurrency: 2 });
      const running = entry();
      const settled = entry();
      for (const [slot, e] of [[0, running], [1, settled]] as const) {
        expect(await store.takeSlot({ apiKeyId: record.id, slot, leaseId: e.requestId }, Date.now() + 60_000, Date.now())).to.equal(true);
        expect(await store.reserveById(record.id, record.periodEnd, { cost: 1, budgeted: false, at: Date.now() }, off, e)).to.equal(true);
      }
      await store.charge(settled.requestId, ended(200, 5), 60_000, 5_000);
      expect(await books.releaseSettledSlots(60_000)).to.equal(1);
      const left = (await db.knex('concurrency_leases').where({ api_key_id: record.id })) as Array<{ lease_id: string }>;
      expect(left.map((l) => l.lease_id)).to.deep.equal([running.requestId]);
      expect(await remaining(key)).to.equal(98);
    });

    it('deletes a lease long expired whose request never reserved (it died in between), never one still held', async () => {
      const { record } = await keys.create({ planName: 'free', credits: 100, maxConcurrency: 3 });
      const [orphan, recent, held] = [entry(), entry(), entry()];
      expect(await store.takeSlot({ apiKeyId: record.id, slot: 0, leaseId: orphan.requestId }, Date.now() - 120_000, Date.now() - 180_000)).to.equal(true);
      expect(await store.takeSlot({ apiKeyId: record.id, slot: 1, leaseId: recent.requestId }, Date.now() - 1_000, Date.now() - 60_000)).to.equal(true);
      expect(await store.takeSlot({ apiKeyId: record.id, slot: 2, leaseId: held.requestId }, Date.now() + 60_000, Date.now())).to.equal(true);
      // Expired a minute ago at least: gone. Expired a second ago: within the skew margin, kept.
      expect(await books.releaseSettledSlots(60_000)).to.equal(1);
      const left = (await db.knex('concurrency_leases').where({ api_key_id: record.id }).orderBy('slot')) as Array<{ lease_id: string }>;
      expect(left.map((l) => l.lease_id)).to.deep.equal([recent.requestId, held.requestId]);
    });

    it('names a period whose balance its ledger does not explain', async () => {
      const { key, record } = await keys.create({ planName: 'startup', credits: 100, maxConcurrency: null });
      const id = await reserve(key, 4);
      await store.charge(id, ended(200, 5), 60_000, 5_000);
      expect(await ownDiscrepancies(key)).to.deep.equal([]);
      await db.knex('api_keys').where({ id: record.id }).decrement('credits_remaining', 3);
      expect(await ownDiscrepancies(key)).to.deep.equal([
        { apiKeyId: record.id, prefix: record.prefix, periodStart: record.periodStart, periodEnd: record.periodEnd, consumed: 7, ledger: 4 },
      ]);
    });

    // Last: it moves the upkeep's marks 100 days on, as time would.
    it('totals each day per key (requests by outcome, credits, mean and p95 duration) and prunes rows past retention, the books still balancing', async () => {
      const { key, record } = await keys.create({ planName: 'startup', credits: 10_000, maxConcurrency: null });
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await reserve(key, 7));
      for (const [i, id] of ids.entries()) {
        if (i % 6 === 5) expect(await store.refund(id, ended(404, (i + 1) * 10), false, 'request')).to.equal(true);
        else expect(await store.charge(id, ended(200, (i + 1) * 10), 60_000, 5_000)).to.equal(true);
      }
      const today = new Date().toISOString().slice(0, 10);
      const upkeep = (now: number) => new LedgerUpkeep({ books, retentionMs: 90 * DAY_MS, intervalMs: 60_000, now: () => now });
      await upkeep(Date.now()).runOnce();
      const totals = await db.knex('usage_daily').where({ api_key_id: record.id, day: today }).first();
      expect(totals).to.include({ requests: 30, charged: 25, refunded: 5, status_200: 25, status_404: 5, engine_plain: 30, credits: 25 * 7 });
      expect(Number(totals.duration_ms_total) / 30, 'mean duration').to.equal(155);
      expect(Number(totals.duration_ms_p95)).to.equal(280);
      expect(await db.knex('request_ledger').where({ api_key_id: record.id }).count({ n: '*' }).first()).to.deep.include({ n: 30 });

      // 100 days on: today is totalled for good, its rows are past the 90 days kept, and go.
      await upkeep(Date.now() + 100 * DAY_MS).runOnce();
      const left = await db.knex('request_ledger').where({ api_key_id: record.id }).count({ n: '*' }).first();
      expect(Number(left?.n)).to.equal(0);
      expect(await db.knex('usage_daily').where({ api_key_id: record.id, day: today }).first()).to.include({ requests: 30, credits: 175 });
      expect(await ownDiscrepancies(key), 'the totals carry the pruned credits').to.deep.equal([]);
    });

  });
}
