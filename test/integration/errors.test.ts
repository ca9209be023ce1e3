import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { closedPort } from '../helpers/test-proxy.js';

// What this file proves is the same on either database (the ledger on MySQL has suites of its own:
// credits-concurrency, chaos-kills, client-hangups, firecrawl-batch): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`errors (${database.name})`, () => {
    const s = useSuite(database, { MAX_BODY_BYTES: String(1024 * 1024) });
    let key: string;
    before(async () => {
      key = await s.store.key();
    });

    const invalid: Array<[string, Array<[string, string]>, Array<string | number>, string]> = [
      ['a missing url', [], ['query', 'url'], 'value_error.missing'],
      ['a non-http url', [['url', 'ftp://example.com/file']], ['query', 'url'], 'value_error.url.scheme'],
      ['a timeout below 5', [['timeout', '4']], ['query', 'timeout'], 'value_error.number.not_ge'],
      ['a timeout above 60', [['timeout', '61']], ['query', 'timeout'], 'value_error.number.not_le'],
      ['a timeout that is not an integer', [['timeout', '7.5']], ['query', 'timeout'], 'type_error.integer'],
      ['an unknown proxy_type', [['proxy_type', 'mobile']], ['query', 'proxy_type'], 'type_error.enum'],
      ['an unknown block_resource', [['block_resource', 'image'], ['block_resource', 'gifs']], ['query', 'block_resource', 1], 'type_error.enum'],
      ['a boolean that is not one', [['browser', 'yes please']], ['query', 'browser'], 'type_error.bool'],
      ['a js_snippet that is not base64', [['js_snippet', 'alert(1)']], ['query', 'js_snippet'], 'value_error.base64'],
      ['a proxy_country that is not a country code', [['proxy_country', 'USA']], ['query', 'proxy_country'], 'value_error.country_code'],
    ];
    for (const [what, params, loc, type] of invalid) {
      it(`answers 422 for ${what}`, async () => {
        const withUrl = params.some(([n]) => n === 'url') || what === 'a missing url' ? params : [['url', s.target.url('/page')] as [string, string], ...params];
        const res = await s.call('/v2/general', [['x-api-key', key], ...withUrl]);
        const body = (await res.json()) as { detail: Array<{ loc: unknown[]; type: string }> };
        expect(res.status).to.equal(422);
        expect(body.detail.map((d) => [d.loc, d.type])).to.deep.include([loc, type]);
        await expectMatchesSpec('v2GeneralGet', res, body);
      });
    }

    it('answers 400 for a malformed JSON body', async () => {
      const res = await fetch(`${s.server.base}/v1/general`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{"url": ' });
      const body = await res.json();
      expect(res.status).to.equal(400);
      expect(body).to.deep.equal({ detail: 'The request body must be proper JSON.' });
      await expectMatchesSpec('v1GeneralPost', res, body);
    });

    it('answers 422 on url for a host longer than 253 characters, before anything is reserved or resolved', async () => {
      const host = Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.');
      expect(host.length).to.equal(304);
      const before = await s.store.remaining(key);
      const rows = async () => Number((await s.store.db.knex('request_ledger').count({ n: '*' }).first())?.n ?? 0);
      const rowsBefore = await rows();
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', `http://${host}/page`], ['browser', 'false']]);
      const body = await res.json();
      expect(res.status).to.equal(422);
      expect(body).to.deep.equal({ detail: [{ loc: ['query', 'url'], msg: 'ensure the host has at most 253 characters', type: 'value_error.url.host_too_long' }] });
      await expectMatchesSpec('v2GeneralGet', res, body);
      expect(await rows(), 'ledger rows').to.equal(rowsBefore);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('answers 403 for an unknown key and for a revoked one', async () => {
      const unknown = await s.call('/v2/general', [['x-api-key', 'sg_unknown'], ['url', s.target.url('/page')], ['browser', 'false']]);
      expect(unknown.status).to.equal(403);
      expect(await unknown.json()).to.deep.equal({ detail: 'Invalid API key.' });
      const revokedKey = await s.store.key();
      await s.store.keys.revoke(revokedKey);
      const revoked = await s.call('/v2/general', [['x-api-key', revokedKey], ['url', s.target.url('/page')], ['browser', 'false']]);
      expect(revoked.status).to.equal(403);
      await expectMatchesSpec('v2GeneralGet', revoked, await revoked.json());
    });

    it('answers 405 naming GET, POST, PUT, DELETE for PATCH and other methods on /v2/general', async () => {
      for (const method of ['PATCH', 'OPTIONS']) {
        const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')]], { method });
        expect(res.status, method).to.equal(405);
        expect(await res.json()).to.deep.equal({ detail: 'Method not allowed. This endpoint accepts GET, POST, PUT, DELETE.' });
      }
      expect(s.target.requestsTo('/page').filter((r) => r.method === 'PATCH')).to.have.length(0);
      // express would answer HEAD with the GET route: the document declares no HEAD, so nothing is scraped.
      const seen = s.target.requests.length;
      const head = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']], { method: 'HEAD' });
      expect(head.status).to.equal(405);
      expect(head.headers.get('allow')).to.equal('GET, POST, PUT, DELETE');
      expect(s.target.requests.length).to.equal(seen);
    });

    it('answers 404 JSON for an unknown path', async () => {
      const res = await fetch(`${s.server.base}/v3/general`);
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({ detail: 'Not Found' });
    });

    it('answers 404, not charged, when the target is unreachable or the deadline passes (retrying until then)', async function () {
      this.timeout(20_000);
      const before = await s.store.remaining(key);
      const port = await closedPort();
      const started = Date.now();
      const [unreachable, slow] = await Promise.all([
        s.call('/v2/general', [['x-api-key', key], ['url', `http://127.0.0.1:${port}/`], ['browser', 'false'], ['timeout', '5']]),
        s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/hang')], ['browser', 'false'], ['timeout', '5']]),
      ]);
      const elapsed = Date.now() - started;
      expect(unreachable.status).to.equal(404);
      expect(((await unreachable.json()) as { detail: string }).detail).to.contain('could not be reached');
      expect(slow.status).to.equal(404);
      expect(((await slow.json()) as { detail: string }).detail).to.contain('5-second deadline');
      expect(elapsed).to.be.within(4_500, 8_000);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('caps response bodies, also a decompression bomb (404, not charged)', async () => {
      const before = await s.store.remaining(key);
      const ok = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/big?bytes=1000000')], ['browser', 'false']]);
      expect(ok.status).to.equal(200);
      expect((await ok.arrayBuffer()).byteLength).to.equal(1_000_000);
      const big = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/big?bytes=2000000')], ['browser', 'false']]);
      expect(big.status).to.equal(404);
      expect(((await big.json()) as { detail: string }).detail).to.contain('exceeds 1048576 bytes');
      const bomb = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/bomb')], ['browser', 'false']]);
      expect(bomb.status).to.equal(404);
      expect(await s.store.remaining(key)).to.equal(before - 1);
    });

    it('answers 403 before fetching anything when the credits do not cover the cost', async () => {
      const poor = await s.store.key({ credits: 24 });
      const res = await s.call('/v2/general', [['x-api-key', poor], ['url', s.target.url('/echo?poor=1')], ['browser', 'false'], ['proxy_type', 'residential']]);
      expect(res.status).to.equal(403);
      expect(((await res.json()) as { detail: string }).detail).to.contain('costs 25');
      expect(s.target.requests.filter((r) => r.url.includes('poor=1'))).to.have.length(0);
      expect(await s.store.remaining(poor)).to.equal(24);
    });

    it('never writes the API key into a log line', () => {
      const all = s.server.rawOutput.join('\n');
      expect(all).to.contain('"msg":"request"');
      expect(all).to.not.contain(key);
    });
  });
}
