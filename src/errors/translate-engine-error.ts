import { ApiError, ForbiddenError, InternalError, LockedError, NotFoundError, UnprocessableEntityError } from './api-error.js';
import {
  AntiBotDetectedError,
  BrowserFailureError,
  DeadlineExceededError,
  EngineError,
  EngineUnavailableError,
  InvalidSelectorError,
  SelectorTimeoutError,
  TargetForbiddenError,
  TargetTooLargeError,
  TargetUnreachableError,
} from './engine-errors.js';

/**
 * The one place where engine failures become API answers. A target-side failure is never a
 * 5xx: established clients retry every 5xx, and retrying a dead target only burns their time.
 */
export function translateEngineError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (!(err instanceof EngineError)) return new InternalError();
  if (err instanceof TargetUnreachableError) return new NotFoundError(`The target could not be reached: ${err.message}`);
  if (err instanceof DeadlineExceededError) return new NotFoundError(`The request timed out: ${err.message}`);
  if (err instanceof SelectorTimeoutError) return new NotFoundError(`The request timed out: ${err.message}`);
  if (err instanceof TargetTooLargeError) return new NotFoundError(`The target's answer is not usable: ${err.message}`);
  if (err instanceof TargetForbiddenError) return new ForbiddenError(`The target is not allowed: ${err.message}`);
  if (err instanceof AntiBotDetectedError) return new LockedError(`The target's anti-bot detection blocked the request: ${err.message}`);
  if (err instanceof InvalidSelectorError) {
    return new UnprocessableEntityError([{ loc: ['query', 'wait_for_selector'], msg: err.message, type: 'value_error.selector' }]);
  }
  if (err instanceof BrowserFailureError) return new InternalError();
  if (err instanceof EngineUnavailableError) {
    return new UnprocessableEntityError([{ loc: ['query', 'browser'], msg: err.message, type: 'value_error.engine_unavailable' }]);
  }
  return new InternalError();
}
