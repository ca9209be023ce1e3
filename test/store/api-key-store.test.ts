import { expect } from 'chai';
import { hashApiKey } from '../../src/billing/billing.js';
import { InvalidIpEntryError } from '../../src/ip/ip-range.js';
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

    it('stores a key\'s allowed IPs normalized, NULL for anywhere, and replaces or lifts them by key or display prefix', async () => {
      const keys = new ApiKeyStore(db.knex, () => now);
      const column = async (id: number) => (await db.knex('api_keys').where({ id }).first()).allowed_ips as string | null;
      const open = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1, allowedIps: [] });
      expect(open.record.allowedIps).to.deep.equal([]);
      expect(await column(open.record.id), 'an empty list is NULL, as the hot path tests it').to.equal(null);
      const { key, record } = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1, allowedIps: ['127.0.0.2', '203.0.113.7/8', '2001:DB8::/32', '127.0.0.2/32'] });
      expect(record.allowedIps).to.deep.equal(['127.0.0.2/32', '203.0.0.0/8', '2001:db8::/32']);
      expect(JSON.parse((await column(record.id))!)).to.deep.equal(record.allowedIps);
      expect((await keys.find(key))?.allowedIps).to.deep.equal(record.allowedIps);
      expect((await keys.setAllowedIps(record.prefix, ['::ffff:192.0.2.1']))?.allowedIps).to.deep.equal(['192.0.2.1/32']);
      expect((await keys.setAllowedIps(key, []))?.allowedIps).to.deep.equal([]);
      expect(await column(record.id)).to.equal(null);
      expect(await keys.setAllowedIps('sg_nothing', ['127.0.0.1'])).to.equal(undefined);
    });

    it('refuses an allowed IP that is not an address or range, changing nothing', async () => {
      const keys = new ApiKeyStore(db.knex, () => now);
      const before = (await keys.list()).length;
      const refused = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1, allowedIps: ['127.0.0.2', 'localhost'] }).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(InvalidIpEntryError).and.have.property('message').that.contains('"localhost" is not an IP address or CIDR range');
      expect((await keys.list()).length, 'no key created').to.equal(before);
      const { key } = await keys.create({ planName: 'free', credits: 10, maxConcurrency: 1, allowedIps: ['127.0.0.2'] });
      expect(await keys.setAllowedIps(key, ['203.0.113.0/33']).catch((e: unknown) => e)).to.be.instanceOf(InvalidIpEntryError);
      expect((await keys.find(key))?.allowedIps).to.deep.equal(['127.0.0.2/32']);
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
