import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { OpenApiRouter } from './http/routing/openapi-router.js';
import { loadCatalog } from './config/catalog.js';
import type { Config } from './config/config.js';
import { AddressPolicy } from './egress/target-policy/address-policy.js';
import { OwnPorts } from './egress/target-policy/own-ports.js';
import { WallDetector } from './scrape/antibot/wall-detector.js';
import { Egress } from './egress/egress.js';
import { loadProxyCatalog } from './egress/proxies/proxy-config.js';
import { protectServices } from './egress/target-policy/own-services.js';
import { ProxyPool } from './egress/proxies/proxy-pool.js';
import { DirectEgress } from './egress/proxies/proxy-provider.js';
import { TargetPolicy } from './egress/target-policy/target-policy.js';
import { BrowserFetcher } from './engines/browser/browser-fetcher.js';
import { BrowserPool } from './engines/browser/browser-pool.js';
import { BrowserSession } from './engines/browser/browser-session.js';
import { Drain, type DrainResult } from './http/drain.js';
import { opsRoutes } from './http/ops-routes.js';
import { Metrics } from './observability/metrics.js';
import { gridAnswers, Readiness } from './observability/readiness.js';
import { ProxyHealth } from './egress/proxies/proxy-health.js';
import { SessionPins } from './egress/proxies/session-pins.js';
import { databaseAnswers } from './store/database-ping.js';
import { locateChromedriver } from './engines/browser/driver-locator.js';
import { EngineRegistry } from './engines/engine-registry.js';
import type { Fetcher } from './engines/fetcher.js';
import { PlainFetcher } from './engines/plain-fetcher.js';
import { USER_AGENT } from './engines/user-agent.js';
import { operationHandlers } from './http/handlers/index.js';
import { adminHandlers } from './http/handlers/admin/index.js';
import { accountParts } from './accounts/account-parts.js';
import { dashboardRouter } from './dashboard/dashboard-router.js';
import { DashboardSessions } from './dashboard/dashboard-sessions.js';
import { SessionUpkeep } from './dashboard/session-upkeep.js';
import { SignInLimit } from './accounts/sign-in-limit.js';
import { OperatorAddresses } from './accounts/operator-addresses.js';
import { keyFirst } from './http/body/key-first.js';
import { bodyParsers, createApp } from './http/app.js';
import { BodyBudget } from './http/body/body-budget.js';
import { loadSpecAssets } from './http/spec-assets.js';
import { IpAllowList } from './ip/ip-allow-list.js';
import { HtmlWorkers } from './content/html-work/html-workers.js';
import { PageAnswers } from './scrape/page-answers.js';
import { ScrapeService } from './scrape/scrape-service.js';
import { Billing } from './billing/billing.js';
import { DeferredWrites } from './billing/deferred-writes.js';
import { LedgerUpkeep } from './billing/ledger-upkeep.js';
import { Reconciler } from './billing/reconciler.js';
import { RefusalTally } from './billing/refusal-tally.js';
import { migrate, openDatabase } from './store/database.js';
import { sqlStores } from './store/sql-stores.js';

/** The longest any request may run: v1's 60 s, and v2's `timeout` at its maximum. */
const LONGEST_DEADLINE_MS = 60_000;
const REQUEST_TIMEOUT_MARGIN_MS = 10_000;
const HEADERS_TIMEOUT_MS = 15_000;

interface BrowserEngine {
  fetcher: Fetcher;
  pool: BrowserPool;
  /** Ready for traffic: a live warm session, or on a Grid, the Grid answering. */
  ready(): Promise<boolean>;
}

/** The pool is built here and warmed in the background: the server listens meanwhile (/readyz says 503). */
function browserEngine(config: Config, ownPorts: OwnPorts, logger: Logger): BrowserEngine | undefined {
  const { browser } = config;
  if (browser.poolSize === 0) return undefined;
  const sessionOptions = {
    chromiumPath: browser.chromiumPath,
    chromedriverPath: locateChromedriver(browser.chromedriverPath),
    remoteUrl: browser.remoteUrl,
    gatewayHost: browser.gatewayHost,
    ownPorts,
    startTimeoutMs: browser.startTimeoutMs,
  };
  const pool = new BrowserPool(
    () => BrowserSession.create(sessionOptions),
    { size: browser.poolSize, maxPages: browser.maxPages, maxMemoryMb: browser.maxMemoryMb, memoryCheckEvery: 10, idleCheckMs: browser.idleCheckMs },
    logger,
  );
  const { remoteUrl } = browser;
  return {
    pool,
    fetcher: new BrowserFetcher(pool, { maxBodyBytes: config.maxBodyBytes, maxRedirects: config.maxRedirects }, logger),
    ready: async () => pool.warm && pool.stats.size > 0 && (remoteUrl === undefined || (await gridAnswers(remoteUrl, 2_000))),
  };
}

