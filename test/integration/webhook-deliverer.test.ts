import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { OwnPorts } from '../../src/egress/target-policy/own-ports.js';
import type { JobEvent, JobEventType } from '../../src/jobs/job-ports.js';
import { Metrics } from '../../src/observability/metrics.js';
import { webhookParts, type WebhookParts } from '../../src/server/webhook-parts.js';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { verifiesBoth, WebhookReceiver } from '../helpers/webhook-receiver.js';
import { WebhookDeliveriesSql } from '../../src/store/webhook-deliveries-sql.js';
import { WebhookSecretsSql } from '../../src/store/webhook-secrets-sql.js';
import { WebhookDeliverer } from '../../src/webhooks/webhook-deliverer.js';
import { DurableOutbox } from '../../src/webhooks/webhook-outbox.js';
import { WebhookTargets } from '../../src/webhooks/webhook-policy.js';
import type { WebhookSecretsPort } from '../../src/webhooks/webhook-ports.js';
import { targetPolicy } from '../helpers/egress.js';
import { UntrustedTlsTarget } from '../helpers/tls-target.js';

interface Row {
  id: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: number;
  claimed_until: number;
}

const metadata = { sourceURL: 'http://a.test/', url: 'http://a.test/', statusCode: 200, proxyUsed: 'basic' as const, creditsUsed: 1, scrapeId: 'i1' };

