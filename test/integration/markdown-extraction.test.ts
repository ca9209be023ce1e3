import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

type Issue = { loc: unknown[]; msg: string; type: string };

const ARTICLE = `<!doctype html><html><head><title>t</title><base href="/docs/"><style>p{color:red}</style></head><body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<div class="cookie-banner">We use cookies <button>Accept</button></div>
<main>
  <h1>Release notes</h1>
  <p>Read <a href="guide.html">the guide</a> and see <img src="img/logo.png" alt="logo">.</p>
  <ul><li>first</li><li><em>second</em></li></ul>
  <table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
  <pre><code class="language-js">const x = 1;</code></pre>
  <script>window.secret = 'never';</script><noscript>never</noscript><template><p>never</p></template><svg><text>never</text></svg>
  <form><input name="q" value="search me"><select><option>opt</option></select></form>
</main>
<footer>Footer text</footer>
<div id="late"></div>
<script>document.getElementById('late').innerHTML = '<p id="rendered">rendered by script</p>';</script>
</body></html>`;

const SHOP = `<!doctype html><html><body>
<h1> Shop  </h1>
<ul>${Array.from({ length: 5 }, (_, i) => `<li class="item"><a href="/p/${i}"><span class="name">Item ${i}</span></a> <span class="price">
  $${i}.99 </span></li>`).join('')}</ul>
<table id="t"><thead><tr><th>k</th><th>v</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></tbody></table>
<div id="late"></div>
<script>document.getElementById('late').textContent = 'from script';</script>
</body></html>`;

