import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the browser pool reports about itself when scraped. */
export interface PoolGauges {
  size: number;
  idle: number;
  busy: number;
  starting: number;
  waiting: number;
  retired: number;
}

/** The sign-in limit's state across every client address (accounts/sign-in-limit.ts). */
export interface SignInGauges {
  failures: number;
  limited: boolean;
}

/**
 * The service's Prometheus metrics, on a registry of their own (never prom-client's global one,
 * so two servers in one process, as in tests, do not share counts). Labels are closed sets — an
 * endpoint is the route's path, never the requested URL — and never carry a key, a target or a
 * proxy's credentials.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'endpoint' | 'method' | 'status'>;
  private readonly credits: Counter<'engine' | 'proxy_type'>;
  private readonly fetchSeconds: Histogram<'engine' | 'proxy_type' | 'outcome'>;
  private readonly walls: Counter<'vendor'>;
  private readonly refusals: Counter<'reason'>;
  private readonly proxyFailures: Counter<'proxy_type' | 'country'>;
  private readonly browserFailures: Counter;
  private readonly budgetRefusals: Counter;
  private readonly ipRefusals: Counter;
  private readonly adminActions: Counter<'action'>;
  private readonly adminAuthFailures: Counter;
  private readonly adminAuthLimited: Counter<'scope'>;
  private readonly signInFailures: Counter<'reason'>;
  private readonly cancellations: Counter;
  private readonly sessionsStarted: Counter;
  private readonly sessionsRetired: Counter<'cause'>;
  private pool: () => PoolGauges | undefined = () => undefined;
  private signIns: () => SignInGauges | undefined = () => undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'scrapegate_' });
    this.requests = new Counter({
      name: 'scrapegate_http_requests_total',
      help: 'Answered API requests by endpoint (route path), method and status',
      labelNames: ['endpoint', 'method', 'status'],
      registers,
    });
    this.credits = new Counter({
      name: 'scrapegate_credits_charged_total',
      help: 'Credits charged for 200 answers (refunded requests are not counted)',
      labelNames: ['engine', 'proxy_type'],
      registers,
    });
    this.fetchSeconds = new Histogram({
      name: 'scrapegate_fetch_duration_seconds',
      help: 'Time an engine took to fetch a target, by engine, proxy type and outcome (ok or the status answered)',
      labelNames: ['engine', 'proxy_type', 'outcome'],
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.walls = new Counter({
      name: 'scrapegate_antibot_verdicts_total',
      help: 'Pages recognised as an anti-bot wall, by vendor (each try counts; a request may retry on another proxy)',
      labelNames: ['vendor'],
      registers,
    });
    this.refusals = new Counter({
      name: 'scrapegate_egress_refusals_total',
      help: 'Connections the target policy refused, by reason (the address range, scheme or own port)',
      labelNames: ['reason'],
      registers,
    });
    this.proxyFailures = new Counter({
      name: 'scrapegate_proxy_failures_total',
      help: 'Upstream proxies that failed as proxies (refused, timed out, 407/503; not 502/504, which report the target), by pool',
      labelNames: ['proxy_type', 'country'],
      registers,
    });
    this.browserFailures = new Counter({
      name: 'scrapegate_uncharged_browser_failures_total',
      help: 'Browser requests that ran and failed uncharged (404, 423), counted against their key\'s hourly budget',
      registers,
    });
    this.budgetRefusals = new Counter({
      name: 'scrapegate_browser_budget_refusals_total',
      help: 'Browser requests refused with 429 because their key was past its budget of uncharged failures',
      registers,
    });
    this.ipRefusals = new Counter({
      name: 'scrapegate_ip_restricted_total',
      help: 'Requests refused with 403 because their key is restricted to other IP addresses (not charged, no concurrency slot taken)',
      registers,
    });
    this.adminActions = new Counter({
      name: 'scrapegate_admin_actions_total',
      help: 'Changes to keys (create, update, rotate, revoke) through the admin API, the dashboard or the CLI of this process',
      labelNames: ['action'],
      registers,
    });
    this.adminAuthFailures = new Counter({
      name: 'scrapegate_admin_auth_failures_total',
      help: 'Requests to the admin API refused with 401 (no token, or the wrong one)',
      registers,
    });
    this.adminAuthLimited = new Counter({
      name: 'scrapegate_admin_auth_limited_total',
      help: 'Requests to the admin API refused with 429 before their token was judged, by scope (address: too many wrong tokens from the client; global: from all clients, and the token was never used from this one)',
      labelNames: ['scope'],
      registers,
    });
    this.signInFailures = new Counter({
      name: 'scrapegate_dashboard_sign_in_failures_total',
      help: 'Dashboard sign-ins refused, by reason (invalid: no such key or token; ip_restricted: a key used from elsewhere; limited: 429, too many failures from the client; global: 429, too many from all clients, for the admin token)',
      labelNames: ['reason'],
      registers,
    });
    this.sessionsStarted = new Counter({
      name: 'scrapegate_browser_sessions_started_total',
      help: 'Browser sessions started (at warm-up, and each replacement)',
      registers,
    });
    this.sessionsRetired = new Counter({
      name: 'scrapegate_browser_sessions_retired_total',
      help: 'Browser sessions retired, by cause: failure, pages (BROWSER_MAX_PAGES), memory, reset (a reset that did not finish), idle (dead or silent while idle)',
      labelNames: ['cause'],
      registers,
    });
    this.cancellations = new Counter({
      name: 'scrapegate_client_cancellations_total',
      help: 'Scrapes abandoned, uncharged, because their caller closed the connection before the answer',
      registers,
    });
    const readSignIns = () => this.signIns();
    new Gauge({
      name: 'scrapegate_sign_in_global_failures',
      help: 'Failed sign-ins (dashboard and admin API) from all client addresses within the sign-in window, as this instance last counted them (up to twice SIGN_IN_GLOBAL_MAX_FAILURES)',
      registers,
      collect(this: Gauge) {
        const state = readSignIns();
        if (state) this.set(state.failures);
      },
    });
    new Gauge({
      name: 'scrapegate_sign_in_global_limited',
      help: '1 while the global limit of failed sign-ins holds: the admin token is then judged only from addresses it was used from before',
      registers,
      collect(this: Gauge) {
        const state = readSignIns();
        if (state) this.set(state.limited ? 1 : 0);
      },
    });
    const poolGauges: Array<[string, string, (s: PoolGauges) => number]> = [
      ['scrapegate_browser_pool_sessions', 'Live browser sessions in the pool', (s) => s.size],
      ['scrapegate_browser_pool_busy_sessions', 'Sessions rendering a page now', (s) => s.busy],
      ['scrapegate_browser_pool_starting_sessions', 'Sessions being started', (s) => s.starting],
      ['scrapegate_browser_pool_queue_depth', 'Requests waiting for a free session', (s) => s.waiting],
      ['scrapegate_browser_session_restarts', 'Sessions retired and replaced since start (page limit, memory, failure)', (s) => s.retired],
    ];
    const readPool = () => this.pool();
    for (const [name, help, read] of poolGauges) {
      new Gauge({
        name,
        help,
        registers,
        collect(this: Gauge) {
          const stats = readPool();
          if (stats) this.set(read(stats));
        },
      });
    }
  }

  /** The browser pool's numbers are read when /metrics is scraped, not pushed on every change. */
  watchPool(stats: () => PoolGauges): void {
    this.pool = stats;
  }

  /** The sign-in limit's global state is read when /metrics is scraped. */
  watchSignIns(state: () => SignInGauges): void {
    this.signIns = state;
  }

  requestAnswered(endpoint: string, method: string, status: number): void {
    this.requests.inc({ endpoint, method, status: String(status) });
  }

  charged(engine: string, proxyType: string, credits: number): void {
    this.credits.inc({ engine, proxy_type: proxyType }, credits);
  }

  fetched(engine: string, proxyType: string, outcome: string, seconds: number): void {
    this.fetchSeconds.observe({ engine, proxy_type: proxyType, outcome }, seconds);
  }

  wall(vendor: string): void {
    this.walls.inc({ vendor });
  }

  refused(reason: string): void {
    this.refusals.inc({ reason });
  }

  proxyFailed(proxyType: string, country: string): void {
    this.proxyFailures.inc({ proxy_type: proxyType, country });
  }

  unchargedBrowserFailure(): void {
    this.browserFailures.inc();
  }

  browserBudgetRefused(): void {
    this.budgetRefusals.inc();
  }

  ipRestricted(): void {
    this.ipRefusals.inc();
  }

  adminAction(action: string): void {
    this.adminActions.inc({ action });
  }

  /** A request the admin gate refused: 401, or 429 by the sign-in limit's scope. */
  adminAuthFailed(why: 'unauthorized' | 'address' | 'global'): void {
    if (why === 'unauthorized') this.adminAuthFailures.inc();
    else this.adminAuthLimited.inc({ scope: why });
  }

  signInFailed(reason: 'invalid' | 'ip_restricted' | 'limited' | 'global'): void {
    this.signInFailures.inc({ reason });
  }

  browserSessionStarted(): void {
    this.sessionsStarted.inc();
  }

  browserSessionRetired(cause: string): void {
    this.sessionsRetired.inc({ cause });
  }

  clientCancelled(): void {
    this.cancellations.inc();
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
