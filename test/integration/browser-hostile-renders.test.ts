import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { PNG } from 'pngjs';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { GroupPssSampler, newestSessionGroup } from '../helpers/group-memory.js';
import { HealthProber } from '../helpers/health-prober.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

const html = (body: string) => (_req: unknown, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
const b64 = (source: string) => Buffer.from(source).toString('base64');

/** /healthz answers within this while an attack runs (the event loop is never held). */
const HEALTHZ_MS = 100;
/** The server's resident set stays below this while an attack runs: nothing of it reaches the service's heap. */
const SERVER_RSS_MB = 400;

/**
 * Pages that turn the browser against the service: a capture of an element far larger than any
 * window, and a DOM that kills its renderer. One session (BROWSER_POOL_SIZE=1), so each attack
 * meets the session the next request will use.
 */
describe('hostile renders: capture bombs and pages that crash their renderer', function () {
  this.timeout(120_000);
  const s = useSuite(testDatabases()[0], { BROWSER_POOL_SIZE: '1' });
  let key: string;

  before(async () => {
    key = await s.store.key({ credits: 100_000 });
    s.target.route('/bomb', html('<body style="margin:0;background:#fff"><div id="bomb" style="width:16384px;height:16384px;background:#00f"></div></body>'));
    s.target.route('/bomb-page', html('<body style="margin:0;background:#fff"><div style="width:16384px;height:40000px;background:#00f"></div></body>'));
    s.target.route('/plain', html('<p id="plain">plain</p>'));
    // Each operation's validators compile on first use: not while an attack is measured.
    for (const path of ['/v2/screenshot', '/v2/general']) expect((await s.call(path, [['x-api-key', key], ['url', s.target.url('/plain')]])).status).to.equal(200);
  });

  it('an element of 16,384 × 16,384 px is captured within the window\'s width and the height limit, saying so, in bounded time and memory', async () => {
    for (const width of [1920, 3840]) {
      const group = newestSessionGroup(s.server);
      const prober = new HealthProber(s.server.base, s.server.pid);
      const pss = new GroupPssSampler(group);
      const started = Date.now();
      const res = await s.call('/v2/screenshot', [['x-api-key', key], ['url', s.target.url('/bomb')], ['screenshot_selector', '#bomb'], ['window_width', String(width)]]);
      const body = Buffer.from(await res.arrayBuffer());
      const ms = Date.now() - started;
      const [peakPssMb, health] = [await pss.stop(), await prober.stop()];
      console.log(`      window ${width}: ${res.status} in ${ms} ms; session PSS peak ${Math.round(peakPssMb)} MB; /healthz worst ${health.worstMs.toFixed(0)} ms; server RSS peak ${Math.round(health.peakRssMb)} MB`);
      expect(res.status, body.toString().slice(0, 300)).to.equal(200);
      expect(res.headers.get('svc-screenshot-truncated')).to.equal('true');
      await expectMatchesSpec('v2ScreenshotGet', res, undefined);
      const image = PNG.sync.read(body);
      expect([image.width, image.height]).to.deep.equal([width, 16_384]);
      // Before the bound: a 16,384 × 16,384 PNG, 4.5 GB of Chromium and 14.8 s.
      expect(peakPssMb, 'the session\'s memory during the capture').to.be.below(1_500);
      expect(ms, 'the capture\'s time').to.be.below(8_000);
      expect(health.worstMs, '/healthz during the capture').to.be.below(HEALTHZ_MS);
      expect(health.peakRssMb, 'the server\'s RSS').to.be.below(SERVER_RSS_MB);
    }
  });

  it('a full page is the window\'s width, cut at the height limit', async () => {
    const res = await s.call('/v2/screenshot', [['x-api-key', key], ['url', s.target.url('/bomb-page')], ['screenshot_full_page', 'true'], ['window_width', '800']]);
    expect(res.status).to.equal(200);
    expect(res.headers.get('svc-screenshot-truncated')).to.equal('true');
    const image = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
    expect([image.width, image.height]).to.deep.equal([800, 16_384]);
  });

  it("/v2/extended's screenshot is the window, whatever the page lays out", async () => {
    const res = await s.call('/v2/extended', [['x-api-key', key], ['url', s.target.url('/bomb')], ['screenshot', 'true']]);
    const body = (await res.json()) as { screenshot?: string };
    expect(res.status).to.equal(200);
    const image = PNG.sync.read(Buffer.from(body.screenshot ?? '', 'base64'));
    expect([image.width, image.height]).to.deep.equal([1920, 1080]);
  });

  it('a page that crashes its renderer is its own failure: 404 saying so, uncharged, counted against the key\'s allowance; the session is replaced', async () => {
    const crash = `const s = 'a'.repeat(200 * 1024 * 1024); for (let i = 0; i < 20; i++) document.body.append(s + i);`;
    const retired = () => s.server.eventsNamed('pool.retired').length;
    const counted = async () => Number(/^scrapegate_uncharged_browser_failures_total (\d+)$/m.exec(await (await fetch(`${s.server.base}/metrics`)).text())?.[1] ?? 0);
    const [before, countedBefore, retiredBefore] = [await s.store.remaining(key), await counted(), retired()];
    const prober = new HealthProber(s.server.base, s.server.pid);
    const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/plain')], ['js_snippet', b64(crash)], ['timeout', '60']]);
    const body = (await res.json()) as { detail: string };
    const health = await prober.stop();
    console.log(`      ${res.status} ${body.detail}; /healthz worst ${health.worstMs.toFixed(0)} ms; server RSS peak ${Math.round(health.peakRssMb)} MB`);
    expect(res.status).to.equal(404);
    expect(body.detail).to.match(/^The page crashed the browser's renderer/);
    await expectMatchesSpec('v2GeneralGet', res, body);
    expect(await s.store.remaining(key), 'not charged').to.equal(before);
    expect(await counted(), 'counted against the allowance').to.equal(countedBefore + 1);
    expect(health.worstMs, '/healthz during the crash').to.be.below(HEALTHZ_MS);
    expect(health.peakRssMb, "the server's RSS").to.be.below(SERVER_RSS_MB);
    await eventually(() => retired() === retiredBefore + 1, 10_000, 'the crashed session retired');
    const next = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/plain')]]);
    expect(next.status).to.equal(200);
    expect(await next.text()).to.contain('<p id="plain">plain</p>');
  });
});
