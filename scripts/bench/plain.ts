// Plain-mode benchmark: the same loopback target reached directly, through a minimal forwarder,
// and through scrapegate (SQLite, and MySQL when reachable), each server in its own process,
// measured in one run and printed as ratios. Not a timed test: `npm run bench:plain`.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeyStore } from '../../src/store/api-key-store.js';
import { migrate, openDatabase } from '../../src/store/database.js';
import { freePort } from '../../test/helpers/free-port.js';
import { untilUp } from './until-up.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const children: ChildProcess[] = [];
const work = mkdtempSync(join(tmpdir(), 'bench-plain-'));

function start(args: string[], env: Record<string, string> = {}, log = '/dev/null'): void {
  const out = openSync(log, 'w');
  children.push(spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] }));
}

async function scrapegate(name: string, databaseUrl: string): Promise<{ base: string; key: string }> {
  const db = openDatabase(databaseUrl);
  await migrate(db);
  const { key } = await new ApiKeyStore(db.knex).create({ planName: 'business-pro', credits: 8_000_000, maxConcurrency: null, label: 'bench' });
  await db.close();
  const port = await freePort();
  // Metering fully on: key check, debit, validation, target policy (the target is allowed by
  // CIDR, not by switching the policy off) and the access log at info.
  start(['--import', 'tsx', 'src/index.ts'], {
    PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, BROWSER_POOL_SIZE: '0', LOG_LEVEL: 'info', TARGET_ALLOW_CIDRS: '127.0.0.1/32',
  }, join(work, `${name}.log`));
  await untilUp(`http://127.0.0.1:${port}/openapi.json`);
  return { base: `http://127.0.0.1:${port}`, key };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, connections: number): Promise<Figures> {
  await autocannon({ url, connections, duration: 2 }); // warm-up: JIT, pools, caches
  const r = await autocannon({ url, connections, duration: SECONDS });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function mysqlQuestions(): Promise<number | undefined> {
  const db = openDatabase(MYSQL_URL);
  try {
    const [rows] = (await db.knex.raw("SHOW GLOBAL STATUS LIKE 'Questions'")) as [Array<{ Value: string }>];
    return Number(rows[0].Value);
  } catch {
    return undefined;
  } finally {
    await db.close();
  }
}

try {
  const targetPort = await freePort();
  start(['--import', 'tsx', 'scripts/bench/plain-servers.ts', 'target', String(targetPort)]);
  const forwarderPort = await freePort();
  start(['--import', 'tsx', 'scripts/bench/plain-servers.ts', 'forwarder', String(forwarderPort)]);
  const targetUrl = `http://127.0.0.1:${targetPort}/`;
  await untilUp(targetUrl);
  await untilUp(`http://127.0.0.1:${forwarderPort}/?url=${encodeURIComponent(targetUrl)}`);

  const sqlite = await scrapegate('sqlite', `sqlite:${join(work, 'bench.sqlite')}`);
  const mysql = (await mysqlQuestions()) === undefined ? undefined : await scrapegate('mysql', MYSQL_URL);
  const viaScrapegate = (s: { base: string; key: string }) => `${s.base}/v2/general?${new URLSearchParams({ 'x-api-key': s.key, url: targetUrl, browser: 'false' })}`;

  const rows: Array<[string, number, Figures, string]> = [];
  for (const connections of [1, 16]) {
    const forwarder = await load(`http://127.0.0.1:${forwarderPort}/?url=${encodeURIComponent(targetUrl)}`, connections);
    rows.push(['target directly', connections, await load(targetUrl, connections), '']);
    rows.push(['minimal forwarder', connections, forwarder, '1.00']);
    const s = await load(viaScrapegate(sqlite), connections);
    rows.push(['scrapegate, SQLite', connections, s, (s.rps / forwarder.rps).toFixed(2)]);
    if (mysql) {
      const before = await mysqlQuestions();
      const m = await autocannon({ url: viaScrapegate(mysql), connections, duration: SECONDS });
      const trips = ((await mysqlQuestions())! - before! - 2) / m.requests.total;
      rows.push([`scrapegate, MySQL (${trips.toFixed(2)} queries/request)`, connections, { rps: m.requests.average, p50: m.latency.p50, p99: m.latency.p99, errors: m.errors + m.non2xx }, (m.requests.average / forwarder.rps).toFixed(2)]);
    }
  }
  console.log(`\nplain mode, one loopback target serving a 2 KB page, ${SECONDS} s per run\n`);
  console.log(`${'path'.padEnd(46)} conns    req/s    p50 ms   p99 ms  errors  ÷ forwarder`);
  for (const [label, c, f, ratio] of rows) {
    console.log(`${label.padEnd(46)} ${String(c).padStart(5)} ${f.rps.toFixed(0).padStart(8)} ${f.p50.toFixed(1).padStart(9)} ${f.p99.toFixed(1).padStart(8)} ${String(f.errors).padStart(7)}  ${ratio.padStart(11)}`);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
}
