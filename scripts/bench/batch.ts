// Batch benchmark: N plain loopback URLs (10,000 by default) submitted as one Firecrawl batch to
// two instances sharing one Redis and one MySQL database, against the same URLs sent through the sync
// API (POST /v2/scrape, the same document maker) by a client at the same total concurrency, both
// in this run. Also reports the Redis memory an entry takes. Not a timed test: `npm run bench:batch`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase } from '../../src/store/database.js';
import { freePort } from '../../test/helpers/free-port.js';
import { TestRedis } from '../../test/helpers/test-redis.js';
import { untilUp } from './until-up.js';

const URLS = Number(process.env.BENCH_URLS ?? 10_000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 16);
const INSTANCES = 2;
const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
let dropSchema = async (): Promise<void> => undefined;
const children: ChildProcess[] = [];
const work = mkdtempSync(join(tmpdir(), 'bench-batch-'));

function start(args: string[], env: Record<string, string>, log = '/dev/null'): void {
  const out = openSync(log, 'w');
  children.push(spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] }));
}

/** Entries BullMQ holds for items now, and Redis's data bytes. */
async function redisLoad(redis: Redis): Promise<{ entries: number; bytes: number }> {
  let entries = 0;
  for (let cursor = '0'; ; ) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', 'scrapegate:items-*:*.*', 'COUNT', 1000);
    entries += keys.length;
    cursor = next;
    if (cursor === '0') break;
  }
  // What the entries themselves take (their hashes, and their ids in BullMQ's lists and sets),
  // not the connections' buffers that INFO's used_memory also counts.
  let bytes = 0;
  for (let cursor = '0'; ; ) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', 'scrapegate:items-*', 'COUNT', 1000);
    for (const key of keys) bytes += Number((await redis.call('MEMORY', 'USAGE', key)) ?? 0);
    cursor = next;
    if (cursor === '0') break;
  }
  return { entries, bytes };
}

/**
 * Statements both instances sent to the database (their scrapegate_database_statements_total):
 * counted at the instances, since the MySQL server's own counters include whatever else it serves.
 */
async function statements(bases: string[]): Promise<number> {
  let sum = 0;
  for (const base of bases) {
    const text = await (await fetch(`${base}/metrics`)).text();
    sum += Number(/^scrapegate_database_statements_total (\S+)$/m.exec(text)?.[1] ?? NaN);
  }
  return sum;
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

async function pool<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await run(items[next++]);
  }));
}

