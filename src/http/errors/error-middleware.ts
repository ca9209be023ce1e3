import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { ClientClosedRequestError, InternalError, MethodNotAllowedError, TooManyRequestsError, UnauthorizedError } from './api-error.js';
import { StoreUnavailableError } from '../../billing/store-unavailable-error.js';
import { inQuery, toApiError } from './to-api-error.js';

/** The one place an error becomes an answer: `{detail}` with the status, nothing internal leaked. */
export function errorMiddleware(logger: Logger, maxRequestBodyBytes: number): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const translated = toApiError(err, res.locals.locate ?? inQuery, maxRequestBodyBytes);
    if (translated instanceof ClientClosedRequestError) {
      // The caller is gone: there is nobody to answer, and nothing went wrong on this side.
      res.destroy();
      return;
    }
    const apiError = translated ?? new InternalError();
    if (err instanceof StoreUnavailableError) {
      // Down, restarting or out of connections: the caller can only retry, and is told so.
      logger.error({ err, method: req.method, path: req.path }, 'database unavailable');
    } else if (!translated) {
      logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    } else if (apiError.status === 500) {
      logger.error({ err, method: req.method, path: req.path }, 'failure inside the service');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (apiError instanceof MethodNotAllowedError) res.setHeader('Allow', apiError.allowed.join(', '));
    if (apiError instanceof UnauthorizedError) res.setHeader('WWW-Authenticate', 'Bearer');
    if (apiError instanceof TooManyRequestsError) res.setHeader('Retry-After', String(apiError.retryAfterSeconds));
    res.status(apiError.status).json(apiError.body());
  };
}
