import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { PAGE_HTML } from '../helpers/target-server.js';

interface V1Body {
  content: string;
  cookies: string;
  status_code: number;
}

// What this file proves is the same on either database (the ledger on MySQL has suites of its own:
// credits-concurrency, chaos-kills, client-hangups, firecrawl-batch): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`v1 /v1/general in plain mode (${database.name})`, () => {
    const s = useSuite(database);
    let key: string;
    before(async () => {
      key = await s.store.key();
    });

    it('GET answers {content, cookies, status_code} with the key as a query parameter', async () => {
      const res = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']]);
      const body = (await res.json()) as V1Body;
      expect(res.status).to.equal(200);
      expect(body).to.deep.equal({ content: PAGE_HTML, cookies: 'session=abc123; theme=dark', status_code: 200 });
      await expectMatchesSpec('v1GeneralGet', res, body);
    });

    it('GET takes the key from the x-api-key header', async () => {
      const res = await s.call('/v1/general', [['url', s.target.url('/page')], ['browser', 'false']], { headers: { 'x-api-key': key } });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as V1Body).status_code).to.equal(200);
    });

    it('POST takes the same parameters as a JSON body and answers exactly as GET', async () => {
      const query = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false'], ['return_text', 'true']]);
      const res = await fetch(`${s.server.base}/v1/general`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ 'x-api-key': key, url: s.target.url('/page'), browser: false, return_text: true }),
      });
      const body = (await res.json()) as V1Body;
      expect(res.status).to.equal(200);
      expect(body).to.deep.equal(await query.json());
      await expectMatchesSpec('v1GeneralPost', res, body);
    });

    it('POST accepts the key in the header and Python-spelled booleans', async () => {
      const res = await fetch(`${s.server.base}/v1/general`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: JSON.stringify({ url: s.target.url('/page'), browser: 'False' }),
      });
      expect(res.status).to.equal(200);
    });

    it('POST takes the key from the query string too, and ignores parameters it does not know', async () => {
      const res = await fetch(`${s.server.base}/v1/general?x-api-key=${key}&unknown_flag=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': '' },
        body: JSON.stringify({ url: s.target.url('/page'), browser: false }),
      });
      expect(res.status).to.equal(200);
    });

    it('a refusal names the parameter where the request put it: a POST body\'s browser is ["body", "browser"]', async () => {
      // The browser engine is off in this suite, so browser=true is an invalid value wherever it stands.
      const post = await fetch(`${s.server.base}/v1/general`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: JSON.stringify({ url: s.target.url('/page'), browser: true }),
      });
      const postBody = (await post.json()) as { detail: Array<{ loc: unknown[]; type: string }> };
      expect(post.status).to.equal(422);
      expect(postBody.detail).to.deep.equal([{ loc: ['body', 'browser'], msg: 'the browser engine is not enabled on this server', type: 'value_error.engine_unavailable' }]);
      await expectMatchesSpec('v1GeneralPost', post, postBody);
      const get = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')]]);
      expect(((await get.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0].loc).to.deep.equal(['query', 'browser']);
    });

    it('a key in the header and a different one in the parameters is ambiguous: 422 naming both', async () => {
      const res = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']], { headers: { 'x-api-key': 'sg_other' } });
      const body = (await res.json()) as { detail: Array<{ loc: unknown[] }> };
      expect(res.status).to.equal(422);
      expect(body.detail.map((d) => d.loc)).to.deep.equal([['header', 'x-api-key'], ['query', 'x-api-key']]);
      const same = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']], { headers: { 'x-api-key': key } });
      expect(same.status, 'the same key twice is one key').to.equal(200);
    });

    it('return_text gives readable text: no scripts or styles, blocks on their own lines', async () => {
      const res = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false'], ['return_text', 'True']]);
      const body = (await res.json()) as V1Body;
      expect(body.content).to.equal('Hello target\nFirst paragraph.\nBlock two\none\ntwo');
    });

    it('decodes the body in the charset the target declares', async () => {
      const res = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/latin1')], ['browser', 'false']]);
      expect(((await res.json()) as V1Body).content).to.equal('<p>café</p>');
    });

    it('sends the cookies parameter and reports them among the page cookies', async () => {
      const res = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false'], ['cookies', 'pref=1']]);
      expect(s.target.requestsTo('/page').at(-1)?.headers.cookie).to.equal('pref=1');
      expect(((await res.json()) as V1Body).cookies).to.equal('pref=1; session=abc123; theme=dark');
    });

    it('wants a key from the header or the parameters (422 without either)', async () => {
      const res = await s.call('/v1/general', [['url', s.target.url('/page')]]);
      const body = await res.json();
      expect(res.status).to.equal(422);
      expect(body).to.deep.equal({ detail: [{ loc: ['query', 'x-api-key'], msg: 'field required (or send the x-api-key header)', type: 'value_error.missing' }] });
      await expectMatchesSpec('v1GeneralGet', res, body);
    });

    it('answers 405 naming GET and POST for other methods', async () => {
      const res = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/page')]], { method: 'PUT' });
      expect(res.status).to.equal(405);
      expect(await res.json()).to.deep.equal({ detail: 'Method not allowed. This endpoint accepts GET, POST.' });
      expect(res.headers.get('allow')).to.equal('GET, POST');
    });
  });
}
