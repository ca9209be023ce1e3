import { expect } from 'chai';
import { PNG } from 'pngjs';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

type Detail = { detail: string | Array<{ loc: unknown[]; msg: string }> };

function png(bytes: Buffer): PNG {
  return PNG.sync.read(bytes);
}

/** The RGB of one pixel. */
function pixel(image: PNG, x: number, y: number): [number, number, number] {
  const i = (image.width * y + x) * 4;
  return [image.data[i], image.data[i + 1], image.data[i + 2]];
}

/** Screenshots and PDFs through the API, against real Chromium (one session, so every render meets the last one's leftovers). */
// Screenshots and PDFs are the browser's work, the same on either database: SQLite only.
for (const database of testDatabases().slice(0, 1)) {
  describe(`screenshots and PDFs (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });
    let key: string;

    before(async () => {
      key = await s.store.key({ credits: 100_000 });
      const html = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      s.target.route('/red', html('<body style="margin:0;background:#ff0000"><div id="box" style="width:300px;height:200px;margin-top:50px;background:#00ff00"></div><span id="empty"></span></body>'));
      s.target.route('/tall', html('<body style="margin:0;background:#0000ff"><div style="height:20000px"></div></body>'));
      s.target.route('/blue', html('<body style="margin:0;background:#0000ff"><p>blue</p></body>'));
      s.target.route('/download', (_req, res) => void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="x.bin"' }).end('bytes'));
    });

    const shot = (query: Array<[string, string]>) => s.call('/v2/screenshot', [['x-api-key', key], ...query]);
    const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

    it('answers a PNG of the 1920×1080 window by default, at a browser render\'s cost, with the general answer\'s headers', async () => {
      const res = await shot([['url', s.target.url('/red')]]);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/png');
      expect(res.headers.get('svc-credits-cost')).to.equal('10');
      expect(res.headers.get('svc-page-status-code')).to.equal('200');
      expect(res.headers.get('svc-original-header-content-type')).to.equal('text/html');
      expect(res.headers.has('svc-screenshot-truncated')).to.equal(false);
      await expectMatchesSpec('v2ScreenshotGet', res, undefined);
      const image = png(await bytes(res));
      expect([image.width, image.height]).to.deep.equal([1920, 1080]);
      expect(pixel(image, 5, 5)).to.deep.equal([255, 0, 0]);
      expect(pixel(image, 100, 100)).to.deep.equal([0, 255, 0]);
    });

    it('takes JPEG with a quality, and refuses a quality for PNG (422, not charged)', async () => {
      const res = await shot([['url', s.target.url('/red')], ['screenshot_format', 'jpeg'], ['screenshot_quality', '40']]);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('image/jpeg');
      expect((await bytes(res)).subarray(0, 3)).to.deep.equal(Buffer.from([0xff, 0xd8, 0xff]));
      const before = await s.store.remaining(key);
      const refused = await shot([['url', s.target.url('/red')], ['screenshot_quality', '40']]);
      expect(refused.status).to.equal(422);
      expect(((await refused.json()) as Detail).detail).to.deep.include.members([{ loc: ['query', 'screenshot_quality'], msg: 'a quality applies to screenshot_format=jpeg only', type: 'value_error.screenshot_quality' }]);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('lays the page out in the window asked for, and the next render gets the session\'s own window back', async () => {
      const res = await shot([['url', s.target.url('/red')], ['window_width', '800'], ['window_height', '600']]);
      const image = png(await bytes(res));
      expect([image.width, image.height]).to.deep.equal([800, 600]);
      const after = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/blue')], ['js_snippet', Buffer.from('document.body.dataset.size = innerWidth + "x" + innerHeight').toString('base64')]]);
      expect(await after.text()).to.contain('data-size="1366x');
      const narrow = await shot([['url', s.target.url('/red')], ['window_width', '319']]);
      expect(narrow.status).to.equal(422);
    });

    it('takes the full page, cut at 16,384 pixels and saying so', async () => {
      const tall = await shot([['url', s.target.url('/tall')], ['screenshot_full_page', 'true'], ['window_width', '400'], ['window_height', '300']]);
      expect(tall.status).to.equal(200);
      expect(tall.headers.get('svc-screenshot-truncated')).to.equal('true');
      await expectMatchesSpec('v2ScreenshotGet', tall, undefined);
      const image = png(await bytes(tall));
      expect([image.width, image.height]).to.deep.equal([400, 16_384]);
      expect(pixel(image, 10, 16_000)).to.deep.equal([0, 0, 255]);
      const short = await shot([['url', s.target.url('/red')], ['screenshot_full_page', 'true'], ['window_width', '400'], ['window_height', '300']]);
      expect(short.headers.has('svc-screenshot-truncated')).to.equal(false);
      expect(png(await bytes(short)).height).to.equal(300);
    });

    it('takes one element by selector; no match or an element with no size is 404 and a bad selector 422, neither charged', async () => {
      const res = await shot([['url', s.target.url('/red')], ['screenshot_selector', '#box']]);
      const image = png(await bytes(res));
      expect([image.width, image.height]).to.deep.equal([300, 200]);
      expect(pixel(image, 150, 100)).to.deep.equal([0, 255, 0]);
      const before = await s.store.remaining(key);
      for (const selector of ['#missing', '#empty']) {
        const none = await shot([['url', s.target.url('/red')], ['screenshot_selector', selector]]);
        expect(none.status, selector).to.equal(404);
        const body = (await none.json()) as Detail;
        expect(body.detail).to.match(/^The element to capture was not found: /);
        await expectMatchesSpec('v2ScreenshotGet', none, body);
      }
      const bad = await shot([['url', s.target.url('/red')], ['screenshot_selector', 'div[']]);
      expect(bad.status).to.equal(422);
      expect(((await bad.json()) as Detail).detail).to.satisfy((d: Array<{ loc: unknown[] }>) => d[0].loc.join('.') === 'query.screenshot_selector');
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('never shows the previous request\'s page: a target with no page to show is 404, not charged', async () => {
      expect((await shot([['url', s.target.url('/red')]])).status).to.equal(200);
      const before = await s.store.remaining(key);
      const res = await shot([['url', s.target.url('/download')]]);
      expect(res.status).to.equal(404);
      expect(((await res.json()) as Detail).detail).to.match(/no page to capture/);
      expect(await s.store.remaining(key)).to.equal(before);
    });

    it('prints a PDF in the paper size and orientation asked for', async () => {
      const mediaBox = (pdf: Buffer) => /\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)/.exec(pdf.toString('latin1'))?.slice(1).map(Number);
      const portrait = await s.call('/v2/pdf', [['x-api-key', key], ['url', s.target.url('/blue')]]);
      expect(portrait.status).to.equal(200);
      expect(portrait.headers.get('content-type')).to.equal('application/pdf');
      expect(portrait.headers.get('svc-credits-cost')).to.equal('10');
      await expectMatchesSpec('v2PdfGet', portrait, undefined);
      const a4 = await bytes(portrait);
      expect(a4.subarray(0, 5).toString()).to.equal('%PDF-');
      const [w, h] = mediaBox(a4) ?? [];
      expect(Math.round(w)).to.be.within(594, 596);
      expect(Math.round(h)).to.be.within(841, 843);
      const landscape = await bytes(await s.call('/v2/pdf', [['x-api-key', key], ['url', s.target.url('/blue')], ['pdf_format', 'Letter'], ['landscape', 'true'], ['print_background', 'true']]));
      expect(mediaBox(landscape)?.map(Math.round)).to.deep.equal([792, 612]);
      expect((await s.call('/v2/pdf', [['x-api-key', key], ['url', s.target.url('/blue')], ['pdf_format', 'B5']])).status).to.equal(422);
    });

    it('adds a base64 PNG of the window to /v2/extended with screenshot=true, and refuses it without the browser', async () => {
      const res = await s.call('/v2/extended', [['x-api-key', key], ['url', s.target.url('/red')], ['screenshot', 'true']]);
      const body = (await res.json()) as { screenshot?: string; html: string };
      expect(res.status).to.equal(200);
      await expectMatchesSpec('v2ExtendedGet', res, body);
      const image = png(Buffer.from(body.screenshot ?? '', 'base64'));
      expect([image.width, image.height]).to.deep.equal([1920, 1080]);
      const without = await s.call('/v2/extended', [['x-api-key', key], ['url', s.target.url('/red')]]);
      expect((await without.json()) as object).to.not.have.property('screenshot');
      const plain = await s.call('/v2/extended', [['x-api-key', key], ['url', s.target.url('/red')], ['screenshot', 'true'], ['browser', 'false']]);
      expect(plain.status).to.equal(422);
    });

    it('takes GET only', async () => {
      const res = await s.call('/v2/screenshot', [['x-api-key', key], ['url', s.target.url('/red')]], { method: 'POST' });
      expect(res.status).to.equal(405);
    });
  });
}
