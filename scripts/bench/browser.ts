// Browser engine benchmark: scrapegate's warm pool against raw Selenium, all in one run on one
// machine, printed as ratios. Not a timed test: run it with `npm run bench:browser`.
import http from 'node:http';
import { Browser, Builder, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { chromiumOptions } from '../../src/engines/browser/chromium-options.js';
import { startBenchServer } from './bench-server.js';
import { chromiumPssMb, describeRun, mean, measure, percentile, throughput, type Run } from './measure.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMEDRIVER = '/usr/bin/chromedriver';
const CLIENTS = 6;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 60);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 150);
const NAIVE = Number(process.env.BENCH_NAIVE ?? 10);

const PAGE = `<!doctype html><html><head><title>bench</title></head><body><div id="app"></div><script>
  const ul = document.createElement('ul');
  for (let i = 0; i < 200; i++) { const li = document.createElement('li'); li.textContent = 'item ' + i; ul.appendChild(li); }
  document.getElementById('app').appendChild(ul);
</script></body></html>`;

// The common case: a stylesheet, an image, and a timer still pending when the page has loaded.
const PENDING_PAGE = `<!doctype html><html><head><title>pending</title><link rel="stylesheet" href="/style.css"></head>
<body><h1 id="title">pending work</h1><img src="/img.png" width="10" height="10"><p>item 199</p>
<script>setTimeout(() => { document.getElementById('title').textContent = 'late'; }, 1500);</script></body></html>`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a45f0000000049454e44ae426082', 'hex');

const target = http.createServer((req, res) => {
  if (req.url === '/style.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('body { font-family: sans-serif; } h1 { color: #333; }');
  if (req.url === '/img.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(req.url === '/pending' ? PENDING_PAGE : PAGE);
});
await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
const pageUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/`;
const pendingUrl = `${pageUrl}pending`;

// --- scrapegate, warm pool of CLIENTS sessions ---
const { port, key, stop: stopServer } = await startBenchServer(CLIENTS);
const scrape = async (_client = 0, url = pageUrl) => {
  const res = await fetch(`http://127.0.0.1:${port}/v2/general?${new URLSearchParams({ 'x-api-key': key, url })}`);
  const body = await res.text();
  if (res.status !== 200 || !body.includes('item 199')) throw new Error(`scrapegate answered ${res.status}`);
};

await measure('warm-up', 30, CLIENTS, scrape);
const pss30 = chromiumPssMb();
const a = await measure('(a) scrapegate, warm pool, sequential', SEQUENTIAL, 1, scrape);
const a2 = await measure('(a2) scrapegate, sequential, pending-work page', SEQUENTIAL, 1, () => scrape(0, pendingUrl));
const d = await measure(`(d) scrapegate, ${CLIENTS} concurrent clients`, PARALLEL, CLIENTS, scrape);
const pssD = chromiumPssMb();
await measure('top-up to 300 renders', 300 - 30 - SEQUENTIAL - PARALLEL, CLIENTS, scrape);
const pss300 = chromiumPssMb();
await stopServer();

// --- raw Selenium ---
const newDriver = (): Promise<WebDriver> =>
  new Builder().forBrowser(Browser.CHROME).setChromeOptions(chromiumOptions(CHROMIUM)).setChromeService(new chrome.ServiceBuilder(CHROMEDRIVER)).build();
const render = async (driver: WebDriver, url = pageUrl) => {
  await driver.get(url);
  const html = String(await driver.executeScript('return document.documentElement.outerHTML'));
  if (!html.includes('item 199')) throw new Error('raw render incomplete');
};

const drivers = await Promise.all(Array.from({ length: CLIENTS }, newDriver));
for (const driver of drivers) for (let i = 0; i < 3; i++) await render(driver);
const b = await measure('(b) raw warm Selenium session, sequential', SEQUENTIAL, 1, () => render(drivers[0]));
for (let i = 0; i < 3; i++) await render(drivers[0], pendingUrl);
const b2 = await measure('(b2) raw warm session, sequential, pending-work page', SEQUENTIAL, 1, () => render(drivers[0], pendingUrl));
const e = await measure(`(e) ${CLIENTS} raw warm Selenium sessions in parallel`, PARALLEL, CLIENTS, (client) => render(drivers[client]));
const pssE = chromiumPssMb();
await Promise.all(drivers.map((driver) => driver.quit()));

const c = await measure('(c) new Selenium session per request', NAIVE, 1, async () => {
  const driver = await newDriver();
  try {
    await render(driver);
  } finally {
    await driver.quit();
  }
});
target.close();

const runs: Run[] = [a, b, a2, b2, c, d, e];
console.log(`\nbrowser engine benchmark (${new Date().toISOString()}, ${CLIENTS} sessions, Chromium ${CHROMIUM})\n`);
for (const run of runs) console.log(describeRun(run));
console.log('');
console.log(`summed PSS of every Chromium process: scrapegate pool during (d) ${pssD.toFixed(0)} MB; ${CLIENTS} raw sessions during (e) ${pssE.toFixed(0)} MB`);
console.log(`pool PSS after 300 renders / after 30: ${pss300.toFixed(0)} MB / ${pss30.toFixed(0)} MB = ${(pss300 / pss30).toFixed(2)}`);
console.log('');
const ratio = (label: string, value: number, target: string) => console.log(`${label.padEnd(52)} ${value.toFixed(2).padStart(6)}   (target ${target})`);
ratio('a/b  p50 latency, scrapegate API vs raw warm session', percentile(a.latencies, 50) / percentile(b.latencies, 50), '<= 1.3');
ratio('a2/b2 p50 latency, the same on the pending-work page', percentile(a2.latencies, 50) / percentile(b2.latencies, 50), '<= 1.3');
ratio('c/a  mean latency, session per request vs scrapegate', mean(c.latencies) / mean(a.latencies), '>= 8');
ratio('d/e  throughput, scrapegate vs raw sessions, 6 clients', throughput(d) / throughput(e), '>= 0.9');
