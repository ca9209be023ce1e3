import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { hashApiKey } from '../../src/billing/billing.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { migrationSource } from '../../src/store/migrations/index.js';
import { testDatabases } from '../helpers/databases.js';

const entry = () => ({
  requestId: randomUUID(), instanceId: 'test', operation: 'v2GeneralGet', engine: 'plain', proxyType: 'datacenter',
  proxyCountry: null, targetHost: 'example.com', settleLimitMs: 60_000,
});
const off = { allowance: 0, windowMs: 3_600_000 };

/**
 * Migration 005 on a database of its own, from nothing: every migration up, 005 down (the
 * reservation as 004 left it, the column gone), and up again. On MySQL the debit by hash lives in
 * two procedures, recreated each way; both must work at every step, alone and batched.
 */
for (const database of testDatabases()) {
  describe(`migration 005-allowed-ips (${database.name})`, function () {
    this.timeout(60_000);
    let db: Database;
    let drop: () => Promise<void>;
    before(async () => {
      const own = await database.isolated();
      drop = own.drop;
      db = openDatabase(own.url);
    });
    after(async () => {
      await db?.close();
      await drop?.();
    });

    const addKey = async (extra: Record<string, unknown> = {}) => {
      const key = `sg_${randomUUID()}`;
      const now = Date.now();
      await db.knex('api_keys').insert({
        key_hash: hashApiKey(key), key_prefix: key.slice(0, 10), plan_name: 'test', credits_total: 100, credits_remaining: 100,
        max_concurrency: null, period_start: now - 1000, period_end: now + 3_600_000, created_at: now, revoked_at: null, ...extra,
      });
      return hashApiKey(key);
    };
    /** One reservation alone, then three at once (a batch on MySQL). */
    const reserves = async (hash: string) => {
      const store = new SqlBillingStore(db);
      const debit = { cost: 1, budgeted: false, at: Date.now() };
      const alone = await store.reserveByHash(hash, debit, off, entry());
      const crowd = await Promise.all([1, 2, 3].map(() => store.reserveByHash(hash, debit, off, entry())));
      return [alone, ...crowd];
    };
    const hasColumn = () => db.knex.schema.hasColumn('api_keys', 'allowed_ips');

    it('adds allowed_ips, and the debit by hash takes only keys where it is NULL', async () => {
      await migrate(db);
      expect(await hasColumn()).to.equal(true);
      expect(await reserves(await addKey())).to.deep.equal([true, true, true, true]);
      expect(await reserves(await addKey({ allowed_ips: '["127.0.0.2/32"]' }))).to.deep.equal([false, false, false, false]);
    });

    it('goes down to what 004 left (no column, every uncapped key by hash) and up again', async () => {
      // Every later migration, then 005 itself.
      for (;;) {
        const [done] = (await db.knex.migrate.list({ migrationSource })) as [Array<string | { name: string }>, unknown];
        const last = done.at(-1);
        if ((typeof last === 'string' ? last : last?.name) === '004-ledger-batches') break;
        await db.knex.migrate.down({ migrationSource });
      }
      expect(await hasColumn()).to.equal(false);
      // SQLite's statement is this version's code, which needs the column; MySQL's are the schema's.
      if (database.name === 'mysql') expect(await reserves(await addKey()), 'the procedures no longer read the column').to.deep.equal([true, true, true, true]);
      await migrate(db);
      expect(await hasColumn()).to.equal(true);
      expect(await reserves(await addKey({ allowed_ips: '["::1/128"]' }))).to.deep.equal([false, false, false, false]);
      expect(await reserves(await addKey())).to.deep.equal([true, true, true, true]);
    });
  });
}
