// Plain mode of this tree against a baseline tree (an earlier commit checked out beside it, with
// its node_modules and openapi/dist), alternated round by round in one run so that both meet the
// same machine. Besides req/s it prints the CPU each process spent per request (the server, the
// database server, the target), which tells where a difference comes from: on a 2-core machine
// the database competes with the service for the same cores. Not a timed test:
//   npm run bench:compare -- --baseline ../seed [--database mysql|sqlite|both] [--rounds 3]
//                            [--seconds 8] [--connections 16]
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../../src/store/database.js';
import { freePort } from '../../test/helpers/free-port.js';
import { untilUp } from './until-up.js';

const { values: args } = parseArgs({
  options: {
    baseline: { type: 'string' },
    database: { type: 'string', default: 'both' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
  },
});
if (args.baseline === undefined) throw new Error('--baseline <dir>: a checkout of the commit to compare with');
if (!['mysql', 'sqlite', 'both'].includes(args.database ?? '')) throw new Error('--database: mysql, sqlite or both');
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const MYSQL_SERVER = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const trees = [
  { name: 'baseline', dir: resolve(args.baseline) },
  { name: 'this tree', dir: resolve('.') },
];
const children: ChildProcess[] = [];
const work = mkdtempSync(join(tmpdir(), 'bench-compare-'));

/** CPU time (user + system, ms) a process has spent so far, or NaN when it cannot be read. */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks at USER_HZ 100
  } catch {
    return NaN;
  }
}

function start(cwd: string, args: string[], env: Record<string, string>, log: string): ChildProcess {
  const out = openSync(log, 'w');
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  children.push(child);
  return child;
}

/** The database server's pid, when it runs on this machine and says where its pid file is. */
async function mysqlServerPid(): Promise<number | undefined> {
  const db = openDatabase(MYSQL_SERVER);
  try {
    const [rows] = (await db.knex.raw('SELECT @@pid_file AS f')) as [Array<{ f: string }>];
    return Number(readFileSync(rows[0].f, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  } finally {
    await db.close();
  }
}

/** A database of its own for each tree (their schemas differ); dropped again at the end. */
async function mysqlDatabase(name: string, create: boolean): Promise<string> {
  const db = openDatabase(MYSQL_SERVER);
  try {
    await db.knex.raw(`DROP DATABASE IF EXISTS \`${name}\``);
    if (create) await db.knex.raw(`CREATE DATABASE \`${name}\``);
  } finally {
    await db.close();
  }
  const url = new URL(MYSQL_SERVER);
  url.pathname = `/${name}`;
  return url.href;
}

/** A paid, uncapped key made by the tree's own code (its schema and key format are its own). */
function createKey(dir: string, databaseUrl: string): string {
  const code = `const { migrate, openDatabase } = await import(${JSON.stringify(pathToFileURL(join(dir, 'src/store/database.ts')).href)});
const { ApiKeyStore } = await import(${JSON.stringify(pathToFileURL(join(dir, 'src/store/api-key-store.ts')).href)});
const db = openDatabase(${JSON.stringify(databaseUrl)});
await migrate(db);
const { key } = await new ApiKeyStore(db.knex).create({ planName: 'business-pro', credits: 8000000, maxConcurrency: null, label: 'bench' });
await db.close();
console.log(key);`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: dir, env: { ...process.env, LOG_LEVEL: 'silent' } });
  return out.toString().trim().split('\n').at(-1) ?? '';
}

interface Server {
  name: string;
  url: string;
  pid: number | undefined;
}

/** The tree's server as plain.ts starts it: metering, validation, target policy and access log all on. */
async function server(tree: { name: string; dir: string }, databaseUrl: string, targetUrl: string): Promise<Server> {
  const key = createKey(tree.dir, databaseUrl);
  const port = await freePort();
  const child = start(tree.dir, ['--import', 'tsx', 'src/index.ts'], {
    PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, BROWSER_POOL_SIZE: '0', LOG_LEVEL: 'info', TARGET_ALLOW_CIDRS: '127.0.0.1/32',
  }, join(work, `${tree.name.replace(/\W/g, '-')}-${databaseUrl.split(':')[0]}.log`));
  await untilUp(`http://127.0.0.1:${port}/openapi.json`);
  const query = new URLSearchParams({ 'x-api-key': key, url: targetUrl, browser: 'false' });
  return { name: tree.name, url: `http://127.0.0.1:${port}/v2/general?${query}`, pid: child.pid };
}

