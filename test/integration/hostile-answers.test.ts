import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { HostileTarget, hostileCases } from '../helpers/hostile-target.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

type Detail = { detail: string };

/**
 * A target's answer must never reach the process level: with the target policy on (only
 * 127.0.0.2), hostile answers go through the real server in both engines. A throw from the
 * browser gateway once ended the process on `HTTP/1.1 099 X`, with every tenant's request in it.
 */
describe('hostile target answers through the running server', function () {
  this.timeout(180_000);
  const s = useSuite(testDatabases()[0], { ALLOW_PRIVATE_TARGETS: 'false', TARGET_ALLOW_CIDRS: '127.0.0.2/32', BROWSER_POOL_SIZE: '1' }, '127.0.0.2');
  const cases = hostileCases();
  const hostile = new HostileTarget(cases);
  const byName = (name: string) => cases.findIndex((c) => c.name === name);
  let key: string;
  let pid: number;

  before(async () => {
    await hostile.start();
    key = await s.store.key();
    pid = s.server.pid;
  });
  after(() => hostile.stop());
  afterEach(async () => {
    expect(s.server.pid).to.equal(pid);
    expect((await fetch(`${s.server.base}/healthz`)).status, 'the server after the test').to.equal(200);
  });

  const call = (url: string, browser: boolean) =>
    s.call('/v2/general', [['x-api-key', key], ['url', url], ['browser', String(browser)], ['timeout', '5']]);

  for (const browser of [true, false]) {
    const engine = browser ? 'browser' : 'plain';

    it(`${engine}: "HTTP/1.1 099 X" is a 404 naming the invalid status, and the server serves the next request`, async () => {
      const before = await s.store.remaining(key);
      const res = await call(hostile.url(`/case/${byName('status 99')}`), browser);
      const body = (await res.json()) as Detail;
      expect(res.status).to.equal(404);
      expect(body.detail).to.equal("The target's answer is not usable: the target answered with the invalid HTTP status 99");
      await expectMatchesSpec('v2GeneralGet', res, body);
      expect(await s.store.remaining(key)).to.equal(before);
      const next = await call(hostile.url('/sane'), browser);
      expect(next.status).to.equal(200);
      expect(await next.text()).to.contain('sane');
    });

    it(`${engine}: a reason phrase with a control byte ("200 O\\x01K") still answers the page`, async () => {
      const res = await call(hostile.url(`/case/${byName('reason byte 1')}`), browser);
      expect(res.status).to.equal(200);
      expect(res.headers.get('svc-page-status-code')).to.equal('200');
      expect(await res.text()).to.contain('ok');
    });
  }

  it(`plain: all ${cases.length} hostile answers get 200 or 404 (never a 5xx), and the server stays up`, async () => {
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < cases.length; i = next++) {
        const res = await call(hostile.url(`/case/${i}`), false);
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, cases[i].name).to.be.oneOf([200, 404]);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).to.equal(cases.length);
    expect((await call(hostile.url('/sane'), false)).status).to.equal(200);
  });

  it('browser: a sample of every kind gets 200 or 404 within its deadline, and the session keeps serving', async () => {
    const sample = [
      'status 0', 'status 99', 'status 101', 'status 600', 'status 999', 'status 200', 'status 599',
      'reason byte 0', 'reason byte 127', 'reason byte 255', 'header value byte 1', 'header value byte 127', 'header value byte 255',
      'header name byte 0', 'header name byte 255', 'two different Content-Lengths', 'Content-Length and chunked', 'HTTP/0.9 (no status line)',
      'an HTTP/2 preface', 'a chunk size that is not hex', 'a hostile Set-Cookie', 'a 200 KB header', '2000 headers',
    ];
    for (const name of sample) {
      const started = Date.now();
      const res = await call(hostile.url(`/case/${byName(name)}`), true);
      await res.arrayBuffer();
      expect(res.status, name).to.be.oneOf([200, 404]);
      expect(Date.now() - started, name).to.be.below(7_000);
    }
    const sane = await call(hostile.url('/sane'), true);
    expect(sane.status).to.equal(200);
    expect(s.server.logs.filter((l) => (l.level ?? 0) >= 60), 'fatal log lines').to.deep.equal([]);
  });
});
