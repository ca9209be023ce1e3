import type { Request, RequestHandler } from 'express';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from 'pino';

/**
 * The target a request named, as the log keeps it: its scheme and host only. A URL's path,
 * query and userinfo may carry the caller's secrets (tokens, passwords), and so may every other
 * parameter (cookies, scripts, rules, actions), so none of them is ever written.
 */
export function loggedTarget(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? `${parsed.protocol}//${parsed.host}` : undefined;
  } catch {
    return undefined;
  }
}

/** The `url` a request carried, in its query or its JSON body (v1 POST). */
function targetOf(req: Request): string | undefined {
  const fromQuery = (req.query as Record<string, unknown> | undefined)?.url;
  const body = req.body as unknown;
  const fromBody = body !== null && typeof body === 'object' && !Buffer.isBuffer(body) ? (body as Record<string, unknown>).url : undefined;
  return loggedTarget(fromQuery) ?? loggedTarget(fromBody);
}

/** The matched route's path; anything else is one label, so a scan of random URLs adds no series. */
function routeOf(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? route.path : 'unmatched';
}

/**
 * One line per request and its count in the metrics (by route, never by URL), when the answer
 * has gone out: the path without its query, the target's scheme and host, the status, the time,
 * the cost and the ledger's request id. Never a parameter's value, a header or a body.
 */
export function accessLog(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      metrics.requestAnswered(routeOf(req), req.method, res.statusCode);
      const target = targetOf(req);
      logger.info(
        {
          method: req.method,
          path: req.path,
          ...(target ? { target } : {}),
          status: res.statusCode,
          durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          cost: typeof res.locals.cost === 'number' ? res.locals.cost : 0,
          ...(res.locals.requestId ? { requestId: res.locals.requestId } : {}),
        },
        'request',
      );
    });
    next();
  };
}
