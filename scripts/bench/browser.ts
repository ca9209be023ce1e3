// Browser engine benchmark: scrapegate's warm pool through the HTTP API against raw warm Selenium
// sessions driven directly on the same pages, in one run on one machine, printed as ratios. The
// phases alternate in rounds, so that whatever else the machine runs weighs on each alike; CPU is
// that of this process and all it started (scrapegate and its browsers, the raw sessions).
// Not a timed test: run it with `npm run bench:browser`.
import { treeCpuSeconds, treePssMb } from './browser-cpu.js';
import { newDriver, RawSession, renderPage, CHROMIUM, type Isolation } from './browser-raw.js';
import { startBenchTarget } from './browser-target.js';
import { startBenchServer } from './bench-server.js';
import { describeRun, mean, measure, percentile, throughput, type Run } from './measure.js';

const POOL = Number(process.env.BENCH_POOL ?? 6);
const CLIENTS = 2 * POOL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 60);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 150);
const NAIVE = Number(process.env.BENCH_NAIVE ?? 12);

const target = await startBenchTarget();
const { pageUrl, pendingUrl } = target;

const server = await startBenchServer(POOL);
const scrape = async (url = pageUrl) => {
  const res = await fetch(`http://127.0.0.1:${server.port}/v2/general?${new URLSearchParams({ 'x-api-key': server.key, url })}`);
  const body = await res.text();
  if (res.status !== 200 || !body.includes('item 199')) throw new Error(`scrapegate answered ${res.status}`);
};
const raws = await Promise.all(Array.from({ length: POOL }, () => RawSession.start()));

await measure('warm-up', 30, POOL, () => scrape());
const pss30 = treePssMb(server.pid);
for (const raw of raws) for (const isolation of ['none', 'clear', 'context'] as const) for (let i = 0; i < 3; i++) await raw.render(pageUrl, isolation);
for (const isolation of ['none', 'context'] as const) for (let i = 0; i < 3; i++) await raws[0].render(pendingUrl, isolation);

/** A phase's runs across rounds, and the CPU it took. */
interface Phase extends Run {
  cpuSeconds: number;
}
const phases = new Map<string, Phase>();
async function phase(label: string, count: number, clients: number, once: (client: number) => Promise<void>): Promise<void> {
  const cpu = treeCpuSeconds();
  const run = await measure(label, count, clients, once);
  const spent = treeCpuSeconds() - cpu;
  const seen = phases.get(label);
  if (!seen) phases.set(label, { ...run, cpuSeconds: spent });
  else phases.set(label, { label, latencies: [...seen.latencies, ...run.latencies], wallMs: seen.wallMs + run.wallMs, cpuSeconds: seen.cpuSeconds + spent });
}
const rawOnce = (url: string, isolation: Isolation) => (client: number) => raws[client].render(url, isolation);

const A = '(a) scrapegate, sequential';
const A2 = '(a2) scrapegate, sequential, pending-work page';
const B = '(b) raw warm session, no isolation';
const B2 = '(b2) raw warm session, no isolation, pending-work page';
const BCLEAR = '(b-clear) raw warm session, clearing after each page';
const BCTX = '(b-ctx) raw warm session, a context per page';
const B2CTX = '(b2-ctx) raw, a context per page, pending-work page';
const D = `(d) scrapegate, ${POOL} sessions, ${CLIENTS} clients`;
const E = `(e) ${POOL} raw sessions, no isolation`;
const ECLEAR = `(e-clear) ${POOL} raw sessions, clearing`;
const ECTX = `(e-ctx) ${POOL} raw sessions, a context per page`;

const C = '(c) a new Selenium session per request';
/** A cold session per request: chromedriver and Chromium started, the page rendered, both quit. */
const coldRender = async () => {
  const driver = await newDriver();
  try {
    await renderPage(driver, pageUrl);
  } finally {
    await driver.quit();
  }
};

