import { expect } from 'chai';
import { expectMatchesSpec } from '../../helpers/spec.js';
import { inProcessServer, type InProcessServer } from '../../helpers/in-process-server.js';

const PAGE = '<html><head><title>Fake</title></head><body><main><h1>Hello fake</h1><p>A <a href="/next">link</a>.</p></main></body></html>';

/**
 * Every operation of the public document against the real server in this process: routing,
 * validation, the key, the billing and the answers, over a scripted engine (the fast tier; the
 * integration suites drive the same operations against real targets and real Chromium).
 */
describe('the API, in process: every operation', function () {
  this.timeout(20_000);
  let s: InProcessServer;
  let key: string;
  const target = 'http://127.0.0.1:8123/page';

  before(async () => {
    s = await inProcessServer({
      '/page': { body: Buffer.from(PAGE), headers: [['Content-Type', 'text/html; charset=utf-8'], ['X-Target', 'yes']], cookies: [{ name: 'sid', value: 'abc' }] },
      '/shot': { capture: { data: Buffer.from('PNGDATA'), contentType: 'image/png', truncated: true } },
    });
    key = await s.store.key({ credits: 1_000 });
  });
  after(() => s?.close());

  const get = (path: string, query: Record<string, string>, init: RequestInit = {}) => fetch(`${s.base}${path}?${new URLSearchParams(query)}`, init);

  it('v1 GET and POST: {content, cookies, status_code}, charged 1 credit for a plain page', async () => {
    const res = await get('/v1/general', { 'x-api-key': key, url: target, browser: 'false' });
    const body = await res.json();
    expect(res.status).to.equal(200);
    expect(body).to.deep.equal({ content: PAGE, cookies: 'sid=abc', status_code: 200 });
    await expectMatchesSpec('v1GeneralGet', res, body);
    const post = await fetch(`${s.base}/v1/general`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: target, browser: false, return_text: true, 'x-api-key': key }) });
    expect(((await post.json()) as { content: string }).content).to.equal('Hello fake\nA link.');
  });

  it('v2 general: the page as the body, its status and headers in Svc- headers, method and body forwarded', async () => {
    const res = await get('/v2/general', { 'x-api-key': key, url: target, browser: 'false' }, { method: 'PUT', body: 'payload', headers: { 'svc-X-Thing': 'one' } });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal(PAGE);
    expect(res.headers.get('svc-page-status-code')).to.equal('200');
    expect(res.headers.get('svc-original-header-x-target')).to.equal('yes');
    expect(res.headers.get('svc-credits-cost')).to.equal('1');
    const seen = s.engine.seen.at(-1)!.request;
    expect({ method: seen.method, body: seen.body?.toString(), header: seen.headers['X-Thing'] }).to.deep.equal({ method: 'PUT', body: 'payload', header: 'one' });
  });

  it('v2 general with extract_rules: the rules\' JSON', async () => {
    const res = await get('/v2/general', { 'x-api-key': key, url: target, browser: 'false', extract_rules: JSON.stringify({ title: 'h1', link: 'a@href' }) });
    expect(await res.json()).to.deep.equal({ title: 'Hello fake', link: '/next' });
  });

  it('v2 extended: the page, text, cookies and headers as JSON, and extracted from the same parse', async () => {
    const res = await get('/v2/extended', { 'x-api-key': key, url: target, browser: 'false', extract_rules: JSON.stringify({ title: 'h1' }) });
    const body = (await res.json()) as { text: string; cookies: string; extracted: unknown; headers: unknown[] };
    expect(res.status).to.equal(200);
    expect({ text: body.text, cookies: body.cookies, extracted: body.extracted }).to.deep.equal({ text: 'Hello fake\nA link.', cookies: 'sid=abc', extracted: { title: 'Hello fake' } });
    await expectMatchesSpec('v2ExtendedGet', res, body);
  });

  it('v2 markdown: {url, markdown}', async () => {
    const res = await get('/v2/markdown', { 'x-api-key': key, url: target, browser: 'false' });
    expect(await res.json()).to.deep.equal({ url: target, markdown: '# Hello fake\n\nA [link](http://127.0.0.1:8123/next).' });
  });

  it('v2 screenshot: the capture as the body, truncation said, at a browser render\'s cost', async () => {
    const res = await get('/v2/screenshot', { 'x-api-key': key, url: 'http://127.0.0.1:8123/shot' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect(res.headers.get('svc-screenshot-truncated')).to.equal('true');
    expect(res.headers.get('svc-credits-cost')).to.equal('10');
    expect(Buffer.from(await res.arrayBuffer()).toString()).to.equal('PNGDATA');
  });

  it('v2 usage: the key\'s period and credits, the charges above taken', async () => {
    const res = await get('/v2/usage', { 'x-api-key': key });
    const body = (await res.json()) as { remained_credits: number };
    expect(res.status).to.equal(200);
    expect(body.remained_credits).to.equal(await s.store.remaining(key));
    await expectMatchesSpec('v2Usage', res, body);
  });

  it('refuses what the document refuses: 422 with loc, 403 for a wrong key, 405 for an undeclared method', async () => {
    const invalid = await get('/v2/general', { 'x-api-key': key, url: target, timeout: '61' });
    expect(invalid.status).to.equal(422);
    expect(((await invalid.json()) as { detail: Array<{ loc: unknown }> }).detail[0].loc).to.deep.equal(['query', 'timeout']);
    expect((await get('/v2/general', { 'x-api-key': 'sg_wrong', url: target })).status).to.equal(403);
    expect((await get('/v2/general', { 'x-api-key': key, url: target }, { method: 'PATCH' })).status).to.equal(405);
  });
});
