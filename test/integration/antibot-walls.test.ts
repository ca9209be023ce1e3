import { expect } from 'chai';
import { antibotFixtures, BLOCK_ALL, type Fixture } from '../fixtures/antibot/index.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

const rules = JSON.parse((await import('node:fs')).readFileSync(new URL('../../src/scrape/antibot/antibot-rules.json', import.meta.url), 'utf8')) as Array<{ id: string; vendor: string; wall: string }>;

/** Every vendor wall of the rules file, served by a local target, through both engines. */
describe('anti-bot walls (sqlite)', function () {
  this.timeout(60_000);
  const s = useSuite(testDatabases()[0], { BROWSER_POOL_SIZE: '1' });
  const { walls, negatives } = antibotFixtures();
  let key: string;
  before(async () => {
    key = await s.store.key();
    const serve = (f: Fixture) => s.target.route(`/fixture/${f.name}`, (_req, res) => void res.writeHead(f.status, f.headers.flat()).end(f.body));
    [...walls, ...negatives].forEach(serve);
  });

  it('has a fixture for every rule', () => {
    expect(rules.map((r) => r.id).sort()).to.deep.equal(walls.map((w) => w.rule).sort());
  });

  for (const browser of [false, true]) {
    const engine = browser ? 'browser' : 'plain';
    const call = (f: Fixture) => s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(`/fixture/${f.name}`)], ['browser', String(browser)], ...(browser ? BLOCK_ALL : [])]);

    it(`${engine}: each vendor wall → 423 naming the vendor, not charged`, async () => {
      const before = await s.store.remaining(key);
      for (const f of walls) {
        const rule = rules.find((r) => r.id === f.rule)!;
        const res = await call(f);
        const body = (await res.json()) as { detail: string };
        expect(res.status, f.name).to.equal(423);
        expect(body.detail, f.name).to.equal(`The target's anti-bot detection blocked the request (${rule.vendor} ${rule.wall}). Retry, or change the proxy type or country.`);
        await expectMatchesSpec('v2GeneralGet', res, body);
      }
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it(`${engine}: a plain 403, 429 or 503 and ordinary vendor-served pages are not walls (outer 200, charged)`, async () => {
      for (const f of negatives) {
        const res = await call(f);
        expect(res.status, f.name).to.equal(200);
        expect(res.headers.get('svc-page-status-code'), f.name).to.equal(String(f.status));
        await res.arrayBuffer();
      }
    });
  }
});