/** /v2/markdown and extract_rules through the running server, on both engines. */
// Conversion and extraction are the same on either database (billing is proven on both elsewhere): SQLite only.
for (const database of testDatabases().slice(0, 1)) {
  describe(`markdown and extraction rules (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });
    let key: string;

    before(async () => {
      key = await s.store.key({ credits: 100_000 });
      const html = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      s.target.route('/article', html(ARTICLE));
      s.target.route('/shop', html(SHOP));
      s.target.route('/moved', (_req, res) => void res.writeHead(302, { location: '/article' }).end());
    });

    for (const browser of [false, true]) {
      const engine = browser ? 'browser' : 'plain';

      it(`${engine}: /v2/markdown answers {url, markdown} with absolute links, tables, code and no scripts or form controls, at general's cost`, async () => {
        const requested = s.target.url('/moved');
        const res = await s.call('/v2/markdown', [['x-api-key', key], ['url', requested], ['browser', String(browser)]]);
        const body = (await res.json()) as { url: string; markdown: string };
        expect(res.status).to.equal(200);
        await expectMatchesSpec('v2MarkdownGet', res, body);
        expect(res.headers.get('svc-credits-cost')).to.equal(browser ? '10' : '1');
        expect(body.url, 'the URL requested').to.equal(requested);
        const md = body.markdown;
        expect(md).to.match(/^# Release notes$/m);
        expect(md, 'links absolute against the final URL and <base>').to.contain(`[the guide](${s.target.url('/docs/guide.html')})`);
        expect(md).to.contain(`![logo](${s.target.url('/docs/img/logo.png')})`);
        expect(md).to.match(/^-\s+first$/m);
        expect(md).to.match(/^-\s+[*_]second[*_]$/m);
        expect(md, 'a table without a header row is still a table').to.match(/^\|\s*a\s*\|\s*b\s*\|$/m);
        expect(md).to.contain('```js\nconst x = 1;\n```');
        expect(md).to.not.contain('never');
        expect(md).to.not.contain('color:red');
        expect(md).to.not.contain('search me');
        expect(md).to.not.contain('opt');
        expect(md).to.contain('Footer text');
        if (browser) expect(md, 'the rendered DOM').to.contain('rendered by script');
        else expect(md, 'what was fetched').to.not.contain('rendered by script');
      });

      it(`${engine}: only_main_content drops navigation, footers and cookie banners`, async () => {
        const res = await s.call('/v2/markdown', [['x-api-key', key], ['url', s.target.url('/article')], ['browser', String(browser)], ['only_main_content', 'true']]);
        const { markdown } = (await res.json()) as { markdown: string };
        expect(markdown).to.match(/^# Release notes$/m);
        for (const gone of ['Home', 'About', 'We use cookies', 'Footer text']) expect(markdown, gone).to.not.contain(gone);
      });

      it(`${engine}: extract_rules on /v2/general makes the body the extracted JSON`, async () => {
        const rules = {
          title: 'h1',
          first_link: 'li.item a@href',
          missing: '.nope',
          items: { selector: 'li.item', type: 'list', output: { name: '.name', price: { selector: '.price', clean: true }, link: 'a@href' } },
          table: { selector: '#t', output: 'table_json' },
          late: '#late',
        };
        const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/shop')], ['browser', String(browser)], ['extract_rules', JSON.stringify(rules)]]);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
        expect(res.headers.get('svc-page-status-code')).to.equal('200');
        expect(res.headers.get('svc-credits-cost')).to.equal(browser ? '10' : '1');
        const body = (await res.json()) as Record<string, unknown>;
        expect(body).to.deep.include({ title: 'Shop', first_link: '/p/0', missing: null, table: [{ k: 'a', v: '1' }, { k: 'b', v: '2' }] });
        expect(body.items).to.have.length(5);
        expect((body.items as unknown[])[3]).to.deep.equal({ name: 'Item 3', price: '$3.99', link: '/p/3' });
        expect(body.late).to.equal(browser ? 'from script' : '');
      });
    }

    it('extract_rules on /v2/extended adds `extracted`', async () => {
      const res = await s.call('/v2/extended', [['x-api-key', key], ['url', s.target.url('/shop')], ['browser', 'false'], ['extract_rules', '{"names":{"selector":".name","type":"list"}}']]);
      const body = (await res.json()) as { extracted: unknown; html: string };
      expect(res.status).to.equal(200);
      await expectMatchesSpec('v2ExtendedGet', res, body);
      expect(body.extracted).to.deep.equal({ names: ['Item 0', 'Item 1', 'Item 2', 'Item 3', 'Item 4'] });
    });

    it('refuses bad rules with a 422 pointing into extract_rules, before anything is charged or fetched', async () => {
      const before = await s.store.remaining(key);
      const fetchedBefore = s.target.requestsTo('/shop').length;
      const cases: Array<[string, Array<string | number>]> = [
        ['{"a": "//div"}', ['a']],
        ['{"a": ', []],
        ['["h1"]', []],
        ['{"a": {"selector": "h1", "colour": "red"}}', ['a', 'colour']],
        ['{"a": "div[["}', ['a']],
        ['{"a": {"selector": "h1", "type": "many"}}', ['a', 'type']],
        [JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`r${i}`, 'p']))), []],
        ['{"a":{"selector":"b","output":{"b":{"selector":"c","output":{"c":{"selector":"d","output":{"d":{"selector":"e","output":{"e":{"selector":"f","output":{"f":"g"}}}}}}}}}}}', ['a', 'output', 'b', 'output', 'c', 'output', 'd', 'output', 'e', 'output']],
      ];
      for (const [rules, path] of cases) {
        const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/shop')], ['browser', 'false'], ['extract_rules', rules]]);
        expect(res.status, rules).to.equal(422);
        const body = (await res.json()) as { detail: Issue[] };
        await expectMatchesSpec('v2GeneralGet', res, body);
        const loc = body.detail[0].loc;
        expect(loc.slice(0, 2), rules).to.deep.equal(['query', 'extract_rules']);
        expect(loc.slice(2), rules).to.deep.equal(path);
        expect(body.detail[0].msg, rules).to.be.a('string').and.not.equal('');
      }
      expect(await s.store.remaining(key)).to.equal(before);
      expect(s.target.requestsTo('/shop').length, 'nothing fetched').to.equal(fetchedBefore);
    });

    it('refuses more than 10,000 results with a 422, not charged', async () => {
      const items = `<ul>${'<li>x</li>'.repeat(10_001)}</ul>`;
      s.target.route('/many', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(items));
      const before = await s.store.remaining(key);
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/many')], ['browser', 'false'], ['extract_rules', '{"all":{"selector":"li","type":"list"}}']]);
      expect(res.status).to.equal(422);
      const body = (await res.json()) as { detail: Issue[] };
      expect(body.detail[0].loc).to.deep.equal(['query', 'extract_rules', 'all']);
      expect(body.detail[0].msg).to.match(/10,000/);
      expect(await s.store.remaining(key)).to.equal(before);
    });
  });
}
