// Load run: 2,000 mixed requests (plain and browser; v1, v2 and extended; several keys and
// plans; slow, erroring, walled targets; datacenter and residential proxies) against the real
// server on loopback, then the checks that must hold afterwards: no 5xx, credits charged equal
// to the costs the 200s reported, no leases left, no Chromium beyond the pool, pool memory within
// 20% of its warm-up figure. Prints the figures; exits 1 if any check fails. Never judges speed.
//
//   node --import tsx scripts/bench/load.ts [--count 2000] [--concurrency 8] [--pool 4]
//        [--browser-share 0.2] [--max-pages 50] [--seed N] [--time-cap 900] [--mysql | --database-url URL]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatReport } from './load/report.js';
import { runLoad } from './load/run.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    pool: { type: 'string', default: '4' },
    'browser-share': { type: 'string', default: '0.2' },
    // Sessions retire after 50 renders (the server's default is 100), so some are replaced under load.
    'max-pages': { type: 'string', default: '50' },
    seed: { type: 'string' },
    'time-cap': { type: 'string', default: '900' },
    mysql: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
  },
});

function positive(name: string, text: string | undefined, integer = true): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    console.error(`--${name}: expected a positive ${integer ? 'integer' : 'number'}, got ${text}`);
    process.exit(2);
  }
  return n;
}

const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const databaseUrl = values['database-url'] ?? (values.mysql ? MYSQL_URL : `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-load-')), 'load.sqlite')}`);
const browserShare = positive('browser-share', values['browser-share'], false);
if (browserShare > 1) {
  console.error('--browser-share: at most 1');
  process.exit(2);
}

const report = await runLoad({
  count: positive('count', values.count),
  concurrency: positive('concurrency', values.concurrency),
  poolSize: positive('pool', values.pool),
  browserShare,
  maxPages: positive('max-pages', values['max-pages']),
  seed: values.seed === undefined ? undefined : positive('seed', values.seed),
  timeCapMs: positive('time-cap', values['time-cap']) * 1000,
  databaseUrl,
  log: (line) => console.error(line),
});
console.log(`\n${formatReport(report)}`);
const failed = report.checks.filter((c) => !c.ok);
console.log(failed.length === 0 ? '\nall checks passed' : `\n${failed.length} check(s) failed`);
process.exit(failed.length === 0 ? 0 : 1);