function warm(pool: BrowserPool, config: Config, logger: Logger): void {
  const started = Date.now();
  pool.start().then(
    () => logger.info({ sessions: pool.stats.size, ms: Date.now() - started, grid: config.browser.remoteUrl !== undefined }, 'browser pool ready'),
    (err: unknown) => logger.error({ err }, 'browser pool could not start'),
  );
}

/**
 * A request Node's parser refuses (CR or LF inside a header value, control characters, a broken
 * request line) never reaches express: it still gets the API's error shape.
 */
function answerMalformedRequest(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({ detail: 'The request is not well-formed HTTP (a header may hold a CR, LF or control character).' });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export interface RunningServer {
  port: number;
  /**
   * Graceful stop: not ready any more, no new connections, requests in flight finish within
   * `graceMs` (or until `endGrace` aborts) and the rest fail uncharged; then every browser quits
   * and the database closes.
   */
  shutdown(graceMs: number, endGrace?: AbortSignal): Promise<DrainResult>;
}

/** Builds every part from the config, migrates the database and listens; the browsers warm up after. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const catalog = loadCatalog(config.plansConfigPath);
  const proxies = loadProxyCatalog(config.proxyConfigPath);
  const db = openDatabase(config.databaseUrl);
  await migrate(db);
  /** This process, as the ledger names the requests it reserves. */
  const instanceId = randomUUID();
  const metrics = new Metrics();
  const stores = sqlStores(db);
  const keys = stores.keys;
  if (config.adminToken !== undefined && (await keys.find(config.adminToken))) {
    throw new Error('ADMIN_TOKEN is the secret of an API key: choose another token (a scraping key never opens the admin API).');
  }
  const ownPorts = new OwnPorts();
  const addresses = new AddressPolicy({ allowPrivate: config.allowPrivateTargets, allowCidrs: config.targetAllowCidrs, ownPorts });
  await protectServices([config.browser.remoteUrl, config.databaseUrl.startsWith('mysql:') ? config.databaseUrl : undefined], addresses, ownPorts);
  const policy = new TargetPolicy(addresses, undefined, (reason) => metrics.refused(reason));
  const browser = browserEngine(config, ownPorts, logger);
  if (browser) metrics.watchPool(() => browser.pool.stats);
  const engines = new EngineRegistry({
    plain: new PlainFetcher({ maxBodyBytes: config.maxBodyBytes, maxRedirects: config.maxRedirects, userAgent: USER_AGENT }),
    browser: browser?.fetcher,
  });
  const proxyHealth = new ProxyHealth(Date.now, (proxy) => metrics.proxyFailed(proxy.type, proxy.country));
  const proxyPool = proxies && new ProxyPool(proxies, proxyHealth, Math.random, new SessionPins(config.sessionTtlMs));
  const egress = new Egress(policy, proxyPool ?? new DirectEgress(), logger);
  const drain = new Drain();
  // Refunds and slot releases that meet a database outage are retried; what may still be wrong
  // when it ends (a debit cut while committing, a refund given up) is logged for the operator.
  const billingStore = stores.billing;
  const billing = new Billing({
    store: billingStore,
    deferred: new DeferredWrites({
      onLost: (what, err) => logger.error({ err }, `${what} was lost`),
      onUncertain: (what, err) => logger.error({ err }, `${what} may have been applied before its connection was lost; check the key's balance`),
    }),
    budget: { allowance: config.browserFailureAllowance, windowMs: 3_600_000 },
    leaseGraceMs: config.leaseGraceMs,
    instanceId,
    onReleaseFailed: (err) => logger.error({ err }, 'lease release failed'),
  });
  const books = stores.books;
  const reconciler = new Reconciler({
    store: billingStore,
    books,
    marginMs: config.ledger.reconcileMarginMs,
    intervalMs: config.ledger.reconcileIntervalMs,
    onRefunded: (count) => logger.info({ count }, 'reconciled: refunded reservations their requests could not settle'),
    onError: (err) => logger.warn({ err }, 'reconciliation failed; it runs again'),
  });
  const upkeep = new LedgerUpkeep({
    books,
    retentionMs: config.ledger.retentionMs,
    intervalMs: config.ledger.upkeepIntervalMs,
    onError: (err) => logger.warn({ err }, 'ledger upkeep failed; it runs again'),
  });
  const refusals = new RefusalTally(stores.refusals, (err) => logger.warn({ err }, 'refusal counts could not be written'));
  const service = new ScrapeService({
    billing,
    refusals,
    engines,
    egress,
    walls: WallDetector.default(),
    costs: catalog.costs,
    metrics,
    stopping: drain.stopping,
    logger,
  });
  const readiness = new Readiness([
    { name: 'database', ready: () => databaseAnswers(db, 2_000) },
    ...(browser ? [{ name: 'browsers', ready: browser.ready }] : []),
  ]);
  const spec = loadSpecAssets();
  const adminSpec = loadSpecAssets(undefined, 'admin');
  const htmlWorkers = new HtmlWorkers(config.htmlWork);
  // The callers' rules: one thread of their own, tasks of at most about 100 ms, queued as the pages' are.
  const rulesWorkers = new HtmlWorkers({ threads: 1, queueSize: config.htmlWork.queueSize, perKeyQueue: config.htmlWork.perKeyQueue, taskTimeoutMs: 5_000 });
  const bodyBudget = new BodyBudget(config.maxBufferedBodyBytes);
  const parsers = bodyParsers(config.maxRequestBodyBytes, bodyBudget, (shapes) => keyFirst(shapes, (key, address) => service.account(key, address)));
  const routes = await new OpenApiRouter(spec.document, operationHandlers(service, new PageAnswers(htmlWorkers, rulesWorkers))).routes(parsers);
  const accounts = accountParts({ keys: stores.accountKeys, history: stores.history }, catalog, (action) => metrics.adminAction(action));
  const adminRouter = new OpenApiRouter(adminSpec.document, adminHandlers(accounts.admin, accounts.reports));
  // The admin gate (app.ts) judges the token before any admin route reads a body.
  const adminRoutes = await adminRouter.routes(bodyParsers(config.maxRequestBodyBytes, bodyBudget));
  const { sessions: sessionsSql, signInFailures: failuresSql, operators: operatorsSql } = stores;
  const sessionUpkeep = new SessionUpkeep({
    sessions: sessionsSql,
    failures: failuresSql,
    failureWindowMs: config.dashboard.signInWindowMs,
    operators: operatorsSql,
    intervalMs: 60_000,
    onError: (err) => logger.warn({ err }, 'dashboard session upkeep failed; it runs again'),
  });
  const signInLimit = new SignInLimit(failuresSql, new OperatorAddresses(operatorsSql), {
    maxFailures: config.dashboard.signInMaxFailures,
    windowMs: config.dashboard.signInWindowMs,
    globalMaxFailures: config.dashboard.signInGlobalMaxFailures,
  });
  metrics.watchSignIns(() => signInLimit.globalState());
  const dashboard = dashboardRouter({
    sessions: new DashboardSessions(sessionsSql, { ttlMs: config.dashboard.sessionTtlMs }),
    signInLimit,
    billing,
    adminToken: config.adminToken,
    keyAdmin: accounts.admin,
    reports: accounts.reports,
    validate: (operationId, request) => adminRouter.validate(operationId, request),
    metrics,
    logger,
  });
  const app = createApp({
    routes,
    ops: opsRoutes(readiness, metrics, config.metricsToken),
    drain,
    spec,
    logger,
    metrics,
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    trustedProxies: IpAllowList.ofRanges(config.trustedProxies),
    dashboard,
    admin: { routes: adminRoutes, spec: adminSpec, token: config.adminToken, guessLimit: signInLimit, onAuthFailure: (why) => metrics.adminAuthFailed(why), origin: config.dashboard.origin },
  });

  const server = app.listen(config.port, config.host);
  // Headers arrive at once or never; a whole request (its body included) within the longest
  // deadline plus a margin. Node's defaults (60 s, 300 s) let a stalled upload hold its memory
  // for minutes. A body that stalls is cut sooner still (http/body-reader.ts).
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = LONGEST_DEADLINE_MS + REQUEST_TIMEOUT_MARGIN_MS;
  server.on('clientError', answerMalformedRequest);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  ownPorts.add(port);
  logger.info({ port, host: config.host, database: db.dialect }, 'listening');
  if (browser) warm(browser.pool, config, logger);
  reconciler.start();
  upkeep.start();
  sessionUpkeep.start();
  if ((await keys.list()).length === 0) {
    logger.info('No API key exists yet. Create one with: npx scrapegate keys create --plan free');
  }
  return {
    port,
    async shutdown(graceMs, endGrace = new AbortController().signal) {
      readiness.drain();
      const result = await drain.run(server, graceMs, endGrace);
      await engines.closeAll();
      await htmlWorkers.close();
      await rulesWorkers.close();
      egress.close();
      await reconciler.stop();
      await upkeep.stop();
      await sessionUpkeep.stop();
      await billing.close();
      await refusals.close();
      await db.close();
      return result;
    },
  };
}
