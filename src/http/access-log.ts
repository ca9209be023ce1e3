import type { Request, RequestHandler } from 'express';
import type { Metrics } from '../observability/metrics.js';
import type { Logger } from 'pino';

/** The URL as logged: the API key replaced, wherever in the query it stands. */
export function redactedUrl(originalUrl: string): string {
  return originalUrl.replace(/([?&](?:x-api-key|x%2Dapi%2Dkey)=)[^&#]*/gi, '$1[redacted]');
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
        },
        'request',
      );
    });
    next();
  };
}
