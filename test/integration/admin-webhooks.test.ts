import { expect } from 'chai';
import { createAdminClient } from '../../src/client/admin/index.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { adminOperationOf, expectMatchesAdminSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { selfSignedCert } from '../helpers/tls-target.js';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifiesBoth, WebhookReceiver } from '../helpers/webhook-receiver.js';

const TOKEN = 'test-admin-token-webhooks-5c1e9a7f3b2d';
/** A receiver's certificate the server is told to trust (NODE_EXTRA_CA_CERTS), as a deployment's CA would be. */
const CERT = selfSignedCert();

// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`admin API: webhooks and jobs (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { ADMIN_TOKEN: TOKEN, WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '0', NODE_EXTRA_CA_CERTS: CERT.certPath });
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(async () => receiver.close());

    /** A call to the admin API; every answer is checked against the admin document. */
    async function admin<T = Record<string, unknown>>(method: string, path: string): Promise<{ status: number; body: T; res: Response }> {
      const res = await fetch(`${s.server.base}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await res.text();
      const body = (text === '' ? undefined : JSON.parse(text)) as T;
      await expectMatchesAdminSpec(await adminOperationOf(method, path.split('?')[0]), res, body);
      return { status: res.status, body, res };
    }
    const client = () => createAdminClient({ baseUrl: s.server.base, adminToken: TOKEN });
    async function newKey(): Promise<number> {
      const { data } = await client().POST('/admin/v1/keys', { body: { plan: 'startup' } });
      return data!.id;
    }
    async function insertDelivery(apiKeyId: number, id: string, url: string, state = 'failed'): Promise<void> {
      const now = Date.now();
      await s.store.db.knex('webhook_deliveries').insert({
        id, api_key_id: apiKeyId, job_id: 'job-a', event: 'batch_scrape.completed', url, headers: '{}', state, attempts: 1, next_attempt_at: now, claimed_until: 0, created_at: now, last_status: 500, last_error: 'the receiver answered 500',
        payload: JSON.stringify({ success: true, type: 'batch_scrape.completed', id: 'job-a', webhookId: id, data: [], metadata: {} }),
      });
    }

    it("answers a key's webhook secret, the same every time, and a new one when rotated (audit-logged, never logged)", async () => {
      const id = await newKey();
      const first = await admin<{ secret: string }>('GET', `/admin/v1/keys/${id}/webhook-secret`);
      expect(first.status).to.equal(200);
      expect(first.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(first.res.headers.get('cache-control')).to.equal('no-store');
      expect((await admin<{ secret: string }>('GET', `/admin/v1/keys/${id}/webhook-secret`)).body.secret).to.equal(first.body.secret);
      const rotated = await admin<{ secret: string }>('POST', `/admin/v1/keys/${id}/webhook-secret/rotate`);
      expect(rotated.status).to.equal(200);
      expect(rotated.body.secret).to.match(/^whsec_/).and.not.equal(first.body.secret);
      expect((await client().GET('/admin/v1/keys/{id}/webhook-secret', { params: { path: { id } } })).data?.secret).to.equal(rotated.body.secret);
      const audit = await admin<{ items: Array<{ action: string; actor: string }> }>('GET', `/admin/v1/audit?key_id=${id}`);
      expect(audit.body.items[0]).to.include({ action: 'rotate_webhook', actor: 'admin' });
      const output = s.server.rawOutput.join('\n');
      expect(output).not.to.contain(first.body.secret).and.not.to.contain(rotated.body.secret);
    });

    it('answers 404 for a key or a delivery that does not exist, and 422 for a malformed id', async () => {
      for (const [method, path] of [['GET', '/admin/v1/keys/999999/webhook-secret'], ['POST', '/admin/v1/keys/999999/webhook-secret/rotate'], ['GET', '/admin/v1/keys/999999/webhook-deliveries'], ['GET', '/admin/v1/keys/999999/jobs'], ['POST', '/admin/v1/webhook-deliveries/msg_nope/replay']]) {
        expect((await admin(method, path)).status, path).to.equal(404);
      }
      expect((await admin('POST', '/admin/v1/webhook-deliveries/bad%20id/replay')).status).to.equal(422);
      expect((await admin('GET', '/admin/v1/keys/1/jobs?limit=201')).status).to.equal(422);
    });

    it("lists a key's jobs with their progress and credits, newest first", async () => {
      const id = await newKey();
      expect((await admin('GET', `/admin/v1/keys/${id}/jobs`)).body).to.deep.equal({ items: [] });
      const row = (job: string, created: number) => ({
        id: job, kind: 'crawl', api_key_id: id, status: 'completed', options: '{}', client_address: '127.0.0.1', max_retries: 2, total: 5, done_count: 4, failed_count: 1, credits_used: 4, created_at: created, expires_at: created + 3_600_000,
      });
      await s.store.db.knex('jobs').insert([row(`j1-${id}`, Date.UTC(2026, 10, 1)), row(`j2-${id}`, Date.UTC(2026, 10, 2))]);
      const { body } = await admin<{ items: Array<Record<string, unknown>> }>('GET', `/admin/v1/keys/${id}/jobs?limit=1`);
      expect(body.items).to.deep.equal([
        { id: `j2-${id}`, kind: 'crawl', status: 'completed', total: 5, done_count: 4, failed_count: 1, credits_used: 4, created_at: '2026-11-02T00:00:00.000Z', expires_at: '2026-11-02T01:00:00.000Z' },
      ]);
    });

    it("lists a key's deliveries and replays one at once, with the same webhook-id, signed with the key's secret", async () => {
      const id = await newKey();
      const webhookId = `msg_replay-${database.name}-${id}`;
      await insertDelivery(id, webhookId, receiver.url('/replayed'));
      const list = await admin<{ items: Array<Record<string, unknown>> }>('GET', `/admin/v1/keys/${id}/webhook-deliveries`);
      expect(list.body.items).to.have.length(1);
      expect(list.body.items[0]).to.include({ id: webhookId, state: 'failed', attempts: 1, last_status: 500, next_attempt_at: null, event: 'batch_scrape.completed' });
      const replayed = await admin<Record<string, unknown>>('POST', `/admin/v1/webhook-deliveries/${webhookId}/replay`);
      expect(replayed.status).to.equal(200);
      expect(replayed.body).to.include({ id: webhookId, state: 'pending' });
      await eventually(() => receiver.of(webhookId).length === 1, 10_000, 'the replay arrived');
      const secret = (await admin<{ secret: string }>('GET', `/admin/v1/keys/${id}/webhook-secret`)).body.secret;
      expect(await verifiesBoth(receiver.of(webhookId)[0], secret)).to.equal(true);
      await eventually(async () => (await admin<{ items: Array<{ state: string }> }>('GET', `/admin/v1/keys/${id}/webhook-deliveries`)).body.items[0].state === 'delivered', 10_000, 'recorded delivered');
      const metrics = await (await fetch(`${s.server.base}/metrics`)).text();
      expect(metrics).to.match(/scrapegate_webhook_attempts_total\{outcome="delivered"\} [1-9]/);
    });

    it('delivers over https, the certificate verified', async () => {
      const bodies: string[] = [];
      const tls = https.createServer({ key: CERT.key, cert: CERT.cert }, (req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString('utf8')));
        req.on('end', () => {
          bodies.push(body);
          res.end();
        });
      });
      tls.listen(0, '127.0.0.1');
      await once(tls, 'listening');
      try {
        const id = await newKey();
        const webhookId = `msg_tls-${database.name}-${id}`;
        await insertDelivery(id, webhookId, `https://127.0.0.1:${(tls.address() as AddressInfo).port}/tls`, 'pending');
        const list = async () => (await admin<{ items: Array<{ state: string; last_error: string | null }> }>('GET', `/admin/v1/keys/${id}/webhook-deliveries`)).body.items[0];
        await eventually(async () => (await list()).state !== 'pending', 10_000, 'attempted');
        expect(await list(), JSON.stringify(await list())).to.include({ state: 'delivered', last_error: null });
        expect(JSON.parse(bodies[0])).to.include({ webhookId });
      } finally {
        tls.closeAllConnections();
        await new Promise<void>((resolve) => tls.close(() => resolve()));
      }
    });

    it("never calls the service's own port, even inside WEBHOOK_ALLOW_CIDRS", async () => {
      const id = await newKey();
      const webhookId = `msg_own-${database.name}-${id}`;
      await insertDelivery(id, webhookId, `${s.server.base}/admin/v1/plans`, 'pending');
      await eventually(async () => (await admin<{ items: Array<{ state: string }> }>('GET', `/admin/v1/keys/${id}/webhook-deliveries`)).body.items[0].state === 'failed', 10_000, 'failed');
      const { body } = await admin<{ items: Array<{ last_error: string; last_status: number | null }> }>('GET', `/admin/v1/keys/${id}/webhook-deliveries`);
      expect(body.items[0].last_error).to.match(/not allowed: port \d+ of 127\.0\.0\.1 is scrapegate's own/);
      expect(body.items[0].last_status).to.equal(null);
    });
  });
}
