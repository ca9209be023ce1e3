import os from 'node:os';
import { z } from 'zod';
import { parseRangeList, type IpRange } from '../ip/ip-range.js';
import { jobsConfig, jobsVariables, type JobsConfig } from './jobs-variables.js';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

/** A comma-separated list of CIDR ranges, empty by default. */
const cidrList = z
  .string()
  .default('')
  .transform((text, ctx) => {
    try {
      return parseRangeList(text);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

/** A bearer token an operator chooses: long enough that guessing it is hopeless, and never shown in an error. */
const bearerToken = z
  .string()
  .min(32, 'must be at least 32 characters')
  .max(256)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/** An origin (scheme, host, port): nothing else, so that it can be compared with a request's. */
const origin = z.string().transform((text, ctx) => {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || text.endsWith('?') || text.endsWith('#')) {
    ctx.addIssue({ code: 'custom', message: 'must be an origin such as https://admin.example.com (http or https, a host and an optional port, nothing else)' });
    return z.NEVER;
  }
  return url.origin;
});

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^(mysql|sqlite):/, 'must start with mysql:// or sqlite:')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  ALLOW_PRIVATE_TARGETS: booleanFromEnv.default(false),
  TARGET_ALLOW_CIDRS: cidrList,
  TRUSTED_PROXIES: cidrList,
  ADMIN_TOKEN: bearerToken.optional(),
  METRICS_TOKEN: bearerToken.optional(),
  DASHBOARD_ORIGIN: origin.optional(),
  DASHBOARD_SESSION_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(8 * 3600),
  SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(10),
  SIGN_IN_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  SIGN_IN_GLOBAL_MAX_FAILURES: z.coerce.number().int().min(1).max(100_000).default(100),
  BROWSER_GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
  PROXY_CONFIG: z.string().min(1).optional(),
  SESSION_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  PLANS_CONFIG: z.string().min(1).optional(),
  EVENTS_TO_PARENT: booleanFromEnv.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_BODY_BYTES: positiveInt.default(10 * 1024 * 1024),
  MAX_REQUEST_BODY_BYTES: positiveInt.default(10 * 1024 * 1024),
  MAX_BUFFERED_BODY_BYTES: positiveInt.default(64 * 1024 * 1024),
  MAX_REDIRECTS: z.coerce.number().int().min(0).max(50).default(10),
  LEASE_GRACE_SECONDS: positiveInt.default(30),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  BROWSER_FAILURE_ALLOWANCE: z.coerce.number().int().min(0).max(1_000_000).default(100),
  HTML_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
  HTML_QUEUE_SIZE: z.coerce.number().int().min(1).max(10_000).default(64),
  HTML_QUEUE_PER_KEY: z.coerce.number().int().min(1).max(10_000).default(16),
  HTML_TASK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(15),
  USAGE_RETENTION_DAYS: z.coerce.number().int().min(2).max(3650).default(90),
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  RECONCILE_MARGIN_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  UPKEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  BROWSER_IDLE_CHECK_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  BROWSER_POOL_SIZE: z.coerce.number().int().min(0).max(64).optional(),
  BROWSER_MAX_PAGES: positiveInt.default(100),
  BROWSER_MAX_MEMORY_MB: positiveInt.default(800),
  BROWSER_START_TIMEOUT_SECONDS: positiveInt.default(30),
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  CHROMEDRIVER_PATH: z.string().min(1).optional(),
  SELENIUM_REMOTE_URL: z.url({ protocol: /^https?$/ }).optional(),
  ...jobsVariables,
});

/**
 * Warm sessions by default: three per core (a render mostly waits on the network), bounded so
 * that the sessions (about 210 MB each) take at most half of the memory.
 */
export function defaultPoolSize(cores = os.availableParallelism(), totalBytes = os.totalmem()): number {
  const byMemory = Math.floor((totalBytes * 0.5) / (210 * 1024 * 1024));
  return Math.max(1, Math.min(cores * 3, byMemory, 16));
}

/**
 * HTML worker threads by default: one per core, at least two. The event loop mostly waits on
 * sockets, so the threads and it share the cores well; two threads on two cores let one long
 * task (an extraction up to its step cap, a conversion up to its work cap) run while every other
 * key's tasks pass through the second thread, instead of queueing behind it. At most eight: past
 * that, a few hostile tasks at once would hold every core.
 */
