import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/** The URL as logged: the API key replaced, wherever in the query it stands. */
export function redactedUrl(originalUrl: string): string {
  return originalUrl.replace(/([?&](?:x-api-key|x%2Dapi%2Dkey)=)[^&#]*/gi, '$1[redacted]');
}

/** One line per request, written when the answer has gone out. */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
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
