import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

const b64 = (source: string) => Buffer.from(source).toString('base64');

// What this file proves is the same on either database (the ledger on MySQL has suites of its own:
// credits-concurrency, chaos-kills, client-hangups, firecrawl-batch): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  /**
   * A failed browser request is refunded, yet its page (and the caller's script) ran in one of the
   * service's browsers: a script can post the rendered DOM to its own server, then wait for a
   * selector that never comes, and get the page for free. Each key may fail uncharged only so
   * often (BROWSER_FAILURE_ALLOWANCE an hour, or up to half of its browser requests).
   */
  describe(`uncharged browser work is bounded per key (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1', BROWSER_FAILURE_ALLOWANCE: '3' });
    let key: string;

    before(async () => {
      key = await s.store.key();
      s.target.route('/collect', (_req, res) => void res.writeHead(204).end());
    });

    const browser = (k: string, path: string, extra: Array<[string, string]> = []) =>
      s.call('/v2/general', [['x-api-key', k], ['url', s.target.url(path)], ['timeout', '5'], ...extra]);

    it('a script that sends the page out and then fails is refunded, and counted', async () => {
      const exfiltrate = `navigator.sendBeacon('${s.target.url('/collect')}', document.documentElement.outerHTML);`;
      const before = await s.store.remaining(key);
      const res = await browser(key, '/page', [['js_snippet', b64(exfiltrate)], ['wait_for_selector', '#never']]);
      expect(res.status).to.equal(404);
      expect(s.target.requestsTo('/collect').map((r) => r.body.toString())[0]).to.contain('Hello target');
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('past the allowance (and past half of its browser requests), a key gets 429 with Retry-After for browser requests only', async () => {
      // Two more failed renders (a file download is no page): three in all, of three.
      for (let i = 0; i < 2; i++) expect((await browser(key, '/big?bytes=2000000')).status).to.equal(404);
      const before = await s.store.remaining(key);
      const refused = await browser(key, '/page');
      const body = (await refused.json()) as { detail: string };
      expect(refused.status).to.equal(429);
      expect(body.detail).to.equal(
        'Too many costly requests of this key (browser=true, or with Markdown, text or extract_rules) failed uncharged in the last hour (3 of 3). They resume when the hour ends; plain requests (browser=false, answered with the page itself) are not limited.',
      );
      expect(Number(refused.headers.get('retry-after'))).to.be.within(3_500, 3_600);
      await expectMatchesSpec('v2GeneralGet', refused, body);
      expect(await s.store.remaining(key), 'a 429 is not charged').to.equal(before);
      // Plain requests go on, and so does every other key.
      expect((await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['browser', 'false']])).status).to.equal(200);
      expect((await browser(await s.store.key(), '/page')).status).to.equal(200);
    });

    it('counts both in the metrics', async () => {
      const text = await (await fetch(`${s.server.base}/metrics`)).text();
      expect(text).to.match(/^scrapegate_uncharged_browser_failures_total 3$/m);
      expect(text).to.match(/^scrapegate_browser_budget_refusals_total 1$/m);
    });
  });
}
