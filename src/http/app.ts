import express from 'express';
import type { Logger } from 'pino';
import type { BodyParsers } from './routing/openapi-router.js';
import { NotFoundError } from './errors/api-error.js';
import { errorMiddleware } from './errors/error-middleware.js';
import type { IpAllowList } from '../ip/ip-allow-list.js';
import type { Metrics } from '../observability/metrics.js';
import { accessLog } from './access-log.js';
import type { BodyBudget } from './body/body-budget.js';
import { bodyReader } from './body/body-reader.js';
import { adminAuth, type AdminAuthRefusal, type GuessLimit } from './admin-auth.js';
import { contentSafety } from './content-safety.js';
import { dashboardOrigin } from './dashboard-origin.js';
import type { Drain } from './drain.js';
import type { SpecAssets } from './spec-assets.js';

export interface AppParts {
  /** The API's operations (OpenApiRouter.routes()). */
  routes: express.Router;
  /** /healthz, /readyz, /metrics. */
  ops: express.Router;
  drain: Drain;
  spec: SpecAssets;
  logger: Logger;
  metrics: Metrics;
  maxRequestBodyBytes: number;
  /** TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client (client-address.ts). */
  trustedProxies: IpAllowList;
  /** /dashboard: its own pages, headers and error pages (dashboard/dashboard-router.ts). */
  dashboard: express.Router;
  /** The Firecrawl dialect: its document's routes (with their own error answers) and the document. */
  firecrawl: { routes: express.Router; spec: SpecAssets };
  admin: {
    /** The admin document's operations (its own OpenApiRouter). */
    routes: express.Router;
    spec: SpecAssets;
    /** ADMIN_TOKEN; undefined: every /admin path answers 404. */
    token: string | undefined;
    /** Wrong tokens count as failed sign-ins of their client (429 past the limit). */
    guessLimit: GuessLimit;
    onAuthFailure: (why: AdminAuthRefusal) => void;
    /** DASHBOARD_ORIGIN: the operator's pages (dashboard, admin documents) answer there alone, the public API never. */
    origin: string | undefined;
  };
}

const DOCS_CSP = "default-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline' blob:";

export function createApp({ routes, ops, drain, spec, logger, metrics, maxRequestBodyBytes, trustedProxies, dashboard, firecrawl, admin }: AppParts): express.Express {
  const app = express();
  // Read only where an IP restriction is judged (clientAddressOf), never through express's `trust proxy`.
  app.trustedProxies = trustedProxies;
  app.disable('x-powered-by');
  app.set('etag', false);
  // Repeated parameters become arrays and nothing else is interpreted (`a[b]=c` stays a plain name).
  app.set('query parser', 'simple');
  app.use(drain.track());
  app.use(accessLog(logger, metrics));
  app.use(contentSafety());
  app.use(dashboardOrigin(admin.origin));
  // The API first: its routes are the hot path, the documents below are read by people.
  app.use(routes);
  app.use(firecrawl.routes);
  // Every /admin path passes the token's gate before its routes (or the 404 of an unknown one).
  app.use('/admin', adminAuth(admin.token, admin.guessLimit, admin.onAuthFailure));
  app.use(admin.routes);
  app.use('/dashboard', dashboard);
  app.use(ops);
  app.get('/openapi.json', (_req, res) => void res.type('application/json').send(spec.json));
  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(spec.yaml));
  app.get('/openapi/admin.json', (_req, res) => void res.type('application/json').send(admin.spec.json));
  app.get('/openapi/admin.yaml', (_req, res) => void res.type('application/yaml').send(admin.spec.yaml));
  app.get('/openapi/firecrawl.json', (_req, res) => void res.type('application/json').send(firecrawl.spec.json));
  app.get('/openapi/firecrawl.yaml', (_req, res) => void res.type('application/yaml').send(firecrawl.spec.yaml));
  app.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('text/html').send(spec.docsHtml);
  });
  app.get('/docs/admin', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('text/html').send(admin.spec.docsHtml);
  });
  app.get('/docs/firecrawl', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('text/html').send(firecrawl.spec.docsHtml);
  });
  app.use(() => {
    throw new NotFoundError('Not Found');
  });
  app.use(errorMiddleware(logger, maxRequestBodyBytes));
  return app;
}

/**
 * The largest JSON body an operation takes: v1's, whose parameters (a URL of 8 KiB, cookies of
 * 16 KiB, a script of 128 KiB in base64, a selector) fit in half of it, and the admin API's.
 */
export const MAX_JSON_BODY_BYTES = 256 * 1024;
/** A body that sends nothing for this long is cut. */
const BODY_IDLE_MS = 10_000;

/**
 * JSON bodies (v1, the admin API) are parsed whatever their declared type, within their own small
 * limit; v2 bodies go to the target as they came, within MAX_REQUEST_BODY_BYTES. Both hold the
 * shared budget while they are buffered. `beforeBody` checks the caller before a byte is read.
 */
export function bodyParsers(maxRequestBodyBytes: number, budget: BodyBudget, beforeBody?: BodyParsers['beforeBody']): BodyParsers {
  return {
    json: bodyReader({ limit: MAX_JSON_BODY_BYTES, budget, idleMs: BODY_IDLE_MS, as: 'json' }),
    raw: bodyReader({ limit: maxRequestBodyBytes, budget, idleMs: BODY_IDLE_MS, as: 'raw' }),
    beforeBody,
  };
}
