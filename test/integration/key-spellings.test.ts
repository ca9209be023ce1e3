import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';

/**
 * The query parser decodes parameter names, so `%78-api-key` is `x-api-key`: one meaning, the
 * key. Whatever spelling authenticates, no log line may carry the key; a key given twice is
 * ambiguous and refused.
 */
describe('API key spellings', function () {
  this.timeout(60_000);
  const s = useSuite(testDatabases()[0]);
  let key: string;

  before(async () => {
    key = await s.store.key();
  });

  const raw = (path: string, query: string, init?: RequestInit) => fetch(`${s.server.base}${path}?${query}`, init);
  const url = () => `url=${encodeURIComponent(s.target.url('/page'))}&browser=false`;

  it('authenticates every spelling the query parser decodes to x-api-key, and logs none of them', async () => {
    for (const name of ['x-api-key', '%78-api-key', 'x-api-k%65y', 'x%2Dapi-key', 'x%2dapi%2dkey']) {
      const v2 = await raw('/v2/general', `${name}=${key}&${url()}`);
      expect(v2.status, `v2 ${name}`).to.equal(200);
      const v1 = await raw('/v1/general', `${url()}&${name}=${key}`);
      expect(v1.status, `v1 ${name}`).to.equal(200);
      const usage = await raw('/v2/usage', `${name}=${key}`);
      expect(usage.status, `usage ${name}`).to.equal(200);
    }
    // Spellings the parser does not read as the key are not the key (and are not logged either).
    for (const name of ['X-API-KEY', 'x_api_key', 'x-api-key%00']) {
      const res = await raw('/v2/general', `${name}=${key}&${url()}`);
      expect(res.status, name).to.equal(422);
    }
    await s.server.logLine('request');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const output = s.server.rawOutput.join('\n');
    // The requests were logged (by path: no query value is ever written), and the key in none of them.
    expect(output).to.contain('"path":"/v2/general"');
    expect(output, 'the key in a log line').to.not.contain(key);
    expect(output, 'part of the key in a log line').to.not.contain(key.slice(3, 20));
  });

  it('refuses a key given twice, in any two spellings, as ambiguous (422), and logs neither', async () => {
    for (const query of [`x-api-key=${key}&%78-api-key=${key}`, `x-api-key=${key}&x-api-key=sg_other`]) {
      const res = await raw('/v2/general', `${query}&${url()}`);
      expect(res.status, query).to.equal(422);
      expect(((await res.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0].loc).to.deep.equal(['query', 'x-api-key']);
    }
    expect(s.server.rawOutput.join('\n')).to.not.contain('sg_other');
  });

  it('takes the key in the x-api-key header on every v2 operation, as the official Python client sends it', async () => {
    const header = { headers: { 'x-api-key': key } };
    expect((await raw('/v2/general', url(), header)).status, 'general').to.equal(200);
    expect((await raw('/v2/general', url(), { ...header, method: 'POST', body: 'x' })).status, 'general POST').to.equal(200);
    const extended = await raw('/v2/extended', url(), header);
    expect(extended.status, 'extended').to.equal(200);
    expect((await raw('/v2/usage', '', header)).status, 'usage').to.equal(200);
    expect((await raw('/v2/general', `x-api-key=${key}&${url()}`, header)).status, 'the same key twice is one key').to.equal(200);
    for (const path of ['/v2/general', '/v2/extended', '/v2/usage']) {
      const neither = await raw(path, url());
      expect(neither.status, `${path} without a key`).to.equal(422);
      const both = await raw(path, `x-api-key=sg_other&${url()}`, header);
      expect(both.status, `${path} with two keys`).to.equal(422);
      const { detail } = (await both.json()) as { detail: Array<{ loc: unknown[] }> };
      expect(detail.map((d) => d.loc), 'naming both').to.deep.equal([['header', 'x-api-key'], ['query', 'x-api-key']]);
    }
    const unknown = await raw('/v2/general', url(), { headers: { 'x-api-key': 'sg_unknown' } });
    expect(unknown.status).to.equal(403);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.server.rawOutput.join('\n'), 'a header key in a log line').to.not.contain(key);
  });
});
