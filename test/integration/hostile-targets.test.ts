import { expect } from 'chai';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { closedPort } from '../helpers/test-proxy.js';
import { TargetServer } from '../helpers/target-server.js';
import { UntrustedTlsTarget } from '../helpers/tls-target.js';

type Detail = { detail: string | Array<{ loc: unknown[]; msg: string; type: string }> };

/** A raw HTTP exchange, for what fetch() refuses to send (bytes outside ASCII in a header). */
function rawRequest(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head, 'latin1'));
    let data = '';
    socket.on('data', (c: Buffer) => (data += c.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(data.slice(9, 12)), body: data.slice(data.indexOf('\r\n\r\n') + 4) }));
  });
}

/**
 * Targets that fail or fight back, in both engines: each answers with the spec's status, is not
 * charged, and leaves no lease, connection or browser behind (one warm session serves them all).
 */
// What this file proves is the same on either database (the ledger on MySQL has suites of its own:
// credits-concurrency, chaos-kills, client-hangups, firecrawl-batch): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`target failures and hostile targets (${database.name})`, function () {
    this.timeout(60_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1', MAX_BODY_BYTES: String(1024 * 1024) });
    const tls = new UntrustedTlsTarget();
    let key: string;
    let refused: number;
    /** A listener on a port of the fetch standard's bad-port list, which must never be contacted. */
    const unsafe = new TargetServer('127.0.0.1');
    /** Drip answers whose connection is still open. */
    let dripping = 0;

    before(async () => {
      await tls.start();
      await unsafe.start(6566);
      s.target.route('/to-unsafe-port', (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(302, { location: `http://127.0.0.1:${unsafe.port}/page` }).end());
      refused = await closedPort();
      // A free plan holds one slot: a leaked lease would turn the next request into a 409.
      key = await s.store.key({ planName: 'free', credits: 100_000, maxConcurrency: 1 });
      s.target.route('/reset', (req: IncomingMessage) => void req.socket.destroy());
      s.target.route('/drip', (_req: IncomingMessage, res: ServerResponse) => {
        dripping++;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<p>drip');
        const timer = setInterval(() => res.write('.'), 100);
        res.on('close', () => {
          clearInterval(timer);
          dripping--;
        });
      });
      s.target.route('/big-html', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.alloc(2_000_000, 0x61)));
      // 64 MiB of text compress to about 64 KiB: only counting decoded bytes stops it.
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x61));
      s.target.route('/html-bomb', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(bomb));
      s.target.route('/many-headers', (_req, res) => {
        for (let i = 0; i < 300; i++) res.setHeader(`x-h-${i}`, String(i));
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>headers</p>');
      });
      s.target.route('/huge-header', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html', 'x-huge': 'h'.repeat(40 * 1024) }).end('<p>huge</p>'));
      s.target.route('/meta-charset', (_req, res) => {
        const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет" in windows-1251
        res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.concat([Buffer.from('<html><head><meta charset="windows-1251"></head><body><p>'), cyrillic, Buffer.from('</p></body></html>')]));
      });
      s.target.route('/unknown-charset', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=x-no-such-charset' }).end('<p>caf\u00e9</p>'));
    });
    after(async () => {
      await tls.stop();
      await unsafe.stop();
    });
    afterEach(async () => {
      expect(await s.store.leasesOf(key), 'leases left behind').to.equal(0);
    });

    const call = (url: string, browser: boolean, extra: Array<[string, string]> = []) =>
      s.call('/v2/general', [['x-api-key', key], ['url', url], ['browser', String(browser)], ['timeout', '5'], ...extra]);

    /** 404 with exactly `detail`, valid against the spec, and nothing charged. */
    async function expect404(url: string, browser: boolean, detail: string | RegExp): Promise<void> {
      const before = await s.store.remaining(key);
      const res = await call(url, browser);
      const body = (await res.json()) as Detail;
      expect(res.status, url).to.equal(404);
      if (typeof detail === 'string') expect(body.detail, url).to.equal(detail);
      else expect(body.detail, url).to.match(detail);
      await expectMatchesSpec('v2GeneralGet', res, body);
      expect(await s.store.remaining(key)).to.equal(before);
    }

    for (const browser of [false, true]) {
      const engine = browser ? 'browser' : 'plain';

      it(`${engine}: a host that does not resolve → 404 saying so`, async () => {
        await expect404('http://scrapegate-test.invalid/', browser, 'The target could not be reached: the host scrapegate-test.invalid does not resolve');
      });

      it(`${engine}: a refused connection and a reset one → 404 in the same words for both engines`, async () => {
        await expect404(`http://127.0.0.1:${refused}/`, browser, 'The target could not be reached: connection refused');
        await expect404(s.target.url('/reset'), browser, 'The target could not be reached: connection reset by the target');
      });

      it(`${engine}: an untrusted certificate → 404 TLS failure, and the target never answers it`, async () => {
        await expect404(tls.url('/'), browser, 'The target could not be reached: the TLS handshake with the target failed');
        expect(tls.requests).to.equal(0);
      });

      it(`${engine}: the body cap holds while streaming, compressed too`, async () => {
        await expect404(s.target.url('/big-html'), browser, "The target's answer is not usable: the answer exceeds 1048576 bytes");
        await expect404(s.target.url('/html-bomb'), browser, "The target's answer is not usable: the answer exceeds 1048576 bytes");
      });

      it(`${engine}: a redirect loop is cut after MAX_REDIRECTS`, async () => {
        await expect404(s.target.url('/loop'), browser, 'The target could not be reached: more than 10 redirects');
      });

      it(`${engine}: too many or too large response headers → 404`, async () => {
        await expect404(s.target.url('/many-headers'), browser, "The target could not be reached: the target's response headers are too large or too many");
        await expect404(s.target.url('/huge-header'), browser, "The target could not be reached: the target's response headers are too large or too many");
      });

      it(`${engine}: a target that drips bytes forever is cut at the deadline, without a 5xx`, async () => {
        const started = Date.now();
        const res = await call(s.target.url('/drip'), browser);
        expect(Date.now() - started).to.be.below(7_500);
        expect(res.status).to.be.oneOf([200, 404]);
        await res.arrayBuffer();
        // The connection to the target is cut with the request, not left dripping.
        for (let i = 0; i < 40 && dripping > 0; i++) await new Promise((r) => setTimeout(r, 50));
        expect(dripping, 'drip connections left open').to.equal(0);
      });

      it(`${engine}: a port browsers refuse (SMTP, IRC, 10080 …) is refused (422) even with private targets allowed, and never contacted`, async () => {
        const before = await s.store.remaining(key);
        const res = await call(`http://127.0.0.1:${unsafe.port}/page`, browser);
        const body = (await res.json()) as Detail;
        expect(res.status).to.equal(422);
        expect(body.detail).to.deep.equal([{ loc: ['query', 'url'], msg: `the URL is not allowed: port ${unsafe.port} is not allowed`, type: 'value_error.url.forbidden' }]);
        await expectMatchesSpec('v2GeneralGet', res, body);
        // A redirect there fails the request just the same, without a connection.
        const redirected = await call(s.target.url('/to-unsafe-port'), browser);
        expect(redirected.status).to.equal(404);
        expect(unsafe.requests).to.deep.equal([]);
        expect(await s.store.remaining(key)).to.equal(before);
      });

      it(`${engine}: after all of that the next request is served at once`, async () => {
        const started = Date.now();
        const res = await call(s.target.url('/page'), browser);
        expect(res.status).to.equal(200);
        expect(Date.now() - started).to.be.below(2_000);
      });
    }

    it('browser: a file download is a 404 (never written to disk, never the previous page), a 204 an empty page', async () => {
      await call(s.target.url('/page'), true);
      await expect404(s.target.url('/big?bytes=2000000'), true, "The target's answer is not usable: it is a file to download (application/octet-stream), not a page: fetch it with browser=false");
      await expect404(s.target.url('/bomb'), true, /^The target's answer is not usable: it is a file to download \(text\/plain\)/);
      const empty = await call(s.target.url('/status?code=204'), true);
      expect(empty.status).to.equal(200);
      expect(empty.headers.get('svc-page-status-code')).to.equal('204');
      expect(await empty.text()).to.equal('');
    });

    it('browser: target failures leave the warm session in service, and log no error', async () => {
      const retired = () => s.server.eventsNamed('pool.retired').length;
      const errors = () => s.server.logs.filter((l) => (l.level ?? 0) >= 50).length;
      const before = { retired: retired(), errors: errors() };
      for (const url of [`http://127.0.0.1:${refused}/`, s.target.url('/reset'), s.target.url('/loop'), s.target.url('/huge-header'), tls.url('/')]) {
        expect((await call(url, true)).status, url).to.equal(404);
      }
      expect((await call(s.target.url('/page'), true)).status).to.equal(200);
      expect({ retired: retired(), errors: errors() }).to.deep.equal(before);
    });

    it("plain: a <meta charset> is honoured when the header has none, and an unknown charset falls back to UTF-8", async () => {
      const meta = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/meta-charset')], ['browser', 'false']]);
      expect(((await meta.json()) as { content: string }).content).to.contain('<p>Привет</p>');
      const unknown = await s.call('/v1/general', [['x-api-key', key], ['url', s.target.url('/unknown-charset')], ['browser', 'false']]);
      expect(((await unknown.json()) as { content: string }).content).to.contain('<p>café</p>');
    });

    it('forwarded svc- headers: a non-ASCII value is a 422; CR, LF or controls never reach a target (JSON 400)', async () => {
      const path = `/v2/general?x-api-key=${key}&url=${encodeURIComponent(s.target.url('/echo'))}&browser=false`;
      const before = s.target.requestsTo('/echo').length;
      const nonAscii = await rawRequest(s.server.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nsvc-X-Test: caf\xe9\r\nConnection: close\r\n\r\n`);
      expect(nonAscii.status).to.equal(422);
      expect(JSON.parse(nonAscii.body)).to.deep.equal({ detail: [{ loc: ['header', 'svc-X-Test'], msg: 'a forwarded header value may hold only visible ASCII characters, spaces and tabs', type: 'value_error.header' }] });
      for (const value of ['a\rX-Injected: 1', 'a\x00b']) {
        const res = await rawRequest(s.server.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nsvc-X-Test: ${value}\r\nConnection: close\r\n\r\n`);
        expect(res.status).to.equal(400);
        expect(JSON.parse(res.body)).to.have.property('detail').that.is.a('string');
      }
      const cookies = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/echo')], ['browser', 'false'], ['cookies', 'a=b\r\nX-Injected: 1']]);
      expect(cookies.status).to.equal(422);
      expect(((await cookies.json()) as Detail).detail).to.have.nested.property('[0].loc').deep.equal(['query', 'cookies']);
      const many = await fetch(`${s.server.base}${path}`, { headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`svc-h${i}`, 'v'])) });
      expect(many.status).to.equal(422);
      expect(s.target.requestsTo('/echo').length).to.equal(before);
    });
  });
}