export function defaultHtmlWorkers(cores = os.availableParallelism()): number {
  return Math.max(2, Math.min(cores, 8));
}

export interface Config {
  port: number;
  host: string;
  /** `sqlite:<path>` or `mysql://…`; the SQLite default lives under DATA_DIR. */
  databaseUrl: string;
  allowPrivateTargets: boolean;
  /** Ranges allowed as targets although not public, e.g. 127.0.0.2/32 for tests with the policy on. */
  targetAllowCidrs: IpRange[];
  /**
   * Peers (load balancers, reverse proxies) whose X-Forwarded-For is believed when an API key's
   * IP restriction is judged; from any other peer the header is ignored. Empty: nobody's.
   */
  trustedProxies: IpRange[];
  /** The admin API's bearer token; undefined: every /admin path answers 404. Never logged. */
  adminToken: string | undefined;
  /** The bearer token /metrics asks for; undefined: /metrics is open to whoever reaches it. Never logged. */
  metricsToken: string | undefined;
  proxyConfigPath: string | undefined;
  /** How long after a sticky session's last request this instance forgets where a failover moved it. */
  sessionTtlMs: number;
  plansConfigPath: string | undefined;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  /** Send the browser pool's events to the parent process over its IPC channel (tests and supervisors that spawn the service subscribe to them). */
  eventsToParent: boolean;
  maxBodyBytes: number;
  maxRequestBodyBytes: number;
  /** Request-body bytes held at once across every request; past it, a new body is refused (429). */
  maxBufferedBodyBytes: number;
  maxRedirects: number;
  /** How long a concurrency lease outlives its request's deadline before it expires on its own. */
  leaseGraceMs: number;
  /** How long requests in flight may run on after SIGTERM before they are failed, uncharged. */
  shutdownGraceMs: number;
  /** Uncharged browser failures a key may always have per hour (more only within half its browser requests); 0: no limit. */
  browserFailureAllowance: number;
  htmlWork: HtmlWorkConfig;
  ledger: LedgerConfig;
  browser: BrowserConfig;
  dashboard: DashboardConfig;
  jobs: JobsConfig;
}

export interface DashboardConfig {
  /** How long a dashboard session lasts from its sign-in. */
  sessionTtlMs: number;
  /** Failed sign-ins a client address may have within `signInWindowMs` before it gets 429. */
  signInMaxFailures: number;
  signInWindowMs: number;
  /**
   * Failed sign-ins (dashboard and admin API) from all addresses together within `signInWindowMs`
   * past which the admin token is judged only from addresses it was used from before.
   */
  signInGlobalMaxFailures: number;
  /**
   * The origin the dashboard and the admin documents answer on alone, and the public API's
   * scraping never does (`https://admin.example.com`); undefined: they share the API's origin.
   */
  origin: string | undefined;
}

/** The HTML worker threads (scrape/html-work/html-workers.ts): every page's text, Markdown and extraction. */
export interface HtmlWorkConfig {
  threads: number;
  /** Tasks waiting for a thread, over every key; past it, 429. */
  queueSize: number;
  /** Tasks of one key waiting for a thread; past it, that key gets 429. */
  perKeyQueue: number;
  /** A task running longer has its thread ended, and its request answered 422. */
  taskTimeoutMs: number;
}

export interface LedgerConfig {
  /** Ledger rows are kept this long (daily totals for good). */
  retentionMs: number;
  /** How often every instance refunds reservations nobody can settle any more. */
  reconcileIntervalMs: number;
  /** How long past a reservation's settle limit it is refunded. */
  reconcileMarginMs: number;
  /** How often the daily totals are made and old rows pruned. */
  upkeepIntervalMs: number;
}

