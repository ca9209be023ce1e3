import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { hashApiKey } from '../../src/billing/billing.js';
import type { LedgerEntry } from '../../src/billing/billing-store.js';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { testDatabases } from '../helpers/databases.js';

const entry = (settleLimitMs = 60_000): LedgerEntry => ({
  requestId: randomUUID(), instanceId: 'test', operation: 'v2GeneralGet', engine: 'plain', proxyType: 'datacenter',
  proxyCountry: null, targetHost: 'example.com', settleLimitMs,
});
const settlement = { endedAt: 0, status: 200, pageStatus: 200, durationMs: 5, failure: null, proxyCountry: 'US' };

/**
 * What each statement (MySQL: statement or procedure; SQLite: transaction) does on its own.
 * test/billing/billing.test.ts runs the rules built on them against this store too.
 */
for (const database of testDatabases()) {
  describe(`SqlBillingStore (${database.name})`, () => {
    let db: Database;
    let store: SqlBillingStore;
    let keys: ApiKeyStore;
    const now = Date.now();
    const off = { allowance: 0, windowMs: 3_600_000 };
    const plain = (cost: number, at = now) => ({ cost, budgeted: false, at });
    before(async () => {
      db = openDatabase(database.freshUrl());
      await migrate(db);
      store = new SqlBillingStore(db);
      keys = new ApiKeyStore(db.knex, () => now);
    });
    after(() => db.close());
    const row = (requestId: string) => db.knex('request_ledger').where({ request_id: requestId }).first();

    it('reserves an active uncapped key in its period, debit and ledger row together, and changes nothing in every other case', async () => {
      const paid = await keys.create({ planName: 'startup', credits: 50, maxConcurrency: null });
      const capped = await keys.create({ planName: 'free', credits: 50, maxConcurrency: 1 });
      const revoked = await keys.create({ planName: 'startup', credits: 50, maxConcurrency: null });
      await keys.revoke(revoked.key);
      const e = entry();
      expect(await store.reserveByHash(hashApiKey(paid.key), plain(20), off, e)).to.equal(true);
      expect(await row(e.requestId)).to.include({ outcome: 'reserved', target_host: 'example.com', operation: 'v2GeneralGet', instance_id: 'test' });
      for (const [k, debit, why] of [
        [paid.key, plain(31), 'more than remains'], [capped.key, plain(1), 'a capped plan takes the slot path'], [revoked.key, plain(1), 'revoked'],
        ['sg_unknown', plain(1), 'unknown'], [paid.key, plain(1, paid.record.periodEnd), 'the period has ended'],
      ] as const) {
        const refused = entry();
        expect(await store.reserveByHash(hashApiKey(k), debit, off, refused), why).to.equal(false);
        expect(await row(refused.requestId), `${why}: no ledger row`).to.equal(undefined);
      }
      expect((await keys.find(paid.key))?.creditsRemaining).to.equal(30);
      const again = await store.reserveByHash(hashApiKey(paid.key), plain(1), off, e).catch((err: unknown) => err);
      expect(again, 'a request id reserves once').to.be.instanceOf(Error);
      expect((await keys.find(paid.key))?.creditsRemaining, 'and its debit went with it').to.equal(30);
    });

    it('charges once within its window on the database clock, refunds once into the period, and a settled row stays settled', async () => {
      const { key } = await keys.create({ planName: 'startup', credits: 100, maxConcurrency: null });
      const charged = entry();
      const refunded = entry();
      const late = entry();
      for (const e of [charged, refunded, late]) expect(await store.reserveByHash(hashApiKey(key), plain(10), off, e)).to.equal(true);
      expect(await store.charge(charged.requestId, settlement, 30_000, 5_000)).to.equal(true);
      expect(await store.charge(charged.requestId, settlement, 30_000, 5_000), 'charged once').to.equal(false);
      expect(await store.refund(charged.requestId, settlement, false, 'request'), 'a charged row is never refunded').to.equal(false);
      expect(await store.refund(refunded.requestId, { ...settlement, status: 404 }, false, 'request')).to.equal(true);
      expect(await store.refund(refunded.requestId, settlement, false, 'reconcile'), 'refunded once').to.equal(false);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await store.charge(late.requestId, settlement, 10, 5_000), 'its window closed').to.equal(false);
      expect(await row(charged.requestId)).to.include({ outcome: 'charged', status_sent: 200, page_status: 200, proxy_country: 'US', settled_by: 'request' });
      expect(await row(refunded.requestId)).to.include({ outcome: 'refunded', status_sent: 404 });
      expect(await store.outcomeOf(late.requestId, 1_000)).to.equal('reserved');
      expect((await keys.find(key))?.creditsRemaining).to.equal(80);
    });

    it('refunds a request whose period closed meanwhile into that period, not the new one', async () => {
      const { key, record } = await keys.create({ planName: 'startup', credits: 100, maxConcurrency: null });
      const e = entry();
      await store.reserveByHash(hashApiKey(key), plain(40), off, e);
      await store.rollPeriod(record.id, record.periodEnd, { start: record.periodEnd, end: record.periodEnd + 1 }, now);
      await store.rollPeriod(record.id, record.periodEnd, { start: record.periodEnd, end: record.periodEnd + 1 }, now);
      expect(await keys.find(key)).to.include({ creditsRemaining: 100, periodStart: record.periodEnd });
      expect(await store.refund(e.requestId, settlement, false, 'request')).to.equal(true);
      expect((await keys.find(key))?.creditsRemaining).to.equal(100);
      const closed = await db.knex('key_periods').where({ api_key_id: record.id });
      expect(closed.map((p: { credits_remaining: number | string }) => Number(p.credits_remaining)), 'one closed period, given its 40 back').to.deep.equal([100]);
    });

    it('counts a browser request in its window, a failure in the window of its request, and refuses past the budget', async () => {
      const { key } = await keys.create({ planName: 'startup', credits: 1000, maxConcurrency: null });
      const hash = hashApiKey(key);
      const budget = { allowance: 3, windowMs: 3_600_000 };
      const browser = (at = now) => ({ cost: 10, budgeted: true, at });
      for (let i = 0; i < 3; i++) {
        const e = entry();
        expect(await store.reserveByHash(hash, browser(), budget, e)).to.equal(true);
        await store.refund(e.requestId, settlement, true, 'request');
      }
      expect(await store.reserveByHash(hash, browser(), budget, entry())).to.equal(false);
      expect(await keys.find(key)).to.include({ browserWindowStart: now, browserAttempts: 3, browserFailures: 3, creditsRemaining: 1000 });
      const old = entry();
      expect(await store.reserveByHash(hash, plain(1), budget, old)).to.equal(true);
      const later = now + 3_600_000;
      const e = entry();
      // A new window opens (the debit's own `at` is past the old window), within the same period.
      expect(await store.reserveByHash(hash, browser(later), budget, e)).to.equal(true);
      await store.refund(old.requestId, settlement, true, 'request'); // a plain request's failure is never counted
      expect(await keys.find(key)).to.include({ browserWindowStart: later, browserAttempts: 1, browserFailures: 0 });
    });

    it('never reserves an IP-restricted key by its hash, alone or in a batch; by its id (once its caller is admitted) it does', async () => {
      const restricted = await keys.create({ planName: 'startup', credits: 50, maxConcurrency: null, allowedIps: ['127.0.0.2'] });
      const hash = hashApiKey(restricted.key);
      const alone = entry();
      expect(await store.reserveByHash(hash, plain(1), off, alone)).to.equal(false);
      // Several in one moment: MySQL sends them as one batch procedure call, SQLite as one group commit.
      const crowd = Array.from({ length: 5 }, () => entry());
      expect(await Promise.all(crowd.map((e) => store.reserveByHash(hash, plain(1), off, e)))).to.deep.equal([false, false, false, false, false]);
      for (const e of [alone, ...crowd]) expect(await row(e.requestId)).to.equal(undefined);
      expect((await keys.find(restricted.key))?.creditsRemaining).to.equal(50);
      const byId = entry();
      expect(await store.reserveById(restricted.record.id, restricted.record.periodEnd, plain(5), off, byId)).to.equal(true);
      expect(await row(byId.requestId)).to.include({ outcome: 'reserved', cost: 5 });
      expect((await keys.find(restricted.key))?.creditsRemaining).to.equal(45);
      // Lifted: the key is the hot path's again.
      await keys.setAllowedIps(restricted.key, []);
      expect(await store.reserveByHash(hash, plain(1), off, entry())).to.equal(true);
      expect((await store.findKey(hash))?.allowedIps).to.deep.equal([]);
    });

    it('gives a slot to one lease at a time, frees it only for its own lease, and lets an expired one be taken over', async () => {
      const { record } = await keys.create({ planName: 'team', credits: 10, maxConcurrency: 1 });
      const lease = (id: string) => ({ apiKeyId: record.id, slot: 0, leaseId: id });
      expect(await store.takeSlot(lease('a'), now + 1000, now)).to.equal(true);
      expect(await store.takeSlot(lease('b'), now + 1000, now)).to.equal(false);
      await store.releaseSlot(lease('b'));
      expect(await store.takeSlot(lease('c'), now + 1000, now), 'b held nothing to free').to.equal(false);
      expect(await store.takeSlot(lease('d'), now + 2001, now + 1001), 'a expired').to.equal(true);
      await store.releaseSlot(lease('d'));
      expect(await store.takeSlot(lease('e'), now + 1000, now)).to.equal(true);
    });
  });
}
