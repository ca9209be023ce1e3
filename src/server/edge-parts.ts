import type { Logger } from 'pino';
import { accountParts } from '../accounts/account-parts.js';
import { OperatorAddresses } from '../accounts/operator-addresses.js';
import { SignInLimit } from '../accounts/sign-in-limit.js';
import { hashApiKey, type Billing } from '../billing/billing.js';
import type { Catalog } from '../config/catalog.js';
import type { Config } from '../config/config.js';
import { dashboardRouter } from '../dashboard/dashboard-router.js';
import { DashboardSessions } from '../dashboard/dashboard-sessions.js';
import { SessionUpkeep } from '../dashboard/session-upkeep.js';
import { bodyParsers, createApp } from '../http/app.js';
import { BodyBudget } from '../http/body/body-budget.js';
import { keyFirst } from '../http/body/key-first.js';
import type { Drain } from '../http/drain.js';
import { adminHandlers } from '../http/handlers/admin/index.js';
import { operationHandlers } from '../http/handlers/index.js';
import { opsRoutes } from '../http/ops-routes.js';
import { OpenApiRouter } from '../http/routing/openapi-router.js';
import { loadSpecAssets } from '../http/spec-assets.js';
import { IpAllowList } from '../ip/ip-allow-list.js';
import type { Metrics } from '../observability/metrics.js';
import type { Readiness } from '../observability/readiness.js';
import type { Answers } from '../scrape/answers/answers.js';
import type { ScrapeService } from '../scrape/scrape-service.js';
import type { SqlStores } from '../store/sql-stores.js';
import type { WebhookAdmin } from '../webhooks/webhook-admin.js';
import { firecrawlParts, type FirecrawlDeps } from './firecrawl-parts.js';

/** The HTTP edge: the public API's and the admin API's routes, the dashboard, the operator's endpoints, in one express app. */
export async function edgeParts(
  config: Config,
  with_: {
    stores: SqlStores; catalog: Catalog; billing: Billing; service: ScrapeService; answers: Answers; readiness: Readiness; drain: Drain; metrics: Metrics; logger: Logger;
    webhooks: WebhookAdmin; firecrawl: FirecrawlDeps;
  },
) {
  const { stores, metrics, logger, service } = with_;
  const spec = loadSpecAssets();
  const adminSpec = loadSpecAssets(undefined, 'admin');
  const bodyBudget = new BodyBudget(config.maxBufferedBodyBytes);
  const authenticate = (key: string, address: string) => service.account({ keyHash: hashApiKey(key), clientAddress: address });
  const routes = await new OpenApiRouter(spec.document, operationHandlers(service, with_.answers)).routes(
    bodyParsers(config.maxRequestBodyBytes, bodyBudget, (shapes) => keyFirst(shapes, authenticate)),
  );
  const firecrawl = await firecrawlParts(config, { ...with_.firecrawl, service, answers: with_.answers, bodyBudget, logger });
  const accounts = accountParts({ keys: stores.accountKeys, history: stores.history }, with_.catalog, (action) => metrics.adminAction(action));
  const adminRouter = new OpenApiRouter(adminSpec.document, adminHandlers(accounts.admin, accounts.reports, with_.webhooks));
  // The admin gate (app.ts) judges the token before any admin route reads a body.
  const adminRoutes = await adminRouter.routes(bodyParsers(config.maxRequestBodyBytes, bodyBudget));
  const signInLimit = new SignInLimit(stores.signInFailures, new OperatorAddresses(stores.operators), {
    maxFailures: config.dashboard.signInMaxFailures,
    windowMs: config.dashboard.signInWindowMs,
    globalMaxFailures: config.dashboard.signInGlobalMaxFailures,
  });
  metrics.watchSignIns(() => signInLimit.globalState());
  const dashboard = dashboardRouter({
    sessions: new DashboardSessions(stores.sessions, { ttlMs: config.dashboard.sessionTtlMs }),
    signInLimit,
    billing: with_.billing,
    adminToken: config.adminToken,
    keyAdmin: accounts.admin,
    reports: accounts.reports,
    webhooks: with_.webhooks,
    validate: (operationId, request) => adminRouter.validate(operationId, request),
    metrics,
    logger,
  });
  const sessionUpkeep = new SessionUpkeep({
    sessions: stores.sessions,
    failures: stores.signInFailures,
    failureWindowMs: config.dashboard.signInWindowMs,
    operators: stores.operators,
    intervalMs: 60_000,
    onError: (err) => logger.warn({ err }, 'dashboard session upkeep failed; it runs again'),
  });
  const app = createApp({
    routes,
    ops: opsRoutes(with_.readiness, metrics, config.metricsToken),
    drain: with_.drain,
    spec,
    logger,
    metrics,
    maxRequestBodyBytes: config.maxRequestBodyBytes,
    trustedProxies: IpAllowList.ofRanges(config.trustedProxies),
    dashboard,
    firecrawl,
    admin: { routes: adminRoutes, spec: adminSpec, token: config.adminToken, guessLimit: signInLimit, onAuthFailure: (why) => metrics.adminAuthFailed(why), origin: config.dashboard.origin },
  });
  return { app, sessionUpkeep, upgrade: firecrawl.upgrade };
}
