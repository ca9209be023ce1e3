// Where a browser render's milliseconds go: the real server in this process, sequential
// requests through the API, and every step of the engine (render, reset, each DevTools command,
// each WebDriver call) timed from the diagnostics channel it publishes on. Run it with
// `npm run bench:browser-profile [-- --requests 100 --pool 2 --gap 800 --pending]`; add
// `--cpu-prof` to node's options for a CPU profile of the server's process.
import diagnostics_channel from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import type { RenderStep } from '../../src/engines/browser/render-steps.js';
import { startServer } from '../../src/server/start-server.js';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase } from '../../src/store/database.js';
import { startBenchTarget } from './browser-target.js';
import { percentile } from './measure.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '100' }, pool: { type: 'string', default: '2' }, pending: { type: 'boolean', default: false }, gap: { type: 'string', default: '800' } } });
const REQUESTS = Number(values.requests);

const target = await startBenchTarget();
const databaseUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-profile-')), 'bench.sqlite')}`;
const db = openDatabase(databaseUrl);
await migrate(db);
const { key } = await new ApiKeyStore(db.knex).create({ planName: 'business', credits: 1_000_000, maxConcurrency: null });
await db.close();
const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', BROWSER_POOL_SIZE: values.pool, LOG_LEVEL: 'warn' });
const server = await startServer(config, pino({ level: 'warn' }));
const base = `http://127.0.0.1:${server.port}`;
for (let i = 0; i < 600 && (await fetch(`${base}/readyz`)).status !== 200; i++) await sleep(100);

const url = values.pending ? target.pendingUrl : target.pageUrl;
const scrape = async () => {
  const res = await fetch(`${base}/v2/general?${new URLSearchParams({ 'x-api-key': key, url })}`);
  const body = await res.text();
  if (res.status !== 200 || !body.includes('item 199')) throw new Error(`scrapegate answered ${res.status}`);
};
for (let i = 0; i < 10; i++) await scrape();

// Steps of the request on the critical path, and those of resets (which overlap the next request).
const steps = new Map<string, number[]>();
let inRequest = false;
const listener = (message: unknown) => {
  const { step, ms } = message as RenderStep;
  const name = !inRequest && !step.startsWith('reset.') && !step.startsWith('tab.') ? `(between) ${step}` : step;
  let list = steps.get(name);
  if (!list) steps.set(name, (list = []));
  list.push(ms);
};
diagnostics_channel.subscribe('scrapegate:browser-step', listener);
const totals: number[] = [];
const cpuBefore = process.cpuUsage();
for (let i = 0; i < REQUESTS; i++) {
  // Off-path work (the last session's reset) is left to finish first (`--gap 0`: not), so that it
  // is not counted as the request's, and the request does not share the CPU with it.
  await sleep(Number(values.gap));
  inRequest = true;
  const t = performance.now();
  await scrape();
  totals.push(performance.now() - t);
  inRequest = false;
}
const cpu = process.cpuUsage(cpuBefore);
diagnostics_channel.unsubscribe('scrapegate:browser-step', listener);

const row = (name: string, list: number[]) =>
  `${name.padEnd(44)} ${String(list.length).padStart(5)} ${(list.length / REQUESTS).toFixed(2).padStart(6)} ${percentile(list, 50).toFixed(1).padStart(8)} ${(list.reduce((a, b) => a + b, 0) / list.length).toFixed(1).padStart(8)} ${(list.reduce((a, b) => a + b, 0) / REQUESTS).toFixed(1).padStart(9)}`;
console.log(`\n${REQUESTS} sequential requests through /v2/general, ${values.gap} ms apart, pool of ${values.pool}, ${values.pending ? 'pending-work' : 'JS'} page\n`);
console.log(`${'step'.padEnd(44)} ${'count'.padStart(5)} ${'/req'.padStart(6)} ${'p50 ms'.padStart(8)} ${'mean ms'.padStart(8)} ${'ms/req'.padStart(9)}`);
console.log(row('request through the API (client side)', totals));
for (const [name, list] of [...steps].sort(([a], [b]) => a.localeCompare(b))) console.log(row(name, list));
console.log(`\nserver process CPU per request (user+system, this process: API, engine, gateway): ${((cpu.user + cpu.system) / 1000 / REQUESTS).toFixed(1)} ms`);
await server.shutdown(5_000);
target.close();
