// Screenshot benchmark: a viewport screenshot through scrapegate's API against a raw warm Selenium
// session's navigate + takeScreenshot of the same page at the same window size, in one run,
// printed as a ratio. Not a timed test: `npm run bench:screenshot`.
import http from 'node:http';
import { Browser, Builder } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { chromiumOptions } from '../../src/engines/browser/chromium-options.js';
import { startBenchServer } from './bench-server.js';
import { describeRun, measure, percentile } from './measure.js';

const COUNT = Number(process.env.BENCH_SEQUENTIAL ?? 40);
const WIDTH = 1920;
const HEIGHT = 1080;

// A page with some layout and paint work: styled text, a grid of coloured boxes, a gradient.
const PAGE = `<!doctype html><html><head><title>shot</title><style>
  body { font-family: sans-serif; margin: 0; background: linear-gradient(#fff, #ddf); }
  .box { display: inline-block; width: 80px; height: 60px; margin: 4px; border-radius: 6px; }
</style></head><body><h1>screenshot bench</h1><p>${'Some text to lay out. '.repeat(80)}</p><div id="grid"></div><script>
  const grid = document.getElementById('grid');
  for (let i = 0; i < 300; i++) { const d = document.createElement('div'); d.className = 'box'; d.style.background = 'hsl(' + (i * 7) % 360 + ',70%,60%)'; grid.appendChild(d); }
</script></body></html>`;

const target = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/`;

// --- raw Selenium first (its own Chromium), then scrapegate (one warm session): never both at once ---
const driver = await new Builder().forBrowser(Browser.CHROME).setChromeOptions(chromiumOptions('/usr/bin/chromium')).setChromeService(new chrome.ServiceBuilder('/usr/bin/chromedriver')).build();
await driver.manage().window().setRect({ width: WIDTH, height: HEIGHT });
// The window's rect includes what Chromium draws around the page: grow it until the page's own viewport is the one asked for.
await driver.get(pageUrl);
const inner = await driver.executeScript<number>('return innerHeight');
await driver.manage().window().setRect({ width: WIDTH, height: HEIGHT + (HEIGHT - inner) });
const rawShot = async () => {
  await driver.get(pageUrl);
  const png = Buffer.from(await driver.takeScreenshot(), 'base64');
  if (png.readUInt32BE(16) < 800) throw new Error('raw screenshot too small');
};
for (let i = 0; i < 5; i++) await rawShot();
const raw = await measure(`(b) raw warm Selenium: get + takeScreenshot (${WIDTH}×${HEIGHT} window)`, COUNT, 1, rawShot);
const rawSize = await driver.executeScript<string>('return innerWidth + "×" + innerHeight');
await driver.quit();

const { port, key, stop: stopServer } = await startBenchServer(1);
const apiShot = async () => {
  const res = await fetch(`http://127.0.0.1:${port}/v2/screenshot?${new URLSearchParams({ url: pageUrl, window_width: String(WIDTH), window_height: String(HEIGHT) })}`, { headers: { 'x-api-key': key } });
  const png = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200 || png.readUInt32BE(16) !== WIDTH) throw new Error(`scrapegate answered ${res.status}`);
};
for (let i = 0; i < 5; i++) await apiShot();
const api = await measure(`(a) scrapegate /v2/screenshot, warm session (${WIDTH}×${HEIGHT} window)`, COUNT, 1, apiShot);
await stopServer();
target.close();

console.log(`\nscreenshot benchmark (${new Date().toISOString()}, ${COUNT} sequential screenshots each; raw window ${rawSize})\n`);
for (const run of [api, raw]) console.log(describeRun(run));
const ratio = percentile(api.latencies, 50) / percentile(raw.latencies, 50);
console.log(`\na/b  p50 latency, scrapegate screenshot vs raw warm Selenium: ${ratio.toFixed(2)}   (target <= 1.3: ${ratio <= 1.3 ? 'met' : 'NOT met'})`);
