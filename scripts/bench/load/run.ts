// One load run: start everything, warm the pool up, send the mixed requests at a bounded
// concurrency, then check what must hold afterwards. Used by scripts/bench/load.ts (2,000
// requests) and test/integration/load.test.ts (a few hundred).
import { BrowserWatch } from './browser-watch.js';
import { afterLoadChecks, sessionsGoneCheck, timeCapCheck, type Check } from './checks.js';
import { runConcurrently, Semaphore } from './concurrency.js';
import { startEnvironment } from './environment.js';
import { creditsBefore, keyFigures, type KeyFigures } from './key-figures.js';
import { planRequests, warmUpRequests } from './plan.js';
import { poolMemory, settledPoolMemory, type MemoryFigures } from './pool-memory.js';
import { livingProcesses, membersOf } from '../../../test/helpers/chromium-processes.js';
import { poolSnapshot } from './processes.js';
import { send, type Outcome } from './send.js';
import { serverFigures, type ServerFigures } from './server-figures.js';
import { withCap } from './time-cap.js';

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

export interface LoadReport extends ServerFigures {
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
  checks: Check[];
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
  const watch = new BrowserWatch(serverPid, options.poolSize, log);
  watch.start();
  const outcomes: Outcome[] = [];
  const notWallStatus = (name: string) => env.notWalls.find((f) => f.name === name)?.status ?? 0;
  let report: LoadReport;
  try {
    const before = await creditsBefore(env);

    // The pool's memory after the warm-up is the reference its memory at the end is held to.
    const warmups = warmUpRequests(options.poolSize);
    log(`warm-up: ${warmups.length} renders`);
    await runConcurrently(warmups, options.poolSize, remaining, async (r) => void outcomes.push(await send(env, r, notWallStatus)));
    const warm = await settledPoolMemory(serverPid, options.poolSize, Math.min(deadline, Date.now() + 30_000));
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

    const upAfterLoad = livingProcesses().some((p) => p.pid === serverPid);
    const end = upAfterLoad ? await settledPoolMemory(serverPid, options.poolSize, Math.min(deadline, Date.now() + 30_000)) : poolMemory(serverPid);
    watch.sample();
    const current = new Set(poolSnapshot(serverPid).groups);
    const retiredGroups = [...watch.seenGroups].filter((g) => !current.has(g));
    const leftInRetired = membersOf(retiredGroups);
    const keys = await keyFigures(env, outcomes, before);

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
      maxBrowsersDuringRun: watch.max,
      maxBrowsersSingleReading: watch.maxSingleReading,
      sessionGroupsSeen: watch.seenGroups.size,
      ...serverFigures(env.server, upAfterLoad),
      checks: afterLoadChecks({
        serverPid,
        upAfterLoad,
        planned: planned.length,
        sent,
        poolSize: options.poolSize,
        outcomes,
        keys,
        warm,
        end,
        maxBrowsers: watch.max,
        maxBrowsersSingleReading: watch.maxSingleReading,
        leftInRetired: leftInRetired.length,
        retiredGroups: retiredGroups.length,
      }),
    };
  } finally {
    watch.stop();
    log('stopping');
    await env.stop();
  }
  report.checks.push(await sessionsGoneCheck(watch.seenGroups));
  report.checks.push(timeCapCheck(started, deadline, options.timeCapMs));
  report.wallMs = Date.now() - started;
  return report;
}
