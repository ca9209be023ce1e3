import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { closedPort } from '../helpers/test-proxy.js';
import { useSuite } from '../helpers/suite.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** Each secret a caller may send, planted where it would be sent, and never to be found in a log line. */
const SECRET = {
  userinfo: 'UserinfoSecret81',
  query: 'QueryTokenSecret82',
  cookie: 'CookieSecret83',
  snippet: 'SnippetSecret84',
  rule: 'RuleNameSecret85',
  header: 'HeaderSecret86',
} as const;

/**
 * The access log writes a target as its scheme and host, and nothing of a request's parameters,
 * headers or body; no other line quotes them either, at any level. Every kind of secret is sent
 * on successful and failing requests, in both engines and both versions, with LOG_LEVEL=trace.
 */
describe('secrets never reach a log line', function () {
  this.timeout(90_000);
  const s = useSuite(testDatabases()[0], { LOG_LEVEL: 'trace', BROWSER_POOL_SIZE: '1' });
  let key: string;
  before(async () => {
    key = await s.store.key();
  });

  it('userinfo, query tokens, cookies, js_snippet, extract_rules, forwarded headers and the key are in no line', async () => {
    const origin = new URL(s.target.origin);
    const withSecrets = (path: string, host = origin.host) => `http://bob:${SECRET.userinfo}@${host}${path}?token=${SECRET.query}`;
    const params = (url: string, browser: boolean): Array<[string, string]> => [
      ['x-api-key', key],
      ['url', url],
      ['browser', String(browser)],
      ['cookies', `sid=${SECRET.cookie}`],
      ['timeout', '5'],
      ...(browser ? ([['js_snippet', b64(`throw new Error('${SECRET.snippet}')`)]] as Array<[string, string]>) : []),
    ];
    const headers = { 'svc-Authorization': `Bearer ${SECRET.header}` };
    const statuses: number[] = [];
    const send = async (res: Promise<Response>) => {
      const answer = await res;
      await answer.arrayBuffer();
      statuses.push(answer.status);
    };
    for (const browser of [false, true]) {
      await send(s.call('/v2/general', params(withSecrets('/page'), browser), { headers }));
      await send(s.call('/v2/general', [...params(withSecrets('/page'), browser), ['extract_rules', JSON.stringify({ [SECRET.rule]: 'h1' })]], { headers }));
      await send(s.call('/v2/general', [...params(withSecrets('/page'), browser), ['extract_rules', JSON.stringify({ [SECRET.rule]: 'div[[' })]], { headers }));
      await send(s.call('/v2/extended', params(withSecrets('/page'), browser), { headers }));
      await send(s.call('/v2/markdown', params(withSecrets('/page'), browser), { headers }));
      await send(s.call('/v1/general', params(withSecrets('/page'), browser)));
      await send(s.call('/v2/general', params(withSecrets('/', `127.0.0.1:${await closedPort()}`), browser), { headers }));
      await send(
        fetch(`${s.server.base}/v1/general`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ url: withSecrets('/page'), browser, cookies: `sid=${SECRET.cookie}`, js_snippet: b64(`throw new Error('${SECRET.snippet}')`) }),
        }),
      );
    }
    // Answers of every kind were met: 200s, refusals (422) and target failures (404).
    expect(new Set(statuses)).to.include.members([200, 422, 404]);
    await s.server.logLine('js_snippet failed');
    const output = s.server.rawOutput.join('\n');
    expect(output).to.contain(`"target":"http://${origin.host}"`);
    for (const [where, secret] of Object.entries(SECRET)) expect(output, `the ${where} secret`).to.not.contain(secret);
    expect(output, 'a script in base64').to.not.contain(b64(`throw new Error('${SECRET.snippet}')`));
    expect(output, 'the key').to.not.contain(key.slice(3));
  });
});
