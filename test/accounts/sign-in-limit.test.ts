import { expect } from 'chai';
import { OperatorAddresses } from '../../src/accounts/operator-addresses.js';
import { clientBucket, SignInLimit, type SignInLimitOptions } from '../../src/accounts/sign-in-limit.js';
import type { Database } from '../../src/store/database.js';
import { OperatorAddressesSql } from '../../src/store/operator-addresses-sql.js';
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

/** The failures' SQL, counting the statements it runs. */
class CountedFailuresSql extends SignInFailuresSql {
  queries = 0;
  override countSince(client: string, since: number) {
    this.queries++;
    return super.countSince(client, since);
  }
  override countAllSince(since: number, cap: number) {
    this.queries++;
    return super.countAllSince(since, cap);
  }
  override record(client: string, at: number) {
    this.queries++;
    return super.record(client, at);
  }
}

for (const database of testDatabases()) {
  describe(`the sign-in limit (${database.name})`, () => {
    const m = useMigratedDatabase(database);
    let now = 1_800_000_000_000;
    const limitOf = (db: Database, options: Partial<SignInLimitOptions> = {}, sql = new SignInFailuresSql(db)) =>
      new SignInLimit(sql, new OperatorAddresses(new OperatorAddressesSql(db), () => now), { maxFailures: 3, windowMs: 60_000, globalMaxFailures: 1000, now: () => now, ...options });
    beforeEach(async () => {
      await m.db.knex('sign_in_failures').delete();
      await m.db.knex('operator_addresses').delete();
    });

    it('answers at most the limit of a burst of parallel failures as plain failures: each is counted as it arrives', async () => {
      const limit = limitOf(m.db);
      const burst = await Promise.all(Array.from({ length: 8 }, () => limit.failed('198.51.100.9')));
      const plain = burst.filter((wait) => wait === undefined).length;
      expect(plain).to.be.at.most(3);
      const recorded = await new SignInFailuresSql(m.db).countSince(clientBucket('198.51.100.9'), 0);
      expect(recorded, 'the plain failures are counted, the refused ones not').to.equal(plain);
    });

    it('never counts a right secret, however many come at once', async () => {
      const limit = limitOf(m.db);
      for (let i = 0; i < 2; i++) expect(await limit.failed('198.51.100.30')).to.equal(undefined);
      const rights = await Promise.all(Array.from({ length: 20 }, () => limit.admit('198.51.100.30')));
      expect(rights).to.deep.equal(Array(20).fill(undefined));
      expect(await new SignInFailuresSql(m.db).countSince(clientBucket('198.51.100.30'), 0)).to.equal(2);
    });

    it('refuses past the limit with the true wait, and admits again once failures leave the window', async () => {
      const limit = limitOf(m.db);
      for (let i = 0; i < 3; i++) expect(await limit.failed('198.51.100.1'), 'the third failure is still a 401').to.equal(undefined);
      expect(await limit.failed('198.51.100.1')).to.deep.equal({ waitSeconds: 60, scope: 'address' });
      expect(await limit.admit('198.51.100.1'), 'the right secret waits too').to.deep.equal({ waitSeconds: 60, scope: 'address' });
      now += 30_000;
      expect(await limit.admit('198.51.100.1')).to.deep.equal({ waitSeconds: 30, scope: 'address' });
      expect(await limit.admit('198.51.100.2'), 'another client').to.equal(undefined);
      now += 30_001;
      expect(await limit.admit('198.51.100.1'), 'the failures left the window').to.equal(undefined);
      expect(await limit.failed('198.51.100.1'), 'refused attempts were not counted').to.equal(undefined);
    });

    it('tells a client over the limit the wait until it may really try again', async () => {
      const sql = new SignInFailuresSql(m.db);
      // Five failures a second apart (more than the limit: left by a burst counted on two instances).
      for (let i = 0; i < 5; i++) await sql.record('198.51.100.20', now - 5_000 + i * 1_000);
      const limit = limitOf(m.db, {}, sql);
      // Three of the five must leave the window: the third oldest, at now - 3 s, leaves in 57 s.
      expect(await limit.admit('198.51.100.20')).to.deep.equal({ waitSeconds: 57, scope: 'address' });
      expect(await limit.failed('198.51.100.20'), 'a sixth failure is refused as well').to.deep.equal({ waitSeconds: 57, scope: 'address' });
    });

    it('remembers a refusal until it ends: a blocked client\'s attempts cost no query', async () => {
      const sql = new CountedFailuresSql(m.db);
      const limit = limitOf(m.db, {}, sql);
      for (let i = 0; i < 3; i++) await limit.failed('198.51.100.40');
      expect(await limit.admit('198.51.100.40')).to.have.property('scope', 'address');
      const before = sql.queries;
      for (let i = 0; i < 50; i++) expect(await limit.admit('198.51.100.40')).to.have.property('scope', 'address');
      expect(sql.queries - before).to.equal(0);
      now += 60_001;
      expect(await limit.admit('198.51.100.40'), 'read again once it ends').to.equal(undefined);
    });

    it('counts every client together: past the global limit only addresses the admin token was used from are admitted, until the failures leave the window', async () => {
      const limit = limitOf(m.db, { globalMaxFailures: 5 });
      await limit.succeeded('198.51.100.77');
      for (let i = 0; i < 5; i++) expect(await limit.failed(`203.0.113.${i}`), `failure ${i} from its own address`).to.equal(undefined);
      expect(limit.globalState()).to.deep.equal({ failures: 5, limited: true });
      expect(await limit.admit('203.0.113.50')).to.deep.equal({ waitSeconds: 60, scope: 'global' });
      expect(await limit.failed('203.0.113.51'), 'one past the limit is taken back').to.deep.equal({ waitSeconds: 60, scope: 'global' });
      expect(await new SignInFailuresSql(m.db).countAllSince(0, 100)).to.equal(5);
      expect(await limit.admit('198.51.100.77'), 'the operator\'s address').to.equal(undefined);
      expect(await limit.admit('2001:db8:7:7::1'), 'a new IPv6 /64').to.have.property('scope', 'global');
      // Another instance sees the same: it counts from the database, and reads the operator's addresses there.
      const other = limitOf(m.db, { globalMaxFailures: 5 });
      expect(await other.admit('203.0.113.60')).to.deep.equal({ waitSeconds: 60, scope: 'global' });
      expect(await other.admit('198.51.100.77')).to.equal(undefined);
      now += 60_001;
      expect(await limit.admit('203.0.113.50'), 'the failures left the window').to.equal(undefined);
      expect(limit.globalState().limited).to.equal(false);
    });

    it('forgets an operator address after 30 days', async () => {
      const limit = limitOf(m.db, { globalMaxFailures: 1 });
      await limit.succeeded('198.51.100.78');
      now += 31 * 86_400_000;
      await limit.failed('203.0.113.9');
      expect(await limitOf(m.db, { globalMaxFailures: 1 }).admit('198.51.100.78')).to.have.property('scope', 'global');
    });
  });
}