for (const database of testDatabases()) {
  describe(`webhook deliveries, a real loopback receiver (${database.name})`, function () {
    this.timeout(30_000);
    let url: string;
    let drop: () => Promise<void>;
    let db: Database;
    let apiKeyId: number;
    let receiver: WebhookReceiver;
    const running: WebhookParts[] = [];
    const extraDbs: Database[] = [];
    let metrics: Metrics;

    before(async () => {
      ({ url, drop } = await database.isolated());
      db = openDatabase(url);
      await migrate(db);
      const { record } = await new ApiKeyStore(db.knex).create({ planName: 'business', credits: 1000, maxConcurrency: null });
      apiKeyId = record.id;
    });
    after(async () => {
      await db.close();
      await drop();
    });
    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
      metrics = new Metrics();
    });
    afterEach(async () => {
      for (const p of running.splice(0)) await p.stop();
      for (const d of extraDbs.splice(0)) await d.close();
      await receiver.close();
    });

    function start(env: Record<string, string> = {}, on: Database = db, registry: Metrics = metrics): WebhookParts {
      const config = loadConfig({ DATABASE_URL: url, WEBHOOK_RETRY_SCHEDULE: '0,1,1,1', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', WEBHOOK_TIMEOUT_SECONDS: '2', ...env });
      const parts = webhookParts(config, { db: on, ownPorts: new OwnPorts(), metrics: registry, logger: pino({ level: 'silent' }), overrides: { pollMs: 50 } });
      parts.start();
      running.push(parts);
      return parts;
    }

    let jobs = 0;
    /** Records `types` for a new job in one transaction, as the job engine does; the deliveries' ids in order. */
    async function enqueue(parts: WebhookParts, types: JobEventType[], over: Partial<JobEvent['subscription']> = {}): Promise<string[]> {
      const jobId = `job-${database.name}-${++jobs}`;
      const subscription = { url: receiver.url(), headers: { 'x-tenant': 't1' }, metadata: { order: '42' }, events: ['started', 'page', 'completed', 'failed'] as JobEventType[], ...over };
      await db.knex.transaction(async (trx) => {
        for (const type of types) {
          await parts.outbox.enqueue({ apiKeyId, jobId, kind: 'batch_scrape', subscription, type, data: type === 'page' ? [{ markdown: '# A', metadata }] : [] }, trx);
        }
      });
      parts.outbox.wake();
      const rows = (await db.knex('webhook_deliveries').select('id').where({ job_id: jobId }).orderBy('created_at').orderBy('id')) as Array<{ id: string }>;
      return rows.map((r) => r.id);
    }
    const row = async (id: string) => (await db.knex('webhook_deliveries').where({ id }).first()) as Row;
    const stateIs = (id: string, state: string) => async () => (await row(id)).state === state;
    const secret = (parts: WebhookParts) => parts.admin.secret(apiKeyId);

    it('records only the events the subscription asks for, inside the caller\'s transaction', async () => {
      const parts = start();
      const ids = await enqueue(parts, ['started', 'page', 'completed'], { events: ['completed'] });
      expect(ids).to.have.length(1);
      const failed = await db.knex
        .transaction(async (trx) => {
          await parts.outbox.enqueue({ apiKeyId, jobId: 'rolled-back', kind: 'crawl', subscription: { url: receiver.url(), headers: {}, metadata: {}, events: ['started'] }, type: 'started', data: [] }, trx);
          throw new Error('the job change failed');
        })
        .catch((err: Error) => err.message);
      expect(failed).to.equal('the job change failed');
      expect(await db.knex('webhook_deliveries').where({ job_id: 'rolled-back' })).to.deep.equal([]);
    });

    it('a receiver down (500) for the first 3 attempts, then up: every event delivered once, one webhook-id per event across attempts, both signatures valid', async () => {
      const parts = start();
      const seen = new Map<string, number>();
      receiver.handler = (r, res) => {
        const id = String(r.headers['webhook-id']);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        res.writeHead(n <= 3 ? 500 : 200).end();
      };
      const ids = await enqueue(parts, ['started', 'page', 'completed']);
      expect(ids).to.have.length(3);
      for (const id of ids) await eventually(stateIs(id, 'delivered'), 15_000, `${id} delivered`);
      const key = await secret(parts);
      for (const id of ids) {
        const got = receiver.of(id);
        expect(got.map((r) => r.status)).to.deep.equal([500, 500, 500, 200]);
        expect(new Set(got.map((r) => r.body)).size, 'the same body on every attempt').to.equal(1);
        for (const r of got) expect(await verifiesBoth(r, key), 'both signatures verify').to.equal(true);
        expect(got[0].headers['x-tenant']).to.equal('t1');
        expect(got[0].headers['content-type']).to.equal('application/json');
        const r = await row(id);
        expect(r).to.include({ attempts: 4, last_status: 200, last_error: null });
      }
      const bodies = ids.map((id) => JSON.parse(receiver.of(id)[0].body) as Record<string, unknown>);
      expect(bodies.map((b) => b.type).sort()).to.deep.equal(['batch_scrape.completed', 'batch_scrape.page', 'batch_scrape.started']);
      const page = bodies.find((b) => b.type === 'batch_scrape.page')!;
      expect(page).to.deep.include({ success: true, metadata: { order: '42' }, data: [{ markdown: '# A', metadata }] });
      expect(ids).to.include(page.webhookId);
      const text = await metrics.registry.metrics();
      expect(text).to.match(/scrapegate_webhook_attempts_total\{outcome="delivered"\} 3/);
      expect(text).to.match(/scrapegate_webhook_attempts_total\{outcome="failed_attempt"\} 9/);
    });

    it('stops at 410: no more attempts', async () => {
      const parts = start();
      receiver.handler = (_r, res) => res.writeHead(410).end();
      const [id] = await enqueue(parts, ['started']);
      await eventually(stateIs(id, 'stopped'), 10_000, 'stopped');
      expect(await row(id)).to.include({ attempts: 1, last_status: 410 });
      expect(receiver.of(id)).to.have.length(1);
      expect(await parts.admin.deliveries(apiKeyId)).to.satisfy((list: Array<{ id: string; nextAttemptAt: number | undefined }>) => list.find((d) => d.id === id)?.nextAttemptAt === undefined);
    });

    it('takes a 3xx as a failure and never follows it; the schedule exhausted, the delivery has failed', async () => {
      const parts = start();
      receiver.handler = (r, res) => (r.path === '/elsewhere' ? res.writeHead(200).end() : res.writeHead(302, { location: receiver.url('/elsewhere') }).end());
      const [id] = await enqueue(parts, ['completed']);
      await eventually(stateIs(id, 'failed'), 15_000, 'failed');
      expect(await row(id)).to.include({ attempts: 4, last_status: 302 });
      expect((await row(id)).last_error).to.match(/302 \(redirects are not followed\)/);
      expect(receiver.received.filter((r) => r.path === '/elsewhere')).to.deep.equal([]);
      expect(await metrics.registry.metrics()).to.match(/scrapegate_webhook_attempts_total\{outcome="exhausted"\} 1/);
    });

    it("honours a receiver's Retry-After, clamped to [1 s, 24 h]", async () => {
      const parts = start({ WEBHOOK_RETRY_SCHEDULE: '0,0,0' });
      let calls = 0;
      receiver.handler = (_r, res) => res.writeHead(++calls === 1 ? 503 : 200, calls === 1 ? { 'retry-after': '2' } : {}).end();
      const [id] = await enqueue(parts, ['started']);
      await eventually(stateIs(id, 'delivered'), 10_000, 'delivered');
      const [first, second] = receiver.of(id);
      expect(second.at - first.at, 'the schedule says at once; Retry-After says 2 s').to.be.at.least(1_900);

      receiver.handler = (_r, res) => res.writeHead(429, { 'retry-after': '999999' }).end();
      const [late] = await enqueue(parts, ['page']);
      await eventually(async () => (await row(late)).attempts === 1 && (await row(late)).claimed_until === 0, 10_000, 'first attempt recorded');
      const r = await row(late);
      expect(r.state).to.equal('pending');
      expect(Number(r.next_attempt_at) - Date.now()).to.be.within(86_400_000 - 60_000, 86_400_000);

      receiver.handler = (_r, res) => res.writeHead(calls++ % 2 === 0 ? 503 : 200, { 'retry-after': '0' }).end();
      calls = 0;
      const [soon] = await enqueue(parts, ['completed']);
      await eventually(stateIs(soon, 'delivered'), 10_000, 'delivered');
      const [a, b] = receiver.of(soon);
      expect(b.at - a.at, 'Retry-After: 0 is raised to 1 s').to.be.at.least(950);
    });

    it('gives up an attempt at the timeout when the receiver is slow', async () => {
      const parts = start({ WEBHOOK_TIMEOUT_SECONDS: '0.5', WEBHOOK_RETRY_SCHEDULE: '0' });
      receiver.handler = () => undefined;
      const [id] = await enqueue(parts, ['started']);
      await eventually(stateIs(id, 'failed'), 10_000, 'failed');
      const r = await row(id);
      expect(r.last_error).to.equal('no answer within 500 ms');
      expect(r.last_status).to.equal(null);
    });

    it('reads at most 64 KiB of an answer, then hangs up', async () => {
      const parts = start({ WEBHOOK_RETRY_SCHEDULE: '0' });
      let written = 0;
      let closed = false;
      receiver.handler = (_r, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const more = () => {
          while (!closed && written < 256 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('close', () => (closed = true));
        more();
      };
      const [id] = await enqueue(parts, ['started']);
      await eventually(stateIs(id, 'delivered'), 10_000, 'delivered');
      await eventually(() => closed, 5_000, 'the receiver saw the hang-up');
      expect(written, 'bytes the receiver could write before the sender hung up').to.be.below(32 * 1024 * 1024);
    });

    it('two deliverers on one database never send the same attempt twice', async () => {
      const other = openDatabase(url);
      extraDbs.push(other);
      const a = start({ WEBHOOK_RETRY_SCHEDULE: '0,0' });
      const otherMetrics = new Metrics();
      start({ WEBHOOK_RETRY_SCHEDULE: '0,0' }, other, otherMetrics);
      const seen = new Map<string, number>();
      receiver.handler = (r, res) => {
        const id = String(r.headers['webhook-id']);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        setTimeout(() => res.writeHead(n === 1 ? 500 : 200).end(), 20);
      };
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(...(await enqueue(a, ['started', 'page', 'completed'])));
      for (const id of ids) await eventually(stateIs(id, 'delivered'), 20_000, `${id} delivered`);
      for (const id of ids) {
        expect(receiver.of(id).map((r) => r.status), id).to.deep.equal([500, 200]);
        expect((await row(id)).attempts).to.equal(2);
      }
      const attempts = async (m: Metrics) => {
        const lines = (await m.registry.metrics()).split('\n').filter((l) => l.startsWith('scrapegate_webhook_attempts_total{'));
        return lines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
      };
      const [mine, theirs] = [await attempts(metrics), await attempts(otherMetrics)];
      expect(mine + theirs).to.equal(60);
      expect(theirs, 'the second instance sent some').to.be.above(0);
    });

    it('replays a delivery at once, with the same webhook-id and body, signed afresh', async () => {
      const parts = start({ WEBHOOK_RETRY_SCHEDULE: '0' });
      receiver.handler = (_r, res) => res.writeHead(500).end();
      const [id] = await enqueue(parts, ['completed']);
      await eventually(stateIs(id, 'failed'), 10_000, 'failed');
      receiver.handler = (_r, res) => res.writeHead(204).end();
      const replayed = await parts.admin.replay(id);
      expect(replayed.state).to.equal('pending');
      await eventually(stateIs(id, 'delivered'), 10_000, 'delivered after the replay');
      const [first, second] = receiver.of(id);
      expect(second.body).to.equal(first.body);
      expect(await verifiesBoth(second, await secret(parts))).to.equal(true);
      expect(await row(id)).to.include({ attempts: 2, last_status: 204 });
    });

    it('signs with the rotated secret from the rotation on', async () => {
      const parts = start({ WEBHOOK_RETRY_SCHEDULE: '0' });
      const before = await secret(parts);
      const after = await parts.admin.rotate('admin', apiKeyId);
      expect(after).not.to.equal(before);
      const [id] = await enqueue(parts, ['started']);
      await eventually(stateIs(id, 'delivered'), 10_000, 'delivered');
      expect(await verifiesBoth(receiver.of(id)[0], after)).to.equal(true);
      expect(await verifiesBoth(receiver.of(id)[0], before)).to.equal(false);
      const audit = (await db.knex('audit_log').where({ api_key_id: apiKeyId, action: 'rotate_webhook' })) as unknown[];
      expect(audit.length).to.be.at.least(1);
    });

    it('gives an attempt back, uncounted, when the database fails before it is sent', async () => {
      const real = new WebhookSecretsSql(db);
      let failures = 1;
      const secrets: WebhookSecretsPort = {
        secretOf: async (id, make) => {
          if (failures-- > 0) throw new Error('the database is down');
          return real.secretOf(id, make);
        },
        rotate: (r) => real.rotate(r),
      };
      const store = new WebhookDeliveriesSql(db);
      const deliverer = new WebhookDeliverer({ store, secrets, targets: new WebhookTargets(targetPolicy({ allowCidrs: '127.0.0.0/8' })), scheduleMs: [0], timeoutMs: 2000, logger: pino({ level: 'silent' }), pollMs: 50 });
      const outbox = new DurableOutbox({ store, firstAttemptMs: 0, wake: () => deliverer.wake() });
      deliverer.start();
      try {
        await db.knex.transaction((trx) => outbox.enqueue({ apiKeyId, jobId: 'job-release', kind: 'batch_scrape', subscription: { url: receiver.url(), headers: {}, metadata: {}, events: ['started'] }, type: 'started', data: [] }, trx));
        outbox.wake();
        const { id } = (await db.knex('webhook_deliveries').select('id').where({ job_id: 'job-release' }).first()) as { id: string };
        await eventually(stateIs(id, 'delivered'), 10_000, 'delivered');
        expect(await row(id)).to.include({ attempts: 1 });
        expect(failures).to.be.below(0);
      } finally {
        await deliverer.stop();
      }
    });

    it('delivers to an IPv6 literal URL, with a Host header a receiver reads', async () => {
      const http = await import('node:http');
      const got: string[] = [];
      const v6 = http.createServer((req, res) => {
        got.push(String(req.headers.host));
        req.resume();
        req.on('end', () => res.end());
      });
      await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
      try {
        const port = (v6.address() as { port: number }).port;
        const parts = start({ WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8,::1/128' });
        const [id] = await enqueue(parts, ['started'], { url: `http://[::1]:${port}/v6` });
        await eventually(stateIs(id, 'delivered'), 10_000, 'delivered');
        expect(got).to.deep.equal([`[::1]:${port}`]);
      } finally {
        v6.closeAllConnections();
        await new Promise<void>((resolve) => v6.close(() => resolve()));
      }
    });

    it('verifies a receiver\'s certificate: one nobody trusts gets nothing', async () => {
      const untrusted = await new UntrustedTlsTarget().start();
      try {
        const parts = start({ WEBHOOK_RETRY_SCHEDULE: '0' });
        const [id] = await enqueue(parts, ['started'], { url: untrusted.url('/hook') });
        await eventually(stateIs(id, 'failed'), 10_000, 'failed');
        expect((await row(id)).last_error).to.match(/certificate/i);
        expect(untrusted.requests).to.equal(0);
      } finally {
        await untrusted.stop();
      }
    });

    it('stops gracefully: an attempt in flight finishes and is recorded', async () => {
      const parts = start({ WEBHOOK_RETRY_SCHEDULE: '0' });
      let answer: (() => void) | undefined;
      receiver.handler = (_r, res) => (answer = () => res.writeHead(200).end());
      const [id] = await enqueue(parts, ['started']);
      await eventually(() => answer !== undefined, 10_000, 'the attempt arrived');
      const stopped = parts.stop();
      setTimeout(() => answer?.(), 100);
      await stopped;
      expect(await row(id)).to.include({ state: 'delivered', claimed_until: 0 });
    });
  });
}
