import { expect } from 'chai';
import { hashApiKey } from '../../src/billing/billing.js';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { testDatabases } from '../helpers/databases.js';

for (const database of testDatabases()) {
  describe(`ApiKeyStore (${database.name})`, () => {
    let db: Database;
    const now = Date.UTC(2026, 0, 10);
    before(async () => {
      db = openDatabase(database.freshUrl());
      await migrate(db);
    });
    after(() => db.close());

    it('stores only the SHA-256 of a key (at least 128 random bits) and a short display prefix', async () => {
      const keys = new ApiKeyStore(db.knex, () => now);
      const { key, record } = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1 });
      expect(key).to.match(/^sg_[A-Za-z0-9_-]{32}$/);
      const row = await db.knex('api_keys').where({ id: record.id }).first();
      expect(row.key_hash).to.equal(hashApiKey(key));
      expect(JSON.stringify(row)).to.not.contain(key.slice(10));
      expect(row.key_prefix).to.equal(key.slice(0, 10));
      expect(record).to.include({ planName: 'free', creditsTotal: 10, creditsRemaining: 10, maxConcurrency: 1, periodStart: now, revokedAt: null });
    });

    it('revokes by key or by display prefix', async () => {
      const keys = new ApiKeyStore(db.knex, () => now);
      const a = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1 });
      const b = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1 });
      expect((await keys.revoke(a.key))?.revokedAt).to.equal(now);
      expect((await keys.find(a.key))?.revokedAt).to.equal(now);
      expect((await keys.revoke(b.record.prefix))?.id).to.equal(b.record.id);
      expect(await keys.revoke('sg_nothing')).to.equal(undefined);
    });
  });
}
