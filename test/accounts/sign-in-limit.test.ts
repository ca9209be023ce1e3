import { expect } from 'chai';
import { clientBucket, SignInLimit } from '../../src/accounts/sign-in-limit.js';
import { SignInFailuresSql } from '../../src/store/sign-in-failures-sql.js';
import { testDatabases } from '../helpers/databases.js';
import { useMigratedDatabase } from '../helpers/migrated-database.js';

describe('sign-in limit buckets (clientBucket)', () => {
  it('counts an IPv4 client by its address and an IPv6 one by its /64', () => {
    expect(clientBucket('203.0.113.9')).to.equal('203.0.113.9');
    expect(clientBucket('::ffff:203.0.113.9')).to.equal('203.0.113.9');
    expect(clientBucket('2001:db8:1:2:3:4:5:6')).to.equal(clientBucket('2001:db8:1:2:ffff::1'));
    expect(clientBucket('2001:db8:1:2::1')).not.to.equal(clientBucket('2001:db8:1:3::1'));
  });
});

for (const database of testDatabases()) {
  describe(`the sign-in limit (${database.name})`, () => {
    const m = useMigratedDatabase(database);
    let now = 1_800_000_000_000;

    it('answers at most the limit of a burst of parallel failures as plain failures: each is counted as it arrives', async () => {
      const limit = new SignInLimit(new SignInFailuresSql(m.db), { maxFailures: 3, windowMs: 60_000, now: () => now });
      const burst = await Promise.all(Array.from({ length: 8 }, () => limit.failed('198.51.100.9')));
      const plain = burst.filter((wait) => wait === undefined).length;
      expect(plain).to.be.at.most(3);
      const recorded = await new SignInFailuresSql(m.db).countSince(clientBucket('198.51.100.9'), 0);
      expect(recorded, 'the plain failures are counted, the refused ones not').to.equal(plain);
    });

    it('never counts a right secret, however many come at once', async () => {
      const limit = new SignInLimit(new SignInFailuresSql(m.db), { maxFailures: 3, windowMs: 60_000, now: () => now });
      for (let i = 0; i < 2; i++) expect(await limit.failed('198.51.100.30')).to.equal(undefined);
      const rights = await Promise.all(Array.from({ length: 20 }, () => limit.blocked('198.51.100.30')));
      expect(rights).to.deep.equal(Array(20).fill(undefined));
      expect(await new SignInFailuresSql(m.db).countSince(clientBucket('198.51.100.30'), 0)).to.equal(2);
    });

    it('refuses past the limit with the true wait, and admits again once failures leave the window', async () => {
      const limit = new SignInLimit(new SignInFailuresSql(m.db), { maxFailures: 3, windowMs: 60_000, now: () => now });
      for (let i = 0; i < 3; i++) expect(await limit.failed('198.51.100.1'), 'the third failure is still a 401').to.equal(undefined);
      expect(await limit.failed('198.51.100.1')).to.equal(60);
      expect(await limit.blocked('198.51.100.1'), 'the right secret waits too').to.equal(60);
      now += 30_000;
      expect(await limit.failed('198.51.100.1')).to.equal(30);
      expect(await limit.blocked('198.51.100.2'), 'another client').to.equal(undefined);
      now += 30_001;
      expect(await limit.blocked('198.51.100.1'), 'the failures left the window').to.equal(undefined);
      expect(await limit.failed('198.51.100.1'), 'refused attempts were not counted').to.equal(undefined);
    });

    it('tells a client over the limit the wait until it may really try again', async () => {
      const sql = new SignInFailuresSql(m.db);
      // Five failures a second apart (more than the limit: left by a burst counted on two instances).
      for (let i = 0; i < 5; i++) await sql.record('198.51.100.20', now - 5_000 + i * 1_000);
      const limit = new SignInLimit(sql, { maxFailures: 3, windowMs: 60_000, now: () => now });
      // Three of the five must leave the window: the third oldest, at now - 3 s, leaves in 57 s.
      expect(await limit.blocked('198.51.100.20')).to.equal(57);
      expect(await limit.failed('198.51.100.20'), 'a sixth failure is refused as well').to.equal(57);
    });
  });
}
