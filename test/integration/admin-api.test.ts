import { expect } from 'chai';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { createAdminClient } from '../../src/client/admin/index.js';
import { testDatabases } from '../helpers/databases.js';
import { booksBalance } from '../helpers/ledger-checks.js';
import { ServerProcess } from '../helpers/server-process.js';
import { adminOperationOf, expectMatchesAdminSpec, expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

const TOKEN = 'test-admin-token-7f3c9a1e5b-0d4e8a2c';
const run = promisify(execFile);

/** GET with a bearer token from a client socket bound to `localAddress`: another loopback address is another client. */
function getFrom(localAddress: string, url: string, token: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
    req.on('error', reject);
  });
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  res: Response;
}
type KeyBody = { id: number; key: string; prefix: string; credits_total: number; credits_remaining: number; plan: string; max_concurrency: number | null; allowed_ips: string[]; revoked_at: string | null; previous_secret_expires_at: string | null };

for (const database of testDatabases()) {
  describe(`admin API (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { ADMIN_TOKEN: TOKEN });

    /** A call to the admin API; every answer is checked against the admin document. */
    async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<Answer<T>> {
      const headers: Record<string, string> = {};
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${s.server.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      const parsed = text === '' ? undefined : (JSON.parse(text) as T);
      await expectMatchesAdminSpec(await adminOperationOf(method, path.split('?')[0]), res, parsed);
      return { status: res.status, body: parsed as T, res };
    }
    const scrape = (key: string, from = '/page') => s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(from)], ['browser', 'false']]);
    const usage = async (key: string) => (await (await s.call('/v2/usage', [['x-api-key', key]])).json()) as { remained_credits: number; plan_total_credits: number };
    const metric = async (line: string) => {
      const text = await (await fetch(`${s.server.base}/metrics`)).text();
      return Number(text.split('\n').find((l) => l.startsWith(line))?.split(' ').pop() ?? 0);
    };

    it('needs the admin token: none or a wrong one is 401 with WWW-Authenticate, a scraping key never opens it, the token never scrapes', async () => {
      const { body: created } = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'startup' });
      const failuresBefore = await metric('scrapegate_admin_auth_failures_total');
      for (const token of [null, 'wrong-token-0123456789', created.key, `${TOKEN}x`, TOKEN.slice(0, -1)]) {
        const a = await admin('GET', '/admin/v1/plans', undefined, token);
        expect(a.status, String(token)).to.equal(401);
        expect(a.res.headers.get('www-authenticate')).to.equal('Bearer');
        expect(a.body).to.deep.equal({ detail: 'A valid admin token is required (Authorization: Bearer <ADMIN_TOKEN>).' });
      }
      expect(await metric('scrapegate_admin_auth_failures_total')).to.equal(failuresBefore + 5);
      const asKey = await scrape(TOKEN);
      expect(asKey.status).to.equal(403);
      expect((await admin('GET', '/admin/v1/plans')).status).to.equal(200);
      expect(s.server.rawOutput.join('\n')).not.to.contain(TOKEN).and.not.to.contain(created.key);
    });

    it('answers the eleventh wrong token from one address with 429 and Retry-After, the right token included; other clients are unaffected', async () => {
      // 127.0.0.6: a client of its own (the other tests call from 127.0.0.1).
      const url = `${s.server.base}/admin/v1/plans`;
      for (let i = 0; i < 10; i++) expect((await getFrom('127.0.0.6', url, `wrong-token-guess-${i}`)).status).to.equal(401);
      const limited = await getFrom('127.0.0.6', url, 'wrong-token-guess-10');
      expect(limited.status).to.equal(429);
      expect(Number(limited.retryAfter)).to.be.within(890, 900);
      expect(JSON.parse(limited.body)).to.have.property('detail').that.matches(/^Too many requests with a wrong admin token from this address\. Try again in \d+ seconds\.$/);
      expect((await getFrom('127.0.0.6', url, TOKEN)).status, 'the right token waits too').to.equal(429);
      expect((await getFrom('127.0.0.7', url, TOKEN)).status).to.equal(200);
      for (let i = 0; i < 12; i++) expect((await getFrom('127.0.0.7', url, TOKEN)).status, 'right tokens are never counted').to.equal(200);
    });

    it('never counts the right token: twenty at once from an address one failure short of the limit all get 200', async () => {
      // 127.0.0.8: a client of its own. When every request was written down as a failure until it
      // succeeded, any two of these twenty in flight together with the nine failures made eleven.
      const url = `${s.server.base}/admin/v1/plans`;
      for (let i = 0; i < 9; i++) expect((await getFrom('127.0.0.8', url, `wrong-token-guess-${i}`)).status).to.equal(401);
      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await getFrom('127.0.0.8', url, TOKEN)).status));
      expect(statuses).to.deep.equal(Array(20).fill(200));
      expect((await getFrom('127.0.0.8', url, 'wrong-token-guess-9')).status, 'the tenth failure is still a 401').to.equal(401);
      expect((await getFrom('127.0.0.8', url, TOKEN)).status, 'past ten, the right token waits').to.equal(429);
    });

    it('will not start when ADMIN_TOKEN is the secret of a key, and says so without repeating it', async () => {
      const key = await s.store.key();
      const refused = new ServerProcess({ DATABASE_URL: s.databaseUrl, BROWSER_POOL_SIZE: '0', ADMIN_TOKEN: key });
      const err = await refused.start('listening').then(() => undefined, (e: unknown) => e as Error);
      await refused.stop();
      expect(err?.message).to.contain('ADMIN_TOKEN is the secret of an API key').and.not.to.contain(key);
    });

    it('creates a key whose secret is answered once; the key scrapes at once; the catalog lists the plans', async () => {
      const plans = await admin<{ plans: Array<{ name: string; credits: number }> }>('GET', '/admin/v1/plans');
      expect(plans.body.plans.map((p) => p.name)).to.include.members(['free', 'startup']);
      const created = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'free', label: 'acme crawler' });
      expect(created.status).to.equal(201);
      expect(created.res.headers.get('cache-control')).to.equal('no-store');
      expect(created.body).to.include({ plan: 'free', credits_total: 10_000, credits_remaining: 10_000, max_concurrency: 1, revoked_at: null });
      expect(created.body.key).to.match(/^sg_\S{32}$/);
      expect(created.body.prefix).to.equal(created.body.key.slice(0, 10));
      expect((await scrape(created.body.key)).status).to.equal(200);
      const got = await admin<Record<string, unknown>>('GET', `/admin/v1/keys/${created.body.id}`);
      expect(got.body).to.include({ credits_remaining: 9_999 });
      expect(got.body).not.to.have.property('key');
      expect(JSON.stringify((await admin('GET', '/admin/v1/keys?limit=500')).body)).not.to.contain(created.body.key);
      expect((await admin('GET', '/admin/v1/keys/999999')).status).to.equal(404);
      const custom = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'free', credits: 5, max_concurrency: null, allowed_ips: ['127.0.0.2', '2001:DB8::/32'] });
      expect(custom.body).to.include({ credits_total: 5, max_concurrency: null });
      expect(custom.body.allowed_ips).to.deep.equal(['127.0.0.2/32', '2001:db8::/32']);
    });

    it('refuses what the rules refuse with 422 naming the field: unknown plan, bad address, both credit fields, unknown fields', async () => {
      const plan = await admin<{ detail: unknown }>('POST', '/admin/v1/keys', { plan: 'platinum' });
      expect(plan.status).to.equal(422);
      expect(plan.body.detail).to.deep.equal([{ loc: ['body', 'plan'], msg: 'unknown plan; one of: free, enthusiast, startup, business, business-pro', type: 'value_error.plan' }]);
      const ip = await admin<{ detail: Array<{ loc: unknown[] }> }>('POST', '/admin/v1/keys', { plan: 'free', allowed_ips: ['127.0.0.1', 'office'] });
      expect(ip.status).to.equal(422);
      expect(ip.body.detail.map((d) => d.loc)).to.deep.equal([['body', 'allowed_ips', 1]]);
      const { body: key } = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'startup' });
      const both = await admin<{ detail: Array<{ loc: unknown[] }> }>('PATCH', `/admin/v1/keys/${key.id}`, { add_credits: 1, credits_remaining: 5 });
      expect(both.status).to.equal(422);
      expect(both.body.detail[0].loc).to.deep.equal(['body', 'credits_remaining']);
      expect((await admin('PATCH', `/admin/v1/keys/${key.id}`, { credits: 5 })).status, 'unknown field').to.equal(422);
      expect((await admin('PATCH', `/admin/v1/keys/${key.id}`, {})).status, 'empty change').to.equal(422);
      expect((await admin('PATCH', `/admin/v1/keys/${key.id}`, { credits_remaining: -1 })).status).to.equal(422);
      expect((await admin('GET', '/admin/v1/keys/abc')).status).to.equal(422);
      expect((await admin('PATCH', '/admin/v1/keys/999999', { label: 'x' })).status).to.equal(404);
      expect((await admin('GET', `/admin/v1/keys/${key.id}`)).body).to.include({ credits_remaining: 500_000 });
      const malformed = await fetch(`${s.server.base}/admin/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{"plan":' });
      expect(malformed.status).to.equal(400);
      await expectMatchesAdminSpec('adminCreateKey', malformed, await malformed.json());
    });

    it('changes credits, plan, concurrency and addresses from the next request on, and the books still balance', async () => {
      const { body: key } = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'free' });
      expect((await scrape(key.key)).status).to.equal(200);
      const added = await admin<KeyBody>('PATCH', `/admin/v1/keys/${key.id}`, { add_credits: 100 });
      expect(added.body).to.include({ credits_total: 10_100, credits_remaining: 10_099 });
      expect(await usage(key.key)).to.include({ remained_credits: 10_099 });
      const set = await admin<KeyBody>('PATCH', `/admin/v1/keys/${key.id}`, { credits_remaining: 3 });
      expect(set.body).to.include({ credits_total: 4, credits_remaining: 3 });
      const upgraded = await admin<KeyBody>('PATCH', `/admin/v1/keys/${key.id}`, { plan: 'startup', max_concurrency: 4 });
      expect(upgraded.body).to.include({ plan: 'startup', credits_total: 500_000, credits_remaining: 499_999, max_concurrency: 4 });
      const restricted = await admin<KeyBody>('PATCH', `/admin/v1/keys/${key.id}`, { allowed_ips: ['127.0.0.2'] });
      expect(restricted.body.allowed_ips).to.deep.equal(['127.0.0.2/32']);
      const refused = await scrape(key.key);
      expect(refused.status).to.equal(403);
      expect(((await refused.json()) as { detail: string }).detail).to.contain('IP restriction');
      await admin('PATCH', `/admin/v1/keys/${key.id}`, { allowed_ips: [] });
      expect((await scrape(key.key)).status).to.equal(200);
      expect(await booksBalance(s.databaseUrl)).to.equal(true);
    });

    it('rotates: same balance and history, the new secret scrapes, the old one only within its grace', async () => {
      const { body: key } = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'startup' });
      expect((await scrape(key.key)).status).to.equal(200);
      const graced = await admin<KeyBody>('POST', `/admin/v1/keys/${key.id}/rotate`, { grace_seconds: 2 });
      expect(graced.status).to.equal(200);
      expect(graced.body.key).not.to.equal(key.key);
      expect(graced.body).to.include({ id: key.id, credits_remaining: 499_999 });
      expect(graced.body.previous_secret_expires_at).to.be.a('string');
      expect((await scrape(graced.body.key)).status, 'new secret').to.equal(200);
      expect((await scrape(key.key)).status, 'old secret within its grace').to.equal(200);
      await new Promise((r) => setTimeout(r, 2_100));
      expect((await scrape(key.key)).status, 'old secret after its grace').to.equal(403);
      const now = await admin<KeyBody>('POST', `/admin/v1/keys/${key.id}/rotate`);
      expect(now.body.previous_secret_expires_at).to.equal(null);
      expect((await scrape(graced.body.key)).status, 'rotated with no grace').to.equal(403);
      expect((await scrape(now.body.key)).status).to.equal(200);
      expect(await usage(now.body.key)).to.include({ remained_credits: 499_996 });
      const requests = await admin<{ items: unknown[] }>('GET', `/admin/v1/keys/${key.id}/requests`);
      expect(requests.body.items, 'the history stays with the key').to.have.length(4);
    });

    it('revokes: 204, and the key is refused on every instance at once; a revoked key is not changed (409)', async () => {
      const other = await new ServerProcess({ DATABASE_URL: s.databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: '0' }).start();
      try {
        const { body: key } = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'startup' });
        const onOther = () => fetch(`${other.base}/v2/general?${new URLSearchParams([['x-api-key', key.key], ['url', s.target.url('/page')], ['browser', 'false']])}`);
        expect((await onOther()).status).to.equal(200);
        const revoked = await admin('DELETE', `/admin/v1/keys/${key.id}`);
        expect(revoked.status).to.equal(204);
        expect((await onOther()).status).to.equal(403);
        expect((await scrape(key.key)).status).to.equal(403);
        expect((await admin('DELETE', `/admin/v1/keys/${key.id}`)).status, 'twice').to.equal(204);
        expect((await admin('PATCH', `/admin/v1/keys/${key.id}`, { add_credits: 5 })).status).to.equal(409);
        expect((await admin('POST', `/admin/v1/keys/${key.id}/rotate`)).status).to.equal(409);
        expect((await admin<KeyBody>('GET', `/admin/v1/keys/${key.id}`)).body.revoked_at).to.be.a('string');
        // Without ADMIN_TOKEN the admin API does not exist.
        const plans = await fetch(`${other.base}/admin/v1/plans`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(plans.status).to.equal(404);
        expect((await fetch(`${other.base}/admin/v1/nothing`)).status).to.equal(404);
      } finally {
        await other.stop();
      }
    });

    it('lists keys newest first with filters and a cursor', async () => {
      // A tag of this run's own: the MySQL schema may hold keys of other suites.
      const tag = `t${Date.now().toString(36)}`;
      const made: KeyBody[] = [];
      for (const label of [`list-${tag}%_a`, `list-${tag}-b`, `list-${tag}-c`]) made.push((await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'enthusiast', label })).body);
      type List = { items: KeyBody[]; next_cursor: string | null };
      const ids = async (query: string) => (await admin<List>('GET', `/admin/v1/keys?${query}`)).body.items.map((k) => k.id);
      const page1 = await admin<List>('GET', `/admin/v1/keys?q=${tag}&limit=2`);
      expect(page1.body.items.map((k) => k.id)).to.deep.equal([made[2].id, made[1].id]);
      const page2 = await admin<List>('GET', `/admin/v1/keys?q=${tag}&limit=2&cursor=${page1.body.next_cursor}`);
      expect(page2.body.items.map((k) => k.id)).to.deep.equal([made[0].id]);
      expect(page2.body.next_cursor).to.equal(null);
      // As wildcards, "%_" would also match "-b" and "-c".
      expect(await ids(`q=${encodeURIComponent(`${tag}%_`)}`), 'LIKE characters match themselves').to.deep.equal([made[0].id]);
      expect(await ids(`q=${made[1].prefix}`)).to.deep.equal([made[1].id]);
      await admin('DELETE', `/admin/v1/keys/${made[1].id}`);
      expect(await ids(`q=${tag}&plan=enthusiast&revoked=false`)).to.deep.equal([made[2].id, made[0].id]);
      expect(await ids(`q=${tag}&plan=enthusiast&revoked=true`)).to.deep.equal([made[1].id]);
      expect(await ids(`q=${tag}&plan=startup`)).to.deep.equal([]);
    });

    it("reports a key's daily usage and its ledger rows, newest first, filtered by status, a page at a time", async () => {
      const { body: key } = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'startup' });
      for (let i = 0; i < 3; i++) expect((await scrape(key.key)).status).to.equal(200);
      expect((await scrape(key.key, '/loop')).status, 'a redirect loop: refunded').to.equal(404);
      const today = new Date().toISOString().slice(0, 10);
      const report = await admin<{ days: Array<Record<string, unknown>> }>('GET', `/admin/v1/keys/${key.id}/usage?from=${today}&to=${today}`);
      expect(report.body.days).to.have.length(1);
      expect(report.body.days[0]).to.deep.include({ day: today, requests: 4, refused: 0, charged: 3, refunded: 1, credits: 3, status: { '200': 3, '403': 0, '404': 1, '409': 0, '422': 0, '423': 0, '5xx': 0, other: 0 }, engine: { plain: 4, browser: 0 } });
      expect((await admin('GET', `/admin/v1/keys/${key.id}/usage?from=2026-02-01&to=2026-01-01`)).status).to.equal(422);
      expect((await admin('GET', `/admin/v1/keys/${key.id}/usage?from=2024-01-01&to=2026-01-01`)).status).to.equal(422);
      type Page = { items: Array<{ status: number; target_host: string; outcome: string; cost: number }>; next_cursor: string | null };
      const first = await admin<Page>('GET', `/admin/v1/keys/${key.id}/requests?limit=3`);
      expect(first.body.items.map((r) => r.status)).to.deep.equal([404, 200, 200]);
      expect(first.body.items[0]).to.include({ target_host: '127.0.0.1', outcome: 'refunded' });
      const rest = await admin<Page>('GET', `/admin/v1/keys/${key.id}/requests?limit=3&cursor=${first.body.next_cursor}`);
      expect(rest.body.items.map((r) => r.status)).to.deep.equal([200]);
      expect(rest.body.next_cursor).to.equal(null);
      const ok = await admin<Page>('GET', `/admin/v1/keys/${key.id}/requests?status=200`);
      expect(ok.body.items).to.have.length(3);
      expect((await admin('GET', '/admin/v1/keys/999999/requests')).status).to.equal(404);
    });

    it('audits every change, by the API and by the CLI, with before and after, and never a secret; counts them in the metrics', async () => {
      const creates = await metric('scrapegate_admin_actions_total{action="create"}');
      const { body: key } = await admin<KeyBody>('POST', '/admin/v1/keys', { plan: 'free' });
      await admin('PATCH', `/admin/v1/keys/${key.id}`, { add_credits: 10, allowed_ips: ['127.0.0.2'] });
      await admin('PATCH', `/admin/v1/keys/${key.id}`, { add_credits: 10, allowed_ips: ['127.0.0.2'] }).then(() => admin('PATCH', `/admin/v1/keys/${key.id}`, { allowed_ips: ['127.0.0.2'] }));
      const rotated = await admin<KeyBody>('POST', `/admin/v1/keys/${key.id}/rotate`);
      await run('node', ['scripts/scrapegate.js', 'keys', 'set-ips', rotated.body.prefix, ''], { env: { ...process.env, DATABASE_URL: s.databaseUrl } });
      await admin('DELETE', `/admin/v1/keys/${key.id}`);
      type Entry = { actor: string; action: string; key_id: number; before: Record<string, unknown> | null; after: Record<string, unknown> | null };
      const log = await admin<{ items: Entry[] }>('GET', `/admin/v1/audit?key_id=${key.id}`);
      expect(log.body.items.map((e) => `${e.actor} ${e.action}`)).to.deep.equal(['admin revoke', 'cli update', 'admin rotate', 'admin update', 'admin update', 'admin create']);
      const [revoke, cli, rotate, second, first, create] = log.body.items;
      expect(create.before).to.equal(null);
      expect(create.after).to.include({ plan: 'free', credits_total: 10_000, credits_remaining: 10_000, max_concurrency: 1 });
      expect(first.before).to.deep.include({ credits_remaining: 10_000, allowed_ips: [] });
      expect(first.after).to.deep.include({ credits_remaining: 10_010, allowed_ips: ['127.0.0.2/32'] });
      expect(second.after).to.deep.include({ credits_remaining: 10_020 });
      expect(rotate.before).to.deep.equal({ prefix: key.prefix });
      expect(rotate.after).to.deep.equal({ prefix: rotated.body.prefix });
      expect(cli.after).to.deep.include({ allowed_ips: [] });
      expect(revoke.after).to.deep.equal({ revoked: true });
      expect(JSON.stringify(log.body)).not.to.contain(key.key).and.not.to.contain(rotated.body.key);
      expect(await metric('scrapegate_admin_actions_total{action="create"}')).to.equal(creates + 1);
    });

    it('is the typed client `scrapegate/admin-client`: every operation typed by the admin document', async () => {
      const client = createAdminClient({ baseUrl: s.server.base, adminToken: TOKEN });
      const created = await client.POST('/admin/v1/keys', { body: { plan: 'business', label: 'typed' } });
      expect(created.response.status).to.equal(201);
      const id = created.data!.id;
      const changed = await client.PATCH('/admin/v1/keys/{id}', { params: { path: { id } }, body: { add_credits: 1 } });
      expect(changed.data?.credits_remaining).to.equal(3_000_001);
      const refused = await client.GET('/admin/v1/keys/{id}', { params: { path: { id: 999_999 } } });
      expect(refused.error).to.deep.equal({ detail: 'No key has this id.' });
      const scraped = await scrape(created.data!.key);
      await expectMatchesSpec('v2GeneralGet', scraped, undefined);
      const wrong = createAdminClient({ baseUrl: s.server.base, adminToken: 'not-the-token-000000' });
      expect((await wrong.GET('/admin/v1/plans')).response.status).to.equal(401);
    });
  });
}
