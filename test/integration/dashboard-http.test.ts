import { expect } from 'chai';
import { adminCaller } from '../helpers/admin-calls.js';
import { DashboardClient, textOf } from '../helpers/dashboard-client.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { ServerProcess } from '../helpers/server-process.js';
import { useSuite } from '../helpers/suite.js';

const TOKEN = 'dashboard-admin-token-5e1b7c-9a3f1d07';

interface KeyWithSecret {
  id: number;
  key: string;
  prefix: string;
  credits_remaining: number;
  plan: string;
  max_concurrency: number | null;
  allowed_ips: string[];
  revoked_at: string | null;
}

// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`the dashboard over HTTP (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { ADMIN_TOKEN: TOKEN });

    const admin = adminCaller(() => s.server.base, TOKEN);
    const newKey = (body: Record<string, unknown> = {}) => admin<KeyWithSecret>('POST', '/admin/v1/keys', { plan: 'startup', ...body });
    const scrape = (key: string, path = '/page') => s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(path)], ['browser', 'false']]);
    const keyCount = async () => (await admin<{ items: unknown[] }>('GET', '/admin/v1/keys?limit=500')).items.length;
    const metric = async (line: string) => {
      const text = await (await fetch(`${s.server.base}/metrics`)).text();
      return Number(text.split('\n').find((l) => l.startsWith(line))?.split(' ').pop() ?? 0);
    };

    it('keeps the session in an HttpOnly, SameSite=Strict cookie of /dashboard only, never Secure over plain http', async () => {
      const { key } = await newKey();
      const user = new DashboardClient(s.server.base);
      const signedIn = await user.signIn(key);
      expect(signedIn.status).to.equal(303);
      expect(signedIn.location).to.equal('/dashboard');
      const [cookie] = signedIn.headers['set-cookie'] ?? [];
      expect(cookie).to.match(/^scrapegate_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=28800; HttpOnly; SameSite=Strict$/);
      const page = await user.get('/dashboard');
      expect(page.status).to.equal(200);
      expect(page.headers['cache-control']).to.equal('no-store');
      // Only what carries this answer's nonce runs: not 'self', which would admit /v2/general's answers as scripts.
      const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(String(page.headers['content-security-policy']))?.[1];
      expect(nonce).to.be.a('string');
      expect(page.headers['content-security-policy']).to.contain("frame-ancestors 'none'").and.not.contain("script-src 'self'").and.not.contain('unsafe-inline');
      expect(page.body.match(/<script src="[^"]+" nonce="([^"]+)"><\/script>/g)).to.have.length(2);
      expect(page.body).to.contain(`nonce="${nonce}"`);
      expect(/script-src 'nonce-([^']+)'/.exec(String((await user.get('/dashboard')).headers['content-security-policy']))?.[1], 'a new nonce each time').not.to.equal(nonce);
      expect(page.body).not.to.contain(key);
      // A forged X-Forwarded-Proto from an untrusted peer changes nothing.
      const forged = await new DashboardClient(s.server.base).request('POST', '/dashboard/sign-in', { secret: key }, { 'x-forwarded-proto': 'https' });
      expect(forged.headers['set-cookie']?.[0]).not.to.contain('Secure');
    });

    it('refuses changes from another origin or site, or without the session\'s CSRF token, and changes nothing', async () => {
      const operator = new DashboardClient(s.server.base);
      expect((await operator.signIn(TOKEN)).status).to.equal(303);
      const before = await keyCount();
      const otherOrigin = s.target.url('/').replace(/\/$/, '');
      const attempts = [
        await operator.post('/dashboard/keys', { plan: 'free' }, { origin: otherOrigin, 'sec-fetch-site': 'same-site' }),
        await operator.post('/dashboard/keys', { plan: 'free' }, { origin: otherOrigin, 'sec-fetch-site': '' }),
        await operator.post('/dashboard/keys', { plan: 'free' }, { origin: '', 'sec-fetch-site': 'cross-site' }),
        await operator.post('/dashboard/keys', { plan: 'free' }, { origin: '', 'sec-fetch-site': '', referer: `${otherOrigin}/form` }),
        await operator.post('/dashboard/keys', { plan: 'free', csrf: 'not-the-token' }),
        await operator.request('POST', '/dashboard/keys', { plan: 'free' }),
      ];
      for (const a of attempts) expect(a.status, a.body).to.equal(403);
      expect(await keyCount()).to.equal(before);
      const made = await operator.post('/dashboard/keys', { plan: 'free', label: 'made here' });
      expect(made.status).to.equal(201);
      expect(await keyCount()).to.equal(before + 1);
    });

    it('answers a form of more fields than it reads with 400, and one too large with 422, never a 500', async () => {
      const crowded = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 'x']));
      const many = await new DashboardClient(s.server.base).request('POST', '/dashboard/sign-in', crowded);
      expect(many.status).to.equal(400);
      expect(many.body).to.contain('too many fields');
      const large = await new DashboardClient(s.server.base).request('POST', '/dashboard/sign-in', { secret: 'x'.repeat(40_000) });
      expect(large.status).to.equal(422);
      expect(s.server.rawOutput.join('\n')).not.to.contain('dashboard failure');
    });

    it('ends a key\'s session at once when the key is revoked, or rotated by the operator', async () => {
      const revoked = await newKey();
      const rotated = await newKey();
      const [a, b] = [new DashboardClient(s.server.base), new DashboardClient(s.server.base)];
      await a.signIn(revoked.key);
      await b.signIn(rotated.key);
      expect(textOf((await a.get('/dashboard')).body, 'key-prefix')).to.equal(`${revoked.prefix}…`);
      await admin('DELETE', `/admin/v1/keys/${revoked.id}`);
      await admin('POST', `/admin/v1/keys/${rotated.id}/rotate`, { grace_seconds: 0 });
      for (const client of [a, b]) {
        const page = await client.get('/dashboard');
        expect(page.body).to.contain('<h1>Sign in</h1>');
        expect(page.headers['set-cookie']?.[0]).to.match(/^scrapegate_session=; .*Max-Age=0/);
      }
    });

    it('lets a user rotate their own key: the old secret is refused, the new one scrapes, and the audit names the key', async () => {
      const { key, id, prefix } = await newKey();
      const user = new DashboardClient(s.server.base);
      await user.signIn(key);
      const form = (await user.get('/dashboard')).body;
      const sent = { csrf: /name="csrf" value="([^"]+)"/.exec(form)?.[1] ?? '', form_id: /name="form_id" value="([^"]+)"/.exec(form)?.[1] ?? '', grace_seconds: '0' };
      const page = await user.request('POST', '/dashboard/rotate', sent);
      expect(page.status).to.equal(200);
      const secret = /id="new-secret" type="text" readonly value="(sg_[^"]+)"/.exec(page.body)?.[1] ?? '';
      expect(secret).to.match(/^sg_/).and.not.equal(key);
      expect((await scrape(key)).status).to.equal(403);
      expect((await scrape(secret)).status).to.equal(200);
      // The session moved to the new secret; the secret is never shown again.
      const after = await user.get('/dashboard');
      expect(after.status).to.equal(200);
      expect(after.body).not.to.contain(secret);
      // A reload sends the same form again: it is refused, and the key is not rotated twice.
      const again = await user.request('POST', '/dashboard/rotate', sent);
      expect(again.status).to.equal(409);
      expect(again.body).to.contain('sent already');
      expect((await scrape(secret)).status, 'the secret shown still works').to.equal(200);
      const audit = await admin<{ items: Array<{ actor: string; action: string }> }>('GET', `/admin/v1/audit?key_id=${id}`);
      expect(audit.items[0]).to.include({ actor: `key:${prefix}`, action: 'rotate' });
    });

    it('lets the operator change a key through the same rules as the admin API, with the same 422s', async () => {
      const operator = new DashboardClient(s.server.base);
      await operator.signIn(TOKEN);
      const { id } = await newKey();
      const bad = await operator.post(`/dashboard/keys/${id}`, { allowed_ips: '203.0.113.0/24\nnot-an-address' });
      expect(bad.status).to.equal(422);
      expect(bad.body).to.contain('allowed_ips').and.contain('id="save-key"');
      const changed = await operator.post(`/dashboard/keys/${id}`, { plan: 'business', add_credits: '5', allowed_ips: '203.0.113.0/24\n2001:db8::/32', max_concurrency: '3' });
      expect(changed.status).to.equal(303);
      const record = await admin<KeyWithSecret>('GET', `/admin/v1/keys/${id}`);
      expect(record).to.include({ plan: 'business', max_concurrency: 3 });
      expect(record.allowed_ips).to.deep.equal(['203.0.113.0/24', '2001:db8::/32']);
      const audit = await admin<{ items: Array<{ actor: string; action: string }> }>('GET', `/admin/v1/audit?key_id=${id}`);
      expect(audit.items[0]).to.include({ actor: 'admin', action: 'update' });
      // A user's session does not open the operator's pages.
      const { key } = await newKey();
      const user = new DashboardClient(s.server.base);
      await user.signIn(key);
      expect((await user.get(`/dashboard/keys/${id}`)).status).to.equal(404);
      expect((await user.post('/dashboard/keys', { plan: 'free' })).status).to.equal(404);
    });

    it('counts a key\'s 403 and 409 refusals in its usage and its page, uncharged', async () => {
      const { key, id } = await newKey({ plan: 'free', credits: 2, max_concurrency: 1 });
      const hanging = scrape(key, '/slow?ms=1500');
      await eventually(async () => (await admin<{ items: unknown[] }>('GET', `/admin/v1/keys/${id}/requests`)).items.length === 1, 5_000, 'the first request reserved');
      expect((await scrape(key)).status).to.equal(409);
      expect((await hanging).status).to.equal(200);
      expect((await scrape(key)).status).to.equal(200);
      expect((await scrape(key)).status, 'out of credits').to.equal(403);
      type Usage = { days: Array<{ requests: number; refused: number; status: Record<string, number> }> };
      let usage: Usage | undefined;
      await eventually(async () => {
        usage = await admin<Usage>('GET', `/admin/v1/keys/${id}/usage`);
        return usage.days.length === 1 && usage.days[0].refused === 2;
      }, 12_000, 'the refusals counted');
      expect(usage!.days[0]).to.deep.include({ requests: 2, refused: 2 });
      expect(usage!.days[0].status).to.include({ '200': 2, '403': 1, '409': 1 });
      const user = new DashboardClient(s.server.base);
      await user.signIn(key);
      const page = (await user.get('/dashboard')).body;
      const charts = JSON.parse(/id="dashboard-charts">([^<]*)</.exec(page)?.[1] ?? '[]') as Array<{ canvas: string; labels: string[]; values: number[] }>;
      const outcomes = charts.find((c) => c.canvas === 'outcomes-chart')!;
      expect(Object.fromEntries(outcomes.labels.map((l, i) => [l, outcomes.values[i]]))).to.deep.equal({ '200': 2, '403': 1, '404': 0, '409': 1, '422': 0, '423': 0, '5xx': 0, other: 0 });
    });

    it('lets an operator search for a pasted secret without it reaching a URL or a log line', async () => {
      const { key, prefix } = await newKey({ label: 'pasted' });
      const operator = new DashboardClient(s.server.base);
      await operator.signIn(TOKEN);
      const found = await operator.post('/dashboard/search', { q: prefix });
      expect(found.status).to.equal(200);
      expect(found.body).to.contain(`${prefix}…`);
      const pasted = await operator.post('/dashboard/search', { q: key });
      expect(pasted.status).to.equal(200);
      expect(pasted.body, 'found by its prefix').to.contain(`${prefix}…`).and.not.contain(key);
      expect(s.server.rawOutput.join('\n')).not.to.contain(key);
    });

    it('signs out a session whose key may no longer be used from here', async () => {
      const { key, id } = await newKey();
      const user = new DashboardClient(s.server.base);
      await user.signIn(key);
      await admin('PATCH', `/admin/v1/keys/${id}`, { allowed_ips: ['127.0.0.2'] });
      expect((await user.get('/dashboard')).status).to.equal(403);
      expect((await user.request('POST', '/dashboard/sign-out', {})).status, 'not without the CSRF token').to.equal(403);
      const page = (await user.get('/dashboard')).body;
      expect(page).to.contain('IP restriction');
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      expect(csrf, 'the 403 page still offers a sign-out').not.to.equal('');
      const signedOut = await user.request('POST', '/dashboard/sign-out', { csrf });
      expect(signedOut.status).to.equal(303);
      expect(user.cookie).to.equal(undefined);
      expect(await s.store.db.knex('dashboard_sessions').where({ api_key_id: id }).first()).to.equal(undefined);
    });

    it('refuses a restricted key from elsewhere, and never shows or logs a secret', async () => {
      const { key } = await newKey({ allowed_ips: ['127.0.0.2'] });
      const failures = await metric('scrapegate_dashboard_sign_in_failures_total{reason="ip_restricted"}');
      const fromHere = await new DashboardClient(s.server.base).signIn(key);
      expect(fromHere.status).to.equal(403);
      expect(fromHere.body).to.contain('IP restriction');
      expect(await metric('scrapegate_dashboard_sign_in_failures_total{reason="ip_restricted"}')).to.equal(failures + 1);
      expect((await new DashboardClient(s.server.base, '127.0.0.2').signIn(key)).status).to.equal(303);
      expect(s.server.rawOutput.join('\n')).not.to.contain(key).and.not.to.contain(TOKEN);
    });

    it('limits sign-ins to 10 failures per client in 15 minutes: the eleventh gets 429 with Retry-After, other clients are unaffected', async () => {
      // 127.0.0.3: a client of its own (the other tests sign in from 127.0.0.1 and 127.0.0.2).
      const guesser = new DashboardClient(s.server.base, '127.0.0.3');
      const { key } = await newKey();
      const invalid = await metric('scrapegate_dashboard_sign_in_failures_total{reason="invalid"}');
      for (let i = 0; i < 10; i++) expect((await guesser.signIn(`sg_wrong-guess-${i}`)).status).to.equal(401);
      const eleventh = await guesser.signIn('sg_wrong-guess-10');
      expect(eleventh.status).to.equal(429);
      const retryAfter = Number(eleventh.headers['retry-after']);
      expect(retryAfter).to.be.within(890, 900);
      expect((await guesser.signIn(key)).status, 'even the right key waits').to.equal(429);
      expect((await guesser.signIn(TOKEN)).status).to.equal(429);
      expect(await metric('scrapegate_dashboard_sign_in_failures_total{reason="invalid"}')).to.equal(invalid + 10);
      expect(await metric('scrapegate_dashboard_sign_in_failures_total{reason="limited"}')).to.be.at.least(3);
      expect((await new DashboardClient(s.server.base, '127.0.0.4').signIn(key)).status).to.equal(303);
    });
  });
}

