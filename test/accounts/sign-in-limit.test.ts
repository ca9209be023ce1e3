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

    it('admits no more than the limit from a burst of parallel attempts: each is counted as it arrives', async () => {
      const limit = new SignInLimit(new SignInFailuresSql(m.db), { maxFailures: 3, windowMs: 60_000, now: () => now });
      const burst = await Promise.all(Array.from({ length: 8 }, () => limit.begin('198.51.100.9')));
      expect(burst.filter((a) => a.allowed).length).to.be.at.most(3);
      const recorded = await new SignInFailuresSql(m.db).countSince(clientBucket('198.51.100.9'), 0);
      expect(recorded, 'refused attempts are not counted').to.be.at.most(3);
    });

    it('refuses past the limit with the true wait, forgives only successes, and admits again once failures leave the window', async () => {
      const limit = new SignInLimit(new SignInFailuresSql(m.db), { maxFailures: 3, windowMs: 60_000, now: () => now });
      for (let i = 0; i < 3; i++) expect((await limit.begin('198.51.100.1')).allowed).to.equal(true);
      expect(await limit.begin('198.51.100.1')).to.deep.equal({ allowed: false, retryAfterSeconds: 60 });
      now += 30_000;
      expect(await limit.begin('198.51.100.1')).to.deep.equal({ allowed: false, retryAfterSeconds: 30 });
      const other = await limit.begin('198.51.100.2');
      expect(other.allowed).to.equal(true);
      if (other.allowed) await other.succeeded();
      for (let i = 0; i < 3; i++) expect((await limit.begin('198.51.100.2')).allowed, 'a success is not counted').to.equal(true);
      expect((await limit.begin('198.51.100.2')).allowed).to.equal(false);
      now += 30_001;
      expect((await limit.begin('198.51.100.1')).allowed, 'the failures left the window').to.equal(true);
    });

    it('tells a client over the limit the wait until it may really try again', async () => {
      const sql = new SignInFailuresSql(m.db);
      // Five failures a second apart (more than the limit: left by a burst counted on two instances).
      for (let i = 0; i < 5; i++) await sql.record('198.51.100.20', now - 5_000 + i * 1_000);
      const limit = new SignInLimit(sql, { maxFailures: 3, windowMs: 60_000, now: () => now });
      // Three of the five must leave the window: the third oldest, at now - 3 s, leaves in 57 s.
      expect(await limit.begin('198.51.100.20')).to.deep.equal({ allowed: false, retryAfterSeconds: 57 });
    });
  });
}
