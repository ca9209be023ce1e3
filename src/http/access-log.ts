import querystring from 'node:querystring';
import type { Request, RequestHandler } from 'express';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from 'pino';

/**
 * Whether a query parameter's name could carry a key. Decoded as the query parser decodes it
 * (`%78-api-key`, `x%2Dapi-key` and `x-api-k%65y` all authenticate as `x-api-key`), and read
 * loosely (any case, any separators), so no spelling a caller tries ever reaches a log line.
 */
function namesAKey(rawName: string): boolean {
  let name: string;
  try {
    name = querystring.unescape(rawName.replace(/\+/g, ' '));
  } catch {
    name = rawName;
  }
  return /api.?key|apikey|token|secret/.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/** The URL as logged: the value of every parameter whose name could carry a key replaced. */
export function redactedUrl(originalUrl: string): string {
  const q = originalUrl.indexOf('?');
  if (q < 0) return originalUrl;
  const pairs = originalUrl
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && namesAKey(name) ? `${name}=[redacted]` : pair;
    });
  return `${originalUrl.slice(0, q)}?${pairs.join('&')}`;
}

/** The matched route's path; anything else is one label, so a scan of random URLs adds no series. */
function routeOf(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? route.path : 'unmatched';
}

/** One line per request and its count in the metrics (by route, never by URL), when the answer has gone out. */
export function accessLog(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      metrics.requestAnswered(routeOf(req), req.method, res.statusCode);
      logger.info(
        {
          method: req.method,
          url: redactedUrl(req.originalUrl),
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