let pssD = 0;
for (let round = 0; round < ROUNDS; round++) {
  const seq = Math.ceil(SEQUENTIAL / ROUNDS);
  const par = Math.ceil(PARALLEL / ROUNDS);
  await phase(A, seq, 1, () => scrape());
  await phase(B, seq, 1, rawOnce(pageUrl, 'none'));
  await phase(BCLEAR, seq, 1, rawOnce(pageUrl, 'clear'));
  await phase(BCTX, seq, 1, rawOnce(pageUrl, 'context'));
  await phase(A2, seq, 1, () => scrape(pendingUrl));
  await phase(B2, seq, 1, rawOnce(pendingUrl, 'none'));
  await phase(B2CTX, seq, 1, rawOnce(pendingUrl, 'context'));
  await phase(D, par, CLIENTS, () => scrape());
  if (round === 0) pssD = treePssMb(server.pid);
  await phase(ECTX, par, POOL, rawOnce(pageUrl, 'context'));
  await phase(ECLEAR, par, POOL, rawOnce(pageUrl, 'clear'));
  await phase(E, par, POOL, rawOnce(pageUrl, 'none'));
  await phase(C, Math.ceil(NAIVE / ROUNDS), 1, coldRender);
}
await Promise.all(raws.map((raw) => raw.quit()));
const rendered = 30 + phases.get(A)!.latencies.length + phases.get(A2)!.latencies.length + phases.get(D)!.latencies.length;
if (rendered < 300) await measure('top-up to 300 renders', 300 - rendered, POOL, () => scrape());
const pss300 = treePssMb(server.pid);
await server.stop();

target.close();

const get = (label: string) => phases.get(label)!;
const p50 = (label: string) => percentile(get(label).latencies, 50);
const cpuPerRender = (label: string) => (get(label).cpuSeconds / get(label).latencies.length) * 1000;
console.log(`\nbrowser engine benchmark (${new Date().toISOString()}, ${POOL} sessions, ${ROUNDS} rounds, Chromium ${CHROMIUM})\n`);
for (const [label, run] of phases) console.log(`${describeRun(run)}  CPU ${cpuPerRender(label).toFixed(0).padStart(4)} ms/render`);
console.log('');
console.log(`PSS of scrapegate, its ${POOL} sessions' drivers and browsers, during (d): ${pssD.toFixed(0)} MB`);
console.log(`scrapegate's pool PSS after ${Math.max(300, rendered)} renders / after 30: ${pss300.toFixed(0)} MB / ${pss30.toFixed(0)} MB = ${(pss300 / pss30).toFixed(2)}`);
console.log('');
const ratio = (label: string, value: number, goal: string) => console.log(`${label.padEnd(62)} ${value.toFixed(2).padStart(6)}   ${goal}`);
ratio('a/b-ctx   p50, scrapegate API vs a raw session as isolated', p50(A) / p50(BCTX), '(target <= 1.1)');
ratio('c/a       p50, a new session per request vs scrapegate', p50(C) / p50(A), '(target >= 8)');
ratio('d/e-ctx   renders/s at saturation vs raw sessions as isolated', throughput(get(D)) / throughput(get(ECTX)), '(target >= 0.9)');
ratio('          CPU ms per render: scrapegate (d)', cpuPerRender(D), `raw (e-ctx) ${cpuPerRender(ECTX).toFixed(0)}`);
ratio('a2/b2-ctx p50 on the pending-work page', p50(A2) / p50(B2CTX), '');
ratio('a/b-clear p50 vs a raw session clearing (weaker isolation)', p50(A) / p50(BCLEAR), '');
ratio('a/b       p50 vs a raw session not isolating at all', p50(A) / p50(B), '');
ratio('c/a       mean latencies', mean(get(C).latencies) / mean(get(A).latencies), '');
ratio('d/e-clear renders/s vs raw sessions clearing (weaker isolation)', throughput(get(D)) / throughput(get(ECLEAR)), '');
ratio('d/e       renders/s vs raw sessions not isolating at all', throughput(get(D)) / throughput(get(E)), '');
