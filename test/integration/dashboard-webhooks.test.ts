import { expect } from 'chai';
import { adminCaller } from '../helpers/admin-calls.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { useSuite } from '../helpers/suite.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const TOKEN = 'dashboard-webhooks-token-3f9a1c-7b2e5d';

// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`the dashboard: webhooks and jobs (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { ADMIN_TOKEN: TOKEN, WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '0' });
    const admin = adminCaller(() => s.server.base, TOKEN);
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(async () => receiver.close());

    /** A table's text, tags stripped. */
    const tableText = (page: string, id: string) => (new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(page)?.[1] ?? '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    const secretOn = (page: string) => /id="webhook-secret" type="text" readonly value="(whsec_[^"]+)"/.exec(page)?.[1];

    async function keyWithWork(): Promise<{ id: number; key: string; prefix: string; webhookId: string }> {
      const { id, key, prefix } = await admin<{ id: number; key: string; prefix: string }>('POST', '/admin/v1/keys', { plan: 'startup' });
      const now = Date.now();
      await s.store.db.knex('jobs').insert({ id: `job-${id}`, kind: 'batch_scrape', api_key_id: id, status: 'scraping', options: '{}', client_address: '127.0.0.1', max_retries: 2, total: 8, done_count: 5, failed_count: 1, credits_used: 5, created_at: now, expires_at: now + 86_400_000 });
      const webhookId = `msg_dash-${database.name}-${id}`;
      await s.store.db.knex('webhook_deliveries').insert({
        id: webhookId, api_key_id: id, job_id: `job-${id}`, event: 'batch_scrape.page', url: receiver.url('/dash'), headers: '{}', state: 'failed', attempts: 4, next_attempt_at: now, claimed_until: 0, created_at: now, last_status: 503, last_error: 'the receiver answered 503',
        payload: '{"success":true}',
      });
      return { id, key, prefix, webhookId };
    }

    it("shows the operator a key's jobs with progress and credits, its deliveries, and its secret; rotates it and replays a delivery", async () => {
      const { id, webhookId } = await keyWithWork();
      const operator = new DashboardClient(s.server.base);
      await operator.signIn(TOKEN);
      const page = (await operator.get(`/dashboard/keys/${id}`)).body;
      const secret = secretOn(page);
      expect(secret).to.equal((await admin<{ secret: string }>('GET', `/admin/v1/keys/${id}/webhook-secret`)).secret);
      expect(tableText(page, 'jobs')).to.contain(`job-${id}`).and.contain('6 of 8').and.contain(`GET /v2/batch/scrape/job-${id}`);
      expect(tableText(page, 'deliveries')).to.contain('batch_scrape.page').and.contain('failed').and.contain('503');

      const rotated = await operator.post(`/dashboard/keys/${id}/webhook-secret/rotate`, {}, {}, `/dashboard/keys/${id}`);
      expect(rotated.status).to.equal(303);
      const after = secretOn((await operator.get(`/dashboard/keys/${id}`)).body);
      expect(after).to.match(/^whsec_/).and.not.equal(secret);
      const audit = await admin<{ items: Array<{ actor: string; action: string }> }>('GET', `/admin/v1/audit?key_id=${id}`);
      expect(audit.items[0]).to.include({ actor: 'admin', action: 'rotate_webhook' });

      const replayed = await operator.post(`/dashboard/keys/${id}/webhook-deliveries/${webhookId}/replay`, {}, {}, `/dashboard/keys/${id}`);
      expect(replayed.status).to.equal(303);
      await eventually(() => receiver.of(webhookId).length === 1, 10_000, 'the replay arrived');
      const other = await keyWithWork();
      const foreign = await operator.post(`/dashboard/keys/${id}/webhook-deliveries/${other.webhookId}/replay`, {}, {}, `/dashboard/keys/${id}`);
      expect(foreign.status, "another key's delivery is not this key's").to.equal(404);
    });

    it('shows a user their own webhook secret, jobs and deliveries, and lets them rotate the secret (audited as their key), without replay', async () => {
      const { id, key, prefix } = await keyWithWork();
      const user = new DashboardClient(s.server.base);
      await user.signIn(key);
      const page = (await user.get('/dashboard')).body;
      const secret = secretOn(page);
      expect(secret).to.match(/^whsec_/);
      expect(tableText(page, 'jobs')).to.contain(`job-${id}`);
      expect(page).to.contain('id="deliveries"').and.not.contain('/replay');
      const rotated = await user.post('/dashboard/webhook-secret/rotate', {});
      expect(rotated.status).to.equal(303);
      expect(secretOn((await user.get('/dashboard')).body)).to.match(/^whsec_/).and.not.equal(secret);
      const audit = await admin<{ items: Array<{ actor: string; action: string }> }>('GET', `/admin/v1/audit?key_id=${id}`);
      expect(audit.items[0]).to.include({ actor: `key:${prefix}`, action: 'rotate_webhook' });
      // A user reaches no operator route, another key's page nor a replay.
      expect((await user.post(`/dashboard/keys/${id}/webhook-secret/rotate`, {})).status).to.equal(404);
    });
  });
}
