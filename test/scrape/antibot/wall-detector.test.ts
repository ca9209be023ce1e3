import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { BODY_SCAN_LIMIT, WallDetector, type PageEvidence } from '../../../src/scrape/antibot/wall-detector.js';
import { antibotFixtures, type Fixture } from '../../fixtures/antibot/index.js';

interface RawRule {
  id: string;
}
const rawRules = JSON.parse(readFileSync(new URL('../../../src/scrape/antibot/antibot-rules.json', import.meta.url), 'utf8')) as RawRule[];
const { walls, negatives } = antibotFixtures();
const detector = WallDetector.default();
const byName = (name: string): Fixture => {
  const f = walls.find((w) => w.name === name);
  if (!f) throw new Error(`no fixture ${name}`);
  return f;
};

describe('WallDetector', () => {
  it('has one wall fixture per rule, and no fixture for a rule that does not exist', () => {
    expect(walls.map((w) => w.rule).sort()).to.deep.equal(rawRules.map((r) => r.id).sort());
    for (const w of walls) expect(w.name, 'fixture file named after its rule').to.equal(w.rule);
  });

  for (const w of walls) {
    it(`detects ${w.name} as exactly that rule`, () => {
      expect(detector.detect(w)?.ruleId).to.equal(w.rule);
      // Exactly: no other rule would match it either, whatever the order of the file.
      const others = rawRules.filter((r) => r.id !== w.rule && WallDetector.fromRules([r]).detect(w));
      expect(others.map((r) => r.id)).to.deep.equal([]);
    });
  }

  for (const n of negatives) {
    it(`does not take negative/${n.name} for a wall`, () => {
      expect(detector.detect(n)).to.equal(undefined);
    });
  }

  it('reports the vendor and the kind of wall', () => {
    expect(detector.detect(byName('datadome'))).to.deep.equal({ ruleId: 'datadome', vendor: 'DataDome', wall: 'captcha' });
  });

  it('only reads the first 256 KiB of the body', () => {
    const marker = '<script src="https://www.google.com/recaptcha/api.js" async defer></script>';
    const page = (at: number): PageEvidence => ({
      status: 429,
      headers: [['content-type', 'text/html']],
      body: `<html><body>${' '.repeat(at - '<html><body>'.length)}${marker}</body></html>`,
    });
    expect(detector.detect(page(BODY_SCAN_LIMIT - marker.length))?.ruleId).to.equal('recaptcha-wall');
    expect(detector.detect(page(BODY_SCAN_LIMIT - 10))).to.equal(undefined);
    expect(detector.detect(page(BODY_SCAN_LIMIT + 1))).to.equal(undefined);
  });

  it('matches header names case-insensitively, and the value of any repeat of a header', () => {
    const cf = byName('cloudflare-challenge');
    const onlyHeader = (headers: Array<[string, string]>): PageEvidence => ({ status: 403, headers, body: '<html><body></body></html>' });
    expect(detector.detect(onlyHeader([['CF-Mitigated', 'challenge']]))?.ruleId).to.equal('cloudflare-challenge');
    expect(detector.detect({ ...cf, headers: cf.headers.map(([k, v]): [string, string] => [k.toUpperCase(), v]) })?.ruleId).to.equal('cloudflare-challenge');
    const aws = (headers: Array<[string, string]>): PageEvidence => ({ status: 200, headers, body: '<html></html>' });
    expect(detector.detect(aws([['x-amzn-waf-action', 'none'], ['X-Amzn-Waf-Action', 'captcha']]))?.ruleId).to.equal('aws-waf-captcha');
  });

  it('finds a cookie among repeated or newline-joined Set-Cookie headers', () => {
    const dd = byName('datadome');
    const noStatusNoHeaders = { status: 200, body: dd.body };
    expect(detector.detect({ ...noStatusNoHeaders, headers: [] })).to.equal(undefined);
    const repeated: Array<[string, string]> = [['set-cookie', 'sid=1; Path=/'], ['Set-Cookie', 'datadome=abc; Path=/']];
    expect(detector.detect({ ...noStatusNoHeaders, headers: repeated })?.ruleId).to.equal('datadome');
    expect(detector.detect({ ...noStatusNoHeaders, headers: [['set-cookie', 'sid=1; Path=/\ndatadome=abc; Path=/']] })?.ruleId).to.equal('datadome');
    expect(detector.detect({ ...noStatusNoHeaders, headers: [['set-cookie', 'notdatadome=abc']] })).to.equal(undefined);
  });

  it('reads the Akamai reference both entity-encoded (raw body) and decoded (rendered DOM)', () => {
    const ak = byName('akamai-block');
    const rendered = ak.body.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    expect(rendered).to.contain('errors.edgesuite.net');
    expect(detector.detect({ ...ak, body: rendered })?.ruleId).to.equal('akamai-block');
  });

  it('does not take a captcha on an ordinary page for a wall unless the status or the title says so', () => {
    const login = negatives.find((n) => n.name === 'login-recaptcha-200');
    if (!login) throw new Error('no login fixture');
    expect(detector.detect({ ...login, status: 403 })?.ruleId).to.equal('recaptcha-wall');
    const titled = login.body.replace(/<title>[^<]*<\/title>/, '<title>Are you a robot?</title>');
    expect(detector.detect({ ...login, body: titled })?.ruleId).to.equal('recaptcha-wall');
    const encoded = login.body.replace(/<title>[^<]*<\/title>/, '<title>Security&#32;check &#99999999; &#x110000;</title>');
    expect(detector.detect({ ...login, body: encoded })?.ruleId).to.equal('recaptcha-wall');
  });

  describe('fromRules', () => {
    const rule = (extra: Record<string, unknown>) => ({ id: 'bad-rule', vendor: 'X', wall: 'block', ...extra });
    const rejects = (rules: unknown, ...patterns: RegExp[]) => {
      let message = '';
      try {
        WallDetector.fromRules(rules);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, 'fromRules should throw').to.not.equal('');
      for (const p of patterns) expect(message).to.match(p);
    };

    it('accepts the bundled rules', () => {
      expect(() => WallDetector.fromRules(rawRules)).to.not.throw();
    });

    it('rejects an invalid regex, naming the rule and where', () => {
      rejects([rule({ any: [{ body: 'ok' }] }), rule({ id: 'broken-regex', any: [{ all: [{ title: '(' }] }] })], /"broken-regex"/, /any\.0\.all\.0\.title/, /invalid regex/);
      rejects([rule({ any: [{ header: 'x-a', pattern: '[' }] })], /"bad-rule"/, /pattern/);
    });

    it('rejects an unknown condition kind, or two kinds in one condition', () => {
      rejects([rule({ any: [{ query: 'x' }] })], /"bad-rule"/, /not a condition/);
      rejects([rule({ all: [{ body: 'a', title: 'b' }] })], /"bad-rule"/, /not a condition/);
    });

    it('rejects a rule without conditions, an unknown field, a duplicate id, or a missing id', () => {
      rejects([rule({})], /"bad-rule"/, /"all" or an "any"/);
      rejects([rule({ any: [{ body: 'a' }], some: [] })], /"bad-rule"/);
      rejects([rule({ any: [{ body: 'a' }] }), rule({ any: [{ body: 'b' }] })], /"bad-rule"/, /duplicate/);
      rejects([{ vendor: 'X', wall: 'block', any: [{ body: 'a' }] }], /#0/);
      rejects({ rules: [] }, /array/);
    });
  });

  describe('hostile bodies', () => {
    // The body is scanned on the event loop for every page fetched: a target that repeats a
    // rule's marker over the whole scanned prefix must not make a pattern backtrack for seconds
    // (an unbounded [^"]* between two markers did: 256 KiB of "/ips.js?" took 10 s).
    const markers = ['a', '/ips.js?', '_Incapsula_Resource?', 'class="', "class='", '__cf_chl_a_', 'Reference #1.', 'Reference &#32;', 'error code: <x>', 'press & hold ', 'KPSDK', 'window.KPSDK = {', '"host": "', 'id="cf-'];
    const fill = (unit: string) => unit.repeat(Math.ceil(BODY_SCAN_LIMIT / unit.length)).slice(0, BODY_SCAN_LIMIT);
    const timed = (status: number, body: string) => {
      const started = performance.now();
      detector.detect({ status, headers: [['server', 'cloudflare']], body });
      return performance.now() - started;
    };
    // Against a body of the same size that matches nothing, timed in the same test (the machine's
    // load scales both): backtracking costs orders of magnitude, not a few times.
    const baseline = (status: number) => Math.min(...[0, 1, 2].map(() => timed(status, fill('x'))));
    for (const marker of markers) {
      it(`answers a ${BODY_SCAN_LIMIT / 1024} KiB body of ${JSON.stringify(marker)} repeated quickly, at every status`, () => {
        const body = fill(marker);
        for (const status of [200, 403, 429, 503]) {
          const base = baseline(status);
          expect(timed(status, body), `status ${status} (a plain body: ${base.toFixed(1)} ms)`).to.be.below(Math.max(250, 50 * base));
        }
      });
    }
  });
});