const redis = await TestRedis.start();
try {
  const targetPort = await freePort();
  start(['--import', 'tsx', 'scripts/bench/plain-servers.ts', 'target', String(targetPort)], {});
  await untilUp(`http://127.0.0.1:${targetPort}/`);
  // Instances share a database only on MySQL (SQLite is one process's: docs/jobs.md).
  const schema = `bench_batch_${process.pid}`;
  const server = openDatabase(MYSQL_URL);
  await server.knex.raw(`CREATE DATABASE ${schema}`);
  await server.close();
  const databaseUrl = `${MYSQL_URL.replace(/\/[^/]*$/, '')}/${schema}`;
  dropSchema = async () => {
    const again = openDatabase(MYSQL_URL);
    await again.knex.raw(`DROP DATABASE IF EXISTS ${schema}`);
    await again.close();
  };
  const db = openDatabase(databaseUrl);
  await migrate(db);
  const { key } = await new ApiKeyStore(db.knex).create({ planName: 'business-pro', credits: 8_000_000, maxConcurrency: null, label: 'bench' });
  await db.close();
  const bases: string[] = [];
  for (let i = 0; i < INSTANCES; i++) {
    const port = await freePort();
    start(['--import', 'tsx', 'src/index.ts'], {
      PORT: String(port), HOST: '127.0.0.1', DATA_DIR: join(work, `data-${i}`), DATABASE_URL: databaseUrl, REDIS_URL: redis.url, BROWSER_POOL_SIZE: '0',
      LOG_LEVEL: 'warn', TARGET_ALLOW_CIDRS: '127.0.0.1/32', JOB_WORKERS: String(WORKERS), JOB_KEY_MAX_IN_FLIGHT: String(2 * INSTANCES * WORKERS),
    }, join(work, `instance-${i}.log`));
    await untilUp(`http://127.0.0.1:${port}/openapi.json`);
    bases.push(`http://127.0.0.1:${port}`);
  }
  const urls = (run: string) => Array.from({ length: URLS }, (_, i) => `http://127.0.0.1:${targetPort}/${run}?i=${i}`);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };

  // The sync baseline: the same documents, one request each, spread over both instances.
  const failures = new Map<number, number>();
  const loadBefore = loadAverage();
  const syncStatements = await statements(bases);
  const syncStarted = performance.now();
  let turn = 0;
  await pool(urls('sync'), INSTANCES * WORKERS, async (url) => {
    // As a client holding the URLs must: a 429 (the HTML workers' queue full) is sent again shortly.
    for (;;) {
      let res: Response;
      try {
        res = await fetch(`${bases[turn++ % INSTANCES]}/v2/scrape`, { method: 'POST', headers, body: JSON.stringify({ url, formats: ['markdown'] }) });
        await res.arrayBuffer();
      } catch {
        // A kept-alive connection the server closed as it was reused: sent again, as a client would.
        failures.set(0, (failures.get(0) ?? 0) + 1);
        continue;
      }
      if (res.status !== 200) failures.set(res.status, (failures.get(res.status) ?? 0) + 1);
      if (res.status !== 429) return;
      await sleep(100);
    }
  });
  const syncSeconds = (performance.now() - syncStarted) / 1000;
  const syncPerUrl = ((await statements(bases)) - syncStatements) / URLS;

  const conn = new Redis(redis.url);
  const batchStatements = await statements(bases);
  const batchStarted = performance.now();
  const submitted = await fetch(`${bases[0]}/v2/batch/scrape`, { method: 'POST', headers, body: JSON.stringify({ urls: urls('batch'), formats: ['markdown'] }) });
  const { id } = (await submitted.json()) as { id: string };
  let peak = { entries: 0, bytes: 0 };
  let status = { status: 'scraping', completed: 0 };
  while (status.status === 'scraping') {
    await sleep(200);
    const load = await redisLoad(conn);
    if (load.entries > peak.entries) peak = load;
    status = await fetch(`${bases[1]}/v2/batch/scrape/${id}?limit=1`, { headers }).then(async (r) => (await r.json()) as typeof status).catch(() => status);
  }
  const batchSeconds = (performance.now() - batchStarted) / 1000;
  const loadAfter = loadAverage();
  const batchPerUrl = ((await statements(bases)) - batchStatements) / URLS;
  conn.disconnect();

  const rate = (seconds: number) => (URLS / seconds).toFixed(0);
  console.log(`\n${URLS} plain loopback URLs (2 KB page, markdown), ${INSTANCES} instances × ${WORKERS} workers, one Redis, MySQL\n`);
  console.log(`sync API, ${INSTANCES * WORKERS} concurrent clients   ${syncSeconds.toFixed(1).padStart(6)} s  ${rate(syncSeconds).padStart(6)} URLs/s  ${syncPerUrl.toFixed(1)} statements/URL (answers not 200 and connections lost (0), sent again: ${JSON.stringify(Object.fromEntries(failures))})`);
  console.log(`one batch (${status.status}, ${status.completed} done)     ${batchSeconds.toFixed(1).padStart(6)} s  ${rate(batchSeconds).padStart(6)} URLs/s  ${batchPerUrl.toFixed(1)} statements/URL (polling included)`);
  console.log(`load average (1, 5, 15 min) at the start: ${loadBefore}; at the end: ${loadAfter} (2 cores)`);
  console.log(`batch ÷ sync throughput: ${(syncSeconds / batchSeconds).toFixed(2)} (target ≥ 0.90)`);
  console.log(`Redis: at most ${peak.entries} entries held at once (queued items are not in Redis); ${peak.bytes} bytes of data then, ${peak.entries ? Math.round(peak.bytes / peak.entries) : 0} bytes per entry`);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await redis.kill();
  await sleep(1_000);
  await dropSchema();
}
