import { expect } from 'chai';
import {
  createScrapegateClient,
  errorMessage,
  isValidationError,
  readSvcHeaders,
  type ScrapegateClient,
} from '../../src/client/index.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite, type Suite } from '../helpers/suite.js';
import { PAGE_HTML } from '../helpers/target-server.js';

interface Echo {
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** A client whose every outgoing request is kept, to see where the key travelled. */
function recordingClient(s: Suite, apiKey: string): { client: ScrapegateClient; sent: Request[] } {
  const sent: Request[] = [];
  const client = createScrapegateClient({
    baseUrl: s.server.base,
    apiKey,
    fetch: (request) => {
      sent.push(request.clone());
      return fetch(request);
    },
  });
  return { client, sent };
}

for (const database of testDatabases()) {
  describe(`client: every operation through createScrapegateClient (${database.name})`, () => {
    const s = useSuite(database);
    let key: string;
    let client: ScrapegateClient;
    let sent: Request[];
    before(async () => {
      key = await s.store.key();
      ({ client, sent } = recordingClient(s, key));
    });

    it('v1 GET: the envelope, the key in the x-api-key header and not the URL', async () => {
      const { data, error, response } = await client.GET('/v1/general', {
        params: { query: { url: s.target.url('/page'), browser: false, return_text: true } },
      });
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(200);
      expect(data).to.deep.equal({
        content: 'Hello target\nFirst paragraph.\nBlock two\none\ntwo',
        cookies: 'session=abc123; theme=dark',
        status_code: 200,
      });
      const request = sent.at(-1);
      expect(request?.headers.get('x-api-key')).to.equal(key);
      expect(request?.url).to.not.contain(key);
      await expectMatchesSpec('v1GeneralGet', response, data);
    });

    it('v1 POST: a JSON body, defaults left to the server', async () => {
      const { data, response } = await client.POST('/v1/general', { body: { url: s.target.url('/page'), browser: false } });
      expect(response.status).to.equal(200);
      expect(data?.content).to.equal(PAGE_HTML);
      expect(data?.status_code).to.equal(200);
      const request = sent.at(-1);
      expect(request?.headers.get('content-type')).to.equal('application/json');
      expect(await request?.json()).to.deep.equal({ url: s.target.url('/page'), browser: false });
      await expectMatchesSpec('v1GeneralPost', response, data);
    });

    it('v2 general GET: the page as `data` (no parseAs needed), metadata from the Svc- headers', async () => {
      const { data, error, response } = await client.GET('/v2/general', { params: { query: { url: s.target.url('/page'), browser: false } } });
      expect(error).to.equal(undefined);
      expect(data).to.equal(PAGE_HTML);
      const svc = readSvcHeaders(response);
      expect(svc.creditsCost).to.equal(1);
      expect(svc.pageStatusCode).to.equal(200);
      expect(svc.originalHeaders.get('x-target')).to.equal('yes');
      expect(svc.originalHeaders.get('Content-Type')).to.equal('text/html; charset=utf-8');
      expect(svc.originalHeaders.get('set-cookie')).to.contain('session=abc123');
      const request = sent.at(-1);
      expect(request?.headers.get('x-api-key'), 'the key in the header').to.equal(key);
      expect(new URL(request?.url ?? '').searchParams.has('x-api-key'), 'and not in the URL').to.equal(false);
      await expectMatchesSpec('v2GeneralGet', response, data);
    });

    it('v2 general GET with parseAs arrayBuffer keeps binary bytes', async () => {
      const { data } = await client.GET('/v2/general', { params: { query: { url: s.target.url('/binary'), browser: false } }, parseAs: 'arrayBuffer' });
      expect(Buffer.from(data ?? new ArrayBuffer(0))).to.deep.equal(Buffer.from([0, 1, 2, 253, 254, 255]));
    });

    it('v2 general: a target 404 is an outer 200, its status in Svc-page-status-code', async () => {
      const { data, response } = await client.GET('/v2/general', { params: { query: { url: s.target.url('/status?code=404'), browser: false } } });
      expect(response.status).to.equal(200);
      expect(data).to.equal('status 404');
      expect(readSvcHeaders(response)).to.include({ pageStatusCode: 404, creditsCost: 1 });
    });

    const v2Calls = {
      POST: (c: ScrapegateClient, url: string, body: string) =>
        c.POST('/v2/general', { params: { query: { url, browser: false }, header: { 'svc-Content-Type': 'application/x-www-form-urlencoded' } }, body, headers: { 'svc-X-Custom': 'custom-value' } }),
      PUT: (c: ScrapegateClient, url: string, body: string) =>
        c.PUT('/v2/general', { params: { query: { url, browser: false }, header: { 'svc-Content-Type': 'application/x-www-form-urlencoded' } }, body, headers: { 'svc-X-Custom': 'custom-value' } }),
      DELETE: (c: ScrapegateClient, url: string, body: string) =>
        c.DELETE('/v2/general', { params: { query: { url, browser: false }, header: { 'svc-Content-Type': 'application/x-www-form-urlencoded' } }, body, headers: { 'svc-X-Custom': 'custom-value' } }),
    };
    for (const [method, call] of Object.entries(v2Calls)) {
      it(`v2 general ${method}: method, raw body and svc- headers reach the target`, async () => {
        const before = await s.store.remaining(key);
        const { data, response } = await call(client, s.target.url('/echo'), 'a=1&b=2');
        expect(response.status).to.equal(200);
        const echo = JSON.parse(data ?? '') as Echo;
        expect(echo.method).to.equal(method);
        expect(echo.body).to.equal('a=1&b=2');
        expect(echo.headers['content-type']).to.equal('application/x-www-form-urlencoded');
        expect(echo.headers['x-custom']).to.equal('custom-value');
        expect(JSON.stringify(echo.headers)).to.not.contain(key);
        expect(readSvcHeaders(response)).to.include({ pageStatusCode: 200, creditsCost: 1 });
        expect(await s.store.remaining(key)).to.equal(before - 1);
        await expectMatchesSpec(`v2General${method[0]}${method.slice(1).toLowerCase()}`, response, data);
      });
    }

    it('v2 general POST with a binary body forwards the bytes untouched', async () => {
      const bytes = new Uint8Array([0, 255, 10, 13, 34]);
      const { response } = await client.POST('/v2/general', { params: { query: { url: s.target.url('/echo?bin=1'), browser: false } }, body: bytes });
      expect(response.status).to.equal(200);
      expect([...(s.target.requestsTo('/echo').at(-1)?.body ?? [])]).to.deep.equal([...bytes]);
    });

    it('v2 extended GET: the JSON object with the target headers unprefixed', async () => {
      const { data, response } = await client.GET('/v2/extended', { params: { query: { url: s.target.url('/page'), browser: false } } });
      expect(response.status).to.equal(200);
      expect(data?.html).to.equal(PAGE_HTML);
      expect(data?.status_code).to.equal(200);
      expect(data?.cookies).to.equal('session=abc123; theme=dark');
      expect(data?.headers).to.deep.include({ name: 'x-target', value: 'yes' });
      expect(readSvcHeaders(response)).to.include({ pageStatusCode: 200, creditsCost: 1 });
      await expectMatchesSpec('v2ExtendedGet', response, data);
    });

    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      it(`v2 extended ${method}: method and body forwarded, the echo in html`, async () => {
        const init = { params: { query: { url: s.target.url('/echo'), browser: false }, header: { 'svc-Content-Type': 'application/json' } }, body: '{"q":1}' };
        const { data, response } =
          method === 'POST' ? await client.POST('/v2/extended', init) : method === 'PUT' ? await client.PUT('/v2/extended', init) : await client.DELETE('/v2/extended', init);
        expect(response.status).to.equal(200);
        const echo = JSON.parse(data?.html ?? '') as Echo;
        expect(echo).to.include({ method, body: '{"q":1}' });
        expect(echo.headers['content-type']).to.equal('application/json');
        await expectMatchesSpec(`v2Extended${method[0]}${method.slice(1).toLowerCase()}`, response, data);
      });
    }

    it('v2 usage: no parameters needed, the credits left after every charge above', async () => {
      const usageKey = await s.store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
      const usageClient = createScrapegateClient({ baseUrl: s.server.base, apiKey: usageKey });
      await usageClient.GET('/v2/general', { params: { query: { url: s.target.url('/page'), browser: false } } });
      const { data, response } = await usageClient.GET('/v2/usage');
      expect(response.status).to.equal(200);
      expect(data).to.include({ plan_name: 'free', plan_total_credits: 10_000, remained_credits: 9_999 });
      await expectMatchesSpec('v2Usage', response, data);
    });

    it('a key given for one call overrides the client key', async () => {
      const otherKey = await s.store.key({ planName: 'startup', credits: 500_000 });
      const { data } = await client.GET('/v2/usage', { params: { query: { 'x-api-key': otherKey } } });
      expect(data?.plan_name).to.equal('startup');
      const search = new URL(sent.at(-1)?.url ?? '').searchParams;
      expect(search.getAll('x-api-key')).to.deep.equal([otherKey]);
      expect(sent.at(-1)?.headers.has('x-api-key'), 'the client key is not sent beside it').to.equal(false);
    });

    it('v2 markdown and extract_rules: typed answers, the key in the header', async () => {
      const md = await client.GET('/v2/markdown', { params: { query: { url: s.target.url('/page'), browser: false, only_main_content: true } } });
      expect(md.response.status).to.equal(200);
      expect(md.data?.url).to.equal(s.target.url('/page'));
      expect(md.data?.markdown).to.be.a('string').and.not.equal('');
      await expectMatchesSpec('v2MarkdownGet', md.response, md.data);
      const extended = await client.GET('/v2/extended', { params: { query: { url: s.target.url('/page'), browser: false, extract_rules: '{"title":"title"}' } } });
      expect(extended.data?.extracted).to.deep.equal({ title: 'Target' });
      expect(sent.at(-1)?.headers.get('x-api-key')).to.equal(key);
      const refused = await client.GET('/v2/screenshot', { params: { query: { url: s.target.url('/page'), screenshot_quality: 50 } } });
      expect(refused.response.status, 'a quality with png').to.equal(422);
      expect(isValidationError(refused.error)).to.equal(true);
    });

    it('403: a wrong key surfaces `detail` as a string', async () => {
      const wrong = createScrapegateClient({ baseUrl: s.server.base, apiKey: 'sg_not_a_key' });
      const v2 = await wrong.GET('/v2/general', { params: { query: { url: s.target.url('/page'), browser: false } } });
      expect(v2.response.status).to.equal(403);
      expect(v2.data).to.equal(undefined);
      expect(isValidationError(v2.error)).to.equal(false);
      expect(v2.error?.detail).to.be.a('string').and.not.be.empty;
      expect(errorMessage(v2.error)).to.equal(v2.error?.detail);
      await expectMatchesSpec('v2GeneralGet', v2.response, v2.error);
      const v1 = await wrong.POST('/v1/general', { body: { url: s.target.url('/page'), browser: false } });
      expect(v1.response.status).to.equal(403);
      await expectMatchesSpec('v1GeneralPost', v1.response, v1.error);
      const usage = await wrong.GET('/v2/usage');
      expect(usage.response.status).to.equal(403);
      await expectMatchesSpec('v2Usage', usage.response, usage.error);
    });

    it('422: invalid parameters surface as typed issues', async () => {
      const before = await s.store.remaining(key);
      const { data, error, response } = await client.GET('/v2/general', { params: { query: { url: s.target.url('/page'), browser: false, timeout: 99 } } });
      expect(response.status).to.equal(422);
      expect(data).to.equal(undefined);
      if (!isValidationError(error)) throw new Error(`expected a validation error, got ${JSON.stringify(error)}`);
      expect(error.detail.map((issue) => issue.loc)).to.deep.equal([['query', 'timeout']]);
      expect(error.detail[0]?.msg).to.be.a('string').and.not.be.empty;
      expect(errorMessage(error)).to.match(/^query\.timeout: /);
      await expectMatchesSpec('v2GeneralGet', response, error);
      expect(await s.store.remaining(key)).to.equal(before);
      const v1 = await client.GET('/v1/general', { params: { query: { url: 'ftp://example.com/' } } });
      expect(v1.response.status).to.equal(422);
      expect(isValidationError(v1.error)).to.equal(true);
      await expectMatchesSpec('v1GeneralGet', v1.response, v1.error);
    });

    it('404: an unreachable target surfaces `detail`, and Svc- headers are refused on an error', async () => {
      const { error, response } = await client.GET('/v2/general', { params: { query: { url: s.target.url('/loop'), browser: false } } });
      expect(response.status).to.equal(404);
      expect(errorMessage(error)).to.be.a('string').and.not.be.empty;
      expect(() => readSvcHeaders(response)).to.throw(TypeError, /svc-credits-cost/);
      await expectMatchesSpec('v2GeneralGet', response, error);
    });
  });
}
