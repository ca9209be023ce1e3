import { expect } from 'chai';
import { adminCaller } from '../helpers/admin-calls.js';
import { DashboardClient, type PageAnswer } from '../helpers/dashboard-client.js';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';

const TOKEN = 'stolen-key-admin-token-4c8e2a6f1b9d3e7a';

/** The secret a rotation's page shows, once. */
const secretOf = (page: PageAnswer) => /id="new-secret" type="text" readonly value="(sg_[^"]+)"/.exec(page.body)?.[1];

// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`a leaked key after its owner rotated it (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { ADMIN_TOKEN: TOKEN });
    const admin = adminCaller(() => s.server.base, TOKEN);
    const newKey = () => admin<{ id: number; key: string; prefix: string }>('POST', '/admin/v1/keys', { plan: 'startup' });
    const scrape = async (key: string) => (await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']])).status;
    const rotations = async (id: number) => (await admin<{ items: Array<{ action: string }> }>('GET', `/admin/v1/audit?key_id=${id}`)).items.filter((e) => e.action === 'rotate').length;
    /** The owner rotates from their own session, as the README advises after a leak: a grace of one hour. */
    const ownerRotates = async (owner: DashboardClient, grace = '3600') => {
      const page = await owner.post('/dashboard/rotate', { grace_seconds: grace });
      expect(page.status).to.equal(200);
      return secretOf(page) ?? '';
    };

    it('lets a secret in its grace period authenticate API calls only: it does not sign in, so it cannot rotate the owner\'s new secret away', async () => {
      const { key: leaked } = await newKey();
      const owner = new DashboardClient(s.server.base);
      expect((await owner.signIn(leaked)).status).to.equal(303);
      const fresh = await ownerRotates(owner);
      expect(await scrape(leaked), 'the old secret still scrapes, within its grace').to.equal(200);
      // The attacker, with the leaked secret: no session.
      const attacker = new DashboardClient(s.server.base, '127.0.0.51');
      const signIn = await attacker.signIn(leaked);
      expect(signIn.status).to.equal(401);
      expect(signIn.body).to.contain('cannot sign in');
      expect(attacker.cookie).to.equal(undefined);
      const rotate = await attacker.post('/dashboard/rotate', { grace_seconds: '0' });
      expect(rotate.status).not.to.equal(200);
      expect(secretOf(rotate)).to.equal(undefined);
      expect(await scrape(fresh), 'the owner\'s new secret').to.equal(200);
      expect(await scrape(leaked)).to.equal(200);
      expect((await owner.get('/dashboard')).status).to.equal(200);
    });

    it('lets a session opened with the secret before the rotation look, not rotate: only a session on the current secret changes the key', async () => {
      const { key: leaked, id } = await newKey();
      const attacker = new DashboardClient(s.server.base, '127.0.0.52');
      expect((await attacker.signIn(leaked)).status, 'signed in while the secret was current').to.equal(303);
      const stale = await attacker.get('/dashboard');
      const owner = new DashboardClient(s.server.base);
      await owner.signIn(leaked);
      const fresh = await ownerRotates(owner);
      // The page loaded before the rotation still holds a valid form: sent now, it is refused.
      const csrf = /name="csrf" value="([^"]+)"/.exec(stale.body)?.[1] ?? '';
      const formId = /name="form_id" value="([^"]+)"/.exec(stale.body)?.[1] ?? '';
      const refused = await attacker.request('POST', '/dashboard/rotate', { csrf, form_id: formId, grace_seconds: '0' });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.contain('has been replaced since');
      expect(secretOf(refused)).to.equal(undefined);
      const page = await attacker.get('/dashboard');
      expect(page.status, 'it may still look, until the grace ends').to.equal(200);
      expect(page.body).to.contain('id="rotate-unavailable"').and.not.contain('id="rotate"');
      expect(await rotations(id), 'one rotation: the owner\'s').to.equal(1);
      expect(await scrape(fresh)).to.equal(200);
      // The owner's session moved to the new secret and still rotates.
      expect(await ownerRotates(owner, '0')).to.match(/^sg_/);
    });

    it('takes from a user only the grace the page offers (0, 1 h or 24 h), whatever the form says', async () => {
      const { key, id } = await newKey();
      const user = new DashboardClient(s.server.base);
      await user.signIn(key);
      const form = (await user.get('/dashboard')).body;
      const offered = [...form.matchAll(/<option value="(\d+)">/g)].map((m) => m[1]);
      expect(offered).to.deep.equal(['0', '3600', '86400']);
      for (const grace of ['2592000', '7200', '1', '-1', '86401']) {
        const page = await user.post('/dashboard/rotate', { grace_seconds: grace });
        expect(page.status, grace).to.equal(422);
        expect(page.body).to.contain('grace_seconds');
      }
      expect(await rotations(id), 'not rotated').to.equal(0);
      expect(await scrape(key)).to.equal(200);
      expect(await ownerRotates(user, '86400')).to.match(/^sg_/);
      // The operator still gives any grace the admin API allows.
      const byOperator = await admin<{ previous_secret_expires_at: string | null }>('POST', `/admin/v1/keys/${id}/rotate`, { grace_seconds: 2_592_000 });
      expect(byOperator.previous_secret_expires_at).to.be.a('string');
    });
  });
}
