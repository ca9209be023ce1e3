import { ApiError, InternalError, LockedError, NotFoundError, UnprocessableEntityError } from './api-error.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './database-errors.js';
import {
  AntiBotDetectedError,
  BrowserFailureError,
  DeadlineExceededError,
  EngineError,
  EngineUnavailableError,
  InvalidSelectorError,
  ProxyUnavailableError,
  SelectorTimeoutError,
  TargetUnusableError,
  TargetUnreachableError,
} from './engine-errors.js';

/**
 * The one place where engine failures become API answers. A target-side failure is never a
 * 5xx: established clients retry every 5xx, and retrying a dead target only burns their time.
 */
export function translateEngineError(err: unknown, source: 'query' | 'body' = 'query'): ApiError {
  if (err instanceof ApiError) return err;
  if (!(err instanceof EngineError)) return isDatabaseUnavailable(err) ? new DatabaseUnavailableError({ cause: err }) : new InternalError();
  if (err instanceof TargetUnreachableError) return new NotFoundError(`The target could not be reached: ${err.message}`);
  if (err instanceof DeadlineExceededError) return new NotFoundError(`The request timed out: ${err.message}`);
  if (err instanceof SelectorTimeoutError) return new NotFoundError(`The request timed out: ${err.message}`);
  if (err instanceof TargetUnusableError) return new NotFoundError(`The target's answer is not usable: ${err.message}`);
  if (err instanceof AntiBotDetectedError) {
    return new LockedError(`The target's anti-bot detection blocked the request (${err.vendor} ${err.wall}). Retry, or change the proxy type or country.`);
  }
  if (err instanceof InvalidSelectorError) {
    return new UnprocessableEntityError([{ loc: [source, 'wait_for_selector'], msg: err.message, type: 'value_error.selector' }]);
  }
  if (err instanceof ProxyUnavailableError) {
    return new UnprocessableEntityError([{ loc: [source, err.param], msg: err.message, type: 'value_error.proxy_unavailable' }]);
  }
  if (err instanceof BrowserFailureError) return new InternalError('The browser rendering the page failed; the request was not charged. Retry it.');
  if (err instanceof EngineUnavailableError) {
    return new UnprocessableEntityError([{ loc: ['query', 'browser'], msg: err.message, type: 'value_error.engine_unavailable' }]);
  }
  return new InternalError();
}
