// Crawl benchmark: a generated 2,000-page loopback site (test/helpers/crawl-site.ts, a tree of
// ten links a page, no hostile links) crawled from its root through one instance, against a batch
// of exactly the pages the crawl returned, on the same instance, in the same run (BENCH_ROUNDS
// of each, 2 by default, alternating which goes first, after a warm-up of 300 pages of each and one
// full crawl that lists the pages). Prints the pages per second of each and their ratio. The host cap is set to the workers
// (CRAWL_HOST_CONCURRENCY) so that both may use every worker: what is measured is the crawl's own
// cost (its frontier, its link sorting, its host gate), not its politeness.
// Each run prints its wall time and the CPU the server's process tree spent per page.
// BENCH_PROFILE=<dir> writes the server's CPU profile there; BENCH_PRELOAD=<module> preloads a
// module of your own into the server (an instrument); BENCH_TRACE=1 prints the pages done each second.
// Not a timed test: `npm run bench:crawl`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase } from '../../src/store/database.js';
import { CrawlSite } from '../../test/helpers/crawl-site.js';
import { ServerProcess } from '../../test/helpers/server-process.js';
import { treeCpuSeconds } from './browser-cpu.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 2_000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 16);
const MYSQL_URL = process.env.BENCH_MYSQL_URL;
/** Crawls and batches each, alternating which goes first. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Status {
  status: string;
  completed: number;
  next?: string;
  data: Array<{ metadata: { sourceURL: string } }>;
}

const databaseUrl = MYSQL_URL ?? `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-crawl-')), 'bench.sqlite')}`;
const db = openDatabase(databaseUrl);
await migrate(db);
const { key } = await new ApiKeyStore(db.knex).create({ planName: 'business-pro', credits: 8_000_000, maxConcurrency: null, label: 'bench-crawl' });
await db.close();
const server = await new ServerProcess({
  DATABASE_URL: databaseUrl, BROWSER_POOL_SIZE: '0', TARGET_ALLOW_CIDRS: '127.0.0.1/32', ALLOW_PRIVATE_TARGETS: 'false',
  JOB_WORKERS: String(WORKERS), JOB_KEY_MAX_IN_FLIGHT: String(2 * WORKERS), CRAWL_HOST_CONCURRENCY: String(WORKERS),
  ...(process.env.BENCH_PROFILE ? { BENCH_PROFILE: process.env.BENCH_PROFILE } : {}),
  // BENCH_PROFILE=<dir>: the server's CPU profile, written there when it stops.
}, [...(process.env.BENCH_PROFILE ? [new URL('./cpu-profile-preload.ts', import.meta.url).pathname] : []), ...(process.env.BENCH_PRELOAD ? [process.env.BENCH_PRELOAD] : [])]).start();
const site = await new CrawlSite({ pages: PAGES, fanout: 10, hostile: false }).start(Number(new URL(server.base).port));
const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };

/** Each run's wall time, and the CPU the server's tree (the service, its HTML threads, its Redis) spent meanwhile. */
async function run(path: string, body: unknown): Promise<{ seconds: number; cpu: number; urls: string[] }> {
  const started = performance.now();
  const cpuBefore = treeCpuSeconds(server.pid);
  let lastTrace = started; const trace: number[] = [];
  const res = await fetch(`${server.base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const status = (await (await fetch(`${server.base}${path}/${id}?limit=1`, { headers })).json()) as Status;
    if (process.env.BENCH_TRACE && performance.now() - lastTrace > 1000) { lastTrace = performance.now(); trace.push(status.completed); }
    if (status.status !== 'scraping') break;
    await sleep(50);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = treeCpuSeconds(server.pid) - cpuBefore;
  const urls: string[] = [];
  for (let next: string | undefined = `${server.base}${path}/${id}`; next; ) {
    const page = (await (await fetch(next, { headers })).json()) as Status;
    urls.push(...page.data.map((d) => d.metadata.sourceURL));
    next = page.next;
  }
  if (process.env.BENCH_TRACE) console.log(`  trace ${path}: ${trace.join(' ')}`);
  console.log(`  ${path}: ${urls.length} pages in ${seconds.toFixed(1)} s, server CPU ${((1000 * cpu) / Math.max(1, urls.length)).toFixed(1)} ms/page`);
  return { seconds, cpu, urls };
}

try {
  // Rounds alternate which goes first, so that a machine growing busier or quieter (another run
  // beside this one) weighs on both alike.
  const crawlBody = { url: site.url('/p/0'), limit: PAGES, sitemap: process.env.BENCH_SITEMAP ?? 'skip', crawlEntireDomain: true, scrapeOptions: { formats: ['markdown'] } };
  // Warm-up, not counted: the server's first pages compile its code and start its HTML threads.
  const warm = await run('/v2/crawl', { ...crawlBody, limit: Math.min(300, PAGES) });
  await run('/v2/batch/scrape', { urls: warm.urls, formats: ['markdown'] });
  // The site's pages as a crawl finds them, for the batches: not counted either, since the first
  // full crawl still paid for code the short warm-up had not reached (9 against 6.5 ms of CPU a page).
  const first = await run('/v2/crawl', crawlBody);
  const totals = { crawl: { pages: 0, seconds: 0, cpu: 0 }, batch: { pages: 0, seconds: 0, cpu: 0 } };
  const batchOnce = async () => {
    const batch = await run('/v2/batch/scrape', { urls: first.urls, formats: ['markdown'] });
    totals.batch.pages += batch.urls.length;
    totals.batch.seconds += batch.seconds;
    totals.batch.cpu += batch.cpu;
  };
  const crawlOnce = async () => {
    const crawl = await run('/v2/crawl', crawlBody);
    totals.crawl.pages += crawl.urls.length;
    totals.crawl.seconds += crawl.seconds;
    totals.crawl.cpu += crawl.cpu;
  };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      await batchOnce();
      await crawlOnce();
    } else {
      await crawlOnce();
      await batchOnce();
    }
  }
  const crawlRate = totals.crawl.pages / totals.crawl.seconds;
  const batchRate = totals.batch.pages / totals.batch.seconds;
  console.log(`crawl: ${totals.crawl.pages} pages in ${totals.crawl.seconds.toFixed(1)} s = ${crawlRate.toFixed(0)} pages/s (${ROUNDS} crawls of ${first.urls.length} pages), server CPU ${((1000 * totals.crawl.cpu) / totals.crawl.pages).toFixed(1)} ms/page`);
  console.log(`batch of the same pages: ${totals.batch.pages} in ${totals.batch.seconds.toFixed(1)} s = ${batchRate.toFixed(0)} pages/s (${ROUNDS} batches), server CPU ${((1000 * totals.batch.cpu) / totals.batch.pages).toFixed(1)} ms/page`);
  console.log(`crawl / batch pages per second: ${(crawlRate / batchRate).toFixed(2)} (target >= 0.85); ${WORKERS} workers, ${MYSQL_URL ? 'MySQL' : 'SQLite'}`);
} finally {
  await site.stop();
  await server.stop();
}
