import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError, BadRequestError, InternalError, MethodNotAllowedError, UnprocessableEntityError } from './api-error.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './database-errors.js';

/** body-parser's errors carry a `type`; these are the caller's fault, not ours. */
function fromBodyParser(err: unknown, limit: number): ApiError | undefined {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') return new BadRequestError('The request body must be proper JSON.');
  if (type === 'entity.too.large') {
    return new UnprocessableEntityError([{ loc: ['body'], msg: `the request body exceeds ${limit} bytes`, type: 'value_error.body.too_large' }]);
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported' || type === 'request.size.invalid') {
    return new BadRequestError('The request body could not be read.');
  }
  return undefined;
}

/** The one place an error becomes an answer: `{detail}` with the status, nothing internal leaked. */
export function errorMiddleware(logger: Logger, maxRequestBodyBytes: number): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let apiError = err instanceof ApiError ? err : fromBodyParser(err, maxRequestBodyBytes);
    if (!apiError && isDatabaseUnavailable(err)) {
      // Down, restarting or out of connections: the caller can only retry, and is told so.
      logger.error({ err, method: req.method, path: req.path }, 'database unavailable');
      apiError = new DatabaseUnavailableError({ cause: err });
    }
    if (!apiError) {
      logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
      apiError = new InternalError();
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (apiError instanceof MethodNotAllowedError) res.setHeader('Allow', apiError.allowed.join(', '));
    res.status(apiError.status).json(apiError.body());
  };
}
