import express from 'express';
import type { Logger } from 'pino';
import type { Document } from 'openapi-backend';
import type { BodyBudget } from '../body/body-budget.js';
import { bodyReader } from '../body/body-reader.js';
import { firecrawlErrorMiddleware } from '../errors/firecrawl-errors.js';
import { OpenApiRouter } from '../routing/openapi-router.js';
import type { Caller } from '../../scrape/scrape-service.js';
import { callerFirst } from './firecrawl-caller.js';
import { firecrawlHandlers, type FirecrawlEdgeDeps } from './firecrawl-handlers.js';

/**
 * The largest body a Firecrawl operation takes: 50,000 URLs of about 160 characters each fit,
 * a 10 MB body does not (413, refused from its Content-Length before a byte is read).
 */
export const FIRECRAWL_MAX_BODY_BYTES = 8 * 1024 * 1024;
const BODY_IDLE_MS = 10_000;

/**
 * The Firecrawl document's operations as one express router, with its own error answers
 * (Firecrawl's shape): routed and validated by the document's compiled schemas as the other
 * documents are (OpenApiRouter), every body read only once its key was judged, within 8 MiB and
 * the shared body budget.
 */
export async function firecrawlRoutes(
  document: Document,
  deps: FirecrawlEdgeDeps & { bodyBudget: BodyBudget; logger: Logger },
): Promise<express.Router> {
  const authenticate = (caller: Caller) => deps.authenticate(caller);
  const json = bodyReader({ limit: FIRECRAWL_MAX_BODY_BYTES, budget: deps.bodyBudget, idleMs: BODY_IDLE_MS, as: 'json' });
  const operations = await new OpenApiRouter(document, firecrawlHandlers(deps)).routes({ json, raw: json, beforeBody: () => callerFirst(authenticate) });
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use(operations);
  router.use(firecrawlErrorMiddleware(deps.logger, FIRECRAWL_MAX_BODY_BYTES));
  return router;
}