describe('the dashboard behind a trusted proxy (TRUSTED_PROXIES=127.0.0.1/32)', function () {
  this.timeout(60_000);
  let server: ServerProcess;
  const database = testDatabases()[0];
  before(async () => {
    server = await new ServerProcess({ DATABASE_URL: database.freshUrl(), BROWSER_POOL_SIZE: '0', ADMIN_TOKEN: TOKEN, TRUSTED_PROXIES: '127.0.0.1/32' }).start();
  });
  after(() => server?.stop());

  it('marks the cookie Secure when the proxy says the browser came over https, and counts failures against the forwarded client', async () => {
    const viaProxy = await new DashboardClient(server.base).request('POST', '/dashboard/sign-in', { secret: TOKEN }, { 'x-forwarded-proto': 'https', origin: 'https://' + server.base.slice('http://'.length) });
    expect(viaProxy.status).to.equal(303);
    expect(viaProxy.headers['set-cookie']?.[0]).to.match(/; HttpOnly; SameSite=Strict; Secure$/);
    const plain = await new DashboardClient(server.base).request('POST', '/dashboard/sign-in', { secret: TOKEN }, { 'x-forwarded-proto': 'http' });
    expect(plain.headers['set-cookie']?.[0]).not.to.contain('Secure');
    const client = (n: number) => new DashboardClient(server.base).request('POST', '/dashboard/sign-in', { secret: `wrong-${n}` }, { 'x-forwarded-for': '198.51.100.7' });
    for (let i = 0; i < 10; i++) expect((await client(i)).status).to.equal(401);
    expect((await client(10)).status).to.equal(429);
    const other = await new DashboardClient(server.base).request('POST', '/dashboard/sign-in', { secret: 'wrong' }, { 'x-forwarded-for': '198.51.100.8' });
    expect(other.status).to.equal(401);
  });
});
