import { expect } from 'chai';
import type { Database } from '../../src/store/database.js';
import { WebhookDeliveriesSql } from '../../src/store/webhook-deliveries-sql.js';
import { WebhookSecretsSql } from '../../src/store/webhook-secrets-sql.js';
import { KeyJobsSql } from '../../src/store/key-jobs-sql.js';
import { newWebhookSecret } from '../../src/webhooks/webhook-secret.js';
import { testDatabases } from '../helpers/databases.js';
import { useStoreDatabase } from '../helpers/store-database.js';

for (const database of testDatabases()) {
  describe(`webhook outbox SQL (${database.name})`, function () {
    this.timeout(30_000);
    let a: Database;
    let b: Database;
    let apiKeyId: number;
    useStoreDatabase(database, { connections: 2 }, (opened) => ({ connections: [a, b], apiKeyId } = opened));

    const delivery = (id: string, at: number) => ({ id, apiKeyId, jobId: 'j', event: 'batch_scrape.page', payload: '{}', url: 'http://127.0.0.1/h', headers: {}, createdAt: at, nextAttemptAt: at });

    it('two instances claiming the same due rows at once never both get one, and each claim counts its attempt', async () => {
      const [sa, sb] = [new WebhookDeliveriesSql(a), new WebhookDeliveriesSql(b)];
      const now = Date.now();
      for (let i = 0; i < 60; i++) await sa.insert(delivery(`race-${String(i).padStart(3, '0')}`, now - 1000));
      const got: string[] = [];
      for (let round = 0; round < 10; round++) {
        const [x, y] = await Promise.all([sa.claimDue(now, 60_000, 8), sb.claimDue(now, 60_000, 8)]);
        got.push(...x.map((d) => d.id), ...y.map((d) => d.id));
      }
      const race = got.filter((id) => id.startsWith('race-'));
      expect(new Set(race).size, 'no row claimed twice').to.equal(race.length);
      expect(race.length).to.equal(60);
      const attempts = (await a.knex('webhook_deliveries').where('id', 'like', 'race-%').max({ m: 'attempts' }).first()) as { m: number };
      expect(Number(attempts.m)).to.equal(1);
      // Held rows are not due again until their lease ends; a finish needs the claim's token.
      expect(await sa.claimDue(now + 1000, 60_000, 100)).to.deep.equal([]);
      const [again] = await sb.claimDue(now + 61_000, 60_000, 1);
      expect(again.attempts).to.equal(2);
      expect(await sa.finish(again.id, 'not-the-token', { state: 'delivered', status: 200 }, now)).to.equal(false);
      expect(await sa.finish(again.id, again.claimToken, { state: 'delivered', status: 200 }, now)).to.equal(true);
      expect(await sa.byId(again.id)).to.include({ state: 'delivered', attempts: 2, lastStatus: 200, nextAttemptAt: undefined });
    });

    it('a released claim is due again at once, its attempt not counted', async () => {
      const s = new WebhookDeliveriesSql(a);
      const now = Date.now() + 10_000_000;
      await s.insert(delivery('released', now));
      const [c] = (await s.claimDue(now, 60_000, 100)).filter((d) => d.id === 'released');
      await s.release(c.id, c.claimToken);
      const [d] = (await s.claimDue(now, 60_000, 100)).filter((x) => x.id === 'released');
      expect(d.attempts).to.equal(1);
    });

    it('prunes only finished deliveries older than the cut, a bounded batch at a time', async () => {
      const s = new WebhookDeliveriesSql(a);
      for (const [id, state, at] of [['old-done', 'delivered', 1000], ['old-failed', 'failed', 1000], ['old-pending', 'pending', 1000], ['new-done', 'delivered', 5000]] as const) {
        await s.insert(delivery(`prune-${id}`, at));
        if (state !== 'pending') await a.knex('webhook_deliveries').where({ id: `prune-${id}` }).update({ state });
      }
      expect(await s.prune(2000, 1)).to.equal(1);
      expect(await s.prune(2000, 100)).to.equal(1);
      const left = (await a.knex('webhook_deliveries').select('id').where('id', 'like', 'prune-%').orderBy('id')) as Array<{ id: string }>;
      expect(left.map((r) => r.id)).to.deep.equal(['prune-new-done', 'prune-old-pending']);
    });

    it("makes a key's secret once, even asked twice at once, and none for a key that does not exist", async () => {
      const [sa, sb] = [new WebhookSecretsSql(a), new WebhookSecretsSql(b)];
      const [x, y] = await Promise.all([sa.secretOf(apiKeyId, newWebhookSecret), sb.secretOf(apiKeyId, newWebhookSecret)]);
      expect(x).to.equal(y).and.to.match(/^whsec_/);
      expect(await sa.secretOf(999_999, newWebhookSecret)).to.equal(undefined);
      expect(await sa.rotate({ actor: 'admin', apiKeyId: 999_999, secret: newWebhookSecret() })).to.equal(false);
    });

    it("lists a key's jobs, newest first, and knows no key that does not exist", async () => {
      const row = (id: string, created: number) => ({
        id, kind: 'batch_scrape', api_key_id: apiKeyId, status: 'scraping', options: '{}', client_address: '127.0.0.1', max_retries: 2, total: 10, done_count: 3, failed_count: 1, credits_used: 3, created_at: created, expires_at: created + 86_400_000,
      });
      await a.knex('jobs').insert([row('job-old', 1000), row('job-new', 2000)]);
      const jobs = new KeyJobsSql(a);
      expect((await jobs.recent(apiKeyId, 10))!.map((j) => j.id)).to.deep.equal(['job-new', 'job-old']);
      expect((await jobs.recent(apiKeyId, 10))![0]).to.deep.equal({ id: 'job-new', kind: 'batch_scrape', status: 'scraping', total: 10, doneCount: 3, failedCount: 1, creditsUsed: 3, createdAt: 2000, expiresAt: 2000 + 86_400_000 });
      expect(await jobs.recent(999_999, 10)).to.equal(undefined);
    });
  });
}
