import { expect } from 'chai';
import { DashboardSessions } from '../../src/dashboard/dashboard-sessions.js';
import { SessionUpkeep } from '../../src/dashboard/session-upkeep.js';
import { DashboardSessionsSql } from '../../src/store/dashboard-sessions-sql.js';
import { SignInFailuresSql } from '../../src/store/sign-in-failures-sql.js';
import { OperatorAddressesSql } from '../../src/store/operator-addresses-sql.js';
import { testDatabases } from '../helpers/databases.js';
import { useMigratedDatabase } from '../helpers/migrated-database.js';

for (const database of testDatabases()) {
  describe(`dashboard sessions (${database.name})`, () => {
    const m = useMigratedDatabase(database);
    let now = 1_800_000_000_000;
    let sessions: DashboardSessions;
    before(() => {
      sessions = new DashboardSessions(new DashboardSessionsSql(m.db), { ttlMs: 3_600_000, now: () => now });
    });
    const upkeep = () =>
      new SessionUpkeep({ sessions: new DashboardSessionsSql(m.db), failures: new SignInFailuresSql(m.db), failureWindowMs: 900_000, operators: new OperatorAddressesSql(m.db), intervalMs: 60_000, onError: (err) => { throw err; }, now: () => now });

    it('stores a session only as its id\'s hash, expires it, and the upkeep deletes it, old sign-in failures and forgotten operator addresses, batch after batch', async () => {
      const started = await sessions.start('key', 5, 'a'.repeat(64));
      expect(started.id).to.match(/^[A-Za-z0-9_-]{43}$/);
      const stored = await m.db.knex('dashboard_sessions').select('id_hash');
      expect(JSON.stringify(stored)).not.to.contain(started.id);
      expect(await sessions.resume(started.id)).to.deep.include({ role: 'key', apiKeyId: 5, expiresAt: now + 3_600_000 });
      expect(await sessions.resume(`${started.id.slice(0, -1)}x`)).to.equal(undefined);
      expect(await sessions.resume('../../etc')).to.equal(undefined);
      const failures = new SignInFailuresSql(m.db);
      await m.db.knex.batchInsert('sign_in_failures', Array.from({ length: 1_200 }, () => ({ client: '198.51.100.7', at: now - 1_000 })), 200);
      // Addresses the admin token was used from: one 31 days ago (forgotten), one a day ago (kept).
      await m.db.knex.batchInsert('operator_addresses', Array.from({ length: 700 }, (_, i) => ({ client: `10.0.${i >> 8}.${i & 255}`, last_at: now - 31 * 86_400_000 })), 200);
      await new OperatorAddressesSql(m.db).note('198.51.100.99', now - 86_400_000);
      now += 3_600_000;
      expect(await sessions.resume(started.id), 'expired').to.equal(undefined);
      await upkeep().runOnce();
      expect(await m.db.knex('dashboard_sessions').where({ id_hash: started.record.idHash }).first()).to.equal(undefined);
      expect(await failures.countSince('198.51.100.7', 0), 'more than one batch of failures').to.equal(0);
      expect(await new OperatorAddressesSql(m.db).since(0, 1000), 'more than one batch of addresses').to.deep.equal(['198.51.100.99']);
    });

    it('keeps at most 20 sessions per key: a new sign-in ends the oldest', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 22; i++) {
        now += 1;
        ids.push((await sessions.start('key', 9, 'c'.repeat(64))).id);
      }
      expect(await sessions.resume(ids[0])).to.equal(undefined);
      expect(await sessions.resume(ids[1])).to.equal(undefined);
      expect(await sessions.resume(ids[2])).not.to.equal(undefined);
      expect(Number((await m.db.knex('dashboard_sessions').where({ api_key_id: 9 }).count({ n: '*' }).first())?.n)).to.equal(20);
    });

    it('derives a CSRF token from the session that another session\'s token never matches', async () => {
      const [a, b] = [await sessions.start('admin', null, 'b'.repeat(64)), await sessions.start('admin', null, 'b'.repeat(64))];
      expect(sessions.csrfValid(a.id, sessions.csrfToken(a.id))).to.equal(true);
      expect(sessions.csrfValid(a.id, sessions.csrfToken(b.id))).to.equal(false);
      expect(sessions.csrfValid(a.id, undefined)).to.equal(false);
      expect(sessions.csrfValid(a.id, ['x'])).to.equal(false);
    });

    it('lets a one-use form be sent once per session, even twice at once', async () => {
      const { record } = await sessions.start('admin', null, 'd'.repeat(64));
      const formId = sessions.newFormId();
      expect(await Promise.all([sessions.claimForm(record, formId), sessions.claimForm(record, formId)])).to.have.members([true, false]);
      expect(await sessions.claimForm(record, formId)).to.equal(false);
      expect(await sessions.claimForm(record, sessions.newFormId())).to.equal(true);
      expect(await sessions.claimForm(record, 'short')).to.equal(false);
      expect(await sessions.claimForm(record, undefined)).to.equal(false);
    });
  });
}