export interface BrowserConfig {
  /** Warm sessions kept; 0 disables the browser engine. */
  poolSize: number;
  /** Renders after which a session is retired and replaced. */
  maxPages: number;
  /** Memory (PSS of driver and browser processes) past which a session is retired. */
  maxMemoryMb: number;
  /** A session start that takes longer is given up and tried again. */
  startTimeoutMs: number;
  chromiumPath: string;
  /** Unset: the `chromedriver` package's copy of Debian's driver (driver-locator.ts). */
  chromedriverPath: string | undefined;
  /** A Selenium Grid to run the sessions on instead of local chromedriver processes. */
  remoteUrl: string | undefined;
  /** Where each session's egress gateway listens (the browsers must reach it there). */
  gatewayHost: string;
  /** Idle sessions are asked to answer this often (below a Grid node's session timeout). */
  idleCheckMs: number;
}

export class ConfigError extends Error {}

/** Variables that may hold a secret (a token, a database password): an error never repeats their value. */
const SECRET_VARIABLES = new Set(['ADMIN_TOKEN', 'METRICS_TOKEN', 'DATABASE_URL']);

/** Reads and validates the environment once; everything else receives the result. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const name = String(i.path[0]);
      return `  ${i.path.join('.')}: ${i.message} (${SECRET_VARIABLES.has(name) ? 'its value is not shown' : `got ${JSON.stringify(env[name])}`})`;
    });
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL ?? `sqlite:${e.DATA_DIR.replace(/\/$/, '')}/scrapegate.sqlite`,
    allowPrivateTargets: e.ALLOW_PRIVATE_TARGETS,
    targetAllowCidrs: e.TARGET_ALLOW_CIDRS,
    trustedProxies: e.TRUSTED_PROXIES,
    adminToken: e.ADMIN_TOKEN,
    metricsToken: e.METRICS_TOKEN,
    proxyConfigPath: e.PROXY_CONFIG,
    sessionTtlMs: e.SESSION_TTL_SECONDS * 1000,
    plansConfigPath: e.PLANS_CONFIG,
    logLevel: e.LOG_LEVEL,
    eventsToParent: e.EVENTS_TO_PARENT,
    maxBodyBytes: e.MAX_BODY_BYTES,
    maxRequestBodyBytes: e.MAX_REQUEST_BODY_BYTES,
    maxBufferedBodyBytes: e.MAX_BUFFERED_BODY_BYTES,
    maxRedirects: e.MAX_REDIRECTS,
    leaseGraceMs: e.LEASE_GRACE_SECONDS * 1000,
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    browserFailureAllowance: e.BROWSER_FAILURE_ALLOWANCE,
    htmlWork: {
      threads: e.HTML_WORKERS ?? defaultHtmlWorkers(),
      queueSize: e.HTML_QUEUE_SIZE,
      perKeyQueue: e.HTML_QUEUE_PER_KEY,
      taskTimeoutMs: e.HTML_TASK_TIMEOUT_SECONDS * 1000,
    },
    ledger: {
      retentionMs: e.USAGE_RETENTION_DAYS * 86_400_000,
      reconcileIntervalMs: e.RECONCILE_INTERVAL_SECONDS * 1000,
      reconcileMarginMs: e.RECONCILE_MARGIN_SECONDS * 1000,
      upkeepIntervalMs: e.UPKEEP_INTERVAL_SECONDS * 1000,
    },
    dashboard: {
      sessionTtlMs: e.DASHBOARD_SESSION_SECONDS * 1000,
      signInMaxFailures: e.SIGN_IN_MAX_FAILURES,
      signInWindowMs: e.SIGN_IN_WINDOW_SECONDS * 1000,
      signInGlobalMaxFailures: e.SIGN_IN_GLOBAL_MAX_FAILURES,
      origin: e.DASHBOARD_ORIGIN,
    },
    browser: {
      poolSize: e.BROWSER_POOL_SIZE ?? defaultPoolSize(),
      maxPages: e.BROWSER_MAX_PAGES,
      maxMemoryMb: e.BROWSER_MAX_MEMORY_MB,
      startTimeoutMs: e.BROWSER_START_TIMEOUT_SECONDS * 1000,
      chromiumPath: e.CHROMIUM_PATH,
      chromedriverPath: e.CHROMEDRIVER_PATH,
      remoteUrl: e.SELENIUM_REMOTE_URL,
      gatewayHost: e.BROWSER_GATEWAY_HOST,
      idleCheckMs: e.BROWSER_IDLE_CHECK_SECONDS * 1000,
    },
    jobs: jobsConfig(e, e.DATA_DIR),
  };
}
