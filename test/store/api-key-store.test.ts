import { expect } from 'chai';
import { ApiKeyStore, hashApiKey } from '../../src/store/api-key-store.js';
import { addMonths } from '../../src/store/billing-period.js';
import { CreditStore } from '../../src/store/credit-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { LeaseStore } from '../../src/store/lease-store.js';
import { testDatabases } from '../helpers/databases.js';

describe('addMonths', () => {
  it('steps calendar months in UTC and clamps to the month end', () => {
    expect(new Date(addMonths(Date.UTC(2026, 0, 31, 12), 1)).toISOString()).to.equal('2026-02-28T12:00:00.000Z');
    expect(new Date(addMonths(Date.UTC(2026, 10, 22), 1)).toISOString()).to.equal('2026-12-22T00:00:00.000Z');
    expect(new Date(addMonths(Date.UTC(2026, 11, 5), 1)).toISOString()).to.equal('2027-01-05T00:00:00.000Z');
  });
});

for (const database of testDatabases()) {
  describe(`store (${database.name})`, () => {
    let db: Database;
    let now = Date.UTC(2026, 0, 10);
    const clock = () => now;
    before(async () => {
      db = openDatabase(database.freshUrl());
      await migrate(db);
    });
    after(() => db.close());

    it('stores only the SHA-256 of a key (at least 128 random bits) and a short display prefix', async () => {
      const keys = new ApiKeyStore(db.knex, clock);
      const { key, record } = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1 });
      expect(key).to.match(/^sg_[A-Za-z0-9_-]{32}$/);
      const row = await db.knex('api_keys').where({ id: record.id }).first();
      expect(row.key_hash).to.equal(hashApiKey(key));
      expect(JSON.stringify(row)).to.not.contain(key.slice(10));
      expect(row.key_prefix).to.equal(key.slice(0, 10));
    });

    it('resets credits to the plan total when a period ends, with no rollover', async () => {
      const keys = new ApiKeyStore(db.knex, clock);
      const credits = new CreditStore(db.knex);
      const { key, record } = await keys.create({ planName: 'free', credits: 100, maxConcurrency: 1 });
      expect(await credits.reserve(record.id, 30, record.periodEnd)).to.equal(true);
      expect((await keys.findActive(key))?.creditsRemaining).to.equal(70);
      now = Date.UTC(2026, 2, 15); // two periods later
      const fresh = await keys.findActive(key);
      expect(fresh?.creditsRemaining).to.equal(100);
      expect(new Date(fresh!.periodStart).toISOString()).to.equal('2026-03-10T00:00:00.000Z');
      expect(new Date(fresh!.periodEnd).toISOString()).to.equal('2026-04-10T00:00:00.000Z');
      // A refund for a reservation of the old period does not top the new one up.
      await credits.refund(record.id, 30, record.periodEnd);
      expect((await keys.findActive(key))?.creditsRemaining).to.equal(100);
    });

    it('refunds into the same period without exceeding the total', async () => {
      const keys = new ApiKeyStore(db.knex, clock);
      const credits = new CreditStore(db.knex);
      const { key, record } = await keys.create({ planName: 'startup', credits: 50, maxConcurrency: null });
      expect(await credits.reserve(record.id, 20, record.periodEnd)).to.equal(true);
      expect(await credits.reserve(record.id, 40, record.periodEnd)).to.equal(false);
      await credits.refund(record.id, 20, record.periodEnd);
      await credits.refund(record.id, 20, record.periodEnd);
      expect((await keys.findActive(key))?.creditsRemaining).to.equal(50);
    });

    it('debits an active uncapped key in one statement, and refuses every other case without a change', async () => {
      const keys = new ApiKeyStore(db.knex, clock);
      const credits = new CreditStore(db.knex);
      const paid = await keys.create({ planName: 'startup', credits: 50, maxConcurrency: null });
      const capped = await keys.create({ planName: 'free', credits: 50, maxConcurrency: 1 });
      const revoked = await keys.create({ planName: 'startup', credits: 50, maxConcurrency: null });
      await keys.revoke(revoked.key);
      const at = now;
      expect(await credits.debitUncapped(hashApiKey(paid.key), 20, at)).to.equal(true);
      expect(await credits.debitUncapped(hashApiKey(paid.key), 31, at), 'more than remains').to.equal(false);
      expect(await credits.debitUncapped(hashApiKey(capped.key), 1, at), 'a capped plan takes the lease path').to.equal(false);
      expect(await credits.debitUncapped(hashApiKey(revoked.key), 1, at), 'revoked').to.equal(false);
      expect(await credits.debitUncapped(hashApiKey('sg_unknown'), 1, at), 'unknown').to.equal(false);
      expect(await credits.debitUncapped(hashApiKey(paid.key), 1, paid.record.periodEnd), 'the period has ended').to.equal(false);
      expect((await keys.findActive(paid.key))?.creditsRemaining).to.equal(30);
      expect((await keys.findActive(capped.key))?.creditsRemaining).to.equal(50);
      // A refund lands in the period that held the debit, never above the total.
      await credits.refundUncapped(hashApiKey(paid.key), 20, at);
      await credits.refundUncapped(hashApiKey(paid.key), 20, at);
      expect((await keys.findActive(paid.key))?.creditsRemaining).to.equal(50);
      await credits.refundUncapped(hashApiKey(paid.key), 5, paid.record.periodEnd + 1);
      expect((await keys.findActive(paid.key))?.creditsRemaining).to.equal(50);
    });

    it('revokes by key or by display prefix, and a revoked key is no longer found', async () => {
      const keys = new ApiKeyStore(db.knex, clock);
      const a = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1 });
      const b = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1 });
      expect((await keys.revoke(a.key))?.revokedAt).to.equal(now);
      expect(await keys.findActive(a.key)).to.equal(undefined);
      expect((await keys.revoke(b.record.prefix))?.id).to.equal(b.record.id);
      expect(await keys.findActive(b.key)).to.equal(undefined);
    });

    it('gives out at most maxConcurrency leases, and an expired one can be taken over', async () => {
      const keys = new ApiKeyStore(db.knex, clock);
      const leases = new LeaseStore(db.knex, clock);
      const { record } = await keys.create({ planName: 'team', credits: 10, maxConcurrency: 2 });
      const first = await leases.acquire(record.id, 2, 1000);
      const second = await leases.acquire(record.id, 2, 1000);
      expect(first && second).to.not.equal(undefined);
      expect(await leases.acquire(record.id, 2, 1000)).to.equal(undefined);
      await leases.release(first!);
      expect(await leases.acquire(record.id, 2, 1000)).to.not.equal(undefined);
      now += 1001;
      expect(await leases.acquire(record.id, 2, 1000)).to.not.equal(undefined);
    });
  });
}
