// One load run: start everything, warm the pool up, send the mixed requests at a bounded
// concurrency, then check what must hold afterwards. Used by scripts/bench/load.ts (2,000
// requests) and test/integration/load.test.ts (a few hundred).
import { setTimeout as sleep } from 'node:timers/promises';
import { startEnvironment, type Environment } from './environment.js';
import {
  deadlineSeconds,
  expectation,
  expectedCost,
  httpCall,
  KEY_PLANS,
  planRequests,
  type Engine,
  type KeyName,
  type PlannedRequest,
} from './plan.js';
import { inGroups, memoryKb, poolSnapshot, processTable } from './processes.js';

export interface LoadOptions {
  /** Mixed requests after the warm-up. */
  count: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** BROWSER_POOL_SIZE; browser requests in flight are held to it. */
  poolSize: number;
  /** Share of browser requests in the mix, 0–1. */
  browserShare: number;
  /** BROWSER_MAX_PAGES (sessions retired and replaced under load); unset: the server's default, 100. */
  maxPages?: number;
  databaseUrl: string;
  /** The whole run, start to stop, is cut off after this long (a hang, not a slow machine). */
  timeCapMs: number;
  seed?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Outcome {
  request: PlannedRequest;
  /** 0 when no answer came (the client gave up or the connection failed). */
  status: number;
  ms: number;
  /** Svc-credits-cost of a 200. */
  cost: number | undefined;
  /** Why the answer is not what the request allows, if it is not. */
  problem: string | undefined;
}

export interface KeyFigures {
  name: KeyName;
  plan: string;
  requests: number;
  ok: number;
  /** Σ Svc-credits-cost over its 200s. */
  costOfOks: number;
  before: number;
  after: number;
  leases: number;
}

export interface MemoryFigures {
  /** Summed PSS of the pool's process groups, kB. */
  pssKb: number;
  /** Private (USS) part of it, kB: not shared with any other process on the machine. */
  privateKb: number;
  processes: number;
  browsers: number;
}

export interface LoadReport {
  options: Omit<LoadOptions, 'log'>;
  database: string;
  wallMs: number;
  /** Seconds the mixed phase took, and requests sent in it. */
  loadMs: number;
  sent: number;
  outcomes: Outcome[];
  keys: KeyFigures[];
  warm: MemoryFigures;
  end: MemoryFigures;
  /** The most browsers in the server's sessions in two consecutive readings 0.5 s apart. */
  maxBrowsersDuringRun: number;
  /** The most in any single reading (may catch one being torn down). */
  maxBrowsersSingleReading: number;
  sessionGroupsSeen: number;
  retiredSessions: number;
  serverErrorLines: string[];
  /** The server's last output lines when it ended during the run. */
  serverOutputTail: string[];
  accessLogCost: number;
  checks: Check[];
}

/** In-flight browser requests held to the pool's size: the load a pool can take, not a queue of timeouts. */
class Semaphore {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** The text a 200 carries where the target's content is: v1 `content`, extended `html`, v2 the body. */
function pageOf(request: PlannedRequest, res: Response, body: string): { status: number | undefined; content: string } {
  if (request.api.startsWith('v2')) return { status: Number(res.headers.get('svc-page-status-code') ?? NaN), content: body };
  const json = JSON.parse(body) as { status_code?: number; content?: string; html?: string };
  return { status: json.status_code, content: (request.api.startsWith('v1') ? json.content : json.html) ?? '' };
}

async function send(env: Environment, request: PlannedRequest, notWallStatus: (name: string) => number): Promise<Outcome> {
  const call = httpCall(request, env.keys.get(request.key)!, env.targets);
  const query = call.query.length > 0 ? `?${new URLSearchParams(call.query)}` : '';
  const started = performance.now();
  // scrapegate answers by its deadline; the client waits 15 s more before calling it a hang.
  const signal = AbortSignal.timeout((deadlineSeconds(request) + 15) * 1000);
  let res: Response;
  let body: string;
  try {
    res = await fetch(`${env.server.base}${call.path}${query}`, { ...call.init, signal });
    body = await res.text();
  } catch (err) {
    return { request, status: 0, ms: performance.now() - started, cost: undefined, problem: `no answer: ${(err as Error).message}` };
  }
  const ms = performance.now() - started;
  const expected = expectation(request, notWallStatus);
  const costHeader = res.headers.get('svc-credits-cost');
  const cost = res.status === 200 && costHeader !== null ? Number(costHeader) : undefined;
  let problem: string | undefined;
  const detail = () => body.slice(0, 160).replace(/\s+/g, ' ');
  if (res.status === 200) {
    if (cost === undefined) problem = '200 without Svc-credits-cost';
    else if (cost !== expectedCost(request)) problem = `Svc-credits-cost ${cost}, the table says ${expectedCost(request)}`;
    else if (!expected.page) problem = `200 where ${expected.statuses.join('/')} was due`;
    else {
      try {
        const page = pageOf(request, res, body);
        if (page.status !== expected.page.status) problem = `target status ${page.status}, expected ${expected.page.status}`;
        else if (!page.content.includes(expected.page.marker)) problem = `content without ${JSON.stringify(expected.page.marker)}: ${detail()}`;
      } catch (err) {
        problem = `unreadable answer: ${(err as Error).message}`;
      }
    }
  } else if (!expected.statuses.includes(res.status)) {
    const timedOut = res.status === 404 && /timed out/.test(body);
    if (!(timedOut && expected.timeoutAllowed)) problem = `${res.status} where ${expected.statuses.join('/')} was due: ${detail()}`;
  }
  return { request, status: res.status, ms, cost, problem };
}

function memory(serverPid: number): MemoryFigures {
  const { browsers, members } = poolSnapshot(serverPid);
  const kb = memoryKb(members.map((p) => p.pid));
  return { pssKb: kb.pss, privateKb: kb.private, processes: members.length, browsers: browsers.length };
}

/**
 * Waits until the pool is whole and quiet (as many browsers as sessions, the same processes for
 * 1.5 s: resets and replacements done), then takes the median of three memory readings.
 */
async function settledMemory(serverPid: number, poolSize: number, until: number): Promise<MemoryFigures> {
  let previous = '';
  let stableSince = Date.now();
  while (Date.now() < until) {
    const { groups, browsers, members } = poolSnapshot(serverPid);
    const shape = members.map((p) => p.pid).sort().join(',');
    const whole = groups.length === poolSize && browsers.length === poolSize;
    if (shape !== previous || !whole) stableSince = Date.now();
    previous = shape;
    if (whole && Date.now() - stableSince >= 1_500) break;
    await sleep(250);
  }
  const readings: MemoryFigures[] = [];
  for (let i = 0; i < 3; i++) {
    readings.push(memory(serverPid));
    await sleep(200);
  }
  return readings.sort((a, b) => a.pssKb - b.pssKb)[1];
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const started = Date.now();
  const log = (line: string) => options.log?.(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
  const deadline = started + options.timeCapMs;
  const remaining = () => deadline - Date.now();
  const seed = options.seed ?? 20_240_514;
  const { log: _log, ...rest } = options;
  const shown = { ...rest, seed };

  log(`starting target, proxies and scrapegate (pool ${options.poolSize}, ${options.databaseUrl.replace(/\/\/[^@]*@/, '//')})`);
  const env = await withCap(startEnvironment({ databaseUrl: options.databaseUrl, poolSize: options.poolSize, maxPages: options.maxPages, count: options.count }), remaining(), 'start');
  const serverPid = env.server.pid;
  const seenGroups = new Set<number>();
  // A count is taken as the lower of two readings 0.5 s apart: a browser killed on retirement
  // may still be tearing down for a moment while its replacement starts; a leak stays.
  let maxBrowsers = 0;
  let maxBrowsersRaw = 0;
  let previousCount = 0;
  const sample = () => {
    const { groups, browsers } = poolSnapshot(serverPid);
    for (const g of groups) seenGroups.add(g);
    const n = browsers.length;
    if (n > options.poolSize && n > maxBrowsersRaw) {
      log(`a reading of ${n} browsers: ${browsers.map((p) => `${p.pid} (group ${p.pgid}, parent ${p.ppid}, state ${p.state})`).join(', ')}`);
    }
    maxBrowsersRaw = Math.max(maxBrowsersRaw, n);
    maxBrowsers = Math.max(maxBrowsers, Math.min(previousCount, n));
    previousCount = n;
  };
  sample();
  const sampler = setInterval(sample, 500);
  const outcomes: Outcome[] = [];
  const notWallStatus = (name: string) => env.notWalls.find((f) => f.name === name)?.status ?? 0;
  let report: LoadReport;
  try {
    const before = new Map<KeyName, number>();
    for (const [name, key] of env.keys) if (name !== 'bogus') before.set(name, await env.store.remaining(key));

    // Warm-up: every session renders twice, then the pool's memory is read as the reference.
    const warmups: PlannedRequest[] = Array.from({ length: options.poolSize * 2 }, (_, i) => ({
      id: -1 - i, api: 'v2-get', engine: 'browser', target: 'fast', key: 'warmup', proxy: undefined, variant: '', returnText: false, keyInHeader: false,
    }));
    log(`warm-up: ${warmups.length} renders`);
    await runConcurrently(warmups, options.poolSize, remaining, async (r) => void outcomes.push(await send(env, r, notWallStatus)));
    const warm = await settledMemory(serverPid, options.poolSize, Math.min(deadline, Date.now() + 30_000));
    log(`pool after warm-up: ${warm.browsers} browsers, ${warm.processes} processes, PSS ${(warm.pssKb / 1024).toFixed(0)} MB`);

    const planned = planRequests({ count: options.count, browserShare: options.browserShare, seed, walls: env.walls, notWalls: env.notWalls.map((f) => f.name) });
    const browserSlots = new Semaphore(options.poolSize);
    log(`load: ${planned.length} requests, ${options.concurrency} at a time, at most ${options.poolSize} of them in the browser`);
    const loadStarted = performance.now();
    let done = 0;
    const progress = setInterval(() => log(`  ${done}/${planned.length} answered`), 10_000);
    let sent = 0;
    try {
      sent = await runConcurrently(planned, options.concurrency, remaining, async (r) => {
        if (r.engine === 'browser') await browserSlots.take();
        try {
          outcomes.push(await send(env, r, notWallStatus));
        } finally {
          if (r.engine === 'browser') browserSlots.give();
          done++;
        }
      });
    } finally {
      clearInterval(progress);
    }
    const loadMs = performance.now() - loadStarted;
    log(`load done: ${sent} sent in ${(loadMs / 1000).toFixed(1)} s; waiting for the pool to settle`);

    const upAfterLoad = processTable().some((p) => p.pid === serverPid);
    const end = upAfterLoad ? await settledMemory(serverPid, options.poolSize, Math.min(deadline, Date.now() + 30_000)) : memory(serverPid);
    sample();
    const current = new Set(poolSnapshot(serverPid).groups);
    const retiredGroups = [...seenGroups].filter((g) => !current.has(g));
    const leftInRetired = inGroups(processTable(), retiredGroups);

    const keys: KeyFigures[] = [];
    for (const [name, key] of env.keys) {
      if (name === 'bogus') continue;
      const mine = outcomes.filter((o) => o.request.key === name);
      const oks = mine.filter((o) => o.status === 200);
      keys.push({
        name,
        plan: KEY_PLANS[name].planName,
        requests: mine.length,
        ok: oks.length,
        costOfOks: oks.reduce((s, o) => s + (o.cost ?? 0), 0),
        before: before.get(name) ?? 0,
        after: await env.store.remaining(key),
        leases: await env.store.leasesOf(key),
      });
    }

    const requestLines = env.server.logs.filter((l) => l.msg === 'request');
    const accessLogCost = requestLines.filter((l) => l.status === 200).reduce((s, l) => s + Number(l.cost ?? 0), 0);
    const serverErrorLines = env.server.logs.filter((l) => (l.level ?? 0) >= 50).map((l) => JSON.stringify(l).slice(0, 400));
    // What the server said last, besides its access log: why it ended, if it did.
    const serverOutputTail = upAfterLoad ? [] : env.server.rawOutput.filter((l) => !l.includes('"msg":"request"')).slice(-30).map((l) => l.slice(0, 600));
    const retiredSessions = env.server.logs.filter((l) => l.msg === 'browser session retired').length;

    report = {
      options: shown,
      database: options.databaseUrl.startsWith('mysql') ? 'MySQL' : 'SQLite',
      wallMs: 0,
      loadMs,
      sent,
      outcomes,
      keys,
      warm,
      end,
      maxBrowsersDuringRun: maxBrowsers,
      maxBrowsersSingleReading: maxBrowsersRaw,
      sessionGroupsSeen: seenGroups.size,
      retiredSessions,
      serverErrorLines,
      serverOutputTail,
      accessLogCost,
      checks: [],
    };
    const checks = report.checks;
    checks.push({ name: 'the server stayed up through the run', ok: upAfterLoad, detail: upAfterLoad ? `pid ${serverPid}` : `pid ${serverPid} ended; its last output is above` });
    const fiveXx = outcomes.filter((o) => o.status >= 500);
    checks.push({ name: 'no 5xx from scrapegate', ok: fiveXx.length === 0, detail: `${fiveXx.length} of ${outcomes.length}` + examples(fiveXx) });
    const unanswered = outcomes.filter((o) => o.status === 0);
    checks.push({ name: 'every request answered within its deadline + 15 s', ok: unanswered.length === 0 && sent === planned.length, detail: `${sent}/${planned.length} sent, ${unanswered.length} unanswered` + examples(unanswered) });
    const wrong = outcomes.filter((o) => o.status !== 0 && o.problem !== undefined);
    checks.push({ name: 'every answer is one its request allows (status, cost, target status, content)', ok: wrong.length === 0, detail: `${wrong.length} not` + examples(wrong) });
    const unbalanced = keys.filter((k) => k.before - k.after !== k.costOfOks || k.after < 0);
    checks.push({
      name: 'credits charged = Σ Svc-credits-cost of the 200s, per key',
      ok: unbalanced.length === 0,
      detail: keys.map((k) => `${k.name} ${k.before - k.after}/${k.costOfOks}`).join(', '),
    });
    const leases = keys.reduce((s, k) => s + k.leases, 0);
    checks.push({ name: 'no concurrency leases left', ok: leases === 0, detail: `${leases}` });
    checks.push({
      name: 'no Chromium beyond the pool',
      ok: end.browsers <= options.poolSize && maxBrowsers <= options.poolSize && leftInRetired.length === 0,
      detail: `${end.browsers} browsers at the end, at most ${maxBrowsers} during the run (${maxBrowsersRaw} in a single reading), pool ${options.poolSize}; ${leftInRetired.length} processes left of ${retiredGroups.length} retired sessions`,
    });
    const ratio = end.pssKb / warm.pssKb;
    checks.push({
      name: 'pool memory within 20% of the warm-up figure',
      ok: warm.pssKb > 0 && Math.abs(ratio - 1) <= 0.2,
      detail: `PSS ${(end.pssKb / 1024).toFixed(0)} MB after / ${(warm.pssKb / 1024).toFixed(0)} MB warm = ${ratio.toFixed(2)}`,
    });
  } finally {
    clearInterval(sampler);
    log('stopping');
    await env.stop();
  }
  // The pool quits every session on SIGTERM: nothing of any session may outlive the server.
  let survivors = inGroups(processTable(), seenGroups);
  for (let i = 0; i < 20 && survivors.length > 0; i++) {
    await sleep(250);
    survivors = inGroups(processTable(), seenGroups);
  }
  report.checks.push({ name: 'no session process outlives the server', ok: survivors.length === 0, detail: `${survivors.length} left of ${seenGroups.size} session groups` });
  report.checks.push({ name: 'finished within the time cap', ok: Date.now() <= deadline, detail: `${((Date.now() - started) / 1000).toFixed(0)} s of ${(options.timeCapMs / 1000).toFixed(0)} s` });
  report.wallMs = Date.now() - started;
  return report;
}

function examples(outcomes: Outcome[]): string {
  if (outcomes.length === 0) return '';
  return '\n      ' + outcomes.slice(0, 5).map((o) => `#${o.request.id} ${o.request.api} ${o.request.engine} ${o.request.target} key=${o.request.key}: ${o.problem ?? o.status}`).join('\n      ');
}

/** Runs `work` over `items` with `concurrency` loops; stops taking new items once the time is up. Returns how many were started. */
async function runConcurrently<T>(items: T[], concurrency: number, remaining: () => number, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length && remaining() > 0) await work(items[next++]);
    }),
  );
  return next;
}

async function withCap<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within the time cap`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Latency percentiles of the answered requests of one engine, ms. */
export function latency(outcomes: Outcome[], engine: Engine): { n: number; p50: number; p95: number } {
  const ms = outcomes.filter((o) => o.request.engine === engine && o.status !== 0 && o.request.id >= 0).map((o) => o.ms).sort((a, b) => a - b);
  const at = (p: number) => (ms.length === 0 ? 0 : ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))]);
  return { n: ms.length, p50: at(50), p95: at(95) };
}
