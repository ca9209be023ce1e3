import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { PAGE_HTML } from '../helpers/target-server.js';

// What this file proves is the same on either database (the ledger on MySQL has suites of its own:
// credits-concurrency, chaos-kills, client-hangups, firecrawl-batch): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`v2 /v2/general in plain mode (${database.name})`, () => {
    const s = useSuite(database);
    let key: string;
    before(async () => {
      key = await s.store.key();
    });

    it('answers the target body byte for byte with the Svc- metadata headers', async () => {
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']]);
      const body = await res.text();
      expect(res.status).to.equal(200);
      expect(body).to.equal(PAGE_HTML);
      expect(res.headers.get('svc-credits-cost')).to.equal('1');
      expect(res.headers.get('svc-page-status-code')).to.equal('200');
      expect(res.headers.get('svc-original-header-x-target')).to.equal('yes');
      expect(res.headers.get('svc-original-header-content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.getSetCookie()).to.deep.equal([]);
      expect(res.headers.get('svc-original-header-set-cookie')).to.contain('session=abc123');
      await expectMatchesSpec('v2GeneralGet', res, body);
    });

    it('keeps binary bodies intact', async () => {
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/binary')], ['browser', '0']]);
      expect(Buffer.from(await res.arrayBuffer())).to.deep.equal(Buffer.from([0, 1, 2, 253, 254, 255]));
    });

    it('reports a target 404 as an outer 200, charged', async () => {
      const before = await s.store.remaining(key);
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/status?code=404')], ['browser', 'False']]);
      expect(res.status).to.equal(200);
      expect(res.headers.get('svc-page-status-code')).to.equal('404');
      expect(await res.text()).to.equal('status 404');
      expect(await s.store.remaining(key)).to.equal(before - 1);
    });

    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      it(`forwards ${method} with its body and svc- headers (prefix removed) to the target`, async () => {
        const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/echo')], ['browser', 'false']], {
          method,
          headers: {
            'svc-Content-Type': 'application/x-www-form-urlencoded',
            'svc-X-Custom': 'custom-value',
            'X-Not-Forwarded': 'secret',
            'svc-Host': 'evil.example',
            'svc-x-api-key': 'leak',
            'svc-Connection': 'close',
          },
          body: 'a=1&b=2',
        });
        expect(res.status).to.equal(200);
        const echo = (await res.json()) as { method: string; headers: Record<string, string>; body: string };
        expect(echo.method).to.equal(method);
        expect(echo.body).to.equal('a=1&b=2');
        expect(echo.headers['content-type']).to.equal('application/x-www-form-urlencoded');
        expect(echo.headers['x-custom']).to.equal('custom-value');
        expect(echo.headers).to.not.have.property('x-not-forwarded');
        expect(echo.headers).to.not.have.property('x-api-key');
        expect(echo.headers.host).to.equal(`127.0.0.1:${s.target.port}`);
        expect(JSON.stringify(echo.headers)).to.not.contain(key);
      });
    }

    it('forwards a bodiless POST at once, with an empty body', async () => {
      const started = Date.now();
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/echo')], ['browser', 'false'], ['timeout', '10']], { method: 'POST' });
      const echo = (await res.json()) as { method: string; headers: Record<string, string>; body: string };
      expect(echo).to.include({ method: 'POST', body: '' });
      expect(echo.headers['content-length']).to.equal('0');
      expect(Date.now() - started).to.be.below(2000);
    });

    it('sends the cookies parameter as a Cookie header', async () => {
      await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/echo?c=1')], ['browser', 'false'], ['cookies', 'a=1;b=two']]);
      const seen = s.target.requestsTo('/echo').at(-1);
      expect(seen?.headers.cookie).to.equal('a=1; b=two');
    });

    it('follows redirects and reports the final page', async () => {
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/redirect')], ['browser', 'false']]);
      expect(res.status).to.equal(200);
      expect(res.headers.get('svc-page-status-code')).to.equal('200');
      expect(await res.text()).to.equal(PAGE_HTML);
    });

    it('carries a cookie set on a redirect hop to the next hop, and reports it (no cookies asked for)', async () => {
      s.target.route('/set-and-redirect', (_req, res) => void res.writeHead(302, { location: '/echo?after-hop', 'set-cookie': 'hop=1; Path=/' }).end());
      const res = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/set-and-redirect')], ['browser', 'false']]);
      const body = (await res.json()) as { content: string; cookies: string };
      expect(res.status).to.equal(200);
      expect(JSON.parse(body.content).headers.cookie).to.equal('hop=1');
      expect(body.cookies).to.equal('hop=1');
      const plainPage = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']]);
      expect(((await plainPage.json()) as { cookies: string }).cookies).to.equal('session=abc123; theme=dark');
    });

    it('stops an endless redirect loop with a 404, not charged', async () => {
      const before = await s.store.remaining(key);
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/loop')], ['browser', 'false']]);
      expect(res.status).to.equal(404);
      const body = await res.json();
      await expectMatchesSpec('v2GeneralGet', res, body);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('never sets the API key on the target', async () => {
      for (const r of s.target.requests) {
        expect(r.url).to.not.contain(key);
        expect(JSON.stringify(r.rawHeaders)).to.not.contain(key);
      }
    });
  });
}
