import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { PAGE_HTML } from '../helpers/target-server.js';

// What this file proves is the same on either database (the stores' SQL runs on both in test/store, the ledger
// on MySQL in credits-concurrency, chaos-kills, client-hangups, firecrawl-batch, shutdown): SQLite only, for the suite's budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`v2 /v2/extended and /v2/usage (${database.name})`, () => {
    const s = useSuite(database);

    it('extended answers html, text, cookies, status_code, headers, xhrs and iframes', async () => {
      const key = await s.store.key();
      const res = await s.call('/v2/extended', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']]);
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).to.equal(200);
      expect(res.headers.get('svc-credits-cost')).to.equal('1');
      expect(body.html).to.equal(PAGE_HTML);
      expect(body.text).to.equal('Hello target\nFirst paragraph.\nBlock two\none\ntwo');
      expect(body.cookies).to.equal('session=abc123; theme=dark');
      expect(body.status_code).to.equal(200);
      expect(body.headers).to.deep.include({ name: 'x-target', value: 'yes' });
      expect(body.xhrs).to.deep.equal([]);
      expect(body.iframes).to.deep.equal([]);
      await expectMatchesSpec('v2ExtendedGet', res, body);
    });

    it('extended forwards POST bodies like general', async () => {
      const key = await s.store.key();
      const res = await s.call('/v2/extended', [['x-api-key', key], ['url', s.target.url('/echo')], ['browser', 'false']], {
        method: 'POST',
        headers: { 'svc-content-type': 'application/json' },
        body: '{"q":1}',
      });
      const body = (await res.json()) as { html: string };
      const echo = JSON.parse(body.html) as { method: string; body: string; headers: Record<string, string> };
      expect(echo).to.include({ method: 'POST', body: '{"q":1}' });
      expect(echo.headers['content-type']).to.equal('application/json');
      await expectMatchesSpec('v2ExtendedPost', res, body);
    });

    it('usage reports the plan, the period and the credits left after charges', async () => {
      const key = await s.store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
      await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']]);
      await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false'], ['proxy_type', 'datacenter']]);
      const res = await s.call('/v2/usage', [['x-api-key', key]]);
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).to.equal(200);
      expect(body).to.include({ plan_name: 'free', plan_total_credits: 10_000, remained_credits: 9_998 });
      const start = Date.parse(String(body.start_date));
      const end = Date.parse(String(body.end_date));
      expect(Date.now() - start).to.be.within(0, 120_000);
      expect(end - start).to.be.within(28 * 86_400_000, 31 * 86_400_000);
      await expectMatchesSpec('v2Usage', res, body);
    });

    it('usage answers 403 for an unknown key and 422 without one', async () => {
      const bad = await s.call('/v2/usage', [['x-api-key', 'sg_nope']]);
      expect(bad.status).to.equal(403);
      await expectMatchesSpec('v2Usage', bad, await bad.json());
      const missing = await s.call('/v2/usage', []);
      const body = await missing.json();
      expect(missing.status).to.equal(422);
      expect(body).to.deep.equal({ detail: [{ loc: ['query', 'x-api-key'], msg: 'field required (or send the x-api-key header)', type: 'value_error.missing' }] });
      await expectMatchesSpec('v2Usage', missing, body);
    });

    it('publishes the OpenAPI document and the docs', async () => {
      const json = await fetch(`${s.server.base}/openapi.json`);
      expect(((await json.json()) as { openapi: string }).openapi).to.equal('3.0.3');
      const yaml = await fetch(`${s.server.base}/openapi.yaml`);
      expect(await yaml.text()).to.match(/^openapi: 3\.0\.3/m);
      const docs = await fetch(`${s.server.base}/docs`);
      expect(docs.headers.get('content-type')).to.match(/^text\/html/);
      const html = await docs.text();
      expect(html).to.contain('scrapegate API');
      expect(html).to.not.match(/<script[^>]+src="https?:/);
    });
  });
}