interface Round {
  rps: number;
  p50: number;
  errors: number;
  /** CPU µs per request: the server, the database server, the target. */
  cpu: [number, number, number];
}

async function round(s: Server, databasePid: number | undefined, targetPid: number | undefined): Promise<Round> {
  const before = [cpuMs(s.pid), cpuMs(databasePid), cpuMs(targetPid)];
  const r = await autocannon({ url: s.url, connections: CONNECTIONS, duration: SECONDS });
  const after = [cpuMs(s.pid), cpuMs(databasePid), cpuMs(targetPid)];
  const perRequest = (i: number) => ((after[i] - before[i]) * 1000) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, p50: r.latency.p50, errors: r.errors + r.non2xx, cpu: [perRequest(0), perRequest(1), perRequest(2)] };
}

const fmt = (n: number, width: number) => (Number.isNaN(n) ? '-' : n.toFixed(0)).padStart(width);

async function compare(label: string, servers: Server[], databasePid: number | undefined, targetPid: number | undefined): Promise<void> {
  for (const s of servers) await autocannon({ url: s.url, connections: CONNECTIONS, duration: 2 }); // JIT, pools
  const rounds = new Map<string, Round[]>(servers.map((s) => [s.name, []]));
  for (let i = 0; i < ROUNDS; i++) for (const s of servers) rounds.get(s.name)?.push(await round(s, databasePid, targetPid));
  console.log(`\n${label}, ${CONNECTIONS} connections, ${ROUNDS} alternated rounds of ${SECONDS} s`);
  console.log(`${'tree'.padEnd(10)} round    req/s  p50 ms  errors   CPU µs/request: server  database  target   ÷ baseline`);
  const base = rounds.get(servers[0].name) ?? [];
  for (const s of servers) {
    const own = rounds.get(s.name) ?? [];
    own.forEach((r, i) => {
      console.log(`${s.name.padEnd(10)} ${String(i + 1).padStart(5)} ${fmt(r.rps, 8)} ${fmt(r.p50, 7)} ${String(r.errors).padStart(7)} ${fmt(r.cpu[0], 23)} ${fmt(r.cpu[1], 9)} ${fmt(r.cpu[2], 7)} ${(r.rps / base[i].rps).toFixed(2).padStart(12)}`);
    });
  }
  const total = (rs: Round[]) => rs.reduce((sum, r) => sum + r.rps, 0);
  console.log(`this tree ÷ baseline over all rounds: ${(total(rounds.get(servers[1].name) ?? []) / total(base)).toFixed(2)}`);
}

try {
  const targetPort = await freePort();
  const target = start(resolve('.'), ['--import', 'tsx', 'scripts/bench/plain-servers.ts', 'target', String(targetPort)], {}, '/dev/null');
  const targetUrl = `http://127.0.0.1:${targetPort}/`;
  await untilUp(targetUrl);
  if (args.database === 'sqlite' || args.database === 'both') {
    const servers = [];
    for (const [i, tree] of trees.entries()) servers.push(await server(tree, `sqlite:${join(work, `tree-${i}.sqlite`)}`, targetUrl));
    await compare('SQLite', servers, undefined, target.pid);
  }
  if (args.database === 'mysql' || args.database === 'both') {
    const servers = [];
    for (const [i, tree] of trees.entries()) servers.push(await server(tree, await mysqlDatabase(`bench_compare_${i}`, true), targetUrl));
    await compare('MySQL', servers, await mysqlServerPid(), target.pid);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  await sleep(1000);
  if (args.database !== 'sqlite') for (const i of trees.keys()) await mysqlDatabase(`bench_compare_${i}`, false).catch(() => undefined);
}
